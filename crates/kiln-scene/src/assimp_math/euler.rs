//! Euler angles as Assimp's FBX converter turns them into matrices and quaternions
//! (`FBXConverter::GetRotationMatrix`, `EulerToQuaternion`).

use super::{M4, Q};

/// Degrees to radians as Assimp's `AI_DEG_TO_RAD` (in `float`).
#[inline]
pub fn deg_to_rad(x: f32) -> f32 {
    // `(ai_real)0.0174532925`, the same float as PI / 180 in f32.
    x * 0.017_453_292_f32
}

/// FBX rotation orders (the `RotationOrder` enum, values 0..=6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum RotOrder {
    /// 0: x first, then y, then z (the default).
    #[default]
    Xyz,
    /// 1: x, z, y.
    Xzy,
    /// 2: y, z, x.
    Yzx,
    /// 3: y, x, z.
    Yxz,
    /// 4: z, x, y.
    Zxy,
    /// 5: z, y, x.
    Zyx,
    /// 6: spheric XYZ, which Assimp does not support (its rotation is the identity).
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

/// `EulerToQuaternion`: [`rotation_matrix`]'s rotation as a quaternion ([`Q::from_rows`]).
pub fn euler_to_quat(r: [f32; 3], order: RotOrder) -> Q {
    Q::from_rows(&rotation_matrix(order, r).rows3())
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

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
}
