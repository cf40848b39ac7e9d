//! The engine through the production path (GGUF bytes → inspect → tokenizer,
//! template → candle), on models written by `tiny`.

use candle_core::quantized::gguf_file::Value;
use candle_core::quantized::GgmlDType;
use llm_worker::generate::{Engine, Finish, Step};
use llm_worker::protocol::{ChatTurn, GenParams, LocalSampling, Sampling};
use llm_worker::tiny::{
    looping_model, random_model, random_model_with, scripted_model, scripted_model_pieces, Shape,
};
mod support;
use std::io::Cursor;
use support::engine::{greedy, load};

fn turn(role: &str, content: &str) -> ChatTurn {
    ChatTurn {
        role: role.into(),
        content: content.into(),
    }
}

fn conversation() -> Vec<ChatTurn> {
    vec![
        turn("system", "You are the hotel expert."),
        turn("user", "Hello world, plan the tool answer."),
    ]
}

/// Generates, collecting the deltas.
fn run(
    engine: &mut Engine,
    turns: &[ChatTurn],
    params: &GenParams,
) -> (String, String, usize, usize, Finish) {
    let mut streamed = String::new();
    let (job, finish) = engine
        .generate(turns, params, &mut |d| streamed.push_str(d))
        .expect("generates");
    (
        streamed,
        engine.text(&job),
        job.prompt_tokens(),
        job.output_tokens(),
        finish,
    )
}

#[test]
fn random_models_of_each_architecture_and_quantisation_load_and_stream() {
    // K-quants come in blocks of 256 values: that model is wider.
    let wide = Shape {
        hidden: 256,
        ffn: 256,
        ..Shape::tiny("llama")
    };
    for (shape, dtype) in [
        (Shape::tiny("llama"), GgmlDType::Q8_0),
        (Shape::tiny("qwen2"), GgmlDType::Q8_0),
        (wide, GgmlDType::Q4K),
        (Shape::tiny("llama"), GgmlDType::Q4_0),
    ] {
        let arch = shape.arch;
        let bytes = random_model(&shape, dtype, 7).expect("writes");
        let mut engine = load(&bytes).unwrap_or_else(|e| panic!("{arch} {dtype:?}: {e}"));
        assert_eq!(engine.info.arch, arch);
        assert_eq!(engine.template_source(), "file");
        let turns = conversation();
        let (streamed, text, prompt, output, finish) = run(&mut engine, &turns, &greedy(24));
        // Real counts: the prompt's tokens are those of the rendered template.
        let rendered = engine.render(&turns).expect("renders");
        assert!(rendered.ends_with("<|im_start|>assistant\n"), "{rendered}");
        assert_eq!(
            prompt,
            engine
                .tokenizer()
                .encode(&rendered)
                .expect("tokenizes")
                .len()
        );
        assert!((1..=24).contains(&output), "{arch}: {output} tokens");
        assert_eq!(
            streamed, text,
            "{arch} {dtype:?}: the deltas add up to the answer"
        );
        if output < 24 {
            assert_eq!(finish, Finish::Stop);
        } else {
            assert_eq!(finish, Finish::Length);
        }
        // Greedy decoding is deterministic, from a cold cache too.
        engine.clear_cache();
        let again = run(&mut engine, &turns, &greedy(24));
        assert_eq!(again.1, text, "{arch} {dtype:?}: same answer twice");
    }
}

#[test]
fn the_tokenizer_round_trips_and_keeps_special_tokens_whole() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 3).expect("writes");
    let engine = load(&bytes).expect("loads");
    let tok = engine.tokenizer();
    let text = "<|im_start|>user\nHello world, 42 tools!<|im_end|>\n";
    let ids = tok.encode(text).expect("encodes");
    assert_eq!(ids[0], tok.id("<|im_start|>").expect("special"));
    // No stray space token after a special token (candle's fallback adds one).
    assert_eq!(tok.inner.id_to_token(ids[1]).as_deref(), Some("user"));
    assert!(
        ids.contains(&tok.id("Hello").expect("merged word")),
        "BPE merges apply"
    );
    assert!(ids.contains(&tok.id("Ġworld").expect("merged word")));
    assert_eq!(tok.inner.decode(&ids, false).expect("decodes"), text);
    // Digits are single tokens (SmolLM2's pre-tokenizer).
    assert!(
        ids.contains(&tok.id("4").expect("digit")) && ids.contains(&tok.id("2").expect("digit"))
    );
}

