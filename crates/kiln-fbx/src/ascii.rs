//! ASCII FBX (6.1 and 7.x): `Name: value, value, ... { children }`, `;` comments.
//!
//! Tokens are recognised with `nom` (names, strings, numbers, array heads); the nesting is a
//! loop with an explicit stack. Values are typed the way binary files type them: integer
//! literals as `I` (or `L` past i32), decimals as `D`, quoted text as `S`, one-letter bare
//! words (`Shading: T`) as `C`, `*N { a: ... }` as an array whose text is parsed on request,
//! and the quoted base64 pieces of a `Content:` node as one `R` blob decoded on request.
//!
//! Quirks handled: a leading comma (`Content: , "..."`), values continued over lines by a
//! trailing comma (FBX 6 `Vertices: 1,2,\n 3,...`), bare words as values (`Key: 0,0,U,s,...`
//! in FBX 6 takes), a UTF-8 BOM, CR LF line ends, `*0 { }` without `a:`, and the MSVC
//! spellings `1.#INF`/`-1.#IND` in numbers.

use alloc::string::{String, ToString};
use alloc::vec::Vec;

use nom::Parser;
use nom::bytes::complete::{tag, take_till, take_while, take_while1};
use nom::character::complete::{char, digit1, space0, space1};
use nom::sequence::delimited;

use crate::builder::{Builder, MAX_DEPTH_LIMIT, ParseOptions};
use crate::document::{Document, Format, NO_PARENT, PropRec};
use crate::error::{Error, ErrorKind, Location, describe};
use crate::number::{self, Scalar, is_blank};
use crate::value::{Array, ArrayEncoding, ArrayType, Raw, Value};

type NomResult<'a, O> = nom::IResult<&'a [u8], O, ()>;

/// Bytes that end a word (a name or a bare value).
#[inline]
fn is_word_byte(c: u8) -> bool {
    !is_blank(c) && !matches!(c, b':' | b',' | b'{' | b'}' | b'"' | b';' | b'*')
}

fn word(i: &[u8]) -> NomResult<'_, &[u8]> {
    take_while1(is_word_byte)(i)
}

/// Blanks (newlines included) and a `:`: what makes the word before it a node name.
fn colon(i: &[u8]) -> NomResult<'_, char> {
    let (i, _) = take_while(is_blank)(i)?;
    char(':')(i)
}

fn quoted(i: &[u8]) -> NomResult<'_, &[u8]> {
    delimited(char('"'), take_till(|c| c == b'"'), char('"')).parse(i)
}

fn array_head(i: &[u8]) -> NomResult<'_, &[u8]> {
    let (i, _) = char('*')(i)?;
    digit1(i)
}

/// `; FBX 7.4.0 project file` → 7400.
fn version_comment(i: &[u8]) -> NomResult<'_, u32> {
    let (i, _) = (tag(";"), space0, tag("FBX"), space1).parse(i)?;
    let digit = || nom::character::complete::satisfy(|c| c.is_ascii_digit());
    let (i, (a, _, b, _, c)) = (digit(), char('.'), digit(), char('.'), digit()).parse(i)?;
    let d = |c: char| c as u32 - '0' as u32;
    Ok((i, d(a) * 1000 + d(b) * 100 + d(c) * 10))
}

struct Fail {
    offset: usize,
    kind: ErrorKind,
}

fn fail<T>(offset: usize, kind: ErrorKind) -> Result<T, Fail> {
    Err(Fail { offset, kind })
}

fn expected(offset: usize, what: &'static str, found: &[u8]) -> Fail {
    let found = match found.first() {
        None => describe(b""),
        Some(_) => {
            let len = found
                .iter()
                .take(24)
                .position(|&c| c == b'\n' || c == b'\r')
                .unwrap_or(found.len().min(24))
                .max(1);
            describe(&found[..len])
        }
    };
    Fail {
        offset,
        kind: ErrorKind::Expected {
            expected: what,
            found,
        },
    }
}

struct Open {
    id: u32,
}

