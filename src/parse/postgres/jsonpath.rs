//! `jsonpath` (utils/jsonpath.h, adt/jsonpath.c): the binary form a path is
//! stored in, printed back as `jsonpath_out` prints it.
//!
//! The datum (varlena header stripped) is a uint32 header — the version (1)
//! and the `lax` flag 0x80000000 — then the items. Each item starts with its
//! type byte, then (int-aligned from the first item) an int32 position of
//! the next item of the chain (0 for none), then what the type carries:
//! positions of its operands, a string, a numeric, bounds. Positions count
//! from the item's own start. PostgreSQL 15's item types are all printed,
//! as are the item methods of 17 and later; a type byte not known here is
//! an error (the caller shows the bytes as hex), never a guessed text.

use super::datum::{byte, numeric_out, u32_at};

/// The version in the low bits of the header.
const JSONPATH_VERSION: u32 = 0x01;
/// The header's flag of a `lax` path (a `strict` one lacks it).
const JSONPATH_LAX: u32 = 0x8000_0000;

/// How deep items may nest before the printer gives up (a damaged path may
/// point an item at itself).
const MAX_DEPTH: usize = 256;
/// How many items one path may print, whatever their nesting.
const MAX_ITEMS: usize = 100_000;

// The item types, in JsonPathItemType's order (part of the on-disk form).
const NULL: u8 = 0;
const STRING: u8 = 1;
const NUMERIC: u8 = 2;
const BOOL: u8 = 3;
const AND: u8 = 4;
const OR: u8 = 5;
const NOT: u8 = 6;
const IS_UNKNOWN: u8 = 7;
const EQUAL: u8 = 8;
const NOT_EQUAL: u8 = 9;
const LESS: u8 = 10;
const GREATER: u8 = 11;
const LESS_OR_EQUAL: u8 = 12;
const GREATER_OR_EQUAL: u8 = 13;
const ADD: u8 = 14;
const SUB: u8 = 15;
const MUL: u8 = 16;
const DIV: u8 = 17;
const MOD: u8 = 18;
const PLUS: u8 = 19;
const MINUS: u8 = 20;
const ANY_ARRAY: u8 = 21;
const ANY_KEY: u8 = 22;
const INDEX_ARRAY: u8 = 23;
const ANY: u8 = 24;
const KEY: u8 = 25;
const CURRENT: u8 = 26;
const ROOT: u8 = 27;
const VARIABLE: u8 = 28;
const FILTER: u8 = 29;
const EXISTS: u8 = 30;
const TYPE: u8 = 31;
const SIZE: u8 = 32;
const ABS: u8 = 33;
const FLOOR: u8 = 34;
const CEILING: u8 = 35;
const DOUBLE: u8 = 36;
const DATETIME: u8 = 37;
const KEY_VALUE: u8 = 38;
const SUBSCRIPT: u8 = 39;
const LAST: u8 = 40;
const STARTS_WITH: u8 = 41;
const LIKE_REGEX: u8 = 42;
// PostgreSQL 17 and later.
const BIGINT: u8 = 43;
const BOOLEAN: u8 = 44;
const DATE: u8 = 45;
const DECIMAL: u8 = 46;
const INTEGER: u8 = 47;
const NUMBER: u8 = 48;
const STRING_FUNC: u8 = 49;
const TIME: u8 = 50;
const TIME_TZ: u8 = 51;
const TIMESTAMP: u8 = 52;
const TIMESTAMP_TZ: u8 = 53;

/// like_regex flags (JSP_REGEX_*), in the order jsonpath_out prints them.
const REGEX_FLAGS: [(u32, char); 5] = [
    (0x01, 'i'),
    (0x02, 's'),
    (0x04, 'm'),
    (0x08, 'x'),
    (0x10, 'q'),
];

