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
    run(&args)
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
