//! Validated, borrowed views of kiln-layout files: [`MeshView`] and [`ClipView`].
//!
//! `parse` checks the header, every section-table entry (bounds, 16-byte alignment, order,
//! overlap, `count × element_size`), the string table (UTF-8), every record's references, the
//! bone hierarchy and every index against its part's vertex count. Its cost is proportional to
//! the number of sections, records, string bytes and indices; it never reads a vertex stream,
//! so it does not grow with the vertex count. The checksum is a separate call.

use alloc::string::String;
use alloc::vec::Vec;
use core::ops::Range;

use super::error::{Kind, LayoutError};
use super::quantize::{oct_decode, snorm16_decode, unorm16_decode, weights_decode};
use super::spec::*;
use crate::model::{
    Bone, Clip, Keyframe, MaterialData, Matrix, MeshPart, Model, MorphShape, MorphTarget, Track,
    Vertex, WeightTrack,
};

// ---------------------------------------------------------------------------------------------
// Header and section table

fn le_u16(b: &[u8], at: usize) -> u16 {
    let mut a = [0u8; 2];
    if let Some(s) = b.get(at..at + 2) {
        a.copy_from_slice(s);
    }
    u16::from_le_bytes(a)
}

fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut a = [0u8; 4];
    if let Some(s) = b.get(at..at + 4) {
        a.copy_from_slice(s);
    }
    u32::from_le_bytes(a)
}

fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut a = [0u8; 8];
    if let Some(s) = b.get(at..at + 8) {
        a.copy_from_slice(s);
    }
    u64::from_le_bytes(a)
}

/// The XXH3-64 (seed 0) of `bytes[16..]`: what a kiln file stores at offset 8.
pub fn checksum(bytes: &[u8]) -> u64 {
    xxhash_rust::xxh3::xxh3_64(bytes.get(CHECKSUM_START..).unwrap_or_default())
}

/// Checks the checksum stored at offset 8 against the file's bytes (a full pass over them).
pub fn verify_checksum(bytes: &[u8]) -> Result<(), LayoutError> {
    if bytes.len() < CHECKSUM_START {
        return Err(LayoutError::Truncated {
            what: "header",
            offset: 0,
            needed: HEADER_SIZE as u64,
            len: bytes.len(),
        });
    }
    let stored = le_u64(bytes, 8);
    let computed = checksum(bytes);
    if stored == computed {
        Ok(())
    } else {
        Err(LayoutError::ChecksumMismatch { stored, computed })
    }
}

/// The file type a header announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileType {
    /// A kiln-layout `.mesh`.
    Mesh,
    /// A kiln-layout `.clip`.
    Clip,
}

impl FileType {
    /// The type whose magic starts `bytes`, if any.
    pub fn of(bytes: &[u8]) -> Option<FileType> {
        match bytes.get(..8) {
            Some(m) if m == MESH_MAGIC => Some(FileType::Mesh),
            Some(m) if m == CLIP_MAGIC => Some(FileType::Clip),
            _ => None,
        }
    }

    fn magic(self) -> [u8; 8] {
        match self {
            FileType::Mesh => MESH_MAGIC,
            FileType::Clip => CLIP_MAGIC,
        }
    }

    fn name(self) -> &'static str {
        match self {
            FileType::Mesh => ".mesh",
            FileType::Clip => ".clip",
        }
    }
}

/// What every kiln file has: its bytes, version and section table.
#[derive(Clone, Copy, Debug)]
struct Frame<'a> {
    bytes: &'a [u8],
    major: u16,
    minor: u16,
    section_count: u32,
}

/// A known section found in the table, with the offset of its table entry (for errors).
#[derive(Clone, Copy, Debug, Default)]
struct Found {
    entry: usize,
    offset: usize,
    length: usize,
    count: u32,
}

/// Checks the header and every table entry; calls `found` for each known kind.
fn parse_frame<'a>(
    bytes: &'a [u8],
    file_type: FileType,
    mut found: impl FnMut(u32, Found) -> Result<(), LayoutError>,
) -> Result<Frame<'a>, LayoutError> {
    let address_mod_4 = bytes.as_ptr() as usize % 4;
    if address_mod_4 != 0 {
        return Err(LayoutError::BufferMisaligned { address_mod_4 });
    }
    if bytes.len() < HEADER_SIZE {
        // Name the magic first when even that is wrong.
        if let Some(m) = bytes.get(..8)
            && m != file_type.magic()
        {
            return Err(bad_magic(m, file_type));
        }
        return Err(LayoutError::Truncated {
            what: "header",
            offset: 0,
            needed: HEADER_SIZE as u64,
            len: bytes.len(),
        });
    }
    let magic = bytes.get(..8).unwrap_or_default();
    if magic != file_type.magic() {
        return Err(bad_magic(magic, file_type));
    }
    let major = le_u16(bytes, 16);
    let minor = le_u16(bytes, 18);
    if major != VERSION_MAJOR {
        return Err(LayoutError::UnsupportedVersion {
            offset: 16,
            major,
            minor,
            supported: VERSION_MAJOR,
        });
    }
    let section_count = le_u32(bytes, 20);
    let declared = le_u64(bytes, 24);
    if declared != bytes.len() as u64 {
        return Err(LayoutError::FileSizeMismatch {
            offset: 24,
            declared,
            actual: bytes.len(),
        });
    }
    let file_size = bytes.len() as u64;
    let table_end = HEADER_SIZE as u64 + SECTION_ENTRY_SIZE as u64 * section_count as u64;
    if table_end > file_size {
        return Err(LayoutError::Truncated {
            what: "section table",
            offset: HEADER_SIZE,
            needed: table_end,
            len: bytes.len(),
        });
    }
    let mut previous_end = table_end;
    for i in 0..section_count as usize {
        let entry = HEADER_SIZE + SECTION_ENTRY_SIZE * i;
        let s = read_entry(bytes, entry);
        let known = element_size_of(s.kind);
        if let Some(expected) = known
            && expected != s.element_size
        {
            return Err(LayoutError::ElementSizeMismatch {
                offset: entry + 24,
                kind: Kind(s.kind),
                found: s.element_size,
                expected,
            });
        }
        if known.is_none() && s.kind & KIND_REQUIRED_BIT != 0 {
            return Err(LayoutError::UnknownRequiredSection {
                offset: entry,
                kind: Kind(s.kind),
            });
        }
        let product = s.count as u64 * s.element_size as u64;
        if product > file_size {
            return Err(LayoutError::CountOverflow {
                offset: entry + 28,
                kind: Kind(s.kind),
                count: s.count as u64,
                element_size: s.element_size as u64,
                file_size,
            });
        }
        if product != s.length {
            return Err(LayoutError::LengthMismatch {
                offset: entry + 16,
                kind: Kind(s.kind),
                length: s.length,
                count: s.count,
                element_size: s.element_size,
            });
        }
        if !s.offset.is_multiple_of(ALIGNMENT as u64) {
            return Err(LayoutError::SectionMisaligned {
                offset: entry + 8,
                kind: Kind(s.kind),
                start: s.offset,
            });
        }
        if s.offset < previous_end {
            return Err(LayoutError::SectionOverlap {
                offset: entry + 8,
                kind: Kind(s.kind),
                start: s.offset,
                previous_end,
            });
        }
        let end = s.offset.checked_add(s.length).filter(|&e| e <= file_size);
        let Some(end) = end else {
            return Err(LayoutError::SectionOutOfBounds {
                offset: entry + 8,
                kind: Kind(s.kind),
                start: s.offset,
                length: s.length,
                file_size,
            });
        };
        previous_end = end;
        if known.is_some() {
            // Both fit in usize: they are at most the length of `bytes`.
            found(
                s.kind,
                Found {
                    entry,
                    offset: s.offset as usize,
                    length: s.length as usize,
                    count: s.count,
                },
            )?;
        }
    }
    Ok(Frame {
        bytes,
        major,
        minor,
        section_count,
    })
}

