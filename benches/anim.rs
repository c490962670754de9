//! The animation runtime: sampling plus local → model per bone and frame, the bake's
//! throughput (bone·frames/s), CPU skinning (vertices/s) on one thread and on all threads
//! (rayon over vertex chunks; the runtime itself is single-threaded and `no_std`), and blend
//! shapes (`anim_morph`, vertex·targets/s: vertices × targets per call, whatever share of the
//! vertices each target moves).
//!
//! `cargo bench --bench anim`; results in docs/performance.md ("Animation runtime (issue 5)").
//! Inputs are generated in code: a branching skeleton, clips whose every bone moves every
//! frame, and a mesh whose every vertex blends four bones. Rows named `best_of_8` time each
//! batch eight times and keep the shortest: on a shared machine that is what the code does with
//! a core to itself; the other rows are criterion's usual estimates.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::{Mat4, Quat, Vec3};
use kiln::anim::bake::{BakeOptions, bake};
use kiln::anim::morph::{MorphShape, MorphTarget, apply_morphs, morph_and_skin};
use kiln::anim::sample::{AnimationClip, Wrap};
use kiln::anim::skeleton::{Pose, Skeleton};
use kiln::anim::skin::{palette, skin_vertices};
use kiln::format::{Bone, Clip, Keyframe, Track, Vertex};
use rayon::prelude::*;

/// A skeleton of `n` bones (each child of one of the three before it), every bone skinned.
fn skeleton(n: usize) -> (Vec<Bone>, Vec<Option<[f32; 16]>>) {
    let mut bones: Vec<Bone> = Vec::with_capacity(n);
    let mut globals: Vec<Mat4> = Vec::with_capacity(n);
    for i in 0..n {
        let parent = if i == 0 {
            -1
        } else {
            (i - 1 - (i * 7) % i.min(3)) as i32
        };
        let local = Mat4::from_rotation_translation(
            Quat::from_rotation_z(0.1 * (i % 5) as f32),
            Vec3::new(0.0, 1.0, 0.1 * (i % 3) as f32),
        );
        let g = if parent < 0 {
            local
        } else {
            globals[parent as usize] * local
        };
        globals.push(g);
        bones.push(Bone {
            index: i as i32,
            parent,
            name: format!("bone{i}"),
            transform: g.to_cols_array(),
        });
    }
    let offsets = globals
        .iter()
        .map(|g| Some(g.inverse().to_cols_array()))
        .collect();
    (bones, offsets)
}

fn clip(bones: &[Bone], frames: u32, name: &str) -> Clip {
    Clip {
        name: name.into(),
        duration: (frames - 1) as f32,
        frame_rate: 30.0,
        frame_count: frames,
        tracks: bones
            .iter()
            .enumerate()
            .map(|(b, bone)| Track {
                bone_name: bone.name.clone(),
                keyframes: (0..frames)
                    .map(|f| {
                        let a = 0.05 * f as f32 + b as f32;
                        Keyframe {
                            time: f as f32,
                            scale: [1.0, 1.0 + 0.01 * a.sin(), 1.0],
                            rotation: Quat::from_euler(glam::EulerRot::XYZ, a.sin(), a.cos(), 0.3)
                                .to_array(),
                            translation: [0.1 * a.cos(), 1.0, 0.0],
                        }
                    })
                    .collect(),
            })
            .collect(),
        weight_tracks: Vec::new(),
    }
}

fn setup(bones: usize, frames: u32, clips: usize) -> (Skeleton, Vec<AnimationClip>) {
    let (b, o) = skeleton(bones);
    let s = Skeleton::new(&b, &o).unwrap();
    let c = (0..clips)
        .map(|i| {
            AnimationClip::bind(&s, &clip(&b, frames, &format!("c{i}")))
                .unwrap()
                .0
        })
        .collect();
    (s, c)
}

