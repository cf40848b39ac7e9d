//! The pool inspector: what one pool holds per agent and step kind (count,
//! mean reward), then for the agent and step kind picked: the reward
//! histogram, the embeddings projected on their two principal axes and
//! coloured by reward, the newest entries, and a query box that ranks the
//! entries for a text with the score's parts (similarity, reward, score)
//! under the setup's α and Table 4 variant. Also: merge another pool into
//! this one, re-embed it with the embedder in use.

use super::super::memory;
use super::super::state::{mael_setup, MaelSetup};
use super::pools::{load, merge, reembed_pool, PoolsUi};
use crate::engine::coordinators::mael::contract::StepKind;
use crate::engine::coordinators::mael::experience::{Pool, PoolError};
use crate::engine::coordinators::mael::html::pool::{
    entries_html, histogram_svg, projection_svg, query_html, selected, summary_html,
};
use crate::engine::model::embed::{Embedder, EmbedderId, LexicalEmbedder, LEXICAL_ID};
use crate::engine::run::CancelToken;
use crate::engine::views::html::esc;
use crate::platform::settings::Settings;
use crate::ui::state::{use_app, AppState};
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// Entries listed at most.
const LIMIT: usize = 60;
/// Hits the query box shows.
const QUERY_K: usize = 5;

/// The pool shown and the agent and step kind picked in it (empty: all).
#[derive(Clone, Copy)]
struct Picked {
    pool: RwSignal<Option<Result<Pool, String>>>,
    agent: RwSignal<String>,
    step: RwSignal<Option<StepKind>>,
}

impl Picked {
    /// `f` of the pool for the agent and step kind picked, as they change
    /// (empty while no pool is loaded).
    fn render(
        self,
        f: impl Fn(&Pool, &str, Option<StepKind>) -> String + Send + Sync + 'static,
    ) -> impl Fn() -> String + Send + Sync + 'static {
        let Picked { pool, agent, step } = self;
        move || {
            let (a, k) = (agent.get(), step.get());
            pool.with(|p| match p {
                Some(Ok(p)) => f(p, &a, k),
                _ => String::new(),
            })
        }
    }
}

#[component]
pub fn PoolInspector(ui: PoolsUi) -> impl IntoView {
    let app = use_app();
    let pool = RwSignal::new(None::<Result<Pool, String>>);
    let agent = RwSignal::new(String::new());
    let step = RwSignal::new(None::<StepKind>);
    let query = RwSignal::new(String::new());
    let hits = RwSignal::new(None::<String>);
    let merge_from = RwSignal::new(String::new());
    load_inspected(ui, pool, hits);
    let picked = Picked { pool, agent, step };
    view! {
        <section class="panel ml-inspector" role="region" aria-label="Pool inspector">
            {move || match ui.inspected.get() {
                None => view! { <NothingInspected/> }.into_any(),
                Some(name) => view! {
                    <InspectorHead ui=ui name=name/>
                    <InspectedPool ui=ui app=app picked=picked query=query hits=hits merge_from=merge_from/>
                }.into_any(),
            }}
        </section>
    }
}

/// Loads the pool picked for inspection (again when a pool's content
/// changed); a new pool clears the query's hits.
fn load_inspected(
    ui: PoolsUi,
    pool: RwSignal<Option<Result<Pool, String>>>,
    hits: RwSignal<Option<String>>,
) {
    Effect::new(move |_| {
        ui.changed.track();
        let Some(name) = ui.inspected.get() else {
            pool.set(None);
            return;
        };
        hits.set(None);
        spawn_local(async move {
            let p = load(&name).await;
            if ui.inspected.get_untracked().as_deref() == Some(name.as_str()) {
                pool.set(Some(p));
            }
        });
    });
}

/// The title and a note while no pool is inspected.
#[component]
fn NothingInspected() -> impl IntoView {
    view! {
        <h2 class="panel-title">"Pool inspector"</h2>
        <p class="muted small empty-note">"Pick Inspect on a pool to see its experiences by agent and step, their rewards, a map of their embeddings, and how a query would rank them."</p>
    }
}

/// The title with the pool's name, and the button that closes the inspector.
#[component]
fn InspectorHead(ui: PoolsUi, name: String) -> impl IntoView {
    view! {
        <div class="panel-head">
            <h2 class="panel-title">"Pool inspector · "<span class="ml-name">{name}</span></h2>
            <button type="button" class="icon-button small" aria-label="Close the pool inspector" on:click=move |_| ui.inspected.set(None)>"×"</button>
        </div>
    }
}

