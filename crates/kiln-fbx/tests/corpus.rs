//! The FBX files of Assimp's model corpus (Debian `assimp-testmodels`): every file parses
//! (except `transparentTest.fbx`, damaged, which Assimp rejects too), every value decodes,
//! known values read back (cross-checked with an independent Python reading of the files),
//! and every tree round-trips through the writer in all four binary variants.

use kiln_fbx::{
    ArrayEncoding, ArrayType, Document, ErrorKind, Format, Location, Value, WriteOptions,
    write_binary,
};
use kiln_testkit::corpus::{self, model, name, read};

/// (file, format, version, nodes, properties), as read by this crate; the node and property
/// counts of the binary files match an independent Python walk of the records.
const EXPECTED: &[(&str, Format, u32, usize, usize)] = &[
    (
        "FBX/animation_with_skeleton.fbx",
        Format::Binary,
        7400,
        2509,
        5994,
    ),
    ("FBX/box.fbx", Format::Binary, 7400, 264, 942),
    (
        "FBX/boxWithCompressedCTypeArray.FBX",
        Format::Binary,
        7500,
        192,
        692,
    ),
    (
        "FBX/boxWithUncompressedCTypeArray.FBX",
        Format::Binary,
        7500,
        192,
        692,
    ),
    (
        "FBX/box_orphant_embedded_texture.fbx",
        Format::Ascii,
        7500,
        510,
        1628,
    ),
    (
        "FBX/close_to_identity_transforms.fbx",
        Format::Ascii,
        7500,
        567,
        1453,
    ),
    ("FBX/cubes_nonames.fbx", Format::Ascii, 7500, 564, 1432),
    (
        "FBX/cubes_with_mirroring_and_pivot.fbx",
        Format::Ascii,
        7500,
        567,
        1453,
    ),
    ("FBX/cubes_with_names.fbx", Format::Ascii, 7500, 564, 1432),
    (
        "FBX/cubes_with_outofrange_float.fbx",
        Format::Ascii,
        7500,
        564,
        1432,
    ),
    ("FBX/embedded_ascii/box.FBX", Format::Ascii, 7400, 371, 1282),
    (
        "FBX/embedded_ascii/box_embedded_texture_fragmented.fbx",
        Format::Ascii,
        7500,
        487,
        1579,
    ),
    ("FBX/global_settings.fbx", Format::Binary, 7400, 550, 2151),
    ("FBX/huesitos.fbx", Format::Binary, 7400, 1848, 4623),
    (
        "FBX/maxPbrMaterial_metalRough.fbx",
        Format::Ascii,
        7700,
        473,
        1490,
    ),
    (
        "FBX/maxPbrMaterial_specGloss.fbx",
        Format::Ascii,
        7700,
        473,
        1493,
    ),
    ("FBX/phong_cube.fbx", Format::Binary, 7400, 289, 1062),
    ("FBX/spider.fbx", Format::Binary, 7400, 1520, 3716),
];

#[test]
fn every_corpus_file_parses_with_the_expected_shape() {
    let files = corpus::fbx_files();
    assert_eq!(files.len(), EXPECTED.len() + 1, "corpus files: {files:?}");
    for path in &files {
        let rel = name(path);
        let bytes = read(path);
        if rel == "FBX/transparentTest.fbx" {
            continue;
        }
        let doc = Document::parse(&bytes).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let &(_, format, version, nodes, props) = EXPECTED
            .iter()
            .find(|e| e.0 == rel)
            .unwrap_or_else(|| panic!("{rel} not in EXPECTED"));
        assert_eq!(
            (
                doc.format(),
                doc.version(),
                doc.node_count(),
                doc.property_count()
            ),
            (format, version, nodes, props),
            "{rel}"
        );
        // Every top-level file has the SDK's top-level nodes.
        for top in [
            "FBXHeaderExtension",
            "GlobalSettings",
            "Objects",
            "Connections",
        ] {
            assert!(doc.root(top).is_some(), "{rel}: no {top}");
        }
    }
}

#[test]
fn transparent_test_is_rejected_with_the_reason() {
    let bytes = model("FBX/transparentTest.fbx");
    let e = Document::parse(&bytes).unwrap_err();
    assert_eq!(e.kind, ErrorKind::NulBytesReplaced);
    assert_eq!(e.location, Location::Byte(20));
    assert!(
        e.to_string()
            .contains("every NUL byte was replaced by a space"),
        "{e}"
    );
}

