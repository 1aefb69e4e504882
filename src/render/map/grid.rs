//! The picture's cells: blocks folded as they stream past into at most a
//! fixed number of cells. When the cells run out, neighbours merge in pairs
//! and each cell stands for twice as many blocks, so memory is one small
//! record per cell whatever the file's size.

use super::Shade;
use crate::model::map::{BlockFigures, ChecksumState};

/// Blocks folded into one cell of the picture.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Cell {
    /// Block number of the first and the last block in the cell.
    pub first: u64,
    pub last: u64,
    pub blocks: u64,
    /// The kind of every block, or `None` when they differ (`mixed`).
    pub kind: Option<&'static str>,
    pub zero: u64,
    /// Blocks with at least one error.
    pub damaged: u64,
    /// Blocks with warnings and no error.
    pub warned: u64,
    pub unreadable: u64,
    pub errors: u64,
    pub warnings: u64,
    pub bad_checksums: u64,
    /// Blocks that say how much of them is used, and the bytes used and free over them.
    pub measured: u64,
    pub used: u64,
    pub free: i64,
    pub lp_normal: u64,
    pub lp_dead: u64,
    pub lp_redirect: u64,
    pub lp_unused: u64,
    pub xmax_set: u64,
    pub rows_live: u64,
    pub rows_deleted: u64,
}

impl Cell {
    fn new(f: &BlockFigures) -> Self {
        let mut c = Cell {
            first: f.blkno,
            last: f.blkno,
            kind: Some(f.kind),
            ..Cell::default()
        };
        c.count(f);
        c
    }

    fn add(&mut self, f: &BlockFigures) {
        self.first = self.first.min(f.blkno);
        self.last = self.last.max(f.blkno);
        if self.kind != Some(f.kind) {
            self.kind = None;
        }
        self.count(f);
    }

    fn count(&mut self, f: &BlockFigures) {
        let n = |x: Option<u32>| u64::from(x.unwrap_or(0));
        self.blocks += 1;
        self.zero += u64::from(f.zero);
        self.damaged += u64::from(f.errors > 0);
        self.warned += u64::from(f.errors == 0 && f.warnings > 0);
        self.unreadable += u64::from(f.kind == "unreadable");
        self.errors += u64::from(f.errors);
        self.warnings += u64::from(f.warnings);
        self.bad_checksums += u64::from(f.checksum == ChecksumState::Bad);
        if let Some(used) = f.used {
            self.measured += 1;
            self.used += u64::from(used);
            self.free += f.free.unwrap_or(0);
        }
        self.lp_normal += n(f.lp_normal);
        self.lp_dead += n(f.lp_dead);
        self.lp_redirect += n(f.lp_redirect);
        self.lp_unused += n(f.lp_unused);
        self.xmax_set += n(f.xmax_set);
        self.rows_live += n(f.rows_live);
        self.rows_deleted += n(f.rows_deleted);
    }

    fn merge(&mut self, o: &Cell) {
        self.first = self.first.min(o.first);
        self.last = self.last.max(o.last);
        if self.kind != o.kind {
            self.kind = None;
        }
        self.blocks += o.blocks;
        self.zero += o.zero;
        self.damaged += o.damaged;
        self.warned += o.warned;
        self.unreadable += o.unreadable;
        self.errors += o.errors;
        self.warnings += o.warnings;
        self.bad_checksums += o.bad_checksums;
        self.measured += o.measured;
        self.used += o.used;
        self.free += o.free;
        self.lp_normal += o.lp_normal;
        self.lp_dead += o.lp_dead;
        self.lp_redirect += o.lp_redirect;
        self.lp_unused += o.lp_unused;
        self.xmax_set += o.xmax_set;
        self.rows_live += o.rows_live;
        self.rows_deleted += o.rows_deleted;
    }

    /// What the cell shows, most urgent first, shaded by `shade`.
    pub(crate) fn look(&self, block_size: usize, shade: Shade) -> Look {
        if self.damaged > 0 {
            Look::Damaged
        } else if self.unreadable > 0 {
            Look::Unreadable
        } else if self.warned > 0 {
            Look::Warning
        } else if self.zero == self.blocks {
            Look::Zero
        } else {
            match shade {
                Shade::Used if self.measured > 0 => Look::Used(self.used_fraction(block_size)),
                Shade::Dead => self.dead_fraction().map_or(Look::Unmeasured, Look::Used),
                Shade::Used => Look::Unmeasured,
            }
        }
    }

