//! The verifier: GPU skinning from the uploaded bake against kiln-anim's CPU skinning.
//!
//! For every chosen clip and time, the GPU path ([`ComputeSkinner`]: the HLSL `SkinWorld` in
//! WGSL, reading the uploaded bone texture) and the CPU path (kiln-anim: each clip evaluated on
//! the skeleton at the current and the next frame ([`AnimationClip::evaluate`]), the two
//! skinning palettes lerped as the shader does, then [`kiln_anim::skin::skin_vertices`]) skin
//! every vertex of the model. A model with morph targets is morphed first on both sides: the
//! GPU with the weights it reads from the uploaded weight texture ([`kiln_anim::WeightBake`]),
//! the CPU with [`kiln_anim::morph_and_skin`] and the weights of the clips' own weight tracks
//! ([`Animated::with_clip_data`]). The CPU side never reads the bake, so a wrong texel (a fault of
//! the bake, of its upload or of the shader's addressing) shows as an error. For a model
//! without clips, the reference is the bind pose (`offset × model` of every bone).
//!
//! The report gives, per clip and time, the largest absolute difference of a coordinate and the
//! root mean square of all differences, for positions, normals and tangents.
//!
//! A sample passes when its largest position error is at most `tolerance × extent` (the
//! largest side of the box around every CPU-skinned position checked) and its largest normal
//! and tangent errors are at most `tolerance × max(1, longest CPU normal or tangent)` (they are
//! not normalised, so a scaled bone scales them).

use std::fmt::Write as _;

use glam::Mat4;
use kiln_anim::sample::{AnimationClip, Wrap};
use kiln_anim::skeleton::{Pose, Skeleton};
use kiln_anim::skin::{check_vertices, skin_vertices};
use kiln_anim::{Bake, Baked, WeightBake, part_shapes, targets_of, track_weights};
use kiln_format::{Clip, Model, Vertex};

use crate::bones::{BoneTexture, FrameSample};
use crate::layout::BoneTextureLayout;
use crate::morph::CpuMorphs;
use crate::skin::{ComputeSkinner, SkinInput, SkinnedFrame};
use crate::{AdapterSummary, FrameOutOfClip, Gpu, GpuError, InputError, RangeError};

/// Which times of each clip to check.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum FrameSelection {
    /// Every frame, every half frame between two frames (the lerp at 0.5), and, for clips of
    /// more than one frame, half a frame past the last one with [`Wrap::Loop`] (the last frame
    /// blending into the first, as a looping runtime plays it).
    #[default]
    All,
    /// These times, in frames (fractions allowed), with [`Wrap::Clamp`]; each must lie in
    /// `[0, frames - 1]` of every clip checked.
    Times(Vec<f32>),
}

/// What [`verify`] checks.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyOptions {
    /// Clips by index; `None`: all.
    pub clips: Option<Vec<usize>>,
    /// The times checked in each clip.
    pub frames: FrameSelection,
    /// Largest error allowed, relative to the model's extent (positions) or to the longest
    /// normal or tangent (at least 1).
    pub tolerance: f32,
}

impl Default for VerifyOptions {
    /// All clips, [`FrameSelection::All`], a tolerance of 1e-4.
    fn default() -> Self {
        VerifyOptions {
            clips: None,
            frames: FrameSelection::All,
            tolerance: 1e-4,
        }
    }
}

/// Largest absolute and root-mean-square difference of one quantity over every vertex and
/// coordinate.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ErrorStat {
    /// Largest absolute difference (infinite where one side is not finite).
    pub max_abs: f32,
    /// Root mean square of the differences.
    pub rms: f32,
}

impl ErrorStat {
    /// The differences of `gpu` from `cpu`; a NaN or infinite value on one side only counts as
    /// an infinite error.
    pub fn between(gpu: &[[f32; 3]], cpu: &[[f32; 3]]) -> ErrorStat {
        let mut max = 0f64;
        let mut sum = 0f64;
        let mut n = 0usize;
        for (g, c) in gpu.iter().zip(cpu) {
            for (a, b) in g.iter().zip(c) {
                let d = if a.to_bits() == b.to_bits() {
                    0.0
                } else {
                    (*a as f64 - *b as f64).abs()
                };
                let d = if d.is_nan() { f64::INFINITY } else { d };
                max = max.max(d);
                sum += d * d;
                n += 1;
            }
        }
        if gpu.len() != cpu.len() {
            max = f64::INFINITY;
        }
        ErrorStat {
            max_abs: max as f32,
            rms: (sum / n.max(1) as f64).sqrt() as f32,
        }
    }
}

