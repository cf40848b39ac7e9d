//! The batch form: variants, the task source (the setup's, shared with the
//! Run page), trials, runs at once, the LLM judge, History, ACT+'s bank;
//! then Start, Pause / Resume and Stop, with progress and cost so far.

use super::super::setup::pick_source;
use super::super::state::{act_setup, ActSetup, BUILTIN, FREE};
use super::batch_state::{use_batch, BatchActivity};
use crate::engine::coordinators::act::contract::Variant;
use crate::engine::domains::creative::builtin;
use crate::engine::model::pricing::format_usd;
use crate::platform::act_store::SetKind;
use crate::ui::state::use_app;
use leptos::prelude::*;

/// The variants in the form's groups.
const GROUPS: [(&str, &[Variant]); 3] = [
    ("ACT", &[Variant::Act, Variant::ActPlus]),
    (
        "Ablations (Table 6)",
        &[
            Variant::NoKnowledge,
            Variant::NoTeamMeeting,
            Variant::NoKeywords,
            Variant::NoTaskExploration,
            Variant::NoBreakTime,
            Variant::NoImportance,
            Variant::Baseline,
        ],
    ),
    (
        "One model (Table 7)",
        &[
            Variant::Standard,
            Variant::Cot,
            Variant::SelfRefine,
            Variant::Spp,
        ],
    ),
];

fn number(ev: &leptos::ev::Event, default: u32) -> u32 {
    event_target_value(ev).trim().parse().unwrap_or(default)
}

