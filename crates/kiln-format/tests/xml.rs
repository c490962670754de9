//! The material XML: golden text (checked against tinyxml2 9.0.0 itself), `%.8g` against glibc,
//! round trips, hand-edited variants and errors.
#![cfg(feature = "std")]

use kiln_format::xml::{format_float, read_materials, write_materials};
use kiln_format::{FormatError, MaterialData};
use proptest::prelude::*;

fn sample() -> Vec<MaterialData> {
    vec![
        MaterialData {
            name: "a<b&c>\"'".into(),
            diffuse_file: "wood.png".into(),
            specular_file: String::new(),
            normal_file: "n.png".into(),
            ambient: [0.2, 0.2, 0.2, 1.0],
            diffuse: [1.0, 0.5, 0.25, 1.0],
            specular: [0.1, 0.0, 0.0, 16.0],
            emissive: [0.0, 0.0, 0.0, 1.0],
        },
        MaterialData {
            name: "나무 ".into(),
            ambient: [0.3, 1e-5, -0.0, 123456789.0],
            diffuse: [f32::NAN, -f32::NAN, f32::INFINITY, f32::NEG_INFINITY],
            specular: [1e-45, f32::MAX, 1e8, 99999992.0],
            ..MaterialData::default()
        },
    ]
}

/// What tinyxml2 9.0.0 prints for `sample()` through the original `WriteMaterialData`
/// (tests/data/tinyxml2_oracle.cpp), written out by hand.
const SAMPLE_XML: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<Materials>
    <Material>
        <Name>a&lt;b&amp;c&gt;"'</Name>
        <DiffuseFile>wood.png</DiffuseFile>
        <SpecularFile></SpecularFile>
        <NormalFile>n.png</NormalFile>
        <Ambient R="0.2" G="0.2" B="0.2" A="1"/>
        <Diffuse R="1" G="0.5" B="0.25" A="1"/>
        <Specular R="0.1" G="0" B="0" A="16"/>
        <Emissive R="0" G="0" B="0" A="1"/>
    </Material>
    <Material>
        <Name>나무 </Name>
        <DiffuseFile></DiffuseFile>
        <SpecularFile></SpecularFile>
        <NormalFile></NormalFile>
        <Ambient R="0.30000001" G="9.9999997e-06" B="-0" A="1.2345679e+08"/>
        <Diffuse R="nan" G="-nan" B="inf" A="-inf"/>
        <Specular R="1.4012985e-45" G="3.4028235e+38" B="1e+08" A="99999992"/>
        <Emissive R="0" G="0" B="0" A="0"/>
    </Material>
</Materials>
"#;

#[test]
fn golden_xml() {
    assert_eq!(write_materials(&sample()), SAMPLE_XML);
}

#[test]
fn golden_xml_reads_back() {
    let back = read_materials(SAMPLE_XML).unwrap();
    let mut expected = sample();
    // %.8g of 0.3f is 0.30000001, which reads back as 0.3f; NaN compares unequal, so check it
    // apart and replace it.
    assert!(back[1].diffuse[0].is_nan() && back[1].diffuse[0].is_sign_positive());
    assert!(back[1].diffuse[1].is_nan() && back[1].diffuse[1].is_sign_negative());
    let mut back = back;
    back[1].diffuse[..2].copy_from_slice(&[0.0, 0.0]);
    expected[1].diffuse[..2].copy_from_slice(&[0.0, 0.0]);
    assert_eq!(back, expected);
}

#[test]
fn no_materials_is_an_empty_root() {
    let text = write_materials(&[]);
    assert_eq!(
        text,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Materials/>\n"
    );
    assert_eq!(read_materials(&text).unwrap(), vec![]);
}

#[test]
fn names_are_cut_at_nul_like_c_str() {
    let m = MaterialData {
        name: "ab\0cd".into(),
        normal_file: "\0".into(),
        ..MaterialData::default()
    };
    let text = write_materials(&[m]);
    assert!(text.contains("<Name>ab</Name>"));
    assert!(text.contains("<NormalFile></NormalFile>"));
}

/// Every line of tests/data/g8_glibc.txt: glibc's `printf("%.8g", (double)f)`.
#[test]
fn format_float_matches_glibc() {
    let table = include_str!("data/g8_glibc.txt");
    let mut n = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (bits, expected) = line.split_once(' ').unwrap();
        let v = f32::from_bits(u32::from_str_radix(bits, 16).unwrap());
        assert_eq!(format_float(v), expected, "bits {bits}");
        n += 1;
    }
    assert!(n > 3000);
}

