//! The demo team's tests: reply shapes for every step (built with the
//! coordinator's own prompts), acquisition and follow-up rules, and whole
//! runs on the built-in set (ACT against the baseline).

use super::answer;
use crate::engine::coordinators::act::contract::*;
use crate::engine::coordinators::act::prompts::{self, Speaker};
use crate::engine::domains::creative::{ComplexTask, CreativeSet, Part};
use crate::engine::model::reply::read_value;
use crate::engine::model::{ChatRequest, Message};
use serde_json::Value;

/// The default prompt templates.
fn dp() -> crate::engine::prompts::Prompts {
    prompts::of_run(&Default::default()).expect("the defaults are valid")
}

fn ask(step: &str, prompt: Result<prompts::Prompt, crate::engine::run::RunError>) -> String {
    let prompt = prompt.expect("rendered");
    let req =
        ChatRequest::new(vec![Message::system(prompt.0), Message::user(prompt.1)]).with_step(step);
    answer(&req).map(|r| r.text).unwrap_or_default()
}

fn json(reply: &str) -> Value {
    // The demo writes its JSON exactly: nothing to repair.
    match read_value(reply) {
        Ok(read) if !read.repaired() => read.value,
        _ => Value::Null,
    }
}

fn task(subject: &str, details: &[&str]) -> AgentTask {
    AgentTask {
        subject: subject.into(),
        details: details.iter().map(|d| d.to_string()).collect(),
    }
}

fn speaker(name: &str, t: AgentTask, knowledge: &str) -> Speaker {
    Speaker {
        name: name.into(),
        expertise: vec!["tea".into()],
        initial: t.clone(),
        current: t,
        knowledge: knowledge.into(),
    }
}

const RELAX: &str = "Recommend a tea that helps me relax in the evening without caffeine";
const NO_KNOWLEDGE: &str = "Expertise: tea, relax\n(no acquired knowledge yet)";

fn tea_task() -> ComplexTask {
    ComplexTask {
        set: CreativeSet::Free,
        id: "t".into(),
        text: format!("Design one service that brings these together: {RELAX}; Recommend iced teas for summer."),
        deliverable: "service proposal".into(),
        word_limit: Some(450),
        parts: vec![
            Part { subject: RELAX.into(), details: vec![], references: vec![] },
            Part { subject: "Recommend iced teas for summer".into(), details: vec![], references: vec![] },
        ],
    }
}

