//! `blockscope export` against what PostgreSQL 15 itself returned for the
//! same table (fixtures/postgres/export/make.sh): COPY's CSV and text
//! formats byte for byte, the rows a committed DELETE removed, INSERTs and
//! NDJSON, damaged copies, and a loose file without pg_xact.

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::postgres::pg_checksum_page;
use blockscope::Endian;
use common::{fixture, fixture_bytes, run};

const REL: &str = "fixtures/postgres/export/data/base/5/16384";
const TOAST: &str = "fixtures/postgres/export/data/base/5/16387";
const SCHEMA: &str = "fixtures/postgres/export/t.schema.json";

fn expected(name: &str) -> String {
    String::from_utf8(fixture_bytes(&format!("postgres/export/{name}"))).unwrap()
}

fn export(rel: &str, extra: &[&str]) -> common::Run {
    let mut args = vec!["export", rel, "--schema", SCHEMA, "--toast", TOAST];
    args.extend_from_slice(extra);
    run(&args)
}

#[test]
fn csv_and_copy_equal_what_copy_wrote() {
    let r = export(REL, &["--format", "csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected("expected.csv"));
    assert_eq!(r.stderr, "");
    let r = export(REL, &["--format", "copy"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected("expected.copy"));
    let r = export(REL, &["--format", "csv", "--header"]);
    assert_eq!(r.stdout, expected("expected_header.csv"));
}

#[test]
fn deleted_rows_are_the_rows_the_delete_removed() {
    let r = export(REL, &["--format", "csv", "--rows", "deleted"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, expected("deleted.csv"));
    let r = export(REL, &["--format", "copy", "--rows", "deleted"]);
    assert_eq!(r.stdout, expected("deleted.copy"));
}

#[test]
fn rows_all_names_every_version() {
    let r = export(
        REL,
        &[
            "--format",
            "copy",
            "--rows",
            "all",
            "--with-system-columns",
            "--header",
        ],
    );
    assert_eq!(r.code, 0, "{}", r.stderr);
    let mut lines = r.stdout.lines();
    assert_eq!(
        lines.next(),
        Some("ctid\txmin\txmax\trow_status\tid\tname\tamount\tok\tat\tratio\tdoc\tbig\tadded")
    );
    let status_of = |id: &str| -> Vec<String> {
        r.stdout
            .lines()
            .filter(|l| l.split('\t').nth(4) == Some(id))
            .map(|l| l.split('\t').nth(3).unwrap().to_string())
            .collect()
    };
    assert_eq!(status_of("3"), ["deleted"]);
    assert_eq!(status_of("5"), ["live"]); // its DELETE rolled back
    assert_eq!(status_of("6"), ["updated", "live"]);
    assert_eq!(status_of("14"), ["updated", "live"]); // multixact with an updater
    assert_eq!(status_of("13"), ["live"]); // locked by two FOR SHARE lockers
    assert_eq!(status_of("100"), ["aborted"]); // rolled back
    assert_eq!(status_of("300"), ["aborted"]); // in progress at the stop
}

#[test]
fn sql_and_ndjson_shapes() {
    let r = export(REL, &["--format", "sql", "--table-name", "public.t"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let first = r.stdout.lines().next().unwrap();
    assert_eq!(
        first,
        "INSERT INTO public.t (id, name, amount, ok, at, ratio, doc, big, added) VALUES \
         (1, 'plain', '12.50', true, '2024-02-29 13:45:01.5+00', 0.1, '{\"a\": [1, 2]}', NULL, 'dflt');"
    );
    assert_eq!(
        r.stdout.matches("INSERT INTO").count(),
        expected("expected.copy").lines().count()
    );
    let r = export(REL, &["--format", "ndjson", "--with-system-columns"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let rows: Vec<serde_json::Value> = r
        .stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(rows.len(), expected("expected.copy").lines().count());
    let first = &rows[0];
    assert_eq!(first["ctid"], "(0,1)");
    assert!(first["xmin"].is_u64());
    assert_eq!(first["id"], 1);
    assert_eq!(first["ok"], true);
    assert_eq!(first["amount"], "12.50");
    assert_eq!(first["big"], serde_json::Value::Null);
    assert_eq!(first["ratio"], 0.1);
    assert_eq!(first["added"], "dflt");
    assert!(first.get("gone").is_none(), "dropped column written");
}

/// A data directory copy with the relation file replaced by `rel`.
fn data_dir_with(name: &str, rel: &[u8]) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("export-{name}"));
    let _ = fs::remove_dir_all(&dir);
    let src = fixture("postgres/export/data");
    for sub in [
        "pg_xact",
        "pg_multixact/offsets",
        "pg_multixact/members",
        "base/5",
    ] {
        fs::create_dir_all(dir.join(sub)).unwrap();
        if sub != "base/5" {
            for e in fs::read_dir(src.join(sub)).unwrap() {
                let e = e.unwrap();
                fs::copy(e.path(), dir.join(sub).join(e.file_name())).unwrap();
            }
        }
    }
    fs::write(dir.join("base/5/16384"), rel).unwrap();
    dir.join("base/5/16384")
}

fn set_checksum(page: &mut [u8], blkno: u64) {
    let c = pg_checksum_page(page, blkno, Endian::Little).unwrap();
    page[8..10].copy_from_slice(&c.to_le_bytes());
}

/// A data directory copy whose relation has two blocks: block 0 damaged
/// (bytes zeroed, checksum stale), block 1 a good copy of it.
fn damaged_then_good(name: &str) -> PathBuf {
    let page = fixture_bytes("postgres/export/data/base/5/16384");
    let mut two = page.clone();
    two[4000..4200].fill(0);
    let mut good = page;
    set_checksum(&mut good, 1);
    two.extend_from_slice(&good);
    data_dir_with(name, &two)
}

#[test]
fn damaged_blocks_and_tuples_are_named_and_skipped() {
    let page = fixture_bytes("postgres/export/data/base/5/16384");
    let path = damaged_then_good("block");
    // --strict: the block whose checksum fails is skipped whole.
    let r = export(path.to_str().unwrap(), &["--format", "csv", "--strict"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("block 0: skipped: checksum mismatch for block 0"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, expected("expected.csv"));
    // By default it is salvaged: 200 bytes zeroed over tuples 40 to 42
    // (two headers, one jsonb value); each row written from it is one COPY
    // wrote, and block 1's rows all follow.
    let r = export(path.to_str().unwrap(), &["--format", "csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "block 0: damaged (checksum mismatch for block 0: stored 0xcfe8, computed 0xb6e4): \
             salvaged tuple by tuple: 56 rows written"
        ),
        "{}",
        r.stderr
    );
    for lp in [40, 41, 42] {
        assert!(
            r.stderr.contains(&format!("block 0 lp {lp}: skipped: ")),
            "{lp}: {}",
            r.stderr
        );
    }
    let all = expected("expected.csv");
    let (salvaged, rest) = r.stdout.split_at(r.stdout.len() - all.len());
    assert_eq!(rest, all);
    assert_eq!(salvaged.lines().count(), 56);
    for line in salvaged.split_inclusive('\n') {
        assert!(all.split_inclusive('\n').any(|l| l == line), "{line}");
    }

    // Line pointer 5 pointing past the page: that tuple only is skipped.
    let mut one = page.clone();
    let at = 24 + 4 * 4;
    let raw = u32::from_le_bytes(one[at..at + 4].try_into().unwrap());
    let raw = (raw & !0x7fff) | 8180; // lp_off 8180, lp_len unchanged
    one[at..at + 4].copy_from_slice(&raw.to_le_bytes());
    set_checksum(&mut one, 0);
    let path = data_dir_with("tuple", &one);
    let r = export(path.to_str().unwrap(), &["--format", "csv"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stderr.contains("block 0 lp 5: skipped:"), "{}", r.stderr);
    let want: String = expected("expected.csv")
        .split_inclusive('\n')
        .filter(|l| !l.starts_with("5,"))
        .collect();
    assert_eq!(r.stdout, want);
}

/// A closed output pipe never turns 1 into 0: a block already named as
/// skipped keeps the exit status 1, and the run still ends quietly.
#[test]
fn a_closed_pipe_after_a_skip_keeps_exit_1() {
    let path = damaged_then_good("closed-pipe");
    let p = path.to_str().unwrap();
    // With TOAST (blocks one after the other) and without (the workers).
    for toast in [&["--toast", TOAST][..], &[]] {
        let mut args = vec!["export", p, "--schema", SCHEMA, "--format", "csv"];
        args.extend_from_slice(toast);
        let (code, stderr) = common::into_closed_pipe(&args);
        assert_eq!(code, 1, "{toast:?}: {stderr}");
        assert!(
            stderr.contains("block 0: damaged (checksum mismatch"),
            "{stderr}"
        );
        assert!(!stderr.contains("error"), "{stderr}");
    }
    // Nothing skipped: 0, quietly.
    let (code, stderr) =
        common::into_closed_pipe(&["export", REL, "--schema", SCHEMA, "--toast", TOAST]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    // Oracle: slot 2 of block 0 is skipped.
    let ora = oracle_file();
    let args = [
        "export",
        ora.to_str().unwrap(),
        "--object-id",
        "9029",
        "--columns",
        ORA_COLUMNS,
    ];
    let (code, stderr) = common::into_closed_pipe(&args);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("block 0 slot 2: skipped:"), "{stderr}");
}

#[test]
fn a_loose_file_counts_what_the_hint_bits_cannot_decide() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-loose");
    fs::create_dir_all(&dir).unwrap();
    let loose = dir.join("16384");
    fs::write(&loose, fixture_bytes("postgres/export/data/base/5/16384")).unwrap();
    let r = export(loose.to_str().unwrap(), &["--format", "csv"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "visibility decided from hint bits only; 4 tuple versions undecided, written"
        ),
        "{}",
        r.stderr
    );
    // --data-dir gives the answer back.
    let data = fixture("postgres/export/data");
    let r = export(
        loose.to_str().unwrap(),
        &["--format", "csv", "--data-dir", data.to_str().unwrap()],
    );
    assert_eq!(r.stdout, expected("expected.csv"));
    assert_eq!(r.stderr, "");
}

#[test]
fn show_verdicts_read_pg_xact_in_a_data_directory() {
    let r = run(&["show", "--format", "json", REL]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout
            .contains("\"xmin 726 committed; deleted by 740 (committed, per pg_xact)\""),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(
        "xmin 741 in progress when the cluster stopped (per pg_xact); dead (insert did not commit)"
    ));
    assert!(r.stdout.contains(
        "HOT-updated by multixact 2 (its updater committed, per pg_xact and pg_multixact)"
    ));
    // The same page outside a data directory: the page's own words.
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-show-loose");
    fs::create_dir_all(&dir).unwrap();
    let loose = dir.join("16384");
    fs::write(&loose, fixture_bytes("postgres/export/data/base/5/16384")).unwrap();
    let r = run(&["show", "--format", "json", loose.to_str().unwrap()]);
    assert!(r
        .stdout
        .contains("deleted by 740 if 740 committed (commit status not on the page)"));
    assert!(!r.stdout.contains("per pg_xact"));
    // --data-dir gives the loose copy its cluster's answers.
    let data = fixture("postgres/export/data");
    let r = run(&[
        "show",
        "--format",
        "ndjson",
        "--data-dir",
        data.to_str().unwrap(),
        loose.to_str().unwrap(),
    ]);
    assert!(r.stdout.contains("deleted by 740 (committed, per pg_xact)"));
}

// Oracle: fixtures/oracle/typed.blk (tests/oracle.rs builds it), data object
// 9029, with its chained row's next piece pointed at slot 5 of the same
// block and its first row marked deleted.

const ORA_COLUMNS: &str = "id number, name varchar2(20), born date, seen timestamp(9), \
                           f binary_float, d binary_double, nick nvarchar2(10), tag raw(4), \
                           memo varchar2(10), total number(10,2), ~";

fn oracle_file() -> PathBuf {
    let mut b = fixture_bytes("oracle/typed.blk");
    b[8041..8045].copy_from_slice(&0x01c0_0090u32.to_be_bytes()); // slot 4's nrid: this block
    b[8045..8047].copy_from_slice(&5u16.to_be_bytes()); // … slot 5
    b[8124] |= 0x10; // slot 0: D
    let c = blockscope::oracle::compute_chkval(&b, Endian::Little);
    b[16..18].copy_from_slice(&c.to_le_bytes());
    // Written whole and renamed into place: tests running at the same time
    // never see it half written.
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join("export-typed.dbf");
    let tmp =
        path.with_extension(format!("{:?}", std::thread::current().id()).replace(['(', ')'], ""));
    fs::write(&tmp, &b).unwrap();
    fs::rename(&tmp, &path).unwrap();
    path
}

#[test]
fn oracle_rows_chained_pieces_and_deleted_rows() {
    let path = oracle_file();
    let p = path.to_str().unwrap();
    let r = run(&[
        "export",
        p,
        "--object-id",
        "9029",
        "--columns",
        ORA_COLUMNS,
        "--format",
        "csv",
        "--with-system-columns",
    ]);
    assert_eq!(r.code, 1, "{}", r.stderr); // slot 2's name is not valid UTF-8
    assert!(
        r.stderr
            .contains("block 0 slot 2: skipped: column 2 name: not a valid VARCHAR2(20)"),
        "{}",
        r.stderr
    );
    assert_eq!(
        r.stdout,
        "0,1,-123.45,,,2024-06-15 12:30:45.000000000,-1.5,,,,,\n\
         0,3,0.5,,,,,,,,,\n\
         0,4,7,QUEEN,,,,,,,,\n"
    );
    let r = run(&[
        "export",
        p,
        "--object-id",
        "9029",
        "--columns",
        ORA_COLUMNS,
        "--format",
        "sql",
        "--rows",
        "deleted",
        "--table-name",
        "scott.emp",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "INSERT INTO scott.emp (id, name, born, seen, f, d, nick, tag, memo, total) VALUES \
         (1, 'KING', '2024-01-01 00:00:00', '2024-06-15 12:30:45.123456789', 1.5, -2.5, 'Zoë', \
         'DEADBEEF', 'x', 123.45);\n"
    );
    // Another object's rows are not written.
    let r = run(&["export", p, "--object-id", "1", "--columns", ORA_COLUMNS]);
    assert_eq!((r.code, r.stdout.as_str()), (0, ""));
}

/// `export DATADIR --table`: files, columns and TOAST table found through the
/// catalogs of the committed PostgreSQL 18 data directory (no column list
/// typed), rows equal to what the server's COPY wrote (there sorted by the
/// first column, here in heap order).
#[test]
fn a_table_by_name_through_the_catalogs() {
    let datadir = "fixtures/postgres/catalog/18/datadir";
    let sorted = |text: &str| {
        let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
        lines.sort_by_key(|l| l.split('\t').next().and_then(|f| f.parse::<i64>().ok()));
        lines
    };
    let run = common::run(&["export", datadir, "--table", "app.big", "--format", "copy"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    let want =
        std::fs::read_to_string(common::fixture("postgres/catalog/18/postgres.app.big.copy"))
            .unwrap();
    assert_eq!(sorted(&run.stdout), sorted(&want));
    // The TOAST relation was found and read: the values are long.
    assert!(run.stdout.len() > 30_000, "{} bytes", run.stdout.len());

    // An unknown table: exit 2, saying what was looked for.
    let run = common::run(&["export", datadir, "--table", "public.nope"]);
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("nope"), "{}", run.stderr);
    // --table needs a data directory.
    let run = common::run(&[
        "export",
        "fixtures/postgres/heap/delete.0.page",
        "--table",
        "t",
    ]);
    assert_eq!(run.code, 2);
}

/// `export --evidence`: one provenance line on standard error, per relation
/// file its size, bytes read and their SHA-256; standard output untouched.
#[test]
fn evidence_names_the_files_read_and_their_digest() {
    use sha2::{Digest, Sha256};
    let datadir = "fixtures/postgres/catalog/18/datadir";
    let plain = common::run(&["export", datadir, "--table", "app.big", "--format", "copy"]);
    let run = common::run(&[
        "export",
        datadir,
        "--table",
        "app.big",
        "--format",
        "copy",
        "--evidence",
    ]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    assert_eq!(run.stdout, plain.stdout);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("{\"provenance\""))
        .expect("a provenance line");
    let doc: serde_json::Value = serde_json::from_str(line).unwrap();
    let p = &doc["provenance"];
    assert_eq!(p["blockscope"], env!("CARGO_PKG_VERSION"));
    let input = &p["inputs"][0];
    let file = format!("{datadir}/base/5/16405");
    let bytes = std::fs::read(common::fixture("postgres/catalog/18/datadir/base/5/16405")).unwrap();
    assert_eq!(input["path"], file.as_str());
    assert_eq!(input["size"], bytes.len() as u64);
    assert_eq!(input["bytes_read"], bytes.len() as u64);
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    assert_eq!(input["sha256"], digest.as_str());
}

/// Enums, ranges, multiranges, composites and arrays of them, and a table in
/// its own tablespace, exported by name as COPY wrote them (PostgreSQL 12
/// and 18; the fixture's COPY has the same rows, compared sorted).
#[test]
fn catalog_types_export_as_copy_wrote_them() {
    for (major, tables) in [
        (12, &["kinds", "spaced"][..]),
        (18, &["kinds", "spaced", "multi"][..]),
    ] {
        let datadir = format!("fixtures/postgres/catalog/types/{major}/datadir");
        for table in tables {
            let name = format!("public.{table}");
            let run = common::run(&["export", &datadir, "--table", &name, "--format", "copy"]);
            assert_eq!(run.code, 0, "{major} {name}: {}", run.stderr);
            let want = std::fs::read_to_string(common::fixture(&format!(
                "postgres/catalog/types/{major}/public.{table}.copy"
            )))
            .unwrap();
            let mut got: Vec<&str> = run.stdout.lines().collect();
            let mut want: Vec<&str> = want.lines().collect();
            got.sort_unstable();
            want.sort_unstable();
            assert!(!want.is_empty());
            assert_eq!(got, want, "{major} {name}");
        }
    }
}

/// `export --evidence` of an Oracle datafile: the datafile's digest.
#[test]
fn oracle_evidence_digests_the_datafile() {
    use sha2::{Digest, Sha256};
    let file = oracle_file();
    let path = file.to_str().unwrap();
    let run = common::run(&[
        "export",
        path,
        "--object-id",
        "74682",
        "--columns",
        "number,varchar2",
        "--evidence",
    ]);
    let line = run
        .stderr
        .lines()
        .find(|l| l.starts_with("{\"provenance\""))
        .unwrap_or_else(|| panic!("no provenance line: {}", run.stderr));
    let doc: serde_json::Value = serde_json::from_str(line).unwrap();
    let bytes = std::fs::read(&file).unwrap();
    let digest: String = Sha256::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let input = &doc["provenance"]["inputs"][0];
    assert_eq!(input["sha256"], digest.as_str());
    assert_eq!(input["bytes_read"], bytes.len() as u64);
}

/// A relation of several segment files: the workers' positioned reads
/// (the usual path) give what the in-order reading of `--evidence` gives —
/// the second segment's blocks numbered from 131072 (a 1 GiB segment of
/// 8 kB blocks), its rows after the first's — and a segment cut short is
/// named the same way.
#[test]
fn segments_read_by_the_workers_equal_the_files_read_in_order() {
    let dir = std::env::temp_dir().join(format!("blockscope-segments-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    let rel = dir.join("16384");
    fs::copy(REL, &rel).unwrap();
    // The same page as the second segment's first block, its checksum
    // the one block 131072 needs.
    let mut second = fs::read(REL).unwrap();
    for (k, page) in second.chunks_mut(8192).enumerate() {
        set_checksum(page, 131_072 + k as u64);
    }
    fs::write(dir.join("16384.1"), second).unwrap();
    let rel = rel.to_str().unwrap();
    let args = |evidence: bool| {
        let mut a = vec![
            "export",
            rel,
            "--schema",
            SCHEMA,
            "--format",
            "copy",
            "--rows",
            "all",
            "--with-system-columns",
        ];
        if evidence {
            a.push("--evidence");
        }
        a
    };
    let parallel = run(&args(false));
    let in_order = run(&args(true));
    assert_eq!(parallel.stdout, in_order.stdout);
    assert_eq!(parallel.code, in_order.code, "{}", parallel.stderr);
    let lines: Vec<&str> = parallel.stdout.lines().collect();
    assert!(
        lines.len() >= 2 && lines.len().is_multiple_of(2),
        "{}",
        parallel.stdout
    );
    let (first, second) = lines.split_at(lines.len() / 2);
    assert!(first.iter().all(|l| l.starts_with("(0,")), "{first:?}");
    assert!(
        second.iter().all(|l| l.starts_with("(131072,")),
        "{second:?}"
    );
    for (a, b) in first.iter().zip(second) {
        assert_eq!(a.split_once('\t').unwrap().1, b.split_once('\t').unwrap().1);
    }
    // A third segment cut inside its first block: named and skipped, the
    // same way by both.
    fs::write(dir.join("16384.2"), &fs::read(REL).unwrap()[..100]).unwrap();
    let parallel = run(&args(false));
    let in_order = run(&args(true));
    assert_eq!(parallel.code, in_order.code);
    assert_eq!(parallel.stdout, in_order.stdout);
    assert_eq!(parallel.stdout.lines().count(), lines.len());
    assert!(
        parallel
            .stderr
            .contains("block 262144: skipped: only 100 of 8192 bytes"),
        "{}",
        parallel.stderr
    );
    fs::remove_dir_all(&dir).unwrap();
}

/// fixtures/postgres/salvage: one byte of one tuple of block 1 changed, in
/// three places (make.sh). Each copy gives the rows COPY wrote before the
/// damage minus exactly the damaged tuple, names the block and the tuple,
/// and exits 1; `--strict` skips block 1 whole, as before.
#[test]
fn a_damaged_block_keeps_its_good_tuples() {
    let columns = String::from_utf8(fixture_bytes("postgres/salvage/t.columns")).unwrap();
    let columns = columns.trim();
    let all = expected_salvage("expected.csv");
    // (copy, the damaged row's id, what its skip says)
    let cases = [
        ("tuple_data", "56", "block 1 lp 5: skipped: column 7 col7: "),
        (
            "tuple_header",
            "61",
            "block 1 lp 10: skipped: t_hoff 16 but 8 attributes need 24",
        ),
        (
            "line_pointer",
            "66",
            "block 1 lp 15: skipped: item offset 5876 is not MAXALIGNed",
        ),
    ];
    for (copy, id, why) in cases {
        let rel = fixture(&format!("postgres/salvage/{copy}/t"));
        let rel = rel.to_str().unwrap();
        let r = run(&["export", rel, "--columns", columns]);
        assert_eq!(r.code, 1, "{copy}: {}", r.stderr);
        let want: String = all
            .split_inclusive('\n')
            .filter(|l| !l.starts_with(&format!("{id},")))
            .collect();
        assert_eq!(all.lines().count(), 240);
        assert_eq!(r.stdout.lines().count(), 239, "{copy}");
        assert_eq!(r.stdout, want, "{copy}");
        assert!(r.stderr.contains(why), "{copy}: {}", r.stderr);
        assert!(
            r.stderr.contains(
                "block 1: damaged (checksum mismatch for block 1: stored 0x7285, computed 0x"
            ) && r.stderr.contains("50 rows written")
                && r.stderr.contains("1 tuple skipped"),
            "{copy}: {}",
            r.stderr
        );
        assert!(
            r.stderr.contains(
                "239 rows written; skipped 0 blocks and 1 tuples that could not be read; \
                 1 damaged blocks salvaged tuple by tuple"
            ),
            "{copy}: {}",
            r.stderr
        );
        // --strict: block 1 skipped whole.
        let r = run(&["export", rel, "--columns", columns, "--strict"]);
        assert_eq!(r.code, 1, "{copy}: {}", r.stderr);
        assert_eq!(r.stdout.lines().count(), 189, "{copy}");
        assert!(
            r.stderr
                .contains("block 1: skipped: checksum mismatch for block 1"),
            "{copy}: {}",
            r.stderr
        );
    }
    // The undamaged file: every row, exit 0.
    let clean = fixture("postgres/salvage/clean/t");
    let r = run(&["export", clean.to_str().unwrap(), "--columns", columns]);
    assert_eq!(
        (r.code, r.stdout.as_str()),
        (0, all.as_str()),
        "{}",
        r.stderr
    );
}

fn expected_salvage(name: &str) -> String {
    String::from_utf8(fixture_bytes(&format!("postgres/salvage/{name}"))).unwrap()
}

/// `--blocks` as show takes it: only those blocks' rows, in order; a range
/// outside the relation or backwards is a usage error.
#[test]
fn blocks_selects_the_relations_blocks() {
    let columns = String::from_utf8(fixture_bytes("postgres/salvage/t.columns")).unwrap();
    let columns = columns.trim();
    let clean = fixture("postgres/salvage/clean/t");
    let clean = clean.to_str().unwrap();
    let all = expected_salvage("expected.csv");
    let ctids = expected_salvage("ctids");
    // The ids of the rows in blocks 2 and after, from `SELECT ctid, id`.
    let ids_from = |first: u32| -> Vec<String> {
        ctids
            .lines()
            .filter_map(|l| {
                let (ctid, id) = l.trim_matches('"').split_once("\",")?;
                let block: u32 = ctid
                    .trim_start_matches('(')
                    .split(',')
                    .next()?
                    .parse()
                    .ok()?;
                (block >= first).then(|| id.to_string())
            })
            .collect()
    };
    let want: String = all
        .split_inclusive('\n')
        .filter(|l| {
            ids_from(2)
                .iter()
                .any(|id| l.starts_with(&format!("{id},")))
        })
        .collect();
    assert!(!want.is_empty());
    for range in ["2..", "2..=99", "2..4"] {
        let r = run(&["export", clean, "--columns", columns, "--blocks", range]);
        assert_eq!(r.code, 0, "{range}: {}", r.stderr);
        assert_eq!(r.stdout, want, "{range}");
    }
    let r = run(&["export", clean, "--columns", columns, "--blocks", "..1"]);
    assert_eq!(r.stdout.lines().count() + want.lines().count(), 240);
    for (range, says) in [
        ("9..", "no blocks to export"),
        ("3..1", "--blocks: 3 is after 1"),
        ("x", "--blocks: expected N, A..B, A.. or ..B"),
    ] {
        let r = run(&["export", clean, "--columns", columns, "--blocks", range]);
        assert_eq!(r.code, 2, "{range}: {}", r.stderr);
        assert!(r.stderr.contains(says), "{range}: {}", r.stderr);
        assert_eq!(r.stdout, "", "{range}");
    }
}
