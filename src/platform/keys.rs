//! API keys. By default a key lives only in memory (gone on reload); it is
//! written to localStorage only when the user ticks "Remember on this
//! device", and removed from there when the box is unticked.

use super::storage;
use std::cell::RefCell;
use std::collections::HashMap;

const PREFIX: &str = "roundtable.key.";

thread_local! {
    static MEMORY: RefCell<HashMap<String, String>> = RefCell::new(HashMap::new());
}

fn storage_key(provider: &str) -> String {
    format!("{PREFIX}{provider}")
}

/// The key for a provider: memory first, then a remembered one.
pub fn get(provider: &str) -> Option<String> {
    MEMORY
        .with(|m| m.borrow().get(provider).cloned())
        .or_else(|| storage::get(&storage_key(provider)))
        .filter(|k| !k.is_empty())
}

/// Sets the key; `remember` decides whether it is also stored on this device.
pub fn set(provider: &str, key: &str, remember: bool) -> Result<(), String> {
    let key = key.trim();
    MEMORY.with(|m| {
        let mut m = m.borrow_mut();
        if key.is_empty() {
            m.remove(provider);
        } else {
            m.insert(provider.to_string(), key.to_string());
        }
    });
    if remember && !key.is_empty() {
        storage::set(&storage_key(provider), key)
    } else {
        storage::remove(&storage_key(provider));
        Ok(())
    }
}

/// Whether a key for this provider is stored on the device.
pub fn is_remembered(provider: &str) -> bool {
    storage::get(&storage_key(provider)).is_some_and(|k| !k.is_empty())
}

/// Forgets every key, in memory and on the device.
pub fn forget_all() {
    MEMORY.with(|m| m.borrow_mut().clear());
    for k in storage::keys() {
        if k.starts_with(PREFIX) {
            storage::remove(&k);
        }
    }
}
