//! Property tests of the kiln layout: writer → view round trips for arbitrary models and clips
//! (bit for bit without quantisation; quantised morph offsets within the snorm16 bound of their
//! shape's scale), and every truncation and random byte flip of a valid file gives an error or
//! a valid view, never a panic; a view of a flipped file never passes the checksum.

use kiln_format::kiln::quantize::snorm16_max_error;
use kiln_format::kiln::{
    AlignedBytes, Attribute, ClipView, MeshOptions, MeshView, ModelStreams, Quantize, StreamSource,
    plan_mesh, write_clip, write_mesh,
};
use kiln_format::{
    Bone, Clip, Keyframe, MaterialData, MeshPart, Model, MorphShape, MorphTarget, Track, Vertex,
    WeightTrack,
};
use proptest::prelude::*;
use proptest::strategy::ValueTree;

fn name() -> impl Strategy<Value = String> {
    prop_oneof![Just(String::new()), "[a-z]{1,8}", "\\PC{0,6}",]
}

fn bits32() -> impl Strategy<Value = f32> {
    any::<u32>().prop_map(f32::from_bits)
}

fn vertex() -> impl Strategy<Value = Vertex> {
    (
        prop::array::uniform3(bits32()),
        prop::array::uniform2(bits32()),
        prop::array::uniform3(bits32()),
        prop::array::uniform3(bits32()),
        prop::array::uniform4(0u16..=u16::MAX),
        prop::array::uniform4(bits32()),
    )
        .prop_map(|(position, uv, normal, tangent, j, blend_weights)| Vertex {
            position,
            uv,
            normal,
            tangent,
            blend_indices: j.map(|j| j as f32),
            blend_weights,
        })
}

fn part(bones: usize, material_names: Vec<String>) -> impl Strategy<Value = MeshPart> {
    (
        name(),
        prop::collection::vec(vertex(), 0..12),
        any::<prop::sample::Index>(),
        -1..bones as i32,
        prop::collection::vec(any::<prop::sample::Index>(), 0..8),
        // Morph targets: shapes, which vertices (bit mask), an offset value, normals or not.
        prop::collection::vec((1usize..4, any::<u64>(), bits32(), any::<bool>()), 0..3),
    )
        .prop_map(move |(name, vertices, mat, bone_index, tris, morphs)| {
            let n = vertices.len();
            let indices = if n == 0 {
                Vec::new()
            } else {
                tris.iter()
                    .flat_map(|t| {
                        let a = t.index(n) as u32;
                        [a, (a + 1) % n as u32, (a * 7 + 3) % n as u32]
                    })
                    .collect()
            };
            let material_name = if material_names.is_empty() {
                "none".into()
            } else {
                material_names[mat.index(material_names.len())].clone()
            };
            let morph_targets = morphs
                .iter()
                .enumerate()
                .map(|(t, &(shapes, mask, value, with_normals))| MorphTarget {
                    name: format!("target{t}"),
                    default_weight: value,
                    shapes: (0..shapes)
                        .map(|k| {
                            let moved: Vec<u32> = (0..n as u32)
                                .filter(|&v| mask.rotate_left(k as u32 * 7) >> (v % 64) & 1 == 1)
                                .collect();
                            MorphShape {
                                name: format!("shape{k}"),
                                full_weight: (k + 1) as f32 / shapes as f32,
                                positions: moved
                                    .iter()
                                    .map(|&v| [value, v as f32, k as f32])
                                    .collect(),
                                normals: if with_normals {
                                    moved.iter().map(|&v| [0.0, value, v as f32]).collect()
                                } else {
                                    Vec::new()
                                },
                                vertices: moved,
                            }
                        })
                        .collect(),
                })
                .collect();
            MeshPart {
                name,
                vertices,
                indices,
                bone_index,
                material_name,
                morph_targets,
            }
        })
}

fn material() -> impl Strategy<Value = MaterialData> {
    let texture = prop_oneof![
        Just(String::new()),
        Just("a.png".into()),
        Just("b.tga".into()),
        name()
    ];
    (
        name(),
        texture.clone(),
        texture.clone(),
        texture,
        prop::array::uniform4(bits32()),
        prop::array::uniform4(bits32()),
    )
        .prop_map(|(name, d, s, n, diffuse, specular)| MaterialData {
            name,
            diffuse_file: d,
            specular_file: s,
            normal_file: n,
            ambient: [0.1, 0.2, 0.3, 1.0],
            diffuse,
            specular,
            emissive: [0.0, 0.0, 0.0, 1.0],
        })
}

