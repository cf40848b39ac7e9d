//! Regressions of caps: a 100 KB key is echoed capped in every repair,
//! and keywords written without commas are split and capped.

use super::{repaired_replies, repairs_of, run_answering};
use crate::common::*;
use roundtable::engine::coordinators::act::contract::*;
use roundtable::engine::model::reply::RepairKind;
use roundtable::engine::run::{RunEvent, RunStatus};

#[test]
fn a_100_kb_key_is_echoed_capped() {
    let key = "ключ".repeat(25_000);
    let r = run(
        Variant::Act,
        model(move |req| match req.step.as_deref() {
            Some(STEP_EXPLORE) => {
                Some(serde_json::json!({ key.clone(): {"task": "Plan a quiet room"} }).to_string())
            }
            Some(STEP_ACQUIRE) => Some(
                serde_json::json!({ key.clone(): {"episodes": [], "knowledge": []} }).to_string(),
            ),
            _ => None,
        }),
    );
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let echoed = format!("{}…", "ключ".repeat(15));
    for step in [STEP_EXPLORE, STEP_ACQUIRE] {
        let repairs = repairs_of(&r, step);
        assert!(!repairs.is_empty(), "{step}");
        assert!(repairs.iter().any(|x| x.detail.contains(&echoed)), "{step}");
        for x in &repairs {
            assert!(
                x.detail.chars().count() < 200,
                "{step}: {} bytes",
                x.detail.len()
            );
        }
    }
    // The key is in the replies (and their streamed text), nowhere else.
    let mut seen = 0;
    for e in &r.events {
        if matches!(
            e.event,
            RunEvent::LlmResponse { .. } | RunEvent::LlmDelta { .. }
        ) {
            continue;
        }
        seen += 1;
        let json = serde_json::to_string(e).expect("json");
        assert!(
            json.len() < 50_000,
            "{} bytes in {}",
            json.len(),
            json.chars().take(300).collect::<String>()
        );
    }
    assert!(seen > 0);
}

#[test]
fn expertise_without_commas_is_split_and_capped() {
    let r = run_answering(STEP_EXPERTISE, |req| {
        if name_of(req).starts_with("Agent A,") {
            "Here are my keywords:\n- tea blending\n- water chemistry\n* caffeine\n4. evening rituals\n5. ceramics".to_string()
        } else {
            "interior design and space planning and furniture arrangement and lighting design for cozy reading nooks".to_string()
        }
    });
    assert_eq!(r.status, RunStatus::Finished, "{:?}", r.failure());
    let expertise = r.notes::<ExpertiseRecord>(STORE_EXPERTISE);
    assert_eq!(expertise.len(), 8);
    for (agent, e) in &expertise {
        assert!(!e.keywords.is_empty() && e.keywords.len() <= 4, "{agent}");
        for k in &e.keywords {
            assert!(k.chars().count() <= 40, "{agent}: {k}");
            assert!(!k.contains('\n') && !k.ends_with(':'), "{agent}: {k}");
        }
    }
    let a = expertise
        .iter()
        .find(|(agent, _)| agent == "a1")
        .map(|(_, e)| e.keywords.clone())
        .unwrap_or_default();
    assert_eq!(
        a,
        [
            "tea blending",
            "water chemistry",
            "caffeine",
            "evening rituals"
        ]
    );
    let repairs = repairs_of(&r, STEP_EXPERTISE);
    assert!(repairs
        .iter()
        .any(|x| x.kind == RepairKind::Clamped && x.detail.contains("cut to 40 characters")));
    assert!(repairs
        .iter()
        .any(|x| x.kind == RepairKind::Clamped && x.detail.contains("5 keywords cut to 4")));
    // Every one of the 8 replies was text, not JSON: each flagged once.
    assert_eq!(repaired_replies(&r, STEP_EXPERTISE), 8);
}
