//! A counting allocator for the tests that bound or forbid allocation. A test binary installs
//! it itself (a library cannot choose the program's allocator):
//!
//! ```
//! #[global_allocator]
//! static GLOBAL: kiln_testkit::alloc::Counting = kiln_testkit::alloc::Counting;
//!
//! # fn main() {
//! let (v, allocated) = kiln_testkit::alloc::measure(|| vec![0u8; 100]);
//! assert_eq!((v.len(), allocated.bytes, allocated.calls), (100, 100, 1));
//! # }
//! ```
//!
//! then wraps the code under test in [`measure`]. Keep such a binary to one test function, so
//! that no other test allocates while [`measure`] runs (the counters are process-wide).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// The system allocator, counting what is requested while [`measure`] runs (there is one set
/// of counters, whichever static holds the allocator).
pub struct Counting;

static ACTIVE: AtomicBool = AtomicBool::new(false);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static LARGEST: AtomicUsize = AtomicUsize::new(0);
static CALLS: AtomicUsize = AtomicUsize::new(0);

fn count(size: usize) {
    if ACTIVE.load(Ordering::Relaxed) {
        TOTAL.fetch_add(size, Ordering::Relaxed);
        LARGEST.fetch_max(size, Ordering::Relaxed);
        CALLS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: every call is passed on to `System` unchanged, which upholds `GlobalAlloc`'s
// contract; counting only touches atomics, which neither allocate nor unwind.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

/// What was allocated while [`measure`]'s closure ran.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Allocated {
    /// Bytes requested in total (reallocations count their new size).
    pub bytes: usize,
    /// The largest single request.
    pub largest: usize,
    /// Number of allocations and reallocations.
    pub calls: usize,
}

/// Runs `f` and reports what it allocated.
pub fn measure<R>(f: impl FnOnce() -> R) -> (R, Allocated) {
    TOTAL.store(0, Ordering::SeqCst);
    LARGEST.store(0, Ordering::SeqCst);
    CALLS.store(0, Ordering::SeqCst);
    ACTIVE.store(true, Ordering::SeqCst);
    let r = f();
    ACTIVE.store(false, Ordering::SeqCst);
    let allocated = Allocated {
        bytes: TOTAL.load(Ordering::SeqCst),
        largest: LARGEST.load(Ordering::SeqCst),
        calls: CALLS.load(Ordering::SeqCst),
    };
    (r, allocated)
}
