//! PostgreSQL WAL: segment bytes in, decoded records and problems out.
//!
//! [`decode_segment`] reads the records that *start* in one segment, as
//! xlogreader.c does (page header checks of `XLogReaderValidatePageHeader`,
//! record header checks of `ValidXLogRecordHeader`, the CRC of
//! `ValidXLogRecord`, the block headers of `DecodeXLogRecord`). A record that
//! runs on into later segments asks the caller for their pages, so segments
//! can be decoded in parallel, each on its own. Damage is a [`WalProblem`]
//! and reading resumes at the next page with a valid header; nothing here
//! opens a file, and no allocation is larger than the bytes the input holds.

pub(crate) mod effects;
pub(crate) mod redo;

use crate::model::postgres::wal::{
    lsn, BlockImage, BlockRef, PageHeader, RelFileNode, WalProblem, WalRecord, BKPBLOCK_HAS_DATA,
    BKPBLOCK_HAS_IMAGE, BKPBLOCK_SAME_REL, BKPIMAGE_COMPRESS_LZ4, BKPIMAGE_COMPRESS_PGLZ,
    BKPIMAGE_COMPRESS_ZSTD, BKPIMAGE_HAS_HOLE, SIZE_OF_SHORT_PHD, SIZE_OF_XLOG_RECORD,
    XLP_ALL_FLAGS, XLP_FIRST_IS_CONTRECORD, XLP_LONG_HEADER,
};
use crate::model::postgres::wal::{RM_XLOG_ID, XLOG_SWITCH};
use crate::reader::Endian;

/// The `xlp_magic` values whose record format this reader decodes, with the
/// PostgreSQL major that writes each (xlog_internal.h `XLOG_PAGE_MAGIC`).
/// 15, 16 and 17 share the record layout of 15.
pub(crate) const KNOWN_MAGIC: [(u16, u32); 3] = [(0xD110, 15), (0xD113, 16), (0xD116, 17)];

/// `XLR_MAX_BLOCK_ID`.
const XLR_MAX_BLOCK_ID: u8 = 32;
const XLR_BLOCK_ID_DATA_SHORT: u8 = 255;
const XLR_BLOCK_ID_DATA_LONG: u8 = 254;
const XLR_BLOCK_ID_ORIGIN: u8 = 253;
const XLR_BLOCK_ID_TOPLEVEL_XID: u8 = 252;
/// `XLogRecordMaxSize` (xloginsert.h): no record is larger.
const XLOG_RECORD_MAX_SIZE: u32 = 1020 * 1024 * 1024;

/// The segment and page sizes of a WAL.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Geometry {
    /// `wal_segment_size`.
    pub seg_size: u64,
    /// `XLOG_BLCKSZ`.
    pub page_size: usize,
}

impl Geometry {
    /// Sizes PostgreSQL accepts: segments a power of two from 1 MB to 1 GB,
    /// pages a power of two from 1 KB to 64 KB.
    pub(crate) fn valid(&self) -> bool {
        self.seg_size.is_power_of_two()
            && (1 << 20..=1 << 30).contains(&self.seg_size)
            && self.page_size.is_power_of_two()
            && (1024..=65536).contains(&self.page_size)
            && self.seg_size.is_multiple_of(self.page_size as u64)
    }
}

/// The page of a later segment a record runs into.
pub(crate) enum Page {
    /// Its bytes (shorter than a page when the file is truncated).
    Bytes(Vec<u8>),
    /// The segment file is not there, but later ones are.
    Missing,
    /// Nothing is there and nothing follows: the end of the WAL.
    End,
}

/// What the decoder needs from its caller besides the segment's own bytes.
pub(crate) trait Pages {
    /// The page at WAL position `pos` (page-aligned) of a later segment.
    fn page(&self, pos: u64) -> Page;
    /// The file name of the segment holding `pos`.
    fn file_name(&self, pos: u64) -> String;
}

