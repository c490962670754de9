//! The whole-conversion benchmark's ufbx peer (`scripts/bench-convert`): reads a file into
//! memory and loads it with `ufbx::load_memory` (default options: no triangulation, no
//! processing, no output), as a process of its own so it is timed like `kiln convert` and
//! `assimp dump`. Prints the mesh and face counts so the load cannot be optimised away.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: ufbx_load FILE.fbx");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: cannot read: {e}");
            std::process::exit(1);
        }
    };
    match ufbx::load_memory(&bytes, ufbx::LoadOpts::default()) {
        Ok(scene) => {
            let faces: usize = scene.meshes.iter().map(|m| m.num_faces).sum();
            println!("{path}: {} meshes, {faces} faces", scene.meshes.len());
        }
        Err(e) => {
            eprintln!("{path}: ufbx: {}", e.description);
            std::process::exit(1);
        }
    }
}
