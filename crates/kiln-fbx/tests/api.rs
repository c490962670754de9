//! The API the next layer builds on: finding nodes, typed access with conversions, and errors
//! that name the node path, the property and the location. ASCII quirks of each exporter.

use std::borrow::Cow;

use kiln_fbx::{
    ArrayType, Document, ErrorKind, Format, Location, OwnedNode, OwnedValue, Value, WriteOptions,
    write_binary,
};

const FBX7_ASCII: &str = r#"; FBX 7.4.0 project file
; Copyright ...
; ----------------------------------------------------

FBXHeaderExtension:  {
	FBXHeaderVersion: 1003
	FBXVersion: 7400
	Creator: "FBX SDK/FBX Plugins version 2018.1.1"
}
Objects:  {
	Geometry: 2358377979824, "Geometry::Cube", "Mesh" {
		Vertices: *6 {
			a: -0.5,0.5,1.19209289550781e-07,
2,3,4
		} 
		PolygonVertexIndex: *3 {
			a: 0,1,-3
		} 
		Empty: *0 {
		}
		Layer: 0 {
			Version: 100
		}
	}
	Model: 1, "Model::Cube", "Mesh" {
		Shading: T
		Culling: "CullingOff"
		Properties70:  {
			P: "Lcl Translation", "Lcl Translation", "", "A",0,1.5,-2
			P: "Visibility", "Visibility", "", "A",1
		}
	}
	AnimationCurve: 3, "AnimCurve::", "" {
		KeyTime: *2 {
			a: 0,46186158000
		} 
		KeyValueFloat: *2 {
			a: 0.1,1.#INF
		} 
	}
	Video: 4, "Video::tex", "Clip" {
		Content: , "aGVs",
		 "bG8="
	}
}
Connections:  {
	C: "OO",1,0
}
"#;

#[test]
fn fbx7_ascii_reads_like_a_binary_file() {
    let doc = Document::parse(FBX7_ASCII.as_bytes()).unwrap();
    assert_eq!((doc.format(), doc.version()), (Format::Ascii, 7400));
    let objects = doc.require_root("Objects").unwrap();
    let geometry = objects.require_child("Geometry").unwrap();
    assert_eq!(geometry.get_i64(0).unwrap(), 2_358_377_979_824);
    assert_eq!(geometry.get_str(1).unwrap(), "Geometry::Cube");
    assert_eq!(geometry.get_str(2).unwrap(), "Mesh");
    let vertices = geometry.require_child("Vertices").unwrap();
    assert_eq!(
        &*vertices.f64_values().unwrap(),
        &[-0.5, 0.5, 1.19209289550781e-07, 2.0, 3.0, 4.0]
    );
    let idx = geometry
        .require_child("PolygonVertexIndex")
        .unwrap()
        .property(0)
        .unwrap();
    assert_eq!(idx.as_array().unwrap().ty(), ArrayType::I32);
    assert_eq!(&*idx.as_i32_array().unwrap(), &[0, 1, -3]);
    assert_eq!(&*idx.as_f64_array().unwrap(), &[0.0, 1.0, -3.0]);
    let empty = geometry.require_child("Empty").unwrap();
    assert!(empty.f64_values().unwrap().is_empty());
    // A node with a value and children.
    let layer = geometry.require_child("Layer").unwrap();
    assert_eq!(
        (layer.get_i32(0).unwrap(), layer.children().count()),
        (0, 1)
    );

    let model = objects.require_child("Model").unwrap();
    assert_eq!(model.get_i64(0).unwrap(), 1);
    assert!(matches!(model.value(0), Some(Value::I32(1))));
    assert_eq!(
        model.require_child("Shading").unwrap().value(0),
        Some(Value::Char(b'T'))
    );
    let props = model.require_child("Properties70").unwrap();
    let ps: Vec<_> = props.children_named("P").collect();
    assert_eq!(ps.len(), 2);
    assert_eq!(ps[0].get_str(0).unwrap(), "Lcl Translation");
    let xyz: Vec<f64> = (4..7).map(|i| ps[0].get_f64(i).unwrap()).collect();
    assert_eq!(xyz, [0.0, 1.5, -2.0]);
    assert!(ps[1].property(4).unwrap().as_bool().unwrap());

    let curve = objects.require_child("AnimationCurve").unwrap();
    let times = curve.require_child("KeyTime").unwrap().property(0).unwrap();
    assert_eq!(times.as_array().unwrap().ty(), ArrayType::I64);
    assert_eq!(&*times.as_i64_array().unwrap(), &[0, 46_186_158_000]);
    let e = times.as_i32_array().unwrap_err();
    assert!(
        matches!(
            e.kind,
            ErrorKind::OutOfRange {
                index: 1,
                target: "i32",
                ..
            }
        ),
        "{e}"
    );
    let values = curve
        .require_child("KeyValueFloat")
        .unwrap()
        .f32_values()
        .unwrap();
    assert_eq!(&*values, &[0.1f32, 1.0], "1.#INF as Assimp reads it");

    let content = objects
        .require_child("Video")
        .unwrap()
        .require_child("Content")
        .unwrap();
    assert_eq!(&*content.property(0).unwrap().as_raw().unwrap(), b"hello");

    let c = doc
        .require_root("Connections")
        .unwrap()
        .require_child("C")
        .unwrap();
    assert_eq!(
        (
            c.get_str(0).unwrap(),
            c.get_i64(1).unwrap(),
            c.get_i64(2).unwrap()
        ),
        ("OO", 1, 0)
    );
}

