//! Which rows a query would return once every transaction in the cluster
//! has ended: heapam_visibility.c's rules (`HeapTupleSatisfiesMVCC`) for a
//! snapshot taken after the last transaction, with the commit status read
//! from the hint bits first and, where they are not set, from pg_xact (and
//! pg_multixact for a multixact xmax) through [`XactLookup`].
//!
//! - xmin must have committed (or be frozen); aborted, and in progress when
//!   the cluster stopped (cut off by a crash or an immediate shutdown: the
//!   server would mark it aborted at its next start), mean the row was never
//!   inserted. A lone sub-commit means the parent did not commit.
//! - xmax must then be invalid, aborted (or in progress at the stop), only a
//!   lock (`HEAP_XMAX_IS_LOCKED_ONLY`), or a multixact whose updating member
//!   did not commit (a multixact of lockers only leaves the row alone).
//! - A committed xmax removed the row: a DELETE when `t_ctid` is the tuple's
//!   own TID (heap_delete sets it so), an UPDATE when it points at the newer
//!   version (heap_update), or a move to another partition
//!   (`MovedPartitionsOffsetNumber`).

use crate::model::postgres::verdict::{ItemVerdict, XidStatus, Xmax};
use crate::model::postgres::{HeapTupleHeader, ItemPointer, PgPage};

use super::clog::{MemberStatus, XactStatus};
use crate::model::postgres::flags::{
    HEAP_XMAX_COMMITTED, HEAP_XMAX_EXCL_LOCK, HEAP_XMAX_INVALID, HEAP_XMAX_IS_MULTI,
    HEAP_XMAX_KEYSHR_LOCK, HEAP_XMAX_LOCK_ONLY, HEAP_XMIN_COMMITTED, HEAP_XMIN_INVALID,
};

const MOVED_PARTITIONS_OFFSET: u16 = 0xFFFD;

/// Commit status lookups: pg_xact and pg_multixact of a data directory.
pub(crate) trait XactLookup {
    /// A transaction's status; `Err` says why it is unknown.
    fn xact_status(&self, xid: u32) -> Result<XactStatus, String>;
    /// A multixact's members (xid, status); `Err` says why they are unknown.
    fn multi_members(&self, multi: u32) -> Result<Vec<(u32, MemberStatus)>, String>;
}

/// What became of a tuple version once every transaction ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RowStatus {
    /// Inserted by a committed transaction, not deleted or updated since: a
    /// query returns it.
    Live,
    /// Removed by a committed DELETE (its bytes are still on the page).
    Deleted {
        /// The deleting transaction (for a multixact xmax, its updater).
        xmax: u32,
    },
    /// An old version, replaced by a committed UPDATE (or moved to
    /// another partition).
    Updated {
        /// The updating transaction.
        xmax: u32,
    },
    /// Its insert did not commit (aborted, or in progress when the cluster stopped).
    Aborted {
        /// The inserting transaction.
        xmin: u32,
    },
    /// The commit status is unknown: no hint bit, and pg_xact (or
    /// pg_multixact) not available or unreadable there.
    Undecided {
        /// Which transaction is undecided and why.
        reason: String,
    },
}

impl RowStatus {
    /// The word for export's status column and JSON: `live`, `deleted`,
    /// `updated`, `aborted`, `undecided`.
    pub(crate) fn name(&self) -> &'static str {
        match self {
            RowStatus::Live => "live",
            RowStatus::Deleted { .. } => "deleted",
            RowStatus::Updated { .. } => "updated",
            RowStatus::Aborted { .. } => "aborted",
            RowStatus::Undecided { .. } => "undecided",
        }
    }
}

/// The outcome and whether pg_xact was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Decision {
    /// What became of the tuple version.
    pub(crate) status: RowStatus,
    /// pg_xact or pg_multixact was consulted (a hint bit was missing).
    pub(crate) looked_up: bool,
}

/// `HEAP_XMAX_IS_LOCKED_ONLY` (htup_details.h).
pub(crate) fn xmax_is_locked_only(infomask: u16) -> bool {
    infomask & HEAP_XMAX_LOCK_ONLY != 0
        || (infomask & (HEAP_XMAX_IS_MULTI | HEAP_XMAX_EXCL_LOCK | HEAP_XMAX_KEYSHR_LOCK))
            == HEAP_XMAX_EXCL_LOCK
}

