//! Reading a travel tool's text result back as a table, for the notebook.
//!
//! The search tools print tables like pandas' `DataFrame.to_string` (see
//! `domains::travel::table_text`): every column right-aligned to its widest
//! cell, columns separated by one space, the restaurant table with a
//! left-aligned row index; the city-level results are trimmed, which drops
//! the header's leading padding. Cells may contain spaces, so the column
//! edges come from the known header labels: a right-aligned column ends
//! where its label ends. CitySearch returns a Python list and
//! GoogleDistanceMatrix one line. Anything else — error texts, a table that
//! does not line up — is not a table (the UI shows it as text).

use crate::engine::domains::travel::pylit::parse_whole;
use crate::engine::domains::travel::table_text::{
    ACCOMMODATION_COLUMNS, ATTRACTION_COLUMNS, FLIGHT_COLUMNS, RESTAURANT_COLUMNS,
};
use crate::engine::domains::travel::tools::{
    ACCOMMODATION_SEARCH, ATTRACTION_SEARCH, CITY_SEARCH, DISTANCE_MATRIX, FLIGHT_SEARCH,
    RESTAURANT_SEARCH,
};
use serde::Serialize;

/// A tool result as a header and rows of cells (every row as long as the header).
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

/// The tool's result as a table, when it is one.
pub fn parse_tool_table(tool: &str, text: &str) -> Option<ToolTable> {
    match tool {
        CITY_SEARCH => city_list(text),
        DISTANCE_MATRIX => distance_line(text),
        _ => {
            let (labels, index) = layout(tool)?;
            fixed_width(text, labels, index)
        }
    }
}

fn find(hay: &[char], needle: &[char], from: usize) -> Option<usize> {
    if needle.is_empty() || hay.len() < needle.len() {
        return None;
    }
    (from..=hay.len() - needle.len()).find(|&i| hay[i..i + needle.len()] == *needle)
}

/// Right-aligned columns under known labels (see the module docs).
pub fn fixed_width(text: &str, labels: &[&str], index: bool) -> Option<ToolTable> {
    let raw: Vec<&str> = text.trim_end().lines().collect();
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
        let mut row: Vec<String> = Vec::with_capacity(ends.len() + 1);
        if let Some(w) = index_width {
            row.push(cell(line, 0, w));
        }
        row.extend(starts.iter().zip(&ends).map(|(a, b)| cell(line, *a, *b)));
        rows.push(row);
    }
    let mut head: Vec<String> = Vec::with_capacity(labels.len() + 1);
    if index {
        head.push("#".into());
    }
    head.extend(labels.iter().map(|l| l.to_string()));
    Some(ToolTable { header: head, rows })
}

/// CitySearch: a Python list of city names.
fn city_list(text: &str) -> Option<ToolTable> {
    let serde_json::Value::Array(items) = parse_whole(text.trim()).ok()? else {
        return None;
    };
    let rows = items
        .iter()
        .map(|v| v.as_str().map(|s| vec![s.to_string()]))
        .collect::<Option<Vec<_>>>()?;
    Some(ToolTable {
        header: vec!["City".into()],
        rows,
    })
}

/// GoogleDistanceMatrix: `mode, from A to B, duration: D, distance: X, cost: C`.
fn distance_line(text: &str) -> Option<ToolTable> {
    let line = text.trim();
    if line.contains('\n') {
        return None;
    }
    let (mode, rest) = line.split_once(", from ")?;
    let (rest, cost) = rest.rsplit_once(", cost: ")?;
    let (rest, distance) = rest.rsplit_once(", distance: ")?;
    let (route, duration) = rest.rsplit_once(", duration: ")?;
    let (from, to) = route.split_once(" to ")?;
    let header = ["Mode", "From", "To", "Duration", "Distance", "Cost"];
    Some(ToolTable {
        header: header.iter().map(|h| h.to_string()).collect(),
        rows: vec![[mode, from, to, duration, distance, cost]
            .iter()
            .map(|s| s.trim().to_string())
            .collect()],
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::travel::table_text::render;

    fn strings(rows: &[&[&str]]) -> Vec<Vec<String>> {
        rows.iter()
            .map(|r| r.iter().map(|s| s.to_string()).collect())
            .collect()
    }

    #[test]
    fn cells_with_spaces_and_trimmed_headers_are_read_back() {
        let rows = strings(&[
            &["Pizza Hut", "12", "Fast Food, Pizza", "3.5", "Austin"],
            &["The Big Dinner Place", "7", "Cafe", "4.0", "Austin"],
        ]);
        let header = [
            "Name",
            "Average Cost",
            "Cuisines",
            "Aggregate Rating",
            "City",
        ];
        let index = vec!["8".to_string(), "112".to_string()];
        let text = render(&header, &rows, Some(&index));
        let t = parse_tool_table(RESTAURANT_SEARCH, text.trim()).expect("table");
        assert_eq!(t.header[0], "#");
        assert_eq!(t.rows[0][0], "8");
        assert_eq!(t.rows[1][1], "The Big Dinner Place");
        assert_eq!(t.rows[0][3], "Fast Food, Pizza");
        assert_eq!(t.rows[1][5], "Austin");
    }

    #[test]
    fn lists_lines_and_errors() {
        let t = parse_tool_table(CITY_SEARCH, "['Austin', 'El Paso']").expect("list");
        assert_eq!(t.rows, strings(&[&["Austin"], &["El Paso"]]));
        let d = parse_tool_table(
            DISTANCE_MATRIX,
            "self-driving, from Austin to El Paso, duration: 8 hours 5 mins, distance: 850 km, cost: 42",
        )
        .expect("line");
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
        assert!(
            parse_tool_table(DISTANCE_MATRIX, "taxi, from A to B, no valid information.").is_none()
        );
        assert!(parse_tool_table(
            FLIGHT_SEARCH,
            "There is no flight from A to B on 2022-03-01."
        )
        .is_none());
        assert!(parse_tool_table(ACCOMMODATION_SEARCH, "NAME price\nx").is_none());
        assert!(parse_tool_table("NotebookWrite", "a b\n1 2").is_none());
    }
}
