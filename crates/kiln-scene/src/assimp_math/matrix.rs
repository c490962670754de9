//! [`M4`]: Assimp's `aiMatrix4x4t<float>` by rows.

use alloc::vec::Vec;

use glam::Mat4;

use super::{Q, Rows, sq_len};

/// A 4x4 matrix stored by rows, as Assimp's `aiMatrix4x4`: `self.0[row][col]`, column
/// vectors. Every operation uses Assimp's formula and operation order; [`M4::to_glam`] and
/// [`M4::from_glam`] convert exactly (they only move the values).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct M4(pub Rows);

impl Default for M4 {
    fn default() -> Self {
        M4::IDENTITY
    }
}

impl M4 {
    /// The identity matrix.
    pub const IDENTITY: M4 = M4([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);

    /// `aiMatrix4x4::operator*`: `self * other` (`other` applied first to a column vector),
    /// each element summed over `k = 0..4` in order.
    #[inline]
    pub fn mul(&self, o: &M4) -> M4 {
        let a = &self.0;
        let b = &o.0;
        let mut r = [[0f32; 4]; 4];
        for (i, row) in r.iter_mut().enumerate() {
            for (j, v) in row.iter_mut().enumerate() {
                *v = a[i][0] * b[0][j] + a[i][1] * b[1][j] + a[i][2] * b[2][j] + a[i][3] * b[3][j];
            }
        }
        M4(r)
    }

    /// `aiMatrix4x4::Translation`: the identity with `v` in the last column.
    #[inline]
    pub fn translation(v: [f32; 3]) -> M4 {
        let mut m = M4::IDENTITY;
        m.0[0][3] = v[0];
        m.0[1][3] = v[1];
        m.0[2][3] = v[2];
        m
    }

    /// `aiMatrix4x4::Scaling`: the identity with `v` on the diagonal.
    #[inline]
    pub fn scaling(v: [f32; 3]) -> M4 {
        let mut m = M4::IDENTITY;
        m.0[0][0] = v[0];
        m.0[1][1] = v[1];
        m.0[2][2] = v[2];
        m
    }

    /// `aiMatrix4x4::RotationX`: `a` radians about x.
    #[inline]
    pub fn rotation_x(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = super::glibc::sin_cos(a);
        m.0[1][1] = c;
        m.0[2][2] = c;
        m.0[2][1] = s;
        m.0[1][2] = -s;
        m
    }

    /// `aiMatrix4x4::RotationY`: `a` radians about y.
    #[inline]
    pub fn rotation_y(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = super::glibc::sin_cos(a);
        m.0[0][0] = c;
        m.0[2][2] = c;
        m.0[0][2] = s;
        m.0[2][0] = -s;
        m
    }

    /// `aiMatrix4x4::RotationZ`: `a` radians about z.
    #[inline]
    pub fn rotation_z(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = super::glibc::sin_cos(a);
        m.0[0][0] = c;
        m.0[1][1] = c;
        m.0[1][0] = s;
        m.0[0][1] = -s;
        m
    }

    /// From an FBX matrix array (16 values, column-major as FBX stores them), as Assimp's
    /// `ReadMatrix` (which reads rows then transposes); `None` unless there are 16 values.
    pub fn from_fbx_array(v: &[f64]) -> Option<M4> {
        if v.len() != 16 {
            return None;
        }
        let mut m = [[0f32; 4]; 4];
        for (c, col) in v.chunks_exact(4).enumerate() {
            for (r, x) in col.iter().enumerate() {
                m[r][c] = *x as f32;
            }
        }
        Some(M4(m))
    }

    /// The FBX array (16 values, column-major) of this matrix.
    pub fn to_fbx_array(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(16);
        for c in 0..4 {
            for r in 0..4 {
                out.push(f64::from(self.0[r][c]));
            }
        }
        out
    }

    /// The same matrix as glam's column-major [`Mat4`].
    #[inline]
    pub fn to_glam(&self) -> Mat4 {
        let m = &self.0;
        Mat4::from_cols_array(&[
            m[0][0], m[1][0], m[2][0], m[3][0], m[0][1], m[1][1], m[2][1], m[3][1], m[0][2],
            m[1][2], m[2][2], m[3][2], m[0][3], m[1][3], m[2][3], m[3][3],
        ])
    }

    /// A glam [`Mat4`] by rows.
    #[inline]
    pub fn from_glam(m: &Mat4) -> M4 {
        let c = m.to_cols_array();
        let mut r = [[0f32; 4]; 4];
        for (col, chunk) in c.chunks_exact(4).enumerate() {
            for (row, v) in chunk.iter().enumerate() {
                r[row][col] = *v;
            }
        }
        M4(r)
    }

    /// `aiMatrix4x4::Determinant` ([`super::determinant`]).
    #[inline]
    pub fn determinant(&self) -> f32 {
        super::determinant(&self.0)
    }

    /// `aiMatrix4x4::Inverse` ([`super::inverse`]): a singular matrix becomes all NaN, as in
    /// Assimp.
    #[inline]
    pub fn inverse(&self) -> M4 {
        M4(super::inverse(&self.0))
    }

    /// `aiMatrix4x4::Decompose(scaling, quaternion, position)`: the scaling is the length of
    /// each basis column, all three negated when the determinant is negative; a zero scale
    /// leaves its column undivided.
    pub fn decompose(&self) -> ([f32; 3], Q, [f32; 3]) {
        let m = &self.0;
        let position = [m[0][3], m[1][3], m[2][3]];
        let mut cols = [
            [m[0][0], m[1][0], m[2][0]],
            [m[0][1], m[1][1], m[2][1]],
            [m[0][2], m[1][2], m[2][2]],
        ];
        let len = |v: &[f32; 3]| sq_len(*v).sqrt();
        let mut s = [len(&cols[0]), len(&cols[1]), len(&cols[2])];
        if self.determinant() < 0.0 {
            s = [-s[0], -s[1], -s[2]];
        }
        for (c, k) in cols.iter_mut().zip(s) {
            if k != 0.0 {
                c[0] /= k;
                c[1] /= k;
                c[2] /= k;
            }
        }
        // Rows of the rotation matrix are the columns' components.
        let r = [
            [cols[0][0], cols[1][0], cols[2][0]],
            [cols[0][1], cols[1][1], cols[2][1]],
            [cols[0][2], cols[1][2], cols[2][2]],
        ];
        (s, Q::from_rows(&r), position)
    }

    /// The upper-left 3x3 block, by rows (`aiMatrix3x3(const aiMatrix4x4&)`).
    #[inline]
    pub fn rows3(&self) -> [[f32; 3]; 3] {
        let m = &self.0;
        [
            [m[0][0], m[0][1], m[0][2]],
            [m[1][0], m[1][1], m[1][2]],
            [m[2][0], m[2][1], m[2][2]],
        ]
    }

    /// Whether all 16 elements are finite.
    pub fn is_finite(&self) -> bool {
        self.0.iter().flatten().all(|v| v.is_finite())
    }
}

#[cfg(test)]
mod tests {
    use super::super::{RotOrder, rotation_matrix};
    use super::*;

