//! The C reader `include/kiln.h` (written from `docs/format.md`) compiled with the system C
//! compiler (`cc`) and run on files kiln writes: it must find the same counts, names, decoded
//! vertex data (hashed bit for bit), clip keys, 1.1 morph targets (every offset, `f32` or
//! snorm16, decoded bit for bit) and weight tracks, and checksums as `kiln-format`, compute the
//! same XXH3-64, and refuse corrupted files (1.0 and 1.1) with the same error at the same
//! offset, without crashing.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kiln_format::kiln::quantize::snorm16_max_error;
use kiln_format::kiln::spec::{SHAPE_POSITION_SCALE_FIELD, kind};
use kiln_format::kiln::{
    AlignedBytes, ClipView, LayoutError, MeshOptions, MeshView, Quantize, checksum, write_clip,
    write_mesh,
};
use kiln_format::{
    Bone, Clip, IDENTITY, Keyframe, MaterialData, MeshPart, Model, MorphShape, MorphTarget, Track,
    Vertex, WeightTrack,
};
use kiln_testkit::process::{Limits, compile_c, run_limited};

fn tmp() -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiln-c-reader");
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// Compiles the reader once.
fn reader() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let exe = tmp().join("read_kiln");
        let mut cc = Command::new("cc");
        cc.args([
            "-std=c99",
            "-O2",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
            "-ffp-contract=off",
        ])
        .arg("-I")
        .arg(root.join("../../include"))
        .arg(root.join("tests/c/read_kiln.c"))
        .arg("-o")
        .arg(&exe)
        .arg("-lm");
        compile_c(&mut cc);
        exe
    })
}

/// Runs the reader on files; returns its output per file (and the XXH3 lines separately).
fn run(files: &[(&str, &[u8])]) -> (Vec<String>, String) {
    let dir = tmp();
    let paths: Vec<PathBuf> = files
        .iter()
        .map(|(name, bytes)| {
            let p = dir.join(name);
            std::fs::write(&p, bytes).unwrap();
            p
        })
        .collect();
    let mut cmd = Command::new(reader());
    cmd.args(&paths);
    let out = run_limited(&mut cmd, Limits::C_PROGRAM).unwrap_or_else(|e| panic!("read_kiln: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stdout)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let mut per_file = Vec::new();
    let mut xxh = String::new();
    for line in text.lines() {
        if line.starts_with("file ") {
            per_file.push(String::new());
        } else if line.starts_with("xxh3 ") {
            xxh.push_str(line);
            xxh.push('\n');
        } else if let Some(cur) = per_file.last_mut() {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    assert_eq!(per_file.len(), files.len());
    (per_file, xxh)
}

struct Fnv(u64);
impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf29ce484222325)
    }
    fn add(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= b as u64;
            self.0 = self.0.wrapping_mul(0x100000001b3);
        }
    }
    fn floats(&mut self, v: &[f32]) {
        for f in v {
            self.add(&f.to_le_bytes());
        }
    }
}

