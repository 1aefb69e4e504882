//! Engine detection as a scored decision over independent signals of a
//! block's header (issue 11): damage to some signals must not flip the
//! engine while others are intact.
//!
//! Oracle: block 0's OS header (decisive), the type byte (a known block
//! type), the format byte (low nibble 2, a plausible block size), the block
//! size against the format byte, the rdba (a plausible file number, or the
//! block's own position), the tail (SCN base low 16 bits, type and seq
//! repeated in the last 4 bytes) and the XOR check value (flg_kcbh 0x04).
//!
//! PostgreSQL: pd_pagesize_version (a page size and layout version 4), the
//! page size against the input, SizeOfPageHeaderData ≤ pd_lower ≤ pd_upper ≤
//! pd_special ≤ size, the line pointers, the special space's shape and the
//! checksum at the block's position.

use crate::model::oracle::names::block_type_name;
use crate::model::postgres::ItemId;
use crate::parse::oracle::checksum::xor16;
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::reader::Endian;

use serde::Serialize;

use super::Engine;

/// Byte offsets and sizes of the headers read here.
const KCBH_SIZE: usize = 20;
const TAIL_SIZE: usize = 4;
const OS_HEADER_MAGIC: u32 = 0x7a7b_7c7d;
const PG_HEADER_SIZE: usize = 24;

/// What one engine's signals say about a block.
#[derive(Debug, Default)]
pub(super) struct Evidence {
    /// Sum of the weights of the signals that hold.
    pub score: u32,
    /// The signals that hold, in a few words each.
    pub intact: Vec<&'static str>,
    /// The signals that are there but broken (damage), in a few words each.
    pub damaged: Vec<String>,
    /// A signal that alone settles the question held (Oracle: the OS header,
    /// the tail or the check value; PostgreSQL: pd_pagesize_version and the
    /// order of the header's offsets).
    pub decisive: bool,
}

impl Evidence {
    fn holds(&mut self, weight: u32, what: &'static str) {
        self.score += weight;
        self.intact.push(what);
    }
}

