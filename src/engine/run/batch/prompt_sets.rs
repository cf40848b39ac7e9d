//! A prompt set as a batch's variant: "the paper's prompts" against the
//! user's edited ones over the same tasks. Each job is made twice, the two
//! runs alike but for the prompts they are told; a paper's table groups
//! its runs by a name that says which prompts they had
//! ([`group_name`]), so the two sets stand side by side as two columns
//! (or rows) of the same table, and its exports carry the same names.

use super::Job;
use crate::engine::run::RunConfig;

/// What a group's name adds for runs told edited prompts.
pub const EDITED: &str = " · edited prompts";

/// Which prompts a batch's runs are told.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PromptSets {
    /// The prompts set up now (the user's edits, if any): one run per job.
    #[default]
    AsSetUp,
    /// The paper's prompts, whatever is set up: one run per job.
    Paper,
    /// Each job twice: told the paper's prompts, then the edited ones.
    Both,
}

impl PromptSets {
    /// Runs per job when `edited` templates are set up.
    pub fn runs_per_job(self, edited: usize) -> usize {
        if self == PromptSets::Both && edited > 0 {
            2
        } else {
            1
        }
    }
}

/// `jobs` for `sets`. With [`PromptSets::Paper`], every job is told the
/// paper's prompts. With [`PromptSets::Both`], every job told edited
/// prompts is followed by its twin told the paper's (the same config, seed
/// and tag), the edited one keeping its place second: the paper's twin
/// has a run id of its own (`…-paper`) and, when the job is in a lane, a
/// lane of its own, and `apart` is applied to its config so that the two
/// sets share nothing they learn (ACT+'s knowledge bank). Jobs told the
/// paper's prompts already are not doubled.
pub fn for_prompt_sets<T: Clone>(
    jobs: Vec<Job<T>>,
    sets: PromptSets,
    apart: impl Fn(&mut RunConfig),
) -> Vec<Job<T>> {
    match sets {
        PromptSets::AsSetUp => return jobs,
        PromptSets::Paper => {
            let mut jobs = jobs;
            for job in &mut jobs {
                job.config.prompts.clear();
            }
            return jobs;
        }
        PromptSets::Both => {}
    }
    let mut out = Vec::with_capacity(jobs.len() * 2);
    for job in jobs {
        if job.config.prompts.is_empty() {
            out.push(job);
            continue;
        }
        let mut paper = job.clone();
        paper.config.prompts.clear();
        paper.config.run_id = format!("{}-paper", job.config.run_id);
        paper.lane = job.lane.as_ref().map(|l| format!("{l}-paper"));
        apart(&mut paper.config);
        out.push(paper);
        out.push(job);
    }
    out
}

/// What a batch's name adds for the prompts its `jobs` are told: nothing
/// when all are the paper's.
pub fn described<T>(jobs: &[Job<T>]) -> &'static str {
    let edited = jobs.iter().filter(|j| !j.config.prompts.is_empty()).count();
    match edited {
        0 => "",
        n if n == jobs.len() => " · edited prompts",
        _ => " · the paper's prompts and edited ones",
    }
}

/// The name of the group a run of `config` belongs to in a paper's table:
/// `name` (its variant's, its row's), with [`EDITED`] when it was told
/// prompts other than the paper's.
pub fn group_name(name: &str, config: &RunConfig) -> String {
    if config.prompts.is_empty() {
        name.to_string()
    } else {
        format!("{name}{EDITED}")
    }
}

/// A group's name split into the name it was made from and what
/// [`group_name`] added ("" for the paper's prompts).
pub fn split_group_name(group: &str) -> (&str, &str) {
    match group.strip_suffix(EDITED) {
        Some(name) => (name, EDITED),
        None => (group, ""),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::run::{ModelSpec, Outcome, RunCtx, RunError};
    use futures::future::LocalBoxFuture;

    fn idle(_: &RunCtx) -> LocalBoxFuture<'_, Result<Outcome, RunError>> {
        Box::pin(async { Ok(Outcome::default()) })
    }

    fn job(i: usize, edited: bool, lane: Option<&str>) -> Job<usize> {
        let mut config = RunConfig::new("test", "task", ModelSpec::demo());
        config.run_id = format!("r{i}");
        config.seed = 7;
        if edited {
            config.prompts.insert("x.system".into(), "Be brief.".into());
        }
        config.options = serde_json::json!({ "bank": "batch" });
        Job {
            config,
            coordinator: idle,
            lane: lane.map(str::to_string),
            tag: i,
        }
    }

    fn bank_apart(c: &mut RunConfig) {
        c.options["bank"] = serde_json::json!("batch-paper");
    }

    #[test]
    fn as_set_up_runs_every_job_once_as_it_is() {
        let jobs = vec![job(0, true, None), job(1, true, Some("plus"))];
        let out = for_prompt_sets(jobs, PromptSets::AsSetUp, bank_apart);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|j| !j.config.prompts.is_empty()));
        assert_eq!(out[1].lane.as_deref(), Some("plus"));
    }

    #[test]
    fn both_makes_each_edited_job_a_twin_on_the_papers_prompts() {
        let jobs = vec![job(0, true, None), job(1, true, Some("plus"))];
        let out = for_prompt_sets(jobs, PromptSets::Both, bank_apart);
        let seen: Vec<(usize, bool, String, Option<String>)> = out
            .iter()
            .map(|j| {
                (
                    j.tag,
                    j.config.prompts.is_empty(),
                    j.config.run_id.clone(),
                    j.lane.clone(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            vec![
                (0, true, "r0-paper".into(), None),
                (0, false, "r0".into(), None),
                (1, true, "r1-paper".into(), Some("plus-paper".into())),
                (1, false, "r1".into(), Some("plus".into())),
            ]
        );
        // Alike but for the prompts (and what `apart` keeps apart).
        assert_eq!(out[0].config.seed, out[1].config.seed);
        assert_eq!(out[0].config.task, out[1].config.task);
        assert_eq!(out[0].config.options["bank"], "batch-paper");
        assert_eq!(out[1].config.options["bank"], "batch");
        assert_eq!(described(&out), " · the paper's prompts and edited ones");
        assert_eq!(described(&out[1..2]), " · edited prompts");
        assert_eq!(described(&out[..1]), "");
    }

    #[test]
    fn paper_tells_every_job_the_papers_prompts() {
        let jobs = vec![job(0, true, None), job(1, false, Some("plus"))];
        let out = for_prompt_sets(jobs, PromptSets::Paper, bank_apart);
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|j| j.config.prompts.is_empty()));
        assert_eq!(out[0].config.run_id, "r0");
        assert_eq!(PromptSets::Paper.runs_per_job(3), 1);
        assert_eq!(PromptSets::Both.runs_per_job(3), 2);
        assert_eq!(PromptSets::Both.runs_per_job(0), 1);
    }

    #[test]
    fn both_leaves_a_job_on_the_papers_prompts_alone() {
        let out = for_prompt_sets(vec![job(0, false, None)], PromptSets::Both, bank_apart);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].config.run_id, "r0");
        assert_eq!(out[0].config.options["bank"], "batch");
    }

    #[test]
    fn group_names_say_which_prompts_and_split_back() {
        let paper = job(0, false, None).config;
        let edited = job(0, true, None).config;
        assert_eq!(group_name("ACT", &paper), "ACT");
        assert_eq!(group_name("ACT", &edited), "ACT · edited prompts");
        assert_eq!(split_group_name("ACT · edited prompts"), ("ACT", EDITED));
        assert_eq!(split_group_name("ACT"), ("ACT", ""));
    }
}
