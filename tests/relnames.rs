//! The relation names `verify` and `map` print beside a file of a data
//! directory, judged against what a live PostgreSQL 15 said of each file
//! (`pg_filenode_relation(reltablespace, pg_relation_filenode(oid))`, in
//! fixtures/postgres/catalog/relnames/expected.txt, made by relnames.sh with
//! the data directory beside it): a table, its TOAST table and the TOAST
//! index, an index, a materialized view, a table in a second schema and one
//! in a second database, a table after VACUUM FULL, mapped catalogs
//! (pg_class, pg_database), a table in a tablespace, fsm, vm and init forks,
//! and a table named with ESC and BEL bytes.
//!
//! `BLOCKSCOPE_PG_RELNAMES_FIXTURES=DIR` reads a fresh DIR made by
//! relnames.sh instead (`.ci/relnames-live`).

mod common;

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

/// The fixture: `datadir/` and `expected.txt`.
fn fixtures() -> PathBuf {
    match std::env::var_os("BLOCKSCOPE_PG_RELNAMES_FIXTURES") {
        Some(dir) => PathBuf::from(dir),
        None => common::fixture("postgres/catalog/relnames"),
    }
}

/// One line of expected.txt.
struct Expected {
    path: String,
    name: String,
    fork: String,
    toast_of: Option<String>,
}

fn expected() -> Vec<Expected> {
    let text = fs::read(fixtures().join("expected.txt")).unwrap();
    let mut out: Vec<Expected> = Vec::new();
    for line in text.split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
        let line = String::from_utf8(line.to_vec()).unwrap();
        let f: Vec<&str> = line.split('|').collect();
        assert_eq!(f.len(), 4, "{line:?}");
        if out.iter().any(|e| e.path == f[0]) {
            continue; // global/ files, listed once per database
        }
        out.push(Expected {
            path: f[0].to_string(),
            name: escaped(f[1]),
            fork: f[2].to_string(),
            toast_of: (!f[3].is_empty()).then(|| escaped(f[3])),
        });
    }
    out
}

