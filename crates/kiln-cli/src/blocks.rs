//! The CLI's global allocator: the system allocator for small blocks, and for large ones
//! ([`LARGE`], 256 KiB, and more) a mapping of their own; a freed one is kept in a small cache
//! and handed to the next large request, its front cut off or the whole grown with `mremap`.
//!
//! Why kiln has one. A conversion is a sequence of stages that each allocate arrays of a few
//! megabytes per mesh and free the previous stage's. glibc's `malloc` serves such a block
//! either from its heap, where a freed block becomes a hole that later, larger blocks do not fit
//! and that stays resident (the process then holds its live arrays plus the holes), or from a
//! fresh mapping, whose every page is faulted in and zeroed by the kernel on first touch (on a
//! virtual machine the most expensive thing a conversion does, a quarter of its time at 400k
//! triangles). A large block in a mapping of its own leaves no hole: once freed and out of the
//! cache it goes back to the system. The cache keeps the pages a freed array had for the next
//! one, without a fault: a smaller request takes the front of a cached mapping and the rest
//! stays cached, a larger one grows the largest with `mremap`, which moves pages rather than
//! copying them. On the 400k-triangle model the peak resident set falls from about 156 to 127
//! MiB and the wall time by 4-6 % (paired); without the cache, 124 MiB but 5 % slower (65k
//! page faults against 50k). Fresh mappings do not ask for transparent huge pages. From stop
//! 27 to 33 those of 2 MiB or more did (`MADV_HUGEPAGE`, on a 2 MiB boundary): a fault per 2
//! MiB instead of per 4 KiB, page faults 50k to 28-32k, wall 0.91 paired on a quiet machine.
//! But on a virtual machine that hands freed memory back to its host (virtio-balloon's free
//! page reporting, which reports free blocks of 2 MiB and more), a huge page is most often
//! such a block, and the host fills it again on the first touch: right after another process
//! freed a few hundred MB (Assimp, in the benchmark that alternates the commands), a 400k
//! conversion took 0.26-0.48 s instead of 0.19-0.22, its system time 0.17-0.39 s against
//! 0.12, in four runs of six; with 4 KiB pages, 0.21-0.23 every time. In the alternating
//! benchmark, stop 34: 800k classic 0.338-0.347 s against 0.429-0.447 with huge pages, kiln
//! layout 0.379-0.457 against 0.466-0.534, 400k within the noise or better, 50k the same;
//! alone and quiet, 400k was 5 % faster with them (paired).
//! `docs/performance.md` has the measurements. No allocator crate does this
//! without C (jemalloc, mimalloc and snmalloc are C or C++); the pure-Rust ones serve
//! `no_std` and WebAssembly targets from one region and would hold holes just as glibc does.
//!
//! The cache is bounded: [`CACHE_BLOCKS`] mappings, [`CACHE_BYTES`] in all, and never
//! more than a [`CACHE_SHARE`]th of the large blocks in use (a small model keeps little); a
//! block that does not fit is unmapped. Alignments above a page, and every platform but x86-64 Linux (whose 4 KiB pages
//! the cutting of cached mappings relies on), go to the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Blocks of at least this many bytes get a mapping of their own.
pub const LARGE: usize = 1 << 18;
/// The most freed mappings kept for reuse.
pub const CACHE_BLOCKS: usize = 64;
/// The most bytes of freed mappings kept for reuse. On the 400k model: 8 MiB, 54k page faults
/// (glibc's count) and a 128 MB peak; 16 MiB, 50k and 130 MB; 24 MiB, 47k but 135 MB (before
/// stop 29's smaller import). Since stop 35, 256 MiB with [`CACHE_SHARE`] 2 (16 MiB and 4
/// before): the share bounds it first below about 500 MB of live arrays, and the peak did not
/// move (50k to 3.2M triangles, within 1 MiB) while the page faults fell from 63k to 52k at
/// 800k and from 280k to 230k at 3.2M, whose wall time went to 0.92 of the old (paired,
/// `farm-bench -n 9`; system time 0.83 → 0.72 s). A freed array is most often followed by
/// the next stage's of the same size, so what is cached is taken again before the peak.
pub const CACHE_BYTES: usize = 256 << 20;
/// The cache holds at most this fraction (1 / `CACHE_SHARE`) of the large bytes in use, so
/// that the resident set stays within half the live arrays above them. Measured with
/// `/usr/bin/time` and `farm-bench -n 31`: against the whole of the live bytes, a quarter
/// took the 200k-triangle model's peak from 72.5 to 70.5 MB (kiln layout, 5 runs) and the
/// 400k one's from 121 to 118.4 MiB with the same wall time (paired 0.999); an eighth gave
/// 5 MiB less at both sizes, but 4 % more time at 400k. Since the import's and extraction's
/// peaks fell (stops 29-32), a half keeps the peak where a quarter had it (see
/// [`CACHE_BYTES`]).
pub const CACHE_SHARE: usize = 2;
const PAGE: usize = 4096;

