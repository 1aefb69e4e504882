//! The cache layer: block 0's OS header, the cache header `kcbh`, the tail, the
//! check value, and the dispatch to the transaction and data layers (§2, §9).

use crate::model::oracle::{
    ByteOrder, Kcbh, OracleBlock, OracleChecksum, OracleKind, OsHeader, KCBH_SIZE, OS_HEADER_MAGIC,
    TAIL_SIZE,
};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::{Endian, ReadError, Reader};

use super::{btype, checksum, read_problem};
use crate::model::oracle::names;

/// How to read one block.
#[derive(Clone, Copy, Debug, Default)]
pub struct BlockOptions {
    /// Block number in its file (position in the input).
    pub blkno: u64,
    /// Byte order; `None` detects it from the tail (or block 0's magic).
    pub endian: Option<Endian>,
}

/// Little-endian `u32` at `at`, without panicking.
fn le32(data: &[u8], at: usize) -> Option<u32> {
    Endian::Little.read_u32(data.get(at..)?)
}

/// Block 0 of a datafile: type byte 0 and the magic 0x7a7b7c7d at offset 28.
fn os_header_endian(data: &[u8]) -> Option<Endian> {
    if data.first() != Some(&0) {
        return None;
    }
    let raw = le32(data, 28)?;
    if raw == OS_HEADER_MAGIC {
        Some(Endian::Little)
    } else if raw.swap_bytes() == OS_HEADER_MAGIC {
        Some(Endian::Big)
    } else {
        None
    }
}

/// The byte order in which the tail repeats the header (SCN base low 16 bits,
/// type, seq): the last 4 bytes read `seq type bas0 bas1` on little-endian
/// platforms and `bas2 bas3 type seq` on big-endian ones.
fn tail_endian(data: &[u8]) -> Option<Endian> {
    let n = data.len();
    if n < KCBH_SIZE + TAIL_SIZE {
        return None;
    }
    let tail = data.get(n - TAIL_SIZE..)?;
    let (ty, seq) = (*data.first()?, *data.get(14)?);
    let little =
        tail.first() == Some(&seq) && tail.get(1) == Some(&ty) && tail.get(2..4) == data.get(8..10);
    let big =
        tail.get(3) == Some(&seq) && tail.get(2) == Some(&ty) && tail.get(0..2) == data.get(10..12);
    match (little, big) {
        (true, _) => Some(Endian::Little),
        (false, true) => Some(Endian::Big),
        _ => None,
    }
}

/// Detect the platform byte order of a block; little-endian when nothing tells.
pub fn detect_endian(data: &[u8]) -> Endian {
    os_header_endian(data)
        .or_else(|| tail_endian(data))
        .unwrap_or(Endian::Little)
}

/// Whether `data` looks like an Oracle datafile block: block 0's OS header, or a
/// known block type at offset 0, a format byte with low nibble 2 at offset 1,
/// and a tail consistent with the header (or a zero check of the XOR).
pub fn looks_like_oracle(data: &[u8]) -> bool {
    if os_header_endian(data).is_some() {
        return true;
    }
    let (Some(&ty), Some(&frmt)) = (data.first(), data.get(1)) else {
        return false;
    };
    if names::block_type_name(ty).is_none() || ty == 0 || frmt & 0x1f != 0x02 {
        return false;
    }
    if tail_endian(data).is_some() {
        return true;
    }
    // A fractured block still has a consistent check value.
    let flg = data.get(15).copied().unwrap_or(0);
    data.len() >= 512
        && flg & 0x04 != 0
        && (checksum::xor16(data, Endian::Little) == 0 || checksum::xor16(data, Endian::Big) == 0)
}

fn order(endian: Endian) -> ByteOrder {
    match endian {
        Endian::Little => ByteOrder::Little,
        Endian::Big => ByteOrder::Big,
    }
}

