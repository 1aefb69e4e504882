//! The chunk tuples of one TOAST page, for the [`ToastIndex`]: each page of
//! the TOAST relation is decoded once, when it is indexed.

use crate::model::postgres::types::Column;
use crate::model::postgres::PageKind;
use crate::reader::Endian;

use super::attrs::{self, Slot};
use super::page::{parse_page_without_spans, PageOptions};
use super::toast::{ChunkLoc, ToastIndex};
use crate::model::postgres::flags::HEAP_XMAX_INVALID;

/// Index the chunk tuples of block `block` of TOAST input `file`. Tuples that
/// are not well-formed chunks (wrong shape, damaged) are passed over.
pub(crate) fn index_page(index: &mut ToastIndex, file: usize, block: u64, page: &[u8]) {
    let columns = attrs::toast_columns();
    for (id, loc) in chunks_of(page, file, block, &columns) {
        index.add(id, loc);
    }
}

/// The chunks of one page: (chunk_id, where the chunk sits).
fn chunks_of(page: &[u8], file: usize, blkno: u64, columns: &[Column]) -> Vec<(u32, ChunkLoc)> {
    let parsed = parse_page_without_spans(
        page,
        &PageOptions {
            blkno,
            ..PageOptions::default()
        },
    );
    if parsed.kind != PageKind::Heap {
        return Vec::new();
    }
    let mut out = Vec::new();
    for item in &parsed.items {
        let Some(t) = &item.tuple else { continue };
        let end = usize::from(item.id.lp_off) + usize::from(item.id.lp_len);
        let Some(data) = page.get(t.data_offset..end) else {
            continue;
        };
        let bitmap = attrs::tuple_bitmap(page, &item.id, t);
        let (slots, _, err) = attrs::layout(data, usize::from(t.header.natts()), bitmap, columns);
        if err.is_some() {
            continue;
        }
        let field = |i: usize| match slots.get(i) {
            Some(&Slot::Present { off, len, .. }) => data.get(off..off + len),
            _ => None,
        };
        let (Some(id), Some(seq), Some(raw)) = (field(0), field(1), field(2)) else {
            continue;
        };
        let (4, 4, Some(id), Some(seq)) = (
            id.len(),
            seq.len(),
            Endian::Little.read_u32(id),
            Endian::Little.read_i32(seq),
        ) else {
            continue;
        };
        let Ok(chunk) = attrs::plain_varlena_data(raw) else {
            continue;
        };
        // Where the chunk data sits in the page (it is a slice of it).
        let offset = (chunk.as_ptr() as usize).saturating_sub(page.as_ptr() as usize);
        let live = t.header.t_xmax == 0 || t.header.t_infomask & HEAP_XMAX_INVALID != 0;
        out.push((
            id,
            ChunkLoc {
                seq,
                file,
                block: blkno,
                lp: item.id.lp,
                offset,
                len: chunk.len(),
                live,
            },
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::postgres::ToastPointer;
    use crate::parse::postgres::toast::{ToastPages, ToastStore};

    const BLCKSZ: usize = 8192;

    /// A TOAST heap page holding the chunks `(chunk_id, chunk_seq, data)`,
    /// built from the C layouts (bufpage.h, itemid.h, htup_details.h).
    fn toast_page(chunks: &[(u32, i32, &[u8])]) -> Vec<u8> {
        let mut page = vec![0u8; BLCKSZ];
        let mut upper = BLCKSZ;
        for (i, (id, seq, data)) in chunks.iter().enumerate() {
            let mut tuple = vec![0u8; 24];
            tuple[0..4].copy_from_slice(&2u32.to_le_bytes()); // t_xmin
            tuple[18..20].copy_from_slice(&3u16.to_le_bytes()); // t_infomask2: natts
            tuple[20..22].copy_from_slice(&0x0902u16.to_le_bytes()); // XMIN_COMMITTED | XMAX_INVALID | HASVARWIDTH
            tuple[22] = 24; // t_hoff
            tuple.extend_from_slice(&id.to_le_bytes());
            tuple.extend_from_slice(&seq.to_le_bytes());
            tuple.push((((data.len() + 1) << 1) | 1) as u8); // 1-byte varlena header
            tuple.extend_from_slice(data);
            let len = tuple.len();
            upper = (upper - len) & !7;
            page[upper..upper + len].copy_from_slice(&tuple);
            let lp = upper as u32 | (1 << 15) | ((len as u32) << 17);
            page[24 + 4 * i..28 + 4 * i].copy_from_slice(&lp.to_le_bytes());
        }
        let lower = 24 + 4 * chunks.len();
        page[12..14].copy_from_slice(&(lower as u16).to_le_bytes());
        page[14..16].copy_from_slice(&(upper as u16).to_le_bytes());
        page[16..18].copy_from_slice(&(BLCKSZ as u16).to_le_bytes());
        page[18..20].copy_from_slice(&0x2004u16.to_le_bytes());
        page
    }

    struct Pages(Vec<Vec<u8>>);

    impl ToastPages for Pages {
        fn page(&mut self, _file: usize, block: u64) -> Result<&[u8], String> {
            self.0
                .get(block as usize)
                .map(Vec::as_slice)
                .ok_or_else(|| format!("no block {block}"))
        }
    }

    /// A value in 20,000 one-byte chunks (issue 16: such a value re-parsed its
    /// TOAST page per chunk) comes back whole, with each page decoded once
    /// when indexed; its chunks are stored in reverse order across the pages.
    #[test]
    fn a_value_in_many_one_byte_chunks_is_read_in_linear_time() {
        const N: usize = 20_000;
        let value: Vec<u8> = (0..N).map(|i| (i % 251) as u8).collect();
        let chunks: Vec<(u32, i32, &[u8])> = (0..N)
            .rev()
            .map(|s| (42u32, s as i32, &value[s..s + 1]))
            .chain([(43u32, 0, &b"other"[..])])
            .collect();
        let pages: Vec<Vec<u8>> = chunks.chunks(180).map(toast_page).collect();
        let mut index = ToastIndex::new();
        for (blkno, page) in pages.iter().enumerate() {
            index_page(&mut index, 0, blkno as u64, page);
        }
        assert_eq!((index.chunks, index.values()), (N + 1, 2));
        let mut store = ToastStore::new(index, Box::new(Pages(pages)));
        let started = std::time::Instant::now();
        let pointer = ToastPointer {
            va_rawsize: N as i32 + 4,
            va_extinfo: N as u32,
            extsize: N as u32,
            compressed: false,
            method: None,
            va_valueid: 42,
            va_toastrelid: 1,
            chunks: None,
        };
        let (bytes, n) = store.fetch(&pointer).unwrap();
        assert_eq!(n as usize, N);
        assert_eq!(bytes, value);
        assert!(started.elapsed() < std::time::Duration::from_secs(5));
        let other = ToastPointer {
            extsize: 5,
            va_valueid: 43,
            ..pointer
        };
        assert_eq!(store.fetch(&other).unwrap().0, b"other");
    }
}
