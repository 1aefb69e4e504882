//! `aclitem` (utils/acl.h, adt/acl.c) and the snapshot types `txid_snapshot`
//! and `pg_snapshot` (adt/xid8funcs.c), printed as their output functions
//! print them.

use std::collections::HashMap;

use super::datum::{u32_at, u64_at};

/// The privilege letters, bit 0 first (ACL_ALL_RIGHTS_STR): `arwdDxtXUCTc`
/// in every release, `s` (SET) and `A` (ALTER SYSTEM) from PostgreSQL 15,
/// `m` (MAINTAIN) from 17.
const ACL_RIGHTS: &[u8; 15] = b"arwdDxtXUCTcsAm";

/// `aclitemout`: `grantee=privileges/grantor`, the grantee empty for PUBLIC
/// (OID 0), each role by its name from `roles` (quoted as `putid` quotes:
/// anything but letters, digits and `_`), or its OID when it is not there,
/// each privilege letter followed by `*` when it carries the grant option.
/// `data` is 12 bytes (PostgreSQL 10 to 15: grantee, grantor, a uint32 with
/// the privileges in its low 16 bits and the grant options in the high 16)
/// or 16 (16 and later: a uint64 AclMode, grant options in the high 32 bits).
pub(crate) fn aclitem_out(
    data: &[u8],
    roles: Option<&HashMap<u32, String>>,
) -> Result<String, String> {
    let grantee = u32_at(data, 0)?;
    let grantor = u32_at(data, 4)?;
    let (privs, goptions) = match data.len() {
        12 => {
            let m = u32_at(data, 8)?;
            (u64::from(m & 0xFFFF), u64::from(m >> 16))
        }
        16 => {
            let m = u64_at(data, 8)?;
            (m & 0xFFFF_FFFF, m >> 32)
        }
        n => return Err(format!("aclitem of {n} bytes (12 or 16 expected)")),
    };
    let known = (1u64 << ACL_RIGHTS.len()) - 1;
    if (privs | goptions) & !known != 0 {
        return Err(format!(
            "aclitem privilege bits 0x{privs:x} / grant options 0x{goptions:x} beyond the {} known",
            ACL_RIGHTS.len()
        ));
    }
    let mut out = String::new();
    if grantee != 0 {
        putid(&mut out, grantee, roles);
    }
    out.push('=');
    for (i, &letter) in ACL_RIGHTS.iter().enumerate() {
        if privs & (1 << i) != 0 {
            out.push(char::from(letter));
        }
        if goptions & (1 << i) != 0 {
            out.push('*');
        }
    }
    out.push('/');
    putid(&mut out, grantor, roles);
    Ok(out)
}

/// A role as `aclitemout` writes it: its name, double-quoted (quotes
/// doubled) unless every character is alphanumeric or `_`; the OID when
/// the role is not known.
fn putid(out: &mut String, oid: u32, roles: Option<&HashMap<u32, String>>) {
    match roles.and_then(|r| r.get(&oid)) {
        Some(name) => {
            let safe =
                name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') || name.is_empty();
            // isalnum() in a UTF8 database with the C locale: bytes ≥ 0x80
            // are not alphanumeric, so such names are quoted too.
            if safe {
                out.push_str(name);
            } else {
                out.push('"');
                out.push_str(&name.replace('"', "\"\""));
                out.push('"');
            }
        }
        None => out.push_str(&oid.to_string()),
    }
}

/// `txid_snapshot_out` / `pg_snapshot_out`: `xmin:xmax:xip1,xip2,…`. The
/// datum: uint32 nxip, then xmin, xmax and nxip in-progress ids, 8 bytes each.
pub(crate) fn snapshot_out(data: &[u8]) -> Result<String, String> {
    let nxip = u32_at(data, 0)? as usize;
    let want = 4 + 16 + nxip.saturating_mul(8);
    // After the 4-byte varlena header and nxip the ids fall on 8 bytes.
    if data.len() != want {
        return Err(format!(
            "snapshot of {} bytes does not hold {nxip} in-progress ids ({want} bytes)",
            data.len()
        ));
    }
    let xmin = u64_at(data, 4)?;
    let xmax = u64_at(data, 12)?;
    let mut out = format!("{xmin}:{xmax}:");
    for i in 0..nxip {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&u64_at(data, 20 + 8 * i)?.to_string());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w: &[u32]) -> Vec<u8> {
        w.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn aclitems_print_as_aclitemout() {
        let roles: HashMap<u32, String> = [
            (10, "postgres".to_string()),
            (16385, "Role With Space".to_string()),
        ]
        .into_iter()
        .collect();
        // PUBLIC: r
        assert_eq!(
            aclitem_out(&words(&[0, 10, 0x2]), Some(&roles)).unwrap(),
            "=r/postgres"
        );
        // a*r*w* granted by a quoted role; an unknown grantee by OID.
        let item = words(&[16390, 16385, 0x7 | (0x7 << 16)]);
        assert_eq!(
            aclitem_out(&item, Some(&roles)).unwrap(),
            "16390=a*r*w*/\"Role With Space\""
        );
        assert_eq!(aclitem_out(&item, None).unwrap(), "16390=a*r*w*/16385");
        // The 16-byte form of 16 and later: s and A with grant option.
        let mut wide = words(&[10, 10]);
        wide.extend_from_slice(&((0x3000u64 << 32) | 0x3000).to_le_bytes());
        assert_eq!(
            aclitem_out(&wide, Some(&roles)).unwrap(),
            "postgres=s*A*/postgres"
        );
        // Unknown bits are an error, as is a length of neither form.
        assert!(aclitem_out(&words(&[0, 10, 0x8000]), None).is_err());
        assert!(aclitem_out(&words(&[0, 10]), None).is_err());
    }

    #[test]
    fn snapshots_print_xmin_xmax_xip() {
        let mut d = 3u32.to_le_bytes().to_vec();
        for v in [10u64, 20, 10, 14, 15] {
            d.extend_from_slice(&v.to_le_bytes());
        }
        assert_eq!(snapshot_out(&d).unwrap(), "10:20:10,14,15");
        let mut e = 0u32.to_le_bytes().to_vec();
        e.extend_from_slice(&u64::MAX.to_le_bytes());
        e.extend_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(
            snapshot_out(&e).unwrap(),
            "18446744073709551615:18446744073709551615:"
        );
        // nxip that the bytes do not hold.
        let mut bad = d.clone();
        bad[0] = 9;
        assert!(snapshot_out(&bad).is_err());
    }
}
