//! The kiln layout: writer → view round trips, the byte layout of `docs/format.md` checked at
//! fixed offsets, and one mutation per error variant (each refused with its own variant and the
//! offset of the field at fault).

use kiln_format::kiln::spec::{self, kind};
use kiln_format::kiln::{
    AlignedBytes, Attribute, ClipView, Indices, LayoutError, MeshOptions, MeshView, ModelStreams,
    Positions, Quantize, StreamSource, WriteError, plan_mesh, write_clip, write_mesh,
};
use kiln_format::{Bone, Clip, IDENTITY, Keyframe, MaterialData, MeshPart, Model, Track, Vertex};
use std::sync::atomic::{AtomicUsize, Ordering};

/// Every quantisation mode, for the tests that run each.
const QUANTIZE_MODES: [Quantize; 3] = [
    Quantize::None,
    Quantize::Attributes,
    Quantize::AttributesAndPositions,
];

fn translation(x: f32, y: f32, z: f32) -> [f32; 16] {
    let mut m = IDENTITY;
    m[12] = x;
    m[13] = y;
    m[14] = z;
    m
}

fn vertex(i: usize) -> Vertex {
    let f = i as f32;
    Vertex {
        position: [f * 0.5, -f, f * 0.25 + 1.0],
        uv: [f * 0.125, 1.0 - f * 0.0625],
        normal: [0.0, 1.0, 0.0],
        tangent: [1.0, 0.0, 0.0],
        blend_indices: [(i % 3) as f32, 0.0, 0.0, 0.0],
        blend_weights: [1.0, 0.0, 0.0, 0.0],
    }
}

/// Three bones (root, body, arm), two parts, two materials sharing a texture.
fn sample_model() -> (Model, Vec<MaterialData>) {
    let bones = vec![
        Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        },
        Bone {
            index: 1,
            parent: 0,
            name: "body".into(),
            transform: translation(0.0, 1.0, 0.0),
        },
        Bone {
            index: 2,
            parent: 1,
            name: "arm ✋".into(),
            transform: translation(1.0, 1.5, 0.0),
        },
    ];
    let meshes = vec![
        MeshPart {
            name: "body".into(),
            vertices: (0..4).map(vertex).collect(),
            indices: vec![0, 1, 2, 0, 2, 3],
            bone_index: 1,
            material_name: "skin".into(),
            morph_targets: Vec::new(),
        },
        MeshPart {
            name: "arm ✋".into(),
            vertices: (4..7).map(vertex).collect(),
            indices: vec![2, 1, 0],
            bone_index: 2,
            material_name: "cloth".into(),
            morph_targets: Vec::new(),
        },
    ];
    let materials = vec![
        MaterialData {
            name: "skin".into(),
            diffuse_file: "skin.png".into(),
            specular_file: String::new(),
            normal_file: "skin_n.png".into(),
            ambient: [0.1, 0.1, 0.1, 1.0],
            diffuse: [0.8, 0.6, 0.5, 1.0],
            specular: [0.2, 0.2, 0.2, 32.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
        },
        MaterialData {
            name: "cloth".into(),
            diffuse_file: "skin.png".into(),
            ..Default::default()
        },
    ];
    (Model { bones, meshes }, materials)
}

fn sample_clip() -> Clip {
    let frames = 5u32;
    let tracks = ["root", "body", "arm"]
        .iter()
        .enumerate()
        .map(|(t, name)| Track {
            bone_name: (*name).into(),
            keyframes: (0..frames)
                .map(|f| Keyframe {
                    time: f as f32,
                    scale: [1.0, 1.0, 1.0 + t as f32],
                    rotation: [0.0, 0.0, (f as f32 * 0.1).sin(), (f as f32 * 0.1).cos()],
                    translation: [t as f32, f as f32, 100.0 * t as f32 + f as f32],
                })
                .collect(),
        })
        .collect();
    Clip {
        name: "walk".into(),
        duration: 4.0,
        frame_rate: 30.0,
        frame_count: frames,
        tracks,
        weight_tracks: Vec::new(),
    }
}

fn mesh_bytes() -> AlignedBytes {
    let (model, materials) = sample_model();
    AlignedBytes::from_bytes(&write_mesh(&model, &materials, &MeshOptions::default()).unwrap())
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}
fn u64_at(b: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(b[at..at + 8].try_into().unwrap())
}

/// (table entry offset, section offset) of the section of kind `k`.
fn section(b: &[u8], k: u32) -> (usize, usize) {
    let n = u32_at(b, 20) as usize;
    (0..n)
        .map(|i| 32 + 32 * i)
        .find(|&e| u32_at(b, e) == k)
        .map(|e| (e, u64_at(b, e + 8) as usize))
        .unwrap_or_else(|| panic!("no section {k:#x}"))
}

fn patch(b: &AlignedBytes, at: usize, bytes: &[u8]) -> AlignedBytes {
    let mut v = b.to_vec();
    v[at..at + bytes.len()].copy_from_slice(bytes);
    AlignedBytes::from_bytes(&v)
}

fn mesh_err(b: &AlignedBytes) -> LayoutError {
    MeshView::parse(b).expect_err("the mutated file must be refused")
}

