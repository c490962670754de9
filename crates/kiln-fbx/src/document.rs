//! The parsed tree: one arena of nodes in depth-first pre-order (a node's subtree is a
//! contiguous range, so children are found by skipping subtrees) and one array of properties.
//! [`Node`] and [`Property`] are `Copy` handles into it.

use alloc::borrow::Cow;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use core::fmt;

use crate::error::{Error, ErrorKind, Location};
use crate::value::{Array, Element, Value};

/// Binary or ASCII.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// `Kaydara FBX Binary`.
    Binary,
    /// Text.
    Ascii,
}

/// The parent of a top-level node (and, in the parsers, "no node open").
pub(crate) const NO_PARENT: u32 = u32::MAX;

#[derive(Clone, Debug)]
pub(crate) struct NodeRec<'a> {
    pub(crate) name: &'a str,
    /// Binary: the record's first byte; ASCII: the name's first byte.
    pub(crate) offset: usize,
    pub(crate) props_start: u32,
    pub(crate) props_len: u32,
    /// One past the last node of this node's subtree.
    pub(crate) subtree_end: u32,
    pub(crate) parent: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct PropRec<'a> {
    pub(crate) value: Value<'a>,
    pub(crate) offset: usize,
}

/// A parsed FBX file: the tree of nodes, borrowing names, strings, blobs and arrays from the
/// input bytes.
#[derive(Clone, Debug)]
pub struct Document<'a> {
    pub(crate) input: &'a [u8],
    pub(crate) format: Format,
    pub(crate) version: u32,
    pub(crate) nodes: Vec<NodeRec<'a>>,
    pub(crate) props: Vec<PropRec<'a>>,
}

impl<'a> Document<'a> {
    /// Binary or ASCII.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The FBX version (7400 for 7.4): binary files from the header; ASCII files from the
    /// `; FBX 7.4.0 project file` comment, else `FBXHeaderExtension/FBXVersion`, else 0.
    pub fn version(&self) -> u32 {
        self.version
    }

    /// The bytes this document borrows from.
    pub fn input(&self) -> &'a [u8] {
        self.input
    }

    /// The top-level nodes, in file order.
    pub fn roots(&self) -> Children<'_, 'a> {
        Children {
            doc: self,
            next: 0,
            end: self.nodes.len() as u32,
        }
    }

    /// The first top-level node named `name`.
    pub fn root(&self, name: &str) -> Option<Node<'_, 'a>> {
        self.roots().find(|n| n.name() == name)
    }

    /// The first top-level node named `name`, or an error naming it.
    pub fn require_root(&self, name: &str) -> Result<Node<'_, 'a>, Error> {
        self.root(name).ok_or_else(|| Error {
            location: Location::at(self.input, self.format == Format::Ascii, 0),
            path: String::new(),
            property: None,
            kind: ErrorKind::MissingChild(name.to_string()),
        })
    }

    /// Every node, depth-first in file order.
    pub fn nodes(&self) -> impl ExactSizeIterator<Item = Node<'_, 'a>> + '_ {
        (0..self.nodes.len() as u32).map(move |id| Node { doc: self, id })
    }

    /// The node at depth-first index `index` ([`Node::index`]).
    ///
    /// # Panics
    /// When `index >= self.node_count()`.
    pub fn node_at(&self, index: usize) -> Node<'_, 'a> {
        assert!(index < self.nodes.len(), "node index out of range");
        Node {
            doc: self,
            id: index as u32,
        }
    }

    /// Number of nodes.
    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    /// Number of properties of all nodes.
    pub fn property_count(&self) -> usize {
        self.props.len()
    }

    /// The location of a byte offset of the input: a byte offset for binary files, a line
    /// and column for ASCII ones.
    pub fn location(&self, offset: usize) -> Location {
        Location::at(self.input, self.format == Format::Ascii, offset)
    }

    fn error_at(&self, offset: usize, node: Option<u32>, kind: ErrorKind) -> Error {
        Error {
            location: self.location(offset),
            path: node.map_or_else(String::new, |id| Node { doc: self, id }.path().to_string()),
            property: None,
            kind,
        }
    }
}

/// A node of a [`Document`].
#[derive(Clone, Copy)]
pub struct Node<'d, 'a> {
    doc: &'d Document<'a>,
    id: u32,
}

impl fmt::Debug for Node<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Node")
            .field("path", &self.path().to_string())
            .field("properties", &self.rec().props_len)
            .finish()
    }
}

