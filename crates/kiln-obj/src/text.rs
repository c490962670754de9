//! Byte-level text helpers shared by the OBJ and MTL readers: encodings, blanks, words, names.

use alloc::borrow::Cow;
use alloc::string::String;
use alloc::vec::Vec;

use kiln_scene::Warning;

use crate::codes;

/// What [`to_utf8`] did to the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Encoding {
    /// No byte-order mark: bytes taken as they are (UTF-8, ASCII or a single-byte code page).
    Plain,
    Utf8Bom,
    Utf16Le,
    Utf16Be,
}

/// Strips a UTF-8 byte-order mark, or converts UTF-16 (LE or BE, recognised by its BOM) to
/// UTF-8. Unpaired surrogates become U+FFFD; an odd trailing byte is dropped.
pub(crate) fn to_utf8(data: &[u8]) -> (Cow<'_, [u8]>, Encoding) {
    if let Some(rest) = data.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return (Cow::Borrowed(rest), Encoding::Utf8Bom);
    }
    let (rest, le) = if let Some(r) = data.strip_prefix(&[0xFF, 0xFE]) {
        (r, true)
    } else if let Some(r) = data.strip_prefix(&[0xFE, 0xFF]) {
        (r, false)
    } else {
        return (Cow::Borrowed(data), Encoding::Plain);
    };
    let units = rest.chunks_exact(2).map(|p| {
        if le {
            u16::from_le_bytes([p[0], p[1]])
        } else {
            u16::from_be_bytes([p[0], p[1]])
        }
    });
    let mut out = String::with_capacity(rest.len() / 2 + 16);
    for c in char::decode_utf16(units) {
        out.push(c.unwrap_or(char::REPLACEMENT_CHARACTER));
    }
    let enc = if le {
        Encoding::Utf16Le
    } else {
        Encoding::Utf16Be
    };
    (Cow::Owned(out.into_bytes()), enc)
}

/// Blank: space or tab (Assimp `IsSpace`).
#[inline]
pub(crate) fn is_blank(b: u8) -> bool {
    b == b' ' || b == b'\t'
}

/// Line end: LF, CR, NUL or form feed (Assimp `IsLineEnd`).
#[inline]
pub(crate) fn is_line_end(b: u8) -> bool {
    matches!(b, b'\n' | b'\r' | 0 | 0x0C)
}

/// `s` without leading blanks.
#[inline]
pub(crate) fn trim_start(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| is_blank(b)).count();
    &s[n..]
}

/// `s` without trailing blanks.
#[inline]
pub(crate) fn trim_end(s: &[u8]) -> &[u8] {
    let n = s.iter().rev().take_while(|&&b| is_blank(b)).count();
    &s[..s.len() - n]
}

/// The first word of `s` (up to the first blank).
#[inline]
pub(crate) fn first_word(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| !is_blank(b)).count();
    &s[..n]
}

/// What follows the first word of `s` and the blanks after it (Assimp `getNextToken`).
#[inline]
pub(crate) fn after_first_word(s: &[u8]) -> &[u8] {
    let n = s.iter().take_while(|&&b| !is_blank(b)).count();
    trim_start(&s[n..])
}

/// The blank-separated words of `s`.
#[inline]
pub(crate) fn words(s: &[u8]) -> impl Iterator<Item = &[u8]> {
    s.split(|&b| is_blank(b)).filter(|w| !w.is_empty())
}

/// Decodes a name (object, group, material, file) from the file's bytes: UTF-8 as it is, and
/// every byte that is not UTF-8 kept as the character that stands for it
/// ([`kiln_scene::names`]), so a Latin-1 `0xE6` is written back as `0xE6`, as Assimp and the
/// original tool pass it through, and a file so named is found on disk. The same bytes always
/// give the same string, so `usemtl` finds its `newmtl`.
pub(crate) fn decode_name(bytes: &[u8]) -> String {
    kiln_scene::names::from_bytes(bytes).into_owned()
}

/// Replaces control characters for quoting file content in messages, and cuts it short.
pub(crate) fn excerpt(bytes: &[u8]) -> String {
    let cut = &bytes[..bytes.len().min(40)];
    let mut s: String = kiln_scene::names::escaped(&decode_name(cut))
        .chars()
        .map(|c| if c.is_control() { '\u{FFFD}' } else { c })
        .collect();
    if bytes.len() > cut.len() {
        s.push('…');
    }
    s
}

/// Shared sink for warnings, bounded so that a file with millions of bad lines cannot make the
/// warning list grow without bound.
#[derive(Debug, Default)]
pub(crate) struct Warnings {
    pub list: Vec<Warning>,
    pub suppressed: usize,
}

impl Warnings {
    const MAX: usize = 64;

    pub fn push(&mut self, w: Warning) {
        self.push_with(|| w);
    }

    /// [`Warnings::push`] of a warning built only when it is kept: past the bound, a file
    /// with millions of bad lines costs a counter increment per line, not the formatting.
    pub fn push_with(&mut self, make: impl FnOnce() -> Warning) {
        if self.list.len() < Self::MAX {
            self.list.push(make());
        } else {
            self.suppressed += 1;
        }
    }

    pub fn finish(mut self) -> Vec<Warning> {
        if self.suppressed > 0 {
            self.list.push(Warning::new(
                codes::WARNINGS_SUPPRESSED,
                alloc::format!("{} more warnings not shown", self.suppressed),
            ));
        }
        self.list
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_both_orders() {
        let le = [0xFF, 0xFE, b'v', 0, b' ', 0, b'1', 0];
        let (t, e) = to_utf8(&le);
        assert_eq!((&*t, e), (&b"v 1"[..], Encoding::Utf16Le));
        let be = [0xFE, 0xFF, 0, b'f', 0, 0xE6, 0];
        let (t, e) = to_utf8(&be);
        assert_eq!(
            (core::str::from_utf8(&t).unwrap(), e),
            ("fæ", Encoding::Utf16Be)
        );
    }

    #[test]
    fn utf8_bom_is_dropped_and_plain_kept() {
        assert_eq!(&*to_utf8(b"\xEF\xBB\xBFv").0, b"v");
        assert_eq!(to_utf8(b"v 1").1, Encoding::Plain);
    }

    #[test]
    fn names_that_are_not_utf8_keep_their_bytes() {
        let latin1 = decode_name(b"Terraind\xE6k");
        assert_eq!(&*kiln_scene::names::to_bytes(&latin1), b"Terraind\xE6k");
        assert_eq!(decode_name("Terraindæk".as_bytes()), "Terraindæk");
        assert_ne!(latin1, "Terraindæk");
    }

    #[test]
    fn words_and_keywords() {
        assert_eq!(after_first_word(b"usemtl  a b "), b"a b ");
        assert_eq!(first_word(b"mtllib x"), b"mtllib");
        assert_eq!(words(b" 1\t 2  3 ").count(), 3);
        assert_eq!(trim_end(b"a \t"), b"a");
    }
}
