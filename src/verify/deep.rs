//! `verify --deep`: amcheck's cross-page checks without a server, over the
//! files of one relation. The checks are in [`crate::parse::postgres::amcheck`];
//! this module reads the pages, one at a time:
//!
//! * a btree index (block 0 its metapage): a first pass keeps a few
//!   integers per block ([`BtSummary`]: siblings, level, flags), the sibling
//!   links, levels and the metapage's roots are checked over them, then a
//!   second pass checks each page's downlinks and, with `--columns`, its
//!   keys (a leaf's last key against its right sibling's first, read when
//!   needed, past half-dead and deleted siblings); every page of the tree
//!   but the root must have a downlink, except a half-dead leaf (noted) and
//!   the right half of an incomplete split (not judged when a page that is
//!   not new could not be read as a btree page, or the index has more
//!   segment files);
//! * a heap (main fork): each page's tuples against pg_control's nextXid
//!   and oldestXid (when the relation lies under a data directory), its HOT
//!   chains and redirects, the visibility map's bits (`_vm` beside it) and
//!   the free space map's value (`_fsm`, a note only).
//!
//! Memory: the summaries (16 bytes a block) and a downlink flag a block,
//! two pages, one visibility map and one FSM page at a time.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::Error;
use crate::model::postgres::PageKind;
use crate::model::Problem;
use crate::parse::postgres::amcheck::{
    self, bt_edge_keys, bt_meta, bt_summary, BtSummary, Finding, HeapContext, KeyType, XidHorizon,
};
use crate::parse::postgres::control::{parse_control_file, ControlFile};
use crate::parse::postgres::page::{detect_kind, is_new_page, peek_header};
use crate::reader::{Endian, Reader};
use crate::source::{open_file, Fork, RelationFileName};

use super::files::input_len;
use crate::source::read_at;

/// What `--deep` knows beyond the file: the index key types (`--columns`)
/// and the cluster's pg_control, when one was read.
pub(crate) struct Deep<'a> {
    pub key_types: Option<&'a [KeyType]>,
    pub control: Option<&'a ControlFile>,
}

fn kind(page: &[u8]) -> PageKind {
    // The deep checks read little-endian pages only: a big-endian host's
    // page is left to the structural pass, not misread as damaged.
    if crate::parse::postgres::detect_endian(page) == Endian::Big {
        return PageKind::Unknown;
    }
    let r = Reader::new(page, Endian::Little);
    match peek_header(&r) {
        Ok(h) => detect_kind(&h, page, Endian::Little),
        Err(_) => PageKind::Unknown,
    }
}

/// One block read whole, `None` past the end or when unreadable (the
/// structural pass reports what cannot be read).
fn read_block(file: &File, blk: u64, buf: &mut [u8]) -> Option<()> {
    let n = read_at(file, buf, blk.checked_mul(buf.len() as u64)?).ok()?;
    (n == buf.len()).then_some(())
}

/// What the deep checks of a file tell as they go.
pub(crate) enum DeepEvent {
    /// A finding, with its block number.
    Found(u64, Problem),
    /// So many more bytes of the file's pass are done (for a progress bar:
    /// [`TICK_BLOCKS`] blocks at a time, a btree's two passes half each).
    Read(u64),
}

/// Blocks between two [`DeepEvent::Read`]s.
const TICK_BLOCKS: u64 = 1024;

/// [`DeepEvent::Read`] after every [`TICK_BLOCKS`]th block `b` of a pass,
/// `share` of each block's bytes counted (a btree's passes: half).
fn tick(
    b: u64,
    block_size: usize,
    share: u64,
    emit: &mut dyn FnMut(DeepEvent) -> Result<(), Error>,
) -> Result<(), Error> {
    if (b + 1).is_multiple_of(TICK_BLOCKS) {
        emit(DeepEvent::Read(TICK_BLOCKS * block_size as u64 / share))?;
    }
    Ok(())
}