/// What the C reader must print for a mesh, computed with kiln-format.
fn expected_mesh(bytes: &[u8]) -> String {
    let b = AlignedBytes::from_bytes(bytes);
    let v = match MeshView::parse(&b) {
        Ok(v) => v,
        Err(e) => return expected_error(&e),
    };
    let mut s = String::new();
    let (major, minor) = v.version();
    s += &format!("mesh {major}.{minor} sections {}\n", v.sections().count());
    s += &format!("bones {}\n", v.bone_records().len());
    for b in v.bones() {
        s += &format!(
            "bone {} {} {} {:08x} {:08x}\n",
            b.index,
            b.parent,
            b.name,
            b.bind[13].to_bits(),
            b.offset[13].to_bits()
        );
    }
    s += &format!("parts {}\n", v.part_records().len());
    for p in v.parts() {
        s += &format!(
            "part {} {} {} {} {} {} {} {}\n",
            p.index,
            p.name,
            p.material_name,
            p.bone,
            p.vertices.start,
            p.vertices.len(),
            p.indices.start,
            p.indices.len()
        );
    }
    s += &format!("materials {}\n", v.material_records().len());
    for (i, m) in v.materials().enumerate() {
        s += &format!(
            "material {i} {} diffuse={} specular={} normal={}\n",
            m.name,
            m.diffuse_texture.unwrap_or(""),
            m.specular_texture.unwrap_or(""),
            m.normal_texture.unwrap_or("")
        );
    }
    s += &format!(
        "vertices {}\nindices {}\n",
        v.vertex_count(),
        v.index_count()
    );
    let mut h = Fnv::new();
    for i in 0..v.vertex_count() {
        h.floats(&v.positions().get(i).unwrap());
        h.floats(&v.normals().get(i).unwrap());
        h.floats(&v.tangents().get(i).unwrap());
        h.floats(&v.uvs().get(i).unwrap());
        for j in v.joints()[i] {
            h.add(&j.to_le_bytes());
        }
        h.floats(&v.weights().get(i).unwrap());
    }
    for i in 0..v.index_count() {
        h.add(&v.indices().get(i).unwrap().to_le_bytes());
    }
    s += &format!("vertex_hash {:016x}\n", h.0);
    s += &expected_morphs(&v);
    s += &format!(
        "checksum {}\n",
        if v.verify_checksum().is_ok() {
            "ok"
        } else {
            "bad"
        }
    );
    s
}

/// The 1.1 morph lines of `read_kiln.c`: every record, and every offset decoded.
fn expected_morphs(v: &MeshView<'_>) -> String {
    let has = |k| v.sections().any(|s| s.kind == k);
    if !has(kind::MORPH_TARGETS) {
        return "morphs none\n".into();
    }
    let encoding = |f32_kind| if has(f32_kind) { "f32" } else { "snorm16" };
    let targets = v.morph_target_records();
    let shapes = v.morph_shape_records();
    let offsets = v
        .sections()
        .find(|s| s.kind == kind::MORPH_VERTICES)
        .map_or(0, |s| s.count);
    let mut s = format!(
        "morphs {} {} {offsets} {} {}\n",
        targets.len(),
        shapes.len(),
        encoding(kind::MORPH_POSITIONS_F32),
        encoding(kind::MORPH_NORMALS_F32)
    );
    for p in 0..v.part_records().len() as u32 {
        let first = targets.partition_point(|t| t.part < p);
        s += &format!(
            "part_targets {p} {first} {}\n",
            v.part_morph_targets(p).len()
        );
    }
    for (i, t) in targets.iter().enumerate() {
        s += &format!(
            "target {i} {} {} {:08x} {} {}\n",
            t.part,
            v.string(t.name),
            t.default_weight.to_bits(),
            t.first_shape,
            t.shape_count
        );
    }
    for (i, sh) in shapes.iter().enumerate() {
        s += &format!(
            "shape {i} {} {:08x} {} {} {} {:08x} {:08x}\n",
            v.string(sh.name),
            sh.full_weight.to_bits(),
            sh.flags,
            sh.first_offset,
            sh.offset_count,
            sh.reserved[0],
            sh.reserved[1]
        );
        let (p, n) = (v.shape_position_offsets(sh), v.shape_normal_offsets(sh));
        for (j, vertex) in v.shape_vertices(sh).iter().enumerate() {
            let (p, n) = (p.get(j).unwrap(), n.get(j).unwrap());
            s += &format!(
                "offset {i} {j} {vertex} {:08x} {:08x} {:08x} {:08x} {:08x} {:08x}\n",
                p[0].to_bits(),
                p[1].to_bits(),
                p[2].to_bits(),
                n[0].to_bits(),
                n[1].to_bits(),
                n[2].to_bits()
            );
        }
    }
    s
}

/// The offsets the C reader printed: (shape, vertex, position offset, normal offset).
fn c_offsets(out: &str) -> Vec<(usize, u32, [f32; 3], [f32; 3])> {
    out.lines()
        .filter_map(|l| l.strip_prefix("offset "))
        .map(|l| {
            let w: Vec<&str> = l.split(' ').collect();
            let f = |i: usize| f32::from_bits(u32::from_str_radix(w[i], 16).unwrap());
            (
                w[0].parse().unwrap(),
                w[2].parse().unwrap(),
                [f(3), f(4), f(5)],
                [f(6), f(7), f(8)],
            )
        })
        .collect()
}

