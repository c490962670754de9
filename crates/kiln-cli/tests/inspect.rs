//! `kiln convert` layouts and `kiln inspect` on both layouts, text and JSON.

use std::path::Path;
use std::process::{Command, Output};

use kiln::format::kiln::{AlignedBytes, MeshView};
use kiln_testkit::process::{Limits, run_limited};

fn kiln(args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.args(args).current_dir(cwd);
    run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run kiln: {e}"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Two quads with UVs in one group: 8 corners, 4 triangles after triangulation.
const OBJ: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 2 0 0\nv 2 1 0\n\
vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\no panel\nf 1/1 2/2 3/3 4/4\nf 2/1 5/2 6/3 3/4\n";

fn convert(dir: &Path, out: &str, extra: &[&str]) -> Vec<u8> {
    std::fs::write(dir.join("p.obj"), OBJ).unwrap();
    let mut args = vec!["convert", "p.obj", "-o", out];
    args.extend(extra);
    let o = kiln(&args, dir);
    assert!(o.status.success(), "{}", text(&o.stderr));
    std::fs::read(dir.join(out).join("p.mesh")).unwrap()
}

#[test]
fn convert_defaults_to_kiln_and_classic_keeps_the_original_bytes() {
    let t = tempfile::tempdir().unwrap();
    let kiln_bytes = convert(t.path(), "k", &[]);
    assert_eq!(&kiln_bytes[..8], b"KILNMESH");
    let classic_bytes = convert(t.path(), "c", &["--layout", "classic"]);
    let model = kiln::format::classic::read_mesh(&classic_bytes).unwrap();
    // Both files hold the same model.
    let aligned = AlignedBytes::from_bytes(&kiln_bytes);
    let view = MeshView::parse(&aligned).unwrap();
    view.verify_checksum().unwrap();
    assert_eq!(view.to_model(), model);
    assert_eq!(view.vertex_count(), 8);
    assert_eq!(view.index_count(), 12);
    // --quantize: smaller, same counts.
    let q = convert(t.path(), "q", &["--quantize-positions"]);
    assert!(q.len() < kiln_bytes.len());
    let aligned = AlignedBytes::from_bytes(&q);
    let qv = MeshView::parse(&aligned).unwrap();
    assert!(qv.is_quantized());
    assert_eq!(qv.vertex_count(), 8);
}

#[test]
fn inspect_kiln_mesh_text_and_json() {
    let t = tempfile::tempdir().unwrap();
    convert(t.path(), "k", &[]);
    let o = kiln(&["inspect", "k/p.mesh"], t.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert!(out.contains("mesh kiln layout version 1.0"), "{out}");
    assert!(out.contains("checksum: xxh3-64"), "{out}");
    assert!(out.contains("(ok)"), "{out}");
    assert!(out.contains("POSITIONS_F32"), "{out}");
    assert!(out.contains("8 vertices"), "{out}");
    // 8 vertices × 68 bytes; quantised 36 and 32 per vertex.
    assert!(
        out.contains("544 bytes here; kiln f32 544 bytes, --quantize 288 bytes (-47.1%), --quantize-positions 256 bytes (-52.9%)"),
        "{out}"
    );

    let o = kiln(&["inspect", "--json", "k/p.mesh"], t.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["layout"], "kiln");
    assert_eq!(v["type"], "mesh");
    assert_eq!(v["checksum"]["ok"], true);
    assert_eq!(v["counts"]["vertices"], 8);
    assert_eq!(v["counts"]["triangles"], 4);
    assert_eq!(v["counts"]["bones"], 2);
    assert_eq!(v["encoding"]["indices"], "u16");
    assert_eq!(v["bones"][1]["name"], "panel");
    assert_eq!(v["bones"][1]["parent"], 0);
    assert_eq!(v["parts"][0]["vertices"], serde_json::json!([0, 8]));
    let size = std::fs::metadata(t.path().join("k/p.mesh")).unwrap().len();
    assert_eq!(v["size"], size);
    let sections = v["sections"].as_array().unwrap();
    assert_eq!(sections.len(), 12);
    assert!(
        sections
            .iter()
            .all(|s| s["offset"].as_u64().unwrap() % 16 == 0)
    );
}

#[test]
fn inspect_quantised_and_classic_files() {
    let t = tempfile::tempdir().unwrap();
    convert(t.path(), "q", &["--quantize"]);
    let o = kiln(&["inspect", "--json", "q/p.mesh"], t.path());
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["encoding"]["normals"], "oct snorm16x2");
    assert_eq!(v["encoding"]["positions"], "f32x3");
    assert_eq!(v["size_saving"]["vertex_stream_bytes"], 8 * 36);
    assert_eq!(v["size_saving"]["this_file_saving_percent"], 47.1);
    assert!(v["quantization"]["uv_extent"].is_array());

    convert(t.path(), "c", &["--layout", "classic"]);
    let o = kiln(&["inspect", "--json", "c/p.mesh"], t.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["layout"], "classic");
    assert_eq!(v["counts"]["vertices"], 8);
    assert_eq!(v["parts"][0]["vertex_count"], 8);
    let o = kiln(&["inspect", "c/p.mesh"], t.path());
    assert!(
        text(&o.stdout).contains("mesh classic layout"),
        "{}",
        text(&o.stdout)
    );
}

#[test]
fn inspect_clips_in_both_layouts() {
    use kiln::format::{Clip, Keyframe, Track};
    let t = tempfile::tempdir().unwrap();
    let clip = Clip {
        name: "wave".into(),
        duration: 2.0,
        frame_rate: 24.0,
        frame_count: 3,
        tracks: ["root", "hand"]
            .iter()
            .map(|n| Track {
                bone_name: (*n).into(),
                keyframes: (0..3)
                    .map(|f| Keyframe {
                        time: f as f32,
                        ..Default::default()
                    })
                    .collect(),
            })
            .collect(),
        weight_tracks: Vec::new(),
    };
    std::fs::write(
        t.path().join("k.clip"),
        kiln::format::kiln::write_clip(&clip).unwrap(),
    )
    .unwrap();
    std::fs::write(
        t.path().join("c.clip"),
        kiln::format::classic::write_clip(&clip),
    )
    .unwrap();
    for (file, layout) in [("k.clip", "kiln"), ("c.clip", "classic")] {
        let o = kiln(&["inspect", "--json", file], t.path());
        assert!(o.status.success(), "{}", text(&o.stderr));
        let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
        assert_eq!(v["layout"], layout);
        assert_eq!(v["clip"]["name"], "wave");
        assert_eq!(v["clip"]["frames"], 3);
        assert_eq!(v["clip"]["tracks"], 2);
        let o = kiln(&["inspect", file], t.path());
        assert!(
            text(&o.stdout).contains("clip wave: 3 frames at 24.0 fps"),
            "{}",
            text(&o.stdout)
        );
    }
}

#[test]
fn inspect_refuses_bad_files_with_one_line() {
    let t = tempfile::tempdir().unwrap();
    let good = convert(t.path(), "k", &[]);
    std::fs::write(t.path().join("junk.bin"), b"hello").unwrap();
    std::fs::write(t.path().join("empty.mesh"), b"").unwrap();
    std::fs::create_dir(t.path().join("folder.mesh")).unwrap();
    let mut newer = good.clone();
    newer[16] = 2;
    std::fs::write(t.path().join("newer.mesh"), &newer).unwrap();
    let mut flipped = good.clone();
    let n = flipped.len();
    flipped[n - 1] ^= 0x20; // a byte of a name in the string table: still valid UTF-8
    std::fs::write(t.path().join("flipped.mesh"), &flipped).unwrap();
    for (file, why) in [
        ("junk.bin", "not a kiln file"),
        ("empty.mesh", "classic .mesh"),
        ("newer.mesh", "version 2.0 is not supported"),
        ("missing.mesh", "cannot open"),
        ("folder.mesh", "is a folder"),
        ("flipped.mesh", "checksum mismatch"),
    ] {
        let o = kiln(&["inspect", file], t.path());
        assert_eq!(o.status.code(), Some(1), "{file}");
        let err = text(&o.stderr);
        assert!(err.contains(&format!("kiln: error: {file}")), "{err}");
        assert!(err.contains(why), "{file}: {err}");
    }
}

/// The cube of `tests/cli.rs`: 8 corners 0..1, six quads, a material `red` with a diffuse
/// texture `red.png`.
const CUBE_OBJ: &str = "mtllib cube.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\no box\nusemtl red\nf 1/1 4/4 3/3 2/2\nf 5/1 6/2 7/3 8/4\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
const CUBE_MTL: &str = "newmtl red\nKd 1 0 0\nmap_Kd red.png\n";

fn json_of(o: &Output) -> serde_json::Value {
    assert!(o.status.success(), "{}", text(&o.stderr));
    serde_json::from_slice(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&o.stdout)))
}

