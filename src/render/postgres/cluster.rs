//! pg_control and relation maps as text: the control file with
//! pg_controldata's labels and value forms (times in UTC), a relation map as
//! a table of OIDs and file numbers.

use std::io::{self, Write};

use crate::model::postgres::cluster::{ControlFileImage, RelMapFile};

/// `%X/%X`, as pg_controldata and pg_lsn print an LSN through 18.
pub(crate) fn lsn_text(lsn: u64) -> String {
    format!("{:X}/{:X}", lsn >> 32, lsn as u32)
}

/// `strftime("%c")` in the C locale, in UTC: `Tue Nov 24 05:12:27 2026`.
pub(crate) fn time_text(secs: i64) -> String {
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = crate::model::time::civil_from_days(days);
    format!(
        "{} {} {:>2} {:02}:{:02}:{:02} {}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(month - 1) as usize],
        day,
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        year
    )
}

/// `wal_level` as pg_controldata names it.
fn wal_level_name(level: i32) -> &'static str {
    match level {
        0 => "minimal",
        1 => "replica",
        2 => "logical",
        _ => "unrecognized wal_level",
    }
}

fn on_off(b: bool) -> &'static str {
    if b {
        "on"
    } else {
        "off"
    }
}

/// The control file's fields as pg_controldata prints them: `(label, value)`.
pub(crate) fn control_lines(image: &ControlFileImage) -> Vec<(&'static str, String)> {
    let c = &image.control;
    let cp = &c.check_point_copy;
    let lsn = lsn_text;
    let seg = u64::from(c.xlog_seg_size.max(1));
    let segno = cp.redo / seg;
    let per_id = 0x1_0000_0000 / seg;
    let redo_file = format!(
        "{:08X}{:08X}{:08X}",
        cp.this_time_line_id,
        segno / per_id.max(1),
        segno % per_id.max(1)
    );
    let mut v: Vec<(&'static str, String)> = vec![
        (
            "pg_control version number",
            c.pg_control_version.to_string(),
        ),
        ("Catalog version number", c.catalog_version_no.to_string()),
        (
            "Database system identifier",
            c.system_identifier.to_string(),
        ),
        (
            "Database cluster state",
            crate::model::postgres::cluster::db_state_name(c.state).to_string(),
        ),
        ("pg_control last modified", time_text(c.time)),
        ("Latest checkpoint location", lsn(c.check_point)),
    ];
    if let Some(prev) = c.prev_check_point {
        v.push(("Prior checkpoint location", lsn(prev)));
    }
    v.extend([
        ("Latest checkpoint's REDO location", lsn(cp.redo)),
        ("Latest checkpoint's REDO WAL file", redo_file),
        (
            "Latest checkpoint's TimeLineID",
            cp.this_time_line_id.to_string(),
        ),
        (
            "Latest checkpoint's PrevTimeLineID",
            cp.prev_time_line_id.to_string(),
        ),
        (
            "Latest checkpoint's full_page_writes",
            on_off(cp.full_page_writes).into(),
        ),
        (
            "Latest checkpoint's NextXID",
            format!("{}:{}", cp.next_xid >> 32, cp.next_xid as u32),
        ),
        ("Latest checkpoint's NextOID", cp.next_oid.to_string()),
        (
            "Latest checkpoint's NextMultiXactId",
            cp.next_multi.to_string(),
        ),
        (
            "Latest checkpoint's NextMultiOffset",
            cp.next_multi_offset.to_string(),
        ),
        ("Latest checkpoint's oldestXID", cp.oldest_xid.to_string()),
        (
            "Latest checkpoint's oldestXID's DB",
            cp.oldest_xid_db.to_string(),
        ),
        (
            "Latest checkpoint's oldestActiveXID",
            cp.oldest_active_xid.to_string(),
        ),
        (
            "Latest checkpoint's oldestMultiXid",
            cp.oldest_multi.to_string(),
        ),
        (
            "Latest checkpoint's oldestMulti's DB",
            cp.oldest_multi_db.to_string(),
        ),
        (
            "Latest checkpoint's oldestCommitTsXid",
            cp.oldest_commit_ts_xid.to_string(),
        ),
        (
            "Latest checkpoint's newestCommitTsXid",
            cp.newest_commit_ts_xid.to_string(),
        ),
        ("Time of latest checkpoint", time_text(cp.time)),
        ("Fake LSN counter for unlogged rels", lsn(c.unlogged_lsn)),
        (
            "Minimum recovery ending location",
            lsn(c.min_recovery_point),
        ),
        (
            "Min recovery ending loc's timeline",
            c.min_recovery_point_tli.to_string(),
        ),
        ("Backup start location", lsn(c.backup_start_point)),
        ("Backup end location", lsn(c.backup_end_point)),
        (
            "End-of-backup record required",
            if c.backup_end_required { "yes" } else { "no" }.into(),
        ),
        ("wal_level setting", wal_level_name(c.wal_level).into()),
        ("wal_log_hints setting", on_off(c.wal_log_hints).into()),
        ("max_connections setting", c.max_connections.to_string()),
        (
            "max_worker_processes setting",
            c.max_worker_processes.to_string(),
        ),
    ]);
    if let Some(n) = c.max_wal_senders {
        v.push(("max_wal_senders setting", n.to_string()));
    }
    v.extend([
        (
            "max_prepared_xacts setting",
            c.max_prepared_xacts.to_string(),
        ),
        (
            "max_locks_per_xact setting",
            c.max_locks_per_xact.to_string(),
        ),
        (
            "track_commit_timestamp setting",
            on_off(c.track_commit_timestamp).into(),
        ),
        ("Maximum data alignment", c.max_align.to_string()),
        ("Database block size", c.blcksz.to_string()),
        (
            "Blocks per segment of large relation",
            c.relseg_size.to_string(),
        ),
        ("WAL block size", c.xlog_blcksz.to_string()),
        ("Bytes per WAL segment", c.xlog_seg_size.to_string()),
        ("Maximum length of identifiers", c.name_data_len.to_string()),
        ("Maximum columns in an index", c.index_max_keys.to_string()),
        (
            "Maximum size of a TOAST chunk",
            c.toast_max_chunk_size.to_string(),
        ),
        ("Size of a large-object chunk", c.loblksize.to_string()),
        ("Date/time type storage", "64-bit integers".into()),
    ]);
    let by = |b: bool| if b { "by value" } else { "by reference" }.to_string();
    if let Some(b) = c.float4_by_val {
        v.push(("Float4 argument passing", by(b)));
    }
    v.push(("Float8 argument passing", by(c.float8_by_val)));
    v.push((
        "Data page checksum version",
        c.data_checksum_version.to_string(),
    ));
    if let Some(s) = c.default_char_signedness {
        v.push((
            "Default char data signedness",
            if s { "signed" } else { "unsigned" }.into(),
        ));
    }
    v.push((
        "Mock authentication nonce",
        c.mock_authentication_nonce.clone(),
    ));
    v
}