/// One segment to decode.
pub(crate) struct Segment<'a> {
    /// The segment file's bytes (shorter than the segment if truncated).
    pub bytes: &'a [u8],
    /// The WAL position of its first byte.
    pub start: u64,
    /// No later segment follows: trailing garbage is the end of the WAL.
    pub last: bool,
    /// The `xlp_magic` to expect (from the first segment read).
    pub magic: u16,
}

/// What [`decode_segment`] reports.
pub(crate) enum Item<'r> {
    /// A record and its assembled bytes (the ranges in it point there).
    Record(&'r WalRecord, &'r [u8]),
    /// Damage, with where reading resumed.
    Problem(WalProblem),
}

/// Parse a page header, if `bytes` hold one.
pub(crate) fn page_header(bytes: &[u8]) -> Option<PageHeader> {
    let u16_at = |o: usize| Endian::Little.read_u16(bytes.get(o..)?);
    let u32_at = |o: usize| Endian::Little.read_u32(bytes.get(o..)?);
    let u64_at = |o: usize| Endian::Little.read_u64(bytes.get(o..)?);
    let xlp_info = u16_at(2)?;
    let long = xlp_info & XLP_LONG_HEADER != 0;
    Some(PageHeader {
        xlp_magic: u16_at(0)?,
        xlp_info,
        xlp_tli: u32_at(4)?,
        xlp_pageaddr: u64_at(8)?,
        xlp_rem_len: u32_at(16)?,
        xlp_sysid: if long { u64_at(24) } else { None },
        xlp_seg_size: if long { u32_at(32) } else { None },
        xlp_xlog_blcksz: if long { u32_at(36) } else { None },
    })
}

/// `XLogReaderValidatePageHeader`: the page at `pos` is a WAL page of this
/// WAL, or why not.
fn check_page(bytes: &[u8], pos: u64, geo: Geometry, magic: u16) -> Result<PageHeader, String> {
    if bytes.len() < geo.page_size {
        return Err(format!(
            "page cut short: {} of {} bytes (the file is truncated)",
            bytes.len(),
            geo.page_size
        ));
    }
    let h = page_header(bytes).ok_or("no page header")?;
    if bytes[..SIZE_OF_SHORT_PHD].iter().all(|&b| b == 0) {
        return Err("page is all zero where a page header should be".into());
    }
    if h.xlp_magic != magic {
        return Err(format!(
            "invalid xlp_magic 0x{:04X} (expected 0x{magic:04X})",
            h.xlp_magic
        ));
    }
    if h.xlp_info & !XLP_ALL_FLAGS != 0 {
        return Err(format!("invalid xlp_info 0x{:04X}", h.xlp_info));
    }
    let first = pos.is_multiple_of(geo.seg_size);
    if first != (h.xlp_info & XLP_LONG_HEADER != 0) {
        return Err(if first {
            "first page of the segment lacks the long header".into()
        } else {
            "unexpected long page header".into()
        });
    }
    if first {
        if h.xlp_seg_size != Some(geo.seg_size as u32) {
            return Err(format!(
                "xlp_seg_size {} is not the segment size {}",
                h.xlp_seg_size.unwrap_or(0),
                geo.seg_size
            ));
        }
        if h.xlp_xlog_blcksz != Some(geo.page_size as u32) {
            return Err(format!(
                "xlp_xlog_blcksz {} is not the page size {}",
                h.xlp_xlog_blcksz.unwrap_or(0),
                geo.page_size
            ));
        }
    }
    if h.xlp_pageaddr != pos {
        return Err(format!(
            "xlp_pageaddr {} where the page is {} (a page of another segment)",
            lsn(h.xlp_pageaddr),
            lsn(pos)
        ));
    }
    if h.xlp_tli == 0 {
        return Err("xlp_tli is 0".into());
    }
    if h.xlp_rem_len as usize > XLOG_RECORD_MAX_SIZE as usize {
        return Err(format!("invalid xlp_rem_len {}", h.xlp_rem_len));
    }
    Ok(h)
}