fn floats(v: &serde_json::Value) -> Vec<f64> {
    v.as_array()
        .unwrap_or_else(|| panic!("not an array: {v}"))
        .iter()
        .map(|x| x.as_f64().unwrap_or_else(|| panic!("not a number: {x}")))
        .collect()
}

#[test]
fn inspect_an_obj_reports_the_scene_the_converted_model_and_the_warnings() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("cube.obj"), CUBE_OBJ).unwrap();
    std::fs::write(t.path().join("cube.mtl"), CUBE_MTL).unwrap();
    let v = json_of(&kiln(&["inspect", "--json", "cube.obj"], t.path()));
    assert_eq!(v["type"], "model");
    assert_eq!(v["format"], "obj");
    assert_eq!(v["file"], "cube.obj");
    assert_eq!(v["size"], CUBE_OBJ.len());
    // As authored: the root and the object `box`; one vertex per corner of six quads.
    let scene = &v["scene"];
    assert_eq!(scene["nodes"], 2);
    assert_eq!(scene["meshes"], 1);
    assert_eq!(scene["vertices"], 24);
    assert_eq!(scene["faces"], 6);
    assert_eq!(scene["materials"], 2, "the default material and red");
    assert_eq!(scene["skins"], 0);
    assert_eq!(scene["animations"], 0);
    assert_eq!(v["nodes"][1]["name"], "box");
    assert_eq!(v["nodes"][1]["parent"], 0);
    assert_eq!(v["nodes"][1]["depth"], 1);
    assert_eq!(v["nodes"][1]["meshes"], serde_json::json!([0]));
    let mesh = &v["meshes"][0];
    assert_eq!(mesh["material"], "red");
    assert_eq!(mesh["faces"], 6);
    assert_eq!(mesh["triangles"], 12);
    assert_eq!(mesh["primitives"], serde_json::json!(["polygons"]));
    // What `kiln convert` writes: the same counts as its summary line.
    let counts = &v["counts"];
    assert_eq!(counts["bones"], 2);
    assert_eq!(counts["parts"], 1);
    assert_eq!(counts["vertices"], 24);
    assert_eq!(counts["triangles"], 12);
    assert_eq!(counts["clips"], 0);
    // Left-handed: z runs from -1 to 0.
    assert_eq!(floats(&v["bounds"]["min"]), [0.0, 0.0, -1.0]);
    assert_eq!(floats(&v["bounds"]["max"]), [1.0, 1.0, 0.0]);
    let red = v["materials"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == "red")
        .expect("material red");
    assert_eq!(floats(&red["diffuse_color"]), [1.0, 0.0, 0.0]);
    assert_eq!(red["textures"][0]["slot"], "diffuse");
    assert_eq!(red["textures"][0]["file"], "red.png");
    assert_eq!(red["textures"][0]["found"], false);
    let warnings = v["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert_eq!(warnings[0]["code"], "pipeline.texture-missing");
    assert!(
        warnings[0]["message"]
            .as_str()
            .unwrap()
            .contains("texture 'red.png' not found"),
        "{warnings:?}"
    );

    let o = kiln(&["inspect", "cube.obj"], t.path());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    for line in [
        format!("cube.obj: OBJ model, {} bytes", CUBE_OBJ.len()),
        "scene: 2 nodes, 1 meshes, 24 vertices, 6 faces, 2 materials".into(),
        "converted: 2 bones, 1 parts, 24 vertices, 12 triangles, 2 materials, 0 clips".into(),
        "bounds: min (0.0, 0.0, -1.0) max (1.0, 1.0, 0.0)".into(),
        "    box  meshes 0".into(),
        "  0 'box'  material red  24 vertices, 6 faces (polygons) -> 12 triangles".into(),
        "  red  diffuse red.png (not found)".into(),
        "warnings (1):".into(),
        "  pipeline.texture-missing: texture 'red.png' not found".into(),
    ] {
        assert!(out.contains(&line), "no {line:?} in:\n{out}");
    }

    // With the texture beside it: found, and no warning.
    std::fs::write(t.path().join("red.png"), b"a png").unwrap();
    let v = json_of(&kiln(&["inspect", "--json", "cube.obj"], t.path()));
    assert_eq!(v["materials"][1]["textures"][0]["found"], true);
    assert_eq!(v["warnings"], serde_json::json!([]));
}

