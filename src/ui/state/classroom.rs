//! The classroom's part of the app state: the runs on the Compare page
//! (which runs, opened how), the lesson session, and "Run a variant of
//! this" (its comparison opens when the variant's run ends: see `launch`).

use super::{Activity, AppState, Source};
use crate::engine::lesson::{Bundle, Progress, Step, MAX_RUNS};
use crate::engine::run::RunDoc;
use leptos::prelude::*;

/// How a lesson is being used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LessonMode {
    /// A student (or the class) works through it.
    Play,
    /// The teacher writes it.
    Edit,
    /// The teacher tries it as a student would (back to Edit at the end).
    Preview,
}

/// The lesson open in the app: its bundle (runs and steps), where the
/// student is, and their answers.
#[derive(Clone, Debug, PartialEq)]
pub struct LessonSession {
    pub bundle: Bundle,
    pub step: usize,
    pub progress: Progress,
    /// The step just answered and the choice given (feedback shown).
    pub answered: Option<(usize, usize)>,
    pub mode: LessonMode,
    /// Its key in IndexedDB, once saved there (built-in lessons have none).
    pub saved_as: Option<String>,
    /// Past the last step: the score is shown.
    pub finished: bool,
}

impl LessonSession {
    /// `bundle` at its first step, nothing answered.
    pub fn new(bundle: Bundle, mode: LessonMode, saved_as: Option<String>) -> Self {
        LessonSession {
            bundle,
            step: 0,
            progress: Progress::default(),
            answered: None,
            mode,
            saved_as,
            finished: false,
        }
    }

    /// Where the replay stands for the current step, as (run, events):
    /// before a question's event until it is answered, then at its reveal.
    pub fn replay_target(&self) -> Option<(usize, usize)> {
        let step = self.bundle.lesson.as_ref()?.steps.get(self.step)?;
        Some(match step {
            Step::Note { run, at, .. } => (*run, *at),
            Step::Question(q) => {
                if self.answered.is_some_and(|(s, _)| s == self.step) {
                    (q.run, q.reveal)
                } else {
                    (q.run, q.at)
                }
            }
        })
    }
}

impl AppState {
    /// Sets the comparison's runs, each shown whole.
    fn set_compared(self, runs: Vec<RunDoc>) {
        self.compare_pos
            .set(runs.iter().map(|r| r.events.len()).collect());
        self.compare.set(runs);
    }

    /// Shows `runs` side by side on the Compare page.
    pub fn open_comparison(self, runs: Vec<RunDoc>) {
        self.set_compared(runs);
        self.goto.set(Some("/compare".into()));
    }

    /// Adds `doc` to the comparison (at most four: the oldest leaves), or
    /// takes it out when it is there and `toggle`; returns how many runs
    /// the comparison holds.
    fn compare_with(self, doc: RunDoc, toggle: bool) -> usize {
        let mut runs = self.compare.get_untracked();
        let id = doc.config.run_id.clone();
        let there = !id.is_empty() && runs.iter().any(|r| r.config.run_id == id);
        runs.retain(|r| id.is_empty() || r.config.run_id != id);
        if !(there && toggle) {
            if runs.len() == MAX_RUNS {
                runs.remove(0);
            }
            runs.push(doc);
        }
        let n = runs.len();
        self.set_compared(runs);
        n
    }

    /// Adds the shown run to the comparison; how many runs it holds.
    pub fn add_to_comparison(self) -> Option<usize> {
        let doc = self.doc()?;
        Some(self.compare_with(doc, false))
    }

    /// Adds `doc` to the comparison, or takes it out when it is there.
    pub fn toggle_compared(self, doc: RunDoc) {
        self.compare_with(doc, true);
    }

    /// Opens a lesson (to play, or to edit when `saved_as` names its
    /// record) or a comparison: a one-run lesson on the Run page, anything
    /// with more runs on the Compare page.
    pub fn open_bundle(self, bundle: Bundle, saved_as: Option<String>) {
        if bundle.lesson.is_none() {
            self.lesson.set(None);
            return self.open_comparison(bundle.runs);
        }
        if self.activity.get_untracked() != Activity::Idle {
            self.warn(
                "A run is in progress: stop it before opening a lesson.",
                false,
            );
            return;
        }
        let runs = bundle.runs.clone();
        let mode = if saved_as.is_some() {
            LessonMode::Edit
        } else {
            LessonMode::Play
        };
        let session = LessonSession::new(bundle, mode, saved_as);
        // A student starts where the first step stands: the run is folded
        // and drawn up to there once, not whole and then again (the player
        // would move it there at once).
        let first = (mode == LessonMode::Play)
            .then(|| session.replay_target().map(|(_, at)| at))
            .flatten();
        self.lesson.set(Some(session));
        if runs.len() == 1 {
            if let Some(run) = runs.into_iter().next() {
                self.show_doc_at(run, Source::Link, false, first);
                self.goto.set(Some("/".into()));
            }
        } else {
            self.open_comparison(runs);
        }
    }
}
