//! Command-line parsing (lexopt) into typed commands.

use lexopt::prelude::*;
use std::ffi::OsString;

pub const USAGE: &str = "\
roundtable — run Roundtable coordinators headless

USAGE:
  roundtable run --coordinator ID [--task TEXT | --task-file PATH] [options]
  roundtable run --continue RUN.json [--out FILE] [options]
                                         finish a run that stopped (a signal, a failed call)
  roundtable coordinators
  roundtable prompts --coordinator ID    print the coordinator's prompt templates in the file
                                         format --prompts reads (edit a copy, pass it back)
  roundtable shapes [--largest|--grammar] each structured step's reply shape (strict JSON
                                         Schema, and the form a local model is held to when
                                         it differs), a JSON line each; --largest: the largest
                                         held form only; --grammar: the text tool protocol's
                                         grammar (Lark) with the travel planner's tools
  roundtable share encode < run.json     print the share-link payload (after #run=)
  roundtable share decode < payload      print the run JSON of a payload or link
                                         (a lesson or comparison file encodes to
                                         lesson=… / compare=…, and decodes back)
  roundtable lesson questions RUN.json [--from N]   the predict-next questions a run offers
  roundtable lesson make SPEC.json --out FILE        a lesson file from a spec (see lessons/)
  roundtable rouge --cases FILE.jsonl [--json]
  roundtable serve [--port 8080] [--host ADDR] [--dist DIR] [--events-per-second N]
                                         the built app and live classes (see below)
  roundtable help

RUN OPTIONS:
  --coordinator ID       coordinator to run (see `roundtable coordinators`)
  --prompts FILE         the run's prompt templates: a file as `roundtable prompts` prints
                         it, edited (the templates left as they are keep their default;
                         checked first: an unknown variable or template, a variable the
                         step needs left out, a syntax error are refused with their line).
                         Every batch command takes it too
  --task TEXT            the task (or --task-file PATH)
  --variant NAME         coordinator variant, when it has several
  --concurrency N        parallel LLM calls (the same as --parallel-calls)
  --out PATH             write the run (config + events) as JSON; `-` = stdout. Kept up to
                         date as calls end, so a run cut off keeps the calls it made
  --continue RUN.json    finish that run: its completed calls answered from the file, the
                         rest by its model (or the one --model / --provider names); its
                         coordinator, task and options come from the file

Ctrl-C (SIGINT) or SIGTERM stops a run as the page's Stop does: the run file is written
with what was done, marked interrupted (with no --out: RUN_ID.json here), and the exit
code is 130 / 143; a second signal quits at once. A batch stops the same way and
--resume finishes it.";

/// The whole help: the generic part, the model and batch options, then
/// each coordinator's commands and options.
pub fn usage() -> String {
    let mut out = format!(
        "{USAGE}\n\n{}\n\n{}\n\n{}",
        super::common::USAGE,
        super::batch::USAGE,
        super::serve::USAGE
    );
    for c in super::coordinators::CLIS {
        out.push_str("\n\n");
        out.push_str(c.usage);
    }
    out
}

#[derive(Debug, PartialEq)]
pub enum Command {
    /// `run`: its options, read by the common part and the coordinator's row.
    Run(Vec<OsString>),
    /// `serve`: its options, read by `serve`.
    Serve(Vec<OsString>),
    Coordinators,
    /// `shapes [--largest|--grammar]`: every structured step's reply shape
    /// (its strict JSON Schema), one JSON line each; or the largest form a
    /// local model is held to; or the text tool protocol's grammar.
    Shapes {
        largest: bool,
        grammar: bool,
    },
    /// `prompts --coordinator ID`: its templates as a prompt file.
    Prompts {
        coordinator: String,
    },
    /// A command of a coordinator's own (`travel-batch`, `mael-learn`…), with its arguments.
    Paper(&'static super::paper::PaperCommand, Vec<OsString>),
    /// `share encode` (run JSON on stdin → payload) or `share decode` (payload → run JSON).
    Share {
        encode: bool,
    },
    /// `lesson questions RUN [--from N]` or `lesson make SPEC --out FILE`.
    LessonQuestions {
        run: String,
        from: usize,
    },
    LessonMake {
        spec: String,
        out: String,
    },
    /// ROUGE scores of every case of a JSONL file.
    Rouge {
        cases: String,
        json: bool,
    },
    Help,
}

fn parse_lesson(p: &mut lexopt::Parser) -> Result<Command, String> {
    let usage = || super::lesson_cmd::USAGE.to_string();
    let sub = match p.next().map_err(|e| e.to_string())? {
        Some(Value(v)) => v.string().map_err(|e| e.to_string())?,
        _ => return Err(usage()),
    };
    let mut file = None;
    let mut from = 0usize;
    let mut out = None;
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Value(v) if file.is_none() => file = Some(v.string().map_err(|e| e.to_string())?),
            Long("from") => {
                from = p
                    .value()
                    .map_err(|e| e.to_string())?
                    .string()
                    .map_err(|e| e.to_string())?
                    .parse()
                    .map_err(|_| "--from takes an event number".to_string())?
            }
            Long("out") => {
                out = Some(
                    p.value()
                        .map_err(|e| e.to_string())?
                        .string()
                        .map_err(|e| e.to_string())?,
                )
            }
            other => return Err(format!("{}; {}", other.unexpected(), usage())),
        }
    }
    let file = file.ok_or_else(usage)?;
    match (sub.as_str(), out) {
        ("questions", None) => Ok(Command::LessonQuestions { run: file, from }),
        ("make", Some(out)) => Ok(Command::LessonMake { spec: file, out }),
        _ => Err(usage()),
    }
}

