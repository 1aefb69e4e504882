//! Heap tuple data split into attributes, given the relation's column list —
//! what `heap_deform_tuple` does in the server, `tuple_data_split` shows in
//! pageinspect and `pg_filedump -D` prints.
//!
//! The data starts at `t_hoff`; offsets below are relative to it. For each
//! column in attribute-number order:
//!
//! * attribute numbers past the tuple's natts (`t_infomask2 & 0x07FF`) were
//!   added to the table after the tuple was written: their value is the
//!   column's missing value (`attmissingval`) or NULL;
//! * a clear bit in the null bitmap (`t_bits`, when HEAP_HASNULL) means NULL
//!   and takes no bytes;
//! * otherwise the offset is rounded up to the column's alignment — except
//!   for a varlena whose first byte is not zero: a 1-byte header is never
//!   padded, and padding is always zero (`att_align_pointer`);
//! * the attribute takes `attlen` bytes, or what its varlena header says, or
//!   up to and including a NUL for `attlen` -2.
//!
//! Varlena headers (little-endian, varatt.h):
//!
//! ```text
//!  first byte xxxxxxx1  1-byte header, total length = byte >> 1 (0x01 excluded)
//!  first byte 00000001  external pointer: next byte is the vartag,
//!                       18 = on-disk TOAST pointer (varatt_external, 16 bytes)
//!  word       ……………00  4-byte header, total length = word >> 2
//!  word       ……………10  4-byte header, compressed inline; then va_tcinfo:
//!                       raw size (low 30 bits), method (high 2: 0 pglz, 1 lz4)
//! ```

use crate::model::postgres::types::{Column, PgType, Schema};
use crate::model::postgres::{
    Attr, Compression, HeapTuple, ItemId, PageLayout, PgPage, Storage, ToastPointer, Typed, Value,
    HEAP_HASNULL, SIZEOF_HEAP_TUPLE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, Reader};

use super::toast::ToastStore;
pub(crate) use super::toast::MAX_VALUE_BYTES;
use super::wal::redo::page::max_heap_tuples;

/// Decoded value bytes one page may expand to, over all its tuples: what
/// one value may be ([`MAX_VALUE_BYTES`]). Overlapping line pointers (many
/// pointers at one tuple) and TOAST fan-out (many tuples pointing at one big
/// value) would otherwise multiply the values a page decodes; once this is
/// spent, further compressed or TOASTed values on the page are not expanded
/// and say so.
pub(crate) const PAGE_VALUE_BUDGET: usize = MAX_VALUE_BYTES;
use super::{pglz, values};

/// `VARTAG_ONDISK`: an on-disk TOAST pointer.
const VARTAG_ONDISK: u8 = 18;
/// Problem class for everything found while splitting attributes.
const CLASS: ProblemClass = ProblemClass::Attrs;

/// Where one attribute lies in the tuple data (offsets relative to t_hoff).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    /// Past the tuple's natts.
    Missing,
    /// SQL NULL by the null bitmap.
    Null,
    /// `len` bytes at `off`, after `pad` bytes of alignment padding.
    Present { off: usize, pad: usize, len: usize },
}

/// The walk over a tuple's data stopped: at which attribute (0-based) and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct LayoutError {
    pub index: usize,
    /// Offset (relative to t_hoff) where the attribute would start.
    pub off: usize,
    pub message: String,
}

/// Lay out `columns` over a tuple's `data`: one slot per column, up to the
/// first one that does not fit. Also returns the offset after the last
/// attribute read.
pub(crate) fn layout(
    data: &[u8],
    natts: usize,
    bitmap: Option<&[u8]>,
    columns: &[Column],
) -> (Vec<Slot>, usize, Option<LayoutError>) {
    layout_in(data, natts, bitmap, columns, PageLayout::default())
}

/// [`layout`] for a page of the build `pl` (its byte order for varlena
/// headers, its MAXALIGN for typalign `d`).
pub(crate) fn layout_in(
    data: &[u8],
    natts: usize,
    bitmap: Option<&[u8]>,
    columns: &[Column],
    pl: PageLayout,
) -> (Vec<Slot>, usize, Option<LayoutError>) {
    let mut slots = Vec::with_capacity(columns.len());
    let (off, error) = layout_into(data, natts, bitmap, columns, pl, &mut slots);
    (slots, off, error)
}

/// [`layout_in`] into a caller's buffer (cleared first), so that a loop
/// over many tuples allocates the slots once.
pub(crate) fn layout_into(
    data: &[u8],
    natts: usize,
    bitmap: Option<&[u8]>,
    columns: &[Column],
    pl: PageLayout,
    slots: &mut Vec<Slot>,
) -> (usize, Option<LayoutError>) {
    slots.clear();
    let mut off = 0usize;
    for (i, col) in columns.iter().enumerate() {
        if i >= natts {
            slots.push(Slot::Missing);
            continue;
        }
        if let Some(bits) = bitmap {
            let set = bits.get(i / 8).is_some_and(|b| b & (1 << (i % 8)) != 0);
            if !set {
                slots.push(Slot::Null);
                continue;
            }
        }
        let aligned = if col.attlen == -1 && data.get(off).is_some_and(|&b| b != 0) {
            off
        } else {
            // att_align_nominal; alignments are powers of two, which a mask
            // rounds to without a division.
            let a = pl.align_bytes(col.align);
            if a.is_power_of_two() {
                off.saturating_add(a - 1) & !(a - 1)
            } else {
                pl.align(col.align, off)
            }
        };
        let fail = |message: String| LayoutError {
            index: i,
            off,
            message,
        };
        let len = if col.attlen > 0 {
            col.attlen as usize
        } else {
            match datum_len(data, aligned, col.attlen, pl.big_endian) {
                Ok(len) => len,
                Err(message) => return (off, Some(fail(message))),
            }
        };
        if aligned.checked_add(len).is_none_or(|end| end > data.len()) {
            return (
                off,
                Some(fail(format!(
                    "{len} bytes at data offset {aligned} run past the end of the {}-byte tuple data",
                    data.len()
                ))),
            );
        }
        slots.push(Slot::Present {
            off: aligned,
            pad: aligned - off,
            len,
        });
        off = aligned + len;
    }
    (off, None)
}

/// `att_addlength_pointer`: how many bytes the attribute at `at` takes.
fn datum_len(data: &[u8], at: usize, attlen: i16, big: bool) -> Result<usize, String> {
    match attlen {
        n if n > 0 => Ok(n as usize),
        -1 => varlena_size(data, at, big),
        -2 => data
            .get(at..)
            .and_then(|rest| rest.iter().position(|&b| b == 0))
            .map(|nul| nul + 1)
            .ok_or_else(|| format!("C string at data offset {at} has no terminating NUL")),
        n => Err(format!("attlen {n} is not a valid length")),
    }
}

