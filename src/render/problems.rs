//! The problem budget of text reports, so that the first cause of a bad
//! block stays visible: within one block, repeated problems of one kind
//! collapse into one line with a count, and at most [`LINES_PER_BLOCK`]
//! lines are printed (the rest summed up in one line). `--all-problems`
//! prints every problem on its own line. JSON and NDJSON never go through
//! here: they keep every problem.
//!
//! Two problems are of one kind when severity and class agree and field and
//! message agree once their numbers are left out (`lp[7]: item 7 overlaps
//! item 6` and `lp[9]: item 9 overlaps item 8` are one kind).

use std::collections::HashMap;

use super::fit::Fitted;
use crate::model::postgres::verify::VerifyProblem;

use crate::model::{Problem, ProblemClass, Severity};

use super::fit::new_table;
use super::RenderOptions;

/// Lines printed for one block by default.
pub(crate) const LINES_PER_BLOCK: usize = 25;

/// What the budget needs to know of a problem.
pub(crate) trait ProblemLike {
    fn severity(&self) -> Severity;
    fn class(&self) -> ProblemClass;
    fn field(&self) -> &str;
    fn message(&self) -> &str;
}

/// Both problem types carry these fields under the same names.
macro_rules! problem_like {
    ($($t:ty),*) => {$(
        impl ProblemLike for $t {
            fn severity(&self) -> Severity {
                self.severity
            }
            fn class(&self) -> ProblemClass {
                self.class
            }
            fn field(&self) -> &str {
                &self.field
            }
            fn message(&self) -> &str {
                &self.message
            }
        }
    )*};
}

problem_like!(Problem, VerifyProblem);

impl<P: ProblemLike> ProblemLike for &P {
    fn severity(&self) -> Severity {
        (**self).severity()
    }
    fn class(&self) -> ProblemClass {
        (**self).class()
    }
    fn field(&self) -> &str {
        (**self).field()
    }
    fn message(&self) -> &str {
        (**self).message()
    }
}

/// One line of a block's report.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Line<'a, P> {
    /// A problem, the first of its kind in the block, and how many more of
    /// that kind were folded into it.
    Problem { problem: &'a P, more: usize },
    /// Problems left out by the line limit: how many, of how many kinds.
    Omitted { problems: usize, kinds: usize },
}

/// The lines of one block's `problems` (in their order): all of them, one
/// each, when `all`; else one per kind, at most [`LINES_PER_BLOCK`].
pub(crate) fn lines<P: ProblemLike>(problems: &[P], all: bool) -> Vec<Line<'_, P>> {
    if all {
        return problems
            .iter()
            .map(|problem| Line::Problem { problem, more: 0 })
            .collect();
    }
    // Kinds in order of first appearance: (first problem, count).
    let mut kinds: Vec<(usize, usize)> = Vec::new();
    let mut index: HashMap<(Severity, ProblemClass, String, String), usize> = HashMap::new();
    for (i, p) in problems.iter().enumerate() {
        let key = (
            p.severity(),
            p.class(),
            shape(p.field()),
            shape(p.message()),
        );
        match index.get(&key) {
            Some(&k) => kinds[k].1 += 1,
            None => {
                index.insert(key, kinds.len());
                kinds.push((i, 1));
            }
        }
    }
    let shown = if kinds.len() > LINES_PER_BLOCK {
        LINES_PER_BLOCK - 1
    } else {
        kinds.len()
    };
    let mut out: Vec<Line<'_, P>> = kinds[..shown]
        .iter()
        .map(|&(first, count)| Line::Problem {
            problem: &problems[first],
            more: count - 1,
        })
        .collect();
    if shown < kinds.len() {
        out.push(Line::Omitted {
            problems: kinds[shown..].iter().map(|&(_, n)| n).sum(),
            kinds: kinds.len() - shown,
        });
    }
    out
}

/// `show`'s problem table of one page or block, through the budget unless
/// `opts.all_problems`.
pub(crate) fn table(problems: &[Problem], opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["severity", "offset", "field", "problem"]);
    for line in lines(problems, opts.all_problems) {
        match line {
            Line::Problem { problem: p, more } => t.add_row(vec![
                p.severity.as_str().to_string(),
                p.offset.map_or(String::new(), |o| o.to_string()),
                p.field.clone(),
                format!("{}{}", p.message, more_suffix(more)),
            ]),
            Line::Omitted { problems, kinds } => t.add_row(vec![
                String::new(),
                String::new(),
                String::new(),
                omitted_text(problems, kinds),
            ]),
        };
    }
    t
}

/// ` (and 1,799 more like it in this block)`, or nothing.
pub(crate) fn more_suffix(more: usize) -> String {
    if more == 0 {
        String::new()
    } else {
        format!(" (and {more} more like it in this block)")
    }
}

/// `1,204 more problems of 37 other kinds in this block not shown (--all-problems shows every one)`.
pub(crate) fn omitted_text(problems: usize, kinds: usize) -> String {
    format!(
        "{problems} more problem{} of {kinds} other kind{} in this block not shown \
         (--all-problems shows every one)",
        if problems == 1 { "" } else { "s" },
        if kinds == 1 { "" } else { "s" },
    )
}

/// `text` with every run of digits (and `0x` hex numbers) as `#`.
fn shape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '0' && chars.peek() == Some(&'x') {
            chars.next();
            while chars.peek().is_some_and(|c| c.is_ascii_hexdigit()) {
                chars.next();
            }
            out.push('#');
        } else if c.is_ascii_digit() {
            while chars.peek().is_some_and(|c| c.is_ascii_digit()) {
                chars.next();
            }
            out.push('#');
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(class: ProblemClass, field: &str, message: &str) -> Problem {
        Problem::new(Severity::Error, class, Some(0), field, message)
    }

    #[test]
    fn numbers_do_not_make_a_kind() {
        assert_eq!(shape("item 17 overlaps item 3"), "item # overlaps item #");
        assert_eq!(
            shape("stored 0x1e72, computed 0xab9c"),
            "stored #, computed #"
        );
    }

    #[test]
    fn repeats_collapse_and_the_first_cause_stays_first() {
        let mut problems = vec![p(
            ProblemClass::Header,
            "pd_lower",
            "pd_lower 9000 is above",
        )];
        for i in 2..1000 {
            problems.push(p(
                ProblemClass::LinePointer,
                &format!("lp[{i}]"),
                &format!("item {i} overlaps item {}", i - 1),
            ));
        }
        let lines = lines(&problems, false);
        assert_eq!(lines.len(), 2);
        assert_eq!(
            lines[0],
            Line::Problem {
                problem: &problems[0],
                more: 0
            }
        );
        assert_eq!(
            lines[1],
            Line::Problem {
                problem: &problems[1],
                more: 997
            }
        );
        assert_eq!(super::lines(&problems, true).len(), problems.len());
    }

    #[test]
    fn at_most_25_lines_per_block() {
        let problems: Vec<Problem> = (0..60)
            .map(|i| {
                let class = if i % 2 == 0 {
                    ProblemClass::Row
                } else {
                    ProblemClass::Kdbr
                };
                p(class, "x", &format!("fault {}", "ab".repeat(i)))
            })
            .collect();
        let lines = lines(&problems, false);
        assert_eq!(lines.len(), LINES_PER_BLOCK);
        assert_eq!(
            lines[24],
            Line::Omitted {
                problems: 36,
                kinds: 36
            }
        );
    }
}
