//! amcheck's checks without a server (`verify --deep`): the facts of one
//! page that the cross-page checks need, and the checks themselves, over
//! bytes; `verify::deep` reads the pages and hands them here.
//!
//! * btree (nbtree.h, amcheck's `bt_index_check` / `bt_index_parent_check`):
//!   per block a [`BtSummary`] (siblings, level, flags); sibling links
//!   symmetric, siblings on one level, every downlink pointing at a live
//!   page one level down, the metapage's root and fast root at their
//!   levels; keys in order within a page, bounded by the high key, and
//!   across siblings when the key types are known ([`KeyType`]);
//! * heap (amcheck's `verify_heapam`): xmin/xmax against pg_control's
//!   nextXid and oldestXid, HOT chains that end, redirects to heap-only
//!   tuples;
//! * visibility map (pg_visibility's `pg_check_visible`/`pg_check_frozen`):
//!   all-visible and all-frozen bits against PD_ALL_VISIBLE and the tuples;
//! * free space map: a heap block's leaf value against its free space.
//!
//! Everything is read through checked slices: no panic, no unbounded loop.

use std::cmp::Ordering;

use crate::model::postgres::block_id;
use crate::model::postgres::flags::{
    BTP_DELETED, BTP_HALF_DEAD, BTP_INCOMPLETE_SPLIT, BTP_LEAF, BTP_META, BTP_ROOT, BTREE_MAGIC,
    BT_IS_POSTING, BT_OFFSET_MASK, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE, HEAP_XMAX_INVALID,
    HEAP_XMAX_IS_MULTI, HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_FROZEN,
    INDEX_ALT_TID_MASK, INDEX_NULL_MASK, INDEX_SIZE_MASK, LP_DEAD, LP_NORMAL, LP_REDIRECT,
    LP_UNUSED, PD_ALL_VISIBLE, P_NONE,
};
use crate::model::postgres::types::{PgType, Schema};
use crate::model::postgres::SIZE_OF_PAGE_HEADER;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::Endian;

const LE: Endian = Endian::Little;

fn u16_at(p: &[u8], at: usize) -> Option<u16> {
    LE.read_u16(p.get(at..at.checked_add(2)?)?)
}

fn u32_at(p: &[u8], at: usize) -> Option<u32> {
    LE.read_u32(p.get(at..at.checked_add(4)?)?)
}

/// One `ItemIdData`.
#[derive(Clone, Copy, Debug)]
struct Lp {
    off: usize,
    flags: u8,
    len: usize,
}

/// The line pointers of a page (at most one per 4 bytes of the page).
fn line_pointers(page: &[u8]) -> Vec<Lp> {
    let lower = usize::from(u16_at(page, 12).unwrap_or(0)).min(page.len());
    let n = lower.saturating_sub(SIZE_OF_PAGE_HEADER) / 4;
    (0..n)
        .filter_map(|i| u32_at(page, SIZE_OF_PAGE_HEADER + 4 * i))
        .map(|w| Lp {
            off: (w & 0x7FFF) as usize,
            flags: ((w >> 15) & 3) as u8,
            len: (w >> 17) as usize,
        })
        .collect()
}

fn problem(
    severity: Severity,
    class: ProblemClass,
    offset: Option<usize>,
    field: impl Into<String>,
    message: impl Into<String>,
) -> Problem {
    Problem::new(severity, class, offset, field, message)
}

// ---------------------------------------------------------------- btree ----

const SIZE_OF_BT_OPAQUE: usize = 16;

/// What the cross-page btree checks need of one block: a few integers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct BtSummary {
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// btpo_level (before PostgreSQL 14 the same word of a deleted page is btpo.xact).
    pub btpo_level: u32,
    pub btpo_flags: u16,
}

impl BtSummary {
    fn deleted(&self) -> bool {
        self.btpo_flags & BTP_DELETED != 0
    }
    fn meta(&self) -> bool {
        self.btpo_flags & BTP_META != 0
    }
    /// In the tree: neither the metapage nor a deleted page.
    fn live(&self) -> bool {
        !self.deleted() && !self.meta()
    }
    fn half_dead(&self) -> bool {
        self.btpo_flags & BTP_HALF_DEAD != 0
    }
    /// `P_IGNORE`: deleted or half-dead, skipped by scans (and by amcheck).
    pub(crate) fn ignored(&self) -> bool {
        self.deleted() || self.half_dead()
    }
}

/// The special space of a btree page, `None` when the page has none.
pub(crate) fn bt_summary(page: &[u8]) -> Option<BtSummary> {
    let special = usize::from(u16_at(page, 16)?);
    if special.checked_add(SIZE_OF_BT_OPAQUE)? != page.len() {
        return None;
    }
    Some(BtSummary {
        btpo_prev: u32_at(page, special)?,
        btpo_next: u32_at(page, special + 4)?,
        btpo_level: u32_at(page, special + 8)?,
        btpo_flags: u16_at(page, special + 12)?,
    })
}

/// `BTMetaPageData`'s root fields.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BtMeta {
    pub btm_root: u32,
    pub btm_level: u32,
    pub btm_fastroot: u32,
    pub btm_fastlevel: u32,
}

/// The metapage's root fields, `None` unless block 0 is a btree metapage.
pub(crate) fn bt_meta(page: &[u8]) -> Option<BtMeta> {
    let at = SIZE_OF_PAGE_HEADER;
    (u32_at(page, at)? == BTREE_MAGIC).then_some(())?;
    Some(BtMeta {
        btm_root: u32_at(page, at + 8)?,
        btm_level: u32_at(page, at + 12)?,
        btm_fastroot: u32_at(page, at + 16)?,
        btm_fastlevel: u32_at(page, at + 20)?,
    })
}

