//! How runs are stored in the browser's history (IndexedDB), independent of
//! the storage API: a summary record per run and chunks of events, each with
//! a record version. Older records are migrated; records from a newer
//! version or damaged ones are reported, never trusted.

use super::repairs::RepairsView;
use super::usage::UsageView;
use super::Fold;
use crate::engine::base::words::clip;
use crate::engine::model::pricing::PriceTable;
use crate::engine::run::config::{ParentRef, RunConfig};
use crate::engine::run::event::{LoggedEvent, RunEvent};
use crate::engine::run::log::{status_of, RunStatus};
use serde::{Deserialize, Serialize};

/// Version of the stored records. v1: meta + config; chunks of events.
pub const RECORD_VERSION: u32 = 1;

/// A run counts as interrupted when it says "running" but nobody has
/// written to it for this long (its tab was closed or reloaded).
pub const STALE_AFTER_MS: f64 = 3_500.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunMeta {
    pub run_id: String,
    /// A name the user gave the run (the task is shown otherwise).
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub starred: bool,
    pub coordinator: String,
    #[serde(default)]
    pub variant: Option<String>,
    pub task: String,
    pub model: String,
    pub created_ms: f64,
    pub updated_ms: f64,
    pub status: RunStatus,
    #[serde(default)]
    pub events: u64,
    /// LLM requests made (what records before `answered` show).
    #[serde(default)]
    pub llm_calls: u64,
    /// Of the calls: answered, cut off by a stop, failed and left
    /// unanswered, counted as the status line counts them (records from
    /// before these were kept have 0s).
    #[serde(default)]
    pub answered: u64,
    #[serde(default)]
    pub stopped: u64,
    #[serde(default)]
    pub failed: u64,
    #[serde(default)]
    pub unanswered: u64,
    /// Replies received, and of those the ones their steps had to repair
    /// and the ones they could not read (records and runs from before
    /// repairs were counted have 0s; records from before unreadable
    /// replies were counted apart count them as repaired).
    #[serde(default)]
    pub replies: u64,
    #[serde(default)]
    pub repaired: u64,
    #[serde(default)]
    pub unreadable: u64,
    #[serde(default)]
    pub cost_usd: Option<f64>,
    #[serde(default)]
    pub parent: Option<ParentRef>,
}

impl RunMeta {
    /// The summary of a run from its config and events so far.
    pub fn of(
        config: &RunConfig,
        events: &[LoggedEvent],
        prices: &PriceTable,
        now_ms: f64,
    ) -> RunMeta {
        let usage = UsageView::of(events);
        // A run recorded before repairs were flagged counts none (history
        // then shows no count rather than a "0 of M" it cannot vouch for).
        let repairs = match config.repairs_recorded {
            true => RepairsView::of(events).total(),
            false => Default::default(),
        };
        let (cost, complete) = usage.total.cost(prices);
        let calls = super::StatusView::of(events);
        RunMeta {
            run_id: config.run_id.clone(),
            title: None,
            starred: false,
            coordinator: config.coordinator.clone(),
            variant: config.variant.clone(),
            task: config.task.clone(),
            model: config.model_label(),
            created_ms: config.created_ms,
            updated_ms: now_ms,
            status: status_of(events),
            events: events.len() as u64,
            llm_calls: events
                .iter()
                .filter(|e| matches!(e.event, RunEvent::LlmRequest { .. }))
                .count() as u64,
            answered: calls.replies as u64,
            stopped: calls.stopped as u64,
            failed: calls.failed as u64,
            unanswered: calls.unanswered() as u64,
            replies: repairs.replies.into(),
            repaired: repairs.repaired.into(),
            unreadable: repairs.unreadable.into(),
            cost_usd: complete.then_some(cost),
            parent: config.parent.clone(),
        }
    }

    /// Keeps what the user set (title, star) when the summary is refreshed.
    pub fn keep_user_fields(mut self, old: &RunMeta) -> RunMeta {
        self.title = old.title.clone();
        self.starred = old.starred;
        self
    }

    /// Running but silent for a while: the tab that ran it is gone.
    pub fn is_interrupted(&self, now_ms: f64) -> bool {
        self.status == RunStatus::Running && now_ms - self.updated_ms > STALE_AFTER_MS
    }

    pub fn display_title(&self) -> String {
        match &self.title {
            Some(t) if !t.trim().is_empty() => t.clone(),
            _ => {
                let one_line = self.task.split_whitespace().collect::<Vec<_>>().join(" ");
                if one_line.chars().count() > 90 {
                    clip(&one_line, 91)
                } else if one_line.is_empty() {
                    "(no task)".into()
                } else {
                    one_line
                }
            }
        }
    }
}

