//! Each signal of the inference on bytes made by hand, and the whole on a
//! page a real PostgreSQL 15 wrote.

use super::*;

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(format!("{}/fixtures/{path}", env!("CARGO_MANIFEST_DIR"))).unwrap()
}

fn top(c: Class, vals: &[&[u8]]) -> String {
    candidates(c, vals, &ToastChunks::index(&[]))[0]
        .type_name
        .clone()
}

const VARLENA: Class = class(-1, Align::Int);

#[test]
fn varlena_headers_place_values() {
    // 1-byte header: 0x07 = length 3 (header included), "ab".
    assert_eq!(place(&[0x07, b'a', b'b'], 0, VARLENA), Some((0, 3)));
    // Zero padding to 4, then a 4-byte header of length 5 (5 << 2 = 20).
    let d = [0, 0, 0, 0, 20, 0, 0, 0, b'x'];
    assert_eq!(place(&d, 1, VARLENA), Some((4, 9)));
    // Padding that is not zero: no attribute starts there.
    let d = [0, 0, 9, 0, 20, 0, 0, 0, b'x'];
    assert_eq!(place(&d, 1, class(4, Align::Int)), None);
    // A TOAST pointer: 0x01, VARTAG_ONDISK, 16 bytes.
    let mut d = vec![0x01, 18];
    d.extend_from_slice(&[0; 16]);
    assert_eq!(place(&d, 0, VARLENA), Some((0, 18)));
    // A header longer than the tuple.
    assert_eq!(place(&[0x41, b'a'], 0, VARLENA), None);
    // 8-byte alignment of int8.
    let d = [0u8; 16];
    assert_eq!(place(&d, 4, class(8, Align::Double)), Some((8, 16)));
}

#[test]
fn days_of_today_are_dates_small_numbers_are_int4() {
    let days: Vec<[u8; 4]> = [8766i32, 9000, 9100].map(i32::to_le_bytes).to_vec();
    let vals: Vec<&[u8]> = days.iter().map(|d| &d[..]).collect();
    assert_eq!(top(class(4, Align::Int), &vals), "date");
    let ids: Vec<[u8; 4]> = [1i32, 2, 3, 500].map(i32::to_le_bytes).to_vec();
    let vals: Vec<&[u8]> = ids.iter().map(|d| &d[..]).collect();
    assert_eq!(top(class(4, Align::Int), &vals), "int4");
    let floats: Vec<[u8; 4]> = [1.5f32, -2.25, 1e6].map(f32::to_le_bytes).to_vec();
    let vals: Vec<&[u8]> = floats.iter().map(|d| &d[..]).collect();
    assert_eq!(top(class(4, Align::Int), &vals), "float4");
}

#[test]
fn eight_bytes_times_floats_and_integers() {
    let c = class(8, Align::Double);
    // 2024-02-29 12:34:56 in microseconds from 2000-01-01.
    let ts: Vec<[u8; 8]> = [762_525_296_000_000i64, 762_525_297_000_000]
        .map(i64::to_le_bytes)
        .to_vec();
    let vals: Vec<&[u8]> = ts.iter().map(|d| &d[..]).collect();
    assert_eq!(top(c, &vals), "timestamptz");
    let fl: Vec<[u8; 8]> = [0.1f64, 2.5, -3.75].map(f64::to_le_bytes).to_vec();
    let vals: Vec<&[u8]> = fl.iter().map(|d| &d[..]).collect();
    assert_eq!(top(c, &vals), "float8");
    let ints: Vec<[u8; 8]> = [3i64, -7, 1 << 40].map(i64::to_le_bytes).to_vec();
    let vals: Vec<&[u8]> = ints.iter().map(|d| &d[..]).collect();
    assert_eq!(top(c, &vals), "int8");
}

#[test]
fn booleans_are_zero_or_one() {
    let vals: Vec<&[u8]> = vec![&[1], &[0], &[1]];
    assert_eq!(top(class(1, Align::Char), &vals), "bool");
    let vals: Vec<&[u8]> = vec![b"a", b"r"];
    assert_eq!(top(class(1, Align::Char), &vals), "\"char\"");
}

#[test]
fn varlena_payloads_text_numeric_array() {
    // Short varlena headers: length = header >> 1, the header included.
    let text: Vec<&[u8]> = vec![b"\x0dhello", b"\x07ab"];
    assert_eq!(top(VARLENA, &text), "text");
    // numeric 1.5 as PostgreSQL 15 stores it: short numeric, dscale 1,
    // weight 0, digits 1 and 5000.
    let num: Vec<&[u8]> = vec![&[0x0f, 0x80, 0x80, 0x01, 0x00, 0x88, 0x13]];
    assert_eq!(top(VARLENA, &num), "numeric");
    // int4[] {7}: ndim 1, no nulls, element type 23, dims 1, lbound 1, 7.
    let mut arr = vec![0u8];
    for w in [1u32, 0, 23, 1, 1, 7] {
        arr.extend_from_slice(&w.to_le_bytes());
    }
    arr[0] = ((arr.len() as u8) << 1) | 1;
    assert_eq!(top(VARLENA, &[&arr[..]]), "int4[]");
}

#[test]
fn dropped_needs_a_clean_cut_by_xmin() {
    assert!(looks_dropped(&[100, 101], &[200, 201]));
    assert!(!looks_dropped(&[100, 300], &[200, 201]));
    assert!(!looks_dropped(&[100], &[200, 201]));
}

#[test]
fn a_real_page_of_many_types() {
    let page = fixture("postgres/heap/nulls.0.page");
    let p = propose(&[&page], &[]);
    assert_eq!(
        p.columns,
        "int4, text, bool, int8, date, float8, numeric, text, int2, timestamptz, text, uuid"
    );
    assert_eq!(p.tuples_fitting, p.tuples);
}

#[test]
fn any_bytes_never_panic() {
    let mut page = fixture("postgres/heap/nulls.0.page");
    for i in (24..page.len()).step_by(97) {
        page[i] = page[i].wrapping_mul(31).wrapping_add(7);
        let _ = propose(&[&page[..], &page[..i]], &[&page[..]]);
    }
    assert!(propose(&[&[0u8; 8192][..], &[0xFF; 8192][..]], &[])
        .attributes
        .is_empty());
}
