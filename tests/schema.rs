//! Every JSON document blockscope writes, validated against its JSON Schema
//! in docs/schema/ (draft 2020-12): `show`, `map` and `verify` in JSON and
//! NDJSON for every fixture file, with the options that add keys
//! (`--columns`, `--toast`, several inputs, `--evidence`, `--deep`, a data
//! directory); `diff` of pages of both engines; `decode` of every kind of
//! word; `carve`'s manifest.json of PostgreSQL pages and Oracle blocks.
//! And the shapes the schemas must refuse: the documents as they were
//! before their current version.
//!
//! Each schema file's root is `{"$ref": "#/$defs/document"}`; the lines of
//! an NDJSON stream are checked against `#/$defs/ndjson_line` of the same
//! file.

mod common;

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

/// The document kinds and their schema files (docs/schema/NAME.schema.json).
const KINDS: [&str; 10] = [
    "show",
    "pg_control",
    "pg_filenode_map",
    "map",
    "diff",
    "verify",
    "decode",
    "wal",
    "carve",
    "infer",
];

/// Every schema, compiled for its document and (where it has one) for an
/// NDJSON line.
struct Schemas {
    validators: HashMap<(String, &'static str), jsonschema::Validator>,
}

impl Schemas {
    fn load() -> Schemas {
        let mut validators = HashMap::new();
        for kind in KINDS {
            let path = common::root().join(format!("docs/schema/{kind}.schema.json"));
            let text = std::fs::read_to_string(&path).unwrap();
            let schema: Value = serde_json::from_str(&text).unwrap();
            // The schema is itself a valid draft 2020-12 schema.
            if let Err(e) = jsonschema::draft202012::meta::validate(&schema) {
                panic!("{}: not a draft 2020-12 schema: {e}", path.display());
            }
            // decode: one document, or an array of them for several VALUEs.
            let top = if kind == "decode" {
                &schema["oneOf"][0]["$ref"]
            } else {
                &schema["$ref"]
            };
            assert_eq!(top, "#/$defs/document", "{kind}");
            for top in ["document", "ndjson_line"] {
                if schema["$defs"].get(top).is_none() {
                    continue;
                }
                let mut s = schema.clone();
                s["$ref"] = Value::from(format!("#/$defs/{top}"));
                let v = jsonschema::draft202012::new(&s)
                    .unwrap_or_else(|e| panic!("{kind} {top}: {e}"));
                validators.insert((kind.to_string(), top), v);
            }
        }
        Schemas { validators }
    }

    /// The first error of `instance` against `kind`'s `top`, if any.
    fn error(&self, kind: &str, top: &'static str, instance: &Value) -> Option<String> {
        let v = self
            .validators
            .get(&(kind.to_string(), top))
            .unwrap_or_else(|| panic!("no schema for {kind} {top}"));
        v.iter_errors(instance)
            .next()
            .map(|e| format!("{} at {}", e, e.instance_path()))
    }

    fn valid(&self, kind: &str, top: &'static str, instance: &Value) -> bool {
        self.error(kind, top, instance).is_none()
    }
}

/// The kind of a `show` document: pg_control and pg_filenode.map files
/// have their own.
fn show_kind(doc: &Value) -> &'static str {
    if doc.get("pg_control").is_some() {
        "pg_control"
    } else if doc.get("pg_filenode_map").is_some() {
        "pg_filenode_map"
    } else {
        "show"
    }
}

