//! What a heap line pointer and its tuple header prove about a row's life.
//!
//! The parser decides the facts ([`ItemVerdict`]); `Display` words them, and
//! JSON carries the same words. The rules follow PostgreSQL's
//! `HeapTupleSatisfiesMVCC` (heapam_visibility.c): the hint bits of
//! `t_infomask` (htup_details.h) are the only commit status a page holds.
//! Without them the status lives in pg_xact, which a page does not carry, so
//! an unhinted transaction is said to be "commit status not on the page" and
//! what depends on it is said conditionally, never as a fact.

use std::fmt;

use serde::{Serialize, Serializer};

use super::ItemPointer;

/// The commit status of a tuple's xmin or xmax as far as the page proves it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XidStatus {
    /// `HEAP_XMIN_COMMITTED` / `HEAP_XMAX_COMMITTED` (or `BootstrapTransactionId`).
    Committed,
    /// `HEAP_XMIN_INVALID` / `HEAP_XMAX_INVALID`: aborted or crashed (or
    /// `InvalidTransactionId` as xmin).
    Aborted,
    /// `HEAP_XMIN_FROZEN` (both xmin bits) or `FrozenTransactionId`.
    Frozen,
    /// No hint bit: the status is in pg_xact, not on the page.
    NotOnPage,
    /// No hint bit, and the data directory's pg_xact says this.
    PerXact(XactStatus),
}

/// A transaction's status as pg_xact records it (`XidStatus`, clog.h).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum XactStatus {
    /// `TRANSACTION_STATUS_IN_PROGRESS` (0): never ended — in a stopped
    /// cluster, a transaction that the crash or shutdown cut off (the server
    /// counts it as aborted when it starts again).
    InProgress,
    /// `TRANSACTION_STATUS_COMMITTED` (1).
    Committed,
    /// `TRANSACTION_STATUS_ABORTED` (2).
    Aborted,
    /// `TRANSACTION_STATUS_SUB_COMMITTED` (3): a subtransaction whose parent's
    /// commit was being recorded; left alone, the parent never committed.
    SubCommitted,
}

impl XactStatus {
    /// The status of two bits.
    pub fn from_bits(bits: u8) -> XactStatus {
        match bits & 3 {
            0 => XactStatus::InProgress,
            1 => XactStatus::Committed,
            2 => XactStatus::Aborted,
            _ => XactStatus::SubCommitted,
        }
    }

    /// The words used in verdicts.
    pub fn as_str(self) -> &'static str {
        match self {
            XactStatus::InProgress => "in progress when the cluster stopped",
            XactStatus::Committed => "committed",
            XactStatus::Aborted => "aborted",
            XactStatus::SubCommitted => "sub-committed, parent never committed",
        }
    }

    /// Whether the transaction's work counts once every transaction has
    /// ended: only a commit does (in progress at the stop means cut off by
    /// the crash or shutdown; a lone sub-commit means the parent did not commit).
    pub fn committed(self) -> bool {
        self == XactStatus::Committed
    }
}

/// The row lock a lock-only xmax holds (heapam's `HEAP_XMAX_IS_*_LOCKED`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockMode {
    /// `HEAP_XMAX_SHR_LOCK`: SELECT … FOR SHARE.
    ForShare,
    /// `HEAP_XMAX_EXCL_LOCK` with `HEAP_KEYS_UPDATED`: SELECT … FOR UPDATE.
    ForUpdate,
    /// `HEAP_XMAX_EXCL_LOCK` alone: SELECT … FOR NO KEY UPDATE.
    ForNoKeyUpdate,
    /// `HEAP_XMAX_KEYSHR_LOCK`: SELECT … FOR KEY SHARE.
    ForKeyShare,
    /// A multixact's infomask carries no mode: each member has its own.
    InMultixactMembers,
}

