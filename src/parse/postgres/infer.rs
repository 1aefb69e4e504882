//! Columns without a catalog: a column list proposed from a heap relation's
//! tuples alone.
//!
//! ```text
//!  tuple data (from t_hoff)                      what each step looks at
//!  ┌────────┬──┬──────┬──────────────┬────────┐
//!  │ int4   │v1│ pad 0│ int8 (8-byte │ varlena│  attribute starts: the zero
//!  │        │  │      │ aligned)     │ header │  padding before an aligned one,
//!  └────────┴──┴──────┴──────────────┴────────┘  a varlena header's own length
//!  natts = t_infomask2 & HEAP_NATTS_MASK          (max over tuples: fewer means
//!  null bitmap after the fixed header             columns added later)
//! ```
//!
//! The split is a beam search over attribute layouts (`attlen`, `attalign`):
//! attribute by attribute, every layout is tried on every sampled tuple at
//! once; a layout survives only if each tuple's padding is zero, its varlena
//! headers are whole, and each tuple's last attribute ends exactly at its
//! `lp_len`. Layouts are ranked by how plausible the values they cut out are
//! for the best type of that layout (dates in a sane range, numerics that
//! decode, UTF-8 text, booleans of 0 and 1, jsonb and array headers — an
//! array's header names its element type —, inet and UUID shapes). The
//! winner is then confirmed on every tuple read and each attribute's types
//! ranked with a confidence and a reason.
//!
//! Pure: bytes in, a [`Proposal`] out. Work and memory are bounded (pages,
//! tuples, beam width and TOAST values fetched all have caps).

use std::collections::HashMap;

use crate::model::postgres::infer::{AttributeGuess, Candidate, Proposal};
use crate::model::postgres::types::{Align, PgType};

use super::attrs::{decompress_tc, inline_varlena_payload};
use super::datum::{numeric_decodes, u16_at, u32_at, u64_at};
use super::{jsonb, values};

#[cfg(test)]
mod tests;

/// Pages read at most: an even spread over those given (the first and the
/// last included).
pub(crate) const MAX_PAGES: usize = 512;
/// Tuples kept from the pages read, for the confirmation.
const MAX_TUPLES: usize = 8192;
/// Tuples the layout search runs on (an even spread over those kept).
const SEARCH_TUPLES: usize = 256;
/// Layout sequences kept from one attribute to the next (first try).
const BEAM: usize = 64;
/// The widest beam of the second try.
const MAX_BEAM: usize = 100_000;
/// Attribute placements the second try may make in all (tuples × layouts
/// × attributes × beam): a few seconds at most.
const SEARCH_BUDGET: usize = 40_000_000;
/// TOAST values fetched per attribute to look at their content.
const MAX_TOAST_VALUES: usize = 32;
/// TOAST chunk tuples indexed at most.
const MAX_TOAST_CHUNKS: usize = 1 << 20;
/// `MaxHeapAttributeNumber`.
const MAX_NATTS: usize = 1600;

const HEAP_HASNULL: u16 = 0x0001;
const HEAP_NATTS_MASK: u16 = 0x07FF;
const LP_NORMAL: u32 = 1;
/// `VARTAG_ONDISK`: a TOAST pointer's tag.
const VARTAG_ONDISK: u8 = 18;
/// 2000-01-01 in Unix seconds (PostgreSQL's epoch).
const PG_EPOCH_UNIX: i64 = 946_684_800;
const USECS_PER_DAY: i64 = 86_400_000_000;

/// Propose a column list for the heap relation whose pages are `pages`
/// (each a whole page, normally 8 KiB; pages that are not heap pages are
/// passed over) and, when known, its TOAST relation's pages `toast` (any
/// order; used to look inside out-of-line values). At most [`MAX_PAGES`]
/// pages are read, spread evenly over `pages`; give every page when they
/// are at hand, or such a spread when the relation is large. Never panics,
/// whatever the bytes.
pub(crate) fn propose(pages: &[&[u8]], toast: &[&[u8]]) -> Proposal {
    let picked = spread(pages.len(), MAX_PAGES);
    let per_page = (MAX_TUPLES / picked.len().max(1)).max(8);
    let mut tuples = Vec::new();
    for &i in &picked {
        if let Some(page) = pages.get(i) {
            page_tuples(page, &mut tuples, per_page);
        }
    }
    let natts = tuples.iter().map(|t| t.natts).max().unwrap_or(0);
    let mut proposal = Proposal {
        natts: natts as u16,
        pages: pages.len(),
        pages_sampled: picked.len(),
        tuples: tuples.len(),
        ..Proposal::default()
    };
    if tuples.is_empty() {
        proposal
            .notes
            .push("no heap tuple found: nothing to infer columns from".into());
        return proposal;
    }
    let toast = ToastChunks::index(toast);
    let search: Vec<&Tuple> = spread(tuples.len(), SEARCH_TUPLES)
        .into_iter()
        .filter_map(|i| tuples.get(i))
        .collect();
    proposal.tuples_searched = search.len();
    // A wider beam only when the narrow one lost every layout that fits:
    // as wide as the work budget allows for this many tuples and columns.
    let wide = (SEARCH_BUDGET / (search.len().max(1) * CLASSES.len() * natts.max(1)))
        .clamp(BEAM, MAX_BEAM);
    let widths = [BEAM, wide];
    let mut classes = Vec::new();
    for beam in widths {
        let (found, complete) = search_layout(&search, natts, beam, &toast);
        classes = found;
        if complete {
            break;
        }
    }
    confirm(&tuples, &classes, &toast, &mut proposal);
    proposal
}

