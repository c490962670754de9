//! The offscreen preview: the model skinned in the vertex shader at several frames, Lambert
//! shaded with each part's material (diffuse colour, times its texture when it has one), one
//! tile per frame in a contact sheet; and [`render_cpu`], the same picture from kiln-anim's CPU
//! skinning and a plain CPU rasteriser, as the reference the tests compare the GPU with.
//!
//! The camera ([`frame_camera`]) frames the box around every vertex at every frame drawn, so
//! all tiles share it and motion shows: it looks at the box's centre from the front (−Z, as
//! the engine's left-handed, Y-up space has it), a little from the right and above, with the
//! whole bounding sphere in a 40° field of view. The light comes from above the camera. Both
//! sides of a triangle are drawn and lit (no culling, `|n · l|`), so winding and handedness
//! never hide a part.
//!
//! Rows of the sheet are the rows the caller gives (the CLI: one per clip), columns their
//! frames.
//!
//! A model with morph targets is morphed on the CPU per tile ([`kiln_anim::apply_morphs`], with
//! the weights of the baked weight texture at the tile's time) and each tile draws its own copy
//! of the vertices, then skinned as any model (in the vertex shader, or on the CPU by
//! [`render_cpu`]). The GPU morph an engine would run is what the verifier checks
//! ([`crate::verify()`]); the preview only has to show the shapes move.

use glam::{Mat4, Vec3, Vec4};
use kiln_anim::sample::Wrap;
use kiln_anim::skin::{check_vertices, palette, skin_positions, skin_vertices};
use kiln_anim::{Bake, WeightBake};
use kiln_format::{MaterialData, Model, VERTEX_SIZE, Vertex};

use crate::bones::{BoneTexture, GpuFrame, texture_entry, uniform_entry};
use crate::image::Image;
use crate::morph::CpuMorphs;
use crate::{Gpu, GpuError, InputError, RangeError};

/// The WGSL of the preview: the shared `SkinWorld` and the vertex and fragment shaders.
pub const PREVIEW_WGSL: &str = concat!(
    include_str!("shaders/skin_common.wgsl"),
    "\n",
    include_str!("shaders/preview.wgsl")
);

/// A material as the preview draws it.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewMaterial {
    /// The material's name, which parts name in their `material_name`.
    pub name: String,
    /// RGBA, 0..1.
    pub diffuse: [f32; 4],
    /// Multiplies the diffuse colour.
    pub texture: Option<Image>,
}

impl PreviewMaterial {
    /// From the material XML's data and its decoded diffuse texture, if any.
    pub fn from_data(data: &MaterialData, texture: Option<Image>) -> PreviewMaterial {
        PreviewMaterial {
            name: data.name.clone(),
            diffuse: data.diffuse,
            texture,
        }
    }
}

/// The colour of a part whose material is not found.
pub const DEFAULT_DIFFUSE: [f32; 4] = [0.7, 0.7, 0.7, 1.0];

/// How the sheet looks.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreviewOptions {
    /// Side of one tile, in pixels.
    pub tile_size: u32,
    /// RGBA8 colour behind the model.
    pub background: [u8; 4],
    /// Light that reaches every surface, 0..1.
    pub ambient: f32,
}

impl Default for PreviewOptions {
    /// 256-pixel tiles on a dark grey, ambient 0.25.
    fn default() -> Self {
        PreviewOptions {
            tile_size: 256,
            background: [38, 40, 46, 255],
            ambient: 0.25,
        }
    }
}

/// One tile: a clip and a time in frames (held at the ends, as [`Wrap::Clamp`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PreviewFrame {
    /// The clip (layer of the bake).
    pub clip: usize,
    /// The time, in frames of that clip.
    pub time: f32,
}

