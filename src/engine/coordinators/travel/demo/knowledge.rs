//! What the observed tool texts say, indexed by the question asked: which
//! cities a state has, which flights fly a leg on a date, what a road costs,
//! and the listings of each city. It can be rebuilt into a (partial)
//! `TravelDb` for the rule-based planner.

use super::observe::Observation;
use crate::engine::coordinators::travel::contract::TripFacts;
use crate::engine::domains::travel::db::Tables;
use crate::engine::domains::travel::query::{Level, LocalConstraint, Query};
use crate::engine::domains::travel::table_read::{self as tables, RoadText};
use crate::engine::domains::travel::tables::{
    Accommodation, Attraction, CityState, Flight, Restaurant, Road, TableLoad,
};
use crate::engine::domains::travel::TravelDb;

/// Indexed observations. A key present with an empty list (or None) means
/// "asked, and nothing usable came back".
#[derive(Clone, Debug, Default)]
pub struct Knowledge {
    pub states: Vec<(String, Option<Vec<String>>)>,
    pub flights: Vec<((String, String, String), Vec<Flight>)>,
    pub roads: Vec<((String, String, String), Option<RoadText>)>,
    pub stays: Vec<(String, Vec<Accommodation>)>,
    pub restaurants: Vec<(String, Vec<Restaurant>)>,
    pub attractions: Vec<(String, Vec<Attraction>)>,
    /// Names the tools rejected as cities.
    pub not_cities: Vec<String>,
    /// How many tool calls the observations hold.
    pub calls: usize,
}

fn lookup<'a, K: PartialEq, V>(list: &'a [(K, V)], key: &K) -> Option<&'a V> {
    list.iter().rev().find(|(k, _)| k == key).map(|(_, v)| v)
}

fn upsert<K: PartialEq, V>(list: &mut Vec<(K, V)>, key: K, value: V) {
    match list.iter_mut().find(|(k, _)| *k == key) {
        Some(e) => e.1 = value,
        None => list.push((key, value)),
    }
}

/// The city a tool rejected: `X is not valid city in [...]`.
fn rejected_city(text: &str) -> Option<String> {
    text.split_once(" is not valid city in ")
        .map(|(c, _)| c.trim().to_string())
}

impl Knowledge {
    pub fn from_observations(obs: &[Observation]) -> Knowledge {
        let mut k = Knowledge::default();
        for o in obs {
            k.add(o);
        }
        k
    }

