//! Writes seed inputs for the `fbx_binary`, `fbx_ascii` and `fbx_import` fuzz targets:
//! `cargo run -p kiln-testkit --example fbx_fuzz_seeds -- fuzz/corpus`.
//! Seeds: the FBX files of Assimp's corpus (/usr/share/assimp/models), and the writer's
//! output for a tree with every property type in 6100/7400/7500/7700, plain and compressed,
//! plus small ASCII files in the FBX 6.1 and 7.x dialects, and (also for `fbx_import`) a small
//! skinned, animated tube as FBX 6.1 with Takes (binary, ASCII), 5.0 binary and 5.8 ASCII,
//! and files with blend shapes.

use std::path::{Path, PathBuf};

use kiln_fbx::{Compression, Document, OwnedNode, OwnedValue, WriteOptions, write_binary};
use kiln_testkit::corpus;
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};
use kiln_testkit::fixtures::{legacy, morph};

fn tree() -> Vec<OwnedNode> {
    vec![
        OwnedNode::new("FBXHeaderExtension")
            .with_child(OwnedNode::new("FBXVersion").with(OwnedValue::I32(7400))),
        OwnedNode::new("Objects").with_child(
            OwnedNode::new("Geometry")
                .with(OwnedValue::I64(1))
                .with(OwnedValue::String(b"Cube\0\x01Geometry".to_vec()))
                .with(OwnedValue::Char(b'T'))
                .with(OwnedValue::I16(3))
                .with(OwnedValue::F32(0.5))
                .with(OwnedValue::F64(-1.5))
                .with(OwnedValue::Raw(vec![1, 2, 3]))
                .with_child(
                    OwnedNode::new("Vertices")
                        .with(OwnedValue::F64Array((0..60).map(f64::from).collect())),
                )
                .with_child(
                    OwnedNode::new("Index").with(OwnedValue::I32Array(vec![0, 1, -3, 2, 3, -5])),
                )
                .with_child(
                    OwnedNode::new("Times").with(OwnedValue::I64Array(vec![0, 46_186_158_000])),
                )
                .with_child(OwnedNode::new("Keys").with(OwnedValue::F32Array(vec![0.25; 40])))
                .with_child(
                    OwnedNode::new("Flags")
                        .with(OwnedValue::BoolArray(vec![1, 0, 1]))
                        .with(OwnedValue::ByteArray(vec![7; 50])),
                )
                .with_child(OwnedNode::new("Empty")),
        ),
    ]
}

const ASCII7: &str = "; FBX 7.4.0 project file\nObjects:  {\n\tGeometry: 1, \"Geometry::Cube\", \"Mesh\" {\n\t\tVertices: *3 {\n\t\t\ta: 0.5,-1,1.#INF\n\t\t}\n\t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3\n\t\t}\n\t\tShading: T\n\t\tP: \"Lcl Translation\", \"Lcl Translation\", \"\", \"A\",0,1.5,-2\n\t}\n\tVideo: 2, \"Video::v\", \"Clip\" {\n\t\tContent: , \"aGVs\",\n\t\t \"bG8=\"\n\t}\n}\n";
const ASCII6: &str = "; FBX 6.1.0 project file\r\nObjects:  {\r\n\tModel: \"Model::Cube\", \"Mesh\" {\r\n\t\tVertices: 1.0,-1.0,1.0,\r\n\t\t 1,-1,2\r\n\t\tPolygonVertexIndex: 0,1,-3\r\n\t}\r\n\tChannel: \"T\" {\r\n\t\tKey: 0,0,U,s,0,0,n,46186158000,1,L\r\n\t}\r\n}\r\n";

fn main() {
    let out = PathBuf::from(
        std::env::args()
            .nth(1)
            .unwrap_or_else(|| "fuzz/corpus".into()),
    );
    let (bin, ascii) = (out.join("fbx_binary"), out.join("fbx_ascii"));
    std::fs::create_dir_all(&bin).unwrap();
    std::fs::create_dir_all(&ascii).unwrap();
    let files = corpus::files(Path::new(corpus::ROOT), "fbx");
    assert!(
        !files.is_empty(),
        "install assimp-testmodels for the corpus seeds"
    );
    let mut n = 0;
    for f in files {
        let bytes = std::fs::read(&f).unwrap();
        let dir = if bytes.starts_with(b"Kaydara") {
            &bin
        } else {
            &ascii
        };
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        std::fs::write(dir.join(format!("corpus-{name}")), &bytes).unwrap();
        n += 1;
    }
    for version in [6100, 7400, 7500, 7700] {
        for (tag, compression) in [
            ("plain", Compression::None),
            (
                "zlib",
                Compression::Zlib {
                    level: 6,
                    min_bytes: 0,
                },
            ),
        ] {
            let bytes = write_binary(
                &tree(),
                &WriteOptions {
                    version,
                    compression,
                },
            )
            .unwrap();
            Document::parse(&bytes).unwrap();
            std::fs::write(bin.join(format!("writer-{version}-{tag}.fbx")), bytes).unwrap();
            let big = kiln_fbx::write_binary_big_endian(
                &tree(),
                &WriteOptions {
                    version,
                    compression,
                },
            )
            .unwrap();
            std::fs::write(bin.join(format!("writer-{version}-{tag}-big.fbx")), big).unwrap();
            n += 2;
        }
    }
    for (name, text) in [("fbx7.fbx", ASCII7), ("fbx6.fbx", ASCII6)] {
        Document::parse(text.as_bytes()).unwrap();
        std::fs::write(ascii.join(format!("writer-{name}")), text).unwrap();
        n += 1;
    }
    // Old versions through the whole import (fbx_import) and the tree readers: a small skinned,
    // animated tube as 6.1 with Takes (binary and ASCII), 5.0 binary and 5.8 ASCII.
    let import = out.join("fbx_import");
    std::fs::create_dir_all(&import).unwrap();
    let tube = skinned_tube(TubeSpec {
        rings: 3,
        segments: 3,
        bones: 2,
        frames: 3,
        per_corner: false,
    });
    let t74 = kiln_fbx_scene::write_fbx_nodes(&tube, &Default::default()).unwrap();
    let t61 = legacy::fbx61_tree(&t74);
    for (name, bytes) in [
        ("tube-6100-takes.fbx", legacy::fbx61(&tube)),
        ("tube-6100-takes-ascii.fbx", legacy::write_ascii(&t61, 6100)),
        ("tube-5000.fbx", legacy::fbx5(&tube, false)),
        ("tube-5800-ascii.fbx", legacy::fbx5(&tube, true)),
        // Blend shapes: sparse, in-between and dense targets with weight curves, whole and
        // cut by a material split.
        ("morph-tube.fbx", morph::morph_tube_file(false)),
        ("morph-tube-split.fbx", morph::morph_tube_file(true)),
        ("morph-tube-curves.fbx", morph::morph_tube_curves_file()),
        ("morph-tube-6100.fbx", legacy::fbx61(&morph::morph_tube())),
        (
            "morph-only.fbx",
            kiln_testkit::fixtures::fbx::morph_only_file(false),
        ),
    ] {
        kiln_fbx_scene::import(&bytes).unwrap();
        let dir = if bytes.starts_with(b"Kaydara") {
            &bin
        } else {
            &ascii
        };
        std::fs::write(dir.join(format!("writer-{name}")), &bytes).unwrap();
        std::fs::write(import.join(format!("writer-{name}")), &bytes).unwrap();
        n += 2;
    }
    println!("{n} seeds in {}", out.display());
}
