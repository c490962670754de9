//! Blend shapes through the whole conversion (import, the original tool's processing,
//! extraction, encoding): the kiln layout carries every target and a weight track per animated
//! target sampled at every frame; the classic layout writes the same bytes as for the model
//! without blend shapes, and says what it left out.

use std::path::Path;

use kiln::{EncodeOptions, Encoded, Layout, LoadOptions, encode, load};
use kiln_format::kiln::{AlignedBytes, ClipView, MeshView};
use kiln_testkit::fixtures::fbx::skinned_tube;
use kiln_testkit::fixtures::morph::{MORPH_TUBE, TARGETS, morph_tube_file, weight_keys};

fn convert(bytes: &[u8], layout: Layout) -> (kiln::Loaded, Encoded) {
    let path = Path::new("tube.fbx");
    let scene = load::import_bytes(
        path,
        bytes,
        load::InputFormat::Fbx,
        &mut kiln::obj::FileSystem,
    )
    .unwrap();
    let loaded = load::process_scene(scene, path, &LoadOptions::default()).unwrap();
    let encoded = encode(
        &loaded,
        &EncodeOptions {
            layout,
            ..EncodeOptions::default()
        },
    )
    .unwrap();
    (loaded, encoded)
}

fn file<'e>(e: &'e Encoded, suffix: &str) -> &'e [u8] {
    &e.files
        .iter()
        .find(|f| f.name.ends_with(suffix))
        .unwrap_or_else(|| {
            panic!(
                "no {suffix} among {:?}",
                e.files.iter().map(|f| &f.name).collect::<Vec<_>>()
            )
        })
        .bytes
}

#[test]
fn the_kiln_layout_carries_targets_and_weight_tracks() {
    let (loaded, e) = convert(&morph_tube_file(true), Layout::Kiln);
    let mesh = AlignedBytes::from_bytes(file(&e, ".mesh"));
    let v = MeshView::parse(&mesh).unwrap();
    assert_eq!(v.version(), (1, 1));
    // Two material parts, each with the three targets.
    assert_eq!(v.part_records().len(), 2);
    for p in 0..2 {
        let names: Vec<&str> = v
            .part_morph_targets(p)
            .iter()
            .map(|t| v.string(t.name))
            .collect();
        assert_eq!(names, TARGETS);
    }
    // What was read back is what was extracted.
    assert_eq!(v.to_model(), loaded.model);
    // The clip: 31 frames, one weight track per part and target, the keys' values on frames.
    let clip = AlignedBytes::from_bytes(file(&e, "_bend.clip"));
    let c = ClipView::parse(&clip).unwrap();
    assert_eq!(c.frame_count(), MORPH_TUBE.frames as u32);
    assert_eq!(c.weight_track_records().len(), 6);
    for (i, w) in c.weight_track_records().iter().enumerate() {
        for key in weight_keys(w.target as usize) {
            let got = c.weight(key.time as usize, i).unwrap();
            assert!(
                (got - key.value).abs() < 1e-6,
                "track {i} at {}: {got}",
                key.time
            );
        }
    }
    // Between keys: linear (target 0 goes 0 → 1 over frames 0..15).
    let t0 = c
        .weight_track_records()
        .iter()
        .position(|w| w.part == 0 && w.target == 0)
        .unwrap();
    assert!((c.weight(5, t0).unwrap() - 5.0 / 15.0).abs() < 1e-6);
    assert!(
        !e.warnings
            .iter()
            .chain(&loaded.warnings)
            .any(|w| w.code.contains("morph")),
        "{:?}",
        loaded.warnings
    );
}

#[test]
fn the_classic_layout_is_unchanged_and_says_what_it_left_out() {
    let (_, with) = convert(&morph_tube_file(false), Layout::Classic);
    let plain = kiln_fbx_scene::write_fbx(&skinned_tube(MORPH_TUBE), &Default::default()).unwrap();
    let (_, without) = convert(&plain, Layout::Classic);
    for suffix in [".mesh", "_bend.clip", ".xml"] {
        assert!(
            file(&with, suffix) == file(&without, suffix),
            "{suffix} differs"
        );
    }
    let said: Vec<_> = with
        .warnings
        .iter()
        .filter(|w| w.code == kiln::codes::CLASSIC_MORPH_DROPPED)
        .collect();
    assert_eq!(said.len(), 1, "{:?}", with.warnings);
    assert!(
        said[0]
            .message
            .contains("3 morph target(s) and 3 weight track(s)")
    );
}
