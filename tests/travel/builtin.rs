//! The built-in TravelPlanner world: it loads, its reference plans pass
//! every check, and the rule-based planner solves every query within budget.

use roundtable::engine::domains::travel::builtin::builtin_queries;
use roundtable::engine::domains::travel::greedy::solve;
use roundtable::engine::domains::travel::{
    aggregate, evaluate, hallucinations, Check, Level, Plan, PlanEvaluation, Query, TravelDb,
};

fn assert_all_pass(q: &Query, e: &PlanEvaluation, what: &str) {
    assert!(e.delivered(), "query {} {what}: not delivered", q.idx);
    assert!(
        e.hard.is_some(),
        "query {} {what}: hard checks skipped: {:?}",
        q.idx,
        e.commonsense
    );
    for check in Check::COMMONSENSE.into_iter().chain(Check::HARD) {
        let v = e.verdict(check).expect("every check reports");
        assert_ne!(
            v.pass,
            Some(false),
            "query {} {what}: {} failed: {:?}",
            q.idx,
            check.key(),
            v.message
        );
    }
    assert!(e.final_pass());
}

#[test]
fn builtin_world_loads_instantly_and_is_complete() {
    let t = std::time::Instant::now();
    let db = TravelDb::builtin();
    assert!(t.elapsed().as_millis() < 200, "took {:?}", t.elapsed());
    assert_eq!(db.states().count(), 3);
    assert_eq!(db.cities.len(), 10);
    assert!(db.restaurants.len() >= 80 && db.accommodations.len() >= 60);
    assert!(!db.attractions.is_empty() && !db.flights.is_empty() && !db.roads.is_empty());
    assert_eq!(db.stats.accommodations.dropped, 0);
}

#[test]
fn builtin_queries_cover_every_level_with_constraints() {
    let qs = builtin_queries();
    assert_eq!(qs.len(), 12);
    for level in [Level::Easy, Level::Medium, Level::Hard] {
        assert_eq!(qs.iter().filter(|q| q.level == level).count(), 4);
    }
    for q in &qs {
        let n = q.local_constraint.count();
        match q.level {
            Level::Easy => assert!(n == 0 && q.people_number == 1),
            Level::Medium => assert_eq!(n, 1),
            Level::Hard => assert_eq!(n, 3),
        }
        assert_eq!(q.date.len(), q.days as usize);
        assert!(q.annotated_plan.is_some());
    }
    assert!(qs.iter().any(|q| q.days == 5) && qs.iter().any(|q| q.days == 7));
}

#[test]
fn builtin_reference_plans_pass_every_check() {
    let db = TravelDb::builtin();
    let qs = builtin_queries();
    let evals: Vec<PlanEvaluation> = qs
        .iter()
        .map(|q| {
            let plan = q.annotated_plan.as_ref().expect("reference plan");
            let e = evaluate(&db, q, plan);
            assert_all_pass(q, &e, "reference plan");
            assert!(hallucinations(&db, q, plan).is_empty());
            e
        })
        .collect();
    let items: Vec<(&Query, &PlanEvaluation)> = qs.iter().zip(&evals).collect();
    let s = aggregate(&items);
    assert_eq!(s.final_passed, 12);
    assert_eq!(s.commonsense_total, 96);
    assert_eq!(s.hard_total, 12 + 4 + 12);
    assert_eq!(s.hard_passed, s.hard_total);
}

#[test]
fn rule_based_planner_solves_every_builtin_query() {
    let db = TravelDb::builtin();
    for q in builtin_queries() {
        let g = solve(&db, &q).unwrap_or_else(|e| panic!("query {}: {e}", q.idx));
        let e = evaluate(&db, &q, &g.plan);
        assert_all_pass(&q, &e, "greedy plan");
        let cost = e.total_cost.expect("cost computed");
        assert!(
            (cost - g.estimated_cost).abs() < 1e-6,
            "query {}: {cost} vs {}",
            q.idx,
            g.estimated_cost
        );
        assert!(g.within_budget && cost <= q.budget);
        // The rules pick the cheapest options, so they never cost more than the reference.
        let reference = evaluate(&db, &q, q.annotated_plan.as_ref().expect("plan"));
        assert!(
            cost <= reference.total_cost.expect("reference cost") + 1e-6,
            "query {}",
            q.idx
        );
    }
}

#[test]
fn planner_explains_unsolvable_queries() {
    let db = TravelDb::builtin();
    let mut q = builtin_queries().remove(0);
    q.days = 4;
    assert!(solve(&db, &q).unwrap_err().contains("2n+1"));
    let mut q = builtin_queries().remove(0);
    q.dest = "Atlantis".into();
    assert!(solve(&db, &q).unwrap_err().contains("Atlantis"));
    let mut q = builtin_queries().remove(4);
    q.local_constraint.cuisine = Some(vec!["Klingon".into()]);
    assert!(solve(&db, &q).unwrap_err().contains("Klingon"));
    assert!(Plan::default().is_empty());
}
