//! Geometric, text-search and contrib extension types against what
//! PostgreSQL 15 (Debian's) and 18 wrote for the same rows
//! (fixtures/postgres/catalog/contrib.sh): `export`'s COPY text and CSV
//! byte for byte, by table name through the catalogs and from the relation
//! file with `--columns`; `show`'s values; NDJSON strings; and the isn types,
//! which are not decoded, written as hex and named as such.

mod common;

use std::fs;
use std::path::PathBuf;

use common::{fixture, run};
use serde_json::Value;

const MAJORS: [u32; 2] = [15, 18];
/// The tables whose every column blockscope decodes.
const TABLES: [&str; 3] = ["public.geo", "public.tsearch", "public.contrib"];

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
                assert!(want.lines().count() >= 4, "{major} {name}");
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
            let doc: Value = serde_json::from_str(&r.stdout).unwrap();
            let pages = match doc {
                Value::Array(p) => p,
                page => vec![page],
            };
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

/// The isn types (`ean13`, `isbn`, …) print with hyphens placed by the
/// ISBN/ISMN/ISSN range tables, which blockscope does not carry: their
/// values are written as hex of their 8 bytes, and the columns are named on
/// standard error; show says the same per value.
#[test]
fn undecoded_extension_types_are_hex_and_named() {
    for major in MAJORS {
        let r = run(&[
            "export",
            &datadir(major),
            "--table",
            "public.isn",
            "--format",
            "copy",
        ]);
        assert_eq!(r.code, 0, "{major}: {}", r.stderr);
        let want = expected(major, "public.isn", "copy");
        assert_eq!(r.stdout.lines().count(), want.lines().count());
        let first: Vec<&str> = r.stdout.lines().next().unwrap().split('\t').collect();
        assert_eq!(first.len(), 9);
        for f in &first[1..] {
            assert!(f.starts_with("\\\\x") && f.len() == 3 + 16, "{major}: {f}");
        }
        assert!(
            r.stderr.contains(
                "public.isn: not decoded, written as bytea's hex text (\\x…): e (ean13), \
                 b (isbn), b13 (isbn13), m (ismn), m13 (ismn13), s (issn), s13 (issn13), u (upc)\n"
            ),
            "{major}: {}",
            r.stderr
        );
        let r = run(&[
            "show",
            &datadir(major),
            "--table",
            "public.isn",
            "-f",
            "json",
        ]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(
            r.stdout.contains("type ean13 is not decoded; shown as hex"),
            "{major}"
        );
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
