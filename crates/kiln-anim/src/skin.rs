//! CPU skinning with the semantics of reference `002`'s HLSL `SkinWorld`: the reference the GPU
//! path is checked against.
//!
//! At `(clip, time)` the shader reads, for each of a vertex's four (index, weight) pairs, bone
//! `index`'s matrix at `curFrame` and at `nextFrame` from the baked texture, lerps them by the
//! fraction `time`, and sums them scaled by the weight; the position (w = 1) is multiplied by
//! that matrix and the normal and tangent by its upper 3×3 (not normalised). Because the lerp
//! and the weighted sum are both linear, lerping each bone's matrix once ([`palette`]) and then
//! blending per vertex ([`skin_vertices`]) gives the same numbers for a fraction of the work.
//!
//! Indices are the `.mesh`'s floats, converted as Direct3D converts float to int (truncated,
//! NaN to 0); an index that is not a bone of the palette reads a zero matrix, as Direct3D's
//! out-of-range `Load` does, and weights are used as stored (kiln's sum to 1). [`check_vertices`] reports such
//! vertices once, up front. Neither function allocates; split the vertex and output slices to
//! skin on several threads.

use glam::{Mat4, Vec4};
use kiln_format::Vertex;

use crate::bake::Bake;
use crate::sample::Wrap;

/// Why skinning could not run.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum SkinError {
    /// The clip index is not a layer of the bake.
    #[error("clip {clip}: the bake has {clips} clips")]
    NoSuchClip {
        /// The clip asked for.
        clip: usize,
        /// Clips the bake holds.
        clips: usize,
    },
    /// The palette slice does not hold one matrix per bone.
    #[error("a palette of {palette} matrices for {bones} bones")]
    PaletteSize {
        /// Matrices in the slice given.
        palette: usize,
        /// Bones of the bake.
        bones: usize,
    },
    /// An output slice does not hold one entry per vertex.
    #[error("{what}: {len} outputs for {vertices} vertices")]
    OutputSize {
        /// `positions`, `normals` or `tangents`.
        what: &'static str,
        /// Entries in the slice given.
        len: usize,
        /// Vertices to skin.
        vertices: usize,
    },
    /// A blend index that is not a bone of the palette (found by [`check_vertices`]).
    #[error("vertex {vertex}: blend index {index} is not a bone (the skeleton has {bones})")]
    BadIndex {
        /// Index of the vertex.
        vertex: usize,
        /// The blend index it holds.
        index: f32,
        /// Bones of the skeleton.
        bones: usize,
    },
    /// A blend weight that is NaN or infinite (found by [`check_vertices`]).
    #[error("vertex {vertex}: blend weight {weight} is not finite")]
    BadWeight {
        /// Index of the vertex.
        vertex: usize,
        /// The weight it holds.
        weight: f32,
    },
}

/// The per-bone matrices the shader would blend at `time` (in frames) of clip `clip`: each
/// bone's `lerp(M[current], M[next], t)` with the frames [`Wrap::frames`] picks. No allocation.
pub fn palette(
    bake: &Bake,
    clip: usize,
    time: f32,
    wrap: Wrap,
    out: &mut [Mat4],
) -> Result<(), SkinError> {
    let frames = *bake.frame_counts.get(clip).ok_or(SkinError::NoSuchClip {
        clip,
        clips: bake.frame_counts.len(),
    })?;
    let bones = bake.bone_count as usize;
    if out.len() != bones {
        return Err(SkinError::PaletteSize {
            palette: out.len(),
            bones,
        });
    }
    let pair = wrap.frames(time, frames);
    let (Some(cur), Some(next)) = (
        bake.row(clip, pair.current as usize),
        bake.row(clip, pair.next as usize),
    ) else {
        return Err(SkinError::NoSuchClip {
            clip,
            clips: bake.frame_counts.len(),
        });
    };
    let t = pair.t;
    for ((m, c), n) in out
        .iter_mut()
        .zip(cur.chunks_exact(4))
        .zip(next.chunks_exact(4))
    {
        let col = |r: usize| {
            let (a, b) = (Vec4::from(c[r]), Vec4::from(n[r]));
            // HLSL lerp(x, y, s) = x + s * (y - x).
            a + (b - a) * t
        };
        *m = Mat4::from_cols(col(0), col(1), col(2), col(3));
    }
    Ok(())
}

/// Checks every vertex's blend indices (bones of a skeleton of `bones`, for weights that are not
/// zero) and weights (finite), so a runtime can reject a mesh once instead of drawing garbage.
pub fn check_vertices(vertices: &[Vertex], bones: usize) -> Result<(), SkinError> {
    for (i, v) in vertices.iter().enumerate() {
        for (&index, &weight) in v.blend_indices.iter().zip(&v.blend_weights) {
            if !weight.is_finite() {
                return Err(SkinError::BadWeight { vertex: i, weight });
            }
            let ok = index >= 0.0 && (index as usize) < bones;
            if weight != 0.0 && !ok {
                return Err(SkinError::BadIndex {
                    vertex: i,
                    index,
                    bones,
                });
            }
        }
    }
    Ok(())
}

