//! `kiln verify FILE [--clip NAME] [--frames all|N,M…] [--tolerance X]`: skins the model on the
//! GPU from its baked bone-matrix texture (the original engine's skinning shader, in WGSL) and on the CPU with
//! kiln-anim, prints the adapter and the error table, and fails when an error exceeds the
//! tolerance. Shared with `kiln preview`: loading a model and its bake, the frame list, the GPU.
//!
//! FILE is anything `kiln convert` reads (imported, processed and extracted in memory, with
//! Assimp's skin offsets), or a `.mesh` it wrote with the clips its `NAME.kiln.json` lists (or `--clip-file` gives). A
//! classic `.mesh` stores no offset matrices: they are assumed as kiln-anim's
//! `classic_offsets` documents (each skin bound in the pose the file stores, in the space of its
//! part's node; `docs/animation.md`), and a warning says so.
//!
//! Exit status: 0 when every sample is within the tolerance, 1 when one is not or the model
//! cannot be read, 3 when there is no GPU adapter (one line says so).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kiln::anim::{Baked, ModelBakeOptions, bake_model};
use kiln::load::load_with_clip_files;
use kiln::{LoadOptions, Loaded as LoadedModel};
use kiln_gpu::{Animated, FrameSelection, Gpu, GpuError, GpuOptions, VerifyOptions};

use crate::output::{outln, outp};

/// Exit status when no GPU can be used.
pub const NO_GPU: u8 = 3;

/// What `kiln verify` was asked.
pub struct VerifyArgs {
    pub file: PathBuf,
    pub clip_files: Vec<PathBuf>,
    pub clip: Option<String>,
    pub frames: Option<String>,
    pub tolerance: f32,
    pub adapter: Option<String>,
}

/// A failure and its exit status.
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl From<String> for Failure {
    fn from(message: String) -> Self {
        Failure { message, code: 1 }
    }
}

impl From<GpuError> for Failure {
    fn from(e: GpuError) -> Self {
        Failure {
            code: if e.is_unavailable() { NO_GPU } else { 1 },
            message: e.to_string(),
        }
    }
}

/// Prints a failure in the CLI's one-line form and turns it into the exit status.
pub fn report(file: &Path, f: Failure) -> ExitCode {
    if f.code == NO_GPU {
        crate::output::errln!("kiln: error: {}", f.message);
    } else {
        crate::output::errln!("kiln: error: {}: {}", file.display(), f.message);
    }
    ExitCode::from(f.code)
}

/// Opens the GPU.
pub fn open_gpu(adapter: Option<&str>) -> Result<Gpu, Failure> {
    Ok(Gpu::new(&GpuOptions {
        adapter_name: adapter.map(str::to_string),
        ..GpuOptions::default()
    })?)
}

/// A model and its bake, its warnings printed.
pub struct Loaded {
    pub animated: LoadedModel,
    pub baked: Baked,
}

/// Loads `file` as `kiln bake` does and bakes it; warnings go to standard error.
pub fn load(file: &Path, clip_files: &[PathBuf]) -> Result<Loaded, Failure> {
    let animated = load_with_clip_files(file, &LoadOptions::default(), clip_files)
        .map_err(|e| e.reason().to_string())?;
    let baked = bake_model(
        &animated.model,
        &animated.offsets,
        &animated.clips,
        &ModelBakeOptions::inspection(),
    )
    .map_err(GpuError::from)?;
    for w in &animated.warnings {
        crate::output::errln!("kiln: warning: {}: {w}", file.display());
    }
    for w in &baked.warnings {
        crate::output::errln!("kiln: warning: {}: {w}", file.display());
    }
    Ok(Loaded { animated, baked })
}