fn model() -> impl Strategy<Value = (Model, Vec<MaterialData>)> {
    (
        prop::collection::vec(
            (
                name(),
                any::<prop::sample::Index>(),
                prop::array::uniform16(bits32()),
            ),
            0..6,
        ),
        prop::collection::vec(material(), 0..3),
    )
        .prop_flat_map(|(bones, materials)| {
            let bones: Vec<Bone> = bones
                .into_iter()
                .enumerate()
                .map(|(i, (name, p, transform))| Bone {
                    index: i as i32,
                    parent: p.index(i + 1) as i32 - 1,
                    name,
                    transform,
                })
                .collect();
            let names = materials.iter().map(|m| m.name.clone()).collect::<Vec<_>>();
            let n = bones.len();
            (
                Just(bones),
                prop::collection::vec(part(n, names), 0..4),
                Just(materials),
            )
        })
        .prop_map(|(bones, meshes, materials)| (Model { bones, meshes }, materials))
}

fn clip() -> impl Strategy<Value = Clip> {
    (
        name(),
        0u32..6,
        prop::collection::vec(name(), 0..5),
        bits32(),
        bits32(),
    )
        .prop_flat_map(|(name, frames, bones, duration, frame_rate)| {
            let keys = prop::collection::vec(
                prop::array::uniform10(bits32()),
                (frames as usize) * bones.len(),
            );
            let times = prop::collection::vec(bits32(), frames as usize);
            let weights = prop::collection::vec(
                (
                    0u32..4,
                    0u32..3,
                    prop::collection::vec(bits32(), frames as usize),
                ),
                0..3,
            );
            (
                Just((name, frames, bones, duration, frame_rate)),
                keys,
                times,
                weights,
            )
        })
        .prop_map(
            |((name, frames, bones, duration, frame_rate), keys, times, weights)| {
                let n = bones.len();
                let tracks = bones
                    .into_iter()
                    .enumerate()
                    .map(|(t, bone_name)| Track {
                        bone_name,
                        keyframes: (0..frames as usize)
                            .map(|f| {
                                let k = keys[f * n + t];
                                Keyframe {
                                    time: times[f],
                                    scale: [k[0], k[1], k[2]],
                                    rotation: [k[3], k[4], k[5], k[6]],
                                    translation: [k[7], k[8], k[9]],
                                }
                            })
                            .collect(),
                    })
                    .collect();
                Clip {
                    name,
                    duration,
                    frame_rate,
                    frame_count: frames,
                    tracks,
                    weight_tracks: weights
                        .into_iter()
                        .map(|(part, target, weights)| WeightTrack {
                            part,
                            target,
                            weights,
                        })
                        .collect(),
                }
            },
        )
}

/// Bit-level equality (NaN payloads included).
fn same_model(a: &Model, b: &Model) -> bool {
    a.bones.len() == b.bones.len()
        && a.bones.iter().zip(&b.bones).all(|(x, y)| {
            x.index == y.index
                && x.parent == y.parent
                && x.name == y.name
                && x.transform.map(f32::to_bits) == y.transform.map(f32::to_bits)
        })
        && a.meshes.len() == b.meshes.len()
        && a.meshes.iter().zip(&b.meshes).all(|(x, y)| {
            x.name == y.name
                && x.indices == y.indices
                && x.bone_index == y.bone_index
                && x.material_name == y.material_name
                && bytemuck::cast_slice::<Vertex, u32>(&x.vertices)
                    == bytemuck::cast_slice::<Vertex, u32>(&y.vertices)
                && same_targets(&x.morph_targets, &y.morph_targets)
        })
}

fn same_targets(a: &[MorphTarget], b: &[MorphTarget]) -> bool {
    let bits = |v: &[[f32; 3]]| v.iter().map(|d| d.map(f32::to_bits)).collect::<Vec<_>>();
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| {
            x.name == y.name
                && x.default_weight.to_bits() == y.default_weight.to_bits()
                && x.shapes.len() == y.shapes.len()
                && x.shapes.iter().zip(&y.shapes).all(|(p, q)| {
                    p.name == q.name
                        && p.full_weight.to_bits() == q.full_weight.to_bits()
                        && p.vertices == q.vertices
                        && bits(&p.positions) == bits(&q.positions)
                        && bits(&p.normals) == bits(&q.normals)
                })
        })
}

