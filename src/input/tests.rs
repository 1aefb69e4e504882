//! Tests over real tool output of generated pages, malformed variants, and a
//! property-style loop asserting that nothing panics.
//!
//! The files in `TESTDATA` were made once from `sample(76)`, `sample(512)` and
//! `sample(8192)` (written out as `sample-N.bin`) with the real tools; see the
//! README there.

use super::*;
use std::path::PathBuf;

/// Where the sample files live, relative to the crate root.
const TESTDATA: &str = "fixtures/inputs/samples";

fn testdata(name: &str) -> Vec<u8> {
    let path: PathBuf = [env!("CARGO_MANIFEST_DIR"), TESTDATA, name]
        .iter()
        .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()))
}

/// A deterministic page of `len` bytes: a PostgreSQL-like header and random bytes
/// at the start, random bytes in the last eighth, zeros between (so dumps fold them
/// with `*`), and three identical lines of hex-looking ASCII at a quarter of the way
/// (so dumps fold a non-zero repeat, and ASCII columns hold `|`, `>`, `<` and runs
/// of spaces). Pages shorter than 256 bytes have no header and no pattern.
fn sample(len: usize) -> Vec<u8> {
    const HEADER: [u8; 24] = [
        0x00, 0x00, 0x00, 0x00, 0xa8, 0x6b, 0x57, 0x01, 0x00, 0x00, 0x00, 0x00, 0x28, 0x00, 0x60,
        0x1f, 0x00, 0x20, 0x04, 0x20, 0x00, 0x00, 0x00, 0x00,
    ];
    const PATTERN: &[u8; 16] = b"de ad  |be>ef< 7";
    let mut seed = 0x2545_f491_4f6c_dd1d_u64 ^ len as u64;
    let tail = len - len / 8;
    let mut page: Vec<u8> = (0..len)
        .map(|i| {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            if i < 64 || i >= tail {
                (seed >> 33) as u8
            } else {
                0
            }
        })
        .collect();
    if len >= 256 {
        page[..24].copy_from_slice(&HEADER);
        let at = (len / 4) & !15;
        for (k, b) in page[at..at + 48].iter_mut().enumerate() {
            *b = PATTERN[k % 16];
        }
    }
    page
}

/// Every sample file: (name suffix, sizes it exists for, the format detect picks).
const FILES: &[(&str, &[usize], InputFormat)] = &[
    ("bin", &[76, 512, 8192], InputFormat::Raw),
    ("hex.txt", &[76, 512, 8192], InputFormat::Hex),
    ("hex-aligned.txt", &[76, 512], InputFormat::Hex),
    ("xxd-p.txt", &[76, 512, 8192], InputFormat::Hex),
    ("bytea.txt", &[76, 512, 8192], InputFormat::Bytea),
    ("bytea-aligned.txt", &[76, 512], InputFormat::Bytea),
    ("bytea-wrapped.txt", &[512], InputFormat::Bytea),
    ("base64.txt", &[76, 512, 8192], InputFormat::Base64),
    ("pg-base64.txt", &[76, 512, 8192], InputFormat::Base64),
    ("pg-base64-aligned.txt", &[76, 512], InputFormat::Base64),
    ("pg-base64-expanded.txt", &[512], InputFormat::Base64),
    ("od-d.txt", &[76, 512, 8192], InputFormat::Od),
    ("od-o.txt", &[76, 512, 8192], InputFormat::Od),
    ("od-xz.txt", &[76, 512, 8192], InputFormat::Od),
    ("xxd.txt", &[76, 512, 8192], InputFormat::Xxd),
    ("xxd-a.txt", &[76, 512, 8192], InputFormat::Xxd),
    ("xxd-g1.txt", &[76, 512], InputFormat::Xxd),
    ("xxd-g4.txt", &[76, 512], InputFormat::Xxd),
    ("hexdump.txt", &[76, 512, 8192], InputFormat::Hexdump),
    ("gdb.txt", &[76, 512, 8192], InputFormat::Gdb),
    ("gdb-sym.txt", &[76, 512], InputFormat::Gdb),
];

