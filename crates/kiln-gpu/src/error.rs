//! kiln-gpu's errors: [`GpuError`], and the typed reasons it wraps ([`InputError`],
//! [`RangeError`], [`crate::image::ImageError`] and other crates' errors). Every value a
//! message names is a field, so a caller can act on it without parsing the text.

use std::time::Duration;

use kiln_anim::{MorphError, PoseMismatch, SkinError};

use crate::image::ImageError;
use crate::layout::TextureLimits;

/// Why a GPU operation failed. Every variant says what to do or what was wrong; none of them
/// is raised by a panic or a hang (waits on the GPU have a timeout).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum GpuError {
    /// No adapter (no Vulkan, Metal or DX12 device, not even a software one).
    #[error(
        "no GPU adapter found ({reason}); for a software one on Debian/Ubuntu: apt-get install mesa-vulkan-drivers"
    )]
    NoAdapter {
        /// What wgpu said, or which adapter names were found when one was asked for by name.
        reason: String,
    },
    /// The adapter refused to create a device.
    #[error("the GPU adapter '{adapter}' could not create a device: {reason}")]
    RequestDevice {
        /// The adapter's name.
        adapter: String,
        /// What wgpu said.
        reason: String,
    },
    /// The device was lost (driver reset, out of memory, destroyed).
    #[error("the GPU device was lost: {reason}")]
    DeviceLost {
        /// What wgpu said.
        reason: String,
    },
    /// The GPU did not finish in time.
    #[error("the GPU did not finish {what} within {:.1} s", timeout.as_secs_f64())]
    Timeout {
        /// The work waited for.
        what: String,
        /// How long it was waited for ([`crate::GpuOptions`]).
        timeout: Duration,
    },
    /// wgpu rejected a call (a kiln-gpu bug or a limit the checks missed).
    #[error("the GPU rejected {what}: {reason}")]
    Rejected {
        /// The call or the work it was part of.
        what: String,
        /// What wgpu said.
        reason: String,
    },
    /// The GPU ran out of memory.
    #[error("the GPU ran out of memory while {what}")]
    OutOfMemory {
        /// The work it was doing.
        what: String,
    },
    /// The bone texture does not fit the adapter's texture limits even when split.
    #[error("{what}: more than the GPU's texture limits allow ({limits})")]
    TextureLimits {
        /// What does not fit (the part of the bake's shape that overflows).
        what: Oversize,
        /// The limits it was laid out for ([`crate::BoneTextureLayout::new`]'s).
        limits: TextureLimits,
    },
    /// The bone texture is larger than the memory budget of [`crate::GpuOptions`].
    #[error("the bone texture would take {bytes} bytes, more than the budget of {budget} bytes")]
    TextureBudget {
        /// Bytes the texture would take.
        bytes: u64,
        /// The budget, [`crate::GpuOptions`]'s.
        budget: u64,
    },
    /// A buffer larger than the device's `max_buffer_size` (a model or batch too large for
    /// this GPU).
    #[error("{label}: a buffer of {size} bytes, more than the GPU's limit of {max}")]
    BufferLimit {
        /// What the buffer was for (its wgpu label).
        label: String,
        /// Bytes it would take.
        size: u64,
        /// The device's limit, in bytes.
        max: u64,
    },
    /// Model and bake do not belong together.
    #[error("the bake has {bake_bones} bones but the model has {model_bones}")]
    BoneCountMismatch {
        /// Bones of the bake (or of the skeleton its clips were bound to).
        bake_bones: usize,
        /// Bones of the model.
        model_bones: usize,
    },
    /// A vertex that cannot be skinned (a blend index that is not a bone, a weight that is not
    /// finite), as [`kiln_anim::skin::check_vertices`] found it; prints as the error it wraps
    /// ([`SkinError::BadIndex`] or [`SkinError::BadWeight`]).
    #[error(transparent)]
    BadVertex(SkinError),
    /// A clip, frame, time or texture page outside the bake or the model; prints as the error
    /// it wraps.
    #[error(transparent)]
    OutOfRange(#[from] RangeError),
    /// Bad input of another kind (an empty model, a malformed bake, parts that do not belong
    /// together); prints as the error it wraps.
    #[error(transparent)]
    Input(#[from] InputError),
    /// An image that could not be encoded, decoded or compared ([`crate::image`]); prints as
    /// the error it wraps.
    #[error(transparent)]
    Image(#[from] ImageError),
    /// The model could not be baked ([`kiln_anim::bake_model`]); prints as the error it wraps.
    #[error(transparent)]
    Bake(#[from] kiln_anim::BakeModelError),
}

impl GpuError {
    pub(crate) fn rejected(what: impl Into<String>, e: impl std::fmt::Display) -> GpuError {
        GpuError::Rejected {
            what: what.into(),
            reason: e.to_string(),
        }
    }

    /// Whether this error means that no GPU could be used at all (no adapter or no device):
    /// the CLI's distinct exit status.
    pub fn is_unavailable(&self) -> bool {
        matches!(
            self,
            GpuError::NoAdapter { .. } | GpuError::RequestDevice { .. }
        )
    }
}

/// The part of a bake that does not fit a GPU's texture limits even when split
/// ([`GpuError::TextureLimits`]); it prints as the shape, for people.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Oversize {
    /// The limits cannot hold one bone matrix (4 texels in a row) or have no layer.
    Bone,
    /// One frame of the bones needs more rows than a texture has.
    Bones {
        /// Bones of the bake.
        bones: u32,
        /// Rows one frame would need.
        rows_per_frame: u32,
        /// Most bones one row can hold.
        max_bones_per_row: u32,
    },
    /// One clip's frames need more layers than a texture has.
    Frames {
        /// Frames of the bake (its longest clip's).
        frames: u32,
        /// Bones of the bake.
        bones: u32,
        /// Layers one clip would need.
        layers_per_clip: u32,
        /// Frames one layer holds.
        frames_per_layer: u32,
    },
}

impl std::fmt::Display for Oversize {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            Oversize::Bone => f.write_str("one bone matrix (4 texels)"),
            Oversize::Bones {
                bones,
                rows_per_frame,
                max_bones_per_row,
            } => write!(
                f,
                "{bones} bones ({rows_per_frame} rows of {max_bones_per_row} bones per frame)"
            ),
            Oversize::Frames {
                frames,
                bones,
                layers_per_clip,
                frames_per_layer,
            } => write!(
                f,
                "{frames} frames of {bones} bones ({layers_per_clip} layers of {frames_per_layer} frames per clip)"
            ),
        }
    }
}

