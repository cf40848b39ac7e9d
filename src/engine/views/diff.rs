//! Differences between two texts, by the longest common subsequence: word
//! by word (a task as it evolves) or line by line (a prompt template
//! against its default, or two runs' templates).

/// One piece of a diff.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change<'a> {
    Same(&'a str),
    Added(&'a str),
    Removed(&'a str),
}

/// Pieces longer than this product are not compared (the diff would take
/// memory quadratic in them): the new text is given as added, the old as
/// removed.
const MAX_CELLS: usize = 250_000;

/// `a` → `b`, piece by piece (`same` says whether two pieces are equal).
pub fn diff<'a>(
    a: &[&'a str],
    b: &[&'a str],
    same: impl Fn(&str, &str) -> bool,
) -> Vec<Change<'a>> {
    let (n, m) = (a.len(), b.len());
    if n.saturating_mul(m) > MAX_CELLS {
        let mut out: Vec<Change<'a>> = a.iter().map(|x| Change::Removed(x)).collect();
        out.extend(b.iter().map(|x| Change::Added(x)));
        return out;
    }
    let mut l = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i][j] = if same(a[i], b[j]) {
                l[i + 1][j + 1] + 1
            } else {
                l[i + 1][j].max(l[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut out = Vec::with_capacity(n.max(m));
    while i < n || j < m {
        if i < n && j < m && same(a[i], b[j]) {
            out.push(Change::Same(b[j]));
            i += 1;
            j += 1;
        } else if j < m && (i == n || l[i][j + 1] > l[i + 1][j]) {
            out.push(Change::Added(b[j]));
            j += 1;
        } else {
            out.push(Change::Removed(a[i]));
            i += 1;
        }
    }
    out
}

/// Line by line, exactly.
pub fn lines<'a>(old: &'a str, new: &'a str) -> Vec<Change<'a>> {
    let a: Vec<&str> = old.split('\n').collect();
    let b: Vec<&str> = new.split('\n').collect();
    diff(&a, &b, |x, y| x == y)
}

/// Word by word, case aside.
pub fn words<'a>(old: &'a str, new: &'a str) -> Vec<Change<'a>> {
    let a: Vec<&str> = old.split_whitespace().collect();
    let b: Vec<&str> = new.split_whitespace().collect();
    diff(&a, &b, |x, y| x.eq_ignore_ascii_case(y))
}

#[cfg(test)]
mod tests {
    use super::*;
    use Change::*;

    #[test]
    fn lines_and_words_are_diffed_by_what_they_share() {
        assert_eq!(
            lines("a\nb\nc", "a\nB\nc\nd"),
            [Same("a"), Removed("b"), Added("B"), Same("c"), Added("d")]
        );
        assert_eq!(lines("same", "same"), [Same("same")]);
        assert_eq!(
            words("Pick a Tea", "pick green tea"),
            [Same("pick"), Removed("a"), Added("green"), Same("tea")]
        );
        // Too long to compare: all of the old out, all of the new in.
        let big_a = "x\n".repeat(600);
        let big_b = "y\n".repeat(600);
        let d = lines(&big_a, &big_b);
        assert!(d.iter().take(601).all(|c| matches!(c, Removed(_))));
        assert!(d.iter().skip(601).all(|c| matches!(c, Added(_))));
    }
}
