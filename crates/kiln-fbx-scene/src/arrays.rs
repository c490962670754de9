//! The bulk arrays of a document (geometry layers, skin clusters, animation curves), read
//! fast.
//!
//! Plain binary arrays are read where they lie in the input: [`Ints`] and [`Floats`] borrow the
//! little-endian bytes, so an index array is never copied. Compressed ones are most of the cost
//! of an import, so with the `parallel` feature [`Inflated`] lists them up front and the pool's
//! other threads decode them ([`Inflated::work`]) while the conversion runs; the conversion takes
//! each array when it reaches it: decoded already, being decoded (it decodes the next pending
//! array meanwhile, and waits only when there is none), or not started (it decodes it itself).
//! Floats come out as `f32`, integers in their own width, and the conversion moves them instead
//! of copying.
//!
//! Helpers inflate with zune-inflate (faster than miniz_oxide on these arrays), capped at the
//! declared size and checked (exact length, Adler-32). Anything that fails there, and every
//! array without the feature, goes through `kiln_fbx`'s own decoder (miniz_oxide), which
//! reports the error as a sequential import would: errors and warnings do not depend on the
//! feature.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use kiln_fbx::{Array, ArrayEncoding, ArrayType, Document, Node, Value};

/// The array nodes the importer reads in bulk (geometry layers, clusters, curves, lines).
const BULK: &[&str] = &[
    "Vertices",
    "PolygonVertexIndex",
    "Normals",
    "NormalsIndex",
    "UV",
    "UVIndex",
    "Tangent",
    "Tangents",
    "TangentIndex",
    "TangentsIndex",
    "Binormal",
    "Binormals",
    "BinormalIndex",
    "BinormalsIndex",
    "Colors",
    "ColorIndex",
    "Materials",
    "Indexes",
    "Weights",
    "KeyTime",
    "KeyValueFloat",
    "Points",
    "PointsIndex",
];

/// One compressed array, decoded up front: floats as `f32` (an `f64` array converted while
/// it inflates), integers in their own width.
enum Bulk {
    F32(Vec<f32>),
    I32(Vec<i32>),
    I64(Vec<i64>),
}

/// Where one compressed array is.
enum Slot {
    /// Not started: the first to come (a helper or the reader) decodes it.
    Pending,
    /// A helper is decoding it; a reader waits.
    Running,
    /// Decoded (`None`: it failed; the reader's own decoder reports why).
    Done(Option<Bulk>),
    /// Handed out, or claimed by its reader.
    Gone,
}

/// The document's compressed bulk arrays, decoded by helper threads while the conversion
/// runs and handed out once each (empty without the `parallel` feature).
#[derive(Default)]
pub struct Inflated<'a> {
    arrays: Vec<Array<'a>>,
    slots: Vec<Mutex<Slot>>,
    by_key: HashMap<usize, usize>,
    /// The order helpers take arrays in: geometry, then clusters, then curves from the last.
    order: Vec<usize>,
    next: AtomicUsize,
    stop: AtomicBool,
    done: Condvar,
}

/// The single array property of `node`, if that is what it holds.
fn array_of<'a>(node: &Node<'_, 'a>) -> Option<Array<'a>> {
    match node.value(0) {
        Some(Value::Array(a)) if node.property_count() == 1 => Some(a),
        _ => None,
    }
}

/// The key of a compressed array: its stream's address in the input.
fn key(a: &Array<'_>) -> Option<usize> {
    match a.encoding() {
        ArrayEncoding::Zlib(s) => Some(s.as_ptr() as usize),
        _ => None,
    }
}

/// A node's integers: little-endian `i32`s in the input, or decoded.
#[derive(Clone, Debug)]
pub enum Ints<'x> {
    Le(&'x [u8]),
    Owned(Vec<i32>),
}

impl Default for Ints<'_> {
    fn default() -> Self {
        Ints::Owned(Vec::new())
    }
}

