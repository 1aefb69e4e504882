//! `blockscope diff` against the real thing: consecutive versions of one
//! heap page saved from PostgreSQL 15 (fixtures/postgres/diff/make.sh: after
//! inserts, after a read set the hint bits, after updates and a delete,
//! after VACUUM, and the same statements in a second run), each with
//! pageinspect's page_header and heap_page_items rows. The diff must report
//! exactly the header fields and line pointers in which pageinspect's two
//! outputs differ. Also: the same page in every input form is equal to
//! itself, the golden-file round trip, and the CI recipe's commands.

mod common;

use std::collections::{BTreeMap, BTreeSet};

use common::{fixture, root, run};
use serde_json::Value;

const DIR: &str = "fixtures/postgres/diff";

fn page(name: &str) -> String {
    format!("{DIR}/{name}.page")
}

fn diff_json(args: &[&str]) -> (i32, Value) {
    let mut all = vec!["diff", "--format", "json"];
    all.extend_from_slice(args);
    let r = run(&all);
    assert!(
        r.code == 0 || r.code == 1,
        "diff {args:?}: exit {} {}",
        r.code,
        r.stderr
    );
    let v: Value = serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("diff {args:?}: not JSON: {e}\n{}", r.stdout));
    assert_eq!(v["schema"], 2, "diff's JSON carries its schema");
    (r.code, v)
}

