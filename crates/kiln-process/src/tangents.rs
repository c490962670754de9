//! CalcTangentSpace (Assimp 5.2.5 `CalcTangentsProcess.cpp`), with a grid instead of Assimp's
//! quadratic neighbour search.

use crate::spatial::PositionGrid;
use crate::{ProcessError, check, codes};
use kiln_scene::assimp_math::{cross, dot, normalize, normalize_safe, position_epsilon};
use kiln_scene::{Mesh, Scene, Vec3, Warning};

/// Assimp's `aiProcess_CalcTangentSpace` as in 5.2.5 (`CalcTangentsProcess`, default
/// configuration: UV channel 0, 45° smoothing angle). Not MikkTSpace.
///
/// Meshes are skipped when they already have tangents, have no face of 3 or more corners, have
/// no normals, or have no UV channel 0. Otherwise:
///
/// 1. per face, in order, from its **first three** corners only: position deltas `v = p1 − p0`,
///    `w = p2 − p0` and UV deltas `s = uv1 − uv0`, `t = uv2 − uv0`; a direction sign
///    `sign(t.x·s.y − t.y·s.x)` (−1 when negative, else +1); when `s.x·t.y == s.y·t.x` (exactly)
///    the UV deltas are replaced by `s = (0, 1)`, `t = (1, 0)`; tangent
///    `(w·s.y − v·t.y)·sign`, bitangent `(v·t.x − w·s.x)·sign`. For every corner of the face:
///    the tangent is projected onto the plane of that vertex's normal, the bitangent too and
///    then made orthogonal to the projected tangent; both are `normalize_safe`d; if exactly one
///    of them has an infinite or NaN component it is rebuilt as `normal × bitangent` (tangent)
///    or `tangent × normal` (bitangent) and normalised. Vertices of points and lines get NaN
///    tangents and bitangents and take no part in step 2;
/// 2. smoothing, in vertex order: a vertex `a` not yet done gathers every not-done vertex
///    closer than Assimp's position epsilon (1e-4 of the mesh's bounding-box diagonal) whose
///    normal has a dot product ≥ 0.9999 with `a`'s and whose tangent and bitangent have dot
///    products ≥ cos 45° with `a`'s (comparisons with NaN pass, as in C++); those are marked
///    done. `a` is in the group once by construction and once more when it passes its own test
///    (Assimp's double count, kept). The group's tangents and bitangents are summed,
///    normalised (Assimp 5.2's `Normalize`: a zero sum stays zero) and written to all members.
///
/// The neighbour search uses a uniform grid (see `spatial.rs`), so the step is O(n log n) for
/// real meshes, not Assimp's O(n²). Deviation: when the epsilon is not finite (infinite or
/// overflowing coordinates), Assimp would compare every vertex with every other; kiln then
/// smooths nothing (each vertex keeps its own, normalised) and records a warning.
///
/// Fails without changing anything when a mesh is malformed.
pub fn calc_tangent_space(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    calc_tangent_space_unchecked(scene);
    Ok(())
}

pub(crate) fn calc_tangent_space_unchecked(scene: &mut Scene) {
    let warnings = crate::each_mesh(&mut scene.meshes, calc_mesh_tangents);
    for (i, warning) in warnings.into_iter().enumerate() {
        if let Some(warning) = warning {
            scene.warnings.push(Warning::new(
                codes::TANGENTS_NOT_SMOOTHED,
                format!("calc_tangent_space: mesh {i}: {warning}"),
            ));
        }
    }
}