fn all_sample_files() -> Vec<(String, usize, InputFormat)> {
    FILES
        .iter()
        .flat_map(|&(suffix, sizes, format)| {
            sizes
                .iter()
                .map(move |&n| (format!("sample-{n}.{suffix}"), n, format))
        })
        .collect()
}

const ALL_FORMATS: [InputFormat; 9] = [
    InputFormat::Auto,
    InputFormat::Raw,
    InputFormat::Hex,
    InputFormat::Bytea,
    InputFormat::Base64,
    InputFormat::Od,
    InputFormat::Xxd,
    InputFormat::Hexdump,
    InputFormat::Gdb,
];

/// Writes `sample-N.bin` into the test-data folder: the first step of
/// `make.sh` there, which makes every other sample file from them.
#[test]
#[ignore = "regenerates test data; run by fixtures/inputs/samples/make.sh"]
fn write_sample_bins() {
    for n in [76, 512, 8192] {
        let path: PathBuf = [
            env!("CARGO_MANIFEST_DIR"),
            TESTDATA,
            &format!("sample-{n}.bin"),
        ]
        .iter()
        .collect();
        std::fs::write(&path, sample(n)).expect("writing a sample");
    }
}

#[test]
fn generator_matches_the_bin_files() {
    for n in [76, 512, 8192] {
        assert_eq!(
            testdata(&format!("sample-{n}.bin")),
            sample(n),
            "sample-{n}.bin"
        );
    }
}

#[test]
fn every_format_decodes_to_the_same_bytes() {
    for (name, n, format) in all_sample_files() {
        let data = testdata(&name);
        let want = sample(n);
        assert_eq!(detect(&data), format, "detect({name})");
        let (got, used) = decode(&data, InputFormat::Auto)
            .unwrap_or_else(|e| panic!("decode({name}, auto): {e}"));
        assert_eq!(used, format, "{name}");
        assert_eq!(got, want, "decode({name}, auto)");
        let (got, used) =
            decode(&data, format).unwrap_or_else(|e| panic!("decode({name}, {format:?}): {e}"));
        assert_eq!(used, format);
        assert_eq!(got, want, "decode({name}, {format:?})");
    }
}

#[test]
fn xxd_p_decodes_when_xxd_is_asked_for() {
    let data = testdata("sample-512.xxd-p.txt");
    let (got, used) = decode(&data, InputFormat::Xxd).expect("xxd -p as xxd");
    assert_eq!((got, used), (sample(512), InputFormat::Xxd));
}

#[test]
fn several_psql_rows_are_concatenated() {
    let data = testdata("sample-76x2.bytea-aligned.txt");
    let (got, used) = decode(&data, InputFormat::Auto).expect("two rows");
    assert_eq!(used, InputFormat::Bytea);
    assert_eq!(got, [sample(76), sample(76)].concat());
}

#[test]
fn psql_expanded_rows_are_concatenated() {
    let data = testdata("sample-512x2.bytea-expanded.txt");
    let (got, used) = decode(&data, InputFormat::Auto).expect("two records");
    assert_eq!(used, InputFormat::Bytea);
    assert_eq!(got, [sample(512), sample(512)].concat());
}

#[test]
fn a_byte_order_mark_is_ignored() {
    for name in [
        "sample-512.hex.txt",
        "sample-512.od-d.txt",
        "sample-512.gdb.txt",
    ] {
        let data = [&b"\xef\xbb\xbf"[..], &testdata(name)].concat();
        let (got, _) = decode(&data, InputFormat::Auto).expect("with a BOM");
        assert_eq!(got, sample(512), "{name}");
    }
    let err = fails(b"\xef\xbb\xbf00zz", InputFormat::Hex);
    assert_eq!(err.offset, Some(5));
}

#[test]
fn crlf_and_blank_lines_are_accepted_everywhere() {
    for (name, n, format) in all_sample_files() {
        if format == InputFormat::Raw {
            continue;
        }
        let data = testdata(&name);
        let text = String::from_utf8(data).expect("ascii");
        let crlf = format!("\r\n{}  \r\n\r\n", text.replace('\n', " \r\n\n"));
        let (got, used) = decode(crlf.as_bytes(), InputFormat::Auto)
            .unwrap_or_else(|e| panic!("decode({name} with CRLF): {e}"));
        assert_eq!((got, used), (sample(n), format), "{name} with CRLF");
    }
}