/// The pool inspected: loading, why it could not be loaded, or its details.
#[component]
fn InspectedPool(
    ui: PoolsUi,
    app: AppState,
    picked: Picked,
    query: RwSignal<String>,
    hits: RwSignal<Option<String>>,
    merge_from: RwSignal<String>,
) -> impl IntoView {
    move || match picked.pool.get() {
        None => view! { <p class="muted small">"Loading the pool…"</p> }.into_any(),
        Some(Err(e)) => view! { <p class="bad small" role="alert">{e}</p> }.into_any(),
        Some(Ok(_)) => view! {
            <PoolSummary pool=picked.pool/>
            <PoolFilter picked=picked/>
            <div class="ml-charts">
                <RewardHistogram picked=picked/>
                <Projection picked=picked/>
            </div>
            <QueryBox app=app picked=picked query=query hits=hits/>
            <QueryHits hits=hits/>
            <Entries picked=picked/>
            <PoolTools ui=ui app=app merge_from=merge_from/>
        }
        .into_any(),
    }
}

/// What the pool holds per agent and step kind (count, mean reward).
#[component]
fn PoolSummary(pool: RwSignal<Option<Result<Pool, String>>>) -> impl IntoView {
    let summary = move || {
        pool.with(|p| match p {
            Some(Ok(p)) => summary_html(p),
            _ => String::new(),
        })
    };
    view! { <div inner_html=summary></div> }
}

/// The agent and step kind picked.
#[component]
fn PoolFilter(picked: Picked) -> impl IntoView {
    let Picked { pool, agent, step } = picked;
    let agents = move || {
        pool.with(|p| match p {
            Some(Ok(p)) => {
                let mut a: Vec<String> = p.entries.iter().map(|e| e.agent.clone()).collect();
                a.sort();
                a.dedup();
                a
            }
            _ => Vec::new(),
        })
    };
    view! {
        <div class="ml-filter">
            <label for="ml-insp-agent">"Agent"</label>
            <select id="ml-insp-agent" prop:value=move || agent.get() on:change=move |ev| agent.set(event_target_value(&ev))>
                <option value="">"all agents"</option>
                {move || agents().into_iter().map(|a| view! { <option value=a.clone()>{a.clone()}</option> }).collect_view()}
            </select>
            <label for="ml-insp-step">"Step"</label>
            <select id="ml-insp-step" prop:value=move || step.get().map(|k| k.id()).unwrap_or("")
                on:change=move |ev| step.set(StepKind::parse(&event_target_value(&ev)))>
                <option value="">"all steps"</option>
                {StepKind::ALL.iter().map(|k| view! { <option value=k.id()>{k.id()}</option> }).collect_view()}
            </select>
        </div>
    }
}

/// A chart (SVG from `html::pool`, which escapes its text) with its caption.
fn figure(
    svg: impl Fn() -> String + Send + Sync + 'static,
    caption: &'static str,
) -> impl IntoView {
    view! {
        <figure>
            <div inner_html=svg></div>
            <figcaption class="small muted">{caption}</figcaption>
        </figure>
    }
}

/// The histogram of the rewards of the entries picked.
#[component]
fn RewardHistogram(picked: Picked) -> impl IntoView {
    let svg = picked.render(|p, a, k| {
        histogram_svg(&selected(p, a, k).map(|(_, e)| e.reward).collect::<Vec<_>>())
    });
    figure(svg, "Rewards")
}

/// The embeddings of the entries picked on their two principal axes,
/// coloured by reward.
#[component]
fn Projection(picked: Picked) -> impl IntoView {
    let svg = picked.render(projection_svg);
    figure(svg, "Embeddings (PCA), red = low reward, green = high")
}

/// The query box: a text, the button that ranks the entries for it, and
/// the score the ranking uses.
#[component]
fn QueryBox(
    app: AppState,
    picked: Picked,
    query: RwSignal<String>,
    hits: RwSignal<Option<String>>,
) -> impl IntoView {
    let scoring = move || {
        let s = mael_setup().with(|s| s.scoring);
        format!(
            "score = {:.2}·similarity + {:.2}·reward (the setup's α)",
            s.alpha,
            1.0 - s.alpha
        )
    };
    view! {
        <div class="ml-query">
            <label for="ml-query">"Query"</label>
            <textarea id="ml-query" rows="2" placeholder="A step's input, e.g. a task text: how would this pool rank its entries?"
                prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev))></textarea>
            <button type="button" class="button small" on:click=move |_| rank(app, picked, query, hits)>"Rank entries"</button>
            <span class="muted small">{scoring}</span>
        </div>
    }
}

/// The entries the query ranked first, with the score's parts (or why it
/// could not rank them).
#[component]
fn QueryHits(hits: RwSignal<Option<String>>) -> impl IntoView {
    move || {
        hits.get()
            .map(|h| view! { <div class="ml-query-hits" inner_html=h></div> })
    }
}