struct Reader<'a, 'b> {
    input: &'a [u8],
    pos: usize,
    b: &'b mut Builder<'a>,
    max_depth: usize,
    assimp_numbers: bool,
}

/// Parses an ASCII FBX file.
pub(crate) fn parse<'a>(input: &'a [u8], options: &ParseOptions) -> Result<Document<'a>, Error> {
    let mut b = Builder::new(input.len());
    let mut stack: Vec<Open> = Vec::new();
    let mut current = NO_PARENT;
    let start = if input.starts_with(b"\xEF\xBB\xBF") {
        3
    } else {
        0
    };
    let mut p = Reader {
        input,
        pos: start,
        b: &mut b,
        max_depth: options.max_depth.min(MAX_DEPTH_LIMIT),
        assimp_numbers: options.assimp_numbers,
    };
    let mut version = {
        let rest = &input[start..];
        let rest = &rest[rest.iter().take_while(|c| is_blank(**c)).count()..];
        version_comment(rest).map_or(0, |(_, v)| v)
    };
    let result = p.run(&mut stack, &mut current);
    let pos = p.pos;
    match result {
        Ok(()) => {
            if b.nodes.is_empty() {
                let at = pos.min(input.len());
                return Err(Error::new(
                    Location::at(input, true, at),
                    String::new(),
                    ErrorKind::NotFbx,
                ));
            }
            let doc = b.finish(input, Format::Ascii, version);
            if version == 0 {
                version = doc
                    .root("FBXHeaderExtension")
                    .and_then(|h| h.child("FBXVersion"))
                    .and_then(|v| v.get_i64(0).ok())
                    .and_then(|v| u32::try_from(v).ok())
                    .unwrap_or(0);
                return Ok(Document { version, ..doc });
            }
            Ok(doc)
        }
        Err(f) => {
            let node = if current != NO_PARENT {
                current
            } else {
                stack.last().map_or(NO_PARENT, |o| o.id)
            };
            let path = if node == NO_PARENT {
                String::new()
            } else {
                b.path(node)
            };
            Err(Error::new(
                Location::at(input, true, f.offset),
                path,
                f.kind,
            ))
        }
    }
}

