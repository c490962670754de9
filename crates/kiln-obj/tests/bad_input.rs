//! Bad input: every case returns an `ObjError` that names the file, the line and what was
//! expected (or, for a missing library, a warning) — never a panic, hang or unbounded memory.

use kiln_obj::{ObjError, parse};

fn no_mtl(_: &str) -> Option<Vec<u8>> {
    None
}

fn error(bytes: &[u8]) -> ObjError {
    match parse(bytes, "bad.obj", &mut no_mtl) {
        Ok(s) => panic!(
            "expected an error, got a scene with {} meshes",
            s.meshes.len()
        ),
        Err(e) => e,
    }
}

/// Asserts the error is about `line` and its message contains every part of `needles`.
fn expect(bytes: &[u8], line: Option<u32>, needles: &[&str]) {
    let e = error(bytes);
    let msg = e.to_string();
    assert_eq!(e.line(), line, "{msg}");
    assert!(msg.starts_with("bad.obj"), "{msg}");
    if let Some(l) = line {
        assert!(msg.starts_with(&format!("bad.obj:{l}: ")), "{msg}");
    }
    for n in needles {
        assert!(msg.contains(n), "{msg:?} lacks {n:?}");
    }
}

const TRI: &str = "v 0 0 0\nv 1 0 0\nv 0 1 0\n";

#[test]
fn files_under_16_bytes_are_too_small_as_in_assimp() {
    expect(b"", None, &["no geometry", "too small (0 bytes"]);
    expect(b"# nothing\n\n   \n", None, &["too small (15 bytes"]);
    expect(b"\xEF\xBB\xBF", None, &["too small"]);
    expect(b"\xFF\xFE", None, &["too small"]);
}

#[test]
fn files_without_faces_keep_their_nodes_and_materials_as_in_assimp() {
    let no_geometry = |text: &[u8]| {
        let scene = parse(text, "x.obj", &mut no_mtl).unwrap();
        assert!(scene.meshes.is_empty());
        assert!(
            scene
                .warnings
                .iter()
                .any(|w| w.code == kiln_obj::codes::NO_GEOMETRY),
            "{:?}",
            scene.warnings
        );
        scene
    };
    // Comments only: the root node alone, no material.
    let s = no_geometry(b"# a comment, long enough to read\n");
    assert_eq!((s.nodes.len(), s.materials.len()), (1, 0));
    // Objects and groups: their nodes, and the default material.
    let s = no_geometry(b"o lonely\ng group\n# padding\n");
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["x.obj", "lonely", "group"]);
    assert_eq!(s.materials[0].name, "DefaultMaterial");
    // Vertices but an object without faces.
    let s = no_geometry(format!("{TRI}o thing\n").as_bytes());
    assert!(s.nodes.iter().any(|n| n.name == "thing"));
}

#[test]
fn binary_garbage_is_rejected() {
    // NUL bytes: binary data (or UTF-16 without a byte-order mark).
    expect(
        b"v 0 0 0\nf \x00\x01\x02",
        Some(2),
        &["NUL byte", "not OBJ text"],
    );
    expect(b"v\x000\x00 \x000\x00", Some(1), &["NUL byte"]);
    // Pseudo-random bytes: an error, whichever it is, and no panic.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    for round in 0..200 {
        let mut data = Vec::with_capacity(4096);
        for _ in 0..4096 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            data.push((x >> 24) as u8);
        }
        if round % 2 == 1 {
            // Without NUL bytes too.
            for b in &mut data {
                if *b == 0 {
                    *b = b'f';
                }
            }
        }
        let _ = parse(&data, "noise.obj", &mut no_mtl);
    }
    // ZBrush ends its files with a NUL: a line end, with a warning, as Assimp reads it.
    let scene = parse(
        b"v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n\n\x00\n",
        "zbrush.obj",
        &mut no_mtl,
    )
    .unwrap();
    assert_eq!(scene.meshes[0].face_sizes.len(), 1);
    assert!(
        scene
            .warnings
            .iter()
            .any(|w| w.code == kiln_obj::codes::NUL_BYTES && w.message.contains("1 NUL byte")),
        "{:?}",
        scene.warnings
    );
    // A typical binary header.
    assert!(parse(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "x.obj", &mut no_mtl).is_err());
}

#[test]
fn truncated_files() {
    expect(
        format!("{TRI}v 1 2").as_bytes(),
        Some(4),
        &["v: expected 3 coordinates, found 2"],
    );
    expect(
        format!("{TRI}vn 0 0").as_bytes(),
        Some(4),
        &["vn: expected 3 numbers"],
    );
    expect(
        format!("{TRI}vt").as_bytes(),
        Some(4),
        &["vt: expected 1 to 3 numbers"],
    );
    expect(
        format!("{TRI}f 1 2 3\nf 1 2 4").as_bytes(),
        Some(5),
        &["vertex index 4 out of range", "3 vertices"],
    );
    // Cut inside a number: still a number, so the face is fine.
    let s = parse(
        format!("{TRI}f 1 2 3\nv 1 2 3.").as_bytes(),
        "t.obj",
        &mut no_mtl,
    )
    .unwrap();
    assert_eq!(s.meshes.len(), 1);
}

