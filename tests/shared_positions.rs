//! The FBX importer says which vertices it made from one control point
//! (`kiln_scene::SharedPositions`), the hint tangent smoothing searches by: each point's
//! vertices must have the same position, bit for bit, the points must number no more than
//! the vertices (renumbered from 0 for a part of a geometry split by material), and the
//! processed scene must be the same with the hint as without it, and with a per-point skin's
//! points (what the engine's import gives a skinned part instead) as the hint.

use std::path::Path;

use kiln::load;
use kiln::scene::Scene;
use kiln_testkit::fixtures::export_like::{ExportSpec, export_like_fbx};

fn import(bytes: &[u8]) -> Scene {
    let files = &mut kiln::obj::FileSystem;
    load::import_bytes(Path::new("m.fbx"), bytes, load::InputFormat::Fbx, files).unwrap()
}

#[test]
fn each_point_is_one_position_and_the_hint_changes_nothing() {
    for materials in [1, 4, 12] {
        let (bytes, _) = export_like_fbx(ExportSpec {
            materials,
            frames: 0,
            ..ExportSpec::triangles(3000)
        });
        let scene = import(&bytes);
        scene.validate().unwrap();
        assert_eq!(scene.meshes.len(), materials);
        for mesh in &scene.meshes {
            let shared = mesh.shared_positions.as_ref().expect("shared positions");
            let mut at = vec![None; shared.points as usize];
            for (&p, &v) in shared.of_vertex.iter().zip(&mesh.positions) {
                let bits = v.to_array().map(f32::to_bits);
                assert_eq!(*at[p as usize].get_or_insert(bits), bits, "point {p}");
            }
            // Positions are shared (3.4 corners a point in the whole geometry, 2.1 in a
            // quarter of it, fewer in a twelfth). A part with fewer vertices than the geometry has points (a
            // twelfth) has its points renumbered, each used; a part of four keeps the
            // file's numbers, so it may skip some; one part uses all.
            let used = at.iter().filter(|p| p.is_some()).count();
            let n = mesh.positions.len();
            assert!(used < n && (materials > 1 || used * 3 < n), "{used} points");
            assert!(materials == 4 || used == at.len());
            assert!(shared.points as usize <= mesh.positions.len());
        }
        let process = |mut scene: Scene| {
            kiln::process::process(&mut scene, kiln::process::Steps::ORIGINAL_TOOL).unwrap();
            scene
        };
        let mut without = scene.clone();
        for mesh in &mut without.meshes {
            mesh.shared_positions = None;
        }
        // The engine's import: a skinned part names its points through its per-point skin
        // instead, which tangent smoothing reads the same way.
        let files = &mut kiln::obj::FileSystem;
        let engine = load::import_bytes_for_engine(
            Path::new("m.fbx"),
            &bytes,
            load::InputFormat::Fbx,
            files,
        )
        .unwrap();
        for mesh in &engine.meshes {
            assert!(mesh.shared_positions.is_none() && mesh.point_skin.is_some());
        }
        let without = process(without);
        for other in [process(scene), process(engine)] {
            for (a, b) in other.meshes.iter().zip(&without.meshes) {
                assert!(!a.tangents.is_empty());
                // Text, so that NaN equals NaN.
                assert_eq!(format!("{:?}", a.tangents), format!("{:?}", b.tangents));
                assert_eq!(format!("{:?}", a.bitangents), format!("{:?}", b.bitangents));
            }
        }
    }
}
