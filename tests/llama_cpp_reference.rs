//! The in-page model's forward pass against llama.cpp's on the real model
//! (SmolLM2-135M-Instruct Q4_1), token by token and free-running.
//!
//! `tests/fixtures/llama_cpp_smollm2_q4_1.json` holds llama.cpp's greedy
//! answers to four chats (through wllama 3.8.1, keys and values in f32),
//! with its five likeliest tokens and their log-probabilities at every
//! step; `e2e/wllama-bench.mjs` wrote it and checks, in `make bench`, that
//! llama.cpp still answers so.
//!
//! Roundtable's pass rounds as llama.cpp's wasm build does, operation for
//! operation (`model::arith`, `attention`, `mathf`, the Q8_0 kernel), so
//! what must hold is equality:
//! - the prompt has as many tokens as llama.cpp's;
//! - teacher-forced (following llama.cpp's answer), at every step our
//!   likeliest token is llama.cpp's and every recorded log-probability is
//!   within `TOKEN_TOL` of llama.cpp's (which sums its softmax in f32, in
//!   its own order: the only difference left, about 1e-4);
//! - free-running, our greedy text is llama.cpp's, its stop token included.
//!
//! That the check sees one rounding is measured, not assumed: the same
//! pass with its input (the token embeddings) one ulp off
//! (`Pass::nudge`) must be far outside the tolerance (`NUDGE_MIN`); it
//! is about 0.1 nats on average, a thousand times the tolerance.
//!
//! Runs in the real-model step of `scripts/test.sh` (named `real_model_`,
//! which the main native step skips); without `ROUNDTABLE_REAL_MODEL` it
//! says loudly that it did not run.

#![cfg(not(target_arch = "wasm32"))]

use llm_worker::generate::engine::Engine;
use llm_worker::model::{Cache, Model};
use llm_worker::protocol::ChatTurn;
use serde::Deserialize;
use std::fs::File;
use std::io::BufReader;

const FIXTURE: &str = "tests/fixtures/llama_cpp_smollm2_q4_1.json";
/// Any recorded token's log-probability, ours against llama.cpp's (nats).
const TOKEN_TOL: f64 = 2e-3;
/// The mean difference a pass one ulp off must at least show, so that
/// `TOKEN_TOL` is known to catch a single rounding (ours: about 0.1).
const NUDGE_MIN: f64 = 0.02;

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
    /// "stop" when llama.cpp's next token ended the answer.
    finish: String,
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

/// The next token's logits after `tokens`; `nudge` moves the pass's input
/// by one ulp (the rounding floor).
fn forward(model: &Model, tokens: &[u32], cache: &mut Cache, nudge: bool) -> Vec<f32> {
    let mut pass = model.begin(tokens, cache).expect("a pass begins");
    if nudge {
        pass.nudge().expect("the pass's input moves");
    }
    while pass.layers_done() < model.layers() {
        model.layer(&mut pass, cache).expect("a layer runs");
    }
    model
        .finish(pass)
        .and_then(|t| t.to_vec1::<f32>())
        .expect("the logits")
}

fn argmax(xs: &[f32]) -> u32 {
    (0..xs.len())
        .max_by(|&a, &b| xs[a].total_cmp(&xs[b]))
        .unwrap_or(0) as u32
}

/// Log-probabilities at each of llama.cpp's steps: after the prompt,
/// then after each of its tokens but the last.
fn follow(model: &Model, prompt: &[u32], chat: &Chat, nudge: bool) -> Vec<Vec<f64>> {
    let mut cache = Cache::default();
    let mut out = vec![log_softmax(&forward(model, prompt, &mut cache, nudge))];
    for step in chat.steps.iter().take(chat.steps.len().saturating_sub(1)) {
        out.push(log_softmax(&forward(model, &[step.id], &mut cache, nudge)));
    }
    out
}

