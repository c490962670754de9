//! What exporters leave out and ufbx does without, kept instead of dropped: a layer element's
//! `MappingInformationType`/`ReferenceInformationType` (assumed from its arrays) and a skin
//! cluster's `TransformLink` (the offset is its `Transform`).

use kiln_fbx::{Document, OwnedNode, WriteOptions as TreeOptions};
use kiln_fbx_scene::{WriteOptions, codes, import, write_fbx};
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};

fn strip(nodes: &mut [OwnedNode]) -> usize {
    let mut n = 0;
    for node in nodes {
        if node.name.starts_with("LayerElement") {
            let before = node.children.len();
            node.children.retain(|c| {
                c.name != "MappingInformationType" && c.name != "ReferenceInformationType"
            });
            n += before - node.children.len();
        }
        n += strip(&mut node.children);
    }
    n
}

#[test]
fn a_layer_element_without_mapping_types_keeps_its_data() {
    for per_corner in [false, true] {
        let scene = skinned_tube(TubeSpec {
            rings: 4,
            segments: 6,
            bones: 2,
            frames: 0,
            per_corner,
        });
        let bytes = write_fbx(&scene, &WriteOptions::default()).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        let mut tree = doc.to_owned_nodes().unwrap();
        assert!(strip(&mut tree) >= 4, "the fixture has layer elements");
        let stripped = kiln_fbx::write_binary(&tree, &TreeOptions::V7400).unwrap();
        let expected = import(&bytes).unwrap();
        let ours = import(&stripped).unwrap();
        assert_eq!(ours.meshes.len(), expected.meshes.len());
        for (a, b) in ours.meshes.iter().zip(&expected.meshes) {
            assert_eq!(a.positions, b.positions);
            assert_eq!(a.normals, b.normals, "per_corner {per_corner}");
            assert_eq!(a.uv_channels, b.uv_channels, "per_corner {per_corner}");
            assert!(!a.normals.is_empty() && !a.uv_channels.is_empty());
        }
        assert!(
            ours.warnings
                .iter()
                .any(|w| w.code == codes::LAYER_MAPPING_ASSUMED
                    && w.message.contains("assumed from its arrays")),
            "{:?}",
            ours.warnings
        );
    }
}

#[test]
fn a_cluster_without_transform_link_keeps_its_weights() {
    let scene = skinned_tube(TubeSpec {
        rings: 4,
        segments: 6,
        bones: 3,
        frames: 0,
        per_corner: false,
    });
    let bytes = write_fbx(&scene, &WriteOptions::default()).unwrap();
    let mut tree = Document::parse(&bytes).unwrap().to_owned_nodes().unwrap();
    fn drop_links(nodes: &mut [OwnedNode]) -> usize {
        let mut n = 0;
        for node in nodes {
            let before = node.children.len();
            node.children.retain(|c| c.name != "TransformLink");
            n += before - node.children.len();
            n += drop_links(&mut node.children);
        }
        n
    }
    assert_eq!(drop_links(&mut tree), 3, "one TransformLink per cluster");
    let stripped = kiln_fbx::write_binary(&tree, &TreeOptions::V7400).unwrap();
    let expected = import(&bytes).unwrap();
    let ours = import(&stripped).unwrap();
    let bones = |s: &kiln_scene::Scene| -> Vec<(String, usize)> {
        s.meshes[0]
            .bones
            .iter()
            .map(|b| (b.name.clone(), b.weights.len()))
            .collect()
    };
    assert_eq!(bones(&ours), bones(&expected));
    assert_eq!(ours.meshes[0].bones.len(), 3);
    for (a, b) in ours.meshes[0].bones.iter().zip(&expected.meshes[0].bones) {
        assert_eq!(a.offset_matrix, b.offset_matrix);
    }
    assert!(
        !ours
            .warnings
            .iter()
            .any(|w| w.code == codes::CLUSTER_DROPPED),
        "{:?}",
        ours.warnings
    );
}
