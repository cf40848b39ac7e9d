//! Exports of the shown run: the run file (the share format, readable), the
//! transcript as Markdown, the agent graph as SVG and PNG, usage as CSV.
//! In the `extras` chunk, loaded on the first export. A coordinator's own
//! exports (the travel plan and metrics) are in its part.

use super::lazy::lazy_part;
use super::state::{AppState, Notice};
use crate::engine::views::export;
use crate::engine::views::html::graph as graph_svg;
use crate::platform::files;
use leptos::prelude::*;
use leptos::task::spawn_local;

lazy_part! { extras:
    pub fn export(app: AppState, what: &'static str) {
        export_now(app, what)
    }
}

/// Saves the shown run as `what`: json, md, csv (usage), svg or png; a
/// failure is shown as a notice.
fn export_now(app: AppState, what: &str) {
    let Some(doc) = app.doc() else { return };
    let name = export::file_stem(&doc.config.task);
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
