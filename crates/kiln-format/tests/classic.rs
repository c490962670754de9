//! The classic `.mesh` / `.clip` codecs: golden bytes written by hand from the layout in
//! design.md, round trips, and hostile input (truncations, flips, huge counts).

use kiln_format::classic::{read_clip, read_mesh, write_clip, write_mesh};
use kiln_format::{
    Bone, Clip, Element, FormatError, IDENTITY, Item, Keyframe, MeshPart, Model, Track, Vertex,
};
use proptest::prelude::*;

fn hex(s: &str) -> Vec<u8> {
    let digits: Vec<u8> = s.bytes().filter(u8::is_ascii_hexdigit).collect();
    assert_eq!(digits.len() % 2, 0, "odd number of hex digits");
    digits
        .chunks(2)
        .map(|p| u8::from_str_radix(std::str::from_utf8(p).unwrap(), 16).unwrap())
        .collect()
}

fn small_model() -> Model {
    Model {
        bones: vec![Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        }],
        meshes: vec![MeshPart {
            name: "box".into(),
            vertices: vec![Vertex {
                position: [1.0, 2.0, 3.0],
                uv: [0.5, 0.25],
                normal: [0.0, 0.0, 1.0],
                tangent: [1.0, 0.0, 0.0],
                blend_indices: [0.0; 4],
                blend_weights: [1.0, 0.0, 0.0, 0.0],
            }],
            indices: vec![0, 0, 0],
            bone_index: 0,
            material_name: "mat".into(),
            morph_targets: Vec::new(),
        }],
    }
}

/// `small_model` as the layout text says, field by field (1.0f32 = 0x3f800000).
const SMALL_MESH_HEX: &str = "
    01000000                                            boneCount 1
    00000000 ffffffff                                   index 0, parent -1
    04000000 726f6f74                                   name 'root'
    0000803f 00000000 00000000 00000000                 transform (identity)
    00000000 0000803f 00000000 00000000
    00000000 00000000 0000803f 00000000
    00000000 00000000 00000000 0000803f
    01000000                                            meshCount 1
    03000000 626f78                                     name 'box'
    01000000                                            vertexCount 1
    0000803f 00000040 00004040                          position 1 2 3
    0000003f 0000803e                                   uv 0.5 0.25
    00000000 00000000 0000803f                          normal 0 0 1
    0000803f 00000000 00000000                          tangent 1 0 0
    00000000 00000000 00000000 00000000                 blendIndices
    0000803f 00000000 00000000 00000000                 blendWeights 1 0 0 0
    03000000 00000000 00000000 00000000                 indexCount 3, indices 0 0 0
    00000000                                            boneIndex 0
    03000000 6d6174                                     materialName 'mat'
";

fn small_clip() -> Clip {
    Clip {
        name: "walk".into(),
        duration: 30.0,
        frame_rate: 30.0,
        frame_count: 31,
        tracks: vec![Track {
            bone_name: "root".into(),
            keyframes: vec![Keyframe {
                time: 0.0,
                scale: [1.0; 3],
                rotation: [0.0, 0.0, 0.0, 1.0],
                translation: [1.0, 2.0, 3.0],
            }],
        }],
        weight_tracks: Vec::new(),
    }
}

const SMALL_CLIP_HEX: &str = "
    04000000 77616c6b                                   name 'walk'
    0000f041 0000f041                                   duration 30, frameRate 30
    1f000000                                            frameCount 31
    01000000                                            keyframeCount (tracks) 1
    04000000 726f6f74                                   boneName 'root'
    01000000                                            count 1
    00000000                                            time 0
    0000803f 0000803f 0000803f                          scale 1 1 1
    00000000 00000000 00000000 0000803f                 rotation x y z w = 0 0 0 1
    0000803f 00000040 00004040                          translation 1 2 3
";

/// Strips the comments (everything after the hex columns) from the golden text.
fn golden(text: &str) -> Vec<u8> {
    let mut bytes = Vec::new();
    for line in text.lines() {
        let columns: String = line
            .split_whitespace()
            .take_while(|w| w.bytes().all(|b| b.is_ascii_hexdigit()))
            .collect();
        bytes.extend(hex(&columns));
    }
    bytes
}

