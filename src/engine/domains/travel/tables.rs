//! The six sandbox tables: row types and one parse function per file, each
//! applying the official loader's filtering (`pd.read_csv(path).dropna()`
//! for accommodations, attractions, restaurants and flights; no filtering
//! for the distance matrix; `citySet_with_states.txt` split on tabs).

use super::csv::{read_table, Record, Table};
use super::error::DataError;
use serde::Serialize;

pub const ACCOMMODATIONS_PATH: &str = "accommodations/clean_accommodations_2022.csv";
pub const ATTRACTIONS_PATH: &str = "attractions/attractions.csv";
pub const RESTAURANTS_PATH: &str = "restaurants/clean_restaurant_2022.csv";
pub const DISTANCE_PATH: &str = "googleDistanceMatrix/distance.csv";
pub const CITIES_PATH: &str = "background/citySet_with_states.txt";
pub const FLIGHTS_DIR: &str = "flights/";

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Accommodation {
    pub name: String,
    pub price: f64,
    pub room_type: String,
    pub house_rules: String,
    pub minimum_nights: f64,
    pub maximum_occupancy: f64,
    pub review_rate: f64,
    pub city: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Attraction {
    pub name: String,
    pub latitude: String,
    pub longitude: String,
    pub address: String,
    pub phone: String,
    pub website: String,
    pub city: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Restaurant {
    /// The row's position in the file (pandas' index label, shown by RestaurantSearch).
    pub row: usize,
    pub name: String,
    pub average_cost: f64,
    pub cuisines: String,
    pub aggregate_rating: f64,
    pub city: String,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Flight {
    pub number: String,
    pub price: f64,
    pub dep_time: String,
    pub arr_time: String,
    pub elapsed: String,
    pub date: String,
    pub origin: String,
    pub destination: String,
    pub distance: f64,
}

/// One distance-matrix row. Duration and distance are None where the file
/// has an empty (NaN) value.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Road {
    pub origin: String,
    pub destination: String,
    pub duration: Option<String>,
    pub distance: Option<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CityState {
    pub city: String,
    pub state: String,
}

/// The rows kept from one file, and how many the official filtering dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct TableLoad<T> {
    pub rows: Vec<T>,
    pub read: usize,
    pub dropped: usize,
}

/// Reads a table, drops rows with any NA field, and maps the rest.
fn load_dropna<T>(
    text: &str,
    file: &str,
    columns: &[&str],
    map: impl Fn(&Record, &[usize], usize) -> Result<T, DataError>,
) -> Result<TableLoad<T>, DataError> {
    let table: Table = read_table(text, file)?;
    let cols = table.require(file, columns)?;
    let width = table.header.len();
    let read = table.rows.len();
    let mut rows = Vec::with_capacity(read);
    for (i, rec) in table.rows.iter().enumerate() {
        if !rec.has_na(width) {
            rows.push(map(rec, &cols, i)?);
        }
    }
    let dropped = read - rows.len();
    Ok(TableLoad {
        rows,
        read,
        dropped,
    })
}

fn number(file: &str, rec: &Record, col: usize, name: &str) -> Result<f64, DataError> {
    let raw = rec.get(col);
    raw.trim().parse::<f64>().map_err(|_| {
        DataError::at(
            file,
            rec.line,
            format!("column \"{name}\" must be a number, found \"{raw}\""),
        )
    })
}

fn field(rec: &Record, col: usize) -> String {
    rec.get(col).to_string()
}

pub fn parse_accommodations(text: &str) -> Result<TableLoad<Accommodation>, DataError> {
    const COLS: [&str; 8] = super::table_text::ACCOMMODATION_COLUMNS;
    let f = ACCOMMODATIONS_PATH;
    load_dropna(text, f, &COLS, |r, c, _| {
        Ok(Accommodation {
            name: field(r, c[0]),
            price: number(f, r, c[1], COLS[1])?,
            room_type: field(r, c[2]),
            house_rules: field(r, c[3]),
            minimum_nights: number(f, r, c[4], COLS[4])?,
            maximum_occupancy: number(f, r, c[5], COLS[5])?,
            review_rate: number(f, r, c[6], COLS[6])?,
            city: field(r, c[7]),
        })
    })
}

pub fn parse_attractions(text: &str) -> Result<TableLoad<Attraction>, DataError> {
    const COLS: [&str; 7] = super::table_text::ATTRACTION_COLUMNS;
    load_dropna(text, ATTRACTIONS_PATH, &COLS, |r, c, _| {
        Ok(Attraction {
            name: field(r, c[0]),
            latitude: field(r, c[1]),
            longitude: field(r, c[2]),
            address: field(r, c[3]),
            phone: field(r, c[4]),
            website: field(r, c[5]),
            city: field(r, c[6]),
        })
    })
}

pub fn parse_restaurants(text: &str) -> Result<TableLoad<Restaurant>, DataError> {
    const COLS: [&str; 5] = super::table_text::RESTAURANT_COLUMNS;
    let f = RESTAURANTS_PATH;
    load_dropna(text, f, &COLS, |r, c, row| {
        Ok(Restaurant {
            row,
            name: field(r, c[0]),
            average_cost: number(f, r, c[1], COLS[1])?,
            cuisines: field(r, c[2]),
            aggregate_rating: number(f, r, c[3], COLS[3])?,
            city: field(r, c[4]),
        })
    })
}

/// Parses one flight file; `file` is its relative path (e.g. `flights/x.csv`).
pub fn parse_flights(text: &str, file: &str) -> Result<TableLoad<Flight>, DataError> {
    const COLS: [&str; 9] = super::table_text::FLIGHT_COLUMNS;
    load_dropna(text, file, &COLS, |r, c, _| {
        Ok(Flight {
            number: field(r, c[0]),
            price: number(file, r, c[1], COLS[1])?,
            dep_time: field(r, c[2]),
            arr_time: field(r, c[3]),
            elapsed: field(r, c[4]),
            date: field(r, c[5]),
            origin: field(r, c[6]),
            destination: field(r, c[7]),
            distance: number(file, r, c[8], COLS[8])?,
        })
    })
}

/// The distance matrix: read without `dropna()` (its cost column is empty).
pub fn parse_distances(text: &str) -> Result<TableLoad<Road>, DataError> {
    let file = DISTANCE_PATH;
    let table = read_table(text, file)?;
    let c = table.require(file, &["origin", "destination", "duration", "distance"])?;
    let opt = |r: &Record, col: usize| {
        let v = r.get(col);
        (!super::csv::is_na(v)).then(|| v.to_string())
    };
    let rows: Vec<Road> = table
        .rows
        .iter()
        .map(|r| Road {
            origin: field(r, c[0]),
            destination: field(r, c[1]),
            duration: opt(r, c[2]),
            distance: opt(r, c[3]),
        })
        .collect();
    let read = rows.len();
    Ok(TableLoad {
        rows,
        read,
        dropped: 0,
    })
}

/// `citySet_with_states.txt`: one `City<TAB>State` a line.
pub fn parse_cities(text: &str) -> Result<TableLoad<CityState>, DataError> {
    let mut rows = Vec::new();
    for (i, line) in text.split('\n').enumerate() {
        let line = line.strip_suffix('\r').unwrap_or(line);
        if line.is_empty() {
            continue;
        }
        let mut parts = line.split('\t');
        match (parts.next(), parts.next(), parts.next()) {
            (Some(city), Some(state), None) => rows.push(CityState {
                city: city.to_string(),
                state: state.to_string(),
            }),
            _ => {
                return Err(DataError::at(
                    CITIES_PATH,
                    i + 1,
                    format!("expected \"City<TAB>State\", found \"{line}\""),
                ))
            }
        }
    }
    let read = rows.len();
    Ok(TableLoad {
        rows,
        read,
        dropped: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accommodations_drop_rows_with_empty_fields() {
        let csv = ",NAME,room type,price,minimum nights,review rate number,house_rules,maximum occupancy,city\n\
                   0,A,Private room,131.0,1.0,2.0,No smoking,1,X\n\
                   1,B,Private room,50.0,1.0,2.0,,2,X\n";
        let t = parse_accommodations(csv).unwrap();
        assert_eq!((t.read, t.dropped, t.rows.len()), (2, 1, 1));
        assert_eq!(t.rows[0].price, 131.0);
    }

    #[test]
    fn bad_numbers_name_file_line_and_column() {
        let csv = "Name,City,Cuisines,Average Cost,Aggregate Rating\nA,X,Tea,cheap,4.1\n";
        let e = parse_restaurants(csv).unwrap_err();
        assert_eq!(e.line, Some(2));
        assert!(e.to_string().contains("clean_restaurant_2022.csv line 2"));
        assert!(e.message.contains("\"Average Cost\""), "{e}");
    }

    #[test]
    fn missing_columns_and_bad_city_lines() {
        let e = parse_attractions("Name,City\nA,B\n").unwrap_err();
        assert!(e.message.contains("\"Latitude\""), "{e}");
        let e = parse_cities("A\tB\nbroken\n").unwrap_err();
        assert_eq!(e.line, Some(2));
        let ok = parse_cities("A\tB\r\nC\tD\n").unwrap();
        assert_eq!(ok.rows.len(), 2);
    }

    #[test]
    fn distances_keep_empty_values_as_none() {
        let d = parse_distances(
            "origin,destination,cost,duration,distance\nA,B,,,\nA,C,,1 hour,80 km\n",
        )
        .unwrap();
        assert_eq!(d.rows[0].duration, None);
        assert_eq!(d.rows[1].distance.as_deref(), Some("80 km"));
    }
}
