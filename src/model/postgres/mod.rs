//! PostgreSQL page structures, named after their C counterparts.
//!
//! ```text
//!  0                24            pd_lower          pd_upper        pd_special   BLCKSZ
//!  +----------------+--------------+------------------+---------------+------------+
//!  | PageHeaderData | ItemIdData[] |   free space     |    tuples     |  special   |
//!  |  (24 bytes)    | 4 bytes each |                  | (grow down)   | (AM data)  |
//!  +----------------+--------------+------------------+---------------+------------+
//! ```
//!
//! Heap tuple (`HeapTupleHeaderData`, htup_details.h), at `lp_off`:
//!
//! ```text
//!  0       4       8          12        18            20           22      23      t_hoff
//!  | t_xmin| t_xmax| t_field3 |  t_ctid | t_infomask2 | t_infomask | t_hoff| t_bits… | data…
//! ```

use std::fmt;
use std::ops::{Deref, Range};
use std::sync::Arc;

use serde::{Serialize, Serializer};

use super::span::Span;
use super::Problem;

mod attr;
pub mod cluster;
pub mod disk;
pub mod flags;
pub mod index;
pub mod infer;
mod item;
pub mod names;
pub mod types;
pub mod verdict;
pub mod verify;
pub mod wal;

pub use attr::{Attr, Compression, Float, Storage, ToastPointer, Typed, Value};
pub use item::{ItemId, ItemPointer, LpFlags};

/// Size of `PageHeaderData` (bufpage.h `SizeOfPageHeaderData`).
pub const SIZE_OF_PAGE_HEADER: usize = 24;
/// Size of one `ItemIdData` (itemid.h).
pub const SIZE_OF_ITEM_ID: usize = 4;
/// `SizeofHeapTupleHeader` (htup_details.h): offsetof(HeapTupleHeaderData, t_bits).
pub const SIZEOF_HEAP_TUPLE_HEADER: usize = 23;
/// `MAXIMUM_ALIGNOF` on the 64-bit platforms PostgreSQL is built for.
pub const MAXALIGN: usize = 8;
/// `MinHeapTupleSize`: MAXALIGN(SizeofHeapTupleHeader).
pub const MIN_HEAP_TUPLE_SIZE: usize = 24;
/// `PG_PAGE_LAYOUT_VERSION` (bufpage.h).
pub const PG_PAGE_LAYOUT_VERSION: u8 = 4;
/// `HEAP_NATTS_MASK` (htup_details.h): low 11 bits of t_infomask2.
pub const HEAP_NATTS_MASK: u16 = 0x07FF;
/// `HEAP_HASNULL`.
pub const HEAP_HASNULL: u16 = 0x0001;
/// `HEAP_HASOID_OLD` (HEAP_HASOID before PostgreSQL 12).
pub const HEAP_HASOID_OLD: u16 = 0x0008;

/// `BlockIdGetBlockNumber` (block.h): a `BlockIdData`'s two 16-bit halves
/// (`bi_hi`, `bi_lo`, each read in the page's byte order) as a block number.
pub const fn block_id(bi_hi: u16, bi_lo: u16) -> u32 {
    ((bi_hi as u32) << 16) | bi_lo as u32
}

/// `MAXALIGN` (c.h): `n` rounded up to a multiple of `MAXIMUM_ALIGNOF` (8).
pub const fn maxalign(n: usize) -> usize {
    n.saturating_add(MAXALIGN - 1) & !(MAXALIGN - 1)
}

/// How the build that wrote a page laid it out: its byte order and its
/// `MAXIMUM_ALIGNOF`. PostgreSQL pages are in the writing host's native
/// order; 32-bit builds (i386, 32-bit ARM) align to 4 bytes where 64-bit
/// builds align to 8, for MAXALIGN and for `typalign` `d` (`ALIGNOF_DOUBLE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PageLayout {
    /// Integers are stored most significant byte first (s390x, SPARC, POWER big-endian).
    pub big_endian: bool,
    /// `MAXIMUM_ALIGNOF`: 8 (64-bit builds) or 4 (32-bit builds).
    pub max_align: usize,
}

impl Default for PageLayout {
    fn default() -> Self {
        PageLayout {
            big_endian: false,
            max_align: MAXALIGN,
        }
    }
}

impl PageLayout {
    /// `MAXALIGN(n)` for this build.
    pub fn maxalign(self, n: usize) -> usize {
        let a = self.max_align.max(1);
        n.saturating_add(a - 1) / a * a
    }

