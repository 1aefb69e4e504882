//! PostgreSQL's answers to the seam: its [`EngineSpec`] (names, block
//! sizes, header signals for sniffing, parse) and its column lists.

use std::ops::RangeInclusive;
use std::path::PathBuf;

use crate::error::Error;
use crate::model::page::Page;
use crate::model::postgres::types::Schema;
use crate::model::postgres::ItemId;
use crate::parse::postgres::checksum::pg_checksum_page;
use crate::parse::postgres::schema;
use crate::parse::postgres::toast::ToastStore;
use crate::parse::postgres::{parse_page, parse_page_without_spans, PageOptions};
use crate::reader::Endian;

use super::spec::{ColumnSpec, EngineSpec, Evidence, ParseOptions, RowStorage};

/// SizeOfPageHeaderData.
const PG_HEADER_SIZE: usize = 24;

/// PostgreSQL pages (layout version 4, 8.3 and later).
pub(super) struct Postgres;

impl EngineSpec for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn product(&self) -> &'static str {
        "PostgreSQL"
    }

    fn help(&self) -> &'static str {
        "PostgreSQL pages (layout version 4, 8.3 and later)"
    }

    fn blocks_noun(&self) -> &'static str {
        "PostgreSQL pages"
    }

    fn header_noun(&self) -> &'static str {
        "a PostgreSQL page header"
    }

    /// BLCKSZ: 1 to 32 KiB.
    fn block_sizes(&self) -> RangeInclusive<usize> {
        1024..=32768
    }

    fn row_storage(&self) -> RowStorage {
        RowStorage::Relation
    }

    /// Relation files are cut into numbered segments (`16384.2`) of
    /// RELSEG_SIZE blocks.
    fn numbers_blocks_by_segment(&self) -> bool {
        true
    }

    /// pg_xact and pg_multixact.
    fn has_commit_log(&self) -> bool {
        true
    }

    fn has_dump_text(&self) -> bool {
        false
    }

    /// pd_pagesize_version or ordered offsets.
    fn header_score(&self) -> u32 {
        2
    }

    fn evidence(&self, head: &[u8], blkno: u64) -> Evidence {
        evidence(head, blkno)
    }

    /// pd_pagesize_version.
    fn block_size(&self, head: &[u8]) -> Option<usize> {
        crate::parse::postgres::page_size_from_header(head)
    }

    fn parse(&self, bytes: &[u8], opts: &ParseOptions) -> Page {
        let po = PageOptions {
            blkno: opts.blkno,
            blkno_known: opts.blkno_known,
            from_text: opts.from_text,
            kind: opts.kind,
            endian: opts
                .endian
                .unwrap_or_else(|| crate::parse::postgres::detect_endian(bytes)),
        };
        Page::Postgres(if opts.spans {
            parse_page(bytes, &po)
        } else {
            parse_page_without_spans(bytes, &po)
        })
    }

    /// `--blkno`, else the segment number × blocks per 1 GiB segment.
    fn first_blkno(&self, blkno: Option<u64>, segment: Option<u64>, block_size: usize) -> u64 {
        let per_segment = crate::source::DEFAULT_SEGMENT_BYTES / block_size.max(1) as u64;
        blkno.unwrap_or_else(|| segment.unwrap_or(0).saturating_mul(per_segment))
    }

    fn reads_ahead(&self, _: u64) -> bool {
        false
    }

    fn blocks_independent(&self) -> bool {
        true
    }
}

/// The column list `spec` in PostgreSQL's types, and the TOAST relation
/// that out-of-line values are read from.
pub(super) fn columns(
    spec: Option<&ColumnSpec>,
    toast: &[PathBuf],
    block_size: Option<usize>,
) -> Result<Option<(Schema, Option<ToastStore>)>, Error> {
    let schema = match spec {
        None => None,
        Some(ColumnSpec::List(list)) => {
            Some(schema::parse_columns(list).map_err(|e| Error::Usage(format!("--columns: {e}")))?)
        }
        Some(ColumnSpec::Resolved(schema)) => Some(schema.clone()),
        Some(ColumnSpec::File { path, text }) => Some(
            schema::parse_schema(text)
                .map_err(|e| Error::Usage(format!("--schema {}: {e}", path.display())))?,
        ),
    };
    let Some(schema) = schema else {
        if !toast.is_empty() {
            return Err(Error::Usage(
                "--toast needs the table's columns (--columns or --schema)".into(),
            ));
        }
        return Ok(None);
    };
    let toast = if toast.is_empty() {
        None
    } else {
        Some(ToastStore::open(toast, block_size)?)
    };
    Ok(Some((schema, toast)))
}

/// The PostgreSQL signals of `head`, a page at position `blkno` of its input.
fn evidence(head: &[u8], blkno: u64) -> Evidence {
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
