//! Whether a model suits a coordinator, said before a run: a context
//! shorter than the coordinator's prompts grow, or a model small for
//! multi-agent work, with the wait its measured reading speed implies.
//! Only what is known is said: a provider's model (context unknown here)
//! gets no note.

/// What is known of the chosen model (the in-page model's header and its
/// last measured prompt reading).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ModelFacts {
    /// Tokens of context it reads.
    pub context: Option<u32>,
    pub params: Option<u64>,
    /// Prompt tokens read per second, as last measured.
    pub read_tokens_per_s: Option<f64>,
}

/// Under this many parameters a model is small for multi-agent work: the
/// real SmolLM2-135M wrote JSON the steps could read for few replies.
pub const SMALL_PARAMS: u64 = 1_000_000_000;

/// The notes for a run of a coordinator whose longest prompt reaches
/// `peak_tokens` (0: it depends on the task; nothing is said) on a model
/// with `facts`, most important first.
pub fn fit_notes(coordinator: &str, peak_tokens: u32, facts: &ModelFacts) -> Vec<String> {
    let mut notes = Vec::new();
    if peak_tokens == 0 {
        return notes;
    }
    if let Some(ctx) = facts.context.filter(|c| *c < peak_tokens) {
        notes.push(format!(
            "This model reads at most {} tokens, and {coordinator}'s prompts grow to about {}: later steps will not fit. Pick a model with a longer context.",
            thousands(u64::from(ctx)),
            thousands(u64::from(peak_tokens))
        ));
    }
    if let Some(p) = facts.params.filter(|p| *p < SMALL_PARAMS) {
        notes.push(format!(
            "A {} model is small for multi-agent work: expect replies its steps cannot read (each is flagged, and a default is used or the step asks again).",
            params_label(p)
        ));
    }
    if let Some(speed) = facts.read_tokens_per_s.filter(|s| *s > 0.0) {
        let secs = f64::from(peak_tokens) / speed;
        if secs >= 10.0 {
            notes.push(format!(
                "At the {speed:.0} tokens/s this model last read, a {}-token prompt takes about {} before its first word.",
                thousands(u64::from(peak_tokens)),
                duration(secs)
            ));
        }
    }
    notes
}

/// "135M", "1.5B".
pub fn params_label(p: u64) -> String {
    match p {
        p if p >= 1_000_000_000 => format!("{:.1}B", p as f64 / 1e9),
        p if p >= 1_000_000 => format!("{}M", (p as f64 / 1e6).round()),
        p => format!("{}K", (p as f64 / 1e3).round()),
    }
}

fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

fn duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else {
        format!("{:.0} min", secs / 60.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn smol() -> ModelFacts {
        ModelFacts {
            context: Some(2048),
            params: Some(134_515_008),
            read_tokens_per_s: Some(19.3),
        }
    }

    #[test]
    fn a_short_context_a_small_model_and_a_long_read_are_each_said() {
        let notes = fit_notes("the travel planner", 3600, &smol());
        assert_eq!(notes.len(), 3, "{notes:?}");
        assert!(notes[0].starts_with("This model reads at most 2,048 tokens, and the travel planner's prompts grow to about 3,600"));
        assert!(notes[1].starts_with("A 135M model is small"));
        assert!(
            notes[2].contains("19 tokens/s") && notes[2].contains("about 3 min"),
            "{}",
            notes[2]
        );
    }

    #[test]
    fn nothing_is_said_of_what_is_not_known_or_fits() {
        assert!(fit_notes("MAEL", 3600, &ModelFacts::default()).is_empty());
        assert!(
            fit_notes("the single agent", 0, &smol()).is_empty(),
            "task-dependent: no claim"
        );
        let big = ModelFacts {
            context: Some(32_768),
            params: Some(7_000_000_000),
            read_tokens_per_s: Some(900.0),
        };
        assert!(fit_notes("ACT", 3700, &big).is_empty(), "fits, large, fast");
        let quick = ModelFacts {
            read_tokens_per_s: Some(400.0),
            ..ModelFacts::default()
        };
        assert!(
            fit_notes("ACT", 3700, &quick).is_empty(),
            "under 10 s is not worth a note"
        );
    }

    #[test]
    fn labels() {
        assert_eq!(params_label(134_515_008), "135M");
        assert_eq!(params_label(1_540_000_000), "1.5B");
        assert_eq!(thousands(3_695), "3,695");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000_000), "1,000,000");
    }
}
