//! Conformance with real Assimp 5.2 on every FBX of the Assimp test corpus, and on FBX files
//! kiln generates (the `kiln demo` sample, a skinned and animated character, a cube whose only
//! animation moves a blend shape's weight, an ASCII quad with `1.#INF`-style numbers, and the same with an array longer than
//! its `*N`).
//!
//! For each `.fbx` under `/usr/share/assimp/models`:
//! 1. **raw**: kiln's import must equal Assimp's raw import (`assimp dump FILE -b`, every float
//!    bit kept): node tree (names, parents, transforms, mesh references, the
//!    `$AssimpFbx$` helper nodes), per mesh the vertices, faces, normals, tangents,
//!    bitangents, UV and colour sets and material, bones (names, offset matrices, weights),
//!    animations (name, duration, ticks per second, channels and every key), materials
//!    (colours, shininess, opacity, `$raw.`/`$clr.` properties, texture paths) and the
//!    embedded textures' bytes;
//! 2. **processed**: after `Steps::ORIGINAL_TOOL`, the scene must equal
//!    `assimp dump FILE --left-handed -tri -guv --gen-normals -cts` in the same aspects, to
//!    1e-4 relative (the XML dump prints six decimals);
//! 3. **.mesh**: the classic file kiln writes, decoded by an independent reader, must equal
//!    what the original tool (faults fixed) extracts from Assimp's processed scene.
//!
//! The table goes to stdout and into `docs/conformance.md` between the `fbx` markers. A file
//! that differs fails the test unless `EXPLAINED` gives the reason.

use std::path::Path;

use kiln::load::{LoadOptions, process_for_engine};
use kiln::scene::{PropertyValue, Scene, Vec3};
use kiln_testkit::{assbin, assimp, assxml, classic, compare, corpus, fixtures, report};

const FLAGS: &[&str] = &["--left-handed", "-tri", "-guv", "--gen-normals", "-cts"];

/// Files where kiln deliberately does not match Assimp, and why (path relative to the corpus).
const EXPLAINED: &[(&str, &str)] = &[];

/// Assimp bugs kiln does not copy: the file, why, and how to turn kiln's raw import into what
/// Assimp reads, so that the rest of the file is still compared exactly.
type Quirk = (&'static str, &'static str, fn(&mut Scene));
const QUIRKS: &[Quirk] = &[
    (
        "FBX/cubes_with_outofrange_float.fbx",
        "Assimp 5.2 reads an ASCII number of more than 31 characters as 0 (`ParseTokenAsFloat`'s \
     `MAX_FLOAT_LENGTH`); the first vertex's x here is written with 78 digits, \
     -0.4999999701976788…, which kiln (like ufbx) reads as -0.49999997. With that value set to \
     0 in kiln's import, everything else matches",
        |s| {
            for m in &mut s.meshes {
                for p in &mut m.positions {
                    if p.x == -0.49999997 && p.y == -0.5 && p.z == 0.5 {
                        p.x = 0.0;
                    }
                }
            }
        },
    ),
    (
        "generated_morph_only_unranged.fbx",
        "a stack without LocalStart/LocalStop whose only curves move blend shape weights: Assimp \
     5.2 takes its length from node keys only, finds none and gives -2e10 ticks (1e10 - \
     (-1e10) the wrong way round); kiln takes the weight keys' span (30 ticks). With kiln's \
     duration set to Assimp's, everything else matches",
        |s| {
            for a in &mut s.animations {
                a.duration = -2e10;
            }
        },
    ),
];

use compare::{close, close_mat, close_quat as close_q, close3};

