//! A run's workspace from its log: every `file_written` written again, in
//! order. A log from a share link or a file is untrusted, so it is held to
//! the same limits as a live run: the writes it refuses are returned, for
//! the viewer to see, and the rest is kept.

use super::ctx::RunCtx;
use super::event::{LoggedEvent, RunEvent};
use crate::engine::base::workspace::{Refusal, Workspace};

/// Writes `e` to `ws` when it is a `file_written` event; its refusal, if
/// the workspace refuses it.
pub fn apply(ws: &mut Workspace, e: &LoggedEvent) -> Option<Refusal> {
    let RunEvent::FileWritten {
        agent,
        path,
        text,
        call,
    } = &e.event
    else {
        return None;
    };
    ws.write(path, text, agent, e.seq, *call).err()
}

/// The workspace `events` wrote, and the writes in them it refuses.
pub fn workspace(events: &[LoggedEvent]) -> (Workspace, Vec<Refusal>) {
    let mut ws = Workspace::default();
    let refused = events.iter().filter_map(|e| apply(&mut ws, e)).collect();
    (ws, refused)
}

impl RunCtx {
    /// Writes a new version of a file to the run's workspace, as `agent`
    /// (from call `call`'s answer, if any), and logs it; or refuses it
    /// whole, logging nothing (the refusal is the caller's to show: a
    /// tool's result, a mark on the reply). Returns the path as kept.
    pub fn write_file(
        &self,
        agent: &str,
        path: &str,
        text: &str,
        call: Option<u32>,
    ) -> Result<String, Refusal> {
        let kept = self.workspace().borrow().check(path, text)?;
        let seq = self.emit(RunEvent::FileWritten {
            agent: agent.into(),
            path: kept.clone(),
            text: text.into(),
            call,
        });
        self.workspace()
            .borrow_mut()
            .write(&kept, text, agent, seq, call)
    }

    /// The run's workspace as it is now.
    pub fn files(&self) -> Workspace {
        self.workspace().borrow().clone()
    }

    /// The latest text of a workspace file.
    pub fn read_file(&self, path: &str) -> Option<String> {
        self.workspace()
            .borrow()
            .latest(path)
            .map(|v| v.text.clone())
    }
}

/// Whether a run wrote any file (the Files panel loads only then).
pub fn has_files(events: &[LoggedEvent]) -> bool {
    events
        .iter()
        .any(|e| matches!(e.event, RunEvent::FileWritten { .. }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::base::clock::FakeClock;
    use crate::engine::base::workspace::MAX_FILE_BYTES;
    use crate::engine::model::spec::ModelSpec;
    use crate::engine::run::event::ev;
    use crate::engine::run::{ModelRouter, RunConfig, RunCtx};
    use std::rc::Rc;

    fn file(agent: &str, path: &str, text: &str) -> RunEvent {
        RunEvent::FileWritten {
            agent: agent.into(),
            path: path.into(),
            text: text.into(),
            call: Some(2),
        }
    }

    #[test]
    fn the_log_rebuilds_the_workspace_held_to_its_limits() {
        let events = vec![
            ev(0, file("a", "main.py", "v1")),
            ev(1, RunEvent::PhaseEnded { phase: "x".into() }),
            ev(2, file("b", "./main.py", "v2")),
            ev(3, file("b", "/etc/passwd", "root")),
            ev(4, file("c", "lib/util.py", &"z".repeat(MAX_FILE_BYTES + 1))),
        ];
        assert!(has_files(&events));
        assert!(!has_files(&events[1..2]));
        let (ws, refused) = workspace(&events);
        assert_eq!(ws.paths().collect::<Vec<_>>(), ["main.py"]);
        let h = ws.history("main.py");
        assert_eq!(h.len(), 2);
        assert_eq!(
            (h[1].agent.as_str(), h[1].seq, h[1].call),
            ("b", 2, Some(2))
        );
        assert_eq!(refused.len(), 2);
        assert!(refused[0].reason.contains("relative"), "{:?}", refused[0]);
        assert!(
            refused[1].reason.contains("more than a file"),
            "{:?}",
            refused[1]
        );
    }

    #[test]
    fn a_live_write_is_logged_and_a_refused_one_is_not() {
        let ctx = RunCtx::new(
            RunConfig::new("single", "", ModelSpec::demo()),
            ModelRouter::default(),
            Rc::new(FakeClock::new()),
        );
        assert_eq!(
            ctx.write_file("coder", "./app/main.py", "print(1)", Some(0))
                .as_deref(),
            Ok("app/main.py")
        );
        let before = ctx.event_count();
        let r = ctx
            .write_file("coder", "app/main.py/x", "y", None)
            .unwrap_err();
        assert!(r.reason.contains("is a file"), "{r}");
        assert_eq!(ctx.event_count(), before, "a refusal logs nothing");
        assert_eq!(ctx.read_file("app/main.py").as_deref(), Some("print(1)"));
        let (replayed, refused) = workspace(&ctx.events());
        assert!(refused.is_empty());
        assert_eq!(replayed, ctx.files(), "the log rebuilds what the run holds");
    }
}
