//! The in-page model's forward pass against llama.cpp's on the real model
//! (SmolLM2-135M-Instruct Q4_1), token by token.
//!
//! `tests/fixtures/llama_cpp_smollm2_q4_1.json` holds llama.cpp's greedy
//! answers to four chats (through wllama 3.8.1, keys and values in f32, as
//! Roundtable keeps them), with its five likeliest tokens and their
//! log-probabilities at every step; `e2e/wllama-bench.mjs` wrote it and
//! checks, in `make bench`, that llama.cpp still answers so.
//!
//! Here Roundtable's model reads each chat through its own template and
//! tokenizer, then follows llama.cpp's answer token by token (teacher
//! forcing), and at every step its log-probabilities are compared with
//! llama.cpp's. Comparing free-running texts instead would test luck: the
//! two engines round differently (their sums run in other orders, and an
//! activation a last bit apart can round to another 8-bit step when it is
//! quantised for the next product). On this model that moves
//! log-probabilities by 0.09 nats on average and up to half a nat for
//! unlikely tokens; at a near-tie either engine may go either way, and
//! from there the texts part. candle's own llama, run the same way, is
//! further from llama.cpp than ours (up to 0.64 nats against our 0.47).
//! A wrong mechanism shows: a rotary base of 10 000 for the file's 100 000
//! gives a mean difference of 0.59, an attention scale 10% off 0.21
//! (both tried). A norm epsilon of 1e-6 for 1e-5 is within the noise
//! (0.096): that is as close as two engines' rounding lets a check see.
//!
//! What must hold:
//! - the prompt has as many tokens as llama.cpp's;
//! - every recorded token's log-probability is within `TOKEN_TOL` of
//!   llama.cpp's, and the one llama.cpp chose within `CHOSEN_TOL`;
//! - their mean difference is under `MEAN_TOL`;
//! - where Roundtable's likeliest token is not llama.cpp's, the two were
//!   within `NEAR_TIE` of each other by llama.cpp's own figures.
//!
//! Runs in the real-model step of `scripts/test.sh` (named `real_model_`,
//! which the main native step skips); without `ROUNDTABLE_REAL_MODEL` it
//! says loudly that it did not run.

#![cfg(not(target_arch = "wasm32"))]

use llm_worker::engine::Engine;
use llm_worker::model::{Cache, Model};
use llm_worker::protocol::ChatTurn;
use serde::Deserialize;
use std::fs::File;
use std::io::BufReader;

const FIXTURE: &str = "tests/fixtures/llama_cpp_smollm2_q4_1.json";
/// Any recorded token's log-probability, ours against llama.cpp's (nats).
const TOKEN_TOL: f64 = 0.75;
/// The token llama.cpp chose.
const CHOSEN_TOL: f64 = 0.35;
/// The mean over every recorded token of every step (ours: 0.091).
const MEAN_TOL: f64 = 0.12;
/// llama.cpp's margin between its choice and ours where they differ.
const NEAR_TIE: f64 = 0.35;

#[derive(Deserialize)]
struct Reference {
    model: ModelFile,
    chats: Vec<Chat>,
}

#[derive(Deserialize)]
struct ModelFile {
    file: String,
    bytes: u64,
}

#[derive(Deserialize)]
struct Chat {
    messages: Vec<ChatTurn>,
    prompt_tokens: usize,
    steps: Vec<Step>,
}

#[derive(Deserialize)]
struct Step {
    token: String,
    id: u32,
    /// (token text, log-probability, token id), likeliest first.
    top: Vec<(String, f64, u32)>,
}

fn log_softmax(logits: &[f32]) -> Vec<f64> {
    let max = logits.iter().copied().fold(f32::MIN, f32::max) as f64;
    let z = logits
        .iter()
        .map(|&l| (l as f64 - max).exp())
        .sum::<f64>()
        .ln()
        + max;
    logits.iter().map(|&l| l as f64 - z).collect()
}

