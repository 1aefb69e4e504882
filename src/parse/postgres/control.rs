//! What `verify` reads from a data directory's `global/pg_control`
//! (`ControlFileData`, catalog/pg_control.h): cluster state, block and
//! segment size, and whether data checksums are on.
//!
//! The struct's layout changes between major versions before `floatFormat`
//! (checkpoint fields), but from that field on it has been the same since
//! PostgreSQL 9.3:
//!
//! ```text
//!  floatFormat   f64   1234567.0 (FLOATFORMAT_VALUE)        +0
//!  blcksz        u32                                        +8
//!  relseg_size   u32   blocks per segment file              +12
//!  xlog_blcksz, xlog_seg_size, nameDataLen, indexMaxKeys,
//!  toast_max_chunk_size, loblksize                          +16 .. +40
//!  bools (float8ByVal, and before 13 float4ByVal, before 10
//!  enableIntTimes), padded to 4 bytes                       +40
//!  data_checksum_version u32                                +44
//!  mock_authentication_nonce[32]                            +48
//!  crc           u32   CRC-32C of every byte before it      +80
//! ```
//!
//! Before it, the header is the same since PostgreSQL 9.3 except that 11
//! dropped `prevCheckPoint`:
//!
//! ```text
//!  system_identifier u64 +0, pg_control_version u32 +8,
//!  catalog_version_no u32 +12, state u32 +16, time i64 +24,
//!  checkPoint u64 +32, then (before 11) prevCheckPoint u64 +40,
//!  checkPointCopy (a CheckPoint, whose first field is redo) +40, or +48 before 11
//! ```
//!
//! So the file is read by finding floatFormat, and trusted only when the CRC
//! at +80 matches: a layout this reading does not fit (a future version, a
//! different byte order) or a damaged file is refused rather than misread.

use crate::model::postgres::cluster::{CheckPoint, ControlData, ControlFileImage};
use crate::reader::{Endian, Reader};

/// The fields verify uses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ControlFile {
    /// pg_control_version: the PG_CONTROL_VERSION the file was written with.
    pub pg_control_version: u32,
    /// `DBState`.
    pub state: u32,
    /// blcksz: BLCKSZ, the page size in bytes.
    pub blcksz: u32,
    /// relseg_size: RELSEG_SIZE, blocks per segment file.
    pub relseg_size: u32,
    /// 0 = no data checksums, 1 = on (later versions add in-progress states).
    pub data_checksum_version: u32,
    /// checkPointCopy.redo: the latest checkpoint's REDO location (an LSN,
    /// high 32 bits first), as pg_controldata's "Latest checkpoint's REDO
    /// location".
    pub checkpoint_redo: u64,
    /// checkPointCopy.nextXid: the next transaction id to assign (its 32-bit
    /// xid; "Latest checkpoint's NextXID" without the epoch).
    pub next_xid: u32,
    /// checkPointCopy.oldestXid: the oldest xid that may still be unfrozen
    /// ("Latest checkpoint's oldestXID").
    pub oldest_xid: u32,
}

impl ControlFile {
    /// `DBState` in pg_controldata's words.
    pub fn state_name(&self) -> &'static str {
        match self.state {
            0 => "starting up",
            1 => "shut down",
            2 => "shut down in recovery",
            3 => "shutting down",
            4 => "in crash recovery",
            5 => "in archive recovery",
            6 => "in production",
            _ => "unknown",
        }
    }

    /// Shut down cleanly: its pages are final (what pg_checksums requires).
    pub fn shut_down(&self) -> bool {
        matches!(self.state, 1 | 2)
    }

    /// `DB_IN_PRODUCTION`: the server is (or was, when it stopped without a
    /// clean shutdown) running and writing pages.
    pub fn running(&self) -> bool {
        self.state == 6
    }
}

/// `FLOATFORMAT_VALUE`, little-endian.
const FLOAT_FORMAT: [u8; 8] = 1234567.0f64.to_le_bytes();

