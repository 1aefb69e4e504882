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
//! (`{min .. max}`), inclusion three (`{union .. unmergeable .. contains empty}`),
//! bloom and minmax-multi one summary varlena, printed as their output
//! functions print them. The opclass is not on the page: the layout that
//! fills the tuple exactly (minmax and inclusion first, then with summaries
//! whose contents parse as one) is taken.
//!
//! Without the column list, the column count (and so `brin_page_items`'
//! `attnum`, `allnulls`, `hasnulls` per item) comes from the null bitmaps
//! when they fix it, else from the values ([`fitting_counts`]): the counts
//! for which one layout of column patterns (minmax over a menu of types,
//! inclusion, bloom, minmax-multi), the same for every tuple, fills every
//! tuple exactly. `brin_form_tuple` zeroes the tuple before writing it, so
//! a column that stores only zero bytes in every tuple cannot be told from
//! the padding after the values: such a column is not counted (an index
//! column holding `0`/`false` in every range of the page is read as
//! absent), and several counts still fitting give none.

use crate::model::postgres::index::{BrinColumn, IndexBody, IndexItem};
use crate::model::postgres::types::{Column, PgType, Schema, TypeSpec};
use crate::model::postgres::{ItemId, PageHeader, PageLayout};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use crate::parse::postgres::attrs::{self, layout_in, Slot};
use crate::parse::postgres::itup::{empty_item, tuple_bounds, unreadable_item};
use crate::parse::postgres::values;

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

/// A column's stored values: minmax two of the column's type, inclusion
/// three (the union, `unmergeable`, `contains empty`), bloom and
/// minmax-multi one summary varlena (`pg_brin_bloom_summary`,
/// `pg_brin_minmax_multi_summary`: typlen -1, typalign 'i').
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stored {
    Minmax,
    Inclusion,
    Summary,
}

impl Stored {
    fn count(self) -> usize {
        match self {
            Stored::Minmax => 2,
            Stored::Inclusion => 3,
            Stored::Summary => 1,
        }
    }
}

/// Whether the column's type may have an inclusion opclass: the core ones
/// are on inet, ranges and box; a type blockscope does not know (an
/// extension's: PostGIS's geometry) may have one too.
fn inclusion_possible(col: &Column) -> bool {
    match col.ty.as_ref().map(|t| &t.ty) {
        None => true,
        Some(t) => matches!(
            t,
            PgType::Inet
                | PgType::Cidr
                | PgType::GeoBox
                | PgType::Range { .. }
                | PgType::Multirange { .. }
                | PgType::Ext(_)
                | PgType::Other { .. }
        ),
    }
}

fn summary_column() -> Column {
    Column::of(
        None,
        TypeSpec {
            ty: PgType::Bytea,
            typmod: None,
        },
    )
}

/// Columns tried with the summary layouts too (3^n combinations).
const MAX_GUESSED_SUMMARY_COLUMNS: usize = 5;

/// The stored values of each column (none when all nulls).
fn stored_columns(schema: &Schema, stored: &[Stored], allnulls: &[bool]) -> Vec<Column> {
    let mut cols = Vec::new();
    for (i, col) in schema.columns.iter().enumerate() {
        if allnulls.get(i).copied().unwrap_or(false) {
            continue;
        }
        match stored.get(i).copied().unwrap_or(Stored::Minmax) {
            Stored::Minmax => {
                cols.push(col.clone());
                cols.push(col.clone());
            }
            Stored::Inclusion => {
                cols.push(col.clone());
                cols.push(bool_column());
                cols.push(bool_column());
            }
            Stored::Summary => cols.push(summary_column()),
        }
    }
    cols
}

/// array_out's text of a one-dimensional array of text elements: quoted
/// when empty, `NULL`, or holding `{`, `}`, `,`, `"`, `\` or white space.
fn text_array_out(elems: &[String]) -> String {
    let quoted: Vec<String> = elems.iter().map(|e| values::quote_element(e)).collect();
    format!("{{{}}}", quoted.join(","))
}

/// `brin_bloom_summary_out` of a `BloomFilter` (brin_bloom.c) whose data
/// after the varlena header is `p`: uint16 flags, uint8 nhashes, padding,
/// uint32 nbits, uint32 nbits_set, then nbits / 8 bytes of bitmap. `None`
/// when `p` is not one.
fn bloom_out(p: &[u8], big: bool) -> Option<String> {
    let r = Reader::new(p, if big { Endian::Big } else { Endian::Little });
    let flags = r.peek_u16(0, "flags").ok()?;
    let nhashes = r.peek_u8(2, "nhashes").ok()?;
    let nbits = r.peek_u32(4, "nbits").ok()?;
    let nbits_set = r.peek_u32(8, "nbits_set").ok()?;
    let fits = flags == 0
        && nhashes > 0
        && nbits % 8 == 0
        && nbits_set <= nbits
        && usize::try_from(nbits / 8).ok()? + 12 == p.len();
    fits.then(|| {
        format!("{{mode: hashed  nhashes: {nhashes}  nbits: {nbits}  nbits_set: {nbits_set}}}")
    })
}

