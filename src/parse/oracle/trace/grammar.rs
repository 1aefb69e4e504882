//! The nom toolkit the trace's line grammars are written with: words,
//! keywords and numbers in the forms Oracle prints them, and errors that carry
//! the line and column where a line stops fitting its grammar.
//!
//! A grammar runs on a tail of one (end-trimmed) trace line; the column of an
//! error is where the offending word starts in that line.

use nom::bytes::complete::{tag, take_till1, take_while, take_while1};
use nom::combinator::{all_consuming, opt, recognize};
use nom::error::{ErrorKind, ParseError};
use nom::sequence::preceded;
use nom::{IResult, Parser};

use crate::error::TextError;

/// Where a grammar failed (the remaining input), and why.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct Fail<'a> {
    pub at: &'a str,
    /// `None`: nom's own failure (a missing word or keyword); `Some`: the
    /// whole message.
    pub message: Option<String>,
}

impl<'a> ParseError<&'a str> for Fail<'a> {
    fn from_error_kind(input: &'a str, _: ErrorKind) -> Self {
        Fail {
            at: input,
            message: None,
        }
    }

    fn append(_: &'a str, _: ErrorKind, other: Self) -> Self {
        other
    }
}

pub(super) type PResult<'a, T> = IResult<&'a str, T, Fail<'a>>;

fn fail<T>(at: &str, message: String) -> PResult<'_, T> {
    Err(nom::Err::Error(Fail {
        at,
        message: Some(message),
    }))
}

/// One line of the trace: its 1-based number and its text (end-trimmed).
#[derive(Clone, Copy, Debug)]
pub(super) struct Line<'a> {
    pub no: usize,
    pub text: &'a str,
}

impl<'a> Line<'a> {
    /// 1-based column (in characters) where `part`, a piece of this line's
    /// text, begins (1 for text that is not part of the line).
    pub(crate) fn column(&self, part: &str) -> usize {
        let offset = (part.as_ptr() as usize).wrapping_sub(self.text.as_ptr() as usize);
        self.text
            .get(..offset)
            .map_or(1, |s| s.chars().count().saturating_add(1))
    }

    /// An error at the start of `rest` (leading blanks skipped).
    pub(crate) fn error(&self, rest: &str, message: String) -> TextError {
        TextError::at(self.no, self.column(rest.trim_start()), message)
    }

    /// An error about the line as a whole.
    pub(crate) fn whole(&self, message: String) -> TextError {
        TextError::at(self.no, 0, message)
    }
}

/// A line shortened for an error message.
pub(super) fn clip(s: &str) -> String {
    let t: String = s.trim().chars().take(60).collect();
    if t.len() < s.trim().len() {
        format!("{t}…")
    } else {
        t
    }
}

/// Blanks (any Unicode white space).
pub(super) fn blanks(i: &str) -> PResult<'_, &str> {
    take_while(char::is_whitespace).parse(i)
}

/// A run of non-blank characters after optional blanks.
pub(super) fn word(i: &str) -> PResult<'_, &str> {
    preceded(blanks, take_till1(char::is_whitespace)).parse(i)
}

/// `0x` (or `0X`) and 1 to 16 hex digits, the whole of `w`.
pub(super) fn hex_text(w: &str) -> Option<u64> {
    let digits = |i| take_while1(|c: char| c.is_ascii_hexdigit()).parse(i);
    let r: PResult<'_, &str> =
        all_consuming(preceded(nom::branch::alt((tag("0x"), tag("0X"))), digits)).parse(w);
    let (_, h) = r.ok()?;
    if h.len() > 16 {
        return None;
    }
    u64::from_str_radix(h, 16).ok()
}

