//! The whole `show` pipeline: input detection and decoding, blocks, parsing,
//! and every renderer.
#![no_main]

use std::io::Cursor;
use std::path::PathBuf;

use blockscope::input::InputFormat;
use blockscope::parse::postgres::{parse_page, PageOptions};
use blockscope::render::postgres::json::PgPageJson;
use blockscope::render::postgres::table;
    use blockscope::render::{hex, RenderOptions};
use blockscope::source::Source;
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
        let _ = table::render_page(&mut sink, &page, &opts);
        let _ = hex::render(&mut sink, &block.data, &page.spans, &opts);
        let _ = serde_json::to_writer(&mut sink, &PgPageJson::from_page(&page));
    }
});
