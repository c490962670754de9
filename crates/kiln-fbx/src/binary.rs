//! Binary FBX: a 27-byte header, then node records until an all-zero null record, then a
//! footer this reader does not need (and so does not check).
//!
//! A record is `end_offset, property_count, property_bytes` (u32 each before 7500, u64 from
//! 7500), a u8 name length and the name, the properties, then, when the record ends later
//! than its properties, a child list closed by a null record. The walk is a loop with an
//! explicit stack of open records, so no recursion depends on the file.

use alloc::string::String;
use alloc::vec::Vec;

use crate::builder::{Builder, MAX_DEPTH_LIMIT, ParseOptions};
use crate::document::{Document, Format, NO_PARENT, PropRec};
use crate::error::{Error, ErrorKind, Location};
use crate::inflate::max_inflated;
use crate::value::{Array, ArrayEncoding, ArrayType, Raw, Value};

/// The 23 fixed bytes that open a binary file, followed by the u32 version.
pub const MAGIC: &[u8; 23] = b"Kaydara FBX Binary  \x00\x1a\x00";

/// The binary versions read: FBX 2000 to 7.7. Every one before 7500 has 32-bit record
/// fields, every one from 7500 64-bit; the pre-6000 files (3ds Max 6 and 7 write header
/// version 3000 or 5000) differ from 6.x in what the records hold, not how they are laid out.
pub(crate) const VERSIONS: core::ops::RangeInclusive<u32> = 2000..=7999;

/// Size of the header: magic and version.
pub(crate) const HEADER_LEN: usize = 27;

/// Whether `input` starts like a binary FBX file (the first 18 bytes of the magic).
pub(crate) fn is_binary(input: &[u8]) -> bool {
    input.starts_with(&MAGIC[..18])
}

struct Open {
    id: u32,
    end: usize,
}

struct Fail {
    offset: usize,
    kind: ErrorKind,
}

fn fail<T>(offset: usize, kind: ErrorKind) -> Result<T, Fail> {
    Err(Fail { offset, kind })
}

fn eof(offset: usize, expected: &'static str, needed: usize, limit: usize) -> Fail {
    Fail {
        offset,
        kind: ErrorKind::UnexpectedEnd {
            expected,
            needed: needed as u64,
            available: limit.saturating_sub(offset) as u64,
        },
    }
}

#[inline(always)]
fn array<const N: usize>(input: &[u8], at: usize) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&input[at..at + N]);
    a
}

#[inline(always)]
fn u32_at(input: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(array(input, at))
}

/// Parses a binary FBX file.
pub(crate) fn parse<'a>(input: &'a [u8], options: &ParseOptions) -> Result<Document<'a>, Error> {
    let version = header(input)
        .map_err(|f| Error::new(Location::Byte(f.offset as u64), String::new(), f.kind))?;
    let mut b = Builder::new(input.len());
    let mut stack: Vec<Open> = Vec::new();
    match records(input, version, options, &mut b, &mut stack) {
        Ok(()) => Ok(b.finish(input, Format::Binary, version)),
        Err(f) => {
            let path = stack.last().map_or_else(String::new, |o| b.path(o.id));
            Err(Error::new(Location::Byte(f.offset as u64), path, f.kind))
        }
    }
}

fn header(input: &[u8]) -> Result<u32, Fail> {
    for (i, &expected) in MAGIC.iter().enumerate() {
        match input.get(i) {
            None => {
                return Err(eof(
                    input.len(),
                    "the 27-byte binary header",
                    HEADER_LEN,
                    input.len(),
                ));
            }
            Some(&1) if i == 22 && input[..22] == MAGIC[..22] => {
                return fail(i, ErrorKind::BigEndian);
            }
            Some(&found) if found != expected => {
                if expected == 0 && found == b' ' && memchr::memchr(0, input).is_none() {
                    return fail(i, ErrorKind::NulBytesReplaced);
                }
                return fail(i, ErrorKind::BadHeader { expected, found });
            }
            Some(_) => {}
        }
    }
    if input.len() < HEADER_LEN {
        return Err(eof(23, "the header's version", 4, input.len()));
    }
    let version = u32_at(input, 23);
    if !VERSIONS.contains(&version) {
        return fail(23, ErrorKind::UnsupportedVersion(version));
    }
    Ok(version)
}

/// A record's header: `end_offset, property_count, property_bytes` (u32 each before 7500,
/// u64 from 7500) and the name length, read in the file's byte order (big-endian files:
/// `crate::big_endian`). Both walks share it and [`RecordHeader::extent`], so they read and
/// check records the same way.
#[derive(Clone, Copy, Debug)]
pub(crate) struct RecordHeader {
    pub(crate) end: u64,
    pub(crate) count: u64,
    pub(crate) bytes: u64,
    pub(crate) name_len: u8,
}

/// Where a record's parts lie, checked against its container.
pub(crate) struct Extent {
    /// The record's end (after its child list, if any).
    pub(crate) end: usize,
    pub(crate) name_start: usize,
    pub(crate) props_start: usize,
    pub(crate) props_end: usize,
}

