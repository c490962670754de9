//! Every clip's per-frame morph-target weights, baked beside the bone-matrix texture
//! ([`crate::bake()`]) in a layout an engine uploads as is: a `Texture2DArray` of `R32F` texels,
//! one column per morph target of the model, one row per frame, one layer per clip.
//!
//! Texel `(x, f)` of layer `c` is the weight of target `x` at frame `f` of clip `c`. Targets are
//! numbered over the whole model, part by part: part `p`'s target `t` is column
//! [`WeightBake::first_target`]`[p] + t`. A target that a clip does not animate holds its rest
//! weight ([`kiln_format::MorphTarget::default_weight`]) in every row of that clip; rows past a
//! clip's last frame (clips of different lengths, or a padded bone texture) repeat its last
//! frame, as the bone texture's rows do, so the two textures share `curFrame`, `nextFrame` and
//! the lerp `time` a runtime feeds its shader. The weights are channel weights (FBX
//! `DeformPercent / 100`); in-between shapes get theirs from them with
//! [`crate::shape_weights`]. A model without clips bakes one layer of one row: every rest weight.
//!
//! The numbers are the `.clip`'s [`kiln_format::WeightTrack`]s as they are (they were sampled
//! at every frame by `kiln_extract`); a track naming a part or target the model lacks is left
//! out (`kiln_extract` has warned), and a track shorter than its clip holds its last value.
//! `docs/animation.md` has the layout beside the bone texture's.

use alloc::vec;
use alloc::vec::Vec;

use kiln_format::{Clip, Model};

use crate::morph::MorphError;
use crate::sample::Wrap;

/// A baked weight texture array (see the module's documentation).
#[derive(Clone, Debug, PartialEq)]
pub struct WeightBake {
    /// Texels per row: one per morph target of the model.
    pub width: u32,
    /// Rows: frames (the bone texture's height).
    pub height: u32,
    /// Array layers: one per clip (one for a model without clips).
    pub layers: u32,
    /// Per part: the column of its first target (parts without targets take no column, so
    /// their entry is where the next part's targets start).
    pub first_target: Vec<u32>,
    /// Per column: the target's rest weight.
    pub default_weights: Vec<f32>,
    /// Frames of each layer's clip (rows past them repeat the last).
    pub frame_counts: Vec<u32>,
    /// `layers × height × width` weights, layer by layer, row by row: texel `(x, y)` of layer
    /// `l` is `texels[(l * height + y) * width + x]`.
    pub texels: Vec<f32>,
}

impl WeightBake {
    /// The column of part `part`'s target `target`.
    pub fn column(&self, part: usize, target: usize) -> Option<usize> {
        let columns = self.part_columns(part);
        (target < columns.len()).then_some(columns.start + target)
    }

    /// The columns of part `part`'s targets (empty for a part without targets or past the
    /// model).
    pub fn part_columns(&self, part: usize) -> core::ops::Range<usize> {
        let width = self.width as usize;
        let at = |p: usize| self.first_target.get(p).map_or(width, |&f| f as usize);
        let first = at(part);
        first..at(part + 1).max(first)
    }

    /// The weights of one row (one frame of one clip), one per target.
    pub fn row(&self, clip: usize, frame: usize) -> Option<&[f32]> {
        if clip >= self.layers as usize || frame >= self.height as usize {
            return None;
        }
        let start = (clip * self.height as usize + frame) * self.width as usize;
        self.texels.get(start..start + self.width as usize)
    }

    /// Every target's weight at `time` (in frames) of clip `clip`, as a shader reads them from
    /// the texture: `lerp(W[current], W[next], t)` with the frames [`Wrap::frames`] picks (the
    /// same as [`crate::palette`] picks for the bone texture). `out` holds one weight per
    /// column. No allocation.
    pub fn sample(
        &self,
        clip: usize,
        time: f32,
        wrap: Wrap,
        out: &mut [f32],
    ) -> Result<(), MorphError> {
        let no_clip = MorphError::NoSuchClip {
            clip,
            clips: self.frame_counts.len(),
        };
        let frames = *self.frame_counts.get(clip).ok_or(no_clip.clone())?;
        if out.len() != self.width as usize {
            return Err(MorphError::Length {
                what: "weights",
                expected: self.width as usize,
                got: out.len(),
            });
        }
        let pair = wrap.frames(time, frames);
        let (Some(cur), Some(next)) = (
            self.row(clip, pair.current as usize),
            self.row(clip, pair.next as usize),
        ) else {
            return Err(no_clip);
        };
        for ((o, a), b) in out.iter_mut().zip(cur).zip(next) {
            // HLSL lerp(x, y, s) = x + s * (y - x), as the bone texels are lerped.
            *o = a + (b - a) * pair.t;
        }
        Ok(())
    }
}

