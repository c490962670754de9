//! What the two parsers share: the limits they enforce ([`ParseOptions`], [`MAX_DEPTH_LIMIT`])
//! and the [`Builder`] they push nodes and properties into, in depth-first pre-order, and
//! that yields the [`Document`].

use alloc::string::String;
use alloc::vec::Vec;

use crate::document::{Document, Format, NO_PARENT, NodeRec, PropRec};
use crate::error::ErrorKind;

/// Hard ceiling for [`ParseOptions::max_depth`]: code that walks a tree recursively (a
/// caller's, or the drop of an [`crate::OwnedNode`]) stays within this depth.
pub const MAX_DEPTH_LIMIT: usize = 1024;

/// Parsing limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseOptions {
    /// Deepest nesting accepted: top-level nodes are at depth 0 and a node at depth
    /// `max_depth - 1` may not have children. Real files nest about 6 deep. Clamped to
    /// [`MAX_DEPTH_LIMIT`].
    pub max_depth: usize,
    /// ASCII files: read every number that is not an integer as Assimp 5.2 does (its
    /// `fast_atof` into an `f32`, [`kiln_scene::fast_atof`]) instead of correctly rounded:
    /// about one value in ten of 1 or more is then one ulp off the correctly rounded `f32`, as
    /// in Assimp, and `f64` reads give that `f32`. For the Assimp-conformant import
    /// (`kiln-fbx-scene` sets it); binary files are not affected. Default: off.
    pub assimp_numbers: bool,
}

impl Default for ParseOptions {
    fn default() -> Self {
        ParseOptions {
            max_depth: 64,
            assimp_numbers: false,
        }
    }
}

/// Collects the document's nodes and properties while a parser runs.
pub(crate) struct Builder<'a> {
    pub(crate) nodes: Vec<NodeRec<'a>>,
    pub(crate) props: Vec<PropRec<'a>>,
}

impl<'a> Builder<'a> {
    pub(crate) fn new(input_len: usize) -> Self {
        // A guess from typical files (about 60 bytes a node, 25 a property), capped so
        // that a large file of arrays does not reserve for nodes it does not have.
        Builder {
            nodes: Vec::with_capacity((input_len / 64).min(1 << 16)),
            props: Vec::with_capacity((input_len / 32).min(1 << 17)),
        }
    }

    /// Opens a node whose properties follow; returns its id.
    pub(crate) fn open(
        &mut self,
        name: &'a str,
        offset: usize,
        parent: u32,
    ) -> Result<u32, ErrorKind> {
        let id = u32::try_from(self.nodes.len()).map_err(|_| ErrorKind::TooManyNodes)?;
        if id == NO_PARENT {
            return Err(ErrorKind::TooManyNodes);
        }
        let props_start = u32::try_from(self.props.len()).map_err(|_| ErrorKind::TooManyNodes)?;
        self.nodes.push(NodeRec {
            name,
            offset,
            props_start,
            props_len: 0,
            subtree_end: id + 1,
            parent,
        });
        Ok(id)
    }

    /// Records the properties pushed since `open` as the node's.
    pub(crate) fn end_properties(&mut self, id: u32) -> Result<(), ErrorKind> {
        let rec = &mut self.nodes[id as usize];
        rec.props_len = u32::try_from(self.props.len() - rec.props_start as usize)
            .map_err(|_| ErrorKind::TooManyNodes)?;
        Ok(())
    }

    /// Closes a node: its subtree ends with the last node pushed.
    pub(crate) fn close(&mut self, id: u32) {
        let end = self.nodes.len() as u32;
        self.nodes[id as usize].subtree_end = end;
    }

    /// The path of the open node `id` (for errors while parsing).
    pub(crate) fn path(&self, mut id: u32) -> String {
        let mut names = Vec::new();
        while id != NO_PARENT {
            let rec = &self.nodes[id as usize];
            names.push(rec.name);
            id = rec.parent;
        }
        names.reverse();
        names.join("/")
    }

    /// The document of the nodes and properties pushed.
    pub(crate) fn finish(self, input: &'a [u8], format: Format, version: u32) -> Document<'a> {
        Document {
            input,
            format,
            version,
            nodes: self.nodes,
            props: self.props,
        }
    }
}
