//! `export --wal`: the table's row versions that are gone from its pages
//! (pruned by VACUUM or a page's own pruning) but still in the WAL.
//!
//! One pass over the WAL (through the seam [`WalSet`], one segment in
//! memory at a time) keeps the tuples of the table's relfilenode and of its
//! TOAST relation's, and nothing else, so memory follows the table's
//! history in the WAL, not the WAL's size:
//!
//! - heap `INSERT` (block 0's data: `xl_heap_header` and the tuple's bytes
//!   from `t_bits` on), heap2 `MULTI_INSERT` (`xl_multi_insert_tuple` each)
//!   and the new tuple of `UPDATE`/`HOT_UPDATE` (with the prefix and suffix
//!   it shares with the old tuple taken from the old tuple, as
//!   `heap_xlog_update` does) give a tuple whose header is rebuilt: `t_xmin`
//!   the record's xid, `t_cid` 0, `t_ctid` its own block and offset;
//! - every full-page image of the relations (the images of any record:
//!   `FPI`, `FPI_FOR_HINT`, the first change after a checkpoint) gives the
//!   normal tuples of the page as they were after that record;
//! - `DELETE` and `UPDATE` set the xmax (and `t_ctid`, infomask bits) of
//!   the version they name, as redo would.
//!
//! A version is the same one when block, offset and `t_xmin` are equal: an
//! insert record and later images of it are one version (the latest copy's
//! header counts). Versions still on the current page (same block, offset
//! and `t_xmin` on a normal line pointer) are left to the page pass. Only
//! versions whose copy carries an xmax (a deleting or updating transaction
//! the WAL names) are handed back: one whose end is not in the WAL read is
//! counted, not guessed. Each is handed back as a page holding that one
//! tuple at its own offset, so export decodes, judges (pg_xact) and writes
//! it exactly as it does a page's tuples; the TOAST chunk tuples found are
//! handed back packed into pages for the TOAST store.

use crate::model::postgres::wal::{
    RM_HEAP2_ID, RM_HEAP_ID, XLHL_KEYS_UPDATED, XLHL_XMAX_EXCL_LOCK, XLHL_XMAX_IS_MULTI,
    XLHL_XMAX_KEYSHR_LOCK, XLHL_XMAX_LOCK_ONLY, XLH_DELETE_IS_PARTITION_MOVE,
    XLH_UPDATE_PREFIX_FROM_OLD, XLH_UPDATE_SUFFIX_FROM_OLD, XLOG_HEAP2_MULTI_INSERT,
    XLOG_HEAP_DELETE, XLOG_HEAP_HOT_UPDATE, XLOG_HEAP_INIT_PAGE, XLOG_HEAP_INSERT,
    XLOG_HEAP_OPMASK, XLOG_HEAP_UPDATE,
};
use crate::reader::Endian;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::engine::wal::WalSet;
use crate::error::Error;
use crate::model::postgres::flags::{
    HEAP_HOT_UPDATED, HEAP_KEYS_UPDATED, HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK,
    HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI, HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY,
};
use crate::model::postgres::wal::{BlockImage, WalProblem, WalRecord};
use crate::parse::postgres::pglz;
use crate::parse::postgres::wal::Item;
use crate::source::{RelationFileName, DEFAULT_SEGMENT_BYTES};

/// `SizeofHeapTupleHeader`, `SizeOfHeapHeader`, `SizeOfMultiInsertTuple`.
const SIZEOF_HEAP_TUPLE_HEADER: usize = 23;
const SIZE_OF_HEAP_HEADER: usize = 5;
const SIZE_OF_MULTI_INSERT_TUPLE: usize = 7;
/// `SizeOfPageHeaderData`, `sizeof(ItemIdData)`.
const PAGE_HEADER: usize = 24;
const ITEM_ID: usize = 4;
/// `MovedPartitionsOffsetNumber`.
const MOVED_PARTITIONS_OFFSET: u16 = 0xFFFD;

