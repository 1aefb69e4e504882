//! A page as one NDJSON line, written by hand for speed: byte for byte what
//! `serde_json` writes for [`PgPageJson::from_page`] (tests/robustness.rs
//! holds the two to that on every fixture page and on random and damaged
//! pages), written straight from the page model — no intermediate strings
//! for ctids and bytea — and without serde's byte-at-a-time escaping scan.
//!
//! When [`PgPageJson`] gains a field, add it here too: the equality test
//! fails until it is.
//!
//! [`PgPageJson`]: super::json::PgPageJson
//! [`PgPageJson::from_page`]: super::json::PgPageJson::from_page

use crate::model::postgres::flags::FlagList;
use crate::model::postgres::verdict::ItemVerdict;
use crate::model::postgres::{ChecksumCheck, HeapItem, HeapTuple, PgPage};
use crate::model::Problem;

use super::attr::push_hex;
use super::json::{HeaderJson, PgPageJson};

/// Append `page` as one compact JSON line (with its newline) to `buf`.
/// Heap pages take the hand-written path; pages with access-method data or
/// decoded attributes go through serde (the same bytes, less hot).
pub fn append_page_line(buf: &mut Vec<u8>, page: &PgPage) {
    if page.am.is_some()
        || !page.layout.is_default()
        || page.items.iter().any(|i| i.attrs.is_some())
    {
        if serde_json::to_writer(&mut *buf, &PgPageJson::from_page(page)).is_ok() {
            buf.push(b'\n');
        }
        return;
    }
    // A heap item takes about 400 bytes besides its t_data hex.
    let need: usize = page
        .items
        .iter()
        .map(|i| {
            512 + 2 * i
                .tuple
                .as_ref()
                .and_then(|t| t.t_data.as_ref())
                .map_or(0, |d| d.len())
        })
        .sum();
    buf.reserve(need + 1024);
    let mut w = JsonWriter {
        buf,
        verdict: None,
        head: None,
        middle: None,
        tail: None,
    };
    w.raw(b"{\"engine\":\"postgres\",\"blkno\":");
    w.int(page.blkno);
    w.raw(b",\"kind\":");
    w.string(page.kind.name());
    w.raw(b",\"header\":");
    match &page.header {
        Some(h) => w.header(&HeaderJson::from_header(h)),
        None => w.null(),
    }
    w.raw(b",\"items\":[");
    for (i, item) in page.items.iter().enumerate() {
        if i > 0 {
            w.raw(b",");
        }
        w.item(item);
    }
    w.raw(b"],\"checksum\":");
    match &page.checksum {
        Some(c) => w.checksum(c),
        None => w.null(),
    }
    w.raw(b",\"problems\":[");
    for (i, p) in page.problems.iter().enumerate() {
        if i > 0 {
            w.raw(b",");
        }
        w.problem(p);
    }
    w.raw(b"]}\n");
}

/// serde_json escapes `"`, `\\` and control characters; nothing else.
fn needs_escape(b: u8) -> bool {
    b < 0x20 || b == b'"' || b == b'\\'
}

struct JsonWriter<'a> {
    buf: &'a mut Vec<u8>,
    /// The last verdict written and its JSON string: the items of a page
    /// mostly say the same, and formatting it is the costly part of an item.
    verdict: Option<(ItemVerdict, Vec<u8>)>,
    /// The last item's words from `,"lp_flags":` to `"t_ctid":"(` and what
    /// they wrote: the tuples of a page mostly share lp_len and the xids.
    head: Option<(HeadKey, Vec<u8>)>,
    /// The last item's header words and what they wrote, from
    /// `,"t_infomask2":` to `"t_data":`: the tuples of a page mostly share
    /// them.
    middle: Option<(MiddleKey, Vec<u8>)>,
    /// The last item's flag lists and verdict and what they wrote, from
    /// `,"raw_flags":` to the item's closing brace.
    tail: Option<(TailKey, Vec<u8>)>,
}

/// What decides an item's JSON from `lp_flags` to `t_ctid`'s block: the
/// line pointer's flags and length, xmin, xmax and t_field3.
type HeadKey = (u8, u16, u32, u32, u32);

/// What decides an item's JSON from `t_infomask2` to `t_data`: the three
/// header words, for a tuple without t_bits and t_oid (others are written
/// field by field).
type MiddleKey = (u16, u16, u8);

/// What decides an item's JSON from `raw_flags` to its end.
type TailKey = (Option<(FlagList, FlagList)>, ItemVerdict);

