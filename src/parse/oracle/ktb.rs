//! The transaction layer: `ktbbh` (24 bytes at offset 20), the ITL list, and
//! the 8-byte ASSM extension whose presence moves the data header (§3).

use crate::model::oracle::{
    Itl, Ktbbh, KtbbhExtension, Scn, ITL_SIZE, KCBH_SIZE, KTBBH_EXTENSION_SIZE, KTBBH_FIXED_SIZE,
    TAIL_SIZE,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{ReadError, Reader};

use crate::model::oracle::names;

/// Offset of the ITL list.
pub(crate) const ITL_OFFSET: usize = KCBH_SIZE + KTBBH_FIXED_SIZE;

/// The payload (data or index header) offset: 44 + 24·itc, plus 8 when the
/// flag carries the ASSM extension bits 0x30 (§3.4).
pub(crate) fn payload_offset(itc: usize, ktbbhflg: u8) -> usize {
    ITL_OFFSET
        + ITL_SIZE * itc
        + if ktbbhflg & 0x30 != 0 {
            KTBBH_EXTENSION_SIZE
        } else {
            0
        }
}

/// Moved to [`crate::model::oracle::text`]; kept at their old path for code not yet updated.
pub(crate) use crate::model::oracle::text::{uba_text, xid_text};

/// Read the transaction header and ITLs. Strange values become problems; only
/// a header cut short is an error.
pub(crate) fn read_ktbbh(
    r: &mut Reader,
    size: usize,
    problems: &mut Vec<Problem>,
) -> Result<Ktbbh, ReadError> {
    r.set_context(Region::Header, None);
    r.peek(KCBH_SIZE, KTBBH_FIXED_SIZE, "ktbbh")?;
    let ktbbhtyp = r.u8(20, "ktbbh.ktbbhtyp")?;
    r.show_last(match ktbbhtyp {
        1 => "1 DATA".to_string(),
        2 => "2 INDEX".to_string(),
        n => format!("{n} (unknown)"),
    });
    r.mark(21, 3, "ktbbh pad", String::new());
    let ktbbhsid = r.u32(24, "ktbbh.ktbbhsid")?;
    r.show_last(format!("seg/obj 0x{ktbbhsid:x}"));
    let kscnbas = r.u32(28, "ktbbh.ktbbhcsc.kscnbas")?;
    r.show_last(format!("0x{kscnbas:08x}"));
    let kscnwrp = r.u16(32, "ktbbh.ktbbhcsc.kscnwrp")?;
    r.show_last(format!("0x{kscnwrp:04x}"));
    let kscnwrp2 = r.u16(34, "ktbbh.ktbbhcsc.kscnwrp2")?;
    let ktbbhict = r.u8(36, "ktbbh.ktbbhict")?;
    let ict_high = r.u8(37, "ktbbh.ktbbhict+1")?;
    let ktbbhflg = r.u8(38, "ktbbh.ktbbhflg")?;
    r.show_last(format!(
        "0x{ktbbhflg:02x} {}",
        names::ktbbh_flag_letter(ktbbhflg)
    ));
    let assm = ktbbhflg & 0x30 != 0;
    let ktbbhfsl = r.u8(39, if assm { "ktbbh.brn" } else { "ktbbh.ktbbhfsl" })?;
    let ktbbhfnx = r.u32(40, if assm { "ktbbh.bdba" } else { "ktbbh.ktbbhfnx" })?;
    r.show_last(format!("0x{ktbbhfnx:08x}"));
    if ict_high != 0 {
        problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Ktbbh,
            Some(37),
            "ktbbh.ktbbhict+1",
            format!("byte after the ITL count is 0x{ict_high:02x} (usually 0; meaning unknown)"),
        ));
    }
    if ktbbhflg & 0x02 == 0 {
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Ktbbh,
            Some(38),
            "ktbbh.ktbbhflg",
            format!("ktbbhflg 0x{ktbbhflg:02x} lacks bit 0x02, set in every block seen"),
        ));
    }

    // ITLs that fit between the header and the tail.
    let room = size.saturating_sub(ITL_OFFSET + TAIL_SIZE) / ITL_SIZE;
    let mut itc = usize::from(ktbbhict);
    if itc == 0 {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Ktbbh,
            Some(36),
            "ktbbh.ktbbhict",
            "ITL count is 0; every transaction-managed block has at least one ITL",
        ));
    }
    if itc > room {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Ktbbh,
            Some(36),
            "ktbbh.ktbbhict",
            format!("ITL count {itc} does not fit in a {size}-byte block (room for {room})"),
        ));
        itc = room;
    }
    let mut itls = Vec::with_capacity(itc);
    for i in 0..itc {
        itls.push(read_itl(r, i + 1)?);
    }
    for itl in &itls {
        if itl.lock_count() > 0 && itl.committed() {
            problems.push(Problem::new(
                Severity::Warning,
                ProblemClass::Itl,
                Some(ITL_OFFSET + ITL_SIZE * (itl.itl - 1) + 16),
                format!("itl[{}].ktbitflg", itl.itl),
                format!(
                    "ITL {} is committed and cleaned out (C) but still counts {} locks",
                    itl.itl,
                    itl.lock_count()
                ),
            ));
        }
    }

    let payload = payload_offset(itc, ktbbhflg);
    let extension = if assm {
        let at = ITL_OFFSET + ITL_SIZE * itc;
        r.set_context(Region::Header, None);
        let inc = r.u32(at, "ktbbh.inc")?;
        let exflg = r.u32(at + 4, "ktbbh.exflg")?;
        Some(KtbbhExtension { inc, exflg })
    } else {
        None
    };
    Ok(Ktbbh {
        ktbbhtyp,
        ktbbhsid,
        ktbbhcsc: Scn {
            kscnbas,
            kscnwrp,
            kscnwrp2,
        },
        ktbbhict,
        ktbbhflg,
        ktbbhfsl,
        ktbbhfnx,
        ktbbhitl: itls,
        extension,
        payload_offset: payload,
    })
}

