//! Damaged files: each fault gives a warning that names the object (and its id), the rest of
//! the file is imported, and nothing panics.

use kiln_fbx::{OwnedNode, OwnedValue, WriteOptions as TreeOptions, write_binary};
use kiln_fbx_scene::{ImportError, WriteOptions, import, write_fbx, write_fbx_nodes};
use kiln_scene::{Mesh, Node, Scene, Vec3};
use kiln_testkit::fixtures::fbx::{TubeSpec, skinned_tube};

/// A scene with two meshes on two nodes, a skin and an animation.
fn tree() -> Vec<OwnedNode> {
    let mut s = skinned_tube(TubeSpec {
        rings: 4,
        segments: 3,
        bones: 2,
        frames: 3,
        per_corner: true,
    });
    let mut m = Mesh {
        name: "plate".into(),
        material: 0,
        ..Mesh::default()
    };
    m.positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
    m.normals = vec![Vec3::Z; 3];
    m.push_face(&[0, 1, 2]);
    m.update_primitive_types();
    s.meshes.push(m);
    let mut n = Node::new("plate");
    n.meshes.push(1);
    s.add_child(0, n);
    write_fbx_nodes(&s, &WriteOptions::default()).unwrap()
}

fn bytes(t: &[OwnedNode]) -> Vec<u8> {
    write_binary(t, &TreeOptions::V7400).unwrap()
}

fn objects(t: &mut [OwnedNode]) -> &mut Vec<OwnedNode> {
    &mut t.iter_mut().find(|n| n.name == "Objects").unwrap().children
}

fn connections(t: &mut [OwnedNode]) -> &mut Vec<OwnedNode> {
    &mut t
        .iter_mut()
        .find(|n| n.name == "Connections")
        .unwrap()
        .children
}

/// The object named `name` of element `element`.
fn object<'t>(t: &'t mut [OwnedNode], element: &str, name: &str) -> &'t mut OwnedNode {
    objects(t)
        .iter_mut()
        .find(|o| {
            o.name == element
                && matches!(&o.properties[1], OwnedValue::String(s) if s.starts_with(name.as_bytes()) && s.get(name.len()) == Some(&0))
        })
        .unwrap_or_else(|| panic!("no {element} {name}"))
}

fn id_of(o: &OwnedNode) -> i64 {
    match o.properties[0] {
        OwnedValue::I64(v) => v,
        _ => panic!("no id"),
    }
}

fn child<'n>(o: &'n mut OwnedNode, name: &str) -> &'n mut OwnedNode {
    o.children.iter_mut().find(|c| c.name == name).unwrap()
}

fn warned(s: &Scene, needles: &[&str]) -> bool {
    s.warnings
        .iter()
        .any(|w| needles.iter().all(|n| w.message.contains(n)))
}

#[test]
fn the_undamaged_file_imports_without_warnings() {
    let s = import(&bytes(&tree())).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.meshes.len(), 2);
    assert_eq!(s.meshes[0].bones.len(), 2);
    assert_eq!(s.animations.len(), 1);
}

#[test]
fn dangling_connections_are_reported_and_skipped() {
    let mut t = tree();
    connections(&mut t).push(
        OwnedNode::new("C")
            .with(OwnedValue::string("OO"))
            .with(OwnedValue::I64(424242))
            .with(OwnedValue::I64(0)),
    );
    connections(&mut t).push(
        OwnedNode::new("C")
            .with(OwnedValue::string("OO"))
            .with(OwnedValue::I64(1_000_001))
            .with(OwnedValue::I64(777)),
    );
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(&s, &["424242", "does not exist"]),
        "{:?}",
        s.warnings
    );
    assert!(warned(&s, &["777", "does not exist"]), "{:?}", s.warnings);
    assert_eq!(s.meshes.len(), 2);
    s.validate().unwrap();
}

#[test]
fn a_cycle_in_the_node_graph_is_cut() {
    let mut t = tree();
    let bone0 = id_of(object(&mut t, "Model", "Bone000"));
    let bone1 = id_of(object(&mut t, "Model", "Bone001"));
    // Bone001 is Bone000's child; make Bone000 a child of Bone001 too.
    connections(&mut t).push(
        OwnedNode::new("C")
            .with(OwnedValue::string("OO"))
            .with(OwnedValue::I64(bone0))
            .with(OwnedValue::I64(bone1)),
    );
    let s = import(&bytes(&t)).unwrap();
    assert!(warned(&s, &["Bone000", "cycle"]), "{:?}", s.warnings);
    s.validate().unwrap();
    assert_eq!(s.nodes.iter().filter(|n| n.name == "Bone000").count(), 1);
    assert_eq!(s.meshes.len(), 2);
}