#[test]
fn ascii_and_its_binary_rewrite_are_the_same_tree() {
    let doc = Document::parse(FBX7_ASCII.as_bytes()).unwrap();
    let tree = doc.to_owned_nodes().unwrap();
    let bytes = write_binary(&tree, &WriteOptions::V7400.compressed()).unwrap();
    let bin = Document::parse(&bytes).unwrap();
    assert_eq!(bin.to_owned_nodes().unwrap(), tree);
    assert_eq!(bin.node_count(), doc.node_count());
}

#[test]
fn fbx6_ascii_with_bare_words_and_value_lists() {
    let text = "\u{feff}; FBX 6.1.0 project file\r\n\
        FBXHeaderExtension:  {\r\n\
        \tFBXVersion: 6100\r\n\
        }\r\n\
        Objects:  {\r\n\
        \tModel: \"Model::Cube\", \"Mesh\" {\r\n\
        \t\tProperty: \"Lcl Translation\", \"Lcl Translation\", \"A+\",0,0,0\r\n\
        \t\tVertices: 1.0,-1.0,1.0,1.0,\r\n\
        \t\t 1,-1\r\n\
        \t\tPolygonVertexIndex: 0,1,2,-4\r\n\
        \t\tShading: Y\r\n\
        \t}\r\n\
        \tChannel: \"T\" {\r\n\
        \t\tKey: 0,0,U,s,0,0,n,46186158000,1,L\r\n\
        \t}\r\n\
        }\r\n";
    let doc = Document::parse(text.as_bytes()).unwrap();
    assert_eq!(doc.version(), 6100);
    let model = doc
        .require_root("Objects")
        .unwrap()
        .require_child("Model")
        .unwrap();
    let v = model.require_child("Vertices").unwrap();
    assert_eq!(v.property_count(), 6);
    assert_eq!(&*v.f64_values().unwrap(), &[1.0, -1.0, 1.0, 1.0, 1.0, -1.0]);
    assert_eq!(
        &*model
            .require_child("PolygonVertexIndex")
            .unwrap()
            .i32_values()
            .unwrap(),
        &[0, 1, 2, -4]
    );
    assert_eq!(
        model.require_child("Shading").unwrap().value(0),
        Some(Value::Char(b'Y'))
    );
    let key = doc.nodes().find(|n| n.name() == "Key").unwrap();
    let values: Vec<Value> = key.properties().map(|p| p.value()).collect();
    assert_eq!(values[2], Value::Char(b'U'));
    assert_eq!(values[7], Value::I64(46_186_158_000));
    assert_eq!(values[9], Value::Char(b'L'));
    // The key list mixes letters in: an i64 list of it fails naming the property.
    let e = key.i64_values().unwrap();
    assert_eq!(e[2], i64::from(b'U'));
    let e = key.f64_values().unwrap();
    assert_eq!(e.len(), 10);
}

#[test]
fn version_from_the_header_node_without_the_comment() {
    let doc = Document::parse(b"FBXHeaderExtension: {\n FBXVersion: 7300\n}\n").unwrap();
    assert_eq!(doc.version(), 7300);
    let doc = Document::parse(b"Objects: {\n}\n").unwrap();
    assert_eq!(doc.version(), 0);
}

