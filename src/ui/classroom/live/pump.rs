//! The teacher's run events on their way to the class: one loop at a time
//! sends what the class does not have yet, in frames paced under the
//! relay's rate, and stops on its own (done, something else shown, the
//! connection gone, the log full).

use super::state::{backlog, send, ClassState, Link};
use super::teacher::with;
use crate::engine::live::protocol::{Limits, Up};
use crate::engine::live::show::Shown;
use crate::ui::state::AppState;
use gloo_timers::future::TimeoutFuture;
use leptos::prelude::*;
use serde_json::Value;

/// Events in one frame at most, and the pause between frames: 400 events
/// a second, under the relay's 500.
pub(super) const BATCH: usize = 100;
pub(super) const PACE_MS: u32 = 250;
/// Bytes of events in one frame at most (the relay takes 1 MB).
pub(super) const BATCH_BYTES: usize = 256 << 10;

/// Sends the shown run's events the class does not have yet, a batch at
/// a time at a pace under the relay's limit, until it has them all (one
/// loop at a time; a loop left over from a lost connection stops).
pub(super) fn pump(app: AppState, s: ClassState) {
    let Some(me) = with(|t| {
        if t.pump.is_some() || t.full {
            return None;
        }
        t.pumps += 1;
        t.pump = Some(t.pumps);
        Some(t.pumps)
    })
    .flatten() else {
        return;
    };
    let mine = move || with(|t| t.pump == Some(me)).unwrap_or(false);
    leptos::task::spawn_local(async move {
        let serial = app.run_serial();
        loop {
            let on = mine()
                && app.run_serial() == serial
                && s.link.get_untracked() == Link::Open
                && matches!(s.shown.get_untracked(), Some(Shown::Run(_)))
                && !with(|t| t.full).unwrap_or(true);
            if !on {
                break;
            }
            let sent = s.sent.get_untracked();
            let most = with(|t| t.batch).unwrap_or(BATCH);
            let Some(batch) = app
                .events
                .with_untracked(|e| next_batch(&e[sent.min(e.len())..], most))
            else {
                // One event larger than a frame: the class stops before it.
                with(|t| t.full = true);
                s.notice.set(Some(format!(
                    "Event {sent} of this run is too large to send live: the class sees the run up to there."
                )));
                break;
            };
            if batch.is_empty() {
                break;
            }
            let n = batch.len();
            let frame = Up::Events {
                from: sent as u64,
                events: batch.clone(),
            };
            if !send(&frame) {
                break;
            }
            with(|t| t.kept.events.extend(batch));
            s.sent.set(sent + n);
            TimeoutFuture::new(PACE_MS).await;
            // The browser still has much to send: wait for the wire.
            while mine() && backlog() > (BATCH_BYTES as u32) * 2 {
                TimeoutFuture::new(PACE_MS).await;
            }
        }
        with(|t| {
            if t.pump == Some(me) {
                t.pump = None;
            }
        });
    });
}

/// The next frame's events: up to `most` of them and `BATCH_BYTES`
/// (at least one, unless that one alone is over a frame: `None`).
fn next_batch(
    events: &[crate::engine::run::event::LoggedEvent],
    most: usize,
) -> Option<Vec<Value>> {
    let limit = Limits::default().teacher_frame - 1024;
    let mut bytes = 0;
    let mut out = Vec::new();
    for ev in events.iter().take(most.max(1)) {
        let v = serde_json::to_value(ev).unwrap_or(Value::Null);
        let len = serde_json::to_string(&v).map_or(0, |t| t.len());
        if out.is_empty() && len > limit {
            return None;
        }
        if !out.is_empty() && bytes + len > BATCH_BYTES {
            break;
        }
        bytes += len;
        out.push(v);
    }
    Some(out)
}
