//! The plan critic: reads the goal and the conversation (never the
//! notebook), takes the compiler's latest plan and checks it against the
//! checklist of its prompt — every day there, the route out and back, the
//! transportation rule and no flights mixed with self-driving, a bed every
//! night away and none on the last day, every meal and a sight on full
//! days, places in the day's city, nothing repeated, the wanted cuisines
//! (as the restaurant expert described its picks) and the stated cost
//! within budget. It answers in its step's shape: approved, or the
//! problems found, one entry each.

use super::parts::stated_cost;
use super::request::{no_facts, TravelRequest};
use super::team::Team;
use super::{money, Reply};
use crate::engine::coordinators::travel::contract::{
    choices_in, CriticReply, TripFacts, COMPILER, RESTAURANT,
};
use crate::engine::domains::travel::plan::{Field, Plan, PlanDay};
use crate::engine::model::ChatRequest;

pub fn answer(req: &ChatRequest) -> Reply {
    let r = TravelRequest::read(req);
    let Some(facts) = r.facts.clone() else {
        return Reply::text(no_facts("plan critic"));
    };
    let team = Team::read(r.context);
    let plan = match team.latest_plan() {
        Ok(p) => p,
        Err(e) => {
            return review(
                "I could not check the plan.",
                &[format!(
                    "The plan cannot be read ({e}). Write it as one JSON object {{\"plan\": [...]}} with one object per day."
                )],
            )
        }
    };
    let cost = team.latest(COMPILER).and_then(stated_cost);
    let cuisines = |name: &str, city: &str| {
        team.posts
            .iter()
            .filter(|(id, _)| id == RESTAURANT)
            .filter_map(|(_, t)| choices_in(t))
            .flat_map(|c| c.restaurants)
            .find(|p| p.name == name && p.city == city)
            .and_then(|p| p.cuisines)
    };
    let found = problems(&facts, &plan, cost, &cuisines);
    if found.is_empty() {
        return review(
            &format!(
                "I checked all {} days: the route goes out and back, transportation follows the rules, there is a bed \
every night away, every full day has its meals and a sight in the right city, nothing is repeated{}.",
                plan.days.len(),
                cost.map(|c| format!(", and the stated total {} is within the budget of {}", money(c), money(facts.budget)))
                    .unwrap_or_default()
            ),
            &[],
        );
    }
    review(
        &format!(
            "I found {} problem{} in the plan: please fix them and post the whole plan again.",
            found.len(),
            if found.len() == 1 { "" } else { "s" }
        ),
        &found,
    )
}

/// The review in the critic step's shape: approved when nothing was found.
fn review(summary: &str, found: &[String]) -> Reply {
    let reply = CriticReply {
        summary: summary.to_string(),
        problems: found.to_vec(),
        approved: found.is_empty(),
    };
    Reply::text(serde_json::to_string_pretty(&reply).unwrap_or_default())
}

/// "Name, City" → (name, city).
fn name_city(entry: &str) -> Option<(&str, &str)> {
    let (n, c) = entry.trim().trim_end_matches(';').rsplit_once(',')?;
    Some((n.trim(), c.trim()))
}

fn filled(s: Option<&str>) -> Option<&str> {
    s.map(str::trim).filter(|s| !s.is_empty() && *s != "-")
}

/// The checklist; one message per problem found.
pub fn problems(
    facts: &TripFacts,
    plan: &Plan,
    cost: Option<f64>,
    cuisines_of: &dyn Fn(&str, &str) -> Option<String>,
) -> Vec<String> {
    let mut check = Checklist::new(facts);
    let n = check.n;
    if plan.days.len() != n {
        check.out.push(format!(
            "The plan has {} days; the trip has {n}.",
            plan.days.len()
        ));
    }
    for (i, day) in plan.days.iter().enumerate() {
        check.day(i + 1, day);
    }
    if check.flights && check.driving {
        check
            .out
            .push("Transportation: self-driving cannot be mixed with flights.".into());
    }
    check.cuisines(cuisines_of);
    if let Some(c) = cost.filter(|c| *c > facts.budget) {
        check.out.push(format!(
            "Budget: the stated total {} is over the budget of {} by {}.",
            money(c),
            money(facts.budget),
            money(c - facts.budget)
        ));
    }
    check.out
}

