//! The runtime skeleton: parents, bind pose and skin offsets in flat arrays, and the per-frame
//! jobs that turn a local pose into model-space and skinning matrices.
//!
//! A [`Skeleton`] is checked once when it is built (parents before children, finite matrices,
//! one offset slot per bone); after that, [`Skeleton::update_model`] and
//! [`Skeleton::update_skinning`] run over the arrays of a [`Pose`] without allocating and
//! without any check that can fail on data (only the pose's size is compared with the
//! skeleton's).
//!
//! Conventions: the runtime computes with glam's column-vector matrices, whose column-major
//! memory is exactly the engine files' row-major row-vector matrix (`v' = v * M`, translation in
//! elements 12..14), so a `Mat4` converts to and from a [`kiln_format::Matrix`] with
//! `from_cols_array` / `to_cols_array`. `model = parent.model * local` in glam's notation is the
//! original tool's `local * parent` (reference 004); `skinning = model * offset` is the bake's
//! `offset × model`.

use alloc::string::String;
use alloc::vec::Vec;

use glam::{DMat4, Mat4, Quat, Vec3A, Vec4};
use kiln_format::{Bone, Matrix, Model};

use crate::warning::BindWarning;

/// Parent of a root bone in [`Skeleton::parents`].
pub const NO_PARENT: u32 = u32::MAX;

/// Why a skeleton could not be built.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SkeletonError {
    /// No bone at all.
    #[error("the skeleton has no bone")]
    Empty,
    /// More bones than [`NO_PARENT`] leaves room for (the count).
    #[error("{0} bones; at most {max} are supported", max = u32::MAX - 1)]
    TooMany(usize),
    /// A bone's `index` field is not its position in the list.
    #[error("bone {bone} ('{name}'): its index field says {index}")]
    Index {
        /// Position of the bone.
        bone: usize,
        /// Its name.
        name: String,
        /// What its `index` field says.
        index: i32,
    },
    /// A bone's parent is neither -1 nor an earlier bone.
    #[error("bone {bone} ('{name}'): parent {parent} is not an earlier bone")]
    Parent {
        /// Position of the bone.
        bone: usize,
        /// Its name.
        name: String,
        /// What its `parent` field says.
        parent: i32,
    },
    /// A bone's bind transform holds NaN or an infinity.
    #[error("bone {bone} ('{name}'): bind transform is not finite")]
    Transform {
        /// Position of the bone.
        bone: usize,
        /// Its name.
        name: String,
    },
    /// Not one offset slot per bone.
    #[error("{offsets} offsets for {bones} bones")]
    OffsetCount {
        /// Offset slots given.
        offsets: usize,
        /// Bones of the skeleton.
        bones: usize,
    },
    /// A bone's offset matrix holds NaN or an infinity.
    #[error("bone {bone} ('{name}'): offset matrix is not finite")]
    Offset {
        /// Position of the bone.
        bone: usize,
        /// Its name.
        name: String,
    },
}

/// A pose whose size is not the skeleton's (it was made for another skeleton).
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("pose of {pose} bones used with a skeleton or clip of {skeleton}")]
pub struct PoseMismatch {
    /// Bones of the pose.
    pub pose: usize,
    /// Bones of the skeleton or clip it was used with.
    pub skeleton: usize,
}

/// Bones, their parents, bind pose and skin offsets.
#[derive(Clone, Debug, PartialEq)]
pub struct Skeleton {
    names: Vec<String>,
    parents: Vec<u32>,
    bind_model: Vec<Mat4>,
    bind_translations: Vec<Vec3A>,
    bind_rotations: Vec<Quat>,
    bind_scales: Vec<Vec3A>,
    /// Identity for bones no skin uses.
    offsets: Vec<Mat4>,
    skinned: Vec<bool>,
}

