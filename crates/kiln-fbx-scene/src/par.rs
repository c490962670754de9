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
