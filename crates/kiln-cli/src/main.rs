//! `kiln`: converts FBX/OBJ models into engine-ready `.mesh`, `.xml` and texture files.
//!
//! A thin shell over the `kiln` library: argument parsing, one line per file, exit codes.
//! Exit status: 0 when every file converted, 1 when any failed (the others still convert),
//! 2 for a usage error.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand, ValueEnum};
use kiln::pipeline::{ConvertOptions, Layout, convert_file, write_atomically};

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
        #[arg(long, value_enum, default_value_t = LayoutArg::Classic)]
        layout: LayoutArg,
        /// Static meshes: bake node transforms into the vertices (PreTransformVertices).
        #[arg(long = "static")]
        pre_transform: bool,
        /// Treat warnings (missing textures or material libraries, dropped faces) as errors.
        #[arg(long)]
        strict: bool,
    },
    /// Convert a sample model built into kiln, to see the whole pipeline work.
    Demo {
        /// Output folder (created when missing).
        #[arg(short, long, default_value = "kiln-demo")]
        out: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Convert {
            files,
            out,
            layout,
            pre_transform,
            strict,
        } => {
            let options = ConvertOptions {
                layout: match layout {
                    LayoutArg::Classic => Layout::Classic,
                },
                pre_transform,
            };
            convert_all(&files, &out, &options, strict)
        }
        Command::Demo { out } => demo(&out),
    }
}

/// Converts each file, printing one line per file; returns failure when any failed.
fn convert_all(files: &[PathBuf], out: &Path, options: &ConvertOptions, strict: bool) -> ExitCode {
    let mut failed = 0usize;
    for path in files {
        match convert_file(path, out, options) {
            Ok(done) => {
                for w in &done.warnings {
                    eprintln!("kiln: warning: {}: {w}", path.display());
                }
                if strict && !done.warnings.is_empty() {
                    for p in &done.written {
                        let _ = std::fs::remove_file(p);
                    }
                    eprintln!(
                        "kiln: error: {}: {} warning(s) and --strict given; nothing written",
                        path.display(),
                        done.warnings.len()
                    );
                    failed += 1;
                    continue;
                }
                println!("{}: {}", path.display(), done.summary);
            }
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
        write_atomically(
            &source.join(kiln::demo::OBJ_NAME),
            kiln::demo::obj_text().as_bytes(),
        )?;
        write_atomically(
            &source.join(kiln::demo::MTL_NAME),
            kiln::demo::mtl_text().as_bytes(),
        )?;
        write_atomically(
            &source.join(kiln::demo::TEXTURE_NAME),
            &kiln::demo::texture_bytes(),
        )?;
        Ok(source.join(kiln::demo::OBJ_NAME))
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