/// `jsonpath_out`: the path's text.
pub(crate) fn jsonpath_out(data: &[u8]) -> Result<String, String> {
    let header = u32_at(data, 0)?;
    if header & !JSONPATH_LAX != JSONPATH_VERSION {
        return Err(format!(
            "jsonpath header 0x{header:08x} is not version {JSONPATH_VERSION}"
        ));
    }
    let mut p = Printer {
        base: data.get(4..).unwrap_or_default(),
        out: String::new(),
        items: 0,
    };
    if header & JSONPATH_LAX == 0 {
        p.out.push_str("strict ");
    }
    p.print(0, false, true, 0)?;
    Ok(p.out)
}

/// One item read from the buffer: its type, start, next and where its own
/// fields start.
struct Item {
    ty: u8,
    at: usize,
    next: Option<usize>,
    fields: usize,
}

struct Printer<'a> {
    /// The items (after the header); positions count from here.
    base: &'a [u8],
    out: String,
    items: usize,
}

impl Printer<'_> {
    fn i32_at(&self, at: usize) -> Result<i32, String> {
        u32_at(self.base, at).map(|v| v as i32)
    }

    /// The position `rel` bytes from item `at` (a stored offset).
    fn target(&self, at: usize, rel: i32) -> Result<usize, String> {
        let to = at as i64 + i64::from(rel);
        if rel <= 0 || to >= self.base.len() as i64 {
            return Err(format!(
                "jsonpath item at byte {at} points to {to}, outside the path"
            ));
        }
        Ok(to as usize)
    }

    fn item(&self, at: usize) -> Result<Item, String> {
        let ty = byte(self.base, at)?;
        let fields = (at + 1).next_multiple_of(4);
        let next = self.i32_at(fields)?;
        Ok(Item {
            ty,
            at,
            next: if next > 0 {
                Some(self.target(at, next)?)
            } else {
                None
            },
            fields: fields + 4,
        })
    }

    /// An operand stored at `field` of item `it` (`None` when 0: absent).
    fn arg(&self, it: &Item, field: usize) -> Result<Option<usize>, String> {
        match self.i32_at(field)? {
            0 => Ok(None),
            rel => self.target(it.at, rel).map(Some),
        }
    }

    fn need_arg(&self, it: &Item, field: usize) -> Result<usize, String> {
        self.arg(it, field)?
            .ok_or_else(|| format!("jsonpath item at byte {} lacks its operand", it.at))
    }

    /// The string an item carries (int32 length, bytes, NUL).
    fn string(&self, at: usize) -> Result<&str, String> {
        let len = self.i32_at(at)?;
        let bytes = usize::try_from(len)
            .ok()
            .and_then(|n| self.base.get(at + 4..at + 4 + n))
            .ok_or_else(|| format!("jsonpath string of {len} bytes runs past the path"))?;
        std::str::from_utf8(bytes).map_err(|_| "jsonpath string is not valid UTF-8".to_string())
    }

    fn escaped(&mut self, at: usize) -> Result<(), String> {
        let s = self.string(at)?.to_string();
        super::jsonb::escape_json(&s, &mut self.out);
        Ok(())
    }

    /// printJsonPathItem.
    fn print(
        &mut self,
        at: usize,
        in_key: bool,
        brackets: bool,
        depth: usize,
    ) -> Result<(), String> {
        if depth > MAX_DEPTH {
            return Err(format!("jsonpath nests deeper than {MAX_DEPTH} items"));
        }
        self.items += 1;
        if self.items > MAX_ITEMS {
            return Err(format!("jsonpath has more than {MAX_ITEMS} items"));
        }
        let it = self.item(at)?;
        let d = depth + 1;
        match it.ty {
            NULL => self.out.push_str("null"),
            STRING => self.escaped(it.fields)?,
            NUMERIC => {
                // A whole numeric varlena (4-byte header) follows.
                let head = u32_at(self.base, it.fields)?;
                let len = (head >> 2) as usize;
                let num = self
                    .base
                    .get(it.fields + 4..it.fields.saturating_add(len))
                    .filter(|_| len >= 4)
                    .ok_or_else(|| "jsonpath numeric runs past the path".to_string())?;
                let text = numeric_out(num)?;
                if it.next.is_some() {
                    self.out.push('(');
                }
                self.out.push_str(&text);
                if it.next.is_some() {
                    self.out.push(')');
                }
            }
            BOOL => {
                let b = byte(self.base, it.fields)?;
                self.out.push_str(if b != 0 { "true" } else { "false" });
            }
            AND | OR | EQUAL | NOT_EQUAL | LESS | GREATER | LESS_OR_EQUAL | GREATER_OR_EQUAL
            | ADD | SUB | MUL | DIV | MOD | STARTS_WITH => {
                let left = self.need_arg(&it, it.fields)?;
                let right = self.need_arg(&it, it.fields + 4)?;
                if brackets {
                    self.out.push('(');
                }
                let prio = priority(it.ty);
                let l = self.item(left)?.ty;
                self.print(left, false, priority(l) <= prio, d)?;
                self.out.push(' ');
                self.out.push_str(operation_name(it.ty));
                self.out.push(' ');
                let r = self.item(right)?.ty;
                self.print(right, false, priority(r) <= prio, d)?;
                if brackets {
                    self.out.push(')');
                }
            }
            NOT => {
                self.out.push_str("!(");
                let arg = self.need_arg(&it, it.fields)?;
                self.print(arg, false, false, d)?;
                self.out.push(')');
            }
            IS_UNKNOWN => {
                self.out.push('(');
                let arg = self.need_arg(&it, it.fields)?;
                self.print(arg, false, false, d)?;
                self.out.push_str(") is unknown");
            }
            PLUS | MINUS => {
                if brackets {
                    self.out.push('(');
                }
                self.out.push(if it.ty == PLUS { '+' } else { '-' });
                let arg = self.need_arg(&it, it.fields)?;
                let a = self.item(arg)?.ty;
                self.print(arg, false, priority(a) <= priority(it.ty), d)?;
                if brackets {
                    self.out.push(')');
                }
            }
            ANY_ARRAY => self.out.push_str("[*]"),
            ANY_KEY => {
                if in_key {
                    self.out.push('.');
                }
                self.out.push('*');
            }
            INDEX_ARRAY => {
                let n = self.i32_at(it.fields)?;
                let n = usize::try_from(n)
                    .ok()
                    .filter(|&n| it.fields + 4 + 8 * n <= self.base.len())
                    .ok_or_else(|| format!("jsonpath subscript count {n} runs past the path"))?;
                self.out.push('[');
                for i in 0..n {
                    if i > 0 {
                        self.out.push(',');
                    }
                    let slot = it.fields + 4 + 8 * i;
                    let from = self.need_arg(&it, slot)?;
                    self.print(from, false, false, d)?;
                    if let Some(to) = self.arg(&it, slot + 4)? {
                        self.out.push_str(" to ");
                        self.print(to, false, false, d)?;
                    }
                }
                self.out.push(']');
            }
            ANY => {
                if in_key {
                    self.out.push('.');
                }
                let first = u32_at(self.base, it.fields)?;
                let last = u32_at(self.base, it.fields + 4)?;
                let s = match (first, last) {
                    (0, u32::MAX) => "**".to_string(),
                    (f, l) if f == l && f == u32::MAX => "**{last}".to_string(),
                    (f, l) if f == l => format!("**{{{f}}}"),
                    (u32::MAX, l) => format!("**{{last to {l}}}"),
                    (f, u32::MAX) => format!("**{{{f} to last}}"),
                    (f, l) => format!("**{{{f} to {l}}}"),
                };
                self.out.push_str(&s);
            }
            KEY => {
                if in_key {
                    self.out.push('.');
                }
                self.escaped(it.fields)?;
            }
            CURRENT => self.out.push('@'),
            ROOT => self.out.push('$'),
            VARIABLE => {
                self.out.push('$');
                self.escaped(it.fields)?;
            }
            FILTER => {
                self.out.push_str("?(");
                let arg = self.need_arg(&it, it.fields)?;
                self.print(arg, false, false, d)?;
                self.out.push(')');
            }
            EXISTS => {
                self.out.push_str("exists (");
                let arg = self.need_arg(&it, it.fields)?;
                self.print(arg, false, false, d)?;
                self.out.push(')');
            }
            TYPE | SIZE | ABS | FLOOR | CEILING | DOUBLE | KEY_VALUE | BIGINT | BOOLEAN | DATE
            | INTEGER | NUMBER | STRING_FUNC => {
                self.out.push('.');
                self.out.push_str(operation_name(it.ty));
                self.out.push_str("()");
            }
            DATETIME | TIME | TIME_TZ | TIMESTAMP | TIMESTAMP_TZ => {
                self.out.push('.');
                self.out.push_str(operation_name(it.ty));
                self.out.push('(');
                if let Some(arg) = self.arg(&it, it.fields)? {
                    self.print(arg, false, false, d)?;
                }
                self.out.push(')');
            }
            DECIMAL => {
                self.out.push_str(".decimal(");
                if let Some(l) = self.arg(&it, it.fields)? {
                    self.print(l, false, false, d)?;
                }
                if let Some(r) = self.arg(&it, it.fields + 4)? {
                    self.out.push(',');
                    self.print(r, false, false, d)?;
                }
                self.out.push(')');
            }
            LAST => self.out.push_str("last"),
            LIKE_REGEX => {
                let flags = u32_at(self.base, it.fields)?;
                let expr = self.need_arg(&it, it.fields + 4)?;
                if brackets {
                    self.out.push('(');
                }
                let e = self.item(expr)?.ty;
                self.print(expr, false, priority(e) <= priority(it.ty), d)?;
                self.out.push_str(" like_regex ");
                self.escaped(it.fields + 8)?;
                if flags != 0 {
                    self.out.push_str(" flag \"");
                    for (bit, c) in REGEX_FLAGS {
                        if flags & bit != 0 {
                            self.out.push(c);
                        }
                    }
                    self.out.push('"');
                }
                if brackets {
                    self.out.push(')');
                }
            }
            SUBSCRIPT => return Err("jsonpath item type 39 (subscript) stands alone".into()),
            t => return Err(format!("jsonpath item type {t} is not known here")),
        }
        if let Some(next) = it.next {
            self.print(next, true, true, d)?;
        }
        Ok(())
    }
}

