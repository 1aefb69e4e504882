//! pg_waldump's description of a record: the rmgr's `rm_identify` and
//! `rm_desc` text of PostgreSQL 15 (src/backend/access/rmgrdesc/*.c), as
//! pure text formatting of a decoded record. The index access methods
//! other than B-tree, and generic WAL, are in `wal_desc_index.rs`.

use crate::model::postgres::wal::{
    RM_BTREE_ID, RM_CLOG_ID, RM_COMMIT_TS_ID, RM_DBASE_ID, RM_HEAP2_ID, RM_HEAP_ID,
    RM_LOGICALMSG_ID, RM_MULTIXACT_ID, RM_RELMAP_ID, RM_REPLORIGIN_ID, RM_SEQ_ID, RM_SMGR_ID,
    RM_STANDBY_ID, RM_TBLSPC_ID, RM_XACT_ID, RM_XLOG_ID,
};
use std::fmt::Write;

use crate::model::postgres::wal::{fork_name, lsn, RelFileNode, WalRecord};

use super::wal_data::Data;
use super::wal_desc_index as index;

/// `rm_identify(info)`: the record type's name, `None` when unknown.
pub(crate) fn identify(rmid: u8, info: u8) -> Option<&'static str> {
    if let Some(id) = index::identify(rmid, info) {
        return id;
    }
    let i = info & 0xF0;
    Some(match rmid {
        RM_XLOG_ID => match i {
            0x00 => "CHECKPOINT_SHUTDOWN",
            0x10 => "CHECKPOINT_ONLINE",
            0x20 => "NOOP",
            0x30 => "NEXTOID",
            0x40 => "SWITCH",
            0x50 => "BACKUP_END",
            0x60 => "PARAMETER_CHANGE",
            0x70 => "RESTORE_POINT",
            0x80 => "FPW_CHANGE",
            0x90 => "END_OF_RECOVERY",
            0xA0 => "FPI_FOR_HINT",
            0xB0 => "FPI",
            0xD0 => "OVERWRITE_CONTRECORD",
            _ => return None,
        },
        RM_XACT_ID => match info & 0x70 {
            0x00 => "COMMIT",
            0x10 => "PREPARE",
            0x20 => "ABORT",
            0x30 => "COMMIT_PREPARED",
            0x40 => "ABORT_PREPARED",
            0x50 => "ASSIGNMENT",
            0x60 => "INVALIDATION",
            _ => return None,
        },
        RM_SMGR_ID => match i {
            0x10 => "CREATE",
            0x20 => "TRUNCATE",
            _ => return None,
        },
        RM_CLOG_ID => match i {
            0x00 => "ZEROPAGE",
            0x10 => "TRUNCATE",
            _ => return None,
        },
        RM_DBASE_ID => match i {
            0x00 => "CREATE_FILE_COPY",
            0x10 => "CREATE_WAL_LOG",
            0x20 => "DROP",
            _ => return None,
        },
        RM_TBLSPC_ID => match i {
            0x00 => "CREATE",
            0x10 => "DROP",
            _ => return None,
        },
        RM_MULTIXACT_ID => match i {
            0x00 => "ZERO_OFF_PAGE",
            0x10 => "ZERO_MEM_PAGE",
            0x20 => "CREATE_ID",
            0x30 => "TRUNCATE_ID",
            _ => return None,
        },
        RM_RELMAP_ID => match i {
            0x00 => "UPDATE",
            _ => return None,
        },
        RM_STANDBY_ID => match i {
            0x00 => "LOCK",
            0x10 => "RUNNING_XACTS",
            0x20 => "INVALIDATIONS",
            _ => return None,
        },
        RM_HEAP2_ID => match i {
            0x00 => "REWRITE",
            0x10 => "PRUNE",
            0x20 => "VACUUM",
            0x30 => "FREEZE_PAGE",
            0x40 => "VISIBLE",
            0x50 => "MULTI_INSERT",
            0xD0 => "MULTI_INSERT+INIT",
            0x60 => "LOCK_UPDATED",
            0x70 => "NEW_CID",
            _ => return None,
        },
        RM_HEAP_ID => match i {
            0x00 => "INSERT",
            0x80 => "INSERT+INIT",
            0x10 => "DELETE",
            0x20 => "UPDATE",
            0xA0 => "UPDATE+INIT",
            0x40 => "HOT_UPDATE",
            0xC0 => "HOT_UPDATE+INIT",
            0x30 => "TRUNCATE",
            0x50 => "HEAP_CONFIRM",
            0x60 => "LOCK",
            0x70 => "INPLACE",
            _ => return None,
        },
        RM_BTREE_ID => match i {
            0x00 => "INSERT_LEAF",
            0x10 => "INSERT_UPPER",
            0x20 => "INSERT_META",
            0x30 => "SPLIT_L",
            0x40 => "SPLIT_R",
            0x50 => "INSERT_POST",
            0x60 => "DEDUP",
            0x70 => "DELETE",
            0x80 => "UNLINK_PAGE",
            0x90 => "UNLINK_PAGE_META",
            0xA0 => "NEWROOT",
            0xB0 => "MARK_PAGE_HALFDEAD",
            0xC0 => "VACUUM",
            0xD0 => "REUSE_PAGE",
            0xE0 => "META_CLEANUP",
            _ => return None,
        },
        RM_SEQ_ID => match i {
            0x00 => "LOG",
            _ => return None,
        },
        RM_COMMIT_TS_ID => match i {
            0x00 => "ZEROPAGE",
            0x10 => "TRUNCATE",
            _ => return None,
        },
        RM_REPLORIGIN_ID => match i {
            0x00 => "SET",
            0x10 => "DROP",
            _ => return None,
        },
        RM_LOGICALMSG_ID => match i {
            0x00 => "MESSAGE",
            _ => return None,
        },
        _ => return None,
    })
}

