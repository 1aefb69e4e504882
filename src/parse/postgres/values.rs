//! Datum bytes → the text PostgreSQL's output functions print.
//!
//! Each printer takes the bytes of one datum: exactly `attlen` bytes for a
//! fixed-length type, or the data of a varlena (header stripped, already
//! decompressed and detoasted). It returns the text `SELECT` shows (with
//! `DateStyle = ISO`, `IntervalStyle = postgres`, `TimeZone = UTC`,
//! `extra_float_digits` ≥ 1, `lc_monetary = C`, server encoding UTF8) and, for
//! JSON, whether that text is a number or a boolean. Malformed bytes are an
//! `Err` with a message, never a panic.

use crate::model::postgres::block_id;
use crate::model::postgres::types::{Align, ExtType, PgType};
use crate::model::postgres::{Float, Typed, Value};
use crate::reader::Endian;

use super::datum::numeric_out;
/// Moved to the leaf `float.rs` (the geometric and extension printers use them
/// too); kept at their old paths for code not yet updated.
pub(crate) use super::datum::MAX_VALUE_TEXT;
use super::datum::{byte, inner_header_to_little, inner_varlena, u16_at, u32_at, u64_at};
pub(crate) use super::float::{float4_out, float8_out};
use super::jsonb;
use super::{acl, contrib, geo, isn, jsonpath, regnames, tsearch};
use crate::model::postgres::flags::{HEAP_HASNULL, HEAP_NATTS_MASK};

/// Print one datum of type `ty`.
pub(crate) fn decode(ty: &PgType, data: &[u8]) -> Result<Value, String> {
    use PgType::*;
    match ty {
        Bool => Ok(bool_value(byte(data, 0)? != 0)),
        Char => Ok(Value::text(char_out(byte(data, 0)?))),
        Int2 => Ok(int(i64::from(u16_at(data, 0)? as i16))),
        Int4 => Ok(int(i64::from(u32_at(data, 0)? as i32))),
        Int8 => Ok(int(u64_at(data, 0)? as i64)),
        Oid | Xid | Cid => Ok(uint(u64::from(u32_at(data, 0)?))),
        Xid8 => Ok(uint(u64_at(data, 0)?)),
        Float4 => Ok(float(float4_out(f32::from_bits(u32_at(data, 0)?)))),
        Float8 => Ok(float(float8_out(f64::from_bits(u64_at(data, 0)?)))),
        Numeric => numeric_out(data).map(Value::text),
        Money => Ok(Value::text(cash_out(u64_at(data, 0)? as i64))),
        Text | Varchar | Bpchar | Json | Xml | Refcursor => utf8(data).map(Value::text),
        TxidSnapshot | PgSnapshot => acl::snapshot_out(data).map(Value::text),
        JsonPath => jsonpath::jsonpath_out(data).map(Value::text),
        RegOid { name, names } => {
            let oid = u32_at(data, 0)?;
            match names.as_ref().and_then(|n| regnames::reg_out(name, oid, n)) {
                Some(text) => Ok(Value::text(text)),
                None => Ok(uint(u64::from(oid))),
            }
        }
        AclItem { names, .. } => {
            acl::aclitem_out(data, names.as_ref().map(|n| &n.roles)).map(Value::text)
        }
        Name => {
            let end = data.iter().position(|&b| b == 0).unwrap_or(data.len());
            utf8(data.get(..end).unwrap_or_default()).map(Value::text)
        }
        Bytea => Ok(Value::text(bytea_out(data))),
        Jsonb => jsonb::to_text(data).map(Value::text),
        Date => date_out(u32_at(data, 0)? as i32).map(Value::text),
        Time => Ok(Value::text(time_out(u64_at(data, 0)? as i64))),
        TimeTz => {
            let time = u64_at(data, 0)? as i64;
            let zone = u32_at(data, 8)? as i32;
            Ok(Value::text(format!(
                "{}{}",
                time_out(time),
                timezone_out(zone)
            )))
        }
        Timestamp => timestamp_out(u64_at(data, 0)? as i64, None).map(Value::text),
        TimestampTz => timestamp_out(u64_at(data, 0)? as i64, Some(0)).map(Value::text),
        Interval => Ok(Value::text(interval_out(
            u64_at(data, 0)? as i64,
            u32_at(data, 8)? as i32,
            u32_at(data, 12)? as i32,
        ))),
        Uuid => uuid_out(data).map(Value::text),
        Inet => inet_out(data, false).map(Value::text),
        Cidr => inet_out(data, true).map(Value::text),
        Macaddr => mac_out(data, 6).map(Value::text),
        Macaddr8 => mac_out(data, 8).map(Value::text),
        Tid => {
            let hi = u16_at(data, 0)?;
            let lo = u16_at(data, 2)?;
            let pos = u16_at(data, 4)?;
            let block = block_id(hi, lo);
            Ok(Value::text(format!("({block},{pos})")))
        }
        PgLsn => {
            let v = u64_at(data, 0)?;
            Ok(Value::text(format!("{:X}/{:X}", v >> 32, v & 0xFFFF_FFFF)))
        }
        Bit | Varbit => bit_out(data).map(Value::text),
        Point => {
            let x = f64::from_bits(u64_at(data, 0)?);
            let y = f64::from_bits(u64_at(data, 8)?);
            Ok(Value::text(format!(
                "({},{})",
                float8_out(x),
                float8_out(y)
            )))
        }
        GeoBox => {
            // box_out: the high corner, then the low one.
            let mut f = [0f64; 4];
            for (i, v) in f.iter_mut().enumerate() {
                *v = f64::from_bits(u64_at(data, i * 8)?);
            }
            Ok(Value::text(format!(
                "({},{}),({},{})",
                float8_out(f[0]),
                float8_out(f[1]),
                float8_out(f[2]),
                float8_out(f[3])
            )))
        }
        Line => geo::line_out(data).map(Value::text),
        Lseg => geo::lseg_out(data).map(Value::text),
        Path => geo::path_out(data).map(Value::text),
        Polygon => geo::poly_out(data).map(Value::text),
        Circle => geo::circle_out(data).map(Value::text),
        TsVector => tsearch::tsvector_out(data).map(Value::text),
        TsQuery => tsearch::tsquery_out(data).map(Value::text),
        GtsVector => tsearch::gtsvector_out(data).map(Value::text),
        Ext(ExtType::Citext) => utf8(data).map(Value::text),
        Ext(ExtType::Hstore) => contrib::hstore_out(data).map(Value::text),
        Ext(ExtType::Ltree) => contrib::ltree_out(data).map(Value::text),
        Ext(ExtType::Cube) => contrib::cube_out(data).map(Value::text),
        Ext(ExtType::Seg) => contrib::seg_out(data).map(Value::text),
        Ext(ExtType::Lquery) => contrib::lquery_out(data).map(Value::text),
        Ext(ExtType::Ltxtquery) => contrib::ltxtquery_out(data).map(Value::text),
        // The isn types: one uint64, printed long or short.
        Ext(e) => match e.isn_short() {
            Some(short) => isn::isn_out(u64_at(data, 0)?, short).map(Value::text),
            None => Err(format!("type {} is not decoded; shown as hex", e.name())),
        },
        Array(elem) => array_out(elem, data).map(Value::text),
        Int2Vector => vector_out(&Int2, data).map(Value::text),
        OidVector => vector_out(&Oid, data).map(Value::text),
        Enum { name, labels, .. } => {
            let oid = u32_at(data, 0)?;
            labels
                .iter()
                .find(|l| l.0 == oid)
                .map(|l| Value::text(l.1.clone()))
                .ok_or_else(|| format!("enum {name} has no label with pg_enum OID {oid}"))
        }
        Range { subtype, .. } => range_out(subtype, data).map(Value::text),
        Multirange { subtype, .. } => multirange_out(subtype, data).map(Value::text),
        Composite { fields, .. } => record_out(fields, data).map(Value::text),
        Other { name, .. } => Err(format!("type {name} is not decoded; shown as hex")),
    }
}

