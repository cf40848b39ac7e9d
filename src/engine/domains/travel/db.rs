//! The sandbox database: the six tables, indexed for the lookups the tools
//! and the evaluator make. Loaded from file contents (the browser imports a
//! folder from a file picker), natively from a directory, or built in.

use super::error::DataError;
use super::tables::*;
use std::collections::HashMap;

/// Row counts of one table after loading.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TableStats {
    pub read: usize,
    pub dropped: usize,
    pub kept: usize,
}

impl TableStats {
    fn of<T>(t: &TableLoad<T>) -> Self {
        TableStats {
            read: t.read,
            dropped: t.dropped,
            kept: t.rows.len(),
        }
    }
}

/// Row counts of every table.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DbStats {
    pub accommodations: TableStats,
    pub attractions: TableStats,
    pub restaurants: TableStats,
    pub flights: TableStats,
    pub distances: TableStats,
    pub cities: TableStats,
}

/// The parsed tables, before indexing. A UI fills it table by table (to
/// show progress) and then calls [`TravelDb::from_tables`].
#[derive(Clone, Debug, PartialEq)]
pub struct Tables {
    pub accommodations: TableLoad<Accommodation>,
    pub attractions: TableLoad<Attraction>,
    pub restaurants: TableLoad<Restaurant>,
    pub flights: TableLoad<Flight>,
    pub distances: TableLoad<Road>,
    pub cities: TableLoad<CityState>,
}

type ByKey = HashMap<String, Vec<usize>>;

/// The indexed sandbox.
#[derive(Clone, Debug)]
pub struct TravelDb {
    pub accommodations: Vec<Accommodation>,
    pub attractions: Vec<Attraction>,
    pub restaurants: Vec<Restaurant>,
    pub flights: Vec<Flight>,
    pub roads: Vec<Road>,
    pub cities: Vec<CityState>,
    pub stats: DbStats,
    acc_by_city: ByKey,
    att_by_city: ByKey,
    rest_by_city: ByKey,
    flights_by_number: ByKey,
    flights_by_route: HashMap<String, ByKey>,
    road_first: HashMap<String, HashMap<String, usize>>,
    state_of: HashMap<String, String>,
    states: Vec<(String, Vec<String>)>,
}

fn index_by<T>(rows: &[T], key: impl Fn(&T) -> &str) -> ByKey {
    let mut map: ByKey = HashMap::new();
    for (i, r) in rows.iter().enumerate() {
        map.entry(key(r).to_string()).or_default().push(i);
    }
    map
}

/// Concatenates several flight files (in the order given).
pub fn merge_flights(parts: Vec<TableLoad<Flight>>) -> TableLoad<Flight> {
    let mut all = TableLoad {
        rows: Vec::new(),
        read: 0,
        dropped: 0,
    };
    for p in parts {
        all.read += p.read;
        all.dropped += p.dropped;
        all.rows.extend(p.rows);
    }
    all
}

