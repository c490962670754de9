//! ASCII FBX on arbitrary bytes: whatever parses must be walkable, every value must decode or
//! fail cleanly (as every element type), and the decoded tree must round-trip through the
//! binary writer. The checks live in `kiln_testkit::oracle`, shared with the regression tests.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kiln_testkit::oracle::check_ascii(data);
});