/// Bakes the weights of every morph target of `model` over `clips` into `height` rows per clip
/// (at least each clip's frame count; [`crate::Bake::height`] of the same clips), or, with no
/// clips, one layer of one row of rest weights. `None` when the model has no morph target.
pub fn bake_weights(model: &Model, clips: &[Clip], height: u32) -> Option<WeightBake> {
    let mut first_target = Vec::with_capacity(model.meshes.len());
    let mut default_weights = Vec::new();
    for part in &model.meshes {
        first_target.push(default_weights.len() as u32);
        default_weights.extend(part.morph_targets.iter().map(|t| t.default_weight));
    }
    if default_weights.is_empty() {
        return None;
    }
    let width = default_weights.len();
    let (height, frame_counts): (u32, Vec<u32>) = if clips.is_empty() {
        (1, vec![1])
    } else {
        let counts: Vec<u32> = clips.iter().map(|c| c.frame_count.max(1)).collect();
        let tallest = counts.iter().copied().max().unwrap_or(1);
        (height.max(tallest), counts)
    };
    let layers = frame_counts.len();
    let rows = height as usize;
    let mut bake = WeightBake {
        width: width as u32,
        height,
        layers: layers as u32,
        texels: default_weights.repeat(layers * rows),
        first_target,
        default_weights,
        frame_counts,
    };
    for (c, clip) in clips.iter().enumerate() {
        let frames = bake.frame_counts[c] as usize;
        for track in &clip.weight_tracks {
            let column = bake.column(track.part as usize, track.target as usize);
            let (Some(column), Some(&last)) = (column, track.weights.last()) else {
                continue;
            };
            for row in 0..rows {
                // Rows past the clip (or past a short track) hold the last value.
                let w = track
                    .weights
                    .get(row.min(frames - 1))
                    .copied()
                    .unwrap_or(last);
                bake.texels[(c * rows + row) * width + column] = w;
            }
        }
    }
    Some(bake)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_format::{MeshPart, MorphShape, MorphTarget, WeightTrack};

    fn target(name: &str, rest: f32) -> MorphTarget {
        MorphTarget {
            name: name.into(),
            default_weight: rest,
            shapes: vec![MorphShape {
                name: name.into(),
                full_weight: 1.0,
                vertices: vec![0],
                positions: vec![[1.0, 0.0, 0.0]],
                normals: Vec::new(),
            }],
        }
    }

    fn model() -> Model {
        let part = |targets: Vec<MorphTarget>| MeshPart {
            morph_targets: targets,
            ..MeshPart::default()
        };
        Model {
            meshes: vec![
                part(vec![target("a", 0.25), target("b", 0.0)]),
                part(Vec::new()),
                part(vec![target("c", 1.0)]),
            ],
            ..Model::default()
        }
    }

    fn clip(frames: u32, tracks: Vec<WeightTrack>) -> Clip {
        Clip {
            name: "c".into(),
            duration: frames.saturating_sub(1) as f32,
            frame_rate: 30.0,
            frame_count: frames,
            tracks: Vec::new(),
            weight_tracks: tracks,
        }
    }

    fn track(part: u32, target: u32, weights: &[f32]) -> WeightTrack {
        WeightTrack {
            part,
            target,
            weights: weights.to_vec(),
        }
    }

    #[test]
    fn a_model_without_targets_bakes_nothing() {
        assert_eq!(bake_weights(&Model::default(), &[], 1), None);
    }

    #[test]
    fn columns_run_over_the_parts_and_rest_weights_fill_what_no_track_moves() {
        let clips = [
            clip(
                3,
                vec![track(0, 1, &[0.0, 0.5, 1.0]), track(2, 0, &[0.1, 0.2, 0.3])],
            ),
            // Shorter clip; a track of an unknown part and of an unknown target are left out.
            clip(
                2,
                vec![
                    track(0, 0, &[0.9, 0.8]),
                    track(5, 0, &[7.0, 7.0]),
                    track(1, 0, &[7.0, 7.0]),
                ],
            ),
        ];
        let b = bake_weights(&model(), &clips, 4).unwrap();
        assert_eq!((b.width, b.height, b.layers), (3, 4, 2));
        assert_eq!(b.first_target, [0, 2, 2]);
        assert_eq!(b.frame_counts, [3, 2]);
        assert_eq!(b.column(0, 1), Some(1));
        assert_eq!(b.column(1, 0), None);
        assert_eq!(b.column(2, 0), Some(2));
        assert_eq!(b.column(2, 1), None);
        assert_eq!(b.part_columns(1), 2..2);
        assert_eq!(b.row(0, 0).unwrap(), [0.25, 0.0, 0.1]);
        assert_eq!(b.row(0, 2).unwrap(), [0.25, 1.0, 0.3]);
        // Row 3 is past clip 0's last frame: it repeats frame 2.
        assert_eq!(b.row(0, 3).unwrap(), [0.25, 1.0, 0.3]);
        assert_eq!(b.row(1, 0).unwrap(), [0.9, 0.0, 1.0]);
        assert_eq!(b.row(1, 3).unwrap(), [0.8, 0.0, 1.0]);
        assert_eq!(b.row(2, 0), None);
        assert_eq!(b.row(0, 4), None);
    }

    #[test]
    fn without_clips_one_row_of_rest_weights() {
        let b = bake_weights(&model(), &[], 9).unwrap();
        assert_eq!((b.width, b.height, b.layers), (3, 1, 1));
        assert_eq!(b.texels, [0.25, 0.0, 1.0]);
    }

    #[test]
    fn sampling_lerps_rows_as_the_palette_does() {
        let clips = [clip(3, vec![track(0, 1, &[0.0, 0.5, 1.0])])];
        let b = bake_weights(&model(), &clips, 3).unwrap();
        let mut out = [0.0; 3];
        b.sample(0, 1.5, Wrap::Clamp, &mut out).unwrap();
        assert_eq!(out, [0.25, 0.75, 1.0]);
        // Looping half a frame past the last blends it into frame 0.
        b.sample(0, 2.5, Wrap::Loop, &mut out).unwrap();
        assert_eq!(out, [0.25, 0.5, 1.0]);
        assert_eq!(
            b.sample(1, 0.0, Wrap::Clamp, &mut out),
            Err(MorphError::NoSuchClip { clip: 1, clips: 1 })
        );
        assert!(matches!(
            b.sample(0, 0.0, Wrap::Clamp, &mut [0.0; 2]),
            Err(MorphError::Length {
                expected: 3,
                got: 2,
                ..
            })
        ));
    }
}