/// `n` indices spread evenly over `0..len`, the first and last included.
fn spread(len: usize, n: usize) -> Vec<usize> {
    if len <= n {
        return (0..len).collect();
    }
    let n = n.max(2);
    let mut out: Vec<usize> = (0..n).map(|i| i * (len - 1) / (n - 1)).collect();
    out.dedup();
    out
}

/// One heap tuple: its data (from `t_hoff` to `lp_len`), attribute count,
/// null bitmap and inserting transaction.
struct Tuple<'a> {
    data: &'a [u8],
    natts: usize,
    bitmap: Option<&'a [u8]>,
    xmin: u32,
}

impl Tuple<'_> {
    /// The null bitmap says attribute `i` (0-based) is NULL.
    fn is_null(&self, i: usize) -> bool {
        self.bitmap
            .is_some_and(|b| b.get(i / 8).is_none_or(|&x| x & (1 << (i % 8)) == 0))
    }
}

fn le16(b: &[u8], at: usize) -> Option<u16> {
    u16_at(b, at).ok()
}

fn le32(b: &[u8], at: usize) -> Option<u32> {
    u32_at(b, at).ok()
}

/// The LP_NORMAL tuples of a heap page (at most `cap`), their headers
/// checked; nothing if the page is not a heap page.
fn page_tuples<'a>(page: &'a [u8], out: &mut Vec<Tuple<'a>>, cap: usize) {
    let len = page.len();
    let (Some(lower), Some(upper), Some(special)) =
        (le16(page, 12), le16(page, 14), le16(page, 16))
    else {
        return;
    };
    let (lower, upper, special) = (lower as usize, upper as usize, special as usize);
    // A heap page: no special space (a page of 32 KiB writes 0 for 32768).
    if lower < 24 || lower > upper || upper > len || !(special == len || special == len % 65536) {
        return;
    }
    // Line pointers spread over the page: tuples written late in a page
    // (after an ALTER TABLE) count as much as the first ones.
    for i in spread((lower - 24) / 4, cap) {
        if out.len() >= MAX_TUPLES {
            return;
        }
        let Some(w) = le32(page, 24 + 4 * i) else {
            return;
        };
        let (off, flags, l) = ((w & 0x7FFF) as usize, (w >> 15) & 3, (w >> 17) as usize);
        if flags != LP_NORMAL || l < 24 || !off.is_multiple_of(4) || off + l > len {
            continue;
        }
        let t = &page[off..off + l];
        let (Some(infomask2), Some(infomask)) = (le16(t, 18), le16(t, 20)) else {
            continue;
        };
        let hoff = t[22] as usize;
        let natts = (infomask2 & HEAP_NATTS_MASK) as usize;
        if natts == 0 || hoff < 24 || !hoff.is_multiple_of(4) || hoff > l {
            continue;
        }
        let bitmap = if infomask & HEAP_HASNULL != 0 {
            let bytes = natts.div_ceil(8);
            if 23 + bytes > hoff {
                continue;
            }
            Some(&t[23..23 + bytes])
        } else {
            None
        };
        out.push(Tuple {
            data: &t[hoff..],
            natts,
            bitmap,
            xmin: le32(t, 0).unwrap_or(0),
        });
    }
}

/// An attribute layout: `attlen` (-1 varlena) and `attalign`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Class {
    attlen: i16,
    align: Align,
}

const fn class(attlen: i16, align: Align) -> Class {
    Class { attlen, align }
}

/// Every layout the search tries, the common first.
const CLASSES: [Class; 13] = [
    class(-1, Align::Int),
    class(4, Align::Int),
    class(8, Align::Double),
    class(1, Align::Char),
    class(2, Align::Short),
    class(-1, Align::Double),
    class(16, Align::Char),
    class(16, Align::Double),
    class(12, Align::Double),
    class(6, Align::Int),
    class(8, Align::Int),
    class(6, Align::Short),
    class(64, Align::Char),
];

