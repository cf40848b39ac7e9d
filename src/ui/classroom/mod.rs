//! The classroom: runs side by side (Compare), lessons (play, present,
//! write), the Lessons page, "Run a variant of this", and live classes. All of it loads
//! on first use with the run views (the `run_view` chunk: a lesson or a
//! comparison shows runs, and as a chunk of its own it shared so much with
//! them that the split made twice the files and a shared run opened ~10%
//! slower, measured); the start page does not grow.
//!
//! How it is made. A comparison and a lesson are documents built from the same engine parts:
//!
//! - `views::compare` aligns runs by phase id. A phase that one run skips
//!   is a gap. A synchronized cursor puts each run at the same share of the
//!   same phase. It also finds the first call where two runs diverge, and
//!   gives each run's figures per agent and per phase.
//! - `views::compare_report` renders a comparison as the Markdown report and
//!   the SVG chart.
//! - `lesson` holds the document itself. `Bundle` is one to four runs plus an
//!   optional `Lesson`: steps that are notes or questions, each pinned to a
//!   run and an event. `lesson::questions` generates predict-next questions
//!   from the run's generic events only: the next `llm_request`'s agent, a
//!   `handoff`'s target, whether the critic hands the plan back before the
//!   next call, and a `retrieval` note's used hit. The answer is what the run
//!   did, and `reveal` is the first event that shows it. `Progress` counts
//!   only the first answer.
//! - `Bundle::validate` checks every anchor, reveal, answer, choice count
//!   and text length. Files, links and IndexedDB records are all read through
//!   it.
//! - `share::bundle` carries lessons and comparisons in links
//!   (`#lesson=B1~<meta>~<run>…`, `#compare=…`). The meta part is the bundle
//!   without its runs, compressed as a run is. Each run part is exactly a run link's
//!   payload, so every run link format also opens inside a bundle. The caps
//!   are a single run's, applied to the whole link.
//! - The UI is `ui/classroom/`, loaded with the run views (the `run_view`
//!   chunk). As a chunk of its own it shared so much code with them that
//!   wasm-split cut `run_view` into 32 files instead of 16, and a shared run
//!   opened about 10% slower (measured pairwise against the commit before).
//!   Its parts:
//!   - `compare.rs`: columns, timeline, differences, divergence.
//!   - `player.rs`: steps drive the replay cursor (played up to the anchor at
//!     the chosen speed), highlights, keys, presenter mode. A lesson opened
//!     to play starts with the run shown at its first step
//!     (`AppState::show_doc_at`, `LessonSession::replay_target`): the run is
//!     folded and drawn up to there once, not whole and then again.
//!   - `editor.rs`: add at the cursor, reorder, preview, save, share, export.
//!   - `lessons_page.rs`: built-ins fetched from `public/lessons/`, saved
//!     lessons, import.
//!   - `variant.rs` and `bundle_io.rs`.
//!   - `live/`: a live class, over `roundtable serve`'s relay. `AppState::class`
//!     (core) only says whether this tab teaches or follows one; everything
//!     else is in the chunk. The teacher's side is one effect, made once
//!     under the app's root owner (`part_state`), that reads what the tab
//!     shows (a lesson being played, else the comparison when on Compare,
//!     else the shown run) and sends what changed: `Show` when something
//!     else is shown, the step (the run's replay position, `FOLLOW` at the
//!     end; the lesson's step; the comparison's packed positions), a lesson
//!     question's `Ask` when its step is reached and its `Reveal` once the
//!     teacher's lesson shows the answer; a run's events are pumped 100 a
//!     frame every 250 ms (under the relay's 500 a second) by one loop at a
//!     time, which resends from what the relay says it has (`Opened.have`
//!     after a drop, `Refused.have` after a refusal, halving its frames at
//!     most once a second while refused as too fast). `Opened.shown`, a
//!     digest of what the relay shows, tells the tab that a `Show` was lost
//!     in a drop (it shows it again). The tab keeps what the
//!     class has (`Snapshot`, with each student's answer from the tally) and
//!     sends it with `Reopen`, so a restarted relay gets the class back; its
//!     code and token are in session storage, so a reloaded teaching tab
//!     takes the class back too. Student ids are random (drawn by the relay:
//!     no page can take another's seat), and a page rejoining a restored
//!     class keeps the id it claims. A student's page reads every frame as untrusted
//!     (`engine::live::show`), shows the run with `show_doc_at` and grows it
//!     with `AppState::append_events`, and moves to the teacher's step. Its
//!     seat (code, id, name) is in session storage: a reload rejoins as the
//!     same student from event 0; a dropped connection rejoins from the last
//!     event it has. Close codes say whether to retry: not after an end
//!     (1000), a refusal (1008, 1009) or another tab taking over (4000,
//!     4001); "no such class" (4004) only while the teacher's tab restores
//!     it.
//! - `AppState` keeps the comparison's runs and positions, the lesson session
//!   (`LessonSession`: bundle, step, progress, mode) and presenter mode. A
//!   lesson on one run replaces the Run page's setup column; a lesson on a
//!   comparison sits above the Compare page.
//! - The built-in lessons are made by the CLI from specs in `lessons/`
//!   (`roundtable lesson make`: notes at events, questions chosen by event,
//!   with choices and answers always from the run). `tests/lessons.rs`
//!   checks that every shipped question is the one its run generates.

mod bundle_io;
mod compare;
mod compare_diff;
mod editor;
mod editor_steps;
mod lessons_page;
pub(crate) mod live;
mod player;
mod positions;
mod variant;

use super::lazy::{lazy_part, ViewFn};

/// Where a tab in a live class keeps its seat (session storage).
pub const SEAT_KEY: &str = "roundtable.live.seat";
/// Where a teaching tab keeps its class's code and teacher token (session
/// storage: this tab only, so a reload takes the class back).
pub const TEACH_KEY: &str = "roundtable.live.teach";
use leptos::prelude::*;

lazy_part! { run_view:
    pub fn compare_page() -> ViewFn {
        || view! { <compare::ComparePage/> }.into_any()
    }
    pub fn lessons_page() -> ViewFn {
        || view! { <lessons_page::LessonsPage/> }.into_any()
    }
    pub fn lesson_panel() -> ViewFn {
        || view! { <player::LessonPanel/> }.into_any()
    }
    pub fn variant_dialog() -> ViewFn {
        || view! { <variant::VariantDialog/> }.into_any()
    }
    pub fn live_panel() -> ViewFn {
        || view! { <live::ClassPanel page=live::state::Page::Run/> }.into_any()
    }
    pub fn join_page() -> ViewFn {
        || view! { <live::JoinPage/> }.into_any()
    }
    pub fn start_live_class(app: crate::ui::state::AppState) {
        live::start(app)
    }
    pub fn rejoin_live_class(app: crate::ui::state::AppState) {
        live::rejoin(app);
        live::resume(app);
    }
}
