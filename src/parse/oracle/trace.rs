//! Trace files from `alter system dump datafile N block M` (or a piece of one):
//! the raw image rebuilt from each `Dump of memory from 0x… to 0x…` section,
//! and the formatted part parsed into a [`TextBlock`] (§6 of
//! oracle-block-format.md).
//!
//! A trace is read line by line. Lines outside a block (the trace file's own
//! header, `*** SESSION ID`, the buffer header section `BH (…)`) are skipped.
//! Inside a block each line is recognised by its keyword and must then match
//! its grammar: a line that does not is an error naming its number and what was
//! expected. A block begins at `buffer tsn:`, `Dump of memory`, `Block header
//! dump:` or `data_block_dump` when the current block already has that part, so
//! several blocks (minblk..maxblk, or several dumps) give several blocks.
//!
//! Hex lines are `ADDR WWWWWWWW WWWWWWWW WWWWWWWW WWWWWWWW  [ascii]`: four
//! 32-bit words in the platform's byte order. `Repeat N times` says the previous
//! 16 bytes occur N more times. The byte order is the one in which the rebuilt
//! block's tail repeats its cache header (or as given).
//!
//! Nothing here panics or allocates more than the sections' declared sizes
//! (each at most [`MAX_HEX_SECTION`]).

use crate::input::{InputError, InputFormat};
use crate::model::oracle::{
    At, Itl, KdbrEntry, Kdbt, KtbbhExtension, OracleVersion, Rdba, RowRef, TextBlock, TextCache,
    TextColumn, TextData, TextHeader, TextRow,
};
use crate::reader::Endian;

use super::checksum;

/// The largest `Dump of memory` section accepted (Oracle blocks are at most 32 KiB).
pub const MAX_HEX_SECTION: u64 = 1 << 20;

/// One block found in a trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceBlock {
    /// First line of the block in the trace.
    pub line: usize,
    /// Absolute file number (`file#:` of `Start dump data blocks`), if given.
    pub file: Option<u32>,
    /// Block number: from the text's rdba, else the rebuilt bytes' rdba,
    /// else `minblk` plus the block's position.
    pub block: Option<u32>,
    /// Tablespace number, if the trace gives it.
    pub tsn: Option<u32>,
    /// The bytes rebuilt from the `Dump of memory` section.
    pub bytes: Option<Vec<u8>>,
    /// Byte order of the hex words (given, or detected from the tail).
    pub endian: Option<Endian>,
    /// Whether the byte order was confirmed by the rebuilt block's tail.
    pub endian_confirmed: bool,
    /// Line of `Dump of memory from`, and the memory address it starts at.
    pub hex_line: Option<usize>,
    pub hex_address: Option<u64>,
    /// The formatted part, when the trace has one for this block.
    pub text: Option<TextBlock>,
}

impl TraceBlock {
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
    pub file: Option<u32>,
    pub block: Option<u32>,
    pub line: usize,
    pub endian: Endian,
    pub bytes: Vec<u8>,
}

/// The blocks rebuilt from a trace's hex sections, labelled with file#/block.
pub fn rebuilt_blocks(
    text: &[u8],
    endian: Option<Endian>,
) -> Result<Vec<RebuiltBlock>, InputError> {
    Ok(read_trace(text, endian)?
        .into_iter()
        .filter_map(|b| {
            let endian = b.endian.unwrap_or(Endian::Little);
            b.bytes.map(|bytes| RebuiltBlock {
                file: b.file,
                block: b.block,
                line: b.line,
                endian,
                bytes,
            })
        })
        .collect())
}

/// Whether text looks like a block-dump trace: one of its first lines is
/// `Start dump data blocks`, `Block header dump:`, `Dump of memory from` or
/// `buffer tsn:`.
pub fn looks_like_trace(text: &[u8]) -> bool {
    const MARKS: [&[u8]; 4] = [
        b"Start dump data blocks",
        b"Block header dump:",
        b"Dump of memory from",
        b"buffer tsn:",
    ];
    text.split(|&b| b == b'\n').take(2000).any(|l| {
        let t = trim_ascii_start(l);
        MARKS.iter().any(|m| t.starts_with(m))
    })
}

fn trim_ascii_start(mut b: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = b {
        if first.is_ascii_whitespace() {
            b = rest;
        } else {
            break;
        }
    }
    b
}

fn err(line: usize, message: String) -> InputError {
    InputError {
        format: InputFormat::OracleTrace,
        line: Some(line),
        offset: None,
        message,
    }
}

/// Read every block of a trace. `endian` forces the byte order of the hex words.
pub fn read_trace(text: &[u8], endian: Option<Endian>) -> Result<Vec<TraceBlock>, InputError> {
    let text = String::from_utf8_lossy(text);
    let lines: Vec<&str> = text
        .split('\n')
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
        .collect();
    let mut p = Parser {
        lines: &lines,
        i: 0,
        endian,
        blocks: Vec::new(),
        cur: None,
        ctx: Context::default(),
        pending_encrypted: false,
        pending: None,
    };
    p.run()?;
    if p.blocks.is_empty() {
        return Err(InputError {
            format: InputFormat::OracleTrace,
            line: None,
            offset: None,
            message: "expected a block dump (`buffer tsn:`, `Dump of memory from`, \
                      `Block header dump:` or `data_block_dump`), found none"
                .to_string(),
        });
    }
    Ok(p.blocks)
}

/// What `Start dump data blocks` said.
#[derive(Default, Clone, Copy)]
struct Context {
    tsn: Option<u32>,
    file: Option<u32>,
    minblk: Option<u32>,
    /// Blocks started since that line.
    count: u32,
    /// `file#: 5` (10g) rather than `file#:5`.
    spaced: bool,
}

struct Parser<'a> {
    lines: &'a [&'a str],
    /// Index of the next line (0-based); line numbers are `i + 1`.
    i: usize,
    endian: Option<Endian>,
    blocks: Vec<TraceBlock>,
    cur: Option<TraceBlock>,
    ctx: Context,
    pending_encrypted: bool,
    /// A `bdba:` line waiting for its `data_block_dump`.
    pending: Option<At<u32>>,
}

/// Which part of a block a line opens.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Cache,
    Hex,
    Header,
    Data,
}

