//! Every text form of the same page decodes to byte-identical data, and the
//! CLI prints identical JSON for each.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use blockscope::{
    decode_text as decode, decode_text_pages as decode_pages, detect_text as detect, InputFormat,
};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

const FORMS: &[(&str, InputFormat)] = &[
    ("od-d", InputFormat::Od),
    ("od-xz", InputFormat::Od),
    ("xxd", InputFormat::Xxd),
    // xxd -p is plain hex: detected as such, same bytes.
    ("xxd-p", InputFormat::Hex),
    ("hexdump", InputFormat::Hexdump),
    ("base64", InputFormat::Base64),
    ("hex", InputFormat::Hex),
    ("bytea", InputFormat::Bytea),
    ("gdb", InputFormat::Gdb),
];

#[test]
fn every_text_form_decodes_to_the_page_bytes() {
    let page = fs::read(dir().join("postgres/heap/hot_update.0.page")).unwrap();
    for (form, expected_format) in FORMS {
        let text = fs::read(dir().join(format!("inputs/hot_update.0.{form}.txt"))).unwrap();
        assert_eq!(detect(&text), *expected_format, "{form} detected wrongly");
        let (bytes, used) =
            decode(&text, InputFormat::Auto).unwrap_or_else(|e| panic!("{form}: {e}"));
        assert_eq!(used, *expected_format);
        assert!(bytes == page, "{form} decodes to different bytes");
        // And when the format is named explicitly.
        let (bytes, _) = decode(&text, *expected_format).unwrap();
        assert!(
            bytes == page,
            "{form} (explicit) decodes to different bytes"
        );
    }
}

#[test]
fn raw_is_detected_as_raw() {
    let page = fs::read(dir().join("postgres/heap/hot_update.0.page")).unwrap();
    assert_eq!(detect(&page), InputFormat::Raw);
}

#[test]
fn the_published_gdb_dump_decodes_to_the_published_block() {
    let text = fs::read(dir().join("reference/blog-oracle/block_5_907.gdb.txt")).unwrap();
    let bin = fs::read(dir().join("reference/blog-oracle/block_5_907.bin")).unwrap();
    let (bytes, format) = decode(&text, InputFormat::Auto).unwrap();
    assert_eq!(format, InputFormat::Gdb);
    assert!(bytes == bin);
}

