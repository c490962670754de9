//! Errors of the kiln layout: why a file was refused (with the byte offset of the field at
//! fault) and why a model could not be written.

use core::fmt;

/// A section kind, printed by name when this version knows it (`BONES`), else in hex.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind(pub u32);

impl fmt::Display for Kind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match super::spec::kind_name(self.0) {
            Some(n) => f.write_str(n),
            None => write!(f, "section kind {:#x}", self.0),
        }
    }
}

/// Why a kiln-layout file was refused. `offset` is always a byte offset from the start of the
/// file: of the header field, the section-table entry, or the record field at fault.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LayoutError {
    /// The bytes do not start at an address that the records' 4-byte fields can be read from.
    #[error(
        "the buffer starts at an address that is not 4-byte aligned (address mod 4 = {address_mod_4})"
    )]
    BufferMisaligned {
        /// The buffer's address modulo 4.
        address_mod_4: usize,
    },
    /// The file is shorter than a header, or than its section table.
    #[error("{what}: {needed} bytes needed at offset {offset}, the file has {len}")]
    Truncated {
        /// What is cut off (`header`, `section table`).
        what: &'static str,
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Bytes it needs from the start of the file.
        needed: u64,
        /// Bytes the file has.
        len: usize,
    },
    /// The first 8 bytes are not the magic of this file type.
    #[error("offset 0: not a kiln {expected} file (magic {found:?})")]
    BadMagic {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The file type expected (`mesh`, `clip`).
        expected: &'static str,
        /// The first 8 bytes.
        found: [u8; 8],
    },
    /// The file is a kiln file of the other type (a `.clip` given where a `.mesh` is expected).
    #[error("offset 0: this is a kiln {found} file, not a {expected} file")]
    WrongFileType {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The file type expected (`mesh`, `clip`).
        expected: &'static str,
        /// The file type its magic announces.
        found: &'static str,
    },
    /// The major version is newer (or older) than this reader's; the minor is free.
    #[error(
        "offset {offset}: version {major}.{minor} is not supported (this reader reads major \
         version {supported})"
    )]
    UnsupportedVersion {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The file's major version.
        major: u16,
        /// The file's minor version.
        minor: u16,
        /// The major version this reader reads.
        supported: u16,
    },
    /// The header's file size is not the length of the bytes.
    #[error("offset {offset}: the header says the file has {declared} bytes, it has {actual}")]
    FileSizeMismatch {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The size the header gives.
        declared: u64,
        /// The length of the bytes.
        actual: usize,
    },
    /// A section does not start at a multiple of 16.
    #[error("offset {offset}: {kind} section starts at {start}, not a multiple of 16")]
    SectionMisaligned {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// Where the section starts.
        start: u64,
    },
    /// A section starts before the end of the section table or of the previous section (the
    /// table lists sections in increasing offset order).
    #[error("offset {offset}: {kind} section at {start} overlaps what ends at {previous_end}")]
    SectionOverlap {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// Where the section starts.
        start: u64,
        /// Where the section table or the previous section ends.
        previous_end: u64,
    },
    /// A section runs past the end of the file.
    #[error(
        "offset {offset}: {kind} section at {start} of {length} bytes runs past the end of \
         the file ({file_size} bytes)"
    )]
    SectionOutOfBounds {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// Where the section starts.
        start: u64,
        /// The section's length in bytes.
        length: u64,
        /// Bytes in the file.
        file_size: u64,
    },
    /// `count × element_size` is more bytes than the whole file holds (or than the
    /// product's type holds): the count overflows.
    #[error(
        "offset {offset}: {kind} count {count} × element size {element_size} overflows the \
         file ({file_size} bytes)"
    )]
    CountOverflow {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// The element count the entry gives.
        count: u64,
        /// Bytes per element the entry gives.
        element_size: u64,
        /// Bytes in the file.
        file_size: u64,
    },
    /// A section's length is not its `count × element_size`.
    #[error(
        "offset {offset}: {kind} length {length} is not count {count} × element size \
         {element_size}"
    )]
    LengthMismatch {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// The section's length in bytes.
        length: u64,
        /// The element count the entry gives.
        count: u32,
        /// Bytes per element the entry gives.
        element_size: u32,
    },
    /// A known section declares an element size other than its record's.
    #[error("offset {offset}: {kind} element size is {found}, version 1 says {expected}")]
    ElementSizeMismatch {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// The element size the entry gives.
        found: u32,
        /// The size of the section's record in version 1.
        expected: u32,
    },
    /// A known section kind appears twice, or two encodings of one vertex attribute appear.
    #[error("offset {offset}: a second {kind} section (or a second encoding of it)")]
    DuplicateSection {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
    },
    /// A section this file type needs is absent. `offset` is that of the section table.
    #[error("offset {offset}: no {kind} section")]
    MissingSection {
        /// Byte offset of the section table.
        offset: usize,
        /// The kind of the missing section.
        kind: Kind,
    },
    /// A section kind marked required (bit 31) that this reader does not know.
    #[error("offset {offset}: {kind} is marked required and this reader does not know it")]
    UnknownRequiredSection {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
    },
    /// A section's element count disagrees with what another section says it must be.
    #[error("offset {offset}: {kind} has {count} elements, expected {expected} ({why})")]
    CountMismatch {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The section's kind.
        kind: Kind,
        /// Elements the section has.
        count: u64,
        /// Elements it must have.
        expected: u64,
        /// What decides it (`the position count`, `one record`, …).
        why: &'static str,
    },
    /// A string reference points outside the STRINGS section.
    #[error(
        "offset {offset}: string at {start} of {length} bytes runs past the string table \
         ({table_len} bytes)"
    )]
    StringOutOfBounds {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Where the string starts in the string table.
        start: u32,
        /// The string's length in bytes.
        length: u32,
        /// Bytes in the string table.
        table_len: u64,
    },
    /// Bytes of the string table are not UTF-8, or a string reference cuts a character.
    /// `offset` is that of the first bad byte.
    #[error("offset {offset}: invalid UTF-8 in a name")]
    InvalidUtf8 {
        /// Byte offset of the first bad byte, from the start of the file.
        offset: usize,
    },
    /// A bone's parent is out of range (below -1 or at least the bone count).
    #[error("offset {offset}: bone {bone} has parent {parent}, out of range ({bone_count} bones)")]
    BoneParentOutOfRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the bone.
        bone: u32,
        /// The parent index it gives.
        parent: i32,
        /// Bones in the file.
        bone_count: u32,
    },
    /// Following parents from this bone leads back to it.
    #[error("offset {offset}: bone {bone}'s parent chain (parent {parent}) forms a cycle")]
    BoneParentCycle {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the bone.
        bone: u32,
        /// The parent index it gives.
        parent: i32,
    },
    /// A bone's parent comes after it (parents must precede their children).
    #[error("offset {offset}: bone {bone} has parent {parent}, which comes after it")]
    BoneParentForward {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the bone.
        bone: u32,
        /// The parent index it gives.
        parent: i32,
    },
    /// A part's bone index is below -1 or at least the bone count.
    #[error("offset {offset}: part {part} has bone {bone}, out of range ({bone_count} bones)")]
    PartBoneOutOfRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the part.
        part: u32,
        /// The bone index it gives.
        bone: i32,
        /// Bones in the file.
        bone_count: u32,
    },
    /// A material or texture index is neither `NONE` nor below the count.
    #[error("offset {offset}: {what} index {index} out of range ({count})")]
    ReferenceOutOfRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// What is referred to (`material`, `texture`).
        what: &'static str,
        /// The index given.
        index: u32,
        /// How many there are.
        count: u32,
    },
    /// A part's vertex or index range does not start where the previous part's ended (parts
    /// tile the streams in order) or runs past the end.
    #[error(
        "offset {offset}: part {part} {what} range starts at {first} (count {count}), \
         expected to start at {expected} within {total}"
    )]
    PartRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the part.
        part: u32,
        /// `vertex` or `index`.
        what: &'static str,
        /// The range's first element, as the part gives it.
        first: u32,
        /// The range's length, as the part gives it.
        count: u32,
        /// Where the previous part's range ended.
        expected: u64,
        /// Elements in the stream.
        total: u64,
    },
    /// The parts together do not cover all vertices or all indices.
    #[error("offset {offset}: the parts cover {covered} {what}, the file has {total}")]
    PartsIncomplete {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// `vertices` or `indices`.
        what: &'static str,
        /// Elements the parts cover.
        covered: u64,
        /// Elements in the stream.
        total: u64,
    },
    /// A part's index count is not a multiple of 3 (a triangle list).
    #[error("offset {offset}: part {part} has {index_count} indices, not a multiple of 3")]
    NotTriangles {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the part.
        part: u32,
        /// Indices the part gives.
        index_count: u32,
    },
    /// An index is at least its part's vertex count.
    #[error("offset {offset}: part {part} index {index} is past its {vertex_count} vertices")]
    IndexOutOfRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the part.
        part: u32,
        /// The index.
        index: u32,
        /// Vertices of the part.
        vertex_count: u32,
    },
    /// A quantisation bound is not finite or an extent is negative.
    #[error("offset {offset}: quantisation bound {value} is not finite or is a negative extent")]
    BadQuantization {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The bound's bits (`f32::to_bits`).
        value: u32,
    },
    /// A vertex's joint (bone) index is past the bone count while its weight is not zero.
    /// Only [`MeshView::check_joints`](super::MeshView::check_joints) reports it.
    #[error(
        "offset {offset}: vertex {vertex} joint {joint} is past the {bone_count} bones with \
         a non-zero weight"
    )]
    JointOutOfRange {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// Index of the vertex.
        vertex: u32,
        /// The joint index.
        joint: u16,
        /// Bones in the file.
        bone_count: u32,
    },
    /// A morph target, shape or offset record breaks the layout's rules (targets in part
    /// order, shapes and offsets tiling their sections, full weights finite, non-zero and
    /// ascending, vertices ascending and inside the part).
    #[error("offset {offset}: {what}")]
    BadMorph {
        /// Byte offset of the field at fault, from the start of the file.
        offset: usize,
        /// The rule broken.
        what: &'static str,
    },
    /// The checksum in the header does not match the file. Only
    /// [`verify_checksum`](super::verify_checksum) reports it.
    #[error("offset 8: checksum {stored:#018x} stored, {computed:#018x} computed")]
    ChecksumMismatch {
        /// The checksum in the header.
        stored: u64,
        /// The checksum of the bytes.
        computed: u64,
    },
}

