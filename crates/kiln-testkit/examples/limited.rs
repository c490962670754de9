//! Runs one command the way the tests run their peers, under `kiln_testkit::process` limits,
//! and says how it ended:
//! `cargo run -p kiln-testkit --example limited -- [--memory-mib N] [--seconds N] PROGRAM ARGS…`
//! (default: the limits for `assimp`, 2 GiB and 120 s). For checking a limit by hand, e.g.
//! `assimp dump /usr/share/assimp/models/invalid/OutOfMemory.off /tmp/oom.assbin -b`.

use std::process::{Command, ExitCode};

use kiln_testkit::process::{Limits, RunError, run_limited};

fn main() -> ExitCode {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut limits = Limits::ASSIMP;
    while args.len() >= 2 && args[0].starts_with("--") {
        let value: u64 = match args[1].parse() {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{} {}: {e}", args[0], args[1]);
                return ExitCode::from(2);
            }
        };
        match args[0].as_str() {
            "--memory-mib" => limits.memory_bytes = value << 20,
            "--seconds" => limits.seconds = value,
            other => {
                eprintln!("unknown option {other}");
                return ExitCode::from(2);
            }
        }
        args.drain(..2);
    }
    let Some((program, rest)) = args.split_first() else {
        eprintln!("usage: limited [--memory-mib N] [--seconds N] PROGRAM ARGS…");
        return ExitCode::from(2);
    };
    let mut cmd = Command::new(program);
    cmd.args(rest);
    let started = std::time::Instant::now();
    let result = run_limited(&mut cmd, limits);
    let took = started.elapsed().as_secs_f64();
    match result {
        Ok(out) => {
            println!("finished: {} after {took:.2} s", out.status);
            ExitCode::SUCCESS
        }
        Err(e @ RunError::LimitExceeded { .. }) => {
            println!("{e} after {took:.2} s");
            if let RunError::LimitExceeded { output, .. } = &e {
                print!("{}", String::from_utf8_lossy(&output.stdout));
                eprint!("{}", String::from_utf8_lossy(&output.stderr));
            }
            ExitCode::from(1)
        }
        Err(e) => {
            eprintln!("{e}");
            ExitCode::from(2)
        }
    }
}
