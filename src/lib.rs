//! kiln: an asset pipeline for game engines, in pure Rust — FBX and OBJ in, engine-ready
//! `.mesh`, `.clip` and material `.xml` files out, with the original tool's Assimp processing
//! reproduced.
//!
//! The facade is five rooms, each using only the ones before it:
//! - [`load`](mod@load): the one loader. A model file (imported, processed, extracted, its clips
//!   resampled) or a `.mesh` kiln wrote (with its clips and materials), read once into a
//!   [`Loaded`](load::Loaded) that holds everything any command needs;
//! - [`encode`](mod@encode): options → output files in memory;
//! - [`pipeline`]: one file converted and written atomically;
//! - [`manifest`] and [`batch`]: asset trees — inputs expanded and mirrored, one manifest per
//!   conversion, incremental skips, stale outputs removed, on several threads.
//!
//! Failures are one [`Error`] over the crates' own error types, naming the file
//! ([`Error::WithPath`]); non-fatal findings are [`Warning`]s with a stable code ([`codes`] and
//! each crate's `codes` module; `docs/warnings.md`).
//!
//! It re-exports the pipeline's crates so that applications depend on one package: importers
//! ([`obj`], [`fbx`]), the scene model ([`scene`]), Assimp-equivalent processing ([`process`]),
//! the offline lowering to engine data ([`extract`]), the animation runtime ([`anim`]) and the
//! file codecs ([`format`]). It does not draw or touch a GPU (that is `kiln-gpu`) and does not
//! parse command lines (`kiln-cli`). See `docs/architecture.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub use kiln_anim as anim;
pub use kiln_extract as extract;
/// The FBX node tree (binary and ASCII reader, binary writer) that [`fbx`] builds on.
pub use kiln_fbx as fbx_tree;
pub use kiln_fbx_scene as fbx;
pub use kiln_format as format;
pub use kiln_obj as obj;
pub use kiln_process as process;
pub use kiln_scene as scene;
pub use kiln_scene::Warning;

pub mod batch;
pub mod codes;
pub mod demo;
pub mod encode;
mod error;
pub mod load;
pub mod manifest;
pub mod pipeline;

pub use encode::{EncodeOptions, Encoded, Layout, OutputFile, encode};
pub use error::{Error, Result};
pub use load::{LoadOptions, Loaded, load};
pub use pipeline::{ConvertOptions, ConvertedMemory, convert_file, convert_memory, prepare_file};

// The crate page's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../docs/crate.md")]
struct CrateDocDoctests;
