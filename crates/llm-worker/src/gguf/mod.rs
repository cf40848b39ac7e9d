//! Reading a GGUF model file: its header and what it says of the model
//! (`inspect`), its tokenizer, its chat template, and its digest.

pub mod digest;
pub mod inspect;
pub mod template;
pub mod tokenizer;
