//! The hard (user) constraints of `hard_constraint.py`: budget, house rule,
//! cuisine, room type, transportation. They run only on plans that passed
//! `is_not_absent` and `is_valid_information_in_sandbox`.

use super::access::{filled_text, get, text};
use super::{cell, Crash, Ctx, Verdict};
use crate::engine::domains::travel::plan::{Field, PlanDay};
use crate::engine::domains::travel::pyops::{extract_from_to, flight_number_of, valid_name_city};
use crate::engine::domains::travel::sandbox::RoadMode;
use crate::engine::domains::travel::tables::Accommodation;

type R = Result<Verdict, Crash>;

fn transport_cost(ctx: &Ctx, day: &PlanDay) -> Result<f64, Crash> {
    let Some(value) = filled_text(day, Field::Transportation)? else {
        return Ok(0.0);
    };
    let ends = match extract_from_to(value) {
        Some(p) => Some(p),
        None => extract_from_to(text(day, Field::CurrentCity)?),
    };
    let Some((o, d)) = ends else {
        return Ok(0.0);
    };
    let people = ctx.q.people_number as f64;
    let lower = value.to_lowercase();
    if lower.contains("flight number") {
        let number = flight_number_of(value)
            .ok_or_else(|| Crash(format!("IndexError: no \"Flight Number: \" in \"{value}\"")))?;
        return Ok(ctx.db.flight_price(number).map_or(0.0, |p| p * people));
    }
    if !(lower.contains("self-driving") || lower.contains("taxi")) {
        return Ok(0.0);
    }
    let mode = if lower.contains("self-driving") {
        RoadMode::SelfDriving
    } else {
        RoadMode::Taxi
    };
    let cost = ctx
        .db
        .road_cost(o, d, mode)
        .map_err(Crash)?
        .ok_or_else(|| {
            Crash(format!(
                "TypeError: the {} cost from {o} to {d} is None",
                mode.label()
            ))
        })?;
    Ok(cost as f64 * (people / mode.seats()).ceil())
}

/// The first accommodation row an entry resolves to (name substring + city).
fn accommodation_of<'a>(ctx: &'a Ctx, value: &str) -> Option<&'a Accommodation> {
    let (name, city) = valid_name_city(value);
    ctx.db.find_accommodation(&name, &city)
}

/// `get_total_cost`: flights, road legs, meals and nights, in plan order.
/// Entries that are not found add nothing (quirk 13).
pub(super) fn total_cost(ctx: &Ctx) -> Result<f64, Crash> {
    let people = ctx.q.people_number as f64;
    let mut total = 0.0;
    for day in ctx.days {
        get(day, Field::Transportation)?;
        total += transport_cost(ctx, day)?;
        for meal in Field::MEALS {
            if let Some(value) = filled_text(day, meal)? {
                let (name, city) = valid_name_city(value);
                if let Some(r) = ctx.db.find_restaurant(&name, &city) {
                    total += r.average_cost * people;
                }
            }
        }
        if let Some(value) = filled_text(day, Field::Accommodation)? {
            if let Some(a) = accommodation_of(ctx, value) {
                if a.maximum_occupancy == 0.0 {
                    return Err(Crash("ZeroDivisionError: maximum occupancy is 0".into()));
                }
                total += a.price * (people / a.maximum_occupancy).ceil();
            }
        }
    }
    Ok(total)
}

/// The accommodations of the plan's days that resolve to a table row.
fn stays<'a>(ctx: &'a Ctx) -> Result<Vec<(usize, &'a Accommodation)>, Crash> {
    let mut out = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        if let Some(value) = filled_text(day, Field::Accommodation)? {
            if let Some(a) = accommodation_of(ctx, value) {
                out.push((i, a));
            }
        }
    }
    Ok(out)
}

/// Whether a listing's house rules break the wanted house rule ("pets" is
/// broken by "No pets"); unknown rules are never broken.
pub fn house_rule_broken(rule: &str, house_rules: &str) -> bool {
    let forbidden = match rule {
        "smoking" => "No smoking",
        "parties" => "No parties",
        "children under 10" => "No children under 10",
        "visitors" => "No visitors",
        "pets" => "No pets",
        _ => return false,
    };
    house_rules.contains(forbidden)
}

