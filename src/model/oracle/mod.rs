//! Oracle datafile block structures, named as Oracle names them (BBED's
//! struct and field names: `kcbh.type_kcbh`, `ktbbh.ktbbhict`, `kdbh.kdbhnrow` …).
//!
//! ```text
//!  0          20                44              44+24·itc  (+8 ASSM)        block size − 4
//!  +----------+-----------------+-----------------+--------+-----------------+--------+-----+
//!  |   kcbh   | ktbbh (24 bytes)| ITL × itc       | ext 8  | kdbh / kdxco …  |  rows  | tail|
//!  | 20 bytes | typ sid csc itc | 24 bytes each   | (E)    | directories     | (grow  |  4  |
//!  |          | flg fsl fnx     |                 |        | free space      |  down) |     |
//!  +----------+-----------------+-----------------+--------+-----------------+--------+-----+
//! ```
//!
//! Integers in block structures are in the platform's byte order; rowids inside
//! row data are big-endian. Offsets printed in Oracle's dumps for rows and
//! directories are relative to the data (or index) header; the model keeps both
//! the relative value Oracle prints and the absolute block offset.
//!
//! Facts and their confidence are in `../shared/reference/oracle-block-format.md`;
//! field comments here cite its sections (§).

use serde::{Serialize, Serializer};

use super::span::Span;
use super::Problem;
use types::{AbsentColumn, ColumnValue};

pub mod disk;
pub mod names;
pub mod space;
pub mod text;
pub mod types;
pub mod verify;

/// Size of the cache header `kcbh` (§2).
pub const KCBH_SIZE: usize = 20;
/// Size of the fixed part of the transaction header `ktbbh` (§3.1).
pub const KTBBH_FIXED_SIZE: usize = 24;
/// Size of one ITL entry `ktbitl` (§3.3).
pub const ITL_SIZE: usize = 24;
/// Bytes between the last ITL and the data/index header in ASSM blocks (§3.4).
pub const KTBBH_EXTENSION_SIZE: usize = 8;
/// Size of the table data header `kdbh` (§4.1).
pub const KDBH_SIZE: usize = 14;
/// Size of the common index header `kdxco` (§7.1).
pub const KDXCO_SIZE: usize = 16;
/// Size of the leaf header `kdxle` (common part included) (§7.1).
pub const KDXLE_SIZE: usize = 32;
/// Size of the branch header `kdxbr` (common part included) (§7.1).
pub const KDXBR_SIZE: usize = 24;
/// Size of the tail word `tailchk` (§2).
pub const TAIL_SIZE: usize = 4;
/// The magic word of a datafile's block 0 (OS header) at offset 28 (§2.2).
pub const OS_HEADER_MAGIC: u32 = 0x7a7b7c7d;

/// The Oracle release whose dump text conventions to follow (§2.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub enum OracleVersion {
    /// 10g: `scn: 0x0000.001732d3`, `file#: 5`, no buffer-cache lines.
    #[serde(rename = "10g")]
    V10,
    /// 11g: `scn: 0x0000.001732d3`, `file#:5`.
    #[serde(rename = "11g")]
    V11,
    /// 12.1: `scn: 0x0.4e9af4`.
    #[serde(rename = "12.1")]
    V12_1,
    /// 12.2 and later (big SCNs): `scn: 0x80e5e2`, `csc:  0x000000000080e5e1`.
    #[serde(rename = "12.2+")]
    V12_2,
}

/// A system change number as stored: base, wrap and (12.2+) a second wrap
/// half-word. In 12.2+ blocks the wrap carries 0x8000 as a format flag (§2.4).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Scn {
    /// SCN base (`kscnbas`): the low 32 bits.
    pub kscnbas: u32,
    /// SCN wrap (`kscnwrp`): the high 16 bits; 0x8000 flags the 12.2+ big form.
    pub kscnwrp: u16,
    /// Bytes 6–7 of an 8-byte SCN (`kscnwrp2`, 12.2+ naming); 0 elsewhere.
    pub kscnwrp2: u16,
}

impl Scn {
    /// The 0x8000 "big SCN" format flag in the wrap (§2.4, inferred).
    pub fn is_big(&self) -> bool {
        self.kscnwrp & 0x8000 != 0
    }

    /// The wrap with the format flag removed; in the big form the second
    /// half-word extends it.
    pub fn wrap(&self) -> u64 {
        if self.is_big() {
            (u64::from(self.kscnwrp & 0x7fff) << 16) | u64::from(self.kscnwrp2)
        } else {
            u64::from(self.kscnwrp)
        }
    }

    /// The SCN as one number: wrap << 32 | base.
    pub fn value(&self) -> u64 {
        (self.wrap() << 32) | u64::from(self.kscnbas)
    }
}

/// A relative data block address split the two ways Oracle reads it (§1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rdba(pub u32);

impl Rdba {
    /// Relative file number of a smallfile tablespace (top 10 bits).
    pub fn file(self) -> u32 {
        self.0 >> 22
    }
    /// Block number of a smallfile tablespace (low 22 bits).
    pub fn block(self) -> u32 {
        self.0 & 0x003f_ffff
    }
    /// `(file, block)` as Oracle prints it: a bigfile rdba is all block
    /// number, with file shown as 1024. A smallfile rdba with file bits 0
    /// cannot exist (file numbers start at 1), so it is taken as bigfile.
    pub fn split(self, bigfile: bool) -> (u32, u32) {
        if bigfile || self.file() == 0 {
            (1024, self.0)
        } else {
            (self.file(), self.block())
        }
    }
}

impl Serialize for Rdba {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u32(self.0)
    }
}

