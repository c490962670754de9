//! The driver `kiln convert` runs: [`load`](crate::load()) a model, [`encode`](crate::encode())
//! its outputs in memory, then write them.
//!
//! Every output is built in memory first and then written under a temporary name and renamed,
//! so a failure never leaves a half-written file behind.

use std::fmt;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use kiln_scene::Warning;

use crate::codes;
use crate::encode::{
    EncodeOptions, Encoded, Layout, MeshStream, encode_with_textures, mesh_file_name,
};
use crate::error::{Error, Result};
use crate::load::{LoadOptions, Loaded, load};

/// Options of [`convert_file`]: how the model is loaded and how it is encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ConvertOptions {
    /// Processing and clip resampling.
    pub load: LoadOptions,
    /// Layout and quantisation.
    pub encode: EncodeOptions,
}

impl ConvertOptions {
    /// The options of a conversion in `layout` with everything else by default.
    pub fn with_layout(layout: Layout) -> ConvertOptions {
        ConvertOptions {
            encode: EncodeOptions {
                layout,
                ..EncodeOptions::default()
            },
            ..ConvertOptions::default()
        }
    }
}

/// Writes `bytes` to `path` through a temporary file in the same folder and a rename, so that
/// no reader ever sees a half-written file and a failed write leaves the old one.
///
/// No `fsync`: what the rename promises holds without it, and a build system regenerates its
/// outputs after a power loss anyway (as ninja and cargo, which do not sync either). Syncing
/// cost a third of a large model's conversion (62 MB of output: 210 ms of 620).
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomically_with(path, |f| f.write_all(bytes))
}

/// [`write_atomically`] of whatever `write` writes into the temporary file.
pub(crate) fn write_atomically_with(
    path: &Path,
    write: impl FnOnce(&mut fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    let result = (|| {
        // Closed before the rename (Windows cannot rename an open file).
        {
            let mut f = fs::OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&tmp)?;
            write(&mut f)?;
        }
        fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result
}

/// Reserves the first `len` bytes of `file` (empty, just created) on disk before it is
/// written, on ext4 (Linux's `fallocate`; the file is then `len` bytes long); elsewhere
/// nothing happens and the writes allocate as they go. Gives whether it reserved.
///
/// Why: ext4, the usual Linux file system, allocates a file's blocks as buffered writes
/// reach them (delayed allocation), a block at a time in each write's path; with the extent
/// reserved first each write only fills pages. Writing 57 MB in 768 KiB writes took 10.2 ms
/// instead of 14.1 (median of 15, this project's 2-core machine), the 400k-triangle `.mesh`
/// 0.935 of its time. Only ext4: on tmpfs the same reservation made those writes slower
/// (34.3 against 32.5 ms: its pages are allocated and cleared first), and other file systems
/// were not measured. A disk too full for the file still fails at the first write that
/// needs a block.
pub(crate) fn reserve(file: &fs::File, len: u64) -> bool {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{FallocateFlags, fallocate, fstatfs};
        // Best effort: a full disk is left to the writes, which report their own errors.
        fstatfs(file).is_ok_and(|s| is_ext4(&s))
            && fallocate(file, FallocateFlags::empty(), 0, len).is_ok()
    }
    #[cfg(not(target_os = "linux"))]
    {
        let _ = (file, len);
        false
    }
}

/// Whether a file system is ext4 (`EXT4_SUPER_MAGIC`; ext2 and ext3 mounted by the ext4
/// driver report it too): where [`reserve`] reserves.
#[cfg(target_os = "linux")]
fn is_ext4(s: &rustix::fs::StatFs) -> bool {
    // `f_type`'s width depends on the architecture (64 bits on x86-64, 32 on some).
    #[allow(clippy::unnecessary_cast)]
    let magic = s.f_type as i64;
    magic == 0xEF53
}

/// Counts for the one-line summary of a converted file.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Summary {
    /// Bones of the skeleton.
    pub bones: usize,
    /// Mesh parts.
    pub parts: usize,
    /// Vertices over all parts.
    pub vertices: usize,
    /// Triangles over all parts.
    pub triangles: usize,
    /// Materials.
    pub materials: usize,
    /// `.clip` files written (one per animation that gave a clip).
    pub clips: usize,
    /// Wall time of the whole conversion.
    pub milliseconds: f64,
}

