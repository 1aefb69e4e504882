//! `verify`'s lost-write check against a real PostgreSQL 15 cluster
//! (fixtures/postgres/lostwrite/make.sh): no lost write on the cluster as it
//! stopped; with a relation file replaced by its copy from before later
//! changes, exactly the blocks those changes touched (the server's ctids,
//! and the blocks whose bytes differ); a table VACUUM truncated, one
//! TRUNCATEd and one dropped after the copy give no false alarm.
//!
//! `BLOCKSCOPE_PG_LOSTWRITE_FIXTURES=DIR` runs the same tests on a fixture
//! made afresh (`make.sh DIR`), as `.ci/run` does.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

fn fixture_dir() -> PathBuf {
    match std::env::var_os("BLOCKSCOPE_PG_LOSTWRITE_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => common::fixture("postgres/lostwrite"),
    }
}

/// `relations.txt`: t, t_pkey, t2, t3 as `base/DB/RELFILENODE`.
fn relations() -> Vec<String> {
    fs::read_to_string(fixture_dir().join("relations.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// A copy of the fixture's data directory, in a fresh temporary directory.
fn datadir_copy(what: &str) -> PathBuf {
    let root = std::env::temp_dir().join(format!(
        "blockscope-lostwrite-{what}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&root);
    common::copy_tree(&fixture_dir().join("datadir"), &root);
    root
}

fn verify_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["verify", "--format", "json"];
    all.extend_from_slice(args);
    let r = common::run(&all);
    let doc: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}\n{}", r.stdout, r.stderr));
    (r.code, doc)
}

fn lost_blocks(doc: &Value) -> Vec<(String, u64)> {
    doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "lost-write")
        .map(|p| {
            let file = p["file"].as_str().unwrap();
            let name = Path::new(file).file_name().unwrap().to_str().unwrap();
            (name.to_string(), p["blkno"].as_u64().unwrap())
        })
        .collect()
}

/// Block numbers whose 8 kB differ between two files, over `b`'s length.
fn differing_blocks(a: &Path, b: &Path) -> Vec<u64> {
    let (a, b) = (fs::read(a).unwrap(), fs::read(b).unwrap());
    (0..b.len() / 8192)
        .filter(|&n| a.get(n * 8192..(n + 1) * 8192) != b.get(n * 8192..(n + 1) * 8192))
        .map(|n| n as u64)
        .collect()
}

fn rel_name(rel: &str) -> String {
    rel.rsplit('/').next().unwrap().to_string()
}

#[test]
fn the_cluster_as_it_stopped_has_no_lost_write() {
    let dir = fixture_dir().join("datadir");
    let (code, doc) = verify_json(&[dir.to_str().unwrap()]);
    assert_eq!(code, 0, "{doc:#}");
    assert!(lost_blocks(&doc).is_empty(), "{doc:#}");
    let w = &doc["summary"]["wal"][0];
    assert_eq!(w["lost_writes"], 0);
    // t's updated pages, t2's vacuumed ones and t3's new file at least.
    assert!(w["blocks_checked"].as_u64().unwrap() >= 5, "{w}");
    // The blocks of t2 past its truncation, of t3's file before TRUNCATE
    // and of the dropped t4 are no lost writes; t4's and the catalogs'
    // files are not in the fixture.
    assert!(w["blocks_without_file"].as_u64().unwrap() > 0, "{w}");
    assert_eq!(w["blocks_without_verdict"], 0);
    assert_eq!(w["wal_problems"], 0);
    assert!(w["records"].as_u64().unwrap() > 100);
    assert_eq!(doc["schema"], 7);
}

#[test]
fn a_stale_copy_of_a_table_is_caught_block_by_block() {
    let root = datadir_copy("stale");
    let t = &relations()[0];
    fs::copy(fixture_dir().join("stale").join(t), root.join(t)).unwrap();
    let (code, doc) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1);
    let expected: Vec<u64> = fs::read_to_string(fixture_dir().join("changed-blocks.txt"))
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect();
    assert!(!expected.is_empty());
    assert_eq!(
        differing_blocks(
            &fixture_dir().join("stale").join(t),
            &fixture_dir().join("datadir").join(t)
        ),
        expected,
        "the fixture's judge"
    );
    let lost = lost_blocks(&doc);
    let want: Vec<(String, u64)> = expected.iter().map(|&b| (rel_name(t), b)).collect();
    assert_eq!(lost, want, "{doc:#}");
    for p in doc["problems"].as_array().unwrap() {
        let w = &p["wal"];
        let lsn = |v: &Value| {
            let (hi, lo) = v.as_str().unwrap().split_once('/').unwrap();
            u64::from_str_radix(hi, 16).unwrap() << 32 | u64::from_str_radix(lo, 16).unwrap()
        };
        assert!(lsn(&w["page_lsn"]) < lsn(&w["record_end"]), "{p}");
        assert!(lsn(&w["record_lsn"]) < lsn(&w["checkpoint_redo"]), "{p}");
        assert!(!w["rmgr"].as_str().unwrap().is_empty());
        assert!(!w["desc"].as_str().unwrap().is_empty());
        assert_eq!(p["severity"], "error");
        assert_eq!(p["field"], "pd_lsn");
    }
    let summary = &doc["summary"];
    assert_eq!(summary["wal"][0]["lost_writes"], expected.len());
    assert_eq!(summary["problems_by_class"]["lost-write"], expected.len());
    assert_eq!(summary["clean"], false);

    // Text: one line a block, and the summary's count.
    let r = common::run(&["verify", root.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    let lines: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.contains("[lost-write]"))
        .collect();
    assert_eq!(lines.len(), expected.len(), "{}", r.stdout);
    assert!(lines[0].contains("WAL record"), "{}", lines[0]);
    assert!(
        r.stdout.contains(&format!(
            "lost write{}",
            if expected.len() == 1 { "" } else { "s" }
        )),
        "{}",
        r.stdout
    );

    // The file alone, with --wal: the same blocks.
    let file = root.join(t);
    let wal = root.join("pg_wal");
    let (code, doc) = verify_json(&[file.to_str().unwrap(), "--wal", wal.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert_eq!(lost_blocks(&doc), want);
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_table_vacuum_truncated_after_the_copy_is_judged_only_where_it_still_is() {
    let root = datadir_copy("truncated");
    let t2 = &relations()[2];
    let now = root.join(t2);
    let expected = differing_blocks(&fixture_dir().join("stale").join(t2), &now);
    let old_len = fs::metadata(fixture_dir().join("stale").join(t2))
        .unwrap()
        .len();
    assert!(
        old_len > fs::metadata(&now).unwrap().len(),
        "t2 was truncated"
    );
    // The real file: its blocks past the truncation are not lost writes.
    let (code, doc) = verify_json(&[
        now.to_str().unwrap(),
        "--wal",
        root.join("pg_wal").to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{doc:#}");
    // The old copy, longer: the blocks VACUUM changed and kept are named,
    // none of the blocks the truncation removed.
    fs::copy(fixture_dir().join("stale").join(t2), &now).unwrap();
    let (code, doc) = verify_json(&[root.to_str().unwrap()]);
    assert_eq!(code, 1);
    let want: Vec<(String, u64)> = expected.iter().map(|&b| (rel_name(t2), b)).collect();
    assert!(!want.is_empty());
    assert_eq!(lost_blocks(&doc), want, "{doc:#}");
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn without_wal_nothing_changes() {
    let root = datadir_copy("nowal");
    let t = &relations()[0];
    fs::copy(fixture_dir().join("stale").join(t), root.join(t)).unwrap();
    let with = common::run(&["verify", root.to_str().unwrap()]);
    let off = common::run(&["verify", "--no-wal", root.to_str().unwrap()]);
    assert_eq!(off.code, 0, "{}", off.stdout);
    assert!(!off.stdout.contains("WAL"), "{}", off.stdout);
    assert!(with.stdout.contains("Blocks vs WAL:"));
    // No segment in pg_wal: the same output as --no-wal.
    for e in fs::read_dir(root.join("pg_wal")).unwrap() {
        fs::remove_file(e.unwrap().path()).unwrap();
    }
    let empty = common::run(&["verify", root.to_str().unwrap()]);
    assert_eq!(empty.stdout, off.stdout);
    assert_eq!(empty.code, 0);
    let (_, doc) = verify_json(&[root.to_str().unwrap()]);
    assert!(doc["summary"].get("wal").is_none(), "{doc:#}");
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn wal_given_for_standard_input_or_another_cluster_is_refused() {
    let dir = fixture_dir().join("datadir");
    let wal = dir.join("pg_wal");
    let r = common::run(&["verify", "--wal", wal.to_str().unwrap(), "-"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    r.assert_stderr_has(&["--wal"]);
    // The WAL fixture of another cluster.
    let other = common::fixture("postgres/wal/datadir/pg_wal");
    let r = common::run(&[
        "verify",
        dir.to_str().unwrap(),
        "--wal",
        other.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 2, "{}", r.stdout);
    r.assert_stderr_has(&["another cluster"]);
}

#[test]
fn the_stale_data_directory_with_the_cluster_wal_names_both_tables() {
    let rels = relations();
    let (t, t2) = (&rels[0], &rels[2]);
    let stale = fixture_dir().join("stale");
    let now = fixture_dir().join("datadir");
    let wal = now.join("pg_wal");
    let (code, doc) = verify_json(&[stale.to_str().unwrap(), "--wal", wal.to_str().unwrap()]);
    assert_eq!(code, 1);
    let mut want: Vec<(String, u64)> = Vec::new();
    for rel in [t, t2] {
        for b in differing_blocks(&stale.join(rel), &now.join(rel)) {
            want.push((rel_name(rel), b));
        }
    }
    want.sort();
    let mut lost = lost_blocks(&doc);
    lost.sort();
    assert_eq!(lost, want, "{doc:#}");
}