/// A clip, frame, time or texture page that is not in the bake or the model
/// ([`GpuError::OutOfRange`]). Clip indices are positions in the bake's (and model's) clip
/// list; frames and times are in frames of the clip.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum RangeError {
    /// A clip index past the bake's clips ([`crate::BoneTexture::sample`] and the samples given
    /// to [`crate::ComputeSkinner`]).
    #[error("clip {clip}: the bake has {clips} clips")]
    ClipNotInBake {
        /// The clip asked for.
        clip: usize,
        /// Clips the bake holds.
        clips: usize,
    },
    /// A clip index past the model's clips (the clips [`crate::VerifyOptions`] or the preview's
    /// frames ask for).
    #[error("clip {clip}: the model has {clips} clips")]
    ClipNotInModel {
        /// The clip asked for.
        clip: usize,
        /// Clips the model (its bake) has.
        clips: usize,
    },
    /// A [`crate::FrameSample`] whose frames are not in its clip, or whose fraction is not
    /// finite.
    #[error("clip {clip}: frames {current} → {next} at {t} (the clip has {frames} frames)")]
    FramesNotInClip {
        /// The sample's clip.
        clip: u32,
        /// Its current frame.
        current: u32,
        /// Its next frame.
        next: u32,
        /// Its fraction between the two.
        t: f32,
        /// Frames of the clip.
        frames: u32,
    },
    /// A time [`crate::VerifyOptions::frames`] picks that is not in a clip being verified.
    #[error("clip {clip} ('{name}', {frames} frames): {source}")]
    TimeNotInClip {
        /// The clip.
        clip: usize,
        /// Its name (empty when the bake has none for it).
        name: String,
        /// Frames of the clip.
        frames: u32,
        /// The time and the clip's range.
        #[source]
        source: FrameOutOfClip,
    },
    /// A preview frame ([`crate::preview::PreviewFrame`]) whose time is not within its clip
    /// (negative, past the last frame, not finite, or the clip has no frame).
    #[error("frame {time} of clip {clip} ('{name}'), which has {frames} frames")]
    DrawTimeNotInClip {
        /// The time asked for, in frames.
        time: f32,
        /// The clip.
        clip: usize,
        /// Its name (empty when the bake has none for it).
        name: String,
        /// Frames of the clip, as the bake claims.
        frames: u32,
    },
    /// A texture page the layout names but the uploaded bone texture lacks (a kiln-gpu bug).
    #[error("bone texture page {page}")]
    PageNotInTexture {
        /// The page.
        page: u32,
    },
}

