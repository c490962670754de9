//! `kiln`: converts FBX/OBJ models into engine-ready `.mesh`, `.xml` and texture files.
//!
//! A thin shell over the `kiln` library: argument parsing, one line per file, exit codes.
//! Exit status: 0 when every file converted, 1 when any failed (the others still convert),
//! 2 for a usage error; `verify` and `preview` exit 3 when there is no GPU adapter.

mod bake;
mod blocks;
mod completions;
mod convert;
mod dump;
mod inspect;
mod output;
mod preview;
mod verify;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use kiln::pipeline::write_atomically;

use crate::output::outln;

/// Large blocks in reused mappings (see `blocks.rs` for why).
#[global_allocator]
static ALLOCATOR: blocks::Blocks = blocks::Blocks::new();

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
pub(crate) enum LayoutArg {
    /// The zero-copy kiln layout (docs/format.md).
    Kiln,
    /// Byte-compatible with the original C++ tool.
    Classic,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Convert models into engine files: NAME.mesh, NAME.xml, one NAME_CLIP.clip per
    /// animation, the textures the materials use, and NAME.kiln.json (what was read and
    /// written), for each input; inputs whose outputs are up to date are skipped.
    Convert(convert::ConvertArgs),
    /// Bake every clip's per-frame skinning matrices into a texture a vertex shader samples:
    /// writes DIR/NAME.dds.
    ///
    /// The texture is a DX10 DDS texture array of RGBA32F texels: one layer per clip, one row per
    /// frame, 4 texels per bone (the rows of its skinning matrix, for row vectors), so bone B at
    /// frame F of clip C is texels 4·B to 4·B+3 of row F in layer C. It is 4 × bones wide and as
    /// high as the longest clip (shorter clips repeat their last frame).
    Bake {
        /// A model file (.fbx, .obj), or a .mesh `kiln convert` wrote (its clips listed in the
        /// NAME.kiln.json beside it, or given with --clip-file).
        file: PathBuf,
        /// With a .mesh: its .clip files (repeat the option), instead of those its
        /// NAME.kiln.json manifest lists (a .mesh the original tool wrote has none).
        #[arg(long = "clip-file", value_name = "FILE")]
        clip_files: Vec<PathBuf>,
        /// Output folder (created when missing).
        #[arg(short, long, default_value = ".")]
        out: PathBuf,
        /// Most bones the engine's texture holds (its MAX_BONE); more is an error.
        #[arg(long, default_value_t = 4096)]
        max_bones: u32,
        /// Most frames per clip the engine's texture holds (its MAX_FRAME); more is an error.
        #[arg(long, default_value_t = 16384)]
        max_frames: u32,
        /// Make the texture exactly 4 × max-bones wide and max-frames high, for an engine that
        /// creates it with fixed sizes (extra bones hold the identity, extra rows repeat the
        /// last frame).
        #[arg(long)]
        pad: bool,
        /// Resample the clips of a model file at this many frames per second.
        #[arg(long, value_name = "FPS")]
        clip_rate: Option<f64>,
        /// Also write DIR/NAME.rgba32f: the same texels without the DDS header, for an engine
        /// that creates the texture itself.
        #[arg(long)]
        raw: bool,
        /// Treat warnings as errors: nothing is written when there is one.
        #[arg(long)]
        strict: bool,
    },
    /// Print a model's bones and every vertex's position, blend indices and blend weights as
    /// CSV, or its evaluated mesh as OBJ (--obj).
    ///
    /// With --csv: the bones table (header `bone,name,parent`), an empty line, then the
    /// vertices table (header `part,vertex,x,y,z,i0,i1,i2,i3,w0,w1,w2,w3`: part index, vertex
    /// index within the part, position, the four bone indices as integers and their weights).
    /// With --csv-legacy: the original tool's Vertices.csv, without headers.
    #[command(group(clap::ArgGroup::new("format").required(true)))]
    Dump {
        /// CSV with a header row per table; blend indices as integers, other numbers in the
        /// shortest form that reads back as the same 32-bit float.
        #[arg(long, group = "format")]
        csv: bool,
        /// The original tool's CSV: `index,name` per bone, an empty line, then
        /// `x,y,z,i0,i1,i2,i3,w0,w1,w2,w3` per vertex, every number with six decimals.
        #[arg(long, group = "format")]
        csv_legacy: bool,
        /// The evaluated mesh as Wavefront OBJ (positions, normals, triangles per part): morph
        /// targets applied and the mesh skinned at --frame of --clip, or the bind pose with the
        /// targets at their rest weights without --clip.
        #[arg(long, group = "format")]
        obj: bool,
        /// With --obj: the clip to pose the mesh with (by name).
        #[arg(long, requires = "obj")]
        clip: Option<String>,
        /// With --obj --clip: the frame (fractions allowed; clamped to the clip).
        #[arg(long, requires = "clip", default_value_t = 0.0)]
        frame: f32,
        /// A model file (.fbx, .obj), or a .mesh `kiln convert` wrote.
        file: PathBuf,
        /// Write to this file instead of standard output.
        #[arg(short, long)]
        out: Option<PathBuf>,
    },
    /// Convert a sample model built into kiln, to see the whole pipeline work: writes
    /// DIR/source/house.fbx and converts it into DIR (house.mesh, house.xml, bricks.tga).
    Demo {
        /// Output folder (created when missing).
        #[arg(short, long, default_value = "kiln-demo")]
        out: PathBuf,
    },
    /// Describe a model file (.fbx, .obj) or a .mesh or .clip file kiln wrote.
    ///
    /// A model file: its nodes, meshes, materials and their textures, skins, animations, the
    /// bounds of the converted model and the warnings a conversion gives, with their codes.
    /// A .mesh (either layout): header, sections, counts, bounds, bones, parts, materials,
    /// checksum and how much --quantize would save. A .clip: its frames and tracks.
    Inspect {
        /// The model, .mesh or .clip file.
        file: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Check that the model skins the same on the GPU as on the CPU.
    ///
    /// Skins the model on the GPU from the texture `kiln bake` writes and on the CPU, and
    /// prints the adapter and the error per clip and frame; exits 1 when an error exceeds the
    /// tolerance, 3 when there is no GPU adapter.
    Verify {
        /// A model file (.fbx, .obj), or a .mesh `kiln convert` wrote (its clips listed in the
        /// NAME.kiln.json beside it, or given with --clip-file).
        file: PathBuf,
        /// With a .mesh: its .clip files (repeat the option), instead of those its
        /// NAME.kiln.json manifest lists (a .mesh the original tool wrote has none).
        #[arg(long = "clip-file", value_name = "FILE")]
        clip_files: Vec<PathBuf>,
        /// Only this clip.
        #[arg(long)]
        clip: Option<String>,
        /// `all` (every frame, every half frame, and the loop from the last frame to the
        /// first) or frames `N,M,…` (fractions allowed).
        #[arg(long, value_name = "all|N,M,…")]
        frames: Option<String>,
        /// Largest error allowed, as a fraction of the model's extent (the diagonal of its
        /// bounds).
        #[arg(long, default_value_t = 1e-4)]
        tolerance: f32,
        /// Use the GPU adapter whose name contains this.
        #[arg(long)]
        adapter: Option<String>,
    },
    /// Render the model, skinned on the GPU, at several frames into a PNG contact sheet.
    ///
    /// One row per clip (at most 8 unless --clip names one), one tile per frame, each part in
    /// its diffuse colour or texture; exits 3 when there is no GPU adapter.
    Preview {
        /// A model file (.fbx, .obj), or a .mesh `kiln convert` wrote (its clips listed in the
        /// NAME.kiln.json beside it, or given with --clip-file).
        file: PathBuf,
        /// With a .mesh: its .clip files (repeat the option), instead of those its
        /// NAME.kiln.json manifest lists (a .mesh the original tool wrote has none).
        #[arg(long = "clip-file", value_name = "FILE")]
        clip_files: Vec<PathBuf>,
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
    /// Print a shell completion script for kiln.
    ///
    /// For example, bash: `kiln completions bash > ~/.local/share/bash-completion/completions/kiln`;
    /// zsh: `kiln completions zsh > ~/.zfunc/_kiln` (with ~/.zfunc in $fpath); fish:
    /// `kiln completions fish > ~/.config/fish/completions/kiln.fish`.
    Completions {
        /// The shell to complete kiln's commands and options in.
        shell: completions::Shell,
    },
    /// Print kiln's manual page (roff), or write one page per command into a folder.
    ///
    /// `kiln man | man -l -` reads it; `kiln man -o DIR` writes DIR/kiln.1 and
    /// DIR/kiln-COMMAND.1 for each command.
    Man {
        /// Write kiln.1 and one kiln-COMMAND.1 per command into this folder (created when
        /// missing) instead of printing kiln.1.
        #[arg(short, long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

fn main() -> ExitCode {
    // Before any thread exists (see `blocks::pad_small_heaps` for why).
    blocks::pad_small_heaps();
    let cli = Cli::parse();
    match cli.command {
        Command::Convert(args) => convert::run(args),
        Command::Bake {
            file,
            clip_files,
            out,
            max_bones,
            max_frames,
            pad,
            clip_rate,
            raw,
            strict,
        } => bake::run(&bake::BakeArgs {
            file,
            clip_files,
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
        Command::Dump {
            obj: true,
            clip,
            frame,
            file,
            out,
            ..
        } => dump::run_obj(&file, out.as_deref(), clip.as_deref(), frame),
        Command::Dump {
            csv: _,
            csv_legacy,
            file,
            out,
            ..
        } => dump::run(
            &file,
            out.as_deref(),
            if csv_legacy {
                dump::Format::Legacy
            } else {
                dump::Format::Headed
            },
        ),
        Command::Demo { out } => demo(&out),
        Command::Inspect { file, json } => inspect::run(&file, json),
        Command::Verify {
            file,
            clip_files,
            clip,
            frames,
            tolerance,
            adapter,
        } => verify::run(&verify::VerifyArgs {
            file,
            clip_files,
            clip,
            frames,
            tolerance,
            adapter,
        }),
        Command::Preview {
            file,
            clip_files,
            out,
            clip,
            frames,
            tile,
            adapter,
        } => preview::run(&preview::PreviewArgs {
            file,
            clip_files,
            out,
            clip,
            frames,
            tile,
            adapter,
        }),
        Command::Completions { shell } => completions::completions(shell),
        Command::Man { out } => completions::man(out.as_deref()),
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
            crate::output::errln!(
                "kiln: error: {}: cannot write the sample: {e}",
                source.display()
            );
            return ExitCode::FAILURE;
        }
    };
    outln!("kiln demo: sample model written to {}", source.display());
    let code = convert::convert_defaults(&obj, out);
    if code == ExitCode::SUCCESS {
        outln!("kiln demo: outputs in {}:", out.display());
        for name in ["house.mesh", "house.xml", kiln::demo::TEXTURE_NAME] {
            outln!("  {}", out.join(name).display());
        }
    }
    code
}