fn bad_magic(found_bytes: &[u8], expected: FileType) -> LayoutError {
    if let Some(other) = FileType::of(found_bytes) {
        return LayoutError::WrongFileType {
            offset: 0,
            expected: expected.name(),
            found: other.name(),
        };
    }
    let mut found = [0u8; 8];
    for (d, s) in found.iter_mut().zip(found_bytes) {
        *d = *s;
    }
    LayoutError::BadMagic {
        offset: 0,
        expected: expected.name(),
        found,
    }
}

fn read_entry(bytes: &[u8], at: usize) -> Section {
    Section {
        kind: le_u32(bytes, at),
        flags: le_u32(bytes, at + 4),
        offset: le_u64(bytes, at + 8),
        length: le_u64(bytes, at + 16),
        element_size: le_u32(bytes, at + 24),
        count: le_u32(bytes, at + 28),
    }
}

impl<'a> Frame<'a> {
    fn sections(&self) -> Sections<'a> {
        Sections {
            bytes: self.bytes,
            next: 0,
            count: self.section_count,
        }
    }

    fn stored_checksum(&self) -> u64 {
        le_u64(self.bytes, 8)
    }

    /// The records of a found section (checked in bounds; the casts cannot fail for a buffer
    /// that starts 4-byte aligned, and report misalignment rather than panic if they did).
    fn slice<T: bytemuck::Pod>(&self, f: Found) -> Result<&'a [T], LayoutError> {
        let raw = self
            .bytes
            .get(f.offset..f.offset + f.length)
            .unwrap_or_default();
        bytemuck::try_cast_slice(raw).map_err(|_| LayoutError::BufferMisaligned {
            address_mod_4: raw.as_ptr() as usize % 4,
        })
    }

    /// The string table, whole, checked to be UTF-8.
    fn strings(&self, f: Found) -> Result<&'a str, LayoutError> {
        let raw = self
            .bytes
            .get(f.offset..f.offset + f.length)
            .unwrap_or_default();
        core::str::from_utf8(raw).map_err(|e| LayoutError::InvalidUtf8 {
            offset: f.offset + e.valid_up_to(),
        })
    }
}

/// The entries of a file's section table, in file order (unknown kinds included).
#[derive(Clone, Debug)]
pub struct Sections<'a> {
    bytes: &'a [u8],
    next: u32,
    count: u32,
}

impl Iterator for Sections<'_> {
    type Item = Section;
    fn next(&mut self) -> Option<Section> {
        if self.next >= self.count {
            return None;
        }
        let at = HEADER_SIZE + SECTION_ENTRY_SIZE * self.next as usize;
        self.next += 1;
        Some(read_entry(self.bytes, at))
    }
}

/// Checks that `r` (a field at file offset `field`) names a whole UTF-8 string of the table.
fn check_str(strings: &str, table: usize, r: StrRef, field: usize) -> Result<(), LayoutError> {
    let start = r.offset as usize;
    let end = r.offset as u64 + r.length as u64;
    if end > strings.len() as u64 {
        return Err(LayoutError::StringOutOfBounds {
            offset: field,
            start: r.offset,
            length: r.length,
            table_len: strings.len() as u64,
        });
    }
    let end = end as usize;
    for at in [start, end] {
        if !strings.is_char_boundary(at) {
            return Err(LayoutError::InvalidUtf8 { offset: table + at });
        }
    }
    Ok(())
}

fn str_of(strings: &str, r: StrRef) -> &str {
    let start = r.offset as usize;
    let end = start.saturating_add(r.length as usize);
    strings.get(start..end).unwrap_or_default()
}

fn record_offset<T>(section: Found, index: usize, field: usize) -> usize {
    section.offset + index * core::mem::size_of::<T>() + field
}

/// The error for a section whose record count is not `expected` (`why` says what it must
/// match); the offset is that of the count field in its table entry.
fn count_error(f: Found, kind: u32, expected: u64, why: &'static str) -> LayoutError {
    LayoutError::CountMismatch {
        offset: f.entry + 28,
        kind: Kind(kind),
        count: f.count as u64,
        expected,
        why,
    }
}

/// `Err(count_error(..))` unless section `f` holds `expected` records.
fn expect_count(f: Found, kind: u32, expected: u64, why: &'static str) -> Result<(), LayoutError> {
    if f.count as u64 == expected {
        Ok(())
    } else {
        Err(count_error(f, kind, expected, why))
    }
}

fn missing(kind: u32) -> LayoutError {
    LayoutError::MissingSection {
        offset: HEADER_SIZE,
        kind: Kind(kind),
    }
}

/// Stores a found section in its slot, refusing a second one.
fn put(slot: &mut Option<(u32, Found)>, kind: u32, f: Found) -> Result<(), LayoutError> {
    if slot.is_some() {
        return Err(LayoutError::DuplicateSection {
            offset: f.entry,
            kind: Kind(kind),
        });
    }
    *slot = Some((kind, f));
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Vertex streams

/// The position stream.
#[derive(Clone, Copy, Debug)]
pub enum Positions<'a> {
    /// x, y, z as `f32`.
    F32(&'a [[f32; 3]]),
    /// x, y, z unorm16 (w = 0) decoding as `min + extent * (q / 65535)`.
    Unorm16 {
        /// The codes, one `[x, y, z, 0]` per vertex.
        data: &'a [[u16; 4]],
        /// The bounds' minimum (QUANTIZATION's `position_min`).
        min: [f32; 3],
        /// The bounds' extent (QUANTIZATION's `position_extent`).
        extent: [f32; 3],
    },
}

impl Positions<'_> {
    /// Vertices in the stream.
    pub fn len(&self) -> usize {
        match self {
            Positions::F32(d) => d.len(),
            Positions::Unorm16 { data, .. } => data.len(),
        }
    }
    /// Whether the stream holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Position `i`, decoded.
    pub fn get(&self, i: usize) -> Option<[f32; 3]> {
        match self {
            Positions::F32(d) => d.get(i).copied(),
            Positions::Unorm16 { data, min, extent } => data
                .get(i)
                .map(|q| [0, 1, 2].map(|a| unorm16_decode(q[a], min[a], extent[a]))),
        }
    }
}

/// A direction stream (normals, tangents).
#[derive(Clone, Copy, Debug)]
pub enum Directions<'a> {
    /// x, y, z as `f32`.
    F32(&'a [[f32; 3]]),
    /// Octahedral snorm16.
    Oct16(&'a [[i16; 2]]),
}

impl Directions<'_> {
    /// Vertices in the stream.
    pub fn len(&self) -> usize {
        match self {
            Directions::F32(d) => d.len(),
            Directions::Oct16(d) => d.len(),
        }
    }
    /// Whether the stream holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Direction `i`, decoded.
    pub fn get(&self, i: usize) -> Option<[f32; 3]> {
        match self {
            Directions::F32(d) => d.get(i).copied(),
            Directions::Oct16(d) => d.get(i).map(|q| oct_decode(*q)),
        }
    }
}

/// The texture-coordinate stream.
#[derive(Clone, Copy, Debug)]
pub enum TexCoords<'a> {
    /// u, v as `f32`.
    F32(&'a [[f32; 2]]),
    /// unorm16 decoding as `min + extent * (q / 65535)`.
    Unorm16 {
        /// The codes, one `[u, v]` per vertex.
        data: &'a [[u16; 2]],
        /// The bounds' minimum (QUANTIZATION's `uv_min`).
        min: [f32; 2],
        /// The bounds' extent (QUANTIZATION's `uv_extent`).
        extent: [f32; 2],
    },
}

impl TexCoords<'_> {
    /// Vertices in the stream.
    pub fn len(&self) -> usize {
        match self {
            TexCoords::F32(d) => d.len(),
            TexCoords::Unorm16 { data, .. } => data.len(),
        }
    }
    /// Whether the stream holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// UV `i`, decoded.
    pub fn get(&self, i: usize) -> Option<[f32; 2]> {
        match self {
            TexCoords::F32(d) => d.get(i).copied(),
            TexCoords::Unorm16 { data, min, extent } => data
                .get(i)
                .map(|q| [0, 1].map(|a| unorm16_decode(q[a], min[a], extent[a]))),
        }
    }
}