/// A finding of the cross-page checks: the block it names, and what.
pub(crate) type Finding = (u64, Problem);

fn bt(blkno: u64, offset: Option<usize>, field: impl Into<String>, message: String) -> Finding {
    (
        blkno,
        problem(Severity::Error, ProblemClass::Btree, offset, field, message),
    )
}

/// Sibling links, levels along a level, and the metapage's roots, over the
/// summaries of one index file (`pages[i]` is block `i`; `None`: not a btree page).
pub(crate) fn btree_structure(meta: Option<&BtMeta>, pages: &[Option<BtSummary>]) -> Vec<Finding> {
    let mut out = Vec::new();
    let get = |b: u32| pages.get(b as usize).copied().flatten();
    let n = pages.len() as u64;
    for (i, s) in pages.iter().enumerate() {
        let Some(s) = s else { continue };
        if !s.live() {
            continue;
        }
        let blkno = i as u64;
        let special = None;
        if s.btpo_next != P_NONE {
            match get(s.btpo_next) {
                _ if u64::from(s.btpo_next) >= n => out.push(bt(
                    blkno,
                    special,
                    "btpo_next",
                    format!(
                        "right sibling {} of block {blkno} is past the end of the index ({n} blocks)",
                        s.btpo_next
                    ),
                )),
                None => out.push(bt(
                    blkno,
                    special,
                    "btpo_next",
                    format!("right sibling {} of block {blkno} is not a btree page", s.btpo_next),
                )),
                Some(r) if !r.live() => out.push(bt(
                    blkno,
                    special,
                    "btpo_next",
                    format!(
                        "right sibling {} of block {blkno} is {}: a live page's sibling link must skip it",
                        s.btpo_next,
                        if r.meta() { "the metapage" } else { "a deleted page" }
                    ),
                )),
                Some(r) => {
                    if r.btpo_prev != blkno as u32 {
                        out.push(bt(
                            blkno,
                            special,
                            "btpo_next",
                            format!(
                                "left link/right link pair not in agreement: block {blkno}'s \
                                 right sibling is {}, whose left sibling is {}",
                                s.btpo_next, r.btpo_prev
                            ),
                        ));
                    }
                    if r.btpo_level != s.btpo_level {
                        out.push(bt(
                            blkno,
                            special,
                            "btpo_level",
                            format!(
                                "right sibling {} of block {blkno} is on level {}, not on this \
                                 block's level {}",
                                s.btpo_next, r.btpo_level, s.btpo_level
                            ),
                        ));
                    }
                }
            }
        }
        if s.btpo_prev != P_NONE {
            match get(s.btpo_prev) {
                _ if u64::from(s.btpo_prev) >= n => out.push(bt(
                    blkno,
                    special,
                    "btpo_prev",
                    format!(
                        "left sibling {} of block {blkno} is past the end of the index ({n} blocks)",
                        s.btpo_prev
                    ),
                )),
                Some(l) if l.live() && l.btpo_next != blkno as u32 => out.push(bt(
                    blkno,
                    special,
                    "btpo_prev",
                    format!(
                        "left link/right link pair not in agreement: block {blkno}'s left \
                         sibling is {}, whose right sibling is {}",
                        s.btpo_prev, l.btpo_next
                    ),
                )),
                _ => {}
            }
        }
    }
    if let Some(m) = meta {
        for (field, root, level, want_root_flag) in [
            ("btm_root", m.btm_root, m.btm_level, true),
            ("btm_fastroot", m.btm_fastroot, m.btm_fastlevel, false),
        ] {
            if root == P_NONE {
                continue;
            }
            let at = Some(SIZE_OF_PAGE_HEADER + if want_root_flag { 8 } else { 16 });
            match get(root) {
                _ if u64::from(root) >= n => out.push(bt(
                    0,
                    at,
                    field,
                    format!("{field} {root} is past the end of the index ({n} blocks)"),
                )),
                Some(r) if r.live() => {
                    if r.btpo_level != level {
                        out.push(bt(
                            0,
                            at,
                            field,
                            format!(
                                "{field} {root} is on level {}, the metapage says level {level}",
                                r.btpo_level
                            ),
                        ));
                    }
                    if want_root_flag && r.btpo_flags & BTP_ROOT == 0 {
                        out.push(bt(
                            0,
                            at,
                            field,
                            format!("btm_root {root} is not flagged BTP_ROOT"),
                        ));
                    }
                }
                _ => out.push(bt(
                    0,
                    at,
                    field,
                    format!("{field} {root} is not a live btree page"),
                )),
            }
        }
    }
    out
}

/// A key column type whose order `--deep` can compare: integers by value,
/// text in the C collation (byte order, shorter first on a common prefix).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyType {
    Int2,
    Int4,
    Int8,
    Oid,
    /// text, varchar, bpchar: compared as the C collation does.
    Text,
}

/// The key types of `schema`, or why it has one `--deep` cannot compare.
pub(crate) fn key_types(schema: &Schema) -> Result<Vec<KeyType>, String> {
    schema
        .columns
        .iter()
        .map(|c| match c.ty.as_ref().map(|t| &t.ty) {
            Some(PgType::Int2) => Ok(KeyType::Int2),
            Some(PgType::Int4) => Ok(KeyType::Int4),
            Some(PgType::Int8) => Ok(KeyType::Int8),
            Some(PgType::Oid) => Ok(KeyType::Oid),
            Some(PgType::Text | PgType::Varchar | PgType::Bpchar) => Ok(KeyType::Text),
            Some(t) => Err(format!(
                "--deep compares keys of int2, int4, int8, oid and text (C collation) columns, \
                 not {t:?}"
            )),
            None => Err("--deep needs each key column's type".to_string()),
        })
        .collect()
}

