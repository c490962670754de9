//! The [`kiln_scene::Warning::code`]s this importer gives, one constant per kind of finding.
//!
//! Codes are stable: a code keeps its meaning once released (the message text may be reworded).
//! Warnings about one line of a file carry `FILE:LINE` (the OBJ or MTL file as named in the
//! input) as their [`kiln_scene::Warning::location`].

/// A UTF-16 file (recognised by its byte-order mark) was converted to UTF-8.
pub const UTF16_CONVERTED: &str = "obj.utf16-converted";
/// A statement not at the start of its line was ignored, as Assimp 5.2 does: given at the first
/// one (with its line), and once more with the total when there were several.
pub const INDENTED_STATEMENT: &str = "obj.indented-statement";
/// NUL bytes in a text OBJ were read as line ends, as Assimp does (ZBrush ends its OBJ files
/// with one).
pub const NUL_BYTES: &str = "obj.nul-bytes";
/// A `v` with 5 or more than 6 numbers, or a `vt` with more than 3: the extra numbers were
/// ignored.
pub const EXTRA_NUMBERS: &str = "obj.extra-numbers";
/// A face corner with more than three `/`-separated indices: the rest of the face was ignored.
pub const EXTRA_CORNER_INDICES: &str = "obj.extra-corner-indices";
/// An `f`, `l` or `p` statement without vertices was ignored.
pub const EMPTY_FACE: &str = "obj.empty-face";
/// An `l` statement with a single vertex was ignored (Assimp 5.2 fails on it).
pub const SINGLE_VERTEX_LINE: &str = "obj.single-vertex-line";
/// An `mtllib` statement without a file name was ignored.
pub const MTLLIB_WITHOUT_NAME: &str = "obj.mtllib-without-name";
/// A material library was not found under its name; Assimp's fallback name
/// (`<obj name minus 3 chars>mtl`) was used instead.
pub const MTLLIB_FALLBACK: &str = "obj.mtllib-fallback";
/// A material library was not found: the materials it should define get default values.
pub const MTLLIB_MISSING: &str = "obj.mtllib-missing";
/// A normal index of a mesh is out of range, so the mesh has no normals (as in Assimp).
pub const NORMALS_DROPPED: &str = "obj.normals-dropped";
/// A texture-coordinate index of a mesh is out of range, so the mesh has no UVs (as in Assimp).
pub const UVS_DROPPED: &str = "obj.uvs-dropped";
/// Points (`p`) were kept as 1-index faces, as Assimp does; engine extraction drops them.
pub const POINTS_KEPT: &str = "obj.points-kept";
/// Line segments (`l`) were kept as 2-index faces, as Assimp does; engine extraction drops them.
pub const LINES_KEPT: &str = "obj.lines-kept";
/// The file has vertices but no faces: they form one face-less point-cloud mesh (as in Assimp).
pub const POINT_CLOUD: &str = "obj.point-cloud";
/// The file has no face and no vertex (comments, `mtllib`, `usemtl`, `o`, `g` only): the scene
/// has its nodes (and, with objects, its materials) and no mesh, as in Assimp.
pub const NO_GEOMETRY: &str = "obj.no-geometry";
/// The first line of an MTL file is indented and was ignored (as Assimp does).
pub const MTL_INDENTED_FIRST_LINE: &str = "obj.mtl-indented-first-line";
/// An MTL statement with a number that does not parse or is not a finite 32-bit float was
/// ignored.
pub const MTL_BAD_NUMBER: &str = "obj.mtl-bad-number";
/// An MTL texture statement before any `newmtl` was ignored (nothing to attach it to).
pub const MTL_TEXTURE_WITHOUT_MATERIAL: &str = "obj.mtl-texture-without-material";
/// An MTL `map_…` statement of a texture type the reader does not know was ignored.
pub const MTL_UNKNOWN_TEXTURE_TYPE: &str = "obj.mtl-unknown-texture-type";
/// More than 64 warnings were found: the last warning gives the count of those not listed.
pub const WARNINGS_SUPPRESSED: &str = "obj.warnings-suppressed";
