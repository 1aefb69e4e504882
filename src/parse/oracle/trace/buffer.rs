//! The buffer-cache lines around a block dump (11g and later): which copy of
//! the block follows (`Block dump from cache:` / `Block dump from disk:`),
//! `Dump of buffer cache at level 4 for [pdb=P ]tsn=T[,] rdba=R` and the
//! buffer header `BH (0x…) file#: F rdba: 0x… (f/b) class: C ba: 0x…`.
//!
//! Published forms (fixtures/oracle/README.md names the sources):
//! - 11.1: `Dump of buffer cache at level 4 for tsn=4, rdba=16777344`;
//! - 11.2: `Dump of buffer cache at level 4 for tsn=4 rdba=16827907`;
//! - 12c and later: `Dump of buffer cache at level 3 for pdb=3 tsn=5 rdba=50334774`.
//!
//! The line after `BH (` (`dbwrid: 0 obj: … tsn: 4 afn: 4 hint: f`, or
//! `tsn: [3/5]` with the container number first in 12c and later) gives the
//! tablespace when nothing else does.

use crate::error::TextError;
pub use crate::model::oracle::BlockCopy;

use super::grammar::{clip, dec, Line, Words};

/// The copy `Block dump from …` announces (`None` for another word).
pub(super) fn block_copy(rest: &str) -> Option<BlockCopy> {
    match rest.trim() {
        "cache:" => Some(BlockCopy::Cache),
        "disk:" => Some(BlockCopy::Disk),
        _ => None,
    }
}

/// What `Dump of buffer cache at level …` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CacheLevel {
    pub level: u32,
    pub pdb: Option<u32>,
    /// `None` for `?` (what blockscope prints when it does not know).
    pub tsn: Option<u32>,
    pub rdba: Option<u32>,
    /// `tsn=4, rdba=` (11.1) rather than `tsn=4 rdba=`.
    pub comma: bool,
}

/// ` 4 for [pdb=P ]tsn=T[,] rdba=R` (after `Dump of buffer cache at level`).
pub(super) fn cache_level(line: Line<'_>, rest: &str) -> Result<CacheLevel, TextError> {
    const WHAT: &str = "`Dump of buffer cache at level N for [pdb=N ]tsn=N rdba=N`";
    let mut w = Words::new(line, rest, WHAT);
    let level = w.dec()?;
    w.key("for")?;
    let mut pdb = None;
    let mut tsn = None;
    let mut rdba = None;
    let mut comma = false;
    while w.more() {
        let at = w.remaining();
        let word = w.next()?;
        let bad = || line.error(at, format!("expected {WHAT}, found {:?}", clip(word)));
        let (key, value) = word.split_once('=').ok_or_else(bad)?;
        let value = match value.strip_suffix(',') {
            Some(v) => {
                comma = true;
                v
            }
            None => value,
        };
        let number = |v: &str| -> Result<Option<u32>, TextError> {
            if v == "?" {
                Ok(None)
            } else {
                dec(line, v, WHAT).map(Some)
            }
        };
        match key {
            "pdb" => pdb = number(value)?,
            "tsn" => tsn = Some(number(value)?),
            "rdba" => rdba = Some(number(value)?),
            _ => return Err(bad()),
        }
    }
    match (tsn, rdba) {
        (Some(tsn), Some(rdba)) => Ok(CacheLevel {
            level,
            pdb,
            tsn,
            rdba,
            comma,
        }),
        _ => Err(line.whole(format!(
            "expected {WHAT}, found {:?}: tsn= or rdba= missing",
            clip(line.text)
        ))),
    }
}

/// A buffer header line: `BH (0x…) file#: F rdba: 0x… (f/b) class: C ba: 0x…`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub struct BufferHeader {
    /// Line of `BH (`.
    pub line: usize,
    /// `file#:`: the absolute file number.
    pub file: u32,
    /// `rdba:`.
    pub rdba: u32,
    /// `class:` (1 = data block).
    pub class: u32,
    /// `ba:`: the buffer's address in the SGA.
    pub ba: u64,
    /// `tsn:` of the line after it, when it has one.
    pub tsn: Option<u32>,
}