/// The blend-weight stream.
#[derive(Clone, Copy, Debug)]
pub enum Weights<'a> {
    /// Four `f32` weights per vertex.
    F32(&'a [[f32; 4]]),
    /// unorm8, summing to 255 (or all 0).
    Unorm8(&'a [[u8; 4]]),
}

impl Weights<'_> {
    /// Vertices in the stream.
    pub fn len(&self) -> usize {
        match self {
            Weights::F32(d) => d.len(),
            Weights::Unorm8(d) => d.len(),
        }
    }
    /// Whether the stream holds no vertex.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Weights of vertex `i`, decoded.
    pub fn get(&self, i: usize) -> Option<[f32; 4]> {
        match self {
            Weights::F32(d) => d.get(i).copied(),
            Weights::Unorm8(d) => d.get(i).map(|q| weights_decode(*q)),
        }
    }
}

/// One morph shape's position or normal offsets ([`MeshView::shape_position_offsets`],
/// [`MeshView::shape_normal_offsets`]), one per vertex the shape moves.
#[derive(Clone, Copy, Debug)]
pub enum MorphOffsets<'a> {
    /// x, y, z as `f32` (MORPH_POSITIONS_F32, MORPH_NORMALS_F32).
    F32(&'a [[f32; 3]]),
    /// x, y, z snorm16 (w = 0) decoding as `scale * max(q / 32767, -1)`
    /// (MORPH_POSITIONS_SNORM16, MORPH_NORMALS_SNORM16).
    Snorm16 {
        /// The codes, one `[x, y, z, 0]` per offset.
        data: &'a [[i16; 4]],
        /// The shape's scale for this stream (its largest |component|, finite and ≥ 0).
        scale: f32,
    },
}

impl Default for MorphOffsets<'_> {
    fn default() -> Self {
        MorphOffsets::F32(&[])
    }
}

impl MorphOffsets<'_> {
    /// Offsets in the run.
    pub fn len(&self) -> usize {
        match self {
            MorphOffsets::F32(d) => d.len(),
            MorphOffsets::Snorm16 { data, .. } => data.len(),
        }
    }
    /// Whether the run holds no offset.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Offset `i`, decoded.
    pub fn get(&self, i: usize) -> Option<[f32; 3]> {
        match self {
            MorphOffsets::F32(d) => d.get(i).copied(),
            MorphOffsets::Snorm16 { data, scale } => data
                .get(i)
                .map(|q| [0, 1, 2].map(|a| snorm16_decode(q[a], *scale))),
        }
    }
    /// Every offset, decoded (a copy of the slice for `f32`).
    pub fn to_vec(&self) -> Vec<[f32; 3]> {
        match self {
            MorphOffsets::F32(d) => d.to_vec(),
            MorphOffsets::Snorm16 { .. } => (0..self.len()).filter_map(|i| self.get(i)).collect(),
        }
    }
}

/// A whole morph offset stream (MORPH_POSITIONS_* or MORPH_NORMALS_*), as stored.
#[derive(Clone, Copy, Debug)]
enum MorphStream<'a> {
    F32(&'a [[f32; 3]]),
    Snorm16(&'a [[i16; 4]]),
}

impl Default for MorphStream<'_> {
    fn default() -> Self {
        MorphStream::F32(&[])
    }
}

impl<'a> MorphStream<'a> {
    /// The run `r` with `scale` (used by a snorm16 stream), empty where `r` is outside.
    fn run(self, r: Range<usize>, scale: f32) -> MorphOffsets<'a> {
        match self {
            MorphStream::F32(d) => MorphOffsets::F32(d.get(r).unwrap_or_default()),
            MorphStream::Snorm16(d) => MorphOffsets::Snorm16 {
                data: d.get(r).unwrap_or_default(),
                scale,
            },
        }
    }
}

/// The index array: triangle lists, each index local to its part.
#[derive(Clone, Copy, Debug)]
pub enum Indices<'a> {
    /// 16-bit indices (every part has at most 65536 vertices).
    U16(&'a [u16]),
    /// 32-bit indices.
    U32(&'a [u32]),
}

impl Indices<'_> {
    /// Indices in the array.
    pub fn len(&self) -> usize {
        match self {
            Indices::U16(d) => d.len(),
            Indices::U32(d) => d.len(),
        }
    }
    /// Whether the array holds no index.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Index `i`, widened to `u32`.
    pub fn get(&self, i: usize) -> Option<u32> {
        match self {
            Indices::U16(d) => d.get(i).map(|&v| v as u32),
            Indices::U32(d) => d.get(i).copied(),
        }
    }
    /// Bytes per index.
    pub fn width(&self) -> usize {
        match self {
            Indices::U16(_) => 2,
            Indices::U32(_) => 4,
        }
    }
}

/// Largest value of an index slice and the position of the first at least `limit`.
fn first_at_least<T: Copy + Into<u32>>(s: &[T], limit: u32) -> Option<(usize, u32)> {
    // A branch-free maximum (vectorises), then a search only when something is out of range.
    let max = s.iter().fold(0u32, |m, &v| m.max(v.into()));
    if max < limit {
        return None;
    }
    s.iter()
        .position(|&v| v.into() >= limit)
        .and_then(|p| s.get(p).map(|&v| (p, v.into())))
}

// ---------------------------------------------------------------------------------------------
// Mesh

/// A bone of a [`MeshView`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoneView<'a> {
    /// Its position in the BONES section.
    pub index: u32,
    /// -1 for a root, else a smaller index.
    pub parent: i32,
    /// Its name.
    pub name: &'a str,
    /// Root-space bind transform.
    pub bind: &'a Matrix,
    /// Offset (inverse bind) matrix.
    pub offset: &'a Matrix,
}

/// A mesh part of a [`MeshView`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PartView<'a> {
    /// Its position in the PARTS section.
    pub index: u32,
    /// Name of the node it hangs from.
    pub name: &'a str,
    /// Name of its material, as in the material XML.
    pub material_name: &'a str,
    /// Index of the material named `material_name`, when the file has one.
    pub material: Option<u32>,
    /// Bone of the node the part hangs from, or -1.
    pub bone: i32,
    /// Range of the vertex streams.
    pub vertices: Range<u32>,
    /// Range of the index array; the indices count from `vertices.start`.
    pub indices: Range<u32>,
}

/// A material of a [`MeshView`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MaterialView<'a> {
    /// Its name.
    pub name: &'a str,
    /// The diffuse texture's file name, when it has one.
    pub diffuse_texture: Option<&'a str>,
    /// The specular map's file name, when it has one.
    pub specular_texture: Option<&'a str>,
    /// The normal map's file name, when it has one.
    pub normal_texture: Option<&'a str>,
    /// The record itself (colours).
    pub record: &'a MaterialRecord,
}

impl MaterialView<'_> {
    /// As the material XML holds it.
    pub fn to_material_data(&self) -> MaterialData {
        MaterialData {
            name: self.name.into(),
            diffuse_file: self.diffuse_texture.unwrap_or_default().into(),
            specular_file: self.specular_texture.unwrap_or_default().into(),
            normal_file: self.normal_texture.unwrap_or_default().into(),
            ambient: self.record.ambient,
            diffuse: self.record.diffuse,
            specular: self.record.specular,
            emissive: self.record.emissive,
        }
    }
}

/// A validated kiln-layout `.mesh`, borrowing the file's bytes.
#[derive(Clone, Copy, Debug)]
pub struct MeshView<'a> {
    frame: Frame<'a>,
    strings: &'a str,
    bones: &'a [BoneRecord],
    parts: &'a [PartRecord],
    materials: &'a [MaterialRecord],
    textures: &'a [TextureRecord],
    quantization: Option<&'a QuantizationRecord>,
    positions: Positions<'a>,
    normals: Directions<'a>,
    tangents: Directions<'a>,
    uvs: TexCoords<'a>,
    joints: &'a [[u16; 4]],
    weights: Weights<'a>,
    indices: Indices<'a>,
    morph: Morphs<'a>,
}