impl Skeleton {
    /// Builds a skeleton from `.mesh` bones and one offset slot per bone (`None`: the bone
    /// draws with its model matrix), as `kiln_extract::Extracted::offsets` (Assimp's skin
    /// offsets), a kiln-layout `.mesh` or [`classic_offsets`] give them.
    pub fn new(bones: &[Bone], offsets: &[Option<Matrix>]) -> Result<Skeleton, SkeletonError> {
        let n = bones.len();
        if n == 0 {
            return Err(SkeletonError::Empty);
        }
        if n >= NO_PARENT as usize {
            return Err(SkeletonError::TooMany(n));
        }
        if offsets.len() != n {
            return Err(SkeletonError::OffsetCount {
                offsets: offsets.len(),
                bones: n,
            });
        }
        let mut s = Skeleton {
            names: Vec::with_capacity(n),
            parents: Vec::with_capacity(n),
            bind_model: Vec::with_capacity(n),
            bind_translations: Vec::with_capacity(n),
            bind_rotations: Vec::with_capacity(n),
            bind_scales: Vec::with_capacity(n),
            offsets: Vec::with_capacity(n),
            skinned: Vec::with_capacity(n),
        };
        for (i, (bone, offset)) in bones.iter().zip(offsets).enumerate() {
            let name = || bone.name.clone();
            if bone.index != i as i32 {
                return Err(SkeletonError::Index {
                    bone: i,
                    name: name(),
                    index: bone.index,
                });
            }
            let parent = match bone.parent {
                -1 => NO_PARENT,
                p if p >= 0 && (p as usize) < i => p as u32,
                p => {
                    return Err(SkeletonError::Parent {
                        bone: i,
                        name: name(),
                        parent: p,
                    });
                }
            };
            let model = Mat4::from_cols_array(&bone.transform);
            if !model.is_finite() {
                return Err(SkeletonError::Transform {
                    bone: i,
                    name: name(),
                });
            }
            let offset_matrix = match offset {
                Some(o) => {
                    let o = Mat4::from_cols_array(o);
                    if !o.is_finite() {
                        return Err(SkeletonError::Offset {
                            bone: i,
                            name: name(),
                        });
                    }
                    o
                }
                None => Mat4::IDENTITY,
            };
            // Bind local = inverse(parent model) * model, in f64, decomposed.
            let local = match parent {
                NO_PARENT => model.as_dmat4(),
                p => s.bind_model[p as usize].as_dmat4().inverse() * model.as_dmat4(),
            };
            let (scale, rotation, translation) = if local.is_finite() {
                local.to_scale_rotation_translation()
            } else {
                (glam::DVec3::ONE, glam::DQuat::IDENTITY, glam::DVec3::ZERO)
            };
            let rotation = if rotation.is_finite() && rotation.length_squared() > 0.0 {
                rotation.normalize().as_quat()
            } else {
                Quat::IDENTITY
            };
            s.names.push(bone.name.clone());
            s.parents.push(parent);
            s.bind_model.push(model);
            s.bind_translations.push(translation.as_vec3().into());
            s.bind_rotations.push(rotation);
            s.bind_scales.push(scale.as_vec3().into());
            s.offsets.push(offset_matrix);
            s.skinned.push(offset.is_some());
        }
        Ok(s)
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.parents.len()
    }

    /// Always false: a skeleton has at least one bone.
    pub fn is_empty(&self) -> bool {
        self.parents.is_empty()
    }

    /// Name of each bone, as the `.mesh` gives it (not necessarily unique).
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// Parent of each bone, [`NO_PARENT`] for roots; always an earlier bone.
    pub fn parents(&self) -> &[u32] {
        &self.parents
    }

    /// Model-space bind transform of each bone (the `.mesh` `transform`).
    pub fn bind_model(&self) -> &[Mat4] {
        &self.bind_model
    }

    /// Skin offset of each bone; the identity for bones no skin uses.
    pub fn offsets(&self) -> &[Mat4] {
        &self.offsets
    }

    /// Whether a skin uses bone `b` (it has an offset).
    pub fn is_skinned(&self, b: usize) -> bool {
        self.skinned.get(b).copied().unwrap_or(false)
    }

