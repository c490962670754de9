//! The constants and fixed-size records of the kiln layout, exactly as `docs/format.md` gives
//! them. Every record is `#[repr(C)]`, made of 4-byte (or smaller) little-endian fields with no
//! padding, so a validated section is handed out as `&[Record]` with `bytemuck`.

use crate::model::Matrix;

/// First 8 bytes of a kiln-layout `.mesh`.
pub const MESH_MAGIC: [u8; 8] = *b"KILNMESH";
/// First 8 bytes of a kiln-layout `.clip`.
pub const CLIP_MAGIC: [u8; 8] = *b"KILNCLIP";
/// The major version this crate writes and reads. A file with a larger major is refused.
pub const VERSION_MAJOR: u16 = 1;
/// The newest minor version this crate writes (1.1: morph targets and weight tracks). A file
/// without any 1.1 section is written as 1.0, byte for byte as before. Any minor of the same
/// major is read.
pub const VERSION_MINOR: u16 = 1;
/// Size of the file header in bytes.
pub const HEADER_SIZE: usize = 32;
/// Size of one section-table entry in bytes.
pub const SECTION_ENTRY_SIZE: usize = 32;
/// Every section starts at a multiple of this (from the start of the file).
pub const ALIGNMENT: usize = 16;
/// "No such thing" in an index field (material, texture).
pub const NONE: u32 = u32::MAX;
/// Where the header's checksum (`u64`, little-endian) is, right after the magic.
pub const CHECKSUM_OFFSET: usize = 8;
/// The checksum covers the file from this offset to its end.
pub const CHECKSUM_START: usize = 16;
/// A section kind with this bit set must be understood by a reader (it refuses the file if it
/// does not know the kind); kinds without it are skipped when unknown.
pub const KIND_REQUIRED_BIT: u32 = 0x8000_0000;

/// The section kinds of version 1.
pub mod kind {
    /// UTF-8 bytes that the records' [`StrRef`](super::StrRef)s point into. Both file types.
    pub const STRINGS: u32 = 0x0001;

    /// `.mesh`: [`BoneRecord`](super::BoneRecord)s.
    pub const BONES: u32 = 0x0101;
    /// `.mesh`: [`PartRecord`](super::PartRecord)s.
    pub const PARTS: u32 = 0x0102;
    /// `.mesh`: [`MaterialRecord`](super::MaterialRecord)s.
    pub const MATERIALS: u32 = 0x0103;
    /// `.mesh`: [`TextureRecord`](super::TextureRecord)s.
    pub const TEXTURES: u32 = 0x0104;
    /// `.mesh`: one [`QuantizationRecord`](super::QuantizationRecord).
    pub const QUANTIZATION: u32 = 0x0105;
    /// `.mesh`: `f32×3` per vertex.
    pub const POSITIONS_F32: u32 = 0x0110;
    /// `.mesh`: `u16×4` per vertex (x, y, z unorm16 against the bounds, w = 0).
    pub const POSITIONS_UNORM16: u32 = 0x0111;
    /// `.mesh`: `f32×3` per vertex.
    pub const NORMALS_F32: u32 = 0x0112;
    /// `.mesh`: `i16×2` per vertex, octahedral snorm16.
    pub const NORMALS_OCT16: u32 = 0x0113;
    /// `.mesh`: `f32×3` per vertex.
    pub const TANGENTS_F32: u32 = 0x0114;
    /// `.mesh`: `i16×2` per vertex, octahedral snorm16.
    pub const TANGENTS_OCT16: u32 = 0x0115;
    /// `.mesh`: `f32×2` per vertex.
    pub const UVS_F32: u32 = 0x0116;
    /// `.mesh`: `u16×2` per vertex, unorm16 against the UV bounds.
    pub const UVS_UNORM16: u32 = 0x0117;
    /// `.mesh`: `u16×4` per vertex, bone indices.
    pub const JOINTS_U16: u32 = 0x0118;
    /// `.mesh`: `f32×4` per vertex.
    pub const WEIGHTS_F32: u32 = 0x0119;
    /// `.mesh`: `u8×4` per vertex, unorm8 summing to 255 (or all 0).
    pub const WEIGHTS_UNORM8: u32 = 0x011A;
    /// `.mesh`: `u16` triangle-list indices, local to their part.
    pub const INDICES_U16: u32 = 0x0120;
    /// `.mesh`: `u32` triangle-list indices, local to their part.
    pub const INDICES_U32: u32 = 0x0121;
    /// `.mesh` (1.1): [`MorphTargetRecord`](super::MorphTargetRecord)s, in part order.
    pub const MORPH_TARGETS: u32 = 0x0130;
    /// `.mesh` (1.1): [`MorphShapeRecord`](super::MorphShapeRecord)s, in target order.
    pub const MORPH_SHAPES: u32 = 0x0131;
    /// `.mesh` (1.1): `u32` per offset, the vertex it moves (local to its part).
    pub const MORPH_VERTICES: u32 = 0x0132;
    /// `.mesh` (1.1): `f32×3` per offset, the position offset.
    pub const MORPH_POSITIONS_F32: u32 = 0x0133;
    /// `.mesh` (1.1): `f32×3` per offset, the normal offset (0 where its shape has none).
    pub const MORPH_NORMALS_F32: u32 = 0x0134;
    /// `.mesh` (1.1): `i16×4` per offset (x, y, z snorm16 against the shape's
    /// [`position_scale`](super::MorphShapeRecord::position_scale), w = 0), the position
    /// offset; instead of MORPH_POSITIONS_F32 (`Quantize::AttributesAndPositions`).
    pub const MORPH_POSITIONS_SNORM16: u32 = 0x0135;
    /// `.mesh` (1.1): `i16×4` per offset (x, y, z snorm16 against the shape's
    /// [`normal_scale`](super::MorphShapeRecord::normal_scale), w = 0), the normal offset;
    /// instead of MORPH_NORMALS_F32 (`Quantize::Attributes` and `AttributesAndPositions`).
    pub const MORPH_NORMALS_SNORM16: u32 = 0x0136;

