//! The one loader: a model file (OBJ, FBX) or a `.mesh` kiln wrote, read once into everything
//! any command needs — the engine [`Model`], its skin offsets, its clips, its materials and a
//! way to their textures' bytes, and the warnings, in order.
//!
//! A model file is imported, processed as the original tool asked Assimp to
//! ([`process_for_engine`]), extracted ([`kiln_extract::extract`]) and its animations resampled
//! ([`kiln_extract::extract_clips`]), all in memory. A `.mesh` is read in either layout with the
//! clips its manifest lists (`NAME.kiln.json` beside it, in the model's animation order), or the
//! ones the caller names ([`load_with_clip_files`]), never by matching file names; the kiln layout stores the skin offsets, the
//! classic one cannot, and they are then those [`kiln_anim::classic_offsets`] assumes
//! (`docs/animation.md`), with a warning. Nothing here writes a file.

use std::fs;
use std::path::{Path, PathBuf};

use kiln_extract::{
    ClipOptions, clip_file_names, extract_clips, extract_pending, extract_taking_meshes,
    texture_file_name,
};
use kiln_format::kiln::{ClipView, FileType, MeshView};
use kiln_format::{Clip, IDENTITY, MaterialData, Matrix, Model};
use kiln_scene::{EmbeddedTexture, Scene, TextureRef, Warning};

pub use kiln_obj::{FileSystem, Files};

/// [`Files`] over a function that gives a file's bytes by name, for callers that hold the
/// files themselves instead of a folder: the C API's loader callback, the JavaScript package's
/// resources ([`crate::convert_memory`]). The name is the path as the model names it relative
/// to its folder, `/`-separated (a `\` is read as `/`), without a leading `./`.
///
/// `is_file` (an OBJ's texture candidates) asks the function and keeps the bytes it gives, so
/// the `read` that follows for the same file takes them instead of asking again.
pub struct FilesFrom<F> {
    get: F,
    kept: std::collections::HashMap<String, Vec<u8>>,
}

impl<F: FnMut(&str) -> Option<Vec<u8>>> FilesFrom<F> {
    /// Files given by `get`.
    pub fn new(get: F) -> FilesFrom<F> {
        FilesFrom {
            get,
            kept: std::collections::HashMap::new(),
        }
    }

    fn name(path: &Path) -> String {
        let name = path.to_string_lossy().replace('\\', "/");
        match name.strip_prefix("./") {
            Some(rest) => rest.to_string(),
            None => name,
        }
    }
}

impl<F: FnMut(&str) -> Option<Vec<u8>>> Files for FilesFrom<F> {
    fn read(&mut self, path: &Path) -> std::io::Result<Vec<u8>> {
        let name = Self::name(path);
        match self.kept.remove(&name) {
            Some(bytes) => Ok(bytes),
            None => (self.get)(&name).ok_or_else(|| std::io::ErrorKind::NotFound.into()),
        }
    }

    fn is_file(&mut self, path: &Path) -> bool {
        let name = Self::name(path);
        if self.kept.contains_key(&name) {
            return true;
        }
        match (self.get)(&name) {
            Some(bytes) => {
                self.kept.insert(name, bytes);
                true
            }
            None => false,
        }
    }
}

use crate::codes;
use crate::error::{Error, Result, at};

/// The input formats kiln reads, by file extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InputFormat {
    /// Wavefront OBJ with its `.mtl` (`kiln-obj`).
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

/// What a file is, by its bytes (the kiln layout's magic) and then its name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FileKind {
    /// A kiln-layout `.mesh` (`docs/format.md`), whatever its name.
    KilnMesh,
    /// A kiln-layout `.clip`, whatever its name.
    KilnClip,
    /// Named `.mesh` without the kiln magic: the original tool's layout.
    ClassicMesh,
    /// Named `.clip` without the kiln magic: the original tool's layout.
    ClassicClip,
    /// A model file kiln imports.
    Model(InputFormat),
    /// None of these.
    Unknown,
}

