//! `kiln completions SHELL` (a completion script, `clap_complete`) and `kiln man [-o DIR]` (the
//! roff manual page, `clap_mangen`), both made from the same argument definitions as `--help`.
//!
//! Both are rendered in memory first: the generators panic or stop half way on a failed write,
//! while [`out_bytes`] exits quietly on a closed pipe and a page written to a folder goes
//! through a temporary file and a rename, so a failure leaves no partial page.

use std::path::Path;
use std::process::ExitCode;

use clap::CommandFactory;
use kiln::pipeline::write_atomically;

use crate::output::{out_bytes, outln};

pub use clap_complete::Shell;

/// The name the scripts complete and the pages are titled with.
const BIN: &str = "kiln";

/// Prints the completion script for `shell`.
pub fn completions(shell: Shell) -> ExitCode {
    let mut cmd = crate::Cli::command();
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, BIN, &mut script);
    out_bytes(&script);
    ExitCode::SUCCESS
}

/// Prints `kiln.1`, or with `out` writes `kiln.1` and one `kiln-COMMAND.1` per command into
/// that folder and prints their paths.
pub fn man(out: Option<&Path>) -> ExitCode {
    let mut cmd = crate::Cli::command()
        .name(BIN)
        .disable_help_subcommand(true);
    // Gives every command its full name (`kiln-convert`), which titles and names its page.
    cmd.build();
    let Some(dir) = out else {
        out_bytes(&render(&cmd));
        return ExitCode::SUCCESS;
    };
    let mut pages = Vec::new();
    collect(&cmd, &mut pages);
    let written = std::fs::create_dir_all(dir)
        .map_err(|e| format!("{}: cannot create folder: {e}", dir.display()))
        .and_then(|()| {
            pages.iter().try_for_each(|(name, page)| {
                let path = dir.join(name);
                write_atomically(&path, page)
                    .map_err(|e| format!("{}: cannot write: {e}", path.display()))?;
                outln!("{}", path.display());
                Ok(())
            })
        });
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            crate::output::errln!("kiln: error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The page of `cmd`, every page's footer naming kiln and its version.
fn page(cmd: &clap::Command) -> clap_mangen::Man {
    clap_mangen::Man::new(cmd.clone()).source(format!("{BIN} {}", env!("CARGO_PKG_VERSION")))
}

/// The roff text of `cmd`'s page.
fn render(cmd: &clap::Command) -> Vec<u8> {
    let mut text = Vec::new();
    // Writing into a Vec cannot fail.
    let _ = page(cmd).render(&mut text);
    text
}

/// The file name and roff text of the pages of `cmd` and of each of its visible commands,
/// depth first.
fn collect(cmd: &clap::Command, pages: &mut Vec<(String, Vec<u8>)>) {
    pages.push((page(cmd).get_filename(), render(cmd)));
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        collect(sub, pages);
    }
}
