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
    BufferMisaligned { address_mod_4: usize },
    /// The file is shorter than a header, or than its section table.
    #[error("{what}: {needed} bytes needed at offset {offset}, the file has {len}")]
    Truncated {
        what: &'static str,
        offset: usize,
        needed: u64,
        len: usize,
    },
    /// The first 8 bytes are not the magic of this file type.
    #[error("offset 0: not a kiln {expected} file (magic {found:?})")]
    BadMagic {
        offset: usize,
        expected: &'static str,
        found: [u8; 8],
    },
    /// The file is a kiln file of the other type (a `.clip` given where a `.mesh` is expected).
    #[error("offset 0: this is a kiln {found} file, not a {expected} file")]
    WrongFileType {
        offset: usize,
        expected: &'static str,
        found: &'static str,
    },
    /// The major version is newer (or older) than this reader's; the minor is free.
    #[error(
        "offset {offset}: version {major}.{minor} is not supported (this reader reads major \
         version {supported})"
    )]
    UnsupportedVersion {
        offset: usize,
        major: u16,
        minor: u16,
        supported: u16,
    },
    /// The header's file size is not the length of the bytes.
    #[error("offset {offset}: the header says the file has {declared} bytes, it has {actual}")]
    FileSizeMismatch {
        offset: usize,
        declared: u64,
        actual: usize,
    },
    /// A section does not start at a multiple of 16.
    #[error("offset {offset}: {kind} section starts at {start}, not a multiple of 16")]
    SectionMisaligned {
        offset: usize,
        kind: Kind,
        start: u64,
    },
    /// A section starts before the end of the section table or of the previous section (the
    /// table lists sections in increasing offset order).
    #[error("offset {offset}: {kind} section at {start} overlaps what ends at {previous_end}")]
    SectionOverlap {
        offset: usize,
        kind: Kind,
        start: u64,
        previous_end: u64,
    },
    /// A section runs past the end of the file.
    #[error(
        "offset {offset}: {kind} section at {start} of {length} bytes runs past the end of \
         the file ({file_size} bytes)"
    )]
    SectionOutOfBounds {
        offset: usize,
        kind: Kind,
        start: u64,
        length: u64,
        file_size: u64,
    },
    /// `count × element_size` is more bytes than the whole file holds (or than the
    /// product's type holds): the count overflows.
    #[error(
        "offset {offset}: {kind} count {count} × element size {element_size} overflows the \
         file ({file_size} bytes)"
    )]
    CountOverflow {
        offset: usize,
        kind: Kind,
        count: u64,
        element_size: u64,
        file_size: u64,
    },
    /// A section's length is not its `count × element_size`.
    #[error(
        "offset {offset}: {kind} length {length} is not count {count} × element size \
         {element_size}"
    )]
    LengthMismatch {
        offset: usize,
        kind: Kind,
        length: u64,
        count: u32,
        element_size: u32,
    },
    /// A known section declares an element size other than its record's.
    #[error("offset {offset}: {kind} element size is {found}, version 1 says {expected}")]
    ElementSizeMismatch {
        offset: usize,
        kind: Kind,
        found: u32,
        expected: u32,
    },
    /// A known section kind appears twice, or two encodings of one vertex attribute appear.
    #[error("offset {offset}: a second {kind} section (or a second encoding of it)")]
    DuplicateSection { offset: usize, kind: Kind },
    /// A section this file type needs is absent. `offset` is that of the section table.
    #[error("offset {offset}: no {kind} section")]
    MissingSection { offset: usize, kind: Kind },
    /// A section kind marked required (bit 31) that this reader does not know.
    #[error("offset {offset}: {kind} is marked required and this reader does not know it")]
    UnknownRequiredSection { offset: usize, kind: Kind },
    /// A section's element count disagrees with what another section says it must be.
    #[error("offset {offset}: {kind} has {count} elements, expected {expected} ({why})")]
    CountMismatch {
        offset: usize,
        kind: Kind,
        count: u64,
        expected: u64,
        why: &'static str,
    },
    /// A string reference points outside the STRINGS section.
    #[error(
        "offset {offset}: string at {start} of {length} bytes runs past the string table \
         ({table_len} bytes)"
    )]
    StringOutOfBounds {
        offset: usize,
        start: u32,
        length: u32,
        table_len: u64,
    },
    /// Bytes of the string table are not UTF-8, or a string reference cuts a character.
    /// `offset` is that of the first bad byte.
    #[error("offset {offset}: invalid UTF-8 in a name")]
    InvalidUtf8 { offset: usize },
    /// A bone's parent is out of range (below -1 or at least the bone count).
    #[error("offset {offset}: bone {bone} has parent {parent}, out of range ({bone_count} bones)")]
    BoneParentOutOfRange {
        offset: usize,
        bone: u32,
        parent: i32,
        bone_count: u32,
    },
    /// Following parents from this bone leads back to it.
    #[error("offset {offset}: bone {bone}'s parent chain (parent {parent}) forms a cycle")]
    BoneParentCycle {
        offset: usize,
        bone: u32,
        parent: i32,
    },
    /// A bone's parent comes after it (parents must precede their children).
    #[error("offset {offset}: bone {bone} has parent {parent}, which comes after it")]
    BoneParentForward {
        offset: usize,
        bone: u32,
        parent: i32,
    },
    /// A part's bone index is below -1 or at least the bone count.
    #[error("offset {offset}: part {part} has bone {bone}, out of range ({bone_count} bones)")]
    PartBoneOutOfRange {
        offset: usize,
        part: u32,
        bone: i32,
        bone_count: u32,
    },
    /// A material or texture index is neither `NONE` nor below the count.
    #[error("offset {offset}: {what} index {index} out of range ({count})")]
    ReferenceOutOfRange {
        offset: usize,
        what: &'static str,
        index: u32,
        count: u32,
    },
    /// A part's vertex or index range does not start where the previous part's ended (parts
    /// tile the streams in order) or runs past the end.
    #[error(
        "offset {offset}: part {part} {what} range starts at {first} (count {count}), \
         expected to start at {expected} within {total}"
    )]
    PartRange {
        offset: usize,
        part: u32,
        what: &'static str,
        first: u32,
        count: u32,
        expected: u64,
        total: u64,
    },
    /// The parts together do not cover all vertices or all indices.
    #[error("offset {offset}: the parts cover {covered} {what}, the file has {total}")]
    PartsIncomplete {
        offset: usize,
        what: &'static str,
        covered: u64,
        total: u64,
    },
    /// A part's index count is not a multiple of 3 (a triangle list).
    #[error("offset {offset}: part {part} has {index_count} indices, not a multiple of 3")]
    NotTriangles {
        offset: usize,
        part: u32,
        index_count: u32,
    },
    /// An index is at least its part's vertex count.
    #[error("offset {offset}: part {part} index {index} is past its {vertex_count} vertices")]
    IndexOutOfRange {
        offset: usize,
        part: u32,
        index: u32,
        vertex_count: u32,
    },
    /// A quantisation bound is not finite or an extent is negative.
    #[error("offset {offset}: quantisation bound {value} is not finite or is a negative extent")]
    BadQuantization { offset: usize, value: u32 },
    /// A vertex's joint (bone) index is past the bone count while its weight is not zero.
    /// Only [`MeshView::check_joints`](super::MeshView::check_joints) reports it.
    #[error(
        "offset {offset}: vertex {vertex} joint {joint} is past the {bone_count} bones with \
         a non-zero weight"
    )]
    JointOutOfRange {
        offset: usize,
        vertex: u32,
        joint: u16,
        bone_count: u32,
    },
    /// The checksum in the header does not match the file. Only
    /// [`verify_checksum`](super::verify_checksum) reports it.
    #[error("offset 8: checksum {stored:#018x} stored, {computed:#018x} computed")]
    ChecksumMismatch { stored: u64, computed: u64 },
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
            | JointOutOfRange { offset, .. } => *offset,
        }
    }
}

