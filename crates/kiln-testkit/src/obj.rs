//! kiln-obj's raw import against Assimp's raw import (`assimp dump` without post-processing),
//! with the looser tolerance and the full list of differences that kiln-obj's tests report.

use std::path::Path;

use kiln_scene::{Scene, Vec3, Vec4};

use crate::assimp::DumpError;

/// Our raw import: [`kiln_obj::parse`] with libraries read next to the file (texture paths as
/// written, like Assimp; `load` rewrites them, see `load_rewrites_only_texture_paths`).
pub fn raw_import(path: &Path) -> Result<Scene, kiln_obj::ObjError> {
    let bytes = crate::corpus::read(path);
    let dir = path.parent().unwrap_or(Path::new(".")).to_path_buf();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    kiln_obj::parse(&bytes, &name, &mut |lib: &str| {
        std::fs::read(dir.join(lib)).ok()
    })
}

/// Assimp's raw import of `path`, dumped (uncached) into `tmp`; `Err` is Assimp's whole output
/// when it rejects the file, `peer failed: …` when it hit a limit.
pub fn assimp_raw(path: &Path, tmp: &Path) -> Result<Scene, String> {
    let stem = path
        .file_stem()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let out = tmp.join(format!("{stem}.assxml"));
    match crate::assimp::dump_to(path, &out, &[]) {
        Ok(()) => {}
        Err(DumpError::Rejected { output, .. }) => return Err(output),
        Err(e) => return Err(e.to_string()),
    }
    let bytes = std::fs::read(&out).map_err(|e| format!("no dump written: {e}"))?;
    // Assimp writes names byte for byte, so a Latin-1 name makes the XML invalid UTF-8.
    crate::assxml::parse_assxml(&String::from_utf8_lossy(&bytes))
}

fn close(a: f32, b: f32) -> bool {
    // The dump prints six decimals; beyond that, 1e-4 relative.
    (a - b).abs() <= 1e-4 * a.abs().max(b.abs()) + 2e-6
}

fn close3(a: Vec3, b: Vec3) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z)
}

fn close4(a: Vec4, b: Vec4) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z) && close(a.w, b.w)
}

/// Names equal, where the dump's U+FFFD (a non-UTF-8 byte read lossily) matches any one
/// non-ASCII character of ours.
fn same_name(ours: &str, theirs: &str) -> bool {
    ours.chars().count() == theirs.chars().count()
        && ours
            .chars()
            .zip(theirs.chars())
            .all(|(o, t)| o == t || (t == '\u{FFFD}' && !o.is_ascii()))
}

fn diff_vec<T: Copy + std::fmt::Debug>(
    diffs: &mut Vec<String>,
    what: &str,
    ours: &[T],
    theirs: &[T],
    eq: impl Fn(T, T) -> bool,
) {
    if ours.len() != theirs.len() {
        diffs.push(format!(
            "{what}: {} here, {} in Assimp",
            ours.len(),
            theirs.len()
        ));
        return;
    }
    if let Some(i) = (0..ours.len()).find(|&i| !eq(ours[i], theirs[i])) {
        diffs.push(format!(
            "{what}[{i}]: {:?} here, {:?} in Assimp",
            ours[i], theirs[i]
        ));
    }
}