/// What to draw: a model, its materials (matched to parts by name) and its bake.
#[derive(Clone, Copy, Debug)]
pub struct PreviewScene<'a> {
    /// The model whose parts are drawn.
    pub model: &'a Model,
    /// Its materials; a part whose material is not here is drawn in [`DEFAULT_DIFFUSE`].
    pub materials: &'a [PreviewMaterial],
    /// The bake the vertex shader skins with.
    pub bake: &'a Bake,
    /// The morph-target weights baked with it ([`kiln_anim::Baked::weights`]): each tile's
    /// parts are morphed with the weights at its time before they are skinned. `None` draws
    /// the base shapes.
    pub weights: Option<&'a WeightBake>,
}

/// The view and light all tiles share.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Camera {
    /// World to clip space (left-handed, depth 0..1), column vectors.
    pub view_proj: Mat4,
    /// Position of the eye, in model space.
    pub eye: Vec3,
    /// Unit vector towards the light.
    pub light: Vec3,
}

/// A camera that frames the box `lo..hi` (see the module's documentation).
pub fn frame_camera(lo: Vec3, hi: Vec3) -> Camera {
    let (lo, hi) = if lo.is_finite() && hi.is_finite() && lo.cmple(hi).all() {
        (lo, hi)
    } else {
        (Vec3::splat(-1.0), Vec3::splat(1.0))
    };
    let center = (lo + hi) * 0.5;
    let radius = ((hi - lo).length() * 0.5).max(1e-6);
    let fov = 40f32.to_radians();
    let distance = radius / (fov * 0.5).sin() * 1.05;
    let dir = Vec3::new(0.55, 0.4, -1.0).normalize();
    let eye = center + dir * distance;
    let view = look_at_lh(eye, center, Vec3::Y);
    let near = (distance - radius * 1.1).max(distance * 1e-3);
    let far = distance + radius * 1.1;
    let proj = perspective_lh(fov, 1.0, near, far);
    let light = (dir + Vec3::new(-0.3, 0.9, 0.0)).normalize();
    Camera {
        view_proj: proj * view,
        eye,
        light,
    }
}

/// Direct3D's `XMMatrixLookAtLH` (column vectors): camera space has +Z towards `center`.
fn look_at_lh(eye: Vec3, center: Vec3, up: Vec3) -> Mat4 {
    let f = (center - eye).normalize();
    let s = up.cross(f).normalize();
    let u = f.cross(s);
    Mat4::from_cols(
        Vec4::new(s.x, u.x, f.x, 0.0),
        Vec4::new(s.y, u.y, f.y, 0.0),
        Vec4::new(s.z, u.z, f.z, 0.0),
        Vec4::new(-s.dot(eye), -u.dot(eye), -f.dot(eye), 1.0),
    )
}

/// Direct3D's `XMMatrixPerspectiveFovLH` (column vectors): depth 0 at `near`, 1 at `far`.
fn perspective_lh(fov_y: f32, aspect: f32, near: f32, far: f32) -> Mat4 {
    let h = 1.0 / (fov_y * 0.5).tan();
    let r = far / (far - near);
    Mat4::from_cols(
        Vec4::new(h / aspect, 0.0, 0.0, 0.0),
        Vec4::new(0.0, h, 0.0, 0.0),
        Vec4::new(0.0, 0.0, r, 1.0),
        Vec4::new(0.0, 0.0, -r * near, 0.0),
    )
}

struct Part {
    first_index: u32,
    index_count: u32,
    base_vertex: i32,
    material: usize,
}

/// What both renderers need, computed once on the CPU.
struct Prepared {
    vertices: Vec<Vertex>,
    /// With morph targets: per tile, every vertex with its part's targets applied at the
    /// tile's weights; empty without.
    morphed: Vec<Vec<Vertex>>,
    indices: Vec<u32>,
    parts: Vec<Part>,
    materials: Vec<PreviewMaterial>,
    camera: Camera,
    /// Per tile (row-major over the sheet): its position and sample.
    tiles: Vec<(u32, u32, PreviewFrame)>,
    columns: u32,
    rows: u32,
}

