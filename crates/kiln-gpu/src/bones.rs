//! The bake on the GPU: one or more RGBA32F 2D array textures in a [`BoneTextureLayout`], and
//! the frame samples the shaders read it with.

use kiln_anim::Bake;
use kiln_anim::sample::Wrap;

use crate::layout::BoneTextureLayout;
use crate::{Gpu, GpuError, InputError, RangeError};

/// The bind-group-layout entry of the bone texture: RGBA32F is not filterable without an
/// optional feature, and the shaders only `textureLoad` it.
pub(crate) fn texture_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: false },
            view_dimension: wgpu::TextureViewDimension::D2Array,
            multisampled: false,
        },
        count: None,
    }
}

pub(crate) fn uniform_entry(
    binding: u32,
    visibility: wgpu::ShaderStages,
) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Uniform,
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

/// A bake uploaded to the GPU.
#[derive(Debug)]
pub struct BoneTexture {
    layout: BoneTextureLayout,
    pages: Vec<wgpu::TextureView>,
    /// The WGSL `BoneLayout` uniform of every page (they are all alike).
    layout_uniform: wgpu::Buffer,
    frame_counts: Vec<u32>,
}

impl BoneTexture {
    /// Uploads `bake`, split as [`BoneTextureLayout::of_bake`] decides for the GPU's limits.
    pub fn upload(gpu: &Gpu, bake: &Bake) -> Result<BoneTexture, GpuError> {
        let expected = bake.width as u64 * bake.height as u64 * bake.layers as u64;
        if bake.texels.len() as u64 != expected
            || bake.width < 4 * bake.bone_count
            || bake.frame_counts.len() != bake.layers as usize
        {
            return Err(InputError::MalformedBake {
                texels: bake.texels.len(),
                width: bake.width,
                height: bake.height,
                layers: bake.layers,
                bones: bake.bone_count,
                frame_counts: bake.frame_counts.len(),
            }
            .into());
        }
        let layout = BoneTextureLayout::of_bake(bake, gpu.texture_limits())?;
        let budget = gpu.options().max_texture_bytes;
        if layout.bytes() > budget {
            return Err(GpuError::TextureBudget {
                bytes: layout.bytes(),
                budget,
            });
        }
        let mut pages = Vec::with_capacity(layout.pages as usize);
        for page in 0..layout.pages {
            let size = wgpu::Extent3d {
                width: layout.width(),
                height: layout.height(),
                depth_or_array_layers: layout.page_layers(page),
            };
            let texels = layout.pack_page(bake, page);
            let view = gpu.scoped("uploading the bone texture", || {
                gpu.texture_with_data(
                    "kiln bone matrices",
                    size,
                    wgpu::TextureFormat::Rgba32Float,
                    bytemuck::cast_slice(&texels),
                    layout.width() * 16,
                    wgpu::TextureViewDimension::D2Array,
                )
            })?;
            pages.push(view);
        }
        let [
            bones_per_row,
            rows_per_frame,
            frames_per_layer,
            layers_per_clip,
        ] = layout.shader_words();
        let words = [
            layout.bones,
            bones_per_row,
            rows_per_frame,
            frames_per_layer,
            layers_per_clip,
            0,
            0,
            0,
        ];
        let layout_uniform = gpu.buffer_init(
            "bone texture layout",
            bytemuck::cast_slice(&words),
            wgpu::BufferUsages::UNIFORM,
        )?;
        Ok(BoneTexture {
            layout,
            pages,
            layout_uniform,
            frame_counts: bake.frame_counts.clone(),
        })
    }

    /// How the bake's texels are spread over rows, layers and textures on this adapter.
    pub fn layout(&self) -> &BoneTextureLayout {
        &self.layout
    }

    /// Bones of the bake.
    pub fn bone_count(&self) -> u32 {
        self.layout.bones
    }

    /// Frames of each clip.
    pub fn frame_counts(&self) -> &[u32] {
        &self.frame_counts
    }

    pub(crate) fn page(&self, page: u32) -> Option<&wgpu::TextureView> {
        self.pages.get(page as usize)
    }

    pub(crate) fn layout_uniform(&self) -> &wgpu::Buffer {
        &self.layout_uniform
    }

    /// The sample of `clip` at `time` (in frames) with `wrap`, as kiln-anim's CPU skinning
    /// picks its frames ([`Wrap::frames`]).
    pub fn sample(&self, clip: usize, time: f32, wrap: Wrap) -> Result<FrameSample, GpuError> {
        let frames = *self
            .frame_counts
            .get(clip)
            .ok_or(RangeError::ClipNotInBake {
                clip,
                clips: self.frame_counts.len(),
            })?;
        let pair = wrap.frames(time, frames);
        Ok(FrameSample {
            clip: clip as u32,
            current: pair.current,
            next: pair.next,
            t: pair.t,
        })
    }

    /// The shader's form of `sample`: the clip's index within its page, which is returned too.
    pub(crate) fn shader_frame(&self, sample: &FrameSample) -> Result<(u32, GpuFrame), GpuError> {
        let frames =
            *self
                .frame_counts
                .get(sample.clip as usize)
                .ok_or(RangeError::ClipNotInBake {
                    clip: sample.clip as usize,
                    clips: self.frame_counts.len(),
                })?;
        if sample.current >= frames || sample.next >= frames || !sample.t.is_finite() {
            return Err(RangeError::FramesNotInClip {
                clip: sample.clip,
                current: sample.current,
                next: sample.next,
                t: sample.t,
                frames,
            }
            .into());
        }
        let (page, local) = self.layout.page_of_clip(sample.clip);
        Ok((
            page,
            GpuFrame {
                clip: local as i32,
                cur_frame: sample.current as i32,
                next_frame: sample.next as i32,
                time: sample.t,
            },
        ))
    }
}

/// One point of a clip, as the reference runtime feeds its shader: the clip, the current and
/// next frame, and how far between them (`time` of the HLSL `FrameBuffer`, in `[0, 1)`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSample {
    /// The clip (layer of the bake).
    pub clip: u32,
    /// The frame at or before the time (`curFrame`).
    pub current: u32,
    /// The frame blended towards (`nextFrame`).
    pub next: u32,
    /// How far between them, in `[0, 1)`.
    pub t: f32,
}

/// The HLSL `cbuffer FrameBuffer` (WGSL `Frame`).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub(crate) struct GpuFrame {
    pub clip: i32,
    pub cur_frame: i32,
    pub next_frame: i32,
    pub time: f32,
}
