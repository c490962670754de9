//! `kiln convert` imports FBX skins per control point (`kiln::load::import_bytes_for_engine`,
//! `kiln_scene::PointSkin`) instead of as Assimp's per-vertex bone lists: the engine data must
//! be the same either way — the parts' vertices (the four strongest weights, renormalised, or
//! the rigid binding), the bones, the helper bones and the warnings — for odd skins too:
//! weights of zero, below zero, NaN and infinite, ties, a bone named twice, a bone with no
//! weights, vertices nothing weights, indices past the control points or below zero, and a
//! geometry split by material into several parts.

use std::path::Path;

use kiln::fbx_tree::OwnedValue;
use kiln::scene::{Bone, Mat4, Scene, VertexWeight};
use kiln::{LoadOptions, load};
use kiln_testkit::fixtures::export_like::{ExportSpec, export_like_fbx};
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};
use proptest::prelude::*;

/// The engine data of `bytes` imported one way or the other: the model, and the model and
/// the warnings as text (so that a NaN compares equal to itself).
fn engine_data(bytes: &[u8], per_point: bool) -> (kiln::format::Model, String, String) {
    let path = Path::new("skin.fbx");
    let files = &mut kiln::obj::FileSystem;
    let import = if per_point {
        load::import_bytes_for_engine
    } else {
        load::import_bytes
    };
    let scene = import(path, bytes, load::InputFormat::Fbx, files).unwrap();
    let skins = scene.meshes.iter().filter(|m| m.point_skin.is_some());
    assert_eq!(
        skins.count(),
        if per_point {
            scene.meshes.iter().filter(|m| !m.bones.is_empty()).count()
        } else {
            0
        }
    );
    let loaded = load::process_scene(scene, path, &LoadOptions::default()).unwrap();
    let (model, warnings) = (
        format!("{:?}", loaded.model),
        format!("{:?}", loaded.warnings),
    );
    (loaded.model, model, warnings)
}

/// Checks that both imports give the same engine data; gives the per-point one's model.
fn assert_same_engine_data(bytes: &[u8]) -> kiln::format::Model {
    let (_, model, warnings) = engine_data(bytes, false);
    let (per_point, model_pp, warnings_pp) = engine_data(bytes, true);
    assert!(model == model_pp, "the models differ");
    assert_eq!(warnings, warnings_pp);
    per_point
}

/// A weight a skin may hold, good or bad.
fn weight() -> impl Strategy<Value = f32> {
    prop_oneof![
        6 => 0.01f32..1.0,
        2 => Just(0.25f32),
        1 => Just(0.0f32),
        1 => Just(-0.5f32),
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        1 => Just(1e30f32),
    ]
}

/// Bone weights for a tube of `vertices` shared vertices: per bone, (vertex, weight) pairs.
fn skins(vertices: u32, bones: usize) -> impl Strategy<Value = Vec<Vec<(u32, f32)>>> {
    prop::collection::vec(
        prop::collection::vec((0..vertices, weight()), 0..(vertices as usize * 2)),
        bones,
    )
}

/// Indexes and weights appended to the first cluster of the tree: out of range and below
/// zero, which both imports ignore.
fn add_bad_indices(tree: &mut [kiln::fbx_tree::OwnedNode]) {
    fn first_cluster(
        nodes: &mut [kiln::fbx_tree::OwnedNode],
    ) -> Option<&mut kiln::fbx_tree::OwnedNode> {
        for n in nodes {
            if n.name == "Deformer"
                && n.properties
                    .iter()
                    .any(|p| matches!(p, OwnedValue::String(s) if s == b"Cluster"))
            {
                return Some(n);
            }
            if let Some(c) = first_cluster(&mut n.children) {
                return Some(c);
            }
        }
        None
    }
    let cluster = first_cluster(tree).expect("a cluster");
    for child in &mut cluster.children {
        match (&*child.name, child.properties.first_mut()) {
            ("Indexes", Some(OwnedValue::I32Array(v))) => v.extend([1_000_000, -3]),
            ("Weights", Some(OwnedValue::F64Array(v))) => v.extend([0.9, 0.9]),
            _ => {}
        }
    }
}

const TUBE: TubeSpec = TubeSpec {
    rings: 4,
    segments: 5,
    bones: 4,
    frames: 0,
    per_corner: false,
};

fn tube_with(weights: &[Vec<(u32, f32)>], twice: bool, unweighted: bool) -> Scene {
    let mut scene = skinned_tube(TUBE);
    let mesh = &mut scene.meshes[0];
    for (bone, list) in mesh.bones.iter_mut().zip(weights) {
        bone.weights = list
            .iter()
            .map(|&(vertex, weight)| VertexWeight { vertex, weight })
            .collect();
    }
    if twice {
        let mut again = mesh.bones[1].clone();
        again.name = mesh.bones[0].name.clone();
        again.offset_matrix = Mat4::from_translation([0.0, 1.0, 0.0].into());
        mesh.bones.push(again);
    }
    if unweighted {
        mesh.bones.push(Bone {
            weights: Vec::new(),
            ..mesh.bones[2].clone()
        });
    }
    scene
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn odd_skins_give_the_same_engine_data(
        weights in skins(20, 4),
        twice in any::<bool>(),
        unweighted in any::<bool>(),
        bad_indices in any::<bool>(),
    ) {
        let scene = tube_with(&weights, twice, unweighted);
        let mut tree =
            kiln::fbx::write_fbx_nodes(&scene, &kiln::fbx::WriteOptions::default()).unwrap();
        if bad_indices {
            add_bad_indices(&mut tree);
        }
        let options = kiln::fbx_tree::WriteOptions {
            version: 7400,
            compression: kiln::fbx_tree::Compression::None,
        };
        let bytes = kiln::fbx_tree::write_binary(&tree, &options).unwrap();
        assert_same_engine_data(&bytes);
    }
}

#[test]
fn the_tube_as_made_gives_the_same_engine_data() {
    let scene = skinned_tube(TUBE);
    let bytes = kiln::fbx::write_fbx(&scene, &kiln::fbx::WriteOptions::default()).unwrap();
    assert_same_engine_data(&bytes);
}

#[test]
fn a_geometry_split_by_material_gives_the_same_engine_data() {
    for materials in [1, 4] {
        let (bytes, _) = export_like_fbx(ExportSpec {
            materials,
            frames: 0,
            ..ExportSpec::triangles(3000)
        });
        let model = assert_same_engine_data(&bytes);
        // Every part is skinned through the per-point weights: each has vertices that two
        // bones share (the model's control points have one to eight influences).
        assert_eq!(model.meshes.len(), materials);
        for part in &model.meshes {
            assert!(part.vertices.iter().any(|v| v.blend_weights[1] > 0.0));
        }
    }
}
