//! The scene model every offline kiln stage shares: what an importer produces (`kiln-obj`,
//! `kiln-fbx-scene`), what `kiln-process` rewrites, and what `kiln-extract` lowers to engine
//! data. It is Assimp's `aiScene` shaped for Rust, so that kiln can reproduce Assimp's results
//! step by step:
//! - a node tree stored as an arena ([`Scene::nodes`], root at index 0, parents before children);
//! - meshes in Assimp's "verbose" layout: per-vertex arrays (positions, normals, tangents,
//!   bitangents, up to [`MAX_UV_CHANNELS`] UV and [`MAX_COLOR_CHANNELS`] colour channels) and
//!   polygon faces of any arity that index them ([`Mesh::face_sizes`] + [`Mesh::indices`]);
//! - materials with the colours and texture slots the engine formats need, plus a free-form
//!   property list for whatever else an importer found;
//! - skin bones with Assimp's offset matrix (mesh space to bone space) and per-vertex weights;
//! - animations with per-node position/rotation/scale keys in ticks; embedded textures;
//! - typed, non-fatal [`Warning`]s of every stage; Assimp's float arithmetic ([`assimp_math`]).
//!
//! Conventions: column vectors (`v' = M * v`, as Assimp and glam), right-handed as the file
//! authored it, until `kiln-process` converts it. Times in ticks, [`Animation::ticks_per_second`]
//! converts.
//!
//! What it does not do: read or write files, or repair anything. The fields are public and
//! nothing checks them on construction: importers build scenes that satisfy the invariants
//! below, and [`validate`] is the one place they are checked ([`Scene::validate`] for a whole
//! scene, [`Mesh::validate_geometry`] for what code that indexes vertex arrays relies on, which
//! `kiln-process` runs before every step).
//!
//! Invariants (checked by [`Scene::validate`]):
//! - `nodes[0]` is the root; every other node's `parent` is a smaller index; `children` lists
//!   exactly the nodes whose parent it is.
//! - every `Node::meshes` entry, `Mesh::material`, texture `embedded` index is in range;
//! - each per-vertex array of a mesh is empty or has `positions.len()` entries (at most
//!   `u32::MAX`); tangents and bitangents come together; at most 8 UV and 8 colour channels;
//! - `face_sizes` sums to `indices.len()`, every index and bone weight's vertex is below
//!   `positions.len()`; a [`PointSkin`] names one point (or none) per vertex, its starts
//!   partition its weights and its weights' bones are the mesh's; [`SharedPositions`] name
//!   one point per vertex, below their count, which is at most the vertex count;
//! - morph targets as [`MorphTarget`] says (shapes by increasing full weight, sparse vertices
//!   ascending and in range, offsets finite); every animation's morph channel names a mesh's
//!   target and has sorted, finite keys.
//!
//! `no_std` + `alloc` (feature `std` adds the libm-exact parts of [`assimp_math`]), so importers
//! that build without `std` (kiln-obj for `wasm32-unknown-unknown`) can use it.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;

use alloc::string::String;
use alloc::vec::Vec;
use core::fmt;

pub mod assimp_math;
pub mod fast_atof;
pub mod names;
pub mod validate;
mod warning;

pub use validate::{InvalidScene, MeshError, MorphProblem};
pub use warning::Warning;

pub use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

/// Most UV channels a mesh carries (Assimp's `AI_MAX_NUMBER_OF_TEXTURECOORDS`).
pub const MAX_UV_CHANNELS: usize = 8;
/// Most colour channels a mesh carries (Assimp's `AI_MAX_NUMBER_OF_COLOR_SETS`).
pub const MAX_COLOR_CHANNELS: usize = 8;

/// A whole imported file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Scene {
    /// Node tree, root first; see the crate invariants.
    pub nodes: Vec<Node>,
    /// Meshes, drawn where [`Node::meshes`] references them.
    pub meshes: Vec<Mesh>,
    /// Materials, referenced by [`Mesh::material`].
    pub materials: Vec<Material>,
    /// Animation clips, in file order.
    pub animations: Vec<Animation>,
    /// Textures stored inside the file (FBX `Video` content); referenced by
    /// [`TextureRef::embedded`].
    pub textures: Vec<EmbeddedTexture>,
    /// What the file says about itself (format, units, axes, frame rate).
    pub metadata: Metadata,
    /// Non-fatal findings of the importer and the processing steps, for the user.
    pub warnings: Vec<Warning>,
}