impl PartialEq for Node<'_, '_> {
    fn eq(&self, other: &Self) -> bool {
        core::ptr::eq(self.doc, other.doc) && self.id == other.id
    }
}

impl<'d, 'a> Node<'d, 'a> {
    fn rec(&self) -> &'d NodeRec<'a> {
        &self.doc.nodes[self.id as usize]
    }

    /// The document this node belongs to.
    pub fn document(&self) -> &'d Document<'a> {
        self.doc
    }

    /// This node's index in depth-first order ([`Document::nodes`]).
    pub fn index(&self) -> usize {
        self.id as usize
    }

    /// The node's name (borrowed from the input; checked to be UTF-8 when parsed).
    pub fn name(&self) -> &'a str {
        self.rec().name
    }

    /// Byte offset of the node in the input (binary: its record; ASCII: its name).
    pub fn offset(&self) -> usize {
        self.rec().offset
    }

    /// Where the node is, for messages.
    pub fn location(&self) -> Location {
        self.doc.location(self.offset())
    }

    /// The enclosing node; `None` at the top level.
    pub fn parent(&self) -> Option<Node<'d, 'a>> {
        let p = self.rec().parent;
        (p != NO_PARENT).then_some(Node {
            doc: self.doc,
            id: p,
        })
    }

    /// Nesting depth: 0 for top-level nodes.
    pub fn depth(&self) -> usize {
        let mut depth = 0;
        let mut n = *self;
        while let Some(p) = n.parent() {
            depth += 1;
            n = p;
        }
        depth
    }

    /// The node's path from the root, displayed as `Objects/Geometry/Vertices`.
    pub fn path(&self) -> NodePath<'d, 'a> {
        NodePath(*self)
    }

    /// The children, in file order.
    pub fn children(&self) -> Children<'d, 'a> {
        Children {
            doc: self.doc,
            next: self.id + 1,
            end: self.rec().subtree_end,
        }
    }

    /// Whether the node has children.
    pub fn has_children(&self) -> bool {
        self.rec().subtree_end > self.id + 1
    }

    /// The first child named `name`.
    pub fn child(&self, name: &str) -> Option<Node<'d, 'a>> {
        self.children().find(|n| n.name() == name)
    }

    /// The children named `name`, in file order.
    pub fn children_named<'n>(
        &self,
        name: &'n str,
    ) -> impl Iterator<Item = Node<'d, 'a>> + use<'d, 'a, 'n> {
        self.children().filter(move |n| n.name() == name)
    }

    /// The first child named `name`, or an error naming this node and the child.
    pub fn require_child(&self, name: &str) -> Result<Node<'d, 'a>, Error> {
        self.child(name).ok_or_else(|| {
            self.doc.error_at(
                self.offset(),
                Some(self.id),
                ErrorKind::MissingChild(name.to_string()),
            )
        })
    }

    /// The node's properties, in order.
    pub fn properties(&self) -> impl ExactSizeIterator<Item = Property<'d, 'a>> + use<'d, 'a> {
        let node = *self;
        (0..self.rec().props_len as usize).map(move |index| Property { node, index })
    }

    /// Number of properties.
    pub fn property_count(&self) -> usize {
        self.rec().props_len as usize
    }

    /// Property `index`, or an error naming the node and how many it has.
    pub fn property(&self, index: usize) -> Result<Property<'d, 'a>, Error> {
        let count = self.property_count();
        if index < count {
            Ok(Property { node: *self, index })
        } else {
            Err(self.doc.error_at(
                self.offset(),
                Some(self.id),
                ErrorKind::MissingProperty { index, count },
            ))
        }
    }

    /// The value of property `index`, if there is one.
    pub fn value(&self, index: usize) -> Option<Value<'a>> {
        self.property(index).ok().map(|p| p.value())
    }

    /// Property `index` as i32 (see [`Property::as_i32`]).
    pub fn get_i32(&self, index: usize) -> Result<i32, Error> {
        self.property(index)?.as_i32()
    }

    /// Property `index` as i64 (see [`Property::as_i64`]).
    pub fn get_i64(&self, index: usize) -> Result<i64, Error> {
        self.property(index)?.as_i64()
    }

    /// Property `index` as f64 (see [`Property::as_f64`]).
    pub fn get_f64(&self, index: usize) -> Result<f64, Error> {
        self.property(index)?.as_f64()
    }

    /// Property `index` as a UTF-8 string (see [`Property::as_str`]).
    pub fn get_str(&self, index: usize) -> Result<&'a str, Error> {
        self.property(index)?.as_str()
    }

    /// The node's numbers as one f64 array: its single array property (FBX 7), or all its
    /// properties when they are scalars (FBX 6 writes `Vertices: 1,2,3,...`).
    pub fn f64_values(&self) -> Result<Cow<'a, [f64]>, Error> {
        self.values_as::<f64>()
    }

    /// Like [`Node::f64_values`], as f32.
    pub fn f32_values(&self) -> Result<Cow<'a, [f32]>, Error> {
        self.values_as::<f32>()
    }

    /// Like [`Node::f64_values`], as i32 (integers only, range-checked).
    pub fn i32_values(&self) -> Result<Cow<'a, [i32]>, Error> {
        self.values_as::<i32>()
    }

    /// Like [`Node::f64_values`], as i64 (integers only).
    pub fn i64_values(&self) -> Result<Cow<'a, [i64]>, Error> {
        self.values_as::<i64>()
    }

    fn values_as<T: Scalarish>(&self) -> Result<Cow<'a, [T]>, Error> {
        if self.property_count() == 1 {
            let p = Property {
                node: *self,
                index: 0,
            };
            if let Value::Array(_) = p.value() {
                return p.as_array_of::<T>();
            }
        }
        self.properties().map(|p| T::from_property(&p)).collect()
    }
}

