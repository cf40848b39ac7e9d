//! The GGUF files that suit the in-page model, with their speeds as
//! `make bench` measured them: the one source of these figures. Settings
//! lists them, and `tests/docs_figures.rs` checks that the guide's table
//! (`docs/local-model.md`) says the same.

/// A file that runs well in the page.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Suggested {
    pub model: &'static str,
    /// Its quantisation and size ("Q4_1, 98 MB").
    pub file: &'static str,
    /// Prompt tokens read per second, on one core and on two (None: not
    /// measured).
    pub reads: Option<(&'static str, &'static str)>,
    /// Tokens written per second, on one core and on two.
    pub writes: Option<(&'static str, &'static str)>,
    pub note: &'static str,
}

/// Measured on a 2-core AMD EPYC VM with AVX-512, headless Chromium
/// (2026-11-28; expect ±20% from run to run; a laptop is faster).
pub const SUGGESTED: &[Suggested] = &[
    Suggested {
        model: "SmolLM2-135M-Instruct",
        file: "Q4_1, 98 MB",
        reads: Some(("~145", "~215")),
        writes: Some(("~65", "~85")),
        note: "quick, a weak planner (the file the tests use)",
    },
    Suggested {
        model: "SmolLM2-135M-Instruct",
        file: "Q8_0, 145 MB",
        reads: Some(("~105", "~160")),
        writes: Some(("~52", "~70")),
        note: "",
    },
    Suggested {
        model: "SmolLM2-360M-Instruct",
        file: "Q8_0, 386 MB",
        reads: None,
        writes: None,
        note: "about 2.7× the 135M model's work per token",
    },
    Suggested {
        model: "Qwen2.5-0.5B-Instruct",
        file: "Q8_0, 531 MB",
        reads: Some(("~35", "~58")),
        writes: Some(("~15", "~23")),
        note: "the best answers of these; about 1.2 GB of memory",
    },
];

/// The file the figures of a prompt's wait are quoted for (the first).
pub fn quick() -> &'static Suggested {
    &SUGGESTED[0]
}

impl Suggested {
    /// "reads ~145 prompt tokens/s on one core (~215 on two), writes ~65
    /// (~85 on two)", or what is known.
    pub fn speeds(&self) -> String {
        match (self.reads, self.writes) {
            (Some((r1, r2)), Some((w1, w2))) => format!(
                "reads {r1} prompt tokens/s on one core ({r2} on two), writes {w1} ({w2} on two)"
            ),
            _ => "not measured".into(),
        }
    }

    /// Seconds a prompt of `tokens` takes to read on one core and on two,
    /// at these figures ("~7 s on one core, ~5 s on two").
    pub fn prompt_wait(&self, tokens: u32) -> Option<String> {
        let (r1, r2) = self.reads?;
        let rate = |r: &str| r.trim_start_matches('~').parse::<f64>().ok();
        let (one, two) = (rate(r1)?, rate(r2)?);
        Some(format!(
            "~{:.0} s on one core, ~{:.0} s on two",
            f64::from(tokens) / one,
            f64::from(tokens) / two
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_files_figures_make_its_sentences() {
        let q = quick();
        assert_eq!(q.file, "Q4_1, 98 MB");
        assert_eq!(
            q.speeds(),
            "reads ~145 prompt tokens/s on one core (~215 on two), writes ~65 (~85 on two)"
        );
        assert_eq!(
            q.prompt_wait(1000).as_deref(),
            Some("~7 s on one core, ~5 s on two")
        );
        assert_eq!(SUGGESTED[2].prompt_wait(1000), None);
    }
}
