//! Persists a live run to History as it grows: events are buffered and
//! appended as one chunk at most every few hundred milliseconds (at once when
//! the run ends), with the run's summary updated alongside. The summary is
//! written as soon as recording starts, so the run shows in History at once.
//! A run cut off by a reload keeps every event written so far and shows as
//! interrupted.

use super::history;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::{LoggedEvent, RunConfig, RunCtx};
use crate::engine::views::record::RunMeta;
use gloo_timers::future::TimeoutFuture;
use leptos::task::spawn_local;
use std::cell::{Cell, RefCell};
use std::rc::Rc;

const TICK_MS: u32 = 100;
/// Buffered events are written at least this often…
const FLUSH_MS: f64 = 300.0;
/// …or as soon as this many are waiting.
const FLUSH_EVENTS: usize = 200;
/// Even with no new events (e.g. paused), the summary is refreshed this
/// often so the run is not taken for interrupted.
const HEARTBEAT_MS: f64 = 1_000.0;

struct State {
    config: RunConfig,
    prices: PriceTable,
    buffer: RefCell<Vec<LoggedEvent>>,
    all: RefCell<Vec<LoggedEvent>>,
    next_chunk: Cell<u32>,
    ended: Cell<bool>,
    last_chunk_ms: Cell<f64>,
    last_meta_ms: Cell<f64>,
}

/// Starts recording `ctx`'s events; `on_error` hears about storage failures (once).
pub fn record(ctx: &RunCtx, prices: PriceTable, on_error: impl Fn(String) + 'static) {
    let state = Rc::new(State {
        config: ctx.config().sanitized(),
        prices,
        buffer: RefCell::new(Vec::new()),
        all: RefCell::new(Vec::new()),
        next_chunk: Cell::new(0),
        ended: Cell::new(false),
        last_chunk_ms: Cell::new(0.0),
        last_meta_ms: Cell::new(f64::NEG_INFINITY),
    });
    let s = state.clone();
    ctx.on_event(move |e| {
        s.buffer.borrow_mut().push(e.clone());
        if e.event.is_terminal() {
            s.ended.set(true);
        }
    });
    spawn_local(async move {
        let mut failed = false;
        loop {
            let ended = state.ended.get();
            if let Err(e) = tick(&state, ended).await {
                if !failed {
                    on_error(e.user_message());
                }
                failed = true;
            }
            if ended {
                break;
            }
            TimeoutFuture::new(TICK_MS).await;
        }
    });
}

async fn tick(s: &State, ended: bool) -> Result<(), history::StoreError> {
    let now = js_sys::Date::now();
    let waiting = s.buffer.borrow().len();
    let due = waiting > 0
        && (ended || waiting >= FLUSH_EVENTS || now - s.last_chunk_ms.get() >= FLUSH_MS);
    if due {
        let batch: Vec<LoggedEvent> = std::mem::take(&mut *s.buffer.borrow_mut());
        let n = s.next_chunk.get();
        history::put_chunk(&s.config.run_id, n, &batch).await?;
        s.next_chunk.set(n + 1);
        s.last_chunk_ms.set(now);
        s.all.borrow_mut().extend(batch);
    } else if now - s.last_meta_ms.get() < HEARTBEAT_MS {
        return Ok(());
    }
    let meta = RunMeta::of(&s.config, &s.all.borrow(), &s.prices, now);
    s.last_meta_ms.set(now);
    history::refresh_run(meta, &s.config).await
}
