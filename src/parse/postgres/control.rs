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
pub fn parse_control_file(data: &[u8]) -> Result<ControlFile, String> {
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
    let redo = u64::from(word(redo_at + 4, "checkPointCopy.redo")?) << 32
        | u64::from(word(redo_at, "checkPointCopy.redo")?);
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