    /// Index of the first bone called `name`.
    pub fn find(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name)
    }

    /// Bind-pose local transform of bone `b` (translation, rotation, scale), as the clip
    /// binding fills bones that have no track.
    pub fn bind_local(&self, b: usize) -> Option<(Vec3A, Quat, Vec3A)> {
        Some((
            *self.bind_translations.get(b)?,
            *self.bind_rotations.get(b)?,
            *self.bind_scales.get(b)?,
        ))
    }

    fn check(&self, pose: &Pose) -> Result<(), PoseMismatch> {
        if pose.len() == self.len() {
            Ok(())
        } else {
            Err(PoseMismatch {
                pose: pose.len(),
                skeleton: self.len(),
            })
        }
    }

    /// Sets the pose's local transforms to the bind pose, without allocating: how an engine
    /// resets a [`Pose`] it reuses before layering partial clips or procedural changes on it
    /// ([`Pose::new`] allocates). The model and skinning matrices are left as they were until
    /// the next [`Skeleton::update_model`].
    pub fn set_bind_pose(&self, pose: &mut Pose) -> Result<(), PoseMismatch> {
        self.check(pose)?;
        pose.translations.copy_from_slice(&self.bind_translations);
        pose.rotations.copy_from_slice(&self.bind_rotations);
        pose.scales.copy_from_slice(&self.bind_scales);
        Ok(())
    }

    /// Local → model: `model[b] = model[parent] * local[b]`, one pass in bone order (parents
    /// come first). No allocation.
    pub fn update_model(&self, pose: &mut Pose) -> Result<(), PoseMismatch> {
        self.check(pose)?;
        let Pose {
            translations,
            rotations,
            scales,
            model,
            ..
        } = pose;
        let n = model.len();
        let (t, r, s, parents) = (
            &translations[..n],
            &rotations[..n],
            &scales[..n],
            &self.parents[..n],
        );
        for i in 0..n {
            let [c0, c1, c2, c3] = local_columns(t[i], r[i], s[i]);
            let p = parents[i] as usize;
            // `p < i` was checked when the skeleton was built (roots have NO_PARENT).
            model[i] = if p < i {
                let pm = model[p];
                Mat4::from_cols(
                    pm.x_axis * c0.x + pm.y_axis * c0.y + pm.z_axis * c0.z,
                    pm.x_axis * c1.x + pm.y_axis * c1.y + pm.z_axis * c1.z,
                    pm.x_axis * c2.x + pm.y_axis * c2.y + pm.z_axis * c2.z,
                    pm.x_axis * c3.x + pm.y_axis * c3.y + pm.z_axis * c3.z + pm.w_axis,
                )
            } else {
                Mat4::from_cols(c0, c1, c2, c3)
            };
        }
        Ok(())
    }

    /// Skinning matrices: `skinning[b] = model[b] * offset[b]` (the engine's `offset × model`);
    /// bones no skin uses get their model matrix. No allocation.
    pub fn update_skinning(&self, pose: &mut Pose) -> Result<(), PoseMismatch> {
        self.check(pose)?;
        for ((out, m), o) in pose.skinning.iter_mut().zip(&pose.model).zip(&self.offsets) {
            *out = *m * *o;
        }
        Ok(())
    }
}

/// Columns of `translation · rotation · scale` (column vectors) for a unit quaternion:
/// glam's `from_scale_rotation_translation`, written out so the compiler keeps it in registers.
#[inline(always)]
fn local_columns(t: Vec3A, r: Quat, s: Vec3A) -> [Vec4; 4] {
    let (x, y, z, w) = (r.x, r.y, r.z, r.w);
    let (x2, y2, z2) = (x + x, y + y, z + z);
    let (xx, xy, xz) = (x * x2, x * y2, x * z2);
    let (yy, yz, zz) = (y * y2, y * z2, z * z2);
    let (wx, wy, wz) = (w * x2, w * y2, w * z2);
    [
        Vec4::new(1.0 - (yy + zz), xy + wz, xz - wy, 0.0) * s.x,
        Vec4::new(xy - wz, 1.0 - (xx + zz), yz + wx, 0.0) * s.y,
        Vec4::new(xz + wy, yz - wx, 1.0 - (xx + yy), 0.0) * s.z,
        Vec4::new(t.x, t.y, t.z, 1.0),
    ]
}

/// The state of one animated instance: local transforms in structure-of-arrays form, then
/// model-space and skinning matrices, one of each per bone. Made once per skeleton; every
/// per-frame job writes into it without allocating.
#[derive(Clone, Debug, PartialEq)]
pub struct Pose {
    pub(crate) translations: Vec<Vec3A>,
    pub(crate) rotations: Vec<Quat>,
    pub(crate) scales: Vec<Vec3A>,
    pub(crate) model: Vec<Mat4>,
    pub(crate) skinning: Vec<Mat4>,
}

