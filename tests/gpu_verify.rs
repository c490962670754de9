//! `kiln_gpu::verify` on every skinned or animated model of the Assimp corpus and on generated
//! COLLADA models it has never seen: the GPU skinning (reference 002's shader in WGSL, reading
//! the uploaded bake) must match kiln-anim's CPU skinning within 1e-4 of the model's extent at
//! every frame, every half frame and the loop of every clip.
//!
//! Scenes come from `assimp dump -b` with the original tool's flags (the same helpers as the
//! animation conformance test), then kiln's engine path: `kiln::load::from_scene` and `kiln::encode` (mesh,
//! offsets, clips), `kiln_anim::bake_model`. Corpus FBX files are also read by kiln's own FBX
//! importer (`kiln::load`, what `kiln verify FILE` does) and verified the
//! same way, and so are the static OBJ files of the corpus (in their bind pose). Needs a GPU
//! adapter; Mesa's lavapipe is enough (scripts/test installs it).

use std::path::{Path, PathBuf};

use kiln::anim::{ModelBakeOptions, bake_model};
use kiln::{EncodeOptions, LoadOptions, encode, load};
use kiln_gpu::{Animated, Gpu, GpuOptions, VerifyOptions, VerifyReport, verify};
use kiln_scene::Scene;
use kiln_testkit::fixtures::collada;
use kiln_testkit::{assbin, assimp, corpus};

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
    let dump = assimp::dump_bin(path, FLAGS)?;
    let bytes = std::fs::read(&dump).map_err(|e| e.to_string())?;
    Ok(assbin::parse_assbin(&bytes)?.0)
}

fn check_scene(gpu: &Gpu, scene: &Scene) -> Result<VerifyReport, String> {
    let loaded = load::from_scene(scene.clone(), Path::new("model"), &LoadOptions::default());
    encode(&loaded, &EncodeOptions::default()).map_err(|e| e.to_string())?;
    let model = &loaded.model;
    let baked = bake_model(
        model,
        &loaded.offsets,
        &loaded.clips,
        &ModelBakeOptions::inspection(),
    )
    .map_err(|e| e.to_string())?;
    let options = VerifyOptions {
        tolerance: TOLERANCE,
        ..VerifyOptions::default()
    };
    verify(gpu, &Animated::new(model, &baked), &options).map_err(|e| e.to_string())
}

fn check_kiln_import(gpu: &Gpu, path: &Path) -> Result<VerifyReport, String> {
    let m = load(path, &LoadOptions::default()).map_err(|e| e.reason().to_string())?;
    let baked = bake_model(
        &m.model,
        &m.offsets,
        &m.clips,
        &ModelBakeOptions::inspection(),
    )
    .map_err(|e| e.to_string())?;
    verify(
        gpu,
        &Animated::new(&m.model, &baked).with_clip_data(&m.clips),
        &VerifyOptions::default(),
    )
    .map_err(|e| e.to_string())
}

struct Row {
    label: String,
    result: Result<VerifyReport, String>,
}

