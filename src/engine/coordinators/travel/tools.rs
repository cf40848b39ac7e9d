//! Running an agent's tool calls against the sandbox, privately: each call
//! and its result are recorded as events of the calling agent, and (in the
//! variants with a notebook) the raw result is written to the notebook N.
//! The ReAct step (calls → results back into the agent's context) is
//! written once here, for the experts and the single-agent baseline. A call
//! of an unknown tool (or of a tool the agent does not have), or with
//! arguments that cannot be read (or none), is answered as a tool error
//! the agent sees (the tool result, or the observation in the text
//! protocol; it names the agent's own tools, never the official agent's
//! NotebookWrite or Planner) and counted: one [`RepairKind::ToolError`]
//! each, in the one `reply_repaired` event of the reply that made the
//! calls.

use super::contract::*;
use super::world::World;
use crate::engine::domains::travel::tools::{execute, parameter_names, tool_specs, TOOL_NAMES};
use crate::engine::domains::travel::{ToolResult, ToolRows, TravelDb};
use crate::engine::model::reply::{self, read_value, Read, Repair, RepairKind};
use crate::engine::model::text_tools::{parse_all, CallGrammar};
use crate::engine::model::{ChatRequest, ChatResponse, Message, ToolCall, ToolSpec};
use crate::engine::run::{RunCtx, RunEvent};
use serde_json::Value;

/// A tool call found in a model's answer, in either protocol.
pub struct Call {
    pub id: String,
    pub name: String,
    pub args: Vec<String>,
    /// The native call, to echo back in the conversation (native mode).
    pub native: Option<ToolCall>,
    /// Why the call cannot be run (an unknown tool, arguments that cannot
    /// be read): it is answered with this as a tool error.
    pub problem: Option<String>,
    /// What reading the arguments needed (a repaired JSON object).
    pub repairs: Vec<Repair>,
}

/// The tool specs for native function calling, limited to `allowed`.
fn specs_for(allowed: &[&str]) -> Vec<ToolSpec> {
    tool_specs()
        .into_iter()
        .filter(|s| allowed.contains(&s.name.as_str()))
        .collect()
}

/// The longest name or argument text an error message repeats.
const ECHO_CHARS: usize = 80;

/// At most [`ECHO_CHARS`] chars of a model's text, for a message.
fn echo(text: &str) -> String {
    reply::echo(text, ECHO_CHARS)
}

/// How a tool is called in the text protocol, for error messages.
fn usage(name: &str) -> String {
    match parameter_names(name) {
        Some(names) => format!("{name}[{}]", names.join(", ")),
        None => format!("{name}[...]"),
    }
}