impl RecordHeader {
    /// Reads the header at `p` (the caller checked that `header_len` bytes are there).
    #[inline(always)]
    pub(crate) fn read(input: &[u8], p: usize, wide: bool, big: bool) -> RecordHeader {
        let u32_of = |at: usize| {
            let a: [u8; 4] = array(input, at);
            if big {
                u32::from_be_bytes(a)
            } else {
                u32::from_le_bytes(a)
            }
        };
        let u64_of = |at: usize| {
            let a: [u8; 8] = array(input, at);
            if big {
                u64::from_be_bytes(a)
            } else {
                u64::from_le_bytes(a)
            }
        };
        if wide {
            RecordHeader {
                end: u64_of(p),
                count: u64_of(p + 8),
                bytes: u64_of(p + 16),
                name_len: input[p + 24],
            }
        } else {
            RecordHeader {
                end: u64::from(u32_of(p)),
                count: u64::from(u32_of(p + 4)),
                bytes: u64::from(u32_of(p + 8)),
                name_len: input[p + 12],
            }
        }
    }

    /// Whether this record ends a node list. An all-zero record does. A zero end offset with
    /// a name or properties is a node without children whose writer left the offset out
    /// (Maya does, after some header nodes), as the FBX SDK and ufbx read it — except at the
    /// top level, where a zero end offset ends the nodes whatever follows (the footer, which
    /// versions and exporters write differently, is not needed).
    #[inline(always)]
    pub(crate) fn is_null(&self, nested: bool) -> bool {
        self.end == 0 && !(nested && (self.count != 0 || self.bytes != 0 || self.name_len != 0))
    }

    /// The record's parts, checked: its end inside `limit` and not before its properties, no
    /// more properties than their bytes can hold. A zero end offset (a leaf, see
    /// [`RecordHeader::is_null`]) ends after the properties.
    #[inline(always)]
    pub(crate) fn extent(
        &self,
        p: usize,
        header_len: usize,
        limit: usize,
        container: &'static str,
    ) -> Result<Extent, ErrorKind> {
        let name_start = p + header_len;
        let props_start = name_start + usize::from(self.name_len);
        let props_end = (props_start as u64).saturating_add(self.bytes);
        let end = if self.end == 0 { props_end } else { self.end };
        if end > limit as u64 {
            return Err(ErrorKind::EndOffsetPastLimit {
                end,
                limit: limit as u64,
                container,
            });
        }
        if end < props_end {
            return Err(ErrorKind::EndOffsetTooSmall {
                end,
                min: props_end,
            });
        }
        if self.count > self.bytes / 2 {
            return Err(ErrorKind::TooManyProperties {
                count: self.count,
                bytes: self.bytes,
            });
        }
        // `props_end <= end <= limit`, so these fit.
        Ok(Extent {
            end: end as usize,
            name_start,
            props_start,
            props_end: props_end as usize,
        })
    }
}

/// The checks of an array's header, shared by both byte orders: a plain array (encoding 0)
/// holds exactly its count's bytes, a compressed one (1) cannot inflate past what its bytes can
/// give ([`max_inflated`]), no other encoding exists. `Ok(compressed)`; `Err((kind, true))`
/// when the error is about the encoding field itself.
pub(crate) fn check_array(
    code: u8,
    ty: ArrayType,
    len: u32,
    encoding: u32,
    byte_len: u32,
) -> Result<bool, (ErrorKind, bool)> {
    let declared = u64::from(len) * ty.element_size() as u64;
    match encoding {
        0 if declared != u64::from(byte_len) => Err((
            ErrorKind::ArraySizeMismatch {
                ty: char::from(code),
                count: len,
                expected: declared,
                found: byte_len,
            },
            false,
        )),
        0 => Ok(false),
        1 => {
            let max = max_inflated(u64::from(byte_len));
            if declared > max {
                Err((
                    ErrorKind::InflateBomb {
                        declared,
                        compressed: u64::from(byte_len),
                        max,
                    },
                    false,
                ))
            } else {
                Ok(true)
            }
        }
        other => Err((ErrorKind::UnknownArrayEncoding(other), true)),
    }
}

