//! A text-only dump (no `Dump of memory` hex to cross-check) checked against
//! itself: the data header's counts and offsets against the row directory
//! and the rows printed, as Oracle's own dumps keep them.
//!
//! The rules, each checked against published dumps (fixtures/oracle/README.md):
//! - `nrow=` is the number of `pri[]` lines, and the sum of the `pti[]` lines'
//!   `nrow=`; every `pri[]` line with `offs=` has its row printed (`sfll=`
//!   lines are free slots and print no row);
//! - `hsiz` = 14 (kdbh) + 4 × `ntab` + 2 × `nrow`, and `fsbo` = `hsiz`;
//! - `fseo` is the lowest row offset (deleted pieces keep their space);
//! - `avsp` is at most the space the live rows leave (`tsiz` − `hsiz` − their
//!   `tl:`), `tosp` at most `tsiz` − `hsiz`;
//! - every row starts at or after `hsiz` and, with its `tl:`, ends by `tsiz`;
//! - `tl:` = 3 (flag, lock, column count) + 6 for an `hrid` + 6 for an
//!   `nrid` + per column its length (1 byte, 3 above 250, 1 for a NULL) and
//!   its bytes; deleted pieces print `tl: 2`. Rows of cluster or compressed
//!   blocks (`K`/`C` row flags, `ntab` > 1, `flag=-0------`) are not summed.
//!
//! Each disagreement is a [`Problem`] of class `kdbh`, `kdbr` or `row`,
//! naming the field and the trace line.

use crate::model::oracle::{TextBlock, TextData, TextRow};
use crate::model::{Problem, ProblemClass, Severity};

/// The size of the data header (kdbh) before the table directory.
const KDBH_SIZE: usize = 14;

fn problem(class: ProblemClass, line: usize, field: &str, message: String) -> Problem {
    Problem::new(
        Severity::Error,
        class,
        None,
        field,
        format!("trace line {line}: {message}"),
    )
}

/// Check the table data layer of a text-only block against itself.
pub fn check_text(t: &TextBlock) -> Vec<Problem> {
    let mut out = Vec::new();
    if let Some(d) = &t.data {
        data(d, &mut out);
    }
    out
}

