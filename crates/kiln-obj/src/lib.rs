//! Wavefront OBJ + MTL importer for kiln: bytes in, [`kiln_scene::Scene`] out, with the scene
//! that Assimp 5.2's `ObjFileImporter` produces before any post-processing.
//!
//! # What it does
//! - [`parse`] reads OBJ bytes; a callback supplies each `mtllib` by the name the file writes
//!   (no file system needed: builds for `wasm32-unknown-unknown`, `no_std` + `alloc`).
//!   [`load`] (feature `std`, on by default) reads a file, finds libraries next to it and
//!   rewrites texture paths so they open relative to the OBJ's folder ([`parse`] keeps them
//!   exactly as the MTL writes them, trailing blanks included, like Assimp; `load` keeps that
//!   written form in the material's properties).
//! - Assimp's scene shape: a root node named after the file with one child node per object
//!   (`o`) or group change (`g`), in file order; meshes split per (object/group, material) in
//!   Assimp's order; Assimp's material list (its `DefaultMaterial` first, then library and
//!   `usemtl` materials in the order they appear); every face corner unrolled into its own
//!   vertex; faces kept as polygons (triangulation is `kiln-process`'s job); points (`p`) kept
//!   as 1-index faces and lines (`l`) as 2-index segments like Assimp (with a warning: the
//!   engine extraction drops them); one UV channel with Assimp's component count; vertex
//!   colours (`v x y z r g b`); normals when faces reference them. A file with vertices but no
//!   faces gives Assimp's face-less point-cloud mesh.
//! - Materials: `Ka Kd Ks Ke` colours, `Ns` shininess, `d`/`Tr` opacity; textures `map_Kd` →
//!   Diffuse, `map_Ka` → Ambient, `map_Ks` → Specular, `map_Ke`/`map_emissive` → Emissive,
//!   `map_bump`/`bump` → Height (Assimp's slot for bump maps), `norm`/`map_Kn` → Normals,
//!   `disp`/`map_disp` → Displacement, `map_d` → Opacity, `map_Ns` → Shininess, `-type`
//!   reflection maps → Reflection. Other values (`illum`, `Ni`, `Tf`, `aniso`, `Pr`, `Pm`,
//!   `Ps`, `Pc`, `Pcr`, `map_Pr`/`map_Pm`/`map_Ps` paths, `-clamp on` as `KEYWORD.clamp`, `-bm`
//!   as `bump.bm`/`norm.bm`) go to `Material::properties` under their MTL keyword.
//! - Text: UTF-8 (a BOM is skipped), UTF-16 LE/BE with BOM (converted), and names that are not
//!   UTF-8 read as Windows-1252 (Latin-1 plus the printable 0x80–0x9F range), so `0xE6` is `æ`
//!   and nothing fails. LF, CR LF and CR line ends, a missing final newline, `\` line
//!   continuation, runs of blanks, `#` comments (also after statements), relative (negative)
//!   indices, numbers in Assimp's `fast_atof` forms (`2.`, `1e+2`, `1,5`; trailing junk
//!   such as `3.1+e2` reads 3.1).
//!
//! # Assimp behaviour kept on purpose
//! The goal is Assimp's scene, so its rules are followed even where they surprise: statements
//! are recognised by their first character (an indented statement is ignored, with a warning;
//! `fo 1 2 3` is a face); `g` keeps trailing blanks in the name and every group change makes a
//! new node; `o` of a known name switches back to that object; `usemtl` of an unknown name
//! creates a default material of that name; an `mtllib` read switches the current mesh to each
//! new material it defines; an empty `newmtl` names `DefaultMaterial`; `Kd 0.5` is
//! `(0.5, 0, 0)`; `d` alone is opacity 0; colours of `v` lines pair with positions in their own
//! order (Assimp 5.2 keeps a separate list); face tokens `+1`/`007` repeat the index; out-of
//! range normal or UV indices drop that attribute for the whole mesh (warning); a mesh gets a
//! colour channel when any vertex of the file has a colour (transparent black elsewhere, and on
//! the duplicated inner vertices of lines); a missing library
//! is retried as `<obj name minus 3 chars>mtl`; an indented first line of an MTL is ignored.
//!
//! # Where it departs from Assimp (and why)
//! Each only affects files Assimp rejects, mangles or cannot read:
//! - Errors instead of values: NaN/infinite coordinates (Assimp keeps them in `v`/`vn`, zeroes
//!   them in `vt`) and numbers beyond `f32` are an error naming the line: the engine cannot use
//!   them. A file without geometry is an error ([`ObjError::NoGeometry`]; Assimp returns an
//!   empty scene or, for a 0-byte file, "too small"). NUL bytes are an error (binary data).
//! - UTF-16 files are converted (Assimp 5.2 reads them as bytes and returns an empty scene);
//!   a UTF-8 BOM is skipped (Assimp 5.2 loses the first line).
//! - `v` with 5 or more than 6 numbers keeps x y z (and r g b) with a warning (Assimp drops
//!   the vertex, shifting every later index); `.5` counts as a number (Assimp's component
//!   count skips it and drops the vertex); `vt` with 1 or more than 3 numbers is accepted
//!   (Assimp aborts). `#` ends a statement anywhere (Assimp aborts on `f 1 2 3 # c`).
//! - A single-vertex `l`, a corner with more than three indices, a map before any `newmtl`,
//!   unparsable MTL numbers, `aniso`: warned and skipped (Assimp crashes, aborts or reads
//!   stale memory).
//! - `primitive_types` reflects the faces actually present (Assimp flags a 1- or 2-corner `f`
//!   as a triangle).
//! - A library named twice is read once (re-selecting its last material, as re-reading does);
//!   library names lose trailing blanks; library problems are warnings. A cube reflection map
//!   yields only the faces that are set (Assimp adds empty paths for the others).
//!
//! # Invariants
//! The scene satisfies `Scene::validate`; every mesh has at least one face except the
//! point-cloud case; all coordinates are finite. Bad input never panics, never recurses and
//! never allocates more than a constant times the input size: it returns an [`ObjError`]
//! naming the file, the line and what was expected. Non-fatal findings are in
//! `Scene::warnings` (at most 64, then a count).
//!
//! # Why hand-written instead of `tobj`
//! tobj 4.0.5 fails on four corpus files this crate reads (UTF-16 BOM in `box_UTF16BE.obj`, a
//! Latin-1 byte in a `usemtl` name in `regr01.obj`, an empty `newmtl` name in `empty_mat.obj`,
//! a Latin-1 `.mtl` for `box_mat_with_spaces.obj`), fan-triangulates (wrong for concave
//! faces), drops `p` points, turns `l` lines into polygons, and groups meshes differently from
//! Assimp. Matching Assimp's scene needs Assimp's grouping and quirks, which is what this
//! single-pass reader implements (no per-line allocation; numbers parsed in place with a
//! correctly rounded fast path).
#![no_std]
#![forbid(unsafe_code)]