/// How far glibc grows a heap past a request that does not fit: 16 MiB (its default is
/// 128 KiB). Sets glibc's `M_TOP_PAD`; returns whether glibc took it (`false` off glibc).
///
/// Why: the small blocks left to the system allocator are most of the animation's and the
/// scene tree's allocations, and many are made on rayon's threads, each with a glibc heap of
/// its own. Such a heap grows by `mprotect`ing the next pages of its reservation, one call
/// a growth: 1,490 calls in a 50k-triangle conversion, each taking the address space's lock
/// against the other threads' page faults. With the pad, 15. The pages beyond what is used
/// are not touched: the peak resident set moved by 0.3 MB at 50k, not at 400k.
/// `farm-bench -n 41` at 50k, against the same binary without it: wall 0.92, CPU 0.93
/// (paired medians); at 400k 0.99 (21 pairs).
pub fn pad_small_heaps() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: `mallopt` only sets one of glibc's malloc parameters (an integer, checked by
        // glibc, which returns 0 for a value it refuses); it touches no memory of ours and
        // is safe to call at any time, from any thread.
        unsafe { libc::mallopt(libc::M_TOP_PAD, 16 << 20) == 1 }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}

/// See the module's documentation.
pub struct Blocks {
    cache: Mutex<Cache>,
    /// Bytes of large blocks in use: the cache holds no more than a [`CACHE_SHARE`]th of
    /// that, so that a small model's conversion does not keep megabytes it will not ask for
    /// again.
    live: AtomicUsize,
}

/// Freed mappings: start address and length in bytes, page-aligned.
struct Cache {
    blocks: [(usize, usize); CACHE_BLOCKS],
    len: usize,
    bytes: usize,
}

impl Blocks {
    /// An allocator with an empty cache.
    pub const fn new() -> Blocks {
        Blocks {
            cache: Mutex::new(Cache {
                blocks: [(0, 0); CACHE_BLOCKS],
                len: 0,
                bytes: 0,
            }),
            live: AtomicUsize::new(0),
        }
    }

    fn large(layout: Layout) -> bool {
        cfg!(all(target_os = "linux", target_arch = "x86_64"))
            && layout.size() >= LARGE
            && layout.align() <= PAGE
    }

    /// Takes the cached mapping that best fits `len` bytes: the smallest that holds them, or
    /// else the largest (to be grown).
    fn take(&self, len: usize) -> Option<(usize, usize)> {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let n = cache.len;
        let blocks = &cache.blocks[..n];
        let fits = (0..n)
            .filter(|&i| blocks[i].1 >= len)
            .min_by_key(|&i| blocks[i].1);
        let k = fits.or_else(|| (0..n).max_by_key(|&i| blocks[i].1))?;
        let block = cache.blocks[k];
        cache.blocks[k] = cache.blocks[n - 1];
        cache.len -= 1;
        cache.bytes -= block.1;
        Some(block)
    }

    /// Keeps a freed mapping for reuse, or unmaps it when the cache is full.
    fn put(&self, addr: usize, len: usize) {
        let mut cache = self.cache.lock().unwrap_or_else(|e| e.into_inner());
        let room = CACHE_BYTES.min(self.live.load(Ordering::Relaxed) / CACHE_SHARE);
        if cache.len < CACHE_BLOCKS && cache.bytes + len <= room {
            let n = cache.len;
            cache.blocks[n] = (addr, len);
            cache.len += 1;
            cache.bytes += len;
            return;
        }
        drop(cache);
        sys::unmap(addr, len);
    }

