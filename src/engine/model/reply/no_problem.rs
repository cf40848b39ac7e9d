//! Texts that say there is nothing wrong ("None.", "No issues", "Looks
//! good"): a check's issue or a critique's feedback that is no complaint.

/// Whether `text` says there is no problem (whole, ignoring case, spaces
/// and end punctuation). Anything else is taken as naming one.
pub fn says_no_problem(text: &str) -> bool {
    let t = text
        .trim()
        .trim_end_matches(['.', '!'])
        .trim()
        .to_lowercase();
    matches!(
        t.as_str(),
        "" | "-"
            | "none"
            | "n/a"
            | "na"
            | "nothing"
            | "no issue"
            | "no issues"
            | "no issues found"
            | "no problem"
            | "no problems"
            | "no feedback"
            | "nothing to fix"
            | "no changes needed"
            | "looks good"
            | "all good"
            | "good"
            | "fine"
            | "ok"
            | "okay"
            | "correct"
            | "adequate"
            | "well done"
            | "the solution is correct"
            | "the answer is correct"
    )
}

#[cfg(test)]
mod tests {
    use super::says_no_problem;

    #[test]
    fn only_texts_that_say_nothing_is_wrong_are_no_problem() {
        for t in ["", " None. ", "No issues!", "n/a", "Looks good.", "OK"] {
            assert!(says_no_problem(t), "{t:?}");
        }
        for t in [
            "total is wrong",
            "None of the steps add up",
            "Looks good except step 2",
            "Agent C missing",
        ] {
            assert!(!says_no_problem(t), "{t:?}");
        }
    }
}