/// pg_waldump's `desc:` text without the block references: the identify
/// name (or `UNKNOWN (%x)`), a space, and `rm_desc`'s text.
pub(crate) fn describe(rec: &WalRecord, bytes: &[u8], out: &mut String) {
    match identify(rec.rmid, rec.info) {
        Some(id) => out.push_str(id),
        None => {
            let _ = write!(out, "UNKNOWN ({:x})", rec.info & 0xF0);
        }
    }
    out.push(' ');
    let d = Data(bytes.get(rec.main_data.clone()).unwrap_or(&[]));
    let _ = desc(rec, bytes, &d, out);
}

/// pg_waldump's block references in its short form:
/// `, blkref #0: rel 1663/5/16384 blk 0 FPW`.
pub(crate) fn block_refs(rec: &WalRecord, out: &mut String) {
    let mut n = itoa::Buffer::new();
    for b in &rec.blocks {
        out.push_str(", blkref #");
        out.push_str(n.format(b.id));
        out.push_str(": rel ");
        out.push_str(n.format(b.rel.spc));
        out.push('/');
        out.push_str(n.format(b.rel.db));
        out.push('/');
        out.push_str(n.format(b.rel.rel));
        if b.fork != 0 {
            out.push_str(" fork ");
            out.push_str(&fork_name(b.fork));
        }
        out.push_str(" blk ");
        out.push_str(n.format(b.blk));
        if let Some(i) = &b.image {
            out.push_str(if i.apply() {
                " FPW"
            } else {
                " FPW for WAL verification"
            });
        }
    }
}

fn infobits(out: &mut String, bits: u8) {
    for (bit, name) in [
        (0x01, "IS_MULTI "),
        (0x02, "LOCK_ONLY "),
        (0x04, "EXCL_LOCK "),
        (0x08, "KEYSHR_LOCK "),
        (0x10, "KEYS_UPDATED "),
    ] {
        if bits & bit != 0 {
            out.push_str(name);
        }
    }
}

