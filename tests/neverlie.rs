//! Salvage, and never lie: catalogs read under the same MVCC rules as a
//! table's rows, crashed clusters checked rather than excused, and a
//! running cluster named as running.
//!
//! The fixtures in fixtures/postgres/neverlie/ come from one real
//! PostgreSQL 15 cluster (see make.sh and the README there):
//!
//! * `mvcc/`: `ALTER TABLE … DROP COLUMN`, `RENAME` and `TRUNCATE` rolled
//!   back, their catalog rows left without hint bits (only pg_xact says the
//!   transactions aborted), and data checksums turned off with
//!   `pg_checksums --disable` before catalog pages (and public.later's page)
//!   were rewritten, so those keep stale checksums. The rows are judged
//!   against what `COPY` wrote (`public.TABLE.copy`).
//! * `crash/`: a table whose pages were written after the last checkpoint,
//!   and a cluster stopped with `pg_ctl stop -m immediate` (pg_control: "in
//!   production"). The tests flip bits in copies.
//! * `running.pg_control`: the pg_control of the running server.

mod common;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

const BLCKSZ: usize = 8192;
/// public.crashed's file in crash/ (crash/tables.txt).
const CRASHED: &str = "base/5/16384";
const CRASHED_COLUMNS: &str = "a int4, b text";

/// A copy of a fixture directory under the temp dir, removed when dropped.
struct Copy(PathBuf);