/// Index of a node in [`Scene::nodes`].
pub type NodeId = usize;

/// One node of the hierarchy (Assimp `aiNode`).
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// Name as the file wrote it (bones and animation channels find their node by it; names
    /// need not be unique).
    pub name: String,
    /// Local transform relative to the parent, column vectors.
    pub transform: Mat4,
    /// The parent; `None` only for the root, otherwise a smaller index.
    pub parent: Option<NodeId>,
    /// The children, in file order (the order depth-first walks visit them).
    pub children: Vec<NodeId>,
    /// Indices into [`Scene::meshes`] drawn at this node (a mesh may be referenced by several
    /// nodes).
    pub meshes: Vec<usize>,
}

impl Node {
    /// A node with an identity transform and no parent, children or meshes.
    pub fn new(name: impl Into<String>) -> Self {
        Node {
            name: name.into(),
            transform: Mat4::IDENTITY,
            parent: None,
            children: Vec::new(),
            meshes: Vec::new(),
        }
    }
}

/// Which primitive kinds a mesh contains (Assimp `aiPrimitiveType`, as a bit set).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrimitiveTypes(pub u8);

impl PrimitiveTypes {
    /// Faces of one corner (Assimp `aiPrimitiveType_POINT`).
    pub const POINT: u8 = 1;
    /// Faces of two corners (Assimp `aiPrimitiveType_LINE`).
    pub const LINE: u8 = 2;
    /// Faces of three corners (Assimp `aiPrimitiveType_TRIANGLE`).
    pub const TRIANGLE: u8 = 4;
    /// Faces of four or more corners (Assimp `aiPrimitiveType_POLYGON`).
    pub const POLYGON: u8 = 8;

    /// The kind bit of a face with `arity` corners (0 counts as a point).
    pub fn of_arity(arity: u32) -> u8 {
        match arity {
            0 | 1 => Self::POINT,
            2 => Self::LINE,
            3 => Self::TRIANGLE,
            _ => Self::POLYGON,
        }
    }

    /// Whether the set has `bit` (one of the constants above).
    pub fn contains(self, bit: u8) -> bool {
        self.0 & bit != 0
    }
}

/// A UV channel: one coordinate per vertex, with 1, 2 or 3 meaningful components.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct UvChannel {
    /// Number of meaningful components (Assimp `mNumUVComponents`); unused ones are zero.
    pub components: u8,
    /// One coordinate per vertex (`u`, `v`, `w`), as the file stores it (`kiln-process`'s
    /// FlipUVs turns `v` over).
    pub coords: Vec<Vec3>,
    /// Name of the UV set in the file (FBX `UVSet` name), empty when the format has none.
    pub name: String,
}

/// A mesh in Assimp's layout: one material, per-vertex attributes and faces indexing them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Name as the file wrote it (may be empty).
    pub name: String,
    /// Index into [`Scene::materials`].
    pub material: usize,
    /// Vertex positions in the mesh's node space; their count is the vertex count every other
    /// per-vertex array matches.
    pub positions: Vec<Vec3>,
    /// Empty, or one per vertex.
    pub normals: Vec<Vec3>,
    /// Empty, or one per vertex (with `bitangents`).
    pub tangents: Vec<Vec3>,
    /// Empty, or one per vertex (with `tangents`).
    pub bitangents: Vec<Vec3>,
    /// At most [`MAX_UV_CHANNELS`].
    pub uv_channels: Vec<UvChannel>,
    /// RGBA per vertex; at most [`MAX_COLOR_CHANNELS`].
    pub color_channels: Vec<Vec<Vec4>>,
    /// Number of corners of each face, in face order.
    pub face_sizes: Vec<u32>,
    /// Corner indices of all faces, concatenated; `face_sizes` partitions it.
    pub indices: Vec<u32>,
    /// Which primitive kinds occur (kept up to date by importers and processing steps).
    pub primitive_types: PrimitiveTypes,
    /// Skin: bones that deform this mesh.
    pub bones: Vec<Bone>,
    /// The skin's weights kept per control point instead of in [`Bone::weights`] (which are
    /// then empty), when the importer was asked for that form (`kiln-fbx-scene`'s
    /// `ImportOptions::point_skin`, which `kiln convert` uses); `None` otherwise.
    pub point_skin: Option<PointSkin>,
    /// Which vertices the importer made from one stored position (see [`SharedPositions`]),
    /// when it knows; `None` otherwise.
    pub shared_positions: Option<SharedPositions>,
    /// Morph targets (FBX blend shape channels), in the file's order.
    pub morph_targets: Vec<MorphTarget>,
}

