//! `is_not_absent` with its helpers `is_valid_days` and
//! `is_valid_visiting_city_number` (quirk 11: a wrong day count or city
//! count fails here too).

use super::access::{get, route, text};
use super::{cell, CellRef, Crash, Ctx, Verdict};
use crate::engine::domains::travel::plan::{Cell, Field};
use crate::engine::domains::travel::pyops::before_paren;

/// The marker the official annotation tool writes on unused days.
const UNUSED_DAY: &str = "You don't need to fill in the information for this or later days.";

/// `is_valid_days`: the non-empty, used days must number `query.days`.
fn valid_days(ctx: &Ctx) -> Result<bool, Crash> {
    let mut count = 0;
    for day in ctx.days {
        if day.is_empty() {
            continue;
        }
        let value = get(day, Field::CurrentCity)?;
        if value.as_text() != Some(UNUSED_DAY) {
            count += 1;
        }
    }
    Ok(count == ctx.q.days as usize)
}

/// `is_valid_visiting_city_number`: distinct cities other than the origin.
fn valid_city_number(ctx: &Ctx) -> Result<bool, Crash> {
    let mut cities: Vec<&str> = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        let value = text(day, Field::CurrentCity)?;
        if value.contains("from") {
            let (a, b) = route(value)?;
            if i == 0 && a != ctx.q.org {
                return Ok(false);
            }
            cities.extend([a, b]);
        } else {
            cities.push(before_paren(value));
        }
    }
    cities.sort_unstable();
    cities.dedup();
    cities.retain(|c| *c != ctx.q.org);
    Ok(cities.len() == ctx.q.visiting_city_number as usize)
}

const REQUIRED: [(Field, &str); 6] = [
    (Field::Transportation, "No Transportation Info."),
    (Field::Breakfast, "No Breakfast Info."),
    (Field::Lunch, "No Lunch Info."),
    (Field::Dinner, "No Dinner Info."),
    (Field::Attraction, "No Attraction Info."),
    (Field::Accommodation, "No Accommodation Info."),
];

fn blank(day: &crate::engine::domains::travel::plan::PlanDay, f: Field) -> bool {
    day.get(f).is_some_and(Cell::is_blank)
}

/// `is_not_absent`.
pub(super) fn not_absent(ctx: &Ctx) -> Result<Verdict, Crash> {
    if !valid_days(ctx)? {
        return Ok(Verdict::failed("Invalid Days", Vec::new()));
    }
    if !valid_city_number(ctx)? {
        let cells = (0..ctx.days.len())
            .map(|d| cell(d, Field::CurrentCity))
            .collect();
        return Ok(Verdict::failed("Invalid City Number", cells));
    }
    let mut filled = 0usize;
    for (i, day) in ctx.days.iter().enumerate() {
        let at = |f: Field| -> Vec<CellRef> { vec![cell(i, f)] };
        for (f, message) in REQUIRED {
            if !day.has(f) {
                return Ok(Verdict::failed(message, at(f)));
            }
        }
        let current = text(day, Field::CurrentCity)?;
        let travel = current.contains("from ");
        if (travel || current.contains("to ")) && blank(day, Field::Transportation) {
            return Ok(Verdict::failed(
                format!("No transportation in day {} is not allowed.", i + 1),
                at(Field::Transportation),
            ));
        }
        if !travel && !current.contains(" to ") && blank(day, Field::Attraction) {
            return Ok(Verdict::failed(
                format!("No attaction in day {} is not allowed.", i + 1),
                at(Field::Attraction),
            ));
        }
        if i + 1 != ctx.q.days as usize && blank(day, Field::Accommodation) {
            return Ok(Verdict::failed(
                format!("No accommodation in day {} is not allowed.", i + 1),
                at(Field::Accommodation),
            ));
        }
        let empty_meals: Vec<CellRef> = Field::MEALS
            .into_iter()
            .filter(|m| blank(day, *m))
            .map(|m| cell(i, m))
            .collect();
        if !empty_meals.is_empty() && !travel {
            return Ok(Verdict::failed(
                format!("No meal in day {} is not allowed.", i + 1),
                empty_meals,
            ));
        }
        filled += day
            .distinct_values()
            .iter()
            .filter(|v| v.is_filled())
            .count();
    }
    let needed = 6.0 * ctx.q.days as f64;
    if (filled as f64) / needed < 0.5 {
        return Ok(Verdict::failed(
            "The absent information is more than 50%.",
            Vec::new(),
        ));
    }
    Ok(Verdict::passed())
}
