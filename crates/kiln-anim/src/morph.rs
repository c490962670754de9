//! Blend shapes (morph targets) at run time: a channel's weight to its shapes' effective weights
//! with the semantics of ufbx 0.11 (`ufbxi_update_blend_channel`), and the deformation
//! `base + Σ effective weight × delta` of positions and normals, before or without skinning.
//!
//! **Data.** A [`MorphTarget`] is one FBX blend channel: one or more [`MorphShape`]s, each with
//! its full weight (FBX `FullWeights / 100`, ascending) and its deltas. One shape with full weight
//! 1 is a plain target; more are in-between shapes. Both types borrow their arrays, so they can
//! be laid over a file's data without copying; a shape is *sparse* (`vertices` lists the vertex
//! each delta moves) or *dense* (`vertices` empty: one delta per vertex of the mesh).
//!
//! **Weights.** [`shape_weights`] (and [`MorphTarget::active_shapes`]) place the channel weight
//! on the polyline through an implicit key `(0, nothing)` and the shapes' keys `(full weight,
//! shape)`: between two neighbouring keys the two shapes share it linearly, past the last key on
//! either side the nearest segment is extended, so at most two shapes of a target move a vertex.
//! See [`shape_weights`] for the exact rules, which include negative full weights.
//!
//! **Deformation.** [`apply_morphs`] writes `base + Σ_targets Σ_shapes w × delta` for positions,
//! and the same sum renormalised for normals; [`morph_and_skin`] does that and then the CPU
//! skinning of [`crate::skin`]. Neither allocates: the caller owns every buffer. A delta whose
//! vertex index is past the mesh is skipped, as ufbx's `ufbx_add_blend_shape_vertex_offsets`
//! skips it, and arrays that disagree in length are used as far as they pair up, so bad data
//! never panics; [`validate`] reports both once, up front, for a loader that would rather
//! reject the mesh. Tangents are not morphed (FBX shapes and ufbx carry no tangent deltas).

use alloc::vec::Vec;

use glam::Mat4;
use kiln_format::Vertex;

use crate::skin::{SkinError, skin_vertices};

/// One shape of a [`MorphTarget`]: the deltas that are added in full when the target's weight
/// reaches [`full_weight`](Self::full_weight).
///
/// A shape is *sparse* when [`vertices`](Self::vertices) is not empty: `positions[k]` (and
/// `normals[k]`) then move vertex `vertices[k]`. It is *dense* when `vertices` is empty:
/// `positions[v]` moves vertex `v`, one delta per vertex of the mesh. The full weight is kept
/// with the shape (not in a slice of its own beside the shapes) so the two cannot disagree in
/// length; the vertex list is per shape because FBX gives every shape its own `Indexes`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MorphShape<'a> {
    /// The target weight at which this shape applies in full: FBX `FullWeights[i] / 100` (1 for
    /// a plain target). The shapes of a target are sorted by it, ascending.
    pub full_weight: f32,
    /// The vertex each delta moves, ascending (for memory order; any order gives the same sums,
    /// and an index listed twice adds its deltas twice); empty for a dense shape (or, with no
    /// deltas either, a shape that moves nothing).
    pub vertices: &'a [u32],
    /// Position deltas: one per entry of `vertices`, or one per vertex for a dense shape.
    pub positions: &'a [[f32; 3]],
    /// Normal deltas, laid out as `positions`; empty where the shape moves no normal.
    pub normals: &'a [[f32; 3]],
}

/// One morph target (an FBX blend channel) of a mesh: its shapes, sorted by
/// [`MorphShape::full_weight`], ascending (as ufbx sorts a channel's keyframes).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct MorphTarget<'a> {
    /// The shapes, one for a plain target, more for in-between shapes.
    pub shapes: &'a [MorphShape<'a>],
}

impl MorphTarget<'_> {
    /// The shapes that the channel weight `weight` moves, with their effective weights, in
    /// ascending shape order: the non-zero entries of [`shape_weights`] over the shapes' full
    /// weights, so at most two. `[None, None]` where nothing moves.
    pub fn active_shapes(&self, weight: f32) -> [Option<(usize, f32)>; 2] {
        let shapes = self.shapes;
        segment(shapes.len(), |i| shapes[i].full_weight, weight)
    }
}

/// Why morphing could not run, or what [`validate`] found.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum MorphError {
    /// A buffer the caller passed does not hold the entries the call needs.
    #[error("{what}: expected {expected} entries, got {got}")]
    Length {
        /// Which buffer: `weights`, `base_normals`, `out_positions`, `out_normals` or `morphed`.
        what: &'static str,
        /// Entries it must hold (one per target for `weights`, one per vertex otherwise).
        expected: usize,
        /// Entries it holds.
        got: usize,
    },
    /// A shape's deltas do not pair up with its vertex list, or a dense shape's with the mesh
    /// (found by [`validate`]).
    #[error("target {target}, shape {shape}: {what} holds {got} deltas, expected {expected}")]
    ShapeLength {
        /// Index of the target.
        target: usize,
        /// Index of the shape in the target.
        shape: usize,
        /// `positions` or `normals`.
        what: &'static str,
        /// Entries it must hold (the shape's vertex list, or the mesh's vertices if dense).
        expected: usize,
        /// Entries it holds.
        got: usize,
    },
    /// A sparse shape moves a vertex the mesh does not have (found by [`validate`]).
    #[error("target {target}, shape {shape}: vertex {index} is past the mesh's {vertices}")]
    BadIndex {
        /// Index of the target.
        target: usize,
        /// Index of the shape in the target.
        shape: usize,
        /// The vertex index it holds.
        index: u32,
        /// Vertices of the mesh.
        vertices: usize,
    },
    /// A full weight that is not finite, or smaller than the one before it (found by
    /// [`validate`]).
    #[error(
        "target {target}, shape {shape}: full weight {full_weight} is not finite and ascending"
    )]
    FullWeight {
        /// Index of the target.
        target: usize,
        /// Index of the shape in the target.
        shape: usize,
        /// Its full weight.
        full_weight: f32,
    },
    /// Skinning the morphed vertices failed ([`morph_and_skin`]).
    #[error(transparent)]
    Skin(#[from] SkinError),
    /// A weight bake has no such clip ([`crate::WeightBake::sample`]).
    #[error("clip {clip} is not in the weight bake of {clips} clips")]
    NoSuchClip {
        /// The clip asked for.
        clip: usize,
        /// Clips (layers) of the bake.
        clips: usize,
    },
}