fn expected_clip(bytes: &[u8]) -> String {
    let b = AlignedBytes::from_bytes(bytes);
    let v = match ClipView::parse(&b) {
        Ok(v) => v,
        Err(e) => return expected_error(&e),
    };
    let mut s = format!(
        "clip {} frames {} tracks {} rate {:08x}\n",
        v.name(),
        v.frame_count(),
        v.track_count(),
        v.frame_rate().to_bits()
    );
    for (i, name) in v.track_names().enumerate() {
        s += &format!("track {i} {name}\n");
    }
    let mut h = Fnv::new();
    h.floats(v.times());
    h.add(bytemuck::cast_slice(v.keys()));
    s += &format!("key_hash {:016x}\n", h.0);
    s += &format!("weight_tracks {}\n", v.weight_track_records().len());
    for (i, w) in v.weight_track_records().iter().enumerate() {
        s += &format!("weight_track {i} {} {}", w.part, w.target);
        for f in 0..v.frame_count() as usize {
            s += &format!(" {:08x}", v.weight(f, i).unwrap().to_bits());
        }
        s += "\n";
    }
    s += &format!(
        "checksum {}\n",
        if v.verify_checksum().is_ok() {
            "ok"
        } else {
            "bad"
        }
    );
    s
}

/// The C reader's error code for a kiln-format error (the order of `kiln_result`).
fn code(e: &LayoutError) -> i32 {
    use LayoutError::*;
    match e {
        BufferMisaligned { .. } => 1,
        Truncated { .. } => 2,
        BadMagic { .. } => 3,
        WrongFileType { .. } => 4,
        UnsupportedVersion { .. } => 5,
        FileSizeMismatch { .. } => 6,
        ElementSizeMismatch { .. } => 7,
        UnknownRequiredSection { .. } => 8,
        CountOverflow { .. } => 9,
        LengthMismatch { .. } => 10,
        SectionMisaligned { .. } => 11,
        SectionOverlap { .. } => 12,
        SectionOutOfBounds { .. } => 13,
        DuplicateSection { .. } => 14,
        MissingSection { .. } => 15,
        InvalidUtf8 { .. } => 16,
        StringOutOfBounds { .. } => 17,
        CountMismatch { .. } => 18,
        BadQuantization { .. } => 19,
        BoneParentOutOfRange { .. } => 20,
        BoneParentCycle { .. } => 21,
        BoneParentForward { .. } => 22,
        PartBoneOutOfRange { .. } => 23,
        ReferenceOutOfRange { .. } => 24,
        PartRange { .. } => 25,
        PartsIncomplete { .. } => 26,
        NotTriangles { .. } => 27,
        IndexOutOfRange { .. } => 28,
        ChecksumMismatch { .. } => 29,
        BadMorph { .. } => 30,
        _ => -1,
    }
}

fn expected_error(e: &LayoutError) -> String {
    format!("error {} {}", code(e), e.offset())
}

/// The C output with the error message dropped (only code and offset are compared).
fn strip_message(s: &str) -> String {
    if s.starts_with("error ") {
        s.split_whitespace().take(3).collect::<Vec<_>>().join(" ")
    } else {
        s.to_string()
    }
}

