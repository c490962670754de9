//! kiln-format (work in progress)