#[test]
fn every_act_step_gets_a_reply_of_the_shape_the_coordinator_reads() {
    let me = speaker(
        "Agent A",
        task(RELAX, &["I drink black tea all day."]),
        NO_KNOWLEDGE,
    );
    let limits = Limits::default();
    let d = json(&ask(
        STEP_DECOMPOSE,
        prompts::decompose(&dp(), "Open a tea house; run tastings; sell teaware", 5),
    ));
    assert_eq!(d["tasks"].as_array().map(Vec::len), Some(5), "{d}");
    let e = json(&ask(
        STEP_EXPERTISE,
        prompts::expertise(&dp(), "Agent A", TEAM_NAME, &me.initial, 3),
    ));
    let kws = e["expertise"].as_array().cloned().unwrap_or_default();
    assert!(!kws.is_empty() && kws.len() <= 3, "{e}");
    let opinion = ask(
        STEP_TEAM_OPINION,
        prompts::team_opinion(&dp(), &me, "A tea house"),
    );
    assert!(opinion.contains("rooibos"), "{opinion}");
    let ops = format!("Agent A: {opinion}\n\nAgent B: My task is: Recommend iced teas for summer. I would build my part around cold brew tea.");
    assert!(!ask(
        STEP_TEAM_ADVICE,
        prompts::team_advice(&dp(), &me, "A tea house", &ops)
    )
    .is_empty());
    let g = json(&ask(
        STEP_FUSE,
        prompts::fuse(
            &dp(),
            &me,
            &[
                ("Agent A".into(), task(RELAX, &[])),
                ("Agent B".into(), task("Iced teas", &[])),
            ],
            &ops,
            "Agent B: Share one space.",
        ),
    ));
    assert!(
        g["subject"]
            .as_str()
            .is_some_and(|s| s.contains("relax") && s.contains("iced teas")),
        "{g}"
    );
    assert!(g["detail"].is_string() && g["description"].is_string());
    let x = json(&ask(
        STEP_EXPLORE,
        prompts::explore(&dp(), &me, TEAM_NAME, "G", "service proposal", &ops),
    ));
    assert_eq!(x["task"].as_str(), Some(RELAX), "no knowledge: unchanged");
    let a = json(&ask(
        STEP_ACQUIRE,
        prompts::acquire(&dp(), &me, &["Agent B".into()], &ops, &limits),
    ));
    let k = a["knowledge"].as_array().cloned().unwrap_or_default();
    assert!(
        !k.is_empty() && a["episodes"].as_array().is_some_and(|e| !e.is_empty()),
        "{a}"
    );
    for entry in &k {
        assert_eq!(entry["subject"], "Agent B");
        assert_eq!(
            entry["source"], "Agent B",
            "the demo passes on no one else's knowledge"
        );
        let n = entry["keywords"].as_array().map_or(0, Vec::len);
        assert!((2..=4).contains(&n), "{entry}");
        assert!(entry["importance"].as_u64().is_some_and(|i| i <= 10));
        assert!(entry["summary"]
            .as_str()
            .is_some_and(|s| s.contains(" is ")));
    }
    let r = json(&ask(
        STEP_REFLECT,
        prompts::reflect(&dp(), &me, "G", &ops, 3),
    ));
    assert_eq!(r["deepen"], "rooibos", "{r}");
    assert!(r["questions"].as_array().is_some_and(|q| !q.is_empty()));
    let f = json(&ask(
        STEP_FOLLOWUP,
        prompts::followup(
            &dp(),
            &me,
            "rooibos",
            "Agent A: What is rooibos?\n\nExpert on rooibos: Rooibos is a tisane.",
            2,
        ),
    ));
    assert!(f["question"].is_string(), "{f}");
    let expert = task("rooibos", &["What is rooibos?"]);
    let ans = ask(
        STEP_ANSWER,
        prompts::answer(
            &dp(),
            "Expert on rooibos",
            &["rooibos".into()],
            &expert,
            "Agent A: What is rooibos?",
        ),
    );
    assert!(ans.starts_with("Rooibos is"), "{ans}");
    let po = ask(
        STEP_PROD_OPINION,
        prompts::production_opinion(&dp(), &me, "G", "service proposal"),
    );
    assert!(
        po.starts_with("Solution:") && po.contains("\nContent:"),
        "{po}"
    );
    let (offered, not) = crate::engine::coordinators::act::tools::registry::offered(
        &[
            "FileSystemEnv_write_to_file".into(),
            "shell_command_executor".into(),
        ],
        Default::default(),
    );
    let listing = crate::engine::coordinators::act::tools::registry::listing(&offered, &not);
    let plan = json(&ask(
        STEP_INSTRUCT,
        prompts::instruct(&dp(), &me, &po, &listing),
    ));
    assert_eq!(
        plan["subtasks"][0]["tool"], "FileSystemEnv_write_to_file",
        "{plan}"
    );
    assert_eq!(
        plan["subtasks"][0]["arguments"]["filepath"], "notes/agent-a.md",
        "{plan}"
    );
    assert_eq!(
        plan["subtasks"].as_array().map(Vec::len),
        Some(1),
        "no tool it was not offered: {plan}"
    );
    let tasks = format!("- Agent A: {RELAX}\n- Agent B: Recommend iced teas for summer");
    let opinions = format!("Agent A: {po}\n\nAgent B: Solution: For iced teas, cold brew tea.\nContent: Cold brew tea is smooth.");
    let draft = ask(
        STEP_DRAFT,
        prompts::draft(&dp(), &me, &tea_task(), ("G", &tasks), &opinions, None),
    );
    assert!(
        draft.contains("Service name:") && draft.contains("Offerings:"),
        "{draft}"
    );
    assert!(draft.split_whitespace().count() <= 450);
    let c = json(&ask(
        STEP_CHECK,
        prompts::check(&dp(), &me, "G", &tasks, &draft),
    ));
    assert_eq!(c["ok"], true, "{c}");
    let c = json(&ask(
        STEP_CHECK,
        prompts::check(&dp(), &me, "G", &tasks, "Only about coffee."),
    ));
    assert_eq!(c["ok"], false);
    assert!(
        c["issues"][0]
            .as_str()
            .is_some_and(|i| i.contains("Agent A")),
        "{c}"
    );
    let issues = "- Agent A's task is not covered.";
    let re = ask(
        STEP_DRAFT,
        prompts::draft(
            &dp(),
            &me,
            &tea_task(),
            ("G", &tasks),
            &opinions,
            Some((&draft, issues)),
        ),
    );
    assert!(re.contains("This revision fixes"), "{re}");
    let ra = ask(
        STEP_REASSERT,
        prompts::reassert(
            &dp(),
            &me,
            "A tea house",
            "My earlier opinion.",
            (&draft, issues),
        ),
    );
    assert!(ra.contains("Issues addressed: my request"), "{ra}");
    let entries = "[a1.k0] Rooibos is a tisane. — keywords: rooibos, caffeine (was 5)\n[a1.k1] Latte art is a pattern. — keywords: latte, milk (was 9)";
    let s = json(&ask(
        STEP_RESCORE,
        prompts::rescore(&dp(), &me, entries, (2, 2), 0),
    ));
    assert_eq!(s["scores"][0]["id"], "a1.k0", "{s}");
    assert_eq!(s["scores"][1]["id"], "a1.k1", "{s}");
    assert!(
        s["scores"][0]["score"].as_u64() > s["scores"][1]["score"].as_u64(),
        "{s}"
    );
    let j = ask(
        STEP_JUDGE,
        prompts::judge(
            &dp(),
            "Rooibos is caffeine-free.",
            &["rooibos caffeine free; x".into(), "latte art".into()],
        ),
    );
    let j = json(&j);
    assert_eq!(j["score"].as_u64(), Some(1), "{j}");
    assert!(
        j["reasoning"]
            .as_str()
            .is_some_and(|r| r.contains("1. present")),
        "{j}"
    );
    for step in [STEP_STANDARD, STEP_COT, STEP_SPP] {
        let out = ask(step, prompts::single(&dp(), step, &tea_task()));
        assert!(
            out.contains("rooibos") || out.contains("Rooibos"),
            "{step}: {out}"
        );
        if step != STEP_STANDARD {
            assert!(out.contains("Final answer:"), "{out}");
        }
    }
    assert!(!ask(
        STEP_SELF_FEEDBACK,
        prompts::self_feedback(&dp(), &tea_task(), &draft)
    )
    .is_empty());
    assert!(!ask(
        STEP_SELF_REFINE,
        prompts::self_refine(&dp(), &tea_task(), "x", "Missing: all")
    )
    .is_empty());
    let other = ChatRequest::new(vec![Message::user("hi")]).with_step("mael.solve");
    assert!(answer(&other).is_none());
}

