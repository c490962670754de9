//! Turns the parsed [`Model`] into a [`Scene`] the way Assimp 5.2's `ObjFileImporter` does
//! (`CreateDataFromImport`, `createTopology`, `createVertexArray`, `createMaterials`), plus the
//! two things Assimp's `ScenePreprocessor` does to every import (UV component count, default
//! material for point clouds).

use alloc::format;
use alloc::string::String;
use alloc::vec;
use alloc::vec::Vec;

use kiln_scene::{
    Material, Mesh, Node, PrimitiveTypes, PropertyValue, Scene, TextureKind, TextureRef, UvChannel,
    Vec3, Vec4, Warning,
};

use crate::ObjError;
use crate::codes;
use crate::mtl::{DEFAULT_MATERIAL, ObjMaterial, Slot};
use crate::obj::{Kind, Model, ObjMesh};
use crate::text::Warnings;

/// Builds the scene. `materials_from` receives, per scene material, the library that defined
/// it (for path resolution by `load`).
pub(crate) fn build(
    model: &Model,
    file: &str,
    warnings: &mut Warnings,
    materials_from: &mut Vec<Option<String>>,
) -> Result<Scene, ObjError> {
    let mut scene = Scene::with_root(file);
    scene.metadata.source_format = String::from("obj");

    if model.objects.is_empty() {
        return point_cloud(model, file, warnings, scene, materials_from);
    }

    let mut points = 0usize;
    let mut lines = 0usize;
    // Scratch for numbering each mesh's positions from 0 (`SharedPositions::numbered`).
    let mut number = Vec::new();
    for obj in &model.objects {
        let mut node = Node::new(obj.name.clone());
        for &mid in &obj.meshes {
            let m = &model.meshes[mid];
            if m.faces.is_empty() {
                continue;
            }
            let (mesh, lost_normals, lost_uvs) = topology(model, m, file, &mut number)?;
            if mesh.face_count() == 0 {
                continue;
            }
            for f in &m.faces {
                match f.kind {
                    Kind::Point => points += f.nv as usize,
                    Kind::Line => lines += f.nv as usize - 1,
                    Kind::Polygon => {}
                }
            }
            if lost_normals {
                warnings.push(Warning::new(
                    codes::NORMALS_DROPPED,
                    format!(
                        "{file}: mesh {} ({}): a normal index is out of range, so the mesh has no normals (as in Assimp)",
                        scene.meshes.len(),
                        m.name
                    ),
                ));
            }
            if lost_uvs {
                warnings.push(Warning::new(
                    codes::UVS_DROPPED,
                    format!(
                        "{file}: mesh {} ({}): a texture coordinate index is out of range, so the mesh has no UVs (as in Assimp)",
                        scene.meshes.len(),
                        m.name
                    ),
                ));
            }
            node.meshes.push(scene.meshes.len());
            scene.meshes.push(mesh);
        }
        scene.add_child(0, node);
    }
    if scene.meshes.is_empty() {
        // As Assimp: the nodes and the materials, no mesh.
        warnings.push(Warning::new(
            codes::NO_GEOMETRY,
            format!(
                "{file}: objects or groups but no faces: nodes and materials only (as in Assimp)"
            ),
        ));
    }
    if points > 0 {
        warnings.push(Warning::new(
            codes::POINTS_KEPT,
            format!(
                "{file}: {points} points (p) kept as 1-index faces, as Assimp does; engine extraction drops them"
            ),
        ));
    }
    if lines > 0 {
        warnings.push(Warning::new(
            codes::LINES_KEPT,
            format!(
                "{file}: {lines} line segments (l) kept as 2-index faces, as Assimp does; engine extraction drops them"
            ),
        ));
    }
    for m in &model.materials.list {
        scene.materials.push(material(m));
        materials_from.push(m.library.clone());
    }
    Ok(scene)
}

