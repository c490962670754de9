//! The 1.1 sections of the kiln layout: morph targets in a `.mesh`, weight tracks in a
//! `.clip`. A file without them stays 1.0 byte for byte; with them it is 1.1, reads back
//! exactly (or, quantised, within the snorm16 bound), and every broken rule of the sections is
//! refused at the field at fault.

use kiln_format::kiln::quantize::snorm16_max_error;
use kiln_format::kiln::spec::{
    MorphShapeRecord, MorphTargetRecord, SHAPE_NORMAL_SCALE_FIELD, SHAPE_POSITION_SCALE_FIELD, kind,
};
use kiln_format::kiln::{
    AlignedBytes, ClipView, LayoutError, MeshOptions, MeshView, MorphOffsets, Quantize, checksum,
    write_clip, write_mesh,
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

fn options(quantize: Quantize) -> MeshOptions<'static> {
    MeshOptions {
        quantize,
        ..Default::default()
    }
}

/// The files the writer gave before morph offsets could be quantised: every file without morph
/// targets (1.0, each quantisation) and the `f32` morph file (1.1), by size and checksum.
#[test]
fn files_without_quantised_morphs_are_byte_for_byte_as_before() {
    let cases = [
        (false, Quantize::None, 1382, 0x91b8bd8a63909da1u64),
        (false, Quantize::Attributes, 1158, 0x6ce8472828e1e7f9),
        (
            false,
            Quantize::AttributesAndPositions,
            1110,
            0x1a4763b9789ca97f,
        ),
        (true, Quantize::None, 1882, 0xb65632e1db8af559),
    ];
    for (targets, q, len, sum) in cases {
        let b = write_mesh(&model(targets), &[], &options(q)).unwrap();
        assert_eq!((b.len(), checksum(&b)), (len, sum), "{targets} {q:?}");
        kiln_format::kiln::verify_checksum(&b).unwrap();
        // The morph sections check their vertices against the parts' counts, which the
        // encoder that frees the vertices keeps: the same bytes.
        let mut taken = model(targets);
        let file =
            kiln_format::kiln::encode_mesh_taking_vertices(&mut taken, &[], &options(q)).unwrap();
        assert_eq!(file.into_bytes(), b, "{targets} {q:?}");
    }
}

/// The kinds of a file's sections, in table order.
fn kinds(bytes: &[u8]) -> Vec<u32> {
    let b = AlignedBytes::from_bytes(bytes);
    MeshView::parse(&b)
        .unwrap()
        .sections()
        .map(|s| s.kind)
        .collect()
}

