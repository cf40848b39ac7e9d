//! The embedder a coordinator's part asks for: the built-in lexical one
//! (`model` empty), or an embeddings model of the Settings' provider
//! (OpenAI-compatible, with its key), probed once. MAEL's pools and ACT+'s
//! knowledge bank use it; its code lands in the chunk of the parts that
//! call it, never in the core.

use crate::engine::model::embed::{Embedder, LexicalEmbedder};
use crate::engine::model::providers::embeddings::HttpEmbedder;
use crate::engine::model::providers::http::{Endpoint, WireFormat};
use crate::engine::run::CancelToken;
use crate::platform::clock::BrowserClock;
use crate::platform::fetch::FetchTransport;
use crate::platform::keys;
use crate::platform::settings::Settings;
use std::rc::Rc;

pub async fn embedder(model: &str, settings: &Settings) -> Result<Rc<dyn Embedder>, String> {
    let model = model.trim();
    if model.is_empty() {
        return Ok(Rc::new(LexicalEmbedder));
    }
    let spec = settings.model_spec();
    if spec.format != Some(WireFormat::OpenaiCompatible) {
        return Err("Provider embeddings need an OpenAI-compatible provider in Settings (OpenAI, Ollama, LM Studio, vLLM…). Leave the embeddings model empty to use the built-in lexical embedder.".into());
    }
    let endpoint = Endpoint::new(
        WireFormat::OpenaiCompatible,
        &spec.base_url,
        model,
        keys::get(&settings.provider),
    );
    let e = HttpEmbedder::new(
        &spec.provider,
        endpoint,
        Rc::new(FetchTransport),
        Rc::new(BrowserClock),
    );
    e.probe(&CancelToken::new()).await.map_err(|err| {
        format!(
            "The embeddings model \"{model}\" did not answer: {}",
            err.user_message()
        )
    })?;
    Ok(Rc::new(e))
}
