//! Units and axes: [`change_basis`], the whole scene re-expressed in other units and with other
//! axes, as the FBX SDK's `FbxAxisSystem::ConvertScene` and `FbxSystemUnit::ConvertScene` do
//! (not Assimp's `GlobalScale`, which only scales the root node and so leaves a scale in every
//! bone matrix an engine uploads).
//!
//! The change is a similarity `M = s·R`, a uniform scale `s > 0` and a rotation `R` that maps
//! axes to axes (a signed permutation with determinant +1). Every quantity is conjugated so that
//! the scene is the same scene, seen in the new basis:
//! - node transforms and skin offset matrices: `T → M·T·M⁻¹` (a scale cancels in their linear
//!   part, so only their translations scale; no scale appears where there was none);
//! - positions (vertices, morph targets) `p → M·p`; directions (normals, tangents, bitangents,
//!   morph normals) `n → R·n`;
//! - animation keys: translations `t → M·t`, rotations `q → r·q·r⁻¹` (`r` the quaternion of
//!   `R`), scales permuted as `R` permutes the axes (exact, because `R` maps axes to axes).
//!
//! A rotation that maps axes to axes only permutes and negates coordinates, so the axes part is
//! exact in floating point; the scale part rounds once per value.

use glam::{Mat3, Mat4, Quat, Vec3};
use kiln_scene::Scene;

/// A signed axis: `+X`, `-Z`…
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Axis {
    /// 0, 1, 2 for x, y, z.
    pub index: u8,
    /// Whether it points along the negative half.
    pub negative: bool,
}

impl Axis {
    /// `+X`, `+Y`, `+Z`.
    pub const X: Axis = Axis {
        index: 0,
        negative: false,
    };
    /// `+Y`.
    pub const Y: Axis = Axis {
        index: 1,
        negative: false,
    };
    /// `+Z`.
    pub const Z: Axis = Axis {
        index: 2,
        negative: false,
    };

    /// The unit vector.
    pub fn vector(self) -> Vec3 {
        let mut v = Vec3::ZERO;
        v[self.index as usize % 3] = if self.negative { -1.0 } else { 1.0 };
        v
    }

    /// The opposite axis.
    pub fn opposite(self) -> Axis {
        Axis {
            negative: !self.negative,
            ..self
        }
    }

    /// From an index 0..3 and a sign (FBX `UpAxis`/`UpAxisSign`); `None` when out of range.
    pub fn from_index_sign(index: u8, sign: i8) -> Option<Axis> {
        (index < 3 && sign != 0).then_some(Axis {
            index,
            negative: sign < 0,
        })
    }
}

/// Why a basis change is not possible.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum BasisError {
    /// The up and front axes given are the same line.
    NotPerpendicular,
    /// The scale is zero, negative or not finite.
    BadScale,
}

impl core::fmt::Display for BasisError {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            BasisError::NotPerpendicular => "the up and front axes must be perpendicular",
            BasisError::BadScale => "the scale must be a positive finite number",
        })
    }
}

impl core::error::Error for BasisError {}

/// The rotation that maps the frame (`up`, `front`) to (`to_up`, `to_front`) (both right-handed
/// frames completed by `up × front`).
pub fn axes_rotation(
    up: Axis,
    front: Axis,
    to_up: Axis,
    to_front: Axis,
) -> Result<Mat3, BasisError> {
    if up.index == front.index || to_up.index == to_front.index {
        return Err(BasisError::NotPerpendicular);
    }
    let frame = |u: Vec3, f: Vec3| Mat3::from_cols(u, f, u.cross(f));
    let from = frame(up.vector(), front.vector());
    let to = frame(to_up.vector(), to_front.vector());
    // `from` is orthonormal: its inverse is its transpose (exact for signed permutations).
    Ok(to * from.transpose())
}

/// The rotation turning `up` into `to_up` about the axis perpendicular to both (a quarter turn,
/// or a half turn about `front` when they are opposite, or none), applied to `front`: where the
/// front axis goes when only the up axis is asked for.
pub fn front_after_up(up: Axis, front: Axis, to_up: Axis) -> Axis {
    if up.index == to_up.index {
        // The same axis, or its opposite (a half turn about the front axis keeps it).
        return front;
    }
    // A quarter turn about up × to_up.
    let u = up.vector();
    let t = to_up.vector();
    let axis = u.cross(t);
    let f = front.vector();
    // Rodrigues for a quarter turn: f·cos + (axis × f)·sin + axis (axis·f)(1 − cos).
    let turned = axis.cross(f) + axis * axis.dot(f);
    axis_of(turned).unwrap_or(front)
}

