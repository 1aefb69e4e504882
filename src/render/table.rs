//! Tables for people: one per structure, fitted to the terminal.

use std::io::{self, Write};

use comfy_table::presets::UTF8_FULL_CONDENSED;
use comfy_table::{Cell, CellAlignment, ContentArrangement, Table};

use crate::model::postgres::{HeapItem, PageHeader, PageKind, PgPage};
use crate::parse::postgres::flags;
use crate::parse::postgres::page::describe_item_id;

use super::RenderOptions;

fn new_table(opts: &RenderOptions, header: &[&str]) -> Table {
    let mut t = Table::new();
    t.load_preset(UTF8_FULL_CONDENSED);
    match opts.width {
        Some(w) => {
            t.set_content_arrangement(ContentArrangement::Dynamic);
            t.set_width(w);
        }
        None => {
            t.force_no_tty();
            t.set_content_arrangement(ContentArrangement::Disabled);
        }
    }
    t.set_header(header.iter().map(Cell::new));
    t
}

fn right(t: &mut Table, columns: &[usize]) {
    for &c in columns {
        if let Some(col) = t.column_mut(c) {
            col.set_cell_alignment(CellAlignment::Right);
        }
    }
}

/// Render one PostgreSQL page as tables.
pub fn render_page(out: &mut dyn Write, page: &PgPage, opts: &RenderOptions) -> io::Result<()> {
    writeln!(
        out,
        "block {} · {} page · {} bytes",
        page.blkno,
        page.kind.name(),
        page.size
    )?;
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
    if !page.items.is_empty() {
        writeln!(out, "{}", items_table(&page.items, opts))?;
        if page.items.iter().any(|i| i.tuple.is_some()) || page.kind == PageKind::Heap {
            writeln!(out, "{}", verdict_table(&page.items, opts))?;
        }
    }
    if !page.problems.is_empty() {
        let mut t = new_table(opts, &["severity", "offset", "field", "problem"]);
        for p in &page.problems {
            t.add_row(vec![
                p.severity.as_str().to_string(),
                p.offset.map_or(String::new(), |o| o.to_string()),
                p.field.clone(),
                p.message.clone(),
            ]);
        }
        writeln!(out, "{t}")?;
    }
    Ok(())
}

fn header_table(h: &PageHeader, page: &PgPage, opts: &RenderOptions) -> Table {
    let mut t = new_table(opts, &["field", "value", "meaning"]);
    let lps = page.items.len();
    let checksum_meaning = match page.checksum {
        Some(c) if c.valid => format!("matches pg_checksum_page for block {}", page.blkno),
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
        (
            "pd_lower",
            h.pd_lower.to_string(),
            format!("{lps} line pointers"),
        ),
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

fn items_table(items: &[HeapItem], opts: &RenderOptions) -> Table {
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
        data.len()
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

fn verdict_table(items: &[HeapItem], opts: &RenderOptions) -> Table {
    let mut t = new_table(opts, &["lp", "line pointer", "infomask flags", "verdict"]);
    for item in items {
        let flags = item.tuple.as_ref().map_or(String::new(), |tup| {
            let short = |n: &&'static str| -> String {
                if opts.wide {
                    n.to_string()
                } else {
                    n.trim_start_matches("HEAP_").to_string()
                }
            };
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
            item.verdict.clone(),
        ]);
    }
    right(&mut t, &[0]);
    t
}
