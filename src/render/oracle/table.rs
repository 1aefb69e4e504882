//! Oracle blocks as tables: one per structure (cache header, transaction
//! header, ITLs, data header, directories, rows, columns, index header and
//! entries, problems), each value raw and explained.

use std::io::{self, Write};

use crate::render::fit::Fitted;

use crate::model::oracle::names;
use crate::model::oracle::text::{scn_fsc_text, uba_text, xid_text};
use crate::model::oracle::types::{ColumnValue, ValueForm};
use crate::model::oracle::{
    Column, IndexData, Kcbh, Ktbbh, OracleBlock, OracleKind, Rdba, TableData,
};

use crate::render::fit::{new_table, right, WIDE_CELL_CHARS};
use crate::render::RenderOptions;

/// How many column bytes the narrow view shows.
const NARROW_BYTES: usize = 16;

/// Render one Oracle block as tables. `bigfile` forces the `1024/N` rdba form.
pub fn render_block(
    out: &mut dyn Write,
    block: &OracleBlock,
    bigfile: bool,
    opts: &RenderOptions,
) -> io::Result<()> {
    writeln!(out, "{}", title(block, bigfile))?;
    match block.kind {
        OracleKind::Zero => {
            writeln!(
                out,
                "all {} bytes are zero: a never-formatted block",
                block.size
            )?;
        }
        OracleKind::OsHeader => {
            if let Some(h) = &block.os_header {
                let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
                t.add_row(vec![
                    "block_size".into(),
                    "20".into(),
                    h.block_size.to_string(),
                    "bytes per block of this datafile".into(),
                ]);
                t.add_row(vec![
                    "block_count".into(),
                    "24".into(),
                    h.block_count.to_string(),
                    "blocks in the file (after this header block)".into(),
                ]);
                t.add_row(vec![
                    "magic".into(),
                    "28".into(),
                    format!("0x{:08x}", h.magic),
                    "datafile OS header magic".into(),
                ]);
                writeln!(out, "{t}")?;
            }
        }
        _ => {}
    }
    if let Some(h) = &block.kcbh {
        writeln!(out, "{}", cache_table(block, h, bigfile, opts))?;
    }
    if let Some(fh) = &block.file_header {
        let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
        for (f, off, v, m) in [
            (
                "kccfhcvn",
                24,
                format!("0x{:08x}", fh.kccfhcvn),
                "compatibility version",
            ),
            ("kccfhdbi", 28, fh.kccfhdbi.to_string(), "database id"),
            (
                "kccfhfsz",
                44,
                fh.kccfhfsz.to_string(),
                "file size in blocks",
            ),
            ("kccfhbsz", 48, fh.kccfhbsz.to_string(), "block size"),
            (
                "kccfhfno",
                52,
                fh.kccfhfno.to_string(),
                "absolute file number",
            ),
            (
                "kcvfhtsn",
                332,
                fh.kcvfhtsn.to_string(),
                "tablespace number",
            ),
            (
                "kcvfhrfn",
                368,
                fh.kcvfhrfn.to_string(),
                "relative file number",
            ),
            ("kccfhdbn", 32, fh.kccfhdbn.clone(), "database name"),
            (
                "kccfhcsq",
                40,
                fh.kccfhcsq.to_string(),
                "control file sequence",
            ),
            (
                "kccfhtyp",
                54,
                fh.kccfhtyp.to_string(),
                "file type (3 = data file)",
            ),
            ("kcvfhrdb", 96, format!("0x{:08x}", fh.kcvfhrdb), "root dba"),
            (
                "kcvfhcrs",
                100,
                format!("0x{:x}", fh.kcvfhcrs.value()),
                "creation SCN",
            ),
            (
                "kcvfhcrt",
                108,
                format!("{} ({})", fh.kcvfhcrt, fh.recovery.creation_time),
                "creation time",
            ),
            ("kcvfhrlc", 112, fh.kcvfhrlc.to_string(), "resetlogs count"),
            (
                "kcvfhrls",
                116,
                format!("0x{:x}", fh.kcvfhrls.value()),
                "resetlogs SCN",
            ),
            (
                "kcvfhsta",
                138,
                if fh.recovery.kcvfhsta_names.is_empty() {
                    format!("0x{:04x}", fh.kcvfhsta)
                } else {
                    format!(
                        "0x{:04x} ({})",
                        fh.kcvfhsta,
                        fh.recovery.kcvfhsta_names.join(" ")
                    )
                },
                if fh.recovery.fuzzy {
                    "status flags: fuzzy (a copy in this state needs media recovery)"
                } else {
                    "status flags: not fuzzy"
                },
            ),
            ("kcvfhcpc", 140, fh.kcvfhcpc.to_string(), "checkpoint count"),
            (
                "kcvfhccc",
                148,
                fh.kcvfhccc.to_string(),
                "control file checkpoint count",
            ),
            ("kcvfhtnm", 338, fh.kcvfhtnm.clone(), "tablespace name"),
            (
                "kcvfhckp",
                484,
                format!("0x{:x}", fh.kcvfhckp_scn.value()),
                "checkpoint SCN",
            ),
            (
                "kcvcptim",
                492,
                format!("{} ({})", fh.kcvfhckp_time, fh.recovery.checkpoint_time),
                "checkpoint time",
            ),
            (
                "kcvcpthr",
                496,
                fh.recovery.kcvcpthr.to_string(),
                "checkpoint thread",
            ),
            (
                "kcvcprba",
                500,
                format!(
                    "0x{:x}.{:x}.{:x}",
                    fh.recovery.kcvcprba.kcrbaseq,
                    fh.recovery.kcvcprba.kcrbabno,
                    fh.recovery.kcvcprba.kcrbabof
                ),
                "checkpoint redo address (log seq.block.offset)",
            ),
        ] {
            t.add_row(vec![f.to_string(), off.to_string(), v, m.to_string()]);
        }
        writeln!(out, "{t}")?;
    }
    if let Some(t) = &block.ktbbh {
        writeln!(out, "{}", ktbbh_table(t, opts))?;
        writeln!(out, "{}", itl_table(t, opts))?;
    }
    if let Some(tab) = &block.table {
        write_table_data(out, tab, opts)?;
    }
    if let Some(ix) = &block.index {
        write_index(out, ix, opts)?;
    }
    if !block.problems.is_empty() {
        writeln!(
            out,
            "{}",
            crate::render::problems::table(&block.problems, opts)
        )?;
    }
    Ok(())
}