/// `brin_minmax_multi_summary_out` of a `SerializedRanges` (brin_minmax_multi.c)
/// whose data after the varlena header is `p`: Oid typid, int32 nranges,
/// nvalues, maxvalues, then 2 × nranges range bounds and nvalues points,
/// each typlen bytes (varlenas: their whole size, unaligned). `None` when
/// `p` is not one of the column's type; `Some(Err)` when a value of it
/// cannot be printed.
fn minmax_multi_out(p: &[u8], col: &Column, big: bool) -> Option<Result<String, String>> {
    let ty = &col.ty.as_ref()?.ty;
    let r = Reader::new(p, if big { Endian::Big } else { Endian::Little });
    let typid = r.peek_u32(0, "typid").ok()?;
    let nranges = r.peek_u32(4, "nranges").ok()? as i32;
    let nvalues = r.peek_u32(8, "nvalues").ok()? as i32;
    let maxvalues = r.peek_u32(12, "maxvalues").ok()? as i32;
    if ty.oid() != Some(typid)
        || nranges < 0
        || nvalues < 0
        || maxvalues < 0
        || 2 * i64::from(nranges) + i64::from(nvalues) > i64::from(maxvalues)
    {
        return None;
    }
    let count = 2 * nranges as usize + nvalues as usize;
    let mut at = 16;
    let mut values = Vec::with_capacity(count.min(p.len()));
    for _ in 0..count {
        let len = match col.attlen {
            n if n > 0 => n as usize,
            -1 => attrs::varlena_len(p.get(at..)?, big)?,
            _ => return None,
        };
        values.push(p.get(at..at.checked_add(len)?)?);
        at += len;
    }
    if at != p.len() {
        return None;
    }
    let texts: Result<Vec<String>, String> = values
        .iter()
        .map(|raw| {
            let data = if col.attlen == -1 {
                attrs::inline_varlena_payload(raw, big)?
            } else {
                raw.to_vec()
            };
            let data = if big {
                crate::parse::postgres::values::big_endian_to_little(ty, &data)?
            } else {
                data
            };
            crate::parse::postgres::values::decode(ty, &data).map(|v| v.text)
        })
        .collect();
    Some(texts.map(|t| {
        let nr = nranges as usize;
        let mut out = format!("{{nranges: {nranges}  nvalues: {nvalues}  maxvalues: {maxvalues}");
        if nr > 0 {
            let ranges: Vec<String> = (0..nr)
                .map(|i| format!("{} ... {}", t[2 * i], t[2 * i + 1]))
                .collect();
            out.push_str(" ranges: ");
            out.push_str(&text_array_out(&ranges));
        }
        if nvalues > 0 {
            out.push_str(" values: ");
            out.push_str(&text_array_out(&t[2 * nr..]));
        }
        out.push('}');
        out
    }))
}

/// Whether `raw` (as stored) prints as a value of the column's type; true
/// when the type is not one blockscope prints.
fn value_reads(raw: &[u8], col: &Column, big: bool) -> bool {
    let Some(ty) = col.ty.as_ref().map(|t| &t.ty) else {
        return true;
    };
    let data = if col.attlen == -1 {
        match attrs::inline_varlena_payload(raw, big) {
            Ok(d) => d,
            Err(_) => return false,
        }
    } else {
        raw.to_vec()
    };
    let data = if big {
        match crate::parse::postgres::values::big_endian_to_little(ty, &data) {
            Ok(d) => d,
            Err(_) => return true,
        }
    } else {
        data
    };
    match ty {
        // network_out reads past a short address; the stored union is exact.
        PgType::Inet | PgType::Cidr => {
            matches!(data.first(), Some(2) if data.len() == 6)
                || matches!(data.first(), Some(3) if data.len() == 18)
        }
        _ => crate::parse::postgres::values::decode(ty, &data).is_ok(),
    }
}

/// The text of one summary value (`raw`: the varlena as stored), bloom or
/// minmax-multi of the column's type; `None` when it is neither.
fn summary_out(raw: &[u8], col: &Column, big: bool) -> Option<Result<String, String>> {
    let p = attrs::inline_varlena_payload(raw, big).ok()?;
    if let Some(t) = bloom_out(&p, big) {
        return Some(Ok(t));
    }
    minmax_multi_out(&p, col, big)
}

