//! kiln under real build systems, through `--depfile`: ninja (`deps = gcc`, `restat = 1`) and
//! make (`-include` of the depfiles). The first build converts every model, a second does
//! nothing, and a changed texture reconverts exactly the model that uses it.

use std::path::Path;
use std::process::{Command, Output};

use kiln_testkit::process::{Limits, run_limited};

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// Runs `program` in `dir` under the suite's limits (kiln, which it starts, inherits them).
fn run(program: &str, args: &[&str], dir: &Path) -> Output {
    let mut cmd = Command::new(program);
    cmd.args(args).current_dir(dir);
    let out = run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| {
        panic!("{program}: {e}; install it: apt-get install -y ninja-build make")
    });
    assert!(
        out.status.success(),
        "{program} {args:?}:\n{}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

/// `models/NAME.obj` with `NAME.mtl`, whose material uses `NAME.png`.
fn model(dir: &Path, name: &str) {
    let m = dir.join("models");
    std::fs::create_dir_all(m.join("sub")).unwrap();
    let sub = if name == "c" { "sub/" } else { "" };
    std::fs::write(
        m.join(format!("{sub}{name}.obj")),
        format!("mtllib {name}.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\nusemtl m\nf 1/1 2/2 3/3\n"),
    )
    .unwrap();
    std::fs::write(
        m.join(format!("{sub}{name}.mtl")),
        format!("newmtl m\nmap_Kd {name}.png\n"),
    )
    .unwrap();
    std::fs::write(m.join(format!("{sub}{name}.png")), name.repeat(10)).unwrap();
}

fn models(dir: &Path) -> [&'static str; 3] {
    for n in ["a", "b", "c"] {
        model(dir, n);
    }
    ["a.obj", "b.obj", "sub/c.obj"]
}

/// The edges ninja ran, from its `[i/n] KILN models/...` lines.
fn ran(out: &Output) -> Vec<String> {
    let mut v: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| l.split_once("KILN ").map(|(_, m)| m.trim().to_string()))
        .collect();
    v.sort();
    v
}

#[test]
fn ninja_builds_once_then_nothing_then_exactly_the_model_whose_texture_changed() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let inputs = models(dir);
    let mut ninja = format!(
        "rule kiln\n  command = {} convert $in -o out --base models --depfile $out.d -q\n  depfile = $out.d\n  deps = gcc\n  restat = 1\n  description = KILN $in\n",
        env!("CARGO_BIN_EXE_kiln")
    );
    for i in inputs {
        let stem = i.trim_end_matches(".obj");
        ninja.push_str(&format!("build out/{stem}.mesh: kiln models/{i}\n"));
    }
    std::fs::write(dir.join("build.ninja"), ninja).unwrap();

    let first = run("ninja", &[], dir);
    assert_eq!(
        ran(&first),
        ["models/a.obj", "models/b.obj", "models/sub/c.obj"]
    );
    for f in [
        "out/a.mesh",
        "out/b.png",
        "out/sub/c.xml",
        "out/sub/c.png",
        "out/sub/c.kiln.json",
    ] {
        assert!(dir.join(f).is_file(), "{f}");
    }
    let second = run("ninja", &[], dir);
    assert!(
        text(&second.stdout).contains("no work to do"),
        "{}",
        text(&second.stdout)
    );
    // ninja learnt the textures and libraries from the depfiles.
    let deps = run("ninja", &["-t", "deps", "out/sub/c.mesh"], dir);
    for d in ["models/sub/c.obj", "models/sub/c.mtl", "models/sub/c.png"] {
        assert!(
            text(&deps.stdout).contains(d),
            "{d}: {}",
            text(&deps.stdout)
        );
    }
    // A texture repainted: exactly its model is converted again.
    std::fs::write(dir.join("models/sub/c.png"), b"repainted").unwrap();
    let third = run("ninja", &[], dir);
    assert_eq!(ran(&third), ["models/sub/c.obj"]);
    assert_eq!(
        std::fs::read(dir.join("out/sub/c.png")).unwrap(),
        b"repainted"
    );
    // A texture touched (same bytes): ninja reruns its model, kiln finds it up to date and
    // leaves the outputs alone, and with restat ninja is then satisfied.
    let before = std::fs::metadata(dir.join("out/a.mesh"))
        .unwrap()
        .modified()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let f = std::fs::File::options()
        .append(true)
        .open(dir.join("models/a.png"))
        .unwrap();
    f.set_modified(std::time::SystemTime::now()).unwrap();
    drop(f);
    let fourth = run("ninja", &[], dir);
    assert_eq!(ran(&fourth), ["models/a.obj"]);
    let after = std::fs::metadata(dir.join("out/a.mesh"))
        .unwrap()
        .modified()
        .unwrap();
    assert_eq!(before, after, "an up-to-date output is not rewritten");
    let fifth = run("ninja", &[], dir);
    assert!(
        text(&fifth.stdout).contains("no work to do"),
        "{}",
        text(&fifth.stdout)
    );
}

