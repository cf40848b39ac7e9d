//! The offline demo model: a deterministic, scripted stand-in for an LLM so
//! every coordinator runs end to end with no key and no network. It reads the
//! request's step tag to know which part it plays, computes its answer from
//! the request, and streams it in chunks with small delays so the UI behaves
//! as it would live. Its usage is always marked estimated.

pub mod arith;
pub mod general;

use super::{ChatModel, ChatRequest, ChatResponse, ModelError, StreamDelta, ToolCall, Usage};
use crate::engine::base::clock::Clock;
use crate::engine::model::{Call, Completion};
use std::rc::Rc;

pub const MODEL_NAME: &str = "demo";

/// What the demo model answers: text, and native tool calls when it calls tools.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reply {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
}

impl Reply {
    pub fn text(text: impl Into<String>) -> Reply {
        Reply {
            text: text.into(),
            tool_calls: Vec::new(),
        }
    }
}

/// A coordinator's part of the demo model: its answer for one of the
/// coordinator's steps, or None for a step it does not know. Each
/// coordinator brings its own (the app loads it with the coordinator;
/// `coordinators::every_script` chains them all for the CLI and tests).
pub type Script = fn(&ChatRequest) -> Option<Reply>;

/// A script that knows no step: the demo model gives its general answer.
pub fn no_script(_: &ChatRequest) -> Option<Reply> {
    None
}

pub struct DemoModel {
    clock: Rc<dyn Clock>,
    script: Script,
    /// Pause between streamed chunks (0 = no pauses, for benchmarks).
    pub chunk_delay_ms: u64,
    /// Words per streamed chunk.
    pub words_per_chunk: usize,
}

impl DemoModel {
    /// The demo model playing the steps `script` knows, streamed at a
    /// readable pace.
    pub fn new(clock: Rc<dyn Clock>, script: Script) -> Self {
        DemoModel {
            clock,
            script,
            chunk_delay_ms: 35,
            words_per_chunk: 3,
        }
    }

    /// [`DemoModel::new`] without pauses between chunks.
    pub fn instant(clock: Rc<dyn Clock>, script: Script) -> Self {
        DemoModel {
            chunk_delay_ms: 0,
            ..Self::new(clock, script)
        }
    }

    /// The full answer for a request (before streaming): the script's, or
    /// the general answer for a request without a step, or a note that the
    /// step is not one the demo model plays.
    pub fn answer(&self, req: &ChatRequest) -> ChatResponse {
        let Reply { text, tool_calls } = (self.script)(req).unwrap_or_else(|| {
            Reply::text(match req.step.as_deref() {
                None => general::answer(req),
                Some(step) => general::unknown_step(step, req),
            })
        });
        let out_chars = text.chars().count()
            + tool_calls
                .iter()
                .map(|c| c.name.len() + c.arguments.len())
                .sum::<usize>();
        ChatResponse {
            usage: Usage::estimate(req.content_chars(), out_chars),
            finish_reason: Some(
                if tool_calls.is_empty() {
                    "stop"
                } else {
                    "tool_calls"
                }
                .into(),
            ),
            text,
            tool_calls,
            model: Some(MODEL_NAME.into()),
            replayed: false,
            structured: None,
        }
    }
}

/// Splits text into chunks of `words` words, keeping all whitespace, so the
/// concatenation of the chunks is the text.
pub fn chunks(text: &str, words: usize) -> Vec<&str> {
    let words = words.max(1);
    let mut out = Vec::new();
    let mut start = 0;
    let mut count = 0;
    let mut in_word = false;
    for (i, ch) in text.char_indices() {
        let ws = ch.is_whitespace();
        if !ws && !in_word {
            if count == words {
                out.push(&text[start..i]);
                start = i;
                count = 0;
            }
            count += 1;
        }
        in_word = !ws;
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

impl ChatModel for DemoModel {
    fn name(&self) -> String {
        MODEL_NAME.into()
    }

    fn reports_usage(&self) -> bool {
        false
    }

    fn complete<'a>(&'a self, call: Call<'a>) -> Completion<'a> {
        let Call { req, sink, cancel } = call;
        Box::pin(async move {
            let response = self.answer(req);
            for (i, chunk) in chunks(&response.text, self.words_per_chunk)
                .into_iter()
                .enumerate()
            {
                if cancel.is_cancelled() {
                    return Err(ModelError::Cancelled);
                }
                if i > 0 && self.chunk_delay_ms > 0 {
                    self.clock.sleep(self.chunk_delay_ms).await;
                }
                sink(StreamDelta::Text(chunk.to_string()));
            }
            if cancel.is_cancelled() {
                return Err(ModelError::Cancelled);
            }
            Ok(response)
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::cancel::CancelToken;
    use crate::engine::base::clock::FakeClock;
    use crate::engine::model::Message;

    #[test]
    fn chunks_concatenate_to_text() {
        let t = "  Hello there, world!\n\n- a  b\tc  ";
        for n in 1..5 {
            assert_eq!(chunks(t, n).concat(), t);
        }
        assert_eq!(
            chunks("one two three four", 2),
            vec!["one two ", "three four"]
        );
        assert!(chunks("", 3).is_empty());
    }

    #[test]
    fn streams_deterministically_with_delays() {
        let clock = FakeClock::new();
        let m = DemoModel::new(Rc::new(clock.clone()), no_script);
        let req = ChatRequest::new(vec![Message::user("What is 2 + 3 * 4?")]);
        let mut deltas = Vec::new();
        let mut sink = |d: StreamDelta| match d {
            StreamDelta::Text(t) => deltas.push(t),
        };
        let r = futures::executor::block_on(m.complete(Call::new(
            &req,
            &mut sink,
            &CancelToken::new(),
        )))
        .expect("ok");
        assert!(deltas.len() > 5, "streams in several chunks");
        assert_eq!(deltas.concat(), r.text);
        assert!(r.text.contains("**14**"), "{}", r.text);
        assert!(r.usage.estimated);
        assert_eq!(clock.sleeps().len(), deltas.len() - 1);
        let again = m.answer(&req);
        assert_eq!(again.text, r.text, "deterministic");
    }

    #[test]
    fn cancel_stops_the_stream() {
        let m = DemoModel::instant(Rc::new(FakeClock::new()), no_script);
        let req = ChatRequest::new(vec![Message::user("hello")]);
        let c = CancelToken::new();
        c.cancel();
        let mut sink = |_d: StreamDelta| {};
        let r = futures::executor::block_on(m.complete(Call::new(&req, &mut sink, &c)));
        assert_eq!(r, Err(ModelError::Cancelled));
    }
}
