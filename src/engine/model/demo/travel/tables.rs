//! Reading the sandbox tools' answers back into rows, as a careful reader
//! of the text would: the demo model never touches the database, only the
//! text a tool returned. Tables are fixed-width, right-aligned columns
//! separated by one space (see `domains::travel::table_text`); the
//! restaurant table has a left-aligned index column. CitySearch answers a
//! Python list; GoogleDistanceMatrix one line.

use crate::engine::domains::travel::pylit::parse_whole;
use crate::engine::domains::travel::table_text::{
    ACCOMMODATION_COLUMNS, ATTRACTION_COLUMNS, FLIGHT_COLUMNS, RESTAURANT_COLUMNS,
};
use crate::engine::domains::travel::tables::{Accommodation, Attraction, Flight, Restaurant};
use serde_json::Value;

/// One table row: its index label (when the table has one) and its cells.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: Option<String>,
    pub cells: Vec<String>,
}

/// Finds `needle` in `hay` (as chars) at or after `from`.
fn find_chars(hay: &[char], needle: &str, from: usize) -> Option<usize> {
    let n: Vec<char> = needle.chars().collect();
    if n.is_empty() || hay.len() < n.len() {
        return None;
    }
    (from..=hay.len() - n.len()).find(|&i| hay[i..i + n.len()] == n[..])
}

/// Splits a table whose header names are `columns`, in order. Column
/// boundaries are taken from the header, counted from the end of the line:
/// every line has the same width, but the tool trims the text, which may
/// eat the header's leading padding. None when the header is not there.
pub fn split_table(text: &str, columns: &[&str], index: bool) -> Option<Vec<Row>> {
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header: Vec<char> = lines.next()?.trim_end().chars().collect();
    let mut from_end = Vec::with_capacity(columns.len());
    let mut at = 0;
    for name in columns {
        let start = find_chars(&header, name, at)?;
        let end = start + name.chars().count();
        // The next header name starts after a separator (or the line ends).
        if header.get(end).is_some_and(|c| !c.is_whitespace()) {
            return None;
        }
        from_end.push(header.len() - end);
        at = end;
    }
    let mut rows = Vec::new();
    for line in lines {
        let chars: Vec<char> = line.trim_end().chars().collect();
        let Some(ends) = from_end
            .iter()
            .map(|back| chars.len().checked_sub(*back))
            .collect::<Option<Vec<usize>>>()
        else {
            continue;
        };
        let mut start = 0;
        let mut label = None;
        if index {
            let len = chars.iter().take_while(|c| !c.is_whitespace()).count();
            label = Some(chars[..len].iter().collect::<String>());
            start = len;
        }
        let mut cells = Vec::with_capacity(ends.len());
        for end in ends {
            let cell: String = chars
                .get(start.min(end)..end)
                .unwrap_or(&[])
                .iter()
                .collect();
            cells.push(cell.trim().to_string());
            start = end;
        }
        rows.push(Row { label, cells });
    }
    Some(rows)
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok()
}

fn cell(row: &Row, i: usize) -> String {
    row.cells.get(i).cloned().unwrap_or_default()
}

/// FlightSearch's table; None when the text is not one (e.g. "There is no flight ...").
pub fn flights(text: &str) -> Option<Vec<Flight>> {
    let rows = split_table(text, &FLIGHT_COLUMNS, false)?;
    Some(
        rows.iter()
            .filter_map(|r| {
                Some(Flight {
                    number: cell(r, 0),
                    price: number(&cell(r, 1))?,
                    dep_time: cell(r, 2),
                    arr_time: cell(r, 3),
                    elapsed: cell(r, 4),
                    date: cell(r, 5),
                    origin: cell(r, 6),
                    destination: cell(r, 7),
                    distance: number(&cell(r, 8))?,
                })
            })
            .collect(),
    )
}

pub fn accommodations(text: &str) -> Option<Vec<Accommodation>> {
    let rows = split_table(text, &ACCOMMODATION_COLUMNS, false)?;
    Some(
        rows.iter()
            .filter_map(|r| {
                Some(Accommodation {
                    name: cell(r, 0),
                    price: number(&cell(r, 1))?,
                    room_type: cell(r, 2),
                    house_rules: cell(r, 3),
                    minimum_nights: number(&cell(r, 4))?,
                    maximum_occupancy: number(&cell(r, 5))?,
                    review_rate: number(&cell(r, 6))?,
                    city: cell(r, 7),
                })
            })
            .collect(),
    )
}

pub fn restaurants(text: &str) -> Option<Vec<Restaurant>> {
    let rows = split_table(text, &RESTAURANT_COLUMNS, true)?;
    Some(
        rows.iter()
            .enumerate()
            .filter_map(|(i, r)| {
                let row = r
                    .label
                    .as_deref()
                    .and_then(|l| l.parse::<usize>().ok())
                    .unwrap_or(i);
                Some(Restaurant {
                    row,
                    name: cell(r, 0),
                    average_cost: number(&cell(r, 1))?,
                    cuisines: cell(r, 2),
                    aggregate_rating: number(&cell(r, 3))?,
                    city: cell(r, 4),
                })
            })
            .collect(),
    )
}

pub fn attractions(text: &str) -> Option<Vec<Attraction>> {
    let rows = split_table(text, &ATTRACTION_COLUMNS, false)?;
    Some(
        rows.iter()
            .map(|r| Attraction {
                name: cell(r, 0),
                latitude: cell(r, 1),
                longitude: cell(r, 2),
                address: cell(r, 3),
                phone: cell(r, 4),
                website: cell(r, 5),
                city: cell(r, 6),
            })
            .collect(),
    )
}