#[test]
fn quantised_morph_offsets_are_snorm16_against_a_scale_per_shape() {
    let m = model(true);
    let f32_file = write_mesh(&m, &[], &options(Quantize::None)).unwrap();
    let attr = write_mesh(&m, &[], &options(Quantize::Attributes)).unwrap();
    let all = write_mesh(&m, &[], &options(Quantize::AttributesAndPositions)).unwrap();
    // The streams: f32/f32, f32/snorm16, snorm16/snorm16; all 1.1.
    let has = |b: &[u8], k| kinds(b).contains(&k);
    assert!(has(&f32_file, kind::MORPH_POSITIONS_F32) && has(&f32_file, kind::MORPH_NORMALS_F32));
    assert!(has(&attr, kind::MORPH_POSITIONS_F32) && has(&attr, kind::MORPH_NORMALS_SNORM16));
    assert!(has(&all, kind::MORPH_POSITIONS_SNORM16) && has(&all, kind::MORPH_NORMALS_SNORM16));
    assert!(!has(&all, kind::MORPH_POSITIONS_F32) && !has(&all, kind::MORPH_NORMALS_F32));
    for b in [&attr, &all] {
        assert_eq!(&b[16..20], &[1, 0, 1, 0]);
        kiln_format::kiln::verify_checksum(b).unwrap();
    }
    // 8 bytes an offset instead of 12: 5 offsets.
    let length = |bytes: &[u8], k| {
        let b = AlignedBytes::from_bytes(bytes);
        let v = MeshView::parse(&b).unwrap();
        v.sections()
            .find(|s| s.kind == k)
            .map(|s| (s.count, s.length))
    };
    assert_eq!(length(&f32_file, kind::MORPH_POSITIONS_F32), Some((5, 60)));
    assert_eq!(length(&all, kind::MORPH_POSITIONS_SNORM16), Some((5, 40)));
    assert_eq!(length(&all, kind::MORPH_NORMALS_SNORM16), Some((5, 40)));

    let b = AlignedBytes::from_bytes(&all);
    let v = MeshView::parse(&b).unwrap();
    assert!(v.is_quantized());
    let shapes = v.morph_shape_records();
    // The scales are the largest |component| of each shape's offsets, in the reserved words.
    assert_eq!(shapes[0].position_scale(), 0.2);
    assert_eq!(shapes[0].normal_scale(), 0.5);
    assert_eq!(shapes[1].position_scale(), 1.0);
    assert_eq!(shapes[1].normal_scale(), 0.0, "no normals");
    assert_eq!(shapes[2].reserved, [0, 0], "no offsets");
    assert_eq!(shapes[0].reserved[0], 0.2f32.to_bits());
    // The zero-copy f32 accessor has nothing to hand out; the decoding ones do.
    let (verts, pos, normals) = v.shape_offsets(&shapes[0]);
    assert_eq!(verts, &[1, 4]);
    assert!(pos.is_empty() && normals.is_empty());
    let p = v.shape_position_offsets(&shapes[0]);
    match p {
        MorphOffsets::Snorm16 { data, scale } => {
            assert_eq!(scale, 0.2);
            assert_eq!(data, &[[0, 16384, 0, 0], [0, 32767, 0, 0]]);
        }
        MorphOffsets::F32(_) => panic!("f32 positions in a quantised file"),
    }
    assert_eq!(
        p.get(1),
        Some([0.0, 0.2, 0.0]),
        "the largest component is exact"
    );
    let half = p.get(0).unwrap()[1];
    assert!((half - 0.1).abs() <= snorm16_max_error(0.2), "{half}");
    assert_eq!(p.get(2), None);
    assert_eq!(
        v.shape_normal_offsets(&shapes[1]).to_vec(),
        vec![[0.0; 3]; 3]
    );

    // The model read back: the structure exact, every offset within the bound of its scale.
    for (file, positions_exact) in [(&attr, true), (&all, false)] {
        let b = AlignedBytes::from_bytes(file);
        let back = MeshView::parse(&b).unwrap().to_model();
        for (a, g) in m.meshes.iter().zip(&back.meshes) {
            assert_eq!(a.morph_targets.len(), g.morph_targets.len());
            for (x, y) in a.morph_targets.iter().zip(&g.morph_targets) {
                assert_eq!((&x.name, x.default_weight), (&y.name, y.default_weight));
                for (s, t) in x.shapes.iter().zip(&y.shapes) {
                    assert_eq!(
                        (&s.name, s.full_weight, &s.vertices),
                        (&t.name, t.full_weight, &t.vertices)
                    );
                    assert_eq!(s.normals.len(), t.normals.len());
                    let close = |want: &[[f32; 3]], got: &[[f32; 3]], exact: bool| {
                        let scale = want.iter().flatten().fold(0f32, |m, c| m.max(c.abs()));
                        assert_eq!(want.len(), got.len());
                        for (w, g) in want.iter().zip(got) {
                            for k in 0..3 {
                                let e = (w[k] - g[k]).abs();
                                assert!(
                                    if exact {
                                        e == 0.0
                                    } else {
                                        e <= snorm16_max_error(scale)
                                    },
                                    "{w:?} {g:?}"
                                );
                            }
                        }
                    };
                    close(&s.positions, &t.positions, positions_exact);
                    close(&s.normals, &t.normals, false);
                }
            }
        }
    }
}

#[test]
fn quantised_position_offsets_must_be_finite_and_normal_offsets_that_are_not_count_as_none() {
    let mut m = model(true);
    m.meshes[1].morph_targets[0].shapes[1].positions[2][0] = f32::NAN;
    match write_mesh(&m, &[], &options(Quantize::AttributesAndPositions)) {
        Err(kiln_format::kiln::WriteError::Morph { part: 1, what }) => {
            assert!(what.contains("position offset 2 is not finite"), "{what}");
        }
        other => panic!("{other:?}"),
    }
    // Unquantised, or with the positions in f32, the offset is stored as it is.
    for q in [Quantize::None, Quantize::Attributes] {
        let b = write_mesh(&m, &[], &options(q)).unwrap();
        let back = MeshView::parse(&AlignedBytes::from_bytes(&b))
            .unwrap()
            .to_model();
        assert!(back.meshes[1].morph_targets[0].shapes[1].positions[2][0].is_nan());
    }
    let mut m = model(true);
    m.meshes[1].morph_targets[0].shapes[0].normals[1] = [0.0, f32::INFINITY, 1.0];
    let b = write_mesh(&m, &[], &options(Quantize::Attributes)).unwrap();
    let v_bytes = AlignedBytes::from_bytes(&b);
    let v = MeshView::parse(&v_bytes).unwrap();
    assert_eq!(v.morph_shape_records()[0].normal_scale(), 0.5);
    let n = v.to_model().meshes[1].morph_targets[0].shapes[0]
        .normals
        .clone();
    assert_eq!(n, vec![[0.0, 0.0, 0.5], [0.0; 3]]);
}