fn axis_of(v: Vec3) -> Option<Axis> {
    (0..3u8).find_map(|i| {
        let c = v[i as usize];
        (c.abs() > 0.5).then_some(Axis {
            index: i,
            negative: c < 0.0,
        })
    })
}

/// Re-expresses the whole scene in the basis `M = scale·rotation` (see the module). `rotation`
/// must map axes to axes ([`axes_rotation`] gives such); `scale` must be positive and finite.
pub fn change_basis(scene: &mut Scene, scale: f32, rotation: Mat3) -> Result<(), BasisError> {
    if !(scale.is_finite() && scale > 0.0) {
        return Err(BasisError::BadScale);
    }
    if scale == 1.0 && rotation == Mat3::IDENTITY {
        return Ok(());
    }
    let m = Mat4::from_mat3(rotation * scale);
    let m_inv = Mat4::from_mat3(rotation.transpose() * (1.0 / scale));
    let conjugate = |t: &Mat4| m * *t * m_inv;
    let r = Quat::from_mat3(&rotation);
    let r_inv = r.conjugate();
    for node in &mut scene.nodes {
        node.transform = conjugate(&node.transform);
    }
    let point = |p: &mut Vec3| *p = rotation * *p * scale;
    let direction = |d: &mut Vec3| *d = rotation * *d;
    for mesh in &mut scene.meshes {
        mesh.positions.iter_mut().for_each(point);
        mesh.normals.iter_mut().for_each(direction);
        mesh.tangents.iter_mut().for_each(direction);
        mesh.bitangents.iter_mut().for_each(direction);
        for bone in &mut mesh.bones {
            bone.offset_matrix = conjugate(&bone.offset_matrix);
        }
        // Offsets are differences of points: the linear part alone moves them.
        for shape in mesh.morph_targets.iter_mut().flat_map(|t| &mut t.shapes) {
            shape.positions.iter_mut().for_each(point);
            shape.normals.iter_mut().for_each(direction);
            shape.tangents.iter_mut().for_each(direction);
        }
    }
    // Where each axis goes: scale keys follow their axes (sign dropped: a scale is a length).
    let image: [usize; 3] = core::array::from_fn(|i| {
        let col = rotation.col(i);
        (0..3)
            .max_by(|&a, &b| col[a].abs().total_cmp(&col[b].abs()))
            .unwrap_or(i)
    });
    for anim in &mut scene.animations {
        for ch in &mut anim.channels {
            for k in &mut ch.position_keys {
                point(&mut k.value);
            }
            for k in &mut ch.rotation_keys {
                k.value = r * k.value * r_inv;
            }
            for k in &mut ch.scaling_keys {
                let s = k.value;
                let mut out = s;
                for (i, &to) in image.iter().enumerate() {
                    out[to] = s[i];
                }
                k.value = out;
            }
        }
    }
    if let Some(u) = &mut scene.metadata.unit_scale_factor {
        *u /= f64::from(scale);
    }
    if let Some(axes) = &mut scene.metadata.axes {
        let map = |(index, sign): (u8, i8)| -> (u8, i8) {
            Axis::from_index_sign(index, sign)
                .and_then(|a| axis_of(rotation * a.vector()))
                .map_or((index, sign), |a| {
                    (a.index, if a.negative { -1 } else { 1 })
                })
        };
        axes.up = map(axes.up);
        axes.front = map(axes.front);
        axes.coord = map(axes.coord);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::{Animation, Bone, Mesh, Node, NodeChannel, QuatKey, VectorKey, VertexWeight};

    const Z_NEG: Axis = Axis {
        index: 2,
        negative: true,
    };
    const Y_NEG: Axis = Axis {
        index: 1,
        negative: true,
    };

    #[test]
    fn z_up_to_y_up_is_the_quarter_turn_about_x() {
        // 3ds Max: Z up, front -Y. To Y up: the front goes to +Z, as Maya's Y-up frame has it.
        assert_eq!(front_after_up(Axis::Z, Y_NEG, Axis::Y), Axis::Z);
        let r = axes_rotation(Axis::Z, Y_NEG, Axis::Y, Axis::Z).unwrap();
        assert_eq!(r * Vec3::new(1.0, 2.0, 3.0), Vec3::new(1.0, 3.0, -2.0));
        assert_eq!(r.determinant(), 1.0);
        // Turning the front half round about up.
        let r = axes_rotation(Axis::Y, Axis::Z, Axis::Y, Z_NEG).unwrap();
        assert_eq!(r * Vec3::new(1.0, 2.0, 3.0), Vec3::new(-1.0, 2.0, -3.0));
        assert_eq!(
            axes_rotation(Axis::Y, Axis::Y.opposite(), Axis::Y, Axis::Z),
            Err(BasisError::NotPerpendicular)
        );
    }

    /// A two-bone chain with a skinned triangle and an animation; world positions after
    /// skinning at each key equal `M ×` the ones before.
    #[test]
    fn skinned_and_animated_positions_are_the_same_points_in_the_new_basis() {
        let mut s = Scene::with_root("root");
        let a = s.add_child(0, {
            let mut n = Node::new("a");
            n.transform = Mat4::from_scale_rotation_translation(
                Vec3::new(1.0, 2.0, 1.0),
                Quat::from_rotation_y(0.3),
                Vec3::new(1.0, 2.0, 3.0),
            );
            n
        });
        let b = s.add_child(a, {
            let mut n = Node::new("b");
            n.transform = Mat4::from_rotation_translation(
                Quat::from_rotation_x(0.7),
                Vec3::new(0.0, 4.0, 0.0),
            );
            n
        });
        let mesh_node = s.add_child(0, Node::new("mesh"));
        s.nodes[mesh_node].meshes.push(0);
        let global = |s: &Scene, mut n: usize| {
            let mut g = s.nodes[n].transform;
            while let Some(p) = s.nodes[n].parent {
                g = s.nodes[p].transform * g;
                n = p;
            }
            g
        };
        let bind_b = global(&s, b);
        s.meshes.push(Mesh {
            positions: vec![
                Vec3::new(0.0, 5.0, 0.5),
                Vec3::new(1.0, 6.0, 0.0),
                Vec3::new(0.0, 7.0, 1.0),
            ],
            normals: vec![Vec3::Z; 3],
            bones: vec![Bone {
                name: "b".into(),
                offset_matrix: bind_b.inverse(),
                weights: (0..3)
                    .map(|v| VertexWeight {
                        vertex: v,
                        weight: 1.0,
                    })
                    .collect(),
            }],
            ..Mesh::default()
        });
        s.animations.push(Animation {
            name: "t".into(),
            duration: 1.0,
            ticks_per_second: 1.0,
            channels: vec![NodeChannel {
                node_name: "a".into(),
                position_keys: vec![VectorKey {
                    time: 0.0,
                    value: Vec3::new(1.0, 2.0, 3.0),
                }],
                rotation_keys: vec![QuatKey {
                    time: 0.0,
                    value: Quat::from_rotation_z(0.4),
                }],
                scaling_keys: vec![VectorKey {
                    time: 0.0,
                    value: Vec3::new(1.0, 2.0, 3.0),
                }],
            }],
            morph_channels: Vec::new(),
        });
        let skinned = |s: &Scene| -> Vec<Vec3> {
            let g = global(s, b);
            let o = s.meshes[0].bones[0].offset_matrix;
            s.meshes[0]
                .positions
                .iter()
                .map(|p| (g * o).transform_point3(*p))
                .collect()
        };
        let keyed = |s: &Scene| {
            let c = &s.animations[0].channels[0];
            Mat4::from_scale_rotation_translation(
                c.scaling_keys[0].value,
                c.rotation_keys[0].value,
                c.position_keys[0].value,
            )
        };
        let before = skinned(&s);
        let key_before = keyed(&s);
        let r = axes_rotation(Axis::Z, Y_NEG, Axis::Y, Axis::Z).unwrap();
        let scale = 0.01;
        change_basis(&mut s, scale, r).unwrap();
        let m = Mat4::from_mat3(r * scale);
        for (p, q) in before.iter().zip(skinned(&s)) {
            assert!((m.transform_point3(*p) - q).length() < 1e-5, "{p} {q}");
        }
        // The key's transform is the old one conjugated.
        let expect = m * key_before * m.inverse();
        assert!(
            keyed(&s).abs_diff_eq(expect, 1e-5),
            "{} {}",
            keyed(&s),
            expect
        );
        // Directions are only rotated.
        assert_eq!(s.meshes[0].normals[0], r * Vec3::Z);
        assert_eq!(change_basis(&mut s, 0.0, r), Err(BasisError::BadScale));
    }
}
