//! Items of the index pages other than btree: the shared `IndexTupleData`
//! header (itup.h), hash and GiST tuples, the dispatch to GIN, BRIN and
//! SP-GiST ([`super::gin`], [`super::brin`], [`super::spgist`]), and the
//! decoding of index keys with a column list.
//!
//! ```text
//!  hash:  | t_tid = heap TID | t_info | uint32 hash code |          (hash.h)
//!  GiST:  | t_tid = heap TID or (child block, 0xFFFF) | t_info | [bitmap] | keys… |
//! ```

use crate::model::postgres::index::{HashBitmap, IndexBody, IndexItem, KeyArea};
use crate::model::postgres::types::{Align, Column, PgType, Schema, TypeSpec};
use crate::model::postgres::{
    maxalign, AmData, HashPageStats, ItemId, LpFlags, PageHeader, PageLayout, PgPage,
    SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use super::attrs::{self, PAGE_VALUE_BUDGET};
use super::itup::{
    empty_item, read_itup_header, size_check, tuple_bounds, unreadable_item, SIZE_OF_INDEX_BITMAP,
    SIZE_OF_INDEX_TUPLE,
};
use super::kinds::brin;
use super::kinds::gin;
use super::kinds::spgist;
use super::layout::page_free_space;
use crate::model::postgres::flags::{F_LEAF, LH_BITMAP_PAGE};
use crate::model::postgres::names::hash_page_type;

/// `GIST_TUPLE_INVALID` offset of a pre-9.1 invalid (crash-left) tuple (gist_private.h).
const GIST_TUPLE_INVALID: u16 = 0xFFFE;

/// Decode the items of an index page of the kind `am` holds, into `am`.
pub(crate) fn parse_items(
    r: &mut Reader,
    h: &PageHeader,
    ids: &[ItemId],
    am: &mut AmData,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) {
    match am {
        AmData::Hash {
            opaque,
            items,
            stats,
            bitmap,
            ..
        } => {
            let page_type = hash_page_type(opaque.hasho_flag);
            if opaque.hasho_flag & LH_BITMAP_PAGE != 0 {
                *bitmap = Some(read_hash_bitmap(r, h));
            }
            if matches!(page_type, "bucket" | "overflow") {
                for id in ids {
                    items.push(hash_item(r, *id, layout, problems));
                }
                let dead = ids.iter().filter(|i| i.lp_flags == LpFlags::Dead).count() as u32;
                *stats = Some(HashPageStats {
                    live_items: ids.len() as u32 - dead,
                    dead_items: dead,
                    page_size: u32::try_from(h.page_size()).unwrap_or(u32::MAX),
                    free_size: page_free_space(h),
                });
            }
        }
        AmData::Gist { opaque, items } => {
            let leaf = opaque.flags & F_LEAF != 0;
            for id in ids {
                items.push(gist_item(r, *id, leaf, layout, problems));
            }
        }
        AmData::Gin {
            opaque,
            items,
            data,
            ..
        } => gin::parse(r, h, ids, opaque, items, data, layout, problems),
        AmData::Brin { items, .. } => {
            for id in ids {
                items.push(brin::item(r, *id, problems));
            }
            brin::infer_columns(r.data(), items, layout, problems);
        }
        AmData::SpGist {
            opaque,
            meta,
            items,
        } => spgist::parse(r, ids, opaque, meta, items, layout, problems),
        _ => {}
    }
}

/// `_hash_get_indextuple_hashkey`: the uint32 after the header.
fn hash_item(
    r: &mut Reader,
    id: ItemId,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> IndexItem {
    if !id.has_storage() {
        return empty_item(id);
    }
    let read = |r: &mut Reader| -> Result<IndexItem, ReadError> {
        let (base, _) = tuple_bounds(r, &id)?;
        let owner = format!("item {}", id.lp);
        let header = read_itup_header(r, base, &owner, "t_tid", layout)?;
        r.set_context(Region::TupleData, Some(owner));
        let hash = r.u32(base + header.data_offset, "hash code")?;
        r.show_last(format!("{hash} (0x{hash:08x})"));
        let dead = id.lp_flags == LpFlags::Dead;
        let verdict = format!(
            "{}heap tuple {}, hash code {hash}",
            if dead { "dead: " } else { "points to " },
            header.t_tid
        );
        Ok(IndexItem {
            id,
            header: Some(header),
            body: IndexBody::Hash { hash },
            tupstate: None,
            key_area: None,
            keys: None,
            verdict,
        })
    };
    match read(r) {
        Ok(item) => {
            if let Some(h) = &item.header {
                size_check(h, &id, ProblemClass::Special, problems);
            }
            item
        }
        Err(e) => unreadable_item(id, &e, ProblemClass::Special, problems),
    }
}

/// The bitmap of free overflow pages: uint32 words after the header, up to pd_lower.
fn read_hash_bitmap(r: &mut Reader, h: &PageHeader) -> HashBitmap {
    let start = maxalign(SIZE_OF_PAGE_HEADER);
    let end = usize::from(h.pd_lower).min(r.len());
    let words = end.saturating_sub(start) / 4;
    r.set_context(Region::TupleData, Some("HashBitmap".into()));
    let mut bits_set = Vec::new();
    for w in 0..words {
        let Ok(word) = r.peek_u32(start + w * 4, "bitmap") else {
            break;
        };
        for bit in 0..32 {
            if word & (1 << bit) != 0 {
                bits_set.push((w * 32 + bit) as u32);
            }
        }
    }
    r.mark(
        start,
        words * 4,
        "overflow page bitmap",
        format!("{} bits, {} set (pages in use)", words * 32, bits_set.len()),
    );
    HashBitmap {
        bits: (words * 32) as u32,
        bits_set,
    }
}

/// A GiST tuple: header, keys; on inner pages t_tid's block is the child.
fn gist_item(
    r: &mut Reader,
    id: ItemId,
    leaf: bool,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) -> IndexItem {
    if !id.has_storage() {
        return empty_item(id);
    }
    let read = |r: &mut Reader| -> Result<IndexItem, ReadError> {
        let (base, _) = tuple_bounds(r, &id)?;
        let owner = format!("item {}", id.lp);
        let tid_name = if leaf { "t_tid" } else { "t_tid (downlink)" };
        let header = read_itup_header(r, base, &owner, tid_name, layout)?;
        let size = usize::from(header.size).max(header.data_offset);
        let key_data = r.peek(base, usize::from(header.size), "key_data")?.to_vec();
        let key_len = size - header.data_offset;
        if key_len > 0 {
            r.set_context(Region::TupleData, Some(owner));
            r.mark(
                base + header.data_offset,
                key_len,
                "key",
                format!("{key_len} bytes"),
            );
        }
        let dead = id.lp_flags == LpFlags::Dead;
        let invalid = header.t_tid.offset == GIST_TUPLE_INVALID;
        let verdict = if invalid {
            "invalid tuple (left by a crash before PostgreSQL 9.1; REINDEX)".to_string()
        } else if leaf {
            format!(
                "{}heap tuple {}",
                if dead { "dead: " } else { "points to " },
                header.t_tid
            )
        } else {
            format!(
                "downlink to block {}{}",
                header.t_tid.block,
                if dead { " (dead)" } else { "" }
            )
        };
        let key_area = KeyArea {
            start: base + header.data_offset,
            len: key_len,
            bitmap: header.bitmap.clone(),
            skip_int2: false,
        };
        Ok(IndexItem {
            id,
            body: IndexBody::Gist {
                key_data,
                downlink: (!leaf).then_some(header.t_tid.block),
                key_columns: None,
            },
            header: Some(header),
            tupstate: None,
            key_area: Some(key_area),
            keys: None,
            verdict,
        })
    };
    match read(r) {
        Ok(item) => {
            if let Some(h) = &item.header {
                size_check(h, &id, ProblemClass::Special, problems);
            }
            item
        }
        Err(e) => unreadable_item(id, &e, ProblemClass::Special, problems),
    }
}

/// The items of an index page, whatever its access method (empty for others).
pub(crate) fn items_mut(am: &mut AmData) -> Option<&mut Vec<IndexItem>> {
    match am {
        AmData::Hash { items, .. }
        | AmData::Gist { items, .. }
        | AmData::Gin { items, .. }
        | AmData::Brin { items, .. }
        | AmData::SpGist { items, .. } => Some(items),
        _ => None,
    }
}

/// The column list with each `typalign` capped at the build's MAXALIGN: a
/// 32-bit build aligns `d` (int8, float8, timestamp) to 4 (ALIGNOF_DOUBLE).
fn for_max_align(schema: &Schema, max_align: usize) -> Schema {
    let mut s = schema.clone();
    for c in &mut s.columns {
        if c.align == Align::Double && max_align < 8 {
            c.align = Align::Int;
        }
    }
    s
}

/// The column an SP-GiST inner tuple's prefix of `len` bytes is read as,
/// for an index whose key column is `key`: the core opclasses' prefixType
/// is the key's type, except kd_point_ops (a float8 coordinate for a point
/// key) and inet_ops (cidr for an inet key).
fn spgist_prefix_column(key: &Column, len: usize) -> Column {
    let ty = match key.ty.as_ref().map(|t| &t.ty) {
        Some(PgType::Point) if len == 8 => PgType::Float8,
        Some(PgType::Inet) => PgType::Cidr,
        _ => return key.clone(),
    };
    Column::of(key.name.clone(), TypeSpec { ty, typmod: None })
}

/// Decode the key attributes of every index item with the column list:
/// what `index_deform_tuple` gives (GIN: the key, after the attnum of a
/// multi-column index; BRIN: each column's stored values).
pub(crate) fn decode_keys(page: &mut PgPage, data: &[u8], schema: &Schema) {
    let aligned;
    let schema = if page.layout.max_align < 8 {
        aligned = for_max_align(schema, page.layout.max_align);
        &aligned
    } else {
        schema
    };
    let endian = if page.layout.big_endian {
        crate::reader::Endian::Big
    } else {
        crate::reader::Endian::Little
    };
    let layout = page.layout;
    let Some(am) = page.am.as_mut() else {
        return;
    };
    let mut r = Reader::new(data, endian);
    let mut budget = PAGE_VALUE_BUDGET;
    if let AmData::Btree { items, .. } = am {
        for item in items.iter_mut() {
            let Some(t) = &item.tuple else { continue };
            let base = usize::from(item.id.lp_off);
            let start = base
                + if t.nulls {
                    layout.maxalign(SIZE_OF_INDEX_TUPLE + SIZE_OF_INDEX_BITMAP)
                } else {
                    layout.maxalign(SIZE_OF_INDEX_TUPLE)
                };
            let bitmap = t
                .nulls
                .then(|| data.get(base + SIZE_OF_INDEX_TUPLE..base + 12))
                .flatten();
            // A pivot keeps only its first pivot_natts key attributes.
            let n = t.pivot_natts.map_or(schema.columns.len(), |n| {
                usize::from(n).min(schema.columns.len())
            });
            let owner = format!("item {}", item.id.lp);
            item.keys = Some(attrs::index_attrs(
                &mut r,
                &owner,
                start,
                t.data.len(),
                bitmap,
                &schema.columns[..n],
                &mut budget,
            ));
        }
        page.spans.extend(r.into_spans());
        page.spans
            .sort_by_key(|s| (s.start, std::cmp::Reverse(s.len)));
        return;
    }
    let brin_page = matches!(am, AmData::Brin { .. });
    let gin_page = matches!(am, AmData::Gin { .. });
    let Some(items) = items_mut(am) else {
        return;
    };
    let mut problems = Vec::new();
    if brin_page {
        // The columns are given: the count needs no working out.
        page.problems
            .retain(|p| p.field != brin::COLUMN_COUNT_FIELD);
    }
    for item in items.iter_mut() {
        if brin_page {
            brin::decode_columns(&mut r, item, schema, layout, &mut problems);
            continue;
        }
        let Some(area) = item.key_area.clone() else {
            continue;
        };
        let owner = format!("item {}", item.id.lp);
        let keys = if gin_page && schema.columns.len() > 1 {
            // A multi-column GIN index stores (attnum int2, key of that
            // column), the null bitmap covering both.
            let attnum = r.peek_u16(area.start, "attnum").unwrap_or(0);
            if let IndexBody::GinEntry {
                attnum: a,
                category,
                ..
            } = &mut item.body
            {
                *a = Some(attnum);
                // GinCategoryOffset: after the attnum when not oneCol.
                if category.is_some() {
                    *category = r.peek_u8(area.start + 2, "null category").ok();
                }
            }
            let Some(col) = usize::from(attnum)
                .checked_sub(1)
                .and_then(|i| schema.columns.get(i))
            else {
                continue;
            };
            let attnum_col = Column::of(
                Some("attnum".into()),
                TypeSpec {
                    ty: PgType::Int2,
                    typmod: None,
                },
            );
            let mut both = attrs::index_attrs(
                &mut r,
                &owner,
                area.start,
                area.len,
                area.bitmap.as_deref(),
                &[attnum_col, col.clone()],
                &mut budget,
            );
            let mut key = both.pop().unwrap_or_default();
            key.attnum = attnum;
            vec![key]
        } else if let IndexBody::SpGistInner { .. } = item.body {
            // An SP-GiST inner tuple's prefix is one datum of the opclass's
            // prefixType.
            let Some(col) = schema.columns.first() else {
                continue;
            };
            attrs::index_attrs(
                &mut r,
                &owner,
                area.start,
                area.len,
                None,
                &[spgist_prefix_column(col, area.len)],
                &mut budget,
            )
        } else {
            let columns = if gin_page {
                &schema.columns[..schema.columns.len().min(1)]
            } else if matches!(
                item.body,
                IndexBody::Gist {
                    downlink: Some(_),
                    ..
                }
            ) {
                // GiST inner tuples hold the key columns only (nonLeafTupdesc).
                &schema.columns[..schema
                    .key_columns
                    .unwrap_or(usize::MAX)
                    .min(schema.columns.len())]
            } else {
                schema.columns.as_slice()
            };
            attrs::index_attrs(
                &mut r,
                &owner,
                area.start,
                area.len,
                area.bitmap.as_deref(),
                columns,
                &mut budget,
            )
        };
        for a in &keys {
            for m in &a.problems {
                problems.push(Problem::new(
                    Severity::Warning,
                    ProblemClass::Attrs,
                    a.offset,
                    format!("{owner} key {}", a.attnum),
                    m.clone(),
                ));
            }
        }
        if let IndexBody::Gist { key_columns, .. } = &mut item.body {
            *key_columns = schema.key_columns;
        }
        item.keys = Some(keys);
    }
    page.problems.extend(problems);
    page.spans.extend(r.into_spans());
    page.spans
        .sort_by_key(|s| (s.start, std::cmp::Reverse(s.len)));
}

#[cfg(test)]
mod tests {
    use crate::parse::postgres::kinds::decode_page;
    use crate::parse::postgres::page::{parse_page, PageOptions};
    use crate::parse::postgres::schema::parse_columns;
    use crate::render::postgres::json::PgPageJson as PageJson;

    /// A GiST leaf page of a 32-bit build holding tuples of (int4, float8)
    /// keys: IndexTupleData, the int4 at 8, the float8 at 12 (ALIGNOF_DOUBLE
    /// 4), 20 bytes, so the second tuple sits at 4 mod 8.
    fn gist_32bit_page() -> Vec<u8> {
        let mut p = vec![0u8; 8192];
        let special = 8192 - 16;
        let put16 =
            |p: &mut Vec<u8>, at: usize, v: u16| p[at..at + 2].copy_from_slice(&v.to_le_bytes());
        let tuples = [(7i32, 2.5f64), (-3, 1e10)];
        let mut upper = special;
        for (i, (k, f)) in tuples.iter().enumerate() {
            upper -= 20;
            let t = upper;
            put16(&mut p, t + 2, 1); // t_tid (0,i+1)
            put16(&mut p, t + 4, (i + 1) as u16);
            put16(&mut p, t + 6, 20); // t_info: size 20
            p[t + 8..t + 12].copy_from_slice(&k.to_le_bytes());
            p[t + 12..t + 20].copy_from_slice(&f.to_le_bytes());
            let lp = (t as u32) | (1 << 15) | (20 << 17);
            p[24 + 4 * i..28 + 4 * i].copy_from_slice(&lp.to_le_bytes());
        }
        put16(&mut p, 12, 24 + 4 * tuples.len() as u16);
        put16(&mut p, 14, upper as u16);
        put16(&mut p, 16, special as u16);
        put16(&mut p, 18, 0x2004);
        put16(&mut p, special + 12, 0x0001); // F_LEAF
        put16(&mut p, special + 14, 0xFF81); // GIST_PAGE_ID
        p
    }

    #[test]
    fn a_32bit_builds_double_aligned_key_is_read_4_aligned() {
        let bytes = gist_32bit_page();
        let mut page = parse_page(&bytes, &PageOptions::default());
        assert_eq!(page.layout.max_align, 4);
        let schema = parse_columns("a int4, b float8").unwrap();
        decode_page(&mut page, &bytes, &schema, None);
        let doc = serde_json::to_value(PageJson::from_page(&page)).unwrap();
        let values: Vec<String> = doc["items"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|i| i["attrs"].as_array().unwrap().clone())
            .map(|a| a["value"].to_string())
            .collect();
        assert_eq!(values, ["7", "2.5", "-3", "10000000000.0"], "{doc}");
    }
}