/// The table whose history is read: its relation file nodes (the main
/// fork's), in the database `db`.
#[derive(Clone, Debug)]
pub(crate) struct WalTable {
    /// `--wal`: segment files, pg_wal or archive directories, a data directory.
    pub(crate) paths: Vec<PathBuf>,
    /// The database's OID.
    pub(crate) db: u32,
    /// The table's relfilenode.
    pub(crate) rel: u32,
    /// Its TOAST relation's relfilenode.
    pub(crate) toast_rel: Option<u32>,
}

impl WalTable {
    /// The TOAST relfilenode of `--table`'s TOAST files (from the first file's name).
    pub(crate) fn toast_node(toast: Option<&[PathBuf]>) -> Option<u32> {
        let first = toast?.first()?;
        let name = first.file_name()?.to_str()?;
        RelationFileName::parse(name).and_then(|r| u32::try_from(r.relfilenode).ok())
    }
}

/// One tuple version: its bytes (header rebuilt or copied) and the record
/// it was first seen in.
struct Tuple {
    bytes: Vec<u8>,
    lsn: u64,
}

/// The versions of one relation: by (block, offset, t_xmin), and the latest
/// one at each (block, offset), as redo would find it there.
#[derive(Default)]
struct Versions {
    all: BTreeMap<(u32, u16, u32), Tuple>,
    latest: BTreeMap<(u32, u16), u32>,
}

impl Versions {
    /// Keep `bytes` as the version at (blk, off): a new one, or the newer
    /// copy of one seen before (which keeps its first LSN).
    fn put(&mut self, blk: u32, off: u16, bytes: Vec<u8>, lsn: u64) {
        let xmin = u32_at(&bytes, 0).unwrap_or(0);
        self.latest.insert((blk, off), xmin);
        match self.all.get_mut(&(blk, off, xmin)) {
            Some(t) => t.bytes = bytes,
            None => {
                self.all.insert((blk, off, xmin), Tuple { bytes, lsn });
            }
        }
    }

    /// The latest version at (blk, off).
    fn latest_mut(&mut self, blk: u32, off: u16) -> Option<&mut Tuple> {
        let xmin = *self.latest.get(&(blk, off))?;
        self.all.get_mut(&(blk, off, xmin))
    }

    /// A page image of block `blk`: its normal tuples are the latest
    /// versions there; the offsets it has no tuple at have none.
    fn image(&mut self, blk: u32, page: &[u8], lsn: u64) {
        self.init(blk);
        for (off, t) in page_tuples(page) {
            self.put(blk, off, t.to_vec(), lsn);
        }
    }

    /// A page made new (`XLOG_HEAP_INIT_PAGE`): nothing is there any more.
    fn init(&mut self, blk: u32) {
        let offsets: Vec<(u32, u16)> = self
            .latest
            .range((blk, 0)..=(blk, u16::MAX))
            .map(|(k, _)| *k)
            .collect();
        for k in offsets {
            self.latest.remove(&k);
        }
    }
}

/// What the WAL gave back.
#[derive(Default)]
pub(crate) struct Found {
    /// Versions gone from the pages, whose end the WAL names, in (block,
    /// offset, first LSN) order: block, offset, LSN, tuple bytes.
    pub(crate) versions: Vec<(u32, u16, u64, Vec<u8>)>,
    /// The TOAST chunk tuples found, packed into pages.
    pub(crate) toast_pages: Vec<Vec<u8>>,
    /// Damage met in the WAL (each named; reading went on where it could).
    pub(crate) problems: Vec<WalProblem>,
    /// Records that touch the table or its TOAST relation.
    pub(crate) records: u64,
    /// WAL segments read.
    pub(crate) segments: usize,
    /// Versions gone from the pages whose copies carry no xmax: not handed back.
    pub(crate) no_end: u64,
    /// Versions still on the pages (left to the page pass).
    pub(crate) on_pages: u64,
    /// Images (lz4, zstd) and tuples (an update's old tuple unknown, a
    /// tuple too large) that could not be rebuilt.
    pub(crate) unbuilt: u64,
}