    /// `.clip`: one [`ClipRecord`](super::ClipRecord).
    pub const CLIP: u32 = 0x0201;
    /// `.clip`: [`TrackRecord`](super::TrackRecord)s.
    pub const TRACKS: u32 = 0x0202;
    /// `.clip`: `f32` per frame, the frame's time in frames.
    pub const FRAME_TIMES: u32 = 0x0203;
    /// `.clip`: [`BoneKey`](super::BoneKey)s, frame-major.
    pub const KEYS: u32 = 0x0204;
    /// `.clip` (1.1): [`WeightTrackRecord`](super::WeightTrackRecord)s.
    pub const WEIGHT_TRACKS: u32 = 0x0205;
    /// `.clip` (1.1): `f32` weights, frame-major (one per weight track per frame).
    pub const WEIGHTS: u32 = 0x0206;
}

/// The name of a section kind of version 1 (`"POSITIONS_F32"`), `None` for an unknown one.
pub fn kind_name(k: u32) -> Option<&'static str> {
    Some(match k {
        kind::STRINGS => "STRINGS",
        kind::BONES => "BONES",
        kind::PARTS => "PARTS",
        kind::MATERIALS => "MATERIALS",
        kind::TEXTURES => "TEXTURES",
        kind::QUANTIZATION => "QUANTIZATION",
        kind::POSITIONS_F32 => "POSITIONS_F32",
        kind::POSITIONS_UNORM16 => "POSITIONS_UNORM16",
        kind::NORMALS_F32 => "NORMALS_F32",
        kind::NORMALS_OCT16 => "NORMALS_OCT16",
        kind::TANGENTS_F32 => "TANGENTS_F32",
        kind::TANGENTS_OCT16 => "TANGENTS_OCT16",
        kind::UVS_F32 => "UVS_F32",
        kind::UVS_UNORM16 => "UVS_UNORM16",
        kind::JOINTS_U16 => "JOINTS_U16",
        kind::WEIGHTS_F32 => "WEIGHTS_F32",
        kind::WEIGHTS_UNORM8 => "WEIGHTS_UNORM8",
        kind::INDICES_U16 => "INDICES_U16",
        kind::INDICES_U32 => "INDICES_U32",
        kind::CLIP => "CLIP",
        kind::TRACKS => "TRACKS",
        kind::FRAME_TIMES => "FRAME_TIMES",
        kind::KEYS => "KEYS",
        kind::MORPH_TARGETS => "MORPH_TARGETS",
        kind::MORPH_SHAPES => "MORPH_SHAPES",
        kind::MORPH_VERTICES => "MORPH_VERTICES",
        kind::MORPH_POSITIONS_F32 => "MORPH_POSITIONS_F32",
        kind::MORPH_NORMALS_F32 => "MORPH_NORMALS_F32",
        kind::MORPH_POSITIONS_SNORM16 => "MORPH_POSITIONS_SNORM16",
        kind::MORPH_NORMALS_SNORM16 => "MORPH_NORMALS_SNORM16",
        kind::WEIGHT_TRACKS => "WEIGHT_TRACKS",
        kind::WEIGHTS => "WEIGHTS",
        _ => return None,
    })
}

