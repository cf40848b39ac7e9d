//! The text protocol's grammar against its reader, through the engine that
//! holds a local model to it (llguidance, over a vocabulary of one token a
//! byte): what the grammar lets a model write is read as whole calls of
//! the agent's own tools, and a half call, a call of another tool or of
//! the wrong arity cannot be written. Native only (the engine's crate is
//! the CLI's dependency).

use super::*;
use crate::engine::domains::travel::tools::TOOL_NAMES;
use crate::engine::model::ChatResponse;
use llm_worker::generate::constrain::{Constraint, Vocab, BYTE_EOS as EOS};

fn byte_vocab() -> Vocab {
    Vocab::bytes().expect("a vocabulary")
}

fn lark(user: &ToolUser<'_>, calls: bool) -> String {
    let req = user.offer(ChatRequest::new(Vec::new()), calls);
    assert!(req.tools.is_empty(), "the text protocol sends no specs");
    req.params.grammar.expect("a grammar").lark()
}

/// Whether a model held to `lark` can write `text` and end there.
fn writes(vocab: &Vocab, lark: &str, text: &str) -> bool {
    let c = Constraint::of_grammar(vocab, lark).expect("the grammar compiles");
    c.writes(text).expect("a mask")
}

fn user(allowed: &'static [&'static str]) -> ToolUser<'static> {
    ToolUser {
        agent: "hotel",
        allowed,
        mode: ToolMode::Text,
    }
}

fn problems(text: &str) -> Vec<String> {
    let r = ChatResponse {
        text: text.into(),
        ..Default::default()
    };
    calls_in(&r, ToolMode::Text, 1)
        .into_iter()
        .filter_map(|c| c.problem)
        .collect()
}

#[test]
fn the_grammar_lets_through_whole_calls_of_the_agents_tools_and_free_text() {
    let vocab = byte_vocab();
    let all = lark(&user(&TOOL_NAMES), true);
    for ok in [
        "Thought 1: I need flights first.\nAction 1: FlightSearch[New York, Boston, 2022-03-16]",
        "**Action 1:** `FlightSearch[\"St. Petersburg, FL\", Rockford, 2022-03-16]`\nthen more",
        "AccommodationSearch[Martha's Vineyard]\nRestaurantSearch[ Boston ]",
        "GoogleDistanceMatrix[Austin, Dallas, self-driving] and CitySearch[Texas]",
        "My part:\n```json\n{\"route\": [\"Boston\", \"Austin\"], \"legs\": [{\"day\": 1}]}\n```",
        "See [the listing] (2 nights) at São Paulo — no calls needed.",
        "",
    ] {
        assert!(writes(&vocab, &all, ok), "refused: {ok:?}");
        assert_eq!(problems(ok), Vec::<String>::new(), "{ok:?}");
    }
}

#[test]
fn a_half_call_a_wrong_tool_or_arity_cannot_be_written() {
    let vocab = byte_vocab();
    let hotel = lark(&user(&["AccommodationSearch"]), true);
    for bad in [
        // Never closed, or closed on another line.
        "AccommodationSearch[Boston",
        "AccommodationSearch[Boston,\n]",
        // Not its tool, no tool, a tool name inside a word.
        "FlightSearch[Boston, Austin, 2022-03-16]",
        "HotelSearch[Boston]",
        "MyAccommodationSearch[Boston]",
        // One argument, not two, none, or an unbalanced one.
        "AccommodationSearch[Boston, Austin]",
        "AccommodationSearch[]",
        "AccommodationSearch[(Boston]",
        "AccommodationSearch['Boston]",
    ] {
        assert!(!writes(&vocab, &hotel, bad), "written: {bad:?}");
    }
    assert!(writes(&vocab, &hotel, "AccommodationSearch[Boston]"));
    // The last round offers no tool: no call at all.
    let last = lark(&user(&["AccommodationSearch"]), false);
    assert!(!writes(&vocab, &last, "AccommodationSearch[Boston]"));
    assert!(writes(&vocab, &last, "Stays: [\"Boston\"], 2 nights."));
}

/// A small generator (the same texts every run).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

#[test]
fn whatever_the_grammar_lets_a_model_write_is_read_without_a_problem() {
    // A model that writes pieces of calls and prose at random, held to
    // the grammar (a piece is taken only if every byte of it is allowed):
    // each text it can end is read as whole calls, none refused.
    let vocab = byte_vocab();
    let all = lark(&user(&TOOL_NAMES), true);
    let pieces = [
        "FlightSearch[",
        "GoogleDistanceMatrix[",
        "CitySearch[",
        "AttractionSearch[",
        "Boston",
        "New York",
        "2022-03-16",
        ", ",
        ",",
        "]",
        "[",
        "\n",
        " ",
        "\"",
        "'",
        "x",
        "(",
        ")",
        ":",
        "Action 1: ",
        "Thought: ",
        "{\"a\": [1]}",
        "taxi",
        "Hotel",
        "*",
        "`",
    ];
    let mut rng = Lcg(7);
    let mut calls = 0;
    for _ in 0..600 {
        let mut c = Constraint::of_grammar(&vocab, &all).expect("compiles");
        let mut text = String::new();
        for _ in 0..rng.below(60) {
            let piece = pieces[rng.below(pieces.len())];
            let bytes: Vec<u32> = piece.bytes().map(u32::from).collect();
            if c.would_take(&bytes).expect("checked") == bytes.len() {
                for b in bytes {
                    c.accept(b).expect("taken");
                }
                text.push_str(piece);
            }
        }
        if !c.allows(EOS).expect("a mask") {
            continue;
        }
        calls += parse_all(&text, &TOOL_NAMES).len();
        assert_eq!(problems(&text), Vec::<String>::new(), "{text:?}");
    }
    println!("the walk wrote {calls} whole calls");
    assert!(calls > 20, "the walk wrote calls: {calls}");
}
