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
    /// `C`.
    Char(u8),
    /// `Y`.
    I16(i16),
    /// `I`.
    I32(i32),
    /// `L`.
    I64(i64),
    /// `F`.
    F32(f32),
    /// `D`.
    F64(f64),
    /// `S`.
    String(Vec<u8>),
    /// `R`.
    Raw(Vec<u8>),
    /// `b`.
    BoolArray(Vec<u8>),
    /// `c`.
    ByteArray(Vec<u8>),
    /// `i`.
    I32Array(Vec<i32>),
    /// `l`.
    I64Array(Vec<i64>),
    /// `f`.
    F32Array(Vec<f32>),
    /// `d`.
    F64Array(Vec<f64>),
}

impl OwnedValue {
    /// The binary type code.
    pub fn type_code(&self) -> u8 {
        match self {
            OwnedValue::Char(_) => b'C',
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
            (V::Char(a), V::Char(b)) => a == b,
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
