//! Opening a pool for runs: its embedder (the built-in lexical one, or the
//! provider's embeddings at the Settings' provider, with its key), the
//! pool from IndexedDB checked against that embedder, and saving it back
//! after runs that learned.

use super::state::MaelSetup;
use crate::engine::coordinators::mael::experience::Pool;
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::model::embed::Embedder;
use crate::platform::experience_store;
use crate::platform::settings::Settings;
use std::rc::Rc;

/// The embedder the setup asks for (a provider's is probed once).
pub async fn embedder(setup: &MaelSetup, settings: &Settings) -> Result<Rc<dyn Embedder>, String> {
    crate::ui::embeddings::embedder(&setup.embedding_model, settings).await
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
