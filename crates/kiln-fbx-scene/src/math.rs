//! Matrix and quaternion arithmetic in `f32` with Assimp 5.2's formulas and operation order
//! (`aiMatrix4x4t<float>`, `aiQuaterniont<float>`), so that transforms, decompositions and
//! quaternion signs come out as Assimp computes them. Column vectors (`v' = M * v`); [`M4`]
//! stores rows (`m[r][c]`, `a1..a4` is row 0) like Assimp, and converts to glam at the end.

use kiln_scene::{Mat4, Quat, Vec3};

/// A 4x4 matrix stored by rows, as Assimp's `aiMatrix4x4`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct M4(pub [[f32; 4]; 4]);

impl Default for M4 {
    fn default() -> Self {
        M4::IDENTITY
    }
}

impl M4 {
    pub const IDENTITY: M4 = M4([
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ]);

    /// `aiMatrix4x4::operator*`: `self * other`.
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

    pub fn translation(v: [f32; 3]) -> M4 {
        let mut m = M4::IDENTITY;
        m.0[0][3] = v[0];
        m.0[1][3] = v[1];
        m.0[2][3] = v[2];
        m
    }

    pub fn scaling(v: [f32; 3]) -> M4 {
        let mut m = M4::IDENTITY;
        m.0[0][0] = v[0];
        m.0[1][1] = v[1];
        m.0[2][2] = v[2];
        m
    }

    pub fn rotation_x(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = (a.sin(), a.cos());
        m.0[1][1] = c;
        m.0[2][2] = c;
        m.0[2][1] = s;
        m.0[1][2] = -s;
        m
    }

    pub fn rotation_y(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = (a.sin(), a.cos());
        m.0[0][0] = c;
        m.0[2][2] = c;
        m.0[0][2] = s;
        m.0[2][0] = -s;
        m
    }

    pub fn rotation_z(a: f32) -> M4 {
        let mut m = M4::IDENTITY;
        let (s, c) = (a.sin(), a.cos());
        m.0[0][0] = c;
        m.0[1][1] = c;
        m.0[1][0] = s;
        m.0[0][1] = -s;
        m
    }

    /// From an FBX matrix array (16 values, column-major as FBX stores them), as Assimp's
    /// `ReadMatrix` (which reads rows then transposes).
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

    /// The FBX array (column-major) of this matrix.
    pub fn to_fbx_array(&self) -> Vec<f64> {
        let mut out = Vec::with_capacity(16);
        for c in 0..4 {
            for r in 0..4 {
                out.push(f64::from(self.0[r][c]));
            }
        }
        out
    }

    pub fn to_glam(&self) -> Mat4 {
        let m = &self.0;
        Mat4::from_cols_array(&[
            m[0][0], m[1][0], m[2][0], m[3][0], m[0][1], m[1][1], m[2][1], m[3][1], m[0][2],
            m[1][2], m[2][2], m[3][2], m[0][3], m[1][3], m[2][3], m[3][3],
        ])
    }

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

    pub fn determinant(&self) -> f32 {
        kiln_scene::assimp_math::determinant(&self.0)
    }

    /// `aiMatrix4x4::Inverse`: a singular matrix becomes all NaN, as in Assimp.
    pub fn inverse(&self) -> M4 {
        M4(kiln_scene::assimp_math::inverse(&self.0))
    }