/// One key column's value; `None` in a [`Key`]: null or not comparable
/// (compressed or external), so comparisons stop there.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum KeyValue {
    Int(i64),
    Bytes(Vec<u8>),
}

/// The key attributes an index tuple holds (a truncated pivot holds fewer).
pub(crate) type Key = Vec<Option<KeyValue>>;

/// `a` against `b` over the attributes both hold; `None` when a null or an
/// undecodable value comes first. Missing (truncated) attributes compare equal.
pub(crate) fn compare(a: &Key, b: &Key) -> Option<Ordering> {
    for (x, y) in a.iter().zip(b) {
        match x.as_ref()?.cmp(y.as_ref()?) {
            Ordering::Equal => continue,
            o => return Some(o),
        }
    }
    Some(Ordering::Equal)
}

/// Text form of a key for messages: `(42, 'abc')`.
pub(crate) fn key_text(k: &Key) -> String {
    let parts: Vec<String> = k
        .iter()
        .map(|v| match v {
            Some(KeyValue::Int(i)) => i.to_string(),
            Some(KeyValue::Bytes(b)) => {
                let s = String::from_utf8_lossy(&b[..b.len().min(40)]);
                let more = if b.len() > 40 { "…" } else { "" };
                format!("'{}{more}'", s.escape_debug())
            }
            None => "?".to_string(),
        })
        .collect();
    format!("({})", parts.join(", "))
}

fn align(at: usize, a: usize) -> usize {
    at.div_ceil(a) * a
}

/// The key of the index tuple at `off` (`len` bytes) of `page`.
fn index_key(page: &[u8], off: usize, len: usize, types: &[KeyType]) -> Key {
    let mut key = Vec::new();
    let end = off.saturating_add(len).min(page.len());
    let (Some(posid), Some(t_info)) = (u16_at(page, off + 4), u16_at(page, off + 6)) else {
        return key;
    };
    let size = usize::from(t_info & INDEX_SIZE_MASK).min(end.saturating_sub(off));
    let end = off + size;
    // A pivot tuple (or a pre-13 truncated one) says how many attributes it keeps.
    let natts = if t_info & INDEX_ALT_TID_MASK != 0 && posid & BT_IS_POSTING == 0 {
        usize::from(posid & BT_OFFSET_MASK).min(types.len())
    } else {
        types.len()
    };
    let nulls = t_info & INDEX_NULL_MASK != 0;
    let mut at = off + if nulls { 16 } else { 8 };
    for (i, ty) in types.iter().take(natts).enumerate() {
        if nulls {
            let byte = page.get(off + 8 + i / 8).copied().unwrap_or(0);
            if byte & (1 << (i % 8)) == 0 {
                key.push(None);
                continue;
            }
        }
        let fixed = |width: usize, at: &mut usize| -> Option<&[u8]> {
            let start = align(*at, width);
            let bytes = page.get(start..start.checked_add(width)?.min(end))?;
            *at = start + width;
            (bytes.len() == width).then_some(bytes)
        };
        let value = match ty {
            KeyType::Int2 => fixed(2, &mut at)
                .and_then(|b| LE.read_i16(b))
                .map(i64::from),
            KeyType::Int4 => fixed(4, &mut at)
                .and_then(|b| LE.read_i32(b))
                .map(i64::from),
            KeyType::Oid => fixed(4, &mut at)
                .and_then(|b| LE.read_u32(b))
                .map(i64::from),
            KeyType::Int8 => fixed(8, &mut at).and_then(|b| LE.read_i64(b)),
            KeyType::Text => {
                // A short (1-byte header) varlena is never padded; a 4-byte one is int-aligned.
                if page.get(at).copied().unwrap_or(0) == 0 {
                    at = align(at, 4);
                }
                let Some(&b0) = page.get(at) else {
                    key.push(None);
                    break;
                };
                if b0 & 1 == 1 {
                    let total = usize::from(b0 >> 1);
                    if b0 == 1 || total == 0 || at + total > end {
                        key.push(None);
                        break; // external or damaged: nothing further is placed
                    }
                    let v = page[at + 1..at + total].to_vec();
                    at += total;
                    key.push(Some(KeyValue::Bytes(v)));
                    continue;
                }
                let Some(word) = u32_at(page, at) else {
                    key.push(None);
                    break;
                };
                let total = (word >> 2) as usize;
                if total < 4 || at + total > end {
                    key.push(None);
                    break;
                }
                let compressed = word & 3 == 2;
                let v = page[at + 4..at + total].to_vec();
                at += total;
                key.push((!compressed).then_some(KeyValue::Bytes(v)));
                continue;
            }
        };
        match value {
            Some(v) => key.push(Some(KeyValue::Int(v))),
            None => {
                key.push(None);
                break;
            }
        }
    }
    key
}

/// The items of a live btree page: which is the high key, which are data.
struct BtItems {
    high_key: Option<(u16, Lp)>,
    data: Vec<(u16, Lp)>,
}

fn bt_items(page: &[u8], s: &BtSummary) -> BtItems {
    let lps = line_pointers(page);
    let mut items = lps
        .into_iter()
        .enumerate()
        .map(|(i, lp)| ((i + 1) as u16, lp))
        .filter(|(_, lp)| lp.flags != LP_UNUSED && lp.len >= 8);
    let high_key = if s.btpo_next != P_NONE {
        items.next()
    } else {
        None
    };
    BtItems {
        high_key,
        data: items.collect(),
    }
}

/// The first and last data keys of a leaf page (for the sibling check).
pub(crate) fn bt_edge_keys(page: &[u8], types: &[KeyType]) -> Option<(Key, Key)> {
    let s = bt_summary(page)?;
    if !s.live() || s.btpo_flags & BTP_LEAF == 0 {
        return None;
    }
    let items = bt_items(page, &s);
    let first = items.data.first()?;
    let last = items.data.last()?;
    Some((
        index_key(page, first.1.off, first.1.len, types),
        index_key(page, last.1.off, last.1.len, types),
    ))
}