/// A name as blockscope prints it: `\` doubled, ASCII control bytes as `\xNN`.
fn escaped(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            c if c.is_ascii_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn temp_dir(name: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("blockscope-relnames-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// A copy of the fixture's data directory.
fn datadir_copy(name: &str) -> PathBuf {
    let dir = temp_dir(name).join("datadir");
    common::copy_tree(&fixtures().join("datadir"), &dir);
    dir
}

/// One byte of `file` set to 0xff at `offset` (a checksum failure, and
/// in a line pointer array a misaligned item).
fn damage(file: &Path, offset: usize) {
    let mut bytes = fs::read(file).unwrap();
    bytes[offset] = 0xff;
    fs::write(file, bytes).unwrap();
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

#[test]
fn map_names_every_file_as_the_live_server_does() {
    let expected = expected();
    assert!(expected.len() >= 30, "{} files", expected.len());
    let datadir = fixtures().join("datadir");
    for e in &expected {
        let file = datadir.join(&e.path);
        if fs::metadata(&file).unwrap().len() == 0 {
            continue; // an empty file (a heap's init fork): nothing to map
        }
        let r = common::run(&["map", "--format", "json", s(&file)]);
        assert!(r.code == 0 || r.code == 1, "{}: {}", e.path, r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let rel = &doc["summary"]["relation"];
        assert_eq!(doc["schema"], 3);
        assert_eq!(rel["name"], e.name.as_str(), "{}", e.path);
        assert_eq!(rel["fork"], e.fork.as_str(), "{}", e.path);
        assert_eq!(rel["segment"], 0, "{}", e.path);
        match &e.toast_of {
            Some(owner) => assert_eq!(rel["toast_of"], owner.as_str(), "{}", e.path),
            None => assert!(rel.get("toast_of").is_none(), "{}: {rel}", e.path),
        }
        // The picture's title: the path, then the name.
        let term = common::run(&["map", s(&file)]);
        let title = term.stdout.lines().next().unwrap_or_default();
        let toast = e
            .toast_of
            .as_ref()
            .map_or(String::new(), |o| format!(", TOAST of {o}"));
        let want = format!("{} ({}{toast}, {} fork): ", file.display(), e.name, e.fork);
        assert!(title.starts_with(&want), "{title:?} lacks {want:?}");
    }
    // Every kind the brief names is among them.
    for name in [
        "public.orders",
        "pg_toast.pg_toast_",
        "public.orders_id_idx",
        "public.orders_mv",
        "sales.invoices",
        "public.big",
        "public.spaced",
        "public.items",
        "pg_catalog.pg_class",
        "pg_catalog.pg_database",
    ] {
        assert!(expected.iter().any(|e| e.name.starts_with(name)), "{name}");
    }
    for fork in ["fsm", "vm", "init"] {
        assert!(expected.iter().any(|e| e.fork == fork), "{fork}");
    }
    assert!(expected.iter().any(|e| e.path.starts_with("pg_tblspc/")));
}

/// The number of the file expected.txt names `name`'s main fork in base/5.
fn main_file(name: &str) -> String {
    expected()
        .into_iter()
        .find(|e| e.name == name && e.fork == "main" && e.path.starts_with("base/"))
        .unwrap_or_else(|| panic!("{name} not in expected.txt"))
        .path
}

#[test]
fn verify_names_the_relation_of_each_problem() {
    let datadir = datadir_copy("verify");
    let orders = datadir.join(main_file("public.orders"));
    let toast = expected()
        .into_iter()
        .find(|e| e.toast_of.as_deref() == Some("public.orders") && e.fork == "main")
        .unwrap();
    let big = datadir.join(main_file("public.big"));
    damage(&orders, 100);
    damage(&datadir.join(&toast.path), 8192 + 100);
    // A second segment of public.big, damaged.
    let segment = PathBuf::from(format!("{}.1", big.display()));
    fs::copy(&big, &segment).unwrap();
    damage(&segment, 100);

    let r = common::run(&["verify", s(&datadir)]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let want_orders = format!("{} (public.orders, main fork): block 0 ", orders.display());
    let want_toast = format!(
        "{} ({}, TOAST of public.orders, main fork): block 1 ",
        datadir.join(&toast.path).display(),
        toast.name
    );
    let want_segment = format!(
        "{} (public.big, main fork, segment 1): block 131072 ",
        segment.display()
    );
    for want in [&want_orders, &want_toast, &want_segment] {
        assert!(
            r.stdout.lines().any(|l| l.starts_with(want.as_str())),
            "no line starts with {want:?}:\n{}",
            r.stdout
        );
    }
    // Every problem line names its relation.
    for line in r
        .stdout
        .lines()
        .take_while(|l| *l != "Verification completed")
    {
        assert!(line.contains(" fork"), "{line}");
    }

    // JSON: `relation` on each problem.
    let r = common::run(&["verify", "--format", "json", s(&datadir)]);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["schema"], 7);
    let problems = doc["problems"].as_array().unwrap();
    assert!(!problems.is_empty());
    for p in problems {
        let file = p["file"].as_str().unwrap();
        let rel = &p["relation"];
        if file == s(&segment) {
            assert_eq!(rel["name"], "public.big");
            assert_eq!(rel["segment"], 1);
        } else if file == s(&orders) {
            assert_eq!(rel["name"], "public.orders");
            assert_eq!(rel["fork"], "main");
            assert_eq!(rel["segment"], 0);
        } else {
            assert_eq!(rel["toast_of"], "public.orders", "{p}");
        }
    }

    // One file of the data directory alone, and with --deep.
    for args in [
        vec!["verify", s(&orders)],
        vec!["verify", "--deep", s(&orders)],
    ] {
        let r = common::run(&args);
        assert_eq!(r.code, 1, "{args:?}: {}", r.stderr);
        assert!(
            r.stdout.starts_with(&want_orders),
            "{args:?}:\n{}",
            r.stdout
        );
    }
}

#[test]
fn without_readable_catalogs_the_output_is_as_before() {
    let datadir = datadir_copy("unnamed");
    let orders_rel = main_file("public.orders");
    let orders = datadir.join(&orders_rel);
    damage(&orders, 100);
    // The same file alone, outside any data directory.
    let lone_dir = temp_dir("lone");
    let lone = lone_dir.join("16386");
    fs::copy(&orders, &lone).unwrap();
    let alone = common::run(&["verify", s(&lone)]);
    assert_eq!(alone.code, 1);
    assert!(!alone.stdout.contains(" fork"), "{}", alone.stdout);
    let lone_json = common::run(&["verify", "--format", "json", s(&lone)]);
    assert!(!lone_json.stdout.contains("\"relation\""));
    let lone_map = common::run(&["map", "--format", "json", s(&lone)]);
    assert!(!lone_map.stdout.contains("\"relation\""));

    // The data directory without its pg_class: the lines are the lone
    // file's, path aside, and nothing more is said.
    fs::remove_file(datadir.join("base/5/1259")).unwrap();
    let r = common::run(&["verify", s(&orders)]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout.replace(s(&orders), s(&lone)), alone.stdout);
    assert_eq!(r.stderr, alone.stderr);
    let r = common::run(&["map", s(&orders)]);
    assert_eq!(
        r.stdout.replace(s(&orders), s(&lone)),
        common::run(&["map", s(&lone)]).stdout
    );

    // A damaged pg_class page: what the damage hides is unnamed, no error.
    let datadir = datadir_copy("damaged");
    let orders = datadir.join(&orders_rel);
    damage(&orders, 100);
    let class = datadir.join("base/5/1259");
    let len = fs::metadata(&class).unwrap().len() as usize;
    for block in 0..len / 8192 {
        damage(&class, block * 8192 + 30);
    }
    let r = common::run(&["verify", s(&orders)]);
    assert_eq!(r.code, 1);
    assert_eq!(r.stdout.replace(s(&orders), s(&lone)), alone.stdout);
    assert_eq!(r.stderr, alone.stderr);
}

#[test]
fn names_are_escaped_everywhere() {
    let evil = expected()
        .into_iter()
        .find(|e| e.name.starts_with("public.evil"))
        .unwrap();
    assert_eq!(evil.name, "public.evil\\x1b[31m\\x07");
    let datadir = datadir_copy("escaped");
    let file = datadir.join(&evil.path);
    damage(&file, 30);
    let runs = [
        common::run(&["verify", s(&file)]),
        common::run(&["verify", "--format", "json", s(&file)]),
        common::run(&["verify", "--format", "ndjson", s(&file)]),
        common::run(&["map", s(&file)]),
        common::run(&["map", "--format", "svg", s(&file)]),
        common::run(&["map", "--format", "json", s(&file)]),
    ];
    for r in &runs {
        for raw in ['\u{1b}', '\u{7}'] {
            assert!(!r.stdout.contains(raw), "a raw {raw:?} in:\n{}", r.stdout);
            assert!(!r.stderr.contains(raw), "a raw {raw:?} in:\n{}", r.stderr);
        }
    }
    assert!(runs[0]
        .stdout
        .contains("(public.evil\\x1b[31m\\x07, main fork): block 0"));
    assert!(runs[1]
        .stdout
        .contains("\"name\": \"public.evil\\\\x1b[31m\\\\x07\""));
    assert!(runs[4]
        .stdout
        .contains("(public.evil\\x1b[31m\\x07, main fork)"));
}
