//! Generated skinned, animated models for the tests, the benchmark and demos: a tube bent by a
//! chain of bones, up to four weights per vertex, with a rigidly bound cap on its top bone, two
//! materials (a colour and a texture), and clips that rotate, translate and scale the bones.
//!
//! The model is what `kiln convert` would write: bone 0 is the root at the origin, bones
//! `1..=chain` stand along +Y, both parts hang from the root (so the classic-file offset
//! assumption, `inverse(bind[b]) · bind[part]`, gives exactly the offsets returned here), every
//! vertex is in model space, and one track per bone and one keyframe per frame.

use glam::{Mat4, Quat, Vec3};
use kiln_anim::BakeOptions;
use kiln_format::{Bone, Clip, Keyframe, MaterialData, Matrix, MeshPart, Model, Track, Vertex};

use crate::image::Image;
use crate::{Baked, GpuError};

/// What to generate.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TubeOptions {
    /// Vertices around the tube.
    pub segments: u32,
    /// Rings of vertices along it (at least 2).
    pub rings: u32,
    /// Bones of the chain (the root comes on top).
    pub chain: u32,
    pub clips: u32,
    pub frames: u32,
    /// Add the rigid cap (a second part with a textured material).
    pub cap: bool,
}

impl Default for TubeOptions {
    /// 16 × 12 vertices, 4 chain bones, 2 clips of 12 frames, with the cap.
    fn default() -> Self {
        TubeOptions {
            segments: 16,
            rings: 12,
            chain: 4,
            clips: 2,
            frames: 12,
            cap: true,
        }
    }
}

/// A generated model with everything a conversion writes.
#[derive(Clone, Debug, PartialEq)]
pub struct Fixture {
    pub model: Model,
    /// One per bone (`None` for the root, which no skin uses).
    pub offsets: Vec<Option<Matrix>>,
    pub clips: Vec<Clip>,
    pub materials: Vec<MaterialData>,
    /// Texture file name and image, as the materials name them.
    pub textures: Vec<(String, Image)>,
}

/// Length of one chain bone.
pub const BONE_LENGTH: f32 = 1.0;
/// Radius of the tube.
pub const RADIUS: f32 = 0.35;
/// The texture file the cap's material names.
pub const CAP_TEXTURE: &str = "checker.png";

/// A checker of 8×8 cells, `size` pixels square, in two colours.
pub fn checker(size: u32) -> Image {
    let mut rgba = Vec::with_capacity(size as usize * size as usize * 4);
    for y in 0..size {
        for x in 0..size {
            let on = (x * 8 / size.max(1) + y * 8 / size.max(1)).is_multiple_of(2);
            rgba.extend_from_slice(if on {
                &[240, 220, 90, 255]
            } else {
                &[40, 90, 200, 255]
            });
        }
    }
    Image {
        width: size,
        height: size,
        rgba,
    }
}

/// Largest four of `weights` (by value, lower bone first on ties), normalised.
fn top4(mut weights: Vec<(u32, f32)>) -> ([f32; 4], [f32; 4]) {
    weights.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    weights.truncate(4);
    let sum: f32 = weights.iter().map(|w| w.1).sum();
    let mut indices = [0f32; 4];
    let mut w = [0f32; 4];
    for (k, (b, x)) in weights.iter().enumerate() {
        indices[k] = *b as f32;
        w[k] = x / sum;
    }
    (indices, w)
}

