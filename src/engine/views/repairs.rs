//! Repaired and unreadable replies, per step kind. A reply is *repaired*
//! when its step read it after fixing its form (a fence stripped, a comma
//! removed, cut-off JSON closed), and *unreadable* when the step could not
//! read it at all and used a stated default or asked again: two things,
//! named apart everywhere. A run's metrics say "replies repaired: N of M"
//! and, when there were any, "unreadable: K of M"; every batch table has
//! both per variant or mode ([`RepairSum`] over the runs: "N of M, K
//! unreadable"), and ACT's and MAEL's break them down by step kind
//! ([`by_step_table`], `html::repairs`).

use super::Fold;
use crate::engine::model::reply::Repair;
use crate::engine::run::event::{LoggedEvent, RunEvent};
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Replies and repaired replies of one step kind (or of a whole run).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RepairCount {
    /// Replies received.
    pub replies: u32,
    /// Of which read after a repair of their form.
    pub repaired: u32,
    /// Of which not read at all (the step used a default or asked again).
    pub unreadable: u32,
}

impl RepairCount {
    pub fn add(&mut self, other: RepairCount) {
        self.replies += other.replies;
        self.repaired += other.repaired;
        self.unreadable += other.unreadable;
    }

    /// Whether any reply was repaired or unreadable (a count to mark).
    pub fn flagged(&self) -> bool {
        self.repaired + self.unreadable > 0
    }

    /// "3 of 12", and ", 2 unreadable" when some were.
    pub fn label(&self) -> String {
        let mut s = format!("{} of {}", self.repaired, self.replies);
        if self.unreadable > 0 {
            s.push_str(&format!(", {} unreadable", self.unreadable));
        }
        s
    }

    /// The status line's and History's words: "replies repaired: N of M",
    /// then " · unreadable: K of M" when some replies could not be read.
    pub fn summary(&self) -> String {
        let mut s = format!("replies repaired: {} of {}", self.repaired, self.replies);
        if self.unreadable > 0 {
            s.push_str(&format!(
                " · unreadable: {} of {}",
                self.unreadable, self.replies
            ));
        }
        s
    }

