//! The Oracle trace reader on arbitrary text (detected and both byte orders),
//! then the cross-check and the dump renderer on what it finds.
#![no_main]

use blockscope::oracle::crosscheck as compare;
use blockscope::oracle::{read_trace, render_view};
use blockscope::oracle::{parse_block, BlockOptions};
use blockscope::Endian;
use blockscope::{dump_text, DumpOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for endian in [None, Some(Endian::Little), Some(Endian::Big)] {
        let Ok(blocks) = read_trace(data, endian) else {
            continue;
        };
        for b in blocks {
            if let Some(t) = &b.text {
                if let Some(view) = render_view(t, 0) {
                    let _ = dump_text(&view, &[], &DumpOptions::default());
                }
                let _ = serde_json::to_string(t);
            }
            if let (Some(bytes), Some(t)) = (&b.bytes, &b.text) {
                let raw = parse_block(bytes, &BlockOptions { blkno: 0, endian: b.endian });
                let _ = compare(&raw, t);
            }
        }
    }
});
