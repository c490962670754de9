//! The one place the scene invariants are checked: [`Mesh::validate_geometry`] (what every
//! consumer that indexes vertex arrays relies on), [`Mesh::validate`] (that plus the skin) and
//! [`Scene::validate`] (the node tree, every cross-reference, and every mesh).
//!
//! The checks stop at the first finding, in a fixed order, and report it typed: the element's
//! index and what was expected. Two texts exist for the same [`MeshError`], both kept as
//! released: its own `Display` (what `kiln-process` reports, down to the CLI) and the shorter
//! one [`InvalidScene`] gives inside `invalid scene: …` for the checks `Scene::validate` always
//! made.

use alloc::string::String;
use core::fmt;

use crate::{MAX_COLOR_CHANNELS, MAX_UV_CHANNELS, Mesh, NodeId, Scene};

/// A per-vertex array of a [`Mesh`] other than the positions, UV and colour channels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Attribute {
    /// [`Mesh::normals`].
    Normals,
    /// [`Mesh::tangents`].
    Tangents,
    /// [`Mesh::bitangents`].
    Bitangents,
}

impl Attribute {
    /// The field's name in the plural, as messages write it (`normals`).
    pub fn name(self) -> &'static str {
        match self {
            Attribute::Normals => "normals",
            Attribute::Tangents => "tangents",
            Attribute::Bitangents => "bitangents",
        }
    }
}

impl fmt::Display for Attribute {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The first thing [`Mesh::validate`] found wrong with one mesh. `vertices` is always
/// `positions.len()`, the count every per-vertex array must match.
///
/// `Display` gives the finding without the mesh index (`3 normals for 4 vertices`).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MeshError {
    /// More vertices than 32-bit indices can address (`u32::MAX` at most).
    TooManyVertices {
        /// `positions.len()`.
        vertices: usize,
    },
    /// A per-vertex array is neither empty nor one entry per vertex.
    AttributeLength {
        /// Which array.
        attribute: Attribute,
        /// Its length.
        len: usize,
        /// The length expected (or 0).
        vertices: usize,
    },
    /// Exactly one of `tangents` and `bitangents` is empty: they come as a pair.
    TangentsWithoutBitangents {
        /// `tangents.len()`.
        tangents: usize,
        /// `bitangents.len()`.
        bitangents: usize,
    },
    /// More than [`MAX_UV_CHANNELS`] UV channels.
    TooManyUvChannels {
        /// `uv_channels.len()`.
        channels: usize,
    },
    /// More than [`MAX_COLOR_CHANNELS`] colour channels.
    TooManyColorChannels {
        /// `color_channels.len()`.
        channels: usize,
    },
    /// A UV channel does not have one coordinate per vertex.
    UvChannelLength {
        /// Index in `uv_channels`.
        channel: usize,
        /// Its number of coordinates.
        len: usize,
        /// The number expected.
        vertices: usize,
    },
    /// A colour channel does not have one colour per vertex.
    ColorChannelLength {
        /// Index in `color_channels`.
        channel: usize,
        /// Its number of colours.
        len: usize,
        /// The number expected.
        vertices: usize,
    },
    /// `face_sizes` does not partition `indices`.
    FaceSizes {
        /// The sum of `face_sizes`.
        sum: u64,
        /// `indices.len()`, the sum expected.
        indices: usize,
    },
    /// A face corner names a vertex past the end (the first such corner).
    IndexOutOfRange {
        /// Position of the corner in `indices`.
        position: usize,
        /// The index found there.
        index: u32,
        /// The bound it must stay below.
        vertices: usize,
    },
    /// A bone weights a vertex past the end (the first such weight of the first such bone).
    BoneWeightOutOfRange {
        /// Index of the bone in `bones`.
        bone: usize,
        /// Its name.
        name: String,
        /// The vertex it weights.
        vertex: u32,
        /// The bound the vertex must stay below.
        vertices: usize,
    },
    /// The per-point skin ([`crate::PointSkin`]) is not one control point per vertex, its
    /// weights' starts do not partition its weights, or a weight names a bone past `bones`.
    PointSkin {
        /// What is wrong.
        problem: &'static str,
    },
    /// The shared positions ([`crate::SharedPositions`]) are not one point per vertex, name a
    /// point past their count, or count more points than vertices.
    SharedPositions {
        /// What is wrong.
        problem: &'static str,
    },
    /// A morph target breaks the rules of [`crate::MorphTarget`] (the first such target).
    MorphTarget {
        /// Index of the target in `morph_targets`.
        target: usize,
        /// Its name.
        name: String,
        /// What is wrong.
        problem: MorphProblem,
    },
}

/// What is wrong with a morph target ([`MeshError::MorphTarget`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MorphProblem {
    /// The target has no shape.
    NoShapes,
    /// A shape's full weight is 0, not finite, or not above the previous shape's.
    FullWeight {
        /// Index of the shape.
        shape: usize,
    },
    /// A shape's `vertices` are not ascending and unique, or one is past the mesh's end.
    Vertices {
        /// Index of the shape.
        shape: usize,
    },
    /// A shape's offset array has the wrong length.
    Length {
        /// Index of the shape.
        shape: usize,
        /// Which array (`positions`, `normals`, `tangents`).
        array: &'static str,
        /// Its length.
        len: usize,
        /// The length expected (or 0 for `normals` and `tangents`).
        expected: usize,
    },
    /// An offset is NaN or infinite.
    NotFinite {
        /// Index of the shape.
        shape: usize,
    },
}

