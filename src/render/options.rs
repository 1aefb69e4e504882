//! What the CLI decided about presentation: the leaf every renderer reads.

/// What the CLI decided about presentation.
#[derive(Clone, Copy, Debug, Default)]
pub struct RenderOptions {
    /// Show wide fields (t_data, flag names) in full.
    pub wide: bool,
    /// ANSI colour by region (only when writing to a terminal, unless forced).
    pub color: bool,
    /// Fit tables to this many columns; `None` = natural width (pipes, golden files).
    pub width: Option<u16>,
    /// List every problem of a page (no problem budget, at most 25 lines a block otherwise).
    pub all_problems: bool,
    /// The hex view's offsets: `None` in the page (from 0), `Some(base)`
    /// in the file, the page starting at `base` (pg_filedump's `-a`;
    /// printed with at least 8 digits).
    pub absolute: Option<u64>,
}
