//! The attribute decoder with a fuzzed type list: the input is a column list
//! (up to the first NUL byte) and page bytes; the page is parsed as a heap page
//! and every tuple split into those columns (varlena forms, pglz/lz4
//! decompression, values). Also the pglz decompressor and the schema parser.
#![no_main]

use blockscope::model::postgres::PageKind;
use blockscope::postgres::decode_page;
use blockscope::postgres::{parse_columns, parse_schema};
use blockscope::postgres::{parse_page, PageOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let split = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let (list, rest) = data.split_at(split);
    let page_bytes = rest.get(1..).unwrap_or_default();
    let Ok(list) = std::str::from_utf8(list) else {
        return;
    };
    let _ = parse_schema(list);
    let Ok(schema) = parse_columns(list) else {
        return;
    };
    let opts = PageOptions {
        kind: Some(PageKind::Heap),
        ..PageOptions::default()
    };
    let mut page = parse_page(page_bytes, &opts);
    decode_page(&mut page, page_bytes, &schema, None);
});
