//! BRIN summary tuples (brin_tuple.h, brin_tuple.c) as `brin_page_items`
//! shows them.
//!
//! ```text
//!  BrinTuple: | bt_blkno (4) | bt_info (1) | [null bitmap: 2 × natts bits] | padding | values …
//!  bt_info:   bits 0-4 data offset, 0x20 empty range (16+), 0x40 placeholder, 0x80 has nulls
//!  bitmap:    bit i set = column i all nulls; bit natts + i set = column i has nulls
//! ```
//!
//! Each column stores its opclass's values: minmax two of the column's type
//! (`{min .. max}`), inclusion three (`{union .. unmergeable .. contains empty}`).
//! The opclass is not on the page: the layout that fills the tuple exactly is taken.

use crate::model::postgres::index::{BrinColumn, IndexBody, IndexItem};
use crate::model::postgres::types::{Column, PgType, Schema, TypeSpec};
use crate::model::postgres::{ItemId, PageHeader, PageLayout};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use super::attrs::{self, layout_in};
use super::index::{empty_item, tuple_bounds, unreadable_item};

/// `SizeOfBrinTuple`: offsetof(BrinTuple, bt_info) + 1.
const SIZE_OF_BRIN_TUPLE: usize = 5;
const BRIN_OFFSET_MASK: u8 = 0x1F;
const BRIN_EMPTY_RANGE_MASK: u8 = 0x20;
const BRIN_NULLS_MASK: u8 = 0x80;
const BRIN_PLACEHOLDER_MASK: u8 = 0x40;
/// Columns tried for opclass layouts (2^n combinations).
const MAX_GUESSED_COLUMNS: usize = 8;

/// A 64-bit build's `BrinSpecialSpace` is MAXALIGN(1) = 8 bytes (four
/// uint16, the page type last); a 32-bit build's is 4 (two uint16: flags,
/// page type). A BRIN page type in the last two bytes of a 4-byte special
/// space is a 32-bit build's page.
pub(crate) fn detect_max_align(h: &PageHeader, page_len: usize) -> Option<Problem> {
    let special = usize::from(h.pd_special);
    (page_len.checked_sub(special) == Some(4)).then(|| {
        Problem::new(
            Severity::Info,
            ProblemClass::Special,
            Some(special),
            "pd_special",
            "laid out by a 32-bit build (MAXALIGN 4): the BrinSpecialSpace is MAXALIGN(1) = 4 bytes \
             (8 on a 64-bit build); decoded with 4-byte MAXALIGN"
                .to_string(),
        )
    })
}

/// Drop the "pd_special is not MAXALIGNed" error the header check gave a
/// page [`detect_max_align`] found a 32-bit build's (its pd_special is
/// BLCKSZ - 4, MAXALIGNed to 4).
pub(crate) fn accept_special(problems: &mut Vec<Problem>) {
    problems.retain(|p| !(p.field == "pd_special" && p.message.ends_with("is not MAXALIGNed")));
}

/// One summary tuple.
pub(crate) fn item(r: &mut Reader, id: ItemId, problems: &mut Vec<Problem>) -> IndexItem {
    if !id.has_storage() {
        return empty_item(id);
    }
    match read(r, id) {
        Ok(item) => item,
        Err(e) => unreadable_item(id, &e, ProblemClass::Special, problems),
    }
}

fn read(r: &mut Reader, id: ItemId) -> Result<IndexItem, ReadError> {
    let (base, len) = tuple_bounds(r, &id)?;
    let owner = format!("item {}", id.lp);
    r.set_context(Region::TupleHeader, Some(owner.clone()));
    let blknum = r.u32(base, "bt_blkno")?;
    let bt_info = r.u8(base + 4, "bt_info")?;
    let offset = usize::from(bt_info & BRIN_OFFSET_MASK);
    let placeholder = bt_info & BRIN_PLACEHOLDER_MASK != 0;
    let empty = bt_info & BRIN_EMPTY_RANGE_MASK != 0;
    let has_nulls_mask = bt_info & BRIN_NULLS_MASK != 0;
    let mut bits = vec![format!("data at {offset}")];
    if has_nulls_mask {
        bits.push("has nulls".into());
    }
    if placeholder {
        bits.push("placeholder".into());
    }
    if empty {
        bits.push("empty range".into());
    }
    r.show_last(format!("0x{bt_info:02x} {}", bits.join(", ")));
    if has_nulls_mask && offset > SIZE_OF_BRIN_TUPLE {
        r.mark(
            base + SIZE_OF_BRIN_TUPLE,
            offset - SIZE_OF_BRIN_TUPLE,
            "null bitmap",
            "all-nulls bits, then has-nulls bits".into(),
        );
    }
    let data = r.peek(base + offset.min(len), len.saturating_sub(offset), "values")?;
    if !data.is_empty() {
        r.set_context(Region::TupleData, Some(owner));
        r.mark(
            base + offset,
            data.len(),
            "values",
            format!("{} bytes", data.len()),
        );
    }
    let verdict = if placeholder {
        format!("placeholder for the range at heap block {blknum} (summarization under way)")
    } else if empty {
        format!("summary of the range at heap block {blknum}: empty range")
    } else {
        format!("summary of the range at heap block {blknum}")
    };
    Ok(IndexItem {
        id,
        header: None,
        body: IndexBody::Brin {
            blknum,
            bt_info,
            placeholder,
            empty,
            has_nulls_mask,
            data: data.to_vec(),
            columns: Vec::new(),
        },
        tupstate: None,
        key_area: None,
        keys: None,
        verdict,
    })
}

