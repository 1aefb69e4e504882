//! A data directory's own files and its catalogs, judged against real
//! servers of each major (fixtures/postgres/catalog/, made by its make.sh):
//! `show global/pg_control` against pg_control_system(), _checkpoint(),
//! _init() and _recovery() (and Debian's pg_controldata for 15);
//! `show pg_filenode.map` against pg_relation_filenode() of every mapped
//! relation; `show DATADIR --table` against the table's rows as COPY wrote
//! them. A live test runs make.sh for every major when the servers are there.

mod common;

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use common::{fixture, run};
use serde_json::Value;

const MAJORS: [u32; 9] = [10, 11, 12, 13, 14, 15, 16, 17, 18];

fn dir(major: u32) -> PathBuf {
    fixture(&format!("postgres/catalog/{major}"))
}

/// `name|value` lines.
fn pairs(path: &Path) -> HashMap<String, String> {
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once('|'))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// `label:   value` lines of pg_controldata's text.
fn labelled(text: &str) -> HashMap<String, String> {
    text.lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.to_string(), v.trim().to_string()))
        .collect()
}

/// Days since 1970-01-01 of a civil date.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `2026-11-24 05:12:27+00` as C's `%c` in UTC: `Tue Nov 24 05:12:27 2026`.
fn c_time(sql: &str) -> String {
    let n = |a: usize, b: usize| sql[a..b].parse::<i64>().unwrap();
    let (y, mo, d) = (n(0, 4), n(5, 7), n(8, 10));
    let days = days_from_civil(y, mo, d);
    const DAYS: [&str; 7] = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"];
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    format!(
        "{} {} {:>2} {} {y}",
        DAYS[days.rem_euclid(7) as usize],
        MONTHS[(mo - 1) as usize],
        d,
        &sql[11..19]
    )
}