    /// The boundary in bytes of `typalign` `align` on this build: `d`
    /// (ALIGNOF_DOUBLE) is 4 on 32-bit builds.
    pub fn align_bytes(self, align: types::Align) -> usize {
        align.bytes().min(self.max_align.max(1))
    }

    /// `att_align_nominal` for this build.
    pub fn align(self, align: types::Align, offset: usize) -> usize {
        let a = self.align_bytes(align);
        offset.saturating_add(a - 1) / a * a
    }

    /// This is the 64-bit little-endian layout (the default).
    pub fn is_default(&self) -> bool {
        *self == PageLayout::default()
    }
}

/// `PageXLogRecPtr` (bufpage.h): two 32-bit halves, printed as `%X/%X`;
/// ordered as the 64-bit `XLogRecPtr` it stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct Lsn {
    /// `xlogid`: high 32 bits of the WAL position.
    pub xlogid: u32,
    /// `xrecoff`: low 32 bits of the WAL position.
    pub xrecoff: u32,
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.xlogid, self.xrecoff)
    }
}

impl From<u64> for Lsn {
    /// An `XLogRecPtr` (as pg_control holds it) split into its halves.
    fn from(ptr: u64) -> Self {
        Lsn {
            xlogid: (ptr >> 32) as u32,
            xrecoff: ptr as u32,
        }
    }
}

impl Serialize for Lsn {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `PageHeaderData` (bufpage.h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageHeader {
    /// `pd_lsn`: LSN of the WAL record that last changed the page.
    pub pd_lsn: Lsn,
    /// `pd_checksum`: data checksum, set when data checksums are enabled.
    pub pd_checksum: u16,
    /// `pd_flags`: PD_HAS_FREE_LINES, PD_PAGE_FULL, PD_ALL_VISIBLE.
    pub pd_flags: u16,
    /// `pd_lower`: offset to the start of free space (end of the line pointer array).
    pub pd_lower: u16,
    /// `pd_upper`: offset to the end of free space (start of the tuples).
    pub pd_upper: u16,
    /// `pd_special`: offset to the start of the special space.
    pub pd_special: u16,
    /// `pd_pagesize_version`: page size (high byte) and layout version (low byte).
    pub pd_pagesize_version: u16,
    /// `pd_prune_xid`: oldest prunable XID on the page, or 0 if none.
    pub pd_prune_xid: u32,
}

impl PageHeader {
    /// `PageGetPageSize`: the high byte of pd_pagesize_version × 256.
    pub fn page_size(&self) -> usize {
        usize::from(self.pd_pagesize_version & 0xFF00)
    }

    /// `PageGetPageLayoutVersion`.
    pub fn layout_version(&self) -> u8 {
        (self.pd_pagesize_version & 0x00FF) as u8
    }

    /// `PageGetMaxOffsetNumber`: line pointers implied by pd_lower.
    pub fn max_offset_number(&self) -> usize {
        usize::from(self.pd_lower).saturating_sub(SIZE_OF_PAGE_HEADER) / SIZE_OF_ITEM_ID
    }
}

/// `HeapTupleHeaderData` (htup_details.h), fixed part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapTupleHeader {
    /// `t_xmin`: inserting transaction ID.
    pub t_xmin: u32,
    /// `t_xmax`: deleting or locking transaction ID.
    pub t_xmax: u32,
    /// `t_cid` or `t_xvac` (a union).
    pub t_field3: u32,
    /// `t_ctid`: TID of this tuple or of its newer version.
    pub t_ctid: ItemPointer,
    /// `t_infomask2`: number of attributes plus HEAP_KEYS_UPDATED, HEAP_HOT_UPDATED, HEAP_ONLY_TUPLE.
    pub t_infomask2: u16,
    /// `t_infomask`: HEAP_HASNULL, HEAP_XMIN_COMMITTED and the other infomask bits.
    pub t_infomask: u16,
    /// `t_hoff`: header size including null bitmap and padding (offset to user data).
    pub t_hoff: u8,
}

impl HeapTupleHeader {
    /// `HeapTupleHeaderGetNatts`.
    pub fn natts(&self) -> u16 {
        self.t_infomask2 & HEAP_NATTS_MASK
    }
}

/// Bytes cut from one page (a tuple's `t_data`), sharing one copy of the
/// page among all the tuples of a parse instead of one allocation each.
/// Reads, compares, prints and serializes as the byte slice it stands for.
#[derive(Clone)]
pub struct PageBytes {
    /// `None`: no bytes (costs no allocation).
    page: Option<Arc<[u8]>>,
    range: Range<usize>,
}

impl PageBytes {
    /// `range` of `page`; an empty slice when the range is not in the page.
    pub fn new(page: Arc<[u8]>, range: Range<usize>) -> Self {
        let range = if page.get(range.clone()).is_some() {
            range
        } else {
            0..0
        };
        PageBytes {
            page: Some(page),
            range,
        }
    }

