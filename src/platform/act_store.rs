//! ACT's data in IndexedDB, named, surviving reloads: ACT+ knowledge
//! banks (`act_banks`: name → `{v, name, updated_ms, bank}`, the bank in
//! its file format, [`BankData`]) and imported creative task sets
//! (`act_task_sets`: name → `{v, name, kind, jsonl}`, the JSONL kept as
//! text and parsed on use; a kind is community items, Trivia rows or
//! AgentVerse's tool tasks). Everything is checked before it is stored (a
//! file that does not read is refused and nothing is kept) and again when
//! it is read back: a damaged record, or one written by a newer version,
//! is an error that names it and says what to do, never a panic.
//!
//! A bank holds the team's agents and their stores, nothing else: no
//! provider, model or API key is ever part of it or of its export.

use super::idb::{self, StoreDecl, StoreError};
use super::stored::Keep;
use crate::engine::coordinators::act::plus::{Bank, BankData, BANK_VERSION};
use crate::engine::domains::agentverse::{self, tasks::ToolTask};
use crate::engine::domains::creative::{parse_items, trivia, ComplexTask, Item};
use futures::future::LocalBoxFuture;
use rexie::TransactionMode;
use serde::{Deserialize, Serialize};
use serde_json::Value;

const BANKS: &str = "act_banks";
const SETS: &str = "act_task_sets";
/// ACT's stores (see `idb`): added in version 4.
pub const STORES: &[StoreDecl] = &[StoreDecl::new(BANKS, 4), StoreDecl::new(SETS, 4)];
const RECORD_VERSION: u32 = 1;

// ---------------------------------------------------------------- banks

/// A bank as the bank list shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct BankMeta {
    pub name: String,
    /// Complex tasks the bank's team has taken on.
    pub trials: u32,
    pub agents: usize,
    /// Knowledge entries over all agents.
    pub entries: usize,
    /// Episodes over all agents.
    pub episodes: usize,
}

impl BankMeta {
    fn of(name: &str, bank: &BankData) -> BankMeta {
        BankMeta {
            name: name.into(),
            trials: bank.trials,
            agents: bank.agents.len(),
            entries: bank.agents.iter().map(|a| a.store.knowledge.len()).sum(),
            episodes: bank.agents.iter().map(|a| a.store.episodes.len()).sum(),
        }
    }
}

/// What a failed write tells the user (`what`: "the knowledge bank \"x\"").
fn write_failed(e: &StoreError, what: &str) -> String {
    if e.quota {
        format!("Browser storage is full, so {what} could not be saved. Delete old runs, pools or banks (export them first if you want to keep them), then try again.")
    } else {
        format!(
            "Saving {what} to the browser's storage failed ({}).",
            e.detail
        )
    }
}

fn read_failed(e: &StoreError, what: &str) -> String {
    format!(
        "Reading {what} from the browser's storage failed ({}).",
        e.detail
    )
}

/// Why a stored record cannot be read.
enum Unreadable {
    Damaged(String),
    /// Written by a newer version: its record version.
    Newer(u64),
}

/// The record as JSON, its version checked before its shape (a newer
/// record may have another shape).
fn record_value(text: &str) -> Result<Value, Unreadable> {
    let v: Value = serde_json::from_str(text).map_err(|e| Unreadable::Damaged(e.to_string()))?;
    match v.get("v").and_then(Value::as_u64) {
        Some(n) if n <= u64::from(RECORD_VERSION) => Ok(v),
        Some(n) => Err(Unreadable::Newer(n)),
        None => Err(Unreadable::Damaged("it has no record version".into())),
    }
}

/// Reads a stored bank record (`name` is its key).
fn read_bank_record(name: &str, text: &str) -> Result<BankData, String> {
    let damaged = |why: &str| {
        format!(
            "The stored knowledge bank \"{name}\" is damaged ({why}): delete it, then import an exported copy if you have one."
        )
    };
    let newer = |what: &str, n: u64, reads: u32| {
        format!(
            "The knowledge bank \"{name}\" was stored by a newer version of Roundtable ({what} {n}; this build reads {reads}): update Roundtable to use it."
        )
    };
    let v = record_value(text).map_err(|e| match e {
        Unreadable::Damaged(why) => damaged(&why),
        Unreadable::Newer(n) => newer("record version", n, RECORD_VERSION),
    })?;
    let bank = v.get("bank").ok_or_else(|| damaged("it holds no bank"))?;
    if let Some(n) = bank
        .get("version")
        .and_then(Value::as_u64)
        .filter(|&n| n > u64::from(BANK_VERSION))
    {
        return Err(newer("bank version", n, BANK_VERSION));
    }
    // The bank's own checks (format, version, consistent entries).
    BankData::from_json(&bank.to_string()).map_err(|e| damaged(e.trim_end_matches('.')))
}