impl Mesh {
    /// Iterates the faces as index slices (a face whose size runs past `indices` is cut
    /// short, so a mesh that breaks the invariants cannot make it panic).
    pub fn faces(&self) -> Faces<'_> {
        Faces {
            sizes: self.face_sizes.iter(),
            indices: &self.indices,
        }
    }

    /// The point each vertex was made from, and how many points there are: the
    /// [`SharedPositions`], or else the per-point skin's points (a skinned part of the
    /// engine's import has those instead; the same vertices share a point in both). A hint for
    /// finding coincident vertices: a vertex of the skin made from no point names
    /// `u32::MAX`, and neither form promises more than [`SharedPositions`] does.
    pub fn vertex_points(&self) -> Option<(&[u32], usize)> {
        match (&self.shared_positions, &self.point_skin) {
            (Some(shared), _) => Some((&shared.of_vertex, shared.points as usize)),
            (None, Some(skin)) => Some((&skin.vertex_points, skin.weights.points())),
            (None, None) => None,
        }
    }

    /// Number of faces.
    pub fn face_count(&self) -> usize {
        self.face_sizes.len()
    }

    /// Recomputes [`Mesh::primitive_types`] from the face sizes.
    pub fn update_primitive_types(&mut self) {
        let mut bits = 0u8;
        for &n in &self.face_sizes {
            bits |= PrimitiveTypes::of_arity(n);
        }
        self.primitive_types = PrimitiveTypes(bits);
    }

    /// Appends a face with these corners (does not update [`Mesh::primitive_types`]).
    pub fn push_face(&mut self, corners: &[u32]) {
        self.face_sizes.push(corners.len() as u32);
        self.indices.extend_from_slice(corners);
    }
}

/// Iterator over a mesh's faces (see [`Mesh::faces`]).
#[derive(Clone, Debug)]
pub struct Faces<'a> {
    sizes: core::slice::Iter<'a, u32>,
    indices: &'a [u32],
}

impl<'a> Iterator for Faces<'a> {
    type Item = &'a [u32];
    fn next(&mut self) -> Option<&'a [u32]> {
        let n = *self.sizes.next()? as usize;
        let n = n.min(self.indices.len());
        let (face, rest) = self.indices.split_at(n);
        self.indices = rest;
        Some(face)
    }
    fn size_hint(&self) -> (usize, Option<usize>) {
        self.sizes.size_hint()
    }
}

/// A skin bone of a mesh (Assimp `aiBone`).
#[derive(Clone, Debug, PartialEq)]
pub struct Bone {
    /// Name of the node that drives this bone.
    pub name: String,
    /// Mesh space to bone space in bind pose (Assimp `mOffsetMatrix`), column vectors.
    pub offset_matrix: Mat4,
    /// The vertices this bone moves, each with its influence.
    pub weights: Vec<VertexWeight>,
}

/// One vertex influenced by a bone.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VertexWeight {
    /// Index of the vertex in the mesh's per-vertex arrays.
    pub vertex: u32,
    /// Influence, as the file gives it (normally in 0..=1, the weights of a vertex summing to
    /// about 1; not normalised here).
    pub weight: f32,
}

/// A mesh's skin weights as an FBX file keeps them: per control point, each vertex naming the
/// point it was made from. It stands for the [`Bone::weights`] Assimp's importer spreads to
/// every vertex — bone `b` weights vertex `v` by `w` for each `(b, w)` of
/// `weights.of(vertex_points[v])` — without the per-vertex lists (a skinned body of 400k
/// triangles has about 3.4 million of them, where its clusters hold 0.9 million weights).
/// Those lists list each bone's weights in the file's order; this form keeps a vertex's
/// weights in bone order, so it serves what does not depend on that order (the four
/// strongest influences of each vertex), not an Assimp dump.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointSkin {
    /// The control point of each vertex (one per vertex), `u32::MAX` for a vertex made from
    /// none (an index past the points): it has no weights.
    pub vertex_points: Vec<u32>,
    /// The weights per control point, shared by every mesh made from the same geometry.
    pub weights: alloc::sync::Arc<PointWeights>,
}

