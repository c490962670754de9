//! `kiln convert` over asset trees: folders, globs and lists; mirrored outputs that never
//! collide; textures one file per content; manifests, incremental skips and stale outputs;
//! failed inputs that leave nothing; the report, the depfile, standard input, usage errors and
//! byte-identical results under changed conditions.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kiln_testkit::process::{Limits, run_limited_with_stdin};

mod common;
use common::{kiln, stderr, stdout};

fn write(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

/// A one-triangle OBJ using `lib`, whose material `m` has the diffuse texture `tex`.
fn obj_with_texture(dir: &Path, name: &str, lib: &str, tex: &str) {
    write(
        &dir.join(format!("{name}.obj")),
        format!("mtllib {lib}\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3\n").as_bytes(),
    );
    write(
        &dir.join(lib),
        format!("newmtl m\nKd 1 0 0\nmap_Kd {tex}\n").as_bytes(),
    );
}

/// Every file under `dir`, relative, with its bytes.
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for f in kiln_testkit::corpus::walk(dir, |_| true) {
        let rel = f
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.insert(rel, std::fs::read(&f).unwrap());
    }
    out
}

fn names(dir: &Path) -> Vec<String> {
    tree(dir).into_keys().collect()
}

fn manifest(path: &Path) -> serde_json::Value {
    serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap()
}

