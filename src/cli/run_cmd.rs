//! `roundtable run`: one coordinator run, headless, with progress on stderr
//! and the run written as the same JSON the app exports.

use super::args::RunArgs;
use super::http::UreqTransport;
use roundtable::engine::coordinators;
use roundtable::engine::model::embed::{Embedder, LexicalEmbedder};
use roundtable::engine::model::factory::{build_model, Platform};
use roundtable::engine::model::providers::embeddings::HttpEmbedder;
use roundtable::engine::model::providers::http::Endpoint;
use roundtable::engine::model::providers::http::WireFormat;
use roundtable::engine::model::providers::presets::{preset, PresetKind};
use roundtable::engine::run::clock::{Clock, SystemClock};
use roundtable::engine::run::{
    LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunDoc, RunEvent, RunStatus,
};
use std::io::Write;
use std::rc::Rc;

/// The API key, from `ROUNDTABLE_API_KEY` only (a flag would show in the
/// process list).
pub fn api_key() -> Option<String> {
    std::env::var("ROUNDTABLE_API_KEY")
        .ok()
        .filter(|k| !k.is_empty())
}

/// The native platform: ureq, `clock`, the demo model's pace from the
/// arguments, and the demo model playing `script`.
pub fn native_platform(
    a: &RunArgs,
    clock: Rc<dyn Clock>,
    script: roundtable::engine::model::demo::Script,
) -> Platform {
    Platform {
        transport: Rc::new(UreqTransport::default()),
        clock,
        demo_chunk_delay_ms: a.demo_delay_ms,
        demo_script: script,
    }
}

/// Resolves `--provider/--base-url/--model` into a model spec.
pub fn model_spec(a: &RunArgs) -> Result<ModelSpec, String> {
    let model = a.model.clone().unwrap_or_else(|| "demo".into());
    let provider = a.provider.clone().unwrap_or_default();
    if provider.is_empty() || provider == "demo" {
        if model != "demo" {
            return Err(format!(
                "--model {model} needs --provider (openai-compatible, anthropic or a preset id); \
                 use --model demo for the offline demo model"
            ));
        }
        return Ok(ModelSpec::demo());
    }
    let (id, format, default_url) = match provider.as_str() {
        "openai-compatible" => ("custom".to_string(), WireFormat::OpenaiCompatible, ""),
        "anthropic" if a.base_url.is_some() => {
            ("custom-anthropic".to_string(), WireFormat::Anthropic, "")
        }
        other => match preset(other) {
            Some(p) => match p.kind {
                PresetKind::Http(f) => (p.id.to_string(), f, p.base_url),
                PresetKind::Demo => return Ok(ModelSpec::demo()),
                PresetKind::Local => {
                    return Err(
                        "the local model runs in the app's browser tab only; from the command line use a local server (--provider ollama or lmstudio)".into(),
                    )
                }
            },
            None => return Err(format!("unknown provider \"{other}\"")),
        },
    };
    Ok(ModelSpec {
        provider: id,
        format: Some(format),
        base_url: a
            .base_url
            .clone()
            .unwrap_or_else(|| default_url.to_string()),
        model,
        temperature: None,
        file_sha256: None,
    })
}

fn progress(
    e: &LoggedEvent,
    names: &mut std::collections::HashMap<String, String>,
    streaming: &mut bool,
) {
    let mut err = std::io::stderr().lock();
    let t = e.t_ms as f64 / 1000.0;
    let mut line = |s: String| {
        if *streaming {
            let _ = writeln!(err);
            *streaming = false;
        }
        let _ = writeln!(err, "[{t:7.2}s] {s}");
    };
    match &e.event {
        RunEvent::RunStarted { config } => line(format!(
            "run {} started ({} on {})",
            config.coordinator,
            config.model_label(),
            config.task.chars().take(60).collect::<String>()
        )),
        RunEvent::AgentAdded {
            agent, role, name, ..
        } => {
            names.insert(agent.clone(), name.clone());
            line(format!("agent {name} ({role}) joined"));
        }
        RunEvent::PhaseStarted { label, .. } => line(format!("— {label} —")),
        RunEvent::LlmRequest {
            call, agent, model, ..
        } => line(format!(
            "{} → {model} (call {call})",
            names.get(agent).unwrap_or(agent)
        )),
        RunEvent::LlmDelta { text, .. } => {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "{text}");
            *streaming = true;
        }
        RunEvent::LlmRetry {
            attempt,
            error,
            wait_ms,
            ..
        } => line(format!(
            "attempt {attempt} failed ({}); retrying in {wait_ms} ms",
            error.kind()
        )),
        RunEvent::LlmResponse {
            response,
            latency_ms,
            ..
        } => line(format!(
            "done in {latency_ms} ms, {} in / {} out tokens{}",
            response.usage.input_tokens,
            response.usage.output_tokens,
            if response.usage.estimated {
                " (estimated)"
            } else {
                ""
            }
        )),
        RunEvent::ToolCalled {
            agent, tool, args, ..
        } => line(format!(
            "{} calls {tool}({args})",
            names.get(agent).unwrap_or(agent)
        )),
        RunEvent::Handoff { from, to, .. } => line(format!(
            "{} hands over to {}",
            names.get(from).unwrap_or(from),
            names.get(to).unwrap_or(to)
        )),
        RunEvent::ScoreComputed { name, value, .. } => line(format!("score {name} = {value}")),
        RunEvent::RunFinished { .. } => line("run finished".into()),
        RunEvent::RunFailed { reason } => line(format!("run failed: {}", reason.message)),
        RunEvent::RunCancelled {} => line("run cancelled".into()),
        _ => {}
    }
}