/// The checklist as it goes through the plan's days: the problems found,
/// and what later days and the whole-plan checks need (the kinds of travel,
/// the restaurants and sights used so far).
struct Checklist<'a> {
    facts: &'a TripFacts,
    /// The trip's days.
    n: usize,
    out: Vec<String>,
    flights: bool,
    driving: bool,
    restaurants: Vec<String>,
    sights: Vec<String>,
}

impl<'a> Checklist<'a> {
    fn new(facts: &'a TripFacts) -> Self {
        Checklist {
            facts,
            n: facts.days as usize,
            out: Vec::new(),
            flights: false,
            driving: false,
            restaurants: Vec::new(),
            sights: Vec::new(),
        }
    }

    /// Day `d` of the plan: its route, transportation, bed, meals and
    /// sights.
    fn day(&mut self, d: usize, day: &PlanDay) {
        let city = day.text(Field::CurrentCity).unwrap_or("").trim();
        let travel = city
            .strip_prefix("from ")
            .and_then(|r| r.split_once(" to "))
            .map(|(a, b)| (a.trim(), b.trim()));
        let here: Vec<&str> = match travel {
            Some((a, b)) => vec![a, b],
            None => vec![city],
        };
        self.out_and_back(d, travel);
        self.transportation(d, day, travel.is_some());
        self.bed(d, day);
        self.meals(d, day, &here, travel.is_none());
        self.attractions(d, day, travel.is_none());
    }

    /// The first day leaves home, the last comes back.
    fn out_and_back(&mut self, d: usize, travel: Option<(&str, &str)>) {
        let org = self.facts.org.as_str();
        if d == 1 && travel.is_none_or(|(a, _)| a != org) {
            self.out.push(format!(
                "Day 1, current_city: the trip must start with \"from {org} to ...\"."
            ));
        }
        if d == self.n && travel.is_none_or(|(_, b)| b != org) {
            self.out.push(format!(
                "Day {d}, current_city: the last day must end \"... to {org}\"."
            ));
        }
    }

    /// A travel day has its transportation, within the travellers' rule.
    fn transportation(&mut self, d: usize, day: &PlanDay, travelling: bool) {
        let rule = self.facts.transportation.as_deref().unwrap_or("");
        match filled(day.text(Field::Transportation)) {
            None if travelling => self.out.push(format!(
                "Day {d}, transportation: a travel day needs its transportation."
            )),
            Some(t) => {
                let lower = t.to_lowercase();
                self.flights |= lower.contains("flight");
                self.driving |= lower.contains("self-driving");
                if rule == "no flight" && lower.contains("flight") {
                    self.out.push(format!(
                        "Day {d}, transportation: the travellers asked for no flight."
                    ));
                }
                if rule == "no self-driving" && lower.contains("self-driving") {
                    self.out.push(format!(
                        "Day {d}, transportation: the travellers asked for no self-driving."
                    ));
                }
            }
            None => {}
        }
    }

    /// A bed every night away, none on the last day.
    fn bed(&mut self, d: usize, day: &PlanDay) {
        let bed = filled(day.text(Field::Accommodation));
        if d == self.n && bed.is_some() {
            self.out.push(format!(
                "Day {d}, accommodation: nobody sleeps away on the last day; use \"-\"."
            ));
        }
        if d < self.n && bed.is_none() {
            self.out.push(format!(
                "Day {d}, accommodation: there is no place to sleep."
            ));
        }
    }

