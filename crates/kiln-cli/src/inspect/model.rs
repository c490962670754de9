//! `kiln inspect` on a model file (`.fbx`, `.obj`): the scene as the file authored it (nodes,
//! meshes, materials, skins, animations), and what `kiln convert` makes of it (the engine
//! model's counts, bounds, parts and clips) with every warning and its code.
//!
//! The file is imported once; a copy of the scene is processed and extracted as `kiln::load`
//! does, so the second half is exactly what a conversion with default options holds.

use std::collections::HashSet;
use std::path::Path;

use anyhow::{Context, Result, anyhow};
use kiln::load::{InputFormat, LoadOptions, TextureSource, from_scene, import_file};
use kiln::scene::{PrimitiveTypes, Scene, TextureKind, Warning};
use serde_json::{Value, json};

use super::{bounds, num};
use crate::output::outln;

/// Nodes the text report lists (all of them are in the JSON).
const TEXT_NODES: usize = 40;

/// The report of the model file at `path`.
pub fn report(path: &Path, format: InputFormat) -> Result<Value> {
    let scene = import_file(path).map_err(|e| anyhow!("{}", e.reason()))?;
    let mut processed = scene.clone();
    let options = LoadOptions::default();
    kiln::load::process_for_engine(&mut processed, &options).context("processing")?;
    // Triangles per mesh after Triangulate (meshes keep their order and count without
    // PreTransformVertices).
    let triangles: Vec<usize> = processed
        .meshes
        .iter()
        .map(|m| m.face_sizes.iter().filter(|&&n| n == 3).count())
        .collect();
    let loaded = from_scene(processed, path, &options);
    let mut warnings = loaded.warnings.clone();

    let mut materials = Vec::new();
    let mut looked_for = HashSet::new();
    for m in loaded.materials.iter().flatten() {
        let slots = [
            ("diffuse", &m.diffuse),
            ("specular", &m.specular),
            ("normal", &m.normal),
        ];
        let mut textures = Vec::new();
        for (slot, tex) in slots {
            let Some(tex) = tex else { continue };
            let found = loaded.texture_bytes(tex);
            // The warning `kiln convert` gives, once per file name as it copies each once.
            if let Err(why) = &found {
                if looked_for.insert(tex.file_name().to_string()) {
                    warnings.push(
                        Warning::new(kiln::codes::TEXTURE_MISSING, why.to_string())
                            .at(tex.file_name()),
                    );
                }
            }
            let (written, embedded) = match tex {
                TextureSource::Scene(t) => (t.path.clone(), t.embedded.is_some()),
                TextureSource::Beside(name) => (name.clone(), false),
            };
            textures.push(json!({
                "slot": slot,
                "path": written,
                "file": tex.file_name(),
                "embedded": embedded,
                "found": found.is_ok(),
            }));
        }
        materials.push(json!({
            "name": m.data.name,
            "diffuse_color": m.data.diffuse[..3].iter().map(|&x| num(x)).collect::<Vec<_>>(),
            "textures": textures,
        }));
    }

    let model = &loaded.model;
    let vertices: usize = model.meshes.iter().map(|p| p.vertices.len()).sum();
    let indices: usize = model.meshes.iter().map(|p| p.indices.len()).sum();
    let skins: Vec<Value> = scene
        .meshes
        .iter()
        .enumerate()
        .filter(|(_, m)| !m.bones.is_empty())
        .map(|(i, m)| {
            json!({
                "mesh": i,
                "name": m.name,
                "bones": m.bones.len(),
                "weights": m.bones.iter().map(|b| b.weights.len()).sum::<usize>(),
            })
        })
        .collect();
    let skin_bones: HashSet<&str> = scene
        .meshes
        .iter()
        .flat_map(|m| m.bones.iter().map(|b| b.name.as_str()))
        .collect();
    let md = &scene.metadata;
    Ok(json!({
        "type": "model",
        "format": match format { InputFormat::Obj => "obj", InputFormat::Fbx => "fbx" },
        "metadata": {
            "source_format": md.source_format,
            "application": md.application,
            "unit_scale_factor": md.unit_scale_factor,
            "frame_rate": md.frame_rate,
        },
        "scene": {
            "nodes": scene.nodes.len(),
            "meshes": scene.meshes.len(),
            "vertices": scene.meshes.iter().map(|m| m.positions.len()).sum::<usize>(),
            "faces": scene.meshes.iter().map(|m| m.face_count()).sum::<usize>(),
            "materials": scene.materials.len(),
            "embedded_textures": scene.textures.len(),
            "skins": skins.len(),
            "skin_bones": skin_bones.len(),
            "animations": scene.animations.len(),
        },
        "counts": {
            "bones": model.bones.len(),
            "parts": model.meshes.len(),
            "vertices": vertices,
            "triangles": indices / 3,
            "materials": materials.len(),
            "clips": loaded.clips.len(),
        },
        "bounds": bounds(model.meshes.iter().flat_map(|p| p.vertices.iter().map(|v| v.position))),
        "nodes": nodes(&scene),
        "meshes": scene.meshes.iter().enumerate().map(|(i, m)| json!({
            "index": i,
            "name": m.name,
            "material": scene.materials.get(m.material).map(|x| x.name.as_str()),
            "vertices": m.positions.len(),
            "faces": m.face_count(),
            "triangles": triangles.get(i),
            "primitives": primitives(m.primitive_types),
            "normals": !m.normals.is_empty(),
            "uv_channels": m.uv_channels.len(),
            "skin_bones": m.bones.len(),
        })).collect::<Vec<_>>(),
        "materials": materials,
        "source_materials": scene.materials.iter().map(|m| json!({
            "name": m.name,
            "textures": m.textures.iter().map(|t| json!({
                "kind": kind(t.kind),
                "path": t.path,
                "embedded": t.embedded.is_some(),
            })).collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
        "skins": skins,
        "animations": scene.animations.iter().map(|a| json!({
            "name": a.name,
            "duration_ticks": a.duration,
            "ticks_per_second": a.ticks_per_second,
            "seconds": (a.ticks_per_second > 0.0).then(|| a.duration / a.ticks_per_second),
            "channels": a.channels.len(),
        })).collect::<Vec<_>>(),
        "parts": model.meshes.iter().map(|p| json!({
            "name": p.name,
            "material": p.material_name,
            "bone": p.bone_index,
            "vertex_count": p.vertices.len(),
            "triangles": p.indices.len() / 3,
        })).collect::<Vec<_>>(),
        "clips": loaded.clips.iter().zip(&loaded.clip_files).map(|(c, file)| json!({
            "name": c.name,
            "file": file,
            "frames": c.frame_count,
            "frame_rate": num(c.frame_rate),
            "duration": num(c.duration),
            "tracks": c.tracks.len(),
        })).collect::<Vec<_>>(),
        "warnings": warnings.iter().map(|w| json!({
            "code": w.code,
            "message": w.message,
            "location": w.location,
        })).collect::<Vec<_>>(),
    }))
}

/// The nodes depth first from the root, each with its depth.
fn nodes(scene: &Scene) -> Vec<Value> {
    let mut out = Vec::with_capacity(scene.nodes.len());
    let mut seen = vec![false; scene.nodes.len()];
    let mut stack: Vec<(usize, usize)> = if scene.nodes.is_empty() {
        Vec::new()
    } else {
        vec![(0, 0)]
    };
    while let Some((i, depth)) = stack.pop() {
        // A scene breaking its invariants (a cycle) cannot loop.
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        let n = &scene.nodes[i];
        out.push(json!({
            "index": i,
            "name": n.name,
            "parent": n.parent,
            "depth": depth,
            "meshes": n.meshes,
        }));
        for &c in n.children.iter().rev() {
            if c < scene.nodes.len() {
                stack.push((c, depth + 1));
            }
        }
    }
    out
}

fn primitives(p: PrimitiveTypes) -> Vec<&'static str> {
    [
        (PrimitiveTypes::POINT, "points"),
        (PrimitiveTypes::LINE, "lines"),
        (PrimitiveTypes::TRIANGLE, "triangles"),
        (PrimitiveTypes::POLYGON, "polygons"),
    ]
    .into_iter()
    .filter(|&(bit, _)| p.contains(bit))
    .map(|(_, name)| name)
    .collect()
}

fn kind(k: TextureKind) -> &'static str {
    match k {
        TextureKind::Diffuse => "diffuse",
        TextureKind::Specular => "specular",
        TextureKind::Ambient => "ambient",
        TextureKind::Emissive => "emissive",
        TextureKind::Height => "height",
        TextureKind::Normals => "normals",
        TextureKind::Shininess => "shininess",
        TextureKind::Opacity => "opacity",
        TextureKind::Displacement => "displacement",
        TextureKind::Reflection => "reflection",
        TextureKind::Unknown => "unknown",
    }
}

/// The report of a model file as text.
pub fn print_text(r: &Value) {
    let s = super::text;
    let count_line = |c: &Value| {
        c.as_object()
            .map(|c| {
                c.iter()
                    .map(|(k, v)| format!("{} {}", s(v), k.replace('_', " ")))
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default()
    };
    outln!(
        "{}: {} model, {} bytes",
        s(&r["file"]),
        s(&r["format"]).to_ascii_uppercase(),
        s(&r["size"])
    );
    let md = &r["metadata"];
    if !md["application"].is_null() || !md["unit_scale_factor"].is_null() {
        outln!(
            "written by: {}; unit scale {}; frame rate {}",
            s(&md["application"]),
            s(&md["unit_scale_factor"]),
            s(&md["frame_rate"])
        );
    }
    outln!("scene: {}", count_line(&r["scene"]));
    outln!("converted: {}", count_line(&r["counts"]));
    super::print_bounds(&r["bounds"]);
    let list = |key: &str| r[key].as_array().map(Vec::as_slice).unwrap_or_default();
    let nodes = list("nodes");
    outln!("nodes ({}):", nodes.len());
    for n in nodes.iter().take(TEXT_NODES) {
        let depth = n["depth"].as_u64().unwrap_or(0) as usize;
        let meshes = match n["meshes"].as_array() {
            Some(m) if !m.is_empty() => format!(
                "  meshes {}",
                m.iter().map(s).collect::<Vec<_>>().join(", ")
            ),
            _ => String::new(),
        };
        outln!(
            "  {:indent$}{}{meshes}",
            "",
            s(&n["name"]),
            indent = 2 * depth
        );
    }
    if nodes.len() > TEXT_NODES {
        outln!("  … {} more (all in --json)", nodes.len() - TEXT_NODES);
    }
    let meshes = list("meshes");
    outln!("meshes ({}):", meshes.len());
    for m in meshes {
        let prims: Vec<String> = m["primitives"]
            .as_array()
            .map(|p| p.iter().map(s).collect())
            .unwrap_or_default();
        outln!(
            "  {} '{}'  material {}  {} vertices, {} faces ({}) -> {} triangles{}",
            s(&m["index"]),
            s(&m["name"]),
            s(&m["material"]),
            s(&m["vertices"]),
            s(&m["faces"]),
            prims.join(", "),
            s(&m["triangles"]),
            match m["skin_bones"].as_u64() {
                Some(n) if n > 0 => format!(", skinned to {n} bones"),
                _ => String::new(),
            }
        );
    }
    let materials = list("materials");
    outln!("materials ({}):", materials.len());
    for m in materials {
        let textures: Vec<String> = m["textures"]
            .as_array()
            .map(|t| {
                t.iter()
                    .map(|t| {
                        format!(
                            "{} {}{}",
                            s(&t["slot"]),
                            s(&t["path"]),
                            if t["embedded"] == json!(true) {
                                " (embedded)"
                            } else if t["found"] == json!(true) {
                                ""
                            } else {
                                " (not found)"
                            }
                        )
                    })
                    .collect()
            })
            .unwrap_or_default();
        outln!(
            "  {}{}",
            s(&m["name"]),
            if textures.is_empty() {
                "  no textures".to_string()
            } else {
                format!("  {}", textures.join("  "))
            }
        );
    }
    let skins = list("skins");
    if !skins.is_empty() {
        outln!("skins ({}):", skins.len());
        for k in skins {
            outln!(
                "  mesh {} '{}': {} bones, {} weights",
                s(&k["mesh"]),
                s(&k["name"]),
                s(&k["bones"]),
                s(&k["weights"])
            );
        }
    }
    let animations = list("animations");
    if !animations.is_empty() {
        outln!("animations ({}):", animations.len());
        for a in animations {
            outln!(
                "  '{}': {} ticks at {} ticks/s ({} s), {} channels",
                s(&a["name"]),
                s(&a["duration_ticks"]),
                s(&a["ticks_per_second"]),
                s(&a["seconds"]),
                s(&a["channels"])
            );
        }
    }
    let clips = list("clips");
    if !clips.is_empty() {
        outln!("clips ({}):", clips.len());
        for c in clips {
            outln!(
                "  {}: '{}' {} frames at {} fps, {} tracks",
                s(&c["file"]),
                s(&c["name"]),
                s(&c["frames"]),
                s(&c["frame_rate"]),
                s(&c["tracks"])
            );
        }
    }
    let warnings = list("warnings");
    outln!("warnings ({}):", warnings.len());
    for w in warnings {
        outln!("  {}: {}", s(&w["code"]), s(&w["message"]));
    }
}