impl LockMode {
    /// The mode as SQL spells it (`FOR SHARE`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            LockMode::ForShare => "FOR SHARE",
            LockMode::ForUpdate => "FOR UPDATE",
            LockMode::ForNoKeyUpdate => "FOR NO KEY UPDATE",
            LockMode::ForKeyShare => "FOR KEY SHARE",
            LockMode::InMultixactMembers => "lock mode in multixact members",
        }
    }
}

/// What an xmax that is not only a lock did to the row, read from `t_ctid`
/// and `HEAP_HOT_UPDATED`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// `t_ctid` is the tuple's own TID: `heap_delete`.
    Deleted,
    /// `t_ctid` points at a newer version: `heap_update` (`hot` =
    /// `HEAP_HOT_UPDATED`).
    Updated {
        /// t_ctid: the TID of the newer version.
        next: ItemPointer,
        /// `HEAP_HOT_UPDATED`: the newer version is a heap-only tuple.
        hot: bool,
    },
    /// `t_ctid` has the tuple's own offset in another block: a delete seen
    /// under a wrong block number, or an update into that block.
    DeletedOrUpdated,
    /// `t_ctid` offset `MovedPartitionsOffsetNumber`: an UPDATE moved the row
    /// to another partition.
    MovedToPartition,
}

/// What `t_xmax` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Xmax {
    /// `t_xmax` is 0.
    None,
    /// `HEAP_XMAX_INVALID` on a non-zero xmax: its delete or update aborted
    /// (`lock_only`: the lock it held is no longer held).
    Invalid {
        /// t_xmax: the aborted transaction (or multixact) id.
        xmax: u32,
        /// `HEAP_XMAX_IS_MULTI`: `xmax` is a MultiXactId.
        multi: bool,
        /// `HEAP_XMAX_IS_LOCKED_ONLY`: it was a lock, not a delete or update.
        lock_only: bool,
    },
    /// A lock-only xmax (`HEAP_XMAX_IS_LOCKED_ONLY`): the row is locked, not deleted.
    Locked {
        /// t_xmax: the locking transaction (or multixact) id.
        xmax: u32,
        /// `HEAP_XMAX_IS_MULTI`: `xmax` is a MultiXactId.
        multi: bool,
        /// The row lock held.
        mode: LockMode,
    },
    /// A delete or update by `xmax` (a multixact when `multi`), committed
    /// only when `HEAP_XMAX_COMMITTED` says so.
    Changed {
        /// t_xmax: the deleting or updating transaction (or multixact) id.
        xmax: u32,
        /// `HEAP_XMAX_IS_MULTI`: `xmax` is a MultiXactId.
        multi: bool,
        /// Deleted or updated, from `t_ctid`.
        change: Change,
        /// `HEAP_XMAX_COMMITTED` is set.
        committed: bool,
        /// Without the hint bit: what the data directory's pg_xact says.
        xact: Option<XactStatus>,
    },
}

/// What a heap tuple header proves about the row.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TupleVerdict {
    /// t_xmin: the inserting transaction id.
    pub xmin: u32,
    /// What the xmin hint bits say about the inserter.
    pub xmin_status: XidStatus,
    /// What t_xmax says.
    pub xmax: Xmax,
    /// `HEAP_ONLY_TUPLE`.
    pub heap_only: bool,
    /// `HEAP_MOVED_OFF` / `HEAP_MOVED_IN` (pre-9.0 VACUUM FULL).
    pub moved_by_vacuum_full: bool,
}

/// What a line pointer (and its tuple, when it has one) says, in one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ItemVerdict {
    /// `LP_UNUSED`.
    Unused,
    /// `LP_REDIRECT` to the offset `to`.
    Redirect {
        /// lp_off of the redirect: the offset number it points to.
        to: u16,
    },
    /// `LP_DEAD`, with or without storage.
    Dead {
        /// lp_len is non-zero: the dead item still has its tuple.
        storage: bool,
    },
    /// `LP_NORMAL` whose `lp_off`/`lp_len` hold no readable tuple.
    Unreadable {
        /// lp_off: the tuple's claimed byte offset in the page.
        lp_off: u16,
        /// lp_len: the tuple's claimed length in bytes.
        lp_len: u16,
    },
    /// `LP_NORMAL` with a readable heap tuple header.
    Tuple(TupleVerdict),
}

