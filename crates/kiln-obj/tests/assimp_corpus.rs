//! Compares kiln-obj's raw import with Assimp 5.2's raw import (`assimp dump FILE OUT.assxml`,
//! no post-processing) for every `.obj` of Debian's assimp-testmodels.
//!
//! Needs the Debian packages `assimp-utils` (the `assimp` command) and `assimp-testmodels`
//! (`/usr/share/assimp/models`); the test fails, saying so, when they are missing.

#![cfg(feature = "std")]

use std::path::Path;

use kiln_testkit::corpus::{self, ROOT as MODELS};
use kiln_testkit::obj::{assimp_raw, compare, raw_import};

/// What Assimp's raw import of a corpus file is expected to be relative to ours.
enum Expect {
    /// Same scene.
    Same,
    /// Both importers reject the file; our error must contain the given text.
    BothFail(&'static str),
    /// Assimp 5.2 reads UTF-16 as bytes and returns an empty scene; ours must equal Assimp's
    /// import of the given UTF-8 twin (root name aside).
    SameAs(&'static str),
}

fn expectation(rel: &str) -> Expect {
    match rel {
        "invalid/empty.obj" => Expect::BothFail("too small"),
        "invalid/malformed.obj" => Expect::BothFail("invalid face index"),
        "OBJ/box_UTF16BE.obj" => Expect::SameAs("OBJ/box.obj"),
        _ => Expect::Same,
    }
}

#[test]
fn corpus_matches_assimp_raw_import() {
    kiln_testkit::assimp::require();
    let tmp = tempfile::tempdir().expect("temporary folder");
    let files = corpus::obj_files();
    assert!(
        files.len() >= 25,
        "expected the 25 corpus OBJ files, found {}: {files:?}",
        files.len()
    );
    let mut report = Vec::new();
    let mut failures = 0;
    for path in &files {
        let rel = path
            .strip_prefix(MODELS)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        let ours = raw_import(path);
        let (verdict, ok) = match (expectation(&rel), ours) {
            (Expect::BothFail(text), Err(e)) => {
                let msg = e.to_string();
                match assimp_raw(path, tmp.path()) {
                    Err(_) if msg.contains(text) => (format!("both fail (ours: {msg})"), true),
                    Err(_) => (
                        format!("both fail, but our error lacks {text:?}: {msg}"),
                        false,
                    ),
                    Ok(_) => (format!("Assimp reads it, we fail: {msg}"), false),
                }
            }
            (Expect::BothFail(_), Ok(_)) => {
                ("we read a file both should reject".to_string(), false)
            }
            (_, Err(e)) => (format!("our import failed: {e}"), false),
            (Expect::Same, Ok(scene)) => match assimp_raw(path, tmp.path()) {
                Err(e) => (format!("Assimp failed: {e}"), false),
                Ok(theirs) => {
                    let d = compare(&scene, &theirs, true);
                    if d.is_empty() {
                        ("match".to_string(), true)
                    } else {
                        (
                            format!(
                                "differs:\n      {}",
                                d.iter()
                                    .take(12)
                                    .cloned()
                                    .collect::<Vec<_>>()
                                    .join("\n      ")
                            ),
                            false,
                        )
                    }
                }
            },
            (Expect::SameAs(twin), Ok(scene)) => {
                let raw = assimp_raw(path, tmp.path());
                let raw_meshes = raw.as_ref().map(|s| s.meshes.len()).unwrap_or(0);
                match assimp_raw(&Path::new(MODELS).join(twin), tmp.path()) {
                    Err(e) => (format!("Assimp failed on {twin}: {e}"), false),
                    Ok(theirs) => {
                        let d = compare(&scene, &theirs, false);
                        if d.is_empty() {
                            (
                                format!(
                                    "differs by design: Assimp reads {raw_meshes} meshes; ours matches Assimp's {twin}"
                                ),
                                true,
                            )
                        } else {
                            (
                                format!("differs from {twin}:\n      {}", d.join("\n      ")),
                                false,
                            )
                        }
                    }
                }
            }
        };
        if !ok {
            failures += 1;
        }
        report.push(format!(
            "{} {rel}: {verdict}",
            if ok { "ok  " } else { "FAIL" }
        ));
    }
    let report = report.join("\n");
    println!("{report}");
    assert_eq!(
        failures, 0,
        "{failures} corpus files differ from Assimp:\n{report}"
    );
}

#[test]
fn load_rewrites_only_texture_paths() {
    kiln_testkit::assimp::require();
    for path in corpus::obj_files() {
        let (Ok(raw), Ok(loaded)) = (raw_import(&path), kiln_obj::load(&path)) else {
            continue;
        };
        assert_eq!(raw.meshes, loaded.meshes, "{}", path.display());
        assert_eq!(raw.nodes, loaded.nodes, "{}", path.display());
        assert_eq!(raw.materials.len(), loaded.materials.len());
        for (r, l) in raw.materials.iter().zip(&loaded.materials) {
            assert_eq!(r.name, l.name);
            assert_eq!(r.textures.len(), l.textures.len());
            for (i, (rt, lt)) in r.textures.iter().zip(&l.textures).enumerate() {
                assert_eq!(rt.kind, lt.kind);
                if rt.path != lt.path {
                    // The written path is kept, and the rewritten one opens.
                    let key = format!("textures[{i}].written");
                    let written = l
                        .properties
                        .iter()
                        .find(|(k, _)| *k == key)
                        .map(|(_, v)| v.clone());
                    assert_eq!(
                        written,
                        Some(kiln_scene::PropertyValue::String(rt.path.clone()))
                    );
                    assert!(
                        path.parent().unwrap().join(&lt.path).is_file(),
                        "{} does not open",
                        lt.path
                    );
                }
            }
        }
    }
    // spider.mtl writes `.\wal67ar_small.jpg`: usable as `wal67ar_small.jpg`.
    let spider = kiln_obj::load(&Path::new(MODELS).join("OBJ/spider.obj")).unwrap();
    let skin = spider.materials.iter().find(|m| m.name == "Skin").unwrap();
    assert_eq!(skin.textures[0].path, "wal67ar_small.jpg");
}
