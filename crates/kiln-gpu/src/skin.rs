//! Compute skinning on the GPU with reference `002`'s `SkinWorld`: positions, normals and
//! tangents of every vertex at every [`FrameSample`], read back to the CPU.
//!
//! The vertices go up as the `.mesh` stores them (76-byte [`Vertex`]), in chunks that fit one
//! storage binding; samples are dispatched in batches whose output fits one storage binding too
//! (128 MiB by default), one workgroup row per sample.

use kiln_anim::WeightBake;
use kiln_format::{Model, VERTEX_SIZE, Vertex};

use crate::bones::{BoneTexture, FrameSample, GpuFrame, texture_entry, uniform_entry};
use crate::morph::{ENTRY_WORDS, MorphLayout, WeightTexture, weight_texture_entry};
use crate::{Gpu, GpuError, InputError, RangeError};

/// The WGSL of [`ComputeSkinner`]: the shared `SkinWorld` and the compute entry point.
pub const SKIN_WGSL: &str = concat!(
    include_str!("shaders/skin_common.wgsl"),
    "\n",
    include_str!("shaders/skin.wgsl")
);

/// Floats written per vertex and sample: position, normal, tangent.
const OUT_FLOATS: u64 = 9;
const WORKGROUP: u32 = 64;

/// Skinned vertices of one sample.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SkinnedFrame {
    /// One per vertex, in model space.
    pub positions: Vec<[f32; 3]>,
    /// Upper 3×3 applied, not normalised.
    pub normals: Vec<[f32; 3]>,
    /// Upper 3×3 applied, not normalised.
    pub tangents: Vec<[f32; 3]>,
}

struct Chunk {
    buffer: wgpu::Buffer,
    start: usize,
    len: usize,
}

/// Vertices on the GPU, for [`ComputeSkinner`], and with [`SkinInput::upload_morphed`] the
/// model's morph targets and baked weights.
pub struct SkinInput {
    chunks: Vec<Chunk>,
    len: usize,
    morph: Option<MorphInput>,
}

/// The morph data of a [`SkinInput`]: the weight texture, the shape table, and per chunk its
/// vertices' delta lists (`skin_morph` in `skin.wgsl`).
struct MorphInput {
    weights: WeightTexture,
    shapes: wgpu::Buffer,
    /// Per chunk: vertex ranges, entries.
    chunks: Vec<(wgpu::Buffer, wgpu::Buffer)>,
}

impl std::fmt::Debug for SkinInput {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinInput")
            .field("vertices", &self.len)
            .field("chunks", &self.chunks.len())
            .field("morph", &self.morph.is_some())
            .finish()
    }
}

impl SkinInput {
    /// Uploads `vertices` in chunks a storage binding and a dispatch can take.
    pub fn upload(gpu: &Gpu, vertices: &[Vertex]) -> Result<SkinInput, GpuError> {
        if vertices.is_empty() {
            return Err(InputError::NoVertexToSkin.into());
        }
        let chunk = max_vertices_per_dispatch(gpu);
        let mut chunks = Vec::new();
        for (i, part) in vertices.chunks(chunk).enumerate() {
            let buffer = gpu.buffer_init(
                "skinning vertices",
                bytemuck::cast_slice(part),
                wgpu::BufferUsages::STORAGE,
            )?;
            chunks.push(Chunk {
                buffer,
                start: i * chunk,
                len: part.len(),
            });
        }
        Ok(SkinInput {
            chunks,
            len: vertices.len(),
            morph: None,
        })
    }

    /// Uploads the vertices of every part of `model` (in part order, as
    /// [`crate::verify::model_vertices`]) with its morph targets and their baked `weights`
    /// ([`kiln_anim::Baked::weights`]): [`ComputeSkinner`] then morphs each vertex with the
    /// weights it reads from the weight texture at each sample before skinning it, as
    /// [`kiln_anim::morph_and_skin`] does on the CPU.
    pub fn upload_morphed(
        gpu: &Gpu,
        model: &Model,
        weights: &WeightBake,
    ) -> Result<SkinInput, GpuError> {
        let vertices = crate::verify::model_vertices(model);
        let mut input = SkinInput::upload(gpu, &vertices)?;
        let layout = MorphLayout::new(model, weights)?;
        let texture = WeightTexture::upload(gpu, weights)?;
        let mut shape_words = layout.shapes;
        if shape_words.is_empty() {
            // A storage binding of no element is not allowed.
            shape_words.push([0; 4]);
        }
        let shapes = gpu.buffer_init(
            "morph shapes",
            bytemuck::cast_slice(&shape_words),
            wgpu::BufferUsages::STORAGE,
        )?;
        let mut chunks = Vec::with_capacity(input.chunks.len());
        for c in &input.chunks {
            let ranges = &layout.ranges[c.start..c.start + c.len];
            let first = ranges.first().map_or(0, |r| r[0]);
            let end = ranges
                .last()
                .map_or(0, |r| r[0] + (r[1] & !crate::morph::RENORMALISE));
            let local: Vec<[u32; 2]> = ranges.iter().map(|r| [r[0] - first, r[1]]).collect();
            let entries = &layout.entries[first as usize * ENTRY_WORDS..end as usize * ENTRY_WORDS];
            let entries: &[u32] = if entries.is_empty() { &[0] } else { entries };
            chunks.push((
                gpu.buffer_init(
                    "morph vertex ranges",
                    bytemuck::cast_slice(&local),
                    wgpu::BufferUsages::STORAGE,
                )?,
                gpu.buffer_init(
                    "morph deltas",
                    bytemuck::cast_slice(entries),
                    wgpu::BufferUsages::STORAGE,
                )?,
            ));
        }
        input.morph = Some(MorphInput {
            weights: texture,
            shapes,
            chunks,
        });
        Ok(input)
    }

