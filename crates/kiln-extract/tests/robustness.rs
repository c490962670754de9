//! Random input through extraction, binding, sampling, bake and skinning: errors or repairs,
//! never a panic, and the invariants the runtime relies on.

use glam::{Mat4, Quat, Vec3};
use kiln_anim::bake::{BakeOptions, bake};
use kiln_anim::sample::{AnimationClip, Wrap};
use kiln_anim::skeleton::{Pose, Skeleton};
use kiln_anim::skin::{check_vertices, palette, skin_vertices};
use kiln_extract::{ClipOptions, extract, extract_clip, extract_taking_meshes};
use kiln_scene::{
    Animation, Bone, Material, Mesh, Node, NodeChannel, QuatKey, Scene, VectorKey, VertexWeight,
};
use proptest::prelude::*;

fn float() -> impl Strategy<Value = f32> {
    prop_oneof![
        60 => -10.0f32..10.0,
        1 => Just(f32::NAN),
        1 => Just(f32::INFINITY),
        4 => Just(0.0f32),
    ]
}

fn time() -> impl Strategy<Value = f64> {
    prop_oneof![40 => -2.0f64..30.0, 1 => Just(f64::NAN), 4 => Just(5.5f64)]
}

fn vector_key() -> impl Strategy<Value = VectorKey> {
    (time(), float(), float(), float()).prop_map(|(time, x, y, z)| VectorKey {
        time,
        value: Vec3::new(x, y, z),
    })
}

fn channel(node: &'static str) -> impl Strategy<Value = NodeChannel> {
    let q = (time(), float(), float(), float(), float()).prop_map(|(time, x, y, z, w)| QuatKey {
        time,
        value: Quat::from_xyzw(x, y, z, w),
    });
    (
        prop::collection::vec(vector_key(), 0..6),
        prop::collection::vec(q, 0..6),
        prop::collection::vec(vector_key(), 0..6),
    )
        .prop_map(move |(p, r, s)| NodeChannel {
            node_name: node.into(),
            position_keys: p,
            rotation_keys: r,
            scaling_keys: s,
        })
}

