//! Geometric, text-search and contrib extension types against what
//! PostgreSQL 15 (Debian's) and 18 wrote for the same rows
//! (fixtures/postgres/catalog/contrib.sh): `export`'s COPY text and CSV
//! byte for byte, by table name through the catalogs and from the relation
//! file with `--columns`; `show`'s values; NDJSON strings. The tables include
//! the isn types across their hyphenation ranges and ltree's lquery and
//! ltxtquery.

mod common;

use std::fs;
use std::path::PathBuf;

use common::{fixture, run};
use serde_json::Value;

const MAJORS: [u32; 2] = [15, 18];
/// The tables whose every column blockscope decodes.
const TABLES: [&str; 6] = [
    "public.geo",
    "public.tsearch",
    "public.contrib",
    "public.isn",
    "public.isn_ranges",
    "public.ltree_query",
];

fn dir(major: u32) -> PathBuf {
    fixture(&format!("postgres/catalog/contrib/{major}"))
}

fn datadir(major: u32) -> String {
    dir(major).join("datadir").to_str().unwrap().to_string()
}

/// A table's relation file, its TOAST relation's file, and its columns as a
/// `--columns` list, from what the server said (tables.txt, columns.txt).
struct Table {
    main: String,
    toast: Option<String>,
    columns: String,
}

fn table(major: u32, name: &str) -> Table {
    let d = dir(major);
    let tables = fs::read_to_string(d.join("tables.txt")).unwrap();
    let line: Vec<&str> = tables
        .lines()
        .map(|l| l.split('|').collect::<Vec<_>>())
        .find(|f| f[0] == name)
        .unwrap_or_else(|| panic!("{name} not in tables.txt"));
    let path = |rel: &str| d.join("datadir").join(rel).to_str().unwrap().to_string();
    let columns: Vec<String> = fs::read_to_string(d.join("columns.txt"))
        .unwrap()
        .lines()
        .map(|l| l.split('|').collect::<Vec<_>>())
        .filter(|f| f[0] == name)
        .map(|f| format!("{} {}", f[2], f[3]))
        .collect();
    assert!(!columns.is_empty(), "{name}");
    Table {
        main: path(line[1]),
        toast: (!line[2].is_empty()).then(|| path(line[2])),
        columns: columns.join(", "),
    }
}

fn expected(major: u32, name: &str, ext: &str) -> String {
    fs::read_to_string(dir(major).join(format!("{name}.{ext}"))).unwrap()
}

/// `export DATADIR --table T`: no column list typed; COPY's text and CSV
/// exactly as the server's `COPY (SELECT * FROM T) TO STDOUT` wrote them.
#[test]
fn export_by_table_name_is_what_copy_wrote() {
    for major in MAJORS {
        for name in TABLES {
            for (format, ext) in [("copy", "copy"), ("csv", "csv")] {
                let r = run(&[
                    "export",
                    &datadir(major),
                    "--table",
                    name,
                    "--format",
                    format,
                ]);
                assert_eq!(r.code, 0, "{major} {name}: {}", r.stderr);
                let want = expected(major, name, ext);
                assert!(want.lines().count() >= 2, "{major} {name}");
                assert_eq!(r.stdout, want, "{major} {name} --format {format}");
                assert!(!r.stderr.contains("not decoded"), "{}", r.stderr);
            }
        }
    }
}

/// The relation file alone, typed with `--columns` by the names the server
/// gives (`line[]`, `hstore`, `tsvector`, `citext[]`, …) and its TOAST file.
#[test]
fn export_of_a_relation_file_with_columns_is_what_copy_wrote() {
    for major in MAJORS {
        for name in TABLES {
            let t = table(major, name);
            for (format, ext) in [("copy", "copy"), ("csv", "csv")] {
                let mut args = vec![
                    "export",
                    &t.main,
                    "--columns",
                    &t.columns,
                    "--format",
                    format,
                ];
                if let Some(toast) = &t.toast {
                    args.extend(["--toast", toast.as_str()]);
                }
                let r = run(&args);
                assert_eq!(r.code, 0, "{major} {name}: {}", r.stderr);
                assert_eq!(r.stdout, expected(major, name, ext), "{major} {name}");
            }
        }
    }
}

/// COPY's text format unescaped: `\N` is NULL.
fn copy_field(f: &str) -> Option<String> {
    if f == "\\N" {
        return None;
    }
    let mut out = String::new();
    let mut chars = f.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some(other) => out.push(other),
            None => {}
        }
    }
    Some(out)
}

fn copy_rows(major: u32, name: &str) -> Vec<Vec<Option<String>>> {
    expected(major, name, "copy")
        .lines()
        .map(|l| l.split('\t').map(copy_field).collect())
        .collect()
}

