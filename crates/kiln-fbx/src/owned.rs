//! An owned tree: what the writer takes, and what a parsed [`Document`] decodes into (every
//! array inflated or parsed, every blob decoded) for comparisons and round trips.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use crate::document::{Document, Node};
use crate::error::Error;
use crate::value::{ArrayType, Value};

/// An owned property value. Equality compares floats by their bits, so NaNs with the same
/// payload are equal and `0.0 != -0.0`: the tree round-trips exactly.
#[derive(Clone, Debug)]
pub enum OwnedValue {
    /// `C`: one byte (FBX booleans and one-letter flags).
    Char(u8),
    /// `Z`: an unsigned byte (Maya's `UByte` properties).
    U8(u8),
    /// `Y`: a 16-bit integer.
    I16(i16),
    /// `I`: a 32-bit integer.
    I32(i32),
    /// `L`: a 64-bit integer (object ids, FBX times).
    I64(i64),
    /// `F`: a 32-bit float.
    F32(f32),
    /// `D`: a 64-bit float.
    F64(f64),
    /// `S`: string bytes as stored (not necessarily UTF-8; binary object names are
    /// `name\0\x01class`).
    String(Vec<u8>),
    /// `R`: a blob, decoded (ASCII files store it as base64).
    Raw(Vec<u8>),
    /// `b`: an array of booleans, one byte each (0 or 1).
    BoolArray(Vec<u8>),
    /// `c`: an array of bytes.
    ByteArray(Vec<u8>),
    /// `i`: an array of 32-bit integers (polygon vertex indices, layer indices).
    I32Array(Vec<i32>),
    /// `l`: an array of 64-bit integers (key times).
    I64Array(Vec<i64>),
    /// `f`: an array of 32-bit floats (key values).
    F32Array(Vec<f32>),
    /// `d`: an array of 64-bit floats (vertices, normals, UVs, matrices).
    F64Array(Vec<f64>),
}

impl OwnedValue {
    /// The binary type code.
    pub fn type_code(&self) -> u8 {
        match self {
            OwnedValue::Char(_) => b'C',
            OwnedValue::U8(_) => b'Z',
            OwnedValue::I16(_) => b'Y',
            OwnedValue::I32(_) => b'I',
            OwnedValue::I64(_) => b'L',
            OwnedValue::F32(_) => b'F',
            OwnedValue::F64(_) => b'D',
            OwnedValue::String(_) => b'S',
            OwnedValue::Raw(_) => b'R',
            OwnedValue::BoolArray(_) => b'b',
            OwnedValue::ByteArray(_) => b'c',
            OwnedValue::I32Array(_) => b'i',
            OwnedValue::I64Array(_) => b'l',
            OwnedValue::F32Array(_) => b'f',
            OwnedValue::F64Array(_) => b'd',
        }
    }

    /// A string value from text.
    pub fn string(s: &str) -> Self {
        OwnedValue::String(s.as_bytes().to_vec())
    }
}

fn bits32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn bits64(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

impl PartialEq for OwnedValue {
    fn eq(&self, other: &Self) -> bool {
        use OwnedValue as V;
        match (self, other) {
            (V::Char(a), V::Char(b)) | (V::U8(a), V::U8(b)) => a == b,
            (V::I16(a), V::I16(b)) => a == b,
            (V::I32(a), V::I32(b)) => a == b,
            (V::I64(a), V::I64(b)) => a == b,
            (V::F32(a), V::F32(b)) => a.to_bits() == b.to_bits(),
            (V::F64(a), V::F64(b)) => a.to_bits() == b.to_bits(),
            (V::String(a), V::String(b)) => a == b,
            (V::Raw(a), V::Raw(b)) => a == b,
            (V::BoolArray(a), V::BoolArray(b)) => a == b,
            (V::ByteArray(a), V::ByteArray(b)) => a == b,
            (V::I32Array(a), V::I32Array(b)) => a == b,
            (V::I64Array(a), V::I64Array(b)) => a == b,
            (V::F32Array(a), V::F32Array(b)) => bits32(a, b),
            (V::F64Array(a), V::F64Array(b)) => bits64(a, b),
            _ => false,
        }
    }
}

/// An owned node.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct OwnedNode {
    /// Name (at most 255 bytes to be writable).
    pub name: String,
    /// Properties in order.
    pub properties: Vec<OwnedValue>,
    /// Children in order.
    pub children: Vec<OwnedNode>,
}

impl OwnedNode {
    /// A node with no properties or children.
    pub fn new(name: &str) -> Self {
        OwnedNode {
            name: name.to_string(),
            ..Default::default()
        }
    }

    /// Adds a property (builder style).
    pub fn with(mut self, value: OwnedValue) -> Self {
        self.properties.push(value);
        self
    }

    /// Adds a child (builder style).
    pub fn with_child(mut self, child: OwnedNode) -> Self {
        self.children.push(child);
        self
    }
}

