//! `RunCtx`: what a coordinator gets. It records every event, routes each
//! agent's calls to its model, waits at the gate before every LLM call,
//! bounds concurrency, retries with backoff, and honours cancellation.

use super::budget::{Budget, SpendCap};
use super::config::RunConfig;
use super::event::{Audience, LoggedEvent, RunEvent};
use super::gate::{Gate, Semaphore};
use crate::engine::base::cancel::CancelToken;
use crate::engine::base::clock::Clock;
use crate::engine::base::workspace::Workspace;
use crate::engine::model::local::LOCAL_MAX_TOKENS;
use crate::engine::model::pricing::PriceTable;
use crate::engine::model::reply::Repair;
use crate::engine::model::retry::SplitMix;
use crate::engine::model::shape::ReplySchema;
use crate::engine::model::Call;
use crate::engine::model::{ChatModel, ChatRequest, ChatResponse, ModelError, StreamDelta};
use serde::Serialize;
use std::any::Any;
use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;

/// Which model serves which agent role (`*` = any role not listed).
#[derive(Clone, Default)]
pub struct ModelRouter {
    bindings: Vec<(String, Rc<dyn ChatModel>)>,
}

impl ModelRouter {
    pub fn single(model: Rc<dyn ChatModel>) -> Self {
        ModelRouter {
            bindings: vec![("*".into(), model)],
        }
    }

    /// Builds one model per binding of the config with `make`.
    pub fn from_config(
        config: &RunConfig,
        mut make: impl FnMut(
            &crate::engine::model::spec::ModelSpec,
        ) -> Result<Rc<dyn ChatModel>, String>,
    ) -> Result<Self, String> {
        let mut bindings = Vec::new();
        for b in &config.models {
            bindings.push((b.role.clone(), make(&b.spec)?));
        }
        if bindings.is_empty() {
            return Err("The run has no model configured.".into());
        }
        Ok(ModelRouter { bindings })
    }

    pub fn bind(mut self, role: &str, model: Rc<dyn ChatModel>) -> Self {
        self.bindings.insert(0, (role.to_string(), model));
        self
    }

    pub fn for_role(&self, role: &str) -> Option<Rc<dyn ChatModel>> {
        self.bindings
            .iter()
            .find(|(r, _)| r == role)
            .or_else(|| self.bindings.iter().find(|(r, _)| r == "*"))
            .map(|(_, m)| m.clone())
    }
}

type Observer = Rc<dyn Fn(&LoggedEvent)>;

struct Inner {
    config: RunConfig,
    log: RefCell<Vec<LoggedEvent>>,
    observers: RefCell<Vec<Observer>>,
    models: ModelRouter,
    roles: RefCell<HashMap<String, String>>,
    clock: Rc<dyn Clock>,
    cancel: CancelToken,
    gate: Gate,
    limiter: Semaphore,
    next_call: Cell<u32>,
    rng: RefCell<SplitMix>,
    start_ms: f64,
    resources: RefCell<Vec<Rc<dyn Any>>>,
    /// The run's budget (from its config's spend cap) and any shared one
    /// (a batch's).
    budgets: RefCell<Vec<Rc<Budget>>>,
    /// The coordinator's temperature (MAEL's paper's 0.2), for requests
    /// that set none when the run's model spec sets none either.
    default_temperature: Cell<Option<f32>>,
    /// The signal that stopped the run (the CLI's SIGINT / SIGTERM).
    interrupted: RefCell<Option<String>>,
    /// The files the run's agents wrote (each write an event).
    files: RefCell<Workspace>,
}

#[derive(Clone)]
pub struct RunCtx(Rc<Inner>);

impl RunCtx {
    pub fn new(config: RunConfig, models: ModelRouter, clock: Rc<dyn Clock>) -> Self {
        Self::with_controls(config, models, clock, Gate::new(), CancelToken::new())
    }

