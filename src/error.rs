//! [`Error`]: every way the facade fails, over the crates' own error types, with the file it
//! concerns attached as ripgrep's `ignore::Error::WithPath` does.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

/// A failure of loading, encoding or writing. The text of each variant is the one the CLI prints
/// after `kiln: error: `; [`Error::WithPath`] puts the file first (`FILE: what is wrong`).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// An error about one file (the model, a `.clip` beside it, an output).
    #[error("{}: {err}", path.display())]
    WithPath {
        /// The file concerned.
        path: PathBuf,
        /// What is wrong with it.
        err: Box<Error>,
    },
    /// The model file cannot be opened ("no such file", "permission denied", or the system's
    /// words).
    #[error("{}", OpenReason(.0))]
    Open(#[source] io::Error),
    /// A file kiln wrote (`.mesh`, `.clip`) cannot be read.
    #[error("cannot read: {0}")]
    Read(#[source] io::Error),
    /// An output cannot be written.
    #[error("cannot write: {0}")]
    Write(#[source] io::Error),
    /// The output folder cannot be created.
    #[error("cannot create folder: {0}")]
    CreateFolder(#[source] io::Error),
    /// The path names a folder.
    #[error("is a folder with no .fbx or .obj file in it")]
    IsDirectory,
    /// The file's extension is none kiln reads.
    #[error("unsupported file type (expected .obj or .fbx)")]
    UnsupportedType,
    /// A `.clip` was given where a `.mesh` (or a model file) was expected.
    #[error("is a .clip file; give the .mesh it animates")]
    ClipGiven,
    /// The OBJ importer failed (its message without the file name, which [`Error::WithPath`]
    /// gives).
    #[error("{}", .0.reason())]
    Obj(#[source] kiln_obj::ObjError),
    /// The FBX importer failed.
    #[error(transparent)]
    Fbx(#[from] kiln_fbx_scene::ImportError),
    /// A processing step refused the scene.
    #[error(transparent)]
    Process(#[from] kiln_process::ProcessError),
    /// A kiln-layout `.mesh` or `.clip` is malformed.
    #[error(transparent)]
    Layout(#[from] kiln_format::kiln::LayoutError),
    /// A classic `.mesh`/`.clip` or a material `.xml` is malformed.
    #[error(transparent)]
    Format(#[from] kiln_format::FormatError),
    /// An output could not be encoded (a count past the layout's limits).
    #[error("cannot encode {file}: {source}")]
    Encode {
        /// The output's file name.
        file: String,
        /// Why.
        #[source]
        source: kiln_format::kiln::WriteError,
    },
    /// The model's skeleton or clips cannot be bound or baked.
    #[error(transparent)]
    Bake(#[from] kiln_anim::BakeModelError),
    /// Warnings the batch's policy denies (`--strict`, `--deny`): nothing was written.
    #[error("{} denied warning(s) ({}); nothing written", .count, .codes.join(", "))]
    Denied {
        /// How many warnings were denied.
        count: usize,
        /// Their codes, each once, in order.
        codes: Vec<String>,
    },
    /// An output another input of the batch writes.
    #[error("would write {}, which {other} writes too; nothing written", .output.display())]
    OutputTaken {
        /// The output.
        output: PathBuf,
        /// The other input.
        other: String,
    },
    /// `--units`, `--scale`, `--up` or `--forward` cannot be applied.
    #[error("cannot change units or axes: {0}")]
    Basis(#[source] kiln_process::BasisError),
    /// A panic inside the conversion (a bug in kiln): the batch went on.
    #[error("internal error (please report it): {0}")]
    Internal(String),
}

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// `self` about `path`.
    pub fn with_path(self, path: impl AsRef<Path>) -> Error {
        Error::WithPath {
            path: path.as_ref().to_path_buf(),
            err: Box::new(self),
        }
    }

    /// The file this error is about, when it names one.
    pub fn path(&self) -> Option<&Path> {
        match self {
            Error::WithPath { path, .. } => Some(path),
            _ => None,
        }
    }

    /// What is wrong, without the file: the innermost error under every [`Error::WithPath`].
    pub fn reason(&self) -> &Error {
        match self {
            Error::WithPath { err, .. } => err.reason(),
            e => e,
        }
    }
}

/// An open error in the words the CLI uses for a model file.
struct OpenReason<'a>(&'a io::Error);

impl fmt::Display for OpenReason<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.kind() {
            io::ErrorKind::NotFound => f.write_str("no such file"),
            io::ErrorKind::PermissionDenied => f.write_str("permission denied"),
            _ => write!(f, "{}", self.0),
        }
    }
}

/// Closure helper: `map_err(at(path))`.
pub(crate) fn at<E: Into<Error>>(path: &Path) -> impl FnOnce(E) -> Error + '_ {
    move |e| e.into().with_path(path)
}
