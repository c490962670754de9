//! The two-bone arm the unit tests pose, bake and bind against.

use alloc::vec;
use alloc::vec::Vec;

use glam::{Mat4, Vec3};
use kiln_format::Bone;

/// `root` one unit up, `arm` two units along x from it, as (bones, the arm's bind matrix).
pub(crate) fn arm() -> (Vec<Bone>, Mat4) {
    let b0 = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
    let b1 = b0 * Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0));
    let bones = vec![
        Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: b0.to_cols_array(),
        },
        Bone {
            index: 1,
            parent: 0,
            name: "arm".into(),
            transform: b1.to_cols_array(),
        },
    ];
    (bones, b1)
}