#[test]
fn the_scripted_model_answers_its_reply_and_stops_at_end_of_turn() {
    let reply = "Hello from the tiny model.";
    let bytes = scripted_model("Tiny scripted", reply).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    assert_eq!(engine.info.name, "Tiny scripted");
    for turns in [conversation(), vec![turn("user", "Anything at all?")]] {
        let (streamed, text, _, output, finish) = run(&mut engine, &turns, &greedy(64));
        assert_eq!(text, reply);
        assert_eq!(streamed, reply);
        assert_eq!(output, 6, "Hello / from / the / tiny / model / .");
        assert_eq!(finish, Finish::Stop);
    }
    // A token cap ends the answer early, with the cut text.
    let (_, text, _, output, finish) = run(&mut engine, &conversation(), &greedy(2));
    assert_eq!(
        (text.as_str(), output, finish),
        ("Hello from", 2, Finish::Length)
    );
    assert!(
        scripted_model("x", "no no no").is_err(),
        "a repeated piece would loop"
    );
}

#[test]
fn a_looping_answer_stops_at_its_third_copy_with_everything_written_kept() {
    // 10 tokens: three copies are 30, past the 24-token span.
    let reply = "The plan is to go north, then home.";
    let bytes = looping_model("Tiny looping", reply).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let (streamed, text, _, output, finish) = run(&mut engine, &conversation(), &greedy(512));
    assert_eq!(finish, Finish::Repeat);
    assert_eq!(Finish::Repeat.as_str(), "repeat");
    assert_eq!(text, reply.repeat(3));
    assert_eq!(output, 30);
    assert_eq!(streamed, text, "the deltas add up to the kept text");
    // A cap before the third copy is a cut, not a loop.
    let (_, text, _, output, finish) = run(&mut engine, &conversation(), &greedy(25));
    assert_eq!((output, finish), (25, Finish::Length));
    assert!(text.starts_with(&reply.repeat(2)));
    // At the cap exactly, the cap is the reason.
    let (_, _, _, output, finish) = run(&mut engine, &conversation(), &greedy(30));
    assert_eq!((output, finish), (30, Finish::Length));
    // A short sentence loops longer before it counts: 5 tokens need 5 copies.
    let short = "Go north now, ok";
    let bytes = looping_model("Tiny looping", short).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let (_, text, _, output, finish) = run(&mut engine, &conversation(), &greedy(512));
    assert_eq!(
        (text, output, finish),
        (short.repeat(5), 25, Finish::Repeat)
    );
}

#[test]
fn default_sampling_is_greedy_and_a_seed_repeats_a_sampled_answer() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 3).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let turns = conversation();
    let greedy_text = run(&mut engine, &turns, &greedy(20)).1;
    // top-k 1 is greedy at any temperature; so are the cuts at temperature 0.
    let top1 = GenParams {
        sampling: Sampling {
            temperature: Some(1.5),
            local: LocalSampling {
                top_k: Some(1),
                ..LocalSampling::default()
            },
        },
        seed: 9,
        ..greedy(20)
    };
    assert_eq!(run(&mut engine, &turns, &top1).1, greedy_text);
    let cut = GenParams {
        sampling: Sampling {
            temperature: Some(0.0),
            local: LocalSampling {
                top_k: Some(3),
                top_p: Some(0.5),
                min_p: Some(0.5),
                ..LocalSampling::default()
            },
        },
        ..greedy(20)
    };
    assert_eq!(run(&mut engine, &turns, &cut).1, greedy_text);
    // A sampled answer: the same seed writes it again.
    let sampled = |seed: u64, engine: &mut Engine| {
        let p = GenParams {
            sampling: Sampling {
                temperature: Some(1.0),
                local: LocalSampling {
                    top_k: Some(0),
                    top_p: Some(1.0),
                    min_p: Some(0.0),
                    ..LocalSampling::default()
                },
            },
            seed,
            ..greedy(20)
        };
        run(engine, &turns, &p).1
    };
    let a = sampled(1, &mut engine);
    assert_eq!(sampled(1, &mut engine), a);
    assert!(
        (2..12).any(|seed| sampled(seed, &mut engine) != a),
        "other seeds write other answers"
    );
}

#[test]
fn a_longer_prompt_reuses_the_cached_prefix_and_answers_as_a_cold_model_would() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 11).expect("writes");
    let mut warm = load(&bytes).expect("loads");
    let first = conversation();
    // One token: the cache then holds exactly the first prompt.
    let (job, _) = warm
        .generate(&first, &greedy(1), &mut |_| {})
        .expect("generates");
    let first_len = job.prompt_tokens();
    let mut second = first.clone();
    second.push(turn("assistant", "The plan."));
    second.push(turn("user", "Now the answer and the tool."));
    let mut w = warm.start(&second, &greedy(16)).expect("starts");
    assert_eq!(
        w.reused, first_len,
        "the first prompt's tokens are not read again"
    );
    assert_eq!(w.to_prefill(), w.prompt_tokens() - first_len);
    let mut warm_text = String::new();
    loop {
        match warm.step(&mut w).expect("steps") {
            Step::Token { text } => warm_text.push_str(&text),
            Step::Prefill { .. } => {}
            Step::Done(_) => break,
        }
    }
    let mut cold = load(&bytes).expect("loads");
    let cold_out = run(&mut cold, &second, &greedy(16));
    assert_eq!(
        warm_text, cold_out.1,
        "a reused cache gives the same answer"
    );
    // An unrelated conversation does not reuse it.
    let other = vec![turn("user", "Hello expert.")];
    assert_eq!(warm.start(&other, &greedy(4)).expect("starts").reused, 0);
}

