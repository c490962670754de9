//! `include/kiln_capi.h` from C: a program (`tests/c/convert.c`) compiled with the system C
//! compiler against the header and this crate's static library converts corpus models through
//! `kiln_convert_memory` (its `.mtl` files and textures through the loader callback) and writes
//! the outputs; they must equal, byte for byte, what `kiln convert` (`kiln::convert_file`, the
//! CLI's driver) writes for the same file and layout. For the kiln layout it also opens the
//! runtime on its outputs and prints each clip's palette, which must equal kiln-anim's bit for
//! bit. Bad input through every entry point is an error, never a crash; under valgrind (when
//! installed) every result and runtime is freed exactly once and nothing leaks.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kiln::anim::sample::Wrap;
use kiln::anim::{AnimationClip, Pose, Skeleton};
use kiln::format::kiln::{ClipView, MeshView};
use kiln::{ConvertOptions, Layout};
use kiln_testkit::corpus;
use kiln_testkit::process::{Limits, compile_c, run_limited};

/// The static library cargo built for this test run: the newest `libkiln_capi*.a` beside the
/// test executable (`deps/`) or one folder up.
fn static_library() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    let deps = exe.parent().unwrap();
    let mut found: Vec<(std::time::SystemTime, PathBuf)> = [deps, deps.parent().unwrap()]
        .iter()
        .flat_map(|d| std::fs::read_dir(d).into_iter().flatten().flatten())
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("libkiln_capi") && n.ends_with(".a"))
        })
        .filter_map(|p| Some((p.metadata().ok()?.modified().ok()?, p)))
        .collect();
    found.sort();
    found
        .pop()
        .map(|(_, p)| p)
        .expect("cargo builds libkiln_capi.a with the crate (crate-type staticlib)")
}

/// Compiles the C program once.
fn program() -> &'static Path {
    static EXE: OnceLock<PathBuf> = OnceLock::new();
    EXE.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"));
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiln-capi");
        std::fs::create_dir_all(&dir).unwrap();
        let exe = dir.join("convert");
        let mut cc = Command::new("cc");
        cc.args([
            "-std=c99",
            "-O1",
            "-g",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-pedantic",
        ])
        .arg("-I")
        .arg(root.join("../../include"))
        .arg(root.join("tests/c/convert.c"))
        .arg(static_library())
        .args([
            "-lgcc_s",
            "-lutil",
            "-lrt",
            "-lpthread",
            "-lm",
            "-ldl",
            "-lc",
        ])
        .arg("-o")
        .arg(&exe);
        compile_c(&mut cc);
        exe
    })
}

/// Files of a folder, by name.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| {
            (
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(e.path()).unwrap(),
            )
        })
        .collect();
    out.sort();
    out
}

/// kiln-anim's palette bits of the kiln-layout outputs in `dir` (mesh `name.mesh`, clips as
/// the C program lists them), at the C program's times.
fn palettes(dir: &Path, c_files: &[String]) -> Vec<String> {
    let mesh_name = c_files.iter().find(|f| f.ends_with(".mesh")).unwrap();
    let mesh = std::fs::read(dir.join(mesh_name)).unwrap();
    let view = MeshView::parse(&mesh).unwrap();
    let model = view.to_model();
    let offsets = view.skin_offsets();
    let skeleton = Skeleton::new(&model.bones, &offsets).unwrap();
    let mut pose = Pose::new(&skeleton);
    let mut lines = Vec::new();
    for (c, clip_name) in c_files.iter().filter(|f| f.ends_with(".clip")).enumerate() {
        let bytes = std::fs::read(dir.join(clip_name)).unwrap();
        let clip = ClipView::parse(&bytes).unwrap().to_clip();
        let (bound, _) = AnimationClip::bind(&skeleton, &clip).unwrap();
        for t in [0.0f32, 1.5, 4.25] {
            bound.evaluate(&skeleton, t, Wrap::Loop, &mut pose).unwrap();
            let mut line = format!("palette {c} {t}");
            for m in pose.skinning() {
                for x in m.to_cols_array() {
                    line.push_str(&format!(" {:08x}", x.to_bits()));
                }
            }
            lines.push(line);
        }
    }
    lines
}

fn run_c(model: &Path, out: &Path, layout: u32, extra: &[&str]) -> String {
    let mut cmd = Command::new(program());
    cmd.arg(model).arg(out).arg(layout.to_string()).args(extra);
    let o = run_limited(&mut cmd, Limits::C_PROGRAM).unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(o.status.success(), "{}: {text}", model.display());
    text
}

