//! Trace files from `alter system dump datafile N block M` (or a piece of one):
//! the raw image rebuilt from each `Dump of memory from 0x… to 0x…` section,
//! and the formatted part parsed into a [`TextBlock`] (§6 of
//! oracle-block-format.md).
//!
//! The rooms:
//! - [`lines`]: the trace as numbered lines and the marker lines that open
//!   its parts (`Start dump data blocks`, `buffer tsn:`, `Dump of memory`,
//!   `Block header dump:`, `data_block_dump`, `end_of_block_dump`, …);
//! - [`hex`]: a block's bytes rebuilt from a `Dump of memory` section;
//! - [`text`]: the formatted dump into the model's [`TextBlock`] parts;
//! - [`model`]: a [`TextBlock`] as an [`crate::model::oracle::OracleBlock`]
//!   for the dump renderer;
//! - [`crosscheck`]: the rebuilt bytes' structures against the text's;
//! - `grammar`: the nom toolkit the line grammars share.
//!
//! A trace is read line by line (this module drives it). Lines outside a block
//! (the trace file's own header, `*** SESSION ID`, the buffer header section
//! `BH (…)`) are skipped. Inside a block each line is recognised by its keyword
//! and must then match its grammar: a line that does not is a [`TextError`]
//! naming its line, column and what was expected. A block begins at
//! `buffer tsn:`, `Dump of memory`, `Block header dump:` or `data_block_dump`
//! when the current block already has that part, so several blocks
//! (minblk..maxblk, or several dumps) give several blocks.
//!
//! Bounds: nothing here panics. Each section keeps at most
//! [`hex::MAX_BLOCK_BYTES`] (32 KiB, the largest Oracle block), all the
//! rebuilt blocks together at most [`AMPLIFICATION`] times the text's size
//! (plus 512 KiB), and a hex-only section whose bytes equal an earlier block's
//! is not kept twice. Each block's `notes` say what was cut or merged.

pub(crate) mod buffer;
pub(crate) mod consistency;
pub(crate) mod crosscheck;
mod found;
mod grammar;
pub(crate) mod hex;
mod lines;
pub(crate) mod model;
mod space;
pub(crate) mod split;
mod text;

use std::collections::hash_map::DefaultHasher;
use std::collections::HashMap;
use std::hash::{Hash, Hasher};

use crate::error::TextError;
use crate::model::oracle::space::{SpaceBody, UnparsedLines};
use crate::model::oracle::{At, OracleVersion, Rdba, TextBlock};
use crate::reader::Endian;

use buffer::{BlockCopy, BufferHeader, CacheLevel};
use lines::{Lines, Marker, SpaceKind};
use text::Context;

pub use found::TraceBlock;
pub use model::render_view;

/// The rebuilt bytes of a trace may total at most this many times the size of
/// its text (plus 8 KiB of text).
pub(crate) const AMPLIFICATION: u64 = 64;

/// The most bytes the blocks rebuilt from `text_len` bytes of trace may total.
pub(crate) fn rebuilt_limit(text_len: usize) -> u64 {
    (text_len as u64)
        .saturating_add(8192)
        .saturating_mul(AMPLIFICATION)
}

impl TraceBlock {
    fn new(line: usize, ctx: &Context) -> TraceBlock {
        TraceBlock {
            copy: None,
            buffer_header: None,
            address_digits: None,
            line,
            file: ctx.file,
            block: None,
            tsn: ctx.tsn,
            bytes: None,
            endian: None,
            endian_confirmed: false,
            hex_line: None,
            hex_address: None,
            text: None,
            notes: Vec::new(),
        }
    }

    /// `file#/block` as the trace labels it (`?` for what it does not say).
    pub fn label(&self) -> String {
        let f = self.file.map_or("?".to_string(), |f| f.to_string());
        let b = self.block.map_or("?".to_string(), |b| b.to_string());
        format!("{f}/{b}")
    }
}

