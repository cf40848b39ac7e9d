//! The restaurant rule, shared by the restaurant expert (choosing among
//! search results) and the compiler (placing the expert's choices): first,
//! for each wanted cuisine not yet served, the cheapest restaurant serving it
//! in a free slot (a full day's meal before a travel day's); then the
//! cheapest unused restaurant for each remaining full-day meal. Never the
//! same restaurant twice. Applied to its own picks, it places them the same
//! way again.

use super::trip::Slot;

/// A restaurant that may fill a slot in its city.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    pub city: String,
    pub name: String,
    /// Average cost per person.
    pub cost: f64,
    pub cuisines: String,
}

/// Whether a name resolves to this row: the evaluator looks a restaurant up
/// as the first row of its city whose name contains the written name.
fn resolves(cands: &[Candidate], i: usize) -> bool {
    let c = &cands[i];
    !cands[..i]
        .iter()
        .any(|o| o.city == c.city && o.name.contains(c.name.as_str()))
}

fn cheapest(
    slots: &[Slot],
    picks: &[Option<usize>],
    cands: &[Candidate],
    required: bool,
    cuisine: Option<&str>,
) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    for (si, s) in slots.iter().enumerate() {
        if picks[si].is_some() || s.required != required {
            continue;
        }
        for (ci, c) in cands.iter().enumerate() {
            let fresh = !picks.contains(&Some(ci));
            if c.city == s.city
                && fresh
                && resolves(cands, ci)
                && cuisine.is_none_or(|w| c.cuisines.contains(w))
                && best.is_none_or(|(_, b)| c.cost < cands[b].cost)
            {
                best = Some((si, ci));
            }
        }
    }
    best
}

/// The candidate chosen for each slot, or the first thing that cannot be done.
pub fn assign(
    slots: &[Slot],
    cands: &[Candidate],
    cuisines: &[String],
) -> Result<Vec<Option<usize>>, String> {
    let mut picks: Vec<Option<usize>> = vec![None; slots.len()];
    for c in cuisines {
        let covered = picks
            .iter()
            .flatten()
            .any(|&i| cands[i].cuisines.contains(c.as_str()));
        if covered {
            continue;
        }
        let (si, ci) = cheapest(slots, &picks, cands, true, Some(c))
            .or_else(|| cheapest(slots, &picks, cands, false, Some(c)))
            .ok_or_else(|| format!("no restaurant in the cities of the trip serves {c}"))?;
        picks[si] = Some(ci);
    }
    while let Some((si, ci)) = cheapest(slots, &picks, cands, true, None) {
        picks[si] = Some(ci);
    }
    if let Some(s) = slots
        .iter()
        .zip(&picks)
        .find(|(s, p)| s.required && p.is_none())
        .map(|(s, _)| s)
    {
        return Err(format!(
            "not enough different restaurants in {} for every meal (day {} {} is left)",
            s.city,
            s.day,
            s.meal.key()
        ));
    }
    Ok(picks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::domains::travel::plan::Field;

    fn slot(day: u32, meal: Field, city: &str, required: bool) -> Slot {
        Slot {
            day,
            meal,
            city: city.into(),
            required,
        }
    }

    fn cand(city: &str, name: &str, cost: f64, cuisines: &str) -> Candidate {
        Candidate {
            city: city.into(),
            name: name.into(),
            cost,
            cuisines: cuisines.into(),
        }
    }

    #[test]
    fn cuisines_first_then_cheapest_and_stable_on_its_own_picks() {
        let slots = vec![
            slot(1, Field::Dinner, "B", false),
            slot(2, Field::Breakfast, "B", true),
            slot(2, Field::Lunch, "B", true),
            slot(2, Field::Dinner, "B", true),
        ];
        let cands = vec![
            cand("B", "Dear Thai", 50.0, "Thai"),
            cand("B", "Cheap", 5.0, "Cafe"),
            cand("B", "Cheap Two", 6.0, "Cafe"),
            cand("B", "Mid", 20.0, "Pizza"),
            cand("B", "Top", 90.0, "French"),
        ];
        let picks = assign(&slots, &cands, &["Thai".into()]).expect("assigned");
        assert_eq!(picks, vec![None, Some(0), Some(1), Some(2)]);
        // Applied to its own picks, the rule places them the same way.
        let chosen: Vec<Candidate> = picks.iter().flatten().map(|&i| cands[i].clone()).collect();
        let again = assign(&slots, &chosen, &["Thai".into()]).expect("again");
        let names = |p: &[Option<usize>], c: &[Candidate]| -> Vec<Option<String>> {
            p.iter().map(|x| x.map(|i| c[i].name.clone())).collect()
        };
        assert_eq!(names(&again, &chosen), names(&picks, &cands));
        assert!(assign(&slots, &cands, &["Klingon".into()])
            .unwrap_err()
            .contains("Klingon"));
        assert!(assign(&slots, &cands[..2], &[]).is_err());
    }
}