#[test]
fn same_names_in_two_folders_are_mirrored_with_their_own_textures() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("models");
    obj_with_texture(&m.join("a"), "x", "x.mtl", "tex.png");
    obj_with_texture(&m.join("b"), "x", "x.mtl", "tex.png");
    write(&m.join("a/tex.png"), b"texture of a");
    write(&m.join("b/tex.png"), b"texture of b");
    let o = kiln(&["convert", "models", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = tree(&t.path().join("out"));
    assert_eq!(
        out.keys().collect::<Vec<_>>(),
        [
            "a/tex.png",
            "a/x.kiln.json",
            "a/x.mesh",
            "a/x.xml",
            "b/tex.png",
            "b/x.kiln.json",
            "b/x.mesh",
            "b/x.xml"
        ]
    );
    assert_eq!(out["a/tex.png"], b"texture of a");
    assert_eq!(out["b/tex.png"], b"texture of b");
    let a = manifest(&t.path().join("out/a/x.kiln.json"));
    assert_eq!(a["manifest"], 1);
    assert_eq!(a["model"], "a/x.obj");
    let inputs: Vec<&str> = a["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["path"].as_str().unwrap())
        .collect();
    assert_eq!(inputs, ["x.obj", "x.mtl", "tex.png"]);
    let outputs: Vec<(&str, &str)> = a["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| (o["path"].as_str().unwrap(), o["kind"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outputs,
        [
            ("x.mesh", "mesh"),
            ("x.xml", "materials"),
            ("tex.png", "texture")
        ]
    );
    // The same inputs as a quoted glob and as a list give the same tree.
    let o = kiln(&["convert", "models/*/x.obj", "-o", "globbed"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&t.path().join("globbed")), out);
    write(
        &t.path().join("list.txt"),
        b"# models\nmodels/a/x.obj\n\nmodels/b/x.obj\n",
    );
    let o = kiln(&["convert", "@list.txt", "-o", "listed"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(tree(&t.path().join("listed")), out);
}

#[test]
fn one_texture_name_with_two_contents_gets_two_files() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    obj_with_texture(&m, "p", "p.mtl", "t1/skin.png");
    obj_with_texture(&m, "q", "q.mtl", "t2/skin.png");
    write(&m.join("t1/skin.png"), b"first");
    write(&m.join("t2/skin.png"), b"second");
    // In either argument order, the same files: the names do not depend on the order.
    let o = kiln(&["convert", "m/q.obj", "m/p.obj", "-o", "o1"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("[pipeline.texture-renamed]"),
        "{}",
        stderr(&o)
    );
    let o = kiln(
        &["convert", "m/p.obj", "m/q.obj", "-o", "o2", "-j", "1"],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let one = tree(&t.path().join("o1"));
    assert_eq!(one, tree(&t.path().join("o2")));
    let renamed: Vec<&String> = one
        .keys()
        .filter(|k| k.starts_with("skin-") && k.ends_with(".png"))
        .collect();
    assert_eq!(renamed.len(), 1, "{:?}", one.keys());
    assert_eq!(one["skin.png"], b"first");
    assert_eq!(one[renamed[0]], b"second");
    let q_xml = String::from_utf8(one["q.xml"].clone()).unwrap();
    assert!(
        q_xml.contains(&format!("<DiffuseFile>{}</DiffuseFile>", renamed[0])),
        "{q_xml}"
    );
    let p_xml = String::from_utf8(one["p.xml"].clone()).unwrap();
    assert!(
        p_xml.contains("<DiffuseFile>skin.png</DiffuseFile>"),
        "{p_xml}"
    );
}

#[test]
fn inputs_that_would_write_the_same_files_are_refused_before_anything_is_written() {
    let t = tempfile::tempdir().unwrap();
    write(
        &t.path().join("m/x.obj"),
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    write(&t.path().join("m/x.fbx"), b"; FBX 7.4.0 project file\n");
    let o = kiln(&["convert", "m", "-o", "out"], t.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let err = stderr(&o);
    assert!(
        err.contains("m/x.fbx and m/x.obj would both write x.mesh"),
        "{err}"
    );
    assert!(!t.path().join("out").exists());
}

#[test]
fn a_second_run_skips_what_is_up_to_date_and_a_changed_texture_reconverts_its_model() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    obj_with_texture(&m, "p", "p.mtl", "p.png");
    obj_with_texture(&m, "q", "q.mtl", "q.png");
    write(&m.join("p.png"), b"p texture");
    write(&m.join("q.png"), b"q texture");
    let report = |o: &Output, path: &Path| -> Vec<String> {
        assert!(o.status.success(), "{}", stderr(o));
        let r = manifest(path);
        r["inputs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| {
                format!(
                    "{} {}",
                    i["input"].as_str().unwrap(),
                    i["status"].as_str().unwrap()
                )
            })
            .collect()
    };
    let rpt = t.path().join("r.json");
    let o = kiln(
        &["convert", "m", "-o", "out", "--report", "r.json"],
        t.path(),
    );
    assert_eq!(report(&o, &rpt), ["m/p.obj converted", "m/q.obj converted"]);
    let first = tree(&t.path().join("out"));
    let mtime = |p: &str| {
        std::fs::metadata(t.path().join("out").join(p))
            .unwrap()
            .modified()
            .unwrap()
    };
    let before = mtime("p.mesh");
    let o = kiln(
        &["convert", "m", "-o", "out", "--report", "r.json"],
        t.path(),
    );
    assert_eq!(
        report(&o, &rpt),
        ["m/p.obj up-to-date", "m/q.obj up-to-date"]
    );
    assert!(
        stderr(&o).contains("0 converted, 2 up to date, 0 failed"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        mtime("p.mesh"),
        before,
        "an input up to date is not rewritten"
    );
    assert_eq!(tree(&t.path().join("out")), first);
    // The texture's content changes: exactly its model is converted again.
    write(&m.join("q.png"), b"q texture, repainted");
    let o = kiln(
        &["convert", "m", "-o", "out", "--report", "r.json"],
        t.path(),
    );
    assert_eq!(
        report(&o, &rpt),
        ["m/p.obj up-to-date", "m/q.obj converted"]
    );
    assert_eq!(
        std::fs::read(t.path().join("out/q.png")).unwrap(),
        b"q texture, repainted"
    );
    // Another option changes the outputs: converted again; --force converts regardless.
    let o = kiln(
        &[
            "convert", "m", "-o", "out", "--report", "r.json", "--layout", "classic",
        ],
        t.path(),
    );
    assert_eq!(report(&o, &rpt), ["m/p.obj converted", "m/q.obj converted"]);
    let o = kiln(
        &[
            "convert", "m", "-o", "out", "--report", "r.json", "--layout", "classic", "--force",
        ],
        t.path(),
    );
    assert_eq!(report(&o, &rpt), ["m/p.obj converted", "m/q.obj converted"]);
    // An output changed by hand is rewritten.
    write(&t.path().join("out/p.xml"), b"edited");
    let o = kiln(
        &[
            "convert", "m", "-o", "out", "--report", "r.json", "--layout", "classic",
        ],
        t.path(),
    );
    assert_eq!(
        report(&o, &rpt),
        ["m/p.obj converted", "m/q.obj up-to-date"]
    );
    // A texture that appears where a missing one was looked for: converted again.
    std::fs::remove_file(m.join("p.png")).unwrap();
    let o = kiln(&["convert", "m/p.obj", "-o", "out2"], t.path());
    assert!(
        stderr(&o).contains("[pipeline.texture-missing]"),
        "{}",
        stderr(&o)
    );
    let o = kiln(
        &["convert", "m/p.obj", "-o", "out2", "--report", "r.json"],
        t.path(),
    );
    assert_eq!(report(&o, &rpt), ["m/p.obj up-to-date"]);
    write(&m.join("p.png"), b"back");
    let o = kiln(
        &["convert", "m/p.obj", "-o", "out2", "--report", "r.json"],
        t.path(),
    );
    assert_eq!(report(&o, &rpt), ["m/p.obj converted"]);
    assert_eq!(std::fs::read(t.path().join("out2/p.png")).unwrap(), b"back");
}

/// A skinned tube with two animations, `Walk` and `Run`, as binary FBX.
fn two_clip_fbx() -> Vec<u8> {
    let mut scene =
        kiln_testkit::fixtures::fbx::skinned_tube(kiln_testkit::fixtures::fbx::TubeSpec {
            rings: 3,
            segments: 4,
            bones: 2,
            frames: 4,
            per_corner: false,
        });
    let mut run = scene.animations[0].clone();
    scene.animations[0].name = "Walk".into();
    run.name = "Run".into();
    scene.animations.push(run);
    kiln::fbx::write_fbx(&scene, &kiln::fbx::WriteOptions::default()).unwrap()
}

#[test]
fn clips_no_longer_written_are_removed_and_bake_takes_clips_from_the_manifest() {
    let t = tempfile::tempdir().unwrap();
    let fbx = two_clip_fbx();
    write(&t.path().join("m/a.fbx"), &fbx);
    // `a_b.fbx`: its clips start with `a_` too; they must never be taken for `a`'s.
    write(&t.path().join("m/a_b.fbx"), &fbx);
    let o = kiln(&["convert", "m", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let out = t.path().join("out");
    for f in ["a_Walk.clip", "a_Run.clip", "a_b_Walk.clip", "a_b_Run.clip"] {
        assert!(out.join(f).is_file(), "{f}: {:?}", names(&out));
    }
    let m = manifest(&out.join("a.kiln.json"));
    assert_eq!(
        m["outputs"][0]["clips"],
        serde_json::json!(["a_Walk.clip", "a_Run.clip"])
    );
    // Only Walk now: a's Run clip goes, a_b's stays.
    let o = kiln(
        &["convert", "m/a.fbx", "-o", "out", "--clips", "Walk", "-v"],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("removed"), "{}", stdout(&o));
    assert!(!out.join("a_Run.clip").exists());
    assert!(out.join("a_Walk.clip").is_file() && out.join("a_b_Run.clip").is_file());
    // The bake of a.mesh has one layer (Walk), not a_b's three others.
    let o = kiln(&["bake", "out/a.mesh", "-o", "baked"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let dds = std::fs::read(t.path().join("baked/a.dds")).unwrap();
    let array_size = u32::from_le_bytes(dds[140..144].try_into().unwrap());
    assert_eq!(array_size, 1, "one layer per clip of a, from its manifest");
    // --static drops the clips with a coded warning.
    let o = kiln(
        &["convert", "m/a.fbx", "-o", "static", "--static"],
        t.path(),
    );
    assert!(
        stderr(&o).contains("[pipeline.clips-dropped-static]"),
        "{}",
        stderr(&o)
    );
    // A clip name that is not there is a coded warning.
    let o = kiln(
        &["convert", "m/a.fbx", "-o", "picked", "--clips", "Jump"],
        t.path(),
    );
    assert!(
        stderr(&o).contains("[pipeline.clip-not-found]"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn a_batch_of_a_thousand_with_a_tenth_broken_fails_those_one_line_each_and_keeps_the_rest() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    let good = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    // 910 good models in 10 folders; 10 of them cannot be written (a folder where the .mesh
    // would go).
    for i in 0..910 {
        write(&m.join(format!("g{}/good{i:03}.obj", i / 100)), good);
    }
    let mut broken: Vec<String> = Vec::new();
    for i in 0..10 {
        std::fs::create_dir_all(t.path().join(format!("out/g0/good{i:03}.mesh"))).unwrap();
        broken.push(format!("good{i:03}.obj"));
    }
    let fbx = two_clip_fbx();
    for i in 0..20 {
        write(
            &m.join(format!("bad/trunc{i:02}.fbx")),
            &fbx[..100 + 37 * i],
        );
        write(
            &m.join(format!("bad/wrong{i:02}.fbx")),
            b"this is no FBX file, just text\n",
        );
        write(
            &m.join(format!("bad/range{i:02}.obj")),
            b"v 0 0 0\nf 1 2 9\n",
        );
        write(
            &m.join(format!("bad/nomtl{i:02}.obj")),
            b"mtllib gone.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        );
        broken.extend([
            format!("trunc{i:02}.fbx"),
            format!("wrong{i:02}.fbx"),
            format!("range{i:02}.obj"),
            format!("nomtl{i:02}.obj"),
        ]);
    }
    // Unreadable: links to nothing.
    for i in 0..10 {
        std::os::unix::fs::symlink("nowhere.obj", m.join(format!("bad/link{i:02}.obj"))).unwrap();
        broken.push(format!("link{i:02}.obj"));
    }
    // An input that converted before and is broken now: its earlier outputs go.
    std::fs::write(m.join("bad/range00.obj"), good).unwrap();
    let o = kiln(&["convert", "m", "-o", "out", "-q"], t.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(t.path().join("out/bad/range00.mesh").is_file());
    std::fs::write(m.join("bad/range00.obj"), b"v 0 0 0\nf 1 2 9\n").unwrap();

    let o = kiln(
        &["convert", "m", "-o", "out", "--deny", "obj.mtllib-missing"],
        t.path(),
    );
    assert_eq!(broken.len(), 100);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let err = stderr(&o);
    let errors: Vec<&str> = err
        .lines()
        .filter(|l| l.starts_with("kiln: error: "))
        .collect();
    assert_eq!(errors.len(), broken.len(), "one line per failure:\n{err}");
    for b in &broken {
        assert_eq!(
            errors
                .iter()
                .filter(|l| l.contains(&format!("/{b}")))
                .count(),
            1,
            "one line names {b}:\n{err}"
        );
    }
    assert!(
        err.contains("1000 files: 0 converted, 900 up to date, 100 failed; 20 warnings (obj.mtllib-missing 20)"),
        "{err}"
    );
    // The good outputs are there, nothing of a failed input, nothing half-written.
    let out = names(&t.path().join("out"));
    for i in 10..910 {
        for ext in ["kiln.json", "mesh", "xml"] {
            let f = format!("g{}/good{i:03}.{ext}", i / 100);
            assert!(out.contains(&f), "{f} missing");
        }
    }
    assert_eq!(
        out.len(),
        900 * 3,
        "only the good inputs' files: {:?}",
        &out[..10]
    );
    assert!(out.iter().all(|o| !o.contains(".tmp")));
    // Their manifests are right: a re-run skips exactly them, and converts the 10 that can
    // now be written.
    for i in 0..10 {
        std::fs::remove_dir(t.path().join(format!("out/g0/good{i:03}.mesh"))).unwrap();
    }
    let o = kiln(
        &["convert", "m", "-o", "out", "--deny", "obj.mtllib-missing"],
        t.path(),
    );
    assert!(
        stderr(&o).contains("1000 files: 10 converted, 900 up to date, 90 failed"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn standard_input_and_usage_errors() {
    let t = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.args([
        "convert", "-", "--format", "obj", "--name", "piped", "-o", "out",
    ])
    .current_dir(t.path());
    let o = run_limited_with_stdin(
        &mut cmd,
        Some(b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n"),
        Limits::KILN,
    )
    .unwrap();
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(&t.path().join("out")),
        ["piped.kiln.json", "piped.mesh", "piped.xml"]
    );
    assert_eq!(
        manifest(&t.path().join("out/piped.kiln.json"))["model"],
        "-"
    );
    for (args, says) in [
        (&["convert", "-", "-o", "x"][..], "needs --format"),
        (
            &["convert", "a.obj", "--layout", "classic", "--quantize"][..],
            "need --layout kiln",
        ),
        (
            &["convert", "a.obj", "--clip-rate", "0"][..],
            "expected a positive number",
        ),
        (
            &["convert", "a.obj", "--format", "obj"][..],
            "standard input (-) only",
        ),
        (
            &["convert", "a.obj", "--static", "--clips", "Walk"][..],
            "writes no clips",
        ),
        (
            &[
                "convert",
                "a.obj",
                "--textures",
                "skip",
                "--texture-dir",
                "t",
            ][..],
            "needs --textures copy",
        ),
        (&["convert", "'*.nothing'"][..], ""),
    ] {
        let o = kiln(args, t.path());
        if says.is_empty() {
            assert_ne!(o.status.code(), Some(0), "{args:?}");
            continue;
        }
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1, "one line: {}", stderr(&o));
    }
}

#[test]
fn textures_can_go_into_a_folder_be_referenced_or_be_skipped() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    obj_with_texture(&m, "p", "p.mtl", "maps/p.png");
    write(&m.join("maps/p.png"), b"pixels");
    let o = kiln(
        &[
            "convert",
            "m/p.obj",
            "-o",
            "dir",
            "--texture-dir",
            "textures",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        std::fs::read(t.path().join("dir/textures/p.png")).unwrap(),
        b"pixels"
    );
    let xml = std::fs::read_to_string(t.path().join("dir/p.xml")).unwrap();
    assert!(
        xml.contains("<DiffuseFile>textures/p.png</DiffuseFile>"),
        "{xml}"
    );
    let o = kiln(
        &[
            "convert",
            "m/p.obj",
            "-o",
            "out/ref",
            "--textures",
            "reference",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(&t.path().join("out/ref")),
        ["p.kiln.json", "p.mesh", "p.xml"]
    );
    let xml = std::fs::read_to_string(t.path().join("out/ref/p.xml")).unwrap();
    assert!(
        xml.contains("<DiffuseFile>../../m/maps/p.png</DiffuseFile>"),
        "{xml}"
    );
    let o = kiln(
        &["convert", "m/p.obj", "-o", "skip", "--textures", "skip"],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(&t.path().join("skip")),
        ["p.kiln.json", "p.mesh", "p.xml"]
    );
    let xml = std::fs::read_to_string(t.path().join("skip/p.xml")).unwrap();
    assert!(xml.contains("<DiffuseFile>p.png</DiffuseFile>"), "{xml}");
}

/// Every output of converting the corpus's OBJ and FBX files from `cwd` with `args`.
fn convert_corpus(
    cwd: &Path,
    inputs: &[PathBuf],
    extra: &[&str],
    out: &Path,
) -> BTreeMap<String, Vec<u8>> {
    let mut args: Vec<String> = vec!["convert".into()];
    args.extend(inputs.iter().map(|p| p.display().to_string()));
    args.extend(["-o".into(), out.display().to_string(), "-q".into()]);
    args.extend(["--base".into(), kiln_testkit::corpus::ROOT.into()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = kiln(&args, cwd);
    assert_ne!(o.status.code(), Some(2), "{}", stderr(&o));
    tree(
        if out.is_absolute() {
            out.to_path_buf()
        } else {
            cwd.join(out)
        }
        .as_path(),
    )
}

#[test]
fn outputs_and_manifests_are_byte_identical_under_changed_conditions() {
    let root = kiln_testkit::corpus::require();
    let mut inputs = kiln_testkit::corpus::obj_files();
    inputs.extend(kiln_testkit::corpus::fbx_files());
    assert!(inputs.len() > 20, "{}", root.display());
    let t = tempfile::tempdir().unwrap();
    // One thread, absolute paths, from the temporary folder.
    let a = convert_corpus(t.path(), &inputs, &["-j", "1"], &t.path().join("a"));
    // Two threads, inputs reversed and relative to the corpus, from the corpus's folder, into
    // a relative output folder.
    let reversed: Vec<PathBuf> = inputs
        .iter()
        .rev()
        .map(|p| p.strip_prefix(root).unwrap().to_path_buf())
        .collect();
    std::fs::create_dir_all(t.path().join("b")).unwrap();
    let ups = root.components().count() - 1;
    let rel_out: PathBuf = std::iter::repeat_n(Path::new(".."), ups)
        .collect::<PathBuf>()
        .join(t.path().join("b").strip_prefix("/").unwrap());
    let b = convert_corpus(root, &reversed, &["-j", "2"], &rel_out);
    assert!(a.len() > 3 * inputs.len() / 2, "{} files", a.len());
    assert!(a.keys().any(|k| k.ends_with(".kiln.json")));
    let differing: Vec<&String> = a.keys().filter(|k| a.get(*k) != b.get(*k)).collect();
    assert!(differing.is_empty(), "differ: {differing:?}");
    assert_eq!(a.len(), b.len());
}

#[test]
fn units_and_axes_turn_and_scale_the_whole_model() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("m/tube.fbx"), &two_clip_fbx());
    let classic = |extra: &[&str], out: &str| {
        let mut args = vec!["convert", "m/tube.fbx", "-o", out, "--layout", "classic"];
        args.extend(extra);
        let o = kiln(&args, t.path());
        assert!(o.status.success(), "{args:?}: {}", stderr(&o));
        kiln::format::classic::read_mesh(
            &std::fs::read(t.path().join(out).join("tube.mesh")).unwrap(),
        )
        .unwrap()
    };
    let plain = classic(&[], "plain");
    let turned = classic(&["--units", "m", "--up", "z"], "turned");
    // The file is Y up, Z front, in centimetres: Z up turns it a quarter about X and metres
    // divide lengths by 100. The classic output is left-handed (z negated) after that.
    use kiln::process::{Axis, axes_rotation, front_after_up};
    let r = axes_rotation(
        Axis::Y,
        Axis::Z,
        Axis::Z,
        front_after_up(Axis::Y, Axis::Z, Axis::Z),
    )
    .unwrap()
    .to_cols_array();
    let l = [1.0f32, 1.0, -1.0];
    let apply = |v: [f32; 3], s: f32| -> [f32; 3] {
        let lv = [v[0] * l[0], v[1] * l[1], v[2] * l[2]];
        let rv: [f32; 3] =
            std::array::from_fn(|i| (0..3).map(|k| r[k * 3 + i] * lv[k]).sum::<f32>() * s);
        [rv[0] * l[0], rv[1] * l[1], rv[2] * l[2]]
    };
    assert_eq!(plain.meshes.len(), turned.meshes.len());
    let mut checked = 0;
    for (a, b) in plain.meshes.iter().zip(&turned.meshes) {
        assert_eq!(a.vertices.len(), b.vertices.len());
        for (va, vb) in a.vertices.iter().zip(&b.vertices) {
            let want = apply(va.position, 0.01);
            for k in 0..3 {
                assert!(
                    (want[k] - vb.position[k]).abs() < 1e-5,
                    "{want:?} {:?}",
                    vb.position
                );
            }
            let n = apply(va.normal, 1.0);
            for k in 0..3 {
                assert!((n[k] - vb.normal[k]).abs() < 1e-5, "{n:?} {:?}", vb.normal);
            }
            checked += 1;
        }
    }
    assert!(checked > 10);
    // The manifest records the options, so a change of them converts again.
    let m = manifest(&t.path().join("turned/tube.kiln.json"));
    assert_eq!(m["options"]["units"], "m");
    assert_eq!(m["options"]["up"], "+z");
    // An OBJ declares neither: a coded warning each.
    write(
        &t.path().join("m/tri.obj"),
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    );
    let o = kiln(
        &[
            "convert",
            "m/tri.obj",
            "-o",
            "obj",
            "--units",
            "m",
            "--up",
            "z",
        ],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("[pipeline.units-unknown]"),
        "{}",
        stderr(&o)
    );
    assert!(
        stderr(&o).contains("[pipeline.axes-unknown]"),
        "{}",
        stderr(&o)
    );
    let o = kiln(
        &["convert", "m/tri.obj", "--up", "y", "--forward", "-y"],
        t.path(),
    );
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    let o = kiln(&["convert", "m/tri.obj", "--scale", "-1"], t.path());
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
}

#[test]
fn name_styles_spell_clip_and_texture_file_names() {
    let t = tempfile::tempdir().unwrap();
    write(&t.path().join("m/hero.fbx"), &two_clip_fbx());
    obj_with_texture(
        &t.path().join("m"),
        "prop",
        "prop.mtl",
        "Skin Diffuse (v2).PNG",
    );
    write(&t.path().join("m/Skin Diffuse (v2).PNG"), b"pixels");
    let o = kiln(&["convert", "m", "-o", "orig"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kiln(
        &["convert", "m", "-o", "snake", "--name-style", "snake"],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kiln(
        &["convert", "m", "-o", "lower", "--name-style", "lower"],
        t.path(),
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let files = |d: &str| -> Vec<String> {
        names(&t.path().join(d))
            .into_iter()
            .filter(|n| !n.ends_with(".kiln.json") && !n.ends_with(".mesh") && !n.ends_with(".xml"))
            .collect()
    };
    assert_eq!(
        files("orig"),
        ["Skin Diffuse (v2).PNG", "hero_Run.clip", "hero_Walk.clip"]
    );
    assert_eq!(
        files("snake"),
        ["hero_run.clip", "hero_walk.clip", "skin_diffuse_v2.png"]
    );
    assert_eq!(
        files("lower"),
        ["hero_run.clip", "hero_walk.clip", "skin diffuse (v2).png"]
    );
    let xml = std::fs::read_to_string(t.path().join("snake/prop.xml")).unwrap();
    assert!(
        xml.contains("<DiffuseFile>skin_diffuse_v2.png</DiffuseFile>"),
        "{xml}"
    );
    let m = manifest(&t.path().join("snake/hero.kiln.json"));
    assert_eq!(
        m["outputs"][0]["clips"],
        serde_json::json!(["hero_walk.clip", "hero_run.clip"])
    );
    assert_eq!(m["options"]["name_style"], "snake");
}

#[test]
fn the_same_texture_bytes_under_two_names_are_one_file() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    write(
        &m.join("two.obj"),
        b"mtllib two.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl a\nf 1 2 3\nusemtl b\nf 1 3 2\n",
    );
    write(
        &m.join("two.mtl"),
        b"newmtl a\nmap_Kd first.png\nnewmtl b\nmap_Kd copy of first.png\n",
    );
    write(&m.join("first.png"), b"same pixels");
    write(&m.join("copy of first.png"), b"same pixels");
    let o = kiln(&["convert", "m/two.obj", "-o", "out"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        names(&t.path().join("out")),
        ["first.png", "two.kiln.json", "two.mesh", "two.xml"]
    );
    let xml = std::fs::read_to_string(t.path().join("out/two.xml")).unwrap();
    assert_eq!(
        xml.matches("<DiffuseFile>first.png</DiffuseFile>").count(),
        2,
        "{xml}"
    );
}

#[test]
fn converting_into_the_source_folder_never_removes_a_source_file() {
    let t = tempfile::tempdir().unwrap();
    let m = t.path().join("m");
    obj_with_texture(&m, "p", "p.mtl", "p.png");
    write(&m.join("p.png"), b"source pixels");
    let o = kiln(&["convert", "m", "-o", "m"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let listed = manifest(&m.join("p.kiln.json"));
    let outputs: Vec<&str> = listed["outputs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o.as_object().unwrap()["path"].as_str().unwrap())
        .collect();
    assert_eq!(
        outputs,
        ["p.mesh", "p.xml"],
        "the source texture is no output"
    );
    // The material stops using the texture: the next run removes nothing of the sources.
    write(&m.join("p.mtl"), b"newmtl m\nKd 1 0 0\n");
    let o = kiln(&["convert", "m", "-o", "m"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(std::fs::read(m.join("p.png")).unwrap(), b"source pixels");
    assert!(m.join("p.obj").is_file() && m.join("p.mtl").is_file());
}

/// The `.mesh` an earlier run wrote is moved aside and unlinked while the model converts again
/// (`discard_old_mesh`): a good run leaves the new file and nothing aside; a failed run removes
/// the old one and says so; a `.mesh` changed by hand since is not taken early, and a failed
/// run keeps it as it kept any changed output before.
#[test]
fn an_earlier_mesh_goes_early_only_when_unchanged_and_nothing_is_left_aside() {
    let t = tempfile::tempdir().unwrap();
    let good = b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n";
    let broken = b"v 0 0 0\nf 1 2 9\n";
    write(&t.path().join("m/p.obj"), good);
    let out = t.path().join("out");
    let o = kiln(&["convert", "m/p.obj", "-o", "out", "-q"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let first = tree(&out);
    assert!(first.contains_key("p.mesh"), "{:?}", first.keys());
    // The kiln layout's hash is taken beside its write (`write_kiln_mesh`): it is the file's.
    let recorded = manifest(&out.join("p.kiln.json"))["outputs"][0]["xxh3"].clone();
    assert_eq!(
        recorded,
        serde_json::json!(kiln::manifest::content_hash(&first["p.mesh"]))
    );
    for _ in 0..3 {
        let o = kiln(
            &["convert", "m/p.obj", "-o", "out", "--force", "-q"],
            t.path(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        assert_eq!(
            tree(&out),
            first,
            "same files, same bytes, nothing moved aside left"
        );
    }
    // Broken now: the earlier mesh is removed, and listed as removed.
    write(&t.path().join("m/p.obj"), broken);
    let o = kiln(&["convert", "m/p.obj", "-o", "out", "-v"], t.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    let removed = format!("removed {}", Path::new("out").join("p.mesh").display());
    assert!(stdout(&o).contains(&removed), "{}", stdout(&o));
    assert_eq!(names(&out), Vec::<String>::new());
    // Converted again, then the mesh edited by hand (newer than the manifest), then broken:
    // the edited mesh stays, with the warning that says why.
    write(&t.path().join("m/p.obj"), good);
    let o = kiln(&["convert", "m/p.obj", "-o", "out", "-q"], t.path());
    assert!(o.status.success(), "{}", stderr(&o));
    let edited = vec![7u8; first["p.mesh"].len()];
    write(&out.join("p.mesh"), &edited);
    // Newer than the manifest whatever the file system's clock granularity.
    let written = std::fs::metadata(out.join("p.kiln.json"))
        .unwrap()
        .modified()
        .unwrap();
    std::fs::File::options()
        .write(true)
        .open(out.join("p.mesh"))
        .unwrap()
        .set_modified(written + std::time::Duration::from_secs(10))
        .unwrap();
    write(&t.path().join("m/p.obj"), broken);
    let o = kiln(&["convert", "m/p.obj", "-o", "out"], t.path());
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert_eq!(std::fs::read(out.join("p.mesh")).unwrap(), edited);
    let all = format!("{}{}", stdout(&o), stderr(&o));
    assert!(all.contains("pipeline.stale-output-kept"), "{all}");
    assert_eq!(names(&out), ["p.mesh"]);
}
