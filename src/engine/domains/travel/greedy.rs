//! A rule-based planner: for each possible route it takes the cheapest
//! options that satisfy the query's constraints (transport without
//! conflicts, stays that respect house rule, room type and minimum nights,
//! distinct restaurants covering the wanted cuisines, one attraction per
//! sightseeing day) and keeps the cheapest plan. It shows that a query is
//! solvable and is the policy of scripted demo agents.
//!
//! Trips have 2n+1 days over n cities: travel on days 1, 3, ..., 2n+1 and
//! stay two nights in each city.

use super::db::TravelDb;
use super::eval::hard::{house_rule_broken, room_type_broken};
use super::plan::{Field, Plan, PlanDay};
use super::query::Query;
use super::sandbox::RoadMode;
use super::tables::{Accommodation, Restaurant};

/// A plan and what the planner expects it to cost.
#[derive(Clone, Debug, PartialEq)]
pub struct GreedyPlan {
    pub plan: Plan,
    pub estimated_cost: f64,
    pub within_budget: bool,
    /// The cities visited, in order (origin excluded).
    pub route: Vec<String>,
}

const MAX_ROUTES: usize = 500;
const NIGHTS: f64 = 2.0;

/// The cheapest plan the rules find, or why there is none.
pub fn solve(db: &TravelDb, q: &Query) -> Result<GreedyPlan, String> {
    let n = q.visiting_city_number as usize;
    if n == 0 || q.days as usize != 2 * n + 1 {
        return Err(format!(
            "the planner handles trips of 2n+1 days over n cities; this one has {} days and {} cities",
            q.days, n
        ));
    }
    if q.date.len() < q.days as usize {
        return Err("the query lists fewer dates than days".into());
    }
    let mut best: Option<GreedyPlan> = None;
    let mut last_error = String::from("no route");
    for route in candidate_routes(db, q, n)? {
        match plan_route(db, q, &route) {
            Ok(p)
                if best
                    .as_ref()
                    .is_none_or(|b| p.estimated_cost < b.estimated_cost) =>
            {
                best = Some(p)
            }
            Ok(_) => {}
            Err(e) => last_error = e,
        }
    }
    best.ok_or(last_error)
}

fn candidate_routes(db: &TravelDb, q: &Query, n: usize) -> Result<Vec<Vec<String>>, String> {
    if n == 1 && db.is_city(&q.dest) {
        return Ok(vec![vec![q.dest.clone()]]);
    }
    let cities: Vec<String> = db
        .cities_in_state(&q.dest)
        .ok_or_else(|| format!("\"{}\" is neither a known city nor a known state", q.dest))?
        .iter()
        .filter(|c| **c != q.org)
        .cloned()
        .collect();
    let out = permutations(&cities, n, MAX_ROUTES);
    if out.is_empty() {
        return Err(format!("{} has fewer than {n} cities to visit", q.dest));
    }
    Ok(out)
}

/// The ordered choices of `n` distinct cities from `pool`, in order, at
/// most `max` of them.
pub fn permutations(pool: &[String], n: usize, max: usize) -> Vec<Vec<String>> {
    fn walk(
        pool: &[String],
        n: usize,
        max: usize,
        cur: &mut Vec<String>,
        out: &mut Vec<Vec<String>>,
    ) {
        if out.len() >= max {
            return;
        }
        if cur.len() == n {
            out.push(cur.clone());
            return;
        }
        for c in pool {
            if !cur.contains(c) {
                cur.push(c.clone());
                walk(pool, n, max, cur, out);
                cur.pop();
            }
        }
    }
    let mut out = Vec::new();
    walk(pool, n, max, &mut Vec::new(), &mut out);
    out
}

/// One leg's transport: the plan text and its cost for the group.
struct Move {
    text: String,
    cost: f64,
}

fn flight_move(db: &TravelDb, q: &Query, from: &str, to: &str, date: &str) -> Option<Move> {
    if q.local_constraint.transportation.as_deref() == Some("no flight") {
        return None;
    }
    let f = db
        .flights_on(from, to, date)
        .into_iter()
        .min_by(|a, b| a.price.total_cmp(&b.price))?;
    // Costs are looked up by number alone: the number must price this flight.
    (db.flight_price(&f.number) == Some(f.price)).then(|| Move {
        text: format!(
            "Flight Number: {}, from {from} to {to}, Departure Time: {}, Arrival Time: {}",
            f.number, f.dep_time, f.arr_time
        ),
        cost: f.price * q.people_number as f64,
    })
}