impl FileKind {
    /// The kind of the file `path` whose content is `bytes`.
    pub fn of(path: &Path, bytes: &[u8]) -> FileKind {
        match FileType::of(bytes) {
            Some(FileType::Mesh) => return FileKind::KilnMesh,
            Some(FileType::Clip) => return FileKind::KilnClip,
            None => {}
        }
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("mesh") => FileKind::ClassicMesh,
            Some("clip") => FileKind::ClassicClip,
            _ => InputFormat::of(path).map_or(FileKind::Unknown, FileKind::Model),
        }
    }
}

/// How a model file is turned into engine data.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LoadOptions {
    /// Bake node transforms into the vertices (Assimp's PreTransformVertices), for static
    /// meshes; bones collapse to the root.
    pub pre_transform: bool,
    /// Resample every clip at this many frames per second instead of the animation's own
    /// ticks per second.
    pub clip_frame_rate: Option<f64>,
    /// Convert lengths to this unit, from the unit the file declares (FBX `UnitScaleFactor`).
    pub units: Option<Unit>,
    /// Then multiply lengths by this factor.
    pub scale: Option<f64>,
    /// Turn the scene so that the file's up axis becomes this one.
    pub up: Option<Axis>,
    /// Turn the scene so that the file's front axis becomes this one (with `up`: the front
    /// axis follows the up axis's quarter turn when not given).
    pub forward: Option<Axis>,
    /// How clip (and, in `kiln::batch`, texture) file names are spelt.
    pub name_style: NameStyle,
}

/// How output file names made from names in the model (animations, textures) are spelt.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum NameStyle {
    /// As the model names them, only the characters no file system takes replaced by `_`
    /// (`hero_Armature|Walk` → `hero_Armature_Walk.clip`): the original tool's rule.
    #[default]
    Original,
    /// As [`NameStyle::Original`], in lower case (for case-sensitive file systems and engines
    /// that look files up by lower-case name).
    Lower,
    /// Lower case, every run of characters other than `a`–`z`, `0`–`9`, `.`, `-` and `_`
    /// one `_` (`Walk Cycle (v2)` → `walk_cycle_v2`).
    Snake,
}

impl NameStyle {
    /// `name` spelt in this style.
    pub fn apply(self, name: &str) -> String {
        match self {
            NameStyle::Original => name.to_string(),
            NameStyle::Lower => name.to_lowercase(),
            NameStyle::Snake => {
                let mut out = String::with_capacity(name.len());
                for c in name.chars().flat_map(char::to_lowercase) {
                    if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_') {
                        out.push(c);
                    } else if !out.ends_with('_') {
                        out.push('_');
                    }
                }
                // No `_` against a `.` (`skin (v2).png` → `skin_v2.png`) or at the ends.
                let out = out.replace("_.", ".").replace("._", ".");
                let trimmed = out.trim_matches('_');
                if trimmed.is_empty() {
                    out
                } else {
                    trimmed.to_string()
                }
            }
        }
    }

    /// `original`, `lower` or `snake`.
    ///
    /// ```
    /// use kiln::load::NameStyle;
    /// assert_eq!(NameStyle::Snake.apply("Armature|Walk Cycle"), "armature_walk_cycle");
    /// assert_eq!(NameStyle::Snake.apply("Skin Diffuse (v2).PNG"), "skin_diffuse_v2.png");
    /// assert_eq!(NameStyle::Lower.apply("Skin Diffuse.PNG"), "skin diffuse.png");
    /// assert_eq!(NameStyle::Original.apply("Walk|1"), "Walk|1");
    /// ```
    pub fn name(self) -> &'static str {
        match self {
            NameStyle::Original => "original",
            NameStyle::Lower => "lower",
            NameStyle::Snake => "snake",
        }
    }
}

pub use kiln_process::Axis;

/// A unit of length, for [`LoadOptions::units`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Millimetres.
    Millimetre,
    /// Centimetres (the FBX SDK's default).
    Centimetre,
    /// Metres.
    Metre,
    /// Inches.
    Inch,
    /// Feet.
    Foot,
}