/// `relpathperm(rnode, fork)` of PostgreSQL 15.
fn relpath(r: RelFileNode, fork: u8) -> String {
    let suffix = if fork == 0 {
        String::new()
    } else {
        format!("_{}", fork_name(fork))
    };
    match r.spc {
        1664 => format!("global/{}{suffix}", r.rel),
        1663 => format!("base/{}/{}{suffix}", r.db, r.rel),
        _ => format!(
            "pg_tblspc/{}/PG_15_202209061/{}/{}{suffix}",
            r.spc, r.db, r.rel
        ),
    }
}

/// pg_waldump's `timestamptz_to_str`, in UTC: `2026-11-27 07:30:00.123456 UTC`.
pub(crate) fn timestamptz(dt: i64) -> String {
    let mut s = String::new();
    push_timestamptz(&mut s, dt);
    s
}

/// [`timestamptz`] onto `out`: every commit record has one.
fn push_timestamptz(out: &mut String, dt: i64) {
    const USECS: i64 = 1_000_000;
    // 2000-01-01 in Unix seconds.
    let secs = dt.div_euclid(USECS) + 946_684_800;
    let usec = dt % USECS;
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (year, month, day) = crate::model::time::civil_from_days(days);
    if (0..=9999).contains(&year) && (0..USECS).contains(&usec) {
        // The common case by hand: `write!` is slow for millions of them.
        let digits = |out: &mut String, v: i64, width: u32| {
            for i in (0..width).rev() {
                out.push(char::from(b'0' + (v / 10i64.pow(i) % 10) as u8));
            }
        };
        digits(out, year, 4);
        out.push('-');
        digits(out, month, 2);
        out.push('-');
        digits(out, day, 2);
        out.push(' ');
        digits(out, rem / 3600, 2);
        out.push(':');
        digits(out, rem / 60 % 60, 2);
        out.push(':');
        digits(out, rem % 60, 2);
        out.push('.');
        digits(out, usec, 6);
        out.push_str(" UTC");
        return;
    }
    let _ = write!(
        out,
        "{year:04}-{month:02}-{day:02} {:02}:{:02}:{:02}.{usec:06} UTC",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    );
}

