//! WAL records as text: pg_waldump's line, and the JSON object of
//! `wal --format json|ndjson`. Model in, text out.

use std::fmt::Write;

use crate::model::postgres::wal::{fork_name, lsn, WalProblem, WalRecord};
use crate::parse::postgres::wal::desc;

/// The `"schema"` of `wal --format json|ndjson`.
pub(crate) use crate::render::versions::WAL as SCHEMA;

/// pg_waldump's line for `rec` (PostgreSQL 15's `XLogDumpDisplayRecord`),
/// with its newline.
pub(crate) fn table_line(rec: &WalRecord, bytes: &[u8], out: &mut String) {
    let prev = rec.prev;
    let _ = write!(
        out,
        "rmgr: {:<11} len (rec/tot): {:>6}/{:>6}, tx: {:>10}, lsn: {:X}/{:08X}, prev {:X}/{:08X}, desc: ",
        rec.rmgr_name(),
        rec.rec_len(),
        rec.tot_len,
        rec.xid,
        rec.lsn >> 32,
        rec.lsn as u32,
        prev >> 32,
        prev as u32,
    );
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
