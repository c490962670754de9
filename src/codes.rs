//! The [`Warning::code`](kiln_scene::Warning::code)s the facade gives itself, and the
//! conversion of the runtime's typed [`BindWarning`]s into [`Warning`]s.
//!
//! Codes are stable: a code keeps its meaning once released (the message may be reworded).
//! `docs/warnings.md` lists every code of every crate.

use kiln_anim::BindWarning;
use kiln_scene::Warning;

/// An animation could not give a clip (NaN keys, a bad tick rate, too long): it was left out.
pub const CLIP_LEFT_OUT: &str = "pipeline.clip-left-out";
/// A texture a material uses could not be found or read: it was not copied.
pub const TEXTURE_MISSING: &str = "pipeline.texture-missing";
/// The model has no triangle: the `.mesh` holds the skeleton only.
pub const SKELETON_ONLY: &str = "pipeline.skeleton-only";
/// A classic `.mesh` stores no offset matrices: they were assumed (`docs/animation.md`).
pub const CLASSIC_OFFSETS_ASSUMED: &str = "load.classic-offsets-assumed";

/// A binding repair of the runtime as a [`Warning`], with its code.
pub fn bind_warning(w: &BindWarning) -> Warning {
    Warning::new(w.code(), w.to_string())
}