    /// Every meal of a full day, each in a city of the day and not used
    /// before.
    fn meals(&mut self, d: usize, day: &PlanDay, here: &[&str], full_day: bool) {
        for f in Field::MEALS {
            match filled(day.text(f)) {
                Some(entry) => {
                    if self.restaurants.iter().any(|r| r == entry) {
                        self.out
                            .push(format!("Day {d}, {}: {entry} is used twice.", f.key()));
                    }
                    self.restaurants.push(entry.to_string());
                    if let Some((_, c)) = name_city(entry) {
                        if !here.contains(&c) {
                            self.out.push(format!(
                                "Day {d}, {}: {entry} is not where the travellers are.",
                                f.key()
                            ));
                        }
                    }
                }
                None if full_day => self
                    .out
                    .push(format!("Day {d}, {}: a full day needs this meal.", f.key())),
                None => {}
            }
        }
    }

    /// A sight on a full day, none visited twice.
    fn attractions(&mut self, d: usize, day: &PlanDay, full_day: bool) {
        let spots: Vec<&str> = filled(day.text(Field::Attraction))
            .map(|a| {
                a.split(';')
                    .map(str::trim)
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default();
        if spots.is_empty() && full_day {
            self.out.push(format!(
                "Day {d}, attraction: a full day needs something to see."
            ));
        }
        for s in spots {
            if self.sights.iter().any(|x| x == s) {
                self.out
                    .push(format!("Day {d}, attraction: {s} is visited twice."));
            }
            self.sights.push(s.to_string());
        }
    }

    /// Every wanted cuisine served by a restaurant of the plan (as the
    /// restaurant expert described its picks).
    fn cuisines(&mut self, cuisines_of: &dyn Fn(&str, &str) -> Option<String>) {
        for c in self.facts.cuisine.iter().flatten() {
            let served = self.restaurants.iter().any(|r| {
                name_city(r)
                    .and_then(|(n, city)| cuisines_of(n, city))
                    .is_some_and(|k| k.contains(c.as_str()))
            });
            if !served {
                self.out.push(format!(
                    "Cuisine: no restaurant in the plan is known to serve {c}."
                ));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::travel::plan::PlanDay;

    fn facts() -> TripFacts {
        TripFacts {
            cuisine: Some(vec!["Thai".into()]),
            transportation: Some("no flight".into()),
            ..TripFacts::for_tests(&[], 1, 100.0)
        }
    }

    #[test]
    fn a_good_plan_passes_and_a_bad_one_is_criticised() {
        let good = Plan {
            days: vec![
                PlanDay::standard(
                    1,
                    "from A to B",
                    "Taxi, from A to B",
                    "-",
                    "-",
                    "-",
                    "T1, B",
                    "Inn, B",
                ),
                PlanDay::standard(2, "B", "-", "R1, B", "Park, B;", "R2, B", "R3, B", "Inn, B"),
                PlanDay::standard(
                    3,
                    "from B to A",
                    "Taxi, from B to A",
                    "-",
                    "-",
                    "-",
                    "-",
                    "-",
                ),
            ],
        };
        let thai = |n: &str, _: &str| Some(if n == "T1" { "Thai" } else { "Cafe" }.to_string());
        assert!(problems(&facts(), &good, Some(90.0), &thai).is_empty());
        let mut bad = good.clone();
        bad.days[1] = PlanDay::standard(2, "B", "-", "R1, B", "-", "R1, B", "-", "-");
        bad.days[2] = PlanDay::standard(
            3,
            "from B to A",
            "Flight Number: F1, from B to A",
            "-",
            "-",
            "-",
            "-",
            "-",
        );
        let p = problems(&facts(), &bad, Some(150.0), &|_, _| None);
        let all = p.join("\n");
        for want in [
            "Day 2, lunch: R1, B is used twice",
            "Day 2, dinner: a full day needs",
            "Day 2, attraction",
            "Day 2, accommodation",
            "Day 3, transportation: the travellers asked for no flight",
            "Cuisine",
            "Budget: the stated total $150",
        ] {
            assert!(all.contains(want), "{want}\n{all}");
        }
    }
}