#[test]
fn inspect_a_model_file_that_does_not_import_fails_with_one_line() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("range.obj"), "v 0 0 0\nv 1 0 0\nf 1 2 9\n").unwrap();
    std::fs::write(t.path().join("bad.fbx"), "not an fbx").unwrap();
    for file in ["range.obj", "bad.fbx"] {
        let o = kiln(&["inspect", file], t.path());
        assert_eq!(o.status.code(), Some(1), "{file}");
        let err = text(&o.stderr);
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(err.starts_with(&format!("kiln: error: {file}: ")), "{err}");
        assert!(o.stdout.is_empty());
    }
}

/// A part of four vertices spanning x -1.5..3, y -0.5..2, z 0.25..4.
fn bounds_model() -> kiln::format::Model {
    use kiln::format::{Bone, IDENTITY, MeshPart, Model, Vertex};
    let v = |position: [f32; 3]| Vertex {
        position,
        blend_weights: [1.0, 0.0, 0.0, 0.0],
        ..Vertex::default()
    };
    Model {
        bones: vec![Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        }],
        meshes: vec![MeshPart {
            name: "root".into(),
            vertices: vec![
                v([-1.5, 0.0, 1.0]),
                v([3.0, 2.0, 0.25]),
                v([0.0, -0.5, 4.0]),
                v([1.0, 1.0, 1.0]),
            ],
            indices: vec![0, 1, 2, 0, 2, 3],
            bone_index: 0,
            material_name: String::new(),
            morph_targets: Vec::new(),
        }],
    }
}

