//! The batch form: variants, the task source (the setup's, shared with the
//! Run page), trials, the LLM judge, ACT+'s bank; then the kit's fields
//! (prompts, runs at once, caps, History), Start / Pause / Resume / Stop and the
//! progress line.

use super::super::setup::{kind_tag, pick_source, CommunitySelect};
use super::super::state::{act_setup, ActSetup, BUILTIN, FREE, TOOLS};
use super::batch_state::{use_batch, ActBatchForm};
use crate::engine::coordinators::act;
use crate::engine::coordinators::act::contract::Variant;
use crate::platform::act_store::SetKind;
use crate::ui::batch::{
    number, runs_per_job, BatchButtons, BatchNotices, Checks, CommonFields, ProgressLine,
    PromptSetsField,
};
use crate::ui::state::use_app;
use crate::ui::widgets::Toggle;
use leptos::prelude::*;

type Form = RwSignal<ActBatchForm>;

/// What the task source field says of the source picked (None: nothing).
fn source_note(x: &ActSetup, web: bool) -> Option<String> {
    match x.source.as_str() {
        FREE => Some(
            "A typed task is the same on every trial and has no references, so its runs are not scored: pick a task set to compare variants.".to_string(),
        ),
        BUILTIN => None,
        _ if x.is_tool_source() => {
            let t = x.tool_tasks();
            Some(format!(
                "{} tool tasks (trials 0–{}), each with its own team and every tool, judged by the sub-tasks it asks{}.",
                t.len(),
                t.len().saturating_sub(1),
                match (t.iter().filter(|t| t.needs_web).count(), web) {
                    (0, _) => String::new(),
                    (n, true) => format!("; {n} need the web (the search endpoint in Settings is used)"),
                    (n, false) => format!("; {n} need the web, and run only with a search endpoint (set under Tools on the Run page)"),
                }
            ))
        }
        _ => match &x.loaded {
            Some(set) if set.kind() == SetKind::Trivia => Some(format!(
                "{} stories (trials 0–{}), scored by trivia recall.",
                set.len(),
                set.len().saturating_sub(1)
            )),
            Some(set) => Some(format!(
                "{} items, drawn into one task per agent on each trial.",
                set.len()
            )),
            None => Some("Loading the set…".into()),
        },
    }
}

#[component]
pub fn BatchForm() -> impl IntoView {
    let app = use_app();
    let batch = use_batch();
    let form = batch.form;
    let s = act_setup();
    let busy = batch.run.busy();
    let trials = move || {
        let available = s.with(ActSetup::trials);
        form.with(|f| f.trials_within(available))
    };
    let sets = runs_per_job(batch.common, act::ID);
    let runs = move || trials() as usize * form.with(|f| f.variants.len()) * sets.get();
    let pick = Callback::new(move |v: Vec<Variant>| form.update(|f| f.variants = v));
    let tool_source = Signal::derive(move || s.with(ActSetup::is_tool_source));
    let picked = Signal::derive(move || form.with(|f| f.variants.clone()));
    view! {
        <div class="panel batch-form act-batch-form" role="form" aria-label="Batch setup">
            <h2 class="panel-title">"Batch"</h2>
            <p class="muted small">"Run ACT's variants over several trials and compare them as in the paper: ROUGE-L and ROUGE-1 recall, words, the judge's score, trivia recall, a tool task's sub-tasks done. Runs use the model in Settings: "
                <strong>{move || app.settings.with(|s| s.label())}</strong>"."</p>
            <SourceField s=s busy=busy/>
            <Show when=move || s.with(|x| x.source == BUILTIN)>
                <CommunitySelect id="act-batch-community" busy=busy/>
            </Show>
            <TrialFields form=form busy=busy/>
            {Variant::GROUPS.into_iter().map(|(legend, vs)| view! {
                <Checks legend=legend class="act-variants" busy=busy picked=picked on_change=pick
                    all=vs.iter().map(|v| (*v, v.label())).collect() order=Variant::ALL.to_vec()/>
            }).collect_view()}
            <Show when=move || form.with(|f| f.has_plus())>
                <BankField form=form s=s busy=busy/>
            </Show>
            // A tool task's one score is its judge's: always on for a tool set.
            <Toggle id="act-batch-judge" label="LLM judge: the expected components, or a tool task's sub-tasks done (one more call per run)"
                busy=Signal::derive(move || busy.get() || tool_source.get())
                on=Signal::derive(move || form.with(|f| f.judge) || tool_source.get()) set=Callback::new(move |on| form.update(|f| f.judge = on))/>
            <PromptSetsField common=batch.common busy=busy prefix="act-batch" coordinator=act::ID
                note="Side by side, ACT+'s runs on the paper's prompts fill a bank of their own, named after yours with \u{201c}(paper's prompts)\u{201d}. "/>
            <CommonFields common=batch.common busy=busy prefix="act-batch"/>
            <p class="muted small">{move || format!("{} variant(s) × {} trial(s){} = {} runs", form.with(|f| f.variants.len()), trials(), if sets.get() > 1 { " × 2 prompt sets" } else { "" }, runs())}</p>
            <BatchButtons run=batch.run start_label="Start batch" can_start=Signal::derive(move || runs() > 0)
                on_start=Callback::new(move |()| batch.start(app))/>
            <BatchNotices run=batch.run/>
            <ProgressLine run=batch.run/>
        </div>
    }
}

