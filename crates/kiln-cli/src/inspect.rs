//! `kiln inspect FILE [--json]`: describes a `.mesh` or `.clip` in either layout, or a model
//! file (`.fbx`, `.obj`; see [`model`]).
//!
//! The file is memory-mapped; what it is comes from the loader (`kiln::load::FileKind`: the
//! kiln layout by its magic, validated with `MeshView`/`ClipView` and its checksum verified;
//! otherwise the classic layout by its extension, or a model file by its extension). The report
//! is built once as JSON and printed either as JSON or as text.

mod model;

use std::fs::File;
use std::path::Path;
use std::process::ExitCode;

use anyhow::{Context, Result, bail};
use kiln::format::kiln::{ClipView, Directions, Indices, MeshView, Positions, TexCoords, Weights};
use kiln::format::{Clip, Model, classic};
use kiln::load::FileKind;
use serde_json::{Value, json};

use crate::output::outln;

/// Bytes per vertex of the kiln layout's streams for each encoding.
const FULL_VERTEX: u64 = 12 + 12 + 12 + 8 + 8 + 16;
const QUANTIZED_VERTEX: u64 = 12 + 4 + 4 + 4 + 8 + 4;
const QUANTIZED_POSITIONS_VERTEX: u64 = 8 + 4 + 4 + 4 + 8 + 4;
/// Bytes of one classic vertex.
const CLASSIC_VERTEX: u64 = 76;

