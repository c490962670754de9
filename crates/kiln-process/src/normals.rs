//! GenNormals (Assimp 5.2.5 `GenFaceNormalsProcess.cpp`).

use crate::{ProcessError, check};
use kiln_scene::assimp_math::{cross, normalize_safe};
use kiln_scene::{Mesh, Scene, Vec3};

/// Assimp's `aiProcess_GenNormals` as in 5.2.5 (`GenFaceNormalsProcess`): flat normals.
///
/// - meshes that already have normals are skipped (no `aiProcess_ForceGenNormals`);
/// - meshes without a face of 3 or more corners (only points and lines) are skipped and get no
///   normals;
/// - otherwise every vertex gets a normal, in face order: for a face of 3 or more corners
///   `normalize_safe((v1 − v0) × (v[n−1] − v0))` (unweighted; a zero-area face gives a zero
///   normal), with `v1` and `v[n−1]` swapped when `winding_flipped` (Assimp 5.2 swaps whenever
///   `aiProcess_FlipWindingOrder` is set, whatever MakeLeftHanded says; the XOR with
///   MakeLeftHanded came later); the vertices of points and lines get NaN;
/// - vertices are **not** duplicated (that came after 5.2): a vertex shared by several faces
///   keeps the normal of the last face that uses it, and a vertex no face uses gets (0, 0, 0).
///   With the "verbose" layout importers produce, every face has its own vertices, so this is
///   the per-face normal.
///
/// Fails without changing anything when a mesh is malformed.
pub fn gen_normals(scene: &mut Scene, winding_flipped: bool) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    gen_normals_unchecked(scene, winding_flipped);
    Ok(())
}

pub(crate) fn gen_normals_unchecked(scene: &mut Scene, winding_flipped: bool) {
    crate::each_mesh(&mut scene.meshes, |mesh| {
        gen_mesh_normals(mesh, winding_flipped)
    });
}

fn gen_mesh_normals(mesh: &mut Mesh, winding_flipped: bool) {
    if !mesh.normals.is_empty() || !mesh.face_sizes.iter().any(|&n| n >= 3) {
        return;
    }
    let mut normals = vec![Vec3::ZERO; mesh.positions.len()];
    let nan = Vec3::splat(f32::NAN);
    let p = &mesh.positions;
    // `check_meshes` has made the face sizes add up to the index count.
    for face in mesh.faces() {
        if face.len() < 3 {
            for &i in face {
                normals[i as usize] = nan;
            }
            continue;
        }
        let v1 = p[face[0] as usize];
        let mut v2 = p[face[1] as usize];
        let mut v3 = p[face[face.len() - 1] as usize];
        if winding_flipped {
            core::mem::swap(&mut v2, &mut v3);
        }
        let nor = normalize_safe(cross(v2 - v1, v3 - v1));
        for &i in face {
            normals[i as usize] = nor;
        }
    }
    mesh.normals = normals;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scene(points: &[[f32; 3]], faces: &[&[u32]]) -> Scene {
        let mut s = Scene::with_root("r");
        let mut m = Mesh {
            positions: points.iter().map(|p| Vec3::from_array(*p)).collect(),
            ..Mesh::default()
        };
        for f in faces {
            m.push_face(f);
        }
        m.update_primitive_types();
        s.meshes.push(m);
        s
    }

    #[test]
    fn flat_normals_with_points_and_lines() {
        let pts = [
            [0., 0., 0.],
            [2., 0., 0.],
            [0., 2., 0.],
            [5., 5., 5.],
            [6., 6., 6.],
            [7., 7., 7.],
            [9., 9., 9.],
        ];
        let mut s = scene(&pts, &[&[0, 1, 2], &[3], &[4, 5]]);
        gen_normals(&mut s, false).unwrap();
        let n = &s.meshes[0].normals;
        assert_eq!(n[0], Vec3::Z);
        assert_eq!(n[2], Vec3::Z);
        assert!(n[3].is_nan() && n[4].x.is_nan() && n[5].z.is_nan());
        // Unused vertex: zero, as Assimp's zero-initialised array.
        assert_eq!(n[6], Vec3::ZERO);

        let mut s = scene(&pts, &[&[0, 1, 2]]);
        gen_normals(&mut s, true).unwrap();
        assert_eq!(s.meshes[0].normals[1], -Vec3::Z);
    }

    #[test]
    fn quad_uses_first_second_and_last_corner_and_shared_vertex_keeps_last_face() {
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [0., 0., 1.],
        ];
        // Second face shares vertices 0 and 1 and faces -y... (0, 1, 4): (1,0,0)x(0,0,1) = (0,-1,0).
        let mut s = scene(&pts, &[&[0, 1, 2, 3], &[0, 1, 4]]);
        gen_normals(&mut s, false).unwrap();
        let n = &s.meshes[0].normals;
        assert_eq!(
            s.meshes[0].positions.len(),
            5,
            "no vertex is duplicated in 5.2"
        );
        assert_eq!(n[2], Vec3::Z);
        assert_eq!(n[0], -Vec3::Y);
        assert_eq!(n[1], -Vec3::Y);
    }

    #[test]
    fn degenerate_face_gets_zero_and_existing_normals_are_kept() {
        let pts = [[1., 1., 1.]; 3];
        let mut s = scene(&pts, &[&[0, 1, 2]]);
        gen_normals(&mut s, false).unwrap();
        assert_eq!(s.meshes[0].normals, vec![Vec3::ZERO; 3]);
        s.meshes[0].normals[0] = Vec3::X;
        gen_normals(&mut s, false).unwrap();
        assert_eq!(s.meshes[0].normals[0], Vec3::X);
    }

    #[test]
    fn point_and_line_meshes_get_no_normals() {
        let mut s = scene(&[[0., 0., 0.], [1., 0., 0.]], &[&[0], &[0, 1]]);
        gen_normals(&mut s, false).unwrap();
        assert!(s.meshes[0].normals.is_empty());
    }
}