/// Every stored bank's summary, by name. Records this build cannot read
/// are left out ([`load_bank`] says what is wrong with one).
pub async fn list_banks() -> Result<Vec<BankMeta>, StoreError> {
    let (_tx, store) = idb::open_store(BANKS, TransactionMode::ReadOnly).await?;
    let keys = store
        .get_all_keys(None, None)
        .await
        .map_err(StoreError::from_rexie)?;
    let values = store
        .get_all(None, None)
        .await
        .map_err(StoreError::from_rexie)?;
    let mut out: Vec<BankMeta> = keys
        .into_iter()
        .zip(values)
        .filter_map(|(k, v)| {
            let name = k.as_string()?;
            let bank = read_bank_record(&name, &v.as_string()?).ok()?;
            Some(BankMeta::of(&name, &bank))
        })
        .collect();
    out.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(out)
}

/// The bank `name`; None when there is none.
pub async fn load_bank(name: &str) -> Result<Option<BankData>, String> {
    let what = format!("the knowledge bank \"{name}\"");
    match idb::get_text(BANKS, name)
        .await
        .map_err(|e| read_failed(&e, &what))?
    {
        None => Ok(None),
        Some(text) => read_bank_record(name, &text).map(Some),
    }
}

/// A bank's record as written (`{v, name, updated_ms, bank}`), borrowing
/// the bank (a save never copies it).
#[derive(Serialize)]
struct BankRecord<'a> {
    v: u32,
    name: &'a str,
    updated_ms: Option<f64>,
    bank: &'a BankData,
}

/// The record of `bank` as `name`, as text.
fn bank_text(name: &str, bank: &BankData) -> String {
    serde_json::to_string(&BankRecord {
        v: RECORD_VERSION,
        name,
        updated_ms: Some(js_sys::Date::now()),
        bank,
    })
    .unwrap_or_default()
}

/// Keeps `bank` as `name` (replacing a bank of that name).
pub async fn save_bank(name: &str, bank: &BankData) -> Result<(), StoreError> {
    idb::put_text(BANKS, name, &bank_text(name, bank)).await
}

/// Banks as stored run resources (`stored::Stored<Banks>`): runs read and
/// fill the bank; a save writes it whole (its agents are replaced by each
/// run).
pub struct Banks;

impl Keep for Banks {
    type Live = Bank;
    type Mark = ();

    fn mark(_: &Bank) {}

    fn write(name: &str, bank: &Bank, _: ()) -> LocalBoxFuture<'static, Result<(), StoreError>> {
        let text = bank_text(name, &bank.data.borrow());
        let name = name.to_string();
        Box::pin(async move { idb::put_text(BANKS, &name, &text).await })
    }
}

pub async fn delete_bank(name: &str) -> Result<(), StoreError> {
    idb::delete(BANKS, name).await
}

/// Checks a bank file (`BankData::from_json`) and keeps it as `name`
/// (the bank takes that name; a bank of that name is replaced). A file
/// that is not a bank is refused and nothing is stored.
pub async fn import_bank(name: &str, text: &str) -> Result<BankMeta, String> {
    let mut bank = BankData::from_json(text)?;
    bank.name = name.into();
    save_bank(name, &bank)
        .await
        .map_err(|e| write_failed(&e, &format!("the knowledge bank \"{name}\"")))?;
    Ok(BankMeta::of(name, &bank))
}

/// The bank `name` as a bank file (pretty JSON, what `import_bank` and the
/// CLI's `--bank` read).
pub async fn export_bank(name: &str) -> Result<String, String> {
    load_bank(name)
        .await?
        .map(|b| b.to_json())
        .ok_or_else(|| format!("There is no knowledge bank \"{name}\" in this browser."))
}

