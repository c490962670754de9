//! One error type for parsing, decoding, typed access and writing: where (a byte offset, or a
//! line and column for ASCII), in which node (its path from the root) and what was expected.

use alloc::string::String;
use core::fmt;

/// Where in the input an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Location {
    /// Binary FBX: the byte offset from the start of the input.
    Byte(u64),
    /// ASCII FBX: 1-based line and column (the column counts bytes), and the byte offset.
    Text {
        /// 1-based line.
        line: u32,
        /// 1-based column, in bytes from the start of the line.
        column: u32,
        /// Byte offset from the start of the input.
        offset: u64,
    },
    /// No position: a tree built in memory (the writer's input).
    Unknown,
}

impl Location {
    /// The byte offset, when there is one.
    pub fn offset(&self) -> Option<u64> {
        match *self {
            Location::Byte(o) => Some(o),
            Location::Text { offset, .. } => Some(offset),
            Location::Unknown => None,
        }
    }

    /// The location of `offset` in `input`: a byte offset for binary files, a line and column
    /// for ASCII ones (computed here, on the error path only).
    pub(crate) fn at(input: &[u8], ascii: bool, offset: usize) -> Location {
        if !ascii {
            return Location::Byte(offset as u64);
        }
        let offset = offset.min(input.len());
        let before = &input[..offset];
        let line = memchr::memchr_iter(b'\n', before).count() + 1;
        let line_start = memchr::memrchr(b'\n', before).map_or(0, |i| i + 1);
        Location::Text {
            line: u32::try_from(line).unwrap_or(u32::MAX),
            column: u32::try_from(offset - line_start + 1).unwrap_or(u32::MAX),
            offset: offset as u64,
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Location::Byte(o) => write!(f, "byte offset {o} ({o:#x})"),
            Location::Text { line, column, .. } => write!(f, "line {line}, column {column}"),
            Location::Unknown => f.write_str("in memory"),
        }
    }
}

/// An error with its context: [`Location`], the path of the node it concerns
/// (`Objects/Geometry/Vertices`, empty at the top level), the property index when one property
/// is at fault, and what went wrong ([`ErrorKind`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{location}{}: {kind}", Context(path, *property))]
pub struct Error {
    /// Where in the input: a byte offset (binary), a line and column (ASCII), or unknown (a
    /// tree built in memory).
    pub location: Location,
    /// Node names from the root, joined by `/`.
    pub path: String,
    /// The property's index in its node, when the error is about one property.
    pub property: Option<usize>,
    /// What went wrong.
    pub kind: ErrorKind,
}

struct Context<'e>(&'e str, Option<usize>);

impl fmt::Display for Context<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.0.is_empty(), self.1) {
            (true, None) => Ok(()),
            (true, Some(i)) => write!(f, " (property {i})"),
            (false, None) => write!(f, " (in `{}`)", self.0),
            (false, Some(i)) => write!(f, " (in `{}`, property {i})", self.0),
        }
    }
}

impl Error {
    pub(crate) fn new(location: Location, path: String, kind: ErrorKind) -> Self {
        Error {
            location,
            path,
            property: None,
            kind,
        }
    }
}

