//! `kiln dump --csv FILE [-o OUT]`: reference 003's CSV of the bone list and of every vertex's
//! position, blend indices and blend weights, for a model file or a `.mesh` `kiln convert`
//! wrote. Printed to standard output unless `-o` names a file.

use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

use kiln::anim::csv::write_csv;
use kiln::pipeline::write_atomically;
use kiln::{LoadOptions, load};

pub fn run(file: &Path, out: Option<&Path>) -> ExitCode {
    let model = match load(file, &LoadOptions::default()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("kiln: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = write_csv(&model.model);
    let written = match out {
        Some(path) => write_atomically(path, text.as_bytes())
            .map_err(|e| format!("{}: cannot write: {e}", path.display())),
        None => std::io::stdout()
            .lock()
            .write_all(text.as_bytes())
            .map_err(|e| format!("cannot write to standard output: {e}")),
    };
    match written {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("kiln: error: {e}");
            ExitCode::FAILURE
        }
    }
}
