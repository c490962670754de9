//! kiln for JavaScript: the package `scripts/build-web` builds into `web/pkg` (wasm-bindgen).
//!
//! - `convert(bytes, fileName, resources, options)` → `{ files: [{ name, bytes }], warnings,
//!   summary }`: the conversion `kiln convert` runs, in memory, over the facade's
//!   `kiln::convert_memory`. `resources` is a `Map` (or a plain object) from the names the
//!   model refers to (an OBJ's `.mtl`, textures; paths relative to the model) to their bytes
//!   (`Uint8Array`), or a function `name → Uint8Array | undefined`; `options` is
//!   `{ layout: "kiln" | "classic", quantize: "none" | "attributes" | "all", static: boolean,
//!   clipRate: number }` (the CLI's `--layout`, `--quantize` / `--quantize-positions`,
//!   `--static`, `--clip-rate`), every field optional. The outputs equal the CLI's byte for byte.
//! - `inspect(bytes, fileName)` → what a `.mesh` or `.clip` holds (kiln or classic layout).
//! - `view(meshBytes, clips)` → a `.mesh` and its `.clip`s ready to draw as an engine does:
//!   the vertices in the file's layout, the indices, and the baked bone-matrix texture.
//! - `version()`.
//!
//! Errors are JS exceptions (`Error`) whose message is the line the CLI prints after
//! `kiln: error: `. No global state.
//!
//! A panic (a kiln bug; bad input is an error) cannot unwind on `wasm32-unknown-unknown`, whose
//! standard library is built to abort, and would be a `RuntimeError: unreachable` trap. A panic
//! hook, set when the module starts, throws a JS `Error` from the panicking frame instead:
//! `internal error (please report it): panicked at FILE:LINE:COL: MESSAGE; ...`, so the caller
//! gets an ordinary exception that says what happened. The frames it leaves are not unwound
//! (nothing they own is freed), so after one the module must be instantiated again; the page's
//! worker restarts itself. Building with unwinding (nightly `-Zbuild-std`, wasm exceptions)
//! would let the instance live on, but measured 1.65× slower and 55 % larger
//! (docs/wasm.md). Natively the same entry points catch the panic (`guarded`). Running out of
//! memory (the module has 4 GiB) is an `Error` too, `out of memory: ...`, by the same means
//! (`oom`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::Path;

use js_sys::{Array, Function, Map, Object, Reflect, Uint8Array};
use kiln::load::{FileKind, FilesFrom};
use kiln::{ConvertOptions, Layout};
use wasm_bindgen::prelude::*;

/// The package's TypeScript types (web/pkg/kiln_wasm.d.ts; `web/test/types.ts` checks them
/// with `tsc --strict`).
#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** Options, as the CLI's: `--layout`, `--quantize` / `--quantize-positions`, `--static`, `--clip-rate`. */
export interface ConvertOptions {
    layout?: "kiln" | "classic";
    quantize?: "none" | "attributes" | "all";
    static?: boolean;
    /** Frames per second of the clips; the source's when absent. */
    clipRate?: number | null;
}
/** The files a model refers to (an OBJ's `.mtl`, textures) by the name it uses, or a function that gives them. */
export type Resources =
    | Map<string, Uint8Array>
    | Record<string, Uint8Array>
    | ((name: string) => Uint8Array | undefined | null)
    | undefined
    | null;
/** One output file. */
export interface OutputFile { name: string; bytes: Uint8Array; }
/** What `convert` gives: the files `kiln convert` writes, byte for byte, its warnings and its summary line. */
export interface ConvertResult { files: OutputFile[]; warnings: string[]; summary: string; }
/** A bone: its parent's index, -1 for a root. */
export interface BoneInfo { name: string; parent: number; }
export interface MeshPartInfo { name: string; material: string; vertices: number; triangles: number; morphTargets: string[]; }
export interface MeshInfo { kind: "mesh"; bones: BoneInfo[]; parts: MeshPartInfo[]; }
export interface ClipInfo { kind: "clip"; name: string; frames: number; frameRate: number; tracks: number; weightTracks: number; }
export interface ViewPart {
    name: string;
    material: string;
    /** RGBA. */
    diffuse: [number, number, number, number];
    /** 19 floats a vertex: position, uv, normal, tangent, blend indices, blend weights. */
    vertices: Float32Array;
    indices: Uint32Array;
}
export interface BoneBake {
    width: number;
    height: number;
    layers: number;
    boneCount: number;
    frameCounts: number[];
    frameRates: number[];
    clipNames: string[];
    /** RGBA texels, layer by layer, row by row. */
    texels: Float32Array;
}
export interface ViewData {
    parts: ViewPart[];
    bones: BoneInfo[];
    bounds: { min: [number, number, number]; max: [number, number, number]; };
    bake: BoneBake;
}
"#;

