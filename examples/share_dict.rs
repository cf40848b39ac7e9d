//! Builds the preset dictionary for share links from sample runs: every
//! coordinator with the offline demo model on a few tasks (MAEL's with a
//! pool learned on a few training tasks, so its run retrieves; ACT's on a
//! built-in trial), plus one
//! event of every kind. Prints the dictionary of the latest link format;
//! `src/engine/share/dict_v<N>.txt` holds the frozen output of format N
//! (the older ones were made by earlier versions of this program and are
//! never regenerated).
//!
//!     cargo run --example share_dict act > src/engine/share/dict_v4.txt
//!
//! (format 4 is ACT's alone; without `act` the program prints the shape of
//! format 3: the travel planner's and MAEL's runs)

use futures::executor::block_on;
use roundtable::engine::base::clock::FakeClock;
use roundtable::engine::coordinators::act;
use roundtable::engine::coordinators::every_script;
use roundtable::engine::coordinators::execute;
use roundtable::engine::coordinators::mael::contract::Mode;
use roundtable::engine::coordinators::mael::memory::Memory;
use roundtable::engine::coordinators::mael::{self, setup::configure};
use roundtable::engine::coordinators::travel;
use roundtable::engine::coordinators::COORDINATORS;
use roundtable::engine::domains::tasks::builtin::{tasks, Split};
use roundtable::engine::model::demo::DemoModel;
use roundtable::engine::model::ModelError;
use roundtable::engine::run::event::FailReason;
use roundtable::engine::run::{
    Audience, LoggedEvent, ModelRouter, ModelSpec, RunConfig, RunCtx, RunDoc, RunEvent,
};
use roundtable::engine::share::compact::to_compact;
use serde_json::json;
use std::rc::Rc;

const MAX: usize = 24 * 1024;
/// Format 5's dictionary (LZMA's window is not limited to 32 KB as deflate's is).
const MAX_LZMA: usize = 64 * 1024;

fn sample_run(coordinator: &str, task: &str) -> RunDoc {
    sample_run_in(coordinator, task, |_| {}, None)
}

fn sample_run_in(
    coordinator: &str,
    task: &str,
    edit: impl FnOnce(&mut RunConfig),
    memory: Option<Rc<Memory>>,
) -> RunDoc {
    let clock = FakeClock::new();
    let mut config = RunConfig::new(coordinator, task, ModelSpec::demo());
    if coordinator == travel::ID {
        // The first built-in query (the benchmark plans others).
        travel::use_builtin_query(&mut config, 0);
    }
    edit(&mut config);
    config.run_id = "run-1795000000000-abc123".into();
    config.created_ms = 1_795_000_000_000.0;
    let ctx = RunCtx::new(
        config.clone(),
        ModelRouter::single(Rc::new(DemoModel::new(
            Rc::new(clock.clone()),
            every_script,
        ))),
        Rc::new(clock),
    );
    if let Some(m) = memory {
        ctx.insert_resource(m);
    }
    block_on(execute(&ctx));
    RunDoc::new(config, ctx.events())
}

/// A MAEL run in step mode on a built-in test task, with a pool learned on
/// three training tasks (so the log has retrievals and experiences).
fn mael_run() -> RunDoc {
    let memory = Rc::new(Memory::lexical("default"));
    for t in tasks(Split::Train).into_iter().take(3) {
        sample_run_in(
            mael::ID,
            "",
            |c| configure(c, t, Mode::None),
            Some(memory.clone()),
        );
    }
    let task = tasks(Split::Test).remove(0);
    sample_run_in(
        mael::ID,
        "",
        |c| configure(c, task, Mode::Step),
        Some(memory),
    )
}

fn act_run() -> RunDoc {
    use roundtable::engine::coordinators::act::contract::Variant;
    use roundtable::engine::domains::creative::builtin;
    sample_run_in(
        act::ID,
        "",
        |c| act::setup::configure(c, builtin::task(0, None, 4), Variant::Act),
        None,
    )
}