/// Iterator over [`Ints`].
pub enum IntsIter<'s> {
    Le(core::slice::ChunksExact<'s, u8>),
    Slice(core::slice::Iter<'s, i32>),
}

impl Iterator for IntsIter<'_> {
    type Item = i32;

    #[inline]
    fn next(&mut self) -> Option<i32> {
        match self {
            IntsIter::Le(c) => c
                .next()
                .map(|b| i32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            IntsIter::Slice(s) => s.next().copied(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            IntsIter::Le(c) => c.size_hint(),
            IntsIter::Slice(s) => s.size_hint(),
        }
    }
}

impl ExactSizeIterator for IntsIter<'_> {}

impl Ints<'_> {
    /// Value `i`.
    #[inline]
    pub fn get(&self, i: usize) -> Option<i32> {
        match self {
            Ints::Le(b) => b
                .get(span(i, 4)?)
                .map(|b| i32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            Ints::Owned(v) => v.get(i).copied(),
        }
    }

    /// The values in order.
    pub fn iter(&self) -> IntsIter<'_> {
        match self {
            Ints::Le(b) => IntsIter::Le(b.chunks_exact(4)),
            Ints::Owned(v) => IntsIter::Slice(v.iter()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Ints::Le(b) => b.len() / 4,
            Ints::Owned(v) => v.len(),
        }
    }

    /// The first `take` values through `f`, stopping at the first error.
    pub fn map_collect<O, E>(
        &self,
        take: usize,
        f: impl FnMut(i32) -> Result<O, E>,
    ) -> Result<Vec<O>, E> {
        match self {
            Ints::Le(b) => le_i32(b).take(take).map(f).collect(),
            Ints::Owned(v) => v.iter().copied().take(take).map(f).collect(),
        }
    }

    pub fn into_vec(self) -> Vec<i32> {
        match self {
            Ints::Le(b) => le_i32(b).collect(),
            Ints::Owned(v) => v,
        }
    }
}

/// A node's floats: little-endian `f64`s or `f32`s in the input, or decoded to `f32`.
#[derive(Clone, Debug)]
pub enum Floats<'x> {
    Le64(&'x [u8]),
    Le32(&'x [u8]),
    Owned(Vec<f32>),
}

/// Iterator over [`Floats`] (as `f32`).
pub enum FloatsIter<'s> {
    Le64(core::slice::ChunksExact<'s, u8>),
    Le32(core::slice::ChunksExact<'s, u8>),
    Slice(core::slice::Iter<'s, f32>),
}

impl Iterator for FloatsIter<'_> {
    type Item = f32;

    #[inline]
    fn next(&mut self) -> Option<f32> {
        match self {
            FloatsIter::Le64(c) => c
                .next()
                .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])) as f32),
            FloatsIter::Le32(c) => c
                .next()
                .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            FloatsIter::Slice(s) => s.next().copied(),
        }
    }
}

impl Floats<'_> {
    /// The values in order (as `f32`).
    pub fn iter(&self) -> FloatsIter<'_> {
        match self {
            Floats::Le64(b) => FloatsIter::Le64(b.chunks_exact(8)),
            Floats::Le32(b) => FloatsIter::Le32(b.chunks_exact(4)),
            Floats::Owned(v) => FloatsIter::Slice(v.iter()),
        }
    }

    /// Value `i` (as `f32`).
    #[inline]
    pub fn get(&self, i: usize) -> Option<f32> {
        match self {
            Floats::Le64(b) => b
                .get(span(i, 8)?)
                .map(|b| f64::from_le_bytes(b.try_into().unwrap_or([0; 8])) as f32),
            Floats::Le32(b) => b
                .get(span(i, 4)?)
                .map(|b| f32::from_le_bytes(b.try_into().unwrap_or([0; 4]))),
            Floats::Owned(v) => v.get(i).copied(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Floats::Le64(b) => b.len() / 8,
            Floats::Le32(b) => b.len() / 4,
            Floats::Owned(v) => v.len(),
        }
    }

    /// The values in groups of `N` (a ragged tail is dropped); a decoded vector whose length
    /// divides is reinterpreted in place.
    pub fn groups<const N: usize>(self) -> Vec<[f32; N]> {
        match self {
            Floats::Le64(b) => le_groups::<N, 8>(b),
            Floats::Le32(b) => le_groups::<N, 4>(b),
            Floats::Owned(v) => match bytemuck::allocation::try_cast_vec::<f32, [f32; N]>(v) {
                Ok(g) => g,
                Err((_, v)) => v
                    .chunks_exact(N)
                    .map(|c| core::array::from_fn(|k| c[k]))
                    .collect(),
            },
        }
    }

    pub fn into_vec(self) -> Vec<f32> {
        match self {
            Floats::Owned(v) => v,
            other => other.groups::<1>().into_iter().map(|[x]| x).collect(),
        }
    }
}

/// Little-endian `f64`s (`W` = 8) or `f32`s (`W` = 4) in groups of `N`, as `[f32; N]`: the
/// loop the compiler sees has fixed strides and no per-value branches.
fn le_groups<const N: usize, const W: usize>(bytes: &[u8]) -> Vec<[f32; N]> {
    bytes
        .chunks_exact(W * N)
        .map(|c| {
            core::array::from_fn(|k| {
                let x = &c[k * W..k * W + W];
                if W == 8 {
                    f64::from_le_bytes(x.try_into().unwrap_or([0; 8])) as f32
                } else {
                    f32::from_le_bytes(x.try_into().unwrap_or([0; 4]))
                }
            })
        })
        .collect()
}