/// The deep checks of one relation file (`first_blkno`: its first block's
/// number); every finding goes to `emit` with its block number, and the
/// pass's progress as it goes.
pub(crate) fn check_file(
    path: &Path,
    first_blkno: u64,
    block_size: usize,
    deep: &Deep,
    emit: &mut dyn FnMut(DeepEvent) -> Result<(), Error>,
) -> Result<(), Error> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let Some(rel) = RelationFileName::parse(name) else {
        return Ok(());
    };
    if rel.fork != Fork::Main {
        return Ok(());
    }
    let Ok(file) = open_file(path) else {
        return Ok(());
    };
    let Ok(len) = file.metadata().and_then(|m| input_len(&file, &m)) else {
        return Ok(());
    };
    let blocks = len / block_size as u64;
    let mut page = vec![0u8; block_size];
    if blocks == 0 {
        return Ok(());
    }
    if first_blkno == 0
        && read_block(&file, 0, &mut page).is_some()
        && bt_meta(&page).is_some()
        && kind(&page) == PageKind::Btree
    {
        // An index past one segment file: its other pages' downlinks are
        // not read here, so the missing-downlink check would be unfounded.
        let whole = !path
            .with_file_name(format!("{}.1", rel.relfilenode))
            .exists();
        return btree(&file, blocks, block_size, whole, deep, emit);
    }
    heap(
        path,
        &rel,
        &file,
        first_blkno,
        blocks,
        block_size,
        deep,
        emit,
    )
}

fn btree(
    file: &File,
    blocks: u64,
    block_size: usize,
    whole: bool,
    deep: &Deep,
    emit: &mut dyn FnMut(DeepEvent) -> Result<(), Error>,
) -> Result<(), Error> {
    let mut page = vec![0u8; block_size];
    let mut summaries: Vec<Option<BtSummary>> = Vec::new();
    let mut meta = None;
    // A page that is neither new nor a readable btree page may have held
    // downlinks: then no page is said to lack one.
    let mut unknown = false;
    for b in 0..blocks {
        tick(b, block_size, 2, emit)?;
        let read = read_block(file, b, &mut page).is_some();
        let s = (read && !is_new_page(&page) && kind(&page) == PageKind::Btree)
            .then(|| bt_summary(&page))
            .flatten();
        unknown |= s.is_none() && !(read && is_new_page(&page));
        if b == 0 {
            meta = bt_meta(&page);
        }
        summaries.push(s);
    }
    let mut findings: Vec<Finding> = amcheck::btree_structure(meta.as_ref(), &summaries);
    findings.sort_by_key(|(b, _)| *b);
    let mut findings = findings.into_iter().peekable();
    let mut right = vec![0u8; block_size];
    // What the internal pages point at, and the half-dead leaves' top parent
    // links, for the missing-downlink check after the pass.
    let mut has_downlink = vec![false; summaries.len()];
    let mut top_parents = Vec::new();
    for b in 0..blocks {
        tick(b, block_size, 2, emit)?;
        // The structure's findings of blocks up to this one first.
        while let Some((fb, p)) = findings.next_if(|(fb, _)| *fb <= b) {
            emit(DeepEvent::Found(fb, p))?;
        }
        let Some(s) = summaries[b as usize] else {
            continue;
        };
        if read_block(file, b, &mut page).is_none() {
            continue;
        }
        for child in amcheck::bt_downlinks(&page) {
            if let Some(slot) = has_downlink.get_mut(child as usize) {
                *slot = true;
            }
        }
        if let Some(link) = amcheck::bt_top_parent(&page) {
            top_parents.push((b, link));
        }
        for (fb, p) in amcheck::btree_items(&page, b, &summaries, deep.key_types) {
            emit(DeepEvent::Found(fb, p))?;
        }
        let Some(types) = deep.key_types else {
            continue;
        };
        // The right sibling, past half-dead and deleted pages as amcheck
        // steps past them (at most once around the file).
        let mut next = s.btpo_next;
        for _ in 0..blocks {
            match summaries.get(next as usize).copied().flatten() {
                Some(r) if next != 0 && r.ignored() => next = r.btpo_next,
                _ => break,
            }
        }
        if next == 0 || u64::from(next) >= blocks {
            continue;
        }
        let Some((_, last)) = bt_edge_keys(&page, types) else {
            continue;
        };
        if read_block(file, u64::from(next), &mut right).is_none() {
            continue;
        }
        if let Some((first, _)) = bt_edge_keys(&right, types) {
            if let Some((fb, p)) = amcheck::btree_sibling_order(b, next, &last, &first, types) {
                emit(DeepEvent::Found(fb, p))?;
            }
        }
    }
    for (fb, p) in findings {
        emit(DeepEvent::Found(fb, p))?;
    }
    if whole && !unknown {
        for (fb, p) in amcheck::btree_missing_downlinks(&summaries, &has_downlink, &top_parents) {
            emit(DeepEvent::Found(fb, p))?;
        }
    }
    Ok(())
}