/// A rebuilt block with its trace label: what `verify` checks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RebuiltBlock {
    /// Absolute file number (`file#:`), if the trace gives it.
    pub file: Option<u32>,
    /// Block number, if the trace gives it.
    pub block: Option<u32>,
    /// First line of the block in the trace.
    pub line: usize,
    /// Byte order the hex words were read in.
    pub endian: Endian,
    /// The block's bytes, rebuilt from the `Dump of memory` section.
    pub bytes: Vec<u8>,
    /// What the reader cut or merged (see [`TraceBlock::notes`]).
    pub notes: Vec<String>,
    /// Differences from the cache copy of the same block in the trace
    /// (see [`crosscheck::compare_copies`]); empty for other blocks.
    pub copy_problems: Vec<crate::model::Problem>,
}

/// The blocks rebuilt from a trace's hex sections, labelled with file#/block.
pub fn rebuilt_blocks(text: &[u8], endian: Option<Endian>) -> Result<Vec<RebuiltBlock>, TextError> {
    let blocks = read_trace(text, endian)?;
    let copies = crosscheck::compare_copies(&blocks);
    Ok(blocks
        .into_iter()
        .zip(copies)
        .filter_map(|(b, copy_problems)| {
            let endian = b.endian.unwrap_or(Endian::Little);
            b.bytes.map(|bytes| RebuiltBlock {
                file: b.file,
                block: b.block,
                line: b.line,
                endian,
                bytes,
                notes: b.notes,
                copy_problems,
            })
        })
        .collect())
}

/// Read every block of a trace (UTF-8 text; other bytes are read as U+FFFD).
/// `endian` forces the byte order of the hex words.
pub fn read_trace(text: &[u8], endian: Option<Endian>) -> Result<Vec<TraceBlock>, TextError> {
    let limit = rebuilt_limit(text.len());
    let text = String::from_utf8_lossy(text);
    let mut p = Parser::new(&text, endian, limit);
    p.run()?;
    if p.blocks.is_empty() {
        return Err(no_block());
    }
    let Parser {
        mut blocks, merged, ..
    } = p;
    for (b, m) in blocks.iter_mut().zip(merged) {
        if let Some(m) = m {
            b.notes.push(m.note());
        }
    }
    Ok(blocks)
}

/// A trace without a single block.
fn no_block() -> TextError {
    TextError::whole(
        "expected a block dump (`buffer tsn:`, `Dump of memory from`, \
         `Block header dump:` or `data_block_dump`), found none",
    )
}

/// Hex-only sections with the same bytes as a kept block.
#[derive(Clone, Copy)]
struct Merged {
    count: usize,
    first: usize,
    last: usize,
}

impl Merged {
    fn note(&self) -> String {
        let (n, first, last) = (self.count, self.first, self.last);
        let sections = if n == 1 { "section" } else { "sections" };
        let lines = if first == last {
            format!("line {first}")
        } else {
            format!("lines {first} to {last}")
        };
        format!(
            "trace {lines}: {n} more `Dump of memory` {sections} with the same bytes as this \
             block (and no formatted text) not kept again"
        )
    }
}

struct Parser<'a> {
    lines: Lines<'a>,
    endian: Option<Endian>,
    blocks: Vec<TraceBlock>,
    cur: Option<TraceBlock>,
    ctx: Context,
    /// The copy the last `Block dump from …` line announced.
    copy: Option<BlockCopy>,
    /// The last `BH (…)` line, and the last `Dump of buffer cache at level`
    /// line: what identifies a block when `Start dump data blocks` is missing.
    bh: Option<BufferHeader>,
    level: Option<CacheLevel>,
    pending_encrypted: bool,
    /// A `bdba:` line waiting for its `data_block_dump`.
    pending: Option<At<u32>>,
    /// The most rebuilt bytes in all, and what is left of it.
    limit: u64,
    budget: u64,
    /// Kept hex-only blocks by a hash of their file, length and ends: each
    /// block's index, file and bytes (kept here, so that a block handed on
    /// by `emit` is still compared with).
    seen: HashMap<u64, Vec<Kept>>,
    /// Per kept block: the duplicate sections merged into it.
    merged: Vec<Option<Merged>>,
    /// Where each finished block goes instead of `blocks` (one at a time, see
    /// [`split`]); `false` from it stops the reading.
    emit: Option<Box<dyn FnMut(TraceBlock) -> bool + 'a>>,
    /// `emit` said to stop: no line is read after it.
    stopped: bool,
    /// The first and last non-blank line of a run of lines inside the
    /// current block that no part of the reader took.
    stray: Option<(usize, usize)>,
    /// `end_of_block_dump` was met: lines up to the next block are outside.
    closed: bool,
}

