//! Reading a tool's text result back: the one reader of what
//! [`super::table_text`] writes. The demo model reads its tool results with
//! it (it never touches the database, only the text a tool returned), and
//! the notebook shows tool results as tables with it.
//!
//! The search tools print tables like pandas' `DataFrame.to_string`: every
//! column right-aligned to its widest cell, columns separated by one space,
//! the restaurant table with a left-aligned row index; the tool trims its
//! text, which drops the header's leading padding. Cells may contain
//! spaces, so the column edges come from the known header labels: a
//! right-aligned column ends where its label ends. CitySearch returns a
//! Python list and GoogleDistanceMatrix one line. Anything else — error
//! texts, a table that does not line up — is not a table.

use super::pylit::parse_whole;
use super::table_text::{
    ACCOMMODATION_COLUMNS, ATTRACTION_COLUMNS, FLIGHT_COLUMNS, RESTAURANT_COLUMNS,
};
use super::tables::{Accommodation, Attraction, Flight, Restaurant};
use super::tools::{
    ACCOMMODATION_SEARCH, ATTRACTION_SEARCH, CITY_SEARCH, DISTANCE_MATRIX, FLIGHT_SEARCH,
    RESTAURANT_SEARCH,
};
use serde::Serialize;
use serde_json::Value;

/// One table row: its index label (when the table has one) and its cells,
/// one per column label.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub label: Option<String>,
    pub cells: Vec<String>,
}