    /// `aiMatrix4x4::Decompose(scaling, quaternion, position)`.
    pub fn decompose(&self) -> ([f32; 3], Q, [f32; 3]) {
        let m = &self.0;
        let position = [m[0][3], m[1][3], m[2][3]];
        let mut cols = [
            [m[0][0], m[1][0], m[2][0]],
            [m[0][1], m[1][1], m[2][1]],
            [m[0][2], m[1][2], m[2][2]],
        ];
        let len = |v: &[f32; 3]| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
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

    /// The upper 3x3 rows.
    pub fn rows3(&self) -> [[f32; 3]; 3] {
        let m = &self.0;
        [
            [m[0][0], m[0][1], m[0][2]],
            [m[1][0], m[1][1], m[1][2]],
            [m[2][0], m[2][1], m[2][2]],
        ]
    }

    pub fn is_finite(&self) -> bool {
        self.0.iter().flatten().all(|v| v.is_finite())
    }
}

/// A quaternion as Assimp's `aiQuaternion` (w, x, y, z), default identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Q {
    pub w: f32,
    pub x: f32,
    pub y: f32,
    pub z: f32,
}

impl Default for Q {
    fn default() -> Self {
        Q {
            w: 1.0,
            x: 0.0,
            y: 0.0,
            z: 0.0,
        }
    }
}

impl Q {
    /// `aiQuaternion(const aiMatrix3x3&)`, rows `a`, `b`, `c`.
    pub fn from_rows(m: &[[f32; 3]; 3]) -> Q {
        let (a1, a2, a3) = (m[0][0], m[0][1], m[0][2]);
        let (b1, b2, b3) = (m[1][0], m[1][1], m[1][2]);
        let (c1, c2, c3) = (m[2][0], m[2][1], m[2][2]);
        let t = a1 + b2 + c3;
        if t > 0.0 {
            let s = (1.0 + t).sqrt() * 2.0;
            Q {
                x: (c2 - b3) / s,
                y: (a3 - c1) / s,
                z: (b1 - a2) / s,
                w: 0.25 * s,
            }
        } else if a1 > b2 && a1 > c3 {
            let s = (1.0 + a1 - b2 - c3).sqrt() * 2.0;
            Q {
                x: 0.25 * s,
                y: (b1 + a2) / s,
                z: (a3 + c1) / s,
                w: (c2 - b3) / s,
            }
        } else if b2 > c3 {
            let s = (1.0 + b2 - a1 - c3).sqrt() * 2.0;
            Q {
                x: (b1 + a2) / s,
                y: 0.25 * s,
                z: (c2 + b3) / s,
                w: (a3 - c1) / s,
            }
        } else {
            let s = (1.0 + c3 - a1 - b2).sqrt() * 2.0;
            Q {
                x: (a3 + c1) / s,
                y: (c2 + b3) / s,
                z: 0.25 * s,
                w: (b1 - a2) / s,
            }
        }
    }

    /// `aiQuaternion::operator*`.
    pub fn mul(&self, t: &Q) -> Q {
        Q {
            w: self.w * t.w - self.x * t.x - self.y * t.y - self.z * t.z,
            x: self.w * t.x + self.x * t.w + self.y * t.z - self.z * t.y,
            y: self.w * t.y + self.y * t.w + self.z * t.x - self.x * t.z,
            z: self.w * t.z + self.z * t.w + self.x * t.y - self.y * t.x,
        }
    }

    /// `aiQuaternion::GetMatrix` as a 4x4.
    pub fn matrix(&self) -> M4 {
        let (x, y, z, w) = (self.x, self.y, self.z, self.w);
        let mut m = M4::IDENTITY;
        m.0[0][0] = 1.0 - 2.0 * (y * y + z * z);
        m.0[0][1] = 2.0 * (x * y - z * w);
        m.0[0][2] = 2.0 * (x * z + y * w);
        m.0[1][0] = 2.0 * (x * y + z * w);
        m.0[1][1] = 1.0 - 2.0 * (x * x + z * z);
        m.0[1][2] = 2.0 * (y * z - x * w);
        m.0[2][0] = 2.0 * (x * z - y * w);
        m.0[2][1] = 2.0 * (y * z + x * w);
        m.0[2][2] = 1.0 - 2.0 * (x * x + y * y);
        m
    }

    pub fn to_glam(self) -> Quat {
        Quat::from_xyzw(self.x, self.y, self.z, self.w)
    }
}

