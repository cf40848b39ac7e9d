//! `is_valid_information_in_sandbox`: every entry must exist in the
//! database (quirks 3, 4, 6). The same walk lists all hallucinated entities.

use super::access::{cell_text, filled_text, get, text};
use super::hallucination::HallucinationCategory as Cat;
use super::{cell, Crash, Ctx, Verdict};
use crate::engine::domains::travel::plan::{Field, PlanDay};
use crate::engine::domains::travel::pyops::{
    attraction_pieces, before_paren, extract_from_to, flight_number_of, valid_name_city,
};
use crate::engine::domains::travel::sandbox::RoadMode;

/// One entry that is not in the sandbox.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Finding {
    pub day: usize,
    pub field: Field,
    pub category: Cat,
    pub entity: String,
    pub message: String,
}

type Found = Result<Option<Finding>, Crash>;

/// A finding on day `day` (0-based) saying "The {what} in day {day + 1} is
/// invalid in the sandbox."
fn finding(day: usize, field: Field, category: Cat, entity: &str, what: &str) -> Found {
    Ok(Some(Finding {
        day,
        field,
        category,
        entity: entity.to_string(),
        message: format!("The {what} in day {} is invalid in the sandbox.", day + 1),
    }))
}

fn check_transport(ctx: &Ctx, i: usize, day: &PlanDay) -> Found {
    let value = get(day, Field::Transportation)?;
    if !value.is_filled() {
        return Ok(None);
    }
    let value = cell_text(Field::Transportation, value)?;
    let ends = match extract_from_to(value) {
        Some(p) => Some(p),
        None => extract_from_to(text(day, Field::CurrentCity)?),
    };
    let lower = value.to_lowercase();
    let f = Field::Transportation;
    if lower.contains("flight number") {
        let (o, d) = ends.ok_or_else(|| {
            Crash(format!(
                "ValueError: The transportation {value} in day {} can not be parsed.",
                i + 1
            ))
        })?;
        let number = flight_number_of(value).ok_or_else(|| {
            Crash(format!(
                "IndexError: \"{value}\" mentions a flight number without \"Flight Number: \""
            ))
        })?;
        if !ctx
            .db
            .flight_exists(number, before_paren(o), before_paren(d))
        {
            return finding(i, f, Cat::Transportation, number, "flight number");
        }
    } else if lower.contains("self-driving") || lower.contains("taxi") {
        let (o, d) = ends
            .map(|(o, d)| (before_paren(o), before_paren(d)))
            .unwrap_or(("-", "-"));
        let mode = if lower.contains("self-driving") {
            RoadMode::SelfDriving
        } else {
            RoadMode::Taxi
        };
        if ctx.db.road_cost(o, d, mode).map_err(Crash)?.is_none() {
            return finding(i, f, Cat::Transportation, value, mode.label());
        }
    }
    Ok(None)
}

fn check_meal(ctx: &Ctx, i: usize, day: &PlanDay, meal: Field) -> Found {
    let Some(value) = filled_text(day, meal)? else {
        return Ok(None);
    };
    let (name, city) = valid_name_city(value);
    if ctx.db.find_restaurant(&name, &city).is_none() {
        return finding(i, meal, Cat::Restaurant, value, meal.key());
    }
    Ok(None)
}

fn check_attractions(ctx: &Ctx, i: usize, day: &PlanDay, all: bool) -> Result<Vec<Finding>, Crash> {
    let mut out = Vec::new();
    let Some(value) = filled_text(day, Field::Attraction)? else {
        return Ok(out);
    };
    for piece in attraction_pieces(value) {
        let (name, city) = valid_name_city(piece);
        if ctx.db.find_attraction(&name, &city).is_none() {
            let what = format!("attraction {piece}");
            out.extend(finding(
                i,
                Field::Attraction,
                Cat::Attraction,
                piece,
                &what,
            )?);
            if !all {
                break;
            }
        }
    }
    Ok(out)
}

fn check_accommodation(ctx: &Ctx, i: usize, day: &PlanDay) -> Found {
    let Some(value) = filled_text(day, Field::Accommodation)? else {
        return Ok(None);
    };
    let (name, city) = valid_name_city(value);
    if ctx.db.find_accommodation(&name, &city).is_none() {
        return finding(
            i,
            Field::Accommodation,
            Cat::Accommodation,
            value,
            "accommodation",
        );
    }
    Ok(None)
}

/// Walks the plan in the official order. With `all = false` it stops at the
/// first finding and propagates crashes (the check); with `all = true` it
/// collects every finding and skips entries the official code cannot read.
pub(super) fn walk(ctx: &Ctx, all: bool) -> Result<Vec<Finding>, Crash> {
    let mut out = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        let mut steps: Vec<Result<Vec<Finding>, Crash>> = Vec::with_capacity(6);
        let push = |r: Found| r.map(|o| o.into_iter().collect());
        steps.push(push(check_transport(ctx, i, day)));
        for meal in Field::MEALS {
            steps.push(push(check_meal(ctx, i, day, meal)));
        }
        steps.push(check_attractions(ctx, i, day, all));
        steps.push(push(check_accommodation(ctx, i, day)));
        for step in steps {
            match step {
                Ok(found) => {
                    out.extend(found);
                    if !all && !out.is_empty() {
                        return Ok(out);
                    }
                }
                Err(crash) if !all => return Err(crash),
                Err(_) => {}
            }
        }
    }
    Ok(out)
}

pub(super) fn information_in_sandbox(ctx: &Ctx) -> Result<Verdict, Crash> {
    match walk(ctx, false)?.into_iter().next() {
        Some(f) => Ok(Verdict::failed(f.message, vec![cell(f.day, f.field)])),
        None => Ok(Verdict::passed()),
    }
}
