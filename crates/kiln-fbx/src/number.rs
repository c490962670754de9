//! Numbers in ASCII FBX: integers, decimals (`1`, `-0.5`, `1.19e-07`, `.5`, `5.`), `inf`/`nan`
//! and the C libraries' other spellings of them, and the Windows C runtime's `1.#INF`,
//! `-1.#IND`, `1.#QNAN` (read as Assimp reads them: the number before the `#`).

use alloc::string::ToString;

use crate::error::{ErrorKind, describe};

/// A scalar number token, typed the way binary files type it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Scalar {
    /// An integer literal.
    Int(i64),
    /// A literal with a fraction or exponent (or an integer beyond i64).
    Float(f64),
}

/// Trims ASCII blanks (space, tab, CR, LF) at both ends.
pub(crate) fn trim(mut s: &[u8]) -> &[u8] {
    while let [first, rest @ ..] = s {
        if is_blank(*first) {
            s = rest;
        } else {
            break;
        }
    }
    while let [rest @ .., last] = s {
        if is_blank(*last) {
            s = rest;
        } else {
            break;
        }
    }
    s
}

#[inline]
pub(crate) fn is_blank(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\r' | b'\n')
}

fn bad(tok: &[u8]) -> ErrorKind {
    ErrorKind::BadNumber {
        text: describe(tok).trim_matches('`').to_string(),
    }
}

/// Whether `tok` is `[+-]?[0-9]+` (recognised with nom).
fn is_integer(tok: &[u8]) -> bool {
    use nom::Parser;
    use nom::character::complete::{digit1, one_of};
    use nom::combinator::{all_consuming, opt, recognize};
    let mut int = all_consuming(recognize((opt(one_of::<_, _, ()>("+-")), digit1)));
    int.parse(tok).is_ok()
}

/// An integer token.
pub(crate) fn parse_int(tok: &[u8]) -> Result<i64, ErrorKind> {
    if !is_integer(tok) {
        return Err(bad(tok));
    }
    core::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<i64>().ok())
        .ok_or_else(|| ErrorKind::OutOfRange {
            value: describe(tok).trim_matches('`').to_string(),
            index: 0,
            target: "i64",
        })
}

/// A scalar token: integer when it is one (and fits in i64), decimal otherwise.
pub(crate) fn parse_scalar(tok: &[u8]) -> Result<Scalar, ErrorKind> {
    if is_integer(tok) {
        if let Some(v) = core::str::from_utf8(tok)
            .ok()
            .and_then(|s| s.parse::<i64>().ok())
        {
            return Ok(Scalar::Int(v));
        }
    }
    parse_f64(tok).map(Scalar::Float)
}

/// The value tokens of an ASCII array's text, trimmed: split at commas, a final comma allowed,
/// and `;` comments (to the end of their line) skipped wherever they stand, as the FBX SDK and
/// ufbx read them (`0.5,-0.5, ; a comment`). Text without `;` takes the plain split.
pub(crate) fn array_tokens(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    let has_comments = memchr::memchr(b';', text).is_some();
    let trimmed = trim(text);
    let body = if has_comments {
        trimmed
    } else {
        trimmed.strip_suffix(b",").unwrap_or(trimmed)
    };
    let mut plain = (!has_comments && !body.is_empty()).then(|| body.split(|&c| c == b','));
    let mut pos = 0usize;
    core::iter::from_fn(move || {
        if let Some(parts) = plain.as_mut() {
            return parts.next().map(trim);
        }
        if !has_comments {
            return None;
        }
        // Blanks and comments before the token; the end of the text ends the tokens.
        loop {
            while pos < body.len() && is_blank(body[pos]) {
                pos += 1;
            }
            if pos < body.len() && body[pos] == b';' {
                pos += memchr::memchr(b'\n', &body[pos..]).unwrap_or(body.len() - pos);
                continue;
            }
            break;
        }
        if pos >= body.len() {
            return None;
        }
        let start = pos;
        while pos < body.len() && !matches!(body[pos], b',' | b';') {
            pos += 1;
        }
        let token = trim(&body[start..pos]);
        if pos < body.len() && body[pos] == b',' {
            pos += 1;
        }
        Some(token)
    })
}

/// Where an ASCII array's text ends: the first `}` outside a `;` comment.
pub(crate) fn array_text_end(text: &[u8]) -> Option<usize> {
    let mut pos = 0;
    loop {
        let i = memchr::memchr2(b'}', b';', &text[pos..])? + pos;
        if text[i] == b'}' {
            return Some(i);
        }
        pos = i + memchr::memchr(b'\n', &text[i..])?;
    }
}