#[test]
fn pg_control_of_every_major_matches_the_servers_own_functions() {
    // (SQL column, pg_controldata label, how the SQL value is written there)
    let t = |v: &str| if v == "t" { "on" } else { "off" }.to_string();
    let yes = |v: &str| if v == "t" { "yes" } else { "no" }.to_string();
    let by = |v: &str| if v == "t" { "by value" } else { "by reference" }.to_string();
    let same = |v: &str| v.to_string();
    type Conv<'a> = &'a dyn Fn(&str) -> String;
    let fields: Vec<(&str, &str, Conv)> = vec![
        ("pg_control_version", "pg_control version number", &same),
        ("catalog_version_no", "Catalog version number", &same),
        ("system_identifier", "Database system identifier", &same),
        (
            "pg_control_last_modified",
            "pg_control last modified",
            &c_time,
        ),
        ("checkpoint_lsn", "Latest checkpoint location", &same),
        ("prior_lsn", "Prior checkpoint location", &same),
        ("redo_lsn", "Latest checkpoint's REDO location", &same),
        ("redo_wal_file", "Latest checkpoint's REDO WAL file", &same),
        ("timeline_id", "Latest checkpoint's TimeLineID", &same),
        (
            "prev_timeline_id",
            "Latest checkpoint's PrevTimeLineID",
            &same,
        ),
        (
            "full_page_writes",
            "Latest checkpoint's full_page_writes",
            &t,
        ),
        ("next_xid", "Latest checkpoint's NextXID", &same),
        ("next_oid", "Latest checkpoint's NextOID", &same),
        (
            "next_multixact_id",
            "Latest checkpoint's NextMultiXactId",
            &same,
        ),
        (
            "next_multi_offset",
            "Latest checkpoint's NextMultiOffset",
            &same,
        ),
        ("oldest_xid", "Latest checkpoint's oldestXID", &same),
        (
            "oldest_xid_dbid",
            "Latest checkpoint's oldestXID's DB",
            &same,
        ),
        (
            "oldest_active_xid",
            "Latest checkpoint's oldestActiveXID",
            &same,
        ),
        (
            "oldest_multi_xid",
            "Latest checkpoint's oldestMultiXid",
            &same,
        ),
        (
            "oldest_multi_dbid",
            "Latest checkpoint's oldestMulti's DB",
            &same,
        ),
        (
            "oldest_commit_ts_xid",
            "Latest checkpoint's oldestCommitTsXid",
            &same,
        ),
        (
            "newest_commit_ts_xid",
            "Latest checkpoint's newestCommitTsXid",
            &same,
        ),
        ("checkpoint_time", "Time of latest checkpoint", &c_time),
        ("max_data_alignment", "Maximum data alignment", &same),
        ("database_block_size", "Database block size", &same),
        (
            "blocks_per_segment",
            "Blocks per segment of large relation",
            &same,
        ),
        ("wal_block_size", "WAL block size", &same),
        ("bytes_per_wal_segment", "Bytes per WAL segment", &same),
        (
            "max_identifier_length",
            "Maximum length of identifiers",
            &same,
        ),
        ("max_index_columns", "Maximum columns in an index", &same),
        (
            "max_toast_chunk_size",
            "Maximum size of a TOAST chunk",
            &same,
        ),
        (
            "large_object_chunk_size",
            "Size of a large-object chunk",
            &same,
        ),
        ("float4_pass_by_value", "Float4 argument passing", &by),
        ("float8_pass_by_value", "Float8 argument passing", &by),
        (
            "data_page_checksum_version",
            "Data page checksum version",
            &same,
        ),
        (
            "min_recovery_end_lsn",
            "Minimum recovery ending location",
            &same,
        ),
        (
            "min_recovery_end_timeline",
            "Min recovery ending loc's timeline",
            &same,
        ),
        ("backup_start_lsn", "Backup start location", &same),
        ("backup_end_lsn", "Backup end location", &same),
        (
            "end_of_backup_record_required",
            "End-of-backup record required",
            &yes,
        ),
    ];
    for major in MAJORS {
        let sql = pairs(&dir(major).join("pg_control.sql"));
        let path = dir(major).join("pg_control");
        let r = run(&["show", path.to_str().unwrap()]);
        assert_eq!(r.code, 0, "{major}: {}", r.stderr);
        let shown = labelled(&r.stdout);
        assert!(shown["CRC-32C"].ends_with("(correct)"), "{major}");
        let mut compared = 0;
        for (column, label, conv) in &fields {
            let Some(value) = sql.get(*column) else {
                assert!(!shown.contains_key(*label), "{major}: {label} shown");
                continue;
            };
            assert_eq!(shown.get(*label), Some(&conv(value)), "{major}: {label}");
            compared += 1;
        }
        assert!(compared >= 37, "{major}: {compared} fields compared");
        // PostgreSQL 18's default_char_signedness.
        if let Some(unsigned) = sql.get("default_char_unsigned") {
            let want = if unsigned == "t" {
                "unsigned"
            } else {
                "signed"
            };
            assert_eq!(shown["Default char data signedness"], want);
        }
        // The JSON names are ControlFileData's, in snake_case.
        let r = run(&["show", path.to_str().unwrap(), "--format", "json"]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        let c = &doc["pg_control"]["control"];
        assert_eq!(
            c["pg_control_version"].to_string(),
            sql["pg_control_version"]
        );
        assert_eq!(c["system_identifier"].to_string(), sql["system_identifier"]);
        assert_eq!(
            c["check_point_copy"]["next_oid"].to_string(),
            sql["next_oid"]
        );
        assert_eq!(doc["pg_control"]["crc_ok"], true);
    }
}

/// pg_control's JSON gives LSNs as PostgreSQL prints them (`"0/1B98D78"`,
/// as pg_control_checkpoint() and pg_control_recovery() do) and the state
/// in pg_controldata's words, for every major.
#[test]
fn pg_control_json_has_lsn_text_and_state_words() {
    for major in MAJORS {
        let sql = pairs(&dir(major).join("pg_control.sql"));
        let path = dir(major).join("pg_control");
        let r = run(&["show", path.to_str().unwrap(), "--format", "json"]);
        assert_eq!(r.code, 0, "{major}: {}", r.stderr);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["schema"], 2);
        let c = &doc["pg_control"]["control"];
        for (key, column) in [
            ("/check_point", "checkpoint_lsn"),
            ("/check_point_copy/redo", "redo_lsn"),
            ("/prev_check_point", "prior_lsn"),
            ("/min_recovery_point", "min_recovery_end_lsn"),
            ("/backup_start_point", "backup_start_lsn"),
            ("/backup_end_point", "backup_end_lsn"),
        ] {
            let got = c.pointer(key);
            match sql.get(column) {
                Some(want) => assert_eq!(got, Some(&Value::from(want.as_str())), "{major} {key}"),
                None => assert_eq!(got, None, "{major} {key}"),
            }
        }
        // The servers' pg_control was copied while they ran.
        assert_eq!(c["state"], "in production", "{major}");
        let r = run(&["show", path.to_str().unwrap(), "--format", "ndjson"]);
        assert_eq!(r.stdout.lines().count(), 1);
        assert_eq!(serde_json::from_str::<Value>(&r.stdout).unwrap(), doc);
    }
    // Debian's pg_controldata of 15: every LSN it prints, and the state.
    let text = fs::read_to_string(dir(15).join("pg_controldata.txt")).unwrap();
    let want = labelled(&text);
    let r = run(&[
        "show",
        dir(15).join("pg_control").to_str().unwrap(),
        "-f",
        "json",
    ]);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let c = &doc["pg_control"]["control"];
    for (key, label) in [
        ("/state", "Database cluster state"),
        ("/check_point", "Latest checkpoint location"),
        (
            "/check_point_copy/redo",
            "Latest checkpoint's REDO location",
        ),
        ("/unlogged_lsn", "Fake LSN counter for unlogged rels"),
        ("/min_recovery_point", "Minimum recovery ending location"),
        ("/backup_start_point", "Backup start location"),
        ("/backup_end_point", "Backup end location"),
    ] {
        assert_eq!(
            c.pointer(key),
            Some(&Value::from(want[label].as_str())),
            "{key}"
        );
    }
}

