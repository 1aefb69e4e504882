//! Oracle trace files: blocks rebuilt from the hex section, the formatted text
//! parsed into the same structures, the cross-check between them, errors, and
//! the parser's robustness.

mod common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use blockscope::model::oracle::{OracleVersion, TextBlock};
use blockscope::oracle::crosscheck as compare;
use blockscope::oracle::{parse_block, BlockOptions};
use blockscope::oracle::{read_trace, rebuilt_blocks};
use blockscope::Endian;
use blockscope::TextError;
use blockscope::{dump_text, DumpOptions};
use proptest::prelude::*;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn reference(name: &str) -> PathBuf {
    root().join("fixtures/reference/blog-oracle").join(name)
}

fn fixture(name: &str) -> PathBuf {
    root().join("fixtures/oracle/trace").join(name)
}

fn planted_block(n: usize) -> Vec<u8> {
    let all = fs::read(root().join("fixtures/oracle/planted.dbf")).unwrap();
    all[n * 8192..(n + 1) * 8192].to_vec()
}

/// The text of a block and the raw decode agree on every field the text carries.
fn assert_agrees(bytes: &[u8], text: &TextBlock) {
    let raw = parse_block(bytes, &BlockOptions::default());
    let diffs = compare(&raw, text);
    assert!(diffs.is_empty(), "disagreements: {diffs:#?}");
    // Structures equal the raw ones where the text carries them whole.
    let (Some(h), Some(t)) = (&text.header, &raw.ktbbh) else {
        return;
    };
    let itls: Vec<_> = h.itls.iter().map(|i| i.value.clone()).collect();
    assert_eq!(itls, t.ktbbhitl);
    if let (Some(d), Some(tab)) = (&text.data, &raw.table) {
        let kdbr: Vec<_> = d.kdbr.iter().map(|k| k.value.clone()).collect();
        assert_eq!(kdbr, tab.kdbr);
        let kdbt: Vec<_> = d.kdbt.iter().map(|k| k.value.clone()).collect();
        assert_eq!(kdbt, tab.kdbt);
        assert_eq!(d.rows.len(), tab.rows.len());
        for (a, b) in d.rows.iter().zip(&tab.rows) {
            assert_eq!(
                (a.tab, a.row, a.offs, a.flag, a.lb),
                (b.tab, b.row, b.offs, Some(b.flag), Some(b.lb))
            );
            assert_eq!(a.cc, b.cc);
            let cols: Vec<_> = a
                .cols
                .iter()
                .map(|c| (c.col, c.len, c.data.clone()))
                .collect();
            let raw_cols: Vec<_> = b
                .cols
                .iter()
                .map(|c| (c.col, c.len, c.data.clone()))
                .collect();
            assert_eq!(cols, raw_cols);
        }
        assert_eq!(d.kdbhnrow.map(|a| a.value), Some(tab.kdbh.kdbhnrow));
        assert_eq!(d.kdbhavsp.map(|a| a.value), Some(tab.kdbh.kdbhavsp));
        assert_eq!(d.tsiz.map(|a| a.value), Some(tab.kdbh.tsiz));
    }
}

#[test]
fn reference_trace_rebuilds_the_published_block() {
    let text = fs::read(fixture("block_5_907.trc")).unwrap();
    let blocks = read_trace(&text, None).unwrap();
    assert_eq!(blocks.len(), 1);
    let b = &blocks[0];
    assert_eq!(b.label(), "5/907");
    assert_eq!(b.endian, Some(Endian::Little));
    assert!(b.endian_confirmed);
    assert_eq!(b.hex_address, Some(0x7F14_0F33_5310));
    let bytes = b.bytes.as_ref().unwrap();
    assert_eq!(bytes, &fs::read(reference("block_5_907.bin")).unwrap());
    let t = b.text.as_ref().unwrap();
    assert_eq!(t.version, Some(OracleVersion::V12_1));
    assert!(t.cache.is_some() && t.header.is_some() && t.data.as_ref().unwrap().complete);
    assert_agrees(bytes, t);
    // The library function for verify: the rebuilt blocks with their labels.
    let rebuilt = rebuilt_blocks(&text, None).unwrap();
    assert_eq!((rebuilt[0].file, rebuilt[0].block), (Some(5), Some(907)));
}

#[test]
fn oracles_own_dump_parses_to_the_structures_of_the_raw_block() {
    let text = fs::read(reference("block_5_907.dump.txt")).unwrap();
    let blocks = read_trace(&text, None).unwrap();
    assert_eq!(blocks.len(), 1);
    assert!(blocks[0].bytes.is_none());
    assert_eq!(blocks[0].block, Some(907));
    let t = blocks[0].text.as_ref().unwrap();
    // What the excerpt does not carry stays absent.
    assert!(t.cache.is_none() && t.tsn.is_none() && t.file.is_none());
    let d = t.data.as_ref().unwrap();
    assert_eq!(d.header_address, 0x7f14_0f33_5374);
    assert_eq!(d.rows[0].cols[0].data, vec![0x41; 10]);
    assert_agrees(&fs::read(reference("block_5_907.bin")).unwrap(), t);
}

#[test]
fn column_encrypted_dump_parses_with_the_ciphertext_as_bytes() {
    let text = fs::read(reference("block_column_encrypted.dump.txt")).unwrap();
    let blocks = read_trace(&text, None).unwrap();
    let t = blocks[0].text.as_ref().unwrap();
    let row = &t.data.as_ref().unwrap().rows[0];
    assert_eq!(row.cc, Some(2));
    assert_eq!(row.cols[0].data, vec![0xc1, 0x02]);
    let c = &row.cols[1];
    assert_eq!(c.len, Some(52));
    assert_eq!(c.data.len(), 52);
    assert_eq!(&c.data[..3], &[0xfd, 0xe0, 0x87]);
    assert_eq!(&c.data[50..], &[0xe9, 0x01]);
}

#[test]
fn encrypted_header_dump_is_a_header_only_block() {
    let text = fs::read(reference("block_5_907.encrypted-header.dump.txt")).unwrap();
    let blocks = read_trace(&text, None).unwrap();
    assert_eq!(blocks.len(), 1);
    let t = blocks[0].text.as_ref().unwrap();
    assert!(t.encrypted);
    let c = t.cache.as_ref().unwrap();
    assert_eq!(
        (c.flg, c.chkval, c.tail, c.scn),
        (0x16, 0xf23a, 0x9af40601, 0x4e9af4)
    );
    assert!(t.header.is_none() && t.data.is_none());
}