    /// The label of a run's count, or what an older run's lack of one means.
    pub fn label_of(count: Option<RepairCount>) -> String {
        count.map_or_else(|| "not recorded (older run)".into(), |c| c.label())
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct RepairsView {
    /// Each call's step kind (the request's step tag; `other` without one).
    steps: HashMap<u32, String>,
    /// Calls that answered.
    answered: BTreeSet<u32>,
    /// What was repaired, per call.
    pub by_call: BTreeMap<u32, Vec<Repair>>,
    /// The run's config says repairs were recorded (see
    /// `RunConfig::repairs_recorded`).
    recorded: bool,
}

impl Fold for RepairsView {
    fn apply(&mut self, ev: &LoggedEvent) {
        match &ev.event {
            RunEvent::RunStarted { config } => self.recorded = config.repairs_recorded,
            RunEvent::LlmRequest { call, request, .. } => {
                let step = request.step.clone().unwrap_or_else(|| "other".into());
                self.steps.insert(*call, step);
            }
            RunEvent::LlmResponse { call, .. } => {
                self.answered.insert(*call);
            }
            RunEvent::ReplyRepaired { call, repairs } => {
                self.by_call
                    .entry(*call)
                    .or_default()
                    .extend_from_slice(repairs);
            }
            _ => {}
        }
    }
}

impl RepairsView {
    /// The whole run: replies received, how many were repaired and how
    /// many could not be read. (A repair named for a call that never
    /// answered, as an imported file may hold, is not counted: neither
    /// count exceeds the replies received.)
    pub fn total(&self) -> RepairCount {
        let mut out = RepairCount {
            replies: self.answered.len() as u32,
            ..RepairCount::default()
        };
        for c in self.flagged_calls() {
            self.count(&mut out, c);
        }
        out
    }

    /// Counts call `c`'s reply as unreadable (any of its repairs says the
    /// step could not read it) or else as repaired.
    fn count(&self, into: &mut RepairCount, c: &u32) {
        let unreadable = self
            .by_call
            .get(c)
            .is_some_and(|rs| rs.iter().any(|r| r.kind.unreadable()));
        if unreadable {
            into.unreadable += 1;
        } else {
            into.repaired += 1;
        }
    }

    /// The run's count when it was recorded by a version that flags
    /// repaired replies; None for older runs, whose repairs went unrecorded.
    pub fn recorded_total(&self) -> Option<RepairCount> {
        self.recorded.then(|| self.total())
    }

    /// The answered calls whose replies were repaired or unreadable.
    fn flagged_calls(&self) -> impl Iterator<Item = &u32> {
        self.by_call.keys().filter(|c| self.answered.contains(c))
    }

    /// Per step kind (`mael.critique`, …), by name.
    pub fn by_step(&self) -> Vec<(String, RepairCount)> {
        let mut out: BTreeMap<String, RepairCount> = BTreeMap::new();
        let step = |c: &u32| self.steps.get(c).cloned().unwrap_or_else(|| "other".into());
        for c in &self.answered {
            out.entry(step(c)).or_default().replies += 1;
        }
        for c in self.flagged_calls() {
            self.count(out.entry(step(c)).or_default(), c);
        }
        out.into_iter().collect()
    }

    /// How many repairs of each kind (its label), over the run.
    pub fn by_kind(&self) -> BTreeMap<&'static str, u32> {
        let mut out = BTreeMap::new();
        for r in self.by_call.values().flatten() {
            *out.entry(r.kind.label()).or_insert(0) += 1;
        }
        out
    }
}

/// Replies, repaired and unreadable replies over many runs (a batch's
/// variant or mode): in all, and per step kind. A reply counts once
/// however many repairs it needed (it is one call), as unreadable when any
/// of them says so. As JSON, beside the row's other figures (flattened):
/// `"replies": M, "repaired": N, "unreadable": K, "repaired_by_step":
/// {"act.acquire": {"replies": M, "repaired": N, "unreadable": K}, …}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct RepairSum {
    #[serde(flatten)]
    pub total: RepairCount,
    /// Per step kind, in name order.
    #[serde(rename = "repaired_by_step")]
    pub by_step: BTreeMap<String, RepairCount>,
}

impl RepairSum {
    /// Adds one run's replies.
    pub fn add_run(&mut self, events: &[LoggedEvent]) {
        let view = RepairsView::of(events);
        self.total.add(view.total());
        for (step, count) in view.by_step() {
            self.by_step.entry(step).or_default().add(count);
        }
    }

    /// "N of M" over all the runs.
    pub fn label(&self) -> String {
        self.total.label()
    }
}

/// The replies of many runs (each its log), summed.
pub fn sum<'a>(logs: impl IntoIterator<Item = &'a [LoggedEvent]>) -> RepairSum {
    let mut out = RepairSum::default();
    for events in logs {
        out.add_run(events);
    }
    out
}

/// The heading of the breakdown by step kind (text and HTML).
pub const BY_STEP_TITLE: &str = "Replies repaired by step kind";

/// The step kinds any of `columns` has, in name order.
pub fn step_kinds<'a>(columns: impl IntoIterator<Item = &'a RepairSum>) -> Vec<String> {
    let mut steps: BTreeSet<&str> = BTreeSet::new();
    for c in columns {
        steps.extend(c.by_step.keys().map(String::as_str));
    }
    steps.into_iter().map(str::to_string).collect()
}

/// A column's cell for `step`: "N of M", or "—" when it had no such reply.
pub fn step_cell(sum: &RepairSum, step: &str) -> String {
    sum.by_step
        .get(step)
        .map_or_else(|| "—".into(), RepairCount::label)
}

