//! TOAST reassembly: the chunks of out-of-line values.
//!
//! A TOAST relation is a heap of tuples (chunk_id oid, chunk_seq int4,
//! chunk_data bytea). A value is every chunk whose chunk_id is the pointer's
//! `va_valueid`, concatenated in chunk_seq order (0, 1, 2, …; on disk they
//! may come in any order). The concatenation must be exactly the pointer's
//! external size; when the pointer says compressed it is `va_tcinfo` followed
//! by the compressed data.
//!
//! Parsing here takes bytes only. The TOAST relation's pages are indexed once
//! ([`ToastIndex`], filled page by page by `toast_page::index_page`):
//! value id → (sequence number, block, where the chunk data sits in its page)
//! of each chunk, without keeping chunk data. Fetching a value asks a
//! [`ToastPages`] (implemented where the command layer wires sources to parsers, in `cluster/toast.rs`)
//! for each block it needs, once per block, and copies the chunks out by the
//! recorded positions: linear in the value's chunks, whatever their number,
//! and memory proportional to the number of chunks, not to their size.

use std::collections::HashMap;

use crate::model::postgres::ToastPointer;

/// The largest value blockscope decompresses or reassembles (the format
/// allows up to 1 GB; a page claiming more is more likely damaged).
pub(crate) const MAX_VALUE_BYTES: usize = 64 << 20;

/// TOAST bytes one run reassembles, over all its pages: once spent, no
/// further value is fetched (each says so), so that many pages pointing at
/// the same big values cannot make a run read without end.
pub(crate) const RUN_TOAST_BUDGET: u64 = 1 << 30;

/// Where the blocks of the TOAST input come from: "give me block `block` of
/// TOAST input `file`". Implemented by whatever reads files; parse does no I/O.
pub trait ToastPages {
    /// The bytes of one block (a whole page), or why it cannot be had.
    fn page(&mut self, file: usize, block: u64) -> Result<&[u8], String>;
}

/// Where one chunk tuple lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChunkLoc {
    pub seq: i32,
    /// Which TOAST input (in the order given).
    pub file: usize,
    pub block: u64,
    pub lp: u16,
    /// The chunk data (after its varlena header): offset in the page and length.
    pub offset: usize,
    pub len: usize,
    /// xmax not set (or its deleter rolled back): the current version.
    pub live: bool,
}

/// The chunks of a TOAST relation, indexed by value id.
#[derive(Debug, Default)]
pub struct ToastIndex {
    index: HashMap<u32, Vec<ChunkLoc>>,
    /// Chunk tuples found.
    pub chunks: usize,
}

impl ToastIndex {
    pub fn new() -> Self {
        ToastIndex::default()
    }

    /// Record one chunk tuple of value `id`.
    pub fn add(&mut self, id: u32, loc: ChunkLoc) {
        self.chunks += 1;
        self.index.entry(id).or_default().push(loc);
    }

    /// How many distinct values have chunks.
    pub fn values(&self) -> usize {
        self.index.len()
    }
}

/// An indexed TOAST relation and the pages to read its chunks from.
pub struct ToastStore {
    index: ToastIndex,
    pages: Box<dyn ToastPages>,
    /// Chunk tuples found.
    pub chunks: usize,
    /// Bytes reassembled so far this run (against [`RUN_TOAST_BUDGET`]).
    fetched: u64,
}

impl ToastStore {
    /// A store over `index` (chunk locations by value id) and the TOAST relation's `pages`.
    pub fn new(index: ToastIndex, pages: Box<dyn ToastPages>) -> Self {
        ToastStore {
            chunks: index.chunks,
            index,
            pages,
            fetched: 0,
        }
    }

    /// How many distinct values have chunks.
    pub fn values(&self) -> usize {
        self.index.values()
    }