#[test]
fn mesh_round_trip_is_exact_and_streams_are_borrowed() {
    let (model, materials) = sample_model();
    let bytes = mesh_bytes();
    let view = MeshView::parse(&bytes).unwrap();
    assert_eq!(view.to_model(), model);
    assert_eq!(view.to_materials(), materials);
    view.verify_checksum().unwrap();
    view.check_joints().unwrap();
    assert_eq!(view.version(), (1, 0));
    assert_eq!(view.vertex_count(), 7);
    assert_eq!(view.index_count(), 9);
    assert!(!view.is_quantized());
    // Borrowed, not copied: the position slice lies inside the file bytes, 16-byte aligned.
    let Positions::F32(p) = view.positions() else {
        panic!("f32 positions expected")
    };
    let start = p.as_ptr() as usize - bytes.as_ptr() as usize;
    assert_eq!(start % 16, 0);
    assert_eq!(start, section(&bytes, kind::POSITIONS_F32).1);
    assert_eq!(p[5], vertex(5).position);
    // Few indices: u16.
    assert!(matches!(view.indices(), Indices::U16(i) if i == [0, 1, 2, 0, 2, 3, 2, 1, 0]));
    // The texture shared by both materials is stored once.
    assert_eq!(
        view.textures().collect::<Vec<_>>(),
        ["skin.png", "skin_n.png"]
    );
    let parts: Vec<_> = view.parts().collect();
    assert_eq!(parts[1].vertices, 4..7);
    assert_eq!(parts[1].indices, 6..9);
    assert_eq!(parts[1].material, Some(1));
    let bones: Vec<_> = view.bones().collect();
    assert_eq!(bones[2].name, "arm ✋");
    assert_eq!(bones[2].parent, 1);
    // Offset matrices default to the inverse of the bind transform.
    assert_eq!(bones[2].offset, &translation(-1.0, -1.5, 0.0));
}

#[test]
fn header_and_table_are_where_the_spec_puts_them() {
    let b = mesh_bytes();
    assert_eq!(&b[0..8], b"KILNMESH");
    assert_eq!(u64_at(&b, 8), kiln_format::kiln::checksum(&b));
    assert_eq!(u32_at(&b, 16), 1, "major 1, minor 0");
    assert_eq!(u64_at(&b, 24), b.len() as u64);
    let n = u32_at(&b, 20) as usize;
    // strings, bones, parts, materials, textures, 6 streams, indices.
    assert_eq!(n, 12);
    let mut end = 32 + 32 * n;
    for i in 0..n {
        let e = 32 + 32 * i;
        let (k, off, len, size, count) = (
            u32_at(&b, e),
            u64_at(&b, e + 8) as usize,
            u64_at(&b, e + 16),
            u32_at(&b, e + 24),
            u32_at(&b, e + 28),
        );
        assert_eq!(off % 16, 0, "kind {k:#x}");
        assert!(off >= end && off - end < 16, "packed in order");
        assert_eq!(len, size as u64 * count as u64);
        assert_eq!(Some(size), spec::element_size_of(k));
        end = off + len as usize;
    }
    assert_eq!(end, b.len());
    // The first bone record: parent -1, its name "root" in the string table.
    let (_, bones) = section(&b, kind::BONES);
    let (_, strings) = section(&b, kind::STRINGS);
    assert_eq!(u32_at(&b, bones) as i32, -1);
    let (name_at, name_len) = (
        u32_at(&b, bones + 4) as usize,
        u32_at(&b, bones + 8) as usize,
    );
    assert_eq!(&b[strings + name_at..strings + name_at + name_len], b"root");
}

#[test]
fn large_parts_get_u32_indices() {
    let n = 70_000usize;
    let model = Model {
        bones: vec![Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        }],
        meshes: vec![MeshPart {
            name: "big".into(),
            vertices: (0..n).map(|i| vertex(i % 3)).collect(),
            indices: vec![0, 1, (n - 1) as u32],
            bone_index: 0,
            material_name: String::new(),
            morph_targets: Vec::new(),
        }],
    };
    let b = AlignedBytes::from_bytes(&write_mesh(&model, &[], &MeshOptions::default()).unwrap());
    let view = MeshView::parse(&b).unwrap();
    assert!(matches!(view.indices(), Indices::U32(i) if i == [0, 1, 69_999]));
    assert_eq!(view.parts().next().unwrap().material, None);
    assert_eq!(view.to_model(), model);
}

#[test]
fn explicit_offset_matrices_are_stored() {
    let (model, materials) = sample_model();
    let offsets = [
        translation(1.0, 2.0, 3.0),
        IDENTITY,
        translation(0.0, 0.0, -7.0),
    ];
    let bytes = write_mesh(
        &model,
        &materials,
        &MeshOptions {
            offset_matrices: Some(&offsets),
            ..Default::default()
        },
    )
    .unwrap();
    let b = AlignedBytes::from_bytes(&bytes);
    assert_eq!(MeshView::parse(&b).unwrap().offset_matrices(), offsets);
    assert_eq!(
        write_mesh(
            &model,
            &materials,
            &MeshOptions {
                offset_matrices: Some(&offsets[..2]),
                ..Default::default()
            }
        ),
        Err(WriteError::OffsetMatrices { given: 2, bones: 3 })
    );
}

#[test]
fn quantised_mesh_is_smaller_and_within_bounds() {
    let (model, materials) = sample_model();
    let full = write_mesh(&model, &materials, &MeshOptions::default()).unwrap();
    for (q, per_vertex) in [
        (Quantize::Attributes, 36),
        (Quantize::AttributesAndPositions, 32),
    ] {
        let bytes = write_mesh(
            &model,
            &materials,
            &MeshOptions {
                quantize: q,
                ..Default::default()
            },
        )
        .unwrap();
        let b = AlignedBytes::from_bytes(&bytes);
        let view = MeshView::parse(&b).unwrap();
        assert!(view.is_quantized());
        let stream_bytes: u64 = view
            .sections()
            .filter(|s| (0x110..0x120).contains(&s.kind))
            .map(|s| s.length)
            .sum();
        assert_eq!(stream_bytes, 7 * per_vertex, "{q:?}");
        assert!(bytes.len() < full.len());
        let back = view.to_model();
        let flat: Vec<_> = model.meshes.iter().flat_map(|m| &m.vertices).collect();
        let got: Vec<_> = back.meshes.iter().flat_map(|m| &m.vertices).collect();
        for (a, g) in flat.iter().zip(&got) {
            for k in 0..3 {
                let tol = if q == Quantize::AttributesAndPositions {
                    1e-4
                } else {
                    0.0
                };
                assert!((a.position[k] - g.position[k]).abs() <= tol);
                assert!((a.normal[k] - g.normal[k]).abs() < 1e-4);
            }
            assert!((a.uv[0] - g.uv[0]).abs() < 1e-5 && (a.uv[1] - g.uv[1]).abs() < 1e-5);
            assert_eq!(
                a.blend_weights, g.blend_weights,
                "1,0,0,0 is exact in unorm8"
            );
            assert_eq!(a.blend_indices, g.blend_indices);
        }
        assert_eq!(back.bones, model.bones);
    }
}