/// Read the WAL of `table` and return the versions gone from the pages of
/// `segments` (the table's current files).
pub(crate) fn collect(
    table: &WalTable,
    segments: &[PathBuf],
    block_size: usize,
) -> Result<Found, Error> {
    let set = WalSet::open(&table.paths, None)?;
    let mut pass = Pass {
        table,
        block_size,
        heap: Versions::default(),
        toast: Versions::default(),
        found: Found::default(),
    };
    pass.found.segments = set.segments(None, None).len();
    set.for_each(None, None, &mut |item| match item {
        Item::Record(rec, bytes) => pass.record(rec, bytes),
        Item::Problem(p) => pass.found.problems.push(p),
    });
    let Pass {
        heap,
        toast,
        mut found,
        ..
    } = pass;
    let mut current = CurrentPages::new(segments, block_size);
    for ((blk, off, xmin), t) in heap.all {
        if current.has(blk, off, xmin) {
            found.on_pages += 1;
            continue;
        }
        let xmax = u32_at(&t.bytes, 4).unwrap_or(0);
        let infomask = u16_at(&t.bytes, 20).unwrap_or(0);
        if xmax == 0 || infomask & HEAP_XMAX_INVALID != 0 {
            found.no_end += 1;
            continue;
        }
        found.versions.push((blk, off, t.lsn, t.bytes));
    }
    found.toast_pages = pack(toast.all.into_values().map(|t| t.bytes), block_size);
    Ok(found)
}

/// The WAL pass's state.
struct Pass<'a> {
    table: &'a WalTable,
    block_size: usize,
    heap: Versions,
    toast: Versions,
    found: Found,
}

