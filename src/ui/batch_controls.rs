//! What every batch of runs shares (the travel planner's Batch page and the
//! ACT page): where it stands (idle, running, paused, stopping) and the one
//! gate and stop token all its runs are given, so Pause, Resume and Stop
//! act on every run at once. A batch's own state holds one of these.

use crate::engine::run::gate::Gate;
use crate::engine::run::CancelToken;
use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BatchActivity {
    Idle,
    Running,
    Paused,
    Stopping,
}

#[derive(Clone, Copy)]
pub struct BatchControls {
    pub activity: RwSignal<BatchActivity>,
    controls: StoredValue<Option<(Gate, CancelToken)>, LocalStorage>,
}

impl BatchControls {
    pub fn new() -> Self {
        BatchControls {
            activity: RwSignal::new(BatchActivity::Idle),
            controls: StoredValue::new_local(None),
        }
    }

    /// The batch starts: running, with the gate and stop token its runs share.
    pub fn begin(self) -> (Gate, CancelToken) {
        self.activity.set(BatchActivity::Running);
        let (gate, cancel) = (Gate::new(), CancelToken::new());
        self.controls
            .set_value(Some((gate.clone(), cancel.clone())));
        (gate, cancel)
    }

    /// The batch ended (every run finished or was stopped).
    pub fn end(self) {
        self.controls.set_value(None);
        self.activity.set(BatchActivity::Idle);
    }

    pub fn pause(self) {
        if let Some((g, _)) = self.controls.get_value() {
            g.pause();
            self.activity.set(BatchActivity::Paused);
        }
    }

    pub fn resume(self) {
        if let Some((g, _)) = self.controls.get_value() {
            g.resume();
            self.activity.set(BatchActivity::Running);
        }
    }

    pub fn stop(self) {
        if let Some((g, c)) = self.controls.get_value() {
            c.cancel();
            g.resume();
            self.activity.set(BatchActivity::Stopping);
        }
    }
}

impl Default for BatchControls {
    fn default() -> Self {
        Self::new()
    }
}
