//! A whole model baked in one call: [`bake_model`] builds the [`Skeleton`] from a `.mesh`'s
//! bones and offsets, binds every `.clip` to it and bakes them ([`crate::bake()`]), which is what
//! `kiln bake`, `kiln verify` and `kiln preview` do with a model. [`ModelBakeOptions`] says how
//! strict it is: the texture `kiln bake` writes leaves foreign tracks out with a warning and
//! needs a clip; the checks and pictures of `kiln verify` and `kiln preview` reject a clip that
//! names bones the model lacks and draw a model without clips in its bind pose
//! ([`bind_pose_bake`]).

use alloc::string::String;
use alloc::vec::Vec;

use kiln_format::{Clip, Matrix, Model};

use crate::bake::{Bake, BakeError, BakeOptions, bake};
use crate::sample::{AnimationClip, BindError};
use crate::skeleton::{Skeleton, SkeletonError};
use crate::warning::BindWarning;
use crate::weights::{WeightBake, bake_weights};

/// The name [`bind_pose_bake`] gives its one clip.
pub const BIND_POSE_CLIP: &str = "(bind pose)";

/// A bake of one clip of one frame holding each bone's bind-pose skinning matrix
/// (`offset × model`), for models without animation: what `kiln verify` and `kiln preview`
/// check and draw for them. One layer, one row, `4 × bones` texels, 30 frames per second, named
/// [`BIND_POSE_CLIP`]; no limit of [`BakeOptions`] applies.
pub fn bind_pose_bake(skeleton: &Skeleton) -> Bake {
    let mut texels = Vec::with_capacity(4 * skeleton.len());
    for (model, offset) in skeleton.bind_model().iter().zip(skeleton.offsets()) {
        texels.extend((*model * *offset).to_cols_array_2d());
    }
    Bake {
        width: 4 * skeleton.len() as u32,
        height: 1,
        layers: 1,
        bone_count: skeleton.len() as u32,
        frame_counts: alloc::vec![1],
        frame_rates: alloc::vec![30.0],
        clip_names: alloc::vec![BIND_POSE_CLIP.into()],
        texels,
    }
}

/// How [`bake_model`] bakes a model: the texture limits, and what it does with a clip whose
/// tracks name bones the model lacks and with a model without clips.
///
/// The default is what `kiln bake` does ([`ModelBakeOptions::texture`] with the default
/// limits); [`ModelBakeOptions::inspection`] is what `kiln verify` and `kiln preview` do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ModelBakeOptions {
    /// The bake's limits and shape.
    pub bake: BakeOptions,
    /// A clip with a track that names no bone of the model does not belong to it:
    /// [`BakeModelError::ForeignTracks`]. When false, such tracks are left out while binding,
    /// with a [`BindWarning::TracksIgnored`].
    pub reject_foreign_tracks: bool,
    /// A model without clips bakes [`bind_pose_bake`] (and `bake`'s limits do not apply).
    /// When false, it is [`BakeError::NoClips`].
    pub bind_pose_without_clips: bool,
}

impl ModelBakeOptions {
    /// The bone-matrix texture an engine loads (`kiln bake`): foreign tracks are ignored with a
    /// warning, and a model without clips is an error.
    pub fn texture(bake: BakeOptions) -> Self {
        ModelBakeOptions {
            bake,
            reject_foreign_tracks: false,
            bind_pose_without_clips: false,
        }
    }

    /// A bake to check or draw a model with (`kiln verify`, `kiln preview`), with the default
    /// limits: a clip naming bones the model lacks is an error, and a model without clips is
    /// baked in its bind pose.
    pub fn inspection() -> Self {
        ModelBakeOptions {
            bake: BakeOptions::default(),
            reject_foreign_tracks: true,
            bind_pose_without_clips: true,
        }
    }
}