/// The stored summary of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunRecord {
    pub v: u32,
    pub meta: RunMeta,
    pub config: RunConfig,
}

/// A stored batch of consecutive events of one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChunkRecord {
    pub v: u32,
    pub events: Vec<LoggedEvent>,
}

/// Why a stored record could not be used.
#[derive(Clone, Debug, PartialEq)]
pub enum RecordError {
    Newer(u32),
    Damaged(String),
}

impl RecordError {
    pub fn user_message(&self) -> String {
        match self {
            RecordError::Newer(v) => format!(
                "Saved by a newer version of Roundtable (record version {v}). Update Roundtable to open it; it is left untouched."
            ),
            RecordError::Damaged(why) => format!("This saved run is damaged and cannot be opened ({why}). You can delete it."),
        }
    }
}

fn version_of(v: &serde_json::Value) -> Result<u32, RecordError> {
    match v.get("v") {
        None => Ok(0),
        Some(n) => n
            .as_u64()
            .and_then(|n| u32::try_from(n).ok())
            .ok_or_else(|| RecordError::Damaged("its version is not a number".into())),
    }
}

/// A record's JSON and its version; a newer version than this build
/// reads is refused.
fn versioned(json: &str) -> Result<(serde_json::Value, u32), RecordError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| RecordError::Damaged(format!("not JSON: {e}")))?;
    let version = version_of(&v)?;
    if version > RECORD_VERSION {
        return Err(RecordError::Newer(version));
    }
    Ok((v, version))
}

/// Reads a run record, migrating older versions.
/// v0 (before records carried a version): `{meta, config}` where meta had no
/// title/starred; serde defaults fill them in.
pub fn read_run_record(json: &str) -> Result<RunRecord, RecordError> {
    let (mut v, version) = versioned(json)?;
    if version == 0 {
        if let Some(o) = v.as_object_mut() {
            o.insert("v".into(), RECORD_VERSION.into());
        }
    }
    crate::engine::run::json::from_tree(&v).map_err(|e| RecordError::Damaged(e.to_string()))
}

pub fn read_chunk_record(json: &str) -> Result<ChunkRecord, RecordError> {
    let (mut v, version) = versioned(json)?;
    if version == 0 {
        // v0 chunks were a bare list of events.
        if v.is_array() {
            v = serde_json::json!({ "v": RECORD_VERSION, "events": v });
        } else if let Some(o) = v.as_object_mut() {
            o.insert("v".into(), RECORD_VERSION.into());
        }
    }
    crate::engine::run::json::from_tree(&v).map_err(|e| RecordError::Damaged(e.to_string()))
}

pub fn write_run_record(meta: &RunMeta, config: &RunConfig) -> String {
    serde_json::to_string(&RunRecord {
        v: RECORD_VERSION,
        meta: meta.clone(),
        config: config.sanitized(),
    })
    .unwrap_or_default()
}