fn fixtures() -> Vec<collada::Fixture> {
    use collada::Fixture;
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
    let root = assimp::require();
    let gpu = gpu();
    let mut rows = Vec::new();
    for path in corpus::files(&root.join("FBX"), "fbx") {
        let label = path
            .strip_prefix(root)
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
    for path in corpus::files(&root.join("OBJ"), "obj") {
        let Ok(m) = load(&path, &LoadOptions::default()) else {
            continue;
        };
        if m.model.meshes.iter().all(|p| p.vertices.is_empty()) {
            continue;
        }
        let label = path
            .strip_prefix(root)
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
        std::fs::write(&path, collada::collada(&f)).unwrap();
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

/// The blend-shape tube (three targets: sparse with normal offsets, an in-between chain, dense;
/// a clip that bends it while it drives their weights), read from its FBX as `kiln verify` reads
/// it: the GPU morphs with the weights it reads from the uploaded weight texture, the CPU with
/// the clip's weight tracks, and both skin; they agree at every frame, half frame and the loop.
#[test]
fn gpu_morph_and_skin_match_the_cpu_on_the_blend_shape_tube() {
    let gpu = gpu();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tube.fbx");
    std::fs::write(&path, kiln_testkit::fixtures::morph::morph_tube_file(true)).unwrap();
    let m = load(&path, &LoadOptions::default()).unwrap();
    assert!(m.model.meshes.iter().all(|p| p.morph_targets.len() == 3));
    let baked = bake_model(
        &m.model,
        &m.offsets,
        &m.clips,
        &ModelBakeOptions::inspection(),
    )
    .unwrap();
    let weights = baked.weights.clone().unwrap();
    assert_eq!((weights.width, weights.height, weights.layers), (6, 31, 1));
    let input = Animated::new(&m.model, &baked).with_clip_data(&m.clips);
    let report = verify(&gpu, &input, &VerifyOptions::default()).unwrap();
    println!("{}\n{}", report.adapter, report.table());
    assert_eq!(report.samples.len(), 31 + 30 + 1);
    assert!(report.passed(), "{}", report.table());

    // Without the clips' weight tracks the CPU side cannot morph: a clear error.
    let e = verify(
        &gpu,
        &Animated::new(&m.model, &baked),
        &VerifyOptions::default(),
    )
    .unwrap_err();
    assert!(e.to_string().contains("weight tracks"), "{e}");

    // The GPU really reads the weight texture: half the weights of frame 15 (where every
    // target moves) and that frame no longer matches, while frame 0 (all weights 0) still does.
    let mut wrong = baked.weights.clone().unwrap();
    for w in &mut wrong.texels[15 * 6..16 * 6] {
        *w *= 0.5;
    }
    let report = verify(
        &gpu,
        &Animated {
            weights: Some(&wrong),
            ..input
        },
        &VerifyOptions {
            frames: kiln_gpu::FrameSelection::Times(vec![0.0, 15.0]),
            ..VerifyOptions::default()
        },
    )
    .unwrap();
    assert!(
        report.sample_passes(&report.samples[0]),
        "{}",
        report.table()
    );
    assert!(
        !report.sample_passes(&report.samples[1]),
        "{}",
        report.table()
    );
}

/// `kiln preview`'s renderer on the blend-shape tube with a clip that only moves shape weights
/// (its bone tracks removed, so every bone holds its bind pose): the tiles at frames 0 and 15
/// differ (the bulge is out at 15), the GPU sheet matches the CPU rasteriser's, and without
/// the weights both tiles are alike.
#[test]
fn preview_shows_a_clip_that_only_moves_weights() {
    use kiln_gpu::preview::{PreviewFrame, PreviewOptions, PreviewScene, render, render_cpu};
    let gpu = gpu();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("tube.fbx");
    std::fs::write(&path, kiln_testkit::fixtures::morph::morph_tube_file(false)).unwrap();
    let m = load(&path, &LoadOptions::default()).unwrap();
    let mut clips = m.clips.clone();
    clips[0].tracks.clear();
    assert!(!clips[0].weight_tracks.is_empty());
    let baked = bake_model(
        &m.model,
        &m.offsets,
        &clips,
        &ModelBakeOptions::inspection(),
    )
    .unwrap();
    let rows = vec![vec![
        PreviewFrame { clip: 0, time: 0.0 },
        PreviewFrame {
            clip: 0,
            time: 15.0,
        },
    ]];
    let options = PreviewOptions {
        tile_size: 96,
        ..PreviewOptions::default()
    };
    let scene = PreviewScene {
        model: &m.model,
        materials: &[],
        bake: &baked.bake,
        weights: baked.weights.as_ref(),
    };
    let sheet = render(&gpu, &scene, &rows, &options).unwrap();
    let cpu = render_cpu(&scene, &rows, &options).unwrap();
    let db = kiln_gpu::image::psnr(&sheet, &cpu).unwrap();
    assert!(db > 30.0, "GPU against CPU: {db} dB");
    let tile = |image: &kiln_gpu::image::Image, k: u32| {
        let mut out = kiln_gpu::image::Image::filled(96, 96, [0; 4]);
        for y in 0..96 {
            for x in 0..96 {
                let p = image.pixel(k * 96 + x, y).unwrap();
                let i = ((y * 96 + x) * 4) as usize;
                out.rgba[i..i + 4].copy_from_slice(&p);
            }
        }
        out
    };
    let changed = |image: &kiln_gpu::image::Image| {
        let (a, b) = (tile(image, 0), tile(image, 1));
        a.rgba
            .chunks_exact(4)
            .zip(b.rgba.chunks_exact(4))
            .filter(|(x, y)| x != y)
            .count()
    };
    // The bulge (radius 1 → 1.5 on two rings) and the lift move hundreds of pixels.
    let moved = changed(&sheet);
    println!("{moved} pixels moved");
    assert!(moved > 200, "{moved} pixels differ between frames 0 and 15");
    let still = render(
        &gpu,
        &PreviewScene {
            weights: None,
            ..scene
        },
        &rows,
        &options,
    )
    .unwrap();
    // The same pose in both tiles: alike but for a pixel or two where a triangle edge falls
    // on a pixel centre at another place in the sheet.
    let still = changed(&still);
    assert!(
        still * 50 < moved,
        "{still} pixels differ without the weights"
    );
}