/// The per-column layouts (opclass families) that fill the tuple: first
/// minmax and inclusion only (`guess` columns tried, the rest minmax), then
/// with bloom and minmax-multi summaries, whose contents must parse as one.
fn choose_layout(
    schema: &Schema,
    allnulls: &[bool],
    data: &[u8],
    offset: usize,
    tuple_len: usize,
    pl: PageLayout,
) -> Option<(Vec<Stored>, Vec<Column>)> {
    let natts = schema.columns.len();
    let fits = |stored: &[Stored]| -> Option<Vec<Column>> {
        if schema
            .columns
            .iter()
            .zip(stored)
            .any(|(c, s)| *s == Stored::Inclusion && !inclusion_possible(c))
        {
            return None;
        }
        let cols = stored_columns(schema, stored, allnulls);
        // In the page's byte order (varlena headers) and MAXALIGN.
        let (slots, end, err) = layout_in(data, cols.len(), None, &cols, pl);
        if err.is_some() || offset + end > tuple_len || pl.maxalign(offset + end) < tuple_len {
            return None;
        }
        // Each summary slot must hold a summary of its column's type, each
        // inclusion slot a value of it and two booleans.
        let raw = |slot: usize| -> Option<&[u8]> {
            let Some(&Slot::Present { off, len, .. }) = slots.get(slot) else {
                return None;
            };
            data.get(off..off + len)
        };
        let mut slot = 0;
        for (i, col) in schema.columns.iter().enumerate() {
            if allnulls.get(i).copied().unwrap_or(false) {
                continue;
            }
            match stored[i] {
                // A summary of the column's type whose values fail to print still is one.
                Stored::Summary => {
                    summary_out(raw(slot)?, col, pl.big_endian)?.ok();
                }
                Stored::Inclusion => {
                    let flags_ok =
                        (1..3).all(|k| raw(slot + k).is_some_and(|b| b == [0] || b == [1]));
                    if !flags_ok || !value_reads(raw(slot)?, col, pl.big_endian) {
                        return None;
                    }
                }
                Stored::Minmax => {}
            }
            slot += stored[i].count();
        }
        Some(cols)
    };
    let guess = natts.min(MAX_GUESSED_COLUMNS);
    for mask in 0..(1u32 << guess) {
        let stored: Vec<Stored> = (0..natts)
            .map(|i| {
                if i < guess && mask & (1 << i) != 0 {
                    Stored::Inclusion
                } else {
                    Stored::Minmax
                }
            })
            .collect();
        if let Some(cols) = fits(&stored) {
            return Some((stored, cols));
        }
    }
    let guess = natts.min(MAX_GUESSED_SUMMARY_COLUMNS);
    for n in 0..3u32.pow(guess as u32) {
        let stored: Vec<Stored> = (0..natts)
            .map(|i| match (i < guess).then(|| n / 3u32.pow(i as u32) % 3) {
                Some(1) => Stored::Inclusion,
                Some(2) => Stored::Summary,
                _ => Stored::Minmax,
            })
            .collect();
        if !stored.contains(&Stored::Summary) {
            continue;
        }
        if let Some(cols) = fits(&stored) {
            return Some((stored, cols));
        }
    }
    None
}

/// `INDEX_MAX_KEYS`: the most columns an index has.
const INDEX_MAX_KEYS: usize = 32;

/// What one summary tuple says about the index's column count.
struct Shape<'a> {
    /// `bt_info`'s data offset.
    offset: usize,
    /// The null bitmap and the padding after it (bytes 5 to the offset),
    /// when `BRIN_NULLS_MASK` is set.
    bitmap: Option<&'a [u8]>,
    /// Whether the tuple stores no values.
    no_data: bool,
}

impl Shape<'_> {
    fn bit(&self, n: usize) -> bool {
        self.bitmap
            .and_then(|b| b.get(n / 8))
            .is_some_and(|b| b & (1 << (n % 8)) != 0)
    }

    /// Whether `brin_form_tuple` (or `brin_form_placeholder_tuple`) of an
    /// index of `natts` columns lays the tuple out like this: the data
    /// offset is MAXALIGN(SizeOfBrinTuple + BITMAPLEN(2 × natts)) with a
    /// bitmap, MAXALIGN(SizeOfBrinTuple) without; no bit is set past the
    /// 2 × natts bits; and it stores no values exactly when every column is
    /// all nulls (each other column stores at least one byte).
    fn fits(&self, natts: usize, pl: PageLayout) -> bool {
        let Some(bitmap) = self.bitmap else {
            return self.offset == pl.maxalign(SIZE_OF_BRIN_TUPLE) && !self.no_data;
        };
        let bits = 2 * natts;
        self.offset == pl.maxalign(SIZE_OF_BRIN_TUPLE + bits.div_ceil(8))
            && (bits..bitmap.len() * 8).all(|n| !self.bit(n))
            && (0..natts).all(|i| self.bit(i)) == self.no_data
    }
}

