//! Every text form of the same page decodes to byte-identical data, and the
//! CLI prints identical JSON for each.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use blockscope::input::{decode, detect, InputFormat};

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
