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
//! - [`verify()`]: that GPU result against kiln-anim's CPU skinning, per clip and time.
//! - [`preview`]: an offscreen render skinned in the vertex shader (a second GPU path), Lambert
//!   shading with the material's diffuse colour or texture, several frames as a contact sheet;
//!   and the same picture rasterised on the CPU, as the reference the tests compare with.
//! - [`fixture`]: generated skinned, animated models for tests, benchmarks and demos.
//!
//! It does not read model files (the `kiln` crate and CLI do) and is not meant for wasm32 or
//! for embedding in an engine. Invariants: no `unsafe`; no panic and no unbounded wait on bad
//! input, a missing adapter or a lost device, each of which is a [`GpuError`].
#![forbid(unsafe_code)]

mod bones;
mod context;
mod error;
pub mod fixture;
pub mod image;
mod layout;
pub mod preview;
mod skin;
pub mod verify;

pub use bones::{BoneTexture, FrameSample};
pub use context::{AdapterSummary, Gpu, GpuOptions};
pub use error::GpuError;
pub use layout::{BoneTextureLayout, TexelAddress, TextureLimits};
pub use skin::{ComputeSkinner, SKIN_WGSL, SkinBatch, SkinInput, SkinnedFrame};
pub use verify::{
    Animated, ErrorStat, FrameSelection, SampleReport, VerifyOptions, VerifyReport, verify,
};

use kiln_anim::sample::AnimationClip;
use kiln_anim::skeleton::Skeleton;
use kiln_anim::{Bake, BakeOptions};
use kiln_format::{Clip, Matrix, Model};

/// The name [`bind_pose_bake`] gives its one clip.
pub const BIND_POSE_CLIP: &str = "(bind pose)";

/// A bake of one clip of one frame holding each bone's bind-pose skinning matrix
/// (`offset × model`), for models without animation: what [`verify()`] and [`preview`] check
/// and draw for them.
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
        frame_counts: vec![1],
        frame_rates: vec![30.0],
        clip_names: vec![BIND_POSE_CLIP.into()],
        texels,
    }
}

/// A model's skeleton, its clips bound to it, and their bake: what [`verify()`] and
/// [`preview`] take.
#[derive(Clone, Debug)]
pub struct Baked {
    pub skeleton: Skeleton,
    pub clips: Vec<AnimationClip>,
    /// [`bind_pose_bake`] when there is no clip.
    pub bake: Bake,
    /// Repairs kiln-anim made while binding (bones without a track hold their bind pose).
    pub warnings: Vec<String>,
}

impl Baked {
    /// The [`Animated`] view of `model` with this bake.
    pub fn animated<'a>(&'a self, model: &'a Model) -> Animated<'a> {
        Animated {
            model,
            skeleton: &self.skeleton,
            clips: &self.clips,
            bake: &self.bake,
        }
    }
}

/// Builds the skeleton from `model`'s bones and `offsets` (one per bone, as
/// `kiln_anim::extract` or `kiln_anim::classic_offsets` give them), binds every clip and bakes
/// them with `options`. A clip with a track naming no bone of the model does not belong to it
/// and is an error (kiln-anim alone would ignore the track with a warning).
pub fn bake_model(
    model: &Model,
    offsets: &[Option<Matrix>],
    clips: &[Clip],
    options: &BakeOptions,
) -> Result<Baked, GpuError> {
    let skeleton =
        Skeleton::new(&model.bones, offsets).map_err(|e| GpuError::Input(e.to_string()))?;
    let mut warnings = Vec::new();
    let mut bound = Vec::with_capacity(clips.len());
    for clip in clips {
        let strangers: Vec<&str> = clip
            .tracks
            .iter()
            .map(|t| t.bone_name.as_str())
            .filter(|name| skeleton.find(name).is_none())
            .collect();
        if !strangers.is_empty() {
            return Err(GpuError::Input(format!(
                "clip '{}' does not match the model's bones: {} of its {} tracks name no bone of the model ({})",
                clip.name,
                strangers.len(),
                clip.tracks.len(),
                strangers
                    .iter()
                    .take(5)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ")
                    + if strangers.len() > 5 { ", …" } else { "" }
            )));
        }
        let (c, w) =
            AnimationClip::bind(&skeleton, clip).map_err(|e| GpuError::Input(e.to_string()))?;
        warnings.extend(w);
        bound.push(c);
    }
    let bake = if bound.is_empty() {
        bind_pose_bake(&skeleton)
    } else {
        kiln_anim::bake(&skeleton, &bound, options).map_err(|e| GpuError::Input(e.to_string()))?
    };
    Ok(Baked {
        skeleton,
        clips: bound,
        bake,
        warnings,
    })
}
