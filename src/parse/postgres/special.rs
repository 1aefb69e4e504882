//! Special spaces and contents of the other page kinds: hash, GIN, GiST,
//! SP-GiST, BRIN, sequences, and the free space map and visibility map forks.

use crate::model::postgres::block_id;
use crate::model::postgres::{
    AmData, BrinMetaPageData, BrinSpecial, FsmPage, GinMetaPageData, GinPageOpaque, GistPageOpaque,
    HashMetaPageData, HashPageOpaque, ItemPointer, Lsn, PageHeader, SpGistPageOpaque, VmPage,
    SIZE_OF_PAGE_HEADER,
};
use crate::model::span::Region;
use crate::reader::{ReadError, Reader};

use crate::model::postgres::flags::{
    BRIN_PAGETYPE_META, BRIN_PAGETYPE_REVMAP, GIN_META, LH_META_PAGE,
};
/// Moved to [`crate::model::postgres::names`]; kept at their old path for code not yet updated.
pub(crate) use crate::model::postgres::names::brin_page_type;
use crate::model::postgres::names::LH_PAGE_TYPE;

/// `HASH_MAX_SPLITPOINTS` (hash.h).
const HASH_MAX_SPLITPOINTS: usize = 98;
/// `HASH_MAX_BITMAPS` for pages of 8 kB and more: Min(BLCKSZ / 8, 1024).
fn hash_max_bitmaps(page_size: usize) -> usize {
    (page_size / 8).min(1024)
}
/// offsetof(FSMPageData, fp_nodes).
const FSM_NODES_OFFSET: usize = SIZE_OF_PAGE_HEADER + 4;

/// `HashPageOpaqueData` (hash.h), and `HashMetaPageData` on the metapage.
pub(crate) fn hash(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, Some("HashPageOpaqueData".into()));
    let opaque = HashPageOpaque {
        hasho_prevblkno: r.u32(special, "hasho_prevblkno")?,
        hasho_nextblkno: r.u32(special + 4, "hasho_nextblkno")?,
        hasho_bucket: r.u32(special + 8, "hasho_bucket")?,
        hasho_flag: r.u16(special + 12, "hasho_flag")?,
        hasho_page_id: r.u16(special + 14, "hasho_page_id")?,
    };
    let meta = if opaque.hasho_flag & LH_PAGE_TYPE == LH_META_PAGE {
        Some(read_hash_meta(r, h.page_size())?)
    } else {
        None
    };
    Ok(Some(AmData::Hash {
        opaque,
        meta,
        stats: None,
        items: Vec::new(),
        bitmap: None,
    }))
}

/// `GinPageOpaqueData` (ginblock.h), and `GinMetaPageData` on the metapage.
pub(crate) fn gin(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, Some("GinPageOpaqueData".into()));
    let opaque = GinPageOpaque {
        rightlink: r.u32(special, "rightlink")?,
        maxoff: r.u16(special + 4, "maxoff")?,
        flags: r.u16(special + 6, "flags")?,
    };
    let meta = if opaque.flags & GIN_META != 0 {
        Some(read_gin_meta(r)?)
    } else {
        None
    };
    Ok(Some(AmData::Gin {
        opaque,
        meta,
        items: Vec::new(),
        data: None,
    }))
}

/// `GISTPageOpaqueData` (gist.h).
pub(crate) fn gist(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, Some("GISTPageOpaqueData".into()));
    let nsn = Lsn {
        xlogid: r.peek_u32(special, "nsn")?,
        xrecoff: r.peek_u32(special + 4, "nsn")?,
    };
    r.mark(special, 8, "nsn", nsn.to_string());
    Ok(Some(AmData::Gist {
        opaque: GistPageOpaque {
            nsn,
            rightlink: r.u32(special + 8, "rightlink")?,
            flags: r.u16(special + 12, "flags")?,
            gist_page_id: r.u16(special + 14, "gist_page_id")?,
        },
        items: Vec::new(),
    }))
}