/// jspOperationName.
fn operation_name(ty: u8) -> &'static str {
    match ty {
        AND => "&&",
        OR => "||",
        EQUAL => "==",
        NOT_EQUAL => "!=",
        LESS => "<",
        GREATER => ">",
        LESS_OR_EQUAL => "<=",
        GREATER_OR_EQUAL => ">=",
        ADD | PLUS => "+",
        SUB | MINUS => "-",
        MUL => "*",
        DIV => "/",
        MOD => "%",
        TYPE => "type",
        SIZE => "size",
        ABS => "abs",
        FLOOR => "floor",
        CEILING => "ceiling",
        DOUBLE => "double",
        DATETIME => "datetime",
        KEY_VALUE => "keyvalue",
        STARTS_WITH => "starts with",
        LIKE_REGEX => "like_regex",
        BIGINT => "bigint",
        BOOLEAN => "boolean",
        DATE => "date",
        DECIMAL => "decimal",
        INTEGER => "integer",
        NUMBER => "number",
        STRING_FUNC => "string",
        TIME => "time",
        TIME_TZ => "time_tz",
        TIMESTAMP => "timestamp",
        TIMESTAMP_TZ => "timestamp_tz",
        _ => "?",
    }
}

/// operationPriority: which operands need parentheses.
fn priority(ty: u8) -> u8 {
    match ty {
        OR => 0,
        AND => 1,
        EQUAL | NOT_EQUAL | LESS | GREATER | LESS_OR_EQUAL | GREATER_OR_EQUAL | STARTS_WITH => 2,
        ADD | SUB => 3,
        MUL | DIV | MOD => 4,
        PLUS | MINUS => 5,
        _ => 6,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Items as flattenJsonPathParseItem writes them.
    struct Buf(Vec<u8>);

    impl Buf {
        fn item(&mut self, ty: u8) -> usize {
            let at = self.0.len();
            self.0.push(ty);
            while !self.0.len().is_multiple_of(4) {
                self.0.push(0);
            }
            self.0.extend_from_slice(&0i32.to_le_bytes());
            at
        }
        fn set(&mut self, field: usize, from: usize, to: usize) {
            let rel = (to - from) as i32;
            self.0[field..field + 4].copy_from_slice(&rel.to_le_bytes());
        }
        fn string(&mut self, s: &str) {
            self.0.extend_from_slice(&(s.len() as i32).to_le_bytes());
            self.0.extend_from_slice(s.as_bytes());
            self.0.push(0);
        }
        fn datum(&self, lax: bool) -> Vec<u8> {
            let h = JSONPATH_VERSION | if lax { JSONPATH_LAX } else { 0 };
            let mut d = h.to_le_bytes().to_vec();
            d.extend_from_slice(&self.0);
            d
        }
    }

    /// `strict $."a"?(@ > 1)` built by hand (int4 numeric 1: header 0x8000, digit 1).
    #[test]
    fn root_key_filter_and_comparison() {
        let mut b = Buf(Vec::new());
        let root = b.item(ROOT);
        let key = b.item(KEY);
        b.string("a");
        b.set(root + 4, root, key);
        let filter = b.item(FILTER);
        b.set(key + 4, key, filter);
        let arg_slot = b.0.len();
        b.0.extend_from_slice(&[0; 4]);
        let gt = b.item(GREATER);
        b.set(arg_slot, filter, gt);
        let (l, r) = (b.0.len(), b.0.len() + 4);
        b.0.extend_from_slice(&[0; 8]);
        let cur = b.item(CURRENT);
        b.set(l, gt, cur);
        let num = b.item(NUMERIC);
        b.set(r, gt, num);
        // numeric 1: varlena header (size 8 << 2), short header 0x8000, digit 0001
        b.0.extend_from_slice(&(8u32 << 2).to_le_bytes());
        b.0.extend_from_slice(&[0x00, 0x80, 0x01, 0x00]);
        assert_eq!(
            jsonpath_out(&b.datum(false)).unwrap(),
            "strict $.\"a\"?(@ > 1)"
        );
        assert_eq!(jsonpath_out(&b.datum(true)).unwrap(), "$.\"a\"?(@ > 1)");
    }

    #[test]
    fn bad_paths_are_errors_not_text() {
        assert!(jsonpath_out(&[]).is_err());
        assert!(jsonpath_out(&[2, 0, 0, 0, ROOT, 0, 0, 0, 0, 0, 0, 0]).is_err());
        // An unknown item type.
        assert!(jsonpath_out(&[1, 0, 0, 0, 200, 0, 0, 0, 0, 0, 0, 0]).is_err());
        // A next pointer past the path is refused; one of 0 or less is no
        // next item (jspHasNext), so a path cannot point back at itself.
        let mut b = Buf(Vec::new());
        b.item(ROOT);
        b.0[4..8].copy_from_slice(&100i32.to_le_bytes());
        assert!(jsonpath_out(&b.datum(true)).is_err());
        b.0[4..8].copy_from_slice(&(-4i32).to_le_bytes());
        assert_eq!(jsonpath_out(&b.datum(true)).unwrap(), "$");
        // A filter whose operand is missing.
        let mut b = Buf(Vec::new());
        b.item(FILTER);
        b.0.extend_from_slice(&[0; 4]);
        assert!(jsonpath_out(&b.datum(true)).is_err());
    }
}