extern crate alloc;
#[cfg(feature = "std")]
extern crate std;

mod build;
mod mtl;
mod number;
mod obj;
mod text;

use alloc::string::String;
use alloc::vec::Vec;

pub use kiln_scene::Scene;

/// Why an OBJ file could not be imported.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ObjError {
    /// A statement that cannot be used; `line` is 1-based (the first line of a `\`-joined
    /// statement).
    #[error("{file}:{line}: {message}")]
    Syntax {
        file: String,
        line: u32,
        message: String,
    },
    /// The file holds no vertices or no faces (empty, only comments, binary data without
    /// statements…).
    #[error("{file}: no geometry: {detail}")]
    NoGeometry { file: String, detail: String },
    /// The data is inconsistent in a way no single line shows.
    #[error("{file}: {message}")]
    Invalid { file: String, message: String },
    /// The OBJ file could not be read ([`load`] only; missing libraries are warnings).
    #[cfg(feature = "std")]
    #[error("cannot read {}: {source}", path.display())]
    Io {
        path: std::path::PathBuf,
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
        parser.warnings.push(alloc::format!(
            "{name}: UTF-16 text converted to UTF-8 (Assimp 5.2 reads no geometry from it)"
        ));
    }
    parser.run(&text)?;
    if parser.indented > 1 {
        parser.warnings.push(alloc::format!(
            "{name}: {} indented statements ignored in all",
            parser.indented
        ));
    }
    let mut sources = Vec::new();
    let mut warnings = core::mem::take(&mut parser.warnings);
    let mut scene = build::build(&parser.model, name, &mut warnings, &mut sources)?;
    scene.warnings = warnings.finish();
    Ok((scene, sources))
}

#[cfg(feature = "std")]
mod load;
#[cfg(feature = "std")]
pub use load::load;

#[cfg(test)]
mod tests;
