//! Every warning code kiln gives is documented in `docs/warnings.md`, once, and no two
//! constants share a code.
//!
//! The codes are the `pub const NAME: &str = "stage.kind";` items of the crates' `codes`
//! modules; this test finds them in the sources (there is no registry to ask at run time), so
//! a code added anywhere without a line in the document fails here.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The stages a code may start with (`docs/warnings.md`).
const STAGES: [&str; 8] = [
    "obj", "fbx", "process", "extract", "clip", "bind", "load", "pipeline",
];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

/// `"stage.kind"` of a line `pub const NAME: &str = "stage.kind";`, when it is one.
fn code_of(line: &str) -> Option<&str> {
    let rest = line.trim().strip_prefix("pub const ")?;
    let (_, value) = rest.split_once(": &str = \"")?;
    let code = value.strip_suffix("\";")?;
    let (stage, kind) = code.split_once('.')?;
    (STAGES.contains(&stage)
        && !kind.is_empty()
        && kind
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'))
    .then_some(code)
}

#[test]
fn every_code_is_documented_once_and_unique() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    for krate in std::fs::read_dir(root.join("crates")).unwrap().flatten() {
        rust_files(&krate.path().join("src"), &mut files);
    }
    let mut codes: BTreeMap<String, PathBuf> = BTreeMap::new();
    let mut clashes = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        for line in text.lines() {
            if let Some(code) = code_of(line) {
                if let Some(first) = codes.insert(code.to_string(), f.clone()) {
                    clashes.push(format!("{code}: {} and {}", first.display(), f.display()));
                }
            }
        }
    }
    assert!(clashes.is_empty(), "codes defined twice: {clashes:#?}");
    // The crates give dozens of codes; finding few means the scan is broken, not that they went.
    assert!(codes.len() >= 50, "only {} codes found", codes.len());
    let doc = std::fs::read_to_string(root.join("docs/warnings.md")).unwrap();
    let mut missing = Vec::new();
    for code in codes.keys() {
        let n = doc.matches(&format!("`{code}`")).count();
        if n != 1 {
            missing.push(format!("{code}: {n} times"));
        }
    }
    assert!(
        missing.is_empty(),
        "codes not documented exactly once in docs/warnings.md: {missing:#?}"
    );
}

#[test]
fn the_users_guide_lists_every_code() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let reference = std::fs::read_to_string(root.join("docs/warnings.md")).unwrap();
    let guide = std::fs::read_to_string(root.join("docs/cli.md")).unwrap();
    let mut codes = Vec::new();
    for line in reference.lines().filter(|l| l.starts_with("| `")) {
        let code = line[3..].split('`').next().unwrap_or("");
        if STAGES.iter().any(|s| code.starts_with(&format!("{s}."))) {
            codes.push(code.to_string());
        }
    }
    assert!(
        codes.len() >= 50,
        "only {} codes in docs/warnings.md",
        codes.len()
    );
    let missing: Vec<&String> = codes
        .iter()
        .filter(|c| !guide.contains(&format!("`{c}`")))
        .collect();
    assert!(missing.is_empty(), "docs/cli.md lacks {missing:?}");
}

#[test]
fn the_scan_reads_a_code_line_and_nothing_else() {
    assert_eq!(
        code_of("    pub const MISSING: &str = \"pipeline.texture-missing\";"),
        Some("pipeline.texture-missing")
    );
    assert_eq!(code_of("pub const X: &str = \"not a code\";"), None);
    assert_eq!(code_of("pub const X: &str = \"other.kind\";"), None);
    assert_eq!(code_of("const X: u32 = 3;"), None);
}