/// Runs and returns the process exit code.
pub fn run(a: RunArgs) -> Result<i32, String> {
    if coordinators::info(&a.coordinator).is_none() {
        let known: Vec<&str> = coordinators::COORDINATORS.iter().map(|c| c.id).collect();
        return Err(format!(
            "unknown coordinator \"{}\"; known: {}",
            a.coordinator,
            known.join(", ")
        ));
    }
    let spec = model_spec(&a)?;
    let key = api_key();
    let clock: Rc<dyn Clock> = Rc::new(SystemClock::default());
    let platform = native_platform(&a, clock.clone(), coordinators::every_script);
    let mut config = RunConfig::new(&a.coordinator, &a.task, spec);
    config.variant = a.variant.clone();
    config.created_ms = clock.epoch_ms().floor();
    config.run_id = format!("cli-{}", config.created_ms as u64);
    if let Some(n) = a.concurrency {
        config.max_concurrency = n.max(1);
    }
    if let Some(n) = a.retries {
        config.retry.max_attempts = n.max(1);
    }
    config.spend_cap = spend_cap(&a);
    // What the coordinator's own options add (its task, resources, work after).
    let mut travel_db = None;
    let mut mael = None;
    let mut act = None;
    match a.coordinator.as_str() {
        super::act::ID => act = Some(super::act::run::prepare(&a, &mut config, key.clone())?),
        super::travel::ID => travel_db = super::travel::run::prepare(&a, &mut config)?,
        super::mael::ID => mael = Some(super::mael::run::prepare(&a, &mut config, key.clone())?),
        _ => {}
    }
    let router =
        ModelRouter::from_config(&config, |spec| build_model(spec, key.clone(), &platform))?;
    let ctx = RunCtx::new(config.clone(), router, clock);
    if let Some(db) = travel_db {
        ctx.insert_resource(db);
    }
    if let Some(m) = &mael {
        ctx.insert_resource(m.memory.clone());
    }
    if let Some(bank) = act.as_ref().and_then(|p| p.bank.clone()) {
        ctx.insert_resource(bank);
    }
    if !a.quiet {
        let names = std::cell::RefCell::new(std::collections::HashMap::new());
        let streaming = std::cell::Cell::new(false);
        ctx.on_event(move |e| {
            let mut s = streaming.get();
            progress(e, &mut names.borrow_mut(), &mut s);
            streaming.set(s);
        });
    }
    let status = futures::executor::block_on(coordinators::execute(&ctx));
    if let Some(m) = &mael {
        m.finish()?;
    }
    if let Some(p) = &act {
        p.finish()?;
    }
    let doc = RunDoc::new(config.sanitized(), ctx.events());
    match a.out.as_deref() {
        Some("-") => println!("{}", doc.to_json_pretty()),
        Some(path) => std::fs::write(path, doc.to_json_pretty())
            .map_err(|e| format!("cannot write {path}: {e}"))?,
        None => {
            if let Some(RunEvent::RunFinished { output: Some(text) }) =
                ctx.events().last().map(|e| e.event.clone())
            {
                println!("{text}");
            }
        }
    }
    Ok(match status {
        RunStatus::Finished => 0,
        RunStatus::Cancelled => 130,
        _ => 1,
    })
}

/// The embedder the options name: the built-in lexical one, or an
/// OpenAI-compatible embeddings model (probed once). MAEL's pools and
/// ACT+'s bank use it.
pub fn embedder(
    a: &RunArgs,
    spec: &ModelSpec,
    key: Option<String>,
) -> Result<Rc<dyn Embedder>, String> {
    let Some(model) = a.embedding_model.clone() else {
        return Ok(Rc::new(LexicalEmbedder));
    };
    let (provider, url) = match &a.embedding_url {
        Some(url) => ("custom", url.clone()),
        None if spec.format == Some(roundtable::engine::model::providers::http::WireFormat::OpenaiCompatible) => {
            (spec.provider.as_str(), spec.base_url.clone())
        }
        None => return Err("--embedding-model needs an OpenAI-compatible --provider, or --embedding-url (the demo model and Anthropic have no embeddings; leave it out for the lexical embedder)".into()),
    };
    let endpoint = Endpoint::new(
        roundtable::engine::model::providers::http::WireFormat::OpenaiCompatible,
        &url,
        &model,
        key,
    );
    let e = HttpEmbedder::new(
        provider,
        endpoint,
        Rc::new(super::http::UreqTransport::default()),
        Rc::new(SystemClock::default()),
    );
    futures::executor::block_on(e.probe(&roundtable::engine::run::CancelToken::new()))
        .map_err(|e| format!("the embeddings model did not answer: {}", e.user_message()))?;
    Ok(Rc::new(e))
}

/// The caps the options name (`--spend-cap`, `--token-cap`), if any.
pub fn spend_cap(a: &RunArgs) -> Option<roundtable::engine::run::budget::SpendCap> {
    let cap = roundtable::engine::run::budget::SpendCap {
        usd: a.spend_cap,
        tokens: a.token_cap,
    };
    cap.is_set().then_some(cap)
}

/// A batch's shared budget from the options (priced with the built-in list).
pub fn batch_budget(a: &RunArgs) -> Option<Rc<roundtable::engine::run::budget::Budget>> {
    spend_cap(a).map(|cap| {
        Rc::new(roundtable::engine::run::budget::Budget::new(
            "batch",
            cap,
            roundtable::engine::model::pricing::PriceTable::default(),
        ))
    })
}
