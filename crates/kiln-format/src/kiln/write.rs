//! The kiln-layout writer: [`write_mesh`] and [`write_clip`].

use alloc::collections::BTreeMap;
use alloc::vec::Vec;

use super::error::WriteError;
use super::quantize::{oct_encode, snorm16_encode, unorm16_encode, weights_encode};
use super::spec::*;
#[cfg(feature = "std")]
use super::{Attribute, StreamSource};
use crate::model::{Clip, MaterialData, Matrix, Model, Vertex};
use crate::sink::Sink;

/// Which vertex streams (and morph offset streams) [`write_mesh`] stores compactly.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Quantize {
    /// Every stream in `f32` (68 bytes per vertex, 28 per morph offset); bit-exact.
    #[default]
    None,
    /// Normals and tangents octahedral snorm16, UVs unorm16, weights unorm8, morph normal
    /// offsets snorm16 against a per-shape scale; positions and morph position offsets stay
    /// `f32` (36 bytes per vertex, 24 per morph offset).
    Attributes,
    /// As [`Quantize::Attributes`], and positions unorm16 against the bounds, morph position
    /// offsets snorm16 against a per-shape scale (32 bytes per vertex, 20 per morph offset).
    AttributesAndPositions,
}

/// Options of [`write_mesh`].
#[derive(Clone, Copy, Debug, Default)]
pub struct MeshOptions<'a> {
    /// Which vertex streams are stored compactly.
    pub quantize: Quantize,
    /// One offset (inverse bind) matrix per bone, as the skin clusters give them. `None`
    /// computes each as the inverse of the bone's bind transform (a zero matrix where that is
    /// singular).
    pub offset_matrices: Option<&'a [Matrix]>,
}

/// Encodes a model and its materials as a kiln-layout `.mesh`.
///
/// The model must be what the layout can express (which `kiln_extract::extract` guarantees):
/// bone `index` equal to its position, parents earlier than their children, part bones -1 or
/// a bone, triangle lists with indices below the part's vertex count, integer blend indices
/// below 65536, and (when quantising) finite positions and UVs, and (with
/// [`Quantize::AttributesAndPositions`]) finite morph position offsets. A quantised morph
/// normal offset with a component that is not finite is stored as no offset (as a vertex
/// normal that is not finite is stored as +Z).
pub fn write_mesh(
    model: &Model,
    materials: &[MaterialData],
    options: &MeshOptions<'_>,
) -> Result<Vec<u8>, WriteError> {
    Ok(encode_mesh(model, materials, options)?.into_bytes())
}

/// A kiln-layout `.mesh` checked and encoded section by section, not yet laid out as one
/// buffer: [`MeshFile::write_to`] streams it to a writer (so a large model's file is never
/// held whole in memory), [`MeshFile::into_bytes`] gives [`write_mesh`]'s bytes.
#[derive(Debug)]
pub struct MeshFile {
    file: FileBuilder,
}

impl MeshFile {
    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.file.layout().1
    }

    /// Whether the file is empty (never: it has a header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The file's bytes, as [`write_mesh`] gives them.
    pub fn into_bytes(self) -> Vec<u8> {
        self.file.finish()
    }

    /// Writes the file's bytes to `out` (the same as [`MeshFile::into_bytes`]). Two passes
    /// over the sections: the checksum, then the bytes.
    #[cfg(feature = "std")]
    pub fn write_to(&self, out: &mut impl std::io::Write) -> std::io::Result<()> {
        self.write_with_checksum_to(self.checksum(), out)
    }

    /// [`MeshFile::write_to`] with `checksum` in the header in place of the file's own: the
    /// bytes from [`CHECKSUM_START`](super::spec::CHECKSUM_START) on do not depend on it, so a
    /// caller can write them while [`MeshFile::checksum`] runs elsewhere and put the sum at
    /// [`CHECKSUM_OFFSET`](super::spec::CHECKSUM_OFFSET) afterwards.
    #[cfg(feature = "std")]
    pub fn write_with_checksum_to(
        &self,
        checksum: u64,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        let mut sink = crate::sink::IoSink::new(out);
        self.file.emit(checksum, &mut sink);
        sink.finish()
    }

    /// XXH3-64 of the file from [`CHECKSUM_START`](super::spec::CHECKSUM_START) on: the
    /// checksum its header holds. One pass over the sections.
    pub fn checksum(&self) -> u64 {
        self.file.checksum()
    }

    /// The file's bytes in order, in pieces (the header's fields, then each section as it
    /// lies in memory), with `checksum` in the header: what a hash of the whole file reads.
    pub fn for_each_piece(&self, checksum: u64, piece: impl FnMut(&[u8])) {
        struct Pieces<F>(F);
        impl<F: FnMut(&[u8])> Sink for Pieces<F> {
            fn put(&mut self, bytes: &[u8]) {
                (self.0)(bytes)
            }
        }
        self.file.emit(checksum, &mut Pieces(piece));
    }
}

/// [`write_mesh`]'s checks and encoding, without laying the file out: see [`MeshFile`].
pub fn encode_mesh(
    model: &Model,
    materials: &[MaterialData],
    options: &MeshOptions<'_>,
) -> Result<MeshFile, WriteError> {
    let mut vertices: Vec<PartVertices<'_>> = model
        .meshes
        .iter()
        .map(|m| PartVertices::Borrowed(&m.vertices))
        .collect();
    encode(model, &mut vertices, materials, options)
}

/// [`encode_mesh`], freeing each part's vertex array as soon as its streams are encoded, so
/// that the model's vertices and the file's streams are not all in memory at once (at 400k
/// triangles, 57 MB of vertices beside 55 MB of streams). Every part's `vertices` is empty
/// afterwards, whether the encoding succeeded or not; the rest of the model is left as it was.
pub fn encode_mesh_taking_vertices(
    model: &mut Model,
    materials: &[MaterialData],
    options: &MeshOptions<'_>,
) -> Result<MeshFile, WriteError> {
    let mut vertices: Vec<PartVertices<'_>> = model
        .meshes
        .iter_mut()
        .map(|m| PartVertices::Owned(core::mem::take(&mut m.vertices)))
        .collect();
    encode(model, &mut vertices, materials, options)
}

/// A part's vertices as [`encode`] reads them: in the model, or taken out of it and freed once
/// its streams are encoded.
enum PartVertices<'a> {
    Borrowed(&'a [Vertex]),
    Owned(Vec<Vertex>),
}

impl PartVertices<'_> {
    fn get(&self) -> &[Vertex] {
        match self {
            PartVertices::Borrowed(v) => v,
            PartVertices::Owned(v) => v,
        }
    }

    /// Frees the vertices when they are owned.
    fn release(&mut self) {
        if let PartVertices::Owned(v) = self {
            *v = Vec::new();
        }
    }
}

