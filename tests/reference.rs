//! The published pages in fixtures/reference/ decode to exactly the values
//! printed beside them by the database's own tools (psql's aligned output).

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::postgres::PageJson as PgPageJson;
use blockscope::postgres::{parse_page, PageOptions};
use blockscope::{decode_text as decode, InputFormat};
use serde_json::Value;

fn reference(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/reference")
        .join(name)
}

/// One `select * from f(...)` result as printed by psql: column names and rows
/// of cells (empty cell = SQL NULL).
struct PsqlResult {
    query: String,
    columns: Vec<String>,
    rows: Vec<Vec<String>>,
}

fn parse_psql(text: &str) -> Vec<PsqlResult> {
    let mut results = Vec::new();
    let mut lines = text.lines().peekable();
    while let Some(line) = lines.next() {
        let Some(query) = line.strip_prefix("test=# ") else {
            continue;
        };
        let header = lines.next().expect("header line");
        let rule = lines.next().expect("rule line");
        assert!(
            rule.starts_with('-'),
            "psql rule line expected, found {rule:?}"
        );
        let columns = header.split('|').map(|c| c.trim().to_string()).collect();
        let mut rows = Vec::new();
        while let Some(row) = lines.peek() {
            if row.trim().is_empty() || row.starts_with("test=#") {
                break;
            }
            rows.push(row.split('|').map(|c| c.trim().to_string()).collect());
            lines.next();
        }
        results.push(PsqlResult {
            query: query.to_string(),
            columns,
            rows,
        });
    }
    results
}

/// Our JSON value in psql's text form.
fn as_psql_text(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::Bool(true) => "t".into(),
        Value::Bool(false) => "f".into(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn decode_od(name: &str) -> Vec<u8> {
    let text = fs::read(reference(name)).unwrap();
    let (bytes, format) = decode(&text, InputFormat::Auto).unwrap();
    assert_eq!(
        format,
        InputFormat::Od,
        "{name} should be detected as od output"
    );
    bytes
}

#[test]
fn mytable_heap_page_matches_its_published_pageinspect_output() {
    let bytes = decode_od("blog-postgres/mytable.0.od.txt");
    assert_eq!(bytes.len(), 8192);
    let page = parse_page(&bytes, &PageOptions::default());
    assert!(page.problems.is_empty(), "{:?}", page.problems);
    let ours = serde_json::to_value(PgPageJson::from_page(&page)).unwrap();

    let text = fs::read_to_string(reference("blog-postgres/mytable.0.pageinspect.txt")).unwrap();
    let results = parse_psql(&text);
    assert_eq!(results.len(), 2);

    let header = &results[0];
    assert!(header.query.contains("page_header"));
    assert_eq!(header.rows.len(), 1);
    for (col, cell) in header.columns.iter().zip(&header.rows[0]) {
        assert_eq!(
            &as_psql_text(&ours["header"][col]),
            cell,
            "page_header.{col}"
        );
    }

    let items = &results[1];
    assert!(items.query.contains("heap_page_items"));
    let our_items = ours["items"].as_array().unwrap();
    assert_eq!(items.rows.len(), our_items.len());
    let mut cells = 0;
    for (row, item) in items.rows.iter().zip(our_items) {
        for (col, cell) in items.columns.iter().zip(row) {
            assert_eq!(
                &as_psql_text(&item[col]),
                cell,
                "heap_page_items lp {} {col}",
                row[0]
            );
            cells += 1;
        }
    }
    assert_eq!(cells, 4 * 14);
}

#[test]
fn published_facts_hold() {
    let bytes = decode_od("blog-postgres/mytable.0.od.txt");
    let page = parse_page(&bytes, &PageOptions::default());
    let header = page.header.unwrap();
    assert_eq!(header.pd_lsn.to_string(), "0/1576BA8");
    let lp1 = page.items[0].id;
    assert_eq!(lp1.raw, 0x004e9fd8);
    assert_eq!((lp1.lp_off, lp1.lp_flags.code(), lp1.lp_len), (8152, 1, 39));
    let t = page.items[0].tuple.as_ref().unwrap();
    assert_eq!(t.raw_flags, vec!["HEAP_HASVARWIDTH", "HEAP_XMAX_INVALID"]);
}

fn btree_items(name: &str) -> (Value, Vec<Value>) {
    let bytes = decode_od(name);
    let page = parse_page(
        &bytes,
        &PageOptions {
            blkno: 1,
            ..PageOptions::default()
        },
    );
    assert!(page.problems.is_empty(), "{name}: {:?}", page.problems);
    let ours = serde_json::to_value(PgPageJson::from_page(&page)).unwrap();
    assert_eq!(ours["kind"], "btree", "{name}");
    let items = ours["items"].as_array().unwrap().clone();
    (ours, items)
}

#[test]
fn pk_mytable_leaf_matches_its_published_pageinspect_output() {
    let (ours, items) = btree_items("blog-postgres/pk_mytable.1.v1.od.txt");
    let text = fs::read_to_string(reference("blog-postgres/pk_mytable.pageinspect.txt")).unwrap();
    let results = parse_psql(&text);
    let find = |f: &str| results.iter().find(|r| r.query.contains(f)).unwrap();

    let items_result = find("bt_page_items");
    assert_eq!(items_result.rows.len(), items.len());
    for (row, item) in items_result.rows.iter().zip(&items) {
        for (col, cell) in items_result.columns.iter().zip(row) {
            assert_eq!(
                &as_psql_text(&item[col]),
                cell,
                "bt_page_items {} {col}",
                row[0]
            );
        }
    }

    // bt_page_stats of 9.6 calls btpo_level "btpo".
    let stats = find("bt_page_stats");
    for (col, cell) in stats.columns.iter().zip(&stats.rows[0]) {
        let key = if col == "btpo" {
            "btpo_level"
        } else {
            col.as_str()
        };
        assert_eq!(
            &as_psql_text(&ours["stats"][key]),
            cell,
            "bt_page_stats.{col}"
        );
    }
}

fn keys_and_ctids(items: &[Value]) -> Vec<(String, String)> {
    items
        .iter()
        .map(|i| {
            (
                i["data"].as_str().unwrap().to_string(),
                i["ctid"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn pk_mytable_leaf_after_inserting_6_then_5() {
    // v2: key 6 appended after 4.
    let (ours, items) = btree_items("blog-postgres/pk_mytable.1.v2.od.txt");
    assert_eq!(ours["stats"]["live_items"], 5);
    let v2 = keys_and_ctids(&items);
    assert_eq!(v2[4], ("06 00 00 00 00 00 00 00".into(), "(0,5)".into()));

    // v3: key 5 goes between 4 and 6 in line-pointer order; the tuple itself was
    // written last, so its bytes sit lowest on the page.
    let (ours, items) = btree_items("blog-postgres/pk_mytable.1.v3.od.txt");
    assert_eq!(ours["stats"]["live_items"], 6);
    let keys: Vec<String> = keys_and_ctids(&items).into_iter().map(|(k, _)| k).collect();
    let expected: Vec<String> = (1..=6)
        .map(|k| format!("{k:02x} 00 00 00 00 00 00 00"))
        .collect();
    assert_eq!(keys, expected);
    let lp_off = |i: usize| {
        let bytes = decode_od("blog-postgres/pk_mytable.1.v3.od.txt");
        let page = parse_page(&bytes, &PageOptions::default());
        match page.am {
            Some(blockscope::model::postgres::AmData::Btree { items, .. }) => items[i].id.lp_off,
            _ => panic!("not a btree page"),
        }
    };
    assert!(lp_off(4) < lp_off(5), "key 5's tuple is below key 6's");
}
