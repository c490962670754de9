//! Comparison of two scenes (kiln's and Assimp's) with the tolerances the conformance tables
//! use, and of a classic `.mesh` file (as [`crate::classic`] decodes it) with a model, each
//! reporting the first difference in words.

use kiln_scene::{Mat4, Scene, Vec3};

use crate::classic::DecodedMeshFile;

/// `assimp dump` prints six decimals: values agree when they differ by at most
/// `TOL * max(1, |a|, |b|)`; NaN agrees with NaN.
pub const TOL: f32 = 1e-4;

/// Whether `a` and `b` agree within [`TOL`] (relative, at least 1 absolute); NaN agrees only
/// with NaN.
pub fn close(a: f32, b: f32) -> bool {
    if a.is_nan() || b.is_nan() {
        return a.is_nan() && b.is_nan();
    }
    (a - b).abs() <= TOL * 1f32.max(a.abs()).max(b.abs())
}

/// [`close`] on each of the four components.
pub fn close_quat(a: kiln_scene::Quat, b: kiln_scene::Quat) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z) && close(a.w, b.w)
}

/// [`close`] on each of the three components.
pub fn close3(a: Vec3, b: Vec3) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z)
}

/// [`close`] on each of the sixteen elements.
pub fn close_mat(a: &Mat4, b: &Mat4) -> bool {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array().iter())
        .all(|(x, y)| close(*x, *y))
}

fn vec_list(what: &str, mesh: usize, ours: &[Vec3], theirs: &[Vec3]) -> Result<(), String> {
    if ours.len() != theirs.len() {
        return Err(format!(
            "mesh {mesh}: {} {what}, Assimp {}",
            ours.len(),
            theirs.len()
        ));
    }
    for (i, (a, b)) in ours.iter().zip(theirs).enumerate() {
        if !close3(*a, *b) {
            return Err(format!("mesh {mesh} {what}[{i}]: kiln {a:?}, Assimp {b:?}"));
        }
    }
    Ok(())
}

/// What to compare beyond the node tree and the faces.
#[derive(Clone, Copy, Debug)]
pub struct Aspects {
    /// Vertex normals.
    pub normals: bool,
    /// Vertex tangents.
    pub tangents: bool,
    /// Vertex bitangents.
    pub bitangents: bool,
    /// UV channels (count, components, coordinates).
    pub uvs: bool,
    /// Vertex colour channels.
    pub colors: bool,
}

impl Aspects {
    /// Every aspect.
    pub const ALL: Aspects = Aspects {
        normals: true,
        tangents: true,
        bitangents: true,
        uvs: true,
        colors: true,
    };
}

