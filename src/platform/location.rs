//! The page URL's fragment, where share links carry a run.

pub fn hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Replaces the fragment without adding a history entry (empty clears it).
pub fn set_hash(fragment: &str) {
    let Some(w) = web_sys::window() else { return };
    let Ok(history) = w.history() else { return };
    let path = w.location().pathname().unwrap_or_else(|_| "/".into());
    let url = if fragment.is_empty() {
        path
    } else {
        format!("{path}{fragment}")
    };
    let _ = history.replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url));
}

/// The app's address with a fragment, for share links.
pub fn url_with_fragment(fragment: &str) -> String {
    let Some(w) = web_sys::window() else {
        return fragment.to_string();
    };
    let origin = w.location().origin().unwrap_or_default();
    format!("{origin}/{fragment}")
}
