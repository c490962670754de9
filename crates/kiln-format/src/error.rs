//! The one error type of the codecs, with the byte offset and the element where reading stopped.

use alloc::string::String;
use core::fmt;

/// The record of a file that a field belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Item {
    /// The `.mesh` header (the bone and mesh counts).
    Model,
    /// Bone `n` of a `.mesh`.
    Bone(u32),
    /// Mesh part `n` of a `.mesh`.
    Mesh(u32),
    /// The `.clip` header.
    Clip,
    /// Track `n` of a `.clip`.
    Track(u32),
}

/// A field of a binary file: the record and the field's name (`bone 3 name`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Element {
    /// The record.
    pub item: Item,
    /// The field's name in it (`name`, `vertex count`, …).
    pub field: &'static str,
}

impl Element {
    pub(crate) const fn new(item: Item, field: &'static str) -> Self {
        Element { item, field }
    }
}

impl fmt::Display for Element {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.item {
            Item::Model => f.write_str(self.field),
            Item::Bone(i) => write!(f, "bone {i} {}", self.field),
            Item::Mesh(i) => write!(f, "mesh {i} {}", self.field),
            Item::Clip => write!(f, "clip {}", self.field),
            Item::Track(i) => write!(f, "track {i} {}", self.field),
        }
    }
}

/// Where a material XML error lies: the material (by position in the file, from 0), the element,
/// and the byte position in the text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XmlContext {
    /// Index of the `<Material>` being read, `None` outside any material.
    pub material: Option<usize>,
    /// The element being read (`Ambient`, `Ambient R`), `None` at the document level.
    pub element: Option<String>,
    /// Byte position in the text where reading stopped: the end of the last markup read, or
    /// where quick-xml found a syntax error (counted after a byte-order mark).
    pub position: u64,
}

impl fmt::Display for XmlContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.material, &self.element) {
            (Some(m), Some(e)) => write!(f, "material {m} <{e}>")?,
            (Some(m), None) => write!(f, "material {m}")?,
            (None, Some(e)) => write!(f, "<{e}>")?,
            (None, None) => f.write_str("document")?,
        }
        write!(f, " at byte {}", self.position)
    }
}

/// Why a file could not be read.
///
/// Offsets are byte offsets from the start of the file. For a count or a string length,
/// `offset` is where that `u32` starts and `left` the number of bytes after it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FormatError {
    /// A fixed-size field is cut off by the end of the file.
    #[error("{element}: {needed} bytes needed at offset {offset}, only {left} left")]
    Truncated {
        /// The field.
        element: Element,
        /// Where it starts.
        offset: usize,
        /// Its size.
        needed: usize,
        /// Bytes left from `offset`.
        left: usize,
    },
    /// A string's length prefix points past the end of the file.
    #[error("{element}: length {length} at offset {offset} runs past the end ({left} bytes left)")]
    StringPastEnd {
        /// The string field.
        element: Element,
        /// Where its length prefix starts.
        offset: usize,
        /// The length it gives.
        length: u32,
        /// Bytes left after the prefix.
        left: usize,
    },
    /// An array's count needs more bytes than the file has left (or more than `usize` holds).
    /// `element_size` is the size of one element, or the smallest size one can have.
    #[error(
        "{element}: count {count} of at least {element_size} bytes each at offset {offset} \
         runs past the end ({left} bytes left)"
    )]
    CountPastEnd {
        /// The array field.
        element: Element,
        /// Where its count starts.
        offset: usize,
        /// The count it gives.
        count: u32,
        /// Bytes per element (or the smallest an element can take).
        element_size: usize,
        /// Bytes left after the count.
        left: usize,
    },
    /// A name's UTF-8 holds a character that stands for a byte (`U+10FF00..=U+10FFFF`, which
    /// [`crate::names`] reserves), so it could not be written back as it was; `offset` is its
    /// first byte.
    #[error("{element}: reserved character U+10FFxx at offset {offset}")]
    InvalidUtf8 {
        /// The string field.
        element: Element,
        /// The first invalid byte.
        offset: usize,
    },
    /// Bytes follow the last record.
    #[error("{count} trailing bytes at offset {offset} after the {after}")]
    TrailingBytes {
        /// Where they start.
        offset: usize,
        /// How many.
        count: usize,
        /// The last record read (`last mesh`, `last track`).
        after: &'static str,
    },
    /// The material XML is malformed or holds something the reader does not accept.
    #[error("material XML, {context}: {message}")]
    Xml {
        /// Where the reader was.
        context: XmlContext,
        /// What is wrong (quick-xml's message or the reader's own).
        message: String,
    },
}