    #[test]
    fn decompose_recovers_trs_and_negative_scale() {
        let t = M4::translation([1.0, 2.0, 3.0]);
        let r = rotation_matrix(RotOrder::Zxy, [10.0, 20.0, 30.0]);
        let s = M4::scaling([2.0, -3.0, 4.0]);
        let m = t.mul(&r).mul(&s);
        let (sc, q, p) = m.decompose();
        assert_eq!(p, [1.0, 2.0, 3.0]);
        // A negative determinant flips all three scale signs.
        for (got, want) in sc.iter().zip([-2.0, -3.0, -4.0]) {
            assert!((got - want).abs() < 1e-5, "{sc:?}");
        }
        let back = M4::translation(p).mul(&q.matrix()).mul(&M4::scaling(sc));
        for (a, b) in back.0.iter().flatten().zip(m.0.iter().flatten()) {
            assert!((a - b).abs() < 1e-4, "{back:?} vs {m:?}");
        }
    }

    #[test]
    fn inverse_times_matrix_is_identity() {
        let m = M4::translation([1.0, -2.0, 0.5])
            .mul(&rotation_matrix(RotOrder::Yxz, [5.0, 60.0, -20.0]));
        let p = m.mul(&m.inverse());
        for (i, row) in p.0.iter().enumerate() {
            for (j, v) in row.iter().enumerate() {
                let want = if i == j { 1.0 } else { 0.0 };
                assert!((v - want).abs() < 1e-5);
            }
        }
        assert!(M4::scaling([0.0, 1.0, 1.0]).inverse().0[0][0].is_nan());
    }
}
