//! Unit tests of the importer's rules (Assimp comparisons live in `tests/`).

use alloc::string::{String, ToString};
use alloc::vec;
use alloc::vec::Vec;

use kiln_scene::{PrimitiveTypes, PropertyValue, Scene, TextureKind, Vec3, Vec4};

use crate::{ObjError, codes, parse};

/// Whether `s` has a warning with `code` whose message contains `text`.
fn warned(s: &Scene, code: &str, text: &str) -> bool {
    s.warnings
        .iter()
        .any(|w| w.code == code && w.message.contains(text))
}

/// All warning messages, one a line (for assertion messages).
fn messages(s: &Scene) -> String {
    let m: Vec<&str> = s.warnings.iter().map(|w| w.message.as_str()).collect();
    m.join("\n")
}

fn no_mtl(_: &str) -> Option<Vec<u8>> {
    None
}

fn obj(text: &str) -> Scene {
    let s = parse(text.as_bytes(), "t.obj", &mut no_mtl).unwrap_or_else(|e| panic!("{e}"));
    s.validate().unwrap();
    s
}

fn obj_mtl(text: &str, lib: &'static str, mtl: &'static str) -> Scene {
    let mut cb = |name: &str| (name == lib).then(|| mtl.as_bytes().to_vec());
    let s = parse(text.as_bytes(), "t.obj", &mut cb).unwrap_or_else(|e| panic!("{e}"));
    s.validate().unwrap();
    s
}

fn err(text: &[u8]) -> ObjError {
    match parse(text, "bad.obj", &mut no_mtl) {
        Ok(s) => panic!("expected an error, got {} meshes", s.meshes.len()),
        Err(e) => e,
    }
}

const QUAD: &str = "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\n";

#[test]
fn scene_shape_root_object_mesh_material() {
    let s = obj(&(String::from(QUAD) + "o box\nf 1 2 3 4\n"));
    assert_eq!(s.nodes[0].name, "t.obj");
    assert_eq!(s.nodes.len(), 2);
    assert_eq!(s.nodes[1].name, "box");
    assert_eq!(s.nodes[1].meshes, vec![0]);
    assert_eq!(s.meshes[0].face_sizes, vec![4]);
    assert_eq!(s.meshes[0].indices, vec![0, 1, 2, 3]);
    assert_eq!(
        s.meshes[0].primitive_types,
        PrimitiveTypes(PrimitiveTypes::POLYGON)
    );
    assert_eq!(s.materials.len(), 1);
    assert_eq!(s.materials[0].name, "DefaultMaterial");
    assert_eq!(s.materials[0].diffuse, Some(Vec3::splat(0.6)));
    assert_eq!(s.metadata.source_format, "obj");
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
}

#[test]
fn concave_faces_stay_polygons() {
    let s = obj("v 0 0 0\nv 2 0 0\nv 2 2 0\nv 1 0.5 0\nv 0 2 0\nf 1 2 3 4 5\n");
    assert_eq!(s.meshes[0].face_sizes, vec![5]);
}