/// `VARSIZE_ANY`: total size of the varlena at `at`, header included.
fn varlena_size(data: &[u8], at: usize, big: bool) -> Result<usize, String> {
    let b0 = *data
        .get(at)
        .ok_or_else(|| format!("no varlena header at data offset {at}: tuple data ends"))?;
    if big {
        return varlena_size_big(data, at, b0);
    }
    if b0 == 0x01 {
        let tag = *data
            .get(at + 1)
            .ok_or_else(|| format!("external varlena at data offset {at} has no vartag"))?;
        return match tag {
            VARTAG_ONDISK => Ok(2 + 16),
            // indirect and expanded pointers hold a memory pointer
            1..=3 => Ok(2 + 8),
            t => Err(format!(
                "external varlena at data offset {at} has unknown vartag {t}"
            )),
        };
    }
    if b0 & 0x01 == 1 {
        return Ok(usize::from(b0 >> 1));
    }
    let word = Reader::new(data, Endian::Little)
        .peek_u32(at, "varlena header")
        .map_err(|e| format!("4-byte varlena header at data offset {at}: {e}"))?;
    let size = (word >> 2) as usize;
    let min = if b0 & 0x03 == 0x02 { 8 } else { 4 };
    if size < min {
        return Err(format!(
            "varlena header 0x{word:08x} at data offset {at} gives length {size}, shorter than the header"
        ));
    }
    Ok(size)
}

/// The size in bytes of the external pointer with vartag at `at + 1`.
fn external_size(data: &[u8], at: usize) -> Result<usize, String> {
    let tag = *data
        .get(at + 1)
        .ok_or_else(|| format!("external varlena at data offset {at} has no vartag"))?;
    match tag {
        VARTAG_ONDISK => Ok(2 + 16),
        // indirect and expanded pointers hold a memory pointer
        1..=3 => Ok(2 + 8),
        t => Err(format!(
            "external varlena at data offset {at} has unknown vartag {t}"
        )),
    }
}

/// `VARSIZE_ANY` as a big-endian host reads it (postgres.h): the flag bits
/// are the high bits of the first byte. `10000000` then a vartag is an
/// external pointer, `1xxxxxxx` a 1-byte header holding the length, `00`
/// and `01` a 4-byte header (plain, compressed) whose low 30 bits are the
/// length.
fn varlena_size_big(data: &[u8], at: usize, b0: u8) -> Result<usize, String> {
    if b0 == 0x80 {
        return external_size(data, at);
    }
    if b0 & 0x80 != 0 {
        return Ok(usize::from(b0 & 0x7F));
    }
    let word = Reader::new(data, Endian::Big)
        .peek_u32(at, "varlena header")
        .map_err(|e| format!("4-byte varlena header at data offset {at}: {e}"))?;
    let size = (word & 0x3FFF_FFFF) as usize;
    let min = if b0 & 0xC0 == 0x40 { 8 } else { 4 };
    if size < min {
        return Err(format!(
            "varlena header 0x{word:08x} at data offset {at} gives length {size}, shorter than the header"
        ));
    }
    Ok(size)
}

/// A varlena's bytes, classified.
enum Varlena<'a> {
    Short(&'a [u8]),
    Long(&'a [u8]),
    Compressed {
        method: Compression,
        rawsize: u32,
        data: &'a [u8],
    },
    Toast(ToastPointer),
    OtherExternal(u8),
}

/// Classify a whole varlena (as sized by [`varlena_size`]).
fn classify(raw: &[u8], big: bool) -> Result<Varlena<'_>, String> {
    let r = Reader::new(raw, if big { Endian::Big } else { Endian::Little });
    let e = |e: crate::reader::ReadError| e.to_string();
    let b0 = raw.first().copied().unwrap_or(0);
    // The flag bits of the first byte, as a little-endian host has them
    // (postgres.h: the low bits; a big-endian host keeps them in the high bits).
    let (external, short, plain) = if big {
        (b0 == 0x80, b0 & 0x80 != 0, b0 & 0xC0 == 0)
    } else {
        (b0 == 0x01, b0 & 0x01 == 1, b0 & 0x03 == 0)
    };
    if external {
        let tag = raw.get(1).copied().unwrap_or(0);
        if tag != VARTAG_ONDISK {
            return Ok(Varlena::OtherExternal(tag));
        }
        let va_rawsize = r.peek_u32(2, "va_rawsize").map_err(e)? as i32;
        let va_extinfo = r.peek_u32(6, "va_extinfo").map_err(e)?;
        let va_valueid = r.peek_u32(10, "va_valueid").map_err(e)?;
        let va_toastrelid = r.peek_u32(14, "va_toastrelid").map_err(e)?;
        let extsize = va_extinfo & 0x3FFF_FFFF;
        let compressed = i64::from(extsize) < i64::from(va_rawsize) - 4;
        return Ok(Varlena::Toast(ToastPointer {
            va_rawsize,
            va_extinfo,
            extsize,
            compressed,
            method: compressed.then(|| Compression::from_bits(va_extinfo >> 30)),
            va_valueid,
            va_toastrelid,
            chunks: None,
        }));
    }
    if short {
        return Ok(Varlena::Short(raw.get(1..).unwrap_or_default()));
    }
    if plain {
        return Ok(Varlena::Long(raw.get(4..).unwrap_or_default()));
    }
    let tcinfo = r.peek_u32(4, "va_tcinfo").map_err(e)?;
    Ok(Varlena::Compressed {
        method: Compression::from_bits(tcinfo >> 30),
        rawsize: tcinfo & 0x3FFF_FFFF,
        data: raw.get(8..).unwrap_or_default(),
    })
}

/// Decompress `src` into `rawsize` bytes; `rawsize` is checked against
/// [`MAX_VALUE_BYTES`] and against what `src` could possibly expand to
/// before anything is allocated.
pub(crate) fn decompress(
    method: Compression,
    src: &[u8],
    rawsize: usize,
) -> Result<Vec<u8>, String> {
    if rawsize > MAX_VALUE_BYTES {
        return Err(format!(
            "raw size {rawsize} is over blockscope's limit of {MAX_VALUE_BYTES} bytes"
        ));
    }
    // Neither pglz (3-byte tags of at most 273 bytes) nor lz4 (about 255:1)
    // can expand further than this.
    if rawsize > src.len().saturating_mul(256).saturating_add(64) {
        return Err(format!(
            "raw size {rawsize} is impossible for {} compressed bytes",
            src.len()
        ));
    }
    match method {
        Compression::Pglz => pglz::decompress(src, rawsize).map_err(|e| e.to_string()),
        Compression::Lz4 => {
            let mut out = vec![0u8; rawsize];
            match lz4_flex::block::decompress_into(src, &mut out) {
                Ok(n) if n == rawsize => Ok(out),
                Ok(n) => Err(format!(
                    "lz4 data decompresses to {n} bytes, the header says {rawsize}"
                )),
                Err(e) => Err(format!("lz4 data is corrupt: {e}")),
            }
        }
        Compression::Unknown => Err("compression method bits 2 and 3 are not defined".into()),
    }
}