    pub fn with_controls(
        mut config: RunConfig,
        models: ModelRouter,
        clock: Rc<dyn Clock>,
        gate: Gate,
        cancel: CancelToken,
    ) -> Self {
        let start_ms = clock.now_ms();
        // A GGUF model in the page (or the CLI's) answers one request at a
        // time: a run on it makes one call at a time, so a call shown (and
        // recorded) as running is running and its latency is the model's.
        if config.models.iter().any(|b| b.spec.is_local()) {
            config.max_concurrency = 1;
        }
        let limiter = Semaphore::new(config.max_concurrency.max(1) as usize);
        let rng = RefCell::new(SplitMix::new(config.seed ^ 0x5EED));
        let budgets = RefCell::new(
            config
                .spend_cap
                .filter(SpendCap::is_set)
                .map(|cap| Rc::new(Budget::new("run", cap, PriceTable::default())))
                .into_iter()
                .collect(),
        );
        RunCtx(Rc::new(Inner {
            config,
            log: RefCell::new(Vec::new()),
            observers: RefCell::new(Vec::new()),
            models,
            roles: RefCell::new(HashMap::new()),
            clock,
            cancel,
            gate,
            limiter,
            next_call: Cell::new(0),
            rng,
            start_ms,
            resources: RefCell::new(Vec::new()),
            budgets,
            default_temperature: Cell::new(None),
            interrupted: RefCell::new(None),
            files: RefCell::new(Workspace::default()),
        }))
    }

    /// The coordinator's own temperature: a request's wins, then the run's
    /// (its model spec's), then this one.
    pub fn set_default_temperature(&self, t: Option<f32>) {
        self.0.default_temperature.set(t);
    }

