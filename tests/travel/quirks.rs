//! The official evaluator's quirks (fixtures README, points 1–9 and 12) on
//! a small hand-made world.

use crate::world::*;
use roundtable::engine::domains::travel::*;

#[test]
fn base_plan_passes_everything_and_costs_as_computed() {
    let q = query(3, "Beta", 1, 1);
    let e = evaluate(&db(), &q, &base_plan());
    assert!(e.final_pass(), "{e:?}");
    assert_eq!(e.total_cost, Some(667.0));
    assert_eq!(db().stats.accommodations.dropped, 1);
}

#[test]
fn quirk_1_last_attraction_without_semicolon_is_never_checked() {
    let q = query(3, "Beta", 1, 1);
    let p = with(
        base_plan(),
        1,
        Field::Attraction,
        "Beta Museum, Beta;Made Up Place, Beta",
    );
    passes(&p, &q, Check::InformationInSandbox);
    let p = with(
        base_plan(),
        1,
        Field::Attraction,
        "Beta Museum, Beta;Made Up Place, Beta;",
    );
    fails(
        &p,
        &q,
        Check::InformationInSandbox,
        "The attraction Made Up Place, Beta in day 2 is invalid in the sandbox.",
    );
    let p = with(base_plan(), 2, Field::Attraction, "Beta Museum, Beta");
    passes(&p, &q, Check::ValidAttractions);
    let p = with(base_plan(), 2, Field::Attraction, "Beta Museum, Beta;");
    fails(
        &p,
        &q,
        Check::ValidAttractions,
        "The attraction 'Beta Museum, Beta' in day 3 is repeated.",
    );
}

#[test]
fn quirk_2_non_travel_days_compare_characters() {
    let q = query(3, "Beta", 1, 1);
    // A Gamma restaurant on a Beta day passes: it contains a letter of "Beta".
    passes(
        &with(base_plan(), 1, Field::Lunch, "Gamma Bites, Gamma"),
        &q,
        Check::InformationInCurrentCity,
    );
    // The accommodation only needs the last letter, 'a'.
    passes(
        &with(base_plan(), 1, Field::Accommodation, "Gamma House, Gamma"),
        &q,
        Check::InformationInCurrentCity,
    );
    // On travel days the city names are matched as substrings.
    fails(
        &with(base_plan(), 0, Field::Dinner, "Gamma Bites, Gamma"),
        &q,
        Check::InformationInCurrentCity,
        "The dinner in day 1 is invalid city choice.",
    );
}

#[test]
fn quirk_3_existence_is_a_name_substring_and_an_exact_city() {
    let q = query(3, "Beta", 1, 1);
    passes(
        &with(base_plan(), 1, Field::Dinner, "Coco, Beta"),
        &q,
        Check::InformationInSandbox,
    );
    passes(
        &with(base_plan(), 1, Field::Dinner, "Coco Bambu ,  Beta "),
        &q,
        Check::InformationInSandbox,
    );
    fails(
        &with(base_plan(), 1, Field::Dinner, "Coco Bambu, beta"),
        &q,
        Check::InformationInSandbox,
        "The dinner in day 2 is invalid in the sandbox.",
    );
    passes(
        &with(base_plan(), 1, Field::Dinner, "Coco Bambu, Beta(StateA)"),
        &q,
        Check::InformationInSandbox,
    );
}

#[test]
fn quirk_4_flights_ignore_the_date_and_cost_by_number() {
    let q = query(3, "Beta", 1, 1);
    // F9 Beta → Alpha exists (another date); its cost is the first F9 row's (999).
    let p = with(
        base_plan(),
        2,
        Field::Transportation,
        "Flight Number: F9, from Beta to Alpha, Departure Time: 10:00",
    );
    let e = evaluate(&db(), &q, &p);
    assert_eq!(
        e.verdict(Check::InformationInSandbox).map(|v| v.pass),
        Some(Some(true))
    );
    assert_eq!(e.total_cost, Some(667.0 - 210.0 + 999.0));
    let p = with(
        base_plan(),
        2,
        Field::Transportation,
        "Flight Number: F1, from Beta to Alpha",
    );
    fails(
        &p,
        &q,
        Check::InformationInSandbox,
        "The flight number in day 3 is invalid in the sandbox.",
    );
}

#[test]
fn quirk_5_a_meal_in_the_origin_skips_the_rest_of_the_day() {
    let mut q = query(3, "Beta", 1, 1);
    q.local_constraint.cuisine = Some(vec!["Chinese".into(), "Italian".into()]);
    let p = with(base_plan(), 1, Field::Lunch, "Coco Bambu Grill, Beta");
    passes(&p, &q, Check::Cuisine);
    // Breakfast in Alpha (the origin): lunch and dinner of that day are not counted.
    let p = with(p, 1, Field::Breakfast, "Pasta Place, Alpha");
    fails(
        &p,
        &q,
        Check::Cuisine,
        "The cuisine Chinese is not satisfied.",
    );
}

