//! A damaged catalog: `export`/`show`/`map DATADIR --table` salvage what the
//! catalogs still hold, name each unreadable catalog page and row, and fall
//! back to `--columns` for a table whose pg_attribute rows are lost.
//!
//! Each test copies the stopped PostgreSQL 18 cluster of
//! fixtures/postgres/catalog/18/datadir (made by a real server, see its
//! README) and damages one catalog page of the copy the way disks do: the
//! second half of an 8 KB page zeroed (a torn write: its last sectors never
//! reached the disk) or the page overwritten with other bytes. Which block
//! holds a row is read from the raw file here (line pointers, `t_hoff`, the
//! row's first column), not from blockscope. The rows exported are judged
//! against what `COPY` wrote on the healthy server
//! (postgres.app.big.copy, postgres.public.t.copy) and the columns against
//! its pg_attribute (attributes.txt).

mod common;

use std::path::{Path, PathBuf};

const BLCKSZ: usize = 8192;
/// pg_class, pg_attribute and pg_namespace of database postgres (oid 5),
/// and pg_database: their file numbers in the fixture (initdb's).
const PG_CLASS: &str = "base/5/1259";
const PG_ATTRIBUTE: &str = "base/5/1249";
const PG_NAMESPACE: &str = "base/5/2615";
const PG_DATABASE: &str = "global/1262";
/// app.big's pg_class OID and file (fixtures/postgres/catalog/18/tables.txt).
const BIG_OID: u32 = 16405;

/// A copy of the fixture data directory, removed when dropped.
struct Copy(PathBuf);

impl Copy {
    fn new(name: &str) -> Copy {
        Copy::of(&common::fixture("postgres/catalog/18/datadir"), name)
    }

