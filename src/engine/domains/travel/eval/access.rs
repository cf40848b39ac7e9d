//! Reading plan days the way the official Python does: `unit[key]` raises
//! on a missing key, string operations raise on non-strings, and the usual
//! guard `unit[key] and unit[key] != '-'` skips empty entries.

use super::Crash;
use crate::engine::domains::travel::plan::{Cell, Field, PlanDay};
use crate::engine::domains::travel::pyops::{before_paren, extract_from_to};

pub(super) fn key_error(f: Field) -> Crash {
    Crash(format!("KeyError: the day has no \"{}\" key", f.key()))
}

fn type_error(f: Field, c: &Cell) -> Crash {
    Crash(format!(
        "TypeError: \"{}\" is {}, not a string",
        f.key(),
        c.display()
    ))
}

/// `unit[key]`.
pub(super) fn get(day: &PlanDay, f: Field) -> Result<&Cell, Crash> {
    day.get(f).ok_or_else(|| key_error(f))
}

/// `unit[key]` used as a string.
pub(super) fn text(day: &PlanDay, f: Field) -> Result<&str, Crash> {
    let c = get(day, f)?;
    c.as_text().ok_or_else(|| type_error(f, c))
}

/// A filled cell used as a string (after the guard).
pub(super) fn cell_text(f: Field, c: &Cell) -> Result<&str, Crash> {
    c.as_text().ok_or_else(|| type_error(f, c))
}

/// `if key in unit and unit[key] and unit[key] != '-'`, then as a string.
pub(super) fn filled_text(day: &PlanDay, f: Field) -> Result<Option<&str>, Crash> {
    match day.filled(f) {
        Some(c) => cell_text(f, c).map(Some),
        None => Ok(None),
    }
}

/// `extract_from_to` then `extract_before_parenthesis` on both cities; the
/// latter raises a TypeError when the pattern did not match.
pub(super) fn route(current_city: &str) -> Result<(&str, &str), Crash> {
    extract_from_to(current_city)
        .map(|(a, b)| (before_paren(a), before_paren(b)))
        .ok_or_else(|| {
            Crash(format!(
                "TypeError: \"{current_city}\" contains \"from\" but no \"from A to B\""
            ))
        })
}