/// `SpGistPageOpaqueData` (spgist_private.h); the metapage is read with the items.
pub(crate) fn spgist(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, Some("SpGistPageOpaqueData".into()));
    Ok(Some(AmData::SpGist {
        opaque: SpGistPageOpaque {
            flags: r.u16(special, "flags")?,
            n_redirection: r.u16(special + 2, "nRedirection")?,
            n_placeholder: r.u16(special + 4, "nPlaceholder")?,
            spgist_page_id: r.u16(special + 6, "spgist_page_id")?,
        },
        meta: None,
        items: Vec::new(),
    }))
}

/// `BrinSpecialSpace` (brin_page.h), and `BrinMetaPageData` or the revmap's TIDs.
pub(crate) fn brin(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, Some("BrinSpecialSpace".into()));
    let end = r.len();
    let flags = r.u16(end.saturating_sub(4), "flags")?;
    let page_type = r.u16(end.saturating_sub(2), "page type")?;
    r.show_last(brin_page_type(page_type));
    let special_data = BrinSpecial { flags, page_type };
    let mut meta = None;
    let mut revmap = None;
    if page_type == BRIN_PAGETYPE_META {
        r.set_context(Region::TupleData, Some("BrinMetaPageData".into()));
        let at = SIZE_OF_PAGE_HEADER;
        meta = Some(BrinMetaPageData {
            brin_magic: r.u32(at, "brinMagic")?,
            brin_version: r.u32(at + 4, "brinVersion")?,
            pages_per_range: r.u32(at + 8, "pagesPerRange")?,
            last_revmap_page: r.u32(at + 12, "lastRevmapPage")?,
        });
    } else if page_type == BRIN_PAGETYPE_REVMAP {
        // REVMAP_PAGE_MAXITEMS item pointers from the start of the contents.
        let n = special.saturating_sub(SIZE_OF_PAGE_HEADER) / 6;
        let mut tids = Vec::with_capacity(n);
        r.set_context(Region::TupleData, Some("RevmapContents".into()));
        r.mark(SIZE_OF_PAGE_HEADER, n * 6, "rm_tids", format!("{n} TIDs"));
        for i in 0..n {
            let at = SIZE_OF_PAGE_HEADER + i * 6;
            let hi = r.peek_u16(at, "rm_tids")?;
            let lo = r.peek_u16(at + 2, "rm_tids")?;
            tids.push(ItemPointer {
                block: block_id(hi, lo),
                offset: r.peek_u16(at + 4, "rm_tids")?,
            });
        }
        revmap = Some(tids);
    }
    Ok(Some(AmData::Brin {
        special: special_data,
        meta,
        revmap,
        items: Vec::new(),
    }))
}

/// A sequence page's `sequence_magic` (sequence.c).
pub(crate) fn sequence(r: &mut Reader, h: &PageHeader) -> Result<Option<AmData>, ReadError> {
    let special = usize::from(h.pd_special);
    r.set_context(Region::Special, None);
    let magic = r.u32(special, "sequence_magic")?;
    r.show_last(format!("0x{magic:04x}"));
    Ok(Some(AmData::Sequence { magic }))
}

/// A free space map page's `FSMPageData` (fsm_internals.h).
pub(crate) fn fsm(r: &mut Reader) -> Result<Option<AmData>, ReadError> {
    Ok(Some(AmData::Fsm(read_fsm(r)?)))
}

/// A visibility map page's bits, for heap blocks from `blkno`'s first.
pub(crate) fn vm(r: &mut Reader, blkno: u64) -> Result<Option<AmData>, ReadError> {
    Ok(Some(AmData::Vm(read_vm(r, blkno))))
}