/// Bones of every mesh: names, offset matrices, weights.
fn compare_bones(ours: &Scene, theirs: &Scene) -> Result<(), String> {
    for (m, (a, b)) in ours.meshes.iter().zip(&theirs.meshes).enumerate() {
        if a.bones.len() != b.bones.len() {
            return Err(format!(
                "mesh {m}: {} bones, Assimp {}",
                a.bones.len(),
                b.bones.len()
            ));
        }
        for (ba, bb) in a.bones.iter().zip(&b.bones) {
            if ba.name != bb.name {
                return Err(format!(
                    "mesh {m}: bone {:?}, Assimp {:?}",
                    ba.name, bb.name
                ));
            }
            if !close_mat(&ba.offset_matrix, &bb.offset_matrix) {
                return Err(format!(
                    "mesh {m} bone {:?}: offset matrix {:?}, Assimp {:?}",
                    ba.name, ba.offset_matrix, bb.offset_matrix
                ));
            }
            if ba.weights.len() != bb.weights.len() {
                return Err(format!(
                    "mesh {m} bone {:?}: {} weights, Assimp {}",
                    ba.name,
                    ba.weights.len(),
                    bb.weights.len()
                ));
            }
            for (i, (wa, wb)) in ba.weights.iter().zip(&bb.weights).enumerate() {
                if wa.vertex != wb.vertex || !close(wa.weight, wb.weight) {
                    return Err(format!(
                        "mesh {m} bone {:?} weight {i}: {wa:?}, Assimp {wb:?}",
                        ba.name
                    ));
                }
            }
        }
    }
    Ok(())
}

/// Animations: names, durations, rates, channels and keys.
fn compare_animations(ours: &Scene, theirs: &Scene) -> Result<(), String> {
    if ours.animations.len() != theirs.animations.len() {
        return Err(format!(
            "{} animations, Assimp {}",
            ours.animations.len(),
            theirs.animations.len()
        ));
    }
    let near = |a: f64, b: f64| (a - b).abs() <= 1e-4 * 1f64.max(a.abs()).max(b.abs());
    for (a, b) in ours.animations.iter().zip(&theirs.animations) {
        if a.name != b.name
            || !near(a.duration, b.duration)
            || !near(a.ticks_per_second, b.ticks_per_second)
        {
            return Err(format!(
                "animation ({:?}, {} ticks, {}/s), Assimp ({:?}, {}, {})",
                a.name, a.duration, a.ticks_per_second, b.name, b.duration, b.ticks_per_second
            ));
        }
        if a.channels.len() != b.channels.len() {
            return Err(format!(
                "animation {:?}: {} channels, Assimp {}",
                a.name,
                a.channels.len(),
                b.channels.len()
            ));
        }
        for (ca, cb) in a.channels.iter().zip(&b.channels) {
            let at = |what: &str, i: usize| {
                format!(
                    "animation {:?} channel {:?} {what} key {i}",
                    a.name, ca.node_name
                )
            };
            if ca.node_name != cb.node_name {
                return Err(format!(
                    "animation {:?}: channel {:?}, Assimp {:?}",
                    a.name, ca.node_name, cb.node_name
                ));
            }
            let counts = |c: &kiln::scene::NodeChannel| {
                (
                    c.position_keys.len(),
                    c.rotation_keys.len(),
                    c.scaling_keys.len(),
                )
            };
            if counts(ca) != counts(cb) {
                return Err(format!(
                    "animation {:?} channel {:?}: (position, rotation, scaling) keys {:?}, Assimp {:?}",
                    a.name,
                    ca.node_name,
                    counts(ca),
                    counts(cb)
                ));
            }
            for (i, (x, y)) in ca.position_keys.iter().zip(&cb.position_keys).enumerate() {
                if !near(x.time, y.time) || !close3(x.value, y.value) {
                    return Err(format!("{}: {x:?}, Assimp {y:?}", at("position", i)));
                }
            }
            for (i, (x, y)) in ca.rotation_keys.iter().zip(&cb.rotation_keys).enumerate() {
                if !near(x.time, y.time) || !close_q(x.value, y.value) {
                    return Err(format!("{}: {x:?}, Assimp {y:?}", at("rotation", i)));
                }
            }
            for (i, (x, y)) in ca.scaling_keys.iter().zip(&cb.scaling_keys).enumerate() {
                if !near(x.time, y.time) || !close3(x.value, y.value) {
                    return Err(format!("{}: {x:?}, Assimp {y:?}", at("scaling", i)));
                }
            }
        }
    }
    Ok(())
}

fn value_close(a: &PropertyValue, b: &PropertyValue) -> bool {
    use PropertyValue as P;
    let f = |v: &P| -> Option<Vec<f64>> {
        match v {
            P::Float(x) => Some(vec![*x]),
            P::Int(x) => Some(vec![*x as f64]),
            P::Vector(x) => Some(x.clone()),
            P::String(_) => None,
        }
    };
    match (a, b) {
        (P::String(x), P::String(y)) => x == y,
        _ => match (f(a), f(b)) {
            (Some(x), Some(y)) => {
                x.len() == y.len() && x.iter().zip(&y).all(|(p, q)| close(*p as f32, *q as f32))
            }
            _ => false,
        },
    }
}