/// A hex word `0x…` (`what` names the line's grammar in the message).
pub(super) fn hex_word<'a>(what: &'a str) -> impl Parser<&'a str, Output = u64, Error = Fail<'a>> {
    move |i: &'a str| {
        let (rest, w) = word(i)?;
        match hex_text(w) {
            Some(v) => Ok((rest, v)),
            None if !w.starts_with("0x") && !w.starts_with("0X") => fail(
                i.trim_start(),
                format!("expected {what}, found {:?} (no 0x)", clip(w)),
            ),
            None => fail(
                i.trim_start(),
                format!("expected {what}, found {:?}", clip(w)),
            ),
        }
    }
}

/// A decimal word (an optional `-` and digits) parsed as `T`.
pub(super) fn dec_word<'a, T: std::str::FromStr>(
    what: &'a str,
) -> impl Parser<&'a str, Output = T, Error = Fail<'a>> {
    move |i: &'a str| {
        let (rest, w) = word(i)?;
        match w.parse() {
            Ok(v) => Ok((rest, v)),
            Err(_) => fail(
                i.trim_start(),
                format!("expected {what}, found {:?}", clip(w)),
            ),
        }
    }
}

/// A decimal number at the start of `i` (no blanks): `-12`, `907`.
pub(super) fn decimal(i: &str) -> PResult<'_, &str> {
    recognize((opt(tag("-")), take_while1(|c: char| c.is_ascii_digit()))).parse(i)
}

/// Any of the SCN print forms (§2.5): `0xWRAP.BASE` or `0xVALUE`.
pub(super) fn scn_text(w: &str) -> Option<u64> {
    let h = w.strip_prefix("0x")?;
    match h.split_once('.') {
        Some((wrap, base))
            if !wrap.is_empty() && wrap.len() <= 8 && !base.is_empty() && base.len() <= 8 =>
        {
            let wrap = u32::from_str_radix(wrap, 16).ok()?;
            let base = u32::from_str_radix(base, 16).ok()?;
            Some(crate::reader::u64_from_halves(wrap, base))
        }
        Some(_) => None,
        None if !h.is_empty() && h.len() <= 16 => u64::from_str_radix(h, 16).ok(),
        None => None,
    }
}

/// The words of one line's grammar, consumed left to right by nom parsers;
/// errors name the grammar (`what`), the text and the column.
pub(super) struct Words<'a> {
    line: Line<'a>,
    /// The part of the line the grammar was given.
    text: &'a str,
    rest: &'a str,
    what: &'a str,
}

impl<'a> Words<'a> {
    pub(crate) fn new(line: Line<'a>, text: &'a str, what: &'a str) -> Self {
        Words {
            line,
            text,
            rest: text,
            what,
        }
    }

    /// `expected WHAT, found TEXT: why` at the current word.
    pub(crate) fn fail(&self, why: &str) -> TextError {
        self.line.error(
            self.rest,
            format!("expected {}, found {:?}: {why}", self.what, clip(self.text)),
        )
    }

    /// Run `p` on the rest of the line.
    pub(crate) fn run<T>(
        &mut self,
        mut p: impl Parser<&'a str, Output = T, Error = Fail<'a>>,
    ) -> Result<T, TextError> {
        match p.parse(self.rest) {
            Ok((rest, v)) => {
                self.rest = rest;
                Ok(v)
            }
            Err(nom::Err::Error(f) | nom::Err::Failure(f)) => Err(match f.message {
                Some(m) => self.line.error(f.at, m),
                None if f.at.trim().is_empty() => self.fail("line ends early"),
                None => self.fail("unexpected word"),
            }),
            Err(nom::Err::Incomplete(_)) => Err(self.fail("line ends early")),
        }
    }