/// The encoding of [`encode_mesh`], each part's vertices from `vertices` (in part order).
fn encode(
    model: &Model,
    vertices: &mut [PartVertices<'_>],
    materials: &[MaterialData],
    options: &MeshOptions<'_>,
) -> Result<MeshFile, WriteError> {
    let counts: Vec<usize> = vertices.iter().map(|v| v.get().len()).collect();
    let mut head =
        head(
            model,
            &counts,
            materials,
            options.offset_matrices,
            |p| match first_bad_blend_index(vertices[p].get()) {
                Some((v, j)) => Err(WriteError::BlendIndex {
                    part: p,
                    vertex: v,
                    value: j,
                }),
                None => Ok(()),
            },
        )?;

    let quantize_attributes = options.quantize != Quantize::None;
    let quantize_positions = options.quantize == Quantize::AttributesAndPositions;
    let bounds = if quantize_attributes {
        Some(bounds(vertices, quantize_positions)?)
    } else {
        None
    };
    if let Some(q) = &bounds {
        head.out.push(kind::QUANTIZATION, core::slice::from_ref(q));
    }
    // The six vertex streams in two sweeps over each part's vertices (on two threads with
    // the `parallel` feature), three streams each, a block at a time: each block is read from
    // the cache by its sweep's streams, where a pass per stream read the whole vertex array
    // (76 bytes a vertex, every cache line of it) six times. The two octahedral encodings, the
    // costly ones, go one to each sweep. A part's vertices are released once both sweeps are
    // past them.
    let encoding = Encoding {
        bounds: bounds.as_ref(),
        positions: quantize_positions,
    };
    let first = [Stream::Position, Stream::Normal, Stream::Uv];
    let second = [Stream::Tangent, Stream::Joints, Stream::Weights];
    let mut a = encoding.streams(head.vertex_total, first);
    let mut b = encoding.streams(head.vertex_total, second);
    for part in vertices.iter_mut() {
        let v = part.get();
        join(
            || encoding.sweep(v, first, &mut a),
            || encoding.sweep(v, second, &mut b),
        );
        part.release();
    }
    let ([positions, normals, uvs], [tangents, joints, weights]) = (a, b);
    head.out
        .push_bytes(encoding.kind(Stream::Position), positions);
    head.out.push_bytes(encoding.kind(Stream::Normal), normals);
    head.out
        .push_bytes(encoding.kind(Stream::Tangent), tangents);
    head.out.push_bytes(encoding.kind(Stream::Uv), uvs);
    head.out.push_bytes(encoding.kind(Stream::Joints), joints);
    head.out.push_bytes(encoding.kind(Stream::Weights), weights);
    let file = head.finish(model, options.quantize)?;
    Ok(MeshFile { file })
}

/// The sections before the vertex streams, and what the rest needs of them.
struct Head {
    /// Bones, parts, materials and textures.
    out: FileBuilder,
    strings: Strings,
    parts: Vec<PartRecord>,
    vertex_total: usize,
    index_total: usize,
    max_index: u32,
}

/// The bones, materials, textures and parts of a model whose part `p` has `counts[p]`
/// vertices, every check on them made in part order; `check_part(p)` runs after part `p`'s
/// own (its vertices' blend indices, where they are at hand).
fn head(
    model: &Model,
    counts: &[usize],
    materials: &[MaterialData],
    offset_matrices: Option<&[Matrix]>,
    mut check_part: impl FnMut(usize) -> Result<(), WriteError>,
) -> Result<Head, WriteError> {
    let mut strings = Strings::default();
    let bone_count = count_u32("bones", model.bones.len())?;

    // Bones.
    if let Some(m) = offset_matrices
        && m.len() != model.bones.len()
    {
        return Err(WriteError::OffsetMatrices {
            given: m.len(),
            bones: model.bones.len(),
        });
    }
    let mut bones = Vec::with_capacity(model.bones.len());
    for (i, b) in model.bones.iter().enumerate() {
        if b.index as i64 != i as i64 {
            return Err(WriteError::BoneIndex {
                bone: i,
                index: b.index,
            });
        }
        if b.parent < -1 || b.parent as i64 >= i as i64 {
            return Err(WriteError::BoneParent {
                bone: i,
                parent: b.parent,
            });
        }
        let offset = match offset_matrices {
            Some(m) => m.get(i).copied().unwrap_or([0.0; 16]),
            None => invert(&b.transform),
        };
        bones.push(BoneRecord {
            parent: b.parent,
            name: strings.add(&b.name)?,
            reserved: 0,
            bind: b.transform,
            offset,
        });
    }

    // Textures and materials.
    let mut textures = Textures::default();
    let mut material_records = Vec::with_capacity(materials.len());
    count_u32("materials", materials.len())?;
    for m in materials {
        let name = strings.add(&m.name)?;
        let diffuse_texture = textures.add(&m.diffuse_file, &mut strings)?;
        let specular_texture = textures.add(&m.specular_file, &mut strings)?;
        let normal_texture = textures.add(&m.normal_file, &mut strings)?;
        material_records.push(MaterialRecord {
            name,
            diffuse_texture,
            specular_texture,
            normal_texture,
            reserved: [0; 3],
            ambient: m.ambient,
            diffuse: m.diffuse,
            specular: m.specular,
            emissive: m.emissive,
        });
    }

    // Parts, and the totals.
    let mut parts = Vec::with_capacity(model.meshes.len());
    count_u32("mesh parts", model.meshes.len())?;
    let mut vertex_total = 0usize;
    let mut index_total = 0usize;
    let mut max_index = 0u32;
    for (p, mesh) in model.meshes.iter().enumerate() {
        let vertex_count = counts[p];
        if mesh.bone_index < -1 || mesh.bone_index as i64 >= bone_count as i64 {
            return Err(WriteError::PartBone {
                part: p,
                bone: mesh.bone_index,
            });
        }
        if mesh.indices.len() % 3 != 0 {
            return Err(WriteError::NotTriangles {
                part: p,
                count: mesh.indices.len(),
            });
        }
        // The largest index first (a loop that vectorises), the first one out of range only
        // when there is one.
        let part_max = mesh.indices.iter().copied().fold(0u32, u32::max);
        if !mesh.indices.is_empty() && part_max as usize >= vertex_count {
            let index = mesh
                .indices
                .iter()
                .copied()
                .find(|&i| i as usize >= vertex_count);
            return Err(WriteError::IndexOutOfRange {
                part: p,
                index: index.unwrap_or(part_max),
                vertex_count,
            });
        }
        max_index = max_index.max(part_max);
        check_part(p)?;
        let material = materials
            .iter()
            .position(|m| m.name == mesh.material_name)
            .map_or(NONE, |i| i as u32);
        parts.push(PartRecord {
            name: strings.add(&mesh.name)?,
            material_name: strings.add(&mesh.material_name)?,
            bone: mesh.bone_index,
            material,
            first_vertex: count_u32("vertices", vertex_total)?,
            vertex_count: count_u32("vertices", vertex_count)?,
            first_index: count_u32("indices", index_total)?,
            index_count: count_u32("indices", mesh.indices.len())?,
            reserved: [0; 2],
        });
        vertex_total += vertex_count;
        index_total += mesh.indices.len();
    }
    count_u32("vertices", vertex_total)?;
    count_u32("indices", index_total)?;

    let mut out = FileBuilder::new(MESH_MAGIC);
    out.push(kind::BONES, &bones);
    out.push(kind::PARTS, &parts);
    out.push(kind::MATERIALS, &material_records);
    out.push(kind::TEXTURES, &textures.records);
    Ok(Head {
        out,
        strings,
        parts,
        vertex_total,
        index_total,
        max_index,
    })
}

impl Head {
    /// The sections after the vertex streams: the indices (`u16` when every one fits), the
    /// morph sections, then the string table; the file's sections complete.
    fn finish(mut self, model: &Model, quantize: Quantize) -> Result<FileBuilder, WriteError> {
        // Part by part, each a slice copied or narrowed whole (not an item at a time).
        let mut bytes = Vec::new();
        if self.max_index <= u16::MAX as u32 {
            bytes.reserve(self.index_total * 2);
            for m in &model.meshes {
                let narrow: Vec<u16> = m.indices.iter().map(|&i| i as u16).collect();
                bytes.extend_from_slice(bytemuck::cast_slice(&narrow));
            }
            self.out.push_bytes(kind::INDICES_U16, bytes);
        } else {
            bytes.reserve(self.index_total * 4);
            for m in &model.meshes {
                bytes.extend_from_slice(bytemuck::cast_slice(&m.indices));
            }
            self.out.push_bytes(kind::INDICES_U32, bytes);
        }
        morph_sections(
            model,
            &self.parts,
            quantize,
            &mut self.strings,
            &mut self.out,
        )?;
        self.out.push_strings(self.strings)?;
        Ok(self.out)
    }
}

/// A kiln-layout `.mesh` of a model whose parts' vertices are not in it, checked and laid
/// out, its vertex streams to be written one attribute at a time in file order
/// ([`MeshPlan::write_streams`]): so a writer can build them a run at a time from wherever
/// the attributes are (a scene's arrays), and neither the model's vertex array nor the
/// file's streams are ever whole in memory (`kiln convert` writes the kiln layout so). The
/// streams are `f32` ([`Quantize::None`]): quantised streams need the bounds of every vertex
/// before the first is encoded, which [`encode_mesh`] has.
#[derive(Debug)]
// Without `std` there is no writer: the plan is laid out (its size known) but not written.
#[cfg_attr(not(feature = "std"), allow(dead_code))]
pub struct MeshPlan {
    file: FileBuilder,
    /// The section of each of [`PLANNED_STREAMS`], in that order.
    streams: [usize; 6],
    /// Each part's vertex count.
    counts: Vec<usize>,
}

/// The vertex streams of a [`MeshPlan`], in the order [`encode_mesh`] lays them out.
const PLANNED_STREAMS: [Stream; 6] = [
    Stream::Position,
    Stream::Normal,
    Stream::Tangent,
    Stream::Uv,
    Stream::Joints,
    Stream::Weights,
];

/// [`encode_mesh`] of a model whose part `k` has `vertex_counts[k]` vertices (its own list
/// is not read), the vertex streams `f32` and left to [`MeshPlan::write_streams`]: every check
/// [`encode_mesh`] makes, in the same order, but the blend indices', which the write makes
/// on the joints' stream as it comes. `offset_matrices` as [`MeshOptions::offset_matrices`]. A
/// [`WriteError::VertexCounts`] when `vertex_counts` does not give one count per part.
pub fn plan_mesh(
    model: &Model,
    vertex_counts: &[usize],
    materials: &[MaterialData],
    offset_matrices: Option<&[Matrix]>,
) -> Result<MeshPlan, WriteError> {
    if vertex_counts.len() != model.meshes.len() {
        return Err(WriteError::VertexCounts {
            given: vertex_counts.len(),
            parts: model.meshes.len(),
        });
    }
    let mut head = head(model, vertex_counts, materials, offset_matrices, |_| Ok(()))?;
    let encoding = Encoding {
        bounds: None,
        positions: false,
    };
    let mut streams = [0; 6];
    for (section, stream) in streams.iter_mut().zip(PLANNED_STREAMS) {
        *section = head.out.sections.len();
        head.out
            .push_later(encoding.kind(stream), head.vertex_total);
    }
    let file = head.finish(model, Quantize::None)?;
    Ok(MeshPlan {
        file,
        streams,
        counts: vertex_counts.to_vec(),
    })
}

impl MeshPlan {
    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.file.layout().1
    }

    /// Whether the file is empty (never: it has a header).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Writes the file to `out` in one pass, in file order: every section but the vertex
    /// streams as it is, and each stream (positions, normals, tangents, UVs, joints, weights)
    /// part by part as `source` builds it, a run of vertices at a time (a run of 8,192 or
    /// more built beside the last one's write); the checksum is hashed on the way (no
    /// read-back) and goes in at [`CHECKSUM_OFFSET`](super::spec::CHECKSUM_OFFSET) at the
    /// end, and is returned.
    /// The bytes are [`encode_mesh`]'s for the same model with its vertices.
    ///
    /// Errors: `out`'s; `InvalidInput` when `source` hands over fewer of a part's vertices
    /// than the plan counts; `InvalidData` carrying [`WriteError::BlendIndex`] for a blend
    /// index the layout cannot hold (the first in part and vertex order). The file is then
    /// incomplete: the caller removes it.
    #[cfg(feature = "std")]
    pub fn write_streams<S: StreamSource>(
        &self,
        source: &mut S,
        out: &mut (impl std::io::Write + std::io::Seek + Send),
    ) -> std::io::Result<u64> {
        self.write_streams_with(source, out, None)
    }

    /// [`MeshPlan::write_streams`], and the XXH3-128 of the whole file as written (checksum
    /// included), hashed on the way too ([`PatchedXxh3`](super::file_hash::PatchedXxh3)):
    /// what a manifest records, without reading the file back.
    #[cfg(feature = "std")]
    pub fn write_streams_hashed<S: StreamSource>(
        &self,
        source: &mut S,
        out: &mut (impl std::io::Write + std::io::Seek + Send),
    ) -> std::io::Result<(u64, u128)> {
        let mut file = super::file_hash::PatchedXxh3::new();
        let sum = self.write_streams_with(source, out, Some(&mut file))?;
        Ok((sum, file.finish(sum.to_le_bytes())))
    }

    #[cfg(feature = "std")]
    fn write_streams_with<S: StreamSource>(
        &self,
        source: &mut S,
        out: &mut (impl std::io::Write + std::io::Seek + Send),
        file_hash: Option<&mut super::file_hash::PatchedXxh3>,
    ) -> std::io::Result<u64> {
        use std::io::{Error, ErrorKind, SeekFrom};
        const _: () = assert!(CHECKSUM_OFFSET == 8, "PatchedXxh3 patches bytes 8..16");
        /// Vertices a run: 1 MiB of floats for the widest attribute.
        const RUN: usize = 1 << 16;
        /// A run of at least this many vertices is built on another thread beside the last
        /// one's write.
        const BESIDE: usize = 1 << 13;
        /// The file's hashes: from the checksum's start (the checksum), and whole (the
        /// manifest's, when asked).
        struct Hashes<'h> {
            hasher: xxhash_rust::xxh3::Xxh3Default,
            file: Option<&'h mut super::file_hash::PatchedXxh3>,
        }
        impl Hashes<'_> {
            /// `bytes`, written at `at`, hashed.
            fn update(&mut self, at: usize, bytes: &[u8]) {
                let skip = CHECKSUM_START.saturating_sub(at).min(bytes.len());
                self.hasher.update(&bytes[skip..]);
                if let Some(file) = self.file.as_deref_mut() {
                    file.update(bytes);
                }
            }
        }
        /// What is written, hashed and counted.
        struct Hashed<'w, 'h, W> {
            out: &'w mut W,
            hashes: Hashes<'h>,
            at: usize,
            joints: Vec<u16>,
        }
        impl<W: std::io::Write> Hashed<'_, '_, W> {
            fn put(&mut self, bytes: &[u8]) -> std::io::Result<()> {
                self.out.write_all(bytes)?;
                self.hashes.update(self.at, bytes);
                self.at += bytes.len();
                Ok(())
            }

            /// A run of `attribute`'s floats, the joints checked and narrowed to `u16`.
            fn put_run(
                &mut self,
                attribute: Attribute,
                at: (usize, usize),
                run: &[f32],
            ) -> std::io::Result<()> {
                let mut joints = core::mem::take(&mut self.joints);
                let put = run_bytes(&mut joints, attribute, at, run).and_then(|b| self.put(b));
                self.joints = joints;
                put
            }
        }
        /// The bytes a run of `attribute`'s floats is written as: the floats, or for the
        /// joints each checked and narrowed to `u16` (in `joints`).
        fn run_bytes<'r>(
            joints: &'r mut Vec<u16>,
            attribute: Attribute,
            (part, start): (usize, usize),
            run: &'r [f32],
        ) -> std::io::Result<&'r [u8]> {
            if attribute != Attribute::BlendIndices {
                return Ok(bytemuck::cast_slice(run));
            }
            // Every index narrowed and checked in one pass without a branch each, which the
            // compiler does eight at a time (the run is almost always good), then the first
            // bad one found.
            joints.clear();
            joints.resize(run.len(), 0);
            let mut bad = 0u32;
            for (out, &j) in joints.iter_mut().zip(run) {
                bad |= u32::from(!joint_fits(j));
                *out = narrow_joint(j);
            }
            if let Some((i, &value)) = (bad != 0)
                .then(|| run.iter().enumerate().find(|&(_, &j)| !joint_fits(j)))
                .flatten()
            {
                let why = WriteError::BlendIndex {
                    part,
                    vertex: start + i / 4,
                    value,
                };
                return Err(Error::new(ErrorKind::InvalidData, why));
            }
            Ok(bytemuck::cast_slice(joints))
        }
        let (offsets, end) = self.file.layout();
        let mut table = Vec::with_capacity(HEADER_SIZE + SECTION_ENTRY_SIZE * offsets.len());
        self.file.emit_table(0, &offsets, end, &mut table);
        let mut file = Hashed {
            out: &mut *out,
            hashes: Hashes {
                hasher: xxhash_rust::xxh3::Xxh3Default::new(),
                file: file_hash,
            },
            at: 0,
            joints: Vec::new(),
        };
        file.put(&table)?;
        let zeros = [0u8; ALIGNMENT];
        let longest = self.counts.iter().copied().max().unwrap_or(0).min(RUN);
        let mut ready = alloc::vec![0f32; longest * 4];
        let mut next = alloc::vec![0f32; longest * 4];
        for (index, (section, &offset)) in self.file.sections.iter().zip(&offsets).enumerate() {
            file.put(&zeros[..offset - file.at])?;
            let Some(stream) = self.streams.iter().position(|&s| s == index) else {
                file.put(&section.bytes)?;
                continue;
            };
            let attribute = PLANNED_STREAMS[stream].attribute();
            let width = attribute.width();
            // The stream's runs: (part, first vertex, vertices, whether the source holds it as
            // written); a part the source holds whole is one run, written in one piece.
            let mut runs: Vec<(usize, usize, usize, bool)> = Vec::new();
            for (part, &count) in self.counts.iter().enumerate() {
                if count > RUN && held(&*source, attribute, (part, 0, count)).is_some() {
                    runs.push((part, 0, count, true));
                    continue;
                }
                for start in (0..count).step_by(RUN) {
                    let n = RUN.min(count - start);
                    let is_held = held(&*source, attribute, (part, start, n)).is_some();
                    runs.push((part, start, n, is_held));
                }
            }
            // A run's floats, every one written by the source (one that hands over fewer
            // vertices than the plan counts is an error, not stale floats in the file).
            let build = |source: &S, (part, start, n), buf: &mut [f32]| {
                let got = source.fill(part, start, attribute, &mut buf[..n * width]);
                if got == n {
                    return Ok(());
                }
                let count = self.counts[part];
                Err(Error::new(
                    ErrorKind::InvalidInput,
                    alloc::format!(
                        "mesh {part}: {} of its {count} vertices handed over",
                        start + got
                    ),
                ))
            };
            // A run the source holds as written (a mesh's positions, normals, tangents) is
            // written from there; the others are built into a buffer first.
            fn held<S: StreamSource>(
                source: &S,
                attribute: Attribute,
                (part, start, n): (usize, usize, usize),
            ) -> Option<&[f32]> {
                (source.stream(part, start, attribute, n))
                    .filter(|s| s.len() == n * attribute.width())
            }
            if let Some(&(part, start, n, false)) = runs.first() {
                build(&*source, (part, start, n), &mut ready)?;
            }
            // After the last stream, each part is released once its last run is out (a part
            // without vertices with the run after it).
            let last_stream = stream + 1 == PLANNED_STREAMS.len();
            let mut released = 0;
            for (r, &(part, start, n, is_held)) in runs.iter().enumerate() {
                let shared: &S = &*source;
                let current = if is_held {
                    // A source that held the run when the runs were laid out and no longer
                    // does is refused, not read past its buffer.
                    held(shared, attribute, (part, start, n)).ok_or_else(|| {
                        Error::new(
                            ErrorKind::InvalidInput,
                            alloc::format!(
                                "mesh {part}: vertices {start}.. of {attribute:?} no longer held"
                            ),
                        )
                    })?
                } else {
                    &ready[..n * width]
                };
                // The next run, when it has to be built.
                let after = (runs.get(r + 1))
                    .filter(|a| !a.3)
                    .map(|&(p, s, n, _)| (p, s, n));
                // Beside the write when the next run is worth a hand-over to another thread
                // (waking one costs more than building a small run: the corpus's small files,
                // a run or two per part, took 1.2 times as long), or, with nothing to build
                // after it (the next run is held, or this is the stream's last), when this
                // one is. The run is hashed there too: the hashes (two passes over the bytes)
                // took a sixth of the writing thread's time, the builder's is short.
                if after.map_or(n, |a| a.2) >= BESIDE {
                    let Hashed {
                        out,
                        hashes,
                        at,
                        joints,
                    } = &mut file;
                    let bytes = run_bytes(joints, attribute, (part, start), current)?;
                    let (built, written) = join(
                        || {
                            hashes.update(*at, bytes);
                            after.map_or(Ok(()), |a| build(shared, a, &mut next))
                        },
                        || out.write_all(bytes),
                    );
                    written?;
                    built?;
                    *at += bytes.len();
                } else {
                    file.put_run(attribute, (part, start), current)?;
                    if let Some(a) = after {
                        build(shared, a, &mut next)?;
                    }
                }
                if after.is_some() {
                    core::mem::swap(&mut ready, &mut next);
                }
                let last_of_part = runs.get(r + 1).is_none_or(|&(p, ..)| p != part);
                let done = if last_of_part { part + 1 } else { part };
                while last_stream && released < done {
                    source.release(released);
                    released += 1;
                }
            }
            while last_stream && released < self.counts.len() {
                source.release(released);
                released += 1;
            }
        }
        if file.at != end {
            let at = file.at;
            return Err(Error::new(
                ErrorKind::InvalidData,
                alloc::format!("the streams came to {at} bytes of the planned {end}"),
            ));
        }
        let sum = file.hashes.hasher.digest();
        out.seek(SeekFrom::Start(CHECKSUM_OFFSET as u64))?;
        out.write_all(&sum.to_le_bytes())?;
        Ok(sum)
    }
}