/// `block 0 · oracle table block · 8192 bytes · little-endian · rdba 0x0000038b (1024/907)`.
pub(crate) fn title(block: &OracleBlock, bigfile: bool) -> String {
    let what = match block.kind {
        OracleKind::Table => "table block (trans data)",
        OracleKind::IndexLeaf => "index leaf block (trans data)",
        OracleKind::IndexBranch => "index branch block (trans data)",
        OracleKind::TransData => "trans data block",
        OracleKind::FileHeader => "datafile header block",
        OracleKind::Other => "block",
        OracleKind::Zero => "zero block",
        OracleKind::OsHeader => "datafile OS header (block 0)",
        OracleKind::Unknown => "unrecognised block",
    };
    let mut s = format!(
        "block {} · oracle {what} · {} bytes · {}-endian",
        block.blkno,
        block.size,
        match block.endian {
            crate::model::oracle::ByteOrder::Little => "little",
            crate::model::oracle::ByteOrder::Big => "big",
        }
    );
    if let Some(h) = &block.kcbh {
        let (f, b) = Rdba(h.rdba_kcbh).split(bigfile);
        s.push_str(&format!(" · rdba 0x{:08x} ({f}/{b})", h.rdba_kcbh));
        if block.kind == OracleKind::Other {
            s.push_str(&format!(
                " · type 0x{:02x} {}",
                h.type_kcbh,
                names::block_type_name(h.type_kcbh).unwrap_or("unknown")
            ));
        }
    }
    if block.encrypted {
        s.push_str(" · ENCRYPTED (header only)");
    }
    s
}