#[test]
fn clip_round_trip_and_frames_are_contiguous() {
    let clip = sample_clip();
    let b = AlignedBytes::from_bytes(&write_clip(&clip).unwrap());
    assert_eq!(&b[0..8], b"KILNCLIP");
    let view = ClipView::parse(&b).unwrap();
    view.verify_checksum().unwrap();
    assert_eq!(view.to_clip(), clip);
    assert_eq!(view.name(), "walk");
    assert_eq!(view.frame_count(), 5);
    assert_eq!(view.track_count(), 3);
    assert_eq!(view.times(), [0.0, 1.0, 2.0, 3.0, 4.0]);
    // Frame 2 of all three bones: one slice, consecutive in memory.
    let f2 = view.frame(2).unwrap();
    assert_eq!(f2.len(), 3);
    for (t, key) in f2.iter().enumerate() {
        assert_eq!(key.translation, [t as f32, 2.0, 100.0 * t as f32 + 2.0]);
    }
    assert_eq!(
        f2.as_ptr() as usize - view.keys().as_ptr() as usize,
        2 * 3 * 40
    );
    assert!(view.frame(5).is_none());
    assert_eq!(
        view.track_names().collect::<Vec<_>>(),
        ["root", "body", "arm"]
    );
}

#[test]
fn clip_writer_refuses_what_the_layout_cannot_hold() {
    let mut clip = sample_clip();
    clip.tracks[1].keyframes.pop();
    assert_eq!(
        write_clip(&clip),
        Err(WriteError::TrackLength {
            track: 1,
            count: 4,
            frame_count: 5
        })
    );
    let mut clip = sample_clip();
    clip.tracks[2].keyframes[3].time = 3.5;
    assert!(matches!(
        write_clip(&clip),
        Err(WriteError::TrackTimes {
            track: 2,
            frame: 3,
            ..
        })
    ));
}

#[test]
fn mesh_writer_refuses_what_the_layout_cannot_hold() {
    let (model, materials) = sample_model();
    let o = MeshOptions::default();
    let mut m = model.clone();
    m.bones[2].parent = 2;
    assert_eq!(
        write_mesh(&m, &materials, &o),
        Err(WriteError::BoneParent { bone: 2, parent: 2 })
    );
    let mut m = model.clone();
    m.meshes[0].indices[4] = 4;
    assert!(matches!(
        write_mesh(&m, &materials, &o),
        Err(WriteError::IndexOutOfRange {
            part: 0,
            index: 4,
            ..
        })
    ));
    let mut m = model.clone();
    m.meshes[1].vertices[0].blend_indices[1] = 1.5;
    assert!(matches!(
        write_mesh(&m, &materials, &o),
        Err(WriteError::BlendIndex {
            part: 1,
            vertex: 0,
            ..
        })
    ));
    // A joint index must be a whole number in 0..=65535 (a u16), and only that.
    for (j, whole) in [
        (0.5, false),
        (-1.0, false),
        (65535.5, false),
        (65536.0, false),
        (4_294_967_296.0, false),
        (f32::NAN, false),
        (f32::INFINITY, false),
        (-0.0, true),
        (1.0, true),
        (65535.0, true),
    ] {
        let mut m = model.clone();
        m.meshes[1].vertices[0].blend_indices[1] = j;
        let r = write_mesh(&m, &materials, &o);
        assert_eq!(r.is_ok(), whole, "blend index {j}: {:?}", r.err());
    }
    // Found by the property tests: finite values whose range overflows an f32 extent.
    let mut m = model.clone();
    m.meshes[0].vertices[0].position[1] = -3e38;
    m.meshes[0].vertices[1].position[1] = 3e38;
    let qp = MeshOptions {
        quantize: Quantize::AttributesAndPositions,
        ..Default::default()
    };
    assert_eq!(
        write_mesh(&m, &materials, &qp),
        Err(WriteError::QuantizationRange { what: "position" })
    );
    let mut m = model.clone();
    m.meshes[0].vertices[0].uv[0] = f32::NAN;
    assert!(
        write_mesh(&m, &materials, &o).is_ok(),
        "f32 streams hold NaN"
    );
    let q = MeshOptions {
        quantize: Quantize::Attributes,
        ..Default::default()
    };
    assert!(matches!(
        write_mesh(&m, &materials, &q),
        Err(WriteError::NotFinite { what: "uv", .. })
    ));
}

/// Writes `model` planned without its vertices, handing them over one attribute at a time;
/// the plan counts `extra` vertices more than part 0 has.
fn write_planned_counting(
    model: &Model,
    materials: &[MaterialData],
    extra: usize,
) -> std::io::Result<Vec<u8>> {
    let mut counts: Vec<usize> = model.meshes.iter().map(|m| m.vertices.len()).collect();
    counts[0] += extra;
    let mut lean = model.clone();
    lean.meshes.iter_mut().for_each(|m| m.vertices.clear());
    let plan = plan_mesh(&lean, &counts, materials, None).unwrap();
    let mut out = std::io::Cursor::new(Vec::new());
    plan.write_streams(&mut ModelStreams(model), &mut out)?;
    Ok(out.into_inner())
}

fn write_planned(model: &Model, materials: &[MaterialData]) -> std::io::Result<Vec<u8>> {
    write_planned_counting(model, materials, 0)
}