/// The 1.1 morph sections of a model whose parts have morph targets (none otherwise, so such
/// a file stays 1.0): targets in part order, shapes in target order, the offsets of each shape
/// as one run of the three offset streams. Quantised, an offset stream is snorm16 against a
/// per-shape scale (the largest |component| of the shape's offsets in that stream), which the
/// shape record keeps in its `reserved` words; `f32`, those stay 0 (the files of before).
fn morph_sections(
    model: &Model,
    parts: &[PartRecord],
    quantize: Quantize,
    strings: &mut Strings,
    out: &mut FileBuilder,
) -> Result<(), WriteError> {
    if model.meshes.iter().all(|m| m.morph_targets.is_empty()) {
        return Ok(());
    }
    let bad = |part: usize, what: alloc::string::String| WriteError::Morph { part, what };
    let (mut targets, mut shapes) = (Vec::new(), Vec::new());
    let (mut vertices, mut positions, mut normals) = (Vec::new(), Vec::new(), Vec::new());
    let quantize_normals = quantize != Quantize::None;
    let quantize_positions = quantize == Quantize::AttributesAndPositions;
    let (mut positions_q, mut normals_q) = (Vec::new(), Vec::new());
    for (p, mesh) in model.meshes.iter().enumerate() {
        for (t, target) in mesh.morph_targets.iter().enumerate() {
            if target.shapes.is_empty() {
                return Err(bad(p, alloc::format!("morph target {t} has no shape")));
            }
            targets.push(MorphTargetRecord {
                name: strings.add(&target.name)?,
                part: p as u32,
                default_weight: target.default_weight,
                first_shape: count_u32("morph shapes", shapes.len())?,
                shape_count: count_u32("morph shapes", target.shapes.len())?,
                reserved: [0; 2],
            });
            let mut previous = f32::NEG_INFINITY;
            for (k, shape) in target.shapes.iter().enumerate() {
                let w = shape.full_weight;
                if !w.is_finite() || w == 0.0 || w <= previous {
                    return Err(bad(
                        p,
                        alloc::format!(
                            "morph target {t} shape {k}: full weight {w} is not finite, non-zero and above the previous"
                        ),
                    ));
                }
                previous = w;
                let n = shape.vertices.len();
                let normals_ok = shape.normals.is_empty() || shape.normals.len() == n;
                if shape.positions.len() != n || !normals_ok {
                    return Err(bad(
                        p,
                        alloc::format!(
                            "morph target {t} shape {k}: {n} vertices, {} position and {} normal offsets",
                            shape.positions.len(),
                            shape.normals.len()
                        ),
                    ));
                }
                let ascending = shape.vertices.windows(2).all(|v| v[0] < v[1]);
                if !ascending
                    || shape
                        .vertices
                        .last()
                        .is_some_and(|&v| v >= parts[p].vertex_count)
                {
                    return Err(bad(
                        p,
                        alloc::format!(
                            "morph target {t} shape {k}: vertices not ascending or past the part's {}",
                            parts[p].vertex_count
                        ),
                    ));
                }
                let mut reserved = [0u32; 2];
                if quantize_positions {
                    if let Some(i) = shape
                        .positions
                        .iter()
                        .position(|d| !d.iter().all(|c| c.is_finite()))
                    {
                        return Err(bad(
                            p,
                            alloc::format!(
                                "morph target {t} shape {k}: position offset {i} is not finite (quantised offsets must be)"
                            ),
                        ));
                    }
                    let scale = snorm16_scale(&shape.positions);
                    reserved[0] = scale.to_bits();
                    positions_q.extend(shape.positions.iter().map(|d| snorm16_offset(*d, scale)));
                } else {
                    positions.extend_from_slice(&shape.positions);
                }
                if quantize_normals {
                    // A normal offset that is not finite counts as none.
                    let finite = |d: &[f32; 3]| {
                        if d.iter().all(|c| c.is_finite()) {
                            *d
                        } else {
                            [0.0; 3]
                        }
                    };
                    let clean: Vec<[f32; 3]> = shape.normals.iter().map(finite).collect();
                    let scale = snorm16_scale(&clean);
                    reserved[1] = scale.to_bits();
                    if clean.is_empty() {
                        normals_q.resize(normals_q.len() + n, [0i16; 4]);
                    } else {
                        normals_q.extend(clean.iter().map(|d| snorm16_offset(*d, scale)));
                    }
                } else if shape.normals.is_empty() {
                    normals.resize(normals.len() + n, [0.0f32; 3]);
                } else {
                    normals.extend_from_slice(&shape.normals);
                }
                shapes.push(MorphShapeRecord {
                    name: strings.add(&shape.name)?,
                    full_weight: w,
                    first_offset: count_u32("morph offsets", vertices.len())?,
                    offset_count: count_u32("morph offsets", n)?,
                    flags: if shape.normals.is_empty() {
                        0
                    } else {
                        SHAPE_HAS_NORMALS
                    },
                    reserved,
                });
                vertices.extend_from_slice(&shape.vertices);
            }
        }
    }
    count_u32("morph targets", targets.len())?;
    count_u32("morph offsets", vertices.len())?;
    out.push(kind::MORPH_TARGETS, &targets);
    out.push(kind::MORPH_SHAPES, &shapes);
    out.push(kind::MORPH_VERTICES, &vertices);
    if quantize_positions {
        out.push(kind::MORPH_POSITIONS_SNORM16, &positions_q);
    } else {
        out.push(kind::MORPH_POSITIONS_F32, &positions);
    }
    if quantize_normals {
        out.push(kind::MORPH_NORMALS_SNORM16, &normals_q);
    } else {
        out.push(kind::MORPH_NORMALS_F32, &normals);
    }
    Ok(())
}

