//! kiln's C API (`include/kiln_capi.h`): what an engine written in C or C++ needs to convert with
//! kiln and to play what it converted, with no file system and no global state.
//!
//! - [`kiln_convert_memory`]: a model's bytes in (FBX or OBJ, told by the file name's
//!   extension), everything it refers to (an OBJ's `.mtl`, textures) through a loader callback,
//!   options as the CLI's; every output file, every warning and the summary out, or the one-line
//!   error `kiln convert` prints (without its `kiln: error: ` prefix). The outputs are
//!   `kiln convert`'s byte for byte. Freed by [`kiln_result_free`].
//! - [`kiln_runtime_new`] / [`kiln_runtime_palette`] / [`kiln_runtime_free`]: a kiln-layout
//!   `.mesh` and its `.clip`s read through the zero-copy views, bound once; per frame, a clip
//!   sampled at any time and the skinning palette (one row-vector 4×4 matrix per bone, the
//!   texels the bone texture would hold) written into the caller's buffer, without allocating.
//! - [`kiln_version`].
//!
//! Every entry point catches panics (a bug in kiln) and returns them as errors; none unwinds
//! into C. Pointers the caller passes are checked for null; lengths are trusted as C APIs trust
//! them, and documented on each function.
//!
//! This crate is the one place of the workspace with `unsafe`: reading the caller's pointers
//! and handing out and taking back the boxes behind the handles. Each block says why it is
//! sound; `tests/c_api.rs` drives every function from a C program (and under valgrind when it
//! is installed).

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::panic::{AssertUnwindSafe, catch_unwind};

use kiln::anim::sample::Wrap;
use kiln::anim::{AnimationClip, Pose, Skeleton};
use kiln::format::kiln::{ClipView, MeshView};
use kiln::load::FilesFrom;
use kiln::{ConvertOptions, Layout};

/// Bytes the caller owns.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct KilnBytes {
    /// The first byte (may be null when `len` is 0).
    pub data: *const u8,
    /// How many.
    pub len: usize,
}

/// The loader: asked for the file `name` (a path relative to the model's folder, `/`
/// separated, NUL-terminated), it sets `*out` to its bytes and returns 0, or returns non-zero
/// when it has no such file. The bytes must stay valid until [`kiln_convert_memory`] returns;
/// kiln copies what it keeps.
pub type KilnLoader = Option<
    unsafe extern "C" fn(user: *mut c_void, name: *const c_char, out: *mut KilnBytes) -> c_int,
>;

/// Options of [`kiln_convert_memory`], as the CLI's. Zero-initialised is the default
/// conversion (`kiln convert FILE`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct KilnOptions {
    /// 0: the kiln layout; 1: the classic layout (`--layout classic`).
    pub layout: u32,
    /// 0: none; 1: attributes (`--quantize`); 2: attributes and positions
    /// (`--quantize-positions`).
    pub quantize: u32,
    /// Non-zero: `--static` (node transforms baked into the vertices, no clips).
    pub static_mesh: u32,
    /// Frames per second to resample clips at (`--clip-rate`); 0: the animation's own.
    pub clip_rate: f64,
}

/// One output file.
#[repr(C)]
#[derive(Debug)]
pub struct KilnFile {
    /// Its name inside the output folder (NUL-terminated UTF-8, or the bytes of a name that is
    /// not UTF-8).
    pub name: *const c_char,
    /// Its bytes.
    pub data: *const u8,
    /// How many.
    pub len: usize,
}

/// What [`kiln_convert_memory`] gives. Every pointer stays valid until [`kiln_result_free`].
#[repr(C)]
#[derive(Debug)]
pub struct KilnResult {
    /// Null on success; otherwise the one-line error (the outputs are then empty).
    pub error: *const c_char,
    /// The outputs, in the order `kiln convert` writes them.
    pub files: *const KilnFile,
    /// How many.
    pub file_count: usize,
    /// The warnings, one line each (`code: message`, as the CLI prints them after the file).
    pub warnings: *const *const c_char,
    /// How many.
    pub warning_count: usize,
    /// The counts `kiln convert` prints (`N bones, N mesh parts, …`); null on error.
    pub summary: *const c_char,
}

/// The result and everything its pointers point into: boxed, handed out as `*mut KilnResult`
/// (the first field, `repr(C)`), taken back by [`kiln_result_free`].
#[repr(C)]
struct Owned {
    public: KilnResult,
    names: Vec<CString>,
    data: Vec<Vec<u8>>,
    files: Vec<KilnFile>,
    warning_text: Vec<CString>,
    warnings: Vec<*const c_char>,
    error: Option<CString>,
    summary: Option<CString>,
}

