//! ACT's setup in the left panel: where the task comes from (a trial of
//! the built-in design set, of the built-in tool tasks or of an imported
//! set, or a task typed for the team to split), the trial, the variant
//! (ACT, ACT+, the ablations, the one-model baselines), the LLM judge and
//! stemming, the tools and their search endpoint (checked on request; a
//! tool task that needs the web says so before it can start), and for
//! ACT+ the knowledge bank.

use super::state::{act_setup, ActSetup, BUILTIN, FREE, SHOWN, TOOLS};
use crate::engine::coordinators::act::contract::{ActOptions, Variant};
use crate::engine::domains::agentverse::tasks::ToolTask;
use crate::engine::domains::creative::{builtin, ComplexTask};
use crate::engine::run::RunConfig;
use crate::engine::views::sampling::TemperatureSource;
use crate::platform::act_store;
use crate::ui::sampling_note::SamplingNote;
use crate::ui::shown_setup::{self, ShownSetupBanner};
use crate::ui::state::{use_app, AppState};
use crate::ui::widgets::{parsed, Toggle};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// ACT chooses its temperature per step (`act::team`): whatever Settings says.
const ACT_SAMPLING: &str =
    "Temperature 0.7 for the agents' speech, 0 for the replies read as JSON and the judge (ACT's own per step, as the paper gives none; the Settings temperature does not change them)";

/// Reloads what this browser keeps: imported sets and knowledge banks.
pub fn refresh_stored() {
    spawn_local(async move {
        let sets = act_store::list_sets().await;
        let banks = act_store::list_banks().await.unwrap_or_default();
        act_setup().update(|s| {
            s.sets = sets;
            s.banks = banks;
        });
    });
}

/// Shows a stored ACT run's setup (`ActSetup::adopt`), loading the
/// imported set its task came from.
fn adopt(app: AppState, config: &RunConfig) {
    let Ok(o) = serde_json::from_value::<ActOptions>(config.options.clone()) else {
        return;
    };
    let variant = config.variant.as_deref().and_then(Variant::parse);
    let trial = u32::try_from(config.seed).unwrap_or(0);
    let mut set = None;
    act_setup().update(|s| set = s.adopt(variant, trial, &o));
    if let Some(name) = set {
        spawn_local(async move {
            match act_store::load_set(&name).await {
                Ok(loaded) => act_setup().update(|s| {
                    (s.source, s.loaded, s.trial) = (name, Some(loaded), trial);
                }),
                Err(e) => app.warn(e, false),
            }
        });
    }
}

/// Makes `source` the setup's task source (loading an imported set). A
/// set of tool tasks turns the judge on: its sub-tasks done are the score.
pub fn pick_source(app: AppState, source: String) {
    let picked = |s: &mut ActSetup, source: String, loaded| {
        (s.source, s.loaded, s.trial) = (source, loaded, 0);
        if s.is_tool_source() {
            s.judge = true;
        }
    };
    if [BUILTIN, FREE, SHOWN, TOOLS].contains(&source.as_str()) {
        act_setup().update(|s| picked(s, source, None));
        return;
    }
    spawn_local(async move {
        match act_store::load_set(&source).await {
            Ok(set) => act_setup().update(|s| picked(s, source, Some(set))),
            Err(e) => app.warn(e, false),
        }
    });
}

/// A set's kind in a task source list.
pub fn kind_tag(k: act_store::SetKind) -> &'static str {
    match k {
        act_store::SetKind::Items => "imported",
        act_store::SetKind::Trivia => "trivia",
        act_store::SetKind::Tools => "tool tasks",
    }
}

/// What the judge measures on the setup's task.
fn judge_note(x: &ActSetup) -> &'static str {
    match x.task() {
        Some(t) if !t.parts.is_empty() => {
            "Counts the expected components the output covers (0 to one per agent)."
        }
        Some(_) if x.tools || x.is_tool_source() => {
            "Lists the sub-tasks the question asks (at most eight) and checks each against the output: the share done is the score (§4.3, App. B)."
        }
        _ => "A typed task without tools has nothing for the judge to count.",
    }
}

/// A tool task's preview: the question, its team and tools, and whether
/// the web it needs is there.
fn tool_task_html(t: &ToolTask, web: bool) -> AnyView {
    let need = match (t.needs_web, web) {
        (false, _) => None,
        (true, true) => Some(view! { <p class="small">"Needs the web: the search endpoint below is used."</p> }.into_any()),
        (true, false) => Some(view! {
            <p class="small bad" role="alert">"Needs the web, and no search endpoint is set: give one below (a SearXNG instance's JSON API), or pick a task that needs no web. It will not start without one."</p>
        }.into_any()),
    };
    view! {
        <p class="small act-question">{t.question.clone()}</p>
        <p class="muted small">{format!("{} agents split it · every tool · judged by the sub-tasks it asks", t.agents)}</p>
        {need}
    }
    .into_any()
}

