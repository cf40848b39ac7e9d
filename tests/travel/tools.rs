//! The six TravelPlanner tools: results, rows and the official error texts.

use roundtable::engine::domains::travel::tools::INVALID_ACTION;
use roundtable::engine::domains::travel::*;

fn args(a: &[&str]) -> Vec<String> {
    a.iter().map(|s| s.to_string()).collect()
}

fn run(db: &TravelDb, name: &str, a: &[&str]) -> ToolResult {
    execute(db, name, &args(a))
}

/// A world with a city that has no listings at all.
fn sparse_db() -> TravelDb {
    let files: Vec<(String, String)> = [
        ("accommodations/clean_accommodations_2022.csv", "NAME,room type,price,minimum nights,review rate number,house_rules,maximum occupancy,city\nA,Private room,10.0,1.0,4.0,No pets,1,Full"),
        ("attractions/attractions.csv", "Name,Latitude,Longitude,Address,Phone,Website,City\nA,1,2,x,y,z,Full"),
        ("restaurants/clean_restaurant_2022.csv", "Name,City,Cuisines,Average Cost,Aggregate Rating\nA,Full,Tea,10,4.0"),
        ("googleDistanceMatrix/distance.csv", "origin,destination,cost,duration,distance\nFull,Empty,,,\nEmpty,Full,,1 day 1 hour,\"2,000 km\"\nFull,Far,,3 hours,850 m"),
        ("background/citySet_with_states.txt", "Full\tS\nEmpty\tS"),
        ("flights/a.csv", "Flight Number,Price,DepTime,ArrTime,ActualElapsedTime,FlightDate,OriginCityName,DestCityName,Distance\n"),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    TravelDb::from_files(&files).expect("sparse world loads")
}

#[test]
fn specs_name_the_six_tools_with_json_schemas() {
    let specs = tool_specs();
    let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "FlightSearch",
            "GoogleDistanceMatrix",
            "AccommodationSearch",
            "RestaurantSearch",
            "AttractionSearch",
            "CitySearch"
        ]
    );
    for s in &specs {
        assert_eq!(s.parameters["type"], "object");
        let required = s.parameters["required"].as_array().expect("required");
        assert!(!required.is_empty() && !s.description.is_empty());
    }
    assert_eq!(specs[1].parameters["properties"]["mode"]["enum"][1], "taxi");
}

#[test]
fn flight_search_results_and_errors() {
    let db = TravelDb::builtin();
    let f = db.flights[0].clone();
    let r = run(&db, "FlightSearch", &[&f.origin, &f.destination, &f.date]);
    assert!(r.ok);
    assert!(r.text.starts_with("Flight Number"), "{}", r.text);
    assert!(r.text.contains(&f.number));
    let ToolRows::Flights(rows) = &r.rows else {
        panic!("{:?}", r.rows)
    };
    assert!(rows
        .iter()
        .all(|x| x.origin == f.origin && x.destination == f.destination && x.date == f.date));
    let r = run(
        &db,
        "FlightSearch",
        &["Port Alder", "Glenrock", "2030-01-01"],
    );
    assert_eq!(
        r.text,
        "There is no flight from Port Alder to Glenrock on 2030-01-01."
    );
    assert!(!r.ok);
    let r = run(
        &db,
        "FlightSearch",
        &["Port Alder", "Glenrock", "2024/04/05"],
    );
    assert_eq!(r.text, "'2024/04/05' is not in the format YYYY-MM-DD");
    let r = run(&db, "FlightSearch", &["Atlantis", "Glenrock", "2024-04-05"]);
    assert!(
        r.text
            .starts_with("Atlantis is not valid city in ['Port Alder', 'Brightwater'"),
        "{}",
        r.text
    );
    assert_eq!(
        run(&db, "FlightSearch", &["Port Alder", "Glenrock"]).text,
        "Illegal Flight Search. Please try again."
    );
}