/// The shapes of every target of a `.mesh` part, borrowed as [`MorphShape`]s: one list per
/// target. Make the [`MorphTarget`]s over it with [`targets_of`]; both allocate, so do it once
/// per part when the mesh is loaded, not per frame.
pub fn part_shapes(part: &kiln_format::MeshPart) -> Vec<Vec<MorphShape<'_>>> {
    part.morph_targets
        .iter()
        .map(|t| {
            t.shapes
                .iter()
                .map(|s| MorphShape {
                    full_weight: s.full_weight,
                    vertices: &s.vertices,
                    positions: &s.positions,
                    normals: &s.normals,
                })
                .collect()
        })
        .collect()
}

/// One [`MorphTarget`] per list of [`part_shapes`].
pub fn targets_of<'a>(shapes: &'a [Vec<MorphShape<'a>>]) -> Vec<MorphTarget<'a>> {
    shapes.iter().map(|s| MorphTarget { shapes: s }).collect()
}

/// Part `part`'s target weights between two frames of `clip`, from the clip's tracks (not a
/// bake): each target's rest weight (`targets[i].default_weight`), replaced, for every weight
/// track of `clip` naming this part and a target it has, by `lerp(w[current], w[next], t)`
/// (HLSL's `x + t (y − x)`); a frame past a track's end reads its last value. `out` holds one
/// weight per target (extra entries are left as they are). No allocation.
pub fn track_weights(
    part: usize,
    targets: &[kiln_format::MorphTarget],
    clip: Option<&kiln_format::Clip>,
    current: usize,
    next: usize,
    t: f32,
    out: &mut [f32],
) {
    for (o, target) in out.iter_mut().zip(targets) {
        *o = target.default_weight;
    }
    let Some(clip) = clip else {
        return;
    };
    // A track of a target past `targets` is left out, however long `out` is.
    let n = out.len().min(targets.len());
    let out = &mut out[..n];
    for w in clip
        .weight_tracks
        .iter()
        .filter(|w| w.part as usize == part)
    {
        let (Some(slot), Some(&last)) = (out.get_mut(w.target as usize), w.weights.last()) else {
            continue;
        };
        let at = |f: usize| w.weights.get(f).copied().unwrap_or(last);
        let (x, y) = (at(current), at(next));
        *slot = x + (y - x) * t;
    }
}

/// The effective weight of each shape of one morph target whose shapes have the full weights
/// `full_weights` (ascending), at channel weight `weight` (FBX `DeformPercent / 100`: 0 is the
/// base mesh, 1 the plain target in full).
///
/// The semantics are ufbx 0.11's `ufbxi_update_blend_channel`. The keys are an implicit zero key
/// (weight 0, no shape) and one key per shape at its full weight. For `weight > 0` the keys
/// looked at are the zero key followed by the shapes whose full weight is not negative; the
/// weight falls between the first of them above it and the key before that, or, past the last,
/// between the last two (extrapolated). For `weight ≤ 0` they are the zero key followed by the
/// negative shapes walking down, with the first one below the weight, or the last two. Where one
/// side has no shape, the nearest shape on the other side and the zero key are used (so a plain
/// target's weight is the channel weight, for negative weights too). The two keys `a`, `b` of
/// that segment get `1 − t` and `t`, `t = (weight − a) / (b − a)`; the zero key's share is
/// dropped, and where `a = b` every weight stays 0. Computed in `f64`, as ufbx computes.
///
/// Unlike ufbx, a NaN `weight` gives all zeros (ufbx would give NaN to one or two shapes);
/// infinite weights give what ufbx gives (infinite weights). Full weights that are not
/// ascending are taken in the order given, as ufbx would take them.
///
/// `out` holds one weight per shape and should be as long as `full_weights`; a shorter `out`
/// gets the weights of the shapes that fit, and entries past `full_weights.len()` are set to 0.
/// No allocation.
pub fn shape_weights(full_weights: &[f32], weight: f32, out: &mut [f32]) {
    out.fill(0.0);
    for (shape, w) in segment(full_weights.len(), |i| full_weights[i], weight)
        .into_iter()
        .flatten()
    {
        if let Some(o) = out.get_mut(shape) {
            *o = w;
        }
    }
}

/// The (at most two) shapes of `n` whose keys `key(i)` (`0 ≤ i < n`) bracket `weight`, with
/// their non-zero effective weights, ascending by shape. See [`shape_weights`].
fn segment(n: usize, key: impl Fn(usize) -> f32, weight: f32) -> [Option<(usize, f32)>; 2] {
    if n == 0 || weight.is_nan() {
        return [None, None];
    }
    // Keys at `split..` are not negative: `split` is one past the last negative key (for an
    // ascending list, the number of negative keys).
    let split = (0..n).rposition(|i| key(i) < 0.0).map_or(0, |i| i + 1);
    // `(a, b)`: the segment's keys, `None` being the implicit key at 0, walking away from 0.
    let (a, b) = if weight > 0.0 {
        if split == n {
            // No key above zero: extend the segment from the last negative key to zero.
            (Some(n - 1), None)
        } else {
            let j = (split..n).find(|&i| key(i) > weight).unwrap_or(n - 1);
            ((j > split).then(|| j - 1), Some(j))
        }
    } else if split == 0 {
        // No key below zero: extend the segment from zero to the first key.
        (Some(0), None)
    } else {
        let j = (0..split).rev().find(|&i| key(i) < weight).unwrap_or(0);
        ((j + 1 < split).then_some(j + 1), Some(j))
    };
    let at = |k: Option<usize>| k.map_or(0.0, |i| f64::from(key(i)));
    let (ka, kb) = (at(a), at(b));
    let delta = kb - ka;
    if delta == 0.0 {
        return [None, None];
    }
    let t = (f64::from(weight) - ka) / delta;
    let pick = |k: Option<usize>, w: f64| k.map(|i| (i, w as f32)).filter(|&(_, w)| w != 0.0);
    let (a, b) = (pick(a, 1.0 - t), pick(b, t));
    // Ascending by shape, the order ufbx sums a channel's keyframes in.
    match (a, b) {
        (Some(x), Some(y)) if y.0 < x.0 => [Some(y), Some(x)],
        (None, y) => [y, None],
        (x, y) => [x, y],
    }
}

/// Checks `targets` against a mesh of `vertices` vertices: every target's full weights finite
/// and ascending, every shape's deltas as many as its vertex list (or, dense, as the mesh's
/// vertices; normals may be empty), every vertex index inside the mesh. A runtime that calls it
/// once when it loads a mesh knows that [`apply_morphs`] skips and truncates nothing.
pub fn validate(targets: &[MorphTarget], vertices: usize) -> Result<(), MorphError> {
    for (t, target) in targets.iter().enumerate() {
        let mut last = f32::NEG_INFINITY;
        for (s, shape) in target.shapes.iter().enumerate() {
            let full_weight = shape.full_weight;
            if !full_weight.is_finite() || full_weight < last {
                return Err(MorphError::FullWeight {
                    target: t,
                    shape: s,
                    full_weight,
                });
            }
            last = full_weight;
            // No vertices and no deltas: a shape that moves nothing (a sparse shape whose
            // vertices all went to other parts of its mesh).
            let expected = if shape.vertices.is_empty() && shape.positions.is_empty() {
                0
            } else if shape.vertices.is_empty() {
                vertices
            } else {
                shape.vertices.len()
            };
            for (what, got, optional) in [
                ("positions", shape.positions.len(), false),
                ("normals", shape.normals.len(), true),
            ] {
                if got != expected && !(optional && got == 0) {
                    return Err(MorphError::ShapeLength {
                        target: t,
                        shape: s,
                        what,
                        expected,
                        got,
                    });
                }
            }
            if let Some(&index) = shape.vertices.iter().find(|&&i| i as usize >= vertices) {
                return Err(MorphError::BadIndex {
                    target: t,
                    shape: s,
                    index,
                    vertices,
                });
            }
        }
    }
    Ok(())
}

/// Morphs a mesh: `out_positions = base_positions + Σ w × position delta` and `out_normals =
/// normalise(base_normals + Σ w × normal delta)` over every target and shape, `w` being the
/// shape's effective weight at the target's entry of `weights` (one channel weight per target,
/// see [`shape_weights`]). Shapes of effective weight 0 are skipped.
///
/// `out_positions` must hold one entry per base position. `out_normals` may be empty to skip
/// normals (then `base_normals` is not read); otherwise it and `base_normals` hold one per
/// vertex. Every output normal is renormalised, touched or not (so a weight moving off 0 does
/// not make the base normals jump); one whose squared length is 0, not finite or underflows is
/// left as summed.
///
/// Shape data is not checked here (see [`validate`]): a delta whose vertex is past the mesh is
/// skipped, and a shape's deltas and vertex list (or a dense shape's deltas and the mesh) are
/// used as far as they pair up. Errors are only about the caller's buffers, checked before
/// anything is written. No allocation.
pub fn apply_morphs(
    base_positions: &[[f32; 3]],
    base_normals: &[[f32; 3]],
    targets: &[MorphTarget],
    weights: &[f32],
    out_positions: &mut [[f32; 3]],
    out_normals: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let n = base_positions.len();
    check_length("weights", targets.len(), weights.len())?;
    check_length("out_positions", n, out_positions.len())?;
    let normals = !out_normals.is_empty();
    if normals {
        check_length("out_normals", n, out_normals.len())?;
        check_length("base_normals", n, base_normals.len())?;
    }
    out_positions.copy_from_slice(base_positions);
    if normals {
        out_normals.copy_from_slice(base_normals);
    }
    morph_in_place(targets, weights, out_positions, out_normals);
    Ok(())
}

/// Morphs `vertices` with `targets` at `weights` (as [`apply_morphs`]: positions, and normals
/// unless `normals` is empty) into `morphed`, then skins `morphed` with `palette` into
/// `positions`, `normals` and `tangents` with [`skin_vertices`] (whose rules for the outputs and
/// the palette apply). `morphed` is the caller's scratch, one entry per vertex: afterwards it
/// holds the morphed, unskinned vertices (tangents and blend data copied unchanged). The
/// outputs' sizes are checked before anything is written. No allocation; call it per frame with
/// the engine's own buffers.
#[allow(clippy::too_many_arguments)] // the buffers of `apply_morphs` and `skin_vertices`
pub fn morph_and_skin(
    palette: &[Mat4],
    vertices: &[Vertex],
    targets: &[MorphTarget],
    weights: &[f32],
    morphed: &mut [Vertex],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
    tangents: &mut [[f32; 3]],
) -> Result<(), MorphError> {
    let n = vertices.len();
    check_length("weights", targets.len(), weights.len())?;
    check_length("morphed", n, morphed.len())?;
    crate::skin::check_outputs(n, positions.len(), normals.len(), tangents.len())?;
    // The skin's outputs hold the morph first: the sparse adds then walk 12-byte entries, not
    // whole vertices, and stay in cache.
    for (p, v) in positions.iter_mut().zip(vertices) {
        *p = v.position;
    }
    for (o, v) in normals.iter_mut().zip(vertices) {
        *o = v.normal;
    }
    morph_in_place(targets, weights, positions, normals);
    morphed.copy_from_slice(vertices);
    for (m, p) in morphed.iter_mut().zip(positions.iter()) {
        m.position = *p;
    }
    for (m, o) in morphed.iter_mut().zip(normals.iter()) {
        m.normal = *o;
    }
    skin_vertices(palette, morphed, positions, normals, tangents)?;
    Ok(())
}

/// Adds the targets' deltas to `positions` and `normals` (which hold the base; `normals` may be
/// empty) and renormalises the normals.
fn morph_in_place(
    targets: &[MorphTarget],
    weights: &[f32],
    positions: &mut [[f32; 3]],
    normals: &mut [[f32; 3]],
) {
    add_deltas(positions, targets, weights, |s| s.positions);
    if !normals.is_empty() {
        add_deltas(normals, targets, weights, |s| s.normals);
        normalise(normals);
    }
}

fn check_length(what: &'static str, expected: usize, got: usize) -> Result<(), MorphError> {
    if expected == got {
        Ok(())
    } else {
        Err(MorphError::Length {
            what,
            expected,
            got,
        })
    }
}

/// Adds every active shape's deltas (`deltas(shape)`) to `out`, sparse or dense.
#[inline(always)]
fn add_deltas<'a>(
    out: &mut [[f32; 3]],
    targets: &[MorphTarget<'a>],
    weights: &[f32],
    deltas: impl Fn(&MorphShape<'a>) -> &'a [[f32; 3]],
) {
    for (target, &weight) in targets.iter().zip(weights) {
        for (s, w) in target.active_shapes(weight).into_iter().flatten() {
            let Some(shape) = target.shapes.get(s) else {
                continue;
            };
            let d = deltas(shape);
            if shape.vertices.is_empty() {
                for (o, d) in out.iter_mut().zip(d) {
                    add(o, d, w);
                }
            } else {
                for (&i, d) in shape.vertices.iter().zip(d) {
                    if let Some(o) = out.get_mut(i as usize) {
                        add(o, d, w);
                    }
                }
            }
        }
    }
}

#[inline(always)]
fn add(o: &mut [f32; 3], d: &[f32; 3], w: f32) {
    o[0] += w * d[0];
    o[1] += w * d[1];
    o[2] += w * d[2];
}

/// Scales every vector to unit length where its squared length is positive and finite.
fn normalise(out: &mut [[f32; 3]]) {
    for n in out {
        let len2 = n[0] * n[0] + n[1] * n[1] + n[2] * n[2];
        if len2 > 0.0 && len2.is_finite() {
            let len = libm::sqrtf(len2);
            n[0] /= len;
            n[1] /= len;
            n[2] /= len;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use alloc::vec::Vec;
    use glam::{Quat, Vec3};
    use proptest::prelude::*;

    fn weights_of(full: &[f32], weight: f32) -> Vec<f32> {
        let mut out = vec![f32::NAN; full.len()];
        shape_weights(full, weight, &mut out);
        out
    }

    fn close(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol * b.abs().max(1.0)
    }

    /// An in-between target: shape 0 at 0.5 lifts vertex 0 by 1 in y, shape 1 at 1.0 moves it
    /// to (0, 0, 1) in z: the polyline (0 → 0, 0.5 → y, 1.0 → z), extended at both ends.
    #[test]
    fn in_between_weights_match_hand_computed_values() {
        let full = [0.5, 1.0];
        for (weight, want) in [
            (0.25, [0.5, 0.0]),
            (0.5, [1.0, 0.0]),
            (0.75, [0.5, 0.5]),
            (1.0, [0.0, 1.0]),
            (1.5, [-1.0, 2.0]),
            (-0.5, [-1.0, 0.0]),
            (0.0, [0.0, 0.0]),
        ] {
            assert_eq!(weights_of(&full, weight), want, "weight {weight}");
        }
        let d0 = [[0.0, 1.0, 0.0]];
        let d1 = [[0.0, 0.0, 1.0]];
        let shapes = [
            MorphShape {
                full_weight: 0.5,
                vertices: &[0],
                positions: &d0,
                normals: &[],
            },
            MorphShape {
                full_weight: 1.0,
                vertices: &[0],
                positions: &d1,
                normals: &[],
            },
        ];
        let targets = [MorphTarget { shapes: &shapes }];
        assert_eq!(
            targets[0].active_shapes(0.75),
            [Some((0, 0.5)), Some((1, 0.5))]
        );
        assert_eq!(targets[0].active_shapes(0.5), [Some((0, 1.0)), None]);
        assert_eq!(targets[0].active_shapes(-0.5), [Some((0, -1.0)), None]);
        let base = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]];
        let mut out = [[0.0; 3]; 2];
        for (weight, want) in [
            (0.25, [1.0, 2.5, 3.0]),
            (0.75, [1.0, 2.5, 3.5]),
            (1.5, [1.0, 1.0, 5.0]),
            (-0.5, [1.0, 1.0, 3.0]),
        ] {
            apply_morphs(&base, &[], &targets, &[weight], &mut out, &mut []).unwrap();
            assert_eq!(out, [want, [4.0, 5.0, 6.0]], "weight {weight}");
        }
    }

    #[test]
    fn a_single_shape_takes_the_channel_weight() {
        for w in [0.0, 0.3, 1.0, 2.5, -0.7, -3.0] {
            assert_eq!(weights_of(&[1.0], w), [w]);
        }
        // A plain target at another full weight scales: the segment from 0 to its key.
        assert_eq!(weights_of(&[0.5], 0.25), [0.5]);
        assert_eq!(weights_of(&[2.0], -1.0), [-0.5]);
        // A key at 0 cannot be reached from the zero key: nothing moves.
        assert_eq!(weights_of(&[0.0], 0.5), [0.0]);
        assert_eq!(weights_of(&[], 0.5), [] as [f32; 0]);
    }

    #[test]
    fn negative_full_weights_extend_toward_the_other_side() {
        let full = [-1.0, 1.0];
        assert_eq!(weights_of(&full, -0.5), [0.5, 0.0]);
        assert_eq!(weights_of(&full, -2.0), [2.0, 0.0]);
        assert_eq!(weights_of(&full, 0.5), [0.0, 0.5]);
        assert_eq!(weights_of(&full, 0.0), [0.0, 0.0]);
        // Only a negative key: the segment from it to zero, extended past zero.
        assert_eq!(weights_of(&[-1.0], 0.5), [-0.5]);
        // Two negative keys: walking down from zero.
        assert_eq!(weights_of(&[-1.0, -0.5], -0.75), [0.5, 0.5]);
        assert_eq!(weights_of(&[-1.0, -0.5], -0.25), [0.0, 0.5]);
        assert_eq!(weights_of(&[-1.0, -0.5], -1.5), [2.0, -1.0]);
    }

    /// What ufbx 0.11.5 itself computes: each row was one `BlendShapeChannel` (`DeformPercent`
    /// = 100 × weight, `FullWeights` = 100 × the keys, one `Shape` per key) of an ASCII FBX read
    /// with `ufbx::load_memory`, its keyframes' `effective_weight` printed as f32. Twelve key
    /// lists (in-betweens, negative, duplicate and zero full weights) at twelve weights.
    #[test]
    fn values_ufbx_computes() {
        for (full, weight, want) in UFBX_CASES {
            assert_eq!(weights_of(full, *weight), *want, "{full:?} at {weight}");
        }
    }

    #[rustfmt::skip]
    const UFBX_CASES: &[(&[f32], f32, &[f32])] = &[
        (&[0.5, 1.0], 0.25, &[0.5, 0.0]),
        (&[0.5, 1.0], 0.5, &[1.0, 0.0]),
        (&[0.5, 1.0], 0.75, &[0.5, 0.5]),
        (&[0.5, 1.0], 1.0, &[0.0, 1.0]),
        (&[0.5, 1.0], 1.5, &[-1.0, 2.0]),
        (&[0.5, 1.0], -0.5, &[-1.0, 0.0]),
        (&[0.5, 1.0], 0.0, &[0.0, 0.0]),
        (&[0.5, 1.0], -2.0, &[-4.0, 0.0]),
        (&[0.5, 1.0], 0.125, &[0.25, 0.0]),
        (&[0.5, 1.0], 3.0, &[-4.0, 5.0]),
        (&[0.5, 1.0], -0.75, &[-1.5, 0.0]),
        (&[0.5, 1.0], 0.375, &[0.75, 0.0]),
        (&[1.0], 0.25, &[0.25]),
        (&[1.0], 0.5, &[0.5]),
        (&[1.0], 0.75, &[0.75]),
        (&[1.0], 1.0, &[1.0]),
        (&[1.0], 1.5, &[1.5]),
        (&[1.0], -0.5, &[-0.5]),
        (&[1.0], 0.0, &[0.0]),
        (&[1.0], -2.0, &[-2.0]),
        (&[1.0], 0.125, &[0.125]),
        (&[1.0], 3.0, &[3.0]),
        (&[1.0], -0.75, &[-0.75]),
        (&[1.0], 0.375, &[0.375]),
        (&[0.5], 0.25, &[0.5]),
        (&[0.5], 0.5, &[1.0]),
        (&[0.5], 0.75, &[1.5]),
        (&[0.5], 1.0, &[2.0]),
        (&[0.5], 1.5, &[3.0]),
        (&[0.5], -0.5, &[-1.0]),
        (&[0.5], 0.0, &[0.0]),
        (&[0.5], -2.0, &[-4.0]),
        (&[0.5], 0.125, &[0.25]),
        (&[0.5], 3.0, &[6.0]),
        (&[0.5], -0.75, &[-1.5]),
        (&[0.5], 0.375, &[0.75]),
        (&[2.0], 0.25, &[0.125]),
        (&[2.0], 0.5, &[0.25]),
        (&[2.0], 0.75, &[0.375]),
        (&[2.0], 1.0, &[0.5]),
        (&[2.0], 1.5, &[0.75]),
        (&[2.0], -0.5, &[-0.25]),
        (&[2.0], 0.0, &[0.0]),
        (&[2.0], -2.0, &[-1.0]),
        (&[2.0], 0.125, &[0.0625]),
        (&[2.0], 3.0, &[1.5]),
        (&[2.0], -0.75, &[-0.375]),
        (&[2.0], 0.375, &[0.1875]),
        (&[0.0], 0.25, &[0.0]),
        (&[0.0], 0.5, &[0.0]),
        (&[0.0], 0.75, &[0.0]),
        (&[0.0], 1.0, &[0.0]),
        (&[0.0], 1.5, &[0.0]),
        (&[0.0], -0.5, &[0.0]),
        (&[0.0], 0.0, &[0.0]),
        (&[0.0], -2.0, &[0.0]),
        (&[0.0], 0.125, &[0.0]),
        (&[0.0], 3.0, &[0.0]),
        (&[0.0], -0.75, &[0.0]),
        (&[0.0], 0.375, &[0.0]),
        (&[-1.0, 1.0], 0.25, &[0.0, 0.25]),
        (&[-1.0, 1.0], 0.5, &[0.0, 0.5]),
        (&[-1.0, 1.0], 0.75, &[0.0, 0.75]),
        (&[-1.0, 1.0], 1.0, &[0.0, 1.0]),
        (&[-1.0, 1.0], 1.5, &[0.0, 1.5]),
        (&[-1.0, 1.0], -0.5, &[0.5, 0.0]),
        (&[-1.0, 1.0], 0.0, &[-0.0, 0.0]),
        (&[-1.0, 1.0], -2.0, &[2.0, 0.0]),
        (&[-1.0, 1.0], 0.125, &[0.0, 0.125]),
        (&[-1.0, 1.0], 3.0, &[0.0, 3.0]),
        (&[-1.0, 1.0], -0.75, &[0.75, 0.0]),
        (&[-1.0, 1.0], 0.375, &[0.0, 0.375]),
        (&[-1.0], 0.25, &[-0.25]),
        (&[-1.0], 0.5, &[-0.5]),
        (&[-1.0], 0.75, &[-0.75]),
        (&[-1.0], 1.0, &[-1.0]),
        (&[-1.0], 1.5, &[-1.5]),
        (&[-1.0], -0.5, &[0.5]),
        (&[-1.0], 0.0, &[-0.0]),
        (&[-1.0], -2.0, &[2.0]),
        (&[-1.0], 0.125, &[-0.125]),
        (&[-1.0], 3.0, &[-3.0]),
        (&[-1.0], -0.75, &[0.75]),
        (&[-1.0], 0.375, &[-0.375]),
        (&[-1.0, -0.5], 0.25, &[0.0, -0.5]),
        (&[-1.0, -0.5], 0.5, &[0.0, -1.0]),
        (&[-1.0, -0.5], 0.75, &[0.0, -1.5]),
        (&[-1.0, -0.5], 1.0, &[0.0, -2.0]),
        (&[-1.0, -0.5], 1.5, &[0.0, -3.0]),
        (&[-1.0, -0.5], -0.5, &[-0.0, 1.0]),
        (&[-1.0, -0.5], 0.0, &[0.0, -0.0]),
        (&[-1.0, -0.5], -2.0, &[3.0, -2.0]),
        (&[-1.0, -0.5], 0.125, &[0.0, -0.25]),
        (&[-1.0, -0.5], 3.0, &[0.0, -6.0]),
        (&[-1.0, -0.5], -0.75, &[0.5, 0.5]),
        (&[-1.0, -0.5], 0.375, &[0.0, -0.75]),
        (&[0.25, 0.5, 1.0], 0.25, &[1.0, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], 0.5, &[0.0, 1.0, 0.0]),
        (&[0.25, 0.5, 1.0], 0.75, &[0.0, 0.5, 0.5]),
        (&[0.25, 0.5, 1.0], 1.0, &[0.0, 0.0, 1.0]),
        (&[0.25, 0.5, 1.0], 1.5, &[0.0, -1.0, 2.0]),
        (&[0.25, 0.5, 1.0], -0.5, &[-2.0, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], 0.0, &[0.0, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], -2.0, &[-8.0, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], 0.125, &[0.5, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], 3.0, &[0.0, -4.0, 5.0]),
        (&[0.25, 0.5, 1.0], -0.75, &[-3.0, 0.0, 0.0]),
        (&[0.25, 0.5, 1.0], 0.375, &[0.5, 0.5, 0.0]),
        (&[-0.5, 0.25, 0.75], 0.25, &[0.0, 1.0, 0.0]),
        (&[-0.5, 0.25, 0.75], 0.5, &[0.0, 0.5, 0.5]),
        (&[-0.5, 0.25, 0.75], 0.75, &[0.0, 0.0, 1.0]),
        (&[-0.5, 0.25, 0.75], 1.0, &[0.0, -0.5, 1.5]),
        (&[-0.5, 0.25, 0.75], 1.5, &[0.0, -1.5, 2.5]),
        (&[-0.5, 0.25, 0.75], -0.5, &[1.0, 0.0, 0.0]),
        (&[-0.5, 0.25, 0.75], 0.0, &[-0.0, 0.0, 0.0]),
        (&[-0.5, 0.25, 0.75], -2.0, &[4.0, 0.0, 0.0]),
        (&[-0.5, 0.25, 0.75], 0.125, &[0.0, 0.5, 0.0]),
        (&[-0.5, 0.25, 0.75], 3.0, &[0.0, -4.5, 5.5]),
        (&[-0.5, 0.25, 0.75], -0.75, &[1.5, 0.0, 0.0]),
        (&[-0.5, 0.25, 0.75], 0.375, &[0.0, 0.75, 0.25]),
        (&[0.5, 0.5, 1.0], 0.25, &[0.5, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], 0.5, &[0.0, 1.0, 0.0]),
        (&[0.5, 0.5, 1.0], 0.75, &[0.0, 0.5, 0.5]),
        (&[0.5, 0.5, 1.0], 1.0, &[0.0, 0.0, 1.0]),
        (&[0.5, 0.5, 1.0], 1.5, &[0.0, -1.0, 2.0]),
        (&[0.5, 0.5, 1.0], -0.5, &[-1.0, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], 0.0, &[0.0, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], -2.0, &[-4.0, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], 0.125, &[0.25, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], 3.0, &[0.0, -4.0, 5.0]),
        (&[0.5, 0.5, 1.0], -0.75, &[-1.5, 0.0, 0.0]),
        (&[0.5, 0.5, 1.0], 0.375, &[0.75, 0.0, 0.0]),
        (&[0.0, 1.0], 0.25, &[0.75, 0.25]),
        (&[0.0, 1.0], 0.5, &[0.5, 0.5]),
        (&[0.0, 1.0], 0.75, &[0.25, 0.75]),
        (&[0.0, 1.0], 1.0, &[0.0, 1.0]),
        (&[0.0, 1.0], 1.5, &[-0.5, 1.5]),
        (&[0.0, 1.0], -0.5, &[0.0, 0.0]),
        (&[0.0, 1.0], 0.0, &[0.0, 0.0]),
        (&[0.0, 1.0], -2.0, &[0.0, 0.0]),
        (&[0.0, 1.0], 0.125, &[0.875, 0.125]),
        (&[0.0, 1.0], 3.0, &[-2.0, 3.0]),
        (&[0.0, 1.0], -0.75, &[0.0, 0.0]),
        (&[0.0, 1.0], 0.375, &[0.625, 0.375]),
    ];

    #[test]
    fn nan_weight_moves_nothing() {
        assert_eq!(weights_of(&[1.0], f32::NAN), [0.0]);
        assert_eq!(weights_of(&[-1.0, 0.5, 1.0], f32::NAN), [0.0; 3]);
        let d = [[1.0, 1.0, 1.0]];
        let shapes = [MorphShape {
            full_weight: 1.0,
            vertices: &[0],
            positions: &d,
            normals: &d,
        }];
        let targets = [MorphTarget { shapes: &shapes }];
        let (mut p, mut n) = ([[0.0; 3]], [[0.0; 3]]);
        apply_morphs(
            &[[1.0, 2.0, 3.0]],
            &[[0.0, 0.0, 2.0]],
            &targets,
            &[f32::NAN],
            &mut p,
            &mut n,
        )
        .unwrap();
        assert_eq!((p, n), ([[1.0, 2.0, 3.0]], [[0.0, 0.0, 1.0]]));
    }

    #[test]
    fn shape_weights_fills_what_fits() {
        let mut short = [9.0];
        shape_weights(&[0.5, 1.0], 0.75, &mut short);
        assert_eq!(short, [0.5]);
        let mut long = [9.0; 4];
        shape_weights(&[0.5, 1.0], 0.75, &mut long);
        assert_eq!(long, [0.5, 0.5, 0.0, 0.0]);
    }

    /// A mesh of 6 vertices, two targets (one with an in-between), sparse and the same deltas
    /// spread out dense.
    #[test]
    fn dense_and_sparse_give_the_same_result() {
        let n = 6;
        let base: Vec<[f32; 3]> = (0..n).map(|i| [i as f32, 1.0, -2.0]).collect();
        let base_n: Vec<[f32; 3]> = (0..n).map(|_| [0.0, 1.0, 0.0]).collect();
        let idx: [&[u32]; 3] = [&[1, 4], &[0, 4, 5], &[2]];
        let dp = |k: usize, j: usize| [0.5 * k as f32 + 0.1, j as f32 - 1.0, 0.25];
        let dn = |k: usize, j: usize| [0.1 * (k + j) as f32, 0.0, 0.3];
        let sp: Vec<Vec<[f32; 3]>> = (0..3)
            .map(|k| (0..idx[k].len()).map(|j| dp(k, j)).collect())
            .collect();
        let sn: Vec<Vec<[f32; 3]>> = (0..3)
            .map(|k| (0..idx[k].len()).map(|j| dn(k, j)).collect())
            .collect();
        let spread = |k: usize, d: &dyn Fn(usize, usize) -> [f32; 3]| {
            let mut v = vec![[0.0; 3]; n];
            for (j, &i) in idx[k].iter().enumerate() {
                v[i as usize] = d(k, j);
            }
            v
        };
        let dpd: Vec<_> = (0..3).map(|k| spread(k, &dp)).collect();
        let dnd: Vec<_> = (0..3).map(|k| spread(k, &dn)).collect();
        let full = [0.4, 1.0, 1.0];
        let shape = |k: usize, dense: bool| MorphShape {
            full_weight: full[k],
            vertices: if dense { &[] } else { idx[k] },
            positions: if dense { &dpd[k] } else { &sp[k] },
            normals: if dense { &dnd[k] } else { &sn[k] },
        };
        let sparse = [shape(0, false), shape(1, false), shape(2, false)];
        let dense = [shape(0, true), shape(1, true), shape(2, true)];
        let pair = |a: &'static str, b: &'static str| {
            let pick = |k: &str| if k == "dense" { &dense } else { &sparse };
            [
                MorphTarget {
                    shapes: &pick(a)[..2],
                },
                MorphTarget {
                    shapes: &pick(b)[2..],
                },
            ]
        };
        for weights in [[0.7, 0.3], [0.2, 1.0], [1.3, -0.5], [0.0, 0.0]] {
            let mut results = Vec::new();
            for (a, b) in [
                ("sparse", "sparse"),
                ("dense", "dense"),
                ("dense", "sparse"),
            ] {
                let targets = pair(a, b);
                assert_eq!(validate(&targets, n), Ok(()));
                let (mut p, mut nr) = (vec![[0.0; 3]; n], vec![[0.0; 3]; n]);
                apply_morphs(&base, &base_n, &targets, &weights, &mut p, &mut nr).unwrap();
                results.push((p, nr));
            }
            assert_eq!(results[0], results[1], "{weights:?}");
            assert_eq!(results[0], results[2], "{weights:?}");
            // And the value, by hand, for vertex 4 (delta 1 of shapes 0 and 1 of target 0).
            let mut e = [0.0; 2];
            shape_weights(&full[..2], weights[0], &mut e);
            let want: [f32; 3] =
                core::array::from_fn(|c| base[4][c] + e[0] * dp(0, 1)[c] + e[1] * dp(1, 1)[c]);
            let got = results[0].0[4];
            assert!(
                (0..3).all(|c| close(got[c], want[c], 1e-6)),
                "{got:?} {want:?}"
            );
        }
    }

    #[test]
    fn out_of_range_indices_are_skipped_and_validate_reports_them() {
        let d = [[1.0, 0.0, 0.0], [2.0, 0.0, 0.0], [3.0, 0.0, 0.0]];
        let shapes = [MorphShape {
            full_weight: 1.0,
            vertices: &[1, 7, u32::MAX],
            positions: &d,
            normals: &d,
        }];
        let targets = [MorphTarget { shapes: &shapes }];
        let base = [[0.0; 3]; 2];
        let base_n = [[0.0, 1.0, 0.0]; 2];
        let (mut p, mut n) = ([[9.0; 3]; 2], [[9.0; 3]; 2]);
        apply_morphs(&base, &base_n, &targets, &[1.0], &mut p, &mut n).unwrap();
        assert_eq!(p, [[0.0; 3], [1.0, 0.0, 0.0]]);
        let s = core::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(n[0], [0.0, 1.0, 0.0]);
        assert!(close(n[1][0], s, 1e-6) && close(n[1][1], s, 1e-6) && n[1][2] == 0.0);
        assert_eq!(
            validate(&targets, 2),
            Err(MorphError::BadIndex {
                target: 0,
                shape: 0,
                index: 7,
                vertices: 2
            })
        );
        // Deltas that do not pair up: used as far as they go, reported by `validate`.
        let short = [MorphShape {
            full_weight: 1.0,
            vertices: &[0, 1],
            positions: &d[..1],
            normals: &[],
        }];
        let dense_long = [MorphShape {
            full_weight: 1.0,
            vertices: &[],
            positions: &d,
            normals: &d[..1],
        }];
        for (shapes, err) in [
            (&short, ("positions", 2, 1)),
            (&dense_long, ("positions", 2, 3)),
        ] {
            let targets = [MorphTarget { shapes }];
            apply_morphs(&base, &[], &targets, &[1.0], &mut p, &mut []).unwrap();
            assert_eq!(p[0], [1.0, 0.0, 0.0]);
            assert_eq!(
                validate(&targets, 2),
                Err(MorphError::ShapeLength {
                    target: 0,
                    shape: 0,
                    what: err.0,
                    expected: err.1,
                    got: err.2
                })
            );
        }
        let unsorted = [
            MorphShape {
                full_weight: 1.0,
                ..MorphShape::default()
            },
            MorphShape {
                full_weight: 0.5,
                ..MorphShape::default()
            },
        ];
        let e = validate(&[MorphTarget { shapes: &unsorted }], 0).unwrap_err();
        assert_eq!(
            e.to_string(),
            "target 0, shape 1: full weight 0.5 is not finite and ascending"
        );
    }

    #[test]
    fn normals_are_summed_then_renormalised() {
        let dn = [[0.0, -1.0, 0.0], [0.0, 0.0, 3.0]];
        let dp = [[0.0; 3]; 2];
        let shapes = [MorphShape {
            full_weight: 1.0,
            vertices: &[0, 1],
            positions: &dp,
            normals: &dn,
        }];
        let targets = [MorphTarget { shapes: &shapes }];
        // Vertex 0 sums to zero length and stays so; vertex 1 to (0, 1, 3); vertex 2 is not
        // touched but is renormalised too.
        let base_n = [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 4.0]];
        let (mut p, mut n) = ([[0.0; 3]; 3], [[0.0; 3]; 3]);
        apply_morphs(&[[0.0; 3]; 3], &base_n, &targets, &[1.0], &mut p, &mut n).unwrap();
        assert_eq!(n[0], [0.0, 0.0, 0.0]);
        let l = libm::sqrtf(10.0);
        assert!(
            close(n[1][1], 1.0 / l, 1e-6) && close(n[1][2], 3.0 / l, 1e-6),
            "{n:?}"
        );
        assert_eq!(n[2], [0.0, 0.0, 1.0]);
        // Weight 0 skips the shape: normals as the base, renormalised.
        apply_morphs(&[[0.0; 3]; 3], &base_n, &targets, &[0.0], &mut p, &mut n).unwrap();
        assert_eq!(n, [[0.0, 1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    }

    #[test]
    fn buffer_lengths_are_checked_before_anything_is_written() {
        let targets = [MorphTarget::default()];
        let base = [[1.0; 3]; 2];
        let mut p = [[0.0; 3]; 2];
        let mut n = [[0.0; 3]; 2];
        let e = apply_morphs(&base, &[], &targets, &[], &mut p, &mut []).unwrap_err();
        assert_eq!(e.to_string(), "weights: expected 1 entries, got 0");
        let e = apply_morphs(&base, &[], &targets, &[1.0], &mut p[..1], &mut []).unwrap_err();
        assert_eq!(
            e,
            MorphError::Length {
                what: "out_positions",
                expected: 2,
                got: 1
            }
        );
        let e = apply_morphs(&base, &[], &targets, &[1.0], &mut p, &mut n).unwrap_err();
        assert_eq!(
            e,
            MorphError::Length {
                what: "base_normals",
                expected: 2,
                got: 0
            }
        );
        assert_eq!(p, [[0.0; 3]; 2]);
        let e = apply_morphs(&base, &base, &targets, &[1.0], &mut p, &mut n[..1]).unwrap_err();
        assert!(matches!(
            e,
            MorphError::Length {
                what: "out_normals",
                ..
            }
        ));
        let verts = [Vertex::default(); 2];
        let mut morphed = [Vertex::default(); 1];
        let e = morph_and_skin(
            &[],
            &verts,
            &targets,
            &[1.0],
            &mut morphed,
            &mut p,
            &mut [],
            &mut [],
        )
        .unwrap_err();
        assert_eq!(e.to_string(), "morphed: expected 2 entries, got 1");
        let mut morphed = [Vertex::default(); 2];
        let e = morph_and_skin(
            &[],
            &verts,
            &targets,
            &[1.0],
            &mut morphed,
            &mut p[..1],
            &mut [],
            &mut [],
        )
        .unwrap_err();
        assert!(matches!(e, MorphError::Skin(SkinError::OutputSize { .. })));
    }

    #[test]
    fn morph_and_skin_is_apply_morphs_then_skin_vertices() {
        let pal = [
            Mat4::from_rotation_translation(Quat::from_rotation_z(0.4), Vec3::new(1.0, 2.0, 3.0)),
            Mat4::from_scale(Vec3::new(2.0, 1.0, 0.5)),
        ];
        let verts: Vec<Vertex> = (0..4)
            .map(|i| Vertex {
                position: [i as f32, 0.5, 0.0],
                normal: [0.0, 1.0, 0.0],
                tangent: [1.0, 0.0, 0.0],
                blend_indices: [0.0, 1.0, 0.0, 0.0],
                blend_weights: [0.75, 0.25, 0.0, 0.0],
                ..Vertex::default()
            })
            .collect();
        let dp = [[0.0, 1.0, 0.0], [0.5, 0.0, 0.0]];
        let dn = [[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]];
        let shapes = [
            MorphShape {
                full_weight: 0.5,
                vertices: &[1, 3],
                positions: &dp,
                normals: &dn,
            },
            MorphShape {
                full_weight: 1.0,
                vertices: &[0, 3],
                positions: &dp,
                normals: &[],
            },
        ];
        let targets = [MorphTarget { shapes: &shapes }];
        let w = [0.8];
        let mut morphed = [Vertex::default(); 4];
        let (mut p, mut n, mut t) = ([[0.0; 3]; 4], [[0.0; 3]; 4], [[0.0; 3]; 4]);
        morph_and_skin(
            &pal,
            &verts,
            &targets,
            &w,
            &mut morphed,
            &mut p,
            &mut n,
            &mut t,
        )
        .unwrap();
        // The same by the two steps.
        let bp: Vec<_> = verts.iter().map(|v| v.position).collect();
        let bn: Vec<_> = verts.iter().map(|v| v.normal).collect();
        let (mut mp, mut mn) = ([[0.0; 3]; 4], [[0.0; 3]; 4]);
        apply_morphs(&bp, &bn, &targets, &w, &mut mp, &mut mn).unwrap();
        let mut want = verts.clone();
        for (v, (p, n)) in want.iter_mut().zip(mp.iter().zip(&mn)) {
            v.position = *p;
            v.normal = *n;
        }
        assert_eq!(&morphed[..], &want[..]);
        let (mut wp, mut wn, mut wt) = ([[0.0; 3]; 4], [[0.0; 3]; 4], [[0.0; 3]; 4]);
        skin_vertices(&pal, &want, &mut wp, &mut wn, &mut wt).unwrap();
        assert_eq!((p, n, t), (wp, wn, wt));
        // Vertex 3 by hand: shapes 0 and 1 at 0.4 and 0.6, both delta (0.5, 0, 0).
        assert!(close(morphed[3].position[0], 3.5, 1e-6), "{:?}", morphed[3]);
        let m = pal[0] * 0.75 + pal[1] * 0.25;
        let want3 = m.transform_point3(Vec3::new(3.5, 0.5, 0.0));
        assert!(Vec3::from(p[3]).abs_diff_eq(want3, 1e-5));
        // Positions only: normals neither morphed nor skinned.
        let mut p2 = [[0.0; 3]; 4];
        morph_and_skin(
            &pal,
            &verts,
            &targets,
            &w,
            &mut morphed,
            &mut p2,
            &mut [],
            &mut [],
        )
        .unwrap();
        assert_eq!(p2, p);
        assert_eq!(morphed[1].normal, [0.0, 1.0, 0.0]);
    }

    /// The piecewise-linear function through `(0, 0)` and `(keys[i], values[i])`, extended past
    /// both ends along the end segments (an independent statement of the polyline).
    fn polyline(keys: &[f32], values: &[f64], w: f64) -> f64 {
        let mut pts: Vec<(f64, f64)> = keys
            .iter()
            .map(|&k| f64::from(k))
            .zip(values.iter().copied())
            .collect();
        pts.push((0.0, 0.0));
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let seg = (1..pts.len() - 1)
            .find(|&i| w <= pts[i].0)
            .unwrap_or(pts.len() - 1);
        let ((x0, y0), (x1, y1)) = (pts[seg - 1], pts[seg]);
        y0 + (y1 - y0) * (w - x0) / (x1 - x0)
    }

    /// Distinct, non-zero, ascending full weights at least 0.01 apart.
    fn keys(negative: bool) -> impl Strategy<Value = Vec<f32>> {
        let lo = if negative { -200i32 } else { 1 };
        proptest::collection::btree_set(lo..=200i32, 1..6).prop_map(|s| {
            s.into_iter()
                .filter(|&k| k != 0)
                .map(|k| k as f32 * 0.01)
                .collect::<Vec<_>>()
        })
    }

    proptest! {
        #[test]
        fn a_plain_target_takes_the_channel_weight(w in -10.0f32..10.0) {
            let e = weights_of(&[1.0], w);
            prop_assert!(close(e[0], w, 1e-7), "{} {}", e[0], w);
            let active = MorphTarget { shapes: &[MorphShape { full_weight: 1.0, ..MorphShape::default() }] }
                .active_shapes(w);
            prop_assert_eq!(active, [Some((0, e[0])).filter(|_| e[0] != 0.0), None]);
        }

        /// In-between shapes: at a key's weight only that shape moves, in full; elsewhere the
        /// shapes' summed contribution `Σ eᵢ·dᵢ` is the polyline through the keys.
        #[test]
        fn in_betweens_interpolate_the_keys_linearly(
            keys in keys(false),
            values in proptest::collection::vec(-5.0f64..5.0, 6),
            w in -1.0f32..3.0,
        ) {
            let n = keys.len();
            for (i, &k) in keys.iter().enumerate() {
                let e = weights_of(&keys, k);
                let mut want = vec![0.0; n];
                want[i] = 1.0;
                prop_assert_eq!(e, want, "at key {}", k);
            }
            let e = weights_of(&keys, w);
            prop_assert!(e.iter().filter(|&&x| x != 0.0).count() <= 2);
            let got: f64 = e.iter().zip(&values).map(|(&e, &v)| f64::from(e) * v).sum();
            let want = polyline(&keys, &values[..n], f64::from(w));
            prop_assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "{} {}", got, want);
            // Between two keys the two weights sum to 1 (the zero key takes no share). Past the
            // last key they extrapolate, large and of opposite signs (-63 and 64 at 2.46 for keys
            // 1.82 and 1.83), so the f32 sum is 1 to within the rounding of their magnitudes.
            if n >= 2 && w >= keys[0] {
                let sum: f32 = e.iter().sum();
                let magnitude: f32 = e.iter().map(|x| x.abs()).sum::<f32>().max(1.0);
                prop_assert!(close(sum, 1.0, 1e-6 * magnitude), "sum {}", sum);
            }
        }

        /// With negative full weights too, the same polyline through zero.
        #[test]
        fn negative_and_positive_keys_follow_the_polyline(
            keys in keys(true),
            values in proptest::collection::vec(-5.0f64..5.0, 6),
            w in -3.0f32..3.0,
        ) {
            prop_assume!(!keys.is_empty());
            let e = weights_of(&keys, w);
            let got: f64 = e.iter().zip(&values).map(|(&e, &v)| f64::from(e) * v).sum();
            let want = polyline(&keys, &values[..keys.len()], f64::from(w));
            prop_assert!((got - want).abs() <= 1e-5 * want.abs().max(1.0), "{:?} {} {} {}", e, w, got, want);
        }
    }
}