fn maxalign(pos: u64) -> u64 {
    (pos + 7) & !7
}

/// Why a record could not be read.
enum Fail {
    /// A problem to report; `at` is a position from which to look for the
    /// next valid page.
    Bad {
        message: String,
        at: u64,
        class: &'static str,
    },
    /// The record's header was sound but its CRC is wrong: the next record
    /// is tried where the header says it starts (its xl_prev must name the
    /// bad record) before looking for the next page.
    Crc { message: String, next: u64 },
    /// The record runs past the end of the WAL (nothing follows).
    End,
}

struct Decoder<'a, 'p> {
    seg: &'a Segment<'a>,
    geo: Geometry,
    pages: &'p dyn Pages,
    buf: Vec<u8>,
    /// The last record's block list, given back for the next one.
    blocks: Vec<BlockRef>,
    /// Bytes of WAL after this segment that may still be read (a bound on
    /// any one record's size).
    after: u64,
}

impl<'a> Decoder<'a, '_> {
    /// The page at `pos`: from this segment, or a later one.
    fn page_at(&self, pos: u64) -> Result<std::borrow::Cow<'a, [u8]>, Fail> {
        let end = self.seg.start + self.geo.seg_size;
        if pos < end {
            let off = (pos - self.seg.start) as usize;
            let bytes = self.seg.bytes;
            if off >= bytes.len() {
                return Err(Fail::Bad {
                    message: format!(
                        "segment file ends at byte {} of {} (truncated)",
                        bytes.len(),
                        self.geo.seg_size
                    ),
                    at: end,
                    class: "truncated",
                });
            }
            let stop = (off + self.geo.page_size).min(bytes.len());
            return Ok(std::borrow::Cow::Borrowed(&bytes[off..stop]));
        }
        match self.pages.page(pos) {
            Page::Bytes(b) => Ok(std::borrow::Cow::Owned(b)),
            Page::Missing => Err(Fail::Bad {
                message: format!("segment {} is missing", self.pages.file_name(pos)),
                at: pos,
                class: "missing-segment",
            }),
            Page::End => Err(Fail::End),
        }
    }

    /// Copy `len` bytes of the record that starts at `start`, `have` bytes
    /// of it already in `buf`, from `pos` on, crossing page headers. Returns
    /// the position after the last byte.
    fn gather(&mut self, start: u64, mut pos: u64, len: usize, tot_len: u32) -> Result<u64, Fail> {
        let ps = self.geo.page_size as u64;
        let mut left = len;
        while left > 0 {
            if pos.is_multiple_of(ps) {
                let page = self.page_at(pos)?;
                let h =
                    check_page(&page, pos, self.geo, self.seg.magic).map_err(|m| Fail::Bad {
                        message: format!(
                            "record at {} runs on to the page at {}: {m}",
                            lsn(start),
                            lsn(pos)
                        ),
                        at: pos,
                        class: "page-header",
                    })?;
                let got = self.buf.len() as u32;
                if h.xlp_info & XLP_FIRST_IS_CONTRECORD == 0
                    || h.xlp_rem_len != tot_len.saturating_sub(got)
                {
                    return Err(Fail::Bad {
                        message: format!(
                            "record at {} runs on to the page at {}, which does not continue it \
                             (xlp_info 0x{:04X}, xlp_rem_len {}, {} bytes expected)",
                            lsn(start),
                            lsn(pos),
                            h.xlp_info,
                            h.xlp_rem_len,
                            tot_len.saturating_sub(got)
                        ),
                        at: pos,
                        class: "record",
                    });
                }
                pos += h.size() as u64;
            }
            let page = self.page_at(pos - pos % ps)?;
            let off = (pos % ps) as usize;
            let take = left.min(self.geo.page_size - off);
            let Some(chunk) = page.get(off..off + take) else {
                return Err(Fail::Bad {
                    message: format!(
                        "record at {} is cut short at {} (the file ends)",
                        lsn(start),
                        lsn(pos)
                    ),
                    at: pos,
                    class: "truncated",
                });
            };
            self.buf.extend_from_slice(chunk);
            left -= take;
            pos += take as u64;
        }
        Ok(pos)
    }

    /// Read the record at `start` (just past a page header or a record).
    fn record(&mut self, start: u64, prev: Option<u64>) -> Result<(WalRecord, u64, bool), Fail> {
        let ps = self.geo.page_size as u64;
        let bad = |message: String, class| Fail::Bad {
            message,
            at: start - start % ps + ps,
            class,
        };
        self.buf.clear();
        let off = (start % ps) as usize;
        let in_seg = (start - self.seg.start) as usize;
        // Fast path: the whole record lies on this page of this segment.
        let page_rest = self.geo.page_size - off;
        let head = self
            .seg
            .bytes
            .get(in_seg..in_seg + SIZE_OF_XLOG_RECORD.min(page_rest));
        let tot_len = match head {
            Some(h) if h.len() >= 4 => Endian::Little.read_u32(h).unwrap_or(0),
            _ => {
                return Err(bad(
                    format!("no record header at {}", lsn(start)),
                    "truncated",
                ))
            }
        };
        if tot_len == 0 {
            return Err(bad(
                format!("record at {}: xl_tot_len is 0", lsn(start)),
                "record",
            ));
        }
        if (tot_len as usize) < SIZE_OF_XLOG_RECORD {
            return Err(bad(
                format!("record at {}: invalid xl_tot_len {tot_len}", lsn(start)),
                "record",
            ));
        }
        let room = self.geo.seg_size - (start - self.seg.start) + self.after;
        if tot_len > XLOG_RECORD_MAX_SIZE || u64::from(tot_len) > room {
            return Err(bad(
                format!(
                    "record at {}: xl_tot_len {tot_len} is more than the WAL holds",
                    lsn(start)
                ),
                "record",
            ));
        }
        let (end, whole) = if tot_len as usize <= page_rest {
            let bytes = self
                .seg
                .bytes
                .get(in_seg..in_seg + tot_len as usize)
                .ok_or_else(|| {
                    bad(
                        format!("record at {} is cut short", lsn(start)),
                        "truncated",
                    )
                })?;
            (start + u64::from(tot_len), Some(bytes))
        } else {
            // Header first (it may itself cross a page), then the rest.
            self.buf.reserve((tot_len as usize).min(1 << 16));
            let pos = self.gather(start, start, SIZE_OF_XLOG_RECORD, tot_len)?;
            check_header(&self.buf, start, prev, tot_len).map_err(|m| bad(m, "record"))?;
            let end = self.gather(start, pos, tot_len as usize - SIZE_OF_XLOG_RECORD, tot_len)?;
            (end, None)
        };
        let bytes: &[u8] = match whole {
            Some(b) => b,
            None => &self.buf,
        };
        check_header(bytes, start, prev, tot_len).map_err(|m| bad(m, "record"))?;
        let stored = Endian::Little.read_u32(&bytes[20..]).unwrap_or(0);
        let c = record_crc(bytes);
        if c != stored {
            return Err(Fail::Crc {
                message: format!(
                    "record at {}: CRC-32C mismatch (xl_crc 0x{stored:08X}, computed 0x{c:08X})",
                    lsn(start)
                ),
                next: maxalign(end),
            });
        }
        let blocks = std::mem::take(&mut self.blocks);
        let rec = decode_record(bytes, start, end, blocks).map_err(|m| Fail::Bad {
            message: format!("record at {}: {m}", lsn(start)),
            at: if end % ps == 0 {
                end
            } else {
                end - end % ps + ps
            },
            class: "record",
        })?;
        Ok((rec, end, whole.is_none()))
    }

    /// The first record start at or after the page at `from` (a page
    /// boundary), skipping the rest of a record continued from before, and
    /// the problems of invalid pages passed over (only returned when a
    /// valid page follows them).
    fn resync(&self, from: u64) -> Option<(u64, u64)> {
        let ps = self.geo.page_size as u64;
        let end = self.seg.start + self.geo.seg_size;
        let mut pos = from;
        while pos < end {
            let off = (pos - self.seg.start) as usize;
            let page = self.seg.bytes.get(off..off + self.geo.page_size)?;
            if let Ok(h) = check_page(page, pos, self.geo, self.seg.magic) {
                let body = pos + h.size() as u64;
                if h.xlp_info & XLP_FIRST_IS_CONTRECORD == 0 {
                    return Some((pos, body));
                }
                let start = maxalign(body + u64::from(h.xlp_rem_len));
                if start < pos + ps {
                    return Some((pos, start));
                }
            }
            pos += ps;
        }
        None
    }
}

