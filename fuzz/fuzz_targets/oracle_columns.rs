//! Oracle `--columns` decoding on arbitrary blocks: the input's first line is
//! the column list (as `--columns` takes it), the rest the block; every
//! renderer then runs over the typed values.
#![no_main]

use blockscope::model::oracle::types::{OraCharset, OraColumns};
use blockscope::oracle::decode_columns as decode_block;
use blockscope::oracle::{parse_block, BlockOptions};
use blockscope::{oracle, render_hex, RenderOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == b'\n').unwrap_or(0);
    let (head, body) = data.split_at(split);
    let Ok(list) = OraColumns::parse(&String::from_utf8_lossy(head)) else {
        return;
    };
    let body = body.get(1..).unwrap_or_default();
    for cs in [
        OraCharset::Al32Utf8,
        OraCharset::We8Iso8859P1,
        OraCharset::Us7Ascii,
    ] {
        let mut block = parse_block(body, &BlockOptions { blkno: 1, endian: None });
        decode_block(&mut block, &list, cs);
        let opts = RenderOptions::default();
        let mut sink = Vec::new();
        let _ = oracle::render_table(&mut sink, &block, false, &opts);
        let _ = render_hex(&mut sink, body, &block.spans, &opts);
        let _ = serde_json::to_writer(&mut sink, &oracle::block_json(&block, false));
    }
});
