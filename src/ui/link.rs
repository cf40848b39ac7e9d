//! Opening a share link (`#run=…`, or a lesson's / comparison's
//! `#lesson=…` / `#compare=…`). The decoder and its dictionaries are in
//! the `run_view` chunk. A link in the address when the page loads is
//! decoded before the app mounts, so the first render already shows the run
//! (no empty page laid out and painted first); a link opened later (the
//! fragment changes) is decoded and shown in place.

use super::lazy::{self, lazy_part};
use super::state::{AppState, Notice, Source};
use crate::engine::share::{self, bundle};
use crate::platform::{location, perf};
use leptos::prelude::*;

/// A decoded link: shows what it carries (a run, or a lesson or
/// comparison) when called. Its code is in the decoder's chunk, and calling
/// it needs no load: a link in the address at start-up is shown in the
/// app's first render (a split function of its own would have to wait for
/// its loader, after the mount).
pub struct Opened(Box<dyn FnOnce(AppState)>);

lazy_part! { run_view:
    fn decode_in_chunk(hash: String) -> Result<Opened, String> {
        perf::mark("rt:link-chunk");
        let doc = share::decode(&hash).map_err(|e| e.user_message());
        perf::mark("rt:link-decoded");
        doc.map(|doc| {
            Opened(Box::new(move |app: AppState| {
                app.show_doc(doc, Source::Link, false);
            }))
        })
    }
}

// A lesson's or comparison's decoder.
lazy_part! { run_view:
    fn decode_bundle_in_chunk(hash: String) -> Result<Opened, String> {
        perf::mark("rt:link-chunk");
        let b = bundle::decode(&hash).map_err(|e| {
            e.user_message()
                .replace("the run inside", "the lesson or comparison inside")
        });
        perf::mark("rt:link-decoded");
        b.map(|b| Opened(Box::new(move |app: AppState| app.open_bundle(b, None))))
    }
}

/// The share link in the address, if there is one.
pub fn in_url() -> Option<String> {
    let hash = location::hash();
    (hash.starts_with(&format!("#{}", share::FRAGMENT_KEY)) || bundle::is_bundle_link(&hash))
        .then_some(hash)
}

/// What a link carries, or what is wrong with the link.
pub async fn decode(hash: String) -> Result<Opened, String> {
    if bundle::is_bundle_link(&hash) {
        return decode_bundle_in_chunk(hash)
            .await
            .unwrap_or_else(|e| Err(e.message("the shared lesson or comparison")));
    }
    decode_in_chunk(hash)
        .await
        .unwrap_or_else(|e| Err(e.message("the shared run")))
}

/// Shows a decoded link's run (or lesson, or comparison), or says why it
/// cannot be opened.
pub fn show(app: AppState, decoded: Result<Opened, String>) {
    match decoded {
        Ok(Opened(show)) => {
            show(app);
            perf::mark("rt:link-shown");
        }
        Err(text) => app.notice.set(Some(Notice {
            text,
            settings: false,
        })),
    }
    leptos::task::spawn_local(mark_ready());
}

/// Opens the link now in the address (after a fragment change).
pub fn open(app: AppState) {
    if let Some(hash) = in_url() {
        leptos::task::spawn_local(async move { show(app, decode(hash).await) });
    }
}

/// Once the frame that shows every view the run needs is laid out and
/// painted, the run is on screen: marks when (benchmarks read it). The
/// timeout, set in that frame, runs after its paint.
async fn mark_ready() {
    lazy::settled().await;
    set_timeout(
        || perf::stamp_body("data-link-ready-ms"),
        std::time::Duration::ZERO,
    );
}
