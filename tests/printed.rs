//! Values PostgreSQL prints by name or from a binary layout of its own,
//! judged against the server: `export DATADIR --table T` of the stopped
//! PostgreSQL 15 cluster of fixtures/postgres/printed (made by its make.sh)
//! writes, byte for byte, what the server's `COPY T TO STDOUT` wrote.

mod common;

use common::{fixture, run};

const DATADIR: &str = "fixtures/postgres/printed/datadir";

/// `export --table TABLE` with `extra` (`--format copy` unless it names one).
fn export(table: &str, extra: &[&str]) -> common::Run {
    let mut args = vec!["export", DATADIR, "--table", table, "--database", "printed"];
    if !extra.contains(&"--format") {
        args.extend_from_slice(&["--format", "copy"]);
    }
    args.extend_from_slice(extra);
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r
}

fn server(name: &str) -> String {
    std::fs::read_to_string(fixture(&format!("postgres/printed/{name}"))).unwrap()
}

/// refcursor, txid_snapshot, pg_snapshot, aclitem and aclitem[] (PUBLIC,
/// grant options, a quoted role name, a dropped role's OID, a relacl).
#[test]
fn refcursor_snapshots_and_aclitems_equal_the_servers_copy() {
    let r = export("vals", &[]);
    assert_eq!(r.stdout, server("vals.copy"));
    assert_eq!(r.stderr, "");
}

/// Every jsonpath of the fixture (108 paths of PostgreSQL's jsonpath
/// regression tests) prints as `jsonpath_out` printed it.
#[test]
fn jsonpaths_equal_the_servers_copy() {
    let r = export("paths", &[]);
    let want = server("paths.copy");
    assert_eq!(want.lines().count(), 108);
    for (got, want) in r.stdout.lines().zip(want.lines()) {
        assert_eq!(got, want);
    }
    assert_eq!(r.stdout, want);
    assert_eq!(r.stderr, "");
}

/// Stored generated columns are left out as `COPY gen TO STDOUT` leaves
/// them out; `--with-generated` writes them as `COPY (SELECT * FROM gen)`.
#[test]
fn generated_columns_are_left_out_as_copy_leaves_them_out() {
    assert_eq!(export("gen", &[]).stdout, server("gen.copy"));
    let csv = export("gen", &["--format", "csv", "--header"]);
    assert_eq!(csv.stdout, server("gen.csv"));
    let all = export("gen", &["--with-generated"]);
    assert_eq!(all.stdout, server("gen_all.copy"));
    let all_csv = export("gen", &["--with-generated", "--format", "csv", "--header"]);
    assert_eq!(all_csv.stdout, server("gen_all.csv"));
    // The server refuses to name one in COPY's column list.
    assert!(server("gen_columns.txt").contains("Generated columns cannot be used in COPY"));
}

/// In a column list a stored generated column is marked `generated:`.
#[test]
fn generated_columns_in_a_column_list() {
    let file = format!("{DATADIR}/{}", server("gen_file.txt").trim());
    let columns = "id int, a int, generated:g int, b text, generated:G2 text, c numeric";
    let args = ["export", &file, "--columns", columns, "--format", "copy"];
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, server("gen.copy"));
    let mut with = args.to_vec();
    with.push("--with-generated");
    let r = run(&with);
    assert_eq!(r.stdout, server("gen_all.copy"));
}

/// Every reg* type prints as the server printed it: regclass, regtype,
/// regproc, regprocedure, regoper, regoperator, regrole, regnamespace,
/// regconfig, regdictionary and regcollation (quoted, qualified when the
/// search path does not find them, or for regproc and regoper when the bare
/// name is not unique; `-` for OID 0, `0` for regoper and regoperator; the
/// number for an OID not in the catalog).
#[test]
fn every_reg_type_equals_the_servers_copy() {
    let r = export("regs", &[]);
    let want = server("regs.copy");
    assert_eq!(want.lines().count(), 15);
    for (got, want) in r.stdout.lines().zip(want.lines()) {
        assert_eq!(got, want);
    }
    assert_eq!(r.stdout, want);
    assert_eq!(r.stderr, "");
}

/// Live, with BLOCKSCOPE_PG_PRINTED=1: fixtures/postgres/printed/live.sh
/// makes a cluster with every reg* type and aclitems on real servers of the
/// majors in BLOCKSCOPE_PG_PRINTED_MAJORS (default `12 18`; from
/// fixtures/postgres/servers.sh), and this binary's export of it must equal
/// the server's COPY. About 10 seconds a major once the server is installed.
#[test]
fn live_reg_names_and_aclitems_equal_copy_on_other_majors() {
    if std::env::var("BLOCKSCOPE_PG_PRINTED").ok().as_deref() != Some("1") {
        eprintln!(
            "skipped: set BLOCKSCOPE_PG_PRINTED=1 (needs root, npm and PostgreSQL 15's psql)"
        );
        return;
    }
    let majors =
        std::env::var("BLOCKSCOPE_PG_PRINTED_MAJORS").unwrap_or_else(|_| "12 18".to_string());
    for major in majors.split_whitespace() {
        let out = std::process::Command::new("bash")
            .arg(fixture("postgres/printed/live.sh"))
            .arg(major)
            .env("BLOCKSCOPE", env!("CARGO_BIN_EXE_blockscope"))
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "PostgreSQL {major}:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(stdout.matches("rows equal COPY's").count(), 2, "{stdout}");
    }
}
