//! The trace reader as a whole: blocks, bounds and de-duplication.

use super::*;

/// A `Dump of memory` section of `size` bytes: one hex line (its first word
/// `first`), then `Repeat` for the rest.
fn bomb_section(at: u64, size: u64, first: u32) -> String {
    format!(
        "Dump of memory from 0x{at:016X} to 0x{:016X}\n\
         {at:X} {first:08X} 00000000 00000000 00000000  [................]\n\
         Repeat {} times\n",
        at + size,
        size / 16 - 1
    )
}

#[test]
fn sections_claiming_a_mebibyte_are_kept_to_a_block() {
    let text = bomb_section(0x1000, 1 << 20, 6);
    assert!(text.len() < 160, "{}", text.len());
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].bytes.as_ref().map(Vec::len), Some(32 * 1024));
    assert_eq!(blocks[0].notes.len(), 1);
    assert!(
        blocks[0].notes[0].contains("claims 1048576 bytes; only its first 32768"),
        "{:?}",
        blocks[0].notes
    );
}

#[test]
fn a_765_kb_trace_of_identical_bomb_sections_is_one_block() {
    let one = bomb_section(0x1000, 1 << 20, 6);
    let n = 765_000 / one.len();
    let text = one.repeat(n);
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 1);
    assert_eq!(blocks[0].bytes.as_ref().map(Vec::len), Some(32 * 1024));
    let merged = blocks[0].notes.last().unwrap();
    assert!(
        merged.contains(&format!("{} more `Dump of memory` sections", n - 1)),
        "{merged}"
    );
}

#[test]
fn a_765_kb_trace_of_distinct_bomb_sections_is_bounded_by_its_size() {
    let mut text = String::new();
    let mut i = 0u32;
    while text.len() < 765_000 {
        text.push_str(&bomb_section(0x1000, 1 << 20, i));
        i += 1;
    }
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), i as usize);
    let kept: u64 = blocks
        .iter()
        .filter_map(|b| b.bytes.as_ref())
        .map(|b| b.len() as u64)
        .sum();
    let limit = rebuilt_limit(text.len());
    assert!(kept <= limit, "{kept} > {limit}");
    assert!(kept > limit - 32 * 1024, "{kept}");
    assert!(blocks
        .iter()
        .all(|b| b.bytes.as_ref().is_none_or(|b| b.len() <= 32 * 1024)));
    // What was not rebuilt says so.
    let dropped: Vec<_> = blocks.iter().filter(|b| b.bytes.is_none()).collect();
    assert!(!dropped.is_empty());
    assert!(dropped
        .iter()
        .all(|b| b.notes.iter().any(|n| n.contains("were not rebuilt"))));
}

#[test]
fn blocks_with_text_are_never_merged() {
    // Two dumps of the same bytes, each with a cache header: two blocks.
    let section = bomb_section(0x1000, 64, 6);
    let cache = "buffer tsn: 5 rdba: 0x0000038b (1024/907)\n\
                 scn: 0x0.4e9af4 seq: 0x01 flg: 0x06 tail: 0x9af40601\n\
                 frmt: 0x02 chkval: 0x46dd type: 0x06=trans data\n";
    let text = format!("{cache}{section}{cache}{section}");
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks.len(), 2);
    assert!(blocks.iter().all(|b| b.notes.is_empty()));
}

#[test]
fn no_block_is_an_error_about_the_whole_text() {
    let e = read_trace(b"Trace file x\nnothing here\n", None).unwrap_err();
    assert_eq!((e.line, e.column), (0, 0));
    assert!(e.message.starts_with("expected a block dump"));
}

#[test]
fn crlf_and_non_ascii_lines_read_as_lf() {
    let text = "-- 注释 caf\u{e9}\r\nStart dump data blocks tsn: 5 file#:7 minblk 2 maxblk 2\r\n\
                Block header dump:  0x01c00002\r\n seg/obj: 0x17bc3  csc: 0x00.4e9aed  itc: 2  \
                flg: E  typ: 1 - DATA\r\n";
    let blocks = read_trace(text.as_bytes(), None).unwrap();
    assert_eq!(blocks[0].label(), "7/2");
    let mut latin1 = text.replace("注释 caf\u{e9}", "x").into_bytes();
    latin1.splice(3..3, [0xe9, 0xa7]);
    assert_eq!(read_trace(&latin1, None).unwrap(), blocks);
}

#[test]
fn start_line_errors_carry_the_column() {
    let e = read_trace(b"Start dump data blocks tsn: x file#:5\n", None).unwrap_err();
    assert_eq!((e.line, e.column), (1, 29));
    let e = read_trace(b"Start dump data blocks tsn:\n", None).unwrap_err();
    assert_eq!((e.line, e.column), (1, 0));
}