/// The largest |component| of some offsets: the snorm16 scale of a shape's stream.
fn scale_of(offsets: &[[f32; 3]]) -> f32 {
    offsets.iter().flatten().fold(0.0f32, |m, c| m.max(c.abs()))
}

/// Whether `got` holds `want`'s offsets within the snorm16 bound of their scale (or bit for
/// bit, when `exact`).
fn offsets_close(want: &[[f32; 3]], got: &[[f32; 3]], exact: bool) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("{} offsets, {} read back", want.len(), got.len()));
    }
    let bound = snorm16_max_error(scale_of(want));
    for (w, g) in want.iter().zip(got) {
        for a in 0..3 {
            let ok = if exact {
                w[a].to_bits() == g[a].to_bits()
            } else {
                (w[a] as f64 - g[a] as f64).abs() <= bound as f64
            };
            if !ok {
                return Err(format!(
                    "{w:?} read back as {g:?} (bound {bound}, exact {exact})"
                ));
            }
        }
    }
    Ok(())
}

/// A quantised file's morph targets against the model's: the same structure, the position
/// offsets bit for bit or (`positions_quantised`) within the snorm16 bound of their shape's
/// scale, the normal offsets within theirs (one that is not finite is written as none).
fn quantised_targets_close(
    want: &[MorphTarget],
    got: &[MorphTarget],
    positions_quantised: bool,
) -> Result<(), String> {
    if want.len() != got.len() {
        return Err(format!("{} targets, {} read back", want.len(), got.len()));
    }
    for (x, y) in want.iter().zip(got) {
        let same = x.name == y.name
            && x.default_weight.to_bits() == y.default_weight.to_bits()
            && x.shapes.len() == y.shapes.len();
        if !same {
            return Err(format!("target {:?} read back as {:?}", x.name, y.name));
        }
        for (p, q) in x.shapes.iter().zip(&y.shapes) {
            if p.name != q.name
                || p.full_weight.to_bits() != q.full_weight.to_bits()
                || p.vertices != q.vertices
                || p.normals.is_empty() != q.normals.is_empty()
            {
                return Err(format!("shape {:?} read back as {q:?}", p.name));
            }
            offsets_close(&p.positions, &q.positions, !positions_quantised)?;
            let clean: Vec<[f32; 3]> = p
                .normals
                .iter()
                .map(|d| {
                    if d.iter().all(|c| c.is_finite()) {
                        *d
                    } else {
                        [0.0; 3]
                    }
                })
                .collect();
            offsets_close(&clean, &q.normals, false)?;
        }
    }
    Ok(())
}

/// The model with every position, UV and morph offset that is not finite replaced by 0: what
/// `Quantize::AttributesAndPositions` can write (when no range overflows).
fn finite_model(model: &Model) -> Model {
    let fix = |v: &mut f32| {
        if !v.is_finite() {
            *v = 0.0;
        }
    };
    let mut m = model.clone();
    for p in &mut m.meshes {
        for v in &mut p.vertices {
            v.position.iter_mut().for_each(fix);
            v.uv.iter_mut().for_each(fix);
        }
        for t in &mut p.morph_targets {
            for s in &mut t.shapes {
                s.positions.iter_mut().flatten().for_each(fix);
            }
        }
    }
    m
}

fn same_material(a: &MaterialData, b: &MaterialData) -> bool {
    let bits = |m: &MaterialData| {
        [m.ambient, m.diffuse, m.specular, m.emissive].map(|c| c.map(f32::to_bits))
    };
    (&a.name, &a.diffuse_file, &a.specular_file, &a.normal_file)
        == (&b.name, &b.diffuse_file, &b.specular_file, &b.normal_file)
        && bits(a) == bits(b)
}