/// A kept hex-only block: its index, file# and bytes.
type Kept = (usize, Option<u32>, Vec<u8>);

/// Which part of a block a line opens.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Cache,
    Hex,
    Header,
    Data,
}

impl<'a> Parser<'a> {
    /// A reader of `text` (rebuilt bytes at most `limit` in all).
    fn new(text: &'a str, endian: Option<Endian>, limit: u64) -> Self {
        Parser {
            lines: Lines::new(text),
            endian,
            blocks: Vec::new(),
            cur: None,
            ctx: Context::default(),
            copy: None,
            bh: None,
            level: None,
            pending_encrypted: false,
            pending: None,
            limit,
            budget: limit,
            seen: HashMap::new(),
            merged: Vec::new(),
            stray: None,
            closed: false,
            emit: None,
            stopped: false,
        }
    }

    fn finish(&mut self) {
        self.keep_stray();
        self.closed = false;
        let Some(mut b) = self.cur.take() else {
            return;
        };
        if let Some(t) = b
            .text
            .as_ref()
            .filter(|t| t.cache.is_none() && t.header.is_none())
        {
            if let Some(s) = &t.space {
                b.notes.push(format!(
                    "trace line {}: a body without a cache header (no `buffer tsn:` line: no \
                     block address or type), as `alter system dump undo header` prints one; \
                     shown as read",
                    s.line
                ));
            }
        }
        if b.block.is_none() {
            b.block = b
                .text
                .as_ref()
                .and_then(|t| t.cache.as_ref().map(|c| c.rdba_block))
                .or_else(|| {
                    b.text
                        .as_ref()
                        .and_then(|t| t.header.as_ref())
                        .map(|h| h.rdba)
                })
                .map(|r| Rdba(r).split(false).1)
                .or_else(|| {
                    let bytes = b.bytes.as_ref()?;
                    let e = b.endian.unwrap_or(Endian::Little);
                    Some(Rdba(hex::word_at(bytes, 4, e)?).split(false).1)
                })
                .or_else(|| {
                    let rdba = self
                        .bh
                        .map(|h| h.rdba)
                        .or(self.level.and_then(|l| l.rdba))?;
                    Some(Rdba(rdba).split(false).1)
                })
                .or_else(|| {
                    self.ctx
                        .minblk
                        .map(|m| m.saturating_add(self.ctx.count.saturating_sub(1)))
                });
        }
        if let (Some(bytes), None) = (&b.bytes, &b.text) {
            // A cheap key (ends and length); equal keys are compared whole.
            let mut h = DefaultHasher::new();
            let head = bytes.get(..64).unwrap_or(bytes);
            let tail = bytes.get(bytes.len().saturating_sub(64)..).unwrap_or(bytes);
            (b.file, bytes.len(), head, tail).hash(&mut h);
            let key = h.finish();
            let twin = self.seen.get(&key).and_then(|ks| {
                ks.iter()
                    .find(|(_, file, kept)| *file == b.file && kept == bytes)
                    .map(|(k, _, _)| *k)
            });
            if let Some(k) = twin {
                self.budget = self.budget.saturating_add(bytes.len() as u64);
                let line = b.hex_line.unwrap_or(b.line);
                if let Some(slot) = self.merged.get_mut(k) {
                    let m = slot.get_or_insert(Merged {
                        count: 0,
                        first: line,
                        last: line,
                    });
                    m.count += 1;
                    m.last = line;
                }
                return;
            }
            let entry = (self.merged.len(), b.file, bytes.clone());
            self.seen.entry(key).or_default().push(entry);
        }
        self.merged.push(None);
        match self.emit.as_mut() {
            Some(emit) => {
                if !emit(b) {
                    self.stopped = true;
                }
            }
            None => self.blocks.push(b),
        }
    }