#[test]
fn accessors_convert_and_refuse_with_context() {
    let tree = [OwnedNode::new("Objects").with_child(
        OwnedNode::new("Geometry")
            .with(OwnedValue::I64(5_000_000_000))
            .with(OwnedValue::String(b"Cube\0\x01Geometry".to_vec()))
            .with(OwnedValue::String(vec![0xff, 0xfe]))
            .with(OwnedValue::F32(0.5))
            .with(OwnedValue::I32Array(vec![1, 2, 3])),
    )];
    let bytes = write_binary(&tree, &WriteOptions::V7400).unwrap();
    let doc = Document::parse(&bytes).unwrap();
    let g = doc
        .require_root("Objects")
        .unwrap()
        .require_child("Geometry")
        .unwrap();
    assert_eq!(g.path().to_string(), "Objects/Geometry");
    assert_eq!(g.path().names(), ["Objects", "Geometry"]);
    assert_eq!(g.parent().unwrap().name(), "Objects");
    assert_eq!(g.depth(), 1);

    let e = g.get_i32(0).unwrap_err();
    assert!(matches!(
        e.kind,
        ErrorKind::OutOfRange { target: "i32", .. }
    ));
    assert_eq!(e.property, Some(0));
    assert_eq!(e.path, "Objects/Geometry");
    // The property's own offset: after the 27-byte header, two 13-byte record headers and
    // the names "Objects" (7) and "Geometry" (8).
    assert_eq!(e.location, Location::Byte(27 + 13 + 7 + 13 + 8));
    assert_eq!(
        e.to_string(),
        "byte offset 68 (0x44) (in `Objects/Geometry`, property 0): value 5000000000 \
         (element 0) does not fit in i32"
    );
    assert_eq!(g.get_i64(0).unwrap(), 5_000_000_000);
    assert_eq!(g.get_f64(0).unwrap(), 5e9);

    assert_eq!(
        g.property(1).unwrap().as_bytes().unwrap(),
        b"Cube\0\x01Geometry"
    );
    assert_eq!(g.get_str(1).unwrap(), "Cube\0\u{1}Geometry");
    assert_eq!(g.get_str(2).unwrap_err().kind, ErrorKind::NotUtf8);
    let e = g.get_f64(1).unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::WrongType {
            expected: "f64",
            found: "string"
        }
    );
    assert_eq!(g.get_f64(3).unwrap(), 0.5);
    assert_eq!(g.property(3).unwrap().as_f32().unwrap(), 0.5);
    assert!(g.get_i64(3).is_err());

    let arr = g.property(4).unwrap();
    assert_eq!(&*arr.as_i64_array().unwrap(), &[1, 2, 3]);
    assert_eq!(&*arr.as_f32_array().unwrap(), &[1.0, 2.0, 3.0]);
    let e = arr.as_bool_array().unwrap_err();
    assert_eq!(
        e.kind,
        ErrorKind::WrongType {
            expected: "byte or bool array",
            found: "i32 array"
        }
    );

    let e = g.property(9).unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingProperty { index: 9, count: 5 });
    let e = g.require_child("Vertices").unwrap_err();
    assert_eq!(e.kind, ErrorKind::MissingChild("Vertices".into()));
    assert!(e.to_string().contains("in `Objects/Geometry`"), "{e}");
    assert!(doc.require_root("Takes").is_err());
}

