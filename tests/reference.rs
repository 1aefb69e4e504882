//! The published pages in fixtures/reference/ decode to exactly the values
//! printed beside them by the database's own tools (psql's aligned output).

use std::fs;
use std::path::{Path, PathBuf};

use blockscope::input::{decode, InputFormat};
use blockscope::parse::postgres::{parse_page, PageOptions};
use blockscope::render::json::PgPageJson;
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