    pub(crate) fn next(&mut self) -> Result<&'a str, TextError> {
        self.run(word)
    }

    /// The keyword `k` as a word of its own.
    pub(crate) fn key(&mut self, k: &str) -> Result<(), TextError> {
        let at = self.rest;
        match word(at) {
            Ok((rest, w)) if w == k => {
                self.rest = rest;
                Ok(())
            }
            Ok(_) => Err(self.fail(&format!("`{k}` missing"))),
            Err(_) => Err(self.fail("line ends early")),
        }
    }

    pub(crate) fn hex_u64(&mut self) -> Result<u64, TextError> {
        let what = self.what;
        self.run(hex_word(what))
    }

    fn hex_max(&mut self, bits: u32, max: u64) -> Result<u64, TextError> {
        let at = self.rest;
        let v = self.hex_u64()?;
        if v > max {
            let w = word(at).map_or("", |(_, w)| w);
            return Err(self.line.error(
                at,
                format!("expected {} ({bits} bits), found {:?}", self.what, clip(w)),
            ));
        }
        Ok(v)
    }

    pub(crate) fn hex_u32(&mut self) -> Result<u32, TextError> {
        Ok(self.hex_max(32, u32::MAX.into())? as u32)
    }

    pub(crate) fn hex_u16(&mut self) -> Result<u16, TextError> {
        Ok(self.hex_max(16, u16::MAX.into())? as u16)
    }

    pub(crate) fn hex_u8(&mut self) -> Result<u8, TextError> {
        let at = self.rest;
        let v = self.hex_u64()?;
        u8::try_from(v).map_err(|_| {
            let mut w = Words { rest: at, ..*self };
            w.rest = at;
            w.fail("value over 0xff")
        })
    }

    pub(crate) fn dec<T: std::str::FromStr>(&mut self) -> Result<T, TextError> {
        let what = self.what;
        self.run(dec_word(what))
    }

    /// One character as a word (`flg: E`).
    pub(crate) fn char(&mut self) -> Result<char, TextError> {
        let at = self.rest;
        let w = self.next()?;
        let mut cs = w.chars();
        match (cs.next(), cs.next()) {
            (Some(c), None) => Ok(c),
            _ => Err(Words { rest: at, ..*self }.fail("expected one letter")),
        }
    }

    /// `(F/B)`.
    pub(crate) fn paren_pair(&mut self) -> Result<(u32, u32), TextError> {
        let at = self.rest;
        let pair = |i| -> PResult<'_, (&str, &str)> {
            let (i, _) = preceded(blanks, tag("(")).parse(i)?;
            let (i, f) = decimal(i)?;
            let (i, _) = tag("/").parse(i)?;
            let (i, b) = decimal(i)?;
            let (i, _) = tag(")").parse(i)?;
            Ok((i, (f, b)))
        };
        let Ok((rest, (f, b))) = pair(at) else {
            return Err(self.fail("`(file/block)` missing"));
        };
        let bad = |w: &str| {
            self.line
                .error(at, format!("expected {}, found {:?}", self.what, clip(w)))
        };
        let f = f.parse().map_err(|_| bad(f))?;
        let b = b.parse().map_err(|_| bad(b))?;
        self.rest = rest;
        Ok((f, b))
    }

    /// Any of the SCN print forms (§2.5): `0x0000.001732d3`, `0x0.4e9af4` or `0x80e5e2`.
    pub(crate) fn scn(&mut self) -> Result<u64, TextError> {
        let at = self.rest;
        let w = self.next()?;
        scn_text(w).ok_or_else(|| {
            Words { rest: at, ..*self }
                .fail("expected an SCN (0x0000.001732d3, 0x0.4e9af4 or 0x80e5e2)")
        })
    }

    /// The next word, or `""` at the end.
    pub(crate) fn rest_word(&mut self) -> &'a str {
        match word(self.rest) {
            Ok((rest, w)) => {
                self.rest = rest;
                w
            }
            Err(_) => "",
        }
    }

    /// What is left of the line.
    pub(crate) fn remaining(&self) -> &'a str {
        self.rest
    }

    /// Whether a word follows.
    pub(crate) fn more(&self) -> bool {
        !self.rest.trim().is_empty()
    }

    pub(crate) fn end(&mut self) -> Result<(), TextError> {
        if self.more() {
            Err(self.fail("unexpected words at the end"))
        } else {
            Ok(())
        }
    }
}