#[test]
fn every_value_of_every_file_decodes() {
    for path in corpus::fbx_files() {
        let rel = name(&path);
        if rel == "FBX/transparentTest.fbx" {
            continue;
        }
        let bytes = read(&path);
        let doc = Document::parse(&bytes).unwrap();
        let mut arrays = 0;
        for node in doc.nodes() {
            for p in node.properties() {
                match p.value() {
                    Value::Array(a) => {
                        arrays += 1;
                        let le = a.to_le_bytes().unwrap_or_else(|e| panic!("{rel}: {e}"));
                        assert_eq!(le.len(), a.len() * a.ty().element_size(), "{rel}");
                    }
                    Value::Raw(_) => {
                        p.as_raw()
                            .unwrap_or_else(|e| panic!("{rel}: {}", p.error(e.kind)));
                    }
                    _ => {}
                }
            }
        }
        assert!(arrays > 0, "{rel} has arrays");
        doc.to_owned_nodes()
            .unwrap_or_else(|e| panic!("{rel}: {e}"));
    }
}

fn first_array<'d, 'a>(doc: &'d Document<'a>, name: &str) -> kiln_fbx::Property<'d, 'a> {
    doc.nodes()
        .find(|n| n.name() == name && n.property_count() == 1)
        .unwrap_or_else(|| panic!("no {name}"))
        .property(0)
        .unwrap()
}

#[test]
fn known_values_read_back() {
    // Values from an independent reading of the records with Python's struct and zlib.
    let box_fbx = model("FBX/box.fbx");
    let doc = Document::parse(&box_fbx).unwrap();
    let v = first_array(&doc, "Vertices");
    assert!(matches!(v.value(), Value::Array(a) if a.ty() == ArrayType::F64 && a.len() == 72));
    let verts = v.as_f64_array().unwrap();
    assert_eq!(&verts[..3], &[100.0, 100.0, -100.0]);
    assert_eq!(verts.iter().sum::<f64>(), 0.0);
    let idx = first_array(&doc, "PolygonVertexIndex")
        .as_i32_array()
        .unwrap();
    assert_eq!(
        (idx.len(), &idx[..3], idx.iter().sum::<i32>()),
        (36, &[0, 1, -3][..], 114)
    );
    let shading = doc.nodes().find(|n| n.name() == "Shading").unwrap();
    assert_eq!(shading.value(0), Some(Value::Char(b'T')));
    assert!(shading.property(0).unwrap().as_bool().unwrap());

    let hues = model("FBX/huesitos.fbx");
    let doc = Document::parse(&hues).unwrap();
    let v = first_array(&doc, "Vertices");
    assert!(v.as_array().unwrap().is_compressed());
    let verts = v.as_f64_array().unwrap();
    assert_eq!(verts.len(), 186);
    assert_eq!(verts[2], -1.256192684173584);
    assert!((verts.iter().sum::<f64>() - 118.44276174263686).abs() < 1e-9);
    let times = first_array(&doc, "KeyTime").as_i64_array().unwrap();
    assert_eq!(&*times, &[0, 72_050_406_480]);

    let anim = model("FBX/animation_with_skeleton.fbx");
    let doc = Document::parse(&anim).unwrap();
    let keys = first_array(&doc, "KeyValueFloat");
    assert_eq!(keys.as_array().unwrap().ty(), ArrayType::F32);
    assert_eq!(
        &*keys.as_f32_array().unwrap(),
        &[1.2250072e-7f32, 1.2250072e-7]
    );
    assert_eq!(keys.as_f64_array().unwrap()[0], f64::from(1.2250072e-7f32));

    let spider = model("FBX/spider.fbx");
    let doc = Document::parse(&spider).unwrap();
    let idx = first_array(&doc, "PolygonVertexIndex")
        .as_i32_array()
        .unwrap();
    assert_eq!((idx.len(), idx.iter().sum::<i32>()), (126, 457));
}

#[test]
fn c_type_arrays_compressed_and_plain_agree() {
    let z = model("FBX/boxWithCompressedCTypeArray.FBX");
    let plain = model("FBX/boxWithUncompressedCTypeArray.FBX");
    let (z, plain) = (
        Document::parse(&z).unwrap(),
        Document::parse(&plain).unwrap(),
    );
    let (a, b) = (
        first_array(&z, "ImageData"),
        first_array(&plain, "ImageData"),
    );
    let (aa, ba) = (a.as_array().unwrap(), b.as_array().unwrap());
    assert_eq!(
        (aa.ty(), aa.len(), aa.is_compressed()),
        (ArrayType::Byte, 12288, true)
    );
    assert_eq!(
        (ba.ty(), ba.len(), ba.is_compressed()),
        (ArrayType::Byte, 12288, false)
    );
    let (av, bv) = (
        a.as_array_of::<u8>().unwrap(),
        b.as_array_of::<u8>().unwrap(),
    );
    assert_eq!(av, bv);
    assert_eq!(av.iter().map(|&b| u64::from(b)).sum::<u64>(), 3_133_440);
    // The plain one is borrowed from the file.
    assert!(matches!(bv, std::borrow::Cow::Borrowed(_)));
    assert!(matches!(ba.encoding(), ArrayEncoding::Plain(s) if s.len() == 12288));
    // Otherwise the two files hold the same tree shape: names and property types.
    fn shape(d: &Document<'_>) -> Vec<(String, usize, Vec<u8>)> {
        d.nodes()
            .map(|n| {
                let types: Vec<u8> = n.properties().map(|p| p.value().type_code()).collect();
                (n.name().to_string(), n.depth(), types)
            })
            .collect()
    }
    assert!(shape(&z) == shape(&plain), "the two files differ in shape");
}

