//! The 1.1 sections of the kiln layout: morph targets in a `.mesh`, weight tracks in a
//! `.clip`. A file without them stays 1.0 byte for byte; with them it is 1.1, reads back
//! exactly, and every broken rule of the sections is refused at the field at fault.

use kiln_format::kiln::spec::{MorphShapeRecord, MorphTargetRecord, kind};
use kiln_format::kiln::{
    AlignedBytes, ClipView, LayoutError, MeshOptions, MeshView, write_clip, write_mesh,
};
use kiln_format::{
    Bone, Clip, IDENTITY, MeshPart, Model, MorphShape, MorphTarget, Vertex, WeightTrack,
};

fn model(targets: bool) -> Model {
    let part = |name: &str, n: u32| MeshPart {
        name: name.into(),
        vertices: (0..n)
            .map(|i| Vertex {
                position: [i as f32, 0.0, 0.0],
                blend_weights: [1.0, 0.0, 0.0, 0.0],
                ..Vertex::default()
            })
            .collect(),
        indices: vec![0, 1, 2],
        bone_index: 0,
        material_name: String::new(),
        morph_targets: Vec::new(),
    };
    let mut m = Model {
        bones: vec![Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        }],
        meshes: vec![part("a", 4), part("b", 6)],
    };
    if targets {
        m.meshes[1].morph_targets = vec![
            MorphTarget {
                name: "smile".into(),
                default_weight: 0.0,
                shapes: vec![
                    MorphShape {
                        name: "smile_half".into(),
                        full_weight: 0.5,
                        vertices: vec![1, 4],
                        positions: vec![[0.0, 0.1, 0.0], [0.0, 0.2, 0.0]],
                        normals: vec![[0.0, 0.0, 0.5], [0.0, 0.0, 0.25]],
                    },
                    MorphShape {
                        name: "smile".into(),
                        full_weight: 1.0,
                        vertices: vec![0, 1, 5],
                        positions: vec![[1.0, 0.0, 0.0]; 3],
                        normals: Vec::new(),
                    },
                ],
            },
            MorphTarget {
                name: "blink".into(),
                default_weight: 0.75,
                shapes: vec![MorphShape {
                    name: "blink".into(),
                    full_weight: 1.0,
                    vertices: vec![],
                    positions: vec![],
                    normals: vec![],
                }],
            },
        ];
    }
    m
}

fn parse(bytes: &[u8]) -> Result<Model, LayoutError> {
    let b = AlignedBytes::from_bytes(bytes);
    MeshView::parse(&b).map(|v| v.to_model())
}

#[test]
fn morph_targets_round_trip_in_a_1_1_file_and_a_file_without_stays_1_0() {
    let plain = write_mesh(&model(false), &[], &MeshOptions::default()).unwrap();
    assert_eq!(&plain[16..20], &[1, 0, 0, 0], "major 1, minor 0");
    let with = write_mesh(&model(true), &[], &MeshOptions::default()).unwrap();
    assert_eq!(&with[16..20], &[1, 0, 1, 0], "major 1, minor 1");
    assert_eq!(parse(&with).unwrap(), model(true));
    let b = AlignedBytes::from_bytes(&with);
    let v = MeshView::parse(&b).unwrap();
    v.verify_checksum().unwrap();
    assert!(v.part_morph_targets(0).is_empty());
    let t = v.part_morph_targets(1);
    assert_eq!(t.len(), 2);
    assert_eq!(v.string(t[0].name), "smile");
    let (verts, pos, normals) = v.shape_offsets(&v.morph_shape_records()[0]);
    assert_eq!(verts, &[1, 4]);
    assert_eq!(pos[1], [0.0, 0.2, 0.0]);
    assert_eq!(normals[0], [0.0, 0.0, 0.5]);
    // The shape without normals stores zeros and says so in its flags.
    let (_, _, normals) = v.shape_offsets(&v.morph_shape_records()[1]);
    assert_eq!(normals, &[[0.0; 3]; 3]);
    assert_eq!(v.morph_shape_records()[1].flags, 0);
}