/// Which vertices of a mesh an importer made from one stored position: an FBX control point,
/// an OBJ `v` line. A mesh in Assimp's layout has a vertex per polygon corner, so a position
/// is typically repeated by four to six vertices; knowing the groups lets a step that looks
/// for coincident vertices (tangent smoothing) search among the points instead of among all
/// the vertices. It is a hint for speed only: a step that uses it checks that the vertices of
/// each point do have the same position, bit for bit, and ignores the hint where they do not,
/// so a wrong hint cannot change a result.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SharedPositions {
    /// The point of each vertex (one per vertex), each below `points`.
    pub of_vertex: Vec<u32>,
    /// How many points there are: at most the vertex count (an importer numbers the points
    /// a mesh uses from 0), so that a table per point is never larger than the mesh.
    pub points: u32,
}

impl SharedPositions {
    /// The shared positions of vertices made from points `of_vertex` (each below `points`,
    /// else `None`): the numbers as given when there are no more points than vertices, else
    /// renumbered from 0 in order of first use, through `scratch`, a table by point that is
    /// all `u32::MAX` before and after (grown to `points` here; keep it between calls so that
    /// many small meshes of one large file do not clear a table each).
    pub fn numbered(
        mut of_vertex: Vec<u32>,
        points: usize,
        scratch: &mut Vec<u32>,
    ) -> Option<SharedPositions> {
        if of_vertex.iter().any(|&p| p as usize >= points) {
            return None;
        }
        if points <= of_vertex.len() {
            return Some(SharedPositions {
                of_vertex,
                points: u32::try_from(points).ok()?,
            });
        }
        if scratch.len() < points {
            scratch.resize(points, u32::MAX);
        }
        // At most one per vertex: no regrowing.
        let mut used = Vec::with_capacity(of_vertex.len());
        for p in &mut of_vertex {
            let n = &mut scratch[*p as usize];
            if *n == u32::MAX {
                *n = used.len() as u32;
                used.push(*p);
            }
            *p = *n;
        }
        for &p in &used {
            scratch[p as usize] = u32::MAX;
        }
        Some(SharedPositions {
            of_vertex,
            points: used.len() as u32,
        })
    }
}

/// Skin weights grouped by control point (see [`PointSkin`]).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PointWeights {
    /// Where each point's weights start in `weights`, and one past the last point's end:
    /// point `p`'s are `weights[starts[p]..starts[p + 1]]`.
    pub starts: Vec<u32>,
    /// `(bone, weight)` pairs, `bone` an index into the mesh's [`Mesh::bones`]; each point's in
    /// bone order, then in the file's order.
    pub weights: Vec<(u32, f32)>,
}

impl PointWeights {
    /// The `(bone, weight)` pairs of point `p` (none when `p` is out of range or the starts
    /// are out of order).
    pub fn of(&self, p: u32) -> &[(u32, f32)] {
        let p = p as usize;
        match (self.starts.get(p), self.starts.get(p.wrapping_add(1))) {
            (Some(&a), Some(&b)) => self.weights.get(a as usize..b as usize).unwrap_or(&[]),
            _ => &[],
        }
    }

    /// Number of points.
    pub fn points(&self) -> usize {
        self.starts.len().saturating_sub(1)
    }
}

/// A morph target: one blend weight that moves the mesh's vertices by offsets (FBX
/// `BlendShapeChannel`, glTF morph target, ufbx `ufbx_blend_channel`). Unlike Assimp's
/// `aiAnimMesh` (a full replacement mesh per shape) it keeps the offsets, sparse where the
/// source is, and the in-between shapes of the channel with their full weights.
///
/// Invariants (checked by [`Scene::validate`]): at least one shape; shapes sorted by
/// [`MorphShape::full_weight`], no two equal, none 0, all finite; each shape's arrays as
/// [`MorphShape`] says.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphTarget {
    /// Name of the target (FBX: the channel's name without its class prefix).
    pub name: String,
    /// Weight at rest: 0 is the base mesh, 1 the (last) shape (FBX `DeformPercent` / 100).
    pub weight: f32,
    /// The shapes, by increasing full weight: one shape of full weight 1 for a plain target,
    /// more for in-betweens (ufbx's keyframes of a channel).
    pub shapes: Vec<MorphShape>,
}

