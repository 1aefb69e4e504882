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
        "Page 8 failed with check code 6110",
        "Page 5 is marked corrupt",
        "Completely zero block found during dbv:",
        "Total Pages Examined         : 11",
        "Total Pages Empty            : 0",
        "Total Pages Marked Corrupt   : 5",
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
    assert_eq!(v["schema"], 7);
    assert_eq!(v["engine"], "oracle");
    assert_eq!(v["summary"]["clean"], false);
    assert_eq!(v["summary"]["files"], 1);
    let file = &v["summary"]["per_file"][0];
    assert!(file["file"].as_str().unwrap().ends_with("planted.dbf"));
    assert_eq!(file["clean"], false);
    assert_eq!(
        file["failing_blocks"],
        serde_json::json!([3, 4, 5, 6, 7, 8])
    );
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
    assert_eq!(last["schema"], 7);
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

const BS: usize = 8192;

/// A scratch file under the target directory, removed when dropped.
struct Scratch(std::path::PathBuf);

impl Scratch {
    fn new(name: &str, bytes: &[u8]) -> Scratch {
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify_oracle");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, bytes).unwrap();
        Scratch(path)
    }
    fn path(&self) -> &str {
        self.0.to_str().unwrap()
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

fn planted() -> Vec<u8> {
    std::fs::read(fixture("oracle/planted.dbf")).unwrap()
}

/// Set chkval_kcbh so the block XORs to zero again (as BBED's `sum apply`).
fn sum_apply(block: &mut [u8]) {
    block[16] = 0;
    block[17] = 0;
    let x = block
        .chunks(2)
        .fold(0u16, |a, w| a ^ u16::from_le_bytes([w[0], w[1]]));
    block[16..18].copy_from_slice(&x.to_le_bytes());
}

/// The published DBVERIFY case of an index leaf whose kdxconro was lowered
/// by one with BBED (then `sum apply`): "**** kdxcofbo = 434 != 428",
/// "---- end index block validation", "Page 155 failed with check code
/// 6401", counted as Processed (Index) 1, Failing (Index) 1.
#[test]
fn index_leaf_with_a_wrong_row_count_fails_with_check_code_6401() {
    let mut file = planted();
    let leaf = &mut file[9 * BS..10 * BS];
    // kdxconro at 100 (payload 92 + 8), kdxcofbo at 102.
    assert_eq!(u16::from_le_bytes([leaf[100], leaf[101]]), 3);
    assert_eq!(u16::from_le_bytes([leaf[102], leaf[103]]), 42);
    leaf[100] = 2;
    sum_apply(leaf);
    let f = Scratch::new("kdxconro.dbf", &file);
    let (code, out, err) = verify(&[f.path()]);
    assert_eq!(code, 1, "{err}");
    let block9 = out
        .split("\n\n")
        .find(|s| s.contains("DBA = 29360137"))
        .unwrap_or_else(|| panic!("{out}"));
    assert!(
        block9.starts_with("Block Checking: DBA = 29360137, Block Type = KTB-managed data block\n"),
        "{block9}"
    );
    assert!(block9.contains("**** kdxcofbo = 42 != 40"), "{block9}");
    assert!(
        block9.ends_with("---- end index block validation\nPage 9 failed with check code 6401"),
        "{block9}"
    );
    assert!(out.contains("Total Pages Processed (Index): 1\nTotal Pages Failing   (Index): 1\n"));
}

/// A block Oracle formatted and never used (type 0, flg 0x05: KCBHFNEW and
/// a check value) is "empty"; a block of zeros is "Completely zero block
/// found during dbv", marked corrupt, named by the rdba it should have.
#[test]
fn formatted_blocks_are_empty_and_zero_blocks_are_corrupt() {
    let mut file = planted();
    let new = &mut file[5 * BS..6 * BS];
    new.fill(0);
    new[1] = 0xa2;
    new[4..8].copy_from_slice(&0x01c0_0005u32.to_be_bytes()); // planted.dbf is big-endian
    new[14] = 1; // seq
    new[15] = 0x05; // KCBHFNEW | KCBHFCKV
                    // tail: SCN base low 16 bits, type, seq
    new[BS - 4..].copy_from_slice(&[0, 0, 0, 1]);
    sum_apply(new);
    let f = Scratch::new("new_block.dbf", &file);
    let (_, out, _) = verify(&[f.path()]);
    assert!(!out.contains("Page 5 "), "{out}");
    assert!(out.contains("Total Pages Empty            : 1\n"), "{out}");
    assert!(out.contains("Total Pages Marked Corrupt   : 4\n"), "{out}");

    let (_, out, _) = verify(&[&fixture("oracle/planted.dbf")]);
    assert!(out.contains(
        "Page 5 is marked corrupt\nCorrupt block relative dba: 0x01c00005 (file 7, block 5)\n\
         Completely zero block found during dbv:\n"
    ));
}

/// DBVERIFY's START= and END=: only those blocks are examined.
#[test]
fn blocks_limits_the_examined_range() {
    let (code, out, err) = verify(&["--blocks", "8..9", &fixture("oracle/planted.dbf")]);
    assert_eq!(code, 1, "{err}");
    assert!(out.contains("Total Pages Examined         : 2\n"), "{out}");
    assert!(out.contains("Page 8 failed with check code 6110"));
    assert!(!out.contains("Page 3 "));
    let (code, out, _) = verify(&["--blocks", "9", &fixture("oracle/planted.dbf")]);
    assert_eq!(code, 0, "{out}");
    // PostgreSQL inputs have no such option.
    let (code, _, err) = verify(&["--blocks", "1", &fixture("postgres/corrupt/clean/16384")]);
    assert_eq!(code, 2, "{err}");
}

/// A range cut out of a datafile with `dd skip=8`: with --first-block 8 its
/// blocks are at their own positions (block 9 is healthy, not misplaced).
#[test]
fn first_block_places_a_cut_out_range() {
    let file = planted();
    let f = Scratch::new("cut8.dbf", &file[8 * BS..]);
    let (code, out, _) = verify(&[f.path()]);
    assert_eq!(code, 1);
    assert!(out.contains("rdba 0x01c00009 names block 9, but the block is at position 1"));
    let (code, out, err) = verify(&["--first-block", "8", f.path()]);
    assert_eq!(code, 1, "{err}");
    assert!(!out.contains("misplaced"), "{out}");
    assert!(out.contains("Page 8 failed with check code 6110"), "{out}");
    assert!(out.contains("Total Pages Processed (Index): 1\nTotal Pages Failing   (Index): 0\n"));
}

/// An unreadable input (here a dangling symbolic link) is a problem of class
/// `io`; the other files are still verified and the exit status is 1.
#[test]
fn an_unreadable_datafile_is_reported_and_the_run_goes_on() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify_oracle");
    std::fs::create_dir_all(&dir).unwrap();
    let link = dir.join("dangling.dbf");
    let _ = std::fs::remove_file(&link);
    std::os::unix::fs::symlink(dir.join("no-such-file"), &link).unwrap();
    let good = fixture("reference/blog-oracle/block_5_907.bin");
    let (code, out, err) = verify(&[link.to_str().unwrap(), &good]);
    assert_eq!(code, 1, "{out}{err}");
    assert!(
        out.contains("The file could not be read\n  error file [io]: not read: a symbolic link")
    );
    assert!(out.contains("Total Pages Processed (Data) : 1"), "{out}");
    let (code, out, _) = verify(&["-f", "json", link.to_str().unwrap(), &good]);
    assert_eq!(code, 1);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert!(v["problems"]
        .as_array()
        .unwrap()
        .iter()
        .any(|p| p["class"] == "io" && p["field"] == "file"));
    assert_eq!(v["summary"]["clean"], false);
    let _ = std::fs::remove_file(&link);
}
