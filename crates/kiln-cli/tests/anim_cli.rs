//! `kiln bake` and `kiln dump --csv` on files written by the test: the DDS header and texels,
//! the classic-file offset assumption, the limits' errors, and the CSV text.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kiln::format::{Bone, Clip, IDENTITY, Keyframe, MeshPart, Model, Track, Vertex};
use kiln::scene::{Mat4, Quat, Vec3, Vec4};
use kiln_testkit::corpus;
use kiln_testkit::process::{Limits, run_limited};

fn kiln(args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.args(args).current_dir(cwd);
    run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run kiln: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// A root and an arm 2 units up; a part on the root with one vertex skinned to the arm and one
/// rigid on the root; a clip turning the arm about z by 0°, 45°, 90°.
fn write_model(dir: &Path) -> PathBuf {
    let arm_bind = Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0));
    let model = Model {
        bones: vec![
            Bone {
                index: 0,
                parent: -1,
                name: "root".into(),
                transform: IDENTITY,
            },
            Bone {
                index: 1,
                parent: 0,
                name: "arm".into(),
                transform: arm_bind.to_cols_array(),
            },
        ],
        meshes: vec![MeshPart {
            name: "root".into(),
            vertices: vec![
                Vertex {
                    position: [1.0, 3.0, 0.0],
                    blend_indices: [1.0, 0.0, 0.0, 0.0],
                    blend_weights: [1.0, 0.0, 0.0, 0.0],
                    ..Vertex::default()
                },
                Vertex {
                    position: [0.5, -0.0, 0.0078125],
                    blend_indices: [0.0, 0.0, 0.0, 0.0],
                    blend_weights: [1.0, 0.0, 0.0, 0.0],
                    ..Vertex::default()
                },
            ],
            indices: vec![0, 1, 1],
            bone_index: 0,
            material_name: "m".into(),
            morph_targets: Vec::new(),
        }],
    };
    let key = |f: u32, bone: usize| Keyframe {
        time: f as f32,
        scale: [1.0; 3],
        rotation: if bone == 1 {
            Quat::from_rotation_z(f as f32 * std::f32::consts::FRAC_PI_4).to_array()
        } else {
            [0.0, 0.0, 0.0, 1.0]
        },
        translation: if bone == 1 { [0.0, 2.0, 0.0] } else { [0.0; 3] },
    };
    let clip = Clip {
        name: "wave|arm".into(),
        duration: 2.0,
        frame_rate: 30.0,
        frame_count: 3,
        tracks: ["root", "arm"]
            .iter()
            .enumerate()
            .map(|(b, name)| Track {
                bone_name: (*name).into(),
                keyframes: (0..3).map(|f| key(f, b)).collect(),
            })
            .collect(),
        weight_tracks: Vec::new(),
    };
    let mesh = dir.join("rig.mesh");
    std::fs::write(&mesh, kiln::format::classic::write_mesh(&model)).unwrap();
    std::fs::write(
        dir.join("rig_wave_arm.clip"),
        kiln::format::classic::write_clip(&clip),
    )
    .unwrap();
    mesh
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

fn texel(dds: &[u8], width: usize, height: usize, layer: usize, x: usize, y: usize) -> Vec4 {
    let o = 148 + ((layer * height + y) * width + x) * 16;
    let f = |k: usize| f32::from_le_bytes(dds[o + 4 * k..o + 4 * k + 4].try_into().unwrap());
    Vec4::new(f(0), f(1), f(2), f(3))
}

