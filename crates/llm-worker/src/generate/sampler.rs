//! The next token from the model's logits, as llama.cpp picks it: its
//! sampler chain, in its order, with its defaults, and a seeded random
//! draw, so the same request gives the same answer.
//!
//! The chain (llama.cpp's `common_params_sampling::samplers`, the stages
//! this engine has):
//! 1. **repetition penalty** over the last `repeat_last_n` tokens of the
//!    context (prompt and answer so far): each distinct token seen there
//!    has its logit divided by the penalty when positive, multiplied by it
//!    when negative or zero (llama.cpp's `llama_sampler_penalties`);
//! 2. **top-k**: the `top_k` highest logits (0: all);
//! 3. **top-p**: the most likely tokens until their probabilities add up
//!    to at least `top_p` (1: all);
//! 4. **min-p**: tokens at least `min_p` times as likely as the most
//!    likely one (0: all);
//! 5. **temperature**: logits divided by it, then a draw from their
//!    softmax. At temperature 0 (or none) the token is the argmax after
//!    the penalty (what greedy decoding always was here: the first of
//!    equal maxima); top-k, top-p and min-p always keep the argmax, so
//!    they do not change a greedy answer.
//!
//! Top-p and min-p read the probabilities before the temperature, as
//! llama.cpp's chain does (the temperature is its last stage).

use crate::protocol::{
    GenParams, DEFAULT_MIN_P, DEFAULT_REPEAT_LAST_N, DEFAULT_REPEAT_PENALTY, DEFAULT_TOP_K,
    DEFAULT_TOP_P,
};

/// What one generation samples with, defaults filled in.
#[derive(Clone, Debug, PartialEq)]
pub struct SamplerConfig {
    /// 0: greedy.
    pub temperature: f32,
    /// 0: off.
    pub top_k: usize,
    /// 1: off.
    pub top_p: f32,
    /// 0: off.
    pub min_p: f32,
    /// 1: off.
    pub repeat_penalty: f32,
    /// 0: off.
    pub repeat_last_n: usize,
}

impl Default for SamplerConfig {
    fn default() -> Self {
        SamplerConfig {
            temperature: 0.0,
            top_k: DEFAULT_TOP_K as usize,
            top_p: DEFAULT_TOP_P,
            min_p: DEFAULT_MIN_P,
            repeat_penalty: DEFAULT_REPEAT_PENALTY,
            repeat_last_n: DEFAULT_REPEAT_LAST_N as usize,
        }
    }
}

impl SamplerConfig {
    /// A request's parameters; what it leaves unset (or sets to a value
    /// that is not a number) is llama.cpp's default, and values are kept
    /// in their range.
    pub fn from_params(p: &GenParams) -> SamplerConfig {
        let d = SamplerConfig::default();
        let finite = |x: Option<f32>| x.filter(|v| v.is_finite());
        let s = &p.sampling.local;
        SamplerConfig {
            temperature: p
                .sampling
                .temperature
                .filter(|t| t.is_finite() && *t > 0.0)
                .unwrap_or(0.0),
            top_k: s.top_k.map_or(d.top_k, |k| k as usize),
            top_p: finite(s.top_p).map_or(d.top_p, |v| v.clamp(0.0, 1.0)),
            min_p: finite(s.min_p).map_or(d.min_p, |v| v.clamp(0.0, 1.0)),
            repeat_penalty: finite(s.repeat_penalty)
                .filter(|v| *v > 0.0)
                .unwrap_or(d.repeat_penalty),
            repeat_last_n: s.repeat_last_n.map_or(d.repeat_last_n, |n| n as usize),
        }
    }

    pub fn greedy(&self) -> bool {
        self.temperature <= 0.0
    }
}

/// SplitMix64: a small, fast, well-mixed generator; the same seed gives
/// the same draws on every platform.
#[derive(Clone, Debug)]
struct Rng(u64);

impl Rng {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// A token id and its (adjusted) logit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Candidate {
    pub id: u32,
    pub logit: f32,
}