    /// No bytes.
    pub fn empty() -> Self {
        PageBytes {
            page: None,
            range: 0..0,
        }
    }
}

impl Deref for PageBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.page
            .as_deref()
            .and_then(|p| p.get(self.range.clone()))
            .unwrap_or_default()
    }
}

impl PartialEq for PageBytes {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl Eq for PageBytes {}

impl fmt::Debug for PageBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).fmt(f)
    }
}

impl Serialize for PageBytes {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

/// A heap tuple as `heap_page_items` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapTuple {
    /// Fixed part of `HeapTupleHeaderData`.
    pub header: HeapTupleHeader,
    /// The null bitmap as pageinspect prints it ('1' = not null, LSB first, whole bytes).
    pub t_bits: Option<String>,
    /// `t_oid`, only when HEAP_HASOID_OLD is set.
    pub t_oid: Option<u32>,
    /// Page offset of the user data (lp_off + t_hoff).
    pub data_offset: usize,
    /// User data: lp_len − t_hoff bytes from t_hoff; `None` when t_hoff runs past lp_len.
    pub t_data: Option<PageBytes>,
    /// heap_tuple_infomask_flags' `raw_flags`.
    pub raw_flags: flags::FlagList,
    /// heap_tuple_infomask_flags' `combined_flags`.
    pub combined_flags: flags::FlagList,
}

/// One line pointer and, when it has a readable tuple, the tuple.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapItem {
    /// The line pointer (`ItemIdData`).
    pub id: ItemId,
    /// The tuple at lp_off, on heap and sequence pages when it has storage and is readable.
    pub tuple: Option<HeapTuple>,
    /// What the line pointer and tuple header prove (its `Display` is the
    /// plain-words verdict).
    pub verdict: verdict::ItemVerdict,
    /// The tuple's attributes, when column types were given (empty for an
    /// item without a tuple); `None` when they were not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attrs: Option<Vec<Attr>>,
}

/// What kind of page this is, as established from the page itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageKind {
    /// All zero bytes: a new page (`PageIsNew` with nothing in it).
    New,
    /// No special space: heap (table, TOAST, materialised view, sequence-free).
    Heap,
    /// B-tree index page (`BTPageOpaqueData`, nbtree.h).
    Btree,
    /// Hash index page (`HashPageOpaqueData`, hash.h).
    Hash,
    /// GiST index page (`GISTPageOpaqueData`, gist.h).
    Gist,
    /// SP-GiST index page (`SpGistPageOpaqueData`, spgist_private.h).
    SpGist,
    /// GIN index page (`GinPageOpaqueData`, ginblock.h).
    Gin,
    /// BRIN index page (`BrinSpecialSpace`, brin_page.h).
    Brin,
    /// Sequence page (special space `sequence_magic` = SEQ_MAGIC 0x1717).
    Sequence,
    /// Free space map fork.
    Fsm,
    /// Visibility map fork.
    Vm,
    /// Header readable, kind not established.
    Unknown,
}

impl PageKind {
    /// Short name as the output prints it (`heap`, `btree`, `sp-gist`, …).
    pub fn name(self) -> &'static str {
        match self {
            PageKind::New => "new",
            PageKind::Heap => "heap",
            PageKind::Btree => "btree",
            PageKind::Hash => "hash",
            PageKind::Gist => "gist",
            PageKind::SpGist => "sp-gist",
            PageKind::Gin => "gin",
            PageKind::Brin => "brin",
            PageKind::Sequence => "sequence",
            PageKind::Fsm => "fsm",
            PageKind::Vm => "vm",
            PageKind::Unknown => "unknown",
        }
    }
}

/// Stored vs computed data checksum (`pg_checksum_page`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ChecksumCheck {
    /// pd_checksum as stored.
    pub stored: u16,
    /// pg_checksum_page(page, blkno); `None` for new (all-zero) pages, which carry none.
    pub computed: Option<u16>,
    /// stored == computed (true for new pages).
    pub valid: bool,
}

