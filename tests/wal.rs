//! `blockscope wal` judged by pg_waldump: fixtures/postgres/wal/make.sh ran a
//! real PostgreSQL 15 (1 MB segments) and saved its WAL with pg_waldump's
//! listing (TZ=UTC). The listing must be the same line for line, the JSON
//! the same records field by field; damaged copies of the WAL (a flipped
//! byte, a zeroed page, a truncated segment, a missing segment) are named,
//! exit 1, and every record outside the damage is still listed.
//!
//! `BLOCKSCOPE_PG_WAL_FIXTURES=DIR` (after `fixtures/postgres/wal/make.sh
//! DIR /usr/lib/postgresql/15/bin 16`) runs the comparison on fresh WAL of
//! 16 MB segments.

mod common;

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use common::{fixture, run};
use serde_json::Value;

fn datadir() -> PathBuf {
    fixture("postgres/wal/datadir")
}

fn waldump(dir: &Path) -> String {
    fs::read_to_string(dir.join("waldump.txt")).unwrap()
}

fn relation(dir: &Path) -> String {
    fs::read_to_string(dir.join("relation.txt"))
        .unwrap()
        .trim()
        .to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Same lines as pg_waldump, and the JSON's fields the same as its lines.
fn judge(dir: &Path) {
    let expected = waldump(dir);
    let data = dir.join("datadir");
    let r = run(&["wal", s(&data)]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.stderr, "");
    let want: Vec<&str> = expected.lines().collect();
    let got: Vec<&str> = r.stdout.lines().collect();
    for (i, (w, g)) in want.iter().zip(&got).enumerate() {
        assert_eq!(w, g, "line {}", i + 1);
    }
    assert_eq!(want.len(), got.len(), "record count");
    assert!(
        want.len() > 1000,
        "the fixture holds the whole script's WAL"
    );

    let r = run(&["wal", s(&data), "--format", "json"]);
    assert_eq!(r.code, 0);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["schema"], 1);
    assert_eq!(doc["problems"], Value::Array(vec![]));
    let records = doc["records"].as_array().unwrap();
    assert_eq!(records.len(), want.len());
    for (rec, line) in records.iter().zip(&want) {
        assert_eq!(json_as_line(rec), norm(line));
    }

    let r = run(&["wal", s(&data), "--format", "ndjson"]);
    assert_eq!(r.code, 0);
    let lines: Vec<Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines[0], serde_json::json!({"schema": 1}));
    assert_eq!(&lines[1..], records.as_slice());
}

/// A pg_waldump line without the spaces its printf leaves at the end of
/// the description (JSON's `desc` has none).
fn norm(line: &str) -> String {
    match line.find(", blkref #") {
        Some(i) => format!("{}{}", line[..i].trim_end(), &line[i..]),
        None => line.trim_end().to_string(),
    }
}

/// pg_waldump's line rebuilt from a JSON record: every field compared.
fn json_as_line(r: &Value) -> String {
    let pad8 = |lsn: &str| {
        let (hi, lo) = lsn.split_once('/').unwrap();
        format!("{hi}/{lo:0>8}")
    };
    let mut line = format!(
        "rmgr: {:<11} len (rec/tot): {:>6}/{:>6}, tx: {:>10}, lsn: {}, prev {}, desc: {}",
        r["rmgr"].as_str().unwrap(),
        r["len"].as_u64().unwrap(),
        r["tot_len"].as_u64().unwrap(),
        r["xid"].as_u64().unwrap(),
        pad8(r["lsn"].as_str().unwrap()),
        pad8(r["prev"].as_str().unwrap()),
        r["desc"].as_str().unwrap()
    );
    for b in r["blocks"].as_array().unwrap() {
        line.push_str(&format!(
            ", blkref #{}: rel {}",
            b["id"],
            b["rel"].as_str().unwrap()
        ));
        if b["fork"] != "main" {
            line.push_str(&format!(" fork {}", b["fork"].as_str().unwrap()));
        }
        line.push_str(&format!(" blk {}", b["blk"]));
        if b["fpi"] == true {
            line.push_str(" FPW");
        }
    }
    line
}

#[test]
fn listing_and_json_match_pg_waldump() {
    judge(&fixture("postgres/wal"));
}

#[test]
fn live_wal_of_16mb_segments_matches_pg_waldump() {
    let Some(dir) = std::env::var_os("BLOCKSCOPE_PG_WAL_FIXTURES") else {
        return;
    };
    judge(Path::new(&dir));
}

/// The lines of pg_waldump's listing that pass `keep`.
fn expected_where(keep: impl Fn(&str) -> bool) -> String {
    let all = waldump(&fixture("postgres/wal"));
    all.lines()
        .filter(|l| keep(l))
        .map(|l| format!("{l}\n"))
        .collect()
}

fn lsn_of(line: &str) -> u64 {
    let at = line.find("lsn: ").unwrap() + 5;
    let text = &line[at..at + 10];
    let (hi, lo) = text.split_once('/').unwrap();
    (u64::from_str_radix(hi, 16).unwrap() << 32) | u64::from_str_radix(lo, 16).unwrap()
}