impl Unit {
    /// Centimetres per unit.
    pub fn centimetres(self) -> f64 {
        match self {
            Unit::Millimetre => 0.1,
            Unit::Centimetre => 1.0,
            Unit::Metre => 100.0,
            Unit::Inch => 2.54,
            Unit::Foot => 30.48,
        }
    }

    /// The short name: `mm`, `cm`, `m`, `in`, `ft`.
    pub fn name(self) -> &'static str {
        match self {
            Unit::Millimetre => "mm",
            Unit::Centimetre => "cm",
            Unit::Metre => "m",
            Unit::Inch => "in",
            Unit::Foot => "ft",
        }
    }
}

/// What a loaded file was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// A model file (or a scene), imported and processed.
    Model,
    /// A `.mesh` in the kiln layout (`docs/format.md`).
    KilnMesh,
    /// A `.mesh` in the original tool's layout (`docs/format-classic.md`).
    ClassicMesh,
}

/// Where a texture's bytes are.
#[derive(Clone, Debug, PartialEq)]
pub enum TextureSource {
    /// A texture of a model file's material: embedded in it, or a file found from its path.
    Scene(TextureRef),
    /// A texture a `.mesh` names: a file of that name beside it.
    Beside(String),
}

impl TextureSource {
    /// The file name the texture is written under (its path without folders).
    pub fn file_name(&self) -> &str {
        match self {
            TextureSource::Scene(t) => texture_file_name(&t.path),
            TextureSource::Beside(name) => name,
        }
    }
}

/// A material and where its textures are.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedMaterial {
    /// Colours and texture file names, as the `.xml` and the kiln `.mesh` store them.
    pub data: MaterialData,
    /// The diffuse texture.
    pub diffuse: Option<TextureSource>,
    /// The specular texture.
    pub specular: Option<TextureSource>,
    /// The normal map.
    pub normal: Option<TextureSource>,
}

impl LoadedMaterial {
    /// The textures it uses, diffuse, specular, normal, in that order.
    pub fn textures(&self) -> impl Iterator<Item = &TextureSource> {
        [&self.diffuse, &self.specular, &self.normal]
            .into_iter()
            .flatten()
    }
}

/// Why a texture's bytes could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TextureError {
    /// The material refers to an embedded texture the file does not hold.
    #[error("texture '{path}': embedded texture {index} is missing")]
    EmbeddedMissing {
        /// The path the material gives.
        path: String,
        /// The index of the embedded texture it refers to.
        index: usize,
    },
    /// No file was found where the path says, nor beside the model.
    #[error("texture '{path}' not found (looked for {})", list(.looked))]
    NotFound {
        /// The path the material gives.
        path: String,
        /// The files tried, in order.
        looked: Vec<PathBuf>,
    },
    /// The file beside the `.mesh` could not be read.
    #[error("texture '{name}': {source}")]
    Unreadable {
        /// The file name the `.mesh` gives.
        name: String,
        /// Why.
        #[source]
        source: std::io::Error,
    },
}

