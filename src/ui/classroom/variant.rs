//! "Run a variant of this": the shown run's task again with another
//! variant (or mode) and the model in Settings; when it ends, the two runs
//! open side by side on the Compare page.

use crate::ui::coordinators::ui_of;
use crate::ui::state::{use_app, Activity};
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;

/// The variants a coordinator's runs can be started in: (id, label), as
/// its row says.
pub fn variants_of(coordinator: &str) -> Vec<(&'static str, &'static str)> {
    (ui_of(coordinator).variants)()
}

#[component]
pub fn VariantDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let choice = RwSignal::new(String::new());
    let parent = Memo::new(move |_| {
        app.shown.with(|s| {
            s.as_ref().map(|s| {
                (
                    s.config.coordinator.clone(),
                    s.config.variant.clone(),
                    s.config.models.first().map(|m| m.spec.clone()),
                )
            })
        })
    });
    Effect::new(move |_| {
        let open = app.variant_open.get();
        let Some(d) = dialog.get() else { return };
        if open {
            let (coordinator, variant, _) = parent.get_untracked().unwrap_or_default();
            let other = variants_of(&coordinator)
                .into_iter()
                .find(|(id, _)| Some(*id) != variant.as_deref())
                .map(|(id, _)| id.to_string())
                .or(variant)
                .unwrap_or_default();
            choice.set(other);
            if !d.open() {
                let _ = d.show_modal();
            }
        } else if d.open() {
            d.close();
        }
    });
    let list = move || parent.with(|p| p.as_ref().map(|p| variants_of(&p.0)).unwrap_or_default());
    let same = move || {
        let spec = app.settings.with(|s| s.model_spec());
        parent.with(|p| {
            p.as_ref().is_some_and(|(_, v, m)| {
                let v = v.clone().unwrap_or_default();
                v == choice.get() && m.as_ref() == Some(&spec)
            })
        })
    };
    let start = move |_| {
        let Some(doc) = app.doc() else { return };
        let v = choice.get_untracked();
        app.variant_open.set(false);
        crate::ui::launch::run_variant(app, doc, Some(v).filter(|v| !v.is_empty()));
    };
    view! {
        <dialog class="variant-dialog" node_ref=dialog aria-labelledby="variant-title"
            on:close=move |_: leptos::ev::Event| app.variant_open.set(false)>
            <DialogHead id="variant-title" title="Run a variant of this" on_close=Callback::new(move |()| app.variant_open.set(false))/>
            <p class="muted small">"The same task again, another way. When it ends, the two runs open side by side on the Compare page."</p>
            {move || {
                let l = list();
                if l.is_empty() {
                    view! { <p class="small">"This coordinator has one way of working: change the model in Settings to compare two models on the task."</p> }.into_any()
                } else {
                    view! {
                        <div class="field">
                            <label for="variant-pick">"Variant"</label>
                            <select id="variant-pick" prop:value=move || choice.get() on:change=move |ev| choice.set(event_target_value(&ev))>
                                {l.into_iter().map(|(id, label)| {
                                    let this = parent.with_untracked(|p| p.as_ref().and_then(|p| p.1.clone())).as_deref() == Some(id);
                                    view! { <option value=id>{if this { format!("{label} (this run's)") } else { label.to_string() }}</option> }
                                }).collect_view()}
                            </select>
                        </div>
                    }.into_any()
                }
            }}
            <p class="small">"Model: "<strong>{move || app.settings.with(|s| s.label())}</strong>" "
                <button class="link-button small" on:click=move |_| app.settings_open.set(true)>"Change in Settings…"</button></p>
            <Show when=same>
                <p class="small muted" role="note">"Same variant and same model as this run: the runs will differ only where the model answers differently (the demo model answers the same)."</p>
            </Show>
            <footer class="dialog-foot">
                <button class="button" on:click=move |_| app.variant_open.set(false)>"Cancel"</button>
                <button class="button primary" disabled=move || app.activity.get() != Activity::Idle on:click=start>"Start the variant"</button>
            </footer>
        </dialog>
    }
}
