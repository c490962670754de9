//! Property values: scalars by value, strings, blobs and arrays as borrowed slices of the input,
//! decoded (inflated, converted, parsed from text) only on request.

use alloc::borrow::Cow;
use alloc::string::ToString;
use alloc::vec;
use alloc::vec::Vec;
use core::marker::PhantomData;

use crate::error::ErrorKind;
use crate::{base64, inflate, number};

/// The element type of an array property, by its binary type code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ArrayType {
    /// `b`: one byte per element, a boolean (0 or 1; exporters also write `'T'`/`'Y'`).
    Bool,
    /// `c`: one byte per element (FBX 7.5+ writes image data this way).
    Byte,
    /// `i`: little-endian `i32`.
    I32,
    /// `l`: little-endian `i64`.
    I64,
    /// `f`: little-endian `f32`.
    F32,
    /// `d`: little-endian `f64`.
    F64,
}

impl ArrayType {
    /// The binary type code (`b c i l f d`).
    pub fn code(self) -> u8 {
        match self {
            ArrayType::Bool => b'b',
            ArrayType::Byte => b'c',
            ArrayType::I32 => b'i',
            ArrayType::I64 => b'l',
            ArrayType::F32 => b'f',
            ArrayType::F64 => b'd',
        }
    }

    /// The type for a binary type code.
    pub fn from_code(code: u8) -> Option<ArrayType> {
        Some(match code {
            b'b' => ArrayType::Bool,
            b'c' => ArrayType::Byte,
            b'i' => ArrayType::I32,
            b'l' => ArrayType::I64,
            b'f' => ArrayType::F32,
            b'd' => ArrayType::F64,
            _ => return None,
        })
    }

    /// Bytes per element.
    pub fn element_size(self) -> usize {
        match self {
            ArrayType::Bool | ArrayType::Byte => 1,
            ArrayType::I32 | ArrayType::F32 => 4,
            ArrayType::I64 | ArrayType::F64 => 8,
        }
    }

    /// A name for messages (`"f64 array"`...).
    pub fn name(self) -> &'static str {
        match self {
            ArrayType::Bool => "bool array",
            ArrayType::Byte => "byte array",
            ArrayType::I32 => "i32 array",
            ArrayType::I64 => "i64 array",
            ArrayType::F32 => "f32 array",
            ArrayType::F64 => "f64 array",
        }
    }
}