fn desc(rec: &WalRecord, bytes: &[u8], d: &Data<'_>, out: &mut String) -> Option<()> {
    let info = rec.info & 0xF0;
    match rec.rmid {
        RM_XLOG_ID => xlog(info, d, out),
        RM_XACT_ID => xact(rec, d, out),
        RM_SMGR_ID => match info {
            0x10 => {
                out.push_str(&relpath(d.rel(0)?, d.u32(12)? as u8));
                Some(())
            }
            0x20 => {
                let _ = write!(
                    out,
                    "{} to {} blocks flags {}",
                    relpath(d.rel(4)?, 0),
                    d.u32(0)?,
                    d.i32(16)?
                );
                Some(())
            }
            _ => Some(()),
        },
        RM_CLOG_ID => match info {
            0x00 => {
                let _ = write!(out, "page {}", d.i32(0)?);
                Some(())
            }
            0x10 => {
                let _ = write!(out, "page {}; oldestXact {}", d.i32(0)?, d.u32(4)?);
                Some(())
            }
            _ => Some(()),
        },
        RM_DBASE_ID => match info {
            0x00 => {
                let _ = write!(
                    out,
                    "copy dir {}/{} to {}/{}",
                    d.u32(12)?,
                    d.u32(8)?,
                    d.u32(4)?,
                    d.u32(0)?
                );
                Some(())
            }
            0x10 => {
                let _ = write!(out, "create dir {}/{}", d.u32(4)?, d.u32(0)?);
                Some(())
            }
            0x20 => {
                out.push_str("dir");
                let db = d.u32(0)?;
                for i in 0..d.i32(4)?.max(0) as usize {
                    let _ = write!(out, " {}/{db}", d.u32(8 + 4 * i)?);
                }
                Some(())
            }
            _ => Some(()),
        },
        RM_MULTIXACT_ID => match info {
            0x00 | 0x10 => {
                let _ = write!(out, "{}", d.i32(0)?);
                Some(())
            }
            0x20 => {
                let n = d.i32(8)?;
                let _ = write!(out, "{} offset {} nmembers {n}: ", d.u32(0)?, d.u32(4)?);
                for i in 0..n.max(0) as usize {
                    let o = 12 + 8 * i;
                    let status = match d.u32(o + 4)? {
                        0 => "(keysh) ",
                        1 => "(sh) ",
                        2 => "(fornokeyupd) ",
                        3 => "(forupd) ",
                        4 => "(nokeyupd) ",
                        5 => "(upd) ",
                        _ => "(unk) ",
                    };
                    let _ = write!(out, "{} {status}", d.u32(o)?);
                }
                Some(())
            }
            0x30 => {
                let _ = write!(
                    out,
                    "offsets [{}, {}), members [{}, {})",
                    d.u32(4)?,
                    d.u32(8)?,
                    d.u32(12)?,
                    d.u32(16)?
                );
                Some(())
            }
            _ => Some(()),
        },
        RM_TBLSPC_ID => {
            match info {
                // xl_tblspc_create_rec: ts_id, ts_path (NUL-terminated).
                0x00 => {
                    let path = d.0.get(4..)?;
                    let path = path.split(|&b| b == 0).next().unwrap_or(&[]);
                    let _ = write!(out, "{} \"{}\"", d.u32(0)?, String::from_utf8_lossy(path));
                }
                0x10 => {
                    let _ = write!(out, "{}", d.u32(0)?);
                }
                _ => {}
            }
            Some(())
        }
        RM_COMMIT_TS_ID => {
            match info {
                0x00 => {
                    let _ = write!(out, "{}", d.i32(0)?);
                }
                0x10 => {
                    let _ = write!(out, "pageno {}, oldestXid {}", d.i32(0)?, d.u32(4)?);
                }
                _ => {}
            }
            Some(())
        }
        RM_REPLORIGIN_ID => {
            match info {
                // xl_replorigin_set: remote_lsn, node_id, force.
                0x00 => {
                    let _ = write!(
                        out,
                        "set {}; lsn {}; force: {}",
                        d.u16(8)?,
                        lsn(d.u64(0)?),
                        d.u8(10)?
                    );
                }
                0x10 => {
                    let _ = write!(out, "drop {}", d.u16(0)?);
                }
                _ => {}
            }
            Some(())
        }
        RM_RELMAP_ID => {
            if info == 0 {
                let _ = write!(
                    out,
                    "database {} tablespace {} size {}",
                    d.u32(0)?,
                    d.u32(4)?,
                    d.i32(8)?
                );
            }
            Some(())
        }
        RM_STANDBY_ID => standby(info, d, out),
        RM_HEAP2_ID => heap2(info & 0x70, d, out),
        RM_HEAP_ID => heap(info & 0x70, d, out),
        RM_BTREE_ID => btree(rec, bytes, info, d, out),
        RM_SEQ_ID => {
            if info == 0 {
                let r = d.rel(0)?;
                let _ = write!(out, "rel {r}");
            }
            Some(())
        }
        RM_LOGICALMSG_ID => {
            if info == 0 {
                // xl_logical_message: dbId, transactional, prefix_size, message_size, message
                let transactional = d.u8(4)? != 0;
                let prefix_size = d.u64(8)? as usize;
                let message_size = d.u64(16)? as usize;
                let prefix = d.0.get(24..24 + prefix_size)?;
                let prefix = prefix.split(|&b| b == 0).next().unwrap_or(&[]);
                let _ = write!(
                    out,
                    "{}, prefix \"{}\"; payload ({message_size} bytes): ",
                    if transactional {
                        "transactional"
                    } else {
                        "non-transactional"
                    },
                    String::from_utf8_lossy(prefix)
                );
                let msg = d.0.get(24 + prefix_size..24 + prefix_size + message_size)?;
                for (i, b) in msg.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    let _ = write!(out, "{b:02X}");
                }
            }
            Some(())
        }
        _ => index::desc(rec, bytes, d, out),
    }
}