/// Where the attribute at `off` (of layout `c`) starts and ends in `data`,
/// as `att_align_pointer` and `att_addlength_pointer` place it; `None` if it
/// cannot be there (padding that is not zero, a header that does not fit).
fn place(data: &[u8], off: usize, c: Class) -> Option<(usize, usize)> {
    let start = if c.attlen < 0 && data.get(off).is_some_and(|&b| b != 0) {
        off
    } else {
        c.align.align(off)
    };
    if start > data.len() || data[off.min(data.len())..start].iter().any(|&b| b != 0) {
        return None;
    }
    let size = if c.attlen > 0 {
        c.attlen as usize
    } else {
        let h = *data.get(start)?;
        if h == 0x01 {
            // VARATT_IS_1B_E: only an on-disk TOAST pointer is ever stored.
            (*data.get(start + 1)? == VARTAG_ONDISK).then_some(18)?
        } else if h & 0x01 == 0x01 {
            (h >> 1) as usize
        } else {
            // A 4-byte header is always written aligned.
            if !start.is_multiple_of(c.align.bytes()) {
                return None;
            }
            let n = (le32(data, start)? >> 2) as usize;
            let min = if h & 0x03 == 0x02 { 8 } else { 4 };
            (n >= min).then_some(n)?
        }
    };
    let end = start.checked_add(size)?;
    (end <= data.len()).then_some((start, end))
}

/// One step of the search: the layout of each attribute so far, the offset
/// reached in each search tuple, the score so far.
#[derive(Clone)]
struct State {
    classes: Vec<Class>,
    offsets: Vec<usize>,
    alive: Vec<bool>,
    score: f64,
}

/// The layout of every attribute: a beam search over [`CLASSES`]; `false`
/// when no layout fits every tuple (then the best start, padded with
/// varlenas).
fn search_layout(
    tuples: &[&Tuple],
    natts: usize,
    beam: usize,
    toast: &ToastChunks,
) -> (Vec<Class>, bool) {
    let n = tuples.len();
    let tolerance = n / 50;
    let mut states = vec![State {
        classes: Vec::new(),
        offsets: vec![0; n],
        alive: vec![true; n],
        score: 0.0,
    }];
    for k in 0..natts.min(MAX_NATTS) {
        let mut next: Vec<State> = Vec::new();
        for s in &states {
            let any_value = tuples
                .iter()
                .enumerate()
                .any(|(i, t)| s.alive[i] && t.natts > k && !t.is_null(k));
            let tried: &[Class] = if any_value { &CLASSES } else { &CLASSES[..1] };
            for &c in tried {
                if let Some(st) = step(s, tuples, k, c, tolerance, toast) {
                    next.push(st);
                }
            }
        }
        if next.is_empty() {
            // Nothing fits every tuple: keep the best so far and stop
            // (the confirmation says how many tuples the rest fits).
            let best = states.swap_remove(0);
            let mut classes = best.classes;
            classes.resize(natts, CLASSES[0]);
            return (classes, false);
        }
        next.sort_by(|a, b| b.score.total_cmp(&a.score));
        // One state per set of offsets: the rest would only repeat it.
        let mut seen: HashMap<&[usize], ()> = HashMap::new();
        let mut keep = Vec::new();
        for (i, st) in next.iter().enumerate() {
            if seen.insert(&st.offsets, ()).is_none() {
                keep.push(i);
                if keep.len() == beam {
                    break;
                }
            }
        }
        let mut by_index: Vec<Option<State>> = next.into_iter().map(Some).collect();
        states = keep
            .into_iter()
            .filter_map(|i| by_index.get_mut(i).and_then(Option::take))
            .collect();
    }
    let classes = states
        .into_iter()
        .next()
        .map(|s| s.classes)
        .unwrap_or_default();
    (classes, true)
}

/// State `s` extended by attribute `k` of layout `c`, or `None` if more
/// than `tolerance` tuples refuse it.
fn step(
    s: &State,
    tuples: &[&Tuple],
    k: usize,
    c: Class,
    tolerance: usize,
    toast: &ToastChunks,
) -> Option<State> {
    let mut offsets = s.offsets.clone();
    let mut alive = s.alive.clone();
    let mut values = Vec::new();
    let mut fails = 0;
    for (i, t) in tuples.iter().enumerate() {
        if !alive[i] || t.natts <= k {
            continue;
        }
        if !t.is_null(k) {
            match place(t.data, offsets[i], c) {
                Some((start, end)) => {
                    values.push(&t.data[start..end]);
                    offsets[i] = end;
                }
                None => {
                    fails += 1;
                    alive[i] = false;
                }
            }
        }
        if alive[i] && t.natts == k + 1 && offsets[i] != t.data.len() {
            fails += 1;
            alive[i] = false;
        }
        if fails > tolerance {
            return None;
        }
    }
    let best = candidates(c, &values, toast)
        .first()
        .map_or(0.0, |c| c.confidence);
    let mut classes = s.classes.clone();
    classes.push(c);
    Some(State {
        classes,
        offsets,
        alive,
        score: s.score + best - fails as f64 / tuples.len().max(1) as f64,
    })
}

