//! What the `kiln` binary's integration tests share: running it under the suite's limits and
//! reading what it printed.
#![allow(dead_code)] // each test binary uses its own part

use std::path::Path;
use std::process::{Command, Output};

use kiln_testkit::process::{Limits, run_limited};

/// Runs `kiln ARGS` in `cwd` under [`Limits::KILN`].
pub fn kiln(args: &[&str], cwd: &Path) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kiln"));
    cmd.args(args).current_dir(cwd);
    run_limited(&mut cmd, Limits::KILN).unwrap_or_else(|e| panic!("run kiln: {e}"))
}

/// Its standard error, as text.
pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Its standard output, as text.
pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}