/// A source that holds positions and blend weights as written (each part's whole stream,
/// packed), lending the runs of at most `longest` vertices that start at a multiple of
/// `every` runs of the writer (65,536 vertices) and leaving the others to be filled (the
/// writer asks for a whole part first, then for its runs).
struct Held<'m> {
    model: ModelStreams<'m>,
    /// Each part's positions, then its blend weights.
    packed: Vec<[Vec<f32>; 2]>,
    every: usize,
    longest: usize,
    /// Runs lent.
    lent: AtomicUsize,
    /// Lends this many runs at most, then none (a source that changes its mind).
    at_most: usize,
}

impl<'m> Held<'m> {
    fn new(model: &'m Model, every: usize, longest: usize) -> Self {
        let streams = ModelStreams(model);
        let packed = (model.meshes.iter().enumerate())
            .map(|(k, part)| {
                [Attribute::Position, Attribute::BlendWeights].map(|a| {
                    let mut v = vec![0f32; part.vertices.len() * a.width()];
                    streams.fill(k, 0, a, &mut v);
                    v
                })
            })
            .collect();
        Held {
            model: streams,
            packed,
            every,
            longest,
            lent: AtomicUsize::new(0),
            at_most: usize::MAX,
        }
    }
}

impl StreamSource for Held<'_> {
    fn fill(&self, part: usize, start: usize, attribute: Attribute, out: &mut [f32]) -> usize {
        self.model.fill(part, start, attribute, out)
    }

    fn stream(&self, part: usize, start: usize, attribute: Attribute, n: usize) -> Option<&[f32]> {
        if !start.is_multiple_of(self.every * 65_536)
            || n > self.longest
            || self.lent.load(Ordering::Relaxed) >= self.at_most
        {
            return None;
        }
        let which = [Attribute::Position, Attribute::BlendWeights]
            .iter()
            .position(|&a| a == attribute)?;
        let w = attribute.width();
        let run = self.packed.get(part)?[which].get(start * w..(start + n) * w)?;
        self.lent.fetch_add(1, Ordering::Relaxed);
        Some(run)
    }

    fn release(&mut self, _: usize) {}
}

/// The blend-index error a planned write failed with, checked to be `write_mesh`'s for the
/// same model, and its part and vertex.
fn planned_blend_index_error(model: &Model, materials: &[MaterialData]) -> (usize, usize) {
    let e = write_planned(model, materials).unwrap_err();
    assert_eq!(e.kind(), std::io::ErrorKind::InvalidData);
    let why = e
        .get_ref()
        .and_then(|w| w.downcast_ref::<WriteError>())
        .unwrap();
    assert_eq!(
        why,
        &write_mesh(model, materials, &MeshOptions::default()).unwrap_err()
    );
    match why {
        WriteError::BlendIndex { part, vertex, .. } => (*part, *vertex),
        other => panic!("not a blend-index error: {other:?}"),
    }
}

#[test]
fn a_planned_mesh_is_checked_as_the_whole_one_and_its_joints_as_they_come() {
    let (model, materials) = sample_model();
    let o = MeshOptions::default();
    let whole = write_mesh(&model, &materials, &o).unwrap();
    assert_eq!(write_planned(&model, &materials).unwrap(), whole);
    // The model's own checks, before anything is written: the same errors.
    let mut m = model.clone();
    m.meshes[0].indices[4] = 4;
    let counts: Vec<usize> = m.meshes.iter().map(|p| p.vertices.len()).collect();
    assert_eq!(
        plan_mesh(&m, &counts, &materials, None).unwrap_err(),
        write_mesh(&m, &materials, &o).unwrap_err()
    );
    assert_eq!(
        plan_mesh(&m, &counts[1..], &materials, None).unwrap_err(),
        WriteError::VertexCounts {
            given: counts.len() - 1,
            parts: counts.len()
        }
    );
    // A blend index the layout cannot hold, found in the joints' stream.
    let mut m = model.clone();
    m.meshes[1].vertices[2].blend_indices[1] = 1.5;
    assert_eq!(planned_blend_index_error(&m, &materials), (1, 2));
    // A part longer than two runs of the writer (65,536 vertices): the streams go out in
    // three runs each, the second and third built beside the write before them (both at
    // least 8,192 vertices), and a bad blend index in the last run is found where it is.
    let mut long = model.clone();
    let v = long.meshes[0].vertices.clone();
    long.meshes[0].vertices = v.iter().cycle().take(140_000).copied().collect();
    long.meshes[0].indices = (0..139_998u32).collect();
    let whole_long = write_mesh(&long, &materials, &o).unwrap();
    assert_eq!(write_planned(&long, &materials).unwrap(), whole_long);
    // Hashed as it goes out (the runs built beside a write are hashed beside it too): the
    // checksum and the whole file's XXH3-128 of the bytes written.
    let counts: Vec<usize> = long.meshes.iter().map(|m| m.vertices.len()).collect();
    let mut lean = long.clone();
    lean.meshes.iter_mut().for_each(|m| m.vertices.clear());
    let plan = plan_mesh(&lean, &counts, &materials, None).unwrap();
    let mut out = std::io::Cursor::new(Vec::new());
    let (sum, hash) = plan
        .write_streams_hashed(&mut ModelStreams(&long), &mut out)
        .unwrap();
    assert!(out.get_ref() == &whole_long);
    assert_eq!(sum, kiln_format::kiln::checksum(&whole_long));
    assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(&whole_long));
    // From a source that holds some runs as written (`StreamSource::stream`): the same file
    // and hashes, whether a held run comes before or after a built one, beside its write
    // (the long part's runs of 65,536) or in turn (the small model).
    for m in [&long, &model] {
        let counts: Vec<usize> = m.meshes.iter().map(|p| p.vertices.len()).collect();
        let mut lean = m.clone();
        lean.meshes.iter_mut().for_each(|p| p.vertices.clear());
        let plan = plan_mesh(&lean, &counts, &materials, None).unwrap();
        let whole = write_mesh(m, &materials, &o).unwrap();
        for (every, longest) in [(1, usize::MAX), (1, 65_536), (2, 65_536)] {
            let mut source = Held::new(m, every, longest);
            let mut out = std::io::Cursor::new(Vec::new());
            let (sum, hash) = plan.write_streams_hashed(&mut source, &mut out).unwrap();
            assert!(
                out.get_ref() == &whole,
                "held runs every {every}, {longest} long"
            );
            assert_eq!(sum, kiln_format::kiln::checksum(&whole));
            assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(&whole));
            assert!(source.lent.load(Ordering::Relaxed) > 0, "no run was held");
        }
        // A source that lends a run when the runs are laid out, then not when it is written:
        // refused, naming the part (not read past the run buffer, which is shorter than a
        // whole part).
        let mut fickle = Held::new(m, 1, usize::MAX);
        fickle.at_most = 1;
        let e = plan
            .write_streams_hashed(&mut fickle, &mut std::io::Cursor::new(Vec::new()))
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
        assert_eq!(
            e.to_string(),
            "mesh 0: vertices 0.. of Position no longer held"
        );
    }
    // A write that fails part way (a full disk) is the error the writer got, in a file
    // written by its own thread (more than 1 MiB) and in a small one written in turn.
    struct FailsAfter(std::io::Cursor<Vec<u8>>, usize);
    impl std::io::Write for FailsAfter {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            if self.0.get_ref().len() + b.len() > self.1 {
                return Err(std::io::Error::other("disk full"));
            }
            self.0.write(b)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    impl std::io::Seek for FailsAfter {
        fn seek(&mut self, to: std::io::SeekFrom) -> std::io::Result<u64> {
            self.0.seek(to)
        }
    }
    for (m, limit) in [(&long, 2 << 20), (&model, 300)] {
        let counts: Vec<usize> = m.meshes.iter().map(|p| p.vertices.len()).collect();
        let mut lean = m.clone();
        lean.meshes.iter_mut().for_each(|p| p.vertices.clear());
        let plan = plan_mesh(&lean, &counts, &materials, None).unwrap();
        let mut out = FailsAfter(std::io::Cursor::new(Vec::new()), limit);
        let e = plan
            .write_streams_hashed(&mut ModelStreams(m), &mut out)
            .unwrap_err();
        assert_eq!(e.to_string(), "disk full");
    }
    long.meshes[0].vertices[135_000].blend_indices[3] = -1.0;
    assert_eq!(planned_blend_index_error(&long, &materials), (0, 135_000));
    // A source with fewer vertices than the plan counts: an error naming the part, in a
    // single run and in a later one.
    for (m, have) in [(&model, model.meshes[0].vertices.len()), (&long, 140_000)] {
        let e = write_planned_counting(m, &materials, 3).unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput, "{e}");
        let want = format!("mesh 0: {have} of its {} vertices handed over", have + 3);
        assert_eq!(e.to_string(), want);
    }
}

