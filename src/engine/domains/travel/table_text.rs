//! Tool results as text tables in the style of pandas' `DataFrame.to_string`
//! (columns right-aligned and separated by a space), which is what the
//! official tools show the model. Not byte-identical to pandas: numbers are
//! printed as Python prints them and long cells are not truncated.

use super::pyops::{py_float, py_int};
use super::tables::{Accommodation, Attraction, Flight, Restaurant};

fn width(s: &str) -> usize {
    s.chars().count()
}

fn pad_left(s: &str, w: usize) -> String {
    format!("{}{s}", " ".repeat(w.saturating_sub(width(s))))
}

/// The columns each search tool prints, in order: the columns the loader
/// keeps from each official file (`tables.rs`), which the official tools
/// print as they are. Readers of the text use the same lists.
pub const FLIGHT_COLUMNS: [&str; 9] = [
    "Flight Number",
    "Price",
    "DepTime",
    "ArrTime",
    "ActualElapsedTime",
    "FlightDate",
    "OriginCityName",
    "DestCityName",
    "Distance",
];
pub const ACCOMMODATION_COLUMNS: [&str; 8] = [
    "NAME",
    "price",
    "room type",
    "house_rules",
    "minimum nights",
    "maximum occupancy",
    "review rate number",
    "city",
];
pub const RESTAURANT_COLUMNS: [&str; 5] = [
    "Name",
    "Average Cost",
    "Cuisines",
    "Aggregate Rating",
    "City",
];
pub const ATTRACTION_COLUMNS: [&str; 7] = [
    "Name",
    "Latitude",
    "Longitude",
    "Address",
    "Phone",
    "Website",
    "City",
];

/// Renders rows under a header; with `index`, a left column of row labels.
pub fn render(header: &[&str], rows: &[Vec<String>], index: Option<&[String]>) -> String {
    let mut widths: Vec<usize> = header.iter().map(|h| width(h)).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(width(cell));
        }
    }
    let index_width = index.map_or(0, |ix| ix.iter().map(|s| width(s)).max().unwrap_or(0));
    let line = |cells: Vec<String>, label: Option<&str>| {
        let mut parts: Vec<String> = Vec::with_capacity(cells.len() + 1);
        if index.is_some() {
            let l = label.unwrap_or("");
            parts.push(format!(
                "{l}{}",
                " ".repeat(index_width.saturating_sub(width(l)))
            ));
        }
        parts.extend(cells.iter().zip(&widths).map(|(c, w)| pad_left(c, *w)));
        parts.join(" ")
    };
    let mut out = vec![line(header.iter().map(|h| h.to_string()).collect(), None)];
    for (i, row) in rows.iter().enumerate() {
        let label = index.and_then(|ix| ix.get(i)).map(String::as_str);
        out.push(line(row.clone(), label));
    }
    out.join("\n")
}

pub fn flights(rows: &[Flight]) -> String {
    let header = FLIGHT_COLUMNS;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|f| {
            vec![
                f.number.clone(),
                py_int(f.price),
                f.dep_time.clone(),
                f.arr_time.clone(),
                f.elapsed.clone(),
                f.date.clone(),
                f.origin.clone(),
                f.destination.clone(),
                py_float(f.distance),
            ]
        })
        .collect();
    render(&header, &cells, None)
}

pub fn accommodations(rows: &[Accommodation]) -> String {
    let header = ACCOMMODATION_COLUMNS;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                py_float(a.price),
                a.room_type.clone(),
                a.house_rules.clone(),
                py_float(a.minimum_nights),
                py_int(a.maximum_occupancy),
                py_float(a.review_rate),
                a.city.clone(),
            ]
        })
        .collect();
    render(&header, &cells, None)
}

pub fn restaurants(rows: &[Restaurant]) -> String {
    let header = RESTAURANT_COLUMNS;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|r| {
            vec![
                r.name.clone(),
                py_int(r.average_cost),
                r.cuisines.clone(),
                py_float(r.aggregate_rating),
                r.city.clone(),
            ]
        })
        .collect();
    let index: Vec<String> = rows.iter().map(|r| r.row.to_string()).collect();
    render(&header, &cells, Some(&index))
}

pub fn attractions(rows: &[Attraction]) -> String {
    let header = ATTRACTION_COLUMNS;
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|a| {
            vec![
                a.name.clone(),
                a.latitude.clone(),
                a.longitude.clone(),
                a.address.clone(),
                a.phone.clone(),
                a.website.clone(),
                a.city.clone(),
            ]
        })
        .collect();
    render(&header, &cells, None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn right_aligned_with_optional_index() {
        let rows = vec![
            vec!["x".to_string(), "1".to_string()],
            vec!["yy".to_string(), "22".to_string()],
        ];
        assert_eq!(render(&["a", "b"], &rows, None), " a  b\n x  1\nyy 22");
        let ix = vec!["0".to_string(), "10".to_string()];
        assert_eq!(
            render(&["a", "b"], &rows, Some(&ix)),
            "    a  b\n0   x  1\n10 yy 22"
        );
    }
}
