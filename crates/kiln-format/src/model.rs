//! The engine data kiln writes: what the original tool's `asBone`, `asMesh`,
//! `VertexTextureNormalTangentBlendData`, `asMaterial` and `asAnimation` hold, as plain Rust
//! types. Matrices are the engine convention: DirectX row vectors (`v' = v * M`), 16 floats in
//! row-major order with the translation in elements 12..14.

use alloc::string::String;
use alloc::vec::Vec;

/// A 4x4 matrix in the engine convention (row vectors, row-major, translation at 12..14).
pub type Matrix = [f32; 16];

/// The identity [`Matrix`].
pub const IDENTITY: Matrix = [
    1.0, 0.0, 0.0, 0.0, //
    0.0, 1.0, 0.0, 0.0, //
    0.0, 0.0, 1.0, 0.0, //
    0.0, 0.0, 0.0, 1.0,
];

/// One vertex of a mesh part: 76 bytes, laid out exactly as the classic `.mesh` stores it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Model-space position (the part's node space for a classic file's rigid parts).
    pub position: [f32; 3],
    /// First UV channel (0, 0 where the mesh has none).
    pub uv: [f32; 2],
    /// Normal, in the same space as the position.
    pub normal: [f32; 3],
    /// Tangent, in the same space as the position (zero where the mesh has none).
    pub tangent: [f32; 3],
    /// Bone indices (into [`Model::bones`]) stored as floats, as the original tool does.
    pub blend_indices: [f32; 4],
    /// Weights of those bones, summing to 1 (or all 0 where nothing binds the vertex).
    pub blend_weights: [f32; 4],
}

/// Size of [`Vertex`] in bytes.
pub const VERTEX_SIZE: usize = 76;
const _: () = assert!(core::mem::size_of::<Vertex>() == VERTEX_SIZE);

/// A node of the skeleton: every scene node becomes one.
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Position in [`Model::bones`].
    pub index: i32,
    /// Index of the parent bone, -1 for the root.
    pub parent: i32,
    /// The scene node's name (helper bones: `NODE$kiln_rigid`, `NODE$kiln_skin1`, …).
    pub name: String,
    /// Root-space (model-space) bind transform: `local * parent.transform`.
    pub transform: Matrix,
}

/// One drawable part: the triangles of one scene mesh at one node, with one material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPart {
    /// Name of the node the part hangs from.
    pub name: String,
    /// Its vertices, which [`MeshPart::indices`] index.
    pub vertices: Vec<Vertex>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Bone of the node the part hangs from.
    pub bone_index: i32,
    /// Name of its material in the `.xml` (empty when the mesh has none).
    pub material_name: String,
    /// Its morph targets (blend shapes), in the source's order; the kiln layout only (the
    /// classic `.mesh` has no place for them).
    pub morph_targets: Vec<MorphTarget>,
}

/// A morph target of a part: one weight blending its shapes' offsets into the vertices (an
/// FBX blend shape channel, a glTF morph target). See `kiln_scene::MorphTarget`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// The target's name.
    pub name: String,
    /// Weight at rest (0 base shape, 1 full).
    pub default_weight: f32,
    /// The shapes, by increasing [`MorphShape::full_weight`]: one for a plain target, more
    /// for in-betweens.
    pub shapes: Vec<MorphShape>,
}

/// One shape of a [`MorphTarget`]: offsets of some of the part's vertices.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphShape {
    /// The shape's name.
    pub name: String,
    /// The target weight at which the shape applies fully (1 for a plain target).
    pub full_weight: f32,
    /// The vertices moved (indices into [`MeshPart::vertices`]), ascending.
    pub vertices: Vec<u32>,
    /// Position offset of each listed vertex.
    pub positions: Vec<[f32; 3]>,
    /// Normal offset of each listed vertex, or empty.
    pub normals: Vec<[f32; 3]>,
}

/// What a `.mesh` file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    /// The skeleton, parents before children, bone 0 the root.
    pub bones: Vec<Bone>,
    /// The drawable parts, in node order.
    pub meshes: Vec<MeshPart>,
}

/// An RGBA colour as the material XML stores it.
pub type Color = [f32; 4];

/// One material of the `.xml` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialData {
    /// The material's name, which [`MeshPart::material_name`] refers to.
    pub name: String,
    /// Texture file names without folders, empty when the slot is unused.
    pub diffuse_file: String,
    /// The specular map's file name, empty when unused.
    pub specular_file: String,
    /// The normal map's file name, empty when unused.
    pub normal_file: String,
    /// RGB ambient colour, A 1.
    pub ambient: Color,
    /// RGB diffuse colour, A 1.
    pub diffuse: Color,
    /// RGB specular colour; A holds the shininess exponent.
    pub specular: Color,
    /// RGB emissive colour, A 1.
    pub emissive: Color,
}

/// One sampled transform of one bone (the original `asKeyframeData`, 44 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Keyframe {
    /// In frames (ticks of the clip's frame rate).
    pub time: f32,
    /// Local scale, x, y, z.
    pub scale: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Local translation, x, y, z.
    pub translation: [f32; 3],
}

/// Size of [`Keyframe`] in bytes.
pub const KEYFRAME_SIZE: usize = 44;
const _: () = assert!(core::mem::size_of::<Keyframe>() == KEYFRAME_SIZE);

/// The frames of one bone in a clip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Track {
    /// The bone it animates, by name.
    pub bone_name: String,
    /// One per frame (keyframe `k` is frame `k` in kiln's files).
    pub keyframes: Vec<Keyframe>,
}

/// What a `.clip` file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clip {
    /// The animation's name.
    pub name: String,
    /// Length in frames.
    pub duration: f32,
    /// Frames per second.
    pub frame_rate: f32,
    /// Frames (`floor(duration) + 1` in kiln's files).
    pub frame_count: u32,
    /// One track per bone, in bone order.
    pub tracks: Vec<Track>,
    /// One track per animated morph target; the kiln layout only.
    pub weight_tracks: Vec<WeightTrack>,
}

/// The weight of one morph target over a clip, one value per frame.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct WeightTrack {
    /// The part ([`Model::meshes`] index).
    pub part: u32,
    /// The target ([`MeshPart::morph_targets`] index).
    pub target: u32,
    /// One weight per frame.
    pub weights: Vec<f32>,
}