    /// Vertices uploaded.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether no vertex was uploaded.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

/// Most vertices one dispatch takes: the vertex and output storage bindings and the workgroup
/// count limit, a multiple of the workgroup size.
fn max_vertices_per_dispatch(gpu: &Gpu) -> usize {
    let limits = gpu.device().limits();
    let binding = limits
        .max_storage_buffer_binding_size
        .min(limits.max_buffer_size);
    let by_binding = binding / VERTEX_SIZE as u64;
    let by_groups = limits.max_compute_workgroups_per_dimension as u64 * WORKGROUP as u64;
    let n = by_binding.min(by_groups) / WORKGROUP as u64 * WORKGROUP as u64;
    n.max(WORKGROUP as u64) as usize
}

/// The compute pipelines: skinning (`skin`), and morphing then skinning (`skin_morph`) for
/// inputs with morph targets.
pub struct ComputeSkinner {
    pipeline: wgpu::ComputePipeline,
    bind_layout: wgpu::BindGroupLayout,
    morph_pipeline: wgpu::ComputePipeline,
    morph_bind_layout: wgpu::BindGroupLayout,
}

impl std::fmt::Debug for ComputeSkinner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ComputeSkinner")
    }
}

fn storage_entry(binding: u32, read_only: bool) -> wgpu::BindGroupLayoutEntry {
    wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::COMPUTE,
        ty: wgpu::BindingType::Buffer {
            ty: wgpu::BufferBindingType::Storage { read_only },
            has_dynamic_offset: false,
            min_binding_size: None,
        },
        count: None,
    }
}

