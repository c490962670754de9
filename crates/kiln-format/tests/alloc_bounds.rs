//! Readers allocate in proportion to the input: a count read from the file is checked against
//! the bytes left before any allocation. A counting global allocator measures it; one test
//! function, so no other test allocates at the same time.

use kiln_format::classic::{read_clip, read_mesh, write_clip, write_mesh};
use kiln_format::{Clip, MeshPart, Model, Track};

#[global_allocator]
static GLOBAL: kiln_testkit::alloc::Counting = kiln_testkit::alloc::Counting;

/// Bytes allocated (in total, and the largest single block) while `f` runs.
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let (r, a) = kiln_testkit::alloc::measure(f);
    (r, a.bytes, a.largest)
}

/// The bound the readers keep: a decoded record is at most ~6× its smallest encoding
/// (a `MeshPart` is 104 bytes in memory, 20 in the file).
fn bound(input: usize) -> usize {
    8 * input + 64
}

#[test]
fn readers_allocate_in_proportion_to_the_input() {
    let ff = 0xFFFF_FFFFu32.to_le_bytes();
    let hostile: Vec<(&str, Vec<u8>, bool)> = vec![
        ("bone count", [&ff[..], &[0; 8]].concat(), true),
        ("mesh count", [&[0u8; 4][..], &ff, &[0; 16]].concat(), true),
        (
            "vertex count",
            [&[0u8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0][..], &ff, &[0; 12]].concat(),
            true,
        ),
        (
            "index count",
            [
                &[0u8, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..],
                &ff,
                &[0; 8],
            ]
            .concat(),
            true,
        ),
        (
            "bone name length",
            [&[1u8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0][..], &ff, &[0; 64]].concat(),
            true,
        ),
        ("clip name length", ff.to_vec(), false),
        (
            "track count",
            [&[0u8; 16][..], &ff, &[0; 8]].concat(),
            false,
        ),
        (
            "keyframe count",
            [&[0u8; 16][..], &[1, 0, 0, 0, 0, 0, 0, 0], &ff].concat(),
            false,
        ),
    ];
    for (what, bytes, is_mesh) in &hostile {
        let (is_err, total, _) = measure(|| {
            if *is_mesh {
                read_mesh(bytes).is_err()
            } else {
                read_clip(bytes).is_err()
            }
        });
        assert!(is_err, "{what}: accepted");
        assert!(
            total <= bound(bytes.len()),
            "{what}: {total} bytes allocated for {} input bytes",
            bytes.len()
        );
    }

    // Valid files with the most records their size allows: many empty meshes, many empty tracks.
    let model = Model {
        bones: vec![],
        meshes: vec![MeshPart::default(); 10_000],
    };
    let bytes = write_mesh(&model);
    let (ok, total, _) = measure(|| read_mesh(&bytes).is_ok());
    assert!(ok);
    assert!(
        total <= bound(bytes.len()),
        "{total} bytes allocated for {} input bytes",
        bytes.len()
    );

    let clip = Clip {
        tracks: vec![Track::default(); 10_000],
        ..Clip::default()
    };
    let bytes = write_clip(&clip);
    let (ok, total, _) = measure(|| read_clip(&bytes).is_ok());
    assert!(ok);
    assert!(
        total <= bound(bytes.len()),
        "{total} bytes allocated for {} input bytes",
        bytes.len()
    );

    // A failing read of a large count allocates nothing at all.
    let bytes = [&ff[..], &[0; 8]].concat();
    let (_, total, largest) = measure(|| read_mesh(&bytes));
    assert_eq!((total, largest), (0, 0));
}
