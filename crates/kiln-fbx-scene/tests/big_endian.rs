//! Big-endian binary FBX (Maya on PowerPC Macs): the same scene as its little-endian twin,
//! whatever the version and compression, and checked against ufbx, which reads both.

use kiln_fbx::{Compression, Document, WriteOptions as TreeOptions};
use kiln_fbx_scene::{WriteOptions, import, write_fbx};
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};

#[test]
fn a_big_endian_file_imports_as_its_little_endian_twin() {
    let scene = skinned_tube(TubeSpec {
        rings: 4,
        segments: 6,
        bones: 3,
        frames: 6,
        per_corner: false,
    });
    let little = write_fbx(&scene, &WriteOptions::default()).unwrap();
    let doc = Document::parse(&little).unwrap();
    let tree = doc.to_owned_nodes().unwrap();
    let expected = import(&little).unwrap();
    assert!(!expected.meshes.is_empty() && !expected.animations.is_empty());
    for version in [6100, 7400, 7500] {
        for compression in [
            Compression::None,
            Compression::Zlib {
                level: 6,
                min_bytes: 0,
            },
        ] {
            let options = TreeOptions {
                version,
                compression,
            };
            let big = kiln_fbx::write_binary_big_endian(&tree, &options).unwrap();
            let ours = import(&big).unwrap();
            assert_eq!(ours.meshes, expected.meshes, "{options:?}");
            assert_eq!(ours.nodes, expected.nodes, "{options:?}");
            assert_eq!(ours.animations, expected.animations, "{options:?}");
            assert_eq!(ours.materials, expected.materials, "{options:?}");
            // ufbx reads big-endian files too: the same control points (a 7.x tree under a
            // 6100 header is not a 6.x file to ufbx, so only the 7.x versions).
            if version < 7000 {
                continue;
            }
            let u = ufbx::load_memory(&big, ufbx::LoadOpts::default()).expect("ufbx loads it");
            let mesh = u.meshes.iter().next().expect("a mesh");
            assert_eq!(mesh.num_vertices, doc_vertices(&little), "{options:?}");
        }
    }
}

/// The number of control points of the first geometry.
fn doc_vertices(bytes: &[u8]) -> usize {
    let doc = Document::parse(bytes).unwrap();
    let g = doc
        .require_root("Objects")
        .unwrap()
        .children()
        .find(|n| n.name() == "Geometry")
        .unwrap();
    g.require_child("Vertices")
        .unwrap()
        .f64_values()
        .unwrap()
        .len()
        / 3
}