/// `show FILE --columns … -f json`: every attribute's value is the text
/// SELECT returns, with no problem attached.
#[test]
fn show_with_columns_prints_what_select_returns() {
    for major in MAJORS {
        for name in TABLES {
            let t = table(major, name);
            let mut args = vec!["show", &t.main, "--columns", &t.columns, "-f", "json"];
            if let Some(toast) = &t.toast {
                args.extend(["--toast", toast.as_str()]);
            }
            let r = run(&args);
            assert_eq!(r.code, 0, "{major} {name}: {}", r.stderr);
            let pages = common::show_blocks(&r.stdout);
            let mut rows = Vec::new();
            for page in &pages {
                for item in page["items"].as_array().unwrap() {
                    let Some(attrs) = item.get("attrs").and_then(Value::as_array) else {
                        continue;
                    };
                    let mut row = Vec::new();
                    for a in attrs {
                        let problems = a.get("problems").and_then(Value::as_array);
                        assert!(
                            problems.is_none_or(|p| p.is_empty()),
                            "{major} {name} {}: {problems:?}",
                            a["name"]
                        );
                        row.push(match &a["value"] {
                            Value::Null => None,
                            Value::String(s) => Some(s.clone()),
                            other => Some(other.to_string()),
                        });
                    }
                    rows.push(row);
                }
            }
            assert_eq!(rows, copy_rows(major, name), "{major} {name}");
        }
    }
}

