//! Knowledge acquisition (§3.4.2): one request about every other speaker
//! of a meeting, asked again once when its reply cannot be read; what it
//! stores is read by `acquisition_json` and `acquisition_entries`, and
//! recorded with its flags.

use super::{read_acquisition, read_acquisition_json};
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::prompts;
use crate::engine::coordinators::act::reading;
use crate::engine::coordinators::act::team::{Act, Meeting};
use crate::engine::model::reply::{Repair, RepairKind};
use crate::engine::model::shape::ReplySchema;
use crate::engine::run::RunError;

/// What one acquisition stored (ids are given when stored).
#[derive(Default)]
pub struct Acquired {
    pub episodes: Vec<Episode>,
    pub knowledge: Vec<Knowledge>,
}

/// K_{i,l,j}, E_{i,l,j} = g(D_j, K_{i,i}, K_{i,l}, T_{i,j−1}, T_{i,0}): one
/// request about every other speaker. The reply is repaired as needed
/// (caps, clamps, self and unknown speakers dropped), every repair flagged;
/// a reply that is not JSON is asked again once, then stores nothing.
pub async fn acquire_knowledge(
    act: &Act<'_>,
    i: usize,
    meeting: &Meeting,
    transcript: &str,
) -> Result<Acquired, RunError> {
    let owner = act.member_id(i);
    let mut speakers: Vec<String> = Vec::new();
    for (who, _) in &meeting.lines {
        if *who != owner && !speakers.contains(who) {
            speakers.push(who.clone());
        }
    }
    if speakers.is_empty() {
        return Ok(Acquired::default());
    }
    let names: Vec<String> = speakers.iter().map(|s| act.name_of(s)).collect();
    let s = act.speaker(i, STEP_ACQUIRE);
    let prompt = prompts::acquire(&act.prompts, &s, &names, transcript, act.limits())?;
    // Held to the shape, a reply can only be about the speakers listed.
    let about = |s: ReplySchema| {
        s.with_enum("/properties/episodes/items/properties/subject", &names)
            .with_enum("/properties/knowledge/items/properties/subject", &names)
    };
    let mut said = act
        .ask_narrowed(&owner, STEP_ACQUIRE, prompt.clone(), about)
        .await?;
    let mut read = read_acquisition_json(&said.text);
    let retried = read.is_err();
    if let Err(why) = &read {
        act.repaired(
            said.call,
            &[Repair::new(
                RepairKind::AskedAgain,
                format!("the reply could not be read ({why}): asked again once"),
            )],
        );
        said = act
            .ask_narrowed(
                &owner,
                STEP_ACQUIRE,
                prompts::again(&act.prompts, &prompt)?,
                about,
            )
            .await?;
        read = read_acquisition_json(&said.text);
    }
    let (value, mut repairs) = match read {
        Ok(r) => (Some(r.value), r.repairs),
        Err(why) => (
            None,
            vec![reading::default(format!(
                "the second reply could not be read either ({why}): nothing stored"
            ))],
        ),
    };
    let resolve = |name: &str| -> Option<String> {
        let n = name.trim().to_lowercase();
        let n = n.trim_start_matches("agent ").trim();
        let found = speakers
            .iter()
            .chain(std::iter::once(&owner))
            .find(|id| {
                let full = act.name_of(id).to_lowercase();
                id.to_lowercase() == n
                    || full == name.trim().to_lowercase()
                    || full.trim_start_matches("agent ") == n
            })
            .cloned();
        // A 1:1 has one other speaker: "the expert", "Expert" name it.
        found.or_else(|| (speakers.len() == 1 && n.contains("expert")).then(|| speakers[0].clone()))
    };
    let acquired = read_acquisition(
        value.as_ref(),
        &owner,
        meeting.index,
        act.limits(),
        &resolve,
        &mut repairs,
    );
    let repairs = reading::folded(repairs);
    act.repaired(said.call, &repairs);
    let mut flags = reading::details(&repairs);
    if retried {
        // The first reply's retry is a flag of this acquisition too.
        flags.insert(
            0,
            "the first reply could not be read: asked again once".into(),
        );
    }
    act.ctx.note(
        &owner,
        STORE_ACQUISITION,
        Some(&meeting.index.to_string()),
        &AcquisitionRecord {
            meeting: meeting.index,
            episodes: acquired.episodes.len(),
            entries: acquired.knowledge.len(),
            flags,
        },
    );
    Ok(acquired)
}
