//! Names and paths that are not UTF-8, kept byte for byte.
//!
//! Files name things in whatever bytes their exporter had: Latin-1 or Shift-JIS node names,
//! texture paths from Windows code pages. The original tool and Assimp pass those bytes
//! through, so its `.mesh` holds them as they were. A Rust `String` cannot hold them, and
//! replacing them (U+FFFD, or guessing a code page) would change the output. So each byte of
//! the name that is not part of valid UTF-8 is kept as one character of the last 256 code
//! points of Unicode's plane 16, a private-use range no exporter writes: byte `b` is
//! `U+10FF00 + b` ([`from_bytes`]). Valid UTF-8 is kept as it is. The writers turn those
//! characters back into the bytes ([`to_bytes`]; `kiln-format` mirrors it, as it does not
//! depend on this crate), and messages show them as `\xNN` ([`escaped`]).
//!
//! A name whose UTF-8 really holds one of those 256 characters would be written as the byte
//! it stands for; none is known to.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;
use core::fmt::Write as _;

#[cfg(feature = "std")]
extern crate std;

/// The first of the 256 code points that stand for bytes.
pub const BYTE_BASE: u32 = 0x10_FF00;

/// The byte a character stands for, if it is one of the 256.
pub fn byte_of(c: char) -> Option<u8> {
    let c = u32::from(c);
    (BYTE_BASE..=BYTE_BASE + 0xFF)
        .contains(&c)
        .then(|| (c - BYTE_BASE) as u8)
}

/// A name from a file's bytes: valid UTF-8 as it is, every other byte as its character.
pub fn from_bytes(bytes: &[u8]) -> Cow<'_, str> {
    if let Ok(s) = core::str::from_utf8(bytes) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BYTE_BASE + u32::from(b)).unwrap_or('\u{FFFD}'));
        }
    }
    Cow::Owned(out)
}

/// The bytes a name came from ([`from_bytes`] undone).
pub fn to_bytes(name: &str) -> Cow<'_, [u8]> {
    if !name.chars().any(|c| byte_of(c).is_some()) {
        return Cow::Borrowed(name.as_bytes());
    }
    let mut out = Vec::with_capacity(name.len());
    let mut buf = [0u8; 4];
    for c in name.chars() {
        match byte_of(c) {
            Some(b) => out.push(b),
            None => out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes()),
        }
    }
    Cow::Owned(out)
}

/// The name for messages: each byte that is not UTF-8 as `\xNN`.
pub fn escaped(name: &str) -> Cow<'_, str> {
    if !name.chars().any(|c| byte_of(c).is_some()) {
        return Cow::Borrowed(name);
    }
    let mut out = String::with_capacity(name.len() + 8);
    for c in name.chars() {
        match byte_of(c) {
            Some(b) => {
                let _ = write!(out, "\\x{b:02X}");
            }
            None => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// A path from a name: on Unix the bytes it came from (so a file named in Latin-1 is found and
/// written under its own name), elsewhere the name as it is.
#[cfg(feature = "std")]
pub fn to_path(name: &str) -> std::path::PathBuf {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::path::PathBuf::from(std::ffi::OsStr::from_bytes(&to_bytes(name)))
    }
    #[cfg(not(unix))]
    {
        std::path::PathBuf::from(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_that_are_not_utf8_come_back_as_they_were() {
        let raw = b"caf\xe9 \xe6\xf8 ok \xc3\xa9 \xff\x80";
        let name = from_bytes(raw);
        assert!(matches!(name, Cow::Owned(_)));
        assert_eq!(&*to_bytes(&name), &raw[..]);
        assert_eq!(escaped(&name), "caf\\xE9 \\xE6\\xF8 ok é \\xFF\\x80");
        // Valid UTF-8 is borrowed and unchanged.
        assert!(matches!(
            from_bytes("naïve".as_bytes()),
            Cow::Borrowed("naïve")
        ));
        assert!(matches!(to_bytes("naïve"), Cow::Borrowed(_)));
        for b in 0..=255u8 {
            let s = from_bytes(core::slice::from_ref(&b));
            assert_eq!(&*to_bytes(&s), &[b], "byte {b:#x}");
        }
    }
}
