//! Engine data from a processed scene, and (in later work) the animation runtime.
//!
//! [`extract`] is the original tool's `ReadModelData` / `ReadMeshData` / `ReadSkinData` /
//! `ReadMaterialData`, with the faults listed in its docs fixed. It expects a scene that
//! `kiln-process` has already made left-handed and triangulated, and produces the
//! [`kiln_format`] types that the codecs write.
//!
//! `no_std` + `alloc`: engines embed this crate.
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;

pub mod extract;
