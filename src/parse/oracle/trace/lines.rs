//! A trace as numbered lines, and the marker lines that open its sections.
//!
//! Lines are split at `\n` and lose trailing `\r`, blanks and tabs, so CRLF
//! traces read as LF ones. A marker is recognised after leading blanks; what
//! follows its keyword is the section's own grammar (in `text.rs` and
//! `hex.rs`).

use nom::branch::alt;
use nom::bytes::complete::tag;
use nom::combinator::{map, rest};
use nom::sequence::preceded;
use nom::Parser;

use super::grammar::{blanks, Line, PResult};

/// The lines of a trace with a cursor; line numbers are 1-based.
pub(super) struct Lines<'a> {
    lines: Vec<&'a str>,
    /// The same lines with only a trailing `\r` removed (for text kept verbatim).
    raw: Vec<&'a str>,
    /// Index of the next line (0-based); its number is `i + 1`.
    i: usize,
}

impl<'a> Lines<'a> {
    pub(crate) fn new(text: &'a str) -> Self {
        let raw: Vec<&'a str> = text
            .split('\n')
            .map(|l| l.strip_suffix('\r').unwrap_or(l))
            .collect();
        Lines {
            lines: raw
                .iter()
                .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
                .collect(),
            raw,
            i: 0,
        }
    }

    /// Line number `no` as the trace has it (trailing blanks kept).
    pub(crate) fn raw(&self, no: usize) -> Option<&'a str> {
        self.raw.get(no.checked_sub(1)?).copied()
    }

    /// The next line, not consumed.
    pub(crate) fn peek(&self) -> Option<Line<'a>> {
        self.get(self.i + 1)
    }

    /// Line number `no` (1-based).
    pub(crate) fn get(&self, no: usize) -> Option<Line<'a>> {
        let text = self.lines.get(no.checked_sub(1)?)?;
        Some(Line { no, text })
    }

    /// The next line, consumed.
    pub(crate) fn next_line(&mut self) -> Option<Line<'a>> {
        let l = self.peek()?;
        self.i += 1;
        Some(l)
    }

    /// Consume the line `peek` returned.
    pub(crate) fn advance(&mut self) {
        self.i += 1;
    }

    /// The number the next line has (one past the last line at the end).
    pub(crate) fn next_no(&self) -> usize {
        self.i + 1
    }

    /// The number of the last line consumed.
    pub(crate) fn last_no(&self) -> usize {
        self.i
    }

    /// Go back so that line `no` is the next one (never past the start).
    pub(crate) fn rewind_to(&mut self, no: usize) {
        self.i = self.i.min(no.saturating_sub(1));
    }

    /// Consume lines up to and including the first that starts with `prefix`.
    pub(crate) fn skip_past(&mut self, prefix: &str) {
        while let Some(l) = self.next_line() {
            if l.text.trim_start().starts_with(prefix) {
                break;
            }
        }
    }
}

