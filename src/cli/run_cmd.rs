//! `roundtable run`: one coordinator run, headless, with progress on stderr
//! and the run written as the same JSON the app exports. What a
//! coordinator adds (its task, options, resources, work after) comes from
//! its row in `coordinators.rs`.

use super::common::{with_repairs, Common};
use super::continued;
use super::coordinators::cli_of;
use super::flags::Flags;
use super::interrupt;
use super::paper::{Nothing, Prepared};
use super::save::write_whole;
use roundtable::engine::coordinators;
use roundtable::engine::run::{LoggedEvent, ModelRouter, RunCtx, RunDoc, RunEvent, RunStatus};
use roundtable::engine::views::repairs;
use roundtable::engine::views::usage::UsageView;
use roundtable::engine::views::Fold;
use std::ffi::OsString;
use std::io::Write;

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
        RunEvent::RunCancelled { interrupted } => line(match interrupted {
            Some(by) => format!("run interrupted ({by})"),
            None => "run cancelled".into(),
        }),
        _ => {}
    }
}

/// What `run` was asked, besides the model and the coordinator's own options.
#[derive(Debug, PartialEq)]
struct Request {
    coordinator: String,
    task: String,
    variant: Option<String>,
    out: Option<String>,
    /// `--continue FILE`: the run it finishes.
    parent: Option<String>,
}

fn request(f: &Flags) -> Result<Request, String> {
    if let Some(parent) = f.text("continue")? {
        if let Some(name) = ["coordinator", "task", "task-file", "variant", "prompts"]
            .into_iter()
            .find(|n| f.has(n))
        {
            return Err(format!("--continue takes the coordinator, task, variant and options from the run it finishes: leave out --{name}"));
        }
        return Ok(Request {
            coordinator: String::new(),
            task: String::new(),
            variant: None,
            out: f.text("out")?,
            parent: Some(parent),
        });
    }
    let coordinator = f.text("coordinator")?.unwrap_or_default();
    if coordinator.is_empty() {
        return Err("run needs --coordinator (e.g. --coordinator single)".into());
    }
    if coordinators::info(&coordinator).is_none() {
        let known: Vec<&str> = coordinators::COORDINATORS.iter().map(|c| c.id).collect();
        return Err(format!(
            "unknown coordinator \"{coordinator}\"; known: {}",
            known.join(", ")
        ));
    }
    let task = match f.text("task-file")? {
        Some(path) => {
            std::fs::read_to_string(&path).map_err(|e| format!("cannot read {path}: {e}"))?
        }
        None => f.text("task")?.unwrap_or_default(),
    };
    Ok(Request {
        coordinator,
        task,
        variant: f.text("variant")?,
        out: f.text("out")?,
        parent: None,
    })
}

/// Runs and returns the process exit code.
pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let f = Flags::parse("run", args)?;
    let r = request(&f)?;
    let parent = r.parent.as_deref().map(continued::read).transpose()?;
    let model_named = ["model", "provider", "base-url", "model-file"]
        .iter()
        .any(|n| f.has(n));
    let mut common = Common::read(&f)?;
    if let Some(n) = f.number("concurrency")? {
        common.parallel_calls = Some(n);
    }
    if let (Some(p), false) = (&parent, model_named) {
        common.spec = continued::model_of(p)?;
    }
    let (coordinator, task) = match &parent {
        Some(p) => (p.config.coordinator.clone(), String::new()),
        None => (r.coordinator.clone(), r.task.clone()),
    };
    let mut config = common.config(&coordinator, &task, "cli")?;
    config.variant = match &parent {
        Some(p) => p.config.variant.clone(),
        None => r.variant.clone(),
    };
    config.spend_cap = common.cap.is_set().then_some(common.cap);
    let prepared: Box<dyn Prepared> = match cli_of(&coordinator).map(|c| c.prepare) {
        Some(prepare) => prepare(&f, &common, &mut config)?,
        None => Box::new(Nothing),
    };
    f.finish()?;
    let platform = common.platform(coordinators::every_script);
    let router = match &parent {
        Some(p) => continued::router(p, &mut config, |spec| common.build(spec, &platform))?,
        None => ModelRouter::from_config(&config, |spec| common.build(spec, &platform))?,
    };
    let ctx = RunCtx::new(config.clone(), router, common.clock.clone());
    prepared.attach(&ctx);
    if !common.quiet {
        let names = std::cell::RefCell::new(std::collections::HashMap::new());
        let streaming = std::cell::Cell::new(false);
        ctx.on_event(move |e| {
            let mut s = streaming.get();
            progress(e, &mut names.borrow_mut(), &mut s);
            streaming.set(s);
        });
    }
    let file = r.out.clone().filter(|p| p != "-");
    let saver = Checkpoint::new(&ctx, file.clone());
    let (status, signal) = interrupt::run_to_end(
        coordinators::execute(&ctx),
        || saver.save_if_due(&ctx),
        |signal| {
            eprintln!("\n{signal}: stopping the run (the call under way is dropped; what was done is kept). Again to quit at once.");
            ctx.interrupt(signal);
        },
    );
    prepared.finish()?;
    let doc = RunDoc::new(config.sanitized(), ctx.events());
    let summary = summary(&doc, status);
    if common.json && r.out.as_deref() != Some("-") {
        println!("{summary}");
    } else if !common.quiet {
        let count = repairs::sum([doc.events.as_slice()]).total;
        eprintln!("{}", count.summary());
    }
    // Where a run a signal stopped is kept: its file, else (nowhere named)
    // one named for it, the calls made kept all the same.
    let kept = file.unwrap_or_else(|| format!("{}.json", doc.config.run_id));
    match r.out.as_deref() {
        Some("-") => println!("{}", doc.to_json_pretty()),
        Some(path) => write_whole(path, &doc.to_json_pretty())?,
        None if signal.is_some() => {
            let path = &kept;
            write_whole(path, &doc.to_json_pretty())?;
            eprintln!("the run so far is in {path}");
        }
        None => {
            if let Some(RunEvent::RunFinished { output: Some(text) }) =
                ctx.events().last().map(|e| e.event.clone())
            {
                println!("{text}");
            }
        }
    }
    if let Some(signal) = signal {
        eprintln!("finish it with: roundtable run --continue {kept} --out FILE");
        return Ok(interrupt::exit_code(signal));
    }
    Ok(match status {
        RunStatus::Finished => 0,
        RunStatus::Cancelled => 130,
        _ => 1,
    })
}