fn bool_column() -> Column {
    Column::of(
        None,
        TypeSpec {
            ty: PgType::Bool,
            typmod: None,
        },
    )
}

/// The stored values of each column: `per[i]` values for column i (0 when all nulls).
fn stored_columns(schema: &Schema, inclusion: &[bool], allnulls: &[bool]) -> Vec<Column> {
    let mut cols = Vec::new();
    for (i, col) in schema.columns.iter().enumerate() {
        if allnulls.get(i).copied().unwrap_or(false) {
            continue;
        }
        cols.push(col.clone());
        if inclusion.get(i).copied().unwrap_or(false) {
            cols.push(bool_column());
            cols.push(bool_column());
        } else {
            cols.push(col.clone());
        }
    }
    cols
}

/// `brin_deform_tuple` with the column list: all-nulls and has-nulls flags
/// and each column's values, as `brin_page_items` prints them.
pub(crate) fn decode_columns(
    r: &mut Reader,
    item: &mut IndexItem,
    schema: &Schema,
    pl: PageLayout,
    problems: &mut Vec<Problem>,
) {
    let IndexBody::Brin {
        bt_info,
        has_nulls_mask,
        data,
        columns,
        ..
    } = &mut item.body
    else {
        return;
    };
    let natts = schema.columns.len();
    if natts == 0 {
        return;
    }
    let base = usize::from(item.id.lp_off);
    let offset = usize::from(*bt_info & BRIN_OFFSET_MASK);
    let bit = |n: usize| -> bool {
        *has_nulls_mask
            && r.data()
                .get(base + SIZE_OF_BRIN_TUPLE + n / 8)
                .is_some_and(|b| b & (1 << (n % 8)) != 0)
    };
    let allnulls: Vec<bool> = (0..natts).map(bit).collect();
    let hasnulls: Vec<bool> = (0..natts).map(|i| bit(natts + i)).collect();

    // The opclass layout (minmax or inclusion per column) that fills the tuple.
    let tuple_len = usize::from(item.id.lp_len);
    let guess = natts.min(MAX_GUESSED_COLUMNS);
    let mut chosen = None;
    for mask in 0..(1u32 << guess) {
        let inclusion: Vec<bool> = (0..natts)
            .map(|i| i < guess && mask & (1 << i) != 0)
            .collect();
        let cols = stored_columns(schema, &inclusion, &allnulls);
        // In the page's byte order (varlena headers) and MAXALIGN.
        let (_, end, err) = layout_in(data, cols.len(), None, &cols, pl);
        if err.is_none() && offset + end <= tuple_len && pl.maxalign(offset + end) >= tuple_len {
            chosen = Some((inclusion, cols));
            break;
        }
    }
    let owner = format!("item {}", item.id.lp);
    let mut budget = attrs::PAGE_VALUE_BUDGET;
    let (inclusion, values) = match &chosen {
        Some((inclusion, cols)) => (
            inclusion.clone(),
            attrs::index_attrs(
                r,
                &owner,
                base + offset,
                data.len(),
                None,
                cols,
                &mut budget,
            ),
        ),
        None => {
            problems.push(Problem::new(
                Severity::Warning,
                ProblemClass::Attrs,
                Some(base + offset),
                format!("{owner} values"),
                "the stored values fit neither the minmax nor the inclusion layout of the given columns"
                    .to_string(),
            ));
            (vec![false; natts], Vec::new())
        }
    };
    let mut next = values.iter();
    columns.clear();
    for i in 0..natts {
        let mut c = BrinColumn {
            attnum: (i + 1) as u16,
            allnulls: allnulls[i],
            hasnulls: hasnulls[i],
            value: None,
            problems: Vec::new(),
        };
        if !allnulls[i] && chosen.is_some() {
            let n = if inclusion[i] { 3 } else { 2 };
            let texts: Vec<String> = next
                .by_ref()
                .take(n)
                .map(|a| {
                    c.problems.extend(a.problems.iter().cloned());
                    a.value.as_ref().map_or("?".to_string(), |v| v.text.clone())
                })
                .collect();
            c.value = Some(format!("{{{}}}", texts.join(" .. ")));
        }
        columns.push(c);
    }
}
