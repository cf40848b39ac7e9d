//! The lookups the official evaluator makes, with its matching rules: a plan
//! entry's name is a case-sensitive substring of a table name and its city
//! equals the table city exactly; flights match number + origin + destination
//! (no date); road costs follow `GoogleDistanceMatrix.run_for_evaluation`.

use super::db::TravelDb;
use super::pyops::before_paren;
use super::tables::{Accommodation, Attraction, Restaurant};

/// The two road modes the evaluator prices.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RoadMode {
    SelfDriving,
    Taxi,
}

impl RoadMode {
    pub fn label(self) -> &'static str {
        match self {
            RoadMode::SelfDriving => "self-driving",
            RoadMode::Taxi => "taxi",
        }
    }
    /// People per vehicle (cars for self-driving, taxis).
    pub fn seats(self) -> f64 {
        match self {
            RoadMode::SelfDriving => 5.0,
            RoadMode::Taxi => 4.0,
        }
    }
}

/// `eval(distance.replace("km","").replace(",",""))`: the distance in km, or
/// an error where Python's `eval` would raise.
pub fn distance_km(distance: &str) -> Result<f64, String> {
    let cleaned = distance.replace("km", "").replace(',', "");
    let t = cleaned.trim_matches(|c| c == ' ' || c == '\t');
    let plain = !t.is_empty()
        && t.chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == '-' || c == '+' || c == 'e');
    match t.parse::<f64>() {
        Ok(v) if plain => Ok(v),
        _ => Err(format!(
            "the distance \"{distance}\" cannot be read as kilometres (Python's eval raises)"
        )),
    }
}

/// The cost the official code derives from a distance: `int(km * 0.05)` for
/// any mode containing "driving", `int(km)` for "taxi", None otherwise.
pub fn cost_for_mode(km: f64, mode: &str) -> Option<i64> {
    if mode.contains("driving") {
        Some((km * 0.05).trunc() as i64)
    } else if mode == "taxi" {
        Some(km.trunc() as i64)
    } else {
        None
    }
}

impl TravelDb {
    /// The first restaurant an entry resolves to (what costs and cuisines use).
    pub fn find_restaurant(&self, name: &str, city: &str) -> Option<&Restaurant> {
        self.restaurants_in(city).find(|r| r.name.contains(name))
    }

    pub fn find_attraction(&self, name: &str, city: &str) -> Option<&Attraction> {
        self.attractions_in(city).find(|r| r.name.contains(name))
    }

    pub fn find_accommodation(&self, name: &str, city: &str) -> Option<&Accommodation> {
        self.accommodations_in(city).find(|r| r.name.contains(name))
    }

    /// The accommodation an entry resolves to when it matches exactly one row
    /// (the only case in which minimum nights are checked, quirk 7).
    pub fn single_accommodation(&self, name: &str, city: &str) -> Option<&Accommodation> {
        let mut m = self
            .accommodations_in(city)
            .filter(|r| r.name.contains(name));
        match (m.next(), m.next()) {
            (Some(only), None) => Some(only),
            _ => None,
        }
    }

    /// Whether a flight with this number flies origin → destination (any date).
    pub fn flight_exists(&self, number: &str, origin: &str, dest: &str) -> bool {
        self.flights_numbered(number)
            .any(|f| f.origin == origin && f.destination == dest)
    }

    /// The price of the first flight with this number.
    pub fn flight_price(&self, number: &str) -> Option<f64> {
        self.flights_numbered(number).next().map(|f| f.price)
    }

    /// `run_for_evaluation(origin, destination, mode)['cost']`: None when the
    /// pair is unknown, a value is missing, or the duration contains "day".
    pub fn road_cost(
        &self,
        origin: &str,
        dest: &str,
        mode: RoadMode,
    ) -> Result<Option<i64>, String> {
        let Some(road) = self.road(before_paren(origin), before_paren(dest)) else {
            return Ok(None);
        };
        let (Some(duration), Some(distance)) = (&road.duration, &road.distance) else {
            return Ok(None);
        };
        if duration.contains("day") {
            return Ok(None);
        }
        Ok(cost_for_mode(distance_km(distance)?, mode.label()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_formula_matches_python() {
        assert_eq!(distance_km("1,144 km"), Ok(1144.0));
        assert_eq!(distance_km("12.3 km"), Ok(12.3));
        assert!(distance_km("850 m").is_err());
        assert_eq!(cost_for_mode(1144.0, "self-driving"), Some(57));
        assert_eq!(cost_for_mode(1144.0, "taxi"), Some(1144));
        assert_eq!(cost_for_mode(12.3, "taxi"), Some(12));
        assert_eq!(cost_for_mode(12.3, "walking"), None);
    }
}
