//! jsonb's binary form (utils/jsonb.h) → the text `jsonb_out` prints.
//!
//! ```text
//!  JsonbContainer:  uint32 header | JEntry children[n] | data …
//!    header: count (low 28 bits) | 0x10000000 scalar | 0x20000000 object | 0x40000000 array
//!    n = count for arrays, 2 × count for objects (all keys, then all values)
//!  JEntry (uint32): 0x80000000 HAS_OFF | type (0x70000000) | offset-or-length (0x0FFFFFFF)
//!    type 0 string, 1 numeric, 2 false, 3 true, 4 null, 5 container
//!    with HAS_OFF the low bits are the entry's end offset, else its length;
//!    an entry's start is the sum of lengths back to the previous HAS_OFF entry
//!  numerics and nested containers start int-aligned (padding counted in the length)
//! ```
//!
//! A raw scalar (`'true'::jsonb`) is a one-element array flagged scalar and
//! prints as the bare element. Output follows `JsonbToCString`: `", "` between
//! items, `": "` after keys, strings escaped as `escape_json` does.

use crate::reader::Endian;

use super::datum::{inner_header_to_little, inner_varlena, numeric_out};

const JB_CMASK: u32 = 0x0FFF_FFFF;
const JB_FSCALAR: u32 = 0x1000_0000;
const JB_FOBJECT: u32 = 0x2000_0000;
const JB_FARRAY: u32 = 0x4000_0000;
const JENTRY_OFFLENMASK: u32 = 0x0FFF_FFFF;
const JENTRY_TYPEMASK: u32 = 0x7000_0000;
const JENTRY_HAS_OFF: u32 = 0x8000_0000;
/// Deeper nesting than this is treated as corrupt (the server's limit is
/// set by stack depth; real documents stay far below it).
const MAX_DEPTH: usize = 1000;

/// Print a jsonb datum (the data after its varlena header).
pub(crate) fn to_text(data: &[u8]) -> Result<String, String> {
    let mut out = String::new();
    container(data, 0, &mut out)?;
    Ok(out)
}

fn u32_at(data: &[u8], at: usize) -> Result<u32, String> {
    at.checked_add(4)
        .and_then(|end| data.get(at..end))
        .and_then(|b| Endian::Little.read_u32(b))
        .ok_or_else(|| format!("jsonb ends inside a word at byte {at}"))
}

fn intalign(n: usize) -> usize {
    n.saturating_add(3) & !3
}

/// A container's JEntry count (objects have a key and a value per item)
/// and where its data starts (after the header and the JEntries), checked
/// against its `len` bytes.
fn entries_base(count: usize, object: bool, len: usize) -> Result<(usize, usize), String> {
    let nentries = if object {
        count.saturating_mul(2)
    } else {
        count
    };
    let base = nentries
        .checked_mul(4)
        .and_then(|n| n.checked_add(4))
        .filter(|&b| b <= len)
        .ok_or_else(|| format!("jsonb container of {count} items does not fit in {len} bytes"))?;
    Ok((nentries, base))
}

fn container(data: &[u8], depth: usize, out: &mut String) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("jsonb nested deeper than {MAX_DEPTH} levels"));
    }
    let header = u32_at(data, 0)?;
    let count = (header & JB_CMASK) as usize;
    let (object, scalar) = match header & (JB_FOBJECT | JB_FARRAY) {
        JB_FOBJECT => (true, false),
        JB_FARRAY => (false, header & JB_FSCALAR != 0),
        _ => {
            return Err(format!(
                "jsonb container header 0x{header:08x} is neither object nor array"
            ))
        }
    };
    let (nentries, base) = entries_base(count, object, data.len())?;
    let mut entries = Vec::with_capacity(nentries);
    for i in 0..nentries {
        entries.push(u32_at(data, 4 + 4 * i)?);
    }
    // Start offset and length of each entry, relative to `base`.
    let mut spans = Vec::with_capacity(nentries);
    let mut offset = 0usize;
    for &e in &entries {
        let field = (e & JENTRY_OFFLENMASK) as usize;
        let end = if e & JENTRY_HAS_OFF != 0 {
            field
        } else {
            offset.saturating_add(field)
        };
        if end < offset {
            return Err(format!(
                "jsonb entry ends at {end}, before its start {offset}"
            ));
        }
        spans.push((offset, end - offset));
        offset = end;
    }
    let body = data.get(base..).unwrap_or_default();
    let item = |i: usize, out: &mut String| -> Result<(), String> {
        let (Some(&e), Some(&(off, len))) = (entries.get(i), spans.get(i)) else {
            return Err("jsonb entry index out of range".into());
        };
        scalar_or_container(body, e, off, len, depth, out)
    };
    if scalar {
        if count != 1 {
            return Err(format!("jsonb scalar container holds {count} items"));
        }
        return item(0, out);
    }
    if object {
        out.push('{');
        for i in 0..count {
            if i > 0 {
                out.push_str(", ");
            }
            let key_entry = entries.get(i).copied().unwrap_or(0);
            if key_entry & JENTRY_TYPEMASK != 0 {
                return Err("jsonb object key is not a string".into());
            }
            item(i, out)?;
            out.push_str(": ");
            item(count + i, out)?;
        }
        out.push('}');
    } else {
        out.push('[');
        for i in 0..count {
            if i > 0 {
                out.push_str(", ");
            }
            item(i, out)?;
        }
        out.push(']');
    }
    Ok(())
}