/// A native call read: positional arguments (as the text protocol would
/// have them) from its JSON object of arguments, read leniently; or why it
/// cannot be run (an unknown tool, arguments that are not an object or
/// lack one).
fn native_call(c: &ToolCall) -> Call {
    let mut call = Call {
        id: c.id.clone(),
        name: c.name.clone(),
        args: Vec::new(),
        native: Some(c.clone()),
        problem: None,
        repairs: Vec::new(),
    };
    let Some(names) = parameter_names(&c.name) else {
        call.args = vec![echo(&c.arguments)];
        call.problem = Some(format!("there is no tool named \"{}\"", echo(&c.name)));
        return call;
    };
    let read = if c.arguments.trim().is_empty() {
        Ok(Read::clean(Value::Object(Default::default())))
    } else {
        read_value(&c.arguments)
    };
    let map = match read {
        Ok(Read {
            value: Value::Object(map),
            repairs,
        }) => {
            call.repairs = repairs;
            map
        }
        Ok(_) => {
            call.args = vec![echo(&c.arguments)];
            call.problem = Some("the arguments are not a JSON object".into());
            return call;
        }
        Err(why) => {
            call.args = vec![echo(&c.arguments)];
            call.problem = Some(format!("the arguments could not be read: {why}"));
            return call;
        }
    };
    let mut missing = Vec::new();
    for n in names {
        match map.get(*n) {
            Some(Value::String(s)) => call.args.push(s.trim().to_string()),
            Some(Value::Number(x)) => call.args.push(x.to_string()),
            Some(other) => {
                call.args.push(echo(&other.to_string()));
                missing.push(*n);
            }
            None => {
                call.args.push(String::new());
                missing.push(*n);
            }
        }
    }
    if !missing.is_empty() {
        call.problem = Some(format!(
            "the arguments lack {} (as text)",
            missing
                .iter()
                .map(|m| format!("\"{m}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    call
}

/// A line that is written as a tool call (`Name[...]`, maybe after
/// "Action 1:" or in emphasis or code ticks): its name.
fn call_like(line: &str) -> Option<&str> {
    let mut t = line.trim().trim_matches(['*', '`', '_', ' ']);
    if let Some((head, rest)) = t.split_once(':') {
        let head = head.trim().trim_matches(['*', '`', '_', ' ']);
        let word = head.trim_end_matches(|c: char| c.is_ascii_digit() || c == ' ');
        if word.eq_ignore_ascii_case("action") {
            t = rest.trim().trim_matches(['*', '`', '_', ' ']);
        }
    }
    let open = t.find('[')?;
    let name = t.get(..open)?;
    let mut chars = name.chars();
    let first = chars.next()?;
    (first.is_ascii_uppercase() && chars.all(|c| c.is_ascii_alphanumeric() || c == '_'))
        .then_some(name)
}

/// The text protocol's calls: every `Tool[args]` of a known tool, then each
/// line written as a call that is not one: a call of an unknown tool, or a
/// known tool's call that cannot be read (e.g. not closed on its line).
fn text_calls(text: &str, llm_call: u32) -> Vec<Call> {
    let mut calls: Vec<Call> = parse_all(text, &TOOL_NAMES)
        .into_iter()
        .map(|c| Call {
            id: String::new(),
            name: c.name,
            args: c.args,
            native: None,
            problem: None,
            repairs: Vec::new(),
        })
        .collect();
    for line in text.lines() {
        let Some(name) = call_like(line) else {
            continue;
        };
        if !parse_all(line, &TOOL_NAMES).is_empty() {
            continue;
        }
        let problem = if TOOL_NAMES.contains(&name) {
            format!(
                "the call could not be read: write it on one line as {}",
                usage(name)
            )
        } else {
            format!("there is no tool named \"{}\"", echo(name))
        };
        calls.push(Call {
            id: String::new(),
            name: echo(name),
            args: vec![echo(line.trim())],
            native: None,
            problem: Some(problem),
            repairs: Vec::new(),
        });
    }
    for (i, c) in calls.iter_mut().enumerate() {
        c.id = format!("t{llm_call}-{i}");
    }
    calls
}

/// The tool calls in an answer: native calls in native mode, `Tool[args]`
/// lines in text mode. Calls that cannot be run (unknown tools, unreadable
/// arguments) are kept, with their problem: they are answered as tool
/// errors.
pub fn calls_in(response: &ChatResponse, mode: ToolMode, llm_call: u32) -> Vec<Call> {
    match mode {
        ToolMode::Native => response.tool_calls.iter().map(native_call).collect(),
        ToolMode::Text => text_calls(&response.text, llm_call),
    }
}

/// Who calls tools, and how: the agent, the tools it may call, the protocol.
pub struct ToolUser<'a> {
    pub agent: &'a str,
    pub allowed: &'a [&'a str],
    pub mode: ToolMode,
}

impl ToolUser<'_> {
    /// `req` with the tools on offer: native specs, or in the text protocol
    /// their grammar (a model run here writes a call whole, of this agent's
    /// tools, or none); `calls` false: no tool may be called (the last
    /// round).
    pub fn offer(&self, req: ChatRequest, calls: bool) -> ChatRequest {
        match self.mode {
            ToolMode::Native if calls => req.with_tools(specs_for(self.allowed)),
            ToolMode::Native => req,
            ToolMode::Text => {
                let tools = self.allowed.iter().filter(|_| calls).map(|t| {
                    let args = parameter_names(t).map_or(0, |n| n.len());
                    (*t, args)
                });
                req.with_grammar(CallGrammar::new(tools))
            }
        }
    }

    /// The tools this agent may call, as they are called ("Your tools:
    /// AccommodationSearch[city]"): what a refused call is told instead of
    /// the official agent's list of actions, whose NotebookWrite[...] and
    /// Planner[...] are not tools here (every result goes to the notebook
    /// by itself, and the plan is written by the planning agents).
    fn tools_line(&self) -> String {
        format!(
            "Your tools: {}",
            self.allowed
                .iter()
                .map(|t| usage(t))
                .collect::<Vec<_>>()
                .join(" / ")
        )
    }

    /// One ReAct step after the model asked for tools: its message with the
    /// calls joins the agent's own context, each call runs against the
    /// sandbox, and the results follow (tool messages, or one
    /// "Observation:" message in the text protocol).
    pub fn answer_calls(
        &self,
        ctx: &RunCtx,
        world: &mut World,
        db: &TravelDb,
        messages: &mut Vec<Message>,
        (llm_call, response): (u32, &ChatResponse),
        calls: &[Call],
    ) {
        messages.push(match self.mode {
            ToolMode::Native => Message::assistant_with_tools(
                response.text.clone(),
                calls.iter().filter_map(|c| c.native.clone()).collect(),
            ),
            ToolMode::Text => Message::assistant(response.text.clone()),
        });
        let mut observations = Vec::new();
        let mut repairs = Vec::new();
        for c in calls {
            let text = self.run_call(ctx, world, db, c, llm_call, &mut repairs);
            match self.mode {
                ToolMode::Native => messages.push(Message::tool_result(c.id.clone(), text)),
                ToolMode::Text => observations.push(format!(
                    "{OBSERVATION_PREFIX} {}[{}]\n{text}",
                    c.name,
                    c.args.join(", ")
                )),
            }
        }
        if !observations.is_empty() {
            messages.push(Message::user(observations.join("\n\n")));
        }
        ctx.repaired(llm_call, &repairs);
    }

    /// Runs one call (refusing tools the agent does not have, and calls
    /// that cannot be run, as tool errors added to `repairs`), records it
    /// as this agent's, writes the raw result to N when the variant keeps a
    /// notebook, and returns the text the agent sees.
    fn run_call(
        &self,
        ctx: &RunCtx,
        world: &mut World,
        db: &TravelDb,
        call: &Call,
        llm_call: u32,
        repairs: &mut Vec<Repair>,
    ) -> String {
        let agent = self.agent;
        ctx.emit(RunEvent::ToolCalled {
            id: call.id.clone(),
            agent: agent.into(),
            tool: call.name.clone(),
            args: serde_json::json!(call.args),
            call: Some(llm_call),
        });
        repairs.extend(call.repairs.iter().cloned());
        let refused = |text: String, why: String, repairs: &mut Vec<Repair>| {
            repairs.push(Repair::new(
                RepairKind::ToolError,
                format!("{why}: answered as a tool error"),
            ));
            ToolResult {
                text,
                rows: ToolRows::None,
                ok: false,
            }
        };
        let name = echo(&call.name);
        let allowed = self.allowed.contains(&call.name.as_str());
        // A call of one of its tools with nothing in the brackets: the
        // official tools would answer "Invalid Action" and list actions
        // this protocol does not have.
        let empty = allowed && call.args.join(", ").is_empty();
        let problem = match &call.problem {
            Some(problem) => Some(problem.as_str()),
            None if empty => Some("the call has no arguments"),
            None => None,
        };
        let result = if let Some(problem) = problem {
            let how = if allowed {
                format!(" Call it as {}.", usage(&call.name))
            } else {
                format!(" {}.", self.tools_line())
            };
            refused(
                format!("{name}: {problem}.{how}"),
                format!("{name}: {problem}"),
                repairs,
            )
        } else if !allowed {
            refused(
                format!("{name} is not one of your tools. {}.", self.tools_line()),
                format!("{name} is not one of this agent's tools"),
                repairs,
            )
        } else {
            execute(db, &call.name, &call.args)
        };
        ctx.emit(RunEvent::ToolReturned {
            id: call.id.clone(),
            agent: agent.into(),
            ok: result.ok,
            output: result.text.clone(),
        });
        if let Some(notebook) = world.notebook.as_mut() {
            let entry = NotebookEntry {
                author: agent.to_string(),
                tool: call.name.clone(),
                args: call.args.clone(),
                call_id: call.id.clone(),
                ok: result.ok,
                content: result.text.clone(),
            };
            let key = format!("N{}", notebook.len() + 1);
            ctx.note(agent, STORE_NOTEBOOK, Some(&key), &entry);
            notebook.push(entry);
        }
        result.text
    }
}

#[cfg(all(test, not(target_arch = "wasm32")))]
#[path = "tools_grammar_tests.rs"]
mod grammar_tests;
