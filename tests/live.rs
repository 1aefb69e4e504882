//! `blockscope verify` on a running cluster, as pg_basebackup verifies one:
//! a block that fails its checksum is read again, and one that still fails,
//! read differently the second time, and whose pd_lsn is newer than the
//! run's start LSN (the latest checkpoint's REDO location in pg_control) is
//! counted as changed during the run, not reported. A block read the same
//! twice did not change, whatever its pd_lsn says: a crashed cluster's
//! pg_control says "in production" too (the unit tests in
//! src/verify/postgres.rs give the re-read other bytes).
//!
//! No server is needed: the data directory is made at test time from the
//! `bitflip` fixture (block 2 fails its checksum) and the fixture
//! pg_control, its state set to in production and its CRC made right again.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use blockscope::postgres::{crc32c, parse_control_file};
use serde_json::Value;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres/corrupt")
}

/// The bit-flipped heap (block 2 fails its checksum).
const RELATION: &str = "16384";
/// The fixture pg_control's "Latest checkpoint's REDO location" (0/17B4738).
const REDO: u64 = 0x017B_4738;

fn tempdir(what: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "blockscope-live-test-{what}-{}",
        std::process::id()
    ));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// The fixture pg_control with DBState `state` and its CRC recomputed.
fn control(state: u32) -> Vec<u8> {
    let mut control = fs::read(fixtures().join("control/pg_control")).unwrap();
    control[16..20].copy_from_slice(&state.to_le_bytes());
    let float_at = control
        .windows(8)
        .position(|w| w == 1234567.0f64.to_le_bytes())
        .unwrap();
    let crc_at = float_at + 80;
    let crc = crc32c(&control[..crc_at]);
    control[crc_at..crc_at + 4].copy_from_slice(&crc.to_le_bytes());
    control
}

/// A data directory: `base/5/16384` is the bit-flipped heap with block 2's
/// pd_lsn set to `block2_lsn` (its checksum stays wrong), and `pg_control`.
fn data_directory(what: &str, control: &[u8], block2_lsn: u64) -> PathBuf {
    let root = tempdir(what);
    fs::create_dir_all(root.join("base/5")).unwrap();
    fs::create_dir_all(root.join("global")).unwrap();
    fs::write(root.join("PG_VERSION"), "15\n").unwrap();
    fs::write(root.join("global/pg_control"), control).unwrap();
    let mut heap = fs::read(fixtures().join("bitflip").join(RELATION)).unwrap();
    let at = 2 * 8192;
    // pd_lsn: xlogid (high half), then xrecoff (low half).
    heap[at..at + 4].copy_from_slice(&((block2_lsn >> 32) as u32).to_le_bytes());
    heap[at + 4..at + 8].copy_from_slice(&(block2_lsn as u32).to_le_bytes());
    fs::write(root.join("base/5").join(RELATION), heap).unwrap();
    root
}

struct Run {
    code: i32,
    stdout: String,
}

fn blockscope(args: &[&str]) -> Run {
    let out = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("run blockscope");
    Run {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
    }
}

/// `verify --format json DIR`: (exit status, summary, problems).
fn verify_json(dir: &Path) -> (i32, Value, Vec<Value>) {
    let run = blockscope(&["verify", "--format", "json", dir.to_str().unwrap()]);
    let doc: Value =
        serde_json::from_str(&run.stdout).unwrap_or_else(|e| panic!("{e}\nstdout: {}", run.stdout));
    let problems = doc["problems"].as_array().unwrap().clone();
    (run.code, doc["summary"].clone(), problems)
}

fn checksum_blocks(problems: &[Value]) -> Vec<u64> {
    problems
        .iter()
        .filter(|p| p["class"] == "checksum")
        .map(|p| p["blkno"].as_u64().unwrap())
        .collect()
}

#[test]
fn the_checkpoint_redo_location_is_read_as_pg_controldata_reads_it() {
    let dir = fixtures().join("control");
    let text = fs::read_to_string(dir.join("pg_controldata.txt")).unwrap();
    let c = parse_control_file(&fs::read(dir.join("pg_control")).unwrap()).unwrap();
    let shown = format!(
        "{:X}/{:X}",
        c.checkpoint_redo >> 32,
        c.checkpoint_redo as u32
    );
    assert!(
        text.lines().any(|l| l
            .strip_prefix("Latest checkpoint's REDO location:")
            .is_some_and(|v| v.trim() == shown)),
        "{shown}"
    );
    assert_eq!(c.checkpoint_redo, REDO);
    assert!(!c.running());
}

#[test]
fn a_failing_block_read_the_same_twice_is_reported_however_new_its_lsn() {
    // A damaged block of a crashed (or running) cluster with a forged pd_lsn
    // of FFFFFFFF/FFFFFFFF: nothing writes it, so it is not "changed".
    let root = data_directory("newer", &control(6), u64::MAX);
    let (code, summary, problems) = verify_json(&root);
    assert_eq!(code, 1, "{summary}");
    assert_eq!(checksum_blocks(&problems), vec![2]);
    assert_eq!(summary["cluster_running"], true);
    assert_eq!(summary["start_lsn"], "0/17B4738");
    assert!(summary.get("changed_during_run").is_none(), "{summary}");
    assert_eq!(summary["bad_checksums"], 1);
    assert_eq!(summary["bad_blocks"], 1);
    assert_eq!(summary["blocks"], 6);

    let run = blockscope(&["verify", root.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(
        run.stdout.contains("\nChanged during the run: 0\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("Cluster:           running (in production); start LSN 0/17B4738"),
        "{}",
        run.stdout
    );
    assert!(run.stdout.contains("Result:            PROBLEMS FOUND"));
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_failing_block_older_than_the_start_is_reported() {
    let root = data_directory("older", &control(6), 0x1);
    let (code, summary, problems) = verify_json(&root);
    assert_eq!(code, 1, "{summary}");
    assert_eq!(checksum_blocks(&problems), vec![2]);
    assert_eq!(summary["cluster_running"], true);
    assert_eq!(summary["bad_checksums"], 1);
    // Zero: left out of the JSON, as when the cluster is not running.
    assert!(summary.get("changed_during_run").is_none(), "{summary}");

    let run = blockscope(&["verify", root.to_str().unwrap()]);
    assert_eq!(run.code, 1);
    assert!(run.stdout.contains("\nChanged during the run: 0\n"));
    assert!(run.stdout.contains("Result:            PROBLEMS FOUND"));
    fs::remove_dir_all(root).unwrap();
}

#[test]
fn a_shut_down_cluster_reports_every_failing_block_whatever_its_lsn() {
    let root = data_directory("shutdown", &control(1), 0xFFFF_0000_0000_0000);
    let (code, summary, problems) = verify_json(&root);
    assert_eq!(code, 1);
    assert_eq!(checksum_blocks(&problems), vec![2]);
    for key in ["cluster_running", "start_lsn", "changed_during_run"] {
        assert!(summary.get(key).is_none(), "{key}: {summary}");
    }
    let run = blockscope(&["verify", root.to_str().unwrap()]);
    assert!(!run.stdout.contains("Changed during the run"));
    assert!(!run.stdout.contains("Cluster:"));
    fs::remove_dir_all(root).unwrap();
}