/// Every DBState value in pg_controldata's words (the byte of a shut-down
/// cluster's file rewritten, its CRC then wrong: the JSON still shows it).
#[test]
fn pg_control_states_are_pg_controldatas_words() {
    let tmp = std::env::temp_dir().join(format!("blockscope-states-{}", std::process::id()));
    fs::create_dir_all(&tmp).unwrap();
    let bytes = fs::read(dir(15).join("pg_control")).unwrap();
    let words = [
        "starting up",
        "shut down",
        "shut down in recovery",
        "shutting down",
        "in crash recovery",
        "in archive recovery",
        "in production",
        "unrecognized status code (7)",
    ];
    let path = tmp.join("pg_control");
    for (state, word) in words.iter().enumerate() {
        let mut b = bytes.clone();
        // ControlFileData: system_identifier (8), pg_control_version (4),
        // catalog_version_no (4), then state (a 4-byte enum).
        b[16..20].copy_from_slice(&(state as u32).to_le_bytes());
        fs::write(&path, &b).unwrap();
        let r = run(&["show", path.to_str().unwrap(), "-f", "json"]);
        let doc: Value = serde_json::from_str(&r.stdout).unwrap();
        assert_eq!(doc["pg_control"]["control"]["state"], *word, "{state}");
    }
    fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn pg_control_is_what_pg_controldata_prints() {
    let d = dir(15);
    let want = fs::read_to_string(d.join("pg_controldata.txt")).unwrap();
    let r = run(&["show", d.join("pg_control").to_str().unwrap()]);
    let got: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| !l.starts_with("CRC-32C:"))
        .collect();
    assert_eq!(got, want.lines().collect::<Vec<_>>());
}

#[test]
fn damaged_pg_control_is_shown_and_called_damaged() {
    let tmp = std::env::temp_dir().join(format!("blockscope-cluster-{}", std::process::id()));
    fs::create_dir_all(&tmp).unwrap();
    let mut bytes = fs::read(dir(18).join("pg_control")).unwrap();
    bytes[100] ^= 0x40;
    let path = tmp.join("pg_control");
    fs::write(&path, &bytes).unwrap();
    let r = run(&["show", path.to_str().unwrap()]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains("WRONG"), "{}", r.stdout);
    // A file of that size not named pg_control is not taken for one.
    let other = tmp.join("12345");
    fs::write(&other, &bytes).unwrap();
    let r = run(&["show", other.to_str().unwrap()]);
    assert!(!r.stdout.contains("pg_control version number"));
    fs::remove_dir_all(&tmp).unwrap();
}

