//! The table of Oracle block types (`type_kcbh`, the cache header's first
//! byte): each entry says what kind of block the type is and how its body
//! after the cache header is read. `block.rs` reads the cache header
//! and tail and iterates this table; a type not in it is shown as hex. A
//! new block type is its model, one parser file and one entry here.

use crate::model::oracle::space::{SpaceBody, Undecoded};
use crate::model::oracle::{names, OracleBlock, OracleKind, KCBH_SIZE};
use crate::model::span::Region;
use crate::model::{Problem, ProblemClass, Severity};
use crate::reader::Reader;

use super::{fileheader, kdb, kdx, ktb, ktfb, ktu, read_problem};

/// One block type.
pub(crate) struct BlockType {
    pub type_kcbh: u8,
    /// The kind of block the type is before its body is read (all an
    /// encrypted block shows).
    pub kind: OracleKind,
    /// Read the body: the block, where the body ends (the tail's start).
    pub parse: fn(&mut Reader, &mut OracleBlock, usize),
}

/// Every block type whose body is decoded.
pub(crate) static BLOCK_TYPES: &[BlockType] = &[
    BlockType {
        type_kcbh: 0x06,
        kind: OracleKind::TransData,
        parse: trans_data,
    },
    BlockType {
        type_kcbh: 0x0b,
        kind: OracleKind::FileHeader,
        parse: file_header,
    },
    BlockType {
        type_kcbh: 0x1d,
        kind: OracleKind::Other,
        parse: file_space_header,
    },
    BlockType {
        type_kcbh: 0x02,
        kind: OracleKind::Other,
        parse: undo_block,
    },
];

/// The table's entry for `type_kcbh`, if its body is decoded.
pub(crate) fn lookup(type_kcbh: u8) -> Option<&'static BlockType> {
    BLOCK_TYPES.iter().find(|t| t.type_kcbh == type_kcbh)
}

/// Type 0x0b: the datafile header.
fn file_header(r: &mut Reader, block: &mut OracleBlock, _body_end: usize) {
    block.kind = OracleKind::FileHeader;
    match fileheader::read_file_header(r) {
        Ok(fh) => block.file_header = Some(Box::new(fh)),
        Err(e) => block.problems.push(read_problem(
            ProblemClass::Header,
            &e,
            "file header cut short",
        )),
    }
}

/// Type 0x1d: the file space header (Header Control) of a locally managed
/// tablespace's datafile.
fn file_space_header(r: &mut Reader, block: &mut OracleBlock, body_end: usize) {
    block.kind = OracleKind::Other;
    match ktfb::read_file_space_header(r) {
        Ok(h) => {
            block.space = Some(Box::new(SpaceBody::FileSpaceHeader(h)));
            r.set_context(Region::Unknown, None);
            r.mark(
                60,
                body_end.saturating_sub(60),
                "block body",
                "after Header Control: not decoded (offsets not established)".to_string(),
            );
        }
        Err(e) => block.problems.push(read_problem(
            ProblemClass::Header,
            &e,
            "file space header cut short",
        )),
    }
}

/// Type 0x02: an undo block.
fn undo_block(r: &mut Reader, block: &mut OracleBlock, body_end: usize) {
    block.kind = OracleKind::Other;
    match ktu::read_undo_block(r, body_end, &mut block.problems) {
        Ok(u) => block.space = Some(Box::new(SpaceBody::UndoBlock(u))),
        Err(e) => block.problems.push(read_problem(
            ProblemClass::Header,
            &e,
            "undo block header cut short",
        )),
    }
}

/// A type whose body is not decoded: kept as its bytes.
pub(crate) fn undecoded(r: &mut Reader, block: &mut OracleBlock, other: u8, body_end: usize) {
    block.kind = OracleKind::Other;
    block.undecoded = Some(Box::new(Undecoded {
        offset: KCBH_SIZE,
        length: body_end.saturating_sub(KCBH_SIZE),
        note: format!(
            "type 0x{other:02x} {}: the body's byte layout is not established \
             by a published source; shown as hex, not decoded",
            names::block_type_name(other).unwrap_or("(unknown type)")
        ),
        bytes: r
            .data()
            .get(KCBH_SIZE..body_end)
            .unwrap_or_default()
            .to_vec(),
    }));
    r.set_context(Region::Unknown, None);
    r.mark(
        KCBH_SIZE,
        body_end.saturating_sub(KCBH_SIZE),
        "block body",
        format!(
            "type 0x{other:02x} {}: body not decoded",
            names::block_type_name(other).unwrap_or("(unknown type)")
        ),
    );
}

/// Type 0x06: a transaction-managed data block, table (`kdb`) or index (`kdx`)
/// by its transaction header's type.
fn trans_data(r: &mut Reader, block: &mut OracleBlock, _body_end: usize) {
    let size = r.len();
    parse_trans_data(r, block, size);
}

fn parse_trans_data(r: &mut Reader, block: &mut OracleBlock, size: usize) {
    block.kind = OracleKind::TransData;
    let ktbbh = match ktb::read_ktbbh(r, size, &mut block.problems) {
        Ok(t) => t,
        Err(e) => {
            block.problems.push(read_problem(
                ProblemClass::Ktbbh,
                &e,
                "transaction header cut short",
            ));
            return;
        }
    };
    match ktbbh.ktbbhtyp {
        1 => {
            block.kind = OracleKind::Table;
            block.table = kdb::read_table_data(r, &ktbbh, size, &mut block.problems);
        }
        2 => {
            block.index = kdx::read_index(r, &ktbbh, size, &mut block.problems);
            block.kind = match &block.index {
                Some(ix) if ix.kdxco.kdxcolev == 0 => OracleKind::IndexLeaf,
                Some(_) => OracleKind::IndexBranch,
                None => OracleKind::TransData,
            };
        }
        other => block.problems.push(Problem::new(
            Severity::Error,
            ProblemClass::Ktbbh,
            Some(20),
            "ktbbh.ktbbhtyp",
            format!("transaction header type {other} is neither 1 (DATA) nor 2 (INDEX)"),
        )),
    }
    block.ktbbh = Some(ktbbh);
}
