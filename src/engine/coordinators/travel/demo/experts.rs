//! The hotel, restaurant and attraction experts' rules, over the trip the
//! transportation expert laid out: search each city once, then pick by
//! simple rules — the cheapest listing that passes every requirement; the
//! cheapest distinct restaurants covering the wanted cuisines; the first
//! listed attraction not used yet, one per day in a city.

use super::knowledge::Knowledge;
use super::meals::{assign, Candidate};
use super::trip::Trip;
use super::{money, Step, ToolUse};
use crate::engine::coordinators::travel::contract::{ExpertChoices, Place, Stay, TripFacts};
use crate::engine::domains::travel::eval::hard::{house_rule_broken, room_type_broken};
use crate::engine::domains::travel::tables::Accommodation;

/// The searches still needed: `tool[city]` for each city not searched yet.
fn searches(tool: &'static str, cities: &[String], seen: impl Fn(&str) -> bool) -> Vec<ToolUse> {
    let mut out: Vec<ToolUse> = Vec::new();
    for c in cities {
        let call = ToolUse::new(tool, &[c]);
        if !seen(c) && !out.contains(&call) {
            out.push(call);
        }
    }
    out
}

fn plural(n: u32, word: &str) -> String {
    format!("{n} {word}{}", if n == 1 { "" } else { "s" })
}

/// A listing's cost for the group and the rooms it takes, or why it does not suit.
type Verdict = Result<(f64, u32), String>;

/// Whether a listing suits the trip: its cost for the group, or why not.
fn check_listing(
    a: &Accommodation,
    earlier: &[Accommodation],
    nights: u32,
    facts: &TripFacts,
) -> Verdict {
    if let Some(rule) = facts.house_rule.as_deref() {
        if house_rule_broken(rule, &a.house_rules) {
            return Err(format!("\"{}\" rules out {rule}", a.house_rules));
        }
    }
    if let Some(wanted) = facts.room_type.as_deref() {
        if room_type_broken(wanted, &a.room_type) {
            return Err(format!("a {} is not a {wanted}", a.room_type));
        }
    }
    if a.minimum_nights > nights as f64 {
        return Err(format!(
            "minimum {} nights, we stay {nights}",
            a.minimum_nights
        ));
    }
    if a.maximum_occupancy < 1.0 {
        return Err("no occupancy given".into());
    }
    if let Some(o) = earlier.iter().find(|o| o.name.contains(a.name.as_str())) {
        return Err(format!(
            "its name also matches \"{}\" listed before it, so the booking would be ambiguous",
            o.name
        ));
    }
    let rooms = (facts.people_number.max(1) as f64 / a.maximum_occupancy).ceil() as u32;
    Ok((nights as f64 * a.price * rooms as f64, rooms))
}

pub fn hotel(facts: &TripFacts, trip: &Trip, k: &Knowledge, may_call: bool) -> Step {
    let stays = trip.stays();
    let cities: Vec<String> = stays.iter().map(|s| s.0.clone()).collect();
    let calls = searches("AccommodationSearch", &cities, |c| k.stays_in(c).is_some());
    if !calls.is_empty() && may_call {
        return Step::Calls {
            thought: format!(
                "Nights needed: {}. Searching the listings.",
                nights_list(&stays)
            ),
            calls,
        };
    }
    let mut text = format!(
        "Nights needed: {} — nobody sleeps away on day {}, the trip home.\n\n",
        nights_list(&stays),
        trip.days
    );
    text.push_str("<checking hotel requirements>\n");
    let mut choices = ExpertChoices::default();
    let mut problems = Vec::new();
    let people = facts.people_number.max(1);
    for (city, first, nights) in &stays {
        text.push_str(&format!(
            "{city}: {} (days {first}–{}), {}; house rule: {}; room type: {}.\n",
            plural(*nights, "night"),
            first + nights - 1,
            plural(people, "traveller"),
            facts.house_rule.as_deref().unwrap_or("none"),
            facts.room_type.as_deref().unwrap_or("any")
        ));
        let Some(rows) = k.stays_in(city) else {
            problems.push(format!("I could not search the listings in {city}"));
            continue;
        };
        let mut checked: Vec<(&Accommodation, Verdict)> = rows
            .iter()
            .enumerate()
            .map(|(i, a)| (a, check_listing(a, &rows[..i], *nights, facts)))
            .collect();
        checked.sort_by(|a, b| a.0.price.total_cmp(&b.0.price));
        for (a, verdict) in &checked {
            match verdict {
                Ok((cost, rooms)) => text.push_str(&format!(
                    "- ✓ {} — {}/night, {}, up to {} guests, minimum {} nights, rules: {} → {} × {} = {}\n",
                    a.name,
                    money(a.price),
                    a.room_type,
                    a.maximum_occupancy,
                    a.minimum_nights,
                    a.house_rules,
                    plural(*rooms, "room"),
                    plural(*nights, "night"),
                    money(*cost)
                )),
                Err(why) => text.push_str(&format!(
                    "- ✗ {} — {}/night: {why}\n",
                    a.name,
                    money(a.price)
                )),
            }
        }
        let best = checked
            .iter()
            .filter_map(|(a, v)| v.as_ref().ok().map(|(c, _)| (*a, *c)))
            .min_by(|x, y| x.1.total_cmp(&y.1));
        match best {
            Some((a, cost)) => choices.stays.push(Stay {
                city: city.clone(),
                name: a.name.clone(),
                nights: *nights,
                cost,
            }),
            None => problems.push(format!(
                "no listing in {city} meets every requirement for {}",
                plural(*nights, "night")
            )),
        }
    }
    text.push_str("</checking hotel requirements>\n\n");
    for s in &choices.stays {
        text.push_str(&format!(
            "**{}:** {} — {} for {}.\n",
            s.city,
            s.name,
            plural(s.nights, "night"),
            money(s.cost)
        ));
    }
    let total: f64 = choices.stays.iter().map(|s| s.cost).sum();
    text.push_str(&format!("\nAccommodation total: **{}**.", money(total)));
    choices.estimated_cost = Some(total);
    finish(text, choices, problems)
}

