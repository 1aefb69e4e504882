//! Space-management blocks as Oracle's dump prints them: segment headers
//! (MSSM type 0x10 `DATA SEGMENT HEADER - UNLIMITED`, ASSM type 0x23
//! `PAGETABLE SEGMENT HEADER`), ASSM bitmap blocks (types 0x20/0x21
//! `FIRST`/`SECOND LEVEL BITMAP BLOCK`), undo blocks and the KTFB file space
//! header and bitmap blocks of a locally managed file (types 0x1d/0x1e).
//! Field names follow the dump's labels (`spare1`, `extents`, `ext#`,
//! `nbits`, `parent dba`, `RelFno` …).
//!
//! The byte layouts of segment headers, ASSM bitmap blocks and undo segment
//! headers are not established by any public source this project uses, so
//! those structures are filled from a trace's formatted text only; from raw
//! bytes the body is shown as hex with a note ([`Undecoded`]). The KTFB file
//! space header is read from bytes too, for the fields whose offsets a
//! published block shows ([`FileSpaceHeader`]), and so is the undo block's
//! header and record directory, at the offsets BBED publishes for `struct
//! ktubh` ([`UndoBlock`]; the records stay undecoded).

use serde::Serialize;

/// `Extent Header:: spare1: … spare2: … extents: … blocks: …` and its second
/// line `last map 0x… maps: … offset: …`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ExtentHeader {
    /// `spare1:`.
    pub spare1: u32,
    /// `spare2:`.
    pub spare2: u32,
    /// `extents:`: extents in the segment.
    pub extents: u32,
    /// `blocks:`: blocks in the segment.
    pub blocks: u32,
    /// `last map`: the last extent map block (0 when the header holds the map).
    pub last_map: u32,
    /// `maps:`: extent map blocks besides the header.
    pub maps: u32,
    /// `offset:`.
    pub offset: u32,
}

/// `Highwater::  0x… ext#: … blk#: … ext size: …` with the lines that
/// follow it (`blocks in seg. hdr's freelists:`, `blocks below:`, `mapblk`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Highwater {
    /// The high-water mark's block address.
    pub dba: u32,
    /// `ext#:`: extent of the high-water mark.
    pub ext: u32,
    /// `blk#:`: block within that extent.
    pub blk: u32,
    /// `ext size:`.
    pub ext_size: u32,
    /// `blocks in seg. hdr's freelists:`.
    pub freelist_blocks: u32,
    /// `blocks below:`: blocks below the mark.
    pub blocks_below: u32,
    /// `mapblk`: extent map block of the mark.
    pub mapblk: u32,
    /// `offset:` after `mapblk`.
    pub mapblk_offset: u32,
}

/// `Map Header:: next 0x… extents: … obj#: … flag: 0x…`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct MapHeader {
    /// `next`: next extent map block.
    pub next: u32,
    /// `extents:`: extents in this map.
    pub extents: u32,
    /// `obj#:`: data object id.
    pub obj: u32,
    /// `flag:`.
    pub flag: u32,
}

/// One `Extent Map` line: `0x…  length: …`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ExtentEntry {
    /// First block of the extent.
    pub dba: u32,
    /// `length:` in blocks.
    pub length: u32,
}

/// One `Auxillary Map` line (Oracle's spelling): `Extent N : L1 dba: 0x… Data dba: 0x…`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AuxEntry {
    /// Extent number.
    pub extent: u32,
    /// `L1 dba:`: the first level bitmap block of the extent.
    pub l1_dba: u32,
    /// `Data dba:`: the first data block of the extent.
    pub data_dba: u32,
}

/// The ASSM part of a segment header (type 0x23).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct AssmHeader {
    /// `Low HighWater Mark :`.
    pub low_highwater: Highwater,
    /// `Level 1 BMB for High HWM block:`.
    pub l1_high_hwm: u32,
    /// `Level 1 BMB for Low HWM block:`.
    pub l1_low_hwm: u32,
    /// `Segment Type:`.
    pub segment_type: u32,
    /// `nl2:`: second level bitmap blocks.
    pub nl2: u32,
    /// `blksz:`.
    pub blksz: u32,
    /// `fbsz:`.
    pub fbsz: u32,
    /// `L2 Array start offset:`.
    pub l2_array_offset: u32,
    /// `First Level 3 BMB:`.
    pub first_l3: u32,
    /// `L2 Hint for inserts:`.
    pub l2_hint: u32,
    /// `Last Level 1 BMB:`.
    pub last_l1: u32,
    /// `Last Level II BMB:`.
    pub last_l2: u32,
    /// `Last Level III BMB:`.
    pub last_l3: u32,
    /// `Inc` after the map header.
    pub inc: u32,
    /// The label is printed `Inc # N` (the 11.2.0.4 dump of 2015; the older
    /// copy prints `Inc N `).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inc_hash: bool,
    /// `Auxillary Map` entries.
    pub aux_map: Vec<AuxEntry>,
    /// `Second Level Bitmap block DBAs` (`DBA 1:` …).
    pub l2_dbas: Vec<u32>,
}