    /// The current block, or a new one, for a line opening `part` at `line`.
    fn block_for(&mut self, part: Part, line: usize) {
        let taken = self.cur.as_ref().is_some_and(|b| {
            let t = b.text.as_ref();
            let hex = b.hex_line.is_some();
            match part {
                Part::Cache => t.is_some_and(|t| t.cache.is_some() || t.header.is_some()) || hex,
                Part::Hex => hex || t.is_some_and(|t| t.header.is_some()),
                Part::Header => t.is_some_and(|t| t.header.is_some() || t.data.is_some()),
                Part::Data => t.is_some_and(|t| {
                    t.data.is_some() || t.other_body.is_some() || t.space.is_some()
                }),
            }
        });
        if taken {
            self.finish();
        }
        if self.cur.is_none() {
            self.ctx.count = self.ctx.count.saturating_add(1);
            let mut b = TraceBlock::new(line, &self.ctx);
            b.copy = self.copy;
            b.buffer_header = self.bh;
            b.tsn = self.tsn();
            b.file = self.file();
            self.cur = Some(b);
            if std::mem::take(&mut self.pending_encrypted) {
                self.text_mut(line).encrypted = true;
            }
        }
    }

    /// The current block (one is made if there is none).
    fn block_mut(&mut self, line: usize) -> &mut TraceBlock {
        let ctx = self.ctx;
        self.cur.get_or_insert_with(|| TraceBlock::new(line, &ctx))
    }

    /// The tablespace number: `Start dump data blocks tsn:`, else
    /// `Dump of buffer cache … tsn=`, else the buffer header's `tsn:`.
    fn tsn(&self) -> Option<u32> {
        self.ctx
            .tsn
            .or(self.level.and_then(|l| l.tsn))
            .or(self.bh.and_then(|b| b.tsn))
    }

    /// The absolute file number: `Start dump data blocks file#:`, else the
    /// buffer header's `file#:`.
    fn file(&self) -> Option<u32> {
        self.ctx.file.or(self.bh.map(|b| b.file))
    }

    fn text_mut(&mut self, line: usize) -> &mut TextBlock {
        let ctx = self.ctx;
        let (tsn, file) = (self.tsn(), self.file());
        self.block_mut(line).text.get_or_insert_with(|| TextBlock {
            line,
            version: (ctx.spaced).then_some(OracleVersion::V10),
            tsn,
            file,
            ..TextBlock::default()
        })
    }

    /// A space body at `marker` that the reader could not follow (`e`): its
    /// lines from the marker to the line before the next marker (the next
    /// part or block, where reading goes on), trailing blank lines left out.
    /// Each line is looked at once more than the failed reading did.
    fn unparsed(&mut self, marker: usize, e: TextError) -> UnparsedLines {
        self.lines.rewind_to(marker.saturating_add(1));
        let mut last = marker;
        while let Some(l) = self.lines.peek() {
            if lines::marker(l.text).is_some() {
                break;
            }
            self.lines.advance();
            if !l.text.is_empty() {
                last = l.no;
            }
        }
        self.lines.rewind_to(last.saturating_add(1));
        let lines = (marker..=last)
            .filter_map(|no| self.lines.raw(no))
            .map(str::to_string)
            .collect();
        UnparsedLines {
            line: marker,
            from_line: if e.line == 0 { last } else { e.line },
            reason: e.message,
            lines,
        }
    }