/// The comparison at one clip and time.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleReport {
    /// Index of the clip in the bake.
    pub clip: usize,
    /// Its name.
    pub clip_name: String,
    /// In frames.
    pub time: f32,
    /// How the time maps to frames (looping for the sample past the last frame).
    pub wrap: Wrap,
    /// What the shader was given.
    pub sample: FrameSample,
    /// GPU against CPU skinned positions.
    pub position: ErrorStat,
    /// GPU against CPU skinned normals.
    pub normal: ErrorStat,
    /// GPU against CPU skinned tangents.
    pub tangent: ErrorStat,
}

/// Everything [`verify`] measured.
#[derive(Clone, Debug, PartialEq)]
pub struct VerifyReport {
    /// The adapter the GPU skinning ran on.
    pub adapter: AdapterSummary,
    /// How the bone texture was laid out on it.
    pub layout: BoneTextureLayout,
    /// Vertices skinned per sample (every part's).
    pub vertices: usize,
    /// Largest side of the box around every CPU-skinned position checked.
    pub extent: f32,
    /// Longest CPU-skinned normal or tangent (at least 1).
    pub direction_scale: f32,
    /// [`VerifyOptions::tolerance`].
    pub tolerance: f32,
    /// One per clip and time checked, clip by clip.
    pub samples: Vec<SampleReport>,
}

impl VerifyReport {
    /// Largest position error allowed.
    pub fn position_limit(&self) -> f32 {
        self.tolerance * self.extent
    }

    /// Largest normal or tangent error allowed.
    pub fn direction_limit(&self) -> f32 {
        self.tolerance * self.direction_scale
    }

    /// Whether sample `s` is within the tolerance.
    pub fn sample_passes(&self, s: &SampleReport) -> bool {
        s.position.max_abs <= self.position_limit()
            && s.normal.max_abs <= self.direction_limit()
            && s.tangent.max_abs <= self.direction_limit()
    }

    /// The samples past the tolerance.
    pub fn failures(&self) -> impl Iterator<Item = &SampleReport> {
        self.samples.iter().filter(|s| !self.sample_passes(s))
    }

    /// Whether every sample is within the tolerance.
    pub fn passed(&self) -> bool {
        self.failures().next().is_none()
    }

    /// Largest position error of all samples, relative to the extent.
    pub fn worst_position(&self) -> f32 {
        self.samples
            .iter()
            .map(|s| s.position.max_abs)
            .fold(0.0, f32::max)
            / self.extent.max(f32::MIN_POSITIVE)
    }

    /// The table `kiln verify` prints: one row per clip and time.
    pub fn table(&self) -> String {
        let mut t = String::new();
        let name_width = self
            .samples
            .iter()
            .map(|s| s.clip_name.chars().count())
            .max()
            .unwrap_or(4)
            .clamp(4, 32);
        let _ = writeln!(
            t,
            "{:<name_width$}  {:>9}  {:>9} {:>9}  {:>9} {:>9}  {:>9} {:>9}  result",
            "clip", "frame", "pos max", "pos rms", "nrm max", "nrm rms", "tan max", "tan rms",
        );
        for s in &self.samples {
            let name: String = s.clip_name.chars().take(32).collect();
            let frame = match s.wrap {
                Wrap::Clamp => format!("{}", s.time),
                Wrap::Loop => format!("{} loop", s.time),
            };
            let _ = writeln!(
                t,
                "{name:<name_width$}  {frame:>9}  {:>9.2e} {:>9.2e}  {:>9.2e} {:>9.2e}  {:>9.2e} {:>9.2e}  {}",
                s.position.max_abs,
                s.position.rms,
                s.normal.max_abs,
                s.normal.rms,
                s.tangent.max_abs,
                s.tangent.rms,
                if self.sample_passes(s) {
                    "ok"
                } else {
                    "EXCEEDS"
                }
            );
        }
        t
    }
}

