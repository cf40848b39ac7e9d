//! Opening a pool for runs: its embedder (the built-in lexical one, or the
//! provider's embeddings at the Settings' provider, with its key), and the
//! pool from IndexedDB checked against that embedder, as a stored run
//! resource (`platform::stored`: runs that learn save what is new).

use super::state::MaelSetup;
use crate::engine::coordinators::mael::memory::Memory;
use crate::engine::model::embed::Embedder;
use crate::platform::experience_store::{self, Pools};
use crate::platform::settings::Settings;
use crate::platform::stored::Stored;
use std::any::Any;
use std::rc::Rc;

/// The embedder the setup asks for (a provider's is probed once).
pub async fn embedder(setup: &MaelSetup, settings: &Settings) -> Result<Rc<dyn Embedder>, String> {
    crate::ui::embeddings::embedder(&setup.embedding_model, settings).await
}

/// The pool `name` with `embedder`, ready for runs, holding `claim` (the
/// pool's lock, for runs that learn) until it is released.
pub async fn open(
    name: &str,
    embedder: Rc<dyn Embedder>,
    claim: Option<Box<dyn Any>>,
) -> Result<Rc<Stored<Pools>>, String> {
    let pool = experience_store::load(name, &embedder.id()).await?;
    let memory = Memory::new(name, pool, embedder).map_err(|e| e.user_message())?;
    Ok(Stored::opened(name, memory, claim))
}