fn model(vertices_per_part: usize) -> (Model, Vec<MaterialData>) {
    let v = |i: usize| {
        let f = i as f32;
        Vertex {
            position: [f * 0.37 - 3.0, (f * 0.11).sin() * 2.0, f * -0.05],
            uv: [(f * 0.013) % 1.0, 1.0 - (f * 0.007) % 1.0],
            normal: [(f * 0.3).cos(), 0.2, (f * 0.3).sin()],
            tangent: [-(f * 0.3).sin(), 0.0, (f * 0.3).cos()],
            blend_indices: [(i % 3) as f32, ((i + 1) % 3) as f32, 0.0, 0.0],
            blend_weights: [0.6, 0.4, 0.0, 0.0],
        }
    };
    let tri = |n: usize| -> Vec<u32> {
        (0..n.saturating_sub(2))
            .flat_map(|i| [i as u32, i as u32 + 1, i as u32 + 2])
            .collect()
    };
    let mut t = IDENTITY;
    t[13] = 1.25;
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
            name: "spine".into(),
            transform: t,
        },
        Bone {
            index: 2,
            parent: 1,
            name: "hand ✋".into(),
            transform: t,
        },
    ];
    let shape = |name: &str, full_weight, vertices: Vec<u32>, positions, normals| MorphShape {
        name: name.into(),
        full_weight,
        vertices,
        positions,
        normals,
    };
    // 1.1 morph targets (needs at least 12 vertices in the body): plain and in-between
    // shapes, with and without normal offsets, one that moves nothing.
    let meshes = vec![
        MeshPart {
            name: "body".into(),
            vertices: (0..vertices_per_part).map(v).collect(),
            indices: tri(vertices_per_part),
            bone_index: 1,
            material_name: "skin".into(),
            morph_targets: vec![MorphTarget {
                name: "breathe".into(),
                default_weight: 0.0,
                shapes: vec![shape(
                    "breathe",
                    1.0,
                    vec![2, 5, 11],
                    vec![[0.0, 0.01, 0.0], [0.0, 0.02, 0.005], [-0.013, 0.0, 0.0]],
                    vec![[0.0, 0.0, 0.1], [0.05, 0.0, 0.0], [0.0, -0.2, 0.03]],
                )],
            }],
        },
        MeshPart {
            name: "hand ✋".into(),
            vertices: (0..5).map(v).collect(),
            indices: tri(5),
            bone_index: 2,
            material_name: "nowhere".into(),
            morph_targets: vec![
                MorphTarget {
                    name: "fist".into(),
                    default_weight: 0.25,
                    shapes: vec![shape(
                        "fist",
                        1.0,
                        vec![1, 3],
                        vec![[0.0, 0.5, 0.0], [0.25, 0.0, 0.0]],
                        Vec::new(),
                    )],
                },
                MorphTarget {
                    name: "spread ✋".into(),
                    default_weight: 0.0,
                    shapes: vec![
                        shape(
                            "spread_half",
                            0.5,
                            vec![0, 4],
                            vec![[0.125, 0.0, -0.07], [-0.3, 0.1, 0.0]],
                            vec![[0.0, 0.25, 0.0], [0.1, 0.0, -0.033]],
                        ),
                        shape(
                            "spread",
                            1.0,
                            vec![0, 2, 4],
                            vec![[0.25, 0.0, 0.0], [0.0; 3], [-0.6, 0.2, 0.0]],
                            Vec::new(),
                        ),
                        shape("still", 1.5, vec![], vec![], vec![]),
                    ],
                },
            ],
        },
    ];
    let materials = vec![
        MaterialData {
            name: "skin".into(),
            diffuse_file: "skin.png".into(),
            normal_file: "skin_n.png".into(),
            ..Default::default()
        },
        MaterialData {
            name: "metal".into(),
            specular_file: "skin.png".into(),
            ..Default::default()
        },
    ];
    (Model { bones, meshes }, materials)
}

fn clip(frames: u32, bones: &[&str]) -> Clip {
    Clip {
        name: "run".into(),
        duration: frames.saturating_sub(1) as f32,
        frame_rate: 29.97,
        frame_count: frames,
        tracks: bones
            .iter()
            .enumerate()
            .map(|(t, b)| Track {
                bone_name: (*b).into(),
                keyframes: (0..frames)
                    .map(|f| Keyframe {
                        time: f as f32,
                        scale: [1.0, 1.0 + t as f32, 1.0],
                        rotation: [0.0, (f as f32).sin() * 0.5, 0.0, 0.8],
                        translation: [f as f32 * 0.1, t as f32, -(f as f32)],
                    })
                    .collect(),
            })
            .collect(),
        // 1.1 weight tracks.
        weight_tracks: vec![
            WeightTrack {
                part: 1,
                target: 0,
                weights: (0..frames).map(|f| f as f32 * 0.1).collect(),
            },
            WeightTrack {
                part: 1,
                target: 1,
                weights: (0..frames).map(|f| 1.0 - f as f32 / 8.0).collect(),
            },
        ],
    }
}

