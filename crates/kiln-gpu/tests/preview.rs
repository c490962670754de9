//! The preview on the GPU (skinned in the vertex shader) against the same sheet rasterised on
//! the CPU from kiln-anim's skinning: they must agree within a PSNR tolerance.

use kiln_gpu::image::{Image, encode_png, psnr};
use kiln_gpu::preview::{
    PreviewFrame, PreviewMaterial, PreviewOptions, PreviewScene, render, render_cpu,
};
use kiln_testkit::fixtures::tube::{TubeOptions, tube};
use kiln_testkit::gpu;

/// PSNR the GPU sheet must reach against the CPU reference. Both draw the same triangles with
/// the same formulas; they differ on pixels whose centre lies on a triangle edge (fill rules)
/// and by float rounding, which stays above 35 dB here. A wrong frame, bone or texture drops it
/// far below (see the last assertion).
const MIN_PSNR: f64 = 30.0;

fn save(name: &str, image: &Image) {
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR"));
    let _ = std::fs::write(dir.join(name), encode_png(image).unwrap());
}

fn foreground(image: &Image, background: [u8; 4]) -> usize {
    image
        .rgba
        .chunks_exact(4)
        .filter(|p| *p != background)
        .count()
}

#[test]
fn gpu_preview_matches_the_cpu_reference() {
    let gpu = gpu::gpu();
    let f = tube(&TubeOptions::default());
    let baked = f.bake().unwrap();
    let materials: Vec<PreviewMaterial> = f
        .materials
        .iter()
        .map(|m| {
            let texture = f
                .textures
                .iter()
                .find(|(name, _)| *name == m.diffuse_file)
                .map(|(_, img)| img.clone());
            PreviewMaterial::from_data(m, texture)
        })
        .collect();
    let scene = PreviewScene {
        model: &f.model,
        materials: &materials,
        bake: &baked.bake,
        weights: None,
    };
    let rows: Vec<Vec<PreviewFrame>> = (0..2)
        .map(|clip| {
            [0.0, 3.5, 7.0, 11.0]
                .iter()
                .map(|&time| PreviewFrame { clip, time })
                .collect()
        })
        .collect();
    let options = PreviewOptions {
        tile_size: 160,
        ..PreviewOptions::default()
    };
    let gpu_image = render(&gpu, &scene, &rows, &options).unwrap();
    let cpu_image = render_cpu(&scene, &rows, &options).unwrap();
    save("preview-gpu.png", &gpu_image);
    save("preview-cpu.png", &cpu_image);
    assert_eq!((gpu_image.width, gpu_image.height), (640, 320));
    let db = psnr(&gpu_image, &cpu_image).unwrap();
    println!("PSNR of the GPU preview against the CPU reference: {db:.2} dB");
    assert!(db >= MIN_PSNR, "PSNR {db:.2} dB");

    // The model covers a fair part of every tile, and the frames differ (it moves).
    let tile = |img: &Image, col: u32, row: u32| {
        let s = options.tile_size;
        let mut t = Image::filled(s, s, [0; 4]);
        for y in 0..s {
            let from = (((row * s + y) * img.width + col * s) * 4) as usize;
            let to = (y * s * 4) as usize;
            t.rgba[to..to + (s * 4) as usize]
                .copy_from_slice(&img.rgba[from..from + (s * 4) as usize]);
        }
        t
    };
    for row in 0..2 {
        for col in 0..4 {
            let n = foreground(&tile(&gpu_image, col, row), options.background);
            let share = n as f64 / (options.tile_size * options.tile_size) as f64;
            assert!(share > 0.015 && share < 0.8, "tile {col},{row}: {share}");
        }
    }
    let a = tile(&gpu_image, 0, 0);
    let b = tile(&gpu_image, 2, 0);
    assert!(psnr(&a, &b).unwrap() < 25.0, "frames 0 and 7 look alike");
    // The textured cap shows both checker colours.
    let has = |c: [u8; 3]| {
        gpu_image.rgba.chunks_exact(4).any(|p| {
            // Lit, so darker than the texel but with its hue.
            let (r, g, b) = (p[0] as f32, p[1] as f32, p[2] as f32);
            match c {
                [240, 220, 90] => r > 2.0 * b && g > 2.0 * b,
                _ => b > 1.5 * r && b > g,
            }
        })
    };
    assert!(has([240, 220, 90]) && has([40, 90, 200]));

    // A sheet of other frames is far from the reference: the PSNR check can fail.
    let shifted: Vec<Vec<PreviewFrame>> = rows
        .iter()
        .map(|r| {
            r.iter()
                .map(|p| PreviewFrame {
                    time: (p.time + 2.0).min(11.0),
                    ..*p
                })
                .collect()
        })
        .collect();
    let other = render_cpu(&scene, &shifted, &options).unwrap();
    let wrong = psnr(&gpu_image, &other).unwrap();
    assert!(wrong < MIN_PSNR - 5.0, "{wrong}");
}

#[test]
fn sheets_past_the_texture_limit_are_refused() {
    let gpu = gpu::gpu();
    let f = tube(&TubeOptions::default());
    let baked = f.bake().unwrap();
    let scene = PreviewScene {
        model: &f.model,
        materials: &[],
        bake: &baked.bake,
        weights: None,
    };
    let row: Vec<PreviewFrame> = (0..100)
        .map(|i| PreviewFrame {
            clip: 0,
            time: (i % 12) as f32,
        })
        .collect();
    let e = render(&gpu, &scene, &[row], &PreviewOptions::default()).unwrap_err();
    assert!(e.to_string().contains("draw fewer frames"), "{e}");
    let e = render(
        &gpu,
        &scene,
        &[vec![PreviewFrame { clip: 5, time: 0.0 }]],
        &PreviewOptions::default(),
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "clip 5: the model has 2 clips");
}

#[test]
fn a_bake_claiming_a_clip_of_no_frames_is_an_error_not_an_underflow() {
    let f = tube(&TubeOptions::default());
    let mut baked = f.bake().unwrap();
    baked.bake.frame_counts[0] = 0;
    let materials: Vec<PreviewMaterial> = Vec::new();
    let scene = PreviewScene {
        model: &f.model,
        materials: &materials,
        bake: &baked.bake,
        weights: None,
    };
    let rows = vec![vec![PreviewFrame { clip: 0, time: 0.0 }]];
    let e = render_cpu(&scene, &rows, &PreviewOptions::default()).unwrap_err();
    assert!(e.to_string().contains("which has 0 frames"), "{e}");
}