impl Summary {
    /// The counts of `loaded`, converted in `milliseconds`.
    pub fn of(loaded: &Loaded, milliseconds: f64) -> Summary {
        let model = &loaded.model;
        Summary {
            bones: model.bones.len(),
            parts: model.meshes.len(),
            vertices: model.meshes.iter().map(|m| m.vertices.len()).sum(),
            triangles: model.meshes.iter().map(|m| m.indices.len() / 3).sum(),
            materials: loaded.materials.as_ref().map_or(0, Vec::len),
            clips: loaded.clips.len(),
            milliseconds,
        }
    }
}

/// The warning a model without triangles gets: as the original tool (with its faults fixed),
/// the skeleton is still written.
pub(crate) fn skeleton_only(loaded: &Loaded) -> Option<Warning> {
    loaded.model.meshes.is_empty().then(|| {
        Warning::new(
            codes::SKELETON_ONLY,
            "no triangles: the .mesh holds the skeleton only",
        )
    })
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
    /// The counts printed for the file.
    pub summary: Summary,
    /// Paths written.
    pub written: Vec<PathBuf>,
    /// Every warning of the conversion.
    pub warnings: Vec<Warning>,
}

/// Converts one model file into `out_dir` (created when missing): [`prepare_file`], then
/// [`Prepared::write`].
pub fn convert_file(path: &Path, out_dir: &Path, options: &ConvertOptions) -> Result<Converted> {
    prepare_file(path, options)?.write(out_dir)
}

/// A model file converted in memory, not written yet: its warnings can be looked at first
/// (`kiln convert --strict` writes nothing, and so replaces nothing, when there are any).
#[derive(Debug)]
pub struct Prepared {
    clock: Clock,
    /// The loaded model (its warnings moved to [`Prepared::warnings`]).
    pub loaded: Loaded,
    /// Its outputs but the `.mesh` (their warnings moved to [`Prepared::warnings`]):
    /// [`Prepared::write`] streams the mesh to disk, so that a large model's file is never
    /// held whole in memory beside the model.
    pub encoded: Encoded,
    mesh: MeshStream,
    /// The loader's warnings, then the encoder's, then the pipeline's: the one list of them.
    pub warnings: Vec<Warning>,
}

/// Loads one model file and encodes its outputs, writing nothing.
pub fn prepare_file(path: &Path, options: &ConvertOptions) -> Result<Prepared> {
    let clock = Clock::start();
    let mut loaded = load(path, &options.load)?;
    let (mut encoded, mesh) =
        encode_with_textures(&loaded, &options.encode).map_err(|e| e.with_path(path))?;
    let warnings = all_warnings(&mut loaded, &mut encoded);
    Ok(Prepared {
        clock,
        loaded,
        encoded,
        mesh,
        warnings,
    })
}

impl Prepared {
    /// Every warning of the conversion so far.
    pub fn warnings(&self) -> &[Warning] {
        &self.warnings
    }

    /// Writes the outputs into `out_dir` (created when missing), each through a temporary
    /// name and a rename.
    pub fn write(self, out_dir: &Path) -> Result<Converted> {
        fs::create_dir_all(out_dir).map_err(|e| Error::CreateFolder(e).with_path(out_dir))?;
        let mut written = Vec::new();
        let target = out_dir.join(mesh_file_name(&self.loaded));
        write_atomically_with(&target, |f| {
            let mut w = std::io::BufWriter::with_capacity(1 << 16, f);
            self.mesh.write_to(&self.loaded, &mut w)?;
            w.flush()
        })
        .map_err(|e| Error::Write(e).with_path(&target))?;
        written.push(target);
        for o in &self.encoded.files {
            let target = out_dir.join(kiln_scene::names::to_path(&o.name));
            write_atomically(&target, &o.bytes).map_err(|e| Error::Write(e).with_path(&target))?;
            written.push(target);
        }
        let summary = Summary::of(&self.loaded, self.clock.milliseconds());
        Ok(Converted {
            summary,
            written,
            warnings: self.warnings,
        })
    }
}

