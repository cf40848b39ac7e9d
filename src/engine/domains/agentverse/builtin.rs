//! Built-in tool tasks of our own, in the shape of AgentVerse's ten (an
//! open question the team splits, with every tool offered): what the page
//! offers without the dataset. Two run offline (the notebook and the file
//! system); one needs the web, so a run of it shows the search endpoint at
//! work — and, without one, the refusal before the run.

use super::tasks::ToolTask;

/// (id, agents, needs the web, the question).
const TASKS: [(&str, usize, bool, &str); 3] = [
    (
        "loan",
        3,
        false,
        "I am borrowing 12,000 euros at 6% interest a year, repaid monthly over 3 years. Work out the monthly payment and the total interest with Python code and check the result, save a short repayment summary to a file, and explain how much interest I would save by repaying the loan in 2 years instead.",
    ),
    (
        "primes",
        3,
        false,
        "Write Python code that lists every prime number below 200, with tests that show it is right. Save the code to a file, say how many primes there are, and explain in plain words why the sieve of Eratosthenes is faster than testing each number on its own.",
    ),
    (
        "garden",
        3,
        true,
        "I want to start a small vegetable garden this spring. Find out which vegetables are easiest for a beginner, work out how many plants fit in a 2 m by 3 m bed at 40 cm spacing, and write a one-page planting plan to a file.",
    ),
];

/// The built-in tool tasks, in order.
pub fn tasks() -> Vec<ToolTask> {
    TASKS
        .iter()
        .map(|(id, agents, needs_web, question)| ToolTask {
            id: (*id).into(),
            question: (*question).into(),
            agents: *agents,
            needs_web: *needs_web,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_built_in_tasks_are_distinct_and_say_which_need_the_web() {
        let t = tasks();
        let mut ids: Vec<&str> = t.iter().map(|x| x.id.as_str()).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), 3);
        // None shares an id with AgentVerse's own (whose web list would apply).
        assert!(t
            .iter()
            .all(|x| !super::super::tasks::NEEDS_WEB.contains(&x.id.as_str())));
        assert_eq!(
            t.iter()
                .filter(|x| x.needs_web)
                .map(|x| x.id.as_str())
                .collect::<Vec<_>>(),
            ["garden"]
        );
        assert!(t
            .iter()
            .all(|x| (2..=8).contains(&x.agents) && x.complex_task().parts.is_empty()));
    }
}
