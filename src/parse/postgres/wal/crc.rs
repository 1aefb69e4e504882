//! CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) as PostgreSQL's
//! `COMP_CRC32C` computes it, slicing by 8 bytes: a WAL listing checks every
//! byte of every record, so the byte-at-a-time loop would be its bottleneck.

/// Eight tables: `TABLES[0]` is the byte-wise table, `TABLES[k][i]` the CRC
/// of byte `i` followed by `k` zero bytes.
const TABLES: [[u32; 256]; 8] = {
    let mut t = [[0u32; 256]; 8];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 != 0 {
                0x82F6_3B78 ^ (c >> 1)
            } else {
                c >> 1
            };
            k += 1;
        }
        t[0][i] = c;
        i += 1;
    }
    let mut i = 0;
    while i < 256 {
        let mut k = 1;
        while k < 8 {
            let prev = t[k - 1][i];
            t[k][i] = t[0][(prev & 0xFF) as usize] ^ (prev >> 8);
            k += 1;
        }
        i += 1;
    }
    t
};

/// `INIT_CRC32C`.
pub(crate) const INIT: u32 = 0xFFFF_FFFF;

/// `COMP_CRC32C`: `crc` advanced over `data`.
pub(crate) fn update(mut crc: u32, data: &[u8]) -> u32 {
    let mut chunks = data.chunks_exact(8);
    for c in &mut chunks {
        let lo = crc ^ u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
        let hi = u32::from_le_bytes([c[4], c[5], c[6], c[7]]);
        crc = TABLES[7][(lo & 0xFF) as usize]
            ^ TABLES[6][((lo >> 8) & 0xFF) as usize]
            ^ TABLES[5][((lo >> 16) & 0xFF) as usize]
            ^ TABLES[4][(lo >> 24) as usize]
            ^ TABLES[3][(hi & 0xFF) as usize]
            ^ TABLES[2][((hi >> 8) & 0xFF) as usize]
            ^ TABLES[1][((hi >> 16) & 0xFF) as usize]
            ^ TABLES[0][(hi >> 24) as usize];
    }
    for &b in chunks.remainder() {
        crc = TABLES[0][usize::from((crc as u8) ^ b)] ^ (crc >> 8);
    }
    crc
}

/// `FIN_CRC32C`.
pub(crate) fn finish(crc: u32) -> u32 {
    !crc
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_value_and_agreement_with_bytewise() {
        assert_eq!(finish(update(INIT, b"123456789")), 0xE306_9283);
        let data: Vec<u8> = (0..1000u32).map(|i| (i * 7 + 3) as u8).collect();
        for len in [0, 1, 7, 8, 9, 63, 1000] {
            let d = &data[..len];
            assert_eq!(
                finish(update(INIT, d)),
                crate::parse::postgres::control::crc32c(d)
            );
            // Split anywhere: the same CRC.
            let (a, b) = d.split_at(len / 3);
            assert_eq!(update(update(INIT, a), b), update(INIT, d));
        }
    }
}
