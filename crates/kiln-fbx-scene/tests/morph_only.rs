//! A stack that animates only blend shape weights stays an animation (Assimp 5.2 keeps it for
//! its morph channel, and the original tool writes its clip, every bone in the bind pose):
//! kiln imports it with no node channel, its length from `LocalStart`/`LocalStop` or, without
//! them, from the weight keys, with the weight curve as its one morph channel.

use kiln_fbx_scene::codes;
use kiln_testkit::fixtures::fbx::morph_only_file;

#[test]
fn a_stack_that_only_moves_weights_is_an_animation() {
    let s = kiln_fbx_scene::import(&morph_only_file(true)).unwrap();
    assert_eq!(s.animations.len(), 1, "{:?}", s.warnings);
    let a = &s.animations[0];
    assert_eq!(a.name, "Blink");
    assert!(a.channels.is_empty());
    assert_eq!(a.ticks_per_second, 30.0);
    // LocalStart 0.5 s, LocalStop 1 s: 15 ticks at 30 per second.
    assert!((a.duration - 15.0).abs() < 1e-9, "{}", a.duration);
    // The weight curve is the cube's target's channel, its times from the range's start.
    assert_eq!(a.morph_channels.len(), 1, "{:?}", s.warnings);
    let c = &a.morph_channels[0];
    assert_eq!((c.mesh, c.target), (0, 0));
    let keys: Vec<(f64, f32)> = c.keys.iter().map(|k| (k.time, k.value)).collect();
    assert_eq!(keys, [(-15.0, 0.0), (0.0, 1.0), (15.0, 0.0)]);
    let target = &s.meshes[0].morph_targets[0];
    assert_eq!(target.name, "Up");
    // The top four corners, three quads each, move up by 1.
    assert_eq!(target.shapes[0].vertices.len(), 12);
    assert!(
        target.shapes[0]
            .positions
            .iter()
            .all(|d| *d == kiln_scene::Vec3::Z)
    );
    assert!(
        !s.warnings
            .iter()
            .any(|w| w.code == codes::MORPH_UNSUPPORTED),
        "{:?}",
        s.warnings
    );

    // No range: the weight keys span one second.
    let s = kiln_fbx_scene::import(&morph_only_file(false)).unwrap();
    assert_eq!(s.animations.len(), 1);
    assert!((s.animations[0].duration - 30.0).abs() < 1e-9);
}

#[test]
fn a_weight_curve_on_no_mesh_makes_no_animation() {
    // The same file with the blend shape cut from its geometry: nothing is animated.
    let s = import_with_connections(|links| {
        links.retain(|c| c.properties.get(1) != Some(&kiln_fbx::OwnedValue::I64(9002)))
    });
    assert!(s.animations.is_empty());
}

#[test]
fn a_curve_node_on_a_geometry_property_is_ignored_with_a_warning_that_names_it() {
    // Blender also links a shape key's curve node to a custom property of the geometry (the
    // key's name): not a node, node attribute or deformer, so Assimp and kiln animate nothing
    // with it, and the warning says what the node drives instead of "no target".
    let s = import_with_connections(|links| {
        let link = links
            .iter_mut()
            .find(|c| {
                c.properties.get(1) == Some(&kiln_fbx::OwnedValue::I64(9006))
                    && c.properties.get(2) == Some(&kiln_fbx::OwnedValue::I64(9003))
            })
            .expect("the curve node drives the channel");
        link.properties[2] = kiln_fbx::OwnedValue::I64(9001);
        link.properties[3] = kiln_fbx::OwnedValue::string("Up");
    });
    assert!(s.animations.is_empty(), "{:?}", s.animations);
    let w: Vec<_> = s
        .warnings
        .iter()
        .filter(|w| w.code == codes::CURVE_NODE_UNTARGETED)
        .collect();
    assert_eq!(w.len(), 1, "{:?}", s.warnings);
    assert_eq!(
        w[0].message,
        "AnimationCurveNode 'DeformPercent' (id 9006): drives 'Up' of Geometry 'Up' (id 9001), \
         which is not a node, node attribute or deformer; ignored"
    );
}

/// The ranged morph-only file with its connections changed by `edit`, imported.
fn import_with_connections(edit: impl FnOnce(&mut Vec<kiln_fbx::OwnedNode>)) -> kiln_scene::Scene {
    let bytes = morph_only_file(true);
    let doc = kiln_fbx::Document::parse(&bytes).unwrap();
    let mut tree = doc.to_owned_nodes().unwrap();
    let conns = tree.iter_mut().find(|n| n.name == "Connections").unwrap();
    edit(&mut conns.children);
    let changed = kiln_fbx::write_binary(&tree, &Default::default()).unwrap();
    kiln_fbx_scene::import(&changed).unwrap()
}
