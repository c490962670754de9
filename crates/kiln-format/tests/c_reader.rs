//! The C reader `include/kiln.h` (written from `docs/format.md`) compiled with the system C
//! compiler (`cc`) and run on files kiln writes: it must find the same counts, names, decoded
//! vertex data (hashed bit for bit), clip keys and checksums as `kiln-format`, compute the same
//! XXH3-64, and refuse corrupted files with the same error at the same offset.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kiln_format::kiln::{
    AlignedBytes, ClipView, LayoutError, MeshOptions, MeshView, Quantize, checksum, write_clip,
    write_mesh,
};
use kiln_format::{Bone, Clip, IDENTITY, Keyframe, MaterialData, MeshPart, Model, Track, Vertex};
use kiln_testkit::process::{Limits, run_limited};

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
        let out = run_limited(&mut cc, Limits::CC)
            .unwrap_or_else(|e| panic!("the system C compiler `cc` is needed for this test: {e}"));
        assert!(
            out.status.success(),
            "cc failed:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
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
    let meshes = vec![
        MeshPart {
            name: "body".into(),
            vertices: (0..vertices_per_part).map(v).collect(),
            indices: tri(vertices_per_part),
            bone_index: 1,
            material_name: "skin".into(),
            morph_targets: Vec::new(),
        },
        MeshPart {
            name: "hand ✋".into(),
            vertices: (0..5).map(v).collect(),
            indices: tri(5),
            bone_index: 2,
            material_name: "nowhere".into(),
            // 1.1 sections, which a 1.0 reader (this C reader) skips.
            morph_targets: vec![kiln_format::MorphTarget {
                name: "fist".into(),
                default_weight: 0.25,
                shapes: vec![kiln_format::MorphShape {
                    name: "fist".into(),
                    full_weight: 1.0,
                    vertices: vec![1, 3],
                    positions: vec![[0.0, 0.5, 0.0], [0.25, 0.0, 0.0]],
                    normals: Vec::new(),
                }],
            }],
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
        // A 1.1 section pair the C reader skips.
        weight_tracks: vec![kiln_format::WeightTrack {
            part: 1,
            target: 0,
            weights: (0..frames).map(|f| f as f32 * 0.1).collect(),
        }],
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
