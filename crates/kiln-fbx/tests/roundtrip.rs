//! tree → bytes → tree is the identity, for arbitrary trees, in every version and
//! compression the writer offers.

use kiln_fbx::{
    ArrayEncoding, Compression, Document, ErrorKind, OwnedNode, OwnedValue, Value, WriteOptions,
    write_binary,
};
use kiln_testkit::fixtures::fbx::sample_tree;
use proptest::prelude::*;

fn value() -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        any::<u8>().prop_map(OwnedValue::Char),
        any::<i16>().prop_map(OwnedValue::I16),
        any::<i32>().prop_map(OwnedValue::I32),
        any::<i64>().prop_map(OwnedValue::I64),
        any::<u32>().prop_map(|b| OwnedValue::F32(f32::from_bits(b))),
        any::<u64>().prop_map(|b| OwnedValue::F64(f64::from_bits(b))),
        prop::collection::vec(any::<u8>(), 0..24).prop_map(OwnedValue::String),
        prop::collection::vec(any::<u8>(), 0..24).prop_map(OwnedValue::Raw),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(OwnedValue::BoolArray),
        prop::collection::vec(any::<u8>(), 0..40).prop_map(OwnedValue::ByteArray),
        prop::collection::vec(any::<i32>(), 0..40).prop_map(OwnedValue::I32Array),
        prop::collection::vec(any::<i64>(), 0..40).prop_map(OwnedValue::I64Array),
        prop::collection::vec(any::<u32>().prop_map(f32::from_bits), 0..40)
            .prop_map(OwnedValue::F32Array),
        prop::collection::vec(any::<u64>().prop_map(f64::from_bits), 0..40)
            .prop_map(OwnedValue::F64Array),
    ]
}

fn node_name() -> impl Strategy<Value = String> {
    // Any UTF-8 up to 255 bytes, the empty name included.
    prop_oneof![".{0,8}", "[A-Za-z]{1,4}", "x{255}"]
}

fn tree() -> impl Strategy<Value = Vec<OwnedNode>> {
    let leaf =
        (node_name(), prop::collection::vec(value(), 0..5)).prop_map(|(name, properties)| {
            OwnedNode {
                name,
                properties,
                children: vec![],
            }
        });
    let node = leaf.prop_recursive(4, 48, 5, |inner| {
        (
            node_name(),
            prop::collection::vec(value(), 0..4),
            prop::collection::vec(inner, 0..5),
        )
            .prop_map(|(name, properties, children)| OwnedNode {
                name,
                properties,
                children,
            })
    });
    prop::collection::vec(node, 0..5)
}

fn options() -> impl Strategy<Value = WriteOptions> {
    (
        prop::sample::select(vec![6100u32, 7100, 7400, 7500, 7700]),
        prop_oneof![
            Just(Compression::None),
            (0..=10u8, 0..64usize)
                .prop_map(|(level, min_bytes)| Compression::Zlib { level, min_bytes }),
        ],
    )
        .prop_map(|(version, compression)| WriteOptions {
            version,
            compression,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_trees_round_trip(tree in tree(), options in options()) {
        let bytes = write_binary(&tree, &options).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        prop_assert_eq!(doc.version(), options.version);
        prop_assert_eq!(doc.to_owned_nodes().unwrap(), tree);
        // Plain arrays are views of the written bytes, equal to the decoded values.
        for node in doc.nodes() {
            for p in node.properties() {
                if let Value::Array(a) = p.value() {
                    if let ArrayEncoding::Plain(bytes) = a.encoding() {
                        prop_assert_eq!(bytes.len(), a.len() * a.ty().element_size());
                        prop_assert_eq!(&*a.to_le_bytes().unwrap(), bytes);
                    }
                }
            }
        }
    }
}

#[test]
fn sample_tree_round_trips_in_every_variant() {
    let tree = sample_tree();
    for version in [6100, 7400, 7500, 7700] {
        for compression in [
            Compression::None,
            Compression::Zlib {
                level: 6,
                min_bytes: 0,
            },
            Compression::Zlib {
                level: 1,
                min_bytes: 128,
            },
        ] {
            let options = WriteOptions {
                version,
                compression,
            };
            let bytes = write_binary(&tree, &options).unwrap();
            let doc = Document::parse(&bytes).unwrap();
            assert_eq!(doc.to_owned_nodes().unwrap(), tree, "{options:?}");
            let vertices = doc
                .require_root("Objects")
                .unwrap()
                .require_child("Geometry")
                .unwrap();
            let vertices = vertices
                .require_child("Vertices")
                .unwrap()
                .property(0)
                .unwrap();
            let array = vertices.as_array().unwrap();
            let compressed = !matches!(compression, Compression::None);
            assert_eq!(array.is_compressed(), compressed, "{options:?}");
            assert_eq!(vertices.as_f64_array().unwrap()[299], 299.0 * 0.25 - 3.0);
            if let Some(view) = array.le_slice::<f64>() {
                assert_eq!(view.len(), 300);
                assert_eq!(view.get(4), Some(-2.0));
                assert_eq!(view.iter().last(), Some(71.75));
            } else {
                assert!(compressed);
            }
        }
    }
}

#[test]
fn the_writer_names_what_it_cannot_write() {
    let long = OwnedNode::new(&"n".repeat(256));
    let tree = [OwnedNode::new("Objects").with_child(long)];
    let e = write_binary(&tree, &WriteOptions::V7400).unwrap_err();
    assert!(matches!(e.kind, ErrorKind::Unwritable(m) if m.contains("255")));
    assert!(e.path.starts_with("Objects/nnnn"), "{}", e.path);
    let e = write_binary(
        &[],
        &WriteOptions {
            version: 8000,
            ..WriteOptions::V7400
        },
    )
    .unwrap_err();
    assert_eq!(e.kind, ErrorKind::UnsupportedVersion(8000));
}

#[test]
fn empty_documents_and_deep_writer_input() {
    // No nodes at all: the header, a null record and the footer.
    let bytes = write_binary(&[], &WriteOptions::V7500).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    assert_eq!((doc.node_count(), doc.version()), (0, 7500));
    // The writer takes any depth (a loop); the reader stops at its limit with an error.
    let mut deep = OwnedNode::new("leaf").with(OwnedValue::I32(1));
    for _ in 0..200 {
        deep = OwnedNode::new("n").with_child(deep);
    }
    let bytes = write_binary(&[deep], &WriteOptions::V7400).unwrap();
    let e = Document::parse(&bytes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooDeep { limit: 64 });
    assert_eq!(e.path.split('/').count(), 64);
    let opts = kiln_fbx::ParseOptions {
        max_depth: 300,
        ..Default::default()
    };
    let doc = Document::parse_with(&bytes, &opts).unwrap();
    assert_eq!(doc.node_count(), 201);
    assert_eq!(doc.nodes().last().unwrap().depth(), 200);
    assert_eq!(doc.nodes().last().unwrap().get_i32(0).unwrap(), 1);
}
