//! Parts of the app that load on first use. The build splits the wasm at
//! every function declared with [`lazy_part!`] (scripts/build-wasm.sh): the
//! function and everything only it reaches go to a chunk that the browser
//! fetches the first time the function is called, so the first page loads
//! only the core. Natively (tests, CLI) the functions are plain calls.
//!
//! A chunk that fails to load (offline, a new deployment) is an error the
//! user sees with a retry, never a crash.
//!
//! What keeps code out of the core:
//! - the app never dispatches by coordinator id in the engine: each row of
//!   `ui/coordinators.rs` starts its runs with its own entry
//!   (`run::execute(ctx, entry)`) and demo script (`demo::Script`, passed in
//!   `factory::Platform`), from its own part (`ui/travel/`), so the core never
//!   references the travel planner and adding a coordinator does not grow it;
//! - the core starts nothing itself: every row of the table, the single
//!   agent's too (`ui/single.rs`), starts and forks its runs from a part,
//!   so the runner, `RunCtx`, the demo model and the recorder are out of it;
//!   what shows a run (the toolbar, the replay bar, the graph's drawing, a
//!   link's `show`) is in `run_view`, so the event log's serde and the folds
//!   are too; the core keeps the panels' empty states;
//! - `RunView` holds only generic views;
//!   a coordinator's views are folded by the panels that show them, inside
//!   their chunk (`ui::fold`: incrementally as a run grows, from the start
//!   when the run changes or the cursor goes back), and so is the inspector's;
//! - a coordinator's state (the travel setup, a batch) is made by its part on
//!   first use (`ui::part_state`), not held in `AppState`;
//! - provider clients are built on the first LLM call (`ui::provider::LazyProvider`);
//! - views and dialogs are `lazy_view` / `lazy_dialog` around a `lazy_part!`
//!   function that returns the view's constructor.
//!
//! Decisions about loading, each with its reason (the measurements behind
//! them, with dates and methods, are in `docs/performance.md`):
//!
//! - A coordinator's run tabs live in `run_view`, not in a chunk of their
//!   own: a separate `travel_view` chunk opened a shared run 1.2–1.3× slower
//!   (one more module after the mount).
//! - A page opened with a link fetches the run views as one file,
//!   `run_view.pack.wasm` (`scripts/post-build.mjs` → `split-manifest.mjs`;
//!   a `fetch` prepended to `__wasm_split.js` serves the modules as slices of
//!   it; elsewhere each chunk is fetched alone): twenty requests cost CPU in
//!   the browser process while the page loads (0.83–0.96× pairwise).
//! - index.html preloads those files after the core's, shows the header at
//!   once and lays out every font while the wasm loads; compiling the chunks
//!   from index.html instead was not faster (0.97–1.04×).
//! - The app decodes a link before it mounts (the decoder returns a closure
//!   made in the chunk, `link::Opened`, so the first render shows the run); a
//!   long transcript shows its first 24 entries in that frame; the page marks
//!   `data-link-ready-ms` once every view the run asked for is painted.
//! - Streamed deltas in a link are decoded straight into typed events
//!   (`share::compact::from_compact`): `RunEvent`'s derived deserializer is
//!   one 35 KB function that V8 recompiled on every open.
//! - binaryen merges a one-caller function into its caller only up to size
//!   500 (`scripts/build-wasm.sh`), and the views' payload parsers are
//!   `#[inline(never)]`: giant functions get hot after a few calls and V8
//!   recompiles them on a worker thread that takes a core from the page.
//! - The stylesheets are one file in the build (`scripts/merge-css.mjs`; the
//!   sources stay one per area): the module script waits for every stylesheet.
//! - Panics cannot be made smaller: `panic=immediate-abort` needs
//!   `-Zbuild-std`, and this toolchain has no `rust-src`.
//! - How an open is measured: a new browser context (cold cache and
//!   storage) whose window has had 1 s to finish starting (`e2e/harness.mjs`:
//!   `coldPage`); `make bench` prints the sizes, the open times and a floor
//!   (a page that paints one line), and ends with the table of goals;
//!   `node e2e/trace.mjs [payload]` shows what a load is made of and
//!   `node e2e/ab-open.mjs` compares two builds pairwise.

use leptos::prelude::*;
use std::cell::Cell;
use std::future::Future;

thread_local! {
    /// Lazily loaded views of the page still on their way.
    static PENDING: Cell<u32> = const { Cell::new(0) };
}

/// Counts a view load in [`PENDING`] while it lives.
struct Pending;

impl Pending {
    fn start() -> Self {
        PENDING.with(|p| p.set(p.get() + 1));
        Pending
    }
}

impl Drop for Pending {
    fn drop(&mut self) {
        PENDING.with(|p| p.set(p.get().saturating_sub(1)));
    }
}

/// The next animation frame.
async fn next_frame() {
    let (tx, rx) = futures::channel::oneshot::channel::<()>();
    request_animation_frame(move || {
        let _ = tx.send(());
    });
    let _ = rx.await;
}

/// Resolves in the first animation frame in which no lazily loaded view of
/// the page is loading: that frame shows everything the page has asked for
/// (views ask during rendering, which is done when a frame starts).
pub async fn settled() {
    loop {
        next_frame().await;
        if PENDING.with(Cell::get) == 0 {
            return;
        }
    }
}

/// What a lazily loaded view part returns: the view's constructor, called
/// untracked once the chunk is there (see [`lazy_view`]).
pub type ViewFn = fn() -> AnyView;

