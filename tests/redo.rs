//! `blockscope wal --rebuild` judged as PostgreSQL judges its own redo
//! (`wal_consistency_checking`): fixtures/postgres/walheap/make.sh ran a
//! real PostgreSQL 15 (checksums on, full_page_writes on, wal_compression
//! pglz) through inserts with TOASTed values, HOT and non-HOT updates,
//! deletes, VACUUM (FREEZE), inserts into freed space, COPY, row locks, a
//! plain VACUUM and checkpoints, and saved its WAL and the table's and the
//! TOAST table's real pages at two checkpoints. Every block of both,
//! rebuilt from the WAL, must equal the real page under `heap_mask`
//! (bufmask.c), and have the same page LSN: at the end of the WAL, and with
//! `--upto` the earlier checkpoint.
//!
//! `BLOCKSCOPE_PG_WALHEAP_FIXTURES=DIR` (after
//! `fixtures/postgres/walheap/make.sh DIR`) runs the comparison on a fresh
//! cluster's output.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::postgres::heap_mask;
use common::{fixture, run, Run};

const BLCKSZ: usize = 8192;

fn dir() -> PathBuf {
    std::env::var_os("BLOCKSCOPE_PG_WALHEAP_FIXTURES")
        .map(PathBuf::from)
        .unwrap_or_else(|| fixture("postgres/walheap"))
}

fn text(dir: &Path, name: &str) -> String {
    fs::read_to_string(dir.join(name))
        .unwrap()
        .trim()
        .to_string()
}

