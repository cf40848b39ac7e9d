//! A run as a document: config + events. This is the file the app exports,
//! the CLI writes, and share links carry.

use super::config::{RunConfig, SCHEMA_VERSION};
use super::event::{LoggedEvent, RunEvent};
use serde::{Deserialize, Serialize};

pub const FORMAT: &str = "roundtable.run";

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunDoc {
    pub format: String,
    pub schema_version: u32,
    pub config: RunConfig,
    pub events: Vec<LoggedEvent>,
}

/// Where a run stands, read off its last event.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Finished,
    Failed,
    Cancelled,
}

impl RunDoc {
    pub fn new(config: RunConfig, events: Vec<LoggedEvent>) -> Self {
        RunDoc {
            format: FORMAT.into(),
            schema_version: SCHEMA_VERSION,
            config,
            events,
        }
    }

    pub fn status(&self) -> RunStatus {
        status_of(&self.events)
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    pub fn to_json_pretty(&self) -> String {
        super::json::pretty(&self.to_json())
    }

    /// Reads a run file, with a clear message for anything wrong.
    pub fn from_json(text: &str) -> Result<RunDoc, String> {
        let v: serde_json::Value = serde_json::from_str(text).map_err(|e| {
            format!("This is not a Roundtable run file: it is not valid JSON ({e}).")
        })?;
        let format = v.get("format").and_then(|f| f.as_str()).unwrap_or("");
        if format != FORMAT {
            return Err(format!(
                "This is not a Roundtable run file (expected \"format\": \"{FORMAT}\")."
            ));
        }
        let version = v
            .get("schema_version")
            .and_then(|n| n.as_u64())
            .unwrap_or(0);
        if version == 0 || version > SCHEMA_VERSION as u64 {
            return Err(format!(
                "This run was saved with format version {version}; this version of Roundtable \
                 reads versions 1 to {SCHEMA_VERSION}. Update Roundtable to open it."
            ));
        }
        let doc: RunDoc =
            super::json::from_tree(&v).map_err(|e| format!("The run file is damaged: {e}."))?;
        doc.validate()?;
        Ok(doc)
    }

    /// Structural checks a decoder cannot do: increasing sequence numbers.
    pub fn validate(&self) -> Result<(), String> {
        let mut last: Option<u64> = None;
        for (i, e) in self.events.iter().enumerate() {
            if let Some(prev) = last {
                if e.seq <= prev {
                    return Err(format!(
                        "The run file is damaged: event {i} has sequence number {} after {prev}.",
                        e.seq
                    ));
                }
            }
            last = Some(e.seq);
        }
        Ok(())
    }
}

pub fn status_of(events: &[LoggedEvent]) -> RunStatus {
    match events.last().map(|e| &e.event) {
        Some(RunEvent::RunFinished { .. }) => RunStatus::Finished,
        Some(RunEvent::RunFailed { .. }) => RunStatus::Failed,
        Some(RunEvent::RunCancelled { .. }) => RunStatus::Cancelled,
        _ => RunStatus::Running,
    }
}

/// The last note a run wrote to `store` that reads as a `T` (a
/// coordinator's result, evaluation…).
pub fn last_note<T: serde::de::DeserializeOwned>(events: &[LoggedEvent], store: &str) -> Option<T> {
    events.iter().rev().find_map(|e| match &e.event {
        RunEvent::NoteWritten {
            store: s, payload, ..
        } if s == store => serde_json::from_value(payload.clone()).ok(),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::ModelSpec;

    fn doc() -> RunDoc {
        let cfg = RunConfig::new("single", "hello", ModelSpec::demo());
        RunDoc::new(
            cfg.clone(),
            vec![
                LoggedEvent {
                    seq: 0,
                    t_ms: 0,
                    event: RunEvent::RunStarted { config: cfg },
                },
                LoggedEvent {
                    seq: 1,
                    t_ms: 5,
                    event: RunEvent::RunFinished { output: None },
                },
            ],
        )
    }

    #[test]
    fn round_trips_through_json() {
        let d = doc();
        assert_eq!(RunDoc::from_json(&d.to_json()).expect("ok"), d);
        assert_eq!(d.status(), RunStatus::Finished);
    }

    #[test]
    fn rejects_bad_files_with_clear_messages() {
        assert!(RunDoc::from_json("{")
            .unwrap_err()
            .contains("not valid JSON"));
        assert!(RunDoc::from_json("{}")
            .unwrap_err()
            .contains("not a Roundtable run file"));
        let mut v: serde_json::Value = serde_json::from_str(&doc().to_json()).expect("json");
        v["schema_version"] = 99.into();
        assert!(RunDoc::from_json(&v.to_string())
            .unwrap_err()
            .contains("version 99"));
        v["schema_version"] = 1.into();
        v["events"][1]["seq"] = 0.into();
        assert!(RunDoc::from_json(&v.to_string())
            .unwrap_err()
            .contains("sequence"));
        v["events"][1]["seq"] = 1.into();
        v["events"][1]["event"] = serde_json::json!({"no_such_event": {}});
        let e = RunDoc::from_json(&v.to_string()).unwrap_err();
        assert!(e.contains("damaged") && e.contains("no_such_event"), "{e}");
    }
}
