//! PostgreSQL write-ahead log: records as `XLogReaderState` decodes them
//! (xlogreader.c `DecodeXLogRecord`), named after their C counterparts.
//!
//! A WAL segment is a run of `XLOG_BLCKSZ` pages; each page starts with an
//! `XLogPageHeaderData` (24 bytes, the first page of a segment with the long
//! form, 40 bytes). Records are MAXALIGNed and may span pages and segments:
//!
//! ```text
//!  XLogRecord (24)   block headers…  main data header   block images and data…  main data
//!  | tot_len | xid | prev | info | rmid | crc | id flags len [image] [rel] blk | 255 len | … | … |
//! ```
//!
//! A decoded record keeps its assembled bytes; every block reference's image
//! and data and the main data are byte ranges into them, so redo can read
//! them without a second parse.

use std::ops::Range;

use serde::Serialize;

use super::Lsn;

/// `XLOG_PAGE_MAGIC` of PostgreSQL 15 (xlog_internal.h).
pub const XLOG_PAGE_MAGIC_15: u16 = 0xD110;
/// `SizeOfXLogShortPHD`.
pub const SIZE_OF_SHORT_PHD: usize = 24;
/// `SizeOfXLogLongPHD`.
pub const SIZE_OF_LONG_PHD: usize = 40;
/// `SizeOfXLogRecord`.
pub const SIZE_OF_XLOG_RECORD: usize = 24;
/// `XLP_FIRST_IS_CONTRECORD`: the page starts with the rest of a record.
pub const XLP_FIRST_IS_CONTRECORD: u16 = 0x0001;
/// `XLP_LONG_HEADER`: the page has the long header (first page of a segment).
pub const XLP_LONG_HEADER: u16 = 0x0002;
/// `XLP_ALL_FLAGS`.
pub const XLP_ALL_FLAGS: u16 = 0x000F;

/// A WAL position printed as PostgreSQL prints it (`%X/%X`).
pub fn lsn(pos: u64) -> Lsn {
    Lsn {
        xlogid: (pos >> 32) as u32,
        xrecoff: pos as u32,
    }
}

/// `XLogPageHeaderData` (and the long form's extra fields).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageHeader {
    /// `xlp_magic`: the WAL format version.
    pub xlp_magic: u16,
    /// `xlp_info`: `XLP_*` flags.
    pub xlp_info: u16,
    /// `xlp_tli`: timeline of the page's first record.
    pub xlp_tli: u32,
    /// `xlp_pageaddr`: the page's own WAL position.
    pub xlp_pageaddr: u64,
    /// `xlp_rem_len`: bytes of a record continued from the previous page.
    pub xlp_rem_len: u32,
    /// Long header `xlp_sysid`.
    pub xlp_sysid: Option<u64>,
    /// Long header `xlp_seg_size`.
    pub xlp_seg_size: Option<u32>,
    /// Long header `xlp_xlog_blcksz`.
    pub xlp_xlog_blcksz: Option<u32>,
}

impl PageHeader {
    /// The header's size on the page.
    pub fn size(&self) -> usize {
        if self.xlp_info & XLP_LONG_HEADER != 0 {
            SIZE_OF_LONG_PHD
        } else {
            SIZE_OF_SHORT_PHD
        }
    }
}

/// `RelFileNode` (relfilenode.h): tablespace, database, relation file node.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct RelFileNode {
    /// `spcNode`.
    pub spc: u32,
    /// `dbNode`.
    pub db: u32,
    /// `relNode`.
    pub rel: u32,
}

impl std::fmt::Display for RelFileNode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}/{}", self.spc, self.db, self.rel)
    }
}

/// `forkNames[]` (relpath.c).
pub const FORK_NAMES: [&str; 4] = ["main", "fsm", "vm", "init"];

/// A fork number's name, or its number when out of range.
pub fn fork_name(fork: u8) -> String {
    FORK_NAMES
        .get(usize::from(fork))
        .map_or_else(|| fork.to_string(), |s| (*s).to_string())
}

/// `bimg_info` `BKPIMAGE_HAS_HOLE`.
pub const BKPIMAGE_HAS_HOLE: u8 = 0x01;
/// `bimg_info` `BKPIMAGE_APPLY`: redo restores the image.
pub const BKPIMAGE_APPLY: u8 = 0x02;
/// `bimg_info` `BKPIMAGE_COMPRESS_PGLZ`.
pub const BKPIMAGE_COMPRESS_PGLZ: u8 = 0x04;
/// `bimg_info` `BKPIMAGE_COMPRESS_LZ4`.
pub const BKPIMAGE_COMPRESS_LZ4: u8 = 0x08;
/// `bimg_info` `BKPIMAGE_COMPRESS_ZSTD`.
pub const BKPIMAGE_COMPRESS_ZSTD: u8 = 0x10;

/// `fork_flags` `BKPBLOCK_HAS_IMAGE`.
pub const BKPBLOCK_HAS_IMAGE: u8 = 0x10;
/// `fork_flags` `BKPBLOCK_HAS_DATA`.
pub const BKPBLOCK_HAS_DATA: u8 = 0x20;
/// `fork_flags` `BKPBLOCK_WILL_INIT`.
pub const BKPBLOCK_WILL_INIT: u8 = 0x40;
/// `fork_flags` `BKPBLOCK_SAME_REL`.
pub const BKPBLOCK_SAME_REL: u8 = 0x80;

