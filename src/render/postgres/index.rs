//! Index items of hash, GiST, GIN, BRIN and SP-GiST pages as pageinspect's
//! rows (`hash_page_items`, `gist_page_items(_bytea)`, `gin_leafpage_items`,
//! `brin_page_items`; SP-GiST, which pageinspect does not decode, in
//! spgist_private.h's names), for JSON and for tables.

use serde_json::{json, Map, Value};

use crate::model::postgres::index::{GinPosting, IndexBody, IndexItem};
use crate::model::postgres::{AmData, Attr, ItemPointer, LpFlags, PgPage};
use crate::render::fit::{new_table, right, Fitted};
use crate::render::RenderOptions;

use super::attr::{bytea_text, AttrJson};

/// The index items of `page`, if it is a page of one of these access methods.
pub(crate) fn page_items(page: &PgPage) -> Option<&[IndexItem]> {
    match page.am.as_ref()? {
        AmData::Hash { items, .. }
        | AmData::Gist { items, .. }
        | AmData::Gin { items, .. }
        | AmData::Brin { items, .. }
        | AmData::SpGist { items, .. } => Some(items),
        _ => None,
    }
}

fn tids(v: &[ItemPointer]) -> Vec<String> {
    v.iter().map(ItemPointer::to_string).collect()
}