#[component]
pub fn BatchForm() -> impl IntoView {
    let app = use_app();
    let batch = use_batch();
    let form = batch.form;
    let s = act_setup();
    let busy = Signal::derive(move || batch.activity.get() != BatchActivity::Idle);
    let trials = move || {
        let available = s.with(ActSetup::trials);
        form.with(|f| f.trials_within(available))
    };
    let runs = move || trials() as usize * form.with(|f| f.variants.len());
    let variant_box = move |v: Variant| {
        view! {
            <label class="check">
                <input type="checkbox" disabled=busy
                    prop:checked=move || form.with(|f| f.variants.contains(&v))
                    on:change=move |ev| {
                        let on = event_target_checked(&ev);
                        form.update(|f| {
                            f.variants.retain(|x| *x != v);
                            if on {
                                f.variants.push(v);
                                f.variants.sort_by_key(|x| Variant::ALL.iter().position(|y| y == x));
                            }
                        })
                    }/>
                {v.label()}
            </label>
        }
    };
    let source_note = move || {
        s.with(|x| match x.source.as_str() {
            FREE => Some(
                "A typed task is the same on every trial and has no references, so its runs are not scored: pick a task set to compare variants.".to_string(),
            ),
            BUILTIN => None,
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
        })
    };
    let status = move || {
        let done = batch.items.with(Vec::len);
        let total = batch.total.get();
        let running = batch.started.get().saturating_sub(done);
        let secs = batch.elapsed_ms.get() / 1000.0;
        match batch.activity.get() {
            BatchActivity::Idle => format!(
                "Done: {done} of {total} runs in {}",
                if secs < 10.0 {
                    format!("{secs:.1} s")
                } else {
                    format!("{secs:.0} s")
                }
            ),
            BatchActivity::Running => format!(
                "{} of {total} runs started, {done} done, {running} running · {secs:.0} s",
                batch.started.get().max(done)
            ),
            BatchActivity::Paused => format!(
                "Paused: {done} of {total} done (runs wait before their next LLM call) · {secs:.0} s"
            ),
            BatchActivity::Stopping => "Stopping…".to_string(),
        }
    };
    view! {
        <div class="panel batch-form act-batch-form" role="form" aria-label="Batch setup">
            <h2 class="panel-title">"Batch"</h2>
            <p class="muted small">"Run ACT's variants over several trials and compare them as in the paper: ROUGE-L and ROUGE-1 recall, words, the judge's score, trivia recall. Runs use the model in Settings: "
                <strong>{move || app.settings.with(|s| s.label())}</strong>"."</p>
            <div class="field">
                <label for="act-batch-source">"Tasks"</label>
                <select id="act-batch-source" disabled=busy prop:value=move || s.with(|x| x.source.clone())
                    on:change=move |ev| pick_source(app, event_target_value(&ev))>
                    <option value=BUILTIN>"Built-in design set"</option>
                    {move || s.with(|x| x.sets.iter().map(|(n, k)| {
                        let label = format!("{n} · {}", if *k == SetKind::Trivia { "trivia" } else { "imported" });
                        view! { <option value=n.clone()>{label}</option> }
                    }).collect_view())}
                    <option value=FREE>"The task typed on the Run page"</option>
                </select>
                {move || source_note().map(|n| view! { <span class="muted small">{n}</span> })}
            </div>
            <Show when=move || s.with(|x| x.source == BUILTIN)>
                <div class="field">
                    <label for="act-batch-community">"Community"</label>
                    <select id="act-batch-community" disabled=busy prop:value=move || s.with(|x| x.community.clone())
                        on:change=move |ev| { let c = event_target_value(&ev); s.update(|x| x.community = c) }>
                        <option value="">"by trial (tea, cafe, … in turn)"</option>
                        {builtin::COMMUNITIES.iter().map(|c| view! { <option value=*c>{*c}</option> }).collect_view()}
                    </select>
                </div>
            </Show>
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
                <div class="field">
                    <label for="act-batch-concurrency">"Runs at once"</label>
                    <input id="act-batch-concurrency" type="number" min="1" max="16" step="1" disabled=busy
                        prop:value=move || form.with(|f| f.concurrency.to_string())
                        on:change=move |ev| { let n = number(&ev, 2).clamp(1, 16); form.update(|f| f.concurrency = n) }/>
                </div>
            </div>
            <span class="muted small">"Trial n draws the same agents' tasks every time and seeds the leader, so variants meet the same tasks."</span>
            {GROUPS.into_iter().map(|(legend, vs)| view! {
                <fieldset class="act-variants">
                    <legend>{legend}</legend>
                    {vs.iter().copied().map(variant_box).collect_view()}
                </fieldset>
            }).collect_view()}
            <Show when=move || form.with(|f| f.has_plus())>
                <div class="field">
                    <label for="act-batch-bank">"ACT+ knowledge bank"</label>
                    <input id="act-batch-bank" list="act-batch-banks" autocomplete="off" disabled=busy
                        prop:value=move || form.with(|f| f.bank.clone())
                        on:change=move |ev| { let b = event_target_value(&ev).trim().to_string(); form.update(|f| f.bank = b) }/>
                    <datalist id="act-batch-banks">
                        {move || s.with(|x| x.banks.iter().map(|b| view! { <option value=b.name.clone()></option> }).collect_view())}
                    </datalist>
                    <span class="muted small">{move || {
                        let name = form.with(|f| f.bank.trim().to_string());
                        s.with(|x| match x.banks.iter().find(|b| b.name == name) {
                            Some(b) => format!("Continues \"{name}\" ({} tasks so far). ACT+ trials run one after another, in trial order, each carrying the team's knowledge to the next.", b.trials),
                            None => format!("A new bank \"{name}\". ACT+ trials run one after another, in trial order, each carrying the team's knowledge to the next."),
                        })
                    }}</span>
                </div>
            </Show>
            <div class="field-row batch-caps">
                <div class="field">
                    <label for="act-batch-cap-usd">"Batch spend cap (USD)"</label>
                    <input id="act-batch-cap-usd" type="number" min="0" step="0.01" placeholder="no cap" inputmode="decimal" disabled=busy
                        prop:value=move || form.with(|f| f.cap_usd.map(|v| v.to_string()).unwrap_or_default())
                        on:change=move |ev| { let v = event_target_value(&ev).trim().parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0); form.update(|f| f.cap_usd = v) }/>
                </div>
                <div class="field">
                    <label for="act-batch-cap-tokens">"Batch token cap"</label>
                    <input id="act-batch-cap-tokens" type="number" min="1" step="1000" placeholder="no cap" inputmode="numeric" disabled=busy
                        prop:value=move || form.with(|f| f.cap_tokens.map(|v| v.to_string()).unwrap_or_default())
                        on:change=move |ev| { let v = event_target_value(&ev).trim().parse::<u64>().ok(); form.update(|f| f.cap_tokens = v) }/>
                </div>
            </div>
            <p class="muted small">"The batch stops each run cleanly before the call that would pass the batch's cap (each run also keeps the Settings' per-run caps)."</p>
            <label class="check">
                <input type="checkbox" id="act-batch-judge" disabled=busy prop:checked=move || form.with(|f| f.judge)
                    on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.judge = on) }/>
                "LLM judge: count the expected components (one more call per run)"
            </label>
            <label class="check">
                <input type="checkbox" id="act-batch-save" disabled=busy prop:checked=move || form.with(|f| f.save)
                    on:change=move |ev| { let on = event_target_checked(&ev); form.update(|f| f.save = on) }/>
                "Record each run in History"
            </label>
            <p class="muted small">{move || format!("{} variant(s) × {} trial(s) = {} runs", form.with(|f| f.variants.len()), trials(), runs())}</p>
            <div class="batch-actions">
                <Show when=move || batch.activity.get() == BatchActivity::Idle
                    fallback=move || view! {
                        <Show when=move || batch.activity.get() == BatchActivity::Paused
                            fallback=move || view! { <button class="button" disabled=move || batch.activity.get() == BatchActivity::Stopping on:click=move |_| batch.pause()>"Pause"</button> }>
                            <button class="button primary" on:click=move |_| batch.resume()>"Resume"</button>
                        </Show>
                        <button class="button danger" disabled=move || batch.activity.get() == BatchActivity::Stopping on:click=move |_| batch.stop()>"Stop"</button>
                    }>
                    <button class="button primary" disabled=move || runs() == 0 on:click=move |_| batch.start(app)>"Start batch"</button>
                </Show>
            </div>
            {move || batch.error.get().map(|e| view! { <div class="notice error small" role="alert"><p>{e}</p></div> })}
            {move || batch.note.get().map(|n| view! { <div class="notice warning small" role="status"><p>{n}</p></div> })}
            <Show when=move || batch.total.get() != 0>
                <div class="batch-progress" role="status" aria-label="Batch progress">
                    <progress max=move || batch.total.get().to_string() value=move || batch.items.with(Vec::len).to_string()></progress>
                    <p class="small">{status}</p>
                    <p class="small muted">{move || format!("Cost so far: {}", format_usd(batch.cost_usd.get()))}
                        {move || app.settings.with(|s| s.is_demo()).then_some(" (the demo model is free)")}</p>
                </div>
            </Show>
        </div>
    }
}