/// The shortest of `runs` timings of `f`: on a shared machine, the time the code takes when it
/// has a core to itself (the `best_of_8` rows; the plain rows are criterion's usual means).
fn best_of(runs: usize, mut f: impl FnMut()) -> Duration {
    (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

fn sampling(c: &mut Criterion) {
    let mut g = c.benchmark_group("anim_sample_local_to_model");
    for bones in [64usize, 256] {
        let (s, clips) = setup(bones, 120, 1);
        let mut pose = Pose::new(&s);
        g.throughput(Throughput::Elements(bones as u64));
        // A time between frames, moving each iteration: the interpolating path.
        let mut t = 0.37f32;
        g.bench_with_input(BenchmarkId::new("sample+model", bones), &bones, |b, _| {
            b.iter(|| {
                t += 0.73;
                clips[0]
                    .sample(black_box(t), Wrap::Loop, &mut pose)
                    .unwrap();
                s.update_model(&mut pose).unwrap();
                black_box(pose.model()[bones - 1])
            })
        });
        g.bench_with_input(
            BenchmarkId::new("sample+model/best_of_8", bones),
            &bones,
            |b, _| {
                b.iter_custom(|iters| {
                    best_of(8, || {
                        for _ in 0..iters {
                            t += 0.73;
                            clips[0]
                                .sample(black_box(t), Wrap::Loop, &mut pose)
                                .unwrap();
                            s.update_model(&mut pose).unwrap();
                            black_box(pose.model()[bones - 1]);
                        }
                    })
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new("sample+model+skinning", bones),
            &bones,
            |b, _| {
                b.iter(|| {
                    t += 0.73;
                    clips[0]
                        .evaluate(&s, black_box(t), Wrap::Loop, &mut pose)
                        .unwrap();
                    black_box(pose.skinning()[bones - 1])
                })
            },
        );
    }
    g.finish();
}

fn baking(c: &mut Criterion) {
    let mut g = c.benchmark_group("anim_bake");
    g.sample_size(20);
    let (bones, frames, clips) = (64usize, 250u32, 4usize);
    let (s, bound) = setup(bones, frames, clips);
    g.throughput(Throughput::Elements(
        (bones * frames as usize * clips) as u64,
    ));
    g.bench_function(BenchmarkId::new("bone_frames", "64x250x4"), |b| {
        b.iter(|| bake(&s, black_box(&bound), &BakeOptions::default()).unwrap())
    });
    g.finish();
}

/// `n` vertices, each blending four bones of `bones` with weights summing to 1.
fn vertices(n: usize, bones: usize) -> Vec<Vertex> {
    (0..n)
        .map(|i| {
            let b = (i * 7) % bones;
            let w = 0.4 + 0.1 * ((i % 3) as f32);
            let rest = (1.0 - w) / 3.0;
            Vertex {
                position: [(i % 97) as f32 * 0.01, (i % 89) as f32 * 0.02, 0.5],
                uv: [0.0, 0.0],
                normal: [0.0, 1.0, 0.0],
                tangent: [1.0, 0.0, 0.0],
                blend_indices: [
                    b as f32,
                    ((b + 1) % bones) as f32,
                    ((b + 5) % bones) as f32,
                    ((b + 11) % bones) as f32,
                ],
                blend_weights: [w, rest, rest, rest],
            }
        })
        .collect()
}

fn skinning(c: &mut Criterion) {
    let mut g = c.benchmark_group("anim_cpu_skinning");
    let bones = 64;
    let (s, clips) = setup(bones, 60, 1);
    let baked = bake(&s, &clips, &BakeOptions::default()).unwrap();
    let mut pal = vec![Mat4::IDENTITY; bones];
    palette(&baked, 0, 12.4, Wrap::Loop, &mut pal).unwrap();
    for n in [20_000usize, 200_000] {
        let verts = vertices(n, bones);
        let mut p = vec![[0f32; 3]; n];
        let mut nr = vec![[0f32; 3]; n];
        let mut t = vec![[0f32; 3]; n];
        g.throughput(Throughput::Elements(n as u64));
        g.bench_with_input(BenchmarkId::new("1_thread", n), &n, |b, _| {
            b.iter(|| skin_vertices(black_box(&pal), &verts, &mut p, &mut nr, &mut t).unwrap())
        });
        g.bench_with_input(BenchmarkId::new("1_thread/best_of_8", n), &n, |b, _| {
            b.iter_custom(|iters| {
                best_of(8, || {
                    for _ in 0..iters {
                        skin_vertices(black_box(&pal), &verts, &mut p, &mut nr, &mut t).unwrap();
                    }
                })
            })
        });
        g.bench_with_input(
            BenchmarkId::new(format!("{}_threads", rayon::current_num_threads()), n),
            &n,
            |b, _| {
                const CHUNK: usize = 4096;
                b.iter(|| {
                    verts
                        .par_chunks(CHUNK)
                        .zip(p.par_chunks_mut(CHUNK))
                        .zip(nr.par_chunks_mut(CHUNK))
                        .zip(t.par_chunks_mut(CHUNK))
                        .for_each(|(((v, p), n), t)| {
                            skin_vertices(black_box(&pal), v, p, n, t).unwrap()
                        })
                })
            },
        );
    }
    // The per-frame palette (a lerp of two baked frames per bone), per bone.
    g.throughput(Throughput::Elements(bones as u64));
    g.bench_function(BenchmarkId::new("palette_per_frame", bones), |b| {
        b.iter(|| palette(&baked, 0, black_box(12.4), Wrap::Loop, &mut pal).unwrap())
    });
    g.finish();
}

/// The deltas of `targets` single-shape targets over `n` vertices: sparse ones each moving 30 %
/// of the vertices (`(v + 3t) % 10 < 3`, ascending), or dense ones (a delta per vertex).
struct MorphData {
    vertices: Vec<Vec<u32>>,
    positions: Vec<Vec<[f32; 3]>>,
    normals: Vec<Vec<[f32; 3]>>,
}

fn morph_data(n: usize, targets: usize, dense: bool) -> MorphData {
    let mut data = MorphData {
        vertices: Vec::new(),
        positions: Vec::new(),
        normals: Vec::new(),
    };
    for t in 0..targets {
        let touched: Vec<u32> = (0..n as u32)
            .filter(|&v| dense || (v as usize + 3 * t) % 10 < 3)
            .collect();
        let delta = |v: u32, s: f32| {
            let a = 0.001 * (v as f32 + 17.0 * t as f32);
            [s * a.sin(), s * a.cos(), s * 0.5]
        };
        data.positions
            .push(touched.iter().map(|&v| delta(v, 0.05)).collect());
        data.normals
            .push(touched.iter().map(|&v| delta(v, 0.2)).collect());
        data.vertices.push(if dense { Vec::new() } else { touched });
    }
    data
}

fn morphing(c: &mut Criterion) {
    let mut g = c.benchmark_group("anim_morph");
    let (n, count, bones) = (20_000usize, 50usize, 64usize);
    let verts = vertices(n, bones);
    let base_p: Vec<[f32; 3]> = verts.iter().map(|v| v.position).collect();
    let base_n: Vec<[f32; 3]> = verts.iter().map(|v| v.normal).collect();
    let weights = vec![0.3f32; count];
    let (s, clips) = setup(bones, 60, 1);
    let baked = bake(&s, &clips, &BakeOptions::default()).unwrap();
    let mut pal = vec![Mat4::IDENTITY; bones];
    palette(&baked, 0, 12.4, Wrap::Loop, &mut pal).unwrap();
    let (mut p, mut nr, mut t) = (vec![[0f32; 3]; n], vec![[0f32; 3]; n], vec![[0f32; 3]; n]);
    let mut morphed = verts.clone();
    let size = format!("{n}x{count}");
    g.throughput(Throughput::Elements((n * count) as u64));
    for (kind, dense) in [("sparse_30pct", false), ("dense", true)] {
        let data = morph_data(n, count, dense);
        let shapes: Vec<[MorphShape; 1]> = (0..count)
            .map(|k| {
                [MorphShape {
                    full_weight: 1.0,
                    vertices: &data.vertices[k],
                    positions: &data.positions[k],
                    normals: &data.normals[k],
                }]
            })
            .collect();
        let targets: Vec<MorphTarget> = shapes.iter().map(|s| MorphTarget { shapes: s }).collect();
        g.bench_with_input(
            BenchmarkId::new(format!("{kind}/positions+normals"), &size),
            &n,
            |b, _| {
                b.iter(|| {
                    apply_morphs(
                        &base_p,
                        &base_n,
                        &targets,
                        black_box(&weights),
                        &mut p,
                        &mut nr,
                    )
                    .unwrap()
                })
            },
        );
        g.bench_with_input(
            BenchmarkId::new(format!("{kind}/positions"), &size),
            &n,
            |b, _| {
                b.iter(|| {
                    apply_morphs(&base_p, &[], &targets, black_box(&weights), &mut p, &mut [])
                        .unwrap()
                })
            },
        );
        if !dense {
            // The per-frame morph + skin of a whole mesh (positions, normals, tangents).
            g.bench_with_input(
                BenchmarkId::new(format!("{kind}/morph_and_skin"), &size),
                &n,
                |b, _| {
                    b.iter(|| {
                        morph_and_skin(
                            black_box(&pal),
                            &verts,
                            &targets,
                            black_box(&weights),
                            &mut morphed,
                            &mut p,
                            &mut nr,
                            &mut t,
                        )
                        .unwrap()
                    })
                },
            );
        }
    }
    g.finish();
}

criterion_group!(
    name = benches;
    config = Criterion::default()
        .warm_up_time(std::time::Duration::from_millis(500))
        .measurement_time(std::time::Duration::from_secs(2));
    targets = sampling, baking, skinning, morphing
);
criterion_main!(benches);
