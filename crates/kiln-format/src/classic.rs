//! The classic `.mesh` and `.clip` layout, byte-compatible with the original tool's
//! `WriteModelFile` and `WriteAnimationData`.
//!
//! All little-endian; `str` is a `u32` byte length followed by that many bytes: UTF-8, or the
//! bytes the model file had where its names are not UTF-8 ([`crate::names`]).
//! ```text
//! .mesh  u32 boneCount; boneCount × { i32 index; i32 parent; str name; f32[16] transform }
//!        u32 meshCount; meshCount × { str name; u32 vertexCount; Vertex[vertexCount];
//!                                     u32 indexCount; u32[indexCount]; i32 boneIndex;
//!                                     str materialName }
//! .clip  str name; f32 duration; f32 frameRate; u32 frameCount; u32 trackCount;
//!        trackCount × { str boneName; u32 count; Keyframe[count] }
//! ```
//! [`Vertex`] is 76 bytes and [`Keyframe`] 44, both stored as their fields in declaration order.
//! An empty array is its zero count alone (the original wrote `&v[0]` of an empty vector).
//!
//! The readers accept exactly this layout: a file with bytes after the last mesh or track, a
//! count or length that runs past the end, or a name whose UTF-8 holds one of the 256
//! characters that stand for bytes ([`crate::names`]) is an error. They check
//! every count against the bytes left before allocating (a record in memory is at most ~6× its
//! smallest encoding, so a file of `n` bytes costs at most ~8n bytes of heap).
//! `write(read(bytes)) == bytes` for every file they accept.

use alloc::string::String;
use alloc::vec::Vec;

use crate::error::{Element, FormatError, Item};
use crate::model::{Bone, Clip, Keyframe, Matrix, MeshPart, Model, Track, Vertex};
#[cfg(feature = "write")]
use crate::model::{KEYFRAME_SIZE, VERTEX_SIZE};
#[cfg(feature = "write")]
use crate::sink::Sink;

/// Smallest encoded bone: index, parent, empty name, transform.
const MIN_BONE_SIZE: usize = 4 + 4 + 4 + 64;
/// Smallest encoded mesh part: empty name, no vertices, no indices, bone index, empty material.
const MIN_MESH_SIZE: usize = 4 + 4 + 4 + 4 + 4;
/// Smallest encoded track: empty bone name, no keyframes.
const MIN_TRACK_SIZE: usize = 4 + 4;

// ---------------------------------------------------------------------------------------------
// Writing

/// Encodes a model as a classic `.mesh` file.
///
/// # Panics
/// If a name is longer than `u32::MAX` bytes or an array holds more than `u32::MAX` items,
/// which the layout cannot express.
#[cfg(feature = "write")]
pub fn write_mesh(model: &Model) -> Vec<u8> {
    let mut out = Vec::with_capacity(mesh_len(model));
    emit_mesh(model, &mut out);
    debug_assert_eq!(out.len(), mesh_len(model));
    out
}

/// [`write_mesh`] straight into a writer, without the file in memory: the vertex and index
/// arrays go to `out` as they lie in the model (one `write_all` each on little-endian
/// targets), so a large model is not copied into a buffer of its own first. Give it a
/// buffered writer: the small fields are written one by one.
///
/// # Panics
/// As [`write_mesh`].
#[cfg(all(feature = "write", feature = "std"))]
pub fn write_mesh_to(model: &Model, out: &mut impl std::io::Write) -> std::io::Result<()> {
    let mut sink = crate::sink::IoSink::new(out);
    emit_mesh(model, &mut sink);
    sink.finish()
}

/// What [`write_mesh_with`] hands its caller to write a piece of a part's vertices with.
#[cfg(all(feature = "write", feature = "std"))]
pub type PutVertices<'a> = dyn FnMut(&[Vertex]) + Send + 'a;