#[test]
fn acquisition_never_stores_anything_about_the_agent_itself() {
    let me = speaker("Agent A", task(RELAX, &[]), NO_KNOWLEDGE);
    let transcript = "Agent A: My task is: relax. I would build my part around rooibos.\n\nAgent B: My task is: iced tea. I would build my part around cold brew tea.\n\nAgent A: Rooibos is red.";
    let names = vec!["Agent A".to_string(), "Agent B".to_string()];
    let a = json(&ask(
        STEP_ACQUIRE,
        prompts::acquire(&dp(), &me, &names, transcript, &Limits::default()),
    ));
    for list in ["episodes", "knowledge"] {
        let items = a[list].as_array().cloned().unwrap_or_default();
        assert!(!items.is_empty(), "{a}");
        assert!(items.iter().all(|i| i["subject"] == "Agent B"), "{a}");
    }
    // What the expert said is stored about the expert, best for the task.
    let talk = "Agent A: What is rooibos?\n\nExpert on rooibos: Rooibos is a naturally caffeine-free red bush tisane.\n\nAgent A: How?\n\nExpert on rooibos: Steep it for five minutes.";
    let a = json(&ask(
        STEP_ACQUIRE,
        prompts::acquire(
            &dp(),
            &me,
            &["Expert on rooibos".into()],
            talk,
            &Limits::default(),
        ),
    ));
    let k = &a["knowledge"][0];
    assert_eq!(k["subject"], "Expert on rooibos");
    assert!(
        k["summary"]
            .as_str()
            .is_some_and(|s| s.starts_with("Rooibos is") && s.contains("Steep it")),
        "{k}"
    );
    assert!(k["importance"].as_u64().unwrap_or(0) >= 8, "{k}");
}