/// The scale of a shape's snorm16 offsets: their largest |component| (finite offsets), 0 for
/// none.
fn snorm16_scale(offsets: &[[f32; 3]]) -> f32 {
    offsets.iter().flatten().fold(0.0f32, |m, c| m.max(c.abs()))
}

/// One offset as MORPH_*_SNORM16 stores it: x, y, z against `scale`, and 0.
fn snorm16_offset(d: [f32; 3], scale: f32) -> [i16; 4] {
    [
        snorm16_encode(d[0], scale),
        snorm16_encode(d[1], scale),
        snorm16_encode(d[2], scale),
        0,
    ]
}

/// Encodes a clip as a kiln-layout `.clip`: one key per bone per frame, frame-major.
///
/// Every track must hold `frame_count` keyframes with the same times as the first track
/// (what resampling produces); the times are stored once.
pub fn write_clip(clip: &Clip) -> Result<Vec<u8>, WriteError> {
    let mut strings = Strings::default();
    let frames = clip.frame_count as usize;
    let track_count = count_u32("tracks", clip.tracks.len())?;
    for (t, track) in clip.tracks.iter().enumerate() {
        if track.keyframes.len() != frames {
            return Err(WriteError::TrackLength {
                track: t,
                count: track.keyframes.len(),
                frame_count: clip.frame_count,
            });
        }
    }
    let times: Vec<f32> = match clip.tracks.first() {
        Some(first) => first.keyframes.iter().map(|k| k.time).collect(),
        None => (0..frames).map(|f| f as f32).collect(),
    };
    for (t, track) in clip.tracks.iter().enumerate() {
        for (f, (k, &expected)) in track.keyframes.iter().zip(&times).enumerate() {
            if k.time.to_bits() != expected.to_bits() {
                return Err(WriteError::TrackTimes {
                    track: t,
                    frame: f,
                    time: k.time,
                    expected,
                });
            }
        }
    }
    let key_count = frames
        .checked_mul(clip.tracks.len())
        .ok_or(WriteError::TooMany {
            what: "keys",
            count: usize::MAX,
        })?;
    count_u32("keys", key_count)?;
    let mut keys = Vec::with_capacity(key_count);
    for f in 0..frames {
        for track in &clip.tracks {
            if let Some(k) = track.keyframes.get(f) {
                keys.push(BoneKey {
                    scale: k.scale,
                    rotation: k.rotation,
                    translation: k.translation,
                });
            }
        }
    }
    let info = ClipRecord {
        name: strings.add(&clip.name)?,
        duration: clip.duration,
        frame_rate: clip.frame_rate,
        frame_count: clip.frame_count,
        track_count,
        reserved: [0; 2],
    };
    let mut tracks = Vec::with_capacity(clip.tracks.len());
    for track in &clip.tracks {
        tracks.push(TrackRecord {
            bone_name: strings.add(&track.bone_name)?,
            reserved: [0; 2],
        });
    }
    let mut out = FileBuilder::new(CLIP_MAGIC);
    out.push(kind::CLIP, core::slice::from_ref(&info));
    out.push(kind::TRACKS, &tracks);
    out.push(kind::FRAME_TIMES, &times);
    out.push(kind::KEYS, &keys);
    if !clip.weight_tracks.is_empty() {
        // 1.1: one record per weight track, the weights frame-major.
        let mut records = Vec::with_capacity(clip.weight_tracks.len());
        for (i, w) in clip.weight_tracks.iter().enumerate() {
            if w.weights.len() != frames {
                return Err(WriteError::Morph {
                    part: i,
                    what: alloc::format!(
                        "weight track {i}: {} weights, the clip has {frames} frames",
                        w.weights.len()
                    ),
                });
            }
            records.push(WeightTrackRecord {
                part: w.part,
                target: w.target,
                reserved: [0; 2],
            });
        }
        let total = frames
            .checked_mul(records.len())
            .ok_or(WriteError::TooMany {
                what: "weights",
                count: usize::MAX,
            })?;
        count_u32("weights", total)?;
        let weights =
            (0..frames).flat_map(|f| clip.weight_tracks.iter().map(move |w| w.weights[f]));
        out.push(kind::WEIGHT_TRACKS, &records);
        out.push_iter(kind::WEIGHTS, total, weights);
    }
    out.push_strings(strings)?;
    Ok(out.finish())
}