/// kiln's version.
#[wasm_bindgen]
pub fn version() -> String {
    env!("CARGO_PKG_VERSION").into()
}

/// The bytes of resource `name` from what JavaScript gave: a function, a `Map` or an object.
fn resource(source: &JsValue, name: &str) -> Option<Vec<u8>> {
    let key = JsValue::from_str(name);
    let value = if let Some(f) = source.dyn_ref::<Function>() {
        f.call1(&JsValue::NULL, &key).ok()?
    } else if let Some(m) = source.dyn_ref::<Map>() {
        m.get(&key)
    } else if source.is_object() {
        Reflect::get(source, &key).ok()?
    } else {
        return None;
    };
    value.dyn_ref::<Uint8Array>().map(Uint8Array::to_vec)
}

fn field(options: &JsValue, name: &str) -> JsValue {
    if options.is_object() {
        Reflect::get(options, &JsValue::from_str(name)).unwrap_or(JsValue::UNDEFINED)
    } else {
        JsValue::UNDEFINED
    }
}

fn convert_options(file_name: &str, options: &JsValue) -> Result<ConvertOptions, String> {
    let bad = |what: &str, v: &JsValue| format!("{file_name}: option {what}: {v:?} is not allowed");
    let layout = field(options, "layout");
    let mut o = ConvertOptions::with_layout(match layout.as_string().as_deref() {
        None if layout.is_undefined() => Layout::Kiln,
        Some("kiln") => Layout::Kiln,
        Some("classic") => Layout::Classic,
        _ => return Err(bad("layout (\"kiln\" or \"classic\")", &layout)),
    });
    let quantize = field(options, "quantize");
    o.encode.quantize = match quantize.as_string().as_deref() {
        None if quantize.is_undefined() => kiln::format::kiln::Quantize::None,
        Some("none") => kiln::format::kiln::Quantize::None,
        Some("attributes") => kiln::format::kiln::Quantize::Attributes,
        Some("all") => kiln::format::kiln::Quantize::AttributesAndPositions,
        _ => {
            return Err(bad(
                "quantize (\"none\", \"attributes\" or \"all\")",
                &quantize,
            ));
        }
    };
    o.load.pre_transform = field(options, "static").is_truthy();
    let rate = field(options, "clipRate");
    if !rate.is_undefined() && !rate.is_null() {
        match rate.as_f64() {
            Some(r) if r.is_finite() && r > 0.0 => o.load.clip_frame_rate = Some(r),
            _ => return Err(bad("clipRate (frames per second)", &rate)),
        }
    }
    Ok(o)
}

fn set(object: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(object, &JsValue::from_str(key), value);
}

/// Makes a panic a JS `Error` with its message, on one line (run when the module is
/// instantiated; calling it again changes nothing).
// `throw_str` never returns, so the abort that would follow the hook never runs.
#[cfg(target_arch = "wasm32")]
#[wasm_bindgen(start)]
fn start() {
    std::panic::set_hook(Box::new(|info| {
        let what = info.to_string().replace('\n', " ");
        wasm_bindgen::throw_str(&format!(
            "{PANIC_PREFIX}{what}; this kiln instance must be loaded again"
        ))
    }));
}

/// What a panic's error message starts with.
const PANIC_PREFIX: &str = "internal error (please report it): ";

#[cfg(target_arch = "wasm32")]
mod oom;

/// Panics (`"panic"`) or runs out of memory (`"oom"`), for the tests of those paths
/// (web/test/node.mjs, web/test/browser.mjs); not part of the API.
#[doc(hidden)]
#[wasm_bindgen(js_name = "__failForTest", skip_typescript)]
pub fn fail_for_test(kind: &str) {
    if kind == "oom" {
        // Three blocks of 1.5 GiB cannot all fit in 4 GiB. Untouched, they cost the host
        // address space only.
        let blocks: [Vec<u8>; 3] = std::array::from_fn(|_| Vec::with_capacity(0x6000_0000));
        std::hint::black_box(blocks);
    }
    panic!("the panic of __failForTest");
}

