//! FBX import (binary and ASCII, tree then scene), then the original tool's processing steps
//! and the extraction, on arbitrary bytes. An accepted file must give a valid scene, and
//! nothing may panic.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(mut scene) = kiln_fbx_scene::import(data) else {
        return;
    };
    scene.validate().expect("importer produced an invalid scene");
    if kiln_process::process(&mut scene, kiln_process::Steps::ORIGINAL_TOOL).is_ok() {
        scene.validate().expect("processing produced an invalid scene");
        let _ = kiln_extract::extract(&scene);
    }
});
