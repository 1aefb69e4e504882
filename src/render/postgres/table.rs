//! Tables for people: one per structure, fitted to the terminal.

use std::io::{self, Write};

use crate::model::postgres::flags;
use crate::model::postgres::names::describe_item_id;
use crate::model::postgres::{
    AmData, Attr, BtItem, BtMetaPageData, BtPageOpaque, BtPageStats, HeapItem, PageHeader,
    PageKind, PgPage, Storage,
};
use crate::render::postgres::json::{spaced_hex, AmJson};

use crate::render::fit::{new_table, right, write_streamed, Fitted, WIDE_CELL_CHARS};
use crate::render::RenderOptions;

/// The first line of a page's table and hex views:
/// `block 0 · heap page · 8192 bytes`, then ` · big-endian` and
/// ` · MAXALIGN 4 (32-bit)` for pages of such builds.
pub(crate) fn title(page: &PgPage) -> String {
    format!(
        "block {} · {} page · {} bytes{}{}",
        page.blkno,
        page.kind.name(),
        page.size,
        if page.layout.big_endian {
            " · big-endian"
        } else {
            ""
        },
        if page.layout.max_align == 4 {
            " · MAXALIGN 4 (32-bit)"
        } else {
            ""
        }
    )
}

/// Render one PostgreSQL page as tables.
pub fn render_page(out: &mut dyn Write, page: &PgPage, opts: &RenderOptions) -> io::Result<()> {
    writeln!(out, "{}", title(page))?;
    if page.kind == PageKind::New {
        writeln!(
            out,
            "all {} bytes are zero: a new, never-initialised page",
            page.size
        )?;
        return Ok(());
    }
    if let Some(h) = &page.header {
        writeln!(out, "{}", header_table(h, page, opts))?;
    }
    match &page.am {
        Some(AmData::Btree {
            opaque,
            meta,
            stats,
            safexid,
            items,
        }) => {
            writeln!(out, "{}", bt_opaque_table(opaque, opts))?;
            if let Some(m) = meta {
                writeln!(out, "{}", bt_meta_table(m, opts))?;
            }
            if let Some(s) = stats {
                writeln!(out, "{}", bt_stats_table(s, opts))?;
            }
            if let Some(x) = safexid {
                writeln!(
                    out,
                    "deleted page: safexid {x} (epoch {}, xid {}); items are not interpreted",
                    x >> 32,
                    x & 0xFFFF_FFFF
                )?;
            }
            if !items.is_empty() {
                writeln!(out, "{}", bt_items_table(items, opts))?;
                let keys: Vec<(u16, &[Attr])> = items
                    .iter()
                    .filter_map(|i| i.keys.as_deref().map(|k| (i.id.lp, k)))
                    .collect();
                if let Some(t) = super::index::keys_rows_table(&keys, opts) {
                    writeln!(out, "{t}")?;
                }
            }
        }
        Some(am) => {
            writeln!(out, "{}", am_table(page, am, opts))?;
            if let Some(items) = super::index::page_items(page).filter(|i| !i.is_empty()) {
                writeln!(out, "{}", super::index::items_table(items, opts))?;
                if let Some(keys) = super::index::keys_table(items, opts) {
                    writeln!(out, "{keys}")?;
                }
            }
        }
        None => {}
    }
    if !page.items.is_empty() {
        if matches!(page.kind, PageKind::Heap | PageKind::Sequence) {
            writeln!(out, "{}", items_table(&page.items, opts))?;
            writeln!(out, "{}", verdict_table(&page.items, opts))?;
            if page
                .items
                .iter()
                .any(|i| i.attrs.as_ref().is_some_and(|a| !a.is_empty()))
            {
                write_attrs_table(out, &page.items, opts)?;
                writeln!(out)?;
            }
        } else {
            writeln!(out, "{}", line_pointer_table(&page.items, opts))?;
        }
    }
    if !page.problems.is_empty() {
        writeln!(
            out,
            "{}",
            crate::render::problems::table(&page.problems, opts)
        )?;
    }
    Ok(())
}