impl JsonWriter<'_> {
    #[inline(always)]
    fn raw(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    fn null(&mut self) {
        self.raw(b"null");
    }

    #[inline]
    fn int(&mut self, n: impl itoa::Integer) {
        let mut b = itoa::Buffer::new();
        self.buf.extend_from_slice(b.format(n).as_bytes());
    }

    fn opt_int(&mut self, n: Option<impl itoa::Integer>) {
        match n {
            Some(n) => self.int(n),
            None => self.null(),
        }
    }

    /// A JSON string, escaped as serde_json escapes: `"`, `\` and control
    /// characters; everything else (UTF-8 included) as is.
    fn string(&mut self, s: &str) {
        self.buf.push(b'"');
        // 32 bytes at a time: a chunk with nothing to escape is copied whole
        // (the test has no early exit, so it vectorises).
        for chunk in s.as_bytes().chunks(32) {
            if !chunk.iter().fold(false, |any, &b| any | needs_escape(b)) {
                self.buf.extend_from_slice(chunk);
                continue;
            }
            for &b in chunk {
                self.escaped_byte(b);
            }
        }
        self.buf.push(b'"');
    }

    fn escaped_byte(&mut self, b: u8) {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let escape: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            0x08 => b"\\b",
            0x0C => b"\\f",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x00..=0x1F => {
                self.buf.extend_from_slice(b"\\u00");
                self.buf.push(HEX[usize::from(b >> 4)]);
                self.buf.push(HEX[usize::from(b & 0x0F)]);
                return;
            }
            _ => {
                self.buf.push(b);
                return;
            }
        };
        self.buf.extend_from_slice(escape);
    }

    fn opt_string(&mut self, s: Option<&str>) {
        match s {
            Some(s) => self.string(s),
            None => self.null(),
        }
    }

    /// A list of flag names (`model::postgres::flags`' C identifiers,
    /// which never need escaping: the test below checks every one).
    fn flag_list(&mut self, list: Option<&FlagList>) {
        let Some(list) = list else {
            return self.null();
        };
        self.buf.push(b'[');
        for (i, s) in list.iter().enumerate() {
            if i > 0 {
                self.buf.push(b',');
            }
            self.buf.push(b'"');
            self.buf.extend_from_slice(s.as_bytes());
            self.buf.push(b'"');
        }
        self.buf.push(b']');
    }

    fn header(&mut self, h: &HeaderJson) {
        self.raw(b"{\"lsn\":");
        self.string(&h.lsn);
        self.raw(b",\"checksum\":");
        self.int(h.checksum);
        self.raw(b",\"flags\":");
        self.int(h.flags);
        self.raw(b",\"lower\":");
        self.int(h.lower);
        self.raw(b",\"upper\":");
        self.int(h.upper);
        self.raw(b",\"special\":");
        self.int(h.special);
        self.raw(b",\"pagesize\":");
        self.int(h.pagesize);
        self.raw(b",\"version\":");
        self.int(h.version);
        self.raw(b",\"prune_xid\":");
        self.int(h.prune_xid);
        self.raw(b"}");
    }

    /// `HeapItemJson::from_item`'s fields, from the model.
    fn item(&mut self, item: &HeapItem) {
        let id = &item.id;
        let t = item.tuple.as_ref();
        let h = t.map(|t| &t.header);
        self.raw(b"{\"lp\":");
        self.int(id.lp);
        self.raw(b",\"lp_off\":");
        self.int(id.lp_off);
        if let Some(h) = h {
            // From lp_flags to t_ctid's opening: the last item's bytes when
            // its words were the same.
            let key: HeadKey = (
                id.lp_flags.code(),
                id.lp_len,
                h.t_xmin,
                h.t_xmax,
                h.t_field3,
            );
            match &self.head {
                Some((k, json)) if *k == key => self.buf.extend_from_slice(json),
                _ => {
                    let start = self.buf.len();
                    self.raw(b",\"lp_flags\":");
                    self.int(id.lp_flags.code());
                    self.raw(b",\"lp_len\":");
                    self.int(id.lp_len);
                    self.raw(b",\"t_xmin\":");
                    self.int(h.t_xmin);
                    self.raw(b",\"t_xmax\":");
                    self.int(h.t_xmax);
                    self.raw(b",\"t_field3\":");
                    self.int(h.t_field3);
                    self.raw(b",\"t_ctid\":\"(");
                    let json = &self.buf[start..];
                    match &mut self.head {
                        Some((k, v)) => {
                            *k = key;
                            v.clear();
                            v.extend_from_slice(json);
                        }
                        none => *none = Some((key, json.to_vec())),
                    }
                }
            }
            self.int(h.t_ctid.block);
            self.raw(b",");
            self.int(h.t_ctid.offset);
            self.raw(b")\"");
        } else {
            self.raw(b",\"lp_flags\":");
            self.int(id.lp_flags.code());
            self.raw(b",\"lp_len\":");
            self.int(id.lp_len);
            self.raw(b",\"t_xmin\":null,\"t_xmax\":null,\"t_field3\":null,\"t_ctid\":null");
        }
        // From t_infomask2 to t_data: the last item's bytes when its words
        // were the same.
        let key = t
            .filter(|t| t.t_bits.is_none() && t.t_oid.is_none())
            .map(|t| (t.header.t_infomask2, t.header.t_infomask, t.header.t_hoff));
        match (&self.middle, key) {
            (Some((k, json)), Some(key)) if *k == key => self.buf.extend_from_slice(json),
            _ => {
                let start = self.buf.len();
                self.middle_fields(t);
                if let Some(key) = key {
                    let json = &self.buf[start..];
                    match &mut self.middle {
                        Some((k, v)) => {
                            *k = key;
                            v.clear();
                            v.extend_from_slice(json);
                        }
                        none => *none = Some((key, json.to_vec())),
                    }
                }
            }
        }
        match t.and_then(|t| t.t_data.as_deref()) {
            Some(data) => self.bytea(data),
            None => self.null(),
        }
        // From raw_flags to the end: the last item's bytes when its flags
        // and verdict were the same.
        let key: TailKey = (t.map(|t| (t.raw_flags, t.combined_flags)), item.verdict);
        match &self.tail {
            Some((k, json)) if *k == key => self.buf.extend_from_slice(json),
            _ => {
                let start = self.buf.len();
                self.tail_fields(t, item);
                let json = &self.buf[start..];
                match &mut self.tail {
                    Some((k, v)) => {
                        *k = key;
                        v.clear();
                        v.extend_from_slice(json);
                    }
                    none => *none = Some((key, json.to_vec())),
                }
            }
        }
    }

    /// `,"t_infomask2":` … `,"t_data":`.
    fn middle_fields(&mut self, t: Option<&HeapTuple>) {
        let h = t.map(|t| &t.header);
        self.raw(b",\"t_infomask2\":");
        self.opt_int(h.map(|h| h.t_infomask2));
        self.raw(b",\"t_infomask\":");
        self.opt_int(h.map(|h| h.t_infomask));
        self.raw(b",\"t_hoff\":");
        self.opt_int(h.map(|h| h.t_hoff));
        self.raw(b",\"t_bits\":");
        self.opt_string(t.and_then(|t| t.t_bits.as_deref()));
        self.raw(b",\"t_oid\":");
        self.opt_int(t.and_then(|t| t.t_oid));
        self.raw(b",\"t_data\":");
    }

    /// `,"raw_flags":` … the item's closing brace.
    fn tail_fields(&mut self, t: Option<&HeapTuple>, item: &HeapItem) {
        self.raw(b",\"raw_flags\":");
        self.flag_list(t.map(|t| &t.raw_flags));
        self.raw(b",\"combined_flags\":");
        self.flag_list(t.map(|t| &t.combined_flags));
        self.raw(b",\"verdict\":");
        match &self.verdict {
            Some((v, json)) if *v == item.verdict => self.buf.extend_from_slice(json),
            _ => {
                let start = self.buf.len();
                self.string(&item.verdict.to_string());
                self.verdict = Some((item.verdict, self.buf[start..].to_vec()));
            }
        }
        self.raw(b"}");
    }

    /// bytea's text form as a JSON string: `"\\x0102…"`.
    fn bytea(&mut self, data: &[u8]) {
        self.raw(b"\"\\\\x");
        push_hex(self.buf, data);
        self.buf.push(b'"');
    }

    fn checksum(&mut self, c: &ChecksumCheck) {
        self.raw(b"{\"stored\":");
        self.int(c.stored);
        self.raw(b",\"computed\":");
        self.opt_int(c.computed);
        self.raw(if c.valid {
            b",\"valid\":true}"
        } else {
            b",\"valid\":false}"
        });
    }

    fn problem(&mut self, p: &Problem) {
        self.raw(b"{\"severity\":");
        self.string(p.severity.as_str());
        self.raw(b",\"offset\":");
        self.opt_int(p.offset);
        self.raw(b",\"field\":");
        self.string(&p.field);
        self.raw(b",\"class\":");
        self.string(p.class.as_str());
        self.raw(b",\"message\":");
        self.string(&p.message);
        self.raw(b"}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flag_names_need_no_escaping() {
        use crate::model::postgres::flags::{INFOMASK, INFOMASK2, INFOMASK_COMBINED};
        for f in INFOMASK.iter().chain(INFOMASK2).chain(INFOMASK_COMBINED) {
            assert!(!f.name.bytes().any(needs_escape), "{}", f.name);
        }
    }

    #[test]
    fn strings_are_escaped_like_serde_json() {
        for s in [
            "plain",
            "quote \" and backslash \\",
            "\\x0102",
            "tab\tnew\nline\r\u{8}\u{c}",
            "\u{0}\u{1f}\u{7f}",
            "redirect → 10",
            "",
        ] {
            let mut buf = Vec::new();
            JsonWriter {
                buf: &mut buf,
                verdict: None,
                head: None,
                middle: None,
                tail: None,
            }
            .string(s);
            assert_eq!(buf, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
    }
}