/// A C string of `text`, with any NUL replaced (kiln's messages have none, but a file name in
/// a model might).
fn c_string(text: impl Into<Vec<u8>>) -> CString {
    let mut bytes: Vec<u8> = text.into();
    bytes
        .iter_mut()
        .filter(|b| **b == 0)
        .for_each(|b| *b = b'?');
    CString::new(bytes).unwrap_or_default()
}

fn result_of(outcome: Result<kiln::ConvertedMemory, String>) -> *mut KilnResult {
    let mut owned = Box::new(Owned {
        public: KilnResult {
            error: std::ptr::null(),
            files: std::ptr::null(),
            file_count: 0,
            warnings: std::ptr::null(),
            warning_count: 0,
            summary: std::ptr::null(),
        },
        names: Vec::new(),
        data: Vec::new(),
        files: Vec::new(),
        warning_text: Vec::new(),
        warnings: Vec::new(),
        error: None,
        summary: None,
    });
    match outcome {
        Ok(converted) => {
            for f in converted.files {
                owned
                    .names
                    .push(c_string(kiln::scene::names::to_bytes(&f.name).into_owned()));
                owned.data.push(f.bytes);
            }
            owned.files = owned
                .names
                .iter()
                .zip(&owned.data)
                .map(|(n, d)| KilnFile {
                    name: n.as_ptr(),
                    data: d.as_ptr(),
                    len: d.len(),
                })
                .collect();
            owned.warning_text = converted
                .warnings
                .iter()
                .map(|w| c_string(w.to_string()))
                .collect();
            owned.warnings = owned.warning_text.iter().map(|w| w.as_ptr()).collect();
            owned.summary = Some(c_string(converted.summary.to_string()));
        }
        Err(message) => owned.error = Some(c_string(message)),
    }
    owned.public.files = owned.files.as_ptr();
    owned.public.file_count = owned.files.len();
    owned.public.warnings = owned.warnings.as_ptr();
    owned.public.warning_count = owned.warnings.len();
    owned.public.error = owned
        .error
        .as_ref()
        .map_or(std::ptr::null(), |e| e.as_ptr());
    owned.public.summary = owned
        .summary
        .as_ref()
        .map_or(std::ptr::null(), |s| s.as_ptr());
    // The vectors' buffers do not move when the box does, so the pointers stay valid.
    Box::into_raw(owned).cast::<KilnResult>()
}

/// The message of a caught panic.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "a panic".into());
    format!("internal error (please report it): {what}")
}

/// The bytes of file `name` from the caller's loader (`None`: it has none, or there is no
/// loader).
fn load(loader: KilnLoader, user: *mut c_void, name: &str) -> Option<Vec<u8>> {
    let f = loader?;
    let name = c_string(name);
    let mut out = KilnBytes {
        data: std::ptr::null(),
        len: 0,
    };
    // SAFETY: `f` is the caller's function, called as its documented signature says, with a
    // valid NUL-terminated name and a valid out-pointer; `user` is passed back untouched.
    if unsafe { f(user, name.as_ptr(), &mut out) } != 0 {
        return None;
    }
    if out.len == 0 {
        return Some(Vec::new());
    }
    if out.data.is_null() {
        return None;
    }
    // SAFETY: the loader's contract: `data` points to `len` bytes that stay valid until the
    // conversion returns; they are copied at once.
    Some(unsafe { std::slice::from_raw_parts(out.data, out.len) }.to_vec())
}