/// Cache header, `struct kcbh` (20 bytes at offset 0) (§2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kcbh {
    /// Block type (§2.1): 6 = trans data (table, cluster or index block).
    pub type_kcbh: u8,
    /// Format: low nibble 2 (Oracle 8+), top 3 bits the block size code (§2.2).
    pub frmt_kcbh: u8,
    /// Spare byte; 12.2+: high byte of the second SCN wrap half-word.
    pub spare1_kcbh: u8,
    /// Spare byte; 12.2+: low byte of the second SCN wrap half-word.
    pub spare2_kcbh: u8,
    /// Relative data block address of this block.
    pub rdba_kcbh: u32,
    /// SCN base of the last change.
    pub bas_kcbh: u32,
    /// SCN wrap of the last change.
    pub wrp_kcbh: u16,
    /// Sequence number of changes at the same SCN; 0xff = marked corrupt (§2.4).
    pub seq_kcbh: u8,
    /// Flags (§2.3): 0x01 new, 0x02 delayed logging, 0x04 check value saved,
    /// 0x08 temporary, 0x10 encrypted.
    pub flg_kcbh: u8,
    /// Check value: the 16-bit XOR of the block is 0 when flg has 0x04 (§9).
    pub chkval_kcbh: u16,
    /// Spare half-word, expected 0.
    pub spare3_kcbh: u16,
}

impl Kcbh {
    /// The block size the format byte encodes (`1 << (8 + (frmt >> 5))`), if
    /// it encodes one (10g and later; 8i/9i always wrote 0x02) (§2.2).
    pub fn block_size(&self) -> Option<usize> {
        let code = self.frmt_kcbh >> 5;
        (self.frmt_kcbh & 0x0f == 0x02 && code > 0).then(|| 1usize << (8 + code))
    }

    /// The block's SCN; bytes 2–3 are the second wrap half-word in 12.2+.
    pub fn scn(&self) -> Scn {
        Scn {
            kscnbas: self.bas_kcbh,
            kscnwrp: self.wrp_kcbh,
            kscnwrp2: u16::from(self.spare1_kcbh) << 8 | u16::from(self.spare2_kcbh),
        }
    }

    /// The tail word this header implies: SCN base low 16 bits ‖ type ‖ seq (§2.4).
    pub fn expected_tail(&self) -> u32 {
        ((self.bas_kcbh & 0xffff) << 16)
            | (u32::from(self.type_kcbh) << 8)
            | u32::from(self.seq_kcbh)
    }

    /// Encrypted: `flg_kcbh` has 0x10.
    pub fn is_encrypted(&self) -> bool {
        self.flg_kcbh & 0x10 != 0
    }
}

/// XOR check value: stored, computed (with chkval taken as 0), and whether
/// the block is consistent (§9).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct OracleChecksum {
    /// `chkval_kcbh` as stored.
    pub stored: u16,
    /// XOR of all 16-bit words with the chkval field zeroed: the value that
    /// makes the block XOR to 0 (what BBED's `sum` calls "required").
    pub computed: u16,
    /// Whether the block claims a check value (flg 0x04, KCBHFCKV).
    pub enabled: bool,
    /// `stored == computed` when enabled; true when checksums are off.
    pub valid: bool,
}

/// One interested transaction list entry, `struct ktbitl` (24 bytes) (§3.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Itl {
    /// 1-based, as the dump numbers them (`0x01`) and as row lock bytes refer to them.
    pub itl: usize,
    /// Xid: undo segment number.
    pub kxidusn: u16,
    /// Xid: slot in the undo segment header's transaction table.
    pub kxidslt: u16,
    /// Xid: sequence number of the slot.
    pub kxidsqn: u32,
    /// Uba: undo block address.
    pub kubadba: u32,
    /// Uba: undo block sequence number.
    pub kubaseq: u16,
    /// Uba: record number in the undo block.
    pub kubarec: u8,
    /// High nibble: flags C B U T; low 12 bits: lock count.
    pub ktbitflg: u16,
    /// `_ktbitun`: free space credit or commit SCN wrap.
    pub ktbitun: u16,
    /// Commit SCN base (or upper bound).
    pub ktbitbas: u32,
}

impl Itl {
    /// Lock count: the low 12 bits of `ktbitflg`.
    pub fn lock_count(&self) -> u16 {
        self.ktbitflg & 0x0fff
    }
    /// Committed (C, `KTBFCOM`): the last column is an SCN, not a free space credit.
    pub fn committed(&self) -> bool {
        self.ktbitflg & 0x8000 != 0
    }
}

/// Transaction header, `struct ktbbh` (§3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Ktbbh {
    /// 1 = DATA, 2 = INDEX.
    pub ktbbhtyp: u8,
    /// Segment / data object id (`ktbbhsg1`/`ktbbhod1`).
    pub ktbbhsid: u32,
    /// SCN of the last cleanout.
    pub ktbbhcsc: Scn,
    /// ITL count (read as one byte, §3.1).
    pub ktbbhict: u8,
    /// Flags: 0x01 on freelist (`O`), 0x30 ASSM with extension (`E`) (§3.2).
    pub ktbbhflg: u8,
    /// MSSM: ITL freelist slot; ASSM: `brn`.
    pub ktbbhfsl: u8,
    /// MSSM: next block on the freelist; ASSM: `bdba` (level-1 bitmap block).
    pub ktbbhfnx: u32,
    /// ITL entries, `ktbbhict` of them.
    pub ktbbhitl: Vec<Itl>,
    /// The 8 ASSM extension bytes as the dump labels them (§3.4, meaning inferred).
    pub extension: Option<KtbbhExtension>,
    /// Block offset of the data or index header that follows.
    pub payload_offset: usize,
}

impl Ktbbh {
    /// ASSM block carrying the 8-byte extension (`flg: E`).
    pub fn is_assm(&self) -> bool {
        self.ktbbhflg & 0x30 != 0
    }
}

/// The 8 bytes after the ITLs of an ASSM block, printed `inc: 0  exflg: 0`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KtbbhExtension {
    /// `inc:` (meaning inferred).
    pub inc: u32,
    /// `exflg:` (meaning inferred).
    pub exflg: u32,
}