/// Greedy free-running: `max` tokens, or fewer when one of `stops` comes.
fn greedy(model: &Model, prompt: &[u32], max: usize, stops: &[u32], nudge: bool) -> Vec<u32> {
    let mut cache = Cache::default();
    let mut logits = forward(model, prompt, &mut cache, nudge);
    let mut out = Vec::new();
    while out.len() < max {
        let best = argmax(&logits);
        out.push(best);
        if stops.contains(&best) {
            break;
        }
        logits = forward(model, &[best], &mut cache, nudge);
    }
    out
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
    let stops = engine.stops();

    let mut failures = Vec::new();
    let (mut sum, mut nudge_sum, mut count, mut worst) = (0f64, 0f64, 0usize, 0f64);
    let (mut agree, mut steps_seen, mut same_text) = (0, 0, 0);
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

        // Teacher forcing: each step against llama.cpp's, and our own
        // pass nudged by one ulp against it.
        let ours_all = follow(&model, &prompt, chat, false);
        let nudged_all = follow(&model, &prompt, chat, true);
        let mut chat_agree = 0usize;
        for (s, step) in chat.steps.iter().enumerate() {
            let (ours, nudged) = (&ours_all[s], &nudged_all[s]);
            let best = (0..ours.len())
                .max_by(|&a, &b| ours[a].total_cmp(&ours[b]))
                .unwrap_or(0) as u32;
            for (piece, theirs, id) in &step.top {
                let d = (ours[*id as usize] - theirs).abs();
                if d > TOKEN_TOL {
                    failures.push(format!(
                        "chat {n} step {s}: {piece:?} {:.5} ours, {theirs:.5} llama.cpp's (over {TOKEN_TOL})",
                        ours[*id as usize]
                    ));
                }
                worst = f64::max(worst, d);
                sum += d;
                nudge_sum += (nudged[*id as usize] - theirs).abs();
                count += 1;
            }
            if best == step.id {
                chat_agree += 1;
            } else {
                failures.push(format!(
                    "chat {n} step {s}: our likeliest {:?}, llama.cpp's {:?}",
                    engine.tokenizer().decode(&[best]),
                    step.token
                ));
            }
        }

        // Free-running: llama.cpp's answer, then its stop token if it
        // stopped.
        let theirs: Vec<u32> = chat.steps.iter().map(|s| s.id).collect();
        let ours = greedy(&model, &prompt, theirs.len() + 1, stops, false);
        let said = |t: &[u32]| format!("{:?}", engine.tokenizer().decode(t));
        let same = if chat.finish == "stop" {
            ours.len() == theirs.len() + 1
                && ours[..theirs.len()] == theirs[..]
                && ours.last().is_some_and(|t| stops.contains(t))
        } else {
            // Cut off: ours must go on as far, the same.
            ours.len() > theirs.len() && ours[..theirs.len()] == theirs[..]
        };
        if same {
            same_text += 1;
            eprintln!(
                "[llama.cpp] chat {n}: free-running, our text is llama.cpp's: {}",
                said(&ours)
            );
        } else {
            failures.push(format!(
                "chat {n}: free-running, ours is not llama.cpp's ({}):\n    ours       {}\n    llama.cpp  {}",
                chat.finish,
                said(&ours),
                said(&theirs)
            ));
        }
        eprintln!(
            "[llama.cpp] chat {n}: {} prompt tokens, {chat_agree} of {} steps the same likeliest token",
            prompt.len(),
            chat.steps.len()
        );
        agree += chat_agree;
        steps_seen += chat.steps.len();
    }
    let mean = sum / count.max(1) as f64;
    let nudged = nudge_sum / count.max(1) as f64;
    let chats = reference.chats.len();
    eprintln!(
        "[llama.cpp] all: {agree} of {steps_seen} steps the same likeliest token; log-probabilities {mean:.6} nats apart on average over {count} tokens, at most {worst:.6}\n\
         [llama.cpp] our pass with its input one ulp off: {nudged:.4} apart on average\n\
         [llama.cpp] free-running: our text is llama.cpp's on {same_text} of {chats} chats"
    );
    if nudged < NUDGE_MIN {
        failures.push(format!(
            "a pass one ulp off is only {nudged:.4} nats from llama.cpp's: the check cannot see a rounding"
        ));
    }
    assert!(steps_seen > 0, "{FIXTURE} has no steps");
    assert!(
        failures.is_empty(),
        "Roundtable's forward pass is not llama.cpp's:\n  {}",
        failures.join("\n  ")
    );
}
