//! Where the workspace and the build's scratch folder are, for helpers that run inside any test
//! binary (the testkit is compiled once, so Cargo's per-target `CARGO_MANIFEST_DIR` and
//! `CARGO_TARGET_TMPDIR` of the test are not available to it).

use std::path::{Path, PathBuf};

/// The workspace root (the folder of the top `Cargo.toml`), where `docs/` lives.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The target folder's scratch space, `<target>/tmp` (what Cargo gives integration tests and
/// benchmarks as `CARGO_TARGET_TMPDIR`), found from the running executable
/// (`<target>/<profile>/deps/<binary>` or `<target>/<profile>/examples/<binary>`); the system's
/// temporary folder when that fails. Created when missing.
pub fn target_tmp() -> PathBuf {
    let dir = std::env::current_exe()
        .ok()
        .and_then(|exe| Some(exe.parent()?.parent()?.parent()?.join("tmp")))
        .unwrap_or_else(std::env::temp_dir);
    let _ = std::fs::create_dir_all(&dir);
    dir
}
