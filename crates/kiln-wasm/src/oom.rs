//! Out of memory on wasm32: a JS `Error`, not a trap.
//!
//! The standard library answers a failed allocation by aborting, which on
//! `wasm32-unknown-unknown` is an `unreachable` trap with no message. A model too large for
//! the module's 4 GiB address space would end that way. This allocator wraps the default one
//! and, when it fails, throws a JS exception instead, as the panic hook does: `out of memory:
//! N bytes wanted, M in use; this kiln instance must be loaded again`. The frames it leaves are
//! not unwound, so the instance is done, as after a panic (the page's worker restarts).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The default allocator, counting the bytes held, with a failure thrown to JavaScript.
pub struct ThrowingAlloc {
    held: AtomicUsize,
}

#[global_allocator]
static ALLOC: ThrowingAlloc = ThrowingAlloc {
    held: AtomicUsize::new(0),
};

impl ThrowingAlloc {
    /// `p` or, when it is null, the exception: never returns then.
    fn checked(&self, p: *mut u8, wanted: usize) -> *mut u8 {
        if p.is_null() {
            out_of_memory(wanted, self.held.load(Ordering::Relaxed));
        }
        p
    }
}

// SAFETY: every method forwards to `System` with the caller's own arguments and returns its
// result unchanged (or does not return at all), so `System`'s guarantees are the caller's; the
// counter is bookkeeping only.
unsafe impl GlobalAlloc for ThrowingAlloc {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's layout, as `GlobalAlloc::alloc` requires of it.
        let p = self.checked(unsafe { System.alloc(layout) }, layout.size());
        self.held.fetch_add(layout.size(), Ordering::Relaxed);
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = self.checked(unsafe { System.alloc_zeroed(layout) }, layout.size());
        self.held.fetch_add(layout.size(), Ordering::Relaxed);
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        self.held.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: `ptr` came from this allocator (so from `System`) with `layout`.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: `ptr` came from `System` with `layout`; `new_size` is the caller's.
        let p = self.checked(unsafe { System.realloc(ptr, layout, new_size) }, new_size);
        self.held.fetch_sub(layout.size(), Ordering::Relaxed);
        self.held.fetch_add(new_size, Ordering::Relaxed);
        p
    }
}

/// Throws the out-of-memory error. Formats into a buffer on the stack: the heap is what failed.
fn out_of_memory(wanted: usize, held: usize) -> ! {
    struct Buf {
        bytes: [u8; 160],
        len: usize,
    }
    impl core::fmt::Write for Buf {
        fn write_str(&mut self, s: &str) -> core::fmt::Result {
            let n = s.len().min(self.bytes.len() - self.len);
            self.bytes[self.len..self.len + n].copy_from_slice(&s.as_bytes()[..n]);
            self.len += n;
            Ok(())
        }
    }
    let mut buf = Buf {
        bytes: [0; 160],
        len: 0,
    };
    let _ = core::fmt::write(
        &mut buf,
        format_args!(
            "out of memory: {wanted} bytes wanted, {held} in use (WebAssembly has 4 GiB); \
             this kiln instance must be loaded again"
        ),
    );
    // The message is ASCII, so any cut is on a character boundary.
    let text = core::str::from_utf8(&buf.bytes[..buf.len]).unwrap_or("out of memory");
    wasm_bindgen::throw_str(text)
}