fn xlog(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 | 0x10 => {
            let next_xid = d.u64(24)?;
            let _ = write!(
                out,
                "redo {}; tli {}; prev tli {}; fpw {}; xid {}:{}; oid {}; multi {}; offset {}; \
                 oldest xid {} in DB {}; oldest multi {} in DB {}; \
                 oldest/newest commit timestamp xid: {}/{}; oldest running xid {}; {}",
                lsn(d.u64(0)?),
                d.u32(8)?,
                d.u32(12)?,
                if d.u8(16)? != 0 { "true" } else { "false" },
                next_xid >> 32,
                next_xid as u32,
                d.u32(32)?,
                d.u32(36)?,
                d.u32(40)?,
                d.u32(44)?,
                d.u32(48)?,
                d.u32(52)?,
                d.u32(56)?,
                d.u32(72)?,
                d.u32(76)?,
                d.u32(80)?,
                if info == 0 { "shutdown" } else { "online" }
            );
        }
        0x30 => {
            let _ = write!(out, "{}", d.u32(0)?);
        }
        0x70 => {
            let name = d.0.split(|&b| b == 0).next().unwrap_or(&[]);
            out.push_str(&String::from_utf8_lossy(name));
        }
        0x50 => {
            let _ = write!(out, "{}", lsn(d.u64(0)?));
        }
        0x60 => {
            let level = match d.i32(20)? {
                0 => "minimal",
                1 => "replica",
                2 => "logical",
                _ => "?",
            };
            let _ = write!(
                out,
                "max_connections={} max_worker_processes={} max_wal_senders={} \
                 max_prepared_xacts={} max_locks_per_xact={} wal_level={level} \
                 wal_log_hints={} track_commit_timestamp={}",
                d.i32(0)?,
                d.i32(4)?,
                d.i32(8)?,
                d.i32(12)?,
                d.i32(16)?,
                if d.u8(24)? != 0 { "on" } else { "off" },
                if d.u8(25)? != 0 { "on" } else { "off" },
            );
        }
        0x80 => out.push_str(if d.u8(0)? != 0 { "true" } else { "false" }),
        0x90 => {
            let _ = write!(
                out,
                "tli {}; prev tli {}; time {}",
                d.u32(8)?,
                d.u32(12)?,
                timestamptz(d.i64(0)?)
            );
        }
        0xD0 => {
            let _ = write!(
                out,
                "lsn {}; time {}",
                lsn(d.u64(0)?),
                timestamptz(d.i64(8)?)
            );
        }
        _ => {}
    }
    Some(())
}

/// `v` in decimal (`%u`), without `write!`'s machinery: the records of
/// every pgbench transaction go through here.
fn num(out: &mut String, v: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(v));
}

/// `v` as `%02X`.
fn hex2(out: &mut String, v: u8) {
    const DIGITS: &[u8; 16] = b"0123456789ABCDEF";
    out.push(char::from(DIGITS[usize::from(v >> 4)]));
    out.push(char::from(DIGITS[usize::from(v & 0xF)]));
}