/// Whether a listing's room type breaks the wanted one.
pub fn room_type_broken(wanted: &str, room_type: &str) -> bool {
    match wanted {
        "not shared room" => room_type == "Shared room",
        "shared room" => room_type != "Shared room",
        "private room" => room_type != "Private room",
        "entire room" => room_type != "Entire home/apt",
        _ => false,
    }
}

/// Whether a transportation entry breaks the transportation constraint.
pub fn transport_broken(rule: &str, value: &str) -> bool {
    (rule == "no flight" && value.contains("Flight"))
        || (rule == "no self-driving" && value.contains("Self-driving"))
}

/// Fails on the first stay for which `broken(wanted, stay)` holds, saying
/// "The {what} should be {wanted}."; not applicable without a `wanted`.
fn stays_rule(
    ctx: &Ctx,
    wanted: Option<&str>,
    what: &str,
    broken: fn(&str, &Accommodation) -> bool,
) -> R {
    let Some(wanted) = wanted else {
        return Ok(Verdict::not_applicable());
    };
    for (i, a) in stays(ctx)? {
        if broken(wanted, a) {
            return Ok(Verdict::failed(
                format!("The {what} should be {wanted}."),
                vec![cell(i, Field::Accommodation)],
            ));
        }
    }
    Ok(Verdict::passed())
}

/// `is_valid_room_rule`.
pub(super) fn room_rule(ctx: &Ctx) -> R {
    let rule = ctx.q.local_constraint.house_rule.as_deref();
    stays_rule(ctx, rule, "house rule", |rule, a| {
        house_rule_broken(rule, &a.house_rules)
    })
}

/// `is_valid_room_type`.
pub(super) fn room_type(ctx: &Ctx) -> R {
    let wanted = ctx.q.local_constraint.room_type.as_deref();
    stays_rule(ctx, wanted, "room type", |wanted, a| {
        room_type_broken(wanted, &a.room_type)
    })
}

/// `is_valid_transportation` (hard): "Flight" / "Self-driving", case-sensitive.
pub(super) fn transportation(ctx: &Ctx) -> R {
    let Some(rule) = ctx.q.local_constraint.transportation.as_deref() else {
        return Ok(Verdict::not_applicable());
    };
    for (i, day) in ctx.days.iter().enumerate() {
        let Some(value) = filled_text(day, Field::Transportation)? else {
            continue;
        };
        if transport_broken(rule, value) {
            return Ok(Verdict::failed(
                format!("The transportation should not be {rule}."),
                vec![cell(i, Field::Transportation)],
            ));
        }
    }
    Ok(Verdict::passed())
}

/// `is_valid_cuisine`: every wanted cuisine among the meals outside the
/// origin city. A meal in the origin city skips the rest of its day (quirk 5).
pub(super) fn cuisine(ctx: &Ctx) -> R {
    let wanted = match &ctx.q.local_constraint.cuisine {
        Some(list) if !list.is_empty() => list,
        _ => return Ok(Verdict::not_applicable()),
    };
    let mut found: Vec<&str> = Vec::new();
    'days: for day in ctx.days {
        for meal in Field::MEALS {
            let Some(value) = filled_text(day, meal)? else {
                continue;
            };
            let (name, city) = valid_name_city(value);
            if city == ctx.q.org {
                continue 'days;
            }
            if let Some(r) = ctx.db.find_restaurant(&name, &city) {
                for c in wanted {
                    if r.cuisines.contains(c.as_str()) && !found.contains(&c.as_str()) {
                        found.push(c);
                    }
                }
            }
        }
    }
    if found.len() == wanted.len() {
        return Ok(Verdict::passed());
    }
    match wanted.iter().find(|c| !found.contains(&c.as_str())) {
        Some(missing) => Ok(Verdict::failed(
            format!("The cuisine {missing} is not satisfied."),
            Vec::new(),
        )),
        None => Err(Crash(
            "TypeError: the query lists a cuisine twice, so the check returns None".into(),
        )),
    }
}