/// Largest pd_checksum read as a timeline ID (pd_tli) of a page written
/// before PostgreSQL 9.3: timelines count promotions and stay small.
pub const PD_TLI_MAX: u16 = 255;

impl ChecksumCheck {
    /// The stored value fails but is small enough to be `pd_tli`, the
    /// timeline that PostgreSQL 8.3 to 9.2 wrote in this slot (layout version
    /// 4 then too): such a page, kept by pg_upgrade, carries no checksum.
    pub fn looks_like_tli(&self) -> bool {
        !self.valid && self.computed.is_some() && (1..=PD_TLI_MAX).contains(&self.stored)
    }
}

/// One decoded PostgreSQL page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PgPage {
    /// Block number within the relation (used for the checksum).
    pub blkno: u64,
    /// Access method or fork the page belongs to.
    pub kind: PageKind,
    /// Bytes in the page image.
    pub size: usize,
    /// `None` only for a page too short to hold a header.
    pub header: Option<PageHeader>,
    /// Line pointers (and heap tuples for heap pages), in offset-number order.
    pub items: Vec<HeapItem>,
    /// Stored vs computed pd_checksum; `None` when the header is unreadable.
    pub checksum: Option<ChecksumCheck>,
    /// Special space and access-method structures, for index and fork pages.
    pub am: Option<AmData>,
    /// Problems found while decoding the page.
    pub problems: Vec<Problem>,
    /// Byte ranges and the fields they hold, for the annotated hex view.
    #[serde(skip)]
    pub spans: Vec<Span>,
    /// Byte order and MAXALIGN of the build that wrote the page (detected).
    #[serde(skip)]
    pub layout: PageLayout,
}

/// `BTPageOpaqueData` (nbtree.h): the 16-byte special space of every btree page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BtPageOpaque {
    /// `btpo_prev`: left sibling block, or P_NONE (0) if leftmost.
    pub btpo_prev: u32,
    /// `btpo_next`: right sibling block, or P_NONE (0) if rightmost.
    pub btpo_next: u32,
    /// Tree level (0 = leaf); the deleted-page xact before PostgreSQL 14.
    pub btpo_level: u32,
    /// `btpo_flags`: BTP_LEAF, BTP_ROOT, BTP_DELETED, BTP_META, BTP_HALF_DEAD and the other BTP_* bits.
    pub btpo_flags: u16,
    /// `btpo_cycleid`: vacuum cycle ID of the latest split.
    pub btpo_cycleid: u16,
}

impl BtPageOpaque {
    /// A page deleted before PostgreSQL 14 (BTP_DELETED without
    /// BTP_HAS_FULLXID): the union `btpo` holds `xact`, not `level`.
    pub fn holds_xact(&self) -> bool {
        self.btpo_flags & 0x0004 != 0 && self.btpo_flags & 0x0100 == 0
    }
}

/// `BTMetaPageData` (nbtree.h), at the start of block 0's contents.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BtMetaPageData {
    /// `btm_magic`: BTREE_MAGIC (0x053162).
    pub btm_magic: u32,
    /// `btm_version`: nbtree on-disk version (BTREE_MIN_VERSION 2 to BTREE_VERSION 4).
    pub btm_version: u32,
    /// `btm_root`: current root block.
    pub btm_root: u32,
    /// `btm_level`: tree level of the root page.
    pub btm_level: u32,
    /// `btm_fastroot`: current fast root block.
    pub btm_fastroot: u32,
    /// `btm_fastlevel`: tree level of the fast root page.
    pub btm_fastlevel: u32,
    /// `btm_last_cleanup_num_delpages` (v3: `btm_oldest_btpo_xact`); only for version ≥ 3.
    pub btm_last_cleanup_num_delpages: u32,
    /// Only for version ≥ 3.
    pub btm_last_cleanup_num_heap_tuples: f64,
    /// Only for version ≥ 3 (meaningful from 4).
    pub btm_allequalimage: bool,
}

