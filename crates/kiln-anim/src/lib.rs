//! kiln-anim (work in progress)