#[test]
fn relation_maps_of_every_major_match_pg_relation_filenode() {
    for major in MAJORS {
        let d = dir(major);
        let text = fs::read_to_string(d.join("mapped.txt")).unwrap();
        let mut maps = HashMap::new();
        for (shared, file) in [
            ("t", "global.pg_filenode.map"),
            ("f", "base.pg_filenode.map"),
        ] {
            let r = run(&["show", d.join(file).to_str().unwrap(), "-f", "json"]);
            assert_eq!(r.code, 0, "{major} {file}: {}", r.stderr);
            let doc: Value = serde_json::from_str(&r.stdout).unwrap();
            let m = doc["pg_filenode_map"].clone();
            assert_eq!(m["crc_ok"], true);
            assert_eq!(m["magic"], 0x592717);
            assert_eq!(m["max_mappings"], if major >= 16 { 64 } else { 62 });
            maps.insert(shared, m);
        }
        let mut counts = HashMap::new();
        for line in text.lines() {
            let f: Vec<&str> = line.split('|').collect();
            let (shared, oid, relname, filenode) = (f[0], f[1], f[2], f[3]);
            *counts.entry(shared).or_insert(0) += 1;
            let entry = maps[shared]["mappings"]
                .as_array()
                .unwrap()
                .iter()
                .find(|m| m["mapoid"].as_u64().map(|o| o.to_string()).as_deref() == Some(oid))
                .unwrap_or_else(|| panic!("{major}: {relname} not in the map"));
            assert_eq!(
                entry["mapfilenumber"].to_string(),
                filenode,
                "{major} {relname}"
            );
            assert_eq!(entry["relname"], relname, "{major} {oid}");
        }
        for (shared, m) in &maps {
            assert_eq!(m["num_mappings"], counts[shared], "{major} {shared}");
        }
    }
}

/// COPY's text form of a value.
fn copy_text(v: &Value) -> String {
    match v {
        Value::Null => "\\N".into(),
        Value::Bool(b) => if *b { "t" } else { "f" }.into(),
        Value::Number(n) => n.to_string(),
        other => other
            .as_str()
            .unwrap()
            .replace('\\', "\\\\")
            .replace('\t', "\\t")
            .replace('\n', "\\n")
            .replace('\r', "\\r"),
    }
}

/// The live rows of `show DATADIR --table … -f json` as COPY lines, sorted.
fn table_rows(datadir: &Path, database: &str, table: &str) -> Vec<String> {
    table_rows_but(datadir, database, table, Some(ENUM_COLUMN))
}

/// The same, leaving out the column named `skip`.
fn table_rows_but(datadir: &Path, database: &str, table: &str, skip: Option<&str>) -> Vec<String> {
    let r = run(&[
        "show",
        datadir.to_str().unwrap(),
        "--table",
        table,
        "--database",
        database,
        "-f",
        "json",
    ]);
    assert_eq!(r.code, 0, "{table}: {}", r.stderr);
    let mut rows = Vec::new();
    let pages = common::show_blocks(&r.stdout);
    for page in &pages {
        for item in page["items"].as_array().unwrap() {
            let (Some(xmax), Some(infomask)) = (
                item.get("t_xmax").and_then(Value::as_u64),
                item.get("t_infomask").and_then(Value::as_u64),
            ) else {
                continue;
            };
            // Every change of the scenario committed: a version with a
            // deleter that did not abort is an old one.
            if xmax != 0 && infomask & 0x0800 == 0 {
                continue;
            }
            let values: Vec<String> = item["attrs"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|a| a["dropped"] != true && a["name"].as_str() != skip)
                .map(|a| copy_text(&a["value"]))
                .collect();
            rows.push(values.join("\t"));
        }
    }
    rows.sort_by_key(|r| r.split('\t').next().unwrap().parse::<i64>().unwrap());
    rows
}

/// public.t's enum column: its values are pg_enum OIDs, whose labels need
/// pg_enum, which the committed PostgreSQL 18 subset lacks (made before the
/// lookup read it; they are shown as hex there); left out of that
/// comparison on both sides.
const ENUM_COLUMN: &str = "feel";
/// Its place in public.t's COPY lines (0-based, dropped column not counted).
const ENUM_FIELD: usize = 23;

fn copy_rows(path: &Path) -> Vec<String> {
    let is_t = path.to_string_lossy().ends_with("public.t.copy");
    fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| {
            let mut f: Vec<&str> = l.split('\t').collect();
            if is_t {
                f.remove(ENUM_FIELD);
            }
            f.join("\t")
        })
        .collect()
}

#[test]
fn show_table_decodes_what_select_returns() {
    let d = dir(18);
    let datadir = d.join("datadir");
    for (db, table) in [("postgres", "public.t"), ("postgres", "app.big")] {
        let want = copy_rows(&d.join(format!("{db}.{table}.copy")));
        assert_eq!(table_rows(&datadir, db, table), want, "{table}");
    }
}

