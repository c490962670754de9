//! `read_mesh` on any bytes: never panics, and what it accepts writes back byte for byte.
#![no_main]

use kiln_format::classic::{read_mesh, write_mesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(model) = read_mesh(data) {
        let bytes = write_mesh(&model);
        assert_eq!(bytes, data, "write(read(x)) != x");
        let again = read_mesh(&bytes).expect("re-reading a written mesh failed");
        assert_eq!(write_mesh(&again), bytes);
    }
});
