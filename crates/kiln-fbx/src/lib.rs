//! FBX for kiln, layer 1: the tree of nodes with typed properties that every FBX file shares,
//! read from binary (versions 6000–7999; 6100, 7400, 7500 and 7700 are tested) and ASCII
//! (6.1 and 7.x) files into one [`Document`], and a binary writer ([`write_binary`]).
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
//!   depth-first order; [`Node`] handles find children by name ([`Node::child`],
//!   [`Node::children_named`], [`Node::require_child`]) and give typed access to properties
//!   ([`Property::as_i64`], [`Property::as_f64`], [`Property::as_str`],
//!   [`Property::as_f64_array`]...), converting where FBX writers disagree (ASCII writes `0`
//!   where binary writes a double; 6.1 lists values where 7.x has an array:
//!   [`Node::f64_values`]).
//! - Zero-copy: names, strings, blobs and uncompressed arrays are slices of the input; arrays
//!   are inflated (or, in ASCII, parsed from their text) only when asked for, into exactly the
//!   declared size. [`value::LeSlice`] views a plain array without copying, reading unaligned
//!   little-endian elements.
//! - Errors ([`Error`]) carry the byte offset (binary) or line and column (ASCII), the node's
//!   path, the property index, and what was expected.
//!
//! # What it does not
//! Objects, connections, `Properties70` templates and geometry are the next layer's (it builds
//! on this API only). No unescaping of ASCII strings (`&quot;` stays as written); binary object
//! names keep their `name\0\x01class` form. No writer for ASCII. The binary footer is not read
//! or checked (it carries nothing the tree needs).
//!
//! # Invariants
//! - Never panics on any input, and never allocates more than the input justifies: the arena
//!   grows with the records actually read (a record takes at least 13 bytes, a property 2, so
//!   memory stays within about 20× the input); a count is used for a reservation only after it
//!   is checked against the bytes that hold it; a compressed array's declared size must be
//!   reachable by deflate from its compressed size (at most 1032:1), and inflation stops at that
//!   size (zlib bombs are capped by the count the header declares).
//! - No recursion that a file can drive: both parsers and the owned-tree conversion are loops
//!   with explicit stacks, and nesting is limited ([`ParseOptions::max_depth`], default 64, at
//!   most [`MAX_DEPTH_LIMIT`]).
//! - A binary file is accepted only up to and including its top-level null record: every
//!   truncation before that is an error. Names are UTF-8 (checked); string values are checked
//!   when read as `&str`.
//! - The writer's output parses back to the same tree ([`Document::to_owned_nodes`]).
//!
//! # Decisions
//! - **Hand-written, because no crate tokenizes FBX well**: `fbxcel` (the only maintained-ish
//!   Rust reader, dormant since 2022) reads binary 7.4/7.5 only, no ASCII, no `c` arrays, and
//!   decodes everything eagerly; Assimp's tokenizer recurses without limit and allocates a token
//!   per value; ufbx (C) is the model for bounds checking but is not Rust. The ASCII side uses
//!   `nom` for its tokens.
//! - **`transparentTest.fbx`** (Assimp's corpus) is rejected, as Assimp rejects it: every NUL
//!   byte of that file was replaced by a space (it has no NUL byte at all), so record lengths
//!   and null records are gone. The error says so ([`ErrorKind::NulBytesReplaced`]) instead of
//!   guessing a repair that real `0x20` bytes make ambiguous.
//! - **Inflater: `miniz_oxide`**, chosen by measurement against `zune-inflate` (the other
//!   pure-Rust inflater) on the zlib streams of a generated mesh (`cargo bench --bench fbx_tree
//!   -- fbx_inflate`, docs/performance.md): zune-inflate inflated about 1.3× faster (f64
//!   positions 509 against 390 MB/s, i32 indices 193 against 145 MB/s of output).
//!   miniz_oxide is kept for what matters more here: decoding is lazy, so the tree never
//!   inflates and a consumer
//!   pays only for the arrays it reads; miniz_oxide inflates into a caller's buffer of exactly
//!   the declared size, so a typed `Vec<f64>` is filled in place and a zlib bomb stops at that
//!   buffer's end (zune-inflate returns its own `Vec` and calls its limit best effort); the
//!   writer needs a deflater, which only miniz_oxide has, so one dependency serves both
//!   directions; and it is the inflater of `flate2`, the most used and fuzzed in Rust. The
//!   choice is local to `inflate.rs`. Both, like `nom` and `memchr`, are `no_std` + `alloc`.
//!   An array read as floats of another width (f64 stored, f32 wanted) is converted as it
//!   inflates, through a 64 KiB ring buffer, with no full-size temporary. (`kiln-fbx-scene`'s
//!   parallel import runs zune-inflate on helper threads as a fast path, and falls back to
//!   this decoder for anything it does not accept, so errors are still reported from here.)
//! - ASCII values are typed the way binary files type them (see [`Value`]); ASCII array text is
//!   classified and its element count checked against `*N` when parsed, and parsed into numbers
//!   only on request, like a compressed binary array.
#![no_std]
#![warn(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod ascii;
mod base64;
mod binary;
mod document;
mod error;
#[doc(hidden)]
pub mod fuzzing;
mod inflate;
mod number;
mod owned;
pub mod value;
mod write;

pub use binary::{HEADER_LEN, MAGIC};
pub use document::{
    Children, Document, Format, MAX_DEPTH_LIMIT, Node, NodePath, ParseOptions, Property,
};
pub use error::{Error, ErrorKind, Location};
pub use owned::{OwnedNode, OwnedValue};
pub use value::{Array, ArrayEncoding, ArrayType, Element, LeIter, LeSlice, Raw, Value};
pub use write::{Compression, WriteOptions, write_binary};
