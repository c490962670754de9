//! Assimp's matrix arithmetic on the scene's glam [`Mat4`]s (column-major storage, the same
//! column-vector convention): what the processing steps apply to node transforms. Products
//! and inverses go through [`M4`], so they are the same operations as the importer's.

use glam::{Mat4, Vec3};

use super::M4;

/// Element `(row, col)` of a column-vector matrix (Assimp's `a1..d4` are rows a..d).
#[inline]
fn at(m: &Mat4, row: usize, col: usize) -> f32 {
    m.col(col)[row]
}

/// `aiMatrix4x4::IsIdentity(epsilon)`: every element within `epsilon` of the identity's
/// (a NaN element is not).
pub fn is_identity(m: &Mat4, epsilon: f32) -> bool {
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
pub const IDENTITY_EPSILON: f32 = 10e-3;

/// `aiMatrix4x4::Inverse()` ([`M4::inverse`]): cofactor inverse; a matrix whose determinant
/// is exactly zero becomes all NaN.
#[inline]
pub fn inverse(m: &Mat4) -> Mat4 {
    M4::from_glam(m).inverse().to_glam()
}

/// The 3x3 matrix that PretransformVertices applies to normals and tangents: the upper-left
/// block of `transpose(inverse(m))`, as rows `[a, b, c]`.
pub fn normal_matrix(m: &Mat4) -> [[f32; 3]; 3] {
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

/// `aiMatrix3x3 * aiVector3D`, `m` by rows.
#[inline]
pub fn mul3(m: &[[f32; 3]; 3], v: Vec3) -> Vec3 {
    Vec3::new(
        m[0][0] * v.x + m[0][1] * v.y + m[0][2] * v.z,
        m[1][0] * v.x + m[1][1] * v.y + m[1][2] * v.z,
        m[2][0] * v.x + m[2][1] * v.y + m[2][2] * v.z,
    )
}

/// `aiMatrix4x4 * aiVector3D` (a point: translation added, no projective divide).
#[inline]
pub fn transform_point(m: &Mat4, v: Vec3) -> Vec3 {
    Vec3::new(
        at(m, 0, 0) * v.x + at(m, 0, 1) * v.y + at(m, 0, 2) * v.z + at(m, 0, 3),
        at(m, 1, 0) * v.x + at(m, 1, 1) * v.y + at(m, 1, 2) * v.z + at(m, 1, 3),
        at(m, 2, 0) * v.x + at(m, 2, 1) * v.y + at(m, 2, 2) * v.z + at(m, 2, 3),
    )
}

/// `aiMatrix4x4 * aiMatrix4x4` ([`M4::mul`]): `a * b` with Assimp's summation order.
#[inline]
pub fn mat_mul(a: &Mat4, b: &Mat4) -> Mat4 {
    M4::from_glam(a).mul(&M4::from_glam(b)).to_glam()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_matches_glam_and_singular_is_nan() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 3.0, 0.5),
            glam::Quat::from_rotation_y(0.7),
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
    fn mat_mul_is_assimps_product() {
        let a = Mat4::from_scale_rotation_translation(
            Vec3::new(1.5, 0.25, 3.0),
            glam::Quat::from_rotation_x(0.3),
            Vec3::new(0.5, 7.0, -1.0),
        );
        let b = Mat4::from_rotation_z(1.1) * Mat4::from_translation(Vec3::new(2.0, 0.0, 1.0));
        // Element (row, col) summed over k = 0..4 in order, as aiMatrix4x4::operator*.
        let p = mat_mul(&a, &b);
        for row in 0..4 {
            for col in 0..4 {
                let want = at(&a, row, 0) * at(&b, 0, col)
                    + at(&a, row, 1) * at(&b, 1, col)
                    + at(&a, row, 2) * at(&b, 2, col)
                    + at(&a, row, 3) * at(&b, 3, col);
                assert_eq!(at(&p, row, col).to_bits(), want.to_bits());
            }
        }
    }
}