fn cache_table(block: &OracleBlock, h: &Kcbh, bigfile: bool, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
    let (file, blk) = Rdba(h.rdba_kcbh).split(bigfile);
    let rdba_meaning = if file == 1024 {
        format!("bigfile: block {blk} (shown as 1024/{blk})")
    } else {
        format!("relative file {file}, block {blk}")
    };
    let frmt_meaning = match h.block_size() {
        Some(bs) => format!("format {}, {bs}-byte blocks", h.frmt_kcbh & 0x0f),
        None => format!("format {}, block size not encoded", h.frmt_kcbh & 0x0f),
    };
    let (flag_names, unknown) = names::kcbh_flag_names(h.flg_kcbh);
    let mut flg_meaning = flag_names.join(" ");
    if unknown != 0 {
        flg_meaning.push_str(&format!(" unknown 0x{unknown:02x}"));
    }
    let chk_meaning = match &block.checksum {
        Some(c) if !c.enabled => format!(
            "check value not in use (flg lacks 0x04); would be 0x{:04x}",
            c.computed
        ),
        Some(c) if c.valid => "block XORs to zero: consistent".to_string(),
        Some(c) => format!("MISMATCH: computed 0x{:04x}", c.computed),
        None => String::new(),
    };
    let scn = h.scn();
    let rows: Vec<(&str, usize, String, String)> = vec![
        (
            "type_kcbh",
            0,
            format!("0x{:02x}", h.type_kcbh),
            names::block_type_name(h.type_kcbh)
                .unwrap_or("unknown type")
                .to_string(),
        ),
        (
            "frmt_kcbh",
            1,
            format!("0x{:02x}", h.frmt_kcbh),
            frmt_meaning,
        ),
        (
            "spare1_kcbh",
            2,
            h.spare1_kcbh.to_string(),
            "12.2+: high half of wrp2_kcbh".into(),
        ),
        (
            "spare2_kcbh",
            3,
            h.spare2_kcbh.to_string(),
            "12.2+: low half of wrp2_kcbh".into(),
        ),
        (
            "rdba_kcbh",
            4,
            format!("0x{:08x}", h.rdba_kcbh),
            rdba_meaning,
        ),
        (
            "bas_kcbh",
            8,
            format!("0x{:08x}", h.bas_kcbh),
            format!(
                "SCN base; SCN {} (0x{:x}.{:08x})",
                scn.value(),
                scn.wrap(),
                scn.kscnbas
            ),
        ),
        (
            "wrp_kcbh",
            12,
            format!("0x{:04x}", h.wrp_kcbh),
            if scn.is_big() {
                "SCN wrap with the 12.2+ big-SCN flag 0x8000".into()
            } else {
                "SCN wrap".into()
            },
        ),
        (
            "seq_kcbh",
            14,
            format!("0x{:02x}", h.seq_kcbh),
            if h.seq_kcbh == 0xff {
                "MARKED CORRUPT (0xff)".into()
            } else {
                "changes at this SCN".into()
            },
        ),
        ("flg_kcbh", 15, format!("0x{:02x}", h.flg_kcbh), flg_meaning),
        (
            "chkval_kcbh",
            16,
            format!("0x{:04x}", h.chkval_kcbh),
            chk_meaning,
        ),
        ("spare3_kcbh", 18, h.spare3_kcbh.to_string(), String::new()),
    ];
    for (f, off, v, m) in rows {
        t.add_row(vec![f.to_string(), off.to_string(), v, m]);
    }
    if let Some(tail) = block.tailchk {
        let expected = h.expected_tail();
        t.add_row(vec![
            "tailchk".to_string(),
            block.size.saturating_sub(4).to_string(),
            format!("0x{tail:08x}"),
            if tail == expected {
                "consistent: SCN base low 16 bits, type, seq".to_string()
            } else {
                format!("FRACTURED: header implies 0x{expected:08x}")
            },
        ]);
    }
    t
}

