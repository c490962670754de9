//! Differential test against `fbxcel` 0.9 (an independent binary FBX reader): on every binary
//! corpus file it reads, and on generated files, both readers see the same nodes, properties
//! and values. fbxcel reads 6 of the corpus files: it has no ASCII reader, rejects the `c`
//! array type of the two 7500 files, and cannot read `transparentTest.fbx` (damaged).

use std::io::Cursor;

use fbxcel::low::v7400::AttributeValue as A;
use fbxcel::tree::any::AnyTree;
use fbxcel::tree::v7400::NodeHandle;
use kiln_fbx::{Document, Node, OwnedNode, OwnedValue, Value, WriteOptions, write_binary};
use kiln_testkit::corpus::{self, name, read};
use kiln_testkit::fixtures::fbx::{is_binary, sample_tree};
use proptest::prelude::*;

fn fbxcel_tree(bytes: &[u8]) -> Result<fbxcel::tree::v7400::Tree, String> {
    match AnyTree::from_seekable_reader(Cursor::new(bytes)) {
        Ok(AnyTree::V7400(_, tree, _)) => Ok(tree),
        Ok(_) => Err("unknown fbxcel tree version".into()),
        Err(e) => Err(e.to_string()),
    }
}

fn same_bits_f32(a: &[f32], b: &[f32]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

fn same_bits_f64(a: &[f64], b: &[f64]) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
}

/// Whether our property equals fbxcel's attribute (fbxcel reads `C` and `b` as the low bit).
fn same_value(p: &kiln_fbx::Property<'_, '_>, a: &A) -> Result<bool, String> {
    let e = |e: kiln_fbx::Error| e.to_string();
    Ok(match (p.value(), a) {
        (Value::Char(c), A::Bool(b)) => (c & 1 != 0) == *b,
        (Value::I16(x), A::I16(y)) => x == *y,
        (Value::I32(x), A::I32(y)) => x == *y,
        (Value::I64(x), A::I64(y)) => x == *y,
        (Value::F32(x), A::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::F64(x), A::F64(y)) => x.to_bits() == y.to_bits(),
        (Value::String(s), A::String(t)) => s == t.as_bytes(),
        (Value::Raw(_), A::Binary(t)) => *p.as_raw().map_err(e)? == t[..],
        (Value::Array(_), A::ArrBool(t)) => {
            let ours = p.as_array_of::<u8>().map_err(e)?;
            ours.len() == t.len() && ours.iter().zip(t).all(|(b, v)| (b & 1 != 0) == *v)
        }
        (Value::Array(a), A::ArrI32(t)) if a.ty().code() == b'i' => {
            *p.as_i32_array().map_err(e)? == t[..]
        }
        (Value::Array(a), A::ArrI64(t)) if a.ty().code() == b'l' => {
            *p.as_i64_array().map_err(e)? == t[..]
        }
        (Value::Array(a), A::ArrF32(t)) if a.ty().code() == b'f' => {
            same_bits_f32(&p.as_f32_array().map_err(e)?, t)
        }
        (Value::Array(a), A::ArrF64(t)) if a.ty().code() == b'd' => {
            same_bits_f64(&p.as_f64_array().map_err(e)?, t)
        }
        _ => false,
    })
}

/// Compares two sibling lists; returns the first difference with its path. Recursion is
/// bounded by the files' depth (under 10 in the corpus, 4 in generated trees).
fn compare<'d, 'a: 'd, 't>(
    ours: impl Iterator<Item = Node<'d, 'a>>,
    theirs: impl Iterator<Item = NodeHandle<'t>>,
    path: &str,
    counted: &mut (usize, usize),
) -> Result<(), String> {
    let ours: Vec<_> = ours.collect();
    let theirs: Vec<_> = theirs.collect();
    if ours.len() != theirs.len() {
        return Err(format!(
            "{path}: {} children here, {} in fbxcel",
            ours.len(),
            theirs.len()
        ));
    }
    for (o, t) in ours.iter().zip(&theirs) {
        let here = format!("{path}/{}", o.name());
        if o.name() != t.name() {
            return Err(format!("{here}: fbxcel names it {:?}", t.name()));
        }
        let attrs = t.attributes();
        if o.property_count() != attrs.len() {
            return Err(format!(
                "{here}: {} properties, fbxcel {}",
                o.property_count(),
                attrs.len()
            ));
        }
        for (p, a) in o.properties().zip(attrs) {
            if !same_value(&p, a)? {
                return Err(format!(
                    "{here}[{}]: {:?} vs fbxcel {a:?}",
                    p.index(),
                    p.value()
                ));
            }
        }
        counted.0 += 1;
        counted.1 += attrs.len();
        compare(o.children(), t.children(), &here, counted)?;
    }
    Ok(())
}

fn differential(bytes: &[u8]) -> Result<(usize, usize), String> {
    let doc = Document::parse(bytes).map_err(|e| format!("kiln-fbx: {e}"))?;
    let tree = fbxcel_tree(bytes).map_err(|e| format!("fbxcel: {e}"))?;
    let mut counted = (0, 0);
    compare(doc.roots(), tree.root().children(), "", &mut counted)?;
    assert_eq!(counted, (doc.node_count(), doc.property_count()));
    Ok(counted)
}

