//! The README's main path, judged against the server: `export DATADIR
//! --table T --database D` on a stopped PostgreSQL 15 cluster
//! (fixtures/postgres/readme, made by its make.sh) writes what the server's
//! `COPY … TO STDOUT (FORMAT csv, HEADER)` wrote, and `--rows deleted`
//! brings back the row a committed DELETE removed.

mod common;

use common::{fixture, run};

const DATADIR: &str = "fixtures/postgres/readme/datadir";

#[test]
fn export_by_table_name_equals_the_servers_copy() {
    let r = run(&[
        "export",
        DATADIR,
        "--table",
        "public.orders",
        "--database",
        "shop",
        "--header",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let server = std::fs::read_to_string(fixture("postgres/readme/orders.csv")).unwrap();
    assert_eq!(r.stdout, server);
    // Visibility came from pg_xact: nothing to say about it.
    assert_eq!(r.stderr, "");
}

#[test]
fn the_deleted_order_comes_back() {
    let r = run(&[
        "export",
        DATADIR,
        "--table",
        "orders",
        "--database",
        "shop",
        "--rows",
        "deleted",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, "4,Edgar Codd,0.99,2026-11-08\n");
}

#[test]
fn the_table_is_looked_up_in_the_database_named() {
    let r = run(&["export", DATADIR, "--table", "public.orders"]);
    // Without --database: the database postgres (oid 5) first, whose
    // catalogs were not kept; then every other database, and the one that
    // holds the table alone is used and named.
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.assert_stderr_has(&["it is in database \"shop\" alone, and is read from there"]);
    assert!(
        r.stdout.starts_with("1,Ada Lovelace,42.50,2026-11-02\n"),
        "{}",
        r.stdout
    );
}