impl fmt::Display for MorphProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MorphProblem::NoShapes => f.write_str("no shape"),
            MorphProblem::FullWeight { shape } => write!(
                f,
                "shape {shape}: full weight zero, not finite or not above the previous one"
            ),
            MorphProblem::Vertices { shape } => write!(
                f,
                "shape {shape}: vertices not ascending or past the mesh's end"
            ),
            MorphProblem::Length {
                shape,
                array,
                len,
                expected,
            } => write!(
                f,
                "shape {shape}: {len} {array} offsets, expected {expected}"
            ),
            MorphProblem::NotFinite { shape } => {
                write!(f, "shape {shape}: an offset is not finite")
            }
        }
    }
}

impl fmt::Display for MeshError {
    /// The text `kiln-process` reports after `mesh N: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::TooManyVertices { vertices } => {
                write!(f, "{vertices} vertices do not fit 32-bit indices")
            }
            MeshError::AttributeLength {
                attribute,
                len,
                vertices,
            } => write!(f, "{len} {attribute} for {vertices} vertices"),
            MeshError::TangentsWithoutBitangents { .. } => {
                f.write_str("tangents without bitangents (or the reverse)")
            }
            MeshError::TooManyUvChannels { channels } => {
                write!(f, "{channels} UV channels (at most {MAX_UV_CHANNELS})")
            }
            MeshError::TooManyColorChannels { channels } => {
                write!(
                    f,
                    "{channels} colour channels (at most {MAX_COLOR_CHANNELS})"
                )
            }
            MeshError::UvChannelLength {
                channel,
                len,
                vertices,
            } => write!(
                f,
                "UV channel {channel} has {len} coords for {vertices} vertices"
            ),
            MeshError::ColorChannelLength {
                channel,
                len,
                vertices,
            } => write!(
                f,
                "colour channel {channel} has {len} colours for {vertices} vertices"
            ),
            MeshError::FaceSizes { sum, indices } => {
                write!(f, "face sizes sum to {sum} but there are {indices} indices")
            }
            MeshError::IndexOutOfRange {
                position,
                index,
                vertices,
            } => write!(f, "index {index} (at {position}) past {vertices} vertices"),
            MeshError::BoneWeightOutOfRange { name, vertex, .. } => {
                write!(f, "bone {name} weights vertex {vertex}")
            }
            MeshError::PointSkin { problem } => write!(f, "per-point skin: {problem}"),
            MeshError::SharedPositions { problem } => write!(f, "shared positions: {problem}"),
            MeshError::MorphTarget {
                target,
                name,
                problem,
            } => write!(f, "morph target {target} ({name}): {problem}"),
        }
    }
}

impl core::error::Error for MeshError {}

impl MeshError {
    /// The text [`InvalidScene`] has always given for this finding (shorter than `Display`
    /// for the checks `Scene::validate` made before `kiln-process` shared them).
    fn write_scene_text(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MeshError::UvChannelLength { channel, len, .. } => {
                write!(f, "UV channel {channel} has {len} coords")
            }
            MeshError::ColorChannelLength { channel, len, .. } => {
                write!(f, "colour channel {channel} has {len} colours")
            }
            MeshError::FaceSizes { sum, indices } => {
                write!(f, "face sizes sum to {sum}, {indices} indices")
            }
            MeshError::IndexOutOfRange {
                index, vertices, ..
            } => write!(f, "index {index} past {vertices} vertices"),
            other => fmt::Display::fmt(other, f),
        }
    }
}

impl Mesh {
    /// Checks what code that indexes a mesh's vertex arrays relies on, in this order: the
    /// vertex count fits `u32` indices; normals, tangents and bitangents each empty or one per
    /// vertex; tangents and bitangents both present or both absent; at most
    /// [`MAX_UV_CHANNELS`] UV and [`MAX_COLOR_CHANNELS`] colour channels; each channel one
    /// entry per vertex; `face_sizes` summing to `indices.len()`; every index below the vertex
    /// count. Returns the first finding. Bones are not looked at (see [`Mesh::validate`]).
    pub fn validate_geometry(&self) -> Result<(), MeshError> {
        let vertices = self.positions.len();
        if vertices > u32::MAX as usize {
            return Err(MeshError::TooManyVertices { vertices });
        }
        for (attribute, len) in [
            (Attribute::Normals, self.normals.len()),
            (Attribute::Tangents, self.tangents.len()),
            (Attribute::Bitangents, self.bitangents.len()),
        ] {
            if len != 0 && len != vertices {
                return Err(MeshError::AttributeLength {
                    attribute,
                    len,
                    vertices,
                });
            }
        }
        if self.tangents.len() != self.bitangents.len() {
            return Err(MeshError::TangentsWithoutBitangents {
                tangents: self.tangents.len(),
                bitangents: self.bitangents.len(),
            });
        }
        if self.uv_channels.len() > MAX_UV_CHANNELS {
            return Err(MeshError::TooManyUvChannels {
                channels: self.uv_channels.len(),
            });
        }
        if self.color_channels.len() > MAX_COLOR_CHANNELS {
            return Err(MeshError::TooManyColorChannels {
                channels: self.color_channels.len(),
            });
        }
        for (channel, uv) in self.uv_channels.iter().enumerate() {
            if uv.coords.len() != vertices {
                return Err(MeshError::UvChannelLength {
                    channel,
                    len: uv.coords.len(),
                    vertices,
                });
            }
        }
        for (channel, colors) in self.color_channels.iter().enumerate() {
            if colors.len() != vertices {
                return Err(MeshError::ColorChannelLength {
                    channel,
                    len: colors.len(),
                    vertices,
                });
            }
        }
        let sum: u64 = self.face_sizes.iter().map(|&s| u64::from(s)).sum();
        if sum != self.indices.len() as u64 {
            return Err(MeshError::FaceSizes {
                sum,
                indices: self.indices.len(),
            });
        }
        if let Some(position) = self.indices.iter().position(|&x| x as usize >= vertices) {
            return Err(MeshError::IndexOutOfRange {
                position,
                index: self.indices[position],
                vertices,
            });
        }
        if let Some(shared) = &self.shared_positions
            && let Err(problem) = shared_positions(shared, vertices)
        {
            return Err(MeshError::SharedPositions { problem });
        }
        Ok(())
    }