fn count_u32(what: &'static str, count: usize) -> Result<u32, WriteError> {
    u32::try_from(count).map_err(|_| WriteError::TooMany { what, count })
}

/// The quantisation bounds of all vertices (positions only when they are quantised).
fn bounds(
    vertices: &[PartVertices<'_>],
    positions: bool,
) -> Result<QuantizationRecord, WriteError> {
    let mut pmin = [f32::INFINITY; 3];
    let mut pmax = [f32::NEG_INFINITY; 3];
    let mut umin = [f32::INFINITY; 2];
    let mut umax = [f32::NEG_INFINITY; 2];
    for (p, part) in vertices.iter().enumerate() {
        for (v, vertex) in part.get().iter().enumerate() {
            if positions {
                if !vertex.position.iter().all(|c| c.is_finite()) {
                    return Err(WriteError::NotFinite {
                        part: p,
                        vertex: v,
                        what: "position",
                    });
                }
                for a in 0..3 {
                    pmin[a] = pmin[a].min(vertex.position[a]);
                    pmax[a] = pmax[a].max(vertex.position[a]);
                }
            }
            if !vertex.uv.iter().all(|c| c.is_finite()) {
                return Err(WriteError::NotFinite {
                    part: p,
                    vertex: v,
                    what: "uv",
                });
            }
            for a in 0..2 {
                umin[a] = umin[a].min(vertex.uv[a]);
                umax[a] = umax[a].max(vertex.uv[a]);
            }
        }
    }
    let extent = |lo: f32, hi: f32| {
        if lo.is_finite() && hi.is_finite() {
            // Rounded up so that min + extent reaches hi.
            let e = hi - lo;
            if lo + e < hi { next_up(e) } else { e }
        } else {
            0.0
        }
    };
    let fix = |lo: f32| if lo.is_finite() { lo } else { 0.0 };
    let finite = |e: f32, what| {
        if e.is_finite() {
            Ok(e)
        } else {
            Err(WriteError::QuantizationRange { what })
        }
    };
    let mut q = QuantizationRecord::default();
    if positions {
        for a in 0..3 {
            q.position_extent[a] = finite(extent(pmin[a], pmax[a]), "position")?;
            q.position_min[a] = fix(pmin[a]);
        }
    }
    for a in 0..2 {
        q.uv_extent[a] = finite(extent(umin[a], umax[a]), "uv")?;
        q.uv_min[a] = fix(umin[a]);
    }
    Ok(q)
}

fn next_up(x: f32) -> f32 {
    if x.is_finite() && x >= 0.0 {
        f32::from_bits(x.to_bits() + 1)
    } else {
        x
    }
}

/// The inverse of a 4x4 matrix (cofactors, in `f64`), zeros where it is singular.
pub(crate) fn invert(m: &Matrix) -> Matrix {
    let a: [f64; 16] = m.map(|v| v as f64);
    let mut inv = [0f64; 16];
    inv[0] = a[5] * a[10] * a[15] - a[5] * a[11] * a[14] - a[9] * a[6] * a[15]
        + a[9] * a[7] * a[14]
        + a[13] * a[6] * a[11]
        - a[13] * a[7] * a[10];
    inv[4] = -a[4] * a[10] * a[15] + a[4] * a[11] * a[14] + a[8] * a[6] * a[15]
        - a[8] * a[7] * a[14]
        - a[12] * a[6] * a[11]
        + a[12] * a[7] * a[10];
    inv[8] = a[4] * a[9] * a[15] - a[4] * a[11] * a[13] - a[8] * a[5] * a[15]
        + a[8] * a[7] * a[13]
        + a[12] * a[5] * a[11]
        - a[12] * a[7] * a[9];
    inv[12] = -a[4] * a[9] * a[14] + a[4] * a[10] * a[13] + a[8] * a[5] * a[14]
        - a[8] * a[6] * a[13]
        - a[12] * a[5] * a[10]
        + a[12] * a[6] * a[9];
    inv[1] = -a[1] * a[10] * a[15] + a[1] * a[11] * a[14] + a[9] * a[2] * a[15]
        - a[9] * a[3] * a[14]
        - a[13] * a[2] * a[11]
        + a[13] * a[3] * a[10];
    inv[5] = a[0] * a[10] * a[15] - a[0] * a[11] * a[14] - a[8] * a[2] * a[15]
        + a[8] * a[3] * a[14]
        + a[12] * a[2] * a[11]
        - a[12] * a[3] * a[10];
    inv[9] = -a[0] * a[9] * a[15] + a[0] * a[11] * a[13] + a[8] * a[1] * a[15]
        - a[8] * a[3] * a[13]
        - a[12] * a[1] * a[11]
        + a[12] * a[3] * a[9];
    inv[13] = a[0] * a[9] * a[14] - a[0] * a[10] * a[13] - a[8] * a[1] * a[14]
        + a[8] * a[2] * a[13]
        + a[12] * a[1] * a[10]
        - a[12] * a[2] * a[9];
    inv[2] = a[1] * a[6] * a[15] - a[1] * a[7] * a[14] - a[5] * a[2] * a[15]
        + a[5] * a[3] * a[14]
        + a[13] * a[2] * a[7]
        - a[13] * a[3] * a[6];
    inv[6] = -a[0] * a[6] * a[15] + a[0] * a[7] * a[14] + a[4] * a[2] * a[15]
        - a[4] * a[3] * a[14]
        - a[12] * a[2] * a[7]
        + a[12] * a[3] * a[6];
    inv[10] = a[0] * a[5] * a[15] - a[0] * a[7] * a[13] - a[4] * a[1] * a[15]
        + a[4] * a[3] * a[13]
        + a[12] * a[1] * a[7]
        - a[12] * a[3] * a[5];
    inv[14] = -a[0] * a[5] * a[14] + a[0] * a[6] * a[13] + a[4] * a[1] * a[14]
        - a[4] * a[2] * a[13]
        - a[12] * a[1] * a[6]
        + a[12] * a[2] * a[5];
    inv[3] = -a[1] * a[6] * a[11] + a[1] * a[7] * a[10] + a[5] * a[2] * a[11]
        - a[5] * a[3] * a[10]
        - a[9] * a[2] * a[7]
        + a[9] * a[3] * a[6];
    inv[7] = a[0] * a[6] * a[11] - a[0] * a[7] * a[10] - a[4] * a[2] * a[11]
        + a[4] * a[3] * a[10]
        + a[8] * a[2] * a[7]
        - a[8] * a[3] * a[6];
    inv[11] = -a[0] * a[5] * a[11] + a[0] * a[7] * a[9] + a[4] * a[1] * a[11]
        - a[4] * a[3] * a[9]
        - a[8] * a[1] * a[7]
        + a[8] * a[3] * a[5];
    inv[15] = a[0] * a[5] * a[10] - a[0] * a[6] * a[9] - a[4] * a[1] * a[10]
        + a[4] * a[2] * a[9]
        + a[8] * a[1] * a[6]
        - a[8] * a[2] * a[5];
    let det = a[0] * inv[0] + a[1] * inv[4] + a[2] * inv[8] + a[3] * inv[12];
    if det == 0.0 || !det.is_finite() {
        return [0.0; 16];
    }
    inv.map(|v| (v / det) as f32)
}

/// The TEXTURES section being built: one record per distinct file name.
#[derive(Default)]
struct Textures {
    records: Vec<TextureRecord>,
    ids: BTreeMap<alloc::string::String, u32>,
}

impl Textures {
    /// The index of texture `name`, added when new; [`NONE`] for an empty name.
    fn add(&mut self, name: &str, strings: &mut Strings) -> Result<u32, WriteError> {
        if name.is_empty() {
            return Ok(NONE);
        }
        if let Some(&id) = self.ids.get(name) {
            return Ok(id);
        }
        let id = count_u32("textures", self.records.len())?;
        self.records.push(TextureRecord {
            path: strings.add(name)?,
            reserved: [0; 2],
        });
        self.ids.insert(name.into(), id);
        Ok(id)
    }
}

/// Deduplicating string table.
#[derive(Default)]
struct Strings {
    bytes: Vec<u8>,
    seen: BTreeMap<alloc::string::String, StrRef>,
}

impl Strings {
    fn add(&mut self, s: &str) -> Result<StrRef, WriteError> {
        if let Some(r) = self.seen.get(s) {
            return Ok(*r);
        }
        let r = StrRef {
            offset: count_u32("string table bytes", self.bytes.len())?,
            length: count_u32("string bytes", s.len())?,
        };
        count_u32("string table bytes", self.bytes.len() + s.len())?;
        self.bytes.extend_from_slice(s.as_bytes());
        self.seen.insert(s.into(), r);
        Ok(r)
    }
}

/// The first vertex, in order, with a blend index the layout cannot hold, and that index (the
/// first such of its four): in range, and whole; within 0..=65535 truncation is exact just for
/// whole numbers (a call to `floorf` per component cost a fifth of the encoding). A read of
/// every vertex (57 MB at 400k triangles, ~10 ms on one thread), so long parts are scanned in
/// halves with [`join`]; the answer is the same.
fn first_bad_blend_index(vertices: &[Vertex]) -> Option<(usize, f32)> {
    const SERIAL: usize = 1 << 16;
    if vertices.len() <= SERIAL {
        return vertices.iter().enumerate().find_map(|(v, vertex)| {
            vertex
                .blend_indices
                .iter()
                .find(|&&j| !joint_fits(j))
                .map(|&j| (v, j))
        });
    }
    let (a, b) = vertices.split_at(vertices.len() / 2);
    let (first, second) = join(|| first_bad_blend_index(a), || first_bad_blend_index(b));
    first.or(second.map(|(v, j)| (v + a.len(), j)))
}

/// Whether blend index `j` is one the joints' `u16` stream holds: in 0..=65535 and whole.
/// Without a branch or a float-to-integer cast (Rust's saturating casts do not vectorise),
/// so a loop over many of them vectorises: for `0 <= j < 2^23`, `j + 2^23` lies where floats
/// are one apart, so the sum is `j` rounded to a whole number, and taking `2^23` back off is
/// exact; the result is `j` just when `j` is whole. Inlined: called out of line (as it was,
/// from three places) it is a call per index, 2 % of a 400k conversion's CPU.
#[inline(always)]
fn joint_fits(j: f32) -> bool {
    (0.0..=65535.0).contains(&j) & ((j + JOINT_SHIFT) - JOINT_SHIFT == j)
}

/// 2^23, where floats are one apart.
const JOINT_SHIFT: f32 = 8_388_608.0;

/// A joint index that [`joint_fits`] as `u16`, with float adds and bit masks only (so that a
/// loop over many vectorises, where `as u16` saturates one at a time): for an integer `j` in
/// 0..=65535, `j + 2^23` is exact and its low 16 mantissa bits are `j`.
#[inline(always)]
fn narrow_joint(j: f32) -> u16 {
    (j + JOINT_SHIFT).to_bits() as u16
}

/// `rayon::join` with the `parallel` feature, the two calls in turn without it.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// One vertex stream of a kiln-layout `.mesh`.
#[derive(Clone, Copy)]
enum Stream {
    Position,
    Normal,
    Tangent,
    Uv,
    Joints,
    Weights,
}

impl Stream {
    /// The vertex field the stream holds.
    #[cfg(feature = "std")]
    fn attribute(self) -> Attribute {
        match self {
            Stream::Position => Attribute::Position,
            Stream::Normal => Attribute::Normal,
            Stream::Tangent => Attribute::Tangent,
            Stream::Uv => Attribute::Uv,
            Stream::Joints => Attribute::BlendIndices,
            Stream::Weights => Attribute::BlendWeights,
        }
    }
}

/// How [`encode_mesh`] encodes the vertex streams: `f32` without bounds, quantised against
/// them (positions too when `positions`).
struct Encoding<'a> {
    bounds: Option<&'a QuantizationRecord>,
    positions: bool,
}