/// The material value Assimp stores under `key`, from kiln's material.
fn our_value(m: &kiln::scene::Material, key: &str) -> Option<PropertyValue> {
    let v3 = |v: Vec3| PropertyValue::Vector(vec![v.x as f64, v.y as f64, v.z as f64]);
    let f = |v: f32| PropertyValue::Float(v as f64);
    match key {
        "?mat.name" => Some(PropertyValue::String(m.name.clone())),
        "$clr.diffuse" => m.diffuse.map(v3),
        "$clr.ambient" => m.ambient.map(v3),
        "$clr.specular" => m.specular.map(v3),
        "$clr.emissive" => m.emissive.map(v3),
        "$mat.shininess" => m.shininess.map(f),
        "$mat.shinpercent" => m.shininess_strength.map(f),
        "$mat.opacity" => m.opacity.map(f),
        _ => m
            .properties
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.clone()),
    }
}

/// Materials against a dump whose properties are all in `properties` (raw `.assbin`): every
/// key kiln models must be there with the same value, and every key Assimp has that kiln
/// models must be in kiln's. Texture paths in order.
fn compare_materials_raw(ours: &Scene, theirs: &Scene) -> Result<(), String> {
    const MODELLED: &[&str] = &[
        "?mat.name",
        "$clr.diffuse",
        "$clr.ambient",
        "$clr.specular",
        "$clr.emissive",
        "$mat.shininess",
        "$mat.shinpercent",
        "$mat.opacity",
        "$clr.transparent",
        "$mat.transparencyfactor",
        "$clr.reflective",
        "$mat.reflectivity",
        "$mat.bumpscaling",
        "$mat.displacementscaling",
        "$mat.roughnessFactor",
    ];
    for (i, (a, b)) in ours.materials.iter().zip(&theirs.materials).enumerate() {
        let mut tex_theirs = Vec::new();
        for (key, v) in &b.properties {
            if key == "$tex.file" {
                if let PropertyValue::String(s) = v {
                    tex_theirs.push(s.clone());
                }
                continue;
            }
            if !(MODELLED.contains(&key.as_str()) || key.starts_with("$raw.")) {
                continue;
            }
            let Some(mine) = our_value(a, key) else {
                return Err(format!("material {i} {:?}: no {key}, Assimp {v:?}", a.name));
            };
            if !value_close(&mine, v) {
                return Err(format!(
                    "material {i} {:?}: {key} {mine:?}, Assimp {v:?}",
                    a.name
                ));
            }
        }
        for key in MODELLED {
            if our_value(a, key).is_some() && !b.properties.iter().any(|(k, _)| k == key) {
                return Err(format!(
                    "material {i} {:?}: kiln has {key}, Assimp not",
                    a.name
                ));
            }
        }
        let tex_ours: Vec<String> = a.textures.iter().map(|t| t.path.clone()).collect();
        if tex_ours != tex_theirs {
            return Err(format!(
                "material {i} {:?}: textures {tex_ours:?}, Assimp {tex_theirs:?}",
                a.name
            ));
        }
    }
    Ok(())
}