/// Decodes one compressed array: floats as `f32`, integers in their own width.
fn decode(a: &Array<'_>) -> Option<Bulk> {
    #[cfg(feature = "parallel")]
    if let Some(b) = decode_zune(a) {
        return Some(b);
    }
    match a.ty() {
        ArrayType::F64 | ArrayType::F32 => {
            a.decode::<f32>().ok().map(|v| Bulk::F32(v.into_owned()))
        }
        ArrayType::I32 => a.decode::<i32>().ok().map(|v| Bulk::I32(v.into_owned())),
        ArrayType::I64 => a.decode::<i64>().ok().map(|v| Bulk::I64(v.into_owned())),
        _ => None,
    }
}

/// The fast path: `zune-inflate` (about 1.1-1.4x faster than `miniz_oxide` on these arrays;
/// see docs/performance.md) into a buffer capped at the declared size, then checked: exact
/// length, and the stream's Adler-32 (zune checks it). Anything else returns `None`, and
/// `kiln_fbx`'s own decoder (miniz_oxide) decodes the array and reports what is wrong.
#[cfg(feature = "parallel")]
fn decode_zune(a: &Array<'_>) -> Option<Bulk> {
    let ArrayEncoding::Zlib(stream) = a.encoding() else {
        return None;
    };
    let size = a.len().checked_mul(a.ty().element_size())?;
    let options = zune_inflate::DeflateOptions::default()
        .set_limit(size)
        .set_size_hint(size);
    let raw = zune_inflate::DeflateDecoder::new_with_options(stream, options)
        .decode_zlib()
        .ok()?;
    if raw.len() != size {
        return None;
    }
    Some(match a.ty() {
        ArrayType::F64 => Bulk::F32(
            raw.chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f32)
                .collect(),
        ),
        ArrayType::F32 => Bulk::F32(
            raw.chunks_exact(4)
                .map(|c| f32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
                .collect(),
        ),
        ArrayType::I32 => Bulk::I32(le_i32(&raw).collect()),
        ArrayType::I64 => Bulk::I64(
            raw.chunks_exact(8)
                .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                .collect(),
        ),
        _ => return None,
    })
}