/// How an array's elements are stored in the input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ArrayEncoding<'a> {
    /// Binary encoding 0: the little-endian elements themselves (unaligned).
    Plain(&'a [u8]),
    /// Binary encoding 1: a zlib stream of the little-endian elements.
    Zlib(&'a [u8]),
    /// ASCII: the text of the values after `a:` (comma-separated numbers).
    Text(&'a [u8]),
}

/// An array property: its element type, count, and the borrowed bytes that encode it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Array<'a> {
    pub(crate) ty: ArrayType,
    pub(crate) len: u32,
    pub(crate) encoding: ArrayEncoding<'a>,
    /// ASCII text read as Assimp reads numbers ([`crate::ParseOptions::assimp_numbers`]).
    pub(crate) assimp_numbers: bool,
}

impl<'a> Array<'a> {
    /// The element type. ASCII arrays are typed from their text: `F64` when any value has a
    /// fraction or exponent, else `I32`, or `I64` when a value has more than 9 digits.
    pub fn ty(&self) -> ArrayType {
        self.ty
    }

    /// The element count (checked against the bytes or text when parsed).
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The stored encoding, with its borrowed bytes.
    pub fn encoding(&self) -> ArrayEncoding<'a> {
        self.encoding
    }

    /// Whether reading the elements needs inflating.
    pub fn is_compressed(&self) -> bool {
        matches!(self.encoding, ArrayEncoding::Zlib(_))
    }

    /// A zero-copy view of a plain array whose element type is exactly `T`'s, reading each
    /// element with an unaligned little-endian load. `None` for compressed or ASCII arrays or
    /// another element type.
    pub fn le_slice<T: Element>(&self) -> Option<LeSlice<'a, T>> {
        match self.encoding {
            ArrayEncoding::Plain(b) if self.ty == T::NATIVE => Some(LeSlice::new(b)),
            _ => None,
        }
    }

    /// The elements as `T`, borrowed when the input already holds them in `T`'s layout (a
    /// plain little-endian array of exactly `T`, suitably aligned), decoded otherwise:
    /// inflated (capped at the declared count), parsed from ASCII text, or converted from
    /// another element type. Conversions: to `f64` and `f32` from any number array (`f32` by
    /// rounding); to `i64` from `i`, `l`, `b`, `c`; to `i32` from the same, range-checked;
    /// to `u8` from `b` and `c`.
    pub fn decode<T: Element>(&self) -> Result<Cow<'a, [T]>, ErrorKind> {
        if !T::accepts(self.ty) {
            return Err(ErrorKind::WrongType {
                expected: T::ARRAY_NAME,
                found: self.ty.name(),
            });
        }
        match self.encoding {
            ArrayEncoding::Plain(bytes) => {
                if self.ty == T::NATIVE {
                    #[cfg(target_endian = "little")]
                    if let Ok(slice) = bytemuck::try_cast_slice::<u8, T>(bytes) {
                        return Ok(Cow::Borrowed(slice));
                    }
                    Ok(Cow::Owned(LeSlice::<T>::new(bytes).to_vec()))
                } else {
                    T::convert(self.ty, bytes).map(Cow::Owned)
                }
            }
            ArrayEncoding::Zlib(stream) => {
                let n = self.len();
                if self.ty == T::NATIVE {
                    let mut out = try_zeroed_vec::<T>(n)?;
                    inflate::inflate_exact(stream, bytemuck::cast_slice_mut(&mut out))?;
                    T::fix_endian(&mut out);
                    Ok(Cow::Owned(out))
                } else if matches!(T::NATIVE, ArrayType::F32 | ArrayType::F64) {
                    // A float conversion cannot fail: convert as the stream inflates, without
                    // a full-size temporary of the source type.
                    let size = byte_size(n, self.ty.element_size())?;
                    let mut out = Vec::new();
                    out.try_reserve_exact(n).map_err(|_| {
                        ErrorKind::TooLarge(
                            (n as u64).saturating_mul(T::NATIVE.element_size() as u64),
                        )
                    })?;
                    let mut failed = None;
                    inflate::inflate_streaming(stream, size, self.ty.element_size(), |run| {
                        match T::convert(self.ty, run) {
                            Ok(v) => out.extend_from_slice(&v),
                            Err(e) => failed = Some(e),
                        }
                    })?;
                    match failed {
                        Some(e) => Err(e),
                        None => Ok(Cow::Owned(out)),
                    }
                } else {
                    let size = byte_size(n, self.ty.element_size())?;
                    let mut raw = try_zeroed_vec::<u8>(size)?;
                    inflate::inflate_exact(stream, &mut raw)?;
                    T::convert(self.ty, &raw).map(Cow::Owned)
                }
            }
            ArrayEncoding::Text(text) if self.assimp_numbers => {
                T::parse_text_assimp(text, self.len()).map(Cow::Owned)
            }
            ArrayEncoding::Text(text) => T::parse_text(text, self.len()).map(Cow::Owned),
        }
    }

    /// The inflated little-endian bytes of a binary array (borrowed when plain); an ASCII
    /// array is encoded as the binary element type would be.
    pub fn to_le_bytes(&self) -> Result<Cow<'a, [u8]>, ErrorKind> {
        match self.encoding {
            ArrayEncoding::Plain(b) => Ok(Cow::Borrowed(b)),
            ArrayEncoding::Zlib(stream) => {
                let size = byte_size(self.len(), self.ty.element_size())?;
                let mut raw = try_zeroed_vec::<u8>(size)?;
                inflate::inflate_exact(stream, &mut raw)?;
                Ok(Cow::Owned(raw))
            }
            ArrayEncoding::Text(_) => {
                let mut out = Vec::new();
                match self.ty {
                    ArrayType::I32 => {
                        for v in self.decode::<i32>()?.iter() {
                            out.extend_from_slice(&v.to_le_bytes());
                        }
                    }
                    ArrayType::I64 => {
                        for v in self.decode::<i64>()?.iter() {
                            out.extend_from_slice(&v.to_le_bytes());
                        }
                    }
                    _ => {
                        for v in self.decode::<f64>()?.iter() {
                            out.extend_from_slice(&v.to_le_bytes());
                        }
                    }
                }
                Ok(Cow::Owned(out))
            }
        }
    }
}