/// Table data header, `struct kdbh` (14 bytes) (§4.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kdbh {
    /// Block offset where the header starts (`data header at`).
    pub offset: usize,
    /// Data header flags (`flag=`).
    pub kdbhflag: u8,
    /// Number of tables (>1 in a cluster block).
    pub kdbhntab: u8,
    /// Row directory entries, all tables (`nrow=`).
    pub kdbhnrow: u16,
    /// First free row directory slot, -1 for none.
    pub kdbhfrre: i16,
    /// Free space begin offset (`fsbo=`), relative to the header.
    pub kdbhfsbo: u16,
    /// Free space end offset (`fseo=`), relative to the header.
    pub kdbhfseo: u16,
    /// Available space (`avsp=`).
    pub kdbhavsp: i16,
    /// Total space once all transactions commit (`tosp=`).
    pub kdbhtosp: i16,
    /// Size of the data area: block size − header offset − tail (`tsiz`).
    pub tsiz: usize,
    /// Size of header plus directories: 14 (+ the 9iR2 compression header
    /// of a compressed block) + 4·ntab + 2·nrow (`hsiz`).
    pub hsiz: usize,
    /// The 9iR2 compression header after `kdbh` of a basic/OLTP-compressed
    /// block (`kdbhflag` 0x40, printed `flag=-0------`); `None` otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kdbh9ir2: Option<Box<Kdbh9ir2>>,
}

impl Kdbh {
    /// Basic/OLTP compressed block: `kdbhflag` bit 0x40 (`flag=-0------`).
    pub fn compressed(&self) -> bool {
        self.kdbhflag & KDBH_FLAG_COMPRESSED != 0
    }

    /// Size of `kdbh` plus its 9iR2 compression header: where the table
    /// directory starts, relative to the data header.
    pub fn header_size(&self) -> usize {
        KDBH_SIZE + self.kdbh9ir2.as_ref().map_or(0, |c| c.size)
    }
}

/// `kdbhflag` bit of a basic/OLTP compressed block (`flag=-0------`).
pub const KDBH_FLAG_COMPRESSED: u8 = 0x40;

/// Fixed part of the 9iR2 compression header after `kdbh` (bytes 14..22 of
/// the data layer; published dumps put `pti[0]` at 0x16 with no `fcls_9ir2`
/// entries and at 0x1e with four).
pub const KDBH9IR2_FIXED: usize = 8;

/// The 9iR2 compression header of a basic/OLTP-compressed table block, as the
/// dump prints it after `tosp=`: `r0_9ir2=`, `mec_kdbh9ir2=`, `r1_9ir2=`
/// (10g) or `shcf_kdbh9ir2=` (11g on), `flag_9ir2=`, `fcls_9ir2[n]={ … }`,
/// `perm_9ir2[n]={ … }`.
///
/// Read from bytes, only the counts (header bytes 19 and 20), `flag_9ir2`
/// (byte 21) and the arrays after the fixed part are decoded: where
/// `r0_9ir2`, `mec_kdbh9ir2` and `r1_9ir2`/`shcf_kdbh9ir2` sit in bytes 14..19
/// is not established by a published dump with a hex section, so those stay
/// `None` (and unprinted) unless a trace's text gives them.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Kdbh9ir2 {
    /// `r0_9ir2=` (from text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r0_9ir2: Option<u8>,
    /// `mec_kdbh9ir2=` (from text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mec_kdbh9ir2: Option<u8>,
    /// `r1_9ir2=` as 10g prints it (from text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub r1_9ir2: Option<u8>,
    /// `shcf_kdbh9ir2=` bit string as 11g on print it (from text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shcf_kdbh9ir2: Option<String>,
    /// Bytes 14..19 of the data layer as stored (from bytes only): their
    /// fields are not established.
    #[serde(serialize_with = "hex_bytes", skip_serializing_if = "Vec::is_empty")]
    pub unknown: Vec<u8>,
    /// `flag_9ir2=` (`C` 0x01 compressed, `N` 0x04, `L` 0x08, `R` 0x20 as
    /// the dumps print them; meanings not established).
    pub flag_9ir2: u8,
    /// `Archive compression: Y|N` printed after `flag_9ir2` from 11g on
    /// (from text only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub archive_compression: Option<char>,
    /// `fcls_9ir2[n]`.
    pub fcls_9ir2: Vec<u16>,
    /// `perm_9ir2[n]` (column permutation), printed only when present.
    pub perm_9ir2: Vec<u8>,
    /// Bytes the header takes after `kdbh`: 8 + 2·fcls + perm.
    pub size: usize,
}

/// Table directory entry, `struct kdbt` (§4.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kdbt {
    /// Table number (`pti[table]`).
    pub table: usize,
    /// Index of the table's first entry in the row directory.
    pub kdbtoffs: u16,
    /// Rows of this table.
    pub kdbtnrow: u16,
}

/// Row directory entry `kdbr[slot]`: a row offset relative to the header, or
/// (on the free-slot chain starting at `kdbhfrre`) the next free slot.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct KdbrEntry {
    /// Row directory slot number (`pri[slot]`).
    pub slot: usize,
    /// The stored value (`offs` in the dump).
    pub kdbr: u16,
    /// True when the slot is on the free chain (printed `sfll=`, inferred).
    pub free: bool,
}

/// A rowid stored in row data: 4-byte dba and 2-byte slot, big-endian (§5.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RowRef {
    /// Data block address of the row's block.
    pub dba: u32,
    /// Row directory slot in that block.
    pub slot: u16,
}

/// One column of a row piece.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Column {
    /// Column number within the row piece, from 0 (`col  0:`).
    pub col: usize,
    /// Block offset of the length byte.
    pub offset: usize,
    /// Data length; `None` for SQL NULL (length byte 0xff).
    pub len: Option<usize>,
    /// The length was written in the long form (0xfe + 2 bytes).
    pub long_form: bool,
    /// The data bytes.
    #[serde(serialize_with = "hex_bytes")]
    pub data: Vec<u8>,
    /// The typed value, when a column list was given (`--columns`): `name`,
    /// `type`, `value`, `form`, `note` beside the bytes in JSON.
    #[serde(flatten, skip_serializing_if = "Option::is_none")]
    pub value: Option<ColumnValue>,
    /// What the bytes read as without a column type (printable text, a
    /// NUMBER, a DATE), filled in by the parser for the table view; empty when
    /// nothing fits or the block was not read from bytes.
    #[serde(skip)]
    pub reads_as: String,
}

