//! What the engine's tests share: an engine from a GGUF file's bytes, and
//! greedy generation parameters.

use llm_worker::generate::engine::Engine;
use llm_worker::protocol::GenParams;
use std::io::Cursor;

pub fn load(bytes: &[u8]) -> Result<Engine, String> {
    Engine::load(&mut Cursor::new(bytes), bytes.len() as u64)
}

/// Greedy, at most `max` tokens, seed 1.
pub fn greedy(max: u32) -> GenParams {
    GenParams {
        max_tokens: Some(max),
        seed: 1,
        ..GenParams::default()
    }
}