/// Why a model or clip cannot be written in the kiln layout.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum WriteError {
    /// More items than a `u32` count holds, or a string table over 4 GiB.
    #[error("{what}: {count} is more than the layout's u32 counts hold")]
    TooMany { what: &'static str, count: usize },
    /// A bone's `index` is not its position (the kiln layout stores the position only).
    #[error("bone {bone}: index {index} is not its position")]
    BoneIndex { bone: usize, index: i32 },
    /// A bone's parent is not -1 or an earlier bone.
    #[error("bone {bone}: parent {parent} is not -1 or an earlier bone")]
    BoneParent { bone: usize, parent: i32 },
    /// `offset_matrices` does not have one matrix per bone.
    #[error("{given} offset matrices given for {bones} bones")]
    OffsetMatrices { given: usize, bones: usize },
    /// A part's bone index is below -1 or past the bones.
    #[error("mesh {part}: bone index {bone} is not -1 or a bone")]
    PartBone { part: usize, bone: i32 },
    /// A part's index count is not a multiple of 3.
    #[error("mesh {part}: {count} indices, not a multiple of 3")]
    NotTriangles { part: usize, count: usize },
    /// An index is past its part's vertices.
    #[error("mesh {part}: index {index} past its {vertex_count} vertices")]
    IndexOutOfRange {
        part: usize,
        index: u32,
        vertex_count: usize,
    },
    /// A blend index is not an integer in 0..=65535 (the layout stores joints as `u16`).
    #[error("mesh {part} vertex {vertex}: blend index {value} is not an integer in 0..=65535")]
    BlendIndex {
        part: usize,
        vertex: usize,
        value: f32,
    },
    /// Quantising positions or UVs needs finite values.
    #[error("mesh {part} vertex {vertex}: {what} is not finite and cannot be quantised")]
    NotFinite {
        part: usize,
        vertex: usize,
        what: &'static str,
    },
    /// The values of an attribute span more than an `f32` extent holds (max − min overflows),
    /// so they cannot be quantised against their bounds.
    #[error("{what} spans more than an f32 extent holds and cannot be quantised")]
    QuantizationRange { what: &'static str },
    /// A track's keyframe count differs from the clip's frame count (the kiln layout stores
    /// one key per bone per frame).
    #[error("track {track}: {count} keyframes, the clip has {frame_count} frames")]
    TrackLength {
        track: usize,
        count: usize,
        frame_count: u32,
    },
    /// A track's keyframe times differ from the first track's (the layout stores the times once).
    #[error("track {track} frame {frame}: time {time} differs from track 0's {expected}")]
    TrackTimes {
        track: usize,
        frame: usize,
        time: f32,
        expected: f32,
    },
}
