//! `kiln`: converts FBX/OBJ models into engine-ready `.mesh`, `.xml` and texture files.
//!
//! A thin shell over the `kiln` library: argument parsing, one line per file, exit codes.
//! Exit status: 0 when every file converted, 1 when any failed (the others still convert),
//! 2 for a usage error; `verify` and `preview` exit 3 when there is no GPU adapter.

mod bake;
mod dump;
mod inspect;
mod preview;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use kiln::pipeline::{ConvertOptions, prepare_file, write_atomically};
use kiln::{EncodeOptions, Layout, LoadOptions};

#[derive(Parser, Debug)]
#[command(
    name = "kiln",
    version,
    about = "Asset pipeline for game engines: FBX/OBJ to .mesh, .xml and textures"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum LayoutArg {
    /// The zero-copy kiln layout (docs/format.md).
    Kiln,
    /// Byte-compatible with the original C++ tool.
    Classic,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert model files: writes DIR/NAME.mesh, DIR/NAME.xml and the textures they use.
    Convert {
        /// Model files (.obj).
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Output folder (created when missing).
        #[arg(short, long, default_value = ".")]
        out: PathBuf,
        /// Byte layout of the .mesh file.
        #[arg(long, value_enum, default_value_t = LayoutArg::Kiln)]
        layout: LayoutArg,
        /// Kiln layout: compact normals, tangents (octahedral snorm16), UVs (unorm16) and
        /// weights (unorm8); positions stay f32.
        #[arg(long)]
        quantize: bool,
        /// Kiln layout: as --quantize, and positions unorm16 against the bounds.
        #[arg(long)]
        quantize_positions: bool,
        /// Static meshes: bake node transforms into the vertices (PreTransformVertices).
        #[arg(long = "static")]
        pre_transform: bool,
        /// Resample every clip at this many frames per second (default: the animation's own
        /// ticks per second).
        #[arg(long, value_name = "FPS")]
        clip_rate: Option<f64>,
        /// Treat warnings (missing textures or material libraries, dropped faces) as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Bake every clip's per-frame skinning matrices into a DDS texture array (width 4 × bones,
    /// height frames, one layer per clip, RGBA32F; reference 002's layout): writes DIR/NAME.dds.
    Bake {
        /// A model file `kiln convert` reads, or a .mesh it wrote (its NAME_*.clip files beside
        /// it).
        file: PathBuf,
        /// Output folder (created when missing).
        #[arg(short, long, default_value = ".")]
        out: PathBuf,
        /// Most bones the engine's texture holds (its MAX_BONE); more is an error.
        #[arg(long, default_value_t = 4096)]
        max_bones: u32,
        /// Most frames per clip the engine's texture holds (its MAX_FRAME); more is an error.
        #[arg(long, default_value_t = 16384)]
        max_frames: u32,
        /// Make the texture exactly 4 × max-bones wide and max-frames high.
        #[arg(long)]
        pad: bool,
        /// Resample the clips of a model file at this many frames per second.
        #[arg(long, value_name = "FPS")]
        clip_rate: Option<f64>,
        /// Also write DIR/NAME.rgba32f: the texels without the DDS header.
        #[arg(long)]
        raw: bool,
        /// Treat warnings as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Print a model's bones and every vertex's position, blend indices and weights as CSV
    /// (reference 003's dump).
    Dump {
        /// CSV output (the only format).
        #[arg(long, required = true)]
        csv: bool,
        /// A model file `kiln convert` reads, or a .mesh it wrote.
        file: PathBuf,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Convert a sample model built into kiln, to see the whole pipeline work.
    Demo {
        /// Output folder (created when missing).
        #[arg(short, long, default_value = "kiln-demo")]
        out: PathBuf,
    },
    /// Describe a .mesh or .clip file (kiln or classic layout): header, sections, counts,
    /// bones, parts, materials, clip tracks, checksum and the size saving of quantisation.
    Inspect {
        /// The .mesh or .clip file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Skin the model on the GPU from its baked bone-matrix texture and on the CPU, and print
    /// the adapter and the error per clip and frame; exit 1 when an error exceeds the
    /// tolerance, 3 when there is no GPU adapter.
    Verify {
        /// A model file `kiln convert` reads, or a .mesh it wrote (its NAME_*.clip files
        /// beside it).
        file: PathBuf,
        /// Only this clip.
        #[arg(long)]
        clip: Option<String>,
        /// `all` (every frame, every half frame, and the loop from the last frame to the
        /// first) or frames `N,M,…` (fractions allowed).
        #[arg(long, value_name = "all|N,M,…")]
        frames: Option<String>,
        /// Largest error allowed, relative to the model's extent.
        #[arg(long, default_value_t = 1e-4)]
        tolerance: f32,
        /// Use the GPU adapter whose name contains this.
        #[arg(long)]
        adapter: Option<String>,
    },
    /// Render the model, skinned on the GPU, at several frames into a PNG contact sheet (one
    /// row per clip); exit 3 when there is no GPU adapter.
    Preview {
        /// A model file `kiln convert` reads, or a .mesh it wrote.
        file: PathBuf,
        /// The PNG to write.
        #[arg(short, long)]
        out: PathBuf,
        /// Only this clip.
        #[arg(long)]
        clip: Option<String>,
        /// `all` or frames `N,M,…` (default: six spread over each clip).
        #[arg(long, value_name = "all|N,M,…")]
        frames: Option<String>,
        /// Side of one tile, in pixels.
        #[arg(long, default_value_t = 256)]
        tile: u32,
        /// Use the GPU adapter whose name contains this.
        #[arg(long)]
        adapter: Option<String>,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Convert {
            files,
            out,
            layout,
            quantize,
            quantize_positions,
            pre_transform,
            clip_rate,
            strict,
        } => {
            let options = ConvertOptions {
                load: LoadOptions {
                    pre_transform,
                    clip_frame_rate: clip_rate,
                },
                encode: EncodeOptions {
                    layout: match layout {
                        LayoutArg::Kiln => Layout::Kiln,
                        LayoutArg::Classic => Layout::Classic,
                    },
                    quantize: match (quantize, quantize_positions) {
                        (_, true) => kiln::format::kiln::Quantize::AttributesAndPositions,
                        (true, false) => kiln::format::kiln::Quantize::Attributes,
                        (false, false) => kiln::format::kiln::Quantize::None,
                    },
                },
            };
            convert_all(&files, &out, &options, strict)
        }
        Command::Bake {
            file,
            out,
            max_bones,
            max_frames,
            pad,
            clip_rate,
            raw,
            strict,
        } => bake::run(&bake::BakeArgs {
            file,
            out,
            options: kiln::anim::bake::BakeOptions {
                max_bones,
                max_frames,
                pad_to_limits: pad,
                ..Default::default()
            },
            clip_frame_rate: clip_rate,
            raw,
            strict,
        }),
        Command::Dump { csv: _, file, out } => dump::run(&file, out.as_deref()),
        Command::Demo { out } => demo(&out),
        Command::Inspect { file, json } => inspect::run(&file, json),
        Command::Verify {
            file,
            clip,
            frames,
            tolerance,
            adapter,
        } => verify::run(&verify::VerifyArgs {
            file,
            clip,
            frames,
            tolerance,
            adapter,
        }),
        Command::Preview {
            file,
            out,
            clip,
            frames,
            tile,
            adapter,
        } => preview::run(&preview::PreviewArgs {
            file,
            out,
            clip,
            frames,
            tile,
            adapter,
        }),
    }
}

/// Converts each file, printing one line per file; returns failure when any failed.
fn convert_all(files: &[PathBuf], out: &Path, options: &ConvertOptions, strict: bool) -> ExitCode {
    let mut failed = 0usize;
    for path in files {
        let prepared = match prepare_file(path, options) {
            Ok(p) => p,
            Err(e) => {
                eprintln!("kiln: error: {e}");
                failed += 1;
                continue;
            }
        };
        for w in prepared.warnings() {
            eprintln!("kiln: warning: {}: {w}", path.display());
        }
        if strict && !prepared.warnings().is_empty() {
            // Checked before writing, so an earlier output of the same name stays as it was.
            eprintln!(
                "kiln: error: {}: {} warning(s) and --strict given; nothing written",
                path.display(),
                prepared.warnings().len()
            );
            failed += 1;
            continue;
        }
        match prepared.write(out) {
            Ok(done) => println!("{}: {}", path.display(), done.summary),
            Err(e) => {
                eprintln!("kiln: error: {e}");
                failed += 1;
            }
        }
    }
    if failed > 0 {
        if files.len() > 1 {
            eprintln!("kiln: {failed} of {} files failed", files.len());
        }
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}

fn demo(out: &Path) -> ExitCode {
    let source = out.join("source");
    let prepare = || -> std::io::Result<PathBuf> {
        std::fs::create_dir_all(&source)?;
        // The house is built as a scene in code and written as FBX (texture embedded).
        write_atomically(&source.join(kiln::demo::FBX_NAME), &kiln::demo::fbx_bytes())?;
        Ok(source.join(kiln::demo::FBX_NAME))
    };
    let obj = match prepare() {
        Ok(p) => p,
        Err(e) => {
            eprintln!(
                "kiln: error: {}: cannot write the sample: {e}",
                source.display()
            );
            return ExitCode::FAILURE;
        }
    };
    println!("kiln demo: sample model written to {}", source.display());
    let code = convert_all(
        std::slice::from_ref(&obj),
        out,
        &ConvertOptions::default(),
        false,
    );
    if code == ExitCode::SUCCESS {
        println!("kiln demo: outputs in {}:", out.display());
        for name in ["house.mesh", "house.xml", kiln::demo::TEXTURE_NAME] {
            println!("  {}", out.join(name).display());
        }
    }
    code
}