/// Split every tuple by `classes` and rank each attribute's types on all
/// its values.
fn confirm(tuples: &[Tuple], classes: &[Class], toast: &ToastChunks, p: &mut Proposal) {
    let natts = classes.len();
    let mut values: Vec<Vec<&[u8]>> = vec![Vec::new(); natts];
    let mut xmins: Vec<(Vec<u32>, Vec<u32>)> = vec![(Vec::new(), Vec::new()); natts];
    let mut nulls = vec![0usize; natts];
    let mut missing = vec![0usize; natts];
    let mut fitting = 0;
    for t in tuples {
        let mut off = 0;
        let mut fits = true;
        for (k, &c) in classes.iter().enumerate() {
            if t.natts <= k {
                missing[k] += 1;
                continue;
            }
            if t.is_null(k) {
                nulls[k] += 1;
                xmins[k].1.push(t.xmin);
                continue;
            }
            match place(t.data, off, c).filter(|_| fits) {
                Some((start, end)) => {
                    values[k].push(&t.data[start..end]);
                    xmins[k].0.push(t.xmin);
                    off = end;
                }
                None => fits = false,
            }
        }
        if fits && off == t.data.len() {
            fitting += 1;
        }
    }
    p.tuples_fitting = fitting;
    let mut items = Vec::new();
    for (k, &c) in classes.iter().enumerate() {
        let vals = &values[k];
        let mut cands = candidates(c, vals, toast);
        let external = vals
            .iter()
            .filter(|v| c.attlen < 0 && v.first() == Some(&0x01))
            .count();
        let compressed = vals
            .iter()
            .filter(|v| c.attlen < 0 && v.first().is_some_and(|&h| h & 0x03 == 0x02))
            .count();
        if vals.is_empty() {
            cands = vec![Candidate {
                type_name: "text".into(),
                confidence: 0.0,
                why: "no tuple read has a value here (all NULL or missing): any type prints alike"
                    .into(),
            }];
        }
        let (with, without) = &xmins[k];
        let dropped = looks_dropped(with, without);
        let top = cands
            .first()
            .map_or_else(|| "text".to_string(), |c| c.type_name.clone());
        let item = if dropped {
            cands.insert(
                0,
                Candidate {
                    type_name: format!("dropped:{top}"),
                    confidence: 0.6,
                    why: format!(
                        "values only in tuples inserted up to xid {}, NULL in all {} tuples \
                         inserted after: what ALTER TABLE … DROP COLUMN leaves",
                        with.iter().max().copied().unwrap_or(0),
                        without.len()
                    ),
                },
            );
            format!("dropped:{top}")
        } else {
            top
        };
        items.push(item.clone());
        p.attributes.push(AttributeGuess {
            attnum: (k + 1) as u16,
            item,
            attlen: c.attlen,
            attalign: c.align.code(),
            values: vals.len(),
            nulls: nulls[k],
            missing: missing[k],
            external,
            compressed,
            dropped,
            candidates: cands,
        });
    }
    p.columns = items.join(", ");
    let short: Vec<u16> = p
        .attributes
        .iter()
        .filter(|a| a.missing > 0)
        .map(|a| a.attnum)
        .collect();
    if let (Some(first), Some(last)) = (short.first(), short.last()) {
        p.notes.push(format!(
            "attributes {first}..{last} are missing from tuples written before they were added \
             (ALTER TABLE … ADD COLUMN): those rows show NULL; if a column was added with a \
             DEFAULT, add `default VALUE` to its item"
        ));
    }
    let toasted: usize = p.attributes.iter().map(|a| a.external).sum();
    if toasted > 0 && toast.chunks.is_empty() {
        p.notes.push(format!(
            "{toasted} values are stored in the TOAST relation; without --toast their type \
             is judged by the other values"
        ));
    }
    if fitting < tuples.len() {
        p.notes.push(format!(
            "{} of {} tuples do not split by this column list (damaged, or a layout the \
             sample did not show)",
            tuples.len() - fitting,
            tuples.len()
        ));
    }
}

