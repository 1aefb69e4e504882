//! The hash, GIN, GiST, SP-GiST, BRIN, sequence, FSM and VM decoders forced onto
//! arbitrary bytes: the first byte picks the kind.
#![no_main]

use blockscope::model::postgres::PageKind;
use blockscope::postgres::{parse_page, PageOptions};
use libfuzzer_sys::fuzz_target;

const KINDS: [PageKind; 10] = [
    PageKind::Hash,
    PageKind::Gin,
    PageKind::Gist,
    PageKind::SpGist,
    PageKind::Brin,
    PageKind::Sequence,
    PageKind::Fsm,
    PageKind::Vm,
    PageKind::New,
    PageKind::Unknown,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, page)) = data.split_first() else {
        return;
    };
    let opts = PageOptions {
        kind: Some(KINDS[usize::from(pick) % KINDS.len()]),
        ..PageOptions::default()
    };
    let _ = parse_page(page, &opts);
});
