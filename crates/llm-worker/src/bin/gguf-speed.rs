//! Measures a GGUF model natively (`make bench`): load time, prompt tokens
//! read per second (prefill) and tokens written per second (decode), greedy.
//!
//!   gguf-speed MODEL.gguf [PROMPT_WORDS] [NEW_TOKENS]

use llm_worker::generate::engine::{Engine, Step};
use llm_worker::protocol::{ChatTurn, GenParams};
use std::process::ExitCode;
use std::time::Instant;

fn run(args: &[String]) -> Result<(), String> {
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
    let mut job = engine.start(&turns, &params)?;
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
    println!(
        "{{\"model\":{:?},\"threads\":{},\"load_ms\":{load_ms:.0},\"prompt_tokens\":{p},\"prefill_tok_s\":{:.1},\"output_tokens\":{o},\"decode_tok_s\":{:.1}}}",
        path.rsplit('/').next().unwrap_or(path),
        candle_core::utils::get_num_threads(),
        p as f64 * 1000.0 / prefill_ms.max(1e-3),
        o.saturating_sub(1) as f64 * 1000.0 / decode_ms.max(1e-3),
    );
    Ok(())
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