/// Values in tuples up to one xmin and NULL in every tuple after: the mark
/// of a dropped column (later inserts and updates write NULL there).
fn looks_dropped(with: &[u32], without: &[u32]) -> bool {
    const FIRST_NORMAL_XID: u32 = 3;
    if with.len() < 2 || without.len() < 2 {
        return false;
    }
    let last_with = with.iter().max().copied().unwrap_or(0);
    let first_without = without.iter().min().copied().unwrap_or(0);
    last_with >= FIRST_NORMAL_XID && first_without > last_with
}

/// The payload of a varlena value: inline (decompressed), from TOAST, or
/// not to be had.
fn payload(raw: &[u8], toast: &ToastChunks) -> Option<Vec<u8>> {
    if raw.first() == Some(&0x01) {
        return toast.fetch(raw);
    }
    inline_varlena_payload(raw, false).ok()
}

/// Share of `items` for which `ok` holds (0 for none).
fn share<T>(items: &[T], ok: impl Fn(&T) -> bool) -> f64 {
    if items.is_empty() {
        return 0.0;
    }
    items.iter().filter(|v| ok(v)).count() as f64 / items.len() as f64
}

fn cand(type_name: &str, confidence: f64, why: impl Into<String>) -> Candidate {
    Candidate {
        type_name: type_name.into(),
        confidence: (confidence * 1000.0).round() / 1000.0,
        why: why.into(),
    }
}

/// The types of layout `c` ranked for `vals` (raw attribute bytes), most
/// likely first; empty when there are no values.
fn candidates(c: Class, vals: &[&[u8]], toast: &ToastChunks) -> Vec<Candidate> {
    if vals.is_empty() {
        return Vec::new();
    }
    // A value of zero bytes only is what padding and the high bytes of
    // small integers look like: weak evidence for any fixed-length type.
    let zeros = if c.attlen > 0 {
        share(vals, |v| v.iter().all(|&b| b == 0))
    } else {
        0.0
    };
    let mut out = match (c.attlen, c.align) {
        (1, _) => one_byte(vals),
        (2, _) => vec![cand("int2", 0.8, "2 bytes, 2-byte aligned: smallint")],
        (4, _) => four_bytes(vals),
        (8, Align::Double) => eight_bytes(vals),
        (-1, align) => varlena(vals, align, toast),
        (16, Align::Char) => {
            let v4 = share(vals, |v| {
                (1..=8).contains(&(v[6] >> 4)) && v[8] & 0xC0 == 0x80
            });
            vec![cand(
                "uuid",
                0.5 + 0.4 * v4,
                format!(
                    "16 bytes, 1-byte aligned; {:.0}% carry an RFC 4122 version and variant",
                    v4 * 100.0
                ),
            )]
        }
        (16, _) => sixteen_double(vals),
        (12, _) => {
            let ok = share(vals, |v| {
                let t = u64_at(v, 0).unwrap_or(u64::MAX) as i64;
                let z = u32_at(v, 8).unwrap_or(u32::MAX) as i32;
                (0..=USECS_PER_DAY).contains(&t) && z.abs() <= 16 * 3600
            });
            vec![cand(
                "timetz",
                0.8 * ok,
                "12 bytes, 8-byte aligned: a time of day and a zone offset",
            )]
        }
        (6, Align::Int) => vec![cand("macaddr", 0.3, "6 bytes, 4-byte aligned")],
        (8, _) => vec![cand("macaddr8", 0.2, "8 bytes, 4-byte aligned")],
        (6, _) => {
            let ok = share(vals, |v| (1..=2048).contains(&le16(v, 4).unwrap_or(0)));
            vec![cand(
                "tid",
                0.3 * ok,
                "6 bytes, 2-byte aligned: a block and line pointer",
            )]
        }
        (64, _) => {
            let ok = share(vals, |v| {
                let end = v.iter().position(|&b| b == 0).unwrap_or(v.len());
                end < 64
                    && v[end..].iter().all(|&b| b == 0)
                    && std::str::from_utf8(&v[..end])
                        .is_ok_and(|s| !s.chars().any(char::is_control))
            });
            vec![cand(
                "name",
                0.8 * ok,
                "64 bytes of NUL-padded text: name (NAMEDATALEN)",
            )]
        }
        _ => Vec::new(),
    };
    for c in &mut out {
        c.confidence = (c.confidence * (1.0 - 0.5 * zeros) * 1000.0).round() / 1000.0;
    }
    out.sort_by(|a, b| b.confidence.total_cmp(&a.confidence));
    out
}

