//! The transportation expert's rules: find the cities (CitySearch when the
//! destination is a state), then try routes in order — for each leg the
//! flights on its day and the road by self-driving and by taxi — and keep
//! the cheapest way through the first route that works, either driving
//! every leg or flight/taxi per leg (self-driving never mixes with flights).
//! A route with an impossible leg is dropped and the next one tried, within
//! a bounded number of calls.

use super::knowledge::Knowledge;
use super::trip::{date_of, route_legs};
use super::{money, ToolUse};
use crate::engine::coordinators::travel::contract::{Leg, TripFacts};
use crate::engine::domains::travel::greedy::permutations;

/// Tool calls one turn may spend on routes before settling.
const MAX_CALLS: usize = 40;
/// Routes considered at most.
const MAX_ROUTES: usize = 120;
/// Feasible routes compared when asked to save money.
const COMPARED: usize = 3;

/// The transport of a route, leg by leg.
#[derive(Clone, Debug, PartialEq)]
pub struct RouteChoice {
    pub route: Vec<String>,
    pub legs: Vec<Leg>,
    /// Per leg: the alternatives that were seen, for the summary.
    pub alternatives: Vec<String>,
    pub total: f64,
    pub driving: bool,
}

/// Where the search for a route stands: tools still to call, a route
/// chosen, or a problem no tool can fix.
pub enum RouteSearch {
    Calls {
        thought: String,
        calls: Vec<ToolUse>,
    },
    Chosen {
        choice: RouteChoice,
        notes: Vec<String>,
    },
    Problem {
        problem: String,
        notes: Vec<String>,
    },
}

struct LegView {
    day: u32,
    from: String,
    to: String,
    needed: Vec<ToolUse>,
    flight: Option<(String, f64)>,
    drive: Option<(String, f64)>,
    taxi: Option<(String, f64)>,
}

fn seats(people: u32, per_vehicle: u32) -> f64 {
    people.div_ceil(per_vehicle).max(1) as f64
}

fn leg_view(facts: &TripFacts, k: &Knowledge, day: u32, from: &str, to: &str) -> LegView {
    let date = date_of(facts, day).unwrap_or("").to_string();
    let rule = facts.transportation.as_deref().unwrap_or("");
    let people = facts.people_number.max(1);
    let mut v = LegView {
        day,
        from: from.into(),
        to: to.into(),
        needed: Vec::new(),
        flight: None,
        drive: None,
        taxi: None,
    };
    if rule != "no flight" {
        match k.flights_on(from, to, &date) {
            None => v.needed.push(ToolUse::new("FlightSearch", &[from, to, &date])),
            Some(rows) => {
                v.flight = rows
                    .iter()
                    .min_by(|a, b| a.price.total_cmp(&b.price))
                    .map(|f| {
                        (
                            format!(
                                "Flight Number: {}, from {from} to {to}, Departure Time: {}, Arrival Time: {}",
                                f.number, f.dep_time, f.arr_time
                            ),
                            f.price * people as f64,
                        )
                    })
            }
        }
    }
    let modes: &[(&str, &str, u32)] = if rule == "no self-driving" {
        &[("taxi", "Taxi", 4)]
    } else {
        &[("self-driving", "Self-driving", 5), ("taxi", "Taxi", 4)]
    };
    for (mode, label, per) in modes {
        match k.road(from, to, mode) {
            None => v
                .needed
                .push(ToolUse::new("GoogleDistanceMatrix", &[from, to, mode])),
            Some(r) => {
                let option = r.and_then(|r| {
                    let cost = r.cost()?;
                    Some((
                        format!(
                            "{label}, from {from} to {to}, duration: {}, distance: {}, cost: {cost}",
                            r.duration, r.distance
                        ),
                        cost as f64 * seats(people, *per),
                    ))
                });
                if *mode == "taxi" {
                    v.taxi = option;
                } else {
                    v.drive = option;
                }
            }
        }
    }
    v
}

fn mixed(v: &LegView) -> Option<&(String, f64)> {
    [v.flight.as_ref(), v.taxi.as_ref()]
        .into_iter()
        .flatten()
        .min_by(|a, b| a.1.total_cmp(&b.1))
}

