//! Triangulate (Assimp 5.2.5 `TriangulateProcess.cpp`, with its 5.2 ear clipper, not the
//! earcut of later versions).

use crate::{ProcessError, check};
use kiln_scene::assimp_math::{dot, normalize};
use kiln_scene::{Mesh, PrimitiveTypes, Scene, Vec3};

/// Assimp's `aiProcess_Triangulate` as in 5.2.5 (`TriangulateProcess`):
///
/// - only meshes that contain polygons (faces of more than 3 corners) are touched;
/// - points, lines and triangles are kept as they are, in place; vertices are never added,
///   removed or duplicated (splitting a polygon reuses its vertices);
/// - a quad is split as `(s, s+1, s+2), (s, s+2, s+3)` where `s` is its first corner whose two
///   angles (to its neighbours, measured from the opposite diagonal, `acos` of normalised
///   vectors) sum to more than π — the concave corner — or 0 when there is none;
/// - a polygon of more than 4 corners is projected on the plane of its dominant Newell-normal
///   axis (axes swapped when that component is negative) and cut by Assimp 5.2's own O(n²)
///   ear clipper: an ear is a corner not on the left of the line from its previous to its next
///   remaining corner, whose triangle contains no other corner of the polygon (corners at the
///   same projected position as the ear's three are ignored; already cut ones count); collinear
///   corners are not skipped, so degenerate polygons yield zero-area triangles. When two passes
///   find no ear, the triangles cut so far are kept and the rest of the polygon is dropped
///   (Assimp logs "Failed to triangulate polygon (no ear found)");
/// - every emitted triangle goes through Assimp's NGON encoder: a triangle whose first index
///   equals the first index of the previous polygon's or triangle's output is rotated
///   (`[a, b, c]` → `[c, a, b]`; for a quad both halves are rotated to start at its third
///   corner), so that the output could be re-read as n-gons. This shows only on meshes whose
///   faces share vertices;
/// - [`Mesh::primitive_types`] gains TRIANGLE and loses POLYGON; other bits stay.
///
/// Cost: linear in the number of corners for triangles and quads; the ear clipper is Assimp's,
/// quadratic in a polygon's corner count (cubic in contrived cases), which only matters for
/// single faces of many thousands of corners. Scratch buffers are reused across faces.
///
/// Fails without changing anything when a mesh is malformed (index past its vertices, face sizes
/// not matching the indices).
pub fn triangulate(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    triangulate_unchecked(scene);
    Ok(())
}

pub(crate) fn triangulate_unchecked(scene: &mut Scene) {
    let mut scratch = Scratch::default();
    for mesh in &mut scene.meshes {
        triangulate_mesh(mesh, &mut scratch);
    }
}

#[derive(Default)]
struct Scratch {
    flat: Vec<[f32; 2]>,
    done: Vec<bool>,
    tris: Vec<[usize; 3]>,
}

/// State of Assimp's `NGONEncoder`.
struct NgonEncoder {
    last_first: u32,
}

impl NgonEncoder {
    fn triangle(&mut self, t: &mut [u32; 3]) {
        if t[0] == self.last_first {
            // swap(0, 2), swap(1, 2): [a, b, c] -> [c, a, b]
            *t = [t[2], t[0], t[1]];
        }
        self.last_first = t[0];
    }

    fn quad(&mut self, t1: &mut [u32; 3], t2: &mut [u32; 3]) {
        if t1[0] == self.last_first {
            // t1 right-rotated, t2 left-rotated: both start at t1[2].
            *t1 = [t1[2], t1[0], t1[1]];
            *t2 = [t2[1], t2[2], t2[0]];
        }
        self.last_first = t1[0];
    }
}

