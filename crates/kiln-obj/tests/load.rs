//! `load`: libraries found next to the OBJ, texture paths rewritten to open from its folder.

#![cfg(feature = "std")]

use kiln_scene::{PropertyValue, TextureKind};

#[test]
fn load_resolves_libraries_and_texture_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("materials")).unwrap();
    std::fs::create_dir_all(root.join("textures")).unwrap();
    std::fs::write(root.join("textures/wood.png"), b"png").unwrap();
    std::fs::write(root.join("materials/bark.png"), b"png").unwrap();
    std::fs::write(
        root.join("materials/lib.mtl"),
        "newmtl wood\nmap_Kd ..\\textures\\wood.png\nmap_bump bark.png\nnorm C:\\art\\missing\\normal.png\nmap_Ks nowhere/spec.png  \n",
    )
    .unwrap();
    std::fs::write(
        root.join("model.obj"),
        "mtllib materials\\lib.mtl\nmtllib absent.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl wood\nf 1 2 3\n",
    )
    .unwrap();

    let scene = kiln_obj::load(&root.join("model.obj")).unwrap();
    assert_eq!(scene.nodes[0].name, "model.obj");
    let m = &scene.materials[scene.meshes[0].material];
    let tex: Vec<(TextureKind, &str)> = m
        .textures
        .iter()
        .map(|t| (t.kind, t.path.as_str()))
        .collect();
    assert_eq!(
        tex,
        [
            (TextureKind::Diffuse, "textures/wood.png"),
            (TextureKind::Specular, "materials/nowhere/spec.png"),
            (TextureKind::Height, "materials/bark.png"),
            (TextureKind::Normals, "C:/art/missing/normal.png"),
        ]
    );
    let written = |i: usize| {
        m.properties
            .iter()
            .find(|(k, _)| *k == format!("textures[{i}].written"))
            .map(|(_, v)| v.clone())
    };
    assert_eq!(
        written(0),
        Some(PropertyValue::String("..\\textures\\wood.png".into()))
    );
    assert_eq!(
        written(1),
        Some(PropertyValue::String("nowhere/spec.png  ".into()))
    );
    assert_eq!(written(2), Some(PropertyValue::String("bark.png".into())));
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.code == kiln_obj::codes::MTLLIB_MISSING
                && w.location.as_deref() == Some("model.obj:2")
                && w.message
                    .contains("model.obj:2: material library \"absent.mtl\" not found")),
        "{:?}",
        scene.warnings
    );

    // The same bytes through `parse` keep the paths as written.
    let bytes = std::fs::read(root.join("model.obj")).unwrap();
    let raw = kiln_obj::parse(&bytes, "model.obj", &mut |lib: &str| {
        std::fs::read(root.join(lib.replace('\\', "/"))).ok()
    })
    .unwrap();
    assert_eq!(raw.materials[1].textures[0].path, "..\\textures\\wood.png");
}