fn find(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// The rows of a table printed under `labels` (in order), with a
/// left-aligned index column when `index`. None when the text is not such
/// a table: no header, a label out of place, or a row that does not line up.
pub fn read_rows(text: &str, labels: &[&str], index: bool) -> Option<Vec<Row>> {
    let raw: Vec<&str> = text
        .trim_end()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if raw.len() < 2 || labels.is_empty() {
        return None;
    }
    let width = raw.iter().map(|l| l.chars().count()).max()?;
    // Right-aligned lines all end in the same column: restore trimmed padding.
    let lines: Vec<Vec<char>> = raw
        .iter()
        .map(|l| {
            let n = l.chars().count();
            std::iter::repeat_n(' ', width - n)
                .chain(l.chars())
                .collect()
        })
        .collect();
    let header = &lines[0];
    let mut ends = Vec::with_capacity(labels.len());
    let mut first_start = 0;
    let mut pos = 0;
    for (j, label) in labels.iter().enumerate() {
        let l: Vec<char> = label.chars().collect();
        let start = find(header, &l, pos)?;
        let end = start + l.len();
        let bounded =
            (start == 0 || header[start - 1] == ' ') && (end == width || header[end] == ' ');
        if !bounded {
            return None;
        }
        if j == 0 {
            first_start = start;
        }
        ends.push(end);
        pos = end;
    }
    if ends.last() != Some(&width) {
        return None;
    }
    let data = &lines[1..];
    // The index column: left-aligned labels, then one space.
    let index_width = if index {
        let w = data
            .iter()
            .map(|l| l.iter().take_while(|c| **c != ' ').count())
            .max()?;
        if w == 0 || w >= first_start {
            return None;
        }
        Some(w)
    } else {
        None
    };
    let mut starts = Vec::with_capacity(ends.len());
    starts.push(index_width.map_or(0, |w| w + 1));
    starts.extend(ends[..ends.len() - 1].iter().map(|e| e + 1));
    let separators: Vec<usize> = index_width
        .into_iter()
        .chain(ends[..ends.len() - 1].iter().copied())
        .collect();
    let cell = |line: &[char], a: usize, b: usize| -> String {
        line[a..b].iter().collect::<String>().trim().to_string()
    };
    let mut rows = Vec::with_capacity(data.len());
    for line in data {
        if separators.iter().any(|s| line[*s] != ' ') {
            return None;
        }
        rows.push(Row {
            label: index_width.map(|w| cell(line, 0, w)),
            cells: starts
                .iter()
                .zip(&ends)
                .map(|(a, b)| cell(line, *a, *b))
                .collect(),
        });
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
    let rows = read_rows(text, &FLIGHT_COLUMNS, false)?;
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

/// AccommodationSearch's table.
pub fn accommodations(text: &str) -> Option<Vec<Accommodation>> {
    let rows = read_rows(text, &ACCOMMODATION_COLUMNS, false)?;
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

/// RestaurantSearch's table (its index is the row number in the database).
pub fn restaurants(text: &str) -> Option<Vec<Restaurant>> {
    let rows = read_rows(text, &RESTAURANT_COLUMNS, true)?;
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

/// AttractionSearch's table.
pub fn attractions(text: &str) -> Option<Vec<Attraction>> {
    let rows = read_rows(text, &ATTRACTION_COLUMNS, false)?;
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
    pub from: String,
    pub to: String,
    pub duration: String,
    pub distance: String,
    /// The cost as printed (`None` for a mode the tool cannot price).
    pub cost_text: String,
}

impl RoadText {
    /// The cost in dollars; None when the tool printed `None`.
    pub fn cost(&self) -> Option<i64> {
        self.cost_text.parse::<i64>().ok()
    }
}

/// `mode, from A to B, duration: D, distance: K, cost: C` on one line;
/// None for "no valid information" and any other text.
pub fn road(text: &str) -> Option<RoadText> {
    let line = text.trim();
    if line.contains('\n') {
        return None;
    }
    let (mode, rest) = line.split_once(", from ")?;
    let (rest, cost) = rest.rsplit_once(", cost: ")?;
    let (rest, distance) = rest.rsplit_once(", distance: ")?;
    let (route, duration) = rest.rsplit_once(", duration: ")?;
    let (from, to) = route.split_once(" to ")?;
    Some(RoadText {
        mode: mode.trim().to_string(),
        from: from.trim().to_string(),
        to: to.trim().to_string(),
        duration: duration.trim().to_string(),
        distance: distance.trim().to_string(),
        cost_text: cost.trim().to_string(),
    })
}

/// A tool result as a header and rows of cells (every row as long as the
/// header; an indexed table's first column is `#`), for showing.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ToolTable {
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

/// The header labels each table tool prints, and whether it has an index column.
fn layout(tool: &str) -> Option<(&'static [&'static str], bool)> {
    Some(match tool {
        FLIGHT_SEARCH => (&FLIGHT_COLUMNS, false),
        ACCOMMODATION_SEARCH => (&ACCOMMODATION_COLUMNS, false),
        RESTAURANT_SEARCH => (&RESTAURANT_COLUMNS, true),
        ATTRACTION_SEARCH => (&ATTRACTION_COLUMNS, false),
        _ => return None,
    })
}

/// The tool's result as a table to show, when it is one.
pub fn tool_table(tool: &str, text: &str) -> Option<ToolTable> {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match tool {
        CITY_SEARCH => Some(ToolTable {
            header: vec!["City".into()],
            rows: cities(text)?.into_iter().map(|c| vec![c]).collect(),
        }),
        DISTANCE_MATRIX => {
            let r = road(text)?;
            Some(ToolTable {
                header: strings(&["Mode", "From", "To", "Duration", "Distance", "Cost"]),
                rows: vec![vec![
                    r.mode,
                    r.from,
                    r.to,
                    r.duration,
                    r.distance,
                    r.cost_text,
                ]],
            })
        }
        _ => {
            let (labels, index) = layout(tool)?;
            let rows = read_rows(text, labels, index)?;
            let mut header = Vec::with_capacity(labels.len() + 1);
            if index {
                header.push("#".to_string());
            }
            header.extend(strings(labels));
            Some(ToolTable {
                header,
                rows: rows
                    .into_iter()
                    .map(|r| r.label.into_iter().chain(r.cells).collect())
                    .collect(),
            })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::table_text::render;
    use super::*;
    use crate::engine::domains::travel::tools::{execute, ToolRows};
    use crate::engine::domains::travel::TravelDb;

    fn args(a: &[&str]) -> Vec<String> {
        a.iter().map(|s| s.to_string()).collect()
    }

    fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn splits_right_aligned_columns_with_and_without_index() {
        let t = "     a  b\n0    x  1\n10  yy 22";
        let rows = read_rows(t, &["a", "b"], true).expect("table");
        assert_eq!(rows[1].label.as_deref(), Some("10"));
        assert_eq!(rows[1].cells, vec!["yy", "22"]);
        // The tool trims the text: the header loses its leading padding.
        let rows = read_rows("a  b\n   x  1\nyyyy 22", &["a", "b"], false).expect("table");
        assert_eq!(rows[0].cells, vec!["x", "1"]);
        assert_eq!(rows[1].cells, vec!["yyyy", "22"]);
        assert_eq!(read_rows("There is no flight.", &["a"], false), None);
        // A row that does not line up under the header is not a table.
        assert_eq!(read_rows("a  b\nxx yy 1", &["a", "b"], false), None);
        assert_eq!(
            flights("There is no flight from A to B on 2024-01-01."),
            None
        );
        assert_eq!(cities("Invalid State"), None);
        assert_eq!(road("taxi, from A to B, no valid information."), None);
    }

    #[test]
    fn cells_with_spaces_and_trimmed_headers_are_read_back() {
        let rows = strings(&[
            &["Pizza Hut", "12", "Fast Food, Pizza", "3.5", "Austin"],
            &["The Big Dinner Place", "7", "Cafe", "4.0", "Austin"],
        ]);
        let index = vec!["8".to_string(), "112".to_string()];
        let text = render(&RESTAURANT_COLUMNS, &rows, Some(&index));
        let t = tool_table(RESTAURANT_SEARCH, text.trim()).expect("table");
        assert_eq!(t.header[0], "#");
        assert_eq!(t.rows[0][0], "8");
        assert_eq!(t.rows[1][1], "The Big Dinner Place");
        assert_eq!(t.rows[0][3], "Fast Food, Pizza");
        assert_eq!(t.rows[1][5], "Austin");
        let typed = restaurants(text.trim()).expect("rows");
        assert_eq!((typed[1].row, typed[0].average_cost), (112, 12.0));
    }

    #[test]
    fn lists_lines_and_errors() {
        let t = tool_table(CITY_SEARCH, "['Austin', 'El Paso']").expect("list");
        assert_eq!(t.rows, strings(&[&["Austin"], &["El Paso"]]));
        let line = "self-driving, from Austin to El Paso, duration: 8 hours 5 mins, distance: 850 km, cost: 42";
        let d = tool_table(DISTANCE_MATRIX, line).expect("line");
        assert_eq!(
            d.rows[0],
            [
                "self-driving",
                "Austin",
                "El Paso",
                "8 hours 5 mins",
                "850 km",
                "42"
            ]
        );
        assert_eq!(road(line).and_then(|r| r.cost()), Some(42));
        assert_eq!(
            road("taxi, from A to B, duration: 1 hour, distance: 5 km, cost: None")
                .map(|r| r.cost()),
            Some(None)
        );
        assert!(tool_table(DISTANCE_MATRIX, "taxi, from A to B, no valid information.").is_none());
        assert!(tool_table(
            FLIGHT_SEARCH,
            "There is no flight from A to B on 2022-03-01."
        )
        .is_none());
        assert!(tool_table(ACCOMMODATION_SEARCH, "NAME price\nx").is_none());
        assert!(tool_table("NotebookWrite", "a b\n1 2").is_none());
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
                                (
                                    back.mode.clone(),
                                    back.duration.clone(),
                                    back.distance.clone(),
                                    back.cost()
                                ),
                                (info.mode, info.duration, info.distance, info.cost)
                            );
                            assert_eq!(
                                (back.from.as_str(), back.to.as_str()),
                                (city.as_str(), other.as_str())
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
        let text = super::super::table_text::attractions(&[a.clone(), b]);
        assert_eq!(attractions(text.trim()).expect("rows")[0], a);
        assert_eq!(
            cities(&super::super::pyops::py_repr_list(&["St. John's", "A"])),
            Some(vec!["St. John's".to_string(), "A".to_string()])
        );
    }
}
