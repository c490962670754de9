//! Bad input gives an error with its location and what was expected, never a panic: every
//! truncation, lengths past the end, counts that disagree with byte lengths or inflated
//! sizes, zlib bombs, deep nesting, invalid UTF-8 names, unbalanced ASCII braces.

use kiln_fbx::{
    Document, ErrorKind, Location, OwnedNode, OwnedValue, ParseOptions, Value, WriteOptions,
    write_binary,
};
use kiln_testkit::corpus::model;
use kiln_testkit::fixtures::fbx::sample_tree;

fn one(value: OwnedValue, options: &WriteOptions) -> Vec<u8> {
    write_binary(&[OwnedNode::new("A").with(value)], options).unwrap()
}

fn patch_u32(bytes: &mut [u8], at: usize, v: u32) {
    bytes[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn binary_err(bytes: &[u8]) -> kiln_fbx::Error {
    Document::parse_binary(bytes, &ParseOptions::default()).unwrap_err()
}

/// Decodes every value of a document (as the fuzz targets do); returns the first error.
fn decode_all(doc: &Document<'_>) -> Result<(), kiln_fbx::Error> {
    for node in doc.nodes() {
        for p in node.properties() {
            match p.value() {
                Value::Array(a) => {
                    a.to_le_bytes().map_err(|k| p.error(k))?;
                }
                Value::Raw(_) => {
                    p.as_raw()?;
                }
                _ => {}
            }
        }
    }
    Ok(())
}

// Layout of `one(...)` in 7400: header 0..27, record header at 27 (end 27, count 31, bytes
// 35, name length 39), name "A" at 40, the property's type code at 41.

#[test]
fn record_lengths_past_the_end() {
    let good = one(OwnedValue::I32(7), &WriteOptions::V7400);
    let mut b = good.clone();
    patch_u32(&mut b, 27, 1_000_000);
    let e = binary_err(&b);
    assert_eq!(e.location, Location::Byte(27));
    assert!(matches!(
        e.kind,
        ErrorKind::EndOffsetPastLimit {
            end: 1_000_000,
            container: "file",
            ..
        }
    ));

    let mut b = good.clone();
    patch_u32(&mut b, 27, 30);
    assert!(matches!(
        binary_err(&b).kind,
        ErrorKind::EndOffsetTooSmall { end: 30, min: 46 }
    ));

    let mut b = good.clone();
    patch_u32(&mut b, 35, 1_000_000);
    assert!(matches!(
        binary_err(&b).kind,
        ErrorKind::EndOffsetTooSmall { .. }
    ));

    let mut b = good.clone();
    patch_u32(&mut b, 31, 1000);
    let e = binary_err(&b);
    assert_eq!(
        e.kind,
        ErrorKind::TooManyProperties {
            count: 1000,
            bytes: 5
        }
    );

    let mut b = good.clone();
    patch_u32(&mut b, 31, 0);
    let e = binary_err(&b);
    assert_eq!(
        e.kind,
        ErrorKind::PropertyListLength {
            count: 0,
            declared: 5,
            actual: 0
        }
    );
    assert_eq!(e.location, Location::Byte(41));
    assert_eq!(e.path, "A");
}

#[test]
fn string_and_array_lengths_past_the_end() {
    let mut b = one(OwnedValue::string("abc"), &WriteOptions::V7400);
    patch_u32(&mut b, 42, 1000);
    let e = binary_err(&b);
    assert_eq!(e.location, Location::Byte(46));
    assert_eq!(
        e.kind,
        ErrorKind::UnexpectedEnd {
            expected: "string or blob bytes",
            needed: 1000,
            available: 3
        }
    );
    assert_eq!(e.path, "A");

    let mut b = one(OwnedValue::I32Array(vec![1, 2, 3]), &WriteOptions::V7400);
    patch_u32(&mut b, 42, 4);
    let e = binary_err(&b);
    assert_eq!(e.location, Location::Byte(41));
    assert_eq!(
        e.kind,
        ErrorKind::ArraySizeMismatch {
            ty: 'i',
            count: 4,
            expected: 16,
            found: 12
        }
    );
    let mut b = one(OwnedValue::I32Array(vec![1, 2, 3]), &WriteOptions::V7400);
    patch_u32(&mut b, 50, 4000);
    patch_u32(&mut b, 42, 1000);
    assert!(matches!(
        binary_err(&b).kind,
        ErrorKind::UnexpectedEnd {
            expected: "array data",
            ..
        }
    ));
}

#[test]
fn unknown_codes_encodings_and_names() {
    let good = one(OwnedValue::I32Array(vec![1, 2, 3]), &WriteOptions::V7400);
    let mut b = good.clone();
    b[41] = b'x';
    let e = binary_err(&b);
    assert_eq!(
        (e.location, e.kind),
        (
            Location::Byte(41),
            ErrorKind::UnknownPropertyType { found: b'x' }
        )
    );
    let mut b = good.clone();
    patch_u32(&mut b, 46, 2);
    let e = binary_err(&b);
    assert_eq!(
        (e.location, e.kind),
        (Location::Byte(46), ErrorKind::UnknownArrayEncoding(2))
    );
    let mut b = good.clone();
    b[40] = 0xff;
    let e = binary_err(&b);
    assert_eq!(
        (e.location, e.kind),
        (Location::Byte(40), ErrorKind::NameNotUtf8)
    );
    // ASCII: the name's line and column.
    let e = Document::parse(b"Objects: {\n  \xffModel: 1\n}\n").unwrap_err();
    assert_eq!(e.kind, ErrorKind::NameNotUtf8);
    assert!(matches!(
        e.location,
        Location::Text {
            line: 2,
            column: 3,
            ..
        }
    ));
}

#[test]
fn header_and_null_records() {
    let good = one(OwnedValue::I32(7), &WriteOptions::V7400);
    let mut b = good.clone();
    b[21] = 0x1b;
    let e = binary_err(&b);
    assert_eq!(
        (e.location, e.kind),
        (
            Location::Byte(21),
            ErrorKind::BadHeader {
                expected: 0x1a,
                found: 0x1b
            }
        )
    );
    let mut b = good.clone();
    patch_u32(&mut b, 23, 1000);
    assert_eq!(binary_err(&b).kind, ErrorKind::UnsupportedVersion(1000));
    assert!(matches!(
        binary_err(&good[..26]).kind,
        ErrorKind::UnexpectedEnd {
            expected: "the header's version",
            ..
        }
    ));
    assert!(matches!(
        binary_err(b"Kaydara").kind,
        ErrorKind::UnexpectedEnd { .. }
    ));
    // The top-level null record (at 46) with a stray byte: its zero end offset ends the nodes,
    // as the FBX SDK and ufbx read it; the tree is the same.
    let mut b = good.clone();
    b[46 + 5] = 1;
    let doc = kiln_fbx::Document::parse(&b).unwrap();
    assert_eq!(
        doc.nodes().count(),
        kiln_fbx::Document::parse(&good).unwrap().nodes().count()
    );
    // A child list whose null record ends before its parent's end offset.
    let tree = [OwnedNode::new("A").with_child(OwnedNode::new("B").with(OwnedValue::I32(1)))];
    let mut b = write_binary(&tree, &WriteOptions::V7400).unwrap();
    // A at 27 (name at 40), B at 41 (props 55..60), null 60..73.
    b.insert(73, 0);
    patch_u32(&mut b, 27, 74);
    let e = binary_err(&b);
    assert_eq!(
        e.kind,
        ErrorKind::ChildListEnd {
            found: 73,
            expected: 74
        }
    );
    assert_eq!(e.path, "A");
}

#[test]
fn inflated_sizes_must_match_the_count() {
    let z = WriteOptions::V7400.compressed();
    let good = one(OwnedValue::I32Array(vec![1, 2, 3]), &z);
    let decode = |b: &[u8]| {
        let doc = Document::parse(b).unwrap();
        let p = doc.root("A").unwrap().property(0).unwrap();
        p.as_i32_array().map(|v| v.into_owned())
    };
    assert_eq!(decode(&good).unwrap(), [1, 2, 3]);
    let mut b = good.clone();
    patch_u32(&mut b, 42, 4);
    let e = decode(&b).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::InflatedSizeMismatch {
            expected: 16,
            found: 12
        }
    );
    assert_eq!(
        (e.location, e.path.as_str(), e.property),
        (Location::Byte(41), "A", Some(0))
    );
    let mut b = good.clone();
    patch_u32(&mut b, 42, 2);
    assert_eq!(
        decode(&b).unwrap_err().kind,
        ErrorKind::InflatedTooLarge { expected: 8 }
    );
    // A corrupt stream.
    let mut b = good.clone();
    let len = u32::from_le_bytes(b[50..54].try_into().unwrap()) as usize;
    b[54 + len - 1] ^= 0x55;
    assert!(matches!(
        decode(&b).unwrap_err().kind,
        ErrorKind::Inflate(_)
    ));
}

#[test]
fn zlib_bombs_are_capped_by_the_declared_count() {
    // 64 MiB of zeros compress to about 64 KiB; the array declares 100 elements.
    let z = WriteOptions::V7400.compressed();
    let mut b = one(OwnedValue::BoolArray(vec![0; 64 << 20]), &z);
    assert!(b.len() < 100 << 10);
    patch_u32(&mut b, 42, 100);
    let doc = Document::parse(&b).unwrap();
    let p = doc.root("A").unwrap().property(0).unwrap();
    assert_eq!(
        p.as_bool_array().unwrap_err().kind,
        ErrorKind::InflatedTooLarge { expected: 100 }
    );
    // A count deflate cannot reach from the compressed size fails when parsed.
    let mut b = one(OwnedValue::F64Array(vec![0.0; 16]), &z);
    let compressed = u32::from_le_bytes(b[50..54].try_into().unwrap());
    patch_u32(&mut b, 42, u32::MAX);
    let e = binary_err(&b);
    assert_eq!(e.location, Location::Byte(41));
    assert_eq!(
        e.kind,
        ErrorKind::InflateBomb {
            declared: u64::from(u32::MAX) * 8,
            compressed: u64::from(compressed),
            max: u64::from(compressed) * 1032 + 1032,
        }
    );
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // 100 000 nested records, built by hand: record i at 27 + 14 i, name "n", no properties.
    let depth = 100_000usize;
    let mut b = Vec::with_capacity(27 + depth * 27 + 13);
    b.extend_from_slice(kiln_fbx::MAGIC);
    b.extend_from_slice(&7400u32.to_le_bytes());
    let innermost_end = 27 + 14 * depth;
    for i in 0..depth {
        let end = innermost_end + 13 * (depth - 1 - i);
        b.extend_from_slice(&(end as u32).to_le_bytes());
        b.extend_from_slice(&[0; 8]);
        b.extend_from_slice(b"\x01n");
    }
    b.resize(b.len() + 13 * depth, 0);
    let e = binary_err(&b);
    assert_eq!(e.kind, ErrorKind::TooDeep { limit: 64 });
    assert_eq!(e.location, Location::Byte(27 + 14 * 64));
    let opts = ParseOptions {
        max_depth: usize::MAX,
        ..ParseOptions::default()
    };
    let e = Document::parse_with(&b, &opts).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::TooDeep {
            limit: kiln_fbx::MAX_DEPTH_LIMIT
        }
    );

    let text = "a: {".repeat(depth);
    let e = Document::parse(text.as_bytes()).unwrap_err();
    assert_eq!(e.kind, ErrorKind::TooDeep { limit: 64 });
    assert!(
        matches!(
            e.location,
            Location::Text {
                line: 1,
                column: 257,
                ..
            }
        ),
        "{e}"
    );
}

