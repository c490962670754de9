//! The fuzz targets' oracle (`kiln_testkit::oracle`) under `cargo test`, on:
//! - the minimized corpora of the fuzz runs recorded in docs/fuzzing.md
//!   (`tests/data/fuzz/<target>.corpus`: inputs cut to 1024 bytes and merged with libFuzzer's
//!   `-merge=1`, packed as `u32` little-endian length + bytes, one after the other);
//! - any crash input a run finds, kept as a file in `tests/data/fuzz/crashes/<target>/` (one so
//!   far: a big-endian file with a node name that is not UTF-8, found by the CI smoke run);
//! - the seeds the runs started from (the corpus's FBX files and the writer's output).

use std::path::{Path, PathBuf};

use kiln_fbx::{Compression, WriteOptions, write_binary};
use kiln_testkit::corpus::{self, read};
use kiln_testkit::fixtures::fbx::{is_binary, sample_tree};
use kiln_testkit::oracle::{check_ascii, check_binary};

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/fuzz")
}

fn unpack(bytes: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut rest = bytes;
    while !rest.is_empty() {
        let (len, tail) = rest.split_at(4);
        let len = u32::from_le_bytes(len.try_into().unwrap()) as usize;
        let (input, tail) = tail.split_at(len);
        out.push(input);
        rest = tail;
    }
    out
}

fn crashes(target: &str) -> Vec<Vec<u8>> {
    let dir = data().join("crashes").join(target);
    let Ok(rd) = std::fs::read_dir(&dir) else {
        return Vec::new();
    };
    rd.flatten().map(|e| read(&e.path())).collect()
}

#[test]
fn minimized_fuzz_corpora_and_crash_inputs() {
    let binary = read(&data().join("fbx_binary.corpus"));
    let inputs = unpack(&binary);
    assert_eq!(inputs.len(), 176);
    for input in inputs {
        check_binary(input);
    }
    let ascii = read(&data().join("fbx_ascii.corpus"));
    let inputs = unpack(&ascii);
    assert_eq!(inputs.len(), 625);
    for input in inputs {
        check_ascii(input);
    }
    for input in crashes("fbx_binary") {
        check_binary(&input);
    }
    for input in crashes("fbx_ascii") {
        check_ascii(&input);
    }
}

#[test]
fn the_oracle_holds_on_the_seeds() {
    // The oracle checks only what parses, so the seeds must parse (all but the one file whose
    // NUL bytes were replaced, which Assimp rejects too), or this test would check nothing.
    for path in corpus::fbx_files() {
        let bytes = read(&path);
        assert!(
            kiln_fbx::Document::parse(&bytes).is_ok() || path.ends_with("FBX/transparentTest.fbx"),
            "{} no longer parses",
            path.display()
        );
        if is_binary(&bytes) {
            check_binary(&bytes);
        } else {
            check_ascii(&bytes);
        }
    }
    for version in [6100, 7400, 7500, 7700] {
        for compression in [
            Compression::None,
            Compression::Zlib {
                level: 6,
                min_bytes: 0,
            },
        ] {
            let bytes = write_binary(
                &sample_tree(),
                &WriteOptions {
                    version,
                    compression,
                },
            )
            .unwrap();
            assert!(kiln_fbx::Document::parse(&bytes).is_ok());
            check_binary(&bytes);
        }
    }
}
