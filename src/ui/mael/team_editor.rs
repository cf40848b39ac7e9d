//! The team editor: rename agents, give one its own model, add and remove
//! agents, join and part them (a grid of the pairs), with the graph, each
//! agent's closeness and the root updated as you edit. A team that cannot
//! run (not connected, two agents with one id) says why and cannot be
//! applied. The team goes into the run's config, and so into share links.

use super::state::mael_setup;
use crate::engine::coordinators::mael::contract::TeamRecord;
use crate::engine::coordinators::mael::html::team::team_svg;
use crate::engine::coordinators::mael::topology::Team;
use crate::engine::coordinators::mael::view::MaelView;
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;

const MAX_AGENTS: usize = 8;

fn preview(team: &Team) -> String {
    let view = MaelView {
        team: Some(TeamRecord {
            team: team.clone(),
            root: team.root(),
            closeness: (0..team.len()).map(|i| team.closeness(i)).collect(),
        }),
        ..MaelView::default()
    };
    team_svg(&view)
}

#[component]
pub fn TeamEditorDialog(open: RwSignal<bool>) -> impl IntoView {
    let dialog = NodeRef::<html::Dialog>::new();
    let draft = RwSignal::new(Team::default_team());
    Effect::new(move |_| {
        let Some(d) = dialog.get() else { return };
        if open.get() {
            draft.set(mael_setup().get_untracked().team);
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });
    let problem = move || draft.with(|t| t.validate().err().map(|e| e.user_message()));
    let apply = move |_| {
        if problem().is_none() {
            let team = draft.get_untracked();
            mael_setup().update(|s| s.team = team);
            open.set(false);
        }
    };
    let rows = move || {
        draft.with(|t| {
            let root = t.root();
            (0..t.len())
                .map(|i| {
                    let a = t.agents[i].clone();
                    let c = t.closeness(i);
                    view! {
                        <tr>
                            <td><code>{a.id.clone()}</code>{(i == root).then(|| view! { <span class="ml-root-mark" title="the root: the highest closeness">" ♛"</span> })}</td>
                            <td><input aria-label=format!("Name of {}", a.id) prop:value=a.name.clone()
                                on:change=move |ev| { let v = event_target_value(&ev); draft.update(|t| if let Some(x) = t.agents.get_mut(i) { x.name = if v.trim().is_empty() { x.id.clone() } else { v.trim().to_string() } }) }/></td>
                            <td><input aria-label=format!("Model of {}", a.id) placeholder="the Settings' model" prop:value=a.model.clone().unwrap_or_default()
                                on:change=move |ev| { let v = event_target_value(&ev); draft.update(|t| if let Some(x) = t.agents.get_mut(i) { x.model = Some(v.trim().to_string()).filter(|m| !m.is_empty()) }) }/></td>
                            <td class="num">{format!("{c:.2}")}</td>
                            <td><button type="button" class="icon-button small" aria-label=format!("Remove {}", a.name) title="Remove this agent"
                                disabled=move || draft.with(|t| t.len() <= 1)
                                on:click=move |_| draft.update(|t| t.remove_agent(i))>"✕"</button></td>
                        </tr>
                    }
                })
                .collect_view()
        })
    };
    let grid = move || {
        draft.with(|t| {
            let n = t.len();
            let head = t.agents.iter().map(|a| view! { <th scope="col"><code>{a.id.clone()}</code></th> }).collect_view();
            let body = (0..n)
                .map(|i| {
                    let cells = (0..n)
                        .map(|j| {
                            if j <= i {
                                view! { <td></td> }.into_any()
                            } else {
                                let on = t.has_edge(i, j);
                                let label = format!("Edge {}–{}", t.agents[i].id, t.agents[j].id);
                                view! { <td><input type="checkbox" aria-label=label prop:checked=on on:change=move |_| draft.update(|t| t.toggle_edge(i, j))/></td> }.into_any()
                            }
                        })
                        .collect_view();
                    view! { <tr><th scope="row"><code>{t.agents[i].id.clone()}</code></th>{cells}</tr> }
                })
                .collect_view();
            view! { <table class="ml-edges"><thead><tr><th></th>{head}</tr></thead><tbody>{body}</tbody></table> }
        })
    };
    view! {
        <dialog class="import-db ml-team-editor" node_ref=dialog aria-labelledby="ml-team-title" on:close=move |_: leptos::ev::Event| open.set(false)>
            <DialogHead id="ml-team-title" title="Edit the team" on_close=Callback::new(move |()| open.set(false))/>
            <p class="muted small">"Agents hand subtasks only to their neighbours. The root, which gets the task, is the agent with the highest closeness centrality (ties: the first)."</p>
            <div class="ml-editor-body">
                <div>
                    <table class="tp-table ml-agents">
                        <thead><tr><th scope="col">"id"</th><th scope="col">"name"</th><th scope="col">"model"</th><th scope="col">"closeness"</th><th></th></tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                    <button type="button" class="button small" disabled=move || draft.with(|t| t.len() >= MAX_AGENTS)
                        on:click=move |_| draft.update(|t| { let to = (!t.is_empty()).then(|| t.root()); t.add_agent(to); })>"Add agent"</button>
                    <h3 class="tp-h">"Edges"</h3>
                    {grid}
                </div>
                <div class="ml-editor-preview" inner_html=move || draft.with(preview)></div>
            </div>
            {move || problem().map(|p| view! { <p class="bad small" role="alert">{p}</p> })}
            <footer class="dialog-foot">
                <button type="button" class="button" on:click=move |_| open.set(false)>"Cancel"</button>
                <button type="button" class="button primary" disabled=move || problem().is_some() on:click=apply>"Apply"</button>
            </footer>
        </dialog>
    }
}