/// Without the column list: when the summary tuples of the page fit exactly
/// one column count, each item's `attnum`, `allnulls` and `hasnulls` as
/// `brin_page_items` shows them (values unknown, `None`). The count is read
/// from the null bitmaps (their length, the bits set, and the tuples that
/// store nothing because every column is all nulls: placeholders and empty
/// ranges); when they leave several counts (tuples without a bitmap leave
/// any), from the stored values: the counts for which one layout of column
/// patterns fills every tuple exactly ([`fitting_counts`]). A page whose
/// tuples still fit several counts gets none, and a note (`Info`) saying
/// which.
pub(crate) fn infer_columns(
    data: &[u8],
    items: &mut [IndexItem],
    pl: PageLayout,
    problems: &mut Vec<Problem>,
) {
    let mut shapes = Vec::new();
    let mut summaries = Vec::new();
    for item in items.iter() {
        let IndexBody::Brin {
            bt_info,
            has_nulls_mask,
            ..
        } = &item.body
        else {
            continue;
        };
        let base = usize::from(item.id.lp_off);
        let len = usize::from(item.id.lp_len);
        let offset = usize::from(bt_info & BRIN_OFFSET_MASK);
        if offset < SIZE_OF_BRIN_TUPLE || offset > len {
            return;
        }
        let bitmap = match has_nulls_mask {
            true => match data.get(base + SIZE_OF_BRIN_TUPLE..base + offset) {
                Some(b) => Some(b),
                None => return,
            },
            false => None,
        };
        if offset < len {
            let Some(values) = data.get(base + offset..base + len) else {
                return;
            };
            summaries.push(Summary {
                data: values,
                hoff: offset,
                bitmap,
            });
        }
        shapes.push(Shape {
            offset,
            bitmap,
            no_data: offset == len,
        });
    }
    if shapes.is_empty() {
        return;
    }
    let mut fitting: Vec<usize> = (1..=INDEX_MAX_KEYS)
        .filter(|&n| shapes.iter().all(|s| s.fits(n, pl)))
        .collect();
    if fitting.is_empty() {
        problems.push(column_count_note(format!(
            "the null bitmaps fit no column count from 1 to {INDEX_MAX_KEYS}"
        )));
        return;
    }
    if fitting.len() > 1 && !summaries.is_empty() {
        match fitting_counts(&summaries, pl) {
            Ok(counts) => fitting.retain(|n| counts.contains(n)),
            Err(why) => {
                problems.push(column_count_note(format!(
                    "the column count is not worked out from the stored values ({why})"
                )));
                return;
            }
        }
    }
    let natts = match fitting[..] {
        [natts] => natts,
        [] => {
            problems.push(column_count_note(
                "the stored values fit no layout of the column patterns blockscope tries"
                    .to_string(),
            ));
            return;
        }
        _ => {
            let counts: Vec<String> = fitting.iter().map(usize::to_string).collect();
            problems.push(column_count_note(format!(
                "the summary tuples fit {} columns alike",
                counts.join(", ")
            )));
            return;
        }
    };
    let mut shapes = shapes.iter();
    for item in items.iter_mut() {
        let IndexBody::Brin { columns, .. } = &mut item.body else {
            continue;
        };
        let Some(shape) = shapes.next() else {
            return;
        };
        *columns = (0..natts)
            .map(|i| {
                let allnulls = shape.bit(i);
                BrinColumn {
                    attnum: (i + 1) as u16,
                    allnulls,
                    // As brin_deform_tuple: false for an all-nulls column.
                    hasnulls: shape.bit(natts + i) && !allnulls,
                    value: None,
                    problems: Vec::new(),
                }
            })
            .collect();
    }
}

/// The field of [`column_count_note`]s: dropped when the column list is
/// given.
pub(crate) const COLUMN_COUNT_FIELD: &str = "brin column count";

/// Why the page's items get no `attnum`, `allnulls` and `hasnulls`.
fn column_count_note(why: String) -> Problem {
    Problem::new(
        Severity::Info,
        ProblemClass::Special,
        None,
        COLUMN_COUNT_FIELD,
        format!("{why}: attnum, allnulls and hasnulls are not given (--columns gives them)"),
    )
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
    // brin_deform_tuple leaves bv_hasnulls false for an all-nulls column
    // whatever its has-nulls bit says, and brin_page_items shows that.
    let hasnulls: Vec<bool> = (0..natts).map(|i| bit(natts + i) && !allnulls[i]).collect();

    let tuple_len = usize::from(item.id.lp_len);
    let chosen = choose_layout(schema, &allnulls, data, offset, tuple_len, pl);
    let owner = format!("item {}", item.id.lp);
    let mut budget = attrs::PAGE_VALUE_BUDGET;
    let (stored, values) = match &chosen {
        Some((stored, cols)) => (
            stored.clone(),
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
                "the stored values fit neither the minmax, inclusion, bloom nor minmax-multi \
                 layout of the given columns"
                    .to_string(),
            ));
            (vec![Stored::Minmax; natts], Vec::new())
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
            let texts: Vec<String> =
                next.by_ref()
                    .take(stored[i].count())
                    .map(|a| {
                        c.problems.extend(a.problems.iter().cloned());
                        if stored[i] == Stored::Summary {
                            let out = a.raw.as_deref().and_then(|raw| {
                                summary_out(raw, &schema.columns[i], pl.big_endian)
                            });
                            match out {
                                Some(Ok(t)) => return t,
                                Some(Err(e)) => c.problems.push(e),
                                None => {}
                            }
                            return "?".to_string();
                        }
                        a.value.as_ref().map_or("?".to_string(), |v| v.text.clone())
                    })
                    .collect();
            c.value = Some(format!("{{{}}}", texts.join(" .. ")));
        }
        columns.push(c);
    }
}

/// How two stored values of a fixed-length type compare, for minmax's
/// `min <= max`: the orders of the core types of each length.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Order {
    /// `"char"`, `bool`: unsigned bytes.
    U8,
    /// `int2`.
    I16,
    /// `int4`, `date`.
    I32,
    /// `oid`, `xid`.
    U32,
    /// `float4` (NaN above every number).
    F32,
    /// `int8`, `timestamp`, `timestamptz`, `time`, `money`.
    I64,
    /// `pg_lsn`, `xid8`.
    U64,
    /// `float8`.
    F64,
    /// `uuid`: bytes in order.
    Bytes,
}