/// Read a little-endian pg_control image; `Err` says why it is not trusted.
///
/// A `pg_control_version` this reader knows ([`parse_control_image`]) is
/// read with that version's layout; any other is read by finding
/// floatFormat (the layout since 9.3 described above).
pub fn parse_control_file(data: &[u8]) -> Result<ControlFile, String> {
    if let Ok(image) = parse_control_image(data) {
        if !image.crc_ok {
            return Err(crc_mismatch(&image));
        }
        let c = &image.control;
        return Ok(ControlFile {
            pg_control_version: c.pg_control_version,
            state: c.state,
            blcksz: c.blcksz,
            relseg_size: c.relseg_size,
            data_checksum_version: c.data_checksum_version,
            checkpoint_redo: c.check_point_copy.redo,
            // The xid of a FullTransactionId (epoch << 32 | xid).
            next_xid: c.check_point_copy.next_xid as u32,
            oldest_xid: c.check_point_copy.oldest_xid,
        });
    }
    let float_at = (0..data.len().min(1024))
        .step_by(8)
        .find(|&at| data.get(at..at + 8) == Some(&FLOAT_FORMAT[..]))
        .ok_or("no floatFormat value (1234567.0) in the first 1024 bytes")?;
    let r = Reader::new(data, Endian::Little);
    let word = |at: usize, field: &str| r.peek_u32(at, field).map_err(|e| e.to_string());
    let crc_at = float_at + 80;
    let stored_crc = word(crc_at, "crc")?;
    let computed = crc32c(data.get(..crc_at).unwrap_or_default());
    if stored_crc != computed {
        return Err(format!(
            "CRC-32C 0x{computed:08x} of the first {crc_at} bytes does not match the stored \
             0x{stored_crc:08x}: damaged, or a layout this version does not read"
        ));
    }
    let pg_control_version = word(8, "pg_control_version")?;
    // PG_CONTROL_VERSION 1100 (PostgreSQL 11) dropped prevCheckPoint.
    let redo_at = if pg_control_version >= 1100 { 40 } else { 48 };
    // An XLogRecPtr is a native uint64: low half first on little-endian.
    let redo = crate::reader::u64_from_halves(
        word(redo_at + 4, "checkPointCopy.redo")?,
        word(redo_at, "checkPointCopy.redo")?,
    );
    Ok(ControlFile {
        pg_control_version,
        state: word(16, "state")?,
        blcksz: word(float_at + 8, "blcksz")?,
        relseg_size: word(float_at + 12, "relseg_size")?,
        data_checksum_version: word(float_at + 44, "data_checksum_version")?,
        checkpoint_redo: redo,
        // CheckPoint: redo (8), ThisTimeLineID, PrevTimeLineID, fullPageWrites;
        // then nextXidEpoch + nextXid (before 12) or the 8-aligned
        // FullTransactionId nextXid (12+, low word first): the xid is at +24
        // either way; nextOid, nextMulti, nextMultiOffset, then oldestXid.
        next_xid: word(redo_at + 24, "checkPointCopy.nextXid")?,
        oldest_xid: word(
            redo_at + if pg_control_version >= 1200 { 44 } else { 40 },
            "checkPointCopy.oldestXid",
        )?,
    })
}

/// Why a control file read with its own layout is not trusted.
pub(crate) fn crc_mismatch(image: &ControlFileImage) -> String {
    format!(
        "CRC-32C 0x{:08x} of the first {} bytes does not match the stored 0x{:08x}: damaged",
        image.crc_computed, image.crc_offset, image.control.crc
    )
}

/// The `ControlFileData` layouts this reader knows, by `pg_control_version`:
/// (version, the first major that wrote it).
///
/// ```text
///  1002  10     prevCheckPoint; nextXidEpoch + nextXid; float4ByVal
///  1100  11     prevCheckPoint dropped
///  1201  12     nextXid a FullTransactionId (8 bytes, 8-aligned); max_wal_senders
///  1300  13–16  float4ByVal dropped
///  1700  17     CheckPoint.wal_level after fullPageWrites
///  1800  18     default_char_signedness after data_checksum_version
/// ```
pub(crate) const CONTROL_LAYOUTS: [(u32, u32); 6] = [
    (1002, 10),
    (1100, 11),
    (1201, 12),
    (1300, 13),
    (1700, 17),
    (1800, 18),
];

/// C struct layout over the file: each read aligned to its own size.
struct Cursor<'a> {
    r: Reader<'a>,
    at: usize,
}