/// pg_controldata's text: `label:` padded to column 39, then the value;
/// then the CRC's verdict.
pub(crate) fn write_control(out: &mut dyn Write, image: &ControlFileImage) -> io::Result<()> {
    for (label, value) in control_lines(image) {
        writeln!(out, "{:<38}{value}", format!("{label}:"))?;
    }
    let crc = if image.crc_ok {
        format!("0x{:08x} (correct)", image.control.crc)
    } else {
        format!(
            "0x{:08x} (WRONG: computed 0x{:08x} over bytes 0..{}; the file is damaged)",
            image.control.crc, image.crc_computed, image.crc_offset
        )
    };
    writeln!(out, "{:<38}{crc}", "CRC-32C:")
}

/// A relation map as a table: one row per mapping, the catalog's name where
/// `name` knows it.
pub(crate) fn write_relmap(
    out: &mut dyn Write,
    map: &RelMapFile,
    name: &dyn Fn(u32) -> Option<&'static str>,
) -> io::Result<()> {
    writeln!(
        out,
        "magic 0x{:06x}, num_mappings {} (of {} slots), crc 0x{:08x} ({})",
        map.magic,
        map.num_mappings,
        map.max_mappings,
        map.crc,
        if map.crc_ok {
            "correct".to_string()
        } else {
            format!(
                "WRONG: computed 0x{:08x}; the file is damaged",
                map.crc_computed
            )
        }
    )?;
    writeln!(out, "{:>6}  {:>13}  relation", "mapoid", "mapfilenumber")?;
    for m in &map.mappings {
        writeln!(
            out,
            "{:>6}  {:>13}  {}",
            m.mapoid,
            m.mapfilenumber,
            name(m.mapoid).unwrap_or("-")
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn c_locale_time() {
        assert_eq!(time_text(0), "Thu Jan  1 00:00:00 1970");
        assert_eq!(time_text(1795497147), "Tue Nov 24 05:12:27 2026");
        assert_eq!(time_text(951_782_400), "Tue Feb 29 00:00:00 2000");
    }
}