fn one_byte(vals: &[&[u8]]) -> Vec<Candidate> {
    let bools = share(vals, |v| v[0] <= 1);
    let chars = share(vals, |v| (0x20..0x7F).contains(&v[0]));
    vec![
        cand("bool", 0.9 * bools, "1 byte, 0 or 1"),
        cand("\"char\"", 0.5 * chars, "1 byte, printable ASCII"),
    ]
}

fn four_bytes(vals: &[&[u8]]) -> Vec<Candidate> {
    let ints: Vec<i32> = vals
        .iter()
        .map(|v| u32_at(v, 0).unwrap_or(0) as i32)
        .collect();
    let small = share(&ints, |&v| v.unsigned_abs() <= 100_000_000);
    let int4 = 0.3 + 0.6 * small;
    let floats = share(vals, |v| {
        let f = f32::from_bits(u32_at(v, 0).unwrap_or(0));
        f == 0.0 || (f.is_finite() && (1e-6..=1e12).contains(&f.abs()))
    });
    let nonzero = ints.iter().any(|&v| v != 0);
    let float4 = if nonzero { 0.85 * floats } else { 0.0 };
    // Days 2002-09-27 to 2100-01-01 (or ±infinity): what a date column of
    // today's data holds; ids and counts start lower.
    let finite: Vec<i32> = ints
        .iter()
        .copied()
        .filter(|&v| v != i32::MIN && v != i32::MAX)
        .collect();
    let in_range = share(&ints, |&v| {
        v == i32::MIN || v == i32::MAX || (1000..=36525).contains(&v)
    });
    let (lo, hi) = (
        finite.iter().min().copied().unwrap_or(0),
        finite.iter().max().copied().unwrap_or(0),
    );
    let mut out = Vec::new();
    if in_range == 1.0 {
        out.push(cand(
            "date",
            0.92,
            format!(
                "every value is a day from 2002 to 2100 ({} to {}); as int4 they would be {lo} to {hi}",
                day_text(lo),
                day_text(hi)
            ),
        ));
        out.push(cand(
            "int4",
            0.75,
            format!("{lo} to {hi}: also a plain integer, but ids and counts rarely all fall there"),
        ));
    } else {
        out.push(cand(
            "int4",
            int4,
            format!(
                "4 bytes, 4-byte aligned; {lo} to {hi} ({:.0}% within ±10⁸)",
                small * 100.0
            ),
        ));
        out.push(cand(
            "date",
            0.3 * in_range,
            "as days from 2000-01-01 not all in 2002..2100",
        ));
    }
    out.push(cand(
        "float4",
        float4,
        format!(
            "{:.0}% read as ordinary floats (integers read as floats are tiny denormals)",
            floats * 100.0
        ),
    ));
    out
}

/// `YYYY-MM-DD` of a day number (days from 2000-01-01).
fn day_text(days: i32) -> String {
    values::decode(&PgType::Date, &days.to_le_bytes())
        .map(|v| v.text)
        .unwrap_or_else(|_| days.to_string())
}

fn eight_bytes(vals: &[&[u8]]) -> Vec<Candidate> {
    let ints: Vec<i64> = vals
        .iter()
        .map(|v| u64_at(v, 0).unwrap_or(0) as i64)
        .collect();
    let small = share(&ints, |&v| v.unsigned_abs() <= 1 << 53);
    let floats = share(&ints, |&v| {
        let f = f64::from_bits(v as u64);
        f == 0.0 || (f.is_finite() && (1e-12..=1e15).contains(&f.abs()))
    });
    let nonzero = ints.iter().any(|&v| v != 0);
    let inf = |v: i64| v == i64::MIN || v == i64::MAX;
    // Microseconds from 2000-01-01 for 1900..2100, most of them at least
    // 12 days away from 2000-01-01 (integers that small are counts).
    let lo_ts = -(PG_EPOCH_UNIX + 70 * 365 * 86_400) * 1_000_000 - 17 * USECS_PER_DAY;
    let hi_ts = 36525 * USECS_PER_DAY;
    let far = share(&ints, |&v| inf(v) || v.unsigned_abs() >= 1_000_000_000_000);
    let ts = if far >= 0.5 {
        share(&ints, |&v| inf(v) || (lo_ts..=hi_ts).contains(&v))
    } else {
        0.0
    };
    let times = share(&ints, |&v| (0..=USECS_PER_DAY).contains(&v));
    let max = ints.iter().copied().filter(|&v| !inf(v)).max().unwrap_or(0);
    let min = ints.iter().copied().filter(|&v| !inf(v)).min().unwrap_or(0);
    let mut out = Vec::new();
    if ts == 1.0 {
        out.push(cand(
            "timestamptz",
            0.92,
            "every value is a time from 1900 to 2100 in microseconds from 2000-01-01; \
             timestamp stores the same and prints without the zone: timestamptz is the \
             more common choice",
        ));
        out.push(cand("timestamp", 0.9, "the same bytes as timestamptz"));
        out.push(cand(
            "int8",
            0.7,
            format!("{min} to {max}: integers this large are rarely counts"),
        ));
    } else if times == 1.0 && max >= 3_600_000_000 {
        out.push(cand(
            "time",
            0.88,
            "every value is a time of day in microseconds (some after 01:00)",
        ));
        out.push(cand("int8", 0.75, format!("{min} to {max}")));
    } else {
        out.push(cand(
            "int8",
            0.3 + 0.6 * small,
            format!("8 bytes, 8-byte aligned; {min} to {max}"),
        ));
        out.push(cand(
            "timestamptz",
            0.3 * ts,
            "not all values are times 1970..2100",
        ));
    }
    out.push(cand(
        "float8",
        if nonzero { 0.95 * floats } else { 0.0 },
        format!(
            "{:.0}% read as ordinary floats (integers read as floats are tiny denormals)",
            floats * 100.0
        ),
    ));
    out
}