/// NDJSON: the id a number, every value of these types a string holding the
/// type's output text (the text COPY wrote), NULL as null.
#[test]
fn ndjson_values_are_strings_of_the_output_text() {
    for name in TABLES {
        let r = run(&[
            "export",
            &datadir(18),
            "--table",
            name,
            "--format",
            "ndjson",
        ]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        let want = copy_rows(18, name);
        let got: Vec<Value> = r
            .stdout
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(got.len(), want.len(), "{name}");
        for (obj, row) in got.iter().zip(&want) {
            let values: Vec<&Value> = obj.as_object().unwrap().values().collect();
            assert_eq!(values.len(), row.len(), "{name}");
            assert!(values[0].is_number(), "{name}: {obj}");
            for (v, field) in values.iter().zip(row).skip(1) {
                match field {
                    None => assert!(v.is_null(), "{name}: {v}"),
                    Some(text) => assert_eq!(v.as_str(), Some(text.as_str()), "{name}"),
                }
            }
        }
    }
}

/// The values the tests above compare are many and varied: every isn type
/// with numbers in many hyphenation ranges (ISBN group and publisher
/// lengths, unhyphenated numbers outside the tables, ISSN issue digits, `X`
/// check digits, the `!` of a number stored with a wrong check digit), and
/// lquery / ltxtquery with their flags, NOT, repeat counts and
/// parentheses, one of each TOASTed.
#[test]
fn isn_and_ltree_query_values_are_varied() {
    for major in MAJORS {
        let rows = copy_rows(major, "public.isn_ranges");
        let column =
            |i: usize| -> Vec<&str> { rows.iter().filter_map(|r| r[i].as_deref()).collect() };
        // e, b, b13, m, m13, s, s13, u: (column, at least).
        for (i, least) in [
            (1, 3300),
            (2, 1700),
            (3, 1700),
            (4, 200),
            (5, 200),
            (6, 200),
            (7, 200),
            (8, 200),
        ] {
            assert!(
                column(i).len() >= least,
                "{major} column {i}: {}",
                column(i).len()
            );
        }
        // The hyphens' places of the ISBN-13s: group and publisher lengths.
        let shapes: std::collections::BTreeSet<Vec<usize>> = column(3)
            .iter()
            .map(|v| v.match_indices('-').map(|(at, _)| at).collect())
            .collect();
        assert!(shapes.len() >= 20, "{major}: {shapes:?}");
        assert!(
            column(3).iter().any(|v| v.matches('-').count() == 2),
            "{major}"
        );
        assert!(column(2).iter().any(|v| v.ends_with('X')), "{major}");
        assert!(column(6).iter().any(|v| v.ends_with('X')), "{major}");
        assert!(column(1)
            .iter()
            .any(|v| !v.contains('-') || v.find('-') != Some(3)));
        for i in 1..=8 {
            assert!(column(i).iter().any(|v| v.ends_with('!')) || matches!(i, 6 | 8));
        }
        let q = copy_rows(major, "public.ltree_query");
        let lq: Vec<&str> = q.iter().filter_map(|r| r[1].as_deref()).collect();
        let lt: Vec<&str> = q.iter().filter_map(|r| r[2].as_deref()).collect();
        assert!(lq.len() >= 10 && lt.len() >= 10, "{major}");
        for needle in [
            "!", "|", "%@*", "{2,5}", "{,2}", "{1,}", "{1}", "{,3}", "{2}",
        ] {
            assert!(
                lq.iter().any(|v| v.contains(needle)),
                "{major} lquery {needle}"
            );
        }
        for needle in ["!( ", " & ", " | ", "( ", "@*", "%"] {
            assert!(
                lt.iter().any(|v| v.contains(needle)),
                "{major} ltxtquery {needle}"
            );
        }
        assert!(lq.iter().any(|v| v.len() > 2000) && lt.iter().any(|v| v.len() > 2000));
    }
}

/// A type blockscope does not print (`NAME:8:d` in `--columns`) is written
/// as the hex of its bytes and named on standard error. Read so, the long
/// isn columns' 8 bytes hold the number COPY printed, shifted left by one,
/// with bit 0 set exactly where COPY wrote the invalid-check-digit `!`.
#[test]
fn unknown_types_are_hex_and_named() {
    for major in MAJORS {
        let t = table(major, "public.isn_ranges");
        let columns = "id int, e a:8:d, b isbn, b13 b:8:d, m ismn, m13 c:8:d, s issn, \
                       s13 d:8:d, u upc, bs isbn[]";
        let r = run(&["export", &t.main, "--columns", columns, "--format", "copy"]);
        assert_eq!(r.code, 0, "{major}: {}", r.stderr);
        assert!(
            r.stderr.contains(
                "not decoded, written as bytea's hex text (\\x…): e (a), b13 (b), m13 (c), s13 (d)\n"
            ),
            "{major}: {}",
            r.stderr
        );
        let want = copy_rows(major, "public.isn_ranges");
        let got: Vec<Vec<Option<String>>> = r
            .stdout
            .lines()
            .map(|l| l.split('\t').map(copy_field).collect())
            .collect();
        assert_eq!(got.len(), want.len(), "{major}");
        let mut compared = 0;
        for (g, w) in got.iter().zip(&want) {
            for i in [1, 3, 5, 7] {
                let (Some(hex), Some(text)) = (&g[i], &w[i]) else {
                    assert_eq!(g[i].is_none(), w[i].is_none(), "{major} {w:?}");
                    continue;
                };
                let bytes: Vec<u8> = (0..8)
                    .map(|k| u8::from_str_radix(&hex[2 + 2 * k..4 + 2 * k], 16).unwrap())
                    .collect();
                let stored = u64::from_le_bytes(bytes.try_into().unwrap());
                let digits: String = text.chars().filter(char::is_ascii_digit).collect();
                assert_eq!(format!("{:013}", stored >> 1), digits, "{major} {text}");
                assert_eq!(stored & 1 == 1, text.ends_with('!'), "{major} {text}");
                compared += 1;
            }
            assert_eq!(g[2], w[2], "{major}");
        }
        assert!(compared > 3800, "{major}: {compared}");
    }
}

/// Runs fixtures/postgres/catalog/contrib.sh for PostgreSQL 12 to 18 into a
/// temp dir and compares export with each server's COPY there. Needs root
/// (servers run as postgres), psql and the servers of servers.sh; skipped
/// unless BLOCKSCOPE_LIVE_CONTRIB=1 (it takes a minute or two).
#[test]
fn live_types_on_every_major() {
    if std::env::var("BLOCKSCOPE_LIVE_CONTRIB").ok().as_deref() != Some("1") {
        eprintln!(
            "live types test skipped: set BLOCKSCOPE_LIVE_CONTRIB=1 to run contrib.sh for 12..18"
        );
        return;
    }
    let script = fixture("postgres/catalog/contrib.sh");
    let out = std::env::temp_dir().join(format!("blockscope-contrib-live-{}", std::process::id()));
    let port = std::env::var("BLOCKSCOPE_PG_PORT").unwrap_or_else(|_| "56222".into());
    let majors = ["12", "13", "14", "15", "16", "17", "18"];
    let status = std::process::Command::new("bash")
        .arg(&script)
        .args(["--out", out.to_str().unwrap(), "--port", &port])
        .args(majors)
        .status();
    assert!(
        matches!(status, Ok(s) if s.success()),
        "contrib.sh could not build the clusters ({status:?})"
    );
    for major in majors {
        let d = out.join(major);
        for name in TABLES {
            for format in ["copy", "csv"] {
                let r = run(&[
                    "export",
                    d.join("datadir").to_str().unwrap(),
                    "--table",
                    name,
                    "--format",
                    format,
                ]);
                assert_eq!(r.code, 0, "{major} {name}: {}", r.stderr);
                let want = fs::read_to_string(d.join(format!("{name}.{format}"))).unwrap();
                assert_eq!(
                    r.stdout, want,
                    "PostgreSQL {major} {name} --format {format}"
                );
            }
        }
    }
    let _ = fs::remove_dir_all(&out);
}
