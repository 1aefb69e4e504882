//! Space-management and file-header blocks decoded from raw bytes, checked
//! against published dumps that carry both forms: the KTFB file space header
//! (type 0x1d) of a trace with its hex section and Oracle's text, and a
//! datafile header (type 0x0b) dumped with BBED next to the `v$datafile`
//! values of the same database. Blocks are rebuilt here from the published
//! hex, independently of blockscope's trace reader; both byte orders.

mod common;

use common::{fixture, run};
use serde_json::Value;

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("blockscope-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `show --format json` of one block; `code` is the exit status expected
/// (1 when problems are reported). A raw block is read with `--engine
/// oracle`: real KTFB blocks carry format byte 0x02 without the block-size
/// bits, which the engine's auto-detection does not take for Oracle.
fn json_code(path: &str, code: i32) -> Value {
    let mut args = vec!["show", "--format", "json", path];
    if !path.ends_with(".trc") {
        args.extend(["--engine", "oracle"]);
    }
    let r = run(&args);
    assert_eq!(r.code, code, "{}", r.stderr);
    common::show_blocks(&r.stdout).remove(0)
}

fn json(path: &str) -> Value {
    json_code(path, 0)
}

fn dump(path: &str) -> String {
    let mut args = vec!["show", "--format", "dump", "--dump-part", "block", path];
    if !path.ends_with(".trc") {
        args.extend(["--engine", "oracle"]);
    }
    let r = run(&args);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

/// The block of a trace's `Dump of memory` section: 16 bytes a line as four
/// native (little-endian here) words, `Repeat N times` repeating the line
/// before it.
fn block_from_trace_hex(text: &str) -> Vec<u8> {
    let mut out: Vec<u8> = Vec::new();
    let mut last: Vec<u8> = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if let ["Repeat", n, "times"] = w.as_slice() {
            for _ in 0..n.parse::<usize>().unwrap() {
                out.extend_from_slice(&last);
            }
            continue;
        }
        if w.len() >= 5 && w[0].len() == 8 && w[1..5].iter().all(|x| x.len() == 8) {
            if let Ok(words) = w[1..5]
                .iter()
                .map(|x| u32::from_str_radix(x, 16))
                .collect::<Result<Vec<u32>, _>>()
            {
                last = words.iter().flat_map(|v| v.to_le_bytes()).collect();
                out.extend_from_slice(&last);
            }
        }
    }
    out
}

/// `Label: N, Label: N` fields of one published line.
fn fields(line: &str) -> Vec<(String, String)> {
    line.split(", ")
        .filter_map(|p| p.split_once(": "))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

const KTFB_11G: &str = "oracle/blocks/ktfb_header_11g_i686.trc";

/// The published `Header Control:` lines of the 11g block.
fn ktfb_published_lines() -> Vec<String> {
    let text = std::fs::read_to_string(fixture(KTFB_11G)).unwrap();
    let mut lines = text
        .lines()
        .skip_while(|l| *l != "File Space Header Block:");
    let mut out = Vec::new();
    for l in lines.by_ref() {
        if l.starts_with("Deallocation scn") {
            break;
        }
        out.push(l.to_string());
    }
    out
}

/// Swap the words of a KTFB header block to big-endian: the cache header's
/// rdba, SCN base, wrap and check value, the ten `Header Control:` words and
/// the tail.
fn ktfb_big_endian(le: &[u8]) -> Vec<u8> {
    let mut b = le.to_vec();
    let mut swap = |at: usize, len: usize| b[at..at + len].reverse();
    for at in [4, 8] {
        swap(at, 4);
    }
    swap(12, 2);
    for at in (20..60).step_by(4) {
        swap(at, 4);
    }
    swap(8188, 4);
    // The check value is over native 16-bit words: not carried over; the
    // flag that says it is set is cleared.
    b[15] &= !0x04;
    b[16] = 0;
    b[17] = 0;
    b
}

#[test]
fn published_ktfb_header_from_bytes_prints_oracles_lines() {
    let text = std::fs::read_to_string(fixture(KTFB_11G)).unwrap();
    let bytes = block_from_trace_hex(&text);
    assert_eq!(bytes.len(), 8192);
    let published = ktfb_published_lines();
    let mut want: Vec<(String, String)> = Vec::new();
    for l in &published {
        want.extend(fields(l));
    }
    let dir = temp_dir("ktfb-raw");
    for big in [false, true] {
        let b = if big {
            ktfb_big_endian(&bytes)
        } else {
            bytes.clone()
        };
        let p = dir.join(format!("ktfb-{big}.blk"));
        std::fs::write(&p, &b).unwrap();
        let path = p.to_str().unwrap();
        let v = json(path);
        assert_eq!(v["endian"], if big { "big" } else { "little" });
        assert!(v["problems"].as_array().unwrap().is_empty(), "{}", v);
        let s = &v["space"];
        assert_eq!(s["body"], "file_space_header", "{v}");
        for (label, value) in &want {
            let key = match label.as_str() {
                "RelFno" => "relfno",
                "Unit" => "unit",
                "Size" => "size",
                "Flag" => "flag",
                "AutoExtend" => {
                    assert_eq!(s["autoextend"], value == "YES", "{label}");
                    continue;
                }
                "Increment" => "increment",
                "MaxSize" => "maxsize",
                "Initial Area" => "initial_area",
                "Tail" => "tail",
                "First" => "first",
                "Free" => "free",
                other => panic!("unexpected label {other}"),
            };
            assert_eq!(s[key].to_string(), *value, "{label} ({big})");
        }
        // The dump prints the published lines, then says what it left out.
        let out = dump(path);
        let body: Vec<&str> = out
            .lines()
            .skip_while(|l| *l != "File Space Header Block:")
            .collect();
        assert_eq!(&body[..published.len()], published.as_slice(), "{out}");
        assert!(
            body[published.len()].starts_with("[blockscope: Deallocation scn and Header Opcode"),
            "{out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn published_ktfb_trace_text_agrees_with_its_hex() {
    // The trace carries both forms; the bytes rebuilt from its hex and the
    // structures read from its text agree field for field.
    let v = json(fixture(KTFB_11G).to_str().unwrap());
    assert!(v["problems"].as_array().unwrap().is_empty(), "{v}");
    assert_eq!(v["checksum"]["valid"], true);
    // An edited copy (the text's Size changed) is caught, naming the field.
    let text = std::fs::read_to_string(fixture(KTFB_11G)).unwrap();
    let edited = text.replace("Size: 387,", "Size: 388,");
    assert_ne!(edited, text);
    let dir = temp_dir("ktfb-edit");
    let p = dir.join("edited.trc");
    std::fs::write(&p, edited).unwrap();
    let v = json_code(p.to_str().unwrap(), 1);
    let _ = std::fs::remove_dir_all(&dir);
    let problems = v["problems"].as_array().unwrap();
    assert!(
        problems.iter().any(|p| p["class"] == "crosscheck"
            && p["field"] == "ktfbh.Size"
            && p["message"].as_str().unwrap().contains("388")),
        "{v}"
    );
}

/// The published text of each block from `buffer tsn:` on, without the
/// lines that frame a trace section.
fn published_blocks(rel: &str) -> String {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    text.lines()
        .filter(|l| !l.starts_with("Start dump") && !l.starts_with("End dump"))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn published_9i_ktfb_header_and_bitmap_text_round_trip() {
    let rel = "oracle/blocks/ktfb_9i.trc";
    let path = fixture(rel);
    assert_eq!(dump(path.to_str().unwrap()), published_blocks(rel));
    let r = run(&["show", "--format", "json", path.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let v = common::show_blocks(&r.stdout);
    // Text-only blocks: the structures are under `text`.
    let (h, b) = (&v[0]["text"]["space"], &v[1]["text"]["space"]);
    assert_eq!(h["body"], "file_space_header");
    assert_eq!(
        (h["relfno"].as_u64(), h["unit"].as_u64(), h["free"].as_u64()),
        (Some(16), Some(8), Some(155))
    );
    assert_eq!(h["autoextend"], false);
    assert_eq!(h["dealloc_scn"], Value::Null);
    assert_eq!(h["opcode_save"], "No Pending Op");
    assert_eq!(b["body"], "file_space_bitmap");
    assert_eq!(
        (b["begin_block"].as_u64(), b["first"].as_u64()),
        (Some(9), Some(4))
    );
    assert_eq!(b["bitmap"].as_array().unwrap().len(), 2);
}

const KCVFH: &str = "oracle/blocks/kcvfh_sysaux_11g.bbed";

/// The first 512 bytes of the published header (BBED's `dump`: raw bytes in
/// file order, four a group), the rest zero, the tail matching its header.
fn kcvfh_block() -> Vec<u8> {
    let text = std::fs::read_to_string(fixture(KCVFH)).unwrap();
    let mut b: Vec<u8> = Vec::new();
    for l in text.lines() {
        let w: Vec<&str> = l.split_whitespace().collect();
        if w.len() == 8 && w.iter().all(|x| x.len() == 8) {
            for x in w {
                for i in 0..4 {
                    b.push(u8::from_str_radix(&x[2 * i..2 * i + 2], 16).unwrap());
                }
            }
        }
    }
    assert_eq!(b.len(), 512);
    b.resize(8192, 0);
    // Tail: SCN base low 16 bits (0), type 0x0b, seq 1. The check value
    // covers bytes the post does not show: its flag (KCBHFCKV) is cleared.
    b[8188..].copy_from_slice(&0x0000_0b01u32.to_le_bytes());
    b[15] &= !0x04;
    b
}

/// The `v$datafile` row of file 2 under the header line that has `column`.
fn vdatafile(column: &str) -> String {
    let text = std::fs::read_to_string(fixture(KCVFH)).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.split_whitespace().any(|w| w == column))
        .unwrap();
    let head: Vec<&str> = lines[at].split_whitespace().collect();
    let row: Vec<&str> = lines[at + 2].split_whitespace().collect();
    let i = head.iter().position(|w| *w == column).unwrap();
    // A time column is two words (date, time).
    let skip = head[..i]
        .iter()
        .filter(|h| h.contains("TIME") && !h.ends_with("SCN"))
        .count();
    if column.contains("TIME") && !column.ends_with("SCN") {
        format!("{} {}", row[i + skip], row[i + skip + 1])
    } else {
        row[i + skip].to_string()
    }
}

/// `2018-04-04 22:37:51` as Oracle's dumps print a time: `04/04/2018 22:37:51`.
fn dump_time(iso: &str) -> String {
    let (d, t) = iso.split_once(' ').unwrap();
    let p: Vec<&str> = d.split('-').collect();
    format!("{}/{}/{} {t}", p[1], p[2], p[0])
}

/// Convert the little-endian published header to big-endian: every field
/// BBED's map lists at its offset and width.
fn kcvfh_big_endian(le: &[u8]) -> Vec<u8> {
    let mut b = le.to_vec();
    for at in [
        4, 8, 24, 28, 40, 44, 48, 56, 96, 100, 108, 112, 116, 128, 140, 144, 148, 332, 368, 416,
        420, 484, 492, 500, 504, 8188,
    ] {
        b[at..at + 4].reverse();
    }
    for at in [
        12, 16, 52, 54, 104, 120, 132, 136, 138, 336, 424, 488, 496, 508,
    ] {
        b[at..at + 2].reverse();
    }
    b
}

#[test]
fn published_datafile_header_recovery_fields_equal_vdatafile() {
    let le = kcvfh_block();
    let dir = temp_dir("kcvfh-raw");
    let mut dumps = Vec::new();
    for big in [false, true] {
        let b = if big {
            kcvfh_big_endian(&le)
        } else {
            le.clone()
        };
        let p = dir.join(format!("kcvfh-{big}.blk"));
        std::fs::write(&p, &b).unwrap();
        let path = p.to_str().unwrap();
        let v = json(path);
        assert_eq!(v["endian"], if big { "big" } else { "little" });
        let fh = &v["file_header"];
        let rec = &fh["recovery"];
        assert_eq!(fh["kccfhfno"].to_string(), vdatafile("FILE#"));
        assert_eq!(fh["kcvfhtsn"].to_string(), vdatafile("TS#"));
        assert_eq!(fh["kcvfhrfn"].to_string(), vdatafile("RFILE#"));
        assert_eq!(fh["kcvfhtnm"], "SYSAUX");
        assert_eq!(
            fh["kcvfhcrs"]["kscnbas"].to_string(),
            vdatafile("CREATION_CHANGE#")
        );
        assert_eq!(
            fh["kcvfhckp_scn"]["kscnbas"].to_string(),
            vdatafile("CHECKPOINT_CHANGE#")
        );
        // The internal time words are the numbers the post computed in SQL
        // from v$datafile's times, and decode to those times.
        assert_eq!(fh["kcvfhcrt"].to_string(), vdatafile("CREATION_NAME_SCN"));
        assert_eq!(
            fh["kcvfhckp_time"].to_string(),
            vdatafile("CHECKPOINT_TIME_SCN")
        );
        assert_eq!(
            rec["creation_time"],
            dump_time(&vdatafile("CREATION_TIME_FILE"))
        );
        assert_eq!(
            rec["checkpoint_time"],
            dump_time(&vdatafile("CHECKPOINT_TIME_FIL"))
        );
        // BBED's `print kcvfhckp` of the same header: thread 1, rba 0x1c.991b.10.
        assert_eq!(rec["kcvcpthr"], 1);
        assert_eq!(rec["kcvcprba"]["kcrbaseq"], 0x1c);
        assert_eq!(rec["kcvcprba"]["kcrbabno"], 0x991b);
        assert_eq!(rec["kcvcprba"]["kcrbabof"], 0x10);
        // kcvfhsta 0x0004 is what BBED prints as `(KCVFHOFZ)`.
        assert_eq!(fh["kcvfhsta"], 4);
        assert_eq!(rec["kcvfhsta_names"], serde_json::json!(["KCVFHOFZ"]));
        assert_eq!(rec["fuzzy"], true);
        dumps.push(dump(path));
    }
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(dumps[0], dumps[1]);
    let out = &dumps[0];
    assert!(
        out.contains("Checkpointed at scn:  0x0000.0005b0e8 04/08/2018 16:34:42\n thread:1 rba:(0x1c.991b.10)\n"),
        "{out}"
    );
    assert!(
        out.contains("          File Number=2, Blksiz=8192, File Type=3 DATA\n"),
        "{out}"
    );
}
