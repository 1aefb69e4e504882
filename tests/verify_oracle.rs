//! `blockscope verify` on Oracle datafiles and traces: DBVERIFY-style reports,
//! JSON, exit status.

use std::path::Path;
use std::process::Command;

fn fixture(rel: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(rel)
        .to_string_lossy()
        .into_owned()
}

fn verify(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .arg("verify")
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn planted_datafile_names_every_bad_block_like_dbverify() {
    let (code, out, err) = verify(&[&fixture("oracle/planted.dbf")]);
    assert_eq!(code, 1, "{err}");
    for line in [
        "Page 3 is marked corrupt",
        "Bad check value found during dbv:",
        "Page 4 is influx - most likely media corrupt",
        "Fractured block found during dbv:",
        "Page 6 is marked corrupt",
        "Page 7 is marked corrupt",
        "Page 8 failed with logical checks",
        "Total Pages Examined         : 11",
        "Total Pages Marked Corrupt   : 3",
        "Total Pages Influx           : 1",
        "Total Pages Encrypted        : 1",
    ] {
        assert!(out.contains(line), "missing {line:?} in\n{out}");
    }
}

#[test]
fn planted_datafile_as_json() {
    let (code, out, _) = verify(&[&fixture("oracle/planted.dbf"), "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    // One document a run, in the shape both engines share (schema 2).
    assert_eq!(v["schema"], 4);
    assert_eq!(v["engine"], "oracle");
    assert_eq!(v["summary"]["clean"], false);
    assert_eq!(v["summary"]["files"], 1);
    let file = &v["summary"]["per_file"][0];
    assert!(file["file"].as_str().unwrap().ends_with("planted.dbf"));
    assert_eq!(file["clean"], false);
    assert_eq!(file["failing_blocks"], serde_json::json!([3, 4, 6, 7, 8]));
    let problems = v["problems"].as_array().unwrap();
    assert!(problems
        .iter()
        .any(|p| p["blkno"] == 4 && p["class"] == "fractured" && p["offset"] == 8188));
    assert!(problems
        .iter()
        .any(|p| p["blkno"] == 3 && p["class"] == "checksum" && p["field"] == "kcbh.chkval_kcbh"));
}

#[test]
fn a_clean_block_cut_out_of_a_datafile_passes() {
    // One block on its own: checked where its rdba says it belongs.
    let (code, out, err) = verify(&[&fixture("reference/blog-oracle/block_5_907.bin")]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("Total Pages Processed (Data) : 1"));
}

#[test]
fn traces_are_verified_from_their_rebuilt_blocks() {
    let (code, out, _) = verify(&[&fixture("oracle/trace/planted_2_9_8.trc"), "-f", "ndjson"]);
    assert_eq!(code, 1);
    let last: serde_json::Value = serde_json::from_str(out.lines().last().unwrap()).unwrap();
    assert_eq!(last["schema"], 4);
    assert_eq!(last["engine"], "oracle");
    let file = &last["summary"]["per_file"][0];
    assert_eq!(file["total_pages_examined"], 3);
    assert_eq!(file["failing_blocks"], serde_json::json!([8]));
    // Every other line is a problem of that file.
    for line in out.lines().rev().skip(1) {
        let p: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(p["blkno"], 8, "{line}");
    }
    let (code, _, _) = verify(&[&fixture("oracle/trace/block_5_907.trc")]);
    assert_eq!(code, 0);
}

#[test]
fn several_files_make_one_document() {
    let dbf = fixture("oracle/planted.dbf");
    let trc = fixture("oracle/trace/block_5_907.trc");
    let (code, out, _) = verify(&[&dbf, &trc, "--format", "json"]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v.is_object(), "one document, not an array");
    assert_eq!(v["summary"]["files"], 2);
    assert_eq!(v["summary"]["per_file"][1]["clean"], true);
    assert!(v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .all(|p| p["file"] == dbf.as_str()));
}

#[test]
fn engines_are_not_mixed_in_one_run() {
    let (code, _, err) = verify(&[
        &fixture("oracle/planted.dbf"),
        &fixture("postgres/heap/plain_insert.0.page"),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("not both"), "{err}");
}
