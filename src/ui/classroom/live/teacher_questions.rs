//! The questions a live class is asked: a lesson's, when its step is
//! reached (revealed once the teacher's lesson shows the answer), and a
//! run's predict-next questions at the replay position, which the teacher
//! picks and reveals.

use super::state::{class_state, send, ClassState};
use super::teacher::with;
use crate::engine::coordinators::question_roles;
use crate::engine::lesson::{questions, Bundle};
use crate::engine::live::protocol::{Question, Up};
use crate::engine::live::show;
use crate::ui::state::AppState;
use leptos::prelude::*;

/// A question asked about a run (not a lesson's): its answer, explanation
/// and the number of events that show it.
#[derive(Clone, Debug)]
pub(super) struct RunQuestion {
    id: String,
    answer: usize,
    explain: String,
    reveal: usize,
}

/// A lesson's question goes to the class when its step is reached, and
/// its answer once the teacher's lesson shows it.
pub(super) fn lesson_question(app: AppState, s: ClassState, b: &Bundle, step: usize) {
    let Some((q, answer, explain)) = show::lesson_question(b, step) else {
        return;
    };
    let asked = with(|t| t.kept.question.as_ref().map(|q| q.id.clone())).flatten();
    let done_before = with(|t| t.revealed_ids.contains(&q.id)).unwrap_or(false);
    if asked.as_deref() != Some(q.id.as_str()) {
        if done_before {
            // Back at a question the class has answered: not asked again.
            return;
        }
        ask(s, q.clone());
    }
    let answered_here = app.lesson.with(|l| {
        l.as_ref()
            .and_then(|l| l.answered)
            .is_some_and(|(st, _)| st == step)
    });
    let revealed =
        with(|t| t.kept.revealed.as_ref().is_some_and(|r| r.id == q.id)).unwrap_or(false);
    if answered_here && !revealed {
        send(&Up::Reveal {
            id: q.id,
            answer,
            explain: (!explain.is_empty()).then_some(explain),
        });
    }
}

fn ask(s: ClassState, q: Question) {
    if send(&Up::Ask {
        question: q.clone(),
    }) {
        with(|t| {
            t.kept.question = Some(q.clone());
            t.kept.answers.clear();
            t.kept.revealed = None;
        });
        s.question.set(Some(q));
        s.revealed.set(None);
        s.tally.set(None);
    }
}

/// The questions the class can be asked at the run's replay position
/// (what the run does next, which the class has not seen yet).
pub fn run_questions(app: AppState) -> Vec<crate::engine::lesson::Question> {
    let at = app.position();
    app.events.with(|events| {
        let roles = app
            .shown
            .with(|s| s.as_ref().map(|s| question_roles(&s.config.coordinator)))
            .unwrap_or_default();
        questions::at(events, &roles, 0, at)
    })
}

/// Asks the class one of [`run_questions`].
pub fn ask_run_question(q: crate::engine::lesson::Question) {
    let s = class_state();
    let id = format!("run-{}-{}", q.at, q.prompt.len());
    with(|t| {
        t.run_question = Some(RunQuestion {
            id: id.clone(),
            answer: q.answer,
            explain: q.explain.clone(),
            reveal: q.reveal,
        })
    });
    ask(
        s,
        Question {
            id,
            prompt: q.prompt,
            choices: q.choices,
        },
    );
}

/// Reveals the open question: a lesson's moves its step on to the answer
/// (the lesson's own reveal), a run's moves the replay to where it shows.
pub fn reveal(app: AppState) {
    let s = class_state();
    let Some(q) = s.question.get_untracked() else {
        return;
    };
    if let Some(step) = show::step_of(&q.id) {
        app.lesson.update(|l| {
            if let Some(l) = l {
                if l.step == step && l.answered.is_none_or(|(st, _)| st != step) {
                    l.answered = Some((step, usize::MAX));
                }
            }
        });
        return;
    }
    let Some(rq) = with(|t| t.run_question.clone()).flatten() else {
        return;
    };
    if rq.id == q.id {
        send(&Up::Reveal {
            id: rq.id,
            answer: rq.answer,
            explain: (!rq.explain.is_empty()).then_some(rq.explain),
        });
        app.set_cursor(rq.reveal);
    }
}