impl LayoutError {
    /// The byte offset (from the start of the file) of the field at fault: the header field,
    /// table entry field or record field; 0 for a misaligned buffer, 8 for the checksum.
    pub fn offset(&self) -> usize {
        use LayoutError::*;
        match self {
            BufferMisaligned { .. } => 0,
            ChecksumMismatch { .. } => 8,
            Truncated { offset, .. }
            | BadMagic { offset, .. }
            | WrongFileType { offset, .. }
            | UnsupportedVersion { offset, .. }
            | FileSizeMismatch { offset, .. }
            | SectionMisaligned { offset, .. }
            | SectionOverlap { offset, .. }
            | SectionOutOfBounds { offset, .. }
            | CountOverflow { offset, .. }
            | LengthMismatch { offset, .. }
            | ElementSizeMismatch { offset, .. }
            | DuplicateSection { offset, .. }
            | MissingSection { offset, .. }
            | UnknownRequiredSection { offset, .. }
            | CountMismatch { offset, .. }
            | StringOutOfBounds { offset, .. }
            | InvalidUtf8 { offset }
            | BoneParentOutOfRange { offset, .. }
            | BoneParentCycle { offset, .. }
            | BoneParentForward { offset, .. }
            | PartBoneOutOfRange { offset, .. }
            | ReferenceOutOfRange { offset, .. }
            | PartRange { offset, .. }
            | PartsIncomplete { offset, .. }
            | NotTriangles { offset, .. }
            | IndexOutOfRange { offset, .. }
            | BadQuantization { offset, .. }
            | BadMorph { offset, .. }
            | JointOutOfRange { offset, .. } => *offset,
        }
    }
}

