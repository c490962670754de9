//! Codecs for the files kiln writes: the `.mesh` model and the `.clip` animation in the
//! zero-copy kiln layout and in the classic layout (byte-compatible with the original C++ tool),
//! and the material `.xml` (byte for byte what the original's tinyxml2 prints).
//!
//! - [`kiln`] (little-endian targets): the kiln layout of `docs/format.md`:
//!   [`write_mesh`](kiln::write_mesh) / [`MeshView::parse`](kiln::MeshView::parse) and
//!   [`write_clip`](kiln::write_clip) / [`ClipView::parse`](kiln::ClipView::parse); views
//!   validate once and borrow typed slices from the bytes.
//! - [`classic`]: [`write_mesh`](classic::write_mesh) / [`read_mesh`](classic::read_mesh) and
//!   [`write_clip`](classic::write_clip) / [`read_clip`](classic::read_clip), on byte slices.
//! - [`xml`] (feature `std`, on by default): [`write_materials`](xml::write_materials) /
//!   [`read_materials`](xml::read_materials).
//! - [`model`]: the data those files hold.
//!
//! It does not touch the file system, copy textures, or convert scenes (that is `kiln-anim`).
//!
//! Invariants: `no_std` + `alloc` without `std`, no `unsafe`. Readers never panic on any input.
//! The classic readers check every count against the bytes left before allocating, and report
//! the byte offset and the element where reading stopped ([`FormatError`]); the classic codecs
//! are exact inverses: `write(read(bytes)) == bytes` for every file a reader accepts, and
//! `read(write(x)) == x` bit for bit. The kiln views validate in time independent of the
//! vertex count, never copy, and report the byte offset of the field at fault
//! ([`kiln::LayoutError`]); `to_model(write(x)) == x` bit for bit without quantisation.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod classic;
pub mod error;
#[cfg(target_endian = "little")]
pub mod kiln;
pub mod model;
#[cfg(feature = "std")]
pub mod xml;

pub use error::{Element, FormatError, Item, XmlContext};
pub use model::*;
