//! Typed values for the columns of row pieces, given the table's column list
//! (`show --columns number,varchar2(20),date …` on Oracle blocks).
//!
//! A row piece with the F flag (first piece) holds the row's columns from the
//! first on, so its column *i* has the list's type *i*. When it is also the
//! last piece (L), the list's columns past `cc` are trailing NULLs, which
//! Oracle does not store (§4.2). A piece without F continues a chained row:
//! which column its first one is cannot be told from the block, so its
//! columns stay hex. A last column that continues in the next piece (N) is
//! partial and stays hex too, as do the columns of cluster pieces (K/C flags),
//! whose key and table bookkeeping is not established. Bytes that are not a valid value of the declared
//! type, types not decoded (LONG, LOBs …) and names not known become hex with
//! a note — never a guess.

use crate::model::oracle::names::{KDRHFC, KDRHFF, KDRHFK, KDRHFL, KDRHFN};
use crate::model::oracle::types::{
    AbsentColumn, ColumnValue, OraCharset, OraColumns, OraType, ValueForm,
};
use crate::model::oracle::{hex_string, OracleBlock, RowPiece};
use crate::model::span::{Region, Span};
use crate::model::{Problem, ProblemClass, Severity};

use super::datatype::{decode_date, decode_number, decode_value};

const FLAG_CLUSTER: u8 = KDRHFK | KDRHFC;
const FLAG_FIRST: u8 = KDRHFF;
const FLAG_LAST: u8 = KDRHFL;
const FLAG_NEXT: u8 = KDRHFN;

/// The longest value text put into a hex-view annotation.
const SPAN_TEXT: usize = 40;

/// Decode every row piece's columns of `block` with `list`; problems are added
/// to the block's, hex-view spans of column data get the name and value.
pub fn decode_block(block: &mut OracleBlock, list: &OraColumns, cs: OraCharset) {
    let Some(table) = block.table.as_mut() else {
        return;
    };
    let mut problems = Vec::new();
    for row in &mut table.rows {
        decode_row(row, list, cs, &mut problems, &mut block.spans);
    }
    block.problems.extend(problems);
}

fn decode_row(
    row: &mut RowPiece,
    list: &OraColumns,
    cs: OraCharset,
    problems: &mut Vec<Problem>,
    spans: &mut [Span],
) {
    let Some(cc) = row.cc else {
        return;
    };
    let owner = format!("tab {}, row {}", row.tab, row.row);
    // Cluster pieces (K or C) carry key/table bookkeeping whose layout is not
    // established (§4.2): their columns are not at known positions either.
    let cluster = row.flag & FLAG_CLUSTER != 0;
    let first = row.flag & FLAG_FIRST != 0 && !cluster;
    let last = row.flag & FLAG_LAST != 0;
    let continues = row.flag & FLAG_NEXT != 0;
    if !first && !row.cols.is_empty() {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Column,
            Some(row.offset),
            format!("{owner} fb"),
            if cluster {
                "a cluster row piece (K/C flag): which table columns it holds is not \
                 established, so they are shown as hex"
            } else {
                "a row piece that is not the first of its row (no F flag): which columns it \
                 holds is not recorded in the block, so they are shown as hex"
            },
        ));
    }
    let unknown_position = if cluster {
        "cluster row piece: column position unknown"
    } else {
        "continuation piece: column position unknown"
    };
    let ncols = row.cols.len();
    let mut past_list = false;
    for col in &mut row.cols {
        let spec = list.cols.get(col.col);
        if first && spec.is_none() {
            past_list = true;
        }
        let (name, type_name) = match (first, spec) {
            (true, Some(s)) => (s.name.clone(), s.ty.display()),
            _ => (None, "?".to_string()),
        };
        let hex = |note: String| ColumnValue {
            name: name.clone(),
            type_name: type_name.clone(),
            value: Some(hex_string(&col.data)),
            form: ValueForm::Hex,
            note: Some(note),
        };
        let value = if col.len.is_none() {
            ColumnValue {
                name: name.clone(),
                type_name: type_name.clone(),
                value: None,
                form: ValueForm::Text,
                note: (first && spec.is_none()).then(|| "past the column list".into()),
            }
        } else if !first {
            hex(unknown_position.into())
        } else if let Some(spec) = spec {
            if continues && col.col + 1 == ncols {
                hex("continues in the next row piece (N flag): partial value".into())
            } else {
                match (&spec.ty, decode_value(&spec.ty, &col.data, cs)) {
                    (_, Ok(Some(text))) => {
                        let note = beyond_declared(&spec.ty, &col.data, &text);
                        if let Some(n) = &note {
                            problems.push(Problem::new(
                                Severity::Warning,
                                ProblemClass::Column,
                                Some(col.offset),
                                format!("{owner} col {}", col.col),
                                format!("{n}: the column list may not match the table"),
                            ));
                        }
                        ColumnValue {
                            name: name.clone(),
                            type_name: type_name.clone(),
                            value: Some(text),
                            form: ValueForm::Text,
                            note,
                        }
                    }
                    (OraType::Opaque { why, .. }, _) => hex((*why).to_string()),
                    (OraType::Unknown { spelling }, _) => {
                        hex(format!("type {spelling:?} is not one blockscope decodes"))
                    }
                    (_, Ok(None)) => hex("not decoded".into()),
                    (_, Err(e)) => {
                        problems.push(Problem::new(
                            Severity::Warning,
                            ProblemClass::Column,
                            Some(col.offset),
                            format!("{owner} col {}", col.col),
                            format!("not a valid {type_name}: {e}"),
                        ));
                        hex(format!("not a valid {type_name}: {e}"))
                    }
                }
            }
        } else {
            past_list = true;
            hex("past the column list".into())
        };
        annotate(spans, &owner, col.col, col.offset, &value);
        col.value = Some(value);
    }
    if past_list && !list.rest_ignored {
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Column,
            Some(row.offset),
            format!("{owner} cc"),
            format!(
                "the row piece has {cc} columns, the column list {}: the rest are shown as hex \
                 (end the list with `~` to expect more)",
                list.cols.len()
            ),
        ));
    }
    if first && last {
        row.trailing_nulls = list
            .cols
            .iter()
            .enumerate()
            .skip(ncols)
            .map(|(i, s)| AbsentColumn {
                col: i,
                name: s.name.clone(),
                type_name: s.ty.display(),
            })
            .collect();
    }
}

