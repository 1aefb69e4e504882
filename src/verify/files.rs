//! What every engine's verify does with an input file: why it cannot be
//! read, how long it is (a block device included), its SHA-256 for
//! `--evidence`, and its name and times as a report prints them.

use std::fmt::Write as _;
use std::fs::{self, File};
use std::io::{self, Read};
use std::path::Path;

use sha2::{Digest, Sha256};

use crate::error::Error;

/// A file name as verify prints it: control characters, bidirectional
/// overrides and line separators, backslashes and bytes that are not UTF-8
/// written as escapes (`\x1b`, `\u{202e}`, `\\`, `\xff`; see
/// [`crate::escape`]), so that a name can neither forge a report line nor
/// hide what it is.
pub(crate) fn file_name(path: &Path) -> String {
    crate::escape::path(path)
}

/// A time as RFC 3339 in UTC: `2024-05-01T12:34:56Z`, with nanoseconds
/// (`…56.123456789Z`) when the file system keeps them.
pub(crate) fn rfc3339_utc(t: std::time::SystemTime) -> String {
    let (secs, nanos) = match t.duration_since(std::time::UNIX_EPOCH) {
        Ok(d) => (d.as_secs() as i64, d.subsec_nanos()),
        Err(e) => {
            let d = e.duration();
            let (s, n) = (d.as_secs() as i64, d.subsec_nanos());
            if n == 0 {
                (-s, 0)
            } else {
                (-s - 1, 1_000_000_000 - n)
            }
        }
    };
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (year, month, day) = crate::model::time::civil_from_days(days);
    let mut out = format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    );
    if nanos != 0 {
        let _ = write!(out, ".{nanos:09}");
    }
    out.push('Z');
    out
}

/// Why `path` could not be looked at or opened.
pub(crate) fn unreadable(path: &Path, e: &io::Error) -> String {
    let link = fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
    if link && e.kind() == io::ErrorKind::NotFound {
        let to = fs::read_link(path)
            .map(|t| file_name(&t))
            .unwrap_or_default();
        return format!("not read: a symbolic link to {to}, which does not exist ({e})");
    }
    format!("not read: {e}")
}

/// `path` is gone (not a dangling symbolic link: that is damage to report).
pub(crate) fn removed(path: &Path, e: &io::Error) -> bool {
    e.kind() == io::ErrorKind::NotFound && fs::symlink_metadata(path).is_err()
}

/// What a file that is neither a directory nor a regular file is.
pub(crate) fn special_kind(meta: &fs::Metadata) -> Option<&'static str> {
    if meta.is_dir() {
        return None;
    }
    crate::source::not_regular_kind(&meta.file_type())
}

pub(crate) fn is_block_device(meta: &fs::Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        meta.file_type().is_block_device()
    }
    #[cfg(not(unix))]
    {
        let _ = meta;
        false
    }
}

/// Bytes in an opened input: its size, or for a block device its end.
pub(crate) fn input_len(file: &File, meta: &fs::Metadata) -> io::Result<u64> {
    if is_block_device(meta) {
        use std::io::{Seek, SeekFrom};
        let mut f = file;
        return f.seek(SeekFrom::End(0));
    }
    Ok(meta.len())
}

/// A SHA-256 digest in lower-case hex.
pub(crate) fn hex_digest(hash: Sha256) -> String {
    let mut out = String::with_capacity(64);
    for b in hash.finalize() {
        let _ = write!(out, "{b:02x}");
    }
    out
}

/// Read from `reader` until `buf` is full or the input ends.
pub(crate) fn read_full(reader: &mut dyn Read, buf: &mut [u8]) -> io::Result<usize> {
    let mut done = 0;
    while done < buf.len() {
        match reader.read(&mut buf[done..]) {
            Ok(0) => break,
            Ok(n) => done += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(done)
}

pub(crate) fn io_error(path: &Path) -> impl FnOnce(io::Error) -> Error + '_ {
    move |source| Error::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_rfc3339_utc() {
        use std::time::{Duration, UNIX_EPOCH};
        assert_eq!(rfc3339_utc(UNIX_EPOCH), "1970-01-01T00:00:00Z");
        let t = UNIX_EPOCH + Duration::new(1_709_210_096, 5);
        assert_eq!(rfc3339_utc(t), "2024-02-29T12:34:56.000000005Z");
        let t = UNIX_EPOCH + Duration::from_secs(951_782_400);
        assert_eq!(rfc3339_utc(t), "2000-02-29T00:00:00Z");
        let t = UNIX_EPOCH - Duration::from_secs(1);
        assert_eq!(rfc3339_utc(t), "1969-12-31T23:59:59Z");
    }

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