/// Runs `f`, turning a panic into the error a user reports (where panics unwind: natively).
fn guarded<T>(f: impl FnOnce() -> Result<T, String>) -> Result<T, JsError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(message)) => Err(JsError::new(&message)),
        Err(_) => Err(JsError::new(&format!("{PANIC_PREFIX}a panic"))),
    }
}

/// Converts the model `bytes` named `fileName`; see the module's documentation.
#[wasm_bindgen(unchecked_return_type = "ConvertResult")]
pub fn convert(
    bytes: &[u8],
    #[wasm_bindgen(js_name = fileName)] file_name: &str,
    #[wasm_bindgen(unchecked_optional_param_type = "Resources")] resources: JsValue,
    #[wasm_bindgen(unchecked_optional_param_type = "ConvertOptions | null")] options: JsValue,
) -> Result<JsValue, JsError> {
    guarded(|| {
        let o = convert_options(file_name, &options)?;
        let mut files = FilesFrom::new(|name: &str| resource(&resources, name));
        let converted =
            kiln::convert_memory(bytes, file_name, &mut files, &o).map_err(|e| e.to_string())?;
        let out = Object::new();
        let list = Array::new();
        for f in &converted.files {
            let entry = Object::new();
            set(&entry, "name", &JsValue::from_str(&f.name));
            set(&entry, "bytes", &Uint8Array::from(&f.bytes[..]).into());
            list.push(&entry);
        }
        set(&out, "files", &list.into());
        let warnings = Array::new();
        for w in &converted.warnings {
            warnings.push(&JsValue::from_str(&w.to_string()));
        }
        set(&out, "warnings", &warnings.into());
        set(
            &out,
            "summary",
            &JsValue::from_str(&converted.summary.to_string()),
        );
        Ok(out.into())
    })
}

/// What a `.mesh` or `.clip` (kiln or classic layout) holds: `{ kind: "mesh", bones: [{ name,
/// parent }], parts: [{ name, material, vertices, triangles, morphTargets: [name] }] }` or
/// `{ kind: "clip", name, frames, frameRate, tracks, weightTracks }`.
#[wasm_bindgen(unchecked_return_type = "MeshInfo | ClipInfo")]
pub fn inspect(
    bytes: &[u8],
    #[wasm_bindgen(js_name = fileName)] file_name: &str,
) -> Result<JsValue, JsError> {
    guarded(|| {
        let at = |e: &dyn std::fmt::Display| format!("{file_name}: {e}");
        let out = Object::new();
        let kind = FileKind::of(Path::new(file_name), bytes);
        let model = match kind {
            FileKind::KilnMesh | FileKind::ClassicMesh => {
                Some(read_mesh(bytes).map_err(|e| at(&e))?.model)
            }
            _ => None,
        };
        if let Some(model) = model {
            set(&out, "kind", &"mesh".into());
            set(&out, "bones", &bones_js(&model));
            let parts = Array::new();
            for p in &model.meshes {
                let e = Object::new();
                set(&e, "name", &JsValue::from_str(&p.name));
                set(&e, "material", &JsValue::from_str(&p.material_name));
                set(&e, "vertices", &JsValue::from(p.vertices.len() as u32));
                set(
                    &e,
                    "triangles",
                    &JsValue::from((p.indices.len() / 3) as u32),
                );
                let targets = Array::new();
                for t in &p.morph_targets {
                    targets.push(&JsValue::from_str(&t.name));
                }
                set(&e, "morphTargets", &targets.into());
                parts.push(&e);
            }
            set(&out, "parts", &parts.into());
            return Ok(out.into());
        }
        let clip = match kind {
            FileKind::KilnClip | FileKind::ClassicClip => read_clip(bytes).map_err(|e| at(&e))?,
            _ => return Err(at(&"not a .mesh or .clip kiln writes")),
        };
        set(&out, "kind", &"clip".into());
        set(&out, "name", &JsValue::from_str(&clip.name));
        set(&out, "frames", &JsValue::from(clip.frame_count));
        set(&out, "frameRate", &JsValue::from(clip.frame_rate));
        set(&out, "tracks", &JsValue::from(clip.tracks.len() as u32));
        set(
            &out,
            "weightTracks",
            &JsValue::from(clip.weight_tracks.len() as u32),
        );
        Ok(out.into())
    })
}