/// One shape of a [`MorphTarget`]: per-vertex offsets reached at full strength when the
/// target's weight is [`MorphShape::full_weight`].
///
/// Sparse or dense as the source is: `vertices` lists the vertices moved (ascending, no
/// repeats, each below the mesh's vertex count) with one offset each, or is empty and every
/// vertex of the mesh has an offset, in order. Both empty: the shape moves nothing (a mesh
/// part none of whose vertices the source shape moves). `normals` and `tangents` are empty or
/// as long as `positions`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphShape {
    /// Name of the shape (FBX: the `Shape` geometry's name without its class prefix).
    pub name: String,
    /// The target weight at which this shape applies fully (FBX `FullWeights` / 100; 1 for a
    /// plain target). Between two shapes the runtime blends them linearly, as ufbx does.
    pub full_weight: f32,
    /// The vertices moved, ascending; empty: all of them (or none, when `positions` is
    /// empty too).
    pub vertices: Vec<u32>,
    /// Position offset of each listed vertex, in the mesh's space.
    pub positions: Vec<Vec3>,
    /// Normal offset of each listed vertex, or empty.
    pub normals: Vec<Vec3>,
    /// Tangent offset of each listed vertex, or empty.
    pub tangents: Vec<Vec3>,
}

impl MorphShape {
    /// The vertex each offset moves: `vertices[i]`, or `i` for a dense shape.
    pub fn vertex(&self, i: usize) -> u32 {
        if self.vertices.is_empty() {
            i as u32
        } else {
            self.vertices[i]
        }
    }
}

/// Texture slot kinds (the subset of Assimp's `aiTextureType` that importers fill).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TextureKind {
    /// Base colour (`aiTextureType_DIFFUSE`).
    Diffuse,
    /// Specular colour (`aiTextureType_SPECULAR`).
    Specular,
    /// Ambient colour (`aiTextureType_AMBIENT`).
    Ambient,
    /// Emitted colour (`aiTextureType_EMISSIVE`).
    Emissive,
    /// Height or bump map (`aiTextureType_HEIGHT`; OBJ `bump` lands here, as in Assimp).
    Height,
    /// Tangent-space normal map (`aiTextureType_NORMALS`).
    Normals,
    /// Specular exponent (`aiTextureType_SHININESS`).
    Shininess,
    /// Opacity (`aiTextureType_OPACITY`).
    Opacity,
    /// Displacement (`aiTextureType_DISPLACEMENT`).
    Displacement,
    /// Reflection or environment map (`aiTextureType_REFLECTION`).
    Reflection,
    /// A slot the importer could not classify (`aiTextureType_UNKNOWN`).
    Unknown,
}

/// A texture a material uses.
#[derive(Clone, Debug, PartialEq)]
pub struct TextureRef {
    /// The slot the texture fills.
    pub kind: TextureKind,
    /// Path as the file wrote it (relative paths stay relative to the source file's folder;
    /// importers may resolve them, see the importer's docs).
    pub path: String,
    /// Index into [`Scene::textures`] when the file embeds the image.
    pub embedded: Option<usize>,
    /// UV channel the texture reads.
    pub uv_channel: u32,
}

/// Values of [`Material::properties`] that have no dedicated field.
#[derive(Clone, Debug, PartialEq)]
pub enum PropertyValue {
    /// One number with a fractional part.
    Float(f64),
    /// One integer.
    Int(i64),
    /// Several numbers (colours, vectors), in the file's order.
    Vector(Vec<f64>),
    /// Text (paths, names), as the file wrote it.
    String(String),
}

/// A material (the part of Assimp's `aiMaterial` kiln uses, plus raw properties).
///
/// Colours are `None` when the file does not set them: consumers choose the default (the
/// original tool reads a missing colour as black).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Material {
    /// Name as the file wrote it.
    pub name: String,
    /// Ambient colour, RGB as the file stores it.
    pub ambient: Option<Vec3>,
    /// Diffuse (base) colour, RGB as the file stores it.
    pub diffuse: Option<Vec3>,
    /// Specular colour, RGB as the file stores it (before [`Material::shininess_strength`]).
    pub specular: Option<Vec3>,
    /// Emitted colour, RGB as the file stores it.
    pub emissive: Option<Vec3>,
    /// Phong exponent.
    pub shininess: Option<f32>,
    /// Scales the specular colour (Assimp `$mat.shinpercent`).
    pub shininess_strength: Option<f32>,
    /// 1 is opaque.
    pub opacity: Option<f32>,
    /// Texture slots in the importer's order ([`Material::texture`] finds the first of a
    /// kind).
    pub textures: Vec<TextureRef>,
    /// Everything else the importer read, by the file's own property names.
    pub properties: Vec<(String, PropertyValue)>,
}

