//! Up-front checks: every step that indexes vertex arrays runs them on the whole scene before it
//! changes anything, so a malformed scene is reported and left untouched instead of panicking.
//!
//! The mesh rules are kiln-scene's ([`kiln_scene::Mesh::validate_geometry`], the validator
//! `Scene::validate` also uses); the node walk is PreTransformVertices' own.

use core::fmt;

use crate::ProcessError;
use kiln_scene::Scene;

/// Checks what the vertex-indexing steps rely on, for every mesh: the first mesh that breaks
/// [`kiln_scene::Mesh::validate_geometry`] is the error. Bones are not checked: no step
/// indexes vertices by bone weights.
pub(crate) fn check_meshes(scene: &Scene) -> Result<(), ProcessError> {
    for (mesh, m) in scene.meshes.iter().enumerate() {
        m.validate_geometry()
            .map_err(|error| ProcessError::MalformedMesh { mesh, error })?;
    }
    Ok(())
}

/// Why the node tree cannot be walked ([`ProcessError::MalformedNodes`]).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NodeTreeError {
    /// [`Scene::nodes`] is empty.
    NoRoot,
    /// A node is reached a second time from the root: a cycle, or a child listed by two
    /// parents (or twice by one).
    ReachedTwice {
        /// The node reached again.
        node: usize,
    },
    /// A node draws a mesh past the end of [`Scene::meshes`].
    MeshOutOfRange {
        /// The node.
        node: usize,
        /// The mesh index it names.
        mesh: usize,
        /// `meshes.len()`, the bound.
        meshes: usize,
    },
    /// A node lists a child past the end of [`Scene::nodes`].
    ChildOutOfRange {
        /// The node.
        node: usize,
        /// The child index it lists.
        child: usize,
        /// `nodes.len()`, the bound.
        nodes: usize,
    },
}

impl fmt::Display for NodeTreeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NodeTreeError::NoRoot => f.write_str("no root node"),
            NodeTreeError::ReachedTwice { node } => {
                write!(f, "node {node} is reached twice (cycle or shared child)")
            }
            NodeTreeError::MeshOutOfRange { node, mesh, meshes } => {
                write!(f, "node {node} references mesh {mesh} of {meshes}")
            }
            NodeTreeError::ChildOutOfRange { node, child, nodes } => {
                write!(f, "node {node} has child {child} of {nodes}")
            }
        }
    }
}

impl std::error::Error for NodeTreeError {}

/// Depth-first pre-order of the node tree from the root, children in order, iteratively (no
/// recursion depth to exhaust). Fails on a child index out of range, on a node reached twice
/// (cycles, shared children) and on mesh references out of range.
pub(crate) fn node_order(scene: &Scene) -> Result<Vec<usize>, ProcessError> {
    let bad = |error: NodeTreeError| Err(ProcessError::MalformedNodes { error });
    if scene.nodes.is_empty() {
        return bad(NodeTreeError::NoRoot);
    }
    let mut seen = vec![false; scene.nodes.len()];
    let mut order = Vec::with_capacity(scene.nodes.len());
    let mut stack = vec![0usize];
    while let Some(id) = stack.pop() {
        if seen[id] {
            return bad(NodeTreeError::ReachedTwice { node: id });
        }
        seen[id] = true;
        order.push(id);
        let node = &scene.nodes[id];
        if let Some(&m) = node.meshes.iter().find(|&&m| m >= scene.meshes.len()) {
            return bad(NodeTreeError::MeshOutOfRange {
                node: id,
                mesh: m,
                meshes: scene.meshes.len(),
            });
        }
        for &c in node.children.iter().rev() {
            if c >= scene.nodes.len() {
                return bad(NodeTreeError::ChildOutOfRange {
                    node: id,
                    child: c,
                    nodes: scene.nodes.len(),
                });
            }
            stack.push(c);
        }
    }
    Ok(order)
}