#[test]
fn names_and_display() {
    let names: Vec<&str> = ALL_FORMATS.iter().map(|f| f.name()).collect();
    assert_eq!(
        names,
        ["auto", "raw", "hex", "bytea", "base64", "od", "xxd", "hexdump", "gdb"]
    );
    let err = InputError {
        format: InputFormat::Od,
        line: Some(7),
        offset: None,
        message: "expected an offset followed by hex byte pairs, found \"zz 01\"".to_string(),
    };
    assert_eq!(
        err.to_string(),
        "od input, line 7: expected an offset followed by hex byte pairs, found \"zz 01\""
    );
    let err = InputError {
        offset: Some(12),
        line: None,
        ..err
    };
    assert!(err.to_string().starts_with("od input, byte 12: "));
}

#[test]
fn raw_is_unchanged_and_empty_input_is_an_error() {
    assert_eq!(
        decode(b"\x00\x01text", InputFormat::Raw).expect("raw"),
        (b"\x00\x01text".to_vec(), InputFormat::Raw)
    );
    let err = decode(b"", InputFormat::Auto).expect_err("empty");
    assert_eq!(err.format, InputFormat::Auto);
    assert!(err.message.ends_with("found empty input"));
    for format in &ALL_FORMATS[2..] {
        let err = decode(b"", *format).expect_err("empty text");
        assert_eq!(err.format, *format);
        assert!(err.message.contains("found no data"), "{err}");
        let err = decode(b"\n \r\n", *format).expect_err("blank text");
        assert!(err.message.contains("found no data"), "{err}");
    }
}

/// Replace the first occurrence of `from` in a sample file by `to`.
fn edited(name: &str, from: &str, to: &str) -> Vec<u8> {
    let text = String::from_utf8(testdata(name)).expect("ascii");
    assert!(text.contains(from), "{name} has no {from:?}");
    text.replacen(from, to, 1).into_bytes()
}

fn fails(data: &[u8], format: InputFormat) -> InputError {
    match decode(data, format) {
        Ok((bytes, used)) => panic!("decoded {} bytes as {used:?}", bytes.len()),
        Err(err) => {
            assert!(!err.message.is_empty());
            assert!(
                err.message.starts_with(|c: char| c.is_ascii_lowercase()),
                "{err}"
            );
            err
        }
    }
}

