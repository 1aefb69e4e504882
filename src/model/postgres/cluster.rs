//! A data directory's own files that are not relation pages: the control
//! file (`ControlFileData`, catalog/pg_control.h) and the relation maps
//! (`RelMapFile`, utils/cache/relmapper.c). Field names are the C structs',
//! in snake_case.

use serde::Serialize;

/// `CheckPoint` (catalog/pg_control.h): the copy of the latest checkpoint
/// record kept in pg_control.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CheckPoint {
    /// `redo`: the REDO start point (an LSN).
    #[serde(serialize_with = "lsn_text")]
    pub redo: u64,
    /// `ThisTimeLineID`.
    pub this_time_line_id: u32,
    /// `PrevTimeLineID`.
    pub prev_time_line_id: u32,
    /// `fullPageWrites`.
    pub full_page_writes: bool,
    /// `wal_level` (PostgreSQL 17 on; earlier only in the control file).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wal_level: Option<i32>,
    /// `nextXid`: epoch in the high 32 bits (`nextXidEpoch` before 12).
    pub next_xid: u64,
    /// `nextOid`.
    pub next_oid: u32,
    /// `nextMulti`.
    pub next_multi: u32,
    /// `nextMultiOffset`.
    pub next_multi_offset: u32,
    /// `oldestXid`: the cluster-wide minimum datfrozenxid.
    pub oldest_xid: u32,
    /// `oldestXidDB`.
    pub oldest_xid_db: u32,
    /// `oldestMulti`.
    pub oldest_multi: u32,
    /// `oldestMultiDB`.
    pub oldest_multi_db: u32,
    /// `time`: seconds since 1970 (pg_time_t).
    pub time: i64,
    /// `oldestCommitTsXid`.
    pub oldest_commit_ts_xid: u32,
    /// `newestCommitTsXid`.
    pub newest_commit_ts_xid: u32,
    /// `oldestActiveXid`.
    pub oldest_active_xid: u32,
}

/// `ControlFileData` (catalog/pg_control.h), every field, as the file holds
/// it. Fields a major version does not have are `None` (and left out of JSON).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControlData {
    /// `system_identifier`.
    pub system_identifier: u64,
    /// `pg_control_version`: PG_CONTROL_VERSION (1300 for 13–16, 1800 for 18…).
    pub pg_control_version: u32,
    /// `catalog_version_no`: CATALOG_VERSION_NO.
    pub catalog_version_no: u32,
    /// `state`: DBState (JSON: pg_controldata's words).
    #[serde(serialize_with = "state_words")]
    pub state: u32,
    /// `time`: when pg_control was last written (pg_time_t).
    pub time: i64,
    /// `checkPoint`: the latest checkpoint record's location.
    #[serde(serialize_with = "lsn_text")]
    pub check_point: u64,
    /// `prevCheckPoint` (before PostgreSQL 11).
    #[serde(
        skip_serializing_if = "Option::is_none",
        serialize_with = "some_lsn_text"
    )]
    pub prev_check_point: Option<u64>,
    /// `checkPointCopy`.
    pub check_point_copy: CheckPoint,
    /// `unloggedLSN`: the fake LSN counter for unlogged relations.
    #[serde(rename = "unlogged_lsn", serialize_with = "lsn_text")]
    pub unlogged_lsn: u64,
    /// `minRecoveryPoint`.
    #[serde(serialize_with = "lsn_text")]
    pub min_recovery_point: u64,
    /// `minRecoveryPointTLI`.
    pub min_recovery_point_tli: u32,
    /// `backupStartPoint`.
    #[serde(serialize_with = "lsn_text")]
    pub backup_start_point: u64,
    /// `backupEndPoint`.
    #[serde(serialize_with = "lsn_text")]
    pub backup_end_point: u64,
    /// `backupEndRequired`.
    pub backup_end_required: bool,
    /// `wal_level`.
    pub wal_level: i32,
    /// `wal_log_hints`.
    pub wal_log_hints: bool,
    /// `MaxConnections`.
    pub max_connections: i32,
    /// `max_worker_processes`.
    pub max_worker_processes: i32,
    /// `max_wal_senders` (PostgreSQL 12 on).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_wal_senders: Option<i32>,
    /// `max_prepared_xacts`.
    pub max_prepared_xacts: i32,
    /// `max_locks_per_xact`.
    pub max_locks_per_xact: i32,
    /// `track_commit_timestamp`.
    pub track_commit_timestamp: bool,
    /// `maxAlign`.
    pub max_align: u32,
    /// `floatFormat`: 1234567.0 when floats are stored as this reader expects.
    pub float_format: f64,
    /// `blcksz`.
    pub blcksz: u32,
    /// `relseg_size`.
    pub relseg_size: u32,
    /// `xlog_blcksz`.
    pub xlog_blcksz: u32,
    /// `xlog_seg_size`.
    pub xlog_seg_size: u32,
    /// `nameDataLen`.
    pub name_data_len: u32,
    /// `indexMaxKeys`.
    pub index_max_keys: u32,
    /// `toast_max_chunk_size`.
    pub toast_max_chunk_size: u32,
    /// `loblksize`.
    pub loblksize: u32,
    /// `float4ByVal` (before PostgreSQL 13).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub float4_by_val: Option<bool>,
    /// `float8ByVal`.
    pub float8_by_val: bool,
    /// `data_checksum_version`: 0 off, 1 on.
    pub data_checksum_version: u32,
    /// `default_char_signedness` (PostgreSQL 18 on): true = signed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default_char_signedness: Option<bool>,
    /// `mock_authentication_nonce`, as hex.
    pub mock_authentication_nonce: String,
    /// `crc`: the stored CRC-32C.
    pub crc: u32,
}