impl TravelDb {
    /// Indexes parsed tables.
    pub fn from_tables(t: Tables) -> TravelDb {
        let stats = DbStats {
            accommodations: TableStats::of(&t.accommodations),
            attractions: TableStats::of(&t.attractions),
            restaurants: TableStats::of(&t.restaurants),
            flights: TableStats::of(&t.flights),
            distances: TableStats::of(&t.distances),
            cities: TableStats::of(&t.cities),
        };
        let mut flights_by_route: HashMap<String, ByKey> = HashMap::new();
        for (i, f) in t.flights.rows.iter().enumerate() {
            flights_by_route
                .entry(f.origin.clone())
                .or_default()
                .entry(f.destination.clone())
                .or_default()
                .push(i);
        }
        let mut road_first: HashMap<String, HashMap<String, usize>> = HashMap::new();
        for (i, r) in t.distances.rows.iter().enumerate() {
            road_first
                .entry(r.origin.clone())
                .or_default()
                .entry(r.destination.clone())
                .or_insert(i);
        }
        let mut state_of = HashMap::new();
        let mut states: Vec<(String, Vec<String>)> = Vec::new();
        for c in &t.cities.rows {
            // Python builds a dict: a later line for the same city wins.
            state_of.insert(c.city.clone(), c.state.clone());
            match states.iter_mut().find(|(s, _)| *s == c.state) {
                Some((_, cities)) => cities.push(c.city.clone()),
                None => states.push((c.state.clone(), vec![c.city.clone()])),
            }
        }
        TravelDb {
            acc_by_city: index_by(&t.accommodations.rows, |r| &r.city),
            att_by_city: index_by(&t.attractions.rows, |r| &r.city),
            rest_by_city: index_by(&t.restaurants.rows, |r| &r.city),
            flights_by_number: index_by(&t.flights.rows, |r| &r.number),
            flights_by_route,
            road_first,
            state_of,
            states,
            accommodations: t.accommodations.rows,
            attractions: t.attractions.rows,
            restaurants: t.restaurants.rows,
            flights: t.flights.rows,
            roads: t.distances.rows,
            cities: t.cities.rows,
            stats,
        }
    }

    /// Loads the official layout from file contents keyed by relative path
    /// (`accommodations/clean_accommodations_2022.csv`, ...). `flight_files`
    /// lists the relative paths of the flight tables (`flights/*.csv`).
    pub fn load(
        get: &dyn Fn(&str) -> Option<String>,
        flight_files: &[String],
    ) -> Result<TravelDb, DataError> {
        let need =
            |path: &str| get(path).ok_or_else(|| DataError::file(path, "the file is missing"));
        if flight_files.is_empty() {
            return Err(DataError::file(
                FLIGHTS_DIR,
                "no flight table: expected one or more .csv files in flights/",
            ));
        }
        let mut flights = Vec::new();
        for path in flight_files {
            flights.push(parse_flights(&need(path)?, path)?);
        }
        Ok(TravelDb::from_tables(Tables {
            accommodations: parse_accommodations(&need(ACCOMMODATIONS_PATH)?)?,
            attractions: parse_attractions(&need(ATTRACTIONS_PATH)?)?,
            restaurants: parse_restaurants(&need(RESTAURANTS_PATH)?)?,
            flights: merge_flights(flights),
            distances: parse_distances(&need(DISTANCE_PATH)?)?,
            cities: parse_cities(&need(CITIES_PATH)?)?,
        }))
    }

    /// Loads from `(path, contents)` pairs as a folder picker gives them. Paths
    /// may carry a leading folder (`database/accommodations/...`); flight
    /// tables are every `.csv` under a `flights/` folder, in path order.
    pub fn from_files(files: &[(String, String)]) -> Result<TravelDb, DataError> {
        let normalize = |p: &str| p.replace('\\', "/");
        let relative = |path: &str| -> Option<String> {
            let p = normalize(path);
            for known in [
                ACCOMMODATIONS_PATH,
                ATTRACTIONS_PATH,
                RESTAURANTS_PATH,
                DISTANCE_PATH,
                CITIES_PATH,
            ] {
                if p == known || p.ends_with(&format!("/{known}")) {
                    return Some(known.to_string());
                }
            }
            let at = if p.starts_with(FLIGHTS_DIR) {
                Some(0)
            } else {
                p.rfind("/flights/").map(|i| i + 1)
            };
            at.filter(|_| p.ends_with(".csv"))
                .map(|i| p[i..].to_string())
        };
        let mut by_rel: HashMap<String, &str> = HashMap::new();
        for (path, text) in files {
            if let Some(rel) = relative(path) {
                by_rel.insert(rel, text.as_str());
            }
        }
        let mut flight_files: Vec<String> = by_rel
            .keys()
            .filter(|k| k.starts_with(FLIGHTS_DIR))
            .cloned()
            .collect();
        flight_files.sort();
        TravelDb::load(&|p| by_rel.get(p).map(|t| t.to_string()), &flight_files)
    }