/// CitySearch's answer: a Python list of city names.
pub fn cities(text: &str) -> Option<Vec<String>> {
    match parse_whole(text.trim()).ok()? {
        Value::Array(items) => items
            .into_iter()
            .map(|v| match v {
                Value::String(s) => Some(s),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// A road as GoogleDistanceMatrix describes it.
#[derive(Clone, Debug, PartialEq)]
pub struct RoadText {
    pub mode: String,
    pub duration: String,
    pub distance: String,
    /// None when the tool printed `None` (a mode it cannot price).
    pub cost: Option<i64>,
}

/// `mode, from A to B, duration: D, distance: K, cost: C`; None for "no
/// valid information" and any other text.
pub fn road(text: &str) -> Option<RoadText> {
    let line = text.trim();
    let (head, rest) = line.split_once(", duration: ")?;
    let (duration, rest) = rest.split_once(", distance: ")?;
    let (distance, cost) = rest.split_once(", cost: ")?;
    let mode = head.split_once(", from ")?.0.trim().to_string();
    Some(RoadText {
        mode,
        duration: duration.trim().to_string(),
        distance: distance.trim().to_string(),
        cost: cost.trim().parse::<i64>().ok(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::travel::tools::{execute, ToolRows};
    use crate::engine::domains::travel::TravelDb;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn splits_right_aligned_columns_with_and_without_index() {
        let t = "     a  b\n0    x  1\n10  yy 22";
        let rows = split_table(t, &["a", "b"], true).expect("table");
        assert_eq!(rows[1].label.as_deref(), Some("10"));
        assert_eq!(rows[1].cells, vec!["yy", "22"]);
        // The tool trims the text: the header loses its leading padding.
        let rows = split_table("a  b\n   x  1\nyyyy 22", &["a", "b"], false).expect("table");
        assert_eq!(rows[0].cells, vec!["x", "1"]);
        assert_eq!(rows[1].cells, vec!["yyyy", "22"]);
        assert_eq!(split_table("There is no flight.", &["a"], false), None);
        assert_eq!(
            flights("There is no flight from A to B on 2024-01-01."),
            None
        );
        assert_eq!(cities("Invalid State"), None);
        assert_eq!(road("taxi, from A to B, no valid information."), None);
    }

    #[test]
    fn every_tool_round_trips_on_the_builtin_world() {
        let db = TravelDb::builtin();
        let mut checked = 0;
        let city_names: Vec<String> = db.cities.iter().map(|c| c.city.clone()).collect();
        for city in &city_names {
            let r = execute(&db, "AccommodationSearch", &args(&[city]));
            let ToolRows::Accommodations(rows) = r.rows else {
                panic!("{city}: {}", r.text)
            };
            assert_eq!(accommodations(&r.text), Some(rows), "{city}");
            let r = execute(&db, "RestaurantSearch", &args(&[city]));
            let ToolRows::Restaurants(rows) = r.rows else {
                panic!("{city}")
            };
            assert_eq!(restaurants(&r.text), Some(rows), "{city}");
            let r = execute(&db, "AttractionSearch", &args(&[city]));
            let ToolRows::Attractions(rows) = r.rows else {
                panic!("{city}")
            };
            assert_eq!(attractions(&r.text), Some(rows), "{city}");
            for other in &city_names {
                for mode in ["self-driving", "taxi"] {
                    let r = execute(&db, "GoogleDistanceMatrix", &args(&[city, other, mode]));
                    match r.rows {
                        ToolRows::Road(info) => {
                            let back = road(&r.text).expect("road");
                            assert_eq!(
                                (back.mode, back.duration, back.distance, back.cost),
                                (info.mode, info.duration, info.distance, info.cost)
                            );
                            checked += 1;
                        }
                        _ => assert_eq!(road(&r.text), None, "{}", r.text),
                    }
                }
            }
        }
        let mut seen = Vec::new();
        for f in &db.flights {
            let key = (f.origin.clone(), f.destination.clone(), f.date.clone());
            if seen.contains(&key) {
                continue;
            }
            let r = execute(&db, "FlightSearch", &args(&[&key.0, &key.1, &key.2]));
            let ToolRows::Flights(rows) = r.rows else {
                panic!("{}", r.text)
            };
            assert_eq!(flights(&r.text), Some(rows));
            seen.push(key);
        }
        let r = execute(
            &db,
            "FlightSearch",
            &args(&["Glenrock", "Lakemont", "2024-01-01"]),
        );
        assert_eq!(flights(&r.text), None);
        for state in db.states().map(str::to_string).collect::<Vec<_>>() {
            let r = execute(&db, "CitySearch", &args(&[&state]));
            let ToolRows::Cities(rows) = r.rows else {
                panic!("{state}")
            };
            assert_eq!(cities(&r.text), Some(rows));
        }
        assert!(
            checked > 50 && seen.len() >= 20,
            "{checked} roads, {} flight searches",
            seen.len()
        );
    }

    #[test]
    fn odd_cells_survive() {
        // Wide non-ASCII names, quotes in city lists, an index wider than one digit.
        let a = Attraction {
            name: "Café Ünïcode".into(),
            latitude: "1".into(),
            longitude: "2".into(),
            address: "3 Rue, X".into(),
            phone: "-".into(),
            website: "w".into(),
            city: "St. John's".into(),
        };
        let mut b = a.clone();
        b.name = "B".into();
        let text = crate::engine::domains::travel::table_text::attractions(&[a.clone(), b]);
        assert_eq!(attractions(text.trim()).expect("rows")[0], a);
        assert_eq!(
            cities(&crate::engine::domains::travel::pyops::py_repr_list(&[
                "St. John's",
                "A"
            ])),
            Some(vec!["St. John's".to_string(), "A".to_string()])
        );
    }
}