#[test]
fn inspect_mesh_reports_bounds_in_both_layouts() {
    use kiln::format::kiln::{MeshOptions, Quantize, write_mesh};
    let t = tempfile::tempdir().unwrap();
    let model = bounds_model();
    let write = |name: &str, bytes: Vec<u8>| std::fs::write(t.path().join(name), bytes).unwrap();
    write("classic.mesh", kiln::format::classic::write_mesh(&model));
    for (name, quantize) in [
        ("kiln.mesh", Quantize::None),
        ("quantized.mesh", Quantize::AttributesAndPositions),
    ] {
        let options = MeshOptions {
            quantize,
            offset_matrices: None,
        };
        write(name, write_mesh(&model, &[], &options).unwrap());
    }
    for file in ["classic.mesh", "kiln.mesh", "quantized.mesh"] {
        let v = json_of(&kiln(&["inspect", "--json", file], t.path()));
        let (min, max) = (floats(&v["bounds"]["min"]), floats(&v["bounds"]["max"]));
        // unorm16 positions decode as min + extent * q / 65535: exact at both ends here, and
        // within a code of them in any case.
        for (got, want) in min.iter().zip([-1.5, -0.5, 0.25]) {
            assert!((got - want).abs() <= 1e-4, "{file}: min {min:?}");
        }
        for (got, want) in max.iter().zip([3.0, 2.0, 4.0]) {
            assert!((got - want).abs() <= 1e-4, "{file}: max {max:?}");
        }
        let o = kiln(&["inspect", file], t.path());
        assert!(o.status.success(), "{}", text(&o.stderr));
        if file != "quantized.mesh" {
            assert!(
                text(&o.stdout).contains("bounds: min (-1.5, -0.5, 0.25) max (3.0, 2.0, 4.0)"),
                "{file}:\n{}",
                text(&o.stdout)
            );
        }
    }
}

/// Runs `kiln ARGS` (in `dir`) with its standard output a pipe whose reading end is already
/// closed when it starts, and returns what the shell saw: its standard error, then a line
/// `kiln exit STATUS`.
///
/// The shell's reader closes its end, then opens the FIFO `go` to write, which waits until the
/// writer side opens it to read: so `kiln` starts only after its reader has gone, and its
/// first write to standard output fails with EPIPE, every time.
fn with_closed_stdout(args: &str, dir: &Path) -> String {
    let script = format!(
        "mkfifo go && {{ read x < go; \"$KILN\" {args}; echo \"kiln exit $?\" >&2; }} \
         | {{ exec 0<&-; echo go > go; }}"
    );
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg(script)
        .env("KILN", env!("CARGO_BIN_EXE_kiln"))
        .current_dir(dir);
    let o = run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run sh: {e}"));
    std::fs::remove_file(dir.join("go")).unwrap();
    text(&o.stderr)
}

#[test]
fn a_closed_standard_output_ends_kiln_quietly() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("cube.obj"), CUBE_OBJ).unwrap();
    std::fs::write(t.path().join("cube.mtl"), CUBE_MTL).unwrap();
    std::fs::write(
        t.path().join("b.mesh"),
        kiln::format::classic::write_mesh(&bounds_model()),
    )
    .unwrap();
    for args in [
        "inspect --json cube.obj",
        "inspect cube.obj",
        "inspect --json b.mesh",
        "inspect b.mesh",
        "dump --csv b.mesh",
        "completions bash",
        "man",
    ] {
        let err = with_closed_stdout(args, t.path());
        assert_eq!(err, "kiln exit 0\n", "kiln {args}");
    }
}

#[test]
fn another_write_error_is_one_line_and_status_1() {
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("cube.obj"), CUBE_OBJ).unwrap();
    std::fs::write(t.path().join("cube.mtl"), CUBE_MTL).unwrap();
    // Writing to /dev/full fails with ENOSPC.
    let mut cmd = Command::new("sh");
    cmd.arg("-c")
        .arg("\"$KILN\" inspect --json cube.obj > /dev/full")
        .env("KILN", env!("CARGO_BIN_EXE_kiln"))
        .current_dir(t.path());
    let o = run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run sh: {e}"));
    assert_eq!(o.status.code(), Some(1), "{}", text(&o.stderr));
    let err = text(&o.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("kiln: error: cannot write to standard output: "),
        "{err}"
    );
}