/// Materials against the XML dump's parsed fields: colours, shininess, opacity, textures.
fn compare_materials_processed(ours: &Scene, theirs: &Scene) -> Result<(), String> {
    for (i, (a, b)) in ours.materials.iter().zip(&theirs.materials).enumerate() {
        let pairs = [
            ("diffuse", a.diffuse, b.diffuse),
            ("ambient", a.ambient, b.ambient),
            ("specular", a.specular, b.specular),
            ("emissive", a.emissive, b.emissive),
        ];
        for (what, x, y) in pairs {
            let same = match (x, y) {
                (Some(x), Some(y)) => close3(x, y),
                (None, None) => true,
                _ => false,
            };
            if !same {
                return Err(format!(
                    "material {i} {:?}: {what} {x:?}, Assimp {y:?}",
                    a.name
                ));
            }
        }
        for (what, x, y) in [
            ("shininess", a.shininess, b.shininess),
            (
                "shininess strength",
                a.shininess_strength,
                b.shininess_strength,
            ),
            ("opacity", a.opacity, b.opacity),
        ] {
            let same = match (x, y) {
                (Some(x), Some(y)) => close(x, y),
                (None, None) => true,
                _ => false,
            };
            if !same {
                return Err(format!(
                    "material {i} {:?}: {what} {x:?}, Assimp {y:?}",
                    a.name
                ));
            }
        }
        let ta: Vec<(kiln::scene::TextureKind, &str)> = a
            .textures
            .iter()
            .filter(|t| t.kind != kiln::scene::TextureKind::Unknown)
            .map(|t| (t.kind, t.path.as_str()))
            .collect();
        let tb: Vec<(kiln::scene::TextureKind, &str)> = b
            .textures
            .iter()
            .filter(|t| t.kind != kiln::scene::TextureKind::Unknown)
            .map(|t| (t.kind, t.path.as_str()))
            .collect();
        if ta != tb {
            return Err(format!(
                "material {i} {:?}: textures {ta:?}, Assimp {tb:?}",
                a.name
            ));
        }
    }
    Ok(())
}

/// The embedded textures of an XML dump: the bytes of each `<Texture>`'s `<Data>`.
fn dump_textures(xml_path: &Path) -> Result<Vec<Vec<u8>>, String> {
    let text = std::fs::read_to_string(xml_path).map_err(|e| e.to_string())?;
    let mut out = Vec::new();
    let mut rest = text.as_str();
    while let Some(p) = rest.find("<Data length=\"") {
        rest = &rest[p + 14..];
        let q = rest.find('"').ok_or("bad <Data>")?;
        let len: usize = rest[..q].parse().map_err(|_| "bad <Data> length")?;
        let body_start = rest.find('>').ok_or("bad <Data>")? + 1;
        let end = rest.find("</Data>").ok_or("no </Data>")?;
        let bytes: Result<Vec<u8>, String> = rest[body_start..end]
            .split_ascii_whitespace()
            .map(|t| u8::from_str_radix(t, 16).map_err(|_| format!("bad byte {t:?}")))
            .collect();
        let bytes = bytes?;
        if bytes.len() != len {
            return Err(format!("<Data> says {len} bytes, has {}", bytes.len()));
        }
        out.push(bytes);
        rest = &rest[end..];
    }
    Ok(out)
}

struct Row {
    file: String,
    nodes: usize,
    meshes: usize,
    bones: usize,
    channels: usize,
    result: String,
    ok: bool,
}

