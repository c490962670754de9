//! Skeleton, mesh parts, skin weights and materials from a processed [`Scene`].
//!
//! What the original tool did, and what kiln does instead (see `reference/README.md`):
//! - `ReadModelData(root, -1, -1)` gave the root index -1, so its transform never reached its
//!   children. Here every node is a bone in depth-first pre-order, the root is bone 0 with
//!   parent -1, and each bone's transform is its root-space transform `local * parent` (row
//!   vectors), i.e. the scene's global transform.
//! - `ReadMeshData` merged all meshes of a node into one part and kept the last material. Here
//!   each entry of a node's mesh list is its own part, named after the node, with its own
//!   material name and the node's bone index; a mesh referenced by several nodes is emitted for
//!   each.
//! - Tangents were never copied; here they are.
//! - Point and line faces went into the triangle list; here only triangles do, and a part left
//!   without any triangle is dropped, each with a warning.
//! - Skin weights were looked up by scene mesh index in the merged list; here each part takes
//!   the weights of its own mesh. Per vertex the four largest weights are kept (ties broken by
//!   the lower bone index, so output is deterministic) and renormalised to sum to 1. A vertex
//!   that no bone weights (and every vertex of a rigid mesh) is bound with weight 1 to the bone
//!   of its node, so the runtime's skinning shader never builds a zero matrix.
//! - One texture-path string was reused for the three texture lookups, so a missing map
//!   repeated the previous one; here a slot the material does not use is an empty string.
//! - A missing colour reads as black with alpha 1 (what Assimp 5.2's `Get(key, aiColor3D&)`
//!   gave the original tool); a missing shininess leaves the specular alpha at 1.

use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use kiln_format::{Bone, MaterialData, MeshPart, Model, Vertex};
use kiln_scene::{Mat4, Material, Scene, TextureKind, TextureRef, Vec3};

/// Everything the `.mesh` and `.xml` writers need, plus what the converter must copy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extracted {
    pub model: Model,
    pub materials: Vec<ExtractedMaterial>,
    /// Findings worth telling the user (dropped faces, unknown bones).
    pub warnings: Vec<String>,
}

/// A material as the XML stores it, with the scene's texture references behind its file names
/// so the caller can copy or extract the images.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractedMaterial {
    /// The `*_file` fields hold the file names without folders.
    pub data: MaterialData,
    pub diffuse: Option<TextureRef>,
    pub specular: Option<TextureRef>,
    pub normal: Option<TextureRef>,
}

/// Converts a scene that `kiln-process` has made left-handed and triangulated.
pub fn extract(scene: &Scene) -> Extracted {
    let mut out = Extracted::default();
    extract_skeleton(scene, &mut out);
    out.materials = scene.materials.iter().map(extract_material).collect();
    out
}

fn extract_skeleton(scene: &Scene, out: &mut Extracted) {
    let order = scene.depth_first();
    // Bone index of each node id.
    let mut bone_of = alloc::vec![-1i32; scene.nodes.len()];
    let mut globals = alloc::vec![Mat4::IDENTITY; scene.nodes.len()];
    for (index, &id) in order.iter().enumerate() {
        let node = &scene.nodes[id];
        let (parent, parent_global) = match node.parent {
            Some(p) => (bone_of[p], globals[p]),
            None => (-1, Mat4::IDENTITY),
        };
        let global = parent_global * node.transform;
        globals[id] = global;
        bone_of[id] = index as i32;
        out.model.bones.push(Bone {
            index: index as i32,
            parent,
            name: node.name.clone(),
            // Column-major of the column-vector matrix is row-major of the row-vector one.
            transform: global.to_cols_array(),
        });
    }
    for &id in &order {
        let node = &scene.nodes[id];
        for &mesh_index in &node.meshes {
            let Some(mesh) = scene.meshes.get(mesh_index) else {
                continue;
            };
            let material_name = scene
                .materials
                .get(mesh.material)
                .map(|m| m.name.clone())
                .unwrap_or_default();
            let mut indices = Vec::with_capacity(mesh.indices.len());
            let mut dropped = 0usize;
            for face in mesh.faces() {
                if face.len() == 3 {
                    indices.extend_from_slice(face);
                } else {
                    dropped += 1;
                }
            }
            if dropped > 0 {
                out.warnings.push(format!(
                    "node '{}' mesh {mesh_index}: {dropped} point/line faces left out of the triangle list",
                    node.name
                ));
            }
            if indices.is_empty() {
                out.warnings.push(format!(
                    "node '{}' mesh {mesh_index}: no triangles, part dropped",
                    node.name
                ));
                continue;
            }
            let bone_index = bone_of[id];
            let vertices = mesh_vertices(scene, mesh, bone_index, &bone_of, &mut out.warnings);
            out.model.meshes.push(MeshPart {
                name: node.name.clone(),
                vertices,
                indices,
                bone_index,
                material_name,
            });
        }
    }
}