/// The 1.1 morph sections of a `.mesh` (all empty when the file has none).
#[derive(Clone, Copy, Debug, Default)]
struct Morphs<'a> {
    targets: &'a [MorphTargetRecord],
    shapes: &'a [MorphShapeRecord],
    vertices: &'a [u32],
    positions: MorphStream<'a>,
    normals: MorphStream<'a>,
}

#[derive(Default)]
struct MeshSlots {
    strings: Option<(u32, Found)>,
    bones: Option<(u32, Found)>,
    parts: Option<(u32, Found)>,
    materials: Option<(u32, Found)>,
    textures: Option<(u32, Found)>,
    quantization: Option<(u32, Found)>,
    positions: Option<(u32, Found)>,
    normals: Option<(u32, Found)>,
    tangents: Option<(u32, Found)>,
    uvs: Option<(u32, Found)>,
    joints: Option<(u32, Found)>,
    weights: Option<(u32, Found)>,
    indices: Option<(u32, Found)>,
    morph_targets: Option<(u32, Found)>,
    morph_shapes: Option<(u32, Found)>,
    morph_vertices: Option<(u32, Found)>,
    morph_positions: Option<(u32, Found)>,
    morph_normals: Option<(u32, Found)>,
}

impl<'a> MeshView<'a> {
    /// Validates a kiln-layout `.mesh` (see the module doc for what is checked) without reading
    /// its vertex streams, and without the checksum ([`MeshView::verify_checksum`]).
    ///
    /// `bytes` must start at a 4-byte aligned address (a memory map, or [`AlignedBytes`](super::AlignedBytes)).
    pub fn parse(bytes: &'a [u8]) -> Result<MeshView<'a>, LayoutError> {
        let mut s = MeshSlots::default();
        let frame = parse_frame(bytes, FileType::Mesh, |k, f| {
            let slot = match k {
                kind::STRINGS => &mut s.strings,
                kind::BONES => &mut s.bones,
                kind::PARTS => &mut s.parts,
                kind::MATERIALS => &mut s.materials,
                kind::TEXTURES => &mut s.textures,
                kind::QUANTIZATION => &mut s.quantization,
                kind::POSITIONS_F32 | kind::POSITIONS_UNORM16 => &mut s.positions,
                kind::NORMALS_F32 | kind::NORMALS_OCT16 => &mut s.normals,
                kind::TANGENTS_F32 | kind::TANGENTS_OCT16 => &mut s.tangents,
                kind::UVS_F32 | kind::UVS_UNORM16 => &mut s.uvs,
                kind::JOINTS_U16 => &mut s.joints,
                kind::WEIGHTS_F32 | kind::WEIGHTS_UNORM8 => &mut s.weights,
                kind::INDICES_U16 | kind::INDICES_U32 => &mut s.indices,
                kind::MORPH_TARGETS => &mut s.morph_targets,
                kind::MORPH_SHAPES => &mut s.morph_shapes,
                kind::MORPH_VERTICES => &mut s.morph_vertices,
                kind::MORPH_POSITIONS_F32 | kind::MORPH_POSITIONS_SNORM16 => &mut s.morph_positions,
                kind::MORPH_NORMALS_F32 | kind::MORPH_NORMALS_SNORM16 => &mut s.morph_normals,
                // A `.clip` section in a `.mesh`: not part of this file type; skipped.
                _ => return Ok(()),
            };
            put(slot, k, f)
        })?;
        let need = |slot: Option<(u32, Found)>, k: u32| slot.ok_or_else(|| missing(k));
        let (_, strings_f) = need(s.strings, kind::STRINGS)?;
        let (_, bones_f) = need(s.bones, kind::BONES)?;
        let (_, parts_f) = need(s.parts, kind::PARTS)?;
        let (_, materials_f) = need(s.materials, kind::MATERIALS)?;
        let (_, textures_f) = need(s.textures, kind::TEXTURES)?;
        let positions_s = need(s.positions, kind::POSITIONS_F32)?;
        let normals_s = need(s.normals, kind::NORMALS_F32)?;
        let tangents_s = need(s.tangents, kind::TANGENTS_F32)?;
        let uvs_s = need(s.uvs, kind::UVS_F32)?;
        let (_, joints_f) = need(s.joints, kind::JOINTS_U16)?;
        let weights_s = need(s.weights, kind::WEIGHTS_F32)?;
        let indices_s = need(s.indices, kind::INDICES_U32)?;

        let strings = frame.strings(strings_f)?;
        let table = strings_f.offset;

        // Vertex streams: one count for all.
        let vertex_count = positions_s.1.count;
        for (k, f) in [
            normals_s,
            tangents_s,
            uvs_s,
            (kind::JOINTS_U16, joints_f),
            weights_s,
        ] {
            expect_count(f, k, vertex_count as u64, "the position count")?;
        }
        let quantized = [positions_s.0, uvs_s.0]
            .iter()
            .any(|&k| k == kind::POSITIONS_UNORM16 || k == kind::UVS_UNORM16);
        let quantization = match s.quantization {
            Some((_, f)) => {
                expect_count(f, kind::QUANTIZATION, 1, "one record")?;
                let q: &[QuantizationRecord] = frame.slice(f)?;
                let q = q.first();
                if let Some(q) = q {
                    let values = [
                        q.position_min[0],
                        q.position_min[1],
                        q.position_min[2],
                        q.position_min[3],
                        q.position_extent[0],
                        q.position_extent[1],
                        q.position_extent[2],
                        q.position_extent[3],
                        q.uv_min[0],
                        q.uv_min[1],
                        q.uv_extent[0],
                        q.uv_extent[1],
                    ];
                    let extent = [4, 5, 6, 7, 10, 11];
                    for (i, v) in values.iter().enumerate() {
                        if !v.is_finite() || (extent.contains(&i) && *v < 0.0) {
                            return Err(LayoutError::BadQuantization {
                                offset: f.offset + 4 * i,
                                value: v.to_bits(),
                            });
                        }
                    }
                }
                q
            }
            None if quantized => return Err(missing(kind::QUANTIZATION)),
            None => None,
        };
        let q = quantization.copied().unwrap_or_default();
        let positions = match positions_s.0 {
            kind::POSITIONS_UNORM16 => Positions::Unorm16 {
                data: frame.slice(positions_s.1)?,
                min: [q.position_min[0], q.position_min[1], q.position_min[2]],
                extent: [
                    q.position_extent[0],
                    q.position_extent[1],
                    q.position_extent[2],
                ],
            },
            _ => Positions::F32(frame.slice(positions_s.1)?),
        };
        let direction = |(k, f): (u32, Found)| -> Result<Directions<'a>, LayoutError> {
            Ok(match k {
                kind::NORMALS_OCT16 | kind::TANGENTS_OCT16 => Directions::Oct16(frame.slice(f)?),
                _ => Directions::F32(frame.slice(f)?),
            })
        };
        let normals = direction(normals_s)?;
        let tangents = direction(tangents_s)?;
        let uvs = match uvs_s.0 {
            kind::UVS_UNORM16 => TexCoords::Unorm16 {
                data: frame.slice(uvs_s.1)?,
                min: q.uv_min,
                extent: q.uv_extent,
            },
            _ => TexCoords::F32(frame.slice(uvs_s.1)?),
        };
        let joints = frame.slice(joints_f)?;
        let weights = match weights_s.0 {
            kind::WEIGHTS_UNORM8 => Weights::Unorm8(frame.slice(weights_s.1)?),
            _ => Weights::F32(frame.slice(weights_s.1)?),
        };
        let indices = match indices_s.0 {
            kind::INDICES_U16 => Indices::U16(frame.slice(indices_s.1)?),
            _ => Indices::U32(frame.slice(indices_s.1)?),
        };

        // Bones: names, and parents that precede their children.
        let bones: &[BoneRecord] = frame.slice(bones_f)?;
        let bone_count = bones_f.count;
        for (i, b) in bones.iter().enumerate() {
            check_str(
                strings,
                table,
                b.name,
                record_offset::<BoneRecord>(bones_f, i, 4),
            )?;
            check_parent(bones, bones_f, i)?;
        }

        // Textures and materials.
        let textures: &[TextureRecord] = frame.slice(textures_f)?;
        for (i, t) in textures.iter().enumerate() {
            check_str(
                strings,
                table,
                t.path,
                record_offset::<TextureRecord>(textures_f, i, 0),
            )?;
        }
        let materials: &[MaterialRecord] = frame.slice(materials_f)?;
        for (i, m) in materials.iter().enumerate() {
            check_str(
                strings,
                table,
                m.name,
                record_offset::<MaterialRecord>(materials_f, i, 0),
            )?;
            for (j, t) in [m.diffuse_texture, m.specular_texture, m.normal_texture]
                .into_iter()
                .enumerate()
            {
                if t != NONE && t >= textures_f.count {
                    return Err(LayoutError::ReferenceOutOfRange {
                        offset: record_offset::<MaterialRecord>(materials_f, i, 8 + 4 * j),
                        what: "texture",
                        index: t,
                        count: textures_f.count,
                    });
                }
            }
        }

        // Parts tile the vertex streams and the indices, in order; indices in range.
        let parts: &[PartRecord] = frame.slice(parts_f)?;
        let index_total = indices_s.1.count as u64;
        let mut next_vertex = 0u64;
        let mut next_index = 0u64;
        for (i, p) in parts.iter().enumerate() {
            let at = |field| record_offset::<PartRecord>(parts_f, i, field);
            check_str(strings, table, p.name, at(0))?;
            check_str(strings, table, p.material_name, at(8))?;
            if p.bone < -1 || p.bone as i64 >= bone_count as i64 {
                return Err(LayoutError::PartBoneOutOfRange {
                    offset: at(16),
                    part: i as u32,
                    bone: p.bone,
                    bone_count,
                });
            }
            if p.material != NONE && p.material >= materials_f.count {
                return Err(LayoutError::ReferenceOutOfRange {
                    offset: at(20),
                    what: "material",
                    index: p.material,
                    count: materials_f.count,
                });
            }
            let v_end = p.first_vertex as u64 + p.vertex_count as u64;
            if p.first_vertex as u64 != next_vertex || v_end > vertex_count as u64 {
                return Err(LayoutError::PartRange {
                    offset: at(24),
                    part: i as u32,
                    what: "vertex",
                    first: p.first_vertex,
                    count: p.vertex_count,
                    expected: next_vertex,
                    total: vertex_count as u64,
                });
            }
            let i_end = p.first_index as u64 + p.index_count as u64;
            if p.first_index as u64 != next_index || i_end > index_total {
                return Err(LayoutError::PartRange {
                    offset: at(32),
                    part: i as u32,
                    what: "index",
                    first: p.first_index,
                    count: p.index_count,
                    expected: next_index,
                    total: index_total,
                });
            }
            if p.index_count % 3 != 0 {
                return Err(LayoutError::NotTriangles {
                    offset: at(36),
                    part: i as u32,
                    index_count: p.index_count,
                });
            }
            let range = p.first_index as usize..i_end as usize;
            let bad = match indices {
                Indices::U16(d) => d.get(range).and_then(|s| first_at_least(s, p.vertex_count)),
                Indices::U32(d) => d.get(range).and_then(|s| first_at_least(s, p.vertex_count)),
            };
            if let Some((pos, index)) = bad {
                return Err(LayoutError::IndexOutOfRange {
                    offset: indices_s.1.offset + (p.first_index as usize + pos) * indices.width(),
                    part: i as u32,
                    index,
                    vertex_count: p.vertex_count,
                });
            }
            next_vertex = v_end;
            next_index = i_end;
        }
        if next_vertex != vertex_count as u64 {
            return Err(LayoutError::PartsIncomplete {
                offset: parts_f.entry,
                what: "vertices",
                covered: next_vertex,
                total: vertex_count as u64,
            });
        }
        if next_index != index_total {
            return Err(LayoutError::PartsIncomplete {
                offset: parts_f.entry,
                what: "indices",
                covered: next_index,
                total: index_total,
            });
        }

        let morph = parse_morphs(&frame, &s, strings, table, parts)?;

        Ok(MeshView {
            frame,
            strings,
            bones,
            parts,
            materials,
            textures,
            quantization,
            positions,
            normals,
            tangents,
            uvs,
            joints,
            weights,
            indices,
            morph,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.frame.bytes
    }
    /// Major and minor version.
    pub fn version(&self) -> (u16, u16) {
        (self.frame.major, self.frame.minor)
    }
    /// The checksum stored in the header.
    pub fn stored_checksum(&self) -> u64 {
        self.frame.stored_checksum()
    }
    /// Recomputes the checksum over the file and compares it with the stored one.
    pub fn verify_checksum(&self) -> Result<(), LayoutError> {
        verify_checksum(self.frame.bytes)
    }
    /// The section table, in file order (unknown kinds included).
    pub fn sections(&self) -> Sections<'a> {
        self.frame.sections()
    }
    /// The string table.
    pub fn strings(&self) -> &'a str {
        self.strings
    }
    /// A string of the table (empty if `r` is not one; every reference in the file was checked).
    pub fn string(&self, r: StrRef) -> &'a str {
        str_of(self.strings, r)
    }
    /// Vertices of every part together (the length of each vertex stream).
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }
    /// Indices of every part together.
    pub fn index_count(&self) -> usize {
        self.indices.len()
    }
    /// Whether any stream (vertex or morph offset) is stored in a compact encoding.
    pub fn is_quantized(&self) -> bool {
        !matches!(self.morph.positions, MorphStream::F32(_))
            || !matches!(self.morph.normals, MorphStream::F32(_))
            || !matches!(self.positions, Positions::F32(_))
            || !matches!(self.normals, Directions::F32(_))
            || !matches!(self.tangents, Directions::F32(_))
            || !matches!(self.uvs, TexCoords::F32(_))
            || !matches!(self.weights, Weights::F32(_))
    }
    /// The quantisation bounds, when the file has them.
    pub fn quantization(&self) -> Option<&'a QuantizationRecord> {
        self.quantization
    }
    /// The BONES section, as stored.
    pub fn bone_records(&self) -> &'a [BoneRecord] {
        self.bones
    }
    /// The PARTS section, as stored.
    pub fn part_records(&self) -> &'a [PartRecord] {
        self.parts
    }
    /// The MATERIALS section, as stored (empty when the file has none).
    pub fn material_records(&self) -> &'a [MaterialRecord] {
        self.materials
    }
    /// The TEXTURES section, as stored (empty when the file has none).
    pub fn texture_records(&self) -> &'a [TextureRecord] {
        self.textures
    }
    /// The bones, in order (parents first).
    pub fn bones(&self) -> impl ExactSizeIterator<Item = BoneView<'a>> + 'a {
        let strings = self.strings;
        self.bones.iter().enumerate().map(move |(i, b)| BoneView {
            index: i as u32,
            parent: b.parent,
            name: str_of(strings, b.name),
            bind: &b.bind,
            offset: &b.offset,
        })
    }
    /// The mesh parts, in order.
    pub fn parts(&self) -> impl ExactSizeIterator<Item = PartView<'a>> + 'a {
        let strings = self.strings;
        self.parts.iter().enumerate().map(move |(i, p)| PartView {
            index: i as u32,
            name: str_of(strings, p.name),
            material_name: str_of(strings, p.material_name),
            material: (p.material != NONE).then_some(p.material),
            bone: p.bone,
            vertices: p.first_vertex..p.first_vertex.saturating_add(p.vertex_count),
            indices: p.first_index..p.first_index.saturating_add(p.index_count),
        })
    }
    /// The texture file names, in order.
    pub fn textures(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let strings = self.strings;
        self.textures.iter().map(move |t| str_of(strings, t.path))
    }
    /// The materials, in order.
    pub fn materials(&self) -> impl ExactSizeIterator<Item = MaterialView<'a>> + 'a {
        let strings = self.strings;
        let textures = self.textures;
        let tex = move |i: u32| textures.get(i as usize).map(|t| str_of(strings, t.path));
        self.materials.iter().map(move |m| MaterialView {
            name: str_of(strings, m.name),
            diffuse_texture: tex(m.diffuse_texture),
            specular_texture: tex(m.specular_texture),
            normal_texture: tex(m.normal_texture),
            record: m,
        })
    }
    /// The position stream, one per vertex.
    pub fn positions(&self) -> Positions<'a> {
        self.positions
    }
    /// The normal stream, one per vertex.
    pub fn normals(&self) -> Directions<'a> {
        self.normals
    }
    /// The tangent stream, one per vertex.
    pub fn tangents(&self) -> Directions<'a> {
        self.tangents
    }
    /// The texture-coordinate stream, one per vertex.
    pub fn uvs(&self) -> TexCoords<'a> {
        self.uvs
    }
    /// Bone indices, 4 per vertex (not checked by `parse`; see [`MeshView::check_joints`]).
    pub fn joints(&self) -> &'a [[u16; 4]] {
        self.joints
    }
    /// The blend-weight stream, one per vertex (the weights of [`MeshView::joints`]).
    pub fn weights(&self) -> Weights<'a> {
        self.weights
    }
    /// The index array: every part's triangle list, each index counting from its part's first
    /// vertex.
    pub fn indices(&self) -> Indices<'a> {
        self.indices
    }

    /// Checks every joint with a non-zero weight against the bone count: a pass over the
    /// joint and weight streams, which `parse` leaves out to stay independent of the vertex count.
    pub fn check_joints(&self) -> Result<(), LayoutError> {
        let bone_count = self.bones.len() as u32;
        let joints_at = self
            .sections()
            .find(|s| s.kind == kind::JOINTS_U16)
            .map_or(0, |s| s.offset as usize);
        for (v, j) in self.joints.iter().enumerate() {
            let w = self.weights.get(v).unwrap_or_default();
            for slot in 0..4 {
                if j[slot] as u32 >= bone_count && w[slot] != 0.0 {
                    return Err(LayoutError::JointOutOfRange {
                        offset: joints_at + v * 8 + slot * 2,
                        vertex: v as u32,
                        joint: j[slot],
                        bone_count,
                    });
                }
            }
        }
        Ok(())
    }

    /// Vertex `i` of the streams, decoded.
    pub fn vertex(&self, i: usize) -> Option<Vertex> {
        Some(vertex_from(
            self.positions.get(i)?,
            self.uvs.get(i)?,
            self.normals.get(i)?,
            self.tangents.get(i)?,
            *self.joints.get(i)?,
            self.weights.get(i)?,
        ))
    }

    /// The model, decoded and copied out (the inverse of
    /// [`write_mesh`](super::write_mesh), exact for unquantised files).
    pub fn to_model(&self) -> Model {
        let bones = self
            .bones()
            .map(|b| Bone {
                index: b.index as i32,
                parent: b.parent,
                name: String::from(b.name),
                transform: *b.bind,
            })
            .collect();
        let meshes = self
            .parts()
            .enumerate()
            .map(|(i, p)| MeshPart {
                morph_targets: self
                    .part_morph_targets(i as u32)
                    .iter()
                    .map(|t| MorphTarget {
                        name: self.string(t.name).into(),
                        default_weight: t.default_weight,
                        shapes: self
                            .morph
                            .shapes
                            .get(t.first_shape as usize..(t.first_shape + t.shape_count) as usize)
                            .unwrap_or_default()
                            .iter()
                            .map(|sh| MorphShape {
                                name: self.string(sh.name).into(),
                                full_weight: sh.full_weight,
                                vertices: self.shape_vertices(sh).to_vec(),
                                positions: self.shape_position_offsets(sh).to_vec(),
                                normals: if sh.flags & SHAPE_HAS_NORMALS != 0 {
                                    self.shape_normal_offsets(sh).to_vec()
                                } else {
                                    Vec::new()
                                },
                            })
                            .collect(),
                    })
                    .collect(),
                name: p.name.into(),
                vertices: (p.vertices.start as usize..p.vertices.end as usize)
                    .filter_map(|i| self.vertex(i))
                    .collect(),
                indices: (p.indices.start as usize..p.indices.end as usize)
                    .filter_map(|i| self.indices.get(i))
                    .collect(),
                bone_index: p.bone,
                material_name: p.material_name.into(),
            })
            .collect();
        Model { bones, meshes }
    }

    /// The morph target records (1.1; empty for a file without morph targets), part by part.
    pub fn morph_target_records(&self) -> &'a [MorphTargetRecord] {
        self.morph.targets
    }

    /// The morph shape records (1.1), target by target.
    pub fn morph_shape_records(&self) -> &'a [MorphShapeRecord] {
        self.morph.shapes
    }

    /// The morph targets of part `part` (a run of [`MeshView::morph_target_records`]).
    pub fn part_morph_targets(&self, part: u32) -> &'a [MorphTargetRecord] {
        let t = self.morph.targets;
        let a = t.partition_point(|r| r.part < part);
        let b = t.partition_point(|r| r.part <= part);
        &t[a..b]
    }

    /// One shape's offsets, zero-copy: the vertices it moves (local to its part), their
    /// position offsets and normal offsets (zeros unless
    /// [`SHAPE_HAS_NORMALS`](super::spec::SHAPE_HAS_NORMALS)), as the `f32` streams store
    /// them. A stream the file stores as snorm16 (a quantised file's; the variant of
    /// [`MeshView::shape_position_offsets`] / [`MeshView::shape_normal_offsets`] says which)
    /// gives an empty slice here: those two decode either encoding.
    pub fn shape_offsets(
        &self,
        shape: &MorphShapeRecord,
    ) -> (&'a [u32], &'a [[f32; 3]], &'a [[f32; 3]]) {
        let r = offset_run(shape);
        let m = self.morph;
        let f32s = |s: MorphStream<'a>| match s {
            MorphStream::F32(d) => d.get(r.clone()).unwrap_or_default(),
            MorphStream::Snorm16(_) => &[],
        };
        (
            self.shape_vertices(shape),
            f32s(m.positions),
            f32s(m.normals),
        )
    }

    /// The vertices a shape moves (local to its part), ascending.
    pub fn shape_vertices(&self, shape: &MorphShapeRecord) -> &'a [u32] {
        self.morph
            .vertices
            .get(offset_run(shape))
            .unwrap_or_default()
    }

    /// A shape's position offsets, one per vertex of [`MeshView::shape_vertices`], in the
    /// file's encoding (`f32`, or snorm16 against the shape's
    /// [`position_scale`](MorphShapeRecord::position_scale)); `get` decodes.
    pub fn shape_position_offsets(&self, shape: &MorphShapeRecord) -> MorphOffsets<'a> {
        self.morph
            .positions
            .run(offset_run(shape), shape.position_scale())
    }

    /// A shape's normal offsets, one per vertex of [`MeshView::shape_vertices`] (zeros unless
    /// [`SHAPE_HAS_NORMALS`](super::spec::SHAPE_HAS_NORMALS)), in the file's encoding (`f32`,
    /// or snorm16 against the shape's [`normal_scale`](MorphShapeRecord::normal_scale)).
    pub fn shape_normal_offsets(&self, shape: &MorphShapeRecord) -> MorphOffsets<'a> {
        self.morph
            .normals
            .run(offset_run(shape), shape.normal_scale())
    }

    /// The materials as the material XML holds them.
    pub fn to_materials(&self) -> Vec<MaterialData> {
        self.materials().map(|m| m.to_material_data()).collect()
    }

    /// The offset matrices, one per bone (for [`MeshOptions::offset_matrices`](super::MeshOptions)).
    pub fn offset_matrices(&self) -> Vec<Matrix> {
        self.bones.iter().map(|b| b.offset).collect()
    }

    /// The offset matrices as a skeleton takes them (`kiln_anim::Skeleton::new`): `None` where
    /// the file holds the identity, which is what it stores for a bone no skin uses.
    pub fn skin_offsets(&self) -> Vec<Option<Matrix>> {
        self.bones
            .iter()
            .map(|b| (b.offset != crate::IDENTITY).then_some(b.offset))
            .collect()
    }
}