fn byte_size(n: usize, elem: usize) -> Result<usize, ErrorKind> {
    n.checked_mul(elem)
        .ok_or(ErrorKind::TooLarge((n as u64).saturating_mul(elem as u64)))
}

fn try_zeroed_vec<T: bytemuck::Zeroable + Clone>(n: usize) -> Result<Vec<T>, ErrorKind> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| {
        ErrorKind::TooLarge((n as u64).saturating_mul(core::mem::size_of::<T>() as u64))
    })?;
    v.resize(n, T::zeroed());
    Ok(v)
}

/// A borrowed run of little-endian `T`s at any alignment: each access is an unaligned load.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LeSlice<'a, T> {
    bytes: &'a [u8],
    _t: PhantomData<T>,
}

/// Iterator over a [`LeSlice`]'s elements.
#[derive(Clone, Debug)]
pub struct LeIter<'a, T> {
    chunks: core::slice::ChunksExact<'a, u8>,
    _t: PhantomData<T>,
}

impl<T: Element> Iterator for LeIter<'_, T> {
    type Item = T;

    #[inline]
    fn next(&mut self) -> Option<T> {
        self.chunks.next().map(T::from_le)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.chunks.size_hint()
    }
}

impl<T: Element> ExactSizeIterator for LeIter<'_, T> {}

impl<'a, T: Element> LeSlice<'a, T> {
    /// A view of `bytes` as little-endian `T`s (a trailing partial element is ignored): for
    /// element bytes that come from elsewhere than a parsed array, such as an inflater.
    pub fn new(bytes: &'a [u8]) -> Self {
        LeSlice {
            bytes,
            _t: PhantomData,
        }
    }

    /// Element count.
    pub fn len(&self) -> usize {
        self.bytes.len() / core::mem::size_of::<T>()
    }

    /// Whether there are no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Element `i`.
    pub fn get(&self, i: usize) -> Option<T> {
        let size = core::mem::size_of::<T>();
        let start = i.checked_mul(size)?;
        self.bytes
            .get(start..start.checked_add(size)?)
            .map(T::from_le)
    }