/// The value of a `1.#INF`-style token (the Windows C runtime's spellings of infinity and NaN:
/// `1.#INF`, `-1.#IND`, `1.#QNAN`, `1.#SNAN`, with trailing digits as `printf` pads them), if
/// it is one: the number before the `#`, as Assimp 5.2 reads it (`fast_atof` stops at the
/// `#`), so a file Assimp reads gives its result. ufbx reads them as infinity and NaN.
fn msvc_special(tok: &[u8]) -> Option<f64> {
    let hash = memchr::memchr(b'#', tok)?;
    let (sign, digits) = match tok.first()? {
        b'-' => (-1.0, &tok[1..hash]),
        b'+' => (1.0, &tok[1..hash]),
        _ => (1.0, &tok[..hash]),
    };
    if digits.is_empty() || !digits.iter().all(|c| c.is_ascii_digit() || *c == b'.') {
        return None;
    }
    let tail = &tok[hash + 1..];
    let word_len = tail.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    if !tail[word_len..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    let word = &tail[..word_len];
    let known = [&b"INF"[..], b"IND", b"QNAN", b"SNAN", b"NAN"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w));
    let prefix: f64 = core::str::from_utf8(digits).ok()?.parse().ok()?;
    known.then_some(sign * prefix)
}

/// The NaN of a C library's spellings Rust's parser does not take: `snan`, `qnan`, `nan(…)`
/// (glibc's `-nan`, `nan(0x8000000000000)`, MSVC's `-nan(ind)`), any case, either sign.
fn c_nan(tok: &[u8]) -> Option<f64> {
    let t = match tok.first()? {
        b'-' | b'+' => &tok[1..],
        _ => tok,
    };
    let word_len = t.iter().take_while(|c| c.is_ascii_alphabetic()).count();
    let (word, tail) = t.split_at(word_len);
    let is_nan = [&b"nan"[..], b"snan", b"qnan"]
        .iter()
        .any(|w| word.eq_ignore_ascii_case(w));
    let tail_ok = tail.is_empty()
        || (tail.first() == Some(&b'(')
            && tail.last() == Some(&b')')
            && tail[1..tail.len() - 1]
                .iter()
                .all(|c| c.is_ascii_alphanumeric() || *c == b'_'));
    (is_nan && tail_ok).then_some(f64::NAN)
}

/// A decimal token as f64 (correctly rounded), one of the spellings of infinity and NaN C
/// libraries print (`inf`, `-nan(ind)`, `snan`, …), or a `1.#INF`-style token (its number).
pub(crate) fn parse_f64(tok: &[u8]) -> Result<f64, ErrorKind> {
    if let Some(v) = core::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
    {
        return Ok(v);
    }
    msvc_special(tok)
        .or_else(|| c_nan(tok))
        .ok_or_else(|| bad(tok))
}

/// A decimal token as Assimp 5.2 reads it (`fast_atof` into an `f32`): the token must be one
/// [`parse_f32`] takes (the same errors), and the value is then `fast_atof`'s where it reads
/// one (NaN spellings it does not know keep [`parse_f32`]'s NaN).
///
/// One pass for the usual token: when `fast_atof` reads the whole of it, it is a number
/// [`parse_f32`] takes too (the test `a_whole_fast_atof_read_is_a_valid_token` checks that;
/// a token never holds the `,` that `fast_atof` would take for a point, since the readers
/// split values at commas);
/// anything else (`1.#INF`, `-nan(ind)`, garbage) goes through [`parse_f32`] first.
pub(crate) fn assimp_f32(tok: &[u8]) -> Result<f32, ErrorKind> {
    match kiln_scene::fast_atof::fast_atof_prefix(tok) {
        Some((v, len)) if len == tok.len() => Ok(v),
        _ => {
            let v = parse_f32(tok)?;
            Ok(kiln_scene::fast_atof::fast_atof(tok).unwrap_or(v))
        }
    }
}

/// [`parse_scalar`] with Assimp's numbers: integers as they are, other numbers through
/// [`assimp_f32`].
pub(crate) fn parse_scalar_assimp(tok: &[u8]) -> Result<Scalar, ErrorKind> {
    match parse_scalar(tok)? {
        Scalar::Float(_) => assimp_f32(tok).map(|v| Scalar::Float(f64::from(v))),
        int => Ok(int),
    }
}