fn data(d: &TextData, out: &mut Vec<Problem>) {
    let v16 = |a: Option<crate::model::oracle::At<u16>>| a.map(|a| (a.value, a.line));
    let nrow = v16(d.kdbhnrow);
    let ntab = d.kdbhntab.map(|a| (a.value, a.line));
    let used: Vec<&crate::model::oracle::At<crate::model::oracle::KdbrEntry>> =
        d.kdbr.iter().filter(|k| !k.value.free).collect();
    // nrow against the directory and the rows printed.
    if let Some((n, line)) = nrow {
        let n = usize::from(n);
        if d.complete && d.kdbr.len() != n {
            out.push(problem(
                ProblemClass::Kdbr,
                line,
                "kdbh.kdbhnrow",
                format!("nrow={n}, but {} pri[] lines are printed", d.kdbr.len()),
            ));
        }
        let pti: usize = d.kdbt.iter().map(|k| usize::from(k.value.kdbtnrow)).sum();
        if !d.kdbt.is_empty() && pti != n {
            out.push(problem(
                ProblemClass::Kdbh,
                line,
                "kdbh.kdbhnrow",
                format!("nrow={n}, but the pti[] lines' nrow= add up to {pti}"),
            ));
        }
    }
    if d.complete && used.len() != d.rows.len() {
        out.push(problem(
            ProblemClass::Row,
            d.line,
            "rows printed",
            format!(
                "{} pri[] lines give a row offset, but {} rows are printed",
                used.len(),
                d.rows.len()
            ),
        ));
    }
    for (k, r) in used.iter().zip(&d.rows) {
        if k.value.kdbr != r.offs {
            out.push(problem(
                ProblemClass::Kdbr,
                r.line,
                &format!("kdbr[{}]", k.value.slot),
                format!(
                    "pri[{}] (line {}) says offs=0x{:x}, the row printed is at @0x{:x}",
                    k.value.slot, k.line, k.value.kdbr, r.offs
                ),
            ));
        }
    }
    // hsiz and fsbo.
    let hsiz = d.hsiz.map(|a| (a.value, a.line));
    if let (Some((h, line)), Some((nt, _)), Some((nr, _))) = (hsiz, ntab, nrow) {
        // A compressed block's 9iR2 header (8 + 2·fcls + perm bytes) sits
        // between kdbh and the table directory.
        let comp = d.kdbh9ir2.as_ref().map_or(0, |c| c.value.size);
        let want = KDBH_SIZE + comp + 4 * usize::from(nt) + 2 * usize::from(nr);
        if h != want {
            let terms = if comp > 0 {
                format!("14 + {comp} (9iR2 header)")
            } else {
                "14".to_string()
            };
            out.push(problem(
                ProblemClass::Kdbh,
                line,
                "hsiz",
                format!(
                    "hsiz: 0x{h:x}, but ntab={nt} and nrow={nr} make a header of \
                     {terms} + 4×{nt} + 2×{nr} = 0x{want:x} bytes"
                ),
            ));
        }
    }
    if let (Some((h, _)), Some(f)) = (hsiz, d.kdbhfsbo) {
        if usize::from(f.value) != h {
            out.push(problem(
                ProblemClass::Kdbh,
                f.line,
                "kdbh.kdbhfsbo",
                format!("fsbo=0x{:x}, but the header ends at hsiz: 0x{h:x}", f.value),
            ));
        }
    }
    // fseo: the lowest row offset.
    if let (Some(f), Some(low)) = (d.kdbhfseo, d.rows.iter().map(|r| r.offs).min()) {
        if d.complete && f.value != low {
            out.push(problem(
                ProblemClass::Kdbh,
                f.line,
                "kdbh.kdbhfseo",
                format!(
                    "fseo=0x{:x}, but the lowest row offset printed is 0x{low:x}",
                    f.value
                ),
            ));
        }
    }
    let tsiz = d.tsiz.map(|a| a.value);
    // avsp and tosp against the space the rows leave.
    if let (Some(ts), Some((h, _))) = (tsiz, hsiz) {
        let area = ts.saturating_sub(h);
        let live: usize = d
            .rows
            .iter()
            .filter(|r| r.flag.is_some_and(|f| f & 0x10 == 0))
            .filter_map(|r| r.tl)
            .sum();
        let free = area.saturating_sub(live);
        if let Some(a) = d.kdbhavsp {
            let avsp = usize::from(a.value as u16);
            if d.complete && avsp > free {
                out.push(problem(
                    ProblemClass::Kdbh,
                    a.line,
                    "kdbh.kdbhavsp",
                    format!(
                        "avsp=0x{avsp:x}, but tsiz 0x{ts:x} − hsiz 0x{h:x} − {live} bytes of \
                         live rows leave only 0x{free:x} bytes"
                    ),
                ));
            }
        }
        if let Some(t) = d.kdbhtosp {
            let tosp = usize::from(t.value as u16);
            if tosp > area {
                out.push(problem(
                    ProblemClass::Kdbh,
                    t.line,
                    "kdbh.kdbhtosp",
                    format!(
                        "tosp=0x{tosp:x} is more than the whole data area (tsiz 0x{ts:x} − \
                         hsiz 0x{h:x} = 0x{area:x})"
                    ),
                ));
            }
        }
    }
    // Rows inside the block, and their tl: sums.
    let summable =
        ntab.is_none_or(|(n, _)| n <= 1) && d.kdbhflag.is_none_or(|f| f.value & 0x40 == 0);
    for r in &d.rows {
        if let Some((h, _)) = hsiz {
            if usize::from(r.offs) < h {
                out.push(problem(
                    ProblemClass::Row,
                    r.line,
                    &format!("tab {}, row {} offset", r.tab, r.row),
                    format!(
                        "row at @0x{:x} starts inside the header (hsiz: 0x{h:x})",
                        r.offs
                    ),
                ));
            }
        }
        if let (Some(ts), Some(tl)) = (tsiz, r.tl) {
            let end = usize::from(r.offs) + tl;
            if end > ts {
                out.push(problem(
                    ProblemClass::Row,
                    r.tl_line.unwrap_or(r.line),
                    &format!("tab {}, row {} tl", r.tab, r.row),
                    format!(
                        "row at @0x{:x} with tl: {tl} ends at 0x{end:x}, past tsiz: 0x{ts:x}",
                        r.offs
                    ),
                ));
            }
        }
        if summable {
            if let Some(problem) = tl_sum(r) {
                out.push(problem);
            }
        }
    }
}

/// `tl:` against the bytes the row's printed parts take.
fn tl_sum(r: &TextRow) -> Option<Problem> {
    let (tl, flag) = (r.tl?, r.flag?);
    if flag & 0xc0 != 0 {
        return None;
    }
    let want = if let Some(b) = &r.bindmp {
        // A row of a compressed block: tl is its stored bytes.
        b.len()
    } else if flag & 0x10 != 0 {
        2
    } else {
        // Only whole columns can be summed.
        if r.cols
            .iter()
            .any(|c| c.len.is_some_and(|l| c.data.len() != l))
        {
            return None;
        }
        let cc = usize::from(r.cc?);
        if r.cols.len() != cc {
            return Some(problem(
                ProblemClass::Row,
                r.tl_line.unwrap_or(r.line),
                &format!("tab {}, row {} cc", r.tab, r.row),
                format!("cc: {cc}, but {} col lines are printed", r.cols.len()),
            ));
        }
        let rid = |set: bool| if set { 6 } else { 0 };
        3 + rid(r.hrid.is_some())
            + rid(r.nrid.is_some())
            + r.cols
                .iter()
                .map(|c| match c.len {
                    None => 1,
                    Some(l) if l > 250 => 3 + l,
                    Some(l) => 1 + l,
                })
                .sum::<usize>()
    };
    (want != tl).then(|| {
        problem(
            ProblemClass::Row,
            r.tl_line.unwrap_or(r.line),
            &format!("tab {}, row {} tl", r.tab, r.row),
            format!(
                "tl: {tl}, but the row's header, rowids and {} columns printed take {want} bytes",
                r.cols.len()
            ),
        )
    })
}
