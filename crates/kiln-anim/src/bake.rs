//! Every clip's per-frame skinning matrices in the texture layout of reference `002`: a
//! `Texture2DArray` of `RGBA32F` texels, `4 × bones` wide, `frames` high, one layer per clip.
//! Texel `(4·b + r, f)` of layer `c` is row `r` of bone `b`'s matrix at frame `f` of clip `c`,
//! in the engine's row-vector convention, so the HLSL's
//! `matrix(Load(4b+0), Load(4b+1), Load(4b+2), Load(4b+3))` rebuilds it and `mul(pos, M)`
//! applies it.
//!
//! The matrix of a bone a skin uses is `offset × model` with the skin's (Assimp's) offset; a
//! bone no skin uses holds its model matrix, so rigid parts, bound with weight 1 to their bone,
//! go through the same texture (see `kiln_extract::extract` and `docs/animation.md` for a bone
//! used both ways). [`crate::bake_model`] does the whole model: skeleton, binding and bake.
//!
//! Frames are baked exactly (no interpolation); rows past a clip's last frame, when clips differ
//! in length or the texture is padded, repeat its last frame, and padded bone columns hold the
//! identity. Limits mirror the engine's `MAX_BONE`/`MAX_FRAME`: a model past them is an error.

use alloc::string::String;
use alloc::vec::Vec;

use glam::Mat4;

use crate::sample::{AnimationClip, Wrap};
use crate::skeleton::{Pose, Skeleton};

/// The bake's limits and shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BakeOptions {
    /// Most bones (the texture is `4 ×` this wide at most). Direct3D 11 allows 16384 texels.
    pub max_bones: u32,
    /// Most frames per clip (the texture height). Direct3D 11 allows 16384.
    pub max_frames: u32,
    /// Most clips (array layers). Direct3D 11 allows 2048.
    pub max_clips: u32,
    /// Make the texture exactly `4 × max_bones` by `max_frames`, as an engine with compiled-in
    /// `MAX_BONE`/`MAX_FRAME` creates it; otherwise it is as small as the model allows.
    pub pad_to_limits: bool,
}

impl Default for BakeOptions {
    /// Direct3D 11's limits: 4096 bones (16384 texels), 16384 frames, 2048 layers; not padded.
    fn default() -> Self {
        BakeOptions {
            max_bones: 4096,
            max_frames: 16384,
            max_clips: 2048,
            pad_to_limits: false,
        }
    }
}

/// Why a model could not be baked.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BakeError {
    /// No clip was given.
    #[error("nothing to bake: the model has no animation")]
    NoClips,
    /// More bones than [`BakeOptions::max_bones`].
    #[error("{bones} bones: more than the bake's limit of {max} (texture width 4 × bones)")]
    TooManyBones {
        /// Bones of the skeleton.
        bones: usize,
        /// The limit.
        max: u32,
    },
    /// A clip has more frames than [`BakeOptions::max_frames`].
    #[error(
        "clip {clip} ('{name}') has {frames} frames: more than the bake's limit of {max} (texture height)"
    )]
    TooManyFrames {
        /// Index of the clip.
        clip: usize,
        /// Its name.
        name: String,
        /// Its frames.
        frames: u32,
        /// The limit.
        max: u32,
    },
    /// More clips than [`BakeOptions::max_clips`].
    #[error("{clips} clips: more than the bake's limit of {max} (texture array layers)")]
    TooManyClips {
        /// Clips given.
        clips: usize,
        /// The limit.
        max: u32,
    },
    /// A clip was bound to a skeleton of another size.
    #[error(
        "clip {clip} ('{name}') was bound to a skeleton of {clip_bones} bones, not this one of {bones}"
    )]
    Mismatch {
        /// Index of the clip.
        clip: usize,
        /// Its name.
        name: String,
        /// Bones of the skeleton it was bound to.
        clip_bones: usize,
        /// Bones of this skeleton.
        bones: usize,
    },
    /// The texture is larger than `isize::MAX` bytes.
    #[error("the texture would hold {texels} texels, more than this machine can address")]
    TooLarge {
        /// Texels it would hold.
        texels: u128,
    },
}

/// A baked texture array.
#[derive(Clone, Debug, PartialEq)]
pub struct Bake {
    /// Texels per row: `4 ×` the bone columns.
    pub width: u32,
    /// Rows: frames.
    pub height: u32,
    /// Array layers: one per clip.
    pub layers: u32,
    /// Bones of the skeleton (columns past `4 × bone_count` are padding).
    pub bone_count: u32,
    /// Frames of each clip (rows past them repeat the last).
    pub frame_counts: Vec<u32>,
    /// Frames per second of each clip.
    pub frame_rates: Vec<f32>,
    /// Name of each clip, one per layer.
    pub clip_names: Vec<String>,
    /// `layers × height × width` texels, layer by layer, row by row: texel `(x, y)` of layer `l`
    /// is `texels[(l * height + y) * width + x]`, RGBA.
    pub texels: Vec<[f32; 4]>,
}