/// One freelist line: `SEG LST:: flg: USED lhd: 0x… ltl: 0x…`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FreeList {
    /// `flg:`: `USED` or `UNUSED`.
    pub flg: String,
    /// `lhd:`: head of the list.
    pub lhd: u32,
    /// `ltl:`: tail of the list.
    pub ltl: u32,
}

/// The MSSM freelist part (type 0x10): `nfl = …, nfb = … typ = … nxf = … ccnt = …`
/// and the `SEG LST::` lines.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Freelists {
    /// `nfl`: freelists per group.
    pub nfl: u32,
    /// `nfb`: freelist groups.
    pub nfb: u32,
    /// `typ`.
    pub typ: u32,
    /// `nxf`.
    pub nxf: u32,
    /// `ccnt`.
    pub ccnt: u32,
    /// `SEG LST::` lines: the segment freelist and the process freelists.
    pub seg_lst: Vec<FreeList>,
}

/// A segment header, MSSM (0x10) or ASSM (0x23), as the dump prints it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SegmentHeader {
    /// `Extent Header::`.
    pub extent_header: ExtentHeader,
    /// `Highwater::` of the Extent Control Header.
    pub highwater: Highwater,
    /// The lock line (`Unlocked`).
    pub lock: String,
    /// ASSM segment headers only.
    pub assm: Option<AssmHeader>,
    /// `Map Header::`.
    pub map_header: MapHeader,
    /// `Extent Map` entries.
    pub extent_map: Vec<ExtentEntry>,
    /// MSSM segment headers only.
    pub freelists: Option<Freelists>,
    /// Undo segment headers only (type 0x26): retention table, `TRN CTL::`,
    /// `FREE BLOCK POOL::`, `TRN TBL::`.
    pub undo: Option<Box<UndoHeader>>,
    /// The labels carry `#` (`#extents:`, `#blocks:`, `#maps:`, `#blocks
    /// below:`), as 10g and 11g print them in undo segment headers and
    /// 11.2.0.4 in ASSM segment headers (the Low HighWater Mark's too).
    #[serde(skip)]
    pub hash_labels: bool,
    /// Where the published copy lays out its fixed lines differently.
    #[serde(skip)]
    pub layout: SegmentHeaderLayout,
}

/// How a published copy of a segment header lays out lines that carry no
/// value (indents, trailing blanks, blank lines), so that `--format dump`
/// prints it back line for line. The default is the form of the first
/// published copy read (`assm_segment_header.trc`); each `true` is the form
/// of the 11.2.0.4 dump of 2015 (`assm_11g_hash_labels.trc`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SegmentHeaderLayout {
    /// `Extent Control Header` starts the line (no two-blank indent).
    pub marker_unindented: bool,
    /// `  Low HighWater Mark :` ends without the trailing blank.
    pub low_hwm_no_trailing_blank: bool,
    /// A blank line follows the extent map.
    pub blank_after_extent_map: bool,
    /// `Second Level Bitmap block DBAs` follows a blank line, unindented
    /// and without a trailing blank.
    pub l2_heading_unindented: bool,
}

/// `TRN CTL::` of an undo segment header: the transaction table's control
/// fields, with the dump's labels.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TrnCtl {
    /// `seq:`: sequence of the undo block in use.
    pub seq: u32,
    /// `chd:`: head of the free slot list (the slot used next).
    pub chd: u32,
    /// `ctl:`: tail of the free slot list.
    pub ctl: u32,
    /// `inc:`.
    pub inc: u32,
    /// `nfb:`: free blocks in the free block pool.
    pub nfb: u32,
    /// `mgc:`.
    pub mgc: u32,
    /// `xts:`.
    pub xts: u32,
    /// `flg:`.
    pub flg: u32,
    /// `opt:`.
    pub opt: u32,
    /// `uba:` as printed (`dba.seq.rec`).
    pub uba: String,
    /// `scn:` as printed.
    pub scn: String,
}

