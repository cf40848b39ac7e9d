//! The built-in creative-design set, written for Roundtable in the spirit
//! of the paper's Reddit communities (tea, cafe, design, architecture,
//! fashion): each item a subject, its details and a few short reference
//! solutions. Labelled as built-in wherever it is shown.

use super::{parse_items, trial, ComplexTask, CreativeSet, Item};

const DATA: &str = include_str!("builtin_design.jsonl");

pub const COMMUNITIES: [&str; 5] = ["tea", "cafe", "design", "architecture", "fashion"];

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
/// given), drawn by the trial's fixed shuffle.
pub fn task(n: u32, community_id: Option<&str>, team: usize) -> ComplexTask {
    let c = community_id.unwrap_or(COMMUNITIES[n as usize % COMMUNITIES.len()]);
    let mut t = trial(&community(Some(c)), CreativeSet::Builtin, n, team);
    t.id = format!("builtin-{c}-{n}");
    t
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
