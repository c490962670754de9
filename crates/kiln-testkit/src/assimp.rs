//! Running the `assimp` command (Debian `assimp-utils`, Assimp 5.2.5), always under
//! [`Limits::ASSIMP`] through [`run_limited`]: `assimp dump MODEL OUT [FLAGS]` gives the scene
//! Assimp imports (`.assxml`, or `.assbin` with `-b`, read by [`crate::assxml`] and
//! [`crate::assbin`]).
//!
//! [`dump`] caches under the target folder ([`crate::paths::target_tmp`]`/assimp-dumps`),
//! keyed by the model's file name, its bytes and the flags (an edited file is dumped again; a
//! generated fixture in a new temporary folder is not). A rejection by Assimp is cached too (it
//! is as deterministic as a dump); a peer failure (a limit hit, which may depend on the
//! machine's load) and a failure to start `assimp` are not.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::process::{Exceeded, Limits, RunError, run_limited};

/// Why [`dump`] gives no dump.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DumpError {
    /// Assimp ran and did not import the file (non-zero exit status, or no output written).
    Rejected {
        /// Assimp's own error line (the first line of its output that mentions an error), or
        /// `assimp dump failed: ` and how it ended: what the conformance tables show.
        line: String,
        /// Everything it printed, stdout then stderr (only `line` when read from the cache).
        output: String,
    },
    /// Assimp ran into a limit: the peer failed. Callers treat it like a rejection.
    PeerFailed(Exceeded),
    /// `assimp` could not be started, or a file could not be read or written.
    Setup(String),
}

impl fmt::Display for DumpError {
    /// The rejection's line; `peer failed: memory limit` / `peer failed: time limit`; or the
    /// setup problem.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DumpError::Rejected { line, .. } => f.write_str(line),
            DumpError::PeerFailed(x) => write!(f, "peer failed: {x}"),
            DumpError::Setup(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for DumpError {}

impl From<DumpError> for String {
    /// The [`Display`](fmt::Display) text, for the tests' `Result<_, String>` helpers.
    fn from(e: DumpError) -> String {
        e.to_string()
    }
}

/// Whether `assimp version` runs and succeeds.
pub fn works() -> bool {
    // Asked once per test binary: callers check it before each comparison.
    static WORKS: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *WORKS.get_or_init(|| {
        let mut cmd = Command::new("assimp");
        cmd.arg("version");
        run_limited(&mut cmd, Limits::ASSIMP).is_ok_and(|o| o.status.success())
    })
}

/// The corpus root, after checking that the corpus is installed and `assimp` runs; panics with
/// the install hint otherwise.
pub fn require() -> &'static Path {
    let root = crate::corpus::require();
    assert!(
        works(),
        "the `assimp` command is missing: {}",
        crate::corpus::INSTALL_HINT
    );
    root
}

/// Runs `assimp dump MODEL OUT FLAGS` (uncached), writing `out`.
pub fn dump_to(model: &Path, out: &Path, flags: &[&str]) -> Result<(), DumpError> {
    let mut cmd = Command::new("assimp");
    cmd.arg("dump").arg(model).arg(out).args(flags);
    let output = match run_limited(&mut cmd, Limits::ASSIMP) {
        Ok(o) => o,
        Err(RunError::LimitExceeded { exceeded, .. }) => {
            let _ = std::fs::remove_file(out);
            return Err(DumpError::PeerFailed(exceeded));
        }
        Err(RunError::Spawn(e)) => {
            return Err(DumpError::Setup(format!(
                "cannot run `assimp` ({e}): install it with `apt-get install -y assimp-utils assimp-testmodels` (scripts/test does)"
            )));
        }
    };
    if output.status.success() && out.exists() {
        return Ok(());
    }
    let _ = std::fs::remove_file(out);
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    let line = match text
        .lines()
        .find(|l| l.contains("ERROR") || l.contains("rror"))
    {
        Some(l) => l.trim().to_string(),
        None if output.status.success() => "assimp dump failed: no output written".to_string(),
        None => format!("assimp dump failed: {}", output.status),
    };
    Err(DumpError::Rejected { line, output: text })
}

/// Path of the Assimp dump of `model` with the given `assimp dump` flags (`.assbin` with
/// `-b`, else `.assxml`), made once and cached (see the module documentation). Written under a
/// temporary name and renamed, so concurrent tests do not collide.
pub fn dump(model: &Path, flags: &[&str]) -> Result<PathBuf, DumpError> {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let dir = crate::paths::target_tmp().join("assimp-dumps");
    let setup = |e: std::io::Error| DumpError::Setup(e.to_string());
    std::fs::create_dir_all(&dir).map_err(setup)?;
    let bytes =
        std::fs::read(model).map_err(|e| DumpError::Setup(format!("{}: {e}", model.display())))?;
    let name = model
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut h: u64 = 0xcbf29ce484222325;
    let key = format!("{name}{}", flags.join(" "));
    for b in key.bytes().chain(bytes.iter().copied()) {
        h = (h ^ b as u64).wrapping_mul(0x100000001b3);
    }
    let ext = if flags.contains(&"-b") {
        "assbin"
    } else {
        "assxml"
    };
    let out = dir.join(format!("{name}-{h:016x}.{ext}"));
    let rejected = dir.join(format!("{name}-{h:016x}.{ext}.rejected"));
    if out.exists() {
        return Ok(out);
    }
    if let Ok(line) = std::fs::read_to_string(&rejected) {
        return Err(DumpError::Rejected {
            output: line.clone(),
            line,
        });
    }
    let tmp = dir.join(format!(
        "{name}-{h:016x}.{}-{}.tmp.{ext}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    ));
    match dump_to(model, &tmp, flags) {
        Ok(()) => {
            std::fs::rename(&tmp, &out).map_err(setup)?;
            Ok(out)
        }
        Err(e) => {
            if let DumpError::Rejected { line, .. } = &e {
                let tmp = tmp.with_extension("rejected");
                if std::fs::write(&tmp, line).is_ok() {
                    let _ = std::fs::rename(&tmp, &rejected);
                }
            }
            Err(e)
        }
    }
}

/// `assimp dump MODEL OUT.assbin -b FLAGS` ([`dump`] with `-b` first): every float bit of the
/// import, where the XML dump prints six decimals.
pub fn dump_bin(model: &Path, flags: &[&str]) -> Result<PathBuf, DumpError> {
    dump(model, &[&["-b"], flags].concat())
}