    /// A mapping of `len` bytes (a page multiple), counted as in use, and whether its pages are
    /// all zero.
    fn map(&self, len: usize) -> Option<(usize, bool)> {
        if let Some((addr, old)) = self.take(len) {
            if old >= len {
                // Counted before the rest, pages and all, goes back: the cache's room is a
                // share of the large blocks in use, this one included.
                self.live.fetch_add(len, Ordering::Relaxed);
                if old > len {
                    self.put(addr + len, old - len);
                }
                return Some((addr, false));
            }
            if let Some(addr) = sys::remap(addr, old, len) {
                self.live.fetch_add(len, Ordering::Relaxed);
                return Some((addr, false));
            }
            sys::unmap(addr, old);
        }
        let addr = sys::map(len)?;
        self.live.fetch_add(len, Ordering::Relaxed);
        Some((addr, true))
    }
}

impl Default for Blocks {
    fn default() -> Blocks {
        Blocks::new()
    }
}

fn pages(size: usize) -> Option<usize> {
    size.checked_add(PAGE - 1).map(|s| s & !(PAGE - 1))
}

// SAFETY: small blocks and over-aligned ones are `System`'s, passed through with the caller's
// arguments. A large block is a private anonymous mapping of at least `layout.size()` bytes,
// page-aligned (so aligned for any `layout.align() <= PAGE`), owned by exactly one live
// allocation: `map` takes it out of the cache under the lock before returning it, and `put`
// stores it only once its allocation is freed. Whether a block is large is decided by its
// layout alone, which `dealloc` and `realloc` get back unchanged from the caller, so a block
// always returns to the side that made it.
unsafe impl GlobalAlloc for Blocks {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if !Blocks::large(layout) {
            // SAFETY: the caller's contract for `alloc` is `System::alloc`'s.
            return unsafe { System.alloc(layout) };
        }
        match pages(layout.size()).and_then(|len| self.map(len)) {
            Some((addr, _)) => addr as *mut u8,
            None => std::ptr::null_mut(),
        }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        if !Blocks::large(layout) {
            // SAFETY: as `alloc`.
            return unsafe { System.alloc_zeroed(layout) };
        }
        match pages(layout.size()).and_then(|len| self.map(len)) {
            Some((addr, zero)) => {
                let p = addr as *mut u8;
                if !zero {
                    // SAFETY: the mapping is writable and at least `layout.size()` long.
                    unsafe { std::ptr::write_bytes(p, 0, layout.size()) };
                }
                p
            }
            None => std::ptr::null_mut(),
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        if !Blocks::large(layout) {
            // SAFETY: `ptr` came from `System` with `layout` (see the impl's comment).
            return unsafe { System.dealloc(ptr, layout) };
        }
        if let Some(len) = pages(layout.size()) {
            self.live.fetch_sub(len, Ordering::Relaxed);
            self.put(ptr as usize, len);
        }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller guarantees `layout.align()` with `new_size` is a valid layout.
        let new = unsafe { Layout::from_size_align_unchecked(new_size, layout.align()) };
        match (Blocks::large(layout), Blocks::large(new)) {
            // SAFETY: `ptr` came from `System` with `layout`; the caller's contract.
            (false, false) => unsafe { System.realloc(ptr, layout, new_size) },
            (true, true) => {
                let (Some(old_len), Some(new_len)) = (pages(layout.size()), pages(new_size)) else {
                    return std::ptr::null_mut();
                };
                if old_len == new_len {
                    return ptr;
                }
                // On failure the old mapping is untouched, as `realloc` requires.
                let Some(addr) = sys::remap(ptr as usize, old_len, new_len) else {
                    return std::ptr::null_mut();
                };
                self.live.fetch_add(new_len, Ordering::Relaxed);
                self.live.fetch_sub(old_len, Ordering::Relaxed);
                addr as *mut u8
            }
            _ => {
                // From one side to the other: a new block, the contents copied, the old freed.
                // SAFETY: `new` is non-zero-sized (one side is large, the other at least as
                // large as the copy), and `ptr` is valid for `layout.size()` bytes.
                unsafe {
                    let p = self.alloc(new);
                    if !p.is_null() {
                        std::ptr::copy_nonoverlapping(ptr, p, layout.size().min(new_size));
                        self.dealloc(ptr, layout);
                    }
                    p
                }
            }
        }
    }
}

