//! `export --rows deleted --wal`: rows VACUUM removed, brought back from
//! the WAL. fixtures/postgres/vacrows/make.sh ran a real PostgreSQL 15
//! (checksums on, WAL archived, 1 MB segments): a table with TOASTed
//! values, inserted by INSERT and COPY, updated (HOT and not), a
//! checkpoint, more rows inserted and updated after it (in their records
//! only), the rows to be deleted saved with COPY (deleted.copy, the judge),
//! DELETE, VACUUM. The pages hold none of those rows any more; with the
//! WAL, export must print exactly the COPY-saved lines, TOASTed values
//! included. Damaged WAL is named and never crashes.
//!
//! `BLOCKSCOPE_PG_VACROWS_FIXTURES=DIR` (after `fixtures/postgres/vacrows/
//! make.sh DIR`) runs the same comparison on a fresh cluster's files.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use common::{fixture, run};

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// `export DIR --table t ARGS…`.
fn export_t(dir: &Path, args: &[&str]) -> common::Run {
    let mut all = vec!["export", s(dir), "--table", "t"];
    all.extend_from_slice(args);
    run(&all)
}

fn sorted(text: &str) -> String {
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// The deleted rows from the WAL equal the COPY-saved ones, line for line.
fn judge(dir: &Path) {
    let want = fs::read_to_string(dir.join("deleted.copy")).unwrap();
    let data = dir.join("datadir");
    // Without --wal the pages give none of them: VACUUM removed them.
    let r = export_t(&data, &["--rows", "deleted", "-f", "copy"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(r.stdout, "");
    // --wal alone: the data directory's pg_wal.
    let r = export_t(&data, &["--rows", "deleted", "-f", "copy", "--wal"]);
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    assert_eq!(sorted(&r.stdout), want);
    assert!(
        want.lines().count() >= 40,
        "the judge holds the deleted rows"
    );
    assert!(
        want.lines().any(|l| l.len() > 4000),
        "TOASTed values are among them"
    );
    r.assert_stderr_has(&["row versions gone from the pages found there"]);
    // --wal DIR: the same.
    let wal = data.join("pg_wal");
    let r2 = export_t(
        &data,
        &["--rows", "deleted", "-f", "copy", "--wal", s(&wal)],
    );
    assert_eq!(r2.code, 0);
    assert_eq!(r2.stdout, r.stdout);
}

#[test]
fn vacuumed_rows_come_back_as_copy_printed_them() {
    judge(&fixture("postgres/vacrows"));
}

#[test]
fn live_vacuumed_rows_come_back() {
    let Some(dir) = std::env::var_os("BLOCKSCOPE_PG_VACROWS_FIXTURES") else {
        return;
    };
    judge(Path::new(&dir));
}

#[test]
fn rows_all_says_where_each_version_came_from() {
    let data = fixture("postgres/vacrows/datadir");
    let want = fs::read_to_string(fixture("postgres/vacrows/deleted.copy")).unwrap();
    let r = export_t(
        &data,
        &[
            "--rows",
            "all",
            "--wal",
            "--source-column",
            "-f",
            "copy",
            "--header",
        ],
    );
    assert_eq!(r.code, 0, "stderr: {}", r.stderr);
    let mut lines = r.stdout.lines();
    assert_eq!(lines.next(), Some("row_status\tsource\tid\tv\tn"));
    let mut deleted = Vec::new();
    let (mut page, mut wal) = (0, 0);
    for l in lines {
        let mut f = l.splitn(3, '\t');
        let (status, source, rest) = (f.next().unwrap(), f.next().unwrap(), f.next().unwrap());
        if source == "page" {
            page += 1;
            assert_ne!(
                status, "deleted",
                "no deleted row is left on the pages: {l}"
            );
        } else {
            wal += 1;
            let (hi, lo) = source.split_once('/').expect("an LSN");
            assert!(u32::from_str_radix(hi, 16).is_ok() && u32::from_str_radix(lo, 16).is_ok());
            assert_ne!(
                status, "live",
                "a version gone from the pages is not live: {l}"
            );
        }
        if status == "deleted" {
            deleted.push(rest.to_string());
        }
    }
    assert!(page > 0 && wal > page / 2, "page {page}, wal {wal}");
    assert_eq!(sorted(&deleted.join("\n")), want);
    // Without the flag, and without --wal, the columns are today's.
    let r = export_t(&data, &["--rows", "all", "--header"]);
    assert_eq!(r.stdout.lines().next(), Some("row_status,id,v,n"));
}

#[test]
fn wal_needs_a_table_and_rows_that_can_be_gone() {
    let data = fixture("postgres/vacrows/datadir");
    let r = run(&["export", s(&data), "--table", "t", "--wal"]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["--rows deleted"]);
    let file = data.join("base/5/16384");
    let r = run(&[
        "export",
        s(&file),
        "--columns",
        "int,text,int",
        "--rows",
        "deleted",
        "--wal",
        s(&data),
    ]);
    assert_eq!(r.code, 2);
    r.assert_stderr_has(&["--wal needs a data directory and --table"]);
    // A --wal with no WAL in it fails before any row is written.
    let global = data.join("global");
    let r = export_t(&data, &["--rows", "all", "--wal", s(&global)]);
    assert_eq!(r.code, 2);
    assert_eq!(r.stdout, "");
    r.assert_stderr_has(&["no WAL segment"]);
}

/// A copy of the fixture's data directory, whose WAL the test damages.
fn datadir_copy(what: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("blockscope-vacrows-{what}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    common::copy_tree(&fixture("postgres/vacrows/datadir"), &dir);
    dir
}

const SEG8: &str = "pg_wal/000000010000000000000008";

/// A zeroed WAL page: named, exit 1, and the rows whose records lie
/// elsewhere still come back (none invented).
#[test]
fn damaged_wal_is_named_and_the_rest_still_read() {
    let dir = datadir_copy("zero");
    let path = dir.join(SEG8);
    let mut bytes = fs::read(&path).unwrap();
    bytes[0x8_0000..0x8_2000].fill(0);
    fs::write(&path, &bytes).unwrap();
    let r = export_t(&dir, &["--rows", "deleted", "-f", "copy", "--wal"]);
    assert_eq!(r.code, 1, "stderr: {}", r.stderr);
    r.assert_stderr_has(&["WAL 000000010000000000000008", "page is all zero"]);
    let want = fs::read_to_string(fixture("postgres/vacrows/deleted.copy")).unwrap();
    for l in r.stdout.lines() {
        assert!(want.lines().any(|w| w == l), "invented row: {l}");
    }
    let _ = fs::remove_dir_all(&dir);
}

/// Bytes changed all over the WAL, a segment cut short: never a panic,
/// exit 0 or 1.
#[test]
fn damage_anywhere_never_crashes() {
    let dir = datadir_copy("fuzz");
    let path = dir.join(SEG8);
    let clean = fs::read(&path).unwrap();
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    for round in 0..10 {
        let mut bytes = clean.clone();
        common::scramble(&mut bytes, &mut seed, 1 << (round % 6));
        if round == 9 {
            bytes.truncate(0x6_0000);
        }
        fs::write(&path, &bytes).unwrap();
        let r = export_t(&dir, &["--rows", "all", "--wal", "--source-column"]);
        assert!(r.code == 0 || r.code == 1, "round {round}: {}", r.stderr);
        assert!(
            !r.stderr.contains("panicked"),
            "round {round}: {}",
            r.stderr
        );
    }
    let _ = fs::remove_dir_all(&dir);
}
