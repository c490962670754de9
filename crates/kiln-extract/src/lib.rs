//! The offline half of kiln's animation: a processed [`kiln_scene::Scene`] lowered to the
//! engine data the `.mesh`, `.clip` and `.xml` writers take.
//!
//! - [`extract()`]: bones (every node, depth-first pre-order, plus helper bones where one
//!   texture block per bone needs them), mesh parts, the top-4 skin weights, Assimp's skin
//!   offsets, and materials: the original tool's `Read*Data`, with its faults fixed;
//! - [`extract_clips`]: one [`kiln_format::Clip`] per scene animation, every bone resampled at
//!   every frame, and [`clip_file_names`] for the files they are written to;
//! - [`classic_model`] and [`classic_clip`]: the same without the helper bones, the original
//!   tool's one bone per node, for the classic layout, which stores no offsets.
//!
//! It does not encode files (that is `kiln-format`), read model files (the importers), or
//! sample, bake or skin at run time (that is `kiln-anim`, the runtime an engine embeds, which
//! does not depend on this crate or on `kiln-scene`).
//!
//! Invariants: the scene is expected left-handed and triangulated (what `kiln-process` makes
//! of it); the output is deterministic for a given scene; bad input is an error
//! ([`ClipError`]) or a repair reported as a [`kiln_scene::Warning`] with a code from
//! [`codes`], never a panic. Conventions: the scene uses column vectors, the engine data row
//! vectors (`v' = v * M`), the same memory as glam's column-major matrices, so no matrix is
//! transposed. `no_std` + `alloc` (std with the `parallel` feature, which lowers mesh parts, and a
//! large part's vertices in runs, on rayon's pool with the same output), no `unsafe`. See `docs/animation.md`.
#![no_std]
#![forbid(unsafe_code)]
#![deny(missing_docs)]

extern crate alloc;
#[cfg(feature = "parallel")]
extern crate std;

/// `items.into_iter().map(f).collect()`, on rayon's pool with the `parallel` feature; order
/// kept.
fn par_map_into<T: Send, O: Send>(
    items: alloc::vec::Vec<T>,
    f: impl Fn(T) -> O + Sync + Send,
) -> alloc::vec::Vec<O> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            return items.into_par_iter().map(f).collect();
        }
    }
    items.into_iter().map(f).collect()
}

/// `items.iter().map(f).collect()`, on rayon's pool with the `parallel` feature; order kept.
fn par_map<T: Sync, O: Send>(items: &[T], f: impl Fn(&T) -> O + Sync + Send) -> alloc::vec::Vec<O> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            return items.par_iter().map(f).collect();
        }
    }
    items.iter().map(f).collect()
}

/// Drops `value` on rayon's pool with the `parallel` feature, so that giving its memory back
/// to the system (an `munmap` per large array) runs beside the caller's work instead of in
/// it; here without the feature.
fn drop_beside<T: Send + 'static>(value: T) {
    #[cfg(feature = "parallel")]
    rayon::spawn(move || drop(value));
    #[cfg(not(feature = "parallel"))]
    drop(value);
}

/// Fewest vertices a task gets when one part's work is split across threads: below it the
/// task would cost more than its work.
#[cfg(feature = "parallel")]
const MIN_SPLIT: usize = 1 << 14;

/// `(0..n).map(f).collect()`, split into runs of indices on rayon's pool with the `parallel`
/// feature (one part's vertices); order kept, so the result is the same.
fn par_collect<O: Send>(n: usize, f: impl Fn(usize) -> O + Sync + Send) -> alloc::vec::Vec<O> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if n >= 2 * MIN_SPLIT {
            let mut out = alloc::vec::Vec::with_capacity(n);
            (0..n)
                .into_par_iter()
                .with_min_len(MIN_SPLIT)
                .map(f)
                .collect_into_vec(&mut out);
            return out;
        }
    }
    (0..n).map(f).collect()
}

/// `f(start, run)` for consecutive runs of `items` that together are all of it, one run per
/// thread of rayon's pool with the `parallel` feature (at least [`MIN_SPLIT`] items each),
/// the whole of `items` at once without it; the results in run order.
fn par_runs<T: Send, R: Send>(
    items: &mut [T],
    f: impl Fn(usize, &mut [T]) -> R + Sync + Send,
) -> alloc::vec::Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        let runs = rayon::current_num_threads().min(items.len() / MIN_SPLIT);
        if runs > 1 {
            let len = items.len().div_ceil(runs);
            return items
                .par_chunks_mut(len)
                .enumerate()
                .map(|(k, run)| f(k * len, run))
                .collect();
        }
    }
    alloc::vec![f(0, items)]
}

pub mod classic;
pub mod clip;
pub mod codes;
pub mod extract;

pub use classic::{classic_bone_map, classic_clip, classic_model, classic_vertex, is_helper_bone};
pub use clip::{
    ClipError, ClipOptions, ExtractedClip, clip_file_names, extract_clip, extract_clips,
};
pub use extract::{
    BoneSource, Extracted, ExtractedMaterial, PendingVertices, extract, extract_pending,
    extract_taking_meshes, texture_file_name,
};

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