/// No object at all: Assimp returns the vertices as one face-less point mesh at the root (and
/// its scene preprocessor adds the default material).
fn point_cloud(
    model: &Model,
    file: &str,
    warnings: &mut Warnings,
    mut scene: Scene,
    materials_from: &mut Vec<Option<String>>,
) -> Result<Scene, ObjError> {
    let n = model.positions.len();
    if n == 0 {
        // As Assimp: the root node alone.
        warnings.push(Warning::new(
            codes::NO_GEOMETRY,
            format!("{file}: no vertices and no faces: the root node only (as in Assimp)"),
        ));
        return Ok(scene);
    }
    let mut mesh = Mesh {
        positions: model.positions.clone(),
        primitive_types: PrimitiveTypes(PrimitiveTypes::POINT),
        ..Mesh::default()
    };
    if !model.normals.is_empty() {
        if model.normals.len() < n {
            return Err(ObjError::Invalid {
                file: String::from(file),
                message: format!(
                    "point cloud with {n} vertices but only {} normals",
                    model.normals.len()
                ),
            });
        }
        mesh.normals = model.normals[..n].to_vec();
    }
    if !model.colors.is_empty() {
        if model.colors.len() < n {
            return Err(ObjError::Invalid {
                file: String::from(file),
                message: format!(
                    "point cloud with {n} vertices but only {} colours",
                    model.colors.len()
                ),
            });
        }
        mesh.color_channels
            .push(model.colors[..n].iter().map(|c| c.extend(1.0)).collect());
    }
    warnings.push(Warning::new(
        codes::POINT_CLOUD,
        format!(
            "{file}: no faces: the {n} vertices form one point-cloud mesh without faces (as in Assimp)"
        ),
    ));
    scene.nodes[0].meshes.push(0);
    scene.meshes.push(mesh);
    scene.materials.push(Material {
        name: String::from(DEFAULT_MATERIAL),
        diffuse: Some(Vec3::splat(0.6)),
        ..Material::default()
    });
    materials_from.push(None);
    Ok(scene)
}