impl<'a> Parser<'a> {
    fn peek(&self) -> Option<&'a str> {
        self.lines.get(self.i).copied()
    }

    fn finish(&mut self) {
        if let Some(mut b) = self.cur.take() {
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
                        let raw: [u8; 4] = bytes.get(4..8)?.try_into().ok()?;
                        Some(Rdba(word(raw, e)).split(false).1)
                    })
                    .or_else(|| {
                        self.ctx
                            .minblk
                            .map(|m| m.saturating_add(self.ctx.count.saturating_sub(1)))
                    });
            }
            self.blocks.push(b);
        }
    }

    /// The current block, or a new one, for a line opening `part` at `line`.
    fn block_for(&mut self, part: Part, line: usize) -> &mut TraceBlock {
        let taken = self.cur.as_ref().is_some_and(|b| {
            let t = b.text.as_ref();
            match part {
                Part::Cache => {
                    t.is_some_and(|t| t.cache.is_some() || t.header.is_some()) || b.bytes.is_some()
                }
                Part::Hex => b.bytes.is_some() || t.is_some_and(|t| t.header.is_some()),
                Part::Header => t.is_some_and(|t| t.header.is_some() || t.data.is_some()),
                Part::Data => t.is_some_and(|t| t.data.is_some() || t.other_body.is_some()),
            }
        });
        if taken {
            self.finish();
        }
        if self.cur.is_none() {
            self.ctx.count = self.ctx.count.saturating_add(1);
            let encrypted = std::mem::take(&mut self.pending_encrypted);
            self.cur = Some(TraceBlock {
                line,
                file: self.ctx.file,
                block: None,
                tsn: self.ctx.tsn,
                bytes: None,
                endian: None,
                endian_confirmed: false,
                hex_line: None,
                hex_address: None,
                text: None,
            });
            if encrypted {
                self.text_mut(line).encrypted = true;
            }
        }
        // The block was just ensured.
        self.cur.get_or_insert_with(|| unreachable_block(line))
    }

    fn text_mut(&mut self, line: usize) -> &mut TextBlock {
        let ctx = self.ctx;
        let b = self.cur.get_or_insert_with(|| unreachable_block(line));
        b.text.get_or_insert_with(|| TextBlock {
            line,
            version: (ctx.spaced).then_some(OracleVersion::V10),
            tsn: ctx.tsn,
            file: ctx.file,
            ..TextBlock::default()
        })
    }

    fn run(&mut self) -> Result<(), InputError> {
        while let Some(raw) = self.peek() {
            let line = self.i + 1;
            let t = raw.trim_start();
            self.i += 1;
            if let Some(rest) = t.strip_prefix("Start dump data blocks") {
                self.finish();
                self.ctx = start_line(rest, line)?;
            } else if t.starts_with("End dump data blocks") {
                self.finish();
            } else if t.starts_with("Encrypted block <") {
                self.finish();
                self.pending_encrypted = true;
            } else if let Some(rest) = t.strip_prefix("buffer tsn:") {
                self.block_for(Part::Cache, line);
                let cache = self.cache(rest, line)?;
                let version = cache_version(self.lines.get(line).copied().unwrap_or(""));
                let tb = self.text_mut(line);
                if tb.version.is_none() {
                    tb.version = version;
                }
                tb.cache = Some(cache);
            } else if let Some(rest) = t.strip_prefix("Dump of memory from") {
                self.block_for(Part::Hex, line);
                self.hex(rest, line)?;
            } else if let Some(rest) = t.strip_prefix("Block header dump:") {
                self.block_for(Part::Header, line);
                let h = self.header(rest, line)?;
                let csc_version = csc_version(self.lines.get(h.seg_line - 1).copied());
                let tb = self.text_mut(line);
                if tb.version.is_none() || csc_version == Some(OracleVersion::V12_2) {
                    tb.version = tb.version.or(csc_version);
                }
                tb.header = Some(h);
            } else if let Some(rest) = t.strip_prefix("bdba:") {
                // 11g and later print it before `data_block_dump`.
                let v = hex_u32(rest.trim(), line, "bdba: 0x…")?;
                self.pending_bdba(At { value: v, line });
            } else if let Some(rest) = t.strip_prefix("data_block_dump,data header at") {
                let bdba = self.take_pending_bdba();
                self.block_for(Part::Data, line);
                let d = self.data(rest, line, bdba)?;
                self.text_mut(line).data = Some(d);
            } else if t.starts_with("Leaf block dump") || t.starts_with("Branch block dump") {
                self.block_for(Part::Data, line);
                let name = t.to_string();
                self.text_mut(line).other_body = Some(At { value: name, line });
                self.skip_until("----- end of");
            }
        }
        self.finish();
        Ok(())
    }

    /// A `bdba:` line waiting for its `data_block_dump` (kept in the block's
    /// text as a data part without a header address).
    fn pending_bdba(&mut self, at: At<u32>) {
        self.pending = Some(at);
    }

    fn take_pending_bdba(&mut self) -> Option<At<u32>> {
        self.pending.take()
    }

    fn skip_until(&mut self, prefix: &str) {
        while let Some(l) = self.peek() {
            self.i += 1;
            if l.trim_start().starts_with(prefix) {
                break;
            }
        }
    }

    /// Next line, which must start with `key` (after leading blanks).
    fn expect(&mut self, key: &str, what: &str) -> Result<(usize, &'a str), InputError> {
        let line = self.i + 1;
        match self.peek() {
            Some(l) if l.trim_start().starts_with(key) => {
                self.i += 1;
                let t = l.trim_start();
                Ok((line, t.get(key.len()..).unwrap_or("")))
            }
            Some(l) => Err(err(line, format!("expected {what}, found {:?}", clip(l)))),
            None => Err(err(
                line,
                format!("expected {what}, found the end of the trace"),
            )),
        }
    }

    fn cache(&mut self, rest: &str, line: usize) -> Result<TextCache, InputError> {
        const BUF: &str = "`buffer tsn: N rdba: 0x… (F/B)`";
        let mut w = Words::new(rest, line, BUF);
        let tsn = w.dec_u32()?;
        w.key("rdba:")?;
        let rdba = w.hex_u32()?;
        let (rdba_file, rdba_block) = w.paren_pair()?;
        w.end()?;
        const SCN: &str = "`scn: … seq: 0x.. flg: 0x.. tail: 0x…`";
        let (scn_line, rest) = self.expect("scn:", SCN)?;
        let mut w = Words::new(rest, scn_line, SCN);
        let scn = w.scn()?;
        w.key("seq:")?;
        let seq = w.hex_u8()?;
        w.key("flg:")?;
        let flg = w.hex_u8()?;
        w.key("tail:")?;
        let tail = w.hex_u32()?;
        w.end()?;
        const FRMT: &str = "`frmt: 0x.. chkval: 0x…. type: 0x..=name`";
        let (frmt_line, rest) = self.expect("frmt:", FRMT)?;
        let mut w = Words::new(rest, frmt_line, FRMT);
        let frmt = w.hex_u8()?;
        w.key("chkval:")?;
        let chkval = w.hex_u16()?;
        w.key("type:")?;
        let ty = w.rest();
        let (code, name) = ty.split_once('=').unwrap_or((ty, ""));
        let type_kcbh = parse_hex(code, frmt_line, FRMT)?.try_into().map_err(|_| {
            err(
                frmt_line,
                format!("expected {FRMT}, found a type over 0xff"),
            )
        })?;
        Ok(TextCache {
            line,
            scn_line,
            frmt_line,
            tsn,
            rdba,
            rdba_file,
            rdba_block,
            scn,
            seq,
            flg,
            tail,
            frmt,
            chkval,
            type_kcbh,
            type_name: name.to_string(),
        })
    }

    fn hex(&mut self, rest: &str, line: usize) -> Result<(), InputError> {
        const WHAT: &str = "`Dump of memory from 0x… to 0x…`";
        let mut w = Words::new(rest, line, WHAT);
        let from = w.hex_u64()?;
        w.key("to")?;
        let to = w.hex_u64()?;
        w.end()?;
        let size = to
            .checked_sub(from)
            .filter(|&n| n > 0 && n <= MAX_HEX_SECTION && n % 4 == 0)
            .ok_or_else(|| {
                err(
                    line,
                    format!(
                        "expected a memory range of 4 bytes to {MAX_HEX_SECTION} bytes \
                         (a multiple of 4), found 0x{from:x} to 0x{to:x}"
                    ),
                )
            })?;
        let size = size as usize;
        let mut words: Vec<u32> = Vec::with_capacity(size / 4);
        let mut last: Option<[u32; 4]> = None;
        while words.len() * 4 < size {
            let Some(l) = self.peek() else { break };
            let n = self.i + 1;
            let t = l.trim();
            if let Some(r) = t.strip_prefix("Repeat ") {
                let count = r
                    .strip_suffix(" times")
                    .or_else(|| r.strip_suffix(" time"))
                    .and_then(|c| c.trim().parse::<u64>().ok())
                    .ok_or_else(|| err(n, format!("expected `Repeat N times`, found {t:?}")))?;
                let Some(prev) = last else {
                    return Err(err(n, "expected a hex line before `Repeat N times`".into()));
                };
                let room = ((size - words.len() * 4) / 16) as u64;
                if count > room {
                    return Err(err(
                        n,
                        format!(
                            "`Repeat {count} times` runs past the end of the section \
                             (room for {room} more lines of 16 bytes)"
                        ),
                    ));
                }
                for _ in 0..count {
                    words.extend_from_slice(&prev);
                }
                self.i += 1;
                continue;
            }
            let Some(row) = hex_row(t) else { break };
            let (addr, ws) = row;
            let at = from.wrapping_add(words.len() as u64 * 4);
            let digits = t.split_whitespace().next().map_or(0, str::len);
            let mask = if digits >= 16 {
                u64::MAX
            } else {
                (1u64 << (4 * digits as u32)) - 1
            };
            if addr != at & mask {
                return Err(err(
                    n,
                    format!("expected the hex line for address 0x{at:X}, found address 0x{addr:X}"),
                ));
            }
            let room = (size - words.len() * 4) / 4;
            if ws.len() > room {
                return Err(err(
                    n,
                    format!("hex line runs past the end of the section at 0x{to:X}"),
                ));
            }
            words.extend_from_slice(&ws);
            last = <[u32; 4]>::try_from(ws.as_slice()).ok();
            self.i += 1;
        }
        let have = words.len() * 4;
        if have < size {
            return Err(err(
                line,
                format!(
                    "hex section from 0x{from:X} to 0x{to:X} is truncated: {have} of {size} bytes \
                     present, {} bytes missing (the section ends at line {})",
                    size - have,
                    self.i
                ),
            ));
        }
        let (endian, confirmed, bytes) = match self.endian {
            Some(e) => {
                let b = to_bytes(&words, e);
                (e, consistent(&b, e), b)
            }
            None => {
                let le = to_bytes(&words, Endian::Little);
                if consistent(&le, Endian::Little) {
                    (Endian::Little, true, le)
                } else {
                    let be = to_bytes(&words, Endian::Big);
                    if consistent(&be, Endian::Big) {
                        (Endian::Big, true, be)
                    } else {
                        (Endian::Little, false, le)
                    }
                }
            }
        };
        let b = self.cur.get_or_insert_with(|| unreachable_block(line));
        b.bytes = Some(bytes);
        b.endian = Some(endian);
        b.endian_confirmed = confirmed;
        b.hex_line = Some(line);
        b.hex_address = Some(from);
        Ok(())
    }

    fn header(&mut self, rest: &str, line: usize) -> Result<TextHeader, InputError> {
        let rdba = hex_u32(rest.trim(), line, "`Block header dump:  0x…`")?;
        // ` Object id on Block? Y` is optional in pastes.
        if self
            .peek()
            .is_some_and(|l| l.trim_start().starts_with("Object id on Block?"))
        {
            self.i += 1;
        }
        const SEG: &str = "`seg/obj: 0x…  csc: …  itc: N  flg: X  typ: N - DATA|INDEX`";
        let (seg_line, rest) = self.expect("seg/obj:", SEG)?;
        let mut w = Words::new(rest, seg_line, SEG);
        let seg_obj = w.hex_u32()?;
        w.key("csc:")?;
        let csc = w.scn()?;
        w.key("itc:")?;
        let itc = w.dec_u8()?;
        w.key("flg:")?;
        let flg = w.char()?;
        w.key("typ:")?;
        let typ = w.dec_u8()?;
        let mut h = TextHeader {
            line,
            rdba,
            seg_line,
            seg_obj,
            csc,
            itc,
            flg,
            typ,
            brn_line: None,
            assm: None,
            fsl: None,
            fnx: None,
            extension: None,
            itls: Vec::new(),
        };
        if let Some(l) = self.peek() {
            let t = l.trim_start();
            let n = self.i + 1;
            let assm = t.starts_with("brn:");
            if assm || t.starts_with("fsl:") {
                self.i += 1;
                const BRN: &str =
                    "`brn: N  bdba: 0x… ver: 0x01 opc: 0` or `fsl: N  fnx: 0x… ver: 0x01`";
                let mut w = Words::new(t, n, BRN);
                w.key(if assm { "brn:" } else { "fsl:" })?;
                h.fsl = Some(w.dec_u8()?);
                w.key(if assm { "bdba:" } else { "fnx:" })?;
                h.fnx = Some(w.hex_u32()?);
                h.assm = Some(assm);
                h.brn_line = Some(n);
            }
        }
        if let Some(l) = self.peek() {
            if let Some(r) = l.trim_start().strip_prefix("inc:") {
                let n = self.i + 1;
                self.i += 1;
                const INC: &str = "`inc: N  exflg: N`";
                let mut w = Words::new(r, n, INC);
                let inc = w.dec_u32()?;
                w.key("exflg:")?;
                let exflg = w.dec_u32()?;
                w.end()?;
                h.extension = Some(At {
                    value: KtbbhExtension { inc, exflg },
                    line: n,
                });
            }
        }
        // Blank lines, then the ITL title.
        while self.peek().is_some_and(|l| l.trim().is_empty()) {
            self.i += 1;
        }
        if !self
            .peek()
            .is_some_and(|l| l.trim_start().starts_with("Itl"))
        {
            return Ok(h);
        }
        self.i += 1;
        while let Some(l) = self.peek() {
            let t = l.trim();
            if !t.starts_with("0x") {
                break;
            }
            let n = self.i + 1;
            self.i += 1;
            h.itls.push(At {
                value: itl_line(t, n)?,
                line: n,
            });
        }
        Ok(h)
    }

    fn data(
        &mut self,
        rest: &str,
        line: usize,
        bdba: Option<At<u32>>,
    ) -> Result<TextData, InputError> {
        let header_address = hex_u64(rest.trim(), line, "`data_block_dump,data header at 0x…`")?;
        let mut d = TextData {
            line,
            bdba,
            header_address,
            tsiz: None,
            hsiz: None,
            pbl: None,
            kdbhflag: None,
            kdbhntab: None,
            kdbhnrow: None,
            kdbhfrre: None,
            kdbhfsbo: None,
            kdbhfseo: None,
            kdbhavsp: None,
            kdbhtosp: None,
            kdbt: Vec::new(),
            kdbr: Vec::new(),
            rows: Vec::new(),
            complete: false,
        };
        // Bytes still owed by the last column line, and its row/column index.
        let mut owed = 0usize;
        while let Some(raw) = self.peek() {
            let n = self.i + 1;
            self.i += 1;
            let t = raw.trim();
            if owed > 0 {
                let bytes = hex_pairs(t).ok_or_else(|| {
                    err(
                        n,
                        format!(
                            "expected {owed} more bytes of the column as hex pairs, found {:?}",
                            clip(t)
                        ),
                    )
                })?;
                if bytes.len() > owed {
                    return Err(err(
                        n,
                        format!(
                            "expected {owed} more bytes of the column, found {}",
                            bytes.len()
                        ),
                    ));
                }
                owed -= bytes.len();
                if let Some(c) = d.rows.last_mut().and_then(|r| r.cols.last_mut()) {
                    c.data.extend_from_slice(&bytes);
                }
                continue;
            }
            if t.is_empty() || t.starts_with("===") || t == "76543210" || t == "block_row_dump:" {
                continue;
            }
            if t == "end_of_block_dump" {
                d.complete = true;
                break;
            }
            let at = |value| Some(At { value, line: n });
            if let Some(r) = t.strip_prefix("tsiz:") {
                d.tsiz = at(hex_u32(r.trim(), n, "`tsiz: 0x…`")? as usize);
            } else if let Some(r) = t.strip_prefix("hsiz:") {
                d.hsiz = at(hex_u32(r.trim(), n, "`hsiz: 0x…`")? as usize);
            } else if let Some(r) = t.strip_prefix("pbl:") {
                d.pbl = Some(At {
                    value: hex_u64(r.trim(), n, "`pbl: 0x…`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("bdba:") {
                // 10g prints it after `pbl:`.
                d.bdba = Some(At {
                    value: hex_u32(r.trim(), n, "`bdba: 0x…`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("flag=") {
                d.kdbhflag = Some(At {
                    value: flag_string(r, n)?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("ntab=") {
                d.kdbhntab = Some(At {
                    value: dec::<u8>(r, n, "`ntab=N`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("nrow=") {
                d.kdbhnrow = Some(At {
                    value: dec::<u16>(r, n, "`nrow=N`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("frre=") {
                d.kdbhfrre = Some(At {
                    value: dec::<i16>(r, n, "`frre=N`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("fsbo=") {
                d.kdbhfsbo = Some(At {
                    value: hex_u16(r, n, "`fsbo=0x…`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("fseo=") {
                d.kdbhfseo = Some(At {
                    value: hex_u16(r, n, "`fseo=0x…`")?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("avsp=") {
                d.kdbhavsp = Some(At {
                    value: hex_u16(r, n, "`avsp=0x…`")? as i16,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("tosp=") {
                d.kdbhtosp = Some(At {
                    value: hex_u16(r, n, "`tosp=0x…`")? as i16,
                    line: n,
                });
            } else if t.contains(":pti[") {
                d.kdbt.push(At {
                    value: pti_line(t, n)?,
                    line: n,
                });
            } else if t.contains(":pri[") {
                d.kdbr.push(At {
                    value: pri_line(t, n)?,
                    line: n,
                });
            } else if let Some(r) = t.strip_prefix("tab ") {
                d.rows.push(tab_line(r, n)?);
            } else if let Some(r) = t.strip_prefix("tl:") {
                let row = d
                    .rows
                    .last_mut()
                    .ok_or_else(|| err(n, "expected `tab T, row R, @0x…` before `tl:`".into()))?;
                tl_line(r, n, row)?;
            } else if let Some(r) = t.strip_prefix("hrid:").or_else(|| t.strip_prefix("nrid:")) {
                let rid = rid_text(r, n)?;
                let row = d
                    .rows
                    .last_mut()
                    .ok_or_else(|| err(n, "expected `tab T, row R, @0x…` before a rowid".into()))?;
                let v = Some(At {
                    value: rid,
                    line: n,
                });
                if t.starts_with("hrid:") {
                    row.hrid = v;
                } else {
                    row.nrid = v;
                }
            } else if let Some(r) = t.strip_prefix("col") {
                let row = d
                    .rows
                    .last_mut()
                    .ok_or_else(|| err(n, "expected `tab T, row R, @0x…` before `col`".into()))?;
                let c = col_line(r, n)?;
                owed = c.len.unwrap_or(0).saturating_sub(c.data.len());
                row.cols.push(c);
            } else {
                return Err(err(
                    n,
                    format!(
                        "expected a data block dump line (tsiz:, hsiz:, pbl:, flag=, ntab= … tosp=, \
                         pti[], pri[], tab, tl:, col, end_of_block_dump), found {:?}",
                        clip(t)
                    ),
                ));
            }
        }
        if owed > 0 {
            return Err(err(
                self.i + 1,
                format!("expected {owed} more bytes of the column, found the end of the trace"),
            ));
        }
        Ok(d)
    }
}

/// A block that cannot be needed: `block_for` always sets one first.
fn unreachable_block(line: usize) -> TraceBlock {
    TraceBlock {
        line,
        file: None,
        block: None,
        tsn: None,
        bytes: None,
        endian: None,
        endian_confirmed: false,
        hex_line: None,
        hex_address: None,
        text: None,
    }
}

/// A line shortened for an error message.
fn clip(s: &str) -> String {
    let t: String = s.trim().chars().take(60).collect();
    if t.len() < s.trim().len() {
        format!("{t}…")
    } else {
        t
    }
}

fn word(raw: [u8; 4], e: Endian) -> u32 {
    match e {
        Endian::Little => u32::from_le_bytes(raw),
        Endian::Big => u32::from_be_bytes(raw),
    }
}

fn to_bytes(words: &[u32], e: Endian) -> Vec<u8> {
    let mut out = Vec::with_capacity(words.len() * 4);
    for w in words {
        out.extend_from_slice(&match e {
            Endian::Little => w.to_le_bytes(),
            Endian::Big => w.to_be_bytes(),
        });
    }
    out
}

/// Whether `b` read in `e` is a cache block whose tail repeats its header
/// (and, when it claims a check value, XORs to zero) (§2.4, §9).
fn consistent(b: &[u8], e: Endian) -> bool {
    let n = b.len();
    let (Some(&ty), Some(&seq), Some(&flg)) = (b.first(), b.get(14), b.get(15)) else {
        return false;
    };
    let (Some(bas), Some(tail)) = (
        b.get(8..12).and_then(|s| <[u8; 4]>::try_from(s).ok()),
        n.checked_sub(4)
            .and_then(|s| b.get(s..))
            .and_then(|s| <[u8; 4]>::try_from(s).ok()),
    ) else {
        return false;
    };
    let expected = ((word(bas, e) & 0xffff) << 16) | (u32::from(ty) << 8) | u32::from(seq);
    ty != 0 && word(tail, e) == expected && (flg & 0x04 == 0 || checksum::xor16(b, e) == 0)
}

/// `ADDR W W W W  [ascii]` → address and words (1–4 of 8 hex digits).
fn hex_row(t: &str) -> Option<(u64, Vec<u32>)> {
    let body = t.split('[').next().unwrap_or(t);
    let mut it = body.split_whitespace();
    let addr_text = it.next()?;
    if addr_text.len() > 16 {
        return None;
    }
    let addr = u64::from_str_radix(addr_text, 16).ok()?;
    let mut words = Vec::with_capacity(4);
    for w in it {
        if w.len() != 8 || words.len() == 4 {
            return None;
        }
        words.push(u32::from_str_radix(w, 16).ok()?);
    }
    (!words.is_empty()).then_some((addr, words))
}

/// Space-separated hex pairs (a column continuation line).
fn hex_pairs(t: &str) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    for p in t.split_whitespace() {
        if p.len() != 2 {
            return None;
        }
        out.push(u8::from_str_radix(p, 16).ok()?);
    }
    (!out.is_empty()).then_some(out)
}

fn parse_hex(s: &str, line: usize, what: &str) -> Result<u64, InputError> {
    let s = s.trim();
    let h = s
        .strip_prefix("0x")
        .or_else(|| s.strip_prefix("0X"))
        .ok_or_else(|| {
            err(
                line,
                format!("expected {what}, found {:?} (no 0x)", clip(s)),
            )
        })?;
    if h.is_empty() || h.len() > 16 {
        return Err(err(line, format!("expected {what}, found {:?}", clip(s))));
    }
    u64::from_str_radix(h, 16)
        .map_err(|_| err(line, format!("expected {what}, found {:?}", clip(s))))
}

fn hex_u64(s: &str, line: usize, what: &str) -> Result<u64, InputError> {
    parse_hex(s, line, what)
}

fn hex_u32(s: &str, line: usize, what: &str) -> Result<u32, InputError> {
    parse_hex(s, line, what)?.try_into().map_err(|_| {
        err(
            line,
            format!("expected {what} (32 bits), found {:?}", clip(s)),
        )
    })
}

fn hex_u16(s: &str, line: usize, what: &str) -> Result<u16, InputError> {
    parse_hex(s, line, what)?.try_into().map_err(|_| {
        err(
            line,
            format!("expected {what} (16 bits), found {:?}", clip(s)),
        )
    })
}

fn dec<T: std::str::FromStr>(s: &str, line: usize, what: &str) -> Result<T, InputError> {
    s.trim()
        .parse()
        .map_err(|_| err(line, format!("expected {what}, found {:?}", clip(s))))
}

/// The words of one line, consumed left to right.
struct Words<'a> {
    it: std::iter::Peekable<std::str::SplitWhitespace<'a>>,
    text: &'a str,
    line: usize,
    what: &'static str,
}

impl<'a> Words<'a> {
    fn new(text: &'a str, line: usize, what: &'static str) -> Self {
        Words {
            it: text.split_whitespace().peekable(),
            text,
            line,
            what,
        }
    }

    fn fail(&self, why: &str) -> InputError {
        err(
            self.line,
            format!("expected {}, found {:?}: {why}", self.what, clip(self.text)),
        )
    }

    fn next(&mut self) -> Result<&'a str, InputError> {
        self.it.next().ok_or_else(|| self.fail("line ends early"))
    }

    fn key(&mut self, k: &str) -> Result<(), InputError> {
        let w = self.next()?;
        if w == k {
            Ok(())
        } else {
            Err(self.fail(&format!("`{k}` missing")))
        }
    }

    fn hex_u64(&mut self) -> Result<u64, InputError> {
        let w = self.next()?;
        parse_hex(w, self.line, self.what)
    }

    fn hex_u32(&mut self) -> Result<u32, InputError> {
        let w = self.next()?;
        hex_u32(w, self.line, self.what)
    }

    fn hex_u16(&mut self) -> Result<u16, InputError> {
        let w = self.next()?;
        hex_u16(w, self.line, self.what)
    }

    fn hex_u8(&mut self) -> Result<u8, InputError> {
        let w = self.next()?;
        parse_hex(w, self.line, self.what)?
            .try_into()
            .map_err(|_| self.fail("value over 0xff"))
    }

    fn dec_u32(&mut self) -> Result<u32, InputError> {
        let w = self.next()?;
        dec(w, self.line, self.what)
    }

    fn dec_u8(&mut self) -> Result<u8, InputError> {
        let w = self.next()?;
        dec(w, self.line, self.what)
    }

    fn char(&mut self) -> Result<char, InputError> {
        let w = self.next()?;
        let mut cs = w.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(self.fail("expected one letter")),
        }
    }

    /// `(F/B)`.
    fn paren_pair(&mut self) -> Result<(u32, u32), InputError> {
        let w = self.next()?;
        let inner = w
            .strip_prefix('(')
            .and_then(|w| w.strip_suffix(')'))
            .ok_or_else(|| self.fail("`(file/block)` missing"))?;
        let (f, b) = inner
            .split_once('/')
            .ok_or_else(|| self.fail("`(file/block)` missing"))?;
        Ok((dec(f, self.line, self.what)?, dec(b, self.line, self.what)?))
    }

    /// Any of the SCN print forms (§2.5): `0xWRAP.BASE` or `0xVALUE`.
    fn scn(&mut self) -> Result<u64, InputError> {
        let w = self.next()?;
        scn_value(w)
            .ok_or_else(|| self.fail("expected an SCN (0x0000.001732d3, 0x0.4e9af4 or 0x80e5e2)"))
    }

    fn rest(&mut self) -> &'a str {
        let mut s = "";
        if let Some(w) = self.it.next() {
            s = w;
        }
        s
    }

    fn end(&mut self) -> Result<(), InputError> {
        match self.it.peek() {
            None => Ok(()),
            Some(_) => Err(self.fail("unexpected words at the end")),
        }
    }
}

fn scn_value(w: &str) -> Option<u64> {
    let h = w.strip_prefix("0x")?;
    match h.split_once('.') {
        Some((wrap, base))
            if !wrap.is_empty() && wrap.len() <= 8 && !base.is_empty() && base.len() <= 8 =>
        {
            let wrap = u64::from_str_radix(wrap, 16).ok()?;
            let base = u64::from_str_radix(base, 16).ok()?;
            Some((wrap << 32) | base)
        }
        Some(_) => None,
        None if !h.is_empty() && h.len() <= 16 => u64::from_str_radix(h, 16).ok(),
        None => None,
    }
}

/// The release the `scn:` line's form implies (§2.5).
fn cache_version(scn_line: &str) -> Option<OracleVersion> {
    let w = scn_line
        .trim_start()
        .strip_prefix("scn:")?
        .split_whitespace()
        .next()?;
    let h = w.strip_prefix("0x")?;
    Some(match h.split_once('.') {
        Some((wrap, _)) if wrap.len() == 4 => OracleVersion::V11,
        Some(_) => OracleVersion::V12_1,
        None => OracleVersion::V12_2,
    })
}

/// `csc:  0x000000000080e5e1` (two spaces, 16 digits) is 12.2+.
fn csc_version(seg_line: Option<&str>) -> Option<OracleVersion> {
    let l = seg_line?;
    let i = l.find("csc:")?;
    let w = l.get(i + 4..)?.split_whitespace().next()?;
    (!w.contains('.')).then_some(OracleVersion::V12_2)
}

/// `Start dump data blocks tsn: 7 file#: 5 minblk 16 maxblk 16`.
fn start_line(rest: &str, line: usize) -> Result<Context, InputError> {
    const WHAT: &str = "`Start dump data blocks tsn: N file#:N minblk N maxblk N`";
    let mut c = Context::default();
    let mut it = rest.split_whitespace().peekable();
    while let Some(w) = it.next() {
        let num = |w: Option<&str>| -> Result<Option<u32>, InputError> {
            match w {
                Some(v) => dec(v, line, WHAT).map(Some),
                None => Err(err(
                    line,
                    format!("expected {WHAT}, found the line ending early"),
                )),
            }
        };
        match w {
            "tsn:" => c.tsn = num(it.next())?,
            "file#:" => {
                c.spaced = true;
                c.file = num(it.next())?;
            }
            "minblk" => c.minblk = num(it.next())?,
            "maxblk" => {
                num(it.next())?;
            }
            w if w.starts_with("file#:") => c.file = num(w.get(6..))?,
            _ => {}
        }
    }
    Ok(c)
}

/// `0x01   0x0007.01d.000001d0  0x00000987.0390.27  --U-    1  fsc 0x0000.004e9af4`.
fn itl_line(t: &str, line: usize) -> Result<Itl, InputError> {
    const WHAT: &str =
        "an ITL line `0xNN   0xUSN.SLT.SQN  0xUBA.SEQ.RC  CBUT  LCK  scn|fsc 0xWRAP.BASE`";
    let bad = |why: &str| err(line, format!("expected {WHAT}, found {:?}: {why}", clip(t)));
    let w: Vec<&str> = t.split_whitespace().collect();
    let [no, xid, uba, flags, lck, kind, scn] = w.as_slice() else {
        return Err(bad("not 7 fields"));
    };
    let itl = parse_hex(no, line, WHAT)? as usize;
    let dotted = |s: &str, n: usize| -> Option<Vec<u64>> {
        let parts: Vec<u64> = s
            .strip_prefix("0x")?
            .split('.')
            .map(|p| u64::from_str_radix(p, 16).ok())
            .collect::<Option<_>>()?;
        (parts.len() == n).then_some(parts)
    };
    let x = dotted(xid, 3).ok_or_else(|| bad("bad Xid"))?;
    let u = dotted(uba, 3).ok_or_else(|| bad("bad Uba"))?;
    let s = dotted(scn, 2).ok_or_else(|| bad("bad Scn/Fsc"))?;
    if flags.len() != 4 {
        return Err(bad("flag is not 4 characters"));
    }
    let mut flg: u16 = 0;
    for (ch, (mask, letter)) in flags.chars().zip([
        (0x8000u16, 'C'),
        (0x4000, 'B'),
        (0x2000, 'U'),
        (0x1000, 'T'),
    ]) {
        if ch == letter {
            flg |= mask;
        } else if ch != '-' {
            return Err(bad("flag letters are CBUT or -"));
        }
    }
    let lck: u16 = lck.parse().map_err(|_| bad("bad Lck"))?;
    if lck > 0x0fff {
        return Err(bad("Lck over 4095"));
    }
    if !matches!(*kind, "scn" | "fsc") {
        return Err(bad("expected scn or fsc"));
    }
    let fit = |v: u64, max: u64| (v <= max).then_some(v).ok_or_else(|| bad("field too wide"));
    Ok(Itl {
        itl,
        kxidusn: fit(x[0], 0xffff)? as u16,
        kxidslt: fit(x[1], 0xffff)? as u16,
        kxidsqn: fit(x[2], 0xffff_ffff)? as u32,
        kubadba: fit(u[0], 0xffff_ffff)? as u32,
        kubaseq: fit(u[1], 0xffff)? as u16,
        kubarec: fit(u[2], 0xff)? as u8,
        ktbitflg: flg | lck,
        ktbitun: fit(s[0], 0xffff)? as u16,
        ktbitbas: fit(s[1], 0xffff_ffff)? as u32,
    })
}

/// `--------` under the `76543210` ruler: a letter (any) marks a set bit.
fn flag_string(r: &str, line: usize) -> Result<u8, InputError> {
    let r = r.trim();
    if r.chars().count() != 8 {
        return Err(err(
            line,
            format!("expected `flag=` and 8 characters, found {:?}", clip(r)),
        ));
    }
    Ok(r.chars()
        .enumerate()
        .filter(|(_, c)| *c != '-')
        .fold(0u8, |acc, (i, _)| acc | (0x80 >> i)))
}

/// `0xe:pti[0]\tnrow=1\toffs=0`.
fn pti_line(t: &str, line: usize) -> Result<Kdbt, InputError> {
    const WHAT: &str = "`0x…:pti[T] nrow=N offs=N`";
    let (_, r) = t
        .split_once(":pti[")
        .ok_or_else(|| err(line, format!("expected {WHAT}")))?;
    let (table, r) = r
        .split_once(']')
        .ok_or_else(|| err(line, format!("expected {WHAT}, found {:?}", clip(t))))?;
    let mut w = Words::new(r, line, WHAT);
    let nrow = w
        .next()?
        .strip_prefix("nrow=")
        .ok_or_else(|| w.fail("`nrow=` missing"))?;
    let offs = w
        .next()?
        .strip_prefix("offs=")
        .ok_or_else(|| w.fail("`offs=` missing"))?;
    w.end()?;
    Ok(Kdbt {
        table: dec(table, line, WHAT)?,
        kdbtoffs: dec(offs, line, WHAT)?,
        kdbtnrow: dec(nrow, line, WHAT)?,
    })
}

/// `0x12:pri[0]\toffs=0x1f8a` or `0x14:pri[1]\tsfll=2`.
fn pri_line(t: &str, line: usize) -> Result<KdbrEntry, InputError> {
    const WHAT: &str = "`0x…:pri[S] offs=0x…` or `sfll=N`";
    let (_, r) = t
        .split_once(":pri[")
        .ok_or_else(|| err(line, format!("expected {WHAT}")))?;
    let (slot, r) = r
        .split_once(']')
        .ok_or_else(|| err(line, format!("expected {WHAT}, found {:?}", clip(t))))?;
    let r = r.trim();
    let slot = dec(slot, line, WHAT)?;
    if let Some(o) = r.strip_prefix("offs=") {
        Ok(KdbrEntry {
            slot,
            kdbr: hex_u16(o, line, WHAT)?,
            free: false,
        })
    } else if let Some(s) = r.strip_prefix("sfll=") {
        Ok(KdbrEntry {
            slot,
            kdbr: dec::<i16>(s, line, WHAT)? as u16,
            free: true,
        })
    } else {
        Err(err(line, format!("expected {WHAT}, found {:?}", clip(t))))
    }
}

/// `0, row 0, @0x1f8a` after `tab `.
fn tab_line(r: &str, line: usize) -> Result<TextRow, InputError> {
    const WHAT: &str = "`tab T, row R, @0x…`";
    let bad = || err(line, format!("expected {WHAT}, found {:?}", clip(r)));
    let mut parts = r.split(',').map(str::trim);
    let tab = parts.next().ok_or_else(bad)?;
    let row = parts
        .next()
        .and_then(|p| p.strip_prefix("row "))
        .ok_or_else(bad)?;
    let offs = parts
        .next()
        .and_then(|p| p.strip_prefix('@'))
        .ok_or_else(bad)?;
    if parts.next().is_some() {
        return Err(bad());
    }
    Ok(TextRow {
        line,
        tab: dec(tab, line, WHAT)?,
        row: dec(row, line, WHAT)?,
        offs: hex_u16(offs, line, WHAT)?,
        tl_line: None,
        tl: None,
        flag: None,
        lb: None,
        cc: None,
        hrid: None,
        nrid: None,
        cols: Vec::new(),
    })
}

/// ` 14 fb: --H-FL-- lb: 0x1  cc: 1` after `tl:` (no `cc` for deleted rows).
fn tl_line(r: &str, line: usize, row: &mut TextRow) -> Result<(), InputError> {
    const WHAT: &str = "`tl: N fb: KCHDFLPN lb: 0x…  cc: N`";
    let mut w = Words::new(r, line, WHAT);
    let tl = w.dec_u32()? as usize;
    w.key("fb:")?;
    let fb = w.next()?;
    if fb.chars().count() != 8 {
        return Err(w.fail("fb is not 8 characters"));
    }
    let mut flag = 0u8;
    for (ch, (mask, letter)) in fb.chars().zip([
        (0x80u8, 'K'),
        (0x40, 'C'),
        (0x20, 'H'),
        (0x10, 'D'),
        (0x08, 'F'),
        (0x04, 'L'),
        (0x02, 'P'),
        (0x01, 'N'),
    ]) {
        if ch == letter {
            flag |= mask;
        } else if ch != '-' {
            return Err(w.fail("fb letters are KCHDFLPN or -"));
        }
    }
    w.key("lb:")?;
    let lb = w.hex_u8()?;
    let cc = if w.it.peek().is_some() {
        w.key("cc:")?;
        let cc = w.dec_u8()?;
        w.end()?;
        Some(cc)
    } else {
        None
    };
    row.tl_line = Some(line);
    row.tl = Some(tl);
    row.flag = Some(flag);
    row.lb = Some(lb);
    row.cc = cc;
    Ok(())
}

/// `0x01400010.2` (hrid/nrid).
fn rid_text(r: &str, line: usize) -> Result<RowRef, InputError> {
    const WHAT: &str = "a rowid `0xDBA.SLOT`";
    let t = r.trim();
    let (dba, slot) = t
        .split_once('.')
        .ok_or_else(|| err(line, format!("expected {WHAT}, found {:?}", clip(t))))?;
    Ok(RowRef {
        dba: hex_u32(dba, line, WHAT)?,
        slot: u16::from_str_radix(slot, 16)
            .map_err(|_| err(line, format!("expected {WHAT}, found {:?}", clip(t))))?,
    })
}

/// `  0: [10]  41 41 …` or `  3: *NULL*` after `col`.
fn col_line(r: &str, line: usize) -> Result<TextColumn, InputError> {
    const WHAT: &str = "`col N: [LEN]  xx xx …` or `col N: *NULL*`";
    let bad = || err(line, format!("expected {WHAT}, found {:?}", clip(r)));
    let (no, rest) = r.split_once(':').ok_or_else(bad)?;
    let col = dec(no, line, WHAT)?;
    let rest = rest.trim();
    if rest == "*NULL*" {
        return Ok(TextColumn {
            line,
            col,
            len: None,
            data: Vec::new(),
        });
    }
    let (len, data) = rest
        .strip_prefix('[')
        .and_then(|s| s.split_once(']'))
        .ok_or_else(bad)?;
    let len: usize = dec(len, line, WHAT)?;
    if len > 0xffff {
        return Err(bad());
    }
    let data = if data.trim().is_empty() {
        Vec::new()
    } else {
        hex_pairs(data).ok_or_else(bad)?
    };
    if data.len() > len {
        return Err(err(
            line,
            format!(
                "expected {len} bytes for column {col}, found {}",
                data.len()
            ),
        ));
    }
    Ok(TextColumn {
        line,
        col,
        len: Some(len),
        data,
    })
}

/// The block a [`TextBlock`] describes, as an [`OracleBlock`] for the dump
/// renderer (`--format dump` of a trace that carries no bytes). Only what the
/// dump prints is filled in: bytes the text does not show (spare bytes, the
/// format byte's size bits, absolute offsets of columns) are zero here and are
/// never shown by that renderer. `None` without a cache header or block header.
pub fn render_view(t: &TextBlock, blkno: u64) -> Option<crate::model::oracle::OracleBlock> {
    use crate::model::oracle::{
        ByteOrder, Column, Kcbh, Kdbh, Ktbbh, OracleBlock, OracleKind, RowPiece, Scn, TableData,
    };
    if t.cache.is_none() && t.header.is_none() {
        return None;
    }
    let rdba = t
        .cache
        .as_ref()
        .map(|c| c.rdba)
        .or_else(|| t.header.as_ref().map(|h| h.rdba))
        .unwrap_or(0);
    let kcbh = t.cache.as_ref().map_or(
        Kcbh {
            type_kcbh: 6,
            frmt_kcbh: 2,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: rdba,
            bas_kcbh: 0,
            wrp_kcbh: 0,
            seq_kcbh: 0,
            flg_kcbh: 0,
            chkval_kcbh: 0,
            spare3_kcbh: 0,
        },
        |c| Kcbh {
            type_kcbh: c.type_kcbh,
            frmt_kcbh: c.frmt,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: c.rdba,
            bas_kcbh: c.scn as u32,
            wrp_kcbh: (c.scn >> 32) as u16,
            seq_kcbh: c.seq,
            flg_kcbh: c.flg,
            chkval_kcbh: c.chkval,
            spare3_kcbh: 0,
        },
    );
    let ktbbh = t.header.as_ref().map(|h| {
        let flg = match h.flg {
            'E' => 0x32,
            'O' => 0x03,
            _ => 0x02,
        };
        Ktbbh {
            ktbbhtyp: h.typ,
            ktbbhsid: h.seg_obj,
            ktbbhcsc: Scn {
                kscnbas: h.csc as u32,
                kscnwrp: (h.csc >> 32) as u16,
                kscnwrp2: 0,
            },
            ktbbhict: h.itc,
            ktbbhflg: flg,
            ktbbhfsl: h.fsl.unwrap_or(0),
            ktbbhfnx: h.fnx.unwrap_or(0),
            ktbbhitl: h.itls.iter().map(|i| i.value.clone()).collect(),
            extension: h.extension.as_ref().map(|e| e.value.clone()),
            payload_offset: super::ktb::payload_offset(usize::from(h.itc), flg),
        }
    });
    let payload = ktbbh.as_ref().map_or(0, |k| k.payload_offset);
    let table = t.data.as_ref().and_then(|d| {
        let v = |a: Option<At<u16>>| a.map(|a| a.value);
        let kdbh = Kdbh {
            offset: payload,
            kdbhflag: d.kdbhflag?.value,
            kdbhntab: d.kdbhntab?.value,
            kdbhnrow: v(d.kdbhnrow)?,
            kdbhfrre: d.kdbhfrre?.value,
            kdbhfsbo: v(d.kdbhfsbo)?,
            kdbhfseo: v(d.kdbhfseo)?,
            kdbhavsp: d.kdbhavsp?.value,
            kdbhtosp: d.kdbhtosp?.value,
            tsiz: d.tsiz?.value,
            hsiz: d.hsiz?.value,
        };
        let rows = d
            .rows
            .iter()
            .map(|r| RowPiece {
                tab: r.tab,
                row: r.row,
                slot: r.row,
                offs: r.offs,
                offset: payload.saturating_add(usize::from(r.offs)),
                flag: r.flag.unwrap_or(0),
                lb: r.lb.unwrap_or(0),
                cc: r.cc,
                tl: r.tl.unwrap_or(0),
                hrid: r.hrid.map(|h| h.value),
                nrid: r.nrid.map(|h| h.value),
                cols: r
                    .cols
                    .iter()
                    .map(|c| Column {
                        col: c.col,
                        offset: 0,
                        len: c.len,
                        long_form: false,
                        data: c.data.clone(),
                        value: None,
                        reads_as: String::new(),
                    })
                    .collect(),
                trailing_nulls: Vec::new(),
            })
            .collect();
        Some(TableData {
            kdbh,
            kdbt: d.kdbt.iter().map(|k| k.value.clone()).collect(),
            kdbr: d.kdbr.iter().map(|k| k.value.clone()).collect(),
            rows,
        })
    });
    Some(OracleBlock {
        blkno,
        size: 0,
        endian: ByteOrder::Little,
        kind: if table.is_some() {
            OracleKind::Table
        } else {
            OracleKind::TransData
        },
        encrypted: t.encrypted,
        kcbh: Some(kcbh),
        tailchk: t.cache.as_ref().map(|c| c.tail),
        checksum: None,
        os_header: None,
        file_header: None,
        ktbbh,
        table,
        index: None,
        problems: Vec::new(),
        spans: Vec::new(),
    })
}