#[test]
fn ascii_structure_errors() {
    let err = |s: &str| Document::parse(s.as_bytes()).unwrap_err();
    let e = err("A: {\n}\n}\n");
    assert_eq!(e.kind, ErrorKind::UnbalancedClose);
    assert!(matches!(
        e.location,
        Location::Text {
            line: 3,
            column: 1,
            ..
        }
    ));
    let e = err("A: {\n  B: 1 {\n  C: 2\n");
    assert_eq!(
        e.kind,
        ErrorKind::UnclosedNode {
            name: "B".into(),
            line: 2
        }
    );
    assert_eq!(e.path, "A/B");
    let e = err("A: \"abc\n");
    assert_eq!(e.kind, ErrorKind::UnterminatedString);
    assert!(matches!(
        e.location,
        Location::Text {
            line: 1,
            column: 4,
            ..
        }
    ));
    let e = err("Objects {\n}\n");
    assert!(
        matches!(
            e.kind,
            ErrorKind::Expected {
                expected: "':' after the node name",
                ..
            }
        ),
        "{e}"
    );
    // A `*N` the values disagree with is the array's error when decoded, not the file's (as
    // Assimp drops the object and reads the rest), and a large `*N` reserves nothing.
    for (text, declared, found) in [
        ("A: *3 {\n a: 1,2\n}\nB: 1\n", 3, 2),
        ("A: *2 {\n a: 1.5,2,3\n}\nB: 1\n", 2, 3),
        ("A: *4000000000 {\n a: 1\n}\nB: 1\n", 4_000_000_000, 1),
    ] {
        let doc = Document::parse(text.as_bytes()).unwrap();
        assert!(doc.root("B").is_some());
        let a = doc.root("A").unwrap();
        let e = a.f64_values().unwrap_err();
        assert_eq!(
            e.kind,
            ErrorKind::ArrayCountMismatch { declared, found },
            "{text}"
        );
        assert!(a.i64_values().is_err() && a.f32_values().is_err());
    }
    let e = err("A: *3 {\n a: 1,2,3\n");
    assert!(matches!(
        e.kind,
        ErrorKind::Expected {
            expected: "'}' closing the array",
            ..
        }
    ));
    let e = err("A: *3 1,2,3\n");
    assert!(matches!(
        e.kind,
        ErrorKind::Expected {
            expected: "'{' after the array length",
            ..
        }
    ));
    let e = err("A: *99999999999 {\n}\n");
    assert!(matches!(e.kind, ErrorKind::OutOfRange { .. }));
    let e = err("");
    assert_eq!(e.kind, ErrorKind::NotFbx);
    let e = err("; only a comment\n");
    assert_eq!(e.kind, ErrorKind::NotFbx);
    let e = err("\x00\x01binary junk");
    assert!(matches!(e.kind, ErrorKind::Expected { .. }), "{e}");
}