fn ktbbh_table(k: &Ktbbh, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
    let assm = k.is_assm();
    let csc = k.ktbbhcsc;
    let mut rows: Vec<(&str, usize, String, String)> = vec![
        (
            "ktbbhtyp",
            20,
            k.ktbbhtyp.to_string(),
            match k.ktbbhtyp {
                1 => "DATA".into(),
                2 => "INDEX".into(),
                _ => "unknown".into(),
            },
        ),
        (
            "ktbbhsid",
            24,
            format!("0x{:x}", k.ktbbhsid),
            format!("data object id {}", k.ktbbhsid),
        ),
        (
            "ktbbhcsc",
            28,
            format!("0x{:02x}.{:x}", csc.wrap(), csc.kscnbas),
            format!("cleanout SCN {}", csc.value()),
        ),
        ("ktbbhict", 36, k.ktbbhict.to_string(), "ITL entries".into()),
        (
            "ktbbhflg",
            38,
            format!("0x{:02x}", k.ktbbhflg),
            format!(
                "flg: {} ({})",
                names::ktbbh_flag_letter(k.ktbbhflg),
                if assm {
                    "ASSM, 8-byte extension after the ITLs"
                } else if k.ktbbhflg & 0x01 != 0 {
                    "MSSM, block on a freelist"
                } else {
                    "MSSM"
                }
            ),
        ),
        (
            if assm { "brn" } else { "ktbbhfsl" },
            39,
            k.ktbbhfsl.to_string(),
            if assm {
                "brn".into()
            } else {
                "ITL freelist slot".into()
            },
        ),
        (
            if assm { "bdba" } else { "ktbbhfnx" },
            40,
            format!("0x{:08x}", k.ktbbhfnx),
            if assm {
                "level-1 bitmap block".into()
            } else {
                "next block on the freelist".into()
            },
        ),
    ];
    if let Some(e) = &k.extension {
        let at = k.payload_offset.saturating_sub(8);
        rows.push(("inc", at, e.inc.to_string(), "ASSM extension".into()));
        rows.push((
            "exflg",
            at + 4,
            e.exflg.to_string(),
            "ASSM extension".into(),
        ));
    }
    for (f, off, v, m) in rows {
        t.add_row(vec![f.to_string(), off.to_string(), v, m]);
    }
    t.add_row(vec![
        "(payload)".to_string(),
        k.payload_offset.to_string(),
        format!("0x{:x}", k.payload_offset),
        "data/index header offset: 44 + 24·itc (+ 8 ASSM)".to_string(),
    ]);
    t
}

fn itl_table(k: &Ktbbh, opts: &RenderOptions) -> Fitted {
    let mut t = new_table(opts, &["itl", "xid", "uba", "flag", "lck", "scn/fsc"]);
    for i in &k.ktbbhitl {
        t.add_row(vec![
            format!("0x{:02x}", i.itl),
            xid_text(i),
            uba_text(i),
            names::itl_flag_string(i.ktbitflg),
            i.lock_count().to_string(),
            scn_fsc_text(i),
        ]);
    }
    right(&mut t, &[4]);
    t
}

