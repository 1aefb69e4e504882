//! `blockscope decode rowid`: extended ROWIDs (base 64: data object id,
//! relative file, block, row) and restricted ones (hex block.row.file).

mod common;

use serde_json::Value;

const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// An extended ROWID written the way DBMS_ROWID lays it out.
fn extended(object: u64, file: u64, block: u64, row: u64) -> String {
    let enc = |v: u64, n: u32| -> String {
        (0..n)
            .rev()
            .map(|i| ALPHABET[((v >> (6 * i)) & 63) as usize] as char)
            .collect()
    };
    format!(
        "{}{}{}{}",
        enc(object, 6),
        enc(file, 3),
        enc(block, 6),
        enc(row, 3)
    )
}

fn json(rowid: &str) -> Value {
    let run = common::run(&["decode", "rowid", rowid, "--format", "json"]);
    assert_eq!(run.code, 0, "{}", run.stderr);
    serde_json::from_str(&run.stdout).unwrap()
}

#[test]
fn extended_rowids_round_trip() {
    for (o, f, b, r) in [
        (74682, 12, 3126, 0),
        (0, 1, 0, 0),
        (u32::MAX as u64, 1023, u32::MAX as u64, 4095),
        (97219, 4, 13171, 17),
    ] {
        let id = extended(o, f, b, r);
        let v = json(&id);
        assert_eq!(v["format"], "extended");
        assert_eq!(v["data_object_id"], o, "{id}");
        assert_eq!(v["relative_file"], f, "{id}");
        assert_eq!(v["block"], b, "{id}");
        assert_eq!(v["row"], r, "{id}");
    }
    let run = common::run(&["decode", "rowid", "AAASO6AAMAAAAw2AAA"]);
    assert_eq!(
        run.stdout,
        "rowid AAASO6AAMAAAAw2AAA (extended)\n  data object id  74682\n  relative file   12\n  \
         block           3126\n  row             0\n"
    );
}

#[test]
fn restricted_rowids() {
    let v = json("00000C36.0011.000C");
    assert_eq!(v["format"], "restricted");
    assert!(v.get("data_object_id").is_none());
    assert_eq!(
        (v["block"].as_u64(), v["row"].as_u64()),
        (Some(3126), Some(17))
    );
    assert_eq!(v["relative_file"], 12);
}

#[test]
fn invalid_rowids_are_exit_2_with_the_reason() {
    for (bad, why) in [
        ("AAASO6AAMAAAAw2AA", "neither an extended ROWID"),
        ("AAA!O6AAMAAAAw2AAA", "'!' in the data object id"),
        ("zAASO6AAMAAAAw2AAA", "32-bit"),
        ("00000C36.001.000C", "the row \"001\" is not 4 hex digits"),
        ("00000G36.0011.000C", "the block"),
    ] {
        let run = common::run(&["decode", "rowid", bad]);
        assert_eq!(run.code, 2, "{bad}");
        assert!(run.stderr.contains(why), "{bad}: {}", run.stderr);
    }
}
