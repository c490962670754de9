//! `kiln convert`: inputs (files, folders, globs, `@list`, `-`) → mirrored, manifest-tracked,
//! incremental outputs, on `-j` threads, with a progress bar or plain lines, a summary, a JSON
//! report and a depfile. The work is `kiln::batch`'s; this is arguments and printing.

use std::collections::BTreeMap;
use std::io::{IsTerminal, Read};
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use clap::{Args, ValueEnum};
use kiln::batch::{
    self, BatchOptions, Events, Input, Job, Row, Status, TextureMode, WarningPolicy,
};
use kiln::load::InputFormat;
use kiln::pipeline::{ConvertOptions, write_atomically};
use kiln::{EncodeOptions, Layout, LoadOptions};
use serde_json::json;

use crate::LayoutArg;

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum FormatArg {
    /// FBX, binary or ASCII.
    Fbx,
    /// Wavefront OBJ.
    Obj,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum NameStyleArg {
    /// `hero_Armature_Walk Cycle.clip`, `Skin Diffuse.PNG` (the original tool's rule).
    Original,
    /// `hero_armature_walk cycle.clip`, `skin diffuse.png`.
    Lower,
    /// `hero_armature_walk_cycle.clip`, `skin_diffuse.png`.
    Snake,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum UnitArg {
    /// Millimetres.
    Mm,
    /// Centimetres.
    Cm,
    /// Metres.
    M,
    /// Inches.
    In,
    /// Feet.
    Ft,
}

/// `x`, `+y`, `-z`… as an axis.
fn parse_axis(s: &str) -> Result<kiln::load::Axis, String> {
    let (negative, name) = match s.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let index = match name.to_ascii_lowercase().as_str() {
        "x" => 0,
        "y" => 1,
        "z" => 2,
        _ => return Err(format!("expected x, y, z, -x, -y or -z, found '{s}'")),
    };
    Ok(kiln::load::Axis { index, negative })
}

#[derive(Clone, Copy, Debug, ValueEnum)]
pub enum TexturesArg {
    /// Copy each texture beside the outputs (one file per distinct content).
    Copy,
    /// Copy nothing; the materials name the source file, relative to the output folder.
    Reference,
    /// Copy nothing and look for nothing; the materials keep the bare file names.
    Skip,
}

#[derive(Args, Debug)]
pub struct ConvertArgs {
    /// Models to convert: .fbx and .obj files, folders (searched recursively), quoted globs
    /// ("models/**/*.fbx"), @LIST (a file naming one input per line), or - for standard input
    /// (with --format).
    #[arg(required = true, value_name = "INPUT")]
    inputs: Vec<String>,
    /// Output folder (created when missing). Each input's outputs go to the same path relative
    /// to it as the input has relative to --base.
    #[arg(short, long, default_value = ".", value_name = "DIR")]
    out: PathBuf,
    /// The folder input paths are mirrored from (default: the deepest folder holding every
    /// input, or each folder argument itself).
    #[arg(long, value_name = "DIR")]
    base: Option<PathBuf>,
    /// Byte layout of the .mesh and .clip files.
    #[arg(long, value_enum, default_value_t = LayoutArg::Kiln)]
    layout: LayoutArg,
    /// Kiln layout: compact normals, tangents (octahedral snorm16), UVs (unorm16) and weights
    /// (unorm8); positions stay f32.
    #[arg(long)]
    quantize: bool,
    /// Kiln layout: as --quantize, and positions unorm16 against the bounds.
    #[arg(long)]
    quantize_positions: bool,
    /// Static meshes: bake node transforms into the vertices; animations are dropped (with a
    /// warning).
    #[arg(long = "static")]
    pre_transform: bool,
    /// Resample every clip at this many frames per second (default: the animation's own ticks
    /// per second).
    #[arg(long, value_name = "FPS")]
    clip_rate: Option<f64>,
    /// Convert lengths to this unit from the one the file declares (FBX UnitScaleFactor; an
    /// FBX file without it is in centimetres; an OBJ declares none and is left as it is, with
    /// a warning).
    #[arg(long, value_enum, value_name = "UNIT")]
    units: Option<UnitArg>,
    /// Multiply every length by this factor (after --units).
    #[arg(long, value_name = "FACTOR")]
    scale: Option<f64>,
    /// Turn the scene so that the file's up axis becomes this axis (x, y, z, -x, -y, -z); the
    /// front axis turns with it unless --forward says where it goes.
    #[arg(long, value_name = "AXIS", value_parser = parse_axis)]
    up: Option<kiln::load::Axis>,
    /// Turn the scene so that the file's front axis becomes this axis.
    #[arg(long, value_name = "AXIS", value_parser = parse_axis)]
    forward: Option<kiln::load::Axis>,
    /// How clip and texture file names are spelt: as the model names them (only characters
    /// no file system takes replaced), in lower case, or lower-case snake_case.
    #[arg(long, value_enum, default_value_t = NameStyleArg::Original)]
    name_style: NameStyleArg,
    /// Only these animations become clips (by name; repeat or separate with commas).
    #[arg(long, value_name = "NAME", value_delimiter = ',', num_args = 1..)]
    clips: Option<Vec<String>>,
    /// What to do with the textures the materials use.
    #[arg(long, value_enum, default_value_t = TexturesArg::Copy)]
    textures: TexturesArg,
    /// Copy textures into this folder, relative to each output folder (the materials name
    /// them with it).
    #[arg(long, value_name = "DIR")]
    texture_dir: Option<String>,
    /// Every warning fails its input (nothing of it is written); --allow makes exceptions.
    #[arg(long)]
    strict: bool,
    /// Warnings with these codes fail their input (`obj.*` for all of a kind; docs/cli.md
    /// lists the codes).
    #[arg(long, value_name = "CODE", value_delimiter = ',', num_args = 1..)]
    deny: Vec<String>,
    /// Warnings with these codes never fail (wins over --strict and --deny).
    #[arg(long, value_name = "CODE", value_delimiter = ',', num_args = 1..)]
    allow: Vec<String>,
    /// Convert every input, even those whose manifest says their outputs are up to date.
    #[arg(long)]
    force: bool,
    /// Inputs converted at once, and threads within one (default: all cores).
    #[arg(short, long, value_name = "N")]
    jobs: Option<usize>,
    /// Write a depfile (Make syntax: outputs: every file read) for ninja, make or CMake.
    #[arg(long, value_name = "FILE")]
    depfile: Option<PathBuf>,
    /// Write a JSON report: one object per input (outputs, sizes, hashes, warnings, error, ms).
    #[arg(long, value_name = "FILE")]
    report: Option<PathBuf>,
    /// The format of standard input (`-`).
    #[arg(long, value_enum)]
    format: Option<FormatArg>,
    /// The outputs' name for standard input (`-`).
    #[arg(long, value_name = "NAME", default_value = "stdin")]
    name: String,
    /// Print errors only.
    #[arg(short, long, conflicts_with = "verbose")]
    quiet: bool,
    /// Also print each file written, removed or up to date.
    #[arg(short, long)]
    verbose: bool,
}

/// A usage error: one line and exit status 2.
fn usage(msg: impl std::fmt::Display) -> ExitCode {
    crate::output::err(format_args!("kiln: error: {msg}"));
    ExitCode::from(2)
}

impl ConvertArgs {
    fn options(&self) -> Result<BatchOptions, String> {
        let layout = match self.layout {
            LayoutArg::Kiln => Layout::Kiln,
            LayoutArg::Classic => Layout::Classic,
        };
        if layout == Layout::Classic && (self.quantize || self.quantize_positions) {
            return Err("--quantize and --quantize-positions need --layout kiln (the classic layout has no compact streams)".into());
        }
        if let Some(rate) = self.clip_rate {
            if !(rate.is_finite() && rate > 0.0) {
                return Err(format!(
                    "--clip-rate {rate}: expected a positive number of frames per second"
                ));
            }
        }
        if let Some(f) = self.scale {
            if !(f.is_finite() && f > 0.0) {
                return Err(format!("--scale {f}: expected a positive number"));
            }
        }
        if let (Some(u), Some(f)) = (self.up, self.forward) {
            if u.index == f.index {
                return Err("--up and --forward must be perpendicular axes".into());
            }
        }
        if self.pre_transform && self.clips.is_some() {
            return Err("--clips with --static: a static conversion writes no clips".into());
        }
        if self.texture_dir.is_some() && !matches!(self.textures, TexturesArg::Copy) {
            return Err("--texture-dir needs --textures copy".into());
        }
        if let Some(d) = &self.texture_dir {
            if d.is_empty() || d.starts_with('/') || d.split(['/', '\\']).any(|c| c == "..") {
                return Err(format!(
                    "--texture-dir {d}: expected a folder inside the output folder"
                ));
            }
        }
        let stdin = self.inputs.iter().filter(|i| *i == "-").count();
        if stdin > 1 {
            return Err("- (standard input) given twice".into());
        }
        if stdin == 1 && self.format.is_none() {
            return Err("- (standard input) needs --format fbx|obj".into());
        }
        if stdin == 0 && self.format.is_some() {
            return Err(
                "--format is for standard input (-) only; files are known by their extension"
                    .into(),
            );
        }
        if self.jobs == Some(0) {
            return Err("--jobs 0: expected at least 1".into());
        }
        Ok(BatchOptions {
            convert: ConvertOptions {
                load: LoadOptions {
                    pre_transform: self.pre_transform,
                    clip_frame_rate: self.clip_rate,
                    units: self.units.map(|u| match u {
                        UnitArg::Mm => kiln::load::Unit::Millimetre,
                        UnitArg::Cm => kiln::load::Unit::Centimetre,
                        UnitArg::M => kiln::load::Unit::Metre,
                        UnitArg::In => kiln::load::Unit::Inch,
                        UnitArg::Ft => kiln::load::Unit::Foot,
                    }),
                    scale: self.scale,
                    up: self.up,
                    forward: self.forward,
                    name_style: match self.name_style {
                        NameStyleArg::Original => kiln::load::NameStyle::Original,
                        NameStyleArg::Lower => kiln::load::NameStyle::Lower,
                        NameStyleArg::Snake => kiln::load::NameStyle::Snake,
                    },
                },
                encode: EncodeOptions {
                    layout,
                    quantize: match (self.quantize, self.quantize_positions) {
                        (_, true) => kiln::format::kiln::Quantize::AttributesAndPositions,
                        (true, false) => kiln::format::kiln::Quantize::Attributes,
                        (false, false) => kiln::format::kiln::Quantize::None,
                    },
                },
            },
            out: self.out.clone(),
            force: self.force,
            jobs: self.jobs.unwrap_or(0),
            textures: match self.textures {
                TexturesArg::Copy => TextureMode::Copy,
                TexturesArg::Reference => TextureMode::Reference,
                TexturesArg::Skip => TextureMode::Skip,
            },
            texture_dir: self.texture_dir.clone(),
            clips: self.clips.clone(),
            policy: WarningPolicy {
                deny_all: self.strict,
                deny: self.deny.clone(),
                allow: self.allow.clone(),
            },
        })
    }
}

/// How much is printed.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Verbosity {
    Quiet,
    Normal,
    Verbose,
}

/// Prints rows as they finish: plain lines, or a progress bar on a terminal.
struct Printer {
    verbosity: Verbosity,
    bar: Option<indicatif::ProgressBar>,
    done_bytes: AtomicU64,
}

impl Printer {
    /// Prints a line above the bar (or plainly).
    fn line(&self, to_stderr: bool, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| write_line(to_stderr, text)),
            None => write_line(to_stderr, text),
        }
    }
}

