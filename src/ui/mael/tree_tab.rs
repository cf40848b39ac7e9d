//! The call tree tab: every task from the root down, who got it from whom,
//! the judgement, each solution version with the critique rounds between
//! them, the ratings and step rewards. Tasks fold open and closed; the
//! tree remembers what the user closed while the run grows.

use super::view;
use crate::engine::coordinators::mael::html::tree::tree_html;
use crate::ui::state::use_app;
use crate::ui::widgets::target_as;
use leptos::prelude::*;

#[component]
pub fn CallTreePanel() -> impl IntoView {
    let app = use_app();
    let collapsed = RwSignal::new(Vec::<String>::new());
    let key = Memo::new(move |_| (app.run_serial(), view::read(app, view::tree_revision)));
    // Another run: nothing is closed.
    Effect::new(move |prev: Option<u64>| {
        let serial = key.get().0;
        if prev.is_some_and(|p| p != serial) {
            collapsed.set(Vec::new());
        }
        serial
    });
    let html = Memo::new(move |_| {
        key.track();
        let closed = collapsed.get();
        untrack(|| view::read(app, |v| tree_html(v, &closed)))
    });
    let tasks = Memo::new(move |_| {
        key.track();
        untrack(|| {
            view::read(app, |v| {
                v.tasks
                    .iter()
                    .map(|t| t.record.id.clone())
                    .collect::<Vec<_>>()
            })
        })
    });
    // A click on a task's summary toggles it (the browser does); remember
    // the state it will have.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = target_as::<web_sys::Element>(&ev) else {
            return;
        };
        let Some(summary) = target.closest("summary").ok().flatten() else {
            return;
        };
        let Some(details) = summary.parent_element() else {
            return;
        };
        let Some(id) = details.get_attribute("data-task") else {
            return;
        };
        let closing = details.has_attribute("open");
        collapsed.update(|c| {
            c.retain(|x| x != &id);
            if closing {
                c.push(id);
            }
        });
    };
    view! {
        <div class="ml-tree-tab">
            <div class="ml-tree-actions">
                <span class="muted small">{move || format!("{} task{}", tasks.with(Vec::len), if tasks.with(Vec::len) == 1 { "" } else { "s" })}</span>
                <button type="button" class="button small" on:click=move |_| collapsed.set(Vec::new())>"Expand all"</button>
                <button type="button" class="button small" on:click=move |_| collapsed.set(tasks.get())>"Collapse all"</button>
            </div>
            <div class="ml-tree-body" role="region" aria-label="Call tree" on:click=on_click inner_html=html></div>
        </div>
    }
}
