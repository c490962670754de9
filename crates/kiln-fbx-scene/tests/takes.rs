//! FBX 6 `Takes` and the flat files before 6.0: the same scene written as 7.4 (animation
//! stacks), as 6.1 (takes, binary and ASCII, every `Key` form the FBX SDK writes) and as 5.0
//! binary and 5.8 ASCII (models at the top, geometry, materials and skin links inside them)
//! imports to the same scene: nodes, meshes, normals, UVs, materials, bones, and animations key
//! for key. kiln's 7.4 import is held to Assimp by the conformance
//! tests, so the takes convert as Assimp converts the same scene saved as 7.x.

use kiln_fbx::{OwnedNode, OwnedValue};
use kiln_scene::Scene;
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};
use kiln_testkit::fixtures::legacy::{fbx5, fbx61, fbx61_tree, write_ascii};

fn tube() -> Scene {
    skinned_tube(TubeSpec {
        rings: 6,
        segments: 5,
        bones: 4,
        frames: 12,
        per_corner: false,
    })
}

fn assert_same_scene(a: &Scene, b: &Scene, what: &str) {
    assert!(b.warnings.is_empty(), "{what}: {:?}", b.warnings);
    assert_eq!(a.nodes.len(), b.nodes.len(), "{what}: nodes");
    for (x, y) in a.nodes.iter().zip(&b.nodes) {
        assert_eq!(x.name, y.name, "{what}");
        assert!(
            x.transform.abs_diff_eq(y.transform, 1e-6),
            "{what}: node {}",
            x.name
        );
    }
    assert_eq!(a.meshes.len(), b.meshes.len(), "{what}: meshes");
    for (x, y) in a.meshes.iter().zip(&b.meshes) {
        assert_eq!(x.positions, y.positions, "{what}: positions");
        assert_eq!(x.normals, y.normals, "{what}: normals");
        let uv = |m: &kiln_scene::Mesh| {
            m.uv_channels
                .iter()
                .map(|c| c.coords.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(uv(x), uv(y), "{what}: UVs");
        assert!(!uv(x).is_empty());
        assert_eq!(
            a.materials[x.material].diffuse, b.materials[y.material].diffuse,
            "{what}: material"
        );
        assert_eq!(x.face_sizes, y.face_sizes, "{what}: faces");
        assert_eq!(x.bones.len(), y.bones.len(), "{what}: bones");
        for (p, q) in x.bones.iter().zip(&y.bones) {
            assert_eq!(p.name, q.name);
            assert_eq!(p.weights.len(), q.weights.len());
        }
    }
    assert_eq!(a.animations.len(), 1, "{what}: the tube has one clip");
    assert_eq!(a.animations.len(), b.animations.len(), "{what}: animations");
    for (x, y) in a.animations.iter().zip(&b.animations) {
        assert_eq!(x.name, y.name, "{what}");
        assert_eq!(x.duration, y.duration, "{what}: duration");
        assert_eq!(x.ticks_per_second, y.ticks_per_second, "{what}: rate");
        assert!(x.channels.len() >= 4, "{what}: a channel per bone");
        assert_eq!(x.channels.len(), y.channels.len(), "{what}: channels");
        for (p, q) in x.channels.iter().zip(&y.channels) {
            assert_eq!(p.node_name, q.node_name, "{what}");
            assert_eq!(p.position_keys, q.position_keys, "{what}: {}", p.node_name);
            assert_eq!(p.rotation_keys, q.rotation_keys, "{what}: {}", p.node_name);
            assert_eq!(p.scaling_keys, q.scaling_keys, "{what}: {}", p.node_name);
        }
    }
}

#[test]
fn a_take_imports_as_the_same_stack_does() {
    let scene = tube();
    let v74 = kiln_fbx_scene::write_fbx(&scene, &kiln_fbx_scene::WriteOptions::default()).unwrap();
    let from74 = kiln_fbx_scene::import(&v74).unwrap();
    let bin61 = kiln_fbx_scene::import(&fbx61(&scene)).unwrap();
    assert_same_scene(&from74, &bin61, "binary 6.1");
    let tree = kiln_fbx_scene::write_fbx_nodes(&scene, &Default::default()).unwrap();
    let ascii = write_ascii(&fbx61_tree(&tree), 6100);
    let ascii61 = kiln_fbx_scene::import(&ascii).unwrap();
    assert_same_scene(&from74, &ascii61, "ASCII 6.1");
}

#[test]
fn files_before_6_import_as_the_same_scene() {
    let scene = tube();
    let v74 = kiln_fbx_scene::write_fbx(&scene, &kiln_fbx_scene::WriteOptions::default()).unwrap();
    let from74 = kiln_fbx_scene::import(&v74).unwrap();
    let binary = fbx5(&scene, false);
    assert_eq!(
        &binary[23..27],
        &3000u32.to_le_bytes(),
        "3ds Max's header version"
    );
    assert_same_scene(
        &from74,
        &kiln_fbx_scene::import(&binary).unwrap(),
        "binary 5.0",
    );
    let ascii = fbx5(&scene, true);
    assert!(!ascii.windows(7).any(|w| w == b"Objects"));
    assert_same_scene(
        &from74,
        &kiln_fbx_scene::import(&ascii).unwrap(),
        "ASCII 5.8",
    );
}

/// The 6.1 tree of the tube with its first `Key` list replaced.
fn with_first_key(key: Vec<OwnedValue>, count: Option<i32>) -> Vec<u8> {
    let tree = kiln_fbx_scene::write_fbx_nodes(&tube(), &Default::default()).unwrap();
    let mut t = fbx61_tree(&tree);
    fn first_axis(n: &mut OwnedNode) -> Option<&mut OwnedNode> {
        if n.children.iter().any(|c| c.name == "Key") {
            return Some(n);
        }
        n.children.iter_mut().find_map(first_axis)
    }
    let takes = t.iter_mut().find(|n| n.name == "Takes").unwrap();
    let axis = first_axis(takes).unwrap();
    for c in &mut axis.children {
        if c.name == "Key" {
            c.properties = key.clone();
        }
        if c.name == "KeyCount" {
            if let Some(n) = count {
                c.properties = vec![OwnedValue::I32(n)];
            }
        }
    }
    kiln_fbx::write_binary(
        &t,
        &kiln_fbx::WriteOptions {
            version: 6100,
            compression: kiln_fbx::Compression::None,
        },
    )
    .unwrap()
}

/// A `Key` list of linear keys `(time, value)`.
fn linear(keys: &[(i64, f64)]) -> Vec<OwnedValue> {
    keys.iter()
        .flat_map(|&(t, v)| {
            [
                OwnedValue::I64(t),
                OwnedValue::F64(v),
                OwnedValue::Char(b'L'),
            ]
        })
        .collect()
}

#[test]
fn damaged_key_lists_keep_what_precedes_the_damage() {
    let c = OwnedValue::Char;
    // Two good keys, then an unknown interpolation letter.
    let mut keys = linear(&[(0, 1.0), (1_539_538_600, 2.0), (3_079_077_200, 3.0)]);
    *keys.last_mut().unwrap() = c(b'Q');
    let bytes = with_first_key(keys, None);
    let s = kiln_fbx_scene::import(&bytes).unwrap();
    let w: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.code == kiln_fbx_scene::codes::TAKE_KEYS_MALFORMED)
        .collect();
    assert_eq!(w.len(), 1, "{:?}", s.warnings);
    assert!(
        w[0].message.contains("key 2: unknown interpolation 'Q'")
            && w[0].message.contains("the 2 keys before it are kept"),
        "{}",
        w[0].message
    );
    assert_eq!(s.animations.len(), 1);

    // A KeyCount the list does not hold.
    let bytes = with_first_key(linear(&[(0, 1.0)]), Some(5));
    let s = kiln_fbx_scene::import(&bytes).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.code == kiln_fbx_scene::codes::TAKE_KEYS_MALFORMED
                && w.message
                    .contains("KeyCount says 5 keys, the Key list holds 1")),
        "{:?}",
        s.warnings
    );

    // Keys out of order: the curve goes, the rest stays.
    let bytes = with_first_key(linear(&[(100, 1.0), (50, 2.0)]), Some(2));
    let s = kiln_fbx_scene::import(&bytes).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.code == kiln_fbx_scene::codes::CURVE_DROPPED),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.animations.len(), 1);

    // A string in a Key list.
    let bytes = with_first_key(
        vec![OwnedValue::I64(0), OwnedValue::string("oops"), c(b'L')],
        Some(1),
    );
    let s = kiln_fbx_scene::import(&bytes).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.code == kiln_fbx_scene::codes::TAKE_KEYS_MALFORMED
                && w.message.contains("a string in its Key list")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn names_that_are_not_utf8_keep_their_bytes() {
    // A Latin-1 model name in a binary file: the scene keeps its bytes, the writer writes them.
    let mut scene = tube();
    let arm = scene.find_node("Armature").unwrap();
    scene.nodes[arm].name = kiln_scene::names::from_bytes(b"Sk\xe9lett").into_owned();
    let bytes = kiln_fbx_scene::write_fbx(&scene, &Default::default()).unwrap();
    assert!(bytes.windows(7).any(|w| w == b"Sk\xe9lett"));
    let back = kiln_fbx_scene::import(&bytes).unwrap();
    let node = back
        .nodes
        .iter()
        .find(|n| &*kiln_scene::names::to_bytes(&n.name) == b"Sk\xe9lett")
        .expect("the node keeps its bytes");
    assert_eq!(kiln_scene::names::escaped(&node.name), "Sk\\xE9lett");
    // The same through FBX 6.1, where objects and takes are found by these names.
    let s61 = kiln_fbx_scene::import(&fbx61(&scene)).unwrap();
    assert!(s61.warnings.is_empty(), "{:?}", s61.warnings);
    assert!(s61.nodes.iter().any(|n| n.name == node.name));
}
