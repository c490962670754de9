//! Times the phases of importing the benchmark's large generated file:
//! `cargo run --release -p kiln-fbx-scene --example fbx_profile`.

use std::time::Instant;

use kiln_fbx_scene::fixtures::{TubeSpec, skinned_tube};

fn main() {
    let scene = skinned_tube(TubeSpec {
        rings: 501,
        segments: 500,
        bones: 100,
        frames: 300,
        per_corner: false,
    });
    let bytes = kiln_fbx_scene::write_fbx(
        &scene,
        &kiln_fbx_scene::WriteOptions {
            compress: false,
            ..Default::default()
        },
    )
    .unwrap();
    for _ in 0..15 {
        let t = Instant::now();
        let doc = kiln_fbx::Document::parse(&bytes).unwrap();
        let t_parse = t.elapsed();
        let t = Instant::now();
        let s = kiln_fbx_scene::import_document(&doc, &Default::default()).unwrap();
        let t_import = t.elapsed();
        println!(
            "parse {t_parse:?}, import {t_import:?} ({} vertices)",
            s.meshes[0].positions.len()
        );
    }
}
