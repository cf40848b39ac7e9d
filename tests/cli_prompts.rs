//! Prompts as data on the command line: `roundtable prompts` prints a
//! coordinator's templates in the file format `--prompts FILE` reads; a
//! run records only the templates the file changed, and its requests carry
//! the edited text; a file with an unknown variable, a variable left out,
//! a syntax error or an unknown template is refused with its line, before
//! anything runs.
#![cfg(not(target_arch = "wasm32"))]

#[path = "support/mock.rs"]
mod mock;

use mock::{cli, tmp};
use roundtable::engine::run::{RunDoc, RunEvent};

const ORCHESTRATOR: &str = "You coordinate a team of travel-planning experts";
const CHEAP: &str = "You coordinate a team of travel experts on a tight budget: always prefer the cheapest options.";

fn printed(coordinator: &str) -> String {
    let (code, out, err) = cli(&["prompts", "--coordinator", coordinator], None);
    assert_eq!(code, 0, "{err}");
    out
}

fn run_doc(path: &str) -> RunDoc {
    RunDoc::from_json(&std::fs::read_to_string(path).expect("the run file")).expect("a run")
}

#[test]
fn an_edited_prompt_file_changes_only_its_templates_and_reaches_the_requests() {
    for c in ["single", "travel", "act", "mael"] {
        let file = printed(c);
        assert!(file.contains(&format!("=== {c}.")), "{c}: {file}");
    }
    let file = printed("travel");
    // The printed defaults passed back change nothing.
    let same = tmp("prompts-same.txt");
    std::fs::write(&same, &file).expect("written");
    let out = tmp("prompts-same.json");
    let (code, _, err) = cli(
        &[
            "run",
            "--coordinator",
            "travel",
            "--prompts",
            &same,
            "--out",
            &out,
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    assert!(run_doc(&out).config.prompts.is_empty());
    // One line changed: only that template is recorded, and the
    // orchestrator is told it.
    let line = file
        .lines()
        .find(|l| l.starts_with(ORCHESTRATOR))
        .expect("the orchestrator's text");
    let edited = tmp("prompts-cheap.txt");
    std::fs::write(&edited, file.replace(line, CHEAP)).expect("written");
    let out = tmp("prompts-cheap.json");
    let (code, _, err) = cli(
        &[
            "run",
            "--coordinator",
            "travel",
            "--prompts",
            &edited,
            "--out",
            &out,
            "--quiet",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    let doc = run_doc(&out);
    assert_eq!(
        doc.config.prompts.keys().collect::<Vec<_>>(),
        ["travel.orchestrator.system"]
    );
    assert_eq!(doc.config.prompts["travel.orchestrator.system"], CHEAP);
    let systems: Vec<String> = doc
        .events
        .iter()
        .filter_map(|e| match &e.event {
            RunEvent::LlmRequest { request, .. }
                if request.step.as_deref() == Some("travel.orchestrator") =>
            {
                request.messages.first().map(|m| m.content.clone())
            }
            _ => None,
        })
        .collect();
    assert!(
        !systems.is_empty() && systems.iter().all(|s| s == CHEAP),
        "{systems:?}"
    );
    // A file of one template is enough, and a batch takes it too.
    let one = tmp("prompts-one.txt");
    std::fs::write(
        &one,
        format!("=== travel.orchestrator.system ===\n{CHEAP}\n"),
    )
    .expect("written");
    let dir = tmp("prompts-batch");
    let (code, out, err) = cli(
        &[
            "travel-batch",
            "--variants",
            "orchestrator",
            "--prompts",
            &one,
            "--out-dir",
            &dir,
            "--quiet",
            "--json",
        ],
        None,
    );
    assert_eq!(code, 0, "{err}");
    // Its table says the column was told edited prompts (beside a batch
    // without --prompts, the paper's, the two read as two sets).
    let groups: serde_json::Value = serde_json::from_str(&out).expect("the table as JSON");
    assert_eq!(groups[0]["variant"], "orchestrator", "{out}");
    assert_eq!(groups[0]["prompts"], "edited", "{out}");
    assert!(groups[0]["group"]
        .as_str()
        .is_some_and(|g| g.ends_with(" · edited prompts")));
    let runs: Vec<RunDoc> = std::fs::read_dir(&dir)
        .expect("the batch's folder")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .filter_map(|p| RunDoc::from_json(&std::fs::read_to_string(p).ok()?).ok())
        .collect();
    assert!(!runs.is_empty(), "the batch wrote its runs");
    assert!(runs.iter().all(|r| r
        .config
        .prompts
        .get("travel.orchestrator.system")
        .map(String::as_str)
        == Some(CHEAP)));
}

#[test]
fn a_bad_prompt_file_is_refused_with_its_line_and_nothing_runs() {
    let file = printed("travel");
    let line_of = |text: &str, what: &str| {
        text.lines()
            .position(|l| l.contains(what))
            .expect("in the file")
            + 1
    };
    let turn = "It is your turn. Use your tools, then post your part of the plan.";
    let cases: Vec<(String, String)> = vec![
        // A variable the step does not give.
        (
            file.replace(turn, &format!("{turn} Stay under {{{{ budget }}}}.")),
            "uses {{ budget }}, which this step does not give".to_string(),
        ),
        // A variable the step needs, left out.
        (
            file.replacen("\n\n{{ tools }}\n\n", "\n\n(no tools listed)\n\n", 1),
            "must use {{ tools }}".to_string(),
        ),
        // A template that cannot be read.
        (
            file.replace(turn, &format!("{turn}{{% if instruction %}}")),
            "cannot be read".to_string(),
        ),
        // A template no step uses.
        (
            format!("{file}=== travel.nobody ===\nHello.\n"),
            "no step uses a template of this name".to_string(),
        ),
    ];
    for (i, (text, why)) in cases.iter().enumerate() {
        let path = tmp(&format!("prompts-bad-{i}.txt"));
        std::fs::write(&path, text).expect("written");
        let out = tmp(&format!("prompts-bad-{i}.json"));
        let (code, _, err) = cli(
            &[
                "run",
                "--coordinator",
                "travel",
                "--prompts",
                &path,
                "--out",
                &out,
            ],
            None,
        );
        assert_eq!(code, 2, "{why}: {err}");
        assert!(err.contains(&format!("--prompts {path}: line ")), "{err}");
        assert!(err.contains(why), "{why}: {err}");
        assert!(!std::path::Path::new(&out).exists(), "nothing ran: {out}");
    }
    // The line named is the file's: the unknown variable's.
    let (text, _) = &cases[0];
    let path = tmp("prompts-bad-line.txt");
    std::fs::write(&path, text).expect("written");
    let (_, _, err) = cli(
        &["run", "--coordinator", "travel", "--prompts", &path],
        None,
    );
    assert!(
        err.contains(&format!("line {}:", line_of(text, "{{ budget }}"))),
        "{err}"
    );
}
