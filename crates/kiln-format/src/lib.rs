//! Codecs for the files kiln writes: the `.mesh` model and the `.clip` animation in the
//! zero-copy kiln layout and in the classic layout (byte-compatible with the original C++ tool),
//! and the material `.xml` (byte for byte what the original's tinyxml2 prints).
//!
//! - [`kiln`] (little-endian targets): the kiln layout of `docs/format.md`:
//!   [`MeshView::parse`](kiln::MeshView::parse) and [`ClipView::parse`](kiln::ClipView::parse)
//!   validate once and borrow typed slices from the bytes; `write_mesh` / `write_clip`.
//! - [`classic`]: [`read_mesh`](classic::read_mesh) / [`read_clip`](classic::read_clip) and
//!   `write_mesh` / `write_clip`, on byte slices.
//! - [`xml`] (feature `std`): [`read_materials`](xml::read_materials) and `write_materials`.
//! - [`model`]: the data those files hold.
//!
//! Features (`std` and `write` on by default): `std` (the XML codec, through quick-xml, and
//! `std::error::Error`), `write` (every encoder), `parallel` (the kiln layout's vertex streams
//! encoded on two of rayon's threads; the same bytes without it). Without them the crate is the
//! model and the binary readers, which is what a runtime embeds (kiln-anim depends on it so).
//!
//! It does not touch the file system, copy textures, or convert scenes (that is
//! `kiln-extract`).
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
#![deny(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

pub mod classic;
pub mod error;
#[cfg(target_endian = "little")]
pub mod kiln;
pub mod model;
pub mod names;
#[cfg(feature = "write")]
mod sink;
#[cfg(feature = "std")]
pub mod xml;

pub use error::{Element, FormatError, Item, XmlContext};
pub use model::*;

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