    /// The elements in order.
    pub fn iter(&self) -> LeIter<'a, T> {
        LeIter {
            chunks: self.bytes.chunks_exact(core::mem::size_of::<T>()),
            _t: PhantomData,
        }
    }

    /// The borrowed little-endian bytes.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// Copies the elements out.
    pub fn to_vec(&self) -> Vec<T> {
        #[cfg(target_endian = "little")]
        {
            let mut out = vec![T::zeroed(); self.len()];
            let whole = out.len() * core::mem::size_of::<T>();
            bytemuck::cast_slice_mut::<T, u8>(&mut out).copy_from_slice(&self.bytes[..whole]);
            out
        }
        #[cfg(not(target_endian = "little"))]
        {
            self.iter().collect()
        }
    }
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u8 {}
    impl Sealed for i32 {}
    impl Sealed for i64 {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An array element type: `u8` (for `b`/`c`), `i32`, `i64`, `f32`, `f64`.
pub trait Element: sealed::Sealed + bytemuck::Pod + PartialEq + core::fmt::Debug {
    /// The array type stored as this element without conversion.
    const NATIVE: ArrayType;
    /// "f64 array"..., for messages.
    const ARRAY_NAME: &'static str;
    #[doc(hidden)]
    fn from_le(bytes: &[u8]) -> Self;
    #[doc(hidden)]
    fn accepts(ty: ArrayType) -> bool;
    #[doc(hidden)]
    fn convert(src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind>;
    #[doc(hidden)]
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind>;
    /// [`Element::parse_text`] with Assimp's numbers (`ParseOptions::assimp_numbers`).
    #[doc(hidden)]
    fn parse_text_assimp(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        Self::parse_text(text, count)
    }
    #[doc(hidden)]
    fn fix_endian(_v: &mut [Self]) {}
}

#[inline]
fn le4(b: &[u8]) -> [u8; 4] {
    let mut a = [0; 4];
    a.copy_from_slice(&b[..4]);
    a
}

#[inline]
fn le8(b: &[u8]) -> [u8; 8] {
    let mut a = [0; 8];
    a.copy_from_slice(&b[..8]);
    a
}

/// Reads `bytes` (elements of `src`) as i64 values.
fn ints_of(src: ArrayType, bytes: &[u8]) -> impl Iterator<Item = i64> + '_ {
    let size = src.element_size();
    bytes.chunks_exact(size).map(move |c| match src {
        ArrayType::Bool | ArrayType::Byte => i64::from(c[0]),
        ArrayType::I32 => i64::from(i32::from_le_bytes(le4(c))),
        _ => i64::from_le_bytes(le8(c)),
    })
}

/// Reads `bytes` (elements of `src`) as f64 values.
fn floats_of(src: ArrayType, bytes: &[u8]) -> impl Iterator<Item = f64> + '_ {
    let size = src.element_size();
    bytes.chunks_exact(size).map(move |c| match src {
        ArrayType::Bool | ArrayType::Byte => f64::from(c[0]),
        ArrayType::I32 => f64::from(i32::from_le_bytes(le4(c))),
        ArrayType::I64 => i64::from_le_bytes(le8(c)) as f64,
        ArrayType::F32 => f64::from(f32::from_le_bytes(le4(c))),
        ArrayType::F64 => f64::from_le_bytes(le8(c)),
    })
}

/// Splits ASCII array text into its value tokens (trimmed): [`number::array_tokens`].
fn text_tokens(text: &[u8]) -> impl Iterator<Item = &[u8]> {
    number::array_tokens(text)
}

fn int_text<T: TryFrom<i64>>(
    text: &[u8],
    count: usize,
    target: &'static str,
) -> Result<Vec<T>, ErrorKind> {
    let mut out = Vec::with_capacity(text_capacity(text, count));
    for (index, tok) in text_tokens(text).enumerate() {
        let v = number::parse_int(tok)?;
        out.push(T::try_from(v).map_err(|_| ErrorKind::OutOfRange {
            value: v.to_string(),
            index,
            target,
        })?);
    }
    check_count(out.len(), count)?;
    Ok(out)
}

fn float_text(text: &[u8], count: usize) -> Result<Vec<f64>, ErrorKind> {
    text_values(text, count, number::parse_f64)
}

/// An ASCII array's values, each token through `parse`, checked against the declared count.
fn text_values<T>(
    text: &[u8],
    count: usize,
    parse: impl Fn(&[u8]) -> Result<T, ErrorKind>,
) -> Result<Vec<T>, ErrorKind> {
    let mut out = Vec::with_capacity(text_capacity(text, count));
    for tok in text_tokens(text) {
        out.push(parse(tok)?);
    }
    check_count(out.len(), count)?;
    Ok(out)
}

/// What an array's text can hold at most (a value and a comma take two bytes), so that a
/// `*N` larger than its text reserves nothing it cannot fill.
fn text_capacity(text: &[u8], declared: usize) -> usize {
    declared.min(text.len() / 2 + 1)
}