fn triangulate_mesh(mesh: &mut Mesh, scratch: &mut Scratch) {
    if !mesh.face_sizes.iter().any(|&n| n > 3) {
        return;
    }
    let out_faces: usize = mesh
        .face_sizes
        .iter()
        .map(|&n| if n <= 3 { 1 } else { n as usize - 2 })
        .sum();
    let mut sizes = Vec::with_capacity(out_faces);
    let mut indices = Vec::with_capacity(out_faces * 3);
    let mut enc = NgonEncoder {
        last_first: u32::MAX,
    };
    let verts = &mesh.positions;

    // `check_meshes` has made the face sizes add up to the index count.
    for face in mesh.faces() {
        match face.len() {
            0..=3 => {
                sizes.push(face.len() as u32);
                if let [a, b, c] = *face {
                    let mut t = [a, b, c];
                    enc.triangle(&mut t);
                    indices.extend_from_slice(&t);
                } else {
                    indices.extend_from_slice(face);
                }
            }
            4 => {
                let s = quad_start(verts, face);
                let v = |k: usize| face[(s + k) % 4];
                let mut t1 = [v(0), v(1), v(2)];
                let mut t2 = [v(0), v(2), v(3)];
                enc.quad(&mut t1, &mut t2);
                sizes.extend_from_slice(&[3, 3]);
                indices.extend_from_slice(&t1);
                indices.extend_from_slice(&t2);
            }
            _ => {
                ear_clip(verts, face, scratch);
                for &[a, b, c] in &scratch.tris {
                    let mut t = [face[a], face[b], face[c]];
                    enc.triangle(&mut t);
                    sizes.push(3);
                    indices.extend_from_slice(&t);
                }
            }
        }
    }
    mesh.face_sizes = sizes;
    mesh.indices = indices;
    let bits = (mesh.primitive_types.0 | PrimitiveTypes::TRIANGLE) & !PrimitiveTypes::POLYGON;
    mesh.primitive_types = PrimitiveTypes(bits);
}

/// The corner a quad is fanned from: the first whose angles to its neighbours, measured from the
/// diagonal, sum to more than π (single precision, like Assimp), else 0.
fn quad_start(verts: &[Vec3], face: &[u32]) -> usize {
    let p = |k: usize| verts[face[k % 4] as usize];
    for i in 0..4 {
        let v = p(i);
        let left = normalize(p(i + 3) - v);
        let diag = normalize(p(i + 2) - v);
        let right = normalize(p(i + 1) - v);
        let angle = dot(left, diag).acos() + dot(right, diag).acos();
        if angle > core::f32::consts::PI {
            return i;
        }
    }
    0
}

/// Assimp's `GetArea2D` (promoted to double as in `PolyTools.h`).
#[inline]
fn area2d(v1: [f32; 2], v2: [f32; 2], v3: [f32; 2]) -> f64 {
    let f = |x: f32| f64::from(x);
    0.5 * (f(v1[0]) * (f(v3[1]) - f(v2[1]))
        + f(v2[0]) * (f(v1[1]) - f(v3[1]))
        + f(v3[0]) * (f(v2[1]) - f(v1[1])))
}

/// `OnLeftSideOfLine2D(p0, p1, p2)`: is `p2` on the left of the line `p0 → p1`.
#[inline]
fn on_left_side(p0: [f32; 2], p1: [f32; 2], p2: [f32; 2]) -> bool {
    area2d(p0, p2, p1) > 0.0
}

/// `PointInTriangle2D` (barycentric, strict; a degenerate triangle contains nothing).
#[inline]
fn point_in_triangle(p0: [f32; 2], p1: [f32; 2], p2: [f32; 2], pp: [f32; 2]) -> bool {
    let sub = |a: [f32; 2], b: [f32; 2]| [a[0] - b[0], a[1] - b[1]];
    let dot2 = |a: [f32; 2], b: [f32; 2]| f64::from(a[0] * b[0] + a[1] * b[1]);
    let v0 = sub(p1, p0);
    let v1 = sub(p2, p0);
    let v2 = sub(pp, p0);
    let dot00 = dot2(v0, v0);
    let dot01 = dot2(v0, v1);
    let dot02 = dot2(v0, v2);
    let dot11 = dot2(v1, v1);
    let dot12 = dot2(v1, v2);
    let denom = dot00 * dot11 - dot01 * dot01;
    if denom == 0.0 {
        return false;
    }
    let inv = 1.0 / denom;
    let u = (dot11 * dot02 - dot01 * dot12) * inv;
    let v = (dot00 * dot12 - dot01 * dot02) * inv;
    u > 0.0 && v > 0.0 && u + v < 1.0
}