/// Runs the three comparisons on one file.
fn check_file(root: &Path, path: &Path) -> Row {
    let rel = path
        .strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string();
    let mut row = Row {
        file: rel.clone(),
        nodes: 0,
        meshes: 0,
        bones: 0,
        channels: 0,
        result: String::new(),
        ok: false,
    };
    let bytes = std::fs::read(path).expect("corpus file readable");
    let mut ours_raw = kiln::fbx::import(&bytes).map_err(|e| e.to_string());
    let quirk = QUIRKS.iter().find(|(f, _, _)| *f == rel);
    if let (Some((_, _, fix)), Ok(s)) = (quirk, ours_raw.as_mut()) {
        fix(s);
    }
    let raw_dump = assimp::dump(path, &["-b"]);
    let outcome: Result<(), String> = match (&raw_dump, &ours_raw) {
        (Err(a), Err(k)) => {
            row.result = format!("both reject — Assimp: {a}; kiln: {k}");
            row.ok = true;
            return row;
        }
        (Err(a), Ok(_)) => Err(format!("Assimp rejects ({a}), kiln reads it")),
        (Ok(_), Err(k)) => Err(format!("kiln rejects: {k}")),
        (Ok(d), Ok(ours)) => (|| {
            let (theirs, _) = assbin::parse_assbin(&std::fs::read(d).map_err(|e| e.to_string())?)?;
            row.nodes = theirs.nodes.len();
            row.meshes = theirs.meshes.len();
            row.bones = theirs.meshes.iter().map(|m| m.bones.len()).sum();
            row.channels = theirs.animations.iter().map(|a| a.channels.len()).sum();
            ours.validate()
                .map_err(|e| format!("kiln's scene is invalid: {e}"))?;
            compare::compare_scenes(ours, &theirs, compare::Aspects::ALL)
                .map_err(|e| format!("raw: {e}"))?;
            compare_bones(ours, &theirs).map_err(|e| format!("raw: {e}"))?;
            compare_animations(ours, &theirs).map_err(|e| format!("raw: {e}"))?;
            compare_materials_raw(ours, &theirs).map_err(|e| format!("raw: {e}"))?;
            // Embedded textures, from the raw XML dump.
            let xml = assimp::dump(path, &[])?;
            let tex = dump_textures(&xml)?;
            let mine: Vec<&[u8]> = ours.textures.iter().map(|t| t.data.as_slice()).collect();
            if tex.len() != mine.len() || tex.iter().zip(&mine).any(|(a, b)| a.as_slice() != *b) {
                return Err(format!(
                    "raw: embedded textures ({:?} bytes), Assimp ({:?} bytes)",
                    mine.iter().map(|t| t.len()).collect::<Vec<_>>(),
                    tex.iter().map(|t| t.len()).collect::<Vec<_>>()
                ));
            }
            // Processed: the binary dump for every float (global bone transforms of a file in
            // centimetres with 100x scales lose digits in the XML dump), the XML dump for the
            // material fields.
            let mut flags_bin = FLAGS.to_vec();
            flags_bin.push("-b");
            let ppb = assimp::dump(path, &flags_bin)?;
            let (theirs_ppb, _) =
                assbin::parse_assbin(&std::fs::read(ppb).map_err(|e| e.to_string())?)?;
            let pp = assimp::dump(path, FLAGS)?;
            let theirs_pp = assxml::parse_assxml_file(&pp)?;
            let mut s = ours.clone();
            process_for_engine(&mut s, &LoadOptions::default()).map_err(|e| e.to_string())?;
            compare::compare_scenes(&s, &theirs_ppb, compare::Aspects::ALL)
                .map_err(|e| format!("processed: {e}"))?;
            compare::compare_scenes(&s, &theirs_pp, compare::Aspects::ALL)
                .map_err(|e| format!("processed (XML dump): {e}"))?;
            compare_bones(&s, &theirs_ppb).map_err(|e| format!("processed: {e}"))?;
            compare_animations(&s, &theirs_ppb).map_err(|e| format!("processed: {e}"))?;
            compare_materials_processed(&s, &theirs_pp).map_err(|e| format!("processed: {e}"))?;
            // Classic .mesh.
            let bytes = kiln::format::classic::write_mesh(&kiln::extract::extract(&s).model);
            let decoded = classic::decode_mesh_file(&bytes)?;
            compare::compare_classic(&decoded, &kiln::extract::extract(&theirs_ppb).model)
        })(),
    };
    match outcome {
        Ok(()) if quirk.is_some() => {
            row.result = format!("differs, explained: {}", quirk.map_or("", |q| q.1));
            row.ok = true;
        }
        Ok(()) => {
            row.result = "match".into();
            row.ok = true;
        }
        Err(e) => match EXPLAINED.iter().find(|(f, _)| *f == rel) {
            Some((_, why)) => {
                row.result = format!("differs, explained: {why} (first difference: {e})");
                row.ok = true;
            }
            None => row.result = format!("DIFFERS: {e}"),
        },
    }
    row
}

/// The FBX files kiln generates, written to `dir`.
fn generated_fixtures(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let demo = dir.join(kiln::demo::FBX_NAME);
    std::fs::write(&demo, kiln::demo::fbx_bytes()).unwrap();
    out.push(demo);
    let rig = dir.join("generated_rig.fbx");
    let scene = fixtures::fbx::skinned_tube(fixtures::fbx::TubeSpec {
        rings: 24,
        segments: 6,
        bones: 10,
        frames: 12,
        per_corner: false,
    });
    std::fs::write(
        &rig,
        kiln::fbx::write_fbx(&scene, &kiln::fbx::WriteOptions::default()).unwrap(),
    )
    .unwrap();
    out.push(rig);
    let features = dir.join("generated_features.fbx");
    std::fs::write(&features, fixtures::fbx::feature_file()).unwrap();
    out.push(features);
    let spellings = dir.join("generated_msvc_spellings.fbx");
    std::fs::write(&spellings, fixtures::fbx::msvc_spellings_file()).unwrap();
    out.push(spellings);
    let mismatch = dir.join("generated_count_mismatch.fbx");
    std::fs::write(&mismatch, fixtures::fbx::count_mismatch_file()).unwrap();
    out.push(mismatch);
    for (name, ranged) in [
        ("generated_morph_only.fbx", true),
        ("generated_morph_only_unranged.fbx", false),
    ] {
        let path = dir.join(name);
        std::fs::write(&path, fixtures::fbx::morph_only_file(ranged)).unwrap();
        out.push(path);
    }
    out
}