fn alternatives(v: &LegView) -> String {
    let show = |name: &str, o: &Option<(String, f64)>| match o {
        Some((_, c)) => format!("{name} {}", money(*c)),
        None => format!("no {name}"),
    };
    [
        show("flight", &v.flight),
        show("self-driving", &v.drive),
        show("taxi", &v.taxi),
    ]
    .join(", ")
}

enum RouteState {
    Unknown(Vec<ToolUse>),
    Impossible(String),
    Feasible(RouteChoice),
}

fn evaluate(facts: &TripFacts, k: &Knowledge, route: &[String]) -> RouteState {
    let views: Vec<LegView> = route_legs(facts, route)
        .iter()
        .map(|(d, a, b)| leg_view(facts, k, *d, a, b))
        .collect();
    let known = |v: &&LegView| v.needed.is_empty();
    let no_drive = views.iter().filter(known).find(|v| v.drive.is_none());
    let no_mixed = views.iter().filter(known).find(|v| mixed(v).is_none());
    if let (Some(a), Some(b)) = (no_drive, no_mixed) {
        let why = if a.day == b.day {
            format!("nothing goes from {} to {} on day {}", b.from, b.to, b.day)
        } else {
            format!(
                "no road from {} to {} (day {}) rules out driving all the way, and nothing but a car goes from {} to {} (day {})",
                a.from, a.to, a.day, b.from, b.to, b.day
            )
        };
        return RouteState::Impossible(why);
    }
    let mut needed: Vec<ToolUse> = Vec::new();
    for v in &views {
        for n in &v.needed {
            if !needed.contains(n) {
                needed.push(n.clone());
            }
        }
    }
    if !needed.is_empty() {
        return RouteState::Unknown(needed);
    }
    let drive: Option<Vec<&(String, f64)>> = views.iter().map(|v| v.drive.as_ref()).collect();
    let mix: Option<Vec<&(String, f64)>> = views.iter().map(mixed).collect();
    let total = |o: &Vec<&(String, f64)>| o.iter().map(|x| x.1).sum::<f64>();
    let (picked, driving) = match (drive, mix) {
        (Some(d), Some(m)) if total(&d) <= total(&m) => (d, true),
        (_, Some(m)) => (m, false),
        (Some(d), None) => (d, true),
        (None, None) => return RouteState::Impossible("no way to travel every leg".into()),
    };
    let legs = views
        .iter()
        .zip(&picked)
        .map(|(v, (text, cost))| Leg {
            day: v.day,
            from: v.from.clone(),
            to: v.to.clone(),
            text: text.clone(),
            cost: *cost,
        })
        .collect();
    RouteState::Feasible(RouteChoice {
        route: route.to_vec(),
        legs,
        alternatives: views.iter().map(alternatives).collect(),
        total: total(&picked),
        driving,
    })
}

/// The candidate routes, or the call or problem that comes first.
fn routes(
    facts: &TripFacts,
    k: &Knowledge,
    avoid: &[String],
) -> Result<Vec<Vec<String>>, RouteSearch> {
    let n = facts.visiting_city_number.max(1) as usize;
    let problem = |p: String| RouteSearch::Problem {
        problem: p,
        notes: Vec::new(),
    };
    if n == 1 && !k.not_cities.contains(&facts.dest) && k.cities_of(&facts.dest).is_none() {
        return Ok(vec![vec![facts.dest.clone()]]);
    }
    let cities = match k.cities_of(&facts.dest) {
        None => {
            return Err(RouteSearch::Calls {
                thought: format!(
                    "{} is a state, so first I look up its cities to choose {n} of them.",
                    facts.dest
                ),
                calls: vec![ToolUse::new("CitySearch", &[&facts.dest])],
            })
        }
        Some(None) => {
            return Err(problem(format!(
                "the tools know no city or state called {}",
                facts.dest
            )))
        }
        Some(Some(c)) => c,
    };
    let pool: Vec<String> = cities
        .iter()
        .filter(|c| **c != facts.org && !avoid.contains(c))
        .cloned()
        .collect();
    if pool.len() < n {
        return Err(problem(format!(
            "{} has only {} cities to visit ({}) once {} and the cities to avoid are left out; the trip needs {n}",
            facts.dest,
            pool.len(),
            pool.join(", "),
            facts.org
        )));
    }
    Ok(permutations(&pool, n, MAX_ROUTES))
}

