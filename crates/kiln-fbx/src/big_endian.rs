//! Big-endian binary FBX (Maya on PowerPC Macs, versions 6100 to 7500): byte 22 of the header
//! is 1 instead of 0, and every record field, number, string and blob length, array header and
//! array element is big-endian (inside a zlib stream too).
//!
//! [`Document`](crate::Document) borrows the input and reads little-endian numbers in place, so
//! a big-endian file is first rewritten as the little-endian file the FBX SDK would have written
//! ([`to_little_endian`]): the same records in the same order, every number swapped, compressed
//! arrays inflated, swapped and stored plain, end offsets recomputed. It is a walk with an
//! explicit stack, like the reader, and checks what the reader checks (offsets inside their
//! parent, property lengths, inflated sizes capped by the compressed size), so a malformed
//! file fails here with the same kind of error and the byte offset in the original file.

use alloc::string::String;
use alloc::vec::Vec;

use crate::binary::{Extent, HEADER_LEN, MAGIC, RecordHeader, check_array};
use crate::error::{Error, ErrorKind, Location};
use crate::inflate::inflate_exact;
use crate::value::ArrayType;

/// Whether `input` is a big-endian binary FBX file (the magic with 1 at byte 22).
pub fn is_big_endian(input: &[u8]) -> bool {
    input.len() >= HEADER_LEN && input[..22] == MAGIC[..22] && input[22] == 1
}

fn err(offset: usize, kind: ErrorKind) -> Error {
    Error::new(Location::Byte(offset as u64), String::new(), kind)
}

fn eof(offset: usize, expected: &'static str, needed: usize, limit: usize) -> Error {
    err(
        offset,
        ErrorKind::UnexpectedEnd {
            expected,
            needed: needed as u64,
            available: limit.saturating_sub(offset) as u64,
        },
    )
}

fn be32(input: &[u8], at: usize) -> u32 {
    u32::from_be_bytes([input[at], input[at + 1], input[at + 2], input[at + 3]])
}

/// The little-endian file of a big-endian one; `Ok(None)` when `input` is not big-endian
/// binary FBX (read it as it is).
pub fn to_little_endian(input: &[u8]) -> Result<Option<Vec<u8>>, Error> {
    if !is_big_endian(input) {
        return Ok(None);
    }
    let version = be32(input, 23);
    if !crate::binary::VERSIONS.contains(&version) {
        return Err(err(23, ErrorKind::UnsupportedVersion(version)));
    }
    let wide = version >= 7500;
    let header_len = if wide { 25 } else { 13 };
    let mut out = Vec::with_capacity(input.len() + input.len() / 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&version.to_le_bytes());
    let field = |out: &mut Vec<u8>, v: u64| {
        if wide {
            out.extend_from_slice(&v.to_le_bytes());
        } else {
            out.extend_from_slice(&(v as u32).to_le_bytes());
        }
    };
    let patch = |out: &mut Vec<u8>, at: usize, v: u64| -> Result<(), Error> {
        if wide {
            out[at..at + 8].copy_from_slice(&v.to_le_bytes());
        } else {
            let v = u32::try_from(v).map_err(|_| {
                err(
                    at,
                    ErrorKind::Unwritable("a little-endian copy over 4 GiB needs version 7500"),
                )
            })?;
            out[at..at + 4].copy_from_slice(&v.to_le_bytes());
        }
        Ok(())
    };
    // Open records: (end in the input, where the output record starts).
    let mut stack: Vec<(usize, usize)> = Vec::new();
    let mut p = HEADER_LEN;
    loop {
        let limit = stack.last().map_or(input.len(), |s| s.0);
        if let Some(&(end, at)) = stack.last() {
            if p == end {
                // A child list that fills its parent without a null record.
                let here = out.len() as u64;
                patch(&mut out, at, here)?;
                stack.pop();
                continue;
            }
        }
        if limit - p < header_len {
            return Err(eof(p, "a node record or a null record", header_len, limit));
        }
        let header = RecordHeader::read(input, p, wide, true);
        if header.is_null(!stack.is_empty()) {
            p += header_len;
            out.resize(out.len() + header_len, 0);
            match stack.pop() {
                None => return Ok(Some(out)),
                Some((parent_end, at)) => {
                    if p != parent_end {
                        return Err(err(
                            p,
                            ErrorKind::ChildListEnd {
                                found: p as u64,
                                expected: parent_end as u64,
                            },
                        ));
                    }
                    let here = out.len() as u64;
                    patch(&mut out, at, here)?;
                    continue;
                }
            }
        }
        let container = if stack.is_empty() {
            "file"
        } else {
            "parent node"
        };
        let Extent {
            end,
            name_start,
            props_start,
            props_end,
        } = header
            .extent(p, header_len, limit, container)
            .map_err(|kind| err(p, kind))?;
        let count = header.count;
        let name_len = header.name_len;
        // What the little-endian parser refuses is refused here, so that a rewritten file
        // always parses (names are UTF-8).
        if core::str::from_utf8(&input[name_start..props_start]).is_err() {
            return Err(err(name_start, ErrorKind::NameNotUtf8));
        }
        if stack.len() >= crate::builder::MAX_DEPTH_LIMIT {
            return Err(err(
                p,
                ErrorKind::TooDeep {
                    limit: crate::builder::MAX_DEPTH_LIMIT,
                },
            ));
        }
        let at = out.len();
        field(&mut out, 0);
        field(&mut out, count);
        field(&mut out, 0);
        out.push(name_len);
        out.extend_from_slice(&input[name_start..props_start]);
        let start = out.len();
        properties(input, props_start, props_end, count, &mut out)?;
        let w = if wide { 8 } else { 4 };
        let props_len = (out.len() - start) as u64;
        patch(&mut out, at + 2 * w, props_len)?;
        p = props_end;
        if p < end {
            stack.push((end, at));
        } else {
            let here = out.len() as u64;
            patch(&mut out, at, here)?;
        }
    }
}

