//! Fork-join helpers: rayon's work-stealing pool with the `parallel` feature (the default),
//! plain sequential calls without it (wasm32, embedders that bring their own threads). Results
//! are the same either way: every parallel step writes its own output, and anything ordered
//! (warnings, mesh and bone order) is assembled sequentially afterwards.

/// Runs `a` and `b`, in parallel when the feature is on.
pub fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    #[cfg(feature = "parallel")]
    {
        rayon::join(a, b)
    }
    #[cfg(not(feature = "parallel"))]
    {
        (a(), b())
    }
}

/// `items.iter().map(f).collect()`, in parallel when the feature is on; order is kept.
pub fn map<T: Sync, O: Send>(items: &[T], f: impl Fn(&T) -> O + Sync + Send) -> Vec<O> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        items.par_iter().map(f).collect()
    }
    #[cfg(not(feature = "parallel"))]
    {
        items.iter().map(f).collect()
    }
}

/// Runs `f` on one of the pool's threads (the caller waits), so that the fork-join steps
/// inside start from a worker: a worker's `join` pushes onto its own deque, where a call from
/// outside the pool has to inject the job and sleep until it is done, once per step.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    #[cfg(feature = "parallel")]
    {
        rayon::scope(|_| f())
    }
    #[cfg(not(feature = "parallel"))]
    {
        f()
    }
}

/// Runs `body` on this thread while the pool's other threads run `helper` (each returns when
/// there is nothing left to help with); returns when all are done. Without the feature, or
/// with a pool of one thread, only `body` runs.
pub fn with_helpers<R>(helper: impl Fn() + Sync, body: impl FnOnce() -> R) -> R {
    #[cfg(feature = "parallel")]
    {
        let helper = &helper;
        rayon::in_place_scope(|s| {
            for _ in 1..rayon::current_num_threads() {
                s.spawn(move |_| helper());
            }
            body()
        })
    }
    #[cfg(not(feature = "parallel"))]
    {
        let _ = helper;
        body()
    }
}
