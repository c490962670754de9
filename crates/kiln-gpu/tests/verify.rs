//! The GPU skinning against kiln-anim's CPU skinning on generated models: it agrees where the
//! data is right, catches one wrong matrix, gives the same bits when the bake is split to fit
//! small limits, and refuses bad input with a clear error instead of hanging.

use glam::{Mat4, Vec3};
use kiln_anim::sample::Wrap;
use kiln_gpu::{
    Animated, BoneTexture, ComputeSkinner, FrameSelection, GpuError, GpuOptions, SkinInput,
    TextureLimits, VerifyOptions, verify,
};
use kiln_testkit::fixtures::tube::{Fixture, TubeOptions, tube};
use kiln_testkit::gpu;

fn fixture() -> Fixture {
    tube(&TubeOptions::default())
}

#[test]
fn generated_tube_verifies_on_every_frame_and_half_frame() {
    let gpu = gpu::gpu();
    let f = fixture();
    let baked = f.bake().unwrap();
    let report = verify(
        &gpu,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap();
    println!("{}\n{}", report.adapter, report.table());
    // 2 clips × (12 frames + 11 half frames + 1 looped): 48 samples.
    assert_eq!(report.samples.len(), 48);
    assert_eq!(report.vertices, f.vertex_count());
    assert!(report.layout.is_reference());
    assert!(report.passed(), "{}", report.table());
    // Float rounding only: far below the tolerance, not exactly zero everywhere.
    assert!(
        report.worst_position() < 1e-5,
        "{}",
        report.worst_position()
    );
    // The tube and its cap are 5 high and sweep sideways as they bend (about 8 across).
    assert!(
        report.extent > 5.0 && report.extent < 10.0,
        "{}",
        report.extent
    );
    let looped = report
        .samples
        .iter()
        .find(|s| s.wrap == Wrap::Loop)
        .unwrap();
    assert_eq!((looped.sample.current, looped.sample.next), (11, 0));
}

#[test]
fn gpu_results_are_the_skinned_vertices_written_out_by_hand() {
    let gpu = gpu::gpu();
    let f = fixture();
    let baked = f.bake().unwrap();
    let bones = BoneTexture::upload(&gpu, &baked.bake).unwrap();
    let vertices: Vec<_> = f
        .model
        .meshes
        .iter()
        .flat_map(|p| p.vertices.clone())
        .collect();
    let input = SkinInput::upload(&gpu, &vertices).unwrap();
    let skinner = ComputeSkinner::new(&gpu).unwrap();
    let sample = bones.sample(0, 4.25, Wrap::Clamp).unwrap();
    assert_eq!((sample.current, sample.next, sample.t), (4, 5, 0.25));
    let out = skinner.skin(&gpu, &bones, &input, &[sample]).unwrap();
    // Vertex 100 of the tube, by the HLSL's formula from the bake's matrices.
    let v = vertices[100];
    let mut m = Mat4::ZERO;
    for k in 0..4 {
        let b = v.blend_indices[k] as usize;
        let cur = baked.bake.matrix(0, 4, b).unwrap();
        let next = baked.bake.matrix(0, 5, b).unwrap();
        m += (cur + (next - cur) * 0.25) * v.blend_weights[k];
    }
    let p = m.transform_point3(Vec3::from(v.position));
    let n = m.transform_vector3(Vec3::from(v.normal));
    let t = m.transform_vector3(Vec3::from(v.tangent));
    assert!(Vec3::from(out[0].positions[100]).abs_diff_eq(p, 1e-5));
    assert!(Vec3::from(out[0].normals[100]).abs_diff_eq(n, 1e-5));
    assert!(Vec3::from(out[0].tangents[100]).abs_diff_eq(t, 1e-5));
    // The vertex moved: the check is not of an identity.
    assert!(p.distance(Vec3::from(v.position)) > 0.05);
}

#[test]
fn one_corrupted_baked_matrix_is_caught_at_its_frame_only() {
    let gpu = gpu::gpu();
    let f = fixture();
    let mut baked = f.bake().unwrap();
    // Bone 2 (the second joint, which the tube's middle rings use) at frame 7 of clip 1: move
    // its translation row by 0.05 (about 1% of the model).
    let (clip, frame, bone) = (1usize, 7usize, 2usize);
    let b = &mut baked.bake;
    let texel = (clip * b.height as usize + frame) * b.width as usize + 4 * bone + 3;
    b.texels[texel][0] += 0.05;
    let report = verify(
        &gpu,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap();
    println!("{}", report.table());
    assert!(!report.passed());
    let failed: Vec<(usize, f32)> = report.failures().map(|s| (s.clip, s.time)).collect();
    // The frame itself and the half frames on either side, which lerp with it.
    assert_eq!(failed, [(1, 6.5), (1, 7.0), (1, 7.5)]);
    let at = report
        .samples
        .iter()
        .find(|s| (s.clip, s.time) == (1, 7.0))
        .unwrap();
    // Largest weight of bone 2 on a vertex is about 0.6: the error is 0.05 × that, in x.
    assert!(
        at.position.max_abs > 0.02 && at.position.max_abs <= 0.05,
        "{:?}",
        at.position
    );
    // Normals go through the upper 3×3 only, which was not touched.
    assert!(at.normal.max_abs < 1e-5);
}

#[test]
fn split_bakes_give_the_same_bits_as_the_reference_layout() {
    let f = tube(&TubeOptions {
        clips: 3,
        ..TubeOptions::default()
    });
    let baked = f.bake().unwrap();
    let vertices: Vec<_> = f
        .model
        .meshes
        .iter()
        .flat_map(|p| p.vertices.clone())
        .collect();
    let run = |limits: Option<TextureLimits>| {
        let gpu = gpu::gpu_with(&GpuOptions {
            texture_limits: limits,
            ..GpuOptions::default()
        });
        let bones = BoneTexture::upload(&gpu, &baked.bake).unwrap();
        let input = SkinInput::upload(&gpu, &vertices).unwrap();
        let skinner = ComputeSkinner::new(&gpu).unwrap();
        let samples: Vec<_> = [(0, 0.0), (1, 5.5), (2, 11.0), (2, 3.75)]
            .iter()
            .map(|&(c, t)| bones.sample(c, t, Wrap::Clamp).unwrap())
            .collect();
        let out = skinner.skin(&gpu, &bones, &input, &samples).unwrap();
        let report = verify(
            &gpu,
            &Animated::new(&f.model, &baked),
            &VerifyOptions {
                frames: FrameSelection::Times(vec![0.0, 2.5, 11.0]),
                ..VerifyOptions::default()
            },
        )
        .unwrap();
        assert!(report.passed(), "{}", report.table());
        (*bones.layout(), out)
    };
    let (plain, reference) = run(None);
    assert!(plain.is_reference());
    // 5 bones and 12 frames in 16×16 textures of 4 layers: 4 bones per row (2 rows a frame),
    // 8 frames a layer (2 layers a clip), 2 clips a texture (2 textures).
    let (split, out) = run(Some(TextureLimits {
        max_dimension: 16,
        max_layers: 4,
    }));
    assert_eq!(
        (
            split.bones_per_row,
            split.rows_per_frame,
            split.frames_per_layer,
            split.layers_per_clip,
            split.clips_per_page,
            split.pages
        ),
        (3, 2, 8, 2, 2, 2)
    );
    assert_eq!(out, reference);
}

#[test]
fn bad_input_gives_clear_errors() {
    let gpu = gpu::gpu();
    let f = fixture();
    let baked = f.bake().unwrap();
    // A bake of another skeleton.
    let other = tube(&TubeOptions {
        chain: 6,
        ..TubeOptions::default()
    })
    .bake()
    .unwrap();
    let mut wrong = Animated::new(&f.model, &baked);
    wrong.bake = &other.bake;
    assert_eq!(
        verify(&gpu, &wrong, &VerifyOptions::default()).unwrap_err(),
        GpuError::BoneCountMismatch {
            bake_bones: 7,
            model_bones: 5
        }
    );
    // A clip whose tracks belong to another skeleton.
    let mut stranger = f.clips[0].clone();
    stranger.tracks[2].bone_name = "Hips".into();
    let e = kiln_anim::bake_model(
        &f.model,
        &f.offsets,
        &[stranger],
        &kiln_anim::ModelBakeOptions::inspection(),
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "clip 'bend' does not match the model's bones: 1 of its 5 tracks name no bone of the model (Hips)"
    );
    // A blend index past the skeleton.
    let mut model = f.model.clone();
    model.meshes[0].vertices[3].blend_indices[0] = 9.0;
    let e = verify(
        &gpu,
        &Animated::new(&model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, GpuError::BadVertex(_)), "{e}");
    // A frame past the clip.
    let e = verify(
        &gpu,
        &Animated::new(&f.model, &baked),
        &VerifyOptions {
            frames: FrameSelection::Times(vec![12.0]),
            ..VerifyOptions::default()
        },
    )
    .unwrap_err();
    assert_eq!(
        e.to_string(),
        "clip 0 ('bend', 12 frames): frame 12 is not within 0..=11"
    );
    // More bones than tiny limits allow even when split: 5 bones need 5 rows of one bone a
    // frame, and a texture of 4 rows cannot hold one frame.
    let small = gpu::gpu_with(&GpuOptions {
        texture_limits: Some(TextureLimits {
            max_dimension: 4,
            max_layers: 1,
        }),
        ..GpuOptions::default()
    });
    let e = verify(
        &small,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap_err();
    assert!(matches!(e, GpuError::TextureLimits { .. }), "{e}");
    assert!(
        e.to_string()
            .starts_with("5 bones (5 rows of 1 bones per frame)"),
        "{e}"
    );
    // A bake over the memory budget.
    let tight = gpu::gpu_with(&GpuOptions {
        max_texture_bytes: 1000,
        ..GpuOptions::default()
    });
    let e = verify(
        &tight,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap_err();
    assert_eq!(
        e,
        GpuError::TextureBudget {
            bytes: 20 * 12 * 2 * 16,
            budget: 1000
        }
    );
}

#[test]
fn a_lost_device_is_an_error_not_a_hang() {
    let gpu = gpu::gpu();
    let f = fixture();
    let baked = f.bake().unwrap();
    gpu.device().destroy();
    let started = std::time::Instant::now();
    let e = verify(
        &gpu,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap_err();
    assert!(
        matches!(e, GpuError::DeviceLost { .. } | GpuError::Rejected { .. }),
        "{e:?}"
    );
    assert!(started.elapsed().as_secs() < 30);
}

#[test]
fn a_model_without_clips_verifies_its_bind_pose() {
    let gpu = gpu::gpu();
    let mut f = fixture();
    f.clips.clear();
    let baked = f.bake().unwrap();
    assert_eq!(baked.bake.clip_names, [kiln_anim::BIND_POSE_CLIP]);
    let report = verify(
        &gpu,
        &Animated::new(&f.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap();
    assert_eq!(report.samples.len(), 1);
    assert!(report.passed(), "{}", report.table());
}

/// The GPU's in-between weights (`shape_weight` in `skin.wgsl`) against kiln-anim's
/// `shape_weights` over every case its rules have: a chain with negative and positive full
/// weights driven from -1.5 to 1.5 (extrapolated past both ends, through 0 and between every
/// pair of keys), a plain target, and a dense target whose weight stays at rest, on the tube
/// whose clips bend it; the deltas of every shape differ so a wrong shape or weight shows.
#[test]
fn morph_in_betweens_and_negative_weights_match_the_cpu() {
    use kiln_format::{MorphShape, MorphTarget, WeightTrack};
    let gpu = gpu::gpu();
    let mut f = fixture();
    let n = f.model.meshes[0].vertices.len();
    let sparse: Vec<u32> = (0..n as u32).step_by(3).collect();
    let shape = |k: usize, full_weight: f32, dense: bool| {
        let vertices = if dense { Vec::new() } else { sparse.clone() };
        let count = if dense { n } else { sparse.len() };
        let d = 0.05 * (k + 1) as f32;
        MorphShape {
            name: format!("s{k}"),
            full_weight,
            vertices,
            positions: (0..count)
                .map(|i| [d, -d * (i % 5) as f32 * 0.2, d * 0.5])
                .collect(),
            normals: (0..count).map(|_| [0.0, d, -d]).collect(),
        }
    };
    f.model.meshes[0].morph_targets = vec![
        MorphTarget {
            name: "chain".into(),
            default_weight: 0.0,
            shapes: vec![
                shape(0, -1.0, false),
                shape(1, -0.25, false),
                shape(2, 0.5, false),
                shape(3, 1.0, false),
            ],
        },
        MorphTarget {
            name: "plain".into(),
            default_weight: 0.0,
            shapes: vec![shape(4, 1.0, false)],
        },
        MorphTarget {
            name: "dense".into(),
            default_weight: 0.3,
            shapes: vec![shape(5, 1.0, true)],
        },
    ];
    for clip in &mut f.clips {
        let frames = clip.frame_count as usize;
        let ramp = |a: f32, b: f32| -> Vec<f32> {
            (0..frames)
                .map(|i| a + (b - a) * i as f32 / (frames - 1) as f32)
                .collect()
        };
        clip.weight_tracks = vec![
            WeightTrack {
                part: 0,
                target: 0,
                weights: ramp(-1.5, 1.5),
            },
            WeightTrack {
                part: 0,
                target: 1,
                weights: ramp(1.0, -0.5),
            },
        ];
    }
    let baked = f.bake().unwrap();
    assert!(baked.weights.is_some());
    let input = Animated::new(&f.model, &baked).with_clip_data(&f.clips);
    let report = verify(&gpu, &input, &VerifyOptions::default()).unwrap();
    assert!(report.passed(), "{}", report.table());
    // The GPU morphs with what it reads from the weight texture: with every weight 0 there
    // (the base shapes), every sample fails but where the clip's own weights give nothing.
    let mut zero = baked.weights.clone().unwrap();
    zero.texels.iter_mut().for_each(|w| *w = 0.0);
    let wrong = verify(
        &gpu,
        &Animated {
            weights: Some(&zero),
            ..input
        },
        &VerifyOptions::default(),
    )
    .unwrap();
    let failed = wrong.failures().count();
    assert!(
        failed * 10 >= wrong.samples.len() * 9,
        "{failed} of {}",
        wrong.samples.len()
    );
}
