//! A small hand-made TravelPlanner world and helpers shared by the
//! evaluator tests (`quirks.rs`, `aggregate.rs`).
#![allow(dead_code)]

use roundtable::engine::domains::travel::*;

pub const CITIES: &str = "Alpha\tStateA\nBeta\tStateA\nGamma\tStateA\nDelta\tStateB";
pub const RESTAURANTS: &str = "Name,City,Cuisines,Average Cost,Aggregate Rating
Coco Bambu,Beta,\"Chinese, Tea\",20,4.0
Coco Bambu Grill,Beta,Italian,50,4.0
Diner One,Beta,American,10,4.0
Diner Two,Beta,French,15,4.0
Diner Three,Beta,Mexican,12,4.0
Pasta Place,Alpha,Italian,30,4.0
Gamma Bites,Gamma,Chinese,11,4.0
Gamma Cafe,Gamma,Cafe,9,4.0
Gamma Grill,Gamma,American,14,4.0
Gamma Wok,Gamma,Chinese,16,4.0";
pub const ACCOMMODATIONS: &str =
    ",NAME,room type,price,minimum nights,review rate number,house_rules,maximum occupancy,city
0,Beta Loft,Entire home/apt,100.0,2.0,4.0,No parties,3,Beta
1,Beta Room,Private room,50.0,3.0,4.0,No smoking,2,Beta
2,Beta Room Deluxe,Private room,80.0,5.0,4.0,No pets,2,Beta
3,Hidden Nook,Shared room,20.0,1.0,4.0,,1,Beta
4,Gamma House,Entire home/apt,120.0,1.0,4.0,No visitors,4,Gamma";
pub const ATTRACTIONS: &str = "Name,Latitude,Longitude,Address,Phone,Website,City
Beta Museum,1.0,2.0,1 Main St,555,https://example.org/a,Beta
Beta Park,1.0,2.0,2 Main St,555,https://example.org/b,Beta
Beta Zoo,1.0,2.0,3 Main St,555,https://example.org/c,Beta
Gamma Tower,1.0,2.0,4 Main St,555,https://example.org/d,Gamma
Gamma Lake,1.0,2.0,5 Main St,555,https://example.org/e,Gamma";
pub const FLIGHTS: &str = ",Flight Number,Price,DepTime,ArrTime,ActualElapsedTime,FlightDate,OriginCityName,DestCityName,Distance
0,F1,200,08:00,09:00,1 hours 0 minutes,2022-03-01,Alpha,Beta,500.0
1,F2,210,18:00,19:00,1 hours 0 minutes,2022-03-03,Beta,Alpha,500.0
2,F9,999,10:00,11:00,1 hours 0 minutes,2022-03-02,Gamma,Alpha,400.0
3,F9,5,10:00,11:00,1 hours 0 minutes,2022-03-02,Beta,Alpha,500.0";
pub const DISTANCES: &str = "origin,destination,cost,duration,distance
Alpha,Beta,,5 hours 1 min,\"1,001 km\"
Beta,Alpha,,5 hours 2 mins,\"1,002 km\"
Beta,Gamma,,1 hour 5 mins,85 km
Gamma,Alpha,,2 hours,170 km
Alpha,Gamma,,2 hours,170 km
Alpha,Delta,,1 day 2 hours,\"2,400 km\"
Delta,Alpha,,,";

pub fn db() -> TravelDb {
    let files: Vec<(String, String)> = [
        (
            "accommodations/clean_accommodations_2022.csv",
            ACCOMMODATIONS,
        ),
        ("attractions/attractions.csv", ATTRACTIONS),
        ("restaurants/clean_restaurant_2022.csv", RESTAURANTS),
        ("googleDistanceMatrix/distance.csv", DISTANCES),
        ("background/citySet_with_states.txt", CITIES),
        ("flights/f.csv", FLIGHTS),
    ]
    .iter()
    .map(|(p, t)| (p.to_string(), t.to_string()))
    .collect();
    TravelDb::from_files(&files).expect("mini world loads")
}

pub fn query(days: u32, dest: &str, cities: u32, people: u32) -> Query {
    Query {
        idx: 1,
        query: String::new(),
        org: "Alpha".into(),
        dest: dest.into(),
        days,
        visiting_city_number: cities,
        date: (1..=days).map(|d| format!("2022-03-0{d}")).collect(),
        people_number: people,
        local_constraint: LocalConstraint::default(),
        budget: 10_000.0,
        level: Level::Easy,
        annotated_plan: None,
    }
}

pub const FLY_IN: &str =
    "Flight Number: F1, from Alpha to Beta, Departure Time: 08:00, Arrival Time: 09:00";
pub const FLY_OUT: &str =
    "Flight Number: F2, from Beta to Alpha, Departure Time: 18:00, Arrival Time: 19:00";

/// A valid 3-day trip Alpha → Beta → Alpha (cost 667 for one person).
pub fn base_plan() -> Plan {
    Plan {
        days: vec![
            PlanDay::standard(
                1,
                "from Alpha to Beta",
                FLY_IN,
                "-",
                "-",
                "-",
                "Diner One, Beta",
                "Beta Loft, Beta",
            ),
            PlanDay::standard(
                2,
                "Beta",
                "-",
                "Diner Two, Beta",
                "Beta Museum, Beta;Beta Park, Beta;",
                "Diner Three, Beta",
                "Coco Bambu, Beta",
                "Beta Loft, Beta",
            ),
            PlanDay::standard(3, "from Beta to Alpha", FLY_OUT, "-", "-", "-", "-", "-"),
        ],
    }
}

pub fn with(mut plan: Plan, day: usize, field: Field, value: &str) -> Plan {
    plan.days[day].set(field, Cell::text(value));
    plan
}

pub fn verdict(plan: &Plan, q: &Query, check: Check) -> (Option<bool>, Option<String>) {
    let e = evaluate(&db(), q, plan);
    let v = e
        .verdict(check)
        .unwrap_or_else(|| panic!("{} did not run: {e:?}", check.key()));
    (v.pass, v.message.clone())
}

pub fn fails(plan: &Plan, q: &Query, check: Check, message: &str) {
    assert_eq!(
        verdict(plan, q, check),
        (Some(false), Some(message.to_string()))
    );
}

pub fn passes(plan: &Plan, q: &Query, check: Check) {
    let v = verdict(plan, q, check);
    assert_eq!(v.0, Some(true), "{}: {:?}", check.key(), v.1);
}
