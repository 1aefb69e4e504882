//! Names from the outside world made safe to print: file names and the
//! names a catalog holds (tables, schemas, columns) can carry any byte, and
//! an ESC, a BEL, a newline or a bidirectional override printed raw would
//! drive the terminal or forge a report line. One function writes them
//! everywhere — text, stderr notes, titles, headers, and the JSON strings
//! that name files or tables, so a name reads the same in every output:
//!
//! * `\` itself as `\\` (so a name holding the text `\x1b` cannot pass for
//!   an escaped ESC);
//! * ASCII control characters as `\xNN` (`\x1b`, `\x07`, `\x0a`);
//! * other control characters, bidirectional marks, embeddings, overrides
//!   and isolates, line and paragraph separators and the BOM as `\u{NNNN}`;
//! * bytes that are not UTF-8 as `\xNN`.
//!
//! Everything else — letters of any script, spaces, punctuation — is kept.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

/// `bytes` with every byte that could act on a terminal or hide what it
/// is written as an escape (see the module docs).
pub(crate) fn bytes(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        push_text(&mut out, chunk.valid());
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
}

/// A name (a table's, a column's) escaped; borrowed when nothing needs it.
pub(crate) fn name(text: &str) -> Cow<'_, str> {
    if text.chars().all(|c| !needs_escape(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    push_text(&mut out, text);
    Cow::Owned(out)
}

/// A path escaped, byte for byte as the OS holds it.
pub(crate) fn path(path: &Path) -> String {
    bytes(&path_bytes(path))
}

fn push_text(out: &mut String, text: &str) {
    for c in text.chars() {
        if c == '\\' {
            out.push_str("\\\\");
        } else if u32::from(c) < 0x80 && c.is_control() {
            let _ = write!(out, "\\x{:02x}", u32::from(c));
        } else if c.is_control() || is_format_override(c) {
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        } else {
            out.push(c);
        }
    }
}

fn needs_escape(c: char) -> bool {
    c == '\\' || c.is_control() || is_format_override(c)
}

/// Characters that reorder or break the text around them: bidi marks,
/// embeddings, overrides and isolates, line and paragraph separators, BOM.
fn is_format_override(c: char) -> bool {
    matches!(
        c,
        '\u{061c}'
            | '\u{200e}'
            | '\u{200f}'
            | '\u{2028}'..='\u{202e}'
            | '\u{2066}'..='\u{2069}'
            | '\u{feff}'
    )
}

#[cfg(unix)]
fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn path_bytes(path: &Path) -> Cow<'_, [u8]> {
    Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_overrides_backslashes_and_bad_bytes_are_escaped() {
        assert_eq!(path(Path::new("base/1/16384")), "base/1/16384");
        assert_eq!(path(Path::new("a\x1b[2Jb\nc\x07")), "a\\x1b[2Jb\\x0ac\\x07");
        assert_eq!(path(Path::new("x\u{202e}y\u{85}é")), "x\\u{202e}y\\u{85}é");
        // The text `\x1b` stays distinguishable from an escaped ESC.
        assert_eq!(name("a\\x1b"), "a\\\\x1b");
        assert_eq!(name("\x1b"), "\\x1b");
        assert_ne!(name("a\\x1b"), name("a\x1b"));
        assert!(matches!(name("public.t"), Cow::Borrowed(_)));
        assert_eq!(name("ünïcødé 表"), "ünïcødé 表");
        assert_eq!(bytes(b"a\xffb\\"), "a\\xffb\\\\");
    }
}