fn every_kind() -> RunDoc {
    let config = RunConfig::new("single", "task", ModelSpec::demo());
    let kinds = vec![
        RunEvent::LlmRetry {
            call: 0,
            attempt: 1,
            error: ModelError::RateLimited {
                retry_after_ms: Some(2000),
                detail: "Rate limit reached".into(),
            },
            wait_ms: 2000,
        },
        RunEvent::LlmRetry {
            call: 0,
            attempt: 2,
            error: ModelError::Server {
                status: 500,
                detail: "The server had an error".into(),
            },
            wait_ms: 2000,
        },
        RunEvent::LlmFailed {
            call: 0,
            error: ModelError::Timeout { after_ms: 60000 },
            retries: 3,
        },
        RunEvent::ToolCalled {
            id: "call_0".into(),
            agent: "transport".into(),
            tool: "FlightSearch".into(),
            args: json!({"origin": "", "destination": "", "date": ""}),
            call: Some(0),
        },
        RunEvent::ToolReturned {
            id: "call_0".into(),
            agent: "transport".into(),
            ok: true,
            output: String::new(),
        },
        RunEvent::MessagePosted {
            from: "transport".into(),
            to: Audience::Public,
            text: String::new(),
            call: Some(0),
        },
        RunEvent::Handoff {
            from: "orchestrator".into(),
            to: "hotel".into(),
            reason: String::new(),
        },
        RunEvent::NoteWritten {
            agent: "hotel".into(),
            store: "notebook".into(),
            key: Some(String::new()),
            payload: json!({}),
        },
        RunEvent::ScoreComputed {
            name: "reward".into(),
            value: 1.0,
            agent: Some("solver".into()),
            detail: json!({}),
        },
        RunEvent::RunFailed {
            reason: FailReason {
                kind: "model".into(),
                message: String::new(),
                model_error: Some(ModelError::Auth {
                    status: 401,
                    detail: String::new(),
                }),
            },
        },
        RunEvent::RunCancelled { interrupted: None },
    ];
    let events = kinds
        .into_iter()
        .enumerate()
        .map(|(i, event)| LoggedEvent {
            seq: i as u64,
            t_ms: i as u64 * 35,
            event,
        })
        .collect();
    RunDoc::new(config, events)
}

fn main() {
    let compact = |doc: &RunDoc| {
        serde_json::to_string(&to_compact(doc).unwrap_or_default()).unwrap_or_default()
    };
    // Long runs (the travel planner's) first, cut to what is left of the
    // budget; the short ones last, nearest to the data (deflate reaches
    // near matches more cheaply).
    // Format 3's dictionary shares the room between the travel planner and
    // MAEL; format 4's is ACT's alone (its runs are long and its prompts
    // repeat): the encoder makes both and keeps the shorter link.
    let mode = std::env::args().nth(1).unwrap_or_default();
    let act_only = mode == "act";
    // Format 5 (LZMA, whose window holds a dictionary of any size): room
    // for every coordinator's sample run.
    let lzma = mode == "lzma";
    let max = match std::env::var("SHARE_DICT_KB")
        .ok()
        .and_then(|k| k.parse::<usize>().ok())
    {
        Some(kb) => kb * 1024,
        None if lzma => MAX_LZMA,
        None => MAX,
    };
    let mut long: Vec<(f64, String)> = Vec::new();
    let mut short: Vec<String> = vec![compact(&every_kind())];
    for c in COORDINATORS {
        if c.id == act::ID {
            if act_only || lzma {
                long.push((if lzma { 0.4 } else { 1.0 }, compact(&act_run())));
            }
            continue;
        }
        if act_only {
            continue;
        }
        if c.id == travel::ID {
            long.push((
                if lzma { 0.35 } else { 0.75 },
                compact(&sample_run(c.id, c.example_task)),
            ));
            continue;
        }
        if c.id == mael::ID {
            long.push((0.25, compact(&mael_run())));
            continue;
        }
        for task in [
            c.example_task,
            "What is 12 * (3 + 4)? Compare two options and plan the next steps.",
        ] {
            short.push(compact(&sample_run(c.id, task)));
        }
    }
    let short = short.join("\n");
    // Each long run gets a share of what is left (its beginning: the
    // config and the first turns, which every run of it repeats): the
    // travel planner's runs are long and wordy, so three quarters (measured
    // by `make bench`: with half, its longest demo link came out longer than
    // brotli's; MAEL's links stay a sixth shorter than in format 2).
    let left = max.saturating_sub(short.len() + 1) as f64;
    for (share, run) in &mut long {
        let room = (left * *share) as usize;
        if run.len() > room {
            let mut cut = room.saturating_sub(1);
            while !run.is_char_boundary(cut) {
                cut -= 1;
            }
            run.truncate(cut);
        }
    }
    let long = long
        .into_iter()
        .map(|(_, run)| run)
        .collect::<Vec<_>>()
        .join("\n");
    let mut dict = format!("{long}\n{short}");
    if dict.len() > max {
        let mut cut = dict.len() - max;
        while !dict.is_char_boundary(cut) {
            cut += 1;
        }
        dict = dict[cut..].to_string();
    }
    print!("{dict}");
}
