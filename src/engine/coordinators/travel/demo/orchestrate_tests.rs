//! Tests of the orchestrator's decisions in the demo model: who acts next, the
//! review of what is posted, and the instructions (`orchestrate`).

use super::*;
use crate::engine::coordinators::travel::contract::{format_conversation, Leg, Place, Stay};

fn facts(cities: u32, budget: f64) -> TripFacts {
    let days = 2 * cities + 1;
    TripFacts {
        org: "A".into(),
        dest: if cities > 1 { "S".into() } else { "B".into() },
        days,
        visiting_city_number: cities,
        dates: (1..=days).map(|d| format!("2024-01-{d:02}")).collect(),
        people_number: 1,
        budget,
        house_rule: None,
        cuisine: None,
        room_type: None,
        transportation: None,
    }
}

fn post(id: &str, text: &str, c: &ExpertChoices) -> (String, String, String) {
    (
        id.into(),
        id.into(),
        super::super::post_with_choices(text, c),
    )
}

fn route(cities: &[&str], cost: f64) -> ExpertChoices {
    let mut seq = vec!["A"];
    seq.extend(cities);
    seq.push("A");
    ExpertChoices {
        route: cities.iter().map(|c| c.to_string()).collect(),
        legs: seq
            .windows(2)
            .enumerate()
            .map(|(i, w)| Leg {
                day: 1 + 2 * i as u32,
                from: w[0].into(),
                to: w[1].into(),
                text: format!("Taxi, from {} to {}", w[0], w[1]),
                cost: 1.0,
            })
            .collect(),
        estimated_cost: Some(cost),
        ..ExpertChoices::default()
    }
}

fn stays(cities: &[&str], problem: Option<&str>, cost: f64) -> ExpertChoices {
    ExpertChoices {
        stays: cities
            .iter()
            .map(|c| Stay {
                city: c.to_string(),
                name: format!("Inn {c}"),
                nights: 2,
                cost: 1.0,
            })
            .collect(),
        problem: problem.map(str::to_string),
        estimated_cost: Some(cost),
        ..ExpertChoices::default()
    }
}

fn places(cities: &[&str]) -> Vec<Place> {
    cities
        .iter()
        .map(|c| Place {
            city: c.to_string(),
            name: format!("P {c}"),
            cost: Some(1.0),
            cuisines: None,
        })
        .collect()
}

fn decide_on(f: &TripFacts, posts: &[(String, String, String)]) -> Decision {
    decide(f, &Team::read(&format_conversation(posts)))
}

#[test]
fn the_team_order_then_plan() {
    let f = facts(1, 1000.0);
    assert_eq!(decide_on(&f, &[]).next, TRANSPORTATION);
    let mut posts = vec![post(TRANSPORTATION, "Route.", &route(&["B"], 10.0))];
    assert_eq!(decide_on(&f, &posts).next, HOTEL);
    posts.push(post(HOTEL, "Stay.", &stays(&["B"], None, 10.0)));
    let restaurants = ExpertChoices {
        restaurants: places(&["B", "B", "B"]),
        ..ExpertChoices::default()
    };
    posts.push(post(RESTAURANT, "Eat.", &restaurants));
    let d = decide_on(&f, &posts);
    assert_eq!(
        (d.next.as_str(), d.conflicts.as_str()),
        (ATTRACTION, "none")
    );
    let sights = ExpertChoices {
        attractions: places(&["B"]),
        ..ExpertChoices::default()
    };
    posts.push(post(ATTRACTION, "See.", &sights));
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, PLAN);
    assert!(d.done.contains("Inn B") && d.missing == "nothing", "{d:?}");
    // Over budget on a one-city trip: noted, but nothing to send back.
    let d = decide_on(&facts(1, 5.0), &posts);
    assert_eq!(d.next, PLAN);
    assert!(d.conflicts.contains("over the budget"), "{d:?}");
}

#[test]
fn a_city_without_a_stay_goes_back_to_transportation_then_the_hotel_redoes() {
    let f = facts(2, 1000.0);
    let mut posts = vec![
        post(TRANSPORTATION, "Route.", &route(&["B", "C"], 10.0)),
        post(
            HOTEL,
            "Stays.",
            &stays(
                &["B"],
                Some("no listing in C meets every requirement for 2 nights"),
                5.0,
            ),
        ),
    ];
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, TRANSPORTATION, "{d:?}");
    assert!(d.instruction.contains("(avoid: C)"), "{d:?}");
    posts.push(post(
        TRANSPORTATION,
        &format!("{LEFT_OUT_MARK}C.\n\nRoute."),
        &route(&["B", "D"], 10.0),
    ));
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, HOTEL, "{d:?}");
    assert!(
        d.instruction.contains("The route changed") && d.instruction.contains("D"),
        "{d:?}"
    );
    // If D fails too, a third route would need two more revisits (four
    // in all): over the bound, so the team moves on.
    posts.push(post(
        HOTEL,
        "Stays.",
        &stays(&["B"], Some("no listing in D meets every requirement"), 5.0),
    ));
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, RESTAURANT, "{d:?}");
    assert!(d.conflicts.contains("no listing in D"), "{d:?}");
    // Cities left out before stay left out.
    let posts = vec![
        post(
            TRANSPORTATION,
            &format!("{LEFT_OUT_MARK}C.\n\nRoute."),
            &route(&["B", "D"], 10.0),
        ),
        post(
            HOTEL,
            "Stays.",
            &stays(&["B"], Some("no listing in D meets every requirement"), 5.0),
        ),
    ];
    assert!(decide_on(&f, &posts).instruction.contains("(avoid: C, D)"));
}

#[test]
fn unreadable_parts_are_revisited_and_over_budget_asks_for_a_cheaper_route() {
    let f = facts(2, 100.0);
    let mut posts = vec![(
        TRANSPORTATION.to_string(),
        "x".to_string(),
        "No block here.".to_string(),
    )];
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, TRANSPORTATION);
    assert!(d.conflicts.contains("no readable choices"), "{d:?}");
    posts[0] = post(TRANSPORTATION, "Route.", &route(&["B", "C"], 80.0));
    posts.push(post(HOTEL, "Stays.", &stays(&["B", "C"], None, 60.0)));
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, TRANSPORTATION, "{d:?}");
    assert!(
        d.instruction.contains(CHEAPER_MARK) && d.instruction.contains("$40"),
        "{d:?}"
    );
    // Once the routes were compared, the cost conflict stays noted only.
    posts.push(post(
        TRANSPORTATION,
        &format!("{COMPARED_MARK} and kept the cheapest one.\n\nRoute."),
        &route(&["B", "C"], 80.0),
    ));
    let d = decide_on(&f, &posts);
    assert_eq!(d.next, RESTAURANT, "{d:?}");
    assert!(d.conflicts.contains("over the budget"), "{d:?}");
}