/// A full-page image of a block reference (`XLogRecordBlockImageHeader`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockImage {
    /// `bimg_len`'s bytes in the record (compressed or with the hole cut out).
    pub data: Range<usize>,
    /// `hole_offset`.
    pub hole_offset: u16,
    /// The hole's length (`XLogRecordBlockCompressHeader.hole_length`, or
    /// BLCKSZ less the image when uncompressed).
    pub hole_length: u16,
    /// `bimg_info`: `BKPIMAGE_*` flags.
    pub bimg_info: u8,
}

impl BlockImage {
    /// `BKPIMAGE_APPLY`: redo restores this image (otherwise it is only for
    /// `wal_consistency_checking`).
    pub fn apply(&self) -> bool {
        self.bimg_info & BKPIMAGE_APPLY != 0
    }

    /// The compression method's name, if the image is compressed.
    pub fn compression(&self) -> Option<&'static str> {
        if self.bimg_info & BKPIMAGE_COMPRESS_PGLZ != 0 {
            Some("pglz")
        } else if self.bimg_info & BKPIMAGE_COMPRESS_LZ4 != 0 {
            Some("lz4")
        } else if self.bimg_info & BKPIMAGE_COMPRESS_ZSTD != 0 {
            Some("zstd")
        } else {
            None
        }
    }
}

/// A block reference (`XLogRecordBlockHeader` decoded as `DecodedBkpBlock`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BlockRef {
    /// The block id (0..=32).
    pub id: u8,
    /// The relation (carried over from the previous block when `BKPBLOCK_SAME_REL`).
    pub rel: RelFileNode,
    /// Fork number (`fork_flags & BKPBLOCK_FORK_MASK`).
    pub fork: u8,
    /// Block number.
    pub blk: u32,
    /// `fork_flags`, the `BKPBLOCK_*` bits.
    pub flags: u8,
    /// The full-page image, when `BKPBLOCK_HAS_IMAGE`.
    pub image: Option<BlockImage>,
    /// The block's data (empty without `BKPBLOCK_HAS_DATA`).
    pub data: Range<usize>,
}

/// One decoded WAL record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WalRecord {
    /// The record's start (`ReadRecPtr`).
    pub lsn: u64,
    /// Where the next record may start (`EndRecPtr`, before MAXALIGN).
    pub end: u64,
    /// `xl_prev`.
    pub prev: u64,
    /// `xl_xid`.
    pub xid: u32,
    /// `xl_tot_len`.
    pub tot_len: u32,
    /// `xl_info`.
    pub info: u8,
    /// `xl_rmid`.
    pub rmid: u8,
    /// `xl_crc` (checked before a record is returned).
    pub crc: u32,
    /// Replication origin (`XLR_BLOCK_ID_ORIGIN`).
    pub origin: Option<u16>,
    /// Top-level transaction (`XLR_BLOCK_ID_TOPLEVEL_XID`).
    pub toplevel_xid: Option<u32>,
    /// Block references, by block id.
    pub blocks: Vec<BlockRef>,
    /// The main data.
    pub main_data: Range<usize>,
}

impl WalRecord {
    /// Sum of the block images' stored lengths (pg_waldump's `fpi_len`).
    pub fn fpi_len(&self) -> u32 {
        self.blocks
            .iter()
            .filter_map(|b| b.image.as_ref())
            .map(|i| i.data.len() as u32)
            .sum()
    }

    /// `len` of pg_waldump's `len (rec/tot)`: the record less its images.
    pub fn rec_len(&self) -> u32 {
        self.tot_len.saturating_sub(self.fpi_len())
    }

    /// The resource manager's name as pg_waldump prints it.
    pub fn rmgr_name(&self) -> std::borrow::Cow<'static, str> {
        rmgr_name(self.rmid)
    }
}

/// `RmgrNames` of PostgreSQL 15 (rmgrlist.h), by `xl_rmid`.
pub const RMGR_NAMES: [&str; 22] = [
    "XLOG",
    "Transaction",
    "Storage",
    "CLOG",
    "Database",
    "Tablespace",
    "MultiXact",
    "RelMap",
    "Standby",
    "Heap2",
    "Heap",
    "Btree",
    "Hash",
    "Gin",
    "Gist",
    "Sequence",
    "SPGist",
    "BRIN",
    "CommitTs",
    "ReplicationOrigin",
    "Generic",
    "LogicalMessage",
];

/// An rmgr id's name: PostgreSQL's built-in names, `custom###` for the
/// custom range (128..=255) as pg_waldump prints them, else the number.
pub fn rmgr_name(rmid: u8) -> std::borrow::Cow<'static, str> {
    match RMGR_NAMES.get(usize::from(rmid)) {
        Some(n) => std::borrow::Cow::Borrowed(n),
        None if rmid >= 128 => format!("custom{rmid:03}").into(),
        None => format!("{rmid}").into(),
    }
}

/// What went wrong where in the WAL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct WalProblem {
    /// The segment file (its name), or the directory for a missing segment.
    pub file: String,
    /// Byte offset in that file.
    pub offset: u64,
    /// The WAL position the problem is at, as text.
    pub lsn: Lsn,
    /// Class: `missing-segment`, `page-header`, `record`, `crc`, `truncated`.
    pub class: &'static str,
    /// One line saying what is wrong and where reading resumes.
    pub message: String,
}