/// The output slices of [`skin_vertices`] for `n` vertices: `positions` one per vertex,
/// `normals` and `tangents` that or empty.
pub(crate) fn check_outputs(
    n: usize,
    positions: usize,
    normals: usize,
    tangents: usize,
) -> Result<(), SkinError> {
    for (what, len, optional) in [
        ("positions", positions, false),
        ("normals", normals, true),
        ("tangents", tangents, true),
    ] {
        if len != n && !(optional && len == 0) {
            return Err(SkinError::OutputSize {
                what,
                len,
                vertices: n,
            });
        }
    }
    Ok(())
}

/// Skins `vertices` with `palette`: positions (as points), and normals and tangents (upper 3×3,
/// not normalised) into the output slices of the same length. `normals` or `tangents` may be
/// empty to skip them. No allocation.
pub fn skin_vertices(
    palette: &[Mat4],
    vertices: &[Vertex],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
    tangents: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    check_outputs(
        vertices.len(),
        positions.len(),
        normals.len(),
        tangents.len(),
    )?;
    match (normals.is_empty(), tangents.is_empty()) {
        (false, false) => {
            for (((v, p), n), t) in vertices
                .iter()
                .zip(positions.iter_mut())
                .zip(normals.iter_mut())
                .zip(tangents.iter_mut())
            {
                let m = blend(palette, v);
                *p = transform_point(&m, v.position);
                *n = transform_vector(&m, v.normal);
                *t = transform_vector(&m, v.tangent);
            }
        }
        (true, true) => {
            for (v, p) in vertices.iter().zip(positions.iter_mut()) {
                *p = transform_point(&blend(palette, v), v.position);
            }
        }
        (no_normals, no_tangents) => {
            for (i, (v, p)) in vertices.iter().zip(positions.iter_mut()).enumerate() {
                let m = blend(palette, v);
                *p = transform_point(&m, v.position);
                if let Some(n) = normals.get_mut(i).filter(|_| !no_normals) {
                    *n = transform_vector(&m, v.normal);
                }
                if let Some(t) = tangents.get_mut(i).filter(|_| !no_tangents) {
                    *t = transform_vector(&m, v.tangent);
                }
            }
        }
    }
    Ok(())
}

/// Skins positions only (the cheapest path, for bounds or picking).
pub fn skin_positions(
    palette: &[Mat4],
    vertices: &[Vertex],
    positions: &mut [[f32; 3]],
) -> Result<(), SkinError> {
    skin_vertices(palette, vertices, positions, &mut [], &mut [])
}

/// `Σ wᵢ · palette[indexᵢ]`, a missing bone reading as zero.
#[inline(always)]
fn blend(palette: &[Mat4], v: &Vertex) -> Mat4 {
    #[inline(always)]
    fn bone(palette: &[Mat4], index: f32) -> Option<&Mat4> {
        // Direct3D's float-to-int conversion: truncation, NaN to 0, saturation. A negative
        // index, like one past the palette, then misses it and reads zero.
        let k = index as i32;
        if k >= 0 {
            palette.get(k as usize)
        } else {
            None
        }
    }
    let [i0, i1, i2, i3] = v.blend_indices;
    let [w0, w1, w2, w3] = v.blend_weights;
    let mut m = match bone(palette, i0) {
        Some(b) => *b * w0,
        None => Mat4::ZERO,
    };
    for (index, w) in [(i1, w1), (i2, w2), (i3, w3)] {
        if let Some(b) = bone(palette, index) {
            m.x_axis += b.x_axis * w;
            m.y_axis += b.y_axis * w;
            m.z_axis += b.z_axis * w;
            m.w_axis += b.w_axis * w;
        }
    }
    m
}

#[inline(always)]
fn transform_point(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
    let v = m.x_axis * p[0] + m.y_axis * p[1] + m.z_axis * p[2] + m.w_axis;
    [v.x, v.y, v.z]
}