pub fn run(path: &Path, json_out: bool) -> ExitCode {
    match inspect(path) {
        Ok(report) => {
            if json_out {
                outln!(
                    "{}",
                    serde_json::to_string_pretty(&report).unwrap_or_default()
                );
            } else {
                print_text(&report);
            }
            if report["checksum"]["ok"] == json!(false) {
                crate::output::errln!("kiln: error: {}: checksum mismatch", path.display());
                return ExitCode::FAILURE;
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            crate::output::errln!("kiln: error: {}: {e:#}", path.display());
            ExitCode::FAILURE
        }
    }
}

/// Maps the file read-only. An empty file gives an empty slice (mapping 0 bytes fails).
fn map(path: &Path) -> Result<Option<memmap2::Mmap>> {
    let file = File::open(path).context("cannot open")?;
    let meta = file.metadata().context("cannot stat")?;
    if meta.is_dir() {
        bail!("is a folder, not a file");
    }
    let len = meta.len();
    if len == 0 {
        return Ok(None);
    }
    // SAFETY: the map is read-only and private to this process; kiln writes its outputs through
    // a rename, so a file being inspected is not rewritten in place by kiln. If another program
    // truncates it meanwhile, reading may fault (SIGBUS), as with any mapped file.
    let map = unsafe { memmap2::Mmap::map(&file) }.context("cannot map")?;
    Ok(Some(map))
}

fn inspect(path: &Path) -> Result<Value> {
    let map = map(path)?;
    let bytes: &[u8] = map.as_deref().unwrap_or_default();
    let file = path.display().to_string();
    let mut report = match FileKind::of(path, bytes) {
        FileKind::KilnMesh => kiln_mesh(bytes)?,
        FileKind::KilnClip => kiln_clip(bytes)?,
        FileKind::ClassicMesh => classic_mesh(&classic::read_mesh(bytes).context("classic .mesh")?),
        FileKind::ClassicClip => classic_clip(&classic::read_clip(bytes).context("classic .clip")?),
        FileKind::Model(format) => model::report(path, format)?,
        FileKind::Unknown => bail!(
            "not a model file (.fbx, .obj), not a kiln file, and not named .mesh or .clip to be \
             read as classic"
        ),
    };
    report["file"] = json!(file);
    report["size"] = json!(bytes.len());
    Ok(report)
}

fn sections(s: kiln::format::kiln::Sections<'_>) -> Value {
    s.map(|s| {
        json!({
            "kind": s.kind,
            "name": s.kind_name().unwrap_or("unknown"),
            "offset": s.offset,
            "length": s.length,
            "element_size": s.element_size,
            "count": s.count,
        })
    })
    .collect()
}

fn saving(vertices: u64, stored: u64) -> Value {
    let pct = |b: u64| {
        if vertices == 0 {
            0.0
        } else {
            100.0 * (1.0 - b as f64 / (vertices * FULL_VERTEX) as f64)
        }
    };
    json!({
        "vertex_stream_bytes": stored,
        "unquantized_bytes": vertices * FULL_VERTEX,
        "quantize_bytes": vertices * QUANTIZED_VERTEX,
        "quantize_saving_percent": round1(pct(vertices * QUANTIZED_VERTEX)),
        "quantize_positions_bytes": vertices * QUANTIZED_POSITIONS_VERTEX,
        "quantize_positions_saving_percent": round1(pct(vertices * QUANTIZED_POSITIONS_VERTEX)),
        "this_file_saving_percent": round1(pct(stored)),
    })
}

fn round1(v: f64) -> f64 {
    (v * 10.0).round() / 10.0
}

/// A float as JSON in its shortest form (`0.1`, not `0.10000000149011612`; `-0` as `0`), `null`
/// when it is not finite.
fn num(x: f32) -> Value {
    (x + 0.0)
        .to_string()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .map_or(Value::Null, Value::from)
}

/// `{"min": [x, y, z], "max": [x, y, z]}` over `positions` (NaN coordinates left out), `null`
/// when there is none.
fn bounds(positions: impl IntoIterator<Item = [f32; 3]>) -> Value {
    let mut min = [f32::INFINITY; 3];
    let mut max = [f32::NEG_INFINITY; 3];
    let mut any = false;
    for p in positions {
        any = true;
        for a in 0..3 {
            min[a] = min[a].min(p[a]);
            max[a] = max[a].max(p[a]);
        }
    }
    if !any {
        return Value::Null;
    }
    json!({ "min": min.map(num), "max": max.map(num) })
}

fn kiln_mesh(bytes: &[u8]) -> Result<Value> {
    let view = MeshView::parse(bytes).context("kiln .mesh")?;
    let (major, minor) = view.version();
    let checksum_ok = view.verify_checksum().is_ok();
    let encoding = json!({
        "positions": match view.positions() { Positions::F32(_) => "f32x3", Positions::Unorm16 { .. } => "unorm16x4" },
        "normals": match view.normals() { Directions::F32(_) => "f32x3", Directions::Oct16(_) => "oct snorm16x2" },
        "tangents": match view.tangents() { Directions::F32(_) => "f32x3", Directions::Oct16(_) => "oct snorm16x2" },
        "uvs": match view.uvs() { TexCoords::F32(_) => "f32x2", TexCoords::Unorm16 { .. } => "unorm16x2" },
        "joints": "u16x4",
        "weights": match view.weights() { Weights::F32(_) => "f32x4", Weights::Unorm8(_) => "unorm8x4" },
        "indices": match view.indices() { Indices::U16(_) => "u16", Indices::U32(_) => "u32" },
    });
    let stream_bytes: u64 = view
        .sections()
        .filter(|s| (0x110..0x120).contains(&s.kind))
        .map(|s| s.length)
        .sum();
    let vertices = view.vertex_count() as u64;
    let positions = view.positions();
    let bounds = bounds((0..positions.len()).filter_map(|i| positions.get(i)));
    let bones: Vec<Value> = view
        .bones()
        .map(|b| json!({"index": b.index, "parent": b.parent, "name": b.name}))
        .collect();
    let parts: Vec<Value> = view
        .parts()
        .enumerate()
        .map(|(i, p)| {
            // 1.1: the part's morph targets, each with its shapes' full weights and offsets.
            let targets: Vec<Value> = view
                .part_morph_targets(i as u32)
                .iter()
                .map(|t| {
                    let shapes = view
                        .morph_shape_records()
                        .get(t.first_shape as usize..(t.first_shape + t.shape_count) as usize)
                        .unwrap_or_default();
                    json!({
                        "name": view.string(t.name),
                        "default_weight": t.default_weight,
                        "full_weights": shapes.iter().map(|s| s.full_weight).collect::<Vec<_>>(),
                        "offsets": shapes.iter().map(|s| s.offset_count).sum::<u32>(),
                    })
                })
                .collect();
            json!({
                "name": p.name,
                "material": p.material_name,
                "material_index": p.material,
                "bone": p.bone,
                "vertices": [p.vertices.start, p.vertices.end],
                "indices": [p.indices.start, p.indices.end],
                "triangles": (p.indices.end - p.indices.start) / 3,
                "morph_targets": targets,
            })
        })
        .collect();
    let materials: Vec<Value> = view
        .materials()
        .map(|m| {
            json!({
                "name": m.name,
                "diffuse_texture": m.diffuse_texture,
                "specular_texture": m.specular_texture,
                "normal_texture": m.normal_texture,
            })
        })
        .collect();
    Ok(json!({
        "layout": "kiln",
        "type": "mesh",
        "version": format!("{major}.{minor}"),
        "checksum": { "stored": format!("{:016x}", view.stored_checksum()), "algorithm": "xxh3-64", "ok": checksum_ok },
        "joints_ok": view.check_joints().is_ok(),
        "sections": sections(view.sections()),
        "counts": {
            "bones": view.bone_records().len(),
            "parts": view.part_records().len(),
            "materials": view.material_records().len(),
            "textures": view.texture_records().len(),
            "vertices": vertices,
            "indices": view.index_count(),
            "triangles": view.index_count() / 3,
        },
        "bounds": bounds,
        "encoding": encoding,
        "quantization": view.quantization().map(|q| json!({
            "position_min": &q.position_min[..3], "position_extent": &q.position_extent[..3],
            "uv_min": q.uv_min, "uv_extent": q.uv_extent,
        })),
        "size_saving": saving(vertices, stream_bytes),
        "bones": bones,
        "parts": parts,
        "materials": materials,
        "textures": view.textures().collect::<Vec<_>>(),
    }))
}

fn kiln_clip(bytes: &[u8]) -> Result<Value> {
    let view = ClipView::parse(bytes).context("kiln .clip")?;
    let (major, minor) = view.version();
    Ok(json!({
        "layout": "kiln",
        "type": "clip",
        "version": format!("{major}.{minor}"),
        "checksum": { "stored": format!("{:016x}", view.stored_checksum()), "algorithm": "xxh3-64", "ok": view.verify_checksum().is_ok() },
        "sections": sections(view.sections()),
        "clip": {
            "name": view.name(),
            "duration": view.duration(),
            "frame_rate": view.frame_rate(),
            "frames": view.frame_count(),
            "tracks": view.track_count(),
            "bytes_per_frame": view.track_count() as u64 * 40,
        },
        "tracks": view.track_names().collect::<Vec<_>>(),
    }))
}

fn classic_mesh(model: &Model) -> Value {
    let vertices: u64 = model.meshes.iter().map(|m| m.vertices.len() as u64).sum();
    let indices: u64 = model.meshes.iter().map(|m| m.indices.len() as u64).sum();
    json!({
        "layout": "classic",
        "type": "mesh",
        "checksum": Value::Null,
        "counts": {
            "bones": model.bones.len(),
            "parts": model.meshes.len(),
            "vertices": vertices,
            "indices": indices,
            "triangles": indices / 3,
        },
        "bounds": bounds(model.meshes.iter().flat_map(|m| m.vertices.iter().map(|v| v.position))),
        "size_saving": saving(vertices, vertices * CLASSIC_VERTEX),
        "bones": model.bones.iter().map(|b| json!({"index": b.index, "parent": b.parent, "name": b.name})).collect::<Vec<_>>(),
        "parts": model.meshes.iter().map(|m| json!({
            "name": m.name,
            "material": m.material_name,
            "bone": m.bone_index,
            "vertex_count": m.vertices.len(),
            "triangles": m.indices.len() / 3,
        })).collect::<Vec<_>>(),
    })
}

fn classic_clip(clip: &Clip) -> Value {
    json!({
        "layout": "classic",
        "type": "clip",
        "checksum": Value::Null,
        "clip": {
            "name": clip.name,
            "duration": clip.duration,
            "frame_rate": clip.frame_rate,
            "frames": clip.frame_count,
            "tracks": clip.tracks.len(),
        },
        "tracks": clip.tracks.iter().map(|t| json!({"bone": t.bone_name, "keyframes": t.keyframes.len()})).collect::<Vec<_>>(),
    })
}

/// A report value as text: strings without quotes, `-` for null.
fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "-".into(),
        other => other.to_string(),
    }
}

