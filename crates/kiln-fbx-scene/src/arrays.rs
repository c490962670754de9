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
//! Helpers inflate with zlib-rs (faster than miniz_oxide and zune-inflate on these arrays)
//! straight into the arrays' memory, and check the result (exact length, Adler-32). Anything
//! that fails there, and every array without the feature, goes through `kiln_fbx`'s own decoder (miniz_oxide), which
//! reports the error as a sequential import would: errors and warnings do not depend on the
//! feature.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex};

use kiln_fbx::{Array, ArrayEncoding, ArrayType, Document, LeIter, LeSlice, Node, Value};

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
#[derive(Clone)]
enum Bulk {
    F32(Vec<f32>),
    I32(Vec<i32>),
    /// Shared: the 900 curves of a baked clip that share one `KeyTime` stream share one
    /// array too, instead of a copy each.
    I64(std::sync::Arc<[i64]>),
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
///
/// Arrays with the same type, length and stream bytes are decoded once: exporters write
/// many such (every curve of a baked clip has the same key times: the 900 `KeyTime` arrays
/// of a 100-bone clip are one stream written 900 times, and constant channels repeat their
/// values), and the same bytes inflate to the same numbers.
#[derive(Default)]
pub struct Inflated<'a> {
    /// Each distinct compressed array once.
    arrays: Vec<Array<'a>>,
    slots: Vec<Mutex<Slot>>,
    /// How many of the document's arrays each distinct one stands for that are not taken
    /// yet: the last to be taken gets the decoded array, the others a copy.
    left: Vec<AtomicUsize>,
    /// A document array's stream address to its distinct array.
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

/// A compressed array compared by what it decodes to: its type, its length and its stream's
/// bytes. The hash reads the stream's last 8 bytes only (they end with the Adler-32 of the
/// decoded bytes), so listing the arrays reads no stream whole; equality compares them all.
struct Same<'a>(Array<'a>);

impl Same<'_> {
    fn stream(&self) -> &[u8] {
        match self.0.encoding() {
            ArrayEncoding::Zlib(s) => s,
            _ => &[],
        }
    }
}

impl PartialEq for Same<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.ty() == other.0.ty()
            && self.0.len() == other.0.len()
            && self.stream() == other.stream()
    }
}

impl Eq for Same<'_> {}

impl std::hash::Hash for Same<'_> {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let s = self.stream();
        (self.0.ty(), self.0.len(), s.len()).hash(h);
        s[s.len().saturating_sub(8)..].hash(h);
    }
}

/// A node's integers: a plain array read where it lies in the input, or decoded.
#[derive(Clone, Debug)]
pub enum Ints<'x> {
    Le(LeSlice<'x, i32>),
    Owned(Vec<i32>),
}

impl Default for Ints<'_> {
    fn default() -> Self {
        Ints::Owned(Vec::new())
    }
}

