//! Small vector helpers that round like Assimp 5.2's `aiVector3D` (single precision, the same
//! operand order), so that results agree with Assimp to the last bits where it matters (threshold
//! decisions such as "is this quad corner concave").

use kiln_scene::{Mat4, Vec3};

/// `a * b` of `aiVector3D`: `x*x + y*y + z*z` in that order.
#[inline]
pub(crate) fn dot(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// `a ^ b` of `aiVector3D`.
#[inline]
pub(crate) fn cross(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// `aiVector3D::Normalize` of 5.2: `*this /= Length()`, where 5.2's `operator/=` leaves the
/// vector unchanged when dividing by exactly zero and otherwise multiplies by `1 / length`. So a
/// zero vector stays zero (real Assimp 5.2.5 dumps show zero tangents where later versions give
/// NaN), and a NaN length makes every component NaN.
#[inline]
pub(crate) fn normalize(v: Vec3) -> Vec3 {
    let len = dot(v, v).sqrt();
    if len == 0.0 { v } else { v * (1.0 / len) }
}

/// `aiVector3D::NormalizeSafe`: leaves vectors of zero (or NaN) length unchanged.
#[inline]
pub(crate) fn normalize_safe(v: Vec3) -> Vec3 {
    let len = dot(v, v).sqrt();
    if len > 0.0 { v * (1.0 / len) } else { v }
}

/// Component-wise minimum the way `std::min(value, current)` picks it (`current < value ?
/// current : value`), which is what Assimp's `ArrayBounds` does (NaN handling included).
#[inline]
fn pick_min(value: f32, current: f32) -> f32 {
    if current < value { current } else { value }
}

#[inline]
fn pick_max(value: f32, current: f32) -> f32 {
    if value < current { current } else { value }
}

/// Assimp's `ArrayBounds` over positions: starts from ±1e10, so an empty array gives
/// min = 1e10, max = -1e10.
pub(crate) fn array_bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    bounds_of(points.iter().copied(), 1e10)
}

/// Component-wise bounds of `points` with Assimp's comparisons, starting from
/// `±sentinel` (`ArrayBounds` uses 1e10, `FindAABBTransformed` 10e10).
pub(crate) fn bounds_of(points: impl IntoIterator<Item = Vec3>, sentinel: f32) -> (Vec3, Vec3) {
    let mut min = Vec3::splat(sentinel);
    let mut max = Vec3::splat(-sentinel);
    for p in points {
        min = Vec3::new(
            pick_min(p.x, min.x),
            pick_min(p.y, min.y),
            pick_min(p.z, min.z),
        );
        max = Vec3::new(
            pick_max(p.x, max.x),
            pick_max(p.y, max.y),
            pick_max(p.z, max.z),
        );
    }
    (min, max)
}

/// `ComputePositionEpsilon(mesh)`: 1e-4 of the bounding box diagonal.
pub(crate) fn position_epsilon(points: &[Vec3]) -> f32 {
    let (min, max) = array_bounds(points);
    let d = max - min;
    dot(d, d).sqrt() * 1e-4
}

/// Element `(row, col)` of a column-vector matrix (Assimp's `a1..d4` are rows a..d).
#[inline]
fn at(m: &Mat4, row: usize, col: usize) -> f32 {
    m.col(col)[row]
}

/// `aiMatrix4x4::IsIdentity(epsilon)`.
pub(crate) fn is_identity(m: &Mat4, epsilon: f32) -> bool {
    for row in 0..4 {
        for col in 0..4 {
            let v = at(m, row, col);
            let target = if row == col { 1.0 } else { 0.0 };
            if !(v <= target + epsilon && v >= target - epsilon) {
                return false;
            }
        }
    }
    true
}

/// Assimp's `IsIdentity()` default epsilon (`AI_CONFIG_CHECK_IDENTITY_MATRIX_EPSILON_DEFAULT`).
pub(crate) const IDENTITY_EPSILON: f32 = 10e-3;

/// `aiMatrix4x4::Inverse()`: cofactor inverse; a matrix whose determinant is exactly zero
/// becomes all NaN.
pub(crate) fn inverse(m: &Mat4) -> Mat4 {
    // The columns of the transpose are the rows Assimp works on, and back.
    let rows = m.transpose().to_cols_array_2d();
    Mat4::from_cols_array_2d(&kiln_scene::assimp_math::inverse(&rows)).transpose()
}

/// The 3x3 matrix that PretransformVertices applies to normals and tangents: the upper-left
/// block of `transpose(inverse(m))`, as rows `[a, b, c]`.
pub(crate) fn normal_matrix(m: &Mat4) -> [[f32; 3]; 3] {
    let inv = inverse(m);
    // (inverse)^T: row r, col c of the result = inverse(c, r).
    let mut out = [[0f32; 3]; 3];
    for (r, line) in out.iter_mut().enumerate() {
        for (c, v) in line.iter_mut().enumerate() {
            *v = at(&inv, c, r);
        }
    }
    out
}

/// `aiMatrix3x3 * aiVector3D`.
#[inline]
pub(crate) fn mul3(m: &[[f32; 3]; 3], v: Vec3) -> Vec3 {
    Vec3::new(
        m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
        m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
        m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z,
    )
}

/// `aiMatrix4x4 * aiVector3D` (a point: translation added, no projective divide).
#[inline]
pub(crate) fn transform_point(m: &Mat4, v: Vec3) -> Vec3 {
    Vec3::new(
        at(m, 0, 0) * v.x + at(m, 0, 1) * v.y + at(m, 0, 2) * v.z + at(m, 0, 3),
        at(m, 1, 0) * v.x + at(m, 1, 1) * v.y + at(m, 1, 2) * v.z + at(m, 1, 3),
        at(m, 2, 0) * v.x + at(m, 2, 1) * v.y + at(m, 2, 2) * v.z + at(m, 2, 3),
    )
}

/// `aiMatrix4x4 * aiMatrix4x4` with Assimp's summation order.
pub(crate) fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    let mut cols = [0f32; 16];
    for row in 0..4 {
        for col in 0..4 {
            let v = at(b, 0, col) * at(a, row, 0)
                + at(b, 1, col) * at(a, row, 1)
                + at(b, 2, col) * at(a, row, 2)
                + at(b, 3, col) * at(a, row, 3);
            cols[col * 4 + row] = v;
        }
    }
    Mat4::from_cols_array(&cols)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_keeps_zero() {
        assert_eq!(normalize(Vec3::ZERO), Vec3::ZERO);
        assert!(normalize(Vec3::new(f32::NAN, 1.0, 0.0)).y.is_nan());
        assert_eq!(normalize_safe(Vec3::new(f32::NAN, 1.0, 0.0)).y, 1.0);
        assert_eq!(normalize_safe(Vec3::ZERO), Vec3::ZERO);
        assert_eq!(
            normalize(Vec3::new(0.0, 3.0, 4.0)),
            Vec3::new(0.0, 0.6, 0.8)
        );
    }

    #[test]
    fn inverse_matches_glam_and_singular_is_nan() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 3.0, 0.5),
            kiln_scene::Quat::from_rotation_y(0.7),
            Vec3::new(1.0, -2.0, 3.0),
        );
        let a = inverse(&m);
        let b = m.inverse();
        assert!(a.abs_diff_eq(b, 1e-5), "{a:?} vs {b:?}");
        assert!(inverse(&Mat4::ZERO).x_axis.x.is_nan());
        assert!(mat_mul(&m, &a).abs_diff_eq(Mat4::IDENTITY, 1e-5));
    }

    #[test]
    fn identity_uses_assimps_loose_epsilon() {
        let mut m = Mat4::IDENTITY;
        m.w_axis.x = 0.009;
        assert!(is_identity(&m, IDENTITY_EPSILON));
        m.w_axis.x = 0.011;
        assert!(!is_identity(&m, IDENTITY_EPSILON));
        assert!(!is_identity(
            &Mat4::from_cols_array(&[f32::NAN; 16]),
            IDENTITY_EPSILON
        ));
    }

    #[test]
    fn bounds_of_empty_are_assimps_sentinels() {
        let (min, max) = array_bounds(&[]);
        assert_eq!(min, Vec3::splat(1e10));
        assert_eq!(max, Vec3::splat(-1e10));
    }
}