/// The same over a big table: `KILN_G8_TABLE=path cargo test -- --ignored`, with the table from
/// `tests/data/g8_glibc.c` (`./gen 5000000 > path`).
#[test]
#[ignore = "needs KILN_G8_TABLE, a table made by tests/data/g8_glibc.c"]
fn format_float_matches_glibc_big_table() {
    let path = std::env::var("KILN_G8_TABLE").expect("KILN_G8_TABLE");
    let table = std::fs::read_to_string(path).unwrap();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let (bits, expected) = line.split_once(' ').unwrap();
        let v = f32::from_bits(u32::from_str_radix(bits, 16).unwrap());
        assert_eq!(format_float(v), expected, "bits {bits}");
    }
}

/// `write_materials` against tinyxml2 itself, on random materials:
/// `KILN_TINYXML2_ORACLE=path cargo test -- --ignored`, with the binary built from
/// `tests/data/tinyxml2_oracle.cpp`.
#[test]
#[ignore = "needs KILN_TINYXML2_ORACLE, built from tests/data/tinyxml2_oracle.cpp"]
fn write_materials_matches_tinyxml2() {
    use kiln_testkit::process::{Limits, run_limited_with_stdin};
    use std::process::Command;

    let oracle = std::env::var("KILN_TINYXML2_ORACLE").expect("KILN_TINYXML2_ORACLE");
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    const ALPHABET: &[char] = &[
        'a', 'Z', '0', ' ', '\t', '\n', '\r', '&', '<', '>', '"', '\'', ';', '\u{1}', '\u{7f}',
        'é', '漢', '🦀', '\0', '.',
    ];
    for round in 0..20 {
        let mut materials = Vec::new();
        for _ in 0..(next() % 50) {
            let mut text = || -> String {
                let len = next() % 8;
                (0..len)
                    .map(|_| ALPHABET[(next() % ALPHABET.len() as u64) as usize])
                    .collect()
            };
            let (name, diffuse_file, specular_file, normal_file) = (text(), text(), text(), text());
            let mut c = [0f32; 16];
            for f in &mut c {
                let bits = next() as u32;
                *f = match next() % 4 {
                    0 => f32::from_bits(bits),
                    1 => (bits % 2001) as f32 / 1000.0,
                    2 => (bits % 100) as f32,
                    _ => f32::from_bits(bits) % 1000.0,
                };
            }
            materials.push(MaterialData {
                name,
                diffuse_file,
                specular_file,
                normal_file,
                ambient: [c[0], c[1], c[2], c[3]],
                diffuse: [c[4], c[5], c[6], c[7]],
                specular: [c[8], c[9], c[10], c[11]],
                emissive: [c[12], c[13], c[14], c[15]],
            });
        }
        let mut input = String::new();
        for m in &materials {
            for s in [&m.name, &m.diffuse_file, &m.specular_file, &m.normal_file] {
                if s.is_empty() {
                    input.push_str("- ");
                } else {
                    for b in s.bytes() {
                        input.push_str(&format!("{b:02x}"));
                    }
                    input.push(' ');
                }
            }
            for f in m
                .ambient
                .iter()
                .chain(&m.diffuse)
                .chain(&m.specular)
                .chain(&m.emissive)
            {
                input.push_str(&format!("{:x} ", f.to_bits()));
            }
            input.push('\n');
        }
        let out = run_limited_with_stdin(
            &mut Command::new(&oracle),
            Some(input.as_bytes()),
            Limits::C_PROGRAM,
        )
        .unwrap_or_else(|e| panic!("{oracle}: {e}"));
        let expected = String::from_utf8(out.stdout).unwrap();
        assert_eq!(write_materials(&materials), expected, "round {round}");
    }
}

