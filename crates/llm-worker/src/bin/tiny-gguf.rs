//! Writes a generated GGUF model for the end-to-end tests and `make bench`:
//!
//!   tiny-gguf scripted OUT.gguf "REPLY" [NAME]   answers every prompt with REPLY
//!   tiny-gguf looping OUT.gguf "REPLY" [NAME]    writes REPLY again and again, never ending
//!   tiny-gguf random OUT.gguf SHAPE [DTYPE]      random weights; SHAPE: tiny,
//!                                                tiny-qwen2, medium, quant-bench, smollm2-135m,
//!                                                qwen2.5-0.5b; DTYPE: q8_0 (default), q4_0,
//!                                                q4_1, q5_0, q5_1, q2k, q3k, q4k, q5k, q6k, f16, f32

use candle_core::quantized::GgmlDType;
use llm_worker::tiny::{looping_model, random_model, scripted_model, Shape};
use std::process::ExitCode;

fn run(args: &[String]) -> Result<(), String> {
    let usage = "usage: tiny-gguf scripted OUT REPLY [NAME] | tiny-gguf looping OUT REPLY [NAME] | tiny-gguf random OUT SHAPE [DTYPE]";
    let (kind, out) = match args {
        [k, o, ..] => (k.as_str(), o.as_str()),
        _ => return Err(usage.into()),
    };
    let bytes = match kind {
        "scripted" => {
            let reply = args.get(2).ok_or(usage)?;
            let name = args.get(3).map(String::as_str).unwrap_or("Tiny scripted");
            scripted_model(name, reply)?
        }
        "looping" => {
            let reply = args.get(2).ok_or(usage)?;
            let name = args.get(3).map(String::as_str).unwrap_or("Tiny looping");
            looping_model(name, reply)?
        }
        "random" => {
            let shape = match args.get(2).map(String::as_str) {
                Some("tiny") => Shape::tiny("llama"),
                Some("tiny-qwen2") => Shape::tiny("qwen2"),
                Some("medium") => Shape::medium(),
                Some("quant-bench") => Shape::quant_bench(),
                Some("smollm2-135m") => Shape::smollm2_135m(),
                Some("qwen2.5-0.5b") => Shape::qwen25_05b(),
                other => return Err(format!("unknown shape {other:?}\n{usage}")),
            };
            let dtype = match args.get(3).map(String::as_str).unwrap_or("q8_0") {
                "q8_0" => GgmlDType::Q8_0,
                "q4_0" => GgmlDType::Q4_0,
                "q4_1" => GgmlDType::Q4_1,
                "q5_0" => GgmlDType::Q5_0,
                "q5_1" => GgmlDType::Q5_1,
                "q2k" => GgmlDType::Q2K,
                "q3k" => GgmlDType::Q3K,
                "q4k" => GgmlDType::Q4K,
                "q5k" => GgmlDType::Q5K,
                "q6k" => GgmlDType::Q6K,
                "f16" => GgmlDType::F16,
                "f32" => GgmlDType::F32,
                other => return Err(format!("unknown type {other}\n{usage}")),
            };
            random_model(&shape, dtype, 42).map_err(|e| e.to_string())?
        }
        _ => return Err(usage.into()),
    };
    std::fs::write(out, &bytes).map_err(|e| format!("{out}: {e}"))?;
    println!("{out}: {} bytes", bytes.len());
    Ok(())
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("{e}");
            ExitCode::FAILURE
        }
    }
}
