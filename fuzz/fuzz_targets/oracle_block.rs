//! The Oracle block parser on arbitrary bytes (detected and both byte orders),
//! then every Oracle renderer and the DBVERIFY checks.
#![no_main]

use blockscope::model::oracle::verify::{BlockReport, DbvSummary};
    use blockscope::oracle::{verify_block, Expected};
use blockscope::oracle::{parse_block, BlockOptions};
use blockscope::Endian;
use blockscope::{dump_text, DumpOptions};
use blockscope::{oracle, render_hex, RenderOptions};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for endian in [None, Some(Endian::Little), Some(Endian::Big)] {
        let block = parse_block(data, &BlockOptions { blkno: 1, endian });
        let opts = RenderOptions::default();
        let mut sink = Vec::new();
        if endian.is_none() {
            // The slower renderers once, on the detected byte order.
            let _ = oracle::render_table(&mut sink, &block, false, &opts);
            let _ = render_hex(&mut sink, data, &block.spans, &opts);
            let _ = serde_json::to_writer(&mut sink, &oracle::block_json(&block, false));
        }
        let dump = DumpOptions {
            hex: true,
            ..DumpOptions::default()
        };
        let _ = dump_text(&block, data, &dump);
        let problems = verify_block(
            &block,
            &Expected {
                blkno: 1,
                rel_file: None,
                block_size: Some(8192),
            },
        );
        let mut summary = DbvSummary::default();
        summary.add(&block, &problems);
        let reports = [BlockReport::new(&block, problems)];
        let _ = oracle::write_dbv_report(&mut sink, "fuzz", &reports, &summary, false);
    }
});
