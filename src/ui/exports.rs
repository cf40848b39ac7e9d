//! Exports of the shown run: the run file (the share format, readable), the
//! transcript as Markdown, the agent graph as SVG and PNG, usage, plan and
//! metrics as CSV. In the `exports` chunk, loaded on the first export.

use super::lazy::lazy_part;
use super::state::{AppState, Notice};
use crate::engine::views::travel::run_export::{metrics_csv, plan_csv};
use crate::engine::views::{export, graph_svg};
use crate::platform::files;
use leptos::prelude::*;
use leptos::task::spawn_local;

lazy_part! { extras:
    pub fn export(app: AppState, what: &'static str) {
        export_now(app, what)
    }
}

fn slug(s: &str) -> String {
    let mut out: String = s
        .chars()
        .take(40)
        .map(|c| {
            if c.is_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '-'
            }
        })
        .collect();
    while out.contains("--") {
        out = out.replace("--", "-");
    }
    let out = out.trim_matches('-').to_string();
    if out.is_empty() {
        "run".into()
    } else {
        out
    }
}

/// Saves the shown run as `what`: json, md, csv (usage), plan, metrics,
/// svg or png; a failure is shown as a notice.
fn export_now(app: AppState, what: &str) {
    let Some(doc) = app.doc() else { return };
    let name = slug(&doc.config.task);
    let result = match what {
        "json" => files::download_text(
            &format!("{name}.run.json"),
            "application/json",
            &doc.to_json_pretty(),
        ),
        "md" => files::download_text(
            &format!("{name}.md"),
            "text/markdown",
            &export::transcript_markdown(&doc),
        ),
        "csv" => {
            let prices = app.settings.get_untracked().prices;
            app.view.with_untracked(|v| {
                files::download_text(
                    &format!("{name}.usage.csv"),
                    "text/csv",
                    &export::usage_csv(&v.usage, &v.transcript, &prices),
                )
            })
        }
        "plan" => app.view.with_untracked(|v| {
            let t = &v.travel;
            let plan = t
                .evaluation
                .as_ref()
                .and_then(|e| e.plan.clone())
                .or_else(|| t.latest_plan().and_then(|p| p.record.plan.clone()));
            match plan {
                Some(p) => plan_csv(&p, t.evaluation.as_ref()).and_then(|csv| {
                    files::download_text(&format!("{name}.plan.csv"), "text/csv", &csv)
                }),
                None => Err("the run has no plan yet".into()),
            }
        }),
        "metrics" => app.view.with_untracked(|v| match &v.travel.evaluation {
            Some(e) => {
                files::download_text(&format!("{name}.metrics.csv"), "text/csv", &metrics_csv(e))
            }
            None => Err("the run has not been scored yet".into()),
        }),
        "svg" => app.view.with_untracked(|v| {
            files::download_text(
                &format!("{name}.graph.svg"),
                "image/svg+xml",
                &graph_svg::render(&v.graph, true),
            )
        }),
        _ => {
            let (svg, lay) = app.view.with_untracked(|v| {
                (
                    graph_svg::render(&v.graph, true),
                    graph_svg::layout(v.graph.nodes.len()),
                )
            });
            spawn_local(async move {
                if let Err(e) = files::download_svg_as_png(
                    &svg,
                    lay.w * 2.0,
                    lay.h * 2.0,
                    2.0,
                    &format!("{name}.graph.png"),
                )
                .await
                {
                    app.notice.set(Some(Notice {
                        text: format!("Could not make the PNG: {e}"),
                        settings: false,
                    }));
                }
            });
            Ok(())
        }
    };
    if let Err(e) = result {
        app.notice.set(Some(Notice {
            text: format!("Export failed: {e}"),
            settings: false,
        }));
    }
}