/// [`write_mesh_to`] of a model whose parts' vertices are not in it: part `k` has
/// `vertex_counts[k]` vertices (its own list is not read), which `vertices(k, put)` hands
/// over in order, in as many pieces as it likes, by calling `put` with each; whatever it
/// hands over past or short of the count is the caller's fault, not checked here. So a
/// writer can build a part's vertices run by run into one buffer instead of all at once
/// (`put` may be called from another thread, building the next run beside it).
///
/// An `InvalidInput` error, before anything is written, when `vertex_counts` does not give
/// one count per part.
///
/// # Panics
/// As [`write_mesh`].
#[cfg(all(feature = "write", feature = "std"))]
pub fn write_mesh_with(
    model: &Model,
    vertex_counts: &[usize],
    vertices: &mut dyn FnMut(usize, &mut PutVertices<'_>),
    out: &mut (impl std::io::Write + Send),
) -> std::io::Result<()> {
    if vertex_counts.len() != model.meshes.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            alloc::format!(
                "{} vertex counts for {} mesh parts",
                vertex_counts.len(),
                model.meshes.len()
            ),
        ));
    }
    let mut sink = crate::sink::IoSink::new(out);
    emit_mesh_with(
        model,
        &mut sink,
        |k| vertex_counts[k],
        |k, sink| {
            vertices(k, &mut |piece| put_words(sink, piece));
        },
    );
    sink.finish()
}

#[cfg(feature = "write")]
fn emit_mesh(model: &Model, out: &mut impl Sink) {
    emit_mesh_with(
        model,
        out,
        |k| model.meshes[k].vertices.len(),
        |k, out| put_words(out, &model.meshes[k].vertices),
    );
}

/// The layout, with part `k`'s vertex count from `count(k)` and its vertices put by
/// `vertices(k, out)`.
#[cfg(feature = "write")]
fn emit_mesh_with<S: Sink>(
    model: &Model,
    out: &mut S,
    count: impl Fn(usize) -> usize,
    mut vertices: impl FnMut(usize, &mut S),
) {
    put_count(out, model.bones.len());
    for bone in &model.bones {
        put_i32(out, bone.index);
        put_i32(out, bone.parent);
        put_str(out, &bone.name);
        put_words(out, &bone.transform[..]);
    }
    put_count(out, model.meshes.len());
    for (k, mesh) in model.meshes.iter().enumerate() {
        put_str(out, &mesh.name);
        put_count(out, count(k));
        vertices(k, out);
        put_count(out, mesh.indices.len());
        put_words(out, &mesh.indices);
        put_i32(out, mesh.bone_index);
        put_str(out, &mesh.material_name);
    }
}

/// Encodes a clip as a classic `.clip` file.
///
/// # Panics
/// If a name is longer than `u32::MAX` bytes or an array holds more than `u32::MAX` items.
#[cfg(feature = "write")]
pub fn write_clip(clip: &Clip) -> Vec<u8> {
    let mut out = Vec::with_capacity(clip_len(clip));
    put_str(&mut out, &clip.name);
    put_words(&mut out, &[clip.duration, clip.frame_rate]);
    put_words(&mut out, &[clip.frame_count]);
    put_count(&mut out, clip.tracks.len());
    for track in &clip.tracks {
        put_str(&mut out, &track.bone_name);
        put_count(&mut out, track.keyframes.len());
        put_words(&mut out, &track.keyframes);
    }
    debug_assert_eq!(out.len(), clip_len(clip));
    out
}

/// Size in bytes of [`write_mesh`]'s output.
#[cfg(feature = "write")]
fn mesh_len(model: &Model) -> usize {
    let counts: Vec<usize> = model.meshes.iter().map(|m| m.vertices.len()).collect();
    mesh_len_with(model, &counts)
}

