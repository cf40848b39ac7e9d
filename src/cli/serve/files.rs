//! The built app's files: the right types, `index.html` for paths that are
//! no file (the app's own routes), nothing outside the folder, and the two
//! headers that make the page cross-origin isolated.

use axum::extract::State;
use axum::http::{header, HeaderValue, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

pub struct Files {
    root: PathBuf,
    isolated: bool,
}

impl Files {
    pub fn new(root: PathBuf, isolated: bool) -> Files {
        Files { root, isolated }
    }

    /// The file a URL path names, if it is one inside the root: every
    /// component a plain name (no `..`, no root, no drive).
    fn file(&self, path: &str) -> Option<PathBuf> {
        let rel = Path::new(path.trim_start_matches('/'));
        if !rel.components().all(|c| matches!(c, Component::Normal(_))) {
            return None;
        }
        let full = self.root.join(rel);
        full.is_file().then_some(full)
    }
}

fn content_type(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        "svg" => "image/svg+xml",
        "json" => "application/json",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

pub async fn serve(State(files): State<Arc<Files>>, uri: Uri) -> Response {
    let decoded = percent_encoding::percent_decode_str(uri.path())
        .decode_utf8()
        .ok()
        .map(|p| p.into_owned());
    let path = decoded
        .as_deref()
        .and_then(|p| files.file(p))
        .unwrap_or_else(|| files.root.join("index.html"));
    let mut response = match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, content_type(&path)),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            bytes,
        )
            .into_response(),
        Err(e) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            format!("cannot read {}: {e}", path.display()),
        )
            .into_response(),
    };
    if files.isolated {
        let h = response.headers_mut();
        h.insert(
            "cross-origin-opener-policy",
            HeaderValue::from_static("same-origin"),
        );
        h.insert(
            "cross-origin-embedder-policy",
            HeaderValue::from_static("require-corp"),
        );
    }
    response
}