#[test]
fn hand_edited_variants_are_read() {
    let text = "\u{feff}<!-- edited by hand -->\r\n<Materials>\r\n\
        <Material>\r\n\
          <Emissive A='1' B=\"0.5\"   R = \"1e-1\" Extra=\"x\" />\r\n\
          <Name><![CDATA[a<b]]>&#x41;&#66;&apos;&quot;</Name>\r\n\
          <DiffuseFile/>\r\n\
          <Ambient R=\" 2 \" G=\"-0.25\" B=\"1E2\" A=\"INF\"></Ambient>\r\n\
          <Unknown><Nested a=\"1\">text</Nested></Unknown>\r\n\
          <NormalFile>normal map.png</NormalFile>\r\n\
        </Material>\r\n\
        <Material/>\r\n\
        <Material><Name>only</Name></Material>\r\n\
      </Materials>\r\n<!-- trailing comment -->\r\n";
    let m = read_materials(text).unwrap();
    assert_eq!(m.len(), 3);
    assert_eq!(m[0].name, "a<bAB'\"");
    assert_eq!(m[0].diffuse_file, "");
    assert_eq!(m[0].specular_file, "");
    assert_eq!(m[0].normal_file, "normal map.png");
    assert_eq!(m[0].ambient, [2.0, -0.25, 100.0, f32::INFINITY]);
    assert_eq!(m[0].diffuse, [0.0; 4]);
    assert_eq!(m[0].emissive, [0.1, 0.0, 0.5, 1.0]);
    assert_eq!(m[1], MaterialData::default());
    assert_eq!(m[2].name, "only");

    // No declaration, everything on one line.
    let m = read_materials("<Materials><Material><Name>x</Name></Material></Materials>").unwrap();
    assert_eq!(m[0].name, "x");
}

#[test]
fn text_is_kept_exactly() {
    let m = MaterialData {
        name: "  two  words\n\tand a tab ".into(),
        diffuse_file: "\r\n".into(),
        ..MaterialData::default()
    };
    assert_eq!(
        read_materials(&write_materials(std::slice::from_ref(&m))).unwrap(),
        vec![m]
    );
}

fn xml_error(text: &str) -> String {
    match read_materials(text) {
        Err(e @ FormatError::Xml { .. }) => e.to_string(),
        other => panic!("expected an XML error, got {other:?}"),
    }
}

#[test]
fn errors_name_the_material_and_element() {
    let bad_number = SAMPLE_XML.replace(
        "<Diffuse R=\"nan\" G=\"-nan\"",
        "<Diffuse R=\"nan\" G=\"abc\"",
    );
    let e = xml_error(&bad_number);
    assert!(
        e.starts_with("material XML, material 1 <Diffuse> at byte "),
        "{e}"
    );
    assert!(e.ends_with(": attribute G: \"abc\" is not a number"), "{e}");

    let twice = SAMPLE_XML.replacen(
        "<NormalFile>n.png</NormalFile>",
        "<NormalFile/><NormalFile/>",
        1,
    );
    assert!(xml_error(&twice).contains("material 0 <NormalFile>"));
    assert!(xml_error(&twice).ends_with("appears twice"));

    let e = xml_error("<Material/>");
    assert!(
        e.ends_with("the root element is <Material>, expected <Materials>"),
        "{e}"
    );
    assert!(xml_error("").ends_with("no <Materials> element"));
    assert!(xml_error("<Materials><Material><Name>x").contains("material 0 <Name>"));
    assert!(
        xml_error("<Materials><Material>x</Material></Materials>").contains("material 0 at byte")
    );
    assert!(
        xml_error("<Materials><Material><Name>&nbsp;</Name></Material></Materials>")
            .contains("unknown entity &nbsp;")
    );
    assert!(
        xml_error("<Materials><Material><Name><b/></Name></Material></Materials>")
            .ends_with("element <b> inside a text element")
    );
    assert!(xml_error("<Materials></Material>").contains("document at byte"));
    assert!(xml_error("<Materials/><Materials/>").ends_with("element after </Materials>"));
    assert!(
        xml_error("<Materials><Material><Ambient R=\"1\" R=\"2\"/></Material></Materials>")
            .contains("material 0 <Ambient>")
    );
    assert!(
        xml_error("<Materials><Material><Ambient>1</Ambient></Material></Materials>")
            .ends_with("text inside a colour element")
    );
}

// ---------------------------------------------------------------------------------------------
// Crashes found by fuzzing (fuzz/), kept as regression tests.
// None so far: each target ran 60 s or more (`cargo +nightly fuzz run TARGET`) without a crash.
// Add an input here, as a byte string, whenever one is found.