fn v3(v: Option<&Vec3>) -> [f32; 3] {
    v.map_or([0.0; 3], |v| v.to_array())
}

fn mesh_vertices(
    scene: &Scene,
    mesh: &kiln_scene::Mesh,
    node_bone: i32,
    bone_of: &[i32],
    warnings: &mut Vec<String>,
) -> Vec<Vertex> {
    let uv = mesh.uv_channels.first();
    let mut vertices: Vec<Vertex> = mesh
        .positions
        .iter()
        .enumerate()
        .map(|(i, p)| Vertex {
            position: p.to_array(),
            uv: uv
                .and_then(|c| c.coords.get(i))
                .map_or([0.0; 2], |t| [t.x, t.y]),
            normal: v3(mesh.normals.get(i)),
            tangent: v3(mesh.tangents.get(i)),
            blend_indices: [node_bone as f32, 0.0, 0.0, 0.0],
            blend_weights: [1.0, 0.0, 0.0, 0.0],
        })
        .collect();
    if mesh.bones.is_empty() {
        return vertices;
    }
    // Gather (bone, weight) per vertex, keep the four largest.
    let mut influences: Vec<[(i32, f32); 4]> = alloc::vec![[(0, 0.0); 4]; vertices.len()];
    for bone in &mesh.bones {
        let bone_index = match scene.find_node(&bone.name) {
            Some(id) => bone_of[id],
            None => {
                warnings.push(format!(
                    "skin bone '{}' names no node; its weights go to bone 0",
                    bone.name
                ));
                0
            }
        };
        for w in &bone.weights {
            if w.weight.is_nan() || w.weight <= 0.0 {
                continue;
            }
            if let Some(slots) = influences.get_mut(w.vertex as usize) {
                insert_influence(slots, bone_index, w.weight);
            }
        }
    }
    for (v, slots) in vertices.iter_mut().zip(&influences) {
        let total: f32 = slots.iter().map(|s| s.1).sum();
        if total > 0.0 {
            for (k, &(b, w)) in slots.iter().enumerate() {
                v.blend_indices[k] = if w > 0.0 { b as f32 } else { 0.0 };
                v.blend_weights[k] = w / total;
            }
        }
    }
    vertices
}

/// Inserts into a top-4 list sorted by weight descending, then bone index ascending.
fn insert_influence(slots: &mut [(i32, f32); 4], bone: i32, weight: f32) {
    let better = |a: (i32, f32), b: (i32, f32)| a.1 > b.1 || (a.1 == b.1 && a.0 < b.0);
    let new = (bone, weight);
    let Some(pos) = slots.iter().position(|&s| s.1 <= 0.0 || better(new, s)) else {
        return;
    };
    for k in (pos + 1..4).rev() {
        slots[k] = slots[k - 1];
    }
    slots[pos] = new;
}

