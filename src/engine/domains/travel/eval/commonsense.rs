//! Six of the eight commonsense checks (the sandbox and completeness checks
//! have their own files), as `commonsense_constraint.py` computes them.

use super::access::{cell_text, filled_text, get, key_error, route, text};
use super::{cell, CellRef, Crash, Ctx, Verdict};
use crate::engine::domains::travel::plan::{Cell, Field};
use crate::engine::domains::travel::pyops::{attraction_pieces, before_paren, valid_name_city};

type R = Result<Verdict, Crash>;

/// `is_valid_city_sequence`: at least three entries; a city may not come
/// back once left (except as first/last) and a mid-route city must appear
/// at least twice in a row.
pub(crate) fn is_valid_city_sequence(list: &[&str]) -> bool {
    if list.len() < 3 {
        return false;
    }
    let mut visited: Vec<&str> = Vec::new();
    let mut i = 0;
    while i < list.len() {
        let city = list[i];
        if visited.contains(&city) && i != 0 && i != list.len() - 1 {
            return false;
        }
        let mut count = 0;
        while i < list.len() && list[i] == city {
            count += 1;
            i += 1;
        }
        if count == 1 && 0 < i - 1 && i - 1 < list.len() - 1 {
            return false;
        }
        visited.push(city);
    }
    true
}

/// `is_reasonalbe_visiting_city` (reported as `is_reasonable_visiting_city`).
pub(super) fn reasonable_visiting_city(ctx: &Ctx) -> R {
    let mut list: Vec<(&str, usize)> = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        let value = text(day, Field::CurrentCity)?;
        if value.contains("from") {
            let (a, b) = route(value)?;
            if i == 0 && a != ctx.q.org {
                return Ok(Verdict::failed(
                    format!("The first day's city should be {}.", ctx.q.org),
                    vec![cell(0, Field::CurrentCity)],
                ));
            }
            list.push((a, i));
            list.push((b, i));
        } else {
            list.push((before_paren(value), i));
        }
    }
    let (Some(first), Some(last)) = (list.first(), list.last()) else {
        return Err(Crash("IndexError: the plan has no days to check".into()));
    };
    let all_days = || route_cells(ctx.days.len());
    if first.0 != last.0 {
        return Ok(Verdict::failed(
            "The trip should be a closed circle.",
            vec![
                cell(first.1, Field::CurrentCity),
                cell(last.1, Field::CurrentCity),
            ],
        ));
    }
    let cities: Vec<&str> = list.iter().map(|c| c.0).collect();
    if !is_valid_city_sequence(&cities) {
        return Ok(Verdict::failed("The city sequence is invalid.", all_days()));
    }
    for (idx, (city, day)) in list.iter().enumerate() {
        let at = vec![cell(*day, Field::CurrentCity)];
        let Some(state) = ctx.db.state_of(city) else {
            return Ok(Verdict::failed(format!("{city} is not a valid city."), at));
        };
        if idx != 0 && idx != list.len() - 1 && ctx.q.days > 3 && state != ctx.q.dest {
            return Ok(Verdict::failed(
                format!("{city} is not in {}.", ctx.q.dest),
                at,
            ));
        }
    }
    Ok(Verdict::passed())
}

fn route_cells(n: usize) -> Vec<CellRef> {
    (0..n).map(|d| cell(d, Field::CurrentCity)).collect()
}

/// `is_valid_restaurants`: no restaurant string twice (raw comparison).
pub(super) fn valid_restaurants(ctx: &Ctx) -> R {
    let mut seen: Vec<(&Cell, CellRef)> = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        for meal in Field::MEALS {
            let Some(value) = day.filled(meal) else {
                continue;
            };
            if let Some((_, first)) = seen.iter().find(|(v, _)| *v == value) {
                let message = match meal {
                    Field::Lunch => format!(
                        "The restaurant in day {} lunch {} is repeated.",
                        i + 1,
                        value.display()
                    ),
                    _ => format!(
                        "The restaurant in day {} {} is repeated.",
                        i + 1,
                        meal.key()
                    ),
                };
                return Ok(Verdict::failed(message, vec![*first, cell(i, meal)]));
            }
            seen.push((value, cell(i, meal)));
        }
    }
    Ok(Verdict::passed())
}

/// `is_valid_attractions`: no attraction twice, over the `;`-separated
/// pieces before the last `;` (quirk 1).
pub(super) fn valid_attractions(ctx: &Ctx) -> R {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        let Some(value) = filled_text(day, Field::Attraction)? else {
            continue;
        };
        for piece in attraction_pieces(value) {
            if let Some((_, first)) = seen.iter().find(|(p, _)| *p == piece) {
                return Ok(Verdict::failed(
                    format!("The attraction '{piece}' in day {} is repeated.", i + 1),
                    vec![cell(*first, Field::Attraction), cell(i, Field::Attraction)],
                ));
            }
            seen.push((piece, i));
        }
    }
    Ok(Verdict::passed())
}