#[test]
fn the_next_turn_reuses_the_tokens_the_model_wrote() {
    // The model writes "He" + "llo" + " there", where its tokenizer would
    // cut "Hello" + " there": the next turn keeps the written tokens.
    let bytes =
        scripted_model_pieces("Split", &["He", "llo", " there"], &["Hello"]).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let mut turns = conversation();
    let (job, _) = engine
        .generate(&turns, &greedy(12), &mut |_| {})
        .expect("generates");
    let answer = engine.text(&job);
    assert_eq!(answer, "Hello there");
    let canonical = engine.tokenizer().encode(&answer).expect("encodes");
    assert_eq!(
        (canonical.len(), job.output_tokens()),
        (2, 3),
        "written differently from the canonical cut"
    );
    turns.push(turn("assistant", &answer));
    turns.push(turn("user", "And the notebook?"));
    let next = engine.start(&turns, &greedy(4)).expect("starts");
    // The stop token is not fed: the cache holds the prompt and the 3 tokens.
    assert_eq!(next.reused, job.prompt_tokens() + 3);
    let rest = "<|im_end|>\n<|im_start|>user\nAnd the notebook?<|im_end|>\n<|im_start|>assistant\n";
    let rest = engine.tokenizer().encode(rest).expect("encodes").len();
    assert_eq!(next.to_prefill(), rest, "only the new turn is read");
}

#[test]
fn a_conversation_of_many_turns_keeps_its_cache_and_answers_as_a_cold_model() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 4).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let mut turns = conversation();
    let mut reuses = Vec::new();
    let mut last = String::new();
    for _ in 0..20 {
        let (job, _) = engine
            .generate(&turns, &greedy(1), &mut |_| {})
            .expect("generates");
        reuses.push(job.reused);
        last = engine.text(&job);
        turns.push(turn("assistant", "Noted."));
        turns.push(turn("user", "Next step."));
    }
    assert_eq!(reuses[0], 0);
    assert!(reuses[1..].iter().all(|r| *r > 0), "{reuses:?}");
    // The 20th answer, read through 19 extensions of one cache, is the
    // answer of a cold model reading the whole conversation at once.
    turns.truncate(turns.len() - 2);
    let cold = run(&mut load(&bytes).expect("loads"), &turns, &greedy(1));
    assert_eq!(cold.1, last);
}

#[test]
fn a_generation_dropped_between_tokens_leaves_the_engine_consistent() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 5).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let turns = conversation();
    let mut job = engine.start(&turns, &greedy(32)).expect("starts");
    let mut tokens = 0;
    while tokens < 2 {
        if let Step::Token { .. } = engine.step(&mut job).expect("steps") {
            tokens += 1;
        }
    }
    drop(job); // what Stop does: no further step
    let after = run(&mut engine, &turns, &greedy(32));
    let fresh = run(&mut load(&bytes).expect("loads"), &turns, &greedy(32));
    assert_eq!(after.1, fresh.1);
}

#[test]
fn prefill_reads_the_prompt_as_one_batch_a_layer_per_step_with_progress() {
    use llm_worker::generate::engine::PREFILL_BATCH;
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 5).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let layers = engine.info.layers as usize;
    let long = "Hello world the agent plan and tool answer is model notebook expert ".repeat(20);
    let mut job = engine
        .start(&[turn("user", &long)], &greedy(1))
        .expect("starts");
    let total = job.to_prefill();
    assert!(total > 64 && total <= PREFILL_BATCH, "{total}");
    let mut seen = Vec::new();
    while let Step::Prefill { done, total: t } = engine.step(&mut job).expect("steps") {
        assert_eq!(t, total);
        seen.push(done);
    }
    // One step per layer: the whole prompt in one batch.
    assert_eq!(seen.len(), layers, "{seen:?}");
    assert!(seen.windows(2).all(|w| w[0] < w[1]), "{seen:?}");
    assert_eq!(seen.last(), Some(&total));
    // A prompt longer than a batch takes more batches.
    let longer = long.repeat(PREFILL_BATCH / total + 1);
    let mut job = engine
        .start(&[turn("user", &longer)], &greedy(1))
        .expect("starts");
    let total = job.to_prefill();
    let mut steps = 0;
    while let Step::Prefill { .. } = engine.step(&mut job).expect("steps") {
        steps += 1;
    }
    assert_eq!(steps, layers * total.div_ceil(PREFILL_BATCH));
}