fn write_line(to_stderr: bool, text: &str) {
    if to_stderr {
        crate::output::err(format_args!("{text}"));
    } else {
        crate::output::out(format_args!("{text}\n"));
    }
}

impl Events for Printer {
    fn started(&self, job: &Job) {
        if let Some(bar) = &self.bar {
            bar.set_message(job.input.display());
        }
    }

    fn finished(&self, row: &Row) {
        if let Some(bar) = &self.bar {
            let bytes = self
                .done_bytes
                .fetch_add(row.input_bytes, Ordering::Relaxed)
                + row.input_bytes;
            let secs = bar.elapsed().as_secs_f64().max(1e-3);
            bar.set_prefix(format!("{:.1} MB/s", bytes as f64 / 1e6 / secs));
            bar.inc(1);
        }
        for w in &row.warnings {
            if self.verbosity != Verbosity::Quiet {
                self.line(
                    true,
                    &format!("kiln: warning: {}: {w} [{}]", row.input, w.code),
                );
            }
        }
        match &row.status {
            Status::Failed(e) => self.line(true, &format!("kiln: error: {e}")),
            Status::Converted if self.verbosity != Verbosity::Quiet => {
                if let Some(s) = &row.summary {
                    self.line(false, &format!("{}: {s}", row.input));
                }
            }
            Status::UpToDate if self.verbosity == Verbosity::Verbose => {
                self.line(false, &format!("{}: up to date", row.input));
            }
            _ => {}
        }
        if self.verbosity == Verbosity::Verbose {
            if !matches!(row.status, Status::UpToDate) {
                for (p, o) in &row.outputs {
                    self.line(
                        false,
                        &format!("  wrote {} ({} bytes)", p.display(), o.size),
                    );
                }
            }
            for p in &row.removed {
                self.line(false, &format!("  removed {}", p.display()));
            }
        }
    }
}