/// Newell normal of the polygon, single precision, Assimp's summation order.
fn newell_normal(verts: &[Vec3], face: &[u32]) -> Vec3 {
    let n = face.len();
    let p = |k: usize| verts[face[k % n] as usize];
    let (mut sxy, mut syz, mut szx) = (0f32, 0f32, 0f32);
    for t in 0..n {
        let (lo, mid, hi) = (p(t), p(t + 1), p(t + 2));
        sxy += mid.x * (hi.y - lo.y);
        syz += mid.y * (hi.z - lo.z);
        szx += mid.z * (hi.x - lo.x);
    }
    Vec3::new(syz, szx, sxy)
}

/// Assimp 5.2's ear clipper on one polygon of more than 4 corners. Fills `scratch.tris` with
/// triangles of corner positions (0..n) in emission order.
fn ear_clip(verts: &[Vec3], face: &[u32], scratch: &mut Scratch) {
    let max = face.len();
    scratch.tris.clear();

    let n = newell_normal(verts, face);
    let (ax, ay, az) = (n.x.abs(), n.y.abs(), n.z.abs());
    let (mut ac, mut bc, mut inv) = (0usize, 1usize, n.z);
    if ax > ay {
        if ax > az {
            (ac, bc, inv) = (1, 2, n.x);
        }
    } else if ay > az {
        (ac, bc, inv) = (2, 0, n.y);
    }
    if inv < 0.0 {
        core::mem::swap(&mut ac, &mut bc);
    }
    scratch.flat.clear();
    scratch.flat.extend(face.iter().map(|&i| {
        let v = verts[i as usize];
        [v[ac], v[bc]]
    }));
    scratch.done.clear();
    scratch.done.resize(max, false);
    let tv = &scratch.flat;
    let done = &mut scratch.done;

    let mut num = max;
    let mut prev = max - 1;
    let mut next = 0usize;
    while num > 3 {
        let mut num_found = 0;
        let mut ear = next;
        loop {
            // The next corner not cut yet, wrapping around.
            next = ear + 1;
            loop {
                if next >= max {
                    next = 0;
                }
                if !done[next] {
                    break;
                }
                next += 1;
            }
            if next < ear {
                num_found += 1;
                if num_found == 2 {
                    break;
                }
            }
            let (p0, p1, p2) = (tv[prev], tv[ear], tv[next]);
            // Must be convex: not on the left of prev -> next.
            let is_ear = !on_left_side(p0, p2, p1)
                && !tv.iter().any(|&vt| {
                    vt != p1 && vt != p2 && vt != p0 && point_in_triangle(p0, p1, p2, vt)
                });
            if is_ear {
                break;
            }
            prev = ear;
            ear = next;
        }
        if num_found == 2 {
            // No ear in two passes: keep what was cut, drop the rest (Assimp 5.2).
            return;
        }
        scratch.tris.push([prev, ear, next]);
        done[ear] = true;
        num -= 1;
    }
    let mut rest = (0..max).filter(|&k| !done[k]);
    if let (Some(a), Some(b), Some(c)) = (rest.next(), rest.next(), rest.next()) {
        scratch.tris.push([a, b, c]);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(points: &[[f32; 3]], faces: &[&[u32]]) -> Scene {
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

    fn tris(s: &Scene) -> Vec<Vec<u32>> {
        s.meshes[0].faces().map(|f| f.to_vec()).collect()
    }

    #[test]
    fn convex_quad_splits_from_first_corner() {
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]],
            &[&[0, 1, 2, 3]],
        );
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![0, 1, 2], vec![0, 2, 3]]);
        assert_eq!(s.meshes[0].primitive_types.0, PrimitiveTypes::TRIANGLE);
    }

    #[test]
    fn concave_quad_fans_from_reflex_corner() {
        // Dart: corner 2 at (0.5, 0.3) points inwards.
        let pts = [[0., 0., 0.], [1., 1., 0.], [0.3, 0.5, 0.], [0., 1., 0.]];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3]]);
        // Corner 2 is the reflex one: fan (2, 3, 0), (2, 0, 1).
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![2, 3, 0], vec![2, 0, 1]]);
    }

    #[test]
    fn points_lines_triangles_pass_and_ngon_encoding_rotates() {
        // Same as the OFF file checked against assimp 5.2.5: quad, then triangles sharing
        // vertex 0, then a point and a line.
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [-1., 1., 0.],
            [-1., 0., 0.],
        ];
        let mut s = mesh(
            &pts,
            &[&[0, 1, 2, 3], &[0, 3, 4], &[0, 4, 5], &[5], &[1, 2]],
        );
        triangulate(&mut s).unwrap();
        assert_eq!(
            tris(&s),
            [
                vec![0, 1, 2],
                vec![0, 2, 3],
                vec![4, 0, 3],
                vec![0, 4, 5],
                vec![5],
                vec![1, 2]
            ]
        );
        let pt = s.meshes[0].primitive_types;
        assert!(pt.contains(PrimitiveTypes::POINT) && pt.contains(PrimitiveTypes::LINE));
        assert!(!pt.contains(PrimitiveTypes::POLYGON));
    }

    #[test]
    fn quad_ngon_encoding_rotates_both_halves() {
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [2., 0., 0.],
            [2., 1., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3], &[0, 1, 4, 5]]);
        triangulate(&mut s).unwrap();
        assert_eq!(
            tris(&s),
            [vec![0, 1, 2], vec![0, 2, 3], vec![4, 0, 1], vec![4, 5, 0]]
        );
    }

    #[test]
    fn collinear_pentagon_gives_degenerate_ear_like_assimp_5_2() {
        // Checked against assimp 5.2.5 (`assimp dump col.off -tri`): 4 0 1 / 2 4 1 / 4 2 3.
        let pts = [
            [1., 0., 0.],
            [2., 0., 0.],
            [2., 2., 0.],
            [0., 2., 0.],
            [0., 0., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![4, 0, 1], vec![2, 4, 1], vec![4, 2, 3]]);
    }

    #[test]
    fn concave_hexagon_is_ear_clipped() {
        // An L shape (CCW in xy): the reflex corner is 3 at (1, 1).
        let pts = [
            [0., 0., 0.],
            [2., 0., 0.],
            [2., 1., 0.],
            [1., 1., 0.],
            [1., 2., 0.],
            [0., 2., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4, 5]]);
        triangulate(&mut s).unwrap();
        let t = tris(&s);
        // Ears (5 0 1), (5 1 2), (3 4 5), then the rest (2 3 5); the second is NGON-rotated.
        // Checked against assimp 5.2.5 (`assimp dump L.off -tri`).
        assert_eq!(
            t,
            [vec![5, 0, 1], vec![2, 5, 1], vec![3, 4, 5], vec![2, 3, 5]]
        );
        // Assimp's strict point-in-triangle test ignores corner 3, which lies exactly on the
        // edge of the second ear, so that ear covers part of the notch and the last triangle
        // (2 3 5) comes out clockwise: Assimp 5.2's result, reproduced.
    }

    #[test]
    fn clockwise_polygon_is_projected_with_swapped_axes() {
        // The same L, clockwise: the Newell normal points to -z, the axes are swapped.
        let pts = [
            [0., 2., 0.],
            [1., 2., 0.],
            [1., 1., 0.],
            [2., 1., 0.],
            [2., 0., 0.],
            [0., 0., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4, 5]]);
        triangulate(&mut s).unwrap();
        // Checked against assimp 5.2.5 (`assimp dump Lcw.off -tri`).
        assert_eq!(
            tris(&s),
            [vec![5, 0, 1], vec![2, 5, 1], vec![5, 2, 3], vec![3, 4, 5]]
        );
    }

    #[test]
    fn degenerate_polygons_are_cut_into_degenerate_triangles() {
        // All corners at one point: zero area is not "left", a degenerate triangle contains
        // nothing, so every corner is an ear.
        let pts = [[0., 0., 0.]; 5];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![4, 0, 1], vec![2, 4, 1], vec![4, 2, 3]]);
    }

    #[test]
    fn nan_positions_do_not_panic() {
        let pts = [
            [f32::NAN, 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., f32::NAN],
            [0.5, 2., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3], &[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert!(s.meshes[0].face_sizes.iter().all(|&n| n == 3));
    }

    #[test]
    fn bad_index_is_an_error_and_leaves_the_scene() {
        let mut s = mesh(&[[0., 0., 0.]; 4], &[&[0, 1, 2, 7]]);
        let before = s.clone();
        assert!(matches!(
            triangulate(&mut s),
            Err(ProcessError::MalformedMesh { mesh: 0, .. })
        ));
        assert_eq!(s, before);
    }
}