/// Compares node tree (names, parents, transforms), materials (names) and meshes (material,
/// vertices, faces and the chosen attributes). Returns the first difference.
pub fn compare_scenes(ours: &Scene, theirs: &Scene, aspects: Aspects) -> Result<(), String> {
    if ours.nodes.len() != theirs.nodes.len() {
        return Err(format!(
            "{} nodes, Assimp {}",
            ours.nodes.len(),
            theirs.nodes.len()
        ));
    }
    let (oo, to) = (ours.depth_first(), theirs.depth_first());
    for (&a, &b) in oo.iter().zip(&to) {
        let (na, nb) = (&ours.nodes[a], &theirs.nodes[b]);
        if na.name != nb.name {
            return Err(format!(
                "node {a}: name {:?}, Assimp {:?}",
                na.name, nb.name
            ));
        }
        let pa = na.parent.map(|p| ours.nodes[p].name.as_str());
        let pb = nb.parent.map(|p| theirs.nodes[p].name.as_str());
        if pa != pb {
            return Err(format!("node {:?}: parent {pa:?}, Assimp {pb:?}", na.name));
        }
        if !close_mat(&na.transform, &nb.transform) {
            return Err(format!(
                "node {:?}: transform {:?}, Assimp {:?}",
                na.name, na.transform, nb.transform
            ));
        }
        if na.meshes != nb.meshes {
            return Err(format!(
                "node {:?}: meshes {:?}, Assimp {:?}",
                na.name, na.meshes, nb.meshes
            ));
        }
    }
    if ours.materials.len() != theirs.materials.len() {
        return Err(format!(
            "{} materials, Assimp {}",
            ours.materials.len(),
            theirs.materials.len()
        ));
    }
    for (i, (a, b)) in ours.materials.iter().zip(&theirs.materials).enumerate() {
        if a.name != b.name {
            return Err(format!(
                "material {i}: name {:?}, Assimp {:?}",
                a.name, b.name
            ));
        }
    }
    if ours.meshes.len() != theirs.meshes.len() {
        return Err(format!(
            "{} meshes, Assimp {}",
            ours.meshes.len(),
            theirs.meshes.len()
        ));
    }
    for (m, (a, b)) in ours.meshes.iter().zip(&theirs.meshes).enumerate() {
        if a.material != b.material {
            return Err(format!(
                "mesh {m}: material {}, Assimp {}",
                a.material, b.material
            ));
        }
        vec_list("positions", m, &a.positions, &b.positions)?;
        if a.face_sizes != b.face_sizes {
            return Err(format!(
                "mesh {m}: {} faces (sizes differ), Assimp {}",
                a.face_sizes.len(),
                b.face_sizes.len()
            ));
        }
        if a.indices != b.indices {
            let i = a
                .indices
                .iter()
                .zip(&b.indices)
                .position(|(x, y)| x != y)
                .unwrap_or(0);
            return Err(format!(
                "mesh {m}: index[{i}] {:?}, Assimp {:?}",
                a.indices.get(i),
                b.indices.get(i)
            ));
        }
        if aspects.normals {
            vec_list("normals", m, &a.normals, &b.normals)?;
        }
        if aspects.tangents {
            vec_list("tangents", m, &a.tangents, &b.tangents)?;
        }
        if aspects.bitangents {
            vec_list("bitangents", m, &a.bitangents, &b.bitangents)?;
        }
        if aspects.uvs {
            if a.uv_channels.len() != b.uv_channels.len() {
                return Err(format!(
                    "mesh {m}: {} UV channels, Assimp {}",
                    a.uv_channels.len(),
                    b.uv_channels.len()
                ));
            }
            for (c, (ua, ub)) in a.uv_channels.iter().zip(&b.uv_channels).enumerate() {
                if ua.components != ub.components {
                    return Err(format!(
                        "mesh {m} UV {c}: {} components, Assimp {}",
                        ua.components, ub.components
                    ));
                }
                vec_list(&format!("uv{c}"), m, &ua.coords, &ub.coords)?;
            }
        }
        if aspects.colors {
            if a.color_channels.len() != b.color_channels.len() {
                return Err(format!(
                    "mesh {m}: {} colour channels, Assimp {}",
                    a.color_channels.len(),
                    b.color_channels.len()
                ));
            }
            for (c, (ca, cb)) in a.color_channels.iter().zip(&b.color_channels).enumerate() {
                if ca.len() != cb.len() {
                    return Err(format!(
                        "mesh {m} colours {c}: {} values, Assimp {}",
                        ca.len(),
                        cb.len()
                    ));
                }
                for (i, (x, y)) in ca.iter().zip(cb).enumerate() {
                    if !(close(x.x, y.x) && close(x.y, y.y) && close(x.z, y.z) && close(x.w, y.w)) {
                        return Err(format!("mesh {m} colour{c}[{i}]: kiln {x:?}, Assimp {y:?}"));
                    }
                }
            }
        }
    }
    Ok(())
}

/// Compares a decoded classic `.mesh` file (bones: index, parent, name, transform; parts: name,
/// bone, material, indices, the 19 floats of each vertex) with `theirs`, the model built from
/// Assimp's scene. Returns the first difference.
pub fn compare_classic(ours: &DecodedMeshFile, theirs: &kiln_format::Model) -> Result<(), String> {
    if ours.bones.len() != theirs.bones.len() {
        return Err(format!(
            ".mesh: {} bones, Assimp-based {}",
            ours.bones.len(),
            theirs.bones.len()
        ));
    }
    for (a, b) in ours.bones.iter().zip(&theirs.bones) {
        if a.index != b.index || a.parent != b.parent || a.name != b.name {
            return Err(format!(
                ".mesh bone {}: ({}, {:?}) vs ({}, {:?})",
                a.index, a.parent, a.name, b.parent, b.name
            ));
        }
        if !a
            .transform
            .iter()
            .zip(&b.transform)
            .all(|(x, y)| close(*x, *y))
        {
            return Err(format!(
                ".mesh bone {:?}: transform {:?}, Assimp-based {:?}",
                a.name, a.transform, b.transform
            ));
        }
    }
    if ours.meshes.len() != theirs.meshes.len() {
        return Err(format!(
            ".mesh: {} parts, Assimp-based {}",
            ours.meshes.len(),
            theirs.meshes.len()
        ));
    }
    for (p, (a, b)) in ours.meshes.iter().zip(&theirs.meshes).enumerate() {
        if a.name != b.name || a.bone_index != b.bone_index || a.material_name != b.material_name {
            return Err(format!(
                ".mesh part {p}: ({:?}, bone {}, {:?}) vs ({:?}, bone {}, {:?})",
                a.name, a.bone_index, a.material_name, b.name, b.bone_index, b.material_name
            ));
        }
        if a.indices != b.indices {
            return Err(format!(".mesh part {p}: indices differ"));
        }
        if a.vertices.len() != b.vertices.len() {
            return Err(format!(
                ".mesh part {p}: {} vertices vs {}",
                a.vertices.len(),
                b.vertices.len()
            ));
        }
        for (i, (va, vb)) in a.vertices.iter().zip(&b.vertices).enumerate() {
            let fb: &[f32; 19] = bytemuck::cast_ref(vb);
            if let Some(k) = (0..19).find(|&k| !close(va[k], fb[k])) {
                return Err(format!(
                    ".mesh part {p} vertex {i} float {k}: {} vs {}",
                    va[k], fb[k]
                ));
            }
        }
    }
    Ok(())
}