/// What one run printed, checked: its JSON document, or each NDJSON line.
/// Exit status 2 (the input could not be read at all) gives no document.
fn check_run(schemas: &Schemas, command: &str, args: &[&str], found: &mut Vec<String>) -> usize {
    let r = common::run(args);
    if r.code == 2 || r.stdout.is_empty() {
        return 0;
    }
    let what = args.join(" ");
    let ndjson = args.windows(2).any(|w| w[1] == "ndjson");
    let mut checked = 0;
    let texts: Vec<&str> = if ndjson {
        r.stdout.lines().collect()
    } else {
        vec![r.stdout.as_str()]
    };
    for text in texts {
        let doc: Value = match serde_json::from_str(text) {
            Ok(v) => v,
            Err(e) => {
                found.push(format!("{what}: not JSON: {e}"));
                continue;
            }
        };
        let kind = if command == "show" {
            show_kind(&doc)
        } else {
            command
        };
        // pg_control's and pg_filenode.map's NDJSON is their document.
        let top = if ndjson && kind != "pg_control" && kind != "pg_filenode_map" {
            "ndjson_line"
        } else {
            "document"
        };
        // decode with several VALUEs: an array of documents (the schema's
        // second alternative), each checked as a document.
        let docs = match (kind, &doc) {
            ("decode", Value::Array(items)) if items.len() > 1 => items.clone(),
            _ => vec![doc],
        };
        for doc in &docs {
            if let Some(e) = schemas.error(kind, top, doc) {
                found.push(format!("{what}: {kind} {top}: {e}"));
            }
        }
        checked += 1;
    }
    checked
}

/// The fixture files blockscope reads: pages, relation files, Oracle
/// datafiles, blocks and traces, pg_control and relation maps, and the
/// text dumps of fixtures/inputs.
fn fixture_files() -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                walk(&p, out);
                continue;
            }
            let name = p.file_name().unwrap().to_str().unwrap().to_string();
            let ext = p.extension().and_then(|e| e.to_str()).unwrap_or("");
            let relation = name
                .split('.')
                .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
            let text_dump = ext == "txt" && p.components().any(|c| c.as_os_str() == "inputs");
            if relation
                || text_dump
                || name == "pg_control"
                || matches!(
                    ext,
                    "page"
                        | "rel"
                        | "blk"
                        | "bin"
                        | "dbf"
                        | "trc"
                        | "pages"
                        | "xxd"
                        | "bbed"
                        | "map"
                )
            {
                out.push(p);
            }
        }
    }
    let mut files = Vec::new();
    walk(&common::root().join("fixtures"), &mut files);
    files.sort();
    files
}