impl Encoding<'_> {
    /// The section kind of `stream`.
    fn kind(&self, stream: Stream) -> u32 {
        let quantized = self.bounds.is_some();
        match stream {
            Stream::Position if quantized && self.positions => kind::POSITIONS_UNORM16,
            Stream::Position => kind::POSITIONS_F32,
            Stream::Normal if quantized => kind::NORMALS_OCT16,
            Stream::Normal => kind::NORMALS_F32,
            Stream::Tangent if quantized => kind::TANGENTS_OCT16,
            Stream::Tangent => kind::TANGENTS_F32,
            Stream::Uv if quantized => kind::UVS_UNORM16,
            Stream::Uv => kind::UVS_F32,
            Stream::Joints => kind::JOINTS_U16,
            Stream::Weights if quantized => kind::WEIGHTS_UNORM8,
            Stream::Weights => kind::WEIGHTS_F32,
        }
    }

    /// Empty sections for `streams`, with room for `count` vertices.
    fn streams<const N: usize>(&self, count: usize, streams: [Stream; N]) -> [Vec<u8>; N] {
        streams.map(|s| Vec::with_capacity(count * stream_size(self.kind(s))))
    }

    /// Appends `streams` of `vertices` to their sections' bytes, `out`.
    fn sweep<const N: usize>(
        &self,
        vertices: &[Vertex],
        streams: [Stream; N],
        out: &mut [Vec<u8>; N],
    ) {
        const BLOCK: usize = 1024;
        for block in vertices.chunks(BLOCK) {
            for (&stream, bytes) in streams.iter().zip(out.iter_mut()) {
                self.encode(stream, block, bytes);
            }
        }
    }

    /// Appends `stream` of the `vertices` to its section's `bytes`.
    fn encode(&self, stream: Stream, vertices: &[Vertex], bytes: &mut Vec<u8>) {
        let v = vertices.iter();
        match (stream, self.bounds) {
            (Stream::Position, Some(q)) if self.positions => extend(
                bytes,
                v.map(|v| {
                    let c = |a: usize| {
                        unorm16_encode(v.position[a], q.position_min[a], q.position_extent[a])
                    };
                    [c(0), c(1), c(2), 0]
                }),
            ),
            (Stream::Position, _) => extend(bytes, v.map(|v| v.position)),
            (Stream::Normal, Some(_)) => extend(bytes, v.map(|v| oct_encode(v.normal))),
            (Stream::Normal, None) => extend(bytes, v.map(|v| v.normal)),
            (Stream::Tangent, Some(_)) => extend(bytes, v.map(|v| oct_encode(v.tangent))),
            (Stream::Tangent, None) => extend(bytes, v.map(|v| v.tangent)),
            (Stream::Uv, Some(q)) => extend(
                bytes,
                v.map(|v| {
                    [
                        unorm16_encode(v.uv[0], q.uv_min[0], q.uv_extent[0]),
                        unorm16_encode(v.uv[1], q.uv_min[1], q.uv_extent[1]),
                    ]
                }),
            ),
            (Stream::Uv, None) => extend(bytes, v.map(|v| v.uv)),
            (Stream::Joints, _) => extend(bytes, v.map(|v| v.blend_indices.map(|j| j as u16))),
            (Stream::Weights, Some(_)) => extend(bytes, v.map(|v| weights_encode(v.blend_weights))),
            (Stream::Weights, None) => extend(bytes, v.map(|v| v.blend_weights)),
        }
    }
}

