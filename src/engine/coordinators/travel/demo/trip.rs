//! The shape of a trip once its legs are known: where the travellers are on
//! each day, where they sleep, which meals and sightseeing slots there are;
//! and the plan assembled from the team's choices, written in the format
//! the compiler's prompt asks for.

use crate::engine::coordinators::travel::contract::{Leg, TripFacts};
use crate::engine::domains::travel::plan::{Field, Plan, PlanDay};

/// What a day is: a move between two cities, or a day spent in one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DayKind<'a> {
    Travel { from: &'a str, to: &'a str },
    Stay(&'a str),
}

/// A meal to fill: on which day (1-based), which meal, in which city, and
/// whether it must be filled (a full day in a city) or may stay empty (a
/// travel day).
#[derive(Clone, Debug, PartialEq)]
pub struct Slot {
    pub day: u32,
    pub meal: Field,
    pub city: String,
    pub required: bool,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Trip {
    pub org: String,
    pub days: u32,
    /// Sorted by day, one per travel day, chained from the origin back to it.
    pub legs: Vec<Leg>,
}

/// The travel days of a trip over `n` cities: day 1 out, the last day home,
/// the others spread evenly (days 1, 3, ..., 2n+1 for a 2n+1-day trip).
pub fn travel_days(days: u32, n: usize) -> Vec<u32> {
    let days = days.max(1);
    let n = n.max(1) as u32;
    (0..=n)
        .map(|k| 1 + ((k * (days - 1)) as f64 / n as f64).round() as u32)
        .collect()
}

/// The legs of a route (cities in order, origin excluded) on the travel days.
pub fn route_legs(facts: &TripFacts, route: &[String]) -> Vec<(u32, String, String)> {
    let mut seq = vec![facts.org.clone()];
    seq.extend(route.iter().cloned());
    seq.push(facts.org.clone());
    travel_days(facts.days, route.len())
        .into_iter()
        .zip(seq.windows(2))
        .map(|(d, w)| (d, w[0].clone(), w[1].clone()))
        .collect()
}

/// The date of a 1-based day, if the facts list it.
pub fn date_of(facts: &TripFacts, day: u32) -> Option<&str> {
    facts
        .dates
        .get(day.checked_sub(1)? as usize)
        .map(String::as_str)
}

impl Trip {
    /// Checks that the legs make a round trip within the dates.
    pub fn new(facts: &TripFacts, legs: &[Leg]) -> Result<Trip, String> {
        let mut legs = legs.to_vec();
        legs.sort_by_key(|l| l.day);
        let (Some(first), Some(last)) = (legs.first(), legs.last()) else {
            return Err("there are no legs".into());
        };
        if first.from != facts.org || last.to != facts.org {
            return Err(format!(
                "the legs do not start and end in {} (they go from {} to {})",
                facts.org, first.from, last.to
            ));
        }
        if first.day != 1 || last.day != facts.days {
            return Err(format!(
                "the legs travel on days {} to {}, not 1 to {}",
                first.day, last.day, facts.days
            ));
        }
        for w in legs.windows(2) {
            if w[0].day == w[1].day {
                return Err(format!("two legs on day {}", w[0].day));
            }
            if w[0].to != w[1].from {
                return Err(format!(
                    "day {} ends in {} but day {} leaves from {}",
                    w[0].day, w[0].to, w[1].day, w[1].from
                ));
            }
        }
        Ok(Trip {
            org: facts.org.clone(),
            days: facts.days,
            legs,
        })
    }

    pub fn leg_on(&self, day: u32) -> Option<&Leg> {
        self.legs.iter().find(|l| l.day == day)
    }

    /// Where the travellers are on a day.
    pub fn day(&self, day: u32) -> DayKind<'_> {
        if let Some(l) = self.leg_on(day) {
            return DayKind::Travel {
                from: &l.from,
                to: &l.to,
            };
        }
        DayKind::Stay(self.city_after(day))
    }