#[test]
fn golden_mesh() {
    let bytes = golden(SMALL_MESH_HEX);
    assert_eq!(
        bytes.len(),
        4 + 4 + 4 + 8 + 64 + 4 + 7 + 4 + 76 + 16 + 4 + 7
    );
    assert_eq!(write_mesh(&small_model()), bytes);
    assert_eq!(read_mesh(&bytes).unwrap(), small_model());
}

#[test]
fn golden_clip() {
    let bytes = golden(SMALL_CLIP_HEX);
    assert_eq!(bytes.len(), 8 + 8 + 4 + 4 + 8 + 4 + 44);
    assert_eq!(write_clip(&small_clip()), bytes);
    assert_eq!(read_clip(&bytes).unwrap(), small_clip());
}

#[test]
fn empty_arrays_are_a_zero_count_alone() {
    assert_eq!(write_mesh(&Model::default()), hex("00000000 00000000"));
    let model = Model {
        bones: vec![],
        meshes: vec![MeshPart {
            bone_index: -1,
            ..MeshPart::default()
        }],
    };
    let bytes = hex("00000000 01000000  00000000 00000000 00000000 ffffffff 00000000");
    assert_eq!(write_mesh(&model), bytes);
    assert_eq!(read_mesh(&bytes).unwrap(), model);

    let clip = Clip {
        tracks: vec![Track::default()],
        ..Clip::default()
    };
    let bytes = hex("00000000 00000000 00000000 00000000 01000000 00000000 00000000");
    assert_eq!(write_clip(&clip), bytes);
    assert_eq!(read_clip(&bytes).unwrap(), clip);
}

#[test]
fn non_ascii_names_are_utf8_bytes() {
    let mut model = Model::default();
    model.bones.push(Bone {
        index: 0,
        parent: -1,
        name: "뼈".into(),
        transform: IDENTITY,
    });
    let bytes = write_mesh(&model);
    assert_eq!(&bytes[12..19], &hex("03000000 eb bc 88")[..]);
    assert_eq!(read_mesh(&bytes).unwrap(), model);
}

#[test]
fn error_names_the_element_and_offset() {
    // Bone 3's name claims 4,000,000 bytes.
    let mut model = small_model();
    model.bones = (0..4)
        .map(|i| Bone {
            index: i,
            parent: i - 1,
            name: format!("b{i}"),
            transform: IDENTITY,
        })
        .collect();
    let mut bytes = write_mesh(&model);
    let name_offset = 4 + 3 * (4 + 4 + 4 + 2 + 64) + 8;
    bytes[name_offset..name_offset + 4].copy_from_slice(&4_000_000u32.to_le_bytes());
    let err = read_mesh(&bytes).unwrap_err();
    let left = bytes.len() - name_offset - 4;
    assert_eq!(
        err,
        FormatError::StringPastEnd {
            element: Element {
                item: Item::Bone(3),
                field: "name"
            },
            offset: name_offset,
            length: 4_000_000,
            left,
        }
    );
    assert_eq!(
        err.to_string(),
        format!(
            "bone 3 name: length 4000000 at offset {name_offset} runs past the end ({left} bytes left)"
        )
    );
}

#[test]
fn counts_of_0xffffffff_are_errors() {
    let ff = 0xFFFF_FFFFu32.to_le_bytes();
    // bone count
    let mut b = ff.to_vec();
    b.extend([0; 8]);
    assert!(matches!(
        read_mesh(&b),
        Err(FormatError::CountPastEnd {
            count: 0xFFFF_FFFF,
            offset: 0,
            left: 8,
            ..
        })
    ));
    // mesh count
    let b = [&[0u8; 4][..], &ff, &[0; 16]].concat();
    let err = read_mesh(&b).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("mesh count: count 4294967295 of at least 20 bytes each at offset 4")
    );
    // vertex count, index count, material name length of mesh 0
    let mesh = hex("00000000 01000000 00000000");
    let b = [&mesh[..], &ff, &[0; 12]].concat();
    assert!(
        read_mesh(&b)
            .unwrap_err()
            .to_string()
            .starts_with("mesh 0 vertices: count 4294967295 of at least 76")
    );
    let b = [&mesh[..], &[0; 4], &ff, &[0; 8]].concat();
    assert!(
        read_mesh(&b)
            .unwrap_err()
            .to_string()
            .starts_with("mesh 0 indices: count 4294967295 of at least 4 ")
    );
    let b = [&mesh[..], &[0; 12], &ff].concat();
    assert!(matches!(
        read_mesh(&b),
        Err(FormatError::StringPastEnd {
            length: 0xFFFF_FFFF,
            left: 0,
            offset: 24,
            ..
        })
    ));
    // clip name, track count, keyframe count
    assert!(matches!(
        read_clip(&ff),
        Err(FormatError::StringPastEnd { .. })
    ));
    let header = hex("00000000 00000000 00000000 00000000");
    let b = [&header[..], &ff, &[0; 8]].concat();
    assert!(
        read_clip(&b)
            .unwrap_err()
            .to_string()
            .starts_with("clip track count: count 4294967295")
    );
    let b = [&header[..], &hex("01000000 00000000"), &ff].concat();
    assert!(
        read_clip(&b)
            .unwrap_err()
            .to_string()
            .starts_with("track 0 keyframes: count 4294967295 of at least 44")
    );
}

