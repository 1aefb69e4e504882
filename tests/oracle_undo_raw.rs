//! Undo blocks (type 0x02) decoded from raw bytes: the `UNDO BLK:` header
//! and the `Rec Offset` directory, at the offsets BBED publishes for `struct
//! ktubh`.
//!
//! Two sources, both in fixtures/oracle/blocks/ (the README names them):
//! - `undo_block_11g.bbed`: BBED's `map /v`, `p ktubh` and the bytes its
//!   `modify` echoed (offsets 28–539) of one 11.2 undo block. The block is
//!   rebuilt here from those bytes and from `p ktubh`'s xid; the decoded
//!   fields must equal BBED's printed values and the hex view's regions
//!   BBED's map (`freespace[6336] @52`, `undodata[1800] @6388`).
//! - `undo_block.trc`: the text of a 10.2 undo block (Jonathan Lewis's
//!   notes), with no hex. A synthetic block is built here from the layout
//!   above and that dump's values, in both byte orders
//!   (`undo_block_10g.synthetic.{le,be}.blk`); bytes and text must give the
//!   same structures and the same dump lines.
//!
//! The test builds its blocks from the published numbers, not with
//! blockscope's code.

mod common;

use common::{bless, fixture, root, run};
use serde_json::Value;

const BBED: &str = "oracle/blocks/undo_block_11g.bbed";
const TEXT: &str = "oracle/blocks/undo_block.trc";
const SYNTH_LE: &str = "oracle/blocks/undo_block_10g.synthetic.le.blk";
const SYNTH_BE: &str = "oracle/blocks/undo_block_10g.synthetic.be.blk";

/// BBED's `struct ktubh` offsets (`map /v`).
const KXIDUSN: usize = 20;
const KXIDSLT: usize = 22;
const KXIDSQN: usize = 24;
const KTUBHSEQ: usize = 28;
const KTUBHCNT: usize = 30;
const KTUBHIRB: usize = 31;
const KTUBHICL: usize = 32;
const KTUBHFLG: usize = 33;
const KTUBHIDX: usize = 34;

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("blockscope-{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn show(args: &[&str]) -> String {
    let r = run(args);
    assert_eq!(r.code, 0, "blockscope {args:?}: {}", r.stderr);
    r.stdout
}

fn json(path: &str) -> Value {
    let mut args = vec!["show", "--format", "json", path];
    if !path.ends_with(".trc") {
        args.extend(["--engine", "oracle"]);
    }
    common::show_blocks(&show(&args)).remove(0)
}

/// A block's words in the given byte order.
struct Builder {
    b: Vec<u8>,
    big: bool,
}

impl Builder {
    fn new(big: bool) -> Self {
        Builder {
            b: vec![0; 8192],
            big,
        }
    }
    fn u16(&mut self, at: usize, v: u16) {
        let bytes = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.b[at..at + 2].copy_from_slice(&bytes);
    }
    fn u32(&mut self, at: usize, v: u32) {
        let bytes = if self.big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        self.b[at..at + 4].copy_from_slice(&bytes);
    }
    /// kcbh: type 0x02, format 0xa2 (8 KB), no check value (flg 0), and the
    /// tail that repeats SCN base, type and sequence.
    fn cache_header(&mut self, rdba: u32, bas: u32, seq: u8) {
        self.b[0] = 0x02;
        self.b[1] = 0xa2;
        self.u32(4, rdba);
        self.u32(8, bas);
        self.b[14] = seq;
        self.b[15] = 0x00;
        let tail = (bas << 16) | (0x02 << 8) | u32::from(seq);
        self.u32(8188, tail);
    }
}

/// `0x000a.01a.0000255b` → (usn, slot, sqn).
fn xid_parts(xid: &str) -> (u16, u16, u32) {
    let p: Vec<&str> = xid.trim_start_matches("0x").split('.').collect();
    (
        u16::from_str_radix(p[0], 16).unwrap(),
        u16::from_str_radix(p[1], 16).unwrap(),
        u32::from_str_radix(p[2], 16).unwrap(),
    )
}

fn hex_num(s: &str) -> u32 {
    u32::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

// ---------------------------------------------------------------- BBED block

/// `p ktubh`'s values, by field name (`kxidusn`, `ktubhidx[3]` …).
fn bbed_print() -> Vec<(String, u32)> {
    let text = std::fs::read_to_string(fixture(BBED)).unwrap();
    text.lines()
        .skip_while(|l| !l.starts_with("BBED> p ktubh"))
        .skip(1)
        .take_while(|l| !l.starts_with("BBED>"))
        .filter_map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            match w.as_slice() {
                [ty, name, at, v] if ty.starts_with("ub") && at.starts_with('@') => {
                    Some((name.to_string(), hex_num(v)))
                }
                _ => None,
            }
        })
        .collect()
}