/// One output mesh from an OBJ mesh: every face corner becomes its own vertex, points become
/// one face per vertex and lines one 2-index face per segment (the inner vertices of a line
/// are duplicated, exactly like Assimp). Returns the mesh and whether normals / UVs were
/// dropped because an index was out of range.
fn topology(
    model: &Model,
    m: &ObjMesh,
    file: &str,
    number: &mut Vec<u32>,
) -> Result<(Mesh, bool, bool), ObjError> {
    let mut nverts = 0usize;
    let mut nfaces = 0usize;
    for f in &m.faces {
        let nv = f.nv as usize;
        match f.kind {
            Kind::Line => {
                nverts += 2 * (nv - 1);
                nfaces += nv - 1;
            }
            Kind::Point => {
                nverts += nv;
                nfaces += nv;
            }
            Kind::Polygon => {
                nverts += nv;
                nfaces += 1;
            }
        }
    }
    if nverts > u32::MAX as usize {
        return Err(ObjError::Invalid {
            file: String::from(file),
            message: format!("mesh {} has more than 2^32 vertices", m.name),
        });
    }

    let want_normals = !model.normals.is_empty() && m.has_normals;
    let want_colors = !model.colors.is_empty();
    let want_uvs = !model.texcoords.is_empty() && m.uv_refs > 0;

    let mut positions = vec![Vec3::ZERO; nverts];
    let mut normals = if want_normals {
        vec![Vec3::ZERO; nverts]
    } else {
        Vec::new()
    };
    let mut colors = if want_colors {
        vec![Vec4::ZERO; nverts]
    } else {
        Vec::new()
    };
    let mut uvs = if want_uvs {
        vec![Vec3::ZERO; nverts]
    } else {
        Vec::new()
    };
    let mut face_sizes = Vec::with_capacity(nfaces);
    let mut indices: Vec<u32> = Vec::with_capacity(nverts);
    // The `v` of each vertex.
    let mut of_vertex = vec![0u32; nverts];
    let mut normals_ok = true;
    let mut uvs_ok = true;

    let (mut ov, mut ot, mut on) = (0usize, 0usize, 0usize);
    let mut slot = 0usize;
    for f in &m.faces {
        let nv = f.nv as usize;
        let fv = &m.v[ov..ov + nv];
        let ft = &m.vt[ot..ot + f.nt as usize];
        let fnn = &m.vn[on..on + f.nn as usize];
        ov += nv;
        ot += f.nt as usize;
        on += f.nn as usize;

        let first_index = indices.len();
        match f.kind {
            Kind::Polygon => {
                face_sizes.push(nv as u32);
                indices.extend((slot..slot + nv).map(|i| i as u32));
            }
            Kind::Point => {
                for i in 0..nv {
                    face_sizes.push(1);
                    indices.push((slot + i) as u32);
                }
            }
            Kind::Line => {
                face_sizes.extend(core::iter::repeat_n(2, nv - 1));
                indices.extend(core::iter::repeat_n(0, 2 * (nv - 1)));
            }
        }

        for (k, &vi) in fv.iter().enumerate() {
            let Some(&p) = model.positions.get(vi as usize) else {
                return Err(ObjError::Syntax {
                    file: String::from(file),
                    line: f.line,
                    message: if vi == crate::obj::INVALID {
                        String::from("relative vertex index points before the first vertex")
                    } else {
                        format!(
                            "vertex index {} out of range: the file has {} vertices",
                            u64::from(vi) + 1,
                            model.positions.len()
                        )
                    },
                });
            };
            positions[slot] = p;
            of_vertex[slot] = vi;
            if normals_ok && want_normals && k < fnn.len() {
                match model.normals.get(fnn[k] as usize) {
                    Some(&n) => normals[slot] = n,
                    None => normals_ok = false,
                }
            }
            if let Some(c) = model.colors.get(vi as usize) {
                colors[slot] = c.extend(1.0);
            }
            if uvs_ok && want_uvs && k < ft.len() {
                match model.texcoords.get(ft[k] as usize) {
                    Some(&t) => uvs[slot] = t,
                    None => uvs_ok = false,
                }
            }
            if f.kind == Kind::Line {
                let last = k == nv - 1;
                if !last {
                    indices[first_index + 2 * k] = slot as u32;
                }
                if k > 0 {
                    if !last {
                        // The inner vertex again, as the end of the previous segment (its
                        // colour stays zero, as in Assimp).
                        positions[slot + 1] = positions[slot];
                        of_vertex[slot + 1] = vi;
                        if !fnn.is_empty() && want_normals {
                            normals[slot + 1] = normals[slot];
                        }
                        if want_uvs {
                            uvs[slot + 1] = uvs[slot];
                        }
                        slot += 1;
                    }
                    indices[first_index + 2 * (k - 1) + 1] = slot as u32;
                }
            }
            slot += 1;
        }
    }
    debug_assert_eq!(slot, nverts);

    let mut mesh = Mesh {
        name: m.name.clone(),
        material: m.material.unwrap_or(0),
        positions,
        face_sizes,
        indices,
        // Every `v` was checked against the positions above.
        shared_positions: kiln_scene::SharedPositions::numbered(
            of_vertex,
            model.positions.len(),
            number,
        ),
        ..Mesh::default()
    };
    if want_normals && normals_ok {
        mesh.normals = normals;
    }
    if want_colors {
        mesh.color_channels.push(colors);
    }
    if want_uvs && uvs_ok {
        // Assimp's scene preprocessor: 3 declared components that are all zero in z are 2.
        let mut components = model.texcoord_dim.max(1);
        if components == 3 && uvs.iter().all(|t| t.z == 0.0) {
            components = 2;
        }
        mesh.uv_channels.push(UvChannel {
            components,
            coords: uvs,
            name: String::new(),
        });
    }
    mesh.update_primitive_types();
    Ok((mesh, want_normals && !normals_ok, want_uvs && !uvs_ok))
}

