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

use serde::{Serialize, Serializer};

use super::span::Span;
use super::Problem;

pub mod flags;
pub mod names;
pub mod types;
pub mod verdict;
pub mod verify;

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

pub fn maxalign(n: usize) -> usize {
    n.saturating_add(MAXALIGN - 1) & !(MAXALIGN - 1)
}

/// `PageXLogRecPtr` (bufpage.h): two 32-bit halves, printed as `%X/%X`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Lsn {
    pub xlogid: u32,
    pub xrecoff: u32,
}

impl fmt::Display for Lsn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:X}/{:X}", self.xlogid, self.xrecoff)
    }
}

impl Serialize for Lsn {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `ItemPointerData` (itemptr.h): block id as two uint16 halves + offset number.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct ItemPointer {
    /// `ip_blkid`: bi_hi << 16 | bi_lo.
    pub block: u32,
    /// `ip_posid`.
    pub offset: u16,
}

impl fmt::Display for ItemPointer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({},{})", self.block, self.offset)
    }
}

impl Serialize for ItemPointer {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// `PageHeaderData` (bufpage.h).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PageHeader {
    pub pd_lsn: Lsn,
    pub pd_checksum: u16,
    pub pd_flags: u16,
    pub pd_lower: u16,
    pub pd_upper: u16,
    pub pd_special: u16,
    pub pd_pagesize_version: u16,
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

/// `lp_flags` (itemid.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LpFlags {
    Unused,
    Normal,
    Redirect,
    Dead,
}

impl LpFlags {
    pub fn from_bits(bits: u32) -> LpFlags {
        match bits & 3 {
            0 => LpFlags::Unused,
            1 => LpFlags::Normal,
            2 => LpFlags::Redirect,
            _ => LpFlags::Dead,
        }
    }

    pub fn code(self) -> u8 {
        match self {
            LpFlags::Unused => 0,
            LpFlags::Normal => 1,
            LpFlags::Redirect => 2,
            LpFlags::Dead => 3,
        }
    }

    /// `LP_NORMAL` etc.
    pub fn name(self) -> &'static str {
        match self {
            LpFlags::Unused => "LP_UNUSED",
            LpFlags::Normal => "LP_NORMAL",
            LpFlags::Redirect => "LP_REDIRECT",
            LpFlags::Dead => "LP_DEAD",
        }
    }

    /// `NORMAL` etc.
    pub fn short(self) -> &'static str {
        &self.name()[3..]
    }
}

impl Serialize for LpFlags {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.code())
    }
}

/// `ItemIdData` (itemid.h): a 32-bit bitfield, lp_off:15, lp_flags:2, lp_len:15
/// (little-endian GCC allocation).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ItemId {
    /// 1-based offset number of this line pointer.
    pub lp: u16,
    pub raw: u32,
    pub lp_off: u16,
    pub lp_flags: LpFlags,
    pub lp_len: u16,
}

impl ItemId {
    pub fn from_word(lp: u16, raw: u32) -> ItemId {
        ItemId {
            lp,
            raw,
            lp_off: (raw & 0x7FFF) as u16,
            lp_flags: LpFlags::from_bits(raw >> 15),
            lp_len: ((raw >> 17) & 0x7FFF) as u16,
        }
    }

    /// `ItemIdHasStorage`.
    pub fn has_storage(&self) -> bool {
        self.lp_len != 0
    }
}

/// `HeapTupleHeaderData` (htup_details.h), fixed part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HeapTupleHeader {
    pub t_xmin: u32,
    pub t_xmax: u32,
    /// `t_cid` or `t_xvac` (a union).
    pub t_field3: u32,
    pub t_ctid: ItemPointer,
    pub t_infomask2: u16,
    pub t_infomask: u16,
    pub t_hoff: u8,
}

impl HeapTupleHeader {
    /// `HeapTupleHeaderGetNatts`.
    pub fn natts(&self) -> u16 {
        self.t_infomask2 & HEAP_NATTS_MASK
    }
}

/// A heap tuple as `heap_page_items` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapTuple {
    pub header: HeapTupleHeader,
    /// The null bitmap as pageinspect prints it ('1' = not null, LSB first, whole bytes).
    pub t_bits: Option<String>,
    /// `t_oid`, only when HEAP_HASOID_OLD is set.
    pub t_oid: Option<u32>,
    /// Page offset of the user data (lp_off + t_hoff).
    pub data_offset: usize,
    /// User data: lp_len − t_hoff bytes from t_hoff; `None` when t_hoff runs past lp_len.
    pub t_data: Option<Vec<u8>>,
    /// heap_tuple_infomask_flags' `raw_flags`.
    pub raw_flags: Vec<&'static str>,
    /// heap_tuple_infomask_flags' `combined_flags`.
    pub combined_flags: Vec<&'static str>,
}