/// `show`, `map` and `verify`, JSON and NDJSON, of every fixture file,
/// on a few threads.
#[test]
fn every_fixture_file_gives_documents_of_its_schemas() {
    let schemas = Schemas::load();
    let files = fixture_files();
    assert!(files.len() > 800, "{} fixture files", files.len());
    let threads = 4;
    let chunk = files.len().div_ceil(threads);
    let (checked, found) = std::thread::scope(|s| {
        let handles: Vec<_> = files
            .chunks(chunk)
            .map(|part| {
                let schemas = &schemas;
                s.spawn(move || {
                    let mut found = Vec::new();
                    let mut checked = 0;
                    for path in part {
                        let p = path.strip_prefix(common::root()).unwrap_or(path);
                        let p = p.to_str().unwrap();
                        for command in ["show", "map", "verify"] {
                            for format in ["json", "ndjson"] {
                                checked += check_run(
                                    schemas,
                                    command,
                                    &[command, "--format", format, p],
                                    &mut found,
                                );
                            }
                        }
                    }
                    (checked, found)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).fold(
            (0, Vec::new()),
            |(n, mut all), (c, f)| {
                all.extend(f);
                (n + c, all)
            },
        )
    });
    assert!(
        found.is_empty(),
        "{} of {checked} documents or lines do not match their schema:\n{}",
        found.len(),
        found[..found.len().min(20)].join("\n")
    );
    // Most files give a document in every form; the rest are no pages.
    assert!(checked > 5 * files.len(), "{checked} checked");
}

/// The options that add keys: tuple values, TOAST, Oracle columns, several
/// inputs, provenance, the cross-page checks, a data directory.
#[test]
fn documents_with_every_optional_part_match_their_schemas() {
    let schemas = Schemas::load();
    let f = |rel: &str| common::fixture(rel).to_str().unwrap().to_string();
    let varlena = f("postgres/heap/varlena.0.page");
    let toast: Vec<String> = (0..3)
        .map(|b| f(&format!("postgres/toast/varlena_toast.{b}.page")))
        .collect();
    let (stale, stale_wal) = (
        f("postgres/lostwrite/stale"),
        f("postgres/lostwrite/datadir/pg_wal"),
    );
    let (dropped, typed, trace_text) = (
        f("postgres/heap/dropped_column.0.page"),
        f("oracle/typed.blk"),
        "fixtures/reference/blog-oracle/block_5_907.dump.txt".to_string(),
    );
    let (a, b) = (
        f("postgres/diff/inserted.page"),
        f("postgres/diff/vacuumed.page"),
    );
    let (relation, datadir, exported) = (
        f("postgres/corrupt/truncated/16384"),
        f("postgres/export/data"),
        f("postgres/export/data/base/5/16384"),
    );
    let typed_columns = "id number, name varchar2(20), born date, seen timestamp(9), \
                         f binary_float, d binary_double, nick nvarchar2(10), tag raw(4), \
                         memo varchar2(10), total number(10,2)";
    let varlena_columns =
        "id int, kind text, v_default text, v_plain text, v_external text, v_lz4 text";
    let mut runs: Vec<(&str, Vec<&str>)> = vec![
        (
            "show",
            vec![
                "show",
                &varlena,
                "--columns",
                varlena_columns,
                "--toast",
                &toast[0],
                "--toast",
                &toast[1],
                "--toast",
                &toast[2],
            ],
        ),
        (
            "show",
            vec!["show", &dropped, "--columns", "a int, dropped:text, c int"],
        ),
        ("show", vec!["show", &typed, "--columns", typed_columns]),
        ("show", vec!["show", &trace_text]),
        ("show", vec!["show", &a, &b]),
        ("show", vec!["show", &a, "/nonexistent/page"]),
        ("show", vec!["show", "--evidence", &a]),
        ("show", vec!["show", "--evidence", &a, &relation]),
        ("verify", vec!["verify", "--deep", &relation]),
        ("verify", vec!["verify", "--evidence", &relation]),
        ("verify", vec!["verify", &datadir]),
        // Lost writes: a stale data directory against its cluster's WAL.
        ("verify", vec!["verify", &stale, "--wal", &stale_wal]),
        ("map", vec!["map", &exported]),
    ];
    let mut found = Vec::new();
    let mut checked = 0;
    for (command, args) in runs.drain(..) {
        for format in ["json", "ndjson"] {
            let mut args = args.clone();
            args.extend(["--format", format]);
            let n = check_run(&schemas, command, &args, &mut found);
            // The nonexistent input is an error (2): its document is
            // still whole, checked apart below.
            if !args.contains(&"/nonexistent/page") {
                assert!(n > 0, "{args:?}: nothing checked");
            }
            checked += n;
        }
    }
    let r = common::run(&["show", &a, "/nonexistent/page", "--format", "json"]);
    assert_eq!(r.code, 2);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert!(schemas.valid("show", "document", &doc));
    assert!(found.is_empty(), "{checked} checked:\n{}", found.join("\n"));
}

/// `diff --format json` of pages and blocks that differ in every way a
/// diff reports (fields, items, problems, free bytes, blocks of one side).
#[test]
fn diff_documents_match_their_schema() {
    let schemas = Schemas::load();
    let f = |rel: &str| common::fixture(rel).to_str().unwrap().to_string();
    let pages = ["inserted", "hinted", "updated", "vacuumed", "rerun"]
        .map(|n| f(&format!("postgres/diff/{n}.page")));
    let mut pairs: Vec<(String, String)> = pages
        .iter()
        .flat_map(|a| pages.iter().map(move |b| (a.clone(), b.clone())))
        .collect();
    pairs.extend([
        (
            f("postgres/corrupt/clean/16384"),
            f("postgres/corrupt/torn/16384"),
        ),
        (
            f("postgres/corrupt/clean/16384"),
            f("postgres/corrupt/truncated/16384"),
        ),
        (f("oracle/planted.dbf"), f("oracle/compressed_10g.blk")),
        (f("oracle/typed.blk"), f("oracle/compressed_10g.blk")),
    ]);
    let mut found = Vec::new();
    let mut differing = 0;
    for (old, new) in &pairs {
        let r = common::run(&["diff", old, new, "--format", "json"]);
        assert!(r.code == 0 || r.code == 1, "{old} {new}: {}", r.stderr);
        differing += usize::from(r.code == 1);
        check_run(
            &schemas,
            "diff",
            &["diff", old, new, "--format", "json"],
            &mut found,
        );
    }
    assert!(differing > 20, "{differing} pairs differ");
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `decode --format json` of every kind of word.
#[test]
fn decode_documents_match_their_schema() {
    let schemas = Schemas::load();
    let mut found = Vec::new();
    for args in [
        &["infomask", "2816"][..],
        &["infomask", "0xffff"],
        &["infomask2", "0x8007"],
        &["lp", "0x004e9fd8"],
        &["pd-flags", "5"],
        &["btpo-flags", "3"],
        &["oracle-rdba", "0x0100038b"],
        &["oracle-fb", "0x2c"],
        &["oracle-flg", "6"],
        &["oracle-itl-flag", "0x2001"],
        &["oracle-number", "c2", "4a", "46"],
        &["oracle-date", "78", "7c", "06", "0f", "0d", "1f", "2e"],
        &["rowid", "AAAWlhAAEAAAACXAAA"],
        &["rowid", "00000C36.0000.000C"],
        &["infomask", "0x0902", "0x0b02"],
        &["oracle-fb", "0x2c", "0x0c", "0x2c"],
    ] {
        let mut all = vec!["decode", "--format", "json"];
        all.extend_from_slice(args);
        let r = common::run(&all);
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert_eq!(check_run(&schemas, "decode", &all, &mut found), 1);
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `wal --format json|ndjson` of the WAL fixture, whole and filtered.
#[test]
fn wal_documents_match_their_schema() {
    let schemas = Schemas::load();
    let mut found = Vec::new();
    let dir = common::fixture("postgres/wal/datadir");
    let dir = dir.to_str().unwrap();
    for format in ["json", "ndjson"] {
        for extra in [&[][..], &["--rmgr", "Heap"], &["--start", "0/902C50"]] {
            let mut all = vec!["wal", dir, "--format", format];
            all.extend_from_slice(extra);
            assert!(check_run(&schemas, "wal", &all, &mut found) > 0);
        }
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// `infer --format json` of heap pages of many types, with TOAST.
#[test]
fn infer_documents_match_their_schema() {
    let schemas = Schemas::load();
    let mut found = Vec::new();
    let f = |p: &str| common::fixture(p).to_str().unwrap().to_string();
    for args in [
        vec![f("postgres/heap/nulls.0.page")],
        vec![f("postgres/attrs/types_more.0.page")],
        vec![
            f("postgres/export/data/base/5/16384"),
            "--toast".into(),
            f("postgres/export/data/base/5/16387"),
        ],
    ] {
        let mut all = vec!["infer", "--format", "json"];
        all.extend(args.iter().map(String::as_str));
        assert_eq!(check_run(&schemas, "infer", &all, &mut found), 1, "{all:?}");
    }
    assert!(found.is_empty(), "{}", found.join("\n"));
}

/// The schemas are strict enough to tell a shape change: each document as
/// it was before its current version, and a few edits of today's, are
/// refused.
#[test]
fn the_schemas_refuse_other_shapes() {
    let schemas = Schemas::load();
    let f = |rel: &str| common::fixture(rel).to_str().unwrap().to_string();
    let page = f("postgres/heap/vacuum_pruned.0.page");
    let json_of = |args: &[&str]| -> Value {
        let r = common::run(args);
        serde_json::from_str(&r.stdout).unwrap_or_else(|e| panic!("{args:?}: {e}"))
    };
    // show: schema 1 was the block itself, or an array.
    let doc = json_of(&["show", &page, "--format", "json"]);
    assert!(schemas.valid("show", "document", &doc));
    let block = doc["blocks"][0].clone();
    assert!(!schemas.valid("show", "document", &block));
    assert!(!schemas.valid("show", "document", &json!([block])));
    let mut wrong = doc.clone();
    wrong["schema"] = json!(1);
    assert!(!schemas.valid("show", "document", &wrong));
    // A key the page does not have, a header field gone, an LSN as a number.
    let mut wrong = doc.clone();
    wrong["blocks"][0]["extra"] = json!(1);
    assert!(!schemas.valid("show", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["blocks"][0]["header"]
        .as_object_mut()
        .unwrap()
        .remove("upper");
    assert!(!schemas.valid("show", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["blocks"][0]["header"]["lsn"] = json!(29137800);
    assert!(!schemas.valid("show", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["blocks"][0]["items"][0]
        .as_object_mut()
        .unwrap()
        .remove("t_xmin");
    assert!(!schemas.valid("show", "document", &wrong));
    // NDJSON: a block line without its kind.
    let mut line = block.clone();
    line.as_object_mut().unwrap().remove("kind");
    assert!(schemas.valid("show", "ndjson_line", &block));
    assert!(!schemas.valid("show", "ndjson_line", &line));

    // pg_control: schema 1 had LSNs and the state as numbers.
    let control = f("postgres/catalog/15/pg_control");
    let doc = json_of(&["show", &control, "--format", "json"]);
    assert!(schemas.valid("pg_control", "document", &doc));
    let mut wrong = doc.clone();
    wrong["pg_control"]["control"]["check_point"] = json!(29343848);
    assert!(!schemas.valid("pg_control", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["pg_control"]["control"]["state"] = json!(6);
    assert!(!schemas.valid("pg_control", "document", &wrong));
    let mut wrong = doc.clone();
    wrong.as_object_mut().unwrap().remove("schema");
    assert!(!schemas.valid("pg_control", "document", &wrong));

    // map, diff, decode, pg_filenode.map: schema 1 had no `schema`.
    let unversioned = |kind: &str, mut doc: Value| {
        assert!(schemas.valid(kind, "document", &doc), "{kind}");
        doc.as_object_mut().unwrap().remove("schema");
        assert!(!schemas.valid(kind, "document", &doc), "{kind}");
    };
    unversioned("map", json_of(&["map", &page, "--format", "json"]));
    unversioned(
        "diff",
        json_of(&[
            "diff",
            &f("postgres/diff/hinted.page"),
            &f("postgres/diff/updated.page"),
            "--format",
            "json",
        ]),
    );
    unversioned(
        "decode",
        json_of(&["decode", "infomask", "2816", "--format", "json"]),
    );
    unversioned(
        "pg_filenode_map",
        json_of(&[
            "show",
            &f("postgres/catalog/15/global.pg_filenode.map"),
            "--format",
            "json",
        ]),
    );
    // map's NDJSON summary line carries the schema too.
    let mut line = json!({"summary": json_of(&["map", &page, "--format", "json"])["summary"]});
    assert!(!schemas.valid("map", "ndjson_line", &line));
    line["schema"] = json!(2);
    assert!(!schemas.valid("map", "ndjson_line", &line));
    line["schema"] = json!(3);
    assert!(schemas.valid("map", "ndjson_line", &line));
    // map 3: the summary's `relation`, of a fixed shape.
    let named = f("postgres/catalog/relnames/datadir/base/5/1259");
    let mut doc = json_of(&["map", &named, "--format", "json"]);
    assert_eq!(doc["summary"]["relation"]["name"], "pg_catalog.pg_class");
    assert!(schemas.valid("map", "document", &doc));
    doc["summary"]["relation"]["fork"] = json!("heap");
    assert!(!schemas.valid("map", "document", &doc));
    // verify: schema 4 is not schema 7.
    let mut doc = json_of(&["verify", &page, "--format", "json"]);
    assert!(schemas.valid("verify", "document", &doc));
    let mut named = json_of(&[
        "verify",
        &f("postgres/corrupt/lp_past_end/16384"),
        "--format",
        "json",
    ]);
    assert!(schemas.valid("verify", "document", &named));
    named["problems"][0]["relation"] =
        json!({"name": "public.orders", "fork": "main", "segment": 1});
    assert!(schemas.valid("verify", "document", &named));
    named["problems"][0]["relation"]["oid"] = json!(16384);
    assert!(!schemas.valid("verify", "document", &named));
    doc["schema"] = json!(4);
    assert!(!schemas.valid("verify", "document", &doc));
}

/// Each document kind's current version, as docs/json.md's "Versions"
/// section lists it, is the `schema` its JSON Schema fixes.
#[test]
fn the_versions_in_docs_json_md_are_the_schemas() {
    let doc = std::fs::read_to_string(common::root().join("docs/json.md")).unwrap();
    let versions = doc
        .split("\n## Versions\n")
        .nth(1)
        .expect("a Versions section in docs/json.md");
    for kind in KINDS {
        let path = common::root().join(format!("docs/schema/{kind}.schema.json"));
        let schema: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let version = schema["$defs"]["document"]
            .pointer("/properties/schema/const")
            .or_else(|| schema["$defs"]["document"].pointer("/oneOf/0/properties/schema/const"))
            .and_then(Value::as_u64)
            .unwrap_or_else(|| panic!("{kind}: no schema const"));
        let line = format!("| `{kind}` | {version} |");
        assert!(
            versions.contains(&line),
            "docs/json.md's Versions lacks {line}"
        );
    }
}

/// `carve`'s manifest.json, of PostgreSQL pages (with TOAST), Oracle
/// blocks and a WAL segment (full-page images) planted in zeros, matches
/// its schema; schema 0, a group without `blocks` and a stretch without
/// `fpis` do not.
#[test]
fn carve_manifest_matches_its_schema() {
    let schemas = Schemas::load();
    let dir = std::env::temp_dir().join(format!("blockscope-schema-carve-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let mut image = vec![0u8; 1 << 20];
    let parts = [
        common::fixture_bytes("postgres/export/data/base/5/16384"),
        common::fixture_bytes("postgres/export/data/base/5/16387"),
        common::fixture_bytes("reference/blog-oracle/block_5_907.bin"),
    ];
    for (n, bytes) in parts.iter().enumerate() {
        let at = 512 * (3 + 200 * n);
        image[at..at + bytes.len()].copy_from_slice(bytes);
    }
    image.extend(common::fixture_bytes(
        "postgres/wal/datadir/pg_wal/000000010000000000000008",
    ));
    let path = dir.join("disk.img");
    std::fs::write(&path, &image).unwrap();
    let out = dir.join("out");
    let r = common::run(&[
        "carve",
        path.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value =
        serde_json::from_slice(&std::fs::read(out.join("manifest.json")).unwrap()).unwrap();
    assert!(doc["groups"].as_array().unwrap().len() > 3, "{doc:#}");
    assert_eq!(doc["wal"].as_array().unwrap().len(), 1, "{doc:#}");
    assert!(
        doc["groups"]
            .as_array()
            .unwrap()
            .iter()
            .any(|g| g["wal_lsns"].is_array() && g["relfilenode"].is_string()),
        "{doc:#}"
    );
    if let Some(e) = schemas.error("carve", "document", &doc) {
        panic!("{e}: {doc:#}");
    }
    let mut wrong = doc.clone();
    wrong["schema"] = json!(0);
    assert!(!schemas.valid("carve", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["groups"][0].as_object_mut().unwrap().remove("blocks");
    assert!(!schemas.valid("carve", "document", &wrong));
    let mut wrong = doc.clone();
    wrong["wal"][0].as_object_mut().unwrap().remove("fpis");
    assert!(!schemas.valid("carve", "document", &wrong));
    let _ = std::fs::remove_dir_all(&dir);
}
