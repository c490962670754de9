//! The conversion as the `kiln` command runs it: import a file, post-process it the way the
//! original tool asked Assimp to, extract the engine data and write the output files.
//!
//! Every output is built in memory first and then written under a temporary name and renamed,
//! so a failure never leaves a half-written file behind.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use kiln_anim::extract::{Extracted, extract, texture_file_name};
use kiln_scene::{Scene, TextureRef};

/// Which byte layout the `.mesh`/`.clip` files use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// The zero-copy kiln layout (`docs/format.md`).
    #[default]
    Kiln,
    /// Byte-compatible with the original tool.
    Classic,
}

/// Options of [`convert_file`].
#[derive(Clone, Debug, Default)]
pub struct ConvertOptions {
    pub layout: Layout,
    /// Compact vertex streams in the kiln layout (ignored by the classic layout).
    pub quantize: kiln_format::kiln::Quantize,
    /// Bake node transforms into the vertices (Assimp's PreTransformVertices), for static
    /// meshes; bones collapse to the root.
    pub pre_transform: bool,
    /// Resample every clip at this many frames per second instead of the animation's own
    /// ticks per second.
    pub clip_frame_rate: Option<f64>,
}

/// A failure, naming the file it concerns.
#[derive(Debug)]
pub struct ConvertError {
    pub path: PathBuf,
    pub message: String,
}

impl fmt::Display for ConvertError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.message)
    }
}

impl std::error::Error for ConvertError {}

pub(crate) fn err(path: &Path, message: impl fmt::Display) -> ConvertError {
    ConvertError {
        path: path.to_path_buf(),
        message: message.to_string(),
    }
}

/// The output name of a source file: its stem, or `model` when it has none.
pub(crate) fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "model".into())
}

/// The input formats kiln reads, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    Obj,
    /// FBX, binary or ASCII (`kiln-fbx-scene`).
    Fbx,
}

impl InputFormat {
    /// The format of `path`, from its extension (case-insensitive).
    pub fn of(path: &Path) -> Option<InputFormat> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "obj" => Some(InputFormat::Obj),
            "fbx" => Some(InputFormat::Fbx),
            _ => None,
        }
    }
}

/// Reads a model file into a scene, as authored (right-handed, polygons).
pub fn import_file(path: &Path) -> Result<Scene, ConvertError> {
    let meta = fs::metadata(path).map_err(|e| err(path, io_reason(&e)))?;
    if meta.is_dir() {
        return Err(err(path, "is a directory, not a model file"));
    }
    match InputFormat::of(path) {
        Some(InputFormat::Obj) => kiln_obj::load(path).map_err(|e| err(path, e.reason())),
        Some(InputFormat::Fbx) => {
            let bytes = fs::read(path).map_err(|e| err(path, io_reason(&e)))?;
            kiln_fbx_scene::import(&bytes).map_err(|e| err(path, e))
        }
        None => Err(err(path, "unsupported file type (expected .obj or .fbx)")),
    }
}

fn io_reason(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "no such file".into(),
        std::io::ErrorKind::PermissionDenied => "permission denied".into(),
        _ => e.to_string(),
    }
}

/// Runs the original tool's Assimp steps on `scene`: ConvertToLeftHanded, Triangulate,
/// GenUVCoords, GenNormals, CalcTangentSpace, and PreTransformVertices when asked.
pub fn process_for_engine(
    scene: &mut Scene,
    options: &ConvertOptions,
) -> Result<(), kiln_process::ProcessError> {
    let steps = if options.pre_transform {
        kiln_process::Steps::ORIGINAL_TOOL_STATIC
    } else {
        kiln_process::Steps::ORIGINAL_TOOL
    };
    kiln_process::process(scene, steps)
}

/// One output file, in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputFile {
    /// File name inside the output folder.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// What converting one model produced.
#[derive(Debug)]
pub struct Conversion {
    pub extracted: Extracted,
    pub outputs: Vec<OutputFile>,
    /// Warnings of the importer, the processing and the extraction, for the user.
    pub warnings: Vec<String>,
    /// Outputs that could not be encoded (left out of `outputs`); the file fails.
    pub errors: Vec<String>,
    /// One clip per animation (also encoded in `outputs` as `NAME_CLIPNAME.clip`).
    pub clips: Vec<kiln_format::Clip>,
}

/// Builds every output of a processed scene: `NAME.mesh`, `NAME.xml`, one `NAME_CLIPNAME.clip`
/// per animation, and the textures the materials use (read from `source_dir`, or extracted when
/// embedded).
pub fn build_outputs(
    scene: &Scene,
    name: &str,
    source_dir: &Path,
    options: &ConvertOptions,
) -> Conversion {
    let extracted = extract(scene);
    let mut warnings = scene.warnings.clone();
    warnings.extend(extracted.warnings.iter().cloned());
    let mut outputs = Vec::new();
    let mut errors = Vec::new();
    let materials: Vec<_> = extracted.materials.iter().map(|m| m.data.clone()).collect();
    let offsets = crate::animation::offsets_or_identity(&extracted.offsets);
    let mesh = match options.layout {
        Layout::Classic => Ok(kiln_format::classic::write_mesh(&extracted.model)),
        Layout::Kiln => kiln_format::kiln::write_mesh(
            &extracted.model,
            &materials,
            &kiln_format::kiln::MeshOptions {
                quantize: options.quantize,
                offset_matrices: Some(&offsets),
            },
        ),
    };
    match mesh {
        Ok(bytes) => outputs.push(OutputFile {
            name: format!("{name}.mesh"),
            bytes,
        }),
        Err(e) => errors.push(format!("cannot encode {name}.mesh: {e}")),
    }
    outputs.push(OutputFile {
        name: format!("{name}.xml"),
        bytes: kiln_format::xml::write_materials(&materials).into_bytes(),
    });
    let clips = crate::animation::clip_outputs(scene, &extracted, name, options);
    warnings.extend(clips.warnings);
    errors.extend(clips.errors);
    outputs.extend(clips.files);
    for m in &extracted.materials {
        for tex in [&m.diffuse, &m.specular, &m.normal].into_iter().flatten() {
            let file = texture_file_name(&tex.path).to_string();
            if file.is_empty() || outputs.iter().any(|o| o.name == file) {
                continue;
            }
            match texture_bytes(scene, tex, source_dir) {
                Ok(bytes) => outputs.push(OutputFile { name: file, bytes }),
                Err(why) => warnings.push(why),
            }
        }
    }
    Conversion {
        extracted,
        outputs,
        warnings,
        errors,
        clips: clips.clips,
    }
}

