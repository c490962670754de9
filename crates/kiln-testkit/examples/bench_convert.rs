//! The whole-conversion benchmark (issue 12): for generated export-like models
//! (`fixtures::export_like`) of several sizes, times as whole processes, alternating, in the
//! same run:
//!
//! - `kiln convert MODEL -o OUT --layout classic` and `kiln convert MODEL -o OUT` (bytes in →
//!   files on disk),
//! - ufbx's bare `load_memory` of the same file (`examples/ufbx_load.rs` of the kiln crate),
//! - `assimp dump MODEL out.assbin -b --left-handed -tri -guv --gen-normals -cts` (Assimp
//!   5.2.5 with the original tool's flags),
//!
//! and prints a Markdown table of medians (wall time and peak memory from `wait4`), the paired
//! ratios, and the targets. Every process runs under a memory and CPU-time limit.
//!
//! `scripts/bench-convert` builds the binaries and runs this; by hand:
//! `bench_convert --kiln target/release/kiln --ufbx target/release/examples/ufbx_load
//! [--assimp assimp] [--sizes 50000,200000,400000,800000,3200000] [--runs 5] [--dir DIR]
//! [--model FILE.fbx ...]`. `--model` (repeatable) times a model of one's own, a real export,
//! the same way (its row is labelled with the file's name); with `--model` and no `--sizes`
//! only the given files are timed. `--settle SECONDS` (default 0) is an untimed rest after
//! each run. `--assimp-max TRIANGLES` skips Assimp on the generated
//! sizes above it; a given file's triangles are not known beforehand, so Assimp always runs
//! on it (`--no-assimp` leaves it out everywhere).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use kiln_testkit::fixtures::export_like::{ExportSpec, export_like_fbx};

struct Args {
    /// Given models, timed after the generated ones.
    models: Vec<PathBuf>,
    kiln: PathBuf,
    ufbx: PathBuf,
    assimp: Option<String>,
    sizes: Vec<usize>,
    runs: usize,
    dir: PathBuf,
    assimp_max: usize,
    /// Seconds of rest, untimed, after each timed run.
    settle: f64,
}

fn parse_args() -> Result<Args, String> {
    let mut a = Args {
        models: Vec::new(),
        kiln: PathBuf::from("target/release/kiln"),
        ufbx: PathBuf::from("target/release/examples/ufbx_load"),
        assimp: Some("assimp".into()),
        sizes: vec![50_000, 200_000, 400_000, 800_000, 3_200_000],
        runs: 5,
        dir: std::env::temp_dir().join("kiln-bench-convert"),
        assimp_max: usize::MAX,
        settle: 0.0,
    };
    let mut it = std::env::args().skip(1);
    let mut sizes_given = false;
    while let Some(flag) = it.next() {
        let mut value = || it.next().ok_or(format!("{flag} needs a value"));
        match flag.as_str() {
            "--kiln" => a.kiln = value()?.into(),
            "--ufbx" => a.ufbx = value()?.into(),
            "--assimp" => a.assimp = Some(value()?),
            "--no-assimp" => a.assimp = None,
            "--assimp-max" => a.assimp_max = value()?.parse().map_err(|e| format!("{e}"))?,
            "--runs" => a.runs = value()?.parse().map_err(|e| format!("--runs: {e}"))?,
            "--dir" => a.dir = value()?.into(),
            "--settle" => a.settle = value()?.parse().map_err(|e| format!("--settle: {e}"))?,
            "--model" => a.models.push(value()?.into()),
            "--sizes" => {
                sizes_given = true;
                a.sizes = value()?
                    .split(',')
                    .map(|s| s.trim().parse().map_err(|e| format!("--sizes: {s}: {e}")))
                    .collect::<Result<_, _>>()?
            }
            other => return Err(format!("unknown argument {other}")),
        }
    }
    if !a.models.is_empty() && !sizes_given {
        a.sizes.clear();
    }
    Ok(a)
}

/// What one row times: a generated model of this many triangles, or a given file.
enum Input {
    Generated(usize),
    File(PathBuf),
}

/// One run of one command: wall seconds and peak resident memory in bytes.
struct Sample {
    wall: f64,
    peak: u64,
}