/// Degrees to radians as Assimp's `AI_DEG_TO_RAD` (in `float`).
pub fn deg_to_rad(x: f32) -> f32 {
    // `(ai_real)0.0174532925`, the same float as PI / 180 in f32.
    x * 0.017_453_292_f32
}

/// FBX rotation orders (`RotationOrder` enum values 0..=6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RotOrder {
    #[default]
    Xyz,
    Xzy,
    Yzx,
    Yxz,
    Zxy,
    Zyx,
    SphericXyz,
}

impl RotOrder {
    /// From the `RotationOrder` property: values outside 0..=6 fall back to XYZ (Assimp's
    /// `fbx_simple_enum_property` default).
    pub fn from_int(v: i64) -> RotOrder {
        match v {
            1 => RotOrder::Xzy,
            2 => RotOrder::Yzx,
            3 => RotOrder::Yxz,
            4 => RotOrder::Zxy,
            5 => RotOrder::Zyx,
            6 => RotOrder::SphericXyz,
            _ => RotOrder::Xyz,
        }
    }
}

/// `FBXConverter::GetRotationMatrix`: Euler angles in degrees to a matrix, skipping axes whose
/// angle is within `FLT_EPSILON` of zero (so they contribute no rounding), multiplied in the
/// inverse of the rotation order (column vectors). SphericXYZ is unsupported: identity.
pub fn rotation_matrix(order: RotOrder, r: [f32; 3]) -> M4 {
    if order == RotOrder::SphericXyz {
        return M4::IDENTITY;
    }
    let eps = f32::EPSILON;
    let mut temp = [M4::IDENTITY; 3];
    let mut is_id = [true; 3];
    if r[2].abs() > eps {
        temp[2] = M4::rotation_z(deg_to_rad(r[2]));
        is_id[2] = false;
    }
    if r[1].abs() > eps {
        temp[1] = M4::rotation_y(deg_to_rad(r[1]));
        is_id[1] = false;
    }
    if r[0].abs() > eps {
        temp[0] = M4::rotation_x(deg_to_rad(r[0]));
        is_id[0] = false;
    }
    let order_idx: [usize; 3] = match order {
        RotOrder::Xyz => [2, 1, 0],
        RotOrder::Xzy => [1, 2, 0],
        RotOrder::Yzx => [0, 2, 1],
        RotOrder::Yxz => [2, 0, 1],
        RotOrder::Zxy => [1, 0, 2],
        RotOrder::Zyx => [0, 1, 2],
        RotOrder::SphericXyz => [2, 1, 0],
    };
    let mut out = M4::IDENTITY;
    if !is_id[order_idx[0]] {
        out = temp[order_idx[0]];
    }
    if !is_id[order_idx[1]] {
        out = out.mul(&temp[order_idx[1]]);
    }
    if !is_id[order_idx[2]] {
        out = out.mul(&temp[order_idx[2]]);
    }
    out
}

/// `EulerToQuaternion`.
pub fn euler_to_quat(r: [f32; 3], order: RotOrder) -> Q {
    Q::from_rows(&rotation_matrix(order, r).rows3())
}

pub fn sq_len(v: [f32; 3]) -> f32 {
    v[0] * v[0] + v[1] * v[1] + v[2] * v[2]
}

pub fn v3(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quaternion_from_rotation_matches_glam_up_to_sign() {
        for r in [
            [30.0, 0.0, 0.0],
            [10.0, 20.0, 30.0],
            [170.0, -80.0, 45.0],
            [0.0, 180.0, 0.0],
        ] {
            let q = euler_to_quat(r, RotOrder::Xyz).to_glam();
            let g = Quat::from_euler(
                glam::EulerRot::ZYX,
                r[2].to_radians(),
                r[1].to_radians(),
                r[0].to_radians(),
            );
            assert!(q.dot(g).abs() > 0.99999, "{r:?}: {q:?} vs {g:?}");
        }
    }

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