/// Decide tuple `h` at `self_tid` (its block and line pointer).
pub(crate) fn decide(
    h: &HeapTupleHeader,
    self_tid: ItemPointer,
    log: Option<&dyn XactLookup>,
) -> Decision {
    let m = h.t_infomask;
    let mut looked_up = false;
    let mut ask = |xid: u32| -> Result<XactStatus, String> {
        looked_up = true;
        match log {
            Some(l) => l.xact_status(xid),
            None => Err(format!("no hint bit for {xid}, and no pg_xact")),
        }
    };
    // xmin
    let xmin_committed = if m & HEAP_XMIN_COMMITTED != 0 {
        Ok(true)
    } else if m & HEAP_XMIN_INVALID != 0 {
        Ok(false)
    } else {
        match h.t_xmin {
            0 => Ok(false),
            1 | 2 => Ok(true),
            x => ask(x).map(XactStatus::committed),
        }
    };
    match xmin_committed {
        Ok(true) => {}
        Ok(false) => {
            return Decision {
                status: RowStatus::Aborted { xmin: h.t_xmin },
                looked_up,
            }
        }
        Err(e) => {
            return Decision {
                status: RowStatus::Undecided {
                    reason: format!("xmin {}: {e}", h.t_xmin),
                },
                looked_up,
            }
        }
    }
    // xmax
    let xmax = h.t_xmax;
    let live = |looked_up| Decision {
        status: RowStatus::Live,
        looked_up,
    };
    if xmax == 0 || m & HEAP_XMAX_INVALID != 0 || xmax_is_locked_only(m) {
        return live(looked_up);
    }
    let changer = if m & HEAP_XMAX_IS_MULTI != 0 {
        looked_up = true;
        let members = match log {
            Some(l) => l.multi_members(xmax),
            None => Err("no pg_multixact".to_string()),
        };
        let members = match members {
            Ok(ms) => ms,
            Err(e) => {
                return Decision {
                    status: RowStatus::Undecided {
                        reason: format!("xmax multixact {xmax}: {e}"),
                    },
                    looked_up,
                }
            }
        };
        let Some(&(updater, _)) = members.iter().find(|(_, s)| s.is_update()) else {
            return live(looked_up);
        };
        let Some(l) = log else {
            return live(looked_up);
        };
        match l.xact_status(updater) {
            Ok(s) if s.committed() => updater,
            Ok(_) => return live(looked_up),
            Err(e) => {
                return Decision {
                    status: RowStatus::Undecided {
                        reason: format!("xmax multixact {xmax}'s updater {updater}: {e}"),
                    },
                    looked_up,
                }
            }
        }
    } else if m & HEAP_XMAX_COMMITTED != 0 {
        xmax
    } else {
        match ask(xmax) {
            Ok(s) if s.committed() => xmax,
            Ok(_) => return live(looked_up),
            Err(e) => {
                return Decision {
                    status: RowStatus::Undecided {
                        reason: format!("xmax {xmax}: {e}"),
                    },
                    looked_up,
                }
            }
        }
    };
    // A moved-to-another-partition row keeps MovedPartitionsOffsetNumber:
    // an update, not a delete, like any ctid other than its own.
    let status = if h.t_ctid == self_tid && h.t_ctid.offset != MOVED_PARTITIONS_OFFSET {
        RowStatus::Deleted { xmax: changer }
    } else {
        RowStatus::Updated { xmax: changer }
    };
    Decision { status, looked_up }
}

/// What pg_xact says about the unhinted xmin and xmax of every tuple's
/// verdict on `page` (a multixact xmax is left as the page says it).
pub(crate) fn resolve_verdicts(page: &mut PgPage, log: &dyn XactLookup) {
    for item in &mut page.items {
        let ItemVerdict::Tuple(v) = &mut item.verdict else {
            continue;
        };
        if v.xmin_status == XidStatus::NotOnPage {
            if let Ok(s) = log.xact_status(v.xmin) {
                v.xmin_status = XidStatus::PerXact(s);
            }
        }
        if let Xmax::Changed {
            xmax,
            multi,
            committed: false,
            xact,
            ..
        } = &mut v.xmax
        {
            let status = if *multi {
                // The updating member's status (a changed row has one).
                log.multi_members(*xmax).ok().and_then(|ms| {
                    let (u, _) = ms.into_iter().find(|(_, s)| s.is_update())?;
                    log.xact_status(u).ok()
                })
            } else {
                log.xact_status(*xmax).ok()
            };
            if status.is_some() {
                *xact = status;
            }
        }
    }
}