/// The CRC-32C PostgreSQL stores in `xl_crc` (`ValidXLogRecord`): over
/// the record after its header, then the header up to `xl_crc`. Through the
/// crc32c crate, which uses the CPU's CRC32 instruction (SSE 4.2, ARMv8)
/// where there is one: the checksum of every byte of the WAL is the largest
/// part of decoding it.
pub(crate) fn record_crc(bytes: &[u8]) -> u32 {
    let rest = bytes.get(SIZE_OF_XLOG_RECORD..).unwrap_or(&[]);
    let head = bytes.get(..20).unwrap_or(bytes);
    crc32c::crc32c_append(crc32c::crc32c(rest), head)
}

/// `ValidXLogRecordHeader`.
fn check_header(bytes: &[u8], start: u64, prev: Option<u64>, tot_len: u32) -> Result<(), String> {
    let rmid = bytes[17];
    if !(usize::from(rmid) < crate::model::postgres::wal::RMGR_NAMES.len() || rmid >= 128) {
        return Err(format!("record at {}: invalid xl_rmid {rmid}", lsn(start)));
    }
    let xl_prev = Endian::Little.read_u64(&bytes[8..]).unwrap_or(0);
    if let Some(p) = prev {
        if xl_prev != p {
            return Err(format!(
                "record at {}: xl_prev {} where the previous record is at {}",
                lsn(start),
                lsn(xl_prev),
                lsn(p)
            ));
        }
    } else if xl_prev >= start {
        return Err(format!(
            "record at {}: xl_prev {} is not before it",
            lsn(start),
            lsn(xl_prev)
        ));
    }
    let _ = tot_len;
    Ok(())
}

