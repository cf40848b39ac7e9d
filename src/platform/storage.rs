//! localStorage helpers. Reads never panic: a missing or blocked storage
//! behaves as empty.

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn get(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

/// Stores a value; returns a message when the browser refuses (quota, privacy mode).
pub fn set(key: &str, value: &str) -> Result<(), String> {
    let s = storage().ok_or("This browser does not allow local storage for this page.")?;
    s.set_item(key, value)
        .map_err(|_| "The browser refused to save (storage full or blocked). Free some space or allow site data.".to_string())
}

pub fn remove(key: &str) {
    if let Some(s) = storage() {
        let _ = s.remove_item(key);
    }
}

/// All keys currently in localStorage (for tests and diagnostics).
pub fn keys() -> Vec<String> {
    let Some(s) = storage() else {
        return Vec::new();
    };
    let n = s.length().unwrap_or(0);
    (0..n).filter_map(|i| s.key(i).ok().flatten()).collect()
}