#[inline(always)]
fn transform_vector(m: &Mat4, p: [f32; 3]) -> [f32; 3] {
    let v = m.x_axis * p[0] + m.y_axis * p[1] + m.z_axis * p[2];
    [v.x, v.y, v.z]
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use alloc::vec::Vec;
    use glam::{Quat, Vec3};

    fn bake_of(frames: &[[Mat4; 2]]) -> Bake {
        let texels: Vec<[f32; 4]> = frames
            .iter()
            .flat_map(|row| row.iter().flat_map(|m| m.to_cols_array_2d()))
            .collect();
        Bake {
            width: 8,
            height: frames.len() as u32,
            layers: 1,
            bone_count: 2,
            frame_counts: vec![frames.len() as u32],
            frame_rates: vec![30.0],
            clip_names: vec!["c".into()],
            texels,
        }
    }

    fn vertex(indices: [f32; 4], weights: [f32; 4]) -> Vertex {
        Vertex {
            position: [1.0, 2.0, 3.0],
            normal: [0.0, 1.0, 0.0],
            tangent: [1.0, 0.0, 0.0],
            blend_indices: indices,
            blend_weights: weights,
            ..Vertex::default()
        }
    }

    #[test]
    fn blends_four_bones_and_lerps_frames_like_the_shader() {
        let a0 = Mat4::from_translation(Vec3::new(10.0, 0.0, 0.0));
        let a1 = Mat4::from_translation(Vec3::new(20.0, 0.0, 0.0));
        let b0 = Mat4::from_rotation_z(core::f32::consts::FRAC_PI_2);
        let b1 = Mat4::from_scale(Vec3::splat(3.0));
        let bake = bake_of(&[[a0, b0], [a1, b1]]);
        let mut pal = [Mat4::ZERO; 2];
        palette(&bake, 0, 0.25, Wrap::Clamp, &mut pal).unwrap();
        let verts = [vertex([0.0, 1.0, 0.0, 0.0], [0.75, 0.25, 0.0, 0.0])];
        let (mut p, mut n, mut t) = ([[0.0; 3]], [[0.0; 3]], [[0.0; 3]]);
        skin_vertices(&pal, &verts, &mut p, &mut n, &mut t).unwrap();
        // The shader's formula, written out per influence.
        let v = Vec3::new(1.0, 2.0, 3.0);
        let lerp = |x: Mat4, y: Mat4| x + (y - x) * 0.25;
        let m = lerp(a0, a1) * 0.75 + lerp(b0, b1) * 0.25;
        let want = m.transform_point3(v);
        assert!(Vec3::from(p[0]).abs_diff_eq(want, 1e-5), "{p:?} {want}");
        assert!(Vec3::from(n[0]).abs_diff_eq(m.transform_vector3(Vec3::Y), 1e-6));
        assert!(Vec3::from(t[0]).abs_diff_eq(m.transform_vector3(Vec3::X), 1e-6));
        // Linear in time: a quarter of the way between the frame results.
        let at = |time: f32| {
            let mut pal = [Mat4::ZERO; 2];
            palette(&bake, 0, time, Wrap::Clamp, &mut pal).unwrap();
            let mut p = [[0.0; 3]];
            skin_positions(&pal, &verts, &mut p).unwrap();
            Vec3::from(p[0])
        };
        assert!(at(0.25).abs_diff_eq(at(0.0).lerp(at(1.0), 0.25), 1e-5));
        // Loop: past the last frame, back toward frame 0.
        palette(&bake, 0, 1.5, Wrap::Loop, &mut pal).unwrap();
        assert!(pal[0].abs_diff_eq(lerp(a1, a0) + (a0 - a1) * 0.25, 1e-5));
    }

    #[test]
    fn rigid_vertices_follow_their_bone_and_bad_indices_read_zero() {
        let r =
            Mat4::from_rotation_translation(Quat::from_rotation_x(0.3), Vec3::new(0.0, 5.0, 0.0));
        let bake = bake_of(&[[Mat4::IDENTITY, r]]);
        let mut pal = [Mat4::ZERO; 2];
        palette(&bake, 0, 0.0, Wrap::Clamp, &mut pal).unwrap();
        let verts = [
            vertex([1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
            vertex([7.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
        ];
        let mut p = [[0.0; 3]; 2];
        skin_positions(&pal, &verts, &mut p).unwrap();
        assert!(Vec3::from(p[0]).abs_diff_eq(r.transform_point3(Vec3::new(1.0, 2.0, 3.0)), 1e-5));
        assert_eq!(p[1], [0.0; 3]);
        assert_eq!(
            check_vertices(&verts, 2),
            Err(SkinError::BadIndex {
                vertex: 1,
                index: 7.0,
                bones: 2
            })
        );
        assert!(check_vertices(&verts[..1], 2).is_ok());
    }

    #[test]
    fn sizes_are_checked() {
        let bake = bake_of(&[[Mat4::IDENTITY, Mat4::IDENTITY]]);
        let mut pal = [Mat4::ZERO; 3];
        assert!(matches!(
            palette(&bake, 0, 0.0, Wrap::Clamp, &mut pal),
            Err(SkinError::PaletteSize { .. })
        ));
        assert!(matches!(
            palette(&bake, 4, 0.0, Wrap::Clamp, &mut pal[..2]),
            Err(SkinError::NoSuchClip { .. })
        ));
        let verts = [vertex([0.0; 4], [1.0, 0.0, 0.0, 0.0])];
        let mut p = [[0.0; 3]; 2];
        assert!(matches!(
            skin_positions(&pal, &verts, &mut p),
            Err(SkinError::OutputSize {
                what: "positions",
                ..
            })
        ));
    }
}