    /// Loads the official layout from a directory (native only).
    #[cfg(not(target_arch = "wasm32"))]
    pub fn from_dir(dir: &std::path::Path) -> Result<TravelDb, DataError> {
        let flights_dir = dir.join(FLIGHTS_DIR);
        let listing = std::fs::read_dir(&flights_dir).map_err(|e| {
            DataError::file(
                &flights_dir.display().to_string(),
                format!("cannot list: {e}"),
            )
        })?;
        let mut flight_files: Vec<String> = listing
            .filter_map(|e| e.ok())
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".csv"))
            .map(|n| format!("{FLIGHTS_DIR}{n}"))
            .collect();
        flight_files.sort();
        let read = |rel: &str| std::fs::read_to_string(dir.join(rel)).ok();
        TravelDb::load(&read, &flight_files).map_err(|mut e| {
            if e.message == "the file is missing" {
                e.message = format!("cannot read it under {}", dir.display());
            }
            e
        })
    }

    /// The state of a city (`city_state_map`).
    pub fn state_of(&self, city: &str) -> Option<&str> {
        self.state_of.get(city).map(String::as_str)
    }

    /// Whether `city` is in the city list.
    pub fn is_city(&self, city: &str) -> bool {
        self.state_of.contains_key(city)
    }

    /// The cities of a state, in file order (CitySearch).
    pub fn cities_in_state(&self, state: &str) -> Option<&[String]> {
        self.states
            .iter()
            .find(|(s, _)| s == state)
            .map(|(_, c)| c.as_slice())
    }

    /// The states, in the order they first appear.
    pub fn states(&self) -> impl Iterator<Item = &str> {
        self.states.iter().map(|(s, _)| s.as_str())
    }

    /// Accommodations whose city is exactly `city`, in table order.
    pub fn accommodations_in(&self, city: &str) -> impl Iterator<Item = &Accommodation> {
        ids(&self.acc_by_city, city).map(|&i| &self.accommodations[i])
    }

    pub fn attractions_in(&self, city: &str) -> impl Iterator<Item = &Attraction> {
        ids(&self.att_by_city, city).map(|&i| &self.attractions[i])
    }

    pub fn restaurants_in(&self, city: &str) -> impl Iterator<Item = &Restaurant> {
        ids(&self.rest_by_city, city).map(|&i| &self.restaurants[i])
    }

    /// Flights by exact origin, destination and date (FlightSearch).
    pub fn flights_on(&self, origin: &str, dest: &str, date: &str) -> Vec<&Flight> {
        self.flights_on_route(origin, dest)
            .filter(|f| f.date == date)
            .collect()
    }

    /// Flights by exact origin and destination, any date.
    pub fn flights_on_route(&self, origin: &str, dest: &str) -> impl Iterator<Item = &Flight> {
        self.flights_by_route
            .get(origin)
            .and_then(|m| m.get(dest))
            .map(|v| v.as_slice())
            .unwrap_or(&[])
            .iter()
            .map(|&i| &self.flights[i])
    }

    /// Flights with this number, in table order.
    pub fn flights_numbered(&self, number: &str) -> impl Iterator<Item = &Flight> {
        ids(&self.flights_by_number, number).map(|&i| &self.flights[i])
    }

    /// The first distance-matrix row for an exact origin and destination.
    pub fn road(&self, origin: &str, dest: &str) -> Option<&Road> {
        self.road_first
            .get(origin)
            .and_then(|m| m.get(dest))
            .map(|&i| &self.roads[i])
    }
}

fn ids<'a>(map: &'a ByKey, key: &str) -> std::slice::Iter<'a, usize> {
    map.get(key).map(|v| v.as_slice()).unwrap_or(&[]).iter()
}