/// The bytes of a texture: embedded, or the file found at its path relative to the model's
/// folder (with `\` read as a separator), or failing that the file name in the model's folder.
pub fn texture_bytes(
    scene: &Scene,
    tex: &TextureRef,
    source_dir: &Path,
) -> Result<Vec<u8>, String> {
    if let Some(i) = tex.embedded {
        return scene
            .textures
            .get(i)
            .map(|t| t.data.clone())
            .ok_or_else(|| format!("texture '{}': embedded texture {i} is missing", tex.path));
    }
    let written = tex.path.replace('\\', "/");
    let mut candidates = vec![source_dir.join(&written)];
    let bare = texture_file_name(&tex.path);
    if bare != written {
        candidates.push(source_dir.join(bare));
    }
    for c in &candidates {
        if let Ok(bytes) = fs::read(c) {
            return Ok(bytes);
        }
    }
    Err(format!(
        "texture '{}' not found (looked for {})",
        tex.path,
        candidates
            .iter()
            .map(|c| c.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = fs::File::create(&tmp)?;
        f.write_all(bytes)?;
        f.sync_all()?;
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Counts for the one-line summary of a converted file.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    pub bones: usize,
    pub parts: usize,
    pub vertices: usize,
    pub triangles: usize,
    pub materials: usize,
    /// `.clip` files written (one per animation that gave a clip).
    pub clips: usize,
    pub milliseconds: f64,
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} bones, {} mesh parts, {} vertices, {} triangles, {} materials, {} clips, {:.1} ms",
            self.bones,
            self.parts,
            self.vertices,
            self.triangles,
            self.materials,
            self.clips,
            self.milliseconds
        )
    }
}

/// Result of [`convert_file`].
#[derive(Debug)]
pub struct Converted {
    pub summary: Summary,
    /// Paths written.
    pub written: Vec<PathBuf>,
    pub warnings: Vec<String>,
}

/// Converts one model file into `out_dir` (created when missing): import, process, extract,
/// write `NAME.mesh`, `NAME.xml` and textures ([`prepare_file`], then [`Prepared::write`]).
pub fn convert_file(
    path: &Path,
    out_dir: &Path,
    options: &ConvertOptions,
) -> Result<Converted, ConvertError> {
    prepare_file(path, options)?.write(out_dir)
}

/// A model file converted in memory, not written yet: its warnings can be looked at first
/// (`kiln convert --strict` writes nothing, and so replaces nothing, when there are any).
pub struct Prepared {
    start: Instant,
    conversion: Conversion,
}

/// Imports, processes and extracts one model file and encodes its outputs, writing nothing.
pub fn prepare_file(path: &Path, options: &ConvertOptions) -> Result<Prepared, ConvertError> {
    let start = Instant::now();
    let mut scene = import_file(path)?;
    process_for_engine(&mut scene, options).map_err(|e| err(path, e))?;
    let name = stem(path);
    let source_dir = path.parent().unwrap_or(Path::new("."));
    let mut conversion = build_outputs(&scene, &name, source_dir, options);
    if let Some(e) = conversion.errors.first() {
        return Err(err(path, e));
    }
    if conversion.extracted.model.meshes.is_empty() {
        // As the original tool (with its faults fixed): the skeleton is still written.
        conversion
            .warnings
            .push("no triangles: the .mesh holds the skeleton only".into());
    }
    Ok(Prepared { start, conversion })
}

impl Prepared {
    /// The importer's, the processing's and the extraction's warnings.
    pub fn warnings(&self) -> &[String] {
        &self.conversion.warnings
    }

    /// Writes the outputs into `out_dir` (created when missing), each through a temporary
    /// name and a rename.
    pub fn write(self, out_dir: &Path) -> Result<Converted, ConvertError> {
        let Prepared { start, conversion } = self;
        fs::create_dir_all(out_dir)
            .map_err(|e| err(out_dir, format!("cannot create folder: {e}")))?;
        let mut written = Vec::new();
        for o in &conversion.outputs {
            let target = out_dir.join(&o.name);
            write_atomically(&target, &o.bytes)
                .map_err(|e| err(&target, format!("cannot write: {e}")))?;
            written.push(target);
        }
        let model = &conversion.extracted.model;
        let summary = Summary {
            bones: model.bones.len(),
            parts: model.meshes.len(),
            vertices: model.meshes.iter().map(|m| m.vertices.len()).sum(),
            triangles: model.meshes.iter().map(|m| m.indices.len() / 3).sum(),
            materials: conversion.extracted.materials.len(),
            clips: conversion.clips.len(),
            milliseconds: start.elapsed().as_secs_f64() * 1e3,
        };
        Ok(Converted {
            summary,
            written,
            warnings: conversion.warnings,
        })
    }
}
