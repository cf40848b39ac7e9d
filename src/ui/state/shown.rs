//! Showing a run that is not running here: a stored, shared or imported
//! one, or a live class's as its events arrive; the replay cursor.

use super::{Activity, AppState, Shown, Source};
use crate::engine::run::{LoggedEvent, RunDoc};
use crate::engine::views::{Fold, RunView};
use leptos::prelude::*;

impl AppState {
    /// Shows a stored, shared or imported run, at its end.
    pub fn show_doc(self, doc: RunDoc, source: Source, saved: bool) -> bool {
        self.show_doc_at(doc, source, saved, None)
    }

    /// [`Self::show_doc`] with the replay cursor at `at` events (`None`:
    /// the whole run); only the events up to the cursor are folded.
    pub fn show_doc_at(self, doc: RunDoc, source: Source, saved: bool, at: Option<usize>) -> bool {
        if self.activity.get_untracked() != Activity::Idle {
            self.warn(
                "A run is in progress: stop it before opening another.",
                false,
            );
            return false;
        }
        let in_lesson = self.lesson.with_untracked(|l| {
            l.as_ref().is_some_and(|l| {
                l.bundle
                    .runs
                    .iter()
                    .any(|r| r.config.run_id == doc.config.run_id)
            })
        });
        if !in_lesson {
            self.lesson.set(None);
            self.presenter.set(false);
        }
        self.playing.set(false);
        let len = doc.events.len();
        let k = at.map_or(len, |k| k.min(len));
        self.cursor.set(cursor_for(k, len));
        self.notice.set(None);
        self.view.set(RunView::of(&doc.events[..k]));
        self.coordinator.set(doc.config.coordinator.clone());
        self.task.set(doc.config.task.clone());
        self.setup_unlocked.set(false);
        self.shown.set(Some(Shown {
            config: doc.config.clone(),
            source,
            saved,
        }));
        self.replace_events(doc.events);
        true
    }

    /// Shows another run's events (views folded in parts start over).
    pub(super) fn replace_events(self, events: Vec<LoggedEvent>) {
        self.run_serial.update_value(|n| *n += 1);
        self.events.set(events);
    }

    /// Adds events to the shown run (a live class's run, as the teacher's
    /// run makes them); the view follows when the replay is at the end.
    pub fn append_events(self, new: Vec<LoggedEvent>) {
        if new.is_empty() {
            return;
        }
        let following = self.cursor.get_untracked().is_none();
        if following {
            self.view.update(|v| {
                for e in &new {
                    v.apply(e);
                }
            });
        }
        self.events.update(|v| v.extend(new));
    }

    /// Which shown run the events belong to (changes with every run shown).
    pub fn run_serial(self) -> u64 {
        self.run_serial.get_value()
    }

    /// The shown run as a document (config + all events).
    pub fn doc(self) -> Option<RunDoc> {
        let shown = self.shown.get_untracked()?;
        Some(RunDoc::new(shown.config, self.events.get_untracked()))
    }

    /// Moves the replay cursor to `k` events (clamped; the end = follow all).
    pub fn set_cursor(self, k: usize) {
        let len = self.events.with_untracked(Vec::len);
        let k = k.min(len);
        self.cursor.set(cursor_for(k, len));
        self.view
            .set(self.events.with_untracked(|e| RunView::of(&e[..k])));
    }

    /// The current replay position (all events when not scrubbing).
    pub fn position(self) -> usize {
        self.cursor
            .get()
            .unwrap_or_else(|| self.events.with(Vec::len))
    }
}

/// The replay cursor standing at `k` of `len` events: none at the end (the
/// replay follows the whole run).
fn cursor_for(k: usize, len: usize) -> Option<usize> {
    (k < len).then_some(k)
}