    pub fn add(&mut self, o: &Observation) {
        self.calls += 1;
        if let Some(c) = rejected_city(&o.text) {
            if !self.not_cities.contains(&c) {
                self.not_cities.push(c);
            }
        }
        let arg = |i: usize| {
            o.args
                .get(i)
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        let joined = o.args.join(", ").trim().to_string();
        match o.tool.as_str() {
            "CitySearch" => upsert(&mut self.states, joined, tables::cities(&o.text)),
            "FlightSearch" => {
                let rows = tables::flights(&o.text).unwrap_or_default();
                upsert(&mut self.flights, (arg(0), arg(1), arg(2)), rows);
            }
            "GoogleDistanceMatrix" => {
                let key = (arg(0), arg(1), arg(2).to_lowercase());
                upsert(&mut self.roads, key, tables::road(&o.text));
            }
            "AccommodationSearch" => {
                let rows = tables::accommodations(&o.text).unwrap_or_default();
                upsert(&mut self.stays, joined, rows);
            }
            "RestaurantSearch" => {
                let rows = tables::restaurants(&o.text).unwrap_or_default();
                upsert(&mut self.restaurants, joined, rows);
            }
            "AttractionSearch" => {
                let rows = tables::attractions(&o.text).unwrap_or_default();
                upsert(&mut self.attractions, joined, rows);
            }
            _ => {}
        }
    }

    /// The cities of a state: None = not asked; Some(None) = not a state.
    pub fn cities_of(&self, state: &str) -> Option<Option<&Vec<String>>> {
        lookup(&self.states, &state.to_string()).map(Option::as_ref)
    }

    pub fn flights_on(&self, from: &str, to: &str, date: &str) -> Option<&Vec<Flight>> {
        lookup(&self.flights, &(from.into(), to.into(), date.into()))
    }

    pub fn road(&self, from: &str, to: &str, mode: &str) -> Option<Option<&RoadText>> {
        lookup(&self.roads, &(from.into(), to.into(), mode.into())).map(Option::as_ref)
    }

    pub fn stays_in(&self, city: &str) -> Option<&Vec<Accommodation>> {
        lookup(&self.stays, &city.to_string())
    }

    pub fn restaurants_in(&self, city: &str) -> Option<&Vec<Restaurant>> {
        lookup(&self.restaurants, &city.to_string())
    }

    pub fn attractions_in(&self, city: &str) -> Option<&Vec<Attraction>> {
        lookup(&self.attractions, &city.to_string())
    }

    /// The sandbox as far as it was seen. Cities whose state was never
    /// searched are listed under a placeholder state, so the planner still
    /// knows they are cities.
    pub fn to_db(&self, facts: &TripFacts) -> TravelDb {
        let mut cities: Vec<CityState> = Vec::new();
        let add_city = |city: &str, state: &str, cities: &mut Vec<CityState>| {
            if !city.is_empty() && !cities.iter().any(|c| c.city == city) {
                cities.push(CityState {
                    city: city.to_string(),
                    state: state.to_string(),
                });
            }
        };
        for (state, list) in &self.states {
            for c in list.iter().flatten() {
                add_city(c, state, &mut cities);
            }
        }
        const UNKNOWN: &str = "(state not searched)";
        let mut seen: Vec<&str> = vec![facts.org.as_str()];
        if facts.visiting_city_number <= 1 && !self.not_cities.contains(&facts.dest) {
            seen.push(&facts.dest);
        }
        for ((o, d, _), _) in &self.flights {
            seen.extend([o.as_str(), d.as_str()]);
        }
        for ((o, d, _), _) in &self.roads {
            seen.extend([o.as_str(), d.as_str()]);
        }
        seen.extend(self.stays.iter().map(|(c, _)| c.as_str()));
        seen.extend(self.restaurants.iter().map(|(c, _)| c.as_str()));
        seen.extend(self.attractions.iter().map(|(c, _)| c.as_str()));
        for c in seen {
            if !self.not_cities.iter().any(|n| n == c) {
                add_city(c, UNKNOWN, &mut cities);
            }
        }
        let mut roads: Vec<Road> = Vec::new();
        for ((o, d, _), r) in &self.roads {
            if let Some(r) = r {
                if !roads.iter().any(|x| x.origin == *o && x.destination == *d) {
                    roads.push(Road {
                        origin: o.clone(),
                        destination: d.clone(),
                        duration: Some(r.duration.clone()),
                        distance: Some(r.distance.clone()),
                    });
                }
            }
        }
        TravelDb::from_tables(Tables {
            accommodations: full(self.stays.iter().flat_map(|(_, v)| v.clone()).collect()),
            attractions: full(
                self.attractions
                    .iter()
                    .flat_map(|(_, v)| v.clone())
                    .collect(),
            ),
            restaurants: full(
                self.restaurants
                    .iter()
                    .flat_map(|(_, v)| v.clone())
                    .collect(),
            ),
            flights: full(self.flights.iter().flat_map(|(_, v)| v.clone()).collect()),
            distances: full(roads),
            cities: full(cities),
        })
    }
}

fn full<T>(rows: Vec<T>) -> TableLoad<T> {
    let read = rows.len();
    TableLoad {
        rows,
        read,
        dropped: 0,
    }
}

/// The query the facts describe (for the rule-based planner).
pub fn query_of(facts: &TripFacts, text: &str) -> Query {
    Query {
        idx: 0,
        query: text.to_string(),
        org: facts.org.clone(),
        dest: facts.dest.clone(),
        days: facts.days,
        visiting_city_number: facts.visiting_city_number,
        date: facts.dates.clone(),
        people_number: facts.people_number,
        local_constraint: LocalConstraint {
            house_rule: facts.house_rule.clone(),
            cuisine: facts.cuisine.clone(),
            room_type: facts.room_type.clone(),
            transportation: facts.transportation.clone(),
        },
        budget: facts.budget,
        level: Level::Easy,
        annotated_plan: None,
    }
}