/// The datum of type `ty` a big-endian host stored, rewritten in the
/// little-endian form [`decode`] reads: each integer and float field of the
/// type's C layout byte-swapped, strings and byte arrays left as they are.
/// `Err` for the types blockscope does not print, whose inner layout it
/// does not know.
pub(crate) fn big_endian_to_little(ty: &PgType, data: &[u8]) -> Result<Vec<u8>, String> {
    use PgType::*;
    let mut out = data.to_vec();
    // Field widths from the start of the datum; `None` repeats the last
    // width over the rest.
    let swap = |out: &mut Vec<u8>, widths: &[usize], repeat: bool| {
        let mut at = 0;
        let mut iter = widths.iter().copied();
        let mut last = 0;
        loop {
            let w = match iter.next() {
                Some(w) => w,
                None if repeat && last > 0 => last,
                None => break,
            };
            last = w;
            match out.get_mut(at..at + w) {
                Some(field) => field.reverse(),
                None => break,
            }
            at += w;
        }
    };
    match ty {
        Bool | Char | Text | Varchar | Bpchar | Json | Xml | Name | Bytea | Uuid | Inet | Cidr
        | Macaddr | Macaddr8 | Refcursor => {}
        // nxip, then int64 ids.
        TxidSnapshot | PgSnapshot => swap(&mut out, &[4, 8], true),
        // grantee, grantor, then the AclMode word (4 or 8 bytes).
        AclItem { wide, .. } => swap(&mut out, &[4, 4, if *wide { 8 } else { 4 }], false),
        Int2 => swap(&mut out, &[2], false),
        Int4 | Oid | Xid | Cid | RegOid { .. } | Float4 | Date | Enum { .. } => {
            swap(&mut out, &[4], false)
        }
        Int8 | Xid8 | Float8 | Money | Time | Timestamp | TimestampTz | PgLsn => {
            swap(&mut out, &[8], false)
        }
        TimeTz => swap(&mut out, &[8, 4], false),
        Interval => swap(&mut out, &[8, 4, 4], false),
        Tid => swap(&mut out, &[2, 2, 2], false),
        // Every field a float8.
        Point | GeoBox | Line | Lseg | Circle => swap(&mut out, &[8], true),
        // NumericShort / NumericLong (numeric.c): every field a 16-bit word.
        Numeric => swap(&mut out, &[2], true),
        // VarBit (varbit.h): bit_len, then the bits as bytes.
        Bit | Varbit => swap(&mut out, &[4], false),
        // path (geo_decls.h): npts, closed, dummy, then the points;
        // polygon: npts, the bounding box, then the points (float8s).
        Path | Polygon => {
            let ints = if matches!(ty, Path) { 3 } else { 1 };
            swap(&mut out, &vec![4; ints], false);
            for float in out
                .get_mut(4 * ints..)
                .unwrap_or_default()
                .chunks_exact_mut(8)
            {
                float.reverse();
            }
        }
        Array(elem) => array_to_little(elem, &mut out)?,
        Int2Vector => array_to_little(&Int2, &mut out)?,
        OidVector => array_to_little(&Oid, &mut out)?,
        Range { subtype, .. } => range_to_little(subtype, &mut out)?,
        Jsonb => jsonb::to_little(&mut out)?,
        TsVector => tsearch::tsvector_to_little(&mut out)?,
        TsQuery => tsearch::tsquery_to_little(&mut out)?,
        GtsVector => tsearch::gtsvector_to_little(&mut out)?,
        Multirange { subtype, .. } => multirange_to_little(subtype, &mut out)?,
        Composite { fields, .. } => record_to_little(fields, &mut out)?,
        Ext(e) => contrib::to_little(*e, &mut out)?,
        JsonPath | Other { .. } => {
            return Err(format!(
                "a {} value of a big-endian page is not decoded",
                ty.sql_name()
            ))
        }
    }
    Ok(out)
}

/// The value of `ty` stored at `pos` of `out` (after a 4-byte varlena
/// header, as [`stored_value`] reads it) rewritten in place from a
/// big-endian host's form; the position after it.
fn stored_value_to_little(ty: &PgType, out: &mut [u8], pos: usize) -> Result<usize, String> {
    let (start, len, next) = stored_header_to_little(ty, out, pos)?;
    let little = big_endian_to_little(ty, &out[start..start + len])?;
    out[start..start + len].copy_from_slice(&little);
    Ok(next)
}

/// The varlena header (if `ty` has one) of the value of `ty` stored at
/// `pos` of `out` rewritten in place from a big-endian host's form; where
/// the value's bytes start, how many there are, and the position after it.
fn stored_header_to_little(
    ty: &PgType,
    out: &mut [u8],
    pos: usize,
) -> Result<(usize, usize, usize), String> {
    if ty.attlen() == -1 && out.get(pos).is_some_and(|&b| b != 0) {
        inner_header_to_little(out, pos)?;
    } else if ty.attlen() == -1 {
        // Padding or a 4-byte header: the header starts at the aligned place.
        let at = ty.align().align(4 + pos) - 4;
        inner_header_to_little(out, at)?;
    }
    let (value, next) = stored_value(ty, out, pos)?;
    let start = value.as_ptr() as usize - out.as_ptr() as usize;
    Ok((start, value.len(), next))
}

/// An array (array.h) of a big-endian host rewritten in place: its header
/// words, dimensions and lower bounds, and each element.
fn array_to_little(declared: &PgType, out: &mut [u8]) -> Result<(), String> {
    let words = |out: &mut [u8], from: usize, n: usize| -> Result<(), String> {
        for i in 0..n {
            out.get_mut(from + 4 * i..from + 4 * i + 4)
                .ok_or("array header runs past the end")?
                .reverse();
        }
        Ok(())
    };
    words(out, 0, 3)?;
    let ndim = u32_at(out, 0)?;
    if ndim == 0 || ndim as usize > MAXDIM {
        // Empty, or not an array: ArrayLayout::read says which.
        return ArrayLayout::read(declared, out).map(|_| ());
    }
    words(out, 12, 2 * ndim as usize)?;
    let Some(layout) = ArrayLayout::read(declared, out)? else {
        return Ok(());
    };
    let mut pos = layout.data_at;
    for i in 0..layout.nitems {
        if !layout.is_null(out, i) {
            pos = stored_value_to_little(&layout.elem, out, pos)
                .map_err(|e| format!("array element {}: {e}", i + 1))?;
        }
    }
    Ok(())
}

/// A range (rangetypes.h) of a big-endian host rewritten in place: its
/// range type OID and the bounds its flags byte (last) says it holds.
fn range_to_little(subtype: &PgType, out: &mut [u8]) -> Result<(), String> {
    if out.len() < 5 {
        return Err(format!("range of {} bytes is too short", out.len() + 4));
    }
    out[..4].reverse();
    let flags = out[out.len() - 1];
    if flags & RANGE_EMPTY != 0 {
        return Ok(());
    }
    let n = out.len() - 1;
    bounds_to_little(subtype, &mut out[..n], 4, flags)
}

/// The bounds at `pos` of `body` that a range's `flags` say it holds,
/// rewritten in place from a big-endian host's form.
fn bounds_to_little(
    subtype: &PgType,
    body: &mut [u8],
    pos: usize,
    flags: u8,
) -> Result<(), String> {
    if flags & RANGE_EMPTY != 0 {
        return Ok(());
    }
    let mut pos = pos;
    for has in [
        flags & (RANGE_LB_INF | RANGE_LB_NULL) == 0,
        flags & (RANGE_UB_INF | RANGE_UB_NULL) == 0,
    ] {
        if has {
            pos = stored_value_to_little(subtype, body, pos)?;
        }
    }
    Ok(())
}

/// A multirange (multirangetypes.h) of a big-endian host rewritten in
/// place: its multirange type OID, range count and items (uint32 offsets
/// and lengths), then each range's bounds where [`multirange_out`] finds
/// them; the flags are bytes.
fn multirange_to_little(subtype: &PgType, out: &mut [u8]) -> Result<(), String> {
    for at in [0, 4] {
        out.get_mut(at..at + 4)
            .ok_or("multirange header runs past the end")?
            .reverse();
    }
    let layout = MultirangeLayout::read(subtype, out)?;
    for i in 1..layout.count {
        // Every item lies before the flags, which fit: checked by read.
        out[layout.items_at + 4 * (i - 1)..][..4].reverse();
    }
    let mut start = 0usize;
    for i in 0..layout.count {
        start = layout.range_start(out, i, start)?;
        let flags = byte(out, layout.flags_at + i)?;
        bounds_to_little(subtype, out, layout.begin.saturating_add(start), flags)
            .map_err(|e| format!("multirange range {}: {e}", i + 1))?;
    }
    Ok(())
}

/// A composite value (a HeapTupleHeader and the attributes after it, as
/// htup_details.h lays a heap tuple out) of a big-endian host rewritten in
/// place: datum_typmod, datum_typeid, t_ctid's three 16-bit words,
/// t_infomask2 and t_infomask (t_hoff and the null bitmap are bytes), then
/// each attribute that is not null as its type is rewritten.
fn record_to_little(
    fields: &[crate::model::postgres::types::Column],
    out: &mut [u8],
) -> Result<(), String> {
    let mut at = 0;
    for w in [4, 4, 2, 2, 2, 2, 2] {
        out.get_mut(at..at + w)
            .ok_or("composite value's header runs past the end")?
            .reverse();
        at += w;
    }
    let record = RecordLayout::read(out)?;
    let mut pos = record.data_at;
    for (i, col) in fields.iter().enumerate() {
        if record.is_null(out, i) {
            continue;
        }
        let ty = record_field_type(col);
        pos = if col.dropped {
            // Skipped as record_out skips it: only where it ends matters.
            stored_header_to_little(&ty, out, pos).map(|(_, _, next)| next)
        } else {
            stored_value_to_little(&ty, out, pos)
        }
        .map_err(|e| format!("composite attribute {}: {e}", i + 1))?;
    }
    Ok(())
}

fn bool_value(b: bool) -> Value {
    Value {
        text: if b { "t" } else { "f" }.to_string(),
        typed: Typed::Bool(b),
    }
}

fn int(v: i64) -> Value {
    Value {
        text: v.to_string(),
        typed: Typed::Int(v),
    }
}

fn uint(v: u64) -> Value {
    Value {
        text: v.to_string(),
        typed: Typed::UInt(v),
    }
}