/// One `FREE BLOCK POOL::` line: `uba: … ext: 0x… spc: 0x…`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FreeBlock {
    /// `uba:` as printed.
    pub uba: String,
    /// `ext:`.
    pub ext: u32,
    /// `spc:`: free bytes.
    pub spc: u32,
}

/// One `TRN TBL::` slot: `index state cflags wrap# uel scn dba parent-xid nub
/// stmt_num [cmt]`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TrnSlot {
    /// `index`: the slot number (the middle part of an xid).
    pub index: u32,
    /// `state` (9 inactive, 10 active, as published dumps show).
    pub state: u32,
    /// `cflags`.
    pub cflags: u32,
    /// `wrap#`: the slot's sequence (the last part of an xid).
    pub wrap: u32,
    /// `uel`: next slot in the free list (`0xffff` ends it).
    pub uel: u32,
    /// `scn` as printed.
    pub scn: String,
    /// `dba`: the undo block of the slot's last record.
    pub dba: u32,
    /// `parent-xid` as printed.
    pub parent_xid: String,
    /// `nub`: undo blocks used.
    pub nub: u32,
    /// `stmt_num`.
    pub stmt_num: u32,
    /// `cmt`: commit time in Unix seconds (11g and later print it; 0 while active).
    pub cmt: Option<u64>,
    /// The line is marked `**` (the slot of the transaction the dump was asked for).
    pub marked: bool,
}

/// The undo part of an undo segment header (type 0x26).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UndoHeader {
    /// `Retention Table`: per extent, its `Commit Time:` (Unix seconds).
    pub retention: Vec<(u32, u64)>,
    /// `TRN CTL::`.
    pub trn_ctl: TrnCtl,
    /// `Version:`.
    pub version: u32,
    /// `FREE BLOCK POOL::`.
    pub free_block_pool: Vec<FreeBlock>,
    /// `TRN TBL::` slots.
    pub trn_tbl: Vec<TrnSlot>,
    /// The table prints the `cmt` column (11g and later).
    pub cmt_column: bool,
    /// The `EXT TRN CTL::` and `EXT TRN TBL::` lines 11g and later print
    /// after the table, kept as printed (trailing blanks dropped); their
    /// fields are not read.
    pub ext_trn: Vec<String>,
}

/// One undo record's header lines (`* Rec #0x… slt: … objn: … objd: … tblspc:
/// …`, `* Layer: … (…) opc: … rci 0x…`) with what follows kept as printed.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UndoRecord {
    /// `Rec #`: the record number.
    pub rec: u32,
    /// `slt:`: the transaction table slot.
    pub slt: u32,
    /// `objn:`: object number.
    pub objn: u32,
    /// `objd:`: data object number.
    pub objd: u32,
    /// `tblspc:`: tablespace number.
    pub tblspc: u32,
    /// `Layer:`: the redo layer of the undone change (11 = Row).
    pub layer: u32,
    /// The layer's name in parentheses (`Row`).
    pub layer_name: String,
    /// `opc:`.
    pub opc: u32,
    /// `rci`: the previous record of the same transaction in this block (0: none).
    pub rci: u32,
    /// `Undo type:` as printed (`Regular undo    Begin trans    Last buffer split:  No`).
    pub undo_type: Option<String>,
    /// `uba:` of the record's own `uba:` line, as printed (only on the first
    /// record of a transaction in a block).
    pub uba: Option<String>,
    /// `KDO Op code:` as printed (`URP row dependencies Disabled`).
    pub kdo_op_code: Option<String>,
    /// The lines after the `Layer:` line, as printed (trailing blanks dropped).
    pub lines: Vec<String>,
}

/// `UNDO BLK:` (type 0x02): the header, the record directory and the records.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UndoBlock {
    /// What follows `UNDO BLK:` on its line (empty in a block dump; `Extent:
    /// … Block: …` in `dump undo block`).
    pub info: String,
    /// `xid:` as printed.
    pub xid: String,
    /// `seq:`.
    pub seq: u32,
    /// `cnt:`: records in the block.
    pub cnt: u32,
    /// `irb:`: the last record of the block's transaction (rollback starts there).
    pub irb: u32,
    /// `icl:`.
    pub icl: u32,
    /// `flg:`.
    pub flg: u32,
    /// The `xid:` line is indented.
    #[serde(skip)]
    pub xid_indent: usize,
    /// `Rec Offset` directory: record number and its offset in the block.
    pub offsets: Vec<(u32, u32)>,
    /// The records printed (`* Rec #…`); empty when read from bytes (their
    /// layout is not established).
    pub records: Vec<UndoRecord>,
    /// `ktubhidx[0]`, read from bytes: the end of the record area, counted
    /// from offset 20 as the other directory words (the dump does not print
    /// it); `None` from text.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ktubhidx0: Option<u32>,
    /// Read from bytes: the dump says that the records are not decoded.
    #[serde(skip)]
    pub from_bytes: bool,
}

