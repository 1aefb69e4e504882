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

// Resource manager ids (rmgrlist.h) and the record types and flags of
// `xl_info` and of the records' main data that more than one room reads
// (xlog_internal.h / pg_control.h, heapam_xlog.h, nbtxlog.h): defined once
// here, named as PostgreSQL names them.

/// `RM_XLOG_ID`.
pub const RM_XLOG_ID: u8 = 0;
/// `RM_XACT_ID`.
pub const RM_XACT_ID: u8 = 1;
/// `RM_SMGR_ID`.
pub const RM_SMGR_ID: u8 = 2;
/// `RM_CLOG_ID`.
pub const RM_CLOG_ID: u8 = 3;
/// `RM_DBASE_ID`.
pub const RM_DBASE_ID: u8 = 4;
/// `RM_TBLSPC_ID`.
pub const RM_TBLSPC_ID: u8 = 5;
/// `RM_MULTIXACT_ID`.
pub const RM_MULTIXACT_ID: u8 = 6;
/// `RM_RELMAP_ID`.
pub const RM_RELMAP_ID: u8 = 7;
/// `RM_STANDBY_ID`.
pub const RM_STANDBY_ID: u8 = 8;
/// `RM_HEAP2_ID`.
pub const RM_HEAP2_ID: u8 = 9;
/// `RM_HEAP_ID`.
pub const RM_HEAP_ID: u8 = 10;
/// `RM_BTREE_ID`.
pub const RM_BTREE_ID: u8 = 11;
/// `RM_HASH_ID`.
pub const RM_HASH_ID: u8 = 12;
/// `RM_GIN_ID`.
pub const RM_GIN_ID: u8 = 13;
/// `RM_GIST_ID`.
pub const RM_GIST_ID: u8 = 14;
/// `RM_SEQ_ID`.
pub const RM_SEQ_ID: u8 = 15;
/// `RM_SPGIST_ID`.
pub const RM_SPGIST_ID: u8 = 16;
/// `RM_BRIN_ID`.
pub const RM_BRIN_ID: u8 = 17;
/// `RM_COMMIT_TS_ID`.
pub const RM_COMMIT_TS_ID: u8 = 18;
/// `RM_REPLORIGIN_ID`.
pub const RM_REPLORIGIN_ID: u8 = 19;
/// `RM_GENERIC_ID`.
pub const RM_GENERIC_ID: u8 = 20;
/// `RM_LOGICALMSG_ID`.
pub const RM_LOGICALMSG_ID: u8 = 21;

// XLOG (pg_control.h).
/// `XLOG_SWITCH`.
pub const XLOG_SWITCH: u8 = 0x40;
/// `XLOG_FPI_FOR_HINT`.
pub const XLOG_FPI_FOR_HINT: u8 = 0xA0;
/// `XLOG_FPI`.
pub const XLOG_FPI: u8 = 0xB0;

// Heap (heapam_xlog.h).
/// `XLOG_HEAP_INSERT`.
pub const XLOG_HEAP_INSERT: u8 = 0x00;
/// `XLOG_HEAP_DELETE`.
pub const XLOG_HEAP_DELETE: u8 = 0x10;
/// `XLOG_HEAP_UPDATE`.
pub const XLOG_HEAP_UPDATE: u8 = 0x20;
/// `XLOG_HEAP_TRUNCATE`.
pub const XLOG_HEAP_TRUNCATE: u8 = 0x30;
/// `XLOG_HEAP_HOT_UPDATE`.
pub const XLOG_HEAP_HOT_UPDATE: u8 = 0x40;
/// `XLOG_HEAP_CONFIRM`.
pub const XLOG_HEAP_CONFIRM: u8 = 0x50;
/// `XLOG_HEAP_LOCK`.
pub const XLOG_HEAP_LOCK: u8 = 0x60;
/// `XLOG_HEAP_INPLACE`.
pub const XLOG_HEAP_INPLACE: u8 = 0x70;
/// `XLOG_HEAP_OPMASK`.
pub const XLOG_HEAP_OPMASK: u8 = 0x70;
/// `XLOG_HEAP_INIT_PAGE`.
pub const XLOG_HEAP_INIT_PAGE: u8 = 0x80;

// Heap2 (heapam_xlog.h).
/// `XLOG_HEAP2_REWRITE`.
pub const XLOG_HEAP2_REWRITE: u8 = 0x00;
/// `XLOG_HEAP2_PRUNE`.
pub const XLOG_HEAP2_PRUNE: u8 = 0x10;
/// `XLOG_HEAP2_VACUUM`.
pub const XLOG_HEAP2_VACUUM: u8 = 0x20;
/// `XLOG_HEAP2_FREEZE_PAGE`.
pub const XLOG_HEAP2_FREEZE_PAGE: u8 = 0x30;
/// `XLOG_HEAP2_VISIBLE`.
pub const XLOG_HEAP2_VISIBLE: u8 = 0x40;
/// `XLOG_HEAP2_MULTI_INSERT`.
pub const XLOG_HEAP2_MULTI_INSERT: u8 = 0x50;
/// `XLOG_HEAP2_LOCK_UPDATED`.
pub const XLOG_HEAP2_LOCK_UPDATED: u8 = 0x60;
/// `XLOG_HEAP2_NEW_CID`.
pub const XLOG_HEAP2_NEW_CID: u8 = 0x70;

