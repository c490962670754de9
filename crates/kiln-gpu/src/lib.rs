//! kiln-gpu: proves on a real GPU pipeline that kiln's baked bone matrices skin correctly, and
//! renders what a conversion produced.
//!
//! - [`Gpu`]: a headless wgpu device (Vulkan, Metal or DX12; Mesa's lavapipe where there is no
//!   GPU), with errors captured and every wait bounded by a timeout.
//! - [`BoneTexture`]: a [`kiln_anim::Bake`] uploaded as reference `002`'s `Texture2DArray`
//!   (RGBA32F, `4 × bones` wide, one row per frame, one layer per clip), split over rows, layers
//!   and textures when it exceeds the adapter's limits ([`BoneTextureLayout`]).
//! - [`ComputeSkinner`]: the HLSL `SkinWorld` as a WGSL compute shader (four `textureLoad`s per
//!   bone at the current and the next frame, lerp by the frame fraction, weighted sum of four
//!   bones); positions, normals and tangents read back.
//! - Morph targets: [`SkinInput::upload_morphed`] adds a model's shapes and its baked weights
//!   ([`WeightTexture`], `R32F`, one texel per target and frame); the skinner then morphs each
//!   vertex with the weights read from that texture before skinning it.
//! - [`verify()`]: that GPU result against kiln-anim's CPU skinning, per clip and time, for a
//!   model baked by [`kiln_anim::bake_model`] (seen as an [`Animated`]).
//! - [`preview`]: an offscreen render skinned in the vertex shader (a second GPU path), Lambert
//!   shading with the material's diffuse colour or texture, several frames as a contact sheet;
//!   and the same picture rasterised on the CPU, as the reference the tests compare with.
//!
//! It does not read model files (the `kiln` crate and CLI do), bake (kiln-anim does, on the
//! CPU) and is not meant for wasm32 or for embedding in an engine. Invariants: no `unsafe`; no
//! panic and no unbounded wait on bad input, a missing adapter or a lost device, each of which
//! is a [`GpuError`]. Design and measurements: `docs/gpu.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod bones;
mod context;
mod error;
pub mod image;
mod layout;
mod morph;
pub mod preview;
mod skin;
pub mod verify;

pub use bones::{BoneTexture, FrameSample};
pub use context::{AdapterSummary, Gpu, GpuOptions};
pub use error::{FrameOutOfClip, GpuError, InputError, Oversize, RangeError};
pub use layout::{BoneTextureLayout, TexelAddress, TextureLimits};
pub use morph::WeightTexture;
pub use skin::{ComputeSkinner, SKIN_WGSL, SkinBatch, SkinInput, SkinnedFrame};
pub use verify::{
    Animated, ErrorStat, FrameSelection, SampleReport, VerifyOptions, VerifyReport, verify,
};

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