/// What went wrong; each message says what was expected.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ErrorKind {
    // --- the whole input ---
    /// Neither the binary magic nor ASCII FBX text.
    #[error(
        "not an FBX file: expected the binary magic \"Kaydara FBX Binary\" or ASCII FBX text \
         (a node name followed by ':' or a ';' comment)"
    )]
    NotFbx,
    /// A byte of the 27-byte binary header differs from the fixed magic.
    #[error("binary header: expected byte {expected:#04x}, found {found:#04x}")]
    BadHeader {
        /// The byte the magic has there.
        expected: u8,
        /// The byte the file has.
        found: u8,
    },
    /// The file has no NUL byte at all and a space where the magic has one: every NUL byte
    /// was replaced by a space (a text-mode transfer), which cannot be undone.
    #[error(
        "binary header: expected byte 0x00, found 0x20, and the file has no NUL byte anywhere: \
         every NUL byte was replaced by a space (damaged by a text-mode transfer), which cannot \
         be repaired"
    )]
    NulBytesReplaced,
    /// A big-endian binary file (byte 22 of the header is 1): the borrowing reader reads
    /// little-endian files; [`crate::to_little_endian`] rewrites one (`kiln_fbx_scene::import`
    /// does that itself).
    #[error(
        "big-endian binary FBX: rewrite it with kiln_fbx::to_little_endian first (kiln's FBX import does)"
    )]
    BigEndian,
    /// Binary version outside the range this reader knows the layout of.
    #[error("unsupported binary FBX version {0}: expected 2000 to 7999 (3000 to 7700 are tested)")]
    UnsupportedVersion(u32),
    /// The input ends inside something.
    #[error("unexpected end of input: expected {expected} ({needed} bytes), {available} left")]
    UnexpectedEnd {
        /// What was being read.
        expected: &'static str,
        /// Bytes it needs.
        needed: u64,
        /// Bytes left (in the file or in the enclosing record).
        available: u64,
    },

    // --- binary records ---
    /// A node record's end offset points past the end of the file or of its parent.
    #[error("node record ends at {end}, past the end of its {container} at {limit}")]
    EndOffsetPastLimit {
        /// The record's end offset.
        end: u64,
        /// Where its container ends.
        limit: u64,
        /// "file" or "parent node".
        container: &'static str,
    },
    /// A node record's end offset points inside its own header, name or properties.
    #[error("node record ends at {end}, before its header, name and properties end at {min}")]
    EndOffsetTooSmall {
        /// The record's end offset.
        end: u64,
        /// Where its header, name and properties end.
        min: u64,
    },
    /// A node name that is not UTF-8.
    #[error("node name is not valid UTF-8: expected a UTF-8 name")]
    NameNotUtf8,
    /// A record header whose end offset is 0 but which has other non-zero fields.
    #[error("null record (end of a node list) has non-zero bytes: expected all zero")]
    BadNullRecord,
    /// The null record that ends a child list is not where the parent's record ends.
    #[error("child list ends at {found}, but the node's record says it ends at {expected}")]
    ChildListEnd {
        /// Where the child list ended.
        found: u64,
        /// Where the parent record says it ends.
        expected: u64,
    },
    /// The properties do not take exactly the bytes the record declares for them.
    #[error("the {count} properties take {actual} bytes, but the record declares {declared}")]
    PropertyListLength {
        /// Number of properties.
        count: u64,
        /// Bytes the record declares.
        declared: u64,
        /// Bytes they take.
        actual: u64,
    },
    /// More properties than the declared property bytes can hold.
    #[error("{count} properties cannot fit in {bytes} bytes (each takes at least 2)")]
    TooManyProperties {
        /// Declared count.
        count: u64,
        /// Declared bytes.
        bytes: u64,
    },
    /// An unknown property type code.
    #[error(
        "unknown property type code {found:#04x}: expected one of Y C Z I F D L S R f d l i b c"
    )]
    UnknownPropertyType {
        /// The type byte found.
        found: u8,
    },
    /// A plain array whose byte length is not count × element size.
    #[error("array of {count} '{ty}' elements needs {expected} bytes, but its header says {found}")]
    ArraySizeMismatch {
        /// Type code.
        ty: char,
        /// Element count.
        count: u32,
        /// count × element size.
        expected: u64,
        /// The byte length in the header.
        found: u32,
    },
    /// An array encoding other than 0 (plain) or 1 (zlib).
    #[error("array encoding {0} is unknown: expected 0 (plain) or 1 (zlib)")]
    UnknownArrayEncoding(u32),
    /// A compressed array whose count declares more bytes than deflate can produce from its
    /// compressed size (at most 1032:1): a zlib bomb or a corrupt count.
    #[error(
        "compressed array declares {declared} bytes, more than deflate can expand {compressed} \
         bytes to (at most {max})"
    )]
    InflateBomb {
        /// count × element size.
        declared: u64,
        /// Compressed bytes.
        compressed: u64,
        /// The most deflate can produce from them.
        max: u64,
    },
    /// Nesting deeper than the limit in [`crate::ParseOptions`].
    #[error("nodes nested deeper than {limit} levels")]
    TooDeep {
        /// The limit.
        limit: usize,
    },
    /// More nodes or properties than 32-bit indices address.
    #[error("more than 4294967295 nodes or properties")]
    TooManyNodes,

    // --- decoding on request ---
    /// The zlib stream is corrupt.
    #[error("zlib stream is corrupt: {0}")]
    Inflate(&'static str),
    /// The zlib stream produces more than the array's count declares (stopped there).
    #[error("zlib stream inflates to more than the {expected} bytes the array's count declares")]
    InflatedTooLarge {
        /// count × element size.
        expected: u64,
    },
    /// The zlib stream produces fewer bytes than the array's count declares.
    #[error("zlib stream inflates to {found} bytes, but the array's count declares {expected}")]
    InflatedSizeMismatch {
        /// count × element size.
        expected: u64,
        /// Bytes produced.
        found: u64,
    },
    /// An array too large to address on this platform.
    #[error("array needs {0} bytes, more than this platform can address")]
    TooLarge(u64),
    /// Invalid base64 in an ASCII `Content` blob.
    #[error("invalid base64 at byte {index} of the embedded content: expected A-Z a-z 0-9 + / =")]
    Base64 {
        /// Byte index in the blob's text.
        index: usize,
    },

    // --- ASCII ---
    /// Something else than what the grammar allows here.
    #[error("expected {expected}, found {found}")]
    Expected {
        /// What the grammar allows.
        expected: &'static str,
        /// What the file has (quoted, shortened).
        found: String,
    },
    /// A `}` with no node open.
    #[error("'}}' closes no node: expected a node name or the end of the file")]
    UnbalancedClose,
    /// The input ends inside a node's braces.
    #[error("end of input inside `{name}` opened at line {line}: expected '}}'")]
    UnclosedNode {
        /// The open node's name.
        name: String,
        /// The line of its name.
        line: u32,
    },
    /// A string without its closing quote.
    #[error("unterminated string: expected a closing '\"'")]
    UnterminatedString,
    /// An ASCII array whose `*N` disagrees with the values it lists.
    #[error("array declares *{declared} elements but lists {found}")]
    ArrayCountMismatch {
        /// N of `*N`.
        declared: u64,
        /// Values listed.
        found: u64,
    },
    /// Text that is not a number where one is expected.
    #[error("invalid number `{text}`: expected an integer or a decimal number")]
    BadNumber {
        /// The token (shortened).
        text: String,
    },

    // --- typed access ---
    /// A property index past the node's properties.
    #[error("no property {index}: the node has {count}")]
    MissingProperty {
        /// Asked index.
        index: usize,
        /// Properties the node has.
        count: usize,
    },
    /// A property of another type than asked.
    #[error("expected {expected}, found {found}")]
    WrongType {
        /// What was asked.
        expected: &'static str,
        /// What the property is.
        found: &'static str,
    },
    /// A number that does not fit the asked type.
    #[error("value {value} (element {index}) does not fit in {target}")]
    OutOfRange {
        /// The value, as text.
        value: String,
        /// Element index (0 for scalars).
        index: usize,
        /// The asked type.
        target: &'static str,
    },
    /// A string that is not UTF-8.
    #[error("string is not valid UTF-8: expected UTF-8 text")]
    NotUtf8,
    /// A required child that is missing.
    #[error("no child node named `{0}`")]
    MissingChild(String),

    // --- writing ---
    /// A value the binary layout cannot hold (a name over 255 bytes, a count or offset over the
    /// 32-bit fields of versions before 7500...).
    #[error("cannot write: {0}")]
    Unwritable(&'static str),
}

/// Shortens a token for an error message.
pub(crate) fn describe(token: &[u8]) -> String {
    use alloc::format;
    if token.is_empty() {
        return String::from("end of input");
    }
    let max = 24;
    let text = String::from_utf8_lossy(&token[..token.len().min(max)]);
    if token.len() > max {
        format!("`{text}...`")
    } else {
        format!("`{text}`")
    }
}
