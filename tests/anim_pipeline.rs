//! The conversion's `.clip` outputs and the bake's model loading, on a scene built in code:
//! file names, one clip per animation, resampling, a bad animation left out with a warning, and
//! a `.mesh` + `.clip` set read back (both layouts) with its offsets.

use std::path::Path;

use kiln::anim::{Baked, bake_model};
use kiln::extract::BoneSource;
use kiln::pipeline::write_atomically;
use kiln::{EncodeOptions, Encoded, Layout, LoadOptions, Loaded, encode, load};
use kiln_scene::{
    Animation, Bone, Mat4, Material, Mesh, Node, NodeChannel, Quat, QuatKey, Scene, Vec3,
    VectorKey, VertexWeight,
};

/// Armature → a → b, a skinned quad on `body` (moved away from the origin), a rigid triangle
/// hanging from `b`, and three animations (one named like Blender's, one unnamed, one whose
/// name clashes with the first once sanitised).
fn scene() -> Scene {
    let mut s = Scene::with_root("RootNode");
    let arm = s.add_child(0, Node::new("Armature"));
    let a = s.add_child(arm, Node::new("a"));
    s.nodes[a].transform = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let b = s.add_child(a, Node::new("b"));
    s.nodes[b].transform = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let body = s.add_child(0, Node::new("body"));
    s.nodes[body].transform = Mat4::from_translation(Vec3::new(3.0, 0.0, 0.0));
    s.materials.push(Material {
        name: "skin".into(),
        ..Material::default()
    });
    let offset = |node: usize| s.global_transform(node).inverse() * s.global_transform(body);
    let w = |vertex, weight| VertexWeight { vertex, weight };
    let mut quad = Mesh {
        positions: vec![
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(1.0, 2.0, 0.0),
            Vec3::new(0.0, 2.0, 0.0),
        ],
        bones: vec![
            Bone {
                name: "a".into(),
                offset_matrix: offset(a),
                weights: vec![w(0, 1.0), w(1, 0.5), w(2, 0.25)],
            },
            Bone {
                name: "b".into(),
                offset_matrix: offset(b),
                weights: vec![w(1, 0.5), w(2, 0.75), w(3, 1.0)],
            },
        ],
        ..Mesh::default()
    };
    quad.push_face(&[0, 1, 2]);
    quad.push_face(&[0, 2, 3]);
    let mut prop = Mesh {
        positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
        ..Mesh::default()
    };
    prop.push_face(&[0, 1, 2]);
    s.meshes = vec![quad, prop];
    s.nodes[body].meshes = vec![0];
    s.nodes[b].meshes = vec![1];
    let walk = |name: &str| Animation {
        name: name.into(),
        duration: 10.0,
        ticks_per_second: 24.0,
        channels: vec![NodeChannel {
            node_name: "b".into(),
            position_keys: vec![VectorKey {
                time: 0.0,
                value: Vec3::new(0.0, 1.0, 0.0),
            }],
            rotation_keys: vec![
                QuatKey {
                    time: 0.0,
                    value: Quat::IDENTITY,
                },
                QuatKey {
                    time: 7.5,
                    value: Quat::from_rotation_z(1.0),
                },
            ],
            scaling_keys: vec![VectorKey {
                time: 0.0,
                value: Vec3::ONE,
            }],
        }],
        morph_channels: Vec::new(),
    };
    s.animations = vec![walk("Armature|Walk"), walk(""), walk("armature_walk")];
    s
}

/// kiln's conversion of `scene` in memory, as a model named `hero`: loaded (clips resampled at
/// `rate`, or their own rate) and encoded in `layout`.
fn convert(scene: &Scene, rate: Option<f64>, layout: Layout) -> (Loaded, Encoded) {
    let options = LoadOptions {
        clip_frame_rate: rate,
        ..LoadOptions::default()
    };
    let loaded = load::from_scene(scene.clone(), Path::new("hero"), &options);
    let encoded = encode(
        &loaded,
        &EncodeOptions {
            layout,
            ..EncodeOptions::default()
        },
    )
    .unwrap();
    (loaded, encoded)
}