// ---------------------------------------------------------------------------------------------
// One mutation per error variant.

#[test]
fn wrong_magic_and_wrong_file_type() {
    let b = mesh_bytes();
    assert!(matches!(
        mesh_err(&patch(&b, 0, b"KILNMESX")),
        LayoutError::BadMagic { offset: 0, .. }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, 0, b"KILNCLIP")),
        LayoutError::WrongFileType { found: ".clip", .. }
    ));
    // A classic file is not a kiln file.
    let (model, _) = sample_model();
    let classic = AlignedBytes::from_bytes(&kiln_format::classic::write_mesh(&model));
    assert!(matches!(mesh_err(&classic), LayoutError::BadMagic { .. }));
}

#[test]
fn newer_major_is_refused_newer_minor_is_read() {
    let b = mesh_bytes();
    assert_eq!(
        mesh_err(&patch(&b, 16, &2u16.to_le_bytes())),
        LayoutError::UnsupportedVersion {
            offset: 16,
            major: 2,
            minor: 0,
            supported: 1
        }
    );
    let newer_minor = patch(&b, 18, &7u16.to_le_bytes());
    assert_eq!(MeshView::parse(&newer_minor).unwrap().version(), (1, 7));
}

#[test]
fn file_size_and_truncation() {
    let b = mesh_bytes();
    let cut = AlignedBytes::from_bytes(&b[..b.len() - 1]);
    assert!(matches!(
        mesh_err(&cut),
        LayoutError::FileSizeMismatch { offset: 24, .. }
    ));
    let short = AlignedBytes::from_bytes(&b[..20]);
    assert!(matches!(
        mesh_err(&short),
        LayoutError::Truncated { needed: 32, .. }
    ));
    // A section count whose table does not fit.
    assert!(matches!(
        mesh_err(&patch(&b, 20, &1000u32.to_le_bytes())),
        LayoutError::Truncated {
            what: "section table",
            ..
        }
    ));
}

#[test]
fn misaligned_overlapping_and_out_of_bounds_sections() {
    let b = mesh_bytes();
    let (entry, off) = section(&b, kind::PARTS);
    assert_eq!(
        mesh_err(&patch(&b, entry + 8, &(off as u64 + 4).to_le_bytes())),
        LayoutError::SectionMisaligned {
            offset: entry + 8,
            kind: kiln_format::kiln::Kind(kind::PARTS),
            start: off as u64 + 4
        }
    );
    let (_, bones_off) = section(&b, kind::BONES);
    assert!(matches!(
        mesh_err(&patch(&b, entry + 8, &(bones_off as u64).to_le_bytes())),
        LayoutError::SectionOverlap { offset, .. } if offset == entry + 8
    ));
    // The first section moved into the table.
    assert!(matches!(
        mesh_err(&patch(&b, 32 + 8, &32u64.to_le_bytes())),
        LayoutError::SectionOverlap { offset: 40, .. }
    ));
    let (last, _) = section(&b, kind::STRINGS);
    assert!(matches!(
        mesh_err(&patch(&b, last + 8, &(b.len().div_ceil(16) as u64 * 16 + 16).to_le_bytes())),
        LayoutError::SectionOutOfBounds { offset, .. } if offset == last + 8
    ));
    assert!(matches!(
        mesh_err(&patch(&b, last + 8, &(u64::MAX - 15).to_le_bytes())),
        LayoutError::SectionOutOfBounds { .. }
    ));
}