#[test]
fn c_reader_reads_what_kiln_writes() {
    let (small, mats) = model(40);
    let (big, _) = model(70_000); // u32 indices
    let opts = |q| MeshOptions {
        quantize: q,
        ..Default::default()
    };
    let files: Vec<(String, Vec<u8>)> = vec![
        (
            "a.mesh".into(),
            write_mesh(&small, &mats, &opts(Quantize::None)).unwrap(),
        ),
        (
            "b.mesh".into(),
            write_mesh(&small, &mats, &opts(Quantize::Attributes)).unwrap(),
        ),
        (
            "c.mesh".into(),
            write_mesh(&small, &mats, &opts(Quantize::AttributesAndPositions)).unwrap(),
        ),
        (
            "d.mesh".into(),
            write_mesh(&big, &mats, &opts(Quantize::None)).unwrap(),
        ),
        (
            "e.mesh".into(),
            write_mesh(&Model::default(), &[], &opts(Quantize::None)).unwrap(),
        ),
        (
            "a.clip".into(),
            write_clip(&clip(30, &["root", "spine", "hand ✋"])).unwrap(),
        ),
        ("e.clip".into(), write_clip(&Clip::default()).unwrap()),
    ];
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let (got, xxh) = run(&refs);
    for ((name, bytes), out) in files.iter().zip(&got) {
        let expected = if name.ends_with(".clip") {
            expected_clip(bytes)
        } else {
            expected_mesh(bytes)
        };
        assert!(!expected.starts_with("error"), "{name}: {expected}");
        assert_eq!(out, &expected, "{name}");
        assert!(out.contains("checksum ok"), "{name}");
    }
    // Real counts, not just agreement.
    assert!(got[0].contains("vertices 45\nindices 123\n"), "{}", got[0]);
    assert!(
        got[3].contains("vertices 70005\nindices 210003\n"),
        "{}",
        got[3]
    );
    assert!(
        got[5].starts_with("clip run frames 30 tracks 3"),
        "{}",
        got[5]
    );
    // Real morph values, not just agreement: the C reader's offsets against the model's,
    // exact where they are f32, within the snorm16 bound of their shape's scale where not.
    let want: Vec<&MorphShape> = small
        .meshes
        .iter()
        .flat_map(|p| &p.morph_targets)
        .flat_map(|t| &t.shapes)
        .collect();
    let scale = |d: &[[f32; 3]]| d.iter().flatten().fold(0f32, |m, c| m.max(c.abs()));
    for (file, header, exact_positions, exact_normals) in [
        (0, "morphs 3 5 10 f32 f32\n", true, true),
        (1, "morphs 3 5 10 f32 snorm16\n", true, false),
        (2, "morphs 3 5 10 snorm16 snorm16\n", false, false),
        (3, "morphs 3 5 10 f32 f32\n", true, true),
    ] {
        let out = &got[file];
        assert!(out.contains(header), "{}: {out}", files[file].0);
        assert!(out.contains("part_targets 1 1 2\n"), "{out}");
        assert!(out.contains("target 2 1 spread ✋ 00000000 2 3\n"), "{out}");
        let offsets = c_offsets(out);
        assert_eq!(offsets.len(), 10);
        let mut at = offsets.iter();
        for (k, sh) in want.iter().enumerate() {
            let (ps, ns) = (scale(&sh.positions), scale(&sh.normals));
            for (j, &vertex) in sh.vertices.iter().enumerate() {
                let &(shape, v, p, n) = at.next().unwrap();
                assert_eq!((shape, v), (k, vertex));
                let normal = sh.normals.get(j).copied().unwrap_or([0.0; 3]);
                for a in 0..3 {
                    let (dp, dn) = ((p[a] - sh.positions[j][a]).abs(), (n[a] - normal[a]).abs());
                    assert!(
                        if exact_positions {
                            dp == 0.0
                        } else {
                            dp <= snorm16_max_error(ps)
                        },
                        "{}: shape {k} offset {j}: {p:?}",
                        files[file].0
                    );
                    assert!(
                        if exact_normals {
                            dn == 0.0
                        } else {
                            dn <= snorm16_max_error(ns)
                        },
                        "{}: shape {k} offset {j}: {n:?}",
                        files[file].0
                    );
                }
            }
        }
    }
    // A snorm16 shape's largest component is exact: 0.5 (0x3f000000) of "fist".
    assert!(
        got[2].contains("offset 1 0 1 00000000 3f000000 00000000"),
        "{}",
        got[2]
    );
    assert!(got[4].contains("morphs none\n"), "{}", got[4]);
    // The weight tracks, value by value.
    let line = |out: &str, prefix: &str| {
        out.lines()
            .find_map(|l| l.strip_prefix(prefix))
            .unwrap_or_else(|| panic!("no {prefix:?} in {out}"))
            .split(' ')
            .map(|w| f32::from_bits(u32::from_str_radix(w, 16).unwrap()))
            .collect::<Vec<f32>>()
    };
    assert!(got[5].contains("weight_tracks 2\n"), "{}", got[5]);
    let w = line(&got[5], "weight_track 1 1 1 ");
    assert_eq!(w, (0..30).map(|f| 1.0 - f as f32 / 8.0).collect::<Vec<_>>());
    assert_eq!(line(&got[5], "weight_track 0 1 0 ")[7], 7.0 * 0.1);
    assert!(got[6].contains("weight_tracks 0\n"), "{}", got[6]);
    // The C XXH3 matches xxhash-rust on every length path.
    let mut buf = [0u8; 3000];
    for (i, b) in buf.iter_mut().enumerate() {
        *b = (i * 31 + 7) as u8;
    }
    let mut want = String::new();
    for len in [
        0usize, 1, 3, 4, 8, 9, 16, 17, 128, 129, 240, 241, 1024, 1025, 2048, 3000,
    ] {
        let mut with_header = vec![0u8; 16];
        with_header.extend_from_slice(&buf[..len]);
        want += &format!("xxh3 {len} {:016x}\n", checksum(&with_header));
    }
    assert_eq!(xxh, want);
}