fn check_count(found: usize, declared: usize) -> Result<(), ErrorKind> {
    if found == declared {
        Ok(())
    } else {
        Err(ErrorKind::ArrayCountMismatch {
            declared: declared as u64,
            found: found as u64,
        })
    }
}

impl Element for u8 {
    const NATIVE: ArrayType = ArrayType::Byte;
    const ARRAY_NAME: &'static str = "byte or bool array";
    #[inline]
    fn from_le(bytes: &[u8]) -> Self {
        bytes[0]
    }
    fn accepts(ty: ArrayType) -> bool {
        matches!(ty, ArrayType::Bool | ArrayType::Byte)
    }
    fn convert(_src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind> {
        Ok(bytes.to_vec())
    }
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        int_text(text, count, "u8")
    }
}

impl Element for i32 {
    const NATIVE: ArrayType = ArrayType::I32;
    const ARRAY_NAME: &'static str = "i32 array";
    #[inline]
    fn from_le(bytes: &[u8]) -> Self {
        i32::from_le_bytes(le4(bytes))
    }
    fn accepts(ty: ArrayType) -> bool {
        !matches!(ty, ArrayType::F32 | ArrayType::F64)
    }
    fn convert(src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind> {
        ints_of(src, bytes)
            .enumerate()
            .map(|(index, v)| {
                i32::try_from(v).map_err(|_| ErrorKind::OutOfRange {
                    value: v.to_string(),
                    index,
                    target: "i32",
                })
            })
            .collect()
    }
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        int_text(text, count, "i32")
    }
    fn fix_endian(v: &mut [Self]) {
        for x in v {
            *x = i32::from_le(*x);
        }
    }
}

impl Element for i64 {
    const NATIVE: ArrayType = ArrayType::I64;
    const ARRAY_NAME: &'static str = "i64 array";
    #[inline]
    fn from_le(bytes: &[u8]) -> Self {
        i64::from_le_bytes(le8(bytes))
    }
    fn accepts(ty: ArrayType) -> bool {
        !matches!(ty, ArrayType::F32 | ArrayType::F64)
    }
    fn convert(src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind> {
        Ok(ints_of(src, bytes).collect())
    }
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        int_text(text, count, "i64")
    }
    fn fix_endian(v: &mut [Self]) {
        for x in v {
            *x = i64::from_le(*x);
        }
    }
}

impl Element for f32 {
    const NATIVE: ArrayType = ArrayType::F32;
    const ARRAY_NAME: &'static str = "f32 array";
    #[inline]
    fn from_le(bytes: &[u8]) -> Self {
        f32::from_le_bytes(le4(bytes))
    }
    fn accepts(ty: ArrayType) -> bool {
        !matches!(ty, ArrayType::Bool | ArrayType::Byte)
    }
    fn convert(src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind> {
        Ok(floats_of(src, bytes).map(|v| v as f32).collect())
    }
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        // Parse straight to f32 so the value is the correctly rounded one.
        text_values(text, count, number::parse_f32)
    }
    fn parse_text_assimp(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        text_values(text, count, number::assimp_f32)
    }
    fn fix_endian(v: &mut [Self]) {
        for x in v {
            *x = f32::from_bits(u32::from_le(x.to_bits()));
        }
    }
}

impl Element for f64 {
    const NATIVE: ArrayType = ArrayType::F64;
    const ARRAY_NAME: &'static str = "f64 array";
    #[inline]
    fn from_le(bytes: &[u8]) -> Self {
        f64::from_le_bytes(le8(bytes))
    }
    fn accepts(ty: ArrayType) -> bool {
        !matches!(ty, ArrayType::Bool | ArrayType::Byte)
    }
    fn convert(src: ArrayType, bytes: &[u8]) -> Result<Vec<Self>, ErrorKind> {
        Ok(floats_of(src, bytes).collect())
    }
    fn parse_text(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        float_text(text, count)
    }
    fn parse_text_assimp(text: &[u8], count: usize) -> Result<Vec<Self>, ErrorKind> {
        text_values(text, count, |tok| number::assimp_f32(tok).map(f64::from))
    }
    fn fix_endian(v: &mut [Self]) {
        for x in v {
            *x = f64::from_bits(u64::from_le(x.to_bits()));
        }
    }
}