impl<'a> Reader<'a, '_> {
    fn rest(&self) -> &'a [u8] {
        &self.input[self.pos..]
    }

    fn peek(&self) -> Option<u8> {
        self.input.get(self.pos).copied()
    }

    /// Skips blanks and `;` comments.
    fn skip(&mut self) {
        loop {
            while let Some(&c) = self.input.get(self.pos) {
                if is_blank(c) {
                    self.pos += 1;
                } else {
                    break;
                }
            }
            if self.peek() != Some(b';') {
                return;
            }
            self.pos = match memchr::memchr(b'\n', self.rest()) {
                Some(i) => self.pos + i + 1,
                None => self.input.len(),
            };
        }
    }

    fn run(&mut self, stack: &mut Vec<Open>, current: &mut u32) -> Result<(), Fail> {
        loop {
            *current = NO_PARENT;
            self.skip();
            let at = self.pos;
            match self.peek() {
                None => {
                    return match stack.last() {
                        None => Ok(()),
                        Some(open) => {
                            let rec = &self.b.nodes[open.id as usize];
                            let line = match Location::at(self.input, true, rec.offset) {
                                Location::Text { line, .. } => line,
                                _ => 0,
                            };
                            fail(
                                at,
                                ErrorKind::UnclosedNode {
                                    name: rec.name.to_string(),
                                    line,
                                },
                            )
                        }
                    };
                }
                Some(b'}') => {
                    let Some(open) = stack.pop() else {
                        return fail(at, ErrorKind::UnbalancedClose);
                    };
                    self.b.close(open.id);
                    self.pos += 1;
                    continue;
                }
                Some(_) => {}
            }
            let Ok((after_name, name)) = word(self.rest()) else {
                return Err(expected(
                    at,
                    "a node name followed by ':', or '}'",
                    self.rest(),
                ));
            };
            let Ok((after_colon, _)) = colon(after_name) else {
                return Err(expected(
                    at + name.len(),
                    "':' after the node name",
                    after_name,
                ));
            };
            let Ok(name) = core::str::from_utf8(name) else {
                return fail(at, ErrorKind::NameNotUtf8);
            };
            if stack.len() >= self.max_depth {
                return fail(
                    at,
                    ErrorKind::TooDeep {
                        limit: self.max_depth,
                    },
                );
            }
            self.pos = self.input.len() - after_colon.len();
            let parent = stack.last().map_or(NO_PARENT, |o| o.id);
            let id = self
                .b
                .open(name, at, parent)
                .map_err(|kind| Fail { offset: at, kind })?;
            *current = id;
            self.values(name)?;
            self.b
                .end_properties(id)
                .map_err(|kind| Fail { offset: at, kind })?;
            self.skip();
            if self.peek() == Some(b'{') {
                self.pos += 1;
                stack.push(Open { id });
            }
        }
    }

    /// The values after `Name:`, up to the first one not followed by a comma.
    fn values(&mut self, name: &str) -> Result<(), Fail> {
        let first_prop = self.b.props.len();
        let mut strings_only = true;
        let mut last_string_end = 0;
        self.skip();
        if self.peek() == Some(b',') {
            self.pos += 1;
        }
        loop {
            self.skip();
            let at = self.pos;
            let value = match self.peek() {
                Some(b'"') => {
                    let Ok((rest, text)) = quoted(self.rest()) else {
                        return fail(at, ErrorKind::UnterminatedString);
                    };
                    self.pos = self.input.len() - rest.len();
                    last_string_end = self.pos;
                    Value::String(text)
                }
                Some(b'*') => {
                    let array = self.array()?;
                    self.b.props.push(PropRec {
                        value: Value::Array(array),
                        offset: at,
                    });
                    return Ok(());
                }
                Some(c) if is_word_byte(c) => {
                    let Ok((rest, token)) = word(self.rest()) else {
                        return Err(expected(at, "a value", self.rest()));
                    };
                    if colon(rest).is_ok() {
                        // The next node's name: this node's values have ended.
                        break;
                    }
                    self.pos = self.input.len() - rest.len();
                    strings_only = false;
                    if matches!(c, b'0'..=b'9' | b'-' | b'+' | b'.') {
                        let parse = if self.assimp_numbers {
                            number::parse_scalar_assimp
                        } else {
                            number::parse_scalar
                        };
                        match parse(token).map_err(|kind| Fail { offset: at, kind })? {
                            Scalar::Int(v) => match i32::try_from(v) {
                                Ok(v) => Value::I32(v),
                                Err(_) => Value::I64(v),
                            },
                            Scalar::Float(v) => Value::F64(v),
                        }
                    } else if token.len() == 1 {
                        Value::Char(token[0])
                    } else {
                        Value::String(token)
                    }
                }
                _ => break,
            };
            self.b.props.push(PropRec { value, offset: at });
            self.skip();
            if self.peek() == Some(b',') {
                self.pos += 1;
            } else {
                break;
            }
        }
        let props = &mut self.b.props;
        if name == "Content" && strings_only && props.len() > first_prop {
            // Base64 pieces: one blob, as binary files store it.
            let start = props[first_prop].offset;
            props.truncate(first_prop);
            props.push(PropRec {
                value: Value::Raw(Raw::Base64(&self.input[start..last_string_end])),
                offset: start,
            });
        }
        Ok(())
    }

    /// `*N { a: v, v, ... }`.
    fn array(&mut self) -> Result<Array<'a>, Fail> {
        let at = self.pos;
        let Ok((rest, digits)) = array_head(self.rest()) else {
            return Err(expected(at, "an array length after '*'", &self.rest()[1..]));
        };
        let declared = core::str::from_utf8(digits)
            .ok()
            .and_then(|s| s.parse::<u32>().ok())
            .ok_or_else(|| Fail {
                offset: at,
                kind: ErrorKind::OutOfRange {
                    value: describe(digits).trim_matches('`').to_string(),
                    index: 0,
                    target: "an array length (u32)",
                },
            })?;
        self.pos = self.input.len() - rest.len();
        self.skip();
        if self.peek() != Some(b'{') {
            return Err(expected(
                self.pos,
                "'{' after the array length",
                self.rest(),
            ));
        }
        let open = self.pos;
        self.pos += 1;
        self.skip();
        if self.peek() != Some(b'}') {
            let key = self.pos;
            match word(self.rest()) {
                Ok((rest, _)) => match colon(rest) {
                    Ok((rest, _)) => self.pos = self.input.len() - rest.len(),
                    Err(_) => {
                        return Err(expected(key, "'a:' before the array values", self.rest()));
                    }
                },
                Err(_) => return Err(expected(key, "'a:' before the array values", self.rest())),
            }
        }
        let body_start = self.pos;
        let Some(close) = number::array_text_end(self.rest()) else {
            return Err(expected(open, "'}' closing the array", b""));
        };
        let body = &self.input[body_start..body_start + close];
        self.pos = body_start + close + 1;
        // A `*N` that disagrees with the values listed is an error of this array when it is
        // decoded (`ArrayCountMismatch`), not of the file: Assimp drops the object that holds
        // it and reads the rest, and ufbx reads the file. Decoding reserves no more than the
        // text can hold.
        let (ty, _) = classify(body);
        Ok(Array {
            ty,
            len: declared,
            encoding: ArrayEncoding::Text(body),
            assimp_numbers: self.assimp_numbers,
        })
    }
}

