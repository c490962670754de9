//! Every process a test starts (`assimp`, `cc`, the compiled C reader, the `kiln` binary) runs
//! through [`run_limited`]: under an address-space limit and a CPU-time limit (`setrlimit` in
//! the child before `exec`, inherited by whatever it starts in turn) and a wall-clock deadline
//! after which it is killed. A process that exceeds a limit ends as [`RunError::LimitExceeded`],
//! a result the caller records ("peer failed"), never as memory or time taken from the rest of
//! the machine.
//!
//! Linux only (the workspace's tests run there): `RLIMIT_AS` bounds what the child can map, so
//! an allocation beyond it fails inside the child (C++ throws `std::bad_alloc`, C's `malloc`
//! returns null) instead of the kernel's OOM killer ending it, or something else, later.

use std::fmt;
use std::io::{Read, Write};
use std::os::unix::process::{CommandExt, ExitStatusExt};
use std::process::{Command, ExitStatus, Output, Stdio};
use std::time::{Duration, Instant};

/// The most a started process may take.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Address space (`RLIMIT_AS`), in bytes: everything the process maps, not only what it
    /// touches, so leave room for shared libraries and thread stacks.
    pub memory_bytes: u64,
    /// Wall-clock seconds before the process is killed; also its CPU-time limit
    /// (`RLIMIT_CPU`, `SIGXCPU` at this many seconds of CPU, `SIGKILL` a few seconds later).
    pub seconds: u64,
}

const GIB: u64 = 1 << 30;

impl Limits {
    /// For `assimp`: 2 GiB and 120 s. The largest corpus dump needs a few hundred MiB; the
    /// corpus's `invalid/OutOfMemory.off` asks for far more and fails at once under it.
    pub const ASSIMP: Limits = Limits {
        memory_bytes: 2 * GIB,
        seconds: 120,
    };
    /// For the C compiler (`cc` and the `cc1`/`as`/`ld` it starts): 1 GiB and 120 s.
    pub const CC: Limits = Limits {
        memory_bytes: GIB,
        seconds: 120,
    };
    /// For programs the tests compile from C (the `include/kiln.h` reader): 1 GiB and 120 s.
    pub const C_PROGRAM: Limits = Limits {
        memory_bytes: GIB,
        seconds: 120,
    };
    /// For Bazel (`bazel --batch`, a JVM started with `-Xmx1g`, and the `kiln` it runs): 8 GiB
    /// of address space (a JVM maps far more than its heap) and 300 s.
    pub const BAZEL: Limits = Limits {
        memory_bytes: 8 * GIB,
        seconds: 300,
    };
    /// For the `kiln` binary under test: 4 GiB and 300 s (its tests, `verify` and `preview`
    /// on Mesa's lavapipe included, pass under 2 GiB of address space).
    pub const KILN: Limits = Limits {
        memory_bytes: 4 * GIB,
        seconds: 300,
    };
}

/// Which limit a process ran into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Exceeded {
    /// It could not allocate under the address-space limit (its output says so: `bad_alloc`,
    /// `out of memory`, `memory exhausted`, `Cannot allocate memory`, or Rust's `memory
    /// allocation of … failed`).
    Memory,
    /// It ran past the wall-clock deadline (and was killed), or was stopped by the CPU-time
    /// limit (`SIGXCPU`, or `SIGKILL` when it ignored that).
    Time,
}

impl fmt::Display for Exceeded {
    /// `memory limit` or `time limit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Exceeded::Memory => "memory limit",
            Exceeded::Time => "time limit",
        })
    }
}

/// Why [`run_limited`] gives no ordinary [`Output`].
#[derive(Debug)]
pub enum RunError {
    /// The process could not be started (the program is missing, say).
    Spawn(std::io::Error),
    /// The process ran into a limit: the peer failed. `output` is what it wrote until then
    /// (its status is the signal or exit code it ended with).
    LimitExceeded {
        /// Which limit.
        exceeded: Exceeded,
        /// The limits it ran under.
        limits: Limits,
        /// Its output and status.
        output: Output,
    },
}

impl fmt::Display for RunError {
    /// `cannot start: …`, or `peer failed: memory limit` / `peer failed: time limit`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Spawn(e) => write!(f, "cannot start: {e}"),
            RunError::LimitExceeded { exceeded, .. } => write!(f, "peer failed: {exceeded}"),
        }
    }
}

impl std::error::Error for RunError {}

