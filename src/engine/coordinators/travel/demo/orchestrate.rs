//! The orchestrator's self-reflection and choice, from the goal and the
//! public conversation only: what each expert has settled, what is missing,
//! what conflicts (an unreadable part, a part made for an earlier route, a
//! city where nothing fits, the cost over budget) — then who acts next.
//! Conflicts are fixed first (revisiting the expert concerned, or the
//! transportation expert with cities to avoid or a request for a cheaper
//! route), then missing parts in the team's order; "plan" when everything
//! is there. Revisits are bounded so the run keeps steps for the plan.

use super::expert_turn::{AVOID_MARK, CHEAPER_MARK, COMPARED_MARK, LEFT_OUT_MARK};
use super::money;
use super::request::TravelRequest;
use super::team::{team_trip, Team};
use super::trip::Trip;
use super::Reply;
use crate::engine::coordinators::travel::contract::{
    Decision, ExpertChoices, TripFacts, ATTRACTION, EXPERTS, HOTEL, PLAN, RESTAURANT,
    TRANSPORTATION,
};
use crate::engine::model::ChatRequest;

/// Turns per expert at most.
const MAX_POSTS: u32 = 3;
/// Revisits in all: with the default 16 steps, four first turns and three
/// revisits (two steps each) still leave steps for the plan.
const MAX_REVISITS: u32 = 3;

pub fn answer(req: &ChatRequest) -> Reply {
    let r = TravelRequest::read(req);
    let team = Team::read(r.context);
    let d = match &r.facts {
        Some(f) => decide(f, &team),
        None => {
            let next = EXPERTS
                .iter()
                .find(|e| team.part(e).posts == 0)
                .copied()
                .unwrap_or(PLAN);
            Decision {
                done: String::new(),
                missing: "the trip facts are not in my request, so I only follow the team's order"
                    .into(),
                conflicts: String::new(),
                next: next.into(),
                instruction: "Do your part for the goal as stated.".into(),
            }
        }
    };
    Reply::text(
        serde_json::to_string_pretty(&d).unwrap_or_else(|_| format!("{{\"next\": \"{PLAN}\"}}")),
    )
}

fn last_post(team: &Team, agent: &str) -> Option<usize> {
    team.posts.iter().rposition(|(id, _)| id == agent)
}

/// Cities of the trip a part's problem names, and whether the part covers
/// every city it should (`want`) and no other.
fn coverage(want: &[String], have: &[String], problem: Option<&str>) -> Result<(), String> {
    let named = |c: &String| problem.is_some_and(|p| p.contains(c.as_str()));
    if let Some(c) = want.iter().find(|c| !have.contains(c) && !named(c)) {
        return Err(format!("it does not cover {c}"));
    }
    if let Some(c) = have.iter().find(|c| !want.contains(c)) {
        return Err(format!("it is for {c}, which the route no longer visits"));
    }
    Ok(())
}

fn dedup(v: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for c in v {
        if !out.contains(&c) {
            out.push(c);
        }
    }
    out
}

/// Why a downstream part does not fit the current trip, if it does not.
fn mismatch(expert: &str, c: &ExpertChoices, trip: &Trip) -> Result<(), String> {
    let (want, have) = match expert {
        HOTEL => (
            dedup(trip.stays().into_iter().map(|s| s.0)),
            dedup(c.stays.iter().map(|s| s.city.clone())),
        ),
        RESTAURANT => (
            trip.cities(),
            dedup(c.restaurants.iter().map(|s| s.city.clone())),
        ),
        _ => (
            dedup(trip.sightseeing_days().into_iter().map(|d| d.1)),
            dedup(c.attractions.iter().map(|s| s.city.clone())),
        ),
    };
    coverage(&want, &have, c.problem.as_deref())
}

fn part_summary(expert: &str, c: &ExpertChoices) -> String {
    let cost = c
        .estimated_cost
        .map(|x| format!(", {}", money(x)))
        .unwrap_or_default();
    match expert {
        TRANSPORTATION => format!("transportation: route {}{cost}", c.route.join(" → ")),
        HOTEL => {
            let s: Vec<String> = c
                .stays
                .iter()
                .map(|s| format!("{} in {}", s.name, s.city))
                .collect();
            format!("hotel: {}{cost}", s.join("; "))
        }
        RESTAURANT => format!("restaurant: {} restaurants{cost}", c.restaurants.len()),
        _ => format!("attraction: {} attractions", c.attractions.len()),
    }
}

/// What the orchestrator reads off the goal and the team before judging the
/// parts: how many revisits are spent, and who would redo a part.
struct Situation<'a> {
    facts: &'a TripFacts,
    team: &'a Team,
    /// Turns after each expert's first, in all.
    revisits: u32,
    multi_city: bool,
    /// Experts after transportation that have posted (they redo their part
    /// when the route changes).
    downstream: u32,
}

