//! `decode`'s values read: a flag word, line pointer or Oracle value given
//! as text, parsed and explained bit by bit into [`crate::model::decode`].

use crate::error::Error;
use crate::model::decode::{
    DecodedWord, Explained, FileBlock, FlagJson, OracleFlag, OracleWord, Word,
};
use crate::model::oracle::names;
use crate::model::oracle::Rdba;
use crate::model::postgres::flags;
use crate::model::postgres::ItemId;
use crate::parse::oracle::datatype::{decode_date, decode_number};

/// Parse `2050`, `0x0802`, or a negative smallint like `-32768`.
pub(crate) fn parse_word(text: &str, bits: u32) -> Result<u64, Error> {
    let t = text.trim();
    let bad = || {
        Error::Usage(format!(
            "decode: expected a {bits}-bit value (decimal or 0x hex), found {text:?}"
        ))
    };
    let value: i128 = if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).map_err(|_| bad())?
    } else {
        t.parse::<i128>().map_err(|_| bad())?
    };
    let max = (1i128 << bits) - 1;
    let min = -(1i128 << (bits - 1));
    if value > max || value < min {
        return Err(bad());
    }
    Ok((value & max) as u64)
}

/// A PostgreSQL flag word or line pointer, explained.
pub(crate) fn postgres_word(what: Word, text: &str) -> Result<DecodedWord, Error> {
    let bits = if what == Word::Lp { 32 } else { 16 };
    let value = parse_word(text, bits)?;
    let flags_json = |set: Vec<&'static flags::Flag>| -> Vec<FlagJson> {
        set.into_iter()
            .map(|f| FlagJson {
                mask: format!("0x{:04x}", f.mask),
                name: f.name,
                meaning: f.meaning,
            })
            .collect()
    };
    let word16 = value as u16;
    let mut d = DecodedWord {
        word: "",
        value,
        hex: if bits == 32 {
            format!("0x{value:08x}")
        } else {
            format!("0x{value:04x}")
        },
        natts: None,
        lp_off: None,
        lp_flags: None,
        lp_flags_name: None,
        lp_len: None,
        flags: Vec::new(),
        combined_flags: None,
        unknown_bits: "0x0000".to_string(),
    };
    let single = |set: Vec<&'static flags::Flag>| -> Vec<&'static flags::Flag> {
        set.into_iter()
            .filter(|f| f.mask.count_ones() == 1)
            .collect()
    };
    match what {
        Word::Infomask => {
            d.word = "t_infomask";
            let (set, unknown) = flags::names(word16, flags::INFOMASK, 0xFFFF);
            d.flags = flags_json(set);
            let (combined, _) = flags::names(word16, flags::INFOMASK_COMBINED, 0);
            d.combined_flags = Some(flags_json(combined));
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        Word::Infomask2 => {
            d.word = "t_infomask2";
            d.natts = Some(word16 & 0x07FF);
            let (set, unknown) = flags::names(word16, flags::INFOMASK2, !0x07FF);
            d.flags = flags_json(single(set));
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        Word::PdFlags => {
            d.word = "pd_flags";
            let (set, unknown) = flags::names(word16, flags::PD_FLAGS, 0xFFFF);
            d.flags = flags_json(set);
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        Word::BtpoFlags => {
            d.word = "btpo_flags";
            let (set, unknown) = flags::names(word16, flags::BTPO_FLAGS, 0xFFFF);
            d.flags = flags_json(set);
            d.unknown_bits = format!("0x{unknown:04x}");
        }
        Word::Lp => {
            d.word = "lp";
            let id = ItemId::from_word(0, value as u32);
            d.lp_off = Some(id.lp_off);
            d.lp_flags = Some(id.lp_flags.code());
            d.lp_flags_name = Some(id.lp_flags.name());
            d.lp_len = Some(id.lp_len);
        }
        // Oracle words are explained by their own functions below.
        Word::OracleRdba
        | Word::OracleFb
        | Word::OracleFlg
        | Word::OracleItlFlag
        | Word::OracleNumber
        | Word::OracleDate
        | Word::Rowid => {}
    }
    Ok(d)
}

/// Bytes written as hex pairs (`c2 4a 46`, `c24a46`, `c2,4a,46`, `0xc2 …`) or
/// as `DUMP()` prints them (`Typ=2 Len=3: c2,4a,46`; decimal when the list has
/// no hex letters, as plain `DUMP(col)` prints it).
pub(crate) fn parse_bytes(text: &str) -> Result<Vec<u8>, Error> {
    let bad = |why: &str| {
        Error::Usage(format!(
            "decode: expected bytes as hex pairs (c2 4a 46) or DUMP() output, found {text:?}: {why}"
        ))
    };
    let (list, decimal) = match text.split_once(':') {
        Some((head, rest)) if head.trim_start().starts_with("Typ=") => {
            let has_letters = rest.chars().any(|c| c.is_ascii_alphabetic());
            (rest, !has_letters)
        }
        _ => (text, false),
    };
    let mut bytes = Vec::new();
    for token in list.split(|c: char| c.is_whitespace() || c == ',') {
        let t = token.trim();
        if t.is_empty() {
            continue;
        }
        if decimal {
            bytes.push(t.parse::<u8>().map_err(|_| bad("not a decimal byte"))?);
            continue;
        }
        let t = t
            .strip_prefix("0x")
            .or_else(|| t.strip_prefix("0X"))
            .unwrap_or(t);
        if t.len() % 2 == 1 && t.len() > 1 {
            return Err(bad("odd number of hex digits"));
        }
        if t.len() == 1 {
            bytes.push(u8::from_str_radix(t, 16).map_err(|_| bad("not hex"))?);
            continue;
        }
        let mut i = 0;
        while let Some(pair) = t.get(i..i + 2) {
            bytes.push(u8::from_str_radix(pair, 16).map_err(|_| bad("not hex"))?);
            i += 2;
        }
    }
    if bytes.is_empty() {
        return Err(bad("no bytes"));
    }
    Ok(bytes)
}

pub(crate) fn spaced(bytes: &[u8]) -> String {
    crate::model::oracle::hex_string(bytes)
}

/// One value of kind `what`, explained.
pub(crate) fn explain(what: Word, value: &str) -> Result<Explained, Error> {
    let oracle = Explained::Oracle;
    Ok(match what {
        Word::Infomask | Word::Infomask2 | Word::Lp | Word::PdFlags | Word::BtpoFlags => {
            Explained::Postgres(postgres_word(what, value)?)
        }
        Word::OracleRdba => oracle(rdba(parse_word(value, 32)? as u32)),
        Word::OracleFb => oracle(row_flag(parse_word(value, 8)? as u8)),
        Word::OracleFlg => oracle(cache_flag(parse_word(value, 8)? as u8)),
        Word::OracleItlFlag => oracle(itl_flag(parse_word(value, 16)? as u16)),
        Word::OracleNumber => oracle(number(&parse_bytes(value)?)?),
        Word::OracleDate => oracle(date(&parse_bytes(value)?)?),
        Word::Rowid => oracle(rowid(value.trim())?),
    })
}

fn rdba(v: u32) -> OracleWord {
    let r = Rdba(v);
    let (shown_file, shown_block) = r.split(false);
    OracleWord::Rdba {
        word: "rdba",
        value: v,
        hex: format!("0x{v:08x}"),
        smallfile: FileBlock {
            file: r.file(),
            block: r.block(),
        },
        bigfile: FileBlock {
            file: 1024,
            block: v,
        },
        dump: format!("0x{v:08x} ({shown_file}/{shown_block})"),
    }
}

fn row_flag(v: u8) -> OracleWord {
    let letters = names::row_flag_string(v);
    let flags = names::ROW_FLAGS
        .iter()
        .filter(|f| v & f.0 != 0)
        .map(|&(mask, letter, name, meaning)| OracleFlag {
            mask: format!("0x{mask:02x}"),
            letter: Some(letter.to_string()),
            name,
            meaning,
        })
        .collect();
    OracleWord::Fb {
        word: "fb",
        value: v,
        hex: format!("0x{v:02x}"),
        fb: letters,
        flags,
    }
}

fn cache_flag(v: u8) -> OracleWord {
    let flags = names::KCBH_FLG
        .iter()
        .filter(|b| u16::from(v) & b.mask != 0)
        .map(|b| OracleFlag {
            mask: format!("0x{:02x}", b.mask),
            letter: None,
            name: b.name,
            meaning: b.meaning,
        })
        .collect();
    let (_, unknown) = names::kcbh_flag_names(v);
    OracleWord::Flg {
        word: "flg_kcbh",
        value: v,
        hex: format!("0x{v:02x}"),
        flags,
        unknown_bits: format!("0x{unknown:02x}"),
    }
}

fn itl_flag(v: u16) -> OracleWord {
    let letters = names::itl_flag_string(v);
    let lck = v & 0x0fff;
    let flags = names::ITL_FLAGS
        .iter()
        .filter(|f| v & f.0 != 0)
        .map(|&(mask, letter, name, meaning)| OracleFlag {
            mask: format!("0x{mask:04x}"),
            letter: Some(letter.to_string()),
            name: if name.is_empty() { "-" } else { name },
            meaning,
        })
        .collect();
    OracleWord::ItlFlag {
        word: "ktbitflg",
        value: v,
        hex: format!("0x{v:04x}"),
        flag: letters,
        lck,
        flags,
    }
}

fn number(bytes: &[u8]) -> Result<OracleWord, Error> {
    let n = decode_number(bytes)
        .map_err(|e| Error::Usage(format!("decode oracle-number: {}: {e}", spaced(bytes))))?;
    Ok(OracleWord::Number {
        word: "NUMBER",
        first: bytes.first().copied(),
        bytes: spaced(bytes),
        value: n.text,
        negative: n.negative,
        exponent: n.exponent,
        digits: n.digits,
    })
}

fn date(bytes: &[u8]) -> Result<OracleWord, Error> {
    let d = decode_date(bytes)
        .map_err(|e| Error::Usage(format!("decode oracle-date: {}: {e}", spaced(bytes))))?;
    let what = if d.nanos.is_some() {
        "TIMESTAMP"
    } else {
        "DATE"
    };
    Ok(OracleWord::Date {
        word: what,
        bytes: spaced(bytes),
        value: d.to_string(),
    })
}

/// The value of `text` in the extended ROWID alphabet (`A-Z a-z 0-9 + /`,
/// 6 bits a character, most significant first).
fn rowid_base64(text: &str, part: &str) -> Result<u64, Error> {
    text.bytes().try_fold(0u64, |acc, c| {
        let d = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            _ => {
                return Err(Error::Usage(format!(
                    "decode rowid: {:?} in the {part} is not a ROWID character (A-Z a-z 0-9 + /)",
                    c as char
                )))
            }
        };
        Ok(acc << 6 | u64::from(d))
    })
}

/// An Oracle ROWID: extended, 18 characters `OOOOOOFFFBBBBBBRRR` (data
/// object id, relative file, block, row; base 64), or restricted
/// `BBBBBBBB.RRRR.FFFF` (block, row, file; hex).
fn rowid(text: &str) -> Result<OracleWord, Error> {
    let restricted: Vec<&str> = text.split('.').collect();
    let (format, object, file, block, row) = if restricted.len() == 3 {
        let hex = |s: &str, n: usize, part: &str| -> Result<u64, Error> {
            if s.len() != n || !s.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(Error::Usage(format!(
                    "decode rowid: restricted ROWID BBBBBBBB.RRRR.FFFF: the {part} {s:?} is not \
                     {n} hex digits"
                )));
            }
            Ok(u64::from_str_radix(s, 16).unwrap_or(0))
        };
        let block = hex(restricted[0], 8, "block")?;
        let row = hex(restricted[1], 4, "row")?;
        let file = hex(restricted[2], 4, "file")?;
        ("restricted", None, file, block, row)
    } else if text.len() == 18 && text.is_ascii() {
        let object = rowid_base64(&text[0..6], "data object id")?;
        let file = rowid_base64(&text[6..9], "relative file number")?;
        let block = rowid_base64(&text[9..15], "block number")?;
        let row = rowid_base64(&text[15..18], "row number")?;
        if object > u64::from(u32::MAX) || block > u64::from(u32::MAX) {
            return Err(Error::Usage(format!(
                "decode rowid: {text}: the data object id and block number are 32-bit; \
                 its first character of each must be A-D"
            )));
        }
        ("extended", Some(object as u32), file, block, row)
    } else {
        return Err(Error::Usage(format!(
            "decode rowid: {text:?} is neither an extended ROWID (18 characters \
             OOOOOOFFFBBBBBBRRR) nor a restricted one (BBBBBBBB.RRRR.FFFF)"
        )));
    };
    let (file, block, row) = (file as u32, block as u32, row as u32);
    Ok(OracleWord::Rowid {
        word: "rowid",
        rowid: text.to_string(),
        format,
        data_object_id: object,
        relative_file: file,
        block,
        row,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_lists() {
        assert_eq!(parse_bytes("c2 4a 46").unwrap(), vec![0xc2, 0x4a, 0x46]);
        assert_eq!(parse_bytes("c24a46").unwrap(), vec![0xc2, 0x4a, 0x46]);
        assert_eq!(
            parse_bytes("0xc2,0x4a,0x46").unwrap(),
            vec![0xc2, 0x4a, 0x46]
        );
        assert_eq!(
            parse_bytes("Typ=2 Len=3: c2,4a,46").unwrap(),
            vec![0xc2, 0x4a, 0x46]
        );
        assert_eq!(
            parse_bytes("Typ=12 Len=7: 120,110,2,12,1,1,1").unwrap(),
            vec![120, 110, 2, 12, 1, 1, 1]
        );
        assert!(parse_bytes("zz").is_err());
        assert!(parse_bytes("c2 4").is_ok());
        assert!(parse_bytes("").is_err());
        assert!(parse_bytes("c24").is_err());
    }

    #[test]
    fn words() {
        assert_eq!(parse_word("2050", 16).unwrap(), 2050);
        assert_eq!(parse_word("0x0802", 16).unwrap(), 2050);
        assert_eq!(parse_word("-1", 16).unwrap(), 0xFFFF);
        assert!(parse_word("65536", 16).is_err());
        assert_eq!(parse_word("0x004e9fd8", 32).unwrap(), 0x004e9fd8);
        assert!(parse_word("nope", 16).is_err());
    }
}