/// A decimal token as f32 (correctly rounded from the text, not through f64).
pub(crate) fn parse_f32(tok: &[u8]) -> Result<f32, ErrorKind> {
    if let Some(v) = core::str::from_utf8(tok)
        .ok()
        .and_then(|s| s.parse::<f32>().ok())
    {
        return Ok(v);
    }
    msvc_special(tok)
        .or_else(|| c_nan(tok))
        .map(|v| v as f32)
        .ok_or_else(|| bad(tok))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every token of up to 7 characters from the alphabet of numbers that `fast_atof` reads
    /// whole is one `parse_f32` accepts, so `assimp_f32`'s one-pass path accepts nothing the
    /// two-pass one refused (where both accept, both return `fast_atof`'s value).
    #[test]
    fn a_whole_fast_atof_read_is_a_valid_token() {
        let alphabet = b"0123456789.+-eEinfatyN";
        let mut tok = [0u8; 7];
        let mut checked = 0usize;
        for len in 1..=7usize {
            // A deterministic sample of each length (all of them up to 4 characters).
            let total = alphabet.len().pow(len as u32);
            let step = (total / 200_000).max(1);
            for mut k in (0..total).step_by(step) {
                for c in tok.iter_mut().take(len) {
                    *c = alphabet[k % alphabet.len()];
                    k /= alphabet.len();
                }
                let t = &tok[..len];
                if let Some((_, n)) = kiln_scene::fast_atof::fast_atof_prefix(t)
                    && n == len
                {
                    assert!(parse_f32(t).is_ok(), "{:?}", core::str::from_utf8(t));
                    checked += 1;
                }
            }
        }
        assert!(checked > 10_000, "{checked}");
    }

    #[test]
    fn scalars_are_typed_like_binary_files() {
        assert_eq!(parse_scalar(b"232"), Ok(Scalar::Int(232)));
        assert_eq!(parse_scalar(b"-7"), Ok(Scalar::Int(-7)));
        assert_eq!(parse_scalar(b"+7"), Ok(Scalar::Int(7)));
        assert_eq!(parse_scalar(b"1.5"), Ok(Scalar::Float(1.5)));
        assert_eq!(
            parse_scalar(b"1.19209289550781e-07"),
            Ok(Scalar::Float(1.19209289550781e-07))
        );
        assert_eq!(parse_scalar(b".5"), Ok(Scalar::Float(0.5)));
        // Beyond i64: read as a float rather than failing.
        assert_eq!(
            parse_scalar(b"99999999999999999999"),
            Ok(Scalar::Float(99999999999999999999.0))
        );
        assert!(matches!(
            parse_scalar(b"1.2.3"),
            Err(ErrorKind::BadNumber { .. })
        ));
        assert!(matches!(
            parse_scalar(b"-"),
            Err(ErrorKind::BadNumber { .. })
        ));
    }

    #[test]
    fn array_text_skips_comments_and_a_final_comma() {
        use alloc::string::String;
        use alloc::vec::Vec;
        let toks = |t: &str| -> Vec<String> {
            array_tokens(t.as_bytes())
                .map(|b| String::from_utf8(b.to_vec()).unwrap())
                .collect()
        };
        assert_eq!(toks("1, 2,3,"), ["1", "2", "3"]);
        assert_eq!(
            toks("-0.5,0.5, ; Hello, world\n\t; a line\n\n0.5 ; WOW"),
            ["-0.5", "0.5", "0.5"]
        );
        assert_eq!(toks("; only a comment\n"), Vec::<String>::new());
        assert_eq!(toks("1,,2"), ["1", "", "2"]);
        assert_eq!(toks(""), Vec::<String>::new());
        assert_eq!(array_text_end(b"1,2 ; not } the end\n3 }"), Some(22));
        assert_eq!(array_text_end(b"1,2 } x"), Some(4));
        assert_eq!(array_text_end(b"1 ; } no newline"), None);
    }

    #[test]
    fn c_library_spellings_of_nan_and_infinity() {
        for t in [
            "nan",
            "NaN",
            "-nan",
            "+nan",
            "snan",
            "QNaN",
            "nan(0x8000000000000)",
            "-nan(ind)",
            "NAN(123)",
        ] {
            assert!(parse_f64(t.as_bytes()).unwrap().is_nan(), "{t}");
            assert!(parse_f32(t.as_bytes()).unwrap().is_nan(), "{t}");
        }
        assert_eq!(parse_f64(b"inf").unwrap(), f64::INFINITY);
        assert_eq!(parse_f64(b"-Infinity").unwrap(), f64::NEG_INFINITY);
        for t in ["nan(", "nan()x", "nanx", "na", "nan(a b)", "-"] {
            assert!(parse_f64(t.as_bytes()).is_err(), "{t}");
        }
    }

    #[test]
    fn msvc_spellings_of_non_finite_values() {
        // As Assimp 5.2 reads them (checked against it): the number before the `#`.
        assert_eq!(parse_f64(b"1.#INF"), Ok(1.0));
        assert_eq!(parse_f64(b"-1.#INF00"), Ok(-1.0));
        assert_eq!(parse_f64(b"-1.#IND"), Ok(-1.0));
        assert_eq!(parse_f64(b"1.#QNAN"), Ok(1.0));
        assert_eq!(parse_f32(b"1.#SNAN0"), Ok(1.0));
        assert!(parse_f64(b"1.#XYZ").is_err());
        assert!(parse_f64(b"#INF").is_err());
    }

    #[test]
    fn long_mantissas_round_correctly() {
        let v = parse_f64(
            b"-0.499999970197678837568736483756834756843765742357638475634975438756456436545",
        )
        .unwrap();
        // Python: float("-0.4999999701976788375687...") == -0.49999997019767883
        assert_eq!(v, -0.49999997019767883);
        assert_eq!(parse_f32(b"0.1").unwrap(), 0.1f32);
    }

    #[test]
    fn integers_out_of_range_are_named() {
        assert!(matches!(
            parse_int(b"99999999999999999999"),
            Err(ErrorKind::OutOfRange { target: "i64", .. })
        ));
        assert!(matches!(
            parse_int(b"1.0"),
            Err(ErrorKind::BadNumber { .. })
        ));
    }
}