/// `BuildIndexValueDescription`-like text of the keys, as gist_page_items
/// prints it: `(a, b)=(1, "(2,3)")`, values quoted as record_out quotes them.
/// With INCLUDE columns (the first `key_columns` are keys), a leaf tuple's
/// are `(a) INCLUDE (b)=(1) INCLUDE (2)`; an inner tuple shows its keys only.
pub(crate) fn keys_text(attrs: &[Attr], key_columns: Option<usize>, leaf: bool) -> String {
    let names = |attrs: &[Attr]| -> String {
        attrs
            .iter()
            .map(|a| a.name.clone().unwrap_or_else(|| format!("col{}", a.attnum)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let values = |attrs: &[Attr]| -> String {
        attrs
            .iter()
            .map(|a| match &a.value {
                None => "null".to_string(),
                Some(v) => quote_like_record(&v.text),
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    match key_columns.filter(|&k| k < attrs.len()) {
        Some(k) if leaf => {
            let (keys, incl) = attrs.split_at(k);
            format!(
                "({}) INCLUDE ({})=({}) INCLUDE ({})",
                names(keys),
                names(incl),
                values(keys),
                values(incl)
            )
        }
        Some(k) => {
            let keys = &attrs[..k];
            format!("({})=({})", names(keys), values(keys))
        }
        None => format!("({})=({})", names(attrs), values(attrs)),
    }
}

/// record_out's quoting: empty values and values with `"`, `\`, `(`, `)`,
/// `,` or white space are double-quoted, with `"` and `\` doubled.
fn quote_like_record(s: &str) -> String {
    let needs = s.is_empty()
        || s.chars()
            .any(|c| matches!(c, '"' | '\\' | '(' | ')' | ',') || c.is_ascii_whitespace());
    if !needs {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        if c == '"' || c == '\\' {
            out.push(c);
        }
        out.push(c);
    }
    out.push('"');
    out
}

/// One item as a JSON object with pageinspect's column names.
pub(crate) fn item_json(item: &IndexItem) -> Value {
    let mut m = Map::new();
    m.insert("itemoffset".into(), json!(item.id.lp));
    let dead = item.id.lp_flags == LpFlags::Dead;
    let h = item.header.as_ref();
    match &item.body {
        IndexBody::Hash { hash } => {
            m.insert("ctid".into(), json!(h.map(|h| h.t_tid.to_string())));
            m.insert("data".into(), json!(i64::from(*hash)));
            m.insert("dead".into(), json!(dead));
        }
        IndexBody::Gist {
            key_data,
            downlink,
            key_columns,
        } => {
            m.insert("ctid".into(), json!(h.map(|h| h.t_tid.to_string())));
            m.insert("itemlen".into(), json!(h.map(|h| h.size)));
            m.insert("dead".into(), json!(dead));
            m.insert("key_data".into(), json!(bytea_text(key_data)));
            if let Some(keys) = &item.keys {
                m.insert(
                    "keys".into(),
                    json!(keys_text(keys, *key_columns, downlink.is_none())),
                );
            }
            if let Some(b) = downlink {
                m.insert("downlink".into(), json!(b));
            }
        }
        IndexBody::GinEntry {
            attnum,
            key_data,
            category,
            posting,
        } => {
            m.insert("ctid".into(), json!(h.map(|h| h.t_tid.to_string())));
            m.insert("itemlen".into(), json!(h.map(|h| h.size)));
            m.insert("dead".into(), json!(dead));
            if let Some(a) = attnum {
                m.insert("attnum".into(), json!(a));
            }
            m.insert("key_data".into(), json!(bytea_text(key_data)));
            if let Some(c) = category {
                m.insert("category".into(), json!(c));
            }
            match posting {
                GinPosting::Downlink { block } => {
                    m.insert("downlink".into(), json!(block));
                }
                GinPosting::Tree { root } => {
                    m.insert("posting_tree".into(), json!(root));
                }
                GinPosting::List {
                    compressed,
                    offset,
                    tids: t,
                } => {
                    m.insert("nposting".into(), json!(t.len()));
                    m.insert("posting_offset".into(), json!(offset));
                    m.insert("compressed".into(), json!(compressed));
                    m.insert("tids".into(), json!(tids(t)));
                }
                GinPosting::Pending => {
                    m.insert("pending".into(), json!(true));
                }
            }
        }
        IndexBody::GinPostingItem { child_blkno, key } => {
            m.insert("child_blkno".into(), json!(child_blkno));
            m.insert("key".into(), json!(key.to_string()));
        }
        IndexBody::Brin {
            blknum,
            bt_info,
            placeholder,
            empty,
            has_nulls_mask,
            data,
            columns,
        } => {
            m.insert("blknum".into(), json!(blknum));
            m.insert("placeholder".into(), json!(placeholder));
            m.insert("empty".into(), json!(empty));
            m.insert("bt_info".into(), json!(bt_info));
            m.insert("has_nulls_mask".into(), json!(has_nulls_mask));
            m.insert("value_bytes".into(), json!(bytea_text(data)));
            if !columns.is_empty() {
                m.insert("columns".into(), json!(columns));
            }
        }
        IndexBody::SpGistInner {
            all_the_same,
            n_nodes,
            prefix_size,
            size,
            prefix,
            nodes,
        } => {
            m.insert("tupstate".into(), json!(item.tupstate));
            m.insert("tuple".into(), json!("inner"));
            m.insert("size".into(), json!(size));
            m.insert("allTheSame".into(), json!(all_the_same));
            m.insert("nNodes".into(), json!(n_nodes));
            m.insert("prefixSize".into(), json!(prefix_size));
            m.insert("prefix".into(), json!(prefix.as_deref().map(bytea_text)));
            let nodes: Vec<Value> = nodes
                .iter()
                .map(|n| {
                    json!({
                        "downlink": n.downlink.to_string(),
                        "label": n.label.as_deref().map(bytea_text),
                    })
                })
                .collect();
            m.insert("nodes".into(), Value::Array(nodes));
        }
        IndexBody::SpGistLeaf {
            size,
            next_offset,
            has_nulls,
            heap_ptr,
            datum,
        } => {
            m.insert("tupstate".into(), json!(item.tupstate));
            m.insert("tuple".into(), json!("leaf"));
            m.insert("size".into(), json!(size));
            m.insert("heapPtr".into(), json!(heap_ptr.to_string()));
            m.insert("nextOffset".into(), json!(next_offset));
            m.insert("hasnulls".into(), json!(has_nulls));
            m.insert("datum".into(), json!(bytea_text(datum)));
        }
        IndexBody::SpGistDead { size, pointer, xid } => {
            m.insert("tupstate".into(), json!(item.tupstate));
            m.insert("tuple".into(), json!("dead"));
            m.insert("size".into(), json!(size));
            m.insert("pointer".into(), json!(pointer.to_string()));
            m.insert("xid".into(), json!(xid));
        }
        IndexBody::None | IndexBody::Unreadable { .. } => {}
    }
    if !matches!(item.body, IndexBody::GinPostingItem { .. }) {
        m.insert("lp_off".into(), json!(item.id.lp_off));
        m.insert("lp_flags".into(), json!(item.id.lp_flags.code()));
        m.insert("lp_len".into(), json!(item.id.lp_len));
    }
    if let Some(keys) = &item.keys {
        let attrs: Vec<AttrJson> = keys.iter().map(AttrJson::from_attr).collect();
        m.insert("attrs".into(), json!(attrs));
    }
    m.insert("verdict".into(), json!(item.verdict));
    Value::Object(m)
}

/// The page-level extras of these access methods, keyed as pageinspect names them.
pub(crate) fn am_extras(am: &AmData, out: &mut Map<String, Value>) {
    match am {
        AmData::Hash {
            bitmap: Some(b), ..
        } => {
            out.insert(
                "hash_bitmap".into(),
                json!({"bits": b.bits, "bits_set": b.bits_set}),
            );
        }
        AmData::Gin { data: Some(d), .. } => {
            let mut page = Map::new();
            page.insert("right_bound".into(), json!(d.right_bound.to_string()));
            if !d.plain_tids.is_empty() {
                page.insert("plain_tids".into(), json!(tids(&d.plain_tids)));
            }
            out.insert("gin_data_page".into(), Value::Object(page));
            if !d.segments.is_empty() {
                let rows: Vec<Value> = d
                    .segments
                    .iter()
                    .map(|s| {
                        json!({"first_tid": s.first_tid.to_string(), "nbytes": s.nbytes,
                               "tids": tids(&s.tids)})
                    })
                    .collect();
                out.insert("gin_leafpage_items".into(), Value::Array(rows));
            }
        }
        AmData::SpGist { meta: Some(m), .. } => {
            // Unused cache slots hold InvalidBlockNumber: left out.
            let pages: Vec<Value> = m
                .last_used_pages
                .iter()
                .filter(|(b, _)| *b != u32::MAX)
                .map(|(b, f)| json!({"blkno": b, "freeSpace": f}))
                .collect();
            out.insert(
                "spgist_metapage".into(),
                json!({"magicNumber": format!("0x{:08X}", m.magic_number), "lastUsedPages": pages}),
            );
        }
        _ => {}
    }
}

/// How many characters of a cell the narrow view shows.
const NARROW_CELL: usize = 40;

/// The items as one table: the columns of the rows' keys, in order.
pub(crate) fn items_table(items: &[IndexItem], opts: &RenderOptions) -> Fitted {
    let rows: Vec<Value> = items.iter().map(item_json).collect();
    let mut columns: Vec<String> = Vec::new();
    for r in &rows {
        if let Some(o) = r.as_object() {
            for k in o.keys() {
                // The line pointer's offset and length are in the JSON; the
                // table keeps to the tuple (lp_flags says dead or not).
                let skip = matches!(k.as_str(), "attrs" | "lp_off" | "lp_len");
                if !skip && !columns.contains(k) {
                    columns.push(k.clone());
                }
            }
        }
    }
    // The verdict last.
    columns.retain(|c| c != "verdict");
    columns.push("verdict".into());
    let heads: Vec<&str> = columns.iter().map(String::as_str).collect();
    let mut t = new_table(opts, &heads);
    for r in &rows {
        let cells: Vec<String> = columns
            .iter()
            .map(|c| cell(r.get(c), c == "verdict" || opts.wide))
            .collect();
        t.add_row(cells);
    }
    let numeric: Vec<usize> = columns
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            rows.iter().all(|r| {
                r.get(c.as_str())
                    .is_none_or(|v| v.is_number() || v.is_null())
            })
        })
        .map(|(i, _)| i)
        .collect();
    right(&mut t, &numeric);
    t
}

fn cell(v: Option<&Value>, whole: bool) -> String {
    let text = match v {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(s)) => s.clone(),
        Some(Value::Bool(b)) => if *b { "t" } else { "f" }.to_string(),
        Some(Value::Array(a)) if !whole && a.len() > 3 => {
            let head: Vec<String> = a.iter().take(3).map(plain).collect();
            format!("{} … {} in all", head.join(" "), a.len())
        }
        Some(Value::Array(a)) => a.iter().map(plain).collect::<Vec<_>>().join(" "),
        Some(other) => other.to_string(),
    };
    let n = text.chars().count();
    if whole || n <= NARROW_CELL {
        text
    } else {
        let head: String = text.chars().take(NARROW_CELL).collect();
        format!("{head}… ({n} chars)")
    }
}

fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The decoded keys of every item: one row per attribute.
pub(crate) fn keys_table(items: &[IndexItem], opts: &RenderOptions) -> Option<Fitted> {
    if items
        .iter()
        .any(|i| matches!(i.body, IndexBody::Gist { .. }))
    {
        // gist_page_items' `keys` column already says it.
        return None;
    }
    let rows: Vec<(u16, &[Attr])> = items
        .iter()
        .filter_map(|i| i.keys.as_deref().map(|k| (i.id.lp, k)))
        .collect();
    keys_rows_table(&rows, opts)
}

/// One row per key attribute of each (item offset, attributes).
pub(crate) fn keys_rows_table(rows: &[(u16, &[Attr])], opts: &RenderOptions) -> Option<Fitted> {
    if !rows.iter().any(|(_, k)| !k.is_empty()) {
        return None;
    }
    let mut t = new_table(opts, &["itemoffset", "attnum", "column", "type", "value"]);
    for (lp, keys) in rows {
        for (i, a) in keys.iter().enumerate() {
            t.add_row(vec![
                if i == 0 {
                    lp.to_string()
                } else {
                    String::new()
                },
                a.attnum.to_string(),
                a.name.clone().unwrap_or_default(),
                a.type_name.clone(),
                match &a.value {
                    Some(v) => cell(Some(&Value::String(v.text.clone())), opts.wide),
                    None => "NULL".into(),
                },
            ]);
        }
    }
    right(&mut t, &[0, 1]);
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_values_are_quoted_as_record_out_quotes_them() {
        assert_eq!(quote_like_record("42"), "42");
        assert_eq!(quote_like_record("(1,2)"), "\"(1,2)\"");
        assert_eq!(quote_like_record(""), "\"\"");
        assert_eq!(quote_like_record("a b"), "\"a b\"");
        assert_eq!(quote_like_record("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(quote_like_record("back\\slash"), "\"back\\\\slash\"");
    }
}