/// What `bt_page_stats` reports for a non-meta btree page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BtPageStats {
    /// `l` leaf, `i` internal, `r` root, `e` half-dead (ignored), `d`/`D` deleted leaf/internal.
    pub page_type: char,
    /// `live_items`: line pointers not LP_DEAD.
    pub live_items: u32,
    /// `dead_items`: LP_DEAD line pointers.
    pub dead_items: u32,
    /// `avg_item_size`: total IndexTupleSize / item count (integer division).
    pub avg_item_size: u32,
    /// `page_size`: `PageGetPageSize`.
    pub page_size: u32,
    /// `free_size`: `PageGetFreeSpace` (pd_upper − pd_lower − sizeof(ItemIdData), at least 0).
    pub free_size: u32,
}

/// What kind of index tuple a btree item is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "role")]
pub enum BtTupleRole {
    /// The high key of a non-rightmost page (offset 1).
    HighKey,
    /// A pivot tuple on an internal page: downlink to a child block.
    Downlink {
        /// Child block number (`BTreeTupleGetDownLink`).
        block: u32,
    },
    /// A non-pivot leaf tuple pointing at one heap tuple.
    Leaf,
    /// A leaf tuple holding a posting list of heap TIDs (deduplication).
    Posting {
        /// `BTreeTupleGetNPosting`: heap TIDs in the posting list.
        ntids: u16,
    },
}

/// `IndexTupleData` of a btree page as `bt_page_items` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BtIndexTuple {
    /// `t_tid`: heap TID, downlink, or pivot/posting metadata (bt_page_items `ctid`).
    pub t_tid: ItemPointer,
    /// `t_info`: size plus INDEX_NULL_MASK, INDEX_VAR_MASK, INDEX_ALT_TID_MASK.
    pub t_info: u16,
    /// `IndexTupleSize`: t_info & INDEX_SIZE_MASK.
    pub itemlen: u16,
    /// `INDEX_NULL_MASK` set (bt_page_items `nulls`).
    pub nulls: bool,
    /// `INDEX_VAR_MASK` set (bt_page_items `vars`).
    pub vars: bool,
    /// Key bytes, without a posting list or pivot heap TID.
    pub data: Vec<u8>,
    /// LP_DEAD; `None` for pivot tuples (pageinspect shows NULL).
    pub dead: Option<bool>,
    /// `BTreeTupleGetHeapTID`.
    pub htid: Option<ItemPointer>,
    /// The posting list, for posting tuples.
    pub tids: Option<Vec<ItemPointer>>,
    /// Number of key attributes kept in a pivot (t_tid offset & BT_OFFSET_MASK).
    pub pivot_natts: Option<u16>,
    /// Kind of tuple: high key, downlink, leaf, posting.
    pub role: BtTupleRole,
}

/// One btree line pointer and its tuple.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BtItem {
    /// The line pointer (`ItemIdData`).
    pub id: ItemId,
    /// The index tuple at lp_off, when it has storage and is readable.
    pub tuple: Option<BtIndexTuple>,
    /// One-line description: the tuple's role, or why there is no tuple.
    pub verdict: String,
    /// The key attributes, when column types were given.
    pub keys: Option<Vec<Attr>>,
}

/// `HashPageOpaqueData` (hash.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HashPageOpaque {
    /// `hasho_prevblkno`: previous page of the bucket chain; on a bucket page, hashm_maxbucket at its last split.
    pub hasho_prevblkno: u32,
    /// `hasho_nextblkno`: next overflow page of the bucket chain.
    pub hasho_nextblkno: u32,
    /// `hasho_bucket`: bucket number this page belongs to.
    pub hasho_bucket: u32,
    /// `hasho_flag`: page type (LH_*_PAGE) and bucket flags.
    pub hasho_flag: u16,
    /// `hasho_page_id`: HASHO_PAGE_ID (0xFF80).
    pub hasho_page_id: u16,
}

/// What `hash_page_stats` reports besides the special space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HashPageStats {
    /// `live_items`: line pointers not LP_DEAD.
    pub live_items: u32,
    /// `dead_items`: LP_DEAD line pointers.
    pub dead_items: u32,
    /// `page_size`: `PageGetPageSize`.
    pub page_size: u32,
    /// `free_size`: `PageGetFreeSpace`.
    pub free_size: u32,
}