#[test]
fn bake_writes_a_dx10_texture_array_of_skinning_matrices() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let out = kiln(
        &[
            "bake",
            "rig.mesh",
            "--clip-file",
            "rig_wave_arm.clip",
            "-o",
            "out",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("classic .mesh: no offset matrices stored"),
        "{}",
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("2 bones, 1 clips"),
        "{}",
        text(&out.stdout)
    );
    let dds = std::fs::read(dir.path().join("out/rig.dds")).unwrap();
    // Header, read from the DDS specification's offsets.
    assert_eq!(&dds[0..4], b"DDS ");
    assert_eq!(
        (u32_at(&dds, 4), u32_at(&dds, 12), u32_at(&dds, 16)),
        (124, 3, 8)
    );
    assert_eq!(u32_at(&dds, 20), 8 * 16, "pitch");
    assert_eq!(&dds[84..88], b"DX10");
    assert_eq!(u32_at(&dds, 128), 2, "DXGI_FORMAT_R32G32B32A32_FLOAT");
    assert_eq!(u32_at(&dds, 132), 3, "TEXTURE2D");
    assert_eq!(u32_at(&dds, 140), 1, "array size");
    assert_eq!(dds.len(), 148 + 8 * 3 * 16);
    // The arm at frame 2: offset × model, the offset assumed from the classic file (part on the
    // root: inverse of the arm's bind), the model a 90° turn about z 2 units up.
    let model = Mat4::from_rotation_translation(
        Quat::from_rotation_z(std::f32::consts::FRAC_PI_2),
        Vec3::new(0.0, 2.0, 0.0),
    );
    let skin = model * Mat4::from_translation(Vec3::new(0.0, -2.0, 0.0));
    for r in 0..4 {
        let got = texel(&dds, 8, 3, 0, 4 + r, 2);
        assert!(
            got.abs_diff_eq(skin.col(r), 1e-6),
            "row {r}: {got} vs {}",
            skin.col(r)
        );
    }
    // Row-vector reading of the texels: the skinned vertex (1, 3, 0) turns about the arm's root.
    let rows: Vec<Vec4> = (0..4).map(|r| texel(&dds, 8, 3, 0, 4 + r, 2)).collect();
    let p = Vec4::new(1.0, 3.0, 0.0, 1.0);
    let moved = rows[0] * p.x + rows[1] * p.y + rows[2] * p.z + rows[3] * p.w;
    assert!(
        moved.abs_diff_eq(Vec4::new(-1.0, 3.0, 0.0, 1.0), 1e-5),
        "{moved}"
    );
    // The root no skin uses holds its model matrix: the identity.
    for r in 0..4 {
        assert_eq!(texel(&dds, 8, 3, 0, r, 1), Mat4::IDENTITY.col(r));
    }
}

#[test]
fn bake_limits_and_missing_animation_are_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let out = kiln(
        &[
            "bake",
            "rig.mesh",
            "--clip-file",
            "rig_wave_arm.clip",
            "--max-bones",
            "1",
        ],
        dir.path(),
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("2 bones: more than the bake's limit of 1"),
        "{}",
        text(&out.stderr)
    );
    let out = kiln(
        &[
            "bake",
            "rig.mesh",
            "--clip-file",
            "rig_wave_arm.clip",
            "--max-frames",
            "2",
        ],
        dir.path(),
    );
    assert!(
        text(&out.stderr).contains("has 3 frames: more than the bake's limit of 2"),
        "{}",
        text(&out.stderr)
    );
    std::fs::write(
        dir.path().join("tri.obj"),
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    let out = kiln(&["bake", "tri.obj"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr).contains("tri.obj: nothing to bake: the model has no animation"),
        "{}",
        text(&out.stderr)
    );
    assert!(!dir.path().join("tri.dds").exists());
}

#[test]
fn bake_pads_to_the_engine_limits_and_writes_raw_texels() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let out = kiln(
        &[
            "bake",
            "rig.mesh",
            "--clip-file",
            "rig_wave_arm.clip",
            "--max-bones",
            "4",
            "--max-frames",
            "5",
            "--pad",
            "--raw",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dds = std::fs::read(dir.path().join("rig.dds")).unwrap();
    assert_eq!((u32_at(&dds, 12), u32_at(&dds, 16)), (5, 16));
    let raw = std::fs::read(dir.path().join("rig.rgba32f")).unwrap();
    assert_eq!(&dds[148..], &raw[..]);
    // Rows 3 and 4 repeat the last frame.
    assert_eq!(texel(&dds, 16, 5, 0, 5, 4), texel(&dds, 16, 5, 0, 5, 2));
}

#[test]
fn dump_csv_legacy_prints_bones_then_every_vertex_as_reference_003() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let out = kiln(&["dump", "--csv-legacy", "rig.mesh"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout),
        "0,root\n1,arm\n\n\
         1.000000,3.000000,0.000000,1.000000,0.000000,0.000000,0.000000,1.000000,0.000000,0.000000,0.000000\n\
         0.500000,-0.000000,0.007812,0.000000,0.000000,0.000000,0.000000,1.000000,0.000000,0.000000,0.000000\n"
    );
    let out = kiln(
        &["dump", "--csv-legacy", "rig.mesh", "-o", "rig.csv"],
        dir.path(),
    );
    assert!(out.status.success());
    assert!(
        std::fs::read_to_string(dir.path().join("rig.csv"))
            .unwrap()
            .starts_with("0,root\n1,arm\n\n")
    );
    let out = kiln(&["dump", "rig.mesh"], dir.path());
    assert_eq!(
        out.status.code(),
        Some(2),
        "--csv or --csv-legacy is required"
    );
    let out = kiln(&["dump", "--csv", "--csv-legacy", "rig.mesh"], dir.path());
    assert_eq!(out.status.code(), Some(2), "one format at a time");
}