fn same_clip(a: &Clip, b: &Clip) -> bool {
    a.name == b.name
        && a.duration.to_bits() == b.duration.to_bits()
        && a.frame_rate.to_bits() == b.frame_rate.to_bits()
        && a.frame_count == b.frame_count
        && a.tracks.len() == b.tracks.len()
        && a.tracks.iter().zip(&b.tracks).all(|(x, y)| {
            x.bone_name == y.bone_name
                && bytemuck::cast_slice::<Keyframe, u32>(&x.keyframes)
                    == bytemuck::cast_slice::<Keyframe, u32>(&y.keyframes)
        })
        && a.weight_tracks.len() == b.weight_tracks.len()
        && a.weight_tracks.iter().zip(&b.weight_tracks).all(|(x, y)| {
            (x.part, x.target) == (y.part, y.target)
                && x.weights
                    .iter()
                    .map(|w| w.to_bits())
                    .eq(y.weights.iter().map(|w| w.to_bits()))
        })
}

/// Everything a view offers, so that a bad accessor would panic here.
fn exercise_mesh(v: &MeshView<'_>) {
    let m = v.to_model();
    let _ = v.to_materials();
    let _ = v.check_joints();
    let _ = v.sections().count();
    let _ = v.textures().count();
    assert_eq!(
        m.meshes.iter().map(|p| p.vertices.len()).sum::<usize>(),
        v.vertex_count()
    );
    assert_eq!(
        m.meshes.iter().map(|p| p.indices.len()).sum::<usize>(),
        v.index_count()
    );
    for p in &m.meshes {
        assert!(p.indices.iter().all(|&i| (i as usize) < p.vertices.len()));
    }
    for (i, b) in m.bones.iter().enumerate() {
        assert!(b.parent == -1 || (0..i as i32).contains(&b.parent));
    }
    for sh in v.morph_shape_records() {
        let (vertices, positions, normals) = v.shape_offsets(sh);
        let (p, n) = (v.shape_position_offsets(sh), v.shape_normal_offsets(sh));
        assert_eq!(vertices, v.shape_vertices(sh));
        assert_eq!((p.len(), n.len()), (vertices.len(), vertices.len()));
        assert!(positions.is_empty() || positions.len() == vertices.len());
        assert!(normals.is_empty() || normals.len() == vertices.len());
        for i in 0..vertices.len() {
            // An f32 stream is handed out as stored; snorm16 decodes against a validated
            // scale, so to finite values.
            let same = |d: Option<[f32; 3]>, raw: &[[f32; 3]]| match raw.get(i) {
                Some(r) => d.map(|d| d.map(f32::to_bits)) == Some(r.map(f32::to_bits)),
                None => d.is_some_and(|d| d.iter().all(|c| c.is_finite())),
            };
            assert!(same(p.get(i), positions));
            assert!(same(n.get(i), normals));
        }
    }
}

fn exercise_clip(v: &ClipView<'_>) {
    let c = v.to_clip();
    for f in 0..=v.frame_count() {
        let _ = v.frame(f);
    }
    assert!(
        c.tracks
            .iter()
            .all(|t| t.keyframes.len() == v.frame_count() as usize)
    );
}

