//! The whole `show` pipeline: input detection and decoding, blocks, parsing,
//! and every renderer.
#![no_main]

use std::io::Cursor;
use std::path::PathBuf;

use blockscope::InputFormat;
use blockscope::postgres::{parse_page, PageOptions};
use blockscope::postgres::PageJson as PgPageJson;
use blockscope::{postgres, render_hex, RenderOptions};
use blockscope::Source;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(source) = Source::from_reader(
        PathBuf::from("fuzz"),
        Box::new(Cursor::new(data.to_vec())),
        InputFormat::Auto,
        None,
    ) else {
        return;
    };
    let opts = RenderOptions {
        wide: data.first().is_some_and(|b| b & 1 == 1),
        ..RenderOptions::default()
    };
    for block in source.blocks().take(4) {
        let Ok(block) = block else { return };
        let page = parse_page(&block.data, &PageOptions::default());
        let mut sink = Vec::new();
        let _ = postgres::render_table(&mut sink, &page, &opts);
        let _ = render_hex(&mut sink, &block.data, &page.spans, &opts);
        let _ = serde_json::to_writer(&mut sink, &PgPageJson::from_page(&page));
    }
});