/// Decompress the data of a compressed varlena whose bytes after the 4-byte
/// header are `va_tcinfo` + compressed data (inline, or reassembled from TOAST).
pub(crate) fn decompress_tc(data: &[u8]) -> Result<Vec<u8>, String> {
    let tcinfo = Reader::new(data, Endian::Little)
        .peek_u32(0, "va_tcinfo")
        .map_err(|e| e.to_string())?;
    decompress(
        Compression::from_bits(tcinfo >> 30),
        data.get(4..).unwrap_or_default(),
        (tcinfo & 0x3FFF_FFFF) as usize,
    )
}

/// Split every tuple of a heap page into the `schema`'s columns: sets each
/// item's `attrs`, adds problems, and spans for the hex view. TOAST pointers
/// are followed when `toast` holds the TOAST relation. (Other kinds' items
/// are decoded by their entry in the table of page kinds.)
pub(crate) fn decode_heap_page(
    page: &mut PgPage,
    data: &[u8],
    schema: &Schema,
    mut toast: Option<&mut ToastStore>,
) {
    let pl = page.layout;
    let mut r = Reader::new(
        data,
        if pl.big_endian {
            Endian::Big
        } else {
            Endian::Little
        },
    );
    // A page parsed without spans (output that shows no hex view) has none,
    // not even its header's: its values record none either (a page of 1.87
    // million columns would otherwise hold as many spans no one reads).
    if page.spans.is_empty() {
        r = r.without_spans();
    }
    let mut problems = Vec::new();
    let mut budget = PAGE_VALUE_BUDGET;
    let mut columns_left = page_column_budget(data.len());
    for item in &mut page.items {
        let attrs = match &item.tuple {
            Some(t) if t.t_data.is_some() && columns_left < schema.columns.len() => {
                problems.push(column_budget_spent(&item.id, data.len()));
                Vec::new()
            }
            Some(t) if t.t_data.is_some() => {
                columns_left -= schema.columns.len();
                split_tuple(
                    &mut r,
                    (&item.id, t),
                    schema,
                    toast.as_deref_mut(),
                    &mut budget,
                    pl,
                    &mut problems,
                )
            }
            _ => Vec::new(),
        };
        item.attrs = Some(attrs);
    }
    page.problems.extend(problems);
    let spans = r.into_spans();
    if !spans.is_empty() {
        page.spans.extend(spans);
        page.spans
            .sort_by_key(|s| (s.start, std::cmp::Reverse(s.len)));
    }
}

/// `MaxHeapAttributeNumber`: the most columns a table has.
const MAX_HEAP_ATTRIBUTE_NUMBER: usize = 1600;

/// Columns one page of `page_size` bytes splits its tuples into, in all:
/// as many as the fullest real page holds (`MaxHeapTuplesPerPage` tuples of
/// `MaxHeapAttributeNumber` columns). Overlapping line pointers (thousands
/// at one tuple) would otherwise multiply a wide tuple's columns past what
/// any page holds; once this is spent, the further tuples are not split and
/// say so.
fn page_column_budget(page_size: usize) -> usize {
    max_heap_tuples(page_size) * MAX_HEAP_ATTRIBUTE_NUMBER
}

/// Why the tuple at `id` is not split: the page's column budget is spent.
fn column_budget_spent(id: &ItemId, page_size: usize) -> Problem {
    Problem::new(
        Severity::Warning,
        CLASS,
        Some(usize::from(id.lp_off)),
        format!("tuple {}", id.lp),
        format!(
            "columns not split: this page's tuples already gave {} columns, as many as \
             {} tuples of {MAX_HEAP_ATTRIBUTE_NUMBER} columns (the most a {page_size}-byte \
             page holds)",
            page_column_budget(page_size),
            max_heap_tuples(page_size)
        ),
    )
}

fn split_tuple(
    r: &mut Reader,
    (id, t): (&ItemId, &HeapTuple),
    schema: &Schema,
    mut toast: Option<&mut ToastStore>,
    budget: &mut usize,
    pl: PageLayout,
    problems: &mut Vec<Problem>,
) -> Vec<Attr> {
    let lp = id.lp;
    let start = t.data_offset;
    let end = usize::from(id.lp_off) + usize::from(id.lp_len);
    let data = r.data().get(start..end).unwrap_or_default();
    let natts = usize::from(t.header.natts());
    let bitmap = tuple_bitmap(r.data(), id, t);
    r.set_context(Region::TupleData, Some(format!("tuple {lp}")));
    let (slots, end_off, error) = layout_in(data, natts, bitmap, &schema.columns, pl);

    let mut attrs = Vec::with_capacity(schema.columns.len());
    for (i, col) in schema.columns.iter().enumerate() {
        let attnum = (i + 1) as u16;
        let label = col_label(attnum, col);
        let field = format!("tuple {lp} {label}");
        let mut a = unread(attnum, col);
        match slots.get(i) {
            Some(Slot::Missing) => {
                a.storage = Storage::Missing;
                a.value = col.missing.as_deref().map(|m| missing_value(col, m));
            }
            Some(Slot::Null) => a.storage = Storage::Null,
            Some(&Slot::Present { off, pad, len }) => {
                if pad > 0 {
                    r.mark(start + off - pad, pad, "padding", plural(pad, "byte"));
                }
                let raw = data.get(off..off + len).unwrap_or_default();
                a.offset = Some(start + off);
                a.raw = Some(raw.to_vec());
                read_value(col, raw, &mut a, toast.as_deref_mut(), budget, pl);
                if r.recording() {
                    r.mark(start + off, len, &label, span_value(&a));
                }
                for message in &a.problems {
                    let severity = if a.storage == Storage::ExternalToast
                        && a.value.is_none()
                        && message.contains("--toast")
                    {
                        Severity::Info
                    } else {
                        Severity::Warning
                    };
                    problems.push(Problem::new(
                        severity,
                        CLASS,
                        Some(start + off),
                        field.clone(),
                        message.clone(),
                    ));
                }
            }
            None => {
                if let Some(e) = error.as_ref().filter(|e| e.index == i) {
                    a.problems.push(e.message.clone());
                    let hint = if natts > schema.columns.len() {
                        format!(
                            " (the tuple has {natts} attributes, the list {}: is a dropped column missing from it?)",
                            schema.columns.len()
                        )
                    } else {
                        " (does the column list match the table?)".to_string()
                    };
                    problems.push(Problem::new(
                        Severity::Error,
                        CLASS,
                        Some(start + e.off),
                        field.clone(),
                        format!(
                            "{}; this and the following columns are not decoded{hint}",
                            e.message
                        ),
                    ));
                }
            }
        }
        attrs.push(a);
    }

    // A list that does not fit this tuple puts every value read before the
    // misfit in doubt: say so on each of them.
    let misfit = error.is_some()
        || (end_off < data.len() && natts <= schema.columns.len() && !schema.ignore_rest);
    if misfit {
        for a in attrs
            .iter_mut()
            .filter(|a| a.value.is_some() && a.raw.is_some())
        {
            a.problems.push(
                "read before the column list stopped fitting this tuple: may be wrong".into(),
            );
        }
    }
    let tuple_field = format!("tuple {lp} t_data");
    if let Some(e) = &error {
        let rest = data.len().saturating_sub(e.off);
        r.mark(start + e.off, rest, "undecoded", plural(rest, "byte"));
    } else if natts > schema.columns.len() && !schema.ignore_rest {
        let rest = data.len().saturating_sub(end_off);
        r.mark(start + end_off, rest, "undecoded", plural(rest, "byte"));
        problems.push(Problem::new(
            Severity::Warning,
            CLASS,
            Some(start + end_off),
            tuple_field,
            format!(
                "the tuple has {natts} attributes, the column list {}; attributes {}..{natts} ({}) are not decoded",
                schema.columns.len(),
                schema.columns.len() + 1,
                plural(rest, "byte")
            ),
        ));
    } else if end_off < data.len() && !schema.ignore_rest {
        let rest = data.len() - end_off;
        r.mark(start + end_off, rest, "left over", plural(rest, "byte"));
        problems.push(Problem::new(
            Severity::Warning,
            CLASS,
            Some(start + end_off),
            tuple_field,
            format!(
                "{} left over after the last column: the column list does not match this tuple",
                plural(rest, "byte")
            ),
        ));
    }
    attrs
}