    /// The city reached by the last leg on or before `day`.
    fn city_after(&self, day: u32) -> &str {
        self.legs
            .iter()
            .rev()
            .find(|l| l.day <= day)
            .map_or(self.org.as_str(), |l| l.to.as_str())
    }

    /// Where they sleep after `day` (None on the last day and at home).
    pub fn sleeps_in(&self, day: u32) -> Option<&str> {
        let c = self.city_after(day);
        (day < self.days && c != self.org).then_some(c)
    }

    /// The cities visited, in order.
    pub fn cities(&self) -> Vec<String> {
        self.legs
            .iter()
            .filter(|l| l.to != self.org)
            .map(|l| l.to.clone())
            .collect()
    }

    /// (city, first night, nights) for each stay.
    pub fn stays(&self) -> Vec<(String, u32, u32)> {
        let mut out: Vec<(String, u32, u32)> = Vec::new();
        for d in 1..self.days {
            let Some(c) = self.sleeps_in(d) else { continue };
            match out.last_mut() {
                Some(last) if last.0 == c && last.1 + last.2 == d => last.2 += 1,
                _ => out.push((c.to_string(), d, 1)),
            }
        }
        out
    }

    /// The meals of the trip, in order: on a travel day breakfast and lunch
    /// where they leave and dinner where they arrive (optional, never at
    /// home); on a day in a city, all three there.
    pub fn meal_slots(&self) -> Vec<Slot> {
        let mut out = Vec::new();
        let slot = |day, meal, city: &str, required| Slot {
            day,
            meal,
            city: city.to_string(),
            required,
        };
        for d in 1..=self.days {
            match self.day(d) {
                DayKind::Travel { from, to } => {
                    if from != self.org {
                        out.push(slot(d, Field::Breakfast, from, false));
                        out.push(slot(d, Field::Lunch, from, false));
                    }
                    if to != self.org {
                        out.push(slot(d, Field::Dinner, to, false));
                    }
                }
                DayKind::Stay(c) if c != self.org => {
                    for m in Field::MEALS {
                        out.push(slot(d, m, c, true));
                    }
                }
                DayKind::Stay(_) => {}
            }
        }
        out
    }

    /// The days spent in a city (one attraction each).
    pub fn sightseeing_days(&self) -> Vec<(u32, String)> {
        (1..=self.days)
            .filter_map(|d| match self.day(d) {
                DayKind::Stay(c) if c != self.org => Some((d, c.to_string())),
                _ => None,
            })
            .collect()
    }

    pub fn describe_day(&self, d: u32) -> String {
        match self.day(d) {
            DayKind::Travel { from, to } => format!("from {from} to {to}"),
            DayKind::Stay(c) => c.to_string(),
        }
    }
}

/// The chosen places of a plan, by slot.
pub struct Picks<'a> {
    /// Stay name per city.
    pub stays: &'a [(String, String)],
    /// (day, meal, "Name, City").
    pub meals: &'a [(u32, Field, String)],
    /// (day, "Name, City;").
    pub attractions: &'a [(u32, String)],
}

/// The plan of a trip with these picks ("-" where nothing was chosen).
pub fn assemble(trip: &Trip, picks: &Picks) -> Plan {
    let days = (1..=trip.days)
        .map(|d| {
            let meal = |m: Field| {
                picks
                    .meals
                    .iter()
                    .find(|(day, f, _)| *day == d && *f == m)
                    .map_or("-".to_string(), |p| p.2.clone())
            };
            let transport = trip.leg_on(d).map_or("-".to_string(), |l| l.text.clone());
            let attraction = picks
                .attractions
                .iter()
                .filter(|(day, _)| *day == d)
                .map(|(_, a)| a.as_str())
                .collect::<String>();
            let stay = trip.sleeps_in(d).map_or("-".to_string(), |c| {
                picks
                    .stays
                    .iter()
                    .find(|(city, _)| city == c)
                    .map_or("-".to_string(), |(_, name)| format!("{name}, {c}"))
            });
            PlanDay::standard(
                d,
                &trip.describe_day(d),
                &transport,
                &meal(Field::Breakfast),
                if attraction.is_empty() {
                    "-"
                } else {
                    &attraction
                },
                &meal(Field::Lunch),
                &meal(Field::Dinner),
                &stay,
            )
        })
        .collect();
    Plan { days }
}