/// Converts the model `bytes[0..len]` named `file_name` (its extension says the format; it
/// names the outputs) with `options` (null: the defaults), reading what it refers to through
/// `loader` (null: nothing can be read) with `user` passed back. Never returns null; free the
/// result with [`kiln_result_free`].
///
/// # Safety
/// `bytes` points to `len` readable bytes (or `len` is 0); `file_name` is a NUL-terminated
/// string; `options` is null or points to a [`KilnOptions`]; `loader`, when not null, follows
/// [`KilnLoader`]'s contract.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_convert_memory(
    bytes: *const u8,
    len: usize,
    file_name: *const c_char,
    loader: KilnLoader,
    user: *mut c_void,
    options: *const KilnOptions,
) -> *mut KilnResult {
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        if file_name.is_null() || (bytes.is_null() && len > 0) {
            return Err("kiln_convert_memory: a null file name or bytes".to_string());
        }
        // SAFETY: checked not null; the caller promises NUL termination.
        let name = unsafe { CStr::from_ptr(file_name) }
            .to_string_lossy()
            .into_owned();
        let input: &[u8] = if len == 0 {
            &[]
        } else {
            // SAFETY: checked not null; the caller promises `len` readable bytes.
            unsafe { std::slice::from_raw_parts(bytes, len) }
        };
        let o = if options.is_null() {
            KilnOptions::default()
        } else {
            // SAFETY: checked not null; the caller promises a `KilnOptions`.
            unsafe { *options }
        };
        let mut convert = ConvertOptions::with_layout(match o.layout {
            0 => Layout::Kiln,
            1 => Layout::Classic,
            n => return Err(format!("{name}: layout {n} is not 0 (kiln) or 1 (classic)")),
        });
        convert.encode.quantize = match o.quantize {
            0 => kiln::format::kiln::Quantize::None,
            1 => kiln::format::kiln::Quantize::Attributes,
            2 => kiln::format::kiln::Quantize::AttributesAndPositions,
            n => return Err(format!("{name}: quantize {n} is not 0, 1 or 2")),
        };
        convert.load.pre_transform = o.static_mesh != 0;
        if o.clip_rate != 0.0 {
            if !(o.clip_rate.is_finite() && o.clip_rate > 0.0) {
                return Err(format!(
                    "{name}: clip rate {} is not a positive number",
                    o.clip_rate
                ));
            }
            convert.load.clip_frame_rate = Some(o.clip_rate);
        }
        let mut files = FilesFrom::new(|name: &str| load(loader, user, name));
        kiln::convert_memory(input, &name, &mut files, &convert).map_err(|e| e.to_string())
    }));
    result_of(outcome.unwrap_or_else(|p| Err(panic_message(p.as_ref()))))
}

/// Frees a result of [`kiln_convert_memory`]; null is ignored.
///
/// # Safety
/// `result` is null or a result of [`kiln_convert_memory`] not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_result_free(result: *mut KilnResult) {
    if result.is_null() {
        return;
    }
    // SAFETY: `result` came from `Box::into_raw` of an `Owned` (whose first field it is,
    // `repr(C)`) and is freed once, as the caller promises.
    drop(unsafe { Box::from_raw(result.cast::<Owned>()) });
}

/// kiln's version, NUL-terminated, static.
#[unsafe(no_mangle)]
pub extern "C" fn kiln_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// A kiln-layout model bound for playback: its skeleton, its clips bound to it, and a pose.
pub struct KilnRuntime {
    skeleton: Skeleton,
    clips: Vec<AnimationClip>,
    pose: Pose,
}

/// Writes `message` into `error[0..error_len]` (truncated, NUL-terminated) when there is room.
fn write_error(error: *mut c_char, error_len: usize, message: &str) {
    if error.is_null() || error_len == 0 {
        return;
    }
    let n = message.len().min(error_len - 1);
    // SAFETY: the caller promises `error_len` writable bytes at `error`; `n + 1 ≤ error_len`.
    unsafe {
        std::ptr::copy_nonoverlapping(message.as_ptr(), error.cast::<u8>(), n);
        *error.add(n) = 0;
    }
}