impl Pass<'_> {
    /// Which of the two relations a block reference is of (main fork only).
    fn which<'r>(&self, rec: &'r WalRecord, id: u8) -> Option<(bool, u32, Option<&'r BlockImage>)> {
        let b = rec.blocks.iter().find(|b| b.id == id)?;
        if b.fork != 0 || b.rel.db != self.table.db {
            return None;
        }
        let toast = if b.rel.rel == self.table.rel {
            false
        } else if Some(b.rel.rel) == self.table.toast_rel {
            true
        } else {
            return None;
        };
        Some((toast, b.blk, b.image.as_ref()))
    }

    fn versions(&mut self, toast: bool) -> &mut Versions {
        if toast {
            &mut self.toast
        } else {
            &mut self.heap
        }
    }

    fn record(&mut self, rec: &WalRecord, bytes: &[u8]) {
        let mut ours = false;
        // Images first: the page as the record left it.
        for b in &rec.blocks {
            let Some((toast, blk, image)) = self.which(rec, b.id) else {
                continue;
            };
            ours = true;
            let Some(image) = image else { continue };
            match restore(image, bytes, self.block_size) {
                Some(page) => self.versions(toast).image(blk, &page, rec.lsn),
                None => self.found.unbuilt += 1,
            }
        }
        if !ours {
            return;
        }
        self.found.records += 1;
        let main = bytes.get(rec.main_data.clone()).unwrap_or_default();
        let op = rec.info & XLOG_HEAP_OPMASK;
        let init = rec.info & XLOG_HEAP_INIT_PAGE != 0;
        match (rec.rmid, op) {
            (RM_HEAP_ID, XLOG_HEAP_INSERT) => self.insert(rec, bytes, main, init),
            (RM_HEAP_ID, XLOG_HEAP_DELETE) => self.delete(rec, main),
            (RM_HEAP_ID, XLOG_HEAP_UPDATE | XLOG_HEAP_HOT_UPDATE) => {
                self.update(rec, bytes, main, init, op == XLOG_HEAP_HOT_UPDATE)
            }
            (RM_HEAP2_ID, XLOG_HEAP2_MULTI_INSERT) => self.multi_insert(rec, bytes, main, init),
            _ => {}
        }
    }

    /// Block `id`'s data, unless it has an image (then the image said it all).
    fn block_data<'b>(&self, rec: &WalRecord, bytes: &'b [u8], id: u8) -> Option<&'b [u8]> {
        let b = rec.blocks.iter().find(|b| b.id == id)?;
        if b.image.is_some() || b.data.is_empty() {
            return None;
        }
        bytes.get(b.data.clone())
    }

    /// `xl_heap_insert` { offnum, flags }; block 0: `xl_heap_header` and the tuple.
    fn insert(&mut self, rec: &WalRecord, bytes: &[u8], main: &[u8], init: bool) {
        let Some((toast, blk, _)) = self.which(rec, 0) else {
            return;
        };
        if init {
            self.versions(toast).init(blk);
        }
        let (Some(off), Some(data)) = (u16_at(main, 0), self.block_data(rec, bytes, 0)) else {
            return;
        };
        let Some(hdr) = data.get(..SIZE_OF_HEAP_HEADER) else {
            return;
        };
        let tuple = build(
            rec.xid,
            0,
            blk,
            off,
            [hdr[0], hdr[1]],
            [hdr[2], hdr[3]],
            hdr[4],
            &data[SIZE_OF_HEAP_HEADER..],
        );
        self.keep(toast, blk, off, tuple, rec.lsn);
    }

    /// A rebuilt tuple kept, if a page could hold it.
    fn keep(&mut self, toast: bool, blk: u32, off: u16, tuple: Vec<u8>, lsn: u64) {
        if off == 0 || fits(off, tuple.len(), self.block_size).is_none() {
            self.found.unbuilt += 1;
            return;
        }
        self.versions(toast).put(blk, off, tuple, lsn);
    }

    /// `xl_heap_multi_insert` { flags, ntuples, offsets[] (none with
    /// INIT_PAGE) }; block 0: SHORTALIGNed `xl_multi_insert_tuple`s and data.
    fn multi_insert(&mut self, rec: &WalRecord, bytes: &[u8], main: &[u8], init: bool) {
        let Some((toast, blk, _)) = self.which(rec, 0) else {
            return;
        };
        if init {
            self.versions(toast).init(blk);
        }
        let Some(n) = u16_at(main, 2) else { return };
        let Some(data) = self.block_data(rec, bytes, 0) else {
            return;
        };
        let mut at = 0usize;
        for i in 0..n {
            let off = if init {
                i + 1
            } else {
                match u16_at(main, 4 + 2 * usize::from(i)) {
                    Some(o) => o,
                    None => return,
                }
            };
            at = at.next_multiple_of(2);
            let Some(h) = data.get(at..at + SIZE_OF_MULTI_INSERT_TUPLE) else {
                return;
            };
            let len = usize::from(Endian::Little.read_u16(h).unwrap_or(0));
            let start = at + SIZE_OF_MULTI_INSERT_TUPLE;
            let Some(body) = data.get(start..start + len) else {
                return;
            };
            at = start + len;
            let tuple = build(rec.xid, 0, blk, off, [h[2], h[3]], [h[4], h[5]], h[6], body);
            self.keep(toast, blk, off, tuple, rec.lsn);
        }
    }

    /// `xl_heap_delete` { xmax, offnum, infobits_set, flags }.
    fn delete(&mut self, rec: &WalRecord, main: &[u8]) {
        let Some((toast, blk, _)) = self.which(rec, 0) else {
            return;
        };
        let (Some(xmax), Some(off), Some(&bits), Some(&flags)) =
            (u32_at(main, 0), u16_at(main, 4), main.get(6), main.get(7))
        else {
            return;
        };
        let to = if flags & XLH_DELETE_IS_PARTITION_MOVE != 0 {
            (blk, MOVED_PARTITIONS_OFFSET)
        } else {
            (blk, off)
        };
        if let Some(t) = self.versions(toast).latest_mut(blk, off) {
            set_xmax(&mut t.bytes, xmax, bits, to, false);
        }
    }

    /// `xl_heap_update` { old_xmax, old_offnum, old_infobits_set, flags,
    /// new_xmax, new_offnum }; block 0 the new page, block 1 the old one
    /// when it is another.
    fn update(&mut self, rec: &WalRecord, bytes: &[u8], main: &[u8], init: bool, hot: bool) {
        let Some((toast, new_blk, _)) = self.which(rec, 0) else {
            return;
        };
        let old_blk = match self.which(rec, 1) {
            Some((_, b, _)) => b,
            None => new_blk,
        };
        let (
            Some(old_xmax),
            Some(old_off),
            Some(&bits),
            Some(&flags),
            Some(new_xmax),
            Some(new_off),
        ) = (
            u32_at(main, 0),
            u16_at(main, 4),
            main.get(6),
            main.get(7),
            u32_at(main, 8),
            u16_at(main, 12),
        )
        else {
            return;
        };
        // The old tuple as it was, for the prefix and suffix the new one shares.
        let old = self
            .versions(toast)
            .latest_mut(old_blk, old_off)
            .map(|t| t.bytes.clone());
        if let Some(t) = self.versions(toast).latest_mut(old_blk, old_off) {
            set_xmax(&mut t.bytes, old_xmax, bits, (new_blk, new_off), hot);
        }
        if init {
            self.versions(toast).init(new_blk);
        }
        let Some(mut data) = self.block_data(rec, bytes, 0) else {
            return;
        };
        let mut prefix = 0usize;
        let mut suffix = 0usize;
        if flags & XLH_UPDATE_PREFIX_FROM_OLD != 0 {
            let Some(p) = u16_at(data, 0) else { return };
            prefix = usize::from(p);
            data = &data[2..];
        }
        if flags & XLH_UPDATE_SUFFIX_FROM_OLD != 0 {
            let Some(s) = u16_at(data, 0) else { return };
            suffix = usize::from(s);
            data = &data[2..];
        }
        let Some(hdr) = data.get(..SIZE_OF_HEAP_HEADER) else {
            return;
        };
        let rest = &data[SIZE_OF_HEAP_HEADER..];
        let body = if prefix + suffix == 0 {
            rest.to_vec()
        } else {
            // heap_xlog_update: bitmap and padding, the prefix of the old
            // tuple's data, the record's bytes, the suffix of the old tuple.
            let Some(old) = old else {
                self.found.unbuilt += 1;
                return;
            };
            let t_hoff = usize::from(hdr[4]);
            let head = t_hoff.saturating_sub(SIZEOF_HEAP_TUPLE_HEADER);
            let old_hoff = usize::from(*old.get(22).unwrap_or(&0));
            let (Some(bitmap), Some(middle), Some(pre), Some(suf)) = (
                rest.get(..head),
                rest.get(head..),
                old.get(old_hoff..old_hoff + prefix),
                old.len().checked_sub(suffix).and_then(|s| old.get(s..)),
            ) else {
                self.found.unbuilt += 1;
                return;
            };
            [bitmap, pre, middle, suf].concat()
        };
        let tuple = build(
            rec.xid,
            new_xmax,
            new_blk,
            new_off,
            [hdr[0], hdr[1]],
            [hdr[2], hdr[3]],
            hdr[4],
            &body,
        );
        self.keep(toast, new_blk, new_off, tuple, rec.lsn);
    }
}