fn parts_html(task: &ComplexTask) -> AnyView {
    let refs: usize = task.parts.iter().map(|p| p.references.len()).sum();
    let note = if task.parts.is_empty() {
        "The team splits this task itself (a facilitator); it is not scored.".to_string()
    } else {
        format!(
            "{} agents, one task each · scored against {refs} reference{} (hidden from the agents){}",
            task.parts.len(),
            if refs == 1 { "" } else { "s" },
            task.word_limit.map(|w| format!(" · {w}-word limit")).unwrap_or_default()
        )
    };
    view! {
        <ol class="act-parts small">
            {task.parts.iter().map(|p| {
                let details = p.details.join(" · ");
                view! { <li><strong>{p.subject.clone()}</strong>{(!details.is_empty()).then(|| view! { <span class="muted">" — " {details}</span> })}</li> }
            }).collect_view()}
        </ol>
        <p class="muted small">{note}</p>
    }
    .into_any()
}

/// What the knowledge bank field says of the bank named.
fn bank_hint(x: &ActSetup) -> String {
    match x.banks.iter().find(|b| b.name == x.bank.trim()) {
        Some(b) => format!(
            "{} task{} so far · {} agents · {} knowledge entries",
            b.trials,
            if b.trials == 1 { "" } else { "s" },
            b.agents,
            b.entries
        ),
        None => "A new bank: this run's team and knowledge start it.".into(),
    }
}

/// What the variant leaves out (or that it is one model alone).
fn variant_note(x: &ActSetup) -> String {
    let f = x.variant.features();
    if x.variant.is_single() {
        return "One model writes the whole task (no team, no memory).".to_string();
    }
    let off: Vec<&str> = [
        (!f.team_meeting, "team meeting"),
        (!f.break_time, "break time"),
        (!f.exploration, "task exploration"),
        (!f.knowledge, "knowledge"),
        (!f.keywords && f.knowledge, "keywords"),
        (!f.importance && f.knowledge, "importance scores"),
    ]
    .into_iter()
    .filter(|(o, _)| *o)
    .map(|(_, n)| n)
    .collect();
    if !off.is_empty() {
        format!("Without: {}.", off.join(", "))
    } else if f.carry_over {
        "Every mechanism, and the knowledge carries over to the next task.".into()
    } else {
        "Every mechanism of the paper.".into()
    }
}

/// Whether the setup's task source is `v`.
fn source_is(s: RwSignal<ActSetup>, v: &'static str) -> impl Fn() -> bool + Copy {
    move || s.with(|x| x.source == v)
}

#[component]
pub fn ActSetupPanel() -> impl IntoView {
    let app = use_app();
    let busy = shown_setup::disabled(app);
    refresh_stored();
    let s = act_setup();
    shown_setup::on_shown(app, crate::engine::coordinators::act::ID, move |c| {
        adopt(app, c)
    });
    let is = move |v: &'static str| source_is(s, v);
    let web = move || app.settings.with(|x| !x.search_url.trim().is_empty());
    let preview = move || match s.with(|x| (x.tool_task_at(x.trial), x.task())) {
        (Some(t), _) => tool_task_html(&t, web()),
        (None, Some(t)) => parts_html(&t),
        (None, None) => view! { <p class="muted small">"No task yet."</p> }.into_any(),
    };
    let tool_source = Signal::derive(move || s.with(ActSetup::is_tool_source));
    let tools_fixed = Signal::derive(move || busy.get() || tool_source.get());
    view! {
        <div class="act-setup">
            <ShownSetupBanner/>
            <SourceField s=s busy=busy/>
            <Show when=is(BUILTIN)>
                <CommunitySelect id="act-community" busy=busy/>
            </Show>
            <Show when=move || !is(FREE)() && !is(SHOWN)()>
                <TrialField s=s busy=busy/>
            </Show>
            <Show when=is(FREE)>
                <FreeTaskField s=s busy=busy/>
            </Show>
            <div class="act-preview" aria-label="The agents' tasks">{preview}</div>
            <VariantField s=s busy=busy/>
            <Show when=move || s.with(|x| x.variant == Variant::ActPlus)>
                <BankFields s=s busy=busy/>
            </Show>
            <SamplingNote sampling=TemperatureSource::Fixed(ACT_SAMPLING) testid="act-temperature"/>
            <Toggle id="act-judge" label=" LLM judge (one more call per run)" busy=busy
                on=Signal::derive(move || s.with(|x| x.judge)) set=Callback::new(move |on| s.update(|x| x.judge = on))/>
            <p class="muted small act-judge-note">{move || s.with(judge_note)}</p>
            <Toggle id="act-stem" label=" Stem words in ROUGE (Porter)" busy=busy
                on=Signal::derive(move || s.with(|x| x.stem)) set=Callback::new(move |on| s.update(|x| x.stem = on))/>
            <Toggle id="act-tools" label=" Tools (§4.3): AgentVerse's notebook, file system and web" busy=tools_fixed
                on=Signal::derive(move || s.with(|x| x.tools || x.is_tool_source())) set=Callback::new(move |on| s.update(|x| x.tools = on))/>
            <Show when=move || tool_source.get()>
                <p class="muted small">"A tool task always has every tool."</p>
            </Show>
            <Show when=move || s.with(|x| x.tools || x.is_tool_source())>
                <ToolsField busy=busy/>
            </Show>
            <div class="travel-actions">
                <a class="link-button small" href="/act">"Batch, knowledge banks and task sets…"</a>
            </div>
            <crate::ui::fit_note::FitNote/>
            <crate::ui::fit_note::UnreadableNotice/>
        </div>
    }
}

