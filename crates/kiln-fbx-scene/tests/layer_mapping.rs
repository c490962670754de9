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

/// A small skinned tube as FBX 7.4, and its node tree to alter.
fn skinned_tube_fbx() -> (Vec<u8>, Vec<OwnedNode>) {
    let scene = skinned_tube(TubeSpec {
        rings: 4,
        segments: 6,
        bones: 3,
        frames: 0,
        per_corner: false,
    });
    let bytes = write_fbx(&scene, &WriteOptions::default()).unwrap();
    let tree = Document::parse(&bytes).unwrap().to_owned_nodes().unwrap();
    (bytes, tree)
}

#[test]
fn a_cluster_without_transform_link_keeps_its_weights() {
    let (bytes, mut tree) = skinned_tube_fbx();
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

/// The tube with its clusters' `names` removed, and a `BindPose` of every bone's
/// `TransformLink` added when `pose`.
fn without(names: &[&str], pose: bool) -> (Vec<u8>, Vec<u8>) {
    let (bytes, mut tree) = skinned_tube_fbx();
    let objects = tree.iter_mut().find(|n| n.name == "Objects").unwrap();
    let mut pose_nodes = Vec::new();
    let mut links = Vec::new();
    for o in objects.children.iter_mut().filter(|o| o.name == "Deformer") {
        if let Some(l) = o.children.iter().find(|c| c.name == "TransformLink") {
            links.push((o.properties[0].clone(), l.properties[0].clone()));
        }
        o.children.retain(|c| !names.contains(&c.name.as_str()));
    }
    let conns = tree
        .iter()
        .find(|n| n.name == "Connections")
        .unwrap()
        .clone();
    for (cluster, matrix) in links {
        // The bone linked to the cluster (Model → cluster, OO).
        let bone = conns
            .children
            .iter()
            .find(|c| c.properties.get(2) == Some(&cluster))
            .map(|c| c.properties[1].clone())
            .unwrap();
        pose_nodes.push(
            OwnedNode::new("PoseNode")
                .with_child(OwnedNode::new("Node").with(bone))
                .with_child(OwnedNode::new("Matrix").with(matrix)),
        );
    }
    if pose {
        let mut p = OwnedNode::new("Pose")
            .with(kiln_fbx::OwnedValue::I64(77))
            .with(kiln_fbx::OwnedValue::String(b"BindPose\0\x01Pose".to_vec()))
            .with(kiln_fbx::OwnedValue::string("BindPose"))
            .with_child(OwnedNode::new("Type").with(kiln_fbx::OwnedValue::string("BindPose")));
        p.children.extend(pose_nodes);
        let objects = tree.iter_mut().find(|n| n.name == "Objects").unwrap();
        objects.children.push(p);
    }
    (
        bytes,
        kiln_fbx::write_binary(&tree, &TreeOptions::V7400).unwrap(),
    )
}

#[test]
fn a_cluster_without_transform_takes_its_offset_from_the_bind_pose() {
    for (names, pose, from) in [
        (&["Transform"][..], false, "the bind pose"),
        (&["Transform", "TransformLink"][..], true, "the bind pose"),
        (
            &["Transform", "TransformLink"][..],
            false,
            "the bone's transform at rest",
        ),
    ] {
        let (bytes, stripped) = without(names, pose);
        let expected = import(&bytes).unwrap();
        let ours = import(&stripped).unwrap();
        let what = format!("without {names:?}, pose {pose}");
        assert_eq!(ours.meshes[0].bones.len(), 3, "{what}");
        for (a, b) in ours.meshes[0].bones.iter().zip(&expected.meshes[0].bones) {
            assert_eq!(a.name, b.name);
            assert_eq!(a.weights.len(), b.weights.len());
            assert!(
                a.offset_matrix.abs_diff_eq(b.offset_matrix, 1e-5),
                "{what}: bone {}: {:?} vs {:?}",
                a.name,
                a.offset_matrix,
                b.offset_matrix
            );
        }
        let w: Vec<_> = ours
            .warnings
            .iter()
            .filter(|w| w.code == codes::CLUSTER_BIND_RECOVERED)
            .collect();
        assert_eq!(w.len(), 3, "{what}: {:?}", ours.warnings);
        assert!(w[0].message.ends_with(from), "{what}: {}", w[0].message);
    }
}