/// [`BY_STEP_TITLE`] as a text table: a row per step kind, a column per
/// `(name, sum)` (a variant, a mode), cells "N of M"; aligned (widths in
/// characters). Empty when no column has a reply.
pub fn by_step_table(columns: &[(&str, &RepairSum)]) -> String {
    let steps = step_kinds(columns.iter().map(|(_, s)| *s));
    if steps.is_empty() {
        return String::new();
    }
    let width = |s: &str| s.chars().count();
    let first = steps
        .iter()
        .map(|s| width(s))
        .chain([width(BY_STEP_TITLE)])
        .max()
        .unwrap_or(0);
    let widths: Vec<usize> = columns
        .iter()
        .map(|(name, sum)| {
            steps
                .iter()
                .map(|s| width(&step_cell(sum, s)))
                .chain([width(name)])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = format!("{BY_STEP_TITLE:<first$}");
    for ((name, _), w) in columns.iter().zip(&widths) {
        out.push_str(&format!("  {name:>w$}"));
    }
    out.push('\n');
    for step in &steps {
        out.push_str(&format!("{step:<first$}"));
        for ((_, sum), w) in columns.iter().zip(&widths) {
            out.push_str(&format!("  {:>w$}", step_cell(sum, step)));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::model::reply::RepairKind;
    use crate::engine::model::{ChatRequest, ChatResponse};
    use crate::engine::run::event::ev;

    #[test]
    fn repaired_replies_are_counted_once_per_call_and_by_step() {
        let mut log = run(&["mael.judge", "mael.critique", "mael.critique"], &[2, 2]);
        // A repair named for a call that never answered (an imported file)
        // is not counted: repaired never exceeds received.
        log.push(ev(
            log.len() as u64,
            RunEvent::ReplyRepaired {
                call: 9,
                repairs: vec![Repair::new(RepairKind::Other, "?")],
            },
        ));
        let v = RepairsView::of(&log);
        assert_eq!(
            v.total(),
            RepairCount {
                replies: 3,
                repaired: 1,
                unreadable: 0
            }
        );
        assert_eq!(v.total().label(), "1 of 3");
        assert_eq!(
            v.by_step(),
            vec![
                (
                    "mael.critique".to_string(),
                    RepairCount {
                        replies: 2,
                        repaired: 1,
                        unreadable: 0
                    }
                ),
                (
                    "mael.judge".to_string(),
                    RepairCount {
                        replies: 1,
                        repaired: 0,
                        unreadable: 0
                    }
                ),
            ]
        );
        assert_eq!(v.by_kind().get("cut-off JSON closed"), Some(&2));
    }

    #[test]
    fn a_reply_the_step_could_not_read_is_counted_unreadable_not_repaired() {
        let mut log = run(&["mael.judge", "mael.critique", "mael.critique"], &[2]);
        log.push(ev(
            log.len() as u64,
            RunEvent::ReplyRepaired {
                call: 0,
                repairs: vec![
                    Repair::new(RepairKind::Closed, "closed"),
                    Repair::new(RepairKind::Default, "no score: 5 used"),
                ],
            },
        ));
        let v = RepairsView::of(&log);
        let want = RepairCount {
            replies: 3,
            repaired: 1,
            unreadable: 1,
        };
        assert_eq!(v.total(), want);
        assert_eq!(v.total().label(), "1 of 3, 1 unreadable");
        let judge = RepairCount {
            replies: 1,
            repaired: 0,
            unreadable: 1,
        };
        assert_eq!(v.by_step()[1], ("mael.judge".to_string(), judge));
        // As JSON, the two counts side by side; an older file without
        // `unreadable` still reads.
        let json = serde_json::to_value(want).unwrap_or_default();
        assert_eq!(json["unreadable"], 1);
        let old: RepairCount =
            serde_json::from_str(r#"{"replies": 3, "repaired": 2}"#).unwrap_or_default();
        assert_eq!((old.repaired, old.unreadable), (2, 0));
    }

    /// A run: `steps[i]` is call i's step, answered; `repaired` calls get
    /// a `reply_repaired` event each (repeats allowed).
    fn run(steps: &[&str], repaired: &[u32]) -> Vec<LoggedEvent> {
        let mut log = Vec::new();
        for (call, step) in steps.iter().enumerate() {
            let call = call as u32;
            log.push(ev(
                log.len() as u64,
                RunEvent::LlmRequest {
                    call,
                    agent: "a".into(),
                    model: "m".into(),
                    request: ChatRequest::new(vec![]).with_step(*step),
                },
            ));
            log.push(ev(
                log.len() as u64,
                RunEvent::LlmResponse {
                    call,
                    response: ChatResponse::default(),
                    latency_ms: 1,
                    retries: 0,
                },
            ));
        }
        for call in repaired {
            log.push(ev(
                log.len() as u64,
                RunEvent::ReplyRepaired {
                    call: *call,
                    repairs: vec![Repair::new(RepairKind::Closed, "closed")],
                },
            ));
        }
        log
    }

    #[test]
    fn runs_sum_per_step_and_print_as_an_aligned_table() {
        let (a, b) = (
            run(&["x.solve", "x.judge", "x.solve"], &[0, 0, 2]),
            run(&["x.solve"], &[]),
        );
        let s = sum([a.as_slice(), b.as_slice()]);
        assert_eq!(s.label(), "2 of 4", "one repaired reply per call");
        assert_eq!(
            s.by_step.get("x.solve"),
            Some(&RepairCount {
                replies: 3,
                repaired: 2,
                unreadable: 0
            })
        );
        assert_eq!(
            serde_json::to_value(&s).expect("json"),
            serde_json::json!({
                "replies": 4, "repaired": 2, "unreadable": 0,
                "repaired_by_step": {
                    "x.judge": {"replies": 1, "repaired": 0, "unreadable": 0},
                    "x.solve": {"replies": 3, "repaired": 2, "unreadable": 0},
                },
            })
        );
        let back: RepairSum =
            serde_json::from_value(serde_json::to_value(&s).expect("json")).expect("back");
        assert_eq!(back, s);
        let other = sum([run(&["x.other"], &[]).as_slice()]);
        // Widths in characters: a name wider than its cells widens its column.
        let t = by_step_table(&[("MAEL-ØExp · reward low", &s), ("b", &other)]);
        assert_eq!(
            t,
            [
                "Replies repaired by step kind  MAEL-ØExp · reward low       b",
                "x.judge                                        0 of 1       —",
                "x.other                                             —  0 of 1",
                "x.solve                                        2 of 3       —",
                "",
            ]
            .join("\n")
        );
        assert_eq!(by_step_table(&[("a", &RepairSum::default())]), "");
    }

    /// A run file from before repairs were recorded (its config has no
    /// `repairs_recorded`): its unflagged replies are not shown as "0 of M"
    /// anywhere (status line, History, comparisons); the same run recorded
    /// now is.
    #[test]
    fn a_run_from_before_repairs_were_recorded_shows_no_count() {
        use crate::engine::model::pricing::PriceTable;
        use crate::engine::model::spec::ModelSpec;
        use crate::engine::run::config::RunConfig;
        use crate::engine::views::{compare, record::RunMeta, StatusView};
        let now = RunConfig::new("single", "t", ModelSpec::demo());
        let mut json = serde_json::to_value(&now).expect("json");
        assert_eq!(json["repairs_recorded"], true, "new runs say so");
        json.as_object_mut().map(|o| o.remove("repairs_recorded"));
        let old: RunConfig = serde_json::from_value(json).expect("an older file reads");
        assert!(!old.repairs_recorded);
        let log = |config: &RunConfig| {
            let mut l = vec![ev(
                0,
                RunEvent::RunStarted {
                    config: config.clone(),
                },
            )];
            for mut e in run(&["x.solve", "x.judge"], &[]) {
                e.seq += 1;
                l.push(e);
            }
            l
        };
        let prices = PriceTable::default();
        let (o, n) = (log(&old), log(&now));
        assert_eq!(RepairsView::of(&o).recorded_total(), None);
        assert_eq!(compare::figures(&o, &prices).repairs, None);
        assert_eq!(RepairCount::label_of(None), "not recorded (older run)");
        assert!(!StatusView::of(&o).repairs_recorded);
        let m = RunMeta::of(&old, &o, &prices, 1.0);
        assert_eq!((m.replies, m.repaired), (0, 0), "History shows no count");
        let count = RepairCount {
            replies: 2,
            ..RepairCount::default()
        };
        assert_eq!(RepairsView::of(&n).recorded_total(), Some(count));
        assert_eq!(compare::figures(&n, &prices).repairs, Some(count));
        assert!(StatusView::of(&n).repairs_recorded);
        let m = RunMeta::of(&now, &n, &prices, 1.0);
        assert_eq!((m.replies, m.repaired), (2, 0));
    }
}