fn prepare(
    scene: &PreviewScene<'_>,
    rows: &[Vec<PreviewFrame>],
    options: &PreviewOptions,
    max_dimension: u32,
) -> Result<Prepared, GpuError> {
    let model = scene.model;
    let bake = scene.bake;
    if bake.bone_count as usize != model.bones.len() {
        return Err(GpuError::BoneCountMismatch {
            bake_bones: bake.bone_count as usize,
            model_bones: model.bones.len(),
        });
    }
    let columns = rows.iter().map(Vec::len).max().unwrap_or(0) as u32;
    let row_count = rows.len() as u32;
    if columns == 0 {
        return Err(InputError::NoFrameToDraw.into());
    }
    if options.tile_size == 0
        || columns as u64 * options.tile_size as u64 > max_dimension as u64
        || row_count as u64 * options.tile_size as u64 > max_dimension as u64
    {
        return Err(InputError::SheetTooLarge {
            columns,
            rows: row_count,
            tile_size: options.tile_size,
            max_dimension,
        }
        .into());
    }
    let mut tiles = Vec::new();
    for (r, row) in rows.iter().enumerate() {
        for (c, f) in row.iter().enumerate() {
            let frames = *bake
                .frame_counts
                .get(f.clip)
                .ok_or(RangeError::ClipNotInModel {
                    clip: f.clip,
                    clips: bake.layers as usize,
                })?;
            // A hand-built bake may claim a clip of no frames: refused, not underflowed.
            if frames == 0 || !f.time.is_finite() || f.time < 0.0 || f.time > (frames - 1) as f32 {
                return Err(RangeError::DrawTimeNotInClip {
                    time: f.time,
                    clip: f.clip,
                    name: bake.clip_names.get(f.clip).cloned().unwrap_or_default(),
                    frames,
                }
                .into());
            }
            tiles.push((c as u32, r as u32, *f));
        }
    }
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let mut parts = Vec::new();
    let mut materials = scene.materials.to_vec();
    let mut default_material = None;
    for (p, part) in model.meshes.iter().enumerate() {
        if let Some(&bad) = part
            .indices
            .iter()
            .find(|&&i| i as usize >= part.vertices.len())
        {
            return Err(InputError::IndexOutOfRange {
                part: p,
                name: part.name.clone(),
                index: bad,
                vertices: part.vertices.len(),
            }
            .into());
        }
        let material = match materials.iter().position(|m| m.name == part.material_name) {
            Some(m) => m,
            None => *default_material.get_or_insert_with(|| {
                materials.push(PreviewMaterial {
                    name: String::new(),
                    diffuse: DEFAULT_DIFFUSE,
                    texture: None,
                });
                materials.len() - 1
            }),
        };
        parts.push(Part {
            first_index: indices.len() as u32,
            index_count: (part.indices.len() / 3 * 3) as u32,
            base_vertex: i32::try_from(vertices.len()).map_err(|_| InputError::TooManyVertices)?,
            material,
        });
        vertices.extend_from_slice(&part.vertices);
        indices.extend_from_slice(&part.indices[..part.indices.len() / 3 * 3]);
    }
    if vertices.is_empty() {
        return Err(InputError::NoVertexToDraw.into());
    }
    check_vertices(&vertices, model.bones.len()).map_err(GpuError::BadVertex)?;
    let morphed = match (scene.weights, CpuMorphs::new(model)) {
        (Some(w), Some(morphs)) => tiles
            .iter()
            .map(|(_, _, f)| morph_tile(&morphs, w, f, &vertices))
            .collect::<Result<Vec<_>, _>>()?,
        _ => Vec::new(),
    };
    // The box around every vertex at every tile's frame, from the CPU skinning.
    let mut lo = Vec3::splat(f32::INFINITY);
    let mut hi = Vec3::splat(f32::NEG_INFINITY);
    let mut pal = vec![Mat4::ZERO; model.bones.len()];
    let mut positions = vec![[0f32; 3]; vertices.len()];
    for (t, (_, _, f)) in tiles.iter().enumerate() {
        palette(bake, f.clip, f.time, Wrap::Clamp, &mut pal).map_err(InputError::Skin)?;
        let drawn = morphed.get(t).unwrap_or(&vertices);
        skin_positions(&pal, drawn, &mut positions).map_err(InputError::Skin)?;
        for p in &positions {
            let p = Vec3::from(*p);
            if p.is_finite() {
                lo = lo.min(p);
                hi = hi.max(p);
            }
        }
    }
    Ok(Prepared {
        vertices,
        morphed,
        indices,
        parts,
        materials,
        camera: frame_camera(lo, hi),
        tiles,
        columns,
        rows: row_count,
    })
}