pub fn run(args: ConvertArgs) -> ExitCode {
    let options = match args.options() {
        Ok(o) => o,
        Err(msg) => return usage(msg),
    };
    let start = Instant::now();
    let files: Vec<String> = args.inputs.iter().filter(|i| *i != "-").cloned().collect();
    let found = match batch::expand(&files) {
        Ok(f) => f,
        Err(e) => return usage(e),
    };
    let stdin = match args.format {
        Some(format) => {
            let mut bytes = Vec::new();
            if let Err(e) = std::io::stdin().lock().read_to_end(&mut bytes) {
                crate::output::err(format_args!(
                    "kiln: error: -: cannot read standard input: {e}"
                ));
                return ExitCode::FAILURE;
            }
            Some(Input::Stdin {
                bytes,
                format: match format {
                    FormatArg::Fbx => InputFormat::Fbx,
                    FormatArg::Obj => InputFormat::Obj,
                },
                name: args.name.clone(),
            })
        }
        None => None,
    };
    let jobs = match batch::plan(found, stdin, args.base.as_deref()) {
        Ok(j) => j,
        Err(e) => return usage(e),
    };
    if jobs.is_empty() {
        return usage("no .fbx or .obj file among the inputs");
    }
    batch::set_threads(options.jobs);
    let verbosity = if args.quiet {
        Verbosity::Quiet
    } else if args.verbose {
        Verbosity::Verbose
    } else {
        Verbosity::Normal
    };
    let bar = (verbosity != Verbosity::Quiet && std::io::stderr().is_terminal() && jobs.len() > 1)
        .then(|| {
            let bar = indicatif::ProgressBar::new(jobs.len() as u64);
            bar.set_style(
                indicatif::ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} files  {prefix}  ETA {eta}  {wide_msg}",
                )
                .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
            );
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
    let printer = Printer {
        verbosity,
        bar,
        done_bytes: AtomicU64::new(0),
    };
    let rows = batch::run(&jobs, &options, &printer);
    if let Some(bar) = &printer.bar {
        bar.finish_and_clear();
    }
    let wall = start.elapsed().as_secs_f64();

    let totals = Totals::of(&rows, wall);
    let Totals {
        converted,
        up_to_date,
        failed,
        input_bytes,
        ..
    } = totals;
    let warnings = &totals.warnings;
    let mut code = if failed > 0 {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    };
    let write_file = |path: &std::path::Path, bytes: &[u8]| {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent)?;
        }
        write_atomically(path, bytes)
    };
    if let Some(path) = &args.depfile {
        if let Err(e) = write_file(path, batch::depfile(&rows).as_bytes()) {
            crate::output::err(format_args!(
                "kiln: error: {}: cannot write: {e}",
                path.display()
            ));
            code = ExitCode::FAILURE;
        }
    }
    if let Some(path) = &args.report {
        let report = report_json(&rows, &totals);
        let mut bytes = serde_json::to_vec_pretty(&report).unwrap_or_default();
        bytes.push(b'\n');
        if let Err(e) = write_file(path, &bytes) {
            crate::output::err(format_args!(
                "kiln: error: {}: cannot write: {e}",
                path.display()
            ));
            code = ExitCode::FAILURE;
        }
    }
    if verbosity != Verbosity::Quiet
        && (rows.len() > 1 || failed > 0 || verbosity == Verbosity::Verbose)
    {
        let total: usize = warnings.values().sum();
        let by_code = if warnings.is_empty() {
            String::new()
        } else {
            let list: Vec<String> = warnings.iter().map(|(c, n)| format!("{c} {n}")).collect();
            format!(" ({})", list.join(", "))
        };
        crate::output::err(format_args!(
            "kiln: {} files: {converted} converted, {up_to_date} up to date, {failed} failed; {total} warnings{by_code}; {:.1} MB in {:.2} s ({:.1} MB/s)",
            rows.len(),
            input_bytes as f64 / 1e6,
            wall,
            input_bytes as f64 / 1e6 / wall.max(1e-9),
        ));
    }
    code
}