impl Material {
    /// First texture of `kind`, if any.
    pub fn texture(&self, kind: TextureKind) -> Option<&TextureRef> {
        self.textures.iter().find(|t| t.kind == kind)
    }
}

/// An image stored inside the source file.
#[derive(Clone, PartialEq, Default)]
pub struct EmbeddedTexture {
    /// File name the image had when it was embedded (may contain folders), or empty.
    pub filename: String,
    /// Lower-case extension hint (`png`, `jpg`, …) when known.
    pub format_hint: String,
    /// The encoded image file as stored.
    pub data: Vec<u8>,
}

impl fmt::Debug for EmbeddedTexture {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EmbeddedTexture")
            .field("filename", &self.filename)
            .field("format_hint", &self.format_hint)
            .field("bytes", &self.data.len())
            .finish()
    }
}

/// A key of a vector channel (position or scale).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VectorKey {
    /// In ticks.
    pub time: f64,
    /// Local translation or scale at `time`, in the parent's space.
    pub value: Vec3,
}

/// A key of a rotation channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct QuatKey {
    /// In ticks.
    pub time: f64,
    /// Local rotation at `time`, a unit quaternion.
    pub value: Quat,
}

/// Animation of one node (Assimp `aiNodeAnim`). Keys are sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NodeChannel {
    /// Name of the animated node.
    pub node_name: String,
    /// Translation keys (replace the translation of [`Node::transform`]).
    pub position_keys: Vec<VectorKey>,
    /// Rotation keys.
    pub rotation_keys: Vec<QuatKey>,
    /// Scale keys.
    pub scaling_keys: Vec<VectorKey>,
}

/// One animation clip (Assimp `aiAnimation`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Animation {
    /// Name as the file wrote it (FBX: the animation stack's).
    pub name: String,
    /// Length in ticks.
    pub duration: f64,
    /// Ticks per second; 0 when the file does not say.
    pub ticks_per_second: f64,
    /// One channel per animated node.
    pub channels: Vec<NodeChannel>,
    /// One channel per animated morph target.
    pub morph_channels: Vec<MorphChannel>,
}

/// A key of a morph weight channel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct WeightKey {
    /// In ticks.
    pub time: f64,
    /// The target's weight at `time` (0 base, 1 full), linear between keys.
    pub value: f32,
}

/// The weight of one morph target over time (Assimp `aiMeshMorphAnim`, per target). Keys are
/// sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MorphChannel {
    /// Index into [`Scene::meshes`].
    pub mesh: usize,
    /// Index into that mesh's [`Mesh::morph_targets`].
    pub target: usize,
    /// The weight keys.
    pub keys: Vec<WeightKey>,
}

/// Axis conventions as the source file declared them (FBX `GlobalSettings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AxisSystem {
    /// Up axis: index 0..3 (x, y, z) and sign (+1/-1).
    pub up: (u8, i8),
    /// Front axis (FBX `FrontAxis`/`FrontAxisSign`), as `up`.
    pub front: (u8, i8),
    /// Coordinate (right) axis (FBX `CoordAxis`/`CoordAxisSign`), as `up`.
    pub coord: (u8, i8),
}

/// Facts about the source file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Metadata {
    /// Format and version, e.g. `obj`, `fbx 7400 binary`.
    pub source_format: String,
    /// Centimetres per file unit (FBX `UnitScaleFactor`); `None` when unknown.
    pub unit_scale_factor: Option<f64>,
    /// Axis conventions, when the file declares them.
    pub axes: Option<AxisSystem>,
    /// Frames per second the file's time line uses, when it says.
    pub frame_rate: Option<f64>,
    /// Authoring application, when the file says.
    pub application: Option<String>,
}

impl Scene {
    /// A scene holding only a root node called `root_name`.
    pub fn with_root(root_name: impl Into<String>) -> Self {
        Scene {
            nodes: alloc::vec![Node::new(root_name)],
            ..Scene::default()
        }
    }

    /// Adds `node` as the last child of `parent` and returns its id.
    ///
    /// # Panics
    /// If `parent` is not a node of this scene (a programming error, not a data error).
    pub fn add_child(&mut self, parent: NodeId, mut node: Node) -> NodeId {
        let id = self.nodes.len();
        node.parent = Some(parent);
        self.nodes.push(node);
        self.nodes[parent].children.push(id);
        id
    }