/// One line pointer and, when it has a readable tuple, the tuple.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HeapItem {
    pub id: ItemId,
    pub tuple: Option<HeapTuple>,
    /// What the line pointer and tuple header prove (its `Display` is the
    /// plain-words verdict).
    pub verdict: verdict::ItemVerdict,
    /// The tuple's attributes, when column types were given (empty for an
    /// item without a tuple); `None` when they were not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attrs: Option<Vec<Attr>>,
}

/// A value printed the way PostgreSQL's output function prints it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Value {
    /// The text form (`SELECT`'s output for the column).
    pub text: String,
    /// What the text is, for JSON: a number or boolean where that is exact.
    pub typed: Typed,
}

/// A finite `f64` compared by its bits (so values can be `Eq`).
#[derive(Clone, Copy, Debug, Serialize)]
#[serde(transparent)]
pub struct Float(pub f64);

impl PartialEq for Float {
    fn eq(&self, other: &Float) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Float {}

/// The JSON shape of a [`Value`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum Typed {
    /// A string (text, dates, numeric, …).
    Text,
    /// `t`/`f`.
    Bool(bool),
    /// An integer type.
    Int(i64),
    /// An unsigned integer type (oid, xid, …).
    UInt(u64),
    /// A finite float: the double nearest the text (so JSON prints the same digits).
    Float(Float),
    /// Not decoded: the text is the value's bytes as `\x…` hex.
    Hex,
}

impl Value {
    pub fn text(text: impl Into<String>) -> Value {
        Value {
            text: text.into(),
            typed: Typed::Text,
        }
    }

    pub fn hex(bytes: &[u8]) -> Value {
        let mut text = String::with_capacity(2 + bytes.len() * 2);
        text.push_str("\\x");
        for b in bytes {
            text.push_str(&format!("{b:02x}"));
        }
        Value {
            text,
            typed: Typed::Hex,
        }
    }
}

/// Compression method of a compressed varlena (`ToastCompressionId`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    Pglz,
    Lz4,
    /// Method bits 2 or 3: not defined by PostgreSQL.
    Unknown,
}

impl Compression {
    /// From the two method bits of `va_tcinfo` / `va_extinfo`.
    pub fn from_bits(bits: u32) -> Compression {
        match bits {
            0 => Compression::Pglz,
            1 => Compression::Lz4,
            _ => Compression::Unknown,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Compression::Pglz => "pglz",
            Compression::Lz4 => "lz4",
            Compression::Unknown => "unknown",
        }
    }
}

/// `varatt_external` (varatt.h): an on-disk TOAST pointer (vartag 18).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ToastPointer {
    /// Original data size, including its 4-byte header.
    pub va_rawsize: i32,
    /// External size (low 30 bits) and compression method (high 2 bits, PostgreSQL 14+).
    pub va_extinfo: u32,
    /// `va_extinfo & 0x3FFFFFFF`: bytes stored in the TOAST relation.
    pub extsize: u32,
    /// Stored compressed: external size below raw size − 4.
    pub compressed: bool,
    /// The method, when compressed.
    pub method: Option<Compression>,
    /// `chunk_id` of the value's chunks.
    pub va_valueid: u32,
    /// OID of the TOAST relation (`pg_class.oid`, not its relfilenode).
    pub va_toastrelid: u32,
    /// Chunks read back from the TOAST relation, when it was given.
    pub chunks: Option<u32>,
}

/// How an attribute is stored in the tuple.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Storage {
    /// Fixed length (`attlen` > 0).
    Plain,
    /// `attlen` -2: a NUL-terminated C string.
    Cstring,
    /// Varlena with a 1-byte header (up to 126 bytes of data, never aligned).
    Short,
    /// Varlena with a 4-byte header, uncompressed.
    #[serde(rename = "4b")]
    Long,
    /// Varlena with a 4-byte header, compressed inline.
    Compressed {
        method: Compression,
        /// Uncompressed size of the data (`va_tcinfo` low 30 bits).
        rawsize: u32,
    },
    /// An on-disk TOAST pointer (`0x01 0x12` + `varatt_external`).
    ExternalToast,
    /// Another external pointer (indirect, expanded): never valid on disk.
    ExternalOther { vartag: u8 },
    /// SQL NULL (null bitmap bit clear).
    Null,
    /// Past the tuple's natts: a column added later (its missing value or NULL).
    Missing,
    /// Not read: an earlier attribute did not fit the tuple.
    Unread,
}

