//! Opening a pool for runs: its embedder (the built-in lexical one, or the
//! provider's embeddings at the Settings' provider, with its key), the
//! pool from IndexedDB checked against that embedder, and saving it back
//! after runs that learned.

use super::state::MaelSetup;
use crate::engine::coordinators::mael::experience::Pool;
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::model::embed::{Embedder, LexicalEmbedder};
use crate::engine::model::providers::embeddings::HttpEmbedder;
use crate::engine::model::providers::http::{Endpoint, WireFormat};
use crate::engine::run::CancelToken;
use crate::platform::clock::BrowserClock;
use crate::platform::experience_store;
use crate::platform::fetch::FetchTransport;
use crate::platform::keys;
use crate::platform::settings::Settings;
use std::rc::Rc;

/// The embedder the setup asks for (a provider's is probed once).
pub async fn embedder(setup: &MaelSetup, settings: &Settings) -> Result<Rc<dyn Embedder>, String> {
    let model = setup.embedding_model.trim();
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

/// The pool `name` with `embedder`, ready for runs; the number of entries
/// stored before (what a save need not write again).
pub async fn open(name: &str, embedder: Rc<dyn Embedder>) -> Result<(Rc<Memory>, usize), String> {
    let pool = experience_store::load(name, &embedder.id()).await?;
    let saved = pool.len();
    let memory = Memory::new(name, pool, embedder).map_err(|e| e.user_message())?;
    Ok((Rc::new(memory), saved))
}

/// Writes the pool back (the entries after `saved` are new).
pub async fn save(memory: &Memory, saved: usize) -> Result<(), String> {
    let pool: Pool = memory.pool.borrow().clone();
    experience_store::save(&memory.name, &pool, saved)
        .await
        .map_err(|e| e.user_message())
}
