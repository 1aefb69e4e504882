//! Value fan-out: a heap page whose line pointers (a fuzzed number of them)
//! all point at one tuple holding an lz4-compressed text value of a fuzzed
//! raw size up to 64 MiB, with fuzzed bytes spliced into the tuple. However
//! many pointers share the value, the page decodes at most its budget
//! (64 MiB of expanded values) plus the one value that crossed it.
#![no_main]

use blockscope::model::postgres::PageKind;
use blockscope::postgres::{decode_page, parse_columns, parse_page, PageOptions};
use libfuzzer_sys::fuzz_target;

const MIB: usize = 1 << 20;

/// An lz4 block that decompresses to `n` bytes of `a` (`n` ≥ 30).
fn lz4_run(n: usize) -> Vec<u8> {
    let m = n - 6;
    let mut out = vec![0x1f, b'a', 1, 0];
    let mut rest = m - 4 - 15;
    while rest >= 255 {
        out.push(255);
        rest -= 255;
    }
    out.push(rest as u8);
    out.push(0x50);
    out.extend_from_slice(b"aaaaa");
    out
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let lps = usize::from(u16::from_le_bytes([data[0], data[1]])) % 1500 + 1;
    let raw = 30 + usize::from(u16::from_le_bytes([data[2], data[3]])) * 1024;
    let raw = raw.min(64 * MIB);
    let lz4 = lz4_run(raw);
    let mut value = (((8 + lz4.len()) as u32) << 2 | 0x02).to_le_bytes().to_vec();
    value.extend_from_slice(&(raw as u32 | 1 << 30).to_le_bytes());
    value.extend_from_slice(&lz4);
    let len = 24 + value.len();
    let upper = (8192usize.saturating_sub(len)) & !7;
    let lower = 24 + 4 * lps;
    if lower > upper {
        return;
    }
    let mut p = vec![0u8; 8192];
    p[12..14].copy_from_slice(&(lower as u16).to_le_bytes());
    p[14..16].copy_from_slice(&(upper as u16).to_le_bytes());
    p[16..18].copy_from_slice(&8192u16.to_le_bytes());
    p[18..20].copy_from_slice(&(8192u16 | 4).to_le_bytes());
    for i in 0..lps {
        let lp = upper as u32 | (1 << 15) | ((len as u32) << 17);
        p[24 + 4 * i..28 + 4 * i].copy_from_slice(&lp.to_le_bytes());
    }
    p[upper..upper + 4].copy_from_slice(&2u32.to_le_bytes());
    p[upper + 18..upper + 20].copy_from_slice(&1u16.to_le_bytes());
    p[upper + 20..upper + 22].copy_from_slice(&0x0802u16.to_le_bytes());
    p[upper + 22] = 24;
    p[upper + 24..upper + len].copy_from_slice(&value);
    // The rest of the input overwrites bytes of the tuple's value.
    for (i, &b) in data[4..].iter().enumerate().take(64) {
        let at = upper + 24 + (i * 7919) % value.len();
        p[at] = b;
    }
    let opts = PageOptions {
        kind: Some(PageKind::Heap),
        ..PageOptions::default()
    };
    let mut page = parse_page(&p, &opts);
    let schema = parse_columns("text").expect("a one-column list");
    decode_page(&mut page, &p, &schema, None);
    let decoded: usize = page
        .items
        .iter()
        .filter_map(|i| i.attrs.as_ref())
        .flatten()
        .filter_map(|a| a.value.as_ref())
        .map(|v| v.text.len())
        .sum();
    assert!(
        decoded <= 128 * MIB,
        "{decoded} bytes of values decoded from one 8 KiB page"
    );
});
