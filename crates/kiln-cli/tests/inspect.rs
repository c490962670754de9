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
        ("flipped.mesh", "checksum mismatch"),
    ] {
        let o = kiln(&["inspect", file], t.path());
        assert_eq!(o.status.code(), Some(1), "{file}");
        let err = text(&o.stderr);
        assert!(err.contains(&format!("kiln: error: {file}")), "{err}");
        assert!(err.contains(why), "{file}: {err}");
    }
}