impl Order {
    /// The value's length and its typalign in bytes on a 64-bit build.
    fn shape(self) -> (usize, usize) {
        match self {
            Order::U8 => (1, 1),
            Order::I16 => (2, 2),
            Order::I32 | Order::U32 | Order::F32 => (4, 4),
            Order::I64 | Order::U64 | Order::F64 => (8, 8),
            Order::Bytes => (16, 1),
        }
    }

    /// Whether `a <= b` (each `shape().0` bytes in the page's byte order).
    fn le(self, a: &[u8], b: &[u8], big: bool) -> bool {
        let word = |v: &[u8]| -> u64 {
            let mut w = 0u64;
            let mut push = |byte: u8| w = w << 8 | u64::from(byte);
            if big {
                v.iter().copied().for_each(&mut push);
            } else {
                v.iter().rev().copied().for_each(&mut push);
            }
            w
        };
        let float = |x: f64, y: f64| x.is_nan() && y.is_nan() || y.is_nan() || x <= y;
        let (x, y) = (word(a), word(b));
        match self {
            Order::U8 | Order::U32 | Order::U64 => x <= y,
            Order::I16 => x as u16 as i16 <= y as u16 as i16,
            Order::I32 => x as u32 as i32 <= y as u32 as i32,
            Order::I64 => x as i64 <= y as i64,
            Order::F32 => float(
                f64::from(f32::from_bits(x as u32)),
                f64::from(f32::from_bits(y as u32)),
            ),
            Order::F64 => float(f64::from_bits(x), f64::from_bits(y)),
            Order::Bytes => a <= b,
        }
    }
}

/// One column's stored values, as tried without the column list: the
/// opclass family and, for minmax and inclusion, the kind of value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    /// Minmax over a fixed-length type: two values, `min <= max`.
    Minmax(Order),
    /// Minmax over a varlena type (text, numeric, bytea…): two well-formed
    /// inline varlenas.
    MinmaxVarlena,
    /// Inclusion over a varlena type (inet, ranges): the union (at least 5
    /// bytes of data), then the `unmergeable` and `contains empty`
    /// booleans, each 0 or 1.
    InclusionVarlena,
    /// Inclusion over `box` (32 bytes, typalign `d`): high corner at or
    /// above the low one, then the two booleans.
    InclusionBox,
    /// Bloom: one `pg_brin_bloom_summary` varlena that reads as a filter.
    Bloom,
    /// Minmax-multi: one `pg_brin_minmax_multi_summary` varlena that reads
    /// as the serialized ranges of a type blockscope knows.
    MinmaxMulti,
}

/// The patterns tried for each column.
const PATTERNS: [Pattern; 14] = [
    Pattern::Minmax(Order::U8),
    Pattern::Minmax(Order::I16),
    Pattern::Minmax(Order::I32),
    Pattern::Minmax(Order::U32),
    Pattern::Minmax(Order::F32),
    Pattern::Minmax(Order::I64),
    Pattern::Minmax(Order::U64),
    Pattern::Minmax(Order::F64),
    Pattern::Minmax(Order::Bytes),
    Pattern::MinmaxVarlena,
    Pattern::InclusionVarlena,
    Pattern::InclusionBox,
    Pattern::Bloom,
    Pattern::MinmaxMulti,
];

/// Layouts kept at once while columns are added (distinct sets of
/// per-tuple offsets); a page that needs more gets no count.
const MAX_LAYOUTS: usize = 256;
/// Tuple steps and value bytes examined at most for one page.
const MAX_WORK: u64 = 1 << 22;

/// One summary tuple that stores values, as the fit sees it.
struct Summary<'a> {
    /// The tuple from its data offset to `lp_len`.
    data: &'a [u8],
    /// The data offset (MAXALIGNed, so alignment within `data` is the
    /// alignment on the page).
    hoff: usize,
    /// The null bitmap, when `BRIN_NULLS_MASK` is set: bit i set = column i
    /// all nulls, stored nothing.
    bitmap: Option<&'a [u8]>,
}

