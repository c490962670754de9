//! Standard output without panics: `println!` panics when the write fails, as it does on a pipe
//! whose reader has gone (`kiln inspect FILE | head -1`). Everything the commands print goes
//! through [`out`] (the [`outln!`] and [`outp!`] macros) or [`out_bytes`] instead. Text
//! shows name bytes that are not UTF-8 as `\xNN`.
//!
//! A closed pipe ends the process quietly with status 0, as `ripgrep` does: the reader has
//! what it wanted. Any other write error prints one line, `kiln: error: cannot write to
//! standard output: WHY`, and exits with status 1.

use std::fmt;
use std::io::{self, Write};

/// Prints `args` to standard output and flushes it (so that nothing is left in the buffer to
/// fail unseen at exit); see the module for what a failed write does.
pub fn out(args: fmt::Arguments<'_>) {
    // Name bytes that are not UTF-8 (kept as private characters, `kiln::scene::names`) are
    // shown as `\xNN`.
    let text = args.to_string();
    let text = kiln::scene::names::escaped(&text);
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        fail(&e);
    }
}

/// Writes `bytes` to standard output and flushes it; see the module for what a failed write
/// does.
pub fn out_bytes(bytes: &[u8]) {
    let mut stdout = io::stdout().lock();
    if let Err(e) = stdout.write_all(bytes).and_then(|()| stdout.flush()) {
        fail(&e);
    }
}

/// Prints one line to standard error, name bytes that are not UTF-8 shown as `\xNN` as on
/// standard output. A failed write to standard error is ignored: nothing is left to tell.
pub fn err(args: fmt::Arguments<'_>) {
    let text = args.to_string();
    let _ = writeln!(
        io::stderr().lock(),
        "{}",
        kiln::scene::names::escaped(&text)
    );
}

/// Ends the process after a failed write to standard output.
fn fail(e: &io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    // Standard error may be gone too; nothing more can be said then.
    let _ = writeln!(
        io::stderr().lock(),
        "kiln: error: cannot write to standard output: {e}"
    );
    std::process::exit(1);
}

/// `println!` through [`out`]: exits quietly on a closed pipe instead of panicking.
macro_rules! outln {
    () => {
        $crate::output::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::output::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` through [`out`]: exits quietly on a closed pipe instead of panicking.
macro_rules! outp {
    ($($arg:tt)*) => {
        $crate::output::out(format_args!($($arg)*))
    };
}

/// `eprintln!` through [`err`]: names shown as on standard output.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::output::err(format_args!($($arg)*))
    };
}

pub(crate) use {errln, outln, outp};
