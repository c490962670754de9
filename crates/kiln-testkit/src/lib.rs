//! Test support for the kiln workspace, used only as a dev-dependency (`publish = false`):
//! what the integration tests, benchmarks, examples and fuzz targets share, so that no library
//! crate carries a fixture or a panicking oracle in its public API and no test includes another
//! folder's file through `#[path]`.
//!
//! By concern:
//! - Inputs: [`corpus`] (Assimp's model corpus: its one path, the installed check, walkers) and
//!   [`fixtures`] (FBX scenes and files, COLLADA models, converted skinned models, generated in
//!   code).
//! - The peer: [`process`] (every process a test starts, under memory and time limits),
//!   [`assimp`] (running `assimp dump`, cached), [`assxml`] and [`assbin`] (reading its dumps
//!   into a `kiln_scene::Scene`).
//! - Oracles: [`compare`] (scenes and classic files with the conformance tolerances), [`obj`]
//!   (kiln-obj's raw import against Assimp's), [`classic`] (independent readers of the classic
//!   `.mesh`/`.clip` layouts), [`anim_eval`] (an independent f64 evaluation of skinned
//!   animation), [`oracle`] (kiln-fbx's fuzz oracle).
//! - Reporting and measuring: [`report`] (the tables of `docs/conformance.md`), [`alloc`] (a
//!   counting allocator type a test binary installs), [`paths`] (the workspace and the
//!   target's scratch folder), [`gpu`] (the GPU adapter or the install hint).
//!
//! Features: `gpu` adds [`fixtures::tube`] and [`gpu`], which need kiln-gpu (and so wgpu).
//!
//! Helpers here panic on a broken setup (a missing corpus, an unreadable fixture) with the
//! command that fixes it: a test that cannot run fails, it does not skip. Linux only, as the
//! suite is ([`process`] uses `setrlimit`).

#![deny(missing_docs)]

pub mod alloc;
pub mod anim_eval;
pub mod assbin;
pub mod assimp;
pub mod assxml;
pub mod classic;
pub mod compare;
pub mod corpus;
pub mod fixtures;
#[cfg(feature = "gpu")]
pub mod gpu;
pub mod obj;
pub mod oracle;
pub mod paths;
pub mod process;
pub mod report;
pub mod rng;
