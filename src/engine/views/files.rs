//! The Files tab's view: the run's workspace as of the replay cursor, and
//! the writes in the log it refused (a log from a link or a file is held
//! to a live run's limits: `run::files`).

use super::Fold;
use crate::engine::base::workspace::{Refusal, Workspace};
use crate::engine::run::files;
use crate::engine::run::LoggedEvent;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilesView {
    pub workspace: Workspace,
    pub refused: Vec<Refusal>,
}

impl Fold for FilesView {
    fn apply(&mut self, e: &LoggedEvent) {
        if let Some(r) = files::apply(&mut self.workspace, e) {
            self.refused.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::event::ev;
    use crate::engine::run::files::workspace;
    use crate::engine::run::RunEvent;

    #[test]
    fn the_fold_is_the_logs_workspace() {
        let file = |path: &str, text: &str| RunEvent::FileWritten {
            agent: "coder".into(),
            path: path.into(),
            text: text.into(),
            call: None,
        };
        let events = vec![
            ev(0, file("main.py", "a")),
            ev(1, file("../x", "b")),
            ev(2, file("main.py", "c")),
        ];
        let mut v = FilesView::default();
        for e in &events {
            v.apply(e);
        }
        let (ws, refused) = workspace(&events);
        assert_eq!(v.workspace, ws);
        assert_eq!(v.refused, refused);
        assert_eq!(v.refused.len(), 1);
        assert_eq!(v.workspace.history("main.py").len(), 2);
    }
}