/// pageinspect's rows of one version.
fn pageinspect(name: &str) -> Value {
    let text = std::fs::read_to_string(fixture(&format!("postgres/diff/{name}.json"))).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// How pageinspect's outputs of two versions differ: header fields, and per
/// lp the change and the columns that differ.
type Expected = (BTreeSet<String>, BTreeMap<u64, (String, BTreeSet<String>)>);

fn pageinspect_diff(old: &str, new: &str) -> Expected {
    expected_diff(&pageinspect(old), &pageinspect(new))
}

/// How two `{"page_header", "heap_page_items"}` objects differ.
fn expected_diff(a: &Value, b: &Value) -> Expected {
    let header = a["page_header"]
        .as_object()
        .unwrap()
        .iter()
        .filter(|(k, v)| b["page_header"][k.as_str()] != **v)
        .map(|(k, _)| k.clone())
        .collect();
    let items = |v: &Value| -> BTreeMap<u64, Value> {
        v["heap_page_items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| (i["lp"].as_u64().unwrap(), i.clone()))
            .collect()
    };
    let (ia, ib) = (items(a), items(b));
    let mut lps = BTreeMap::new();
    for lp in ia.keys().chain(ib.keys()) {
        let entry = match (ia.get(lp), ib.get(lp)) {
            (Some(x), Some(y)) => {
                let cols: BTreeSet<String> = x
                    .as_object()
                    .unwrap()
                    .iter()
                    .filter(|(k, v)| y[k.as_str()] != **v)
                    .map(|(k, _)| k.clone())
                    .collect();
                if cols.is_empty() {
                    continue;
                }
                ("changed".to_string(), cols)
            }
            (Some(_), None) => ("removed".to_string(), BTreeSet::new()),
            (None, Some(_)) => ("added".to_string(), BTreeSet::new()),
            (None, None) => unreachable!(),
        };
        lps.insert(*lp, entry);
    }
    (header, lps)
}

/// Fields blockscope's JSON has that pageinspect's rows do not: derived
/// from the columns pageinspect has, so they change only with them.
const DERIVED: &[&str] = &["raw_flags", "combined_flags", "verdict"];

/// The diff of two versions names exactly pageinspect's changed header
/// fields and line pointers; each changed lp names every column
/// pageinspect's rows differ in, and nothing else but derived fields.
fn check_against_pageinspect(old: &str, new: &str) {
    let (code, d) = diff_json(&[&page(old), &page(new)]);
    let (header, lps) = pageinspect_diff(old, new);
    assert!(
        !header.is_empty() || !lps.is_empty(),
        "{old}/{new}: no change to test"
    );
    assert_eq!(code, 1, "{old} → {new} differ");
    let blocks = d["blocks"].as_array().unwrap();
    assert_eq!(blocks.len(), 1);
    check_block(old, new, &blocks[0], &(header, lps));
}

/// One block of a diff against pageinspect's differences for it.
fn check_block(old: &str, new: &str, b: &Value, expected: &Expected) {
    let (header, lps) = expected;
    let mut got_header = BTreeSet::new();
    for f in b["fields"].as_array().unwrap() {
        let field = f["field"].as_str().unwrap();
        match field.strip_prefix("header.") {
            Some(h) => {
                got_header.insert(h.to_string());
            }
            // The checksum object follows header.checksum (and the page bytes).
            None => assert!(
                field.starts_with("checksum.") && header.contains("checksum"),
                "{old} → {new}: unexpected field {field}"
            ),
        }
    }
    assert_eq!(&got_header, header, "{old} → {new}: header fields");
    let mut got = BTreeMap::new();
    for i in b["items"].as_array().unwrap() {
        assert_eq!(i["in"], "items");
        let fields: BTreeSet<String> = i["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["field"].as_str().unwrap().to_string())
            .collect();
        got.insert(
            i["lp"].as_u64().expect("every item change carries lp"),
            (i["change"].as_str().unwrap().to_string(), fields),
        );
    }
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        lps.keys().collect::<Vec<_>>(),
        "{old} → {new}: line pointers"
    );
    for (lp, (change, cols)) in lps {
        let (got_change, got_fields) = &got[lp];
        assert_eq!(got_change, change, "{old} → {new}: lp {lp}");
        assert!(
            got_fields.is_superset(cols),
            "{old} → {new}: lp {lp}: {got_fields:?} lacks some of {cols:?}"
        );
        for f in got_fields.difference(cols) {
            assert!(
                DERIVED.contains(&f.as_str()),
                "{old} → {new}: lp {lp}: {f} reported, pageinspect's rows agree"
            );
        }
    }
    assert!(b["problems"].as_array().unwrap().is_empty());
}

#[test]
fn inserts_then_a_read_sets_hint_bits() {
    check_against_pageinspect("inserted", "hinted");
}

#[test]
fn updates_and_a_delete() {
    check_against_pageinspect("hinted", "updated");
}

#[test]
fn vacuum() {
    check_against_pageinspect("updated", "vacuumed");
}

#[test]
fn a_second_run_of_the_same_statements() {
    check_against_pageinspect("hinted", "rerun");
    check_against_pageinspect("inserted", "rerun");
}

#[test]
fn a_page_equals_itself_in_every_input_form() {
    let golden = std::env::temp_dir().join(format!("blockscope-diff-{}.json", std::process::id()));
    let ndjson = golden.with_extension("ndjson");
    let json = run(&["show", &page("updated"), "--format", "json"]);
    std::fs::write(&golden, json.stdout).unwrap();
    let nd = run(&["show", &page("updated"), "--format", "ndjson"]);
    std::fs::write(&ndjson, nd.stdout).unwrap();
    let (g, n) = (golden.display().to_string(), ndjson.display().to_string());
    let bytea = format!("{DIR}/updated.bytea");
    let xxd = format!("{DIR}/inserted.xxd");
    let pairs: [(&str, &str); 7] = [
        (&page("inserted"), &xxd),
        (&xxd, &page("inserted")),
        (&bytea, &page("updated")),
        (&g, &page("updated")),
        (&page("updated"), &g),
        (&g, &bytea),
        (&n, &page("updated")),
    ];
    for (a, b) in pairs {
        let r = run(&["diff", a, b]);
        assert_eq!(r.code, 0, "{a} vs {b}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.ends_with("equal: 1 block compared\n"),
            "{}",
            r.stdout
        );
        let (code, d) = diff_json(&[a, b]);
        assert_eq!(
            (code, &d["equal"], &d["differ"]),
            (0, &Value::Bool(true), &Value::from(0))
        );
    }
    // And different pages in different forms are not.
    assert_eq!(run(&["diff", &xxd, &bytea]).code, 1);
    let _ = std::fs::remove_file(golden);
    let _ = std::fs::remove_file(ndjson);
}

/// Offset of lp `lp`'s tuple in `bytes` (lp_off, from the line pointer).
fn lp_off(bytes: &[u8], lp: usize) -> usize {
    let at = 24 + 4 * (lp - 1);
    let word = u32::from_le_bytes(bytes[at..at + 4].try_into().unwrap());
    (word & 0x7fff) as usize
}

#[test]
fn golden_round_trip_and_a_changed_byte() {
    let dir = std::env::temp_dir().join(format!("blockscope-golden-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let golden = dir.join("golden.json");
    let show = run(&["show", &page("hinted"), "--format", "json"]);
    assert_eq!(show.code, 0);
    std::fs::write(&golden, &show.stdout).unwrap();
    let g = golden.display().to_string();
    assert_eq!(run(&["diff", &g, &page("hinted")]).code, 0);

    // A byte of lp 3's tuple data (the `int` column's low byte, at t_hoff 24).
    let original = std::fs::read(root().join(page("hinted"))).unwrap();
    let mut damaged = original.clone();
    let at = lp_off(&original, 3) + 24;
    damaged[at] ^= 0x40;
    let bad = dir.join("damaged.page");
    std::fs::write(&bad, &damaged).unwrap();
    let b = bad.display().to_string();
    let (code, d) = diff_json(&[&g, &b]);
    assert_eq!(code, 1);
    let block = &d["blocks"][0];
    let items = block["items"].as_array().unwrap();
    assert_eq!(items.len(), 1, "{block:#}");
    assert_eq!(items[0]["lp"], 3);
    let fields: Vec<&str> = items[0]["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(fields, ["t_data"]);
    // The stored checksum no longer fits: the checksum object and a problem say so.
    assert_eq!(block["fields"][0]["field"], "checksum.computed");
    assert_eq!(block["problems"][0]["change"], "added");
    let table = run(&["diff", &g, &b]);
    assert_eq!(table.code, 1);
    assert!(
        table
            .stdout
            .lines()
            .any(|l| l.starts_with("  lp 3 ") && l.contains(" t_data ")),
        "{}",
        table.stdout
    );
    assert!(table.stdout.ends_with("1 of 1 block differs\n"));

    // A byte in the free space: no decoded field holds it, so page against
    // page names its offset; the golden file has fields, not bytes, so only
    // the checksum is seen there.
    let mut free = original.clone();
    let lower = u16::from_le_bytes([original[12], original[13]]) as usize;
    free[lower + 100] = 0x5a;
    let f = dir.join("free.page");
    std::fs::write(&f, &free).unwrap();
    let fp = f.display().to_string();
    let (code, d) = diff_json(&[&page("hinted"), &fp]);
    assert_eq!(code, 1);
    let bytes = d["blocks"][0]["bytes"].as_array().unwrap();
    assert_eq!(bytes.len(), 1);
    assert_eq!(bytes[0]["offset"], lower + 100);
    assert_eq!(bytes[0]["length"], 1);
    assert!(d["blocks"][0]["items"].as_array().unwrap().is_empty());
    let r = run(&["diff", &page("hinted"), &fp]);
    assert!(
        r.stdout
            .contains(&format!("bytes    {0}..{0}", lower + 100)),
        "{}",
        r.stdout
    );
    // Ignoring the checksum leaves the byte as the one difference.
    let (code, d) = diff_json(&[&page("hinted"), &fp, "--ignore", "checksum"]);
    assert_eq!(code, 1);
    assert!(d["blocks"][0]["fields"].as_array().unwrap().is_empty());
    assert!(d["blocks"][0]["problems"].as_array().unwrap().is_empty());
    let (code, _) = diff_json(&[&g, &fp, "--ignore", "checksum"]);
    assert_eq!(code, 0, "a golden file holds no free-space bytes");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn a_live_servers_moving_fields_can_be_ignored() {
    let ignore = "lsn,checksum,prune_xid,t_xmin,t_xmax,verdict";
    let (code, _) = diff_json(&[&page("hinted"), &page("rerun")]);
    assert_eq!(code, 1);
    let (code, d) = diff_json(&[&page("hinted"), &page("rerun"), "--ignore", ignore]);
    assert_eq!(code, 0, "{d:#}");
    // Hint bits are not among them: they are a real difference.
    let (code, d) = diff_json(&[&page("inserted"), &page("rerun"), "--ignore", ignore]);
    assert_eq!(code, 1);
    assert_eq!(d["blocks"][0]["items"].as_array().unwrap().len(), 8);
}

#[test]
fn several_inputs_in_one_show_and_one_diff() {
    let (a, b) = (page("inserted"), page("vacuumed"));
    let both = run(&["show", &a, &b, "--format", "json"]);
    assert_eq!(both.code, 0);
    // The document is serde_json's pretty print of itself: well formed.
    let doc: Value = serde_json::from_str(&both.stdout).unwrap();
    assert_eq!(
        serde_json::to_string_pretty(&doc).unwrap() + "\n",
        both.stdout
    );
    assert_eq!(doc["schema"], 2);
    for (i, path) in [&a, &b].iter().enumerate() {
        assert_eq!(doc["inputs"][i]["input"], path.as_str());
        let one = common::show_blocks(&run(&["show", path, "--format", "json"]).stdout);
        assert_eq!(doc["inputs"][i]["blocks"], Value::Array(one));
    }
    // Every format titles each input.
    let table = run(&["show", &a, &b]);
    assert!(table.stdout.starts_with(&format!("==> {a} <==\n")));
    assert!(table.stdout.contains(&format!("\n\n==> {b} <==\n")));
    let nd = run(&["show", &a, &b, "--format", "ndjson"]);
    let lines: Vec<&str> = nd.stdout.lines().collect();
    assert_eq!(lines.len(), 5);
    assert_eq!(lines[0], "{\"schema\":2}");
    assert_eq!(lines[1], format!("{{\"input\":\"{a}\"}}"));

    // One document of both, checked in one command; and its NDJSON twin.
    let dir = std::env::temp_dir().join(format!("blockscope-several-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let golden = dir.join("both.json");
    std::fs::write(&golden, &both.stdout).unwrap();
    let ndg = dir.join("both.ndjson");
    std::fs::write(&ndg, &nd.stdout).unwrap();
    for g in [&golden, &ndg] {
        let g = g.display().to_string();
        assert_eq!(run(&["diff", &g, &a, &b]).code, 0);
        let (code, d) = diff_json(&[&g, &a, &page("updated")]);
        assert_eq!(code, 1);
        assert_eq!(d["blocks"][0]["input"], page("updated"));
        // Counts that do not pair are an error.
        let r = run(&["diff", &g, &a]);
        assert_eq!(r.code, 2, "{}", r.stderr);
    }
    // An input that cannot be read: an error line, status 2, the others shown.
    let r = run(&["show", &a, "/nonexistent/page", "--format", "json"]);
    assert_eq!(r.code, 2);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    assert_eq!(doc["inputs"][1]["blocks"], Value::Array(vec![]));
    assert!(r.stderr.contains("/nonexistent/page"));
    let _ = std::fs::remove_dir_all(dir);
}

/// Golden files written by `show --format json` before its schema 2 (one
/// block's object, an array of blocks, an array of `{"input", "blocks"}`)
/// are read as before, beside schema 2's documents.
#[test]
fn golden_files_of_every_show_schema_are_read() {
    let (a, b) = (page("inserted"), page("vacuumed"));
    let one = run(&["show", &a, "--format", "json"]);
    let both = run(&["show", &a, &b, "--format", "json"]);
    let block = common::show_block(&one.stdout);
    let inputs: Value = serde_json::from_str(&both.stdout).unwrap();
    let dir = std::env::temp_dir().join(format!("blockscope-schemas-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, v: &Value| {
        let path = dir.join(name);
        std::fs::write(&path, serde_json::to_string_pretty(v).unwrap()).unwrap();
        path.display().to_string()
    };
    let cases = [
        (write("object.json", &block), vec![a.clone()]),
        (
            write("array.json", &Value::Array(vec![block.clone()])),
            vec![a.clone()],
        ),
        (
            write("inputs.json", &inputs["inputs"]),
            vec![a.clone(), b.clone()],
        ),
        (
            write("schema2.json", &serde_json::from_str(&one.stdout).unwrap()),
            vec![a.clone()],
        ),
        (
            write("schema2-inputs.json", &inputs),
            vec![a.clone(), b.clone()],
        ),
    ];
    let updated = page("updated");
    for (golden, news) in &cases {
        let mut args = vec!["diff", golden.as_str()];
        args.extend(news.iter().map(String::as_str));
        let r = run(&args);
        assert_eq!(r.code, 0, "{golden}: {}{}", r.stdout, r.stderr);
        // And a different page is told from it.
        let mut args = vec!["diff", golden.as_str(), &updated];
        args.extend(news.iter().skip(1).map(String::as_str));
        assert_eq!(run(&args).code, 1, "{golden}");
    }
    // NDJSON before schema 2 had no `{"schema"}` line.
    let nd = run(&["show", &a, "--format", "ndjson"]);
    let old = dir.join("old.ndjson");
    std::fs::write(
        &old,
        nd.stdout.lines().skip(1).collect::<Vec<_>>().join("\n"),
    )
    .unwrap();
    assert_eq!(run(&["diff", old.to_str().unwrap(), &a]).code, 0);
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn errors_are_exit_2() {
    assert_eq!(
        run(&["diff", &page("inserted"), "/nonexistent/page"]).code,
        2
    );
    let r = run(&["diff", &page("inserted"), "Cargo.toml"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    let r = run(&[
        "diff",
        &page("inserted"),
        &page("hinted"),
        "--blocks",
        "5..",
    ]);
    assert_eq!(r.code, 2);
    assert!(r.stderr.contains("no blocks to compare"), "{}", r.stderr);
}

/// Every `blockscope` command of docs/ci.md's `sh` and `yaml` blocks runs:
/// one that writes a file (`> FILE`) writes what the repository holds (the
/// golden file is current), the others exit 0.
#[test]
fn the_ci_recipe_runs() {
    let text = std::fs::read_to_string(root().join("docs/ci.md")).unwrap();
    let mut fence: Option<String> = None;
    let mut ran = 0;
    for line in text.lines() {
        if let Some(tag) = line.strip_prefix("```") {
            fence = if fence.is_some() {
                None
            } else {
                Some(tag.to_string())
            };
            continue;
        }
        if !matches!(fence.as_deref(), Some("sh" | "yaml")) {
            continue;
        }
        let Some(at) = line.find("blockscope ") else {
            continue;
        };
        let command = &line[at + "blockscope ".len()..];
        let (command, target) = match command.split_once(" > ") {
            Some((c, t)) => (c, Some(t.trim())),
            None => (command, None),
        };
        let args: Vec<&str> = command.split_whitespace().collect();
        let r = run(&args);
        assert_eq!(r.code, 0, "{line}: {}{}", r.stdout, r.stderr);
        if let Some(t) = target {
            let held = std::fs::read_to_string(root().join(t)).unwrap();
            assert_eq!(r.stdout, held, "{t} is not what `{line}` writes");
        }
        ran += 1;
    }
    assert!(ran >= 5, "only {ran} commands found in docs/ci.md");
}

/// Oracle blocks by their JSON names: the published block as bytes and as
/// the trace that dumped it are equal (the trace's line numbers are where
/// it came from, not what it holds); the edited trace's changes are named.
#[test]
fn oracle_blocks_and_traces() {
    let bin = "fixtures/reference/blog-oracle/block_5_907.bin";
    let trc = "fixtures/oracle/trace/block_5_907.trc";
    let r = run(&["diff", bin, trc, "--blkno", "907"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let (code, d) = diff_json(&[trc, "fixtures/oracle/trace/edited.trc"]);
    assert_eq!(code, 1);
    let b = &d["blocks"][0];
    assert_eq!(b["blkno"], 907);
    assert_eq!(b["fields"][0]["field"], "text.cache.seq");
    assert_eq!(b["items"][0]["in"], "text.data.rows");
    assert_eq!(b["items"][0]["fields"][0]["field"], "cols[col=0].data");
    assert_eq!(b["problems"].as_array().unwrap().len(), 2);
}

/// The whole-relation pair (fixtures/postgres/diff/make-relation.sh): table
/// r's file of several blocks before and after one UPDATE that wrote new
/// versions of four rows (HOT, beside the old ones), with pageinspect's rows
/// of every block and the table's rows (SELECT ctid, *) for both.
fn relation(name: &str) -> (String, Value) {
    let text =
        std::fs::read_to_string(fixture(&format!("postgres/diff/relation/{name}.json"))).unwrap();
    (
        format!("{DIR}/relation/{name}.rel"),
        serde_json::from_str(&text).unwrap(),
    )
}

/// `(blkno, lp)` of a ctid's text `(b,l)`.
fn ctid(text: &str) -> (u64, u64) {
    let (b, l) = text
        .trim_matches(|c| c == '(' || c == ')')
        .split_once(',')
        .unwrap();
    (b.parse().unwrap(), l.parse().unwrap())
}

/// The table's rows by ctid: `[id, name, n]`.
fn rows_by_ctid(doc: &Value) -> BTreeMap<(u64, u64), Vec<Value>> {
    doc["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                ctid(r["ctid"].as_str().unwrap()),
                vec![r["id"].clone(), r["name"].clone(), r["n"].clone()],
            )
        })
        .collect()
}

#[test]
fn a_multi_block_relation_block_by_block_with_columns() {
    let (old_path, old) = relation("before");
    let (new_path, new) = relation("after");
    let file_blocks = std::fs::metadata(&old_path).unwrap().len() / 8192;
    assert!(file_blocks > 1, "a relation of several blocks");
    let old_blocks = old["blocks"].as_array().unwrap();
    let new_blocks = new["blocks"].as_array().unwrap();
    assert_eq!(old_blocks.len() as u64, file_blocks);
    assert_eq!(new_blocks.len() as u64, file_blocks);
    let (code, d) = diff_json(&[&old_path, &new_path, "--columns", "int4,text,int4"]);
    assert_eq!(code, 1);
    // Exactly the blocks whose pageinspect rows differ, in order, each with
    // exactly pageinspect's changes.
    let mut expected_blocks = Vec::new();
    for (a, b) in old_blocks.iter().zip(new_blocks) {
        let e = expected_diff(a, b);
        if !e.0.is_empty() || !e.1.is_empty() {
            expected_blocks.push((a["blkno"].as_u64().unwrap(), e));
        }
    }
    assert!(expected_blocks.len() > 1 && (expected_blocks.len() as u64) < file_blocks);
    let blocks = d["blocks"].as_array().unwrap();
    assert_eq!(
        blocks
            .iter()
            .map(|b| b["blkno"].as_u64().unwrap())
            .collect::<Vec<_>>(),
        expected_blocks.iter().map(|(n, _)| *n).collect::<Vec<_>>()
    );
    for (b, (blkno, e)) in blocks.iter().zip(&expected_blocks) {
        check_block(&format!("before block {blkno}"), "after", b, e);
    }
    // The attribute values: every new tuple version carries the row SELECT
    // reads at its ctid afterwards; against its predecessor's row before,
    // exactly the columns the UPDATE changed differ.
    let (rows_old, rows_new) = (rows_by_ctid(&old), rows_by_ctid(&new));
    let by_id = |rows: &BTreeMap<(u64, u64), Vec<Value>>| -> BTreeMap<i64, Vec<Value>> {
        rows.values()
            .map(|r| (r[0].as_i64().unwrap(), r.clone()))
            .collect()
    };
    let (ids_old, ids_new) = (by_id(&rows_old), by_id(&rows_new));
    let mut updated = BTreeMap::new();
    for (id, row) in &ids_new {
        let changed: BTreeSet<u64> = (0..3)
            .filter(|&i| ids_old[id][i] != row[i])
            .map(|i| i as u64 + 1)
            .collect();
        if !changed.is_empty() {
            updated.insert(*id, changed);
        }
    }
    assert!(!updated.is_empty());
    let mut seen = BTreeMap::new();
    for b in blocks {
        let blkno = b["blkno"].as_u64().unwrap();
        let items = b["items"].as_array().unwrap();
        let added: BTreeMap<u64, Vec<Value>> = items
            .iter()
            .filter(|i| i["change"] == "added")
            .map(|i| {
                let attrs = i["item"]["attrs"].as_array().expect("--columns: attrs");
                let values = attrs.iter().map(|a| a["value"].clone()).collect();
                (i["lp"].as_u64().unwrap(), values)
            })
            .collect();
        for (lp, values) in &added {
            assert_eq!(
                Some(values),
                rows_new.get(&(blkno, *lp)),
                "block {blkno} lp {lp}"
            );
        }
        for i in items.iter().filter(|i| i["change"] == "changed") {
            let lp = i["lp"].as_u64().unwrap();
            let Some(to) = i["fields"]
                .as_array()
                .unwrap()
                .iter()
                .find(|f| f["field"] == "t_ctid")
            else {
                continue;
            };
            let (nb, nlp) = ctid(to["new"].as_str().unwrap());
            assert_eq!(nb, blkno, "HOT: the new version is on the same page");
            let before = &rows_old[&(blkno, lp)];
            let after = &added[&nlp];
            let differ: BTreeSet<u64> = (0..3)
                .filter(|&k| before[k] != after[k])
                .map(|k| k as u64 + 1)
                .collect();
            seen.insert(before[0].as_i64().unwrap(), differ);
        }
    }
    assert_eq!(seen, updated, "changed attributes per id");
    // One block asked for: only its changes.
    let (code, one) = diff_json(&[&old_path, &new_path, "--blocks", "1"]);
    assert_eq!(code, 1);
    let one = one["blocks"].as_array().unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0]["blkno"], 1);
    // The table form lists a new version's values with --columns.
    let r = run(&["diff", &old_path, &new_path, "--columns", "int4,text,int4"]);
    assert_eq!(r.code, 1);
    for (id, row) in &ids_new {
        if updated.contains_key(id) {
            let line = format!("values {}, {}, {}", row[0], row[1], row[2]);
            assert!(r.stdout.contains(&line), "{line}:\n{}", r.stdout);
        }
    }
    // The table form counts the blocks.
    let r = run(&["diff", &old_path, &new_path]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout.contains(&format!(
            "{} of {file_blocks} blocks differ",
            expected_blocks.len()
        )),
        "{}",
        r.stdout
    );
}

/// A closed output pipe (`| head` gone) does not change the answer once
/// every block is compared: equal pages stay 0, different ones 1.
#[test]
fn a_closed_pipe_keeps_the_answer() {
    let (code, stderr) = common::into_closed_pipe(&["diff", &page("hinted"), &page("hinted")]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    let (code, stderr) = common::into_closed_pipe(&["diff", &page("hinted"), &page("inserted")]);
    assert_eq!((code, stderr.as_str()), (1, ""));
}

/// Issue 27, point 9: byte-identical files are equal whatever their names.
/// A relation file's name (`16392`, `16392.1`) makes its block numbers
/// known, which decides how a checksum mismatch reads (an error at a known
/// block number, a warning naming the blocks it fits when only assumed);
/// diff reads both sides at the same position, so only bytes count.
#[test]
fn identical_files_are_equal_whatever_their_names() {
    let dir = std::env::temp_dir().join(format!("blockscope-diff-names-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // Six blocks, one with a byte flipped: its checksum fails.
    let mut bytes = std::fs::read(fixture("postgres/corrupt/clean/16384")).unwrap();
    bytes[3 * 8192 + 8000] ^= 0xff;
    for name in ["16392", "copy2", "16392.1", "16392.2", "page.bin"] {
        std::fs::write(dir.join(name), &bytes).unwrap();
    }
    let path = |n: &str| dir.join(n).to_str().unwrap().to_string();
    for (a, b) in [
        ("16392", "copy2"),
        ("copy2", "16392"),
        ("16392.1", "copy2"),
        ("page.bin", "16392.1"),
        ("16392", "16392.1"),
        ("16392.1", "16392.2"),
        ("copy2", "page.bin"),
    ] {
        let r = run(&["diff", &path(a), &path(b)]);
        assert_eq!(r.code, 0, "diff {a} {b}:\n{}{}", r.stdout, r.stderr);
        assert!(
            r.stdout.ends_with("equal: 6 blocks compared\n"),
            "diff {a} {b}:\n{}",
            r.stdout
        );
    }
    // Names of two different segments: compared as OLD's, and said so.
    let r = run(&["diff", &path("16392.1"), &path("16392.2")]);
    r.assert_stderr_has(&["named as segments 1 and 2 of a relation; both are read as segment 1"]);
    // A real difference in the bytes still counts.
    bytes[5 * 8192 + 8100] ^= 0x01;
    std::fs::write(dir.join("other"), &bytes).unwrap();
    let r = run(&["diff", &path("16392"), &path("other")]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    std::fs::remove_dir_all(&dir).unwrap();
}
