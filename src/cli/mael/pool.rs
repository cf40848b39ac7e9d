//! `roundtable pool rank`: an agent's entries of a step kind ranked for a
//! query vector, with the score's parts; `roundtable pool merge`: two pools
//! of the same embedder into one.

use super::super::flags::Flags;
use roundtable::engine::base::words::count;
use roundtable::engine::coordinators::mael::contract::{Polarity, Scoring, StepKind};
use roundtable::engine::coordinators::mael::experience::Pool;
use std::ffi::OsString;

#[derive(Debug, Default, PartialEq)]
struct PoolArgs {
    pub merge: bool,
    pub pool: Option<String>,
    pub agent: Option<String>,
    pub step: Option<String>,
    pub query: Option<String>,
    pub alpha: Option<f64>,
    pub k: Option<usize>,
    pub reward: Option<String>,
    pub similarity: Option<String>,
    pub json: bool,
    /// merge: the two pools.
    pub inputs: Vec<String>,
    pub out: Option<String>,
}

const USAGE: &str = "\
  roundtable pool rank --pool P.json --agent ID --step KIND --query-embedding Q.json
                       [--alpha A] [--k K] [--reward high|low] [--similarity high|low] [--json]
  roundtable pool merge A.json B.json --out C.json";

fn read(path: &str) -> Result<Pool, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
    Pool::from_json(&text).map_err(|e| format!("{path}: {}", e.user_message()))
}

fn polarity(v: Option<&str>) -> Result<Polarity, String> {
    match v {
        None | Some("high") => Ok(Polarity::High),
        Some("low") => Ok(Polarity::Low),
        Some(other) => Err(format!("\"{other}\": use high or low")),
    }
}

impl PoolArgs {
    fn read(f: &Flags) -> Result<PoolArgs, String> {
        let mut words = f.words.clone();
        let merge = match words.first().map(String::as_str) {
            Some("rank") => false,
            Some("merge") => true,
            _ => return Err(format!("usage:\n{USAGE}")),
        };
        words.remove(0);
        Ok(PoolArgs {
            merge,
            pool: f.text("pool")?,
            agent: f.text("agent")?,
            step: f.text("step")?,
            query: f.text("query-embedding")?,
            alpha: f.real("alpha")?,
            k: f.number("k")?,
            reward: f.text("reward")?,
            similarity: f.text("similarity")?,
            json: f.switch("json")?,
            inputs: words,
            out: f.text("out")?,
        })
    }
}

/// `pool rank …` or `pool merge …`.
pub fn run(args: Vec<OsString>) -> Result<i32, String> {
    let mut f = Flags::parse("pool", args)?;
    let a = PoolArgs::read(&f)?;
    f.words.clear();
    f.finish()?;
    if a.merge {
        let [x, y] = a.inputs.as_slice() else {
            return Err(format!("pool merge needs two pool files\n{USAGE}"));
        };
        let out = a.out.as_deref().ok_or("pool merge needs --out C.json")?;
        let mut merged = read(x)?;
        let added = merged.merge(&read(y)?).map_err(|e| e.user_message())?;
        crate::cli::save::write_whole(out, &merged.to_json())?;
        println!(
            "{out}: {} ({added} from {y})",
            count(merged.len(), "experience")
        );
        return Ok(0);
    }
    let need = |v: &Option<String>, flag: &str| {
        v.clone().ok_or(format!("pool rank needs {flag}\n{USAGE}"))
    };
    let pool = read(&need(&a.pool, "--pool")?)?;
    let agent = need(&a.agent, "--agent")?;
    let step_name = need(&a.step, "--step")?;
    let step = StepKind::parse(&step_name).ok_or_else(|| {
        format!(
            "unknown --step \"{step_name}\": use judge, decompose, solve, critique or aggregate"
        )
    })?;
    let qpath = need(&a.query, "--query-embedding")?;
    let text = std::fs::read_to_string(&qpath).map_err(|e| format!("cannot read {qpath}: {e}"))?;
    let mut q: Vec<f32> = serde_json::from_str(&text)
        .map_err(|e| format!("{qpath}: not a JSON array of numbers ({e})"))?;
    if q.len() != pool.dims() {
        return Err(format!(
            "{qpath} has {} numbers; the pool's vectors have {}",
            q.len(),
            pool.dims()
        ));
    }
    if q.iter().any(|x| !x.is_finite()) {
        return Err(format!("{qpath} holds a number that is not finite"));
    }
    roundtable::engine::model::embed::normalize(&mut q);
    let alpha = a.alpha.unwrap_or(0.5);
    if !(0.0..=1.0).contains(&alpha) {
        return Err(format!("--alpha {alpha}: use a number from 0 to 1"));
    }
    let scoring = Scoring {
        alpha,
        reward: polarity(a.reward.as_deref())?,
        similarity: polarity(a.similarity.as_deref())?,
    };
    let hits = pool.rank(&q, &scoring, a.k.unwrap_or(1), |e| {
        e.agent == agent && e.step == step
    });
    for h in hits {
        if a.json {
            println!(
                "{}",
                serde_json::json!({"id": h.id, "similarity": h.similarity, "reward": h.reward, "score": h.score})
            );
        } else {
            println!(
                "{:<24} similarity {:.4}  reward {:.4}  score {:.4}",
                h.id, h.similarity, h.reward, h.score
            );
        }
    }
    Ok(0)
}