#[test]
fn quirk_6_dropped_rows_and_multi_day_roads_do_not_exist() {
    let q = query(3, "Beta", 1, 1);
    let p = with(base_plan(), 0, Field::Accommodation, "Hidden Nook, Beta");
    fails(
        &p,
        &q,
        Check::InformationInSandbox,
        "The accommodation in day 1 is invalid in the sandbox.",
    );
    assert!(!execute(&db(), "AccommodationSearch", &["Beta".into()])
        .text
        .contains("Hidden Nook"));
    let mut q5 = query(3, "Delta", 1, 1);
    q5.dest = "Delta".into();
    let p = Plan {
        days: vec![
            PlanDay::standard(
                1,
                "from Alpha to Delta",
                "Self-driving, from Alpha to Delta",
                "-",
                "-",
                "-",
                "-",
                "-",
            ),
            PlanDay::standard(2, "Delta", "-", "-", "-", "-", "-", "-"),
            PlanDay::standard(
                3,
                "from Delta to Alpha",
                "Taxi, from Delta to Alpha",
                "-",
                "-",
                "-",
                "-",
                "-",
            ),
        ],
    };
    fails(
        &p,
        &q5,
        Check::InformationInSandbox,
        "The self-driving in day 1 is invalid in the sandbox.",
    );
    let p = with(p, 0, Field::Transportation, "Taxi, from Alpha to Gamma");
    fails(
        &p,
        &q5,
        Check::InformationInSandbox,
        "The taxi in day 3 is invalid in the sandbox.",
    );
}

#[test]
fn quirk_7_minimum_nights_only_for_a_single_match_and_exact_runs() {
    let q = query(3, "Beta", 1, 1);
    let deluxe = "Beta Room Deluxe, Beta";
    let p = with(
        with(base_plan(), 0, Field::Accommodation, deluxe),
        1,
        Field::Accommodation,
        deluxe,
    );
    fails(
        &p,
        &q,
        Check::ValidAccommodation,
        "The accommodation Beta Room Deluxe, Beta do not obey the minumum nights rule.",
    );
    // "Beta Room" (minimum 3) also matches "Beta Room Deluxe": never checked.
    let room = "Beta Room, Beta";
    let p = with(
        with(base_plan(), 0, Field::Accommodation, room),
        1,
        Field::Accommodation,
        room,
    );
    passes(&p, &q, Check::ValidAccommodation);
    // A spacing change splits the stay into two one-night stays.
    let p = with(base_plan(), 1, Field::Accommodation, "Beta Loft,  Beta");
    let e = evaluate(&db(), &q, &p);
    let v = e.verdict(Check::ValidAccommodation).expect("ran");
    assert_eq!(
        v.message.as_deref(),
        Some("The accommodation Beta Loft, Beta do not obey the minumum nights rule.")
    );
    assert_eq!(
        v.cells,
        vec![CellRef {
            day: 0,
            field: Field::Accommodation
        }]
    );
}

#[test]
fn quirk_8_restaurant_repetition_compares_raw_strings() {
    let q = query(3, "Beta", 1, 1);
    passes(
        &with(base_plan(), 1, Field::Lunch, "Diner One,Beta"),
        &q,
        Check::ValidRestaurants,
    );
    let p = with(base_plan(), 1, Field::Lunch, "Diner One, Beta");
    fails(
        &p,
        &q,
        Check::ValidRestaurants,
        "The restaurant in day 2 lunch Diner One, Beta is repeated.",
    );
    let e = evaluate(&db(), &q, &p);
    let cells = &e.verdict(Check::ValidRestaurants).expect("ran").cells;
    assert_eq!(
        cells,
        &vec![
            CellRef {
                day: 0,
                field: Field::Dinner
            },
            CellRef {
                day: 1,
                field: Field::Lunch
            }
        ]
    );
    let p = with(base_plan(), 1, Field::Dinner, "Diner Two, Beta");
    fails(
        &p,
        &q,
        Check::ValidRestaurants,
        "The restaurant in day 2 dinner is repeated.",
    );
}

#[test]
fn quirk_9_transport_conflicts_and_case_sensitive_no_flight() {
    let q = query(3, "Beta", 1, 1);
    passes(
        &with(
            base_plan(),
            2,
            Field::Transportation,
            "Taxi, from Beta to Alpha",
        ),
        &q,
        Check::ValidTransportation,
    );
    fails(
        &with(
            base_plan(),
            2,
            Field::Transportation,
            "Self-driving, from Beta to Alpha",
        ),
        &q,
        Check::ValidTransportation,
        "The transportation is conflicting.",
    );
    let taxi_drive = with(
        with(
            base_plan(),
            0,
            Field::Transportation,
            "Taxi, from Alpha to Beta",
        ),
        2,
        Field::Transportation,
        "Self-driving, from Beta to Alpha",
    );
    fails(
        &taxi_drive,
        &q,
        Check::ValidTransportation,
        "The transportation is conflicting.",
    );
    // "taxi" is tried first: a self-driving entry mentioning a taxi counts as a taxi.
    let p = with(
        base_plan(),
        2,
        Field::Transportation,
        "Self-driving (taxi), from Beta to Alpha",
    );
    passes(&p, &q, Check::ValidTransportation);
    let mut q = query(3, "Beta", 1, 1);
    q.local_constraint.transportation = Some("no flight".into());
    fails(
        &base_plan(),
        &q,
        Check::HardTransportation,
        "The transportation should not be no flight.",
    );
    let lower = "flight number: F1, from Alpha to Beta";
    let p = with(base_plan(), 0, Field::Transportation, lower);
    let e = evaluate(&db(), &q, &p);
    // Lower case "flight number" without "Flight Number: " is where Python raises.
    let sandbox = e.verdict(Check::InformationInSandbox).expect("ran");
    assert!(
        sandbox.message.as_deref().unwrap_or("").contains("raises"),
        "{sandbox:?}"
    );
}