/// A tuple's bytes: the header `heap_xlog_insert` builds (xmin the
/// record's xid, cmin 0, ctid its own place) and the bytes from `t_bits` on.
#[allow(clippy::too_many_arguments)]
fn build(
    xmin: u32,
    xmax: u32,
    blk: u32,
    off: u16,
    infomask2: [u8; 2],
    infomask: [u8; 2],
    t_hoff: u8,
    rest: &[u8],
) -> Vec<u8> {
    let mut t = Vec::with_capacity(SIZEOF_HEAP_TUPLE_HEADER + rest.len());
    t.extend_from_slice(&xmin.to_le_bytes());
    t.extend_from_slice(&xmax.to_le_bytes());
    t.extend_from_slice(&0u32.to_le_bytes());
    t.extend_from_slice(&ctid(blk, off));
    t.extend_from_slice(&infomask2);
    t.extend_from_slice(&infomask);
    t.push(t_hoff);
    t.extend_from_slice(rest);
    t
}

/// `ItemPointerData`: bi_hi, bi_lo, ip_posid.
fn ctid(blk: u32, off: u16) -> [u8; 6] {
    let hi = ((blk >> 16) as u16).to_le_bytes();
    let lo = (blk as u16).to_le_bytes();
    let o = off.to_le_bytes();
    [hi[0], hi[1], lo[0], lo[1], o[0], o[1]]
}