/// Enums, ranges (built-in and user-made, text bounds that need quoting),
/// composites (a table's row type, a CREATE TYPE … AS with a dropped
/// attribute), arrays of each and a domain over an array, as COPY wrote
/// them on PostgreSQL 12 and 18 (fixtures/postgres/catalog/types.sh); and
/// a table in a non-default tablespace (pg_tblspc/OID/PG_…/DBOID/).
#[test]
fn show_table_decodes_enums_ranges_composites_and_tablespaces() {
    for major in [12, 18] {
        let d = fixture(&format!("postgres/catalog/types/{major}"));
        let datadir = d.join("datadir");
        let tables: &[&str] = if major >= 14 {
            &["public.kinds", "public.spaced", "public.multi"]
        } else {
            &["public.kinds", "public.spaced"]
        };
        for &table in tables {
            let want: Vec<String> = fs::read_to_string(d.join(format!("{table}.copy")))
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            assert!(!want.is_empty(), "{major} {table}");
            assert_eq!(
                table_rows_but(&datadir, "postgres", table, None),
                want,
                "{major} {table}"
            );
        }
        let r = run(&[
            "show",
            datadir.to_str().unwrap(),
            "--table",
            "public.spaced",
        ]);
        assert!(r.stderr.contains("pg_tblspc/"), "{major}: {}", r.stderr);
    }
}

/// A table of several segment files is shown as one document: here the
/// fixture's one-page file copied as its second segment `N.1` (whose block
/// is then number RELSEG_SIZE, 131072, and fails its checksum there).
#[test]
fn show_table_of_several_segments_is_one_document() {
    let src = fixture("postgres/catalog/types/18/datadir");
    let tmp = std::env::temp_dir().join(format!("blockscope-segments-{}", std::process::id()));
    let copy = |from: &Path, to: &Path| {
        for e in walk(from) {
            let rel = e.strip_prefix(from).unwrap();
            let dest = to.join(rel);
            fs::create_dir_all(dest.parent().unwrap()).unwrap();
            fs::copy(&e, &dest).unwrap();
        }
    };
    copy(&src, &tmp);
    // The tablespace holds public.spaced's file and its empty TOAST file.
    let file = walk(&tmp.join("pg_tblspc"))
        .into_iter()
        .find(|p| fs::metadata(p).unwrap().len() > 0)
        .unwrap();
    fs::copy(&file, file.with_extension("1")).unwrap();
    let p = tmp.to_str().unwrap();
    let r = run(&["show", p, "--table", "public.spaced", "-f", "json"]);
    let blocks: Vec<u64> = common::show_blocks(&r.stdout)
        .iter()
        .map(|b| b["blkno"].as_u64().unwrap())
        .collect();
    assert_eq!(blocks, [0, 131072]);
    let r = run(&["show", p, "--table", "public.spaced", "-f", "ndjson"]);
    assert_eq!(common::show_lines(&r.stdout).len(), 2, "{}", r.stdout);
    fs::remove_dir_all(&tmp).unwrap();
}

fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walk(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn show_table_says_what_is_not_there() {
    let datadir = dir(18).join("datadir");
    let p = datadir.to_str().unwrap();
    let r = run(&["show", p, "--table", "public.nope"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("public.nope is not in pg_class"),
        "{}",
        r.stderr
    );
    let r = run(&["show", p, "--table", "t", "--database", "nodb"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr.contains("\"nodb\" is not in pg_database"),
        "{}",
        r.stderr
    );
    let r = run(&["show", p, "--table", "nsp.t"]);
    assert!(
        r.stderr.contains("schema \"nsp\" is not in pg_namespace"),
        "{}",
        r.stderr
    );
}

/// Runs fixtures/postgres/catalog/make.sh for every major into a temp dir
/// and checks pg_control, the maps and every test table there (also the
/// table in a second database). Needs root (servers run as postgres), psql
/// and the servers of servers.sh; skipped with a message otherwise, or
/// unless BLOCKSCOPE_LIVE_CATALOG=1 (it takes a few minutes).
#[test]
fn live_catalog_lookup_on_every_major() {
    if std::env::var("BLOCKSCOPE_LIVE_CATALOG").ok().as_deref() != Some("1") {
        eprintln!(
            "live catalog test skipped: set BLOCKSCOPE_LIVE_CATALOG=1 to run make.sh for 12..18"
        );
        return;
    }
    let script = fixture("postgres/catalog/make.sh");
    let out = std::env::temp_dir().join(format!("blockscope-catalog-live-{}", std::process::id()));
    let port = std::env::var("BLOCKSCOPE_PG_PORT").unwrap_or_else(|_| "56131".into());
    let majors = ["12", "13", "14", "15", "16", "17", "18"];
    let status = std::process::Command::new("bash")
        .arg(&script)
        .args(["--out", out.to_str().unwrap(), "--port", &port, "--datadir"])
        .args(majors)
        .status();
    match status {
        Ok(s) if s.success() => {}
        other => {
            eprintln!(
                "live catalog test skipped: make.sh could not build the clusters ({other:?})"
            );
            return;
        }
    }
    for major in majors {
        let d = out.join(major);
        let datadir = d.join("datadir");
        let r = run(&["show", d.join("pg_control").to_str().unwrap()]);
        assert!(r.stdout.contains("(correct)"), "{major}");
        for (db, table) in [
            ("postgres", "public.t"),
            ("postgres", "app.big"),
            ("other", "public.t2"),
        ] {
            // make.sh copies pg_enum too: the enum column is compared here.
            let want: Vec<String> = fs::read_to_string(d.join(format!("{db}.{table}.copy")))
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            assert_eq!(
                table_rows_but(&datadir, db, table, None),
                want,
                "{major} {table}"
            );
        }
    }
    fs::remove_dir_all(&out).unwrap();
}

/// fixtures/postgres/catalog/multidb (multidb.sh, PostgreSQL 15): tables in
/// databases shop and archive, none in postgres. A relation not in the
/// database given (or postgres) is looked up in every database: in exactly
/// one and no --database given, it is read from there and said; otherwise
/// the error says where it is. Indexes, TOAST tables and materialized views
/// are accepted wherever tables are (an index is shown and mapped, not
/// exported).
#[test]
fn a_table_is_found_in_whichever_database_has_it() {
    let dir = fixture("postgres/catalog/multidb");
    let data = dir.join("datadir");
    let data = data.to_str().unwrap();
    let copy = |name: &str| fs::read_to_string(dir.join(name)).unwrap();

    // In shop alone: used, and said.
    for (table, file) in [
        ("public.items", "shop.public.items.copy"),
        ("public.items_mv", "shop.public.items_mv.copy"),
    ] {
        let r = run(&["export", data, "--table", table, "--format", "copy"]);
        assert_eq!(r.code, 0, "{table}: {}", r.stderr);
        assert_eq!(r.stdout, copy(file), "{table}");
        assert!(
            r.stderr.contains(&format!(
                "{table} is not in database \"postgres\": it is in database \"shop\" alone, \
                 and is read from there (--database shop)"
            )),
            "{table}: {}",
            r.stderr
        );
    }
    // Given explicitly, the database is the one read.
    let r = run(&[
        "export",
        data,
        "--table",
        "public.orders",
        "--database",
        "archive",
        "--format",
        "copy",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stdout, copy("archive.public.orders.copy"));
    // In two databases: the error names both.
    let r = run(&["export", data, "--table", "public.orders"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("public.orders is in databases \"shop\", \"archive\": give --database NAME"),
        "{}",
        r.stderr
    );
    assert_eq!(r.stdout, "");
    // Not in the database given: where it is.
    let r = run(&[
        "export",
        data,
        "--table",
        "public.items",
        "--database",
        "archive",
    ]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(
        r.stderr
            .contains("table public.items is not in pg_class of database \"archive\"")
            && r.stderr
                .contains("public.items is in database \"shop\": give --database shop"),
        "{}",
        r.stderr
    );
    // Nowhere: as before.
    let r = run(&["export", data, "--table", "public.nothing"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("table public.nothing is not in pg_class of database \"postgres\"")
            && !r.stderr.contains("give --database"),
        "{}",
        r.stderr
    );

    // An index: shown (its keys with the catalog's column) and mapped, not exported.
    let r = run(&[
        "show",
        data,
        "--table",
        "public.items_name_idx",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let doc: Value = serde_json::from_str(&r.stdout).unwrap();
    let pages = doc["blocks"].as_array().unwrap();
    assert_eq!(pages.len(), 2);
    assert!(pages.iter().all(|p| p["kind"] == "btree"), "{}", r.stdout);
    assert!(r.stdout.contains("\"item 9\""), "{}", r.stdout);
    let r = run(&["map", data, "--table", "public.items_name_idx"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("kinds: btree 2"), "{}", r.stdout);
    let r = run(&["export", data, "--table", "public.items_name_idx"]);
    assert_eq!(r.code, 2);
    assert!(
        r.stderr
            .contains("public.items_name_idx is an index: its tuples are keys"),
        "{}",
        r.stderr
    );
    // A TOAST table by its name.
    let r = run(&[
        "show",
        data,
        "--table",
        "pg_toast.pg_toast_16386",
        "--database",
        "shop",
        "--format",
        "json",
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}