/// The element types of [`Node::f64_values`] and friends.
trait Scalarish: Element {
    fn from_property(p: &Property<'_, '_>) -> Result<Self, Error>;
}

impl Scalarish for f64 {
    fn from_property(p: &Property<'_, '_>) -> Result<Self, Error> {
        p.as_f64()
    }
}

impl Scalarish for f32 {
    fn from_property(p: &Property<'_, '_>) -> Result<Self, Error> {
        p.as_f32()
    }
}

impl Scalarish for i32 {
    fn from_property(p: &Property<'_, '_>) -> Result<Self, Error> {
        p.as_i32()
    }
}

impl Scalarish for i64 {
    fn from_property(p: &Property<'_, '_>) -> Result<Self, Error> {
        p.as_i64()
    }
}

/// A node's path from the root; displays as `Objects/Geometry/Vertices`.
#[derive(Clone, Copy)]
pub struct NodePath<'d, 'a>(Node<'d, 'a>);

impl NodePath<'_, '_> {
    /// The names from the root to the node.
    pub fn names(&self) -> Vec<&str> {
        let mut names = Vec::new();
        let mut n = Some(self.0);
        while let Some(node) = n {
            names.push(node.name());
            n = node.parent();
        }
        names.reverse();
        names
    }
}

impl fmt::Display for NodePath<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, name) in self.names().iter().enumerate() {
            if i > 0 {
                f.write_str("/")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl fmt::Debug for NodePath<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
}

/// Iterator over sibling nodes.
#[derive(Clone)]
pub struct Children<'d, 'a> {
    doc: &'d Document<'a>,
    next: u32,
    end: u32,
}

impl<'d, 'a> Iterator for Children<'d, 'a> {
    type Item = Node<'d, 'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.next >= self.end {
            return None;
        }
        let id = self.next;
        self.next = self.doc.nodes[id as usize].subtree_end;
        Some(Node { doc: self.doc, id })
    }
}

impl core::iter::FusedIterator for Children<'_, '_> {}

/// One property of a node; typed accessors return errors that name the node's path, the
/// property's index and its location.
#[derive(Clone, Copy)]
pub struct Property<'d, 'a> {
    node: Node<'d, 'a>,
    index: usize,
}

impl fmt::Debug for Property<'_, '_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Property")
            .field("path", &self.node.path().to_string())
            .field("index", &self.index)
            .field("value", &self.value())
            .finish()
    }
}

impl<'d, 'a> Property<'d, 'a> {
    fn rec(&self) -> &'d PropRec<'a> {
        let start = self.node.rec().props_start as usize;
        &self.node.doc.props[start + self.index]
    }

    /// The node this property belongs to.
    pub fn node(&self) -> Node<'d, 'a> {
        self.node
    }

    /// Index within the node.
    pub fn index(&self) -> usize {
        self.index
    }

