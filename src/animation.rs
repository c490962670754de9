//! The animation half of the pipeline: the `.clip` outputs of `kiln convert`, the bone-matrix
//! bake of `kiln bake`, and the model `kiln dump --csv` prints.
//!
//! A model comes either from a source file (imported, processed as the original tool asked
//! Assimp to, extracted and resampled in memory, with Assimp's skin offsets) or from a `.mesh`
//! that `kiln convert` wrote, in either layout, with its clips `NAME_*.clip` beside it. The
//! kiln layout stores the offsets; the classic one cannot, and the offsets are then those
//! [`kiln_anim::classic_offsets`] assumes (`docs/animation.md`).

use std::fs;
use std::path::{Path, PathBuf};

use kiln_anim::bake::{Bake, BakeOptions, bake};
use kiln_anim::clip::{ClipOptions, clip_file_names, extract_clips};
use kiln_anim::extract::Extracted;
use kiln_anim::sample::AnimationClip;
use kiln_anim::skeleton::{Skeleton, classic_offsets};
use kiln_format::{Clip, IDENTITY, Matrix, Model};
use kiln_scene::Scene;

use crate::pipeline::{ConvertError, ConvertOptions, Layout, OutputFile, err, stem};

/// The clips of a processed scene, encoded: `NAME_CLIPNAME.clip` files (see
/// [`clip_file_names`]) in the layout `options` asks for.
#[derive(Debug, Default)]
pub struct ClipOutputs {
    pub clips: Vec<Clip>,
    pub files: Vec<OutputFile>,
    /// Repairs made while extracting, and animations left out (with the reason).
    pub warnings: Vec<String>,
    /// Clips that could not be encoded.
    pub errors: Vec<String>,
}

/// Extracts and resamples one clip per animation of `scene`, each with the file name it is
/// written under ([`clip_file_names`]). An animation that cannot give a clip (NaN keys, a
/// negative tick rate, too long) is left out with a warning, which `--strict` turns into a
/// failure of the file.
pub fn extract_clip_list(
    scene: &Scene,
    extracted: &Extracted,
    name: &str,
    options: &ConvertOptions,
) -> (Vec<(String, Clip)>, Vec<String>) {
    let clip_options = ClipOptions {
        frame_rate: options.clip_frame_rate,
        ..ClipOptions::default()
    };
    // Names by animation index, so a file's name does not depend on whether an earlier
    // animation failed.
    let names: Vec<&str> = scene.animations.iter().map(|a| a.name.as_str()).collect();
    let files = clip_file_names(name, &names);
    let mut clips = Vec::new();
    let mut warnings = Vec::new();
    for (result, file) in extract_clips(scene, extracted, &clip_options)
        .into_iter()
        .zip(files)
    {
        match result {
            Ok(c) => {
                warnings.extend(c.warnings);
                clips.push((file, c.clip));
            }
            Err(e) => warnings.push(format!("{e}; no .clip written for it")),
        }
    }
    (clips, warnings)
}

/// [`extract_clip_list`], each clip encoded in the layout `options` asks for.
pub fn clip_outputs(
    scene: &Scene,
    extracted: &Extracted,
    name: &str,
    options: &ConvertOptions,
) -> ClipOutputs {
    let (list, warnings) = extract_clip_list(scene, extracted, name, options);
    let mut out = ClipOutputs {
        warnings,
        ..ClipOutputs::default()
    };
    for (file, clip) in list {
        let bytes = match options.layout {
            Layout::Classic => Ok(kiln_format::classic::write_clip(&clip)),
            Layout::Kiln => kiln_format::kiln::write_clip(&clip).map_err(|e| e.to_string()),
        };
        match bytes {
            Ok(bytes) => out.files.push(OutputFile { name: file, bytes }),
            Err(e) => out.errors.push(format!("cannot encode {file}: {e}")),
        }
        out.clips.push(clip);
    }
    out
}

/// One offset per bone for writers that store a matrix for every bone: a bone no skin uses
/// gets the identity, so `offset × model` is its model matrix.
pub fn offsets_or_identity(offsets: &[Option<Matrix>]) -> Vec<Matrix> {
    offsets.iter().map(|o| o.unwrap_or(IDENTITY)).collect()
}

/// A skeleton with its offsets and clips, ready to bake or to dump.
#[derive(Clone, Debug)]
pub struct AnimatedModel {
    /// File stem of the source (`NAME` of `NAME.dds`).
    pub name: String,
    pub model: Model,
    /// One per bone; see [`Extracted::offsets`].
    pub offsets: Vec<Option<Matrix>>,
    pub clips: Vec<Clip>,
    pub warnings: Vec<String>,
}

