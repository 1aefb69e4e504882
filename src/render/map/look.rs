//! What the CLI decided about the picture, and the words every map view
//! shares: the leaf below the printer and its views.

/// Output formats of `map`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MapFormat {
    /// A grid of characters, coloured on a terminal.
    Term,
    /// A standalone SVG picture.
    Svg,
    /// One JSON document: `{"blocks": [...], "summary": {...}}`.
    Json,
    /// One JSON object per block, then `{"summary": {...}}`.
    Ndjson,
}

/// What the CLI decided about the picture.
#[derive(Clone, Debug)]
pub(crate) struct MapOptions {
    pub format: MapFormat,
    /// ANSI colours (term only).
    pub color: bool,
    /// Columns of the terminal (term only).
    pub width: usize,
    /// The input's name, as verify prints file names.
    pub title: String,
    /// What the cells' shade shows.
    pub shade: Shade,
}

/// What the shade of a cell shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shade {
    /// The mean share of the blocks in use.
    Used,
    /// The share of line pointers dead or holding a tuple with t_xmax set
    /// (Oracle: of rows, those deleted).
    Dead,
}

impl Shade {
    /// What the ramp means, for the legends.
    pub(crate) fn legend(self) -> &'static str {
        match self {
            Shade::Used => "in use (mean, 0–100% of a block)",
            Shade::Dead => "dead or xmax set (0–100% of line pointers; Oracle: rows deleted)",
        }
    }
}

/// Cells a row of the SVG picture.
pub(crate) const SVG_COLUMNS: usize = 64;

/// A count with its noun, singular or plural: `1 block`, `2 blocks`.
pub(crate) fn plural(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
