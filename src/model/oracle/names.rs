//! Names of Oracle codes and flag bits, as `const` tables of `(bit, NAME, meaning)`,
//! and the letter strings Oracle's dumps print for them.

use crate::model::bits::{self, flag as bit, Flag};

/// `flg_kcbh` bits (§2.3). 0x10 is inferred from the TDE copy of the reference block.
pub const KCBH_FLG: &[Flag] = &[
    bit(0x01, "KCBHFNEW", "new block (data area zeroed)"),
    bit(0x02, "KCBHFDLC", "delayed-logging change advanced SCN/seq"),
    bit(
        0x04,
        "KCBHFCKV",
        "check value saved: the block XORs to zero",
    ),
    bit(0x08, "KCBHFTMP", "temporary block"),
    bit(
        0x10,
        "ENCRYPTED",
        "encrypted (TDE): only cache header and tail are clear text (inferred)",
    ),
];

/// Row flag byte `fb` bits (kdrh.h names): cluster key.
pub const KDRHFK: u8 = 0x80;
/// Clustered table member.
pub const KDRHFC: u8 = 0x40;
/// Head piece of row.
pub const KDRHFH: u8 = 0x20;
/// Deleted row.
pub const KDRHFD: u8 = 0x10;
/// First data piece.
pub const KDRHFF: u8 = 0x08;
/// Last data piece.
pub const KDRHFL: u8 = 0x04;
/// First column continues from the previous piece.
pub const KDRHFP: u8 = 0x02;
/// Last column continues in the next piece.
pub const KDRHFN: u8 = 0x01;

/// Row flag byte `fb` bits in dump order `KCHDFLPN` (§4.2).
pub const ROW_FLAGS: &[(u8, char, &str, &str)] = &[
    (KDRHFK, 'K', "KDRHFK", "cluster key"),
    (KDRHFC, 'C', "KDRHFC", "clustered table member"),
    (KDRHFH, 'H', "KDRHFH", "head piece of row"),
    (KDRHFD, 'D', "KDRHFD", "deleted row"),
    (KDRHFF, 'F', "KDRHFF", "first data piece"),
    (KDRHFL, 'L', "KDRHFL", "last data piece"),
    (
        KDRHFP,
        'P',
        "KDRHFP",
        "first column continues from previous piece",
    ),
    (KDRHFN, 'N', "KDRHFN", "last column continues in next piece"),
];

/// ITL flag nibble, dump order `CBUT` (§3.3); Oracle's names are known for C and U only.
pub const ITL_FLAGS: &[(u16, char, &str, &str)] = &[
    (0x8000, 'C', "KTBFCOM", "committed and cleaned out"),
    (
        0x4000,
        'B',
        "",
        "this undo record holds the undo for this ITL entry",
    ),
    (
        0x2000,
        'U',
        "KTBFUPB",
        "committed; SCN is an upper bound (fast commit)",
    ),
    (0x1000, 'T', "", "active at block cleanout SCN"),
];

/// `fb: --H-FL--`.
pub fn row_flag_string(flag: u8) -> String {
    ROW_FLAGS
        .iter()
        .map(|&(m, c, _, _)| if flag & m != 0 { c } else { '-' })
        .collect()
}

/// `--U-`.
pub fn itl_flag_string(flg: u16) -> String {
    ITL_FLAGS
        .iter()
        .map(|&(m, c, _, _)| if flg & m != 0 { c } else { '-' })
        .collect()
}

/// `kdbhflag` under its `76543210` ruler, bit 7 first. The letters Oracle prints
/// for set bits are not established (§4.1, §13), so a set bit shows as `X`.
pub fn kdbh_flag_string(flag: u8) -> String {
    // Bit 0x40 of a basic/OLTP compressed block prints `0` (`flag=-0------`,
    // `flag=-0----X-` in published dumps); other set bits print `X`.
    (0..8)
        .rev()
        .map(|b| match (flag & (1 << b) != 0, b) {
            (false, _) => '-',
            (true, 6) => '0',
            (true, _) => 'X',
        })
        .collect()
}

/// `flag_9ir2=` of a compressed block's 9iR2 header under its `76543210`
/// ruler. Letters as published dumps print them (`-------C`, `--R-LN-C`):
/// `C` 0x01, `N` 0x04, `L` 0x08, `R` 0x20; other set bits show as `?`.
pub fn flag_9ir2_string(flag: u8) -> String {
    (0..8)
        .rev()
        .map(|b| {
            if flag & (1 << b) == 0 {
                '-'
            } else {
                match b {
                    0 => 'C',
                    2 => 'N',
                    3 => 'L',
                    5 => 'R',
                    _ => '?',
                }
            }
        })
        .collect()
}

/// The `flg:` letter of the transaction header (§3.2, inferred bit meanings):
/// `E` for an ASSM block with extension, `O` for a block on a freelist, `-` otherwise.
pub fn ktbbh_flag_letter(flg: u8) -> char {
    if flg & 0x30 != 0 {
        'E'
    } else if flg & 0x01 != 0 {
        'O'
    } else {
        '-'
    }
}

