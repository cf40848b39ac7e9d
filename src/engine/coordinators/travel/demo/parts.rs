//! From chosen parts to a plan: the stays, restaurants and attractions the
//! experts chose are placed on the trip's days (a stay per city, meals by
//! the restaurant rule, one attraction per day in a city), and the plan's
//! cost is estimated from the prices the experts gave. What cannot be
//! placed is reported as a gap.

use super::meals::{assign, Candidate};
use super::money;
use super::trip::{assemble, Picks, Slot, Trip};
use crate::engine::coordinators::travel::contract::{Place, Stay, TripFacts};
use crate::engine::domains::travel::plan::{Field, Plan};

/// The parts of a trip, as experts choose them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parts {
    pub stays: Vec<Stay>,
    pub restaurants: Vec<Place>,
    pub attractions: Vec<Place>,
}

impl Parts {
    /// These parts followed by `more` (earlier entries win where both fit).
    pub fn then(&self, more: &Parts) -> Parts {
        let join = |a: &[Place], b: &[Place]| [a, b].concat();
        Parts {
            stays: [self.stays.as_slice(), more.stays.as_slice()].concat(),
            restaurants: join(&self.restaurants, &more.restaurants),
            attractions: join(&self.attractions, &more.attractions),
        }
    }
}

/// A plan and what is known about it.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub plan: Plan,
    /// For the whole group, from the experts' prices.
    pub cost: f64,
    /// What could not be filled.
    pub gaps: Vec<String>,
}

/// Each required slot gets the first unused restaurant of its city.
fn best_effort(slots: &[Slot], cands: &[Candidate]) -> Vec<Option<usize>> {
    let mut picks: Vec<Option<usize>> = vec![None; slots.len()];
    for (si, s) in slots.iter().enumerate() {
        if !s.required {
            continue;
        }
        picks[si] =
            (0..cands.len()).find(|&ci| cands[ci].city == s.city && !picks.contains(&Some(ci)));
    }
    picks
}

pub fn place(facts: &TripFacts, trip: &Trip, parts: &Parts) -> Placed {
    let people = facts.people_number.max(1) as f64;
    let mut gaps = Vec::new();
    let mut cost: f64 = trip.legs.iter().map(|l| l.cost).sum();
    for l in &trip.legs {
        if l.text.trim().is_empty() {
            gaps.push(format!("no transportation chosen for day {}", l.day));
        }
    }
    let mut stays: Vec<(String, String)> = Vec::new();
    for (city, _, nights) in trip.stays() {
        match parts.stays.iter().find(|s| s.city == city) {
            Some(s) => {
                // The expert's cost covers its nights; scale it to this stay.
                if s.nights > 0 {
                    cost += s.cost / s.nights as f64 * nights as f64;
                }
                stays.push((city, s.name.clone()));
            }
            None => gaps.push(format!("no accommodation in {city}")),
        }
    }
    let slots = trip.meal_slots();
    let cands: Vec<Candidate> = parts
        .restaurants
        .iter()
        .map(|p| Candidate {
            city: p.city.clone(),
            name: p.name.clone(),
            cost: p.cost.unwrap_or(0.0),
            cuisines: p.cuisines.clone().unwrap_or_default(),
        })
        .collect();
    let wanted = facts.cuisine.clone().unwrap_or_default();
    let picks = match assign(&slots, &cands, &wanted) {
        Ok(p) => p,
        Err(e) => {
            gaps.push(e);
            assign(&slots, &cands, &[]).unwrap_or_else(|_| best_effort(&slots, &cands))
        }
    };
    let mut meals: Vec<(u32, Field, String)> = Vec::new();
    for (s, p) in slots.iter().zip(&picks) {
        match p.map(|i| &cands[i]) {
            Some(c) => {
                cost += c.cost * people;
                meals.push((s.day, s.meal, format!("{}, {}", c.name, c.city)));
            }
            None if s.required => gaps.push(format!("no {} on day {}", s.meal.key(), s.day)),
            None => {}
        }
    }
    let mut attractions: Vec<(u32, String)> = Vec::new();
    let mut used: Vec<usize> = Vec::new();
    for (day, city) in trip.sightseeing_days() {
        let pick = (0..parts.attractions.len()).find(|&i| {
            let a = &parts.attractions[i];
            a.city == city
                && !used.iter().any(|&u| {
                    parts.attractions[u].name == a.name && parts.attractions[u].city == city
                })
        });
        match pick {
            Some(i) => {
                used.push(i);
                attractions.push((day, format!("{}, {city};", parts.attractions[i].name)));
            }
            None => gaps.push(format!("no attraction on day {day} in {city}")),
        }
    }
    let plan = assemble(
        trip,
        &Picks {
            stays: &stays,
            meals: &meals,
            attractions: &attractions,
        },
    );
    Placed { plan, cost, gaps }
}

/// One line on the cost: the estimate against the budget.
pub fn cost_line(cost: f64, budget: f64) -> String {
    format!(
        "{COST_MARK} **{}** for the group (budget {}).",
        money(cost),
        money(budget)
    )
}

/// How the compiler states the plan's cost (the critic reads it back).
pub const COST_MARK: &str = "Estimated total:";

/// The total a post states after `COST_MARK`, if any.
pub fn stated_cost(text: &str) -> Option<f64> {
    let rest = &text[text.find(COST_MARK)? + COST_MARK.len()..];
    let start = rest.find('$')? + 1;
    let num: String = rest[start..]
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    num.trim_end_matches('.').parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::coordinators::travel::contract::Leg;

    fn facts() -> TripFacts {
        TripFacts::for_tests(&["d1", "d2", "d3"], 2, 500.0)
    }

    fn place_in(name: &str, cost: f64) -> Place {
        Place {
            city: "B".into(),
            name: name.into(),
            cost: Some(cost),
            cuisines: Some("Cafe".into()),
        }
    }

    #[test]
    fn parts_are_placed_and_priced_and_gaps_reported() {
        let f = facts();
        let leg = |day, from: &str, to: &str| Leg {
            day,
            from: from.into(),
            to: to.into(),
            text: format!("Taxi, from {from} to {to}"),
            cost: 10.0,
        };
        let trip = Trip::new(&f, &[leg(1, "A", "B"), leg(3, "B", "A")]).expect("trip");
        let parts = Parts {
            stays: vec![Stay {
                city: "B".into(),
                name: "Inn".into(),
                nights: 2,
                cost: 200.0,
            }],
            restaurants: vec![
                place_in("R1", 5.0),
                place_in("R2", 6.0),
                place_in("R3", 7.0),
            ],
            attractions: vec![place_in("Park", 0.0)],
        };
        let p = place(&f, &trip, &parts);
        assert!(p.gaps.is_empty(), "{:?}", p.gaps);
        assert_eq!(p.cost, 20.0 + 200.0 + 2.0 * 18.0);
        assert_eq!(p.plan.days[1].text(Field::Lunch), Some("R2, B"));
        assert_eq!(p.plan.days[1].text(Field::Attraction), Some("Park, B;"));
        assert_eq!(p.plan.days[2].text(Field::Accommodation), Some("-"));
        let thin = Parts {
            restaurants: vec![place_in("R1", 5.0)],
            ..Parts::default()
        };
        let p = place(&f, &trip, &thin);
        assert!(p.gaps.iter().any(|g| g.contains("accommodation")));
        assert!(p.gaps.iter().any(|g| g.contains("no lunch on day 2")));
        assert_eq!(stated_cost(&cost_line(1234.5, 2000.0)), Some(1234.5));
        assert_eq!(stated_cost("no cost"), None);
    }
}