#[test]
fn ascii_values_are_typed_like_binary_ones() {
    let bytes = model("FBX/embedded_ascii/box_embedded_texture_fragmented.fbx");
    let doc = Document::parse(&bytes).unwrap();
    let geometry = doc
        .require_root("Objects")
        .unwrap()
        .require_child("Geometry")
        .unwrap();
    assert_eq!(
        geometry.get_i64(0).unwrap(),
        geometry.property(0).unwrap().as_i64().unwrap()
    );
    assert!(matches!(geometry.value(0), Some(Value::I64(_))));
    let vertices = geometry.require_child("Vertices").unwrap();
    let a = vertices.property(0).unwrap().as_array().unwrap();
    assert_eq!((a.ty(), a.len()), (ArrayType::F64, 24));
    assert!(matches!(a.encoding(), ArrayEncoding::Text(_)));
    let v = vertices.f64_values().unwrap();
    assert_eq!(v[0], -0.5);
    let idx = geometry.require_child("PolygonVertexIndex").unwrap();
    assert_eq!(
        idx.property(0).unwrap().as_array().unwrap().ty(),
        ArrayType::I32
    );
    assert_eq!(&idx.i32_values().unwrap()[..4], &[0, 2, 3, -2]);
    // `Shading: T` is a C byte, as in binary files.
    let shading = doc.nodes().find(|n| n.name() == "Shading").unwrap();
    assert_eq!(shading.value(0), Some(Value::Char(b'T')));
    // The fragmented base64 texture is one blob, a whole PNG.
    let content = doc.nodes().find(|n| n.name() == "Content").unwrap();
    assert_eq!(content.property_count(), 1);
    let png = content.property(0).unwrap().as_raw().unwrap();
    assert_eq!(png.len(), 968_029);
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"));
    assert_eq!(&png[png.len() - 8..png.len() - 4], b"IEND");
    // The first P of Properties70 reads as strings then numbers.
    let p = doc
        .nodes()
        .find(|n| n.name() == "P" && n.get_str(0).ok() == Some("Lcl Translation"))
        .unwrap();
    assert_eq!(p.get_str(1).unwrap(), "Lcl Translation");
    assert_eq!(p.get_f64(4).unwrap(), 0.0);
}

#[test]
fn the_longest_mantissa_rounds_like_strtod() {
    let bytes = model("FBX/cubes_with_outofrange_float.fbx");
    let doc = Document::parse(&bytes).unwrap();
    let v = doc
        .nodes()
        .find(|n| n.name() == "Vertices" && n.f64_values().is_ok_and(|v| v.len() == 588))
        .unwrap();
    let values = v.f64_values().unwrap();
    assert_eq!(values.len(), 588);
    assert_eq!(values[0], -0.49999997019767883);
}

#[test]
fn every_tree_round_trips_through_the_writer() {
    for path in corpus::fbx_files() {
        let rel = name(&path);
        if rel == "FBX/transparentTest.fbx" {
            continue;
        }
        let bytes = read(&path);
        let tree = Document::parse(&bytes).unwrap().to_owned_nodes().unwrap();
        for options in [
            WriteOptions::V7400,
            WriteOptions::V7500,
            WriteOptions::V7400.compressed(),
            WriteOptions::V7500.compressed(),
        ] {
            let written = write_binary(&tree, &options).unwrap();
            let doc = Document::parse(&written).unwrap_or_else(|e| panic!("{rel}: {e}"));
            assert_eq!(doc.version(), options.version);
            assert_eq!(doc.to_owned_nodes().unwrap(), tree, "{rel} {options:?}");
        }
    }
}

#[test]
fn rewriting_a_binary_file_keeps_its_record_layout() {
    // box.fbx has no compressed arrays: the writer reproduces its records byte for byte
    // (the node list up to the top-level null record; the footer differs).
    let bytes = model("FBX/box.fbx");
    let doc = Document::parse(&bytes).unwrap();
    let written = write_binary(&doc.to_owned_nodes().unwrap(), &WriteOptions::V7400).unwrap();
    let end = 17_024 + 13; // the top-level null record (at 17024, from a Python walk) and its 13 bytes
    assert_eq!(&written[..end], &bytes[..end]);
}