fn bbed_value(p: &[(String, u32)], name: &str) -> u32 {
    p.iter().find(|(n, _)| n == name).unwrap().1
}

/// The 11.2 block: the bytes BBED's `modify` echoed from offset 28 (as
/// stored: BBED prints the file's bytes in order), the xid from `p ktubh`
/// (not in the echoed range), a cache header of our own for the rest (the
/// source prints only the rdba).
fn bbed_block() -> Vec<u8> {
    let text = std::fs::read_to_string(fixture(BBED)).unwrap();
    let p = bbed_print();
    let mut b = Builder::new(false);
    b.cache_header(0x0040_0212, 0x0012_9275, 1);
    b.u16(KXIDUSN, bbed_value(&p, "kxidusn") as u16);
    b.u16(KXIDSLT, bbed_value(&p, "kxidslt") as u16);
    b.u32(KXIDSQN, bbed_value(&p, "kxidsqn"));
    let mut at = KTUBHSEQ;
    for l in text
        .lines()
        .skip_while(|l| !l.starts_with("BBED> modify /x 1b offset 28"))
        .skip_while(|l| !l.starts_with("-----"))
        .skip(1)
    {
        let words: Vec<&str> = l.split_whitespace().collect();
        if words.is_empty() || words[0].len() != 8 {
            break;
        }
        for w in words {
            for i in 0..4 {
                b.b[at] = u8::from_str_radix(&w[2 * i..2 * i + 2], 16).unwrap();
                at += 1;
            }
        }
    }
    assert_eq!(at, 540, "the echoed range is 28..540");
    b.b
}

