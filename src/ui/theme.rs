//! Light / dark theme: a `data-theme` attribute on <html>; CSS variables do the rest.

pub fn system_prefers_dark() -> bool {
    web_sys::window()
        .and_then(|w| w.match_media("(prefers-color-scheme: dark)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// The theme in effect for a setting (`light`, `dark`, or empty = system).
pub fn effective(setting: &str) -> &'static str {
    match setting {
        "dark" => "dark",
        "light" => "light",
        _ if system_prefers_dark() => "dark",
        _ => "light",
    }
}

pub fn apply(setting: &str) {
    if let Some(el) = web_sys::window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute("data-theme", effective(setting));
    }
}