/// A float's text; finite values are also JSON numbers.
fn float(text: String) -> Value {
    let typed = match text.parse::<f64>() {
        Ok(v) if v.is_finite() => Typed::Float(Float(v)),
        _ => Typed::Text,
    };
    Value { text, typed }
}

fn utf8(data: &[u8]) -> Result<String, String> {
    std::str::from_utf8(data).map(str::to_string).map_err(|e| {
        format!(
            "not valid UTF-8 at byte {} (the server encoding is taken to be UTF8)",
            e.valid_up_to()
        )
    })
}

/// `charout` (PostgreSQL 15+): the byte itself, `\ooo` octal for a byte
/// with the high bit set, empty for `\0`.
fn char_out(b: u8) -> String {
    match b {
        0 => String::new(),
        b if b >= 0x80 => format!("\\{:03o}", b),
        b => (b as char).to_string(),
    }
}

/// `byteaout` with `bytea_output = hex`.
pub(crate) fn bytea_out(data: &[u8]) -> String {
    let mut s = String::with_capacity(2 + data.len() * 2);
    s.push_str("\\x");
    for b in data {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// `cash_out` with `lc_monetary = C`: `$`, `,` every three digits, 2 decimals.
fn cash_out(cents: i64) -> String {
    let neg = cents < 0;
    let abs = cents.unsigned_abs();
    let units = (abs / 100).to_string();
    let mut grouped = String::new();
    for (i, c) in units.chars().enumerate() {
        if i > 0 && (units.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(c);
    }
    format!("{}${grouped}.{:02}", if neg { "-" } else { "" }, abs % 100)
}

// ---------------------------------------------------------------------------
// Dates and times: days / microseconds since 2000-01-01 (POSTGRES_EPOCH_JDATE).
// ---------------------------------------------------------------------------

const POSTGRES_EPOCH_JDATE: i64 = 2_451_545;
const USECS_PER_SEC: i64 = 1_000_000;
const USECS_PER_MINUTE: i64 = 60 * USECS_PER_SEC;
const USECS_PER_HOUR: i64 = 60 * USECS_PER_MINUTE;
const USECS_PER_DAY: i64 = 24 * USECS_PER_HOUR;
/// `DATE_END_JULIAN` (datetime.h): first Julian day past the date range.
const DATE_END_JULIAN: i64 = 2_147_483_494;
/// `MIN_TIMESTAMP` / `END_TIMESTAMP` (timestamp.h).
const MIN_TIMESTAMP: i64 = -211_813_488_000_000_000;
const END_TIMESTAMP: i64 = 9_223_371_331_200_000_000;

/// `j2date`: Julian day number → (year, month, day); year ≤ 0 is BC.
fn j2date(jd: i64) -> (i64, u32, u32) {
    let mut julian = (jd + 32044) as u64;
    let mut quad = julian / 146_097;
    let extra = (julian - quad * 146_097) * 4 + 3;
    julian += 60 + quad * 3 + extra / 146_097;
    quad = julian / 1461;
    julian -= quad * 1461;
    let mut y = julian * 4 / 1461;
    julian = if y != 0 {
        (julian + 305) % 365
    } else {
        (julian + 306) % 366
    } + 123;
    y += quad * 4;
    let year = y as i64 - 4800;
    let q = julian * 2141 / 65536;
    let day = julian - 7834 * q / 256;
    let month = (q + 10) % 12 + 1;
    (year, month as u32, day as u32)
}

/// `YYYY-MM-DD` and whether the year is BC (the `BC` goes at the very end).
fn ymd(jd: i64) -> (String, bool) {
    let (y, m, d) = j2date(jd);
    let bc = y <= 0;
    let shown = if bc { 1 - y } else { y };
    (format!("{shown:04}-{m:02}-{d:02}"), bc)
}

fn date_out(days: i32) -> Result<String, String> {
    match days {
        i32::MIN => return Ok("-infinity".into()),
        i32::MAX => return Ok("infinity".into()),
        _ => {}
    }
    let jd = i64::from(days) + POSTGRES_EPOCH_JDATE;
    if !(0..DATE_END_JULIAN).contains(&jd) {
        return Err(format!(
            "date {days} (days since 2000-01-01) is out of range"
        ));
    }
    let (text, bc) = ymd(jd);
    Ok(if bc { format!("{text} BC") } else { text })
}

/// `HH:MM:SS[.ffffff]` (trailing zeros of the fraction dropped), from
/// microseconds; hours may exceed 24 in intervals.
fn hms(usecs: i64) -> String {
    let u = usecs.unsigned_abs();
    let hour = u / USECS_PER_HOUR as u64;
    let min = (u / USECS_PER_MINUTE as u64) % 60;
    let sec = (u / USECS_PER_SEC as u64) % 60;
    let frac = u % USECS_PER_SEC as u64;
    format!("{hour:02}:{min:02}:{sec:02}{}", fraction(frac))
}

/// `.ffffff` without trailing zeros, or nothing (`AppendSeconds`).
fn fraction(usec: u64) -> String {
    if usec == 0 {
        return String::new();
    }
    let s = format!(".{usec:06}");
    s.trim_end_matches('0').to_string()
}

fn time_out(usecs: i64) -> String {
    hms(usecs)
}

/// `EncodeTimezone`: the zone is stored in seconds *west* of UTC.
fn timezone_out(zone: i32) -> String {
    let secs = zone.unsigned_abs();
    let (h, m, s) = (secs / 3600, (secs / 60) % 60, secs % 60);
    let sign = if zone <= 0 { '+' } else { '-' };
    if s != 0 {
        format!("{sign}{h:02}:{m:02}:{s:02}")
    } else if m != 0 {
        format!("{sign}{h:02}:{m:02}")
    } else {
        format!("{sign}{h:02}")
    }
}

/// `timestamp_out` / `timestamptz_out` (shown at UTC offset `zone`, seconds west).
fn timestamp_out(ts: i64, zone: Option<i32>) -> Result<String, String> {
    match ts {
        i64::MIN => return Ok("-infinity".into()),
        i64::MAX => return Ok("infinity".into()),
        _ => {}
    }
    if !(MIN_TIMESTAMP..END_TIMESTAMP).contains(&ts) {
        return Err(format!(
            "timestamp {ts} (microseconds since 2000-01-01) is out of range"
        ));
    }
    let shifted = ts - i64::from(zone.unwrap_or(0)) * USECS_PER_SEC;
    let date = shifted.div_euclid(USECS_PER_DAY);
    let time = shifted.rem_euclid(USECS_PER_DAY);
    let (day, bc) = ymd(date + POSTGRES_EPOCH_JDATE);
    let tz = zone.map(timezone_out).unwrap_or_default();
    Ok(format!(
        "{day} {}{tz}{}",
        hms(time),
        if bc { " BC" } else { "" }
    ))
}

/// `interval_out` with `IntervalStyle = postgres` (`EncodeInterval`).
fn interval_out(time: i64, day: i32, month: i32) -> String {
    let year = month / 12;
    let mon = month % 12;
    let mut s = String::new();
    let mut is_zero = true;
    let mut is_before = false;
    for (value, unit) in [
        (i64::from(year), "year"),
        (i64::from(mon), "mon"),
        (i64::from(day), "day"),
    ] {
        if value == 0 {
            continue;
        }
        s.push_str(&format!(
            "{}{}{value} {unit}{}",
            if is_zero { "" } else { " " },
            if is_before && value > 0 { "+" } else { "" },
            if value != 1 { "s" } else { "" }
        ));
        is_before = value < 0;
        is_zero = false;
    }
    if is_zero || time != 0 {
        let sign = if time < 0 {
            "-"
        } else if is_before {
            "+"
        } else {
            ""
        };
        s.push_str(&format!(
            "{}{sign}{}",
            if is_zero { "" } else { " " },
            hms(time)
        ));
    }
    s
}

// ---------------------------------------------------------------------------
// uuid, network and bit-string types
// ---------------------------------------------------------------------------

fn exact<'a>(data: &'a [u8], len: usize, what: &str) -> Result<&'a [u8], String> {
    if data.len() == len {
        Ok(data)
    } else {
        Err(format!("{what} needs {len} bytes, found {}", data.len()))
    }
}

/// The first `len` bytes of `data`, as network_out reads an address: it
/// never looks at the varlena's size, and a GiST inet_ops key
/// (`GistInetKey`: family, minbits, commonbits, address), which
/// gist_page_items prints with inet's output function, is one byte longer.
fn at_least<'a>(data: &'a [u8], len: usize, what: &str) -> Result<&'a [u8], String> {
    data.get(..len)
        .ok_or_else(|| format!("{what} needs {len} bytes, found {}", data.len()))
}

fn uuid_out(data: &[u8]) -> Result<String, String> {
    let d = exact(data, 16, "uuid")?;
    let mut s = String::with_capacity(36);
    for (i, b) in d.iter().enumerate() {
        if matches!(i, 4 | 6 | 8 | 10) {
            s.push('-');
        }
        s.push_str(&format!("{b:02x}"));
    }
    Ok(s)
}

fn mac_out(data: &[u8], len: usize) -> Result<String, String> {
    let d = exact(data, len, "macaddr")?;
    Ok(d.iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":"))
}

/// `PGSQL_AF_INET` / `PGSQL_AF_INET6` (utils/inet.h).
const PGSQL_AF_INET: u8 = 2;
const PGSQL_AF_INET6: u8 = 3;

