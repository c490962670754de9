//! MakeLeftHanded, FlipUVs and FlipWindingOrder (Assimp 5.2.5 `ConvertToLHProcess.cpp`).

use kiln_scene::{Mat4, Mesh, PropertyValue, Quat, Scene};

/// `S·M·S` with `S = diag(1, 1, -1, 1)`: row 3 (`c1 c2 c4`) and column 3 (`a3 b3 d3`) negated,
/// `c3` kept (Assimp negates it twice).
fn mirror_z(m: &mut Mat4) {
    // Row c: the z component of columns x, y, w.
    m.x_axis.z = -m.x_axis.z;
    m.y_axis.z = -m.y_axis.z;
    m.w_axis.z = -m.w_axis.z;
    // Column 3: the x, y, w components of the z column.
    m.z_axis.x = -m.z_axis.x;
    m.z_axis.y = -m.z_axis.y;
    m.z_axis.w = -m.z_axis.w;
}

/// Assimp's `aiProcess_MakeLeftHanded` (`MakeLeftHandedProcess`, 5.2.5):
///
/// - every node transform `M` becomes `S·M·S`, `S = diag(1, 1, -1, 1)` (all nodes of the arena);
/// - mesh positions, normals, tangents and bitangents get `z` negated; then, when the mesh has
///   tangents *and* bitangents, every bitangent is negated again as a whole vector ("they're
///   derived from the texture coords");
/// - morph target offsets (positions, normals, tangents) get `z` negated: a mirrored offset
///   is the offset of the mirrored shape (kiln morph targets carry no bitangents to flip);
/// - bone offset matrices become `S·M·S`;
/// - material property `$tex.mapaxis` (a vector) gets `z` negated;
/// - animation position keys get `z` negated, rotation keys `x` and `y` negated (`z`, `w`
///   kept); scaling keys are untouched.
///
/// Never fails: it touches every array by its own length.
pub fn make_left_handed(scene: &mut Scene) {
    mirror_nodes(scene);
    crate::each_mesh(&mut scene.meshes, mirror_mesh);
    mirror_materials_and_animations(scene);
}

fn mirror_nodes(scene: &mut Scene) {
    for node in &mut scene.nodes {
        mirror_z(&mut node.transform);
    }
}

fn mirror_mesh(mesh: &mut Mesh) {
    for p in &mut mesh.positions {
        p.z = -p.z;
    }
    for n in &mut mesh.normals {
        n.z = -n.z;
    }
    let has_tangent_space = !mesh.tangents.is_empty() && !mesh.bitangents.is_empty();
    if has_tangent_space {
        for t in &mut mesh.tangents {
            t.z = -t.z;
        }
        for b in &mut mesh.bitangents {
            b.z = -b.z;
        }
    }
    for shape in mesh.morph_targets.iter_mut().flat_map(|t| &mut t.shapes) {
        for d in shape
            .positions
            .iter_mut()
            .chain(&mut shape.normals)
            .chain(&mut shape.tangents)
        {
            d.z = -d.z;
        }
    }
    for bone in &mut mesh.bones {
        mirror_z(&mut bone.offset_matrix);
    }
    if has_tangent_space {
        for b in &mut mesh.bitangents {
            *b = -*b;
        }
    }
}

fn mirror_materials_and_animations(scene: &mut Scene) {
    for mat in &mut scene.materials {
        for (key, value) in &mut mat.properties {
            if key == "$tex.mapaxis" {
                if let PropertyValue::Vector(v) = value {
                    if let Some(z) = v.get_mut(2) {
                        *z = -*z;
                    }
                }
            }
        }
    }
    for anim in &mut scene.animations {
        for ch in &mut anim.channels {
            for k in &mut ch.position_keys {
                k.value.z = -k.value.z;
            }
            for k in &mut ch.rotation_keys {
                let q = k.value;
                k.value = Quat::from_xyzw(-q.x, -q.y, q.z, q.w);
            }
        }
    }
}

/// Assimp's `aiProcess_FlipUVs` (`FlipUVsProcess`, 5.2.5): every UV channel of every mesh gets
/// `v = 1 - v`; material property `$tex.uvtrafo` (translation x y, scaling x y, rotation) gets
/// its translation `y` and its rotation negated. (Assimp also flips anim-mesh UVs; kiln morph
/// targets carry none.)
pub fn flip_uvs(scene: &mut Scene) {
    crate::each_mesh(&mut scene.meshes, flip_mesh_uvs);
    flip_uv_transforms(scene);
}

fn flip_mesh_uvs(mesh: &mut Mesh) {
    for ch in &mut mesh.uv_channels {
        for uv in &mut ch.coords {
            uv.y = 1.0 - uv.y;
        }
    }
}

