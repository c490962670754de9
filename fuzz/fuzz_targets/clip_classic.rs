//! `read_clip` on any bytes: never panics, and what it accepts writes back byte for byte.
#![no_main]

use kiln_format::classic::{read_clip, write_clip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(clip) = read_clip(data) {
        let bytes = write_clip(&clip);
        assert_eq!(bytes, data, "write(read(x)) != x");
        let again = read_clip(&bytes).expect("re-reading a written clip failed");
        assert_eq!(write_clip(&again), bytes);
    }
});