/// One `DBA Ranges` entry of a first level bitmap block: the range and the
/// state of each block (`0:Metadata`, `3:75-100% free`, `0:FULL` …).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct DbaRange {
    /// First block of the range.
    pub dba: u32,
    /// `Length:`.
    pub length: u32,
    /// `Offset:`.
    pub offset: u32,
    /// Per block: its number in the range and its state as printed.
    pub states: Vec<(u32, String)>,
}

/// `Dump of First Level Bitmap Block` (type 0x20).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FirstLevelBitmap {
    /// `nbits :`: bits per block.
    pub nbits: u32,
    /// `nranges:`.
    pub nranges: u32,
    /// `parent dba:`: the second level bitmap block.
    pub parent_dba: u32,
    /// `poffset:`.
    pub poffset: u32,
    /// `unformatted:`.
    pub unformatted: u32,
    /// `total:`.
    pub total: u32,
    /// `first useful block:`.
    pub first_useful_block: u32,
    /// `owning instance :`.
    pub owning_instance: u32,
    /// `instance ownership changed at` (as printed).
    pub ownership_changed: String,
    /// `Last successful Search` (as printed).
    pub last_search: String,
    /// `Freeness Status:` `nf1` … `nf4`.
    pub nf: [u32; 4],
    /// `Extent Map Block Offset:`.
    pub extent_map_block_offset: u32,
    /// `First free datablock :`.
    pub first_free_datablock: u32,
    /// `Bitmap block lock opcode`.
    pub lock_opcode: u32,
    /// `Locker xid:` (as printed).
    pub locker_xid: String,
    /// `Dealloc scn:` (as printed).
    pub dealloc_scn: String,
    /// `Flag:`.
    pub flag: u32,
    /// The flag's letters as printed (`-/-/-/-/-/HWM`).
    pub flag_text: String,
    /// `Inc:`.
    pub inc: u32,
    /// `Objd:`: data object id.
    pub objd: u32,
    /// `HWM Flag:` (as printed).
    pub hwm_flag: String,
    /// The high-water mark lines.
    pub highwater: Highwater,
    /// `DBA Ranges :`.
    pub ranges: Vec<DbaRange>,
    /// The high-water mark's labels carry `#` (`#blocks below:`), as
    /// 11.2.0.4 prints them.
    #[serde(skip)]
    pub hash_labels: bool,
    /// A blank line between each range's `Length:` line and its block
    /// states (11.2.0.4).
    #[serde(skip)]
    pub blank_before_states: bool,
}

/// One `L1 Ranges` entry of a second level bitmap block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct L1Range {
    /// The first level bitmap block.
    pub dba: u32,
    /// `Free:`.
    pub free: u32,
    /// `Inst:`.
    pub inst: u32,
}

/// `Dump of Second Level Bitmap Block` (type 0x21).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SecondLevelBitmap {
    /// `number:`: first level bitmap blocks listed.
    pub number: u32,
    /// `nfree:`.
    pub nfree: u32,
    /// `ffree:`.
    pub ffree: u32,
    /// `pdba:`: the parent (segment header or third level block).
    pub pdba: u32,
    /// `Inc:`.
    pub inc: u32,
    /// `Objd:`.
    pub objd: u32,
    /// `opcode:`.
    pub opcode: u32,
    /// `xid:` (as printed; empty when blank).
    pub xid: String,
    /// `L1 Ranges :`.
    pub ranges: Vec<L1Range>,
    /// 11.2.0.4 prints the label as `Inc #:` (published dump, 2015).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub inc_hash: bool,
    /// A blank line after the ranges, before the closing dashes (11.2.0.4).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub blank_after_ranges: bool,
    /// The `number:`, `opcode:`, `xid:` and range lines end without the
    /// trailing blank the older copy prints (11.2.0.4, as published).
    #[serde(skip)]
    pub no_trailing_blanks: bool,
}