/// `HashMetaPageData` (hash.h).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HashMetaPageData {
    /// `hashm_magic`: HASH_MAGIC (0x6440640).
    pub hashm_magic: u32,
    /// `hashm_version`: HASH_VERSION (4).
    pub hashm_version: u32,
    /// `hashm_ntuples`: number of tuples in the index.
    pub hashm_ntuples: f64,
    /// `hashm_ffactor`: target fill factor (tuples per bucket).
    pub hashm_ffactor: u16,
    /// `hashm_bsize`: index page size (bytes).
    pub hashm_bsize: u16,
    /// `hashm_bmsize`: bitmap array size (bytes), a power of 2.
    pub hashm_bmsize: u16,
    /// `hashm_bmshift`: log2(bitmap array size in bits).
    pub hashm_bmshift: u16,
    /// `hashm_maxbucket`: ID of the highest bucket in use.
    pub hashm_maxbucket: u32,
    /// `hashm_highmask`: mask to modulo into the entire table.
    pub hashm_highmask: u32,
    /// `hashm_lowmask`: mask to modulo into the lower half of the table.
    pub hashm_lowmask: u32,
    /// `hashm_ovflpoint`: splitpoint from which overflow pages are being allocated.
    pub hashm_ovflpoint: u32,
    /// `hashm_firstfree`: lowest-numbered free overflow page (bit number).
    pub hashm_firstfree: u32,
    /// `hashm_nmaps`: number of bitmap pages.
    pub hashm_nmaps: u32,
    /// `hashm_procid`: OID of the hash function.
    pub hashm_procid: u32,
    /// `hashm_spares`: spare pages before each splitpoint (HASH_MAX_SPLITPOINTS entries).
    pub hashm_spares: Vec<u32>,
    /// `hashm_mapp`: block numbers of the overflow bitmap pages (HASH_MAX_BITMAPS entries).
    pub hashm_mapp: Vec<u32>,
}

/// `GinPageOpaqueData` (ginblock.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GinPageOpaque {
    /// `rightlink`: next page, if any.
    pub rightlink: u32,
    /// `maxoff`: PostingItems on an internal data page; heap tuples on a GIN_LIST page.
    pub maxoff: u16,
    /// `flags`: GIN_DATA, GIN_LEAF, GIN_DELETED, GIN_META, GIN_LIST and the other GIN_* bits.
    pub flags: u16,
}

/// `GinMetaPageData` (ginblock.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GinMetaPageData {
    /// `head`: first pending-list page, or InvalidBlockNumber.
    pub head: u32,
    /// `tail`: last pending-list page, or InvalidBlockNumber.
    pub tail: u32,
    /// `tailFreeSize`: free space on the tail page.
    pub tail_free_size: u32,
    /// `nPendingPages`: pages in the pending list.
    pub n_pending_pages: u32,
    /// `nPendingHeapTuples`: heap tuples in the pending list.
    pub n_pending_heap_tuples: i64,
    /// `nTotalPages`: index pages as of the last VACUUM.
    pub n_total_pages: u32,
    /// `nEntryPages`: entry-tree pages as of the last VACUUM.
    pub n_entry_pages: u32,
    /// `nDataPages`: posting-tree pages as of the last VACUUM.
    pub n_data_pages: u32,
    /// `nEntries`: entries as of the last VACUUM.
    pub n_entries: i64,
    /// `ginVersion`: GIN on-disk version (GIN_CURRENT_VERSION 2).
    pub gin_version: i32,
}

/// `GISTPageOpaqueData` (gist.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GistPageOpaque {
    /// `nsn`: LSN of the split that created the right sibling.
    pub nsn: Lsn,
    /// `rightlink`: next page at the same level, if any.
    pub rightlink: u32,
    /// `flags`: F_LEAF, F_DELETED, F_TUPLES_DELETED, F_FOLLOW_RIGHT, F_HAS_GARBAGE.
    pub flags: u16,
    /// `gist_page_id`: GIST_PAGE_ID (0xFF81).
    pub gist_page_id: u16,
}

/// `SpGistPageOpaqueData` (spgist_private.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistPageOpaque {
    /// `flags`: SPGIST_META, SPGIST_DELETED, SPGIST_LEAF, SPGIST_NULLS.
    pub flags: u16,
    /// `nRedirection`: redirection tuples on the page.
    pub n_redirection: u16,
    /// `nPlaceholder`: placeholder tuples on the page.
    pub n_placeholder: u16,
    /// `spgist_page_id`: SPGIST_PAGE_ID (0xFF82).
    pub spgist_page_id: u16,
}

/// `BrinSpecialSpace` (brin_page.h): flags and page type in its last two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BrinSpecial {
    /// `BrinPageFlags`: BRIN_EVACUATE_PAGE.
    pub flags: u16,
    /// `BrinPageType`: BRIN_PAGETYPE_META, BRIN_PAGETYPE_REVMAP or BRIN_PAGETYPE_REGULAR.
    pub page_type: u16,
}