fn heap(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 => {
            let (off, flags) = (d.u16(0)?, d.u8(2)?);
            out.push_str("off ");
            num(out, off);
            out.push_str(" flags 0x");
            hex2(out, flags);
        }
        0x10 => {
            let _ = write!(out, "off {} flags 0x{:02X} ", d.u16(4)?, d.u8(7)?);
            infobits(out, d.u8(6)?);
        }
        0x20 | 0x40 => {
            let (off, xmax, flags, bits) = (d.u16(4)?, d.u32(0)?, d.u8(7)?, d.u8(6)?);
            let (new_off, new_xmax) = (d.u16(12)?, d.u32(8)?);
            out.push_str("off ");
            num(out, off);
            out.push_str(" xmax ");
            num(out, xmax);
            out.push_str(" flags 0x");
            hex2(out, flags);
            out.push(' ');
            infobits(out, bits);
            out.push_str("; new off ");
            num(out, new_off);
            out.push_str(" xmax ");
            num(out, new_xmax);
        }
        0x30 => {
            let flags = d.u8(8)?;
            if flags & 0x01 != 0 {
                out.push_str("cascade ");
            }
            if flags & 0x02 != 0 {
                out.push_str("restart_seqs ");
            }
            let n = d.u32(4)?;
            let _ = write!(out, "nrelids {n} relids");
            for i in 0..n as usize {
                let _ = write!(out, " {}", d.u32(12 + 4 * i)?);
            }
        }
        0x50 | 0x70 => {
            let _ = write!(out, "off {}", d.u16(0)?);
        }
        0x60 => {
            let _ = write!(
                out,
                "off {}: xid {}: flags 0x{:02X} ",
                d.u16(4)?,
                d.u32(0)?,
                d.u8(7)?
            );
            infobits(out, d.u8(6)?);
        }
        _ => {}
    }
    Some(())
}

fn heap2(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x10 => {
            let _ = write!(
                out,
                "latestRemovedXid {} nredirected {} ndead {}",
                d.u32(0)?,
                d.u16(4)?,
                d.u16(6)?
            );
        }
        0x20 => {
            let _ = write!(out, "nunused {}", d.u16(0)?);
        }
        0x30 => {
            let _ = write!(out, "cutoff xid {} ntuples {}", d.u32(0)?, d.u16(4)?);
        }
        0x40 => {
            let _ = write!(out, "cutoff xid {} flags 0x{:02X}", d.u32(0)?, d.u8(4)?);
        }
        0x50 => {
            let _ = write!(out, "{} tuples flags 0x{:02X}", d.u16(2)?, d.u8(0)?);
        }
        0x60 => {
            let _ = write!(
                out,
                "off {}: xmax {}: flags 0x{:02X} ",
                d.u16(4)?,
                d.u32(0)?,
                d.u8(7)?
            );
            infobits(out, d.u8(6)?);
        }
        0x70 => {
            let r = d.rel(16)?;
            let blk = crate::reader::u32_from_halves(d.u16(28)?, d.u16(30)?);
            let _ = write!(
                out,
                "rel {r}; tid {blk}/{}; cmin: {}, cmax: {}, combo: {}",
                d.u16(32)?,
                d.u32(4)?,
                d.u32(8)?,
                d.u32(12)?
            );
        }
        _ => {}
    }
    Some(())
}

fn btree(rec: &WalRecord, bytes: &[u8], info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 | 0x10 | 0x20 | 0x50 => {
            let off = d.u16(0)?;
            out.push_str("off ");
            num(out, off);
        }
        0x30 | 0x40 => {
            let _ = write!(
                out,
                "level {}, firstrightoff {}, newitemoff {}, postingoff {}",
                d.u32(0)?,
                d.u16(4)?,
                d.u16(6)?,
                d.u16(8)?
            );
        }
        0x60 => {
            let _ = write!(out, "nintervals {}", d.u16(0)?);
        }
        0xC0 => {
            let _ = write!(out, "ndeleted {}; nupdated {}", d.u16(0)?, d.u16(2)?);
        }
        0x70 => {
            let _ = write!(
                out,
                "latestRemovedXid {}; ndeleted {}; nupdated {}",
                d.u32(0)?,
                d.u16(4)?,
                d.u16(6)?
            );
        }
        0xB0 => {
            let _ = write!(
                out,
                "topparent {}; leaf {}; left {}; right {}",
                d.u32(16)?,
                d.u32(4)?,
                d.u32(8)?,
                d.u32(12)?
            );
        }
        0x80 | 0x90 => {
            let safexid = d.u64(16)?;
            let _ = write!(
                out,
                "left {}; right {}; level {}; safexid {}:{}; leafleft {}; leafright {}; \
                 leaftopparent {}",
                d.u32(0)?,
                d.u32(4)?,
                d.u32(8)?,
                safexid >> 32,
                safexid as u32,
                d.u32(24)?,
                d.u32(28)?,
                d.u32(32)?
            );
        }
        0xA0 => {
            let _ = write!(out, "lev {}", d.u32(4)?);
        }
        0xD0 => {
            let x = d.u64(16)?;
            let _ = write!(
                out,
                "rel {}; latestRemovedXid {}:{}",
                d.rel(0)?,
                x >> 32,
                x as u32
            );
        }
        0xE0 => {
            let b = rec.blocks.iter().find(|b| b.id == 0)?;
            let m = Data(bytes.get(b.data.clone())?);
            let _ = write!(out, "last_cleanup_num_delpages {}", m.u32(20)?);
        }
        _ => {}
    }
    Some(())
}

