//! Blend shapes through the import: every output vertex of the generated tube (control points
//! shared by up to four corners, and optionally cut by a material split) gets the offsets of
//! the control point it was made from, each target keeps its shapes in full-weight order, and
//! the clip's `DeformPercent` curves become weight channels of every mesh the geometry made.

use kiln_fbx_scene::codes;
use kiln_scene::{Scene, Vec3};
use kiln_testkit::fixtures::morph::{
    REST_WEIGHTS, TARGETS, full_weights, morph_tube, morph_tube_file, offset, weight_keys,
};

/// The offset a mesh's target gives each of its vertices (zero for a vertex not listed).
fn dense(scene: &Scene, mesh: usize, target: usize, shape: usize) -> (Vec<Vec3>, Vec<Vec3>) {
    let m = &scene.meshes[mesh];
    let s = &m.morph_targets[target].shapes[shape];
    let mut p = vec![Vec3::ZERO; m.positions.len()];
    let mut n = vec![Vec3::ZERO; m.positions.len()];
    for i in 0..s.positions.len() {
        p[s.vertex(i) as usize] = s.positions[i];
        if !s.normals.is_empty() {
            n[s.vertex(i) as usize] = s.normals[i];
        }
    }
    (p, n)
}

fn check_offsets(scene: &Scene, meshes: &[usize]) -> usize {
    let mut moved = 0;
    for &mi in meshes {
        let m = &scene.meshes[mi];
        assert_eq!(m.morph_targets.len(), TARGETS.len());
        for (t, target) in m.morph_targets.iter().enumerate() {
            assert_eq!(target.name, TARGETS[t]);
            assert_eq!(target.weight, REST_WEIGHTS[t]);
            let weights: Vec<f32> = target.shapes.iter().map(|s| s.full_weight).collect();
            assert_eq!(weights, full_weights(t));
            for k in 0..target.shapes.len() {
                let (p, n) = dense(scene, mi, t, k);
                for (v, &base) in m.positions.iter().enumerate() {
                    let (want_p, want_n) = offset(t, k, base);
                    assert!(
                        (p[v] - want_p).length() < 1e-6,
                        "mesh {mi} target {t} shape {k} vertex {v} at {base}: {} != {want_p}",
                        p[v]
                    );
                    if t == 0 {
                        assert!((n[v] - want_n).length() < 1e-6);
                    }
                }
                moved += target.shapes[k].positions.len();
            }
        }
    }
    moved
}

