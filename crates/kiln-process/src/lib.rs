//! kiln-process (work in progress)