fn calc_mesh_tangents(mesh: &mut Mesh) -> Option<String> {
    if !mesh.tangents.is_empty()
        || !mesh.face_sizes.iter().any(|&n| n >= 3)
        || mesh.normals.is_empty()
        || mesh.uv_channels.is_empty()
    {
        return None;
    }
    let nv = mesh.positions.len();
    let pos = &mesh.positions;
    let nor = &mesh.normals;
    // Step 1 and the neighbour grid read different arrays: built side by side.
    let ((mut tang, mut bitang, mut done), (eps, grid)) = crate::join(
        || corner_frames(mesh),
        || {
            let eps = position_epsilon(pos);
            let grid = (eps.is_finite() && eps > 0.0)
                .then(|| PositionGrid::new(pos, eps))
                .flatten();
            (eps, grid)
        },
    );
    let warning = if !eps.is_finite() {
        Some(format!(
            "position epsilon is {eps} (non-finite coordinates); tangents are not smoothed"
        ))
    } else if eps > 0.0 && grid.is_none() {
        Some(format!(
            "position epsilon {eps} is too small for the coordinates' range; tangents are not smoothed"
        ))
    } else {
        None
    };

    let angle_epsilon = 0.9999f32;
    // AI_DEG_TO_RAD(45.f), spelled as Assimp spells it.
    #[allow(clippy::excessive_precision)]
    let limit = (45.0f32 * 0.017_453_292_5f32).cos();
    let mut found: Vec<u32> = Vec::new();
    let mut close: Vec<u32> = Vec::new();
    for a in 0..nv {
        if done[a] {
            continue;
        }
        let (orig_n, orig_t, orig_b) = (nor[a], tang[a], bitang[a]);
        close.clear();
        close.push(a as u32);
        match &grid {
            Some(g) => g.find(pos, a, &mut found),
            None => {
                found.clear();
                // With an infinite epsilon Assimp finds everything; kiln only `a` itself.
                if !eps.is_finite() {
                    found.push(a as u32);
                }
            }
        }
        for &idx in &found {
            let i = idx as usize;
            if done[i]
                || dot(nor[i], orig_n) < angle_epsilon
                || dot(tang[i], orig_t) < limit
                || dot(bitang[i], orig_b) < limit
            {
                continue;
            }
            close.push(idx);
            done[i] = true;
        }
        let mut st = Vec3::ZERO;
        let mut sb = Vec3::ZERO;
        for &c in &close {
            st += tang[c as usize];
            sb += bitang[c as usize];
        }
        let st = normalize(st);
        let sb = normalize(sb);
        for &c in &close {
            tang[c as usize] = st;
            bitang[c as usize] = sb;
        }
    }
    mesh.tangents = tang;
    mesh.bitangents = bitang;
    warning
}

/// Step 1: each vertex's tangent and bitangent from the faces it is a corner of (the last
/// face wins), and which vertices step 2 skips (those of points and lines, set to NaN).
///
/// `check_meshes` has made the face sizes add up to the index count. Corners are queued with
/// their face's tangent and bitangent and worked in batches ([`CornerBatch`]); a corner's
/// result depends on nothing written before it, and the batches are written in corner order,
/// so a vertex two faces share ends with the later face's, as one corner at a time would.
fn corner_frames(mesh: &Mesh) -> (Vec<Vec3>, Vec<Vec3>, Vec<bool>) {
    let nv = mesh.positions.len();
    let pos = &mesh.positions;
    let nor = &mesh.normals;
    let tex = &mesh.uv_channels[0].coords;
    let nan = Vec3::splat(f32::NAN);
    let mut tang = vec![Vec3::ZERO; nv];
    let mut bitang = vec![Vec3::ZERO; nv];
    let mut done = vec![false; nv];
    let mut batch = CornerBatch::default();
    for face in mesh.faces() {
        if face.len() < 3 {
            batch.flush(nor, &mut tang, &mut bitang);
            for &i in face {
                done[i as usize] = true;
                tang[i as usize] = nan;
                bitang[i as usize] = nan;
            }
            continue;
        }
        let (tangent, bitangent) = face_frame(pos, tex, face);
        for &pi in face {
            batch.push(pi, tangent, bitangent, nor, &mut tang, &mut bitang);
        }
    }
    batch.flush(nor, &mut tang, &mut bitang);
    (tang, bitang, done)
}