/// Overwrites the `u32` (or `f32` bits) at `field` of record `index` of section `k`.
fn patch(bytes: &[u8], k: u32, index: usize, size: usize, field: usize, value: u32) -> Vec<u8> {
    let b = AlignedBytes::from_bytes(bytes);
    let v = MeshView::parse(&b).unwrap();
    let s = v.sections().find(|s| s.kind == k).unwrap();
    let at = s.offset as usize + index * size + field;
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

#[test]
fn broken_morph_sections_are_refused_at_the_field() {
    let good = write_mesh(&model(true), &[], &MeshOptions::default()).unwrap();
    let t = std::mem::size_of::<MorphTargetRecord>();
    let s = std::mem::size_of::<MorphShapeRecord>();
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            patch(&good, kind::MORPH_TARGETS, 0, t, 8, 7),
            "target's part out of range",
        ),
        (
            patch(&good, kind::MORPH_TARGETS, 1, t, 8, 0),
            "targets not in part order",
        ),
        (
            patch(&good, kind::MORPH_TARGETS, 0, t, 20, 0),
            "target's shapes do not follow the previous target's",
        ),
        (
            patch(&good, kind::MORPH_SHAPES, 1, s, 8, 0.25f32.to_bits()),
            "full weight not finite, non-zero and ascending",
        ),
        (
            patch(&good, kind::MORPH_SHAPES, 0, s, 8, f32::NAN.to_bits()),
            "full weight not finite, non-zero and ascending",
        ),
        (
            patch(&good, kind::MORPH_SHAPES, 1, s, 16, 4),
            "shape's offsets do not follow the previous shape's",
        ),
        (
            patch(&good, kind::MORPH_VERTICES, 1, 4, 0, 6),
            "shape's vertices not ascending or past its part",
        ),
        (
            patch(&good, kind::MORPH_VERTICES, 1, 4, 0, 0),
            "shape's vertices not ascending or past its part",
        ),
    ];
    for (bytes, what) in cases {
        match parse(&bytes) {
            Err(LayoutError::BadMorph { what: w, offset }) => {
                assert_eq!(w, what);
                assert!(offset > 32 && offset < bytes.len());
            }
            other => panic!("{what}: {other:?}"),
        }
    }
    // All five sections or none: a file with one of them renamed to an unknown kind lacks it.
    let b = AlignedBytes::from_bytes(&good);
    let v = MeshView::parse(&b).unwrap();
    let entry = v
        .sections()
        .position(|s| s.kind == kind::MORPH_NORMALS_F32)
        .unwrap();
    let mut cut = good.clone();
    cut[32 + 32 * entry..32 + 32 * entry + 4].copy_from_slice(&0x7777u32.to_le_bytes());
    assert!(matches!(
        parse(&cut),
        Err(LayoutError::MissingSection { .. })
    ));
}

#[test]
fn weight_tracks_round_trip_and_need_one_weight_per_frame() {
    let clip = Clip {
        name: "talk".into(),
        duration: 2.0,
        frame_rate: 30.0,
        frame_count: 3,
        tracks: Vec::new(),
        weight_tracks: vec![
            WeightTrack {
                part: 1,
                target: 0,
                weights: vec![0.0, 0.5, 1.0],
            },
            WeightTrack {
                part: 1,
                target: 1,
                weights: vec![1.0, 0.25, 0.0],
            },
        ],
    };
    let bytes = write_clip(&clip).unwrap();
    assert_eq!(&bytes[16..20], &[1, 0, 1, 0]);
    let b = AlignedBytes::from_bytes(&bytes);
    let v = ClipView::parse(&b).unwrap();
    assert_eq!(v.to_clip(), clip);
    // Frame-major: frame 1's two weights are adjacent.
    assert_eq!(&v.weights()[2..4], &[0.5, 0.25]);
    assert_eq!(v.weight(2, 1), Some(0.0));
    assert_eq!(v.weight(3, 0), None);
    let mut short = clip.clone();
    short.weight_tracks[1].weights.pop();
    assert!(write_clip(&short).is_err());
    // Without weight tracks a clip stays 1.0.
    let mut plain = clip;
    plain.weight_tracks.clear();
    assert_eq!(&write_clip(&plain).unwrap()[16..20], &[1, 0, 0, 0]);
}
