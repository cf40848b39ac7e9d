//! Every variant removes what it names: no request of a removed step, and
//! the phases the paper's Table 6 keeps.

use super::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::run::RunStatus;

#[test]
fn each_variant_sends_no_request_of_what_it_removes() {
    let has = |r: &Run, prefix: &str| r.steps().iter().any(|s| s.starts_with(prefix));
    for v in Variant::ALL {
        let r = run(v, model(|_| None));
        assert_eq!(
            r.status,
            RunStatus::Finished,
            "{}: {:?}",
            v.id(),
            r.failure()
        );
        let f = v.features();
        assert_eq!(has(&r, "act.team."), f.team_meeting, "{}", v.id());
        assert_eq!(has(&r, "act.break."), f.break_time, "{}", v.id());
        assert_eq!(has(&r, STEP_EXPLORE), f.exploration, "{}", v.id());
        assert_eq!(has(&r, STEP_ACQUIRE), f.knowledge, "{}", v.id());
        assert_eq!(has(&r, "act.single."), v.is_single(), "{}", v.id());
        assert_eq!(has(&r, STEP_PROD_OPINION), !v.is_single(), "{}", v.id());
        let phases = r.phases();
        assert_eq!(
            phases.contains(&PHASE_TEAM.to_string()),
            f.team_meeting,
            "{}",
            v.id()
        );
        assert_eq!(
            phases.contains(&PHASE_BREAK.to_string()),
            f.break_time,
            "{}",
            v.id()
        );
        assert_eq!(phases.last().map(String::as_str), Some(PHASE_EVALUATION));
        assert!(r.score("rouge1").is_some(), "{}", v.id());
        if !v.is_single() {
            let blocks: Vec<String> = r
                .asked(STEP_PROD_OPINION)
                .into_iter()
                .map(|(_, t)| t)
                .collect();
            let keywords_shown = blocks.iter().any(|t| t.contains("— keywords: alpha, beta"));
            assert_eq!(keywords_shown, f.knowledge && f.keywords, "{}", v.id());
            assert_eq!(
                blocks.iter().any(|t| t.contains("NOTE-BY")),
                f.knowledge,
                "{}",
                v.id()
            );
        }
    }
    // − team meeting: production sees G₀ (the tasks side by side).
    let r = run(Variant::NoTeamMeeting, model(|_| None));
    for (_, text) in r.asked(STEP_PROD_OPINION) {
        let g = section(&text, H_TEAM_TASK).unwrap_or("");
        assert!(
            g.contains("Pick the teas") && g.contains("Plan the events") && !g.contains("FUSED")
        );
    }
    // Self-refine: a draft, its feedback, a refined version.
    let r = run(Variant::SelfRefine, model(|_| None));
    assert_eq!(
        r.steps(),
        [STEP_STANDARD, STEP_SELF_FEEDBACK, STEP_SELF_REFINE,]
    );
    let r = run(Variant::Cot, model(|_| None));
    assert_eq!(
        r.result().output,
        "a story.",
        "the text after \"Final answer:\""
    );
}