/// A face's tangent and bitangent from its first three corners (step 1 of
/// [`calc_tangent_space`]), before they are fitted to each corner's normal.
fn face_frame(pos: &[Vec3], tex: &[Vec3], face: &[u32]) -> (Vec3, Vec3) {
    let (p0, p1, p2) = (face[0] as usize, face[1] as usize, face[2] as usize);
    let v = pos[p1] - pos[p0];
    let w = pos[p2] - pos[p0];
    let mut sx = tex[p1].x - tex[p0].x;
    let mut sy = tex[p1].y - tex[p0].y;
    let mut tx = tex[p2].x - tex[p0].x;
    let mut ty = tex[p2].y - tex[p0].y;
    let dir = if tx * sy - ty * sx < 0.0 {
        -1.0f32
    } else {
        1.0
    };
    if sx * ty == sy * tx {
        (sx, sy, tx, ty) = (0.0, 1.0, 1.0, 0.0);
    }
    let tangent = Vec3::new(
        (w.x * sy - v.x * ty) * dir,
        (w.y * sy - v.y * ty) * dir,
        (w.z * sy - v.z * ty) * dir,
    );
    let bitangent = Vec3::new(
        (-w.x * sx + v.x * tx) * dir,
        (-w.y * sx + v.y * tx) * dir,
        (-w.z * sx + v.z * tx) * dir,
    );
    (tangent, bitangent)
}

/// When exactly one of a corner's normalised tangent `t` and bitangent `b` is not finite, it
/// is rebuilt from the other and the normal `n` and normalised, as Assimp does.
fn rebuild_one_bad(n: Vec3, t: Vec3, b: Vec3) -> (Vec3, Vec3) {
    match (t.is_finite(), b.is_finite()) {
        (false, true) => (normalize_safe(cross(n, b)), b),
        (true, false) => (t, normalize_safe(cross(t, n))),
        _ => (t, b),
    }
}

/// Corners per batch of [`CornerBatch`]: two 4-wide SSE vectors (or one AVX one) per
/// component.
const LANES: usize = 8;

/// Step 1's per-corner work for up to [`LANES`] corners at a time, laid out by component so
/// that the compiler turns each line of [`CornerBatch::flush`] into vector instructions. The
/// operations are the scalar ones, in the same order, and IEEE square roots, products and
/// quotients are exact lane by lane: the results are bit-identical to one corner at a time.
#[derive(Default)]
struct CornerBatch {
    len: usize,
    vertex: [u32; LANES],
    t: [[f32; LANES]; 3],
    b: [[f32; LANES]; 3],
}

impl CornerBatch {
    fn push(
        &mut self,
        vertex: u32,
        tangent: Vec3,
        bitangent: Vec3,
        nor: &[Vec3],
        tang: &mut [Vec3],
        bitang: &mut [Vec3],
    ) {
        let k = self.len;
        self.vertex[k] = vertex;
        for (c, (t, b)) in tangent
            .to_array()
            .into_iter()
            .zip(bitangent.to_array())
            .enumerate()
        {
            self.t[c][k] = t;
            self.b[c][k] = b;
        }
        self.len += 1;
        if self.len == LANES {
            self.flush(nor, tang, bitang);
        }
    }