#[test]
fn overflowing_and_inconsistent_counts() {
    let b = mesh_bytes();
    let (entry, _) = section(&b, kind::BONES);
    assert!(matches!(
        mesh_err(&patch(&b, entry + 28, &u32::MAX.to_le_bytes())),
        LayoutError::CountOverflow {
            count: 4294967295,
            element_size: 144,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, entry + 28, &2u32.to_le_bytes())),
        LayoutError::LengthMismatch { count: 2, .. }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, entry + 24, &128u32.to_le_bytes())),
        LayoutError::ElementSizeMismatch {
            found: 128,
            expected: 144,
            ..
        }
    ));
    // A normal stream one vertex short (count and length both edited).
    let (n_entry, _) = section(&b, kind::NORMALS_F32);
    let short = patch(
        &patch(&b, n_entry + 28, &6u32.to_le_bytes()),
        n_entry + 16,
        &72u64.to_le_bytes(),
    );
    assert!(matches!(
        mesh_err(&short),
        LayoutError::CountMismatch {
            count: 6,
            expected: 7,
            ..
        }
    ));
}

#[test]
fn duplicate_missing_and_unknown_sections() {
    let b = mesh_bytes();
    let (t_entry, _) = section(&b, kind::TANGENTS_F32);
    // Tangents relabelled as normals: a second normal stream, and no tangents.
    assert!(matches!(
        mesh_err(&patch(&b, t_entry, &kind::NORMALS_F32.to_le_bytes())),
        LayoutError::DuplicateSection { offset, .. } if offset == t_entry
    ));
    // An unknown kind is skipped; then tangents are missing.
    assert!(matches!(
        mesh_err(&patch(&b, t_entry, &0x7777u32.to_le_bytes())),
        LayoutError::MissingSection {
            kind: kiln_format::kiln::Kind(kind::TANGENTS_F32),
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, t_entry, &0x8000_7777u32.to_le_bytes())),
        LayoutError::UnknownRequiredSection { .. }
    ));
}

#[test]
fn an_unknown_section_is_skipped() {
    // Append an unknown section (kind 0x7777, 16 bytes) after the last one: the table grows by
    // one entry, so every offset moves by 32 (already a multiple of 16).
    let b = mesh_bytes();
    let n = u32_at(&b, 20) as usize;
    let mut v = Vec::new();
    v.extend_from_slice(&b[..32 + 32 * n]);
    v.extend_from_slice(&[0u8; 32]);
    v.extend_from_slice(&b[32 + 32 * n..]);
    for i in 0..n {
        let e = 32 + 32 * i + 8;
        let off = u64_at(&v, e) + 32;
        v[e..e + 8].copy_from_slice(&off.to_le_bytes());
    }
    let start = v.len().div_ceil(16) * 16;
    let e = 32 + 32 * n;
    v[e..e + 4].copy_from_slice(&0x7777u32.to_le_bytes());
    v[e + 8..e + 16].copy_from_slice(&(start as u64).to_le_bytes());
    v[e + 16..e + 24].copy_from_slice(&16u64.to_le_bytes());
    v[e + 24..e + 28].copy_from_slice(&1u32.to_le_bytes());
    v[e + 28..e + 32].copy_from_slice(&16u32.to_le_bytes());
    v.resize(start + 16, 0xAB);
    v[20..24].copy_from_slice(&(n as u32 + 1).to_le_bytes());
    let len = v.len() as u64;
    v[24..32].copy_from_slice(&len.to_le_bytes());
    let sum = kiln_format::kiln::checksum(&v);
    v[8..16].copy_from_slice(&sum.to_le_bytes());
    let b2 = AlignedBytes::from_bytes(&v);
    let view = MeshView::parse(&b2).unwrap();
    view.verify_checksum().unwrap();
    assert_eq!(view.to_model(), sample_model().0);
    assert_eq!(view.sections().last().unwrap().kind, 0x7777);
}

#[test]
fn index_past_vertex_count() {
    let b = mesh_bytes();
    let (_, idx) = section(&b, kind::INDICES_U16);
    // Part 1 (3 vertices) has its indices at 6..9; index 8 := 3.
    let bad = patch(&b, idx + 8 * 2, &3u16.to_le_bytes());
    assert_eq!(
        mesh_err(&bad),
        LayoutError::IndexOutOfRange {
            offset: idx + 16,
            part: 1,
            index: 3,
            vertex_count: 3
        }
    );
}

#[test]
fn bone_parents_cycles_and_forward_references() {
    let b = mesh_bytes();
    let (_, bones) = section(&b, kind::BONES);
    let parent = |i: usize| bones + 144 * i;
    assert_eq!(
        mesh_err(&patch(&b, parent(1), &1i32.to_le_bytes())),
        LayoutError::BoneParentCycle {
            offset: parent(1),
            bone: 1,
            parent: 1
        }
    );
    // 0 -> 2 -> 1 -> 0.
    let cycle = patch(&b, parent(0), &2i32.to_le_bytes());
    assert_eq!(
        mesh_err(&cycle),
        LayoutError::BoneParentCycle {
            offset: parent(0),
            bone: 0,
            parent: 2
        }
    );
    // Bone 1 -> 2 -> -1 (2 made a root): forward, no cycle.
    let forward = patch(
        &patch(&b, parent(2), &(-1i32).to_le_bytes()),
        parent(1),
        &2i32.to_le_bytes(),
    );
    assert_eq!(
        mesh_err(&forward),
        LayoutError::BoneParentForward {
            offset: parent(1),
            bone: 1,
            parent: 2
        }
    );
    assert!(matches!(
        mesh_err(&patch(&b, parent(2), &3i32.to_le_bytes())),
        LayoutError::BoneParentOutOfRange {
            parent: 3,
            bone_count: 3,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, parent(2), &(-2i32).to_le_bytes())),
        LayoutError::BoneParentOutOfRange { parent: -2, .. }
    ));
}

