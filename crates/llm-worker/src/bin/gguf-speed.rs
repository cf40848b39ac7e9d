//! Measures a GGUF model natively (`make bench`): load time, prompt tokens
//! read per second (prefill) and tokens written per second (decode), greedy.
//!
//!   gguf-speed [--threads N] MODEL.gguf [PROMPT_WORDS] [NEW_TOKENS] [SCHEMA.json|GRAMMAR.lark]
//!
//! `--threads N`: the threads the products run on (default every core).
//!
//! With a schema (the largest step shape: `roundtable shapes --largest`)
//! or a Lark grammar (the text tool protocol's: `roundtable shapes
//! --grammar`), the answer is written again held to it (constrained
//! decoding), and the cost is printed: decode speed with and without, and
//! how long the first token's mask takes to be ready (the vocabulary's
//! trie, made once per model, apart).

use llm_worker::generate::constrain::{Constraint, Vocab};
use llm_worker::generate::{Engine, Step};
use llm_worker::protocol::{ChatTurn, GenParams};
use std::process::ExitCode;

#[cfg(not(target_arch = "wasm32"))]
use llm_worker::model::quant::native;
/// A native tool: in a wasm build (lints only) one thread, the page's kernels.
#[cfg(target_arch = "wasm32")]
mod native {
    pub fn set_threads(_: usize) -> usize {
        1
    }
    pub fn threads() -> usize {
        1
    }
    pub fn kernels() -> &'static str {
        llm_worker::model::quant::BUILD
    }
}
use std::time::Instant;

fn run(args: &[String]) -> Result<(), String> {
    let mut args = args.to_vec();
    if let Some(at) = args.iter().position(|a| a == "--threads") {
        let n: usize = args
            .get(at + 1)
            .and_then(|s| s.parse().ok())
            .filter(|&n| n > 0)
            .ok_or("--threads needs a count of at least 1")?;
        native::set_threads(n);
        args.drain(at..at + 2);
    }
    let path = args
        .first()
        .ok_or("usage: gguf-speed MODEL.gguf [PROMPT_WORDS] [NEW_TOKENS]")?;
    let words: usize = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let new: u32 = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(64);
    let t0 = Instant::now();
    let mut file = std::fs::File::open(path).map_err(|e| format!("{path}: {e}"))?;
    let len = file.metadata().map_err(|e| e.to_string())?.len();
    let mut engine = Engine::load(&mut std::io::BufReader::new(&mut file), len)?;
    let load_ms = t0.elapsed().as_secs_f64() * 1000.0;
    let topic = "the agents of a team plan a trip, share notes and check each other's work";
    let body: Vec<&str> = topic.split(' ').cycle().take(words).collect();
    let turns = [
        ChatTurn {
            role: "system".into(),
            content: "You are a helpful assistant.".into(),
        },
        ChatTurn {
            role: "user".into(),
            content: format!("Summarise in one paragraph: {}", body.join(" ")),
        },
    ];
    let params = GenParams {
        max_tokens: Some(new),
        seed: 1,
        ..GenParams::default()
    };
    let free = timed(&mut engine, &turns, &params)?;
    println!(
        "{{\"model\":{:?},\"threads\":{},\"kernels\":{:?},\"load_ms\":{load_ms:.0},\"prompt_tokens\":{},\"prefill_tok_s\":{:.1},\"output_tokens\":{},\"decode_tok_s\":{:.1}}}",
        path.rsplit('/').next().unwrap_or(path),
        native::threads(),
        native::kernels(),
        free.prompt,
        free.prefill_tok_s,
        free.output,
        free.decode_tok_s,
    );
    let Some(schema_path) = args.get(3) else {
        return Ok(());
    };
    let text = std::fs::read_to_string(schema_path).map_err(|e| format!("{schema_path}: {e}"))?;
    // A Lark grammar (the text tool protocol's: `roundtable shapes
    // --grammar`) or a JSON Schema.
    let lark = text.trim_start().starts_with("start:");
    let schema: Option<serde_json::Value> = if lark {
        None
    } else {
        Some(serde_json::from_str(&text).map_err(|e| format!("{schema_path}: {e}"))?)
    };
    let t = Instant::now();
    let eos = engine.stops().first().copied().unwrap_or(0);
    let vocab = Vocab::new(engine.tokenizer(), eos)?;
    let vocab_ms = t.elapsed().as_secs_f64() * 1000.0;
    let t = Instant::now();
    let mut constraint = match &schema {
        Some(s) => Constraint::new(&vocab, s)?,
        None => Constraint::of_grammar(&vocab, &text)?,
    };
    let mut logits = vec![0f32; engine.tokenizer().vocab_size];
    constraint.mask(&mut logits)?;
    let first_mask_ms = t.elapsed().as_secs_f64() * 1000.0;
    // The same prompt again (from a cold cache), now held to the schema
    // or grammar; each generation twice, interleaved, the better of each
    // kept.
    let held_params = GenParams {
        grammar: lark.then(|| text.clone()),
        schema,
        ..params.clone()
    };
    let mut best = (free.decode_tok_s, 0.0f64, 0usize);
    for _ in 0..2 {
        engine.clear_cache();
        let f = timed(&mut engine, &turns, &params)?;
        engine.clear_cache();
        let h = timed(&mut engine, &turns, &held_params)?;
        best = (
            best.0.max(f.decode_tok_s),
            best.1.max(h.decode_tok_s),
            h.output,
        );
    }
    println!(
        "{{\"constrained\":{:?},\"schema_bytes\":{},\"vocab_trie_ms\":{vocab_ms:.0},\"first_mask_ms\":{first_mask_ms:.1},\"decode_tok_s_free\":{:.1},\"decode_tok_s_held\":{:.1},\"held_output_tokens\":{},\"held_over_free\":{:.3}}}",
        if lark { "grammar" } else { "schema" },
        text.len(),
        best.0,
        best.1,
        best.2,
        best.1 / best.0.max(1e-9),
    );
    Ok(())
}

struct Timed {
    prompt: usize,
    output: usize,
    prefill_tok_s: f64,
    decode_tok_s: f64,
}

/// One greedy generation, timed: prompt read, then tokens written.
fn timed(engine: &mut Engine, turns: &[ChatTurn], params: &GenParams) -> Result<Timed, String> {
    let mut job = engine.start(turns, params)?;
    let t1 = Instant::now();
    let mut prefill_ms = 0.0;
    loop {
        match engine.step(&mut job)? {
            Step::Prefill { done, total } if done == total => {
                prefill_ms = t1.elapsed().as_secs_f64() * 1000.0;
            }
            Step::Done(_) => break,
            _ => {}
        }
    }
    let decode_ms = t1.elapsed().as_secs_f64() * 1000.0 - prefill_ms;
    let (p, o) = (job.prompt_tokens(), job.output_tokens());
    Ok(Timed {
        prompt: p,
        output: o,
        prefill_tok_s: p as f64 * 1000.0 / prefill_ms.max(1e-3),
        decode_tok_s: o.saturating_sub(1) as f64 * 1000.0 / decode_ms.max(1e-3),
    })
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("gguf-speed: {e}");
            ExitCode::FAILURE
        }
    }
}