impl ComputeSkinner {
    /// Compiles the shader and builds the pipelines.
    pub fn new(gpu: &Gpu) -> Result<ComputeSkinner, GpuError> {
        gpu.scoped("building the compute skinning pipelines", || {
            let device = gpu.device();
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("kiln skin.wgsl"),
                source: wgpu::ShaderSource::Wgsl(SKIN_WGSL.into()),
            });
            let c = wgpu::ShaderStages::COMPUTE;
            let skin_entries = [
                texture_entry(0, c),
                uniform_entry(1, c),
                uniform_entry(2, c),
                storage_entry(3, true),
                storage_entry(4, true),
                storage_entry(5, false),
            ];
            let mut morph_entries = skin_entries.to_vec();
            morph_entries.extend([
                weight_texture_entry(6),
                storage_entry(7, true),
                storage_entry(8, true),
                storage_entry(9, true),
                storage_entry(10, true),
            ]);
            let build = |label: &str, entries: &[wgpu::BindGroupLayoutEntry], entry: &str| {
                let bind_layout =
                    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                        label: Some(label),
                        entries,
                    });
                let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                    label: Some(label),
                    bind_group_layouts: &[Some(&bind_layout)],
                    immediate_size: 0,
                });
                let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                    label: Some(label),
                    layout: Some(&layout),
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    cache: None,
                });
                (pipeline, bind_layout)
            };
            let (pipeline, bind_layout) = build("kiln skinning", &skin_entries, "skin");
            let (morph_pipeline, morph_bind_layout) =
                build("kiln morphing and skinning", &morph_entries, "skin_morph");
            ComputeSkinner {
                pipeline,
                bind_layout,
                morph_pipeline,
                morph_bind_layout,
            }
        })
    }

    /// Most samples one batch takes for `input`: the output of its largest chunk must fit one
    /// storage binding, and one workgroup row per sample.
    pub fn max_samples_per_batch(&self, gpu: &Gpu, input: &SkinInput) -> usize {
        let limits = gpu.device().limits();
        let binding = limits
            .max_storage_buffer_binding_size
            .min(limits.max_buffer_size);
        let largest = input.chunks.iter().map(|c| c.len).max().unwrap_or(1) as u64;
        let by_binding = binding / (largest * OUT_FLOATS * 4);
        by_binding
            .min(limits.max_compute_workgroups_per_dimension as u64)
            .max(1) as usize
    }

    /// Prepares one batch: `samples` must all lie in one page of `bones` (they do unless the
    /// bake was split into several textures) and be at most
    /// [`ComputeSkinner::max_samples_per_batch`].
    pub fn prepare(
        &self,
        gpu: &Gpu,
        bones: &BoneTexture,
        input: &SkinInput,
        samples: &[FrameSample],
    ) -> Result<SkinBatch, GpuError> {
        if samples.is_empty() {
            return Err(InputError::NoFrameToSkin.into());
        }
        if samples.len() > self.max_samples_per_batch(gpu, input) {
            return Err(InputError::BatchTooLarge {
                samples: samples.len(),
                max: self.max_samples_per_batch(gpu, input),
            }
            .into());
        }
        let mut page = None;
        let mut frames = Vec::with_capacity(samples.len());
        // The same samples with each clip's index over the whole bake, for the weight texture.
        let mut morph_frames = Vec::with_capacity(samples.len());
        for s in samples {
            let (p, f) = bones.shader_frame(s)?;
            if *page.get_or_insert(p) != p {
                return Err(InputError::BatchSpansPages.into());
            }
            frames.push(f);
            morph_frames.push(GpuFrame {
                clip: s.clip as i32,
                ..f
            });
        }
        if let Some(m) = &input.morph
            && let Some(s) = samples.iter().find(|s| s.clip >= m.weights.layers())
        {
            return Err(RangeError::ClipNotInBake {
                clip: s.clip as usize,
                clips: m.weights.layers() as usize,
            }
            .into());
        }
        let morph_frame_buffer = match &input.morph {
            Some(_) => Some(gpu.buffer_init(
                "morph frame samples",
                bytemuck::cast_slice(&morph_frames),
                wgpu::BufferUsages::STORAGE,
            )?),
            None => None,
        };
        let page = page.unwrap_or(0);
        let view = bones
            .page(page)
            .ok_or(RangeError::PageNotInTexture { page })?;
        let frame_buffer = gpu.buffer_init(
            "frame samples",
            bytemuck::cast_slice(&frames),
            wgpu::BufferUsages::STORAGE,
        )?;
        let mut chunks = Vec::with_capacity(input.chunks.len());
        for (k, chunk) in input.chunks.iter().enumerate() {
            let words = [chunk.len as u32, samples.len() as u32, 0, 0];
            let params = gpu.buffer_init(
                "skinning parameters",
                bytemuck::cast_slice(&words),
                wgpu::BufferUsages::UNIFORM,
            )?;
            let out_size = chunk.len as u64 * samples.len() as u64 * OUT_FLOATS * 4;
            let output = gpu.buffer(
                "skinned vertices",
                out_size,
                wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
            )?;
            let readback = gpu.buffer(
                "skinned vertices (read back)",
                out_size,
                wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            )?;
            let mut entries = vec![
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: bones.layout_uniform().as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: params.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: chunk.buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: frame_buffer.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: output.as_entire_binding(),
                },
            ];
            let layout = match (&input.morph, &morph_frame_buffer) {
                (Some(m), Some(morph_frames)) => {
                    let (ranges, deltas) = &m.chunks[k];
                    entries.extend([
                        wgpu::BindGroupEntry {
                            binding: 6,
                            resource: wgpu::BindingResource::TextureView(m.weights.view()),
                        },
                        wgpu::BindGroupEntry {
                            binding: 7,
                            resource: m.shapes.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 8,
                            resource: ranges.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 9,
                            resource: deltas.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 10,
                            resource: morph_frames.as_entire_binding(),
                        },
                    ]);
                    &self.morph_bind_layout
                }
                _ => &self.bind_layout,
            };
            let bind_group = gpu.scoped("binding the skinning inputs", || {
                gpu.device().create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some("kiln skinning"),
                    layout,
                    entries: &entries,
                })
            })?;
            chunks.push(BatchChunk {
                bind_group,
                output,
                readback,
                out_size,
                start: chunk.start,
                len: chunk.len,
                _params: params,
            });
        }
        Ok(SkinBatch {
            pipeline: if input.morph.is_some() {
                self.morph_pipeline.clone()
            } else {
                self.pipeline.clone()
            },
            _morph_frames: morph_frame_buffer,
            chunks,
            samples: samples.len(),
            vertices: input.len,
            _frames: frame_buffer,
        })
    }

    /// Skins every vertex of `input` at every sample and reads the results back, batch by
    /// batch.
    pub fn skin(
        &self,
        gpu: &Gpu,
        bones: &BoneTexture,
        input: &SkinInput,
        samples: &[FrameSample],
    ) -> Result<Vec<SkinnedFrame>, GpuError> {
        let per_batch = self.max_samples_per_batch(gpu, input);
        let mut out = vec![SkinnedFrame::default(); samples.len()];
        // Group by page, keeping each sample's place in the output.
        let mut order: Vec<usize> = (0..samples.len()).collect();
        order.sort_by_key(|&i| bones.layout().page_of_clip(samples[i].clip).0);
        let mut i = 0;
        while i < order.len() {
            let page = bones.layout().page_of_clip(samples[order[i]].clip).0;
            let mut j = i;
            while j < order.len()
                && j - i < per_batch
                && bones.layout().page_of_clip(samples[order[j]].clip).0 == page
            {
                j += 1;
            }
            let batch_samples: Vec<FrameSample> = order[i..j].iter().map(|&k| samples[k]).collect();
            let batch = self.prepare(gpu, bones, input, &batch_samples)?;
            batch.execute(gpu, true)?;
            for (k, frame) in order[i..j].iter().zip(batch.read(gpu)?) {
                out[*k] = frame;
            }
            i = j;
        }
        Ok(out)
    }
}