/// One row piece (§4.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RowPiece {
    /// Table number (`tab`; cluster blocks have several).
    pub tab: usize,
    /// Row number within the table (`row`).
    pub row: usize,
    /// Row directory slot.
    pub slot: usize,
    /// Offset relative to the data header, as the dump prints it (`@0x1f8a`).
    pub offs: u16,
    /// Block offset.
    pub offset: usize,
    /// Flag byte `KCHDFLPN`.
    pub flag: u8,
    /// Lock byte: 1-based ITL holding a lock, 0 for none.
    pub lb: u8,
    /// Column count (absent for deleted pieces).
    pub cc: Option<u8>,
    /// Row piece length as the dump prints it (`tl`).
    pub tl: usize,
    /// Head rowid of a migrated row's body piece.
    pub hrid: Option<RowRef>,
    /// Next rowid of a piece that is not the last.
    pub nrid: Option<RowRef>,
    /// The stored bytes of a row of a compressed block (`bindmp:`); its
    /// `cols` are then the columns expanded from the symbol table.
    #[serde(
        serialize_with = "hex_bytes_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub bindmp: Option<Vec<u8>>,
    /// Stored columns, in order.
    pub cols: Vec<Column>,
    /// Columns of the list past `cc`: not stored because they are trailing
    /// NULLs (filled in only for a whole row, flags F and L, with `--columns`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trailing_nulls: Vec<AbsentColumn>,
}

impl RowPiece {
    /// A row piece at `offset` before any of its bytes are read: the directory
    /// entry's slot and offset, nothing else.
    pub fn unread(tab: usize, row: usize, entry: &KdbrEntry, offset: usize) -> RowPiece {
        RowPiece {
            tab,
            row,
            slot: entry.slot,
            offs: entry.kdbr,
            offset,
            flag: 0,
            lb: 0,
            cc: None,
            tl: 0,
            hrid: None,
            nrid: None,
            bindmp: None,
            cols: Vec::new(),
            trailing_nulls: Vec::new(),
        }
    }

    /// Deleted: flag byte has D (0x10).
    pub fn deleted(&self) -> bool {
        self.flag & 0x10 != 0
    }
}

/// Table (or cluster) data: header, directories, rows (§4).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TableData {
    /// Data header kdbh.
    pub kdbh: Kdbh,
    /// Table directory kdbt, one entry per table (`pti`).
    pub kdbt: Vec<Kdbt>,
    /// Row directory kdbr, one entry per slot (`pri`).
    pub kdbr: Vec<KdbrEntry>,
    /// Row pieces the row directory points to.
    pub rows: Vec<RowPiece>,
}

/// Common index header `kdxco…` (16 bytes) (§7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kdxco {
    /// Block offset where the index header starts (`header address`).
    pub offset: usize,
    /// 0 = leaf, > 0 = branch level.
    pub kdxcolev: u8,
    /// Block lock: ITL of a transaction making a structural change, 0 for none.
    pub kdxcolok: u8,
    /// 0x80 "converted", low bits the last operation code (inferred).
    pub kdxcoopc: u8,
    /// Columns per entry (including the rowid of a non-unique index).
    pub kdxconco: u8,
    /// Count of structural changes to the block.
    pub kdxcosdc: u32,
    /// Entries in this block.
    pub kdxconro: i16,
    /// Free space begin offset, relative to the header.
    pub kdxcofbo: i16,
    /// Free space end offset, relative to the header.
    pub kdxcofeo: i16,
    /// Available space.
    pub kdxcoavs: i16,
}

/// Leaf header fields after the common part (§7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kdxle {
    /// Bytes of uncommitted data at the block split, since cleaned out.
    pub kdxlespl: i16,
    /// Deleted entries.
    pub kdxlende: i16,
    /// Next leaf block (rdba).
    pub kdxlenxt: u32,
    /// Previous leaf block (rdba).
    pub kdxleprv: u32,
    /// Bytes of rowid stored before the key columns (6 for unique indexes).
    pub kdxledsz: u8,
    /// Leaf flags (`kdxleflg`).
    pub kdxleflg: u8,
}

/// Branch header fields after the common part (§7.1).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Kdxbr {
    /// Leftmost child block.
    pub kdxbrlmc: u32,
    /// Last entry modified (`kdxbrsno`).
    pub kdxbrsno: i16,
}

/// One key column of an index entry; `None` length for NULL.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexColumn {
    /// Key column number, from 0 (`col 0;`).
    pub col: usize,
    /// Length (`len 2;`); `None` for NULL.
    pub len: Option<usize>,
    /// Key column bytes.
    #[serde(serialize_with = "hex_bytes")]
    pub data: Vec<u8>,
}

/// One index entry (§7.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexEntry {
    /// Entry number (`row#0`).
    pub row: usize,
    /// Offset relative to the index header (`row#0[8021]`).
    pub offs: u16,
    /// Block offset.
    pub offset: usize,
    /// Leaf: entry flag byte (`flag:`; 0x01 deleted).
    pub flag: Option<u8>,
    /// Leaf: lock byte, the ITL holding a lock (`lock:`).
    pub lock: Option<u8>,
    /// Leaf: entry length (`len=`).
    pub len: Option<usize>,
    /// Leaf of a unique index: the rowid stored outside the key (`data:(6)`).
    #[serde(serialize_with = "hex_bytes_opt")]
    pub rowid: Option<Vec<u8>>,
    /// Branch: the child block (`dba:`).
    pub dba: Option<u32>,
    /// Key columns (`col n; len …`).
    pub cols: Vec<IndexColumn>,
}

