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
/// A `.mesh` has no manifest beside it (`NAME.kiln.json`): its clips are unknown and none was
/// loaded.
pub const NO_MANIFEST: &str = "load.no-manifest";
/// `--static` was given and the model has animations: their clips were not written.
pub const CLIPS_DROPPED_STATIC: &str = "pipeline.clips-dropped-static";
/// `--clips` named an animation the model does not have.
pub const CLIP_NOT_FOUND: &str = "pipeline.clip-not-found";
/// Two textures of a conversion would have the same output name with different bytes: the
/// later one was written under a name with its content hash.
pub const TEXTURE_RENAMED: &str = "pipeline.texture-renamed";
/// An output an earlier conversion wrote was changed since; it was kept, not deleted.
pub const STALE_OUTPUT_KEPT: &str = "pipeline.stale-output-kept";
/// `--units` was given and the file declares no unit (OBJ): its lengths were taken as that
/// unit already.
pub const UNITS_UNKNOWN: &str = "pipeline.units-unknown";
/// `--up`/`--forward` was given and the file declares no axes (OBJ): Y up, Z front assumed.
pub const AXES_UNKNOWN: &str = "pipeline.axes-unknown";
/// The classic layout left out helper bones (a node that needs two offset matrices): their
/// vertices were bound to the nodes' own bones (`docs/animation.md`).
pub const CLASSIC_HELPER_BONES: &str = "pipeline.classic-helper-bones";
/// The classic layout left out morph targets (blend shapes) and their weight tracks: the
/// classic files have no place for them (`--layout kiln` writes them).
pub const CLASSIC_MORPH_DROPPED: &str = "pipeline.classic-morph-dropped";
/// A classic `.mesh` stores no offset matrices: they were assumed (`docs/animation.md`).
pub const CLASSIC_OFFSETS_ASSUMED: &str = "load.classic-offsets-assumed";

/// A binding repair of the runtime as a [`Warning`], with its code.
pub fn bind_warning(w: &BindWarning) -> Warning {
    Warning::new(w.code(), w.to_string())
}
