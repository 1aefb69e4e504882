//! Oracle blocks beyond table and index blocks: segment headers (MSSM 0x10,
//! ASSM 0x23) and ASSM bitmap blocks (0x20, 0x21) read from published dump
//! text and printed back as Oracle prints them; block types whose body is
//! not decoded shown as hex with a note, from bytes (both byte orders) and
//! from trace text.

mod common;

use common::{fixture, run};
use serde_json::Value;

/// The published text of each block from `buffer tsn:` on, without the
/// lines that frame a trace section.
fn published(rel: &str) -> String {
    let text = std::fs::read_to_string(fixture(rel)).unwrap();
    let mut out = String::new();
    let mut started = false;
    for l in text.lines() {
        started |= l.starts_with("buffer tsn:");
        if started && !l.starts_with("Block dump from") && !l.starts_with("End dump") {
            out.push_str(l);
            out.push('\n');
        }
    }
    out
}

fn dump_block(path: &str, tsn: &str) -> String {
    let r = run(&[
        "show",
        "--format",
        "dump",
        "--dump-part",
        "block",
        "--oracle-tsn",
        tsn,
        path,
    ]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    r.stdout
}

fn json(path: &str) -> Vec<Value> {
    let r = run(&["show", "--format", "json", path]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    common::show_blocks(&r.stdout)
}

#[test]
fn published_segment_headers_and_bitmaps_round_trip() {
    for (rel, tsn) in [
        ("oracle/blocks/mssm_segment_header.trc", "0"),
        ("oracle/blocks/assm_segment_header.trc", "6"),
        ("oracle/blocks/assm_l1_l2.trc", "6"),
    ] {
        let path = fixture(rel);
        let got = dump_block(path.to_str().unwrap(), tsn);
        assert_eq!(got, published(rel), "{rel}");
    }
}

#[test]
fn segment_header_fields_carry_oracle_labels() {
    let mssm = json(
        fixture("oracle/blocks/mssm_segment_header.trc")
            .to_str()
            .unwrap(),
    );
    let s = &mssm[0]["text"]["space"];
    assert_eq!(s["body"], "segment_header");
    assert_eq!(s["extent_header"]["extents"], 1);
    assert_eq!(s["extent_header"]["blocks"], 7);
    assert_eq!(s["extent_header"]["offset"], 4128);
    assert_eq!(s["highwater"]["dba"], 0x004174a2);
    assert_eq!(s["highwater"]["blocks_below"], 1);
    assert_eq!(s["map_header"]["obj"], 87834);
    assert_eq!(s["extent_map"][0]["dba"], 0x004174a1);
    assert_eq!(s["extent_map"][0]["length"], 7);
    assert_eq!(s["freelists"]["nfl"], 2);
    assert_eq!(s["freelists"]["seg_lst"].as_array().unwrap().len(), 3);
    assert_eq!(s["freelists"]["seg_lst"][0]["flg"], "USED");
    assert_eq!(s["freelists"]["seg_lst"][1]["flg"], "UNUSED");
    assert!(s["assm"].is_null());

    let assm = json(
        fixture("oracle/blocks/assm_segment_header.trc")
            .to_str()
            .unwrap(),
    );
    let a = &assm[0]["text"]["space"]["assm"];
    assert_eq!(a["low_highwater"]["dba"], 0x01800088);
    assert_eq!(a["l1_high_hwm"], 0x01800080);
    assert_eq!(a["l2_array_offset"], 0x1434);
    assert_eq!(a["blksz"], 8192);
    assert_eq!(a["l2_hint"], 0x01800081);
    assert_eq!(a["aux_map"][0]["l1_dba"], 0x01800080);
    assert_eq!(a["aux_map"][0]["data_dba"], 0x01800083);
    assert_eq!(a["l2_dbas"][0], 0x01800081);
    assert!(assm[0]["text"]["space"]["freelists"].is_null());
}

#[test]
fn bitmap_blocks_keep_ranges_and_free_states() {
    let blocks = json(fixture("oracle/blocks/assm_l1_l2.trc").to_str().unwrap());
    assert_eq!(blocks.len(), 2);
    let l1 = &blocks[0]["text"]["space"];
    assert_eq!(l1["body"], "first_level_bitmap");
    assert_eq!(l1["parent_dba"], 0x01800081);
    assert_eq!(l1["objd"], 87835);
    assert_eq!(l1["nf"][3], 5);
    assert_eq!(l1["flag_text"], "-/-/-/-/-/HWM");
    let states = l1["ranges"][0]["states"].as_array().unwrap();
    assert_eq!(states.len(), 8);
    assert_eq!(states[0][1], "Metadata");
    assert_eq!(states[3][1], "75-100% free");
    let l2 = &blocks[1]["text"]["space"];
    assert_eq!(l2["body"], "second_level_bitmap");
    assert_eq!(l2["pdba"], 0x01800082);
    assert_eq!(l2["ranges"][0]["dba"], 0x01800080);
    assert_eq!(l2["ranges"][0]["free"], 5);
}

/// Values wider than Oracle's padding, more extents and states: the printed
/// text reads back to the same structures.
#[test]
fn wide_values_read_back_unchanged() {
    let text = std::fs::read_to_string(fixture("oracle/blocks/assm_segment_header.trc"))
        .unwrap()
        .replace("obj#: 87835 ", "obj#: 1234567890 ")
        .replace(
            "   0x01800080  length: 8     \n",
            "   0x01800080  length: 8     \n   0x01800100  length: 1024  \n",
        )
        .replace("extents: 1     blocks: 8 ", "extents: 2     blocks: 1032 ");
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-blocks-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let first = dir.join("wide.trc");
    std::fs::write(&first, &text).unwrap();
    let printed = dump_block(first.to_str().unwrap(), "6");
    assert!(
        printed.contains("obj#: 1234567890 flag: 0x10000000"),
        "{printed}"
    );
    assert!(
        printed.contains("   0x01800100  length: 1024  \n"),
        "{printed}"
    );
    let second = dir.join("again.trc");
    std::fs::write(&second, format!("Block dump from disk:\n{printed}")).unwrap();
    let a = json(first.to_str().unwrap());
    let b = json(second.to_str().unwrap());
    assert_eq!(a[0]["text"]["space"], b[0]["text"]["space"]);
    assert_eq!(a[0]["text"]["space"]["extent_map"][1]["length"], 1024);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The published text of a block from `buffer tsn:` on, each line without
/// trailing blanks (the reader drops them from an undo record's text).
fn published_trimmed(rel: &str) -> String {
    published(rel)
        .lines()
        .map(|l| format!("{}\n", l.trim_end()))
        .collect()
}

#[test]
fn undo_segment_header_round_trips_exactly() {
    let rel = "oracle/blocks/undo_header.trc";
    let got = dump_block(fixture(rel).to_str().unwrap(), "1");
    assert_eq!(got, published(rel));
}

#[test]
fn undo_block_round_trips_up_to_trailing_blanks() {
    let rel = "oracle/blocks/undo_block.trc";
    let got = dump_block(fixture(rel).to_str().unwrap(), "1");
    let got: String = got.lines().map(|l| format!("{}\n", l.trim_end())).collect();
    assert_eq!(got, published_trimmed(rel));
}

#[test]
fn undo_segment_header_fields_carry_oracle_labels() {
    let v = json(fixture("oracle/blocks/undo_header.trc").to_str().unwrap());
    let s = &v[0]["text"]["space"];
    assert_eq!(s["body"], "segment_header");
    assert_eq!(s["extent_header"]["extents"], 5);
    assert_eq!(s["extent_header"]["blocks"], 39);
    assert_eq!(s["extent_map"].as_array().unwrap().len(), 5);
    let u = &s["undo"];
    assert_eq!(u["retention"][1][0], 1);
    assert_eq!(u["retention"][1][1], 1_299_512_180u64);
    assert_eq!(u["trn_ctl"]["seq"], 0x09d4);
    assert_eq!(u["trn_ctl"]["chd"], 0x25);
    assert_eq!(u["trn_ctl"]["ctl"], 0x17);
    assert_eq!(u["trn_ctl"]["mgc"], 0x8201);
    assert_eq!(u["trn_ctl"]["opt"], 2_147_483_646u32);
    assert_eq!(u["trn_ctl"]["uba"], "0x0080009a.09d4.0b");
    assert_eq!(u["trn_ctl"]["scn"], "0x0000.03ee398c");
    assert_eq!(u["free_block_pool"].as_array().unwrap().len(), 5);
    assert_eq!(u["free_block_pool"][1]["ext"], 3);
    assert_eq!(u["free_block_pool"][1]["spc"], 0x1ea4);
    let slots = u["trn_tbl"].as_array().unwrap();
    assert_eq!(slots.len(), 0x30);
    // The active slot: xid 0x000a.01a.0000255b of the undo block's header.
    let active: Vec<&Value> = slots.iter().filter(|x| x["state"] == 10).collect();
    assert_eq!(active.len(), 1);
    assert_eq!(active[0]["index"], 0x1a);
    assert_eq!(active[0]["wrap"], 0x255b);
    assert_eq!(active[0]["cflags"], 0x80);
    assert_eq!(active[0]["dba"], 0x0080009a);
    assert_eq!(active[0]["marked"], true);
    assert!(active[0]["cmt"].is_null());
    assert_eq!(slots[0x17]["uel"], 0xffff);
    assert_eq!(slots[0x24]["nub"], 2);
    assert_eq!(u["cmt_column"], false);
}

/// 11g and later print a `cmt` column (commit time); a slot line of the
/// 11.2 form reads and prints back.
#[test]
fn trn_tbl_with_cmt_column_reads_back() {
    let text = std::fs::read_to_string(fixture("oracle/blocks/undo_header.trc"))
        .unwrap()
        .replace("nub     stmt_num\n", "nub     stmt_num    cmt\n")
        .replace(
            "0x00000001   0x00000000\n",
            "0x00000001   0x00000000  1524896156\n",
        )
        .replace(
            "0x00000002   0x00000000\n",
            "0x00000002   0x00000000  1524895467\n",
        )
        .replace("0x00000000   0x00000000\n", "0x00000000   0x00000000  0\n");
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-cmt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("cmt.trc");
    std::fs::write(&p, &text).unwrap();
    let path = p.to_str().unwrap();
    let printed = dump_block(path, "1");
    let v = json(path);
    let _ = std::fs::remove_dir_all(&dir);
    let want: String = text
        .lines()
        .skip(1)
        .filter(|l| !l.starts_with("End dump"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(printed, want);
    let u = &v[0]["text"]["space"]["undo"];
    assert!(u["ext_trn"].as_array().unwrap().is_empty());
    assert_eq!(u["cmt_column"], true);
    assert_eq!(u["trn_tbl"][0]["cmt"], 1_524_896_156u64);
    assert_eq!(u["trn_tbl"][0x24]["cmt"], 1_524_895_467u64);
}

/// 11.2's `EXT TRN CTL::`/`EXT TRN TBL::` after the slots (lines as in the
/// `dump undo header` output of "Oracle特殊恢复原理与实战_09", 2018): kept as
/// printed, not dropped.
#[test]
fn ext_trn_lines_are_kept() {
    let ext = "  EXT TRN CTL::\n  usn: 2\n  sp1:0x00000000 sp2:0x00000000 sp3:0x00000000 sp4:0x00000000\n  \
        sp5:0x00000000 sp6:0x00000000 sp7:0x100000000 sp8:0x00000000\n  EXT TRN TBL::\n  \
        index  extflag    extHash    extSpare1   extSpare2\n  \
        ---------------------------------------------------\n   \
        0x00  0x00000000 0x00000000 0x00000000  0x00000000\n   \
        0x01  0x00000000 0x00000000 0x00000000  0x00000000\n";
    let text = std::fs::read_to_string(fixture("oracle/blocks/undo_header.trc"))
        .unwrap()
        .replace(
            "End dump data blocks",
            &format!("{ext}End dump data blocks"),
        );
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-ext-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("ext.trc");
    std::fs::write(&p, &text).unwrap();
    let path = p.to_str().unwrap();
    let printed = dump_block(path, "1");
    let v = json(path);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(printed.ends_with(ext), "{printed}");
    let u = &v[0]["text"]["space"]["undo"];
    assert_eq!(u["ext_trn"].as_array().unwrap().len(), 9);
    assert_eq!(u["trn_tbl"].as_array().unwrap().len(), 0x30);
}

#[test]
fn undo_block_header_directory_and_records() {
    let v = json(fixture("oracle/blocks/undo_block.trc").to_str().unwrap());
    let b = &v[0]["text"]["space"];
    assert_eq!(b["body"], "undo_block");
    assert_eq!(b["xid"], "0x000a.01a.0000255b");
    assert_eq!(b["seq"], 0x9d4);
    assert_eq!(b["cnt"], 0xf);
    assert_eq!(b["irb"], 0xf);
    let offs = b["offsets"].as_array().unwrap();
    assert_eq!(offs.len(), 15);
    assert_eq!(offs[0], serde_json::json!([1, 0x1f9c]));
    assert_eq!(offs[14], serde_json::json!([0xf, 0x1a54]));
    let recs = b["records"].as_array().unwrap();
    assert_eq!(recs.len(), 5);
    assert_eq!(recs[0]["rec"], 0xb);
    assert_eq!(recs[0]["slt"], 0x1a);
    assert_eq!(recs[0]["objn"], 45810);
    assert_eq!(recs[0]["tblspc"], 12);
    assert_eq!(recs[0]["layer"], 11);
    assert_eq!(recs[0]["layer_name"], "Row");
    assert_eq!(recs[0]["rci"], 0);
    assert_eq!(recs[0]["uba"], "0x0080009a.09d4.09");
    assert_eq!(
        recs[0]["undo_type"],
        "Regular undo    Begin trans    Last buffer split:  No"
    );
    assert_eq!(recs[0]["kdo_op_code"], "URP row dependencies Disabled");
    // The chain: each later record points back at the one before it.
    for (i, r) in recs.iter().enumerate().skip(1) {
        assert_eq!(r["rci"], recs[i - 1]["rec"]);
        assert!(r["uba"].is_null());
    }
    // The irb record is the last one printed.
    assert_eq!(recs[4]["rec"], b["irb"]);
}

#[test]
fn a_body_line_that_does_not_fit_names_its_line() {
    let text = std::fs::read_to_string(fixture("oracle/blocks/mssm_segment_header.trc"))
        .unwrap()
        .replace("blocks below: 1 ", "blocks below: many ");
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-bad-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("bad.trc");
    std::fs::write(&p, text).unwrap();
    let r = run(&["show", "--format", "json", p.to_str().unwrap()]);
    let _ = std::fs::remove_dir_all(&dir);
    // The block is kept (a note, not an error): the body as the dump's lines.
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("note:"), "{}", r.stderr);
    assert!(r.stderr.contains("trace line 11"), "{}", r.stderr);
    assert!(r.stderr.contains("blocks below: N"), "{}", r.stderr);
    assert!(r.stdout.contains("\"body\": \"unparsed\""), "{}", r.stdout);
    assert!(r.stdout.contains("blocks below: many"), "{}", r.stdout);
}

/// An 8 KB block of type `ty` in the given byte order: cache header, a
/// patterned body, and the tail matching the header.
fn block_of_type(ty: u8, big: bool) -> Vec<u8> {
    let mut b = vec![0u8; 8192];
    let w32 = |b: &mut Vec<u8>, at: usize, v: u32| {
        let bytes = if big {
            v.to_be_bytes()
        } else {
            v.to_le_bytes()
        };
        b[at..at + 4].copy_from_slice(&bytes);
    };
    b[0] = ty;
    b[1] = 0xa2;
    w32(&mut b, 4, (5 << 22) | 77);
    w32(&mut b, 8, 0x0012_3456);
    b[14] = 1;
    for (i, x) in b[20..8188].iter_mut().enumerate() {
        *x = (i % 251) as u8;
    }
    let tail = (0x3456u32 << 16) | (u32::from(ty) << 8) | 1;
    w32(&mut b, 8188, tail);
    b
}

#[test]
fn undecoded_types_show_their_body_as_hex_with_a_note_in_both_byte_orders() {
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-undec-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for big in [false, true] {
        for ty in [0x26u8, 0x1e, 0x23] {
            let bytes = block_of_type(ty, big);
            let p = dir.join(format!("t{ty:02x}-{big}.blk"));
            std::fs::write(&p, &bytes).unwrap();
            let path = p.to_str().unwrap();
            let v = json(path);
            let b = &v[0];
            assert_eq!(b["endian"], if big { "big" } else { "little" });
            assert_eq!(b["kind"], "other");
            assert_eq!(b["kcbh"]["rdba_kcbh"], (5 << 22) | 77);
            assert!(b["problems"].as_array().unwrap().is_empty(), "{b}");
            let u = &b["undecoded"];
            assert_eq!(u["offset"], 20);
            assert_eq!(u["length"], 8168);
            assert!(u["note"].as_str().unwrap().contains("not decoded"), "{u}");
            let hex = u["bytes"].as_str().unwrap();
            let want: Vec<String> = bytes[20..8188].iter().map(|x| format!("{x:02x}")).collect();
            assert_eq!(hex, want.join(" "));
            let r = run(&["show", "--format", "dump", path]);
            assert_eq!(r.code, 0, "{}", r.stderr);
            assert!(r.stdout.contains("[blockscope: type 0x"), "{}", r.stdout);
            assert!(r.stdout.contains("Hex dump of block"), "{}", r.stdout);
            // Oracle prints native words: the rdba word reads the same in both orders.
            assert!(r.stdout.contains(" 0140004D "), "{}", r.stdout);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_trace_block_whose_body_is_not_read_says_so() {
    let text = "Block dump from disk:\n\
        buffer tsn: 2 rdba: 0x00c00080 (3/128)\n\
        scn: 0x0000.002c7a8b seq: 0x01 flg: 0x04 tail: 0x7a8b2601\n\
        frmt: 0x02 chkval: 0x1234 type: 0x26=KTU SMU HEADER BLOCK\n\
          TRN CTL:: seq: 0x0011 chd: 0x0000 ctl: 0x0021 inc: 0x00000000 nfb: 0x0001\n";
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-undo-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("undo.trc");
    std::fs::write(&p, text).unwrap();
    let r = run(&[
        "show",
        "--format",
        "dump",
        "--dump-part",
        "block",
        p.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(r.code, 0, "{}", r.stderr);
    // No body heading the reader knows: the line is printed back as the
    // dump has it, and a note names it.
    assert!(
        r.stdout.contains(
            "\nTRN CTL:: seq: 0x0011 chd: 0x0000 ctl: 0x0021 inc: 0x00000000 nfb: 0x0001\n"
        ),
        "{}",
        r.stdout
    );
    assert!(
        r.stderr
            .contains("trace line 5: a line the reader does not know: \"TRN CTL::"),
        "{}",
        r.stderr
    );
}

/// A datafile header (type 0x0b) with the `kcvfh` fields at the offsets of
/// BBED's map, in both byte orders.
#[test]
fn datafile_header_recovery_fields_in_both_byte_orders() {
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-kcvfh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for big in [false, true] {
        let mut b = vec![0u8; 8192];
        let w32 = |b: &mut Vec<u8>, at: usize, v: u32| {
            let x = if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            b[at..at + 4].copy_from_slice(&x);
        };
        let w16 = |b: &mut Vec<u8>, at: usize, v: u16| {
            let x = if big {
                v.to_be_bytes()
            } else {
                v.to_le_bytes()
            };
            b[at..at + 2].copy_from_slice(&x);
        };
        b[0] = 0x0b;
        b[1] = 0xa2;
        w32(&mut b, 4, (7 << 22) | 1);
        w32(&mut b, 8, 0x0000_0110);
        b[14] = 1;
        w32(&mut b, 24, 0x0b20_0400);
        w32(&mut b, 28, 1_229_390_655);
        b[32..36].copy_from_slice(b"ORCL");
        w32(&mut b, 40, 7577);
        w32(&mut b, 44, 96_000);
        w32(&mut b, 48, 8192);
        w16(&mut b, 52, 7);
        w16(&mut b, 54, 3);
        w32(&mut b, 96, 0x0041_1c40);
        w32(&mut b, 100, 7);
        w32(&mut b, 112, 0x32c5_ec52);
        w32(&mut b, 116, 0x000e_2006);
        w16(&mut b, 138, 0x0004);
        w32(&mut b, 140, 2207);
        w32(&mut b, 148, 2206);
        w32(&mut b, 332, 5);
        w16(&mut b, 336, 5);
        b[338..343].copy_from_slice(b"USERS");
        w32(&mut b, 368, 7);
        w32(&mut b, 484, 0x01a7_c8e3);
        w16(&mut b, 488, 0);
        let tail = (0x0110u32 << 16) | (0x0b << 8) | 1;
        w32(&mut b, 8188, tail);
        let p = dir.join(format!("kcvfh-{big}.blk"));
        std::fs::write(&p, &b).unwrap();
        let v = json(p.to_str().unwrap());
        let fh = &v[0]["file_header"];
        assert_eq!(v[0]["kind"], "file-header", "{}", v[0]);
        assert_eq!(fh["kccfhdbn"], "ORCL");
        assert_eq!(fh["kccfhcsq"], 7577);
        assert_eq!(fh["kccfhfsz"], 96_000);
        assert_eq!(fh["kccfhtyp"], 3);
        assert_eq!(fh["kcvfhrdb"], 0x0041_1c40);
        assert_eq!(fh["kcvfhcrs"]["kscnbas"], 7);
        assert_eq!(fh["kcvfhrlc"], 0x32c5_ec52u32);
        assert_eq!(fh["kcvfhrls"]["kscnbas"], 0x000e_2006);
        assert_eq!(fh["kcvfhsta"], 4);
        assert_eq!(fh["kcvfhcpc"], 2207);
        assert_eq!(fh["kcvfhccc"], 2206);
        assert_eq!(fh["kcvfhtsn"], 5);
        assert_eq!(fh["kcvfhtnm"], "USERS");
        assert_eq!(fh["kcvfhrfn"], 7);
        assert_eq!(fh["kcvfhckp_scn"]["kscnbas"], 0x01a7_c8e3);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The tail of an 11.2.0.4 first level bitmap block as published (file 5
/// block 129, from `HWM Flag:` on; the post, "ASSM三级位图结构与高水位的探究（下）",
/// liupzmin 2015-09-30, cuts the lines before it), with the 64 block states.
fn l1_tail_11204() -> String {
    let mut t = String::from(
        "  HWM Flag: HWM Set\n\
         \x20     Highwater::  0x014000c1  ext#: 0      blk#: 65     ext size: 128   \n\
         \x20 #blocks in seg. hdr's freelists: 0     \n\
         \x20 #blocks below: 65    \n\
         \x20 mapblk  0x00000000  offset: 0     \n\
         \x20 --------------------------------------------------------\n\
         \x20 DBA Ranges :\n\
         \x20 --------------------------------------------------------\n\
         \x20  0x014000c0  Length: 64     Offset: 0      \n\
         \n",
    );
    for row in 0..16 {
        let states: Vec<String> = (row * 4..row * 4 + 4)
            .map(|n| format!("{n}:{}", if n == 0 { "FULL" } else { "unformatted" }))
            .collect();
        t.push_str(&format!("   {}\n", states.join("   ")));
    }
    t.push_str("  --------------------------------------------------------\n");
    t
}

#[test]
fn first_level_bitmap_with_11204_tail_prints_back() {
    // 11.2.0.4 prints `#blocks…` in the L1 block's high-water mark and a
    // blank line before the block states. No whole 11.2.0.4 L1 dump is
    // published; its published tail is put after the head lines of the
    // older L1 dump (`assm_l1_l2.trc`, the block up to `Inc: 0 Objd:`). The
    // post's excerpt starts `HWM Flag:` at column 0; the line has the two
    // blanks of indent every other copy shows.
    let text = std::fs::read_to_string(fixture("oracle/blocks/assm_l1_l2.trc")).unwrap();
    let head: String = text
        .lines()
        .take_while(|l| !l.starts_with("  HWM Flag:"))
        .map(|l| format!("{l}\n"))
        .collect();
    let tail = l1_tail_11204();
    let dir = std::env::temp_dir().join(format!("blockscope-oracle-l1-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join("l1.trc");
    std::fs::write(&p, format!("{head}{tail}")).unwrap();
    let r = run(&["show", "--format", "dump", p.to_str().unwrap()]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(r.stderr, "");
    let got: String = r
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("  HWM Flag:"))
        .take_while(|l| !l.starts_with("End dump"))
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(got, tail);
    let v = json(p.to_str().unwrap());
    let b = &v[0]["text"]["space"];
    assert_eq!(b["body"], "first_level_bitmap", "{b}");
    assert_eq!(b["highwater"]["blocks_below"], 65);
    assert_eq!(b["ranges"][0]["length"], 64);
    assert_eq!(b["ranges"][0]["states"].as_array().unwrap().len(), 64);
    assert_eq!(b["ranges"][0]["states"][0], serde_json::json!([0, "FULL"]));
    let _ = std::fs::remove_dir_all(&dir);
}