    /// The share of line pointers that are dead or hold a tuple with t_xmax
    /// set (Oracle: of rows, the deleted ones); `None` with nothing to count.
    pub(crate) fn dead_fraction(&self) -> Option<f64> {
        let all = self.lp_normal + self.lp_dead + self.rows_live + self.rows_deleted;
        let dead = self.lp_dead + self.xmax_set + self.rows_deleted;
        (all > 0).then(|| (dead as f64 / all as f64).clamp(0.0, 1.0))
    }

    /// Mean fraction of a block in use over the blocks that say, 0.0–1.0.
    pub(crate) fn used_fraction(&self, block_size: usize) -> f64 {
        if self.measured == 0 || block_size == 0 {
            return 0.0;
        }
        (self.used as f64 / (self.measured as f64 * block_size as f64)).clamp(0.0, 1.0)
    }

    /// The cell's kind for people: the common kind or `mixed`.
    pub(crate) fn kind_name(&self) -> &'static str {
        self.kind.unwrap_or("mixed")
    }
}

/// How a cell is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Look {
    /// At least one block with an error.
    Damaged,
    /// A block that could not be read.
    Unreadable,
    /// Warnings, no error.
    Warning,
    /// Every block all-zero.
    Zero,
    /// Blocks that do not say how full they are (FSM, VM, unusable headers…).
    Unmeasured,
    /// Mean fraction used.
    Used(f64),
}

/// At most `cap` cells, each of `per_cell` consecutive blocks (a power of two).
#[derive(Clone, Debug)]
pub(crate) struct Grid {
    cells: Vec<Cell>,
    per_cell: u64,
    cap: usize,
}

impl Grid {
    /// A grid of at most `cap` cells (at least 2; rounded down to even).
    pub(crate) fn new(cap: usize) -> Self {
        let cap = cap.max(2) & !1;
        Grid {
            cells: Vec::with_capacity(cap),
            per_cell: 1,
            cap,
        }
    }

    /// One more block, in stream order.
    pub(crate) fn push(&mut self, f: &BlockFigures) {
        if let Some(last) = self.cells.last_mut() {
            if last.blocks < self.per_cell {
                last.add(f);
                return;
            }
        }
        if self.cells.len() >= self.cap {
            self.halve();
        }
        self.cells.push(Cell::new(f));
    }

    /// Merge neighbours in pairs: half as many cells, twice the blocks each.
    fn halve(&mut self) {
        let merged: Vec<Cell> = self
            .cells
            .chunks(2)
            .map(|pair| {
                let mut c = pair[0];
                if let Some(o) = pair.get(1) {
                    c.merge(o);
                }
                c
            })
            .collect();
        self.cells.clear();
        self.cells.extend(merged);
        self.per_cell *= 2;
    }

    pub(crate) fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Blocks a (full) cell stands for.
    pub(crate) fn per_cell(&self) -> u64 {
        self.per_cell
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(blkno: u64, errors: u32) -> BlockFigures {
        let mut f = BlockFigures::empty(blkno, "heap");
        f.errors = errors;
        f.used = Some(4096);
        f.free = Some(4096);
        f
    }

    #[test]
    fn cells_stay_bounded_and_keep_every_block() {
        let mut g = Grid::new(16);
        for b in 0..1000 {
            g.push(&block(b, u32::from(b == 777)));
            assert!(g.cells().len() <= 16);
        }
        assert_eq!(g.per_cell(), 64);
        assert_eq!(g.cells().iter().map(|c| c.blocks).sum::<u64>(), 1000);
        assert_eq!(g.cells()[0].first, 0);
        assert_eq!(g.cells()[0].last, 63);
        let damaged: Vec<u64> = g
            .cells()
            .iter()
            .filter(|c| c.look(8192, Shade::Used) == Look::Damaged)
            .map(|c| c.first)
            .collect();
        assert_eq!(damaged, vec![768]);
        assert_eq!(g.cells()[1].look(8192, Shade::Used), Look::Used(0.5));
        // No line pointers counted: nothing to shade by.
        assert_eq!(g.cells()[1].look(8192, Shade::Dead), Look::Unmeasured);
    }

    #[test]
    fn small_inputs_are_one_block_a_cell() {
        let mut g = Grid::new(16);
        for b in 0..16 {
            g.push(&block(b, 0));
        }
        assert_eq!((g.per_cell(), g.cells().len()), (1, 16));
        g.push(&block(16, 0));
        assert_eq!((g.per_cell(), g.cells().len()), (2, 9));
    }
}