pub fn write_chunk_record(events: &[LoggedEvent]) -> String {
    serde_json::to_string(&ChunkRecord {
        v: RECORD_VERSION,
        events: events.to_vec(),
    })
    .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::event::ev;
    use crate::engine::run::ModelSpec;

    fn config() -> RunConfig {
        let mut c = RunConfig::new("single", "Plan a trip to Austin", ModelSpec::demo());
        c.run_id = "r1".into();
        c.created_ms = 1000.0;
        c
    }

    #[test]
    fn meta_summarises_the_run() {
        let events = vec![
            ev(0, RunEvent::RunStarted { config: config() }),
            ev(1, RunEvent::RunFinished { output: None }),
        ];
        let m = RunMeta::of(&config(), &events, &PriceTable::default(), 5000.0);
        assert_eq!(
            (m.status, m.events, m.llm_calls),
            (RunStatus::Finished, 2, 0)
        );
        assert_eq!(m.cost_usd, Some(0.0));
        assert_eq!(m.display_title(), "Plan a trip to Austin");
        let running = RunMeta {
            status: RunStatus::Running,
            ..m.clone()
        };
        assert!(!running.is_interrupted(5000.0 + 1000.0));
        assert!(running.is_interrupted(5000.0 + STALE_AFTER_MS + 1.0));
        assert!(
            !m.is_interrupted(1e12),
            "finished runs are never interrupted"
        );
    }

    /// History counts a run's calls as the status line and Usage do: the
    /// answered ones, then those stopped (issue 49: "8 calls" there, "7 LLM
    /// calls · 1 stopped" on the Run page).
    #[test]
    fn history_counts_calls_as_the_status_line_does() {
        use crate::engine::model::{ChatRequest, ChatResponse, ModelError};
        use crate::engine::views::html::{history_row, HistoryRow};
        use crate::engine::views::StatusView;
        let mut events = vec![ev(0, RunEvent::RunStarted { config: config() })];
        for call in 0..3u32 {
            let request = ChatRequest::new(vec![]);
            let (agent, model) = ("a".to_string(), "m".to_string());
            events.push(ev(
                events.len() as u64,
                RunEvent::LlmRequest {
                    call,
                    agent,
                    model,
                    request,
                },
            ));
        }
        for call in 0..2u32 {
            let response = ChatResponse::default();
            let (latency_ms, retries) = (1, 0);
            events.push(ev(
                events.len() as u64,
                RunEvent::LlmResponse {
                    call,
                    response,
                    latency_ms,
                    retries,
                },
            ));
        }
        let error = ModelError::Cancelled;
        events.push(ev(
            events.len() as u64,
            RunEvent::LlmFailed {
                call: 2,
                error,
                retries: 0,
            },
        ));
        let m = RunMeta::of(&config(), &events, &PriceTable::default(), 5000.0);
        assert_eq!((m.llm_calls, m.answered, m.stopped), (3, 2, 1));
        let line = StatusView::of(&events).calls_line(false);
        assert_eq!(line, "2 LLM calls · 1 stopped");
        let row = history_row(&HistoryRow::Run {
            meta: &m,
            parent_title: None,
            date: String::new(),
            now_ms: 5000.0,
        });
        assert!(
            row.contains(&format!("{} events · {line}", events.len())),
            "{row}"
        );
        // A record from before the counts were kept shows its requests.
        let old = RunMeta {
            answered: 0,
            stopped: 0,
            ..m
        };
        let row = history_row(&HistoryRow::Run {
            meta: &old,
            parent_title: None,
            date: String::new(),
            now_ms: 5000.0,
        });
        assert!(row.contains("events · 3 calls"), "{row}");
    }

    #[test]
    fn records_round_trip_and_migrate() {
        let m = RunMeta::of(&config(), &[], &PriceTable::default(), 1.0);
        let back = read_run_record(&write_run_record(&m, &config())).expect("v1");
        assert_eq!(back.meta, m);
        // v0: no version, no title/starred.
        let mut v0: serde_json::Value =
            serde_json::from_str(&write_run_record(&m, &config())).expect("json");
        v0.as_object_mut().map(|o| o.remove("v"));
        v0["meta"].as_object_mut().map(|o| {
            o.remove("title");
            o.remove("starred")
        });
        let migrated = read_run_record(&v0.to_string()).expect("v0 migrates");
        assert_eq!(
            (
                migrated.v,
                migrated.meta.starred,
                migrated.meta.title.clone()
            ),
            (1, false, None)
        );
        let events = vec![ev(0, RunEvent::RunCancelled { interrupted: None })];
        assert_eq!(
            read_chunk_record(&write_chunk_record(&events))
                .expect("v1")
                .events,
            events
        );
        let bare = serde_json::to_string(&events).expect("json");
        assert_eq!(read_chunk_record(&bare).expect("v0 chunk").events, events);
    }

    #[test]
    fn newer_and_damaged_records_are_reported() {
        assert_eq!(
            read_run_record(r#"{"v": 9, "meta": {}}"#),
            Err(RecordError::Newer(9))
        );
        assert!(read_run_record(r#"{"v": 9}"#)
            .unwrap_err()
            .user_message()
            .contains("newer version"));
        assert!(matches!(
            read_run_record("{oops"),
            Err(RecordError::Damaged(_))
        ));
        assert!(matches!(
            read_run_record(r#"{"v": 1, "meta": 3}"#),
            Err(RecordError::Damaged(_))
        ));
        assert!(matches!(
            read_chunk_record(r#"{"v": "x"}"#),
            Err(RecordError::Damaged(_))
        ));
        assert!(read_chunk_record("[1,2]")
            .unwrap_err()
            .user_message()
            .contains("damaged"));
    }

    #[test]
    fn records_never_hold_url_credentials() {
        let mut c = config();
        c.models[0].spec.base_url = "https://me:sk-123@example.org/v1".into();
        let m = RunMeta::of(&c, &[], &PriceTable::default(), 1.0);
        assert!(!write_run_record(&m, &c).contains("sk-123"));
    }
}
