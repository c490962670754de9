//! OBJ + MTL import, then the original tool's processing steps and the extraction, on
//! arbitrary bytes. The same bytes serve as the material library, so both parsers are fuzzed.
//! An accepted file must give a valid scene, and processing must not panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut scene) = kiln_obj::parse(data, "fuzz.obj", &mut |_| Some(data.to_vec())) else {
        return;
    };
    scene.validate().expect("importer produced an invalid scene");
    if kiln_process::process(&mut scene, kiln_process::Steps::ORIGINAL_TOOL).is_ok() {
        scene.validate().expect("processing produced an invalid scene");
        let _ = kiln_extract::extract(&scene);
    }
});
