//! The critic's reply: adequate or not (a JSON yes/no, never guessed from
//! text), and its feedback. "Adequate" with feedback that names a problem
//! contradicts itself: it is read as not adequate (the solver looks
//! again), flagged.

use super::fields::{clip, text_field, yes_no};
use crate::engine::coordinators::mael::contract::Critique;
use crate::engine::model::reply::{
    read_json, says_no_problem, Read, Repair, RepairKind, Unreadable,
};
use serde::Deserialize;
use serde_json::Value;

/// The critic's reply: adequate or not, and the feedback.
pub fn critique(reply: &str) -> Result<Read<Critique>, Unreadable> {
    #[derive(Deserialize)]
    struct Loose {
        adequate: Value,
        #[serde(default)]
        feedback: Value,
    }
    let read = read_json::<Loose>(reply)?;
    let mut repairs = read.repairs;
    let mut adequate =
        yes_no(&read.value.adequate, "adequate", &mut repairs).map_err(Unreadable)?;
    let feedback = text_field(&read.value.feedback, "feedback", &mut repairs);
    if adequate && !says_no_problem(&feedback) {
        adequate = false;
        repairs.push(Repair::new(
            RepairKind::Shape,
            format!(
                "\"adequate\" was true but the feedback names a problem (\"{}\"): read as not adequate",
                clip(&feedback, 60)
            ),
        ));
    }
    Ok(Read {
        value: Critique { adequate, feedback },
        repairs,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adequate_with_a_complaint_is_not_adequate_and_is_flagged() {
        // It passed as adequate, unflagged.
        let r = critique(r#"{"adequate": true, "feedback": "total is wrong"}"#).expect("read");
        assert!(!r.value.adequate);
        assert_eq!(r.value.feedback, "total is wrong");
        assert_eq!(
            r.repairs.iter().map(|r| r.kind.clone()).collect::<Vec<_>>(),
            [RepairKind::Shape]
        );
        for ok in [
            r#"{"adequate": true, "feedback": ""}"#,
            r#"{"adequate": true}"#,
            r#"{"adequate": true, "feedback": "None."}"#,
            r#"{"adequate": true, "feedback": "Looks good"}"#,
        ] {
            let r = critique(ok).expect("read");
            assert!(r.value.adequate && r.repairs.is_empty(), "{ok}");
        }
        let r = critique(r#"{"adequate": false, "feedback": "step 2 is off"}"#).expect("read");
        assert!(!r.value.adequate && r.repairs.is_empty());
    }
}
