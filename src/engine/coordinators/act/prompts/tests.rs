//! The structure of ACT's prompts (the paper's appendix Tables 21–25 and
//! its proposal framework), and their own text kept short.

use super::*;
use crate::engine::domains::creative::CreativeSet;

/// The default prompt templates.
fn dp() -> Prompts {
    of_run(&Default::default()).expect("the defaults are valid")
}

fn task(subject: &str, detail: &str) -> AgentTask {
    AgentTask {
        subject: subject.into(),
        details: vec![detail.into()],
    }
}

fn me() -> Speaker {
    let t = task("Recommend a calming evening tea", "No caffeine.");
    Speaker {
        name: "Agent A".into(),
        expertise: vec!["herbal tea".into()],
        initial: t.clone(),
        current: t,
        knowledge: "Expertise: herbal tea\n(no acquired knowledge yet)".into(),
    }
}

fn team() -> Vec<(String, AgentTask)> {
    vec![
        (
            "Agent A".into(),
            task("Recommend a calming evening tea", "No caffeine."),
        ),
        (
            "Agent B".into(),
            task("Pick iced teas for summer", "Not sweet."),
        ),
        (
            "Agent C".into(),
            task("Plan a tasting for beginners", "Under 50 dollars."),
        ),
    ]
}

fn proposal_task(deliverable: &str) -> ComplexTask {
    ComplexTask {
        set: CreativeSet::Free,
        id: "t".into(),
        text: "Design a tea service.".into(),
        deliverable: deliverable.into(),
        word_limit: Some(450),
        parts: Vec::new(),
    }
}

/// The instruction that ends a prompt (after its last section).
fn instruction(p: &Prompt) -> &str {
    p.1.rsplit_once("\n\n").map_or("", |(_, t)| t)
}

/// Each marker occurs in `text`, in this order.
fn in_order(text: &str, markers: &[&str]) {
    let mut from = 0;
    for m in markers {
        let at = text[from..]
            .find(m)
            .unwrap_or_else(|| panic!("{m:?} missing or out of order in:\n{text}"));
        from += at + m.len();
    }
}

#[test]
fn expertise_names_the_team_by_its_name() {
    let p = expertise(
        &dp(),
        "Agent A",
        "Tea Guild",
        &task("Pick teas", "For mornings."),
        4,
    )
    .expect("rendered");
    assert!(p.1.contains("Agent A, in the team Tea Guild"), "{}", p.1);
    in_order(
        instruction(&p),
        &[
            "member of the team Tea Guild",
            "List up to 4 expertise keywords",
        ],
    );
    assert!(
        !p.1.contains("the team,") && !p.1.contains("the team\n"),
        "{}",
        p.1
    );
    in_order(&p.1, &["Pick teas", "For mornings."]);
}

#[test]
fn fusion_lists_every_subject_and_detail_and_asks_what_connects_them() {
    let p = fuse(
        &dp(),
        &me(),
        &team(),
        "Agent B: iced.",
        "Agent C: one space.",
    )
    .expect("rendered");
    in_order(&p.1, &[H_OPINIONS, H_ADVICE, H_TASKS]);
    for (name, t) in team() {
        in_order(
            &p.1,
            &[H_TASKS, &format!("- {name}: {}", t.subject), &t.details[0]],
        );
    }
    let ask = instruction(&p);
    in_order(
        ask,
        &[
            "1. Subject",
            "Agent A, Agent B and Agent C",
            "connects them",
            "2. Detail",
            "every member's details",
            "3. Description",
        ],
    );
    assert!(!p.1.contains("one sentence"), "{ask}");
}

#[test]
fn exploration_goes_persona_scenes_task_issues_outside_insight_proposal() {
    let p = explore(
        &dp(),
        &me(),
        "Tea Guild",
        "One tea house",
        "service proposal",
        "Agent B: too sweet?",
    )
    .expect("rendered");
    let ask = instruction(&p);
    in_order(
        ask,
        &[
            "the team Tea Guild",
            "persona",
            "what happens, when, and how",
            "Specified task",
            "Issues",
            "outside your own specialty",
            "reflected in the team's service proposal",
            "\"task\"",
        ],
    );
    in_order(
        &p.1,
        &[H_INITIAL, H_CURRENT, H_KNOWLEDGE, H_TEAM_TASK, H_TRANSCRIPT],
    );
}

