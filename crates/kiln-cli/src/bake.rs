//! `kiln bake FILE [-o DIR]`: every clip's per-frame skinning matrices in the texture
//! layout the original engine's vertex shader samples (4 texels per bone, one row per frame), written as `DIR/NAME.dds` (a DX10 `R32G32B32A32_FLOAT` texture array, one
//! layer per clip), and with `--raw` also `DIR/NAME.rgba32f` (the same texels without header).
//! A model with morph targets also gets `DIR/NAME.weights.dds` (`R32_FLOAT`, one texel per
//! target, same rows and layers; `kiln_anim::weights`) and with `--raw` `DIR/NAME.weights.r32f`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kiln::anim::bake::BakeOptions;
use kiln::anim::dds::{raw_texels, raw_weights, write_dds, write_weights_dds};
use kiln::anim::{Baked, ModelBakeOptions, bake_model};
use kiln::codes::bind_warning;
use kiln::load::load_with_clip_files;
use kiln::pipeline::write_atomically;
use kiln::{LoadOptions, Warning};

use crate::output::outln;

/// What `kiln bake` was asked.
pub struct BakeArgs {
    pub file: PathBuf,
    pub clip_files: Vec<PathBuf>,
    pub out: PathBuf,
    pub options: BakeOptions,
    pub clip_frame_rate: Option<f64>,
    pub raw: bool,
    pub strict: bool,
}

pub fn run(args: &BakeArgs) -> ExitCode {
    match bake(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::output::errln!("kiln: error: {}: {e}", args.file.display());
            ExitCode::FAILURE
        }
    }
}

fn bake(args: &BakeArgs) -> Result<(), String> {
    let options = LoadOptions {
        clip_frame_rate: args.clip_frame_rate,
        ..LoadOptions::default()
    };
    let model = load_with_clip_files(&args.file, &options, &args.clip_files)
        .map_err(|e| e.reason().to_string())?;
    if model.clips.is_empty() {
        // Why there is nothing to bake (no manifest, say) comes before the error.
        for w in &model.warnings {
            crate::output::errln!("kiln: warning: {}: {w}", args.file.display());
        }
    }
    let Baked {
        bake: baked,
        warnings: bind_warnings,
        weights,
        ..
    } = bake_model(
        &model.model,
        &model.offsets,
        &model.clips,
        &ModelBakeOptions::texture(args.options),
    )
    .map_err(|e| e.to_string())?;
    let warnings: Vec<Warning> = model
        .warnings
        .iter()
        .cloned()
        .chain(bind_warnings.iter().map(bind_warning))
        .collect();
    for w in &warnings {
        crate::output::errln!("kiln: warning: {}: {w}", args.file.display());
    }
    if args.strict && !warnings.is_empty() {
        return Err(format!(
            "{} warning(s) and --strict given; nothing written",
            warnings.len()
        ));
    }
    std::fs::create_dir_all(&args.out)
        .map_err(|e| format!("cannot create folder {}: {e}", args.out.display()))?;
    let dds = args.out.join(format!("{}.dds", model.name));
    write(&dds, &write_dds(&baked))?;
    let mut written = vec![dds];
    if args.raw {
        let raw = args.out.join(format!("{}.rgba32f", model.name));
        write(&raw, &raw_texels(&baked))?;
        written.push(raw);
    }
    // The morph-target weights, one R32F texel per target, in the same frames and layers.
    if let Some(weights) = &weights {
        let dds = args.out.join(format!("{}.weights.dds", model.name));
        write(&dds, &write_weights_dds(weights))?;
        written.push(dds);
        if args.raw {
            let raw = args.out.join(format!("{}.weights.r32f", model.name));
            write(&raw, &raw_weights(weights))?;
            written.push(raw);
        }
    }
    let frames: Vec<String> = baked
        .clip_names
        .iter()
        .zip(&baked.frame_counts)
        .map(|(n, f)| format!("'{n}' {f}"))
        .collect();
    outln!(
        "{}: {} bones, {} clips (frames: {}), texture {}×{}×{} RGBA32F{} -> {}",
        args.file.display(),
        baked.bone_count,
        baked.layers,
        frames.join(", "),
        baked.width,
        baked.height,
        baked.layers,
        weights.as_ref().map_or(String::new(), |w| format!(
            ", weights {}×{}×{} R32F",
            w.width, w.height, w.layers
        )),
        written
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    );
    Ok(())
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), String> {
    write_atomically(path, bytes).map_err(|e| format!("cannot write {}: {e}", path.display()))
}