fn standby(info: u8, d: &Data<'_>, out: &mut String) -> Option<()> {
    match info {
        0x00 => {
            for i in 0..d.i32(0)?.max(0) as usize {
                let o = 4 + 12 * i;
                let _ = write!(
                    out,
                    "xid {} db {} rel {} ",
                    d.u32(o)?,
                    d.u32(o + 4)?,
                    d.u32(o + 8)?
                );
            }
        }
        0x10 => {
            let xcnt = d.i32(0)?;
            let _ = write!(
                out,
                "nextXid {} latestCompletedXid {} oldestRunningXid {}",
                d.u32(12)?,
                d.u32(20)?,
                d.u32(16)?
            );
            if xcnt > 0 {
                let _ = write!(out, "; {xcnt} xacts:");
                for i in 0..xcnt as usize {
                    let _ = write!(out, " {}", d.u32(24 + 4 * i)?);
                }
            }
            if d.u8(8)? != 0 {
                out.push_str("; subxid ovf");
            }
        }
        0x20 => {
            let n = d.i32(12)?;
            invalidations(out, d, 16, n, d.u32(0)?, d.u32(4)?, d.u8(8)? != 0)?;
        }
        _ => {}
    }
    Some(())
}

/// `standby_desc_invalidations`: `n` SharedInvalidationMessages at `at`.
fn invalidations(
    out: &mut String,
    d: &Data<'_>,
    at: usize,
    n: i32,
    db: u32,
    ts: u32,
    init_file: bool,
) -> Option<()> {
    if n <= 0 {
        return Some(());
    }
    if init_file {
        let _ = write!(out, "; relcache init file inval dbid {db} tsid {ts}");
    }
    out.push_str("; inval msgs:");
    for i in 0..n as usize {
        let o = at + 16 * i;
        let id = d.u8(o)? as i8;
        let _ = match id {
            0.. => write!(out, " catcache {id}"),
            -1 => write!(out, " catalog {}", d.u32(o + 8)?),
            -2 => write!(out, " relcache {}", d.u32(o + 8)?),
            -3 => write!(out, " smgr"),
            -4 => write!(out, " relmap db {}", d.u32(o + 4)?),
            -5 => write!(out, " snapshot {}", d.u32(o + 8)?),
            _ => write!(out, " unrecognized id {id}"),
        };
    }
    Some(())
}

