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

/// The columns of `regs` (id, then one per reg* type) printed by name, in
/// the table's column order.
const REGS_NAMED: [&str; 5] = ["id", "regclass", "regtype", "regrole", "regnamespace"];

/// The fields of a `regs` line that `REGS_NAMED` names.
fn regs_named(line: &str) -> Vec<&str> {
    // id rc rt rp rpd ro rod rr rn rcf rd rco
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 12, "{line}");
    [0, 1, 2, 7, 8].iter().map(|&i| fields[i]).collect()
}

/// regclass, regtype, regrole and regnamespace print as the server's names
/// (quoted, qualified when the search path does not find them, `-` for
/// OID 0, the number for an OID not in the catalog); the other reg* types
/// stay numbers, not names that could be wrong.
#[test]
fn regclass_regtype_regrole_regnamespace_equal_the_servers_copy() {
    let r = export("regs", &[]);
    let want = server("regs.copy");
    assert_eq!(r.stdout.lines().count(), 15);
    assert_eq!(want.lines().count(), 15);
    for (got, want) in r.stdout.lines().zip(want.lines()) {
        assert_eq!(regs_named(got), regs_named(want), "{REGS_NAMED:?}");
        let fields: Vec<&str> = got.split('\t').collect();
        for other in [3, 4, 5, 6, 9, 10, 11] {
            let f = fields[other];
            assert!(f == "-" || f.parse::<u32>().is_ok(), "{got}");
        }
    }
    assert_eq!(r.stderr, "");
}