#[test]
fn face_indices_out_of_range_name_the_line() {
    expect(
        format!("{TRI}f 1 2 3\nf 1 2 9\n").as_bytes(),
        Some(5),
        &["vertex index 9 out of range"],
    );
    expect(
        format!("{TRI}f -1 -2 -4\n").as_bytes(),
        Some(4),
        &["relative vertex index points before the first vertex"],
    );
    expect(
        format!("{TRI}f 1 2 0\n").as_bytes(),
        Some(4),
        &["invalid face index \"0\"", "1-based"],
    );
    expect(
        format!("{TRI}f 1 2 x\n").as_bytes(),
        Some(4),
        &["invalid face index \"x\""],
    );
    expect(
        format!("{TRI}f 1.5 2 3\n").as_bytes(),
        Some(4),
        &["invalid face index"],
    );
    expect(
        format!("{TRI}f 1 2 99999999999999999999\n").as_bytes(),
        Some(4),
        &["face index \"99999999999999999999\" out of range"],
    );
    expect(
        format!("{TRI}f 1 2 -4294967297\n").as_bytes(),
        Some(4),
        &["face index \"-4294967297\" out of range"],
    );
}

#[test]
fn nan_infinite_and_huge_coordinates_are_errors() {
    for (stmt, what) in [
        ("v nan 0 0", "v:"),
        ("v 0 -inf 0", "v:"),
        ("v 0 0 1e39", "v:"),
        ("v 0 0 -3.5e38", "v:"),
        ("vn 0 NaN 1", "vn:"),
        ("vt inf 0", "vt:"),
        ("v 0 0 0 1 1 nan", "v:"),
    ] {
        expect(
            format!("{TRI}{stmt}\nf 1 2 3\n").as_bytes(),
            Some(4),
            &[what, "not a finite"],
        );
    }
    // Large but finite values are kept.
    let s = parse(
        format!("{TRI}v 3e38 -3e38 1e-40\nf 1 2 4\n").as_bytes(),
        "t.obj",
        &mut no_mtl,
    )
    .unwrap();
    assert_eq!(s.meshes[0].positions[2].x, 3e38);
}

#[test]
fn malformed_statements() {
    expect(
        format!("{TRI}v abc 1 2 3\n").as_bytes(),
        Some(4),
        &["v: expected a number, found \"abc\""],
    );
    expect(
        format!("{TRI}v 1 2 3 0\n").as_bytes(),
        Some(4),
        &["homogeneous coordinate w is 0"],
    );
    expect(
        format!("{TRI}vn x y z\n").as_bytes(),
        Some(4),
        &["vn: expected a number, found \"x\""],
    );
}

#[test]
fn missing_library_is_a_warning() {
    let s = parse(
        format!("mtllib nope.mtl\n{TRI}f 1 2 3\n").as_bytes(),
        "t.obj",
        &mut no_mtl,
    )
    .unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w.code == kiln_obj::codes::MTLLIB_MISSING
                && w.location.as_deref() == Some("t.obj:1")
                && w.message
                    .contains("t.obj:1: material library \"nope.mtl\" not found")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn hostile_sizes_stay_bounded() {
    // A very long face line and a very long continued statement.
    let mut long = String::from(TRI);
    long.push('f');
    for i in 0..200_000 {
        long.push_str(if i % 2 == 0 { " 1" } else { " 2 \\\n" });
    }
    long.push_str(" 3\n");
    let s = parse(long.as_bytes(), "t.obj", &mut no_mtl).unwrap();
    assert_eq!(s.meshes[0].positions.len(), 200_001);
    // Deep nesting does not exist in OBJ; thousands of groups are a flat list.
    let mut groups = String::from(TRI);
    for i in 0..20_000 {
        groups.push_str(&format!("g g{i}\nf 1 2 3\n"));
    }
    let s = parse(groups.as_bytes(), "t.obj", &mut no_mtl).unwrap();
    assert_eq!(s.nodes.len(), 20_001);
    assert!(s.nodes[1..].iter().all(|n| n.parent == Some(0)));
}

#[test]
fn errors_display() {
    let e = error(b"v 1 2\n");
    assert_eq!(
        e.to_string(),
        "bad.obj:1: v: expected 3 coordinates, found 2 numbers"
    );
}

#[cfg(feature = "std")]
#[test]
fn io_errors_name_the_path() {
    let io = kiln_obj::load(std::path::Path::new("/nonexistent/kiln/x.obj")).unwrap_err();
    assert!(
        io.to_string()
            .starts_with("cannot read /nonexistent/kiln/x.obj: "),
        "{io}"
    );
    assert!(std::error::Error::source(&io).is_some());
}
