//! Binary FBX writer, for tests and fixtures: 7400 (32-bit records) or 7500 (64-bit records),
//! or any version 2000..=7999 with the record width that version implies; arrays plain or
//! zlib-compressed. Like the FBX SDK, a node gets a child list (closed by a null record) when
//! it has children or no properties; the footer is the SDK's shape with fixed bytes. The walk
//! is a loop with an explicit stack, so any depth can be written.

use alloc::string::String;
use alloc::vec::Vec;

use crate::binary::MAGIC;
use crate::error::{Error, ErrorKind, Location};
use crate::owned::{OwnedNode, OwnedValue};

/// Whether and how the writer zlib-compresses arrays (FBX array encoding 1); scalars, strings
/// and blobs are never compressed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compression {
    /// Every array plain (encoding 0).
    None,
    /// Arrays of at least `min_bytes` raw bytes zlib-compressed at `level` (0-10, as
    /// `miniz_oxide` counts; the FBX SDK compresses arrays over 128 bytes).
    Zlib {
        /// Deflate level, 0 (store) to 10 (smallest), as `miniz_oxide` counts.
        level: u8,
        /// Arrays of fewer raw bytes than this are written plain.
        min_bytes: usize,
    },
}

/// What to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// The header's version; 7500 and later use 64-bit record fields.
    pub version: u32,
    /// Which arrays are compressed, and how hard.
    pub compression: Compression,
}

impl WriteOptions {
    /// FBX 7.4, uncompressed.
    pub const V7400: WriteOptions = WriteOptions {
        version: 7400,
        compression: Compression::None,
    };
    /// FBX 7.5, uncompressed.
    pub const V7500: WriteOptions = WriteOptions {
        version: 7500,
        compression: Compression::None,
    };

    /// The same with every array compressed (level 6).
    pub fn compressed(self) -> Self {
        WriteOptions {
            compression: Compression::Zlib {
                level: 6,
                min_bytes: 0,
            },
            ..self
        }
    }
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions::V7400
    }
}

const FOOTER_ID: [u8; 16] = [
    0xfa, 0xbc, 0xab, 0x09, 0xd0, 0xc8, 0xd4, 0x66, 0xb1, 0x76, 0xfb, 0x83, 0x1c, 0xf7, 0x26, 0x7e,
];
const FOOTER_MAGIC: [u8; 16] = [
    0xf8, 0x5a, 0x8c, 0x6a, 0xde, 0xf5, 0xd9, 0x7e, 0xec, 0xe9, 0x0c, 0xe3, 0x75, 0x8f, 0x29, 0x0b,
];

struct Frame<'t> {
    children: &'t [OwnedNode],
    next: usize,
    /// Where the parent's record starts (`None` for the top level).
    header: Option<usize>,
}

struct Out {
    bytes: Vec<u8>,
    wide: bool,
    compression: Compression,
    /// Every number big-endian, as Maya on PowerPC Macs wrote files.
    big: bool,
}

/// Writes `roots` as a binary FBX file.
pub fn write_binary(roots: &[OwnedNode], options: &WriteOptions) -> Result<Vec<u8>, Error> {
    write_with(roots, options, false)
}

/// Writes `roots` as a big-endian binary FBX file (header byte 22 is 1, and every record
/// field, number, length and array element is big-endian), as Maya on PowerPC Macs wrote them:
/// the fixtures of the big-endian reader ([`crate::to_little_endian`]).
pub fn write_binary_big_endian(
    roots: &[OwnedNode],
    options: &WriteOptions,
) -> Result<Vec<u8>, Error> {
    write_with(roots, options, true)
}

fn write_with(roots: &[OwnedNode], options: &WriteOptions, big: bool) -> Result<Vec<u8>, Error> {
    if !crate::binary::VERSIONS.contains(&options.version) {
        return Err(Error::new(
            Location::Unknown,
            String::new(),
            ErrorKind::UnsupportedVersion(options.version),
        ));
    }
    let mut out = Out {
        bytes: Vec::new(),
        wide: options.version >= 7500,
        compression: options.compression,
        big,
    };
    out.bytes.extend_from_slice(MAGIC);
    if big {
        out.bytes[22] = 1;
    }
    out.u32(options.version);
    let mut stack = alloc::vec![Frame {
        children: roots,
        next: 0,
        header: None,
    }];
    let mut names: Vec<&str> = Vec::new();
    while let Some(frame) = stack.last_mut() {
        let Some(node) = frame.children.get(frame.next) else {
            // End of a child list: the null record, then the parent's end offset.
            let header = frame.header;
            stack.pop();
            out.null_record();
            if let Some(h) = header {
                out.patch_end(h).map_err(|k| fail(&names, None, k))?;
                names.pop();
            }
            continue;
        };
        frame.next += 1;
        names.push(&node.name);
        let header = out.node(node).map_err(|(p, k)| fail(&names, p, k))?;
        if !node.children.is_empty() || node.properties.is_empty() {
            stack.push(Frame {
                children: &node.children,
                next: 0,
                header: Some(header),
            });
        } else {
            out.patch_end(header).map_err(|k| fail(&names, None, k))?;
            names.pop();
        }
    }
    out.footer(options.version);
    Ok(out.bytes)
}

fn fail(names: &[&str], property: Option<usize>, kind: ErrorKind) -> Error {
    Error {
        location: Location::Unknown,
        path: names.join("/"),
        property,
        kind,
    }
}

impl Out {
    /// `bytes` (a little-endian number) in the file's byte order.
    fn put(&mut self, le: &[u8]) {
        if self.big {
            self.bytes.extend(le.iter().rev());
        } else {
            self.bytes.extend_from_slice(le);
        }
    }