#[test]
fn names_must_be_utf8_and_inside_the_table() {
    let b = mesh_bytes();
    let (_, strings) = section(&b, kind::STRINGS);
    assert_eq!(
        mesh_err(&patch(&b, strings + 1, &[0xFF])),
        LayoutError::InvalidUtf8 {
            offset: strings + 1
        }
    );
    // "arm ✋": a reference that ends inside the 3-byte ✋.
    let (_, bones) = section(&b, kind::BONES);
    let name = bones + 2 * 144 + 4;
    let (start, len) = (u32_at(&b, name), u32_at(&b, name + 4));
    assert_eq!(len, 7);
    assert_eq!(
        mesh_err(&patch(&b, name + 4, &5u32.to_le_bytes())),
        LayoutError::InvalidUtf8 {
            offset: strings + start as usize + 5
        }
    );
    assert!(matches!(
        mesh_err(&patch(&b, name, &u32::MAX.to_le_bytes())),
        LayoutError::StringOutOfBounds { offset, .. } if offset == name
    ));
}

#[test]
fn part_and_material_references() {
    let b = mesh_bytes();
    let (_, parts) = section(&b, kind::PARTS);
    let p1 = parts + 48;
    assert!(matches!(
        mesh_err(&patch(&b, p1 + 16, &3i32.to_le_bytes())),
        LayoutError::PartBoneOutOfRange {
            part: 1,
            bone: 3,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, p1 + 20, &2u32.to_le_bytes())),
        LayoutError::ReferenceOutOfRange {
            what: "material",
            index: 2,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, p1 + 24, &3u32.to_le_bytes())),
        LayoutError::PartRange {
            what: "vertex",
            first: 3,
            expected: 4,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, p1 + 28, &4u32.to_le_bytes())),
        LayoutError::PartRange { what: "vertex", .. }
    ));
    // Part 1 shrunk to 2 vertices, its index 2 made 1: one vertex left uncovered.
    let (_, idx) = section(&b, kind::INDICES_U16);
    let shrunk = patch(
        &patch(&b, p1 + 28, &2u32.to_le_bytes()),
        idx + 12,
        &1u16.to_le_bytes(),
    );
    assert!(matches!(
        mesh_err(&shrunk),
        LayoutError::PartsIncomplete {
            what: "vertices",
            covered: 6,
            total: 7,
            ..
        }
    ));
    assert!(matches!(
        mesh_err(&patch(&b, p1 + 36, &2u32.to_le_bytes())),
        LayoutError::NotTriangles {
            part: 1,
            index_count: 2,
            ..
        }
    ));
    let (_, materials) = section(&b, kind::MATERIALS);
    assert!(matches!(
        mesh_err(&patch(&b, materials + 8, &9u32.to_le_bytes())),
        LayoutError::ReferenceOutOfRange {
            what: "texture",
            index: 9,
            count: 2,
            ..
        }
    ));
}

#[test]
fn checksum_is_separate_and_catches_a_flipped_vertex() {
    let b = mesh_bytes();
    let (_, pos) = section(&b, kind::POSITIONS_F32);
    let flipped = patch(&b, pos + 5, &[b[pos + 5] ^ 0x10]);
    let view = MeshView::parse(&flipped).expect("vertex data is not validated by parse");
    assert!(matches!(
        view.verify_checksum(),
        Err(LayoutError::ChecksumMismatch { .. })
    ));
}

#[test]
fn joints_are_checked_on_request() {
    let b = mesh_bytes();
    let (_, joints) = section(&b, kind::JOINTS_U16);
    let bad = patch(&b, joints + 8 * 3, &9u16.to_le_bytes());
    let view = MeshView::parse(&bad).unwrap();
    assert_eq!(
        view.check_joints(),
        Err(LayoutError::JointOutOfRange {
            offset: joints + 24,
            vertex: 3,
            joint: 9,
            bone_count: 3
        })
    );
}

#[test]
fn misaligned_buffer_is_an_error_not_a_panic() {
    let b = mesh_bytes();
    let mut v = vec![0u8; b.len() + 1];
    v[1..].copy_from_slice(&b);
    let aligned = AlignedBytes::from_bytes(&v);
    assert!(matches!(
        MeshView::parse(&aligned[1..]),
        Err(LayoutError::BufferMisaligned { address_mod_4: 1 })
    ));
}

#[test]
fn clip_errors() {
    let b = AlignedBytes::from_bytes(&write_clip(&sample_clip()).unwrap());
    let err = |b: &AlignedBytes| ClipView::parse(b).expect_err("refused");
    assert!(matches!(
        err(&patch(&b, 0, b"KILNMESH")),
        LayoutError::WrongFileType { found: ".mesh", .. }
    ));
    let (_, info) = section(&b, kind::CLIP);
    // frame_count 6 while FRAME_TIMES holds 5.
    assert!(matches!(
        err(&patch(&b, info + 16, &6u32.to_le_bytes())),
        LayoutError::CountMismatch {
            count: 5,
            expected: 6,
            ..
        }
    ));
    let (keys_entry, _) = section(&b, kind::KEYS);
    assert!(matches!(
        err(&patch(&b, keys_entry + 28, &u32::MAX.to_le_bytes())),
        LayoutError::CountOverflow {
            element_size: 40,
            ..
        }
    ));
    let (_, strings) = section(&b, kind::STRINGS);
    assert!(matches!(
        err(&patch(&b, strings, &[0xC0])),
        LayoutError::InvalidUtf8 { .. }
    ));
}