#[test]
fn ascii_values_that_fail_when_decoded() {
    let doc = Document::parse(b"A: *2 {\n a: 1,x\n}\nContent: \"a*b\"\n").unwrap();
    let a = doc.root("A").unwrap().property(0).unwrap();
    let e = a.as_f64_array().unwrap_err();
    assert!(
        matches!(e.kind, ErrorKind::BadNumber { ref text } if text == "x"),
        "{e}"
    );
    assert!(matches!(
        e.location,
        Location::Text {
            line: 1,
            column: 4,
            ..
        }
    ));
    let c = doc.root("Content").unwrap().property(0).unwrap();
    assert_eq!(c.as_raw().unwrap_err().kind, ErrorKind::Base64 { index: 2 });
}

/// Where the top-level null record of a binary file ends (the last byte a parse needs).
/// The shortest prefix that still parses: the footer after it is not needed.
fn nodes_end(bytes: &[u8]) -> usize {
    let mut cut = bytes.len();
    while cut > 0 && Document::parse(&bytes[..cut - 1]).is_ok() {
        cut -= 1;
    }
    cut
}

#[test]
fn every_truncation_of_a_binary_file_is_an_error() {
    let mut files = vec![model("FBX/box.fbx")];
    for options in [
        WriteOptions::V7400.compressed(),
        WriteOptions::V7500,
        WriteOptions::V7500.compressed(),
    ] {
        files.push(write_binary(&sample_tree(), &options).unwrap());
    }
    for bytes in files {
        let end = nodes_end(&bytes);
        let full = Document::parse(&bytes).unwrap().to_owned_nodes().unwrap();
        assert!(
            end < bytes.len() && end > bytes.len() - 200,
            "footer ~160 bytes: {end}"
        );
        for cut in 0..end {
            let e = Document::parse(&bytes[..cut]).unwrap_err();
            let at = e.location.offset().unwrap() as usize;
            assert!(at <= cut, "cut {cut}: error at {at}");
            if cut >= 27 {
                assert!(matches!(e.location, Location::Byte(_)));
            }
        }
        // The footer is not needed.
        let doc = Document::parse(&bytes[..end]).unwrap();
        assert_eq!(doc.to_owned_nodes().unwrap(), full);
    }
}