#[test]
fn c_reader_refuses_corrupt_files_like_kiln_format() {
    // 1.0 files: the C reader skips the 1.1 sections (morph targets, weight tracks) without
    // checking them, so a flip there is refused by kiln-format alone.
    let (mut m, mats) = model(12);
    for p in &mut m.meshes {
        p.morph_targets.clear();
    }
    let mesh = write_mesh(&m, &mats, &MeshOptions::default()).unwrap();
    let mut c = clip(4, &["root", "spine"]);
    c.weight_tracks.clear();
    let clip_bytes = write_clip(&c).unwrap();
    // Deterministic byte flips over the whole file: header, table, records, strings, indices.
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for k in 0..400 {
        let (src, ext) = if k % 4 == 3 {
            (&clip_bytes, "clip")
        } else {
            (&mesh, "mesh")
        };
        let mut v = src.clone();
        let flips = 1 + (next() % 3) as usize;
        for _ in 0..flips {
            // Bias towards the header and table, where structure lives.
            let limit = if next() % 2 == 0 {
                32 + 32 * 14
            } else {
                v.len()
            };
            let at = (next() as usize) % limit.min(v.len());
            v[at] ^= 1 << (next() % 8);
        }
        if k % 17 == 0 {
            v.truncate((next() as usize) % v.len());
        }
        files.push((format!("m{k}.{ext}"), v));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let (got, _) = run(&refs);
    let mut refused = 0;
    for ((name, bytes), out) in files.iter().zip(&got) {
        let expected = if name.ends_with(".clip") {
            expected_clip(bytes)
        } else {
            expected_mesh(bytes)
        };
        if expected.starts_with("error") {
            refused += 1;
            assert_eq!(strip_message(out.trim_end()), expected, "{name}");
        } else {
            assert_eq!(out, &expected, "{name}");
            assert!(
                out.contains("checksum bad"),
                "{name}: a flipped file passed the checksum"
            );
        }
    }
    assert!(refused > 100, "only {refused} of {} refused", files.len());
}

/// Overwrites 4 bytes at `at`.
fn poke(bytes: &[u8], at: usize, value: u32) -> Vec<u8> {
    let mut out = bytes.to_vec();
    out[at..at + 4].copy_from_slice(&value.to_le_bytes());
    out
}

/// The range of bytes of a file's sections of the given kinds (first start to last end).
fn span(bytes: &[u8], kinds: &[u32], clip: bool) -> std::ops::Range<usize> {
    let b = AlignedBytes::from_bytes(bytes);
    let sections: Vec<_> = if clip {
        ClipView::parse(&b).unwrap().sections().collect()
    } else {
        MeshView::parse(&b).unwrap().sections().collect()
    };
    let mine: Vec<_> = sections
        .iter()
        .filter(|s| kinds.contains(&s.kind))
        .collect();
    let start = mine.iter().map(|s| s.offset).min().unwrap() as usize;
    let end = mine.iter().map(|s| s.offset + s.length).max().unwrap() as usize;
    start..end
}

#[test]
fn c_reader_refuses_corrupt_1_1_files_like_kiln_format() {
    let (m, mats) = model(12);
    let opts = |q| MeshOptions {
        quantize: q,
        ..Default::default()
    };
    let meshes = [
        write_mesh(&m, &mats, &opts(Quantize::None)).unwrap(),
        write_mesh(&m, &mats, &opts(Quantize::Attributes)).unwrap(),
        write_mesh(&m, &mats, &opts(Quantize::AttributesAndPositions)).unwrap(),
    ];
    let clip_bytes = write_clip(&clip(4, &["root", "spine"])).unwrap();
    let morph_kinds = [
        kind::MORPH_TARGETS,
        kind::MORPH_SHAPES,
        kind::MORPH_VERTICES,
        kind::MORPH_POSITIONS_F32,
        kind::MORPH_NORMALS_F32,
        kind::MORPH_POSITIONS_SNORM16,
        kind::MORPH_NORMALS_SNORM16,
    ];
    let table_end = |b: &[u8]| 32 + 32 * u32::from_le_bytes(b[20..24].try_into().unwrap()) as usize;
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();

    // Targeted: each rule of the 1.1 sections broken once; the C reader must say BadMorph (30)
    // or the other error kiln-format gives, at the same offset.
    let all = &meshes[2];
    let v_bytes = AlignedBytes::from_bytes(all);
    let v = MeshView::parse(&v_bytes).unwrap();
    let at = |k| v.sections().find(|s| s.kind == k).unwrap().offset as usize;
    let entry = |k| 32 + 32 * v.sections().position(|s| s.kind == k).unwrap();
    let (targets, shapes, vertices) = (
        at(kind::MORPH_TARGETS),
        at(kind::MORPH_SHAPES),
        at(kind::MORPH_VERTICES),
    );
    let targeted: Vec<(&str, Vec<u8>)> = vec![
        (
            "nan position scale",
            poke(
                all,
                shapes + 32 + SHAPE_POSITION_SCALE_FIELD,
                f32::NAN.to_bits(),
            ),
        ),
        (
            "negative normal scale",
            poke(all, shapes + 28, (-0.5f32).to_bits()),
        ),
        (
            "infinite normal scale",
            poke(
                &meshes[1],
                span(&meshes[1], &[kind::MORPH_SHAPES], false).start + 28,
                f32::INFINITY.to_bits(),
            ),
        ),
        ("part out of range", poke(all, targets + 8, 9)),
        (
            "targets out of part order",
            poke(all, targets + 2 * 32 + 8, 0),
        ),
        ("no shape", poke(all, targets + 20, 0)),
        ("full weight 0", poke(all, shapes + 2 * 32 + 8, 0)),
        (
            "full weights not ascending",
            poke(all, shapes + 3 * 32 + 8, 0.25f32.to_bits()),
        ),
        ("offsets not following", poke(all, shapes + 32 + 12, 7)),
        ("vertex past the part", poke(all, vertices + 4 * 2, 12)),
        ("vertices not ascending", poke(all, vertices + 4, 2)),
        ("bad name", poke(all, shapes + 4, 100_000)),
        (
            "normals missing",
            poke(all, entry(kind::MORPH_NORMALS_SNORM16), 0x7777),
        ),
        (
            "two position streams",
            poke(
                all,
                entry(kind::MORPH_NORMALS_SNORM16),
                kind::MORPH_POSITIONS_SNORM16,
            ),
        ),
        (
            "element size",
            poke(
                all,
                entry(kind::MORPH_POSITIONS_SNORM16),
                kind::MORPH_POSITIONS_F32,
            ),
        ),
    ];
    let targeted_count = targeted.len();
    for (name, bytes) in targeted {
        files.push((format!("t_{}.mesh", name.replace(' ', "_")), bytes));
    }
    let clip_entry = |k| {
        let b = AlignedBytes::from_bytes(&clip_bytes);
        let c = ClipView::parse(&b).unwrap();
        32 + 32 * c.sections().position(|s| s.kind == k).unwrap()
    };
    files.push((
        "t_no_weight_tracks.clip".into(),
        poke(&clip_bytes, clip_entry(kind::WEIGHT_TRACKS), 0x7777),
    ));
    files.push((
        "t_no_weights.clip".into(),
        poke(&clip_bytes, clip_entry(kind::WEIGHTS), 0x7777),
    ));
    let targeted_count = targeted_count + 2;

    // Every 3rd truncation of the quantised file.
    for len in (0..all.len()).step_by(3) {
        files.push((format!("cut{len}.mesh"), all[..len].to_vec()));
    }
    // Deterministic flips, biased towards the table and the 1.1 sections.
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    for k in 0..600 {
        let clip = k % 4 == 3;
        let src = if clip { &clip_bytes } else { &meshes[k % 3] };
        let region = if clip {
            span(src, &[kind::WEIGHT_TRACKS, kind::WEIGHTS], true)
        } else {
            span(src, &morph_kinds, false)
        };
        let mut v = src.clone();
        for _ in 0..1 + (next() % 3) as usize {
            let at = match next() % 3 {
                0 => (next() as usize) % table_end(src),
                1 => region.start + (next() as usize) % region.len(),
                _ => (next() as usize) % v.len(),
            };
            v[at] ^= 1 << (next() % 8);
        }
        files.push((format!("f{k}.{}", if clip { "clip" } else { "mesh" }), v));
    }
    let refs: Vec<(&str, &[u8])> = files
        .iter()
        .map(|(n, b)| (n.as_str(), b.as_slice()))
        .collect();
    let (got, _) = run(&refs);
    let mut refused = 0;
    let mut bad_morph = 0;
    for (i, ((name, bytes), out)) in files.iter().zip(&got).enumerate() {
        let expected = if name.ends_with(".clip") {
            expected_clip(bytes)
        } else {
            expected_mesh(bytes)
        };
        if expected.starts_with("error") {
            refused += 1;
            bad_morph += expected.starts_with("error 30 ") as usize;
            assert_eq!(strip_message(out.trim_end()), expected, "{name}");
        } else {
            assert!(i >= targeted_count, "{name} accepted: {expected}");
            assert_eq!(out, &expected, "{name}");
            assert!(
                out.contains("checksum bad"),
                "{name}: a corrupted file passed the checksum"
            );
        }
    }
    // Most targeted cases are BadMorph; the flips reach it often too.
    assert!(bad_morph > 30, "only {bad_morph} BadMorph");
    assert!(refused > 400, "only {refused} of {} refused", files.len());
}
