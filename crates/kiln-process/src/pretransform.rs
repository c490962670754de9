//! PreTransformVertices (Assimp 5.2.5 `PretransformVertices.cpp`, default configuration).

use crate::{ProcessError, check};
use kiln_scene::assimp_math::mat4::{
    IDENTITY_EPSILON, is_identity, mat_mul, mul3, normal_matrix, transform_point,
};
use kiln_scene::assimp_math::normalize;
use kiln_scene::{Mat4, Mesh, Node, PrimitiveTypes, Scene, UvChannel};
use std::collections::BTreeMap;

/// Assimp's `aiProcess_PreTransformVertices` as in 5.2.5 with the default configuration (no
/// `KEEP_HIERARCHY`, `NORMALIZE`, `ADD_ROOT_TRANSFORMATION`):
///
/// - every node's global transform is computed (root first, `parent · local`);
/// - output meshes are built per material index (ascending) and, within a material, per vertex
///   format (a bit set of normals, tangents, UV channels and their 3-component flag, colour
///   channels; formats in ascending numeric order). Each gathers, in depth-first node order
///   (a node's meshes in order, then its children), every reference to a mesh of that material
///   and format: a mesh referenced by several nodes is copied once per reference, meshes no
///   node references are dropped, and groups with no face or no vertex produce nothing;
/// - positions are transformed by the node's global transform, normals, tangents and
///   bitangents by the upper 3×3 of its inverse transpose and normalised (a zero result stays
///   zero, a singular transform gives NaN), unless that global transform is within 0.01 of identity in every
///   element (Assimp's `IsIdentity()` epsilon): then everything is copied unchanged, even a
///   slightly-off transform. Winding is not changed for mirroring transforms. UVs and colours
///   are copied (UV component count 3 if the source had 3, else 2; UV names are lost);
/// - an output mesh is named after the last source mesh whose last reference it took (empty if
///   none) and has no bones and no morph targets;
/// - all animations are removed; the node tree becomes a root with the old root's name and an
///   identity transform, holding the single mesh when there is exactly one, else one child per
///   mesh, named after the mesh, with an identity transform.
///
/// Errors (the scene is left untouched): a malformed mesh or node tree, and
/// [`ProcessError::NoOutputMeshes`] when no node references a mesh with faces (Assimp throws
/// "No output meshes: all meshes are orphaned and are not referenced by any nodes" and the
/// import fails). A scene with no meshes at all is left as it is, as in Assimp.
pub fn pre_transform_vertices(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    let order = check::node_order(scene)?;
    pre_transform_checked(scene, &order)
}

/// Assimp's `GetMeshVFormatUnique`.
fn vertex_format(m: &Mesh) -> u32 {
    let mut f = 1u32;
    let nv = m.positions.len();
    if nv == 0 {
        return f;
    }
    if !m.normals.is_empty() {
        f |= 0x2;
    }
    if !m.tangents.is_empty() && !m.bitangents.is_empty() {
        f |= 0x4;
    }
    for (p, ch) in m.uv_channels.iter().enumerate().take(8) {
        f |= 0x100 << p;
        if ch.components == 3 {
            f |= 0x10000 << p;
        }
    }
    for p in 0..m.color_channels.len().min(8) {
        f |= 0x0100_0000 << p;
    }
    f
}

