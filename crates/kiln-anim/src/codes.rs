//! The stable codes [`BindWarning::code`](crate::BindWarning::code) gives, one constant per
//! kind of finding.
//!
//! They follow the codes of `kiln_scene::Warning` (stage prefix, kebab case; `docs/warnings.md`
//! lists them all), so a tool that turns a [`BindWarning`](crate::BindWarning) into such a
//! warning keeps its code. A code keeps its meaning once released; the message may be reworded.

/// Tracks of a clip name no bone of the skeleton, or a bone that already has a track: ignored.
pub const TRACK_IGNORED: &str = "bind.track-ignored";
/// Bones of the skeleton have no track in a clip: they hold their bind pose.
pub const NO_TRACK: &str = "bind.no-track";
/// Rotations of a clip were not unit quaternions (by more than 1e-3): normalised.
pub const ROTATION_NORMALISED: &str = "bind.rotation-normalised";
/// Parts of a classic `.mesh` on differently placed nodes bind the same bone, so the offset
/// [`classic_offsets`](crate::classic_offsets) assumes for it fits only the first of them.
pub const CLASSIC_OFFSET_CONFLICT: &str = "bind.classic-offset-conflict";