/// `is_valid_accommodaton`: a stay (run of identical strings) shorter than
/// the listing's minimum nights fails, when the name matches exactly one row.
pub(super) fn valid_accommodation(ctx: &Ctx) -> R {
    let mut values: Vec<&Cell> = Vec::new();
    for (i, day) in ctx.days.iter().enumerate() {
        match day.get(Field::Accommodation) {
            Some(v) => values.push(v),
            None => {
                let at = vec![cell(i, Field::Accommodation)];
                return Ok(Verdict::failed("No Accommodation Info.", at));
            }
        }
    }
    let mut start = 0;
    while start < values.len() {
        let value = values[start];
        let mut end = start + 1;
        while end < values.len() && values[end] == value {
            end += 1;
        }
        if !value.is_blank() {
            let text = cell_text(Field::Accommodation, value)?;
            let (name, city) = valid_name_city(text);
            if let Some(only) = ctx.db.single_accommodation(&name, &city) {
                if ((end - start) as f64) < only.minimum_nights {
                    return Ok(Verdict::failed(
                        format!("The accommodation {text} do not obey the minumum nights rule."),
                        (start..end)
                            .map(|d| cell(d, Field::Accommodation))
                            .collect(),
                    ));
                }
            }
        }
        start = end;
    }
    Ok(Verdict::passed())
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    Taxi,
    SelfDriving,
    Flight,
    Unknown,
}

/// `transportation_match`: taxi, then self-driving, then flight, by substring.
fn transportation_match(value: &str) -> Mode {
    let lower = value.to_lowercase();
    if lower.contains("taxi") {
        Mode::Taxi
    } else if lower.contains("self-driving") {
        Mode::SelfDriving
    } else if lower.contains("flight") {
        Mode::Flight
    } else {
        Mode::Unknown
    }
}

/// `is_valid_transportation`: day 1 must have transport; self-driving may
/// not be mixed with flights or taxis (quirk 9).
pub(super) fn valid_transportation(ctx: &Ctx) -> R {
    let first = ctx
        .all
        .first()
        .ok_or_else(|| key_error(Field::Transportation))?;
    let t0 = get(first, Field::Transportation)?;
    if !t0.is_filled() {
        return Ok(Verdict::failed(
            "The transportation in day 1 should not be empty.",
            vec![cell(0, Field::Transportation)],
        ));
    }
    let mut modes = vec![(
        transportation_match(cell_text(Field::Transportation, t0)?),
        0,
    )];
    for (i, day) in ctx.days.iter().enumerate() {
        if let Some(value) = filled_text(day, Field::Transportation)? {
            modes.push((transportation_match(value), i));
        }
    }
    let has = |m: Mode| modes.iter().any(|(x, _)| *x == m);
    let conflict = if has(Mode::SelfDriving) && has(Mode::Flight) {
        Some([Mode::SelfDriving, Mode::Flight])
    } else if has(Mode::Taxi) && has(Mode::SelfDriving) {
        Some([Mode::Taxi, Mode::SelfDriving])
    } else {
        None
    };
    match conflict {
        Some(pair) => {
            let mut cells: Vec<CellRef> = modes
                .iter()
                .filter(|(m, _)| pair.contains(m))
                .map(|(_, d)| cell(*d, Field::Transportation))
                .collect();
            cells.dedup();
            Ok(Verdict::failed("The transportation is conflicting.", cells))
        }
        None => Ok(Verdict::passed()),
    }
}

/// The cities a day's entries are checked against: both ends of a travel
/// day, or — quirk 2 — the characters of the city name on other days.
fn day_units(current_city: &str) -> Result<Vec<&str>, Crash> {
    if current_city.contains("from") {
        let (a, b) = route(current_city)?;
        Ok(vec![a, b])
    } else {
        let c = before_paren(current_city);
        Ok(c.char_indices()
            .map(|(i, ch)| &c[i..i + ch.len_utf8()])
            .collect())
    }
}

/// `is_valid_information_in_current_city`.
pub(super) fn information_in_current_city(ctx: &Ctx) -> R {
    for (i, day) in ctx.days.iter().enumerate() {
        let units = day_units(text(day, Field::CurrentCity)?)?;
        let fail = |what: &str, f: Field| {
            Ok(Verdict::failed(
                format!("The {what} in day {} is invalid city choice.", i + 1),
                vec![cell(i, f)],
            ))
        };
        if let Some(t) = filled_text(day, Field::Transportation)? {
            if units.iter().any(|c| !t.contains(c)) {
                return fail("transportation", Field::Transportation);
            }
        }
        for meal in Field::MEALS {
            if let Some(m) = filled_text(day, meal)? {
                if !units.iter().any(|c| m.contains(c)) {
                    return fail(meal.key(), meal);
                }
            }
        }
        if let Some(a) = filled_text(day, Field::Attraction)? {
            for piece in attraction_pieces(a) {
                if !units.iter().any(|c| piece.contains(c)) {
                    return fail("attraction", Field::Attraction);
                }
            }
        }
        if let Some(acc) = filled_text(day, Field::Accommodation)? {
            let last = units
                .last()
                .ok_or_else(|| Crash("IndexError: the current city is empty".into()))?;
            if !acc.contains(last) {
                return fail("accommodation", Field::Accommodation);
            }
        }
    }
    Ok(Verdict::passed())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn city_sequences() {
        assert!(is_valid_city_sequence(&["A", "B", "B", "A"]));
        assert!(is_valid_city_sequence(&["A", "B", "B", "C", "C", "A"]));
        assert!(!is_valid_city_sequence(&["A", "B", "A"]));
        assert!(!is_valid_city_sequence(&[
            "A", "B", "B", "C", "B", "B", "A"
        ]));
        assert!(!is_valid_city_sequence(&["A", "A"]));
    }

    #[test]
    fn transport_modes_by_substring() {
        assert!(transportation_match("Taxi, from A to B") == Mode::Taxi);
        assert!(transportation_match("Self-driving, from A to B") == Mode::SelfDriving);
        assert!(transportation_match("Flight Number: F1") == Mode::Flight);
        assert!(transportation_match("walk") == Mode::Unknown);
    }
}