/// The run file kept as the run goes (with `--out FILE`): written whole
/// after calls end, at most once a second, so even a process killed
/// outright leaves the calls it made.
struct Checkpoint {
    path: Option<String>,
    changed: std::rc::Rc<std::cell::Cell<bool>>,
    last: std::cell::Cell<std::time::Instant>,
}

impl Checkpoint {
    fn new(ctx: &RunCtx, path: Option<String>) -> Checkpoint {
        let changed = std::rc::Rc::new(std::cell::Cell::new(false));
        let c = changed.clone();
        ctx.on_event(move |e| {
            if matches!(
                e.event,
                RunEvent::RunStarted { .. }
                    | RunEvent::LlmResponse { .. }
                    | RunEvent::LlmFailed { .. }
            ) {
                c.set(true);
            }
        });
        Checkpoint {
            path,
            changed,
            last: std::cell::Cell::new(std::time::Instant::now()),
        }
    }

    fn save_if_due(&self, ctx: &RunCtx) {
        let Some(path) = &self.path else { return };
        if !self.changed.get() || self.last.get().elapsed().as_millis() < 1000 {
            return;
        }
        self.changed.set(false);
        self.last.set(std::time::Instant::now());
        let doc = RunDoc::new(ctx.config().sanitized(), ctx.events());
        if let Err(e) = write_whole(path, &doc.to_json_pretty()) {
            eprintln!("{e} (the run goes on)");
        }
    }
}

/// A run in one JSON line (`--json`): how it ended, its calls and tokens,
/// and its repaired and unreadable replies in all and per step kind.
fn summary(doc: &RunDoc, status: RunStatus) -> serde_json::Value {
    let usage = UsageView::of(&doc.events);
    let line = serde_json::json!({
        "run_id": doc.config.run_id,
        "status": status,
        "llm_calls": usage.total.calls,
        "input_tokens": usage.total.input_tokens,
        "output_tokens": usage.total.output_tokens,
        "estimated_tokens": usage.total.is_estimated(),
        "elapsed_ms": doc.events.last().map_or(0, |e| e.t_ms),
    });
    with_repairs(line, &repairs::sum([doc.events.as_slice()]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::flags::tests::flags;

    #[test]
    fn a_run_request_is_read_with_clear_errors() {
        let r = request(&flags(&[
            "--coordinator",
            "single",
            "--task",
            "hi",
            "--out",
            "r.json",
        ]));
        assert_eq!(
            r,
            Ok(Request {
                coordinator: "single".into(),
                task: "hi".into(),
                variant: None,
                out: Some("r.json".into()),
                parent: None,
            })
        );
        assert_eq!(
            request(&flags(&["--continue", "r.json", "--out", "s.json"])),
            Ok(Request {
                coordinator: String::new(),
                task: String::new(),
                variant: None,
                out: Some("s.json".into()),
                parent: Some("r.json".into()),
            })
        );
        assert!(request(&flags(&["--continue", "r.json", "--task", "x"]))
            .unwrap_err()
            .contains("leave out --task"));
        assert!(request(&flags(&["--task", "x"]))
            .unwrap_err()
            .contains("--coordinator"));
        assert!(request(&flags(&["--coordinator", "nope"]))
            .unwrap_err()
            .contains("unknown coordinator"));
        let f = flags(&["--coordinator", "single", "--concurrency", "x"]);
        assert!(f
            .number::<u32>("concurrency")
            .unwrap_err()
            .contains("whole number"));
    }
}
