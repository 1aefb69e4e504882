//! SP-GiST pages (spgist_private.h): the metapage, inner tuples with their
//! prefix and nodes, leaf tuples, and redirect, dead and placeholder tuples.
//!
//! ```text
//!  inner:  | tupstate:2 allTheSame:1 nNodes:13 prefixSize:16 | size (2) | pad | prefix … | node IndexTuples …
//!  leaf:   | tupstate:2 size:30 | t_info: nextOffset & 0x3FFF, 0x8000 nulls | heapPtr (6) | [bitmap] | datum …
//!  dead:   | tupstate:2 size:30 | t_info (2) | pointer (6) | xid (4) |
//! ```

use crate::model::postgres::index::{IndexBody, IndexItem, KeyArea, SpGistMeta, SpGistNode};
use crate::model::postgres::{
    ItemId, LpFlags, PageHeader, PageLayout, SpGistPageOpaque, SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use crate::model::postgres::flags::{SPGIST_DELETED, SPGIST_LEAF, SPGIST_META, SPGIST_NULLS};
use crate::parse::postgres::itup::{
    empty_item, read_itup_header, read_tid, tuple_bounds, unreadable_item, INDEX_SIZE_MASK,
    SIZE_OF_INDEX_TUPLE,
};

/// A leaf tuple's t_info flag: a null bitmap follows the header.
const SGLT_HASNULLMASK: u16 = 0x8000;
/// `SPGIST_CACHED_PAGES`.
const SPGIST_CACHED_PAGES: usize = 8;
/// `SGITHDRSZ`: MAXALIGN(sizeof(SpGistInnerTupleData)).
const SGITHDRSZ: usize = 8;
/// sizeof(SpGistLeafTupleData).
const SIZE_OF_LEAF_TUPLE: usize = 12;
/// `SPGIST_LIVE` … `SPGIST_PLACEHOLDER`.
const TUPSTATES: [&str; 4] = ["LIVE", "REDIRECT", "DEAD", "PLACEHOLDER"];

/// Decode an SP-GiST page's metapage or tuples.
pub(crate) fn parse(
    r: &mut Reader,
    ids: &[ItemId],
    opaque: &SpGistPageOpaque,
    meta: &mut Option<SpGistMeta>,
    items: &mut Vec<IndexItem>,
    layout: PageLayout,
    problems: &mut Vec<Problem>,
) {
    if opaque.flags & SPGIST_META != 0 {
        match read_meta(r) {
            Ok(m) => *meta = Some(m),
            Err(e) => problems.push(Problem::new(
                crate::model::Severity::Error,
                ProblemClass::Special,
                Some(e.offset),
                e.field.clone(),
                format!("cannot read SpGistMetaPageData: {e}"),
            )),
        }
        return;
    }
    if opaque.flags & SPGIST_DELETED != 0 {
        return;
    }
    let leaf = opaque.flags & SPGIST_LEAF != 0;
    let nulls = opaque.flags & SPGIST_NULLS != 0;
    for id in ids {
        let item = if !id.has_storage() {
            empty_item(*id)
        } else {
            match tuple(r, *id, leaf, nulls, layout) {
                Ok(i) => i,
                Err(e) => unreadable_item(*id, &e, ProblemClass::Special, problems),
            }
        };
        items.push(item);
    }
}

fn read_meta(r: &mut Reader) -> Result<SpGistMeta, ReadError> {
    let at = SIZE_OF_PAGE_HEADER;
    r.set_context(Region::Meta, Some("SpGistMetaPageData".into()));
    let magic_number = r.u32(at, "magicNumber")?;
    r.show_last(format!("0x{magic_number:08X}"));
    let mut last_used_pages = Vec::with_capacity(SPGIST_CACHED_PAGES);
    for i in 0..SPGIST_CACHED_PAGES {
        let o = at + 4 + i * 8;
        let blkno = r.peek_u32(o, "lastUsedPages")?;
        let free = r.peek_i32(o + 4, "lastUsedPages")?;
        r.mark(
            o,
            8,
            &format!("lastUsedPages[{i}]"),
            if blkno == u32::MAX {
                "none".into()
            } else {
                format!("block {blkno}, {free} bytes free")
            },
        );
        last_used_pages.push((blkno, free));
    }
    Ok(SpGistMeta {
        magic_number,
        last_used_pages,
    })
}

/// As [`crate::parse::postgres::itup::detect_max_align`] for SP-GiST tuples, whose sizes
/// are in their own headers: `size` (the 30-bit field of leaf and dead
/// tuples, the uint16 after an inner tuple's bitfields). A 64-bit build
/// MAXALIGNs every tuple to 8; a 32-bit build to 4, and its leaf tuples'
/// header is 12 bytes (MAXALIGN(sizeof(SpGistLeafTupleData))), not 16. The
/// page is read as 32-bit when every tuple sits at a multiple of 4, a
/// multiple of 4 long, with its header's size equal to lp_len, and either
/// some normal tuple sits at 4 mod 8, or, on a leaf page, some live leaf
/// tuple without a null bitmap has a non-zero byte at 12..16: its value
/// there on a 32-bit build, padding on a 64-bit one (spgFormLeafTuple
/// zeroes the tuple).
pub(crate) fn detect_max_align(r: &Reader, h: &PageHeader, ids: &[ItemId]) -> Option<Problem> {
    let leaf = r.peek_u16(usize::from(h.pd_special), "flags").ok()? & SPGIST_LEAF != 0;
    let big = r.endian() == crate::reader::Endian::Big;
    let fits = |id: &ItemId| size_fits(r, id, leaf, big);
    if let Some(note) = crate::parse::postgres::layout::four_byte_maxalign(
        ids,
        ItemId::has_storage,
        |id| fits(id),
        "SP-GiST tuples",
        "tuples",
        "with the size in their header equal to lp_len; decoded with 4-byte MAXALIGN",
    ) {
        return Some(note);
    }
    if !leaf {
        return None;
    }
    let mut first = None;
    let mut seen = 0usize;
    for id in ids.iter().filter(|id| id.has_storage()) {
        if id.lp_off % 4 != 0 || !fits(id) {
            return None;
        }
        seen += 1;
        let off = usize::from(id.lp_off);
        let live = r
            .peek_u32(off, "tupstate")
            .is_ok_and(|w| bitfields(w, big, [2, 30])[0] == 0);
        let no_bitmap = r
            .peek_u16(off + 4, "t_info")
            .is_ok_and(|t| t & SGLT_HASNULLMASK == 0);
        let value_at_12 = id.lp_len >= 16
            && r.peek(off + 12, 4, "leaf value")
                .is_ok_and(|b| b.iter().any(|&x| x != 0));
        if first.is_none() && id.lp_flags == LpFlags::Normal && live && no_bitmap && value_at_12 {
            first = Some(id.lp);
        }
    }
    let lp = first?;
    Some(
        Problem::new(
            Severity::Info,
            ProblemClass::LinePointer,
            Some(crate::parse::postgres::layout::item_id_offset(usize::from(
                lp,
            ))),
            format!("lp[{lp}]"),
            format!(
                "SP-GiST tuples laid out by a 32-bit build (MAXALIGN 4): lp[{lp}] is a live leaf \
             tuple without a null bitmap whose bytes 12..16 hold its value (a 64-bit build's \
             are padding), and all {seen} tuples start at multiples of 4 with the size in their \
             header equal to lp_len; decoded with 4-byte MAXALIGN"
            ),
        )
        .about_item(lp),
    )
}

/// Whether the tuple's header holds its lp_len (a multiple of 4, at least 8).
fn size_fits(r: &Reader, id: &ItemId, leaf: bool, big: bool) -> bool {
    let (off, len) = (usize::from(id.lp_off), usize::from(id.lp_len));
    if len % 4 != 0 || len < 8 {
        return false;
    }
    let Ok(word) = r.peek_u32(off, "tupstate") else {
        return false;
    };
    let [state, size30] = bitfields(word, big, [2, 30]);
    let size = if state != 0 || leaf {
        size30 as usize
    } else {
        match r.peek_u16(off + 4, "size") {
            Ok(size) => usize::from(size),
            Err(_) => return false,
        }
    };
    size == len
}

/// The `unsigned int` bitfields of `widths` (declaration order) packed in
/// `word`: GCC allocates them from the least significant bit on a
/// little-endian host and from the most significant one on a big-endian host.
fn bitfields<const N: usize>(word: u32, big: bool, widths: [u32; N]) -> [u32; N] {
    let mut out = [0u32; N];
    let mut used = 0u32;
    for (o, w) in out.iter_mut().zip(widths) {
        let mask = if w >= 32 { u32::MAX } else { (1 << w) - 1 };
        let shift = if big { 32 - used - w } else { used };
        *o = (word >> shift) & mask;
        used += w;
    }
    out
}

fn tuple(
    r: &mut Reader,
    id: ItemId,
    leaf: bool,
    nulls: bool,
    layout: PageLayout,
) -> Result<IndexItem, ReadError> {
    let (base, len) = tuple_bounds(r, &id)?;
    let owner = format!("item {}", id.lp);
    let word = r.peek_u32(base, "tupstate")?;
    let big = r.endian() == crate::reader::Endian::Big;
    // tupstate:2, size:30 (leaf and dead tuples)
    let [state, size30] = bitfields(word, big, [2, 30]);
    let state = state as usize;
    let tupstate = TUPSTATES[state];
    r.set_context(Region::TupleHeader, Some(owner.clone()));
    if state != 0 {
        // SpGistDeadTupleData
        let size = size30;
        r.mark(
            base,
            4,
            "tupstate, size",
            format!("{tupstate}, size {size}"),
        );
        r.u16(base + 4, "t_info")?;
        let pointer = read_tid(r, base + 6, "pointer")?;
        let xid = r.u32(base + 12, "xid")?;
        let verdict = match state {
            1 => format!("redirect to {pointer} (made by xid {xid})"),
            2 => "dead tuple".to_string(),
            _ => "placeholder (a removed tuple)".to_string(),
        };
        return Ok(IndexItem {
            id,
            header: None,
            body: IndexBody::SpGistDead { size, pointer, xid },
            tupstate: Some(tupstate),
            key_area: None,
            keys: None,
            verdict,
        });
    }
    if leaf {
        let size = size30;
        r.mark(
            base,
            4,
            "tupstate, size",
            format!("{tupstate}, size {size}"),
        );
        let t_info = r.u16(base + 4, "t_info")?;
        let next_offset = t_info & 0x3FFF;
        let has_nulls = t_info & SGLT_HASNULLMASK != 0;
        r.show_last(format!(
            "0x{t_info:04x} nextOffset {next_offset}{}",
            if has_nulls { ", has nulls" } else { "" }
        ));
        let heap_ptr = read_tid(r, base + 6, "heapPtr")?;
        let bitmap = if has_nulls {
            Some(
                r.bytes(base + SIZE_OF_LEAF_TUPLE, 4, "null bitmap")?
                    .to_vec(),
            )
        } else {
            None
        };
        // SGLTHDRSZ
        let hdr = if has_nulls {
            layout.maxalign(SIZE_OF_LEAF_TUPLE + 4)
        } else {
            layout.maxalign(SIZE_OF_LEAF_TUPLE)
        };
        let end = (size as usize).min(len).max(hdr);
        let datum = r.peek(base + hdr, end - hdr, "leaf datum")?.to_vec();
        if !datum.is_empty() {
            r.set_context(Region::TupleData, Some(owner));
            r.mark(
                base + hdr,
                datum.len(),
                "leaf datum",
                format!("{} bytes", datum.len()),
            );
        }
        let verdict = format!(
            "leaf tuple for heap tuple {heap_ptr}{}{}",
            if nulls { " (NULL key)" } else { "" },
            if next_offset != 0 {
                format!(", chain continues at item {next_offset}")
            } else {
                String::new()
            }
        );
        return Ok(IndexItem {
            id,
            header: None,
            body: IndexBody::SpGistLeaf {
                size,
                next_offset,
                has_nulls,
                heap_ptr,
                datum,
            },
            tupstate: Some(tupstate),
            // A leaf of the nulls tree holds no key, but INCLUDE columns
            // when it has a null bitmap (PostgreSQL 14+).
            key_area: (!nulls || has_nulls).then_some(KeyArea {
                start: base + hdr,
                len: end - hdr,
                bitmap,
                skip_int2: false,
            }),
            keys: None,
            verdict,
        });
    }
    // SpGistInnerTupleData
    let [_, all_the_same, n_nodes, prefix_size] = bitfields(word, big, [2, 1, 13, 16]);
    let all_the_same = all_the_same != 0;
    let n_nodes = n_nodes as u16;
    let prefix_size = prefix_size as u16;
    r.mark(
        base,
        4,
        "tupstate, allTheSame, nNodes, prefixSize",
        format!("{tupstate}, {all_the_same}, {n_nodes}, {prefix_size}"),
    );
    let size = r.u16(base + 4, "size")?;
    let psize = usize::from(prefix_size);
    let prefix = if psize > 0 {
        r.set_context(Region::TupleData, Some(owner.clone()));
        let p = r.bytes(base + SGITHDRSZ, psize, "prefix")?.to_vec();
        r.show_last(format!("{psize} bytes"));
        Some(p)
    } else {
        None
    };
    let mut nodes = Vec::with_capacity(usize::from(n_nodes).min(len / SIZE_OF_INDEX_TUPLE + 1));
    let mut at = base + SGITHDRSZ + psize;
    let end = base + usize::from(size).min(len);
    for n in 0..n_nodes {
        if at + SIZE_OF_INDEX_TUPLE > end {
            return Err(ReadError {
                field: format!("node {n}"),
                offset: at,
                needed: SIZE_OF_INDEX_TUPLE,
                available: end.saturating_sub(at),
            });
        }
        let node_owner = format!("item {} node {n}", id.lp);
        let h = read_itup_header(r, at, &node_owner, "downlink", layout)?;
        let nsize = usize::from(h.size & INDEX_SIZE_MASK).max(SIZE_OF_INDEX_TUPLE);
        let label = if h.has_nulls {
            None
        } else {
            let l = r.peek(
                at + h.data_offset,
                nsize.saturating_sub(h.data_offset),
                "label",
            )?;
            if !l.is_empty() {
                r.set_context(Region::TupleData, Some(node_owner));
                r.mark(
                    at + h.data_offset,
                    l.len(),
                    "label",
                    format!("{} bytes", l.len()),
                );
            }
            Some(l.to_vec())
        };
        nodes.push(SpGistNode {
            downlink: h.t_tid,
            size: h.size,
            label,
        });
        at += nsize;
    }
    let verdict = format!(
        "inner tuple: {n_nodes} node{}{}{}",
        if n_nodes == 1 { "" } else { "s" },
        if psize > 0 {
            format!(", {psize}-byte prefix")
        } else {
            String::new()
        },
        if all_the_same { ", all the same" } else { "" }
    );
    Ok(IndexItem {
        id,
        header: None,
        body: IndexBody::SpGistInner {
            all_the_same,
            n_nodes,
            prefix_size,
            size,
            prefix,
            nodes,
        },
        tupstate: Some(tupstate),
        key_area: (psize > 0).then_some(KeyArea {
            start: base + SGITHDRSZ,
            len: psize,
            bitmap: None,
            skip_int2: false,
        }),
        keys: None,
        verdict,
    })
}

#[cfg(test)]
mod tests {
    use super::bitfields;

    #[test]
    fn bitfields_are_allocated_from_the_low_bit_or_the_high_bit() {
        // tupstate 1, allTheSame 1, nNodes 5, prefixSize 16
        let le = 1 | 1 << 2 | 5 << 3 | 16 << 16;
        let be = 1 << 30 | 1 << 29 | 5 << 16 | 16;
        assert_eq!(bitfields(le, false, [2, 1, 13, 16]), [1, 1, 5, 16]);
        assert_eq!(bitfields(be, true, [2, 1, 13, 16]), [1, 1, 5, 16]);
        assert_eq!(bitfields(3 << 30 | 40, true, [2, 30]), [3, 40]);
    }
}
