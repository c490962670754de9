//! kiln-obj (work in progress)
