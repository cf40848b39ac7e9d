//! Files and the clipboard: download a text or binary file, read a picked or
//! dropped file, copy text, render an SVG to PNG.

use js_sys::{Array, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

fn js_error(e: JsValue) -> String {
    js_sys::Reflect::get(&e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| format!("{e:?}"))
}

fn blob(parts: &JsValue, mime: &str) -> Result<web_sys::Blob, String> {
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    web_sys::Blob::new_with_str_sequence_and_options(parts, &opts).map_err(js_error)
}

fn download_blob(b: &web_sys::Blob, filename: &str) -> Result<(), String> {
    let url = web_sys::Url::create_object_url_with_blob(b).map_err(js_error)?;
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let a: web_sys::HtmlAnchorElement = document
        .create_element("a")
        .map_err(js_error)?
        .unchecked_into();
    a.set_href(&url);
    a.set_download(filename);
    a.click();
    // Revoking at once can cancel the download before it starts.
    gloo_timers::callback::Timeout::new(30_000, move || {
        let _ = web_sys::Url::revoke_object_url(&url);
    })
    .forget();
    Ok(())
}

/// A local date and time for file names: `20261123-1405`.
pub fn stamp(ms: f64) -> String {
    let d = js_sys::Date::new(&JsValue::from_f64(ms));
    format!(
        "{:04}{:02}{:02}-{:02}{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date(),
        d.get_hours(),
        d.get_minutes()
    )
}

/// Offers `text` as a file download.
pub fn download_text(filename: &str, mime: &str, text: &str) -> Result<(), String> {
    let parts = Array::of1(&JsValue::from_str(text));
    download_blob(&blob(&parts, mime)?, filename)
}

/// Offers `bytes` as a file download.
pub fn download_bytes(filename: &str, mime: &str, bytes: &[u8]) -> Result<(), String> {
    let parts = Array::of1(&Uint8Array::from(bytes));
    let opts = web_sys::BlobPropertyBag::new();
    opts.set_type(mime);
    let b =
        web_sys::Blob::new_with_u8_array_sequence_and_options(&parts, &opts).map_err(js_error)?;
    download_blob(&b, filename)
}

/// The files a file input's change event carries (none when the event did
/// not come from a file input).
pub fn picked(ev: &web_sys::Event) -> Vec<web_sys::File> {
    use wasm_bindgen::JsCast;
    let Some(list) = ev
        .target()
        .and_then(|t| t.dyn_into::<web_sys::HtmlInputElement>().ok())
        .and_then(|input| input.files())
    else {
        return Vec::new();
    };
    (0..list.length()).filter_map(|i| list.get(i)).collect()
}

/// Reads a File the user picked or dropped, as text.
pub async fn read_text(file: &web_sys::File) -> Result<String, String> {
    JsFuture::from(file.text())
        .await
        .map_err(js_error)?
        .as_string()
        .ok_or_else(|| "The file is not text.".into())
}

/// [`read_text`], its error naming the file ("Could not read team.json: …").
pub async fn read_named(file: &web_sys::File) -> Result<String, String> {
    read_text(file)
        .await
        .map_err(|e| format!("Could not read {}: {e}", file.name()))
}

/// Copies text to the clipboard.
pub async fn copy(text: &str) -> Result<(), String> {
    let clipboard = web_sys::window()
        .ok_or("no window")?
        .navigator()
        .clipboard();
    JsFuture::from(clipboard.write_text(text))
        .await
        .map(|_| ())
        .map_err(js_error)
}

/// Renders SVG markup to a PNG (at `scale`) and downloads it.
pub async fn download_svg_as_png(
    svg: &str,
    width: f64,
    height: f64,
    scale: f64,
    filename: &str,
) -> Result<(), String> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or("no document")?;
    let parts = Array::of1(&JsValue::from_str(svg));
    let url = web_sys::Url::create_object_url_with_blob(&blob(&parts, "image/svg+xml")?)
        .map_err(js_error)?;
    let img = web_sys::HtmlImageElement::new().map_err(js_error)?;
    img.set_src(&url);
    JsFuture::from(img.decode()).await.map_err(js_error)?;
    let canvas: web_sys::HtmlCanvasElement = document
        .create_element("canvas")
        .map_err(js_error)?
        .unchecked_into();
    canvas.set_width((width * scale) as u32);
    canvas.set_height((height * scale) as u32);
    let ctx: web_sys::CanvasRenderingContext2d = canvas
        .get_context("2d")
        .map_err(js_error)?
        .ok_or("no 2d canvas")?
        .unchecked_into();
    ctx.draw_image_with_html_image_element_and_dw_and_dh(
        &img,
        0.0,
        0.0,
        width * scale,
        height * scale,
    )
    .map_err(js_error)?;
    let _ = web_sys::Url::revoke_object_url(&url);
    let data_url = canvas
        .to_data_url_with_type("image/png")
        .map_err(js_error)?;
    let b64 = data_url.split_once(',').map(|(_, b)| b).unwrap_or("");
    let bytes = base64_decode(b64)?;
    let array = Uint8Array::from(bytes.as_slice());
    download_blob(&blob(&Array::of1(&array), "image/png")?, filename)
}

fn base64_decode(s: &str) -> Result<Vec<u8>, String> {
    use base64::Engine;
    base64::engine::general_purpose::STANDARD
        .decode(s)
        .map_err(|e| e.to_string())
}