/// Spawns `cmd` under limits (16 GiB address space, 600 s CPU) and waits for it with `wait4`,
/// which gives the child's own peak resident set.
fn run(cmd: &mut Command) -> Result<Sample, String> {
    use std::os::unix::process::CommandExt;
    cmd.stdout(Stdio::null()).stderr(Stdio::piped());
    // SAFETY: only async-signal-safe setrlimit calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            let set = |res, v: u64| {
                let lim = libc::rlimit {
                    rlim_cur: v as libc::rlim_t,
                    rlim_max: v as libc::rlim_t,
                };
                libc::setrlimit(res, &lim)
            };
            set(libc::RLIMIT_AS, 16 << 30);
            set(libc::RLIMIT_CPU, 600);
            Ok(())
        });
    }
    let start = Instant::now();
    let child = cmd.spawn().map_err(|e| format!("{cmd:?}: {e}"))?;
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid; wait4 fills it for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our child, not yet waited for; the pointers are valid.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    let wall = start.elapsed().as_secs_f64();
    if r != pid {
        return Err(format!("{cmd:?}: wait4 failed"));
    }
    if !(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0) {
        let mut err = String::new();
        if let Some(mut e) = child.stderr {
            use std::io::Read;
            let _ = e.read_to_string(&mut err);
        }
        return Err(format!("{cmd:?}: failed ({status}): {err}"));
    }
    Ok(Sample {
        wall,
        peak: usage.ru_maxrss as u64 * 1024,
    })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n == 0 {
        f64::NAN
    } else if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(|e| e.ok()?.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

fn main() {
    // The generated models are written by a process of their own (this program again), so
    // that this one stays small: a child forked from a large parent starts with the parent's
    // resident set as its peak (`wait4`'s `ru_maxrss`, which exec keeps), and the smaller
    // rows would report the generator's memory instead of their own.
    let raw: Vec<String> = std::env::args().skip(1).collect();
    if let [flag, out, size] = &raw[..]
        && flag == "--write-model"
    {
        let Ok(size) = size.parse() else {
            eprintln!("bench_convert --write-model OUT TRIANGLES: bad count '{size}'");
            std::process::exit(2);
        };
        let (bytes, triangles) = export_like_fbx(ExportSpec::triangles(size));
        if let Err(e) = std::fs::write(out, &bytes) {
            eprintln!("{out}: {e}");
            std::process::exit(1);
        }
        println!("{triangles}");
        return;
    }
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("bench_convert: {e}");
            std::process::exit(2);
        }
    };
    if let Err(e) = bench(&args) {
        eprintln!("bench_convert: {e}");
        std::process::exit(1);
    }
}