fn list(paths: &[PathBuf]) -> String {
    paths
        .iter()
        .map(|c| c.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why the materials of a classic `.mesh` (its `NAME.xml` beside it) could not be had.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MaterialsError {
    /// The `.xml` cannot be read.
    #[error("{}: {source}", path.display())]
    Unreadable {
        /// The `.xml` looked for.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The `.xml` is malformed.
    #[error("{}: {source}", path.display())]
    Malformed {
        /// The `.xml`.
        path: PathBuf,
        /// What is wrong.
        #[source]
        source: kiln_format::FormatError,
    },
}

/// A file read into everything the commands need.
#[derive(Debug)]
pub struct Loaded {
    /// The file's stem (`NAME` of the outputs), `model` when it has none.
    pub name: String,
    /// The file as given.
    pub path: PathBuf,
    /// Its folder (`.` when the path has none): where textures and clips are looked for.
    pub dir: PathBuf,
    /// What the file was.
    pub source: Source,
    /// Bones (depth-first, root first), mesh parts and material names.
    pub model: Model,
    /// One per bone: the skin's inverse bind matrix, `None` for bones no skin uses.
    pub offsets: Vec<Option<Matrix>>,
    /// One clip per animation (a model file's, resampled) or per clip file of a `.mesh`:
    /// one track per bone, sampled at every frame.
    pub clips: Vec<Clip>,
    /// The file name of each clip, `NAME_CLIPNAME.clip`: the one it has beside the `.mesh`, or
    /// the one it is written under ([`clip_file_names`]).
    pub clip_files: Vec<String>,
    /// The materials, in the model's order; for a classic `.mesh`, read from `NAME.xml`.
    pub materials: Result<Vec<LoadedMaterial>, MaterialsError>,
    /// The importer's, the processing's, the extraction's and the clips' warnings, in that order.
    pub warnings: Vec<Warning>,
    /// A model file's embedded textures, which [`TextureSource::Scene`] may refer to.
    embedded: Vec<EmbeddedTexture>,
}

/// The output name of a source file: its stem, or `model` when it has none.
pub fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "model".into())
}

fn folder_of(path: &Path) -> PathBuf {
    path.parent()
        .filter(|d| !d.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .to_path_buf()
}

fn is_mesh(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("mesh"))
}

/// Loads `path`: a `.mesh` kiln wrote (by its extension), or a model file kiln reads.
pub fn load(path: &Path, options: &LoadOptions) -> Result<Loaded> {
    if is_mesh(path) {
        load_mesh(path, None)
    } else {
        load_model(path, options)
    }
}

/// [`load`], with a `.mesh`'s clips read from `clip_files` instead of its manifest (a `.mesh`
/// the original tool wrote has none); an empty `clip_files` is [`load`]. Ignored for a model
/// file.
pub fn load_with_clip_files(
    path: &Path,
    options: &LoadOptions,
    clip_files: &[PathBuf],
) -> Result<Loaded> {
    if is_mesh(path) {
        load_mesh(path, (!clip_files.is_empty()).then_some(clip_files))
    } else {
        load_model(path, options)
    }
}

/// Reads a model file into a scene, as authored (right-handed, polygons).
pub fn import_file(path: &Path) -> Result<Scene> {
    import_with(path, &mut FileSystem)
}

/// [`import_file`], reading the model and every file it refers to (an OBJ's `.mtl`) through
/// `files`, which may record them (`kiln::batch` does, for its manifests and depfiles).
pub fn import_with(path: &Path, files: &mut dyn Files) -> Result<Scene> {
    read_and_import(path, files, import_bytes)
}

/// Reads `path` through `files` and imports it with `import` ([`import_bytes`] or
/// [`import_bytes_for_engine`]).
fn read_and_import(
    path: &Path,
    files: &mut dyn Files,
    import: fn(&Path, &[u8], InputFormat, &mut dyn Files) -> Result<Scene>,
) -> Result<Scene> {
    let format = InputFormat::of(path).ok_or_else(|| Error::UnsupportedType.with_path(path))?;
    let meta = fs::metadata(path).map_err(|e| Error::Open(e).with_path(path))?;
    if meta.is_dir() {
        return Err(Error::IsDirectory.with_path(path));
    }
    let bytes = files
        .read(path)
        .map_err(|e| Error::Open(e).with_path(path))?;
    import(path, &bytes, format, files)
}

/// Imports the model whose bytes are `bytes` (read already, from a file or standard input) in
/// `format`. `path` names it in errors and its folder is where an OBJ's `.mtl` files and
/// textures are looked for, through `files`.
pub fn import_bytes(
    path: &Path,
    bytes: &[u8],
    format: InputFormat,
    files: &mut dyn Files,
) -> Result<Scene> {
    import_bytes_with(
        path,
        bytes,
        format,
        files,
        &kiln_fbx_scene::ImportOptions::default(),
    )
}

/// [`import_bytes`] for the engine data ([`process_scene`] and [`from_scene`] next): an FBX
/// skin's weights are kept per control point ([`kiln_scene::Mesh::point_skin`]) instead of
/// spread to every vertex's bone lists, since extraction needs each vertex's four strongest
/// weights only (the same four, in either form). A scene for anything else (a dump, `kiln
/// inspect`) comes from [`import_bytes`].
pub fn import_bytes_for_engine(
    path: &Path,
    bytes: &[u8],
    format: InputFormat,
    files: &mut dyn Files,
) -> Result<Scene> {
    let options = kiln_fbx_scene::ImportOptions {
        point_skin: true,
        ..kiln_fbx_scene::ImportOptions::default()
    };
    import_bytes_with(path, bytes, format, files, &options)
}

/// [`import_bytes`] with the FBX importer's `options`.
fn import_bytes_with(
    path: &Path,
    bytes: &[u8],
    format: InputFormat,
    files: &mut dyn Files,
    options: &kiln_fbx_scene::ImportOptions,
) -> Result<Scene> {
    match format {
        InputFormat::Obj => {
            kiln_obj::parse_at(path, bytes, files).map_err(|e| Error::Obj(e).with_path(path))
        }
        InputFormat::Fbx => kiln_fbx_scene::import_with(bytes, options).map_err(at(path)),
    }
}

/// Runs the original tool's Assimp steps on `scene`: ConvertToLeftHanded, Triangulate,
/// GenUVCoords, GenNormals, CalcTangentSpace, and PreTransformVertices when asked.
pub fn process_for_engine(
    scene: &mut Scene,
    options: &LoadOptions,
) -> Result<(), kiln_process::ProcessError> {
    let steps = if options.pre_transform {
        kiln_process::Steps::ORIGINAL_TOOL_STATIC
    } else {
        kiln_process::Steps::ORIGINAL_TOOL
    };
    kiln_process::process(scene, steps)
}

fn load_model(path: &Path, options: &LoadOptions) -> Result<Loaded> {
    let scene = read_and_import(path, &mut FileSystem, import_bytes_for_engine)?;
    process_scene(scene, path, options)
}

/// [`process_for_engine`] then [`from_scene`]: the engine data of an imported scene.
///
/// With `pre_transform`, a model's animations cannot be kept (the nodes they move are baked
/// into the vertices): that is a warning ([`codes::CLIPS_DROPPED_STATIC`]), not silence.
pub fn process_scene(scene: Scene, path: &Path, options: &LoadOptions) -> Result<Loaded> {
    process_scene_with(scene, path, options, false).map(|(loaded, _)| loaded)
}

/// [`process_scene`]; with `defer`, the parts' vertices are left out of `loaded.model` (each
/// part's list empty) and what builds them comes beside it
/// ([`kiln_extract::extract_pending`]), for a writer that streams them.
pub(crate) fn process_scene_with(
    mut scene: Scene,
    path: &Path,
    options: &LoadOptions,
    defer: bool,
) -> Result<(Loaded, Option<kiln_extract::PendingVertices>)> {
    let animations = scene.animations.len();
    change_units_and_axes(&mut scene, options).map_err(|e| Error::Basis(e).with_path(path))?;
    process_for_engine(&mut scene, options).map_err(at(path))?;
    let (mut loaded, pending) = from_scene_with(scene, path, options, defer);
    if options.pre_transform && animations > 0 {
        loaded.warnings.push(Warning::new(
            codes::CLIPS_DROPPED_STATIC,
            format!("--static: {animations} animation(s) not written as clips (node transforms are baked into the vertices)"),
        ));
    }
    Ok((loaded, pending))
}

/// The engine data of a scene already processed for the engine ([`process_for_engine`]), as if
/// it had been loaded from `path` (which names the outputs and the folder textures are found
/// from): extraction and clips as [`load`] makes them. Only `options.clip_frame_rate` is used.
pub fn from_scene(scene: Scene, path: &Path, options: &LoadOptions) -> Loaded {
    from_scene_with(scene, path, options, false).0
}

/// [`from_scene`] without the parts' vertices: `loaded.model`'s parts have empty vertex
/// lists and the [`kiln_extract::PendingVertices`] beside it builds them, for
/// [`crate::encode::write_classic_mesh_pending`] (how `kiln convert` writes a classic `.mesh`
/// without the model's whole vertex array in memory). A caller that wants the `Model` itself
/// uses [`from_scene`].
pub fn from_scene_pending(
    scene: Scene,
    path: &Path,
    options: &LoadOptions,
) -> (Loaded, kiln_extract::PendingVertices) {
    let (loaded, pending) = from_scene_with(scene, path, options, true);
    (loaded, pending.unwrap_or_default())
}

/// [`from_scene`], the vertices deferred with `defer` (see [`process_scene_with`]).
fn from_scene_with(
    mut scene: Scene,
    path: &Path,
    options: &LoadOptions,
    defer: bool,
) -> (Loaded, Option<kiln_extract::PendingVertices>) {
    // The scene's meshes are freed as their parts are lowered (peak memory: the scene's
    // per-vertex arrays and the model's vertices are not all held at once), or kept for the
    // writer that builds the vertices as it streams them.
    let (mut extracted, pending) = if defer {
        let (extracted, pending) = extract_pending(&mut scene);
        (extracted, Some(pending))
    } else {
        (extract_taking_meshes(&mut scene), None)
    };
    let name = stem(path);
    let clip_options = ClipOptions {
        frame_rate: options.clip_frame_rate,
        ..ClipOptions::default()
    };
    let mut warnings = std::mem::take(&mut scene.warnings);
    warnings.append(&mut extracted.warnings);
    // Names by animation index, so a file's name does not depend on whether an earlier
    // animation failed.
    let names: Vec<String> = scene
        .animations
        .iter()
        .map(|a| options.name_style.apply(&a.name))
        .collect();
    let files = clip_file_names(&name, &names);
    let mut clips = Vec::new();
    let mut clip_files = Vec::new();
    for (result, file_name) in extract_clips(&scene, &extracted, &clip_options)
        .into_iter()
        .zip(files)
    {
        match result {
            Ok(c) => {
                warnings.extend(c.warnings);
                clips.push(c.clip);
                clip_files.push(file_name);
            }
            Err(e) => warnings.push(
                Warning::new(
                    codes::CLIP_LEFT_OUT,
                    format!("{e}; no .clip written for it"),
                )
                .at(file_name),
            ),
        }
    }
    let materials = extracted
        .materials
        .into_iter()
        .map(|m| LoadedMaterial {
            data: m.data,
            diffuse: m.diffuse.map(TextureSource::Scene),
            specular: m.specular.map(TextureSource::Scene),
            normal: m.normal.map(TextureSource::Scene),
        })
        .collect();
    let loaded = Loaded {
        name,
        path: path.to_path_buf(),
        dir: folder_of(path),
        source: Source::Model,
        model: extracted.model,
        offsets: extracted.offsets,
        clips,
        clip_files,
        materials: Ok(materials),
        warnings,
        embedded: std::mem::take(&mut scene.textures),
    };
    (loaded, pending)
}

/// [`LoadOptions::units`], `scale`, `up` and `forward` applied to an imported scene (before the
/// processing, in the file's own right-handed space), with a warning when the file does not
/// declare what a conversion starts from.
pub fn change_units_and_axes(
    scene: &mut Scene,
    options: &LoadOptions,
) -> Result<(), kiln_process::BasisError> {
    let mut factor = options.scale.unwrap_or(1.0);
    if let Some(unit) = options.units {
        // An FBX file without the setting is in centimetres, the FBX SDK's default.
        let declared = scene.metadata.unit_scale_factor.or_else(|| {
            scene
                .metadata
                .source_format
                .starts_with("fbx")
                .then_some(1.0)
        });
        match declared {
            Some(cm) => factor *= cm / unit.centimetres(),
            None => scene.warnings.push(Warning::new(
                codes::UNITS_UNKNOWN,
                format!(
                    "--units {}: the file declares no unit; its lengths are taken as {} already",
                    unit.name(),
                    unit.name()
                ),
            )),
        }
    }
    let mut rotation = glam::Mat3::IDENTITY;
    if options.up.is_some() || options.forward.is_some() {
        let declared = scene.metadata.axes.and_then(|a| {
            Some((
                Axis::from_index_sign(a.up.0, a.up.1)?,
                Axis::from_index_sign(a.front.0, a.front.1)?,
            ))
        });
        let (up, front) = declared.unwrap_or_else(|| {
            scene.warnings.push(Warning::new(
                codes::AXES_UNKNOWN,
                "--up/--forward: the file declares no axes; taken as Y up, Z front",
            ));
            (Axis::Y, Axis::Z)
        });
        let to_up = options.up.unwrap_or(up);
        let to_front = options
            .forward
            .unwrap_or_else(|| kiln_process::front_after_up(up, front, to_up));
        rotation = kiln_process::axes_rotation(up, front, to_up, to_front)?;
    }
    kiln_process::change_basis(scene, factor as f32, rotation)
}

fn load_mesh(path: &Path, given_files: Option<&[PathBuf]>) -> Result<Loaded> {
    let bytes = fs::read(path).map_err(|e| Error::Read(e).with_path(path))?;
    let dir = folder_of(path);
    let name = stem(path);
    let mut warnings = Vec::new();
    let beside = |data: MaterialData| {
        let slot = |f: &str| (!f.is_empty()).then(|| TextureSource::Beside(f.to_string()));
        LoadedMaterial {
            diffuse: slot(&data.diffuse_file),
            specular: slot(&data.specular_file),
            normal: slot(&data.normal_file),
            data,
        }
    };
    let (source, model, offsets, materials) = match FileKind::of(path, &bytes) {
        FileKind::KilnMesh => {
            let view = MeshView::parse(&bytes).map_err(at(path))?;
            let offsets = view.skin_offsets();
            let materials = view
                .materials()
                .map(|m| beside(m.to_material_data()))
                .collect();
            (Source::KilnMesh, view.to_model(), offsets, Ok(materials))
        }
        FileKind::KilnClip => return Err(Error::ClipGiven.with_path(path)),
        _ => {
            let model = kiln_format::classic::read_mesh(&bytes).map_err(at(path))?;
            let assumed = kiln_anim::classic_offsets(&model);
            warnings.push(Warning::new(
                codes::CLASSIC_OFFSETS_ASSUMED,
                "classic .mesh: no offset matrices stored; each skin is assumed bound in the pose the file stores, in the space of its part's node (docs/animation.md)",
            ));
            warnings.extend(assumed.warnings.iter().map(codes::bind_warning));
            let xml = dir.join(format!("{name}.xml"));
            let materials = match fs::read_to_string(&xml) {
                Ok(text) => kiln_format::xml::read_materials(&text)
                    .map(|data| data.into_iter().map(beside).collect())
                    .map_err(|source| MaterialsError::Malformed { path: xml, source }),
                Err(source) => Err(MaterialsError::Unreadable { path: xml, source }),
            };
            (Source::ClassicMesh, model, assumed.offsets, materials)
        }
    };
    let mut clips = Vec::new();
    let mut clip_files = Vec::new();
    let given = given_files.map(|files| files.to_vec());
    let listed =
        || clips_of(path, &dir, &name).map(|names| names.iter().map(|n| dir.join(n)).collect());
    match given.or_else(listed) {
        Some(files) => {
            for file in files {
                let file_name = file
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                let bytes = fs::read(&file).map_err(|e| Error::Read(e).with_path(&file))?;
                let clip = match FileType::of(&bytes) {
                    Some(FileType::Clip) => ClipView::parse(&bytes).map_err(at(&file))?.to_clip(),
                    Some(FileType::Mesh) => continue,
                    None => kiln_format::classic::read_clip(&bytes).map_err(at(&file))?,
                };
                clips.push(clip);
                clip_files.push(file_name);
            }
        }
        None => warnings.push(
            Warning::new(
                codes::NO_MANIFEST,
                format!(
                    "no {name}{} beside it: its clips are unknown, none loaded (convert it again to write one, or name them with --clip-file)",
                    crate::manifest::SUFFIX
                ),
            )
            .at(path.display().to_string()),
        ),
    }
    Ok(Loaded {
        name,
        path: path.to_path_buf(),
        dir,
        source,
        model,
        offsets,
        clips,
        clip_files,
        materials,
        warnings,
        embedded: Vec::new(),
    })
}

/// The clip files of the `.mesh` at `path`, from the manifest `kiln convert` wrote beside it
/// (`NAME.kiln.json`): never by matching file names, which would take another model's clips
/// (`a.mesh` and `a_b.mesh`) or clips an earlier conversion left. `None` when there is no
/// manifest or it does not list this `.mesh`.
fn clips_of(path: &Path, dir: &Path, name: &str) -> Option<Vec<String>> {
    let manifest =
        crate::manifest::Manifest::read(&dir.join(format!("{name}{}", crate::manifest::SUFFIX)))?;
    let file_name = path.file_name()?.to_str()?;
    manifest
        .outputs
        .iter()
        .find(|o| o.kind == crate::manifest::OutputKind::Mesh && o.path == file_name)
        .map(|o| o.clips.clone())
}

impl Loaded {
    /// One offset per bone for writers that store a matrix for every bone: a bone no skin uses
    /// gets the identity, so `offset × model` is its model matrix.
    pub fn offsets_or_identity(&self) -> Vec<Matrix> {
        self.offsets.iter().map(|o| o.unwrap_or(IDENTITY)).collect()
    }

    /// The bytes of a texture: embedded; or the file found at its path relative to the model's
    /// folder (with `\` read as a separator), or failing that the file name in the model's
    /// folder; or, for a `.mesh`, the file of that name beside it.
    pub fn texture_bytes(&self, texture: &TextureSource) -> Result<Vec<u8>, TextureError> {
        self.find_texture(texture, &mut FileSystem)
            .map(|(_, bytes)| bytes)
    }

    /// [`Loaded::texture_bytes`] read through `files`, with the file they came from (`None`
    /// for a texture embedded in the model).
    pub fn find_texture(
        &self,
        texture: &TextureSource,
        files: &mut dyn Files,
    ) -> Result<(Option<PathBuf>, Vec<u8>), TextureError> {
        match texture {
            TextureSource::Beside(name) => {
                let file = self.dir.join(kiln_scene::names::to_path(name));
                match files.read(&file) {
                    Ok(bytes) => Ok((Some(file), bytes)),
                    Err(source) => Err(TextureError::Unreadable {
                        name: name.clone(),
                        source,
                    }),
                }
            }
            TextureSource::Scene(tex) => self.scene_texture(tex, files),
        }
    }

    fn scene_texture(
        &self,
        tex: &TextureRef,
        files: &mut dyn Files,
    ) -> Result<(Option<PathBuf>, Vec<u8>), TextureError> {
        if let Some(index) = tex.embedded {
            return self
                .embedded
                .get(index)
                .map(|t| (None, t.data.clone()))
                .ok_or_else(|| TextureError::EmbeddedMissing {
                    path: tex.path.clone(),
                    index,
                });
        }
        let source_dir = self.path.parent().unwrap_or(Path::new("."));
        let written = tex.path.replace('\\', "/");
        let mut looked = vec![source_dir.join(kiln_scene::names::to_path(&written))];
        let bare = texture_file_name(&tex.path);
        if bare != written {
            looked.push(source_dir.join(kiln_scene::names::to_path(bare)));
        }
        for c in &looked {
            if let Ok(bytes) = files.read(c) {
                return Ok((Some(c.clone()), bytes));
            }
        }
        Err(TextureError::NotFound {
            path: tex.path.clone(),
            looked,
        })
    }
}