/// The attributes of an index tuple (or of any datum sequence laid out as
/// heap_fill_tuple lays it out) at page offset `start`, `len` bytes long,
/// with `bitmap` (bit set = not null) when the tuple has one: what
/// `index_deform_tuple` gives. Spans go to `r` under the owner `owner`.
pub(crate) fn index_attrs(
    r: &mut Reader,
    owner: &str,
    start: usize,
    len: usize,
    bitmap: Option<&[u8]>,
    columns: &[Column],
    budget: &mut usize,
) -> Vec<Attr> {
    let data = r
        .data()
        .get(start..start.saturating_add(len))
        .unwrap_or_default();
    let pl = PageLayout {
        big_endian: r.endian() == Endian::Big,
        ..PageLayout::default()
    };
    let (slots, _, error) = layout_in(data, columns.len(), bitmap, columns, pl);
    r.set_context(Region::TupleData, Some(owner.to_string()));
    let mut attrs = Vec::with_capacity(columns.len());
    for (i, col) in columns.iter().enumerate() {
        let attnum = (i + 1) as u16;
        let mut a = unread(attnum, col);
        match slots.get(i) {
            Some(Slot::Missing) | Some(Slot::Null) => a.storage = Storage::Null,
            Some(&Slot::Present { off, len, .. }) => {
                let raw = data.get(off..off + len).unwrap_or_default();
                a.offset = Some(start + off);
                a.raw = Some(raw.to_vec());
                read_value(col, raw, &mut a, None, budget, pl);
                r.mark(start + off, len, &col_label(attnum, col), span_value(&a));
            }
            None => {
                if let Some(e) = error.as_ref().filter(|e| e.index == i) {
                    a.problems.push(e.message.clone());
                }
            }
        }
        attrs.push(a);
    }
    attrs
}

/// `col 2 name` (or `col 2` when the name is unknown).
/// Column `attnum` (`col`) before its bytes are read.
fn unread(attnum: u16, col: &Column) -> Attr {
    Attr {
        attnum,
        name: col.name.clone(),
        type_name: col.type_name(),
        dropped: col.dropped,
        ..Attr::default()
    }
}

fn col_label(attnum: u16, col: &Column) -> String {
    match &col.name {
        Some(n) => format!("col {attnum} {n}"),
        None => format!("col {attnum}"),
    }
}

fn plural(n: usize, unit: &str) -> String {
    if n == 1 {
        format!("1 {unit}")
    } else {
        format!("{n} {unit}s")
    }
}

/// The value of a column past the tuple's natts: its `attmissingval` text,
/// typed like a decoded value of the column's type.
fn missing_value(col: &Column, text: &str) -> Value {
    let typed = match col.ty.as_ref().map(|t| &t.ty) {
        Some(PgType::Int2 | PgType::Int4 | PgType::Int8) => {
            text.parse().map_or(Typed::Text, Typed::Int)
        }
        Some(PgType::Oid | PgType::Xid | PgType::Cid | PgType::Xid8) => {
            text.parse().map_or(Typed::Text, Typed::UInt)
        }
        Some(PgType::Bool) => match text {
            "t" => Typed::Bool(true),
            "f" => Typed::Bool(false),
            _ => Typed::Text,
        },
        _ => Typed::Text,
    };
    Value {
        text: text.to_string(),
        typed,
    }
}

/// Why a value of `size` decoded bytes is not expanded: the page's budget.
fn page_budget_spent(size: usize, left: usize) -> String {
    format!(
        "not decoded: {size} bytes would overrun this page's budget of {PAGE_VALUE_BUDGET} bytes \
         of decoded values ({left} left; overlapping line pointers or many pointers to one \
         TOAST value multiply what a page decodes)"
    )
}

