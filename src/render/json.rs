//! JSON and NDJSON: pageinspect's column names and text forms.
//!
//! A PostgreSQL page becomes
//! `{engine, blkno, kind, header, items, checksum, problems}` where `header`
//! holds `page_header()`'s columns and each item `heap_page_items()`'s columns
//! followed by `heap_tuple_infomask_flags()`'s `raw_flags`/`combined_flags`
//! and a plain-words `verdict`.

use std::io::{self, Write};

use serde::Serialize;

use crate::model::postgres::{ChecksumCheck, HeapItem, PageHeader, PgPage};
use crate::model::Problem;

/// `page_header()` columns.
#[derive(Serialize)]
pub struct HeaderJson {
    pub lsn: String,
    /// smallint in pageinspect: values above 32767 print negative.
    pub checksum: i16,
    pub flags: i16,
    pub lower: u16,
    pub upper: u16,
    pub special: u16,
    pub pagesize: usize,
    pub version: u8,
    pub prune_xid: u32,
}

impl HeaderJson {
    pub fn from_header(h: &PageHeader) -> Self {
        HeaderJson {
            lsn: h.pd_lsn.to_string(),
            checksum: h.pd_checksum as i16,
            flags: h.pd_flags as i16,
            lower: h.pd_lower,
            upper: h.pd_upper,
            special: h.pd_special,
            pagesize: h.page_size(),
            version: h.layout_version(),
            prune_xid: h.pd_prune_xid,
        }
    }
}

/// `heap_page_items()` columns plus the infomask flags and a verdict.
#[derive(Serialize)]
pub struct HeapItemJson<'a> {
    pub lp: u16,
    pub lp_off: u16,
    pub lp_flags: u8,
    pub lp_len: u16,
    pub t_xmin: Option<u32>,
    pub t_xmax: Option<u32>,
    pub t_field3: Option<u32>,
    pub t_ctid: Option<String>,
    pub t_infomask2: Option<u16>,
    pub t_infomask: Option<u16>,
    pub t_hoff: Option<u8>,
    pub t_bits: Option<&'a str>,
    pub t_oid: Option<u32>,
    pub t_data: Option<String>,
    pub raw_flags: Option<&'a [&'static str]>,
    pub combined_flags: Option<&'a [&'static str]>,
    pub verdict: &'a str,
}

impl<'a> HeapItemJson<'a> {
    pub fn from_item(item: &'a HeapItem) -> Self {
        let t = item.tuple.as_ref();
        let h = t.map(|t| &t.header);
        HeapItemJson {
            lp: item.id.lp,
            lp_off: item.id.lp_off,
            lp_flags: item.id.lp_flags.code(),
            lp_len: item.id.lp_len,
            t_xmin: h.map(|h| h.t_xmin),
            t_xmax: h.map(|h| h.t_xmax),
            t_field3: h.map(|h| h.t_field3),
            t_ctid: h.map(|h| h.t_ctid.to_string()),
            t_infomask2: h.map(|h| h.t_infomask2),
            t_infomask: h.map(|h| h.t_infomask),
            t_hoff: h.map(|h| h.t_hoff),
            t_bits: t.and_then(|t| t.t_bits.as_deref()),
            t_oid: t.and_then(|t| t.t_oid),
            t_data: t.and_then(|t| t.t_data.as_deref()).map(bytea_text),
            raw_flags: t.map(|t| t.raw_flags.as_slice()),
            combined_flags: t.map(|t| t.combined_flags.as_slice()),
            verdict: &item.verdict,
        }
    }
}

/// A PostgreSQL page as one JSON object.
#[derive(Serialize)]
pub struct PgPageJson<'a> {
    pub engine: &'static str,
    pub blkno: u64,
    pub kind: &'static str,
    pub header: Option<HeaderJson>,
    pub items: Vec<HeapItemJson<'a>>,
    pub checksum: Option<ChecksumCheck>,
    pub problems: &'a [Problem],
}

impl<'a> PgPageJson<'a> {
    pub fn from_page(page: &'a PgPage) -> Self {
        PgPageJson {
            engine: "postgres",
            blkno: page.blkno,
            kind: page.kind.name(),
            header: page.header.as_ref().map(HeaderJson::from_header),
            items: page.items.iter().map(HeapItemJson::from_item).collect(),
            checksum: page.checksum,
            problems: &page.problems,
        }
    }
}

/// bytea's text form: `\x` then lowercase hex.
pub fn bytea_text(bytes: &[u8]) -> String {
    let mut text = Vec::with_capacity(2 + bytes.len() * 2);
    text.extend_from_slice(b"\\x");
    push_hex(&mut text, bytes);
    // Only ASCII was written, so this cannot fail.
    String::from_utf8(text).unwrap_or_default()
}

/// Append `bytes` as lowercase hex digits.
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    /// The two hex digits of every byte value.
    const PAIRS: [[u8; 2]; 256] = {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut pairs = [[0u8; 2]; 256];
        let mut i = 0;
        while i < 256 {
            pairs[i] = [HEX[i >> 4], HEX[i & 0x0f]];
            i += 1;
        }
        pairs
    };
    let start = out.len();
    out.resize(start + bytes.len() * 2, 0);
    for (pair, &b) in out[start..].chunks_exact_mut(2).zip(bytes) {
        pair.copy_from_slice(&PAIRS[usize::from(b)]);
    }
}

/// Pretty JSON of one value, newline-terminated.
pub fn write_pretty<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

/// One compact JSON line.
pub fn write_line<T: Serialize>(out: &mut dyn Write, value: &T) -> io::Result<()> {
    serde_json::to_writer(&mut *out, value).map_err(io::Error::from)?;
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytea_is_backslash_x_lowercase() {
        assert_eq!(bytea_text(&[0x01, 0xAB]), "\\x01ab");
        assert_eq!(bytea_text(&[]), "\\x");
    }
}
