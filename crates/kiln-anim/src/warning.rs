//! What the runtime repaired or assumed while building a skeleton's offsets or binding a clip:
//! [`BindWarning`], one variant per kind of finding, with a stable [`BindWarning::code`].

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

use crate::codes;

/// A non-fatal finding of [`AnimationClip::bind`](crate::AnimationClip::bind) or
/// [`classic_offsets`](crate::classic_offsets). Its `Display` is the sentence shown to the
/// user; [`BindWarning::code`] is the stable identifier tools filter and count by.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BindWarning {
    /// Tracks of `clip` name no bone of the skeleton, or a bone that already has a track; they
    /// are ignored.
    TracksIgnored {
        /// The clip's name.
        clip: String,
        /// The bone names of the ignored tracks, in track order.
        tracks: Vec<String>,
    },
    /// Bones have no track in `clip`; they hold their bind pose.
    BonesWithoutTrack {
        /// The clip's name.
        clip: String,
        /// The names of those bones, in bone order.
        bones: Vec<String>,
    },
    /// Rotations of `clip` were not unit quaternions (length off by more than 1e-3); they
    /// were normalised.
    RotationsNormalised {
        /// The clip's name.
        clip: String,
        /// How many keyframe rotations, over all tracks.
        count: usize,
    },
    /// Parts `first_part` and `part` of a classic `.mesh` sit on differently placed nodes and
    /// both bind bone `bone`; the offset of `first_part` is used.
    ClassicOffsetConflict {
        /// Index of the bone.
        bone: usize,
        /// Its name.
        bone_name: String,
        /// The part whose offset is used (the first that binds the bone).
        first_part: usize,
        /// The later part that would need another offset.
        part: usize,
        /// Its name.
        part_name: String,
    },
}

impl BindWarning {
    /// The stable code of this kind of finding, one of [`codes`].
    pub fn code(&self) -> &'static str {
        match self {
            BindWarning::TracksIgnored { .. } => codes::TRACK_IGNORED,
            BindWarning::BonesWithoutTrack { .. } => codes::NO_TRACK,
            BindWarning::RotationsNormalised { .. } => codes::ROTATION_NORMALISED,
            BindWarning::ClassicOffsetConflict { .. } => codes::CLASSIC_OFFSET_CONFLICT,
        }
    }
}

impl fmt::Display for BindWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BindWarning::TracksIgnored { clip, tracks } => write!(
                f,
                "clip '{clip}': {} track(s) name no bone of the skeleton (or a bone that already has one) and are ignored: {}",
                tracks.len(),
                tracks.join(", ")
            ),
            BindWarning::BonesWithoutTrack { clip, bones } => write!(
                f,
                "clip '{clip}': {} bone(s) have no track and hold their bind pose: {}",
                bones.len(),
                bones.join(", ")
            ),
            BindWarning::RotationsNormalised { clip, count } => write!(
                f,
                "clip '{clip}': {count} rotation(s) were not unit quaternions; normalised"
            ),
            BindWarning::ClassicOffsetConflict {
                bone,
                bone_name,
                first_part,
                part,
                part_name,
            } => write!(
                f,
                "bone {bone} ('{bone_name}'): parts {first_part} and {part} ('{part_name}') sit on differently placed nodes; the offset of part {first_part} is used"
            ),
        }
    }
}
