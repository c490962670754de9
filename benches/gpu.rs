//! GPU skinning throughput (vertices × frames per second) of kiln-gpu's compute shader
//! (reference 002's `SkinWorld` in WGSL) beside kiln-anim's CPU skinning, in the same run and
//! on the same model and frames.
//!
//! `cargo bench --bench gpu`; results in docs/performance.md ("GPU skinning (issue 7)"). The
//! model is generated (kiln_testkit::fixtures::tube: 65 × 512 vertices blending up to four of 16
//! bones, plus a rigid cap); each iteration skins every vertex at 64 frame samples (lerping
//! between frames). GPU rows: dispatch and wait, without and with reading the results back;
//! CPU row: `palette` + `skin_vertices` (positions, normals, tangents) on one thread. The
//! adapter is printed first; on a machine without a GPU it is Mesa's lavapipe, which runs the
//! shader on the CPU cores.

use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Mat4;
use kiln::anim::sample::Wrap;
use kiln::anim::skin::{palette, skin_vertices};
use kiln_gpu::{BoneTexture, ComputeSkinner, FrameSample, Gpu, GpuOptions, SkinInput};
use kiln_testkit::fixtures::tube::{TubeOptions, tube};

const SAMPLES: usize = 64;

fn gpu_skinning(c: &mut Criterion) {
    let f = tube(&TubeOptions {
        segments: 64,
        rings: 512,
        chain: 15,
        clips: 1,
        frames: 64,
        cap: true,
    });
    let baked = f.bake().expect("bake the generated model");
    let vertices: Vec<_> = f
        .model
        .meshes
        .iter()
        .flat_map(|p| p.vertices.iter().copied())
        .collect();
    let times: Vec<f32> = (0..SAMPLES).map(|i| i as f32 * 0.9 + 0.25).collect();
    let work = (vertices.len() * SAMPLES) as u64;

    let gpu = Gpu::new(&GpuOptions::default()).unwrap_or_else(|e| {
        panic!("{e}\nthe GPU benchmark needs an adapter: apt-get install -y mesa-vulkan-drivers")
    });
    eprintln!(
        "adapter: {}; {} vertices × {SAMPLES} samples, {} bones",
        gpu.adapter(),
        vertices.len(),
        f.model.bones.len()
    );
    let bones = BoneTexture::upload(&gpu, &baked.bake).expect("upload the bake");
    let input = SkinInput::upload(&gpu, &vertices).expect("upload the vertices");
    let skinner = ComputeSkinner::new(&gpu).expect("build the pipeline");
    let samples: Vec<FrameSample> = times
        .iter()
        .map(|&t| bones.sample(0, t, Wrap::Clamp).expect("sample"))
        .collect();
    let batch = skinner
        .prepare(&gpu, &bones, &input, &samples)
        .expect("prepare the batch");

    let mut group = c.benchmark_group("gpu_skinning");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(6))
        .throughput(Throughput::Elements(work));
    group.bench_function("gpu_dispatch", |b| {
        b.iter(|| batch.execute(&gpu, false).expect("dispatch"))
    });
    group.bench_function("gpu_dispatch_and_read_back", |b| {
        b.iter(|| {
            batch.execute(&gpu, true).expect("dispatch");
            black_box(batch.read(&gpu).expect("read back"))
        })
    });
    let bake = &baked.bake;
    let n = vertices.len();
    let mut pal = vec![Mat4::ZERO; bake.bone_count as usize];
    let (mut p, mut nr, mut t) = (vec![[0f32; 3]; n], vec![[0f32; 3]; n], vec![[0f32; 3]; n]);
    group.bench_function("cpu_kiln_anim_one_thread", |b| {
        b.iter(|| {
            for &time in &times {
                palette(bake, 0, time, Wrap::Clamp, &mut pal).expect("palette");
                skin_vertices(&pal, &vertices, &mut p, &mut nr, &mut t).expect("skin");
            }
            black_box(&p);
        })
    });
    group.finish();
}

criterion_group!(benches, gpu_skinning);
criterion_main!(benches);