/// The element size a section kind of version 1 must declare, `None` for an unknown kind.
pub fn element_size_of(k: u32) -> Option<u32> {
    Some(match k {
        kind::STRINGS => 1,
        kind::BONES => BONE_RECORD_SIZE as u32,
        kind::PARTS => PART_RECORD_SIZE as u32,
        kind::MATERIALS => MATERIAL_RECORD_SIZE as u32,
        kind::TEXTURES => TEXTURE_RECORD_SIZE as u32,
        kind::QUANTIZATION => QUANTIZATION_RECORD_SIZE as u32,
        kind::POSITIONS_F32 | kind::NORMALS_F32 | kind::TANGENTS_F32 => 12,
        kind::POSITIONS_UNORM16 | kind::UVS_F32 | kind::JOINTS_U16 => 8,
        kind::NORMALS_OCT16 | kind::TANGENTS_OCT16 | kind::UVS_UNORM16 | kind::WEIGHTS_UNORM8 => 4,
        kind::WEIGHTS_F32 => 16,
        kind::INDICES_U16 => 2,
        kind::INDICES_U32 | kind::FRAME_TIMES => 4,
        kind::CLIP => CLIP_RECORD_SIZE as u32,
        kind::TRACKS => TRACK_RECORD_SIZE as u32,
        kind::KEYS => BONE_KEY_SIZE as u32,
        kind::MORPH_TARGETS => MORPH_TARGET_RECORD_SIZE as u32,
        kind::MORPH_SHAPES => MORPH_SHAPE_RECORD_SIZE as u32,
        kind::MORPH_VERTICES | kind::WEIGHTS => 4,
        kind::MORPH_POSITIONS_F32 | kind::MORPH_NORMALS_F32 => 12,
        kind::MORPH_POSITIONS_SNORM16 | kind::MORPH_NORMALS_SNORM16 => 8,
        kind::WEIGHT_TRACKS => WEIGHT_TRACK_RECORD_SIZE as u32,
        _ => return None,
    })
}

/// A string: `length` UTF-8 bytes at `offset` from the start of the STRINGS section.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct StrRef {
    /// Byte offset in the STRINGS section.
    pub offset: u32,
    /// Length in bytes.
    pub length: u32,
}

/// One bone (144 bytes). Its index is its position in the BONES section.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneRecord {
    /// Index of the parent bone, smaller than this bone's; -1 for a root.
    pub parent: i32,
    /// The bone's name.
    pub name: StrRef,
    /// 0.
    pub reserved: u32,
    /// Root-space bind transform (engine convention: row vectors, row-major).
    pub bind: Matrix,
    /// Offset (inverse bind) matrix: takes a root-space vertex into the bone's space.
    pub offset: Matrix,
}
/// Size of [`BoneRecord`].
pub const BONE_RECORD_SIZE: usize = 144;
const _: () = assert!(core::mem::size_of::<BoneRecord>() == BONE_RECORD_SIZE);

/// One mesh part (48 bytes): a contiguous range of the vertex streams and of the indices.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct PartRecord {
    /// Name of the node the part hangs from.
    pub name: StrRef,
    /// Name of the part's material, as in the material XML.
    pub material_name: StrRef,
    /// Bone of the node the part hangs from, or -1.
    pub bone: i32,
    /// Index into MATERIALS of the material named `material_name`, or [`NONE`].
    pub material: u32,
    /// Its first vertex in the vertex streams.
    pub first_vertex: u32,
    /// Its vertices, from `first_vertex`.
    pub vertex_count: u32,
    /// Its first index in the index stream.
    pub first_index: u32,
    /// Its indices (a triangle list, relative to `first_vertex`), from `first_index`.
    pub index_count: u32,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`PartRecord`].
