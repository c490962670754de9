//! The limits on a real peer: Assimp on the corpus file that asks for unbounded memory ends as
//! a peer failure within seconds, and the dump cache keeps no trace of it.

use std::path::Path;
use std::time::{Duration, Instant};

use kiln_testkit::assimp::{self, DumpError};
use kiln_testkit::corpus;
use kiln_testkit::process::Exceeded;

const OUT_OF_MEMORY: &str = "invalid/OutOfMemory.off";

#[test]
fn assimp_out_of_memory_is_a_peer_failure_and_not_cached() {
    assimp::require();
    let model = corpus::path(OUT_OF_MEMORY);
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiln-testkit-oom.assbin");
    let t = Instant::now();
    let direct = assimp::dump_to(&model, &out, &["-b"]);
    assert_eq!(direct, Err(DumpError::PeerFailed(Exceeded::Memory)));
    assert!(t.elapsed() < Duration::from_secs(60), "{:?}", t.elapsed());
    assert!(!out.exists());
    assert_eq!(direct.unwrap_err().to_string(), "peer failed: memory limit");
    // Through the cache, twice: both run Assimp (nothing cached), both fail the same way.
    for _ in 0..2 {
        assert_eq!(
            assimp::dump(&model, &["-b"]),
            Err(DumpError::PeerFailed(Exceeded::Memory))
        );
    }
    let cache = kiln_testkit::paths::target_tmp().join("assimp-dumps");
    let left: Vec<_> = std::fs::read_dir(&cache)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("OutOfMemory.off-"))
        .collect();
    assert!(left.is_empty(), "cached: {left:?}");
}

#[test]
fn a_rejection_is_cached_with_assimps_line() {
    assimp::require();
    let model = corpus::path("invalid/empty.obj");
    let first = assimp::dump(&model, &[]);
    let Err(DumpError::Rejected { line, .. }) = &first else {
        panic!("{first:?}");
    };
    assert_eq!(line, "ERROR: Failed to load file: OBJ-file is too small.");
    // The second answer comes from the cache: the same line, and nothing else of Assimp's
    // output (a fresh run would give all of it).
    let second = assimp::dump(&model, &[]);
    assert_eq!(second.clone().map_err(String::from), Err(line.clone()));
    let Err(DumpError::Rejected { output, .. }) = &second else {
        panic!("{second:?}");
    };
    assert_eq!(output, line);
}

#[test]
fn a_dump_is_cached_and_read_back() {
    assimp::require();
    let model = corpus::path("OBJ/box.obj");
    let path = assimp::dump(&model, &[]).unwrap();
    let scene = kiln_testkit::assxml::parse_assxml_file(&path).unwrap();
    assert_eq!(scene.meshes.len(), 1);
    // Read back, not dumped again: the same file, untouched.
    let modified = || std::fs::metadata(&path).unwrap().modified().unwrap();
    let before = modified();
    assert_eq!(assimp::dump(&model, &[]).unwrap(), path);
    assert_eq!(modified(), before);
}
