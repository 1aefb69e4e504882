//! Every text decoder (and detection) on arbitrary bytes: the first byte picks
//! the format.
#![no_main]

use blockscope::{decode_text as decode, detect_text as detect, InputFormat};
use libfuzzer_sys::fuzz_target;

const FORMATS: [InputFormat; 9] = [
    InputFormat::Auto,
    InputFormat::Raw,
    InputFormat::Hex,
    InputFormat::Bytea,
    InputFormat::Base64,
    InputFormat::Od,
    InputFormat::Xxd,
    InputFormat::Hexdump,
    InputFormat::Gdb,
];

fuzz_target!(|data: &[u8]| {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let _ = detect(text);
    let format = FORMATS[usize::from(pick) % FORMATS.len()];
    if let Ok((bytes, _)) = decode(text, format) {
        // Output is bounded by the decoders' caps.
        assert!(bytes.len() <= 64 * (text.len() + 8192));
    }
});