impl Copy {
    fn of(fixture: &str, name: &str) -> Copy {
        let dir =
            std::env::temp_dir().join(format!("blockscope-neverlie-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        common::copy_tree(&common::fixture(fixture), &dir);
        Copy(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }

    fn file(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// Change the bytes of `rel` with `f`.
    fn edit(&self, rel: &str, f: impl FnOnce(&mut Vec<u8>)) {
        let path = self.file(rel);
        let mut bytes = std::fs::read(&path).unwrap();
        f(&mut bytes);
        std::fs::write(&path, bytes).unwrap();
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Lines sorted: COPY wrote `ORDER BY a`, export writes heap order.
fn sorted(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines
}

fn saved_copy(table: &str) -> String {
    String::from_utf8(common::fixture_bytes(&format!(
        "postgres/neverlie/{table}.copy"
    )))
    .unwrap()
}

fn export_table(datadir: &str, table: &str) -> common::Run {
    common::run(&["export", datadir, "--table", table, "--format", "copy"])
}

// --- 5. Catalogs under MVCC ---------------------------------------------------

#[test]
fn rolled_back_ddl_leaves_each_table_as_the_server_shows_it() {
    let datadir = common::fixture("postgres/neverlie/mvcc");
    let datadir = datadir.to_str().unwrap();
    for table in [
        "public.dropped",
        "public.renamed",
        "public.truncated",
        "public.later",
    ] {
        let run = export_table(datadir, table);
        assert_eq!(run.code, 0, "{table}: {}", run.stderr);
        let want = saved_copy(table);
        assert_eq!(sorted(&run.stdout), sorted(&want), "{table}");
        // Nothing guessed, nothing skipped, no two live versions.
        assert!(
            !run.stderr.contains("warning")
                && !run.stderr.contains("skipped")
                && !run.stderr.contains("live versions")
                && !run.stderr.contains("hint bits"),
            "{table}: {}",
            run.stderr
        );
    }
    // public.dropped kept its column c (the DROP COLUMN aborted).
    let run = export_table(datadir, "public.dropped");
    assert_eq!(run.stdout.lines().next(), Some("1\trow 1\t10"));
    // The aborted name is no table's.
    let run = export_table(datadir, "public.renamed_aborted");
    assert_eq!(run.code, 2, "{}", run.stdout);
    assert!(run.stderr.contains("not in pg_class"), "{}", run.stderr);
}

#[test]
fn a_rolled_back_truncate_keeps_the_tables_pages_for_map() {
    let datadir = common::fixture("postgres/neverlie/mvcc");
    let run = common::run(&[
        "map",
        datadir.to_str().unwrap(),
        "--table",
        "public.truncated",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert!(
        run.stdout
            .starts_with("public.truncated: 7 blocks of 8192 bytes"),
        "{}",
        run.stdout
    );
    assert!(!run.stderr.contains("no pages"), "{}", run.stderr);
}

#[test]
fn the_fixture_has_stale_checksums_on_catalog_pages_and_verify_knows_they_are_off() {
    // What makes the test above about checksums: with checksums forced on,
    // pg_class, pg_attribute and public.later's page fail them (each file
    // named by its relation, read from the catalogs under MVCC).
    let datadir = common::fixture("postgres/neverlie/mvcc");
    let datadir = datadir.to_str().unwrap();
    let run = common::run(&["verify", "--checksums", "on", datadir]);
    assert_eq!(run.code, 1);
    for file in [
        "base/5/1259 (pg_catalog.pg_class, main fork): block 0",
        "base/5/1249 (pg_catalog.pg_attribute, main fork): block 56",
        "base/5/24576 (public.later, main fork): block 0",
    ] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.contains(file) && l.contains("checksum verification failed")),
            "{file}: {}",
            run.stdout
        );
    }
    // The rolled-back RENAME is not the name: the committed one is.
    assert!(run.stdout.contains("(public.renamed, main fork): block 0"));
    assert!(!run.stdout.contains("renamed_aborted"));
    let run = common::run(&["verify", datadir]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("data_checksum_version 0"));
}

#[test]
fn with_data_checksums_on_the_same_stale_pages_are_errors() {
    // The same files under a pg_control that says checksums are on (the
    // crash fixture's, same cluster): the stale catalog page is damage again.
    let copy = Copy::of("postgres/neverlie/mvcc", "checksums-on");
    std::fs::copy(
        common::fixture("postgres/neverlie/crash/global/pg_control"),
        copy.file("global/pg_control"),
    )
    .unwrap();
    let run = export_table(copy.path(), "public.dropped");
    assert_ne!(run.code, 0);
    assert!(
        run.stderr.contains("pg_class block 0: checksum mismatch"),
        "{}",
        run.stderr
    );
}

#[test]
fn catalog_rows_pg_xact_cannot_decide_are_named_as_guessed() {
    // pg_xact there but empty: the rows without hint bits are decided by
    // the fallback rule, and a note says so (rolled-back DDL included).
    let copy = Copy::of("postgres/neverlie/mvcc", "empty-pg-xact");
    std::fs::write(copy.file("pg_xact/0000"), b"").unwrap();
    let run = export_table(copy.path(), "public.later");
    run.assert_stderr_has(&[
        "pg_class: ",
        "row versions with unset hint bits whose transactions pg_xact does not cover: an \
         insert taken as committed",
    ]);
}

// --- 6. Crashed clusters are checked, not excused -----------------------------

/// Flip one bit in the tuple data of `blkno`, and with `forge` set its
/// pd_lsn to FFFFFFFF/FFFFFFFF too.
fn damage(copy: &Copy, blkno: usize, forge: bool) {
    copy.edit(CRASHED, |bytes| {
        let at = blkno * BLCKSZ;
        bytes[at + 4000] ^= 0x10;
        if forge {
            bytes[at..at + 8].fill(0xFF);
        }
    });
}

fn checksum_blocks(stdout: &str) -> Vec<u64> {
    let doc: serde_json::Value = serde_json::from_str(stdout).unwrap();
    doc["problems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["class"] == "checksum")
        .map(|p| p["blkno"].as_u64().unwrap())
        .collect()
}

#[test]
fn a_crashed_cluster_is_clean_when_nothing_is_damaged() {
    let copy = Copy::of("postgres/neverlie/crash", "crash-clean");
    let run = common::run(&["verify", copy.path()]);
    assert_eq!(run.code, 0, "{}", run.stdout);
    assert!(run.stdout.contains("pg_control:        in production"));
    assert!(run.stdout.contains("Changed during the run: 0"));
}

#[test]
fn a_flipped_bit_in_a_page_newer_than_the_checkpoint_of_a_crashed_cluster_is_found() {
    let copy = Copy::of("postgres/neverlie/crash", "crash-flip");
    damage(&copy, 5, false);
    damage(&copy, 10, true);
    // The data directory, as the file alone.
    let file = copy.file(CRASHED);
    for input in [copy.path(), file.to_str().unwrap()] {
        let run = common::run(&["verify", "--format", "json", input]);
        assert_eq!(run.code, 1, "{input}: {}", run.stdout);
        assert_eq!(checksum_blocks(&run.stdout), vec![5, 10], "{input}");
        let doc: serde_json::Value = serde_json::from_str(&run.stdout).unwrap();
        assert!(doc["summary"].get("changed_during_run").is_none(), "{doc}");
    }
    let run = common::run(&["verify", copy.path()]);
    assert!(run.stdout.contains("Result:            PROBLEMS FOUND"));
}

// --- 7. A running cluster is said to be running ---------------------------

/// A process that works in `dir` as a postmaster does (it changes into its
/// data directory), killed when dropped.
struct Postmaster(Child);

impl Postmaster {
    fn in_dir(dir: &Path) -> Postmaster {
        let child = Command::new("sleep")
            .arg("120")
            .current_dir(dir)
            .stdin(Stdio::null())
            .spawn()
            .expect("start sleep");
        std::fs::write(
            dir.join("postmaster.pid"),
            format!("{}\n{}\n", child.id(), dir.display()),
        )
        .unwrap();
        Postmaster(child)
    }
}

impl Drop for Postmaster {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

const RUNNING: &str = "the cluster is running (postmaster.pid: pid";
const NOT_SHUT_DOWN: &str =
    "the cluster was not shut down cleanly (pg_control: in production, no server running)";

#[test]
fn export_from_a_running_cluster_says_it_is_running() {
    let copy = Copy::of("postgres/neverlie/mvcc", "running");
    std::fs::copy(
        common::fixture("postgres/neverlie/running.pg_control"),
        copy.file("global/pg_control"),
    )
    .unwrap();
    let server = Postmaster::in_dir(&copy.0);
    let pid = server.0.id();
    // By the catalogs, and from the relation file.
    let by_name = export_table(copy.path(), "public.dropped");
    let file = copy.file("base/5/24581");
    let by_file = common::run(&[
        "export",
        file.to_str().unwrap(),
        "--columns",
        "a int4, b text, c int4",
        "--format",
        "copy",
    ]);
    for run in [&by_name, &by_file] {
        // The rows are written; the status stays 0 (nothing was skipped).
        assert_eq!(run.code, 0, "{}", run.stderr);
        assert_eq!(sorted(&run.stdout), sorted(&saved_copy("public.dropped")));
        run.assert_stderr_has(&[
            &format!("{RUNNING} {pid})"),
            "rows may be missing or repeated",
        ]);
    }
    drop(server);
    // The server gone without a clean shutdown (its pg_control still says
    // in production): another note.
    let run = export_table(copy.path(), "public.dropped");
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.assert_stderr_has(&[NOT_SHUT_DOWN]);
    assert!(!run.stderr.contains(RUNNING), "{}", run.stderr);
}

#[test]
fn a_stale_postmaster_pid_of_another_process_is_not_a_running_server() {
    // A crash leaves postmaster.pid; its pid may now be another program's
    // (here this test's, which does not work in the data directory).
    let copy = Copy::of("postgres/neverlie/crash", "stale-pid");
    std::fs::write(
        copy.file("postmaster.pid"),
        format!("{}\n{}\n", std::process::id(), copy.path()),
    )
    .unwrap();
    let file = copy.file(CRASHED);
    let run = common::run(&[
        "export",
        file.to_str().unwrap(),
        "--columns",
        CRASHED_COLUMNS,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.assert_stderr_has(&[NOT_SHUT_DOWN]);
    assert!(!run.stderr.contains(RUNNING), "{}", run.stderr);
}

#[test]
fn a_cleanly_stopped_cluster_gets_no_note() {
    let datadir = common::fixture("postgres/neverlie/mvcc");
    let run = export_table(datadir.to_str().unwrap(), "public.renamed");
    assert_eq!(run.code, 0);
    assert!(
        !run.stderr.contains("running") && !run.stderr.contains("shut down"),
        "{}",
        run.stderr
    );
}