pub(crate) fn pre_transform_checked(
    scene: &mut Scene,
    order: &[usize],
) -> Result<(), ProcessError> {
    if scene.meshes.is_empty() {
        return Ok(());
    }
    // Global transforms in depth-first order (parents come first in `order`).
    // Children are reached through their parent's `children` list, as Assimp walks the tree.
    let mut global = vec![Mat4::IDENTITY; scene.nodes.len()];
    global[0] = scene.nodes[0].transform;
    for &id in order {
        for &c in &scene.nodes[id].children {
            global[c] = mat_mul(&global[id], &scene.nodes[c].transform);
        }
    }
    // Every (node, mesh) reference in depth-first order.
    let refs: Vec<(usize, usize)> = order
        .iter()
        .flat_map(|&n| scene.nodes[n].meshes.iter().map(move |&m| (n, m)))
        .collect();
    let mut ref_count = vec![0u32; scene.meshes.len()];
    for &(_, m) in &refs {
        ref_count[m] += 1;
    }
    let formats: Vec<u32> = scene.meshes.iter().map(vertex_format).collect();

    // The references of each (material, vertex format) group, in depth-first order; groups in
    // material, then format order. Meshes with a material past the list join no group.
    let mut groups: BTreeMap<(usize, u32), Vec<(usize, usize)>> = BTreeMap::new();
    for &(n, m) in &refs {
        let material = scene.meshes[m].material;
        if material < scene.materials.len() {
            groups
                .entry((material, formats[m]))
                .or_default()
                .push((n, m));
        }
    }
    // Each group's vertex and face counts, all checked before any mesh is taken apart (an
    // error leaves the scene as it was).
    let mut sized = Vec::with_capacity(groups.len());
    let mut outputs = 0;
    for ((material, format), members) in groups {
        let (mut nv, mut nf) = (0usize, 0usize);
        for &(_, m) in &members {
            nv += scene.meshes[m].positions.len();
            nf += scene.meshes[m].face_sizes.len();
        }
        if nv == 0 || nf == 0 {
            continue;
        }
        if nv > u32::MAX as usize {
            return Err(ProcessError::MergedMeshTooLarge {
                mesh: outputs,
                vertices: nv,
            });
        }
        outputs += 1;
        sized.push((material, format, members, nv, nf));
    }
    let mut out: Vec<Mesh> = Vec::with_capacity(outputs);
    // One table for numbering every member's points (`SharedPositions::numbered`).
    let mut scratch = Vec::new();
    for (material, format, members, nv, nf) in sized {
        // A group of one mesh that no other reference needs: its arrays are moved, not
        // copied (the whole scene, for the usual one mesh per material).
        if let [(node, mi)] = members[..]
            && ref_count[mi] == 1
        {
            ref_count[mi] = 0;
            let mesh = core::mem::take(&mut scene.meshes[mi]);
            out.push(moved(mesh, &global[node], material, format, &mut scratch));
            continue;
        }
        out.push(collect(
            scene,
            &global,
            members.into_iter(),
            material,
            format,
            nv,
            nf,
            &mut ref_count,
            &mut scratch,
        ));
    }
    if out.is_empty() {
        return Err(ProcessError::NoOutputMeshes);
    }

    scene.meshes = out;
    scene.animations.clear();
    let mut root = Node::new(scene.nodes[0].name.clone());
    if scene.meshes.len() == 1 {
        root.meshes.push(0);
        scene.nodes = vec![root];
    } else {
        scene.nodes = vec![root];
        for i in 0..scene.meshes.len() {
            let mut node = Node::new(scene.meshes[i].name.clone());
            node.meshes.push(i);
            scene.add_child(0, node);
        }
    }
    Ok(())
}

/// What [`collect`] makes of the one member `src`, in place: positions transformed by `m`,
/// normals, tangents and bitangents by its normal matrix and normalised (all unchanged when
/// `m` is within Assimp's epsilon of identity); UV channels as `format` counts their
/// components, unnamed; the name, faces, colours and shared positions kept; no bones, skin
/// or morph targets.
fn moved(src: Mesh, m: &Mat4, material: usize, format: u32, scratch: &mut Vec<u32>) -> Mesh {
    let Mesh {
        name,
        mut positions,
        mut normals,
        mut tangents,
        mut bitangents,
        mut uv_channels,
        color_channels,
        face_sizes,
        indices,
        shared_positions,
        point_skin,
        ..
    } = src;
    // `Mesh::vertex_points`, moved: at 3.2M triangles a copy of each vertex's point is
    // 48 MB of fresh memory.
    let shared_positions = shared_positions.or_else(|| {
        let skin = point_skin?;
        let points = skin.weights.points();
        kiln_scene::SharedPositions::numbered(skin.vertex_points, points, scratch)
    });
    if !is_identity(m, IDENTITY_EPSILON) {
        for v in &mut positions {
            *v = transform_point(m, *v);
        }
        let nm = normal_matrix(m);
        for v in normals
            .iter_mut()
            .chain(&mut tangents)
            .chain(&mut bitangents)
        {
            *v = normalize(mul3(&nm, *v));
        }
    }
    for (p, channel) in uv_channels.iter_mut().enumerate() {
        channel.components = if format & (0x10000 << p) != 0 { 3 } else { 2 };
        channel.name = String::new();
    }
    Mesh {
        name,
        material,
        positions,
        normals,
        tangents,
        bitangents,
        uv_channels,
        color_channels,
        indices,
        primitive_types: PrimitiveTypes(primitive_bits(&face_sizes)),
        face_sizes,
        shared_positions,
        ..Mesh::default()
    }
}

