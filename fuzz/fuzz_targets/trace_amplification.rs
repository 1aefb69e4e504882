//! Trace amplification: traces built from fuzzed numbers whose `Dump of
//! memory` sections claim large ranges and `Repeat N times` lines multiply a
//! few hex rows. Whatever the trace claims, the blocks rebuilt from it may
//! total at most 64 × (its size + 8 KiB) bytes, each at most 32 KiB.
#![no_main]

use std::fmt::Write as _;

use blockscope::oracle::read_trace;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut text = String::new();
    let mut words = data.chunks(4).map(|c| {
        let mut w = [0u8; 4];
        w[..c.len()].copy_from_slice(c);
        u32::from_le_bytes(w)
    });
    let mut address: u64 = 0x7F14_0F33_5310;
    // Up to 64 sections, each a claimed range, a few rows and repeats.
    for _ in 0..64 {
        let Some(claim) = words.next() else { break };
        let len = u64::from(claim % (2 << 20)) & !15;
        let _ = writeln!(text, "Start dump data blocks tsn: 4 file#:7 minblk 3 maxblk 3");
        let _ = writeln!(
            text,
            "Dump of memory from 0x{address:016X} to 0x{:016X}",
            address + len
        );
        let rows = words.next().unwrap_or(0) % 4 + 1;
        for r in 0..rows {
            let w = words.next().unwrap_or(0);
            let _ = writeln!(
                text,
                "{:X} {w:08X} {w:08X} {w:08X} {w:08X}  [................]",
                address + u64::from(r) * 16
            );
            if let Some(n) = words.next() {
                let _ = writeln!(text, "Repeat {} times", n % 70_000);
            }
        }
        address += len;
    }
    let limit = (text.len() as u64 + 8192) * 64;
    if let Ok(blocks) = read_trace(text.as_bytes(), None) {
        let total: u64 = blocks
            .iter()
            .filter_map(|b| b.bytes.as_ref())
            .map(|b| {
                assert!(b.len() <= 32 << 10, "a rebuilt block of {} bytes", b.len());
                b.len() as u64
            })
            .sum();
        assert!(total <= limit, "{total} bytes rebuilt from {} of text", text.len());
    }
});
