//! The C entry point `kiln_convert_memory` on arbitrary bytes: the first byte picks the file
//! name (FBX or OBJ, which reads its `.mtl` through the loader), the layout and the
//! quantisation; the loader hands the same bytes back for every name asked for (so `.mtl` and
//! texture reads see hostile data too). Every call returns a result that is freed once; nothing
//! may panic across the boundary (the API catches it: a caught panic would be an error
//! starting `internal error`, which this target treats as a crash).
#![no_main]

use std::ffi::{CStr, c_char, c_int, c_void};

use kiln_capi::{KilnBytes, KilnOptions, kiln_convert_memory, kiln_result_free};
use libfuzzer_sys::fuzz_target;

unsafe extern "C" fn loader(user: *mut c_void, _name: *const c_char, out: *mut KilnBytes) -> c_int {
    // SAFETY: `user` is the `&[u8]` passed below, alive for the call; `out` is kiln's.
    unsafe {
        let data = &*(user as *const &[u8]);
        (*out).data = data.as_ptr();
        (*out).len = data.len();
    }
    0
}

fuzz_target!(|data: &[u8]| {
    let Some((&pick, rest)) = data.split_first() else {
        return;
    };
    let name: &CStr = if pick & 1 == 0 { c"model.fbx" } else { c"model.obj" };
    let options = KilnOptions {
        layout: u32::from(pick >> 1 & 1),
        quantize: u32::from(pick >> 2 & 3) % 3,
        static_mesh: u32::from(pick >> 4 & 1),
        clip_rate: 0.0,
    };
    let mut user: &[u8] = rest;
    // SAFETY: valid pointers and lengths, a loader that follows the contract.
    let result = unsafe {
        kiln_convert_memory(
            rest.as_ptr(),
            rest.len(),
            name.as_ptr(),
            Some(loader),
            (&mut user as *mut &[u8]).cast(),
            &options,
        )
    };
    assert!(!result.is_null());
    // SAFETY: a live result, freed once below.
    let error = unsafe { (*result).error };
    if !error.is_null() {
        // SAFETY: kiln's NUL-terminated message.
        let message = unsafe { CStr::from_ptr(error) }.to_string_lossy();
        assert!(!message.starts_with("internal error"), "{message}");
    }
    // SAFETY: from kiln_convert_memory, not freed before.
    unsafe { kiln_result_free(result) };
});