/// Decode one block. Never fails: what cannot be read becomes a problem.
pub fn parse_block(data: &[u8], opts: &BlockOptions) -> OracleBlock {
    let endian = opts.endian.unwrap_or_else(|| detect_endian(data));
    let mut block = OracleBlock::empty(opts.blkno, data.len(), order(endian), OracleKind::Unknown);
    let mut r = Reader::new(data, endian);

    if !data.is_empty() && data.iter().all(|&b| b == 0) {
        block.kind = OracleKind::Zero;
        r.set_context(Region::FreeSpace, None);
        r.mark(0, data.len(), "zero block", "all zero".to_string());
        block.spans = r.into_spans();
        return block;
    }

    if os_header_endian(data).is_some() {
        block.kind = OracleKind::OsHeader;
        match read_os_header(&mut r) {
            Ok(h) => {
                check_os_header(&h, data.len(), &mut block.problems);
                block.os_header = Some(h);
            }
            Err(e) => block.problems.push(read_problem(
                ProblemClass::Header,
                &e,
                "OS header cut short",
            )),
        }
        block.spans = r.into_spans();
        return block;
    }

    let kcbh = match read_kcbh(&mut r) {
        Ok(h) => h,
        Err(e) => {
            block.problems.push(read_problem(
                ProblemClass::Header,
                &e,
                "block too short for a cache header",
            ));
            block.spans = r.into_spans();
            return block;
        }
    };
    check_kcbh(&kcbh, data.len(), &mut block.problems);

    if data.len() >= KCBH_SIZE + TAIL_SIZE {
        let at = data.len() - TAIL_SIZE;
        r.set_context(Region::Special, None);
        if let Ok(tail) = r.u32(at, "tailchk") {
            r.show_last(format!("0x{tail:08x}"));
            let expected = kcbh.expected_tail();
            if tail != expected {
                block.problems.push(Problem::new(
                    Severity::Error,
                    ProblemClass::Fractured,
                    Some(at),
                    "tailchk",
                    format!(
                        "fractured block: tail 0x{tail:08x} does not match the header \
                         (expected 0x{expected:08x} = SCN base low 16 bits 0x{:04x}, type 0x{:02x}, seq 0x{:02x})",
                        kcbh.bas_kcbh & 0xffff,
                        kcbh.type_kcbh,
                        kcbh.seq_kcbh
                    ),
                ));
            }
            block.tailchk = Some(tail);
        }
    } else {
        block.problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Truncated,
            Some(data.len()),
            "tailchk",
            format!("block of {} bytes has no room for a tail", data.len()),
        ));
    }

    block.checksum = Some(check_value(&kcbh, data, endian, &mut block.problems));
    block.encrypted = kcbh.is_encrypted();

    let body_end = data.len().saturating_sub(TAIL_SIZE);
    if block.encrypted {
        block.kind = btype::lookup(kcbh.type_kcbh).map_or(OracleKind::Other, |t| t.kind);
        r.set_context(Region::Unknown, None);
        r.mark(
            KCBH_SIZE,
            body_end.saturating_sub(KCBH_SIZE),
            "encrypted body",
            format!("{} bytes of ciphertext", body_end.saturating_sub(KCBH_SIZE)),
        );
        block.problems.push(Problem::new(
            Severity::Info,
            ProblemClass::Encrypted,
            Some(15),
            "kcbh.flg_kcbh",
            "encrypted block (flg 0x10): only the cache header and tail are clear text",
        ));
    } else {
        match btype::lookup(kcbh.type_kcbh) {
            Some(t) => (t.parse)(&mut r, &mut block, body_end),
            None => btype::undecoded(&mut r, &mut block, kcbh.type_kcbh, body_end),
        }
    }
    block.kcbh = Some(kcbh);
    cap_problems(&mut block.problems);
    block.spans = r.into_spans();
    block
}

/// At most this many problems are listed for one block; a damaged block can
/// otherwise yield one per row piece and directory entry.
pub(crate) const MAX_PROBLEMS: usize = 200;