/// Size in bytes of what [`write_mesh_with`] writes for `model` with these vertex counts (one
/// per part; a missing count is taken as 0): what a writer may reserve on disk first.
#[cfg(feature = "write")]
pub fn mesh_len_with(model: &Model, vertex_counts: &[usize]) -> usize {
    let bones: usize = model
        .bones
        .iter()
        .map(|b| MIN_BONE_SIZE + str_len(&b.name))
        .sum();
    let meshes: usize = model
        .meshes
        .iter()
        .enumerate()
        .map(|(k, m)| {
            MIN_MESH_SIZE
                + str_len(&m.name)
                + vertex_counts.get(k).copied().unwrap_or(0) * VERTEX_SIZE
                + m.indices.len() * 4
                + str_len(&m.material_name)
        })
        .sum();
    4 + bones + 4 + meshes
}

/// Size in bytes of [`write_clip`]'s output.
#[cfg(feature = "write")]
fn clip_len(clip: &Clip) -> usize {
    let tracks: usize = clip
        .tracks
        .iter()
        .map(|t| MIN_TRACK_SIZE + str_len(&t.bone_name) + t.keyframes.len() * KEYFRAME_SIZE)
        .sum();
    4 + str_len(&clip.name) + 4 + 4 + 4 + 4 + tracks
}

#[cfg(feature = "write")]
fn put_count(out: &mut impl Sink, n: usize) {
    let n = u32::try_from(n).expect("the classic layout stores counts and lengths as u32");
    out.put(&n.to_le_bytes());
}

#[cfg(feature = "write")]
fn put_i32(out: &mut impl Sink, v: i32) {
    out.put(&v.to_le_bytes());
}

/// The bytes [`put_str`] writes for a name (without its length).
#[cfg(feature = "write")]
fn str_len(s: &str) -> usize {
    s.len()
        - 3 * s
            .chars()
            .filter(|&c| crate::names::byte_of(c).is_some())
            .count()
}

#[cfg(feature = "write")]
fn put_str(out: &mut impl Sink, s: &str) {
    // A name's bytes as the model file had them ([`crate::names`]).
    let bytes = crate::names::to_bytes(s);
    put_count(out, bytes.len());
    out.put(&bytes);
}

/// Appends items made only of 4-byte words (`f32`, `u32`, [`Vertex`], [`Keyframe`]) in
/// little-endian order: one copy on little-endian targets.
#[cfg(all(feature = "write", target_endian = "little"))]
fn put_words<T: bytemuck::Pod>(out: &mut impl Sink, items: &[T]) {
    const { assert!(core::mem::size_of::<T>().is_multiple_of(4) && core::mem::align_of::<T>() == 4) };
    out.put(bytemuck::cast_slice(items));
}

#[cfg(all(feature = "write", target_endian = "big"))]
fn put_words<T: bytemuck::Pod>(out: &mut impl Sink, items: &[T]) {
    put_words_portable(out, items);
}

/// [`put_words`] for any byte order: word by word.
#[cfg(all(feature = "write", any(test, target_endian = "big")))]
fn put_words_portable<T: bytemuck::Pod>(out: &mut impl Sink, items: &[T]) {
    for word in bytemuck::cast_slice::<T, u32>(items) {
        out.put(&word.to_le_bytes());
    }
}

// ---------------------------------------------------------------------------------------------
// Reading