/// A `.mesh` read as a format: the model, and what a kiln-layout file stores beside it (skin
/// offsets and materials; a classic file stores neither).
struct MeshFile {
    model: kiln::format::Model,
    stored: Option<(
        Vec<Option<kiln::format::Matrix>>,
        Vec<kiln::format::MaterialData>,
    )>,
}

/// A `.mesh` of either layout: the kiln layout by its magic (copied 16-byte aligned first, as
/// the views need and JavaScript's bytes need not be), else the classic one.
fn read_mesh(bytes: &[u8]) -> Result<MeshFile, String> {
    use kiln::format::kiln::{AlignedBytes, FileType, MeshView};
    match FileType::of(bytes) {
        Some(FileType::Mesh) => {
            let aligned = AlignedBytes::from_bytes(bytes);
            let view = MeshView::parse(aligned.as_bytes()).map_err(|e| e.to_string())?;
            let materials = view.materials().map(|m| m.to_material_data()).collect();
            Ok(MeshFile {
                model: view.to_model(),
                stored: Some((view.skin_offsets(), materials)),
            })
        }
        Some(FileType::Clip) => Err("a .clip was given where the .mesh goes".into()),
        None => Ok(MeshFile {
            model: kiln::format::classic::read_mesh(bytes).map_err(|e| e.to_string())?,
            stored: None,
        }),
    }
}

/// A `.clip` of either layout, as [`read_mesh`] reads a `.mesh`.
fn read_clip(bytes: &[u8]) -> Result<kiln::format::Clip, String> {
    use kiln::format::kiln::{AlignedBytes, ClipView, FileType};
    match FileType::of(bytes) {
        Some(FileType::Clip) => {
            let aligned = AlignedBytes::from_bytes(bytes);
            Ok(ClipView::parse(aligned.as_bytes())
                .map_err(|e| e.to_string())?
                .to_clip())
        }
        Some(FileType::Mesh) => Err("a .mesh, not a .clip".into()),
        None => kiln::format::classic::read_clip(bytes).map_err(|e| e.to_string()),
    }
}

/// `[{ name, parent }]` of a model's bones.
fn bones_js(model: &kiln::format::Model) -> JsValue {
    let bones = Array::new();
    for b in &model.bones {
        let e = Object::new();
        set(&e, "name", &JsValue::from_str(&b.name));
        set(&e, "parent", &JsValue::from(b.parent));
        bones.push(&e);
    }
    bones.into()
}