/// root → a → b, a skinned triangle on `mesh` with random weights (some on a bone that does
/// not exist), and one animation with random channels, rate and duration.
fn scene() -> impl Strategy<Value = Scene> {
    (
        prop::collection::vec((0u32..4, 0usize..4, float()), 0..20),
        prop::collection::vec(channel("a"), 0..3),
        prop::collection::vec(channel("ghost"), 0..2),
        prop_oneof![1 => Just(0.0f64), 1 => Just(-1.0), 1 => Just(f64::NAN), 12 => 1.0f64..100.0],
        prop_oneof![1 => Just(f64::NAN), 1 => Just(-3.0), 12 => 0.0f64..40.0],
    )
        .prop_map(|(weights, channels, ghosts, tps, duration)| {
            let mut s = Scene::with_root("root");
            let a = s.add_child(0, Node::new("a"));
            s.nodes[a].transform = Mat4::from_translation(Vec3::Y);
            s.add_child(a, Node::new("b"));
            let m = s.add_child(0, Node::new("mesh"));
            s.materials.push(Material::default());
            let names = ["a", "b", "root", "nowhere"];
            let mut mesh = Mesh {
                positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
                ..Mesh::default()
            };
            mesh.push_face(&[0, 1, 2]);
            for (vertex, bone, weight) in weights {
                let name = names[bone];
                match mesh.bones.iter_mut().find(|b| b.name == name) {
                    Some(b) => b.weights.push(VertexWeight { vertex, weight }),
                    None => mesh.bones.push(Bone {
                        name: name.into(),
                        offset_matrix: Mat4::from_translation(Vec3::new(0.0, -1.0, 0.0)),
                        weights: vec![VertexWeight { vertex, weight }],
                    }),
                }
            }
            s.meshes.push(mesh);
            s.nodes[m].meshes.push(0);
            s.animations.push(Animation {
                name: "a|b".into(),
                duration,
                ticks_per_second: tps,
                channels: channels.into_iter().chain(ghosts).collect(),
                morph_channels: Vec::new(),
            });
            s
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn extraction_sampling_bake_and_skinning_never_panic(s in scene(), t in -50.0f32..50.0) {
        let e = extract(&s);
        // Taking the meshes gives the same extraction and leaves what the clips need.
        let mut taken = s.clone();
        let e2 = extract_taking_meshes(&mut taken);
        prop_assert!(taken.meshes.is_empty());
        prop_assert_eq!(format!("{e:?}"), format!("{e2:?}"));
        let options = ClipOptions { max_keyframes: 10_000, ..ClipOptions::default() };
        prop_assert_eq!(
            format!("{:?}", extract_clip(&s, &e, 0, &options)),
            format!("{:?}", extract_clip(&taken, &e2, 0, &options))
        );
        // Weights: four at most, renormalised, indices naming bones.
        let bones = e.model.bones.len();
        for v in &e.model.meshes[0].vertices {
            let sum: f32 = v.blend_weights.iter().sum();
            prop_assert!((sum - 1.0).abs() < 1e-5, "{:?}", v);
            prop_assert!(v.blend_indices.iter().all(|&i| i >= 0.0 && (i as usize) < bones));
        }
        prop_assert!(check_vertices(&e.model.meshes[0].vertices, bones).is_ok());
        let options = ClipOptions { max_keyframes: 10_000, ..ClipOptions::default() };
        let Ok(clip) = extract_clip(&s, &e, 0, &options) else { return Ok(()) };
        let clip = clip.clip;
        prop_assert_eq!(clip.tracks.len(), bones);
        // frameCount = floor(duration) + 1, computed in f64 before the duration was stored as
        // f32: allow the rounding of that store to move across an integer.
        let d = clip.duration as f64;
        let f = clip.frame_count as f64;
        prop_assert!(
            ((d - 1e-5).floor() + 1.0..=(d + 1e-5).floor() + 1.0).contains(&f),
            "{} frames for duration {}", f, d
        );
        for track in &clip.tracks {
            prop_assert_eq!(track.keyframes.len(), clip.frame_count as usize);
            for k in &track.keyframes {
                let q = Quat::from_array(k.rotation);
                prop_assert!(k.translation.iter().chain(&k.scale).all(|x| x.is_finite()));
                prop_assert!((q.length() - 1.0).abs() < 1e-4, "{:?}", q);
            }
        }
        let skeleton = Skeleton::new(&e.model.bones, &e.offsets).unwrap();
        let (bound, _) = AnimationClip::bind(&skeleton, &clip).unwrap();
        let mut pose = Pose::new(&skeleton);
        for wrap in [Wrap::Clamp, Wrap::Loop] {
            bound.evaluate(&skeleton, t, wrap, &mut pose).unwrap();
            prop_assert!(pose.skinning().iter().all(|m| m.is_finite()));
        }
        let baked = bake(&skeleton, std::slice::from_ref(&bound), &BakeOptions::default()).unwrap();
        let mut pal = vec![Mat4::ZERO; bones];
        palette(&baked, 0, t, Wrap::Loop, &mut pal).unwrap();
        let vertices = &e.model.meshes[0].vertices;
        let mut p = vec![[0f32; 3]; vertices.len()];
        skin_vertices(&pal, vertices, &mut p, &mut [], &mut []).unwrap();
        prop_assert!(p.iter().flatten().all(|x| x.is_finite()));
    }

    /// Keys at integer frames come back exactly (to f32 rounding) at those frames.
    #[test]
    fn keys_on_frames_are_reproduced(values in prop::collection::vec((-5.0f32..5.0, -3.0f32..3.0), 2..8)) {
        let mut s = Scene::with_root("root");
        s.add_child(0, Node::new("a"));
        let keys = values.len();
        s.animations.push(Animation {
            name: "k".into(),
            duration: (keys - 1) as f64,
            ticks_per_second: 30.0,
            channels: vec![NodeChannel {
                node_name: "a".into(),
                position_keys: values.iter().enumerate().map(|(i, (x, _))| VectorKey { time: i as f64, value: Vec3::new(*x, 0.0, 1.0) }).collect(),
                rotation_keys: values.iter().enumerate().map(|(i, (_, a))| QuatKey { time: i as f64, value: Quat::from_rotation_y(*a) }).collect(),
                scaling_keys: vec![VectorKey { time: 0.0, value: Vec3::ONE }],
            }],
            morph_channels: Vec::new(),
        });
        let e = extract(&s);
        let clip = extract_clip(&s, &e, 0, &ClipOptions::default()).unwrap().clip;
        prop_assert_eq!(clip.frame_count as usize, keys);
        for (i, (x, a)) in values.iter().enumerate() {
            let k = clip.tracks[1].keyframes[i];
            prop_assert!((k.translation[0] - x).abs() < 1e-5);
            let q = Quat::from_array(k.rotation);
            prop_assert!(q.dot(Quat::from_rotation_y(*a)).abs() > 1.0 - 1e-6);
        }
    }
}
