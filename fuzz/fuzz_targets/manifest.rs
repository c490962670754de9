//! `Manifest::from_json` on any bytes (a manifest is read from an output folder anyone may have
//! written to): never panics; what it accepts writes back to JSON that reads as the same
//! manifest.
#![no_main]

use kiln::manifest::Manifest;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some(m) = Manifest::from_json(data) else {
        return;
    };
    let again = Manifest::from_json(&m.to_json()).expect("a written manifest reads back");
    // NaN option values (`clip_rate`, `scale`) cannot compare equal; everything else must.
    if m.options.clip_rate.is_none_or(|r| !r.is_nan()) && m.options.scale.is_none_or(|s| !s.is_nan()) {
        assert_eq!(again, m);
    }
});
