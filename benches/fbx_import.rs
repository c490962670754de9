//! Full FBX import (bytes → `kiln_scene::Scene`: tree, object graph, per-corner meshes, skin,
//! animation channels) on a large generated file, beside the `ufbx` crate (C) loading the same
//! bytes in the same run.
//!
//! The file: a tube of 250,000 quads (500,000 triangles after triangulation) on 251,001
//! control points with normals and a UV set, skinned to a chain of 100 bones (two influences
//! per vertex), animated over 300 frames (900 curves of 300 keys); written by
//! `kiln_fbx_scene::write_fbx`, binary 7.4, arrays zlib-compressed as the FBX SDK does, and
//! once uncompressed.
//!
//! `fbx_import_morph`: a model with 50 blend-shape targets on 20,000 control points
//! ([`kiln_testkit::fixtures::morph::morph_benchmark_fbx`]) and the same without them.
//!
//! `cargo bench --bench fbx_import`; results in docs/performance.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;

fn import(c: &mut Criterion) {
    let mut g = c.benchmark_group("fbx_import");
    g.sample_size(10);
    for compress in [true, false] {
        let bytes = kiln_testkit::fixtures::fbx::benchmark_fbx(compress);
        let label = if compress { "zlib" } else { "plain" };
        // Sanity: both read the whole file.
        let ours = kiln::fbx::import(&bytes).unwrap();
        assert_eq!(ours.meshes[0].face_count(), 250_000);
        assert_eq!(ours.meshes[0].bones.len(), 100);
        assert_eq!(ours.animations[0].channels.len(), 100);
        let theirs = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
        assert_eq!(theirs.meshes[0].num_faces, 250_000);
        assert_eq!(theirs.skin_clusters.len(), 100);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("kiln", label), &bytes, |b, bytes| {
            b.iter(|| kiln::fbx::import(black_box(bytes)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("ufbx", label), &bytes, |b, bytes| {
            b.iter(|| ufbx::load_memory(black_box(bytes), ufbx::LoadOpts::default()).unwrap())
        });
    }
    g.finish();
}

/// Issue 15's blend-shape model: 50 targets (40 sparse bands of 4,000 control points with
/// normal offsets, 10 dense) on a skinned tube of 20,000 control points, every weight animated;
/// and the same tube without targets, so the cost the shapes add shows beside ufbx's.
fn import_morph(c: &mut Criterion) {
    use kiln_testkit::fixtures::morph::morph_benchmark_fbx;
    let mut g = c.benchmark_group("fbx_import_morph");
    g.sample_size(20);
    for targets in [0usize, 50] {
        let bytes = morph_benchmark_fbx(160, 125, targets);
        let label = format!("{targets}_targets");
        let ours = kiln::fbx::import(&bytes).unwrap();
        assert_eq!(ours.meshes[0].morph_targets.len(), targets);
        let theirs = ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).unwrap();
        assert_eq!(theirs.blend_channels.len(), targets);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_with_input(BenchmarkId::new("kiln", &label), &bytes, |b, bytes| {
            b.iter(|| kiln::fbx::import(black_box(bytes)).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("ufbx", &label), &bytes, |b, bytes| {
            b.iter(|| ufbx::load_memory(black_box(bytes), ufbx::LoadOpts::default()).unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, import, import_morph);
criterion_main!(benches);