/// A space-management body read from a dump's text.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "body", rename_all = "snake_case")]
pub enum SpaceBody {
    /// `Extent Control Header` … (types 0x10 and 0x23).
    SegmentHeader(SegmentHeader),
    /// `Dump of First Level Bitmap Block` (type 0x20).
    FirstLevelBitmap(FirstLevelBitmap),
    /// `Dump of Second Level Bitmap Block` (type 0x21).
    SecondLevelBitmap(SecondLevelBitmap),
    /// `UNDO BLK:` (type 0x02).
    UndoBlock(UndoBlock),
    /// `File Space Header Block:` (type 0x1d, KTFB bitmapped file space header).
    FileSpaceHeader(FileSpaceHeader),
    /// `File Space Bitmap Block:` (type 0x1e, KTFB bitmapped file space bitmap).
    FileSpaceBitmap(FileSpaceBitmap),
    /// A body whose layout the trace reader does not know (another
    /// release's, or damaged text): the dump's own lines, kept verbatim.
    Unparsed(UnparsedLines),
}

/// The lines of a body the trace reader could not follow, from its first line
/// (the marker, `Extent Control Header` …) to the line before the next block
/// part; printed back exactly as they are.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct UnparsedLines {
    /// Trace line of the first kept line (the body's marker line).
    pub line: usize,
    /// Trace line where the reader met what it does not know.
    pub from_line: usize,
    /// What the reader expected there.
    pub reason: String,
    /// The lines, without their line ends.
    pub lines: Vec<String>,
}

/// `File Space Header Block:` of a locally managed datafile (type 0x1d,
/// block 2 of the file): `Header Control:` and `Header Opcode:`.
///
/// From raw bytes, the fields of the `Header Control:` lines are read at the
/// offsets a published block shows in both forms (hex and text, 11.2 on
/// i686): `RelFno` at 20, `Unit` 24, `Size` 28, `Flag` 32, `Increment` 36,
/// `MaxSize` 40, `Initial Area` 44, `Tail` 48, `First` 52, `Free` 56, each a
/// native 4-byte word. Where `Deallocation scn` and the opcode are stored is
/// not established: from bytes they are `None`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileSpaceHeader {
    /// `RelFno:`: the relative file number.
    pub relfno: u32,
    /// `Unit:`: blocks per bit of the file's bitmap (the uniform extent size,
    /// or 8 for autoallocate).
    pub unit: u32,
    /// `Size:`: the file's size in blocks.
    pub size: u32,
    /// `Flag:`.
    pub flag: u32,
    /// `AutoExtend:` (`YES`/`NO`); `None` when the dump has no such line.
    /// From bytes: `YES` when `Increment` is not 0 (as `DBA_DATA_FILES`
    /// derives `AUTOEXTENSIBLE` from the increment; both published dumps
    /// agree).
    pub autoextend: Option<bool>,
    /// `Increment:`: blocks added per extension (0: not autoextensible).
    pub increment: u32,
    /// `MaxSize:`: the largest size in blocks.
    pub maxsize: u32,
    /// `Initial Area:`: blocks before the first bitmap-managed block.
    pub initial_area: u32,
    /// `Tail:`.
    pub tail: u32,
    /// `First:`: the first free bit.
    pub first: u32,
    /// `Free:`: free units.
    pub free: u32,
    /// `Deallocation scn:` as printed (10g and later); `None` when absent or
    /// read from bytes.
    pub dealloc_scn: Option<String>,
    /// `Save:` under `Header Opcode:` as printed (`No Pending Op`); `None`
    /// when absent or read from bytes.
    pub opcode_save: Option<String>,
    /// Read from bytes: the dump says which lines are not decoded.
    #[serde(skip)]
    pub from_bytes: bool,
}

/// `File Space Bitmap Block:` (type 0x1e): `BitMap Control:` and the
/// bitmap as printed (16 hex digits a word, four words a line).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileSpaceBitmap {
    /// `RelFno:`.
    pub relfno: u32,
    /// `BeginBlock:`: the first block this bitmap block maps.
    pub begin_block: u32,
    /// `Flag:`.
    pub flag: u32,
    /// `First:`: the first free bit.
    pub first: u32,
    /// `Free:`: free bits.
    pub free: u32,
    /// The bitmap lines as printed (trailing blanks dropped).
    pub bitmap: Vec<String>,
}

/// A block body that is not decoded: where it is and why. Renderers show its
/// bytes as hex.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Undecoded {
    /// Block offset of the first body byte.
    pub offset: usize,
    /// Body length in bytes (up to the tail).
    pub length: usize,
    /// Why it is not decoded.
    pub note: String,
    /// The body's bytes (empty when read from text), hex pairs in JSON.
    #[serde(serialize_with = "super::hex_bytes")]
    pub bytes: Vec<u8>,
}