/// Fill in storage, TOAST pointer, value and problems from the raw datum;
/// a compressed or TOASTed value is expanded only within what is `left` of
/// the page's budget, and its size is taken from it.
fn read_value(
    col: &Column,
    raw: &[u8],
    a: &mut Attr,
    toast: Option<&mut ToastStore>,
    left: &mut usize,
    pl: PageLayout,
) {
    let ty = col.ty.as_ref().map(|t| &t.ty);
    // A fixed-length type with a layout other than its own is not printed.
    let ty = ty.filter(|t| t.attlen() == col.attlen);
    let payload: Result<Vec<u8>, String> = match col.attlen {
        n if n > 0 => {
            a.storage = Storage::Plain;
            Ok(raw.to_vec())
        }
        -2 => {
            a.storage = Storage::Cstring;
            Ok(raw
                .get(..raw.len().saturating_sub(1))
                .unwrap_or_default()
                .to_vec())
        }
        _ => match classify(raw, pl.big_endian) {
            Err(e) => Err(e),
            Ok(Varlena::Short(d)) => {
                a.storage = Storage::Short;
                Ok(d.to_vec())
            }
            Ok(Varlena::Long(d)) => {
                a.storage = Storage::Long;
                Ok(d.to_vec())
            }
            Ok(Varlena::Compressed {
                method,
                rawsize,
                data,
            }) => {
                a.storage = Storage::Compressed { method, rawsize };
                if rawsize as usize > *left {
                    Err(page_budget_spent(rawsize as usize, *left))
                } else {
                    decompress(method, data, rawsize as usize)
                }
            }
            Ok(Varlena::OtherExternal(tag)) => {
                a.storage = Storage::ExternalOther { vartag: tag };
                Err(format!(
                    "external pointer with vartag {tag} (indirect or expanded): a memory pointer, never valid on disk"
                ))
            }
            Ok(Varlena::Toast(mut p)) => {
                a.storage = Storage::ExternalToast;
                let result = match toast {
                    None => Err(format!(
                        "stored out of line: TOAST value {} in relation {} ({} bytes{}); give the TOAST relation's file with --toast to read it",
                        p.va_valueid,
                        p.va_toastrelid,
                        p.va_rawsize.saturating_sub(4),
                        p.method
                            .map(|m| format!(", {} compressed to {}", m.name(), p.extsize.saturating_sub(4)))
                            .unwrap_or_default()
                    )),
                    Some(_) if toast_size(&p) > *left => Err(page_budget_spent(toast_size(&p), *left)),
                    Some(store) => store.fetch(&p).and_then(|(bytes, chunks)| {
                        p.chunks = Some(chunks);
                        if p.compressed {
                            let out = decompress_tc(&bytes)?;
                            let expected = usize::try_from(p.va_rawsize.saturating_sub(4)).unwrap_or(0);
                            if out.len() != expected {
                                return Err(format!(
                                    "TOAST value {} decompresses to {} bytes, the pointer says {expected}",
                                    p.va_valueid,
                                    out.len()
                                ));
                            }
                            Ok(out)
                        } else {
                            Ok(bytes)
                        }
                    }),
                };
                a.toast = Some(p);
                result
            }
        },
    };
    let payload = match payload {
        Ok(p) => p,
        Err(e) => {
            a.problems.push(e);
            return;
        }
    };
    *left = left.saturating_sub(payload.len());
    if col.dropped && ty.is_none() {
        // A dropped column of unknown type: its bytes are kept in `raw`.
        return;
    }
    let Some(ty) = ty else {
        let named = col.ty.as_ref().map_or("-".to_string(), |t| t.display());
        a.problems.push(format!(
            "type {named} is not decoded with attlen {}; shown as hex",
            col.attlen
        ));
        a.value = Some(Value::hex(&payload));
        return;
    };
    let payload = if pl.big_endian {
        match values::big_endian_to_little(ty, &payload) {
            Ok(p) => p,
            Err(e) => {
                a.problems.push(format!("{e}; shown as hex"));
                a.value = Some(Value::hex(&payload));
                return;
            }
        }
    } else {
        payload
    };
    match values::decode(ty, &payload) {
        Ok(v) => {
            if let PgType::RegOid { name, names } = ty {
                // Named when the catalogs were read and the type is one
                // printed by name (OID 0 only asks which).
                let named = names
                    .as_ref()
                    .is_some_and(|n| super::regnames::reg_out(name, 0, n).is_some());
                if !named {
                    a.problems.push(format!(
                        "{name} shown as its OID (the name needs the catalog)"
                    ));
                }
            }
            a.value = Some(v);
        }
        Err(e) => {
            if ty.is_decoded() {
                a.problems.push(format!("{e}; shown as hex"));
            } else {
                a.problems.push(e);
            }
            a.value = Some(Value::hex(&payload));
        }
    }
}

/// The most bytes a TOAST pointer's value takes once fetched (and
/// decompressed).
fn toast_size(p: &ToastPointer) -> usize {
    let raw = usize::try_from(p.va_rawsize.saturating_sub(4)).unwrap_or(0);
    raw.max(p.extsize as usize)
}

/// What the hex view says about an attribute, briefly.
fn span_value(a: &Attr) -> String {
    const MAX: usize = 32;
    let storage = match &a.storage {
        Storage::Plain | Storage::Short | Storage::Cstring => String::new(),
        Storage::Long => "4-byte header ".into(),
        Storage::Compressed { method, rawsize } => {
            format!("{} {rawsize} bytes ", method.name())
        }
        Storage::ExternalToast => match &a.toast {
            Some(p) => format!("TOAST value {} ", p.va_valueid),
            None => "TOAST ".into(),
        },
        Storage::ExternalOther { vartag } => format!("external vartag {vartag} "),
        _ => String::new(),
    };
    let value = match &a.value {
        Some(v) => {
            // One line in the hex view: control characters escaped.
            let mut t: String = v
                .text
                .chars()
                .take(MAX)
                .flat_map(|c| {
                    if c.is_control() {
                        c.escape_default().collect::<Vec<_>>()
                    } else {
                        vec![c]
                    }
                })
                .collect();
            if v.text.chars().nth(MAX).is_some() {
                t.push('…');
            }
            if t.is_empty() {
                t.push_str("''");
            }
            t
        }
        None if a.dropped => format!("(dropped, {} bytes)", a.raw.as_ref().map_or(0, Vec::len)),
        None => "(not read)".into(),
    };
    format!("{storage}{value}").trim_end().to_string()
}

/// The TOAST relation's tuple layout: (chunk_id oid, chunk_seq int4, chunk_data bytea).
pub(crate) fn toast_columns() -> Vec<Column> {
    [
        ("chunk_id", PgType::Oid),
        ("chunk_seq", PgType::Int4),
        ("chunk_data", PgType::Bytea),
    ]
    .into_iter()
    .map(|(n, ty)| Column {
        name: Some(n.to_string()),
        attlen: ty.attlen(),
        align: ty.align(),
        ty: Some(crate::model::postgres::types::TypeSpec { ty, typmod: None }),
        dropped: false,
        missing: None,
    })
    .collect()
}

/// The data of a plain (uncompressed, inline) varlena: what a TOAST chunk's
/// `chunk_data` holds.
pub(crate) fn plain_varlena_data(raw: &[u8]) -> Result<&[u8], String> {
    match classify(raw, false)? {
        Varlena::Short(d) | Varlena::Long(d) => Ok(d),
        _ => Err("chunk_data is compressed or external, which TOAST chunks never are".into()),
    }
}

/// The whole size of the varlena at the start of `data` (its header read in
/// the page's byte order), when it is one that fits.
pub(crate) fn varlena_len(data: &[u8], big: bool) -> Option<usize> {
    varlena_size(data, 0, big)
        .ok()
        .filter(|&n| n > 0 && n <= data.len())
}

/// The data of an inline varlena (short, plain or compressed header, in the
/// page's byte order), decompressed; an external (TOAST) value is an error.
pub(crate) fn inline_varlena_payload(raw: &[u8], big: bool) -> Result<Vec<u8>, String> {
    match classify(raw, big)? {
        Varlena::Short(d) | Varlena::Long(d) => Ok(d.to_vec()),
        Varlena::Compressed {
            method,
            rawsize,
            data,
        } => decompress(method, data, rawsize as usize),
        Varlena::Toast(_) | Varlena::OtherExternal(_) => {
            Err("the value is stored outside the tuple".into())
        }
    }
}

