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
    pub position: [f32; 3],
    pub uv: [f32; 2],
    pub normal: [f32; 3],
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
    pub name: String,
    /// Root-space (model-space) bind transform: `local * parent.transform`.
    pub transform: Matrix,
}

/// One drawable part: the triangles of one scene mesh at one node, with one material.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MeshPart {
    /// Name of the node the part hangs from.
    pub name: String,
    pub vertices: Vec<Vertex>,
    /// Triangle list.
    pub indices: Vec<u32>,
    /// Bone of the node the part hangs from.
    pub bone_index: i32,
    pub material_name: String,
}

/// What a `.mesh` file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Model {
    pub bones: Vec<Bone>,
    pub meshes: Vec<MeshPart>,
}

/// An RGBA colour as the material XML stores it.
pub type Color = [f32; 4];

/// One material of the `.xml` file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MaterialData {
    pub name: String,
    /// Texture file names without folders, empty when the slot is unused.
    pub diffuse_file: String,
    pub specular_file: String,
    pub normal_file: String,
    pub ambient: Color,
    pub diffuse: Color,
    /// RGB specular colour; A holds the shininess exponent.
    pub specular: Color,
    pub emissive: Color,
}

/// One sampled transform of one bone (the original `asKeyframeData`, 44 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Keyframe {
    /// In frames (ticks of the clip's frame rate).
    pub time: f32,
    pub scale: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    pub translation: [f32; 3],
}

/// Size of [`Keyframe`] in bytes.
pub const KEYFRAME_SIZE: usize = 44;
const _: () = assert!(core::mem::size_of::<Keyframe>() == KEYFRAME_SIZE);

/// The frames of one bone in a clip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Track {
    pub bone_name: String,
    pub keyframes: Vec<Keyframe>,
}

/// What a `.clip` file holds.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clip {
    pub name: String,
    /// Length in frames.
    pub duration: f32,
    /// Frames per second.
    pub frame_rate: f32,
    pub frame_count: u32,
    /// One track per bone, in bone order.
    pub tracks: Vec<Track>,
}
