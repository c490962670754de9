//! The `kiln` binary on good and bad input: exit codes, one line per failure naming the file,
//! the batch going on past a failure, and no partial output.

use std::path::{Path, PathBuf};

mod common;
use common::{kiln, stderr};

const CUBE_OBJ: &str = "mtllib cube.mtl\nv 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n\
vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\nusemtl red\nf 1/1 4/4 3/3 2/2\nf 5/1 6/2 7/3 8/4\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";
const CUBE_MTL: &str = "newmtl red\nKd 1 0 0\nmap_Kd red.png\n";

fn write(dir: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Files left in `dir` (names), sorted.
fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

#[test]
fn converts_a_cube_with_its_material_and_texture() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "cube.obj", CUBE_OBJ.as_bytes());
    write(t.path(), "cube.mtl", CUBE_MTL.as_bytes());
    write(t.path(), "red.png", b"not really a png");
    let o = kiln(&["convert", "cube.obj", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    // 8 bones? no: root + one object node; 6 quads -> 12 triangles, 24 corners.
    assert!(
        stdout.contains("cube.obj: 2 bones, 1 mesh parts, 24 vertices, 12 triangles, 2 materials"),
        "{stdout}"
    );
    assert_eq!(
        listing(&t.path().join("out")),
        ["cube.kiln.json", "cube.mesh", "cube.xml", "red.png"]
    );
    let xml = std::fs::read_to_string(t.path().join("out/cube.xml")).unwrap();
    assert!(xml.contains("<DiffuseFile>red.png</DiffuseFile>"), "{xml}");
    // The default layout is the kiln layout.
    let mesh = std::fs::read(t.path().join("out/cube.mesh")).unwrap();
    let mesh = kiln::format::kiln::AlignedBytes::from_bytes(&mesh);
    let view = kiln::format::kiln::MeshView::parse(&mesh).unwrap();
    assert_eq!(view.bone_records().len(), 2, "bone count");
}

#[test]
fn bad_inputs_fail_with_one_line_each_and_the_batch_goes_on() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    write(dir, "good.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    write(dir, "empty.obj", b"");
    write(
        dir,
        "garbage.obj",
        &(0..4096u32)
            .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
            .collect::<Vec<u8>>(),
    );
    write(dir, "range.obj", b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\n");
    write(dir, "nan.obj", b"v 0 0 0\nv nan 0 0\nv 0 1 0\nf 1 2 3\n");
    write(dir, "huge.obj", b"v 0 0 0\nv 1e39 0 0\nv 0 1 0\nf 1 2 3\n");
    write(dir, "truncated.obj", b"v 0 0 0\nv 1 0 0\nv 1 1");
    std::fs::create_dir(dir.join("folder.obj")).unwrap();
    let bad = [
        "missing.obj",
        "empty.obj",
        "garbage.obj",
        "range.obj",
        "nan.obj",
        "huge.obj",
        "truncated.obj",
        "folder.obj",
    ];
    let mut args = vec!["convert", "good.obj"];
    args.extend(bad);
    args.extend(["-o", "out"]);
    let o = kiln(&args, dir);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let error_lines: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("kiln: error: "))
        .collect();
    assert_eq!(
        error_lines.len(),
        bad.len(),
        "one line per bad file:\n{err}"
    );
    for name in bad {
        assert!(
            error_lines.iter().any(|l| l.contains(name)),
            "no error line names {name}:\n{err}"
        );
    }
    assert!(
        err.contains(&format!(
            "kiln: {} files: 1 converted, 0 up to date, {} failed",
            bad.len() + 1,
            bad.len()
        )),
        "{err}"
    );
    assert!(
        error_lines
            .iter()
            .any(|l| l.contains("range.obj") && l.contains("line 4")),
        "{err}"
    );
    // The good file converted; nothing of the bad ones, and no temporary files.
    assert_eq!(
        listing(&dir.join("out")),
        ["good.kiln.json", "good.mesh", "good.xml"]
    );
}

#[test]
fn missing_material_library_warns_and_strict_makes_it_an_error() {
    let t = tempfile::tempdir().unwrap();
    write(
        t.path(),
        "m.obj",
        b"mtllib nowhere.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    let o = kiln(&["convert", "m.obj", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stderr(&o).contains("nowhere.mtl"), "{}", stderr(&o));
    let o = kiln(&["convert", "m.obj", "-o", "strict", "--strict"], t.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(stderr(&o).contains("kiln: error: m.obj"), "{}", stderr(&o));
    assert!(listing(&t.path().join("strict")).is_empty());
    assert!(
        stderr(&o).contains("1 denied warning(s) (obj.mtllib-missing); nothing written"),
        "{}",
        stderr(&o)
    );
    // Allowing the code lets --strict pass.
    let o = kiln(
        &[
            "convert",
            "m.obj",
            "-o",
            "allowed",
            "--strict",
            "--allow",
            "obj.mtllib-missing",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    // Into the folder of the first run: the input fails, and a failed input leaves nothing of
    // its own behind, not even the earlier run's outputs (a build must not use stale files).
    assert_eq!(
        listing(&t.path().join("out")),
        ["m.kiln.json", "m.mesh", "m.xml"]
    );
    let o = kiln(&["convert", "m.obj", "-o", "out", "--strict"], t.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(listing(&t.path().join("out")).is_empty());
}

#[test]
fn missing_texture_is_a_warning_naming_the_path() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "cube.obj", CUBE_OBJ.as_bytes());
    write(t.path(), "cube.mtl", CUBE_MTL.as_bytes());
    let o = kiln(&["convert", "cube.obj", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("kiln: warning: cube.obj: texture 'red.png' not found"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        listing(&t.path().join("out")),
        ["cube.kiln.json", "cube.mesh", "cube.xml"]
    );
}

#[test]
fn unsupported_extension_is_an_error() {
    let t = tempfile::tempdir().unwrap();
    write(t.path(), "model.xyz", b"hello");
    let o = kiln(&["convert", "model.xyz"], t.path());
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains("model.xyz: unsupported file type"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn demo_converts_the_built_in_house() {
    let t = tempfile::tempdir().unwrap();
    let o = kiln(&["demo", "-o", "d"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("house.fbx: 3 bones, 3 mesh parts"),
        "{stdout}"
    );
    assert_eq!(
        listing(&t.path().join("d")),
        [
            "bricks.tga",
            "house.kiln.json",
            "house.mesh",
            "house.xml",
            "source"
        ]
    );
}

#[test]
fn completions_complete_every_command_in_each_shell() {
    let t = tempfile::tempdir().unwrap();
    let o = kiln(&["completions", "bash"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let bash = String::from_utf8_lossy(&o.stdout);
    assert!(bash.contains("_kiln()"), "{bash}");
    assert!(bash.contains("complete -F _kiln"), "{bash}");
    for command in ["convert", "inspect", "dump", "completions", "man"] {
        assert!(bash.contains(command), "no {command} in:\n{bash}");
    }
    assert!(bash.contains("--csv-legacy"), "{bash}");
    for (shell, sign) in [
        ("zsh", "#compdef kiln"),
        ("fish", "complete -c kiln"),
        ("powershell", "Register-ArgumentCompleter"),
        ("elvish", "edit:completion:arg-completer[kiln]"),
    ] {
        let o = kiln(&["completions", shell], t.path());
        assert!(o.status.success(), "{shell}: {}", stderr(&o));
        let script = String::from_utf8_lossy(&o.stdout);
        assert!(script.contains(sign), "{shell}:\n{script}");
        assert!(script.contains("convert"), "{shell}:\n{script}");
    }
    let o = kiln(&["completions", "tcsh"], t.path());
    assert_eq!(
        o.status.code(),
        Some(2),
        "an unknown shell is a usage error"
    );
}

#[test]
fn man_prints_the_page_or_writes_one_per_command() {
    let t = tempfile::tempdir().unwrap();
    let o = kiln(&["man"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let page = String::from_utf8_lossy(&o.stdout);
    assert!(page.contains("\n.TH kiln 1"), "{page}");
    assert!(page.contains(".SH SUBCOMMANDS"), "{page}");
    assert!(page.contains("kiln\\-inspect"), "{page}");

    let o = kiln(&["man", "-o", "pages"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let pages = listing(&t.path().join("pages"));
    for name in ["kiln.1", "kiln-convert.1", "kiln-inspect.1", "kiln-man.1"] {
        assert!(pages.iter().any(|p| p == name), "no {name} in {pages:?}");
    }
    assert!(!pages.iter().any(|p| p == "kiln-help.1"), "{pages:?}");
    let printed = String::from_utf8_lossy(&o.stdout);
    assert_eq!(printed.lines().count(), pages.len(), "{printed}");
    let inspect = std::fs::read_to_string(t.path().join("pages/kiln-inspect.1")).unwrap();
    assert!(
        inspect.contains("\n.TH kiln-inspect 1  \"kiln "),
        "{inspect}"
    );
    assert!(inspect.contains("\\-\\-json"), "{inspect}");
    // The page printed is the one written.
    assert_eq!(
        std::fs::read(t.path().join("pages/kiln.1")).unwrap(),
        page.as_bytes()
    );
}
