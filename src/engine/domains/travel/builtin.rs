//! Roundtable's built-in TravelPlanner world, for the app's offline default:
//! three invented states with ten cities, in the official file layout under
//! `public/travel/builtin/`, and twelve queries (easy, medium, hard) with
//! reference plans in `public/travel/builtin_queries.jsonl`. Compiled in.

use super::db::TravelDb;
use super::query::{parse_queries_jsonl, Query};
use super::tables::*;

macro_rules! world_file {
    ($rel:literal) => {
        include_str!(concat!("../../../../public/travel/builtin/", $rel))
    };
}

/// The built-in files, keyed by their relative path in the official layout.
pub const BUILTIN_FILES: [(&str, &str); 6] = [
    (
        ACCOMMODATIONS_PATH,
        world_file!("accommodations/clean_accommodations_2022.csv"),
    ),
    (ATTRACTIONS_PATH, world_file!("attractions/attractions.csv")),
    (
        RESTAURANTS_PATH,
        world_file!("restaurants/clean_restaurant_2022.csv"),
    ),
    (
        DISTANCE_PATH,
        world_file!("googleDistanceMatrix/distance.csv"),
    ),
    (
        CITIES_PATH,
        world_file!("background/citySet_with_states.txt"),
    ),
    ("flights/flights.csv", world_file!("flights/flights.csv")),
];

/// The built-in queries in the `train_queries.jsonl` format.
pub const BUILTIN_QUERIES_JSONL: &str =
    include_str!("../../../../public/travel/builtin_queries.jsonl");

impl TravelDb {
    /// The built-in world. Its files are part of the program and covered by
    /// tests, so a failure here is a build defect, not bad input.
    pub fn builtin() -> TravelDb {
        let get = |path: &str| {
            BUILTIN_FILES
                .iter()
                .find(|(p, _)| *p == path)
                .map(|(_, text)| text.to_string())
        };
        TravelDb::load(&get, &["flights/flights.csv".to_string()])
            .expect("the built-in travel world is valid (tested)")
    }
}

/// The built-in queries, each with its reference plan.
pub fn builtin_queries() -> Vec<Query> {
    parse_queries_jsonl(BUILTIN_QUERIES_JSONL, "builtin_queries.jsonl")
        .expect("the built-in travel queries are valid (tested)")
}