fn scalar_or_container(
    body: &[u8],
    entry: u32,
    off: usize,
    len: usize,
    depth: usize,
    out: &mut String,
) -> Result<(), String> {
    let bytes = |from: usize, to: usize| {
        body.get(from..to).ok_or_else(|| {
            format!(
                "jsonb value at {from}..{to} runs past the end ({} bytes)",
                body.len()
            )
        })
    };
    match (entry & JENTRY_TYPEMASK) >> 28 {
        0 => {
            let s = bytes(off, off + len)?;
            let s = std::str::from_utf8(s)
                .map_err(|_| "jsonb string is not valid UTF-8".to_string())?;
            escape_json(s, out);
        }
        1 => {
            let start = intalign(off);
            let region = bytes(start, off + len)?;
            let (numeric, _) =
                inner_varlena(region, 0).map_err(|e| format!("jsonb numeric: {e}"))?;
            out.push_str(&numeric_out(numeric)?);
        }
        2 => out.push_str("false"),
        3 => out.push_str("true"),
        4 => out.push_str("null"),
        5 => {
            let start = intalign(off);
            container(bytes(start, off + len)?, depth + 1, out)?;
        }
        t => return Err(format!("jsonb entry type {t} is not defined")),
    }
    Ok(())
}

/// `escape_json`: quotes, backslash and control characters escaped.
/// A jsonb datum (the data after its varlena header) of a big-endian host
/// rewritten in place as a little-endian host stores it: each container's
/// header and JEntry words, and each numeric's varlena header and 16-bit
/// words; strings are bytes.
pub(crate) fn to_little(data: &mut [u8]) -> Result<(), String> {
    container_to_little(data, 0)
}

fn container_to_little(data: &mut [u8], depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Err(format!("jsonb nested deeper than {MAX_DEPTH} levels"));
    }
    let word = |data: &mut [u8], at: usize| -> Result<u32, String> {
        let w = data
            .get_mut(at..at + 4)
            .ok_or_else(|| format!("jsonb ends inside a word at byte {at}"))?;
        w.reverse();
        Ok(Endian::Little.read_u32(w).unwrap_or(0))
    };
    let header = word(data, 0)?;
    let count = (header & JB_CMASK) as usize;
    let (nentries, base) = entries_base(count, header & JB_FOBJECT != 0, data.len())?;
    let mut offset = 0usize;
    for i in 0..nentries {
        let e = word(data, 4 + 4 * i)?;
        let field = (e & JENTRY_OFFLENMASK) as usize;
        let end = if e & JENTRY_HAS_OFF != 0 {
            field
        } else {
            offset.saturating_add(field)
        };
        let (start, stop) = (base + intalign(offset), base.saturating_add(end));
        if end < offset || stop > data.len() {
            return Err(format!(
                "jsonb entry {i} at {offset}..{end} runs past the end"
            ));
        }
        match (e & JENTRY_TYPEMASK) >> 28 {
            1 if start < stop => {
                let region = &mut data[start..stop];
                inner_header_to_little(region, 0).map_err(|e| format!("jsonb numeric: {e}"))?;
                let (payload, _) =
                    inner_varlena(region, 0).map_err(|e| format!("jsonb numeric: {e}"))?;
                let hdr = payload.as_ptr() as usize - region.as_ptr() as usize;
                let n = payload.len();
                for w in region[hdr..hdr + n].chunks_exact_mut(2) {
                    w.reverse();
                }
            }
            5 if start < stop => container_to_little(&mut data[start..stop], depth + 1)?,
            _ => {}
        }
        offset = end;
    }
    Ok(())
}

pub(super) fn escape_json(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unhex(h: &str) -> Vec<u8> {
        (0..h.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&h[i..i + 2], 16).unwrap())
            .collect()
    }

    #[test]
    fn objects_arrays_numbers_from_the_types_fixture() {
        // types.0 lp 1: '{"a": 1, "b": [true, null]}' (after the 1-byte header)
        let v = unhex("0200002001000080010000000a0000100c00005061620000200000000080010002000040000000b000000040");
        assert_eq!(to_text(&v).unwrap(), r#"{"a": 1, "b": [true, null]}"#);
        // types.0 lp 3: 'true' (a scalar)
        assert_eq!(to_text(&unhex("01000050000000b0")).unwrap(), "true");
    }

    #[test]
    fn nested_values_and_escapes() {
        // types.0 lp 2: {"a": null, "nested": {"k": [1, 2.5, "x"]}}
        let v = unhex("0200002001000080060000000000004034000050616e6573746564000100002001000080260000506b00000003000040080000900a0000100100000020000000008001002800000080800200881378");
        assert_eq!(
            to_text(&v).unwrap(),
            r#"{"a": null, "nested": {"k": [1, 2.5, "x"]}}"#
        );
        let mut s = String::new();
        escape_json("a\"b\\c\nd\u{1}é", &mut s);
        assert_eq!(s, r#""a\"b\\c\nd\u0001é""#);
        // an empty array and an empty object
        assert_eq!(to_text(&unhex("00000040")).unwrap(), "[]");
        assert_eq!(to_text(&unhex("00000020")).unwrap(), "{}");
    }

    #[test]
    fn corrupt_containers_are_errors() {
        assert!(to_text(&[]).is_err());
        assert!(to_text(&unhex("00000000")).is_err());
        // claims 0x0FFFFFFF entries
        assert!(to_text(&unhex("ffffff4f")).is_err());
        // one string entry pointing past the end
        assert!(to_text(&unhex("0100004064000000")).is_err());
        // entry type 7
        assert!(to_text(&unhex("0100004001000070ff")).is_err());
        // a container nested far too deep: each level is an array of one
        // container entry whose length covers the rest
        let mut deep = Vec::new();
        for level in 0..2000u32 {
            let rest = (2000 - level - 1) * 8;
            deep.extend_from_slice(&0x4000_0001u32.to_le_bytes());
            deep.extend_from_slice(&(0x5000_0000u32 | rest).to_le_bytes());
        }
        assert!(to_text(&deep).is_err());
    }
}