fn flip_uv_transforms(scene: &mut Scene) {
    for mat in &mut scene.materials {
        for (key, value) in &mut mat.properties {
            if key == "$tex.uvtrafo" {
                if let PropertyValue::Vector(v) = value {
                    if v.len() >= 5 {
                        v[1] = -v[1];
                        v[4] = -v[4];
                    }
                }
            }
        }
    }
}

/// Assimp's `aiProcess_FlipWindingOrder` (`FlipWindingOrderProcess`, 5.2.5): the indices of every
/// face are reversed (`[a, b, c, d]` becomes `[d, c, b, a]`), points and lines included. Assimp's
/// anim-mesh branch swaps every element twice, a no-op, and kiln morph targets have no faces, so
/// nothing else changes. A face-size list that overruns the indices is handled by clamping.
pub fn flip_winding_order(scene: &mut Scene) {
    crate::each_mesh(&mut scene.meshes, flip_mesh_winding);
}

fn flip_mesh_winding(mesh: &mut Mesh) {
    let mut start = 0usize;
    for &n in &mesh.face_sizes {
        let end = start.saturating_add(n as usize).min(mesh.indices.len());
        mesh.indices[start..end].reverse();
        start = end;
    }
}

/// Assimp's `aiProcess_ConvertToLeftHanded` = MakeLeftHanded | FlipUVs | FlipWindingOrder, in
/// Assimp's order. The three steps touch each mesh's own arrays only, so each mesh takes all
/// three in one task (one per mesh on rayon's pool with `parallel`), the same as three passes.
pub fn convert_to_left_handed(scene: &mut Scene) {
    mirror_nodes(scene);
    crate::each_mesh(&mut scene.meshes, |mesh| {
        mirror_mesh(mesh);
        flip_mesh_uvs(mesh);
        flip_mesh_winding(mesh);
    });
    mirror_materials_and_animations(scene);
    flip_uv_transforms(scene);
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::{
        Animation, Bone, Material, Mesh, MorphShape, MorphTarget, Node, NodeChannel, QuatKey,
        UvChannel, Vec3, VectorKey,
    };

    /// A material with both properties the steps change: `$tex.mapaxis` and `$tex.uvtrafo`.
    fn material_with_map_axis_and_uv_transform() -> Material {
        let mut mat = Material::default();
        mat.properties.push((
            "$tex.mapaxis".into(),
            PropertyValue::Vector(vec![0.0, 0.0, 1.0]),
        ));
        mat.properties.push((
            "$tex.uvtrafo".into(),
            PropertyValue::Vector(vec![0.5, 0.25, 1.0, 1.0, 0.3]),
        ));
        mat
    }

    #[test]
    fn node_matrix_is_mirrored_on_both_sides() {
        let mut s = Scene::with_root("r");
        let m = Mat4::from_cols_array(&[
            1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0,
        ]);
        s.nodes[0].transform = m;
        make_left_handed(&mut s);
        let sm = Mat4::from_scale(Vec3::new(1.0, 1.0, -1.0));
        assert_eq!(s.nodes[0].transform, sm * m * sm);
    }

    #[test]
    fn mesh_bones_animation_and_materials() {
        let mut s = Scene::with_root("r");
        s.add_child(0, Node::new("a"));
        let mut mesh = Mesh {
            positions: vec![Vec3::new(1.0, 2.0, 3.0)],
            normals: vec![Vec3::new(0.0, 0.6, 0.8)],
            tangents: vec![Vec3::new(1.0, 0.0, 1.0)],
            bitangents: vec![Vec3::new(0.0, 1.0, 2.0)],
            uv_channels: vec![UvChannel {
                components: 2,
                coords: vec![Vec3::new(0.25, 0.25, 0.0)],
                name: String::new(),
            }],
            ..Mesh::default()
        };
        mesh.push_face(&[0]);
        mesh.bones.push(Bone {
            name: "a".into(),
            offset_matrix: Mat4::from_translation(Vec3::new(1.0, 2.0, 3.0)),
            weights: vec![],
        });
        mesh.morph_targets.push(MorphTarget {
            name: "m".into(),
            weight: 1.0,
            shapes: vec![MorphShape {
                full_weight: 1.0,
                positions: vec![Vec3::new(0.0, 0.0, 5.0)],
                normals: vec![Vec3::new(0.0, 0.0, 1.0)],
                tangents: vec![Vec3::new(1.0, 0.0, 2.0)],
                ..MorphShape::default()
            }],
        });
        s.meshes.push(mesh);
        s.materials.push(material_with_map_axis_and_uv_transform());
        s.animations.push(Animation {
            channels: vec![NodeChannel {
                node_name: "a".into(),
                position_keys: vec![VectorKey {
                    time: 0.0,
                    value: Vec3::new(1.0, 2.0, 3.0),
                }],
                rotation_keys: vec![QuatKey {
                    time: 0.0,
                    value: Quat::from_xyzw(0.1, 0.2, 0.3, 0.9),
                }],
                scaling_keys: vec![VectorKey {
                    time: 0.0,
                    value: Vec3::new(1.0, 2.0, 3.0),
                }],
            }],
            ..Animation::default()
        });

        convert_to_left_handed(&mut s);
        let m = &s.meshes[0];
        assert_eq!(m.positions[0], Vec3::new(1.0, 2.0, -3.0));
        assert_eq!(m.normals[0], Vec3::new(0.0, 0.6, -0.8));
        assert_eq!(m.tangents[0], Vec3::new(1.0, 0.0, -1.0));
        // z negated, then the whole vector.
        assert_eq!(m.bitangents[0], Vec3::new(0.0, -1.0, 2.0));
        assert_eq!(m.uv_channels[0].coords[0], Vec3::new(0.25, 0.75, 0.0));
        assert_eq!(m.bones[0].offset_matrix.w_axis.z, -3.0);
        let shape = &m.morph_targets[0].shapes[0];
        assert_eq!(shape.positions[0], Vec3::new(0.0, 0.0, -5.0));
        assert_eq!(shape.normals[0], Vec3::new(0.0, 0.0, -1.0));
        assert_eq!(shape.tangents[0], Vec3::new(1.0, 0.0, -2.0));
        let ch = &s.animations[0].channels[0];
        assert_eq!(ch.position_keys[0].value, Vec3::new(1.0, 2.0, -3.0));
        assert_eq!(
            ch.rotation_keys[0].value,
            Quat::from_xyzw(-0.1, -0.2, 0.3, 0.9)
        );
        assert_eq!(ch.scaling_keys[0].value, Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(
            s.materials[0].properties[0].1,
            PropertyValue::Vector(vec![0.0, 0.0, -1.0])
        );
        assert_eq!(
            s.materials[0].properties[1].1,
            PropertyValue::Vector(vec![0.5, -0.25, 1.0, 1.0, -0.3])
        );
    }

    #[test]
    fn winding_reverses_every_face_and_tolerates_bad_sizes() {
        let mut s = Scene::with_root("r");
        let mut m = Mesh::default();
        m.push_face(&[0, 1, 2, 3]);
        m.push_face(&[4, 5]);
        m.push_face(&[6, 7, 8]);
        s.meshes.push(m);
        flip_winding_order(&mut s);
        assert_eq!(s.meshes[0].indices, [3, 2, 1, 0, 5, 4, 8, 7, 6]);
        s.meshes[0].face_sizes = vec![7, 7];
        flip_winding_order(&mut s);
        assert_eq!(s.meshes[0].indices, [8, 4, 5, 0, 1, 2, 3, 6, 7]);
    }

    /// The fused per-mesh task gives what the three steps in Assimp's order give, on several
    /// meshes (so on rayon's threads with `parallel`) with faces of 1 to 4 corners.
    #[test]
    fn convert_to_left_handed_is_the_three_steps_in_turn() {
        let mut s = Scene::with_root("r");
        for k in 0..5 {
            let f = k as f32;
            let n = 6 + k;
            let mut mesh = Mesh {
                positions: (0..n)
                    .map(|i| Vec3::new(i as f32, f, f * 2.0 - i as f32))
                    .collect(),
                normals: (0..n)
                    .map(|i| Vec3::new(0.0, 0.6, 0.8 - i as f32 * 0.1))
                    .collect(),
                tangents: (0..n).map(|i| Vec3::new(1.0, f, i as f32)).collect(),
                bitangents: (0..n).map(|i| Vec3::new(f, 1.0, -(i as f32))).collect(),
                uv_channels: vec![UvChannel {
                    components: 2,
                    coords: (0..n)
                        .map(|i| Vec3::new(0.1 * i as f32, 0.2 * f, 0.0))
                        .collect(),
                    name: String::new(),
                }],
                ..Mesh::default()
            };
            mesh.push_face(&[0, 1, 2]);
            mesh.push_face(&[2, 3, 4, 5]);
            mesh.push_face(&[1, 5]);
            mesh.push_face(&[3]);
            s.meshes.push(mesh);
        }
        s.materials.push(material_with_map_axis_and_uv_transform());
        let mut fused = s.clone();
        convert_to_left_handed(&mut fused);
        make_left_handed(&mut s);
        flip_uvs(&mut s);
        flip_winding_order(&mut s);
        assert_eq!(fused, s);
        assert_eq!(s.meshes[4].indices[3..7], [5, 4, 3, 2]);
    }
}
