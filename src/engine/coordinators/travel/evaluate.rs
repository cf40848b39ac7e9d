//! Scoring a run with the TravelPlanner evaluator: delivery, every
//! commonsense and hard verdict (with the plan cells it concerns), revisits
//! per expert, hallucinated entities by category, recorded as events.

use super::contract::*;
use super::world::{Delivery, World};
use crate::engine::domains::travel::{
    evaluate, hallucinations, Check, HallucinationCategory, Plan, TravelDb, Verdict,
};
use crate::engine::run::{RunCtx, RunEvent};

fn category(c: HallucinationCategory) -> &'static str {
    match c {
        HallucinationCategory::Restaurant => "restaurant",
        HallucinationCategory::Attraction => "attraction",
        HallucinationCategory::Accommodation => "accommodation",
        HallucinationCategory::Transportation => "transportation",
    }
}

pub fn record(
    ctx: &RunCtx,
    world: &World,
    db: &TravelDb,
    variant: Variant,
    outcome: &Delivery,
) -> RunEvaluation {
    let empty = Plan::default();
    let plan = outcome.as_ref().unwrap_or(&empty);
    let eval = evaluate(db, &world.query, plan);
    let verdicts = |list: &[(Check, Verdict)]| {
        list.iter()
            .map(|(check, v)| VerdictRecord {
                key: check.key().into(),
                name: check.display_name().into(),
                pass: v.pass,
                message: v.message.clone(),
                cells: v
                    .cells
                    .iter()
                    .map(|c| (c.day, c.field.key().to_string()))
                    .collect(),
            })
            .collect::<Vec<_>>()
    };
    let delivered = outcome.is_ok() && eval.not_delivered.is_none();
    let commonsense = eval
        .commonsense
        .as_deref()
        .map(verdicts)
        .unwrap_or_default();
    let hard = eval.hard.as_deref().map(verdicts).unwrap_or_default();
    let all_pass = |v: &[VerdictRecord]| !v.is_empty() && v.iter().all(|x| x.pass != Some(false));
    let commonsense_pass = delivered && all_pass(&commonsense);
    let hard_pass = delivered && all_pass(&hard);
    let halluc = if delivered {
        hallucinations(db, &world.query, plan)
            .into_iter()
            .map(|h| HallucinationRecord {
                category: category(h.category).into(),
                entity: h.entity,
                day: Some(h.day),
            })
            .collect()
    } else {
        Vec::new()
    };
    let result = RunEvaluation {
        variant,
        query_idx: world.query.idx,
        level: world.query.level.as_str().into(),
        delivered,
        not_delivered: outcome
            .as_ref()
            .err()
            .map(|e| e.reason.clone())
            .or(eval.not_delivered.clone()),
        plan: outcome.as_ref().ok().map(Plan::to_json),
        commonsense,
        hard,
        commonsense_pass,
        hard_pass,
        final_pass: commonsense_pass && hard_pass,
        revisits: EXPERTS
            .iter()
            .map(|e| (e.to_string(), world.revisits.get(*e).copied().unwrap_or(0)))
            .collect(),
        hallucinations: halluc,
        total_cost: eval.total_cost,
        steps: world.steps,
    };
    ctx.note(EVALUATOR, STORE_EVALUATION, None, &result);
    let score = |name: &str, ok: bool| {
        ctx.emit(RunEvent::ScoreComputed {
            name: name.into(),
            value: if ok { 1.0 } else { 0.0 },
            agent: None,
            detail: serde_json::Value::Null,
        });
    };
    score("delivered", result.delivered);
    score("commonsense_pass", result.commonsense_pass);
    score("hard_pass", result.hard_pass);
    score("final_pass", result.final_pass);
    result
}