/// Why a valid value could not have been stored under its declaration (too
/// long for `VARCHAR2(n)`, too many digits for `NUMBER(p,s)`), if it could not.
fn beyond_declared(ty: &OraType, data: &[u8], text: &str) -> Option<String> {
    let d = ty.declared();
    let shown = ty.display();
    if let Some(max) = d.length {
        let (len, unit) = if d.in_chars {
            (text.chars().count(), "characters")
        } else {
            (data.len(), "bytes")
        };
        if len > max as usize {
            return Some(format!("{len} {unit}, longer than {shown} allows"));
        }
    }
    if let OraType::Number { .. } = ty {
        let digits = text.trim_start_matches('-');
        if digits.starts_with('~') {
            return None;
        }
        let (int, frac) = digits.split_once('.').unwrap_or((digits, ""));
        let int_digits = if int == "0" { 0 } else { int.len() };
        let frac_digits = frac.len();
        if let Some(scale) = d.scale {
            if scale >= 0 && frac_digits > scale as usize {
                return Some(format!(
                    "{frac_digits} digits after the point, more than {shown} stores"
                ));
            }
            if scale < 0 {
                let zeros = int.len() - int.trim_end_matches('0').len();
                if frac_digits > 0 || (int != "0" && zeros < (-scale) as usize) {
                    return Some(format!("not rounded to the scale of {shown}"));
                }
            }
        }
        if let (Some(p), Some(s)) = (d.precision, d.scale) {
            let room = i64::from(p) - i64::from(s);
            if int_digits as i64 > room {
                return Some(format!(
                    "{int_digits} digits before the point, more than {shown} allows"
                ));
            }
        }
    }
    None
}

/// Put the column's name and value on its data span (`col 2 ENAME 'KING'`).
fn annotate(spans: &mut [Span], owner: &str, col: usize, len_at: usize, v: &ColumnValue) {
    let label = format!("col {col}");
    let Some(span) = spans.iter_mut().find(|s| {
        s.region == Region::TupleData
            && s.start > len_at
            && s.start <= len_at + 3
            && s.name == label
            && s.owner.as_deref() == Some(owner)
    }) else {
        return;
    };
    if let Some(n) = &v.name {
        span.name = format!("{label} {n}");
    }
    if v.form == ValueForm::Text {
        if let Some(text) = &v.value {
            let shown: String = text
                .chars()
                .take(SPAN_TEXT)
                .map(|c| if c.is_control() { '.' } else { c })
                .collect();
            let more = if text.chars().count() > SPAN_TEXT {
                "…"
            } else {
                ""
            };
            span.value = format!("{} {shown}{more}", v.type_name);
        }
    }
}

/// What column bytes read as, without a type: printable text, a NUMBER, a DATE.
pub(crate) fn reads_as(data: &[u8]) -> String {
    if data.is_empty() {
        return String::new();
    }
    let mut guesses = Vec::new();
    if data.iter().all(|b| (0x20..0x7f).contains(b)) {
        let text: String = data.iter().take(40).map(|&b| b as char).collect();
        guesses.push(format!(
            "'{text}'{}",
            if data.len() > 40 { "…" } else { "" }
        ));
    }
    if !guesses.is_empty() {
        return guesses.join(" or ");
    }
    if data.len() <= 21 {
        if let Ok(n) = decode_number(data) {
            guesses.push(format!("NUMBER {}", n.text));
        }
    }
    if data.len() == 7 || data.len() == 11 {
        if let Ok(d) = decode_date(data) {
            guesses.push(format!("DATE {d}"));
        }
    }
    guesses.join(" or ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn beyond(ty: &str, text: &str) -> Option<String> {
        let ty = OraType::parse(ty).unwrap();
        beyond_declared(&ty, text.as_bytes(), text)
    }

    #[test]
    fn number_precision_and_scale() {
        assert_eq!(beyond("number(5,2)", "123.45"), None);
        assert_eq!(beyond("number(5,2)", "-0.5"), None);
        assert!(beyond("number(4,2)", "123.45")
            .unwrap()
            .starts_with("3 digits before"));
        assert!(beyond("number(5,1)", "123.45")
            .unwrap()
            .starts_with("2 digits after"));
        assert_eq!(beyond("number(5,-2)", "1200"), None);
        assert!(beyond("number(5,-2)", "1230").unwrap().contains("scale"));
        assert!(beyond("integer", "1.5").is_some());
        assert_eq!(beyond("number", "1.23456789"), None);
        assert_eq!(beyond("number(3)", "~"), None);
        assert_eq!(beyond("char(2)", "ab"), None);
        assert!(beyond("char", "ab").is_some());
    }
}