/// Iterator over [`Ints`].
pub enum IntsIter<'s> {
    Le(LeIter<'s, i32>),
    Slice(core::slice::Iter<'s, i32>),
}

impl Iterator for IntsIter<'_> {
    type Item = i32;

    #[inline]
    fn next(&mut self) -> Option<i32> {
        match self {
            IntsIter::Le(c) => c.next(),
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
            Ints::Le(s) => s.get(i),
            Ints::Owned(v) => v.get(i).copied(),
        }
    }

    /// The values in order.
    pub fn iter(&self) -> IntsIter<'_> {
        match self {
            Ints::Le(s) => IntsIter::Le(s.iter()),
            Ints::Owned(v) => IntsIter::Slice(v.iter()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn len(&self) -> usize {
        match self {
            Ints::Le(s) => s.len(),
            Ints::Owned(v) => v.len(),
        }
    }
}

/// A node's floats: a plain `f64` or `f32` array read where it lies in the input, or decoded
/// to `f32`.
#[derive(Clone, Debug)]
pub enum Floats<'x> {
    Le64(LeSlice<'x, f64>),
    Le32(LeSlice<'x, f32>),
    Owned(Vec<f32>),
}

/// Iterator over [`Floats`] (as `f32`).
pub enum FloatsIter<'s> {
    Le64(LeIter<'s, f64>),
    Le32(LeIter<'s, f32>),
    Slice(core::slice::Iter<'s, f32>),
}

impl Iterator for FloatsIter<'_> {
    type Item = f32;

    #[inline]
    fn next(&mut self) -> Option<f32> {
        match self {
            FloatsIter::Le64(c) => c.next().map(|x| x as f32),
            FloatsIter::Le32(c) => c.next(),
            FloatsIter::Slice(s) => s.next().copied(),
        }
    }
}

impl Floats<'_> {
    /// The values in order (as `f32`).
    pub fn iter(&self) -> FloatsIter<'_> {
        match self {
            Floats::Le64(s) => FloatsIter::Le64(s.iter()),
            Floats::Le32(s) => FloatsIter::Le32(s.iter()),
            Floats::Owned(v) => FloatsIter::Slice(v.iter()),
        }
    }

    pub fn len(&self) -> usize {
        match self {
            Floats::Le64(s) => s.len(),
            Floats::Le32(s) => s.len(),
            Floats::Owned(v) => v.len(),
        }
    }

    /// The values in groups of `N` (a ragged tail is dropped); a decoded vector whose length
    /// divides is reinterpreted in place.
    pub fn groups<const N: usize>(self) -> Vec<[f32; N]> {
        match self {
            Floats::Le64(s) => le_groups::<N, 8>(s.bytes()),
            Floats::Le32(s) => le_groups::<N, 4>(s.bytes()),
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
            other => other.iter().collect(),
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
    if let Some(b) = decode_fast(a) {
        return Some(b);
    }
    match a.ty() {
        ArrayType::F64 | ArrayType::F32 => {
            a.decode::<f32>().ok().map(|v| Bulk::F32(v.into_owned()))
        }
        ArrayType::I32 => a.decode::<i32>().ok().map(|v| Bulk::I32(v.into_owned())),
        ArrayType::I64 => a.decode::<i64>().ok().map(|v| Bulk::I64(v.into())),
        _ => None,
    }
}

/// The fast path: zlib-rs (a Rust port of zlib-ng's inflater; 1.1-1.25x faster than
/// zune-inflate on the streams of a 400k-triangle export and 1.4-1.6x faster than
/// `miniz_oxide`, see docs/performance.md) inflating straight into the array's final memory,
/// then checked: the stream must end with a good Adler-32 (zlib-rs checks it) at exactly the
/// declared size. Anything else returns `None`, and `kiln_fbx`'s own decoder (miniz_oxide)
/// decodes the array and reports what is wrong.
///
/// Integers and `f32`s inflate into their `Vec` as bytes (no buffer between, no copy); an
/// `f64` array inflates in slices of 64 KiB, each narrowed into the `f32` array as it comes
/// (no `f64` copy of the array is ever whole in memory).
#[cfg(feature = "parallel")]
fn decode_fast(a: &Array<'_>) -> Option<Bulk> {
    let ArrayEncoding::Zlib(stream) = a.encoding() else {
        return None;
    };
    let n = a.len();
    Some(match a.ty() {
        ArrayType::F64 => Bulk::F32(inflate_f64_as_f32(stream, n)?),
        ArrayType::F32 => Bulk::F32(inflate_le(stream, n, |x: f32| {
            f32::from_bits(u32::from_le(x.to_bits()))
        })?),
        ArrayType::I32 => Bulk::I32(inflate_le(stream, n, i32::from_le)?),
        ArrayType::I64 => Bulk::I64(inflate_le(stream, n, i64::from_le)?.into()),
        _ => return None,
    })
}

/// A zlib stream of `n` little-endian `T`s inflated into their `Vec` as bytes, `from_le`
/// applied to each on a big-endian host; `None` unless the stream ends (with a good Adler-32)
/// after exactly `n` elements. `n` is bounded already: the parser refuses a declared size past
/// deflate's greatest expansion of the stream.
#[cfg(feature = "parallel")]
fn inflate_le<T: bytemuck::Pod>(stream: &[u8], n: usize, from_le: fn(T) -> T) -> Option<Vec<T>> {
    let mut v = vec![T::zeroed(); n];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut v);
    let size = bytes.len() as u64;
    let whole = with_inflater(|inflate| {
        let before = inflate.total_out();
        let status = inflate.decompress(stream, bytes, zlib_rs::InflateFlush::Finish);
        matches!(status, Ok(zlib_rs::Status::StreamEnd)) && inflate.total_out() - before == size
    });
    if !whole {
        return None;
    }
    if cfg!(target_endian = "big") {
        v.iter_mut().for_each(|x| *x = from_le(*x));
    }
    Some(v)
}

/// A zlib stream of `n` little-endian `f64`s as `f32`s, inflated 64 KiB at a time; `None`
/// unless the stream ends (with a good Adler-32) after exactly `8 n` bytes. This is
/// `kiln_fbx`'s converting reader (`inflate_streaming`, which its fallback decode runs) with
/// zlib-rs in place of miniz_oxide; `kiln_fbx` keeps one `no_std` inflater for every consumer,
/// so the fast inflater's loop lives here.
#[cfg(feature = "parallel")]
fn inflate_f64_as_f32(stream: &[u8], n: usize) -> Option<Vec<f32>> {
    with_inflater(|inflate| inflate_f64_as_f32_with(inflate, stream, n))
}

/// `f` with this thread's inflater, reset for a new zlib stream. A model's arrays are mostly
/// small streams (an animation curve's 300 keys, a cluster's weights: 2,200 of the 2,206 of a
/// generated 50k-triangle export); a fresh inflater each (its state and window allocated and
/// set up) made inflating them 10-15 % slower.
#[cfg(feature = "parallel")]
fn with_inflater<R>(f: impl FnOnce(&mut zlib_rs::Inflate) -> R) -> R {
    use std::cell::RefCell;
    thread_local! {
        static INFLATER: RefCell<Option<zlib_rs::Inflate>> = const { RefCell::new(None) };
    }
    INFLATER.with(|cell| {
        let mut slot = cell.borrow_mut();
        let inflate = slot.get_or_insert_with(|| zlib_rs::Inflate::new(true, 15));
        inflate.reset(true);
        f(inflate)
    })
}

/// [`inflate_f64_as_f32`] with `inflate`, reset.
#[cfg(feature = "parallel")]
fn inflate_f64_as_f32_with(
    inflate: &mut zlib_rs::Inflate,
    stream: &[u8],
    n: usize,
) -> Option<Vec<f32>> {
    let mut out: Vec<f32> = Vec::with_capacity(n);
    // 64 KiB, or the whole array when smaller (a cluster's weights, a short curve).
    let mut buf = vec![0u8; (1 << 16).min(n.saturating_mul(8).max(8))];
    // Bytes of `buf` inflated and not narrowed yet (fewer than 8 between calls).
    let mut have = 0usize;
    let mut input = stream;
    loop {
        let (was_in, was_out) = (inflate.total_in(), inflate.total_out());
        let status = inflate
            .decompress(input, &mut buf[have..], zlib_rs::InflateFlush::NoFlush)
            .ok()?;
        let consumed = usize::try_from(inflate.total_in() - was_in).ok()?;
        let produced = usize::try_from(inflate.total_out() - was_out).ok()?;
        input = input.get(consumed..)?;
        have += produced;
        let whole = have / 8 * 8;
        if out.len() + whole / 8 > n {
            return None;
        }
        out.extend(
            buf[..whole]
                .chunks_exact(8)
                .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])) as f32),
        );
        buf.copy_within(whole..have, 0);
        have -= whole;
        match status {
            zlib_rs::Status::StreamEnd => break,
            // No progress: the stream is cut short.
            _ if consumed == 0 && produced == 0 => return None,
            _ => {}
        }
    }
    (have == 0 && out.len() == n).then_some(out)
}

