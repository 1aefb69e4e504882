//! Arbitrary and damaged bytes never panic the page parser or the renderers.

use std::fs;
use std::path::Path;
use std::sync::OnceLock;

use blockscope::model::postgres::{PageKind, PgPage};
use blockscope::postgres::PageJson as PgPageJson;
use blockscope::postgres::{check_page, parse_page, parse_page_without_spans, PageOptions};
use blockscope::{postgres, render_hex, RenderOptions};
use proptest::prelude::*;

fn render_all(bytes: &[u8]) {
    render_as(bytes, None);
}

fn render_as(bytes: &[u8], kind: Option<PageKind>) {
    let opts = PageOptions {
        kind,
        ..PageOptions::default()
    };
    let page = parse_page(bytes, &opts);
    let render = RenderOptions::default();
    let mut sink = Vec::new();
    postgres::render_table(&mut sink, &page, &render).unwrap();
    render_hex(&mut sink, bytes, &page.spans, &render).unwrap();
    serde_json::to_writer(&mut sink, &PgPageJson::from_page(&page)).unwrap();
    fast_paths_agree(bytes, &page, &opts);
}

/// The span-less parse and the hand-written NDJSON line say exactly what
/// parse_page and serde_json say; check_page reports nothing parse_page does not.
fn fast_paths_agree(bytes: &[u8], page: &PgPage, opts: &PageOptions) {
    let quick = parse_page_without_spans(bytes, opts);
    assert!(quick.spans.is_empty());
    // Compared as Debug text: floats decoded from garbage can be NaN, and NaN != NaN.
    let full = PgPage {
        spans: Vec::new(),
        ..page.clone()
    };
    assert_eq!(format!("{quick:?}"), format!("{full:?}"));
    // verify's checks: never a problem that decoding the page does not report.
    let mut checked = Vec::new();
    check_page(bytes, opts, &mut checked);
    let mut rest = page.problems.iter();
    for p in &checked {
        assert!(
            rest.any(|q| q == p),
            "check_page found {p:?}, parse_page did not: {:?}",
            page.problems
        );
    }
    let mut line = Vec::new();
    postgres::append_page_line(&mut line, page);
    let mut expected = serde_json::to_vec(&PgPageJson::from_page(page)).unwrap();
    expected.push(b'\n');
    assert_eq!(
        String::from_utf8_lossy(&line),
        String::from_utf8_lossy(&expected)
    );
}

fn real_pages() -> &'static [Vec<u8>] {
    static PAGES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    PAGES.get_or_init(load_real_pages)
}

fn load_real_pages() -> Vec<Vec<u8>> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres");
    let mut pages: Vec<Vec<u8>> = ["heap", "btree", "other"]
        .iter()
        .flat_map(|d| fs::read_dir(root.join(d)).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "page"))
        .map(|p| fs::read(p).unwrap())
        .collect();
    pages.sort();
    assert!(!pages.is_empty());
    pages
}

/// A page whose header is plausible, so the parser goes deep into the body.
fn plausible_header(mut bytes: Vec<u8>, lower: u16, upper: u16) -> Vec<u8> {
    let size = bytes.len() as u16;
    bytes[12..14].copy_from_slice(&lower.to_le_bytes());
    bytes[14..16].copy_from_slice(&upper.to_le_bytes());
    bytes[16..18].copy_from_slice(&size.to_le_bytes());
    bytes[18..20].copy_from_slice(&(size | 4).to_le_bytes());
    bytes
}

const KINDS: [PageKind; 12] = [
    PageKind::Heap,
    PageKind::Btree,
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn random_page_sized_bytes(bytes in proptest::collection::vec(any::<u8>(), 8192)) {
        render_all(&bytes);
    }

    #[test]
    fn random_bodies_behind_a_plausible_header(
        bytes in proptest::collection::vec(any::<u8>(), 8192),
        lower in 24u16..2000,
        upper in 0u16..8192,
    ) {
        render_all(&plausible_header(bytes, lower, upper));
    }

    #[test]
    fn every_parser_forced_onto_random_bytes(
        bytes in proptest::collection::vec(any::<u8>(), 8192),
        lower in 24u16..8192,
        upper in 0u16..8192,
        special in 0u16..8200,
        kind in 0usize..12,
    ) {
        let mut page = plausible_header(bytes, lower, upper);
        page[16..18].copy_from_slice(&special.to_le_bytes());
        render_as(&page, Some(KINDS[kind]));
        render_as(&page, None);
    }

    #[test]
    fn btree_special_spaces_with_random_items(
        bytes in proptest::collection::vec(any::<u8>(), 8192),
        lower in 24u16..1200,
        flags in 0u16..0x200,
    ) {
        // A btree-shaped page: 16-byte special space, any flags, random tuples.
        let mut page = plausible_header(bytes, lower, 4096);
        page[16..18].copy_from_slice(&8176u16.to_le_bytes());
        page[8188..8190].copy_from_slice(&flags.to_le_bytes());
        page[8190..8192].copy_from_slice(&0u16.to_le_bytes());
        render_all(&page);
    }

    #[test]
    fn random_lengths(bytes in proptest::collection::vec(any::<u8>(), 0..20000)) {
        render_all(&bytes);
    }

    #[test]
    fn bit_flips_truncations_and_splices_of_real_pages(
        which in 0usize..1000,
        other in 0usize..1000,
        flips in proptest::collection::vec((0usize..8192, 0u8..8), 1..40),
        cut in 0usize..8193,
        splice_at in 0usize..8192,
    ) {
        let pages = real_pages();
        let mut page = pages[which % pages.len()].clone();
        render_as(&page, Some(KINDS[which % KINDS.len()]));
        for (at, bit) in &flips {
            page[*at] ^= 1 << bit;
        }
        render_all(&page);
        // Splice: the head of one page, the tail of another (a torn write).
        let donor = &pages[other % pages.len()];
        let mut torn = page.clone();
        torn[splice_at..].copy_from_slice(&donor[splice_at..]);
        render_all(&torn);
        page.truncate(cut);
        render_all(&page);
    }
}

#[test]
fn fast_paths_agree_on_every_corruption_fixture_page() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/postgres/corrupt");
    let mut pages = 0;
    for scenario in fs::read_dir(dir).unwrap() {
        let scenario = scenario.unwrap().path();
        if !scenario.is_dir() {
            continue;
        }
        for file in fs::read_dir(scenario).unwrap() {
            let bytes = fs::read(file.unwrap().path()).unwrap();
            for block in bytes.chunks(8192) {
                fast_paths_agree(
                    block,
                    &parse_page(block, &PageOptions::default()),
                    &PageOptions::default(),
                );
                pages += 1;
            }
        }
    }
    assert!(pages > 50, "{pages}");
}

#[test]
fn every_real_page_parses_without_problems() {
    for page in real_pages() {
        let p = parse_page(page, &PageOptions::default());
        let unexpected: Vec<_> = p
            .problems
            .iter()
            .filter(|x| x.class != "checksum")
            .collect();
        assert!(unexpected.is_empty(), "{unexpected:?}");
    }
}
