//! More of a datafile header (`kcvfh`, type 0x0b) than the identity fields:
//! what a DBA reads to judge whether a file needs recovery. The offsets are
//! those BBED's `print kcvfh` shows (10g and 11g sessions published with
//! their values; fixtures/oracle/README.md names them): `kccfhacid` 56,
//! `kcvfhbsc` 128, `kcvfhrts` 144, `kcvfhprc` 416, `kcvfhprs` 420, and in
//! `kcvfhckp` (484) `kcvcpthr` 496 and `kcvcprba` 500 (`kcrbaseq` 500,
//! `kcrbabno` 504, `kcrbabof` 508).

use crate::model::oracle::{kcvfhsta_names, oracle_time_text, FileRecovery, Rba, Scn, KCVFH_FUZZY};
use crate::reader::{ReadError, Reader};

fn scn(r: &mut Reader, at: usize, field: &str) -> Result<Scn, ReadError> {
    Ok(Scn {
        kscnbas: r.u32(at, field)?,
        kscnwrp: r.u16(at + 4, field)?,
        kscnwrp2: 0,
    })
}

/// Read the recovery fields; `crt`, `ckp_time` and `sta` are the words the
/// caller read already (`kcvfhcrt`, `kcvcptim`, `kcvfhsta`).
pub(crate) fn read_recovery(
    r: &mut Reader,
    crt: u32,
    ckp_time: u32,
    sta: u16,
) -> Result<FileRecovery, ReadError> {
    Ok(FileRecovery {
        kccfhacid: r.u32(56, "kcvfh.kccfhacid")?,
        kcvfhbsc: scn(r, 128, "kcvfh.kcvfhbsc")?,
        kcvfhrts: r.u32(144, "kcvfh.kcvfhrts")?,
        kcvcpthr: r.u16(496, "kcvfh.kcvcpthr")?,
        kcvcprba: Rba {
            kcrbaseq: r.u32(500, "kcvfh.kcrbaseq")?,
            kcrbabno: r.u32(504, "kcvfh.kcrbabno")?,
            kcrbabof: r.u16(508, "kcvfh.kcrbabof")?,
        },
        kcvfhprc: r.u32(416, "kcvfh.kcvfhprc")?,
        kcvfhprs: scn(r, 420, "kcvfh.kcvfhprs")?,
        creation_time: oracle_time_text(crt),
        checkpoint_time: oracle_time_text(ckp_time),
        kcvfhsta_names: kcvfhsta_names(sta),
        fuzzy: sta & KCVFH_FUZZY != 0,
    })
}