/// The model's vertices (as `vertices` holds them) with every part's morph targets applied at
/// the weights `weights` gives at the tile's time (lerped between frames as the bone texels
/// are, [`WeightBake::sample`]), as an engine morphs before it skins.
fn morph_tile(
    morphs: &CpuMorphs<'_>,
    weights: &WeightBake,
    frame: &PreviewFrame,
    vertices: &[Vertex],
) -> Result<Vec<Vertex>, GpuError> {
    let mut all = vec![0f32; weights.width as usize];
    weights
        .sample(frame.clip, frame.time, Wrap::Clamp, &mut all)
        .map_err(InputError::Morph)?;
    let mut out = vertices.to_vec();
    morphs.apply(
        |part, _, w| {
            let columns = all.get(weights.part_columns(part)).unwrap_or_default();
            for (w, c) in w.iter_mut().zip(columns) {
                *w = *c;
            }
        },
        &mut out,
    )?;
    Ok(out)
}

/// Tile uniform: view-projection, light (w: ambient), frame. 96 bytes, at 256-byte strides.
const TILE_STRIDE: u64 = 256;

fn tile_bytes(camera: &Camera, ambient: f32, frame: GpuFrame) -> Vec<u8> {
    let mut b = Vec::with_capacity(TILE_STRIDE as usize);
    b.extend_from_slice(bytemuck::cast_slice(&camera.view_proj.to_cols_array()));
    b.extend_from_slice(bytemuck::cast_slice(
        &camera.light.extend(ambient).to_array(),
    ));
    b.extend_from_slice(bytemuck::bytes_of(&frame));
    b.resize(TILE_STRIDE as usize, 0);
    b
}

