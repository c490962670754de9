//! The kiln layout's zero-copy read path against a plain copy and the classic reader, on a
//! ~100 MB `.mesh`, in one run; validation time against vertex count; and the checksum choice
//! (XXH3-64 against CRC-32C).
//!
//! `cargo bench --bench format`; results in docs/performance.md ("Zero-copy formats (issue 6)").
//! The files are written to a temporary folder and removed afterwards.

use std::fs::File;
use std::hint::black_box;
use std::path::Path;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kiln::format::kiln::{AlignedBytes, MeshOptions, MeshView, Positions, write_mesh};
use kiln::format::{Bone, IDENTITY, MeshPart, Model, Vertex, classic};

/// An `n × n` vertex grid as one part: 2(n-1)² triangles, u32 indices past 65 536 vertices.
fn grid(n: usize, index_limit: Option<usize>) -> Model {
    let mut vertices = Vec::with_capacity(n * n);
    for y in 0..n {
        for x in 0..n {
            let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
            vertices.push(Vertex {
                position: [
                    fx * 10.0,
                    (fx * 12.9898 + fy * 78.233).sin() * 0.25,
                    fy * 10.0,
                ],
                uv: [fx, fy],
                normal: [0.0, 1.0, 0.0],
                tangent: [1.0, 0.0, 0.0],
                blend_indices: [0.0; 4],
                blend_weights: [1.0, 0.0, 0.0, 0.0],
            });
        }
    }
    let mut indices = Vec::with_capacity(6 * (n - 1) * (n - 1));
    'outer: for y in 0..n - 1 {
        for x in 0..n - 1 {
            let i = (y * n + x) as u32;
            let n32 = n as u32;
            indices.extend_from_slice(&[i, i + n32, i + 1, i + 1, i + n32, i + n32 + 1]);
            if index_limit.is_some_and(|l| indices.len() >= l) {
                break 'outer;
            }
        }
    }
    Model {
        bones: vec![Bone {
            index: 0,
            parent: -1,
            name: "root".into(),
            transform: IDENTITY,
        }],
        meshes: vec![MeshPart {
            name: "grid".into(),
            vertices,
            indices,
            bone_index: 0,
            material_name: "ground".into(),
            morph_targets: Vec::new(),
        }],
    }
}

/// Sum of all position components, 8 lanes so that it vectorises.
fn sum_f32(values: &[f32]) -> f32 {
    let mut lanes = [0f32; 8];
    let chunks = values.chunks_exact(8);
    let rest = chunks.remainder();
    for c in chunks {
        for k in 0..8 {
            lanes[k] += c[k];
        }
    }
    lanes.iter().sum::<f32>() + rest.iter().sum::<f32>()
}

fn kiln_sum(bytes: &[u8]) -> f32 {
    let view = MeshView::parse(bytes).expect("valid file");
    match view.positions() {
        Positions::F32(p) => sum_f32(bytemuck::cast_slice(p)),
        Positions::Unorm16 { .. } => unreachable!("f32 positions written"),
    }
}

fn classic_sum(bytes: &[u8]) -> f32 {
    let model = classic::read_mesh(bytes).expect("valid file");
    let mut lanes = [0f32; 3];
    for part in &model.meshes {
        for v in &part.vertices {
            for (lane, x) in lanes.iter_mut().zip(v.position) {
                *lane += x;
            }
        }
    }
    lanes.iter().sum()
}

fn open_kiln(path: &Path) -> f32 {
    let file = File::open(path).unwrap();
    // SAFETY: a private read-only map of a file this benchmark wrote and does not change.
    let map = unsafe { memmap2::Mmap::map(&file) }.unwrap();
    kiln_sum(&map)
}