/// The checks of one live btree page's items: downlinks (internal pages)
/// against the file's summaries, and with key types, keys in order and
/// bounded by the high key. Findings name block `blkno`.
pub(crate) fn btree_items(
    page: &[u8],
    blkno: u64,
    pages: &[Option<BtSummary>],
    types: Option<&[KeyType]>,
) -> Vec<Finding> {
    let mut out = Vec::new();
    let Some(s) = bt_summary(page) else {
        return out;
    };
    if !s.live() || s.btpo_flags & BTP_HALF_DEAD != 0 {
        return out;
    }
    let leaf = s.btpo_flags & BTP_LEAF != 0;
    let items = bt_items(page, &s);
    if !leaf {
        for (n, lp) in &items.data {
            let at = lp.off;
            let (Some(hi), Some(lo)) = (u16_at(page, at), u16_at(page, at + 2)) else {
                continue;
            };
            let child = block_id(hi, lo);
            let field = format!("item {n} t_tid");
            let msg = match pages.get(child as usize).copied() {
                None => Some(format!(
                    "downlink of item {n} points to block {child}, past the end of the index ({} blocks)",
                    pages.len()
                )),
                Some(None) => Some(format!(
                    "downlink of item {n} points to block {child}, which is not a btree page"
                )),
                Some(Some(c)) if c.deleted() => Some(format!(
                    "downlink to deleted page found: item {n} points to block {child}"
                )),
                Some(Some(c)) if c.meta() => Some(format!(
                    "downlink of item {n} points to the metapage (block {child})"
                )),
                Some(Some(c)) if c.btpo_level.checked_add(1) != Some(s.btpo_level) => Some(format!(
                    "downlink of item {n} points to block {child} on level {}, not one level \
                     below this block's level {}",
                    c.btpo_level, s.btpo_level
                )),
                _ => None,
            };
            if let Some(m) = msg {
                out.push(bt(blkno, Some(at), field, m));
            }
        }
    }
    let Some(types) = types else {
        return out;
    };
    // Text keys are compared in the C collation only: say so when they disagree.
    let severity = if types.contains(&KeyType::Text) {
        Severity::Warning
    } else {
        Severity::Error
    };
    let collation = if types.contains(&KeyType::Text) {
        " (text compared in the C collation)"
    } else {
        ""
    };
    // The first data item of an internal page is "minus infinity": no key.
    let data: Vec<(u16, Lp, Key)> = items
        .data
        .iter()
        .skip(usize::from(!leaf))
        .map(|(n, lp)| (*n, *lp, index_key(page, lp.off, lp.len, types)))
        .collect();
    for pair in data.windows(2) {
        let ((n1, _, k1), (n2, lp2, k2)) = (&pair[0], &pair[1]);
        if compare(k1, k2) == Some(Ordering::Greater) {
            out.push((
                blkno,
                problem(
                    severity,
                    ProblemClass::Btree,
                    Some(lp2.off),
                    format!("item {n2}"),
                    format!(
                        "item order invariant violated: item {n1} {} sorts after item {n2} {}{collation}",
                        key_text(k1),
                        key_text(k2)
                    ),
                ),
            ));
        }
    }
    if let Some((hn, hlp)) = items.high_key {
        let high = index_key(page, hlp.off, hlp.len, types);
        for (n, lp, k) in &data {
            if compare(k, &high) == Some(Ordering::Greater) {
                out.push((
                    blkno,
                    problem(
                        severity,
                        ProblemClass::Btree,
                        Some(lp.off),
                        format!("item {n}"),
                        format!(
                            "high key invariant violated: item {n} {} sorts after the high key \
                             (item {hn}) {}{collation}",
                            key_text(k),
                            key_text(&high)
                        ),
                    ),
                ));
            }
        }
    }
    out
}

/// The child blocks a live internal page's downlinks point at (its data
/// items' t_tid blocks), for the missing-downlink check.
pub(crate) fn bt_downlinks(page: &[u8]) -> Vec<u32> {
    let Some(s) = bt_summary(page) else {
        return Vec::new();
    };
    if !s.live() || s.btpo_flags & BTP_LEAF != 0 {
        return Vec::new();
    }
    bt_items(page, &s)
        .data
        .iter()
        .filter_map(|(_, lp)| {
            let hi = u16_at(page, lp.off)?;
            let lo = u16_at(page, lp.off + 2)?;
            Some(block_id(hi, lo))
        })
        .collect()
}

/// A half-dead leaf's top parent link: its high key's t_tid block
/// (`BTreeTupleGetTopParent`); `Some(None)` for InvalidBlockNumber (the leaf
/// is itself the top of the subtree being deleted), `None` when the page
/// is no half-dead leaf or has no high key.
pub(crate) fn bt_top_parent(page: &[u8]) -> Option<Option<u32>> {
    let s = bt_summary(page)?;
    if !s.live() || !s.half_dead() || s.btpo_flags & BTP_LEAF == 0 {
        return None;
    }
    let (_, lp) = bt_items(page, &s).high_key?;
    let hi = u16_at(page, lp.off)?;
    let lo = u16_at(page, lp.off + 2)?;
    let block = block_id(hi, lo);
    Some((block != u32::MAX).then_some(block))
}