fn road_move(db: &TravelDb, q: &Query, from: &str, to: &str, mode: RoadMode) -> Option<Move> {
    if mode == RoadMode::SelfDriving
        && q.local_constraint.transportation.as_deref() == Some("no self-driving")
    {
        return None;
    }
    let cost = db.road_cost(from, to, mode).ok()??;
    let road = db.road(from, to)?;
    let label = match mode {
        RoadMode::SelfDriving => "Self-driving",
        RoadMode::Taxi => "Taxi",
    };
    Some(Move {
        text: format!(
            "{label}, from {from} to {to}, duration: {}, distance: {}, cost: {cost}",
            road.duration.as_deref()?,
            road.distance.as_deref()?
        ),
        cost: cost as f64 * (q.people_number as f64 / mode.seats()).ceil(),
    })
}

/// Either self-driving on every leg, or per leg the cheaper of flight and
/// taxi (the two combinations the evaluator accepts).
fn transport(db: &TravelDb, q: &Query, seq: &[&str]) -> Result<Vec<Move>, String> {
    let legs: Vec<(&str, &str, &str)> = (0..seq.len() - 1)
        .map(|k| (seq[k], seq[k + 1], q.date[2 * k].as_str()))
        .collect();
    let driving: Option<Vec<Move>> = legs
        .iter()
        .map(|(a, b, _)| road_move(db, q, a, b, RoadMode::SelfDriving))
        .collect();
    let mixed: Option<Vec<Move>> = legs
        .iter()
        .map(|(a, b, date)| {
            let options = [
                flight_move(db, q, a, b, date),
                road_move(db, q, a, b, RoadMode::Taxi),
            ];
            options
                .into_iter()
                .flatten()
                .min_by(|x, y| x.cost.total_cmp(&y.cost))
        })
        .collect();
    let total = |m: &Vec<Move>| m.iter().map(|x| x.cost).sum::<f64>();
    match (driving, mixed) {
        (Some(d), Some(m)) => Ok(if total(&d) <= total(&m) { d } else { m }),
        (Some(d), None) => Ok(d),
        (None, Some(m)) => Ok(m),
        (None, None) => Err(format!(
            "no usable transport for the route {}",
            seq.join(" → ")
        )),
    }
}

fn stay<'a>(db: &'a TravelDb, q: &Query, city: &str) -> Option<(&'a Accommodation, f64)> {
    let people = q.people_number as f64;
    let lc = &q.local_constraint;
    db.accommodations_in(city)
        .filter(|a| a.minimum_nights <= NIGHTS && a.maximum_occupancy > 0.0)
        .filter(|a| {
            !lc.house_rule
                .as_deref()
                .is_some_and(|r| house_rule_broken(r, &a.house_rules))
        })
        .filter(|a| {
            !lc.room_type
                .as_deref()
                .is_some_and(|t| room_type_broken(t, &a.room_type))
        })
        .filter(|a| {
            db.find_accommodation(&a.name, city)
                .is_some_and(|f| std::ptr::eq(f, *a))
        })
        .map(|a| (a, NIGHTS * a.price * (people / a.maximum_occupancy).ceil()))
        .min_by(|x, y| x.1.total_cmp(&y.1))
}

/// A meal slot: which cell, in which city, and whether it must be filled.
struct Slot<'a> {
    day: usize,
    field: Field,
    city: String,
    required: bool,
    pick: Option<&'a Restaurant>,
}

fn meal_slots<'a>(seq: &[&str], org: &str) -> Vec<Slot<'a>> {
    let mut slots = Vec::new();
    let slot = |day, field, city: &str, required| Slot {
        day,
        field,
        city: city.to_string(),
        required,
        pick: None,
    };
    for k in 0..seq.len() - 1 {
        let (from, to) = (seq[k], seq[k + 1]);
        if from != org {
            slots.push(slot(2 * k, Field::Breakfast, from, false));
            slots.push(slot(2 * k, Field::Lunch, from, false));
        }
        if to != org {
            slots.push(slot(2 * k, Field::Dinner, to, false));
            for meal in Field::MEALS {
                slots.push(slot(2 * k + 1, meal, to, true));
            }
        }
    }
    slots
}

