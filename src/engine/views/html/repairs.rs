//! Repaired and unreadable replies as HTML: a batch's breakdown by step
//! kind (a row per step kind, a column per variant or mode, cells "N of M"
//! and ", K unreadable"), folded away in a `<details>` under the batch's
//! table. Names are escaped.

use super::esc;
use crate::engine::views::repairs::{step_cell, step_kinds, RepairSum, BY_STEP_TITLE};
use std::fmt::Write;

/// A table cell "N of M" (", K unreadable"), marked when some reply was
/// repaired or unreadable.
pub fn count_cell(sum: &RepairSum) -> String {
    let t = sum.total;
    format!(
        "<td class=\"num{}\" title=\"replies repaired of replies received, and those that could not be read\">{}</td>",
        if t.flagged() { " repaired-count" } else { "" },
        esc(&t.label())
    )
}

/// The breakdown by step kind of `columns` (name, sum), closed by default;
/// empty when no column has a reply.
pub fn by_step_details_html(columns: &[(&str, &RepairSum)]) -> String {
    let steps = step_kinds(columns.iter().map(|(_, s)| *s));
    if steps.is_empty() {
        return String::new();
    }
    let mut h = format!(
        "<details class=\"rp-steps small\"><summary>{}</summary><div class=\"tp-table-wrap\" tabindex=\"0\"><table class=\"tp-table rp-steps-table\"><thead><tr><th scope=\"col\">step kind</th>",
        esc(BY_STEP_TITLE)
    );
    for (name, _) in columns {
        let _ = write!(h, "<th scope=\"col\">{}</th>", esc(name));
    }
    h.push_str("</tr></thead><tbody>");
    for step in &steps {
        let _ = write!(h, "<tr><th scope=\"row\"><code>{}</code></th>", esc(step));
        for (_, sum) in columns {
            let marked = sum.by_step.get(step).is_some_and(|c| c.flagged());
            let _ = write!(
                h,
                "<td class=\"num{}\">{}</td>",
                if marked { " repaired-count" } else { "" },
                esc(&step_cell(sum, step))
            );
        }
        h.push_str("</tr>");
    }
    h.push_str("</tbody></table></div><p class=\"muted\">A reply counts once however many repairs it needed: as unreadable when its step could not read it (and used a default or asked again), else as repaired.</p></details>");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::views::repairs::RepairCount;

    #[test]
    fn the_breakdown_escapes_names_and_marks_repaired_cells() {
        let count = RepairCount {
            replies: 3,
            repaired: 1,
            unreadable: 0,
        };
        let s = RepairSum {
            total: count,
            by_step: [("x.<b>judge</b>".to_string(), count)].into(),
        };
        let h = by_step_details_html(&[("A & \"B\"", &s), ("C", &RepairSum::default())]);
        assert!(h.starts_with(
            "<details class=\"rp-steps small\"><summary>Replies repaired by step kind</summary>"
        ));
        assert!(
            h.contains("<th scope=\"col\">A &amp; &quot;B&quot;</th><th scope=\"col\">C</th>"),
            "{h}"
        );
        assert!(h.contains("<code>x.&lt;b&gt;judge&lt;/b&gt;</code></th><td class=\"num repaired-count\">1 of 3</td><td class=\"num\">—</td>"), "{h}");
        assert!(!h.contains("<b>"));
        assert!(
            count_cell(&s).contains("repaired-count") && count_cell(&s).ends_with(">1 of 3</td>")
        );
        assert!(!count_cell(&RepairSum::default()).contains("repaired-count"));
        // An unreadable reply is named apart, and marks its cell too.
        let unread = RepairSum {
            total: RepairCount {
                replies: 3,
                repaired: 0,
                unreadable: 2,
            },
            ..RepairSum::default()
        };
        assert!(count_cell(&unread).ends_with(" repaired-count\" title=\"replies repaired of replies received, and those that could not be read\">0 of 3, 2 unreadable</td>"), "{}", count_cell(&unread));
        assert_eq!(by_step_details_html(&[("C", &RepairSum::default())]), "");
    }
}
