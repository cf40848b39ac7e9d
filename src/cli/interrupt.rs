//! SIGINT and SIGTERM for the commands that run coordinators: the first
//! one stops the work as the page's Stop does (the call in flight
//! aborted, what was done kept and written); a second ends the process at
//! once, as without this module.

use futures::future::{select, Either};
use std::future::Future;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

/// The last signal caught, 0 for none (set by the handler, which may do
/// nothing else).
static CAUGHT: AtomicI32 = AtomicI32::new(0);

/// The signal that stopped this process's work, once one has.
static STOPPED: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// The signal that stopped [`run_to_end`]'s work, if one did.
pub fn stopped_by() -> Option<&'static str> {
    STOPPED.get().copied()
}

#[cfg(unix)]
extern "C" fn record(signal: libc::c_int) {
    CAUGHT.store(signal, Ordering::SeqCst);
}

#[cfg(unix)]
fn handle(action: libc::sighandler_t) {
    // SAFETY: `signal` with SIG_DFL or a handler that only stores to an
    // atomic (async-signal-safe).
    unsafe {
        libc::signal(libc::SIGINT, action);
        libc::signal(libc::SIGTERM, action);
    }
}

#[cfg(unix)]
fn catch() {
    handle(record as extern "C" fn(libc::c_int) as libc::sighandler_t);
}

#[cfg(unix)]
fn release() {
    handle(libc::SIG_DFL);
}

#[cfg(not(unix))]
fn catch() {}

#[cfg(not(unix))]
fn release() {}

/// The signal's name, once one was caught.
fn caught() -> Option<&'static str> {
    match CAUGHT.swap(0, Ordering::SeqCst) {
        0 => None,
        #[cfg(unix)]
        libc::SIGINT => Some("SIGINT"),
        #[cfg(unix)]
        libc::SIGTERM => Some("SIGTERM"),
        _ => Some("signal"),
    }
}

/// The exit code of a command a signal stopped (the shell's 128 + n).
pub fn exit_code(signal: &str) -> i32 {
    match signal {
        "SIGINT" => 130,
        "SIGTERM" => 143,
        _ => 1,
    }
}

/// Runs `work` to its end on this thread. Every 100 ms `tick` runs (to
/// save what is done so far). The first SIGINT or SIGTERM calls `stop`
/// with its name, once: `work` must then end soon. Returns `work`'s output
/// and the signal that stopped it, if one did.
pub fn run_to_end<F: Future>(
    work: F,
    mut tick: impl FnMut(),
    mut stop: impl FnMut(&'static str),
) -> (F::Output, Option<&'static str>) {
    catch();
    let out = futures::executor::block_on(async {
        let mut work = std::pin::pin!(work);
        let mut stopped_by = None;
        loop {
            let pause = futures_timer::Delay::new(Duration::from_millis(100));
            match select(work.as_mut(), pause).await {
                Either::Left((out, _)) => return (out, stopped_by),
                Either::Right(((), _)) => {
                    tick();
                    if stopped_by.is_none() {
                        if let Some(signal) = caught() {
                            // A second signal ends the process at once.
                            release();
                            stopped_by = Some(signal);
                            let _ = STOPPED.set(signal);
                            stop(signal);
                        }
                    }
                }
            }
        }
    });
    release();
    out
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::cell::Cell;

    #[test]
    fn a_signal_stops_the_work_once_and_ticks_go_on_until_it_ends() {
        let stops = Cell::new(0);
        let ticks = Cell::new(0);
        let stopped = Cell::new(false);
        let work = async {
            // SAFETY: raising a signal this process catches.
            unsafe { libc::raise(libc::SIGTERM) };
            while !stopped.get() {
                futures_timer::Delay::new(Duration::from_millis(20)).await;
            }
            "ended"
        };
        let (out, by) = run_to_end(
            work,
            || ticks.set(ticks.get() + 1),
            |signal| {
                assert_eq!(signal, "SIGTERM");
                stops.set(stops.get() + 1);
                stopped.set(true);
            },
        );
        assert_eq!((out, by), ("ended", Some("SIGTERM")));
        assert_eq!(stops.get(), 1);
        assert!(ticks.get() >= 1);
        assert_eq!(exit_code("SIGTERM"), 143);
        assert_eq!(exit_code("SIGINT"), 130);
    }
}