#[test]
fn distance_matrix_costs_and_errors() {
    let db = TravelDb::builtin();
    let road = db.road("Port Alder", "Brightwater").expect("road").clone();
    let km: f64 = road
        .distance
        .as_deref()
        .unwrap_or("")
        .replace(" km", "")
        .replace(',', "")
        .parse()
        .expect("km");
    let r = run(
        &db,
        "GoogleDistanceMatrix",
        &["Port Alder(Aurelia)", "Brightwater", "self-driving"],
    );
    let expected = format!(
        "self-driving, from Port Alder to Brightwater, duration: {}, distance: {}, cost: {}",
        road.duration.as_deref().unwrap_or(""),
        road.distance.as_deref().unwrap_or(""),
        (km * 0.05) as i64
    );
    assert_eq!(r.text, expected);
    let ToolRows::Road(info) = &r.rows else {
        panic!()
    };
    assert_eq!(info.cost, Some((km * 0.05) as i64));
    let taxi = run(
        &db,
        "GoogleDistanceMatrix",
        &["Port Alder", "Brightwater", "taxi"],
    );
    assert!(
        taxi.text.ends_with(&format!("cost: {}", km as i64)),
        "{}",
        taxi.text
    );
    let walk = run(
        &db,
        "GoogleDistanceMatrix",
        &["Port Alder", "Brightwater", "walking"],
    );
    assert!(walk.text.ends_with("cost: None"));
    let r = run(
        &db,
        "GoogleDistanceMatrix",
        &["Port Alder", "Atlantis", "taxi"],
    );
    assert_eq!(
        r.text,
        "taxi, from Port Alder to Atlantis, no valid information."
    );
    assert_eq!(
        run(&db, "GoogleDistanceMatrix", &["A", "B"]).text,
        "Illegal GoogleDistanceMatrix. Please try again."
    );
    let sparse = sparse_db();
    assert_eq!(
        run(&sparse, "GoogleDistanceMatrix", &["Full", "Empty", "taxi"]).text,
        "No valid information."
    );
    assert_eq!(
        run(&sparse, "GoogleDistanceMatrix", &["Empty", "Full", "taxi"]).text,
        "No valid information."
    );
    assert_eq!(
        run(&sparse, "GoogleDistanceMatrix", &["Full", "Far", "taxi"]).text,
        "Illegal GoogleDistanceMatrix. Please try again."
    );
}

#[test]
fn city_searches_return_rows_of_that_city() {
    let db = TravelDb::builtin();
    let acc = run(&db, "AccommodationSearch", &["Lakemont"]);
    assert!(acc.text.starts_with("NAME") && acc.ok, "{}", acc.text);
    let ToolRows::Accommodations(rows) = &acc.rows else {
        panic!()
    };
    assert!(!rows.is_empty() && rows.iter().all(|a| a.city == "Lakemont"));
    let rest = run(&db, "RestaurantSearch", &["Lakemont"]);
    let ToolRows::Restaurants(rows) = &rest.rows else {
        panic!()
    };
    // RestaurantSearch shows pandas' index: each row's position in the file.
    let first = rest.text.lines().nth(1).unwrap_or("");
    assert!(first.starts_with(&rows[0].row.to_string()), "{first}");
    let att = run(&db, "AttractionSearch", &["Lakemont"]);
    assert!(
        matches!(&att.rows, ToolRows::Attractions(r) if r.iter().all(|a| a.city == "Lakemont"))
    );
    let sparse = sparse_db();
    assert_eq!(
        run(&sparse, "AccommodationSearch", &["Empty"]).text,
        "There is no attraction in this city."
    );
    assert_eq!(
        run(&sparse, "RestaurantSearch", &["Empty"]).text,
        "There is no restaurant in this city."
    );
    assert_eq!(
        run(&sparse, "AttractionSearch", &["Empty"]).text,
        "There is no attraction in this city."
    );
    assert_eq!(
        run(&sparse, "AttractionSearch", &["Nowhere"]).text,
        "Nowhere is not valid city in ['Full', 'Empty']."
    );
}

#[test]
fn city_search_and_invalid_actions() {
    let db = TravelDb::builtin();
    let r = run(&db, "CitySearch", &["Aurelia"]);
    assert_eq!(
        r.text,
        "['Port Alder', 'Brightwater', 'Cobalt Springs', 'Fernhill']"
    );
    assert_eq!(
        r.rows,
        ToolRows::Cities(args(&[
            "Port Alder",
            "Brightwater",
            "Cobalt Springs",
            "Fernhill"
        ]))
    );
    assert_eq!(run(&db, "CitySearch", &["Narnia"]).text, "Invalid State");
    assert_eq!(run(&db, "HotelSearch", &["Lakemont"]).text, INVALID_ACTION);
    assert_eq!(run(&db, "CitySearch", &[]).text, INVALID_ACTION);
}

#[test]
fn native_and_text_calls() {
    let db = TravelDb::builtin();
    let r = execute_json(&db, "CitySearch", r#"{"state": "Calder"}"#);
    assert_eq!(r.text, "['Juniper Flats', 'Kestrel Point', 'Lakemont']");
    let r = execute_json(
        &db,
        "FlightSearch",
        r#"{"origin": "Port Alder", "destination": "Glenrock"}"#,
    );
    assert_eq!(r.text, "Illegal Flight Search. Please try again.");
    let r = execute_json(&db, "FlightSearch", "{oops");
    assert!(
        r.text
            .starts_with("Illegal FlightSearch call: the arguments are not valid JSON"),
        "{}",
        r.text
    );
    let (call, r) = execute_text(
        &db,
        "Thought: stays.\nAction 2: AccommodationSearch[Lakemont]",
    )
    .expect("a call");
    assert_eq!(call.name, "AccommodationSearch");
    assert!(r.ok);
    // One-argument tools get everything inside the brackets, commas included.
    let (_, r) = execute_text(&db, "RestaurantSearch[Washington, D.C.]").expect("a call");
    assert!(
        r.text.starts_with("Washington, D.C. is not valid city in"),
        "{}",
        r.text
    );
    assert!(execute_text(&db, "no tool here").is_none());
}