impl Storage {
    /// Short name as JSON has it.
    pub fn name(&self) -> String {
        match self {
            Storage::Plain => "plain".into(),
            Storage::Cstring => "cstring".into(),
            Storage::Short => "short".into(),
            Storage::Long => "4b".into(),
            Storage::Compressed { method, .. } => format!("compressed-{}", method.name()),
            Storage::ExternalToast => "external-toast".into(),
            Storage::ExternalOther { .. } => "external-other".into(),
            Storage::Null => "null".into(),
            Storage::Missing => "missing".into(),
            Storage::Unread => "unread".into(),
        }
    }
}

/// One attribute of a heap tuple: its bytes (as `tuple_data_split` gives
/// them) and its value (as `SELECT` prints it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Attr {
    /// `attnum` (1-based).
    pub attnum: u16,
    pub name: Option<String>,
    /// The type as `format_type` names it.
    pub type_name: String,
    /// A dropped column: its bytes are skipped (and shown), it has no value in SQL.
    pub dropped: bool,
    /// Page offset of the attribute's first byte (after alignment padding).
    pub offset: Option<usize>,
    /// The raw datum, varlena header included; `None` for NULL, missing and unread.
    pub raw: Option<Vec<u8>>,
    pub storage: Storage,
    /// The TOAST pointer of an external value.
    pub toast: Option<ToastPointer>,
    /// The value; `None` for SQL NULL, and for a value that could not be read
    /// (then `storage` and `problems` say why).
    pub value: Option<Value>,
    /// What went wrong or is worth knowing about this attribute.
    pub problems: Vec<String>,
}

/// What kind of page this is, as established from the page itself.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum PageKind {
    /// All zero bytes: a new page (`PageIsNew` with nothing in it).
    New,
    /// No special space: heap (table, TOAST, materialised view, sequence-free).
    Heap,
    Btree,
    Hash,
    Gist,
    SpGist,
    Gin,
    Brin,
    Sequence,
    /// Free space map fork.
    Fsm,
    /// Visibility map fork.
    Vm,
    /// Header readable, kind not established.
    Unknown,
}

impl PageKind {
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

/// One decoded PostgreSQL page.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct PgPage {
    /// Block number within the relation (used for the checksum).
    pub blkno: u64,
    pub kind: PageKind,
    /// Bytes in the page image.
    pub size: usize,
    /// `None` only for a page too short to hold a header.
    pub header: Option<PageHeader>,
    /// Line pointers (and heap tuples for heap pages), in offset-number order.
    pub items: Vec<HeapItem>,
    pub checksum: Option<ChecksumCheck>,
    /// Special space and access-method structures, for index and fork pages.
    pub am: Option<AmData>,
    pub problems: Vec<Problem>,
    /// Byte ranges and the fields they hold, for the annotated hex view.
    #[serde(skip)]
    pub spans: Vec<Span>,
}

/// `BTPageOpaqueData` (nbtree.h): the 16-byte special space of every btree page.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BtPageOpaque {
    pub btpo_prev: u32,
    pub btpo_next: u32,
    /// Tree level (0 = leaf); the deleted-page xact before PostgreSQL 14.
    pub btpo_level: u32,
    pub btpo_flags: u16,
    pub btpo_cycleid: u16,
}

/// `BTMetaPageData` (nbtree.h), at the start of block 0's contents.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct BtMetaPageData {
    pub btm_magic: u32,
    pub btm_version: u32,
    pub btm_root: u32,
    pub btm_level: u32,
    pub btm_fastroot: u32,
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
    pub live_items: u32,
    pub dead_items: u32,
    pub avg_item_size: u32,
    pub page_size: u32,
    pub free_size: u32,
}

/// What kind of index tuple a btree item is.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case", tag = "role")]
pub enum BtTupleRole {
    /// The high key of a non-rightmost page (offset 1).
    HighKey,
    /// A pivot tuple on an internal page: downlink to a child block.
    Downlink { block: u32 },
    /// A non-pivot leaf tuple pointing at one heap tuple.
    Leaf,
    /// A leaf tuple holding a posting list of heap TIDs (deduplication).
    Posting { ntids: u16 },
}