fn header_table(h: &PageHeader, page: &PgPage, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["field", "value", "meaning"]);
    let lps = match &page.am {
        Some(AmData::Btree { items, .. }) => items.len(),
        Some(AmData::Gin { data: Some(_), .. }) => 0,
        _ => super::index::page_items(page).map_or(page.items.len(), <[_]>::len),
    };
    let lower_meaning = if lps == 0 && usize::from(h.pd_lower) > 24 {
        "end of the page contents (no line pointers on this page)".to_string()
    } else {
        format!("{lps} line pointers")
    };
    let checksum_meaning = match page.checksum {
        Some(c) if c.valid => format!("matches pg_checksum_page for block {}", page.blkno),
        Some(c) if c.looks_like_tli() => format!(
            "fails for block {}; small enough to be pd_tli, the timeline pages written before PostgreSQL 9.3 hold here",
            page.blkno
        ),
        Some(c) if c.stored == 0 => match c.computed {
            Some(v) => format!("not set (would be 0x{v:04x} for block {})", page.blkno),
            None => "not set".to_string(),
        },
        Some(c) => match c.computed {
            Some(v) => format!("MISMATCH: computed 0x{v:04x} for block {}", page.blkno),
            None => "cannot be computed for this page size".to_string(),
        },
        None => String::new(),
    };
    let special = page.size.saturating_sub(usize::from(h.pd_special));
    let rows: Vec<(&str, String, String)> = vec![
        (
            "pd_lsn",
            h.pd_lsn.to_string(),
            "WAL position after the last change".into(),
        ),
        (
            "pd_checksum",
            format!("{} (0x{:04x})", h.pd_checksum, h.pd_checksum),
            checksum_meaning,
        ),
        (
            "pd_flags",
            format!("{} (0x{:04x})", h.pd_flags, h.pd_flags),
            flags::join(h.pd_flags, flags::PD_FLAGS, 0xFFFF),
        ),
        ("pd_lower", h.pd_lower.to_string(), lower_meaning),
        (
            "pd_upper",
            h.pd_upper.to_string(),
            format!(
                "{} bytes free",
                i64::from(h.pd_upper) - i64::from(h.pd_lower)
            ),
        ),
        (
            "pd_special",
            h.pd_special.to_string(),
            if special == 0 {
                "no special space".to_string()
            } else {
                format!(
                    "{special} bytes of special space ({} page)",
                    page.kind.name()
                )
            },
        ),
        (
            "pd_pagesize_version",
            format!(
                "{} (0x{:04x})",
                h.pd_pagesize_version, h.pd_pagesize_version
            ),
            format!(
                "{}-byte page, layout version {}",
                h.page_size(),
                h.layout_version()
            ),
        ),
        (
            "pd_prune_xid",
            h.pd_prune_xid.to_string(),
            if h.pd_prune_xid == 0 {
                "nothing to prune".to_string()
            } else {
                "oldest unpruned xmax on the page".to_string()
            },
        ),
    ];
    for (f, v, m) in rows {
        t.add_row(vec![f.to_string(), v, m]);
    }
    t
}

/// How many bytes of t_data the narrow view shows.
const NARROW_DATA_BYTES: usize = 12;

fn items_table(items: &[HeapItem], opts: &RenderOptions) -> Fitted {
    let mut t = new_table(
        opts,
        &[
            "lp",
            "lp_off",
            "lp_flags",
            "lp_len",
            "t_xmin",
            "t_xmax",
            "t_field3",
            "t_ctid",
            "t_infomask2",
            "t_infomask",
            "t_hoff",
            "t_bits",
            "t_oid",
            "t_data",
        ],
    );
    for item in items {
        let id = &item.id;
        let mut row = vec![
            id.lp.to_string(),
            id.lp_off.to_string(),
            format!("{} {}", id.lp_flags.code(), id.lp_flags.short()),
            id.lp_len.to_string(),
        ];
        match &item.tuple {
            Some(tup) => {
                let h = &tup.header;
                row.extend([
                    h.t_xmin.to_string(),
                    h.t_xmax.to_string(),
                    h.t_field3.to_string(),
                    h.t_ctid.to_string(),
                    h.t_infomask2.to_string(),
                    h.t_infomask.to_string(),
                    h.t_hoff.to_string(),
                    tup.t_bits.clone().unwrap_or_default(),
                    tup.t_oid.map_or(String::new(), |o| o.to_string()),
                    tup.t_data
                        .as_deref()
                        .map_or(String::new(), |d| data_cell(d, opts.wide)),
                ]);
            }
            None => row.extend(std::iter::repeat_n(String::new(), 10)),
        }
        t.add_row(row);
    }
    right(&mut t, &[0, 1, 3, 4, 5, 6, 8, 9, 10]);
    t
}

