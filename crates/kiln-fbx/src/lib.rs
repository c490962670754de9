//! FBX for kiln, layer 1: the tree of nodes with typed properties that every FBX file shares,
//! read from binary (versions 2000–7999, either byte order; 3000, 6100, 7400, 7500 and 7700
//! are tested) and ASCII (5.8, 6.1 and 7.x) files into one [`Document`], and a binary writer
//! ([`write_binary`]). The decisions behind it and their measurements are in
//! `docs/fbx-tree.md`; what each version looks like, in `docs/fbx.md`.
//!
//! ```
//! use kiln_fbx::{Document, OwnedNode, OwnedValue, WriteOptions, write_binary};
//!
//! let tree = [OwnedNode::new("Objects").with_child(
//!     OwnedNode::new("Geometry")
//!         .with(OwnedValue::I64(42))
//!         .with_child(OwnedNode::new("Vertices").with(OwnedValue::F64Array(vec![0.0, 1.0, 2.0]))),
//! )];
//! let bytes = write_binary(&tree, &WriteOptions::V7500.compressed())?;
//! let doc = Document::parse(&bytes)?;
//! let geometry = doc.require_root("Objects")?.require_child("Geometry")?;
//! assert_eq!(geometry.get_i64(0)?, 42);
//! let vertices = geometry.require_child("Vertices")?.property(0)?.as_f64_array()?;
//! assert_eq!(&*vertices, &[0.0, 1.0, 2.0]);
//! # Ok::<(), kiln_fbx::Error>(())
//! ```
//!
//! # What it does
//! - [`Document::parse`] tells binary from ASCII by the magic and builds an arena of nodes in
//!   depth-first order; a [`Node`] finds children by name and gives typed access to its
//!   [`Property`]s, converting where FBX writers disagree (ASCII writes `0` where binary writes
//!   a double; 6.1 lists values where 7.x has an array: [`Node::f64_values`]).
//! - Zero-copy: names, strings, blobs and plain arrays are slices of the input; arrays are
//!   inflated (or parsed from ASCII text) only when asked for, into exactly the declared size;
//!   [`value::LeSlice`] reads a plain array in place.
//! - Errors ([`Error`]) carry the byte offset (binary) or line and column (ASCII), the node's
//!   path, the property index, and what was expected.
//!
//! # What it does not
//! Objects, connections, `Properties70` templates and geometry (the next layer, built on this
//! API only); unescaping ASCII strings (`&quot;` stays); splitting binary object names (they
//! keep their `name\0\x01class` form); writing ASCII; reading the binary footer.
//!
//! # Invariants
//! - Never panics on any input; memory stays within about 20× the input: counts are checked
//!   against the bytes that hold them before anything is reserved, and a compressed array
//!   inflates to its declared size at most (which deflate must reach: 1032:1 at most).
//! - No recursion a file can drive; nesting is limited ([`ParseOptions::max_depth`], default
//!   64, at most [`MAX_DEPTH_LIMIT`]).
//! - A binary file is accepted only up to its top-level null record (every earlier truncation
//!   is an error); names are checked UTF-8, string values when read as `&str`.
//! - The writer's output parses back to the same tree ([`Document::to_owned_nodes`]).
#![no_std]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod ascii;
mod base64;
mod big_endian;
mod binary;
mod builder;
mod document;
mod error;
mod inflate;
mod number;
mod owned;
mod parse;
pub mod value;
mod write;

pub use big_endian::{is_big_endian, to_little_endian};
pub use binary::MAGIC;
pub use builder::{MAX_DEPTH_LIMIT, ParseOptions};
pub use document::{Children, Document, Format, Node, NodePath, Property};
pub use error::{Error, ErrorKind, Location};
pub use owned::{OwnedNode, OwnedValue};
pub use value::{Array, ArrayEncoding, ArrayType, Element, LeIter, LeSlice, Raw, Value};
pub use write::{Compression, WriteOptions, write_binary, write_binary_big_endian};

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