impl Bake {
    /// Bone `bone`'s skinning matrix at `frame` of clip `clip` (glam column vectors, whose
    /// column-major memory is the row-major row-vector matrix the texture holds).
    pub fn matrix(&self, clip: usize, frame: usize, bone: usize) -> Option<Mat4> {
        if clip >= self.layers as usize
            || frame >= self.height as usize
            || bone >= self.bone_count as usize
        {
            return None;
        }
        let start = (clip * self.height as usize + frame) * self.width as usize + 4 * bone;
        let t = self.texels.get(start..start + 4)?;
        Some(Mat4::from_cols(
            t[0].into(),
            t[1].into(),
            t[2].into(),
            t[3].into(),
        ))
    }

    /// The matrices of one row (one frame of one clip), one per bone.
    pub fn row(&self, clip: usize, frame: usize) -> Option<&[[f32; 4]]> {
        if clip >= self.layers as usize || frame >= self.height as usize {
            return None;
        }
        let start = (clip * self.height as usize + frame) * self.width as usize;
        self.texels.get(start..start + 4 * self.bone_count as usize)
    }
}

/// Bakes every clip (each bound to `skeleton`) into one texture array.
pub fn bake(
    skeleton: &Skeleton,
    clips: &[AnimationClip],
    options: &BakeOptions,
) -> Result<Bake, BakeError> {
    if clips.is_empty() {
        return Err(BakeError::NoClips);
    }
    let bones = skeleton.len();
    if bones > options.max_bones as usize {
        return Err(BakeError::TooManyBones {
            bones,
            max: options.max_bones,
        });
    }
    if clips.len() > options.max_clips as usize {
        return Err(BakeError::TooManyClips {
            clips: clips.len(),
            max: options.max_clips,
        });
    }
    for (i, c) in clips.iter().enumerate() {
        if c.bone_count() != bones {
            return Err(BakeError::Mismatch {
                clip: i,
                name: c.name().into(),
                clip_bones: c.bone_count(),
                bones,
            });
        }
        if c.frame_count() > options.max_frames {
            return Err(BakeError::TooManyFrames {
                clip: i,
                name: c.name().into(),
                frames: c.frame_count(),
                max: options.max_frames,
            });
        }
    }
    let (columns, height) = if options.pad_to_limits {
        (options.max_bones as usize, options.max_frames as usize)
    } else {
        let h = clips.iter().map(|c| c.frame_count()).max().unwrap_or(1);
        (bones, h as usize)
    };
    let width = 4 * columns;
    let texels = width as u128 * height as u128 * clips.len() as u128;
    let total = usize::try_from(texels)
        .ok()
        .filter(|&t| t.checked_mul(16).is_some_and(|b| b < isize::MAX as usize))
        .ok_or(BakeError::TooLarge { texels })?;
    let mut out = alloc::vec![[0f32; 4]; total];
    let identity: [[f32; 4]; 4] = [
        [1.0, 0.0, 0.0, 0.0],
        [0.0, 1.0, 0.0, 0.0],
        [0.0, 0.0, 1.0, 0.0],
        [0.0, 0.0, 0.0, 1.0],
    ];
    let mut pose = Pose::new(skeleton);
    for (layer, clip) in clips.iter().enumerate() {
        let rows = &mut out[layer * height * width..(layer + 1) * height * width];
        for (y, row) in rows.chunks_exact_mut(width).enumerate() {
            let frame = (y as u32).min(clip.frame_count() - 1);
            if y as u32 == frame {
                // Sizes match: the clip was checked against this skeleton above.
                let _ = clip.evaluate(skeleton, frame as f32, Wrap::Clamp, &mut pose);
            }
            for (b, block) in row.chunks_exact_mut(4).enumerate() {
                let m = match pose.skinning().get(b) {
                    Some(m) => m.to_cols_array_2d(),
                    None => identity,
                };
                block.copy_from_slice(&m);
            }
        }
    }
    Ok(Bake {
        width: width as u32,
        height: height as u32,
        layers: clips.len() as u32,
        bone_count: bones as u32,
        frame_counts: clips.iter().map(|c| c.frame_count()).collect(),
        frame_rates: clips.iter().map(|c| c.frame_rate()).collect(),
        clip_names: clips.iter().map(|c| c.name().into()).collect(),
        texels: out,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use glam::{Quat, Vec4};
    use kiln_format::{Clip, Keyframe, Track};

    fn setup(frames: u32) -> (Skeleton, Vec<AnimationClip>) {
        let (bones, b1) = crate::test_bones::arm();
        let offset = b1.inverse();
        let s = Skeleton::new(&bones, &[None, Some(offset.to_cols_array())]).unwrap();
        let kf = |f: u32| Keyframe {
            time: f as f32,
            scale: [1.0; 3],
            rotation: Quat::from_rotation_z(0.1 * f as f32).to_array(),
            translation: [2.0, 0.0, 0.0],
        };
        let clip = |name: &str, n: u32| Clip {
            name: name.into(),
            duration: (n - 1) as f32,
            frame_rate: 24.0,
            frame_count: n,
            tracks: vec![Track {
                bone_name: "arm".into(),
                keyframes: (0..n).map(kf).collect(),
            }],
            weight_tracks: Vec::new(),
        };
        let a = AnimationClip::bind(&s, &clip("a", frames)).unwrap().0;
        let b = AnimationClip::bind(&s, &clip("b", 2)).unwrap().0;
        (s, vec![a, b])
    }

    #[test]
    fn layout_is_four_texels_per_bone_one_row_per_frame_one_layer_per_clip() {
        let (s, clips) = setup(4);
        let bake = bake(&s, &clips, &BakeOptions::default()).unwrap();
        assert_eq!((bake.width, bake.height, bake.layers), (8, 4, 2));
        assert_eq!(bake.texels.len(), 8 * 4 * 2);
        assert_eq!(bake.frame_counts, [4, 2]);
        // Rigid root: its model matrix. Row 3 (translation) of bone 0 is texel x = 3.
        assert_eq!(bake.texels[3], [0.0, 1.0, 0.0, 1.0]);
        // Skinned arm at frame 2 of clip 0: offset × model, rows at x = 4..8 of row 2.
        let mut pose = Pose::new(&s);
        clips[0].evaluate(&s, 2.0, Wrap::Clamp, &mut pose).unwrap();
        let want = pose.model()[1] * s.offsets()[1];
        let row = &bake.texels[2 * 8 + 4..2 * 8 + 8];
        for (r, texel) in row.iter().enumerate() {
            // Texel r is row r of the row-vector matrix = column r of glam's.
            assert!(Vec4::from(*texel).abs_diff_eq(want.col(r), 1e-6));
        }
        assert_eq!(
            bake.matrix(0, 2, 1),
            Some(Mat4::from_cols_array_2d(&[row[0], row[1], row[2], row[3]]))
        );
        // In bind pose (frame 0), a skinned bone's matrix is the identity.
        assert!(
            bake.matrix(0, 0, 1)
                .unwrap()
                .abs_diff_eq(Mat4::IDENTITY, 1e-6)
        );
        // Clip b has 2 frames: rows 2 and 3 of its layer repeat frame 1.
        assert_eq!(bake.matrix(1, 3, 1), bake.matrix(1, 1, 1));
        assert_ne!(bake.matrix(1, 1, 1), bake.matrix(1, 0, 1));
    }

    #[test]
    fn padding_fills_identity_columns_and_repeats_the_last_row() {
        let (s, clips) = setup(3);
        let options = BakeOptions {
            max_bones: 4,
            max_frames: 5,
            pad_to_limits: true,
            ..BakeOptions::default()
        };
        let b = bake(&s, &clips, &options).unwrap();
        assert_eq!((b.width, b.height, b.layers, b.bone_count), (16, 5, 2, 2));
        let x = (4 * b.width + 12) as usize;
        assert_eq!(&b.texels[x..x + 4], &Mat4::IDENTITY.to_cols_array_2d());
        assert_eq!(b.matrix(0, 4, 1), b.matrix(0, 2, 1));
    }

    #[test]
    fn limits_give_clear_errors() {
        let (s, clips) = setup(6);
        let small = |max_bones, max_frames, max_clips| BakeOptions {
            max_bones,
            max_frames,
            max_clips,
            pad_to_limits: false,
        };
        assert_eq!(
            bake(&s, &clips, &small(1, 100, 100))
                .unwrap_err()
                .to_string(),
            "2 bones: more than the bake's limit of 1 (texture width 4 × bones)"
        );
        assert_eq!(
            bake(&s, &clips, &small(4, 5, 100)).unwrap_err().to_string(),
            "clip 0 ('a') has 6 frames: more than the bake's limit of 5 (texture height)"
        );
        assert!(matches!(
            bake(&s, &clips, &small(4, 10, 1)),
            Err(BakeError::TooManyClips { clips: 2, max: 1 })
        ));
        assert_eq!(
            bake(&s, &[], &BakeOptions::default()),
            Err(BakeError::NoClips)
        );
    }
}