/// A shape's run of the offset streams (never overflowing, for a record from anywhere).
fn offset_run(shape: &MorphShapeRecord) -> Range<usize> {
    let start = shape.first_offset as usize;
    start..start.saturating_add(shape.offset_count as usize)
}

/// The 1.1 morph sections: all five or none (a position and a normal stream, each `f32` or
/// snorm16); targets in part order with their shapes tiling MORPH_SHAPES, shapes' offsets
/// tiling the offset streams, full weights finite, non-zero and ascending per target, each
/// shape's vertices ascending and inside its part, the scales of snorm16 streams finite and
/// ≥ 0. Reads the records and MORPH_VERTICES (time proportional to the offsets, not to the
/// vertex count).
fn parse_morphs<'a>(
    frame: &Frame<'a>,
    s: &MeshSlots,
    strings: &str,
    table: usize,
    parts: &[PartRecord],
) -> Result<Morphs<'a>, LayoutError> {
    let slots = [
        (s.morph_targets, kind::MORPH_TARGETS),
        (s.morph_shapes, kind::MORPH_SHAPES),
        (s.morph_vertices, kind::MORPH_VERTICES),
        (s.morph_positions, kind::MORPH_POSITIONS_F32),
        (s.morph_normals, kind::MORPH_NORMALS_F32),
    ];
    if slots.iter().all(|(f, _)| f.is_none()) {
        return Ok(Morphs::default());
    }
    if let Some((_, k)) = slots.iter().find(|(f, _)| f.is_none()) {
        return Err(missing(*k));
    }
    let f = |i: usize| {
        slots[i].0.map(|x| x.1).unwrap_or(Found {
            entry: 0,
            offset: 0,
            length: 0,
            count: 0,
        })
    };
    let (targets_f, shapes_f, vertices_f) = (f(0), f(1), f(2));
    let offsets = vertices_f.count as u64;
    // The kind found in a stream's slot (F32 or SNORM16).
    let k = |i: usize, default: u32| slots[i].0.map_or(default, |x| x.0);
    let (positions_k, normals_k) = (
        k(3, kind::MORPH_POSITIONS_F32),
        k(4, kind::MORPH_NORMALS_F32),
    );
    expect_count(f(3), positions_k, offsets, "the MORPH_VERTICES count")?;
    expect_count(f(4), normals_k, offsets, "the MORPH_VERTICES count")?;
    let stream = |k: u32, found: Found| -> Result<MorphStream<'a>, LayoutError> {
        Ok(match k {
            kind::MORPH_POSITIONS_SNORM16 | kind::MORPH_NORMALS_SNORM16 => {
                MorphStream::Snorm16(frame.slice(found)?)
            }
            _ => MorphStream::F32(frame.slice(found)?),
        })
    };
    let m = Morphs {
        targets: frame.slice(targets_f)?,
        shapes: frame.slice(shapes_f)?,
        vertices: frame.slice(vertices_f)?,
        positions: stream(positions_k, f(3))?,
        normals: stream(normals_k, f(4))?,
    };
    // The scale words that carry a scale: those of the snorm16 streams (beside an f32 stream
    // the word is reserved, and not read).
    type Scale = fn(&MorphShapeRecord) -> f32;
    let scaled: [(bool, usize, Scale, &'static str); 2] = [
        (
            positions_k == kind::MORPH_POSITIONS_SNORM16,
            SHAPE_POSITION_SCALE_FIELD,
            MorphShapeRecord::position_scale,
            "position offset scale not finite and ≥ 0",
        ),
        (
            normals_k == kind::MORPH_NORMALS_SNORM16,
            SHAPE_NORMAL_SCALE_FIELD,
            MorphShapeRecord::normal_scale,
            "normal offset scale not finite and ≥ 0",
        ),
    ];
    let bad = |offset: usize, what: &'static str| LayoutError::BadMorph { offset, what };
    let (mut next_shape, mut next_offset, mut last_part) = (0u64, 0u64, 0u32);
    for (i, t) in m.targets.iter().enumerate() {
        let at = |field| record_offset::<MorphTargetRecord>(targets_f, i, field);
        check_str(strings, table, t.name, at(0))?;
        let Some(part) = parts.get(t.part as usize) else {
            return Err(bad(at(8), "target's part out of range"));
        };
        if t.part < last_part {
            return Err(bad(at(8), "targets not in part order"));
        }
        last_part = t.part;
        let end = t.first_shape as u64 + t.shape_count as u64;
        if t.first_shape as u64 != next_shape || t.shape_count == 0 || end > shapes_f.count as u64 {
            return Err(bad(
                at(16),
                "target's shapes do not follow the previous target's",
            ));
        }
        next_shape = end;
        let mut previous = f32::NEG_INFINITY;
        for k in t.first_shape as usize..end as usize {
            let sh = &m.shapes[k];
            let at = |field| record_offset::<MorphShapeRecord>(shapes_f, k, field);
            check_str(strings, table, sh.name, at(0))?;
            let w = sh.full_weight;
            if !w.is_finite() || w == 0.0 || w <= previous {
                return Err(bad(at(8), "full weight not finite, non-zero and ascending"));
            }
            previous = w;
            let o_end = sh.first_offset as u64 + sh.offset_count as u64;
            if sh.first_offset as u64 != next_offset || o_end > offsets {
                return Err(bad(
                    at(12),
                    "shape's offsets do not follow the previous shape's",
                ));
            }
            next_offset = o_end;
            let run = &m.vertices[sh.first_offset as usize..o_end as usize];
            let inside = run.last().is_none_or(|&v| v < part.vertex_count);
            if !inside || !run.windows(2).all(|w| w[0] < w[1]) {
                return Err(bad(
                    vertices_f.offset + 4 * sh.first_offset as usize,
                    "shape's vertices not ascending or past its part",
                ));
            }
            for (used, field, scale, what) in scaled {
                let scale = scale(sh);
                if used && !(scale.is_finite() && scale >= 0.0) {
                    return Err(bad(at(field), what));
                }
            }
        }
    }
    if next_shape != shapes_f.count as u64 {
        return Err(bad(shapes_f.entry, "shapes no target uses"));
    }
    if next_offset != offsets {
        return Err(bad(vertices_f.entry, "offsets no shape uses"));
    }
    Ok(m)
}