/// An index block (§7).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct IndexData {
    /// Common index header kdxco.
    pub kdxco: Kdxco,
    /// Leaf header kdxle, when kdxcolev is 0.
    pub kdxle: Option<Kdxle>,
    /// Branch header kdxbr, when kdxcolev is above 0.
    pub kdxbr: Option<Kdxbr>,
    /// The two row-directory slots before the entry offsets: the first is the
    /// usable block space the dump prints as `kdxlebksz`/`kdxbrbksz` (inferred, §7.2).
    pub kd_off_head: [u16; 2],
    /// Entry offsets, relative to the index header.
    pub kd_off: Vec<u16>,
    /// Index entries, in `kd_off` order.
    pub entries: Vec<IndexEntry>,
}

/// Block 0 of a datafile: the OS header, not an Oracle cache block (§2.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OsHeader {
    /// Block size in bytes (offset 20).
    pub block_size: u32,
    /// Blocks in the file (offset 24).
    pub block_count: u32,
    /// Magic word at offset 28: 0x7a7b7c7d.
    pub magic: u32,
}

/// The few fields of a datafile header block (`kcvfh`, type 0x0b) used to fill
/// in what other blocks do not carry (§7.3).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct FileHeader {
    /// Compatibility version (`kccfhcvn`).
    pub kccfhcvn: u32,
    /// Database id.
    pub kccfhdbi: u32,
    /// File size in blocks.
    pub kccfhfsz: u32,
    /// Block size in bytes.
    pub kccfhbsz: u32,
    /// Absolute file number.
    pub kccfhfno: u16,
    /// Tablespace number.
    pub kcvfhtsn: u32,
    /// Relative file number.
    pub kcvfhrfn: u32,
    /// Database name (`kccfhdbn`, 8 bytes at 32, blanks and NULs trimmed).
    pub kccfhdbn: String,
    /// Control file sequence (`kccfhcsq`, at 40).
    pub kccfhcsq: u32,
    /// File type (`kccfhtyp`, at 54; 3 = data file).
    pub kccfhtyp: u16,
    /// Root dba (`kcvfhrdb`, at 96).
    pub kcvfhrdb: u32,
    /// Creation SCN (`kcvfhcrs`, at 100).
    pub kcvfhcrs: Scn,
    /// Creation time (`kcvfhcrt`, at 108), Oracle's internal time word as stored.
    pub kcvfhcrt: u32,
    /// Resetlogs count (`kcvfhrlc`, at 112).
    pub kcvfhrlc: u32,
    /// Resetlogs SCN (`kcvfhrls`, at 116).
    pub kcvfhrls: Scn,
    /// Status and fuzziness flags (`kcvfhsta`, at 138); bit names not established here.
    pub kcvfhsta: u16,
    /// Checkpoint count (`kcvfhcpc`, at 140).
    pub kcvfhcpc: u32,
    /// Control file checkpoint count (`kcvfhccc`, at 148).
    pub kcvfhccc: u32,
    /// Tablespace name (`kcvfhtnm`, at 338, `kcvfhtln` bytes at 336, at most 30).
    pub kcvfhtnm: String,
    /// Checkpoint SCN (`kcvfhckp`, at 484).
    pub kcvfhckp_scn: Scn,
    /// Checkpoint time (`kcvcptim`, at 492), Oracle's internal time word as stored.
    pub kcvfhckp_time: u32,
    /// The recovery fields a DBA reads to judge whether the file needs
    /// recovery (more of BBED's `kcvfh`), with times and flags decoded.
    pub recovery: FileRecovery,
}

/// A redo byte address (`kcvcprba`): log sequence, block, byte offset; the
/// dump prints it `rba:(0x35.2.10)`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Rba {
    /// `kcrbaseq`: log sequence number.
    pub kcrbaseq: u32,
    /// `kcrbabno`: block in the log.
    pub kcrbabno: u32,
    /// `kcrbabof`: byte offset in the block.
    pub kcrbabof: u16,
}

/// More of a datafile header (`kcvfh`), at the offsets BBED's `print kcvfh`
/// shows (10g, 11g): the checkpoint's thread and redo address, the backup
/// and previous-resetlogs fields, and decoded forms of the times and status
/// flags.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct FileRecovery {
    /// Activation id (`kccfhacid`, at 56).
    pub kccfhacid: u32,
    /// Backup SCN (`kcvfhbsc`, at 128): set while the file is in hot backup.
    pub kcvfhbsc: Scn,
    /// `kcvfhrts` (at 144).
    pub kcvfhrts: u32,
    /// Checkpoint thread (`kcvcpthr`, at 496).
    pub kcvcpthr: u16,
    /// Checkpoint redo address (`kcvcprba`, at 500).
    pub kcvcprba: Rba,
    /// Previous resetlogs count (`kcvfhprc`, at 416).
    pub kcvfhprc: u32,
    /// Previous resetlogs SCN (`kcvfhprs`, at 420).
    pub kcvfhprs: Scn,
    /// `kcvfhcrt` as Oracle prints a time (`MM/DD/YYYY HH:MI:SS`).
    pub creation_time: String,
    /// `kcvcptim` as Oracle prints a time.
    pub checkpoint_time: String,
    /// The names of the `kcvfhsta` bits set (kcv3.h's `KCVFHHBP`, `KCVFHOFZ` …;
    /// an unnamed bit as `0x…`).
    pub kcvfhsta_names: Vec<String>,
    /// A fuzzy bit is set (`KCVFH_FUZZY`: hot backup, online, media recovery,
    /// absolute, proxy copy or standby fuzzy): the file was open, in backup or
    /// in recovery when the header was written; a copy in this state is not
    /// consistent and needs media recovery.
    pub fuzzy: bool,
}