fn data_cell(data: &[u8], wide: bool) -> String {
    let shown = if wide {
        data.len().min(WIDE_CELL_CHARS / 2)
    } else {
        data.len().min(NARROW_DATA_BYTES)
    };
    let mut s = String::from("\\x");
    for b in data.iter().take(shown) {
        s.push_str(&format!("{b:02x}"));
    }
    if shown < data.len() {
        s.push_str(&format!("… ({} bytes)", data.len()));
    }
    s
}

/// Line pointers of pages whose items are not decoded further.
fn line_pointer_table(items: &[HeapItem], opts: &RenderOptions) -> Fitted {
    let mut t = new_table(
        opts,
        &["lp", "lp_off", "lp_flags", "lp_len", "line pointer"],
    );
    for item in items {
        let id = &item.id;
        t.add_row(vec![
            id.lp.to_string(),
            id.lp_off.to_string(),
            format!("{} {}", id.lp_flags.code(), id.lp_flags.short()),
            id.lp_len.to_string(),
            describe_item_id(id),
        ]);
    }
    right(&mut t, &[0, 1, 3]);
    t
}

fn verdict_table(items: &[HeapItem], opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["lp", "line pointer", "infomask flags", "verdict"]);
    for item in items {
        let flags = item.tuple.as_ref().map_or(String::new(), |tup| {
            let short = |n: &'static str| -> String { short_flag(n, opts.wide).to_string() };
            let mut text = tup
                .raw_flags
                .iter()
                .map(short)
                .collect::<Vec<_>>()
                .join(" ");
            if !tup.combined_flags.is_empty() {
                let combined = tup.combined_flags.iter().map(short).collect::<Vec<_>>();
                text.push_str(&format!(" (= {})", combined.join(" ")));
            }
            text
        });
        t.add_row(vec![
            item.id.lp.to_string(),
            describe_item_id(&item.id),
            flags,
            item.verdict.to_string(),
        ]);
    }
    right(&mut t, &[0]);
    t
}

