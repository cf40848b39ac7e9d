//! Writing an answer: a loaded model and generation one step at a time
//! (`engine`), the next token from the logits (`sampler`), and the check
//! that stops an answer that keeps repeating itself (`repeat`).

pub mod constrain;
pub mod engine;
pub mod repeat;
pub mod sampler;

pub use engine::{Engine, Job, Step};
