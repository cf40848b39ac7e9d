//! A batch's handle, shared by the runner and whoever shows or drives the
//! batch (a page, the CLI): Pause / Resume / Stop act on every run at once
//! through one gate and one stop token; the batch's spend cap is one
//! budget its runs share; its progress (done, running, failed, left, cost
//! so far) is kept here and told to listeners as it changes.

use super::progress::{Ended, Progress};
use crate::engine::base::cancel::CancelToken;
use crate::engine::base::clock::Clock;
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::ChatModel;
use crate::engine::run::budget::{Budget, SpendCap};
use crate::engine::run::gate::Gate;
use crate::engine::run::{ModelRouter, RunConfig, RunCtx};
use std::cell::RefCell;
use std::rc::Rc;

type Listener = Rc<dyn Fn(&Progress)>;

struct Inner {
    gate: Gate,
    cancel: CancelToken,
    budget: Option<Rc<Budget>>,
    prices: PriceTable,
    progress: RefCell<Progress>,
    listeners: RefCell<Vec<Listener>>,
}

/// Cheap to clone; every clone is the same batch.
#[derive(Clone)]
pub struct Controls(Rc<Inner>);

impl Controls {
    /// A batch with `cap` (none set: no cap), its spending priced by `prices`.
    pub fn new(cap: SpendCap, prices: PriceTable) -> Controls {
        let budget = cap
            .is_set()
            .then(|| Rc::new(Budget::new("batch", cap, prices.clone())));
        Controls(Rc::new(Inner {
            gate: Gate::new(),
            cancel: CancelToken::new(),
            budget,
            prices,
            progress: RefCell::new(Progress::default()),
            listeners: RefCell::new(Vec::new()),
        }))
    }

    /// Runs wait before their next LLM call.
    pub fn pause(&self) {
        self.0.gate.pause();
        self.changed(|p| p.paused = true);
    }

    pub fn resume(&self) {
        self.0.gate.resume();
        self.changed(|p| p.paused = false);
    }

    /// No run makes another call and no job starts; runs under way end
    /// cancelled, with everything they did kept.
    pub fn stop(&self) {
        self.0.cancel.cancel();
        self.0.gate.resume();
        self.changed(|p| {
            p.paused = false;
            p.stopping = p.ended.is_none();
        });
    }

    pub fn is_stopped(&self) -> bool {
        self.0.cancel.is_cancelled()
    }

    /// The batch cap's message once it has refused a call.
    pub fn capped(&self) -> Option<String> {
        self.0.budget.as_ref().and_then(|b| b.refusal())
    }

    pub fn prices(&self) -> &PriceTable {
        &self.0.prices
    }

    /// A run's context under these controls: the batch's gate, a stop
    /// token of its own that the batch's Stop cancels, and the batch's
    /// budget beside the run's own. The run is dated when it starts.
    pub fn context(
        &self,
        mut config: RunConfig,
        models: ModelRouter,
        clock: Rc<dyn Clock>,
    ) -> RunCtx {
        config.created_ms = clock.epoch_ms().floor();
        let ctx = RunCtx::with_controls(
            config,
            models,
            clock,
            self.0.gate.clone(),
            self.0.cancel.child(),
        );
        ctx.use_prices(self.0.prices.clone());
        if let Some(b) = &self.0.budget {
            ctx.add_budget(b.clone());
        }
        ctx
    }

    /// [`context`](Self::context) with one model for every agent.
    pub fn one_model(
        &self,
        config: &RunConfig,
        model: Rc<dyn ChatModel>,
        clock: Rc<dyn Clock>,
    ) -> RunCtx {
        self.context(config.clone(), ModelRouter::single(model), clock)
    }

    /// Where the batch stands now.
    pub fn progress(&self) -> Progress {
        self.0.progress.borrow().clone()
    }

    /// Called with the progress whenever it changes.
    pub fn on_progress(&self, f: impl Fn(&Progress) + 'static) {
        self.0.listeners.borrow_mut().push(Rc::new(f));
    }

    /// Changes the progress and tells the listeners.
    pub(super) fn changed(&self, f: impl FnOnce(&mut Progress)) {
        let now = {
            let mut p = self.0.progress.borrow_mut();
            f(&mut p);
            p.clone()
        };
        let listeners: Vec<Listener> = self.0.listeners.borrow().clone();
        for l in listeners {
            l(&now);
        }
    }

    pub(super) fn ended(&self, how: Ended) {
        self.changed(|p| {
            p.ended = Some(how);
            p.stopping = false;
            p.paused = false;
        });
    }
}
