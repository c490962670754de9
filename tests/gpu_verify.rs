//! `kiln_gpu::verify` on every skinned or animated model of the Assimp corpus and on generated
//! COLLADA models it has never seen: the GPU skinning (reference 002's shader in WGSL, reading
//! the uploaded bake) must match kiln-anim's CPU skinning within 1e-4 of the model's extent at
//! every frame, every half frame and the loop of every clip.
//!
//! Scenes come from `assimp dump -b` with the original tool's flags (the same helpers as the
//! animation conformance test), then kiln's engine path: `pipeline::build_outputs` (mesh,
//! offsets, clips), `kiln_gpu::bake_model`. Corpus FBX files are also read by kiln's own FBX
//! importer (`kiln::animation::load_animated`, what `kiln verify FILE` does) and verified the
//! same way, and so are the static OBJ files of the corpus (in their bind pose). Needs a GPU
//! adapter; Mesa's lavapipe is enough (scripts/test installs it).

mod common;

use std::path::{Path, PathBuf};

use common::{anim_eval, assbin, compare, dae_gen};
use kiln::anim::BakeOptions;
use kiln::pipeline::{ConvertOptions, build_outputs};
use kiln_gpu::{Gpu, GpuOptions, VerifyOptions, VerifyReport, bake_model, verify};
use kiln_scene::Scene;

const FLAGS: &[&str] = &["--left-handed", "-tri", "-guv", "--gen-normals", "-cts"];
const TOLERANCE: f32 = 1e-4;

fn gpu() -> Gpu {
    Gpu::new(&GpuOptions::default()).unwrap_or_else(|e| {
        panic!(
            "{e}\nthis test needs a GPU adapter; Mesa's software Vulkan driver is enough: \
             apt-get install -y mesa-vulkan-drivers (scripts/test installs it)"
        )
    })
}

fn assimp_scene(path: &Path) -> Result<Scene, String> {
    let dump = anim_eval::assimp_dump_bin(path, FLAGS)?;
    let bytes = std::fs::read(&dump).map_err(|e| e.to_string())?;
    Ok(assbin::parse_assbin(&bytes)?.0)
}

fn check_scene(gpu: &Gpu, scene: &Scene) -> Result<VerifyReport, String> {
    let conv = build_outputs(scene, "model", Path::new("."), &ConvertOptions::default());
    if let Some(e) = conv.errors.first() {
        return Err(e.clone());
    }
    let model = &conv.extracted.model;
    let baked = bake_model(
        model,
        &conv.extracted.offsets,
        &conv.clips,
        &BakeOptions::default(),
    )
    .map_err(|e| e.to_string())?;
    let options = VerifyOptions {
        tolerance: TOLERANCE,
        ..VerifyOptions::default()
    };
    verify(gpu, &baked.animated(model), &options).map_err(|e| e.to_string())
}

fn check_kiln_import(gpu: &Gpu, path: &Path) -> Result<VerifyReport, String> {
    let m = kiln::animation::load_animated(path, None).map_err(|e| e.message)?;
    let baked = bake_model(&m.model, &m.offsets, &m.clips, &BakeOptions::default())
        .map_err(|e| e.to_string())?;
    verify(gpu, &baked.animated(&m.model), &VerifyOptions::default()).map_err(|e| e.to_string())
}

struct Row {
    label: String,
    result: Result<VerifyReport, String>,
}

fn fixtures() -> Vec<dae_gen::Fixture> {
    use dae_gen::Fixture;
    // Seeds and shapes the animation conformance test does not use.
    vec![
        Fixture {
            name: "gpu_wide_tree",
            seed: 71,
            joints: 24,
            clips: 3,
            max_influences: 6,
            rigid_on_joint: true,
            second_skin: true,
            perturb_bind: true,
        },
        Fixture {
            name: "gpu_one_long_clip",
            seed: 72,
            joints: 6,
            clips: 1,
            max_influences: 4,
            rigid_on_joint: false,
            second_skin: false,
            perturb_bind: false,
        },
        Fixture {
            name: "gpu_many_clips",
            seed: 73,
            joints: 10,
            clips: 6,
            max_influences: 8,
            rigid_on_joint: true,
            second_skin: false,
            perturb_bind: true,
        },
    ]
}

#[test]
fn gpu_skinning_matches_the_cpu_on_the_corpus_and_generated_models() {
    let root = compare::require_corpus();
    let gpu = gpu();
    let mut rows = Vec::new();
    for path in compare::corpus_files(&root.join("FBX"), "fbx") {
        let label = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let Ok(scene) = assimp_scene(&path) else {
            continue;
        };
        if scene.animations.is_empty() && scene.meshes.iter().all(|m| m.bones.is_empty()) {
            continue;
        }
        rows.push(Row {
            label: format!("{label} (Assimp's scene)"),
            result: check_scene(&gpu, &scene),
        });
        rows.push(Row {
            label: format!("{label} (kiln's FBX importer)"),
            result: check_kiln_import(&gpu, &path),
        });
    }
    assert!(
        rows.len() >= 4,
        "expected the skinned FBX files of assimp-testmodels (huesitos, animation_with_skeleton)"
    );
    // The static OBJ corpus, through kiln's importer: checked in the bind pose.
    for path in compare::corpus_files(&root.join("OBJ"), "obj") {
        let Ok(m) = kiln::animation::load_animated(&path, None) else {
            continue;
        };
        if m.model.meshes.iter().all(|p| p.vertices.is_empty()) {
            continue;
        }
        let label = path
            .strip_prefix(&root)
            .unwrap_or(&path)
            .display()
            .to_string();
        rows.push(Row {
            label: format!("{label} (kiln's OBJ importer, bind pose)"),
            result: check_kiln_import(&gpu, &path),
        });
    }
    let dir = tempfile::tempdir().unwrap();
    for f in fixtures() {
        let path: PathBuf = dir.path().join(format!("{}.dae", f.name));
        std::fs::write(&path, dae_gen::collada(&f)).unwrap();
        rows.push(Row {
            label: format!("(generated) {}.dae", f.name),
            result: assimp_scene(&path).and_then(|s| check_scene(&gpu, &s)),
        });
    }

    println!("adapter: {}", gpu.adapter());
    println!(
        "| file | vertices | clips | samples | largest position error (of extent) | largest position RMS (absolute) | largest normal error (absolute) | largest tangent error (absolute) | result |\n|---|---:|---:|---:|---:|---:|---:|---:|---|"
    );
    let mut failed = 0;
    for r in &rows {
        match &r.result {
            Ok(rep) => {
                let max = |f: fn(&kiln_gpu::SampleReport) -> f32| {
                    rep.samples.iter().map(f).fold(0f32, f32::max)
                };
                let ok = rep.passed() && !rep.samples.is_empty();
                failed += usize::from(!ok);
                println!(
                    "| `{}` | {} | {} | {} | {:.1e} | {:.1e} | {:.1e} | {:.1e} | {} |",
                    r.label,
                    rep.vertices,
                    rep.layout.clips,
                    rep.samples.len(),
                    rep.worst_position(),
                    max(|s| s.position.rms),
                    max(|s| s.normal.max_abs),
                    max(|s| s.tangent.max_abs),
                    if ok { "pass" } else { "FAIL" }
                );
            }
            Err(e) => {
                failed += 1;
                println!("| `{}` | | | | | | | | FAIL: {e} |", r.label);
            }
        }
    }
    assert_eq!(failed, 0, "{failed} models failed the GPU check");
}