impl Pose {
    /// A pose for `skeleton`, in its bind pose (model and skinning matrices computed).
    pub fn new(skeleton: &Skeleton) -> Pose {
        let n = skeleton.len();
        let mut pose = Pose {
            translations: skeleton.bind_translations.clone(),
            rotations: skeleton.bind_rotations.clone(),
            scales: skeleton.bind_scales.clone(),
            model: alloc::vec![Mat4::IDENTITY; n],
            skinning: alloc::vec![Mat4::IDENTITY; n],
        };
        // Sizes match by construction.
        let _ = skeleton.update_model(&mut pose);
        let _ = skeleton.update_skinning(&mut pose);
        pose
    }

    /// Number of bones.
    pub fn len(&self) -> usize {
        self.model.len()
    }

    /// Always false for a pose of a skeleton (at least one bone).
    pub fn is_empty(&self) -> bool {
        self.model.is_empty()
    }

    /// Local translations, one per bone.
    pub fn translations(&self) -> &[Vec3A] {
        &self.translations
    }

    /// Local rotations (unit quaternions), one per bone.
    pub fn rotations(&self) -> &[Quat] {
        &self.rotations
    }

    /// Local scales, one per bone.
    pub fn scales(&self) -> &[Vec3A] {
        &self.scales
    }

    /// Mutable local transforms (translations, rotations, scales), for poses made by hand or
    /// blended by the engine; [`Skeleton::update_model`] reads them.
    pub fn locals_mut(&mut self) -> (&mut [Vec3A], &mut [Quat], &mut [Vec3A]) {
        (
            &mut self.translations,
            &mut self.rotations,
            &mut self.scales,
        )
    }

    /// Model-space matrices of the last [`Skeleton::update_model`].
    pub fn model(&self) -> &[Mat4] {
        &self.model
    }

    /// Skinning matrices of the last [`Skeleton::update_skinning`].
    pub fn skinning(&self) -> &[Mat4] {
        &self.skinning
    }
}

/// Offsets a runtime reading classic files must assume, and what contradicts the assumption.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ClassicOffsets {
    /// One per bone; `None` for bones no vertex binds, or whose assumed offset is the identity.
    pub offsets: Vec<Option<Matrix>>,
    /// Bones that parts on differently placed nodes bind
    /// ([`BindWarning::ClassicOffsetConflict`]).
    pub warnings: Vec<BindWarning>,
}