/// The times [`FrameSelection`] picks in a clip of `frames` frames; the first time given that
/// is not within the clip is an error.
pub fn sample_times(
    selection: &FrameSelection,
    frames: u32,
) -> Result<Vec<(f32, Wrap)>, FrameOutOfClip> {
    let last = frames.saturating_sub(1);
    match selection {
        FrameSelection::All => {
            let mut t: Vec<(f32, Wrap)> = (0..=2 * last)
                .map(|k| (k as f32 * 0.5, Wrap::Clamp))
                .collect();
            if frames > 1 {
                t.push((last as f32 + 0.5, Wrap::Loop));
            }
            Ok(t)
        }
        FrameSelection::Times(times) => times
            .iter()
            .map(|&x| {
                if x.is_finite() && x >= 0.0 && x <= last as f32 {
                    Ok((x, Wrap::Clamp))
                } else {
                    Err(FrameOutOfClip { time: x, last })
                }
            })
            .collect(),
    }
}

/// The vertices of every part of `model`, in part order.
pub fn model_vertices(model: &Model) -> Vec<Vertex> {
    model
        .meshes
        .iter()
        .flat_map(|p| p.vertices.iter().copied())
        .collect()
}

/// A model ready to verify: its skeleton, its clips bound to that skeleton, and their bake
/// (for a model without clips, [`kiln_anim::bind_pose_bake`] and no clip).
#[derive(Clone, Copy, Debug)]
pub struct Animated<'a> {
    /// The model whose vertices are skinned.
    pub model: &'a Model,
    /// Its skeleton.
    pub skeleton: &'a Skeleton,
    /// Its clips, bound to [`Animated::skeleton`]; empty for a bind-pose bake.
    pub clips: &'a [AnimationClip],
    /// The bake of those clips, as it is uploaded.
    pub bake: &'a Bake,
    /// The morph-target weights of the same clips, as they are uploaded
    /// ([`kiln_anim::Baked::weights`]); `None` for a model without targets.
    pub weights: Option<&'a WeightBake>,
    /// The clips as read ([`kiln_format::Clip`]), whose weight tracks the CPU side morphs with
    /// (it never reads the bake); needed, one per clip, when the model has morph targets.
    pub clip_data: &'a [Clip],
}

impl<'a> Animated<'a> {
    /// `model` with the skeleton, clips and bake [`kiln_anim::bake_model`] made of it.
    pub fn new(model: &'a Model, baked: &'a Baked) -> Animated<'a> {
        Animated {
            model,
            skeleton: &baked.skeleton,
            clips: &baked.clips,
            bake: &baked.bake,
            weights: baked.weights.as_ref(),
            clip_data: &[],
        }
    }

    /// The same with the clips as read, whose weight tracks the CPU side morphs with (in the
    /// order they were baked).
    pub fn with_clip_data(self, clip_data: &'a [Clip]) -> Animated<'a> {
        Animated { clip_data, ..self }
    }

    /// Whether the model has morph targets (and so is morphed before it is skinned).
    pub fn morphs(&self) -> bool {
        self.model
            .meshes
            .iter()
            .any(|p| !p.morph_targets.is_empty())
    }
}