/// The tools' search endpoint (kept in Settings) and what the tools do here.
#[component]
fn ToolsField(busy: Signal<bool>) -> impl IntoView {
    let app = use_app();
    let save = move |ev: leptos::ev::Event| {
        // What is stored (another tab may have saved since), with the
        // endpoint changed: nothing else is written.
        let mut stored = crate::platform::settings::Settings::load();
        stored.search_url = event_target_value(&ev).trim().to_string();
        if let Err(e) = stored.save() {
            app.warn(format!("The search endpoint could not be kept: {e}"), false);
        }
        // The refusal of a web task is answered once an endpoint is set.
        if !stored.search_url.is_empty()
            && app.notice.with_untracked(|n| {
                n.as_ref()
                    .is_some_and(|n| n.text.contains(" needs the web "))
            })
        {
            app.notice.set(None);
        }
        app.settings.set(stored);
    };
    let checked: RwSignal<Option<Result<String, String>>> = RwSignal::new(None);
    let check = move |_| {
        let endpoint = app
            .settings
            .with_untracked(|x| x.search_url.trim().to_string());
        if endpoint.is_empty() {
            return checked.set(Some(Err("Give the endpoint first.".into())));
        }
        checked.set(Some(Ok("Checking…".into())));
        spawn_local(async move {
            let web = crate::engine::domains::agentverse::web::Web {
                endpoint,
                client: std::rc::Rc::new(crate::platform::fetch::PageGet),
            };
            let r = crate::engine::domains::agentverse::web::check(&web).await;
            checked.set(Some(match r {
                Ok(n) => Ok(format!("The endpoint answered a test search with {n} result{}.", if n == 1 { "" } else { "s" })),
                Err(e) => Err(format!("The endpoint did not answer a search: {e}. A SearXNG instance needs `json` among its formats (settings.yml, search.formats) and must allow this page's requests (CORS).")),
            }));
        });
    };
    view! {
        <div class="field act-tools">
            <label for="act-search-url">"Search endpoint (a SearXNG instance's JSON API)"</label>
            <div class="act-endpoint-row">
                <input id="act-search-url" type="url" placeholder="http://127.0.0.1:8888" disabled=busy
                    prop:value=move || app.settings.with(|x| x.search_url.clone()) on:change=move |ev| { checked.set(None); save(ev) }/>
                <button type="button" class="small" disabled=busy on:click=check>"Check"</button>
            </div>
            {move || checked.get().map(|r| match r {
                Ok(m) => view! { <p class="small ok" role="status">{m}</p> }.into_any(),
                Err(m) => view! { <p class="small bad" role="alert">{m}</p> }.into_any(),
            })}
            <p class="muted small">"Each member may plan up to three sub-tasks a round on the tools (Table 26), for up to 10 rounds. The notebook runs in Python in this page (fetched on the first cell); what members write is in the run's Files tab. The web tools are offered only with an endpoint; the shell never, in a browser."</p>
        </div>
    }
}

/// Where the task comes from: the built-in set, an imported one, a typed
/// task, or the shown run's own.
#[component]
fn SourceField(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    let app = use_app();
    let source = move || s.with(|x| x.source.clone());
    view! {
        <div class="field">
            <label for="act-source">"Tasks"</label>
            <select id="act-source" disabled=busy prop:value=source on:change=move |ev| pick_source(app, event_target_value(&ev))>
                <option value=BUILTIN>"Built-in design set (tea, cafe, design, architecture, fashion)"</option>
                <option value=TOOLS>"Built-in tool tasks (loan, primes, garden; §4.3)"</option>
                {move || s.with(|x| x.sets.iter().map(|(n, k)| {
                    let label = format!("{n} · {}", kind_tag(*k));
                    // Selected here too: the list may come after the value is set.
                    view! { <option value=n.clone() prop:selected=x.source == *n>{label}</option> }
                }).collect_view())}
                <option value=FREE>"A task I type (the team splits it)"</option>
                {move || s.with(|x| x.shown_task.is_some()).then(|| view! {
                    <option value=SHOWN>"The run's own task"</option>
                })}
            </select>
            <Show when=source_is(s, SHOWN)>
                <span class="muted small">"The set it came from is not in this browser."</span>
            </Show>
        </div>
    }
}