/// Decodes a classic `.mesh` file.
///
/// Errors name the field and the byte offset where reading stopped; see [`FormatError`].
pub fn read_mesh(bytes: &[u8]) -> Result<Model, FormatError> {
    let mut r = Reader::new(bytes);

    let at = Element::new(Item::Model, "bone count");
    let bone_count = r.count(at, MIN_BONE_SIZE)?;
    let mut bones = Vec::with_capacity(bone_count as usize);
    for i in 0..bone_count {
        let item = Item::Bone(i);
        let index = r.i32(Element::new(item, "index"))?;
        let parent = r.i32(Element::new(item, "parent"))?;
        let name = r.string(Element::new(item, "name"))?;
        let transform: Matrix = r.words(Element::new(item, "transform"))?;
        bones.push(Bone {
            index,
            parent,
            name,
            transform,
        });
    }

    let at = Element::new(Item::Model, "mesh count");
    let mesh_count = r.count(at, MIN_MESH_SIZE)?;
    let mut meshes = Vec::with_capacity(mesh_count as usize);
    for i in 0..mesh_count {
        let item = Item::Mesh(i);
        let name = r.string(Element::new(item, "name"))?;
        let vertices = r.array::<Vertex>(Element::new(item, "vertices"))?;
        let indices = r.array::<u32>(Element::new(item, "indices"))?;
        let bone_index = r.i32(Element::new(item, "bone index"))?;
        let material_name = r.string(Element::new(item, "material name"))?;
        meshes.push(MeshPart {
            name,
            vertices,
            indices,
            bone_index,
            material_name,
            morph_targets: Vec::new(),
        });
    }

    r.finish("last mesh")?;
    Ok(Model { bones, meshes })
}

/// Decodes a classic `.clip` file.
///
/// Errors name the field and the byte offset where reading stopped; see [`FormatError`].
pub fn read_clip(bytes: &[u8]) -> Result<Clip, FormatError> {
    let mut r = Reader::new(bytes);
    let name = r.string(Element::new(Item::Clip, "name"))?;
    let duration = r.f32(Element::new(Item::Clip, "duration"))?;
    let frame_rate = r.f32(Element::new(Item::Clip, "frame rate"))?;
    let frame_count = r.u32(Element::new(Item::Clip, "frame count"))?;

    let track_count = r.count(Element::new(Item::Clip, "track count"), MIN_TRACK_SIZE)?;
    let mut tracks = Vec::with_capacity(track_count as usize);
    for i in 0..track_count {
        let item = Item::Track(i);
        let bone_name = r.string(Element::new(item, "bone name"))?;
        let keyframes = r.array::<Keyframe>(Element::new(item, "keyframes"))?;
        tracks.push(Track {
            bone_name,
            keyframes,
        });
    }

    r.finish("last track")?;
    Ok(Clip {
        name,
        duration,
        frame_rate,
        frame_count,
        tracks,
        weight_tracks: Vec::new(),
    })
}

