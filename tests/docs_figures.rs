//! The guide's table of suggested model files says what Settings says:
//! both come from `engine::model::suggested` (the one source of the
//! figures); a figure changed in one place and not the other fails here.

use roundtable::engine::model::suggested::SUGGESTED;

#[test]
fn the_local_model_guide_lists_the_suggested_files_with_their_figures() {
    let doc = std::fs::read_to_string("docs/local-model.md").expect("docs/local-model.md");
    let speed = |pair: Option<(&str, &str)>| match pair {
        Some((one, two)) => format!("{one} / {two} tokens/s"),
        None => "not measured".into(),
    };
    for s in SUGGESTED {
        let row = format!(
            "| {} | {} | {} | {} | {} |",
            s.model,
            s.file,
            speed(s.reads),
            speed(s.writes),
            s.note
        );
        assert!(
            doc.lines().any(|l| l.trim() == row.trim()),
            "docs/local-model.md has no row\n{row}"
        );
    }
    let rows = doc
        .lines()
        .filter(|l| l.trim_start().starts_with("| SmolLM2") || l.trim_start().starts_with("| Qwen"))
        .count();
    assert_eq!(
        rows,
        SUGGESTED.len(),
        "the table lists the suggested files and no others"
    );
}