const NOT_ON_PAGE: &str = "commit status not on the page";

impl fmt::Display for XidStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            XidStatus::Committed => "committed",
            XidStatus::Aborted => "aborted",
            XidStatus::Frozen => "frozen",
            XidStatus::NotOnPage => "(commit status not on the page)",
            XidStatus::PerXact(s) => return write!(f, "{} (per pg_xact)", s.as_str()),
        })
    }
}

impl fmt::Display for TupleVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let xmin = self.xmin;
        write!(f, "xmin {xmin} {}; ", self.xmin_status)?;
        // The row's life, said only as far as xmin's status allows.
        let cond = Conditional((self.xmin_status == XidStatus::NotOnPage).then_some(xmin));
        if self.xmin_status == XidStatus::Aborted {
            f.write_str("dead (insert aborted)")?;
        } else if matches!(self.xmin_status, XidStatus::PerXact(s) if !s.committed()) {
            f.write_str("dead (insert did not commit)")?;
        } else {
            match self.xmax {
                Xmax::None => write!(f, "xmax invalid: live{cond}")?,
                Xmax::Invalid {
                    xmax,
                    multi,
                    lock_only,
                } => {
                    let by = if multi { "multixact " } else { "" };
                    if lock_only {
                        write!(f, "lock by {by}{xmax} ended: live{cond}")?;
                    } else {
                        write!(f, "xmax {by}{xmax} aborted: live{cond}")?;
                    }
                }
                Xmax::Locked {
                    xmax,
                    multi: true,
                    mode,
                } => write!(f, "locked by multixact {xmax} ({})", mode.as_str())?,
                Xmax::Locked {
                    xmax,
                    multi: false,
                    mode,
                } => write!(f, "locked by {xmax} ({}), not deleted", mode.as_str())?,
                Xmax::Changed {
                    xmax,
                    multi,
                    change,
                    committed,
                    xact,
                } => {
                    let verb = match change {
                        Change::Deleted => "deleted",
                        Change::Updated { hot: true, .. } => "HOT-updated",
                        Change::Updated { hot: false, .. } => "updated",
                        Change::DeletedOrUpdated => "deleted or updated",
                        Change::MovedToPartition => "moved to another partition",
                    };
                    let by = if multi { "multixact " } else { "" };
                    write!(f, "{verb} by {by}{xmax}")?;
                    match (committed, multi, xact) {
                        (true, _, _) => f.write_str(" committed")?,
                        (false, false, Some(XactStatus::Committed)) => {
                            f.write_str(" (committed, per pg_xact)")?
                        }
                        (false, false, Some(s)) => {
                            write!(f, " ({}, per pg_xact): live{cond}", s.as_str())?
                        }
                        (false, false, None) => write!(f, " if {xmax} committed ({NOT_ON_PAGE})")?,
                        (false, true, Some(s)) => write!(
                            f,
                            " (its updater {}, per pg_xact and pg_multixact){}",
                            s.as_str(),
                            if s.committed() { "" } else { ": live" }
                        )?,
                        (false, true, None) => {
                            write!(f, " if its updater committed ({NOT_ON_PAGE})")?
                        }
                    }
                    let known = committed || xact == Some(XactStatus::Committed);
                    if let (true, Change::Updated { next, .. }) = (known, change) {
                        write!(f, "; next version at {next}")?;
                    }
                }
            }
        }
        if self.heap_only {
            f.write_str("; heap-only tuple")?;
        }
        if self.moved_by_vacuum_full {
            f.write_str("; moved by old VACUUM FULL")?;
        }
        Ok(())
    }
}

/// " if N committed" when the row's life depends on an unhinted xmin N.
struct Conditional(Option<u32>);

impl fmt::Display for Conditional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(xmin) => write!(f, " if {xmin} committed"),
            None => Ok(()),
        }
    }
}