    /// Makes a shared resource (e.g. a domain database) available to the
    /// coordinator; replaces one of the same type.
    pub fn insert_resource<T: 'static>(&self, value: Rc<T>) {
        let mut r = self.0.resources.borrow_mut();
        r.retain(|x| !x.is::<T>());
        r.push(value);
    }

    /// Prices the run's spend cap with `prices` (the user's, from Settings;
    /// the built-in list otherwise).
    pub fn use_prices(&self, prices: PriceTable) {
        let mut b = self.0.budgets.borrow_mut();
        for budget in b.iter_mut().filter(|x| x.scope == "run") {
            *budget = Rc::new(Budget::new("run", budget.cap, prices.clone()));
        }
    }

    /// Adds a budget shared with other runs (a batch's spend cap).
    pub fn add_budget(&self, budget: Rc<Budget>) {
        self.0.budgets.borrow_mut().push(budget);
    }

    /// A resource of type `T`, if the platform provided one.
    pub fn resource<T: 'static>(&self) -> Option<Rc<T>> {
        self.0
            .resources
            .borrow()
            .iter()
            .find_map(|x| x.clone().downcast::<T>().ok())
    }

    pub fn config(&self) -> &RunConfig {
        &self.0.config
    }
    pub fn clock(&self) -> &Rc<dyn Clock> {
        &self.0.clock
    }
    pub fn cancel_token(&self) -> &CancelToken {
        &self.0.cancel
    }
    pub fn gate(&self) -> &Gate {
        &self.0.gate
    }
    pub fn is_cancelled(&self) -> bool {
        self.0.cancel.is_cancelled()
    }

    /// Stops the run as the page's Stop does (the call in flight aborted,
    /// what was done kept), its end marked as interrupted by `by`.
    pub fn interrupt(&self, by: &str) {
        self.0
            .interrupted
            .borrow_mut()
            .get_or_insert(by.to_string());
        self.0.cancel.cancel();
    }

    /// What interrupted the run, if [`RunCtx::interrupt`] stopped it.
    pub fn interrupted(&self) -> Option<String> {
        self.0.interrupted.borrow().clone()
    }

    /// Called synchronously with every event as it is appended.
    pub fn on_event(&self, f: impl Fn(&LoggedEvent) + 'static) {
        self.0.observers.borrow_mut().push(Rc::new(f));
    }

    /// A copy of the log so far.
    pub fn events(&self) -> Vec<LoggedEvent> {
        self.0.log.borrow().clone()
    }

    pub fn event_count(&self) -> usize {
        self.0.log.borrow().len()
    }

    /// Appends an event and tells the observers. Returns its sequence number.
    pub fn emit(&self, event: RunEvent) -> u64 {
        let t_ms = (self.0.clock.now_ms() - self.0.start_ms).max(0.0) as u64;
        let logged = {
            let mut log = self.0.log.borrow_mut();
            let seq = log.len() as u64;
            log.push(LoggedEvent { seq, t_ms, event });
            log[log.len() - 1].clone()
        };
        let observers: Vec<Observer> = self.0.observers.borrow().clone();
        for o in observers {
            o(&logged);
        }
        logged.seq
    }

    /// Registers an agent (its role picks its model).
    pub fn add_agent(&self, id: &str, role: &str, name: &str) {
        self.0.roles.borrow_mut().insert(id.into(), role.into());
        let model = self
            .0
            .models
            .for_role(role)
            .map(|m| m.name())
            .unwrap_or_default();
        self.emit(RunEvent::AgentAdded {
            agent: id.into(),
            role: role.into(),
            name: name.into(),
            model,
        });
    }

    /// Runs `step` as the phase `id`: `phase_started` before it and
    /// `phase_ended` after it when it succeeds (a step that fails leaves
    /// its phase open where the run ended).
    pub async fn phase<T, E>(
        &self,
        id: &str,
        label: &str,
        step: impl std::future::Future<Output = Result<T, E>>,
    ) -> Result<T, E> {
        self.phase_started(id, label);
        let out = step.await?;
        self.phase_ended(id);
        Ok(out)
    }

    /// [`phase`](Self::phase) for a step that does not wait and cannot fail.
    pub fn phase_now<T>(&self, id: &str, label: &str, step: impl FnOnce() -> T) -> T {
        self.phase_started(id, label);
        let out = step();
        self.phase_ended(id);
        out
    }

    pub fn phase_started(&self, phase: &str, label: &str) {
        self.emit(RunEvent::PhaseStarted {
            phase: phase.into(),
            label: label.into(),
        });
    }

    pub fn phase_ended(&self, phase: &str) {
        self.emit(RunEvent::PhaseEnded {
            phase: phase.into(),
        });
    }

    /// Writes `payload` to one of `agent`'s stores (a notebook, a memory, an
    /// experience pool: the coordinator's own shape), under `key` if given.
    /// Returns the event's sequence number.
    pub fn note<T: Serialize>(
        &self,
        agent: &str,
        store: &str,
        key: Option<&str>,
        payload: &T,
    ) -> u64 {
        self.emit(RunEvent::NoteWritten {
            agent: agent.into(),
            store: store.into(),
            key: key.map(str::to_string),
            payload: serde_json::to_value(payload).unwrap_or_default(),
        })
    }

    /// The run's workspace (its methods: `run::files`).
    pub(super) fn workspace(&self) -> &RefCell<Workspace> {
        &self.0.files
    }

    /// Records what the reply of `call` needed before it could be used
    /// (nothing when `repairs` is empty).
    /// What a step had to repair to read call `call`'s reply. A reply
    /// read with no repair is checked against the shape its request asked
    /// for: one that does not fit is flagged all the same (nothing is taken
    /// in silence).
    pub fn repaired(&self, call: u32, repairs: &[Repair]) {
        let mut all = repairs.to_vec();
        if all.is_empty() {
            if let Some((shape, text)) = self.shaped_reply(call) {
                shape.flag_misfit(&text, &mut all);
            }
        }
        if !all.is_empty() {
            self.emit(RunEvent::ReplyRepaired { call, repairs: all });
        }
    }

    /// The shape call `call` asked for and its reply's text, if it asked one.
    fn shaped_reply(&self, call: u32) -> Option<(ReplySchema, String)> {
        let log = self.0.log.borrow();
        let text = log.iter().rev().find_map(|e| match &e.event {
            RunEvent::LlmResponse {
                call: c, response, ..
            } if *c == call => Some(response.text.clone()),
            _ => None,
        })?;
        let shape = log.iter().rev().find_map(|e| match &e.event {
            RunEvent::LlmRequest {
                call: c, request, ..
            } if *c == call => request.params.schema.clone(),
            _ => None,
        })?;
        Some((shape, text))
    }

    /// Control passes from `from` to `to`, and why.
    pub fn handoff(&self, from: &str, to: &str, why: &str) {
        self.emit(RunEvent::Handoff {
            from: from.into(),
            to: to.into(),
            reason: why.into(),
        });
    }

    pub fn post(&self, from: &str, to: Audience, text: &str, call: Option<u32>) {
        self.emit(RunEvent::MessagePosted {
            from: from.into(),
            to,
            text: text.into(),
            call,
        });
    }

    /// One LLM call for `agent`: waits at the gate, takes a concurrency
    /// permit, records the request, streams deltas into the log, retries
    /// retryable errors with backoff (each retry recorded), and records the
    /// response or the failure. Returns the call number with the response.
    /// A request that sets no temperature (no answer length) gets the
    /// run's, its model spec's, else the coordinator's default
    /// ([`RunCtx::set_default_temperature`]): only steps that set their own
    /// by design keep theirs.
    pub async fn chat(
        &self,
        agent: &str,
        mut req: ChatRequest,
    ) -> Result<(u32, ChatResponse), ModelError> {
        let role = self
            .0
            .roles
            .borrow()
            .get(agent)
            .cloned()
            .unwrap_or_default();
        self.fill_in_params(&role, &mut req);
        let model = self
            .0
            .models
            .for_role(&role)
            .ok_or_else(|| ModelError::BadRequest {
                status: 0,
                detail: format!("no model is configured for role {role}"),
            })?;
        if !self.0.gate.pass(&self.0.cancel, agent).await {
            return Err(ModelError::Cancelled);
        }
        if self.0.limiter.available() == 0 {
            self.emit(RunEvent::LlmQueued {
                agent: agent.into(),
            });
        }
        let _permit = self.0.limiter.acquire().await;
        if self.is_cancelled() {
            return Err(ModelError::Cancelled);
        }
        let call = self.0.next_call.get();
        let model_name = model.name();
        let mut held = self.hold_budgets(&model_name, &req, call)?;
        self.0.next_call.set(call + 1);
        self.emit(RunEvent::LlmRequest {
            call,
            agent: agent.into(),
            model: model.name(),
            request: req.clone(),
        });
        self.complete_with_retries(call, &req, &*model, &model_name, &mut held)
            .await
    }

    /// The temperature a request leaves unset: the run's (its model spec's)
    /// else the coordinator's default; the answer length likewise from the
    /// spec.
    fn fill_in_params(&self, role: &str, req: &mut ChatRequest) {
        let spec = self.0.config.model_for(role);
        req.params.temperature = req
            .params
            .temperature
            .or(spec.and_then(|s| s.sampling.temperature))
            .or(self.0.default_temperature.get());
        let Some(spec) = spec else { return };
        req.params.max_tokens = req.params.max_tokens.or(spec.max_tokens);
        // A model run here is held to a step's shape by constrained
        // decoding: its reply has room for the whole of the shape,
        // whatever the run's longest answer is (cut short, it could not be
        // read). A provider keeps the run's.
        let room = req.params.schema.as_ref().and_then(ReplySchema::room);
        if let (true, Some(room)) = (spec.is_local(), room) {
            let n = req.params.max_tokens.unwrap_or(LOCAL_MAX_TOKENS);
            req.params.max_tokens = Some(n.max(room));
        }
    }

    /// The call's estimate held against every budget; a spend cap it would
    /// pass fails the call (what was held so far given back).
    fn hold_budgets(
        &self,
        model_name: &str,
        req: &ChatRequest,
        call: u32,
    ) -> Result<Held, ModelError> {
        let budgets: Vec<Rc<Budget>> = self.0.budgets.borrow().clone();
        let mut held = Held(Vec::new());
        for b in &budgets {
            let r = b
                .check(model_name, req, call)
                .map_err(|detail| ModelError::SpendCap { detail })?;
            held.0.push((b.clone(), r));
        }
        Ok(held)
    }

    /// The call's attempts: each streams its deltas into the log; the
    /// answer is recorded (with its usage against the budgets), a retryable
    /// error waits its backoff and tries again, any other fails the call.
    async fn complete_with_retries(
        &self,
        call: u32,
        req: &ChatRequest,
        model: &dyn ChatModel,
        model_name: &str,
        held: &mut Held,
    ) -> Result<(u32, ChatResponse), ModelError> {
        let policy = self.0.config.retry;
        let mut attempt = 1;
        loop {
            let started = self.0.clock.now_ms();
            let mut sink = |d: StreamDelta| match d {
                StreamDelta::Text(text) => {
                    self.emit(RunEvent::LlmDelta { call, text });
                }
            };
            let result = model
                .complete(Call::new(req, &mut sink, &self.0.cancel))
                .await;
            let retries = attempt - 1;
            let error = match result {
                Ok(mut response) if !self.is_cancelled() => {
                    if !model.reports_usage() {
                        response.usage.estimated = true;
                    }
                    let latency_ms = (self.0.clock.now_ms() - started).max(0.0) as u64;
                    for (b, r) in held.0.drain(..) {
                        b.record(model_name, &response.usage, r);
                    }
                    self.emit(RunEvent::LlmResponse {
                        call,
                        response: response.clone(),
                        latency_ms,
                        retries,
                    });
                    return Ok((call, response));
                }
                Ok(_) => ModelError::Cancelled,
                Err(_) if self.is_cancelled() => ModelError::Cancelled,
                Err(e) => e,
            };
            let unit = self.0.rng.borrow_mut().unit();
            match policy.delay_ms(attempt, &error, unit) {
                Some(wait_ms) => {
                    self.back_off(call, attempt, error, wait_ms).await?;
                    attempt += 1;
                }
                None => {
                    self.emit(RunEvent::LlmFailed {
                        call,
                        error: error.clone(),
                        retries,
                    });
                    return Err(error);
                }
            }
        }
    }

    /// Records a retry and waits its delay; a cancellation meanwhile fails
    /// the call.
    async fn back_off(
        &self,
        call: u32,
        attempt: u32,
        error: ModelError,
        wait_ms: u64,
    ) -> Result<(), ModelError> {
        self.emit(RunEvent::LlmRetry {
            call,
            attempt,
            error,
            wait_ms,
        });
        let sleep = self.0.clock.sleep(wait_ms);
        let cancelled = self.0.cancel.cancelled();
        futures::pin_mut!(sleep);
        futures::future::select(sleep, cancelled).await;
        if self.is_cancelled() {
            self.emit(RunEvent::LlmFailed {
                call,
                error: ModelError::Cancelled,
                retries: attempt,
            });
            return Err(ModelError::Cancelled);
        }
        Ok(())
    }
}

/// Estimates held against budgets while a call is under way; given back
/// when the call ends without an answer (dropped), or recorded with the
/// answer's usage.
struct Held(Vec<(Rc<Budget>, super::budget::Reservation)>);

impl Drop for Held {
    fn drop(&mut self) {
        for (b, r) in self.0.drain(..) {
            b.release(r);
        }
    }
}