/// The layout of one tuple's data over `schema` (one slot per column), for
/// `export`: the same walk as [`decode_heap_page`], without labels, spans or
/// problems. Returns the tuple's data and fills `slots` (a buffer reused
/// from tuple to tuple); `Err` names the first column (1-based attnum) the
/// column list does not fit, and why.
pub(crate) fn tuple_layout<'a>(
    page: &'a [u8],
    id: &ItemId,
    t: &HeapTuple,
    schema: &Schema,
    slots: &mut Vec<Slot>,
) -> Result<&'a [u8], (usize, String)> {
    let start = t.data_offset;
    let end = usize::from(id.lp_off) + usize::from(id.lp_len);
    let data = page.get(start..end).unwrap_or_default();
    let natts = usize::from(t.header.natts());
    let cols = &schema.columns;
    if natts > cols.len() && !schema.ignore_rest {
        return Err((
            cols.len() + 1,
            format!(
                "the tuple has {natts} attributes, the column list {}",
                cols.len()
            ),
        ));
    }
    let bitmap = tuple_bitmap(page, id, t);
    let (end_off, error) = layout_into(data, natts, bitmap, cols, PageLayout::default(), slots);
    if let Some(e) = error {
        return Err((e.index + 1, e.message));
    }
    if end_off < data.len() && natts <= cols.len() && !schema.ignore_rest {
        return Err((
            natts,
            format!(
                "{} left over after the last column: the column list does not match this tuple",
                plural(data.len() - end_off, "byte")
            ),
        ));
    }
    Ok(data)
}

/// A value read in place from the page, without allocating.
pub(crate) enum Inline<'a> {
    /// An integer (int2, int4, int8).
    Int(i64),
    /// Text as stored (text, varchar, bpchar in UTF-8).
    Str(&'a str),
}

/// The value of `raw` for the common types whose text is the stored bytes
/// or an integer (what [`read_value`] would print), read in place; `None`
/// for every other type and storage.
pub(crate) fn inline_value<'a>(col: &Column, raw: &'a [u8]) -> Option<Inline<'a>> {
    let ty = &col.ty.as_ref()?.ty;
    if ty.attlen() != col.attlen {
        return None;
    }
    match ty {
        PgType::Int2 if raw.len() == 2 => {
            Some(Inline::Int(i64::from(Endian::Little.read_i16(raw)?)))
        }
        PgType::Int4 if raw.len() == 4 => {
            Some(Inline::Int(i64::from(Endian::Little.read_i32(raw)?)))
        }
        PgType::Int8 if raw.len() == 8 => Some(Inline::Int(Endian::Little.read_i64(raw)?)),
        PgType::Int2 | PgType::Int4 | PgType::Int8 => None,
        PgType::Text | PgType::Varchar | PgType::Bpchar => {
            std::str::from_utf8(inline_varlena_data(raw)?)
                .ok()
                .map(Inline::Str)
        }
        _ => None,
    }
}

/// How [`RowPlan`] reads a column.
#[derive(Clone, Copy, Debug)]
enum PlanKind {
    Int2,
    Int4,
    Int8,
    /// text, varchar, bpchar: the stored bytes.
    Text,
    /// A dropped column: its bytes are stepped over.
    Skip,
}

/// One column of a [`RowPlan`]: how it is read, its `attlen`, and its
/// alignment in bytes.
#[derive(Clone, Copy, Debug)]
struct PlanColumn {
    kind: PlanKind,
    attlen: i16,
    align: usize,
}

/// A value [`RowPlan::read`] found.
pub(crate) enum Plain<'a> {
    Null,
    Int(i64),
    /// Text as stored, not yet checked to be UTF-8.
    Text(&'a [u8]),
}

/// The column list of a table whose live columns are all integers or text
/// (what `export` meets most), compiled once so that each tuple is walked
/// without looking at the types again. A tuple it cannot read plainly
/// (missing attributes, a TOASTed or compressed value, anything that does
/// not fit) is left to [`tuple_layout`] and [`slot_value`], which say why.
#[derive(Clone, Debug)]
pub(crate) struct RowPlan {
    columns: Vec<PlanColumn>,
}

impl RowPlan {
    /// The plan for `columns`; `None` when a live column is of another type.
    pub(crate) fn new(columns: &[Column]) -> Option<RowPlan> {
        let pl = PageLayout::default();
        let columns = columns
            .iter()
            .map(|col| {
                let kind = if col.dropped {
                    match col.attlen {
                        -1 => PlanKind::Skip,
                        n if n > 0 => PlanKind::Skip,
                        _ => return None,
                    }
                } else {
                    let ty = &col.ty.as_ref()?.ty;
                    if ty.attlen() != col.attlen {
                        return None;
                    }
                    match ty {
                        PgType::Int2 => PlanKind::Int2,
                        PgType::Int4 => PlanKind::Int4,
                        PgType::Int8 => PlanKind::Int8,
                        PgType::Text | PgType::Varchar | PgType::Bpchar => PlanKind::Text,
                        _ => return None,
                    }
                };
                let align = pl.align_bytes(col.align);
                align.is_power_of_two().then_some(PlanColumn {
                    kind,
                    attlen: col.attlen,
                    align,
                })
            })
            .collect::<Option<Vec<_>>>()?;
        Some(RowPlan { columns })
    }

    /// Walk a tuple's `data` (from t_hoff to the end of the item) with its
    /// `natts` and null bitmap, handing each live column's value to `f` in
    /// order; false as soon as the tuple is not a plain one — its attribute
    /// count differs from the columns', a value is external or compressed,
    /// a length runs past the data, bytes are left over — or `f` says false.
    /// The values handed out before then are to be taken back.
    pub(crate) fn read(
        &self,
        data: &[u8],
        natts: usize,
        bitmap: Option<&[u8]>,
        mut f: impl FnMut(Plain) -> bool,
    ) -> bool {
        if natts != self.columns.len() {
            return false;
        }
        let mut off = 0usize;
        for (i, col) in self.columns.iter().enumerate() {
            if let Some(bits) = bitmap {
                if bits.get(i / 8).is_none_or(|b| b & (1 << (i % 8)) == 0) {
                    if !matches!(col.kind, PlanKind::Skip) && !f(Plain::Null) {
                        return false;
                    }
                    continue;
                }
            }
            if col.attlen > 0 {
                let at = (off + col.align - 1) & !(col.align - 1);
                let len = col.attlen as usize;
                let Some(raw) = data.get(at..at + len) else {
                    return false;
                };
                off = at + len;
                let n = match (col.kind, raw.len()) {
                    (PlanKind::Int2, 2) => i64::from(Endian::Little.read_i16(raw).unwrap_or(0)),
                    (PlanKind::Int4, 4) => i64::from(Endian::Little.read_i32(raw).unwrap_or(0)),
                    (PlanKind::Int8, 8) => Endian::Little.read_i64(raw).unwrap_or(0),
                    (PlanKind::Skip, _) => continue,
                    _ => return false,
                };
                if !f(Plain::Int(n)) {
                    return false;
                }
                continue;
            }
            // A varlena: unpadded when its first byte is not zero.
            let b0 = match data.get(off) {
                Some(&b) if b != 0 => b,
                _ => {
                    off = (off + col.align - 1) & !(col.align - 1);
                    match data.get(off) {
                        Some(&b) => b,
                        None => return false,
                    }
                }
            };
            let (head, size) = if b0 == 0x01 {
                // External: only a dropped column's is stepped over here.
                match (col.kind, data.get(off + 1)) {
                    (PlanKind::Skip, Some(&VARTAG_ONDISK)) => (2, 2 + 16),
                    (PlanKind::Skip, Some(1..=3)) => (2, 2 + 8),
                    _ => return false,
                }
            } else if b0 & 0x01 == 1 {
                (1, usize::from(b0 >> 1))
            } else {
                let Some(w) = data.get(off..off + 4) else {
                    return false;
                };
                let word = Endian::Little.read_u32(w).unwrap_or(0);
                let compressed = b0 & 0x03 == 0x02;
                if compressed && !matches!(col.kind, PlanKind::Skip) {
                    return false;
                }
                let size = (word >> 2) as usize;
                if size < if compressed { 8 } else { 4 } {
                    return false;
                }
                (4, size)
            };
            let Some(raw) = data.get(off..off + size) else {
                return false;
            };
            off += size;
            if matches!(col.kind, PlanKind::Text) && !f(Plain::Text(&raw[head..])) {
                return false;
            }
        }
        off == data.len()
    }
}