    /// The typed value, as stored (arrays and blobs still encoded; see the `as_*` methods for
    /// decoded, converted access).
    pub fn value(&self) -> Value<'a> {
        self.rec().value
    }

    /// Byte offset of the property in the input (binary: its type code; ASCII: its first
    /// character).
    pub fn offset(&self) -> usize {
        self.rec().offset
    }

    /// Where the property is, for messages.
    pub fn location(&self) -> Location {
        self.node.doc.location(self.offset())
    }

    /// An error about this property.
    pub fn error(&self, kind: ErrorKind) -> Error {
        let mut e = self
            .node
            .doc
            .error_at(self.offset(), Some(self.node.id), kind);
        e.property = Some(self.index);
        e
    }

    fn wrong(&self, expected: &'static str) -> Error {
        self.error(ErrorKind::WrongType {
            expected,
            found: self.value().type_name(),
        })
    }

    fn out_of_range(&self, value: i64, target: &'static str) -> Error {
        self.error(ErrorKind::OutOfRange {
            value: value.to_string(),
            index: 0,
            target,
        })
    }

    /// A `C` byte as a boolean (non-zero is true: FBX writes 1 and the SDK writes `'T'`/`'Y'`
    /// for some flags); integers are accepted too (ASCII writes `0`/`1`).
    pub fn as_bool(&self) -> Result<bool, Error> {
        self.value()
            .to_i64()
            .map(|v| v != 0)
            .ok_or_else(|| self.wrong("bool"))
    }

    /// An integer (`C Y I L`) that fits in i32.
    pub fn as_i32(&self) -> Result<i32, Error> {
        let v = self.as_i64().map_err(|_| self.wrong("i32"))?;
        i32::try_from(v).map_err(|_| self.out_of_range(v, "i32"))
    }

    /// An integer (`C Y I L`).
    pub fn as_i64(&self) -> Result<i64, Error> {
        self.value().to_i64().ok_or_else(|| self.wrong("i64"))
    }

    /// A number (`C Y I L F D`) as f64; ASCII writes `0` for a double property, so integers
    /// are accepted.
    pub fn as_f64(&self) -> Result<f64, Error> {
        self.value().to_f64().ok_or_else(|| self.wrong("f64"))
    }

    /// A number as f32 (f64 values rounded).
    pub fn as_f32(&self) -> Result<f32, Error> {
        match self.value() {
            Value::F32(v) => Ok(v),
            other => other
                .to_f64()
                .map(|v| v as f32)
                .ok_or_else(|| self.wrong("f32")),
        }
    }

    /// A string's bytes (`S`), borrowed.
    pub fn as_bytes(&self) -> Result<&'a [u8], Error> {
        match self.value() {
            Value::String(s) => Ok(s),
            _ => Err(self.wrong("string")),
        }
    }

    /// A string (`S`) checked to be UTF-8, borrowed.
    pub fn as_str(&self) -> Result<&'a str, Error> {
        let bytes = self.as_bytes()?;
        core::str::from_utf8(bytes).map_err(|_| self.error(ErrorKind::NotUtf8))
    }

    /// A blob (`R`): borrowed in binary files, decoded from base64 in ASCII ones.
    pub fn as_raw(&self) -> Result<Cow<'a, [u8]>, Error> {
        match self.value() {
            Value::Raw(r) => r.decode().map_err(|k| self.error(k)),
            _ => Err(self.wrong("raw blob")),
        }
    }

    /// An array, undecoded.
    pub fn as_array(&self) -> Result<Array<'a>, Error> {
        match self.value() {
            Value::Array(a) => Ok(a),
            _ => Err(self.wrong("array")),
        }
    }

    /// An array's elements as `T` ([`Array::decode`]: borrowed or decoded, converted).
    pub fn as_array_of<T: Element>(&self) -> Result<Cow<'a, [T]>, Error> {
        match self.value() {
            Value::Array(a) => a.decode::<T>().map_err(|k| self.error(k)),
            _ => Err(self.wrong(T::ARRAY_NAME)),
        }
    }

    /// An array as f64 (from any number array).
    pub fn as_f64_array(&self) -> Result<Cow<'a, [f64]>, Error> {
        self.as_array_of::<f64>()
    }

    /// An array as f32 (from any number array; f64 rounded).
    pub fn as_f32_array(&self) -> Result<Cow<'a, [f32]>, Error> {
        self.as_array_of::<f32>()
    }

    /// An array as i32 (from integer arrays, range-checked).
    pub fn as_i32_array(&self) -> Result<Cow<'a, [i32]>, Error> {
        self.as_array_of::<i32>()
    }

    /// An array as i64 (from integer arrays).
    pub fn as_i64_array(&self) -> Result<Cow<'a, [i64]>, Error> {
        self.as_array_of::<i64>()
    }

    /// A `b`/`c` array as booleans (non-zero is true).
    pub fn as_bool_array(&self) -> Result<Vec<bool>, Error> {
        Ok(self.as_array_of::<u8>()?.iter().map(|&b| b != 0).collect())
    }
}