fn read_itl(r: &mut Reader, n: usize) -> Result<Itl, ReadError> {
    let at = ITL_OFFSET + ITL_SIZE * (n - 1);
    r.set_context(Region::LinePointer, None);
    let name = |f: &str| format!("itl[{n}].{f}");
    r.peek(at, ITL_SIZE, &name("entry"))?;
    let kxidusn = r.peek_u16(at, &name("kxidusn"))?;
    let kxidslt = r.peek_u16(at + 2, &name("kxidslt"))?;
    let kxidsqn = r.peek_u32(at + 4, &name("kxidsqn"))?;
    let kubadba = r.peek_u32(at + 8, &name("kubadba"))?;
    let kubaseq = r.peek_u16(at + 12, &name("kubaseq"))?;
    let kubarec = r
        .peek(at + 14, 1, &name("kubarec"))?
        .first()
        .copied()
        .unwrap_or(0);
    let ktbitflg = r.peek_u16(at + 16, &name("ktbitflg"))?;
    let ktbitun = r.peek_u16(at + 18, &name("ktbitun"))?;
    let ktbitbas = r.peek_u32(at + 20, &name("ktbitbas"))?;
    let itl = Itl {
        itl: n,
        kxidusn,
        kxidslt,
        kxidsqn,
        kubadba,
        kubaseq,
        kubarec,
        ktbitflg,
        ktbitun,
        ktbitbas,
    };
    r.bytes(at, 8, &name("xid"))?;
    r.show_last(xid_text(&itl));
    r.bytes(at + 8, 7, &name("uba"))?;
    r.show_last(uba_text(&itl));
    r.mark(at + 15, 1, &name("pad"), String::new());
    r.u16(at + 16, &name("ktbitflg"))?;
    r.show_last(format!(
        "0x{ktbitflg:04x} {} lck {}",
        names::itl_flag_string(ktbitflg),
        itl.lock_count()
    ));
    r.u16(at + 18, &name("ktbitun"))?;
    r.show_last(format!(
        "{} 0x{ktbitun:04x}",
        if itl.committed() { "scn wrap" } else { "fsc" }
    ));
    r.u32(at + 20, &name("ktbitbas"))?;
    r.show_last(format!("0x{ktbitbas:08x}"));
    Ok(itl)
}