/// The Oracle signals of `head`, a block at position `blkno` of its input.
pub(super) fn oracle(head: &[u8], blkno: u64) -> Evidence {
    let mut e = Evidence::default();
    let word = |at: usize| -> Option<u32> {
        let b = head.get(at..at + 4)?;
        Some(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    if head.first() == Some(&0) {
        if let Some(magic) = word(28) {
            if magic == OS_HEADER_MAGIC || magic.swap_bytes() == OS_HEADER_MAGIC {
                e.holds(10, "a datafile OS header");
                e.decisive = true;
                return e;
            }
        }
    }
    let (Some(&ty), Some(&frmt)) = (head.first(), head.get(1)) else {
        return e;
    };
    let known_type = ty != 0 && block_type_name(ty).is_some();
    if known_type {
        e.holds(2, "block type");
    }
    // The top three bits give the block size from Oracle 10g on; a block
    // formatted before (or a file-space header kept from then) has 0 there:
    // 0x02, a byte too common to weigh anything until the tail or the check
    // value confirms the header.
    let code = frmt >> 5;
    let frmt_ok = frmt & 0x1f == 0x02;
    if frmt_ok {
        e.holds(if code > 0 { 2 } else { 0 }, "format byte");
    }
    // The rest corroborates a cache header (type and format byte); alone
    // it proves nothing.
    if !known_type || !frmt_ok {
        return e;
    }
    if code > 0 {
        let frmt_size = 1usize << (8 + code);
        if head.len() == frmt_size {
            e.holds(1, "block size");
        } else {
            e.damaged.push(format!(
                "{} bytes where the format byte gives {frmt_size}",
                head.len()
            ));
        }
    }
    for endian in [Endian::Little, Endian::Big] {
        let Some(rdba) = head.get(4..8).and_then(|b| endian.read_u32(b)) else {
            break;
        };
        let (file, block) = (rdba >> 22, u64::from(rdba & 0x003f_ffff));
        if rdba != 0 && block == blkno {
            e.holds(2, "rdba at its position");
            break;
        }
        if (1..1023).contains(&file) {
            e.holds(1, "rdba");
            break;
        }
    }
    if head.len() >= KCBH_SIZE + TAIL_SIZE {
        let n = head.len();
        let tail = &head[n - TAIL_SIZE..];
        let seq = head[14];
        let little = [tail[0] == seq, tail[1] == ty, tail[2..4] == head[8..10]];
        let big = [tail[3] == seq, tail[2] == ty, tail[0..2] == head[10..12]];
        let count = |m: [bool; 3]| m.iter().filter(|&&b| b).count();
        let best = count(little).max(count(big));
        if best == 3 {
            e.holds(3, "tail");
            e.decisive = true;
        } else {
            if best == 2 {
                e.holds(1, "part of the tail");
            }
            e.damaged
                .push("the tail does not repeat the header".to_string());
        }
        if head[15] & 0x04 != 0 {
            if xor16(head, Endian::Little) == 0 || xor16(head, Endian::Big) == 0 {
                e.holds(3, "check value");
                e.decisive = true;
            } else {
                e.damaged
                    .push("the check value does not match the block".to_string());
            }
        }
    }
    e
}

/// The PostgreSQL signals of `head`, a page at position `blkno` of its input.
pub(super) fn postgres(head: &[u8], blkno: u64) -> Evidence {
    let mut e = Evidence::default();
    // The host's byte order, from pd_pagesize_version (little-endian unless
    // the page says otherwise).
    let endian = crate::parse::postgres::detect_endian(head);
    let u16_at = |at: usize| -> Option<usize> { endian.read_u16(head.get(at..)?).map(usize::from) };
    let (Some(lower), Some(upper), Some(special), Some(psv)) =
        (u16_at(12), u16_at(14), u16_at(16), u16_at(18))
    else {
        return e;
    };
    let announced = psv & 0xff00;
    let size_ok = (1024..=32768).contains(&announced) && announced.is_power_of_two();
    let psv_ok = size_ok && psv & 0xff == 4;
    if psv_ok {
        e.holds(3, "pd_pagesize_version");
        if head.len() == announced {
            e.holds(1, "page size");
        } else {
            e.damaged.push(format!(
                "{} bytes where pd_pagesize_version gives {announced}",
                head.len()
            ));
        }
    }
    let size = if psv_ok { announced } else { head.len() };
    let order_ok = PG_HEADER_SIZE <= lower
        && lower <= upper
        && upper <= special
        && special <= size
        && special.is_multiple_of(8);
    if order_ok {
        e.holds(2, "pd_lower ≤ pd_upper ≤ pd_special");
    } else if psv_ok {
        e.damaged
            .push("pd_lower, pd_upper and pd_special out of order".to_string());
    }
    e.decisive = psv_ok;
    if !order_ok {
        return e;
    }
    // Line pointers: lp_off 15 bits, lp_flags 2, lp_len 15.
    let n = (lower - PG_HEADER_SIZE) / 4;
    if n > 0 {
        let mut plausible = 0usize;
        for i in 0..n {
            let Some(b) = head.get(PG_HEADER_SIZE + 4 * i..PG_HEADER_SIZE + 4 * i + 4) else {
                break;
            };
            let lp =
                ItemId::from_word_in(0, endian.read_u32(b).unwrap_or(0), endian == Endian::Big);
            let (off, flags, len) = (
                usize::from(lp.lp_off),
                u32::from(lp.lp_flags.code()),
                usize::from(lp.lp_len),
            );
            let ok = match flags {
                0 => len == 0,
                1 | 3 => off >= upper && len > 0 && off + len <= special,
                _ => len == 0 && off > 0 && off <= n,
            };
            plausible += usize::from(ok);
        }
        if plausible == n {
            e.holds(2, "line pointers");
            e.decisive = true;
        } else if plausible * 2 >= n {
            e.holds(1, "most line pointers");
        } else {
            e.damaged.push(format!(
                "{} of {n} line pointers implausible",
                n - plausible
            ));
        }
    }
    let special_size = size - special;
    if special_size == 0 || special_size == 8 || special_size == 16 || special_size == 24 {
        e.holds(1, "special space");
    }
    let stored = u16_at(8).unwrap_or(0) as u16;
    if stored != 0 && head.len() == size && pg_checksum_page(head, blkno, endian) == Some(stored) {
        e.holds(3, "pd_checksum");
    }
    e
}

/// Decide between the engines from the signals of the first block.
pub(super) fn decide(head: &[u8], blkno: u64) -> Detection {
    if !head.is_empty() && head.iter().all(|&b| b == 0) {
        return Detection {
            engine: Engine::Postgres,
            reason: "an all-zero first block (a new page)".to_string(),
            clear: true,
            scores: Vec::new(),
        };
    }
    let pg = postgres(head, blkno);
    let ora = oracle(head, blkno);
    // Oracle needs at least its type and format bytes (or a decisive signal).
    let (engine, win, lose) = if ora.score > pg.score && (ora.score >= 4 || ora.decisive) {
        (Engine::Oracle, &ora, &pg)
    } else {
        (Engine::Postgres, &pg, &ora)
    };
    let clear = win.decisive && lose.score < 3 && (win.damaged.is_empty() || lose.score == 0);
    let scores = vec![
        EngineScore {
            engine: Engine::Postgres,
            score: pg.score,
        },
        EngineScore {
            engine: Engine::Oracle,
            score: ora.score,
        },
    ];
    let reason = if !has_header(&scores) {
        "nothing in the first block looks like a PostgreSQL page header or an Oracle \
         cache header"
            .to_string()
    } else {
        let mut r = match win.intact.split_last() {
            None => String::new(),
            Some((last, [])) => format!("{last} holds"),
            Some((last, rest)) => format!("{} and {last} hold", rest.join(", ")),
        };
        for d in &win.damaged {
            if !r.is_empty() {
                r.push_str("; ");
            }
            r.push_str(d);
        }
        if lose.score > 0 {
            let other = match engine {
                Engine::Postgres => "Oracle",
                Engine::Oracle => "PostgreSQL",
            };
            r.push_str(&format!(
                " (score {} against {}'s {}: {})",
                win.score,
                other,
                lose.score,
                lose.intact.join(", ")
            ));
        }
        r
    };
    Detection {
        engine,
        reason,
        clear,
        scores,
    }
}

/// Whether either engine's header signals scored enough to call the bytes a
/// page: PostgreSQL's pd_pagesize_version or ordered offsets, Oracle's type
/// and format bytes.
pub(super) fn has_header(scores: &[EngineScore]) -> bool {
    scores.iter().any(|s| s.score >= header_score(s.engine))
}

/// The score from which an engine's signals say "a page header": PostgreSQL's
/// pd_pagesize_version or ordered offsets, Oracle's type and format bytes.
fn header_score(engine: Engine) -> u32 {
    match engine {
        Engine::Postgres => 2,
        Engine::Oracle => 4,
    }
}

/// The engine chosen for an input, and why: the signals of the first block
/// scored for each engine (see `sniff.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Detection {
    /// The engine chosen.
    pub engine: Engine,
    /// What decided: the signals that held and those that were damaged.
    pub reason: String,
    /// The decision was clear-cut: a decisive signal of the chosen engine
    /// held and the other engine scored (next to) nothing. When not, `show`
    /// and `verify` say on standard error why they chose.
    pub clear: bool,
    /// The score of the signals that held, per engine, in the order of
    /// [`Engine::ALL`] (empty when the engine was given or the block was
    /// all zeros).
    pub scores: Vec<EngineScore>,
}

/// One engine's score in a [`Detection`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EngineScore {
    /// The engine.
    pub engine: Engine,
    /// The weight of its header signals that held.
    pub score: u32,
}

impl Detection {
    /// The engine was given (`--engine`), not detected.
    pub fn given(engine: Engine) -> Detection {
        Detection {
            engine,
            reason: "--engine".to_string(),
            clear: true,
            scores: Vec::new(),
        }
    }

    /// The score `engine`'s signals reached (0 when not scored).
    pub fn score(&self, engine: Engine) -> u32 {
        self.scores
            .iter()
            .find(|s| s.engine == engine)
            .map_or(0, |s| s.score)
    }

    /// No engine's header signals scored enough to call the first block a
    /// page (random bytes, an executable, text).
    pub fn no_header(&self) -> bool {
        !has_header(&self.scores)
    }

    /// The note for standard error when the decision was not clear-cut:
    /// `read as Oracle blocks: <reason>`.
    pub fn note(&self) -> Option<String> {
        (!self.clear).then(|| format!("read as {}: {}", self.engine.blocks_noun(), self.reason))
    }
}
