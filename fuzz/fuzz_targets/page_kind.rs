//! The page-kind detector and the generic page parser, with kind detection.
#![no_main]

use blockscope::postgres::{parse_page, PageOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let page = parse_page(data, &PageOptions::default());
    let _ = page.kind.name();
});