#[test]
fn corners_are_unrolled_with_normals_uvs_and_colours() {
    let s = obj(
        "v 0 0 0 1 0 0\nv 1 0 0 0 1 0\nv 0 1 0 0 0 1\nvt 0.5 0.25\nvn 0 0 1\nf 1/1/1 2/1/1 3/1/1\nf 3/1/1 2/1/1 1/1/1\n",
    );
    let m = &s.meshes[0];
    assert_eq!(m.positions.len(), 6);
    assert_eq!(m.positions[3], Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(m.normals, vec![Vec3::Z; 6]);
    assert_eq!(m.uv_channels.len(), 1);
    assert_eq!(m.uv_channels[0].components, 2);
    assert_eq!(m.uv_channels[0].coords[0], Vec3::new(0.5, 0.25, 0.0));
    assert_eq!(m.color_channels[0][0], Vec4::new(1.0, 0.0, 0.0, 1.0));
    assert_eq!(m.color_channels[0][3], Vec4::new(0.0, 0.0, 1.0, 1.0));
}

#[test]
fn points_and_lines_are_kept_with_a_warning() {
    let s = obj(&(String::from(QUAD) + "p 1 2\nl 1 2 3\n"));
    let m = &s.meshes[0];
    assert_eq!(m.face_sizes, vec![1, 1, 2, 2]);
    // Lines duplicate their inner vertex, as Assimp does.
    assert_eq!(m.indices, vec![0, 1, 2, 4, 3, 5]);
    assert_eq!(m.positions[3], m.positions[4]);
    assert_eq!(
        m.primitive_types,
        PrimitiveTypes(PrimitiveTypes::POINT | PrimitiveTypes::LINE)
    );
    let w = messages(&s);
    assert!(warned(&s, codes::POINTS_KEPT, "2 points (p) kept"), "{w}");
    assert!(
        warned(&s, codes::LINES_KEPT, "2 line segments (l) kept"),
        "{w}"
    );
}

#[test]
fn single_vertex_line_is_skipped_with_warning() {
    let s = obj(&(String::from(QUAD) + "l 1\nf 1 2 3\n"));
    assert_eq!(s.meshes[0].face_sizes, vec![3]);
    assert!(warned(
        &s,
        codes::SINGLE_VERTEX_LINE,
        "t.obj:5: line with a single vertex"
    ));
    let w = s
        .warnings
        .iter()
        .find(|w| w.code == codes::SINGLE_VERTEX_LINE);
    assert_eq!(w.and_then(|w| w.location.as_deref()), Some("t.obj:5"));
}

#[test]
fn vertices_without_faces_make_a_point_cloud() {
    let s = obj("v 0 0 0\nv 1 2 3\nvn 0 0 1\nvn 0 1 0\n");
    assert_eq!(s.nodes.len(), 1);
    assert_eq!(s.nodes[0].meshes, vec![0]);
    assert_eq!(s.meshes[0].positions.len(), 2);
    assert_eq!(s.meshes[0].normals.len(), 2);
    assert_eq!(s.meshes[0].face_count(), 0);
    assert_eq!(
        s.meshes[0].primitive_types,
        PrimitiveTypes(PrimitiveTypes::POINT)
    );
    assert_eq!(s.materials.len(), 1);
    assert_eq!(s.materials[0].name, "DefaultMaterial");
    assert_eq!(s.materials[0].ambient, None);
    assert!(warned(&s, codes::POINT_CLOUD, "point-cloud"));
}

#[test]
fn meshes_split_per_group_and_material_in_assimp_order() {
    let s = obj(&(String::from(QUAD)
        + "g a\nusemtl red\nf 1 2 3\nusemtl blue\nf 1 2 3\nusemtl red\nf 1 2 3\ng b\nf 2 3 4\ng a\nf 1 2 4\n"));
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["t.obj", "a", "b", "a"]);
    let mats: Vec<&str> = s
        .meshes
        .iter()
        .map(|m| s.materials[m.material].name.as_str())
        .collect();
    assert_eq!(mats, ["red", "blue", "red", "red", "red"]);
    assert_eq!(s.nodes[1].meshes, vec![0, 1, 2]);
    let m: Vec<&str> = s.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(m, ["DefaultMaterial", "red", "blue"]);
}