fn nights_list(stays: &[(String, u32, u32)]) -> String {
    if stays.is_empty() {
        return "none".into();
    }
    stays
        .iter()
        .map(|(c, _, n)| format!("{} in {c}", plural(*n, "night")))
        .collect::<Vec<_>>()
        .join(", ")
}

fn finish(mut text: String, mut choices: ExpertChoices, problems: Vec<String>) -> Step {
    if !problems.is_empty() {
        let p = problems.join("; ");
        text.push_str(&format!("\n\n**Problem:** {p}."));
        choices.problem = Some(p);
    }
    Step::Done { text, choices }
}

pub fn restaurant(facts: &TripFacts, trip: &Trip, k: &Knowledge, may_call: bool) -> Step {
    let slots = trip.meal_slots();
    let mut cities: Vec<String> = Vec::new();
    for s in &slots {
        if !cities.contains(&s.city) {
            cities.push(s.city.clone());
        }
    }
    let calls = searches("RestaurantSearch", &cities, |c| {
        k.restaurants_in(c).is_some()
    });
    let wanted = facts.cuisine.clone().unwrap_or_default();
    if !calls.is_empty() && may_call {
        let required = slots.iter().filter(|s| s.required).count();
        return Step::Calls {
            thought: format!(
                "{required} meals on full days in {}{}. Searching restaurants.",
                cities.join(" and "),
                if wanted.is_empty() {
                    String::new()
                } else {
                    format!(", covering {}", wanted.join(", "))
                }
            ),
            calls,
        };
    }
    let cands: Vec<Candidate> = cities
        .iter()
        .flat_map(|c| k.restaurants_in(c).cloned().unwrap_or_default())
        .map(|r| Candidate {
            city: r.city,
            name: r.name,
            cost: r.average_cost,
            cuisines: r.cuisines,
        })
        .collect();
    let mut text = String::from(
        "Every meal of a full day in a city gets the cheapest restaurant not used yet; meals on travel days stay free unless a cuisine needs them.",
    );
    if !wanted.is_empty() {
        text.push_str(&format!(
            " First, the cheapest place for each wanted cuisine: {}.",
            wanted.join(", ")
        ));
    }
    text.push_str("\n\n");
    let mut choices = ExpertChoices::default();
    let picks = match assign(&slots, &cands, &wanted) {
        Ok(p) => p,
        Err(e) => return finish(text, choices, vec![e]),
    };
    let people = facts.people_number.max(1) as f64;
    let mut total = 0.0;
    for (s, p) in slots.iter().zip(&picks) {
        let Some(c) = p.map(|i| &cands[i]) else {
            continue;
        };
        let serves: Vec<&str> = wanted
            .iter()
            .filter(|w| c.cuisines.contains(w.as_str()))
            .map(String::as_str)
            .collect();
        text.push_str(&format!(
            "- Day {} {}: {} ({}) — {}/person; {}{}\n",
            s.day,
            s.meal.key(),
            c.name,
            c.city,
            money(c.cost),
            c.cuisines,
            if serves.is_empty() {
                String::new()
            } else {
                format!(" ← {}", serves.join(", "))
            }
        ));
        total += c.cost * people;
        choices.restaurants.push(Place {
            city: c.city.clone(),
            name: c.name.clone(),
            cost: Some(c.cost),
            cuisines: Some(c.cuisines.clone()),
        });
    }
    text.push_str(&format!(
        "\nMeals total for {}: **{}**.",
        plural(facts.people_number.max(1), "traveller"),
        money(total)
    ));
    choices.estimated_cost = Some(total);
    finish(text, choices, Vec::new())
}