fn sixteen_double(vals: &[&[u8]]) -> Vec<Candidate> {
    let interval = share(vals, |v| {
        let t = u64_at(v, 0).unwrap_or(u64::MAX) as i64;
        let d = u32_at(v, 8).unwrap_or(u32::MAX) as i32;
        let m = u32_at(v, 12).unwrap_or(u32::MAX) as i32;
        t.unsigned_abs() < 1 << 50 && d.unsigned_abs() < 1_000_000 && m.unsigned_abs() < 100_000
    });
    let fl = |b: u64| {
        let f = f64::from_bits(b);
        f == 0.0 || (f.is_finite() && (1e-12..=1e15).contains(&f.abs()))
    };
    let points = share(vals, |v| {
        fl(u64_at(v, 0).unwrap_or(u64::MAX)) && fl(u64_at(v, 8).unwrap_or(u64::MAX))
    });
    vec![
        cand(
            "interval",
            0.8 * interval,
            "16 bytes, 8-byte aligned: microseconds, days, months",
        ),
        cand(
            "point",
            0.7 * points,
            "16 bytes, 8-byte aligned: two float8",
        ),
    ]
}

/// What a varlena's payload looks like.
fn varlena(vals: &[&[u8]], align: Align, toast: &ToastChunks) -> Vec<Candidate> {
    let external = vals.iter().filter(|v| v.first() == Some(&0x01)).count();
    let mut fetched = 0;
    let payloads: Vec<Vec<u8>> = vals
        .iter()
        .filter_map(|v| {
            if v.first() == Some(&0x01) {
                if fetched >= MAX_TOAST_VALUES || toast.chunks.is_empty() {
                    return None;
                }
                fetched += 1;
            }
            payload(v, toast)
        })
        .collect();
    if payloads.is_empty() {
        let why = if external > 0 {
            "every value is in the TOAST relation (give --toast to look inside): \
             text, bytea, jsonb or an array"
        } else {
            "no value could be read"
        };
        return vec![cand("text", 0.4, why), cand("bytea", 0.3, why)];
    }
    let n = payloads.len();
    let text = share(&payloads, |p| {
        !p.contains(&0) && std::str::from_utf8(p).is_ok()
    });
    let numeric = share(&payloads, |p| {
        p.len() >= 2 && p.len().is_multiple_of(2) && numeric_decodes(p)
    });
    let jsonb = share(&payloads, |p| {
        let h = le32(p, 0).unwrap_or(0);
        let (scalar, object, array) = (
            h & 0x1000_0000 != 0,
            h & 0x2000_0000 != 0,
            h & 0x4000_0000 != 0,
        );
        h & 0x8000_0000 == 0 && (object != array) && (!scalar || array) && jsonb::to_text(p).is_ok()
    });
    let inet = share(&payloads, |p| {
        matches!((p.first(), p.len()), (Some(2), 6) | (Some(3), 18))
            && values::decode(&PgType::Inet, p).is_ok()
    });
    // Arrays: the header names the element type.
    let mut elems: HashMap<u32, usize> = HashMap::new();
    for p in &payloads {
        let (Some(ndim), Some(_), Some(elem)) = (le32(p, 0), le32(p, 4), le32(p, 8)) else {
            continue;
        };
        if ndim <= 6 {
            if let Some(ty) = PgType::from_oid(elem).filter(|t| !matches!(t, PgType::Array(_))) {
                if values::decode(&PgType::Array(Box::new(ty)), p).is_ok() {
                    *elems.entry(elem).or_default() += 1;
                }
            }
        }
    }
    let mut out = Vec::new();
    if let Some((&oid, &count)) = elems.iter().max_by_key(|(_, &c)| c) {
        if let Some(elem) = PgType::from_oid(oid) {
            let arr = PgType::Array(Box::new(elem.clone()));
            let fits_align = align == Align::Int || arr.align() == Align::Double;
            if fits_align {
                out.push(cand(
                    &format!("{}[]", short_name(&elem)),
                    count as f64 / n as f64,
                    format!(
                        "array headers name element type {oid} ({}) in {count} of {n} values",
                        elem.sql_name()
                    ),
                ));
            }
        }
    }
    if align == Align::Double {
        // Only arrays of 8-byte aligned elements (and path, polygon) are
        // varlenas aligned on 8.
        return out;
    }
    let pct = |x: f64| x * 100.0;
    // Text that happens to decode as numeric digits is a coincidence of
    // short strings; numerics are almost never NUL-free UTF-8.
    let numeric = if text == 1.0 { 0.9 * numeric } else { numeric };
    out.push(cand(
        "numeric",
        numeric,
        format!("{:.0}% decode as numeric digits", pct(numeric)),
    ));
    out.push(cand(
        "jsonb",
        jsonb,
        format!(
            "{:.0}% carry a jsonb container header and decode",
            pct(jsonb)
        ),
    ));
    out.push(cand(
        "inet",
        0.95 * inet,
        format!(
            "{:.0}% are an address family, netmask and address",
            pct(inet)
        ),
    ));
    out.push(cand(
        "text",
        0.97 * text,
        format!("{:.0}% are UTF-8 text without NUL bytes", pct(text)),
    ));
    out.push(cand(
        "bytea",
        0.45,
        "any bytes print as bytea: the fallback",
    ));
    out
}