fn read_hash_meta(r: &mut Reader, page_size: usize) -> Result<HashMetaPageData, ReadError> {
    let at = SIZE_OF_PAGE_HEADER;
    r.set_context(Region::Meta, Some("HashMetaPageData".into()));
    // A float8 in the host's byte order (the high word first on big-endian).
    let ntuples = f64::from_bits(r.peek_u64(at + 8, "hashm_ntuples")?);
    let mut meta = HashMetaPageData {
        hashm_magic: r.u32(at, "hashm_magic")?,
        hashm_version: r.u32(at + 4, "hashm_version")?,
        hashm_ntuples: ntuples,
        hashm_ffactor: r.u16(at + 16, "hashm_ffactor")?,
        hashm_bsize: r.u16(at + 18, "hashm_bsize")?,
        hashm_bmsize: r.u16(at + 20, "hashm_bmsize")?,
        hashm_bmshift: r.u16(at + 22, "hashm_bmshift")?,
        hashm_maxbucket: r.u32(at + 24, "hashm_maxbucket")?,
        hashm_highmask: r.u32(at + 28, "hashm_highmask")?,
        hashm_lowmask: r.u32(at + 32, "hashm_lowmask")?,
        hashm_ovflpoint: r.u32(at + 36, "hashm_ovflpoint")?,
        hashm_firstfree: r.u32(at + 40, "hashm_firstfree")?,
        hashm_nmaps: r.u32(at + 44, "hashm_nmaps")?,
        hashm_procid: r.u32(at + 48, "hashm_procid")?,
        hashm_spares: Vec::with_capacity(HASH_MAX_SPLITPOINTS),
        hashm_mapp: Vec::new(),
    };
    r.mark(at + 8, 8, "hashm_ntuples", ntuples.to_string());
    let spares = at + 52;
    for i in 0..HASH_MAX_SPLITPOINTS {
        meta.hashm_spares
            .push(r.peek_u32(spares + i * 4, "hashm_spares")?);
    }
    mark_array(
        r,
        spares,
        &meta.hashm_spares,
        "hashm_spares",
        "no spare pages",
    );
    let mapp = spares + HASH_MAX_SPLITPOINTS * 4;
    let nmaps = hash_max_bitmaps(page_size);
    for i in 0..nmaps {
        meta.hashm_mapp
            .push(r.peek_u32(mapp + i * 4, "hashm_mapp")?);
    }
    let used = (meta.hashm_nmaps as usize).min(nmaps);
    mark_array(r, mapp, &meta.hashm_mapp[..used], "hashm_mapp", "");
    if used < nmaps {
        r.mark(
            mapp + used * 4,
            (nmaps - used) * 4,
            &format!("hashm_mapp[{used}..{}]", nmaps - 1),
            "no bitmap page".to_string(),
        );
    }
    Ok(meta)
}

/// Each entry of a uint32 array up to its last non-zero one, then the zero rest as one span.
fn mark_array(r: &mut Reader, at: usize, values: &[u32], name: &str, rest: &str) {
    let last = values.iter().rposition(|&v| v != 0).map_or(0, |i| i + 1);
    for (i, v) in values.iter().enumerate().take(last) {
        r.mark(at + i * 4, 4, &format!("{name}[{i}]"), v.to_string());
    }
    if last < values.len() && !rest.is_empty() {
        r.mark(
            at + last * 4,
            (values.len() - last) * 4,
            &format!("{name}[{last}..{}]", values.len() - 1),
            rest.to_string(),
        );
    }
}

fn read_gin_meta(r: &mut Reader) -> Result<GinMetaPageData, ReadError> {
    let at = SIZE_OF_PAGE_HEADER;
    r.set_context(Region::TupleData, Some("GinMetaPageData".into()));
    let i64_at = |r: &mut Reader, off: usize, name: &str| -> Result<i64, ReadError> {
        // An int64 in the host's byte order (the high word first on big-endian).
        let v = r.peek_u64(off, name)? as i64;
        r.mark(off, 8, name, v.to_string());
        Ok(v)
    };
    Ok(GinMetaPageData {
        head: r.u32(at, "head")?,
        tail: r.u32(at + 4, "tail")?,
        tail_free_size: r.u32(at + 8, "tailFreeSize")?,
        n_pending_pages: r.u32(at + 12, "nPendingPages")?,
        n_pending_heap_tuples: i64_at(r, at + 16, "nPendingHeapTuples")?,
        n_total_pages: r.u32(at + 24, "nTotalPages")?,
        n_entry_pages: r.u32(at + 28, "nEntryPages")?,
        n_data_pages: r.u32(at + 32, "nDataPages")?,
        n_entries: i64_at(r, at + 40, "nEntries")?,
        gin_version: r.u32(at + 48, "ginVersion")? as i32,
    })
}