fn temp(what: &str) -> PathBuf {
    let p = std::env::temp_dir().join(format!("blockscope-redo-{what}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&p);
    fs::create_dir_all(&p).unwrap();
    p
}

fn page_lsn(p: &[u8]) -> u64 {
    (u64::from(u32::from_le_bytes(p[0..4].try_into().unwrap())) << 32)
        | u64::from(u32::from_le_bytes(p[4..8].try_into().unwrap()))
}

fn rebuild(dir: &Path, rel: &str, blk: u32, upto: Option<&str>, out: &Path) -> Run {
    rebuild_with(dir, rel, blk, upto, out, &[])
}

/// [`rebuild`] with more arguments (`--fork vm`).
fn rebuild_with(
    dir: &Path,
    rel: &str,
    blk: u32,
    upto: Option<&str>,
    out: &Path,
    more: &[&str],
) -> Run {
    let datadir = dir.join("datadir");
    let blk = blk.to_string();
    let mut args = vec![
        "wal",
        datadir.to_str().unwrap(),
        "--relation",
        rel,
        "--block",
        &blk,
        "--rebuild",
        "--output",
        out.to_str().unwrap(),
    ];
    if let Some(u) = upto {
        args.extend(["--upto", u]);
    }
    args.extend_from_slice(more);
    run(&args)
}

/// A whole page was written, with a page LSN.
fn assert_page_written(page: &Path) {
    let p = fs::read(page).unwrap();
    assert_eq!(p.len(), BLCKSZ);
    assert_ne!(page_lsn(&p), 0);
}

/// Every block of the table and its TOAST table as saved in `which`
/// (early/ or end/), rebuilt up to `upto`, against the real pages. The
/// number of blocks compared.
fn judge(which: &str, upto: Option<&str>) -> usize {
    let dir = dir();
    let tmp = temp(which);
    let mut blocks = 0;
    for (file, rel) in [
        ("table", text(&dir, "relation.txt")),
        ("toast", text(&dir, "toast.txt")),
    ] {
        let real = fs::read(dir.join(which).join(file)).unwrap();
        assert!(
            !real.is_empty() && real.len().is_multiple_of(BLCKSZ),
            "{which}/{file}"
        );
        for (blk, want) in real.chunks(BLCKSZ).enumerate() {
            let out = tmp.join(format!("{file}.{blk}"));
            let r = rebuild(&dir, &rel, blk as u32, upto, &out);
            assert_eq!(r.code, 0, "{which}/{file} block {blk}: {}", r.stderr);
            let got = fs::read(&out).unwrap();
            assert_eq!(got.len(), BLCKSZ);
            assert_eq!(
                page_lsn(&got),
                page_lsn(want),
                "{which}/{file} block {blk}: page LSN"
            );
            let (mut g, mut w) = (got.clone(), want.to_vec());
            heap_mask(&mut g, blk as u32);
            heap_mask(&mut w, blk as u32);
            let diff: Vec<usize> = (0..BLCKSZ).filter(|&i| g[i] != w[i]).collect();
            assert!(
                diff.is_empty(),
                "{which}/{file} block {blk}: {} bytes differ under heap_mask, first at {:?}",
                diff.len(),
                &diff[..diff.len().min(16)]
            );
            blocks += 1;
        }
    }
    let _ = fs::remove_dir_all(&tmp);
    blocks
}

#[test]
fn every_block_at_the_end_of_the_wal_equals_the_real_page() {
    let n = judge("end", None);
    assert!(n >= 10, "{n} blocks");
    eprintln!("end of the WAL: {n} blocks equal under heap_mask, page LSN kept");
}

#[test]
fn every_block_at_the_earlier_checkpoint_equals_the_real_page() {
    let dir = dir();
    let upto = text(&dir.join("early"), "lsn.txt");
    let n = judge("early", Some(&upto));
    assert!(n >= 10, "{n} blocks");
    eprintln!("checkpoint {upto}: {n} blocks equal under heap_mask, page LSN kept");
}

#[test]
fn history_lists_versions_writes_them_and_diff_compares_two() {
    let dir = dir();
    let rel = text(&dir, "relation.txt");
    let datadir = dir.join("datadir");
    let out = temp("history");
    let versions = out.join("v");
    let r = run(&[
        "wal",
        datadir.to_str().unwrap(),
        "--relation",
        &rel,
        "--block",
        "0",
        "--history",
        "--output-dir",
        versions.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines: Vec<&str> = r.stdout.lines().collect();
    assert!(lines[0].contains("Heap/INSERT+INIT") && lines[0].contains("page initialised"));
    assert!(lines[0].contains("lp 1 added"), "{}", lines[0]);
    for kind in [
        "Heap/DELETE",
        "Heap2/PRUNE",
        "Heap2/VACUUM",
        "Heap2/FREEZE_PAGE",
        "Heap2/VISIBLE",
    ] {
        assert!(r.stdout.contains(kind), "no {kind} in\n{}", r.stdout);
    }
    assert!(r.stdout.contains(" dead"), "prune marks line pointers dead");
    assert!(r.stdout.contains(" unused"), "vacuum sets them unused");
    // One file per version, named after its page LSN; the last one is the
    // block at the end of the WAL.
    let mut files: Vec<PathBuf> = fs::read_dir(&versions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert_eq!(files.len(), lines.len());
    let last = fs::read(files.last().unwrap()).unwrap();
    let end = fs::read(dir.join("end/table")).unwrap();
    assert_eq!(page_lsn(&last), page_lsn(&end[..BLCKSZ]));
    // diff compares any two versions.
    let d = run(&[
        "diff",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
    ]);
    assert!(d.stdout.contains("lp 2  added"), "{}", d.stdout);
    // JSON: one document, the same versions.
    let j = run(&[
        "wal",
        datadir.to_str().unwrap(),
        "--relation",
        &rel,
        "--block",
        "0",
        "--history",
        "-f",
        "json",
    ]);
    let doc: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    let v = doc["versions"].as_array().unwrap();
    assert_eq!(v.len(), lines.len());
    assert_eq!(v[0]["rmgr"], "Heap");
    assert_eq!(v[0]["record"], "INSERT+INIT");
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn an_index_block_is_replayed_by_btree_redo() {
    let dir = dir();
    let rel = text(&dir, "relation.txt");
    // The primary key's file follows the table's, its TOAST table's and
    // the TOAST index's (relation + 5).
    let (head, node) = rel.rsplit_once('/').unwrap();
    let index = format!("{head}/{}", node.parse::<u32>().unwrap() + 5);
    let out = temp("index");
    let page = out.join("p");
    let r = rebuild(&dir, &index, 1, None, &page);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_page_written(&page);
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn a_visibility_map_block_stops_at_the_last_good_version_and_says_why() {
    let dir = dir();
    let rel = text(&dir, "relation.txt");
    let out = temp("vm");
    let page = out.join("p");
    let r = rebuild_with(&dir, &rel, 0, None, &page, &["--fork", "vm"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr_has(&[
        "(vm fork)",
        "Heap2/VISIBLE: cannot replay",
        "stopped at the version of",
    ]);
    // The last good version (a full-page image) is written.
    assert_page_written(&page);
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn output_inside_an_input_is_refused_and_nothing_is_written() {
    let dir = dir();
    let rel = text(&dir, "relation.txt");
    let target = dir.join("datadir").join("rebuilt.page");
    let r = rebuild(&dir, &rel, 0, None, &target);
    assert_eq!(r.code, 2, "{}", r.stderr);
    r.assert_stderr_has(&["inside the input"]);
    assert!(!target.exists());
}

#[test]
fn before_the_block_existed_there_is_nothing_to_write() {
    let dir = dir();
    let rel = text(&dir, "relation.txt");
    let out = temp("before");
    let page = out.join("p");
    // The first record of the WAL: the table did not exist yet.
    let r = rebuild(&dir, &rel, 0, Some("0/800100"), &page);
    assert_eq!(r.code, 1, "{}", r.stderr);
    r.assert_stderr_has(&["no full-page image or initialisation"]);
    assert!(!page.exists());
    let _ = fs::remove_dir_all(&out);
}

#[test]
fn table_names_the_relation_from_the_catalogs() {
    // The WAL fixture keeps the catalogs --table reads.
    let datadir = fixture("postgres/wal/datadir");
    let out = temp("table");
    let page = out.join("p");
    let r = run(&[
        "wal",
        datadir.to_str().unwrap(),
        "--table",
        "public.t",
        "--block",
        "0",
        "--rebuild",
        "--output",
        page.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(fs::read(&page).unwrap().len(), BLCKSZ);
    let _ = fs::remove_dir_all(&out);
}