#[test]
fn a_job_dropped_mid_prefill_leaves_no_half_read_cache() {
    let bytes = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 5).expect("writes");
    let mut engine = load(&bytes).expect("loads");
    let turns = conversation();
    let mut job = engine.start(&turns, &greedy(8)).expect("starts");
    // One layer of two read, then the job is dropped (a cancel).
    assert!(matches!(engine.step(&mut job), Ok(Step::Prefill { .. })));
    drop(job);
    let after = run(&mut engine, &turns, &greedy(8));
    let fresh = run(&mut load(&bytes).expect("loads"), &turns, &greedy(8));
    assert_eq!(after.1, fresh.1);
}

#[test]
fn bad_files_get_clear_messages() {
    let good = random_model(&Shape::tiny("llama"), GgmlDType::Q8_0, 1).expect("writes");
    let msg = |b: &[u8]| load(b).err().unwrap_or_default();
    assert!(msg(b"PK\x03\x04 not a model at all, a zip").contains("not a GGUF model file"));
    let mut v9 = good.clone();
    v9[4..8].copy_from_slice(&9u32.to_le_bytes());
    assert!(
        msg(&v9).contains("version is not one Roundtable reads"),
        "{}",
        msg(&v9)
    );
    assert!(
        msg(&good[..good.len() / 2]).contains("incomplete"),
        "{}",
        msg(&good[..good.len() / 2])
    );
    assert!(
        msg(&good[..40]).contains("damaged or incomplete"),
        "{}",
        msg(&good[..40])
    );
    let gemma = random_model(&Shape::tiny("gemma3"), GgmlDType::Q8_0, 1).expect("writes");
    assert!(
        msg(&gemma).contains("architecture is \"gemma3\""),
        "{}",
        msg(&gemma)
    );
    let headless = random_model_with(&Shape::tiny("llama"), GgmlDType::Q8_0, 1, |m| {
        for (k, v) in m.iter_mut() {
            if k == "llama.attention.head_count_kv" {
                *v = Value::U32(0);
            }
        }
    })
    .expect("writes");
    assert!(
        msg(&headless).contains("shape is impossible"),
        "{}",
        msg(&headless)
    );
    let spm = random_model_with(&Shape::tiny("llama"), GgmlDType::Q8_0, 1, |m| {
        for (k, v) in m.iter_mut() {
            if k == "tokenizer.ggml.model" {
                *v = Value::String("llama".into());
            }
        }
    })
    .expect("writes");
    assert!(
        msg(&spm).contains("tokenizer is \"llama\""),
        "{}",
        msg(&spm)
    );
    // An IQ quantisation (type 16, IQ2_XXS) in the first tensor's header.
    let mut iq = good.clone();
    let name = b"token_embd.weight";
    let at = iq
        .windows(name.len())
        .position(|w| w == name)
        .expect("tensor name")
        + name.len();
    let dims = u32::from_le_bytes(iq[at..at + 4].try_into().expect("4 bytes")) as usize;
    let dtype_at = at + 4 + dims * 8;
    iq[dtype_at..dtype_at + 4].copy_from_slice(&16u32.to_le_bytes());
    assert!(
        msg(&iq).contains("quantisation Roundtable cannot read"),
        "{}",
        msg(&iq)
    );
    // Too big for the tab: the same file against a small budget.
    let small = Engine::load_with_budget(&mut Cursor::new(&good), good.len() as u64, 50_000);
    assert!(small.err().unwrap_or_default().contains("needs about"));
}

#[test]
fn every_quantisation_in_real_files_has_fast_kernels() {
    let wide = |arch| Shape {
        hidden: 256,
        ffn: 256,
        ..Shape::tiny(arch)
    };
    for dtype in [
        GgmlDType::Q4_0,
        GgmlDType::Q4_1,
        GgmlDType::Q5_0,
        GgmlDType::Q5_1,
        GgmlDType::Q8_0,
        GgmlDType::Q2K,
        GgmlDType::Q3K,
        GgmlDType::Q4K,
        GgmlDType::Q5K,
        GgmlDType::Q6K,
        GgmlDType::F16,
    ] {
        let bytes = random_model(&wide("llama"), dtype, 3).expect("writes");
        let engine = load(&bytes).unwrap_or_else(|e| panic!("{dtype:?}: {e}"));
        assert!(
            engine.info.slow_types.is_empty(),
            "{dtype:?}: {:?}",
            engine.info.slow_types
        );
    }
}