#[test]
fn names_that_are_not_utf8_keep_their_bytes() {
    let mut bytes = write_mesh(&small_model());
    // 'root' -> 'r', 0xff, 'o', 't': read as the character for 0xff, written back as 0xff.
    bytes[17] = 0xff;
    let model = read_mesh(&bytes).unwrap();
    assert_eq!(model.bones[0].name, "r\u{10FFFF}ot");
    assert_eq!(write_mesh(&model), bytes);
    let mut bytes = write_clip(&small_clip());
    bytes[4] = 0xc3; // a lead byte without its continuation
    let clip = read_clip(&bytes).unwrap();
    assert_eq!(write_clip(&clip), bytes);
    // UTF-8 that holds one of the reserved characters itself cannot come back as it was.
    let mut model = small_model();
    model.bones[0].name = "rxxxx".into();
    let mut bytes = write_mesh(&model);
    bytes[17..21].copy_from_slice("\u{10FF41}".as_bytes());
    assert_eq!(
        read_mesh(&bytes),
        Err(FormatError::InvalidUtf8 {
            element: Element {
                item: Item::Bone(0),
                field: "name"
            },
            offset: 17,
        })
    );
}

#[test]
fn trailing_bytes_are_rejected() {
    let mut bytes = write_mesh(&small_model());
    let len = bytes.len();
    bytes.push(0);
    assert_eq!(
        read_mesh(&bytes),
        Err(FormatError::TrailingBytes {
            offset: len,
            count: 1,
            after: "last mesh"
        })
    );
    let mut bytes = write_clip(&small_clip());
    bytes.extend([1, 2, 3]);
    assert_eq!(
        read_clip(&bytes).unwrap_err().to_string(),
        format!(
            "3 trailing bytes at offset {} after the last track",
            bytes.len() - 3
        )
    );
}

#[test]
fn every_truncation_is_an_error() {
    let mesh = write_mesh(&sample_model());
    for n in 0..mesh.len() {
        assert!(
            read_mesh(&mesh[..n]).is_err(),
            "mesh prefix of {n} bytes was accepted"
        );
    }
    let clip = write_clip(&sample_clip());
    for n in 0..clip.len() {
        assert!(
            read_clip(&clip[..n]).is_err(),
            "clip prefix of {n} bytes was accepted"
        );
    }
}

#[test]
fn truncation_error_says_what_was_cut() {
    let bytes = write_clip(&small_clip());
    let err = read_clip(&bytes[..14]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "clip frame rate: 4 bytes needed at offset 12, only 2 left"
    );
}

/// Every single-byte change of a valid file: an error or a model that writes back to the same
/// bytes, never a panic.
#[test]
fn every_byte_flip_is_an_error_or_exact() {
    let mesh = write_mesh(&sample_model());
    let clip = write_clip(&sample_clip());
    for mask in [0x01u8, 0x80, 0xff, 0x10] {
        for i in 0..mesh.len() {
            let mut b = mesh.clone();
            b[i] ^= mask;
            if let Ok(m) = read_mesh(&b) {
                assert_eq!(write_mesh(&m), b);
            }
        }
        for i in 0..clip.len() {
            let mut b = clip.clone();
            b[i] ^= mask;
            if let Ok(c) = read_clip(&b) {
                assert_eq!(write_clip(&c), b);
            }
        }
    }
}

fn sample_model() -> Model {
    let mut m = small_model();
    m.bones.push(Bone {
        index: 1,
        parent: 0,
        name: "팔".into(),
        transform: [2.0; 16],
    });
    m.meshes.push(MeshPart {
        name: String::new(),
        vertices: vec![Vertex::default(); 2],
        indices: vec![1, 0, 1],
        bone_index: 1,
        material_name: "m2".into(),
        morph_targets: Vec::new(),
    });
    m
}