proptest! {
    // 256 cases by default; PROPTEST_CASES=n for longer runs.
    #![proptest_config(ProptestConfig::with_cases(
        std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(256)
    ))]

    #[test]
    fn mesh_round_trip((model, materials) in model()) {
        let bytes = write_mesh(&model, &materials, &MeshOptions::default()).unwrap();
        let b = AlignedBytes::from_bytes(&bytes);
        let view = MeshView::parse(&b).unwrap();
        view.verify_checksum().unwrap();
        prop_assert!(same_model(&view.to_model(), &model));
        let back = view.to_materials();
        prop_assert_eq!(back.len(), materials.len());
        prop_assert!(back.iter().zip(&materials).all(|(a, b)| same_material(a, b)));
        // Writing is deterministic.
        prop_assert_eq!(write_mesh(&view.to_model(), &back, &MeshOptions {
            offset_matrices: Some(&view.offset_matrices()), ..Default::default()
        }).unwrap(), bytes);
    }

    /// A planned file, its parts' vertices handed over one attribute at a time (their own
    /// lists left empty), is `write_mesh`'s, checksum and all; each part is released once,
    /// in order, after its last stream.
    #[test]
    fn planned_mesh_written_by_streams_is_the_whole_one(
        (model, materials) in model(),
        with_offsets in any::<bool>(),
    ) {
        /// The model's vertices, recording the parts released.
        struct Recorded<'m>(ModelStreams<'m>, Vec<usize>);
        impl StreamSource for Recorded<'_> {
            fn fill(&self, part: usize, start: usize, attribute: Attribute, out: &mut [f32]) -> usize {
                self.0.fill(part, start, attribute, out)
            }
            fn release(&mut self, part: usize) {
                self.1.push(part);
            }
        }
        let offsets: Vec<[f32; 16]> = (0..model.bones.len())
            .map(|i| core::array::from_fn(|k| (i * 16 + k) as f32))
            .collect();
        let offset_matrices = with_offsets.then_some(offsets.as_slice());
        let want = write_mesh(&model, &materials, &MeshOptions {
            offset_matrices, ..Default::default()
        }).unwrap();
        let counts: Vec<usize> = model.meshes.iter().map(|m| m.vertices.len()).collect();
        let mut lean = model.clone();
        for part in &mut lean.meshes {
            part.vertices.clear();
        }
        let plan = plan_mesh(&lean, &counts, &materials, offset_matrices).unwrap();
        prop_assert_eq!(plan.len(), want.len());
        let mut out = std::io::Cursor::new(Vec::new());
        let mut source = Recorded(ModelStreams(&model), Vec::new());
        let sum = plan.write_streams(&mut source, &mut out).unwrap();
        let got = out.into_inner();
        prop_assert_eq!(sum, kiln_format::kiln::checksum(&want));
        prop_assert!(got == want, "the planned file differs");
        prop_assert_eq!(source.1, (0..counts.len()).collect::<Vec<_>>());
    }

    #[test]
    fn quantised_mesh_parses_and_keeps_structure((model, materials) in model()) {
        let finite = model.meshes.iter().flat_map(|m| &m.vertices)
            .all(|v| v.uv.iter().chain(&v.position).all(|c| c.is_finite()));
        let written = write_mesh(&model, &materials, &MeshOptions {
            quantize: Quantize::AttributesAndPositions, ..Default::default()
        });
        // Refused exactly when a value is not finite or a range overflows an f32 extent.
        let spans = |f: &dyn Fn(&Vertex) -> Vec<f32>| {
            let vals: Vec<f32> = model.meshes.iter().flat_map(|m| &m.vertices).flat_map(f).collect();
            let n = vals.len() / model.meshes.iter().map(|m| m.vertices.len()).sum::<usize>().max(1);
            (0..n).all(|k| {
                let col = vals.iter().skip(k).step_by(n.max(1));
                let (lo, hi) = col.fold((f32::INFINITY, f32::NEG_INFINITY), |(l, h), &v| (l.min(v), h.max(v)));
                lo > hi || (hi - lo).is_finite()
            })
        };
        // Morph position offsets are snorm16 against their shape's largest component, which
        // is finite when they are.
        let offsets_finite = model.meshes.iter().flat_map(|m| &m.morph_targets)
            .flat_map(|t| &t.shapes).flat_map(|s| s.positions.iter().flatten())
            .all(|c| c.is_finite());
        let representable = finite
            && offsets_finite
            && spans(&|v: &Vertex| v.position.to_vec())
            && spans(&|v: &Vertex| v.uv.to_vec());
        prop_assert_eq!(written.is_ok(), representable, "{:?}", written.as_ref().err());
        if let Ok(bytes) = written {
            let b = AlignedBytes::from_bytes(&bytes);
            let view = MeshView::parse(&b).unwrap();
            let back = view.to_model();
            prop_assert_eq!(&back.bones.iter().map(|b| (&b.name, b.parent)).collect::<Vec<_>>(),
                &model.bones.iter().map(|b| (&b.name, b.parent)).collect::<Vec<_>>());
            for (a, g) in model.meshes.iter().zip(&back.meshes) {
                let close = quantised_targets_close(&a.morph_targets, &g.morph_targets, true);
                prop_assert!(close.is_ok(), "{:?}", close);
                prop_assert_eq!(&a.indices, &g.indices);
                for (x, y) in a.vertices.iter().zip(&g.vertices) {
                    prop_assert_eq!(x.blend_indices, y.blend_indices);
                    let w: f32 = y.blend_weights.iter().sum();
                    prop_assert!(w == 0.0 || (w - 1.0).abs() < 1e-5);
                }
            }
        }
    }

    #[test]
    fn quantised_attributes_keep_morph_positions_exact((model, materials) in model()) {
        let model = finite_model(&model);
        let Ok(bytes) = write_mesh(&model, &materials, &MeshOptions {
            quantize: Quantize::Attributes, ..Default::default()
        }) else {
            // A UV range that overflows an f32 extent (the test above covers when).
            return Ok(());
        };
        let b = AlignedBytes::from_bytes(&bytes);
        let view = MeshView::parse(&b).unwrap();
        view.verify_checksum().unwrap();
        let back = view.to_model();
        for (a, g) in model.meshes.iter().zip(&back.meshes) {
            let close = quantised_targets_close(&a.morph_targets, &g.morph_targets, false);
            prop_assert!(close.is_ok(), "{:?}", close);
        }
        // Writing the decoded model again gives the same file (the codes are stable).
        let again = write_mesh(&back, &view.to_materials(), &MeshOptions {
            quantize: Quantize::Attributes,
            offset_matrices: Some(&view.offset_matrices()),
        }).unwrap();
        let b2 = AlignedBytes::from_bytes(&again);
        let back2 = MeshView::parse(&b2).unwrap().to_model();
        for (a, g) in back.meshes.iter().zip(&back2.meshes) {
            prop_assert!(same_targets(&a.morph_targets, &g.morph_targets));
        }
    }

    #[test]
    fn flipped_quantised_mesh_bytes_never_panic((model, materials) in model(), flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)) {
        let Ok(mut bytes) = write_mesh(&finite_model(&model), &materials, &MeshOptions {
            quantize: Quantize::AttributesAndPositions, ..Default::default()
        }) else {
            return Ok(());
        };
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        let b = AlignedBytes::from_bytes(&bytes);
        if let Ok(view) = MeshView::parse(&b) {
            exercise_mesh(&view);
            let only_magic = flips.iter().all(|(at, _)| at.index(bytes.len()) < 8);
            prop_assert!(only_magic || view.verify_checksum().is_err() || flips.len() > 1);
        }
    }

    #[test]
    fn clip_round_trip(clip in clip()) {
        let bytes = write_clip(&clip).unwrap();
        let b = AlignedBytes::from_bytes(&bytes);
        let view = ClipView::parse(&b).unwrap();
        view.verify_checksum().unwrap();
        prop_assert!(same_clip(&view.to_clip(), &clip));
    }

    #[test]
    fn flipped_mesh_bytes_never_panic((model, materials) in model(), flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)) {
        let mut bytes = write_mesh(&model, &materials, &MeshOptions::default()).unwrap();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        let b = AlignedBytes::from_bytes(&bytes);
        if let Ok(view) = MeshView::parse(&b) {
            exercise_mesh(&view);
            // Flips of bytes 8.. change the checksum or the bytes it covers.
            let only_magic = flips.iter().all(|(at, _)| at.index(bytes.len()) < 8);
            prop_assert!(only_magic || view.verify_checksum().is_err() || flips.len() > 1);
        }
    }

    #[test]
    fn flipped_clip_bytes_never_panic(clip in clip(), flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..=255), 1..4)) {
        let mut bytes = write_clip(&clip).unwrap();
        for (at, x) in &flips {
            let i = at.index(bytes.len());
            bytes[i] ^= x;
        }
        let b = AlignedBytes::from_bytes(&bytes);
        if let Ok(view) = ClipView::parse(&b) {
            exercise_clip(&view);
            prop_assert!(flips.len() > 1 || view.verify_checksum().is_err());
        }
    }
}