    fn u32(&mut self, v: u32) {
        self.put(&v.to_le_bytes());
    }

    fn field(&mut self, v: u64) {
        if self.wide {
            self.put(&v.to_le_bytes());
        } else {
            self.put(&(v as u32).to_le_bytes());
        }
    }

    fn field_at(&mut self, at: usize, v: u64) -> Result<(), ErrorKind> {
        let mut bytes = if self.wide {
            v.to_le_bytes().to_vec()
        } else {
            let v = u32::try_from(v).map_err(|_| {
                ErrorKind::Unwritable("an offset or size over 4 GiB needs version 7500 or later")
            })?;
            v.to_le_bytes().to_vec()
        };
        if self.big {
            bytes.reverse();
        }
        self.bytes[at..at + bytes.len()].copy_from_slice(&bytes);
        Ok(())
    }

    fn width(&self) -> usize {
        if self.wide { 8 } else { 4 }
    }

    fn null_record(&mut self) {
        let len = if self.wide { 25 } else { 13 };
        self.bytes.resize(self.bytes.len() + len, 0);
    }

    fn patch_end(&mut self, header: usize) -> Result<(), ErrorKind> {
        let end = self.bytes.len() as u64;
        self.field_at(header, end)
    }

    /// Writes the record header (end offset left to patch), name and properties.
    fn node(&mut self, node: &OwnedNode) -> Result<usize, (Option<usize>, ErrorKind)> {
        let name_len = u8::try_from(node.name.len())
            .map_err(|_| (None, ErrorKind::Unwritable("a node name over 255 bytes")))?;
        let header = self.bytes.len();
        self.field(0);
        self.field(node.properties.len() as u64);
        self.field(0);
        self.bytes.push(name_len);
        self.bytes.extend_from_slice(node.name.as_bytes());
        let props_start = self.bytes.len();
        for (i, p) in node.properties.iter().enumerate() {
            self.property(p).map_err(|k| (Some(i), k))?;
        }
        let w = self.width();
        let props_len = (self.bytes.len() - props_start) as u64;
        let count = node.properties.len() as u64;
        self.field_at(header + w, count).map_err(|k| (None, k))?;
        self.field_at(header + 2 * w, props_len)
            .map_err(|k| (None, k))?;
        Ok(header)
    }

    fn len32(&mut self, len: usize, what: &'static str) -> Result<(), ErrorKind> {
        let len = u32::try_from(len).map_err(|_| ErrorKind::Unwritable(what))?;
        self.u32(len);
        Ok(())
    }

    fn property(&mut self, p: &OwnedValue) -> Result<(), ErrorKind> {
        self.bytes.push(p.type_code());
        match p {
            OwnedValue::Char(v) | OwnedValue::U8(v) => self.bytes.push(*v),
            OwnedValue::I16(v) => self.put(&v.to_le_bytes()),
            OwnedValue::I32(v) => self.put(&v.to_le_bytes()),
            OwnedValue::I64(v) => self.put(&v.to_le_bytes()),
            OwnedValue::F32(v) => self.put(&v.to_le_bytes()),
            OwnedValue::F64(v) => self.put(&v.to_le_bytes()),
            OwnedValue::String(s) | OwnedValue::Raw(s) => {
                self.len32(s.len(), "a string or blob over 4 GiB")?;
                self.bytes.extend_from_slice(s);
            }
            OwnedValue::BoolArray(v) | OwnedValue::ByteArray(v) => {
                self.array(v.len(), v.clone())?
            }
            OwnedValue::I32Array(v) => {
                let raw = self.elements(v, |x| x.to_le_bytes());
                self.array(v.len(), raw)?
            }
            OwnedValue::I64Array(v) => {
                let raw = self.elements(v, |x| x.to_le_bytes());
                self.array(v.len(), raw)?
            }
            OwnedValue::F32Array(v) => {
                let raw = self.elements(v, |x| x.to_le_bytes());
                self.array(v.len(), raw)?
            }
            OwnedValue::F64Array(v) => {
                let raw = self.elements(v, |x| x.to_le_bytes());
                self.array(v.len(), raw)?
            }
        }
        Ok(())
    }

    /// The elements' bytes in the file's byte order.
    fn elements<T: Copy, const N: usize>(&self, v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
        let mut out = le_bytes(v, f);
        if self.big {
            for c in out.chunks_exact_mut(N) {
                c.reverse();
            }
        }
        out
    }

    fn array(&mut self, count: usize, raw: Vec<u8>) -> Result<(), ErrorKind> {
        self.len32(count, "an array of over 4294967295 elements")?;
        let data = match self.compression {
            Compression::Zlib { level, min_bytes } if raw.len() >= min_bytes => {
                self.u32(1);
                miniz_oxide::deflate::compress_to_vec_zlib(&raw, level)
            }
            _ => {
                self.u32(0);
                raw
            }
        };
        self.len32(data.len(), "array data over 4 GiB")?;
        self.bytes.extend_from_slice(&data);
        Ok(())
    }

    fn footer(&mut self, version: u32) {
        self.bytes.extend_from_slice(&FOOTER_ID);
        let pad = 16 - self.bytes.len() % 16;
        self.bytes.resize(self.bytes.len() + pad, 0);
        self.u32(version);
        self.bytes.resize(self.bytes.len() + 120, 0);
        self.bytes.extend_from_slice(&FOOTER_MAGIC);
    }
}

fn le_bytes<T: Copy, const N: usize>(v: &[T], f: impl Fn(T) -> [u8; N]) -> Vec<u8> {
    let mut out = Vec::with_capacity(v.len() * N);
    for &x in v {
        out.extend_from_slice(&f(x));
    }
    out
}