fn cap_problems(problems: &mut Vec<Problem>) {
    if problems.len() > MAX_PROBLEMS {
        let more = problems.len() - MAX_PROBLEMS;
        problems.truncate(MAX_PROBLEMS);
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Kind,
            None,
            "block",
            format!("{more} further problems not listed: the block is badly damaged or not what its header says"),
        ));
    }
}

fn read_os_header(r: &mut Reader) -> Result<OsHeader, ReadError> {
    r.set_context(Region::Header, None);
    r.u8(0, "os.type")?;
    let frmt = r.u8(1, "os.frmt")?;
    r.show_last(format!("0x{frmt:02x}"));
    let block_size = r.u32(20, "os.block_size")?;
    let block_count = r.u32(24, "os.block_count")?;
    let magic = r.u32(28, "os.magic")?;
    r.show_last(format!("0x{magic:08x}"));
    Ok(OsHeader {
        block_size,
        block_count,
        magic,
    })
}

fn check_os_header(h: &OsHeader, size: usize, problems: &mut Vec<Problem>) {
    let bs = h.block_size as usize;
    if !(512..=65536).contains(&bs) || !bs.is_power_of_two() {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Header,
            Some(20),
            "os.block_size",
            format!("OS header block size {bs} is not a power of two between 512 and 65536"),
        ));
    } else if bs != size {
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Header,
            Some(20),
            "os.block_size",
            format!("OS header says {bs}-byte blocks but this block has {size} bytes"),
        ));
    }
}

fn read_kcbh(r: &mut Reader) -> Result<Kcbh, ReadError> {
    r.set_context(Region::Header, None);
    // All reads first (so a short block fails before any span is recorded twice).
    r.peek(0, KCBH_SIZE, "kcbh")?;
    let type_kcbh = r.u8(0, "kcbh.type_kcbh")?;
    r.show_last(format!(
        "0x{type_kcbh:02x} {}",
        names::block_type_name(type_kcbh).unwrap_or("unknown type")
    ));
    let frmt_kcbh = r.u8(1, "kcbh.frmt_kcbh")?;
    r.show_last(format!("0x{frmt_kcbh:02x}"));
    let spare1_kcbh = r.u8(2, "kcbh.spare1_kcbh")?;
    let spare2_kcbh = r.u8(3, "kcbh.spare2_kcbh")?;
    let rdba_kcbh = r.u32(4, "kcbh.rdba_kcbh")?;
    r.show_last(format!("0x{rdba_kcbh:08x}"));
    let bas_kcbh = r.u32(8, "kcbh.bas_kcbh")?;
    r.show_last(format!("0x{bas_kcbh:08x}"));
    let wrp_kcbh = r.u16(12, "kcbh.wrp_kcbh")?;
    r.show_last(format!("0x{wrp_kcbh:04x}"));
    let seq_kcbh = r.u8(14, "kcbh.seq_kcbh")?;
    r.show_last(format!("0x{seq_kcbh:02x}"));
    let flg_kcbh = r.u8(15, "kcbh.flg_kcbh")?;
    let (flag_names, _) = names::kcbh_flag_names(flg_kcbh);
    r.show_last(format!("0x{flg_kcbh:02x} {}", flag_names.join(" ")));
    let chkval_kcbh = r.u16(16, "kcbh.chkval_kcbh")?;
    r.show_last(format!("0x{chkval_kcbh:04x}"));
    let spare3_kcbh = r.u16(18, "kcbh.spare3_kcbh")?;
    Ok(Kcbh {
        type_kcbh,
        frmt_kcbh,
        spare1_kcbh,
        spare2_kcbh,
        rdba_kcbh,
        bas_kcbh,
        wrp_kcbh,
        seq_kcbh,
        flg_kcbh,
        chkval_kcbh,
        spare3_kcbh,
    })
}