/// Oracle's internal time word (a datafile header's `kcvfhcrt`, `kcvcptim`):
/// seconds since 1988-01-01 00:00:00 counting every month as 31 days,
/// `((((yy*12+mm-1)*31+dd-1)*24+hh)*60+mi)*60+ss` with `yy` years since 1988.
/// Returns `(year, month, day, hour, minute, second)`.
pub fn oracle_time_parts(t: u32) -> (u32, u32, u32, u32, u32, u32) {
    let ss = t % 60;
    let t = t / 60;
    let mi = t % 60;
    let t = t / 60;
    let hh = t % 24;
    let t = t / 24;
    let dd = t % 31 + 1;
    let t = t / 31;
    let mm = t % 12 + 1;
    let yy = t / 12 + 1988;
    (yy, mm, dd, hh, mi, ss)
}

/// [`oracle_time_parts`] as Oracle's dumps print a time: `04/08/2018 16:34:42`.
pub fn oracle_time_text(t: u32) -> String {
    let (yy, mm, dd, hh, mi, ss) = oracle_time_parts(t);
    format!("{mm:02}/{dd:02}/{yy} {hh:02}:{mi:02}:{ss:02}")
}

/// The `kcvfhsta` bits with kcv3.h's names, as published with BBED sessions.
pub const KCVFHSTA_BITS: [(u16, &str); 12] = [
    (0x0001, "KCVFHHBP"),
    (0x0004, "KCVFHOFZ"),
    (0x0010, "KCVFHMFZ"),
    (0x0040, "KCVFHAFZ"),
    (0x0100, "KCVFHBCP"),
    (0x0200, "KCVFHFMH"),
    (0x0400, "KCVFHXCH"),
    (0x0800, "KCVFHZBA"),
    (0x1000, "KCVFHPCP"),
    (0x2000, "KCVFHRBS"),
    (0x4000, "KCVFHSBY"),
    (0x8000, "KCVFHL0C"),
];

/// `KCVFH_FUZZY`: `KCVFHHBP|KCVFHOFZ|KCVFHMFZ|KCVFHAFZ|KCVFHPCP|KCVFHSBY`.
pub const KCVFH_FUZZY: u16 = 0x0001 | 0x0004 | 0x0010 | 0x0040 | 0x1000 | 0x4000;

/// The names of the `kcvfhsta` bits set; an unnamed bit as `0x…`.
pub fn kcvfhsta_names(sta: u16) -> Vec<String> {
    (0..16)
        .map(|i| 1u16 << i)
        .filter(|bit| sta & bit != 0)
        .map(|bit| {
            KCVFHSTA_BITS
                .iter()
                .find(|(b, _)| *b == bit)
                .map_or_else(|| format!("0x{bit:04x}"), |(_, n)| (*n).to_string())
        })
        .collect()
}

/// What a block is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum OracleKind {
    /// Type 6, ktbbhtyp 1: table or cluster data.
    Table,
    /// Type 6, ktbbhtyp 2, level 0.
    IndexLeaf,
    /// Type 6, ktbbhtyp 2, level > 0.
    IndexBranch,
    /// Type 6 whose body could not be classified.
    TransData,
    /// Type 0x0b: datafile header.
    FileHeader,
    /// Any other cache block type: header decoded, body not.
    Other,
    /// Every byte zero (never formatted).
    Zero,
    /// Block 0 of a datafile.
    OsHeader,
    /// Too short or not a cache block.
    Unknown,
}

impl OracleKind {
    /// The kind as printed and serialised (`table`, `index-leaf` …).
    pub fn name(self) -> &'static str {
        match self {
            OracleKind::Table => "table",
            OracleKind::IndexLeaf => "index-leaf",
            OracleKind::IndexBranch => "index-branch",
            OracleKind::TransData => "trans-data",
            OracleKind::FileHeader => "file-header",
            OracleKind::Other => "other",
            OracleKind::Zero => "zero",
            OracleKind::OsHeader => "os-header",
            OracleKind::Unknown => "unknown",
        }
    }
}

/// Byte order, as JSON shows it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ByteOrder {
    /// Little-endian.
    Little,
    /// Big-endian.
    Big,
}

/// One decoded Oracle block.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct OracleBlock {
    /// Block number in the file (position in the input, plus `--blkno`).
    pub blkno: u64,
    /// Block size in bytes.
    pub size: usize,
    /// Byte order of the block's integers.
    pub endian: ByteOrder,
    /// What the block is.
    pub kind: OracleKind,
    /// Cache header flag 0x10: only the cache header and tail are clear text.
    pub encrypted: bool,
    /// Cache header kcbh; `None` for a zero block, block 0 or a block too short.
    pub kcbh: Option<Kcbh>,
    /// The last 4 bytes as a native word.
    pub tailchk: Option<u32>,
    /// Check value chkval_kcbh: stored and computed.
    pub checksum: Option<OracleChecksum>,
    /// OS header, for block 0 of a datafile.
    pub os_header: Option<OsHeader>,
    /// Datafile header kcvfh, for a type 0x0b block.
    pub file_header: Option<Box<FileHeader>>,
    /// Transaction header ktbbh, for a type 6 block.
    pub ktbbh: Option<Ktbbh>,
    /// Table data: kdbh, kdbt, kdbr and row pieces.
    pub table: Option<TableData>,
    /// Index data: kdxco, kdxle or kdxbr, and entries.
    pub index: Option<IndexData>,
    /// Segment header or bitmap block body (read from a trace's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<Box<space::SpaceBody>>,
    /// A body that is not decoded: shown as hex, with the reason.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub undecoded: Option<Box<space::Undecoded>>,
    /// Lines of a trace's text after the body that the reader does not
    /// know, verbatim: the dump prints them back after the body.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trailing_lines: Vec<String>,
    /// Problems found while decoding.
    pub problems: Vec<Problem>,
    /// Labelled byte ranges for the hex view.
    #[serde(skip)]
    pub spans: Vec<Span>,
}

