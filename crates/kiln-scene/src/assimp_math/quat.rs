//! [`Q`]: Assimp's `aiQuaterniont<float>`.

use glam::Quat;

use super::M4;

/// A quaternion as Assimp's `aiQuaternion` (w, x, y, z); the default is the identity.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Q {
    /// Real part.
    pub w: f32,
    /// `i` component.
    pub x: f32,
    /// `j` component.
    pub y: f32,
    /// `k` component.
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
    /// `aiQuaternion(const aiMatrix3x3&)` from the rows `a`, `b`, `c` of a rotation matrix
    /// (Assimp's four-branch formula, so signs come out as Assimp's).
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

    /// `aiQuaternion::operator*`: `self * t`.
    #[inline]
    pub fn mul(&self, t: &Q) -> Q {
        Q {
            w: self.w * t.w - self.x * t.x - self.y * t.y - self.z * t.z,
            x: self.w * t.x + self.x * t.w + self.y * t.z - self.z * t.y,
            y: self.w * t.y + self.y * t.w + self.z * t.x - self.x * t.z,
            z: self.w * t.z + self.z * t.w + self.x * t.y - self.y * t.x,
        }
    }

    /// `aiQuaternion::GetMatrix` as a 4x4 (no translation).
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

    /// The same quaternion as glam's [`Quat`] (components moved, not renormalised).
    #[inline]
    pub fn to_glam(self) -> Quat {
        Quat::from_xyzw(self.x, self.y, self.z, self.w)
    }
}
