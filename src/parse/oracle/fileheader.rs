//! More of a datafile header (`kcvfh`, type 0x0b) than the identity fields:
//! what a DBA reads to judge whether a file needs recovery. The offsets are
//! those BBED's `print kcvfh` shows (10g and 11g sessions published with
//! their values; fixtures/oracle/README.md names them): `kccfhacid` 56,
//! `kcvfhbsc` 128, `kcvfhrts` 144, `kcvfhprc` 416, `kcvfhprs` 420, and in
//! `kcvfhckp` (484) `kcvcpthr` 496 and `kcvcprba` 500 (`kcrbaseq` 500,
//! `kcrbabno` 504, `kcrbabof` 508).

use crate::model::oracle::{
    kcvfhsta_names, oracle_time_text, FileHeader, FileRecovery, Rba, Scn, KCVFH_FUZZY,
};
use crate::model::span::Region;
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

/// The datafile header (`kcvfh`) of block 1, type 0x0b.
pub(crate) fn read_file_header(r: &mut Reader) -> Result<FileHeader, ReadError> {
    r.set_context(Region::TupleHeader, None);
    let kccfhcvn = r.u32(24, "kcvfh.kccfhcvn")?;
    r.show_last(format!("0x{kccfhcvn:08x}"));
    let kccfhdbi = r.u32(28, "kcvfh.kccfhdbi")?;
    let kccfhfsz = r.u32(44, "kcvfh.kccfhfsz")?;
    let kccfhbsz = r.u32(48, "kcvfh.kccfhbsz")?;
    let kccfhfno = r.u16(52, "kcvfh.kccfhfno")?;
    let kcvfhtsn = r.u32(332, "kcvfh.kcvfhtsn")?;
    let kcvfhrfn = r.u32(368, "kcvfh.kcvfhrfn")?;
    let text = |r: &mut Reader, at: usize, len: usize, field: &str| -> Result<String, ReadError> {
        let b = r.bytes(at, len, field)?;
        let s: String = b
            .iter()
            .map(|&c| {
                if (0x20..0x7f).contains(&c) {
                    c as char
                } else {
                    ' '
                }
            })
            .collect();
        Ok(s.trim().to_string())
    };
    let scn = |r: &mut Reader, at: usize, field: &str| -> Result<Scn, ReadError> {
        Ok(Scn {
            kscnbas: r.u32(at, field)?,
            kscnwrp: r.u16(at + 4, field)?,
            kscnwrp2: 0,
        })
    };
    let kccfhdbn = text(r, 32, 8, "kcvfh.kccfhdbn")?;
    let kccfhcsq = r.u32(40, "kcvfh.kccfhcsq")?;
    let kccfhtyp = r.u16(54, "kcvfh.kccfhtyp")?;
    let kcvfhrdb = r.u32(96, "kcvfh.kcvfhrdb")?;
    let kcvfhcrs = scn(r, 100, "kcvfh.kcvfhcrs")?;
    let kcvfhcrt = r.u32(108, "kcvfh.kcvfhcrt")?;
    let kcvfhrlc = r.u32(112, "kcvfh.kcvfhrlc")?;
    let kcvfhrls = scn(r, 116, "kcvfh.kcvfhrls")?;
    let kcvfhsta = r.u16(138, "kcvfh.kcvfhsta")?;
    let kcvfhcpc = r.u32(140, "kcvfh.kcvfhcpc")?;
    let kcvfhccc = r.u32(148, "kcvfh.kcvfhccc")?;
    let tln = usize::from(r.u16(336, "kcvfh.kcvfhtln")?).min(30);
    let kcvfhtnm = text(r, 338, tln, "kcvfh.kcvfhtnm")?;
    let kcvfhckp_scn = scn(r, 484, "kcvfh.kcvfhckp")?;
    let kcvfhckp_time = r.u32(492, "kcvfh.kcvcptim")?;
    let recovery = read_recovery(r, kcvfhcrt, kcvfhckp_time, kcvfhsta)?;
    Ok(FileHeader {
        kccfhcvn,
        kccfhdbi,
        kccfhfsz,
        kccfhbsz,
        kccfhfno,
        kcvfhtsn,
        kcvfhrfn,
        kccfhdbn,
        kccfhcsq,
        kccfhtyp,
        kcvfhrdb,
        kcvfhcrs,
        kcvfhcrt,
        kcvfhrlc,
        kcvfhrls,
        kcvfhsta,
        kcvfhcpc,
        kcvfhccc,
        kcvfhtnm,
        kcvfhckp_scn,
        kcvfhckp_time,
        recovery,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::oracle::oracle_time_parts;
    use crate::reader::Endian;

    #[test]
    fn time_words_decode_as_published() {
        // The words a post computed in SQL from v$datafile's times.
        assert_eq!(oracle_time_text(972_599_871), "04/04/2018 22:37:51");
        assert_eq!(oracle_time_text(972_923_682), "04/08/2018 16:34:42");
        assert_eq!(oracle_time_text(0), "01/01/1988 00:00:00");
        // Every word decodes to a calendar-shaped value (months of 31 days).
        let (y, mo, d, h, mi, s) = oracle_time_parts(u32::MAX);
        assert!(y > 2100 && (1..=12).contains(&mo) && (1..=31).contains(&d));
        assert!(h < 24 && mi < 60 && s < 60);
    }

    #[test]
    fn status_bits_are_named_and_fuzziness_follows_kcvfh_fuzzy() {
        assert_eq!(kcvfhsta_names(0x2004), vec!["KCVFHOFZ", "KCVFHRBS"]);
        assert_eq!(kcvfhsta_names(0x0002), vec!["0x0002"]);
        let b = vec![0u8; 1024];
        let fuzzy = |sta| {
            read_recovery(&mut Reader::new(&b, Endian::Little), 0, 0, sta)
                .unwrap()
                .fuzzy
        };
        assert!(fuzzy(0x0004) && fuzzy(0x4000) && !fuzzy(0x2000) && !fuzzy(0));
    }

    #[test]
    fn recovery_fields_read_in_both_byte_orders() {
        for endian in [Endian::Little, Endian::Big] {
            let mut b = vec![0u8; 1024];
            let mut put = |at: usize, v: u32, len: usize| {
                let bytes = match endian {
                    Endian::Little => v.to_le_bytes(),
                    Endian::Big => v.to_be_bytes(),
                };
                match (endian, len) {
                    (_, 4) => b[at..at + 4].copy_from_slice(&bytes),
                    (Endian::Little, _) => b[at..at + 2].copy_from_slice(&bytes[..2]),
                    (Endian::Big, _) => b[at..at + 2].copy_from_slice(&bytes[2..]),
                }
            };
            put(56, 7, 4);
            put(128, 0x1234, 4);
            put(496, 1, 2);
            put(500, 0x35, 4);
            put(504, 2, 4);
            put(508, 0x10, 2);
            put(416, 99, 4);
            put(420, 5, 4);
            let mut r = Reader::new(&b, endian);
            let f = read_recovery(&mut r, 0, 972_923_682, 0x0001).unwrap();
            assert_eq!(f.kccfhacid, 7);
            assert_eq!(f.kcvfhbsc.kscnbas, 0x1234);
            assert_eq!(f.kcvcpthr, 1);
            assert_eq!(
                (
                    f.kcvcprba.kcrbaseq,
                    f.kcvcprba.kcrbabno,
                    f.kcvcprba.kcrbabof
                ),
                (0x35, 2, 0x10)
            );
            assert_eq!((f.kcvfhprc, f.kcvfhprs.kscnbas), (99, 5));
            assert_eq!(f.checkpoint_time, "04/08/2018 16:34:42");
            assert_eq!(f.kcvfhsta_names, vec!["KCVFHHBP"]);
            assert!(f.fuzzy);
        }
        // Cut short: an error, no panic.
        let b = vec![0u8; 100];
        assert!(read_recovery(&mut Reader::new(&b, Endian::Little), 0, 0, 0).is_err());
    }
}