#[cfg(all(target_os = "linux", target_arch = "x86_64"))]
mod sys {
    /// A fresh private anonymous read-write mapping of `len` bytes where the kernel puts it,
    /// with the kernel's default huge-page policy (see the module's documentation for why it
    /// does not ask for huge pages).
    pub fn map(len: usize) -> Option<usize> {
        // SAFETY: a new anonymous mapping at an address of the kernel's choosing touches no
        // existing memory.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            )
        };
        (p != libc::MAP_FAILED).then_some(p as usize)
    }

    /// The mapping at `addr` resized from `old` to `len` bytes, moved where it must be; its
    /// pages (up to the smaller length) go with it. On failure it is left as it was.
    pub fn remap(addr: usize, old: usize, len: usize) -> Option<usize> {
        // SAFETY: `addr`/`old` is a whole mapping this allocator made and owns (no live
        // allocation refers to it but the caller's, which the result replaces).
        let p = unsafe { libc::mremap(addr as *mut _, old, len, libc::MREMAP_MAYMOVE) };
        (p != libc::MAP_FAILED).then_some(p as usize)
    }

    /// Gives a mapping back to the system.
    pub fn unmap(addr: usize, len: usize) {
        // SAFETY: as `remap`; nothing refers to the mapping any more.
        unsafe { libc::munmap(addr as *mut _, len) };
    }
}

#[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
mod sys {
    // `Blocks::large` is false but on x86-64 Linux, so none of these is reached.
    pub fn map(_: usize) -> Option<usize> {
        None
    }
    pub fn remap(_: usize, _: usize, _: usize) -> Option<usize> {
        None
    }
    pub fn unmap(_: usize, _: usize) {}
}

