//! [`load`]: the file-system front end of [`crate::parse`].

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;
use std::path::Path;

use kiln_scene::{PropertyValue, Scene};

use crate::ObjError;

/// Imports the OBJ file at `path` (see [`crate::parse`] for the scene).
///
/// - The root node is named after the file name (as Assimp does).
/// - Each `mtllib` is looked up relative to the OBJ's folder, as written and with `\` read as
///   `/`; a missing library is a warning in `scene.warnings`.
/// - Texture paths are rewritten to open relative to the OBJ's folder: `\` becomes `/`, `.`
///   components go, and the path is taken relative to the folder of the library that names it
///   (OBJ exporters write them that way). If that file does not exist, the written path
///   relative to the OBJ's folder, then the bare file name next to the library or the OBJ,
///   are tried; the first that exists wins, otherwise the library-relative form is kept.
///   When the rewritten path differs from what the file wrote, the written one is kept in the
///   material's properties as `textures[I].written` (`I` = index in `Material::textures`).
pub fn load(path: &Path) -> Result<Scene, ObjError> {
    load_with(path, &mut FileSystem)
}

/// The files [`load_with`] reads and looks for: the file system ([`FileSystem`]), or anything
/// standing in for it — kiln's pipeline records through it every file a conversion read or
/// looked for, for its manifests and depfiles.
pub trait Files {
    /// The bytes of the file at `path`.
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>>;
    /// Whether `path` is a file (a texture candidate that is looked for, not read).
    fn is_file(&mut self, path: &Path) -> bool;
}

/// [`Files`] as they are on disk.
#[derive(Clone, Copy, Debug, Default)]
pub struct FileSystem;

impl Files for FileSystem {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        std::fs::read(path)
    }
    fn is_file(&mut self, path: &Path) -> bool {
        path.is_file()
    }
}

/// [`load`], reading the OBJ, its libraries and looking for its textures through `files`.
pub fn load_with(path: &Path, files: &mut dyn Files) -> Result<Scene, ObjError> {
    let bytes = files.read(path).map_err(|source| ObjError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    parse_at(path, &bytes, files)
}

/// [`load_with`] of an OBJ whose bytes are already read (from standard input, say): `path`
/// names it and its folder is where its libraries and textures are looked for.
pub fn parse_at(path: &Path, bytes: &[u8], files: &mut dyn Files) -> Result<Scene, ObjError> {
    let dir = path.parent().unwrap_or_else(|| Path::new(""));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.to_string_lossy().into_owned());

    // Library name as written → path relative to the OBJ's folder that opened.
    let mut found: BTreeMap<String, String> = BTreeMap::new();
    let mut loader = |lib: &str| -> Option<Vec<u8>> {
        let mut candidates = alloc::vec![lib.to_string()];
        if lib.contains('\\') {
            candidates.push(lib.replace('\\', "/"));
        }
        for c in candidates {
            if let Ok(data) = files.read(&dir.join(kiln_scene::names::to_path(&c))) {
                found.insert(lib.to_string(), c);
                return Some(data);
            }
        }
        None
    };
    let (mut scene, sources) = crate::import(bytes, &name, &mut loader)?;

    for (mat, source) in scene.materials.iter_mut().zip(sources) {
        let lib_dir = source
            .as_ref()
            .and_then(|s| found.get(s))
            .map(|p| parent(p))
            .unwrap_or_default();
        let mut written = Vec::new();
        for (i, tex) in mat.textures.iter_mut().enumerate() {
            let resolved = resolve_texture(dir, &lib_dir, &tex.path, &mut |p| files.is_file(p));
            if resolved != tex.path {
                let old = core::mem::replace(&mut tex.path, resolved);
                written.push((format!("textures[{i}].written"), PropertyValue::String(old)));
            }
        }
        mat.properties.extend(written);
    }
    Ok(scene)
}

/// The folder part of a `/`-separated relative path ("" for a bare name).
fn parent(p: &str) -> String {
    let p = p.replace('\\', "/");
    match p.rfind('/') {
        Some(i) => p[..i].to_string(),
        None => String::new(),
    }
}

fn is_absolute(p: &str) -> bool {
    let b = p.as_bytes();
    p.starts_with('/')
        || (b.len() >= 3 && b[0].is_ascii_alphabetic() && b[1] == b':' && b[2] == b'/')
}

/// Lexically normalises a `/`-separated path: drops empty and `.` components, folds `x/..`.
fn normalize(p: &str) -> String {
    let absolute = p.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for c in p.split('/') {
        match c {
            "" | "." => {}
            ".." if parts.last().is_some_and(|l| *l != "..") => {
                parts.pop();
            }
            _ => parts.push(c),
        }
    }
    let joined = parts.join("/");
    if absolute {
        format!("/{joined}")
    } else {
        joined
    }
}

fn join(dir: &str, p: &str) -> String {
    if dir.is_empty() || is_absolute(p) {
        normalize(p)
    } else {
        normalize(&format!("{dir}/{p}"))
    }
}

/// See [`load`]: the path, relative to the OBJ folder, under which a texture opens.
pub(crate) fn resolve_texture(
    obj_dir: &Path,
    lib_dir: &str,
    written: &str,
    is_file: &mut dyn FnMut(&Path) -> bool,
) -> String {
    let w = written.trim().replace('\\', "/");
    if w.is_empty() {
        return written.to_string();
    }
    let base = w.rsplit('/').next().unwrap_or(&w).to_string();
    let candidates = [
        join(lib_dir, &w),
        normalize(&w),
        join(lib_dir, &base),
        base.clone(),
    ];
    for c in &candidates {
        if !c.is_empty() && is_file(&obj_dir.join(kiln_scene::names::to_path(c))) {
            return c.clone();
        }
    }
    candidates[0].clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalizes_paths() {
        assert_eq!(normalize("./a//b/../c.png"), "a/c.png");
        assert_eq!(normalize("../t.png"), "../t.png");
        assert_eq!(normalize("/abs/./x"), "/abs/x");
        assert_eq!(
            join("mtl", ".\\x.jpg".replace('\\', "/").as_str()),
            "mtl/x.jpg"
        );
        assert_eq!(join("mtl", "/abs/x.jpg"), "/abs/x.jpg");
        assert_eq!(join("mtl", "C:/t/x.jpg"), "C:/t/x.jpg");
        assert_eq!(parent("sub/lib.mtl"), "sub");
        assert_eq!(parent("lib.mtl"), "");
    }

    #[test]
    fn unresolvable_texture_keeps_library_relative_form() {
        let dir = Path::new("/nonexistent-kiln-dir");
        let mut looked = Vec::new();
        let mut is_file = |p: &Path| {
            looked.push(p.to_path_buf());
            p.is_file()
        };
        assert_eq!(
            resolve_texture(dir, "m", ".\\tex\\a.jpg", &mut is_file),
            "m/tex/a.jpg"
        );
        assert_eq!(resolve_texture(dir, "", "a.jpg", &mut is_file), "a.jpg");
        // Every candidate is looked for through the callback, in order.
        assert_eq!(looked[0], dir.join("m/tex/a.jpg"));
        assert_eq!(looked[1], dir.join("tex/a.jpg"));
        assert_eq!(looked.len(), 8);
    }
}
