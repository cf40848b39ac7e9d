//! More evaluator behaviour on the hand-made world: route and completeness
//! rules (quirks 10, 11), costs (13), house rules and room types,
//! aggregates and denominators (14), hallucinations, check names.

use crate::world::*;
use roundtable::engine::domains::travel::eval::Denominators;
use roundtable::engine::domains::travel::*;

#[test]
fn quirk_10_route_spelling_and_state_rules() {
    let q = query(3, "Beta", 1, 1);
    // "Beta (StateA)" leaves "Beta " (with its space) on every day.
    let spaced = with(
        base_plan(),
        0,
        Field::CurrentCity,
        "from Alpha to Beta (StateA)",
    );
    let spaced = with(spaced, 1, Field::CurrentCity, "Beta (StateA)");
    let spaced = with(spaced, 2, Field::CurrentCity, "from Beta (StateA) to Alpha");
    fails(
        &spaced,
        &q,
        Check::ReasonableVisitingCity,
        "Beta  is not a valid city.",
    );
    // A trailing space on one day only breaks the sequence instead.
    let p = with(base_plan(), 1, Field::CurrentCity, "Beta ");
    fails(
        &p,
        &q,
        Check::ReasonableVisitingCity,
        "The city sequence is invalid.",
    );
    let p = with(base_plan(), 1, Field::CurrentCity, "beta");
    fails(
        &p,
        &q,
        Check::ReasonableVisitingCity,
        "The city sequence is invalid.",
    );
    let p = with(
        with(base_plan(), 0, Field::CurrentCity, "from Alpha to beta"),
        1,
        Field::CurrentCity,
        "beta",
    );
    let p = with(p, 2, Field::CurrentCity, "from beta to Alpha");
    fails(
        &p,
        &q,
        Check::ReasonableVisitingCity,
        "beta is not a valid city.",
    );
    let p = with(base_plan(), 2, Field::CurrentCity, "from Beta to Gamma");
    fails(
        &p,
        &q,
        Check::ReasonableVisitingCity,
        "The trip should be a closed circle.",
    );
    let p = with(base_plan(), 0, Field::CurrentCity, "from Gamma to Beta");
    fails(
        &p,
        &q,
        Check::ReasonableVisitingCity,
        "The first day's city should be Alpha.",
    );
    // A 5-day trip: Delta is not in StateA; a one-day pass through a city is invalid.
    let q5 = query(5, "StateA", 2, 1);
    let five = |second: &str| Plan {
        days: vec![
            PlanDay::standard(1, "from Alpha to Beta", "-", "-", "-", "-", "-", "-"),
            PlanDay::standard(2, "Beta", "-", "-", "-", "-", "-", "-"),
            PlanDay::standard(
                3,
                &format!("from Beta to {second}"),
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
            ),
            PlanDay::standard(4, second, "-", "-", "-", "-", "-", "-"),
            PlanDay::standard(
                5,
                &format!("from {second} to Alpha"),
                "-",
                "-",
                "-",
                "-",
                "-",
                "-",
            ),
        ],
    };
    passes(&five("Gamma"), &q5, Check::ReasonableVisitingCity);
    fails(
        &five("Delta"),
        &q5,
        Check::ReasonableVisitingCity,
        "Delta is not in StateA.",
    );
    let pass_through = with(five("Gamma"), 3, Field::CurrentCity, "Beta");
    fails(
        &pass_through,
        &q5,
        Check::ReasonableVisitingCity,
        "The city sequence is invalid.",
    );
}

#[test]
fn quirk_11_day_and_city_counts_fail_completeness() {
    let q = query(3, "Beta", 1, 1);
    let mut short = base_plan();
    short.days.pop();
    fails(&short, &q, Check::NotAbsent, "Invalid Days");
    let p = with(base_plan(), 1, Field::CurrentCity, "Gamma");
    fails(&p, &q, Check::NotAbsent, "Invalid City Number");
    // A missing key and "-" are reported differently.
    let mut missing = base_plan();
    missing.days[1].remove(Field::Lunch);
    fails(&missing, &q, Check::NotAbsent, "No Lunch Info.");
    let dash = with(base_plan(), 1, Field::Lunch, "-");
    fails(
        &dash,
        &q,
        Check::NotAbsent,
        "No meal in day 2 is not allowed.",
    );
    let no_sights = with(base_plan(), 1, Field::Attraction, "-");
    fails(
        &no_sights,
        &q,
        Check::NotAbsent,
        "No attaction in day 2 is not allowed.",
    );
    // Hard checks are skipped when completeness fails.
    assert!(evaluate(&db(), &q, &dash).hard.is_none());
}

