//! Engine data from a processed scene, and the animation runtime an engine embeds.
//!
//! Offline (the converter):
//! - [`extract`]: bones, mesh parts, top-4 skin weights, skin offsets and materials (the
//!   original tool's `Read*Data`, with its faults fixed);
//! - [`clip`]: one `.clip` per scene animation, every bone resampled at every frame, and the
//!   clip file names.
//!
//! Runtime (no allocation per frame; everything is checked once when it is built or bound):
//! - [`skeleton`]: [`Skeleton`] (parents, bind pose, offsets) and [`Pose`] (flat arrays), local →
//!   model → skinning matrices;
//! - [`sample`]: [`AnimationClip`], a `.clip` bound to a skeleton, sampled at any time (clamp
//!   or loop), interpolating between frames;
//! - [`mod@bake`]: every clip's per-frame skinning matrices in reference `002`'s texture layout, and
//!   [`dds`] to write it as a DDS texture array;
//! - [`skin`]: CPU skinning with the HLSL's lerp-between-frames semantics;
//! - [`csv`]: reference `003`'s CSV dump of bones and vertex weights.
//!
//! It expects a scene that `kiln-process` has already made left-handed and triangulated.
//! Conventions: the scene uses column vectors; the engine files and the texture use row vectors
//! (`v' = v * M`), which is the same memory as glam's column-major column-vector matrices, so
//! the runtime computes with glam and the bytes need no transposition. See
//! `docs/animation.md`.
//!
//! `no_std` + `alloc`: engines embed this crate.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod bake;
pub mod clip;
pub mod csv;
pub mod dds;
pub mod extract;
pub mod sample;
pub mod skeleton;
pub mod skin;

pub use bake::{Bake, BakeError, BakeOptions, bake};
pub use clip::{ClipError, ClipOptions, ExtractedClip, clip_file_names, extract_clips};
pub use sample::{AnimationClip, BindError, Wrap};
pub use skeleton::{Pose, PoseMismatch, Skeleton, SkeletonError, classic_offsets};
pub use skin::{SkinError, palette, skin_vertices};