/// Checks that model, skeleton, clips and bake belong together and that the vertices can be
/// skinned.
pub fn check_model(input: &Animated<'_>, vertices: &[Vertex]) -> Result<(), GpuError> {
    let (model, bake) = (input.model, input.bake);
    let bones = input.skeleton.len();
    if model.bones.len() != bones || bake.bone_count as usize != bones {
        return Err(GpuError::BoneCountMismatch {
            bake_bones: bake.bone_count as usize,
            model_bones: model.bones.len(),
        });
    }
    for (i, c) in input.clips.iter().enumerate() {
        if c.bone_count() != bones {
            return Err(InputError::ClipSkeletonMismatch {
                clip: i,
                name: c.name().to_owned(),
                clip_bones: c.bone_count(),
                model_bones: bones,
            }
            .into());
        }
    }
    let clip_frames: Vec<u32> = if input.clips.is_empty() {
        vec![1]
    } else {
        input.clips.iter().map(AnimationClip::frame_count).collect()
    };
    if bake.frame_counts != clip_frames || bake.layers as usize != clip_frames.len() {
        return Err(InputError::ClipFramesMismatch {
            bake: bake.frame_counts.clone(),
            model: clip_frames,
        }
        .into());
    }
    if vertices.is_empty() {
        return Err(InputError::NoVertex.into());
    }
    check_vertices(vertices, bones).map_err(GpuError::BadVertex)?;
    if input.morphs() {
        if input.weights.is_none() {
            return Err(InputError::MorphClipsMissing {
                given: 0,
                clips: input.clips.len(),
            }
            .into());
        }
        if !input.clips.is_empty() && input.clip_data.len() != input.clips.len() {
            return Err(InputError::MorphClipsMissing {
                given: input.clip_data.len(),
                clips: input.clips.len(),
            }
            .into());
        }
        for part in &model.meshes {
            let shapes = part_shapes(part);
            kiln_anim::morph::validate(&targets_of(&shapes), part.vertices.len())
                .map_err(InputError::Morph)?;
        }
    }
    Ok(())
}

/// kiln-anim's skinning palette at `sample`, from the clips (not the bake): the skinning
/// matrices of the current and the next frame, lerped by `t` as the shader lerps the texels.
fn reference_palette(
    input: &Animated<'_>,
    sample: &FrameSample,
    pose: &mut Pose,
    current: &mut [Mat4],
    out: &mut [Mat4],
) -> Result<(), GpuError> {
    let skeleton = input.skeleton;
    let Some(clip) = input.clips.get(sample.clip as usize) else {
        // The bind pose.
        for ((o, m), off) in out
            .iter_mut()
            .zip(skeleton.bind_model())
            .zip(skeleton.offsets())
        {
            *o = *m * *off;
        }
        return Ok(());
    };
    clip.evaluate(skeleton, sample.current as f32, Wrap::Clamp, pose)
        .map_err(InputError::Pose)?;
    current.copy_from_slice(pose.skinning());
    clip.evaluate(skeleton, sample.next as f32, Wrap::Clamp, pose)
        .map_err(InputError::Pose)?;
    let t = sample.t;
    for ((o, a), b) in out.iter_mut().zip(current.iter()).zip(pose.skinning()) {
        // Column by column, HLSL lerp(x, y, s) = x + s * (y - x), as kiln-anim's palette.
        *o = Mat4::from_cols(
            a.x_axis + (b.x_axis - a.x_axis) * t,
            a.y_axis + (b.y_axis - a.y_axis) * t,
            a.z_axis + (b.z_axis - a.z_axis) * t,
            a.w_axis + (b.w_axis - a.w_axis) * t,
        );
    }
    Ok(())
}

/// kiln-anim's morph of the model at `sample`, into `morphed` (the model's vertices): each
/// target's weight from the clip's weight track at the sample's two frames, lerped
/// ([`track_weights`]), as [`kiln_anim::morph_and_skin`] morphs before it skins.
fn reference_morph(
    morphs: &CpuMorphs<'_>,
    input: &Animated<'_>,
    sample: &FrameSample,
    morphed: &mut [Vertex],
) -> Result<(), GpuError> {
    let clip = if input.clips.is_empty() {
        None
    } else {
        input.clip_data.get(sample.clip as usize)
    };
    morphs.apply(
        |part, targets, w| {
            let (current, next) = (sample.current as usize, sample.next as usize);
            track_weights(part, targets, clip, current, next, sample.t, w);
        },
        morphed,
    )
}