/// What `heap_xlog_delete`/`heap_xlog_update` do to the old tuple: the
/// xmax bits cleared and `infobits_set` applied, xmax and ctid set.
fn set_xmax(t: &mut [u8], xmax: u32, bits: u8, to: (u32, u16), hot: bool) {
    if t.len() < SIZEOF_HEAP_TUPLE_HEADER {
        return;
    }
    let (Some(mut infomask), Some(mut infomask2)) = (u16_at(t, 20), u16_at(t, 18)) else {
        return;
    };
    infomask &= !(HEAP_XMAX_COMMITTED
        | HEAP_XMAX_INVALID
        | HEAP_XMAX_IS_MULTI
        | HEAP_XMAX_LOCK_ONLY
        | HEAP_XMAX_EXCL_LOCK
        | HEAP_XMAX_KEYSHR_LOCK);
    infomask2 &= !(HEAP_KEYS_UPDATED | HEAP_HOT_UPDATED);
    if bits & XLHL_XMAX_IS_MULTI != 0 {
        infomask |= HEAP_XMAX_IS_MULTI;
    }
    if bits & XLHL_XMAX_LOCK_ONLY != 0 {
        infomask |= HEAP_XMAX_LOCK_ONLY;
    }
    if bits & XLHL_XMAX_EXCL_LOCK != 0 {
        infomask |= HEAP_XMAX_EXCL_LOCK;
    }
    if bits & XLHL_XMAX_KEYSHR_LOCK != 0 {
        infomask |= HEAP_XMAX_KEYSHR_LOCK;
    }
    if bits & XLHL_KEYS_UPDATED != 0 {
        infomask2 |= HEAP_KEYS_UPDATED;
    }
    if hot {
        infomask2 |= HEAP_HOT_UPDATED;
    }
    t[4..8].copy_from_slice(&xmax.to_le_bytes());
    t[12..18].copy_from_slice(&ctid(to.0, to.1));
    t[18..20].copy_from_slice(&infomask2.to_le_bytes());
    t[20..22].copy_from_slice(&infomask.to_le_bytes());
}

/// A full-page image as redo restores it (`RestoreBlockImage`): pglz
/// decompressed, the hole put back as zeros. `None` when it cannot be
/// (lz4, zstd, sizes that do not add up).
fn restore(image: &BlockImage, bytes: &[u8], block_size: usize) -> Option<Vec<u8>> {
    let data = bytes.get(image.data.clone())?;
    let hole_off = usize::from(image.hole_offset);
    let hole_len = usize::from(image.hole_length);
    let raw_len = block_size.checked_sub(hole_len)?;
    let body = match image.compression() {
        None => data.to_vec(),
        Some("pglz") => pglz::decompress(data, raw_len).ok()?,
        Some(_) => return None,
    };
    if body.len() != raw_len || hole_off > raw_len {
        return None;
    }
    let mut page = vec![0u8; block_size];
    page[..hole_off].copy_from_slice(&body[..hole_off]);
    page[hole_off + hole_len..].copy_from_slice(&body[hole_off..]);
    Some(page)
}

/// The normal tuples of a heap page: (offset number, tuple bytes). Line
/// pointers outside the page are passed over.
fn page_tuples(page: &[u8]) -> Vec<(u16, &[u8])> {
    let size = page.len();
    let (Some(lower), Some(upper), Some(special)) =
        (u16_at(page, 12), u16_at(page, 14), u16_at(page, 16))
    else {
        return Vec::new();
    };
    let (lower, upper, special) = (usize::from(lower), usize::from(upper), usize::from(special));
    if lower < PAGE_HEADER || lower > upper || upper > special || special > size {
        return Vec::new();
    }
    let n = (lower - PAGE_HEADER) / ITEM_ID;
    let mut out = Vec::new();
    for i in 0..n {
        let Some(lp) = u32_at(page, PAGE_HEADER + i * ITEM_ID) else {
            break;
        };
        let off = (lp & 0x7FFF) as usize;
        let flags = (lp >> 15) & 3;
        let len = (lp >> 17) as usize;
        if flags != 1 || len < SIZEOF_HEAP_TUPLE_HEADER {
            continue;
        }
        if let Some(t) = page.get(off..off + len) {
            out.push((i as u16 + 1, t));
        }
    }
    out
}

