//! A trace's blocks one at a time, in two readings of its text, so that no
//! more than one block (and what the reader keeps to merge duplicate hex
//! sections) is held however long the trace is.
//!
//! A later block can say something of an earlier one: a hex-only section
//! with the same bytes is merged into the block first seen (a note on that
//! block), a disk copy is compared with the cache copy before it, and a
//! trace that fails its grammar anywhere is refused whole. So [`plan`] reads
//! the whole text first and keeps only those facts (a few words a block);
//! [`TracePlan::each`] then reads it again and hands on each block as it is
//! finished, with the same notes and copy problems [`super::read_trace`]
//! and [`super::crosscheck::compare_copies`] give it. The cache copies a
//! later disk copy is compared with are the only blocks held, each until
//! that disk copy.

use std::collections::{HashMap, HashSet};

use crate::error::TextError;
use crate::model::Problem;
use crate::reader::Endian;

use super::buffer::BlockCopy;
use super::crosscheck::compare_pair;
use super::{no_block, rebuilt_limit, Merged, Parser, TraceBlock};

/// One block of a trace, with what the rest of the trace says of it.
pub(crate) struct Found {
    /// The block, its notes including the duplicate sections merged into it.
    pub block: TraceBlock,
    /// Differences from the cache copy of the same block before it (see
    /// [`super::crosscheck::compare_copies`]); empty for other blocks.
    pub copy_problems: Vec<Problem>,
    /// The trace has a cache copy (`Block dump from cache:`) of the same
    /// file# and block somewhere, before or after this block.
    pub cached: bool,
}

/// A block's file# and block number.
type Id = (Option<u32>, u32);

fn id(b: &TraceBlock) -> Option<Id> {
    b.block.map(|n| (b.file, n))
}

/// What the first reading of a trace learnt: enough to hand on its blocks
/// one at a time on the second.
pub(crate) struct TracePlan {
    endian: Option<Endian>,
    /// Blocks in the trace.
    blocks: usize,
    /// Per block: the duplicate sections merged into it.
    merged: Vec<Option<Merged>>,
    /// Blocks of which the trace has a cache copy.
    cached: HashSet<Id>,
    /// A disk copy's index: the cache copy's it is compared with.
    pairs: HashMap<usize, usize>,
    /// A cache copy's index: the last disk copy compared with it.
    held_until: HashMap<usize, usize>,
    /// Some block has rebuilt bytes.
    any_bytes: bool,
}

/// Read the whole trace `text` once (UTF-8; other bytes as U+FFFD), keeping
/// only what its blocks say of each other. The error is
/// [`super::read_trace`]'s.
pub(crate) fn plan(text: &[u8], endian: Option<Endian>) -> Result<TracePlan, TextError> {
    let limit = rebuilt_limit(text.len());
    let text = String::from_utf8_lossy(text);
    let mut plan = TracePlan {
        endian,
        blocks: 0,
        merged: Vec::new(),
        cached: HashSet::new(),
        pairs: HashMap::new(),
        held_until: HashMap::new(),
        any_bytes: false,
    };
    let mut last_cache: HashMap<Id, usize> = HashMap::new();
    let merged = {
        let mut p = Parser::new(&text, endian, limit);
        let plan = &mut plan;
        p.emit = Some(Box::new(|b: TraceBlock| {
            let i = plan.blocks;
            plan.blocks += 1;
            plan.any_bytes |= b.bytes.as_ref().is_some_and(|x| !x.is_empty());
            match (b.copy, id(&b)) {
                (Some(BlockCopy::Cache), Some(id)) => {
                    plan.cached.insert(id);
                    last_cache.insert(id, i);
                }
                (Some(BlockCopy::Disk), Some(id)) => {
                    if let Some(&j) = last_cache.get(&id) {
                        plan.pairs.insert(i, j);
                        plan.held_until.insert(j, i);
                    }
                }
                _ => {}
            }
            true
        }));
        p.run()?;
        std::mem::take(&mut p.merged)
    };
    if plan.blocks == 0 {
        return Err(no_block());
    }
    plan.merged = merged;
    Ok(plan)
}

impl TracePlan {
    /// Some block of the trace has bytes rebuilt from a hex section.
    pub(crate) fn any_bytes(&self) -> bool {
        self.any_bytes
    }

