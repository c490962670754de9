//! Shared by the integration tests: the Assimp model corpus and a sample tree with every
//! property type.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use kiln_fbx::{OwnedNode, OwnedValue};

pub const MODELS: &str = "/usr/share/assimp/models";

/// Every `.fbx` file under the corpus, sorted; fails (does not skip) when it is missing.
pub fn corpus() -> Vec<PathBuf> {
    assert!(
        Path::new(MODELS).join("FBX/box.fbx").is_file(),
        "the Assimp model corpus is missing: install the Debian package assimp-testmodels \
         ({MODELS}), e.g. `apt-get install assimp-testmodels`"
    );
    let mut out = Vec::new();
    let mut stack = vec![PathBuf::from(MODELS)];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir)
            .expect("corpus folder readable")
            .flatten()
        {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x.eq_ignore_ascii_case("fbx")) {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

pub fn model(rel: &str) -> Vec<u8> {
    corpus();
    read(&Path::new(MODELS).join(rel))
}

pub fn is_binary(bytes: &[u8]) -> bool {
    bytes.starts_with(b"Kaydara FBX Binary")
}

pub fn name(path: &Path) -> String {
    path.strip_prefix(MODELS)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// A tree with every property type, nesting, empty nodes and arrays from 0 to 300 elements.
pub fn sample_tree() -> Vec<OwnedNode> {
    let ramp = |n: usize| (0..n).map(|i| i as f64 * 0.25 - 3.0).collect::<Vec<_>>();
    vec![
        OwnedNode::new("Header")
            .with(OwnedValue::Char(b'T'))
            .with(OwnedValue::I16(-12))
            .with(OwnedValue::I32(1 << 30))
            .with(OwnedValue::I64(-(1 << 40)))
            .with(OwnedValue::F32(1.5))
            .with(OwnedValue::F64(-2.25))
            .with(OwnedValue::string("Model::Cube"))
            .with(OwnedValue::String(b"Cube\0\x01Model".to_vec()))
            .with(OwnedValue::Raw(vec![0, 1, 2, 255])),
        OwnedNode::new("Objects")
            .with_child(
                OwnedNode::new("Geometry")
                    .with(OwnedValue::I64(2_358_377_979_824))
                    .with(OwnedValue::string("Geometry::"))
                    .with(OwnedValue::string("Mesh"))
                    .with_child(OwnedNode::new("Vertices").with(OwnedValue::F64Array(ramp(300))))
                    .with_child(
                        OwnedNode::new("PolygonVertexIndex")
                            .with(OwnedValue::I32Array(vec![0, 1, 2, -4, 4, 5, -7])),
                    )
                    .with_child(OwnedNode::new("Empty").with(OwnedValue::F64Array(vec![])))
                    .with_child(OwnedNode::new("Properties70")),
            )
            .with_child(
                OwnedNode::new("AnimationCurve")
                    .with_child(OwnedNode::new("KeyTime").with(OwnedValue::I64Array(vec![
                        0,
                        46_186_158_000,
                        92_372_316_000,
                    ])))
                    .with_child(
                        OwnedNode::new("KeyValueFloat").with(OwnedValue::F32Array(vec![
                            0.0,
                            0.5,
                            f32::MAX,
                        ])),
                    )
                    .with_child(
                        OwnedNode::new("Flags")
                            .with(OwnedValue::BoolArray(vec![1, 0, 1, 1]))
                            .with(OwnedValue::ByteArray((0..=255).collect())),
                    ),
            ),
        OwnedNode::new("Takes"),
    ]
}