/// amcheck's missing-downlink check (`bt_index_parent_check`), over the
/// summaries and what the internal pages point at (`has_downlink[i]`: some
/// live internal page has a downlink to block `i`) and the top parent links
/// of the half-dead leaves (`top_parents`: block, link).
///
/// As amcheck: the root needs none; the right half of an incomplete split
/// (its left sibling flagged BTP_INCOMPLETE_SPLIT) has none yet; a half-dead
/// leaf has none (the first stage of page deletion removed it) and is
/// reported as a note; an internal page between such a leaf and the parent
/// it names as its top parent has none either. Any other page of the tree
/// without a downlink is an error.
pub(crate) fn btree_missing_downlinks(
    pages: &[Option<BtSummary>],
    has_downlink: &[bool],
    top_parents: &[(u64, Option<u32>)],
) -> Vec<Finding> {
    let mut out = Vec::new();
    let get = |b: u32| pages.get(b as usize).copied().flatten();
    for (blkno, link) in top_parents {
        let removed = match link {
            None => {
                "its downlink (the leaf is itself the top of the subtree being removed)".to_string()
            }
            Some(b) => format!(
                "the downlink to block {b}, its top parent (BTreeTupleGetTopParent): the \
                 internal page at the top of the subtree being removed with it"
            ),
        };
        out.push((
            *blkno,
            problem(
                Severity::Info,
                ProblemClass::Btree,
                None,
                "btpo_flags",
                format!(
                    "half-dead leaf (BTP_HALF_DEAD): the first stage of page deletion emptied it \
                     and removed {removed}; the second (unlinking it from its siblings) has not \
                     run: a VACUUM was interrupted. The next VACUUM finishes it; scans and \
                     amcheck skip it"
                ),
            ),
        ));
    }
    for (i, s) in pages.iter().enumerate() {
        let Some(s) = s else { continue };
        if !s.live() || s.half_dead() || s.btpo_flags & BTP_ROOT != 0 {
            continue;
        }
        if has_downlink.get(i).copied().unwrap_or(false) {
            continue;
        }
        let blkno = i as u64;
        // The right half of an incomplete split.
        if s.btpo_prev != P_NONE
            && get(s.btpo_prev).is_some_and(|l| l.btpo_flags & BTP_INCOMPLETE_SPLIT != 0)
        {
            continue;
        }
        let leaf = s.btpo_flags & BTP_LEAF != 0;
        if !leaf
            && top_parents
                .iter()
                .any(|(_, link)| *link == Some(blkno as u32))
        {
            continue;
        }
        out.push(bt(
            blkno,
            None,
            "downlink",
            format!(
                "{} index block lacks downlink: no page of level {} points at block {blkno}",
                if leaf { "leaf" } else { "internal" },
                s.btpo_level.saturating_add(1)
            ),
        ));
    }
    out
}

/// This leaf's last key against its right sibling's first (amcheck's
/// cross-page order check); `last` of block `blkno`, `first` of `right`.
pub(crate) fn btree_sibling_order(
    blkno: u64,
    right: u32,
    last: &Key,
    first: &Key,
    types: &[KeyType],
) -> Option<Finding> {
    if compare(last, first) != Some(Ordering::Greater) {
        return None;
    }
    let text = types.contains(&KeyType::Text);
    Some((
        blkno,
        problem(
            if text {
                Severity::Warning
            } else {
                Severity::Error
            },
            ProblemClass::Btree,
            None,
            "btpo_next",
            format!(
                "cross page item order invariant violated: the last key {} of block {blkno} sorts \
                 after the first key {} of its right sibling {right}{}",
                key_text(last),
                key_text(first),
                if text {
                    " (text compared in the C collation)"
                } else {
                    ""
                }
            ),
        ),
    ))
}

// ----------------------------------------------------------------- heap ----

const FIRST_NORMAL_XID: u32 = 3;

/// What pg_control says about transaction ids.
#[derive(Clone, Copy, Debug)]
pub(crate) struct XidHorizon {
    /// checkPointCopy.nextXid (its 32-bit xid).
    pub next_xid: u32,
    /// checkPointCopy.oldestXid.
    pub oldest_xid: u32,
    /// The cluster was shut down cleanly: nextXid is final, so a later xid
    /// is corruption; otherwise it may be a transaction after the checkpoint.
    pub final_: bool,
}

/// The visibility map's bits for a heap block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct VmBits {
    pub all_visible: bool,
    pub all_frozen: bool,
}

/// What the per-page heap checks get besides the page.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct HeapContext {
    pub xids: Option<XidHorizon>,
    pub vm: Option<VmBits>,
}

/// One heap tuple header's fields that the checks read.
#[derive(Clone, Copy, Debug)]
struct Tup {
    xmin: u32,
    xmax: u32,
    ctid_block: u32,
    ctid_offset: u16,
    infomask2: u16,
    infomask: u16,
}

fn tuple(page: &[u8], lp: &Lp) -> Option<Tup> {
    if lp.flags != LP_NORMAL || lp.len < 23 || lp.off.checked_add(lp.len)? > page.len() {
        return None;
    }
    let at = lp.off;
    Some(Tup {
        xmin: u32_at(page, at)?,
        xmax: u32_at(page, at + 4)?,
        ctid_block: LE.read_block_id(page.get(at.checked_add(12)?..)?)?,
        ctid_offset: u16_at(page, at + 16)?,
        infomask2: u16_at(page, at + 18)?,
        infomask: u16_at(page, at + 20)?,
    })
}

/// `TransactionIdPrecedes` for normal xids (modulo 2^32).
fn precedes(a: u32, b: u32) -> bool {
    (a.wrapping_sub(b) as i32) < 0
}

fn heap_problem(
    class: ProblemClass,
    severity: Severity,
    at: usize,
    field: String,
    msg: String,
) -> Problem {
    problem(severity, class, Some(at), field, msg)
}