fn bench(args: &Args) -> Result<(), String> {
    std::fs::create_dir_all(&args.dir).map_err(|e| format!("{}: {e}", args.dir.display()))?;
    println!(
        "| triangles (or file) | input MB | command | wall median (s) | peak memory median (MB) | output MB |"
    );
    println!("|---:|---:|---|---:|---:|---:|");
    let mut summary = Vec::new();
    let inputs = args
        .sizes
        .iter()
        .map(|&s| Input::Generated(s))
        .chain(args.models.iter().map(|m| Input::File(m.clone())));
    for (row, input) in inputs.enumerate() {
        // The model, its label (the triangle count, or the file's name) and its size.
        let (model, label, triangles, input) = match input {
            Input::Generated(size) => {
                let model = args.dir.join(format!("export_like_{size}.fbx"));
                let exe = std::env::current_exe().map_err(|e| format!("this program: {e}"))?;
                let made = Command::new(exe)
                    .arg("--write-model")
                    .arg(&model)
                    .arg(size.to_string())
                    .output()
                    .map_err(|e| format!("--write-model: {e}"))?;
                let triangles: usize = String::from_utf8_lossy(&made.stdout)
                    .trim()
                    .parse()
                    .map_err(|_| {
                        format!(
                            "--write-model {}: {}",
                            model.display(),
                            String::from_utf8_lossy(&made.stderr)
                        )
                    })?;
                let bytes_len = std::fs::metadata(&model)
                    .map_err(|e| format!("{}: {e}", model.display()))?
                    .len();
                for m in 0..4 {
                    // Small stand-ins for the textures the materials name, so kiln copies them.
                    let _ = std::fs::write(args.dir.join(format!("material{m}.png")), [0u8; 64]);
                }
                (model, triangles.to_string(), triangles, bytes_len)
            }
            Input::File(path) => {
                let len = std::fs::metadata(&path)
                    .map_err(|e| format!("{}: {e}", path.display()))?
                    .len();
                let label = path.file_name().map_or_else(
                    || path.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                (path, label, 0, len)
            }
        };
        let out_classic = args.dir.join(format!("out_classic_{row}"));
        let out_kiln = args.dir.join(format!("out_kiln_{row}"));
        let assbin = args.dir.join(format!("assimp_{row}.assbin"));
        // The output columns are what this model's conversion wrote: nothing of an earlier
        // call's (another model's) may stay in the folders.
        for d in [&out_classic, &out_kiln] {
            let _ = std::fs::remove_dir_all(d);
        }
        let m = model.to_str().ok_or("path is not UTF-8")?.to_string();
        let mut names: Vec<&str> = vec!["kiln classic", "kiln kiln", "ufbx load_memory"];
        let with_assimp = args.assimp.is_some() && triangles <= args.assimp_max;
        if with_assimp {
            names.push("assimp dump -b");
        }
        let make = |which: &str| -> Command {
            match which {
                "kiln classic" => {
                    let mut c = Command::new(&args.kiln);
                    // --force: every run converts (the outputs of the last run are up to date).
                    c.args(["convert", &m, "--force", "-o"])
                        .arg(&out_classic)
                        .args(["--layout", "classic"]);
                    c
                }
                "kiln kiln" => {
                    let mut c = Command::new(&args.kiln);
                    c.args(["convert", &m, "--force", "-o"]).arg(&out_kiln);
                    c
                }
                "ufbx load_memory" => {
                    let mut c = Command::new(&args.ufbx);
                    c.arg(&m);
                    c
                }
                _ => {
                    let mut c = Command::new(args.assimp.as_deref().unwrap_or("assimp"));
                    c.args(["dump", &m]).arg(&assbin).args([
                        "-b",
                        "--left-handed",
                        "-tri",
                        "-guv",
                        "--gen-normals",
                        "-cts",
                    ]);
                    c
                }
            }
        };
        let mut samples: Vec<Vec<Sample>> = names.iter().map(|_| Vec::new()).collect();
        // One warm-up round (page cache), then alternating rounds, each starting one
        // command later than the one before and every other one in the reverse order, so
        // that no command always runs right after the same one (a rotation alone keeps the
        // cyclic order: the classic conversion followed Assimp in every round, right after
        // the 0.3-2 GB Assimp had just freed and the output it had just written). `--settle`
        // rests after each run; on this virtual machine a rest makes every run slower (the
        // kernel hands freed memory back to the host meanwhile, and the next process faults
        // it back in), so it is off unless asked for.
        let settle = std::time::Duration::from_secs_f64(args.settle);
        for name in &names {
            run(&mut make(name))?;
            std::thread::sleep(settle);
        }
        for r in 0..args.runs {
            for k in 0..names.len() {
                let k = if r % 2 == 1 { names.len() - 1 - k } else { k };
                let i = (k + r / 2) % names.len();
                samples[i].push(run(&mut make(names[i]))?);
                std::thread::sleep(settle);
            }
        }
        let outputs = [dir_bytes(&out_classic), dir_bytes(&out_kiln), 0, 0];
        let med = |i: usize| median(samples[i].iter().map(|s| s.wall).collect());
        let peak = |i: usize| median(samples[i].iter().map(|s| s.peak as f64).collect());
        for (i, name) in names.iter().enumerate() {
            println!(
                "| {label} | {:.1} | {name} | {:.3} | {:.0} | {} |",
                input as f64 / 1e6,
                med(i),
                peak(i) / 1e6,
                if outputs[i] > 0 {
                    format!("{:.1}", outputs[i] as f64 / 1e6)
                } else {
                    "–".into()
                },
            );
        }
        // Paired ratios: run r of one command against run r of the other.
        let paired = |a: usize, b: usize| {
            median(
                samples[a]
                    .iter()
                    .zip(&samples[b])
                    .map(|(x, y)| x.wall / y.wall)
                    .collect(),
            )
        };
        for (k, layout) in [(0usize, "classic"), (1, "kiln")] {
            summary.push(format!(
                "| {label} | {layout} | {:.2} | {} | {:.0} / {:.0} |",
                paired(k, 2),
                if with_assimp {
                    format!("{:.1}", paired(3, k))
                } else {
                    "–".into()
                },
                peak(k) / 1e6,
                2.0 * (input + outputs[k]) as f64 / 1e6,
            ));
        }
        let _ = std::fs::remove_file(&assbin);
    }
    println!();
    println!(
        "| triangles (or file) | layout | kiln / ufbx wall (target ≤ 1) | assimp / kiln wall (target ≥ 10) | kiln peak MB / 2 × (in + out) MB (target ≤ 1) |"
    );
    println!("|---:|---|---:|---:|---:|");
    for line in summary {
        println!("{line}");
    }
    Ok(())
}