impl Summary<'_> {
    fn all_nulls(&self, column: usize) -> bool {
        self.bitmap
            .and_then(|b| b.get(column / 8))
            .is_some_and(|b| b & (1 << (column % 8)) != 0)
    }

    /// Whether a layout ending at `end` fills this tuple: `brin_form_tuple`
    /// makes it MAXALIGN(hoff + data) bytes, zeroed before the values are
    /// written, so what follows the last value is zeros.
    fn ends_at(&self, end: usize, pl: PageLayout) -> bool {
        end <= self.data.len()
            && pl.maxalign(self.hoff + end) == self.hoff + self.data.len()
            && self.data[end..].iter().all(|&b| b == 0)
    }

    /// `at` aligned to `align` bytes (this build's), the padding skipped
    /// being zeros.
    fn aligned(&self, at: usize, align: usize, pl: PageLayout) -> Option<usize> {
        let a = align.min(pl.max_align.max(1));
        let to = at.checked_add(a - 1)? / a * a;
        self.data
            .get(at..to)
            .filter(|pad| pad.iter().all(|&b| b == 0))
            .map(|_| to)
    }

    /// A fixed-length value at `at`: its bytes and where the next begins.
    fn fixed(&self, at: usize, len: usize, align: usize, pl: PageLayout) -> Option<(&[u8], usize)> {
        let from = self.aligned(at, align, pl)?;
        let v = self.data.get(from..from.checked_add(len)?)?;
        Some((v, from + len))
    }

    /// An inline varlena at `at` (a one-byte header where a non-zero byte
    /// is, else zeros to the 4-byte boundary and a four-byte header, as
    /// `att_align_pointer`): the whole varlena and where the next value
    /// begins. External (TOAST) pointers are never stored in a summary.
    fn varlena(&self, at: usize, pl: PageLayout) -> Option<(&[u8], usize)> {
        let from = match self.data.get(at) {
            Some(&b) if b != 0 => at,
            _ => self.aligned(at, 4, pl)?,
        };
        let rest = self.data.get(from..)?;
        let external = if pl.big_endian { 0x80 } else { 0x01 };
        if rest.first() == Some(&external) {
            return None;
        }
        let len = attrs::varlena_len(rest, pl.big_endian)?;
        Some((&rest[..len], from + len))
    }

    /// Where column `pattern` ends when it starts at `at`, `None` when this
    /// tuple cannot hold it there.
    fn step(&self, at: usize, pattern: Pattern, pl: PageLayout) -> Option<usize> {
        let flags = |at: usize| -> Option<usize> {
            let b = self.data.get(at..at + 2)?;
            (b[0] <= 1 && b[1] <= 1).then_some(at + 2)
        };
        let big = pl.big_endian;
        match pattern {
            Pattern::Minmax(order) => {
                let (len, align) = order.shape();
                let (min, at) = self.fixed(at, len, align, pl)?;
                let (max, at) = self.fixed(at, len, align, pl)?;
                order.le(min, max, big).then_some(at)
            }
            Pattern::MinmaxVarlena => {
                let (_, at) = self.varlena(at, pl)?;
                self.varlena(at, pl).map(|(_, at)| at)
            }
            Pattern::InclusionVarlena => {
                // inet's family, bits and address (6 or 18 bytes), a
                // range's type Oid and flags (5 or more).
                let (raw, at) = self.varlena(at, pl)?;
                let p = attrs::inline_varlena_payload(raw, big).ok()?;
                if p.len() >= 5 {
                    flags(at)
                } else {
                    None
                }
            }
            Pattern::InclusionBox => {
                let (b, at) = self.fixed(at, 32, 8, pl)?;
                let f = |i: usize| {
                    let w = &b[8 * i..8 * i + 8];
                    let mut a = [0u8; 8];
                    a.copy_from_slice(w);
                    f64::from_bits(if big {
                        u64::from_be_bytes(a)
                    } else {
                        u64::from_le_bytes(a)
                    })
                };
                // BOX: high.x, high.y, low.x, low.y.
                let sane = (0..4).all(|i| !f(i).is_nan()) && f(0) >= f(2) && f(1) >= f(3);
                if sane {
                    flags(at)
                } else {
                    None
                }
            }
            Pattern::Bloom | Pattern::MinmaxMulti => {
                let (raw, next) = self.varlena(at, pl)?;
                let p = attrs::inline_varlena_payload(raw, big).ok()?;
                let reads = match pattern {
                    Pattern::Bloom => bloom_out(&p, big).is_some(),
                    _ => multi_reads(&p, big),
                };
                reads.then_some(next)
            }
        }
    }
}

/// Whether `p` (a varlena's data) is a `SerializedRanges` of a type
/// blockscope knows by its Oid.
fn multi_reads(p: &[u8], big: bool) -> bool {
    let r = Reader::new(p, if big { Endian::Big } else { Endian::Little });
    let Some(ty) = r.peek_u32(0, "typid").ok().and_then(PgType::from_oid) else {
        return false;
    };
    let col = Column::of(None, TypeSpec { ty, typmod: None });
    minmax_multi_out(p, &col, big).is_some()
}

