//! Assimp's model corpus (the Debian package `assimp-testmodels`): its one path, the check
//! that it is installed (tests fail, they do not skip, when it is missing), and walkers that
//! list its files in a stable (sorted) order.

use std::path::{Path, PathBuf};

/// Where `assimp-testmodels` installs the corpus.
pub const ROOT: &str = "/usr/share/assimp/models";

/// What to run when the corpus or the `assimp` command is missing.
pub const INSTALL_HINT: &str = "run `apt-get install -y assimp-utils assimp-testmodels` \
     (scripts/test does this)";

/// The corpus root; panics with [`INSTALL_HINT`] when the corpus is not installed (its
/// `OBJ/box.obj` and `FBX/box.fbx` missing).
pub fn require() -> &'static Path {
    let root = Path::new(ROOT);
    assert!(
        root.join("OBJ/box.obj").is_file() && root.join("FBX/box.fbx").is_file(),
        "the Assimp test corpus ({ROOT}) is missing: {INSTALL_HINT}"
    );
    root
}

/// `ROOT/rel`, after [`require`].
pub fn path(rel: &str) -> PathBuf {
    require().join(rel)
}

/// Every file under `root` (recursively) for which `keep` holds, sorted by path. Folders that
/// cannot be read are skipped.
pub fn walk(root: &Path, keep: impl Fn(&Path) -> bool) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&d) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if keep(&p) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Whether `path`'s extension is one of `exts` (given in lower case), ignoring case.
pub fn has_extension(path: &Path, exts: &[&str]) -> bool {
    path.extension()
        .and_then(|x| x.to_str())
        .is_some_and(|x| exts.iter().any(|e| x.eq_ignore_ascii_case(e)))
}

/// Every file under `root` (recursively) whose extension is `ext` (any case), sorted.
pub fn files(root: &Path, ext: &str) -> Vec<PathBuf> {
    walk(root, |p| has_extension(p, &[ext]))
}

/// Every `.fbx` file of the corpus, sorted, after [`require`].
pub fn fbx_files() -> Vec<PathBuf> {
    files(require(), "fbx")
}

/// Every `.obj` file of the corpus, sorted, after [`require`].
pub fn obj_files() -> Vec<PathBuf> {
    files(require(), "obj")
}

/// `path` relative to the corpus root (as the tests name files in their reports), or all of it
/// when it lies elsewhere.
pub fn name(path: &Path) -> String {
    path.strip_prefix(ROOT)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// The bytes of `path`; panics naming the file when it cannot be read.
pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The bytes of the corpus file `rel` (relative to [`ROOT`]), after [`require`].
pub fn model(rel: &str) -> Vec<u8> {
    read(&path(rel))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walkers_find_files_by_extension_in_any_case_sorted() {
        let root = std::env::temp_dir().join(format!("kiln-testkit-walk-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        std::fs::create_dir_all(root.join("b/c")).unwrap();
        for f in ["b/c/z.FBX", "a.fbx", "b/y.obj", "b/x.fbx", "b/c/w.fbxx"] {
            std::fs::write(root.join(f), b"").unwrap();
        }
        let rel = |v: Vec<PathBuf>| -> Vec<String> {
            v.iter()
                .map(|p| p.strip_prefix(&root).unwrap().display().to_string())
                .collect()
        };
        assert_eq!(rel(files(&root, "fbx")), ["a.fbx", "b/c/z.FBX", "b/x.fbx"]);
        assert_eq!(
            rel(walk(&root, |p| has_extension(p, &["obj", "fbxx"]))),
            ["b/c/w.fbxx", "b/y.obj"]
        );
        assert!(files(&root.join("missing"), "fbx").is_empty());
        std::fs::remove_dir_all(&root).unwrap();
    }

    #[test]
    fn names_are_relative_to_the_corpus() {
        assert_eq!(name(&Path::new(ROOT).join("FBX/box.fbx")), "FBX/box.fbx");
        assert_eq!(name(Path::new("/tmp/x.fbx")), "/tmp/x.fbx");
    }
}