fn mesh_100mb(c: &mut Criterion) {
    let dir = tempfile::tempdir().unwrap();
    let model = grid(1040, None);
    let kiln_bytes = write_mesh(&model, &[], &MeshOptions::default()).unwrap();
    let classic_bytes = classic::write_mesh(&model);
    drop(model);
    let kiln_path = dir.path().join("grid.mesh");
    let classic_path = dir.path().join("grid.classic.mesh");
    std::fs::write(&kiln_path, &kiln_bytes).unwrap();
    std::fs::write(&classic_path, &classic_bytes).unwrap();
    let aligned = AlignedBytes::from_bytes(&kiln_bytes);
    drop(kiln_bytes);
    let expected = kiln_sum(&aligned);
    assert_eq!(open_kiln(&kiln_path), expected);
    eprintln!(
        "kiln file {} bytes, classic file {} bytes, position sum {expected}",
        aligned.len(),
        classic_bytes.len()
    );

    let mut g = c.benchmark_group("mesh_100mb");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(aligned.len() as u64));
    let mut dst = vec![0u8; aligned.len()];
    g.bench_function("memcpy", |b| {
        b.iter(|| {
            dst.copy_from_slice(black_box(&aligned));
            black_box(&dst);
        })
    });
    g.bench_function("kiln_mmap_open_validate_sum", |b| {
        b.iter(|| black_box(open_kiln(black_box(&kiln_path))))
    });
    g.bench_function("kiln_in_memory_validate_sum", |b| {
        b.iter(|| black_box(kiln_sum(black_box(&aligned))))
    });
    g.bench_function("kiln_in_memory_validate_only", |b| {
        b.iter(|| black_box(MeshView::parse(black_box(&aligned)).unwrap().vertex_count()))
    });
    g.bench_function("classic_in_memory_read_sum", |b| {
        b.iter(|| black_box(classic_sum(black_box(&classic_bytes))))
    });
    g.bench_function("classic_file_read_sum", |b| {
        b.iter(|| {
            let bytes = std::fs::read(black_box(&classic_path)).unwrap();
            black_box(classic_sum(&bytes))
        })
    });
    g.finish();
}

/// Same index count (60 000), vertex counts from 10 000 to 1 000 000: `parse` should not move.
fn validate_vs_vertices(c: &mut Criterion) {
    let mut g = c.benchmark_group("validate_vs_vertex_count");
    g.sample_size(20);
    for n in [100usize, 316, 1000] {
        let model = grid(n, Some(60_000));
        let vertices = n * n;
        let bytes =
            AlignedBytes::from_bytes(&write_mesh(&model, &[], &MeshOptions::default()).unwrap());
        g.bench_with_input(BenchmarkId::from_parameter(vertices), &bytes, |b, bytes| {
            b.iter(|| black_box(MeshView::parse(black_box(bytes)).unwrap().index_count()))
        });
    }
    g.finish();
}

static CRC32C_PORTABLE: crc::Crc<u32, crc::Table<16>> =
    crc::Crc::<u32, crc::Table<16>>::new(&crc::CRC_32_ISCSI);

fn checksum(c: &mut Criterion) {
    let data: Vec<u8> = (0..100usize << 20)
        .map(|i| (i.wrapping_mul(2654435761) >> 13) as u8)
        .collect();
    let mut g = c.benchmark_group("checksum");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(data.len() as u64));
    g.bench_function("xxh3_64 (xxhash-rust, no_std)", |b| {
        b.iter(|| black_box(xxhash_rust::xxh3::xxh3_64(black_box(&data))))
    });
    g.bench_function("crc32c sse4.2 (crc32c crate, std)", |b| {
        b.iter(|| black_box(crc32c::crc32c(black_box(&data))))
    });
    g.bench_function("crc32c portable slice-by-16 (crc crate, no_std)", |b| {
        b.iter(|| black_box(CRC32C_PORTABLE.checksum(black_box(&data))))
    });
    g.finish();
}

criterion_group!(benches, mesh_100mb, validate_vs_vertices, checksum);
criterion_main!(benches);
