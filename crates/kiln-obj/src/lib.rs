//! Wavefront OBJ + MTL importer for kiln: bytes in, [`kiln_scene::Scene`] out, the scene that
//! Assimp 5.2's `ObjFileImporter` produces before any post-processing, so that kiln's outputs
//! match the original tool's. `docs/obj.md` has the rules in full (scene shape, MTL keywords
//! and texture slots, encodings, the Assimp quirks kept on purpose, where and why it departs
//! from Assimp, why it is hand-written).
//!
//! # What it does
//! - [`parse`] reads OBJ bytes; a callback supplies each `mtllib` by the name the file writes
//!   (no file system needed: builds for `wasm32-unknown-unknown`, `no_std` + `alloc`).
//!   [`load`] (feature `std`, on by default) reads a file, finds libraries next to it and
//!   rewrites texture paths so they open relative to the OBJ's folder, keeping the written
//!   form in the material's properties ([`parse`] keeps paths exactly as the MTL writes them).
//! - Assimp's scene shape: a root node named after the file, one child node per object (`o`)
//!   or group change (`g`), meshes split per (object/group, material), Assimp's material list
//!   (`DefaultMaterial` first), every face corner its own vertex, points (`p`) and lines (`l`)
//!   kept as 1- and 2-index faces; one UV channel, vertex colours, normals when referenced.
//! - MTL colours, shininess, opacity and texture maps into [`kiln_scene::Material`]; other MTL
//!   values into `Material::properties` under their keyword.
//! - Text in UTF-8, UTF-16 with a BOM (converted), names that are not UTF-8 kept byte for byte (`kiln_scene::names`);
//!   numbers in Assimp's `fast_atof` forms.
//! - Non-fatal findings as [`kiln_scene::Warning`]s with this crate's [`codes`].
//!
//! # What it does not
//! Triangulate, generate normals or UVs, or change axes (that is `kiln-process`); free-form
//! geometry (`cstype` … `end`, skipped as Assimp skips it); smoothing (`s`) and merging (`mg`)
//! groups are ignored. NaN/infinite or beyond-`f32` coordinates, vertex indices out of range,
//! A file without geometry gives Assimp's scene of nodes (and materials), with a warning, or
//! under 16 bytes Assimp's "too small" error; NUL bytes are line ends (as Assimp reads them)
//! unless the file looks binary.
//!
//! # Invariants
//! - The scene satisfies [`Scene::validate`]; every mesh has at least one face except the
//!   point-cloud case (vertices, no faces); all coordinates are finite.
//! - Bad input never panics, never recurses and never allocates more than a constant times the
//!   input size: it returns an [`ObjError`] naming the file, the line and what was expected.
//! - At most 64 warnings, then one [`codes::WARNINGS_SUPPRESSED`] with the count of the rest;
//!   a warning's message is the text the CLI prints, its code never changes meaning.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod build;
pub mod codes;
mod mtl;
mod number;
mod obj;
mod text;

use alloc::string::String;
use alloc::vec::Vec;

pub use kiln_scene::Scene;
use kiln_scene::Warning;

/// Why an OBJ file could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObjError {
    /// A statement that cannot be used; `line` is 1-based (the first line of a `\`-joined
    /// statement).
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The file as named to [`parse`].
        file: String,
        /// 1-based line number.
        line: u32,
        /// What was found and what was expected.
        message: String,
    },
    /// The file holds no vertices or no faces (empty, only comments, binary data without
    /// statements…).
    #[error("{file}: no geometry: {detail}")]
    NoGeometry {
        /// The file as named to [`parse`].
        file: String,
        /// What is missing (`no vertices and no faces`, …).
        detail: String,
    },
    /// The data is inconsistent in a way no single line shows.
    #[error("{file}: {message}")]
    Invalid {
        /// The file as named to [`parse`].
        file: String,
        /// What is inconsistent.
        message: String,
    },
    /// The OBJ file could not be read ([`load`] only; missing libraries are warnings).
    #[cfg(feature = "std")]
    #[error("cannot read {}: {source}", path.display())]
    Io {
        /// The path given to [`load`].
        path: std::path::PathBuf,
        /// The error of the read.
        #[source]
        source: std::io::Error,
    },
}

impl ObjError {
    /// What is wrong, without the file name (for callers that print the path themselves):
    /// `line 4: vertex index 9 out of range: …`.
    pub fn reason(&self) -> String {
        match self {
            ObjError::Syntax { line, message, .. } => alloc::format!("line {line}: {message}"),
            ObjError::NoGeometry { detail, .. } => alloc::format!("no geometry: {detail}"),
            ObjError::Invalid { message, .. } => message.clone(),
            #[cfg(feature = "std")]
            ObjError::Io { source, .. } => alloc::string::ToString::to_string(source),
        }
    }

    /// The 1-based line the error is about, when there is one.
    pub fn line(&self) -> Option<u32> {
        match self {
            ObjError::Syntax { line, .. } => Some(*line),
            _ => None,
        }
    }
}

/// Imports OBJ bytes.
///
/// `name` is the file name: it names the root node (as Assimp does), prefixes errors and
/// warnings, and gives Assimp's fallback library name. `mtl` is called with each `mtllib`
/// name as written in the file (trailing blanks removed) and returns the library's bytes, or
/// `None` when it is missing: the import goes on (materials named by `usemtl` get default
/// values) and `scene.warnings` names the missing file.
pub fn parse(
    obj: &[u8],
    name: &str,
    mtl: &mut dyn FnMut(&str) -> Option<Vec<u8>>,
) -> Result<Scene, ObjError> {
    import(obj, name, mtl).map(|(scene, _)| scene)
}

/// [`parse`], also returning for each scene material the library that defined it.
fn import(
    obj: &[u8],
    name: &str,
    mtl: &mut dyn FnMut(&str) -> Option<Vec<u8>>,
) -> Result<(Scene, Vec<Option<String>>), ObjError> {
    let (text, encoding) = text::to_utf8(obj);
    let mut parser = obj::Parser::new(name, mtl);
    if matches!(encoding, text::Encoding::Utf16Be | text::Encoding::Utf16Le) {
        parser.warnings.push(Warning::new(
            codes::UTF16_CONVERTED,
            alloc::format!(
                "{name}: UTF-16 text converted to UTF-8 (Assimp 5.2 reads no geometry from it)"
            ),
        ));
    }
    parser.run(&text)?;
    if parser.indented > 1 {
        parser.warnings.push(Warning::new(
            codes::INDENTED_STATEMENT,
            alloc::format!(
                "{name}: {} indented statements ignored in all",
                parser.indented
            ),
        ));
    }
    let mut sources = Vec::new();
    let mut warnings = core::mem::take(&mut parser.warnings);
    let mut scene = build::build(&parser.model, name, &mut warnings, &mut sources)?;
    // A file without geometry is a scene of nodes (and materials), as in Assimp, except under
    // Assimp's `ObjMinSize` of 16 bytes, which Assimp refuses as too small.
    if scene.meshes.is_empty() && obj.len() < 16 {
        return Err(ObjError::NoGeometry {
            file: String::from(name),
            detail: alloc::format!(
                "the file is too small ({} bytes; Assimp reads nothing under 16)",
                obj.len()
            ),
        });
    }
    scene.warnings = warnings.finish();
    Ok((scene, sources))
}

#[cfg(feature = "std")]
mod load;
#[cfg(feature = "std")]
pub use load::{FileSystem, Files, load, load_with, parse_at};

#[cfg(test)]
mod tests;

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
