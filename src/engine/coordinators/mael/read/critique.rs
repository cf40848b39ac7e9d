//! The critic's reply: adequate or not (a JSON yes/no, never guessed from
//! text), and its feedback.

use super::fields::{text_field, yes_no};
use crate::engine::coordinators::mael::contract::Critique;
use crate::engine::model::reply::{read_json, Read, Unreadable};
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
    let adequate = yes_no(&read.value.adequate, "adequate", &mut repairs).map_err(Unreadable)?;
    let feedback = text_field(&read.value.feedback, "feedback", &mut repairs);
    Ok(Read {
        value: Critique { adequate, feedback },
        repairs,
    })
}