/// Skins the model on the GPU from its bake and on the CPU from its clips, at the clips and
/// times `options` picks, and reports the differences.
pub fn verify(
    gpu: &Gpu,
    input: &Animated<'_>,
    options: &VerifyOptions,
) -> Result<VerifyReport, GpuError> {
    let (model, bake) = (input.model, input.bake);
    let vertices = model_vertices(model);
    check_model(input, &vertices)?;
    let clips: Vec<usize> = match &options.clips {
        Some(c) => c.clone(),
        None => (0..bake.layers as usize).collect(),
    };
    let mut plan: Vec<(usize, f32, Wrap)> = Vec::new();
    for &c in &clips {
        let frames = *bake.frame_counts.get(c).ok_or(RangeError::ClipNotInModel {
            clip: c,
            clips: bake.layers as usize,
        })?;
        let name = bake.clip_names.get(c).map(String::as_str).unwrap_or("");
        for (t, w) in
            sample_times(&options.frames, frames).map_err(|source| RangeError::TimeNotInClip {
                clip: c,
                name: name.to_owned(),
                frames,
                source,
            })?
        {
            plan.push((c, t, w));
        }
    }
    if plan.is_empty() {
        return Err(InputError::NothingToCheck.into());
    }

    let bones = BoneTexture::upload(gpu, bake)?;
    let gpu_vertices = match input.weights {
        Some(weights) if input.morphs() => SkinInput::upload_morphed(gpu, model, weights)?,
        _ => SkinInput::upload(gpu, &vertices)?,
    };
    let morphs = CpuMorphs::new(model);
    // The morphed vertices of each sample, for a model with targets only.
    let mut morphed = if morphs.is_some() {
        vertices.clone()
    } else {
        Vec::new()
    };
    let skinner = ComputeSkinner::new(gpu)?;

    // Bound the memory the read-back results take: about 2^26 floats at once.
    let per_round = ((1usize << 26) / (vertices.len() * 9)).max(1);
    let mut pal = vec![Mat4::ZERO; bake.bone_count as usize];
    let mut current = vec![Mat4::ZERO; bake.bone_count as usize];
    let mut pose = Pose::new(input.skeleton);
    let mut cpu = SkinnedFrame {
        positions: vec![[0.0; 3]; vertices.len()],
        normals: vec![[0.0; 3]; vertices.len()],
        tangents: vec![[0.0; 3]; vertices.len()],
    };
    let mut lo = [f32::INFINITY; 3];
    let mut hi = [f32::NEG_INFINITY; 3];
    let mut direction_scale = 1f32;
    let mut samples = Vec::with_capacity(plan.len());
    for round in plan.chunks(per_round) {
        let requests: Vec<FrameSample> = round
            .iter()
            .map(|&(c, t, w)| bones.sample(c, t, w))
            .collect::<Result<_, _>>()?;
        let gpu_frames = skinner.skin(gpu, &bones, &gpu_vertices, &requests)?;
        for ((&(c, t, w), request), g) in round.iter().zip(&requests).zip(&gpu_frames) {
            reference_palette(input, request, &mut pose, &mut current, &mut pal)?;
            let skinned = match &morphs {
                Some(m) => {
                    reference_morph(m, input, request, &mut morphed)?;
                    &morphed
                }
                None => &vertices,
            };
            skin_vertices(
                &pal,
                skinned,
                &mut cpu.positions,
                &mut cpu.normals,
                &mut cpu.tangents,
            )
            .map_err(InputError::Skin)?;
            for p in &cpu.positions {
                for k in 0..3 {
                    if p[k].is_finite() {
                        lo[k] = lo[k].min(p[k]);
                        hi[k] = hi[k].max(p[k]);
                    }
                }
            }
            for d in cpu.normals.iter().chain(&cpu.tangents) {
                let len = glam::Vec3::from(*d).length();
                if len.is_finite() {
                    direction_scale = direction_scale.max(len);
                }
            }
            samples.push(SampleReport {
                clip: c,
                clip_name: bake.clip_names.get(c).cloned().unwrap_or_default(),
                time: t,
                wrap: w,
                sample: *request,
                position: ErrorStat::between(&g.positions, &cpu.positions),
                normal: ErrorStat::between(&g.normals, &cpu.normals),
                tangent: ErrorStat::between(&g.tangents, &cpu.tangents),
            });
        }
    }
    let extent = (0..3)
        .map(|k| hi[k] - lo[k])
        .filter(|e| e.is_finite())
        .fold(0f32, f32::max);
    Ok(VerifyReport {
        adapter: gpu.adapter().clone(),
        layout: *bones.layout(),
        vertices: vertices.len(),
        extent: if extent > 0.0 { extent } else { 1.0 },
        direction_scale,
        tolerance: options.tolerance,
        samples,
    })
}