// ---------------------------------------------------------------- task sets

/// The shape of an imported creative task set.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum SetKind {
    /// Community items (`{subject, details, solutions}` per line), drawn
    /// into trials with `creative::trial`.
    Items,
    /// Trivia Creative Writing rows (`{topic, questions, answers}`).
    Trivia,
    /// AgentVerse's tool tasks (`{id, task, agents}`; §4.3).
    Tools,
}

/// An imported set as read back.
#[derive(Clone, Debug, PartialEq)]
pub enum ActSet {
    /// The items; the caller draws each trial with `creative::trial`
    /// (set `CreativeSet::Imported`).
    Items(Vec<Item>),
    /// One complex task per row.
    Trivia(Vec<ComplexTask>),
    /// One tool task per row.
    Tools(Vec<ToolTask>),
}

impl ActSet {
    pub fn kind(&self) -> SetKind {
        match self {
            ActSet::Items(_) => SetKind::Items,
            ActSet::Trivia(_) => SetKind::Trivia,
            ActSet::Tools(_) => SetKind::Tools,
        }
    }

    /// Items or tasks.
    pub fn len(&self) -> usize {
        match self {
            ActSet::Items(i) => i.len(),
            ActSet::Trivia(t) => t.len(),
            ActSet::Tools(t) => t.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[derive(Serialize, Deserialize)]
struct SetRecord {
    v: u32,
    name: String,
    kind: SetKind,
    jsonl: String,
}

fn parse_set(kind: SetKind, jsonl: &str, name: &str) -> Result<ActSet, String> {
    match kind {
        SetKind::Items => parse_items(jsonl, name).map(ActSet::Items),
        SetKind::Trivia => trivia::parse(jsonl, name).map(ActSet::Trivia),
        SetKind::Tools => agentverse::tasks::parse(jsonl, name).map(ActSet::Tools),
    }
}

/// Checks `jsonl` as a set of `kind` and keeps it as `name` (replacing a
/// set of that name); the number of items or tasks. A file that does not
/// read is refused (the error names the line) and nothing is stored.
pub async fn save_set(name: &str, kind: SetKind, jsonl: &str) -> Result<usize, String> {
    let set = parse_set(kind, jsonl, name)?;
    let record = SetRecord {
        v: RECORD_VERSION,
        name: name.into(),
        kind,
        jsonl: jsonl.into(),
    };
    idb::put_json(SETS, name, &record)
        .await
        .map_err(|e| write_failed(&e, &format!("the task set \"{name}\"")))?;
    Ok(set.len())
}

/// The imported sets: (name, kind), by name. Records this build cannot
/// read are left out ([`load_set`] says what is wrong with one).
pub async fn list_sets() -> Vec<(String, SetKind)> {
    let mut out = Vec::new();
    for name in idb::keys(SETS).await.unwrap_or_default() {
        if let Ok(Some(text)) = idb::get_text(SETS, &name).await {
            if let Ok(r) = serde_json::from_str::<SetRecord>(&text) {
                if r.v <= RECORD_VERSION {
                    out.push((name, r.kind));
                }
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The imported set `name`, parsed.
pub async fn load_set(name: &str) -> Result<ActSet, String> {
    let text = idb::get_text(SETS, name)
        .await
        .map_err(|e| read_failed(&e, &format!("the task set \"{name}\"")))?
        .ok_or_else(|| {
            format!("The task set \"{name}\" is not in this browser any more: import it again.")
        })?;
    let damaged = |why: &str| {
        format!("The stored task set \"{name}\" is damaged ({why}): delete it and import it again.")
    };
    let v = record_value(&text).map_err(|e| match e {
        Unreadable::Damaged(why) => damaged(&why),
        Unreadable::Newer(n) => format!(
            "The task set \"{name}\" was stored by a newer version of Roundtable (record version {n}; this build reads {RECORD_VERSION}): update Roundtable, or delete it and import the set again."
        ),
    })?;
    let r: SetRecord = serde_json::from_value(v).map_err(|e| damaged(&e.to_string()))?;
    parse_set(r.kind, &r.jsonl, name).map_err(|e| damaged(&e))
}

pub async fn delete_set(name: &str) -> Result<(), StoreError> {
    idb::delete(SETS, name).await
}