#[test]
fn malformed_real_samples() {
    use InputFormat::*;
    // od: out of order (line 2 swapped with line 3).
    let text = String::from_utf8(testdata("sample-512.od-d.txt")).expect("ascii");
    let mut lines: Vec<&str> = text.lines().collect();
    lines.swap(1, 2);
    let err = fails(lines.join("\n").as_bytes(), Auto);
    assert_eq!((err.format, err.line), (Od, Some(2)));
    assert!(err.message.contains("skips 16 bytes"), "{err}");
    // od: a line dropped (a gap without '*').
    let err = fails(&edited("sample-512.od-xz.txt", "000020 ", "000030 "), Od);
    assert_eq!(err.line, Some(3));
    // od: bad hex digit.
    let err = fails(
        &edited("sample-512.od-d.txt", "0000016 00 20", "0000016 0g 20"),
        Od,
    );
    assert_eq!(err.line, Some(2));
    assert!(
        err.message
            .ends_with("found \"0g 20 04 20 00 00 00 00 d2 34 86 f9 5b b...\""),
        "{err}"
    );
    // hex: odd digit count, bad digit.
    let err = fails(&edited("sample-512.hex.txt", "0000", "000"), Hex);
    assert_eq!((err.line, err.offset), (Some(1), Some(1022)));
    let err = fails(&edited("sample-512.xxd-p.txt", "a86b", "a8kb"), Auto);
    assert_eq!((err.format, err.line, err.offset), (Hex, Some(1), Some(10)));
    // bytea: bad digit inside psql's table.
    let err = fails(
        &edited("sample-76.bytea-aligned.txt", "\\x5f77", "\\x5f7?"),
        Auto,
    );
    assert_eq!((err.format, err.line), (Bytea, Some(3)));
    // base64: bad character.
    let err = fails(&edited("sample-512.base64.txt", "AAAA", "AA.A"), Auto);
    assert_eq!(
        (err.format, err.line, err.offset),
        (Base64, Some(1), Some(2))
    );
    // xxd: truncated line.
    let err = fails(
        &edited(
            "sample-512.xxd.txt",
            "00000010: 0020 0420 0000 0000 d234 86f9 5bb7 0ef4  . . .....4..[...",
            "00000010: 0020 0420 0000 0000 d234 86",
        ),
        Auto,
    );
    assert_eq!((err.format, err.line), (Xxd, Some(2)));
    assert!(err.message.contains("truncated"), "{err}");
    // hexdump: truncated line, out of order.
    let err = fails(
        &edited("sample-512.hexdump.txt", "  |. . .....4..[...|", ""),
        Auto,
    );
    assert_eq!((err.format, err.line), (Hexdump, Some(2)));
    let err = fails(
        &edited("sample-512.hexdump.txt", "000001d0", "000001a0"),
        Auto,
    );
    assert_eq!(err.line, Some(12));
    assert!(err.message.contains("goes backwards"), "{err}");
    // gdb: a line missing.
    let text = String::from_utf8(testdata("sample-512.gdb-sym.txt")).expect("ascii");
    let cut: Vec<&str> = text
        .lines()
        .enumerate()
        .filter(|(i, _)| *i != 5)
        .map(|(_, l)| l)
        .collect();
    let err = fails(cut.join("\n").as_bytes(), Auto);
    assert_eq!((err.format, err.line), (Gdb, Some(6)));
    assert!(err.message.contains("leaves a gap of 8 bytes"), "{err}");
}

#[test]
fn huge_star_jumps_are_refused_without_allocating() {
    let cases: [(&[u8], InputFormat); 3] = [
        (
            b"0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n9999999999\n",
            InputFormat::Od,
        ),
        (
            b"00000000: 0000 0000 0000 0000 0000 0000 0000 0000  ................\n*\n3fffffff0: 0000  ..\n",
            InputFormat::Xxd,
        ),
        (
            b"00000000  00 00 00 00 00 00 00 00  00 00 00 00 00 00 00 00  |................|\n*\nffffffffffffffff\n",
            InputFormat::Hexdump,
        ),
    ];
    for (text, format) in cases {
        let err = fails(text, InputFormat::Auto);
        assert_eq!((err.format, err.line), (format, Some(3)));
        assert!(err.message.contains("is implausibly far"), "{err}");
    }
    let err = fails(cases[0].0, InputFormat::Od);
    assert!(err
        .message
        .starts_with("offset 9999999999 on line 3 is implausibly far"));
    // Within the cap, a star run expands: 64 × (input + 8192) bytes at most.
    let text = b"0000000 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00\n*\n0524288\n";
    let (got, _) = decode(text, InputFormat::Od).expect("512 KiB is within the cap");
    assert_eq!(got.len(), 524_288);
}

/// A small LCG for the property-style loop.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// Decoding must never panic, and what comes out is bounded by the cap.
fn decode_everything(data: &[u8]) {
    for format in ALL_FORMATS {
        if let Ok((bytes, used)) = decode(data, format) {
            assert_ne!(used, InputFormat::Auto);
            assert!(bytes.len() as u64 <= output_limit(data.len()).max(data.len() as u64));
        }
    }
}