    /// Projects, orthogonalises and normalises the queued corners and writes them, in order.
    // Lane-indexed loops over several arrays at once: they read as the formulas do.
    #[allow(clippy::needless_range_loop)]
    fn flush(&mut self, nor: &[Vec3], tang: &mut [Vec3], bitang: &mut [Vec3]) {
        let len = core::mem::take(&mut self.len);
        if len == 0 {
            return;
        }
        // Unused lanes compute on zeros and are not written.
        let mut n = [[0f32; LANES]; 3];
        for k in 0..len {
            let v = nor[self.vertex[k] as usize];
            (n[0][k], n[1][k], n[2][k]) = (v.x, v.y, v.z);
        }
        let (t, b) = (&self.t, &self.b);
        let dot = |a: &[[f32; LANES]; 3], c: &[[f32; LANES]; 3], k: usize| {
            a[0][k] * c[0][k] + a[1][k] * c[1][k] + a[2][k] * c[2][k]
        };
        // lt = t − n·(t·n)
        let mut lt = [[0f32; LANES]; 3];
        let mut d = [0f32; LANES];
        for k in 0..LANES {
            d[k] = dot(t, &n, k);
        }
        for c in 0..3 {
            for k in 0..LANES {
                lt[c][k] = t[c][k] - n[c][k] * d[k];
            }
        }
        // lb = b − n·(b·n) − lt·(b·lt)
        let mut lb = [[0f32; LANES]; 3];
        let mut e = [0f32; LANES];
        for k in 0..LANES {
            d[k] = dot(b, &n, k);
            e[k] = dot(b, &lt, k);
        }
        for c in 0..3 {
            for k in 0..LANES {
                lb[c][k] = b[c][k] - n[c][k] * d[k] - lt[c][k] * e[k];
            }
        }
        // normalize_safe of both.
        for v in [&mut lt, &mut lb] {
            for k in 0..LANES {
                d[k] = (v[0][k] * v[0][k] + v[1][k] * v[1][k] + v[2][k] * v[2][k]).sqrt();
            }
            for c in 0..3 {
                for k in 0..LANES {
                    let inv = 1.0 / d[k];
                    v[c][k] = if d[k] > 0.0 { v[c][k] * inv } else { v[c][k] };
                }
            }
        }
        for k in 0..len {
            let p = self.vertex[k] as usize;
            let t = Vec3::new(lt[0][k], lt[1][k], lt[2][k]);
            let b = Vec3::new(lb[0][k], lb[1][k], lb[2][k]);
            (tang[p], bitang[p]) = rebuild_one_bad(nor[p], t, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::UvChannel;

    fn mesh(
        points: &[[f32; 3]],
        normals: &[[f32; 3]],
        uvs: &[[f32; 2]],
        faces: &[&[u32]],
    ) -> Scene {
        let mut s = Scene::with_root("r");
        let mut m = Mesh {
            positions: points.iter().map(|p| Vec3::from_array(*p)).collect(),
            normals: normals.iter().map(|p| Vec3::from_array(*p)).collect(),
            uv_channels: vec![UvChannel {
                components: 2,
                coords: uvs.iter().map(|u| Vec3::new(u[0], u[1], 0.0)).collect(),
                name: String::new(),
            }],
            ..Mesh::default()
        };
        for f in faces {
            m.push_face(f);
        }
        m.update_primitive_types();
        s.meshes.push(m);
        s
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).abs().max_element() < 1e-6
    }

    #[test]
    fn planar_triangle_follows_uv_axes() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [2., 0., 0.], [0., 3., 0.]],
            &[z, z, z],
            &[[0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        for i in 0..3 {
            assert!(close(m.tangents[i], Vec3::X), "{:?}", m.tangents[i]);
            assert!(close(m.bitangents[i], Vec3::Y), "{:?}", m.bitangents[i]);
        }
    }

    #[test]
    fn degenerate_uvs_fall_back_and_points_get_nan() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [5., 5., 5.]],
            &[z, z, z, z],
            &[[0.5, 0.5]; 4],
            &[&[0, 1, 2], &[3]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // s = (0, 1), t = (1, 0): tangent = w·1 − v·0 = (0, 1, 0), bitangent = v·1 = (1, 0, 0);
        // then the sign: t.x·s.y − t.y·s.x computed from the original (zero) deltas = 0 → +1.
        assert!(close(m.tangents[0], Vec3::Y), "{:?}", m.tangents[0]);
        assert!(close(m.bitangents[0], Vec3::X), "{:?}", m.bitangents[0]);
        assert!(m.tangents[3].is_nan() && m.bitangents[3].is_nan());
    }

    #[test]
    fn tangents_of_coincident_vertices_are_smoothed_within_45_degrees() {
        // Two triangles meeting at the origin with the same normal; their tangents differ by
        // ~30° (shared vertex duplicated as in the verbose layout: 0 and 3).
        let z = [0., 0., 1.];
        let ang = 30f32.to_radians();
        let (c, s_) = (ang.cos(), ang.sin());
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [c, s_, 0.],
            [-s_, c, 0.],
        ];
        let uvs = [[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]];
        let mut s = mesh(&pts, &[z; 6], &uvs, &[&[0, 1, 2], &[3, 4, 5]]);
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // Group of vertex 0 = {0 (twice: itself + found), 3}: 2·X + (c, s) normalised.
        let expect = (2.0 * Vec3::X + Vec3::new(c, s_, 0.0)).normalize();
        assert!(
            close(m.tangents[0], expect),
            "{:?} vs {expect:?}",
            m.tangents[0]
        );
        assert_eq!(m.tangents[0], m.tangents[3]);
        // Vertices 1, 2, 4, 5 are alone: unchanged.
        assert!(close(m.tangents[1], Vec3::X));
        assert!(close(m.tangents[4], Vec3::new(c, s_, 0.0)));

        // At 60° apart nothing is merged.
        let ang = 60f32.to_radians();
        let (c, s_) = (ang.cos(), ang.sin());
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [c, s_, 0.],
            [-s_, c, 0.],
        ];
        let mut s = mesh(&pts, &[z; 6], &uvs, &[&[0, 1, 2], &[3, 4, 5]]);
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        assert!(close(m.tangents[0], Vec3::X));
        assert!(close(m.tangents[3], Vec3::new(c, s_, 0.0)));
    }

    #[test]
    fn normals_must_agree_to_be_smoothed() {
        let ang = 2f32.to_radians();
        let n2 = [0., ang.sin(), ang.cos()];
        let z = [0., 0., 1.];
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
        ];
        let uvs = [[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]];
        let mut s = mesh(
            &pts,
            &[z, z, z, n2, n2, n2],
            &uvs,
            &[&[0, 1, 2], &[3, 4, 5]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // cos 2° = 0.99939 < 0.9999: vertex 0 and 3 stay apart; 3's bitangent follows its normal.
        assert!(close(m.bitangents[0], Vec3::Y));
        assert!(close(
            m.bitangents[3],
            Vec3::new(0.0, ang.cos(), -ang.sin())
        ));
    }

    #[test]
    fn skipped_without_normals_or_uvs_or_with_tangents() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]],
            &[z, z, z],
            &[[0., 0.]; 3],
            &[&[0, 1, 2]],
        );
        let untouched = s.clone();
        // No UVs.
        s.meshes[0].uv_channels.clear();
        calc_tangent_space(&mut s).unwrap();
        assert!(s.meshes[0].tangents.is_empty());
        // No normals.
        let mut s = untouched.clone();
        s.meshes[0].normals.clear();
        calc_tangent_space(&mut s).unwrap();
        assert!(s.meshes[0].tangents.is_empty());
        // Tangents already there: kept as they are, not recomputed.
        let mut s = untouched;
        let mine = vec![kiln_scene::Vec3::new(0.25, 0.5, 0.75); 3];
        s.meshes[0].tangents = mine.clone();
        s.meshes[0].bitangents = mine.clone();
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.meshes[0].tangents, mine);
        assert_eq!(s.meshes[0].bitangents, mine);
    }

    #[test]
    fn zero_tangent_stays_zero_like_assimp_5_2() {
        // Normal along the UV tangent direction: the projected tangent is zero, stays zero after
        // normalize_safe and after 5.2's Normalize of the group sum.
        let x = [1., 0., 0.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]],
            &[x, x, x],
            &[[0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2]],
        );
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.meshes[0].tangents[0], Vec3::ZERO);
        assert!(close(s.meshes[0].bitangents[0], Vec3::Y));
    }

    #[test]
    fn infinite_coordinates_do_not_smooth_and_warn() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[
                [0., 0., 0.],
                [1., 0., 0.],
                [0., 1., 0.],
                [f32::INFINITY, 0., 0.],
                [0., 0., 0.],
                [0., 1., 0.],
            ],
            &[z; 6],
            &[[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2], &[3, 4, 5]],
        );
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(s.warnings[0].code, crate::codes::TANGENTS_NOT_SMOOTHED);
    }

    /// Step 1 one corner at a time, as it was before the batches (the face's frame and the
    /// rebuild of a bad half shared with them): the reference the batched projection and
    /// normalisation must equal bit for bit.
    fn frames_one_corner_at_a_time(mesh: &Mesh) -> (Vec<Vec3>, Vec<Vec3>, Vec<bool>) {
        let nv = mesh.positions.len();
        let (pos, nor, tex) = (&mesh.positions, &mesh.normals, &mesh.uv_channels[0].coords);
        let mut tang = vec![Vec3::ZERO; nv];
        let mut bitang = vec![Vec3::ZERO; nv];
        let mut done = vec![false; nv];
        for face in mesh.faces() {
            if face.len() < 3 {
                for &i in face {
                    done[i as usize] = true;
                    tang[i as usize] = Vec3::splat(f32::NAN);
                    bitang[i as usize] = Vec3::splat(f32::NAN);
                }
                continue;
            }
            let (tangent, bitangent) = face_frame(pos, tex, face);
            for &pi in face {
                let p = pi as usize;
                let np = nor[p];
                let lt = tangent - np * dot(tangent, np);
                let lb = bitangent - np * dot(bitangent, np) - lt * dot(bitangent, lt);
                (tang[p], bitang[p]) = rebuild_one_bad(np, normalize_safe(lt), normalize_safe(lb));
            }
        }
        (tang, bitang, done)
    }

    /// Equal bits, or NaN both (a NaN's payload may follow another operand order).
    fn same_bits(a: &[Vec3], b: &[Vec3]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.to_array()
                    .iter()
                    .zip(y.to_array())
                    .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
            })
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// Batched step 1 equals one corner at a time: faces of 1 to 5 corners sharing
        /// vertices (the last face wins), points and lines between them (a batch is written
        /// before their NaNs), zero, tiny, huge, infinite and NaN components (the fallbacks).
        #[test]
        fn corner_batches_equal_one_corner_at_a_time(
            nv in 1usize..40,
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    6 => -4.0f32..4.0,
                    1 => proptest::prelude::Just(0.0f32),
                    1 => proptest::prelude::Just(1e-30f32),
                    1 => proptest::prelude::Just(3e38f32),
                    1 => proptest::prelude::Just(f32::INFINITY),
                    1 => proptest::prelude::Just(f32::NAN),
                ],
                8 * 40,
            ),
            faces in proptest::collection::vec(
                proptest::collection::vec(0u32..40, 1..=5),
                1..60,
            ),
        ) {
            let at = |k: usize| values[k % values.len()];
            let points: Vec<[f32; 3]> = (0..nv).map(|i| [at(8 * i), at(8 * i + 1), at(8 * i + 2)]).collect();
            let normals: Vec<[f32; 3]> = (0..nv).map(|i| [at(8 * i + 3), at(8 * i + 4), at(8 * i + 5)]).collect();
            let uvs: Vec<[f32; 2]> = (0..nv).map(|i| [at(8 * i + 6), at(8 * i + 7)]).collect();
            let faces: Vec<Vec<u32>> = faces
                .into_iter()
                .map(|f| f.into_iter().map(|i| i % nv as u32).collect())
                .collect();
            let refs: Vec<&[u32]> = faces.iter().map(|f| f.as_slice()).collect();
            let s = mesh(&points, &normals, &uvs, &refs);
            let (t, b, d) = corner_frames(&s.meshes[0]);
            let (rt, rb, rd) = frames_one_corner_at_a_time(&s.meshes[0]);
            proptest::prop_assert!(same_bits(&t, &rt), "tangents {t:?} vs {rt:?}");
            proptest::prop_assert!(same_bits(&b, &rb), "bitangents {b:?} vs {rb:?}");
            proptest::prop_assert_eq!(d, rd);
        }
    }
}