/// A control file read with the layout of its `pg_control_version`, and
/// whether its CRC holds.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ControlFileImage {
    /// The PostgreSQL major version whose layout was used (the lowest of the
    /// majors sharing it, e.g. 13 for 13–16).
    pub layout_major: u32,
    /// The fields.
    pub control: ControlData,
    /// Offset of `crc`: the CRC-32C covers every byte before it.
    pub crc_offset: usize,
    /// The CRC-32C computed over those bytes.
    pub crc_computed: u32,
    /// `crc` equals the computed value.
    pub crc_ok: bool,
}

/// One entry of a relation map: `RelMapping` (relmapper.c).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RelMapping {
    /// `mapoid`: the catalog's OID (pg_class.oid).
    pub mapoid: u32,
    /// `mapfilenumber` (`mapfilenode` before 16): its file.
    pub mapfilenumber: u32,
}

/// `RelMapFile` (relmapper.c): `global/pg_filenode.map` or
/// `base/DBOID/pg_filenode.map`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct RelMapFile {
    /// `magic`: RELMAPPER_FILEMAGIC, 0x592717.
    pub magic: u32,
    /// `num_mappings`.
    pub num_mappings: i32,
    /// `mappings[0 .. num_mappings]`.
    pub mappings: Vec<RelMapping>,
    /// MAX_MAPPINGS: slots in the file (62 before PostgreSQL 16, 64 from 16).
    pub max_mappings: usize,
    /// `crc`: the stored CRC-32C.
    pub crc: u32,
    /// The CRC-32C of the bytes before `crc`.
    pub crc_computed: u32,
    /// `crc` equals the computed value.
    pub crc_ok: bool,
}

impl RelMapFile {
    /// The file number of catalog `oid`, when the map has it.
    pub fn filenumber(&self, oid: u32) -> Option<u32> {
        self.mappings
            .iter()
            .find(|m| m.mapoid == oid)
            .map(|m| m.mapfilenumber)
    }
}

/// An LSN in JSON as PostgreSQL prints one: `"0/1BFC068"` (`%X/%X`: the
/// high and low 32 bits in upper-case hex, unpadded).
fn lsn_text<S: serde::Serializer>(lsn: &u64, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&format_args!("{:X}/{:X}", lsn >> 32, *lsn as u32))
}

/// [`lsn_text`] of a field only some majors have (absent ones are skipped).
fn some_lsn_text<S: serde::Serializer>(lsn: &Option<u64>, s: S) -> Result<S::Ok, S::Error> {
    match lsn {
        Some(lsn) => lsn_text(lsn, s),
        None => s.serialize_none(),
    }
}

/// `DBState` in JSON as pg_controldata's words; a value PostgreSQL does not
/// define as pg_controldata's "unrecognized status code" followed by the
/// number in parentheses, so that the value is not lost.
fn state_words<S: serde::Serializer>(state: &u32, s: S) -> Result<S::Ok, S::Error> {
    match db_state_name(*state) {
        "unrecognized status code" => {
            s.collect_str(&format_args!("unrecognized status code ({state})"))
        }
        words => s.serialize_str(words),
    }
}

/// `DBState` in pg_controldata's words.
pub(crate) fn db_state_name(state: u32) -> &'static str {
    match state {
        0 => "starting up",
        1 => "shut down",
        2 => "shut down in recovery",
        3 => "shutting down",
        4 => "in crash recovery",
        5 => "in archive recovery",
        6 => "in production",
        _ => "unrecognized status code",
    }
}