/// Renders the sheet on the GPU: `rows` of frames, skinned in the vertex shader.
pub fn render(
    gpu: &Gpu,
    scene: &PreviewScene<'_>,
    rows: &[Vec<PreviewFrame>],
    options: &PreviewOptions,
) -> Result<Image, GpuError> {
    let device = gpu.device();
    let limits = device.limits();
    let prep = prepare(scene, rows, options, limits.max_texture_dimension_2d)?;
    let bones = BoneTexture::upload(gpu, scene.bake)?;
    let (width, height) = (
        prep.columns * options.tile_size,
        prep.rows * options.tile_size,
    );

    let vs_fs = wgpu::ShaderStages::VERTEX | wgpu::ShaderStages::FRAGMENT;
    let (pipeline, group0_layout, group1_layout) =
        gpu.scoped("building the preview pipeline", || {
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some("kiln preview.wgsl"),
                source: wgpu::ShaderSource::Wgsl(PREVIEW_WGSL.into()),
            });
            let group0 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("kiln preview frame"),
                entries: &[
                    texture_entry(0, wgpu::ShaderStages::VERTEX),
                    uniform_entry(1, wgpu::ShaderStages::VERTEX),
                    wgpu::BindGroupLayoutEntry {
                        binding: 2,
                        visibility: vs_fs,
                        ty: wgpu::BindingType::Buffer {
                            ty: wgpu::BufferBindingType::Uniform,
                            has_dynamic_offset: true,
                            min_binding_size: wgpu::BufferSize::new(96),
                        },
                        count: None,
                    },
                ],
            });
            let group1 = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
                label: Some("kiln preview material"),
                entries: &[
                    uniform_entry(0, wgpu::ShaderStages::FRAGMENT),
                    wgpu::BindGroupLayoutEntry {
                        binding: 1,
                        visibility: wgpu::ShaderStages::FRAGMENT,
                        ty: wgpu::BindingType::Texture {
                            sample_type: wgpu::TextureSampleType::Float { filterable: false },
                            view_dimension: wgpu::TextureViewDimension::D2,
                            multisampled: false,
                        },
                        count: None,
                    },
                ],
            });
            let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
                label: Some("kiln preview"),
                bind_group_layouts: &[Some(&group0), Some(&group1)],
                immediate_size: 0,
            });
            let attributes = [
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 0,
                    shader_location: 0,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x2,
                    offset: 12,
                    shader_location: 1,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x3,
                    offset: 20,
                    shader_location: 2,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x4,
                    offset: 44,
                    shader_location: 3,
                },
                wgpu::VertexAttribute {
                    format: wgpu::VertexFormat::Float32x4,
                    offset: 60,
                    shader_location: 4,
                },
            ];
            let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some("kiln preview"),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs"),
                    compilation_options: Default::default(),
                    buffers: &[Some(wgpu::VertexBufferLayout {
                        array_stride: VERTEX_SIZE as u64,
                        step_mode: wgpu::VertexStepMode::Vertex,
                        attributes: &attributes,
                    })],
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: Some(wgpu::DepthStencilState {
                    format: wgpu::TextureFormat::Depth32Float,
                    depth_write_enabled: Some(true),
                    depth_compare: Some(wgpu::CompareFunction::Less),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: wgpu::TextureFormat::Rgba8Unorm,
                        blend: None,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            });
            (pipeline, group0, group1)
        })?;

    // Geometry.
    // With morph targets, one copy of the vertices per tile (each morphed at its weights),
    // drawn with the tile's base vertex.
    let tile_vertices: Vec<Vertex>;
    let drawn: &[Vertex] = if prep.morphed.is_empty() {
        &prep.vertices
    } else {
        tile_vertices = prep.morphed.concat();
        &tile_vertices
    };
    if prep.morphed.len() as u64 * prep.vertices.len() as u64 > i32::MAX as u64 {
        return Err(InputError::TooManyVertices.into());
    }
    let vertex_buffer = gpu.buffer_init(
        "preview vertices",
        bytemuck::cast_slice(drawn),
        wgpu::BufferUsages::VERTEX,
    )?;
    let index_buffer = gpu.buffer_init(
        "preview indices",
        bytemuck::cast_slice(&prep.indices),
        wgpu::BufferUsages::INDEX,
    )?;

    // Tiles.
    let mut tile_data = Vec::with_capacity(prep.tiles.len() * TILE_STRIDE as usize);
    let mut tile_pages = Vec::with_capacity(prep.tiles.len());
    for (_, _, f) in &prep.tiles {
        let sample = bones.sample(f.clip, f.time, Wrap::Clamp)?;
        let (page, frame) = bones.shader_frame(&sample)?;
        tile_data.extend(tile_bytes(&prep.camera, options.ambient, frame));
        tile_pages.push(page);
    }
    let tile_buffer = gpu.buffer_init("preview tiles", &tile_data, wgpu::BufferUsages::UNIFORM)?;
    let mut page_groups = Vec::new();
    for page in 0..bones.layout().pages {
        let view = bones
            .page(page)
            .ok_or(RangeError::PageNotInTexture { page })?;
        page_groups.push(gpu.scoped("binding the preview's bone texture", || {
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kiln preview frame"),
                layout: &group0_layout,
                entries: &[
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
                        resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                            buffer: &tile_buffer,
                            offset: 0,
                            size: wgpu::BufferSize::new(96),
                        }),
                    },
                ],
            })
        })?);
    }

    // Materials.
    let mut material_groups = Vec::with_capacity(prep.materials.len());
    let mut keep = Vec::new();
    for m in &prep.materials {
        let white = Image::filled(1, 1, [255; 4]);
        let image = m.texture.as_ref().unwrap_or(&white);
        if image.width == 0
            || image.height == 0
            || image.width > limits.max_texture_dimension_2d
            || image.height > limits.max_texture_dimension_2d
            || image.rgba.len() != image.width as usize * image.height as usize * 4
        {
            return Err(InputError::UnusableTexture {
                material: m.name.clone(),
                width: image.width,
                height: image.height,
            }
            .into());
        }
        let size = wgpu::Extent3d {
            width: image.width,
            height: image.height,
            depth_or_array_layers: 1,
        };
        let mut words = Vec::with_capacity(32);
        words.extend_from_slice(bytemuck::cast_slice(&m.diffuse));
        words.extend_from_slice(bytemuck::cast_slice(&[m.texture.is_some() as u32, 0, 0, 0]));
        let uniform = gpu.buffer_init("preview material", &words, wgpu::BufferUsages::UNIFORM)?;
        let group = gpu.scoped("uploading a material texture", || {
            let view = gpu.texture_with_data(
                "kiln material texture",
                size,
                wgpu::TextureFormat::Rgba8Unorm,
                &image.rgba,
                4 * image.width,
                wgpu::TextureViewDimension::D2,
            );
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some("kiln preview material"),
                layout: &group1_layout,
                entries: &[
                    wgpu::BindGroupEntry {
                        binding: 0,
                        resource: uniform.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 1,
                        resource: wgpu::BindingResource::TextureView(&view),
                    },
                ],
            })
        })?;
        material_groups.push(group);
        keep.push(uniform);
    }

    // Targets.
    let (color, depth) = gpu.scoped("creating the preview's render targets", || {
        let make = |format, usage| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some("kiln preview target"),
                size: wgpu::Extent3d {
                    width,
                    height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: 1,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats: &[],
            })
        };
        (
            make(
                wgpu::TextureFormat::Rgba8Unorm,
                wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            ),
            make(
                wgpu::TextureFormat::Depth32Float,
                wgpu::TextureUsages::RENDER_ATTACHMENT,
            ),
        )
    })?;
    let padded_row = (4 * width as u64).next_multiple_of(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT as u64);
    let readback = gpu.buffer(
        "preview image (read back)",
        padded_row * height as u64,
        wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
    )?;

    let bg = options.background;
    let submission = gpu.scoped("drawing the preview", || {
        let color_view = color.create_view(&Default::default());
        let depth_view = depth.create_view(&Default::default());
        let mut encoder = device.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("kiln preview"),
        });
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("kiln preview"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &color_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: bg[0] as f64 / 255.0,
                            g: bg[1] as f64 / 255.0,
                            b: bg[2] as f64 / 255.0,
                            a: bg[3] as f64 / 255.0,
                        }),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &depth_view,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Store,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            pass.set_vertex_buffer(0, vertex_buffer.slice(..));
            pass.set_index_buffer(index_buffer.slice(..), wgpu::IndexFormat::Uint32);
            let s = options.tile_size;
            for (t, ((col, row, _), page)) in prep.tiles.iter().zip(&tile_pages).enumerate() {
                let (x, y) = (col * s, row * s);
                pass.set_viewport(x as f32, y as f32, s as f32, s as f32, 0.0, 1.0);
                pass.set_scissor_rect(x, y, s, s);
                pass.set_bind_group(
                    0,
                    &page_groups[*page as usize],
                    &[(t as u64 * TILE_STRIDE) as u32],
                );
                for part in &prep.parts {
                    if part.index_count == 0 {
                        continue;
                    }
                    pass.set_bind_group(1, &material_groups[part.material], &[]);
                    let tile_base = if prep.morphed.is_empty() {
                        0
                    } else {
                        (t * prep.vertices.len()) as i32
                    };
                    pass.draw_indexed(
                        part.first_index..part.first_index + part.index_count,
                        part.base_vertex + tile_base,
                        0..1,
                    );
                }
            }
        }
        encoder.copy_texture_to_buffer(
            wgpu::TexelCopyTextureInfo {
                texture: &color,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout {
                    offset: 0,
                    bytes_per_row: Some(padded_row as u32),
                    rows_per_image: Some(height),
                },
            },
            wgpu::Extent3d {
                width,
                height,
                depth_or_array_layers: 1,
            },
        );
        gpu.queue().submit([encoder.finish()])
    })?;
    gpu.wait(submission, "the preview's draw")?;
    let bytes = gpu.read_buffer(&readback, "reading the preview image back")?;
    let mut rgba = Vec::with_capacity(width as usize * height as usize * 4);
    for row in bytes.chunks(padded_row as usize).take(height as usize) {
        rgba.extend_from_slice(&row[..4 * width as usize]);
    }
    drop(keep);
    Ok(Image {
        width,
        height,
        rgba,
    })
}

