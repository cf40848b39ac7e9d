//! The demo team's break time: the member reflects and picks the term it
//! knows only by name, asks one deeper question after the first answer,
//! and the expert answers with the term's definition, then its tip.

use super::glossary::{self, Term};
use super::request::*;
use super::text::*;
use super::{name_of, Me};
use crate::engine::coordinators::act::contract::*;
use serde_json::json;

/// The term to deepen: the glossary term of its task's field most related
/// to its task (its current subject counts twice) that its knowledge does
/// not define yet (ties: the team's task, then glossary order); None when
/// nothing relates clearly.
pub fn to_deepen(me: &Me, team_task: &str) -> Option<&'static Term> {
    let own = me.task_words();
    let subject = words(&me.current);
    let team = words(team_task);
    let field = glossary::field_of(&own.join(" "));
    glossary::TERMS
        .iter()
        .enumerate()
        .filter(|(_, t)| Some(t.field) == field && !me.holds(t))
        .map(|(i, t)| {
            let mine = 2 * glossary::relatedness(t, &subject) + glossary::relatedness(t, &own);
            (mine, glossary::relatedness(t, &team), i, t)
        })
        .filter(|x| x.0 >= 2)
        .max_by(|a, b| a.0.cmp(&b.0).then(a.1.cmp(&b.1)).then(b.2.cmp(&a.2)))
        .map(|x| x.3)
}

/// The agent's request, short, for a question.
fn short_subject(me: &Me) -> String {
    bare(&clip(&decapitalise(bare(me.base_subject())), 14)).to_string()
}

/// act.break.reflect: whether its part reached the team's task, and the
/// term it knows only by name.
pub fn reflect(text: &str) -> String {
    let me = Me::read(text);
    let team = sec(text, H_TEAM_TASK);
    let term = to_deepen(&me, team);
    let deepen = term
        .map(|t| t.term.to_string())
        .or_else(|| me.expertise.first().cloned())
        .or_else(|| me.keywords().first().cloned())
        .unwrap_or_else(|| "my task".into());
    let team_words = words(team);
    let heard = me.keywords().into_iter().find(|w| team_words.contains(w));
    let reflection = match heard {
        Some(w) => format!("My part ({w}) made it into the team's task"),
        None => "My part barely shows in the team's task".to_string(),
    };
    let lack = if term.is_some() {
        format!("I know {deepen} only by name, not how to use it well.")
    } else {
        format!("I lack depth on {deepen}.")
    };
    json!({
        "reflection": format!("{reflection}. {lack}"),
        "deepen": deepen,
        "questions": [format!("What should I know about {deepen} for this request: {}?", short_subject(&me))],
    })
    .to_string()
}

/// act.break.followup: one deeper question after the first answer, then
/// done.
pub fn followup(text: &str) -> String {
    let me = Me::read(text);
    let deepen = first_line(sec(text, H_DEEPEN));
    let conversation = utterances(
        last_sec(text, H_CONVERSATION),
        std::slice::from_ref(&me.name),
    );
    let asked = conversation.iter().filter(|(w, _)| *w == me.name).count();
    if asked <= 1 {
        json!({"question": format!("How should I put {deepen} into practice here, step by step?")})
            .to_string()
    } else {
        json!({ "done": true }).to_string()
    }
}

/// act.break.answer: the expert's definition, then its practical tip.
pub fn expert_answer(text: &str) -> String {
    let name = name_of(first_line(sec(text, H_NAME)));
    let topic = first_line(sec(text, H_INITIAL)).to_string();
    let expertise: Vec<String> = sec(text, H_EXPERTISE)
        .split(", ")
        .map(|k| k.trim().to_string())
        .filter(|k| !k.is_empty())
        .collect();
    let conversation = utterances(last_sec(text, H_CONVERSATION), std::slice::from_ref(&name));
    let given = conversation.iter().filter(|(w, _)| *w == name).count();
    let term =
        glossary::find(&topic).or_else(|| glossary::find(name.trim_start_matches("Expert on ")));
    match (term, given) {
        (Some(t), 0) => t.definition.to_string(),
        (Some(t), 1) => t.tip.to_string(),
        (Some(t), _) => format!("To sum up: {} {}", t.definition, t.tip),
        (None, 0) => {
            let kws: Vec<String> = expertise
                .into_iter()
                .filter(|k| *k != topic)
                .take(2)
                .collect();
            let topic = if topic.is_empty() {
                "This topic".to_string()
            } else {
                capitalise(&topic)
            };
            if kws.is_empty() {
                format!("{topic} is a question of knowing your audience and starting small.")
            } else {
                format!(
                    "{topic} is the part of the work where {} matter most.",
                    list(&kws)
                )
            }
        }
        (None, _) => {
            "In practice, start small, try it with a few people, and keep what works.".into()
        }
    }
}