    /// A line no part of the reader took: inside a block whose cache header
    /// was read (and before its `end_of_block_dump`), it is kept. Blank lines,
    /// Oracle's `Hex dump of block:` heading (its hex section follows) and its
    /// row of `*` before `UNDO BLK:` are not.
    fn stray_line(&mut self, line: usize, text: &str) {
        let inside = !self.closed
            && self
                .cur
                .as_ref()
                .and_then(|b| b.text.as_ref())
                .is_some_and(|t| t.cache.is_some());
        let t = text.trim();
        let known =
            t.is_empty() || t.starts_with("Hex dump of block:") || t.bytes().all(|c| c == b'*');
        if !inside || known {
            return;
        }
        let first = self.stray.map_or(line, |(f, _)| f);
        self.stray = Some((first, line));
    }

    /// The stray lines met since the last part, kept in the current block
    /// with a note naming the first: as the block's body, shown as the
    /// dump's own lines, when the block has no body yet; else as its
    /// trailing lines after the body (the body read is kept as it is).
    fn keep_stray(&mut self) {
        let Some((first, last)) = self.stray.take() else {
            return;
        };
        let lines: Vec<String> = (first..=last)
            .filter_map(|no| self.lines.raw(no))
            .map(|l| l.to_string())
            .collect();
        let head = lines.first().map_or("", |l| l.trim()).to_string();
        let n = lines.len();
        let Some(t) = self.cur.as_mut().and_then(|b| b.text.as_mut()) else {
            return;
        };
        let bodiless = t.space.is_none() && t.data.is_none() && t.other_body.is_none();
        let reason = format!("a line the reader does not know: {head:?}");
        let kept = UnparsedLines {
            line: first,
            from_line: first,
            reason: reason.clone(),
            lines,
        };
        let note = if bodiless {
            t.space = Some(At {
                value: SpaceBody::Unparsed(kept),
                line: first,
            });
            format!(
                "trace line {first}: {reason} (no body heading before it); the {n} lines from \
                 line {first} on are kept as the dump's own lines"
            )
        } else {
            t.trailing_lines.push(kept);
            format!(
                "trace line {first}: {reason}, after the block's body; lines {first} to {last} \
                 ({n}) are not read, kept as the dump's own lines"
            )
        };
        if let Some(b) = self.cur.as_mut() {
            b.notes.push(note);
        }
    }