    /// Checks the mesh's own invariants: [`Mesh::validate_geometry`], then that every bone
    /// weight names a vertex of the mesh, then the morph targets' rules. Returns the first finding. (The material index needs
    /// the scene: [`Scene::validate`] checks it.)
    pub fn validate(&self) -> Result<(), MeshError> {
        self.validate_geometry()?;
        let vertices = self.positions.len();
        for (bone, b) in self.bones.iter().enumerate() {
            if let Some(w) = b.weights.iter().find(|w| w.vertex as usize >= vertices) {
                return Err(MeshError::BoneWeightOutOfRange {
                    bone,
                    name: b.name.clone(),
                    vertex: w.vertex,
                    vertices,
                });
            }
        }
        if let Some(skin) = &self.point_skin
            && let Err(problem) = point_skin(skin, vertices, self.bones.len())
        {
            return Err(MeshError::PointSkin { problem });
        }
        for (target, t) in self.morph_targets.iter().enumerate() {
            if let Err(problem) = morph_target(t, vertices) {
                return Err(MeshError::MorphTarget {
                    target,
                    name: t.name.clone(),
                    problem,
                });
            }
        }
        Ok(())
    }
}

/// The rules of [`crate::SharedPositions`] for a mesh of `vertices` vertices.
fn shared_positions(shared: &crate::SharedPositions, vertices: usize) -> Result<(), &'static str> {
    if shared.of_vertex.len() != vertices {
        return Err("not one point per vertex");
    }
    if shared.points as usize > vertices {
        return Err("more points than vertices");
    }
    if shared.of_vertex.iter().any(|&p| p >= shared.points) {
        return Err("a vertex names a point past the count");
    }
    Ok(())
}

/// The rules of a [`crate::PointSkin`] for a mesh of `vertices` vertices and `bones` bones.
fn point_skin(skin: &crate::PointSkin, vertices: usize, bones: usize) -> Result<(), &'static str> {
    let w = &skin.weights;
    if skin.vertex_points.len() != vertices {
        return Err("not one control point per vertex");
    }
    if w.starts.first().is_some_and(|&s| s != 0)
        || w.starts.windows(2).any(|p| p[0] > p[1])
        || w.starts.last().map_or(0, |&s| s as usize) != w.weights.len()
    {
        return Err("the points' starts do not partition the weights");
    }
    let points = w.points();
    if skin
        .vertex_points
        .iter()
        .any(|&p| p != u32::MAX && p as usize >= points)
    {
        return Err("a vertex names a control point past the weights");
    }
    if w.weights.iter().any(|&(b, _)| b as usize >= bones) {
        return Err("a weight names a bone past the mesh's bones");
    }
    Ok(())
}

/// The rules of [`crate::MorphTarget`] and [`crate::MorphShape`] for a mesh of `vertices`.
fn morph_target(t: &crate::MorphTarget, vertices: usize) -> Result<(), MorphProblem> {
    if t.shapes.is_empty() {
        return Err(MorphProblem::NoShapes);
    }
    let mut previous = f32::NEG_INFINITY;
    for (shape, s) in t.shapes.iter().enumerate() {
        let w = s.full_weight;
        if !w.is_finite() || w == 0.0 || w <= previous {
            return Err(MorphProblem::FullWeight { shape });
        }
        previous = w;
        let expected = if s.vertices.is_empty() && s.positions.is_empty() {
            0 // moves nothing
        } else if s.vertices.is_empty() {
            vertices
        } else {
            let ascending = s.vertices.windows(2).all(|p| p[0] < p[1]);
            if !ascending || s.vertices.last().is_some_and(|&v| v as usize >= vertices) {
                return Err(MorphProblem::Vertices { shape });
            }
            s.vertices.len()
        };
        for (array, len, must) in [
            ("positions", s.positions.len(), true),
            ("normals", s.normals.len(), false),
            ("tangents", s.tangents.len(), false),
        ] {
            if len != expected && (must || len != 0) {
                return Err(MorphProblem::Length {
                    shape,
                    array,
                    len,
                    expected,
                });
            }
        }
        let finite = |v: &[crate::Vec3]| v.iter().all(|d| d.is_finite());
        if !finite(&s.positions) || !finite(&s.normals) || !finite(&s.tangents) {
            return Err(MorphProblem::NotFinite { shape });
        }
    }
    Ok(())
}