/// Every truncation of a valid file, and every single-byte extension, is refused; no panic.
#[test]
fn every_truncation_is_an_error() {
    let runner_model = {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        let mut found = None;
        for _ in 0..64 {
            let (m, mats) = model().new_tree(&mut runner).unwrap().current();
            if !m.meshes.is_empty() && !m.bones.is_empty() && !mats.is_empty() {
                found = Some((m, mats));
                break;
            }
        }
        found.expect("a model with bones, parts and materials")
    };
    let (model, materials) = runner_model;
    for q in [Quantize::None, Quantize::Attributes] {
        let mut m = model.clone();
        for v in m.meshes.iter_mut().flat_map(|p| p.vertices.iter_mut()) {
            v.uv = [0.25, 0.5];
        }
        let bytes = write_mesh(
            &m,
            &materials,
            &MeshOptions {
                quantize: q,
                ..Default::default()
            },
        )
        .unwrap();
        for len in 0..bytes.len() {
            let b = AlignedBytes::from_bytes(&bytes[..len]);
            assert!(
                MeshView::parse(&b).is_err(),
                "prefix of {len} bytes accepted"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(MeshView::parse(&AlignedBytes::from_bytes(&longer)).is_err());
    }
    let clip = {
        let mut runner = proptest::test_runner::TestRunner::deterministic();
        loop {
            let c = clip().new_tree(&mut runner).unwrap().current();
            if c.frame_count > 1 && c.tracks.len() > 1 {
                break c;
            }
        }
    };
    let bytes = write_clip(&clip).unwrap();
    for len in 0..bytes.len() {
        let b = AlignedBytes::from_bytes(&bytes[..len]);
        assert!(
            ClipView::parse(&b).is_err(),
            "prefix of {len} bytes accepted"
        );
    }
}

/// Every single-byte change of a small file, at every position, exhaustively (8 values each).
#[test]
fn every_position_flipped_never_panics() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (model, materials) = loop {
        let (m, mats) = model().new_tree(&mut runner).unwrap().current();
        if m.meshes.iter().any(|p| !p.indices.is_empty()) && m.bones.len() > 1 {
            break (m, mats);
        }
    };
    let bytes = write_mesh(&model, &materials, &MeshOptions::default()).unwrap();
    let mut accepted = 0usize;
    for i in 0..bytes.len() {
        for x in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80] {
            let mut v = bytes.clone();
            v[i] ^= x;
            let b = AlignedBytes::from_bytes(&v);
            if let Ok(view) = MeshView::parse(&b) {
                accepted += 1;
                exercise_mesh(&view);
                assert!(
                    i < 8 || view.verify_checksum().is_err(),
                    "flip at {i} passed the checksum"
                );
            }
        }
    }
    // Vertex data is not validated: flips there give valid views.
    assert!(accepted > 0);
}

