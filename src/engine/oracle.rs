//! Oracle's answers to the seam: its [`EngineSpec`] (names, block sizes,
//! header signals for sniffing, parse) and its column lists.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use crate::error::Error;
use crate::model::oracle::names::block_type_name;
use crate::model::oracle::types::OraColumns;
use crate::model::page::Page;
use crate::parse::oracle::checksum::xor16;
use crate::parse::oracle::{parse_block, BlockOptions};
use crate::reader::Endian;

use super::spec::{ColumnSpec, EngineSpec, Evidence, ParseOptions, RowStorage};

/// Byte offsets and sizes of the headers read here.
const KCBH_SIZE: usize = 20;
const TAIL_SIZE: usize = 4;
const OS_HEADER_MAGIC: u32 = 0x7a7b_7c7d;

/// Oracle datafile blocks (cache header, transaction and data layers).
pub(super) struct Oracle;

impl EngineSpec for Oracle {
    fn name(&self) -> &'static str {
        "oracle"
    }

    fn product(&self) -> &'static str {
        "Oracle"
    }

    fn help(&self) -> &'static str {
        "Oracle datafile blocks (cache header, transaction and data layers)"
    }

    fn blocks_noun(&self) -> &'static str {
        "Oracle blocks"
    }

    fn header_noun(&self) -> &'static str {
        "an Oracle cache header"
    }

    /// DB_BLOCK_SIZE: 2 to 32 KiB.
    fn block_sizes(&self) -> RangeInclusive<usize> {
        2048..=32768
    }

    fn row_storage(&self) -> RowStorage {
        RowStorage::Objects
    }

    fn numbers_blocks_by_segment(&self) -> bool {
        false
    }

    fn has_commit_log(&self) -> bool {
        false
    }

    fn has_dump_text(&self) -> bool {
        true
    }

    /// The type and format bytes.
    fn header_score(&self) -> u32 {
        4
    }

    fn evidence(&self, head: &[u8], blkno: u64) -> Evidence {
        evidence(head, blkno)
    }

    /// The OS header (block 0) or the cache header's format byte.
    fn block_size(&self, head: &[u8]) -> Option<usize> {
        crate::parse::oracle::block_size_from_header(head)
    }

    fn parse(&self, bytes: &[u8], opts: &ParseOptions) -> Page {
        Page::Oracle(parse_block(
            bytes,
            &BlockOptions {
                blkno: opts.blkno,
                endian: opts.endian,
            },
        ))
    }

    /// Block numbers start at 0 (or `--blkno`).
    fn first_blkno(&self, blkno: Option<u64>, _: Option<u64>, _: usize) -> u64 {
        blkno.unwrap_or(0)
    }

    /// The datafile header in blocks 0–1 names the tablespace and file.
    fn reads_ahead(&self, index: u64) -> bool {
        index <= 1
    }

    fn blocks_independent(&self) -> bool {
        false
    }
}

/// The column list `spec` in Oracle's types.
pub(super) fn columns(
    spec: Option<&ColumnSpec>,
    toast: &[PathBuf],
) -> Result<Option<OraColumns>, Error> {
    if !toast.is_empty() {
        return Err(Error::Usage(
            "--toast is for PostgreSQL tables; Oracle blocks have no TOAST".into(),
        ));
    }
    let list = match spec {
        None => return Ok(None),
        Some(ColumnSpec::Resolved(_)) => {
            return Err(Error::Usage(
                "a PostgreSQL catalog's columns cannot decode Oracle blocks".into(),
            ))
        }
        Some(ColumnSpec::List(list)) => {
            OraColumns::parse(list).map_err(|e| Error::Usage(format!("--columns: {e}")))?
        }
        Some(ColumnSpec::File { path, text }) => {
            // One column a line, `NAME TYPE` or `TYPE`; blank lines and `--`
            // comments skipped.
            let lines: Vec<&str> = text
                .lines()
                .map(|l| {
                    l.split("--")
                        .next()
                        .unwrap_or("")
                        .trim()
                        .trim_end_matches(',')
                })
                .filter(|l| !l.is_empty())
                .collect();
            OraColumns::parse(&lines.join(","))
                .map_err(|e| Error::Usage(format!("--schema {}: {e}", path.display())))?
        }
    };
    Ok(Some(list))
}

/// The Oracle signals of `head`, a block at position `blkno` of its input.
fn evidence(head: &[u8], blkno: u64) -> Evidence {
    let mut e = Evidence::default();
    let word = |at: usize| -> Option<u32> { Endian::Little.read_u32(head.get(at..)?) };
    if head.first() == Some(&0) {
        if let Some(magic) = word(28) {
            if magic == OS_HEADER_MAGIC || magic.swap_bytes() == OS_HEADER_MAGIC {
                e.holds(10, "a datafile OS header");
                e.decisive = true;
                return e;
            }
        }
    }
    let (Some(&ty), Some(&frmt)) = (head.first(), head.get(1)) else {
        return e;
    };
    let known_type = ty != 0 && block_type_name(ty).is_some();
    if known_type {
        e.holds(2, "block type");
    }
    // The top three bits give the block size from Oracle 10g on; a block
    // formatted before (or a file-space header kept from then) has 0 there:
    // 0x02, a byte too common to weigh anything until the tail or the check
    // value confirms the header.
    let code = frmt >> 5;
    let frmt_ok = frmt & 0x1f == 0x02;
    if frmt_ok {
        e.holds(if code > 0 { 2 } else { 0 }, "format byte");
    }
    // The rest corroborates a cache header (type and format byte); alone
    // it proves nothing.
    if !known_type || !frmt_ok {
        return e;
    }
    if code > 0 {
        let frmt_size = 1usize << (8 + code);
        if head.len() == frmt_size {
            e.holds(1, "block size");
        } else {
            e.damaged.push(format!(
                "{} bytes where the format byte gives {frmt_size}",
                head.len()
            ));
        }
    }
    for endian in [Endian::Little, Endian::Big] {
        let Some(rdba) = head.get(4..8).and_then(|b| endian.read_u32(b)) else {
            break;
        };
        let (file, block) = (rdba >> 22, u64::from(rdba & 0x003f_ffff));
        if rdba != 0 && block == blkno {
            e.holds(2, "rdba at its position");
            break;
        }
        if (1..1023).contains(&file) {
            e.holds(1, "rdba");
            break;
        }
    }
    if head.len() >= KCBH_SIZE + TAIL_SIZE {
        let n = head.len();
        let tail = &head[n - TAIL_SIZE..];
        let seq = head[14];
        let little = [tail[0] == seq, tail[1] == ty, tail[2..4] == head[8..10]];
        let big = [tail[3] == seq, tail[2] == ty, tail[0..2] == head[10..12]];
        let count = |m: [bool; 3]| m.iter().filter(|&&b| b).count();
        let best = count(little).max(count(big));
        if best == 3 {
            e.holds(3, "tail");
            e.decisive = true;
        } else {
            if best == 2 {
                e.holds(1, "part of the tail");
            }
            e.damaged
                .push("the tail does not repeat the header".to_string());
        }
        if head[15] & 0x04 != 0 {
            if xor16(head, Endian::Little) == 0 || xor16(head, Endian::Big) == 0 {
                e.holds(3, "check value");
                e.decisive = true;
            } else {
                e.damaged
                    .push("the check value does not match the block".to_string());
            }
        }
    }
    e
}
