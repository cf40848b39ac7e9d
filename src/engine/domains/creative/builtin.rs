//! The built-in creative-design set, written for Roundtable in the spirit
//! of the paper's Reddit communities (tea, cafe, design, architecture,
//! fashion): each item a subject, its details and a few short reference
//! solutions. Labelled as built-in wherever it is shown.
//!
//! A trial's tasks come from one community (the paper's Tables 3–5), or,
//! with [`Draw::Mixed`], each from a different one (its Table 6 shuffled
//! the tasks of all communities together). Every draw is fixed by the
//! trial's number.

use super::{parse_items, service, shuffled, ComplexTask, CreativeSet, Item};
use serde::{Deserialize, Serialize};

const DATA: &str = include_str!("builtin_design.jsonl");

pub const COMMUNITIES: [&str; 5] = ["tea", "cafe", "design", "architecture", "fashion"];

/// The name a mixed draw goes by where a community is named (its task id
/// is `builtin-mixed-<trial>`; `task` reads it back).
pub const MIXED: &str = "mixed";

/// How a built-in trial draws its members' tasks (the CLI's
/// `--community` / `--mixed-communities`; the ACT page's setup can keep
/// one too).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Draw {
    /// Every task from trial n's community (`n % 5`).
    #[default]
    ByTrial,
    /// Every task from this community.
    Community(String),
    /// Each task from a different community: the communities in the
    /// trial's fixed shuffle, one task of each in turn (a team of more
    /// than five takes a second task of the first ones, never one twice).
    Mixed,
}

impl Draw {
    /// The draw a community name stands for: none → by trial, `mixed` →
    /// mixed, else that community.
    pub fn from_community(community: Option<&str>) -> Draw {
        match community {
            None => Draw::ByTrial,
            Some(MIXED) => Draw::Mixed,
            Some(c) => Draw::Community(c.to_string()),
        }
    }

    /// The community trial `n` draws from, as its task id names it.
    pub fn community(&self, n: u32) -> &str {
        match self {
            Draw::ByTrial => COMMUNITIES[n as usize % COMMUNITIES.len()],
            Draw::Community(c) => c,
            Draw::Mixed => MIXED,
        }
    }
}

/// Every item of the set.
pub fn items() -> Vec<Item> {
    parse_items(DATA, "builtin_design.jsonl").unwrap_or_default()
}

/// The items of one community (all when `community` is None or unknown).
pub fn community(community: Option<&str>) -> Vec<Item> {
    let all = items();
    match community {
        Some(c) if COMMUNITIES.contains(&c) => {
            all.into_iter().filter(|i| i.community == c).collect()
        }
        _ => all,
    }
}

/// Built-in trial `n`: four items of community `n % 5` (or of the one
/// given; `mixed`: one of each of four communities), drawn by the trial's
/// fixed shuffle.
pub fn task(n: u32, community_id: Option<&str>, team: usize) -> ComplexTask {
    draw(n, &Draw::from_community(community_id), team)
}

/// Built-in trial `n` of a team of `team`, drawn as `how` says.
pub fn draw(n: u32, how: &Draw, team: usize) -> ComplexTask {
    let c = how.community(n).to_string();
    let mut t = match how {
        Draw::Mixed => mixed(n, team),
        _ => super::trial(&community(Some(&c)), CreativeSet::Builtin, n, team),
    };
    t.id = format!("builtin-{c}-{n}");
    t
}

/// Trial `n` with each member's task from another community: member k
/// takes the (k / 5)th item, in the community's own fixed shuffle, of the
/// (k % 5)th community in the trial's shuffle of the communities.
fn mixed(n: u32, team: usize) -> ComplexTask {
    let all = items();
    let order = shuffled(COMMUNITIES.len(), n);
    let by: Vec<Vec<&Item>> = order
        .iter()
        .map(|&ci| {
            let members: Vec<&Item> = all
                .iter()
                .filter(|i| i.community == COMMUNITIES[ci])
                .collect();
            let seed = n
                .wrapping_mul(COMMUNITIES.len() as u32)
                .wrapping_add(ci as u32);
            shuffled(members.len(), seed)
                .into_iter()
                .map(|i| members[i])
                .collect()
        })
        .collect();
    let parts = (0..team.min(all.len()))
        .filter_map(|k| by[k % by.len()].get(k / by.len()))
        .map(|i| i.part())
        .collect();
    service(CreativeSet::Builtin, String::new(), parts)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The items, sorted and without repeats.
    fn distinct<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
        let mut v: Vec<T> = items.into_iter().collect();
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn the_set_reads_whole_and_every_community_fills_a_team() {
        let all = items();
        assert!(all.len() >= 25, "{}", all.len());
        for c in COMMUNITIES {
            let n = community(Some(c)).len();
            assert!(n >= 5, "{c}: {n}");
            let t = task(0, Some(c), 4);
            assert_eq!(t.parts.len(), 4);
            assert!(t.parts.iter().all(|p| !p.references.is_empty()));
        }
        assert!(all
            .iter()
            .all(|i| COMMUNITIES.contains(&i.community.as_str())));
    }

    /// The community of a part, by its subject.
    fn community_of(subject: &str) -> String {
        items()
            .into_iter()
            .find(|i| i.subject == subject)
            .map(|i| i.community)
            .unwrap_or_default()
    }

    #[test]
    fn a_mixed_draw_takes_each_task_from_another_community_and_is_fixed() {
        for n in 0..20 {
            let t = draw(n, &Draw::Mixed, 4);
            assert_eq!(t.id, format!("builtin-mixed-{n}"));
            assert_eq!(t.set, CreativeSet::Builtin);
            assert_eq!(t.parts.len(), 4);
            let seen = distinct(t.parts.iter().map(|p| community_of(&p.subject)));
            assert!(seen.iter().all(|c| COMMUNITIES.contains(&c.as_str())));
            assert_eq!(seen.len(), 4, "trial {n}: four communities");
            // The same trial is the same task; the id reads back.
            assert_eq!(t, draw(n, &Draw::Mixed, 4));
            assert_eq!(t, task(n, Some(MIXED), 4));
            assert!(t.text.starts_with("Design one service"));
        }
        // Trials differ, and every community takes part over a few.
        let first = draw(0, &Draw::Mixed, 4);
        assert!((1..5).any(|n| draw(n, &Draw::Mixed, 4).parts != first.parts));
        let used = distinct(
            (0..10)
                .flat_map(|n| draw(n, &Draw::Mixed, 4).parts)
                .map(|p| community_of(&p.subject)),
        );
        assert_eq!(used.len(), 5);
        // Five members: all five communities; eight: no task twice.
        let five = draw(3, &Draw::Mixed, 5);
        let c5 = distinct(five.parts.iter().map(|p| community_of(&p.subject)));
        assert_eq!(c5.len(), 5);
        let eight = draw(3, &Draw::Mixed, 8);
        assert_eq!(eight.parts.len(), 8);
        let subjects = distinct(eight.parts.iter().map(|p| p.subject.as_str()));
        assert_eq!(subjects.len(), 8);
        // The one-community draws are unchanged.
        assert_eq!(draw(7, &Draw::ByTrial, 4), task(7, None, 4));
        assert_eq!(task(7, None, 4).id, "builtin-design-7");
        let tea = draw(7, &Draw::Community("tea".into()), 4);
        assert_eq!(tea, task(7, Some("tea"), 4));
        assert!(tea.parts.iter().all(|p| community_of(&p.subject) == "tea"));
        assert_eq!(Draw::from_community(None), Draw::ByTrial);
    }
}