#[test]
fn fbx_corpus_matches_assimp() {
    let root = assimp::require();
    let files = corpus::files(root, "fbx");
    assert!(
        files.len() >= 19,
        "expected the 19 FBX files of assimp-testmodels, found {}",
        files.len()
    );
    let mut rows: Vec<Row> = files.iter().map(|f| check_file(root, f)).collect();
    let dir = tempfile::tempdir().unwrap();
    for f in generated_fixtures(dir.path()) {
        let mut row = check_file(dir.path(), &f);
        row.file = format!("(generated) {}", row.file);
        rows.push(row);
    }
    let outcomes: Vec<report::Outcome> = rows
        .into_iter()
        .map(|r| report::Outcome {
            cells: vec![
                r.nodes.to_string(),
                r.meshes.to_string(),
                r.bones.to_string(),
                r.channels.to_string(),
            ],
            file: r.file,
            result: r.result,
            ok: r.ok,
        })
        .collect();
    report::publish(
        "fbx",
        "FBX",
        &["nodes", "meshes", "bones", "channels"],
        &outcomes,
    );
}

/// ASCII FBX numbers are read as Assimp 5.2 reads them (`fast_atof` into an `f32`): a corpus
/// file's cube coordinates, rewritten with integer parts and six decimals as exporters print
/// them, give positions bit-identical to Assimp's raw import. Read correctly rounded, 123 of
/// the 768 positions of its fourth mesh were one ulp off (and a degenerate face's tangent can
/// turn that ulp into 3e-4).
#[test]
fn ascii_numbers_are_assimps_bit_for_bit() {
    let root = assimp::require();
    let text = std::fs::read_to_string(root.join("FBX/cubes_with_names.fbx")).unwrap();
    // Each `Vertices` array's numbers scaled and shifted into 1…9, printed with 6 decimals.
    let mut out = String::new();
    let mut rest = text.as_str();
    while let Some(at) = rest.find("Vertices: *") {
        let open = at + rest[at..].find("a:").unwrap() + 2;
        let close = open + rest[open..].find('}').unwrap();
        out.push_str(&rest[..open]);
        let numbers: Vec<String> = rest[open..close]
            .split(',')
            .enumerate()
            .map(|(i, v)| {
                let v: f64 = v.trim().parse().unwrap();
                format!("{:.6}", v * 4.091_950_1 + 1.0137 * (i % 7) as f64)
            })
            .collect();
        out.push_str(&numbers.join(","));
        rest = &rest[close..];
    }
    out.push_str(rest);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("scaled_cubes.fbx");
    std::fs::write(&path, &out).unwrap();
    let dump = assimp::dump(&path, &["-b"]).unwrap();
    let (theirs, _) = assbin::parse_assbin(&std::fs::read(dump).unwrap()).unwrap();
    let ours = kiln::fbx::import(out.as_bytes()).unwrap();
    assert_eq!(ours.meshes.len(), theirs.meshes.len());
    for (k, (o, t)) in ours.meshes.iter().zip(&theirs.meshes).enumerate() {
        assert_eq!(o.positions.len(), t.positions.len(), "mesh {k}");
        let differ: Vec<(Vec3, Vec3)> = o
            .positions
            .iter()
            .zip(&t.positions)
            .filter(|(a, b)| a.to_array().map(f32::to_bits) != b.to_array().map(f32::to_bits))
            .map(|(a, b)| (*a, *b))
            .collect();
        assert!(
            differ.is_empty(),
            "mesh {k}: {} of {} positions differ from Assimp's in their bits, first (kiln, Assimp) {:?}",
            differ.len(),
            o.positions.len(),
            differ[0]
        );
    }
}