#[test]
fn bbed_undo_block_decodes_to_bbeds_values_and_map() {
    let bytes = bbed_block();
    let p = bbed_print();
    let dir = temp_dir("undo-bbed");
    let path = dir.join("undo_530.blk");
    std::fs::write(&path, &bytes).unwrap();
    let path = path.to_str().unwrap();
    let v = json(path);
    assert!(v["problems"].as_array().unwrap().is_empty(), "{v}");
    let s = &v["space"];
    assert_eq!(s["body"], "undo_block", "{v}");
    assert_eq!(
        s["xid"],
        format!(
            "0x{:04x}.{:03x}.{:08x}",
            bbed_value(&p, "kxidusn"),
            bbed_value(&p, "kxidslt"),
            bbed_value(&p, "kxidsqn")
        )
    );
    // The echoed bytes are after `modify /x 1b offset 28`: seq 0x1b, not
    // the 0x1a `p ktubh` printed before the change.
    assert_eq!(s["seq"], 0x1b);
    assert_eq!(bbed_value(&p, "ktubhseq"), 0x1a);
    for (key, name) in [
        ("cnt", "ktubhcnt"),
        ("irb", "ktubhirb"),
        ("icl", "ktubhicl"),
        ("flg", "ktubhflg"),
    ] {
        assert_eq!(s[key], bbed_value(&p, name), "{key}");
    }
    let cnt = bbed_value(&p, "ktubhcnt") as usize;
    let offsets = s["offsets"].as_array().unwrap();
    assert_eq!(offsets.len(), cnt);
    for (n, o) in offsets.iter().enumerate() {
        let want = bbed_value(&p, &format!("ktubhidx[{}]", n + 1));
        assert_eq!(o[0], n + 1);
        assert_eq!(o[1], want, "record {}", n + 1);
    }
    assert_eq!(s["ktubhidx0"], bbed_value(&p, "ktubhidx[0]"));
    // The regions BBED's map draws: freespace[6336] @52, undodata[1800]
    // @6388 (ktubhidx[8] + 20), tailchk @8188 (ktubhidx[0] + 20).
    let hex = show(&["show", "--format", "hex", "--engine", "oracle", path]);
    let row = |start: &str, needle: &str| {
        assert!(
            hex.lines()
                .any(|l| l.starts_with(start) && l.contains(needle)),
            "no row {start} with {needle:?} in\n{hex}"
        )
    };
    // 52 = 0x34 (the row at 0x30), 6388 = 0x18f4 (the row at 0x18f0).
    row("0030 ", "freespace 6336 bytes");
    row("18f0 ", "undodata 1800 bytes of undo records 0x01–0x08");
    row("1ff0 ", "tailchk");
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------ synthetic 10g block

/// The published `UNDO BLK:` lines of Lewis's dump, from `UNDO BLK:` to the
/// last `Rec Offset` line.
fn published_lines() -> Vec<String> {
    let text = std::fs::read_to_string(fixture(TEXT)).unwrap();
    let mut out = Vec::new();
    let mut it = text.lines().skip_while(|l| !l.starts_with("UNDO BLK:"));
    for l in it.by_ref() {
        if l.is_empty() {
            break;
        }
        out.push(l.to_string());
    }
    out
}

/// xid, seq, cnt, irb, icl, flg and the directory of the published lines.
struct Published {
    xid: String,
    seq: u32,
    cnt: u32,
    irb: u32,
    icl: u32,
    flg: u32,
    offsets: Vec<(u32, u32)>,
}

fn published() -> Published {
    let lines = published_lines();
    let w: Vec<&str> = lines[1].split_whitespace().collect();
    let at = |label: &str| {
        let i = w.iter().position(|x| *x == label).unwrap();
        w[i + 1].to_string()
    };
    let mut offsets = Vec::new();
    for l in &lines[5..] {
        let w: Vec<&str> = l.split_whitespace().collect();
        for p in w.chunks(2) {
            offsets.push((hex_num(p[0]), hex_num(p[1])));
        }
    }
    Published {
        xid: at("xid:"),
        seq: hex_num(&at("seq:")),
        cnt: hex_num(&at("cnt:")),
        irb: hex_num(&at("irb:")),
        icl: hex_num(&at("icl:")),
        flg: hex_num(&at("flg:")),
        offsets,
    }
}

/// Lewis's block at BBED's offsets: the cache header of the published
/// lines (rdba 0x0080009a, scn 0x0000.03ee485a, seq 0x05, flg 0x00), ktubh
/// and the directory; `ktubhidx[0]` (not printed by the dump) as in BBED's
/// 8 KB block, 0x1fe8 (the tail at 20 + 0x1fe8). The records' bytes are
/// not known and stay zero.
fn synthetic(big: bool) -> Vec<u8> {
    let p = published();
    let mut b = Builder::new(big);
    b.cache_header(0x0080_009a, 0x03ee_485a, 0x05);
    let (usn, slt, sqn) = xid_parts(&p.xid);
    b.u16(KXIDUSN, usn);
    b.u16(KXIDSLT, slt);
    b.u32(KXIDSQN, sqn);
    b.u16(KTUBHSEQ, p.seq as u16);
    b.b[KTUBHCNT] = p.cnt as u8;
    b.b[KTUBHIRB] = p.irb as u8;
    b.b[KTUBHICL] = p.icl as u8;
    b.b[KTUBHFLG] = p.flg as u8;
    b.u16(KTUBHIDX, 0x1fe8);
    for (n, off) in &p.offsets {
        b.u16(KTUBHIDX + 2 * *n as usize, *off as u16);
    }
    b.b
}

#[test]
fn synthetic_undo_block_fixtures_are_current() {
    for (rel, big) in [(SYNTH_LE, false), (SYNTH_BE, true)] {
        let path = root().join("fixtures").join(rel);
        let built = synthetic(big);
        if bless() {
            std::fs::write(&path, &built).unwrap();
            continue;
        }
        let on_disk = std::fs::read(&path).unwrap_or_else(|e| panic!("{rel}: {e} (bless it)"));
        assert!(
            on_disk == built,
            "{rel} is stale: BLOCKSCOPE_BLESS=1 cargo test --test oracle_undo_raw"
        );
    }
}

#[test]
fn synthetic_undo_block_bytes_give_the_texts_structures_and_lines() {
    let p = published();
    assert_eq!(p.offsets.len(), p.cnt as usize, "the published directory");
    let from_text = json(fixture(TEXT).to_str().unwrap());
    let t = &from_text["text"]["space"];
    assert_eq!(t["body"], "undo_block");
    let published = published_lines();
    for (rel, big) in [(SYNTH_LE, false), (SYNTH_BE, true)] {
        let path = fixture(rel);
        let path = path.to_str().unwrap();
        let v = json(path);
        assert_eq!(v["endian"], if big { "big" } else { "little" }, "{rel}");
        assert!(v["problems"].as_array().unwrap().is_empty(), "{rel}: {v}");
        let s = &v["space"];
        for key in ["body", "xid", "seq", "cnt", "irb", "icl", "flg", "offsets"] {
            assert_eq!(s[key], t[key], "{rel}: {key}");
        }
        assert_eq!(s["ktubhidx0"], 0x1fe8);
        assert!(s["records"].as_array().unwrap().is_empty());
        // Oracle's lines, then the note on what is not decoded.
        let out = show(&[
            "show",
            "--format",
            "dump",
            "--dump-part",
            "block",
            "--engine",
            "oracle",
            path,
        ]);
        let body: Vec<&str> = out
            .lines()
            .skip_while(|l| !l.starts_with("UNDO BLK:"))
            .collect();
        assert_eq!(&body[..published.len()], published.as_slice(), "{out}");
        let rest: Vec<&str> = body[published.len()..]
            .iter()
            .copied()
            .filter(|l| !l.is_empty())
            .collect();
        assert!(
            rest[0].starts_with("[blockscope: the undo records"),
            "{out}"
        );
    }
}

/// The published text with the synthetic block's hex inserted as Oracle
/// prints it (`Hex dump of block` after the `frmt:` line, four native
/// words a line).
fn trace_with_hex(text: &str, bytes: &[u8]) -> String {
    let mut out = String::new();
    for l in text.lines() {
        out.push_str(l);
        out.push('\n');
        if l.starts_with("frmt: ") {
            out.push_str("Hex dump of block: st=0, typ_found=1\n");
            out.push_str("Dump of memory from 0x00007F0000000000 to 0x00007F0000002000\n");
            for (i, chunk) in bytes.chunks(16).enumerate() {
                out.push_str(&format!("7F{:010X}", i * 16));
                for w in chunk.chunks(4) {
                    let v = u32::from_le_bytes([w[0], w[1], w[2], w[3]]);
                    out.push_str(&format!(" {v:08X}"));
                }
                out.push_str("  [................]\n");
            }
        }
    }
    out
}

#[test]
fn undo_trace_text_is_checked_against_its_hex() {
    let text = std::fs::read_to_string(fixture(TEXT)).unwrap();
    let bytes = std::fs::read(fixture(SYNTH_LE)).unwrap();
    let dir = temp_dir("undo-cross");
    let agree = dir.join("agree.trc");
    std::fs::write(&agree, trace_with_hex(&text, &bytes)).unwrap();
    let v = json(agree.to_str().unwrap());
    assert!(v["problems"].as_array().unwrap().is_empty(), "{v}");
    // The text's records are kept beside the structures read from the hex.
    assert_eq!(v["text"]["space"]["records"].as_array().unwrap().len(), 5);
    assert_eq!(v["space"]["xid"], v["text"]["space"]["xid"]);
    // The directory agrees, so the text's records join the header read from
    // the bytes, and the dump prints them as the trace did.
    assert_eq!(v["space"]["records"], v["text"]["space"]["records"]);
    let dump = show(&["show", "--format", "dump", agree.to_str().unwrap()]);
    assert!(
        dump.contains("* Rec #0xb  slt: 0x1a  objn: 45810(0x0000b2f2)"),
        "{dump}"
    );
    assert!(!dump.contains("not decoded"), "{dump}");
    // One directory entry edited in the text: named, by field and offset.
    let edited = text.replace("0x0c 0x1b68", "0x0c 0x1b6c");
    assert_ne!(edited, text);
    let bad = dir.join("edited.trc");
    std::fs::write(&bad, trace_with_hex(&edited, &bytes)).unwrap();
    let r = run(&["show", "--format", "json", bad.to_str().unwrap()]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    let v: Value = common::show_blocks(&r.stdout).remove(0);
    let problems = v["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["field"] == "ktubh.ktubhidx[12]" && p["offset"] == 34 + 2 * 12),
        "{problems:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn undo_directory_word_outside_the_block_is_reported() {
    let mut bytes = synthetic(false);
    // Record 3's word pointing past the tail (20 + 0x1ff0 > 8188).
    bytes[KTUBHIDX + 6..KTUBHIDX + 8].copy_from_slice(&0x1ff0u16.to_le_bytes());
    let dir = temp_dir("undo-bad-word");
    let path = dir.join("bad.blk");
    std::fs::write(&path, &bytes).unwrap();
    let r = run(&[
        "show",
        "--format",
        "json",
        "--engine",
        "oracle",
        path.to_str().unwrap(),
    ]);
    let v: Value = common::show_blocks(&r.stdout).remove(0);
    let problems = v["problems"].as_array().unwrap();
    assert!(
        problems
            .iter()
            .any(|p| p["field"] == "ktubh.ktubhidx[3]" && p["offset"] == KTUBHIDX + 6),
        "{problems:?}"
    );
    // The header is still decoded.
    assert_eq!(v["space"]["cnt"], 15);
    let _ = std::fs::remove_dir_all(&dir);
}
