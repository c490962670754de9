//! `kiln dump --obj`: the evaluated mesh (morph targets applied, skinned at a clip's frame, or
//! the bind pose with the targets at rest) as OBJ, the same from the model file and from the
//! kiln-layout `.mesh` and `.clip` that `kiln convert` writes of it.

mod common;

use common::{kiln, stderr, stdout};
use kiln_testkit::fixtures::morph::morph_tube_file;

/// The `v` lines of an OBJ text.
fn positions(obj: &str) -> Vec<[f32; 3]> {
    obj.lines()
        .filter_map(|l| l.strip_prefix("v "))
        .map(|l| {
            let v: Vec<f32> = l.split(' ').map(|x| x.parse().unwrap()).collect();
            [v[0], v[1], v[2]]
        })
        .collect()
}

#[test]
fn the_obj_is_the_morphed_and_skinned_mesh() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("tube.fbx"), morph_tube_file(false)).unwrap();
    // Bind pose: the bulge at its rest weight 0.25 (offset 0.5 radially on the rings at
    // heights 4 and 6), the lift at 0 (its rest weight), the twist at 0.
    let o = kiln(&["dump", "--obj", "tube.fbx"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let bind = positions(&stdout(&o));
    assert_eq!(bind.len(), 160);
    for p in &bind {
        let r = (p[0] * p[0] + p[2] * p[2]).sqrt();
        // Left-handed conversion mirrors z: the radius is what it was.
        let bulged = (3.9..6.1).contains(&p[1]);
        let want = if bulged { 1.125 } else { 1.0 };
        assert!((r - want).abs() < 1e-4, "{p:?}: radius {r}");
    }
    // Frame 15 of the clip: the bulge at weight 1 (radius 1.5 before the bend moves it), and
    // the mesh skinned: the top ring has left the y axis.
    let o = kiln(
        &[
            "dump", "--obj", "--clip", "bend", "--frame", "15", "tube.fbx",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let posed_text = stdout(&o);
    let posed = positions(&posed_text);
    assert_eq!(posed.len(), 160);
    assert_ne!(posed, bind);
    // The same from the kiln-layout files.
    let o = kiln(&["convert", "tube.fbx", "-o", "out"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    let o = kiln(
        &[
            "dump",
            "--obj",
            "--clip",
            "bend",
            "--frame",
            "15",
            "out/tube.mesh",
        ],
        d,
    );
    assert!(o.status.success(), "{}", stderr(&o));
    let from_mesh = stdout(&o);
    let body = |t: &str| t.lines().skip(1).map(str::to_owned).collect::<Vec<_>>();
    assert_eq!(body(&from_mesh), body(&posed_text));
    // `kiln inspect` lists each part's targets.
    let o = kiln(&["inspect", "out/tube.mesh"], d);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o)
            .contains("morph target twist  rest weight 0.0  full weights [0.5,1.0]  32 offsets"),
        "{}",
        stdout(&o)
    );
    // A clip the model does not have is one clear error.
    let o = kiln(&["dump", "--obj", "--clip", "walk", "tube.fbx"], d);
    assert!(!o.status.success());
    assert!(
        stderr(&o).contains("no clip 'walk'; the model has: 'bend'"),
        "{}",
        stderr(&o)
    );
}