/// The cheapest free slot (of the given kind) and unused restaurant for it,
/// optionally serving a cuisine. Only rows an entry resolves back to count.
fn cheapest<'a>(
    db: &'a TravelDb,
    slots: &[Slot<'a>],
    used: &[&'a Restaurant],
    required: bool,
    cuisine: Option<&str>,
) -> Option<(usize, &'a Restaurant)> {
    let mut best: Option<(usize, &Restaurant)> = None;
    for (si, s) in slots.iter().enumerate() {
        if s.pick.is_some() || s.required != required {
            continue;
        }
        for r in db.restaurants_in(&s.city) {
            let fresh = !used.iter().any(|u| std::ptr::eq(*u, r));
            let resolves = db
                .find_restaurant(&r.name, &s.city)
                .is_some_and(|f| std::ptr::eq(f, r));
            if fresh
                && resolves
                && cuisine.is_none_or(|c| r.cuisines.contains(c))
                && best.is_none_or(|b| r.average_cost < b.1.average_cost)
            {
                best = Some((si, r));
            }
        }
    }
    best
}

/// Fills the meal slots with distinct restaurants: first the cheapest one
/// for each wanted cuisine not yet covered, then the cheapest for the rest.
fn assign_meals<'a>(db: &'a TravelDb, q: &Query, slots: &mut [Slot<'a>]) -> Result<(), String> {
    let mut used: Vec<&Restaurant> = Vec::new();
    for c in q.local_constraint.cuisine.iter().flatten() {
        let covered = slots
            .iter()
            .filter_map(|s| s.pick)
            .any(|r| r.cuisines.contains(c.as_str()));
        if covered {
            continue;
        }
        let (si, r) = cheapest(db, slots, &used, true, Some(c))
            .or_else(|| cheapest(db, slots, &used, false, Some(c)))
            .ok_or_else(|| format!("no restaurant on the route serves {c}"))?;
        slots[si].pick = Some(r);
        used.push(r);
    }
    while let Some((si, r)) = cheapest(db, slots, &used, true, None) {
        slots[si].pick = Some(r);
        used.push(r);
    }
    if slots.iter().any(|s| s.required && s.pick.is_none()) {
        return Err("not enough distinct restaurants on the route".into());
    }
    Ok(())
}

/// One attraction per sightseeing day (a day in each city), none repeated.
fn sights(db: &TravelDb, route: &[String]) -> Result<Vec<String>, String> {
    let mut used: Vec<&str> = Vec::new();
    let mut out = Vec::new();
    for city in route {
        let a = db
            .attractions_in(city)
            .find(|a| !a.name.contains(';') && !used.contains(&a.name.as_str()))
            .ok_or_else(|| format!("no attraction left in {city}"))?;
        used.push(&a.name);
        out.push(format!("{}, {city};", a.name));
    }
    Ok(out)
}

/// What the planner chose for a route.
struct Choices<'a> {
    seq: Vec<&'a str>,
    moves: Vec<Move>,
    stays: Vec<(&'a Accommodation, f64)>,
    slots: Vec<Slot<'a>>,
    sights: Vec<String>,
}

impl Choices<'_> {
    fn meal(&self, day: usize, field: Field) -> String {
        self.slots
            .iter()
            .find(|s| s.day == day && s.field == field)
            .and_then(|s| s.pick.map(|r| format!("{}, {}", r.name, s.city)))
            .unwrap_or_else(|| "-".into())
    }

    /// Day `d`: even days travel leg d/2, odd days stay in city d/2.
    fn day(&self, d: usize, org: &str) -> PlanDay {
        let k = d / 2;
        let stay_at = |i: usize| format!("{}, {}", self.stays[i].0.name, self.seq[i + 1]);
        let (current, transport, attraction, accommodation) = if d % 2 == 0 {
            let (from, to) = (self.seq[k], self.seq[k + 1]);
            let acc = if to == org {
                "-".to_string()
            } else {
                stay_at(k)
            };
            (
                format!("from {from} to {to}"),
                self.moves[k].text.clone(),
                "-".to_string(),
                acc,
            )
        } else {
            let city = self.seq[k + 1].to_string();
            (city, "-".to_string(), self.sights[k].clone(), stay_at(k))
        };
        PlanDay::standard(
            d as u32 + 1,
            &current,
            &transport,
            &self.meal(d, Field::Breakfast),
            &attraction,
            &self.meal(d, Field::Lunch),
            &self.meal(d, Field::Dinner),
            &accommodation,
        )
    }

    fn cost(&self, people: f64) -> f64 {
        let meals: f64 = self
            .slots
            .iter()
            .filter_map(|s| s.pick)
            .map(|r| r.average_cost * people)
            .sum();
        self.moves.iter().map(|m| m.cost).sum::<f64>()
            + self.stays.iter().map(|s| s.1).sum::<f64>()
            + meals
    }
}

fn plan_route(db: &TravelDb, q: &Query, route: &[String]) -> Result<GreedyPlan, String> {
    let mut seq: Vec<&str> = vec![q.org.as_str()];
    seq.extend(route.iter().map(String::as_str));
    seq.push(q.org.as_str());
    let moves = transport(db, q, &seq)?;
    let stays = route
        .iter()
        .map(|city| stay(db, q, city).ok_or_else(|| format!("no suitable stay in {city}")))
        .collect::<Result<Vec<_>, _>>()?;
    let mut slots = meal_slots(&seq, &q.org);
    assign_meals(db, q, &mut slots)?;
    let choices = Choices {
        seq,
        moves,
        stays,
        slots,
        sights: sights(db, route)?,
    };
    let days = (0..q.days as usize)
        .map(|d| choices.day(d, &q.org))
        .collect();
    let estimated_cost = choices.cost(q.people_number as f64);
    Ok(GreedyPlan {
        plan: Plan { days },
        estimated_cost,
        within_budget: estimated_cost <= q.budget,
        route: route.to_vec(),
    })
}
