//! `verify`: every block of every input checked, problems reported in order,
//! totals summarised — one room per engine.
//!
//! * [`postgres`]: relation files and data directories, checksums and page
//!   structure, in parallel windows with bounded memory;
//! * [`oracle`]: datafiles and block-dump traces, tallied as DBVERIFY does.
//!
//! Which room an input goes to is decided by [`crate::engine`].

pub(crate) mod oracle;
pub(crate) mod postgres;

pub use postgres::{run, ChecksumMode, Report, VerifyOptions};

use std::fmt::Write as _;
use std::path::Path;

/// A file name as verify prints it: control characters, bidirectional
/// overrides and line separators, and bytes that are not UTF-8 written as
/// escapes (`\x1b`, `\u{202e}`, `\xff`), so that a name can neither forge
/// a report line nor hide what it is.
pub(crate) fn file_name(path: &Path) -> String {
    let mut out = String::new();
    for chunk in name_bytes(path).utf8_chunks() {
        for c in chunk.valid().chars() {
            if u32::from(c) < 0x80 && c.is_control() {
                let _ = write!(out, "\\x{:02x}", u32::from(c));
            } else if c.is_control() || is_format_override(c) {
                let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            let _ = write!(out, "\\x{b:02x}");
        }
    }
    out
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
fn name_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    use std::os::unix::ffi::OsStrExt;
    std::borrow::Cow::Borrowed(path.as_os_str().as_bytes())
}

#[cfg(not(unix))]
fn name_bytes(path: &Path) -> std::borrow::Cow<'_, [u8]> {
    std::borrow::Cow::Owned(path.to_string_lossy().into_owned().into_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_are_escaped() {
        assert_eq!(file_name(Path::new("base/1/16384")), "base/1/16384");
        assert_eq!(file_name(Path::new("a\x1b[2Jb\nc")), "a\\x1b[2Jb\\x0ac");
        assert_eq!(
            file_name(Path::new("x\u{202e}y\u{85}é")),
            "x\\u{202e}y\\u{85}é"
        );
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let p = Path::new(std::ffi::OsStr::from_bytes(b"a\xffb"));
            assert_eq!(file_name(p), "a\\xffb");
        }
    }
}