/// What [`convert_memory`] gives: every output in memory, in the order `kiln convert` writes
/// them (`NAME.mesh`, `NAME.xml`, the clips, the textures), every warning, and the counts.
#[derive(Debug)]
pub struct ConvertedMemory {
    /// The outputs.
    pub files: Vec<crate::encode::OutputFile>,
    /// The loader's warnings, then the encoder's, then the pipeline's, as `kiln convert`
    /// prints them.
    pub warnings: Vec<Warning>,
    /// The counts `kiln convert` prints.
    pub summary: Summary,
}

/// Converts a model held in memory: `bytes` are the file `file_name` (whose extension says the
/// format, and which names the outputs), and everything it refers to (an OBJ's `.mtl` files,
/// textures that are not embedded) is read through `files`, at paths relative to `file_name`'s
/// folder. The outputs are `kiln convert`'s, byte for byte, for the same options and files;
/// nothing is written (no manifest either: that records files on disk).
pub fn convert_memory(
    bytes: &[u8],
    file_name: &str,
    files: &mut dyn crate::load::Files,
    options: &ConvertOptions,
) -> Result<ConvertedMemory> {
    let clock = Clock::start();
    let path = Path::new(file_name);
    let format =
        crate::load::InputFormat::of(path).ok_or_else(|| Error::UnsupportedType.with_path(path))?;
    let scene = crate::load::import_bytes_for_engine(path, bytes, format, files)?;
    let mut loaded = crate::load::process_scene(scene, path, &options.load)?;
    let mut encoded = crate::encode::encode_with(&loaded, &options.encode, files)
        .map_err(|e| e.with_path(path))?;
    let warnings = all_warnings(&mut loaded, &mut encoded);
    Ok(ConvertedMemory {
        files: encoded.files,
        warnings,
        summary: Summary::of(&loaded, clock.milliseconds()),
    })
}

/// The loader's warnings, then the encoder's, then the pipeline's: the one list a conversion
/// reports (moved out of `loaded` and `encoded`).
fn all_warnings(loaded: &mut Loaded, encoded: &mut Encoded) -> Vec<Warning> {
    let mut warnings = std::mem::take(&mut loaded.warnings);
    warnings.append(&mut encoded.warnings);
    warnings.extend(skeleton_only(loaded));
    warnings
}

/// Wall time where there is a clock: `std::time::Instant` panics on `wasm32-unknown-unknown`,
/// which has none, so there a conversion's summary says 0 ms (the caller times it with
/// `performance.now()`).
#[derive(Debug)]
struct Clock(#[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))] std::time::Instant);

impl Clock {
    fn start() -> Clock {
        Clock(
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            std::time::Instant::now(),
        )
    }

    fn milliseconds(&self) -> f64 {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return self.0.elapsed().as_secs_f64() * 1e3;
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reserved_file_holds_exactly_what_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("reserved.bin");
        let bytes: Vec<u8> = (0..(1u32 << 20) + 5).map(|i| (i * 7 + 3) as u8).collect();
        write_atomically_with(&path, |f| {
            let reserved = reserve(f, bytes.len() as u64);
            // Reserved exactly where the folder is on ext4 (as this machine's temporary
            // folder is); then the file has its length before a byte is written, else it is
            // still empty.
            #[cfg(target_os = "linux")]
            assert_eq!(
                reserved,
                rustix::fs::fstatfs(&*f).is_ok_and(|s| is_ext4(&s)),
                "reserved on ext4 only"
            );
            let before = f.metadata()?.len();
            assert_eq!(before, if reserved { bytes.len() as u64 } else { 0 });
            std::io::Write::write_all(f, &bytes)
        })
        .unwrap();
        assert!(std::fs::read(&path).unwrap() == bytes);
    }
}
