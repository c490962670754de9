//! `kiln preview FILE -o out.png [--clip NAME] [--frames all|N,M…] [--tile PX]`: an offscreen
//! GPU render of the model skinned in the vertex shader, Lambert-shaded with each part's
//! diffuse colour or texture, as a contact sheet: one row per clip, one column per frame
//! (six frames spread over each clip unless `--frames` says which; `all` is every frame).
//!
//! Materials come from the `.mesh` (kiln layout) or the `NAME.xml` beside it (classic), or from
//! the source file's materials; textures are read from the folder of the file (PNG and TGA; a
//! texture that cannot be read leaves its part in the diffuse colour, with a warning). Exit
//! status as `kiln verify`: 3 when there is no GPU adapter.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kiln::format::MaterialData;
use kiln_gpu::FrameSelection;
use kiln_gpu::image::{Image, decode_texture, encode_png};
use kiln_gpu::preview::{
    PreviewFrame, PreviewMaterial, PreviewOptions, PreviewScene, spread_frames,
};

use crate::verify::{Failure, load, open_gpu, parse_frames, pick_clips, report};

/// What `kiln preview` was asked.
pub struct PreviewArgs {
    pub file: PathBuf,
    pub out: PathBuf,
    pub clip: Option<String>,
    pub frames: Option<String>,
    pub tile: u32,
    pub adapter: Option<String>,
}

/// Most clips drawn when `--clip` is not given (one row each).
const MAX_ROWS: usize = 8;
/// Frames drawn per clip when `--frames` is not given.
const DEFAULT_FRAMES: u32 = 6;

pub fn run(args: &PreviewArgs) -> ExitCode {
    match preview(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(f) => report(&args.file, f),
    }
}

fn warn(file: &Path, w: impl std::fmt::Display) {
    eprintln!("kiln: warning: {}: {w}", file.display());
}

fn preview(args: &PreviewArgs) -> Result<(), Failure> {
    let selection = match args.frames.as_deref() {
        None => None,
        Some(text) => Some(parse_frames(Some(text))?),
    };
    // The GPU first: without one, its line is the only one printed.
    let gpu = open_gpu(args.adapter.as_deref())?;
    let loaded = load(&args.file)?;
    let baked = &loaded.baked;
    let mut clips = pick_clips(baked, args.clip.as_deref())?;
    if clips.len() > MAX_ROWS {
        warn(
            &args.file,
            format!(
                "{} clips; drawing the first {MAX_ROWS} (name one with --clip)",
                clips.len()
            ),
        );
        clips.truncate(MAX_ROWS);
    }
    let mut rows = Vec::new();
    for &clip in &clips {
        let frames = baked.bake.frame_counts[clip];
        let times = match &selection {
            None => spread_frames(frames, DEFAULT_FRAMES),
            Some(FrameSelection::All) => (0..frames).map(|f| f as f32).collect(),
            Some(FrameSelection::Times(t)) => t.clone(),
        };
        rows.push(
            times
                .into_iter()
                .map(|time| PreviewFrame { clip, time })
                .collect::<Vec<_>>(),
        );
    }
    let materials = materials(&args.file, &loaded.animated.model)?;
    let scene = PreviewScene {
        model: &loaded.animated.model,
        materials: &materials,
        bake: &baked.bake,
    };
    let options = PreviewOptions {
        tile_size: args.tile,
        ..PreviewOptions::default()
    };
    let image = kiln_gpu::preview::render(&gpu, &scene, &rows, &options)?;
    let png = encode_png(&image)?;
    kiln::pipeline::write_atomically(&args.out, &png)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    println!("kiln preview: {}", args.file.display());
    println!("adapter: {}", gpu.adapter());
    for row in &rows {
        if let Some(first) = row.first() {
            println!(
                "row: clip '{}' at frames {}",
                baked.bake.clip_names[first.clip],
                row.iter()
                    .map(|f| format!("{}", (f.time * 100.0).round() / 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    println!(
        "{}: {}×{} pixels, {} tiles",
        args.out.display(),
        image.width,
        image.height,
        rows.iter().map(Vec::len).sum::<usize>()
    );
    Ok(())
}

/// A material's diffuse texture: its file name and bytes, or why they could not be read.
type TextureFile = Result<(String, Vec<u8>), String>;

/// The materials of the model in `file`, each with its decoded diffuse texture when it has
/// one that can be read.
fn materials(file: &Path, model: &kiln::format::Model) -> Result<Vec<PreviewMaterial>, Failure> {
    let dir = file
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let is_mesh = file
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mesh"));
    let mut found: Vec<(MaterialData, Option<TextureFile>)> = Vec::new();
    let read_beside = |name: &str| -> TextureFile {
        std::fs::read(dir.join(name))
            .map(|b| (name.to_string(), b))
            .map_err(|e| format!("texture '{name}': {e}"))
    };
    if is_mesh {
        let bytes = std::fs::read(file).map_err(|e| format!("cannot read: {e}"))?;
        let data: Vec<MaterialData> = match kiln::format::kiln::MeshView::parse(&bytes) {
            Ok(view) => view.materials().map(|m| m.to_material_data()).collect(),
            Err(_) => {
                let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("model");
                let xml = dir.join(format!("{stem}.xml"));
                match std::fs::read_to_string(&xml) {
                    Ok(text) => kiln::format::xml::read_materials(&text)
                        .map_err(|e| format!("{}: {e}", xml.display()))?,
                    Err(e) => {
                        warn(file, format!("{}: {e}; parts drawn in grey", xml.display()));
                        Vec::new()
                    }
                }
            }
        };
        for m in data {
            let tex = (!m.diffuse_file.is_empty()).then(|| read_beside(&m.diffuse_file));
            found.push((m, tex));
        }
    } else {
        let mut scene = kiln::pipeline::import_file(file).map_err(|e| e.message)?;
        kiln::pipeline::process_for_engine(&mut scene, &Default::default())
            .map_err(|e| e.to_string())?;
        let extracted = kiln::anim::extract::extract(&scene);
        for m in extracted.materials {
            // Found the way `kiln convert` finds it.
            let tex = m.diffuse.as_ref().map(|t| {
                let name = kiln::anim::extract::texture_file_name(&t.path).to_string();
                kiln::pipeline::texture_bytes(&scene, t, dir).map(|b| (name, b))
            });
            found.push((m.data, tex));
        }
    }
    let used: Vec<&str> = model
        .meshes
        .iter()
        .map(|p| p.material_name.as_str())
        .collect();
    let mut out = Vec::new();
    for (data, tex) in found {
        let texture: Option<Image> = match tex {
            None => None,
            Some(Err(why)) => {
                if used.contains(&data.name.as_str()) {
                    warn(file, format!("{why}; drawn in the diffuse colour"));
                }
                None
            }
            Some(Ok((name, bytes))) => match decode_texture(&name, &bytes) {
                Ok(img) => Some(img),
                Err(e) => {
                    if used.contains(&data.name.as_str()) {
                        warn(file, format!("{e}; drawn in the diffuse colour"));
                    }
                    None
                }
            },
        };
        out.push(PreviewMaterial::from_data(&data, texture));
    }
    Ok(out)
}