pub const PART_RECORD_SIZE: usize = 48;
const _: () = assert!(core::mem::size_of::<PartRecord>() == PART_RECORD_SIZE);

/// One material (96 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MaterialRecord {
    /// The material's name.
    pub name: StrRef,
    /// Index into TEXTURES, or [`NONE`].
    pub diffuse_texture: u32,
    /// Index into TEXTURES, or [`NONE`].
    pub specular_texture: u32,
    /// Index into TEXTURES, or [`NONE`].
    pub normal_texture: u32,
    /// 0.
    pub reserved: [u32; 3],
    /// RGBA ambient colour.
    pub ambient: [f32; 4],
    /// RGBA diffuse colour.
    pub diffuse: [f32; 4],
    /// RGB specular colour; A is the shininess exponent.
    pub specular: [f32; 4],
    /// RGBA emissive colour.
    pub emissive: [f32; 4],
}
/// Size of [`MaterialRecord`].
pub const MATERIAL_RECORD_SIZE: usize = 96;
const _: () = assert!(core::mem::size_of::<MaterialRecord>() == MATERIAL_RECORD_SIZE);

/// One texture reference (16 bytes): a file name without folders, next to the `.mesh`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TextureRecord {
    /// The file name.
    pub path: StrRef,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`TextureRecord`].
pub const TEXTURE_RECORD_SIZE: usize = 16;
const _: () = assert!(core::mem::size_of::<TextureRecord>() == TEXTURE_RECORD_SIZE);

/// The bounds that unorm16 streams are quantised against (48 bytes).
/// A value decodes as `min + extent * (q / 65535)`, computed in `f32`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct QuantizationRecord {
    /// x, y, z, and 0.
    pub position_min: [f32; 4],
    /// x, y, z (each ≥ 0), and 0.
    pub position_extent: [f32; 4],
    /// u, v.
    pub uv_min: [f32; 2],
    /// u, v (each ≥ 0).
    pub uv_extent: [f32; 2],
}
/// Size of [`QuantizationRecord`].
pub const QUANTIZATION_RECORD_SIZE: usize = 48;
const _: () = assert!(core::mem::size_of::<QuantizationRecord>() == QUANTIZATION_RECORD_SIZE);

/// The `.clip` header record (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct ClipRecord {
    /// The clip's name.
    pub name: StrRef,
    /// Length in frames.
    pub duration: f32,
    /// Frames per second.
    pub frame_rate: f32,
    /// Frames: rows of KEYS and entries of FRAME_TIMES.
    pub frame_count: u32,
    /// Tracks: entries of TRACKS and keys per frame.
    pub track_count: u32,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`ClipRecord`].
pub const CLIP_RECORD_SIZE: usize = 32;
const _: () = assert!(core::mem::size_of::<ClipRecord>() == CLIP_RECORD_SIZE);

/// One track of a `.clip` (16 bytes): the bone it drives, by name.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TrackRecord {
    /// The name of the bone it drives.
    pub bone_name: StrRef,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`TrackRecord`].
pub const TRACK_RECORD_SIZE: usize = 16;
const _: () = assert!(core::mem::size_of::<TrackRecord>() == TRACK_RECORD_SIZE);

/// One bone's local transform at one frame (40 bytes): a [`Keyframe`](crate::Keyframe) without
/// its time, which FRAME_TIMES holds once per frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct BoneKey {
    /// Local scale, x, y, z.
    pub scale: [f32; 3],
    /// Quaternion x, y, z, w.
    pub rotation: [f32; 4],
    /// Local translation, x, y, z.
    pub translation: [f32; 3],
}
/// Size of [`BoneKey`].
pub const BONE_KEY_SIZE: usize = 40;
const _: () = assert!(core::mem::size_of::<BoneKey>() == BONE_KEY_SIZE);

/// One morph target of a part (32 bytes, 1.1). Targets are listed part by part, in part
/// order; their shapes tile MORPH_SHAPES in order.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MorphTargetRecord {
    /// The target's name.
    pub name: StrRef,
    /// The part it deforms (index into PARTS).
    pub part: u32,
    /// Weight at rest (0 base shape, 1 full).
    pub default_weight: f32,
    /// Its first shape in MORPH_SHAPES.
    pub first_shape: u32,
    /// Its shapes (at least 1), from `first_shape`.
    pub shape_count: u32,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`MorphTargetRecord`].