#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn glibc_takes_the_heap_pad() {
        assert_eq!(pad_small_heaps(), cfg!(target_env = "gnu"));
    }

    /// Fills `len` bytes at `p` with a pattern of `seed`.
    fn fill(p: *mut u8, len: usize, seed: u8) {
        for i in (0..len).step_by(509) {
            // SAFETY: the tests pass blocks of at least `len` bytes.
            unsafe { *p.add(i) = seed.wrapping_add(i as u8) };
        }
        if len > 0 {
            // SAFETY: as above.
            unsafe { *p.add(len - 1) = seed ^ 0x5a };
        }
    }

    /// Whether the pattern of `seed` is still in the first `len` bytes at `p` (as [`fill`]
    /// wrote it over at least `len` bytes).
    fn holds(p: *const u8, len: usize, written: usize, seed: u8) -> bool {
        let step_ok = (0..len)
            .step_by(509)
            .filter(|&i| i != written - 1)
            // SAFETY: as `fill`.
            .all(|i| unsafe { *p.add(i) } == seed.wrapping_add(i as u8));
        // SAFETY: as `fill`.
        step_ok && (len < written || unsafe { *p.add(written - 1) } == seed ^ 0x5a)
    }

    fn layout(size: usize) -> Layout {
        Layout::from_size_align(size, 8).unwrap()
    }

    fn cached(b: &Blocks) -> (usize, usize) {
        let c = b.cache.lock().unwrap();
        (c.len, c.bytes)
    }

    /// A large block held while a test runs, so that the cache has room (it holds no more than
    /// a [`CACHE_SHARE`]th of the large blocks in use). Never touched: its pages are not
    /// faulted in.
    struct Ballast<'a>(&'a Blocks, *mut u8);

    const BALLAST: usize = CACHE_SHARE * CACHE_BYTES + (1 << 20);

    impl<'a> Ballast<'a> {
        fn new(b: &'a Blocks) -> Ballast<'a> {
            // SAFETY: freed once, in `drop`, with the same layout.
            Ballast(b, unsafe { b.alloc(layout(BALLAST)) })
        }
    }

    impl Drop for Ballast<'_> {
        fn drop(&mut self) {
            // SAFETY: see `new`.
            unsafe { self.0.dealloc(self.1, layout(BALLAST)) }
        }
    }

    #[test]
    fn a_freed_large_block_serves_the_next_request_and_keeps_the_rest() {
        let b = Blocks::new();
        let _ballast = Ballast::new(&b);
        let big = layout(4 << 20);
        // SAFETY: each block is freed once, with its own layout.
        unsafe {
            let p = b.alloc(big);
            assert!(!p.is_null());
            assert_eq!(p as usize % PAGE, 0);
            fill(p, big.size(), 7);
            b.dealloc(p, big);
            assert_eq!(cached(&b), (1, 4 << 20));
            // A smaller request takes the front of the cached mapping, pages and all.
            let small = layout(LARGE + 1);
            let q = b.alloc(small);
            assert_eq!(q, p);
            assert!(holds(q, small.size(), big.size(), 7));
            let front = pages(small.size()).unwrap();
            assert_eq!(cached(&b), (1, (4 << 20) - front));
            // Zeroed memory from the cache is zeroed.
            let z = b.alloc_zeroed(layout(1 << 20));
            assert_eq!(z as usize, p as usize + front);
            assert!((0..1 << 20).all(|i| *z.add(i) == 0));
            b.dealloc(q, small);
            b.dealloc(z, layout(1 << 20));
        }
    }

    #[test]
    fn a_larger_request_grows_a_cached_block_and_the_cache_is_bounded() {
        let b = Blocks::new();
        let ballast = Ballast::new(&b);
        // SAFETY: each block is freed once, with its own layout.
        unsafe {
            let first = layout(1 << 20);
            let p = b.alloc(first);
            fill(p, first.size(), 3);
            b.dealloc(p, first);
            let grown = layout(3 << 20);
            let q = b.alloc(grown);
            assert!(
                holds(q, first.size(), first.size(), 3),
                "the pages moved with it"
            );
            assert_eq!(cached(&b), (0, 0));
            b.dealloc(q, grown);
            assert_eq!(cached(&b), (1, 3 << 20));
            // More than the cache holds: the cached block is grown into it, and when freed it
            // does not fit and is unmapped.
            let huge = layout(CACHE_BYTES + PAGE);
            let h = b.alloc(huge);
            fill(h, huge.size(), 1);
            b.dealloc(h, huge);
            assert_eq!(cached(&b), (0, 0));
            let many: Vec<*mut u8> = (0..CACHE_BLOCKS + 4).map(|_| b.alloc(first)).collect();
            for &m in &many {
                b.dealloc(m, first);
            }
            let (n, bytes) = cached(&b);
            assert!(
                n <= CACHE_BLOCKS && bytes <= CACHE_BYTES,
                "{n} blocks, {bytes} bytes"
            );
            assert!(n > 0);
            // With no large block in use the cache keeps nothing more.
            drop(ballast);
            let (n, _) = cached(&b);
            let p = b.alloc(first);
            assert_eq!(cached(&b).0, n - 1, "served from the cache");
            b.dealloc(p, first);
            assert_eq!(cached(&b).0, n - 1, "not kept: nothing large is in use");
            assert_eq!(b.live.load(Ordering::Relaxed), 0);
        }
    }

    #[test]
    fn the_cache_holds_a_share_of_the_large_bytes_in_use() {
        let b = Blocks::new();
        let held = layout(CACHE_SHARE * (4 << 20));
        let block = layout(2 << 20);
        // SAFETY: each block is freed once, with its own layout.
        unsafe {
            let h = b.alloc(held);
            // In use: the held block (4 MiB times the share's divisor) and three of 2 MiB.
            let blocks: Vec<*mut u8> = (0..3).map(|_| b.alloc(block)).collect();
            for &p in &blocks {
                b.dealloc(p, block);
            }
            // Freed one by one, a block is counted out first, then kept if the cache stays
            // within a share of what is still in use: that gives 4 + 4/d, 4 + 2/d, then 4 MiB
            // of room (d the share's divisor, at least 2), so the first two are kept (2, then
            // 4 MiB) and the third, which would make 6, is unmapped.
            assert_eq!(cached(&b), (2, 4 << 20));
            b.dealloc(h, held);
            assert_eq!(b.live.load(Ordering::Relaxed), 0);
        }
    }

    #[test]
    fn realloc_keeps_the_contents_across_both_sides() {
        let b = Blocks::new();
        // SAFETY: each block is reallocated or freed once, with its current layout.
        unsafe {
            let mut size = 1000;
            let mut p = b.alloc(layout(size));
            fill(p, size, 9);
            for next in [LARGE - 8, LARGE, 5 << 20, LARGE + 3, 64, 2 << 20, 100] {
                let q = b.realloc(p, layout(size), next);
                assert!(!q.is_null());
                assert!(holds(q, size.min(next), size, 9), "{size} -> {next}");
                fill(q, next, 9);
                (p, size) = (q, next);
            }
            b.dealloc(p, layout(size));
            // Over-aligned blocks are the system's whatever their size.
            let wide = Layout::from_size_align(2 << 20, 2 * PAGE).unwrap();
            let w = b.alloc(wide);
            assert_eq!(w as usize % (2 * PAGE), 0);
            b.dealloc(w, wide);
            assert_eq!(cached(&b).1 % PAGE, 0);
        }
    }

    #[test]
    fn threads_share_the_cache_without_sharing_blocks() {
        let b = std::sync::Arc::new(Blocks::new());
        let workers: Vec<_> = (0..4u8)
            .map(|t| {
                let b = b.clone();
                std::thread::spawn(move || {
                    for round in 0..200usize {
                        let size = LARGE + (round * 7919 + t as usize * 104_729) % (3 << 20);
                        let l = layout(size);
                        // SAFETY: the block is this thread's until it frees it.
                        unsafe {
                            let p = b.alloc(l);
                            fill(p, size, t);
                            std::thread::yield_now();
                            assert!(holds(p, size, size, t));
                            b.dealloc(p, l);
                        }
                    }
                })
            })
            .collect();
        for w in workers {
            w.join().unwrap();
        }
    }

    #[derive(Clone, Debug)]
    enum Op {
        Alloc(usize, bool),
        Free(usize),
        Realloc(usize, usize),
    }

    fn sizes() -> impl Strategy<Value = usize> {
        prop_oneof![
            1usize..4096,
            (LARGE - 64)..(LARGE + 64),
            LARGE..(6 << 20),
            (CACHE_BYTES - PAGE)..(CACHE_BYTES + 2 * PAGE),
        ]
    }

    fn ops() -> impl Strategy<Value = Vec<Op>> {
        proptest::collection::vec(
            prop_oneof![
                (sizes(), any::<bool>()).prop_map(|(s, z)| Op::Alloc(s, z)),
                any::<usize>().prop_map(Op::Free),
                (any::<usize>(), sizes()).prop_map(|(k, s)| Op::Realloc(k, s)),
            ],
            1..60,
        )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        /// Any sequence of allocations, frees and reallocations: every live block keeps what was
        /// written to it, zeroed blocks start zeroed, and blocks never overlap.
        #[test]
        fn blocks_keep_their_contents(ops in ops(), ballast in any::<bool>()) {
            let b = Blocks::new();
            let ballast = ballast.then(|| Ballast::new(&b));
            let mut live: Vec<(*mut u8, usize, u8)> = Vec::new();
            for (n, op) in ops.into_iter().enumerate() {
                let seed = n as u8;
                // SAFETY: `live` holds each block once, with the size it was made with.
                unsafe {
                    match op {
                        Op::Alloc(size, zeroed) => {
                            let p = if zeroed { b.alloc_zeroed(layout(size)) } else { b.alloc(layout(size)) };
                            prop_assert!(!p.is_null());
                            if zeroed {
                                prop_assert!((0..size).step_by(61).all(|i| *p.add(i) == 0));
                            }
                            fill(p, size, seed);
                            live.push((p, size, seed));
                        }
                        Op::Free(k) if !live.is_empty() => {
                            let (p, size, s) = live.swap_remove(k % live.len());
                            prop_assert!(holds(p, size, size, s));
                            b.dealloc(p, layout(size));
                        }
                        Op::Realloc(k, new) if !live.is_empty() => {
                            let k = k % live.len();
                            let (p, size, s) = live[k];
                            let q = b.realloc(p, layout(size), new);
                            prop_assert!(!q.is_null());
                            prop_assert!(holds(q, size.min(new), size, s));
                            fill(q, new, seed);
                            live[k] = (q, new, seed);
                        }
                        _ => {}
                    }
                }
                let mut spans: Vec<(usize, usize)> = live.iter().map(|&(p, s, _)| (p as usize, s)).collect();
                spans.sort_unstable();
                prop_assert!(spans.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0), "overlap");
                for &(p, size, s) in &live {
                    prop_assert!(holds(p, size, size, s));
                }
            }
            for (p, size, _) in live {
                // SAFETY: each block once, with its size.
                unsafe { b.dealloc(p, layout(size)) };
            }
            drop(ballast);
            prop_assert_eq!(b.live.load(Ordering::Relaxed), 0);
        }
    }
}