/// A chunk of the app could not be fetched or instantiated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkError;

impl From<leptos::wasm_split::SplitLoaderError> for ChunkError {
    fn from(_: leptos::wasm_split::SplitLoaderError) -> Self {
        ChunkError
    }
}

impl ChunkError {
    /// What the user reads, naming the part that did not load.
    pub fn message(self, what: &str) -> String {
        format!(
            "Could not load {what}: the page could not fetch a part of the app. Check your connection, then try again (or reload the page)."
        )
    }
}

/// Declares functions whose code lives in the chunk `$chunk`, loaded on the
/// first call. Each becomes `async fn name(args) -> Result<T, ChunkError>`.
macro_rules! lazy_part {
    ($chunk:ident: $(
        $(#[$attr:meta])*
        $vis:vis fn $name:ident($($arg:ident: $ty:ty),* $(,)?) $(-> $ret:ty)? $body:block
    )+) => {$(
        $(#[$attr])*
        #[::leptos::wasm_split::wasm_split($chunk, fallible, wasm_split_path = ::leptos::wasm_split)]
        $vis fn $name($($arg: $ty),*) -> Result<$crate::ui::lazy::lazy_part!(@ret $($ret)?), $crate::ui::lazy::ChunkError> {
            Ok($body)
        }
    )+};
    (@ret $ret:ty) => { $ret };
    (@ret) => { () };
}
pub(crate) use lazy_part;

/// [`lazy_part!`] for parts that only make a view: `name => Component,`
/// declares `fn name() -> ViewFn` returning the component (with no props).
macro_rules! lazy_views {
    ($chunk:ident: $( $(#[$attr:meta])* $name:ident => $($comp:ident)::+ ),+ $(,)?) => {
        $crate::ui::lazy::lazy_part! { $chunk: $(
            $(#[$attr])*
            fn $name() -> $crate::ui::lazy::ViewFn {
                || $($comp)::+().into_any()
            }
        )+ }
    };
}
pub(crate) use lazy_views;

/// Shows the view a lazily loaded function returns: nothing while its chunk
/// loads (a "Loading …" line after a moment), the view once it is there, or
/// an error with "Try again".
pub fn lazy_view<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    lazy_view_with(what, load, false)
}

/// A panel's [`lazy_view`] while `shown` holds; until then its empty
/// state, a muted `note`.
pub fn lazy_view_or_note<F, Fut>(
    shown: impl Fn() -> bool + Send + Sync + 'static,
    note: &'static str,
    what: &'static str,
    load: F,
) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    view! {
        <Show when=shown fallback=move || view! { <p class="muted small empty-note">{note}</p> }>
            {lazy_view(what, load)}
        </Show>
    }
}

/// [`lazy_view`] for a part that can wait: it starts loading once the page
/// has shown what it is busy with ([`settled`]), e.g. the travel setup panel
/// while a shared travel run opens.
pub fn lazy_view_later<F, Fut>(what: &'static str, load: F) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    lazy_view_with(what, load, true)
}

fn lazy_view_with<F, Fut>(what: &'static str, load: F, later: bool) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    let loaded = RwSignal::new(false);
    // The line fades in after a moment (CSS), so a fast load never flashes it.
    let waiting = move || {
        (!loaded.get()).then(|| view! { <p class="muted lazy-loading">"Loading " {what} "…"</p> })
    };
    (waiting, body(what, load, "", loaded, later))
}

/// A dialog whose code loads the first time `opened` is true; it stays
/// mounted afterwards, so it opens and closes at once from then on. A load
/// failure shows in a corner of the page with "Try again".
pub fn lazy_dialog<F, Fut>(
    what: &'static str,
    opened: impl Fn() -> bool + Send + Sync + 'static,
    load: F,
) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    let ever = RwSignal::new(false);
    Effect::new(move |_| {
        if opened() {
            ever.set(true);
        }
    });
    let loaded = RwSignal::new(false);
    move || {
        ever.get()
            .then(|| body(what, load, "floating", loaded, false))
    }
}

/// The loaded view (a `Suspend`, not in a `Suspense`: the view's effects
/// run as soon as it is mounted, as they would without the chunk). The view
/// is built untracked: what it reads must not re-run the `Suspend`, or each
/// change would rebuild it.
fn body<F, Fut>(
    what: &'static str,
    load: F,
    class: &'static str,
    loaded: RwSignal<bool>,
    later: bool,
) -> impl IntoView
where
    F: Fn() -> Fut + Copy + Send + Sync + 'static,
    Fut: Future<Output = Result<ViewFn, ChunkError>> + Send + 'static,
{
    let attempt = RwSignal::new(0u32);
    move || {
        attempt.track();
        // Counted from the moment the view asks for its chunk (before the
        // future first runs) until it has its view.
        let pending = (!later).then(Pending::start);
        Suspend::new(async move {
            if later {
                settled().await;
            }
            let _pending = pending;
            let view = match load().await {
                Ok(make) => untrack(make),
                Err(e) => load_error(e.message(what), attempt, class).into_any(),
            };
            loaded.set(true);
            view
        })
    }
}

fn load_error(text: String, attempt: RwSignal<u32>, class: &'static str) -> impl IntoView {
    view! {
        <div class=format!("notice error load-error {class}") role="alert">
            <p>{text}</p>
            <button class="button" on:click=move |_| attempt.update(|n| *n += 1)>
                "Try again"
            </button>
        </div>
    }
}
