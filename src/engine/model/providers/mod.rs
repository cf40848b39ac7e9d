//! Real providers. The wire formats (request bodies, SSE parsing, response
//! parsing) are pure and tested natively; the bytes travel through an
//! [`http::HttpTransport`] supplied by the platform (browser fetch) or the CLI.

pub mod anthropic;
pub mod embeddings;
pub mod http;
pub mod openai;
pub mod presets;
pub mod sse;

/// The string field `key` of a JSON object, if it is one.
pub fn text_at(v: &serde_json::Value, key: &str) -> Option<String> {
    v.get(key)
        .and_then(serde_json::Value::as_str)
        .map(str::to_string)
}