/// Differences between our scene and Assimp's (empty when they match).
pub fn compare(ours: &Scene, theirs: &Scene, check_root_name: bool) -> Vec<String> {
    let mut d = Vec::new();
    if let Err(e) = ours.validate() {
        d.push(format!("our scene is invalid: {e}"));
    }
    // Node tree, in depth-first order.
    let (on, tn) = (ours.depth_first(), theirs.depth_first());
    if on.len() != tn.len() {
        d.push(format!("{} nodes here, {} in Assimp", on.len(), tn.len()));
    } else {
        for (k, (&o, &t)) in on.iter().zip(&tn).enumerate() {
            let (o, t) = (&ours.nodes[o], &theirs.nodes[t]);
            if (k > 0 || check_root_name) && !same_name(&o.name, &t.name) {
                d.push(format!(
                    "node {k}: name {:?} here, {:?} in Assimp",
                    o.name, t.name
                ));
            }
            if o.meshes != t.meshes {
                d.push(format!(
                    "node {k} ({}): meshes {:?} here, {:?} in Assimp",
                    o.name, o.meshes, t.meshes
                ));
            }
            if o.children.len() != t.children.len() {
                d.push(format!(
                    "node {k} ({}): {} children here, {} in Assimp",
                    o.name,
                    o.children.len(),
                    t.children.len()
                ));
            }
            if o.transform != t.transform {
                d.push(format!("node {k} ({}): transform differs", o.name));
            }
        }
    }
    // Materials.
    if ours.materials.len() != theirs.materials.len() {
        d.push(format!(
            "{} materials here, {} in Assimp",
            ours.materials.len(),
            theirs.materials.len()
        ));
    } else {
        for (i, (o, t)) in ours.materials.iter().zip(&theirs.materials).enumerate() {
            if !same_name(&o.name, &t.name) {
                d.push(format!(
                    "material {i}: name {:?} here, {:?} in Assimp",
                    o.name, t.name
                ));
            }
            let colours = [
                ("ambient", o.ambient, t.ambient),
                ("diffuse", o.diffuse, t.diffuse),
                ("specular", o.specular, t.specular),
                ("emissive", o.emissive, t.emissive),
            ];
            for (what, a, b) in colours {
                let same = match (a, b) {
                    (Some(a), Some(b)) => close3(a, b),
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    d.push(format!(
                        "material {i} ({}): {what} {a:?} here, {b:?} in Assimp",
                        o.name
                    ));
                }
            }
            let scalars = [
                ("shininess", o.shininess, t.shininess),
                ("opacity", o.opacity, t.opacity),
                (
                    "shininess_strength",
                    o.shininess_strength,
                    t.shininess_strength,
                ),
            ];
            for (what, a, b) in scalars {
                let same = match (a, b) {
                    (Some(a), Some(b)) => close(a, b),
                    (None, None) => true,
                    _ => false,
                };
                if !same {
                    d.push(format!(
                        "material {i} ({}): {what} {a:?} here, {b:?} in Assimp",
                        o.name
                    ));
                }
            }
            let ot: Vec<_> = o
                .textures
                .iter()
                .map(|t| (t.kind, t.path.as_str()))
                .collect();
            let tt: Vec<_> = t
                .textures
                .iter()
                .map(|t| (t.kind, t.path.as_str()))
                .collect();
            if ot != tt {
                d.push(format!(
                    "material {i} ({}): textures {ot:?} here, {tt:?} in Assimp",
                    o.name
                ));
            }
        }
    }
    // Meshes.
    if ours.meshes.len() != theirs.meshes.len() {
        d.push(format!(
            "{} meshes here, {} in Assimp",
            ours.meshes.len(),
            theirs.meshes.len()
        ));
        return d;
    }
    for (i, (o, t)) in ours.meshes.iter().zip(&theirs.meshes).enumerate() {
        let name = |s: &Scene, m: usize| {
            s.materials
                .get(m)
                .map_or("<none>".to_string(), |m| m.name.clone())
        };
        let (om, tm) = (name(ours, o.material), name(theirs, t.material));
        if o.material != t.material || !same_name(&om, &tm) {
            d.push(format!(
                "mesh {i}: material {} {om:?} here, {} {tm:?} in Assimp",
                o.material, t.material
            ));
        }
        diff_vec(
            &mut d,
            &format!("mesh {i} positions"),
            &o.positions,
            &t.positions,
            close3,
        );
        diff_vec(
            &mut d,
            &format!("mesh {i} normals"),
            &o.normals,
            &t.normals,
            close3,
        );
        if o.uv_channels.len() != t.uv_channels.len() {
            d.push(format!(
                "mesh {i}: {} UV channels here, {} in Assimp",
                o.uv_channels.len(),
                t.uv_channels.len()
            ));
        } else {
            for (c, (ou, tu)) in o.uv_channels.iter().zip(&t.uv_channels).enumerate() {
                if ou.components != tu.components {
                    d.push(format!(
                        "mesh {i} UV {c}: {} components here, {} in Assimp",
                        ou.components, tu.components
                    ));
                }
                diff_vec(
                    &mut d,
                    &format!("mesh {i} UV {c}"),
                    &ou.coords,
                    &tu.coords,
                    close3,
                );
            }
        }
        if o.color_channels.len() != t.color_channels.len() {
            d.push(format!(
                "mesh {i}: {} colour channels here, {} in Assimp",
                o.color_channels.len(),
                t.color_channels.len()
            ));
        } else {
            for (c, (oc, tc)) in o.color_channels.iter().zip(&t.color_channels).enumerate() {
                diff_vec(&mut d, &format!("mesh {i} colours {c}"), oc, tc, close4);
            }
        }
        diff_vec(
            &mut d,
            &format!("mesh {i} face sizes"),
            &o.face_sizes,
            &t.face_sizes,
            |a, b| a == b,
        );
        diff_vec(
            &mut d,
            &format!("mesh {i} indices"),
            &o.indices,
            &t.indices,
            |a, b| a == b,
        );
        // The reader derives primitive types from the faces, so a face-less mesh reads as 0.
        if t.face_count() > 0 && o.primitive_types != t.primitive_types {
            d.push(format!(
                "mesh {i}: primitive types {:?} here, {:?} in Assimp",
                o.primitive_types, t.primitive_types
            ));
        }
    }
    d
}
