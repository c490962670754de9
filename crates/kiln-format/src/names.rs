//! Names that are not UTF-8 in the classic files: the original tool wrote a name's bytes as
//! the model file had them (Latin-1, Shift-JIS...). kiln's scene keeps each byte that is not
//! part of valid UTF-8 as the character `U+10FF00 + byte` (`kiln_scene::names`, which this
//! mirrors: kiln-format does not depend on the scene crate, and a test of the `kiln` crate
//! checks the two agree on every byte). The classic writers write those characters as their
//! bytes; the classic readers read such bytes back as those characters.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

/// The first of the 256 code points that stand for bytes.
pub const BYTE_BASE: u32 = 0x10_FF00;

/// The byte a character stands for, if it is one of the 256.
pub fn byte_of(c: char) -> Option<u8> {
    let c = u32::from(c);
    (BYTE_BASE..=BYTE_BASE + 0xFF)
        .contains(&c)
        .then(|| (c - BYTE_BASE) as u8)
}

/// The bytes a name stands for.
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

/// A name from bytes; `Err(offset)` when valid UTF-8 holds one of the 256 characters itself
/// (it could not be written back as it was).
pub fn from_bytes(bytes: &[u8]) -> Result<String, usize> {
    if let Ok(s) = core::str::from_utf8(bytes) {
        return match s.char_indices().find(|(_, c)| byte_of(*c).is_some()) {
            Some((at, _)) => Err(at),
            None => Ok(String::from(s)),
        };
    }
    let mut out = String::with_capacity(bytes.len() + 8);
    let mut at = 0;
    for chunk in bytes.utf8_chunks() {
        if let Some((i, _)) = chunk
            .valid()
            .char_indices()
            .find(|(_, c)| byte_of(*c).is_some())
        {
            return Err(at + i);
        }
        out.push_str(chunk.valid());
        for &b in chunk.invalid() {
            out.push(char::from_u32(BYTE_BASE + u32::from(b)).unwrap_or('\u{FFFD}'));
        }
        at += chunk.valid().len() + chunk.invalid().len();
    }
    Ok(out)
}