/// A fork file beside `path`: `16384_vm` for `16384` or `16384.2`.
fn fork_path(path: &Path, rel: &RelationFileName, suffix: &str) -> PathBuf {
    path.with_file_name(format!("{}_{suffix}", rel.relfilenode))
}

/// One page of a fork file, kept while consecutive heap blocks use it.
struct ForkPage {
    file: Option<File>,
    blkno: Option<u64>,
    page: Vec<u8>,
    valid: bool,
}

impl ForkPage {
    fn open(path: &Path, block_size: usize) -> ForkPage {
        ForkPage {
            file: open_file(path).ok(),
            blkno: None,
            page: vec![0u8; block_size],
            valid: false,
        }
    }

    fn get(&mut self, blkno: u64) -> Option<&[u8]> {
        let file = self.file.as_ref()?;
        if self.blkno != Some(blkno) {
            self.blkno = Some(blkno);
            self.valid = read_block(file, blkno, &mut self.page).is_some();
        }
        self.valid.then_some(&self.page[..])
    }
}

#[allow(clippy::too_many_arguments)]
fn heap(
    path: &Path,
    rel: &RelationFileName,
    file: &File,
    first_blkno: u64,
    blocks: u64,
    block_size: usize,
    deep: &Deep,
    emit: &mut dyn FnMut(DeepEvent) -> Result<(), Error>,
) -> Result<(), Error> {
    let found;
    let control = match deep.control {
        Some(c) => Some(c),
        None => {
            found = control_above(path);
            found.as_ref()
        }
    };
    let xids = control.map(|c| XidHorizon {
        next_xid: c.next_xid,
        oldest_xid: c.oldest_xid,
        final_: c.shut_down(),
    });
    let mut vm = ForkPage::open(&fork_path(path, rel, "vm"), block_size);
    let mut fsm = ForkPage::open(&fork_path(path, rel, "fsm"), block_size);
    let per_vm_page = amcheck::vm_blocks_per_page(block_size).max(1);
    let mut page = vec![0u8; block_size];
    for i in 0..blocks {
        tick(i, block_size, 1, emit)?;
        let blkno = first_blkno + i;
        if read_block(file, i, &mut page).is_none() || is_new_page(&page) {
            continue;
        }
        if kind(&page) != PageKind::Heap {
            continue;
        }
        let ctx = HeapContext {
            xids,
            vm: vm
                .get(blkno / per_vm_page)
                .and_then(|p| amcheck::vm_bits(p, blkno)),
        };
        for p in amcheck::heap_page(&page, blkno, &ctx) {
            emit(DeepEvent::Found(blkno, p))?;
        }
        if let Some((fsm_blk, byte)) = amcheck::fsm_address(blkno, block_size) {
            if let Some(recorded) = fsm.get(fsm_blk).and_then(|p| p.get(byte).copied()) {
                if let Some(p) = amcheck::fsm_drift(&page, recorded, fsm_blk, byte) {
                    emit(DeepEvent::Found(blkno, p))?;
                }
            }
        }
    }
    Ok(())
}

/// The pg_control of the data directory a relation file lies in
/// (`DATADIR/base/DB/REL` → `DATADIR/global/pg_control`), when it is
/// there and trusted.
fn control_above(path: &Path) -> Option<ControlFile> {
    let abs = std::fs::canonicalize(path).ok()?;
    let datadir = abs.ancestors().find(|d| {
        d.file_name().is_some_and(|n| n == "base")
            && d.parent()
                .is_some_and(|p| p.join("global").join("pg_control").is_file())
    })?;
    let control = datadir.parent()?.join("global").join("pg_control");
    let mut bytes = Vec::new();
    use std::io::Read;
    open_file(&control)
        .ok()?
        .take(1 << 16)
        .read_to_end(&mut bytes)
        .ok()?;
    parse_control_file(&bytes).ok()
}