#[test]
fn polygon_indices_past_the_vertices_drop_that_geometry_only() {
    let mut t = tree();
    let g = object(&mut t, "Geometry", "tube");
    let gid = id_of(g);
    child(g, "PolygonVertexIndex").properties = vec![OwnedValue::I32Array(vec![0, 1, 999, -4])];
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(&s, &["Geometry 'tube'", &gid.to_string(), "999"]),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.meshes.len(), 1);
    assert_eq!(s.meshes[0].name, "plate");
    s.validate().unwrap();
}

#[test]
fn a_short_layer_array_is_ignored_with_a_warning() {
    let mut t = tree();
    let g = object(&mut t, "Geometry", "plate");
    let n = child(g, "LayerElementNormal");
    child(n, "Normals").properties = vec![OwnedValue::F64Array(vec![0.0, 0.0, 1.0])];
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(
            &s,
            &[
                "Geometry 'plate'",
                "LayerElementNormal",
                "1 values for 3 control points"
            ]
        ),
        "{:?}",
        s.warnings
    );
    let plate = s.meshes.iter().find(|m| m.name == "plate").unwrap();
    assert!(plate.normals.is_empty());
    assert_eq!(plate.positions.len(), 3);
}

#[test]
fn an_index_past_the_layer_data_drops_the_geometry() {
    let mut t = tree();
    let g = object(&mut t, "Geometry", "tube");
    let uv = child(g, "LayerElementUV");
    child(uv, "UVIndex").properties = vec![OwnedValue::I32Array(vec![5000; 48])];
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(&s, &["Geometry 'tube'", "UVIndex 5000 out of range"]),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.meshes.len(), 1);
}

#[test]
fn non_finite_transforms_are_treated_as_unset() {
    let mut t = tree();
    let m = object(&mut t, "Model", "plate");
    let mid = id_of(m);
    let p = child(m, "Properties70");
    let tr = p
        .children
        .iter_mut()
        .find(|c| c.properties[0] == OwnedValue::string("Lcl Translation"))
        .unwrap();
    tr.properties[4] = OwnedValue::F64(f64::NAN);
    tr.properties[5] = OwnedValue::F64(f64::INFINITY);
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(
            &s,
            &[
                "Model 'plate'",
                &mid.to_string(),
                "Lcl Translation",
                "not finite"
            ]
        ),
        "{:?}",
        s.warnings
    );
    let n = s.find_node("plate").unwrap();
    assert!(s.nodes[n].transform.is_finite());
}

#[test]
fn a_cluster_without_its_bone_is_dropped() {
    let mut t = tree();
    let bone = id_of(object(&mut t, "Model", "Bone001"));
    let cluster = id_of(object(&mut t, "Deformer", "Bone001"));
    connections(&mut t).retain(|c| {
        !(c.properties[1] == OwnedValue::I64(bone) && c.properties[2] == OwnedValue::I64(cluster))
    });
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(&s, &["Deformer 'Bone001'", &cluster.to_string(), "no bone"]),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.meshes[0].bones.len(), 1);
    assert_eq!(s.meshes[0].bones[0].name, "Bone000");
}

#[test]
fn curves_out_of_order_are_dropped() {
    let mut t = tree();
    let curve = objects(&mut t)
        .iter_mut()
        .find(|o| o.name == "AnimationCurve")
        .unwrap();
    child(curve, "KeyTime").properties = vec![OwnedValue::I64Array(vec![10, 5, 20])];
    let s = import(&bytes(&t)).unwrap();
    assert!(
        warned(&s, &["AnimationCurve", "ascending"]),
        "{:?}",
        s.warnings
    );
    assert_eq!(s.animations.len(), 1);
}

#[test]
fn files_without_objects_or_connections_import_as_ufbx_reads_them() {
    // No Connections: the objects are read but nothing links them to the scene.
    let mut t = tree();
    t.retain(|n| n.name != "Connections");
    let s = import(&bytes(&t)).unwrap();
    assert!(warned(&s, &["no Connections section"]), "{:?}", s.warnings);
    assert!(s.meshes.is_empty() && s.nodes.len() == 1);
    // No Objects either: an empty scene, as long as the file has an FBX header.
    t.retain(|n| n.name != "Objects");
    assert!(t.iter().any(|n| n.name == "FBXHeaderExtension"));
    let s = import(&bytes(&t)).unwrap();
    assert!(warned(&s, &["no Objects section"]), "{:?}", s.warnings);
    assert!(
        s.warnings
            .iter()
            .all(|w| w.code == kiln_fbx_scene::codes::SECTION_MISSING)
    );
    // Without the header it is not an FBX scene.
    t.retain(|n| n.name != "FBXHeaderExtension");
    assert_eq!(import(&bytes(&t)).unwrap_err(), ImportError::NoObjects);
    assert!(matches!(
        import(b"not an fbx file at all"),
        Err(ImportError::Parse(_))
    ));
}

