//! The pool inspector: what one pool holds per agent and step kind (count,
//! mean reward), then for the agent and step kind picked: the reward
//! histogram, the embeddings projected on their two principal axes and
//! coloured by reward, the newest entries, and a query box that ranks the
//! entries for a text with the score's parts (similarity, reward, score)
//! under the setup's α and Table 4 variant. Also: merge another pool into
//! this one, re-embed it with the embedder in use.

use super::super::memory;
use super::super::state::mael_setup;
use super::pools::{load, merge, reembed_pool, PoolsUi};
use crate::engine::coordinators::mael::contract::StepKind;
use crate::engine::coordinators::mael::experience::{Pool, PoolError};
use crate::engine::coordinators::mael::html::pool::{
    entries_html, histogram_svg, projection_svg, query_html, selected, summary_html,
};
use crate::engine::model::embed::{Embedder, LexicalEmbedder, LEXICAL_ID};
use crate::engine::run::CancelToken;
use crate::engine::views::html::esc;
use crate::ui::state::use_app;
use leptos::prelude::*;
use leptos::task::spawn_local;
use std::rc::Rc;

/// Entries listed at most.
const LIMIT: usize = 60;
/// Hits the query box shows.
const QUERY_K: usize = 5;

#[component]
pub fn PoolInspector(ui: PoolsUi) -> impl IntoView {
    let app = use_app();
    let pool = RwSignal::new(None::<Result<Pool, String>>);
    let agent = RwSignal::new(String::new());
    let step = RwSignal::new(None::<StepKind>);
    let query = RwSignal::new(String::new());
    let hits = RwSignal::new(None::<String>);
    let merge_from = RwSignal::new(String::new());
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
    let with_pool = move |f: fn(&Pool, &str, Option<StepKind>) -> String| {
        move || {
            let (a, k) = (agent.get(), step.get());
            pool.with(|p| match p {
                Some(Ok(p)) => f(p, &a, k),
                _ => String::new(),
            })
        }
    };
    let rank = move || {
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
            // The pool's own embedder: the lexical one, or the provider's the setup names.
            let embedder: Rc<dyn Embedder> = if id.id == LEXICAL_ID {
                Rc::new(LexicalEmbedder)
            } else {
                match memory::embedder(&setup, &settings).await {
                    Ok(e) if e.id() == id => e,
                    Ok(e) => {
                        return hits.set(Some(format!(
                            "<p class=\"bad small\">{}</p>",
                            esc(&PoolError::Embedder {
                                pool: id,
                                other: e.id()
                            }
                            .user_message())
                        )));
                    }
                    Err(e) => {
                        return hits.set(Some(format!("<p class=\"bad small\">{}</p>", esc(&e))))
                    }
                }
            };
            let q = match embedder
                .embed(std::slice::from_ref(&text), &CancelToken::new())
                .await
            {
                Ok(mut v) if v.len() == 1 => v.remove(0),
                Ok(_) => {
                    return hits.set(Some(
                        "<p class=\"bad small\">The embedder returned no vector.</p>".into(),
                    ))
                }
                Err(e) => {
                    return hits.set(Some(format!(
                        "<p class=\"bad small\">{}</p>",
                        esc(&e.user_message())
                    )))
                }
            };
            let html = pool.with_untracked(|p| {
                let Some(Ok(p)) = p else { return String::new() };
                let found = p.rank(&q, &setup.scoring, QUERY_K, |e| {
                    (a.is_empty() || e.agent == a) && k.is_none_or(|k| e.step == k)
                });
                query_html(p, &found)
            });
            hits.set(Some(html));
        });
    };
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
        <section class="panel ml-inspector" role="region" aria-label="Pool inspector">
            {move || match ui.inspected.get() {
                None => view! {
                    <h2 class="panel-title">"Pool inspector"</h2>
                    <p class="muted small empty-note">"Pick Inspect on a pool to see its experiences by agent and step, their rewards, a map of their embeddings, and how a query would rank them."</p>
                }.into_any(),
                Some(name) => view! {
                    <div class="panel-head">
                        <h2 class="panel-title">"Pool inspector · "<span class="ml-name">{name}</span></h2>
                        <button type="button" class="icon-button small" aria-label="Close the pool inspector" on:click=move |_| ui.inspected.set(None)>"×"</button>
                    </div>
                    {move || match pool.get() {
                        None => view! { <p class="muted small">"Loading the pool…"</p> }.into_any(),
                        Some(Err(e)) => view! { <p class="bad small" role="alert">{e}</p> }.into_any(),
                        Some(Ok(_)) => view! {
                            <div inner_html=move || pool.with(|p| match p { Some(Ok(p)) => summary_html(p), _ => String::new() })></div>
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
                            <div class="ml-charts">
                                <figure>
                                    <div inner_html=move || { let (a, k) = (agent.get(), step.get()); pool.with(|p| match p { Some(Ok(p)) => histogram_svg(&selected(p, &a, k).map(|(_, e)| e.reward).collect::<Vec<_>>()), _ => String::new() }) }></div>
                                    <figcaption class="small muted">"Rewards"</figcaption>
                                </figure>
                                <figure>
                                    <div inner_html=with_pool(projection_svg)></div>
                                    <figcaption class="small muted">"Embeddings (PCA), red = low reward, green = high"</figcaption>
                                </figure>
                            </div>
                            <div class="ml-query">
                                <label for="ml-query">"Query"</label>
                                <textarea id="ml-query" rows="2" placeholder="A step's input, e.g. a task text: how would this pool rank its entries?"
                                    prop:value=move || query.get() on:input=move |ev| query.set(event_target_value(&ev))></textarea>
                                <button type="button" class="button small" on:click=move |_| rank()>"Rank entries"</button>
                                <span class="muted small">{move || { let s = mael_setup().with(|s| s.scoring); format!("score = {:.2}·similarity + {:.2}·reward (the setup's α)", s.alpha, 1.0 - s.alpha) }}</span>
                            </div>
                            {move || hits.get().map(|h| view! { <div class="ml-query-hits" inner_html=h></div> })}
                            <details class="ml-entries-box">
                                <summary>"Entries"</summary>
                                <div inner_html=move || { let (a, k) = (agent.get(), step.get()); pool.with(|p| match p { Some(Ok(p)) => entries_html(p, &a, k, LIMIT), _ => String::new() }) }></div>
                            </details>
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
                        }.into_any(),
                    }}
                }.into_any(),
            }}
        </section>
    }
}