/// The data of a varlena stored inline and uncompressed (a short or a
/// plain 4-byte header), as [`classify`] finds it on a little-endian page,
/// without building the classification; `None` for external and compressed
/// values.
fn inline_varlena_data(raw: &[u8]) -> Option<&[u8]> {
    let b0 = raw.first().copied().unwrap_or(0);
    if b0 == 0x01 {
        None // external
    } else if b0 & 0x01 == 1 {
        Some(raw.get(1..).unwrap_or_default())
    } else if b0 & 0x03 == 0 {
        Some(raw.get(4..).unwrap_or_default())
    } else {
        None // compressed
    }
}

/// The value of slot `slot` of column `col` in the tuple's `data` (`None`
/// for NULL and dropped columns), read as [`decode_heap_page`] reads it; `Err`
/// says why it cannot be read.
///
/// With `strict` (a tuple of a damaged block), a value of a type that is
/// decoded but whose bytes do not decode as it is an error, not its bytes
/// as hex.
pub(crate) fn slot_value(
    col: &Column,
    data: &[u8],
    slot: &Slot,
    toast: Option<&mut ToastStore>,
    budget: &mut usize,
    strict: bool,
) -> Result<Option<Value>, String> {
    match *slot {
        Slot::Missing => Ok(col.missing.as_deref().map(|m| missing_value(col, m))),
        Slot::Null => Ok(None),
        Slot::Present { .. } if col.dropped => Ok(None),
        Slot::Present { off, len, .. } => {
            let raw = data.get(off..off + len).unwrap_or_default();
            // Only the value is wanted: a scratch attribute.
            let mut a = Attr::default();
            read_value(col, raw, &mut a, toast, budget, PageLayout::default());
            let undecodable = |v: &Value| {
                strict
                    && matches!(v.typed, Typed::Hex)
                    && col.ty.as_ref().is_some_and(|t| t.ty.is_decoded())
            };
            match a.value {
                Some(v) if undecodable(&v) && !a.problems.is_empty() => {
                    Err(a.problems.swap_remove(0))
                }
                Some(v) => Ok(Some(v)),
                None => Err(a
                    .problems
                    .into_iter()
                    .next()
                    .unwrap_or_else(|| "not read".into())),
            }
        }
    }
}