/// amcheck's and pg_visibility's per-page heap checks of block `blkno`.
pub(crate) fn heap_page(page: &[u8], blkno: u64, ctx: &HeapContext) -> Vec<Problem> {
    let mut out = Vec::new();
    let lps = line_pointers(page);
    let n = lps.len();
    let tuples: Vec<Option<Tup>> = lps.iter().map(|lp| tuple(page, lp)).collect();
    let lp_at = |i: usize| SIZE_OF_PAGE_HEADER + 4 * i;

    // xmin/xmax against pg_control.
    if let Some(h) = ctx.xids {
        let severity = if h.final_ {
            Severity::Error
        } else {
            Severity::Info
        };
        for (i, t) in tuples.iter().enumerate() {
            let Some(t) = t else { continue };
            let at = lps[i].off;
            let frozen = t.infomask & HEAP_XMIN_FROZEN == HEAP_XMIN_FROZEN;
            let mut check = |field: &str, xid: u32, off: usize| {
                if xid < FIRST_NORMAL_XID {
                    return;
                }
                let lp = i + 1;
                if !precedes(xid, h.next_xid) {
                    out.push(heap_problem(
                        ProblemClass::Tuple,
                        severity,
                        at + off,
                        format!("tuple {lp} {field}"),
                        format!(
                            "{field} {xid} equals or exceeds next valid transaction ID {} \
                             (pg_control's nextXid{})",
                            h.next_xid,
                            if h.final_ {
                                ""
                            } else {
                                "; the cluster was not shut down cleanly, so it may be newer"
                            }
                        ),
                    ));
                } else if precedes(xid, h.oldest_xid) {
                    out.push(heap_problem(
                        ProblemClass::Tuple,
                        severity,
                        at + off,
                        format!("tuple {lp} {field}"),
                        format!(
                            "{field} {xid} precedes oldest valid transaction ID {} \
                             (pg_control's oldestXid)",
                            h.oldest_xid
                        ),
                    ));
                }
            };
            if !frozen {
                check("t_xmin", t.xmin, 0);
            }
            if t.infomask & (HEAP_XMAX_INVALID | HEAP_XMAX_IS_MULTI) == 0 {
                check("t_xmax", t.xmax, 4);
            }
        }
    }

    // Redirects: to a heap-only tuple in range.
    for (i, lp) in lps.iter().enumerate() {
        if lp.flags != LP_REDIRECT {
            continue;
        }
        let target = lp.off;
        let msg = if target == 0 || target > n {
            Some(format!(
                "line pointer redirection to item at offset {target} exceeds maximum offset {n}"
            ))
        } else {
            let t = &lps[target - 1];
            match t.flags {
                LP_UNUSED => Some(format!(
                    "line pointer redirection to unused item at offset {target}"
                )),
                LP_REDIRECT => Some(format!(
                    "redirected line pointer points to another redirected line pointer at offset {target}"
                )),
                LP_NORMAL => match tuples[target - 1] {
                    Some(tt) if tt.infomask2 & HEAP_ONLY_TUPLE == 0 => Some(format!(
                        "redirected line pointer points to a non-heap-only tuple at offset {target}"
                    )),
                    _ => None,
                },
                _ => None,
            }
        };
        if let Some(m) = msg {
            out.push(heap_problem(
                ProblemClass::LinePointer,
                Severity::Error,
                lp_at(i),
                format!("lp[{}]", i + 1),
                m,
            ));
        }
    }

    // HOT chains on the page: each walk ends (no cycle), and a HOT update
    // whose next version was written by the updater leads to a heap-only tuple.
    let next_of = |i: usize| -> Option<usize> {
        let t = tuples[i]?;
        if t.infomask2 & HEAP_HOT_UPDATED == 0
            || t.infomask & HEAP_XMAX_INVALID != 0
            || u64::from(t.ctid_block) != blkno
        {
            return None;
        }
        let o = usize::from(t.ctid_offset);
        (o != i + 1).then_some(o)
    };
    let mut reported_cycle = vec![false; n];
    for start in 0..n {
        // Chain roots: a redirect's target, or a normal tuple that is not heap-only.
        let root = match lps[start].flags {
            LP_REDIRECT => {
                let t = lps[start].off;
                if t == 0 || t > n {
                    continue;
                }
                t - 1
            }
            LP_NORMAL => match tuples[start] {
                Some(t) if t.infomask2 & HEAP_ONLY_TUPLE == 0 => start,
                _ => continue,
            },
            _ => continue,
        };
        let mut seen = vec![false; n];
        let mut cur = root;
        seen[cur] = true;
        for _ in 0..n {
            let Some(next) = next_of(cur) else { break };
            let at = lps[cur].off + 12;
            if next == 0 || next > n {
                out.push(heap_problem(
                    ProblemClass::Tuple,
                    Severity::Error,
                    at,
                    format!("tuple {} t_ctid", cur + 1),
                    format!(
                        "HOT chain from item {}: t_ctid points to offset {next}, past the \
                         {n} line pointers of the page",
                        start + 1
                    ),
                ));
                break;
            }
            let j = next - 1;
            let (Some(nt), Some(cur_t)) = (tuples[j], tuples[cur]) else {
                break;
            };
            if nt.xmin != cur_t.xmax {
                break; // not the updater's version: the chain ended (pruned, aborted)
            }
            if nt.infomask2 & HEAP_ONLY_TUPLE == 0 {
                out.push(heap_problem(
                    ProblemClass::Tuple,
                    Severity::Error,
                    at,
                    format!("tuple {} t_ctid", cur + 1),
                    format!(
                        "heap-only update produced a non-heap only tuple at offset {next} \
                         (HOT chain from item {})",
                        start + 1
                    ),
                ));
                break;
            }
            if seen[j] {
                if !reported_cycle[j] {
                    reported_cycle[j] = true;
                    out.push(heap_problem(
                        ProblemClass::Tuple,
                        Severity::Error,
                        at,
                        format!("tuple {} t_ctid", cur + 1),
                        format!(
                            "HOT chain from item {} does not end: item {} points back to item \
                             {next}, already in the chain",
                            start + 1,
                            cur + 1
                        ),
                    ));
                }
                break;
            }
            seen[j] = true;
            cur = j;
        }
    }

    // The visibility map against the page.
    if let Some(vm) = ctx.vm {
        let flags = u16_at(page, 10).unwrap_or(0);
        if (vm.all_visible || vm.all_frozen) && flags & PD_ALL_VISIBLE == 0 {
            out.push(problem(
                Severity::Error,
                ProblemClass::VisibilityMap,
                Some(10),
                "pd_flags",
                format!(
                    "page is not marked all-visible but visibility map bit is set (all-visible \
                     {}, all-frozen {})",
                    vm.all_visible, vm.all_frozen
                ),
            ));
        }
        if vm.all_frozen && !vm.all_visible {
            out.push(problem(
                Severity::Error,
                ProblemClass::VisibilityMap,
                None,
                "visibility map",
                "all-frozen bit set without the all-visible bit".to_string(),
            ));
        }
        if vm.all_visible || vm.all_frozen {
            for (i, lp) in lps.iter().enumerate() {
                let why = match (lp.flags, tuples[i]) {
                    (LP_DEAD, _) => Some("a dead line pointer".to_string()),
                    (LP_NORMAL, Some(t)) => {
                        let xmax_live = t.infomask & HEAP_XMAX_INVALID == 0
                            && t.infomask & HEAP_XMAX_LOCK_ONLY == 0
                            && t.infomask & HEAP_XMAX_IS_MULTI == 0
                            && t.xmax != 0;
                        if t.infomask & HEAP_XMIN_COMMITTED == 0 {
                            Some(format!("xmin {} not known committed", t.xmin))
                        } else if xmax_live {
                            Some(format!("deleted or updated by xmax {}", t.xmax))
                        } else if vm.all_frozen
                            && t.infomask & HEAP_XMIN_FROZEN != HEAP_XMIN_FROZEN
                            && t.xmin >= FIRST_NORMAL_XID
                        {
                            Some(format!(
                                "xmin {} not frozen, but the page is all-frozen",
                                t.xmin
                            ))
                        } else {
                            None
                        }
                    }
                    _ => None,
                };
                if let Some(why) = why {
                    out.push(heap_problem(
                        ProblemClass::VisibilityMap,
                        Severity::Error,
                        lp_at(i),
                        format!("lp[{}]", i + 1),
                        format!(
                            "visibility map says block {blkno} is all-{}, but item {} is not \
                             visible to all: {why}",
                            if vm.all_frozen { "frozen" } else { "visible" },
                            i + 1
                        ),
                    ));
                }
            }
        }
    }
    out
}

