//! `kiln preview FILE -o out.png [--clip NAME] [--frames all|N,M…] [--tile PX]`: an offscreen
//! GPU render of the model skinned in the vertex shader, Lambert-shaded with each part's
//! diffuse colour or texture, as a contact sheet: one row per clip, one column per frame
//! (six frames spread over each clip unless `--frames` says which; `all` is every frame).
//!
//! Materials and textures come from the one load of the file (`kiln::load`): the `.mesh` (kiln
//! layout) or the `NAME.xml` beside it (classic), or the source file's materials; textures are
//! read from the folder of the file (PNG and TGA; a
//! texture that cannot be read leaves its part in the diffuse colour, with a warning). Exit
//! status as `kiln verify`: 3 when there is no GPU adapter.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kiln::load::{Loaded, LoadedMaterial, MaterialsError};
use kiln_gpu::FrameSelection;
use kiln_gpu::image::{Image, decode_texture, encode_png};
use kiln_gpu::preview::{
    PreviewFrame, PreviewMaterial, PreviewOptions, PreviewScene, spread_frames,
};

use crate::output::outln;
use crate::verify::{Failure, load, open_gpu, parse_frames, pick_clips, report};

/// What `kiln preview` was asked.
pub struct PreviewArgs {
    pub file: PathBuf,
    pub clip_files: Vec<PathBuf>,
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
    crate::output::errln!("kiln: warning: {}: {w}", file.display());
}

fn preview(args: &PreviewArgs) -> Result<(), Failure> {
    let selection = match args.frames.as_deref() {
        None => None,
        Some(text) => Some(parse_frames(Some(text))?),
    };
    // The GPU first: without one, its line is the only one printed.
    let gpu = open_gpu(args.adapter.as_deref())?;
    let loaded = load(&args.file, &args.clip_files)?;
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
    let materials = materials(&args.file, &loaded.animated)?;
    let scene = PreviewScene {
        model: &loaded.animated.model,
        materials: &materials,
        bake: &baked.bake,
        weights: baked.weights.as_ref(),
    };
    let options = PreviewOptions {
        tile_size: args.tile,
        ..PreviewOptions::default()
    };
    let image = kiln_gpu::preview::render(&gpu, &scene, &rows, &options)?;
    let png = encode_png(&image)?;
    kiln::pipeline::write_atomically(&args.out, &png)
        .map_err(|e| format!("cannot write {}: {e}", args.out.display()))?;
    outln!("kiln preview: {}", args.file.display());
    outln!("adapter: {}", gpu.adapter());
    for row in &rows {
        if let Some(first) = row.first() {
            outln!(
                "row: clip '{}' at frames {}",
                baked.bake.clip_names[first.clip],
                row.iter()
                    .map(|f| format!("{}", (f.time * 100.0).round() / 100.0))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
    }
    outln!(
        "{}: {}×{} pixels, {} tiles",
        args.out.display(),
        image.width,
        image.height,
        rows.iter().map(Vec::len).sum::<usize>()
    );
    Ok(())
}

/// The materials of the loaded model, each with its decoded diffuse texture when it has one
/// that can be read.
fn materials(file: &Path, loaded: &Loaded) -> Result<Vec<PreviewMaterial>, Failure> {
    let found: &[LoadedMaterial] = match &loaded.materials {
        Ok(m) => m,
        Err(e @ MaterialsError::Unreadable { .. }) => {
            warn(file, format!("{e}; parts drawn in grey"));
            &[]
        }
        Err(e) => return Err(e.to_string().into()),
    };
    let used: Vec<&str> = loaded
        .model
        .meshes
        .iter()
        .map(|p| p.material_name.as_str())
        .collect();
    let mut out = Vec::new();
    for m in found {
        let texture: Option<Image> = match &m.diffuse {
            None => None,
            Some(tex) => match loaded.texture_bytes(tex) {
                Err(why) => {
                    if used.contains(&m.data.name.as_str()) {
                        warn(file, format!("{why}; drawn in the diffuse colour"));
                    }
                    None
                }
                Ok(bytes) => match decode_texture(tex.file_name(), &bytes) {
                    Ok(img) => Some(img),
                    Err(e) => {
                        if used.contains(&m.data.name.as_str()) {
                            warn(file, format!("{e}; drawn in the diffuse colour"));
                        }
                        None
                    }
                },
            },
        };
        out.push(PreviewMaterial::from_data(&m.data, texture));
    }
    Ok(out)
}
