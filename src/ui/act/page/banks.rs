//! ACT+'s knowledge banks in this browser: each with the tasks its team
//! has taken on, its agents, knowledge entries and episodes; export one
//! (the bank file the CLI's `--bank` reads too), import a bank file
//! (checked: a file that is not a bank is refused and nothing is stored),
//! delete one after a confirm().

use super::super::state::act_setup;
use crate::platform::act_store;
use crate::platform::files;
use crate::ui::widgets::{target_as, FileButton, ResultLine, ResultMessage};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// A file input's value is cleared so the same file can be picked again.
pub fn clear_input(ev: &leptos::ev::Event) {
    if let Some(input) = target_as::<web_sys::HtmlInputElement>(ev) {
        input.set_value("");
    }
}

/// The browser's confirm dialog (false when there is none).
pub fn confirm(text: &str) -> bool {
    web_sys::window()
        .and_then(|w| w.confirm_with_message(text).ok())
        .unwrap_or(false)
}

/// A name no stored one has (`base`, else `base (2)`…).
fn free_name(base: &str) -> String {
    crate::engine::views::export::free_name(base, |n| {
        act_setup().with_untracked(|s| s.banks.iter().any(|b| b.name == n))
    })
}

fn file_stem(name: &str) -> String {
    crate::engine::views::export::import_stem(name, ".bank")
}

fn export(message: ResultMessage, name: String) {
    spawn_local(async move {
        let r = match act_store::export_bank(&name).await {
            Ok(json) => {
                files::download_text(&format!("{name}.bank.json"), "application/json", &json)
                    .map(|_| format!("Exported the knowledge bank \"{name}\"."))
                    .map_err(|e| format!("Could not save the file: {e}"))
            }
            Err(e) => Err(e),
        };
        message.set(Some(r));
    });
}

fn import(message: ResultMessage, file: web_sys::File) {
    let file_name = file.name();
    message.set(None);
    spawn_local(async move {
        let r = async {
            let text = files::read_named(&file).await?;
            let name = free_name(&file_stem(&file_name));
            let meta = act_store::import_bank(&name, &text)
                .await
                .map_err(|e| format!("{file_name}: {e} Nothing was stored."))?;
            Ok(format!(
                "Imported \"{name}\": {} agents, {} knowledge entries, {} tasks so far.",
                meta.agents, meta.entries, meta.trials
            ))
        }
        .await;
        super::settle(message, r);
    });
}

fn delete(message: ResultMessage, name: String) {
    super::delete_stored(
        message,
        format!("Delete the knowledge bank \"{name}\" and everything its agents learned? Export it first to keep a copy."),
        format!("Deleted the knowledge bank \"{name}\"."),
        async move { act_store::delete_bank(&name).await },
        || (),
    );
}

#[component]
pub fn BanksPanel() -> impl IntoView {
    let s = act_setup();
    let message: ResultMessage = RwSignal::new(None);
    let on_file = move |ev: leptos::ev::Event| {
        if let Some(f) = files::picked(&ev).into_iter().next() {
            import(message, f);
        }
        clear_input(&ev);
    };
    let rows = move || {
        s.with(|x| x.banks.clone())
            .into_iter()
            .map(|b| {
                let (n1, n2) = (b.name.clone(), b.name.clone());
                view! {
                    <tr data-bank=b.name.clone()>
                        <th scope="row">{b.name.clone()}</th>
                        <td class="num">{b.trials}</td>
                        <td class="num">{b.agents}</td>
                        <td class="num">{b.entries}</td>
                        <td class="num">{b.episodes}</td>
                        <td class="act-row-actions">
                            <button type="button" class="link-button small" on:click=move |_| export(message, n1.clone())>"Export"</button>
                            <button type="button" class="link-button small danger" on:click=move |_| delete(message, n2.clone())>"Delete"</button>
                        </td>
                    </tr>
                }
            })
            .collect_view()
    };
    view! {
        <section class="panel act-banks" role="region" aria-label="Knowledge banks">
            <div class="panel-head">
                <h2 class="panel-title">"Knowledge banks (ACT+)"</h2>
                <FileButton text="Import bank…" accept=".json,application/json" label="Import knowledge bank file" on_file=on_file/>
            </div>
            <p class="muted small">"ACT+ carries each agent's knowledge from one task to the next: the team of a bank takes the next task's parts by expertise, re-scores what it knows for the new task, and stores what it learned back. A bank lives in this browser (IndexedDB) and survives reloads; export it to keep a copy or use it with the CLI."</p>
            <ResultLine message=message/>
            <Show when=move || s.with(|x| !x.banks.is_empty()) fallback=|| view! {
                <p class="muted small act-empty-note">"No bank yet: run ACT+ once, or import a bank file."</p>
            }>
                <div class="tp-table-wrap">
                    <table class="tp-table act-list">
                        <thead><tr>
                            <th scope="col">"bank"</th><th scope="col">"tasks so far"</th><th scope="col">"agents"</th>
                            <th scope="col">"entries"</th><th scope="col">"episodes"</th><th scope="col"></th>
                        </tr></thead>
                        <tbody>{rows}</tbody>
                    </table>
                </div>
            </Show>
        </section>
    }
}
