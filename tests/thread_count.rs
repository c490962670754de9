//! The output does not depend on the number of threads (issue 12): the export-like benchmark
//! model (four materials, so four meshes processed in parallel; 100 bones; a 300-frame clip;
//! n-gons) converted in both layouts on rayon pools of 1, 2, 3 and 8 threads gives the same
//! files, byte for byte; and so does the same model with one material, one mesh large enough
//! that triangulation and extraction split it into runs of faces and vertices.

use kiln::{ConvertOptions, Layout};
use kiln_testkit::fixtures::export_like::{ExportSpec, export_like_fbx};

/// The files one conversion writes (name, hash, length), converted on a pool of `threads`.
fn outputs(path: &std::path::Path, layout: Layout, threads: usize) -> Vec<(String, u64, usize)> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let out = tempfile::tempdir().unwrap();
    let done = pool
        .install(|| kiln::convert_file(path, out.path(), &ConvertOptions::with_layout(layout)))
        .unwrap();
    done.written
        .iter()
        .map(|f| {
            let bytes = std::fs::read(f).unwrap();
            (
                f.file_name().unwrap().to_string_lossy().into_owned(),
                xxhash_rust::xxh3::xxh3_64(&bytes),
                bytes.len(),
            )
        })
        .collect()
}

#[test]
fn same_bytes_with_any_thread_count() {
    same_bytes_on_any_pool(ExportSpec::triangles(20_000));
}

#[test]
fn one_large_mesh_gives_the_same_bytes_with_any_thread_count() {
    same_bytes_on_any_pool(ExportSpec {
        materials: 1,
        ..ExportSpec::triangles(40_000)
    });
}

fn same_bytes_on_any_pool(spec: ExportSpec) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("body.fbx");
    let (bytes, triangles) = export_like_fbx(spec);
    let want = spec.triangles;
    assert!(
        (want - want / 20..want + want / 20).contains(&triangles),
        "{triangles}"
    );
    std::fs::write(&path, bytes).unwrap();
    for layout in [Layout::Classic, Layout::Kiln] {
        let one = outputs(&path, layout, 1);
        // The mesh, the material file and one clip at least, all with content.
        assert!(one.len() >= 3, "{one:?}");
        assert!(one.iter().all(|(_, _, len)| *len > 0), "{one:?}");
        for threads in [2, 3, 8] {
            assert_eq!(
                outputs(&path, layout, threads),
                one,
                "{layout:?} with {threads} threads"
            );
        }
    }
}