/// `DecodeXLogRecord`: the block headers, origin, top-level xid and main
/// data of one whole record whose CRC is correct.
/// `blocks` (emptied here) is the record's block list: a segment's records
/// reuse one allocation.
pub(crate) fn decode_record(
    bytes: &[u8],
    start: u64,
    end: u64,
    mut blocks: Vec<BlockRef>,
) -> Result<WalRecord, String> {
    blocks.clear();
    let tot_len = bytes.len();
    let mut rec = WalRecord {
        lsn: start,
        end,
        prev: Endian::Little.read_u64(&bytes[8..]).ok_or("short header")?,
        xid: Endian::Little.read_u32(&bytes[4..]).ok_or("short header")?,
        tot_len: tot_len as u32,
        info: bytes[16],
        rmid: bytes[17],
        crc: Endian::Little
            .read_u32(&bytes[20..])
            .ok_or("short header")?,
        origin: None,
        toplevel_xid: None,
        blocks,
        main_data: 0..0,
    };
    let mut p = SIZE_OF_XLOG_RECORD;
    let take = |p: &mut usize, n: usize, what: &str| -> Result<Range, String> {
        if *p + n > tot_len {
            return Err(format!("{what} runs past the record's end"));
        }
        let r = *p..*p + n;
        *p += n;
        Ok(r)
    };
    type Range = std::ops::Range<usize>;
    let u16_of = |r: Range| Endian::Little.read_u16(&bytes[r]).unwrap_or(0);
    let u32_of = |r: Range| Endian::Little.read_u32(&bytes[r]).unwrap_or(0);
    let mut datatotal: usize = 0;
    let mut main_len: usize = 0;
    let mut last_rel: Option<RelFileNode> = None;
    let mut max_id: i32 = -1;
    while tot_len - p > datatotal {
        let id = bytes[take(&mut p, 1, "block id")?.start];
        match id {
            XLR_BLOCK_ID_DATA_SHORT => {
                main_len = usize::from(bytes[take(&mut p, 1, "main data length")?.start]);
                datatotal += main_len;
                break;
            }
            XLR_BLOCK_ID_DATA_LONG => {
                main_len = u32_of(take(&mut p, 4, "main data length")?) as usize;
                datatotal = datatotal.saturating_add(main_len);
                break;
            }
            XLR_BLOCK_ID_ORIGIN => rec.origin = Some(u16_of(take(&mut p, 2, "origin")?)),
            XLR_BLOCK_ID_TOPLEVEL_XID => {
                rec.toplevel_xid = Some(u32_of(take(&mut p, 4, "toplevel xid")?))
            }
            id if id <= XLR_MAX_BLOCK_ID => {
                if i32::from(id) <= max_id {
                    return Err(format!("out-of-order block_id {id}"));
                }
                max_id = i32::from(id);
                let fork_flags = bytes[take(&mut p, 1, "fork_flags")?.start];
                let data_len = usize::from(u16_of(take(&mut p, 2, "data_length")?));
                let has_data = fork_flags & BKPBLOCK_HAS_DATA != 0;
                if has_data != (data_len > 0) {
                    return Err(format!(
                        "BKPBLOCK_HAS_DATA {} but data_length {data_len} (block {id})",
                        if has_data { "set" } else { "not set" }
                    ));
                }
                datatotal += data_len;
                let mut image = None;
                if fork_flags & BKPBLOCK_HAS_IMAGE != 0 {
                    let bimg_len = usize::from(u16_of(take(&mut p, 2, "bimg_len")?));
                    let hole_offset = u16_of(take(&mut p, 2, "hole_offset")?);
                    let bimg_info = bytes[take(&mut p, 1, "bimg_info")?.start];
                    let compressed = bimg_info
                        & (BKPIMAGE_COMPRESS_PGLZ | BKPIMAGE_COMPRESS_LZ4 | BKPIMAGE_COMPRESS_ZSTD)
                        != 0;
                    let has_hole = bimg_info & BKPIMAGE_HAS_HOLE != 0;
                    let hole_length = if compressed {
                        if has_hole {
                            u16_of(take(&mut p, 2, "hole_length")?)
                        } else {
                            0
                        }
                    } else {
                        // BLCKSZ less the image; BLCKSZ is 8192 for every
                        // cluster these images come from.
                        (8192usize.saturating_sub(bimg_len)) as u16
                    };
                    if has_hole && (hole_offset == 0 || hole_length == 0 || bimg_len == 8192) {
                        return Err(format!(
                            "BKPIMAGE_HAS_HOLE set, but hole offset {hole_offset} length \
                             {hole_length} block image length {bimg_len} (block {id})"
                        ));
                    }
                    if !has_hole && !compressed && bimg_len != 8192 {
                        return Err(format!(
                            "neither BKPIMAGE_HAS_HOLE nor compression set, but block image \
                             length {bimg_len} (block {id})"
                        ));
                    }
                    if !has_hole && (hole_offset != 0 || (compressed && hole_length != 0)) {
                        return Err(format!(
                            "BKPIMAGE_HAS_HOLE not set, but hole offset {hole_offset} (block {id})"
                        ));
                    }
                    datatotal += bimg_len;
                    image = Some(BlockImage {
                        // The length for now; made the range below.
                        data: 0..bimg_len,
                        hole_offset,
                        hole_length: if has_hole { hole_length } else { 0 },
                        bimg_info,
                    });
                }
                let rel = if fork_flags & BKPBLOCK_SAME_REL == 0 {
                    let r = take(&mut p, 12, "RelFileNode")?;
                    let node = RelFileNode {
                        spc: u32_of(r.start..r.start + 4),
                        db: u32_of(r.start + 4..r.start + 8),
                        rel: u32_of(r.start + 8..r.start + 12),
                    };
                    last_rel = Some(node);
                    node
                } else {
                    last_rel.ok_or_else(|| {
                        format!("BKPBLOCK_SAME_REL set but no previous rel (block {id})")
                    })?
                };
                let blk = u32_of(take(&mut p, 4, "block number")?);
                rec.blocks.push(BlockRef {
                    id,
                    rel,
                    fork: fork_flags & 0x0F,
                    blk,
                    flags: fork_flags,
                    image,
                    // The length for now; made the range below.
                    data: 0..data_len,
                });
            }
            other => return Err(format!("invalid block_id {other}")),
        }
    }
    if tot_len - p != datatotal {
        return Err(format!(
            "block headers announce {datatotal} bytes of data, the record holds {}",
            tot_len - p
        ));
    }
    for b in rec.blocks.iter_mut() {
        if let Some(i) = b.image.as_mut() {
            let img = i.data.end;
            i.data = p..p + img;
            p += img;
        }
        let data = b.data.end;
        b.data = p..p + data;
        p += data;
    }
    rec.main_data = p..p + main_len;
    Ok(rec)
}

