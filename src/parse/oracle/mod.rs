//! Oracle datafile block parsers: bytes in, [`OracleBlock`] plus problems out.
//!
//! [`parse_block`] reads the cache header and tail, checks the XOR check value,
//! and for transaction-managed blocks (type 6) the transaction header and ITLs,
//! then the table data layer ([`kdb`]) or the index layer ([`kdx`]). Every read
//! goes through [`crate::reader::Reader`] with the byte order detected from the
//! block (or given); nothing here indexes input bytes directly or panics.
//!
//! [`verify`] adds the checks that need to know where a block sits in its file
//! and keeps DBVERIFY's tallies.

pub(crate) mod block;
pub(crate) mod btype;
pub(crate) mod carve;
pub(crate) mod checksum;
pub(crate) mod columns;
pub(crate) mod datatype;
pub(crate) mod fileheader;
pub(crate) mod kdb;
pub(crate) mod kdbc;
pub(crate) mod kdx;
pub(crate) mod ktb;
pub(crate) mod ktfb;
pub(crate) mod ktu;
mod problem;
pub(crate) mod rowbytes;
pub(crate) mod trace;
pub(crate) mod verify;

pub use block::{
    block_size_from_header, detect_endian, looks_like_oracle, parse_block, BlockOptions,
};

pub(crate) use problem::read_problem;