/// The plan as a ```json block, one day object per entry with the keys in
/// the order the prompt lists them.
pub fn plan_block(plan: &Plan) -> String {
    format!("```json\n{}\n```", days_array(plan, ""))
}

/// The compiler's reply in its step's shape: `{"plan": [...], "notes": ...}`.
pub fn plan_reply(plan: &Plan, notes: &str) -> String {
    format!(
        "{{\n  \"plan\": {},\n  \"notes\": {}\n}}",
        days_array(plan, "  "),
        serde_json::Value::from(notes)
    )
}

/// The days as a JSON array, every line after the first indented by `indent`.
fn days_array(plan: &Plan, indent: &str) -> String {
    let mut out = String::from("[\n");
    for (i, day) in plan.days.iter().enumerate() {
        out.push_str(&format!("{indent}  {{\n"));
        let keys: Vec<String> = Field::ALL
            .iter()
            .filter_map(|f| {
                let v = day.get(*f)?.to_json();
                Some(format!("{indent}    \"{}\": {v}", f.key()))
            })
            .collect();
        out.push_str(&keys.join(",\n"));
        out.push_str(&format!("\n{indent}  }}"));
        out.push_str(if i + 1 == plan.days.len() {
            "\n"
        } else {
            ",\n"
        });
    }
    out.push_str(indent);
    out.push(']');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::travel::builtin::builtin_queries;
    use crate::engine::domains::travel::parse_plan_text;

    fn facts(days: u32) -> TripFacts {
        TripFacts {
            org: "A".into(),
            dest: "S".into(),
            days,
            visiting_city_number: 2,
            dates: (1..=days).map(|d| format!("2024-01-0{d}")).collect(),
            people_number: 1,
            budget: 1.0,
            house_rule: None,
            cuisine: None,
            room_type: None,
            transportation: None,
        }
    }

    fn legs(f: &TripFacts, route: &[&str]) -> Vec<Leg> {
        let route: Vec<String> = route.iter().map(|s| s.to_string()).collect();
        route_legs(f, &route)
            .into_iter()
            .map(|(day, from, to)| Leg {
                text: format!("Taxi, from {from} to {to}"),
                day,
                from,
                to,
                cost: 1.0,
            })
            .collect()
    }

    #[test]
    fn a_five_day_trip_over_two_cities() {
        assert_eq!(travel_days(5, 2), vec![1, 3, 5]);
        assert_eq!(travel_days(7, 3), vec![1, 3, 5, 7]);
        assert_eq!(travel_days(3, 1), vec![1, 3]);
        let f = facts(5);
        let t = Trip::new(&f, &legs(&f, &["B", "C"])).expect("trip");
        assert_eq!(t.cities(), vec!["B", "C"]);
        assert_eq!(t.stays(), vec![("B".into(), 1, 2), ("C".into(), 3, 2)]);
        assert_eq!(t.day(2), DayKind::Stay("B"));
        assert_eq!(t.sleeps_in(5), None);
        let slots = t.meal_slots();
        assert_eq!(slots.iter().filter(|s| s.required).count(), 6);
        assert_eq!(slots.len(), 6 + 1 + 3 + 2);
        assert_eq!(t.sightseeing_days(), vec![(2, "B".into()), (4, "C".into())]);
        let mut bad = legs(&f, &["B", "C"]);
        bad[1].from = "X".into();
        assert!(Trip::new(&f, &bad).is_err());
        assert!(Trip::new(&f, &[]).is_err());
    }

    #[test]
    fn plan_blocks_parse_back_in_the_gold_format() {
        for q in builtin_queries() {
            let gold = q.annotated_plan.expect("gold");
            let text = format!("The plan:\n{}", plan_block(&gold));
            assert_eq!(parse_plan_text(&text).expect("parses"), gold);
        }
    }
}
