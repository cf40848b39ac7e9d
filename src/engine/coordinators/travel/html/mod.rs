//! The travel planner's views as HTML and SVG (escaped text only; pure
//! functions, tested natively): the notebook and the orchestrator's
//! reflections, the plan coloured by the evaluator's verdicts and the
//! metrics, and a batch's comparison tables and bar chart.

pub mod chart;
pub mod comparison;
pub mod notebook;
pub mod plan;

pub use chart::batch_chart_svg;
pub use comparison::{batch_table_html, hallucination_table_html, revisits_table_html};
pub use notebook::{notebook_html, reflections_html};
pub use plan::{evaluated_plan_html, metrics_html, plan_html};