/// Where a tuple of `len` bytes goes on a page holding it alone at offset
/// `off` (the line pointers before it unused): its start, if it fits.
fn fits(off: u16, len: usize, block_size: usize) -> Option<usize> {
    let lower = PAGE_HEADER + usize::from(off) * ITEM_ID;
    let start = block_size.checked_sub(len)? & !7;
    (len <= 0x7FFF && start >= lower).then_some(start)
}

/// A page header and line pointers for tuples placed at `starts`.
fn page_with(block_size: usize, items: &[(u16, usize, usize)], upper: usize) -> Vec<u8> {
    let mut page = vec![0u8; block_size];
    let maxoff = items.iter().map(|i| i.0).max().unwrap_or(0);
    let lower = PAGE_HEADER + usize::from(maxoff) * ITEM_ID;
    page[12..14].copy_from_slice(&(lower as u16).to_le_bytes());
    page[14..16].copy_from_slice(&(upper as u16).to_le_bytes());
    page[16..18].copy_from_slice(&(block_size as u16).to_le_bytes());
    // pd_pagesize_version: the size and layout version 4.
    page[18..20].copy_from_slice(&((block_size as u16) | 4).to_le_bytes());
    for &(off, start, len) in items {
        let lp = (start as u32) | (1 << 15) | ((len as u32) << 17);
        let at = PAGE_HEADER + (usize::from(off) - 1) * ITEM_ID;
        page[at..at + ITEM_ID].copy_from_slice(&lp.to_le_bytes());
    }
    page
}

/// A page holding `tuple` alone, at offset `off` (so its ctid reads as it
/// did): what export decodes a version from.
pub(crate) fn one_tuple_page(off: u16, tuple: &[u8], block_size: usize) -> Option<Vec<u8>> {
    let start = fits(off, tuple.len(), block_size)?;
    let mut page = page_with(block_size, &[(off, start, tuple.len())], start);
    page[start..start + tuple.len()].copy_from_slice(tuple);
    Some(page)
}

/// Tuples packed into as few pages as they fill.
fn pack(tuples: impl Iterator<Item = Vec<u8>>, block_size: usize) -> Vec<Vec<u8>> {
    let mut pages = Vec::new();
    let mut items: Vec<(u16, usize, usize)> = Vec::new();
    let mut held: Vec<Vec<u8>> = Vec::new();
    let mut upper = block_size;
    let flush = |items: &mut Vec<(u16, usize, usize)>,
                 held: &mut Vec<Vec<u8>>,
                 upper: &mut usize,
                 pages: &mut Vec<Vec<u8>>| {
        if items.is_empty() {
            return;
        }
        let mut page = page_with(block_size, items, *upper);
        for (&(_, start, len), t) in items.iter().zip(held.iter()) {
            page[start..start + len].copy_from_slice(t);
        }
        pages.push(page);
        items.clear();
        held.clear();
        *upper = block_size;
    };
    for t in tuples {
        if fits(1, t.len(), block_size).is_none() {
            continue;
        }
        let place = |items: &Vec<(u16, usize, usize)>, upper: usize| {
            let start = upper.checked_sub(t.len())? & !7;
            let lower = PAGE_HEADER + (items.len() + 1) * ITEM_ID;
            (start >= lower).then_some(start)
        };
        let start = match place(&items, upper) {
            Some(s) => s,
            None => {
                flush(&mut items, &mut held, &mut upper, &mut pages);
                match place(&items, upper) {
                    Some(s) => s,
                    None => continue,
                }
            }
        };
        items.push((items.len() as u16 + 1, start, t.len()));
        held.push(t);
        upper = start;
    }
    flush(&mut items, &mut held, &mut upper, &mut pages);
    pages
}

