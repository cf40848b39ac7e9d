//! After a meeting (§3.4.2), every agent updates itself from the same
//! snapshot (the task it held during the meeting, the knowledge it had
//! before it): **task exploration** rewrites its current subject (details
//! and the initial task never change), and **knowledge acquisition**
//! stores episodes and scored entries about every other speaker. The two
//! are independent, so they run concurrently, and so do the agents.
//!
//! Here the two run side by side for every agent and what they return is
//! stored; `explore` is task exploration (the request and reading the new
//! subject), `acquire` is knowledge acquisition (the request, asked again
//! once when unreadable), `acquisition_json` maps the shapes its reply
//! comes in, and `acquisition_entries` caps and repairs what it holds.

mod acquire;
mod acquisition_entries;
mod acquisition_json;
mod explore;

pub use acquire::{acquire_knowledge, Acquired};
pub use acquisition_entries::read_acquisition;
pub use acquisition_json::read_acquisition_json;
pub use explore::{explore_task, read_subject};

use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::team::{Act, Meeting};
use crate::engine::run::RunError;
use futures::future::join_all;

/// Exploration and acquisition for `agents` (member indices) after
/// `meeting`, whose other speakers are `speakers` (ids).
pub async fn after_meeting(
    act: &Act<'_>,
    meeting: &Meeting,
    agents: &[usize],
    stage: &str,
) -> Result<(), RunError> {
    let transcript = act.transcript(meeting);
    let work = agents.iter().map(|&i| {
        let transcript = transcript.clone();
        async move {
            let explore = async {
                if act.features.exploration {
                    Some(explore_task(act, i, &transcript).await)
                } else {
                    None
                }
            };
            let acquire = async {
                if act.features.knowledge {
                    Some(acquire_knowledge(act, i, meeting, &transcript).await)
                } else {
                    None
                }
            };
            let (subject, acquired) = futures::join!(explore, acquire);
            if let Some(acquired) = acquired {
                let mut acquired = acquired?;
                for k in &mut acquired.knowledge {
                    k.source_name = act.name_of(&k.source);
                }
                let mut members = act.members.borrow_mut();
                let store = &mut members[i].store;
                let first = store.next_order();
                for (order, mut k) in (first..).zip(acquired.knowledge) {
                    k.order = order;
                    k.trial = act.trial.get();
                    k.id = format!("{}.k{order}", k.owner);
                    note_knowledge(act, &k);
                    store.knowledge.push(k);
                }
                let base = store.episodes.len();
                for (n, mut e) in acquired.episodes.into_iter().enumerate() {
                    e.id = format!("{}.e{}", e.owner, base + n);
                    act.ctx.note(&e.owner, STORE_EPISODE, Some(&e.id), &e);
                    store.episodes.push(e);
                }
            }
            if let Some(explored) = subject {
                let (subject, flags) = explored?;
                act.members.borrow_mut()[i].current.subject = subject;
                act.note_task(i, stage, flags);
            }
            Ok::<(), RunError>(())
        }
    });
    join_all(work).await.into_iter().collect()
}

fn note_knowledge(act: &Act<'_>, k: &Knowledge) {
    act.ctx.note(&k.owner, STORE_KNOWLEDGE, Some(&k.id), k);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wrapping_key_is_echoed_capped() {
        let key = "k".repeat(100_000);
        let (t, r) = read_subject(
            &serde_json::json!({ key.clone(): {"task": "Tea"} }).to_string(),
            "Old",
        );
        assert_eq!(t, "Tea");
        let text = serde_json::json!({ key: {"episodes": [], "knowledge": []} }).to_string();
        let read = read_acquisition_json(&text).expect("read");
        for x in r.iter().chain(&read.repairs) {
            assert!(x.detail.chars().count() < 200, "{} chars", x.detail.len());
        }
        assert!(!read.repairs.is_empty());
    }
}