impl<'a> Value<'a> {
    /// Decodes the value into an owned one (inflating, parsing text, decoding base64). ASCII
    /// arrays become the array type they were classified as.
    pub fn to_owned_value(&self) -> Result<OwnedValue, crate::ErrorKind> {
        Ok(match *self {
            Value::Char(v) => OwnedValue::Char(v),
            Value::U8(v) => OwnedValue::U8(v),
            Value::I16(v) => OwnedValue::I16(v),
            Value::I32(v) => OwnedValue::I32(v),
            Value::I64(v) => OwnedValue::I64(v),
            Value::F32(v) => OwnedValue::F32(v),
            Value::F64(v) => OwnedValue::F64(v),
            Value::String(s) => OwnedValue::String(s.to_vec()),
            Value::Raw(r) => OwnedValue::Raw(r.decode()?.into_owned()),
            Value::Array(a) => match a.ty() {
                ArrayType::Bool => OwnedValue::BoolArray(a.decode::<u8>()?.into_owned()),
                ArrayType::Byte => OwnedValue::ByteArray(a.decode::<u8>()?.into_owned()),
                ArrayType::I32 => OwnedValue::I32Array(a.decode::<i32>()?.into_owned()),
                ArrayType::I64 => OwnedValue::I64Array(a.decode::<i64>()?.into_owned()),
                ArrayType::F32 => OwnedValue::F32Array(a.decode::<f32>()?.into_owned()),
                ArrayType::F64 => OwnedValue::F64Array(a.decode::<f64>()?.into_owned()),
            },
        })
    }
}

impl Node<'_, '_> {
    /// This node and its subtree as an owned tree (decoding every value; the first value
    /// that fails to decode is the error).
    pub fn to_owned_node(&self) -> Result<OwnedNode, Error> {
        let doc = self.document();
        let first = self.index();
        let end = first + 1 + self.subtree_len();
        build(doc, first, end).map(|mut v| v.remove(0))
    }

    fn subtree_len(&self) -> usize {
        self.document().nodes[self.index()].subtree_end as usize - self.index() - 1
    }
}

impl Document<'_> {
    /// The whole tree as owned nodes (see [`Node::to_owned_node`]).
    pub fn to_owned_nodes(&self) -> Result<Vec<OwnedNode>, Error> {
        build(self, 0, self.nodes.len())
    }
}

/// Builds the owned forest of nodes `first..end` (a run of whole sibling subtrees) without
/// recursion: nodes are visited from the last to the first, so each node's children are
/// built before it and are taken from `slots`.
fn build(doc: &Document<'_>, first: usize, end: usize) -> Result<Vec<OwnedNode>, Error> {
    let mut slots: Vec<Option<OwnedNode>> = Vec::new();
    slots.resize_with(end - first, || None);
    for id in (first..end).rev() {
        let node = doc.node_at(id);
        let mut properties = Vec::with_capacity(node.property_count());
        for p in node.properties() {
            properties.push(p.value().to_owned_value().map_err(|k| p.error(k))?);
        }
        let children = node
            .children()
            .map(|c| {
                slots[c.index() - first]
                    .take()
                    .expect("child built before parent")
            })
            .collect();
        slots[id - first] = Some(OwnedNode {
            name: node.name().to_string(),
            properties,
            children,
        });
    }
    // The top-level nodes of the run: those whose slot is still filled.
    Ok(slots.into_iter().flatten().collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::write::{WriteOptions, write_binary};
    use alloc::vec;

    fn tree() -> Vec<OwnedNode> {
        vec![
            OwnedNode::new("Header").with(OwnedValue::I32(7400)),
            OwnedNode::new("Objects").with_child(
                OwnedNode::new("Geometry")
                    .with(OwnedValue::I64(42))
                    .with_child(
                        OwnedNode::new("Vertices").with(OwnedValue::F64Array(vec![0.0, 1.0, 2.0])),
                    )
                    .with_child(OwnedNode::new("Blob").with(OwnedValue::Raw(vec![1, 2, 3]))),
            ),
        ]
    }

    /// `Node::to_owned_node` copies one subtree (what a tool that rewrites part of a file
    /// needs), and is what `Document::to_owned_nodes` gives for each root.
    #[test]
    fn one_subtree_and_the_whole_tree_decode_alike() {
        for options in [WriteOptions::V7500, WriteOptions::V7500.compressed()] {
            let bytes = write_binary(&tree(), &options).unwrap();
            let doc = Document::parse(&bytes).unwrap();
            let all = doc.to_owned_nodes().unwrap();
            assert_eq!(all, tree());
            let objects = doc.require_root("Objects").unwrap();
            assert_eq!(objects.to_owned_node().unwrap(), tree()[1]);
            let geometry = objects.require_child("Geometry").unwrap();
            assert_eq!(geometry.to_owned_node().unwrap(), tree()[1].children[0]);
        }
    }

    /// `Value::to_owned_value` decodes compressed arrays and blobs, and names a bad one.
    #[test]
    fn values_decode_into_owned_ones() {
        let bytes = write_binary(&tree(), &WriteOptions::V7500.compressed()).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        let geometry = doc
            .require_root("Objects")
            .unwrap()
            .require_child("Geometry")
            .unwrap();
        let vertices = geometry.require_child("Vertices").unwrap();
        let value = vertices.property(0).unwrap().value();
        assert!(matches!(value, Value::Array(a) if a.is_compressed()));
        assert_eq!(
            value.to_owned_value(),
            Ok(OwnedValue::F64Array(vec![0.0, 1.0, 2.0]))
        );
        let blob = geometry.require_child("Blob").unwrap();
        assert_eq!(
            blob.property(0).unwrap().value().to_owned_value(),
            Ok(OwnedValue::Raw(vec![1, 2, 3]))
        );
    }
}
