//! `read_materials` on any text: never panics; what it accepts writes to XML that reads back,
//! and from then on write/read is a fixed point. (The first trip may change the data: `%.8g`
//! keeps 8 digits of a typed-in number, and names are cut at a NUL, as tinyxml2 does.)
#![no_main]

use kiln_format::MaterialData;
use kiln_format::xml::{format_float, read_materials, write_materials};
use libfuzzer_sys::fuzz_target;

/// Colour bits, NaN payloads folded (the text keeps only a NaN's sign).
fn bits(m: &[MaterialData]) -> Vec<u32> {
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

fn names(m: &[MaterialData]) -> Vec<[&str; 4]> {
    m.iter()
        .map(|m| {
            [
                &*m.name,
                &*m.diffuse_file,
                &*m.specular_file,
                &*m.normal_file,
            ]
        })
        .collect()
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(first) = read_materials(text) else {
        return;
    };

    let written = write_materials(&first);
    let second = read_materials(&written).expect("re-reading written XML failed");
    assert_eq!(second.len(), first.len());
    // Names come back as C strings: up to the first NUL.
    for (a, b) in names(&first).iter().zip(names(&second)) {
        for (a, b) in a.iter().zip(b) {
            assert_eq!(a.split('\0').next().unwrap(), b);
        }
    }
    // Colours come back as %.8g rounds them.
    let rounded: Vec<u32> = first
        .iter()
        .flat_map(|m| {
            m.ambient
                .iter()
                .chain(&m.diffuse)
                .chain(&m.specular)
                .chain(&m.emissive)
        })
        .map(|f| format_float(*f).parse::<f32>().unwrap())
        .map(|f| {
            if f.is_nan() {
                0x7fc0_0000 | (f.to_bits() & 0x8000_0000)
            } else {
                f.to_bits()
            }
        })
        .collect();
    assert_eq!(bits(&second), rounded);

    let rewritten = write_materials(&second);
    let third = read_materials(&rewritten).expect("re-reading rewritten XML failed");
    assert_eq!(bits(&third), bits(&second));
    assert_eq!(names(&third), names(&second));
    assert_eq!(write_materials(&third), rewritten);
});