// heap records' flags (heapam_xlog.h).
/// `XLH_INSERT_ALL_VISIBLE_CLEARED`.
pub const XLH_INSERT_ALL_VISIBLE_CLEARED: u8 = 0x01;
/// `XLH_INSERT_ALL_FROZEN_SET`.
pub const XLH_INSERT_ALL_FROZEN_SET: u8 = 0x20;
/// `XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED`.
pub const XLH_UPDATE_OLD_ALL_VISIBLE_CLEARED: u8 = 0x01;
/// `XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED`.
pub const XLH_UPDATE_NEW_ALL_VISIBLE_CLEARED: u8 = 0x02;
/// `XLH_UPDATE_PREFIX_FROM_OLD`.
pub const XLH_UPDATE_PREFIX_FROM_OLD: u8 = 0x20;
/// `XLH_UPDATE_SUFFIX_FROM_OLD`.
pub const XLH_UPDATE_SUFFIX_FROM_OLD: u8 = 0x40;
/// `XLH_DELETE_ALL_VISIBLE_CLEARED`.
pub const XLH_DELETE_ALL_VISIBLE_CLEARED: u8 = 0x01;
/// `XLH_DELETE_IS_SUPER`.
pub const XLH_DELETE_IS_SUPER: u8 = 0x08;
/// `XLH_DELETE_IS_PARTITION_MOVE`.
pub const XLH_DELETE_IS_PARTITION_MOVE: u8 = 0x10;
/// `XLH_FREEZE_XVAC`.
pub const XLH_FREEZE_XVAC: u8 = 0x02;
/// `XLH_INVALID_XVAC`.
pub const XLH_INVALID_XVAC: u8 = 0x04;
/// `XLHL_XMAX_IS_MULTI`.
pub const XLHL_XMAX_IS_MULTI: u8 = 0x01;
/// `XLHL_XMAX_LOCK_ONLY`.
pub const XLHL_XMAX_LOCK_ONLY: u8 = 0x02;
/// `XLHL_XMAX_EXCL_LOCK`.
pub const XLHL_XMAX_EXCL_LOCK: u8 = 0x04;
/// `XLHL_XMAX_KEYSHR_LOCK`.
pub const XLHL_XMAX_KEYSHR_LOCK: u8 = 0x08;
/// `XLHL_KEYS_UPDATED`.
pub const XLHL_KEYS_UPDATED: u8 = 0x10;

// Btree (nbtxlog.h).
/// `XLOG_BTREE_INSERT_LEAF`.
pub const XLOG_BTREE_INSERT_LEAF: u8 = 0x00;
/// `XLOG_BTREE_INSERT_UPPER`.
pub const XLOG_BTREE_INSERT_UPPER: u8 = 0x10;
/// `XLOG_BTREE_INSERT_META`.
pub const XLOG_BTREE_INSERT_META: u8 = 0x20;
/// `XLOG_BTREE_SPLIT_L`.
pub const XLOG_BTREE_SPLIT_L: u8 = 0x30;
/// `XLOG_BTREE_SPLIT_R`.
pub const XLOG_BTREE_SPLIT_R: u8 = 0x40;
/// `XLOG_BTREE_INSERT_POST`.
pub const XLOG_BTREE_INSERT_POST: u8 = 0x50;
/// `XLOG_BTREE_DEDUP`.
pub const XLOG_BTREE_DEDUP: u8 = 0x60;
/// `XLOG_BTREE_DELETE`.
pub const XLOG_BTREE_DELETE: u8 = 0x70;
/// `XLOG_BTREE_UNLINK_PAGE`.
pub const XLOG_BTREE_UNLINK_PAGE: u8 = 0x80;
/// `XLOG_BTREE_UNLINK_PAGE_META`.
pub const XLOG_BTREE_UNLINK_PAGE_META: u8 = 0x90;
/// `XLOG_BTREE_NEWROOT`.
pub const XLOG_BTREE_NEWROOT: u8 = 0xA0;
/// `XLOG_BTREE_MARK_PAGE_HALFDEAD`.
pub const XLOG_BTREE_MARK_PAGE_HALFDEAD: u8 = 0xB0;
/// `XLOG_BTREE_VACUUM`.
pub const XLOG_BTREE_VACUUM: u8 = 0xC0;
/// `XLOG_BTREE_REUSE_PAGE`.
pub const XLOG_BTREE_REUSE_PAGE: u8 = 0xD0;
/// `XLOG_BTREE_META_CLEANUP`.
pub const XLOG_BTREE_META_CLEANUP: u8 = 0xE0;

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