pub fn parse(args: impl IntoIterator<Item = std::ffi::OsString>) -> Result<Command, String> {
    let mut p = lexopt::Parser::from_args(args);
    let sub = match p.next().map_err(|e| e.to_string())? {
        Some(Value(v)) => v.string().map_err(|e| e.to_string())?,
        Some(Long("help")) | Some(Short('h')) | None => return Ok(Command::Help),
        Some(other) => return Err(format!("expected a command, got {}", other.unexpected())),
    };
    match sub.as_str() {
        "help" => Ok(Command::Help),
        "coordinators" => Ok(Command::Coordinators),
        "prompts" => {
            let mut coordinator = None;
            while let Some(arg) = p.next().map_err(|e| e.to_string())? {
                match arg {
                    Long("coordinator") => {
                        coordinator = Some(
                            p.value()
                                .map_err(|e| e.to_string())?
                                .string()
                                .map_err(|_| "--coordinator: not text")?,
                        )
                    }
                    other => return Err(other.unexpected().to_string()),
                }
            }
            let coordinator =
                coordinator.ok_or("prompts needs --coordinator ID (e.g. --coordinator travel)")?;
            Ok(Command::Prompts { coordinator })
        }
        "shapes" => {
            let (mut largest, mut grammar) = (false, false);
            while let Some(arg) = p.next().map_err(|e| e.to_string())? {
                match arg {
                    Long("largest") => largest = true,
                    Long("grammar") => grammar = true,
                    other => return Err(other.unexpected().to_string()),
                }
            }
            Ok(Command::Shapes { largest, grammar })
        }
        "share" => match p.next().map_err(|e| e.to_string())? {
            Some(Value(v)) if v == "encode" => Ok(Command::Share { encode: true }),
            Some(Value(v)) if v == "decode" => Ok(Command::Share { encode: false }),
            _ => Err(
                "usage: roundtable share encode < run.json  |  roundtable share decode < payload"
                    .into(),
            ),
        },
        "lesson" => parse_lesson(&mut p),
        "run" => Ok(Command::Run(
            p.raw_args().map_err(|e| e.to_string())?.collect(),
        )),
        "rouge" => parse_rouge(&mut p),
        "serve" => Ok(Command::Serve(
            p.raw_args().map_err(|e| e.to_string())?.collect(),
        )),
        other => match super::coordinators::command(other) {
            Some(c) => Ok(Command::Paper(
                c,
                p.raw_args().map_err(|e| e.to_string())?.collect(),
            )),
            None => Err(format!(
                "unknown command \"{other}\"; try `roundtable help`"
            )),
        },
    }
}

fn text(p: &mut lexopt::Parser) -> Result<String, String> {
    p.value()
        .map_err(|e| e.to_string())?
        .string()
        .map_err(|e| e.to_string())
}

fn parse_rouge(p: &mut lexopt::Parser) -> Result<Command, String> {
    let (mut cases, mut json) = (None, false);
    while let Some(arg) = p.next().map_err(|e| e.to_string())? {
        match arg {
            Long("cases") => cases = Some(text(p)?),
            Long("json") => json = true,
            other => return Err(other.unexpected().to_string()),
        }
    }
    let cases = cases.ok_or("usage: roundtable rouge --cases FILE.jsonl [--json]")?;
    Ok(Command::Rouge { cases, json })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &[&str]) -> Vec<std::ffi::OsString> {
        s.iter().map(|x| x.into()).collect()
    }

    #[test]
    fn commands_are_told_apart() {
        let c = parse(args(&["run", "--coordinator", "single", "--task", "hi"]));
        assert_eq!(
            c,
            Ok(Command::Run(args(&[
                "--coordinator",
                "single",
                "--task",
                "hi"
            ])))
        );
        let c = parse(args(&["act-batch", "--trials", "2"]));
        let act_batch = super::super::coordinators::command("act-batch").expect("a row's command");
        assert_eq!(c, Ok(Command::Paper(act_batch, args(&["--trials", "2"]))));
        assert!(parse(args(&["nope"]))
            .unwrap_err()
            .contains("unknown command"));
        assert_eq!(parse(args(&[])), Ok(Command::Help));
    }

    #[test]
    fn the_help_lists_every_coordinators_commands() {
        let help = usage();
        for c in super::super::coordinators::CLIS {
            for cmd in c.commands {
                assert!(
                    help.contains(&format!("roundtable {}", cmd.name)),
                    "{}",
                    cmd.name
                );
            }
        }
    }
}