#[test]
fn every_release_form_round_trips_through_our_dump() {
    let mut blocks = vec![fs::read(reference("block_5_907.bin")).unwrap()];
    for n in [2, 6, 7, 8] {
        blocks.push(planted_block(n));
    }
    for v in [
        OracleVersion::V10,
        OracleVersion::V11,
        OracleVersion::V12_1,
        OracleVersion::V12_2,
    ] {
        for data in &blocks {
            let raw = parse_block(data, &BlockOptions::default());
            let opts = DumpOptions {
                version: Some(v),
                tsn: Some(5),
                file: Some(7),
                buffer: Some(0x7f00_0000_1000),
                hex: true,
                ..DumpOptions::default()
            };
            let text = dump_text(&raw, data, &opts);
            let got = read_trace(text.as_bytes(), None).unwrap();
            assert_eq!(got.len(), 1, "{v:?}\n{text}");
            assert_eq!(got[0].bytes.as_deref(), Some(data.as_slice()));
            assert_eq!(got[0].file, Some(7));
            let t = got[0].text.as_ref().unwrap();
            assert_eq!(t.version, Some(v), "{text}");
            assert_agrees(data, t);
            // And without the hex section: the text alone.
            let text = dump_text(&raw, data, &DumpOptions { hex: false, ..opts });
            let got = read_trace(text.as_bytes(), None).unwrap();
            assert!(got[0].bytes.is_none());
            assert_agrees(data, got[0].text.as_ref().unwrap());
        }
    }
}

#[test]
fn several_dumps_give_several_labelled_blocks() {
    let text = fs::read(fixture("planted_2_9_8.trc")).unwrap();
    let blocks = read_trace(&text, None).unwrap();
    let labels: Vec<_> = blocks.iter().map(|b| b.label()).collect();
    assert_eq!(labels, ["7/2", "7/9", "7/8"]);
    for (b, n) in blocks.iter().zip([2, 9, 8]) {
        assert_eq!(b.bytes.as_deref(), Some(planted_block(n).as_slice()));
    }
    // The index leaf's body is recognised, not decoded.
    assert!(blocks[1].text.as_ref().unwrap().other_body.is_some());
}

#[test]
fn one_start_line_with_several_blocks() {
    // minblk..maxblk: one `Start dump data blocks`, several cache headers.
    let mut text = String::new();
    for (i, n) in [2usize, 6].iter().enumerate() {
        let data = planted_block(*n);
        let raw = parse_block(&data, &BlockOptions::default());
        let opts = DumpOptions {
            version: Some(OracleVersion::V11),
            tsn: Some(5),
            file: Some(7),
            hex: true,
            ..DumpOptions::default()
        };
        let t = dump_text(&raw, &data, &opts);
        let mut lines: Vec<&str> = t.lines().collect();
        if i > 0 {
            lines.retain(|l| !l.starts_with("Start dump"));
        }
        lines.retain(|l| !l.starts_with("End dump"));
        text.push_str(&lines.join("\n"));
        text.push('\n');
    }
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 2);
    assert_eq!(
        blocks[1].bytes.as_deref(),
        Some(planted_block(6).as_slice())
    );
    assert_eq!(blocks[1].file, Some(7));
}

#[test]
fn an_edited_trace_shows_every_disagreement_with_its_line() {
    let text = fs::read_to_string(fixture("block_5_907.trc")).unwrap();
    let edited = text
        .replace("seq: 0x01", "seq: 0x02")
        .replace("nrow=1\n", "nrow=2\n")
        .replace(
            "col  0: [10]  41 41 41 41 41 41 41 41 41 41",
            "col  0: [10]  41 41 41 41 42 41 41 41 41 41",
        );
    let blocks = read_trace(edited.as_bytes(), None).unwrap();
    let raw = parse_block(blocks[0].bytes.as_ref().unwrap(), &BlockOptions::default());
    let diffs = compare(&raw, blocks[0].text.as_ref().unwrap());
    let got: Vec<_> = diffs
        .iter()
        .map(|p| (p.field.as_str(), p.class.as_str()))
        .collect();
    assert_eq!(
        got,
        [
            ("kcbh.seq_kcbh", "crosscheck"),
            ("kdbh.kdbhnrow", "crosscheck"),
            ("tab 0, row 0 col 0", "crosscheck")
        ]
    );
    assert!(
        diffs[0].message.starts_with("trace line 6: "),
        "{}",
        diffs[0].message
    );
}

#[test]
fn big_endian_words_are_detected_or_forced() {
    let le = fs::read(reference("block_5_907.bin")).unwrap();
    let text = fs::read_to_string(fixture("block_5_907.trc")).unwrap();
    // Forcing the wrong order gives a block whose tail does not match.
    let forced = read_trace(text.as_bytes(), Some(Endian::Big)).unwrap();
    assert!(!forced[0].endian_confirmed);
    assert_ne!(forced[0].bytes.as_deref(), Some(le.as_slice()));
    assert!(read_trace(text.as_bytes(), Some(Endian::Little)).unwrap()[0].endian_confirmed);
}

fn error_of(text: &str) -> TextError {
    read_trace(text.as_bytes(), None).unwrap_err()
}