pub fn attraction(trip: &Trip, k: &Knowledge, may_call: bool) -> Step {
    let days = trip.sightseeing_days();
    let cities: Vec<String> = days.iter().map(|d| d.1.clone()).collect();
    let calls = searches("AttractionSearch", &cities, |c| {
        k.attractions_in(c).is_some()
    });
    if !calls.is_empty() && may_call {
        return Step::Calls {
            thought: format!(
                "{} to fill: {}. Searching attractions.",
                plural(days.len() as u32, "sightseeing day"),
                days.iter()
                    .map(|(d, c)| format!("day {d} in {c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
            calls,
        };
    }
    let mut text =
        String::from("One attraction for each day spent in a city: the first one listed that the trip has not used.\n\n");
    let mut choices = ExpertChoices::default();
    let mut problems = Vec::new();
    for (day, city) in &days {
        let pick = k.attractions_in(city).and_then(|rows| {
            rows.iter().find(|a| {
                !a.name.contains(';')
                    && !choices
                        .attractions
                        .iter()
                        .any(|p| p.name == a.name && p.city == *city)
            })
        });
        match pick {
            Some(a) => {
                text.push_str(&format!(
                    "- Day {day}, {city}: {} — {}\n",
                    a.name, a.address
                ));
                choices.attractions.push(Place {
                    city: city.clone(),
                    name: a.name.clone(),
                    cost: None,
                    cuisines: None,
                });
            }
            None => problems.push(format!("no attraction left in {city} for day {day}")),
        }
    }
    finish(text.trim_end().to_string(), choices, problems)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::travel::contract::Leg;
    use crate::engine::coordinators::travel::demo::observe::Observation;
    use crate::engine::domains::travel::table_text;

    fn listing(
        name: &str,
        price: f64,
        room: &str,
        rules: &str,
        min: f64,
        occ: f64,
    ) -> Accommodation {
        Accommodation {
            name: name.into(),
            price,
            room_type: room.into(),
            house_rules: rules.into(),
            minimum_nights: min,
            maximum_occupancy: occ,
            review_rate: 4.0,
            city: "B".into(),
        }
    }

    #[test]
    fn the_hotel_picks_the_cheapest_listing_that_meets_every_requirement() {
        let facts = TripFacts {
            org: "A".into(),
            dest: "B".into(),
            days: 3,
            visiting_city_number: 1,
            dates: vec![],
            people_number: 3,
            budget: 1000.0,
            house_rule: Some("pets".into()),
            cuisine: None,
            room_type: Some("entire room".into()),
            transportation: None,
        };
        let leg = |day, from: &str, to: &str| Leg {
            day,
            from: from.into(),
            to: to.into(),
            text: "Taxi".into(),
            cost: 0.0,
        };
        let trip = Trip::new(&facts, &[leg(1, "A", "B"), leg(3, "B", "A")]).expect("trip");
        let k = Knowledge::default();
        match hotel(&facts, &trip, &k, true) {
            Step::Calls { calls, .. } => {
                assert_eq!(calls, vec![ToolUse::new("AccommodationSearch", &["B"])])
            }
            other => panic!("{other:?}"),
        }
        let rows = vec![
            listing("No Pets Loft", 50.0, "Entire home/apt", "No pets", 1.0, 4.0),
            listing("Shared Bunk", 10.0, "Shared room", "No rules", 1.0, 4.0),
            listing(
                "Long Stay House",
                40.0,
                "Entire home/apt",
                "No rules",
                3.0,
                4.0,
            ),
            listing("Small Flat", 70.0, "Entire home/apt", "No rules", 1.0, 2.0),
            listing(
                "Big House",
                120.0,
                "Entire home/apt",
                "No parties",
                2.0,
                6.0,
            ),
        ];
        let text = table_text::accommodations(&rows);
        let k = Knowledge::from_observations(&[Observation {
            tool: "AccommodationSearch".into(),
            args: vec!["B".into()],
            text: text.trim().to_string(),
        }]);
        let Step::Done { choices, text } = hotel(&facts, &trip, &k, true) else {
            panic!("done")
        };
        // Small Flat needs 2 rooms for 3 people (2 × 2 × 70 = 280) > Big House (2 × 120 = 240).
        assert_eq!(choices.stays.len(), 1, "{text}");
        assert_eq!(choices.stays[0].name, "Big House", "{text}");
        assert_eq!(choices.stays[0].cost, 240.0);
        assert!(
            text.contains("rules out pets") && text.contains("minimum 3 nights"),
            "{text}"
        );
        assert!(choices.problem.is_none());
        // Parties rule out Big House; a private room rules out the rest.
        let strict = TripFacts {
            house_rule: Some("parties".into()),
            room_type: Some("private room".into()),
            ..facts.clone()
        };
        let Step::Done { choices, .. } = hotel(&strict, &trip, &k, true) else {
            panic!("done")
        };
        assert!(choices
            .problem
            .as_deref()
            .unwrap_or("")
            .contains("no listing in B"));
    }
}
