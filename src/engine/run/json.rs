//! JSON through one serde path. Every `Deserialize` impl is compiled once per
//! deserializer type and every `Serialize` impl once per serializer, so the
//! app converts typed values only to and from compact text; `Value` trees
//! and pretty printing go through text too. This keeps the wasm bundle
//! small (one copy of the event log's serde code instead of four).

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

pub fn to_text<T: Serialize + ?Sized>(v: &T) -> String {
    serde_json::to_string(v).unwrap_or_default()
}

pub fn from_text<T: DeserializeOwned>(s: &str) -> Result<T, serde_json::Error> {
    serde_json::from_str(s)
}

/// A typed value as a JSON tree.
pub fn to_tree<T: Serialize + ?Sized>(v: &T) -> Result<Value, serde_json::Error> {
    serde_json::from_str(&to_text(v))
}

/// A JSON tree as a typed value.
pub fn from_tree<T: DeserializeOwned>(v: &Value) -> Result<T, serde_json::Error> {
    serde_json::from_str(&v.to_string())
}

/// Compact JSON text re-indented for people.
pub fn pretty(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(v) => serde_json::to_string_pretty(&v).unwrap_or_else(|_| text.to_string()),
        Err(_) => text.to_string(),
    }
}