fn write_table_data(out: &mut dyn Write, tab: &TableData, opts: &RenderOptions) -> io::Result<()> {
    let k = &tab.kdbh;
    let p = k.offset;
    let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
    let mut rows: Vec<(&str, usize, String, String)> = vec![
        (
            "kdbhflag",
            p,
            names::kdbh_flag_string(k.kdbhflag),
            format!("0x{:02x}", k.kdbhflag),
        ),
        (
            "kdbhntab",
            p + 1,
            k.kdbhntab.to_string(),
            "tables (more than 1: cluster)".into(),
        ),
        (
            "kdbhnrow",
            p + 2,
            k.kdbhnrow.to_string(),
            "row directory slots".into(),
        ),
        (
            "kdbhfrre",
            p + 4,
            k.kdbhfrre.to_string(),
            "first free slot (-1: none)".into(),
        ),
        (
            "kdbhfsbo",
            p + 6,
            format!("0x{:x}", k.kdbhfsbo),
            format!(
                "free space begins at block offset {}",
                p + usize::from(k.kdbhfsbo)
            ),
        ),
        (
            "kdbhfseo",
            p + 8,
            format!("0x{:x}", k.kdbhfseo),
            format!(
                "free space ends at block offset {}",
                p + usize::from(k.kdbhfseo)
            ),
        ),
        (
            "kdbhavsp",
            p + 10,
            format!("0x{:x}", k.kdbhavsp as u16),
            format!("{} bytes available", k.kdbhavsp),
        ),
        (
            "kdbhtosp",
            p + 12,
            format!("0x{:x}", k.kdbhtosp as u16),
            format!("{} bytes once all transactions commit", k.kdbhtosp),
        ),
        (
            "tsiz",
            p,
            format!("0x{:x}", k.tsiz),
            "data area: block size − header offset − 4".into(),
        ),
    ];
    if let Some(c) = &k.kdbh9ir2 {
        // The 9iR2 header of a basic/OLTP compressed block (kdbhflag 0x40).
        rows.push((
            "flag_9ir2",
            p + 21,
            format!(
                "0x{:02x} {}",
                c.flag_9ir2,
                names::flag_9ir2_string(c.flag_9ir2)
            ),
            "compressed block (kdbhflag 0x40): 9iR2 header after kdbh".into(),
        ));
        rows.push((
            "fcls_9ir2",
            p + 22,
            format!("{:?}", c.fcls_9ir2),
            format!("{} entries", c.fcls_9ir2.len()),
        ));
        if !c.perm_9ir2.is_empty() {
            rows.push((
                "perm_9ir2",
                p + 22 + 2 * c.fcls_9ir2.len(),
                format!("{:?}", c.perm_9ir2),
                format!("{} entries", c.perm_9ir2.len()),
            ));
        }
    }
    rows.push((
        "hsiz",
        p,
        format!("0x{:x}", k.hsiz),
        if k.kdbh9ir2.is_some() {
            "14 + 9iR2 header + 4·ntab + 2·nrow".into()
        } else {
            "14 + 4·ntab + 2·nrow".into()
        },
    ));
    for (f, off, v, m) in rows {
        t.add_row(vec![f.to_string(), off.to_string(), v, m]);
    }
    writeln!(out, "{t}")?;

    let mut d = new_table(opts, &["directory", "offset", "value", "meaning"]);
    for e in &tab.kdbt {
        d.add_row(vec![
            format!("kdbt[{}]", e.table),
            (p + k.header_size() + 4 * e.table).to_string(),
            format!("nrow={} offs={}", e.kdbtnrow, e.kdbtoffs),
            format!("table {}: slots {}..", e.table, e.kdbtoffs),
        ]);
    }
    let dir = p + k.header_size() + 4 * tab.kdbt.len();
    for e in &tab.kdbr {
        d.add_row(vec![
            format!("kdbr[{}]", e.slot),
            (dir + 2 * e.slot).to_string(),
            if e.free {
                format!("sfll={}", e.kdbr as i16)
            } else {
                format!("offs=0x{:x}", e.kdbr)
            },
            if e.free {
                "free slot; next free slot".to_string()
            } else {
                format!("row at block offset {}", p + usize::from(e.kdbr))
            },
        ]);
    }
    writeln!(out, "{d}")?;

    if tab.rows.is_empty() {
        return Ok(());
    }
    let mut r = new_table(
        opts,
        &[
            "tab",
            "row",
            "@offs",
            "offset",
            "tl",
            "fb",
            "lb",
            "cc",
            "rowid links",
        ],
    );
    for row in &tab.rows {
        let mut links = Vec::new();
        if let Some(h) = row.hrid {
            links.push(format!("hrid 0x{:08x}.{:x}", h.dba, h.slot));
        }
        if let Some(n) = row.nrid {
            links.push(format!("nrid 0x{:08x}.{:x}", n.dba, n.slot));
        }
        r.add_row(vec![
            row.tab.to_string(),
            row.row.to_string(),
            format!("0x{:x}", row.offs),
            row.offset.to_string(),
            row.tl.to_string(),
            names::row_flag_string(row.flag),
            format!("0x{:x}", row.lb),
            row.cc.map_or("(deleted)".to_string(), |c| c.to_string()),
            links.join(" "),
        ]);
    }
    right(&mut r, &[0, 1, 3, 4, 7]);
    writeln!(out, "{r}")?;

    let typed = tab
        .rows
        .iter()
        .any(|r| !r.trailing_nulls.is_empty() || r.cols.iter().any(|c| c.value.is_some()));
    if typed {
        return write_typed_columns(out, tab, opts);
    }
    let mut c = new_table(
        opts,
        &["tab", "row", "col", "offset", "len", "bytes", "reads as"],
    );
    for row in &tab.rows {
        for col in &row.cols {
            c.add_row(vec![
                row.tab.to_string(),
                row.row.to_string(),
                col.col.to_string(),
                col.offset.to_string(),
                len_cell(col),
                bytes_cell(&col.data, opts.wide),
                col.reads_as.clone(),
            ]);
        }
    }
    right(&mut c, &[0, 1, 2, 3, 4]);
    writeln!(out, "{c}")
}

