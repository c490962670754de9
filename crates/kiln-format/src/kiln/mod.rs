//! The kiln layout: zero-copy `.mesh` and `.clip` files (specified in `docs/format.md`).
//!
//! A file is a 32-byte header (magic, checksum, version, section count, file size), a table of
//! 32-byte section entries (kind, offset, length, element size, count), and the sections, each
//! at a multiple of 16 bytes: a string table, fixed-size records, and flat little-endian
//! arrays. A reader checks the table and the references once ([`MeshView::parse`],
//! [`ClipView::parse`]) and then hands out `&[T]` straight from the bytes.
//!
//! - Writing (feature `write`): [`write_mesh`] (with [`MeshOptions`]: quantisation, offset
//!   matrices) and [`write_clip`].
//! - Reading: [`MeshView`], [`ClipView`]; [`verify_checksum`] is a separate, optional pass.
//! - [`quantize`]: the compact encodings and their error bounds.
//!
//! Only on little-endian targets (the views are casts of the file's bytes).

mod error;
pub mod file_hash;
pub mod quantize;
pub mod spec;
mod view;
#[cfg(feature = "write")]
mod write;

#[cfg(feature = "write")]
pub use error::WriteError;
pub use error::{Kind, LayoutError};
pub use spec::{BoneKey, Section};
pub use view::{
    BoneView, ClipView, Directions, FileType, Indices, MaterialView, MeshView, MorphOffsets,
    PartView, Positions, Sections, TexCoords, Weights, checksum, verify_checksum,
};
#[cfg(feature = "write")]
pub use write::{
    MeshFile, MeshOptions, MeshPlan, Quantize, encode_mesh, encode_mesh_taking_vertices, plan_mesh,
    write_clip, write_mesh,
};

use alloc::vec::Vec;

/// One attribute of a [`crate::Vertex`], as `f32`s: what an `f32` vertex stream of a
/// kiln-layout `.mesh` holds (the joints' stream holds the blend indices as `u16`s). For a
/// writer that builds one stream at a time ([`MeshPlan::write_streams`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attribute {
    /// `position`, 3 floats.
    Position,
    /// `normal`, 3 floats.
    Normal,
    /// `tangent`, 3 floats.
    Tangent,
    /// `uv`, 2 floats.
    Uv,
    /// `blend_indices`, 4 floats.
    BlendIndices,
    /// `blend_weights`, 4 floats.
    BlendWeights,
}

impl Attribute {
    /// Floats per vertex.
    pub const fn width(self) -> usize {
        match self {
            Attribute::Position | Attribute::Normal | Attribute::Tangent => 3,
            Attribute::Uv => 2,
            Attribute::BlendIndices | Attribute::BlendWeights => 4,
        }
    }

    /// The attribute's floats of `v`.
    pub fn of(self, v: &crate::Vertex) -> &[f32] {
        match self {
            Attribute::Position => &v.position,
            Attribute::Normal => &v.normal,
            Attribute::Tangent => &v.tangent,
            Attribute::Uv => &v.uv,
            Attribute::BlendIndices => &v.blend_indices,
            Attribute::BlendWeights => &v.blend_weights,
        }
    }
}

/// An owned byte buffer that starts 16-byte aligned, for reading a file into memory before
/// parsing it (a `Vec<u8>` only promises 1-byte alignment).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AlignedBytes {
    words: Vec<u128>,
    len: usize,
}

impl AlignedBytes {
    /// A copy of `bytes`.
    pub fn from_bytes(bytes: &[u8]) -> Self {
        let mut words = alloc::vec![0u128; bytes.len().div_ceil(16)];
        let dst: &mut [u8] = bytemuck::cast_slice_mut(&mut words);
        if let Some(d) = dst.get_mut(..bytes.len()) {
            d.copy_from_slice(bytes);
        }
        AlignedBytes {
            words,
            len: bytes.len(),
        }
    }

    /// The bytes.
    pub fn as_bytes(&self) -> &[u8] {
        let all: &[u8] = bytemuck::cast_slice(&self.words);
        all.get(..self.len).unwrap_or_default()
    }
}

impl core::ops::Deref for AlignedBytes {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        self.as_bytes()
    }
}

/// Where `MeshPlan::write_streams` (feature `write`) gets a model's vertices from, one
/// attribute at a time.
pub trait StreamSource: Sync {
    /// Writes `attribute` of vertices `start..` of part `part` into `out`
    /// ([`Attribute::width`] floats a vertex), as that field of the part's
    /// [`crate::Vertex`]es, and gives how many vertices it wrote: all of `out`'s, unless the
    /// part has fewer from `start`.
    fn fill(&self, part: usize, start: usize, attribute: Attribute, out: &mut [f32]) -> usize;
    /// `attribute` of vertices `start..start + n` of part `part`, as [`StreamSource::fill`]
    /// would write them, when the source holds them so already (a mesh's positions as
    /// packed `[f32; 3]`s): the writer then writes them from there instead of copying them
    /// into a run first. `None` (the default) when it does not, or has fewer than `n`
    /// vertices from `start`: the writer fills a run.
    fn stream(&self, part: usize, start: usize, attribute: Attribute, n: usize) -> Option<&[f32]> {
        let _ = (part, start, attribute, n);
        None
    }
    /// Part `part`'s last stream is written: what builds its vertices may go.
    fn release(&mut self, part: usize);
}

/// A [`StreamSource`] over a model's own vertices (each part's `vertices`): what
/// `MeshPlan::write_streams` (feature `write`) writes from it is `encode_mesh`'s file of the
/// model.
#[derive(Clone, Copy, Debug)]
pub struct ModelStreams<'m>(pub &'m crate::Model);

impl StreamSource for ModelStreams<'_> {
    fn fill(&self, part: usize, start: usize, attribute: Attribute, out: &mut [f32]) -> usize {
        let vertices = self.0.meshes.get(part).map_or(&[][..], |m| &m.vertices[..]);
        let w = attribute.width();
        let pairs = out
            .chunks_exact_mut(w)
            .zip(vertices.get(start..).unwrap_or(&[]));
        pairs
            .map(|(o, v)| o.copy_from_slice(attribute.of(v)))
            .count()
    }

    fn release(&mut self, _: usize) {}
}
