//! `infer` and `--columns auto` on pages a real PostgreSQL 15 wrote, their
//! catalog withheld: `export --columns auto` gives the rows `export` gives
//! with the real columns.

mod common;

/// Heap fixtures (fixtures/postgres/heap/NAME.0.page, columns in
/// fixtures/postgres/attrs/NAME.schema.json) whose proposal prints every
/// row as the real columns do.
const EQUAL: [&str; 10] = [
    "delete",
    "full_page",
    "hot_update",
    "nonhot_update",
    "plain_insert",
    "rolled_back_insert",
    "row_locks",
    "vacuum_freeze",
    "vacuum_pruned",
    "nulls",
];

fn export(page: &str, columns: &[&str]) -> common::Run {
    let mut args = vec!["export", page, "--format", "copy", "--rows", "all"];
    args.extend_from_slice(columns);
    common::run(&args)
}

#[test]
fn export_with_columns_auto_equals_export_with_the_catalog() {
    for name in EQUAL {
        let page = common::fixture(&format!("postgres/heap/{name}.0.page"));
        let page = page.to_str().unwrap();
        let schema = common::fixture(&format!("postgres/attrs/{name}.schema.json"));
        let real = export(page, &["--schema", schema.to_str().unwrap()]);
        let auto = export(page, &["--columns", "auto"]);
        // 1 where the page's checksum is for another block (salvaged
        // tuple by tuple, all rows written): the same for both.
        assert_ne!(real.code, 2, "{name}: {}", real.stderr);
        assert_eq!(auto.code, real.code, "{name}: {}", auto.stderr);
        assert!(!real.stdout.is_empty(), "{name}");
        // timestamp and timestamptz store the same bytes; infer proposes
        // timestamptz, which prints the zone.
        let want = if name == "nulls" {
            real.stdout.replace(" 10:10:10\t", " 10:10:10+00\t")
        } else {
            real.stdout.clone()
        };
        assert_eq!(auto.stdout, want, "{name}: {}", auto.stderr);
        assert!(
            auto.stderr.contains("--columns auto: "),
            "{name}: {}",
            auto.stderr
        );
    }
}

/// The export fixture (types of many kinds, TOAST, a dropped and an added
/// column): the proposal splits every tuple, and the columns it gets right
/// print as the catalog's do.
#[test]
fn infer_the_export_fixture_with_its_toast() {
    let rel = common::fixture("postgres/export/data/base/5/16384");
    let toast = common::fixture("postgres/export/data/base/5/16387");
    let r = common::run(&[
        "infer",
        rel.to_str().unwrap(),
        "--toast",
        toast.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let list = r.stdout.lines().next().unwrap();
    // id, name, amount, ok, at, (dropped int4), ratio, doc, big, added.
    assert!(
        list.starts_with("int4, text, numeric, bool, timestamptz, "),
        "{list}"
    );
    assert!(list.ends_with(", float8, jsonb, text, text"), "{list}");
    assert!(r.stdout.contains("splits 66 of 66 tuples"), "{}", r.stdout);
}

/// Not a heap: exit 2 with a message; standard input is refused.
#[test]
fn no_tuples_is_an_error() {
    let btree = common::fixture("postgres/btree/bt_deleted.0.page");
    if btree.exists() {
        let r = common::run(&["infer", btree.to_str().unwrap()]);
        assert_eq!(r.code, 2, "{}", r.stdout);
    }
    let r = common::run(&["infer", "-"]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("standard input"), "{}", r.stderr);
}