/// One generation's sampler: its settings and its random state.
#[derive(Clone, Debug)]
pub struct Sampler {
    pub config: SamplerConfig,
    rng: Rng,
}

impl Sampler {
    pub fn new(config: SamplerConfig, seed: u64) -> Sampler {
        Sampler {
            config,
            rng: Rng(seed),
        }
    }

    /// The next token after the context `prompt` then `generated`.
    pub fn sample(&mut self, logits: &[f32], prompt: &[u32], generated: &[u32]) -> u32 {
        let c = &self.config;
        let mut logits = logits.to_vec();
        let window = last_n(prompt, generated, c.repeat_last_n);
        apply_repeat_penalty(&mut logits, &window, c.repeat_penalty);
        if c.greedy() {
            return argmax(&logits);
        }
        let mut cands = top_k(&logits, c.top_k);
        top_p(&mut cands, c.top_p);
        min_p(&mut cands, c.min_p);
        for x in &mut cands {
            x.logit /= c.temperature;
        }
        draw(&cands, self.rng.unit())
    }
}

/// The last `n` tokens of `prompt` followed by `generated`.
pub fn last_n(prompt: &[u32], generated: &[u32], n: usize) -> Vec<u32> {
    let from_gen = n.min(generated.len());
    let from_prompt = (n - from_gen).min(prompt.len());
    let mut w = Vec::with_capacity(from_prompt + from_gen);
    w.extend_from_slice(&prompt[prompt.len() - from_prompt..]);
    w.extend_from_slice(&generated[generated.len() - from_gen..]);
    w
}

/// llama.cpp's repetition penalty: every distinct token of `window` once,
/// a positive logit divided by `penalty`, a negative (or zero) one
/// multiplied. 1.0 changes nothing.
pub fn apply_repeat_penalty(logits: &mut [f32], window: &[u32], penalty: f32) {
    if penalty == 1.0 || window.is_empty() {
        return;
    }
    let mut seen: Vec<u32> = window.to_vec();
    seen.sort_unstable();
    seen.dedup();
    for id in seen {
        if let Some(l) = logits.get_mut(id as usize) {
            if *l <= 0.0 {
                *l *= penalty;
            } else {
                *l /= penalty;
            }
        }
    }
}

/// The index of the highest logit, the first of equal ones (candle's
/// `argmax`, which greedy decoding used before).
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, &l) in logits.iter().enumerate() {
        if l > logits[best] {
            best = i;
        }
    }
    best as u32
}

/// Most likely first; equal logits by id, so the order is deterministic.
fn by_logit(a: &Candidate, b: &Candidate) -> std::cmp::Ordering {
    b.logit.total_cmp(&a.logit).then(a.id.cmp(&b.id))
}

/// The `k` highest logits, sorted most likely first (0 or ≥ the vocabulary:
/// every token, sorted).
pub fn top_k(logits: &[f32], k: usize) -> Vec<Candidate> {
    let mut cands: Vec<Candidate> = logits
        .iter()
        .enumerate()
        .map(|(i, &logit)| Candidate {
            id: i as u32,
            logit,
        })
        .collect();
    if k > 0 && k < cands.len() {
        cands.select_nth_unstable_by(k - 1, by_logit);
        cands.truncate(k);
    }
    cands.sort_unstable_by(by_logit);
    cands
}

/// Softmax of sorted candidates' logits.
fn probabilities(cands: &[Candidate]) -> Vec<f64> {
    let max = cands.first().map_or(0.0, |c| c.logit as f64);
    let exps: Vec<f64> = cands.iter().map(|c| (c.logit as f64 - max).exp()).collect();
    let sum: f64 = exps.iter().sum();
    exps.into_iter().map(|e| e / sum).collect()
}

/// Keeps the most likely (sorted) candidates until their probabilities
/// add up to at least `p` (at least one is kept; `p` ≥ 1: all).
pub fn top_p(cands: &mut Vec<Candidate>, p: f32) {
    if p >= 1.0 || cands.is_empty() {
        return;
    }
    let probs = probabilities(cands);
    let mut sum = 0.0;
    let mut keep = cands.len();
    for (i, q) in probs.iter().enumerate() {
        sum += q;
        if sum >= p as f64 {
            keep = i + 1;
            break;
        }
    }
    cands.truncate(keep.max(1));
}