impl OracleBlock {
    /// A block of `size` bytes at `blkno` of which nothing is decoded yet:
    /// every part `None`, no problems, no spans.
    pub fn empty(blkno: u64, size: usize, endian: ByteOrder, kind: OracleKind) -> OracleBlock {
        OracleBlock {
            blkno,
            size,
            endian,
            kind,
            encrypted: false,
            kcbh: None,
            tailchk: None,
            checksum: None,
            os_header: None,
            file_header: None,
            ktbbh: None,
            table: None,
            index: None,
            space: None,
            undecoded: None,
            trailing_lines: Vec::new(),
            problems: Vec::new(),
            spans: Vec::new(),
        }
    }

    /// The dump conventions the block implies: the big-SCN flag in the cache
    /// header or the cleanout SCN means 12.2 or later (§2.4). `None` when the
    /// block does not tell.
    pub fn implied_version(&self) -> Option<OracleVersion> {
        let big = self.kcbh.as_ref().is_some_and(|h| h.scn().is_big())
            || self.ktbbh.as_ref().is_some_and(|t| t.ktbbhcsc.is_big());
        big.then_some(OracleVersion::V12_2)
    }
}

/// Bytes as lowercase hex pairs separated by spaces (`41 41 41`).
pub fn hex_string(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Bytes as the dump prints them: lowercase pairs separated by spaces.
pub(crate) fn hex_bytes<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&hex_string(bytes))
}

fn hex_bytes_opt<S: Serializer>(bytes: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
    match bytes {
        Some(b) => s.serialize_str(&hex_string(b)),
        None => s.serialize_none(),
    }
}

/// A value read from a trace's formatted text, with the (1-based) line it
/// was on. Serialises as the bare value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct At<T> {
    /// The value read.
    pub value: T,
    /// The 1-based trace line it was on.
    pub line: usize,
}

impl<T: Serialize> Serialize for At<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.value.serialize(s)
    }
}

/// A block as a trace's formatted text describes it (`buffer tsn:` …
/// `end_of_block_dump`). It mirrors [`OracleBlock`], but the text may be
/// silent about any part (a pasted excerpt, an encrypted block, an index
/// body), so every part is optional: what the text does not carry is `None`,
/// never invented. Line numbers are those of the trace.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct TextBlock {
    /// First line of the block's text.
    pub line: usize,
    /// The release whose print forms the text uses, when its SCNs tell (§2.5).
    pub version: Option<OracleVersion>,
    /// `tsn:` of `Start dump data blocks tsn: … file#: …` before the block.
    pub tsn: Option<u32>,
    /// `file#:` of the `Start dump data blocks` line.
    pub file: Option<u32>,
    /// `Encrypted block <…> content will not be dumped.`
    pub encrypted: bool,
    /// `buffer tsn:` / `scn:` / `frmt:` lines.
    pub cache: Option<TextCache>,
    /// `Block header dump:` through the ITL list.
    pub header: Option<TextHeader>,
    /// `data_block_dump` through `end_of_block_dump`.
    pub data: Option<TextData>,
    /// A body the text parser recognises but does not decode (`Leaf block dump` …).
    pub other_body: Option<At<String>>,
    /// A segment header or bitmap block body (`Extent Control Header`, `Dump
    /// of First Level Bitmap Block` …).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub space: Option<At<space::SpaceBody>>,
    /// Runs of lines after a body read whole that no part of the reader
    /// takes (another release's, or an author's), each kept verbatim with
    /// the line of its first; printed back after the body. Absent when none.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub trailing_lines: Vec<space::UnparsedLines>,
}

/// The cache header as the dump prints it (§6.2).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextCache {
    /// Line of `buffer tsn:`; the `scn:` and `frmt:` lines follow it.
    pub line: usize,
    /// Line of `scn:`.
    pub scn_line: usize,
    /// Line of `frmt:`.
    pub frmt_line: usize,
    /// `buffer tsn:`: tablespace number.
    pub tsn: u32,
    /// `rdba:` (rdba_kcbh).
    pub rdba: u32,
    /// File of the `(file/block)` printed after the rdba.
    pub rdba_file: u32,
    /// Block of the `(file/block)` printed after the rdba.
    pub rdba_block: u32,
    /// The SCN's value (wrap << 32 | base; 12.2+ prints no format flag).
    pub scn: u64,
    /// `seq:` (seq_kcbh).
    pub seq: u8,
    /// `flg:` (flg_kcbh).
    pub flg: u8,
    /// `tail:` (tailchk).
    pub tail: u32,
    /// Only the low nibble of `frmt_kcbh` is printed.
    pub frmt: u8,
    /// `chkval:` (chkval_kcbh).
    pub chkval: u16,
    /// `type:` number (type_kcbh).
    pub type_kcbh: u8,
    /// `type:` name (`trans data`).
    pub type_name: String,
}

/// `Block header dump:` and the transaction header lines (§6.4, §6.5).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextHeader {
    /// Line of `Block header dump:`.
    pub line: usize,
    /// `Block header dump:  0x…`.
    pub rdba: u32,
    /// Line of `seg/obj: … typ:`.
    pub seg_line: usize,
    /// `seg/obj:` (ktbbhsid).
    pub seg_obj: u32,
    /// The cleanout SCN's value.
    pub csc: u64,
    /// `itc:` (ktbbhict).
    pub itc: u8,
    /// `E`, `O` or `-`.
    pub flg: char,
    /// `typ:` (ktbbhtyp: 1 DATA, 2 INDEX).
    pub typ: u8,
    /// Line of `brn:`/`fsl:`.
    pub brn_line: Option<usize>,
    /// `brn: … bdba:` (ASSM) rather than `fsl: … fnx:` (MSSM).
    pub assm: Option<bool>,
    /// `brn` or `fsl` (`ktbbhfsl`).
    pub fsl: Option<u8>,
    /// `bdba` or `fnx` (`ktbbhfnx`).
    pub fnx: Option<u32>,
    /// `inc: … exflg: …` (ASSM extension).
    pub extension: Option<At<KtbbhExtension>>,
    /// The ITL lines: every field of the entry is printed.
    pub itls: Vec<At<Itl>>,
}