#[test]
fn every_corner_gets_the_offsets_of_its_control_point() {
    let s = kiln_fbx_scene::import(&morph_tube_file(false)).unwrap();
    assert_eq!(s.meshes.len(), 1, "{:?}", s.warnings);
    s.validate().unwrap();
    // One vertex per corner: 5 × 8 quads, 160 corners; each control point of the two bulged
    // rings is a corner of 4 quads (2 on the seam column's two points).
    assert_eq!(s.meshes[0].positions.len(), 160);
    let bulge = &s.meshes[0].morph_targets[0].shapes[0];
    assert_eq!(bulge.vertices.len(), 2 * 8 * 4);
    assert!(bulge.vertices.windows(2).all(|w| w[0] < w[1]));
    check_offsets(&s, &[0]);
    assert!(
        !s.warnings.iter().any(|w| w.code.starts_with("fbx.morph")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn a_material_split_cuts_every_shape_between_the_parts() {
    let whole = kiln_fbx_scene::import(&morph_tube_file(false)).unwrap();
    let split = kiln_fbx_scene::import(&morph_tube_file(true)).unwrap();
    assert_eq!(split.meshes.len(), 2, "{:?}", split.warnings);
    split.validate().unwrap();
    assert_eq!(check_offsets(&split, &[0, 1]), check_offsets(&whole, &[0]));
    // Both parts have every target, even one that moves none of their vertices.
    for m in &split.meshes {
        assert_eq!(m.morph_targets.len(), 3);
    }
}

#[test]
fn weight_curves_become_channels_of_every_part() {
    for (file, meshes) in [(morph_tube_file(false), 1), (morph_tube_file(true), 2)] {
        let s = kiln_fbx_scene::import(&file).unwrap();
        assert_eq!(s.animations.len(), 1);
        let a = &s.animations[0];
        assert_eq!(a.morph_channels.len(), 3 * meshes);
        for t in 0..3 {
            for mesh in 0..meshes {
                let c = a
                    .morph_channels
                    .iter()
                    .find(|c| c.mesh == mesh && c.target == t)
                    .unwrap_or_else(|| panic!("channel of mesh {mesh} target {t}"));
                let want = weight_keys(t);
                assert_eq!(c.keys.len(), want.len());
                for (k, w) in c.keys.iter().zip(&want) {
                    assert!((k.time - w.time).abs() < 1e-6, "{} != {}", k.time, w.time);
                    assert!((k.value - w.value).abs() < 1e-6);
                }
            }
        }
    }
}

#[test]
fn the_writer_and_the_importer_agree_on_the_scene_model() {
    // The tube's mesh as the scene holds it, and its import: the same shapes per control
    // point (the importer's vertex v is a corner of the scene's vertex indices[v]).
    let scene = morph_tube();
    let s = kiln_fbx_scene::import(&morph_tube_file(false)).unwrap();
    let (src, out) = (&scene.meshes[0], &s.meshes[0]);
    for (t, target) in src.morph_targets.iter().enumerate() {
        for (k, shape) in target.shapes.iter().enumerate() {
            let mut want = vec![Vec3::ZERO; src.positions.len()];
            for i in 0..shape.positions.len() {
                want[shape.vertex(i) as usize] = shape.positions[i];
            }
            let (got, _) = dense(&s, 0, t, k);
            for (corner, &cp) in src.indices.iter().enumerate() {
                assert_eq!(got[corner], want[cp as usize], "target {t} shape {k}");
            }
        }
    }
    assert_eq!(out.positions.len(), src.indices.len());
}

/// Edits the first `Shape` geometry's or channel's node in the file's tree and imports it.
fn import_edited(edit: impl Fn(&mut Vec<kiln_fbx::OwnedNode>)) -> Scene {
    let bytes = morph_tube_file(false);
    let doc = kiln_fbx::Document::parse(&bytes).unwrap();
    let mut tree = doc.to_owned_nodes().unwrap();
    edit(&mut tree);
    let bytes = kiln_fbx::write_binary(&tree, &Default::default()).unwrap();
    kiln_fbx_scene::import(&bytes).unwrap()
}

fn objects(tree: &mut [kiln_fbx::OwnedNode]) -> &mut Vec<kiln_fbx::OwnedNode> {
    &mut tree
        .iter_mut()
        .find(|n| n.name == "Objects")
        .unwrap()
        .children
}

fn of_class<'t>(
    tree: &'t mut [kiln_fbx::OwnedNode],
    class: &str,
) -> impl Iterator<Item = &'t mut kiln_fbx::OwnedNode> {
    let class = kiln_fbx::OwnedValue::string(class);
    objects(tree)
        .iter_mut()
        .filter(move |o| o.properties.get(2) == Some(&class))
}

fn child<'n>(n: &'n mut kiln_fbx::OwnedNode, name: &str) -> &'n mut kiln_fbx::OwnedNode {
    n.children.iter_mut().find(|c| c.name == name).unwrap()
}