/// `bounds: min (x, y, z) max (x, y, z)`, or `bounds: - (no vertex)`.
fn print_bounds(b: &Value) {
    let point = |p: &Value| {
        p.as_array()
            .map(|a| a.iter().map(text).collect::<Vec<_>>().join(", "))
            .unwrap_or_default()
    };
    if b.is_null() {
        outln!("bounds: - (no vertex)");
    } else {
        outln!(
            "bounds: min ({}) max ({})",
            point(&b["min"]),
            point(&b["max"])
        );
    }
}

/// The same report as text.
fn print_text(r: &Value) {
    if r["type"] == "model" {
        model::print_text(r);
        return;
    }
    let s = text;
    outln!(
        "{}: {} {} layout{}, {} bytes",
        s(&r["file"]),
        s(&r["type"]),
        s(&r["layout"]),
        r.get("version")
            .map(|v| format!(" version {}", s(v)))
            .unwrap_or_default(),
        s(&r["size"])
    );
    if let Some(c) = r["checksum"].as_object() {
        outln!(
            "checksum: {} {} ({})",
            s(&c["algorithm"]),
            s(&c["stored"]),
            if c["ok"] == json!(true) {
                "ok"
            } else {
                "MISMATCH"
            }
        );
    }
    if let Some(secs) = r["sections"].as_array() {
        outln!("sections ({}):", secs.len());
        outln!(
            "  {:<18} {:>10} {:>12} {:>6} {:>10}",
            "kind",
            "offset",
            "length",
            "size",
            "count"
        );
        for sec in secs {
            outln!(
                "  {:<18} {:>10} {:>12} {:>6} {:>10}",
                s(&sec["name"]),
                s(&sec["offset"]),
                s(&sec["length"]),
                s(&sec["element_size"]),
                s(&sec["count"])
            );
        }
    }
    if let Some(c) = r["counts"].as_object() {
        let line: Vec<String> = c.iter().map(|(k, v)| format!("{} {k}", s(v))).collect();
        outln!("counts: {}", line.join(", "));
    }
    if let Some(b) = r.get("bounds") {
        print_bounds(b);
    }
    if let Some(e) = r.get("encoding").and_then(Value::as_object) {
        let line: Vec<String> = e.iter().map(|(k, v)| format!("{k} {}", s(v))).collect();
        outln!("streams: {}", line.join(", "));
    }
    if let Some(q) = r.get("quantization").filter(|q| !q.is_null()) {
        outln!("quantization bounds: {q}");
    }
    if let Some(sv) = r.get("size_saving").and_then(Value::as_object) {
        outln!(
            "vertex streams: {} bytes here; kiln f32 {} bytes, --quantize {} bytes (-{}%), \
             --quantize-positions {} bytes (-{}%)",
            s(&sv["vertex_stream_bytes"]),
            s(&sv["unquantized_bytes"]),
            s(&sv["quantize_bytes"]),
            s(&sv["quantize_saving_percent"]),
            s(&sv["quantize_positions_bytes"]),
            s(&sv["quantize_positions_saving_percent"])
        );
    }
    if let Some(bones) = r.get("bones").and_then(Value::as_array) {
        outln!("bones ({}):", bones.len());
        for b in bones {
            outln!(
                "  {:>4} parent {:>4}  {}",
                s(&b["index"]),
                s(&b["parent"]),
                s(&b["name"])
            );
        }
    }
    if let Some(parts) = r.get("parts").and_then(Value::as_array) {
        outln!("parts ({}):", parts.len());
        for p in parts {
            let verts = match &p["vertices"] {
                Value::Array(a) if a.len() == 2 => format!("vertices {}..{}", s(&a[0]), s(&a[1])),
                _ => format!("{} vertices", s(&p["vertex_count"])),
            };
            outln!(
                "  {}  material {}  bone {}  {verts}  {} triangles",
                s(&p["name"]),
                s(&p["material"]),
                s(&p["bone"]),
                s(&p["triangles"])
            );
            for t in p["morph_targets"].as_array().into_iter().flatten() {
                outln!(
                    "    morph target {}  rest weight {}  full weights {}  {} offsets",
                    s(&t["name"]),
                    s(&t["default_weight"]),
                    t["full_weights"],
                    s(&t["offsets"])
                );
            }
        }
    }
    if let Some(mats) = r.get("materials").and_then(Value::as_array) {
        outln!("materials ({}):", mats.len());
        for m in mats {
            outln!(
                "  {}  diffuse {}  specular {}  normal {}",
                s(&m["name"]),
                s(&m["diffuse_texture"]),
                s(&m["specular_texture"]),
                s(&m["normal_texture"])
            );
        }
    }
    if let Some(c) = r.get("clip").and_then(Value::as_object) {
        outln!(
            "clip {}: {} frames at {} fps (duration {} frames), {} tracks",
            s(&c["name"]),
            s(&c["frames"]),
            s(&c["frame_rate"]),
            s(&c["duration"]),
            s(&c["tracks"])
        );
        if let Some(t) = r.get("tracks").and_then(Value::as_array) {
            for (i, tr) in t.iter().enumerate() {
                match tr {
                    Value::String(name) => outln!("  track {i}: {name}"),
                    other => outln!(
                        "  track {i}: {} ({} keyframes)",
                        s(&other["bone"]),
                        s(&other["keyframes"])
                    ),
                }
            }
        }
    }
}