pub const MORPH_TARGET_RECORD_SIZE: usize = 32;
const _: () = assert!(core::mem::size_of::<MorphTargetRecord>() == MORPH_TARGET_RECORD_SIZE);

/// One shape of a morph target (32 bytes, 1.1): a run of the offset streams.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct MorphShapeRecord {
    /// The shape's name.
    pub name: StrRef,
    /// The target weight at which it applies fully; finite, not 0, above the target's
    /// previous shape's.
    pub full_weight: f32,
    /// Its first offset in MORPH_VERTICES and the position and normal offset streams.
    pub first_offset: u32,
    /// Its offsets, from `first_offset`.
    pub offset_count: u32,
    /// Bit 0: its normal offsets are meaningful (else they are 0). Other bits 0.
    pub flags: u32,
    /// The scales of the snorm16 offset streams, as `f32` bits: `reserved[0]` (record offset
    /// 24, [`SHAPE_POSITION_SCALE_FIELD`]) is [`position_scale`](Self::position_scale) when
    /// the file has MORPH_POSITIONS_SNORM16, `reserved[1]` (offset 28,
    /// [`SHAPE_NORMAL_SCALE_FIELD`]) [`normal_scale`](Self::normal_scale) when it has
    /// MORPH_NORMALS_SNORM16; each finite and ≥ 0. Beside an `f32` stream the word is
    /// reserved: 0, and not read.
    pub reserved: [u32; 2],
}

impl MorphShapeRecord {
    /// The largest |component| of the shape's position offsets, which its
    /// MORPH_POSITIONS_SNORM16 codes decode against (`reserved[0]` as `f32`; meaningless, 0,
    /// when the positions are `f32`).
    pub fn position_scale(&self) -> f32 {
        f32::from_bits(self.reserved[0])
    }

    /// The largest |component| of the shape's normal offsets, which its MORPH_NORMALS_SNORM16
    /// codes decode against (`reserved[1]` as `f32`; meaningless, 0, when the normals are
    /// `f32`).
    pub fn normal_scale(&self) -> f32 {
        f32::from_bits(self.reserved[1])
    }
}

/// Size of [`MorphShapeRecord`].
pub const MORPH_SHAPE_RECORD_SIZE: usize = 32;
const _: () = assert!(core::mem::size_of::<MorphShapeRecord>() == MORPH_SHAPE_RECORD_SIZE);
/// [`MorphShapeRecord::flags`] bit: the shape has normal offsets.
pub const SHAPE_HAS_NORMALS: u32 = 1;
/// Byte offset in a [`MorphShapeRecord`] of its position scale (`reserved[0]`).
pub const SHAPE_POSITION_SCALE_FIELD: usize = 24;
/// Byte offset in a [`MorphShapeRecord`] of its normal scale (`reserved[1]`).
pub const SHAPE_NORMAL_SCALE_FIELD: usize = 28;

/// One weight track of a `.clip` (16 bytes, 1.1): the morph target it drives.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct WeightTrackRecord {
    /// The part (index into the `.mesh`'s PARTS).
    pub part: u32,
    /// The target, counted among that part's targets.
    pub target: u32,
    /// 0.
    pub reserved: [u32; 2],
}
/// Size of [`WeightTrackRecord`].
pub const WEIGHT_TRACK_RECORD_SIZE: usize = 16;
const _: () = assert!(core::mem::size_of::<WeightTrackRecord>() == WEIGHT_TRACK_RECORD_SIZE);

/// One entry of the section table, decoded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Section {
    /// A [`kind`] constant (or an unknown kind, skipped).
    pub kind: u32,
    /// 0 in version 1; readers ignore it.
    pub flags: u32,
    /// From the start of the file; a multiple of [`ALIGNMENT`].
    pub offset: u64,
    /// In bytes; `element_size * count`.
    pub length: u64,
    /// Bytes per element (the record or array element size of [`element_size_of`]).
    pub element_size: u32,
    /// Elements.
    pub count: u32,
}

impl Section {
    /// The kind's name (`"BONES"`), or `None` when unknown to this version.
    pub fn kind_name(&self) -> Option<&'static str> {
        kind_name(self.kind)
    }
}