struct BatchChunk {
    bind_group: wgpu::BindGroup,
    output: wgpu::Buffer,
    readback: wgpu::Buffer,
    out_size: u64,
    start: usize,
    len: usize,
    _params: wgpu::Buffer,
}

/// One prepared dispatch of samples over every vertex chunk; run it as often as wanted (the
/// benchmark does).
pub struct SkinBatch {
    pipeline: wgpu::ComputePipeline,
    chunks: Vec<BatchChunk>,
    samples: usize,
    vertices: usize,
    _frames: wgpu::Buffer,
    _morph_frames: Option<wgpu::Buffer>,
}

impl std::fmt::Debug for SkinBatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SkinBatch")
            .field("samples", &self.samples)
            .field("vertices", &self.vertices)
            .finish()
    }
}

impl SkinBatch {
    /// Vertices × samples this batch skins.
    pub fn work(&self) -> u64 {
        self.vertices as u64 * self.samples as u64
    }

    /// Dispatches the batch and waits for it (at most the timeout); with `readback`, also
    /// copies the results where [`SkinBatch::read`] finds them.
    pub fn execute(&self, gpu: &Gpu, readback: bool) -> Result<(), GpuError> {
        let submission = gpu.scoped("dispatching the skinning", || {
            let mut encoder =
                gpu.device()
                    .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                        label: Some("kiln skinning"),
                    });
            {
                let mut pass = encoder.begin_compute_pass(&wgpu::ComputePassDescriptor {
                    label: Some("kiln skinning"),
                    timestamp_writes: None,
                });
                pass.set_pipeline(&self.pipeline);
                for c in &self.chunks {
                    pass.set_bind_group(0, &c.bind_group, &[]);
                    pass.dispatch_workgroups(
                        (c.len as u32).div_ceil(WORKGROUP),
                        self.samples as u32,
                        1,
                    );
                }
            }
            if readback {
                for c in &self.chunks {
                    encoder.copy_buffer_to_buffer(&c.output, 0, &c.readback, 0, c.out_size);
                }
            }
            gpu.queue().submit([encoder.finish()])
        })?;
        gpu.wait(submission, "the skinning dispatch")
    }

    /// The results of the last [`SkinBatch::execute`] with `readback`, one frame per sample.
    pub fn read(&self, gpu: &Gpu) -> Result<Vec<SkinnedFrame>, GpuError> {
        let mut frames: Vec<SkinnedFrame> = (0..self.samples)
            .map(|_| SkinnedFrame {
                positions: vec![[0.0; 3]; self.vertices],
                normals: vec![[0.0; 3]; self.vertices],
                tangents: vec![[0.0; 3]; self.vertices],
            })
            .collect();
        for c in &self.chunks {
            let bytes = gpu.read_buffer(&c.readback, "reading the skinned vertices back")?;
            let floats: Vec<f32> = bytemuck::pod_collect_to_vec(&bytes);
            for (s, frame) in frames.iter_mut().enumerate() {
                let per = OUT_FLOATS as usize;
                let rows = floats
                    .get(s * c.len * per..(s + 1) * c.len * per)
                    .unwrap_or_default();
                for (v, x) in rows.chunks_exact(per).enumerate() {
                    let i = c.start + v;
                    frame.positions[i] = [x[0], x[1], x[2]];
                    frame.normals[i] = [x[3], x[4], x[5]];
                    frame.tangents[i] = [x[6], x[7], x[8]];
                }
            }
        }
        Ok(frames)
    }
}