#[test]
fn every_truncation_and_many_byte_flips_never_panic() {
    let scene = skinned_tube(TubeSpec {
        rings: 3,
        segments: 3,
        bones: 2,
        frames: 2,
        per_corner: false,
    });
    // Plain, and compressed: damaged zlib streams go through the helper threads that inflate
    // while the conversion runs, and must come out as the same errors and warnings.
    for compress in [false, true] {
        let good = write_fbx(
            &scene,
            &WriteOptions {
                compress,
                ..WriteOptions::default()
            },
        )
        .unwrap();
        for n in (0..good.len()).step_by(7) {
            let _ = import(&good[..n]);
        }
        let mut state = 0x9e3779b97f4a7c15u64;
        for _ in 0..2000 {
            let mut b = good.clone();
            for _ in 0..4 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let i = (state as usize) % b.len();
                b[i] = (state >> 32) as u8;
            }
            if let Ok(s) = import(&b) {
                s.validate().expect("imported scenes are valid");
            }
        }
    }
}

#[test]
fn compressed_and_plain_files_import_to_the_same_scene() {
    // Large enough that every array is compressed and the helpers have work to share.
    let scene = skinned_tube(TubeSpec {
        rings: 40,
        segments: 30,
        bones: 6,
        frames: 20,
        per_corner: false,
    });
    let write = |compress| {
        write_fbx(
            &scene,
            &WriteOptions {
                compress,
                ..WriteOptions::default()
            },
        )
        .unwrap()
    };
    let (plain, zlib) = (write(false), write(true));
    assert!(zlib.len() < plain.len() / 2, "the arrays are compressed");
    let a = import(&plain).unwrap();
    let b = import(&zlib).unwrap();
    assert_eq!(a.meshes[0].positions.len(), (40 - 1) * 30 * 4);
    assert_eq!(a.meshes[0].bones.len(), 6);
    assert!(!a.animations[0].channels.is_empty());
    assert_eq!(a, b);
}

#[test]
fn a_damaged_compressed_array_drops_its_geometry_with_the_decoder_error() {
    let scene = skinned_tube(TubeSpec {
        rings: 40,
        segments: 30,
        bones: 2,
        frames: 4,
        per_corner: false,
    });
    let mut bytes = write_fbx(
        &scene,
        &WriteOptions {
            compress: true,
            ..WriteOptions::default()
        },
    )
    .unwrap();
    // The last byte of the Normals array's zlib stream: part of its Adler-32 checksum.
    let last = {
        let doc = kiln_fbx::Document::parse(&bytes).unwrap();
        let normals = doc.nodes().find(|n| n.name() == "Normals").unwrap();
        let Some(kiln_fbx::Value::Array(a)) = normals.value(0) else {
            panic!("Normals is an array")
        };
        let kiln_fbx::ArrayEncoding::Zlib(stream) = a.encoding() else {
            panic!("Normals is compressed")
        };
        stream.as_ptr() as usize - bytes.as_ptr() as usize + stream.len() - 1
    };
    assert!(import(&bytes).unwrap().meshes.len() == 1);
    bytes[last] ^= 0xff;
    let s = import(&bytes).unwrap();
    assert!(
        s.meshes.is_empty(),
        "the geometry is dropped, as Assimp drops it"
    );
    assert!(
        warned(&s, &["Normals", "Adler-32", "not imported"]),
        "{:?}",
        s.warnings
    );
    // The animation and the skeleton still come through.
    assert!(!s.animations.is_empty());
}

#[test]
fn a_unit_scale_of_zero_leaves_the_unit_unknown() {
    // Assimp refuses such a file; ufbx reads it, and so does kiln, without a unit.
    let text = "; FBX 7.4.0 project file\nFBXHeaderExtension:  {\n\tFBXVersion: 7400\n}\n\
        GlobalSettings:  {\n\tProperties70:  {\n\t\tP: \"UnitScaleFactor\", \"double\", \"Number\", \"\",0\n\t}\n}\n\
        Objects:  {\n}\nConnections:  {\n}\n";
    let s = import(text.as_bytes()).unwrap();
    assert_eq!(s.metadata.unit_scale_factor, None);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.code == kiln_fbx_scene::codes::UNIT_SCALE_INVALID),
        "{:?}",
        s.warnings
    );
}