#[test]
fn quirk_13_costs_per_person_room_car_and_taxi() {
    let mut q = query(3, "Beta", 1, 6);
    let p = with(
        with(
            base_plan(),
            0,
            Field::Transportation,
            "Taxi, from Alpha to Beta",
        ),
        2,
        Field::Transportation,
        "Taxi, from Beta to Alpha",
    );
    // Taxis 1001 + 1002 for ceil(6/4) = 2 cars; meals 57 × 6; Beta Loft 100 × ceil(6/3) per night.
    let expected = (1001.0 + 1002.0) * 2.0 + 57.0 * 6.0 + 2.0 * 100.0 * 2.0;
    assert_eq!(evaluate(&db(), &q, &p).total_cost, Some(expected));
    let drive = with(
        with(
            base_plan(),
            0,
            Field::Transportation,
            "Self-driving, from Alpha to Beta",
        ),
        2,
        Field::Transportation,
        "Self-driving, from Beta to Alpha",
    );
    // int(1001 × 0.05) = 50 and int(1002 × 0.05) = 50, for ceil(6/5) = 2 cars.
    let expected_drive = 100.0 * 2.0 + 57.0 * 6.0 + 400.0;
    assert_eq!(evaluate(&db(), &q, &drive).total_cost, Some(expected_drive));
    // The budget check is `<=`.
    q.budget = expected_drive;
    passes(&drive, &q, Check::Cost);
    q.budget = expected_drive - 1.0;
    assert_eq!(verdict(&drive, &q, Check::Cost), (Some(false), None));
}

#[test]
fn house_rules_and_room_types() {
    let mut q = query(3, "Beta", 1, 2);
    q.local_constraint.house_rule = Some("parties".into());
    fails(
        &base_plan(),
        &q,
        Check::RoomRule,
        "The house rule should be parties.",
    );
    q.local_constraint.house_rule = Some("smoking".into());
    passes(&base_plan(), &q, Check::RoomRule);
    q.local_constraint.room_type = Some("private room".into());
    fails(
        &base_plan(),
        &q,
        Check::RoomType,
        "The room type should be private room.",
    );
    q.local_constraint.room_type = Some("not shared room".into());
    passes(&base_plan(), &q, Check::RoomType);
    assert_eq!(
        verdict(&base_plan(), &query(3, "Beta", 1, 1), Check::RoomRule),
        (None, None)
    );
}

#[test]
fn quirk_14_aggregates_and_denominators() {
    let db = db();
    let q = query(3, "Beta", 1, 1);
    let good = evaluate(&db, &q, &base_plan());
    // Fails commonsense (repeated restaurant) but passes every hard check.
    let repeated = evaluate(
        &db,
        &q,
        &with(base_plan(), 1, Field::Lunch, "Diner One, Beta"),
    );
    let none = PlanEvaluation::not_delivered("no plan");
    let items = vec![(&q, &good), (&q, &repeated), (&q, &none)];
    let s = aggregate(&items);
    assert_eq!(s.denominators, Denominators::Computed);
    assert_eq!((s.plans, s.delivered), (3, 2));
    assert_eq!((s.commonsense_passed, s.commonsense_total), (15, 24));
    assert_eq!((s.hard_passed, s.hard_total), (2, 3));
    assert_eq!(
        (
            s.commonsense_macro_passed,
            s.hard_macro_passed,
            s.final_passed
        ),
        (1, 2, 1)
    );
    assert!((s.hard_macro() - 2.0 / 3.0).abs() < 1e-12);
    assert!((s.final_rate() - 1.0 / 3.0).abs() < 1e-12);
    // 45 distinct queries, one plan each: eval.py's train denominators.
    let qs: Vec<Query> = (1..=45)
        .map(|i| Query {
            idx: i,
            ..q.clone()
        })
        .collect();
    let items: Vec<(&Query, &PlanEvaluation)> = qs.iter().map(|q| (q, &good)).collect();
    let s = aggregate(&items);
    assert_eq!(
        s.denominators,
        Denominators::OfficialSplit { split: "train" }
    );
    assert_eq!(
        (s.commonsense_total, s.hard_total, s.plans_total),
        (360, 105, 45)
    );
}

#[test]
fn hallucinations_are_listed_by_category() {
    let q = query(3, "Beta", 1, 1);
    let p = with(base_plan(), 1, Field::Breakfast, "Fake Diner, Beta");
    let p = with(
        p,
        1,
        Field::Attraction,
        "Fake Tower, Beta;Beta Park, Beta;Fake Lake, Beta;",
    );
    let p = with(
        p,
        0,
        Field::Transportation,
        "Flight Number: F404, from Alpha to Beta",
    );
    let p = with(p, 0, Field::Accommodation, "Fake Inn, Beta");
    let list = hallucinations(&db(), &q, &p);
    let counts = HallucinationCounts::of(&list);
    assert_eq!(
        (
            counts.restaurant,
            counts.attraction,
            counts.accommodation,
            counts.transportation
        ),
        (1, 2, 1, 1)
    );
    assert_eq!(counts.total(), 5);
    assert_eq!(list[0].entity, "F404");
    assert_eq!(list[0].category, HallucinationCategory::Transportation);
    assert!(hallucinations(&db(), &q, &base_plan()).is_empty());
}

#[test]
fn check_keys_and_paper_names() {
    let names: Vec<(&str, &str)> = Check::COMMONSENSE
        .into_iter()
        .chain(Check::HARD)
        .map(|c| (c.key(), c.display_name()))
        .collect();
    assert!(names.contains(&("is_valid_information_in_sandbox", "Within Sandbox")));
    assert!(names.contains(&("is_not_absent", "Complete Information")));
    assert!(names.contains(&("is_valid_accommodation", "Minimum Nights Stay")));
    assert!(names.contains(&("valid_cost", "Budget")));
    assert_eq!(names.len(), 13);
    assert_eq!(Check::from_key("valid_room_rule"), Some(Check::RoomRule));
    assert!(Check::RoomRule.is_hard() && !Check::NotAbsent.is_hard());
}