#[test]
fn fuzz_regressions() {
    for input in FUZZ_XML_CRASHES {
        if let Ok(m) = read_materials(input) {
            let again = read_materials(&write_materials(&m)).unwrap();
            assert_eq!(
                write_materials(&again),
                write_materials(&read_materials(&write_materials(&again)).unwrap())
            );
        }
    }
}

const FUZZ_XML_CRASHES: &[&str] = &[];

// ---------------------------------------------------------------------------------------------
// Property tests

/// What `%.8g` then parsing gives for `v`: the value the XML can hold.
fn through_text(v: f32) -> f32 {
    format_float(v).parse().unwrap()
}

fn text_strategy() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-zA-Z0-9_. -]{1,12}",
        "[^\\x00]{0,8}",
        "[&<>\"' \t\r\na;é漢🦀\\x01\\x7f]{1,8}",
    ]
}

fn material_strategy(color: BoxedStrategy<f32>) -> impl Strategy<Value = MaterialData> {
    let c = prop::array::uniform4(color);
    (
        (
            text_strategy(),
            text_strategy(),
            text_strategy(),
            text_strategy(),
        ),
        (c.clone(), c.clone(), c.clone(), c),
    )
        .prop_map(
            |(
                (name, diffuse_file, specular_file, normal_file),
                (ambient, diffuse, specular, emissive),
            )| {
                MaterialData {
                    name,
                    diffuse_file,
                    specular_file,
                    normal_file,
                    ambient,
                    diffuse,
                    specular,
                    emissive,
                }
            },
        )
}

fn bits_of(m: &[MaterialData]) -> Vec<u32> {
    m.iter()
        .flat_map(|m| {
            m.ambient
                .iter()
                .chain(&m.diffuse)
                .chain(&m.specular)
                .chain(&m.emissive)
        })
        .map(|f| {
            if f.is_nan() {
                0x7fc0_0000 | (f.to_bits() & 0x8000_0000)
            } else {
                f.to_bits()
            }
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// Values `%.8g` can hold (every f32 after one trip through the text; no NaN, which is
    /// never `==`) come back exactly, names included.
    #[test]
    fn round_trip_is_identity(materials in prop::collection::vec(
        material_strategy(any::<u32>().prop_map(|b| through_text(f32::from_bits(b))).prop_filter("NaN", |f| !f.is_nan()).boxed()),
        0..4,
    )) {
        let text = write_materials(&materials);
        prop_assert_eq!(read_materials(&text).unwrap(), materials);
    }

    /// Any f32: names come back exactly, colours as `%.8g` rounds them (NaN keeps its sign),
    /// and the second trip changes nothing.
    #[test]
    fn any_float_round_trips_through_its_text(materials in prop::collection::vec(
        material_strategy(any::<u32>().prop_map(f32::from_bits).boxed()),
        0..4,
    )) {
        let text = write_materials(&materials);
        let back = read_materials(&text).unwrap();
        prop_assert_eq!(back.len(), materials.len());
        for (b, m) in back.iter().zip(&materials) {
            prop_assert_eq!(&b.name, &m.name);
            prop_assert_eq!(&b.diffuse_file, &m.diffuse_file);
            prop_assert_eq!(&b.specular_file, &m.specular_file);
            prop_assert_eq!(&b.normal_file, &m.normal_file);
        }
        let expected: Vec<MaterialData> = materials.iter().map(|m| MaterialData {
            ambient: m.ambient.map(through_text),
            diffuse: m.diffuse.map(through_text),
            specular: m.specular.map(through_text),
            emissive: m.emissive.map(through_text),
            ..m.clone()
        }).collect();
        prop_assert_eq!(bits_of(&back), bits_of(&expected));
        prop_assert_eq!(write_materials(&back), text);
    }

    #[test]
    fn edited_text_never_panics(
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<char>()), 1..4),
    ) {
        let mut chars: Vec<char> = SAMPLE_XML.chars().collect();
        for (at, ch) in flips {
            let i = at.index(chars.len());
            chars[i] = ch;
        }
        let text: String = chars.into_iter().collect();
        if let Ok(m) = read_materials(&text) {
            let once = read_materials(&write_materials(&m)).unwrap();
            let twice = read_materials(&write_materials(&once)).unwrap();
            prop_assert_eq!(bits_of(&once), bits_of(&twice));
            prop_assert_eq!(write_materials(&once), write_materials(&twice));
        }
    }
}