#[test]
fn filters_select_what_pg_waldump_would() {
    let d = datadir();
    let rel = relation(&fixture("postgres/wal"));
    let with_rel = expected_where(|l| l.contains(&format!("rel {rel} ")));
    assert!(!with_rel.is_empty());
    assert_eq!(run(&["wal", s(&d), "--relation", &rel]).stdout, with_rel);
    // --table finds the same relation through the catalogs.
    assert_eq!(run(&["wal", s(&d), "--table", "public.t"]).stdout, with_rel);
    // Block 1 of any fork of the relation, as pg_waldump's -R/-B without -F.
    let blk1 = expected_where(|l| {
        l.split(", blkref #").skip(1).any(|r| {
            let words: Vec<&str> = r.split(' ').collect();
            let blk = words.iter().position(|w| *w == "blk").map(|i| words[i + 1]);
            words.get(2) == Some(&rel.as_str()) && blk == Some("1")
        })
    });
    assert!(!blk1.is_empty());
    assert_eq!(
        run(&["wal", s(&d), "--relation", &rel, "--block", "1"]).stdout,
        blk1
    );
    let heap2 = expected_where(|l| l.starts_with("rmgr: Heap2 ") || l.starts_with("rmgr: Btree "));
    assert_eq!(run(&["wal", s(&d), "--rmgr", "heap2,Btree"]).stdout, heap2);
    let (lo, hi) = (0x0090_0000u64, 0x0090_4000u64);
    let range = expected_where(|l| (lo..hi).contains(&lsn_of(l)));
    assert!(!range.is_empty());
    assert_eq!(
        run(&["wal", s(&d), "--start", "0/900000", "--end", "0/904000"]).stdout,
        range
    );
    let xid = expected_where(|l| l.contains("tx:        731,"));
    assert!(!xid.is_empty());
    assert_eq!(run(&["wal", s(&d), "--xid", "731"]).stdout, xid);
    let r = run(&["wal", s(&d), "--rmgr", "nosuch"]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["--rmgr \"nosuch\": not a resource manager"]);
}

/// A copy of the fixture's pg_wal to damage.
fn wal_copy(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("blockscope-wal-{what}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    for e in fs::read_dir(datadir().join("pg_wal")).unwrap() {
        let e = e.unwrap();
        fs::copy(e.path(), dir.join(e.file_name())).unwrap();
    }
    dir
}

const SEG8: &str = "000000010000000000000008";
const SEG9: &str = "000000010000000000000009";

/// Damage reported with `needles`, exit 1; every record listed is one of
/// pg_waldump's, and every record of pg_waldump's outside `lost` (LSNs) is
/// listed.
fn damaged(dir: &Path, needles: &[&str], lost: std::ops::Range<u64>) {
    let r = run(&["wal", s(dir)]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    r.assert_stderr_has(needles);
    assert!(!r.stderr.contains("panicked"));
    let all = waldump(&fixture("postgres/wal"));
    let real: HashSet<&str> = all.lines().collect();
    let listed: HashSet<&str> = r.stdout.lines().collect();
    for l in &listed {
        assert!(real.contains(l), "invented record: {l}");
    }
    for l in all.lines() {
        if !lost.contains(&lsn_of(l)) {
            assert!(listed.contains(l), "lost record outside the damage: {l}");
        }
    }
    // JSON names the problem too.
    let r = run(&["wal", s(dir), "-f", "json"]);
    assert_eq!(r.code, 1);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(!doc["problems"].as_array().unwrap().is_empty());
    let _ = fs::remove_dir_all(dir);
}

#[test]
fn a_flipped_byte_fails_the_crc_and_reading_resumes() {
    let dir = wal_copy("flip");
    let path = dir.join(SEG9);
    let mut bytes = fs::read(&path).unwrap();
    // A byte in the full-page image of the record at 0/900028 (1516
    // bytes): only that record is lost, the next one (its xl_prev naming
    // the bad record) is read.
    bytes[0x100] ^= 0x40;
    fs::write(&path, &bytes).unwrap();
    damaged(
        &dir,
        &["record at 0/900028: CRC-32C mismatch", SEG9],
        0x0090_0028..0x0090_0029,
    );
}

#[test]
fn a_zeroed_page_is_named_and_skipped() {
    let dir = wal_copy("zero");
    let path = dir.join(SEG8);
    let mut bytes = fs::read(&path).unwrap();
    bytes[0x6000..0x8000].fill(0);
    fs::write(&path, &bytes).unwrap();
    let page = 0x0080_6000u64;
    damaged(
        &dir,
        &["page is all zero", "reading resumes at"],
        page - 0x2000..page + 0x4000,
    );
}

#[test]
fn a_truncated_segment_is_named() {
    let dir = wal_copy("trunc");
    let path = dir.join(SEG8);
    let bytes = fs::read(&path).unwrap();
    fs::write(&path, &bytes[..0x50000]).unwrap();
    damaged(
        &dir,
        &["truncated", SEG8],
        0x0085_0000 - 0x2000..0x0090_2000,
    );
}

#[test]
fn a_missing_segment_is_named() {
    let dir = wal_copy("missing");
    fs::remove_file(dir.join(SEG9)).unwrap();
    damaged(
        &dir,
        &["1 segment is missing before", SEG9],
        0x0080_0000 + 0xF_0000..0x00A0_0000,
    );
}

/// Bytes changed all over the WAL: never a panic, exit 0 or 1.
#[test]
fn damage_anywhere_never_crashes() {
    let dir = wal_copy("fuzz");
    let path = dir.join(SEG8);
    let clean = fs::read(&path).unwrap();
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    for round in 0..12 {
        let mut bytes = clean.clone();
        common::scramble(&mut bytes, &mut seed, 1 << (round % 6));
        fs::write(&path, &bytes).unwrap();
        let r = run(&["wal", s(&dir), "-f", "ndjson"]);
        assert!(r.code == 0 || r.code == 1, "round {round}: {}", r.stderr);
        for l in r.stdout.lines() {
            serde_json::from_str::<Value>(l).unwrap();
        }
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn no_wal_is_a_usage_error() {
    let r = run(&["wal", "fixtures/postgres/wal/datadir/global"]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["no WAL segment"]);
}