    /// The external bytes of the value `p` points to (`extsize` bytes, still
    /// compressed if the pointer says so) and how many chunks made them.
    pub fn fetch(&mut self, p: &ToastPointer) -> Result<(Vec<u8>, u32), String> {
        let extsize = p.extsize as usize;
        if extsize > MAX_VALUE_BYTES {
            return Err(format!(
                "TOAST value {} is {extsize} bytes, over blockscope's limit of {MAX_VALUE_BYTES}",
                p.va_valueid
            ));
        }
        if self.fetched.saturating_add(extsize as u64) > RUN_TOAST_BUDGET {
            return Err(format!(
                "TOAST value {} not fetched: this run's budget of {RUN_TOAST_BUDGET} bytes of \
                 reassembled TOAST values is spent ({} bytes fetched so far)",
                p.va_valueid, self.fetched
            ));
        }
        let Some(locs) = self.index.index.get(&p.va_valueid) else {
            return Err(format!(
                "TOAST value {}: no chunks with this chunk_id in the --toast files (relation {} expected)",
                p.va_valueid, p.va_toastrelid
            ));
        };
        let by_seq = one_per_seq(locs);
        for (expected, loc) in by_seq.iter().enumerate() {
            if i64::from(loc.seq) != expected as i64 {
                return Err(format!(
                    "TOAST value {}: chunk {} is missing (found chunk_seq {} next)",
                    p.va_valueid, expected, loc.seq
                ));
            }
        }
        let total = by_seq
            .iter()
            .try_fold(0usize, |acc, l| acc.checked_add(l.len))
            .unwrap_or(usize::MAX);
        if total != extsize {
            return Err(format!(
                "TOAST value {}: {} chunks hold {total} bytes, the pointer says {extsize}",
                p.va_valueid,
                by_seq.len()
            ));
        }
        // Each chunk's place in the value, then the chunks read block by
        // block, so each block is asked for once.
        let mut placed: Vec<(usize, ChunkLoc)> = Vec::with_capacity(by_seq.len());
        let mut at = 0usize;
        for loc in &by_seq {
            placed.push((at, *loc));
            at += loc.len;
        }
        placed.sort_by_key(|(_, l)| (l.file, l.block, l.offset));
        let mut out = vec![0u8; extsize];
        let mut i = 0;
        while let Some(&(_, first)) = placed.get(i) {
            let page = self.pages.page(first.file, first.block)?;
            while let Some(&(dest, loc)) = placed.get(i) {
                if (loc.file, loc.block) != (first.file, first.block) {
                    break;
                }
                let chunk = loc
                    .offset
                    .checked_add(loc.len)
                    .and_then(|end| page.get(loc.offset..end))
                    .ok_or_else(|| {
                        format!(
                            "TOAST value {}: chunk {} at block {} lp {} is gone on re-reading",
                            p.va_valueid, loc.seq, loc.block, loc.lp
                        )
                    })?;
                if let Some(slot) = out.get_mut(dest..dest + loc.len) {
                    slot.copy_from_slice(chunk);
                }
                i += 1;
            }
        }
        self.fetched = self.fetched.saturating_add(extsize as u64);
        Ok((out, by_seq.len() as u32))
    }
}

/// One location per sequence number, in sequence order: the live version
/// when there are several.
fn one_per_seq(locs: &[ChunkLoc]) -> Vec<ChunkLoc> {
    let mut sorted = locs.to_vec();
    sorted.sort_by_key(|l| (l.seq, !l.live));
    sorted.dedup_by_key(|l| l.seq);
    sorted
}

#[cfg(test)]
mod tests {
    use super::*;

    use std::cell::Cell;
    use std::rc::Rc;

    /// Pages held in memory, counting how often one is asked for.
    struct Pages(Vec<Vec<u8>>, Rc<Cell<usize>>);

    impl ToastPages for Pages {
        fn page(&mut self, _file: usize, block: u64) -> Result<&[u8], String> {
            self.1.set(self.1.get() + 1);
            self.0
                .get(block as usize)
                .map(Vec::as_slice)
                .ok_or_else(|| format!("no block {block}"))
        }
    }

    fn pointer(id: u32, extsize: u32) -> ToastPointer {
        ToastPointer {
            va_rawsize: extsize as i32 + 4,
            va_extinfo: extsize,
            extsize,
            compressed: false,
            method: None,
            va_valueid: id,
            va_toastrelid: 1,
            chunks: None,
        }
    }

    #[test]
    fn chunks_are_copied_in_sequence_order_reading_each_block_once() {
        // Two pages of bytes; value 7 is the 200 one-byte chunks at offsets
        // 0..100 of both pages, interleaved: even sequence numbers on block 0,
        // odd ones on block 1, listed in reverse.
        let pages = vec![(0..=255u8).collect(), (0..=255u8).rev().collect()];
        let mut index = ToastIndex::new();
        for seq in (0..200).rev() {
            index.add(
                7,
                ChunkLoc {
                    seq,
                    file: 0,
                    block: (seq % 2) as u64,
                    lp: seq as u16 + 1,
                    offset: (seq / 2) as usize,
                    len: 1,
                    live: true,
                },
            );
        }
        let asked = Rc::new(Cell::new(0));
        let mut store = ToastStore::new(index, Box::new(Pages(pages, asked.clone())));
        assert_eq!((store.chunks, store.values()), (200, 1));
        let (bytes, n) = store.fetch(&pointer(7, 200)).unwrap();
        assert_eq!(n, 200);
        assert_eq!(asked.get(), 2, "each block is read once per value");
        let expected: Vec<u8> = (0..200u32)
            .map(|s| {
                if s % 2 == 0 {
                    (s / 2) as u8
                } else {
                    255 - (s / 2) as u8
                }
            })
            .collect();
        assert_eq!(bytes, expected);
        assert!(store.fetch(&pointer(7, 199)).is_err());
        assert!(store.fetch(&pointer(8, 1)).is_err());
        assert!(store
            .fetch(&pointer(7, (MAX_VALUE_BYTES + 1) as u32))
            .unwrap_err()
            .contains("limit"));
    }

    #[test]
    fn a_run_fetches_no_more_than_its_budget() {
        let mut index = ToastIndex::new();
        index.add(
            7,
            ChunkLoc {
                seq: 0,
                file: 0,
                block: 0,
                lp: 1,
                offset: 0,
                len: 100,
                live: true,
            },
        );
        let pages = vec![vec![0u8; 256]];
        let mut store = ToastStore::new(index, Box::new(Pages(pages, Rc::default())));
        assert!(store.fetch(&pointer(7, 100)).is_ok());
        assert_eq!(store.fetched, 100);
        store.fetched = RUN_TOAST_BUDGET - 99;
        let e = store.fetch(&pointer(7, 100)).unwrap_err();
        assert!(e.contains("this run's budget"), "{e}");
    }
}