/// `inet_out` / `cidr_out`: family byte, mask bits, then 4 or 16 address bytes.
fn inet_out(data: &[u8], cidr: bool) -> Result<String, String> {
    let family = byte(data, 0)?;
    let bits = byte(data, 1)?;
    let addr = data.get(2..).unwrap_or_default();
    let mut text = match family {
        PGSQL_AF_INET => {
            let a = at_least(addr, 4, "an IPv4 address")?;
            if bits > 32 {
                return Err(format!("IPv4 mask length {bits} is over 32"));
            }
            let mut t = a.iter().map(u8::to_string).collect::<Vec<_>>().join(".");
            if bits != 32 {
                t.push_str(&format!("/{bits}"));
            }
            t
        }
        PGSQL_AF_INET6 => {
            let a = at_least(addr, 16, "an IPv6 address")?;
            if bits > 128 {
                return Err(format!("IPv6 mask length {bits} is over 128"));
            }
            let mut t = ipv6_text(a);
            if bits != 128 {
                t.push_str(&format!("/{bits}"));
            }
            t
        }
        f => {
            return Err(format!(
                "address family {f} is neither IPv4 (2) nor IPv6 (3)"
            ))
        }
    };
    if cidr && !text.contains('/') {
        text.push_str(&format!("/{bits}"));
    }
    Ok(text)
}

/// `inet_net_ntop_ipv6` as in PostgreSQL 15: the longest run (first of equal
/// ones, at least two words) of zero words becomes `::`; `::a.b.c.d` and
/// `::ffff:a.b.c.d` keep the IPv4 part dotted.
fn ipv6_text(a: &[u8]) -> String {
    let words: Vec<u16> = a
        .chunks_exact(2)
        .filter_map(|w| Endian::Big.read_u16(w))
        .collect();
    // (first word, number of words) of zero runs
    type Run = Option<(usize, usize)>;
    let (mut best, mut cur): (Run, Run) = (None, None);
    for (i, &w) in words.iter().enumerate() {
        if w == 0 {
            cur = Some(cur.map_or((i, 1), |(b, l)| (b, l + 1)));
        } else if let Some(c) = cur.take() {
            if best.is_none_or(|b| c.1 > b.1) {
                best = Some(c);
            }
        }
    }
    if let Some(c) = cur {
        if best.is_none_or(|b| c.1 > b.1) {
            best = Some(c);
        }
    }
    let best = best.filter(|b| b.1 >= 2);
    let word = |i: usize| words.get(i).copied().unwrap_or(0);
    let mut s = String::new();
    let mut i = 0;
    while i < 8 {
        if let Some((base, len)) = best {
            if i >= base && i < base + len {
                if i == base {
                    s.push(':');
                }
                i += 1;
                continue;
            }
        }
        if i != 0 {
            s.push(':');
        }
        if i == 6
            && best.is_some_and(|(base, len)| {
                base == 0 && (len == 6 || (len == 5 && word(5) == 0xffff))
            })
        {
            let v4 = a.get(12..16).unwrap_or_default();
            s.push_str(&v4.iter().map(u8::to_string).collect::<Vec<_>>().join("."));
            return s;
        }
        s.push_str(&format!("{:x}", word(i)));
        i += 1;
    }
    if best.is_some_and(|(base, len)| base + len == 8) {
        s.push(':');
    }
    s
}

/// `bit_out` / `varbit_out`: int32 bit count, then the bits, most significant first.
fn bit_out(data: &[u8]) -> Result<String, String> {
    let nbits = u32_at(data, 0)? as usize;
    let bytes = data.get(4..).unwrap_or_default();
    if nbits.div_ceil(8) != bytes.len() {
        return Err(format!(
            "bit string of {nbits} bits with {} data bytes",
            bytes.len()
        ));
    }
    Ok((0..nbits)
        .map(|i| {
            let b = bytes.get(i / 8).copied().unwrap_or(0);
            if b & (0x80 >> (i % 8)) != 0 {
                '1'
            } else {
                '0'
            }
        })
        .collect())
}

// ---------------------------------------------------------------------------
// Arrays (array.h): after the varlena header
//
//   int32 ndim | int32 dataoffset (0 = no null bitmap) | Oid elemtype
//   int32 dims[ndim] | int32 lbound[ndim] | null bitmap (if dataoffset)
//   padding to dataoffset (or MAXALIGN) | elements, each aligned by the
//   element type's typalign, offsets counted from the varlena header
// ---------------------------------------------------------------------------

/// `FirstNormalObjectId` (transam.h): OIDs of user-made objects start here.
const FIRST_NORMAL_OBJECT_ID: u32 = 16384;

/// `MAXDIM` (array.h).
const MAXDIM: usize = 6;

/// Where an array's parts lie (array.h), read from `data` (after its 4-byte
/// varlena header) as a little-endian host stored it.
struct ArrayLayout {
    elem: PgType,
    dims: Vec<i32>,
    lbounds: Vec<i32>,
    nitems: usize,
    /// Offset of the null bitmap, when the array has one.
    bitmap_at: Option<usize>,
    /// Where the first element may start.
    data_at: usize,
}

impl ArrayLayout {
    /// `None` for an empty array (ndim 0).
    fn read(declared: &PgType, data: &[u8]) -> Result<Option<ArrayLayout>, String> {
        // Offsets inside an array count from the 4-byte varlena header we
        // were handed the data after.
        const HDR: usize = 4;
        let ndim = u32_at(data, 0)? as i32;
        let dataoffset = u32_at(data, 4)? as i32;
        let elemtype = u32_at(data, 8)?;
        if ndim == 0 {
            return Ok(None);
        }
        let ndim = usize::try_from(ndim)
            .ok()
            .filter(|&n| n <= MAXDIM)
            .ok_or_else(|| format!("array has {ndim} dimensions (at most {MAXDIM})"))?;
        // A type from the catalogs (enum, range, composite) carries its OID;
        // an array of a domain stores the domain's OID (a user type's, at
        // least FirstNormalObjectId), whose base type is the one declared.
        let elem = if declared.oid() == Some(elemtype)
            || (elemtype >= FIRST_NORMAL_OBJECT_ID && declared.is_decoded())
        {
            declared.clone()
        } else {
            let elem = PgType::from_oid(elemtype)
                .ok_or_else(|| format!("array element type OID {elemtype} is not decoded"))?;
            if declared.oid().is_some_and(|d| d != elemtype) {
                return Err(format!(
                    "array elements are of type OID {elemtype}, not {} as declared",
                    declared.sql_name()
                ));
            }
            elem
        };
        let mut dims = Vec::with_capacity(ndim);
        let mut lbounds = Vec::with_capacity(ndim);
        for i in 0..ndim {
            dims.push(u32_at(data, 12 + 4 * i)? as i32);
            lbounds.push(u32_at(data, 12 + 4 * (ndim + i))? as i32);
        }
        let mut nitems: usize = 1;
        for &d in &dims {
            let d = usize::try_from(d).map_err(|_| format!("array dimension {d} is negative"))?;
            nitems = nitems
                .checked_mul(d)
                .filter(|&n| n <= data.len().saturating_mul(8))
                .ok_or_else(|| {
                    format!(
                        "array dimensions {dims:?} do not fit in {} bytes",
                        data.len()
                    )
                })?;
        }
        let bitmap_at = 12 + 8 * ndim;
        if dataoffset != 0 {
            data.get(bitmap_at..bitmap_at + nitems.div_ceil(8))
                .ok_or("array null bitmap runs past the end")?;
        }
        let data_at = if dataoffset != 0 {
            usize::try_from(dataoffset)
                .ok()
                .and_then(|o| o.checked_sub(HDR))
                .ok_or_else(|| format!("array dataoffset {dataoffset} is bad"))?
        } else {
            Align::Double.align(HDR + bitmap_at) - HDR
        };
        Ok(Some(ArrayLayout {
            elem,
            dims,
            lbounds,
            nitems,
            bitmap_at: (dataoffset != 0).then_some(bitmap_at),
            data_at,
        }))
    }

    /// Whether element `i` is null (its bit clear in the null bitmap).
    fn is_null(&self, data: &[u8], i: usize) -> bool {
        self.bitmap_at
            .is_some_and(|at| data.get(at + i / 8).is_none_or(|b| b & (1 << (i % 8)) == 0))
    }
}

fn array_out(declared: &PgType, data: &[u8]) -> Result<String, String> {
    let Some(layout) = ArrayLayout::read(declared, data)? else {
        return Ok("{}".into());
    };
    let ArrayLayout {
        elem,
        dims,
        lbounds,
        nitems,
        data_at,
        ..
    } = &layout;
    let nitems = *nitems;
    let mut pos = *data_at;
    // Elements are decoded one at a time, in storage order, straight into the
    // text: nothing is reserved per element, so an array's memory is its text,
    // and that is capped at MAX_VALUE_TEXT.
    let mut index = 0usize;
    let mut next_element = || -> Result<Option<String>, String> {
        let i = index;
        index += 1;
        if i >= nitems {
            return Ok(None);
        }
        if layout.is_null(data, i) {
            return Ok(None);
        }
        let (datum, next) =
            stored_value(elem, data, pos).map_err(|e| format!("array element {}: {e}", i + 1))?;
        let text = decode(elem, datum)
            .map_err(|e| format!("array element {}: {e}", i + 1))?
            .text;
        pos = next;
        Ok(Some(text))
    };
    let mut out = String::new();
    if lbounds.iter().any(|&lb| lb != 1) {
        for (d, lb) in dims.iter().zip(lbounds.iter()) {
            out.push_str(&format!("[{lb}:{}]", i64::from(*lb) + i64::from(*d) - 1));
        }
        out.push('=');
    }
    nest(dims, &mut next_element, &mut out)?;
    Ok(out)
}

