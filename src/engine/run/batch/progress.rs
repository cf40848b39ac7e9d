//! Where a batch stands: how many of its runs ended which way, how many
//! run now, how many are left, what they cost so far, and how it ended.

/// How a batch ended.
#[derive(Clone, Debug, PartialEq)]
pub enum Ended {
    /// Every job ran (or was taken from what was recorded).
    Completed,
    /// The user stopped it: runs under way were cancelled, the rest not started.
    Stopped,
    /// The batch's spend or token cap refused a call (its message): no job
    /// started after that; runs under way went on while their calls fit.
    Capped(String),
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Progress {
    /// Jobs in the batch.
    pub total: usize,
    /// Runs that finished (resumed ones included).
    pub finished: usize,
    /// Runs that failed (a model error, a run's own cap, a setup error).
    pub failed: usize,
    /// Runs stopped by the user after they had started.
    pub stopped: usize,
    /// Runs under way.
    pub running: usize,
    /// Jobs that will not run: the batch was stopped or capped, or an
    /// earlier job of their lane did not finish.
    pub skipped: usize,
    /// Finished runs taken from what was recorded (a resumed batch).
    pub resumed: usize,
    /// What the runs' LLM responses cost so far, at the batch's prices.
    pub cost_usd: f64,
    pub paused: bool,
    /// Stop was pressed; runs under way are ending.
    pub stopping: bool,
    pub ended: Option<Ended>,
}

impl Progress {
    /// Runs that ended, whichever way.
    pub fn done(&self) -> usize {
        self.finished + self.failed + self.stopped
    }

    /// Jobs not started yet (and not skipped).
    pub fn left(&self) -> usize {
        self.total
            .saturating_sub(self.done() + self.running + self.skipped)
    }
}