#[test]
fn errors_name_the_line_column_and_what_was_expected() {
    let text = fs::read_to_string(fixture("block_5_907.trc")).unwrap();
    let bad = text.replace(
        "tl: 14 fb: --H-FL-- lb: 0x1  cc: 1",
        "tl: 14 fb: --H-FL-- lb: zz  cc: 1",
    );
    let e = error_of(&bad);
    assert_eq!((e.line, e.column), (50, 25));
    assert_eq!(
        e.message,
        "expected `tl: N fb: KCHDFLPN lb: 0x…  cc: N`, found \"zz\" (no 0x)"
    );
    let bad = text.replace("scn: 0x0.4e9af4 seq", "scn: 0x0.4e9af4 sq");
    let e = error_of(&bad);
    assert_eq!((e.line, e.column), (6, 17));
    assert!(e.message.starts_with("expected `scn:"), "{e}");
    let bad = text.replace("tosp=0x1f76", "tosp 0x1f76");
    let e = error_of(&bad);
    assert_eq!((e.line, e.column), (45, 1));
    assert!(
        e.message.starts_with("expected a data block dump line"),
        "{e}"
    );
    // The command line names the line as before.
    let dir = std::env::temp_dir().join(format!("blockscope-trace-err-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("bad.trc");
    fs::write(&path, text.replace("lb: 0x1  cc: 1", "lb: zz  cc: 1")).unwrap();
    let out = blockscope(&["show", path.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap(),
        format!(
            "blockscope: error: {}: oracle-trace input, line 50: expected `tl: N fb: \
             KCHDFLPN lb: 0x…  cc: N`, found \"zz\" (no 0x)\n",
            path.display()
        )
    );
    fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_truncated_hex_section_says_how_many_bytes_are_missing() {
    let text = fs::read_to_string(fixture("block_5_907.trc")).unwrap();
    let cut: Vec<&str> = text
        .lines()
        .filter(|l| !l.starts_with("7F140F337300"))
        .collect();
    let e = error_of(&cut.join("\n"));
    assert_eq!(e.line, 9);
    assert_eq!(
        e.message,
        "hex section from 0x7F140F335310 to 0x7F140F337310 is truncated: 8176 of 8192 bytes \
         present, 16 bytes missing (the section ends at line 20)"
    );
}

fn blockscope(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_blockscope"))
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn show_works_on_traces() {
    let trc = fixture("block_5_907.trc");
    let trc = trc.to_str().unwrap();
    let out = blockscope(&["show", trc, "--format", "dump", "--oracle-hex"]);
    assert!(out.status.success());
    assert_eq!(
        String::from_utf8(out.stdout).unwrap(),
        fs::read_to_string(fixture("block_5_907.trc")).unwrap()
    );
    let out = blockscope(&["show", trc, "--format", "json"]);
    let v = common::show_block(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(v["trace"]["block"], 907);
    assert_eq!(v["kcbh"]["chkval_kcbh"], 0x46dd);
    assert_eq!(v["text"]["cache"]["chkval"], 0x46dd);
    let out = blockscope(&["show", trc, "--format", "hex"]);
    assert!(String::from_utf8(out.stdout).unwrap().contains("kcbh"));

    // Text only: json, table and dump work; hex says why not.
    let dump = reference("block_5_907.dump.txt");
    let dump = dump.to_str().unwrap();
    let out = blockscope(&[
        "show",
        dump,
        "--format",
        "dump",
        "--dump-part",
        "block",
        "--expand-tabs",
    ]);
    assert_eq!(
        String::from_utf8(out.stdout).unwrap().trim_end(),
        fs::read_to_string(reference("block_5_907.dump.txt"))
            .unwrap()
            .trim_end()
    );
    assert!(blockscope(&["show", dump, "--format", "table"])
        .status
        .success());
    let out = blockscope(&["show", dump, "--format", "hex"]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8(out.stderr)
        .unwrap()
        .contains("carries only the formatted dump text"));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Lines assembled from the trace's vocabulary and noise never panic.
    #[test]
    fn trace_parser_never_panics(lines in proptest::collection::vec(
        prop_oneof![
            Just("Start dump data blocks tsn: 5 file#:5 minblk 1 maxblk 2".to_string()),
            Just("buffer tsn: 5 rdba: 0x0000038b (1024/907)".to_string()),
            Just("scn: 0x0.4e9af4 seq: 0x01 flg: 0x06 tail: 0x9af40601".to_string()),
            Just("frmt: 0x02 chkval: 0x46dd type: 0x06=trans data".to_string()),
            Just("Dump of memory from 0x00007F140F335310 to 0x00007F140F335330".to_string()),
            Just("7F140F335310 0000A206 0000038B 004E9AF4 06010000  [..........N.....]".to_string()),
            Just("Repeat 3 times".to_string()),
            Just("Block header dump:  0x0000038b".to_string()),
            Just(" seg/obj: 0x17bc3  csc: 0x00.4e9aed  itc: 2  flg: E  typ: 1 - DATA".to_string()),
            Just(" Itl           Xid                  Uba         Flag  Lck        Scn/Fsc".to_string()),
            Just("0x01   0x0007.01d.000001d0  0x00000987.0390.27  --U-    1  fsc 0x0000.004e9af4".to_string()),
            Just("data_block_dump,data header at 0x7f140f335374".to_string()),
            Just("tab 0, row 0, @0x1f8a".to_string()),
            Just("tl: 14 fb: --H-FL-- lb: 0x1  cc: 1".to_string()),
            Just("col  0: [10]  41 41".to_string()),
            Just("end_of_block_dump".to_string()),
            Just("Extent Control Header".to_string()),
            Just("  Low HighWater Mark :".to_string()),
            Just("  #blocks in seg. hdr's freelists: 0     ".to_string()),
            Just("Dump of Second Level Bitmap Block".to_string()),
            Just("   Inc #: 0 Objd: 87596".to_string()),
            "[ -~]{0,40}",
        ],
        0..40,
    )) {
        let text = lines.join("\n");
        let _ = read_trace(text.as_bytes(), None);
        let _ = read_trace(text.as_bytes(), Some(Endian::Big));
    }

    /// The reference trace with bytes overwritten never panics.
    #[test]
    fn damaged_reference_trace_never_panics(edits in proptest::collection::vec((0usize..4000, any::<u8>()), 1..8)) {
        let mut text = fs::read(fixture("block_5_907.trc")).unwrap();
        let n = text.len();
        for (at, b) in edits {
            text[at % n] = b;
        }
        if let Ok(blocks) = read_trace(&text, None) {
            for b in blocks {
                if let (Some(bytes), Some(t)) = (&b.bytes, &b.text) {
                    let raw = parse_block(bytes, &BlockOptions::default());
                    let _ = compare(&raw, t);
                }
            }
        }
    }
}

/// The published space-management dumps (segment headers, bitmap blocks,
/// undo header and block, KTFB blocks) of every release in fixtures/oracle/blocks/.
const SPACE_TRACES: [&str; 8] = [
    "assm_11g_hash_labels.trc",
    "assm_segment_header.trc",
    "assm_l1_l2.trc",
    "mssm_segment_header.trc",
    "undo_header.trc",
    "undo_block.trc",
    "ktfb_9i.trc",
    "ktfb_header_11g_i686.trc",
];

/// The lines of the space bodies: from each body's first line (`Extent
/// Control Header`, `UNDO BLK:` …) up to the next framing line or hex section.
fn body_lines(lines: &[&str]) -> Vec<usize> {
    const FIRST: [&str; 6] = [
        "Extent Control Header",
        "Dump of First Level Bitmap Block",
        "Dump of Second Level Bitmap Block",
        "UNDO BLK:",
        "File Space Header Block:",
        "File Space Bitmap Block:",
    ];
    let mut out = Vec::new();
    let mut inside = false;
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        inside |= FIRST.iter().any(|f| t.starts_with(f));
        if t.starts_with("buffer tsn:")
            || t.starts_with("Dump of memory")
            || t.starts_with("scn:")
            || t.starts_with("Block dump from")
            || t.starts_with("Start dump")
            || t.starts_with("End dump")
        {
            inside = false;
            continue;
        }
        if inside {
            out.push(i);
        }
    }
    out
}

/// Blocks with a cache header, by their label.
fn cached_labels(text: &[u8]) -> Vec<String> {
    read_trace(text, None)
        .unwrap()
        .iter()
        .filter(|b| b.text.as_ref().is_some_and(|t| t.cache.is_some()))
        .map(|b| b.label())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// A body line of a published space dump cut short, garbled, dropped or
    /// doubled: the reader never panics, every block keeps its cache header
    /// (the body is decoded or kept as its lines), and the dump prints.
    #[test]
    fn damaged_space_dump_lines_keep_their_blocks(
        file in 0usize..SPACE_TRACES.len(),
        pick in any::<usize>(),
        how in 0u8..4,
        at in any::<usize>(),
        noise in "[ -~]{1,6}",
    ) {
        let text = fs::read_to_string(blocks_fixture(SPACE_TRACES[file])).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        let body = body_lines(&lines);
        prop_assume!(!body.is_empty());
        let i = body[pick % body.len()];
        let line = lines[i];
        let cut = line.char_indices().map(|(k, _)| k).nth(at % line.chars().count().max(1)).unwrap_or(0);
        let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
        match how {
            0 => out[i] = line[..cut].to_string(),
            1 => out[i] = format!("{}{noise}{}", &line[..cut], &line[cut..]),
            2 => { out.remove(i); }
            _ => out.insert(i, line.to_string()),
        }
        let damaged = out.join("\n") + "\n";
        let before = cached_labels(text.as_bytes());
        let blocks = read_trace(damaged.as_bytes(), None);
        prop_assert!(blocks.is_ok(), "{:?}", blocks.err());
        prop_assert_eq!(cached_labels(damaged.as_bytes()), before);
        for b in blocks.unwrap() {
            if let Some(t) = &b.text {
                if let Some(view) = blockscope::oracle::render_view(t, 0) {
                    let _ = dump_text(&view, &[], &DumpOptions::default());
                }
            }
        }
    }
}

/// `blockscope ARGS` on `path`: exit code and stdout, with the path replaced by `TRACE`.
fn run_on(cmd: &str, path: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let p = path.to_str().unwrap();
    let mut args = vec![cmd, p];
    args.extend_from_slice(extra);
    let out = blockscope(&args);
    let stdout = String::from_utf8(out.stdout).unwrap().replace(p, "TRACE");
    (out.status.code(), stdout)
}

/// `show` (JSON and the dump) and `verify` give the same output for `variant` as for `original`.
fn assert_same_output(original: &Path, variant: &Path) {
    for (cmd, extra) in [
        ("show", &["--format", "json"][..]),
        ("show", &["--format", "dump", "--oracle-hex"][..]),
        ("verify", &["--format", "json"][..]),
        ("verify", &[][..]),
    ] {
        let want = run_on(cmd, original, extra);
        assert!(want.1.len() > 100, "{cmd} {extra:?}: {want:?}");
        assert_eq!(
            run_on(cmd, variant, extra),
            want,
            "{cmd} {extra:?} on {}",
            variant.display()
        );
    }
}

#[test]
fn shipped_traces_in_crlf_with_chinese_and_in_utf16_decode_the_same() {
    for name in ["block_5_907", "planted_2_9_8"] {
        let original = fixture(&format!("{name}.trc"));
        for variant in ["utf8-crlf", "utf16le-bom"] {
            assert_same_output(&original, &fixture(&format!("{name}.{variant}.trc")));
        }
    }
}

#[test]
fn other_encodings_of_a_trace_decode_the_same() {
    let dir = std::env::temp_dir().join(format!("blockscope-trace-enc-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let original = fixture("planted_2_9_8.trc");
    let text = fs::read_to_string(&original).unwrap();
    let utf16 = |s: &str, little: bool| -> Vec<u8> {
        s.encode_utf16()
            .flat_map(|u| {
                if little {
                    u.to_le_bytes()
                } else {
                    u.to_be_bytes()
                }
            })
            .collect()
    };
    let crlf = text.replace('\n', "\r\n");
    let mut latin1 = text.clone().into_bytes();
    latin1.extend_from_slice(b"-- r\xe9sum\xe9 du client \xa7 3\n");
    let mut be_bom = vec![0xfe, 0xff];
    be_bom.extend(utf16(&crlf, false));
    let variants: [(&str, Vec<u8>); 4] = [
        ("utf16be-bom", be_bom),
        ("utf16be", utf16(&crlf, false)),
        ("utf16le", utf16(&text, true)),
        ("latin1", latin1),
    ];
    for (name, bytes) in variants {
        let path = dir.join(format!("{name}.trc"));
        fs::write(&path, bytes).unwrap();
        assert_same_output(&original, &path);
    }
    // A comment at the top moves every line number, not the blocks.
    let path = dir.join("top.trc");
    fs::write(&path, format!("-- 客户的跟踪文件\n{text}")).unwrap();
    let args = ["--format", "dump", "--oracle-hex"];
    assert_eq!(
        run_on("show", &path, &args),
        run_on("show", &original, &args)
    );
    let blocks = read_trace(&fs::read(&path).unwrap(), None).unwrap();
    assert_eq!(
        blocks[0].line,
        read_trace(text.as_bytes(), None).unwrap()[0].line + 1
    );
    fs::remove_dir_all(&dir).unwrap();
}

// ---- Issue 15 part 3: published traces, cache and disk copies, text checks,
// buffer-cache lines and the memory lines' forms.

/// Every problem of `show --format json` on a trace fixture: (severity,
/// class, field) per block, with the block's trace origin.
/// (severity, class, field) of one problem.
type Found = (String, String, String);

fn trace_problems(name: &str) -> Vec<(serde_json::Value, Vec<Found>)> {
    let out = blockscope(&["show", fixture(name).to_str().unwrap(), "--format", "json"]);
    let blocks = common::show_blocks(&String::from_utf8(out.stdout).unwrap());
    blocks
        .into_iter()
        .map(|b| {
            let ps = b["problems"]
                .as_array()
                .cloned()
                .unwrap_or_default()
                .iter()
                .map(|p| {
                    let s = |k: &str| p[k].as_str().unwrap_or_default().to_string();
                    (s("severity"), s("class"), s("field"))
                })
                .collect();
            (b["trace"].clone(), ps)
        })
        .collect()
}

#[test]
fn published_19c_trace_holds_two_equal_copies() {
    // A 19c trace as published: the cache copy inside the BH section (its
    // hex at the buffer's address 0x00000000CE00E000, lines `0CE00E000`),
    // then the disk copy. Both rebuild, agree with their text and each other.
    let got = trace_problems("published_19c_12_3126.trc");
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].0["copy"], "cache");
    assert_eq!(got[1].0["copy"], "disk");
    for (origin, problems) in &got {
        assert_eq!(origin["file"], 12);
        assert_eq!(origin["block"], 3126);
        assert_eq!(origin["tsn"], 5);
        assert!(problems.is_empty(), "{problems:?}");
    }
    let blocks = read_trace(
        &fs::read(fixture("published_19c_12_3126.trc")).unwrap(),
        None,
    )
    .unwrap();
    assert_eq!(blocks[0].bytes, blocks[1].bytes);
    let bh = blocks[0].buffer_header.unwrap();
    assert_eq!(
        (bh.file, bh.rdba, bh.ba, bh.tsn),
        (12, 0x0300_0c36, 0xce00_e000, Some(5))
    );
    assert_eq!(blocks[0].hex_address, Some(bh.ba));
}

#[test]
fn a_disk_copy_that_differs_from_its_cache_copy_is_reported() {
    // The same version (scn, seq) with one byte changed on disk, text and hex
    // agreeing: a crosscheck error naming the byte range, in show and verify.
    let got = trace_problems("published_19c_12_3126.disk-differs.trc");
    assert!(got[0].1.is_empty(), "{:?}", got[0].1);
    let cross: Vec<_> = got[1].1.iter().filter(|p| p.1 == "crosscheck").collect();
    assert_eq!(
        cross,
        [&(
            "error".to_string(),
            "crosscheck".to_string(),
            "bytes 0x1fd3..0x1fd4".to_string()
        )]
    );
    let (status, out) = run_on(
        "verify",
        &fixture("published_19c_12_3126.disk-differs.trc"),
        &[],
    );
    assert_eq!(status, Some(1));
    assert!(
        out.contains("[crosscheck]: trace lines 48 and 142"),
        "{out}"
    );
    let (status, out) = run_on("verify", &fixture("published_19c_12_3126.trc"), &[]);
    assert_eq!(status, Some(0), "{out}");
}

#[test]
fn a_newer_cache_copy_is_a_buffer_not_yet_written() {
    // The cache copy edited to a later change (scn + 1, and a different ITL
    // lock count in its text): warnings, not errors, naming each field.
    let text = fs::read_to_string(fixture("published_19c_12_3126.trc")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Keep only the two text parts (no hex), so both copies are compared by
    // their text; then edit the cache copy's scn and ITL 1.
    let mut out = Vec::new();
    let mut itl_done = false;
    for (i, l) in lines.iter().enumerate() {
        let n = i + 1;
        if l.starts_with("Dump of memory")
            || (l.len() > 12 && l.as_bytes()[0].is_ascii_hexdigit() && l.contains("  ["))
            || l.trim_start().starts_with("Repeat")
        {
            continue;
        }
        let l = match n {
            49 => l.replace("scn: 0x80e5e2", "scn: 0x80e5e3"),
            _ if !itl_done && l.contains("--U-    1") => {
                itl_done = true;
                l.replace("--U-    1", "--U-    2")
            }
            _ => l.to_string(),
        };
        out.push(l);
    }
    let edited = out.join("\n");
    let blocks = read_trace(edited.as_bytes(), None).unwrap();
    let diffs = blockscope::oracle::compare_trace_copies(&blocks);
    assert!(diffs[0].is_empty());
    let fields: Vec<(&str, blockscope::model::Severity)> = diffs[1]
        .iter()
        .map(|p| (p.field.as_str(), p.severity))
        .collect();
    use blockscope::model::Severity::Warning;
    assert_eq!(
        fields,
        [("kcbh scn", Warning), ("itl[1]", Warning)],
        "{:#?}",
        diffs[1]
    );
}

#[test]
fn text_only_dumps_are_checked_against_themselves() {
    // The published 11.2 text (hex section removed): consistent.
    let got = trace_problems("published_11g_32bit_4_13171.text.trc");
    assert_eq!(got.len(), 1);
    assert!(got[0].1.is_empty(), "{:?}", got[0].1);
    // And every published formatted-only dump passes.
    for name in [
        "block_5_907.dump.txt",
        "block_5_907.encrypted-header.dump.txt",
        "block_column_encrypted.dump.txt",
    ] {
        let t = read_trace(&fs::read(reference(name)).unwrap(), None).unwrap();
        for b in &t {
            let p = blockscope::oracle::check_trace_text(b.text.as_ref().unwrap());
            assert!(p.is_empty(), "{name}: {p:#?}");
        }
    }
    // nrow=15 (14 pri[] lines) and tl: 39 for a row of 38 bytes.
    let got = trace_problems("published_11g_32bit_4_13171.text-edited.trc");
    let fields: Vec<&str> = got[0].1.iter().map(|p| p.2.as_str()).collect();
    assert_eq!(
        fields,
        [
            "kdbh.kdbhnrow",
            "kdbh.kdbhnrow",
            "hsiz",
            "tab 0, row 0 tl",
            "tab 0, row 0 tl"
        ]
    );
}

#[test]
fn each_text_check_fails_on_its_own_edit() {
    // One edit per rule on the published 19c text (disk copy, text only).
    let text = fs::read_to_string(fixture("published_11g_32bit_4_13171.text.trc")).unwrap();
    let cases: [(&str, &str, &str); 7] = [
        ("hsiz: 0x2e", "hsiz: 0x30", "hsiz"),
        ("fsbo=0x2e", "fsbo=0x30", "kdbh.kdbhfsbo"),
        ("fseo=0x1d49", "fseo=0x1d4a", "kdbh.kdbhfseo"),
        ("avsp=0x1d1b", "avsp=0x1f10", "kdbh.kdbhavsp"),
        ("tosp=0x1f52", "tosp=0x1f60", "kdbh.kdbhtosp"),
        (
            "0x12:pri[0]\toffs=0x1f5a",
            "0x12:pri[0]\toffs=0x1f5b",
            "kdbr[0]",
        ),
        (
            "tab 0, row 13, @0x1d49",
            "tab 0, row 13, @0x0010",
            "tab 0, row 13 offset",
        ),
    ];
    for (from, to, field) in cases {
        assert!(text.contains(from), "{from}");
        let edited = text.replacen(from, to, 1);
        let blocks = read_trace(edited.as_bytes(), None).unwrap();
        let p = blockscope::oracle::check_trace_text(blocks[0].text.as_ref().unwrap());
        assert!(
            p.iter().any(|p| p.field == field),
            "{from} -> {to}: expected {field}, got {p:#?}"
        );
    }
}

#[test]
fn buffer_cache_lines_identify_a_block_without_start_dump() {
    // The published 11.2 trace without its `Start dump data blocks` line:
    // the file from `BH (…) file#: 4`, the tablespace from `tsn=4`.
    let text = fs::read_to_string(fixture("published_11g_32bit_4_13171.trc")).unwrap();
    let cut: String = text
        .lines()
        .filter(|l| !l.starts_with("Start dump") && !l.starts_with("End dump"))
        .map(|l| format!("{l}\n"))
        .collect();
    let blocks = read_trace(cut.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(
        (blocks[0].file, blocks[0].block, blocks[0].tsn),
        (Some(4), Some(13171), Some(4))
    );
    assert_eq!(blocks[0].text.as_ref().unwrap().tsn, Some(4));
    assert_eq!(blocks[0].label(), "4/13171");
    // Without the BH lines too: the tablespace and block from the level line.
    let cut: String = cut
        .lines()
        .filter(|l| !l.starts_with("BH (") && !l.starts_with("  "))
        .map(|l| format!("{l}\n"))
        .collect();
    let blocks = read_trace(cut.as_bytes(), None).unwrap();
    assert_eq!((blocks[0].file, blocks[0].tsn), (None, Some(4)));
    assert_eq!(blocks[0].block, Some(13171));
}

#[test]
fn a_parsed_trace_renders_back_as_oracle_printed_it() {
    // 32-bit: `Dump of memory from 0x00BD2000`, lines `BD2000`, `\tRepeat`,
    // and 11.2's `Dump of buffer cache at level 4 for tsn=4 rdba=…`.
    let path = fixture("published_11g_32bit_4_13171.trc");
    let out = blockscope(&[
        "show",
        path.to_str().unwrap(),
        "--format",
        "dump",
        "--oracle-hex",
    ]);
    assert!(out.status.success());
    let ours = String::from_utf8(out.stdout).unwrap();
    let published = fs::read_to_string(&path).unwrap();
    // Everything but the BH section and the timestamp line is printed back.
    let mut in_bh = false;
    let kept: Vec<&str> = published
        .lines()
        .filter(|l| {
            in_bh = (in_bh || l.starts_with("BH (")) && !l.starts_with("Block dump from disk");
            !in_bh && !l.is_empty() && !l.starts_with("***")
        })
        .collect();
    assert_eq!(ours.lines().collect::<Vec<_>>(), kept);
    // 64-bit with an address under 4 GiB: `0CE00E000` (high word, then eight
    // digits), as the 19c trace prints its cache copy.
    let path = fixture("published_19c_12_3126.trc");
    let out = blockscope(&[
        "show",
        path.to_str().unwrap(),
        "--block",
        "3126",
        "--format",
        "dump",
        "--oracle-hex",
        "--expand-tabs",
    ]);
    let ours = String::from_utf8(out.stdout).unwrap();
    let published = fs::read_to_string(&path).unwrap();
    let hex = |s: &str| -> Vec<String> {
        s.lines()
            .skip_while(|l| !l.starts_with("Dump of memory from 0x00000000CE00E000"))
            .take_while(|l| !l.starts_with("Block header dump"))
            .map(str::to_string)
            .collect()
    };
    assert_eq!(hex(&ours).len(), 35);
    assert_eq!(hex(&ours), hex(&published));
}

fn blocks_fixture(name: &str) -> PathBuf {
    root().join("fixtures/oracle/blocks").join(name)
}

/// The body lines of `text` from its first line starting with `first` to the
/// last non-blank line before the next `End dump data blocks`.
fn body_from<'a>(text: &'a str, first: &str) -> Vec<&'a str> {
    let mut body: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with(first))
        .take_while(|l| !l.starts_with("End dump data blocks"))
        .collect();
    while body.last().is_some_and(|l| l.trim().is_empty()) {
        body.pop();
    }
    body
}

#[test]
fn an_11g_assm_dump_parses_and_prints_back_line_for_line() {
    // 11.2.0.4 (published): `#` labels in the Extent Control Header and the
    // Low HighWater Mark, `Inc # 0`, the blank lines after the extent map
    // and before `Second Level Bitmap block DBAs`, and in the L2 block
    // `Inc #:`, the blank line after the ranges and no trailing blanks.
    // Both bodies are decoded, with no note, and print back exactly.
    let path = blocks_fixture("assm_11g_hash_labels.trc");
    let p = path.to_str().unwrap();
    let out = blockscope(&["show", p, "--format", "dump"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert_eq!(err, "");
    let ours = String::from_utf8(out.stdout).unwrap();
    let published = fs::read_to_string(&path).unwrap();
    for (first, lines) in [
        ("Extent Control Header", 39),
        ("Dump of Second Level Bitmap Block", 11),
    ] {
        let theirs = body_from(&published, first);
        assert_eq!(theirs.len(), lines, "{first}");
        assert_eq!(body_from(&ours, first), theirs, "{first}");
    }

    // JSON carries the decoded fields, the 11.2.0.4 labels among them.
    let out = blockscope(&["show", p, "--format", "json"]);
    assert!(out.status.success());
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let blocks = v["blocks"].as_array().unwrap();
    let h = &blocks[0]["text"]["space"];
    assert_eq!(h["body"], "segment_header", "{h}");
    assert_eq!(h["extent_header"]["blocks"], 128);
    assert_eq!(h["highwater"]["blocks_below"], 60);
    let a = &h["assm"];
    assert_eq!(a["low_highwater"]["dba"], 0x0140_0084);
    assert_eq!(a["low_highwater"]["blocks_below"], 0);
    assert_eq!(a["inc_hash"], true);
    assert_eq!(a["l2_dbas"], serde_json::json!([0x0140_0082]));
    let l2 = &blocks[1]["text"]["space"];
    assert_eq!(l2["body"], "second_level_bitmap", "{l2}");
    assert_eq!(l2["inc_hash"], true);
    assert_eq!(l2["blank_after_ranges"], true);
    // The older copy's form keeps no `inc_hash` in its JSON.
    let out = blockscope(&[
        "show",
        blocks_fixture("assm_segment_header.trc").to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let a = &v["blocks"][0]["text"]["space"]["assm"];
    assert!(a.get("inc_hash").is_none(), "{a}");
}

#[test]
fn an_unknown_body_line_keeps_the_block_and_prints_its_own_lines() {
    // The 11.2.0.4 segment header with one label changed to a form no
    // release is known to print (the shipped `.edited.trc`): the block keeps its cache header, the body
    // is printed back as the dump has it, with a note; `show` exits 0.
    let published = fs::read_to_string(blocks_fixture("assm_11g_hash_labels.trc")).unwrap();
    let path = blocks_fixture("assm_11g_hash_labels.edited.trc");
    let edited = fs::read_to_string(&path).unwrap();
    assert_eq!(
        edited,
        published.replacen("#blocks below: 0 ", "#blocks beneath: 0 ", 1)
    );
    let out = blockscope(&["show", path.to_str().unwrap(), "--format", "dump"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let ours = String::from_utf8(out.stdout).unwrap();
    let first = "Extent Control Header";
    assert_eq!(body_from(&ours, first), body_from(&edited, first));
    assert!(ours.contains("type: 0x23=PAGETABLE SEGMENT HEADER"));
    assert!(err.contains("trace block ?/131: trace line 22: segment header: expected"));
    assert!(err.contains("the body from line 9 on is shown as the dump's own 39 lines"));
    assert!(!err.contains("trace block ?/130"), "{err}");
    let out = blockscope(&["show", path.to_str().unwrap(), "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let u = &v["blocks"][0]["text"]["space"];
    assert_eq!(u["body"], "unparsed", "{u}");
    assert_eq!(u["from_line"], 22, "{u}");
}

#[test]
fn reading_goes_on_at_the_next_block_after_an_unknown_body() {
    let text = "buffer tsn: 8 rdba: 0x01400082 (5/130)\n\
        scn: 0x0000.00140a45 seq: 0x02 flg: 0x04 tail: 0x0a452102\n\
        frmt: 0x02 chkval: 0xd119 type: 0x21=SECOND LEVEL BITMAP BLOCK\n\
        Dump of Second Level Bitmap Block\n\
        \x20  some line of a release we do not know   \n\
        \n\
        buffer tsn: 8 rdba: 0x01400081 (5/129)\n\
        scn: 0x0000.00140a45 seq: 0x02 flg: 0x04 tail: 0x0a452002\n\
        frmt: 0x02 chkval: 0xd119 type: 0x20=FIRST LEVEL BITMAP BLOCK\n";
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 2);
    let t = blocks[0].text.as_ref().unwrap();
    assert!(t.cache.is_some());
    let space = serde_json::to_value(&t.space.as_ref().unwrap().value).unwrap();
    assert_eq!(space["body"], "unparsed");
    assert_eq!(space["from_line"], 5);
    // The line is kept as the trace has it, trailing blanks too.
    assert_eq!(
        space["lines"],
        serde_json::json!([
            "Dump of Second Level Bitmap Block",
            "   some line of a release we do not know   "
        ])
    );
    assert_eq!(blocks[0].notes.len(), 1);
    assert_eq!(blocks[1].block, Some(129));
}

#[test]
fn a_body_without_its_heading_is_kept_with_a_note() {
    // The L1 block of `assm_l1_l2.trc` with its `Dump of First Level Bitmap
    // Block` heading removed (the shipped `.no-heading.edited.trc`), as an
    // author who cut it would publish it: the lines after the cache header
    // are kept, shown as the dump's own, with a note naming the first; the
    // next block is read as before.
    let published = fs::read_to_string(blocks_fixture("assm_l1_l2.trc")).unwrap();
    let path = blocks_fixture("assm_l1_l2.no-heading.edited.trc");
    let edited = fs::read_to_string(&path).unwrap();
    assert_eq!(
        edited,
        published.replacen("Dump of First Level Bitmap Block\n", "", 1)
    );
    let p = path.to_str().unwrap();
    let out = blockscope(&["show", p, "--format", "dump"]);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let ours = String::from_utf8(out.stdout).unwrap();
    let body: Vec<&str> = edited.lines().skip(4).take(26).collect();
    assert_eq!(body.first(), Some(&" --------------------------------"));
    assert_eq!(
        body.last(),
        Some(&"  --------------------------------------------------------")
    );
    let printed: Vec<&str> = ours
        .lines()
        .skip_while(|l| !l.starts_with(" -----"))
        .take(26)
        .collect();
    assert_eq!(printed, body);
    assert!(
        err.contains(
            "trace block ?/128: trace line 5: a line the reader does not know: \
             \"--------------------------------\" (no body heading before it); the 26 lines \
             from line 5 on are kept as the dump's own lines"
        ),
        "{err}"
    );
    assert!(!err.contains("trace block ?/129"), "{err}");
    let out = blockscope(&["show", p]);
    let table = String::from_utf8(out.stdout).unwrap();
    assert!(table.contains("space.lines[20]") && table.contains("  DBA Ranges :"));
    let out = blockscope(&["show", p, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let u = &v["blocks"][0]["text"]["space"];
    assert_eq!(u["body"], "unparsed", "{u}");
    assert_eq!(u["from_line"], 5, "{u}");
    assert_eq!(
        v["blocks"][1]["text"]["space"]["body"],
        "second_level_bitmap"
    );
}

#[test]
fn lines_after_a_read_body_are_named_by_a_note() {
    // A second level bitmap block read whole, then lines no release is known
    // to print before the next block: the body stays decoded, the note names
    // the lines, and they are kept verbatim (a blank line between them and
    // trailing blanks too): the model, JSON, `show`'s table and
    // `--format dump` (after the body, where they stood) carry them.
    let text = fs::read_to_string(blocks_fixture("assm_l1_l2.trc")).unwrap();
    let l2: String = text
        .lines()
        .skip_while(|l| !l.starts_with("buffer tsn: 6 rdba: 0x01800081"))
        .map(|l| format!("{l}\n"))
        .collect();
    let extra = [
        "  a line of a release we do not know",
        "",
        "  and another  ",
    ];
    let text = format!("{l2}{}\n", extra.join("\n"));
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 1);
    let t = blocks[0].text.as_ref().unwrap();
    let space = serde_json::to_value(&t.space).unwrap();
    assert_eq!(space["body"], "second_level_bitmap", "{space}");
    assert_eq!(t.trailing_lines.len(), 1);
    assert_eq!(t.trailing_lines[0].line, 13);
    assert_eq!(t.trailing_lines[0].lines, extra);
    let note = "trace line 13: a line the reader does not know: \"a line of a release we do not \
                know\", after the block's body; lines 13 to 15 (3) are not read, kept as the \
                dump's own lines";
    assert_eq!(blocks[0].notes, vec![note.to_string()]);

    let dir = std::env::temp_dir().join(format!("blockscope-trailing-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join("l2_trailing.trc");
    fs::write(&p, &text).unwrap();
    let p = p.to_str().unwrap();
    let dump = blockscope(&["show", p, "--format", "dump"]);
    let table = blockscope(&["show", p]);
    let json = blockscope(&["show", p, "--format", "json"]);
    let _ = fs::remove_dir_all(&dir);
    let err = String::from_utf8(dump.stderr).unwrap();
    assert_eq!(dump.status.code(), Some(0), "{err}");
    assert!(err.contains(note), "{err}");
    // The dump: the body as the trace has it, then the kept lines, then
    // `End dump data blocks`.
    let ours = String::from_utf8(dump.stdout).unwrap();
    let body: Vec<&str> = l2.lines().skip(3).collect();
    let printed: Vec<&str> = ours
        .lines()
        .skip_while(|l| !l.starts_with("frmt: "))
        .skip(1)
        .collect();
    let mut want = body.clone();
    want.extend(extra);
    want.push("End dump data blocks tsn: 6 file#: 6 minblk 129 maxblk 129");
    assert_eq!(printed, want, "{ours}");
    // `show`'s table: the lines by their path, as an unparsed body's are.
    let table = String::from_utf8(table.stdout).unwrap();
    assert!(
        table.contains("trailing_lines[0].lines[0]")
            && table.contains("a line of a release we do not know")
            && table.contains("trailing_lines[0].lines[2]")
            && table.contains("and another"),
        "{table}"
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    let kept = &v["blocks"][0]["text"]["trailing_lines"];
    assert_eq!(kept[0]["line"], 13, "{kept}");
    assert_eq!(kept[0]["lines"], serde_json::json!(extra), "{kept}");
    assert_eq!(
        v["blocks"][0]["text"]["space"]["body"],
        "second_level_bitmap"
    );

    // Oracle's own lines that carry nothing are not named, and a block
    // without such lines carries no `trailing_lines` in JSON.
    let blocks = read_trace(l2.as_bytes(), None).unwrap();
    assert!(blocks[0].notes.is_empty(), "{:?}", blocks[0].notes);
    let t = serde_json::to_value(blocks[0].text.as_ref().unwrap()).unwrap();
    assert!(t.get("trailing_lines").is_none(), "{t}");
}

#[test]
fn dump_takes_tsn_from_buffer_tsn_without_a_start_dump_line() {
    // No `Start dump data blocks tsn:` line: `buffer tsn: 8` gives the
    // tablespace number Oracle prints in both places.
    let path = blocks_fixture("assm_11g_hash_labels.trc");
    let text = fs::read_to_string(&path).unwrap();
    assert!(!text.contains("Start dump") && text.contains("buffer tsn: 8 rdba: 0x01400083"));
    let out = blockscope(&["show", path.to_str().unwrap(), "--format", "dump"]);
    let ours = String::from_utf8(out.stdout).unwrap();
    assert!(
        !ours.contains("tsn: ?") && !ours.contains("tsn=?"),
        "{ours}"
    );
    assert!(ours.contains("Start dump data blocks tsn: 8 file#:5 minblk 131 maxblk 131"));
    assert!(ours.contains("\nbuffer tsn: 8 rdba: 0x01400083 (5/131)\n"));
}

#[test]
fn an_undo_header_dump_without_a_cache_header_is_shown_as_read() {
    // `alter system dump undo header` prints the undo segment header's body
    // under its own heading, with no cache header: the shipped undo header
    // without its first four lines (framing and cache header) and its last.
    let text = fs::read_to_string(blocks_fixture("undo_header.trc")).unwrap();
    let body: Vec<&str> = text
        .lines()
        .skip(4)
        .take_while(|l| !l.starts_with("End dump"))
        .collect();
    assert_eq!(body.first(), Some(&"  Extent Control Header"));
    let dump = format!(
        "{}\nUndo Segment:  _SYSSMU10$ (10)\n{}\n{}\n",
        "*".repeat(80),
        "*".repeat(80),
        body.join("\n")
    );
    let dir = std::env::temp_dir().join(format!("blockscope-undo-hdr-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let p = dir.join("undo_header.trc");
    fs::write(&p, &dump).unwrap();
    let out = blockscope(&["show", p.to_str().unwrap(), "--format", "dump"]);
    let json = blockscope(&["show", p.to_str().unwrap(), "--format", "json"]);
    let _ = fs::remove_dir_all(&dir);
    let err = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{err}");
    let ours = String::from_utf8(out.stdout).unwrap();
    let mut printed: Vec<&str> = ours.lines().collect();
    assert_eq!(
        printed.remove(0),
        "[blockscope: a body without a cache header (no buffer tsn:, rdba or type): its lines \
         as read]"
    );
    assert_eq!(printed, body);
    assert!(
        err.contains("trace line 4: a body without a cache header (no `buffer tsn:` line"),
        "{err}"
    );
    let v: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
    assert_eq!(v["blocks"][0]["text"]["cache"], serde_json::Value::Null);
    assert_eq!(v["blocks"][0]["text"]["space"]["body"], "segment_header");
}