#[test]
fn the_c_program_converts_corpus_models_as_the_cli_does() {
    corpus::require();
    let models = [
        "OBJ/spider.obj",
        "OBJ/WusonOBJ.obj",
        "FBX/spider.fbx",
        "FBX/animation_with_skeleton.fbx",
        "FBX/huesitos.fbx",
        "FBX/box_orphant_embedded_texture.fbx",
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut palettes_checked = 0;
    for rel in models {
        let model = corpus::path(rel);
        for (layout, kind) in [(0u32, Layout::Kiln), (1, Layout::Classic)] {
            let c_dir = tmp
                .path()
                .join(format!("c-{layout}-{}", rel.replace('/', "_")));
            let cli_dir = tmp
                .path()
                .join(format!("cli-{layout}-{}", rel.replace('/', "_")));
            std::fs::create_dir_all(&c_dir).unwrap();
            let text = run_c(&model, &c_dir, layout, &[]);
            let converted =
                kiln::convert_file(&model, &cli_dir, &ConvertOptions::with_layout(kind)).unwrap();
            let c_files: Vec<String> = text
                .lines()
                .filter_map(|l| l.strip_prefix("file: "))
                .map(|l| l.rsplit_once(' ').unwrap().0.to_string())
                .collect();
            assert_eq!(c_files.len(), converted.written.len(), "{rel}: {text}");
            assert_eq!(files(&c_dir), files(&cli_dir), "{rel}, layout {layout}");
            // The same warnings, in the same order, as `kiln convert` prints them; where one
            // names a file looked for, it names it relative to the model (the loader's name),
            // where `kiln convert` names it in the model's folder.
            let warnings: Vec<&str> = text
                .lines()
                .filter_map(|l| l.strip_prefix("warning: "))
                .collect();
            let folder = format!("{}/", model.parent().unwrap().display());
            let want: Vec<String> = converted
                .warnings
                .iter()
                .map(|w| w.to_string().replace(&folder, ""))
                .collect();
            assert_eq!(warnings, want, "{rel}");
            assert!(text.contains("summary: "), "{text}");
            if layout == 0 && c_files.iter().any(|f| f.ends_with(".clip")) {
                let got: Vec<&str> = text.lines().filter(|l| l.starts_with("palette ")).collect();
                assert_eq!(got, palettes(&c_dir, &c_files), "{rel}");
                palettes_checked += 1;
            }
        }
    }
    assert!(palettes_checked >= 2, "{palettes_checked}");
}

#[test]
fn bad_input_through_every_entry_point_is_an_error() {
    corpus::require();
    let tmp = tempfile::tempdir().unwrap();
    let text = run_c(&corpus::path("OBJ/box.obj"), tmp.path(), 0, &["bad"]);
    let errors: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("error: "))
        .collect();
    assert_eq!(errors.len(), 4, "{text}");
    assert!(errors[0].contains("null file name"), "{text}");
    assert!(errors[1].starts_with("junk.fbx: "), "{text}");
    assert!(errors[2].starts_with("junk.txt: "), "{text}");
    assert!(errors[3].contains("layout 7"), "{text}");
    assert!(text.contains("runtime error: .mesh: "), "{text}");
}

/// Under valgrind's memcheck (installed on this project's machines; skipped with a note where
/// it is not): no invalid read or write, every result freed once, nothing definitely lost.
#[test]
fn valgrind_finds_no_error_and_no_leak() {
    corpus::require();
    let Ok(v) = Command::new("valgrind").arg("--version").output() else {
        eprintln!("valgrind is not installed: skipped");
        return;
    };
    assert!(v.status.success());
    let tmp = tempfile::tempdir().unwrap();
    let mut cmd = Command::new("valgrind");
    cmd.args([
        "--error-exitcode=99",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite",
        "-q",
    ])
    .arg(program())
    .arg(corpus::path("FBX/animation_with_skeleton.fbx"))
    .arg(tmp.path())
    .arg("0")
    .arg("bad");
    let limits = Limits {
        memory_bytes: 8 << 30,
        seconds: 300,
    };
    let o = run_limited(&mut cmd, limits).unwrap();
    assert!(
        o.status.success(),
        "valgrind: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
}
