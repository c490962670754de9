//! `kiln verify` and `kiln preview` on converted files the test writes (a generated skinned
//! model in the classic layout, with its clips, material XML and texture; and in the kiln
//! layout) and on the demo's source file; the tolerance's exit status; the one line and the
//! distinct exit status without a GPU adapter. These need a GPU adapter: Mesa's lavapipe is
//! enough (scripts/test installs it).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kiln::extract::clip_file_names;
use kiln::format::IDENTITY;
use kiln::manifest::{Manifest, OptionsRecord, OutputKind, OutputRecord};
use kiln_gpu::image::{decode_png, encode_png};
use kiln_testkit::fixtures::tube::{Fixture, TubeOptions, tube};
use kiln_testkit::process::{Limits, run_limited};

fn kiln(args: &[&str], cwd: &Path, env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.args(args).current_dir(cwd).envs(env.iter().copied());
    run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run kiln: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Fails with the install hint when the run found no adapter (CI installs lavapipe).
fn require_gpu(out: &Output) {
    assert_ne!(
        out.status.code(),
        Some(3),
        "no GPU adapter: {}\ninstall Mesa's software Vulkan driver: apt-get install -y mesa-vulkan-drivers",
        text(&out.stderr)
    );
}

/// Writes `f` as `kiln convert` would: NAME.mesh, NAME_CLIP.clip, NAME.xml and the texture.
fn write_fixture(f: &Fixture, dir: &Path, name: &str, classic: bool) -> PathBuf {
    let mesh = if classic {
        kiln::format::classic::write_mesh(&f.model)
    } else {
        let offsets: Vec<_> = f.offsets.iter().map(|o| o.unwrap_or(IDENTITY)).collect();
        kiln::format::kiln::write_mesh(
            &f.model,
            &f.materials,
            &kiln::format::kiln::MeshOptions {
                quantize: kiln::format::kiln::Quantize::None,
                offset_matrices: Some(&offsets),
            },
        )
        .unwrap()
    };
    std::fs::write(dir.join(format!("{name}.mesh")), mesh).unwrap();
    let names: Vec<&str> = f.clips.iter().map(|c| c.name.as_str()).collect();
    for (clip, file) in f.clips.iter().zip(clip_file_names(name, &names)) {
        let bytes = if classic {
            kiln::format::classic::write_clip(clip)
        } else {
            kiln::format::kiln::write_clip(clip).unwrap()
        };
        std::fs::write(dir.join(file), bytes).unwrap();
    }
    std::fs::write(
        dir.join(format!("{name}.xml")),
        kiln::format::xml::write_materials(&f.materials),
    )
    .unwrap();
    for (file, image) in &f.textures {
        std::fs::write(dir.join(file), encode_png(image).unwrap()).unwrap();
    }
    // The manifest, which names the mesh's clips.
    let manifest = Manifest {
        manifest: kiln::manifest::VERSION,
        kiln: "test".into(),
        model: format!("{name}.fbx"),
        options: OptionsRecord::default(),
        inputs: Vec::new(),
        absent: Vec::new(),
        outputs: vec![OutputRecord {
            path: format!("{name}.mesh"),
            kind: OutputKind::Mesh,
            size: 0,
            xxh3: String::new(),
            clips: clip_file_names(name, &names),
        }],
        warnings: Default::default(),
    };
    std::fs::write(dir.join(format!("{name}.kiln.json")), manifest.to_json()).unwrap();
    dir.join(format!("{name}.mesh"))
}

#[test]
fn verify_passes_on_converted_files_of_both_layouts() {
    let dir = tempfile::tempdir().unwrap();
    let f = tube(&TubeOptions::default());
    for (name, classic) in [("classic", true), ("kilnfile", false)] {
        let mesh = write_fixture(&f, dir.path(), name, classic);
        let out = kiln(&["verify", mesh.to_str().unwrap()], dir.path(), &[]);
        require_gpu(&out);
        let stdout = text(&out.stdout);
        assert!(out.status.success(), "{stdout}\n{}", text(&out.stderr));
        assert!(stdout.contains("adapter: "), "{stdout}");
        assert!(
            stdout.contains("(4 texels per bone, one row per frame, one layer per clip)"),
            "{stdout}"
        );
        // 2 clips × 24 samples, one row each, all ok.
        assert_eq!(
            stdout.lines().filter(|l| l.ends_with("  ok")).count(),
            48,
            "{stdout}"
        );
        assert!(
            stdout.contains("all 48 samples within tolerance"),
            "{stdout}"
        );
        // The classic layout stores no offsets: the assumption is announced.
        assert_eq!(
            text(&out.stderr).contains("no offset matrices stored"),
            classic,
            "{}",
            text(&out.stderr)
        );
    }
    // One clip at chosen frames.
    let out = kiln(
        &[
            "verify",
            "classic.mesh",
            "--clip",
            "twist",
            "--frames",
            "0,2.5,11",
        ],
        dir.path(),
        &[],
    );
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}{}", text(&out.stderr));
    let rows: Vec<&str> = stdout.lines().filter(|l| l.starts_with("twist")).collect();
    assert_eq!(rows.len(), 3, "{stdout}");
    assert!(rows[1].split_whitespace().nth(1) == Some("2.5"), "{stdout}");
    // A tolerance below float rounding fails the run: the exit status follows the errors.
    let out = kiln(
        &["verify", "classic.mesh", "--tolerance", "1e-12"],
        dir.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert!(text(&out.stderr).contains("samples exceed the tolerance"));
    assert!(text(&out.stdout).contains("EXCEEDS"));
    // Bad arguments.
    let out = kiln(
        &["verify", "classic.mesh", "--clip", "run"],
        dir.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        text(&out.stderr).lines().last(),
        Some("kiln: error: classic.mesh: no clip 'run'; the model has: 'bend', 'twist'")
    );
    let out = kiln(
        &["verify", "classic.mesh", "--frames", "1,x"],
        dir.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(text(&out.stderr).contains("'x' is not a frame number"));
}

#[test]
fn verify_catches_a_clip_of_another_model() {
    let dir = tempfile::tempdir().unwrap();
    let f = tube(&TubeOptions::default());
    write_fixture(&f, dir.path(), "m", true);
    // A clip of another skeleton dropped beside the model.
    let mut other = f.clips[0].clone();
    other.name = "stray".into();
    for t in &mut other.tracks {
        t.bone_name = format!("mixamorig:{}", t.bone_name);
    }
    std::fs::write(
        dir.path().join("m_stray.clip"),
        kiln::format::classic::write_clip(&other),
    )
    .unwrap();
    // Beside it, it is not taken (clips come from the manifest, never by name); given, it is
    // checked against the skeleton.
    let out = kiln(&["verify", "m.mesh"], dir.path(), &[]);
    require_gpu(&out);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = kiln(
        &["verify", "m.mesh", "--clip-file", "m_stray.clip"],
        dir.path(),
        &[],
    );
    assert_eq!(out.status.code(), Some(1));
    assert!(
        text(&out.stderr)
            .contains("clip 'stray' does not match the model's bones: 5 of its 5 tracks"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn preview_writes_a_contact_sheet() {
    let dir = tempfile::tempdir().unwrap();
    let f = tube(&TubeOptions::default());
    write_fixture(&f, dir.path(), "m", true);
    let out = kiln(
        &["preview", "m.mesh", "-o", "sheet.png", "--tile", "96"],
        dir.path(),
        &[],
    );
    require_gpu(&out);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("row: clip 'bend' at frames 0, 2.2, 4.4, 6.6, 8.8, 11"),
        "{stdout}"
    );
    let image = decode_png(&std::fs::read(dir.path().join("sheet.png")).unwrap()).unwrap();
    // Six frames of two clips.
    assert_eq!((image.width, image.height), (6 * 96, 2 * 96));
    // The textured cap is there (its checker's yellow, lit).
    assert!(
        image
            .rgba
            .chunks_exact(4)
            .any(|p| p[0] > 2 * (p[2] / 2).max(1) && p[1] > 2 * (p[2] / 2).max(1) && p[2] < 60)
    );
    let out = kiln(
        &[
            "preview", "m.mesh", "-o", "one.png", "--clip", "twist", "--frames", "3",
        ],
        dir.path(),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let one = decode_png(&std::fs::read(dir.path().join("one.png")).unwrap()).unwrap();
    assert_eq!((one.width, one.height), (256, 256));
}

#[test]
fn verify_and_preview_read_the_demo_source() {
    let dir = tempfile::tempdir().unwrap();
    let out = kiln(&["demo", "-o", "demo"], dir.path(), &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let source = std::fs::read_dir(dir.path().join("demo/source"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.extension()
                .and_then(|e| e.to_str())
                .is_some_and(|e| ["obj", "fbx"].contains(&e))
        })
        .expect("the demo's source model");
    let out = kiln(&["verify", source.to_str().unwrap()], dir.path(), &[]);
    require_gpu(&out);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(text(&out.stdout).contains("(bind pose)"));
    let out = kiln(
        &[
            "preview",
            source.to_str().unwrap(),
            "-o",
            "house.png",
            "--tile",
            "64",
        ],
        dir.path(),
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let image = decode_png(&std::fs::read(dir.path().join("house.png")).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (64, 64));
    // The brick texture (TGA) is read: mortar-light and brick-red texels both show.
    let reddish = image
        .rgba
        .chunks_exact(4)
        .filter(|p| p[0] > 80 && p[0] as u32 > 2 * p[2] as u32)
        .count();
    assert!(reddish > 20, "{reddish}");
}

#[test]
fn no_adapter_is_one_line_and_exit_status_3() {
    let dir = tempfile::tempdir().unwrap();
    let f = tube(&TubeOptions::default());
    write_fixture(&f, dir.path(), "m", true);
    // The Vulkan loader finds no driver.
    let no_driver = [
        ("VK_ICD_FILENAMES", "/nonexistent/icd.json"),
        ("VK_DRIVER_FILES", "/nonexistent/icd.json"),
        ("VK_ADD_DRIVER_FILES", ""),
    ];
    for args in [
        &["verify", "m.mesh"][..],
        &["preview", "m.mesh", "-o", "x.png"][..],
    ] {
        let out = kiln(args, dir.path(), &no_driver);
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        let lines: Vec<String> = text(&out.stderr)
            .lines()
            .filter(|l| l.starts_with("kiln:"))
            .map(str::to_string)
            .collect();
        assert_eq!(lines.len(), 1, "{lines:?}");
        assert!(
            lines[0].starts_with("kiln: error: no GPU adapter found"),
            "{lines:?}"
        );
        assert!(lines[0].ends_with("apt-get install mesa-vulkan-drivers"));
        assert!(!dir.path().join("x.png").exists());
    }
}

#[test]
fn verify_and_preview_morph_the_blend_shape_tube() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("tube.fbx"),
        kiln_testkit::fixtures::morph::morph_tube_file(true),
    )
    .unwrap();
    let out = kiln(&["verify", "tube.fbx"], d, &[]);
    require_gpu(&out);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert!(
        text(&out.stdout).contains("morph targets: 6 (weight texture 6×31×1 R32F)"),
        "{}",
        text(&out.stdout)
    );
    // The kiln-layout files it converts to verify the same way.
    let out = kiln(&["convert", "tube.fbx", "-o", "out"], d, &[]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let out = kiln(&["verify", "out/tube.mesh"], d, &[]);
    assert!(
        out.status.success(),
        "{}{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    let out = kiln(
        &[
            "preview",
            "out/tube.mesh",
            "-o",
            "sheet.png",
            "--tile",
            "64",
            "--frames",
            "0,15,30",
        ],
        d,
        &[],
    );
    assert!(out.status.success(), "{}", text(&out.stderr));
    let image = decode_png(&std::fs::read(d.join("sheet.png")).unwrap()).unwrap();
    assert_eq!((image.width, image.height), (3 * 64, 64));
}