#[test]
fn corpus_files_fbxcel_reads_agree() {
    let mut read_by_fbxcel = Vec::new();
    for path in corpus::fbx_files() {
        let bytes = read(&path);
        if !is_binary(&bytes) {
            continue;
        }
        let rel = name(&path);
        match fbxcel_tree(&bytes) {
            Ok(_) => {
                let (nodes, props) = differential(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
                assert!(
                    nodes > 100 && props > nodes,
                    "{rel}: {nodes} nodes {props} props"
                );
                read_by_fbxcel.push(rel);
            }
            Err(e) => {
                // We read the files fbxcel cannot (except the damaged one).
                if rel != "FBX/transparentTest.fbx" {
                    Document::parse(&bytes).unwrap_or_else(|e2| panic!("{rel}: {e2} ({e})"));
                }
            }
        }
    }
    assert_eq!(
        read_by_fbxcel,
        [
            "FBX/animation_with_skeleton.fbx",
            "FBX/box.fbx",
            "FBX/global_settings.fbx",
            "FBX/huesitos.fbx",
            "FBX/phong_cube.fbx",
            "FBX/spider.fbx",
        ]
    );
}

#[test]
fn corpus_trees_rewritten_agree_in_7500_and_compressed() {
    // The corpus trees (ASCII ones included, and the `c`-array files with their arrays made
    // `b` so fbxcel can read them) written in every variant.
    for path in corpus::fbx_files() {
        let rel = name(&path);
        if rel == "FBX/transparentTest.fbx" {
            continue;
        }
        let bytes = read(&path);
        let mut tree = Document::parse(&bytes).unwrap().to_owned_nodes().unwrap();
        let mut stack: Vec<&mut OwnedNode> = tree.iter_mut().collect();
        while let Some(n) = stack.pop() {
            for p in &mut n.properties {
                if let OwnedValue::ByteArray(v) = p {
                    *p = OwnedValue::BoolArray(std::mem::take(v));
                }
            }
            stack.extend(n.children.iter_mut());
        }
        for options in [
            WriteOptions::V7400,
            WriteOptions::V7500,
            WriteOptions::V7400.compressed(),
            WriteOptions::V7500.compressed(),
        ] {
            let written = write_binary(&tree, &options).unwrap();
            differential(&written).unwrap_or_else(|e| panic!("{rel} {options:?}: {e}"));
        }
    }
}

#[test]
fn sample_tree_agrees_without_c_arrays() {
    let mut tree = sample_tree();
    tree[1].children[1].children[2].properties.pop(); // the `c` array
    for options in [WriteOptions::V7400, WriteOptions::V7500.compressed()] {
        let bytes = write_binary(&tree, &options).unwrap();
        let (nodes, props) = differential(&bytes).unwrap();
        assert_eq!((nodes, props), (12, 18));
    }
}

fn utf8_value() -> impl Strategy<Value = OwnedValue> {
    prop_oneof![
        any::<u8>().prop_map(|b| OwnedValue::Char(b & 1)),
        any::<i16>().prop_map(OwnedValue::I16),
        any::<i32>().prop_map(OwnedValue::I32),
        any::<i64>().prop_map(OwnedValue::I64),
        any::<u32>().prop_map(|b| OwnedValue::F32(f32::from_bits(b))),
        any::<u64>().prop_map(|b| OwnedValue::F64(f64::from_bits(b))),
        ".{0,12}".prop_map(|s: String| OwnedValue::String(s.into_bytes())),
        prop::collection::vec(any::<u8>(), 0..20).prop_map(OwnedValue::Raw),
        prop::collection::vec(0..2u8, 0..20).prop_map(OwnedValue::BoolArray),
        prop::collection::vec(any::<i32>(), 0..40).prop_map(OwnedValue::I32Array),
        prop::collection::vec(any::<i64>(), 0..40).prop_map(OwnedValue::I64Array),
        prop::collection::vec(any::<u32>().prop_map(f32::from_bits), 0..40)
            .prop_map(OwnedValue::F32Array),
        prop::collection::vec(any::<u64>().prop_map(f64::from_bits), 0..40)
            .prop_map(OwnedValue::F64Array),
    ]
}

fn utf8_tree() -> impl Strategy<Value = Vec<OwnedNode>> {
    let leaf = (
        "[A-Za-z0-9_]{1,10}",
        prop::collection::vec(utf8_value(), 0..5),
    )
        .prop_map(|(name, properties)| OwnedNode {
            name,
            properties,
            children: vec![],
        });
    let node = leaf.prop_recursive(3, 40, 5, |inner| {
        (
            "[A-Za-z0-9_]{1,10}",
            prop::collection::vec(utf8_value(), 0..4),
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

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn generated_files_agree(tree in utf8_tree(), wide in any::<bool>(), zlib in any::<bool>()) {
        let base = if wide { WriteOptions::V7500 } else { WriteOptions::V7400 };
        let options = if zlib { base.compressed() } else { base };
        let bytes = write_binary(&tree, &options).unwrap();
        differential(&bytes).map_err(TestCaseError::fail)?;
    }
}