/// What a viewer draws, the way an engine does: the `.mesh` (kiln or classic layout) with its
/// `.clip`s (an array of `Uint8Array`) and, for a classic `.mesh`, the text of its `.xml` (the
/// materials; a kiln-layout `.mesh` holds its own) baked into the bone-matrix texture (`kiln bake`'s, with
/// one bind-pose frame when there are no clips). Returns `{ parts: [{ name, material, diffuse
/// (RGBA), vertices: Float32Array (19 floats a vertex, the .mesh's 76-byte layout: position, uv,
/// normal, tangent, blend indices, blend weights), indices: Uint32Array }], bones: [{ name,
/// parent }], bounds: { min, max } (the box `kiln preview --frames 0` frames: every vertex
/// skinned at frame 0 of every clip), bake: { width, height, layers, boneCount, frameCounts,
/// frameRates, clipNames, texels: Float32Array } }`, texels RGBA, layer by layer, row by row
/// (`docs/animation.md`: texel `4b + r` of row `f` is row `r` of bone `b`'s matrix at frame
/// `f`). Blend shapes are not applied.
#[wasm_bindgen(unchecked_return_type = "ViewData")]
pub fn view(
    mesh: &[u8],
    #[wasm_bindgen(unchecked_param_type = "Uint8Array[]")] clips: Array,
    xml: Option<String>,
) -> Result<JsValue, JsError> {
    guarded(|| {
        let clip_bytes: Vec<Vec<u8>> = clips
            .iter()
            .map(|c| c.dyn_into::<Uint8Array>().map(|a| a.to_vec()))
            .collect::<Result<_, _>>()
            .map_err(|_| "view: every clip must be a Uint8Array".to_string())?;
        let MeshFile { model, stored } = read_mesh(mesh).map_err(|e| format!(".mesh: {e}"))?;
        let (offsets, materials) = match stored {
            Some(stored) => stored,
            None => {
                let materials = match xml.as_deref() {
                    Some(text) => {
                        kiln::format::xml::read_materials(text).map_err(|e| format!(".xml: {e}"))?
                    }
                    None => Vec::new(),
                };
                (kiln::anim::classic_offsets(&model).offsets, materials)
            }
        };
        let clips = clip_bytes
            .iter()
            .enumerate()
            .map(|(i, b)| read_clip(b).map_err(|e| format!("clip {i}: {e}")))
            .collect::<Result<Vec<_>, _>>()?;
        let options = kiln::anim::baked::ModelBakeOptions {
            bind_pose_without_clips: true,
            ..kiln::anim::baked::ModelBakeOptions::texture(Default::default())
        };
        let baked = kiln::anim::bake_model(&model, &offsets, &clips, &options)
            .map_err(|e| format!("bake: {e}"))?;
        let out = Object::new();
        let parts = Array::new();
        let (mut lo, mut hi) = ([f32::INFINITY; 3], [f32::NEG_INFINITY; 3]);
        for p in &model.meshes {
            let e = Object::new();
            set(&e, "name", &JsValue::from_str(&p.name));
            set(&e, "material", &JsValue::from_str(&p.material_name));
            let diffuse = materials
                .iter()
                .find(|m| m.name == p.material_name)
                .map_or([0.8, 0.8, 0.8, 1.0], |m| m.diffuse);
            let c: Array = diffuse.iter().map(|&x| JsValue::from(x)).collect();
            set(&e, "diffuse", &c.into());
            let floats: &[f32] = bytemuck::cast_slice(&p.vertices);
            set(&e, "vertices", &js_sys::Float32Array::from(floats).into());
            set(
                &e,
                "indices",
                &js_sys::Uint32Array::from(&p.indices[..]).into(),
            );
            parts.push(&e);
        }
        set(&out, "parts", &parts.into());
        // The box `kiln preview --frames 0` frames: every vertex, skinned at frame 0 of every
        // clip (kiln-anim's CPU skinning).
        let b = &baked.bake;
        let mut pal = vec![glam::Mat4::ZERO; b.bone_count as usize];
        let mut positions = Vec::new();
        for clip in 0..b.layers as usize {
            kiln::anim::palette(b, clip, 0.0, kiln::anim::sample::Wrap::Clamp, &mut pal)
                .map_err(|e| format!("palette: {e}"))?;
            for p in &model.meshes {
                positions.clear();
                positions.resize(p.vertices.len(), [0f32; 3]);
                kiln::anim::skin::skin_positions(&pal, &p.vertices, &mut positions)
                    .map_err(|e| format!("skinning: {e}"))?;
                for q in positions.iter().filter(|q| q.iter().all(|x| x.is_finite())) {
                    for k in 0..3 {
                        lo[k] = lo[k].min(q[k]);
                        hi[k] = hi[k].max(q[k]);
                    }
                }
            }
        }
        set(&out, "bones", &bones_js(&model));
        let bounds = Object::new();
        let v3 = |a: [f32; 3]| -> JsValue {
            Array::of3(&a[0].into(), &a[1].into(), &a[2].into()).into()
        };
        set(&bounds, "min", &v3(lo));
        set(&bounds, "max", &v3(hi));
        set(&out, "bounds", &bounds.into());
        let bake = Object::new();
        set(&bake, "width", &JsValue::from(b.width));
        set(&bake, "height", &JsValue::from(b.height));
        set(&bake, "layers", &JsValue::from(b.layers));
        set(&bake, "boneCount", &JsValue::from(b.bone_count));
        let list = |v: Vec<JsValue>| -> JsValue { v.into_iter().collect::<Array>().into() };
        set(
            &bake,
            "frameCounts",
            &list(b.frame_counts.iter().map(|&n| n.into()).collect()),
        );
        set(
            &bake,
            "frameRates",
            &list(b.frame_rates.iter().map(|&r| r.into()).collect()),
        );
        set(
            &bake,
            "clipNames",
            &list(b.clip_names.iter().map(|n| JsValue::from_str(n)).collect()),
        );
        let texels: Vec<f32> = b.texels.iter().flatten().copied().collect();
        set(
            &bake,
            "texels",
            &js_sys::Float32Array::from(&texels[..]).into(),
        );
        set(&out, "bake", &bake.into());
        Ok(out.into())
    })
}

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