/// The file name of a texture path without folders (`/` and `\` both separate).
pub fn texture_file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn extract_material(m: &Material) -> ExtractedMaterial {
    let rgba = |c: Option<Vec3>, a: f32| {
        let c = c.unwrap_or(Vec3::ZERO);
        [c.x, c.y, c.z, a]
    };
    let slot = |kind| m.texture(kind).cloned();
    let (diffuse, specular, normal) = (
        slot(TextureKind::Diffuse),
        slot(TextureKind::Specular),
        slot(TextureKind::Normals),
    );
    let name_of = |t: &Option<TextureRef>| {
        t.as_ref()
            .map(|t| String::from(texture_file_name(&t.path)))
            .unwrap_or_default()
    };
    ExtractedMaterial {
        data: MaterialData {
            name: m.name.clone(),
            diffuse_file: name_of(&diffuse),
            specular_file: name_of(&specular),
            normal_file: name_of(&normal),
            ambient: rgba(m.ambient, 1.0),
            diffuse: rgba(m.diffuse, 1.0),
            specular: rgba(m.specular, m.shininess.unwrap_or(1.0)),
            emissive: rgba(m.emissive, 1.0),
        },
        diffuse,
        specular,
        normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use kiln_scene::{Bone as SkinBone, Mesh, Node, UvChannel, VertexWeight};

    fn scene() -> Scene {
        let mut s = Scene::with_root("root");
        s.nodes[0].transform = Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0));
        let a = s.add_child(0, Node::new("a"));
        s.nodes[a].transform = Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0));
        let b = s.add_child(a, Node::new("b"));
        s.add_child(0, Node::new("c"));
        s.materials.push(Material {
            name: "red".into(),
            diffuse: Some(Vec3::new(1.0, 0.0, 0.0)),
            textures: vec![TextureRef {
                kind: TextureKind::Diffuse,
                path: ".\\tex\\red.png".into(),
                embedded: None,
                uv_channel: 0,
            }],
            ..Material::default()
        });
        s.materials.push(Material {
            name: "blue".into(),
            shininess: Some(32.0),
            ..Material::default()
        });
        let mut m0 = Mesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            uv_channels: vec![UvChannel {
                components: 2,
                coords: vec![Vec3::new(0.5, 0.25, 0.0); 4],
                name: String::new(),
            }],
            material: 0,
            ..Mesh::default()
        };
        m0.push_face(&[0, 1, 2]);
        m0.push_face(&[2, 3]);
        let mut m1 = m0.clone();
        m1.material = 1;
        m1.bones = vec![
            SkinBone {
                name: "b".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![
                    VertexWeight {
                        vertex: 0,
                        weight: 0.5,
                    },
                    VertexWeight {
                        vertex: 1,
                        weight: 2.0,
                    },
                ],
            },
            SkinBone {
                name: "a".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![VertexWeight {
                    vertex: 0,
                    weight: 0.5,
                }],
            },
        ];
        s.meshes = vec![m0, m1];
        s.nodes[b].meshes = vec![0, 1];
        s
    }

    #[test]
    fn bones_are_depth_first_with_root_space_transforms() {
        let e = extract(&scene());
        let names: Vec<(&str, i32, i32)> = e
            .model
            .bones
            .iter()
            .map(|b| (b.name.as_str(), b.index, b.parent))
            .collect();
        assert_eq!(
            names,
            [("root", 0, -1), ("a", 1, 0), ("b", 2, 1), ("c", 3, 0)]
        );
        // Row-vector matrix: translation in 12..14, accumulated through the root.
        assert_eq!(&e.model.bones[2].transform[12..15], &[1.0, 0.0, 5.0]);
    }

    #[test]
    fn one_part_per_mesh_of_a_node_with_its_own_material_and_only_triangles() {
        let e = extract(&scene());
        let parts: Vec<(&str, &str, i32)> = e
            .model
            .meshes
            .iter()
            .map(|p| (p.name.as_str(), p.material_name.as_str(), p.bone_index))
            .collect();
        assert_eq!(parts, [("b", "red", 2), ("b", "blue", 2)]);
        assert_eq!(e.model.meshes[0].indices, [0, 1, 2]);
        assert_eq!(e.model.meshes[0].vertices[3].uv, [0.5, 0.25]);
        assert_eq!(e.warnings.len(), 2, "{:?}", e.warnings);
    }

    #[test]
    fn rigid_and_unweighted_vertices_bind_to_the_node_bone() {
        let e = extract(&scene());
        let v = &e.model.meshes[0].vertices[0];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
        let v = &e.model.meshes[1].vertices[3];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
    }

    #[test]
    fn weights_are_renormalised_and_ties_go_to_the_lower_bone() {
        let e = extract(&scene());
        let v = &e.model.meshes[1].vertices[0];
        // b (bone 2) and a (bone 1) both 0.5: a first.
        assert_eq!(v.blend_indices, [1.0, 2.0, 0.0, 0.0]);
        assert_eq!(v.blend_weights, [0.5, 0.5, 0.0, 0.0]);
        let v = &e.model.meshes[1].vertices[1];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
    }

    #[test]
    fn top_four_keeps_the_largest() {
        let mut slots = [(0, 0.0); 4];
        for (b, w) in [(5, 0.1), (1, 0.4), (2, 0.2), (3, 0.3), (4, 0.05), (0, 0.4)] {
            insert_influence(&mut slots, b, w);
        }
        assert_eq!(slots, [(0, 0.4), (1, 0.4), (3, 0.3), (2, 0.2)]);
    }

    #[test]
    fn materials_use_file_names_and_leave_unused_slots_empty() {
        let e = extract(&scene());
        let red = &e.materials[0].data;
        assert_eq!(red.diffuse_file, "red.png");
        assert_eq!(
            (red.specular_file.as_str(), red.normal_file.as_str()),
            ("", "")
        );
        assert_eq!(red.diffuse, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(red.ambient, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            red.specular,
            [0.0, 0.0, 0.0, 1.0],
            "missing shininess leaves A at 1"
        );
        assert_eq!(e.materials[1].data.specular[3], 32.0);
    }
}
