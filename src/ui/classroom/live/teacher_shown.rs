//! What the teacher's tab shows, as the class is to see it: a key that
//! changes when something else is shown, the thing itself, and its step.

use super::state::Page;
use crate::engine::lesson::Bundle;
use crate::engine::live::show::{self, Shown, FOLLOW};
use crate::ui::state::{AppState, LessonMode};
use leptos::prelude::*;

/// What this tab shows, as a key that changes when something else is.
pub(super) fn shown_key(app: AppState, page: Page) -> String {
    let lesson = app.lesson.with(|l| {
        l.as_ref().filter(|l| l.mode != LessonMode::Edit).map(|l| {
            let ids: Vec<&str> = l
                .bundle
                .runs
                .iter()
                .map(|r| r.config.run_id.as_str())
                .collect();
            format!("lesson:{}:{}", l.bundle.title, ids.join(","))
        })
    });
    if let Some(k) = lesson {
        return k;
    }
    if page == Page::Compare {
        let ids = app.compare.with(|runs| {
            (runs.len() >= 2).then(|| {
                runs.iter()
                    .map(|r| r.config.run_id.clone())
                    .collect::<Vec<_>>()
                    .join(",")
            })
        });
        if let Some(ids) = ids {
            return format!("compare:{ids}");
        }
    }
    app.shown.with(|s| {
        s.as_ref().map_or(String::new(), |s| {
            format!("run:{}:{}", app.run_serial(), s.config.run_id)
        })
    })
}

/// What this tab shows, for the class.
pub(super) fn current(app: AppState, page: Page) -> Option<Shown> {
    if let Some(b) = app.lesson.with_untracked(|l| {
        l.as_ref()
            .filter(|l| l.mode != LessonMode::Edit)
            .map(|l| l.bundle.clone())
    }) {
        return Some(Shown::Lesson(b));
    }
    if page == Page::Compare && app.compare.with_untracked(Vec::len) >= 2 {
        let runs = app.compare.get_untracked();
        return Some(Shown::Compare(Bundle::comparison("Comparison", runs)));
    }
    app.shown
        .with_untracked(|s| s.as_ref().map(|s| Shown::Run(s.config.clone())))
}

/// The class's step for what is shown.
pub(super) fn current_step(app: AppState, shown: &Option<Shown>) -> u64 {
    match shown {
        Some(Shown::Lesson(_)) => app.lesson.with(|l| {
            l.as_ref().map_or(0, |l| {
                if l.finished {
                    l.bundle.lesson.as_ref().map_or(0, |x| x.steps.len()) as u64
                } else {
                    l.step as u64
                }
            })
        }),
        Some(Shown::Compare(_)) => show::pack(&app.compare_pos.get()),
        Some(Shown::Run(_)) => app.cursor.get().map_or(FOLLOW, |k| k as u64),
        None => 0,
    }
}
