//! Names that are not UTF-8 (Latin-1 from a Windows exporter) keep their bytes from the model
//! file to the classic `.mesh`, the `.xml` and the texture file's name, as the original tool
//! and Assimp pass them through, and messages show them as `\xNN`.

mod common;

use common::{kiln, stdout};

#[cfg(unix)]
#[test]
fn latin1_names_and_texture_paths_keep_their_bytes() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;

    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("t.obj"),
        b"mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nvt 0 0\nvt 1 0\nvt 0 1\no caf\xe9\nusemtl Terraind\xe6k\nf 1/1 2/2 3/3\n",
    )
    .unwrap();
    std::fs::write(
        d.join("m.mtl"),
        b"newmtl Terraind\xe6k\nKd 0 1 0\nmap_Kd gr\xe6s.png\n",
    )
    .unwrap();
    let texture = OsStr::from_bytes(b"gr\xe6s.png");
    std::fs::write(d.join(texture), b"\x89PNG not really").unwrap();

    let o = kiln(&["convert", "t.obj", "-o", "out", "--layout", "classic"], d);
    assert!(o.status.success(), "{}", common::stderr(&o));
    // The texture is found under its own bytes and written under them.
    assert_eq!(
        std::fs::read(d.join("out").join(texture)).unwrap(),
        b"\x89PNG not really"
    );
    let xml = std::fs::read(d.join("out/t.xml")).unwrap();
    let has = |hay: &[u8], needle: &[u8]| hay.windows(needle.len()).any(|w| w == needle);
    assert!(has(&xml, b"<Name>Terraind\xe6k</Name>"));
    assert!(has(&xml, b"<DiffuseFile>gr\xe6s.png</DiffuseFile>"));
    let mesh = std::fs::read(d.join("out/t.mesh")).unwrap();
    assert!(
        has(&mesh, b"\x04\x00\x00\x00caf\xe9"),
        "the node's name as a str"
    );
    assert!(
        has(&mesh, b"\x0a\x00\x00\x00Terraind\xe6k"),
        "the part's material"
    );

    // A classic file with such names reads back, and is described with the bytes escaped.
    let o = kiln(&["inspect", "out/t.mesh"], d);
    assert!(o.status.success(), "{}", common::stderr(&o));
    let text = stdout(&o);
    assert!(text.contains("caf\\xE9"), "{text}");
    assert!(!text.contains('\u{FFFD}'), "{text}");
    // The CSV dump is data: the bone's name as its bytes, as in the `.mesh`.
    let o = kiln(&["dump", "--csv", "out/t.mesh"], d);
    assert!(o.status.success(), "{}", common::stderr(&o));
    assert!(has(&o.stdout, b",caf\xe9,"), "{}", stdout(&o));
}