#[test]
fn dump_csv_has_a_header_row_per_table_and_integer_blend_indices() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    let out = kiln(&["dump", "--csv", "rig.mesh"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    // Positions and weights exactly (0.0078125 is not cut to 0.007812), indices as integers.
    assert_eq!(
        text(&out.stdout),
        "bone,name,parent\n0,root,-1\n1,arm,0\n\n\
         part,vertex,x,y,z,i0,i1,i2,i3,w0,w1,w2,w3\n\
         0,0,1,3,0,1,0,0,0,1,0,0,0\n\
         0,1,0.5,-0,0.0078125,0,0,0,0,1,0,0,0\n"
    );
    let out = kiln(&["dump", "--csv", "rig.mesh", "-o", "rig.csv"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(out.stdout.is_empty());
    let csv = std::fs::read_to_string(dir.path().join("rig.csv")).unwrap();
    let mut tables = csv.split("\n\n");
    let bones: Vec<&str> = tables.next().unwrap().lines().collect();
    assert_eq!(bones, ["bone,name,parent", "0,root,-1", "1,arm,0"]);
    let vertices: Vec<Vec<&str>> = tables
        .next()
        .unwrap()
        .lines()
        .map(|l| l.split(',').collect())
        .collect();
    assert_eq!(vertices.len(), 3, "a header and two vertices");
    assert!(vertices.iter().all(|row| row.len() == vertices[0].len()));
    assert_eq!(&vertices[0][5..9], ["i0", "i1", "i2", "i3"]);
    assert_eq!(&vertices[1][5..9], ["1", "0", "0", "0"]);
    assert!(tables.next().is_none());
}

/// Fails with the install hint when the Assimp corpus is missing.
fn corpus_fbx(name: &str) -> PathBuf {
    corpus::path(&format!("FBX/{name}"))
}

#[test]
fn a_standard_dds_reader_opens_the_bake_of_a_corpus_fbx() {
    let dir = tempfile::tempdir().unwrap();
    let fbx = corpus_fbx("huesitos.fbx");
    let out = kiln(&["bake", fbx.to_str().unwrap(), "-o", "."], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    let bytes = std::fs::read(dir.path().join("huesitos.dds")).unwrap();
    let dds = ddsfile::Dds::read(&bytes[..]).expect("ddsfile reads it");
    assert_eq!(
        dds.get_dxgi_format(),
        Some(ddsfile::DxgiFormat::R32G32B32A32_Float)
    );
    // 16 bones, one clip of 40 frames at 25 per second.
    assert_eq!((dds.get_width(), dds.get_height()), (64, 40));
    assert_eq!(
        (dds.get_num_array_layers(), dds.get_num_mipmap_levels()),
        (1, 1)
    );
    let data = dds.get_data(0).unwrap();
    assert_eq!(data.len(), 64 * 40 * 16);
    // Every bone's matrix at every frame is affine (last column 0, 0, 0, 1 in row-vector
    // form: the fourth float of each of the first three texels is 0, of the fourth is 1).
    let f = |i: usize| f32::from_le_bytes(data[4 * i..4 * i + 4].try_into().unwrap());
    for block in 0..16 * 40 {
        let w: Vec<f32> = (0..4).map(|r| f(block * 16 + r * 4 + 3)).collect();
        assert!(
            w.iter()
                .zip([0.0, 0.0, 0.0, 1.0])
                .all(|(a, b)| (a - b).abs() < 1e-4),
            "{block}: {w:?}"
        );
    }

    // `kiln convert` writes the clip beside the mesh; the bake of that .mesh (kiln layout, which
    // stores the offsets) is the same texture.
    let out = kiln(
        &["convert", fbx.to_str().unwrap(), "-o", "conv"],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("1 clips"),
        "{}",
        text(&out.stdout)
    );
    assert!(
        dir.path()
            .join("conv/huesitos_Armature_Action.clip")
            .is_file()
    );
    let out = kiln(&["bake", "conv/huesitos.mesh", "-o", "again"], dir.path());
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read(dir.path().join("again/huesitos.dds")).unwrap(),
        bytes
    );
}

#[test]
fn a_standard_dds_reader_sees_one_layer_per_clip() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    // A second clip, shorter: its layer repeats its last frame.
    let mut clip = kiln::format::classic::read_clip(
        &std::fs::read(dir.path().join("rig_wave_arm.clip")).unwrap(),
    )
    .unwrap();
    clip.name = "rest".into();
    clip.frame_count = 1;
    clip.duration = 0.0;
    for t in &mut clip.tracks {
        t.keyframes.truncate(1);
    }
    std::fs::write(
        dir.path().join("rig_rest.clip"),
        kiln::format::classic::write_clip(&clip),
    )
    .unwrap();
    let out = kiln(
        &[
            "bake",
            "rig.mesh",
            "--clip-file",
            "rig_rest.clip",
            "--clip-file",
            "rig_wave_arm.clip",
        ],
        dir.path(),
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let dds = ddsfile::Dds::read(&std::fs::read(dir.path().join("rig.dds")).unwrap()[..]).unwrap();
    assert_eq!(dds.get_num_array_layers(), 2);
    // Clips in the order given: rig_rest, then rig_wave_arm.
    let rest = dds.get_data(0).unwrap();
    let wave = dds.get_data(1).unwrap();
    assert_eq!((rest.len(), wave.len()), (8 * 3 * 16, 8 * 3 * 16));
    let row = |d: &[u8], y: usize| d[y * 8 * 16..(y + 1) * 8 * 16].to_vec();
    assert_eq!(row(rest, 2), row(rest, 0));
    assert_ne!(row(wave, 2), row(wave, 0));
}

#[test]
fn a_mesh_without_manifest_has_no_clips_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    write_model(dir.path());
    // The clip beside it is not taken by its name: without a manifest or --clip-file, none.
    let out = kiln(&["bake", "rig.mesh"], dir.path());
    assert_eq!(out.status.code(), Some(1));
    let err = text(&out.stderr);
    assert!(err.contains("no rig.kiln.json beside it"), "{err}");
    assert!(err.contains("nothing to bake"), "{err}");
}

#[test]
fn bake_writes_the_morph_weights_beside_the_matrices() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("tube.fbx"),
        kiln_testkit::fixtures::morph::morph_tube_file(false),
    )
    .unwrap();
    let out = kiln(&["bake", "tube.fbx", "--raw", "-o", "out"], d);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("weights 3×31×1 R32F"),
        "{}",
        text(&out.stdout)
    );
    let dds = std::fs::read(d.join("out/tube.weights.dds")).unwrap();
    assert_eq!(&dds[0..4], b"DDS ");
    assert_eq!((u32_at(&dds, 12), u32_at(&dds, 16)), (31, 3));
    assert_eq!(u32_at(&dds, 20), 3 * 4, "pitch");
    assert_eq!(u32_at(&dds, 128), 41, "DXGI_FORMAT_R32_FLOAT");
    assert_eq!(u32_at(&dds, 140), 1, "array size");
    assert_eq!(dds.len(), 148 + 3 * 31 * 4);
    let weight = |frame: usize, target: usize| {
        let o = 148 + (frame * 3 + target) * 4;
        f32::from_le_bytes(dds[o..o + 4].try_into().unwrap())
    };
    // The tube's weight keys (bulge 0 → 1 → 0 over frames 0, 15, 30; twist 0 → 1 over the
    // clip; lift 0 → 0.6 over frames 10..20), sampled per frame.
    for (frame, want) in [
        (0, [0.0, 0.0, 0.0]),
        (15, [1.0, 0.5, 0.3]),
        (30, [0.0, 1.0, 0.6]),
    ] {
        for (t, w) in want.iter().enumerate() {
            assert!(
                (weight(frame, t) - w).abs() < 1e-5,
                "frame {frame}, target {t}: {} vs {w}",
                weight(frame, t)
            );
        }
    }
    let raw = std::fs::read(d.join("out/tube.weights.r32f")).unwrap();
    assert_eq!(&raw[..], &dds[148..]);
}