#[test]
fn decode_never_panics() {
    const ALPHABET: &[u8] = b"0123456789abcdefABCDEF xX:|<>*+/=\\\t\r\n()-.g0x";
    let mut rng = Lcg(0x5eed);
    // Random byte strings, mostly from the characters the grammars care about.
    for _ in 0..2000 {
        let len = rng.below(200);
        let data: Vec<u8> = (0..len)
            .map(|_| {
                if rng.below(8) == 0 {
                    rng.next() as u8
                } else {
                    ALPHABET[rng.below(ALPHABET.len())]
                }
            })
            .collect();
        decode_everything(&data);
    }
    // Random mutations of the real samples.
    let texts: Vec<Vec<u8>> = all_sample_files()
        .into_iter()
        .filter(|(_, n, _)| *n != 8192)
        .map(|(name, _, _)| testdata(&name))
        .collect();
    for round in 0..1500 {
        let mut data = texts[round % texts.len()].clone();
        for _ in 0..=rng.below(4) {
            if data.is_empty() {
                break;
            }
            let at = rng.below(data.len());
            match rng.below(6) {
                0 => data[at] = ALPHABET[rng.below(ALPHABET.len())],
                1 => {
                    data.remove(at);
                }
                2 => data.insert(at, ALPHABET[rng.below(ALPHABET.len())]),
                3 => data.truncate(at),
                4 => {
                    // Duplicate a chunk (a repeated or shifted line).
                    let end = (at + rng.below(80)).min(data.len());
                    let chunk = data[at..end].to_vec();
                    let to = rng.below(data.len());
                    data.splice(to..to, chunk);
                }
                _ => {
                    // A big number somewhere.
                    let digits = b"99999999999999999999";
                    let n = 1 + rng.below(digits.len());
                    data.splice(at..at, digits[..n].iter().copied());
                }
            }
        }
        decode_everything(&data);
    }
}

/// psql's and COPY's envelopes, mutated at random: no panic, output bounded.
#[test]
fn psql_and_copy_envelopes_never_panic() {
    const ALPHABET: &[u8] = b"0123456789abcdefAB |+-\t\n\r\\,\"x()NRECOD[]";
    let mut copy = psql_copy_binary_sample();
    let decoded = super::decode_pages(&copy, InputFormat::Auto, 8192).expect("copy binary");
    assert_eq!(
        (decoded.bytes.as_slice(), decoded.format),
        (&[1u8, 2, 3, 4][..], InputFormat::CopyBinary)
    );
    assert_eq!(decoded.blkno_at(0, 8192), Some(3));
    let samples: Vec<Vec<u8>> = vec![
        b" blkno | get_raw_page\n-------+------\n     3 | \\x0001\n     4 | \\x0203\n(2 rows)\n"
            .to_vec(),
        b"-[ RECORD 1 ]-\nb | 9\nx | TWFu+\n  | TWE=\n-[ RECORD 2 ]-\nb | 1\nx | \\x00\n".to_vec(),
        b"blkno|get_raw_page\n1|\\x0001\n2|0x0a\n(2 rows)\n".to_vec(),
        b"blkno,get_raw_page\n1,\"TWFu\nTWE=\"\n2,\\x00\n".to_vec(),
        b"1\t\\\\x0001\n2\tTWFu\\nTWE=\n".to_vec(),
        b" TWFu+\n TWE=\n".to_vec(),
        copy.clone(),
    ];
    let mut rng = Lcg(0xc0c0);
    for round in 0..3000 {
        let mut data = samples[round % samples.len()].clone();
        for _ in 0..=rng.below(4) {
            if data.is_empty() {
                break;
            }
            let at = rng.below(data.len());
            match rng.below(4) {
                0 => data[at] = ALPHABET[rng.below(ALPHABET.len())],
                1 => {
                    data.remove(at);
                }
                2 => data.insert(at, rng.next() as u8),
                _ => data.truncate(at),
            }
        }
        decode_everything(&data);
        let _ = super::decode_pages(&data, InputFormat::Auto, 64);
    }
    // A COPY binary field claiming 2 GiB allocates nothing.
    let at = super::text::COPY_SIGNATURE.len() + 8 + 2;
    copy[at..at + 4].copy_from_slice(&i32::MAX.to_be_bytes());
    assert!(decode(&copy, InputFormat::Auto).is_err());
}

/// COPY binary of one tuple (block number 3, a 4-byte page).
fn psql_copy_binary_sample() -> Vec<u8> {
    let mut out = super::text::COPY_SIGNATURE.to_vec();
    out.extend_from_slice(&[0, 0, 0, 0, 0, 0, 0, 0, 0, 2]);
    out.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 3]);
    out.extend_from_slice(&[0, 0, 0, 4, 1, 2, 3, 4]);
    out.extend_from_slice(&[0xff, 0xff]);
    out
}