/// The sheet [`render`] draws, rasterised on the CPU from kiln-anim's CPU skinning: the same
/// camera, light, shading and texel choice, pixel centres inside a triangle (edges included),
/// perspective-correct interpolation and a `less` depth test. It differs from a GPU only on
/// pixels whose centre lies on an edge and by rounding, which is what the tests' PSNR allows.
pub fn render_cpu(
    scene: &PreviewScene<'_>,
    rows: &[Vec<PreviewFrame>],
    options: &PreviewOptions,
) -> Result<Image, GpuError> {
    let prep = prepare(scene, rows, options, 16384)?;
    let s = options.tile_size;
    let (width, height) = (prep.columns * s, prep.rows * s);
    let mut image = Image::filled(width, height, options.background);
    let mut depth = vec![1f32; width as usize * height as usize];
    let n = prep.vertices.len();
    let mut pal = vec![Mat4::ZERO; scene.model.bones.len()];
    let mut positions = vec![[0f32; 3]; n];
    let mut normals = vec![[0f32; 3]; n];
    let mut clip = vec![Vec4::ZERO; n];
    let light = prep.camera.light;
    let ambient = options.ambient;
    for (tile, (col, row, f)) in prep.tiles.iter().enumerate() {
        palette(scene.bake, f.clip, f.time, Wrap::Clamp, &mut pal).map_err(InputError::Skin)?;
        let drawn = prep.morphed.get(tile).unwrap_or(&prep.vertices);
        skin_vertices(&pal, drawn, &mut positions, &mut normals, &mut [])
            .map_err(InputError::Skin)?;
        for (c, p) in clip.iter_mut().zip(&positions) {
            *c = prep.camera.view_proj * Vec3::from(*p).extend(1.0);
        }
        let (x0, y0) = ((col * s) as f32, (row * s) as f32);
        let half = s as f32 * 0.5;
        for part in &prep.parts {
            let material = &prep.materials[part.material];
            let tris = &prep.indices
                [part.first_index as usize..(part.first_index + part.index_count) as usize];
            for tri in tris.chunks_exact(3) {
                let v = [0, 1, 2].map(|k| (tri[k] as i64 + part.base_vertex as i64) as usize);
                let c = v.map(|i| clip[i]);
                // Behind the eye, or not a number (NaN fails `is_finite`).
                if c.iter().any(|c| c.w <= 0.0 || !c.is_finite()) {
                    continue;
                }
                // Screen positions (pixel units, y down) and depth.
                let sx = c.map(|c| x0 + (c.x / c.w + 1.0) * half);
                let sy = c.map(|c| y0 + (1.0 - c.y / c.w) * half);
                let sz = c.map(|c| c.z / c.w);
                let area = (sx[1] - sx[0]) * (sy[2] - sy[0]) - (sx[2] - sx[0]) * (sy[1] - sy[0]);
                if area == 0.0 || !area.is_finite() {
                    continue;
                }
                let min_x = sx
                    .iter()
                    .fold(f32::INFINITY, |a, &b| a.min(b))
                    .floor()
                    .max(x0) as u32;
                let max_x = (sx.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)).ceil())
                    .min(x0 + s as f32) as u32;
                let min_y = sy
                    .iter()
                    .fold(f32::INFINITY, |a, &b| a.min(b))
                    .floor()
                    .max(y0) as u32;
                let max_y = (sy.iter().fold(f32::NEG_INFINITY, |a, &b| a.max(b)).ceil())
                    .min(y0 + s as f32) as u32;
                for py in min_y..max_y {
                    for px in min_x..max_x {
                        let (x, y) = (px as f32 + 0.5, py as f32 + 0.5);
                        let e = |a: usize, b: usize| {
                            (sx[b] - sx[a]) * (y - sy[a]) - (x - sx[a]) * (sy[b] - sy[a])
                        };
                        let w = [e(1, 2) / area, e(2, 0) / area, e(0, 1) / area];
                        if w.iter().any(|&w| w < 0.0) {
                            continue;
                        }
                        let z = w[0] * sz[0] + w[1] * sz[1] + w[2] * sz[2];
                        let d = &mut depth[py as usize * width as usize + px as usize];
                        if !((0.0..=1.0).contains(&z) && z < *d) {
                            continue;
                        }
                        *d = z;
                        // Perspective-correct weights.
                        let q = [w[0] / c[0].w, w[1] / c[1].w, w[2] / c[2].w];
                        let qs = q[0] + q[1] + q[2];
                        let q = q.map(|q| q / qs);
                        let mut normal = Vec3::ZERO;
                        let mut uv = [0f32; 2];
                        for k in 0..3 {
                            normal += Vec3::from(normals[v[k]]) * q[k];
                            let t = prep.vertices[v[k]].uv;
                            uv[0] += t[0] * q[k];
                            uv[1] += t[1] * q[k];
                        }
                        let len = normal.length();
                        let lambert = if len > 1e-20 {
                            (normal / len).dot(light).abs()
                        } else {
                            1.0
                        };
                        let mut base = Vec3::from_slice(&material.diffuse[..3]);
                        if let Some(t) = &material.texture {
                            let (w, h) = (t.width as f32, t.height as f32);
                            let tx = ((uv[0] - uv[0].floor()) * w).floor().clamp(0.0, w - 1.0);
                            let ty = ((uv[1] - uv[1].floor()) * h).floor().clamp(0.0, h - 1.0);
                            if let Some(p) = t.pixel(tx as u32, ty as u32) {
                                base *= Vec3::new(p[0] as f32, p[1] as f32, p[2] as f32) / 255.0;
                            }
                        }
                        let rgb = (base * (ambient + (1.0 - ambient) * lambert))
                            .clamp(Vec3::ZERO, Vec3::ONE);
                        let i = (py as usize * width as usize + px as usize) * 4;
                        image.rgba[i..i + 4].copy_from_slice(&[
                            (rgb.x * 255.0).round() as u8,
                            (rgb.y * 255.0).round() as u8,
                            (rgb.z * 255.0).round() as u8,
                            255,
                        ]);
                    }
                }
            }
        }
    }
    Ok(image)
}

/// `count` times spread evenly over a clip of `frames` frames, first and last included.
pub fn spread_frames(frames: u32, count: u32) -> Vec<f32> {
    let last = frames.saturating_sub(1) as f32;
    match count {
        0 => Vec::new(),
        1 => vec![0.0],
        _ if frames <= 1 => vec![0.0],
        n => (0..n).map(|k| last * k as f32 / (n - 1) as f32).collect(),
    }
}