/// `int2vectorout` / `oidvectorout`: the elements separated by spaces, no
/// braces or bounds (an empty vector is the empty string).
fn vector_out(elem: &PgType, data: &[u8]) -> Result<String, String> {
    let Some(layout) = ArrayLayout::read(elem, data)? else {
        return Ok(String::new());
    };
    if layout.dims.len() != 1 {
        return Err(format!(
            "{} has {} dimensions, not 1",
            elem.sql_name(),
            layout.dims.len()
        ));
    }
    let mut out = String::new();
    let mut pos = layout.data_at;
    for i in 0..layout.nitems {
        if layout.is_null(data, i) {
            return Err(format!("vector element {} is NULL", i + 1));
        }
        let (datum, next) = stored_value(&layout.elem, data, pos)
            .map_err(|e| format!("vector element {}: {e}", i + 1))?;
        if i > 0 {
            out.push(' ');
        }
        out.push_str(&decode(&layout.elem, datum)?.text);
        pos = next;
    }
    Ok(out)
}

// ---------------------------------------------------------------------------
// Ranges and composites

/// RangeType flags (rangetypes.h).
const RANGE_EMPTY: u8 = 0x01;
const RANGE_LB_INC: u8 = 0x02;
const RANGE_UB_INC: u8 = 0x04;
const RANGE_LB_INF: u8 = 0x08;
const RANGE_UB_INF: u8 = 0x10;
const RANGE_LB_NULL: u8 = 0x20;
const RANGE_UB_NULL: u8 = 0x40;

/// One value of `ty` stored at `pos` of `data` (which follows a 4-byte
/// varlena header, so alignment counts from 4 bytes before it), the way
/// heap tuples, arrays and ranges store values: its bytes and the position
/// after it.
fn stored_value<'a>(ty: &PgType, data: &'a [u8], pos: usize) -> Result<(&'a [u8], usize), String> {
    const HDR: usize = 4;
    match ty.attlen() {
        n if n > 0 => {
            let at = ty.align().align(HDR + pos) - HDR;
            let d = data
                .get(at..at + n as usize)
                .ok_or_else(|| format!("a {}-byte value at {at} runs past the end", n))?;
            Ok((d, at + n as usize))
        }
        -2 => {
            let len = data
                .get(pos..)
                .and_then(|r| r.iter().position(|&b| b == 0))
                .ok_or("a C string runs past the end")?;
            Ok((&data[pos..pos + len], pos + len + 1))
        }
        _ => {
            // A 1-byte header is never aligned; a 4-byte one (first byte 0
            // on little-endian machines after padding) is.
            let at = if data.get(pos).copied().unwrap_or(0) == 0 {
                ty.align().align(HDR + pos) - HDR
            } else {
                pos
            };
            let (payload, total) = inner_varlena(data, at)?;
            Ok((payload, at + total))
        }
    }
}

/// range_out: `empty`, or the bounds in `[` `(` `)` `]`, each quoted as
/// range_bound_escape does.
fn range_out(subtype: &PgType, data: &[u8]) -> Result<String, String> {
    // data: rangetypid (4 bytes), the bounds, the flags byte last.
    let flags = *data.last().ok_or("range has no flags byte")?;
    if data.len() < 5 {
        return Err(format!("range of {} bytes is too short", data.len() + 4));
    }
    range_text(subtype, &data[..data.len() - 1], 4, flags).map(|(t, _)| t)
}

/// A range's text from its `flags` and its bounds at `pos` of `body`
/// (positions count from after a 4-byte varlena header); also where its
/// bounds end.
fn range_text(
    subtype: &PgType,
    body: &[u8],
    pos: usize,
    flags: u8,
) -> Result<(String, usize), String> {
    if flags & RANGE_EMPTY != 0 {
        return Ok(("empty".into(), pos));
    }
    let mut pos = pos;
    let mut bound = |has: bool| -> Result<Option<String>, String> {
        if !has {
            return Ok(None);
        }
        let (d, next) = stored_value(subtype, body, pos)?;
        pos = next;
        Ok(Some(decode(subtype, d)?.text))
    };
    let lower = bound(flags & (RANGE_LB_INF | RANGE_LB_NULL) == 0)?;
    let upper = bound(flags & (RANGE_UB_INF | RANGE_UB_NULL) == 0)?;
    let mut out = String::new();
    out.push(if flags & RANGE_LB_INC != 0 { '[' } else { '(' });
    if let Some(l) = lower {
        out.push_str(&quote_composite(&l, true));
    }
    out.push(',');
    if let Some(u) = upper {
        out.push_str(&quote_composite(&u, true));
    }
    out.push(if flags & RANGE_UB_INC != 0 { ']' } else { ')' });
    Ok((out, pos))
}

/// `MULTIRANGE_ITEM_OFF_BIT`, `MULTIRANGE_ITEM_OFFSET_STRIDE` (multirangetypes.c).
const MULTIRANGE_ITEM_OFF_BIT: u32 = 0x8000_0000;
const MULTIRANGE_ITEM_OFFSET_STRIDE: usize = 4;

/// Where a multirange's parts lie (multirangetypes.h), read from `data`
/// (after its 4-byte varlena header): multirangetypid, rangeCount,
/// items[rangeCount - 1] (every fourth an offset, the others lengths),
/// flags[rangeCount], then the ranges' bounds from an aligned start.
struct MultirangeLayout {
    count: usize,
    items_at: usize,
    flags_at: usize,
    /// Where the bounds start (the ranges' offsets count from here).
    begin: usize,
}

impl MultirangeLayout {
    fn read(subtype: &PgType, data: &[u8]) -> Result<MultirangeLayout, String> {
        const HDR: usize = 4;
        let count = u32_at(data, 4)? as usize;
        let items_at = 8usize;
        let flags_at = count
            .checked_sub(1)
            .map_or(Some(items_at), |n| n.checked_mul(4)?.checked_add(items_at))
            .filter(|&f| f.saturating_add(count) <= data.len())
            .ok_or_else(|| {
                format!(
                    "multirange of {count} ranges does not fit in {} bytes",
                    data.len()
                )
            })?;
        let align = if subtype.align() == Align::Double {
            Align::Double
        } else {
            Align::Int
        };
        let begin = align.align(HDR + flags_at + count) - HDR;
        Ok(MultirangeLayout {
            count,
            items_at,
            flags_at,
            begin,
        })
    }

    /// Where range `i` starts, from `begin`, given where range `i - 1`
    /// started (`prev`).
    fn range_start(&self, data: &[u8], i: usize, prev: usize) -> Result<usize, String> {
        if i == 0 {
            return Ok(0);
        }
        let item = u32_at(data, self.items_at + 4 * (i - 1))?;
        Ok(if i.is_multiple_of(MULTIRANGE_ITEM_OFFSET_STRIDE) {
            (item & !MULTIRANGE_ITEM_OFF_BIT) as usize
        } else {
            prev.saturating_add(item as usize)
        })
    }
}

/// multirange_out: `{` the ranges as range_out prints them, `,` between `}`.
fn multirange_out(subtype: &PgType, data: &[u8]) -> Result<String, String> {
    let layout = MultirangeLayout::read(subtype, data)?;
    let mut out = String::from("{");
    let mut start = 0usize;
    for i in 0..layout.count {
        start = layout.range_start(data, i, start)?;
        if i > 0 {
            out.push(',');
        }
        let flags = byte(data, layout.flags_at + i)?;
        let (text, _) = range_text(subtype, data, layout.begin.saturating_add(start), flags)
            .map_err(|e| format!("multirange range {}: {e}", i + 1))?;
        out.push_str(&text);
        if out.len() > MAX_VALUE_TEXT {
            return Err(format!(
                "multirange text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown"
            ));
        }
    }
    out.push('}');
    Ok(out)
}

/// range_bound_escape and record_out's quoting: empty text, or text with
/// `"`, `\`, `(`, `)`, `,`, white space (and for ranges `[`, `]`) is
/// double-quoted, with `"` and `\` doubled.
fn quote_composite(v: &str, range: bool) -> String {
    let needs = v.is_empty()
        || v.chars().any(|c| {
            matches!(c, '"' | '\\' | '(' | ')' | ',')
                || (range && matches!(c, '[' | ']'))
                || matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
        });
    if !needs {
        return v.to_string();
    }
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        if c == '"' || c == '\\' {
            s.push(c);
        }
        s.push(c);
    }
    s.push('"');
    s
}

/// Where a composite value's parts lie (htup_details.h), read from `data`
/// (after datum_len_): datum_typmod, datum_typeid, t_ctid (6),
/// t_infomask2, t_infomask, t_hoff, t_bits.
struct RecordLayout {
    natts: usize,
    /// The null bitmap's offset, when the value has one.
    bits_at: Option<usize>,
    /// Where the first attribute may start (t_hoff).
    data_at: usize,
}

