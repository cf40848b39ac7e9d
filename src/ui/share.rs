//! The share dialog: the run as a link (`#run=…`, no key, no account), or
//! the run file when the link would be too long to share comfortably.

use super::state::use_app;
use crate::engine::share;
use crate::platform::{files, location};
use crate::ui::widgets::DialogHead;
use leptos::html;
use leptos::prelude::*;
use leptos::task::spawn_local;

#[derive(Clone, PartialEq)]
enum Link {
    /// Being encoded (a long run takes a moment: the dialog is open meanwhile).
    Making,
    Ready(String),
    TooLong {
        kb: usize,
        limit: u32,
    },
    Failed(String),
}

#[component]
pub fn ShareDialog() -> impl IntoView {
    let app = use_app();
    let dialog = NodeRef::<html::Dialog>::new();
    let link = RwSignal::new(None::<Link>);
    let copied = RwSignal::new(None::<Result<(), String>>);
    Effect::new(move |_| {
        let open = app.share_open.get();
        let Some(d) = dialog.get() else { return };
        if open {
            copied.set(None);
            let doc = app.doc();
            link.set(doc.is_some().then_some(Link::Making));
            if !d.open() {
                let _ = d.show_modal();
            }
            let Some(doc) = doc else { return };
            // Encoded once the open dialog is painted (it says so meanwhile).
            let limit = app.settings.get_untracked().share_limit_kb.max(1);
            spawn_local(async move {
                super::lazy::settled().await;
                gloo_timers::future::TimeoutFuture::new(0).await;
                if !app.share_open.get_untracked() {
                    return;
                }
                link.set(Some(match share::encode(&doc) {
                    Ok(payload) => {
                        let fragment = share::fragment(&payload);
                        if fragment.len() > limit as usize * 1024 {
                            Link::TooLong {
                                kb: fragment.len().div_ceil(1024),
                                limit,
                            }
                        } else {
                            Link::Ready(location::url_with_fragment(&fragment))
                        }
                    }
                    Err(e) => Link::Failed(e),
                }));
            });
        } else if d.open() {
            d.close();
        }
    });
    let download = move |_| {
        if let Some(doc) = app.doc() {
            if let Err(e) = files::download_text(
                "roundtable-run.json",
                "application/json",
                &doc.to_json_pretty(),
            ) {
                link.set(Some(Link::Failed(e)));
            }
        }
    };
    let copy = move |url: String| {
        spawn_local(async move {
            copied.set(Some(files::copy(&url).await));
        });
    };
    view! {
        <dialog class="share" node_ref=dialog aria-labelledby="share-title"
            on:close=move |_: leptos::ev::Event| app.share_open.set(false)>
            <DialogHead id="share-title" title="Share this run" on_close=Callback::new(move |()| app.share_open.set(false))/>
            {move || match link.get() {
                None => view! { <p class="muted">"Nothing to share yet."</p> }.into_any(),
                Some(Link::Making) => view! { <p class="muted" role="status">"Making the link…"</p> }.into_any(),
                Some(Link::Ready(url)) => {
                    let u = url.clone();
                    view! {
                        <p class="muted small">"Anyone with this link can replay the run in their browser, with no key and no account. It holds the task, prompts and answers — never your API key."</p>
                        <div class="input-with-button">
                            <input class="share-url" aria-label="Share link" readonly prop:value=url.clone() on:focus=move |ev| {
                                if let Some(t) = ev.target() {
                                    use wasm_bindgen::JsCast;
                                    if let Ok(i) = t.dyn_into::<web_sys::HtmlInputElement>() { i.select(); }
                                }
                            }/>
                            <button class="button primary" on:click=move |_| copy(u.clone())>"Copy link"</button>
                        </div>
                        <p class="muted small">{format!("{} characters", url.len())}</p>
                        {move || copied.get().map(|r| match r {
                            Ok(()) => view! { <p class="ok" role="status">"Link copied."</p> }.into_any(),
                            Err(_) => view! { <p class="bad" role="status">"The browser did not allow copying: select the link above and copy it yourself."</p> }.into_any(),
                        })}
                    }.into_any()
                }
                Some(Link::TooLong { kb, limit }) => view! {
                    <p role="alert">{format!("This run would make a {kb} KB link, longer than the {limit} KB that can be shared comfortably (you can change the limit in Settings).")}</p>
                    <p class="muted small">"Download the run file instead: anyone can open it in Roundtable with History → Import, or by dropping it on the page."</p>
                    <button class="button primary" on:click=download>"Download run file"</button>
                }.into_any(),
                Some(Link::Failed(e)) => view! { <p class="bad" role="alert">{format!("Could not make the link: {e}")}</p> }.into_any(),
            }}
        </dialog>
    }
}