/// The table's current pages, read block by block (read-only) to tell
/// which versions are still there.
struct CurrentPages<'a> {
    segments: &'a [PathBuf],
    block_size: usize,
    /// The block read last and the (offset, t_xmin) of its normal tuples.
    cached: Option<(u32, Vec<(u16, u32)>)>,
}

impl<'a> CurrentPages<'a> {
    fn new(segments: &'a [PathBuf], block_size: usize) -> Self {
        CurrentPages {
            segments,
            block_size,
            cached: None,
        }
    }

    fn has(&mut self, blk: u32, off: u16, xmin: u32) -> bool {
        if self.cached.as_ref().is_none_or(|(b, _)| *b != blk) {
            let tuples = self
                .read(blk)
                .map(|page| {
                    page_tuples(&page)
                        .into_iter()
                        .map(|(o, t)| (o, u32_at(t, 0).unwrap_or(0)))
                        .collect()
                })
                .unwrap_or_default();
            self.cached = Some((blk, tuples));
        }
        self.cached
            .as_ref()
            .is_some_and(|(_, ts)| ts.contains(&(off, xmin)))
    }

    /// Block `blk` of the relation, if its file holds it whole.
    fn read(&self, blk: u32) -> Option<Vec<u8>> {
        let per_segment = DEFAULT_SEGMENT_BYTES / self.block_size as u64;
        let segno = u64::from(blk) / per_segment;
        let path = self
            .segments
            .iter()
            .enumerate()
            .find(|(i, p)| segment_number(p).unwrap_or(*i as u64) == segno)?
            .1;
        let file = crate::source::open_file(path).ok()?;
        let mut page = vec![0u8; self.block_size];
        let at = (u64::from(blk) % per_segment) * self.block_size as u64;
        let n = crate::source::read_at(&file, &mut page, at).ok()?;
        (n == self.block_size).then_some(page)
    }
}

/// A relation file's segment number (`16384.2` → 2, `16384` → 0).
fn segment_number(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    RelationFileName::parse(name).map(|r| r.segment.unwrap_or(0))
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Endian::Little.read_u16(b.get(at..)?)
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Endian::Little.read_u32(b.get(at..)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tuple_page_reads_back_its_tuple_at_its_offset() {
        let t = build(700, 0, 3, 5, [3, 0], [2, 8], 24, &[0, 1, 2, 3, 4, 5, 6]);
        let page = one_tuple_page(5, &t, 8192).expect("fits");
        let got = page_tuples(&page);
        assert_eq!(got, vec![(5, t.as_slice())]);
        assert_eq!(u32_at(&t, 0), Some(700));
        assert_eq!(&t[12..18], &[0, 0, 3, 0, 5, 0]);
    }

    #[test]
    fn packed_pages_hold_every_tuple_once() {
        let tuples: Vec<Vec<u8>> = (0..10u8).map(|i| vec![i; 2000]).collect();
        let pages = pack(tuples.clone().into_iter(), 8192);
        assert_eq!(pages.len(), 3);
        let back: Vec<Vec<u8>> = pages
            .iter()
            .flat_map(|p| page_tuples(p).into_iter().map(|(_, t)| t.to_vec()))
            .collect();
        assert_eq!(back, tuples);
    }

    #[test]
    fn a_tuple_too_large_for_a_page_is_refused() {
        assert!(one_tuple_page(1, &vec![0u8; 9000], 8192).is_none());
        assert!(one_tuple_page(291, &vec![0u8; 8000], 8192).is_none());
    }

    #[test]
    fn delete_sets_xmax_and_ctid_and_clears_xmax_invalid() {
        let mut t = build(
            700,
            0,
            0,
            2,
            [3, 0],
            HEAP_XMAX_INVALID.to_le_bytes(),
            24,
            &[],
        );
        set_xmax(&mut t, 800, 0, (0, 2), false);
        assert_eq!(u32_at(&t, 4), Some(800));
        assert_eq!(u16_at(&t, 20).unwrap() & HEAP_XMAX_INVALID, 0);
        assert_eq!(&t[12..18], &[0, 0, 0, 0, 2, 0]);
    }
}