/// What [`Scene::validate`] found wrong: the first broken invariant, with the index of the
/// element concerned and what was expected.
///
/// `Display` is `invalid scene: ` followed by [`InvalidScene::reason`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InvalidScene {
    /// [`Scene::nodes`] is empty: there is no root.
    NoRoot,
    /// `nodes[0]`, the root, has a parent.
    RootHasParent {
        /// The parent it names.
        parent: NodeId,
    },
    /// A node other than the root has no parent, or one that does not come before it.
    NoEarlierParent {
        /// The node.
        node: NodeId,
        /// Its name.
        name: String,
        /// The parent it names, if any (expected: below `node`).
        parent: Option<NodeId>,
    },
    /// A node's parent does not list it among its children.
    MissingFromParent {
        /// The node.
        node: NodeId,
        /// Its parent.
        parent: NodeId,
    },
    /// A node lists a child that does not exist or whose parent is another node.
    ChildParentDiffers {
        /// The node.
        node: NodeId,
        /// The child it lists.
        child: NodeId,
        /// The child's parent (expected: `Some(node)`); `None` when the child has none or
        /// does not exist.
        child_parent: Option<NodeId>,
    },
    /// A node draws a mesh past the end of [`Scene::meshes`].
    NodeMeshOutOfRange {
        /// The node.
        node: NodeId,
        /// The mesh index it names.
        mesh: usize,
        /// `meshes.len()`, the bound.
        meshes: usize,
    },
    /// A mesh's material is past the end of [`Scene::materials`].
    MeshMaterialOutOfRange {
        /// The mesh.
        mesh: usize,
        /// Its material index.
        material: usize,
        /// `materials.len()`, the bound.
        materials: usize,
    },
    /// A mesh breaks its own invariants ([`Mesh::validate`]).
    Mesh {
        /// Index of the mesh in [`Scene::meshes`].
        mesh: usize,
        /// What is wrong with it.
        error: MeshError,
    },
    /// A material's texture names an embedded texture past the end of [`Scene::textures`].
    EmbeddedTextureOutOfRange {
        /// The material.
        material: usize,
        /// The embedded texture index it names.
        texture: usize,
        /// `textures.len()`, the bound.
        textures: usize,
    },
    /// An animation's morph channel names a mesh or target that does not exist, or its keys
    /// are not sorted by time or not finite.
    MorphChannel {
        /// Index of the animation.
        animation: usize,
        /// Index of the channel in its `morph_channels`.
        channel: usize,
    },
}

/// [`InvalidScene::reason`]: the finding without the `invalid scene: ` prefix.
#[derive(Clone, Copy, Debug)]
pub struct Reason<'a>(&'a InvalidScene);

impl fmt::Display for Reason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            InvalidScene::NoRoot => f.write_str("no root node"),
            InvalidScene::RootHasParent { .. } => f.write_str("root node has a parent"),
            InvalidScene::NoEarlierParent { node, name, .. } => {
                write!(f, "node {node} ({name}) has no earlier parent")
            }
            InvalidScene::MissingFromParent { node, .. } => {
                write!(f, "node {node} is missing from its parent's children")
            }
            InvalidScene::ChildParentDiffers { node, child, .. } => {
                write!(f, "node {node} lists child {child} whose parent differs")
            }
            InvalidScene::NodeMeshOutOfRange { node, mesh, meshes } => {
                write!(f, "node {node} references mesh {mesh} of {meshes}")
            }
            InvalidScene::MeshMaterialOutOfRange {
                mesh,
                material,
                materials,
            } => write!(f, "mesh {mesh} uses material {material} of {materials}"),
            InvalidScene::Mesh { mesh, error } => {
                write!(f, "mesh {mesh}: ")?;
                error.write_scene_text(f)
            }
            InvalidScene::EmbeddedTextureOutOfRange {
                material, texture, ..
            } => write!(
                f,
                "material {material} references embedded texture {texture}"
            ),
            InvalidScene::MorphChannel { animation, channel } => write!(
                f,
                "animation {animation}: morph channel {channel} names no target or has unsorted keys"
            ),
        }
    }
}

impl InvalidScene {
    /// What is wrong, without the `invalid scene: ` prefix (for callers that add their own):
    /// `mesh 0: index 3 past 3 vertices`.
    pub fn reason(&self) -> Reason<'_> {
        Reason(self)
    }
}

impl fmt::Display for InvalidScene {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invalid scene: {}", self.reason())
    }
}

impl core::error::Error for InvalidScene {}