/// The task source (the setup's, shared with the Run page) and a note on it.
#[component]
fn SourceField(s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    let app = use_app();
    view! {
        <div class="field">
            <label for="act-batch-source">"Tasks"</label>
            <select id="act-batch-source" disabled=busy prop:value=move || s.with(|x| x.source.clone())
                on:change=move |ev| pick_source(app, event_target_value(&ev))>
                <option value=BUILTIN>"Built-in design set"</option>
                <option value=TOOLS>"Built-in tool tasks"</option>
                {move || s.with(|x| x.sets.iter().map(|(n, k)| {
                    let label = format!("{n} · {}", kind_tag(*k));
                    // Selected here too: the list may come after the value is set.
                    view! { <option value=n.clone() prop:selected=x.source == *n>{label}</option> }
                }).collect_view())}
                <option value=FREE>"The task typed on the Run page"</option>
            </select>
            {move || s.with(|x| source_note(x, app.settings.with(|st| !st.search_url.trim().is_empty()))).map(|n| view! { <span class="muted small">{n}</span> })}
        </div>
    }
}

/// The first trial and the number of trials (K).
#[component]
fn TrialFields(form: Form, busy: Signal<bool>) -> impl IntoView {
    view! {
        <div class="act-batch-row">
            <div class="field">
                <label for="act-batch-first">"First trial"</label>
                <input id="act-batch-first" type="number" min="0" step="1" disabled=busy
                    prop:value=move || form.with(|f| f.first.to_string())
                    on:change=move |ev| { let n = number(&ev, 0); form.update(|f| f.first = n) }/>
            </div>
            <div class="field">
                <label for="act-batch-trials">"Trials (K)"</label>
                <input id="act-batch-trials" type="number" min="1" max="100" step="1" disabled=busy
                    prop:value=move || form.with(|f| f.trials.to_string())
                    on:change=move |ev| { let n = number(&ev, 5).clamp(1, 100); form.update(|f| f.trials = n) }/>
            </div>
        </div>
        <span class="muted small">"Trial n draws the same agents' tasks every time and seeds the leader, so variants meet the same tasks."</span>
    }
}

/// ACT+'s knowledge bank, and whether the batch starts or continues it.
#[component]
fn BankField(form: Form, s: RwSignal<ActSetup>, busy: Signal<bool>) -> impl IntoView {
    let note = move || {
        let name = form.with(|f| f.bank.trim().to_string());
        s.with(|x| match x.banks.iter().find(|b| b.name == name) {
            Some(b) => format!("Continues \"{name}\" ({} tasks so far). ACT+ trials run one after another, in trial order, each carrying the team's knowledge to the next.", b.trials),
            None => format!("A new bank \"{name}\". ACT+ trials run one after another, in trial order, each carrying the team's knowledge to the next."),
        })
    };
    view! {
        <div class="field">
            <label for="act-batch-bank">"ACT+ knowledge bank"</label>
            <input id="act-batch-bank" list="act-batch-banks" autocomplete="off" disabled=busy
                prop:value=move || form.with(|f| f.bank.clone())
                on:change=move |ev| { let b = event_target_value(&ev).trim().to_string(); form.update(|f| f.bank = b) }/>
            <datalist id="act-batch-banks">
                {move || s.with(|x| x.banks.iter().map(|b| view! { <option value=b.name.clone()></option> }).collect_view())}
            </datalist>
            <span class="muted small">{note}</span>
        </div>
    }
}
