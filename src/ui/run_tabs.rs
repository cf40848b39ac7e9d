//! The centre tabs of the run page, shared through context so a view can
//! send the user to another one (a notebook entry's "source" opens the
//! tool call in Events).

use leptos::prelude::*;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tab {
    Transcript,
    Events,
    /// The run's workspace (shown once the run has written a file).
    Files,
    /// A tab of the shown run's coordinator (`ExtraTab::id`).
    Extra(&'static str),
}

#[derive(Clone, Copy)]
pub struct RunTabs {
    pub tab: RwSignal<Tab>,
    /// An event to scroll to and open in the Events tab.
    pub focus_seq: RwSignal<Option<u64>>,
}

impl RunTabs {
    pub fn provide() -> Self {
        let tabs = RunTabs {
            tab: RwSignal::new(Tab::Transcript),
            focus_seq: RwSignal::new(None),
        };
        provide_context(tabs);
        tabs
    }

    /// Opens the Events tab at event `seq`.
    pub fn show_event(self, seq: u64) {
        self.focus_seq.set(Some(seq));
        self.tab.set(Tab::Events);
    }
}

pub fn use_tabs() -> Option<RunTabs> {
    use_context::<RunTabs>()
}
