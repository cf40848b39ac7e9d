//! A model that answers from a queue of scripted outcomes. Tests use it to
//! drive coordinators and the engine through exact sequences (including
//! errors); it records every request it received.

use super::{ChatModel, ChatRequest, ChatResponse, ModelError, StreamDelta, Usage};
use crate::engine::model::{Call, Completion};
use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

type Answerer = Rc<dyn Fn(&ChatRequest) -> ChatResponse>;

#[derive(Clone, Default)]
pub struct ScriptedModel {
    name: String,
    script: Rc<RefCell<VecDeque<Result<ChatResponse, ModelError>>>>,
    seen: Rc<RefCell<Vec<ChatRequest>>>,
    fallback: Option<Answerer>,
}

impl ScriptedModel {
    pub fn new(name: &str) -> Self {
        ScriptedModel {
            name: name.into(),
            ..Self::default()
        }
    }

    /// Queues a text answer (with a real-looking usage).
    pub fn then_text(self, text: &str) -> Self {
        self.then(Ok(ChatResponse {
            text: text.into(),
            usage: Usage::counted(10, text.len() as u64),
            finish_reason: Some("stop".into()),
            ..ChatResponse::default()
        }))
    }

    pub fn then(self, outcome: Result<ChatResponse, ModelError>) -> Self {
        self.script.borrow_mut().push_back(outcome);
        self
    }

    /// Answers requests with `f` once the script is used up.
    pub fn otherwise(mut self, f: impl Fn(&ChatRequest) -> ChatResponse + 'static) -> Self {
        self.fallback = Some(Rc::new(f));
        self
    }

    /// Every request received so far.
    pub fn requests(&self) -> Vec<ChatRequest> {
        self.seen.borrow().clone()
    }
}

impl ChatModel for ScriptedModel {
    fn name(&self) -> String {
        self.name.clone()
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            self.seen.borrow_mut().push(req.clone());
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            let next = self.script.borrow_mut().pop_front();
            let outcome = match next {
                Some(o) => o,
                None => match &self.fallback {
                    Some(f) => Ok(f(req)),
                    None => Err(ModelError::Malformed {
                        detail: "the scripted model has no more answers".into(),
                    }),
                },
            };
            if let Ok(r) = &outcome {
                for piece in super::demo::chunks(&r.text, 2) {
                    sink(StreamDelta::Text(piece.to_string()));
                }
            }
            outcome
        })
    }
}