#[test]
fn acquisition_carries_a_worked_example_and_asks_for_a_source() {
    let p = acquire(
        &dp(),
        &me(),
        &["Agent B".into()],
        "Agent B: Oolong is a tea.",
        &Limits::default(),
    )
    .expect("rendered");
    in_order(&p.1, &[H_SPEAKERS, H_EXAMPLE, H_TRANSCRIPT]);
    // The example's reply has the asked shape, its source not its speaker.
    let example = crate::engine::model::reply::section(&p.1, H_EXAMPLE)
        .unwrap_or("")
        .lines()
        .find(|l| l.starts_with('{'))
        .unwrap_or("");
    let v: serde_json::Value = serde_json::from_str(example).expect("the example is JSON");
    let entry = &v["knowledge"][0];
    assert!(
        entry["source"].is_string() && entry["source"] != entry["subject"],
        "{v}"
    );
    assert!(v["episodes"][0]["text"]
        .as_str()
        .is_some_and(|t| t.split_whitespace().count() <= 40));
    let ask = instruction(&p);
    in_order(
        ask,
        &[
            "write up to 4 episodes of at most 40 words",
            "at least one brief summary per episode",
            "keep at most 4 entries per speaker",
            "two to four",
            "Source",
            "judged from your expertise",
            "\"source\": ",
        ],
    );
}

#[test]
fn production_opinion_ends_with_coherence_and_synergy() {
    let p =
        production_opinion(&dp(), &me(), "One tea house", "service proposal").expect("rendered");
    in_order(
        instruction(&p),
        &[
            "1. Solution",
            "2. Contribution",
            "3. Elements",
            "4. Coherence and synergy",
            "as a whole",
        ],
    );
}

#[test]
fn the_leader_lays_a_proposal_out_in_the_framework() {
    let tasks = task_list(&team());
    let p = draft(
        &dp(),
        &me(),
        &proposal_task("service proposal"),
        ("G", &tasks),
        "Agent B: iced.",
        None,
    )
    .expect("rendered");
    in_order(
        instruction(&p),
        &[
            "Service name",
            "Target persona",
            "Executive summary",
            "Specific offerings",
            "Revenue model",
            "Stay within 450 words.",
        ],
    );
    let story = draft(
        &dp(),
        &me(),
        &proposal_task("story"),
        ("G", &tasks),
        "Agent B: iced.",
        None,
    )
    .expect("rendered");
    assert!(!story.1.contains("Service name"), "{}", story.1);
}

/// The six prompts' own text (here with short inputs) stays bounded:
/// a prompt grows with its inputs, not with its instructions.
#[test]
fn the_prompts_own_text_stays_short() {
    let words = |p: &Prompt| p.0.split_whitespace().count() + p.1.split_whitespace().count();
    let tasks = task_list(&team());
    let sized = [
        (
            "expertise",
            words(&expertise(&dp(), "Agent A", TEAM_NAME, &team()[0].1, 4).expect("rendered")),
            100,
        ),
        (
            "fuse",
            words(&fuse(&dp(), &me(), &team(), "-", "-").expect("rendered")),
            260,
        ),
        (
            "explore",
            words(
                &explore(&dp(), &me(), TEAM_NAME, "G", "service proposal", "-").expect("rendered"),
            ),
            280,
        ),
        (
            "acquire",
            words(
                &acquire(&dp(), &me(), &["Agent B".into()], "-", &Limits::default())
                    .expect("rendered"),
            ),
            380,
        ),
        (
            "production opinion",
            words(&production_opinion(&dp(), &me(), "G", "service proposal").expect("rendered")),
            220,
        ),
        (
            "draft",
            words(
                &draft(
                    &dp(),
                    &me(),
                    &proposal_task("service proposal"),
                    ("G", &tasks),
                    "-",
                    None,
                )
                .expect("rendered"),
            ),
            210,
        ),
    ];
    for (kind, n, max) in sized {
        assert!(n <= max, "the {kind} prompt has {n} words (at most {max})");
    }
}

#[test]
fn the_judge_prompt_anchors_none_at_zero_and_all_at_the_count() {
    // Table 27: no expected component scores 0, all of them the count.
    let p = judge(&dp(), "out", &["a".into(), "b".into(), "c".into()]).expect("rendered");
    in_order(
        instruction(&p),
        &[
            "Count",
            "none of them scores 0",
            "all 3 scores 3",
            "\"score\"",
            "(0 to 3)",
        ],
    );
}
