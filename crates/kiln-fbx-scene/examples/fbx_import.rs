//! Imports an FBX file and prints what kiln made of it:
//! `cargo run -p kiln-fbx-scene --example fbx_import -- FILE`.

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: fbx_import FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let scene = match kiln_fbx_scene::import(&bytes) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1)
        }
    };
    println!("{}", scene.metadata.source_format);
    for id in scene.depth_first() {
        let mut depth = 0;
        let mut p = scene.nodes[id].parent;
        while let Some(q) = p {
            depth += 1;
            p = scene.nodes[q].parent;
        }
        let n = &scene.nodes[id];
        println!("{}{} meshes {:?}", "  ".repeat(depth), n.name, n.meshes);
    }
    for (i, m) in scene.meshes.iter().enumerate() {
        println!(
            "mesh {i} {:?}: {} vertices, {} faces, material {}, {} bones, {} uv sets, normals {}",
            m.name,
            m.positions.len(),
            m.face_count(),
            m.material,
            m.bones.len(),
            m.uv_channels.len(),
            !m.normals.is_empty()
        );
    }
    for (i, m) in scene.materials.iter().enumerate() {
        println!(
            "material {i} {:?}: diffuse {:?}, textures {:?}",
            m.name, m.diffuse, m.textures
        );
    }
    for a in &scene.animations {
        println!(
            "animation {:?}: {} ticks at {}/s, {} channels",
            a.name,
            a.duration,
            a.ticks_per_second,
            a.channels.len()
        );
    }
    for t in &scene.textures {
        println!(
            "texture {:?} ({}): {} bytes",
            t.filename,
            t.format_hint,
            t.data.len()
        );
    }
    for w in &scene.warnings {
        println!("warning: {w}");
    }
}
