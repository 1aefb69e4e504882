//! One attribute of a tuple as JSON, and bytea's hex text form: the leaf
//! that the heap items' JSON (`json.rs`) and the index items' JSON
//! (`index.rs`) both build on.

use serde::Serialize;

use crate::model::postgres::{Attr, Storage, ToastPointer, Typed};

/// One attribute: what `SELECT` prints for it and what `tuple_data_split`
/// gives as its bytes, with how it is stored.
#[derive(Serialize)]
pub struct AttrJson<'a> {
    pub attnum: u16,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<&'a str>,
    #[serde(rename = "type")]
    pub type_name: &'a str,
    /// The value as PostgreSQL prints it; a JSON number or boolean where that
    /// is exact; `null` for SQL NULL or a value that could not be read.
    pub value: serde_json::Value,
    /// The raw datum as `tuple_data_split` gives it (`"\\x0b726f7736"`).
    pub raw: Option<String>,
    /// plain, short, 4b, compressed-pglz, compressed-lz4, external-toast,
    /// external-other, cstring, null, missing, unread.
    pub storage: String,
    /// Page offset of the attribute's first byte.
    pub offset: Option<usize>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub dropped: bool,
    /// `true` when `value` is the value's bytes in hex (type not printed).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hex: bool,
    /// Inline compression: method and uncompressed size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub compression: Option<serde_json::Value>,
    /// The TOAST pointer of an out-of-line value.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub toast: Option<&'a ToastPointer>,
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub problems: &'a [String],
}

impl<'a> AttrJson<'a> {
    pub fn from_attr(a: &'a Attr) -> Self {
        use serde_json::json;
        let value = match &a.value {
            None => serde_json::Value::Null,
            Some(v) => match v.typed {
                Typed::Text | Typed::Hex => json!(v.text),
                Typed::Bool(b) => json!(b),
                Typed::Int(i) => json!(i),
                Typed::UInt(u) => json!(u),
                Typed::Float(f) => json!(f.0),
            },
        };
        AttrJson {
            attnum: a.attnum,
            name: a.name.as_deref(),
            type_name: &a.type_name,
            value,
            raw: a.raw.as_deref().map(bytea_text),
            storage: a.storage.name(),
            offset: a.offset,
            dropped: a.dropped,
            hex: a.value.as_ref().is_some_and(|v| v.typed == Typed::Hex),
            compression: match a.storage {
                Storage::Compressed { method, rawsize } => {
                    Some(json!({"method": method.name(), "rawsize": rawsize}))
                }
                _ => None,
            },
            toast: a.toast.as_ref(),
            problems: &a.problems,
        }
    }
}

/// bytea's text form: `\x` then lowercase hex.
pub fn bytea_text(bytes: &[u8]) -> String {
    let mut text = Vec::with_capacity(2 + bytes.len() * 2);
    text.extend_from_slice(b"\\x");
    push_hex(&mut text, bytes);
    // Only ASCII was written, so this cannot fail.
    String::from_utf8(text).unwrap_or_default()
}

/// Append `bytes` as lowercase hex digits.
pub(crate) fn push_hex(out: &mut Vec<u8>, bytes: &[u8]) {
    let at = out.len();
    out.resize(at + bytes.len() * 2, 0);
    // The destination is exactly twice the source: hex_encode cannot fail.
    let _ = faster_hex::hex_encode(bytes, &mut out[at..]);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn push_hex_matches_format_for_every_byte_and_length() {
        let bytes: Vec<u8> = (0..=255u8).chain((0..=255u8).rev()).collect();
        for len in [0, 1, 7, 8, 9, 15, 16, 17, 255, 512] {
            let mut out = b"x".to_vec();
            push_hex(&mut out, &bytes[..len]);
            let want: String = bytes[..len].iter().map(|b| format!("{b:02x}")).collect();
            assert_eq!(out, [b"x".as_slice(), want.as_bytes()].concat(), "{len}");
        }
    }

    #[test]
    fn bytea_is_backslash_x_lowercase() {
        assert_eq!(bytea_text(&[0x01, 0xAB]), "\\x01ab");
        assert_eq!(bytea_text(&[]), "\\x");
    }
}