/// Every single-bit change of a small quantised file with morph targets (snorm16 position and
/// normal offsets, scales in the shape records), at every position: an error or a view whose
/// accessors hold, never a panic.
#[test]
fn every_position_of_a_quantised_morph_file_flipped_never_panics() {
    let mut runner = proptest::test_runner::TestRunner::deterministic();
    let (model, materials, bytes) = loop {
        let (m, mats) = model().new_tree(&mut runner).unwrap().current();
        let m = finite_model(&m);
        let offsets: usize = m
            .meshes
            .iter()
            .flat_map(|p| &p.morph_targets)
            .flat_map(|t| &t.shapes)
            .map(|s| s.vertices.len())
            .sum();
        let normals = m
            .meshes
            .iter()
            .flat_map(|p| &p.morph_targets)
            .flat_map(|t| &t.shapes)
            .any(|s| !s.normals.is_empty());
        if offsets < 3 || !normals {
            continue;
        }
        let options = MeshOptions {
            quantize: Quantize::AttributesAndPositions,
            ..Default::default()
        };
        if let Ok(bytes) = write_mesh(&m, &mats, &options) {
            break (m, mats, bytes);
        }
    };
    let b = AlignedBytes::from_bytes(&bytes);
    let view = MeshView::parse(&b).unwrap();
    assert!(view.is_quantized());
    for (a, g) in model.meshes.iter().zip(&view.to_model().meshes) {
        quantised_targets_close(&a.morph_targets, &g.morph_targets, true).unwrap();
    }
    let _ = materials;
    let mut refused = 0usize;
    for i in 0..bytes.len() {
        for x in [0x01u8, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80] {
            let mut v = bytes.clone();
            v[i] ^= x;
            let b = AlignedBytes::from_bytes(&v);
            match MeshView::parse(&b) {
                Ok(view) => {
                    exercise_mesh(&view);
                    assert!(
                        i < 8 || view.verify_checksum().is_err(),
                        "flip at {i} passed the checksum"
                    );
                }
                Err(_) => refused += 1,
            }
        }
    }
    assert!(refused > 0);
}
