//! pg_xact and pg_multixact read offline from a stopped cluster's data
//! directory: the I/O half of commit-status lookups (the layouts are in
//! `parse::postgres::clog`).
//!
//! Segment files are read whole on first use (at most 32 pages each) and
//! kept, up to [`MAX_CACHED`] segments; a missing, short or unreadable
//! segment makes the lookups it serves "unknown", with the reason, never an
//! error that stops the caller. Lookups may come from several threads.

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crate::parse::postgres::clog::{
    self, member_pos, next_multi, next_offset, offset_pos, segment_name, xact_pos, MemberStatus,
    SlruPos, XactStatus, SLRU_PAGES_PER_SEGMENT,
};

/// Segments kept in memory at most (each at most 32 pages).
const MAX_CACHED: usize = 64;
/// Members of one multixact read at most.
const MAX_MEMBERS: usize = 1 << 16;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Slru {
    Xact,
    Offsets,
    Members,
}

impl Slru {
    fn dir(self) -> &'static str {
        match self {
            Slru::Xact => "pg_xact",
            Slru::Offsets => "pg_multixact/offsets",
            Slru::Members => "pg_multixact/members",
        }
    }
}

type Segment = Result<Arc<Vec<u8>>, String>;

/// A data directory's transaction status logs.
pub(crate) struct XactLog {
    data_dir: PathBuf,
    block_size: usize,
    cache: Mutex<HashMap<(Slru, u64), Segment>>,
}

/// One member of a multixact: its transaction and what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Member {
    /// The member transaction.
    pub(crate) xid: u32,
    /// Lock or update.
    pub(crate) status: MemberStatus,
}

impl XactLog {
    /// The logs of the data directory `data_dir` (which must hold `pg_xact`),
    /// in pages of `block_size` bytes.
    pub(crate) fn open(data_dir: &Path, block_size: usize) -> Option<XactLog> {
        data_dir.join("pg_xact").is_dir().then(|| XactLog {
            data_dir: data_dir.to_path_buf(),
            block_size,
            cache: Mutex::new(HashMap::new()),
        })
    }

    /// The data directory.
    pub(crate) fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    /// The data directory a relation file sits in: the nearest of its
    /// parent directories (up to 5 up: `base/DBOID/`, `global/`,
    /// `pg_tblspc/OID/PG_…/DBOID/`) that holds `pg_xact`.
    pub(crate) fn find_data_dir(relation_file: &Path) -> Option<PathBuf> {
        let abs = if relation_file.is_absolute() {
            relation_file.to_path_buf()
        } else {
            std::env::current_dir().ok()?.join(relation_file)
        };
        abs.ancestors()
            .skip(1)
            .take(5)
            .find(|d| d.join("pg_xact").is_dir() && d.join("base").is_dir())
            .map(Path::to_path_buf)
    }

    fn segment(&self, slru: Slru, n: u64) -> Segment {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(s) = cache.get(&(slru, n)) {
            return s.clone();
        }
        let path = self.data_dir.join(slru.dir()).join(segment_name(n));
        let max = SLRU_PAGES_PER_SEGMENT as usize * self.block_size;
        let read = crate::source::open_regular(&path).and_then(|f| {
            let mut buf = Vec::new();
            f.take(max as u64).read_to_end(&mut buf)?;
            Ok(buf)
        });
        let seg = match read {
            Ok(buf) => Ok(Arc::new(buf)),
            Err(e) => Err(format!("{}: {e}", crate::escape::path(&path))),
        };
        if cache.len() >= MAX_CACHED {
            cache.clear();
        }
        cache.insert((slru, n), seg.clone());
        seg
    }

    fn byte(&self, slru: Slru, pos: SlruPos) -> Result<u8, String> {
        let seg = self.segment(slru, pos.segment)?;
        let at = pos.file_offset(self.block_size);
        usize::try_from(at)
            .ok()
            .and_then(|at| seg.get(at).copied())
            .ok_or_else(|| {
                format!(
                    "{}/{} ends before byte {at} (page {} not written)",
                    slru.dir(),
                    segment_name(pos.segment),
                    pos.page
                )
            })
    }

    fn u32_at(&self, slru: Slru, pos: SlruPos) -> Result<u32, String> {
        let mut b = [0u8; 4];
        for (i, slot) in b.iter_mut().enumerate() {
            *slot = self.byte(
                slru,
                SlruPos {
                    byte: pos.byte + i,
                    ..pos
                },
            )?;
        }
        // pg_multixact's words, read little-endian.
        Ok(crate::reader::Endian::Little
            .read_u32(&b)
            .unwrap_or_default())
    }

    /// `xid`'s status in pg_xact; `Err` says why it is unknown.
    pub(crate) fn status(&self, xid: u32) -> Result<XactStatus, String> {
        let (pos, shift) = xact_pos(xid, self.block_size);
        let byte = self.byte(Slru::Xact, pos)?;
        Ok(clog::xact_status(byte, shift))
    }

    /// The members of multixact `multi` (`GetMultiXactIdMembers`): from its
    /// offset to the next multixact's; when the next multixact's offset is
    /// not yet set (it was the newest), up to the first unused member slot.
    pub(crate) fn members(&self, multi: u32) -> Result<Vec<Member>, String> {
        if multi == 0 {
            return Err("multixact 0 is invalid".into());
        }
        let start = self.u32_at(Slru::Offsets, offset_pos(multi, self.block_size))?;
        if start == 0 {
            return Err(format!(
                "multixact {multi} has no offset in pg_multixact/offsets"
            ));
        }
        let end = self
            .u32_at(
                Slru::Offsets,
                offset_pos(next_multi(multi), self.block_size),
            )
            .ok()
            .filter(|&o| o != 0);
        let mut members = Vec::new();
        let mut o = start;
        while Some(o) != end && members.len() < MAX_MEMBERS {
            let (flag, xid) = member_pos(o, self.block_size);
            let xid_value = match self.u32_at(Slru::Members, xid) {
                Ok(x) => x,
                Err(_) if end.is_none() && !members.is_empty() => break,
                Err(e) => return Err(e),
            };
            if xid_value == 0 {
                if end.is_none() {
                    break;
                }
                // A slot skipped at a page's end of a wrapped group: not a member.
                o = next_offset(o);
                continue;
            }
            members.push(Member {
                xid: xid_value,
                status: MemberStatus::from_byte(self.byte(Slru::Members, flag)?),
            });
            o = next_offset(o);
        }
        if members.is_empty() {
            return Err(format!(
                "multixact {multi} has no members in pg_multixact/members"
            ));
        }
        Ok(members)
    }
}

impl crate::parse::postgres::visibility::XactLookup for XactLog {
    fn xact_status(&self, xid: u32) -> Result<XactStatus, String> {
        self.status(xid)
    }

    fn multi_members(&self, multi: u32) -> Result<Vec<(u32, MemberStatus)>, String> {
        self.members(multi)
            .map(|ms| ms.into_iter().map(|m| (m.xid, m.status)).collect())
    }
}