/// Keeps the (sorted) candidates at least `p` times as likely as the most
/// likely one: logit ≥ max logit + ln p (`p` ≤ 0: all).
pub fn min_p(cands: &mut Vec<Candidate>, p: f32) {
    if p <= 0.0 || cands.is_empty() {
        return;
    }
    let floor = cands[0].logit + p.ln();
    let keep = cands.iter().take_while(|c| c.logit >= floor).count();
    cands.truncate(keep.max(1));
}

/// A candidate drawn in proportion to the softmax of its logit; `u` is
/// uniform in [0, 1).
pub fn draw(cands: &[Candidate], u: f64) -> u32 {
    let probs = probabilities(cands);
    let mut acc = 0.0;
    for (c, q) in cands.iter().zip(&probs) {
        acc += q;
        if u < acc {
            return c.id;
        }
    }
    cands.last().map_or(0, |c| c.id)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{LocalSampling, Sampling};

    fn config(temperature: f32) -> SamplerConfig {
        SamplerConfig {
            temperature,
            ..SamplerConfig::default()
        }
    }

    fn ids(cands: &[Candidate]) -> Vec<u32> {
        cands.iter().map(|c| c.id).collect()
    }

    /// Logits whose softmax is exactly `probs`.
    fn logits_of(probs: &[f64]) -> Vec<f32> {
        probs.iter().map(|p| p.ln() as f32).collect()
    }

    #[test]
    fn the_sampler_settings_travel_beside_the_temperature_as_before() {
        // The page's message, as it was written before the settings had a
        // struct of their own, reads into them; and is written the same way.
        let msg = r#"{"temperature":0.5,"max_tokens":9,"seed":3,"top_k":7,"repeat_last_n":32}"#;
        let p: GenParams = serde_json::from_str(msg).expect("reads");
        assert_eq!(
            p.sampling.local,
            LocalSampling {
                top_k: Some(7),
                repeat_last_n: Some(32),
                ..LocalSampling::default()
            }
        );
        assert_eq!(serde_json::to_string(&p).expect("writes"), msg);
        // An older page's message (no sampler settings) is llama.cpp's defaults.
        let old: GenParams = serde_json::from_str(r#"{"seed":1}"#).expect("reads");
        assert_eq!(SamplerConfig::from_params(&old), SamplerConfig::default());
    }

    #[test]
    fn the_defaults_are_llama_cpps() {
        let c = SamplerConfig::from_params(&GenParams::default());
        assert_eq!(
            c,
            SamplerConfig {
                temperature: 0.0,
                top_k: 40,
                top_p: 0.95,
                min_p: 0.05,
                repeat_penalty: 1.0,
                repeat_last_n: 64,
            }
        );
        let set = SamplerConfig::from_params(&GenParams {
            sampling: Sampling {
                temperature: Some(0.7),
                local: LocalSampling {
                    top_k: Some(0),
                    top_p: Some(2.0),
                    min_p: Some(f32::NAN),
                    repeat_penalty: Some(-1.0),
                    repeat_last_n: Some(0),
                },
            },
            ..GenParams::default()
        });
        assert_eq!(
            (set.temperature, set.top_k, set.top_p, set.min_p),
            (0.7, 0, 1.0, 0.05)
        );
        assert_eq!((set.repeat_penalty, set.repeat_last_n), (1.0, 0));
    }

    #[test]
    fn greedy_is_the_argmax_first_of_equals() {
        let logits = [0.1, 2.0, -1.0, 2.0, 1.9];
        assert_eq!(argmax(&logits), 1);
        for seed in 0..5 {
            let mut s = Sampler::new(config(0.0), seed);
            assert_eq!(s.sample(&logits, &[], &[]), 1);
        }
        // Even where top-p and min-p would cut everything else.
        let mut s = Sampler::new(
            SamplerConfig {
                top_p: 0.01,
                min_p: 0.99,
                ..config(0.0)
            },
            3,
        );
        assert_eq!(s.sample(&[0.0, 0.5, 3.0, 2.9], &[], &[]), 2);
    }

    #[test]
    fn greedy_picks_what_candles_argmax_picked_before() {
        use candle_core::{Device, Tensor};
        use candle_transformers::generation::LogitsProcessor;
        let mut x = 7u64;
        for round in 0..50 {
            // Coarse values: ties are common.
            let logits: Vec<f32> = (0..64)
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    ((x >> 59) as f32) - 8.0
                })
                .collect();
            let t = Tensor::new(logits.as_slice(), &Device::Cpu).expect("tensor");
            let before = LogitsProcessor::new(1, None, None)
                .sample(&t)
                .expect("samples");
            let mut s = Sampler::new(SamplerConfig::from_params(&GenParams::default()), 1);
            assert_eq!(s.sample(&logits, &[1, 2], &[3]), before, "round {round}");
        }
    }

    #[test]
    fn the_penalty_lowers_repeated_tokens_both_signs_once_each() {
        let mut l = vec![2.0, -2.0, 1.0, -1.0];
        // Token 0 twice: penalised once, as llama.cpp does.
        apply_repeat_penalty(&mut l, &[0, 1, 0], 2.0);
        assert_eq!(l, [1.0, -4.0, 1.0, -1.0]);
        // 1.0 is off; an id outside the vocabulary is ignored.
        let mut m = vec![2.0, -2.0];
        apply_repeat_penalty(&mut m, &[0, 1, 9], 1.0);
        assert_eq!(m, [2.0, -2.0]);
        apply_repeat_penalty(&mut m, &[9], 2.0);
        assert_eq!(m, [2.0, -2.0]);
    }

    #[test]
    fn the_penalty_reads_only_the_last_n_tokens_of_prompt_and_answer() {
        assert_eq!(last_n(&[1, 2, 3], &[4, 5], 3), [3, 4, 5]);
        assert_eq!(last_n(&[1, 2, 3], &[4, 5], 1), [5]);
        assert_eq!(last_n(&[1, 2], &[3], 10), [1, 2, 3]);
        assert!(last_n(&[1, 2], &[3], 0).is_empty());
        // Token 0 leads without a penalty; it is the context's 4th last
        // token: only a window of 4 or more penalises it (3/2 < 2).
        let logits = [3.0, 2.0, 0.0, 0.0, 0.0];
        let penalised = |n: usize| {
            let mut s = Sampler::new(
                SamplerConfig {
                    repeat_penalty: 2.0,
                    repeat_last_n: n,
                    ..config(0.0)
                },
                1,
            );
            s.sample(&logits, &[0, 2], &[3, 4])
        };
        assert_eq!(penalised(2), 0, "token 0 is outside the window");
        assert_eq!(penalised(3), 0, "token 0 is the 4th last: still outside");
        assert_eq!(penalised(4), 1, "inside the window: 3/2 < 2");
        assert_eq!(penalised(0), 0, "0: no penalty");
    }

    #[test]
    fn top_k_of_one_is_greedy_at_any_temperature() {
        let logits: Vec<f32> = (0..50).map(|i| ((i * 37) % 50) as f32 / 10.0).collect();
        let best = argmax(&logits);
        for t in [0.1, 1.0, 5.0, 100.0] {
            for seed in 0..20 {
                let mut s = Sampler::new(
                    SamplerConfig {
                        top_k: 1,
                        top_p: 1.0,
                        min_p: 0.0,
                        ..config(t)
                    },
                    seed,
                );
                assert_eq!(s.sample(&logits, &[], &[]), best, "t {t} seed {seed}");
            }
        }
        assert_eq!(ids(&top_k(&[1.0, 5.0, 3.0, 5.0], 2)), [1, 3]);
        assert_eq!(ids(&top_k(&[1.0, 5.0, 3.0], 0)), [1, 2, 0]);
    }

    #[test]
    fn top_p_keeps_the_smallest_head_reaching_p() {
        // Probabilities 0.5, 0.25, 0.15, 0.1.
        let sorted = || top_k(&logits_of(&[0.1, 0.5, 0.15, 0.25]), 0);
        assert_eq!(ids(&sorted()), [1, 3, 2, 0]);
        let cut = |p: f32| {
            let mut c = sorted();
            top_p(&mut c, p);
            ids(&c)
        };
        assert_eq!(cut(0.49), [1], "reached by the first alone");
        assert_eq!(cut(0.51), [1, 3]);
        assert_eq!(cut(0.74), [1, 3]);
        assert_eq!(cut(0.76), [1, 3, 2]);
        assert_eq!(cut(0.89), [1, 3, 2]);
        assert_eq!(cut(0.91), [1, 3, 2, 0]);
        assert_eq!(cut(1.0), [1, 3, 2, 0]);
        assert_eq!(cut(0.0), [1], "at least one");
    }

    #[test]
    fn min_p_keeps_tokens_at_least_p_times_the_best() {
        // Probabilities 0.5, 0.25, 0.15, 0.1: relative 1, 0.5, 0.3, 0.2.
        let cut = |p: f32| {
            let mut c = top_k(&logits_of(&[0.5, 0.25, 0.15, 0.1]), 0);
            min_p(&mut c, p);
            ids(&c)
        };
        assert_eq!(cut(0.0), [0, 1, 2, 3]);
        assert_eq!(cut(0.19), [0, 1, 2, 3]);
        assert_eq!(cut(0.25), [0, 1, 2]);
        assert_eq!(cut(0.4), [0, 1]);
        assert_eq!(cut(0.6), [0]);
        assert_eq!(cut(1.0), [0]);
    }

    #[test]
    fn the_cuts_apply_before_the_draw() {
        // Sampling never picks what top-p or min-p cut, whatever the seed.
        let logits = logits_of(&[0.5, 0.25, 0.15, 0.1]);
        for (top_p, min_p, allowed) in [
            (0.6, 0.0, vec![0, 1]),
            (1.0, 0.4, vec![0, 1]),
            (0.8, 0.25, vec![0, 1, 2]),
        ] {
            let mut s = Sampler::new(
                SamplerConfig {
                    top_k: 0,
                    top_p,
                    min_p,
                    ..config(1.0)
                },
                9,
            );
            let mut seen = std::collections::BTreeSet::new();
            for _ in 0..400 {
                seen.insert(s.sample(&logits, &[], &[]));
            }
            assert_eq!(seen.into_iter().collect::<Vec<_>>(), allowed);
        }
    }

    #[test]
    fn the_same_seed_draws_the_same_tokens_and_another_seed_others() {
        let flat = vec![0.0f32; 100];
        let flat_config = SamplerConfig {
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            ..config(1.0)
        };
        let run = |seed: u64| {
            let mut s = Sampler::new(flat_config.clone(), seed);
            (0..32)
                .map(|_| s.sample(&flat, &[], &[]))
                .collect::<Vec<u32>>()
        };
        assert_eq!(run(42), run(42));
        assert_ne!(run(42), run(43));
        let distinct: std::collections::BTreeSet<u32> = run(42).into_iter().collect();
        assert!(
            distinct.len() > 16,
            "a flat distribution spreads: {distinct:?}"
        );
    }

    #[test]
    fn the_draw_follows_the_probabilities() {
        let cands = top_k(&logits_of(&[0.5, 0.25, 0.25]), 0);
        assert_eq!(draw(&cands, 0.0), 0);
        assert_eq!(draw(&cands, 0.49), 0);
        assert_eq!(draw(&cands, 0.51), 1);
        assert_eq!(draw(&cands, 0.76), 2);
        assert_eq!(draw(&cands, 0.999_999), 2);
        // A low temperature sharpens: 1000 draws at 0.01 all pick the best
        // (the second is e^-51 times as likely).
        let mut s = Sampler::new(config(0.01), 5);
        let logits = logits_of(&[0.5, 0.3, 0.2]);
        assert!((0..1000).all(|_| s.sample(&logits, &[], &[]) == 0));
    }
}
