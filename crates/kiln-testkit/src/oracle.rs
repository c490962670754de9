//! kiln-fbx's fuzz oracle: the checks the `fbx_binary` and `fbx_ascii` fuzz targets run, here so
//! that kiln-fbx's regression tests run the very same ones. Whatever parses must be walkable,
//! every value must decode or fail with an error (as every element type), and the decoded tree
//! must survive the writer (write, parse, compare). A failed check panics: that is how a fuzz
//! target reports a finding.

use kiln_fbx::{Compression, Document, ParseOptions, Value, WriteOptions, write_binary};

/// Parses `data` as binary FBX and checks everything; panics when the oracle fails. A
/// big-endian file is rewritten little-endian first (`kiln_fbx::to_little_endian`), and what
/// that gives must parse.
pub fn check_binary(data: &[u8]) {
    if let Ok(Some(little)) = kiln_fbx::to_little_endian(data) {
        // The rewrite nests as deep as the parsers ever allow, not the default limit.
        let deepest = ParseOptions {
            max_depth: kiln_fbx::MAX_DEPTH_LIMIT,
            ..ParseOptions::default()
        };
        let doc = Document::parse_binary(&little, &deepest)
            .expect("a big-endian file rewritten little-endian parses");
        check(&doc);
        return;
    }
    if let Ok(doc) = Document::parse_binary(data, &ParseOptions::default()) {
        check(&doc);
    }
}

/// Parses `data` as ASCII FBX and checks everything; panics when the oracle fails.
pub fn check_ascii(data: &[u8]) {
    if let Ok(doc) = Document::parse_ascii(data, &ParseOptions::default()) {
        check(&doc);
    }
}

fn check(doc: &Document<'_>) {
    // The arena's structure: each node is a child of its parent, depth under the limit.
    let max_depth = ParseOptions::default().max_depth;
    let mut reached = doc.roots().count();
    for node in doc.nodes() {
        assert!(node.depth() < max_depth);
        for child in node.children() {
            assert_eq!(child.parent(), Some(node));
            reached += 1;
        }
        let _ = node.path().names();
        for p in node.properties() {
            let _ = (
                p.as_bool(),
                p.as_i32(),
                p.as_i64(),
                p.as_f32(),
                p.as_f64(),
                p.as_str(),
            );
            let _ = p.location();
            match p.value() {
                Value::Array(a) => {
                    let n = a.len();
                    for len in [
                        a.decode::<f64>().map(|v| v.len()),
                        a.decode::<f32>().map(|v| v.len()),
                        a.decode::<i32>().map(|v| v.len()),
                        a.decode::<i64>().map(|v| v.len()),
                        a.decode::<u8>().map(|v| v.len()),
                    ]
                    .into_iter()
                    .flatten()
                    {
                        assert_eq!(len, n);
                    }
                    if let Ok(bytes) = a.to_le_bytes() {
                        assert_eq!(bytes.len(), n * a.ty().element_size());
                    }
                }
                Value::Raw(_) => {
                    let _ = p.as_raw();
                }
                _ => {}
            }
        }
        let _ = (node.f64_values(), node.i32_values());
    }
    assert_eq!(reached, doc.node_count());
    // Whatever decodes must round-trip through the writer.
    let Ok(tree) = doc.to_owned_nodes() else {
        return;
    };
    let fast_zlib = WriteOptions {
        compression: Compression::Zlib {
            level: 1,
            min_bytes: 0,
        },
        ..WriteOptions::V7500
    };
    for options in [WriteOptions::V7400, fast_zlib] {
        let Ok(bytes) = write_binary(&tree, &options) else {
            continue; // a name over 255 bytes (ASCII) cannot be written
        };
        let back = Document::parse(&bytes).expect("the writer's output parses");
        let again: Vec<_> = back.to_owned_nodes().expect("the writer's output decodes");
        assert!(again == tree, "the tree changed through the writer");
    }
}