/// Runs `cmd` to the end under `limits` with stdin closed (no input), capturing stdout and
/// stderr. `Ok` whatever its exit status, when no limit was hit. Limits above the ones this
/// process already runs under are lowered to those (a child cannot raise them).
pub fn run_limited(cmd: &mut Command, limits: Limits) -> Result<Output, RunError> {
    run_limited_with_stdin(cmd, None, limits)
}

/// Runs a C compiler command line (`cc …`) under [`Limits::CC`], for tests that build a C
/// program: panics, with the compiler's messages, when it cannot be started or fails.
pub fn compile_c(cc: &mut Command) {
    let out = run_limited(cc, Limits::CC)
        .unwrap_or_else(|e| panic!("the system C compiler `cc` is needed for this test: {e}"));
    assert!(
        out.status.success(),
        "cc failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// [`run_limited`], writing `stdin` to the process's standard input (then closing it) when
/// given.
pub fn run_limited_with_stdin(
    cmd: &mut Command,
    stdin: Option<&[u8]>,
    limits: Limits,
) -> Result<Output, RunError> {
    let (memory, cpu) = (limits.memory_bytes, limits.seconds);
    let memory = within_current(libc::RLIMIT_AS, memory, memory);
    let cpu = within_current(libc::RLIMIT_CPU, cpu, cpu.saturating_add(5));
    cmd.stdin(if stdin.is_some() {
        Stdio::piped()
    } else {
        Stdio::null()
    })
    .stdout(Stdio::piped())
    .stderr(Stdio::piped())
    // Its own process group, so that the deadline ends what it started too (`cc` runs `cc1`,
    // `as` and `ld`), which would otherwise hold the output pipes open.
    .process_group(0);
    // SAFETY: the closure runs in the child between fork and exec, where only
    // async-signal-safe functions may be called; it makes three plain system calls
    // (`setrlimit` twice, `prctl`) and reads `errno` on failure, and neither allocates nor
    // takes locks.
    unsafe {
        cmd.pre_exec(move || {
            set_limit(libc::RLIMIT_AS, &memory)?;
            set_limit(libc::RLIMIT_CPU, &cpu)?;
            // Killed with the test binary (an interrupted `cargo test`), not left running.
            if libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let started = Instant::now();
    let mut child = cmd.spawn().map_err(RunError::Spawn)?;
    let writer = match (stdin, child.stdin.take()) {
        (Some(bytes), Some(mut pipe)) => {
            let bytes = bytes.to_vec();
            // A child that exits without reading makes the write fail; that is its business.
            Some(std::thread::spawn(move || drop(pipe.write_all(&bytes))))
        }
        _ => None,
    };
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    let deadline = started + Duration::from_secs(limits.seconds);
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(5)),
            // Past the deadline, or the status cannot be read: kill it and collect it.
            Ok(None) | Err(_) => {
                timed_out = true;
                kill_group(child.id());
                let _ = child.kill();
                match child.wait() {
                    Ok(status) => break status,
                    Err(_) => break ExitStatus::from_raw(libc::SIGKILL),
                }
            }
        }
    };
    // The child has ended, but what it started may still hold the pipes open (a process left
    // in the background): wait for that until the deadline, then end its process group too,
    // rather than block on the pipes without end. (One that left the group, by `setsid`, can
    // still hold them.)
    let pending = || {
        !stdout.is_finished()
            || !stderr.is_finished()
            || writer.as_ref().is_some_and(|w| !w.is_finished())
    };
    if !timed_out {
        while pending() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if pending() {
            timed_out = true;
            kill_group(child.id());
        }
    }
    if let Some(w) = writer {
        let _ = w.join();
    }
    let output = Output {
        status,
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    };
    match exceeded(timed_out, &output) {
        Some(exceeded) => Err(RunError::LimitExceeded {
            exceeded,
            limits,
            output,
        }),
        None => Ok(output),
    }
}

/// Sends `SIGKILL` to the process group `pid` leads (made by `process_group(0)` in
/// [`run_limited_with_stdin`]): the child and whatever it started.
fn kill_group(pid: u32) {
    if let Ok(pid) = libc::pid_t::try_from(pid) {
        // SAFETY: `kill` is a plain system call; `-pid` names the child's own process group,
        // which holds nothing else.
        unsafe { libc::kill(-pid, libc::SIGKILL) };
    }
}

/// Reads `pipe` to its end on a thread of its own (so that a child filling one pipe never
/// blocks on the other).
fn drain<R: Read + Send + 'static>(pipe: Option<R>) -> std::thread::JoinHandle<Vec<u8>> {
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        if let Some(mut p) = pipe {
            let _ = p.read_to_end(&mut buf);
        }
        buf
    })
}