impl<'a> Inflated<'a> {
    /// Lists the compressed bulk arrays of `doc` (nothing is decoded yet).
    pub fn new(doc: &Document<'a>) -> Self {
        if !cfg!(feature = "parallel") {
            return Inflated::default();
        }
        let mut found: Vec<(u8, Array<'a>)> = doc
            .nodes()
            .filter_map(|n| {
                let rank = match n.name() {
                    "KeyTime" | "KeyValueFloat" => 2,
                    "Indexes" | "Weights" => 1,
                    name if BULK.contains(&name) => 0,
                    _ => return None,
                };
                Some((rank, array_of(&n)?))
            })
            .filter(|(_, a)| a.is_compressed())
            .collect();
        // Helpers start with what the conversion needs after the animation (which it reads
        // first, claiming its own curves): geometry, clusters, then curves from the end.
        let arrays: Vec<Array<'a>> = found.iter().map(|(_, a)| *a).collect();
        let mut order: Vec<usize> = (0..found.len()).collect();
        order.sort_by_key(|&i| (found[i].0, if found[i].0 == 2 { usize::MAX - i } else { i }));
        found.clear();
        let by_key = arrays
            .iter()
            .enumerate()
            .filter_map(|(i, a)| Some((key(a)?, i)))
            .collect();
        Inflated {
            slots: arrays.iter().map(|_| Mutex::new(Slot::Pending)).collect(),
            arrays,
            by_key,
            order,
            ..Inflated::default()
        }
    }

    /// Whether there is anything for helpers to do.
    pub fn has_work(&self) -> bool {
        !self.arrays.is_empty()
    }

    /// A helper's loop: decodes pending arrays in [`Inflated::new`]'s order until there are
    /// none left or [`Inflated::stop`] is called.
    pub fn work(&self) {
        while self.help_one() {}
    }

    /// Decodes the next pending array in order; `false` when there is none left (or the
    /// helpers were stopped).
    fn help_one(&self) -> bool {
        loop {
            if self.stop.load(Ordering::Relaxed) {
                return false;
            }
            let k = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(&i) = self.order.get(k) else {
                return false;
            };
            {
                let Ok(mut slot) = self.slots[i].lock() else {
                    return false;
                };
                if !matches!(*slot, Slot::Pending) {
                    continue;
                }
                *slot = Slot::Running;
            }
            let bulk = decode(&self.arrays[i]);
            if let Ok(mut slot) = self.slots[i].lock() {
                *slot = Slot::Done(bulk);
            }
            self.done.notify_all();
            return true;
        }
    }

    /// Tells the helpers to stop after the array they are on (the conversion is over).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    /// The decoded array of `node`: decodes it here when no helper has started it; while a
    /// helper is on it, decodes the next pending arrays meanwhile (as a helper would), and
    /// waits only when there are none; `None` when it was handed out already or failed.
    fn take(&self, node: &Node<'_, '_>) -> Option<Bulk> {
        let a = array_of(node)?;
        let &i = self.by_key.get(&key(&a)?)?;
        loop {
            let mut slot = self.slots[i].lock().ok()?;
            match std::mem::replace(&mut *slot, Slot::Gone) {
                Slot::Pending => {
                    drop(slot);
                    return decode(&a);
                }
                Slot::Running => {
                    *slot = Slot::Running;
                    drop(slot);
                    if !self.help_one() {
                        let mut slot = self.slots[i].lock().ok()?;
                        while matches!(*slot, Slot::Running) {
                            slot = self.done.wait(slot).ok()?;
                        }
                    }
                }
                Slot::Done(bulk) => return bulk,
                Slot::Gone => return None,
            }
        }
    }

    /// `node`'s `i32` array, from the input (plain) or decoded up front; `None` for anything
    /// that needs the general decoder (which then reports any error).
    pub fn ints<'x>(&self, node: &Node<'_, 'x>) -> Option<Ints<'x>> {
        let a = array_of(node)?;
        match (a.encoding(), a.ty()) {
            (ArrayEncoding::Plain(b), ArrayType::I32) => Some(Ints::Le(b)),
            (ArrayEncoding::Zlib(_), _) => match self.take(node)? {
                Bulk::I32(v) => Some(Ints::Owned(v)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `node`'s `f64` or `f32` array as `f32`, from the input (plain) or decoded up front;
    /// `None` for anything that needs the general decoder.
    pub fn floats<'x>(&self, node: &Node<'_, 'x>) -> Option<Floats<'x>> {
        let a = array_of(node)?;
        match (a.encoding(), a.ty()) {
            (ArrayEncoding::Plain(b), ArrayType::F64) => Some(Floats::Le64(b)),
            (ArrayEncoding::Plain(b), ArrayType::F32) => Some(Floats::Le32(b)),
            (ArrayEncoding::Zlib(_), _) => match self.take(node)? {
                Bulk::F32(v) => Some(Floats::Owned(v)),
                _ => None,
            },
            _ => None,
        }
    }

    /// `node`'s numbers as `i32` (`i32` arrays only; `None`: use the general decoder).
    pub fn i32s(&self, node: &Node<'_, '_>) -> Option<Vec<i32>> {
        Some(self.ints(node)?.into_vec())
    }

    /// `node`'s numbers as `f32` (`f32` and `f64` arrays; `None`: use the general decoder).
    pub fn f32s(&self, node: &Node<'_, '_>) -> Option<Vec<f32>> {
        Some(self.floats(node)?.into_vec())
    }

    /// `node`'s numbers as `i64` (`i64` and `i32` arrays; `None`: use the general decoder).
    pub fn i64s(&self, node: &Node<'_, '_>) -> Option<Vec<i64>> {
        let a = array_of(node)?;
        match (a.encoding(), a.ty()) {
            (ArrayEncoding::Plain(b), ArrayType::I64) => Some(
                b.chunks_exact(8)
                    .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
                    .collect(),
            ),
            (ArrayEncoding::Plain(b), ArrayType::I32) => Some(le_i32(b).map(i64::from).collect()),
            (ArrayEncoding::Zlib(_), _) => match self.take(node)? {
                Bulk::I64(v) => Some(v),
                Bulk::I32(v) => Some(v.into_iter().map(i64::from).collect()),
                Bulk::F32(_) => None,
            },
            _ => None,
        }
    }
}

/// The byte range of element `i` of width `w`.
#[inline]
fn span(i: usize, w: usize) -> Option<core::ops::Range<usize>> {
    let start = i.checked_mul(w)?;
    Some(start..start.checked_add(w)?)
}

/// Little-endian `i32`s.
pub fn le_i32(bytes: &[u8]) -> impl ExactSizeIterator<Item = i32> + '_ {
    bytes
        .chunks_exact(4)
        .map(|c| i32::from_le_bytes(c.try_into().unwrap_or([0; 4])))
}