/// A time that is not within a clip of `last + 1` frames ([`crate::verify::sample_times`]):
/// negative, past `last`, or not finite.
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("frame {time} is not within 0..={last}")]
pub struct FrameOutOfClip {
    /// The time asked for, in frames.
    pub time: f32,
    /// The clip's last frame (0 for a clip of no frame).
    pub last: u32,
}

/// Input that cannot be checked, skinned or drawn as given ([`GpuError::Input`]): parts that
/// do not belong together, nothing to work on, or more than one call can take.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum InputError {
    /// A [`kiln_anim::Bake`] whose texels, width or frame counts contradict its shape.
    #[error(
        "a malformed bake: {texels} texels for {width}×{height}×{layers}, {bones} bones, {frame_counts} frame counts"
    )]
    MalformedBake {
        /// Texels it holds.
        texels: usize,
        /// Its width, in texels.
        width: u32,
        /// Its height (frames).
        height: u32,
        /// Its layers (clips).
        layers: u32,
        /// Bones it claims.
        bones: u32,
        /// Entries of its frame count list.
        frame_counts: usize,
    },
    /// A bake of no bone, no frame or no clip ([`crate::BoneTextureLayout::new`]).
    #[error("an empty bake ({bones} bones, {frames} frames, {clips} clips)")]
    EmptyBake {
        /// Bones.
        bones: u32,
        /// Frames.
        frames: u32,
        /// Clips.
        clips: u32,
    },
    /// A clip bound to a skeleton of another size than the model's.
    #[error(
        "clip {clip} ('{name}') was bound to a skeleton of {clip_bones} bones, not the model's {model_bones}"
    )]
    ClipSkeletonMismatch {
        /// Index of the clip.
        clip: usize,
        /// Its name.
        name: String,
        /// Bones of the skeleton it was bound to.
        clip_bones: usize,
        /// Bones of the model.
        model_bones: usize,
    },
    /// A bake whose clips are not the model's (another frame count or clip count).
    #[error("the bake holds clips of {bake:?} frames, the model's clips have {model:?}")]
    ClipFramesMismatch {
        /// Frames of each clip of the bake.
        bake: Vec<u32>,
        /// Frames of each clip of the model (`[1]`, the bind pose, when it has none).
        model: Vec<u32>,
    },
    /// A model without vertices, given to the verifier.
    #[error("the model has no vertex")]
    NoVertex,
    /// A model without vertices, given to the preview.
    #[error("the model has no vertex to draw")]
    NoVertexToDraw,
    /// No vertices given to [`crate::SkinInput::upload`].
    #[error("no vertex to skin")]
    NoVertexToSkin,
    /// Options that select no clip or no time to verify.
    #[error("no clip or frame to check")]
    NothingToCheck,
    /// A preview of no frame.
    #[error("no frame to draw")]
    NoFrameToDraw,
    /// No sample given to [`crate::ComputeSkinner::prepare`].
    #[error("no frame to skin")]
    NoFrameToSkin,
    /// A contact sheet wider or taller than the GPU's largest texture (or of tiles of no
    /// pixel).
    #[error(
        "a sheet of {columns}×{rows} tiles of {tile_size} pixels is larger than the GPU's {max_dimension}-pixel limit; draw fewer frames or smaller tiles"
    )]
    SheetTooLarge {
        /// Tiles per row (the most frames of a row).
        columns: u32,
        /// Rows of tiles.
        rows: u32,
        /// Width and height of a tile, in pixels.
        tile_size: u32,
        /// The largest width or height a texture may have, in pixels.
        max_dimension: u32,
    },
    /// A triangle index that is not a vertex of its part.
    #[error("part {part} ('{name}'): index {index} for {vertices} vertices")]
    IndexOutOfRange {
        /// Index of the part in the model.
        part: usize,
        /// Its name.
        name: String,
        /// The index.
        index: u32,
        /// Vertices of the part.
        vertices: usize,
    },
    /// More vertices than a draw's base vertex (an `i32`) can address.
    #[error("more than 2³¹ vertices")]
    TooManyVertices,
    /// A material texture of no pixel, larger than the GPU's largest texture, or whose pixel
    /// data is not `width × height × 4` bytes.
    #[error("material '{material}': a texture of {width}×{height} pixels cannot be used")]
    UnusableTexture {
        /// The material's name.
        material: String,
        /// The texture's width, in pixels.
        width: u32,
        /// Its height, in pixels.
        height: u32,
    },
    /// More samples in one batch than [`crate::ComputeSkinner::max_samples_per_batch`].
    #[error("{samples} samples in one batch, more than the {max} that fit")]
    BatchTooLarge {
        /// Samples given.
        samples: usize,
        /// Most samples one batch takes.
        max: usize,
    },
    /// Samples of one batch whose clips lie in different bone texture pages.
    #[error("the samples of one batch lie in different bone texture pages")]
    BatchSpansPages,
    /// A pose made for another skeleton (kiln-anim's clip evaluation); prints as the error it
    /// wraps.
    #[error(transparent)]
    Pose(#[from] PoseMismatch),
    /// kiln-anim's CPU skinning refused its input (a palette or output of the wrong size, a clip
    /// not in the bake); prints as the error it wraps.
    #[error(transparent)]
    Skin(SkinError),
    /// kiln-anim's CPU morphing refused its input (a target list or weight bake that does not
    /// fit the model); prints as the error it wraps.
    #[error(transparent)]
    Morph(MorphError),
    /// A [`kiln_anim::WeightBake`] whose texels, columns or layers contradict its shape, or that
    /// does not belong to the model or bake it is used with.
    #[error("a malformed weight bake: {texels} texels for {width}×{height}×{layers} ({what})")]
    MalformedWeights {
        /// What does not fit.
        what: &'static str,
        /// Texels it holds.
        texels: usize,
        /// Its width (targets).
        width: u32,
        /// Its height (frames).
        height: u32,
        /// Its layers (clips).
        layers: u32,
    },
    /// A weight texture larger than the GPU's textures (it is never split, unlike the bone
    /// texture).
    #[error("a weight texture of {width}×{height}×{layers} does not fit {limits}")]
    WeightsTooLarge {
        /// Targets.
        width: u32,
        /// Frames.
        height: u32,
        /// Clips.
        layers: u32,
        /// The GPU's limits.
        limits: TextureLimits,
    },
    /// A model with morph targets animated by its clips, given to the verifier without those
    /// clips' weight tracks ([`crate::Animated::with_clip_data`]), or with clip data that are
    /// not its bake's clips.
    #[error(
        "the model's morph targets need the clips' weight tracks: {given} clip(s) given for {clips}"
    )]
    MorphClipsMissing {
        /// Clips given.
        given: usize,
        /// Clips of the bake.
        clips: usize,
    },
}
