//! The notebook's tool-table reader on every search result of the built-in
//! world: each table reads back as the rows the tool returned.

use roundtable::engine::domains::travel::table_read::tool_table;
use roundtable::engine::domains::travel::tools::execute;
use roundtable::engine::domains::travel::{ToolRows, TravelDb};

#[test]
fn every_search_result_of_the_builtin_world_reads_back_as_its_rows() {
    let db = TravelDb::builtin();
    let cities: Vec<String> = db.cities.iter().map(|c| c.city.clone()).collect();
    let mut tables = 0;
    for city in &cities {
        for tool in [
            "AccommodationSearch",
            "RestaurantSearch",
            "AttractionSearch",
        ] {
            let r = execute(&db, tool, std::slice::from_ref(city));
            let Some(t) = tool_table(tool, &r.text) else {
                assert!(!r.ok, "{tool}[{city}] did not parse:\n{}", r.text);
                continue;
            };
            tables += 1;
            let (names, extra): (Vec<String>, Vec<String>) = match &r.rows {
                ToolRows::Accommodations(a) => (
                    a.iter().map(|x| x.name.clone()).collect(),
                    a.iter().map(|x| x.house_rules.clone()).collect(),
                ),
                ToolRows::Restaurants(a) => (
                    a.iter().map(|x| x.name.clone()).collect(),
                    a.iter().map(|x| x.cuisines.clone()).collect(),
                ),
                ToolRows::Attractions(a) => (
                    a.iter().map(|x| x.name.clone()).collect(),
                    a.iter().map(|x| x.address.clone()).collect(),
                ),
                other => panic!("{other:?}"),
            };
            let (name_col, extra_col) = match tool {
                "AccommodationSearch" => (0, 3),
                "RestaurantSearch" => (1, 3),
                _ => (0, 3),
            };
            assert_eq!(
                t.rows
                    .iter()
                    .map(|r| r[name_col].clone())
                    .collect::<Vec<_>>(),
                names
            );
            assert_eq!(
                t.rows
                    .iter()
                    .map(|r| r[extra_col].clone())
                    .collect::<Vec<_>>(),
                extra
                    .iter()
                    .map(|s| s.trim().to_string())
                    .collect::<Vec<_>>()
            );
        }
    }
    let mut flights = 0;
    for f in db.flights.iter().take(40) {
        let r = execute(
            &db,
            "FlightSearch",
            &[f.origin.clone(), f.destination.clone(), f.date.clone()],
        );
        let t = tool_table("FlightSearch", &r.text).expect("flight table");
        assert!(t
            .rows
            .iter()
            .any(|row| row[0] == f.number && row[6] == f.origin && row[7] == f.destination));
        flights += 1;
    }
    assert!(tables > 10 && flights > 0);
}
