//! Named bits of flag words, shared by every engine's tables: a `const` table
//! of [`Flag`]s per word, and the lookups over it.

/// One named bit (or multi-bit mask) of a flag word.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Flag {
    /// The bit or bits of the word this entry names.
    pub mask: u16,
    /// The database's own name for it (`HEAP_HASNULL`, `HEAP_COMBOCID`).
    pub name: &'static str,
    /// What it means when set, in a few words.
    pub meaning: &'static str,
}

/// A table entry (for `const` tables).
pub const fn flag(mask: u16, name: &'static str, meaning: &'static str) -> Flag {
    Flag {
        mask,
        name,
        meaning,
    }
}

/// The flags of `table` whose bits are all set in `value`, and the bits of
/// `value` (within `considered`) that no flag of `table` names.
pub fn names(value: u16, table: &'static [Flag], considered: u16) -> (Vec<&'static Flag>, u16) {
    let set = table.iter().filter(|f| value & f.mask == f.mask).collect();
    (set, unknown_bits(value, table, considered))
}

/// The bits of `value` (within `considered`) that no flag of `table` names,
/// without listing the named ones (no allocation: for checking many pages).
pub fn unknown_bits(value: u16, table: &'static [Flag], considered: u16) -> u16 {
    let known = table.iter().fold(0u16, |acc, f| acc | f.mask);
    value & considered & !known
}