/// Decode the records that start in `seg`, calling `sink` with each record
/// and each problem in WAL order. Returns the position where reading stopped
/// (the end of the last record, or the segment's end).
pub(crate) fn decode_segment(
    seg: &Segment<'_>,
    geo: Geometry,
    after: u64,
    pages: &dyn Pages,
    sink: &mut dyn FnMut(Item<'_>),
) -> u64 {
    let ps = geo.page_size as u64;
    let seg_end = seg.start + geo.seg_size;
    let mut d = Decoder {
        seg,
        geo,
        pages,
        buf: Vec::new(),
        blocks: Vec::new(),
        after,
    };
    let problem = |at: u64, class: &'static str, message: String| {
        let in_seg = at >= seg.start && at < seg_end;
        WalProblem {
            file: pages.file_name(at.min(seg_end - 1).max(seg.start)),
            offset: if in_seg { at - seg.start } else { 0 },
            lsn: lsn(at),
            class,
            message,
        }
    };
    if seg.bytes.len() < geo.seg_size as usize {
        sink(Item::Problem(problem(
            seg.start + seg.bytes.len() as u64,
            "truncated",
            format!(
                "segment file is {} bytes, the segment size is {}: the rest is missing",
                seg.bytes.len(),
                geo.seg_size
            ),
        )));
    }
    // The first record start: past the long header and any continuation.
    let mut pos = match d.resync(seg.start) {
        Some((page, start)) => {
            if page != seg.start {
                let first = &seg.bytes[..seg.bytes.len().min(geo.page_size)];
                let why = check_page(first, seg.start, geo, seg.magic)
                    .err()
                    .unwrap_or_else(|| "a record continued over the whole page".into());
                if why.contains("continued") {
                    // A record from the previous segment fills the first
                    // pages: nothing is wrong.
                } else {
                    sink(Item::Problem(problem(
                        seg.start,
                        "page-header",
                        format!("{why}; reading resumes at {}", lsn(start)),
                    )));
                }
            }
            start
        }
        None => {
            if !seg.last {
                let first = &seg.bytes[..seg.bytes.len().min(geo.page_size)];
                if let Err(why) = check_page(first, seg.start, geo, seg.magic) {
                    sink(Item::Problem(problem(
                        seg.start,
                        "page-header",
                        format!("{why}; no valid page in the rest of the segment"),
                    )));
                }
            }
            return seg.start;
        }
    };
    let mut prev: Option<u64> = None;
    let mut stop = pos;
    while pos < seg_end {
        if pos.is_multiple_of(ps) {
            let off = (pos - seg.start) as usize;
            let page = seg
                .bytes
                .get(off..(off + geo.page_size).min(seg.bytes.len()));
            match page.map(|p| check_page(p, pos, geo, seg.magic)) {
                Some(Ok(h)) if h.xlp_info & XLP_FIRST_IS_CONTRECORD == 0 => {
                    pos += h.size() as u64;
                }
                Some(Ok(h)) => {
                    sink(Item::Problem(problem(
                        pos,
                        "page-header",
                        format!(
                            "page continues a record (xlp_rem_len {}) where a record starts",
                            h.xlp_rem_len
                        ),
                    )));
                    match d.resync(pos + ps) {
                        Some((_, s)) => {
                            pos = s;
                            prev = None;
                            continue;
                        }
                        None => break,
                    }
                }
                Some(Err(why)) => match d.resync(pos + ps) {
                    Some((_, s)) => {
                        sink(Item::Problem(problem(
                            pos,
                            "page-header",
                            format!("{why}; reading resumes at {}", lsn(s)),
                        )));
                        pos = s;
                        prev = None;
                        continue;
                    }
                    None => {
                        if !seg.last {
                            sink(Item::Problem(problem(
                                pos,
                                "page-header",
                                format!("{why}; no valid page in the rest of the segment"),
                            )));
                        }
                        break;
                    }
                },
                None => break, // past the end of a truncated file: reported above
            }
        }
        match d.record(pos, prev) {
            Ok((rec, end, _)) => {
                let bytes: &[u8] = if d.buf.is_empty() {
                    let o = (pos - seg.start) as usize;
                    &seg.bytes[o..o + rec.tot_len as usize]
                } else {
                    &d.buf
                };
                sink(Item::Record(&rec, bytes));
                stop = end;
                prev = Some(rec.lsn);
                let switch = rec.rmid == RM_XLOG_ID && rec.info & 0xF0 == XLOG_SWITCH;
                d.blocks = rec.blocks;
                if switch {
                    break;
                }
                pos = maxalign(end);
            }
            Err(Fail::End) => break,
            Err(Fail::Crc { message, next }) => {
                sink(Item::Problem(problem(
                    pos,
                    "crc",
                    format!("{message}; reading resumes after it"),
                )));
                prev = Some(pos);
                pos = next;
            }
            Err(Fail::Bad { message, at, class }) => {
                let from = if at % ps == 0 { at } else { at - at % ps + ps };
                let resume = if from < seg_end { d.resync(from) } else { None };
                match resume {
                    Some((_, s)) => {
                        sink(Item::Problem(problem(
                            pos,
                            class,
                            format!("{message}; reading resumes at {}", lsn(s)),
                        )));
                        pos = s;
                        prev = None;
                    }
                    None => {
                        // Nothing valid after it in this segment: at the end
                        // of the WAL this is where the WAL ends (as for
                        // PostgreSQL); anywhere else it is damage.
                        let tail_of_wal =
                            seg.last && class != "truncated" && class != "missing-segment";
                        if !tail_of_wal {
                            sink(Item::Problem(problem(
                                pos,
                                class,
                                format!("{message}; no valid record after it in the segment"),
                            )));
                        }
                        break;
                    }
                }
            }
        }
    }
    stop
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_crc_is_postgres_order() {
        let rec: Vec<u8> = (0..100u32).map(|i| (i * 31 + 7) as u8).collect();
        let mut joined = rec[24..].to_vec();
        joined.extend_from_slice(&rec[..20]);
        assert_eq!(
            record_crc(&rec),
            crate::parse::postgres::control::crc32c(&joined)
        );
    }
}