impl<'a> Situation<'a> {
    fn read(facts: &'a TripFacts, team: &'a Team) -> Self {
        let revisits: u32 = EXPERTS
            .iter()
            .map(|e| team.part(e).posts.saturating_sub(1))
            .sum();
        let downstream = [HOTEL, RESTAURANT, ATTRACTION]
            .iter()
            .filter(|e| team.part(e).posts > 0)
            .count() as u32;
        Situation {
            facts,
            team,
            revisits,
            multi_city: facts.visiting_city_number > 1,
            downstream,
        }
    }

    /// Whether `e` may post again, `needed` more revisits in all.
    fn can_revisit(&self, e: &str, needed: u32) -> bool {
        self.team.part(e).posts < MAX_POSTS && self.revisits + needed <= MAX_REVISITS
    }

    /// The trip the team's parts describe, once there is a route (or the
    /// trip has one city only).
    fn trip(&self) -> Option<Trip> {
        if self.team.part(TRANSPORTATION).posts > 0 || !self.multi_city {
            team_trip(self.facts, self.team)
                .ok()
                .map(|s| s.trip().clone())
        } else {
            None
        }
    }
}

/// The orchestrator's findings so far: the parts settled, missing and in
/// conflict, and the turns that would fix a conflict or fill a gap.
#[derive(Default)]
struct Review {
    done: Vec<String>,
    missing: Vec<String>,
    conflicts: Vec<String>,
    fixes: Vec<(&'static str, String)>,
    firsts: Vec<(&'static str, String)>,
}

pub fn decide(facts: &TripFacts, team: &Team) -> Decision {
    let s = Situation::read(facts, team);
    let mut review = Review::default();
    let t_text = team.latest(TRANSPORTATION).unwrap_or("");
    review.transportation(&s);
    let trip = s.trip();
    let blocked = review.downstream_parts(&s, trip.as_ref());
    review.avoid_blocked_cities(&s, &left_out_cities(t_text), &blocked);
    review.over_budget(&s, t_text);
    review.into_decision()
}

/// The cities the transportation expert's latest post says it left out.
fn left_out_cities(t_text: &str) -> Vec<String> {
    t_text
        .lines()
        .find_map(|l| l.strip_prefix(LEFT_OUT_MARK))
        .map(|l| {
            l.trim_end_matches('.')
                .split(',')
                .map(|c| c.trim().to_string())
                .filter(|c| !c.is_empty())
                .collect()
        })
        .unwrap_or_default()
}

/// The transportation expert's first instruction: the route and travel.
fn first_route_instruction(facts: &TripFacts, multi_city: bool) -> String {
    format!(
        "Choose {} and how to travel: leave {} on day 1 ({}), come home on day {}{}.",
        if multi_city {
            format!("{} cities in {}", facts.visiting_city_number, facts.dest)
        } else {
            format!("the way to {}", facts.dest)
        },
        facts.org,
        facts.dates.first().map_or("", String::as_str),
        facts.days,
        facts
            .transportation
            .as_deref()
            .map(|r| format!(", with {r}"))
            .unwrap_or_default()
    )
}

impl Review {
    /// The route: not chosen yet, unreadable, with a problem, or settled.
    fn transportation(&mut self, s: &Situation) {
        let t = s.team.part(TRANSPORTATION);
        match &t.choices {
            _ if t.posts == 0 => {
                self.missing
                    .push("transportation: the route and travel are not chosen yet".into());
                self.firsts.push((
                    TRANSPORTATION,
                    first_route_instruction(s.facts, s.multi_city),
                ));
            }
            None => {
                self.conflicts
                    .push("transportation's post has no readable choices".into());
                if s.can_revisit(TRANSPORTATION, 1) {
                    self.fixes.push((TRANSPORTATION, "Your part is missing its choices: post the route and legs again, ending with the ```json block.".into()));
                }
            }
            Some(c) if c.problem.is_some() => {
                self.conflicts.push(format!(
                    "transportation: {}",
                    c.problem.as_deref().unwrap_or("")
                ));
            }
            Some(c) => self.done.push(part_summary(TRANSPORTATION, c)),
        }
    }

    /// The hotel, restaurant and attraction parts against the current trip;
    /// returns the cities where a part found nothing suitable.
    fn downstream_parts(&mut self, s: &Situation, trip: Option<&Trip>) -> Vec<String> {
        let t_at = last_post(s.team, TRANSPORTATION);
        let mut blocked: Vec<String> = Vec::new();
        for e in [HOTEL, RESTAURANT, ATTRACTION] {
            let p = s.team.part(e);
            if p.posts == 0 {
                self.missing.push(format!("{e}: not posted yet"));
                if trip.is_some() {
                    self.firsts.push((e, first_instruction(e, trip, s.facts)));
                }
                continue;
            }
            let Some(c) = &p.choices else {
                self.conflicts
                    .push(format!("{e}'s post has no readable choices"));
                if s.can_revisit(e, 1) {
                    self.fixes.push((e, "Your part is missing its choices: post it again, ending with the ```json block.".into()));
                }
                continue;
            };
            if let Some(trip) = trip {
                if let Err(why) = mismatch(e, c, trip) {
                    self.conflicts.push(format!("{e}: {why}"));
                    if last_post(s.team, e) < t_at && s.can_revisit(e, 1) {
                        self.fixes.push((
                            e,
                            format!(
                                "The route changed: {}",
                                first_instruction(e, Some(trip), s.facts)
                            ),
                        ));
                    }
                    continue;
                }
                if let Some(pr) = &c.problem {
                    self.conflicts.push(format!("{e}: {pr}"));
                    blocked.extend(
                        trip.cities()
                            .into_iter()
                            .filter(|city| pr.contains(city.as_str())),
                    );
                    continue;
                }
            }
            self.done.push(part_summary(e, c));
        }
        blocked
    }

    /// Sends transportation back for other cities when a part found nothing
    /// suitable in some (with the ones it left out before).
    fn avoid_blocked_cities(&mut self, s: &Situation, left_out: &[String], blocked: &[String]) {
        if s.multi_city && !blocked.is_empty() && s.can_revisit(TRANSPORTATION, 1 + s.downstream) {
            let mut avoid = left_out.to_vec();
            avoid.extend(blocked.iter().filter(|c| !left_out.contains(c)).cloned());
            self.fixes.push((
                TRANSPORTATION,
                format!(
                    "Choose other cities {AVOID_MARK}{}): nothing suitable was found there for the trip.",
                    avoid.join(", ")
                ),
            ));
        }
    }

    /// Notes a cost over budget, and asks once for a cheaper route.
    fn over_budget(&mut self, s: &Situation, t_text: &str) {
        let facts = s.facts;
        let known: f64 = s
            .team
            .choices()
            .iter()
            .filter_map(|(_, c)| c.estimated_cost)
            .sum();
        if known > facts.budget {
            self.conflicts.push(format!(
                "the parts posted so far cost {}, over the budget of {}",
                money(known),
                money(facts.budget)
            ));
            if s.multi_city
                && !t_text.contains(COMPARED_MARK)
                && s.can_revisit(TRANSPORTATION, 1 + s.downstream)
            {
                self.fixes.push((
                    TRANSPORTATION,
                    format!(
                        "Find a {CHEAPER_MARK} route: compare the workable routes and keep the cheapest; we are {} over budget.",
                        money(known - facts.budget)
                    ),
                ));
            }
        }
    }

    /// Fixes first, then missing parts in the team's order; the plan when
    /// there is neither.
    fn into_decision(self) -> Decision {
        let (next, instruction) = self.fixes.into_iter().chain(self.firsts).next().unwrap_or((
            PLAN,
            "Every part is there: write the plan from the team's findings.".into(),
        ));
        let list = |v: Vec<String>| {
            if v.is_empty() {
                "nothing".to_string()
            } else {
                v.join("; ")
            }
        };
        Decision {
            done: list(self.done),
            missing: list(self.missing),
            conflicts: if self.conflicts.is_empty() {
                "none".into()
            } else {
                self.conflicts.join("; ")
            },
            next: next.into(),
            instruction,
        }
    }
}

fn first_instruction(expert: &str, trip: Option<&Trip>, facts: &TripFacts) -> String {
    let Some(trip) = trip else {
        return "Do your part for the trip.".into();
    };
    match expert {
        HOTEL => {
            let s: Vec<String> = trip
                .stays()
                .iter()
                .map(|(c, _, n)| format!("{n} night{} in {c}", if *n == 1 { "" } else { "s" }))
                .collect();
            format!(
                "Find the cheapest suitable stays: {}{}{}.",
                s.join(", "),
                facts
                    .house_rule
                    .as_deref()
                    .map(|r| format!("; house rule: {r}"))
                    .unwrap_or_default(),
                facts
                    .room_type
                    .as_deref()
                    .map(|r| format!("; room type: {r}"))
                    .unwrap_or_default()
            )
        }
        RESTAURANT => format!(
            "Choose breakfast, lunch and dinner for the days in {}{}.",
            trip.cities().join(" and "),
            facts
                .cuisine
                .as_ref()
                .map(|c| format!(", covering {}", c.join(", ")))
                .unwrap_or_default()
        ),
        _ => format!(
            "Choose one attraction for each day spent in {}.",
            trip.cities().join(" and ")
        ),
    }
}

#[cfg(test)]
#[path = "orchestrate_tests.rs"]
mod tests;
