//! `map`: every block's figures ([`BlockFigures`]) in, one picture of the
//! whole file out — a grid for the terminal ([`term`]), a standalone SVG
//! ([`svg`]), or the figures themselves as JSON / NDJSON ([`json`]).
//!
//! Blocks arrive one at a time, in order: JSON is written as they come,
//! the pictures fold them into a bounded [`grid::Grid`] and are drawn at
//! the end. Nothing here holds a record per block of the file.

use std::io::{self, Write};

use crate::model::map::{BlockFigures, MapSummary};
use crate::model::oracle::verify::BlockReport;
use crate::model::postgres::verify::{Skipped, VerifyProblem};
use crate::model::ProblemClass;
use crate::verify::Report;

pub(crate) mod grid;
mod json;
mod look;
mod svg;
mod term;

use grid::Grid;
pub(crate) use look::{plural, MapFormat, MapOptions, Shade, SVG_COLUMNS};

/// Cells of the terminal grid: at most this many rows of them.
const TERM_ROWS: usize = 32;
/// Rows of cells of the SVG picture at most.
const SVG_ROWS: usize = 64;
/// File-level problems kept for the summary; past this they are counted.
const FILE_PROBLEMS: usize = 100;

/// Takes every block's figures, in order, and writes the map.
pub(crate) struct MapPrinter<W: Write> {
    out: W,
    opts: MapOptions,
    grid: Grid,
    /// Term: cells a row.
    columns: usize,
    json: Option<crate::render::write::ArrayWriter>,
    /// The totals, counted as blocks pass; the caller fills in the rest.
    pub summary: MapSummary,
    more_file_problems: u64,
}

impl<W: Write> std::fmt::Debug for MapPrinter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MapPrinter")
            .field("opts", &self.opts)
            .finish_non_exhaustive()
    }
}

impl<W: Write> MapPrinter<W> {
    pub(crate) fn new(out: W, opts: MapOptions) -> Self {
        let columns = term::columns(opts.width);
        let cap = match opts.format {
            MapFormat::Term => columns * TERM_ROWS,
            MapFormat::Svg => SVG_COLUMNS * SVG_ROWS,
            // Never used: JSON writes each block as it comes.
            MapFormat::Json | MapFormat::Ndjson => 2,
        };
        MapPrinter {
            out,
            opts,
            grid: Grid::new(cap),
            columns,
            json: None,
            summary: MapSummary::default(),
            more_file_problems: 0,
        }
    }

    /// One block, in order.
    pub(crate) fn block(&mut self, f: &BlockFigures) -> io::Result<()> {
        self.summary.add(f);
        match self.opts.format {
            MapFormat::Term | MapFormat::Svg => {
                self.grid.push(f);
                Ok(())
            }
            MapFormat::Json => {
                if self.json.is_none() {
                    self.json = Some(json::open(&mut self.out)?);
                }
                match self.json.as_mut() {
                    Some(array) => array.push(&mut self.out, f),
                    None => Ok(()),
                }
            }
            MapFormat::Ndjson => crate::render::write::write_line(&mut self.out, f),
        }
    }

    /// A problem that is not one block's (a file that cannot be opened, a
    /// partial block at a file's end), for the summary.
    pub(crate) fn file_problem(&mut self, line: String) {
        if self.summary.file_problems.len() < FILE_PROBLEMS {
            self.summary.file_problems.push(line);
        } else {
            self.more_file_problems += 1;
        }
    }

    /// The summary (and, for the pictures, the picture); flushed.
    pub(crate) fn finish(mut self) -> io::Result<()> {
        if self.more_file_problems > 0 {
            self.summary
                .file_problems
                .push(format!("… and {} more", self.more_file_problems));
        }
        match self.opts.format {
            MapFormat::Term => term::render(
                &mut self.out,
                &self.grid,
                &self.summary,
                &self.opts,
                self.columns,
            )?,
            MapFormat::Svg => svg::render(&mut self.out, &self.grid, &self.summary, &self.opts)?,
            MapFormat::Json => {
                let array = match self.json.take() {
                    Some(array) => array,
                    None => json::open(&mut self.out)?,
                };
                json::close(&mut self.out, array, &self.summary)?;
            }
            MapFormat::Ndjson => json::summary_line(&mut self.out, &self.summary)?,
        }
        self.out.flush()
    }
}

impl<W: Write> Report for MapPrinter<W> {
    fn skipped(&mut self, skipped: &Skipped) -> io::Result<()> {
        self.file_problem(format!("{}: skipped: {}", skipped.file, skipped.reason));
        Ok(())
    }

    fn problem(&mut self, p: &VerifyProblem) -> io::Result<()> {
        // Block-level problems are counted in each block's figures; an
        // unreadable block is a block of kind `unreadable`.
        let file_level = p.class == ProblemClass::Truncated
            || (p.class == ProblemClass::Io && p.field != "block");
        if file_level {
            self.file_problem(format!(
                "{}: {}: {}",
                p.file_label(),
                p.class.as_str(),
                p.message
            ));
        }
        Ok(())
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn block(&mut self, figures: &BlockFigures) -> io::Result<()> {
        MapPrinter::block(self, figures)
    }
}

/// `map` of Oracle datafiles and traces: every block's figures; the
/// failing blocks are in them already (errors and warnings per cell).
impl<W: Write> Report<BlockReport> for MapPrinter<W> {
    fn problem(&mut self, _block: &BlockReport) -> io::Result<()> {
        Ok(())
    }

    fn wants_blocks(&self) -> bool {
        true
    }

    fn block(&mut self, figures: &BlockFigures) -> io::Result<()> {
        MapPrinter::block(self, figures)
    }
}