/// `0x…` as a whole value (`what` names the grammar).
pub(super) fn hex_value(line: Line<'_>, s: &str, what: &str) -> Result<u64, TextError> {
    let mut w = Words::new(line, s, what);
    let v = w.hex_u64()?;
    w.end()?;
    Ok(v)
}

/// `0x…` of at most 32 bits.
pub(super) fn hex_u32(line: Line<'_>, s: &str, what: &str) -> Result<u32, TextError> {
    let mut w = Words::new(line, s, what);
    let v = w.hex_u32()?;
    w.end()?;
    Ok(v)
}

/// `0x…` of at most 16 bits.
pub(super) fn hex_u16(line: Line<'_>, s: &str, what: &str) -> Result<u16, TextError> {
    let mut w = Words::new(line, s, what);
    let v = w.hex_u16()?;
    w.end()?;
    Ok(v)
}

/// A decimal value, the whole of `s`.
pub(super) fn dec<T: std::str::FromStr>(
    line: Line<'_>,
    s: &str,
    what: &str,
) -> Result<T, TextError> {
    s.trim()
        .parse()
        .map_err(|_| line.error(s, format!("expected {what}, found {:?}", clip(s))))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str) -> Line<'_> {
        Line { no: 7, text }
    }

    #[test]
    fn words_and_numbers() {
        assert_eq!(word("  ab cd"), Ok((" cd", "ab")));
        assert!(word("   ").is_err());
        assert_eq!(hex_text("0x1f"), Some(0x1f));
        assert_eq!(hex_text("0X1F"), Some(0x1f));
        assert_eq!(hex_text("1f"), None);
        assert_eq!(hex_text("0x"), None);
        assert_eq!(hex_text("0x1g"), None);
        assert_eq!(hex_text(&format!("0x{}", "f".repeat(17))), None);
        assert_eq!(decimal("-12x"), Ok(("x", "-12")));
        assert_eq!(scn_text("0x0000.001732d3"), Some(0x1732d3));
        assert_eq!(scn_text("0x1.00000002"), Some((1 << 32) | 2));
        assert_eq!(scn_text("0x80e5e2"), Some(0x80e5e2));
        assert_eq!(scn_text("0x.1"), None);
    }

    #[test]
    fn errors_carry_line_and_column() {
        let text = "tl: 14 fb: --H-FL-- lb: zz  cc: 1";
        let l = line(text);
        let mut w = Words::new(l, &text[3..], "`tl: …`");
        assert_eq!(w.dec::<u32>().unwrap(), 14);
        w.key("fb:").unwrap();
        w.next().unwrap();
        w.key("lb:").unwrap();
        let e = w.hex_u8().unwrap_err();
        assert_eq!((e.line, e.column), (7, 25));
        assert_eq!(e.message, "expected `tl: …`, found \"zz\" (no 0x)");
        let mut w = Words::new(l, text, "`x`");
        let e = w.key("rdba:").unwrap_err();
        assert_eq!((e.line, e.column), (7, 1));
        assert!(e.message.ends_with("`rdba:` missing"), "{}", e.message);
    }

    #[test]
    fn widths_and_line_ends() {
        let l = line("x 0x1ffff 0x100");
        let e = hex_u16(l, &l.text[1..], "`n`").unwrap_err();
        assert_eq!(e.column, 3);
        assert_eq!(e.message, "expected `n` (16 bits), found \"0x1ffff\"");
        let mut w = Words::new(l, &l.text[9..], "`n`");
        assert!(w.hex_u8().is_err());
        let mut w = Words::new(l, "", "`n`");
        assert!(w.next().unwrap_err().message.ends_with("line ends early"));
        let l = line("(5/907) z");
        let mut w = Words::new(l, l.text, "`p`");
        assert_eq!(w.paren_pair().unwrap(), (5, 907));
        let e = w.end().unwrap_err();
        assert_eq!(e.column, 9);
    }
}