/// The limit `soft`/`hard` for `resource`, lowered to this process's hard limit where that is
/// lower already (a child may not raise it: the limit the test runs under wins).
fn within_current(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> libc::rlimit {
    let mut current = libc::rlimit {
        rlim_cur: libc::RLIM_INFINITY,
        rlim_max: libc::RLIM_INFINITY,
    };
    // SAFETY: `current` is a valid `rlimit` for the call to fill; on failure it keeps
    // "infinity", and `setrlimit` in the child reports any problem.
    unsafe { libc::getrlimit(resource, &mut current) };
    let hard = (hard as libc::rlim_t).min(current.rlim_max);
    libc::rlimit {
        rlim_cur: (soft as libc::rlim_t).min(hard),
        rlim_max: hard,
    }
}

fn set_limit(resource: libc::__rlimit_resource_t, limit: &libc::rlimit) -> std::io::Result<()> {
    // SAFETY: `limit` is a valid, initialised `rlimit` that outlives the call.
    if unsafe { libc::setrlimit(resource, limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// Which limit, if any, ended the process with `output`.
fn exceeded(timed_out: bool, output: &Output) -> Option<Exceeded> {
    if timed_out || matches!(output.status.signal(), Some(libc::SIGXCPU | libc::SIGKILL)) {
        return Some(Exceeded::Time);
    }
    if output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout).to_ascii_lowercase()
        + &String::from_utf8_lossy(&output.stderr).to_ascii_lowercase();
    const SIGNS: &[&str] = &[
        "bad_alloc",
        "out of memory",
        "memory exhausted",
        "cannot allocate memory",
        "memory allocation of",
    ];
    SIGNS
        .iter()
        .any(|s| text.contains(s))
        .then_some(Exceeded::Memory)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.arg("-c").arg(script);
        c
    }

    #[test]
    fn an_ordinary_run_gives_its_output_and_status() {
        let out = run_limited(&mut sh("echo out; echo err >&2; exit 3"), Limits::CC).unwrap();
        assert_eq!(out.status.code(), Some(3));
        assert_eq!(out.stdout, b"out\n");
        assert_eq!(out.stderr, b"err\n");
    }

    #[test]
    fn stdin_is_written_and_closed() {
        let out =
            run_limited_with_stdin(&mut Command::new("cat"), Some(b"abc"), Limits::CC).unwrap();
        assert_eq!(out.stdout, b"abc");
        // Without input, stdin reads as empty at once.
        assert!(
            run_limited(&mut Command::new("cat"), Limits::CC)
                .unwrap()
                .stdout
                .is_empty()
        );
    }

    #[test]
    fn the_wall_clock_deadline_kills() {
        let t = Instant::now();
        let limits = Limits {
            memory_bytes: GIB,
            seconds: 1,
        };
        match run_limited(&mut sh("sleep 30"), limits) {
            Err(RunError::LimitExceeded {
                exceeded: Exceeded::Time,
                ..
            }) => {}
            other => panic!("{other:?}"),
        }
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn a_background_process_holding_the_pipes_is_ended_at_the_deadline() {
        let t = Instant::now();
        let limits = Limits {
            memory_bytes: GIB,
            seconds: 1,
        };
        match run_limited(&mut sh("echo started; sleep 30 & exit 0"), limits) {
            Err(RunError::LimitExceeded {
                exceeded: Exceeded::Time,
                output,
                ..
            }) => assert_eq!(output.stdout, b"started\n"),
            other => panic!("{other:?}"),
        }
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_address_space_limit_holds_in_the_child() {
        // `dd` with a 512 MiB block size must allocate it: under 64 MiB it cannot.
        let limits = Limits {
            memory_bytes: 64 << 20,
            seconds: 20,
        };
        let out = run_limited(
            &mut sh("ulimit -v; dd if=/dev/zero of=/dev/null bs=512M count=1"),
            limits,
        );
        match out {
            Err(RunError::LimitExceeded {
                exceeded: Exceeded::Memory,
                output,
                ..
            }) => assert!(String::from_utf8_lossy(&output.stdout).starts_with("65536")),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn a_missing_program_is_a_spawn_error() {
        let e = run_limited(&mut Command::new("/nonexistent/kiln-testkit"), Limits::CC);
        assert!(matches!(e, Err(RunError::Spawn(_))));
    }
}