#[test]
fn the_cli_prints_identical_json_for_every_form() {
    let run = |path: &Path| {
        let out = Command::new(env!("CARGO_BIN_EXE_blockscope"))
            .args(["show", "--format", "json"])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    let reference = run(&dir().join("postgres/heap/hot_update.0.page"));
    for (form, _) in FORMS {
        let path = dir().join(format!("inputs/hot_update.0.{form}.txt"));
        assert!(
            run(&path) == reference,
            "{form}: JSON differs from the raw page's"
        );
    }
}

/// Every way psql and COPY print pages (fixtures/inputs/psql, made by a real
/// psql): file, the raw pages it holds, the block numbers its rows give (per
/// page, `None` = none given), and the format of its values.
const PSQL_FORMS: &[(&str, &str, &[Option<u64>], InputFormat)] = &[
    ("aligned.txt", "t.0.page", &[None], InputFormat::Bytea),
    (
        "unaligned-header.txt",
        "t.0.page",
        &[None],
        InputFormat::Bytea,
    ),
    ("base64-t.txt", "t.0.page", &[None], InputFormat::Base64),
    (
        "base64-aligned.txt",
        "t.0.page",
        &[None],
        InputFormat::Base64,
    ),
    ("expanded.txt", "t.0.page", &[None], InputFormat::Bytea),
    ("blkno-tA.txt", "t.1.page", &[Some(1)], InputFormat::Bytea),
    (
        "blkno-aligned.txt",
        "t.1.page",
        &[Some(1)],
        InputFormat::Bytea,
    ),
    ("csv-header.txt", "t.0.page", &[None], InputFormat::Bytea),
    ("csv-base64.txt", "t.0.page", &[None], InputFormat::Base64),
    ("hex-0x.txt", "t.0.page", &[None], InputFormat::Hex),
    ("hex-aligned.txt", "t.0.page", &[None], InputFormat::Hex),
    (
        "2pages-blkno-aligned.txt",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
    (
        "2pages-blkno-tA.txt",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
    (
        "2pages-blkno-expanded.txt",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
    (
        "2pages-blkno-csv.txt",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
    (
        "2pages-aligned.txt",
        "t.0-1.pages",
        &[None, None],
        InputFormat::Bytea,
    ),
    ("copy.txt", "t.0.page", &[None], InputFormat::Bytea),
    ("copy-base64.txt", "t.0.page", &[None], InputFormat::Base64),
    ("copy.bin", "t.0.page", &[None], InputFormat::CopyBinary),
    (
        "copy-2pages-blkno.txt",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
    (
        "copy-2pages-blkno.bin",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::CopyBinary,
    ),
    (
        "copy-2pages-blkno.csv",
        "t.1-2.pages",
        &[Some(1), Some(2)],
        InputFormat::Bytea,
    ),
];

fn psql_dir() -> PathBuf {
    dir().join("inputs/psql")
}

/// Run blockscope with `args`, standard input from `stdin` (a file) if given.
fn blockscope(args: &[&str], stdin: Option<&Path>) -> std::process::Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_blockscope"));
    cmd.args(args);
    if let Some(path) = stdin {
        cmd.stdin(fs::File::open(path).unwrap());
    }
    cmd.output().unwrap()
}

#[test]
fn every_psql_and_copy_form_decodes_to_the_pages_and_their_block_numbers() {
    for (file, pages, blknos, format) in PSQL_FORMS {
        let text = fs::read(psql_dir().join(file)).unwrap();
        let raw = fs::read(psql_dir().join(pages)).unwrap();
        let decoded =
            decode_pages(&text, InputFormat::Auto, 8192).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(decoded.bytes == raw, "{file}: bytes differ from {pages}");
        assert_eq!(decoded.format, *format, "{file}");
        assert_eq!(decoded.note, None, "{file}");
        let got: Vec<Option<u64>> = (0..raw.len() / 8192)
            .map(|i| decoded.blkno_at((i * 8192) as u64, 8192))
            .collect();
        assert_eq!(&got, blknos, "{file}: block numbers");
        // The plain decode gives the same bytes.
        let (bytes, _) = decode(&text, InputFormat::Auto).unwrap();
        assert!(bytes == raw, "{file}: decode differs");
    }
}

#[test]
fn show_prints_the_raw_pages_json_for_every_psql_and_copy_form() {
    let mut reference = std::collections::HashMap::new();
    for (file, pages, blknos, _) in PSQL_FORMS {
        // The raw pages, told their first block number as --blkno would.
        let first = blknos[0].map(|b| b.to_string());
        let want = reference
            .entry((pages, first.clone()))
            .or_insert_with(|| {
                let path = psql_dir().join(pages);
                let path = path.to_str().unwrap();
                let mut args = vec!["show", "--format", "json", path];
                if let Some(first) = &first {
                    args.extend(["--blkno", first.as_str()]);
                }
                let out = blockscope(&args, None);
                assert!(out.status.success());
                out.stdout
            })
            .clone();
        let path = psql_dir().join(file);
        let out = blockscope(&["show", "--format", "json", path.to_str().unwrap()], None);
        assert!(
            out.status.success(),
            "{file}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(out.stderr.is_empty(), "{file}: unexpected stderr");
        assert!(out.stdout == want, "{file}: JSON differs from {pages}'s");
        // And from standard input.
        let out = blockscope(&["show", "--format", "json"], Some(&path));
        assert!(out.stdout == want, "{file} on stdin: JSON differs");
    }
}

#[test]
fn verify_reads_every_psql_and_copy_form_on_stdin_as_clean_pages() {
    for (file, pages, _, _) in PSQL_FORMS {
        let out = blockscope(&["verify"], Some(&psql_dir().join(file)));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{file}: {stdout}");
        assert!(stdout.contains("clean"), "{file}: {stdout}");
        let blocks = fs::metadata(psql_dir().join(pages)).unwrap().len() / 8192;
        let json = blockscope(
            &["verify", "--format", "json"],
            Some(&psql_dir().join(file)),
        );
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        assert_eq!(
            doc.pointer("/summary/blocks").and_then(|v| v.as_u64()),
            Some(blocks),
            "{file}: {doc}"
        );
    }
}

#[test]
fn verify_reads_every_psql_and_copy_form_named_as_a_file() {
    for (file, pages, _, _) in PSQL_FORMS {
        let path = psql_dir().join(file);
        let json = blockscope(
            &["verify", "--format", "json", path.to_str().unwrap()],
            None,
        );
        let stderr = String::from_utf8_lossy(&json.stderr);
        assert_eq!(json.status.code(), Some(0), "{file}: {stderr}");
        let doc: serde_json::Value = serde_json::from_slice(&json.stdout).unwrap();
        let blocks = fs::metadata(psql_dir().join(pages)).unwrap().len() / 8192;
        assert_eq!(
            doc.pointer("/summary/blocks").and_then(|v| v.as_u64()),
            Some(blocks),
            "{file}: {doc}"
        );
        // The pages' own checksums are checked (auto: found set on a decoded page).
        assert_eq!(
            doc.pointer("/summary/checksums/enabled"),
            Some(&serde_json::Value::Bool(true)),
            "{file}: {doc}"
        );
    }
    // Every text tool's form of one page, named as a file.
    for form in [
        "hex", "bytea", "base64", "od-d", "od-xz", "xxd", "xxd-p", "hexdump", "gdb",
    ] {
        let path = dir().join(format!("inputs/hot_update.0.{form}.txt"));
        let out = blockscope(&["verify", path.to_str().unwrap()], None);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(0), "{form}: {stdout}");
        assert!(stdout.contains("Blocks scanned:    1"), "{form}: {stdout}");
    }
}

#[test]
fn verify_on_stdin_hex_text_judges_the_page_not_the_text() {
    // psql -tA -c "select encode(get_raw_page('t', 0), 'hex')" | blockscope verify
    let hex = dir().join("inputs/hot_update.0.hex.txt");
    let page = dir().join("postgres/heap/hot_update.0.page");
    let from_text = blockscope(&["verify"], Some(&hex));
    let from_raw = blockscope(&["verify"], Some(&page));
    assert_eq!(from_text.status.code(), Some(0));
    assert!(from_text.stdout == from_raw.stdout);
}

#[test]
fn a_page_overwritten_by_text_is_read_as_a_raw_page_with_a_note() {
    let path = psql_dir().join("overwritten.page");
    let data = fs::read(&path).unwrap();
    assert_eq!(data.len(), 8192);
    assert!(data
        .iter()
        .all(|&b| b == b'\n' || (0x20..0x7f).contains(&b)));
    let decoded = decode_pages(&data, InputFormat::Auto, 8192).unwrap();
    assert_eq!(decoded.format, InputFormat::Raw);
    assert!(decoded.bytes == data);
    let note = decoded.note.expect("a note");
    assert!(note.starts_with("read as raw pages"), "{note}");
    // Asked for hex, it is still an error: the note is only for detection.
    assert!(decode_pages(&data, InputFormat::Hex, 8192).is_err());

    let p = path.to_str().unwrap();
    let auto = blockscope(&["show", "--format", "json", p], None);
    let raw = blockscope(&["show", "--format", "json", "--input", "raw", p], None);
    assert!(auto.stdout == raw.stdout);
    let stderr = String::from_utf8_lossy(&auto.stderr);
    assert!(
        stderr.contains("note:") && stderr.contains("read as raw pages"),
        "{stderr}"
    );

    let verify = blockscope(&["verify"], Some(&path));
    let stderr = String::from_utf8_lossy(&verify.stderr);
    assert!(stderr.contains("read as raw pages"), "{stderr}");
    assert_ne!(verify.status.code(), Some(2), "{stderr}");
    assert_ne!(verify.status.code(), Some(0));
}

/// The forms people paste that print words or carry psql's `\x` banners
/// (fixtures/inputs/paste, each printed by the real tool: see its make.sh):
/// file, the page it holds, the format detected (for psql's output: of its
/// values), and every format that decodes it when named with `--input`.
const PASTED_FORMS: &[(&str, &str, InputFormat, &[InputFormat])] = &[
    (
        "hot_update.0.od-x.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od],
    ),
    (
        "hot_update.0.od-ax-x2.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od],
    ),
    (
        "hot_update.0.od-ax-x2z.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od],
    ),
    (
        "hot_update.0.od-ad-x4.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od],
    ),
    (
        "hot_update.0.od-an-x.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od],
    ),
    (
        "hot_update.0.hexdump-plain.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od, InputFormat::Hexdump],
    ),
    (
        "hot_update.0.hexdump-x.txt",
        HOT,
        InputFormat::Od,
        &[InputFormat::Od, InputFormat::Hexdump],
    ),
    (
        "hot_update.0.xxd-e.txt",
        HOT,
        InputFormat::Xxd,
        &[InputFormat::Xxd],
    ),
    (
        "hot_update.0.xxd-ea.txt",
        HOT,
        InputFormat::Xxd,
        &[InputFormat::Xxd],
    ),
    (
        "hot_update.0.xxd-ea-g2.txt",
        HOT,
        InputFormat::Xxd,
        &[InputFormat::Xxd],
    ),
    (
        "hot_update.0.xxd-ea-g8.txt",
        HOT,
        InputFormat::Xxd,
        &[InputFormat::Xxd],
    ),
    (
        "t.0.x-bytea.txt",
        T0,
        InputFormat::Bytea,
        &[InputFormat::Bytea],
    ),
    ("t.0.x-hex.txt", T0, InputFormat::Hex, &[InputFormat::Hex]),
    (
        "t.0.x-base64.txt",
        T0,
        InputFormat::Base64,
        &[InputFormat::Base64],
    ),
    (
        "t.0.x-auto.txt",
        T0,
        InputFormat::Bytea,
        &[InputFormat::Bytea],
    ),
    (
        "t.0.x-auto-blkno.txt",
        T0,
        InputFormat::Bytea,
        &[InputFormat::Bytea],
    ),
];

const HOT: &str = "postgres/heap/hot_update.0.page";
const T0: &str = "inputs/psql/t.0.page";

#[test]
fn every_pasted_word_dump_and_psql_banner_decodes_to_the_page() {
    for (file, page, detected, named) in PASTED_FORMS {
        let text = fs::read(dir().join("inputs/paste").join(file)).unwrap();
        let page = fs::read(dir().join(page)).unwrap();
        // psql's envelopes are told by decoding their values, not by detect().
        if !file.starts_with("t.0.") {
            assert_eq!(detect(&text), *detected, "{file} detected wrongly");
        }
        let decoded =
            decode_pages(&text, InputFormat::Auto, 8192).unwrap_or_else(|e| panic!("{file}: {e}"));
        assert!(decoded.bytes == page, "{file} decodes to different bytes");
        assert_eq!(decoded.format, *detected, "{file}");
        assert_eq!(decoded.note, None, "{file}");
        for format in *named {
            let (bytes, _) =
                decode(&text, *format).unwrap_or_else(|e| panic!("{file} as {format:?}: {e}"));
            assert!(
                bytes == page,
                "{file} as {format:?} decodes to different bytes"
            );
        }
    }
}

#[test]
fn show_prints_the_same_json_for_every_pasted_form_as_for_the_page() {
    let json = |path: &Path| {
        let out = blockscope(
            &[
                "show",
                "--format",
                "json",
                "--blkno",
                "0",
                path.to_str().unwrap(),
            ],
            None,
        );
        assert!(
            out.status.code() == Some(0) || out.status.code() == Some(1),
            "{}: {}",
            path.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    };
    for (file, page, _, _) in PASTED_FORMS {
        let want = json(&dir().join(page));
        let got = json(&dir().join("inputs/paste").join(file));
        assert!(got == want, "{file}: JSON differs from {page}'s");
    }
}