#[test]
fn a_bad_scale_is_refused_at_its_field() {
    let all = write_mesh(
        &model(true),
        &[],
        &options(Quantize::AttributesAndPositions),
    )
    .unwrap();
    let s = std::mem::size_of::<MorphShapeRecord>();
    let shapes_at = {
        let b = AlignedBytes::from_bytes(&all);
        let v = MeshView::parse(&b).unwrap();
        v.sections()
            .find(|x| x.kind == kind::MORPH_SHAPES)
            .unwrap()
            .offset as usize
    };
    for (field, what) in [
        (
            SHAPE_POSITION_SCALE_FIELD,
            "position offset scale not finite and ≥ 0",
        ),
        (
            SHAPE_NORMAL_SCALE_FIELD,
            "normal offset scale not finite and ≥ 0",
        ),
    ] {
        for shape in 0..3 {
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -1.0, -1e-40] {
                let bytes = patch(&all, kind::MORPH_SHAPES, shape, s, field, bad.to_bits());
                match parse(&bytes) {
                    Err(LayoutError::BadMorph { offset, what: w }) => {
                        assert_eq!(offset, shapes_at + shape * s + field, "{bad}");
                        assert_eq!(w, what);
                    }
                    other => panic!("shape {shape} scale {bad}: {other:?}"),
                }
            }
            // Any finite scale ≥ 0 is one (0 and -0 decode every code as 0).
            for good in [0.0f32, -0.0, 1e-45, 3.5, f32::MAX] {
                let bytes = patch(&all, kind::MORPH_SHAPES, shape, s, field, good.to_bits());
                assert!(parse(&bytes).is_ok(), "{good}");
            }
        }
    }
    // Beside an f32 stream the words are reserved: not read.
    let attr = write_mesh(&model(true), &[], &options(Quantize::Attributes)).unwrap();
    let bytes = patch(
        &attr,
        kind::MORPH_SHAPES,
        0,
        s,
        SHAPE_POSITION_SCALE_FIELD,
        f32::NAN.to_bits(),
    );
    assert_eq!(parse(&bytes).unwrap(), parse(&attr).unwrap());
    let bytes = patch(
        &attr,
        kind::MORPH_SHAPES,
        0,
        s,
        SHAPE_NORMAL_SCALE_FIELD,
        f32::NAN.to_bits(),
    );
    assert!(matches!(parse(&bytes), Err(LayoutError::BadMorph { .. })));
}

#[test]
fn one_position_and_one_normal_stream() {
    let all = write_mesh(
        &model(true),
        &[],
        &options(Quantize::AttributesAndPositions),
    )
    .unwrap();
    let b = AlignedBytes::from_bytes(&all);
    let v = MeshView::parse(&b).unwrap();
    let entry = |k| v.sections().position(|s| s.kind == k).unwrap();
    let rename = |k: u32, to: u32| {
        let e = 32 + 32 * entry(k);
        let mut out = all.clone();
        out[e..e + 4].copy_from_slice(&to.to_le_bytes());
        out
    };
    // Two position streams (the normals renamed): the second is a duplicate.
    let e = entry(kind::MORPH_NORMALS_SNORM16);
    match parse(&rename(
        kind::MORPH_NORMALS_SNORM16,
        kind::MORPH_POSITIONS_SNORM16,
    )) {
        Err(LayoutError::DuplicateSection { offset, .. }) => assert_eq!(offset, 32 + 32 * e),
        other => panic!("{other:?}"),
    }
    // No normal stream: missing, named by its f32 kind as a vertex stream is.
    match parse(&rename(kind::MORPH_NORMALS_SNORM16, 0x7777)) {
        Err(LayoutError::MissingSection { kind: k, .. }) => {
            assert_eq!(k.0, kind::MORPH_NORMALS_F32)
        }
        other => panic!("{other:?}"),
    }
    // An f32 kind with snorm16 elements: the element size is wrong.
    assert!(matches!(
        parse(&rename(
            kind::MORPH_POSITIONS_SNORM16,
            kind::MORPH_POSITIONS_F32
        )),
        Err(LayoutError::ElementSizeMismatch { .. })
    ));
}