fn check_kcbh(h: &Kcbh, size: usize, problems: &mut Vec<Problem>) {
    if names::block_type_name(h.type_kcbh).is_none() || h.type_kcbh == 0 {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Header,
            Some(0),
            "kcbh.type_kcbh",
            format!(
                "block type 0x{:02x} is not a known Oracle block type",
                h.type_kcbh
            ),
        ));
    }
    if h.frmt_kcbh & 0x0f != 0x02 {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Header,
            Some(1),
            "kcbh.frmt_kcbh",
            format!(
                "format byte 0x{:02x}: low nibble should be 2 (Oracle 8 and later)",
                h.frmt_kcbh
            ),
        ));
    } else if let Some(bs) = h.block_size() {
        if bs != size {
            problems.push(Problem::new(
                Severity::Error,
                ProblemClass::Header,
                Some(1),
                "kcbh.frmt_kcbh",
                format!(
                    "format byte 0x{:02x} says {bs}-byte blocks but this block has {size} bytes",
                    h.frmt_kcbh
                ),
            ));
        }
    }
    if h.seq_kcbh == 0xff {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Corrupt,
            Some(14),
            "kcbh.seq_kcbh",
            "block marked corrupt by Oracle (seq 0xff)",
        ));
    }
    if h.spare3_kcbh != 0 {
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Header,
            Some(18),
            "kcbh.spare3_kcbh",
            format!("spare3_kcbh is 0x{:04x}, expected 0", h.spare3_kcbh),
        ));
    }
    let (_, unknown) = names::kcbh_flag_names(h.flg_kcbh);
    if unknown != 0 {
        problems.push(Problem::new(
            Severity::Warning,
            ProblemClass::Header,
            Some(15),
            "kcbh.flg_kcbh",
            format!("unknown cache header flag bits 0x{unknown:02x}"),
        ));
    }
}

fn check_value(
    kcbh: &Kcbh,
    data: &[u8],
    endian: Endian,
    problems: &mut Vec<Problem>,
) -> OracleChecksum {
    let computed = checksum::compute_chkval(data, endian);
    let enabled = kcbh.flg_kcbh & 0x04 != 0;
    let valid = !enabled || computed == kcbh.chkval_kcbh;
    if !valid {
        problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Checksum,
            Some(checksum::CHKVAL_OFFSET),
            "kcbh.chkval_kcbh",
            format!(
                "check value mismatch: stored 0x{:04x}, computed 0x{computed:04x} \
                 (block XORs to 0x{:04x})",
                kcbh.chkval_kcbh,
                computed ^ kcbh.chkval_kcbh
            ),
        ));
    }
    OracleChecksum {
        stored: kcbh.chkval_kcbh,
        computed,
        enabled,
        valid,
    }
}

/// The `kcvfh` fields we use (offsets from BBED's map, §7.3).
/// The block size an Oracle datafile announces: block 0's OS header (size at
/// offset 20, magic 0x7a7b7c7d at 28, in either byte order), or a cache
/// header's format byte (`1 << (8 + (frmt >> 5))` with low nibble 2).
pub fn block_size_from_header(head: &[u8]) -> Option<usize> {
    let plausible = |n: usize| (512..=65536).contains(&n) && n.is_power_of_two();
    if head.first() == Some(&0) {
        if let (Some(size), Some(magic)) = (head.get(20..24), head.get(28..32)) {
            for e in [Endian::Little, Endian::Big] {
                if e.read_u32(magic) == Some(0x7a7b_7c7d) {
                    let n = e.read_u32(size)? as usize;
                    return plausible(n).then_some(n);
                }
            }
        }
    }
    let ty = *head.first()?;
    let frmt = *head.get(1)?;
    let code = frmt >> 5;
    let known_type = names::block_type_name(ty).is_some() && ty != 0;
    (known_type && frmt & 0x1f == 0x02 && code > 0).then(|| 1usize << (8 + code))
}
