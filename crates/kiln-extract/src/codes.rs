//! The [`kiln_scene::Warning::code`]s extraction and clip resampling give, one constant per kind
//! of finding.
//!
//! Codes are stable: a code keeps its meaning once released (the message text may be reworded).
//! [`crate::extract()`]'s warnings carry the node (`node 'NAME'`) as their
//! [`kiln_scene::Warning::location`], [`crate::extract_clip`]'s the animation
//! (`animation 'NAME'`).

/// Point or line faces of a mesh were left out of its part's triangle list.
pub const FACES_DROPPED: &str = "extract.faces-dropped";
/// A mesh of a node has no triangle: no part is written for it.
pub const PART_DROPPED: &str = "extract.part-dropped";
/// A skin bone names no node of the hierarchy: its weights were dropped (the vertex keeps its
/// other weights, renormalised, or binds rigidly to its node when none is left).
pub const UNKNOWN_SKIN_BONE: &str = "extract.unknown-skin-bone";
/// Skin weights name vertices past the end of their mesh: they were ignored.
pub const WEIGHT_OUT_OF_RANGE: &str = "extract.weight-out-of-range";
/// A morph weight channel names a target its mesh does not have, or a mesh no part was made
/// from: it was ignored.
pub const UNKNOWN_MORPH_CHANNEL: &str = "clip.unknown-morph-channel";
/// An animation gives 0 ticks per second (its file says nothing): 25 were used, as Assimp's
/// viewer does.
pub const DEFAULT_TICK_RATE: &str = "clip.default-tick-rate";
/// A channel names no node of the hierarchy: it was ignored.
pub const UNKNOWN_CHANNEL_NODE: &str = "clip.unknown-channel-node";
/// A second channel for the same node: it was ignored (the first one animates the bone).
pub const DUPLICATE_CHANNEL: &str = "clip.duplicate-channel";
/// Rotation keys of a channel were not unit quaternions (by more than 1e-3): normalised.
pub const ROTATION_NORMALISED: &str = "clip.rotation-normalised";
/// Keys of a channel were out of time order: sorted (stable).
pub const KEYS_SORTED: &str = "clip.keys-sorted";
/// A channel has no key at all: its bone keeps its bind pose.
pub const CHANNEL_WITHOUT_KEYS: &str = "clip.channel-without-keys";
/// A channel has no position, rotation or scaling keys (but some of another kind): the bind
/// pose is used for those components.
pub const COMPONENT_WITHOUT_KEYS: &str = "clip.component-without-keys";
/// Bones without a channel have a bind transform with shear, which a keyframe cannot hold: the
/// clip holds its nearest scale·rotation·translation decomposition.
pub const SHEARED_BIND_POSE: &str = "clip.sheared-bind-pose";