fn arrow(facts: &TripFacts, route: &[String]) -> String {
    let mut seq = vec![facts.org.as_str()];
    seq.extend(route.iter().map(String::as_str));
    seq.push(&facts.org);
    seq.join(" → ")
}

/// The next move of the transportation expert. `compare`: look at several
/// workable routes and keep the cheapest (when asked to save money).
/// `may_call`: whether tools can still be called in this turn.
pub fn decide(
    facts: &TripFacts,
    k: &Knowledge,
    avoid: &[String],
    compare: bool,
    may_call: bool,
) -> RouteSearch {
    let routes = match routes(facts, k, avoid) {
        Ok(r) => r,
        Err(RouteSearch::Calls { .. }) if !may_call => {
            return RouteSearch::Problem {
                problem: format!("I could not look up the cities of {}", facts.dest),
                notes: Vec::new(),
            }
        }
        Err(o) => return o,
    };
    let may_call = may_call && k.calls < MAX_CALLS;
    let mut notes = Vec::new();
    let mut feasible: Vec<RouteChoice> = Vec::new();
    for route in &routes {
        match evaluate(facts, k, route) {
            RouteState::Impossible(why) => notes.push(format!("{}: {why}", arrow(facts, route))),
            RouteState::Unknown(calls) if may_call => {
                let mut thought = match notes.last() {
                    Some(n) => format!(
                        "{} ruled out so far (the latest: {n}). ",
                        if notes.len() == 1 {
                            "One route".to_string()
                        } else {
                            format!("{} routes", notes.len())
                        }
                    ),
                    None => String::new(),
                };
                thought.push_str(&format!(
                    "Checking {}: flights on each travel day, and the road by car and by taxi.",
                    arrow(facts, route)
                ));
                return RouteSearch::Calls { thought, calls };
            }
            RouteState::Unknown(_) => {}
            RouteState::Feasible(c) => {
                feasible.push(c);
                if !compare || feasible.len() >= COMPARED {
                    break;
                }
            }
        }
    }
    match feasible
        .into_iter()
        .min_by(|a, b| a.total.total_cmp(&b.total))
    {
        Some(choice) => RouteSearch::Chosen { choice, notes },
        None => RouteSearch::Problem {
            problem: format!(
                "I found no way to travel {} within the dates and the transportation rule",
                if routes.len() == 1 {
                    arrow(facts, &routes[0])
                } else {
                    format!("through {}", facts.dest)
                }
            ),
            notes,
        },
    }
}

/// The post's readable part for a chosen route.
pub fn summary(facts: &TripFacts, c: &RouteChoice, notes: &[String]) -> String {
    let days: Vec<String> = c.legs.iter().map(|l| l.day.to_string()).collect();
    let mut s = format!(
        "**Route:** {} (travel on days {}).\n\n",
        arrow(facts, &c.route),
        days.join(", ")
    );
    let people = facts.people_number.max(1);
    s.push_str(&format!(
        "For each leg I compared the cheapest flight on its day with the road by self-driving (a car seats 5) and by taxi (4 per taxi), for {people} traveller{}{}. ",
        if people == 1 { "" } else { "s" },
        match facts.transportation.as_deref() {
            Some(rule) => format!(", respecting \"{rule}\""),
            None => String::new(),
        }
    ));
    s.push_str(if c.driving {
        "Driving every leg is the cheapest way, so the whole trip is by car.\n\n"
    } else {
        "The cheapest workable way is a flight or a taxi on each leg (self-driving cannot be mixed with flights).\n\n"
    });
    for (l, alt) in c.legs.iter().zip(&c.alternatives) {
        s.push_str(&format!(
            "- Day {}, {} → {}: {} — **{}** (seen: {alt})\n",
            l.day,
            l.from,
            l.to,
            l.text,
            money(l.cost)
        ));
    }
    if !notes.is_empty() {
        s.push_str("\nRoutes ruled out first:\n");
        for n in notes {
            s.push_str(&format!("- {n}\n"));
        }
    }
    s.push_str(&format!("\nTransportation total: **{}**.", money(c.total)));
    s
}