/// Parent of bone `i`: -1 or an earlier bone. Distinguishes a cycle from a forward reference
/// by walking the chain once (at most `bones.len()` steps, and only on the error path).
fn check_parent(bones: &[BoneRecord], f: Found, i: usize) -> Result<(), LayoutError> {
    let Some(b) = bones.get(i) else {
        return Ok(());
    };
    let offset = record_offset::<BoneRecord>(f, i, 0);
    let n = bones.len() as i64;
    let p = b.parent;
    if p == -1 || (0..i as i64).contains(&(p as i64)) {
        return Ok(());
    }
    if p < -1 || p as i64 >= n {
        return Err(LayoutError::BoneParentOutOfRange {
            offset,
            bone: i as u32,
            parent: p,
            bone_count: bones.len() as u32,
        });
    }
    // p >= i: follow the chain; coming back to i is a cycle.
    let mut cur = p as i64;
    for _ in 0..=bones.len() {
        if cur == i as i64 {
            return Err(LayoutError::BoneParentCycle {
                offset,
                bone: i as u32,
                parent: p,
            });
        }
        match bones.get(cur as usize) {
            Some(next) if cur >= 0 => cur = next.parent as i64,
            _ => break,
        }
    }
    Err(LayoutError::BoneParentForward {
        offset,
        bone: i as u32,
        parent: p,
    })
}