/// The column counts (1 to [`INDEX_MAX_KEYS`]) for which one column
/// pattern per column (the same for every tuple: they are one index's)
/// lays out the values of every tuple in `tuples` exactly; `Err` says why
/// none was worked out. The layouts are grown one column at a time, the
/// ones leaving every tuple at the same offsets kept once, so the work is
/// at most [`INDEX_MAX_KEYS`] × [`MAX_LAYOUTS`] × the patterns × the
/// tuples, and stops at [`MAX_WORK`].
fn fitting_counts(tuples: &[Summary], pl: PageLayout) -> Result<Vec<usize>, String> {
    let mut layouts: Vec<Vec<usize>> = vec![vec![0; tuples.len()]];
    let mut counts = Vec::new();
    let mut work = 0u64;
    for k in 1..=INDEX_MAX_KEYS {
        let mut next: std::collections::BTreeSet<Vec<usize>> = Default::default();
        for offsets in &layouts {
            for &pattern in &PATTERNS {
                let mut ends = Vec::with_capacity(tuples.len());
                for (t, &at) in tuples.iter().zip(offsets) {
                    if t.all_nulls(k - 1) {
                        ends.push(at);
                        continue;
                    }
                    work += 1;
                    match t.step(at, pattern, pl) {
                        Some(end) => {
                            work += (end - at) as u64;
                            ends.push(end);
                        }
                        None => break,
                    }
                }
                if work > MAX_WORK {
                    return Err("too many layouts to try".into());
                }
                // Zeros only, in every tuple that stores the column: the zero
                // padding after the values reads as such a column too (see
                // the module's notes). A column all nulls in every tuple
                // stores nothing, and is no such column.
                let stored = || {
                    tuples
                        .iter()
                        .zip(offsets.iter().zip(&ends))
                        .filter(|(t, _)| !t.all_nulls(k - 1))
                };
                let zeros = stored().next().is_some()
                    && stored().all(|(t, (&at, &end))| t.data[at..end].iter().all(|&b| b == 0));
                if ends.len() == tuples.len() && !zeros {
                    next.insert(ends);
                }
            }
        }
        if next.len() > MAX_LAYOUTS {
            return Err(format!("more than {MAX_LAYOUTS} layouts of {k} columns"));
        }
        if next
            .iter()
            .any(|ends| tuples.iter().zip(ends).all(|(t, &e)| t.ends_at(e, pl)))
        {
            counts.push(k);
        }
        if next.is_empty() {
            break;
        }
        layouts = next.into_iter().collect();
    }
    Ok(counts)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_arrays_quote_as_array_out_does() {
        let e = |v: &[&str]| text_array_out(&v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(e(&["1", "2"]), "{1,2}");
        assert_eq!(
            e(&["1 ... 5", "", "null", "a\"b"]),
            r#"{"1 ... 5","","null","a\"b"}"#
        );
    }

    #[test]
    fn a_bloom_filter_must_fill_its_varlena() {
        let mut p = vec![0, 0, 7, 0];
        p.extend(16u32.to_le_bytes());
        p.extend(3u32.to_le_bytes());
        p.extend([0b1011, 0]);
        assert_eq!(
            bloom_out(&p, false).as_deref(),
            Some("{mode: hashed  nhashes: 7  nbits: 16  nbits_set: 3}")
        );
        p.push(0);
        assert_eq!(bloom_out(&p, false), None);
    }

    fn layout() -> PageLayout {
        PageLayout {
            big_endian: false,
            max_align: 8,
        }
    }

    /// The tuples of PostgreSQL 15's `brin (a)` page after NULL rows: a
    /// has-nulls range (bitmap 0x02) and an all-nulls range whose has-nulls
    /// bit is set too (0x03, no data). One column or two fit them both.
    #[test]
    fn a_count_is_given_only_when_one_fits() {
        let has_nulls = Shape {
            offset: 8,
            bitmap: Some(&[0x02, 0, 0]),
            no_data: false,
        };
        let all_nulls = Shape {
            offset: 8,
            bitmap: Some(&[0x03, 0, 0]),
            no_data: true,
        };
        let fit = |shapes: &[&Shape]| -> Vec<usize> {
            (1..=INDEX_MAX_KEYS)
                .filter(|&n| shapes.iter().all(|s| s.fits(n, layout())))
                .collect()
        };
        assert_eq!(fit(&[&has_nulls, &all_nulls]), vec![1, 2]);
        // A placeholder of a three-column index: three all-nulls bits, which
        // two columns (all nulls, the first with nulls) would set too; a
        // tuple with its fifth bit set (past two columns' four) rules that out.
        let placeholder = Shape {
            offset: 8,
            bitmap: Some(&[0x07, 0, 0]),
            no_data: true,
        };
        assert_eq!(fit(&[&placeholder]), vec![2, 3]);
        let third = Shape {
            offset: 8,
            bitmap: Some(&[0x10, 0, 0]),
            no_data: false,
        };
        assert_eq!(fit(&[&placeholder, &third]), vec![3]);
        // No bitmap: any count; a bitmap whose length needs 13 or more columns.
        let plain = Shape {
            offset: 8,
            bitmap: None,
            no_data: false,
        };
        assert_eq!(fit(&[&plain]).len(), INDEX_MAX_KEYS);
        let wide = Shape {
            offset: 16,
            bitmap: Some(&[0; 11]),
            no_data: false,
        };
        assert_eq!(fit(&[&wide]), (13..=INDEX_MAX_KEYS).collect::<Vec<_>>());
    }

    fn summary(data: &[u8]) -> Summary<'_> {
        Summary {
            data,
            hoff: 8,
            bitmap: None,
        }
    }

    fn int4s(values: &[i32], len: usize) -> Vec<u8> {
        let mut d: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        d.resize(len, 0);
        d
    }

    /// One int4 minmax column: `{5 .. 9}` and `{-3 .. 70000}` in 8 bytes,
    /// `lp_len` 16; two int2 columns would need `5 <= 0`, an int8 column
    /// 16 bytes. The zeros MAXALIGN adds after the values are not a column.
    #[test]
    fn values_fix_the_count_when_one_layout_fills_every_tuple() {
        let a = int4s(&[5, 9], 8);
        let b = int4s(&[-3, 70000], 8);
        assert_eq!(
            fitting_counts(&[summary(&a), summary(&b)], layout()),
            Ok(vec![1])
        );
        // A second int4 column of zeros (min = max = 0) past MAXALIGN's
        // padding: not counted, and one column alone does not reach lp_len
        // 24, so no count at all rather than a wrong one.
        let z = int4s(&[5, 9, 0, 0], 16);
        assert_eq!(fitting_counts(&[summary(&z)], layout()), Ok(vec![]));
        // An int2 minmax `{5 .. 9}` and MAXALIGN's four zeros to lp_len 16:
        // one column, not the zeros as a second.
        let t = [5, 0, 9, 0, 0, 0, 0, 0];
        assert_eq!(fitting_counts(&[summary(&t)], layout()), Ok(vec![1]));
    }

    /// A second column all nulls in every tuple (bit 1 of the bitmap) stores
    /// nothing: one column with nulls reads the same, so both counts fit.
    #[test]
    fn a_column_all_nulls_everywhere_is_not_taken_for_padding() {
        let d = int4s(&[5, 9], 8);
        let t = Summary {
            data: &d,
            hoff: 8,
            bitmap: Some(&[0x02]),
        };
        assert_eq!(fitting_counts(&[t], layout()), Ok(vec![1, 2]));
    }

    /// `{1 .. 2}`, `{3 .. 4}` as two int4 minmax columns read as one int8
    /// minmax column too (2^32 + 1 <= 2^34 + 3): two counts fit, so the
    /// items get none and the page a note saying so.
    #[test]
    fn two_counts_fitting_give_none_and_a_note() {
        let d = int4s(&[1, 2, 3, 4], 16);
        let counts = fitting_counts(&[summary(&d)], layout()).unwrap();
        assert!(counts.contains(&1) && counts.contains(&2), "{counts:?}");
        let mut page = vec![0u8; 8192];
        page[8000..8004].copy_from_slice(&7u32.to_le_bytes());
        page[8004] = 8; // data at 8, no null bitmap
        page[8008..8024].copy_from_slice(&d);
        let mut items = vec![brin_item(8000, 24)];
        let mut problems = Vec::new();
        infer_columns(&page, &mut items, layout(), &mut problems);
        let IndexBody::Brin { columns, .. } = &items[0].body else {
            unreachable!()
        };
        assert!(columns.is_empty());
        assert_eq!(problems.len(), 1);
        assert_eq!(problems[0].field, COLUMN_COUNT_FIELD);
        assert_eq!(problems[0].severity, Severity::Info);
        assert!(
            problems[0].message.contains("fit 1, 2"),
            "{}",
            problems[0].message
        );
    }

    /// A bitmap of 24 bits set on a tuple that stores values: no count
    /// from 1 to 32 lays it out so (12 columns all nulls would store
    /// nothing), and the note says the bitmaps are why.
    #[test]
    fn bitmaps_fitting_no_count_give_a_note() {
        let mut page = vec![0u8; 8192];
        page[8004] = 0x88; // data at 8, BRIN_NULLS_MASK
        page[8005..8008].copy_from_slice(&[0xFF; 3]);
        page[8008..8016].copy_from_slice(&int4s(&[5, 9], 8));
        let mut item = brin_item(8000, 16);
        if let IndexBody::Brin { has_nulls_mask, .. } = &mut item.body {
            *has_nulls_mask = true;
        }
        let mut items = vec![item];
        let mut problems = Vec::new();
        infer_columns(&page, &mut items, layout(), &mut problems);
        assert_eq!(problems.len(), 1);
        assert!(
            problems[0]
                .message
                .starts_with("the null bitmaps fit no column count"),
            "{}",
            problems[0].message
        );
    }

    fn brin_item(lp_off: u16, lp_len: u16) -> IndexItem {
        IndexItem {
            id: ItemId::from_word(1, u32::from(lp_off) | 1 << 15 | u32::from(lp_len) << 17),
            header: None,
            body: IndexBody::Brin {
                blknum: 7,
                bt_info: 8,
                placeholder: false,
                empty: false,
                has_nulls_mask: false,
                data: Vec::new(),
                columns: Vec::new(),
            },
            tupstate: None,
            key_area: None,
            keys: None,
            verdict: String::new(),
        }
    }

    /// A hostile page: 200 tuples of 40 bytes of 0x03 (each byte an empty
    /// one-byte varlena, and equal integers of every width), which many
    /// layouts of many counts fill. The search stops at its caps (layouts
    /// kept, work) and the page gets a note, never a count; bounded by
    /// construction, whatever the bytes.
    #[test]
    fn a_hostile_page_stays_bounded() {
        let data = vec![0x03u8; 40];
        let tuples: Vec<Summary> = (0..200).map(|_| summary(&data)).collect();
        match fitting_counts(&tuples, layout()) {
            Err(why) => assert!(why.contains("layouts"), "{why}"),
            Ok(counts) => assert!(counts.len() != 1, "{counts:?}"),
        }
        let mut page = vec![0x03u8; 8192];
        let mut items = Vec::new();
        for i in 0..150u16 {
            let off = 24 + i * 48;
            page[usize::from(off)..usize::from(off) + 8].copy_from_slice(&[0, 0, 0, 0, 8, 0, 0, 0]);
            items.push(brin_item(off, 48));
        }
        let mut problems = Vec::new();
        infer_columns(&page, &mut items, layout(), &mut problems);
        assert!(items
            .iter()
            .all(|i| matches!(&i.body, IndexBody::Brin { columns, .. } if columns.is_empty())));
        assert_eq!(problems.len(), 1, "{problems:?}");
    }
}
