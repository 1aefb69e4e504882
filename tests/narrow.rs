//! Tables on narrow terminals: drawn whole when they fit, as expanded records
//! (psql's `\x`) when they do not; no word is ever split across lines.

use blockscope::postgres::{parse_page, PageOptions};
use blockscope::Endian;
use blockscope::{postgres, RenderOptions};

fn render(path: &str, width: Option<u16>) -> String {
    let bytes = std::fs::read(format!("{}/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap();
    let page = parse_page(
        &bytes,
        &PageOptions {
            blkno: 0,
            kind: None,
            endian: Endian::Little,
            ..PageOptions::default()
        },
    );
    let mut out = Vec::new();
    let opts = RenderOptions {
        width,
        ..RenderOptions::default()
    };
    postgres::render_table(&mut out, &page, &opts).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every whitespace-separated word of `text`.
fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| c.is_whitespace() || "│┆".contains(c))
        .filter(|w| !w.is_empty() && !w.chars().all(|c| "─┌┐└┘├┤┬┴┼╞╡╪═-".contains(c)))
        .collect()
}

#[test]
fn narrow_terminals_get_records_with_whole_words() {
    for fixture in [
        "fixtures/postgres/heap/vacuum_pruned.0.page",
        "fixtures/postgres/heap/row_locks.0.page",
        "fixtures/postgres/btree/bt_text.1.page",
    ] {
        let natural = render(fixture, None);
        let narrow = render(fixture, Some(80));
        assert!(narrow.contains("-[ RECORD 1 ]"), "{fixture}: {narrow}");
        for line in narrow.lines() {
            let width = line.chars().count();
            // A line may only pass the width when it is one unbreakable word.
            assert!(
                width <= 80 || !line.split_once(" │ ").is_some_and(|(_, v)| v.contains(' ')),
                "{fixture}: {line:?}"
            );
        }
        // The same words in both drawings (the natural one splits nothing).
        let mut a = words(&natural);
        let mut b = words(&narrow);
        b.retain(|w| !w.starts_with("[") && *w != "RECORD" && w.parse::<u32>().is_err());
        a.retain(|w| w.parse::<u32>().is_err());
        for w in &a {
            assert!(b.contains(w), "{fixture}: {w:?} lost or split");
        }
    }
}

#[test]
fn tables_that_fit_are_drawn_whole() {
    let natural = render("fixtures/postgres/heap/vacuum_pruned.0.page", None);
    let wide = render("fixtures/postgres/heap/vacuum_pruned.0.page", Some(400));
    assert_eq!(natural, wide);
    assert!(!natural.contains("RECORD"));
}