/// A line that opens or closes a part of a trace; each carries the text
/// after its keyword.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Marker<'a> {
    /// `Start dump data blocks tsn: 7 file#:5 minblk 16 maxblk 16`.
    StartDump(&'a str),
    /// `End dump data blocks …`.
    EndDump,
    /// `Encrypted block <…> dump: …`: the next block's body is ciphertext.
    Encrypted,
    /// `Block dump from cache:` / `Block dump from disk:` (11g and later).
    BlockDumpFrom(&'a str),
    /// `Dump of buffer cache at level 4 for [pdb=0 ]tsn=4[,] rdba=…`.
    BufferCacheLevel(&'a str),
    /// `BH (0x…) file#: 4 rdba: 0x… (4/50691) class: 1 ba: 0x…`: a buffer header.
    BufferHeader(&'a str),
    /// `buffer tsn: 5 rdba: 0x… (F/B)`: the cache header dump.
    BufferTsn(&'a str),
    /// `Dump of memory from 0x… to 0x…`: the block's bytes as hex.
    DumpOfMemory(&'a str),
    /// `Block header dump:  0x…`: the transaction header.
    BlockHeaderDump(&'a str),
    /// `bdba: 0x…` before `data_block_dump` (11g and later).
    Bdba(&'a str),
    /// `data_block_dump,data header at 0x…`: the table data layer.
    DataBlockDump(&'a str),
    /// `Leaf block dump` / `Branch block dump`: an index body (the whole line).
    IndexBody(&'a str),
    /// `end_of_block_dump`.
    EndOfBlockDump,
    /// `Extent Control Header` (segment header), `Dump of First Level
    /// Bitmap Block`, `Dump of Second Level Bitmap Block`.
    Space(SpaceKind),
}

/// Which space-management body a [`Marker::Space`] line opens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum SpaceKind {
    SegmentHeader,
    FirstLevelBitmap,
    SecondLevelBitmap,
    /// `UNDO BLK:` (the rest of the line).
    UndoBlock,
    /// `File Space Header Block:` (type 0x1d).
    FileSpaceHeader,
    /// `File Space Bitmap Block:` (type 0x1e).
    FileSpaceBitmap,
}

/// The marker `line` is, if any.
pub(super) fn marker(line: &str) -> Option<Marker<'_>> {
    let index_body = |i| -> PResult<'_, Marker<'_>> {
        let (_, whole) = rest(i)?;
        let (i, _) = alt((tag("Leaf block dump"), tag("Branch block dump"))).parse(i)?;
        Ok((i, Marker::IndexBody(whole)))
    };
    let r: PResult<'_, Marker<'_>> = preceded(
        blanks,
        alt((
            map(
                preceded(tag("Start dump data blocks"), rest),
                Marker::StartDump,
            ),
            map(tag("End dump data blocks"), |_| Marker::EndDump),
            map(tag("Encrypted block <"), |_| Marker::Encrypted),
            map(
                preceded(tag("Block dump from "), rest),
                Marker::BlockDumpFrom,
            ),
            map(preceded(tag("buffer tsn:"), rest), Marker::BufferTsn),
            map(
                preceded(tag("Dump of buffer cache at level"), rest),
                Marker::BufferCacheLevel,
            ),
            map(preceded(tag("BH ("), rest), Marker::BufferHeader),
            map(
                preceded(tag("Dump of memory from"), rest),
                Marker::DumpOfMemory,
            ),
            map(
                preceded(tag("Block header dump:"), rest),
                Marker::BlockHeaderDump,
            ),
            map(preceded(tag("bdba:"), rest), Marker::Bdba),
            map(
                preceded(tag("data_block_dump,data header at"), rest),
                Marker::DataBlockDump,
            ),
            index_body,
            map(tag("end_of_block_dump"), |_| Marker::EndOfBlockDump),
            map(tag("Extent Control Header"), |_| {
                Marker::Space(SpaceKind::SegmentHeader)
            }),
            map(tag("Dump of First Level Bitmap Block"), |_| {
                Marker::Space(SpaceKind::FirstLevelBitmap)
            }),
            map(tag("Dump of Second Level Bitmap Block"), |_| {
                Marker::Space(SpaceKind::SecondLevelBitmap)
            }),
            map(tag("UNDO BLK:"), |_| Marker::Space(SpaceKind::UndoBlock)),
            map(tag("File Space Header Block:"), |_| {
                Marker::Space(SpaceKind::FileSpaceHeader)
            }),
            map(tag("File Space Bitmap Block:"), |_| {
                Marker::Space(SpaceKind::FileSpaceBitmap)
            }),
        )),
    )
    .parse(line);
    r.ok().map(|(_, m)| m)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markers() {
        use Marker::*;
        let cases: [(&str, Option<Marker>); 15] = [
            (
                "Dump of buffer cache at level 4 for tsn=4 rdba=16827907",
                Some(BufferCacheLevel(" 4 for tsn=4 rdba=16827907")),
            ),
            (
                "BH (0x71bdbca8) file#: 4 rdba: 0x0100c603 (4/50691) class: 1 ba: 0x71868000",
                Some(BufferHeader(
                    "0x71bdbca8) file#: 4 rdba: 0x0100c603 (4/50691) class: 1 ba: 0x71868000",
                )),
            ),
            (
                "Start dump data blocks tsn: 7 file#:5 minblk 16 maxblk 16",
                Some(StartDump(" tsn: 7 file#:5 minblk 16 maxblk 16")),
            ),
            ("End dump data blocks tsn: 7", Some(EndDump)),
            ("Encrypted block <5, 907> dump:", Some(Encrypted)),
            ("Block dump from cache:", Some(BlockDumpFrom("cache:"))),
            (
                "buffer tsn: 5 rdba: 0x0000038b (1024/907)",
                Some(BufferTsn(" 5 rdba: 0x0000038b (1024/907)")),
            ),
            (
                "Dump of memory from 0x00007F140F335310 to 0x00007F140F337310",
                Some(DumpOfMemory(" 0x00007F140F335310 to 0x00007F140F337310")),
            ),
            (
                "Block header dump:  0x0000038b",
                Some(BlockHeaderDump("  0x0000038b")),
            ),
            ("bdba: 0x0000038b", Some(Bdba(" 0x0000038b"))),
            (
                "data_block_dump,data header at 0x7f140f335374",
                Some(DataBlockDump(" 0x7f140f335374")),
            ),
            (" Leaf block dump", Some(IndexBody("Leaf block dump"))),
            ("end_of_block_dump", Some(EndOfBlockDump)),
            ("  \tend_of_block_dump", Some(EndOfBlockDump)),
            ("tab 0, row 0, @0x1f8a", None),
        ];
        for (line, want) in cases {
            assert_eq!(marker(line), want, "{line}");
        }
    }

    #[test]
    fn lines_lose_crlf_and_trailing_blanks() {
        let mut l = Lines::new("a\r\nb \t\r\n\nc");
        assert_eq!(l.peek().map(|l| (l.no, l.text)), Some((1, "a")));
        l.advance();
        assert_eq!(l.next_line().map(|l| l.text), Some("b"));
        assert_eq!(l.next_no(), 3);
        l.skip_past("c");
        assert_eq!(l.last_no(), 4);
        assert!(l.peek().is_none());
        assert_eq!(l.get(2).map(|l| l.text), Some("b"));
        assert!(l.get(0).is_none());
    }
}