/// The element count of an array's text and its type: `F64` when anything but digits, signs,
/// commas and blanks appears (fractions, exponents, `1.#INF`; garbage fails when decoded),
/// else `I32`, or `I64` when a value has more than 9 digits.
fn classify(body: &[u8]) -> (ArrayType, u64) {
    if memchr::memchr(b';', body).is_some() {
        // With comments: count and type from the tokens.
        let mut count = 0u64;
        let mut float = false;
        let mut longest = 0usize;
        for tok in number::array_tokens(body) {
            count += 1;
            let digits = tok.iter().filter(|c| c.is_ascii_digit()).count();
            longest = longest.max(digits);
            float |= !tok
                .iter()
                .all(|c| c.is_ascii_digit() || matches!(c, b'-' | b'+'));
        }
        let ty = if float {
            ArrayType::F64
        } else if longest > 9 {
            ArrayType::I64
        } else {
            ArrayType::I32
        };
        return (ty, count);
    }
    let t = number::trim(body);
    if t.is_empty() {
        return (ArrayType::I32, 0);
    }
    let mut count = memchr::memchr_iter(b',', t).count() as u64 + 1;
    if t.ends_with(b",") {
        count -= 1;
    }
    let mut run = 0u32;
    let mut longest = 0u32;
    for &c in t {
        if c.is_ascii_digit() {
            run += 1;
            longest = longest.max(run);
        } else if matches!(c, b',' | b'-' | b'+') || is_blank(c) {
            run = 0;
        } else {
            return (ArrayType::F64, count);
        }
    }
    (
        if longest > 9 {
            ArrayType::I64
        } else {
            ArrayType::I32
        },
        count,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classify_types_like_binary_files() {
        assert_eq!(classify(b" 0,2,3,-2 "), (ArrayType::I32, 4));
        assert_eq!(classify(b"0,46186158000"), (ArrayType::I64, 2));
        assert_eq!(classify(b"0.5,1,2"), (ArrayType::F64, 3));
        assert_eq!(classify(b"1e5"), (ArrayType::F64, 1));
        assert_eq!(classify(b"  "), (ArrayType::I32, 0));
        assert_eq!(classify(b"1,2,3,\n"), (ArrayType::I32, 3));
    }

    #[test]
    fn version_from_the_magic_comment() {
        assert_eq!(
            version_comment(b"; FBX 7.4.0 project file").map(|r| r.1),
            Ok(7400)
        );
        assert_eq!(
            version_comment(b";FBX 6.1.0 project file").map(|r| r.1),
            Ok(6100)
        );
        assert!(version_comment(b"; hello").is_err());
    }
}
