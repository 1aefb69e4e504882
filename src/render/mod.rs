//! Renderers: model structures (and the page bytes, for hex) in, text out.
//! Nothing here parses.

pub mod dump;
mod fit;
pub mod hex;
pub mod json;
pub mod ndjson;
pub mod oracle_json;
pub mod oracle_table;
pub mod oracle_verify;
pub mod problems;
pub mod table;
pub mod verify;

/// What the CLI decided about presentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Show wide fields (t_data, flag names) in full.
    pub wide: bool,
    /// ANSI colour by region (only when writing to a terminal, unless forced).
    pub color: bool,
    /// Fit tables to this many columns; `None` = natural width (pipes, golden files).
    pub width: Option<u16>,
    /// List every problem of a page (no problem budget, see [`problems`]).
    pub all_problems: bool,
}
