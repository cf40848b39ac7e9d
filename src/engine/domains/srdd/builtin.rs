//! Roundtable's own small software requirements in SRDD's shape (name,
//! description, category), for runs without the dataset's file: the
//! offline demo model writes small real programs for them. Counted from 0,
//! the even ones are the training split and the odd ones the test split,
//! as a data file is split.

use super::Requirement;

const REQUIREMENTS: [(&str, &str, &str); 8] = [
    (
        "Bill_Splitter",
        "Splits a restaurant bill among a group of friends, adds a chosen tip and prints what each friend owes.",
        "Budgeting",
    ),
    (
        "Unit_Shifter",
        "Converts lengths, weights and temperatures between metric and imperial units and prints a table of sample conversions.",
        "Utility",
    ),
    (
        "Word_Census",
        "Counts the words and sentences of a text, finds its most frequent words and prints a short report.",
        "Education",
    ),
    (
        "Grade_Ledger",
        "Keeps the marks of a class in several subjects, computes each student's average and letter grade, and prints a class report.",
        "Education",
    ),
    (
        "Habit_Streaks",
        "Records daily habits, tracks the current and the longest streak of each habit, and prints a weekly summary.",
        "Lifestyle",
    ),
    (
        "Pantry_Keeper",
        "Keeps an inventory of pantry items with quantities and expiry dates, warns about items that expire soon and prints a shopping list.",
        "Lifestyle",
    ),
    (
        "Budget_Buckets",
        "Sorts expenses into categories, compares each category with its monthly budget and prints the categories that are over.",
        "Budgeting",
    ),
    (
        "Quiz_Board",
        "Keeps a bank of multiple-choice questions, scores a round of answers and prints the final score with the questions missed.",
        "Game",
    ),
];

/// Every built-in requirement, in order.
pub fn requirements() -> Vec<Requirement> {
    REQUIREMENTS
        .iter()
        .map(|(name, description, category)| Requirement {
            name: name.to_string(),
            description: description.to_string(),
            category: category.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::srdd::project::{File, Project};

    #[test]
    fn the_built_in_requirements_are_complete_by_the_metrics_own_rule() {
        let reqs = requirements();
        assert_eq!(reqs.len(), 8);
        let mut names: Vec<&str> = reqs.iter().map(|r| r.name.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), 8, "names are unique");
        // A requirement's words land in a program's strings: none may say
        // "pass" or "todo", which would make any project incomplete.
        for r in &reqs {
            let p = Project {
                files: vec![File::new("main.py", &r.task())],
            };
            assert_eq!(p.completeness(), 1.0, "{}", r.name);
        }
    }
}