    /// Node ids in depth-first pre-order from the root (children in order), the order Assimp's
    /// recursive walks and the original tool use. Iterative: no recursion depth to exhaust.
    pub fn depth_first(&self) -> Vec<NodeId> {
        let mut order = Vec::with_capacity(self.nodes.len());
        if self.nodes.is_empty() {
            return order;
        }
        // The fields are public, so the graph may not be the tree `validate` accepts: ids
        // past the arena are skipped and a node is visited once, so a cycle cannot loop.
        let mut seen = alloc::vec![false; self.nodes.len()];
        let mut stack = alloc::vec![0usize];
        while let Some(id) = stack.pop() {
            match seen.get_mut(id) {
                Some(s) if !*s => *s = true,
                _ => continue,
            }
            order.push(id);
            stack.extend(self.nodes[id].children.iter().rev().copied());
        }
        order
    }

    /// Transform of `node` relative to the root's parent space: the product of the local
    /// transforms from the root down to it (column vectors: `root * … * node`).
    pub fn global_transform(&self, node: NodeId) -> Mat4 {
        let mut m = Mat4::IDENTITY;
        let mut cur = Some(node);
        let mut steps = 0;
        while let Some(id) = cur {
            let Some(n) = self.nodes.get(id) else { break };
            m = n.transform * m;
            cur = n.parent;
            steps += 1;
            if steps > self.nodes.len() {
                break;
            }
        }
        m
    }

    /// Index of the first node called `name`.
    pub fn find_node(&self, name: &str) -> Option<NodeId> {
        self.nodes.iter().position(|n| n.name == name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;

    fn tree() -> Scene {
        let mut s = Scene::with_root("root");
        let a = s.add_child(0, Node::new("a"));
        let _b = s.add_child(0, Node::new("b"));
        let c = s.add_child(a, Node::new("c"));
        s.nodes[a].transform = Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0));
        s.nodes[c].transform = Mat4::from_translation(Vec3::new(0.0, 2.0, 0.0));
        s
    }

    #[test]
    fn depth_first_visits_children_in_order_before_siblings() {
        let s = tree();
        let names: Vec<&str> = s
            .depth_first()
            .iter()
            .map(|&i| s.nodes[i].name.as_str())
            .collect();
        assert_eq!(names, ["root", "a", "c", "b"]);
    }

    #[test]
    fn depth_first_ends_on_a_cycle_and_skips_ids_past_the_arena() {
        let mut s = tree();
        let a = s.nodes.iter().position(|n| n.name == "a").unwrap();
        s.nodes[a].children.push(0); // a → root: a cycle
        s.nodes[a].children.push(99); // no such node
        assert_eq!(s.depth_first().len(), s.nodes.len());
    }

    #[test]
    fn global_transform_accumulates_parents() {
        let s = tree();
        let c = s.find_node("c").unwrap();
        let p = s.global_transform(c).transform_point3(Vec3::ZERO);
        assert_eq!(p, Vec3::new(1.0, 2.0, 0.0));
    }

    #[test]
    fn validate_rejects_out_of_range_index() {
        let mut s = tree();
        s.materials.push(Material::default());
        let mut m = Mesh {
            positions: vec![Vec3::ZERO; 3],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 2]);
        s.meshes.push(m);
        assert!(s.validate().is_ok());
        s.meshes[0].indices[2] = 3;
        let e = s.validate().unwrap_err();
        assert_eq!(
            e,
            InvalidScene::Mesh {
                mesh: 0,
                error: MeshError::IndexOutOfRange {
                    position: 2,
                    index: 3,
                    vertices: 3
                }
            }
        );
        assert_eq!(
            e.to_string(),
            "invalid scene: mesh 0: index 3 past 3 vertices"
        );
    }

    #[test]
    fn faces_split_by_arity() {
        let mut m = Mesh::default();
        m.push_face(&[0, 1, 2, 3]);
        m.push_face(&[4, 5]);
        let f: Vec<&[u32]> = m.faces().collect();
        assert_eq!(f, vec![&[0u32, 1, 2, 3][..], &[4, 5][..]]);
        m.update_primitive_types();
        assert!(m.primitive_types.contains(PrimitiveTypes::POLYGON));
        assert!(m.primitive_types.contains(PrimitiveTypes::LINE));
        assert!(!m.primitive_types.contains(PrimitiveTypes::TRIANGLE));
    }
}

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