fn xact(rec: &WalRecord, d: &Data<'_>, out: &mut String) -> Option<()> {
    let op = rec.info & 0x70;
    match op {
        0x00 | 0x30 | 0x20 | 0x40 => {
            let commit = op == 0x00 || op == 0x30;
            let xact_time = d.i64(0)?;
            let mut p = 8;
            let mut xinfo = 0u32;
            if rec.info & 0x80 != 0 {
                xinfo = d.u32(p)?;
                p += 4;
            }
            let (mut db, mut ts) = (0, 0);
            if xinfo & (1 << 0) != 0 {
                db = d.u32(p)?;
                ts = d.u32(p + 4)?;
                p += 8;
            }
            let mut subxacts = Vec::new();
            if xinfo & (1 << 1) != 0 {
                let n = d.i32(p)?.max(0) as usize;
                p += 4;
                for i in 0..n {
                    subxacts.push(d.u32(p + 4 * i)?);
                }
                p += 4 * n;
            }
            let mut rels = Vec::new();
            if xinfo & (1 << 2) != 0 {
                let n = d.i32(p)?.max(0) as usize;
                p += 4;
                for i in 0..n {
                    rels.push(d.rel(p + 12 * i)?);
                }
                p += 12 * n;
            }
            let mut stats = Vec::new();
            if xinfo & (1 << 8) != 0 {
                let n = d.i32(p)?.max(0) as usize;
                p += 4;
                for i in 0..n {
                    let o = p + 12 * i;
                    stats.push((d.i32(o)?, d.u32(o + 4)?, d.u32(o + 8)?));
                }
                p += 12 * n;
            }
            let mut msgs = (0usize, 0i32);
            if xinfo & (1 << 3) != 0 {
                let n = d.i32(p)?;
                msgs = (p + 4, n);
                p += 4 + 16 * n.max(0) as usize;
            }
            let mut twophase_xid = 0;
            if xinfo & (1 << 4) != 0 {
                twophase_xid = d.u32(p)?;
                p += 4;
                if xinfo & (1 << 7) != 0 {
                    let gid = d.0.get(p..)?.split(|&b| b == 0).next()?;
                    p += gid.len() + 1;
                }
            }
            let origin = if xinfo & (1 << 5) != 0 {
                Some((d.u64(p)?, d.i64(p + 8)?))
            } else {
                None
            };
            if twophase_xid != 0 {
                let _ = write!(out, "{twophase_xid}: ");
            }
            push_timestamptz(out, xact_time);
            if !rels.is_empty() {
                out.push_str("; rels:");
                for r in &rels {
                    let _ = write!(out, " {}", relpath(*r, 0));
                }
            }
            if !subxacts.is_empty() {
                out.push_str("; subxacts:");
                for x in &subxacts {
                    let _ = write!(out, " {x}");
                }
            }
            let stats_text = |out: &mut String| {
                if !stats.is_empty() {
                    out.push_str("; dropped stats:");
                    for (k, db, obj) in &stats {
                        let _ = write!(out, " {k}/{db}/{obj}");
                    }
                }
            };
            let origin_text = |out: &mut String| {
                if let Some((l, t)) = origin {
                    let _ = write!(
                        out,
                        "; origin: node {}, lsn {}, at {}",
                        rec.origin.unwrap_or(0),
                        lsn(l),
                        timestamptz(t)
                    );
                }
            };
            if commit {
                stats_text(out);
                invalidations(out, d, msgs.0, msgs.1, db, ts, xinfo & (1 << 30) != 0)?;
                if xinfo & (1 << 29) != 0 {
                    out.push_str("; apply_feedback");
                }
                if xinfo & (1 << 31) != 0 {
                    out.push_str("; sync");
                }
                origin_text(out);
            } else {
                origin_text(out);
                stats_text(out);
            }
        }
        0x50 => {
            let _ = write!(out, "xtop {}: subxacts:", d.u32(0)?);
            for i in 0..d.i32(4)?.max(0) as usize {
                let _ = write!(out, " {}", d.u32(8 + 4 * i)?);
            }
        }
        0x60 => {
            let n = d.i32(0)?;
            invalidations(out, d, 4, n, 0, 0, false)?;
        }
        _ => {}
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_as_pg_waldump_prints_them_in_utc() {
        assert_eq!(timestamptz(0), "2000-01-01 00:00:00.000000 UTC");
        // 2024-02-29 12:34:56.789012 UTC
        let unix = 1_709_210_096i64;
        let dt = (unix - 946_684_800) * 1_000_000 + 789_012;
        assert_eq!(timestamptz(dt), "2024-02-29 12:34:56.789012 UTC");
    }

    #[test]
    fn relpaths() {
        let r = |spc, db, rel| RelFileNode { spc, db, rel };
        assert_eq!(relpath(r(1663, 5, 16384), 0), "base/5/16384");
        assert_eq!(relpath(r(1664, 0, 1262), 1), "global/1262_fsm");
    }
}
