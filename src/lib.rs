//! kiln: an asset pipeline for game engines, in pure Rust.
//!
//! This facade re-exports the pipeline's crates so that applications depend on one package:
//! importers ([`obj`], [`fbx`]), the shared scene model ([`scene`]), Assimp-equivalent
//! processing ([`process`]), engine-data extraction and runtime animation ([`anim`]) and the
//! file codecs ([`format`]). It also owns the end-to-end tests and the benchmarks.
pub use kiln_anim as anim;
/// The FBX node tree (binary and ASCII reader, binary writer) that [`fbx`] builds on.
pub use kiln_fbx as fbx_tree;
pub use kiln_fbx_scene as fbx;
pub use kiln_format as format;
pub use kiln_obj as obj;
pub use kiln_process as process;
pub use kiln_scene as scene;

pub mod animation;
pub mod demo;
pub mod pipeline;