/// Clip indices `--clip` names (all when absent).
pub fn pick_clips(baked: &Baked, clip: Option<&str>) -> Result<Vec<usize>, Failure> {
    let names = &baked.bake.clip_names;
    match clip {
        None => Ok((0..names.len()).collect()),
        Some(want) => names
            .iter()
            .position(|n| n == want)
            .map(|i| vec![i])
            .ok_or_else(|| {
                format!(
                    "no clip '{want}'; the model has: {}",
                    names
                        .iter()
                        .map(|n| format!("'{n}'"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
                .into()
            }),
    }
}

/// Parses `all` or `N,M,…` (frames, fractions allowed).
pub fn parse_frames(text: Option<&str>) -> Result<FrameSelection, Failure> {
    match text.map(str::trim) {
        None | Some("all") => Ok(FrameSelection::All),
        Some(list) => list
            .split(',')
            .map(|s| {
                s.trim()
                    .parse::<f32>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| {
                        Failure::from(format!(
                            "--frames: '{}' is not a frame number (expected all or N,M,…)",
                            s.trim()
                        ))
                    })
            })
            .collect::<Result<Vec<_>, _>>()
            .map(FrameSelection::Times),
    }
}

pub fn run(args: &VerifyArgs) -> ExitCode {
    match verify(args) {
        Ok(code) => code,
        Err(f) => report(&args.file, f),
    }
}

fn verify(args: &VerifyArgs) -> Result<ExitCode, Failure> {
    if !(args.tolerance.is_finite() && args.tolerance > 0.0) {
        return Err(format!("--tolerance {} must be positive", args.tolerance).into());
    }
    let frames = parse_frames(args.frames.as_deref())?;
    // The GPU first: without one, its line is the only one printed.
    let gpu = open_gpu(args.adapter.as_deref())?;
    let loaded = load(&args.file, &args.clip_files)?;
    let clips = pick_clips(&loaded.baked, args.clip.as_deref())?;
    let options = VerifyOptions {
        clips: Some(clips),
        frames,
        tolerance: args.tolerance,
    };
    let r = kiln_gpu::verify(
        &gpu,
        &Animated::new(&loaded.animated.model, &loaded.baked)
            .with_clip_data(&loaded.animated.clips),
        &options,
    )?;
    let l = &r.layout;
    outln!("kiln verify: {}", args.file.display());
    outln!("adapter: {}", r.adapter);
    outln!(
        "bone texture: {} bones × {} frames × {} clips, RGBA32F {}",
        l.bones,
        l.frames,
        l.clips,
        if l.is_reference() {
            format!(
                "{}×{}×{} (4 texels per bone, one row per frame, one layer per clip)",
                l.width(),
                l.height(),
                l.clips
            )
        } else {
            format!(
                "split to fit the adapter: {} texture(s) of {}×{}, {} bones a row, {} rows a frame, {} frames a layer, {} layers a clip",
                l.pages,
                l.width(),
                l.height(),
                l.bones_per_row,
                l.rows_per_frame,
                l.frames_per_layer,
                l.layers_per_clip
            )
        }
    );
    if let Some(w) = &loaded.baked.weights {
        outln!(
            "morph targets: {} (weight texture {}×{}×{} R32F), morphed before skinning on both sides",
            w.width,
            w.width,
            w.height,
            w.layers
        );
    }
    outln!(
        "{} vertices; extent {:.4}; tolerance {:e} × extent = {:.2e} for positions, {:.2e} for normals and tangents",
        r.vertices,
        r.extent,
        r.tolerance,
        r.position_limit(),
        r.direction_limit()
    );
    outp!("{}", r.table());
    let failed = r.failures().count();
    if failed == 0 {
        outln!(
            "{}: all {} samples within tolerance (largest position error {:.2e} of the extent)",
            args.file.display(),
            r.samples.len(),
            r.worst_position()
        );
        Ok(ExitCode::SUCCESS)
    } else {
        Err(format!(
            "{failed} of {} samples exceed the tolerance (largest position error {:.2e} of the extent)",
            r.samples.len(),
            r.worst_position()
        )
        .into())
    }
}