/// A flag's name as the narrow view shows it: without the `HEAP_` all
/// t_infomask and t_infomask2 names share, except where that prefix is part
/// of the name itself (`HEAP_ONLY_TUPLE`: a heap-only tuple, not an "only
/// tuple"); whole with `--wide`.
fn short_flag(name: &'static str, wide: bool) -> &'static str {
    if wide || name == "HEAP_ONLY_TUPLE" {
        name
    } else {
        name.strip_prefix("HEAP_").unwrap_or(name)
    }
}

/// How many characters of a value the narrow view shows.
const NARROW_VALUE_CHARS: usize = 48;

/// One row per attribute of every tuple: what `SELECT` prints, and how the
/// value is stored. Written row by row (a 32 KiB page splits into up to
/// 1.87 million columns), byte for byte as the table would be drawn whole.
fn write_attrs_table(
    out: &mut dyn Write,
    items: &[HeapItem],
    opts: &RenderOptions,
) -> io::Result<()> {
    let rows = |row: &mut dyn FnMut(Vec<String>) -> io::Result<()>| -> io::Result<()> {
        for item in items {
            attrs_rows(item, opts, row)?;
        }
        Ok(())
    };
    write_streamed(
        out,
        opts,
        &[
            "lp", "attnum", "column", "type", "offset", "storage", "value",
        ],
        &[0, 1, 4],
        &rows,
    )
}

/// The rows of `item`'s attributes in the attributes table.
fn attrs_rows(
    item: &HeapItem,
    opts: &RenderOptions,
    row: &mut dyn FnMut(Vec<String>) -> io::Result<()>,
) -> io::Result<()> {
    let Some(attrs) = item.attrs.as_ref().filter(|a| !a.is_empty()) else {
        return Ok(());
    };
    {
        for (i, a) in attrs.iter().enumerate() {
            let column = match (&a.name, a.dropped) {
                (Some(n), false) => n.clone(),
                (Some(n), true) => format!("{n} (dropped)"),
                (None, true) => "(dropped)".to_string(),
                (None, false) => String::new(),
            };
            row(vec![
                if i == 0 {
                    item.id.lp.to_string()
                } else {
                    String::new()
                },
                a.attnum.to_string(),
                column,
                a.type_name.clone(),
                a.offset.map_or(String::new(), |o| o.to_string()),
                storage_cell(a),
                value_cell(a, opts.wide),
            ])?;
        }
    }
    Ok(())
}

/// `1-byte header`, `pglz 3080 bytes`, `TOAST 16496 (pglz, 6 chunks)`, …
fn storage_cell(a: &Attr) -> String {
    let len = a.raw.as_ref().map_or(0, Vec::len);
    let bytes = if len == 1 {
        "1 byte".to_string()
    } else {
        format!("{len} bytes")
    };
    match &a.storage {
        Storage::Plain => bytes,
        Storage::Cstring => format!("C string, {bytes}"),
        Storage::Short => format!("1-byte header, {bytes}"),
        Storage::Long => format!("4-byte header, {bytes}"),
        Storage::Compressed { method, rawsize } => {
            format!("{}, {len} → {rawsize} bytes", method.name())
        }
        Storage::ExternalToast => match &a.toast {
            Some(p) => {
                let how = p
                    .method
                    .map_or("uncompressed".to_string(), |m| m.name().to_string());
                let chunks = p.chunks.map_or(String::new(), |c| format!(", {c} chunks"));
                format!("TOAST {} ({how}{chunks})", p.va_valueid)
            }
            None => "TOAST".to_string(),
        },
        Storage::ExternalOther { vartag } => format!("external, vartag {vartag}"),
        Storage::Null => "null".to_string(),
        Storage::Missing => "not in tuple".to_string(),
        Storage::Unread => "not read".to_string(),
    }
}

/// The value as text, control characters escaped, shortened unless wide.
fn value_cell(a: &Attr, wide: bool) -> String {
    let text = match (&a.value, &a.storage) {
        (Some(v), _) => v.text.clone(),
        (None, Storage::Null) => return "NULL".to_string(),
        (None, Storage::Missing) => return "NULL (column added later)".to_string(),
        (None, Storage::ExternalToast) => {
            return match &a.toast {
                Some(p) if p.chunks.is_none() => format!(
                    "(out of line: {} bytes in TOAST relation {}; see --toast)",
                    p.va_rawsize.saturating_sub(4),
                    p.va_toastrelid
                ),
                _ => "(not read)".to_string(),
            }
        }
        (None, _) if a.dropped => match &a.raw {
            Some(raw) => return data_cell(raw, wide),
            None => return String::new(),
        },
        (None, _) => return "(not read)".to_string(),
    };
    let mut shown = String::new();
    let mut chars = 0usize;
    let total = text.chars().count();
    for c in text.chars() {
        if chars
            >= if wide {
                WIDE_CELL_CHARS
            } else {
                NARROW_VALUE_CHARS
            }
        {
            break;
        }
        match c {
            '\n' => shown.push_str("\\n"),
            '\t' => shown.push_str("\\t"),
            '\r' => shown.push_str("\\r"),
            c if c.is_control() => shown.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => shown.push(c),
        }
        chars += 1;
    }
    if chars < total {
        shown.push_str(&format!("… ({total} chars)"));
    }
    if a.problems.iter().any(|p| p.ends_with("may be wrong")) {
        shown.push_str(" (?)");
    }
    shown
}

fn bt_opaque_table(o: &BtPageOpaque, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["BTPageOpaqueData", "value", "meaning"]);
    let block = |b: u32| {
        if b == 0 {
            "none (P_NONE)".to_string()
        } else {
            format!("block {b}")
        }
    };
    t.add_row(vec![
        "btpo_prev".to_string(),
        o.btpo_prev.to_string(),
        format!("left sibling: {}", block(o.btpo_prev)),
    ]);
    t.add_row(vec![
        "btpo_next".to_string(),
        o.btpo_next.to_string(),
        format!("right sibling: {}", block(o.btpo_next)),
    ]);
    if o.holds_xact() {
        t.add_row(vec![
            "btpo.xact".to_string(),
            o.btpo_level.to_string(),
            "deleted before PostgreSQL 14: next xid at deletion (union btpo holds xact, not level); recyclable once no snapshot is older".to_string(),
        ]);
    } else {
        t.add_row(vec![
            "btpo_level".to_string(),
            o.btpo_level.to_string(),
            if o.btpo_level == 0 {
                "leaf level".to_string()
            } else {
                format!("{} above the leaves", o.btpo_level)
            },
        ]);
    }
    t.add_row(vec![
        "btpo_flags".to_string(),
        format!("{} (0x{:04x})", o.btpo_flags, o.btpo_flags),
        flags::join(o.btpo_flags, flags::BTPO_FLAGS, 0xFFFF),
    ]);
    t.add_row(vec![
        "btpo_cycleid".to_string(),
        o.btpo_cycleid.to_string(),
        "vacuum cycle of the last split".to_string(),
    ]);
    t
}