#[test]
fn relative_indices_and_forward_references() {
    let s = obj("f 1 2 3\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -3\n");
    assert_eq!(s.meshes[0].positions[3], Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(s.meshes[0].positions[0], Vec3::ZERO);
}

#[test]
fn encodings_utf16_bom_latin1_crlf_cr() {
    let text = "v 0 0 0\r\nv 1 0 0\r\nv 0 1 0\r\ng gr\u{e6}n\r\nf 1 2 3";
    let reference = obj(text);
    let mut le = vec![0xFF, 0xFE];
    let mut be = vec![0xFE, 0xFF];
    for u in text.encode_utf16() {
        le.extend(u.to_le_bytes());
        be.extend(u.to_be_bytes());
    }
    for bytes in [le, be] {
        let s = parse(&bytes, "t.obj", &mut no_mtl).unwrap();
        assert_eq!(s.meshes, reference.meshes);
        assert_eq!(s.nodes, reference.nodes);
        assert!(warned(&s, codes::UTF16_CONVERTED, "UTF-16"));
    }
    let mut bom = b"\xEF\xBB\xBF".to_vec();
    bom.extend(text.as_bytes());
    assert_eq!(
        parse(&bom, "t.obj", &mut no_mtl).unwrap().meshes,
        reference.meshes
    );
    // Latin-1 bytes in names: kept as the bytes they are.
    let latin1: Vec<u8> = text.chars().map(|c| c as u32 as u8).collect();
    let s = parse(&latin1, "t.obj", &mut no_mtl).unwrap();
    assert_eq!(&*kiln_scene::names::to_bytes(&s.nodes[1].name), b"gr\xE6n");
    // Old Mac line ends.
    let cr = text.replace("\r\n", "\r");
    assert_eq!(obj(&cr).meshes, reference.meshes);
}

#[test]
fn latin1_usemtl_finds_latin1_newmtl() {
    let mut cb = |_: &str| Some(b"newmtl Terraind\xE6k\nKd 0 1 0\n".to_vec());
    let s = parse(
        b"mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl Terraind\xE6k\nf 1 2 3\n",
        "t.obj",
        &mut cb,
    )
    .unwrap();
    let m = &s.materials[s.meshes[0].material];
    assert_eq!(&*kiln_scene::names::to_bytes(&m.name), b"Terraind\xE6k");
    assert_eq!(kiln_scene::names::escaped(&m.name), "Terraind\\xE6k");
    assert_eq!(m.diffuse, Some(Vec3::Y));
}

#[test]
fn continuation_comments_blanks() {
    let s = obj("v 0 0 \\\n0\nv 1\t  0 0 # c\nv 0 1 0\nf 1 \\\r\n2 3 # comment 4\n");
    assert_eq!(s.meshes[0].face_sizes, vec![3]);
}

#[test]
fn errors_name_the_continued_statements_first_line() {
    let e = err(b"v 0 0 0\nf 1 \\\n2 \\\n9\n");
    assert_eq!(e.line(), Some(2), "{e}");
}

#[test]
fn extra_components() {
    let s = obj(
        "v 0 0 0 1\nv 2 0 0 2\nv 0 3 0 1 9\nv 1 1 1 0.5 0.5 0.5 1\nvt 0.5\nvt 0.1 0.2 0.3 0.4\nf 1/1 2/2 3/1 4/2\n",
    );
    let m = &s.meshes[0];
    assert_eq!(m.positions[1], Vec3::new(1.0, 0.0, 0.0));
    assert_eq!(m.positions[2], Vec3::new(0.0, 3.0, 0.0));
    assert_eq!(m.uv_channels[0].components, 3);
    assert_eq!(m.uv_channels[0].coords[1], Vec3::new(0.1, 0.2, 0.3));
    assert!(warned(&s, codes::EXTRA_NUMBERS, ":3: v with 5 numbers"));
    assert!(warned(&s, codes::EXTRA_NUMBERS, ":4: v with more than 6"));
    assert!(warned(&s, codes::EXTRA_NUMBERS, ":6: vt with more than 3"));
}

#[test]
fn leading_decimal_point_counts_as_a_number() {
    let s = obj("v .5 -.5 +.5\nv 1 0 0\nv 0 1 0\nf 1 2 3\n");
    assert_eq!(s.meshes[0].positions[0], Vec3::new(0.5, -0.5, 0.5));
}

#[test]
fn indented_statements_are_ignored_like_assimp() {
    let s = obj("v 0 0 0\nv 1 0 0\n  v 9 9 9\nv 0 1 0\n\tf 1 1 1\nf 1 2 3\n  f 3 2 1\n");
    assert_eq!(s.meshes[0].positions[2], Vec3::new(0.0, 1.0, 0.0));
    assert_eq!(s.meshes[0].face_count(), 1);
    assert!(warned(
        &s,
        codes::INDENTED_STATEMENT,
        "t.obj:3: indented statement ignored"
    ));
    assert!(warned(
        &s,
        codes::INDENTED_STATEMENT,
        "3 indented statements"
    ));
}

#[test]
fn assimp_face_token_quirks() {
    // `+1` and `002` are read twice and three times, as Assimp 5.2 reads them.
    let s = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf +1 002 3\n");
    assert_eq!(s.meshes[0].face_sizes, vec![6]);
    // Vertical tabs before a minus sign: read again from the second tab (`-1` twice); `+02`
    // three times; a blank inside a token ends the repeats (`\v 2`: once, then `2` again).
    let s = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf \u{b}\u{b}-1 +02 \u{b} 2\n");
    assert_eq!(s.meshes[0].face_sizes, vec![7]);
    // With normals but no texture coordinates, `1/2` is position/normal.
    let s = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 1 0 0\nvn 0 1 0\nf 1/2 2/2 3/1\n");
    assert_eq!(s.meshes[0].normals[0], Vec3::Y);
    assert!(s.meshes[0].uv_channels.is_empty());
}

#[test]
fn a_long_non_canonical_index_costs_its_length_not_its_square() {
    // Assimp reads `0…01` once per leading zero and once more; kiln counts those repeats
    // instead of parsing the token again for each (2·10¹⁰ byte reads here before).
    let zeros = "0".repeat(200_000);
    let s = obj(&alloc::format!(
        "v 0 0 0\nv 1 0 0\nv 0 1 0\nf {zeros}1 2 3\n"
    ));
    assert_eq!(s.meshes[0].face_sizes, vec![200_003]);
    assert_eq!(s.meshes[0].positions[199_999], s.meshes[0].positions[0]);
}

#[test]
fn out_of_range_normals_and_uvs_are_dropped_for_the_mesh() {
    let s = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nvn 0 0 1\nvt 0 0\nf 1/1/1 2/1/1 3/5/4\n");
    assert!(s.meshes[0].normals.is_empty());
    assert!(s.meshes[0].uv_channels.is_empty());
    assert!(warned(&s, codes::NORMALS_DROPPED, "out of range"));
    assert!(warned(&s, codes::UVS_DROPPED, "out of range"));
    assert_eq!(
        s.warnings
            .iter()
            .filter(|w| w.message.contains("out of range"))
            .count(),
        2
    );
}

#[test]
fn primitive_types_follow_the_faces() {
    let s = obj("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2\nf 1 2 3\n");
    assert_eq!(
        s.meshes[0].primitive_types,
        PrimitiveTypes(PrimitiveTypes::LINE | PrimitiveTypes::TRIANGLE)
    );
}

#[test]
fn materials_colours_textures_and_properties() {
    let mtl = "newmtl m\nKa 0.1 0.2 0.3\nKd 0.5\nKs 1 1 1\nKe 0 0 1\nNs 40\nd 0.5\nNi 1.3\nillum 2\nTf 0.9 0.9 0.9\nPr 0.4\nPm 1\n\
               map_Kd -clamp on diffuse.png\nmap_Ks spec.png\nmap_Ka amb.png\nmap_Ke emit.png\nbump -bm 2 height.png\n\
               norm normal.png\ndisp displacement.png\nmap_d alpha.png\nmap_Ns gloss.png\nmap_Pr rough.png\n\
               refl -type sphere ignored.png\n";
    let s = obj_mtl(
        &(String::from(QUAD) + "mtllib a.mtl\nusemtl m\nf 1 2 3\n"),
        "a.mtl",
        mtl,
    );
    let m = &s.materials[s.meshes[0].material];
    assert_eq!(m.ambient, Some(Vec3::new(0.1, 0.2, 0.3)));
    // Assimp's rule: a single value is red only.
    assert_eq!(m.diffuse, Some(Vec3::new(0.5, 0.0, 0.0)));
    assert_eq!(m.emissive, Some(Vec3::Z));
    assert_eq!(m.shininess, Some(40.0));
    assert_eq!(m.opacity, Some(0.5));
    let tex: Vec<(TextureKind, &str)> = m
        .textures
        .iter()
        .map(|t| (t.kind, t.path.as_str()))
        .collect();
    assert_eq!(
        tex,
        [
            (TextureKind::Diffuse, "diffuse.png"),
            (TextureKind::Ambient, "amb.png"),
            (TextureKind::Emissive, "emit.png"),
            (TextureKind::Specular, "spec.png"),
            (TextureKind::Height, "height.png"),
            (TextureKind::Normals, "normal.png"),
            (TextureKind::Displacement, "displacement.png"),
            (TextureKind::Opacity, "alpha.png"),
            (TextureKind::Shininess, "gloss.png"),
        ]
    );
    let prop = |k: &str| {
        m.properties
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
    };
    assert_eq!(prop("illum"), Some(PropertyValue::Int(2)));
    assert!(matches!(prop("Ni"), Some(PropertyValue::Float(v)) if (v - 1.3).abs() < 1e-6));
    assert!(matches!(prop("Pr"), Some(PropertyValue::Float(v)) if (v - 0.4).abs() < 1e-6));
    assert_eq!(prop("map_Kd.clamp"), Some(PropertyValue::Int(1)));
    assert_eq!(prop("bump.bm"), Some(PropertyValue::Float(2.0)));
    assert_eq!(prop("norm.bm"), Some(PropertyValue::Float(2.0)));
    assert_eq!(
        prop("map_Pr"),
        Some(PropertyValue::String("rough.png".to_string()))
    );
}

#[test]
fn cube_reflection_keeps_the_faces_that_are_set() {
    let mtl = "newmtl m\nmap_Kd -type cube_top top.png\nmap_Ka -type cube_bottom bottom.png\n";
    let s = obj_mtl(
        &(String::from(QUAD) + "mtllib a.mtl\nusemtl m\nf 1 2 3\n"),
        "a.mtl",
        mtl,
    );
    let m = &s.materials[1];
    let tex: Vec<(TextureKind, &str)> = m
        .textures
        .iter()
        .map(|t| (t.kind, t.path.as_str()))
        .collect();
    assert_eq!(
        tex,
        [
            (TextureKind::Reflection, "top.png"),
            (TextureKind::Reflection, "bottom.png")
        ]
    );
}

#[test]
fn mtl_problems_are_warnings() {
    let mtl = "map_Kd early.png\nnewmtl m\nKd x y z\nKs 0.1 0.2\nNs nan\nmap_Xy what.png\naniso 0.5\nKa 1 1 1\n";
    let s = obj_mtl(
        &(String::from(QUAD) + "mtllib a.mtl\nusemtl m\nf 1 2 3\n"),
        "a.mtl",
        mtl,
    );
    let m = &s.materials[1];
    assert_eq!(m.ambient, Some(Vec3::ONE));
    assert_eq!(m.specular, Some(Vec3::new(0.1, 0.2, 0.0)));
    let w = messages(&s);
    assert!(
        warned(
            &s,
            codes::MTL_TEXTURE_WITHOUT_MATERIAL,
            "a.mtl:1: texture statement"
        ),
        "{w}"
    );
    assert!(
        warned(
            &s,
            codes::MTL_BAD_NUMBER,
            "a.mtl:3: expected a number, found \"x\""
        ),
        "{w}"
    );
    assert!(
        warned(
            &s,
            codes::MTL_BAD_NUMBER,
            "a.mtl:5: number \"nan\" is not a finite"
        ),
        "{w}"
    );
    assert!(
        warned(
            &s,
            codes::MTL_UNKNOWN_TEXTURE_TYPE,
            "a.mtl:6: unknown texture type \"map_Xy\""
        ),
        "{w}"
    );
    let w = s.warnings.iter().find(|w| w.code == codes::MTL_BAD_NUMBER);
    assert_eq!(w.and_then(|w| w.location.as_deref()), Some("a.mtl:3"));
    assert!(
        matches!(m.properties.iter().find(|(k, _)| k == "aniso"), Some((_, PropertyValue::Float(v))) if *v == 0.5)
    );
}

#[test]
fn missing_library_is_a_warning_and_usemtl_names_survive() {
    let s = obj(&(String::from(QUAD) + "mtllib gone.mtl\nusemtl Steel\nf 1 2 3\n"));
    assert_eq!(s.materials[s.meshes[0].material].name, "Steel");
    assert!(warned(
        &s,
        codes::MTLLIB_MISSING,
        "t.obj:5: material library \"gone.mtl\" not found"
    ));
}

#[test]
fn missing_library_falls_back_to_the_obj_name() {
    let mut asked = Vec::new();
    let mut cb = |name: &str| {
        asked.push(name.to_string());
        (name == "t.mtl").then(|| b"newmtl fb\nKd 0 0 1\n".to_vec())
    };
    let s = parse(
        (String::from(QUAD) + "mtllib other.mtl\nusemtl fb\nf 1 2 3\n").as_bytes(),
        "t.obj",
        &mut cb,
    )
    .unwrap();
    assert_eq!(asked, ["other.mtl", "t.mtl"]);
    assert_eq!(s.materials[s.meshes[0].material].diffuse, Some(Vec3::Z));
    assert!(warned(&s, codes::MTLLIB_FALLBACK, "read \"t.mtl\" instead"));
}

#[test]
fn each_library_is_read_once() {
    let mut calls = 0;
    let mut cb = |_: &str| {
        calls += 1;
        Some(b"newmtl a\nnewmtl b\n".to_vec())
    };
    let mut text = String::from(QUAD);
    for _ in 0..1000 {
        text.push_str("mtllib lib.mtl\n");
    }
    text.push_str("f 1 2 3\n");
    let s = parse(text.as_bytes(), "t.obj", &mut cb).unwrap();
    assert_eq!(calls, 1);
    // Re-reading selects the library's last material, as Assimp's re-read does.
    assert_eq!(s.materials[s.meshes[0].material].name, "b");
}

#[test]
fn warnings_are_bounded() {
    let mut text = String::from(QUAD);
    for _ in 0..10_000 {
        text.push_str("f\n");
    }
    text.push_str("f 1 2 3\n");
    let s = obj(&text);
    assert!(s.warnings.len() <= 65);
    let last = s.warnings.last().unwrap();
    assert_eq!(last.code, codes::WARNINGS_SUPPRESSED);
    assert!(last.message.contains("more warnings not shown"));
    assert!(s.warnings[..64].iter().all(|w| w.code == codes::EMPTY_FACE));
}

#[test]
fn many_objects_are_not_quadratic() {
    let mut text = String::from(QUAD);
    for i in 0..50_000 {
        text.push_str(&alloc::format!("o n{i}\nf 1 2 3\n"));
    }
    let s = obj(&text);
    assert_eq!(s.meshes.len(), 50_000);
    assert_eq!(s.nodes.len(), 50_001);
}

#[test]
fn fallback_library_is_read_once_for_many_missing_names() {
    let mut calls = Vec::new();
    let mut cb = |name: &str| {
        calls.push(name.to_string());
        (name == "t.mtl").then(|| b"newmtl fb\n".to_vec())
    };
    let mut text = String::from(QUAD);
    for i in 0..100 {
        text.push_str(&alloc::format!("mtllib missing{i}.mtl\n"));
    }
    text.push_str("f 1 2 3\n");
    let s = parse(text.as_bytes(), "t.obj", &mut cb).unwrap();
    assert_eq!(calls.iter().filter(|c| *c == "t.mtl").count(), 1);
    assert_eq!(calls.len(), 101);
    assert_eq!(s.materials[s.meshes[0].material].name, "fb");
}

#[test]
fn vertices_name_the_position_they_were_made_from() {
    let shared = |m: &kiln_scene::Mesh| {
        let s = m.shared_positions.as_ref().unwrap();
        (s.of_vertex.clone(), s.points)
    };
    // The points and the line: the file's numbers (4 positions, 6 vertices), the line's inner
    // vertex twice.
    let s = obj(&(String::from(QUAD) + "p 1 2\nl 1 2 3\n"));
    assert_eq!(shared(&s.meshes[0]), (vec![0, 1, 0, 1, 1, 2], 4));
    // Meshes of fewer vertices than the file has positions: numbered from 0 in order of
    // first use, each mesh on its own (the second is not numbered after the first); one of
    // as many vertices as positions keeps the file's numbers.
    let s = obj(&(String::from(QUAD) + "g a\nf 3 2 4\ng b\nf 4 3 2\ng c\nf 4 3 2\nf 1 2 4\n"));
    assert_eq!(shared(&s.meshes[0]), (vec![0, 1, 2], 3));
    assert_eq!(shared(&s.meshes[1]), (vec![0, 1, 2], 3));
    assert_eq!(shared(&s.meshes[2]), (vec![3, 2, 1, 0, 1, 3], 4));
    for m in &s.meshes {
        m.validate().unwrap();
        let (of_vertex, _) = shared(m);
        for (a, &p) in of_vertex.iter().enumerate() {
            let first = of_vertex.iter().position(|&q| q == p).unwrap();
            assert_eq!(m.positions[a], m.positions[first]);
        }
    }
}