    fn run(&mut self) -> Result<(), TextError> {
        while let Some(l) = self.lines.next_line().filter(|_| !self.stopped) {
            let line = l.no;
            let Some(m) = lines::marker(l.text) else {
                self.stray_line(line, l.text);
                continue;
            };
            self.keep_stray();
            match m {
                Marker::StartDump(rest) => {
                    self.finish();
                    self.ctx = text::start_line(l, rest)?;
                    (self.copy, self.bh, self.level) = (None, None, None);
                }
                Marker::EndDump => {
                    self.finish();
                    (self.copy, self.bh, self.level) = (None, None, None);
                }
                Marker::BlockDumpFrom(rest) => {
                    self.finish();
                    self.copy = buffer::block_copy(rest);
                }
                Marker::BufferCacheLevel(rest) => {
                    self.finish();
                    self.level = Some(buffer::cache_level(l, rest)?);
                }
                Marker::BufferHeader(rest) => {
                    self.finish();
                    let mut bh = buffer::buffer_header(l, rest)?;
                    bh.tsn = (1..=3)
                        .filter_map(|k| self.lines.get(line.saturating_add(k)))
                        .find_map(|n| buffer::header_tsn(n.text));
                    self.bh = Some(bh);
                }
                Marker::Encrypted => {
                    self.finish();
                    self.pending_encrypted = true;
                }
                Marker::BufferTsn(rest) => {
                    self.block_for(Part::Cache, line);
                    let cache = text::cache(&mut self.lines, l, rest)?;
                    let version = self
                        .lines
                        .get(cache.scn_line)
                        .and_then(|s| text::cache_version(s.text));
                    let tb = self.text_mut(line);
                    if tb.version.is_none() {
                        tb.version = version;
                    }
                    tb.cache = Some(cache);
                }
                Marker::DumpOfMemory(rest) => {
                    self.block_for(Part::Hex, line);
                    let s = hex::section(
                        &mut self.lines,
                        l,
                        rest,
                        self.endian,
                        self.budget,
                        self.limit,
                    )?;
                    let kept = s.bytes.as_ref().map_or(0, Vec::len) as u64;
                    self.budget = self.budget.saturating_sub(kept);
                    let digits = rest
                        .split_whitespace()
                        .next()
                        .and_then(|w| w.strip_prefix("0x").or_else(|| w.strip_prefix("0X")))
                        .map(str::len);
                    let b = self.block_mut(line);
                    b.address_digits = digits;
                    b.bytes = s.bytes;
                    b.endian = Some(s.endian);
                    b.endian_confirmed = s.confirmed;
                    b.hex_line = Some(line);
                    b.hex_address = Some(s.from);
                    b.notes.extend(s.note);
                }
                Marker::BlockHeaderDump(rest) => {
                    self.block_for(Part::Header, line);
                    let h = text::header(&mut self.lines, l, rest)?;
                    let csc_version = text::csc_version(self.lines.get(h.seg_line).map(|s| s.text));
                    let tb = self.text_mut(line);
                    if tb.version.is_none() || csc_version == Some(OracleVersion::V12_2) {
                        tb.version = tb.version.or(csc_version);
                    }
                    tb.header = Some(h);
                }
                Marker::Bdba(rest) => {
                    // 11g and later print it before `data_block_dump`.
                    let v = grammar::hex_u32(l, rest, "bdba: 0x…")?;
                    self.pending = Some(At { value: v, line });
                }
                Marker::DataBlockDump(rest) => {
                    let bdba = self.pending.take();
                    self.block_for(Part::Data, line);
                    let d = text::data(&mut self.lines, l, rest, bdba)?;
                    self.text_mut(line).data = Some(d);
                    // The table data layer ends at `end_of_block_dump`.
                    let last = self.lines.last_no();
                    self.closed |= self
                        .lines
                        .get(last)
                        .is_some_and(|p| p.text.trim() == "end_of_block_dump");
                }
                Marker::IndexBody(name) => {
                    self.block_for(Part::Data, line);
                    self.text_mut(line).other_body = Some(At {
                        value: name.to_string(),
                        line,
                    });
                    self.lines.skip_past("----- end of");
                }
                Marker::Space(kind) => {
                    self.block_for(Part::Data, line);
                    let parsed = match kind {
                        SpaceKind::SegmentHeader => space::segment_header(&mut self.lines),
                        SpaceKind::FirstLevelBitmap => space::first_level_bitmap(&mut self.lines),
                        SpaceKind::SecondLevelBitmap => space::second_level_bitmap(&mut self.lines),
                        SpaceKind::UndoBlock => {
                            let info = l.text.trim_start().get("UNDO BLK:".len()..).unwrap_or("");
                            space::undo_block(&mut self.lines, info)
                        }
                        SpaceKind::FileSpaceHeader => space::file_space_header(&mut self.lines),
                        SpaceKind::FileSpaceBitmap => space::file_space_bitmap(&mut self.lines),
                    };
                    let body = match parsed {
                        Ok(body) => body,
                        Err(e) => {
                            let u = self.unparsed(line, e);
                            let note = format!(
                                "trace line {}: {}; the body from line {line} on is shown as \
                                 the dump's own {} lines",
                                u.from_line,
                                u.reason,
                                u.lines.len()
                            );
                            self.block_mut(line).notes.push(note);
                            SpaceBody::Unparsed(u)
                        }
                    };
                    self.text_mut(line).space = Some(At { value: body, line });
                }
                Marker::EndOfBlockDump => self.closed = true,
            }
        }
        self.finish();
        Ok(())
    }
}

#[cfg(test)]
mod tests;