fn bt_meta_table(m: &BtMetaPageData, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["BTMetaPageData", "value", "meaning"]);
    let mut rows: Vec<(&str, String, String)> = vec![
        (
            "btm_magic",
            format!("0x{:06x}", m.btm_magic),
            if m.btm_magic == 0x053162 {
                "BTREE_MAGIC".into()
            } else {
                "NOT BTREE_MAGIC".into()
            },
        ),
        (
            "btm_version",
            m.btm_version.to_string(),
            match m.btm_version {
                2 => "pre-11 layout".into(),
                3 => "PostgreSQL 11: cleanup fields, no heap TID key".into(),
                4 => "PostgreSQL 12+: heap TID is a key, suffix truncation".into(),
                _ => "unknown version".into(),
            },
        ),
        ("btm_root", m.btm_root.to_string(), "root block".into()),
        (
            "btm_level",
            m.btm_level.to_string(),
            "tree level of the root".into(),
        ),
        (
            "btm_fastroot",
            m.btm_fastroot.to_string(),
            "\"fast\" root block".into(),
        ),
        (
            "btm_fastlevel",
            m.btm_fastlevel.to_string(),
            "tree level of the fast root".into(),
        ),
        (
            "btm_last_cleanup_num_delpages",
            m.btm_last_cleanup_num_delpages.to_string(),
            "deleted pages not yet recyclable at the last cleanup".into(),
        ),
        (
            "btm_last_cleanup_num_heap_tuples",
            m.btm_last_cleanup_num_heap_tuples.to_string(),
            "heap tuples at the last cleanup (deprecated)".into(),
        ),
        (
            "btm_allequalimage",
            m.btm_allequalimage.to_string(),
            if m.btm_allequalimage {
                "deduplication is safe".into()
            } else {
                "no deduplication".into()
            },
        ),
    ];
    match m.btm_version {
        // Version 2 (PostgreSQL 10 and before) ends at btm_fastlevel.
        ..=2 => rows.truncate(6),
        3 => {
            rows.pop();
            rows[6] = (
                "btm_oldest_btpo_xact",
                m.btm_last_cleanup_num_delpages.to_string(),
                "oldest btpo.xact of the deleted pages (version 3 name)".into(),
            );
        }
        _ => {}
    }
    for (f, v, meaning) in rows {
        t.add_row(vec![f.to_string(), v, meaning]);
    }
    t
}

fn bt_stats_table(s: &BtPageStats, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(
        opts,
        &[
            "type",
            "live_items",
            "dead_items",
            "avg_item_size",
            "page_size",
            "free_size",
        ],
    );
    let kind = match s.page_type {
        'l' => "l (leaf)",
        'i' => "i (internal)",
        'r' => "r (root)",
        'e' => "e (half-dead, ignored)",
        'd' => "d (deleted leaf)",
        'D' => "D (deleted internal)",
        _ => "?",
    };
    t.add_row(vec![
        kind.to_string(),
        s.live_items.to_string(),
        s.dead_items.to_string(),
        s.avg_item_size.to_string(),
        s.page_size.to_string(),
        s.free_size.to_string(),
    ]);
    right(&mut t, &[1, 2, 3, 4, 5]);
    t
}

/// How many key bytes and TIDs the narrow view shows.
const NARROW_KEY_BYTES: usize = 16;
const NARROW_TIDS: usize = 3;