/// Why [`bake_model`] could not bake a model. Each variant prints as the error it wraps, or
/// for [`BakeModelError::ForeignTracks`] names the clip and its first five foreign tracks.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BakeModelError {
    /// The model's bones or offsets do not make a skeleton.
    #[error(transparent)]
    Skeleton(#[from] SkeletonError),
    /// A clip has tracks naming no bone of the model (only with
    /// [`ModelBakeOptions::reject_foreign_tracks`]).
    #[error(
        "clip '{clip}' does not match the model's bones: {} of its {tracks} tracks name no bone of the model ({})",
        foreign.len(),
        first_five(foreign)
    )]
    ForeignTracks {
        /// The clip's name.
        clip: String,
        /// How many tracks the clip has.
        tracks: usize,
        /// The bone names of the tracks that name no bone of the model, in track order.
        foreign: Vec<String>,
    },
    /// A clip does not fit the skeleton.
    #[error(transparent)]
    Bind(#[from] BindError),
    /// The bound clips exceed the bake's limits (or there is none to bake).
    #[error(transparent)]
    Bake(#[from] BakeError),
}

/// The first five names joined by `, `, then `, …` when there are more.
fn first_five(names: &[String]) -> String {
    let mut out = names
        .iter()
        .take(5)
        .map(String::as_str)
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > 5 {
        out.push_str(", …");
    }
    out
}

/// A model's skeleton, its clips bound to it, and their bake: what [`bake_model`] gives.
#[derive(Clone, Debug, PartialEq)]
pub struct Baked {
    /// The skeleton of the model's bones and offsets.
    pub skeleton: Skeleton,
    /// Every clip, bound to [`Baked::skeleton`], in the order given.
    pub clips: Vec<AnimationClip>,
    /// The bake of [`Baked::clips`]; [`bind_pose_bake`] when there is no clip and
    /// [`ModelBakeOptions::bind_pose_without_clips`] asked for it.
    pub bake: Bake,
    /// Repairs made while binding (bones without a track hold their bind pose, …), clip by
    /// clip.
    pub warnings: Vec<BindWarning>,
    /// The morph-target weights of the same clips, frames and layers ([`bake_weights`]);
    /// `None` when the model has no morph target.
    pub weights: Option<WeightBake>,
}

/// Builds the skeleton from `model`'s bones and `offsets` (one per bone, as
/// `kiln_extract::Extracted::offsets`, a kiln-layout `.mesh` or [`crate::classic_offsets`]
/// give them), binds every clip in order and bakes them, as `options` says.
///
/// The first failure is returned: the skeleton, then clip by clip its foreign tracks (when
/// rejected) and its binding, then the bake.
pub fn bake_model(
    model: &Model,
    offsets: &[Option<Matrix>],
    clips: &[Clip],
    options: &ModelBakeOptions,
) -> Result<Baked, BakeModelError> {
    let skeleton = Skeleton::new(&model.bones, offsets)?;
    let mut warnings = Vec::new();
    let mut bound = Vec::with_capacity(clips.len());
    for clip in clips {
        if options.reject_foreign_tracks {
            let foreign: Vec<String> = clip
                .tracks
                .iter()
                .filter(|t| skeleton.find(&t.bone_name).is_none())
                .map(|t| t.bone_name.clone())
                .collect();
            if !foreign.is_empty() {
                return Err(BakeModelError::ForeignTracks {
                    clip: clip.name.clone(),
                    tracks: clip.tracks.len(),
                    foreign,
                });
            }
        }
        let (c, w) = AnimationClip::bind(&skeleton, clip)?;
        warnings.extend(w);
        bound.push(c);
    }
    let bake = if bound.is_empty() && options.bind_pose_without_clips {
        bind_pose_bake(&skeleton)
    } else {
        bake(&skeleton, &bound, &options.bake)?
    };
    let weights = bake_weights(model, clips, bake.height);
    Ok(Baked {
        skeleton,
        clips: bound,
        bake,
        warnings,
        weights,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use glam::Mat4;
    use kiln_format::{Keyframe, Track};

    fn model() -> Model {
        Model {
            bones: crate::test_bones::arm().0,
            meshes: vec![],
        }
    }

    fn clip(tracks: &[&str]) -> Clip {
        Clip {
            name: "wave".into(),
            duration: 1.0,
            frame_rate: 24.0,
            frame_count: 2,
            tracks: tracks
                .iter()
                .map(|&bone_name| Track {
                    bone_name: bone_name.into(),
                    keyframes: vec![
                        Keyframe {
                            time: 0.0,
                            scale: [1.0; 3],
                            rotation: [0.0, 0.0, 0.0, 1.0],
                            translation: [2.0, 0.0, 0.0],
                        };
                        2
                    ],
                })
                .collect(),
            weight_tracks: Vec::new(),
        }
    }

    #[test]
    fn without_clips_the_texture_fails_and_the_inspection_draws_the_bind_pose() {
        let m = model();
        let offsets = [None, Some(Mat4::IDENTITY.to_cols_array())];
        let e = bake_model(&m, &offsets, &[], &ModelBakeOptions::default()).unwrap_err();
        assert_eq!(e, BakeModelError::Bake(BakeError::NoClips));
        assert_eq!(e.to_string(), "nothing to bake: the model has no animation");
        let b = bake_model(&m, &offsets, &[], &ModelBakeOptions::inspection()).unwrap();
        assert_eq!(b.bake, bind_pose_bake(&b.skeleton));
        assert_eq!(b.bake.clip_names, [BIND_POSE_CLIP]);
        assert_eq!((b.bake.width, b.bake.height, b.bake.layers), (8, 1, 1));
        // Bone 1 draws with model × identity offset: its bind transform.
        assert_eq!(
            b.bake.matrix(0, 0, 1),
            Some(Mat4::from_cols_array(&m.bones[1].transform))
        );
        assert!(b.clips.is_empty() && b.warnings.is_empty());
    }

    #[test]
    fn foreign_tracks_are_ignored_for_the_texture_and_rejected_for_the_inspection() {
        let m = model();
        let names = ["arm", "tail", "a", "b", "c", "d", "e"];
        let clips = [clip(&names)];
        let b = bake_model(&m, &[None, None], &clips, &ModelBakeOptions::default()).unwrap();
        assert_eq!(b.bake.layers, 1);
        let codes: Vec<&str> = b.warnings.iter().map(BindWarning::code).collect();
        assert_eq!(codes, [crate::codes::TRACK_IGNORED, crate::codes::NO_TRACK]);
        let e = bake_model(&m, &[None, None], &clips, &ModelBakeOptions::inspection()).unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip 'wave' does not match the model's bones: 6 of its 7 tracks name no bone of the model (tail, a, b, c, d, …)"
        );
        let e = bake_model(
            &m,
            &[None, None],
            &[clip(&["arm", "tail"])],
            &ModelBakeOptions::inspection(),
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip 'wave' does not match the model's bones: 1 of its 2 tracks name no bone of the model (tail)"
        );
    }

    #[test]
    fn errors_print_as_the_error_they_wrap() {
        let m = model();
        let e = bake_model(&m, &[None], &[], &ModelBakeOptions::inspection()).unwrap_err();
        assert_eq!(e.to_string(), "1 offsets for 2 bones");
        let mut c = clip(&["arm"]);
        c.frame_count = 0;
        let e = bake_model(&m, &[None, None], &[c], &ModelBakeOptions::inspection()).unwrap_err();
        assert_eq!(
            e,
            BakeModelError::Bind(BindError::NoFrames {
                name: "wave".into()
            })
        );
        assert_eq!(e.to_string(), "clip 'wave': frame count is 0");
        let options = ModelBakeOptions::texture(BakeOptions {
            max_bones: 1,
            ..BakeOptions::default()
        });
        let e = bake_model(&m, &[None, None], &[clip(&["arm"])], &options).unwrap_err();
        assert_eq!(
            e.to_string(),
            "2 bones: more than the bake's limit of 1 (texture width 4 × bones)"
        );
    }
}