/// Appends `items`, encoded, to a section's bytes.
fn extend<T: bytemuck::Pod>(bytes: &mut Vec<u8>, items: impl Iterator<Item = T>) {
    for item in items {
        bytes.extend_from_slice(bytemuck::bytes_of(&item));
    }
}

/// The item size of a vertex-stream section `kind` (one [`encode_mesh`] writes).
fn stream_size(kind: u32) -> usize {
    element_size_of(kind).map_or(1, |n| n as usize)
}

#[derive(Debug)]
struct FileBuilder {
    magic: [u8; 8],
    sections: Vec<BuiltSection>,
}

/// A section of a [`FileBuilder`]: its entry's fields and its bytes, or (`later`) only their
/// length, the bytes written in place afterwards ([`MeshPlan`]).
#[derive(Debug)]
struct BuiltSection {
    kind: u32,
    size: u32,
    count: u32,
    len: usize,
    later: bool,
    bytes: Vec<u8>,
}

impl FileBuilder {
    fn new(magic: [u8; 8]) -> Self {
        FileBuilder {
            magic,
            sections: Vec::new(),
        }
    }

    /// Adds a section of `items` (whose count the caller has checked fits a `u32`).
    fn push<T: bytemuck::Pod>(&mut self, kind: u32, items: &[T]) {
        self.push_iter(kind, items.len(), items.iter().copied());
    }