#[test]
fn the_member_asks_one_deeper_question_then_is_done() {
    let me = speaker("Agent A", task(RELAX, &[]), NO_KNOWLEDGE);
    let one = "Agent A: What is rooibos?\n\nExpert on rooibos: Rooibos is a tisane.";
    let two = format!("{one}\n\nAgent A: How do I brew it?\n\nExpert on rooibos: Steep it long.");
    assert!(json(&ask(
        STEP_FOLLOWUP,
        prompts::followup(&dp(), &me, "rooibos", one, 2)
    ))["question"]
        .is_string());
    let done = ask(
        STEP_FOLLOWUP,
        prompts::followup(&dp(), &me, "rooibos", &two, 1),
    );
    assert_eq!(
        crate::engine::coordinators::act::break_time::next_question(&done),
        (None, Vec::new()),
        "{done}"
    );
}

#[test]
fn untrusted_request_text_never_panics_and_still_gets_a_reply() {
    let steps = [
        STEP_DECOMPOSE,
        STEP_EXPERTISE,
        STEP_TEAM_OPINION,
        STEP_TEAM_ADVICE,
        STEP_FUSE,
        STEP_EXPLORE,
        STEP_ACQUIRE,
        STEP_REFLECT,
        STEP_FOLLOWUP,
        STEP_ANSWER,
        STEP_PROD_OPINION,
        STEP_INSTRUCT,
        STEP_DRAFT,
        STEP_CHECK,
        STEP_REASSERT,
        STEP_RESCORE,
        STEP_JUDGE,
        STEP_STANDARD,
        STEP_COT,
        STEP_SPP,
        STEP_SELF_FEEDBACK,
        STEP_SELF_REFINE,
    ];
    let texts = [
        String::new(),
        "# You are\n".into(),
        "# You are\nAgent A\n\n# Your knowledge\n- [x] (from , importance 99999999999999999999) — keywords: \n\n# Speakers\n, , Agent A\n\n# Meeting transcript\nAgent A: é: ü\n\nÉxpert on ☕: x\n\nwrite up to 99999999999999999999999 episodes".into(),
        "# Everyone's tasks\n- : \n- Agent B: \"\n\n# Deliverable\nstory\n\n# Opinions\nAgent B: Solution:\n\nStay within 0 words.".into(),
        "# Expected components\n1. \n. ;;\n\n# Output\n\u{0}\n\nCount".into(),
        "# Stored knowledge\n[\n[a] — keywords:  (was x)\n]\n\nScore".into(),
        "# The team's complex task\nexactly 0 distinct; ; :\n\nexactly 12345678901234567890 distinct".into(),
        "日本語のテキスト。# Draft\n# Issues\n- The draft has 999 words; the limit is 1.\n\nx".repeat(3),
    ];
    for step in steps {
        for t in &texts {
            let req = ChatRequest::new(vec![Message::user(t.clone())]).with_step(step);
            assert!(answer(&req).is_some(), "{step}");
        }
    }
}

mod runs;