#[test]
fn make_with_included_depfiles_rebuilds_exactly_what_changed() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path();
    let inputs = models(dir);
    let mut make = format!("KILN := {}\nall:", env!("CARGO_BIN_EXE_kiln"));
    for i in inputs {
        make.push_str(&format!(" out/{}.mesh", i.trim_end_matches(".obj")));
    }
    make.push_str("\n\n");
    for i in inputs {
        let stem = i.trim_end_matches(".obj");
        make.push_str(&format!(
            "out/{stem}.mesh: models/{i}\n\t@echo KILN $<\n\t@$(KILN) convert $< -o out --base models --depfile out/{stem}.d -q\n-include out/{stem}.d\n\n"
        ));
    }
    std::fs::write(dir.join("Makefile"), make).unwrap();
    let first = run("make", &["-s"], dir);
    assert_eq!(
        ran(&first),
        ["models/a.obj", "models/b.obj", "models/sub/c.obj"]
    );
    let second = run("make", &["-s"], dir);
    assert_eq!(
        ran(&second),
        Vec::<String>::new(),
        "{}",
        text(&second.stdout)
    );
    std::fs::write(dir.join("models/b.png"), b"repainted").unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let third = run("make", &["-s"], dir);
    assert_eq!(ran(&third), ["models/b.obj"]);
    assert_eq!(std::fs::read(dir.join("out/b.png")).unwrap(), b"repainted");
}

/// Runs `bazel --batch` in `dir` with its output root in `root`; returns the output whatever
/// the status.
fn bazel(dir: &Path, root: &Path, args: &[&str]) -> Output {
    let mut cmd = Command::new("bazel");
    cmd.arg(format!("--output_user_root={}", root.display()))
        .args(["--batch", "--host_jvm_args=-Xmx1g"])
        .args(args)
        .current_dir(dir);
    run_limited(&mut cmd, Limits::BAZEL)
        .unwrap_or_else(|e| panic!("bazel: {e}; install it: apt-get install -y bazel-bootstrap"))
}

#[test]
fn bazel_builds_the_starlark_rule_with_inputs_from_the_manifest_and_caches_it() {
    let t = tempfile::tempdir().unwrap();
    let dir = t.path().join("ws");
    model(&dir, "a");
    // A first conversion outside Bazel writes the manifest the rule's inputs come from.
    let kiln = env!("CARGO_BIN_EXE_kiln");
    let direct = dir.join("direct");
    let mut cmd = Command::new(kiln);
    cmd.args(["convert", "models/a.obj", "-o", "direct", "-q"])
        .current_dir(&dir);
    let o = run_limited(&mut cmd, Limits::KILN).unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(direct.join("a.kiln.json")).unwrap()).unwrap();
    let srcs: Vec<String> = manifest["inputs"]
        .as_array()
        .unwrap()
        .iter()
        .skip(1)
        .map(|i| format!("\"models/{}\"", i["path"].as_str().unwrap()))
        .collect();
    assert_eq!(srcs, ["\"models/a.mtl\"", "\"models/a.png\""]);

    std::fs::create_dir_all(dir.join("tools/bazel")).unwrap();
    std::fs::write(dir.join("WORKSPACE"), "").unwrap();
    let rule =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tools/bazel/kiln.bzl"))
            .unwrap();
    std::fs::write(dir.join("tools/bazel/kiln.bzl"), rule).unwrap();
    std::fs::write(dir.join("tools/bazel/BUILD"), "").unwrap();
    std::fs::copy(kiln, dir.join("tools/kiln")).unwrap();
    std::fs::write(dir.join("tools/BUILD"), "exports_files([\"kiln\"])\n").unwrap();
    std::fs::write(
        dir.join("BUILD"),
        format!(
            "load(\"//tools/bazel:kiln.bzl\", \"kiln_convert\")\n\
             kiln_convert(name = \"a\", model = \"models/a.obj\", srcs = [{}], kiln = \"//tools:kiln\")\n\
             kiln_convert(name = \"undeclared\", model = \"models/a.obj\", srcs = [\"models/a.mtl\"], kiln = \"//tools:kiln\")\n",
            srcs.join(", ")
        ),
    )
    .unwrap();
    let root = t.path().join("bazel-root");
    let first = bazel(&dir, &root, &["build", "//:a"]);
    let log = format!("{}{}", text(&first.stdout), text(&first.stderr));
    assert!(first.status.success(), "{log}");
    let built = dir.join("bazel-bin/a");
    for f in ["a.mesh", "a.xml", "a.png", "a.kiln.json"] {
        assert_eq!(
            std::fs::read(built.join(f)).unwrap(),
            std::fs::read(direct.join(f)).unwrap(),
            "{f}: Bazel's output equals the direct conversion's"
        );
    }
    // Nothing changed: the action is not run again (Bazel's cache, which a remote cache
    // extends to a whole studio).
    let second = bazel(&dir, &root, &["build", "//:a"]);
    let log = format!("{}{}", text(&second.stdout), text(&second.stderr));
    assert!(second.status.success(), "{log}");
    assert!(log.contains("1 process: 1 internal"), "{log}");
    // A texture the rule does not declare is not in the sandbox: the build fails, naming it.
    let third = bazel(&dir, &root, &["build", "//:undeclared"]);
    let log = format!("{}{}", text(&third.stdout), text(&third.stderr));
    assert!(!third.status.success(), "{log}");
    assert!(
        log.contains("denied warning(s) (pipeline.texture-missing)"),
        "{log}"
    );
    let _ = bazel(&dir, &root, &["clean", "--expunge"]);
}