/// The streamed file is the in-memory one, byte for byte, quantised or not, and a writer's
/// error comes back.
#[cfg(feature = "std")]
#[test]
fn streamed_mesh_is_the_same_bytes() {
    let (model, materials) = sample_model();
    for quantize in QUANTIZE_MODES {
        let options = MeshOptions {
            quantize,
            ..MeshOptions::default()
        };
        let file = kiln_format::kiln::encode_mesh(&model, &materials, &options).unwrap();
        let mut streamed = Vec::new();
        file.write_to(&mut streamed).unwrap();
        assert_eq!(streamed.len(), file.len());
        let bytes = write_mesh(&model, &materials, &options).unwrap();
        assert_eq!(streamed, bytes, "{quantize:?}");
        assert_eq!(file.into_bytes(), bytes);
        kiln_format::kiln::verify_checksum(&streamed).unwrap();
    }
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("broken pipe"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let file = kiln_format::kiln::encode_mesh(&model, &materials, &MeshOptions::default()).unwrap();
    assert_eq!(
        file.write_to(&mut Broken).unwrap_err().to_string(),
        "broken pipe"
    );
}

/// Taking the vertices (freeing each part's once its streams are encoded) gives the same
/// bytes, leaves every part without vertices and the rest of the model as it was, and still
/// refuses a bad model (its vertices gone all the same).
#[test]
fn taking_the_vertices_gives_the_same_bytes_and_frees_them() {
    use kiln_format::kiln::encode_mesh_taking_vertices;
    let (model, materials) = sample_model();
    assert!(model.meshes.len() > 1 && model.meshes.iter().all(|m| !m.vertices.is_empty()));
    for quantize in QUANTIZE_MODES {
        let options = MeshOptions {
            quantize,
            ..MeshOptions::default()
        };
        let mut taken = model.clone();
        let file = encode_mesh_taking_vertices(&mut taken, &materials, &options).unwrap();
        assert_eq!(
            file.into_bytes(),
            write_mesh(&model, &materials, &options).unwrap(),
            "{quantize:?}"
        );
        assert!(
            taken
                .meshes
                .iter()
                .all(|m| m.vertices.is_empty() && m.vertices.capacity() == 0)
        );
        for (t, m) in taken.meshes.iter_mut().zip(&model.meshes) {
            t.vertices = m.vertices.clone();
        }
        assert_eq!(taken, model);
    }
    let mut bad = model.clone();
    let n = bad.meshes[1].vertices.len() as u32;
    bad.meshes[1].indices[0] = n;
    let expected = write_mesh(&bad, &materials, &MeshOptions::default()).unwrap_err();
    let got =
        encode_mesh_taking_vertices(&mut bad, &materials, &MeshOptions::default()).unwrap_err();
    assert_eq!(got, expected);
    assert!(matches!(got, WriteError::IndexOutOfRange { part: 1, .. }));
    assert!(bad.meshes.iter().all(|m| m.vertices.is_empty()));
}

/// The pieces a caller writes and hashes on its own (as `kiln convert` does, the checksum on
/// another thread): the pieces are the file, the checksum is the header's, and the file
/// written with a zero checksum differs from it in those 8 bytes only.
#[test]
fn a_mesh_written_in_pieces_with_its_checksum_put_in_later_is_the_file() {
    let (model, materials) = sample_model();
    for quantize in QUANTIZE_MODES {
        let options = MeshOptions {
            quantize,
            ..MeshOptions::default()
        };
        let whole = write_mesh(&model, &materials, &options).unwrap();
        let file = kiln_format::kiln::encode_mesh(&model, &materials, &options).unwrap();
        let sum = file.checksum();
        assert_eq!(sum, u64_at(&whole, spec::CHECKSUM_OFFSET));
        let mut pieces = Vec::new();
        file.for_each_piece(sum, |p| pieces.extend_from_slice(p));
        assert_eq!(pieces, whole);
        let mut zeroed = Vec::new();
        file.write_with_checksum_to(0, &mut zeroed).unwrap();
        assert_eq!(zeroed.len(), file.len());
        assert_eq!(u64_at(&zeroed, spec::CHECKSUM_OFFSET), 0);
        zeroed[spec::CHECKSUM_OFFSET..spec::CHECKSUM_START].copy_from_slice(&sum.to_le_bytes());
        assert_eq!(zeroed, whole);
        let mut streamed = Vec::new();
        file.write_to(&mut streamed).unwrap();
        assert_eq!(streamed, whole);
    }
}

/// A long part's blend indices are checked in halves (on rayon's threads with `parallel`): the
/// error is still the first bad vertex in order and its first bad index, wherever the halves
/// split, and a long part with none passes.
#[test]
fn a_long_parts_first_bad_blend_index_is_the_one_reported() {
    let (mut model, materials) = sample_model();
    let n = 300_000;
    model.meshes[1].vertices = (0..n).map(vertex).collect();
    model.meshes[1].indices = vec![0, 1, 2];
    let o = MeshOptions::default();
    assert!(write_mesh(&model, &materials, &o).is_ok());
    for bad in [
        [n - 1].as_slice(),
        &[n / 2 + 1, n - 5],
        &[7, n / 2 + 3],
        &[65_537, 65_536],
    ] {
        let mut m = model.clone();
        for (k, &v) in bad.iter().enumerate() {
            m.meshes[1].vertices[v].blend_indices[2 + k % 2] = -1.0 - k as f32;
            m.meshes[1].vertices[v].blend_indices[3] = 0.5;
        }
        let first = *bad.iter().min().unwrap();
        let k = bad.iter().position(|&v| v == first).unwrap();
        let expected = if k % 2 == 0 { -1.0 - k as f32 } else { 0.5 };
        assert_eq!(
            write_mesh(&m, &materials, &o),
            Err(WriteError::BlendIndex {
                part: 1,
                vertex: first,
                value: expected,
            }),
            "{bad:?}"
        );
    }
}
