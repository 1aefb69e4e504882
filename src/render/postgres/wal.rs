//! WAL records as text: pg_waldump's line, and the JSON object of
//! `wal --format json|ndjson`. Model in, text out.

use std::fmt::Write;

use super::wal_desc as desc;
use crate::model::postgres::wal::{fork_name, lsn, WalProblem, WalRecord};

/// The `"schema"` of `wal --format json|ndjson`.
pub(crate) use crate::render::versions::WAL as SCHEMA;

/// `text` right-aligned in `width` columns (printf's `%6u`).
fn pad_left(out: &mut String, text: &str, width: usize) {
    for _ in text.len()..width {
        out.push(' ');
    }
    out.push_str(text);
}

/// `%X` of `v`, at least `width` digits (`%08X`).
fn hex(out: &mut String, v: u32, width: usize) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    let mut buf = [b'0'; 8];
    let mut n = 8;
    let mut x = v;
    loop {
        n -= 1;
        buf[n] = DIGITS[(x & 0xF) as usize];
        x >>= 4;
        if x == 0 {
            break;
        }
    }
    let start = n.min(8 - width.min(8));
    out.extend(buf[start..].iter().map(|&b| char::from(b)));
}

/// pg_waldump's line for `rec` (PostgreSQL 15's `XLogDumpDisplayRecord`:
/// `rmgr: %-11s len (rec/tot): %6u/%6u, tx: %10u, lsn: %X/%08X, prev
/// %X/%08X, desc: …`), with its newline. Written by hand, not by `write!`:
/// a listing is millions of these lines.
pub(crate) fn table_line(rec: &WalRecord, bytes: &[u8], out: &mut String) {
    let mut num = itoa::Buffer::new();
    out.push_str("rmgr: ");
    let name = rec.rmgr_name();
    out.push_str(&name);
    for _ in name.len()..11 {
        out.push(' ');
    }
    out.push_str(" len (rec/tot): ");
    pad_left(out, num.format(rec.rec_len()), 6);
    out.push('/');
    pad_left(out, num.format(rec.tot_len), 6);
    out.push_str(", tx: ");
    pad_left(out, num.format(rec.xid), 10);
    out.push_str(", lsn: ");
    hex(out, (rec.lsn >> 32) as u32, 1);
    out.push('/');
    hex(out, rec.lsn as u32, 8);
    out.push_str(", prev ");
    hex(out, (rec.prev >> 32) as u32, 1);
    out.push('/');
    hex(out, rec.prev as u32, 8);
    out.push_str(", desc: ");
    desc::describe(rec, bytes, out);
    desc::block_refs(rec, out);
    out.push('\n');
}

/// The description alone, as JSON's `desc` carries it: pg_waldump's text
/// between `desc: ` and the block references, without a trailing space.
pub(crate) fn desc_text(rec: &WalRecord, bytes: &[u8]) -> String {
    let mut s = String::new();
    desc::describe(rec, bytes, &mut s);
    let keep = s.trim_end().len();
    s.truncate(keep);
    s
}

fn json_str(out: &mut String, s: &str) {
    // serde_json's escaping of a plain string cannot fail.
    out.push_str(&serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into()));
}

/// One record as a compact JSON object (no newline).
pub(crate) fn json_record(rec: &WalRecord, bytes: &[u8], out: &mut String) {
    let _ = write!(
        out,
        "{{\"lsn\":\"{}\",\"prev\":\"{}\",\"rmgr\":",
        lsn(rec.lsn),
        lsn(rec.prev)
    );
    json_str(out, &rec.rmgr_name());
    let _ = write!(
        out,
        ",\"xid\":{},\"len\":{},\"tot_len\":{},\"desc\":",
        rec.xid,
        rec.rec_len(),
        rec.tot_len
    );
    json_str(out, &desc_text(rec, bytes));
    out.push_str(",\"blocks\":[");
    for (i, b) in rec.blocks.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        let _ = write!(
            out,
            "{{\"id\":{},\"rel\":\"{}\",\"fork\":\"{}\",\"blk\":{},\"fpi\":{}}}",
            b.id,
            b.rel,
            fork_name(b.fork),
            b.blk,
            b.image.is_some()
        );
    }
    out.push_str("]}");
}

/// One problem as a compact JSON object.
pub(crate) fn json_problem(p: &WalProblem) -> String {
    serde_json::to_string(p).unwrap_or_default()
}

/// One problem as a line of standard error.
pub(crate) fn problem_line(p: &WalProblem) -> String {
    format!(
        "blockscope: wal: {}: offset {} (LSN {}): {}\n",
        crate::escape::name(&p.file),
        p.offset,
        p.lsn,
        p.message
    )
}