#[test]
fn truncated_ascii_fails_unless_cut_between_top_level_nodes() {
    let bytes = model("FBX/maxPbrMaterial_metalRough.fbx");
    let full = Document::parse(&bytes).unwrap().node_count();
    let (mut depth, mut in_string, mut in_comment) = (0i32, false, false);
    let mut oks = 0;
    for cut in 0..bytes.len() {
        // Brace depth and string state of the prefix, before byte `cut`.
        if cut > 0 {
            match bytes[cut - 1] {
                b'\n' => in_comment = false,
                _ if in_comment => {}
                b'"' => in_string = !in_string,
                b';' if !in_string => in_comment = true,
                b'{' if !in_string => depth += 1,
                b'}' if !in_string => depth -= 1,
                _ => {}
            }
        }
        match Document::parse(&bytes[..cut]) {
            Ok(doc) => {
                oks += 1;
                assert!(depth == 0 && !in_string, "cut {cut} parsed inside a node");
                assert!(doc.node_count() <= full);
            }
            Err(e) => {
                assert!(
                    matches!(e.location, Location::Text { offset, .. } if offset as usize <= cut)
                );
                if depth > 0 && !in_string && !in_comment {
                    assert!(
                        matches!(
                            e.kind,
                            ErrorKind::UnclosedNode { .. }
                                | ErrorKind::Expected { .. }
                                | ErrorKind::BadNumber { .. }
                                | ErrorKind::UnterminatedString
                        ),
                        "cut {cut}: {e}"
                    );
                }
            }
        }
    }
    assert!(oks > 0 && oks < bytes.len() / 10, "{oks} prefixes parsed");
}

#[test]
fn every_byte_flipped_never_panics() {
    let bytes = write_binary(&sample_tree(), &WriteOptions::V7500.compressed()).unwrap();
    let mut errors = 0;
    for i in 0..bytes.len() {
        for flip in [0x01u8, 0x80, 0xff] {
            let mut b = bytes.clone();
            b[i] ^= flip;
            match Document::parse(&b) {
                Ok(doc) => {
                    if decode_all(&doc).is_err() {
                        errors += 1;
                    }
                }
                Err(_) => errors += 1,
            }
        }
    }
    assert!(errors > bytes.len(), "{errors} errors");
    let text = model("FBX/maxPbrMaterial_metalRough.fbx");
    for i in (0..text.len()).step_by(3) {
        let mut b = text.clone();
        b[i] = b"{}\",:;*a1\n\xff"[i % 11];
        if let Ok(doc) = Document::parse(&b) {
            let _ = decode_all(&doc);
        }
    }
}