/// Why a model or clip cannot be written in the kiln layout.
#[cfg(feature = "write")]
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// More items than a `u32` count holds, or a string table over 4 GiB.
    #[error("{what}: {count} is more than the layout's u32 counts hold")]
    TooMany {
        /// What there are too many of (`bones`, `vertices`, `tracks`, …).
        what: &'static str,
        /// How many there are.
        count: usize,
    },
    /// A bone's `index` is not its position (the kiln layout stores the position only).
    #[error("bone {bone}: index {index} is not its position")]
    BoneIndex {
        /// Index of the bone.
        bone: usize,
        /// Its `index` field.
        index: i32,
    },
    /// A bone's parent is not -1 or an earlier bone.
    #[error("bone {bone}: parent {parent} is not -1 or an earlier bone")]
    BoneParent {
        /// Index of the bone.
        bone: usize,
        /// The parent index it gives.
        parent: i32,
    },
    /// `offset_matrices` does not have one matrix per bone.
    #[error("{given} offset matrices given for {bones} bones")]
    OffsetMatrices {
        /// Matrices given.
        given: usize,
        /// Bones of the model.
        bones: usize,
    },
    /// A part's bone index is below -1 or past the bones.
    #[error("mesh {part}: bone index {bone} is not -1 or a bone")]
    PartBone {
        /// Index of the part.
        part: usize,
        /// The bone index it gives.
        bone: i32,
    },
    /// A part's index count is not a multiple of 3.
    #[error("mesh {part}: {count} indices, not a multiple of 3")]
    NotTriangles {
        /// Index of the part.
        part: usize,
        /// Its indices.
        count: usize,
    },
    /// An index is past its part's vertices.
    #[error("mesh {part}: index {index} past its {vertex_count} vertices")]
    IndexOutOfRange {
        /// Index of the part.
        part: usize,
        /// The index.
        index: u32,
        /// Vertices of the part.
        vertex_count: usize,
    },
    /// [`super::plan_mesh`] was given a vertex count list that is not one count per part.
    #[error("{given} vertex counts for {parts} mesh parts")]
    VertexCounts {
        /// Counts given.
        given: usize,
        /// Parts of the model.
        parts: usize,
    },
    /// A blend index is not an integer in 0..=65535 (the layout stores joints as `u16`).
    #[error("mesh {part} vertex {vertex}: blend index {value} is not an integer in 0..=65535")]
    BlendIndex {
        /// Index of the part.
        part: usize,
        /// Index of the vertex in its part.
        vertex: usize,
        /// The blend index.
        value: f32,
    },
    /// Quantising positions or UVs needs finite values.
    #[error("mesh {part} vertex {vertex}: {what} is not finite and cannot be quantised")]
    NotFinite {
        /// Index of the part.
        part: usize,
        /// Index of the vertex in its part.
        vertex: usize,
        /// `position` or `uv`.
        what: &'static str,
    },
    /// The values of an attribute span more than an `f32` extent holds (max − min overflows),
    /// so they cannot be quantised against their bounds.
    #[error("{what} spans more than an f32 extent holds and cannot be quantised")]
    QuantizationRange {
        /// `position` or `uv`.
        what: &'static str,
    },
    /// A track's keyframe count differs from the clip's frame count (the kiln layout stores
    /// one key per bone per frame).
    #[error("track {track}: {count} keyframes, the clip has {frame_count} frames")]
    TrackLength {
        /// Index of the track.
        track: usize,
        /// Its keyframes.
        count: usize,
        /// The clip's frame count.
        frame_count: u32,
    },
    /// A morph target or weight track breaks the layout's rules.
    #[error("mesh {part}: {what}")]
    Morph {
        /// The part (for a clip's weight track: the track).
        part: usize,
        /// What is wrong.
        what: alloc::string::String,
    },
    /// A track's keyframe times differ from the first track's (the layout stores the times once).
    #[error("track {track} frame {frame}: time {time} differs from track 0's {expected}")]
    TrackTimes {
        /// Index of the track.
        track: usize,
        /// Index of the keyframe.
        frame: usize,
        /// Its time.
        time: f32,
        /// Track 0's time at that frame.
        expected: f32,
    },
}