fn records<'a>(
    input: &'a [u8],
    version: u32,
    options: &ParseOptions,
    b: &mut Builder<'a>,
    stack: &mut Vec<Open>,
) -> Result<(), Fail> {
    let wide = version >= 7500;
    let header_len = if wide { 25 } else { 13 };
    let max_depth = options.max_depth.min(MAX_DEPTH_LIMIT);
    let mut p = HEADER_LEN;
    loop {
        let (limit, container) = match stack.last() {
            Some(open) => (open.end, "parent node"),
            None => (input.len(), "file"),
        };
        if let Some(open) = stack.last() {
            // A child list that fills its parent exactly, without a null record (lenient).
            if p == open.end {
                b.close(open.id);
                stack.pop();
                continue;
            }
        }
        if limit - p < header_len {
            let what = if stack.is_empty() {
                "a node record or the top-level null record"
            } else {
                "a node record or the null record ending the child list"
            };
            return Err(eof(p, what, header_len, limit));
        }
        let header = RecordHeader::read(input, p, wide, false);
        if header.is_null(!stack.is_empty()) {
            p += header_len;
            match stack.last() {
                None => return Ok(()), // the footer that follows is not needed
                Some(open) => {
                    if p != open.end {
                        return fail(
                            p,
                            ErrorKind::ChildListEnd {
                                found: p as u64,
                                expected: open.end as u64,
                            },
                        );
                    }
                    b.close(open.id);
                    stack.pop();
                    continue;
                }
            }
        }
        let Extent {
            end,
            name_start,
            props_start,
            props_end,
        } = header
            .extent(p, header_len, limit, container)
            .map_err(|kind| Fail { offset: p, kind })?;
        let count = header.count;
        let Ok(name) = core::str::from_utf8(&input[name_start..props_start]) else {
            return fail(name_start, ErrorKind::NameNotUtf8);
        };
        if stack.len() >= max_depth {
            return fail(p, ErrorKind::TooDeep { limit: max_depth });
        }
        let parent = stack.last().map_or(NO_PARENT, |o| o.id);
        let id = b
            .open(name, p, parent)
            .map_err(|kind| Fail { offset: p, kind })?;
        if let Err(f) = properties(input, props_start, props_end, count, &mut b.props) {
            // Report the failing node's path.
            stack.push(Open { id, end });
            return Err(f);
        }
        b.end_properties(id)
            .map_err(|kind| Fail { offset: p, kind })?;
        p = props_end;
        if p < end {
            stack.push(Open { id, end });
        }
    }
}

fn properties<'a>(
    input: &'a [u8],
    start: usize,
    end: usize,
    count: u64,
    out: &mut Vec<PropRec<'a>>,
) -> Result<(), Fail> {
    let region = &input[..end];
    let mut p = start;
    out.reserve(count as usize);
    for _ in 0..count {
        let at = p;
        let Some(&code) = region.get(p) else {
            return Err(eof(p, "a property type code", 1, end));
        };
        p += 1;
        let value = match code {
            b'C' | b'Z' | b'Y' | b'I' | b'F' | b'D' | b'L' => {
                let (size, what) = match code {
                    b'C' => (1, "a 'C' value"),
                    b'Z' => (1, "a 'Z' value"),
                    b'Y' => (2, "a 'Y' value"),
                    b'I' => (4, "an 'I' value"),
                    b'F' => (4, "an 'F' value"),
                    _ => (8, "a 'D' or 'L' value"),
                };
                if end - p < size {
                    return Err(eof(p, what, size, end));
                }
                let v = match code {
                    b'C' => Value::Char(region[p]),
                    b'Z' => Value::U8(region[p]),
                    b'Y' => Value::I16(i16::from_le_bytes(array(region, p))),
                    b'I' => Value::I32(i32::from_le_bytes(array(region, p))),
                    b'F' => Value::F32(f32::from_le_bytes(array(region, p))),
                    b'D' => Value::F64(f64::from_le_bytes(array(region, p))),
                    _ => Value::I64(i64::from_le_bytes(array(region, p))),
                };
                p += size;
                v
            }
            b'S' | b'R' => {
                if end - p < 4 {
                    return Err(eof(p, "a string or blob length", 4, end));
                }
                let len = u32_at(region, p) as usize;
                p += 4;
                if end - p < len {
                    return Err(eof(p, "string or blob bytes", len, end));
                }
                let bytes = &region[p..p + len];
                p += len;
                if code == b'S' {
                    Value::String(bytes)
                } else {
                    Value::Raw(Raw::Bytes(bytes))
                }
            }
            _ => {
                let Some(ty) = ArrayType::from_code(code) else {
                    return fail(at, ErrorKind::UnknownPropertyType { found: code });
                };
                if end - p < 12 {
                    return Err(eof(
                        p,
                        "an array header (count, encoding, byte length)",
                        12,
                        end,
                    ));
                }
                let len = u32_at(region, p);
                let encoding = u32_at(region, p + 4);
                let byte_len = u32_at(region, p + 8);
                p += 12;
                let encoding = match check_array(code, ty, len, encoding, byte_len) {
                    Ok(false) => ArrayEncoding::Plain as fn(&'a [u8]) -> ArrayEncoding<'a>,
                    Ok(true) => ArrayEncoding::Zlib,
                    Err((kind, at_encoding)) => {
                        return fail(if at_encoding { p - 8 } else { at }, kind);
                    }
                };
                let byte_len = byte_len as usize;
                if end - p < byte_len {
                    return Err(eof(p, "array data", byte_len, end));
                }
                let data = &region[p..p + byte_len];
                p += byte_len;
                Value::Array(Array {
                    ty,
                    len,
                    encoding: encoding(data),
                    assimp_numbers: false,
                })
            }
        };
        out.push(PropRec { value, offset: at });
    }
    if p != end {
        return fail(
            p,
            ErrorKind::PropertyListLength {
                count,
                declared: (end - start) as u64,
                actual: (p - start) as u64,
            },
        );
    }
    Ok(())
}