/// `--report`: one object per input, in input order, and the totals.
/// What the summary line and the report's `summary` say: the rows counted once.
struct Totals {
    converted: usize,
    up_to_date: usize,
    failed: usize,
    input_bytes: u64,
    warnings: BTreeMap<String, usize>,
    seconds: f64,
}

impl Totals {
    fn of(rows: &[Row], seconds: f64) -> Totals {
        let mut t = Totals {
            converted: 0,
            up_to_date: 0,
            failed: 0,
            input_bytes: 0,
            warnings: BTreeMap::new(),
            seconds,
        };
        for r in rows {
            match r.status {
                Status::Converted => t.converted += 1,
                Status::UpToDate => t.up_to_date += 1,
                Status::Failed(_) => t.failed += 1,
            }
            for (code, n) in &r.warning_counts {
                *t.warnings.entry(code.clone()).or_default() += n;
            }
            t.input_bytes += r.input_bytes;
        }
        t
    }
}

fn report_json(rows: &[Row], totals: &Totals) -> serde_json::Value {
    let inputs: Vec<serde_json::Value> = rows
        .iter()
        .map(|r| {
            let (status, error) = match &r.status {
                Status::Converted => ("converted", None),
                Status::UpToDate => ("up-to-date", None),
                Status::Failed(e) => ("failed", Some(e.to_string())),
            };
            json!({
                "input": r.input,
                "status": status,
                "error": error,
                "input_bytes": r.input_bytes,
                "ms": (r.milliseconds * 1000.0).round() / 1000.0,
                "outputs": r.outputs.iter().map(|(p, o)| json!({
                    "path": p.display().to_string(),
                    "kind": o.kind,
                    "size": o.size,
                    "xxh3": o.xxh3,
                })).collect::<Vec<_>>(),
                "manifest": r.manifest.as_ref().map(|p| p.display().to_string()),
                "removed": r.removed.iter().map(|p| p.display().to_string()).collect::<Vec<_>>(),
                "counts": r.summary.as_ref().map(|s| json!({
                    "bones": s.bones,
                    "parts": s.parts,
                    "vertices": s.vertices,
                    "triangles": s.triangles,
                    "materials": s.materials,
                    "clips": s.clips,
                })),
                "warning_counts": r.warning_counts,
                "warnings": r.warnings.iter().map(|w| json!({
                    "code": w.code,
                    "message": w.message,
                    "at": w.location,
                })).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "kiln": env!("CARGO_PKG_VERSION"),
        "report": 1,
        "summary": {
            "inputs": rows.len(),
            "converted": totals.converted,
            "up_to_date": totals.up_to_date,
            "failed": totals.failed,
            "input_bytes": totals.input_bytes,
            "seconds": totals.seconds,
        },
        "inputs": inputs,
    })
}

/// `kiln convert FILE -o OUT` with every other option at its default (`kiln demo`).
pub fn convert_defaults(file: &std::path::Path, out: &std::path::Path) -> ExitCode {
    #[derive(clap::Parser)]
    struct Defaults {
        #[command(flatten)]
        args: ConvertArgs,
    }
    let parsed = <Defaults as clap::Parser>::parse_from([
        std::ffi::OsStr::new("convert"),
        std::ffi::OsStr::new("-o"),
        out.as_os_str(),
        std::ffi::OsStr::new("--"),
        file.as_os_str(),
    ]);
    run(parsed.args)
}
