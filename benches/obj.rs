//! OBJ import throughput (MB/s) beside `tobj` on the same bytes, and the processing steps'
//! throughput (vertices/s), on a generated grid model.
//!
//! `cargo bench --bench obj`; results in docs/performance.md.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::fmt::Write as _;
use std::hint::black_box;

/// An `n × n` quad grid with positions, UVs and normals, rippled so that floats have digits.
fn grid_obj(n: usize) -> String {
    let mut s = String::with_capacity(n * n * 120);
    s.push_str("o grid\n");
    for y in 0..=n {
        for x in 0..=n {
            let (fx, fy) = (x as f32 / n as f32, y as f32 / n as f32);
            let z = (fx * 12.9898 + fy * 78.233).sin() * 0.25;
            let _ = writeln!(s, "v {:.6} {:.6} {:.6}", fx * 10.0, z, fy * 10.0);
        }
    }
    for y in 0..=n {
        for x in 0..=n {
            let _ = writeln!(
                s,
                "vt {:.6} {:.6}",
                x as f32 / n as f32,
                y as f32 / n as f32
            );
        }
    }
    s.push_str("vn 0 1 0\n");
    for y in 0..n {
        for x in 0..n {
            let i = y * (n + 1) + x + 1;
            let (a, b, c, d) = (i, i + 1, i + n + 2, i + n + 1);
            let _ = writeln!(s, "f {a}/{a}/1 {b}/{b}/1 {c}/{c}/1 {d}/{d}/1");
        }
    }
    s
}

fn import(c: &mut Criterion) {
    let mut g = c.benchmark_group("obj_import");
    for n in [100usize, 700] {
        let text = grid_obj(n);
        let bytes = text.as_bytes();
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.sample_size(10);
        g.bench_with_input(BenchmarkId::new("kiln-obj", n), bytes, |b, bytes| {
            b.iter(|| kiln::obj::parse(black_box(bytes), "grid.obj", &mut |_| None).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("tobj", n), bytes, |b, bytes| {
            b.iter(|| {
                let mut r = std::io::Cursor::new(black_box(bytes));
                tobj::load_obj_buf(&mut r, &tobj::LoadOptions::default(), |_| {
                    Err(tobj::LoadError::OpenFileFailed)
                })
                .unwrap()
            })
        });
    }
    g.finish();
}

fn process(c: &mut Criterion) {
    let mut g = c.benchmark_group("process_original_tool");
    let text = grid_obj(300);
    let scene = kiln::obj::parse(text.as_bytes(), "grid.obj", &mut |_| None).unwrap();
    let vertices: usize = scene.meshes.iter().map(|m| m.positions.len()).sum();
    g.throughput(Throughput::Elements(vertices as u64));
    g.sample_size(10);
    g.bench_function("kiln-process", |b| {
        b.iter_batched(
            || scene.clone(),
            |mut s| {
                kiln::load::process_for_engine(&mut s, &Default::default()).unwrap();
                s
            },
            criterion::BatchSize::LargeInput,
        )
    });
    g.finish();
}

criterion_group!(benches, import, process);
criterion_main!(benches);