    /// Adds a section of the `count` items of `items`, encoded straight into the section's
    /// bytes (no array of items first).
    fn push_iter<T: bytemuck::Pod>(
        &mut self,
        kind: u32,
        count: usize,
        items: impl Iterator<Item = T>,
    ) {
        let size = core::mem::size_of::<T>() as u32;
        debug_assert_eq!(element_size_of(kind), Some(size));
        let mut bytes = Vec::with_capacity(count * size as usize);
        for item in items {
            bytes.extend_from_slice(bytemuck::bytes_of(&item));
        }
        debug_assert_eq!(bytes.len(), count * size as usize);
        self.push_section(kind, size, bytes);
    }

    /// Adds a section of encoded items, `bytes` (whose count the caller has checked fits a
    /// `u32`), of the size `kind` has.
    fn push_bytes(&mut self, kind: u32, bytes: Vec<u8>) {
        let size = stream_size(kind);
        debug_assert_eq!(bytes.len() % size, 0);
        self.push_section(kind, size as u32, bytes);
    }

    fn push_section(&mut self, kind: u32, size: u32, bytes: Vec<u8>) {
        self.sections.push(BuiltSection {
            kind,
            size,
            count: (bytes.len() / size as usize) as u32,
            len: bytes.len(),
            later: false,
            bytes,
        });
    }

    /// Adds a section of `count` items (checked to fit a `u32`) of the size `kind` has, whose
    /// bytes are written later, in place.
    fn push_later(&mut self, kind: u32, count: usize) {
        let size = stream_size(kind);
        self.sections.push(BuiltSection {
            kind,
            size: size as u32,
            count: count as u32,
            len: count * size,
            later: true,
            bytes: Vec::new(),
        });
    }

    fn push_strings(&mut self, s: Strings) -> Result<(), WriteError> {
        count_u32("string table bytes", s.bytes.len())?;
        self.push_section(kind::STRINGS, 1, s.bytes);
        Ok(())
    }

    /// Each section's offset, and the file's size.
    fn layout(&self) -> (Vec<usize>, usize) {
        let align = |n: usize| n.div_ceil(ALIGNMENT) * ALIGNMENT;
        let table_end = HEADER_SIZE + SECTION_ENTRY_SIZE * self.sections.len();
        let mut offsets = Vec::with_capacity(self.sections.len());
        let mut end = table_end;
        for section in &self.sections {
            let start = align(end);
            offsets.push(start);
            end = start + section.len;
        }
        (offsets, end)
    }

    /// The file's bytes in order, in pieces, with `checksum` at offset 8 (every section's
    /// bytes at hand: none written later).
    fn emit(&self, checksum: u64, sink: &mut impl Sink) {
        let (offsets, end) = self.layout();
        self.emit_table(checksum, &offsets, end, sink);
        let mut at = HEADER_SIZE + SECTION_ENTRY_SIZE * self.sections.len();
        let zeros = [0u8; ALIGNMENT];
        for (section, &offset) in self.sections.iter().zip(&offsets) {
            debug_assert!(!section.later);
            sink.put(&zeros[..offset - at]);
            sink.put(&section.bytes);
            at = offset + section.len;
        }
    }

    /// The header and the section table, with `checksum` at offset 8, for the sections at
    /// `offsets` of a file of `end` bytes ([`FileBuilder::layout`]).
    fn emit_table(&self, checksum: u64, offsets: &[usize], end: usize, sink: &mut impl Sink) {
        sink.put(&self.magic);
        sink.put(&checksum.to_le_bytes());
        sink.put(&VERSION_MAJOR.to_le_bytes());
        // 1.1 only when a 1.1 section is there: older files stay byte for byte as they were.
        let minor = if self.sections.iter().any(|s| {
            matches!(
                s.kind,
                kind::MORPH_TARGETS
                    | kind::MORPH_SHAPES
                    | kind::MORPH_VERTICES
                    | kind::MORPH_POSITIONS_F32
                    | kind::MORPH_NORMALS_F32
                    | kind::MORPH_POSITIONS_SNORM16
                    | kind::MORPH_NORMALS_SNORM16
                    | kind::WEIGHT_TRACKS
                    | kind::WEIGHTS
            )
        }) {
            VERSION_MINOR
        } else {
            0
        };
        sink.put(&minor.to_le_bytes());
        sink.put(&(self.sections.len() as u32).to_le_bytes());
        sink.put(&(end as u64).to_le_bytes());
        for (section, &offset) in self.sections.iter().zip(offsets) {
            sink.put(&section.kind.to_le_bytes());
            sink.put(&0u32.to_le_bytes());
            sink.put(&(offset as u64).to_le_bytes());
            sink.put(&(section.len as u64).to_le_bytes());
            sink.put(&section.size.to_le_bytes());
            sink.put(&section.count.to_le_bytes());
        }
    }

    /// XXH3-64 of the file from byte 16 on (what [`super::checksum`] computes), streamed.
    fn checksum(&self) -> u64 {
        /// Hashes what comes after the first `skip` bytes.
        struct Hashing {
            hasher: xxhash_rust::xxh3::Xxh3Default,
            skip: usize,
        }
        impl Sink for Hashing {
            fn put(&mut self, bytes: &[u8]) {
                let cut = self.skip.min(bytes.len());
                self.skip -= cut;
                self.hasher.update(&bytes[cut..]);
            }
        }
        let mut sink = Hashing {
            hasher: xxhash_rust::xxh3::Xxh3Default::new(),
            skip: CHECKSUM_START,
        };
        self.emit(0, &mut sink);
        sink.hasher.digest()
    }

    fn finish(self) -> Vec<u8> {
        let (_, end) = self.layout();
        let sum = self.checksum();
        let mut out = Vec::with_capacity(end);
        self.emit(sum, &mut out);
        debug_assert_eq!(out.len(), end);
        debug_assert_eq!(super::checksum(&out), sum);
        out
    }
}

#[cfg(test)]
mod tests {
    use super::{joint_fits, narrow_joint};

    /// The cast-free test against the plain one (range, then truncation exact), over a
    /// spread of every float's bit patterns and the values around each whole number.
    #[test]
    fn joint_fits_as_the_casting_test() {
        let plain = |j: f32| (0.0..=65535.0).contains(&j) && (j as u32) as f32 == j;
        let spread = (0..u32::MAX / 4099).map(|i| f32::from_bits(i * 4099));
        let near = (0..70_000u32).flat_map(|w| {
            let w = w as f32;
            [w, w.next_up(), w.next_down(), w + 0.5, -w]
        });
        for j in spread.chain(near) {
            assert_eq!(joint_fits(j), plain(j), "{j:e} ({:#x})", j.to_bits());
            if joint_fits(j) {
                assert_eq!(narrow_joint(j), j as u16, "{j}");
            }
        }
    }
}
