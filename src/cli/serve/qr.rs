//! `GET /live/qr.svg?text=…`: a QR code of a class's join link as SVG, so
//! a projector shows it and phones' cameras open the link. Drawn here, by
//! the relay, so the page's wasm carries no QR encoder.

use axum::extract::Query;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use qrcode::{Color, EcLevel, QrCode};
use std::collections::HashMap;
use std::fmt::Write;

/// A join link is short; this keeps the code scannable from a projector.
pub const MAX_TEXT: usize = 512;
/// Light modules around the code, as the standard asks.
const QUIET: usize = 4;

/// The SVG of `text`'s QR code (error correction M), one unit a module.
pub fn svg(text: &str) -> Result<String, String> {
    if text.is_empty() || text.len() > MAX_TEXT {
        return Err(format!(
            "a QR code here holds 1 to {MAX_TEXT} bytes (a join link)"
        ));
    }
    let code = QrCode::with_error_correction_level(text.as_bytes(), EcLevel::M)
        .map_err(|e| format!("no QR code for this text: {e}"))?;
    let width = code.width();
    let size = width + 2 * QUIET;
    let mut path = String::new();
    for (i, color) in code.to_colors().iter().enumerate() {
        if *color == Color::Dark {
            let (x, y) = (i % width + QUIET, i / width + QUIET);
            let _ = write!(path, "M{x} {y}h1v1h-1z");
        }
    }
    Ok(format!(
        concat!(
            r#"<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {s} {s}" "#,
            r#"shape-rendering="crispEdges" role="img" aria-label="QR code of the join link">"#,
            r##"<rect width="{s}" height="{s}" fill="#fff"/><path fill="#000" d="{p}"/></svg>"##
        ),
        s = size,
        p = path
    ))
}

pub async fn serve(Query(q): Query<HashMap<String, String>>) -> Response {
    match svg(q.get("text").map_or("", String::as_str)) {
        Ok(svg) => (
            [
                (header::CONTENT_TYPE, "image/svg+xml"),
                (header::CACHE_CONTROL, "no-cache"),
            ],
            svg,
        )
            .into_response(),
        Err(e) => (StatusCode::BAD_REQUEST, e).into_response(),
    }
}