/// The data layer's lines (§6.6). Each header field is on its own line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextData {
    /// Line of `data_block_dump,data header at 0x…`.
    pub line: usize,
    /// `bdba: 0x…` printed with the data layer.
    pub bdba: Option<At<u32>>,
    /// Memory address of the data header.
    pub header_address: u64,
    /// `tsiz:`: data area size.
    pub tsiz: Option<At<usize>>,
    /// `hsiz:`: header and directories size.
    pub hsiz: Option<At<usize>>,
    /// `pbl:`: data header address.
    pub pbl: Option<At<u64>>,
    /// `flag=` (kdbhflag).
    pub kdbhflag: Option<At<u8>>,
    /// `ntab=` (kdbhntab).
    pub kdbhntab: Option<At<u8>>,
    /// `nrow=` (kdbhnrow).
    pub kdbhnrow: Option<At<u16>>,
    /// `frre=` (kdbhfrre).
    pub kdbhfrre: Option<At<i16>>,
    /// `fsbo=` (kdbhfsbo).
    pub kdbhfsbo: Option<At<u16>>,
    /// `fseo=` (kdbhfseo).
    pub kdbhfseo: Option<At<u16>>,
    /// `avsp=` (kdbhavsp).
    pub kdbhavsp: Option<At<i16>>,
    /// `tosp=` (kdbhtosp).
    pub kdbhtosp: Option<At<i16>>,
    /// The 9iR2 compression header lines (`r0_9ir2=` … `perm_9ir2[n]=`) of a
    /// compressed block, at the line of the first of them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kdbh9ir2: Option<At<Kdbh9ir2>>,
    /// `pti[n]` lines (kdbt).
    pub kdbt: Vec<At<Kdbt>>,
    /// `pri[n]` lines (kdbr).
    pub kdbr: Vec<At<KdbrEntry>>,
    /// Row pieces of `block_row_dump:`.
    pub rows: Vec<TextRow>,
    /// `end_of_block_dump` was reached.
    pub complete: bool,
}

/// One row piece as printed (`tab t, row r, @0x…`, `tl: …`, `col …`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextRow {
    /// Line of `tab t, row r, @0x…`.
    pub line: usize,
    /// `tab`: table number.
    pub tab: usize,
    /// `row`: row number within the table.
    pub row: usize,
    /// `@0x…`: offset relative to the data header.
    pub offs: u16,
    /// Line of `tl:`.
    pub tl_line: Option<usize>,
    /// `tl:`: row piece total length.
    pub tl: Option<usize>,
    /// `fb:`: flag byte.
    pub flag: Option<u8>,
    /// `lb:`: lock byte (ITL number).
    pub lb: Option<u8>,
    /// Absent for deleted pieces, as Oracle prints them.
    pub cc: Option<u8>,
    /// `hrid:`: head rowid.
    pub hrid: Option<At<RowRef>>,
    /// `nrid:`: next rowid.
    pub nrid: Option<At<RowRef>>,
    /// `col` lines.
    pub cols: Vec<TextColumn>,
    /// `bindmp:` of a row of a compressed block (the stored bytes).
    #[serde(
        serialize_with = "hex_bytes_opt",
        skip_serializing_if = "Option::is_none"
    )]
    pub bindmp: Option<Vec<u8>>,
}

/// One `col  n: [len]  xx …` (continued over following lines) or `*NULL*`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct TextColumn {
    /// Line of `col  n:`.
    pub line: usize,
    /// Column number, from 0.
    pub col: usize,
    /// `None` for `*NULL*`.
    pub len: Option<usize>,
    /// Column bytes, continuation lines included.
    #[serde(serialize_with = "hex_bytes")]
    pub data: Vec<u8>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rdba_splits_smallfile_and_bigfile() {
        assert_eq!(Rdba(0x01400010).split(false), (5, 16));
        assert_eq!(Rdba(0x01003373).split(false), (4, 13171));
        assert_eq!(Rdba(0x0000038b).split(false), (1024, 907));
        assert_eq!(Rdba(0x01400010).split(true), (1024, 0x01400010));
    }

    #[test]
    fn big_scn_drops_the_format_flag() {
        let scn = Scn {
            kscnbas: 0x0080e5e1,
            kscnwrp: 0x8000,
            kscnwrp2: 0,
        };
        assert!(scn.is_big());
        assert_eq!(scn.value(), 0x0080e5e1);
        let old = Scn {
            kscnbas: 0x4d4684c7,
            kscnwrp: 0x06ca,
            kscnwrp2: 0,
        };
        assert_eq!(old.value(), 0x06ca_4d46_84c7);
    }

    #[test]
    fn frmt_encodes_the_block_size() {
        let mut h = Kcbh {
            type_kcbh: 6,
            frmt_kcbh: 0xa2,
            spare1_kcbh: 0,
            spare2_kcbh: 0,
            rdba_kcbh: 0,
            bas_kcbh: 0x004e9af4,
            wrp_kcbh: 0,
            seq_kcbh: 1,
            flg_kcbh: 6,
            chkval_kcbh: 0,
            spare3_kcbh: 0,
        };
        assert_eq!(h.block_size(), Some(8192));
        assert_eq!(h.expected_tail(), 0x9af40601);
        for (frmt, size) in [(0x62, 2048), (0x82, 4096), (0xc2, 16384), (0xe2, 32768)] {
            h.frmt_kcbh = frmt;
            assert_eq!(h.block_size(), Some(size));
        }
        h.frmt_kcbh = 0x02;
        assert_eq!(h.block_size(), None);
    }
}

/// Which copy of a block a trace section shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BlockCopy {
    /// `Block dump from cache:`: the buffer in the SGA.
    Cache,
    /// `Block dump from disk:`: the block read from the datafile.
    Disk,
}

impl BlockCopy {
    /// `cache` or `disk`.
    pub fn as_str(self) -> &'static str {
        match self {
            BlockCopy::Cache => "cache",
            BlockCopy::Disk => "disk",
        }
    }
}
