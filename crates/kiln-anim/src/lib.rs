//! The animation runtime an engine embeds: it reads the engine data kiln writes (the
//! `kiln_format` model of a `.mesh` and its `.clip`s) and poses, bakes and skins it.
//!
//! - [`skeleton`]: [`Skeleton`] (parents, bind pose, skin offsets) and [`Pose`] (flat arrays),
//!   local → model → skinning matrices; [`classic_offsets`] for classic files, which store no
//!   offsets;
//! - [`sample`]: [`AnimationClip`], a `.clip` bound to a skeleton, sampled at any time (clamp
//!   or loop), interpolating between frames;
//! - [`mod@bake`]: every clip's per-frame skinning matrices in reference `002`'s texture layout,
//!   and [`dds`] to write it as a DDS texture array; [`bake_model`] ([`baked`]) does a whole
//!   model: skeleton, binding, bake;
//! - [`weights`]: every clip's per-frame morph-target weights as an `R32F` texture array beside
//!   the bone texture ([`WeightBake`], part of [`Baked`]);
//! - [`skin`]: CPU skinning with the HLSL's lerp-between-frames semantics;
//! - [`morph`]: blend shapes (morph targets): a channel's weight to its shapes' weights as ufbx
//!   computes them, and positions and normals morphed before (or without) skinning;
//! - [`csv`]: reference `003`'s CSV dump of bones and vertex weights;
//! - [`BindWarning`]: what binding repaired or assumed, with a stable code ([`codes`]).
//!
//! It does not read scenes or source files: the offline lowering of a scene to this data
//! (skin extraction, clip resampling) is `kiln-extract`, and the file codecs are
//! `kiln-format`, of which this crate uses the model and the readers only (not its writers).
//!
//! Invariants: everything is checked once when it is built or bound ([`Skeleton::new`],
//! [`AnimationClip::bind`]); after that the per-frame path allocates nothing and has no check
//! that can fail on data. Bad input is an error or a [`BindWarning`], never a panic.
//! Conventions: the engine data uses row vectors (`v' = v * M`), the same memory as glam's
//! column-major column-vector matrices, so the runtime computes with glam and the bytes need
//! no transposition (`docs/animation.md`). `no_std` + `alloc`, no `unsafe`.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

pub mod bake;
pub mod baked;
pub mod codes;
pub mod csv;
pub mod dds;
pub mod morph;
pub mod sample;
pub mod skeleton;
pub mod skin;
#[cfg(test)]
mod test_bones;
mod warning;
pub mod weights;

pub use bake::{Bake, BakeError, BakeOptions, bake};
pub use baked::{
    BIND_POSE_CLIP, BakeModelError, Baked, ModelBakeOptions, bake_model, bind_pose_bake,
};
pub use morph::{
    MorphError, MorphShape, MorphTarget, apply_morphs, morph_and_skin, part_shapes, shape_weights,
    targets_of, track_weights,
};
pub use sample::{AnimationClip, BindError, Wrap};
pub use skeleton::{Pose, PoseMismatch, Skeleton, SkeletonError, classic_offsets};
pub use skin::{SkinError, palette, skin_vertices};
pub use warning::BindWarning;
pub use weights::{WeightBake, bake_weights};

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