#[test]
fn one_clip_file_per_animation_with_safe_unique_names() {
    let (_, encoded) = convert(&scene(), None, Layout::Classic);
    let names: Vec<&str> = encoded.files.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "hero.mesh",
            "hero.xml",
            "hero_Armature_Walk.clip",
            "hero_1.clip",
            "hero_armature_walk_2.clip"
        ]
    );
    let clip = kiln::format::classic::read_clip(&encoded.files[2].bytes).unwrap();
    assert_eq!(clip.name, "Armature|Walk");
    assert_eq!(
        (clip.frame_count, clip.frame_rate, clip.duration),
        (11, 24.0, 10.0)
    );
    // Every node's bone, the original tool's list: not b's rigid helper (the prop on b, whose
    // bone the skin moved), which only the kiln layout keeps.
    let bones: Vec<&str> = clip.tracks.iter().map(|t| t.bone_name.as_str()).collect();
    assert_eq!(bones, ["RootNode", "Armature", "a", "b", "body"]);
    let (_, kiln) = convert(&scene(), None, Layout::Kiln);
    let view = kiln::format::kiln::ClipView::parse(&kiln.files[2].bytes).unwrap();
    assert_eq!(view.track_count(), 6, "the kiln layout keeps b$kiln_rigid");
    assert!(
        encoded
            .warnings
            .iter()
            .any(|w| w.code == kiln::codes::CLASSIC_HELPER_BONES && w.message.contains("1 helper")),
        "{:?}",
        encoded.warnings
    );
    assert_eq!(
        kiln::extract::extract(&scene()).bone_sources[5],
        BoneSource::RigidHelper(3)
    );
    // b at frame 3: 3/7.5 of the way to 1 rad about z.
    let r = Quat::from_array(clip.tracks[3].keyframes[3].rotation);
    assert!(r.abs_diff_eq(Quat::from_rotation_z(0.4), 1e-6), "{r:?}");
    // The helper's track (kiln layout) is the identity.
    let kiln_clip = view.to_clip();
    let h = kiln_clip.tracks[5].keyframes[7];
    assert_eq!(
        (h.translation, h.rotation, h.scale),
        ([0.0; 3], [0.0, 0.0, 0.0, 1.0], [1.0; 3])
    );
}

#[test]
fn clips_resample_and_a_bad_animation_is_left_out_with_a_warning() {
    let mut s = scene();
    s.animations[1].channels[0].rotation_keys[1].value.x = f32::NAN;
    let (loaded, encoded) = convert(&s, Some(12.0), Layout::Classic);
    assert_eq!(loaded.clips.len(), 2);
    assert!(
        loaded
            .warnings
            .iter()
            .any(|w| w.code == kiln::codes::CLIP_LEFT_OUT
                && w.message.contains("animation 1 ('')")
                && w.message.contains("not finite")),
        "{:?}",
        loaded.warnings
    );
    // 10 ticks at 24 per second, at 12 frames per second: 5 frames of duration, 6 frames.
    assert_eq!(
        (
            loaded.clips[0].frame_count,
            loaded.clips[0].frame_rate,
            loaded.clips[0].duration
        ),
        (6, 12.0, 5.0)
    );
    // Names follow the animation's index, whatever failed before it.
    let names: Vec<&str> = encoded.files.iter().map(|o| o.name.as_str()).collect();
    assert_eq!(
        names[2..],
        ["hero_Armature_Walk.clip", "hero_armature_walk_2.clip"]
    );
}

#[test]
fn a_converted_mesh_and_its_clips_load_back_for_baking_in_both_layouts() {
    for layout in [Layout::Classic, Layout::Kiln] {
        let dir = tempfile::tempdir().unwrap();
        let (converted, encoded) = convert(&scene(), None, layout);
        for o in &encoded.files {
            write_atomically(&dir.path().join(&o.name), &o.bytes).unwrap();
        }
        // Written by `encode` (no manifest): the clips are named by the caller.
        let clip_files: Vec<_> = converted
            .clip_files
            .iter()
            .map(|f| dir.path().join(f))
            .collect();
        let loaded = kiln::load::load_with_clip_files(
            &dir.path().join("hero.mesh"),
            &LoadOptions::default(),
            &clip_files,
        )
        .unwrap();
        assert_eq!(loaded.clips.len(), 3, "{layout:?}");
        // The classic file has the original tool's bone list, without b's rigid helper.
        let bones = if layout == Layout::Classic { 5 } else { 6 };
        assert_eq!(loaded.model.bones.len(), bones);
        let Baked {
            bake: baked,
            warnings,
            ..
        } = bake_model(
            &loaded.model,
            &loaded.offsets,
            &loaded.clips,
            &Default::default(),
        )
        .unwrap();
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(
            (baked.width, baked.height, baked.layers),
            (4 * bones as u32, 11, 3)
        );
        // The offsets: stored in the kiln layout; assumed from the node for classic files,
        // which is exact here (the skin was bound in the nodes' pose).
        for (b, o) in converted.offsets.iter().enumerate().take(bones) {
            if layout == Layout::Classic && b == 3 {
                // b carries the skin's offset and the rigid prop: without its helper bone the
                // classic file cannot say both, and a reader assumes the prop's (the first
                // part on b), with a warning. The kiln layout is exact.
                assert_eq!(loaded.offsets[b], None);
                assert!(
                    loaded
                        .warnings
                        .iter()
                        .any(|w| w.code == kiln::anim::codes::CLASSIC_OFFSET_CONFLICT
                            && w.message.contains("'b'")),
                    "{:?}",
                    loaded.warnings
                );
                continue;
            }
            match (o, loaded.offsets[b]) {
                (Some(want), Some(got)) => {
                    let (want, got) = (Mat4::from_cols_array(want), Mat4::from_cols_array(&got));
                    assert!(want.abs_diff_eq(got, 1e-5), "{layout:?} bone {b}");
                }
                (None, None) => {}
                (want, got) => panic!("{layout:?} bone {b}: {want:?} vs {got:?}"),
            }
        }
        if layout == Layout::Classic {
            assert!(
                loaded
                    .warnings
                    .iter()
                    .any(|w| w.code == kiln::codes::CLASSIC_OFFSETS_ASSUMED
                        && w.message.contains("classic .mesh"))
            );
        }
    }
}