// --------------------------------------------------- visibility map, FSM ---

/// Heap blocks one visibility map page covers: 2 bits each over the page
/// after its header (`HEAPBLOCKS_PER_PAGE`).
pub(crate) fn vm_blocks_per_page(block_size: usize) -> u64 {
    (block_size.saturating_sub(SIZE_OF_PAGE_HEADER) * 4) as u64
}

/// The bits of heap block `heap_blk` in its visibility map page `vm_page`.
pub(crate) fn vm_bits(vm_page: &[u8], heap_blk: u64) -> Option<VmBits> {
    let per_page = vm_blocks_per_page(vm_page.len());
    let in_page = heap_blk % per_page.max(1);
    let byte = *vm_page.get(SIZE_OF_PAGE_HEADER + (in_page / 4) as usize)?;
    let bits = byte >> ((in_page % 4) * 2);
    Some(VmBits {
        all_visible: bits & 1 != 0,
        all_frozen: bits & 2 != 0,
    })
}

/// Leaf slots of one FSM page (`SlotsPerFSMPage`) and its non-leaf nodes.
fn fsm_geometry(block_size: usize) -> (u64, usize) {
    let nodes = block_size.saturating_sub(SIZE_OF_PAGE_HEADER + 4);
    let non_leaf = (block_size / 2).saturating_sub(1);
    (nodes.saturating_sub(non_leaf) as u64, non_leaf)
}

/// The FSM block and the byte in it that hold heap block `heap_blk`'s
/// category (`fsm_logical_to_physical` of its bottom-level page).
pub(crate) fn fsm_address(heap_blk: u64, block_size: usize) -> Option<(u64, usize)> {
    let (slots, non_leaf) = fsm_geometry(block_size);
    if slots == 0 {
        return None;
    }
    let depth = if slots >= 1626 { 3 } else { 4 };
    let logical = heap_blk / slots;
    let mut leafno = logical;
    let mut pages = 0u64;
    for _ in 0..depth {
        pages = pages.checked_add(leafno + 1)?;
        leafno /= slots;
    }
    let slot = (heap_blk % slots) as usize;
    Some((pages - 1, SIZE_OF_PAGE_HEADER + 4 + non_leaf + slot))
}

/// `fsm_space_avail_to_cat`: the category the FSM records for `avail` free bytes.
pub(crate) fn fsm_category(avail: usize, block_size: usize) -> u8 {
    let step = (block_size / 256).max(1);
    // MaxFSMRequestSize = MaxHeapTupleSize = BLCKSZ - MAXALIGN(header + one ItemIdData).
    let max_request = block_size.saturating_sub(32);
    if avail >= max_request {
        return 255;
    }
    (avail / step).min(254) as u8
}

