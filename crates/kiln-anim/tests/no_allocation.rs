//! The per-frame path allocates nothing: sampling, local → model, skinning matrices, the
//! palette lerp, CPU skinning, and morph targets applied then skinned run under a counting
//! global allocator that must count zero.
//! One test function, so no other test allocates at the same time.

use glam::{Mat4, Quat, Vec3};
use kiln_anim::bake::{BakeOptions, bake};
use kiln_anim::morph::{MorphShape, MorphTarget, apply_morphs, morph_and_skin};
use kiln_anim::sample::{AnimationClip, Wrap};
use kiln_anim::skeleton::{Pose, Skeleton};
use kiln_anim::skin::{palette, skin_vertices};
use kiln_format::{Bone, Clip, Keyframe, Track, Vertex};

#[global_allocator]
static GLOBAL: kiln_testkit::alloc::Counting = kiln_testkit::alloc::Counting;

#[test]
fn the_per_frame_path_does_not_allocate() {
    let n = 12;
    let bones: Vec<Bone> = (0..n)
        .map(|i| Bone {
            index: i as i32,
            parent: i as i32 - 1,
            name: format!("b{i}"),
            transform: Mat4::from_translation(Vec3::new(0.0, i as f32, 0.0)).to_cols_array(),
        })
        .collect();
    let offsets: Vec<_> = bones
        .iter()
        .map(|b| {
            Some(
                Mat4::from_cols_array(&b.transform)
                    .inverse()
                    .to_cols_array(),
            )
        })
        .collect();
    let skeleton = Skeleton::new(&bones, &offsets).unwrap();
    let clip = Clip {
        name: "c".into(),
        duration: 9.0,
        frame_rate: 30.0,
        frame_count: 10,
        tracks: bones
            .iter()
            .map(|b| Track {
                bone_name: b.name.clone(),
                keyframes: (0..10)
                    .map(|f| Keyframe {
                        time: f as f32,
                        scale: [1.0; 3],
                        rotation: Quat::from_rotation_z(0.1 * f as f32).to_array(),
                        translation: [0.0, 1.0, 0.0],
                    })
                    .collect(),
            })
            .collect(),
        weight_tracks: Vec::new(),
    };
    let (bound, _) = AnimationClip::bind(&skeleton, &clip).unwrap();
    let baked = bake(
        &skeleton,
        std::slice::from_ref(&bound),
        &BakeOptions::default(),
    )
    .unwrap();
    let vertices: Vec<Vertex> = (0..100)
        .map(|i| Vertex {
            position: [i as f32, 1.0, 0.0],
            normal: [0.0, 1.0, 0.0],
            tangent: [1.0, 0.0, 0.0],
            blend_indices: [(i % n) as f32, ((i + 1) % n) as f32, 0.0, 0.0],
            blend_weights: [0.75, 0.25, 0.0, 0.0],
            ..Vertex::default()
        })
        .collect();
    let mut pose = Pose::new(&skeleton);
    let mut pal = vec![Mat4::ZERO; n];
    let (mut p, mut nr, mut t) = (
        vec![[0f32; 3]; 100],
        vec![[0f32; 3]; 100],
        vec![[0f32; 3]; 100],
    );

    // Two targets: a sparse in-between chain and a dense shape.
    let base_p: Vec<[f32; 3]> = vertices.iter().map(|v| v.position).collect();
    let base_n: Vec<[f32; 3]> = vertices.iter().map(|v| v.normal).collect();
    let sparse_v: Vec<u32> = (0..100).step_by(3).collect();
    let sparse_d = vec![[0.0, 0.5, 0.0]; sparse_v.len()];
    let dense_d = vec![[0.1, 0.0, 0.0]; 100];
    let chain = [
        MorphShape {
            full_weight: 0.5,
            vertices: &sparse_v,
            positions: &sparse_d,
            normals: &[],
        },
        MorphShape {
            full_weight: 1.0,
            vertices: &sparse_v,
            positions: &sparse_d,
            normals: &[],
        },
    ];
    let dense = [MorphShape {
        full_weight: 1.0,
        vertices: &[],
        positions: &dense_d,
        normals: &[],
    }];
    let targets = [
        MorphTarget { shapes: &chain },
        MorphTarget { shapes: &dense },
    ];
    let mut morphed = vertices.clone();
    let (mut mp, mut mn) = (vec![[0f32; 3]; 100], vec![[0f32; 3]; 100]);

    let ((), allocated) = kiln_testkit::alloc::measure(|| {
        for step in 0..50 {
            let time = step as f32 * 0.37 - 2.0;
            for wrap in [Wrap::Clamp, Wrap::Loop] {
                bound.sample(time, wrap, &mut pose).unwrap();
                skeleton.update_model(&mut pose).unwrap();
                skeleton.update_skinning(&mut pose).unwrap();
                bound.evaluate(&skeleton, time, wrap, &mut pose).unwrap();
                palette(&baked, 0, time, wrap, &mut pal).unwrap();
                skin_vertices(&pal, &vertices, &mut p, &mut nr, &mut t).unwrap();
                let weights = [time.rem_euclid(1.5), 0.3];
                apply_morphs(&base_p, &base_n, &targets, &weights, &mut mp, &mut mn).unwrap();
                morph_and_skin(
                    &pal,
                    &vertices,
                    &targets,
                    &weights,
                    &mut morphed,
                    &mut p,
                    &mut nr,
                    &mut t,
                )
                .unwrap();
            }
        }
    });
    assert_eq!(allocated.calls, 0, "allocations in the per-frame path");
    // The work was done: the last vertex moved with its bones.
    assert!(p.iter().flatten().all(|x| x.is_finite()));
    assert_ne!(p[99], [99.0, 1.0, 0.0]);
    // And the morphs: the dense shape at 0.3 moved every vertex by 0.03 in x.
    assert!((mp[1][0] - (1.0 + 0.03)).abs() < 1e-6, "{:?}", mp[1]);
}