/// Copies `count` properties from `input[start..end]`, each number made little-endian.
fn properties(
    input: &[u8],
    start: usize,
    end: usize,
    count: u64,
    out: &mut Vec<u8>,
) -> Result<(), Error> {
    let mut p = start;
    let swapped = |out: &mut Vec<u8>, bytes: &[u8]| out.extend(bytes.iter().rev());
    for _ in 0..count {
        let at = p;
        let Some(&code) = input[..end].get(p) else {
            return Err(eof(p, "a property type code", 1, end));
        };
        p += 1;
        out.push(code);
        let scalar = match code {
            b'C' | b'Z' => Some(1),
            b'Y' => Some(2),
            b'I' | b'F' => Some(4),
            b'D' | b'L' => Some(8),
            _ => None,
        };
        if let Some(size) = scalar {
            if end - p < size {
                return Err(eof(p, "a property value", size, end));
            }
            swapped(out, &input[p..p + size]);
            p += size;
            continue;
        }
        if matches!(code, b'S' | b'R') {
            if end - p < 4 {
                return Err(eof(p, "a string or blob length", 4, end));
            }
            let len = be32(input, p) as usize;
            p += 4;
            if end - p < len {
                return Err(eof(p, "string or blob bytes", len, end));
            }
            out.extend_from_slice(&(len as u32).to_le_bytes());
            out.extend_from_slice(&input[p..p + len]);
            p += len;
            continue;
        }
        let Some(ty) = ArrayType::from_code(code) else {
            return Err(err(at, ErrorKind::UnknownPropertyType { found: code }));
        };
        if end - p < 12 {
            return Err(eof(
                p,
                "an array header (count, encoding, byte length)",
                12,
                end,
            ));
        }
        let len = be32(input, p);
        let encoding = be32(input, p + 4);
        let byte_len = be32(input, p + 8);
        let compressed = check_array(code, ty, len, encoding, byte_len)
            .map_err(|(kind, at_encoding)| err(if at_encoding { p + 4 } else { at }, kind))?;
        p += 12;
        let byte_len = byte_len as usize;
        if end - p < byte_len {
            return Err(eof(p, "array data", byte_len, end));
        }
        let size = ty.element_size();
        let data = &input[p..p + byte_len];
        p += byte_len;
        let plain: Vec<u8> = if compressed {
            let declared = u64::from(len) * size as u64;
            let n =
                usize::try_from(declared).map_err(|_| err(at, ErrorKind::TooLarge(declared)))?;
            let mut raw = alloc::vec![0u8; n];
            inflate_exact(data, &mut raw).map_err(|kind| err(at, kind))?;
            raw
        } else {
            data.to_vec()
        };
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&(plain.len() as u32).to_le_bytes());
        for e in plain.chunks_exact(size) {
            swapped(out, e);
        }
    }
    if p != end {
        return Err(err(
            p,
            ErrorKind::PropertyListLength {
                count,
                declared: (end - start) as u64,
                actual: (p - start) as u64,
            },
        ));
    }
    Ok(())
}