/// A heap page's free space as PostgreSQL counts it for the FSM
/// (`PageGetHeapFreeSpace`, without the line-pointer-limit case).
pub(crate) fn heap_free_space(page: &[u8]) -> usize {
    let lower = usize::from(u16_at(page, 12).unwrap_or(0));
    let upper = usize::from(u16_at(page, 14).unwrap_or(0));
    upper.saturating_sub(lower).saturating_sub(4)
}

/// The FSM's value for a heap page against its free space: a note (never a
/// failure: the FSM is only updated by VACUUM and when a page fills).
pub(crate) fn fsm_drift(
    heap_page: &[u8],
    recorded: u8,
    fsm_blkno: u64,
    byte: usize,
) -> Option<Problem> {
    let free = heap_free_space(heap_page);
    let actual = fsm_category(free, heap_page.len());
    (recorded != actual).then(|| {
        problem(
            Severity::Info,
            ProblemClass::FreeSpaceMap,
            None,
            "free space map",
            format!(
                "free space map records category {recorded} ({} bytes and up) for this page, \
                 which has {free} bytes free (category {actual}); FSM block {fsm_blkno}, byte {byte}",
                usize::from(recorded) * (heap_page.len() / 256)
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsm_addresses_match_postgresql() {
        // 8 KiB: 4069 slots a page; heap block 0 is in FSM block 2 (root, level 1, leaf).
        assert_eq!(fsm_geometry(8192), (4069, 4095));
        assert_eq!(fsm_address(0, 8192), Some((2, 24 + 4 + 4095)));
        assert_eq!(fsm_address(4068, 8192).unwrap().0, 2);
        assert_eq!(fsm_address(4069, 8192).unwrap().0, 3);
        assert_eq!(fsm_category(8160, 8192), 255);
        assert_eq!(fsm_category(8000, 8192), 250);
    }

    #[test]
    fn keys_compare_over_their_common_attributes() {
        let a: Key = vec![Some(KeyValue::Int(1)), Some(KeyValue::Int(5))];
        let b: Key = vec![Some(KeyValue::Int(1))];
        assert_eq!(compare(&a, &b), Some(Ordering::Equal));
        let c: Key = vec![Some(KeyValue::Bytes(b"ab".to_vec()))];
        let d: Key = vec![Some(KeyValue::Bytes(b"abc".to_vec()))];
        assert_eq!(compare(&c, &d), Some(Ordering::Less));
        assert_eq!(compare(&vec![None], &c), None);
    }

    #[test]
    fn missing_downlinks_spare_the_root_incomplete_splits_and_half_dead_subtrees() {
        let page = |prev, next, level, flags| {
            Some(BtSummary {
                btpo_prev: prev,
                btpo_next: next,
                btpo_level: level,
                btpo_flags: flags,
            })
        };
        // 0 meta; 1 root (level 2); 2, 3 internal; 4..7 leaves.
        let pages = vec![
            page(0, 0, 0, BTP_META),
            page(0, 0, 2, BTP_ROOT),
            page(0, 3, 1, 0),
            page(2, 0, 1, 0),
            page(0, 5, 0, BTP_LEAF | BTP_INCOMPLETE_SPLIT),
            page(4, 6, 0, BTP_LEAF),
            page(5, 7, 0, BTP_LEAF | BTP_HALF_DEAD),
            page(6, 0, 0, BTP_LEAF),
        ];
        // The root points at 2 and 3, 2 at 4, 3 at 7; 5 is the right half of
        // 4's incomplete split, 6 is half-dead.
        let mut has = vec![false; pages.len()];
        for b in [2, 3, 4, 7] {
            has[b] = true;
        }
        let findings = btree_missing_downlinks(&pages, &has, &[(6, None)]);
        let errors: Vec<u64> = findings
            .iter()
            .filter(|(_, p)| p.severity == Severity::Error)
            .map(|(b, _)| *b)
            .collect();
        assert!(errors.is_empty(), "{findings:?}");
        assert_eq!(findings.len(), 1);
        assert_eq!(findings[0].0, 6);
        // Without the split flag, 5 lacks its downlink.
        let mut no_split = pages.clone();
        no_split[4] = page(0, 5, 0, BTP_LEAF);
        let findings = btree_missing_downlinks(&no_split, &has, &[(6, None)]);
        assert!(findings
            .iter()
            .any(|(b, p)| *b == 5 && p.message.starts_with("leaf index block lacks downlink")));
        // An internal page without a downlink is spared only while a
        // half-dead leaf names it as its top parent.
        has[3] = false;
        let named = btree_missing_downlinks(&pages, &has, &[(6, Some(3))]);
        assert!(named.iter().all(|(_, p)| p.severity == Severity::Info));
        let unnamed = btree_missing_downlinks(&pages, &has, &[(6, None)]);
        assert!(unnamed
            .iter()
            .any(|(b, p)| *b == 3 && p.message.starts_with("internal index block lacks downlink")));
    }

    #[test]
    fn garbage_never_panics() {
        let mut seed = 7u32;
        for _ in 0..200 {
            let page: Vec<u8> = (0..8192)
                .map(|_| {
                    seed = seed.wrapping_mul(1_103_515_245).wrapping_add(12345);
                    (seed >> 16) as u8
                })
                .collect();
            let ctx = HeapContext {
                xids: Some(XidHorizon {
                    next_xid: 1000,
                    oldest_xid: 3,
                    final_: true,
                }),
                vm: Some(VmBits {
                    all_visible: true,
                    all_frozen: true,
                }),
            };
            let _ = heap_page(&page, 0, &ctx);
            let pages = vec![bt_summary(&page); 3];
            let _ = btree_items(&page, 1, &pages, Some(&[KeyType::Int4, KeyType::Text]));
            let _ = btree_structure(bt_meta(&page).as_ref(), &pages);
        }
    }
}