fn sample_clip() -> Clip {
    let mut c = small_clip();
    c.tracks.push(Track {
        bone_name: "arm".into(),
        keyframes: vec![Keyframe::default(); 2],
    });
    c.tracks.push(Track::default());
    c
}

// ---------------------------------------------------------------------------------------------
// Crashes found by fuzzing (fuzz/), kept as regression tests.
// None so far: each target ran 60 s or more (`cargo +nightly fuzz run TARGET`) without a crash.
// Add an input here, as a byte string, whenever one is found.

#[test]
fn fuzz_regressions() {
    for input in FUZZ_MESH_CRASHES {
        if let Ok(m) = read_mesh(input) {
            assert_eq!(&write_mesh(&m)[..], *input);
        }
    }
    for input in FUZZ_CLIP_CRASHES {
        if let Ok(c) = read_clip(input) {
            assert_eq!(&write_clip(&c)[..], *input);
        }
    }
}

const FUZZ_MESH_CRASHES: &[&[u8]] = &[];
const FUZZ_CLIP_CRASHES: &[&[u8]] = &[];

// ---------------------------------------------------------------------------------------------
// Property tests

fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        Just(0.0),
        Just(-0.0),
        Just(f32::NAN),
        -10.0f32..10.0,
    ]
}

fn any_name() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        "[a-zA-Z0-9_:|. -]{1,12}",
        // U+10FF00..=U+10FFFF stand for the raw bytes of a name that is not UTF-8
        // (`kiln_format::names`): the classic file writes the byte, so such a character reads
        // back as itself only from that byte (`names_that_are_not_utf8_keep_their_bytes`).
        "(?s).{0,8}".prop_filter("no byte escapes", |n| {
            n.chars()
                .all(|c| !('\u{10FF00}'..='\u{10FFFF}').contains(&c))
        }),
        "[가-힣é漢字🦀\\x00\t\n]{1,6}",
    ]
}

fn any_vertex() -> impl Strategy<Value = Vertex> {
    prop::array::uniform16(any_f32()).prop_map(|f| Vertex {
        position: [f[0], f[1], f[2]],
        uv: [f[3], f[4]],
        normal: [f[5], f[6], f[7]],
        tangent: [f[8], f[9], f[10]],
        blend_indices: [f[11], f[12], f[13], f[14]],
        blend_weights: [f[15], f[0], f[1], f[2]],
    })
}

fn any_model() -> impl Strategy<Value = Model> {
    let bone = (
        any::<i32>(),
        any::<i32>(),
        any_name(),
        prop::array::uniform16(any_f32()),
    )
        .prop_map(|(index, parent, name, transform)| Bone {
            index,
            parent,
            name,
            transform,
        });
    let mesh = (
        any_name(),
        prop::collection::vec(any_vertex(), 0..4),
        prop::collection::vec(any::<u32>(), 0..10),
        any::<i32>(),
        any_name(),
    )
        .prop_map(
            |(name, vertices, indices, bone_index, material_name)| MeshPart {
                name,
                vertices,
                indices,
                bone_index,
                material_name,
                morph_targets: Vec::new(),
            },
        );
    (
        prop::collection::vec(bone, 0..4),
        prop::collection::vec(mesh, 0..4),
    )
        .prop_map(|(bones, meshes)| Model { bones, meshes })
}