/// `IndexTupleData` of a btree page as `bt_page_items` shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BtIndexTuple {
    pub t_tid: ItemPointer,
    pub t_info: u16,
    /// `IndexTupleSize`: t_info & INDEX_SIZE_MASK.
    pub itemlen: u16,
    pub nulls: bool,
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
    pub role: BtTupleRole,
}

/// One btree line pointer and its tuple.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct BtItem {
    pub id: ItemId,
    pub tuple: Option<BtIndexTuple>,
    pub verdict: String,
}

/// `HashPageOpaqueData` (hash.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HashPageOpaque {
    pub hasho_prevblkno: u32,
    pub hasho_nextblkno: u32,
    pub hasho_bucket: u32,
    pub hasho_flag: u16,
    pub hasho_page_id: u16,
}

/// What `hash_page_stats` reports besides the special space.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct HashPageStats {
    pub live_items: u32,
    pub dead_items: u32,
    pub page_size: u32,
    pub free_size: u32,
}

/// `HashMetaPageData` (hash.h).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HashMetaPageData {
    pub hashm_magic: u32,
    pub hashm_version: u32,
    pub hashm_ntuples: f64,
    pub hashm_ffactor: u16,
    pub hashm_bsize: u16,
    pub hashm_bmsize: u16,
    pub hashm_bmshift: u16,
    pub hashm_maxbucket: u32,
    pub hashm_highmask: u32,
    pub hashm_lowmask: u32,
    pub hashm_ovflpoint: u32,
    pub hashm_firstfree: u32,
    pub hashm_nmaps: u32,
    pub hashm_procid: u32,
    pub hashm_spares: Vec<u32>,
    pub hashm_mapp: Vec<u32>,
}

/// `GinPageOpaqueData` (ginblock.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GinPageOpaque {
    pub rightlink: u32,
    pub maxoff: u16,
    pub flags: u16,
}

/// `GinMetaPageData` (ginblock.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GinMetaPageData {
    pub head: u32,
    pub tail: u32,
    pub tail_free_size: u32,
    pub n_pending_pages: u32,
    pub n_pending_heap_tuples: i64,
    pub n_total_pages: u32,
    pub n_entry_pages: u32,
    pub n_data_pages: u32,
    pub n_entries: i64,
    pub gin_version: i32,
}

/// `GISTPageOpaqueData` (gist.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct GistPageOpaque {
    pub nsn: Lsn,
    pub rightlink: u32,
    pub flags: u16,
    pub gist_page_id: u16,
}

/// `SpGistPageOpaqueData` (spgist_private.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SpGistPageOpaque {
    pub flags: u16,
    pub n_redirection: u16,
    pub n_placeholder: u16,
    pub spgist_page_id: u16,
}

/// `BrinSpecialSpace` (brin_page.h): flags and page type in its last two words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BrinSpecial {
    pub flags: u16,
    pub page_type: u16,
}

/// `BrinMetaPageData` (brin_page.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct BrinMetaPageData {
    pub brin_magic: u32,
    pub brin_version: u32,
    pub pages_per_range: u32,
    pub last_revmap_page: u32,
}

/// `FSMPageData` (fsm_internals.h): a binary tree of free-space categories.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FsmPage {
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
    Btree {
        opaque: BtPageOpaque,
        /// Block 0.
        meta: Option<BtMetaPageData>,
        /// Non-meta pages.
        stats: Option<BtPageStats>,
        /// Deleted pages of PostgreSQL 14+: `BTDeletedPageData.safexid`.
        safexid: Option<u64>,
        items: Vec<BtItem>,
    },
    Hash {
        opaque: HashPageOpaque,
        meta: Option<HashMetaPageData>,
        /// Bucket and overflow pages: what `hash_page_stats` counts.
        stats: Option<HashPageStats>,
    },
    Gin {
        opaque: GinPageOpaque,
        meta: Option<GinMetaPageData>,
    },
    Gist {
        opaque: GistPageOpaque,
    },
    SpGist {
        opaque: SpGistPageOpaque,
    },
    Brin {
        special: BrinSpecial,
        meta: Option<BrinMetaPageData>,
        /// Revmap pages: the TID of each range's summary tuple.
        revmap: Option<Vec<ItemPointer>>,
    },
    Sequence {
        magic: u32,
    },
    Fsm(FsmPage),
    Vm(VmPage),
}
