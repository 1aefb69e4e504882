//! The btree parser forced onto arbitrary bytes.
#![no_main]

use blockscope::model::postgres::PageKind;
use blockscope::postgres::{parse_page, PageOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let opts = PageOptions {
        kind: Some(PageKind::Btree),
        ..PageOptions::default()
    };
    let _ = parse_page(data, &opts);
});
