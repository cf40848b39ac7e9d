//! The browser HTTP transport: `fetch` with an `AbortController` (so Stop
//! really closes the connection) and the response body read as a stream.

use crate::engine::model::providers::http::{HttpRequest, HttpResponse, HttpTransport};
use crate::engine::model::ModelError;
use crate::engine::run::CancelToken;
use futures::future::LocalBoxFuture;
use futures::StreamExt;
use js_sys::{Reflect, Uint8Array};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, ReadableStreamDefaultReader};

#[derive(Default)]
pub struct FetchTransport;

fn js_message(e: &JsValue) -> String {
    Reflect::get(e, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .or_else(|| e.as_string())
        .unwrap_or_else(|| "the browser blocked or failed the request".into())
}

fn network(detail: String) -> ModelError {
    ModelError::Network { detail, hint: None }
}

/// Reads one chunk; `None` at the end of the body.
async fn read_chunk(
    reader: &ReadableStreamDefaultReader,
    cancel: &CancelToken,
) -> Option<Result<Vec<u8>, ModelError>> {
    match JsFuture::from(reader.read()).await {
        Ok(result) => {
            let done = Reflect::get(&result, &JsValue::from_str("done"))
                .ok()
                .and_then(|d| d.as_bool())
                .unwrap_or(true);
            if done {
                return None;
            }
            let value = Reflect::get(&result, &JsValue::from_str("value")).ok()?;
            Some(Ok(value
                .dyn_into::<Uint8Array>()
                .map(|a| a.to_vec())
                .unwrap_or_default()))
        }
        Err(_) if cancel.is_cancelled() => Some(Err(ModelError::Cancelled)),
        Err(e) => Some(Err(network(js_message(&e)))),
    }
}

impl HttpTransport for FetchTransport {
    fn post(
        &self,
        req: HttpRequest,
        cancel: CancelToken,
    ) -> LocalBoxFuture<'static, Result<HttpResponse, ModelError>> {
        Box::pin(async move {
            let controller = AbortController::new().map_err(|e| network(js_message(&e)))?;
            let abort = controller.clone();
            cancel.on_cancel(move || abort.abort());
            let signal = controller.signal();
            let mut builder = gloo_net::http::Request::post(&req.url).abort_signal(Some(&signal));
            for (k, v) in &req.headers {
                builder = builder.header(k, v);
            }
            let request = builder.body(req.body).map_err(|e| network(e.to_string()))?;
            let response = match request.send().await {
                Ok(r) => r,
                Err(_) if cancel.is_cancelled() => return Err(ModelError::Cancelled),
                Err(e) => return Err(network(e.to_string())),
            };
            let headers = response.headers();
            let content_type = headers.get("content-type").unwrap_or_default();
            let retry_after = headers.get("retry-after");
            let status = response.status();
            let reader: Option<ReadableStreamDefaultReader> =
                response.body().map(|b| b.get_reader().unchecked_into());
            let body = futures::stream::unfold(
                (reader, cancel, controller),
                |(reader, cancel, controller)| async move {
                    let r = reader.as_ref()?;
                    let chunk = read_chunk(r, &cancel).await?;
                    Some((chunk, (reader, cancel, controller)))
                },
            )
            .boxed_local();
            Ok(HttpResponse {
                status,
                content_type,
                retry_after,
                body,
            })
        })
    }
}

/// GETs a text file from the app's own origin (the built-in lessons).
pub async fn get_text(url: &str) -> Result<String, String> {
    let r = gloo_net::http::Request::get(url)
        .send()
        .await
        .map_err(|e| e.to_string())?;
    if !r.ok() {
        return Err(format!("HTTP {} for {url}", r.status()));
    }
    r.text().await.map_err(|e| e.to_string())
}

/// The page's GET for ACT's web tools (the search endpoint the user set,
/// the pages its results name): the body as text. A site that does not
/// let a page read it (CORS) fails with the browser's reason.
#[derive(Default)]
pub struct PageGet;

impl crate::engine::domains::agentverse::web::WebGet for PageGet {
    fn get(&self, url: &str) -> LocalBoxFuture<'_, Result<String, String>> {
        let url = url.to_string();
        Box::pin(async move {
            get_text(&url).await.map_err(|e| {
                format!(
                    "{e} (a site must allow a page's requests, CORS, for the browser to read it)"
                )
            })
        })
    }
}