#[test]
fn real_model_follows_llama_cpp_token_by_token() {
    let Some(path) = std::env::var_os("ROUNDTABLE_REAL_MODEL") else {
        eprintln!(
            "\n!!! NOT RUN: set ROUNDTABLE_REAL_MODEL to the SmolLM2 GGUF file \
             (`bash scripts/setup.sh --model-path` prints where setup puts it); \
             `make test` does.\n"
        );
        return;
    };
    let reference: Reference = serde_json::from_str(
        &std::fs::read_to_string(FIXTURE).unwrap_or_else(|e| panic!("{FIXTURE}: {e}")),
    )
    .unwrap_or_else(|e| panic!("{FIXTURE}: {e}"));
    let bytes = std::fs::metadata(&path)
        .unwrap_or_else(|e| panic!("{path:?}: {e}"))
        .len();
    assert_eq!(
        bytes, reference.model.bytes,
        "{path:?} is not the file llama.cpp answered with ({})",
        reference.model.file
    );
    let open = || BufReader::new(File::open(&path).expect("the model file opens"));
    let engine = Engine::load(&mut open(), bytes).expect("the engine loads the model");
    let model = Model::read(&mut open(), 512).expect("the model loads");

    let mut failures = Vec::new();
    let (mut sum, mut count, mut agree, mut steps_seen) = (0f64, 0usize, 0usize, 0usize);
    for (c, chat) in reference.chats.iter().enumerate() {
        let n = c + 1;
        let prompt = engine
            .tokenizer()
            .encode(&engine.render(&chat.messages).expect("the template renders"))
            .expect("the prompt tokenizes");
        if prompt.len() != chat.prompt_tokens {
            failures.push(format!(
                "chat {n}: {} prompt tokens, llama.cpp's {}",
                prompt.len(),
                chat.prompt_tokens
            ));
        }
        let mut cache = Cache::default();
        let mut logits = model
            .forward(&prompt, &mut cache)
            .expect("reads the prompt");
        let (mut worst, mut chat_agree) = (0f64, 0usize);
        for (s, step) in chat.steps.iter().enumerate() {
            let ours = log_softmax(&logits.to_vec1::<f32>().expect("logits"));
            let best = (0..ours.len())
                .max_by(|&a, &b| ours[a].total_cmp(&ours[b]))
                .unwrap_or(0) as u32;
            let chosen = step.id;
            for (piece, theirs, id) in &step.top {
                let d = (ours[*id as usize] - theirs).abs();
                let tol = if *id == chosen { CHOSEN_TOL } else { TOKEN_TOL };
                if d > tol {
                    failures.push(format!(
                        "chat {n} step {s}: {piece:?} {:.3} ours, {theirs:.3} llama.cpp's (over {tol})",
                        ours[*id as usize]
                    ));
                }
                worst = worst.max(d);
                sum += d;
                count += 1;
            }
            if best == chosen {
                chat_agree += 1;
            } else {
                let top = step.top.first().map_or(f64::NAN, |t| t.1);
                let ours_in_theirs = step.top.iter().find(|t| t.2 == best);
                let margin = ours_in_theirs.map_or(f64::INFINITY, |t| top - t.1);
                let word = engine.tokenizer().decode(&[best]);
                eprintln!(
                    "[llama.cpp] chat {n} step {s}: ours {word:?}, llama.cpp's {:?}, {margin:.3} apart by llama.cpp's figures",
                    step.token
                );
                if margin > NEAR_TIE {
                    failures.push(format!(
                        "chat {n} step {s}: our likeliest {word:?} is {margin:.3} below llama.cpp's {:?} (a near-tie is under {NEAR_TIE})",
                        step.token
                    ));
                }
            }
            logits = model.forward(&[chosen], &mut cache).expect("a step");
        }
        eprintln!(
            "[llama.cpp] chat {n}: {} prompt tokens, {chat_agree} of {} steps the same likeliest token, worst log-probability difference {worst:.3}",
            prompt.len(),
            chat.steps.len()
        );
        agree += chat_agree;
        steps_seen += chat.steps.len();
    }
    let mean = sum / count.max(1) as f64;
    eprintln!(
        "[llama.cpp] all: {agree} of {steps_seen} steps the same likeliest token; mean log-probability difference {mean:.4} over {count} tokens"
    );
    if mean > MEAN_TOL {
        failures.push(format!(
            "mean log-probability difference {mean:.4}, over {MEAN_TOL}"
        ));
    }
    assert!(steps_seen > 0, "{FIXTURE} has no steps");
    assert!(
        failures.is_empty(),
        "Roundtable's forward pass is not llama.cpp's:\n  {}",
        failures.join("\n  ")
    );
}