fn rgb(c: [f32; 3]) -> Vec3 {
    Vec3::from_array(c)
}

/// Assimp's material, in its property order: colours, shininess, opacity; then textures
/// diffuse, ambient, emissive, specular, height (`bump`), normals (`norm`), reflection,
/// displacement, opacity, shininess (`map_Ns`). Everything else goes to `properties` under
/// the MTL keyword that sets it.
fn material(m: &ObjMaterial) -> Material {
    let mut out = Material {
        name: m.name.clone(),
        ambient: Some(rgb(m.ambient)),
        diffuse: Some(rgb(m.diffuse)),
        specular: Some(rgb(m.specular)),
        emissive: Some(rgb(m.emissive)),
        shininess: Some(m.shininess),
        shininess_strength: None,
        opacity: Some(m.alpha),
        textures: Vec::new(),
        properties: Vec::new(),
    };
    let p = &mut out.properties;
    p.push((
        String::from("illum"),
        PropertyValue::Int(i64::from(m.illum)),
    ));
    p.push((String::from("Tf"), vector(&m.transparent)));
    p.push((String::from("Ni"), PropertyValue::Float(f64::from(m.ior))));
    p.push((
        String::from("aniso"),
        PropertyValue::Float(f64::from(m.anisotropy)),
    ));
    let optional = [
        ("Pr", m.roughness),
        ("Pm", m.metallic),
        ("Pc", m.clearcoat_thickness),
        ("Pcr", m.clearcoat_roughness),
    ];
    for (k, v) in optional {
        if let Some(v) = v {
            p.push((String::from(k), PropertyValue::Float(f64::from(v))));
        }
    }
    if let Some(s) = &m.sheen {
        p.push((String::from("Ps"), vector(s)));
    }

    let push = |slot: Slot, kind: TextureKind, out: &mut Material| {
        if let Some(path) = m.texture(slot) {
            out.textures.push(TextureRef {
                kind,
                path: String::from(path),
                embedded: None,
                uv_channel: 0,
            });
            if m.clamp[slot.index()] {
                out.properties
                    .push((format!("{}.clamp", slot.keyword()), PropertyValue::Int(1)));
            }
            if matches!(slot, Slot::Bump | Slot::Normal) && m.bump_multiplier != 1.0 {
                out.properties.push((
                    format!("{}.bm", slot.keyword()),
                    PropertyValue::Float(f64::from(m.bump_multiplier)),
                ));
            }
        }
    };
    push(Slot::Diffuse, TextureKind::Diffuse, &mut out);
    push(Slot::Ambient, TextureKind::Ambient, &mut out);
    push(Slot::Emissive, TextureKind::Emissive, &mut out);
    push(Slot::Specular, TextureKind::Specular, &mut out);
    push(Slot::Bump, TextureKind::Height, &mut out);
    push(Slot::Normal, TextureKind::Normals, &mut out);
    if m.texture(Slot::Reflection(0)).is_some() {
        let cube = m.texture(Slot::Reflection(1)).is_some();
        for i in 0..if cube { 6 } else { 1 } {
            push(Slot::Reflection(i), TextureKind::Reflection, &mut out);
        }
    }
    push(Slot::Disp, TextureKind::Displacement, &mut out);
    push(Slot::Opacity, TextureKind::Opacity, &mut out);
    push(Slot::Specularity, TextureKind::Shininess, &mut out);
    // PBR maps have no kiln texture kind: kept as properties with their path.
    for slot in [Slot::Roughness, Slot::Metallic, Slot::Sheen] {
        if let Some(path) = m.texture(slot) {
            out.properties.push((
                String::from(slot.keyword()),
                PropertyValue::String(String::from(path)),
            ));
        }
    }
    out
}

fn vector(c: &[f32; 3]) -> PropertyValue {
    PropertyValue::Vector(c.iter().map(|&x| f64::from(x)).collect())
}
