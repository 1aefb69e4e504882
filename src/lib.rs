//! blockscope: offline forensics of database page images.
//!
//! The crate is layered the way the data flows:
//!
//! * [`input`] turns raw bytes or text dumps (hex, bytea, base64, od, xxd,
//!   hexdump -C, gdb) into page bytes;
//! * [`source`] cuts those bytes into blocks, streaming files;
//! * [`parse`] holds one parser per engine and page kind, built on the checked
//!   [`reader`], producing the plain structures of [`model`] plus problems;
//! * [`engine`] is the seam between engines: which database wrote the bytes
//!   (sniffing, block sizes) and bytes → [`engine::Page`] — the only place
//!   that matches on the engine;
//! * [`render`] turns model structures into tables, annotated hex or JSON —
//!   renderers never parse; [`render::page`] holds the engine × format match;
//! * [`verify`] checks every block of relation files and datafiles, one room
//!   per engine;
//! * [`cli`] turns arguments into configs once and wires the rest together
//!   for the `blockscope` binary.

#![forbid(unsafe_code)]

pub mod cli;
pub mod engine;
pub mod error;
pub mod input;
pub mod model;
pub mod parse;
pub mod reader;
pub mod render;
pub mod source;
pub mod verify;

pub use error::Error;