/// `BrinMetaPageData` (brin_page.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BrinMetaPageData {
    /// `brinMagic`: BRIN_META_MAGIC (0xA8109CFA).
    pub brin_magic: u32,
    /// `brinVersion`: BRIN_CURRENT_VERSION (1).
    pub brin_version: u32,
    /// `pagesPerRange`: heap pages summarised per range.
    pub pages_per_range: u32,
    /// `lastRevmapPage`: block of the last revmap page.
    pub last_revmap_page: u32,
}

/// `FSMPageData` (fsm_internals.h): a binary tree of free-space categories.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FsmPage {
    /// `fp_next_slot`: slot where the next search starts.
    pub fp_next_slot: i32,
    /// `(node, value)` for every non-zero node.
    pub nodes: Vec<(u32, u8)>,
}

/// A visibility-map page: two bits per heap block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct VmPage {
    /// Heap block number of the first block this page maps.
    pub first_heap_block: u64,
    /// `(heap block, all_visible, all_frozen)` for every heap block with a bit set.
    pub blocks: Vec<(u64, bool, bool)>,
}

/// What a page carries besides line pointers, by access method.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "am")]
pub enum AmData {
    /// B-tree page: special space, metapage, bt_page_stats and bt_page_items.
    Btree {
        /// `BTPageOpaqueData`.
        opaque: BtPageOpaque,
        /// Block 0.
        meta: Option<BtMetaPageData>,
        /// Non-meta pages.
        stats: Option<BtPageStats>,
        /// Deleted pages of PostgreSQL 14+: `BTDeletedPageData.safexid`.
        safexid: Option<u64>,
        /// Line pointers and index tuples, as `bt_page_items` lists them.
        items: Vec<BtItem>,
    },
    /// Hash page: special space, metapage, hash_page_stats.
    Hash {
        /// `HashPageOpaqueData`.
        opaque: HashPageOpaque,
        /// `HashMetaPageData`, on the metapage (LH_META_PAGE).
        meta: Option<HashMetaPageData>,
        /// Bucket and overflow pages: what `hash_page_stats` counts.
        stats: Option<HashPageStats>,
        /// Bucket and overflow pages: `hash_page_items`.
        items: Vec<index::IndexItem>,
        /// Bitmap pages: the overflow-page bitmap.
        bitmap: Option<index::HashBitmap>,
    },
    /// GIN page: special space and metapage.
    Gin {
        /// `GinPageOpaqueData`.
        opaque: GinPageOpaque,
        /// `GinMetaPageData`, on the metapage (GIN_META).
        meta: Option<GinMetaPageData>,
        /// Entry-tree and pending-list tuples, or posting-tree internal items.
        items: Vec<index::IndexItem>,
        /// Posting-tree (GIN_DATA) pages: right bound and posting lists.
        data: Option<index::GinDataPage>,
    },
    /// GiST page: special space.
    Gist {
        /// `GISTPageOpaqueData`.
        opaque: GistPageOpaque,
        /// `gist_page_items`.
        items: Vec<index::IndexItem>,
    },
    /// SP-GiST page: special space.
    SpGist {
        /// `SpGistPageOpaqueData`.
        opaque: SpGistPageOpaque,
        /// `SpGistMetaPageData`, on the metapage (SPGIST_META).
        meta: Option<index::SpGistMeta>,
        /// Inner, leaf, redirect, dead and placeholder tuples.
        items: Vec<index::IndexItem>,
    },
    /// BRIN page: special space, metapage, revmap.
    Brin {
        /// `BrinSpecialSpace`.
        special: BrinSpecial,
        /// `BrinMetaPageData`, on the metapage (BRIN_PAGETYPE_META).
        meta: Option<BrinMetaPageData>,
        /// Revmap pages: the TID of each range's summary tuple.
        revmap: Option<Vec<ItemPointer>>,
        /// Regular pages: the summary tuples (`brin_page_items`).
        items: Vec<index::IndexItem>,
    },
    /// Sequence page.
    Sequence {
        /// `sequence_magic.magic`: SEQ_MAGIC (0x1717).
        magic: u32,
    },
    /// Free space map page (`FSMPageData`).
    Fsm(FsmPage),
    /// Visibility map page.
    Vm(VmPage),
}
