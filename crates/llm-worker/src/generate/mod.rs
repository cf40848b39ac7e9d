//! Writing an answer: a loaded model and generation one step at a time
//! (`engine`), the prefix cache (`slots`), one answer in progress (`job`),
//! the next token from the logits (`sampler`), held to a shape
//! (`constrain`), and the check that stops an answer that keeps repeating
//! itself (`repeat`).

pub mod constrain;
pub mod engine;
pub mod job;
pub mod repeat;
pub mod sampler;
mod slots;

pub use engine::Engine;
pub use job::{Finish, Job, Step};
