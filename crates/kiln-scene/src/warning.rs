//! Non-fatal findings, typed: what was repaired or left out of a scene and its outputs.
//!
//! Every stage (importers, processing, extraction, the pipeline) reports a [`Warning`] with a
//! stable [`Warning::code`]: a short kebab-case string, prefixed by the stage that gives it
//! (`obj.`, `fbx.`, `process.`, `extract.`, `clip.`, `bind.`, `pipeline.`), that tools filter and
//! count by. Codes never change meaning once released; `docs/warnings.md` lists every code.
//! The [`Warning::message`] is the human sentence the CLI prints, which may be reworded.

use alloc::string::String;
use core::fmt;

/// One non-fatal finding.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Warning {
    /// Stable, documented identifier of the kind of finding (`docs/warnings.md`).
    pub code: &'static str,
    /// The sentence shown to the user; it names the element concerned.
    pub message: String,
    /// Where in the input the finding is, when the stage knows it (an FBX object, an OBJ line,
    /// an animation or bone name), in the stage's own words.
    pub location: Option<String>,
}

impl Warning {
    /// A warning with no separate location (the message still names what it concerns).
    pub fn new(code: &'static str, message: impl Into<String>) -> Warning {
        Warning {
            code,
            message: message.into(),
            location: None,
        }
    }

    /// This warning with `location` recorded.
    pub fn at(mut self, location: impl Into<String>) -> Warning {
        self.location = Some(location.into());
        self
    }
}

impl fmt::Display for Warning {
    /// The message alone: what the CLI prints after `kiln: warning: FILE: `.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}
