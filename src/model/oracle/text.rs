//! The text forms Oracle's dumps give to transaction ids, undo addresses and
//! SCNs of an ITL entry.

use super::Itl;

/// `0x0007.01d.000001d0`.
pub fn xid_text(itl: &Itl) -> String {
    format!(
        "0x{:04x}.{:03x}.{:08x}",
        itl.kxidusn, itl.kxidslt, itl.kxidsqn
    )
}

/// `0x00000987.0390.27`.
pub fn uba_text(itl: &Itl) -> String {
    format!(
        "0x{:08x}.{:04x}.{:02x}",
        itl.kubadba, itl.kubaseq, itl.kubarec
    )
}

/// `fsc 0x0000.004e9af4` or `scn 0x…` when committed.
pub fn scn_fsc_text(itl: &Itl) -> String {
    format!(
        "{} 0x{:04x}.{:08x}",
        if itl.committed() { "scn" } else { "fsc" },
        itl.ktbitun,
        itl.ktbitbas
    )
}