#[test]
fn ascii_errors_give_line_and_column() {
    let text = "Objects: {\n  Model: 1, \"x\" {\n    Version: 1.2.3\n  }\n}\n";
    let e = Document::parse(text.as_bytes()).unwrap_err();
    assert!(
        matches!(
            e.location,
            Location::Text {
                line: 3,
                column: 14,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(e.path, "Objects/Model/Version");
    assert!(
        matches!(e.kind, ErrorKind::BadNumber { ref text } if text == "1.2.3"),
        "{e}"
    );
    assert!(e.to_string().starts_with("line 3, column 14"), "{e}");

    // Accessor errors in ASCII files point at the property's line and column too.
    let doc = Document::parse(b"Objects: {\n  Model: \"x\", 5\n}\n").unwrap();
    let model = doc
        .require_root("Objects")
        .unwrap()
        .require_child("Model")
        .unwrap();
    let e = model.get_i64(0).unwrap_err();
    assert!(
        matches!(
            e.location,
            Location::Text {
                line: 2,
                column: 10,
                ..
            }
        ),
        "{e}"
    );
    assert_eq!(model.get_i64(1).unwrap(), 5);
}

#[test]
fn plain_arrays_borrow_when_aligned() {
    let tree = [OwnedNode::new("A").with(OwnedValue::F64Array(vec![1.0, 2.0, 3.0]))];
    let bytes = write_binary(&tree, &WriteOptions::V7400).unwrap();
    // The array data starts at 27 + 13 + 1 + 13 = 54: copy the file so that it is 8-aligned.
    let mut aligned: Vec<u64> = vec![0; bytes.len() / 8 + 2];
    let buf: &mut [u8] = bytemuck::cast_slice_mut(&mut aligned);
    let data_at = 54usize;
    let shift = (8 - data_at % 8) % 8;
    buf[shift..shift + bytes.len()].copy_from_slice(&bytes);
    let doc = Document::parse(&buf[shift..shift + bytes.len()]).unwrap();
    let p = doc.root("A").unwrap().property(0).unwrap();
    let v = p.as_f64_array().unwrap();
    assert!(matches!(v, Cow::Borrowed(_)));
    assert_eq!(&*v, &[1.0, 2.0, 3.0]);
    // Misaligned by one byte: decoded into a Vec, same values.
    let mut off = vec![0u8];
    off.extend_from_slice(&buf[shift..shift + bytes.len()]);
    let doc = Document::parse(&off[1..]).unwrap();
    let v = doc
        .root("A")
        .unwrap()
        .property(0)
        .unwrap()
        .as_f64_array()
        .unwrap();
    assert!(matches!(v, Cow::Owned(_)));
    assert_eq!(&*v, &[1.0, 2.0, 3.0]);
}

#[test]
fn ascii_arrays_with_comments_and_c_spellings_of_nan() {
    let text = "; FBX 7.5.0 project file\nObjects:  {\n\tGeometry: 7, \"Geometry::\", \"Mesh\" {\n\
        \t\tVertices: *6 {\n\t\t\ta: -0.5,0.5, ; Hello, world } not the end\n\
        \t\t\t; a comment line\n\n\t\t\tnan(ind),-nan, ; more\n\t\t\tsnan,1.#INF\n\t\t}\n\
        \t\tPolygonVertexIndex: *3 {\n\t\t\ta: 0,1,-3 ; trailing\n\t\t}\n\t}\n}\n";
    let doc = Document::parse(text.as_bytes()).unwrap();
    let g = doc
        .require_root("Objects")
        .unwrap()
        .require_child("Geometry")
        .unwrap();
    let v = g.require_child("Vertices").unwrap().f64_values().unwrap();
    assert_eq!(v.len(), 6);
    assert_eq!((v[0], v[1]), (-0.5, 0.5));
    assert!(v[2].is_nan() && v[3].is_nan() && v[4].is_nan());
    // `1.#INF` as Assimp 5.2 reads it: the number before the `#`.
    assert_eq!(v[5], 1.0);
    let idx = g
        .require_child("PolygonVertexIndex")
        .unwrap()
        .property(0)
        .unwrap();
    assert_eq!(idx.as_array().unwrap().ty(), ArrayType::I32);
    assert_eq!(&*idx.as_i32_array().unwrap(), &[0, 1, -3]);
}

#[test]
fn one_byte_z_values_and_zero_end_offsets_read_as_the_sdk_writes_them() {
    for options in [WriteOptions::V7400, WriteOptions::V7500] {
        let tree = [
            OwnedNode::new("Header")
                .with_child(OwnedNode::new("Creator").with(OwnedValue::String(b"Maya".to_vec()))),
            OwnedNode::new("Objects").with_child(
                OwnedNode::new("P")
                    .with(OwnedValue::String(b"Channels".to_vec()))
                    .with(OwnedValue::U8(200)),
            ),
        ];
        let mut bytes = write_binary(&tree, &options).unwrap();
        // The `Z` property: one byte after its code, read as an integer.
        let doc = Document::parse(&bytes).unwrap();
        let p = doc
            .require_root("Objects")
            .unwrap()
            .require_child("P")
            .unwrap();
        assert_eq!(p.value(1), Some(Value::U8(200)));
        assert_eq!(p.get_i64(1).unwrap(), 200);
        assert_eq!(p.property(1).unwrap().value().type_code(), b'Z');
        // Maya leaves the end offset of some leaf nodes zero: `Creator` ends after its
        // properties and the tree is the same.
        let name = bytes.windows(7).position(|w| w == b"Creator").unwrap();
        let field = if options.version >= 7500 { 8 } else { 4 };
        let header = if options.version >= 7500 { 25 } else { 13 };
        let record = name - header;
        bytes[record..record + field].fill(0);
        let doc = Document::parse(&bytes).unwrap();
        let creator = doc
            .require_root("Header")
            .unwrap()
            .require_child("Creator")
            .unwrap();
        assert_eq!(creator.get_str(0).unwrap(), "Maya");
        assert_eq!(creator.children().count(), 0);
        assert!(doc.require_root("Objects").is_ok());
    }
}

#[test]
fn big_endian_files_read_as_the_same_tree() {
    let tree = [
        OwnedNode::new("FBXHeaderExtension")
            .with_child(OwnedNode::new("FBXVersion").with(OwnedValue::I32(7400))),
        OwnedNode::new("Objects").with_child(
            OwnedNode::new("Geometry")
                .with(OwnedValue::I64(-5_000_000_000))
                .with(OwnedValue::String(b"Cube\0\x01Geometry".to_vec()))
                .with(OwnedValue::Char(b'T'))
                .with(OwnedValue::U8(7))
                .with(OwnedValue::I16(-300))
                .with(OwnedValue::F32(0.1))
                .with(OwnedValue::F64(-2.5e300))
                .with(OwnedValue::Raw(vec![1, 2, 3]))
                .with_child(
                    OwnedNode::new("Vertices")
                        .with(OwnedValue::F64Array(vec![0.5, -1.25, 3.0e-300, 7.0])),
                )
                .with_child(OwnedNode::new("Index").with(OwnedValue::I32Array(vec![0, 1, -3])))
                .with_child(OwnedNode::new("Times").with(OwnedValue::I64Array(vec![i64::MIN, 9])))
                .with_child(OwnedNode::new("Keys").with(OwnedValue::F32Array(vec![0.25, -8.0])))
                .with_child(OwnedNode::new("Flags").with(OwnedValue::BoolArray(vec![1, 0, 1]))),
        ),
    ];
    for options in [
        WriteOptions::V7400,
        WriteOptions::V7500,
        WriteOptions::V7400.compressed(),
        WriteOptions::V7500.compressed(),
    ] {
        let big = kiln_fbx::write_binary_big_endian(&tree, &options).unwrap();
        assert_eq!(big[22], 1);
        assert!(kiln_fbx::is_big_endian(&big));
        // The borrowing reader says what to do with it.
        let e = Document::parse(&big).unwrap_err();
        assert_eq!(e.kind, ErrorKind::BigEndian);
        let little = kiln_fbx::to_little_endian(&big).unwrap().unwrap();
        let doc = Document::parse(&little).unwrap();
        assert_eq!(doc.version(), options.version);
        let expected = Document::parse(&write_binary(&tree, &options).unwrap())
            .unwrap()
            .to_owned_nodes()
            .unwrap();
        assert_eq!(doc.to_owned_nodes().unwrap(), expected, "{options:?}");
        // A little-endian file is not rewritten.
        assert!(
            kiln_fbx::to_little_endian(&write_binary(&tree, &options).unwrap())
                .unwrap()
                .is_none()
        );
        // Cut anywhere, it fails with an error, never a panic.
        for cut in (27..big.len()).step_by(7) {
            let _ = kiln_fbx::to_little_endian(&big[..cut]);
        }
    }
}

/// `ParseOptions::assimp_numbers`: an ASCII file's numbers as Assimp 5.2's `fast_atof` reads
/// them (`1.091950` one ulp below the correctly rounded `f32`), in arrays and in scalar
/// values, read as `f32` or `f64`; without it, correctly rounded. Integers stay integers.
#[test]
fn ascii_numbers_can_be_read_as_assimp_reads_them() {
    let text = b"; FBX 7.4.0 project file\nN: 1.091950, 7 {\n\tA: *3 {\n\t\ta: 1.091950,2.5,-1.091950\n\t}\n}\n";
    let assimp = kiln_fbx::ParseOptions {
        assimp_numbers: true,
        ..Default::default()
    };
    let correct = Document::parse(text).unwrap();
    let fast = Document::parse_with(text, &assimp).unwrap();
    let one_below = f32::from_bits(1.091_95f32.to_bits() - 1);
    let (n, m) = (correct.root("N").unwrap(), fast.root("N").unwrap());
    assert_eq!(n.value(0), Some(Value::F64(1.091_95)));
    assert_eq!(m.value(0), Some(Value::F64(f64::from(one_below))));
    assert_eq!(m.value(1), Some(Value::I32(7)));
    let (a, b) = (n.child("A").unwrap(), m.child("A").unwrap());
    assert_eq!(a.f32_values().unwrap().as_ref(), [1.091_95, 2.5, -1.091_95]);
    assert_eq!(
        b.f32_values().unwrap().as_ref(),
        [one_below, 2.5, -one_below]
    );
    assert_eq!(
        b.f64_values().unwrap().as_ref(),
        [f64::from(one_below), 2.5, -f64::from(one_below)]
    );
    assert_eq!(a.f64_values().unwrap().as_ref(), [1.091_95, 2.5, -1.091_95]);
}