    fn of(datadir: &Path, name: &str) -> Copy {
        let dir = std::env::temp_dir().join(format!(
            "blockscope-catalog-damage-{}-{name}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        common::copy_tree(datadir, &dir);
        Copy(dir)
    }

    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }

    fn file(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }

    /// Zero the second half of block `blkno` of `rel` (a torn write).
    fn tear(&self, rel: &str, blkno: usize) {
        let path = self.file(rel);
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[blkno * BLCKSZ + BLCKSZ / 2..(blkno + 1) * BLCKSZ].fill(0);
        std::fs::write(&path, bytes).unwrap();
    }

    /// Overwrite block `blkno` of `rel` with bytes that are no page.
    fn garble(&self, rel: &str, blkno: usize) {
        let path = self.file(rel);
        let mut bytes = std::fs::read(&path).unwrap();
        let mut x: u32 = 0x2545_f491;
        for b in &mut bytes[blkno * BLCKSZ..(blkno + 1) * BLCKSZ] {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            *b = x as u8;
        }
        std::fs::write(&path, bytes).unwrap();
    }
}

impl Drop for Copy {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// (block, first 4 bytes of the row as a u32, the int2 at `at` in the row) of
/// every normal tuple of a heap file, read straight from the bytes.
fn raw_rows(path: &Path, at: usize) -> Vec<(usize, u32, i16)> {
    let bytes = std::fs::read(path).unwrap();
    let mut out = Vec::new();
    for (blkno, page) in bytes.chunks_exact(BLCKSZ).enumerate() {
        let u16_at = |o: usize| u16::from_le_bytes([page[o], page[o + 1]]);
        let pd_lower = usize::from(u16_at(12));
        for lp in (24..pd_lower).step_by(4) {
            let word = u32::from_le_bytes(page[lp..lp + 4].try_into().unwrap());
            let (off, flags) = ((word & 0x7fff) as usize, (word >> 15) & 3);
            if flags != 1 {
                continue;
            }
            let data = off + usize::from(page[off + 22]);
            let first = u32::from_le_bytes(page[data..data + 4].try_into().unwrap());
            let second = i16::from_le_bytes([page[data + at], page[data + at + 1]]);
            out.push((blkno, first, second));
        }
    }
    out
}

/// The pg_attribute blocks holding rows of relation `oid` with attnum > 0,
/// and those attnums by block: attrelid is the row's first column, attnum
/// the int2 after attname (name, 64 bytes), atttypid (4) and attlen (2).
fn attribute_blocks(datadir: &Path, oid: u32) -> Vec<(usize, Vec<i16>)> {
    let mut out: Vec<(usize, Vec<i16>)> = Vec::new();
    for (blkno, attrelid, attnum) in raw_rows(&datadir.join(PG_ATTRIBUTE), 4 + 64 + 4 + 2) {
        if attrelid != oid || attnum <= 0 {
            continue;
        }
        match out.iter_mut().find(|b| b.0 == blkno) {
            Some(b) => b.1.push(attnum),
            None => out.push((blkno, vec![attnum])),
        }
    }
    out
}

/// The pg_class block holding the row of `oid` (PostgreSQL 12+: oid is the first column).
fn class_block(datadir: &Path, oid: u32) -> usize {
    raw_rows(&datadir.join(PG_CLASS), 4)
        .into_iter()
        .find(|r| r.1 == oid)
        .expect("the fixture's pg_class has the row")
        .0
}

/// The server's columns of a table, as `--columns` takes them
/// (attributes.txt: `table|attnum|attname|format_type|attlen|attalign|attisdropped|…`).
fn server_columns(table: &str) -> String {
    server_columns_in(&common::fixture("postgres/catalog/18"), table)
}

fn server_columns_in(dir: &Path, table: &str) -> String {
    let text = std::fs::read_to_string(dir.join("attributes.txt")).unwrap();
    text.lines()
        .map(|l| l.split('|').collect::<Vec<_>>())
        .filter(|f| f[0] == table)
        .map(|f| format!("{} {}", f[2], f[3]))
        .collect::<Vec<_>>()
        .join(", ")
}

fn sorted(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    lines.sort();
    lines
}

fn expected(table: &str) -> Vec<String> {
    sorted(
        &std::fs::read_to_string(common::fixture(&format!(
            "postgres/catalog/18/postgres.{table}.copy"
        )))
        .unwrap(),
    )
}

/// Split a command line as a POSIX shell would for the words blockscope
/// prints (plain words and single-quoted ones, `'\''` inside).
fn shell_words(line: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => {
                quoted = !quoted;
                in_word = true;
            }
            ' ' if !quoted => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                }
                in_word = false;
            }
            '\\' if !quoted => {}
            c => {
                cur.push(c);
                in_word = true;
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    words
}

/// The command line blockscope advises after `marker` on standard error.
fn advised(stderr: &str, marker: &str) -> Vec<String> {
    let at = stderr
        .find(marker)
        .unwrap_or_else(|| panic!("{marker}: {stderr}"));
    let rest = &stderr[at + marker.len()..];
    let line = rest.lines().next().unwrap();
    let words = shell_words(line.trim());
    assert_eq!(words[0], "blockscope", "{line}");
    words[1..].to_vec()
}

#[test]
fn torn_pg_attribute_page_falls_back_to_columns() {
    let copy = Copy::new("attribute");
    let blocks = attribute_blocks(&copy.0, BIG_OID);
    // app.big's three attributes sit on one block in the fixture.
    assert_eq!(blocks.len(), 1, "{blocks:?}");
    let (blkno, attnums) = &blocks[0];
    assert_eq!(attnums.len(), 3);
    copy.tear(PG_ATTRIBUTE, *blkno);
    let place = format!("pg_attribute block {blkno}: checksum mismatch for block {blkno}");

    // Without --columns: exit 2, the unreadable page named, and the command
    // line to run with --columns.
    let run = common::run(&[
        "export",
        copy.path(),
        "--table",
        "app.big",
        "--format",
        "copy",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stdout.is_empty());
    run.assert_stderr_has(&[
        &place,
        "app.big: the pg_attribute rows of attnum 1, 2, 3 could not be read",
        "its pg_class row was read (relnatts 3)",
    ]);
    let words = advised(&run.stderr, "and run:\n  ");
    assert_eq!(
        words[..6],
        [
            "export",
            copy.path(),
            "--table",
            "app.big",
            "--format",
            "copy"
        ]
    );
    assert_eq!(words[6], "--columns");
    assert_eq!(
        words[7],
        "<attnum 1: unreadable>, <attnum 2: unreadable>, <attnum 3: unreadable>"
    );

    // That command, with the columns filled in from what the server said:
    // every row COPY wrote, TOASTed values found through pg_class's
    // reltoastrelid; exit 1 (a catalog page was unreadable), the
    // fallback named.
    let columns = server_columns("app.big");
    let mut args: Vec<&str> = words[..7].iter().map(String::as_str).collect();
    args.push(&columns);
    let run = common::run(&args);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(sorted(&run.stdout), expected("app.big"));
    assert!(
        run.stdout.len() > 30_000,
        "TOAST read: {}",
        run.stdout.len()
    );
    run.assert_stderr_has(&[
        "blockscope: warning: ",
        &place,
        "the columns given are used instead, with the files its pg_class row names",
    ]);

    // Fewer columns than pg_class.relnatts: said, and the rows that do not
    // fit are skipped (exit 1).
    let run = common::run(&[
        "export",
        copy.path(),
        "--table",
        "app.big",
        "--columns",
        "id integer, body text",
    ]);
    assert_eq!(run.code, 1);
    run.assert_stderr_has(&["pg_class.relnatts says app.big has 3 attributes (dropped ones included), the columns given are 2"]);

    // show takes the same fallback; map needs no columns at all.
    let run = common::run(&[
        "show",
        copy.path(),
        "--table",
        "app.big",
        "--columns",
        &columns,
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert!(run.stdout.contains("n4"), "{}", run.stdout);
    let run = common::run(&["show", copy.path(), "--table", "app.big"]);
    assert_eq!(run.code, 2);
    run.assert_stderr_has(&[&place]);
    let run = common::run(&["map", copy.path(), "--table", "app.big"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    run.assert_stderr_has(&[&place, "drawn without its columns"]);
}

/// A table with some attributes on the lost page: the ones read are listed
/// (with their types, as `--columns` takes them), the others marked.
#[test]
fn the_columns_that_were_read_are_the_hint() {
    let copy = Copy::new("partial");
    let oid = 16395; // public.t (tables.txt)
    let blocks = attribute_blocks(&copy.0, oid);
    assert!(blocks.len() > 1, "{blocks:?}");
    // The last block of public.t's attributes: later columns are lost.
    let (blkno, lost) = blocks.iter().max_by_key(|b| b.0).unwrap().clone();
    copy.garble(PG_ATTRIBUTE, blkno);
    let run = common::run(&["export", copy.path(), "--table", "public.t"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[&format!("pg_attribute block {blkno}: ")]);
    let text =
        std::fs::read_to_string(common::fixture("postgres/catalog/18/attributes.txt")).unwrap();
    let words = advised(&run.stderr, "and run:\n  ");
    let list = words.last().unwrap();
    let items: Vec<&str> = list.split(", ").collect();
    for line in text.lines().filter(|l| l.starts_with("public.t|")) {
        let f: Vec<&str> = line.split('|').collect();
        let attnum: i16 = f[1].parse().unwrap();
        let item = items[attnum as usize - 1];
        if lost.contains(&attnum) {
            assert_eq!(item, format!("<attnum {attnum}: unreadable>"));
            assert!(run
                .stderr
                .contains(&format!("  attnum {attnum}: (unreadable)\n")));
        } else if f[6] == "t" {
            // A dropped column: its length and alignment.
            assert_eq!(item, format!("-:{}:{}", f[4], f[5]));
        } else if f[3] != "mood" && f[3] != "posint" {
            // Built-in types by name (the enum and the domain are read
            // through pg_enum / pg_type; not checked here).
            assert!(
                item.starts_with(&format!("{} {}", f[2], f[3])),
                "{item} / {line}"
            );
            assert!(run.stderr.contains(&format!("  attnum {attnum}: {item}\n")));
        }
    }
}

/// The table's own pg_class row unreadable: said, with what pg_type and
/// pg_attribute still know — its OID, its file as created, its columns —
/// as a command that exports the file.
#[test]
fn lost_pg_class_row_is_named_with_what_other_catalogs_know() {
    let copy = Copy::new("class");
    let blkno = class_block(&copy.0, BIG_OID);
    copy.garble(PG_CLASS, blkno);
    let run = common::run(&[
        "export",
        copy.path(),
        "--table",
        "app.big",
        "--format",
        "copy",
    ]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[
        "table app.big is not in pg_class of database \"postgres\"",
        &format!("unreadable: pg_class block {blkno}: "),
        &format!("pg_type's row type of app.big says its pg_class OID is {BIG_OID}"),
    ]);
    let file = copy.file(&format!("base/5/{BIG_OID}"));
    let words = advised(&run.stderr, "to export app.big by its file:\n  ");
    assert_eq!(words[0], "export");
    assert_eq!(Path::new(&words[1]), file);
    assert_eq!(words[2], "--columns");
    assert_eq!(words[3], server_columns("app.big"));
    // The advice runs. The TOAST table's pg_class row was on the same page,
    // so its out-of-line values are not found: those rows are named and
    // skipped, the others are COPY's.
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    let run = common::run(&[&args[..], &["--format", "copy"]].concat());
    assert_eq!(run.code, 1, "{}", run.stderr);
    let want = expected("app.big");
    let got = sorted(&run.stdout);
    assert!(!got.is_empty());
    assert!(got.iter().all(|r| want.contains(r)), "{got:?}");
    run.assert_stderr_has(&["skipped"]);
}

/// pg_namespace's page unreadable: the relation of that name in a namespace
/// whose row is lost is named, with the command that exports its file (and
/// TOAST file, whose pg_class row is readable).
#[test]
fn lost_pg_namespace_row_names_the_candidates() {
    let copy = Copy::new("namespace");
    copy.tear(PG_NAMESPACE, 0);
    let run = common::run(&["export", copy.path(), "--table", "app.big"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[
        "schema \"app\" is not in pg_namespace of database \"postgres\"",
        "unreadable: pg_namespace block 0: checksum mismatch for block 0",
        &format!("pg_class has a relation big (oid {BIG_OID}) in namespace"),
    ]);
    let words = advised(&run.stderr, "to export app.big by its file:\n  ");
    let args: Vec<&str> = words.iter().map(String::as_str).collect();
    assert!(args.contains(&"--toast"), "{args:?}");
    let run = common::run(&[&args[..], &["--format", "copy"]].concat());
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sorted(&run.stdout), expected("app.big"));
}

/// pg_database's page unreadable: said, with the database directories no
/// readable row names; `--database OID` reads one of them.
#[test]
fn lost_pg_database_row_and_database_by_oid() {
    let copy = Copy::new("database");
    copy.tear(PG_DATABASE, 0);
    let run = common::run(&["export", copy.path(), "--table", "app.big"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[
        "database \"postgres\" is not in pg_database",
        "unreadable: pg_database block 0: checksum mismatch for block 0",
        "base/5",
    ]);
    let run = common::run(&[
        "export",
        copy.path(),
        "--table",
        "app.big",
        "--database",
        "5",
        "--format",
        "copy",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(sorted(&run.stdout), expected("app.big"));
    assert!(
        run.stderr
            .contains("no readable pg_database row is named \"5\"; base/5 is read as database 5"),
        "{}",
        run.stderr
    );
}

/// A readable catalog and `--columns`: the columns given are used (the
/// user said what the pages hold), with a note, and a warning where they
/// read the tuples differently from pg_attribute; exit status unchanged.
#[test]
fn columns_given_with_a_healthy_catalog_replace_it() {
    let datadir = "fixtures/postgres/catalog/18/datadir";
    let same = server_columns("app.big");
    let run = common::run(&[
        "export",
        datadir,
        "--table",
        "app.big",
        "--format",
        "copy",
        "--columns",
        &same,
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(sorted(&run.stdout), expected("app.big"));
    assert!(run
        .stderr
        .contains("the columns given replace the catalog's"));
    assert!(!run.stderr.contains("warning"), "{}", run.stderr);

    let run = common::run(&[
        "export",
        datadir,
        "--table",
        "app.big",
        "--columns",
        "id bigint, body text, note character varying(10)",
    ]);
    run.assert_stderr_has(&[
        "the columns given differ from what pg_attribute says of app.big: attnum 1 is id \
             integer in pg_attribute, given as id bigint",
    ]);
}

/// The pg_type page holding a column's type unreadable: that column is
/// named with what pg_attribute still says of it (name, type OID, length,
/// alignment); the other tables of the database, whose types are built in,
/// export in full, with exit 1 for the damage seen.
#[test]
fn lost_pg_type_row_of_a_column_type() {
    let copy = Copy::new("type");
    // pg_type (base/5/1247): oid is the first column, typname the next 64 bytes.
    let bytes = std::fs::read(copy.file("base/5/1247")).unwrap();
    let mut mood = None;
    for (blkno, oid, _) in raw_rows(&copy.file("base/5/1247"), 4) {
        let page = &bytes[blkno * BLCKSZ..(blkno + 1) * BLCKSZ];
        let at = page
            .windows(4 + 5)
            .position(|w| w[..4] == oid.to_le_bytes() && &w[4..] == b"mood\0");
        if at.is_some() {
            mood = Some((blkno, oid));
        }
    }
    let (blkno, oid) = mood.expect("the enum type mood is in pg_type");
    copy.tear("base/5/1247", blkno);
    let run = common::run(&["export", copy.path(), "--table", "public.t"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[
        &format!("unreadable: pg_type block {blkno}: checksum mismatch"),
        &format!("<feel: type OID {oid}, attlen 4, attalign i>"),
    ]);
    let run = common::run(&[
        "export",
        copy.path(),
        "--table",
        "app.big",
        "--format",
        "copy",
    ]);
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(sorted(&run.stdout), expected("app.big"));
    run.assert_stderr_has(&[&format!(
        "blockscope: warning: {}: pg_type block {blkno}: ",
        copy.path()
    )]);
}

/// The pg_attribute fallback on clusters of several majors (10: catalog
/// OIDs in the tuple header; 12–15 and 16+: other pg_attribute layouts),
/// each made by make.sh with a real server of that major into a temp dir.
/// Needs root (servers run as postgres) and the servers of servers.sh;
/// skipped unless BLOCKSCOPE_LIVE_CATALOG=1 (it takes a few minutes).
/// BLOCKSCOPE_PG_PORT sets the port (default 56231).
#[test]
fn live_pg_attribute_fallback_on_several_majors() {
    if std::env::var("BLOCKSCOPE_LIVE_CATALOG").ok().as_deref() != Some("1") {
        eprintln!("live catalog damage test skipped: set BLOCKSCOPE_LIVE_CATALOG=1");
        return;
    }
    let out = std::env::temp_dir().join(format!(
        "blockscope-catalog-damage-live-{}",
        std::process::id()
    ));
    let port = std::env::var("BLOCKSCOPE_PG_PORT").unwrap_or_else(|_| "56231".into());
    let majors = ["10", "12", "15", "17"];
    let status = std::process::Command::new("bash")
        .arg(common::fixture("postgres/catalog/make.sh"))
        .args(["--out", out.to_str().unwrap(), "--port", &port, "--datadir"])
        .args(majors)
        .status();
    if !status.is_ok_and(|s| s.success()) {
        eprintln!("live catalog damage test skipped: make.sh could not build the clusters");
        return;
    }
    for major in majors {
        let dir = out.join(major);
        let tables = std::fs::read_to_string(dir.join("tables.txt")).unwrap();
        // app.big|postgres|DBOID|OID|RELFILENODE|TOAST
        let f: Vec<&str> = tables
            .lines()
            .find(|l| l.starts_with("app.big|"))
            .unwrap()
            .split('|')
            .collect();
        let (dboid, oid): (u32, u32) = (f[2].parse().unwrap(), f[3].parse().unwrap());
        let copy = Copy::of(&dir.join("datadir"), &format!("live-{major}"));
        let rel = format!("base/{dboid}/1249");
        let blocks: Vec<usize> = raw_rows(&copy.file(&rel), 4)
            .into_iter()
            .filter(|r| r.1 == oid)
            .map(|r| r.0)
            .collect();
        assert!(!blocks.is_empty(), "{major}");
        for &b in &blocks {
            copy.garble(&rel, b);
        }
        let run = common::run(&["export", copy.path(), "--table", "app.big"]);
        assert_eq!(run.code, 2, "{major}: {}", run.stderr);
        assert!(
            run.stderr
                .contains(&format!("pg_attribute block {}: ", blocks[0])),
            "{major}: {}",
            run.stderr
        );
        let columns = server_columns_in(&dir, "app.big");
        let run = common::run(&[
            "export",
            copy.path(),
            "--table",
            "app.big",
            "--format",
            "copy",
            "--columns",
            &columns,
        ]);
        assert_eq!(run.code, 1, "{major}: {}", run.stderr);
        let want = sorted(&std::fs::read_to_string(dir.join("postgres.app.big.copy")).unwrap());
        assert_eq!(sorted(&run.stdout), want, "{major}");
    }
    std::fs::remove_dir_all(&out).unwrap();
}

/// pg_attribute cut off inside the block holding the table's rows (a
/// truncated copy): that block is named as the cause, with the file.
#[test]
fn truncated_pg_attribute_is_named() {
    let copy = Copy::new("truncated");
    let blocks = attribute_blocks(&copy.0, BIG_OID);
    let blkno = blocks[0].0;
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(copy.file(PG_ATTRIBUTE))
        .unwrap();
    file.set_len((blkno * BLCKSZ + 3000) as u64).unwrap();
    drop(file);
    let run = common::run(&["export", copy.path(), "--table", "app.big"]);
    assert_eq!(run.code, 2, "{}", run.stderr);
    run.assert_stderr_has(&[&format!(
        "(pg_attribute block {blkno}: {}: the file ends 3000 bytes into the block (truncated)",
        copy.file(PG_ATTRIBUTE).display()
    )]);
}