/// Loads `path`: a `.mesh` written by `kiln convert` (kiln or classic layout, with the clips
/// `NAME_*.clip` found beside it, in file-name order), or any model file `kiln convert` reads
/// (imported and processed as it does, its animations resampled at `clip_frame_rate` or their
/// own rate).
pub fn load_animated(
    path: &Path,
    clip_frame_rate: Option<f64>,
) -> Result<AnimatedModel, ConvertError> {
    let is_mesh = path
        .extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mesh"));
    if is_mesh {
        return load_mesh_file(path);
    }
    let mut scene = crate::pipeline::import_file(path)?;
    let options = ConvertOptions {
        clip_frame_rate,
        ..ConvertOptions::default()
    };
    crate::pipeline::process_for_engine(&mut scene, &options).map_err(|e| err(path, e))?;
    let extracted = kiln_anim::extract::extract(&scene);
    let name = stem(path);
    // The clips are only sampled and baked here: extracted, not encoded.
    let (clips, clip_warnings) = extract_clip_list(&scene, &extracted, &name, &options);
    let mut warnings = scene.warnings.clone();
    warnings.extend(extracted.warnings.iter().cloned());
    warnings.extend(clip_warnings);
    Ok(AnimatedModel {
        name,
        model: extracted.model,
        offsets: extracted.offsets,
        clips: clips.into_iter().map(|(_, clip)| clip).collect(),
        warnings,
    })
}

fn load_mesh_file(path: &Path) -> Result<AnimatedModel, ConvertError> {
    let bytes = fs::read(path).map_err(|e| err(path, format!("cannot read: {e}")))?;
    let mut warnings = Vec::new();
    let (model, offsets) = match kiln_format::kiln::FileType::of(&bytes) {
        Some(kiln_format::kiln::FileType::Mesh) => {
            let view = kiln_format::kiln::MeshView::parse(&bytes).map_err(|e| err(path, e))?;
            let model = view.to_model();
            let offsets = view
                .offset_matrices()
                .into_iter()
                .map(|o| (o != IDENTITY).then_some(o))
                .collect();
            (model, offsets)
        }
        Some(kiln_format::kiln::FileType::Clip) => {
            return Err(err(path, "is a .clip file; give the .mesh it animates"));
        }
        None => {
            let model = kiln_format::classic::read_mesh(&bytes).map_err(|e| err(path, e))?;
            let assumed = classic_offsets(&model);
            warnings.push(
                "classic .mesh: no offset matrices stored; each skin is assumed bound in the pose the file stores, in the space of its part's node (docs/animation.md)".to_string(),
            );
            warnings.extend(assumed.warnings);
            (model, assumed.offsets)
        }
    };
    let name = stem(path);
    let mut clips = Vec::new();
    for file in clip_files(path, &name) {
        let bytes = fs::read(&file).map_err(|e| err(&file, format!("cannot read: {e}")))?;
        let clip = match kiln_format::kiln::FileType::of(&bytes) {
            Some(kiln_format::kiln::FileType::Clip) => kiln_format::kiln::ClipView::parse(&bytes)
                .map_err(|e| err(&file, e))?
                .to_clip(),
            Some(kiln_format::kiln::FileType::Mesh) => continue,
            None => kiln_format::classic::read_clip(&bytes).map_err(|e| err(&file, e))?,
        };
        clips.push(clip);
    }
    Ok(AnimatedModel {
        name,
        model,
        offsets,
        clips,
        warnings,
    })
}

/// The files `NAME_*.clip` in the folder of `mesh`, sorted by name.
fn clip_files(mesh: &Path, name: &str) -> Vec<PathBuf> {
    let dir = mesh
        .parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let prefix = format!("{name}_");
    let mut files: Vec<PathBuf> = fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            let n = p.file_name().and_then(|n| n.to_str()).unwrap_or("");
            n.starts_with(&prefix)
                && p.extension()
                    .and_then(|e| e.to_str())
                    .is_some_and(|e| e.eq_ignore_ascii_case("clip"))
        })
        .collect();
    files.sort();
    files
}

/// Builds the skeleton, binds every clip and bakes them. Binding repairs come back as
/// warnings; every failure names what is wrong.
pub fn bake_model(
    model: &AnimatedModel,
    options: &BakeOptions,
) -> Result<(Bake, Vec<String>), String> {
    let skeleton = Skeleton::new(&model.model.bones, &model.offsets).map_err(|e| e.to_string())?;
    let mut warnings = Vec::new();
    let mut bound = Vec::with_capacity(model.clips.len());
    for clip in &model.clips {
        let (c, w) = AnimationClip::bind(&skeleton, clip).map_err(|e| e.to_string())?;
        warnings.extend(w);
        bound.push(c);
    }
    let baked = bake(&skeleton, &bound, options).map_err(|e| e.to_string())?;
    Ok((baked, warnings))
}