// ---------------------------------------------------------------------------------------------
// Clip

/// A validated kiln-layout `.clip`, borrowing the file's bytes. Keys are frame-major: the
/// keys of frame `f` for all tracks are the contiguous slice [`ClipView::frame`]`(f)`.
#[derive(Clone, Copy, Debug)]
pub struct ClipView<'a> {
    frame: Frame<'a>,
    strings: &'a str,
    info: &'a ClipRecord,
    tracks: &'a [TrackRecord],
    times: &'a [f32],
    keys: &'a [BoneKey],
    weight_tracks: &'a [WeightTrackRecord],
    weights: &'a [f32],
}

impl<'a> ClipView<'a> {
    /// Validates a kiln-layout `.clip` (header, table, counts, names) without the checksum.
    pub fn parse(bytes: &'a [u8]) -> Result<ClipView<'a>, LayoutError> {
        let mut strings_s = None;
        let mut info_s = None;
        let mut tracks_s = None;
        let mut times_s = None;
        let mut keys_s = None;
        let mut weight_tracks_s = None;
        let mut weights_s = None;
        let frame = parse_frame(bytes, FileType::Clip, |k, f| {
            let slot = match k {
                kind::STRINGS => &mut strings_s,
                kind::CLIP => &mut info_s,
                kind::TRACKS => &mut tracks_s,
                kind::FRAME_TIMES => &mut times_s,
                kind::KEYS => &mut keys_s,
                kind::WEIGHT_TRACKS => &mut weight_tracks_s,
                kind::WEIGHTS => &mut weights_s,
                _ => return Ok(()),
            };
            put(slot, k, f)
        })?;
        let need = |slot: Option<(u32, Found)>, k: u32| slot.map(|s| s.1).ok_or_else(|| missing(k));
        let strings_f = need(strings_s, kind::STRINGS)?;
        let info_f = need(info_s, kind::CLIP)?;
        let tracks_f = need(tracks_s, kind::TRACKS)?;
        let times_f = need(times_s, kind::FRAME_TIMES)?;
        let keys_f = need(keys_s, kind::KEYS)?;
        let strings = frame.strings(strings_f)?;
        let table = strings_f.offset;
        let info_slice: &[ClipRecord] = frame.slice(info_f)?;
        let info = info_slice
            .first()
            .filter(|_| info_f.count == 1)
            .ok_or_else(|| count_error(info_f, kind::CLIP, 1, "one record"))?;
        check_str(strings, table, info.name, info_f.offset)?;
        expect_count(
            tracks_f,
            kind::TRACKS,
            info.track_count as u64,
            "the clip's track count",
        )?;
        expect_count(
            times_f,
            kind::FRAME_TIMES,
            info.frame_count as u64,
            "the clip's frame count",
        )?;
        expect_count(
            keys_f,
            kind::KEYS,
            info.frame_count as u64 * info.track_count as u64,
            "frame count × track count",
        )?;
        let tracks: &[TrackRecord] = frame.slice(tracks_f)?;
        for (i, t) in tracks.iter().enumerate() {
            check_str(
                strings,
                table,
                t.bone_name,
                record_offset::<TrackRecord>(tracks_f, i, 0),
            )?;
        }
        // 1.1 weight tracks: both sections or neither, F weights per track, frame-major.
        let (weight_tracks, weights) = match (weight_tracks_s, weights_s) {
            (None, None) => (&[][..], &[][..]),
            (Some((_, wt)), Some((_, w))) => {
                expect_count(
                    w,
                    kind::WEIGHTS,
                    info.frame_count as u64 * wt.count as u64,
                    "frame count × weight track count",
                )?;
                (frame.slice(wt)?, frame.slice(w)?)
            }
            (None, Some(_)) => return Err(missing(kind::WEIGHT_TRACKS)),
            (Some(_), None) => return Err(missing(kind::WEIGHTS)),
        };
        Ok(ClipView {
            frame,
            strings,
            info,
            tracks,
            times: frame.slice(times_f)?,
            keys: frame.slice(keys_f)?,
            weight_tracks,
            weights,
        })
    }

    /// The file's bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.frame.bytes
    }
    /// Major and minor version.
    pub fn version(&self) -> (u16, u16) {
        (self.frame.major, self.frame.minor)
    }
    /// The checksum stored in the header.
    pub fn stored_checksum(&self) -> u64 {
        self.frame.stored_checksum()
    }
    /// Recomputes the checksum over the file and compares it with the stored one.
    pub fn verify_checksum(&self) -> Result<(), LayoutError> {
        verify_checksum(self.frame.bytes)
    }
    /// The section table, in file order (unknown kinds included).
    pub fn sections(&self) -> Sections<'a> {
        self.frame.sections()
    }
    /// The clip's name.
    pub fn name(&self) -> &'a str {
        str_of(self.strings, self.info.name)
    }
    /// Length in frames.
    pub fn duration(&self) -> f32 {
        self.info.duration
    }
    /// Frames per second.
    pub fn frame_rate(&self) -> f32 {
        self.info.frame_rate
    }
    /// Frames: keys per track and entries of [`ClipView::times`].
    pub fn frame_count(&self) -> u32 {
        self.info.frame_count
    }
    /// Tracks (one per bone in kiln's files).
    pub fn track_count(&self) -> u32 {
        self.info.track_count
    }
    /// The bone each track drives, in track order.
    pub fn track_names(&self) -> impl ExactSizeIterator<Item = &'a str> + 'a {
        let strings = self.strings;
        self.tracks
            .iter()
            .map(move |t| str_of(strings, t.bone_name))
    }
    /// Time of each frame, in frames.
    pub fn times(&self) -> &'a [f32] {
        self.times
    }
    /// All keys, frame-major.
    pub fn keys(&self) -> &'a [BoneKey] {
        self.keys
    }
    /// The keys of frame `f`, one per track: one contiguous slice.
    pub fn frame(&self, f: u32) -> Option<&'a [BoneKey]> {
        let n = self.info.track_count as usize;
        let start = (f as usize).checked_mul(n)?;
        self.keys.get(start..start.checked_add(n)?)
    }
    /// The clip, copied out in the classic shape (one keyframe list per track).
    pub fn to_clip(&self) -> Clip {
        let n = self.info.track_count as usize;
        let tracks = self
            .track_names()
            .enumerate()
            .map(|(t, name)| Track {
                bone_name: name.into(),
                keyframes: self
                    .times
                    .iter()
                    .enumerate()
                    .filter_map(|(f, &time)| {
                        let k = self.keys.get(f.checked_mul(n)?.checked_add(t)?)?;
                        Some(Keyframe {
                            time,
                            scale: k.scale,
                            rotation: k.rotation,
                            translation: k.translation,
                        })
                    })
                    .collect(),
            })
            .collect();
        Clip {
            name: self.name().into(),
            duration: self.info.duration,
            frame_rate: self.info.frame_rate,
            frame_count: self.info.frame_count,
            tracks,
            weight_tracks: self
                .weight_tracks
                .iter()
                .enumerate()
                .map(|(i, w)| WeightTrack {
                    part: w.part,
                    target: w.target,
                    weights: (0..self.info.frame_count as usize)
                        .filter_map(|f| self.weight(f, i))
                        .collect(),
                })
                .collect(),
        }
    }

    /// The weight track records (1.1; empty for a clip without them).
    pub fn weight_track_records(&self) -> &'a [WeightTrackRecord] {
        self.weight_tracks
    }

    /// Every weight, frame-major: frame `f`'s weights are `weights()[f * W..(f + 1) * W]`
    /// for `W` weight tracks.
    pub fn weights(&self) -> &'a [f32] {
        self.weights
    }

    /// Weight track `track`'s weight at frame `frame`.
    pub fn weight(&self, frame: usize, track: usize) -> Option<f32> {
        let w = self.weight_tracks.len();
        (track < w)
            .then(|| {
                self.weights
                    .get(frame.checked_mul(w)?.checked_add(track)?)
                    .copied()
            })
            .flatten()
    }
}

/// A [`Vertex`] rebuilt from stream values (used by [`MeshView::vertex`] and `to_model`).
pub(crate) fn vertex_from(
    position: [f32; 3],
    uv: [f32; 2],
    normal: [f32; 3],
    tangent: [f32; 3],
    joints: [u16; 4],
    weights: [f32; 4],
) -> Vertex {
    Vertex {
        position,
        uv,
        normal,
        tangent,
        blend_indices: joints.map(|j| j as f32),
        blend_weights: weights,
    }
}