fn any_clip() -> impl Strategy<Value = Clip> {
    let keyframe = prop::array::uniform11(any_f32()).prop_map(|f| Keyframe {
        time: f[0],
        scale: [f[1], f[2], f[3]],
        rotation: [f[4], f[5], f[6], f[7]],
        translation: [f[8], f[9], f[10]],
    });
    let track =
        (any_name(), prop::collection::vec(keyframe, 0..4)).prop_map(|(bone_name, keyframes)| {
            Track {
                bone_name,
                keyframes,
            }
        });
    (
        any_name(),
        any_f32(),
        any_f32(),
        any::<u32>(),
        prop::collection::vec(track, 0..4),
    )
        .prop_map(|(name, duration, frame_rate, frame_count, tracks)| Clip {
            name,
            duration,
            frame_rate,
            frame_count,
            tracks,
            weight_tracks: Vec::new(),
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    /// `read(write(m))` is `m` bit for bit: the bytes written again are the same (the encoding
    /// holds every field), and `Debug` (which shows names and non-NaN values) agrees.
    #[test]
    fn mesh_round_trip(model in any_model()) {
        let bytes = write_mesh(&model);
        let back = read_mesh(&bytes).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{model:?}"));
        prop_assert_eq!(write_mesh(&back), bytes);
    }

    /// The writer handed each part's vertices in pieces (of 1 or 2 vertices, the parts having
    /// up to 3; the part's own list left empty) writes `write_mesh`'s bytes.
    #[test]
    fn mesh_written_from_pieces_is_the_whole_one(model in any_model(), piece in 1usize..3) {
        let counts: Vec<usize> = model.meshes.iter().map(|m| m.vertices.len()).collect();
        let mut lean = model.clone();
        for part in &mut lean.meshes {
            part.vertices.clear();
        }
        let mut bytes = Vec::new();
        kiln_format::classic::write_mesh_with(
            &lean,
            &counts,
            &mut |k, put| {
                for run in model.meshes[k].vertices.chunks(piece) {
                    put(run);
                }
            },
            &mut bytes,
        )
        .unwrap();
        // What a writer reserves on disk first is exactly what it writes.
        prop_assert_eq!(kiln_format::classic::mesh_len_with(&lean, &counts), bytes.len());
        prop_assert_eq!(bytes, write_mesh(&model));
    }

    #[test]
    fn clip_round_trip(clip in any_clip()) {
        let bytes = write_clip(&clip);
        let back = read_clip(&bytes).unwrap();
        prop_assert_eq!(format!("{back:?}"), format!("{clip:?}"));
        prop_assert_eq!(write_clip(&back), bytes);
    }

    #[test]
    fn mesh_flips_and_cuts_never_panic(
        model in any_model(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..), 1..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let valid = write_mesh(&model);
        let n = cut.index(valid.len());
        prop_assert!(read_mesh(&valid[..n]).is_err());
        let mut bytes = valid;
        for (at, mask) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        if let Ok(m) = read_mesh(&bytes) {
            prop_assert_eq!(write_mesh(&m), bytes);
        }
    }

    #[test]
    fn clip_flips_never_panic(
        clip in any_clip(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), 1u8..), 1..4),
    ) {
        let mut bytes = write_clip(&clip);
        for (at, mask) in flips {
            let i = at.index(bytes.len());
            bytes[i] ^= mask;
        }
        if let Ok(c) = read_clip(&bytes) {
            prop_assert_eq!(write_clip(&c), bytes);
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        if let Ok(m) = read_mesh(&bytes) {
            prop_assert_eq!(write_mesh(&m), bytes.clone());
        }
        if let Ok(c) = read_clip(&bytes) {
            prop_assert_eq!(write_clip(&c), bytes);
        }
    }
}

/// The writer handed the vertices part by part refuses counts that do not match the parts,
/// before it writes anything.
#[test]
fn mesh_written_from_pieces_refuses_a_wrong_count_list() {
    let model = small_model();
    for counts in [Vec::new(), vec![0; model.meshes.len() + 1]] {
        let mut bytes = Vec::new();
        let e = kiln_format::classic::write_mesh_with(&model, &counts, &mut |_, _| {}, &mut bytes)
            .unwrap_err();
        assert_eq!(e.kind(), std::io::ErrorKind::InvalidInput);
        assert!(e.to_string().contains("vertex counts"), "{e}");
        assert!(bytes.is_empty());
    }
}

/// The streaming writer gives the same bytes as the in-memory one, and reports the writer's
/// error instead of losing it.
#[test]
fn streaming_mesh_writer_matches_and_reports_errors() {
    let model = small_model();
    let mut streamed = Vec::new();
    kiln_format::classic::write_mesh_to(&model, &mut std::io::BufWriter::new(&mut streamed))
        .unwrap();
    assert_eq!(streamed, kiln_format::classic::write_mesh(&model));
    assert_eq!(streamed, golden(SMALL_MESH_HEX));

    /// Accepts `room` bytes, then fails.
    struct Full {
        room: usize,
    }
    impl std::io::Write for Full {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            if self.room == 0 {
                return Err(std::io::Error::other("disk full"));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = kiln_format::classic::write_mesh_to(&model, &mut Full { room: 10 }).unwrap_err();
    assert_eq!(e.to_string(), "disk full");
}