/// The null bitmap (`t_bits`) of a tuple, when it has one.
pub(crate) fn tuple_bitmap<'a>(page: &'a [u8], id: &ItemId, t: &HeapTuple) -> Option<&'a [u8]> {
    if t.header.t_infomask & HEAP_HASNULL == 0 {
        return None;
    }
    let natts = usize::from(t.header.natts());
    page.get(usize::from(id.lp_off) + SIZEOF_HEAP_TUPLE_HEADER..)
        .and_then(|b| b.get(..natts.div_ceil(8)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::types::TypeSpec;

    fn cols(types: &[&str]) -> Vec<Column> {
        types
            .iter()
            .map(|t| Column::of(None, TypeSpec::parse(t).unwrap()))
            .collect()
    }

    /// The inline fast path finds the data [`classify`] finds for a short
    /// or plain varlena, and nothing for the others, whatever the header.
    #[test]
    fn inline_varlena_data_agrees_with_classify() {
        for b0 in 0..=255u8 {
            for len in [0usize, 1, 2, 5, 9, 20] {
                let mut raw = vec![0x41u8; len];
                if let Some(first) = raw.first_mut() {
                    *first = b0;
                }
                if len > 1 {
                    raw[1] = VARTAG_ONDISK;
                }
                let want = match classify(&raw, false) {
                    Ok(Varlena::Short(d) | Varlena::Long(d)) => Some(d),
                    _ => None,
                };
                assert_eq!(inline_varlena_data(&raw), want, "{b0:#04x} {len}");
            }
        }
    }

    #[test]
    fn alignment_and_short_headers() {
        // int2 at 0, then a short varlena at 2 (not aligned), then int4 at 8
        let data = [0x07, 0x00, 0x09, b'a', b'b', b'c', 0, 0, 1, 0, 0, 0];
        let (slots, end, err) = layout(&data, 3, None, &cols(&["int2", "text", "int4"]));
        assert_eq!(err, None);
        assert_eq!(end, 12);
        assert_eq!(
            slots,
            [
                Slot::Present {
                    off: 0,
                    pad: 0,
                    len: 2
                },
                Slot::Present {
                    off: 2,
                    pad: 0,
                    len: 4
                },
                Slot::Present {
                    off: 8,
                    pad: 2,
                    len: 4
                },
            ]
        );
    }

    #[test]
    fn zero_byte_means_padding_before_a_4_byte_header() {
        // bool at 0, padding, then a 4-byte header varlena at 4 (length 5)
        let data = [1, 0, 0, 0, 0x14, 0, 0, 0, b'x'];
        let (slots, _, err) = layout(&data, 2, None, &cols(&["bool", "text"]));
        assert_eq!(err, None);
        assert_eq!(
            slots[1],
            Slot::Present {
                off: 4,
                pad: 3,
                len: 5
            }
        );
    }

    #[test]
    fn nulls_and_missing_take_no_bytes() {
        let data = [5, 0, 0, 0];
        // natts 2 of 3 columns; bitmap 0b01: column 2 NULL
        let (slots, end, err) = layout(&data, 2, Some(&[0b01]), &cols(&["int4", "text", "int4"]));
        assert_eq!(err, None);
        assert_eq!(end, 4);
        assert_eq!(slots[1], Slot::Null);
        assert_eq!(slots[2], Slot::Missing);
    }

    #[test]
    fn a_list_that_does_not_fit_stops_with_a_reason() {
        let data = [1, 0, 0, 0];
        let (slots, _, err) = layout(&data, 2, None, &cols(&["int4", "int8"]));
        assert_eq!(slots.len(), 1);
        let err = err.unwrap();
        assert_eq!(err.index, 1);
        assert!(err.message.contains("run past the end"), "{}", err.message);
        // a 4-byte header claiming a huge length
        let data = [0xfc, 0xff, 0xff, 0xff];
        let (_, _, err) = layout(&data, 1, None, &cols(&["text"]));
        assert!(err.is_some());
        // 4-byte header shorter than itself
        let (_, _, err) = layout(&[0x04, 0, 0, 0], 1, None, &cols(&["text"]));
        assert!(err.unwrap().message.contains("shorter than the header"));
    }

    #[test]
    fn toast_pointer_fields() {
        // varlena.0 lp 6: pglz-compressed, 20484 raw, 11852 external
        let raw = [
            0x01, 0x12, 0x04, 0x50, 0x00, 0x00, 0x4c, 0x2e, 0x00, 0x00, 0x71, 0x40, 0x00, 0x00,
            0x6e, 0x40, 0x00, 0x00,
        ];
        let Ok(Varlena::Toast(p)) = classify(&raw, false) else {
            panic!("not a TOAST pointer")
        };
        assert_eq!(p.va_rawsize, 20484);
        assert_eq!(p.extsize, 11852);
        assert!(p.compressed);
        assert_eq!(p.method, Some(Compression::Pglz));
        assert_eq!((p.va_valueid, p.va_toastrelid), (16497, 16494));
    }

    #[test]
    fn decompression_is_bounded() {
        assert!(decompress(Compression::Pglz, &[0x00, b'a'], MAX_VALUE_BYTES + 1).is_err());
        assert!(decompress(Compression::Lz4, &[0x10, b'a'], 1 << 20).is_err());
        assert!(decompress(Compression::Unknown, &[0; 8], 8).is_err());
        // lz4 block: token 0x50 = 5 literals "hello"
        assert_eq!(
            decompress(Compression::Lz4, b"\x50hello", 5).unwrap(),
            b"hello"
        );
        assert!(decompress(Compression::Lz4, b"\x50hello", 6).is_err());
    }

    /// What [`RowPlan::read`] hands out, owned.
    #[derive(Debug, PartialEq)]
    enum Got {
        Null,
        Int(i64),
        Text(Vec<u8>),
    }

    /// The values the general walk ([`layout`], [`inline_value`]) reads
    /// from a tuple when every one is plain (text whether or not it is
    /// UTF-8); `None` otherwise.
    fn general(
        data: &[u8],
        natts: usize,
        bitmap: Option<&[u8]>,
        cols: &[Column],
    ) -> Option<Vec<Got>> {
        let (slots, end, error) = layout(data, natts, bitmap, cols);
        if error.is_some() || end != data.len() || natts != cols.len() {
            return None;
        }
        let mut got = Vec::new();
        for (col, slot) in cols.iter().zip(&slots) {
            match *slot {
                _ if col.dropped => {}
                Slot::Null => got.push(Got::Null),
                Slot::Present { off, len, .. } => {
                    let raw = &data[off..off + len];
                    match inline_value(col, raw) {
                        Some(Inline::Int(n)) => got.push(Got::Int(n)),
                        Some(Inline::Str(s)) => got.push(Got::Text(s.as_bytes().to_vec())),
                        // Text that is not UTF-8: the renderer's to refuse.
                        None if col.attlen == -1 => {
                            got.push(Got::Text(inline_varlena_data(raw)?.to_vec()))
                        }
                        None => return None,
                    }
                }
                Slot::Missing => return None,
            }
        }
        Some(got)
    }

    /// On tuples built from the column lists and then damaged at random,
    /// the plan reads exactly what the general walk reads, and reads every
    /// tuple the general walk finds plain (so the fast path is taken).
    #[test]
    fn row_plan_agrees_with_the_general_walk() {
        let mut lists = vec![
            cols(&["int4", "int4", "int4", "character(84)"]),
            cols(&["int2", "text", "int8", "varchar(5)", "int2", "int4"]),
            cols(&["text", "text", "int8"]),
        ];
        // A dropped int8 and a dropped varlena between live columns.
        let mut dropped = cols(&["int4", "int8", "text", "text", "int2"]);
        dropped[1].dropped = true;
        dropped[3].dropped = true;
        lists.push(dropped);
        assert!(RowPlan::new(&cols(&["int4", "numeric"])).is_none());
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let (mut plain, mut fallback) = (0, 0);
        for cols in &lists {
            let plan = RowPlan::new(cols).expect("a plan for integers and text");
            for _ in 0..4000 {
                let with_nulls = next() % 3 == 0;
                let mut bitmap = vec![0u8; cols.len().div_ceil(8)];
                let mut data = Vec::new();
                for (i, col) in cols.iter().enumerate() {
                    if with_nulls && next() % 3 == 0 {
                        continue;
                    }
                    bitmap[i / 8] |= 1 << (i % 8);
                    let r = next();
                    if col.attlen > 0 {
                        let a = col.align.bytes();
                        data.resize(data.len().div_ceil(a) * a, 0);
                        data.extend((0..col.attlen).map(|k| (r >> (k * 8)) as u8));
                    } else if r % 4 == 0 {
                        // A 4-byte header, aligned.
                        data.resize(data.len().div_ceil(4) * 4, 0);
                        let n = (r >> 8) as usize % 40;
                        data.extend_from_slice(&(((n + 4) as u32) << 2).to_le_bytes());
                        data.extend((0..n).map(|k| b'a' + (k % 26) as u8));
                    } else {
                        let n = (r >> 8) as usize % 100;
                        data.push(((n + 1) << 1 | 1) as u8);
                        data.extend((0..n).map(|k| {
                            if k % 17 == 3 {
                                b'\\'
                            } else {
                                b'A' + (k % 26) as u8
                            }
                        }));
                    }
                }
                // Damage: a byte changed, or the data cut short or lengthened.
                match next() % 6 {
                    0 if !data.is_empty() => {
                        let at = next() as usize % data.len();
                        data[at] = next() as u8;
                    }
                    1 if !data.is_empty() => data.truncate(next() as usize % data.len()),
                    2 => data.push(0),
                    _ => {}
                }
                let bits = with_nulls.then_some(&bitmap[..]);
                let natts = if next() % 20 == 0 {
                    cols.len() - 1
                } else {
                    cols.len()
                };
                let mut got = Vec::new();
                let read = plan.read(&data, natts, bits, |v| {
                    got.push(match v {
                        Plain::Null => Got::Null,
                        Plain::Int(n) => Got::Int(n),
                        Plain::Text(b) => Got::Text(b.to_vec()),
                    });
                    true
                });
                let want = general(&data, natts, bits, cols);
                let utf8 = want.as_ref().is_some_and(|w| {
                    w.iter()
                        .all(|g| !matches!(g, Got::Text(t) if std::str::from_utf8(t).is_err()))
                });
                if read {
                    assert_eq!(Some(&got), want.as_ref(), "{data:02x?}");
                    plain += 1;
                } else {
                    assert!(!utf8, "the general walk read it plainly: {data:02x?}");
                    fallback += 1;
                }
            }
        }
        assert!(
            plain > 8000 && fallback > 1000,
            "{plain} plain, {fallback} not"
        );
    }
}