fn bt_items_table(items: &[BtItem], opts: &RenderOptions) -> Fitted {
    let mut t = new_table(
        opts,
        &[
            "itemoffset",
            "ctid",
            "itemlen",
            "nulls",
            "vars",
            "data",
            "dead",
            "htid",
            "tids",
            "verdict",
        ],
    );
    let flag = |b: bool| if b { "t" } else { "f" }.to_string();
    for item in items {
        let mut row = vec![item.id.lp.to_string()];
        match &item.tuple {
            Some(tup) => {
                let shown = if opts.wide {
                    tup.data.len()
                } else {
                    tup.data.len().min(NARROW_KEY_BYTES)
                };
                let mut data = spaced_hex(tup.data.get(..shown).unwrap_or_default());
                if shown < tup.data.len() {
                    data.push_str(&format!(" … ({} bytes)", tup.data.len()));
                }
                let tids = tup.tids.as_ref().map_or(String::new(), |v| {
                    let n = if opts.wide {
                        v.len()
                    } else {
                        v.len().min(NARROW_TIDS)
                    };
                    let mut s: Vec<String> = v.iter().take(n).map(|t| t.to_string()).collect();
                    if n < v.len() {
                        s.push(format!("… {} in all", v.len()));
                    }
                    s.join(" ")
                });
                row.extend([
                    tup.t_tid.to_string(),
                    tup.itemlen.to_string(),
                    flag(tup.nulls),
                    flag(tup.vars),
                    data,
                    tup.dead.map_or(String::new(), flag),
                    tup.htid.map_or(String::new(), |h| h.to_string()),
                    tids,
                ]);
            }
            None => row.extend(std::iter::repeat_n(String::new(), 8)),
        }
        row.push(item.verdict.clone());
        t.add_row(row);
    }
    right(&mut t, &[0, 2]);
    t
}

/// The other access methods: the same values the JSON view carries, one row each.
fn am_table(page: &PgPage, am: &AmData, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &[page.kind.name(), "value"]);
    let json = serde_json::to_value(AmJson::new(page, am)).unwrap_or_default();
    if let Some(map) = json.as_object() {
        for (key, value) in map {
            let text = match value {
                serde_json::Value::String(s) => s.trim_end().to_string(),
                serde_json::Value::Object(o) => o
                    .iter()
                    .map(|(k, v)| format!("{k}: {}", short_json(v, opts.wide)))
                    .collect::<Vec<_>>()
                    .join("\n"),
                other => short_json(other, opts.wide),
            };
            t.add_row(vec![key.clone(), text]);
        }
    }
    t
}

fn short_json(v: &serde_json::Value, wide: bool) -> String {
    match v {
        serde_json::Value::Array(a) if !wide && a.len() > 8 => {
            let head: Vec<String> = a.iter().take(8).map(|x| x.to_string()).collect();
            format!("[{}, … {} in all]", head.join(", "), a.len())
        }
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::{Typed, Value};

    #[test]
    fn the_narrow_view_keeps_flag_names_whole() {
        assert_eq!(short_flag("HEAP_ONLY_TUPLE", false), "HEAP_ONLY_TUPLE");
        assert_eq!(short_flag("HEAP_HOT_UPDATED", false), "HOT_UPDATED");
        assert_eq!(short_flag("HEAP_XMIN_COMMITTED", false), "XMIN_COMMITTED");
        assert_eq!(
            short_flag("HEAP_XMIN_COMMITTED", true),
            "HEAP_XMIN_COMMITTED"
        );
    }

    fn attr(text: String) -> Attr {
        Attr {
            attnum: 1,
            name: None,
            type_name: "text".into(),
            dropped: false,
            offset: Some(0),
            raw: None,
            storage: Storage::Long,
            toast: None,
            value: Some(Value {
                text,
                typed: Typed::Text,
            }),
            problems: Vec::new(),
        }
    }

    #[test]
    fn wide_cells_stop_at_their_ceiling_and_say_how_long_the_value_is() {
        let cell = value_cell(&attr("a".repeat(3 * WIDE_CELL_CHARS)), true);
        assert!(cell.len() <= WIDE_CELL_CHARS + 32, "{}", cell.len());
        assert!(cell.ends_with(&format!("… ({} chars)", 3 * WIDE_CELL_CHARS)));
        let short = "b".repeat(1000);
        assert_eq!(value_cell(&attr(short.clone()), true), short);
        let hex = data_cell(&vec![0xab; WIDE_CELL_CHARS], true);
        assert!(hex.len() <= WIDE_CELL_CHARS + 32, "{}", hex.len());
        assert!(hex.ends_with(&format!("… ({} bytes)", WIDE_CELL_CHARS)));
    }
}