#[test]
fn bad_shapes_are_dropped_with_a_warning_naming_channel_and_shape() {
    use kiln_fbx::OwnedValue as V;
    let codes_of = |s: &Scene| -> Vec<(String, String)> {
        s.warnings
            .iter()
            .filter(|w| w.code.starts_with("fbx.morph"))
            .map(|w| (w.code.to_string(), w.message.clone()))
            .collect()
    };
    // An index past the control points and a NaN offset: those offsets go.
    let s = import_edited(|t| {
        let shape = of_class(t, "Shape").next().unwrap();
        let V::I32Array(ix) = &mut child(shape, "Indexes").properties[0] else {
            panic!()
        };
        ix[0] = 10_000;
        let V::F64Array(v) = &mut child(shape, "Vertices").properties[0] else {
            panic!()
        };
        v[4] = f64::NAN;
    });
    s.validate().unwrap();
    let w = codes_of(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert_eq!(w[0].0, codes::MORPH_OFFSETS_DROPPED);
    assert!(
        w[0].1.contains("'bulge'") && w[0].1.contains("shape 'bulge0'"),
        "{}",
        w[0].1
    );
    assert!(
        w[0].1
            .contains("1 offset(s) past the geometry's 54 control points and 1 not finite")
    );
    // Two control points fewer: the seam point (a corner of 2 quads) and its neighbour (4).
    assert_eq!(
        s.meshes[0].morph_targets[0].shapes[0].vertices.len(),
        2 * 8 * 4 - 2 - 4
    );

    // More Vertices than three per index: the shape goes, and with it its channel.
    let s = import_edited(|t| {
        let shape = of_class(t, "Shape").next().unwrap();
        let V::F64Array(v) = &mut child(shape, "Vertices").properties[0] else {
            panic!()
        };
        v.push(1.0);
    });
    s.validate().unwrap();
    let w = codes_of(&s);
    assert_eq!(
        w.iter().map(|w| w.0.as_str()).collect::<Vec<_>>(),
        [
            codes::MORPH_SHAPE_DROPPED,
            codes::MORPH_CHANNEL_DROPPED,
            codes::MORPH_UNSUPPORTED
        ]
    );
    assert!(w[0].1.contains("(three each expected)"), "{}", w[0].1);
    assert_eq!(s.meshes[0].morph_targets.len(), 2);
    assert_eq!(s.meshes[0].morph_targets[0].name, "twist");
    assert!(
        w[2].1
            .contains("1 blend shape weight curve(s) drive no imported blend shape")
    );

    // In-between weights repeated, and given out of order: sorted, the repeat dropped.
    let s = import_edited(|t| {
        let ch = of_class(t, "BlendShapeChannel").nth(1).unwrap();
        child(ch, "FullWeights").properties[0] = V::F64Array(vec![100.0, 100.0]);
    });
    let w = codes_of(&s);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(w[0].1.contains("repeats the full weight 100"), "{}", w[0].1);
    assert_eq!(s.meshes[0].morph_targets[1].shapes.len(), 1);
    let s = import_edited(|t| {
        let ch = of_class(t, "BlendShapeChannel").nth(1).unwrap();
        child(ch, "FullWeights").properties[0] = V::F64Array(vec![100.0, 50.0]);
    });
    assert!(codes_of(&s).is_empty());
    let twist = &s.meshes[0].morph_targets[1];
    assert_eq!(twist.shapes[0].name, "twist1");
    assert_eq!(twist.shapes[0].full_weight, 0.5);

    // Blender's per-offset FullWeights (one per offset of the channel's one shape) scale the
    // offsets; a list longer than the shapes but not one per offset is one weight per shape
    // (a fuzzed file once indexed past it).
    let offsets = 2 * 9; // the bulge's control points: two rings of nine
    let s = import_edited(|t| {
        let ch = of_class(t, "BlendShapeChannel").next().unwrap();
        child(ch, "FullWeights").properties[0] = V::F64Array(vec![50.0; offsets]);
    });
    assert!(codes_of(&s).is_empty(), "{:?}", codes_of(&s));
    let bulge = &s.meshes[0].morph_targets[0].shapes[0];
    assert_eq!(bulge.full_weight, 1.0);
    let whole = kiln_fbx_scene::import(&morph_tube_file(false)).unwrap();
    let full = &whole.meshes[0].morph_targets[0].shapes[0];
    for (half, full) in bulge.positions.iter().zip(&full.positions) {
        assert!((*half * 2.0 - *full).length() < 1e-6);
    }
    let s = import_edited(|t| {
        let ch = of_class(t, "BlendShapeChannel").next().unwrap();
        child(ch, "FullWeights").properties[0] = V::F64Array(vec![50.0, 100.0]);
    });
    assert!(codes_of(&s).is_empty(), "{:?}", codes_of(&s));
    assert_eq!(s.meshes[0].morph_targets[0].shapes[0].full_weight, 0.5);

    // A channel weight that is not a number: 0, said.
    let s = import_edited(|t| {
        let ch = of_class(t, "BlendShapeChannel").next().unwrap();
        let props = child(ch, "Properties70");
        props.children[0].properties[4] = V::F64(f64::INFINITY);
    });
    let w = codes_of(&s);
    assert_eq!(w[0].0, codes::MORPH_WEIGHT_INVALID);
    assert_eq!(s.meshes[0].morph_targets[0].weight, 0.0);

    // A channel with no shape at all.
    let s = import_edited(|t| {
        objects(t).retain(|o| o.properties.get(2) != Some(&V::string("Shape")));
    });
    assert!(s.meshes[0].morph_targets.is_empty());
    assert_eq!(
        codes_of(&s)
            .iter()
            .filter(|w| w.0 == codes::MORPH_CHANNEL_DROPPED)
            .count(),
        3
    );
}

mod roundtrip {
    use kiln_scene::{MorphShape, MorphTarget, Vec3};
    use kiln_testkit::fixtures::morph::morph_tube;
    use proptest::prelude::*;

    /// One shape: (vertex, offset) pairs over the tube's 54 control points, and a full weight.
    fn shape() -> impl Strategy<Value = (Vec<(u32, [i16; 3])>, u8)> {
        (
            prop::collection::vec((0u32..54, prop::array::uniform3(-100i16..100)), 0..30),
            1u8..=100,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Any sparse targets written to FBX and read back give every corner the offset of its
        /// control point (repeated indices summed), with the shapes in full-weight order.
        #[test]
        fn written_targets_read_back_per_corner(
            targets in prop::collection::vec((prop::collection::vec(shape(), 1..4), 0u8..=100), 1..4)
        ) {
            let mut scene = morph_tube();
            scene.animations.clear();
            let mesh = &mut scene.meshes[0];
            mesh.morph_targets.clear();
            let mut want: Vec<Vec<(f32, Vec<Vec3>)>> = Vec::new();
            for (t, (shapes, rest)) in targets.iter().enumerate() {
                let mut target = MorphTarget {
                    name: format!("t{t}"),
                    weight: f32::from(*rest) / 100.0,
                    shapes: Vec::new(),
                };
                let mut per_shape = Vec::new();
                for (k, (offsets, full)) in shapes.iter().enumerate() {
                    // Distinct full weights: k-th shape gets its own percent band.
                    let full_weight = f32::from(*full) / 100.0 + k as f32;
                    let mut sorted = offsets.clone();
                    sorted.sort_by_key(|o| o.0);
                    sorted.dedup_by_key(|o| o.0);
                    let mut dense = vec![Vec3::ZERO; mesh.positions.len()];
                    let mut s = MorphShape { name: format!("s{k}"), full_weight, ..MorphShape::default() };
                    for (v, d) in sorted {
                        let d = Vec3::new(f32::from(d[0]), f32::from(d[1]), f32::from(d[2])) / 64.0;
                        s.vertices.push(v);
                        s.positions.push(d);
                        dense[v as usize] = d;
                    }
                    target.shapes.push(s);
                    per_shape.push((full_weight, dense));
                }
                mesh.morph_targets.push(target);
                want.push(per_shape);
            }
            let src = scene.meshes[0].clone();
            let bytes = kiln_fbx_scene::write_fbx(&scene, &Default::default()).unwrap();
            let s = kiln_fbx_scene::import(&bytes).unwrap();
            s.validate().unwrap();
            let out = &s.meshes[0];
            prop_assert_eq!(out.morph_targets.len(), want.len());
            for (t, per_shape) in want.iter().enumerate() {
                let target = &out.morph_targets[t];
                prop_assert_eq!(target.weight, targets[t].1 as f32 / 100.0);
                prop_assert_eq!(target.shapes.len(), per_shape.len());
                for (k, (full, dense)) in per_shape.iter().enumerate() {
                    let shape = &target.shapes[k];
                    prop_assert!((shape.full_weight - full).abs() < 1e-6);
                    let mut got = vec![Vec3::ZERO; out.positions.len()];
                    for i in 0..shape.positions.len() {
                        got[shape.vertex(i) as usize] = shape.positions[i];
                    }
                    for (corner, &cp) in src.indices.iter().enumerate() {
                        prop_assert_eq!(got[corner], dense[cp as usize]);
                    }
                }
            }
        }
    }
}