/// `0x…) file#: F rdba: 0x… (f/b) class: C ba: 0x…` (after `BH (`).
pub(super) fn buffer_header(line: Line<'_>, rest: &str) -> Result<BufferHeader, TextError> {
    const WHAT: &str = "`BH (0x…) file#: N rdba: 0x… (F/B) class: N ba: 0x…`";
    let (_, after) = rest.split_once(')').ok_or_else(|| {
        line.error(
            rest,
            format!("expected {WHAT}, found {:?}: `)` missing", clip(rest)),
        )
    })?;
    let mut w = Words::new(line, after, WHAT);
    w.key("file#:")?;
    let file = w.dec()?;
    w.key("rdba:")?;
    let rdba = w.hex_u32()?;
    w.paren_pair()?;
    w.key("class:")?;
    let class = w.dec()?;
    w.key("ba:")?;
    let ba = w.hex_u64()?;
    Ok(BufferHeader {
        line: line.no,
        file,
        rdba,
        class,
        ba,
        tsn: None,
    })
}

/// `tsn: 4` or `tsn: [3/5]` in a buffer header's `dbwrid:` line.
pub(super) fn header_tsn(text: &str) -> Option<u32> {
    let t = text.trim_start();
    if !t.starts_with("dbwrid:") {
        return None;
    }
    let mut words = t.split_whitespace();
    words.find(|w| *w == "tsn:")?;
    let v = words.next()?;
    let v = match v.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(pair) => pair.split_once('/')?.1,
        None => v,
    };
    v.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line<'_> {
        Line { no: 3, text }
    }

    #[test]
    fn level_lines_of_each_release() {
        let l = line(" 4 for tsn=4, rdba=16777344");
        let c = cache_level(l, l.text).unwrap();
        assert_eq!(
            (c.tsn, c.rdba, c.pdb, c.comma),
            (Some(4), Some(16777344), None, true)
        );
        let l = line(" 4 for tsn=4 rdba=16827907");
        let c = cache_level(l, l.text).unwrap();
        assert_eq!((c.level, c.comma), (4, false));
        let l = line(" 3 for pdb=3 tsn=5 rdba=50334774");
        let c = cache_level(l, l.text).unwrap();
        assert_eq!((c.pdb, c.tsn, c.rdba), (Some(3), Some(5), Some(50334774)));
        let l = line(" 4 for tsn=?, rdba=907");
        assert_eq!(cache_level(l, l.text).unwrap().tsn, None);
        let l = line(" 4 for tsn=x rdba=1");
        assert!(cache_level(l, l.text).is_err());
        let l = line(" 4 for pdb=0");
        assert!(cache_level(l, l.text)
            .unwrap_err()
            .message
            .contains("missing"));
    }

    #[test]
    fn buffer_headers() {
        let l = line("0xcef4e888) file#: 12 rdba: 0x03000c36 (12/3126) class: 1 ba: 0xce00e000");
        let b = buffer_header(l, l.text).unwrap();
        assert_eq!(
            (b.file, b.rdba, b.class, b.ba),
            (12, 0x0300_0c36, 1, 0xce00_e000)
        );
        let l = line("0xcef4e888) file#: 12 rdba: zz");
        assert!(buffer_header(l, l.text).is_err());
        assert_eq!(
            header_tsn("  dbwrid: 0 obj: 74682 objn: 74682 tsn: [3/5] afn: 12 hint: f"),
            Some(5)
        );
        assert_eq!(
            header_tsn("  dbwrid: 0 obj: 77401 objn: 77401 tsn: 4 afn: 4 hint: f"),
            Some(4)
        );
        assert_eq!(header_tsn("  set: 3 pool: 3"), None);
    }
}