/// The skin offsets of a classic `.mesh`, which cannot store them: a vertex of part `P` bound
/// to bone `b` is assumed to be in the space of `P`'s node and skinned in the pose the file
/// stores, so `offset[b] = inverse(bind[b]) · bind[P.boneIndex]` (column vectors; in the
/// engine's row vectors `bind[P] × inverse(bind[b])`). That is Assimp's offset whenever the
/// skin was bound in the nodes' default pose; it is the identity for rigidly bound vertices (a
/// part's own bone, kiln's `$kiln_rigid` helpers), so they draw with the model matrix. The
/// first part that binds a bone decides; a later part whose node gives another offset is
/// reported in the warnings (kiln's own `.mesh` files never do this: such skins get
/// `$kiln_skin` helper bones). See `docs/animation.md`.
pub fn classic_offsets(model: &Model) -> ClassicOffsets {
    let n = model.bones.len();
    let bind: Vec<DMat4> = model
        .bones
        .iter()
        .map(|b| Mat4::from_cols_array(&b.transform).as_dmat4())
        .collect();
    let mut offsets: Vec<Option<DMat4>> = alloc::vec![None; n];
    let mut decided_by: Vec<usize> = alloc::vec![usize::MAX; n];
    let mut warnings = Vec::new();
    for (p, part) in model.meshes.iter().enumerate() {
        let Some(part_bind) = usize::try_from(part.bone_index)
            .ok()
            .and_then(|b| bind.get(b))
        else {
            continue;
        };
        let mut seen = alloc::vec![false; n];
        for v in &part.vertices {
            for (&index, &weight) in v.blend_indices.iter().zip(&v.blend_weights) {
                let bound = weight > 0.0 && index >= 0.0;
                if !bound {
                    continue;
                }
                let b = index as usize;
                if b >= n || seen[b] {
                    continue;
                }
                seen[b] = true;
                let o = bind[b].inverse() * *part_bind;
                match offsets[b] {
                    None => {
                        offsets[b] = Some(o);
                        decided_by[b] = p;
                    }
                    Some(first) => {
                        let scale = first
                            .to_cols_array()
                            .iter()
                            .fold(1f64, |m, x| m.max(x.abs()));
                        let differs = first
                            .to_cols_array()
                            .iter()
                            .zip(o.to_cols_array().iter())
                            .any(|(a, b)| (a - b).abs() > 1e-5 * scale);
                        if differs {
                            warnings.push(BindWarning::ClassicOffsetConflict {
                                bone: b,
                                bone_name: model.bones[b].name.clone(),
                                first_part: decided_by[b],
                                part: p,
                                part_name: part.name.clone(),
                            });
                        }
                    }
                }
            }
        }
    }
    let offsets = offsets
        .into_iter()
        .map(|o| {
            o.filter(|o| !o.abs_diff_eq(DMat4::IDENTITY, 1e-6))
                .map(|o| o.as_mat4().to_cols_array())
        })
        .collect();
    ClassicOffsets { offsets, warnings }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use glam::Vec3;
    use kiln_format::{MeshPart, Vertex};

    fn bone(index: i32, parent: i32, m: Mat4) -> Bone {
        Bone {
            index,
            parent,
            name: alloc::format!("b{index}"),
            transform: m.to_cols_array(),
        }
    }

    fn chain() -> Vec<Bone> {
        let b0 = Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0));
        let b1 = b0 * Mat4::from_rotation_z(0.5) * Mat4::from_scale(Vec3::splat(2.0));
        let b2 = b1 * Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0));
        vec![bone(0, -1, b0), bone(1, 0, b1), bone(2, 1, b2)]
    }

    #[test]
    fn bind_pose_reproduces_the_file_transforms() {
        let bones = chain();
        let s = Skeleton::new(&bones, &[None, None, None]).unwrap();
        let pose = Pose::new(&s);
        for (m, b) in pose.model().iter().zip(&bones) {
            assert!(m.abs_diff_eq(Mat4::from_cols_array(&b.transform), 1e-5));
        }
        assert_eq!(pose.skinning(), pose.model());
        let (_, _, scale) = s.bind_local(1).unwrap();
        assert!(scale.abs_diff_eq(Vec3A::splat(2.0), 1e-6));
    }

    #[test]
    fn set_bind_pose_resets_the_locals_of_a_reused_pose() {
        let s = Skeleton::new(&chain(), &[None; 3]).unwrap();
        let bind = Pose::new(&s);
        let mut pose = bind.clone();
        let (t, r, sc) = pose.locals_mut();
        t[2] = Vec3A::splat(9.0);
        r[1] = Quat::from_rotation_y(1.0);
        sc[0] = Vec3A::splat(0.5);
        s.update_model(&mut pose).unwrap();
        s.set_bind_pose(&mut pose).unwrap();
        assert_eq!(pose.translations(), bind.translations());
        assert_eq!(pose.rotations(), bind.rotations());
        assert_eq!(pose.scales(), bind.scales());
        s.update_model(&mut pose).unwrap();
        s.update_skinning(&mut pose).unwrap();
        assert_eq!(pose, bind);
        let other = Skeleton::new(&chain()[..2], &[None; 2]).unwrap();
        let mut small = Pose::new(&other);
        assert_eq!(
            s.set_bind_pose(&mut small),
            Err(PoseMismatch {
                pose: 2,
                skeleton: 3
            })
        );
    }

    #[test]
    fn skinning_is_model_times_offset() {
        let bones = chain();
        let o = Mat4::from_translation(Vec3::new(3.0, 0.0, 0.0));
        let s = Skeleton::new(&bones, &[None, Some(o.to_cols_array()), None]).unwrap();
        let mut pose = Pose::new(&s);
        pose.locals_mut().1[1] = Quat::from_rotation_x(1.0);
        s.update_model(&mut pose).unwrap();
        s.update_skinning(&mut pose).unwrap();
        let want = pose.model()[1] * o;
        assert!(pose.skinning()[1].abs_diff_eq(want, 1e-6));
        // Row-vector reading of the same memory: v * offset * model.
        let v = Vec3::new(1.0, 2.0, 3.0);
        let by_rows = pose.model()[1].transform_point3(o.transform_point3(v));
        assert!(
            pose.skinning()[1]
                .transform_point3(v)
                .abs_diff_eq(by_rows, 1e-5)
        );
        assert!(s.is_skinned(1) && !s.is_skinned(0));
    }

    #[test]
    fn bad_skeletons_are_errors() {
        let mut bones = chain();
        bones[1].parent = 2;
        assert!(matches!(
            Skeleton::new(&bones, &[None; 3]),
            Err(SkeletonError::Parent { bone: 1, .. })
        ));
        let mut bones = chain();
        bones[2].index = 7;
        assert!(matches!(
            Skeleton::new(&bones, &[None; 3]),
            Err(SkeletonError::Index { .. })
        ));
        let mut bones = chain();
        bones[0].transform[3] = f32::NAN;
        assert!(matches!(
            Skeleton::new(&bones, &[None; 3]),
            Err(SkeletonError::Transform { .. })
        ));
        assert_eq!(
            Skeleton::new(&chain(), &[None; 2]),
            Err(SkeletonError::OffsetCount {
                offsets: 2,
                bones: 3
            })
        );
        assert_eq!(Skeleton::new(&[], &[]), Err(SkeletonError::Empty));
        let s = Skeleton::new(&chain(), &[None; 3]).unwrap();
        let other = Skeleton::new(&chain()[..2], &[None; 2]).unwrap();
        let mut pose = Pose::new(&other);
        assert_eq!(
            s.update_model(&mut pose),
            Err(PoseMismatch {
                pose: 2,
                skeleton: 3
            })
        );
    }

    #[test]
    fn classic_offsets_assume_the_part_node_space() {
        let mut bones = chain();
        bones.push(bone(
            3,
            0,
            Mat4::from_scale_rotation_translation(
                Vec3::splat(100.0),
                Quat::from_rotation_x(-1.0),
                Vec3::new(0.0, 4.0, 0.0),
            ),
        ));
        let v = |i: f32, w: f32| Vertex {
            blend_indices: [i, 3.0, 0.0, 0.0],
            blend_weights: [w, 1.0 - w, 0.0, 0.0],
            ..Vertex::default()
        };
        let model = Model {
            bones: bones.clone(),
            meshes: vec![MeshPart {
                name: "b3".into(),
                vertices: vec![v(1.0, 0.5), v(2.0, 1.0)],
                indices: vec![0, 1, 1],
                bone_index: 3,
                material_name: String::new(),
                morph_targets: Vec::new(),
            }],
        };
        let got = classic_offsets(&model);
        assert!(got.warnings.is_empty());
        let g = |b: usize| Mat4::from_cols_array(&bones[b].transform);
        let want = g(1).inverse() * g(3);
        let o1 = Mat4::from_cols_array(&got.offsets[1].unwrap());
        assert!(o1.abs_diff_eq(want, 1e-4), "{o1:?} {want:?}");
        assert!(got.offsets[2].is_some());
        // The part's own bone and unbound bones draw with their model matrix.
        assert_eq!((got.offsets[3], got.offsets[0]), (None, None));

        // A second part, on another node, binding bone 1 too: the first part decides.
        let mut two = model.clone();
        two.meshes.push(MeshPart {
            name: "b2".into(),
            vertices: vec![v(1.0, 1.0)],
            indices: vec![],
            bone_index: 2,
            material_name: String::new(),
            morph_targets: Vec::new(),
        });
        let got = classic_offsets(&two);
        assert_eq!(got.offsets[1], classic_offsets(&model).offsets[1]);
        assert_eq!(
            got.warnings,
            [BindWarning::ClassicOffsetConflict {
                bone: 1,
                bone_name: "b1".into(),
                first_part: 0,
                part: 1,
                part_name: "b2".into(),
            }]
        );
        assert_eq!(
            got.warnings[0].code(),
            crate::codes::CLASSIC_OFFSET_CONFLICT
        );
        assert_eq!(
            got.warnings[0].to_string(),
            "bone 1 ('b1'): parts 0 and 1 ('b2') sit on differently placed nodes; the offset of part 0 is used"
        );
    }
}