/// The catalog name `--columns` takes for a type (`int4`, not `integer`).
fn short_name(ty: &PgType) -> String {
    use PgType::*;
    let s = match ty {
        Bool => "bool",
        Int2 => "int2",
        Int4 => "int4",
        Int8 => "int8",
        Float4 => "float4",
        Float8 => "float8",
        Varchar => "varchar",
        Bpchar => "bpchar",
        Time => "time",
        TimeTz => "timetz",
        Timestamp => "timestamp",
        TimestampTz => "timestamptz",
        Varbit => "varbit",
        GeoBox => "box",
        Array(e) => return format!("{}[]", short_name(e)),
        other => return other.sql_name(),
    };
    s.to_string()
}

/// The TOAST relation's chunks by value id, read in place from its pages.
struct ToastChunks<'a> {
    chunks: HashMap<u32, Vec<(i32, &'a [u8])>>,
}

impl<'a> ToastChunks<'a> {
    /// Index the chunk tuples (chunk_id oid, chunk_seq int4, chunk_data
    /// bytea) of `pages`.
    fn index(pages: &[&'a [u8]]) -> Self {
        let mut chunks: HashMap<u32, Vec<(i32, &'a [u8])>> = HashMap::new();
        let mut count = 0;
        for page in pages {
            let mut tuples = Vec::new();
            page_tuples(page, &mut tuples, usize::MAX);
            for t in tuples {
                if count >= MAX_TOAST_CHUNKS {
                    break;
                }
                let (Some(id), Some(seq)) = (le32(t.data, 0), le32(t.data, 4)) else {
                    continue;
                };
                let Some((start, end)) = place(t.data, 8, class(-1, Align::Int)) else {
                    continue;
                };
                if let Ok(data) = super::attrs::plain_varlena_data(&t.data[start..end]) {
                    chunks.entry(id).or_default().push((seq as i32, data));
                    count += 1;
                }
            }
        }
        ToastChunks { chunks }
    }

    /// The payload behind the TOAST pointer `raw` (decompressed), if all
    /// its chunks are there.
    fn fetch(&self, raw: &[u8]) -> Option<Vec<u8>> {
        let rawsize = le32(raw, 2)? as usize;
        let extinfo = le32(raw, 6)?;
        let id = le32(raw, 10)?;
        let extsize = (extinfo & 0x3FFF_FFFF) as usize;
        if extsize > super::toast::MAX_VALUE_BYTES {
            return None;
        }
        let mut parts = self.chunks.get(&id)?.clone();
        parts.sort_by_key(|p| p.0);
        let mut data = Vec::with_capacity(extsize);
        for (i, (seq, chunk)) in parts.iter().enumerate() {
            if *seq != i as i32 || data.len() + chunk.len() > extsize {
                return None;
            }
            data.extend_from_slice(chunk);
        }
        if data.len() != extsize {
            return None;
        }
        if extsize + 4 < rawsize {
            decompress_tc(&data).ok()
        } else {
            Some(data)
        }
    }
}