/// The tube: bones, parts, clips, materials.
pub fn tube(o: &TubeOptions) -> Fixture {
    let chain = o.chain.max(1);
    let rings = o.rings.max(2);
    let segments = o.segments.max(3);
    let height = chain as f32 * BONE_LENGTH;
    // Bone 0: root at the origin; bone i ≥ 1 at y = (i - 1) · L, each a child of the previous.
    let bind: Vec<Mat4> = (0..=chain)
        .map(|i| match i {
            0 => Mat4::IDENTITY,
            i => Mat4::from_translation(Vec3::new(0.0, (i - 1) as f32 * BONE_LENGTH, 0.0)),
        })
        .collect();
    let bones: Vec<Bone> = bind
        .iter()
        .enumerate()
        .map(|(i, m)| Bone {
            index: i as i32,
            parent: i as i32 - 1,
            name: if i == 0 {
                "root".into()
            } else {
                format!("joint{i}")
            },
            transform: m.to_cols_array(),
        })
        .collect();
    let offsets: Vec<Option<Matrix>> = bind
        .iter()
        .enumerate()
        .map(|(i, m)| (i > 0).then(|| m.inverse().to_cols_array()))
        .collect();

    let mut tube_vertices = Vec::new();
    for r in 0..rings {
        let v = r as f32 / (rings - 1) as f32;
        let y = v * height;
        // Weights fall off linearly over 1.5 bone lengths from each bone's middle: up to four
        // bones near a joint.
        let s = y / BONE_LENGTH;
        let weights: Vec<(u32, f32)> = (1..=chain)
            .map(|b| {
                let mid = (b - 1) as f32 + 0.5;
                (b, (1.0 - (s - mid).abs() / 1.5).max(0.0) + 1e-3 / b as f32)
            })
            .collect();
        let (blend_indices, blend_weights) = top4(weights);
        for k in 0..=segments {
            let u = k as f32 / segments as f32;
            let a = u * std::f32::consts::TAU;
            let (sin, cos) = a.sin_cos();
            tube_vertices.push(Vertex {
                position: [RADIUS * cos, y, RADIUS * sin],
                uv: [u, v],
                normal: [cos, 0.0, sin],
                tangent: [-sin, 0.0, cos],
                blend_indices,
                blend_weights,
            });
        }
    }
    let row = segments + 1;
    let mut tube_indices = Vec::new();
    for r in 0..rings - 1 {
        for k in 0..segments {
            let a = r * row + k;
            let b = a + row;
            tube_indices.extend_from_slice(&[a, b, a + 1, a + 1, b, b + 1]);
        }
    }
    let mut meshes = vec![MeshPart {
        name: "tube".into(),
        vertices: tube_vertices,
        indices: tube_indices,
        bone_index: 0,
        material_name: "skin".into(),
    }];
    let mut materials = vec![MaterialData {
        name: "skin".into(),
        ambient: [0.1, 0.1, 0.1, 1.0],
        diffuse: [0.85, 0.45, 0.35, 1.0],
        specular: [0.0, 0.0, 0.0, 1.0],
        emissive: [0.0, 0.0, 0.0, 1.0],
        ..MaterialData::default()
    }];
    let mut textures = Vec::new();
    if o.cap {
        // A box on top of the last bone, bound to it with weight 1 (in model space, like the
        // rest of the part's node).
        let top = chain as f32;
        let (h, y0) = (0.5f32, height);
        let faces: [([f32; 3], [f32; 3]); 6] = [
            ([1.0, 0.0, 0.0], [0.0, 0.0, 1.0]),
            ([-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]),
            ([0.0, 1.0, 0.0], [1.0, 0.0, 0.0]),
            ([0.0, -1.0, 0.0], [-1.0, 0.0, 0.0]),
            ([0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]),
            ([0.0, 0.0, -1.0], [1.0, 0.0, 0.0]),
        ];
        let mut vertices = Vec::new();
        let mut indices = Vec::new();
        for (n, t) in faces {
            let n = Vec3::from(n);
            let t = Vec3::from(t);
            let b = n.cross(t);
            let base = vertices.len() as u32;
            for (i, (su, sv)) in [(-1.0f32, -1.0f32), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
                .into_iter()
                .enumerate()
            {
                let p = n * h + t * (su * h) + b * (sv * h) + Vec3::new(0.0, y0 + h, 0.0);
                vertices.push(Vertex {
                    position: p.to_array(),
                    uv: [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]][i],
                    normal: n.to_array(),
                    tangent: t.to_array(),
                    blend_indices: [top, 0.0, 0.0, 0.0],
                    blend_weights: [1.0, 0.0, 0.0, 0.0],
                });
            }
            indices.extend_from_slice(&[base, base + 1, base + 2, base, base + 2, base + 3]);
        }
        meshes.push(MeshPart {
            name: "cap".into(),
            vertices,
            indices,
            bone_index: 0,
            material_name: "cap".into(),
        });
        materials.push(MaterialData {
            name: "cap".into(),
            diffuse_file: CAP_TEXTURE.into(),
            ambient: [0.1, 0.1, 0.1, 1.0],
            diffuse: [1.0, 1.0, 1.0, 1.0],
            specular: [0.0, 0.0, 0.0, 1.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
            ..MaterialData::default()
        });
        textures.push((CAP_TEXTURE.to_string(), checker(64)));
    }

    let frames = o.frames.max(1);
    let clips = (0..o.clips)
        .map(|c| {
            let tracks = (0..=chain)
                .map(|b| Track {
                    bone_name: bones[b as usize].name.clone(),
                    keyframes: (0..frames).map(|f| keyframe(c, b, f, frames)).collect(),
                })
                .collect();
            Clip {
                name: ["bend", "twist", "grow", "sway"][c as usize % 4].to_string()
                    + &if c >= 4 {
                        format!("{c}")
                    } else {
                        String::new()
                    },
                duration: (frames - 1) as f32,
                frame_rate: 30.0,
                frame_count: frames,
                tracks,
            }
        })
        .collect();
    Fixture {
        model: Model { bones, meshes },
        offsets,
        clips,
        materials,
        textures,
    }
}

/// Bone `b`'s local transform at frame `f` of clip `c`.
fn keyframe(c: u32, b: u32, f: u32, frames: u32) -> Keyframe {
    let phase = std::f32::consts::TAU * f as f32 / frames as f32;
    let translation = match b {
        0 => match c % 4 {
            3 => [0.6 * phase.sin(), 0.0, 0.0],
            _ => [0.0; 3],
        },
        1 => [0.0; 3],
        _ => [0.0, BONE_LENGTH, 0.0],
    };
    let amount = if b == 0 { 0.0 } else { 0.45 };
    let angle = amount * (phase + 0.7 * b as f32).sin();
    let rotation = match c % 4 {
        0 => Quat::from_rotation_z(angle),
        1 => Quat::from_rotation_y(2.0 * angle) * Quat::from_rotation_x(0.5 * angle),
        2 => Quat::from_rotation_x(0.6 * angle),
        _ => Quat::from_rotation_z(0.5 * angle),
    };
    let scale = match (c % 4, b) {
        (2, b) if b > 0 => [
            1.0 + 0.2 * phase.sin(),
            1.0 + 0.1 * b as f32 * phase.cos().abs(),
            1.0,
        ],
        _ => [1.0; 3],
    };
    Keyframe {
        time: f as f32,
        scale,
        rotation: rotation.to_array(),
        translation,
    }
}

impl Fixture {
    /// The skeleton, the clips bound to it and their bake (kiln-anim's default limits).
    pub fn bake(&self) -> Result<Baked, GpuError> {
        crate::bake_model(
            &self.model,
            &self.offsets,
            &self.clips,
            &BakeOptions::default(),
        )
    }

    /// Total vertices of every part.
    pub fn vertex_count(&self) -> usize {
        self.model.meshes.iter().map(|m| m.vertices.len()).sum()
    }
}