fn read_fsm(r: &mut Reader) -> Result<FsmPage, ReadError> {
    r.set_context(Region::TupleData, Some("FSMPageData".into()));
    let fp_next_slot = r.u32(SIZE_OF_PAGE_HEADER, "fp_next_slot")? as i32;
    let nodes = r.data().get(FSM_NODES_OFFSET..).unwrap_or_default();
    r.mark(
        FSM_NODES_OFFSET,
        nodes.len(),
        "fp_nodes",
        format!("{} nodes", nodes.len()),
    );
    Ok(FsmPage {
        fp_next_slot,
        nodes: nodes
            .iter()
            .enumerate()
            .filter(|(_, &v)| v != 0)
            .map(|(i, &v)| (i as u32, v))
            .collect(),
    })
}

fn read_vm(r: &mut Reader, blkno: u64) -> VmPage {
    let map = r.data().get(SIZE_OF_PAGE_HEADER..).unwrap_or_default();
    r.set_context(Region::TupleData, Some("visibility map".into()));
    r.mark(
        SIZE_OF_PAGE_HEADER,
        map.len(),
        "bits",
        "2 bits per heap block".into(),
    );
    // HEAPBLOCKS_PER_PAGE: four heap blocks per map byte.
    let per_page = (map.len() as u64) * 4;
    let first = blkno.saturating_mul(per_page);
    let mut blocks = Vec::new();
    for (i, byte) in map.iter().enumerate() {
        for slot in 0..4u64 {
            let bits = (byte >> (slot * 2)) & 0x03;
            if bits != 0 {
                let heap = first + (i as u64) * 4 + slot;
                blocks.push((heap, bits & 1 != 0, bits & 2 != 0));
            }
        }
    }
    VmPage {
        first_heap_block: first,
        blocks,
    }
}

/// Does the body of a page without special space hold a free space map tree?
/// Every upper node holds the maximum of its two children (the FSM may let an
/// upper node run stale-high, so a few excesses are tolerated; a deficit never).
pub(crate) fn looks_like_fsm(data: &[u8]) -> bool {
    let Some(nodes) = data.get(FSM_NODES_OFFSET..) else {
        return false;
    };
    // NonLeafNodesPerPage = BLCKSZ / 2 - 1.
    let non_leaf = (data.len() / 2).saturating_sub(1).min(nodes.len());
    let mut nonzero = 0usize;
    let mut stale = 0usize;
    for i in 0..non_leaf {
        let parent = nodes.get(i).copied().unwrap_or(0);
        let left = nodes.get(2 * i + 1).copied().unwrap_or(0);
        let right = nodes.get(2 * i + 2).copied().unwrap_or(0);
        let max = left.max(right);
        if parent < max {
            return false;
        }
        if parent != 0 {
            nonzero += 1;
            if parent != max {
                stale += 1;
            }
        }
    }
    nonzero > 0 && stale * 8 <= nonzero
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fsm_trees_are_recognised_and_bitmaps_are_not() {
        let mut page = vec![0u8; 8192];
        // Leaf 4095 (the first leaf) has category 228; its ancestors say so too.
        let mut node = 4095usize;
        loop {
            page[FSM_NODES_OFFSET + node] = 228;
            if node == 0 {
                break;
            }
            node = (node - 1) / 2;
        }
        assert!(looks_like_fsm(&page));
        let mut vm = vec![0u8; 8192];
        vm[24] = 0x03;
        vm[25] = 0x01;
        assert!(!looks_like_fsm(&vm));
        assert!(!looks_like_fsm(&[0u8; 8192]));
        assert!(!looks_like_fsm(&[0u8; 10]));
    }
}