impl<'a> Inflated<'a> {
    /// Lists the compressed bulk arrays of `doc` (nothing is decoded yet).
    pub fn new(doc: &Document<'a>) -> Self {
        if !cfg!(feature = "parallel") {
            return Inflated::default();
        }
        let found: Vec<(u8, Array<'a>)> = doc
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
        // Each distinct array once, in document order; `by_key` sends every copy to it.
        let mut distinct: HashMap<Same<'a>, usize> = HashMap::new();
        let mut arrays: Vec<Array<'a>> = Vec::new();
        let mut ranks: Vec<u8> = Vec::new();
        let mut uses: Vec<usize> = Vec::new();
        let mut by_key = HashMap::with_capacity(found.len());
        for (rank, a) in found {
            let Some(k) = key(&a) else { continue };
            let i = *distinct.entry(Same(a)).or_insert_with(|| {
                arrays.push(a);
                ranks.push(rank);
                uses.push(0);
                arrays.len() - 1
            });
            uses[i] += 1;
            by_key.insert(k, i);
        }
        // Helpers start with what the conversion needs after the animation (which it reads
        // first, claiming its own curves): geometry, clusters, then curves from the end.
        let mut order: Vec<usize> = (0..arrays.len()).collect();
        order.sort_by_key(|&i| (ranks[i], if ranks[i] == 2 { usize::MAX - i } else { i }));
        Inflated {
            slots: arrays.iter().map(|_| Mutex::new(Slot::Pending)).collect(),
            left: uses.into_iter().map(AtomicUsize::new).collect(),
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
    /// waits only when there are none; `None` when it was handed out already or failed. The
    /// last of the arrays that share a stream takes the decoded array, the others a copy.
    fn take(&self, node: &Node<'_, '_>) -> Option<Bulk> {
        let a = array_of(node)?;
        let &i = self.by_key.get(&key(&a)?)?;
        let left = self.left[i]
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| n.checked_sub(1))
            .ok()?;
        let last = left == 1;
        loop {
            let mut slot = self.slots[i].lock().ok()?;
            match std::mem::replace(&mut *slot, Slot::Gone) {
                Slot::Pending if last => {
                    drop(slot);
                    return decode(&a);
                }
                Slot::Pending => {
                    *slot = Slot::Running;
                    drop(slot);
                    let bulk = decode(&a);
                    *self.slots[i].lock().ok()? = Slot::Done(bulk.clone());
                    self.done.notify_all();
                    return bulk;
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
                Slot::Done(bulk) if last => return bulk,
                Slot::Done(bulk) => {
                    *slot = Slot::Done(bulk.clone());
                    return bulk;
                }
                Slot::Gone => return None,
            }
        }
    }

    /// `node`'s `i32` array, read in place (plain) or decoded by a helper; `None` for
    /// anything that needs the general decoder (which then reports any error).
    pub fn ints<'x>(&self, node: &Node<'_, 'x>) -> Option<Ints<'x>> {
        let a = array_of(node)?;
        if let Some(s) = a.le_slice::<i32>() {
            return Some(Ints::Le(s));
        }
        match self.take(node)? {
            Bulk::I32(v) => Some(Ints::Owned(v)),
            _ => None,
        }
    }

    /// `node`'s `f64` or `f32` array as `f32`, read in place (plain) or decoded by a helper;
    /// `None` for anything that needs the general decoder.
    pub fn floats<'x>(&self, node: &Node<'_, 'x>) -> Option<Floats<'x>> {
        let a = array_of(node)?;
        if let Some(s) = a.le_slice::<f64>() {
            return Some(Floats::Le64(s));
        }
        if let Some(s) = a.le_slice::<f32>() {
            return Some(Floats::Le32(s));
        }
        match self.take(node)? {
            Bulk::F32(v) => Some(Floats::Owned(v)),
            _ => None,
        }
    }

    /// [`Inflated::ints`], else `kiln_fbx`'s decoder (`i32_values`), which reports errors.
    pub fn ints_or_decode<'x>(&self, node: &Node<'_, 'x>) -> Result<Ints<'x>, kiln_fbx::Error> {
        match self.ints(node) {
            Some(i) => Ok(i),
            None => Ok(Ints::Owned(node.i32_values()?.into_owned())),
        }
    }

    /// [`Inflated::floats`], else `kiln_fbx`'s decoder (`f32_values`), which reports errors.
    pub fn floats_or_decode<'x>(&self, node: &Node<'_, 'x>) -> Result<Floats<'x>, kiln_fbx::Error> {
        match self.floats(node) {
            Some(f) => Ok(f),
            None => Ok(Floats::Owned(node.f32_values()?.into_owned())),
        }
    }

    /// `node`'s numbers as `i64`: decoded by a helper (one array shared by every node with
    /// the same stream), else `kiln_fbx`'s decoder.
    pub fn i64s(&self, node: &Node<'_, '_>) -> Result<std::sync::Arc<[i64]>, kiln_fbx::Error> {
        match self.take(node) {
            Some(Bulk::I64(v)) => Ok(v),
            Some(Bulk::I32(v)) => Ok(v.into_iter().map(i64::from).collect()),
            _ => Ok(node.i64_values()?.into()),
        }
    }
}

#[cfg(all(test, feature = "parallel"))]
mod tests {
    use super::*;
    use kiln_fbx::{OwnedNode, OwnedValue, WriteOptions, write_binary};

    /// Arrays with the same stream are decoded once and each handed out once, whether a
    /// helper decoded them first or the reader does; a different array of the same length
    /// and type, or the same bytes as another type, stays apart.
    #[test]
    fn arrays_with_one_stream_are_decoded_once_and_each_handed_out() {
        let times: Vec<i64> = (0..300).map(|i| i * 1_539_538_600).collect();
        let other: Vec<i64> = (0..300).map(|i| i * 7).collect();
        let nodes = [
            OwnedNode::new("KeyTime").with(OwnedValue::I64Array(times.clone())),
            OwnedNode::new("KeyTime").with(OwnedValue::I64Array(other.clone())),
            OwnedNode::new("KeyTime").with(OwnedValue::I64Array(times.clone())),
            OwnedNode::new("KeyTime").with(OwnedValue::I64Array(times.clone())),
            // The same bytes as `times`, as doubles.
            OwnedNode::new("KeyValueFloat").with(OwnedValue::F64Array(
                times.iter().map(|&t| f64::from_bits(t as u64)).collect(),
            )),
        ];
        let bytes = write_binary(&nodes, &WriteOptions::V7400.compressed()).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        let read: Vec<Node<'_, '_>> = doc.nodes().collect();
        for helpers_first in [false, true] {
            let inflated = Inflated::new(&doc);
            assert_eq!(inflated.arrays.len(), 3);
            if helpers_first {
                inflated.work();
            }
            // Out of document order: the last copy first.
            let mut got = Vec::new();
            for (k, want) in [(3, &times), (0, &times), (1, &other), (2, &times)] {
                let v = inflated.i64s(&read[k]).unwrap();
                assert_eq!(*v, want[..], "array {k}");
                got.push(v);
            }
            // The copies of one stream share one array.
            assert!(std::sync::Arc::ptr_eq(&got[0], &got[1]));
            assert!(std::sync::Arc::ptr_eq(&got[0], &got[3]));
            assert!(!std::sync::Arc::ptr_eq(&got[0], &got[2]));
            let f = inflated.floats(&read[4]).unwrap().into_vec();
            assert_eq!(f.len(), 300);
            assert_eq!(f[1], f64::from_bits(times[1] as u64) as f32);
            // Every copy is handed out once: another take finds nothing.
            assert!(inflated.take(&read[0]).is_none());
            assert!(inflated.take(&read[3]).is_none());
        }
    }

    /// The fast path against `kiln_fbx`'s decoder, on every array type, and its refusals.
    #[test]
    fn the_fast_path_decodes_as_kiln_fbx_does_and_refuses_damage() {
        // Larger than the f64 path's 64 KiB slices, and not a multiple of them.
        let n: usize = 20_011;
        let f64s: Vec<f64> = (0..n).map(|i| (i as f64 * 0.37).sin() * 1e3).collect();
        let nodes = [
            OwnedNode::new("A").with(OwnedValue::F64Array(f64s.clone())),
            OwnedNode::new("B").with(OwnedValue::F32Array(
                f64s.iter().map(|&x| x as f32).collect(),
            )),
            OwnedNode::new("C").with(OwnedValue::I32Array(
                (0..n as i32).map(|i| i * 7 - 3).collect(),
            )),
            // Smaller than one slice: the slice is the array's size.
            OwnedNode::new("E").with(OwnedValue::F64Array(vec![0.5, -1.25, 3e38])),
            OwnedNode::new("D").with(OwnedValue::I64Array(
                (0..n as i64).map(|i| i << 33).collect(),
            )),
        ];
        let bytes = write_binary(&nodes, &WriteOptions::V7400.compressed()).unwrap();
        let doc = Document::parse(&bytes).unwrap();
        for node in doc.nodes() {
            let a = array_of(&node).unwrap();
            let fast = decode_fast(&a).unwrap();
            match fast {
                Bulk::F32(v) => assert_eq!(v, a.decode::<f32>().unwrap().into_owned()),
                Bulk::I32(v) => assert_eq!(v, a.decode::<i32>().unwrap().into_owned()),
                Bulk::I64(v) => assert_eq!(*v, *a.decode::<i64>().unwrap()),
            }
            let ArrayEncoding::Zlib(stream) = a.encoding() else {
                panic!("compressed")
            };
            let size = a.len() * a.ty().element_size();
            let mut raw = vec![0u8; size];
            let (_, rc) =
                zlib_rs::decompress_slice(&mut raw, stream, zlib_rs::InflateConfig::default());
            assert!(rc == zlib_rs::ReturnCode::Ok);
            // The same refusals through the integer path (the thread's inflater reused
            // after each): cut short, a wrong checksum, one byte more or fewer.
            let bytes = |raw: &[u8]| inflate_le::<u8>(raw, size, u8::from_le);
            assert_eq!(bytes(stream).as_deref(), Some(&raw[..]));
            assert!(bytes(&stream[..stream.len() / 2]).is_none());
            let mut bad = stream.to_vec();
            *bad.last_mut().unwrap() ^= 1;
            assert!(bytes(&bad).is_none());
            assert!(inflate_le::<u8>(stream, size + 1, u8::from_le).is_none());
            assert!(inflate_le::<u8>(stream, size - 1, u8::from_le).is_none());
            assert_eq!(bytes(stream).as_deref(), Some(&raw[..]));
            // A byte count that is not whole f64s, cut short, a wrong checksum, one element
            // more or fewer than declared: refused.
            if size % 8 != 0 {
                assert!(inflate_f64_as_f32(stream, size / 8).is_none());
                continue;
            }
            assert!(inflate_f64_as_f32(&stream[..stream.len() / 2], size / 8).is_none());
            let mut bad = stream.to_vec();
            *bad.last_mut().unwrap() ^= 1;
            assert!(inflate_f64_as_f32(&bad, size / 8).is_none());
            assert!(inflate_f64_as_f32(stream, size / 8 + 1).is_none());
            assert!(inflate_f64_as_f32(stream, size / 8 - 1).is_none());
            assert_eq!(
                inflate_f64_as_f32(stream, size / 8).unwrap(),
                raw.chunks_exact(8)
                    .map(|c| f64::from_le_bytes(c.try_into().unwrap()) as f32)
                    .collect::<Vec<_>>()
            );
        }
    }
}