/// Reads a kiln-layout `.mesh` (`mesh[0..mesh_len]`) and `clip_count` `.clip`s (`clips[i]`),
/// builds the skeleton and binds every clip to it. Returns null on bad input, with the reason in
/// `error[0..error_len]` (when not null). Free with [`kiln_runtime_free`]. The bytes are not
/// kept.
///
/// # Safety
/// `mesh` points to `mesh_len` readable bytes; `clips` to `clip_count` [`KilnBytes`] each
/// pointing to readable bytes (or `clip_count` is 0); `error` is null or points to `error_len`
/// writable bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_runtime_new(
    mesh: *const u8,
    mesh_len: usize,
    clips: *const KilnBytes,
    clip_count: usize,
    error: *mut c_char,
    error_len: usize,
) -> *mut KilnRuntime {
    let built = catch_unwind(AssertUnwindSafe(|| -> Result<KilnRuntime, String> {
        if mesh.is_null() || (clips.is_null() && clip_count > 0) {
            return Err("kiln_runtime_new: a null mesh or clip list".into());
        }
        // SAFETY: checked not null; the caller promises `mesh_len` readable bytes.
        let mesh = unsafe { std::slice::from_raw_parts(mesh, mesh_len) };
        let view = MeshView::parse(mesh).map_err(|e| format!(".mesh: {e}"))?;
        let model = view.to_model();
        let offsets = view.skin_offsets();
        let skeleton = Skeleton::new(&model.bones, &offsets).map_err(|e| format!(".mesh: {e}"))?;
        let list: &[KilnBytes] = if clip_count == 0 {
            &[]
        } else {
            // SAFETY: checked not null; the caller promises `clip_count` entries.
            unsafe { std::slice::from_raw_parts(clips, clip_count) }
        };
        let mut bound = Vec::with_capacity(list.len());
        for (i, b) in list.iter().enumerate() {
            if b.data.is_null() && b.len > 0 {
                return Err(format!("clip {i}: null bytes"));
            }
            let bytes: &[u8] = if b.len == 0 {
                &[]
            } else {
                // SAFETY: checked not null; the caller promises `len` readable bytes.
                unsafe { std::slice::from_raw_parts(b.data, b.len) }
            };
            let clip = ClipView::parse(bytes)
                .map_err(|e| format!("clip {i}: {e}"))?
                .to_clip();
            let (c, _) =
                AnimationClip::bind(&skeleton, &clip).map_err(|e| format!("clip {i}: {e}"))?;
            bound.push(c);
        }
        let pose = Pose::new(&skeleton);
        Ok(KilnRuntime {
            skeleton,
            clips: bound,
            pose,
        })
    }));
    match built.unwrap_or_else(|p| Err(panic_message(p.as_ref()))) {
        Ok(r) => Box::into_raw(Box::new(r)),
        Err(message) => {
            write_error(error, error_len, &message);
            std::ptr::null_mut()
        }
    }
}

/// Bones of the runtime's skeleton (the palette's matrices); 0 for null.
///
/// # Safety
/// `runtime` is null or a live result of [`kiln_runtime_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_runtime_bone_count(runtime: *const KilnRuntime) -> usize {
    // SAFETY: null or live, as the caller promises.
    unsafe { runtime.as_ref() }.map_or(0, |r| r.skeleton.len())
}

/// Clips bound; 0 for null.
///
/// # Safety
/// `runtime` is null or a live result of [`kiln_runtime_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_runtime_clip_count(runtime: *const KilnRuntime) -> usize {
    // SAFETY: null or live, as the caller promises.
    unsafe { runtime.as_ref() }.map_or(0, |r| r.clips.len())
}

/// Samples clip `clip` at `time` (in frames; looping when `looping` is non-zero, else held at
/// the ends) and writes every bone's skinning matrix (`offset × model`, 16 floats each, the
/// row-vector matrix row by row, as the bone texture's four texels hold it) into
/// `out[0..16 × bones]`. Returns 0, or -1 for a null pointer, an unknown clip or an `out_len`
/// below `16 × bones` (nothing written). No allocation.
///
/// # Safety
/// `runtime` is null or a live result of [`kiln_runtime_new`], not used by another thread at
/// the same time; `out` points to `out_len` writable floats.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_runtime_palette(
    runtime: *mut KilnRuntime,
    clip: usize,
    time: f32,
    looping: c_int,
    out: *mut f32,
    out_len: usize,
) -> c_int {
    let done = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: null or live and not shared, as the caller promises.
        let Some(r) = (unsafe { runtime.as_mut() }) else {
            return -1;
        };
        let bones = r.skeleton.len();
        if out.is_null() || out_len < 16 * bones {
            return -1;
        }
        let Some(c) = r.clips.get(clip) else {
            return -1;
        };
        let wrap = if looping != 0 {
            Wrap::Loop
        } else {
            Wrap::Clamp
        };
        if c.evaluate(&r.skeleton, time, wrap, &mut r.pose).is_err() {
            return -1;
        }
        // SAFETY: checked not null; the caller promises `out_len ≥ 16 × bones` floats.
        let out = unsafe { std::slice::from_raw_parts_mut(out, 16 * bones) };
        for (o, m) in out.chunks_exact_mut(16).zip(r.pose.skinning()) {
            o.copy_from_slice(&m.to_cols_array());
        }
        0
    }));
    done.unwrap_or(-1)
}

/// Frees a runtime; null is ignored.
///
/// # Safety
/// `runtime` is null or a result of [`kiln_runtime_new`] not freed before.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn kiln_runtime_free(runtime: *mut KilnRuntime) {
    if !runtime.is_null() {
        // SAFETY: from `Box::into_raw` in `kiln_runtime_new`, freed once.
        drop(unsafe { Box::from_raw(runtime) });
    }
}

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