/// A bounds-checked cursor over the file bytes. Nothing in it indexes without a check.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Self {
        Reader { bytes, pos: 0 }
    }

    fn left(&self) -> usize {
        self.bytes.len().saturating_sub(self.pos)
    }

    /// The next `n` bytes.
    fn take(&mut self, n: usize, element: Element) -> Result<&'a [u8], FormatError> {
        let rest = self.bytes.get(self.pos..).unwrap_or_default();
        match rest.get(..n) {
            Some(s) => {
                self.pos += n;
                Ok(s)
            }
            None => Err(FormatError::Truncated {
                element,
                offset: self.pos,
                needed: n,
                left: rest.len(),
            }),
        }
    }

    fn u32(&mut self, element: Element) -> Result<u32, FormatError> {
        let [v]: [u32; 1] = self.words(element)?;
        Ok(v)
    }

    fn i32(&mut self, element: Element) -> Result<i32, FormatError> {
        let [v]: [i32; 1] = self.words(element)?;
        Ok(v)
    }

    fn f32(&mut self, element: Element) -> Result<f32, FormatError> {
        let [v]: [f32; 1] = self.words(element)?;
        Ok(v)
    }

    /// `N` little-endian words, without assuming alignment.
    fn words<T: bytemuck::Pod, const N: usize>(
        &mut self,
        element: Element,
    ) -> Result<[T; N], FormatError> {
        const { assert!(core::mem::size_of::<T>() == 4 && core::mem::align_of::<T>() == 4) };
        let src = self.take(N * 4, element)?;
        let mut out = [T::zeroed(); N];
        copy_words_le(bytemuck::cast_slice_mut(&mut out[..]), src);
        Ok(out)
    }

    /// A `u32` count, checked against the bytes left at `min_size` bytes per item.
    fn count(&mut self, element: Element, min_size: usize) -> Result<u32, FormatError> {
        let offset = self.pos;
        let count = self.u32(element)?;
        let left = self.left();
        let fits = (count as usize)
            .checked_mul(min_size)
            .is_some_and(|n| n <= left);
        if fits {
            Ok(count)
        } else {
            Err(FormatError::CountPastEnd {
                element,
                offset,
                count,
                element_size: min_size,
                left,
            })
        }
    }

    /// A `u32`-counted array of `T` (made of 4-byte words), copied out of the file.
    fn array<T: bytemuck::Pod>(&mut self, element: Element) -> Result<Vec<T>, FormatError> {
        const { assert!(core::mem::size_of::<T>().is_multiple_of(4) && core::mem::align_of::<T>() == 4) };
        let size = core::mem::size_of::<T>();
        let count = self.count(element, size)? as usize;
        // `count` checked: count * size <= left.
        let src = self.take(count * size, element)?;
        let mut out = alloc::vec![T::zeroed(); count];
        copy_words_le(bytemuck::cast_slice_mut(&mut out[..]), src);
        Ok(out)
    }

    /// A `str`: `u32` byte length, then UTF-8 bytes.
    fn string(&mut self, element: Element) -> Result<String, FormatError> {
        let offset = self.pos;
        let length = self.u32(element)?;
        let left = self.left();
        if length as usize > left {
            return Err(FormatError::StringPastEnd {
                element,
                offset,
                length,
                left,
            });
        }
        let start = self.pos;
        let raw = self.take(length as usize, element)?;
        crate::names::from_bytes(raw).map_err(|at| FormatError::InvalidUtf8 {
            element,
            offset: start + at,
        })
    }

    fn finish(&self, after: &'static str) -> Result<(), FormatError> {
        match self.left() {
            0 => Ok(()),
            count => Err(FormatError::TrailingBytes {
                offset: self.pos,
                count,
                after,
            }),
        }
    }
}

/// Fills `dst` from the little-endian words in `src` (same length in bytes; `src` may be
/// unaligned). One copy on little-endian targets; the swap loop compiles away there.
fn copy_words_le(dst: &mut [u32], src: &[u8]) {
    let dst_bytes: &mut [u8] = bytemuck::cast_slice_mut(dst);
    dst_bytes.copy_from_slice(src);
    #[cfg(target_endian = "big")]
    for w in dst.iter_mut() {
        *w = u32::from_le(*w);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    #[cfg(feature = "write")]
    fn portable_word_writer_matches_the_cast() {
        let v = Vertex {
            position: [1.0, -2.5, 3.25],
            uv: [0.5, f32::from_bits(0x7fc0_0001)],
            normal: [0.0, -0.0, 1.0],
            tangent: [f32::INFINITY, f32::MIN_POSITIVE, 1e-45],
            blend_indices: [0.0, 1.0, 2.0, 3.0],
            blend_weights: [0.25, 0.25, 0.5, 0.0],
        };
        let mut a = Vec::new();
        let mut b = Vec::new();
        put_words(&mut a, &[v, v]);
        put_words_portable(&mut b, &[v, v]);
        assert_eq!(a, b);
        assert_eq!(a.len(), 2 * VERTEX_SIZE);
        assert_eq!(&a[..4], &1.0f32.to_le_bytes());
    }

    #[test]
    fn reads_words_from_unaligned_bytes() {
        let mut bytes = Vec::from([0u8]);
        bytes.extend_from_slice(&0x0403_0201u32.to_le_bytes());
        let mut r = Reader::new(&bytes);
        r.pos = 1;
        assert_eq!(r.u32(Element::new(Item::Model, "x")), Ok(0x0403_0201));
    }
}