impl Scene {
    /// Checks the crate invariants, in this order: a root without a parent; each node after
    /// the root with an earlier parent that lists it, children whose parent is the node, and
    /// meshes in range (node by node); each mesh's material in range, then [`Mesh::validate`]
    /// (mesh by mesh); each material's embedded textures in range; each animation's morph
    /// channels naming a target, with sorted finite keys. Returns the first finding.
    pub fn validate(&self) -> Result<(), InvalidScene> {
        let Some(root) = self.nodes.first() else {
            return Err(InvalidScene::NoRoot);
        };
        if let Some(parent) = root.parent {
            return Err(InvalidScene::RootHasParent { parent });
        }
        for (i, n) in self.nodes.iter().enumerate() {
            if i > 0 {
                match n.parent {
                    Some(p) if p < i => {
                        if !self.nodes[p].children.contains(&i) {
                            return Err(InvalidScene::MissingFromParent { node: i, parent: p });
                        }
                    }
                    parent => {
                        return Err(InvalidScene::NoEarlierParent {
                            node: i,
                            name: n.name.clone(),
                            parent,
                        });
                    }
                }
            }
            for &c in &n.children {
                let child_parent = self.nodes.get(c).and_then(|c| c.parent);
                if child_parent != Some(i) {
                    return Err(InvalidScene::ChildParentDiffers {
                        node: i,
                        child: c,
                        child_parent,
                    });
                }
            }
            if let Some(&m) = n.meshes.iter().find(|&&m| m >= self.meshes.len()) {
                return Err(InvalidScene::NodeMeshOutOfRange {
                    node: i,
                    mesh: m,
                    meshes: self.meshes.len(),
                });
            }
        }
        for (i, m) in self.meshes.iter().enumerate() {
            if m.material >= self.materials.len() {
                return Err(InvalidScene::MeshMaterialOutOfRange {
                    mesh: i,
                    material: m.material,
                    materials: self.materials.len(),
                });
            }
            m.validate()
                .map_err(|error| InvalidScene::Mesh { mesh: i, error })?;
        }
        for (i, mat) in self.materials.iter().enumerate() {
            if let Some(e) = mat
                .textures
                .iter()
                .filter_map(|t| t.embedded)
                .find(|&e| e >= self.textures.len())
            {
                return Err(InvalidScene::EmbeddedTextureOutOfRange {
                    material: i,
                    texture: e,
                    textures: self.textures.len(),
                });
            }
        }
        for (animation, a) in self.animations.iter().enumerate() {
            for (channel, c) in a.morph_channels.iter().enumerate() {
                let named = self
                    .meshes
                    .get(c.mesh)
                    .is_some_and(|m| c.target < m.morph_targets.len());
                let keys = c
                    .keys
                    .iter()
                    .all(|k| k.time.is_finite() && k.value.is_finite())
                    && c.keys.windows(2).all(|k| k[0].time <= k[1].time);
                if !named || !keys {
                    return Err(InvalidScene::MorphChannel { animation, channel });
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        Bone, Material, Node, TextureKind, TextureRef, UvChannel, Vec3, Vec4, VertexWeight,
    };
    use alloc::string::ToString;
    use alloc::vec;
    use alloc::vec::Vec;

    fn triangle() -> Mesh {
        let mut m = Mesh {
            positions: vec![Vec3::ZERO; 3],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 2]);
        m
    }

    fn scene_with(m: Mesh) -> Scene {
        let mut s = Scene::with_root("root");
        s.materials.push(Material::default());
        s.meshes.push(m);
        s.nodes[0].meshes.push(0);
        s
    }

    fn uv(n: usize) -> UvChannel {
        UvChannel {
            components: 2,
            coords: vec![Vec3::ZERO; n],
            name: String::new(),
        }
    }

    /// Both texts of a mesh finding: `kiln-process`'s (`Display`) and `Scene::validate`'s.
    fn texts(m: Mesh) -> (String, String) {
        let e = m.validate().unwrap_err();
        let scene = scene_with(m).validate().unwrap_err();
        assert_eq!(
            scene,
            InvalidScene::Mesh {
                mesh: 0,
                error: e.clone()
            }
        );
        (e.to_string(), scene.to_string())
    }

    #[test]
    fn the_texts_each_caller_has_always_given() {
        let mut m = triangle();
        m.normals = vec![Vec3::Z; 2];
        assert_eq!(
            texts(m),
            (
                "2 normals for 3 vertices".into(),
                "invalid scene: mesh 0: 2 normals for 3 vertices".into()
            )
        );
        let mut m = triangle();
        m.uv_channels = vec![uv(3), uv(1)];
        assert_eq!(
            texts(m),
            (
                "UV channel 1 has 1 coords for 3 vertices".into(),
                "invalid scene: mesh 0: UV channel 1 has 1 coords".into()
            )
        );
        let mut m = triangle();
        m.color_channels = vec![vec![Vec4::ONE; 4]];
        assert_eq!(
            texts(m),
            (
                "colour channel 0 has 4 colours for 3 vertices".into(),
                "invalid scene: mesh 0: colour channel 0 has 4 colours".into()
            )
        );
        let mut m = triangle();
        m.face_sizes.push(2);
        assert_eq!(
            texts(m),
            (
                "face sizes sum to 5 but there are 3 indices".into(),
                "invalid scene: mesh 0: face sizes sum to 5, 3 indices".into()
            )
        );
        let mut m = triangle();
        m.indices[1] = 7;
        assert_eq!(
            texts(m),
            (
                "index 7 (at 1) past 3 vertices".into(),
                "invalid scene: mesh 0: index 7 past 3 vertices".into()
            )
        );
        let mut m = triangle();
        m.tangents = vec![Vec3::X; 3];
        let (process, scene) = texts(m);
        assert_eq!(process, "tangents without bitangents (or the reverse)");
        assert_eq!(
            scene,
            "invalid scene: mesh 0: tangents without bitangents (or the reverse)"
        );
        let mut m = triangle();
        m.uv_channels = vec![uv(3); 9];
        assert_eq!(texts(m).0, "9 UV channels (at most 8)");
        let mut m = triangle();
        m.color_channels = vec![vec![Vec4::ONE; 3]; 9];
        assert_eq!(texts(m).0, "9 colour channels (at most 8)");
        let mut m = triangle();
        m.bones.push(Bone {
            name: "arm".into(),
            offset_matrix: crate::Mat4::IDENTITY,
            weights: vec![VertexWeight {
                vertex: 3,
                weight: 1.0,
            }],
        });
        assert_eq!(m.validate_geometry(), Ok(()));
        assert_eq!(
            texts(m).1,
            "invalid scene: mesh 0: bone arm weights vertex 3"
        );
    }

    #[test]
    fn a_per_point_skin_is_checked_against_its_mesh() {
        use crate::{PointSkin, PointWeights};
        use alloc::sync::Arc;
        // Two points for the triangle's three vertices, one bone.
        let skin = |vertex_points: Vec<u32>, starts: Vec<u32>, weights: Vec<(u32, f32)>| {
            let mut m = triangle();
            m.bones.push(Bone {
                name: "arm".into(),
                offset_matrix: crate::Mat4::IDENTITY,
                weights: vec![],
            });
            m.point_skin = Some(PointSkin {
                vertex_points,
                weights: Arc::new(PointWeights { starts, weights }),
            });
            m.validate().map_err(|e| e.to_string())
        };
        let good = || {
            (
                vec![0, 1, u32::MAX],
                vec![0, 1, 2],
                vec![(0, 0.5), (0, 1.0)],
            )
        };
        let (v, s, w) = good();
        assert_eq!(skin(v, s, w), Ok(()));
        let (mut v, s, w) = good();
        v.pop();
        assert_eq!(
            skin(v, s, w).unwrap_err(),
            "per-point skin: not one control point per vertex"
        );
        let (v, _, w) = good();
        // Not from 0, decreasing, past the weights, short of them.
        for starts in [vec![1, 1, 2], vec![0, 2, 1], vec![0, 1, 3], vec![0, 1]] {
            assert_eq!(
                skin(v.clone(), starts, w.clone()).unwrap_err(),
                "per-point skin: the points' starts do not partition the weights"
            );
        }
        let (_, s, w) = good();
        assert_eq!(
            skin(vec![0, 2, 1], s, w).unwrap_err(),
            "per-point skin: a vertex names a control point past the weights"
        );
        let (v, s, _) = good();
        assert_eq!(
            skin(v, s, vec![(0, 0.5), (1, 1.0)]).unwrap_err(),
            "per-point skin: a weight names a bone past the mesh's bones"
        );
    }

    #[test]
    fn shared_positions_are_numbered_from_the_points_they_name() {
        use crate::SharedPositions;
        let mut scratch = alloc::vec::Vec::new();
        let numbered = |of_vertex: Vec<u32>, points: usize, scratch: &mut Vec<u32>| {
            SharedPositions::numbered(of_vertex, points, scratch).map(|s| (s.of_vertex, s.points))
        };
        // No more points than vertices: kept.
        assert_eq!(
            numbered(vec![2, 0, 2], 3, &mut scratch),
            Some((vec![2, 0, 2], 3))
        );
        // More: from 0 in order of first use, the scratch left clear for the next call.
        assert_eq!(
            numbered(vec![7, 3, 7], 9, &mut scratch),
            Some((vec![0, 1, 0], 2))
        );
        assert!(scratch.iter().all(|&n| n == u32::MAX));
        assert_eq!(
            numbered(vec![3, 8, 3], 9, &mut scratch),
            Some((vec![0, 1, 0], 2))
        );
        // A point past the count (or none, u32::MAX): no shared positions.
        assert_eq!(numbered(vec![0, 3, 1], 3, &mut scratch), None);
        assert_eq!(numbered(vec![0, u32::MAX], 9, &mut scratch), None);
    }

    #[test]
    fn vertex_points_are_the_shared_positions_else_the_skins() {
        use crate::{PointSkin, PointWeights, SharedPositions};
        let mut m = triangle();
        assert_eq!(m.vertex_points(), None);
        m.point_skin = Some(PointSkin {
            vertex_points: vec![5, 0, 5],
            weights: alloc::sync::Arc::new(PointWeights {
                starts: vec![0; 7],
                weights: vec![],
            }),
        });
        assert_eq!(m.vertex_points(), Some((&[5, 0, 5][..], 6)));
        m.shared_positions = Some(SharedPositions {
            of_vertex: vec![0, 1, 0],
            points: 2,
        });
        assert_eq!(m.vertex_points(), Some((&[0, 1, 0][..], 2)));
    }

    #[test]
    fn shared_positions_are_checked_against_their_mesh() {
        let check = |of_vertex: Vec<u32>, points: u32| {
            let mut m = triangle();
            m.shared_positions = Some(crate::SharedPositions { of_vertex, points });
            m.validate_geometry().map_err(|e| e.to_string())
        };
        assert_eq!(check(vec![0, 1, 0], 2), Ok(()));
        // A point no vertex names is allowed.
        assert_eq!(check(vec![0, 2, 0], 3), Ok(()));
        assert_eq!(
            check(vec![0, 1], 2).unwrap_err(),
            "shared positions: not one point per vertex"
        );
        assert_eq!(
            check(vec![0, 1, 2], 4).unwrap_err(),
            "shared positions: more points than vertices"
        );
        assert_eq!(
            check(vec![0, 2, 1], 2).unwrap_err(),
            "shared positions: a vertex names a point past the count"
        );
    }

    #[test]
    fn a_mesh_broken_in_every_way_reports_the_first_rule() {
        // Each step removes the finding reported before and checks the next one comes out.
        let mut m = triangle();
        m.normals = vec![Vec3::Z; 1];
        m.tangents = vec![Vec3::X; 3];
        m.uv_channels = vec![uv(1); 9];
        m.color_channels = vec![vec![Vec4::ONE; 1]; 9];
        m.face_sizes.push(1);
        m.indices[0] = 9;
        m.shared_positions = Some(crate::SharedPositions {
            of_vertex: vec![0, 0, 1],
            points: 1,
        });
        m.bones.push(Bone {
            name: "b".into(),
            offset_matrix: crate::Mat4::IDENTITY,
            weights: vec![VertexWeight {
                vertex: 5,
                weight: 1.0,
            }],
        });
        m.morph_targets.push(crate::MorphTarget {
            name: "smile".into(),
            weight: 0.0,
            shapes: vec![],
        });
        let mut order = Vec::new();
        while let Err(e) = m.validate() {
            order.push(e.to_string());
            match e {
                MeshError::AttributeLength { .. } => m.normals.clear(),
                MeshError::TangentsWithoutBitangents { .. } => m.tangents.clear(),
                MeshError::TooManyUvChannels { .. } => m.uv_channels.truncate(1),
                MeshError::TooManyColorChannels { .. } => m.color_channels.truncate(1),
                MeshError::UvChannelLength { .. } => m.uv_channels.clear(),
                MeshError::ColorChannelLength { .. } => m.color_channels.clear(),
                MeshError::FaceSizes { .. } => {
                    m.face_sizes.pop();
                }
                MeshError::IndexOutOfRange { .. } => m.indices[0] = 0,
                MeshError::BoneWeightOutOfRange { .. } => m.bones.clear(),
                MeshError::PointSkin { .. } => m.point_skin = None,
                MeshError::SharedPositions { .. } => m.shared_positions = None,
                MeshError::MorphTarget { .. } => m.morph_targets.clear(),
                MeshError::TooManyVertices { .. } => unreachable!(),
            }
        }
        assert_eq!(
            order,
            [
                "1 normals for 3 vertices",
                "tangents without bitangents (or the reverse)",
                "9 UV channels (at most 8)",
                "9 colour channels (at most 8)",
                "UV channel 0 has 1 coords for 3 vertices",
                "colour channel 0 has 1 colours for 3 vertices",
                "face sizes sum to 4 but there are 3 indices",
                "index 9 (at 0) past 3 vertices",
                "shared positions: a vertex names a point past the count",
                "bone b weights vertex 5",
                "morph target 0 (smile): no shape",
            ]
        );
    }

    #[test]
    fn morph_target_rules_each_name_their_shape() {
        use crate::{MorphShape, MorphTarget};
        let shape = |full_weight: f32, vertices: Vec<u32>, n: usize| MorphShape {
            full_weight,
            vertices,
            positions: vec![Vec3::X; n],
            ..MorphShape::default()
        };
        let check = |shapes: Vec<MorphShape>| {
            let mut m = triangle();
            m.morph_targets.push(MorphTarget {
                name: "t".into(),
                weight: 0.5,
                shapes,
            });
            m.validate().err().map(|e| e.to_string())
        };
        // Dense (3 offsets), sparse, and an in-between chain are all fine.
        assert_eq!(check(vec![shape(1.0, vec![], 3)]), None);
        // No vertices and no offsets: a shape that moves nothing (not a short dense one).
        assert_eq!(check(vec![shape(1.0, vec![], 0)]), None);
        assert_eq!(
            check(vec![shape(0.5, vec![0, 2], 2), shape(1.0, vec![1], 1)]),
            None
        );
        let bad = |shapes| check(shapes).unwrap();
        assert_eq!(
            bad(vec![shape(1.0, vec![], 2)]),
            "morph target 0 (t): shape 0: 2 positions offsets, expected 3"
        );
        assert_eq!(
            bad(vec![shape(1.0, vec![2, 1], 2)]),
            "morph target 0 (t): shape 0: vertices not ascending or past the mesh's end"
        );
        assert_eq!(
            bad(vec![shape(1.0, vec![3], 1)]),
            "morph target 0 (t): shape 0: vertices not ascending or past the mesh's end"
        );
        assert_eq!(
            bad(vec![shape(1.0, vec![], 3), shape(1.0, vec![0], 1)]),
            "morph target 0 (t): shape 1: full weight zero, not finite or not above the previous one"
        );
        assert_eq!(
            bad(vec![shape(0.0, vec![], 3)]),
            "morph target 0 (t): shape 0: full weight zero, not finite or not above the previous one"
        );
        let mut s = shape(1.0, vec![0], 1);
        s.normals = vec![Vec3::Y; 2];
        assert_eq!(
            bad(vec![s]),
            "morph target 0 (t): shape 0: 2 normals offsets, expected 1"
        );
        let mut s = shape(1.0, vec![0], 1);
        s.positions[0].y = f32::NAN;
        assert_eq!(
            bad(vec![s]),
            "morph target 0 (t): shape 0: an offset is not finite"
        );
    }

    #[test]
    fn morph_channels_name_a_target_and_keep_their_keys_sorted() {
        use crate::{Animation, MorphChannel, MorphShape, MorphTarget, WeightKey};
        let mut s = scene_with(triangle());
        s.meshes[0].morph_targets.push(MorphTarget {
            name: "t".into(),
            weight: 0.0,
            shapes: vec![MorphShape {
                full_weight: 1.0,
                positions: vec![Vec3::X; 3],
                ..MorphShape::default()
            }],
        });
        let key = |time, value| WeightKey { time, value };
        let with = |mesh, target, keys: Vec<WeightKey>| {
            let mut s = s.clone();
            s.animations.push(Animation {
                morph_channels: vec![MorphChannel { mesh, target, keys }],
                ..Animation::default()
            });
            s.validate().err().map(|e| e.to_string())
        };
        assert_eq!(with(0, 0, vec![key(0.0, 0.0), key(1.0, 1.0)]), None);
        let bad =
            "invalid scene: animation 0: morph channel 0 names no target or has unsorted keys";
        assert_eq!(with(0, 1, vec![]).as_deref(), Some(bad));
        assert_eq!(with(1, 0, vec![]).as_deref(), Some(bad));
        assert_eq!(
            with(0, 0, vec![key(1.0, 0.0), key(0.0, 1.0)]).as_deref(),
            Some(bad)
        );
        assert_eq!(with(0, 0, vec![key(0.0, f32::NAN)]).as_deref(), Some(bad));
    }

    #[test]
    fn scene_findings_name_the_element_and_keep_their_text() {
        let cases: Vec<(Scene, InvalidScene, &str)> = vec![
            (Scene::default(), InvalidScene::NoRoot, "no root node"),
            (
                {
                    let mut s = Scene::with_root("r");
                    s.nodes[0].parent = Some(0);
                    s
                },
                InvalidScene::RootHasParent { parent: 0 },
                "root node has a parent",
            ),
            (
                {
                    let mut s = Scene::with_root("r");
                    s.nodes.push(Node::new("loose"));
                    s
                },
                InvalidScene::NoEarlierParent {
                    node: 1,
                    name: "loose".into(),
                    parent: None,
                },
                "node 1 (loose) has no earlier parent",
            ),
            (
                {
                    let mut s = Scene::with_root("r");
                    let mut n = Node::new("n");
                    n.parent = Some(0);
                    s.nodes.push(n);
                    s
                },
                InvalidScene::MissingFromParent { node: 1, parent: 0 },
                "node 1 is missing from its parent's children",
            ),
            (
                {
                    let mut s = Scene::with_root("r");
                    s.nodes[0].children.push(4);
                    s
                },
                InvalidScene::ChildParentDiffers {
                    node: 0,
                    child: 4,
                    child_parent: None,
                },
                "node 0 lists child 4 whose parent differs",
            ),
            (
                {
                    let mut s = scene_with(triangle());
                    s.nodes[0].meshes.push(2);
                    s
                },
                InvalidScene::NodeMeshOutOfRange {
                    node: 0,
                    mesh: 2,
                    meshes: 1,
                },
                "node 0 references mesh 2 of 1",
            ),
            (
                {
                    let mut s = scene_with(triangle());
                    s.meshes[0].material = 1;
                    s.meshes[0].indices[0] = 9; // the material comes first
                    s
                },
                InvalidScene::MeshMaterialOutOfRange {
                    mesh: 0,
                    material: 1,
                    materials: 1,
                },
                "mesh 0 uses material 1 of 1",
            ),
            (
                {
                    let mut s = scene_with(triangle());
                    s.materials[0].textures.push(TextureRef {
                        kind: TextureKind::Diffuse,
                        path: "*0".into(),
                        embedded: Some(0),
                        uv_channel: 0,
                    });
                    s
                },
                InvalidScene::EmbeddedTextureOutOfRange {
                    material: 0,
                    texture: 0,
                    textures: 0,
                },
                "material 0 references embedded texture 0",
            ),
        ];
        for (scene, error, reason) in cases {
            assert_eq!(scene.validate(), Err(error.clone()));
            assert_eq!(error.reason().to_string(), reason);
            assert_eq!(error.to_string(), alloc::format!("invalid scene: {reason}"));
        }
        assert_eq!(scene_with(triangle()).validate(), Ok(()));
    }
}