/// Index leaf entry flag as the dump's six characters; 0x01 is `D`eleted at
/// position 3 (`---D--`, §7.2). Other bits are not established and show as `?`.
pub fn index_flag_string(flag: u8) -> String {
    let mut s: Vec<char> = "------".chars().collect();
    if flag & 0x01 != 0 {
        if let Some(c) = s.get_mut(3) {
            *c = 'D';
        }
    }
    for (bit, pos) in [(0x02u8, 0usize), (0x04, 1), (0x08, 2), (0x10, 4), (0x20, 5)] {
        if flag & bit != 0 {
            if let Some(c) = s.get_mut(pos) {
                *c = '?';
            }
        }
    }
    s.into_iter().collect()
}

/// Block types (§2.1, §8): code, the label Oracle's dumps print where one was
/// observed (`type: 0x06=trans data`), else a description from Ixora's list.
pub const BLOCK_TYPES: &[(u8, &str)] = &[
    (0x00, "unknown"),
    (0x01, "undo header (limited extents)"),
    (0x02, "KTU UNDO BLOCK"),
    (0x03, "save undo header"),
    (0x04, "save undo data block"),
    (0x05, "data segment header (limited extents)"),
    (0x06, "trans data"),
    (0x07, "temporary segment data block"),
    (0x08, "sort key"),
    (0x09, "sort run"),
    (0x0a, "free list block"),
    (0x0b, "data file header"),
    (0x0c, "data segment header with freelist groups"),
    (0x0d, "compatibility segment"),
    (0x0e, "KTU UNDO HEADER W/UNLIMITED EXTENTS"),
    (0x0f, "save undo header (unlimited extents)"),
    (0x10, "DATA SEGMENT HEADER - UNLIMITED"),
    (
        0x11,
        "data segment header (unlimited extents, freelist groups)",
    ),
    (0x12, "extent map block"),
    (0x13, "backup set piece header"),
    (0x14, "backup set directory block"),
    (0x15, "control file block"),
    (0x16, "free list block with count"),
    (0x17, "LOB segment header"),
    (0x18, "LOB segment free list"),
    (0x19, "LOB space usage index"),
    (0x1a, "LOB bitmap block"),
    (0x1b, "LOB chunk data"),
    (0x1d, "KTFB Bitmapped File Space Header"),
    (0x1e, "KTFB Bitmapped File Space Bitmap"),
    (0x20, "FIRST LEVEL BITMAP BLOCK"),
    (0x21, "SECOND LEVEL BITMAP BLOCK"),
    (0x22, "third level bitmap block"),
    (0x23, "PAGETABLE SEGMENT HEADER"),
    (0x24, "pagetable extent map block"),
    (0x26, "KTU SMU HEADER BLOCK"),
    (0x3e, "NGLOB: Committed Free Space"),
    (0x40, "NGLOB: Persistent Undo"),
    (0x45, "NGLOB: Lob Extent Header"),
];

/// The name of a block type, if known.
pub fn block_type_name(code: u8) -> Option<&'static str> {
    BLOCK_TYPES
        .iter()
        .find(|&&(c, _)| c == code)
        .map(|&(_, n)| n)
}

/// Names of the `flg_kcbh` bits set, and the bits no name covers.
pub fn kcbh_flag_names(flg: u8) -> (Vec<&'static str>, u8) {
    let (set, unknown) = bits::names(u16::from(flg), KCBH_FLG, 0x00FF);
    (set.iter().map(|f| f.name).collect(), unknown as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn letters_match_the_reference_dump() {
        assert_eq!(row_flag_string(0x2c), "--H-FL--");
        assert_eq!(row_flag_string(0x3c), "--HDFL--");
        assert_eq!(row_flag_string(0x29), "--H-F--N");
        assert_eq!(itl_flag_string(0x2001), "--U-");
        assert_eq!(itl_flag_string(0x8000), "C---");
        assert_eq!(itl_flag_string(0xa000), "C-U-");
        assert_eq!(kdbh_flag_string(0), "--------");
        assert_eq!(kdbh_flag_string(0x40), "-0------");
        assert_eq!(kdbh_flag_string(0x42), "-0----X-");
        assert_eq!(flag_9ir2_string(0x01), "-------C");
        assert_eq!(flag_9ir2_string(0x2d), "--R-LN-C");
        assert_eq!(ktbbh_flag_letter(0x32), 'E');
        assert_eq!(ktbbh_flag_letter(0x02), '-');
        assert_eq!(ktbbh_flag_letter(0x03), 'O');
        assert_eq!(index_flag_string(0), "------");
        assert_eq!(index_flag_string(1), "---D--");
        assert_eq!(block_type_name(6), Some("trans data"));
        assert_eq!(block_type_name(0x99), None);
        assert_eq!(
            kcbh_flag_names(0x16),
            (vec!["KCBHFDLC", "KCBHFCKV", "ENCRYPTED"], 0)
        );
        assert_eq!(kcbh_flag_names(0x46).1, 0x40);
    }
}