impl Cursor<'_> {
    fn align(&mut self, n: usize) {
        self.at = self.at.div_ceil(n) * n;
    }
    fn u32(&mut self, field: &str) -> Result<u32, String> {
        self.align(4);
        let v = self.r.peek_u32(self.at, field).map_err(|e| e.to_string())?;
        self.at += 4;
        Ok(v)
    }
    fn i32(&mut self, field: &str) -> Result<i32, String> {
        self.u32(field).map(|v| v as i32)
    }
    fn u64(&mut self, field: &str) -> Result<u64, String> {
        self.align(8);
        let v = self.r.peek_u64(self.at, field).map_err(|e| e.to_string())?;
        self.at += 8;
        Ok(v)
    }
    fn i64(&mut self, field: &str) -> Result<i64, String> {
        self.u64(field).map(|v| v as i64)
    }
    fn bool(&mut self, field: &str) -> Result<bool, String> {
        let v = self.r.peek_u8(self.at, field).map_err(|e| e.to_string())?;
        self.at += 1;
        Ok(v != 0)
    }
}

/// Read every field of a little-endian control file with the layout of the
/// `pg_control_version` it holds, and check its CRC. `Err` when the version
/// is not one of [`CONTROL_LAYOUTS`] or the file is too short; a CRC
/// mismatch is reported in the image (`crc_ok`), not as an error.
pub fn parse_control_image(data: &[u8]) -> Result<ControlFileImage, String> {
    let r = Reader::new(data, Endian::Little);
    let version = r
        .peek_u32(8, "pg_control_version")
        .map_err(|e| e.to_string())?;
    let layout_major = CONTROL_LAYOUTS
        .iter()
        .find(|l| l.0 == version)
        .map(|l| l.1)
        .ok_or_else(|| {
            format!("pg_control_version {version} is not one this reader knows (1002 to 1800)")
        })?;
    let mut c = Cursor { r, at: 0 };
    let system_identifier = c.u64("system_identifier")?;
    let pg_control_version = c.u32("pg_control_version")?;
    let catalog_version_no = c.u32("catalog_version_no")?;
    let state = c.u32("state")?;
    let time = c.i64("time")?;
    let check_point = c.u64("checkPoint")?;
    let prev_check_point = if layout_major < 11 {
        Some(c.u64("prevCheckPoint")?)
    } else {
        None
    };
    // CheckPoint: 8-aligned, its size a multiple of 8.
    c.align(8);
    let redo = c.u64("checkPointCopy.redo")?;
    let this_time_line_id = c.u32("checkPointCopy.ThisTimeLineID")?;
    let prev_time_line_id = c.u32("checkPointCopy.PrevTimeLineID")?;
    let full_page_writes = c.bool("checkPointCopy.fullPageWrites")?;
    let cp_wal_level = if layout_major >= 17 {
        Some(c.i32("checkPointCopy.wal_level")?)
    } else {
        None
    };
    let next_xid = if layout_major >= 12 {
        c.u64("checkPointCopy.nextXid")?
    } else {
        let epoch = c.u32("checkPointCopy.nextXidEpoch")?;
        crate::reader::u64_from_halves(epoch, c.u32("checkPointCopy.nextXid")?)
    };
    let mut cp = CheckPoint {
        redo,
        this_time_line_id,
        prev_time_line_id,
        full_page_writes,
        wal_level: cp_wal_level,
        next_xid,
        next_oid: c.u32("checkPointCopy.nextOid")?,
        next_multi: c.u32("checkPointCopy.nextMulti")?,
        next_multi_offset: c.u32("checkPointCopy.nextMultiOffset")?,
        oldest_xid: c.u32("checkPointCopy.oldestXid")?,
        oldest_xid_db: c.u32("checkPointCopy.oldestXidDB")?,
        oldest_multi: c.u32("checkPointCopy.oldestMulti")?,
        oldest_multi_db: c.u32("checkPointCopy.oldestMultiDB")?,
        time: 0,
        oldest_commit_ts_xid: 0,
        newest_commit_ts_xid: 0,
        oldest_active_xid: 0,
    };
    cp.time = c.i64("checkPointCopy.time")?;
    cp.oldest_commit_ts_xid = c.u32("checkPointCopy.oldestCommitTsXid")?;
    cp.newest_commit_ts_xid = c.u32("checkPointCopy.newestCommitTsXid")?;
    cp.oldest_active_xid = c.u32("checkPointCopy.oldestActiveXid")?;
    c.align(8);
    let unlogged_lsn = c.u64("unloggedLSN")?;
    let min_recovery_point = c.u64("minRecoveryPoint")?;
    let min_recovery_point_tli = c.u32("minRecoveryPointTLI")?;
    let backup_start_point = c.u64("backupStartPoint")?;
    let backup_end_point = c.u64("backupEndPoint")?;
    let backup_end_required = c.bool("backupEndRequired")?;
    let wal_level = c.i32("wal_level")?;
    let wal_log_hints = c.bool("wal_log_hints")?;
    let max_connections = c.i32("MaxConnections")?;
    let max_worker_processes = c.i32("max_worker_processes")?;
    let max_wal_senders = if layout_major >= 12 {
        Some(c.i32("max_wal_senders")?)
    } else {
        None
    };
    let max_prepared_xacts = c.i32("max_prepared_xacts")?;
    let max_locks_per_xact = c.i32("max_locks_per_xact")?;
    let track_commit_timestamp = c.bool("track_commit_timestamp")?;
    let max_align = c.u32("maxAlign")?;
    let float_format = f64::from_bits(c.u64("floatFormat")?);
    let blcksz = c.u32("blcksz")?;
    let relseg_size = c.u32("relseg_size")?;
    let xlog_blcksz = c.u32("xlog_blcksz")?;
    let xlog_seg_size = c.u32("xlog_seg_size")?;
    let name_data_len = c.u32("nameDataLen")?;
    let index_max_keys = c.u32("indexMaxKeys")?;
    let toast_max_chunk_size = c.u32("toast_max_chunk_size")?;
    let loblksize = c.u32("loblksize")?;
    let float4_by_val = if layout_major < 13 {
        Some(c.bool("float4ByVal")?)
    } else {
        None
    };
    let float8_by_val = c.bool("float8ByVal")?;
    let data_checksum_version = c.u32("data_checksum_version")?;
    let default_char_signedness = if layout_major >= 18 {
        Some(c.bool("default_char_signedness")?)
    } else {
        None
    };
    let nonce =
        c.r.peek(c.at, 32, "mock_authentication_nonce")
            .map_err(|e| e.to_string())?;
    let mock_authentication_nonce = nonce.iter().map(|b| format!("{b:02x}")).collect();
    c.at += 32;
    let crc = c.u32("crc")?;
    let crc_offset = c.at - 4;
    let crc_computed = crc32c(data.get(..crc_offset).unwrap_or_default());
    Ok(ControlFileImage {
        layout_major,
        control: ControlData {
            system_identifier,
            pg_control_version,
            catalog_version_no,
            state,
            time,
            check_point,
            prev_check_point,
            check_point_copy: cp,
            unlogged_lsn,
            min_recovery_point,
            min_recovery_point_tli,
            backup_start_point,
            backup_end_point,
            backup_end_required,
            wal_level,
            wal_log_hints,
            max_connections,
            max_worker_processes,
            max_wal_senders,
            max_prepared_xacts,
            max_locks_per_xact,
            track_commit_timestamp,
            max_align,
            float_format,
            blcksz,
            relseg_size,
            xlog_blcksz,
            xlog_seg_size,
            name_data_len,
            index_max_keys,
            toast_max_chunk_size,
            loblksize,
            float4_by_val,
            float8_by_val,
            data_checksum_version,
            default_char_signedness,
            mock_authentication_nonce,
            crc,
        },
        crc_offset,
        crc_computed,
        crc_ok: crc == crc_computed,
    })
}

/// CRC-32C (Castagnoli), as PostgreSQL's `COMP_CRC32C` with `INIT_CRC32C`
/// and `FIN_CRC32C`.
pub fn crc32c(data: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut i = 0;
        while i < 256 {
            let mut c = i as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0x82F6_3B78 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[i] = c;
            i += 1;
        }
        table
    };
    !data.iter().fold(!0u32, |crc, &b| {
        TABLE[usize::from((crc as u8) ^ b)] ^ (crc >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32c_check_value() {
        // The standard check value of CRC-32C.
        assert_eq!(crc32c(b"123456789"), 0xE306_9283);
    }

    #[test]
    fn garbage_is_refused() {
        assert!(parse_control_file(&[0u8; 8192]).is_err());
        let mut data = vec![0u8; 8192];
        data[208..216].copy_from_slice(&FLOAT_FORMAT);
        let err = parse_control_file(&data).unwrap_err();
        assert!(err.contains("CRC-32C"), "{err}");
    }
}