/// The trial of a task set (it draws the agents' tasks).
#[component]
fn TrialField(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    let trials = move || s.with(ActSetup::trials);
    view! {
        <div class="field">
            <label for="act-trial">"Trial"</label>
            <input id="act-trial" type="number" min="0" disabled=busy
                max=move || trials().map(|n| n.saturating_sub(1).to_string()).unwrap_or_default()
                prop:value=move || s.with(|x| x.trial.to_string())
                on:change=move |ev| {
                    let n: u32 = parsed(&ev).unwrap_or(0);
                    s.update(|x| x.trial = x.trials().map_or(n, |t| n.min(t.saturating_sub(1))));
                }/>
            <span class="muted small">"Each trial draws its agents' tasks the same way every time (and seeds the leader)."</span>
        </div>
    }
}

/// A task typed for the team to split, and the team's size.
#[component]
fn FreeTaskField(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="act-free">"Task"</label>
            <textarea id="act-free" rows="4" disabled=busy placeholder=crate::engine::coordinators::act::EXAMPLE_TASK
                prop:value=move || s.with(|x| x.free_text.clone())
                on:input=move |ev| { let t = event_target_value(&ev); s.update(|x| x.free_text = t) }></textarea>
            <label for="act-size" class="small">"Agents"</label>
            <input id="act-size" type="number" min="2" max="8" disabled=busy prop:value=move || s.with(|x| x.team_size.to_string())
                on:change=move |ev| { let n: usize = parsed(&ev).unwrap_or(4); s.update(|x| x.team_size = n.clamp(2, 8)) }/>
        </div>
    }
}

/// The variant (ACT, ACT+, the ablations, the baselines) and what it leaves out.
#[component]
fn VariantField(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="act-variant">"Variant"</label>
            <select id="act-variant" disabled=busy prop:value=move || s.with(|x| x.variant.id())
                on:change=move |ev| if let Some(v) = Variant::parse(&event_target_value(&ev)) { s.update(|x| x.variant = v) }>
                {Variant::ALL.iter().map(|v| view! { <option value=v.id()>{v.label()}</option> }).collect_view()}
            </select>
            <span class="muted small">{move || s.with(variant_note)}</span>
        </div>
    }
}

/// ACT+'s knowledge bank and the embeddings model that searches it.
#[component]
fn BankFields(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    view! {
        <div class="field">
            <label for="act-bank">"Knowledge bank"</label>
            <input id="act-bank" list="act-banks" disabled=busy autocomplete="off" prop:value=move || s.with(|x| x.bank.clone())
                on:change=move |ev| { let b = event_target_value(&ev).trim().to_string(); s.update(|x| x.bank = b) }/>
            <datalist id="act-banks">
                {move || s.with(|x| x.banks.iter().map(|b| view! { <option value=b.name.clone()></option> }).collect_view())}
            </datalist>
            <span class="muted small">{move || s.with(bank_hint)}</span>
        </div>
        <div class="field">
            <label for="act-embed">"Embeddings model"</label>
            <input id="act-embed" disabled=busy placeholder="built-in lexical" autocomplete="off"
                title="A model of the Settings' provider's /v1/embeddings (OpenAI-compatible) that compares the agents' keywords with the new tasks; empty = the built-in lexical embedder (word features, not a neural model)"
                prop:value=move || s.with(|x| x.embedding_model.clone())
                on:change=move |ev| { let m = event_target_value(&ev).trim().to_string(); s.update(|x| x.embedding_model = m) }/>
        </div>
    }
}

/// The built-in set's community (the setup's, shared with the ACT page).
#[component]
pub fn CommunitySelect(id: &'static str, busy: Signal<bool>) -> impl IntoView {
    let s = act_setup();
    view! {
        <div class="field">
            <label for=id>"Community"</label>
            <select id=id disabled=busy prop:value=move || s.with(|x| x.community.clone())
                on:change=move |ev| { let c = event_target_value(&ev); s.update(|x| x.community = c) }>
                <option value="">"by trial (tea, cafe, … in turn)"</option>
                {builtin::COMMUNITIES.iter().map(|c| view! { <option value=*c>{*c}</option> }).collect_view()}
                <option value=builtin::MIXED>"mixed: each member's task from another community"</option>
            </select>
        </div>
    }
}
