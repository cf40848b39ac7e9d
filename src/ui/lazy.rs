//! Parts of the app that load on first use. The build splits the wasm at
//! every function declared with [`lazy_part!`] (scripts/build-wasm.sh): the
//! function and everything only it reaches go to a chunk that the browser
//! fetches the first time the function is called, so the first page loads
//! only the core. Natively (tests, CLI) the functions are plain calls.
//!
//! A chunk that fails to load (offline, a new deployment) is an error the
//! user sees with a retry, never a crash.

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