/// A raw blob (`R`): borrowed bytes in binary files, base64 text in ASCII ones (`Content:`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Raw<'a> {
    /// The bytes themselves.
    Bytes(&'a [u8]),
    /// ASCII: the quoted base64 strings as written (quotes, commas and blanks between the
    /// pieces are skipped when decoding).
    Base64(&'a [u8]),
}

impl<'a> Raw<'a> {
    /// The blob's bytes: borrowed, or decoded from base64.
    pub fn decode(&self) -> Result<Cow<'a, [u8]>, ErrorKind> {
        match *self {
            Raw::Bytes(b) => Ok(Cow::Borrowed(b)),
            Raw::Base64(text) => base64::decode(text).map(Cow::Owned),
        }
    }
}

/// One property value. Scalars are held by value; strings, blobs and arrays borrow the input.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value<'a> {
    /// `C`: one byte. FBX writes booleans this way (0/1, and the SDK writes `'T'`/`'Y'` for
    /// some flags); ASCII bare words of one letter (`Shading: T`) read as this too.
    Char(u8),
    /// `Z`: an unsigned byte (Maya writes its `UByte` properties so, in files with audio);
    /// read as an integer, as ufbx does.
    U8(u8),
    /// `Y`: i16.
    I16(i16),
    /// `I`: i32. ASCII integers that fit in i32.
    I32(i32),
    /// `L`: i64. ASCII integers that need 64 bits.
    I64(i64),
    /// `F`: f32.
    F32(f32),
    /// `D`: f64. ASCII numbers with a fraction or exponent.
    F64(f64),
    /// `S`: bytes, not checked for UTF-8 until asked (binary object names hold
    /// `name\0\x01class`; ASCII writes `class::name`). ASCII: the text between the quotes (no
    /// unescaping), or a bare word longer than one byte.
    String(&'a [u8]),
    /// `R`: a blob.
    Raw(Raw<'a>),
    /// `f d l i b c`: an array.
    Array(Array<'a>),
}

impl Value<'_> {
    /// The binary type code (`C Y I L F D S R` or the array's `b c i l f d`).
    pub fn type_code(&self) -> u8 {
        match self {
            Value::Char(_) => b'C',
            Value::U8(_) => b'Z',
            Value::I16(_) => b'Y',
            Value::I32(_) => b'I',
            Value::I64(_) => b'L',
            Value::F32(_) => b'F',
            Value::F64(_) => b'D',
            Value::String(_) => b'S',
            Value::Raw(_) => b'R',
            Value::Array(a) => a.ty.code(),
        }
    }

    /// A name for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Char(_) => "char/bool",
            Value::U8(_) => "u8",
            Value::I16(_) => "i16",
            Value::I32(_) => "i32",
            Value::I64(_) => "i64",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::String(_) => "string",
            Value::Raw(_) => "raw blob",
            Value::Array(a) => a.ty.name(),
        }
    }

    /// An integer value (`C Z Y I L`), else `None`.
    pub fn to_i64(&self) -> Option<i64> {
        Some(match *self {
            Value::Char(c) | Value::U8(c) => i64::from(c),
            Value::I16(v) => i64::from(v),
            Value::I32(v) => i64::from(v),
            Value::I64(v) => v,
            _ => return None,
        })
    }

    /// A numeric value as f64 (`C Y I L F D`), else `None`.
    pub fn to_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::F32(v) => f64::from(v),
            Value::F64(v) => v,
            Value::I64(v) => v as f64,
            ref other => other.to_i64()? as f64,
        })
    }
}