fn len_cell(col: &Column) -> String {
    match col.len {
        None => "NULL".to_string(),
        Some(l) if col.long_form => format!("{l} (0xfe form)"),
        Some(l) => l.to_string(),
    }
}

/// The columns table when `--columns` gave types: name, type and value per
/// column, and the trailing NULLs a whole row does not store.
fn write_typed_columns(
    out: &mut dyn Write,
    tab: &TableData,
    opts: &RenderOptions,
) -> io::Result<()> {
    let mut c = new_table(
        opts,
        &[
            "tab", "row", "col", "name", "type", "offset", "len", "bytes", "value",
        ],
    );
    for row in &tab.rows {
        for col in &row.cols {
            let (name, ty, value) = match &col.value {
                Some(v) => (
                    v.name.clone().unwrap_or_default(),
                    v.type_name.clone(),
                    value_cell(v),
                ),
                None => (String::new(), String::new(), String::new()),
            };
            c.add_row(vec![
                row.tab.to_string(),
                row.row.to_string(),
                col.col.to_string(),
                name,
                ty,
                col.offset.to_string(),
                len_cell(col),
                bytes_cell(&col.data, opts.wide),
                value,
            ]);
        }
        for a in &row.trailing_nulls {
            c.add_row(vec![
                row.tab.to_string(),
                row.row.to_string(),
                a.col.to_string(),
                a.name.clone().unwrap_or_default(),
                a.type_name.clone(),
                String::new(),
                "-".to_string(),
                String::new(),
                "NULL (trailing, not stored)".to_string(),
            ]);
        }
    }
    right(&mut c, &[0, 1, 2, 5, 6]);
    writeln!(out, "{c}")
}

/// A value as the table shows it: text with control characters escaped,
/// `NULL`, or hex followed by the note saying why.
fn value_cell(v: &ColumnValue) -> String {
    match (&v.value, v.form) {
        (None, _) => "NULL".to_string(),
        (Some(t), ValueForm::Text) => t
            .chars()
            .flat_map(|ch| {
                if ch.is_control() {
                    ch.escape_default().collect::<Vec<_>>()
                } else {
                    vec![ch]
                }
            })
            .collect(),
        (Some(_), ValueForm::Hex) => {
            format!("(hex) {}", v.note.as_deref().unwrap_or("not decoded"))
        }
    }
}

fn bytes_cell(data: &[u8], wide: bool) -> String {
    let shown = if wide {
        data.len().min(WIDE_CELL_CHARS / 3)
    } else {
        data.len().min(NARROW_BYTES)
    };
    let mut s = crate::model::oracle::hex_string(data.get(..shown).unwrap_or_default());
    if shown < data.len() {
        s.push_str(&format!(" … ({} bytes)", data.len()));
    }
    s
}