/// Which of `mesh`'s vertices share a position ([`Mesh::vertex_points`]: the skin's points
/// too, which the merged mesh loses with the skin), numbered as
/// [`kiln_scene::SharedPositions`] asks; copied ([`moved`] takes them).
fn shared_positions(mesh: &Mesh, scratch: &mut Vec<u32>) -> Option<kiln_scene::SharedPositions> {
    let (of_vertex, points) = mesh.vertex_points()?;
    kiln_scene::SharedPositions::numbered(of_vertex.to_vec(), points, scratch)
}

/// The primitive kinds of faces of these sizes, as Assimp's step counts them (a face of no
/// corner is a polygon here, unlike [`PrimitiveTypes::of_arity`]).
fn primitive_bits(face_sizes: &[u32]) -> u8 {
    face_sizes.iter().fold(0, |bits, &n| {
        bits | match n {
            1 => PrimitiveTypes::POINT,
            2 => PrimitiveTypes::LINE,
            3 => PrimitiveTypes::TRIANGLE,
            _ => PrimitiveTypes::POLYGON,
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn collect(
    scene: &Scene,
    global: &[Mat4],
    members: impl Iterator<Item = (usize, usize)>,
    material: usize,
    format: u32,
    nv: usize,
    nf: usize,
    ref_count: &mut [u32],
    scratch: &mut Vec<u32>,
) -> Mesh {
    let mut out = Mesh {
        material,
        ..Mesh::default()
    };
    out.positions.reserve(nv);
    let has_normals = format & 0x2 != 0;
    let has_tangents = format & 0x4 != 0;
    if has_normals {
        out.normals.reserve(nv);
    }
    if has_tangents {
        out.tangents.reserve(nv);
        out.bitangents.reserve(nv);
    }
    let mut p = 0;
    while p < 8 && format & (0x100 << p) != 0 {
        out.uv_channels.push(UvChannel {
            components: if format & (0x10000 << p) != 0 { 3 } else { 2 },
            coords: Vec::with_capacity(nv),
            name: String::new(),
        });
        p += 1;
    }
    let mut p = 0;
    while p < 8 && format & (0x0100_0000 << p) != 0 {
        out.color_channels.push(Vec::with_capacity(nv));
        p += 1;
    }
    out.face_sizes.reserve(nf);
    let mut prim = 0u8;
    // The members' shared positions, numbered one after the other: kept when every member
    // has them (one transform per member keeps a point's vertices equal).
    let mut shared = Some(kiln_scene::SharedPositions::default());

    for (node, mi) in members {
        let src = &scene.meshes[mi];
        ref_count[mi] -= 1;
        if ref_count[mi] == 0 {
            out.name = src.name.clone();
        }
        let base = out.positions.len() as u32;
        let m = &global[node];
        if is_identity(m, IDENTITY_EPSILON) {
            out.positions.extend_from_slice(&src.positions);
            if has_normals {
                out.normals.extend_from_slice(&src.normals);
            }
            if has_tangents {
                out.tangents.extend_from_slice(&src.tangents);
                out.bitangents.extend_from_slice(&src.bitangents);
            }
        } else {
            out.positions
                .extend(src.positions.iter().map(|&v| transform_point(m, v)));
            let nm = normal_matrix(m);
            if has_normals {
                out.normals
                    .extend(src.normals.iter().map(|&v| normalize(mul3(&nm, v))));
            }
            if has_tangents {
                out.tangents
                    .extend(src.tangents.iter().map(|&v| normalize(mul3(&nm, v))));
                out.bitangents
                    .extend(src.bitangents.iter().map(|&v| normalize(mul3(&nm, v))));
            }
        }
        for (dst, ch) in out.uv_channels.iter_mut().zip(&src.uv_channels) {
            dst.coords.extend_from_slice(&ch.coords);
        }
        for (dst, ch) in out.color_channels.iter_mut().zip(&src.color_channels) {
            dst.extend_from_slice(ch);
        }
        // Once a member has none, the others' are not made.
        shared = shared.and_then(|mut all| {
            let one = shared_positions(src, scratch)?;
            let first = all.points;
            all.of_vertex
                .extend(one.of_vertex.iter().map(|&p| p + first));
            all.points += one.points;
            Some(all)
        });
        out.face_sizes.extend_from_slice(&src.face_sizes);
        out.indices.extend(src.indices.iter().map(|&i| i + base));
        prim |= primitive_bits(&src.face_sizes);
    }
    out.primitive_types = PrimitiveTypes(prim);
    out.shared_positions = shared;
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::{Animation, Bone, Material, Vec3};

    fn tri(material: usize, name: &str) -> Mesh {
        let mut m = Mesh {
            name: name.into(),
            material,
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            normals: vec![Vec3::Z; 3],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 2]);
        m.update_primitive_types();
        m
    }

    #[test]
    fn merges_by_material_duplicates_instances_and_flattens_the_tree() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default(), Material::default()];
        s.meshes = vec![tri(1, "a"), tri(0, "b"), tri(1, "c"), tri(1, "orphan")];
        s.meshes[0].bones.push(Bone {
            name: "x".into(),
            offset_matrix: Mat4::IDENTITY,
            weights: vec![],
        });
        let n1 = s.add_child(0, Node::new("n1"));
        s.nodes[n1].transform = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
        s.nodes[n1].meshes = vec![0, 1];
        let n2 = s.add_child(n1, Node::new("n2"));
        s.nodes[n2].transform = Mat4::from_scale(Vec3::new(1.0, 2.0, 1.0));
        s.nodes[n2].meshes = vec![2, 0];
        s.animations.push(Animation::default());

        pre_transform_vertices(&mut s).unwrap();
        assert!(s.animations.is_empty());
        assert_eq!(s.meshes.len(), 2);
        // Material 0 first: mesh b at node n1.
        assert_eq!(s.meshes[0].material, 0);
        assert_eq!(s.meshes[0].name, "b");
        assert_eq!(s.meshes[0].positions[1], Vec3::new(11.0, 0.0, 0.0));
        // Material 1: a@n1, c@n2, a@n2 -> 9 vertices, named after the last mesh fully used (a).
        let m = &s.meshes[1];
        assert_eq!(m.positions.len(), 9);
        assert_eq!(m.name, "a");
        assert_eq!(m.positions[5], Vec3::new(10.0, 2.0, 0.0));
        assert_eq!(m.indices, [0, 1, 2, 3, 4, 5, 6, 7, 8]);
        assert!(m.bones.is_empty());
        assert_eq!(m.normals[4], Vec3::Z);
        // Tree: root + one child per mesh.
        assert_eq!(s.nodes.len(), 3);
        assert_eq!(s.nodes[0].name, "root");
        assert_eq!(s.nodes[1].name, "b");
        assert_eq!(s.nodes[2].meshes, [1]);
        s.validate().unwrap();
    }

    #[test]
    fn a_lone_mesh_moved_equals_one_copied() {
        // Everything the copy reads: tangents, a 3-component and a 1-component UV channel
        // with names, colours, a face of no corner, points and lines, bones, a morph target,
        // shared positions; under identity, near-identity, a real and a singular transform.
        let mut mesh = tri(0, "lone");
        mesh.tangents = vec![Vec3::X; 3];
        mesh.bitangents = vec![Vec3::Y; 3];
        for (components, name) in [(3, "a"), (1, "b")] {
            mesh.uv_channels.push(UvChannel {
                components,
                coords: vec![Vec3::new(0.5, 0.25, 0.0); 3],
                name: name.into(),
            });
        }
        mesh.color_channels.push(vec![kiln_scene::Vec4::ONE; 3]);
        mesh.push_face(&[]);
        mesh.push_face(&[1]);
        mesh.push_face(&[1, 2]);
        mesh.bones.push(Bone {
            name: "x".into(),
            offset_matrix: Mat4::IDENTITY,
            weights: vec![],
        });
        mesh.shared_positions = Some(kiln_scene::SharedPositions {
            of_vertex: vec![0, 1, 2],
            points: 3,
        });
        mesh.morph_targets.push(kiln_scene::MorphTarget {
            name: "smile".into(),
            weight: 0.5,
            shapes: vec![],
        });
        // And the same with a per-point skin naming the points instead (renumbered: more
        // points than vertices).
        let mut skinned = mesh.clone();
        skinned.shared_positions = None;
        skinned.point_skin = Some(kiln_scene::PointSkin {
            vertex_points: vec![4, 1, 4],
            weights: std::sync::Arc::new(kiln_scene::PointWeights {
                starts: vec![0; 6],
                weights: vec![],
            }),
        });
        for (mesh, transform) in [mesh, skinned].into_iter().flat_map(|mesh| {
            [
                Mat4::IDENTITY,
                Mat4::from_translation(Vec3::new(0.005, 0.0, 0.0)),
                Mat4::from_scale_rotation_translation(
                    Vec3::new(1.0, 2.0, 3.0),
                    kiln_scene::Quat::from_rotation_z(0.3),
                    Vec3::new(1.0, -2.0, 5.0),
                ),
                Mat4::from_scale(Vec3::new(1.0, 0.0, 1.0)),
            ]
            .map(|t| (mesh.clone(), t))
        }) {
            let mut s = Scene::with_root("root");
            s.materials = vec![Material::default()];
            s.meshes = vec![mesh.clone()];
            s.nodes[0].meshes = vec![0];
            s.nodes[0].transform = transform;
            let format = vertex_format(&mesh);
            let copied = collect(
                &s,
                &[transform],
                [(0, 0)].into_iter(),
                0,
                format,
                3,
                4,
                &mut [1],
                &mut Vec::new(),
            );
            let moved = moved(mesh.clone(), &transform, 0, format, &mut Vec::new());
            // As text, so that NaN equals NaN.
            assert_eq!(format!("{moved:?}"), format!("{copied:?}"), "{transform:?}");
            assert!(moved.shared_positions.is_some());
        }
    }

    #[test]
    fn shared_positions_are_numbered_one_member_after_another() {
        let shared = |of_vertex: Vec<u32>, points: u32| {
            Some(kiln_scene::SharedPositions { of_vertex, points })
        };
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        s.meshes = vec![tri(0, "a"), tri(0, "b")];
        s.meshes[0].shared_positions = shared(vec![0, 1, 0], 2);
        s.meshes[1].shared_positions = shared(vec![2, 1, 0], 3);
        s.nodes[0].meshes = vec![0, 1, 0];
        let mut without = s.clone();
        pre_transform_vertices(&mut s).unwrap();
        assert_eq!(
            s.meshes[0].shared_positions,
            shared(vec![0, 1, 0, 4, 3, 2, 5, 6, 5], 7)
        );
        s.validate().unwrap();
        // One member without them: the merged mesh has none.
        without.meshes[1].shared_positions = None;
        pre_transform_vertices(&mut without).unwrap();
        assert_eq!(without.meshes[0].shared_positions, None);
    }

    #[test]
    fn near_identity_transforms_are_not_applied() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        s.meshes = vec![tri(0, "a")];
        s.nodes[0].transform = Mat4::from_translation(Vec3::new(0.005, 0.0, 0.0));
        s.nodes[0].meshes = vec![0];
        pre_transform_vertices(&mut s).unwrap();
        assert_eq!(s.meshes[0].positions[1], Vec3::X);
        assert_eq!(s.nodes.len(), 1);
        assert_eq!(s.nodes[0].meshes, [0]);
    }

    #[test]
    fn normals_use_inverse_transpose() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        let mut m = tri(0, "a");
        m.normals = vec![Vec3::new(1.0, 1.0, 0.0).normalize(); 3];
        s.meshes = vec![m];
        s.nodes[0].transform = Mat4::from_scale(Vec3::new(2.0, 1.0, 1.0));
        s.nodes[0].meshes = vec![0];
        pre_transform_vertices(&mut s).unwrap();
        let n = s.meshes[0].normals[0];
        let e = Vec3::new(0.5, 1.0, 0.0).normalize();
        assert!((n - e).length() < 1e-6, "{n:?}");
    }

    #[test]
    fn orphans_only_is_an_error_and_leaves_the_scene() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        s.meshes = vec![tri(0, "a")];
        let before = s.clone();
        assert_eq!(
            pre_transform_vertices(&mut s),
            Err(ProcessError::NoOutputMeshes)
        );
        assert_eq!(s, before);
    }

    #[test]
    fn cyclic_tree_is_an_error() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        s.meshes = vec![tri(0, "a")];
        let a = s.add_child(0, Node::new("a"));
        s.nodes[a].children.push(0);
        assert!(matches!(
            pre_transform_vertices(&mut s),
            Err(ProcessError::MalformedNodes { .. })
        ));
    }

    #[test]
    fn deep_tree_does_not_recurse() {
        let mut s = Scene::with_root("root");
        s.materials = vec![Material::default()];
        s.meshes = vec![tri(0, "a")];
        let mut parent = 0;
        for i in 0..200_000 {
            parent = s.add_child(parent, Node::new(format!("n{i}")));
        }
        s.nodes[parent].meshes = vec![0];
        pre_transform_vertices(&mut s).unwrap();
        assert_eq!(s.nodes.len(), 1);
    }
}