/// The newest entries picked.
#[component]
fn Entries(picked: Picked) -> impl IntoView {
    let entries = picked.render(|p, a, k| entries_html(p, a, k, LIMIT));
    view! {
        <details class="ml-entries-box">
            <summary>"Entries"</summary>
            <div inner_html=entries></div>
        </details>
    }
}

/// Merge another pool into this one; re-embed this one with the embedder
/// in use.
#[component]
fn PoolTools(ui: PoolsUi, app: AppState, merge_from: RwSignal<String>) -> impl IntoView {
    let others = move || {
        let me = ui.inspected.get().unwrap_or_default();
        mael_setup().with(|s| {
            s.pools
                .iter()
                .filter(|p| p.name != me)
                .map(|p| p.name.clone())
                .collect::<Vec<_>>()
        })
    };
    let busy = move || ui.busy.with(Option::is_some);
    view! {
        <div class="ml-pool-tools">
            <label for="ml-merge-from" class="small">"Merge into this pool:"</label>
            <select id="ml-merge-from" prop:value=move || merge_from.get() on:change=move |ev| merge_from.set(event_target_value(&ev))>
                <option value="">"another pool…"</option>
                {move || others().into_iter().map(|n| view! { <option value=n.clone()>{n.clone()}</option> }).collect_view()}
            </select>
            <button type="button" class="button small" disabled=move || busy() || !others().contains(&merge_from.get())
                on:click=move |_| if let Some(into) = ui.inspected.get_untracked() { merge(ui, merge_from.get_untracked(), into) }>"Merge"</button>
            <button type="button" class="button small" disabled=busy
                title="Embed every entry again with the embedder the setup uses (the MAEL panel's embeddings model)"
                on:click=move |_| if let Some(n) = ui.inspected.get_untracked() { reembed_pool(ui, app, n) }>"Re-embed with the embedder in use"</button>
        </div>
    }
}

/// Ranks the pool's entries picked for the query's text under the setup's
/// scoring, with the pool's own embedder; shows the hits, or what went
/// wrong, in `hits`.
fn rank(app: AppState, picked: Picked, query: RwSignal<String>, hits: RwSignal<Option<String>>) {
    let Picked { pool, agent, step } = picked;
    let text = query.get_untracked();
    let (a, k) = (agent.get_untracked(), step.get_untracked());
    let setup = mael_setup().get_untracked();
    let settings = app.settings.get_untracked();
    let Some(id) = pool.with_untracked(|p| {
        p.as_ref()
            .and_then(|p| p.as_ref().ok())
            .map(|p| p.embedder.clone())
    }) else {
        return;
    };
    hits.set(Some(
        "<p class=\"muted small\">Embedding the query…</p>".into(),
    ));
    spawn_local(async move {
        let html = match query_vector(id, &setup, &settings, text).await {
            Ok(q) => pool.with_untracked(|p| {
                let Some(Ok(p)) = p else { return String::new() };
                let found = p.rank(&q, &setup.scoring, QUERY_K, |e| {
                    (a.is_empty() || e.agent == a) && k.is_none_or(|k| e.step == k)
                });
                query_html(p, &found)
            }),
            Err(html) => html,
        };
        hits.set(Some(html));
    });
}

/// The vector of `text` by the pool's embedder `id`, or what went wrong
/// (HTML).
async fn query_vector(
    id: EmbedderId,
    setup: &MaelSetup,
    settings: &Settings,
    text: String,
) -> Result<Vec<f32>, String> {
    let embedder = pool_embedder(id, setup, settings).await?;
    match embedder
        .embed(std::slice::from_ref(&text), &CancelToken::new())
        .await
    {
        Ok(mut v) if v.len() == 1 => Ok(v.remove(0)),
        Ok(_) => Err("<p class=\"bad small\">The embedder returned no vector.</p>".into()),
        Err(e) => Err(bad(&e.user_message())),
    }
}

/// The pool's own embedder: the lexical one, or the provider's the setup
/// names (when it is the pool's); else what went wrong (HTML).
async fn pool_embedder(
    id: EmbedderId,
    setup: &MaelSetup,
    settings: &Settings,
) -> Result<Rc<dyn Embedder>, String> {
    if id.id == LEXICAL_ID {
        return Ok(Rc::new(LexicalEmbedder));
    }
    match memory::embedder(setup, settings).await {
        Ok(e) if e.id() == id => Ok(e),
        Ok(e) => Err(bad(&PoolError::Embedder {
            pool: id,
            other: e.id(),
        }
        .user_message())),
        Err(e) => Err(bad(&e)),
    }
}

/// An error message, as HTML.
fn bad(text: &str) -> String {
    format!("<p class=\"bad small\">{}</p>", esc(text))
}