impl fmt::Display for ItemVerdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ItemVerdict::Unused => f.write_str("unused"),
            ItemVerdict::Redirect { to } => write!(f, "redirect → {to} (HOT chain root)"),
            ItemVerdict::Dead { storage: false } => f.write_str("dead (pruned, no storage)"),
            ItemVerdict::Dead { storage: true } => f.write_str("dead (storage kept)"),
            ItemVerdict::Unreadable { lp_off, lp_len } => {
                write!(f, "normal, but {lp_off}+{lp_len} holds no readable tuple")
            }
            ItemVerdict::Tuple(t) => t.fmt(f),
        }
    }
}

/// Serialised as its words, the same text the table shows.
impl Serialize for ItemVerdict {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tuple(xmin_status: XidStatus, xmax: Xmax) -> String {
        ItemVerdict::Tuple(TupleVerdict {
            xmin: 10,
            xmin_status,
            xmax,
            heap_only: false,
            moved_by_vacuum_full: false,
        })
        .to_string()
    }

    #[test]
    fn unhinted_transactions_are_said_conditionally() {
        assert_eq!(
            tuple(XidStatus::NotOnPage, Xmax::None),
            "xmin 10 (commit status not on the page); xmax invalid: live if 10 committed"
        );
        let deleted = Xmax::Changed {
            xmax: 11,
            multi: false,
            change: Change::Deleted,
            xact: None,
            committed: false,
        };
        assert_eq!(
            tuple(XidStatus::Committed, deleted),
            "xmin 10 committed; deleted by 11 if 11 committed (commit status not on the page)"
        );
        let updated = Xmax::Changed {
            xmax: 11,
            multi: false,
            change: Change::Updated {
                next: ItemPointer {
                    block: 0,
                    offset: 6,
                },
                hot: true,
            },
            committed: false,
            xact: None,
        };
        let text = tuple(XidStatus::Committed, updated);
        assert!(!text.contains("next version"), "{text}");
    }

    #[test]
    fn pg_xact_answers_what_the_page_does_not() {
        let deleted = |xact| Xmax::Changed {
            xmax: 741,
            multi: false,
            change: Change::Deleted,
            committed: false,
            xact: Some(xact),
        };
        assert_eq!(
            tuple(
                XidStatus::PerXact(XactStatus::Committed),
                deleted(XactStatus::Committed)
            ),
            "xmin 10 committed (per pg_xact); deleted by 741 (committed, per pg_xact)"
        );
        assert_eq!(
            tuple(XidStatus::Committed, deleted(XactStatus::InProgress)),
            "xmin 10 committed; deleted by 741 (in progress when the cluster stopped, per \
             pg_xact): live"
        );
        assert_eq!(
            tuple(XidStatus::PerXact(XactStatus::Aborted), Xmax::None),
            "xmin 10 aborted (per pg_xact); dead (insert did not commit)"
        );
    }

    #[test]
    fn hinted_transactions_are_facts() {
        let updated = Xmax::Changed {
            xmax: 11,
            multi: false,
            change: Change::Updated {
                next: ItemPointer {
                    block: 0,
                    offset: 6,
                },
                hot: true,
            },
            committed: true,
            xact: None,
        };
        assert_eq!(
            tuple(XidStatus::Committed, updated),
            "xmin 10 committed; HOT-updated by 11 committed; next version at (0,6)"
        );
        assert_eq!(
            tuple(
                XidStatus::Committed,
                Xmax::Invalid {
                    xmax: 11,
                    multi: false,
                    lock_only: false
                }
            ),
            "xmin 10 committed; xmax 11 aborted: live"
        );
        assert_eq!(
            tuple(XidStatus::Aborted, Xmax::None),
            "xmin 10 aborted; dead (insert aborted)"
        );
        assert_eq!(
            tuple(XidStatus::Frozen, Xmax::None),
            "xmin 10 frozen; xmax invalid: live"
        );
    }

    #[test]
    fn serialises_as_its_words() {
        let v = ItemVerdict::Redirect { to: 10 };
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            "\"redirect → 10 (HOT chain root)\""
        );
    }
}