    /// Read `text` (the one [`plan`] read) again, handing each block to `f`
    /// as it is finished, in order; `false` from `f` stops the reading.
    pub(crate) fn each(
        &self,
        text: &[u8],
        mut f: impl FnMut(Found) -> bool,
    ) -> Result<(), TextError> {
        let limit = rebuilt_limit(text.len());
        let text = String::from_utf8_lossy(text);
        let mut held: HashMap<usize, TraceBlock> = HashMap::new();
        let mut i = 0usize;
        let mut p = Parser::new(&text, self.endian, limit);
        p.emit = Some(Box::new(|mut b: TraceBlock| {
            let k = i;
            i += 1;
            if let Some(Some(m)) = self.merged.get(k) {
                b.notes.push(m.note());
            }
            let copy_problems = match self.pairs.get(&k) {
                Some(j) => {
                    let problems = held
                        .get(j)
                        .map(|cache| compare_pair(cache, &b))
                        .unwrap_or_default();
                    if self.held_until.get(j) == Some(&k) {
                        held.remove(j);
                    }
                    problems
                }
                None => Vec::new(),
            };
            if self.held_until.contains_key(&k) {
                held.insert(k, b.clone());
            }
            let cached = id(&b).is_some_and(|id| self.cached.contains(&id));
            f(Found {
                block: b,
                copy_problems,
                cached,
            })
        }));
        p.run()
    }
}

#[cfg(test)]
mod tests {
    use super::super::{crosscheck::compare_copies, read_trace};
    use super::*;

    /// What [`plan`] and [`TracePlan::each`] hand on, block by block, is
    /// what [`read_trace`] and [`compare_copies`] give of the whole trace.
    fn same_as_whole(text: &[u8]) {
        let whole = read_trace(text, None);
        let plan = plan(text, None);
        let (whole, plan) = match (whole, plan) {
            (Ok(w), Ok(p)) => (w, p),
            (Err(a), Err(b)) => return assert_eq!(a.to_string(), b.to_string()),
            (w, p) => panic!("{:?} / {:?}", w.map(|b| b.len()), p.map(|p| p.blocks)),
        };
        let copies = compare_copies(&whole);
        let mut got = Vec::new();
        plan.each(text, |f| {
            got.push(f);
            true
        })
        .unwrap();
        assert_eq!(got.len(), whole.len());
        let id = |b: &TraceBlock| b.block.map(|n| (b.file, n));
        for (i, (f, (b, c))) in got.iter().zip(whole.iter().zip(&copies)).enumerate() {
            assert_eq!(&f.block, b, "block {i}");
            assert_eq!(&f.copy_problems, c, "block {i}");
            let cached = whole
                .iter()
                .any(|o| o.copy == Some(BlockCopy::Cache) && id(o).is_some() && id(o) == id(b));
            assert_eq!(f.cached, cached, "block {i}");
        }
        assert_eq!(
            plan.any_bytes(),
            whole
                .iter()
                .any(|b| b.bytes.as_ref().is_some_and(|x| !x.is_empty()))
        );
    }

    #[test]
    fn every_fixture_trace_reads_the_same_a_block_at_a_time() {
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/oracle");
        let mut n = 0;
        for dir in ["trace", "blocks"] {
            for e in std::fs::read_dir(format!("{root}/{dir}")).unwrap() {
                let path = e.unwrap().path();
                if path.extension().is_some_and(|x| x == "trc") {
                    same_as_whole(&crate::input::utf8_text(std::fs::read(&path).unwrap()));
                    n += 1;
                }
            }
        }
        assert!(n >= 15, "{n} traces");
    }

    #[test]
    fn duplicates_and_copies_reach_the_blocks_before_them() {
        // Hex-only sections repeated (merged into the first, a note on it),
        // between the cache and disk copies of a block that differ.
        let root = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/oracle/trace");
        let pair =
            std::fs::read_to_string(format!("{root}/published_19c_12_3126.disk-differs.trc"))
                .unwrap();
        let section = "Dump of memory from 0x0000000000001000 to 0x0000000000003000\n\
                       1000 00000006 00000000 00000000 00000000  [................]\n\
                       Repeat 511 times\n";
        let mut text = section.repeat(3);
        text.push_str(&pair);
        text.push_str(&section.repeat(2));
        text.push_str(&pair);
        same_as_whole(text.as_bytes());
        let plan = plan(text.as_bytes(), None).unwrap();
        let mut got = Vec::new();
        plan.each(text.as_bytes(), |f| {
            got.push(f);
            true
        })
        .unwrap();
        // The first section's block is handed on before the two after it
        // are read; the sections after the first pair are of its file#.
        let notes = |i: usize| got[i].block.notes.join("\n");
        assert!(
            notes(0).contains("2 more `Dump of memory` sections"),
            "{}",
            notes(0)
        );
        let last = got.len() - 3;
        assert!(
            notes(last).contains("1 more `Dump of memory` section "),
            "{}",
            notes(last)
        );
        let crosschecked = got.iter().filter(|f| !f.copy_problems.is_empty()).count();
        assert_eq!(crosschecked, 2);
        // Stopping early is allowed.
        let mut seen = 0;
        plan.each(text.as_bytes(), |_| {
            seen += 1;
            false
        })
        .unwrap();
        assert_eq!(seen, 1);
    }
}