fn write_index(out: &mut dyn Write, ix: &IndexData, opts: &RenderOptions) -> io::Result<()> {
    let c = &ix.kdxco;
    let p = c.offset;
    let mut t = new_table(opts, &["field", "offset", "value", "meaning"]);
    let mut rows: Vec<(&str, usize, String, String)> = vec![
        (
            "kdxcolev",
            p,
            c.kdxcolev.to_string(),
            if c.kdxcolev == 0 {
                "leaf".into()
            } else {
                format!("branch level {}", c.kdxcolev)
            },
        ),
        ("kdxcolok", p + 1, c.kdxcolok.to_string(), String::new()),
        (
            "kdxcoopc",
            p + 2,
            format!("0x{:02x}", c.kdxcoopc),
            format!(
                "opcode {}{}",
                c.kdxcoopc & 0x0f,
                if c.kdxcoopc & 0x80 != 0 {
                    ", converted"
                } else {
                    ""
                }
            ),
        ),
        (
            "kdxconco",
            p + 3,
            c.kdxconco.to_string(),
            "columns per entry".into(),
        ),
        (
            "kdxcosdc",
            p + 4,
            c.kdxcosdc.to_string(),
            "structural changes".into(),
        ),
        ("kdxconro", p + 8, c.kdxconro.to_string(), "entries".into()),
        (
            "kdxcofbo",
            p + 10,
            c.kdxcofbo.to_string(),
            "free space begin (relative)".into(),
        ),
        (
            "kdxcofeo",
            p + 12,
            c.kdxcofeo.to_string(),
            "free space end (relative)".into(),
        ),
        (
            "kdxcoavs",
            p + 14,
            c.kdxcoavs.to_string(),
            "available space".into(),
        ),
    ];
    if let Some(l) = &ix.kdxle {
        rows.extend([
            ("kdxlespl", p + 16, l.kdxlespl.to_string(), String::new()),
            (
                "kdxlende",
                p + 18,
                l.kdxlende.to_string(),
                "deleted entries".into(),
            ),
            (
                "kdxlenxt",
                p + 20,
                format!("0x{:08x}", l.kdxlenxt),
                "next leaf".into(),
            ),
            (
                "kdxleprv",
                p + 24,
                format!("0x{:08x}", l.kdxleprv),
                "previous leaf".into(),
            ),
            (
                "kdxledsz",
                p + 28,
                l.kdxledsz.to_string(),
                "rowid bytes before the key (unique index)".into(),
            ),
            ("kdxleflg", p + 29, l.kdxleflg.to_string(), String::new()),
            (
                "kdxlebksz",
                p + 32,
                ix.kd_off_head[0].to_string(),
                "usable space (first directory slot)".into(),
            ),
        ]);
    }
    if let Some(b) = &ix.kdxbr {
        rows.extend([
            (
                "kdxbrlmc",
                p + 16,
                format!("0x{:08x}", b.kdxbrlmc),
                "leftmost child".into(),
            ),
            ("kdxbrsno", p + 20, b.kdxbrsno.to_string(), String::new()),
            (
                "kdxbrbksz",
                p + 24,
                ix.kd_off_head[0].to_string(),
                "usable space (first directory slot)".into(),
            ),
        ]);
    }
    for (f, off, v, m) in rows {
        t.add_row(vec![f.to_string(), off.to_string(), v, m]);
    }
    writeln!(out, "{t}")?;
    if ix.entries.is_empty() {
        return Ok(());
    }
    let mut e = new_table(
        opts,
        &[
            "row",
            "[offs]",
            "offset",
            "flag",
            "lock",
            "len",
            "rowid / dba",
            "columns",
        ],
    );
    for en in &ix.entries {
        let cols: Vec<String> = en
            .cols
            .iter()
            .map(|c| match c.len {
                None if en.dba.is_some() => "TERM".to_string(),
                None => "NULL".to_string(),
                Some(_) => bytes_cell(&c.data, opts.wide),
            })
            .collect();
        e.add_row(vec![
            en.row.to_string(),
            en.offs.to_string(),
            en.offset.to_string(),
            en.flag.map_or(String::new(), names::index_flag_string),
            en.lock.map_or(String::new(), |l| l.to_string()),
            en.len.map_or(String::new(), |l| l.to_string()),
            match (&en.rowid, en.dba) {
                (Some(r), _) => crate::model::oracle::hex_string(r),
                (None, Some(d)) => format!("0x{d:08x}"),
                _ => String::new(),
            },
            cols.join(" | "),
        ]);
    }
    right(&mut e, &[0, 1, 2, 4, 5]);
    writeln!(out, "{e}")
}