impl RecordLayout {
    fn read(data: &[u8]) -> Result<RecordLayout, String> {
        let infomask2 = u16_at(data, 14)?;
        let infomask = u16_at(data, 16)?;
        let t_hoff = usize::from(byte(data, 18)?);
        let natts = usize::from(infomask2 & HEAP_NATTS_MASK);
        if t_hoff < 4 + 19 {
            return Err(format!("composite value's t_hoff {t_hoff} is too small"));
        }
        let bits_at = if infomask & HEAP_HASNULL != 0 {
            data.get(19..19 + natts.div_ceil(8))
                .ok_or("composite value's null bitmap runs past the end")?;
            Some(19)
        } else {
            None
        };
        Ok(RecordLayout {
            natts,
            bits_at,
            data_at: t_hoff - 4,
        })
    }

    /// Whether attribute `i` (from 0) is null or not stored.
    fn is_null(&self, data: &[u8], i: usize) -> bool {
        i >= self.natts
            || self
                .bits_at
                .is_some_and(|at| data.get(at + i / 8).is_none_or(|b| b & (1 << (i % 8)) == 0))
    }
}

/// The type of a composite's attribute, a placeholder of its attlen and
/// alignment for a dropped one.
fn record_field_type(col: &crate::model::postgres::types::Column) -> PgType {
    col.ty
        .as_ref()
        .map(|t| t.ty.clone())
        .unwrap_or(PgType::Other {
            name: "dropped".into(),
            attlen: col.attlen,
            align: col.align,
        })
}

/// record_out: `(f1,f2,…)`, NULL fields empty, others quoted as record_out
/// does; dropped attributes skipped.
fn record_out(
    fields: &[crate::model::postgres::types::Column],
    data: &[u8],
) -> Result<String, String> {
    let record = RecordLayout::read(data)?;
    let mut pos = record.data_at;
    let mut out = String::from("(");
    let mut first = true;
    for (i, col) in fields.iter().enumerate() {
        let mut text = None;
        if !record.is_null(data, i) {
            let ty = record_field_type(col);
            let (d, next) = stored_value(&ty, data, pos)
                .map_err(|e| format!("composite attribute {}: {e}", i + 1))?;
            pos = next;
            if !col.dropped {
                text = Some(
                    decode(&ty, d)
                        .map_err(|e| format!("composite attribute {}: {e}", i + 1))?
                        .text,
                );
            }
        }
        if col.dropped {
            continue;
        }
        if !first {
            out.push(',');
        }
        first = false;
        if let Some(t) = text {
            out.push_str(&quote_composite(&t, false));
        }
        if out.len() > MAX_VALUE_TEXT {
            return Err(format!(
                "composite text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown"
            ));
        }
    }
    out.push(')');
    Ok(out)
}

fn nest(
    dims: &[i32],
    next_element: &mut dyn FnMut() -> Result<Option<String>, String>,
    out: &mut String,
) -> Result<(), String> {
    out.push('{');
    let (first, rest) = match dims.split_first() {
        Some((f, r)) => (*f, r),
        None => (0, &[][..]),
    };
    for i in 0..first.max(0) {
        if i > 0 {
            out.push(',');
        }
        if rest.is_empty() {
            match next_element()? {
                Some(v) => out.push_str(&quote_element(&v)),
                None => out.push_str("NULL"),
            }
        } else {
            nest(rest, next_element, out)?;
        }
        if out.len() > MAX_VALUE_TEXT {
            return Err(format!(
                "array text passes blockscope's limit of {MAX_VALUE_TEXT} bytes per value; not shown"
            ));
        }
    }
    out.push('}');
    Ok(())
}

/// `array_out`'s quoting: empty strings, `NULL`, and anything with `"`, `\`,
/// braces, commas or white space are double-quoted, `"` and `\` escaped.
pub(crate) fn quote_element(v: &str) -> String {
    let needs = v.is_empty()
        || v.eq_ignore_ascii_case("NULL")
        || v.chars().any(|c| {
            matches!(
                c,
                '"' | '\\' | '{' | '}' | ',' | ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c'
            )
        });
    if !needs {
        return v.to_string();
    }
    let mut s = String::with_capacity(v.len() + 2);
    s.push('"');
    for c in v.chars() {
        if c == '"' || c == '\\' {
            s.push('\\');
        }
        s.push(c);
    }
    s.push('"');
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex_bytes(hex: &str) -> Vec<u8> {
        (0..hex.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
            .collect()
    }

    fn text(ty: PgType, hex: &str) -> String {
        decode(&ty, &hex_bytes(hex)).unwrap().text
    }

    /// int4range `[1,10)`, a composite `(7,"a b",)` of (int4, text, int4)
    /// and an int4multirange `{[1,3),[5,8)}` as PostgreSQL lays them out
    /// (after the varlena header); every truncation is an error, not a panic.
    #[test]
    fn ranges_composites_and_multiranges() {
        use crate::model::postgres::types::{Column, TypeSpec};
        let int4 = |v: u32| v.to_le_bytes().to_vec();
        let range: Vec<u8> = [int4(3904), int4(1), int4(10), vec![RANGE_LB_INC]].concat();
        let ty = PgType::Range {
            oid: 3904,
            name: "int4range".into(),
            subtype: Box::new(PgType::Int4),
        };
        assert_eq!(decode(&ty, &range).unwrap().text, "[1,10)");
        let fields: Vec<Column> = [PgType::Int4, PgType::Text, PgType::Int4]
            .into_iter()
            .map(|t| {
                Column::of(
                    Some("f".into()),
                    TypeSpec {
                        ty: t,
                        typmod: None,
                    },
                )
            })
            .collect();
        // typmod, typeid, ctid, infomask2 (3 atts), infomask (HASNULL),
        // t_hoff 24, bitmap 0b011; then 7, a 1-byte-header "a b".
        let mut rec = [int4(0xFFFF_FFFF), int4(16390), vec![0; 6]].concat();
        rec.extend([3, 0, 1, 0, 24, 0b011]);
        rec.extend(int4(7));
        rec.extend([(4 << 1) | 1, b'a', b' ', b'b']);
        let comp = PgType::Composite {
            oid: 16390,
            name: "pair".into(),
            fields,
        };
        assert_eq!(decode(&comp, &rec).unwrap().text, "(7,\"a b\",)");
        // multirangetypid, rangeCount 2, items[1] = length of range 1 (8),
        // flags [LB_INC, LB_INC], padding to 4, bounds.
        let mut multi = [int4(4451), int4(2), int4(8)].concat();
        multi.extend([RANGE_LB_INC, RANGE_LB_INC, 0, 0]);
        multi.extend([int4(1), int4(3), int4(5), int4(8)].concat());
        let mty = PgType::Multirange {
            oid: 4451,
            name: "int4multirange".into(),
            subtype: Box::new(PgType::Int4),
        };
        assert_eq!(decode(&mty, &multi).unwrap().text, "{[1,3),[5,8)}");
        for (t, bytes) in [(&ty, &range), (&comp, &rec), (&mty, &multi)] {
            for n in 0..bytes.len() {
                let _ = decode(t, &bytes[..n]);
            }
        }
        assert!(decode(&comp, &rec[..rec.len() - 2]).is_err());
        assert!(decode(&mty, &multi[..multi.len() - 4]).is_err());
    }

    /// A composite nested in a composite and a multirange of five ranges
    /// (items of both kinds: lengths, then an offset at the fourth), laid
    /// out by hand as a big-endian host stores them (htup_details.h,
    /// multirangetypes.h), rewritten to the little-endian layout; no
    /// truncation of either panics.
    #[test]
    fn big_endian_nested_composites_and_multiranges() {
        use crate::model::postgres::types::{Column, TypeSpec};
        let col = |t: PgType| {
            Column::of(
                Some("f".into()),
                TypeSpec {
                    ty: t,
                    typmod: None,
                },
            )
        };
        let inner = PgType::Composite {
            oid: 16390,
            name: "pair".into(),
            fields: vec![col(PgType::Int4), col(PgType::Text), col(PgType::Int4)],
        };
        let outer = PgType::Composite {
            oid: 16400,
            name: "outer".into(),
            fields: vec![
                col(PgType::Int2),
                col(inner),
                Column {
                    name: None,
                    ty: None,
                    attlen: -1,
                    align: Align::Int,
                    dropped: true,
                    missing: None,
                },
                col(PgType::Int4),
            ],
        };
        // Inner (after its header): typmod -1, typeid, ctid, infomask2
        // (3 atts), infomask (HASNULL), t_hoff 24, bitmap 0b011, 7, "a b".
        let mut inner_be = [u32::MAX.to_be_bytes(), 16390u32.to_be_bytes()].concat();
        inner_be.extend([0, 0, 0, 0, 0, 0, 0, 3, 0, 1, 24, 0b011]);
        inner_be.extend(7u32.to_be_bytes());
        inner_be.extend([0x80 | 4, b'a', b' ', b'b']);
        // Outer: no nulls, t_hoff 24; int2 -2 at 24, the inner value
        // (4-byte header) at the next multiple of 8, 32; a dropped
        // attribute's "zz" (1-byte header) at 64, then int4 9 at 68.
        let mut be = [u32::MAX.to_be_bytes(), 16400u32.to_be_bytes()].concat();
        be.extend([0, 0, 0, 1, 0, 2, 0, 4, 0, 0, 24, 0]);
        be.extend((-2i16).to_be_bytes());
        be.extend([0; 6]);
        be.extend((4 + inner_be.len() as u32).to_be_bytes());
        be.extend(&inner_be);
        be.extend([0x80 | 3, b'z', b'z', 0]);
        be.extend(9u32.to_be_bytes());
        let little = big_endian_to_little(&outer, &be).unwrap();
        assert_eq!(
            decode(&outer, &little).unwrap().text,
            r#"(-2,"(7,""a b"",)",9)"#
        );
        // Five ranges [1,2) … [9,10): items 8, 8, 8, then offset 32.
        let mut multi = [4451u32, 5, 8, 8, 8, 32 | MULTIRANGE_ITEM_OFF_BIT]
            .iter()
            .flat_map(|w| w.to_be_bytes())
            .collect::<Vec<u8>>();
        multi.extend([RANGE_LB_INC; 5]);
        multi.extend([0; 3]);
        for v in 1..=10u32 {
            multi.extend(v.to_be_bytes());
        }
        let mty = PgType::Multirange {
            oid: 4451,
            name: "int4multirange".into(),
            subtype: Box::new(PgType::Int4),
        };
        let little = big_endian_to_little(&mty, &multi).unwrap();
        assert_eq!(
            decode(&mty, &little).unwrap().text,
            "{[1,2),[3,4),[5,6),[7,8),[9,10)}"
        );
        for (t, bytes) in [(&outer, &be), (&mty, &multi)] {
            for n in 0..bytes.len() {
                let _ = big_endian_to_little(t, &bytes[..n]);
            }
        }
        use crate::model::postgres::types::ExtType;
        for e in [
            ExtType::Citext,
            ExtType::Hstore,
            ExtType::Ltree,
            ExtType::Cube,
            ExtType::Seg,
        ] {
            for n in 0..24 {
                let _ = big_endian_to_little(&PgType::Ext(e), &vec![0xFF; n]);
            }
        }
    }

    #[test]
    fn floats_print_like_ryu() {
        assert_eq!(float8_out(2.25), "2.25");
        assert_eq!(float8_out(-1e300), "-1e+300");
        assert_eq!(float8_out(1e15), "1e+15");
        assert_eq!(float8_out(1e14), "100000000000000");
        assert_eq!(float8_out(1.2345678901234568e17), "1.2345678901234568e+17");
        assert_eq!(float8_out(0.0001), "0.0001");
        assert_eq!(float8_out(0.00001), "1e-05");
        assert_eq!(float8_out(-0.0), "-0");
        assert_eq!(float8_out(std::f64::consts::PI), "3.141592653589793");
        assert_eq!(float8_out(f64::NAN), "NaN");
        assert_eq!(float8_out(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(float4_out(1e6), "1e+06");
        assert_eq!(float4_out(1e5), "100000");
        assert_eq!(float4_out(1234567.0), "1.234567e+06");
        assert_eq!(float4_out(0.1), "0.1");
        assert_eq!(float4_out(3e38), "3e+38");
        assert_eq!(float4_out(1.5), "1.5");
    }

    /// Every value of fixtures/postgres/floats (made by its make.sh on
    /// PostgreSQL 15: random bit patterns, exact binary fractions that fall
    /// halfway between two shortest decimals, integers whose rounding
    /// interval ends on a short decimal, subnormals, extremes) prints as the
    /// server printed it.
    #[test]
    fn floats_print_as_postgres_15_did() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/postgres/floats");
        for (file, four) in [("float4.txt", true), ("float8.txt", false)] {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).unwrap();
            let mut wrong = Vec::new();
            for line in text.lines() {
                let (hex, want) = line.split_once(' ').unwrap();
                let bits = u64::from_str_radix(hex, 16).unwrap();
                let got = if four {
                    float4_out(f32::from_bits(bits as u32))
                } else {
                    float8_out(f64::from_bits(bits))
                };
                if got != want {
                    wrong.push(format!("{hex}: PostgreSQL {want}, blockscope {got}"));
                }
            }
            assert!(text.lines().count() > 9000, "{file}");
            assert!(
                wrong.is_empty(),
                "{file}: {} differ: {:?}",
                wrong.len(),
                &wrong[..wrong.len().min(10)]
            );
        }
    }

    /// int2vector and oidvector as `int2vectorout` / `oidvectorout` print
    /// them (as COPY of a PG15 table wrote `1 2`, `26 1259 4294967295`, an
    /// empty vector as nothing, and `{"3 -4",""}` for an int2vector[]).
    #[test]
    fn vectors_print_space_separated() {
        let int2 = "01000000000000001500000002000000000000000100 0200".replace(' ', "");
        assert_eq!(text(PgType::Int2Vector, &int2), "1 2");
        let oids = "01000000000000001a0000000300000000000000\
                    1a000000eb040000ffffffff";
        assert_eq!(text(PgType::OidVector, oids), "26 1259 4294967295");
        let empty = "0100000000000000150000000000000000000000";
        assert_eq!(text(PgType::Int2Vector, empty), "");
        assert_eq!(text(PgType::OidVector, "000000000000000000000000"), "");
        // Two dimensions is not a vector.
        let two = "020000000000000015000000010000000100000000000000000000000100";
        assert!(decode(&PgType::Int2Vector, &hex_bytes(two)).is_err());
        assert_eq!(PgType::from_oid(22), Some(PgType::Int2Vector));
        assert_eq!(PgType::from_oid(30), Some(PgType::OidVector));
    }

    #[test]
    fn float_ties_go_to_even_and_interval_ends_are_not_taken() {
        // Exactly 4531.15625 and -255962.625: 4531.1562 and 4531.1563 are equally near.
        assert_eq!(float4_out(f32::from_bits(0x458d_9940)), "4531.1562");
        assert_eq!(float4_out(f32::from_bits(0xc879_f6a8)), "-255962.62");
        // 45679288.0 = 11419822 · 4: 45679290 is exactly half an ulp above.
        assert_eq!(float4_out(f32::from_bits(0x4c2e_40ae)), "4.5679288e+07");
        // -166379773428668.625
        let bits = 0xc2e2_ea49_e960_7794;
        assert_eq!(float8_out(f64::from_bits(bits)), "-166379773428668.62");
    }

    #[test]
    fn numeric_decodes_as_numeric_out_does() {
        use crate::parse::postgres::datum::numeric_decodes;
        let cases: &[&[u8]] = &[
            &[0x80, 0x80, 0x01, 0x00, 0x88, 0x13],
            &[0x00, 0x81],
            &[0x00, 0xc0],
            &[0x00, 0xe0],
            &[0x80],
            &[0x00, 0x80, 0x10, 0x27],
            &[0x00, 0x80, 0x01],
            // long form, weight 32767: would print 131,072 digits
            &[0x00, 0x00, 0xff, 0x7f, 0x01, 0x00],
        ];
        for &c in cases {
            assert_eq!(numeric_decodes(c), numeric_out(c).is_ok(), "{c:02x?}");
        }
    }

    #[test]
    fn numeric_forms() {
        // short: 1.5 (dscale 1, weight 0, digits 1 5000)
        assert_eq!(
            numeric_out(&[0x80, 0x80, 0x01, 0x00, 0x88, 0x13]).unwrap(),
            "1.5"
        );
        // short: 0.000001 (dscale 6, weight -2, digit 100)
        assert_eq!(numeric_out(&[0x7e, 0x83, 0x64, 0x00]).unwrap(), "0.000001");
        // zero with scale 2: no digits at all
        assert_eq!(numeric_out(&[0x00, 0x81]).unwrap(), "0.00");
        // long form: -12345678 (sign 0x4000, dscale 0, weight 1, digits 1234 5678)
        assert_eq!(
            numeric_out(&[0x00, 0x40, 0x01, 0x00, 0xd2, 0x04, 0x2e, 0x16]).unwrap(),
            "-12345678"
        );
        // weight beyond the digits: 10000 × 10000^1 = 100000000 (trailing zero groups)
        assert_eq!(numeric_out(&[0x02, 0x80, 0x01, 0x00]).unwrap(), "100000000");
        assert_eq!(numeric_out(&[0x00, 0xc0]).unwrap(), "NaN");
        assert_eq!(numeric_out(&[0x00, 0xd0]).unwrap(), "Infinity");
        assert_eq!(numeric_out(&[0x00, 0xf0]).unwrap(), "-Infinity");
        assert!(numeric_out(&[0x00, 0xe0]).is_err());
        assert!(numeric_out(&[0x80]).is_err());
        assert!(
            numeric_out(&[0x00, 0x80, 0x10, 0x27]).is_err(),
            "digit 10000"
        );
    }

    #[test]
    fn dates_including_bc_and_infinity() {
        assert_eq!(date_out(0).unwrap(), "2000-01-01");
        assert_eq!(date_out(8825).unwrap(), "2024-02-29");
        assert_eq!(date_out(-1).unwrap(), "1999-12-31");
        // 0001-01-01 BC is the day before 0001-01-01
        assert_eq!(date_out(-730119).unwrap(), "0001-01-01");
        assert_eq!(date_out(-730120).unwrap(), "0001-12-31 BC");
        // Julian day 0: 4714-11-24 BC, the first date PostgreSQL has
        assert_eq!(date_out(-2451545).unwrap(), "4714-11-24 BC");
        assert!(date_out(-2451546).is_err());
        assert_eq!(date_out(i32::MAX).unwrap(), "infinity");
        assert_eq!(date_out(i32::MIN).unwrap(), "-infinity");
    }

    #[test]
    fn times_and_timestamps() {
        assert_eq!(time_out(45_296_789_000), "12:34:56.789");
        assert_eq!(time_out(86_400_000_000), "24:00:00");
        assert_eq!(timezone_out(-19800), "+05:30");
        assert_eq!(timezone_out(28800), "-08");
        assert_eq!(timezone_out(-3723), "+01:02:03");
        assert_eq!(
            timestamp_out(762_525_296_123_456, None).unwrap(),
            "2024-02-29 12:34:56.123456"
        );
        assert_eq!(timestamp_out(0, Some(0)).unwrap(), "2000-01-01 00:00:00+00");
        assert_eq!(
            timestamp_out(-1, None).unwrap(),
            "1999-12-31 23:59:59.999999"
        );
        // 0044-03-15 BC 12:00
        let days: i64 = -746_117;
        assert_eq!(
            timestamp_out(days * USECS_PER_DAY + 12 * USECS_PER_HOUR, Some(0)).unwrap(),
            "0044-03-15 12:00:00+00 BC"
        );
        assert_eq!(timestamp_out(i64::MAX, None).unwrap(), "infinity");
        assert_eq!(timestamp_out(i64::MIN, Some(0)).unwrap(), "-infinity");
        assert!(timestamp_out(END_TIMESTAMP, None).is_err());
    }

    #[test]
    fn intervals_in_postgres_style() {
        let usec = |h: i64, m: i64, s: i64, us: i64| {
            h * USECS_PER_HOUR + m * USECS_PER_MINUTE + s * USECS_PER_SEC + us
        };
        assert_eq!(
            interval_out(usec(4, 5, 6, 500_000), 3, 14),
            "1 year 2 mons 3 days 04:05:06.5"
        );
        assert_eq!(interval_out(-usec(2, 0, 0, 0), -1, 0), "-1 days -02:00:00");
        assert_eq!(interval_out(0, 0, 0), "00:00:00");
        assert_eq!(interval_out(0, 1, 1), "1 mon 1 day");
        assert_eq!(interval_out(usec(1, 0, 0, 0), -1, 0), "-1 days +01:00:00");
        assert_eq!(interval_out(0, 5, -1), "-1 mons +5 days");
        assert_eq!(interval_out(usec(100, 0, 0, 1), 0, 0), "100:00:00.000001");
        assert_eq!(interval_out(-500_000, 0, 0), "-00:00:00.5");
        assert_eq!(interval_out(0, 0, -24), "-2 years");
    }

    #[test]
    fn network_addresses() {
        assert_eq!(text(PgType::Inet, "0220c0a80105"), "192.168.1.5");
        assert_eq!(text(PgType::Inet, "02180a010203"), "10.1.2.3/24");
        assert_eq!(text(PgType::Cidr, "02080a000000"), "10.0.0.0/8");
        assert_eq!(text(PgType::Cidr, "0220c0a80105"), "192.168.1.5/32");
        assert_eq!(
            text(PgType::Inet, "038000000000000000000000000000000001"),
            "::1"
        );
        assert_eq!(
            text(PgType::Inet, "038000000000000000000000000000000002"),
            "::2"
        );
        assert_eq!(
            text(PgType::Cidr, "032020010db8000000000000000000000000"),
            "2001:db8::/32"
        );
        assert_eq!(
            text(PgType::Inet, "038000000000000000000000ffff01020304"),
            "::ffff:1.2.3.4"
        );
        assert_eq!(
            text(PgType::Inet, "038000000000000000000000000001020304"),
            "::1.2.3.4"
        );
        assert_eq!(
            text(PgType::Inet, "038000010000000000010000000000000001"),
            "1:0:0:1::1"
        );
        assert_eq!(
            text(PgType::Inet, "038000000000000000000000000000000000"),
            "::"
        );
        assert_eq!(
            text(PgType::Inet, "0380fe800000000000000000000000000000"),
            "fe80::"
        );
        assert_eq!(
            text(PgType::Inet, "038000010002000300040005000600070008"),
            "1:2:3:4:5:6:7:8"
        );
        assert!(decode(&PgType::Inet, &[7, 32, 1, 2, 3, 4]).is_err());
        assert!(decode(&PgType::Inet, &[2, 33, 1, 2, 3, 4]).is_err());
        assert!(decode(&PgType::Inet, &[2, 32, 1]).is_err());
    }

    #[test]
    fn small_fixed_types() {
        assert_eq!(
            text(PgType::Uuid, "a0eebc999c0b4ef8bb6d6bb9bd380a11"),
            "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"
        );
        assert_eq!(text(PgType::Macaddr, "08002b010203"), "08:00:2b:01:02:03");
        assert_eq!(text(PgType::Tid, "000003000700"), "(3,7)");
        assert_eq!(text(PgType::PgLsn, "48d874b316000000"), "16/B374D848");
        assert_eq!(text(PgType::Char, "e9"), "\\351");
        assert_eq!(text(PgType::Char, "00"), "");
        assert_eq!(text(PgType::Money, "3ae2010000000000"), "$1,234.50");
        assert_eq!(cash_out(-123456789), "-$1,234,567.89");
        assert_eq!(cash_out(0), "$0.00");
        assert_eq!(text(PgType::Bit, "05000000b0"), "10110");
        assert_eq!(
            text(PgType::Point, "000000000000f83f00000000000000c0"),
            "(1.5,-2)"
        );
        assert_eq!(text(PgType::Name, "615f6e616d650000"), "a_name");
        assert_eq!(text(PgType::Bytea, "deadbeef"), "\\xdeadbeef");
        assert!(decode(&PgType::Text, &[0xff, 0xfe]).is_err());
        assert!(decode(&PgType::Int8, &[1, 2, 3]).is_err());
    }

    #[test]
    fn an_array_of_millions_of_nulls_is_cut_not_reserved() {
        // int4[] of 100,000,000 NULLs: ndim 1, dataoffset set, elemtype 23,
        // dim 100M, lbound 1, then an all-zero null bitmap of 12.5 MB. Its
        // text would be 500 MB; nothing is reserved per element and the text
        // stops at MAX_VALUE_TEXT.
        let n: u32 = 100_000_000;
        let mut data = Vec::new();
        for w in [1u32, 40, 23, n, 1] {
            data.extend_from_slice(&w.to_le_bytes());
        }
        data.resize(data.len() + (n as usize).div_ceil(8), 0);
        let err = decode(&PgType::Array(Box::new(PgType::Int4)), &data).unwrap_err();
        assert!(err.contains("limit of 67108864 bytes"), "{err}");
    }

    #[test]
    fn arrays_with_nulls_bounds_and_quoting() {
        // int4[] {1,2,3}: ndim 1, no bitmap, int4, dim 3, lbound 1, pad to 24
        assert_eq!(
            text(
                PgType::Array(Box::new(PgType::Int4)),
                "0100000000000000170000000300000001000000010000000200000003000000"
            ),
            "{1,2,3}"
        );
        // {{1,2},{3,NULL}}: bitmap 0b0111, dataoffset 40
        assert_eq!(
            text(
                PgType::Array(Box::new(PgType::Int4)),
                "020000002800000017000000020000000200000001000000010000000700000000000000010000000200000003000000"
            ),
            "{{1,2},{3,NULL}}"
        );
        // text[] {a,"b c",NULL}
        assert_eq!(
            text(
                PgType::Array(Box::new(PgType::Text)),
                "0100000020000000190000000300000001000000030000000000000014000000610000001c00000062206300"
            ),
            "{a,\"b c\",NULL}"
        );
        // [0:1]={5,6}
        assert_eq!(
            text(
                PgType::Array(Box::new(PgType::Int4)),
                "01000000000000001700000002000000000000000500000006000000"
            ),
            "[0:1]={5,6}"
        );
        assert_eq!(
            text(
                PgType::Array(Box::new(PgType::Int4)),
                "000000000000000017000000"
            ),
            "{}"
        );
        assert_eq!(quote_element(""), "\"\"");
        assert_eq!(quote_element("null"), "\"null\"");
        assert_eq!(quote_element("a\"b\\"), "\"a\\\"b\\\\\"");
        assert_eq!(quote_element("{x}"), "\"{x}\"");
        // an element type that is not the declared one
        assert!(decode(
            &PgType::Array(Box::new(PgType::Text)),
            &[1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 0, 0]
        )
        .is_err());
        // absurd dimensions are an error, not an allocation
        assert!(decode(
            &PgType::Array(Box::new(PgType::Int4)),
            &[1, 0, 0, 0, 0, 0, 0, 0, 23, 0, 0, 0, 0xff, 0xff, 0xff, 0x7f, 1, 0, 0, 0]
        )
        .is_err());
    }
}
