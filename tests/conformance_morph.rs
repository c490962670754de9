//! Blend shapes, kiln against Assimp 5.2.5 itself: the system's libassimp, through a small C
//! program (`tests/c/assimp_morph.c`, built with `cc … -lassimp`; `assimp dump`'s XML holds
//! no anim meshes). Per file, raw (no post-processing) and after the left-handed conversion
//! (`aiProcess_ConvertToLeftHanded` against kiln's `Steps::CONVERT_TO_LEFT_HANDED`):
//!
//! - the meshes and their vertex counts;
//! - every anim mesh Assimp makes (one per shape geometry): its position offset from the base
//!   mesh at every vertex against kiln's offsets of the shape of that name (Σ of its sparse
//!   entries at the vertex, 0 elsewhere), within 1e-5;
//! - every key of every morph mesh channel (time in ticks, then anim mesh index and weight)
//!   against the key at that time of kiln's weight channel of that target, on every mesh the
//!   geometry became, within 1e-6.
//!
//! Where they differ by design, the table says how much: Assimp 5.2 drops a `Shape` without
//! `Normals` ("did not find required element"), and its key indices count the channels it
//! dropped, which are kiln's target indices; kiln keeps every shape (as ufbx does). A stack
//! that moves only weights and has no `LocalStart`/`LocalStop` gets Assimp's morph keys shifted
//! by -1e10 ticks (its start time is the sentinel no node key replaced); kiln's clip starts at
//! the first weight key, and the keys are compared with that shift taken out.
//!
//! Files: the generated morph tube (whole, split by material, with weight curves of every key
//! kind) and the weight-only cube, and any FBX named in `KILN_ASSIMP_MORPH_FILES`
//! (colon-separated) for checks by hand.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kiln::process::{Steps, process};
use kiln::scene::Scene;
use kiln_testkit::fixtures::{fbx::morph_only_file, morph};
use kiln_testkit::process::{Limits, compile_c, run_limited};

/// `aiProcess_ConvertToLeftHanded`: MakeLeftHanded | FlipUVs | FlipWindingOrder.
const CONVERT_TO_LEFT_HANDED: u32 = 0x4 | 0x80_0000 | 0x100_0000;

/// The dumper, built once per test binary.
fn dumper() -> &'static Path {
    static BUILT: OnceLock<PathBuf> = OnceLock::new();
    BUILT.get_or_init(|| {
        assert!(
            Path::new("/usr/include/assimp/cimport.h").is_file(),
            "Assimp's C headers are missing: run `apt-get install -y libassimp-dev` (scripts/test does this)"
        );
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiln-assimp-morph");
        std::fs::create_dir_all(&dir).expect("temp dir");
        let exe = dir.join("assimp_morph");
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/c/assimp_morph.c");
        compile_c(
            Command::new("cc")
                .args(["-std=c99", "-O1", "-Wall", "-Wextra", "-Werror", "-o"])
                .arg(&exe)
                .arg(&src)
                .arg("-lassimp"),
        );
        exe
    })
}

#[derive(Default, Debug)]
struct AssimpMesh {
    vertices: usize,
    /// (name, offset per vertex where not zero).
    anim: Vec<(String, BTreeMap<u32, [f32; 3]>)>,
}

/// One key of a morph mesh channel: its animation, time (ticks), and (anim mesh index,
/// weight) pairs.
#[derive(Debug)]
struct MorphKey {
    animation: usize,
    time: f64,
    weights: Vec<(usize, f32)>,
}

#[derive(Default, Debug)]
struct AssimpMorph {
    meshes: Vec<AssimpMesh>,
    keys: Vec<MorphKey>,
}

fn assimp(path: &Path, flags: u32) -> Result<AssimpMorph, String> {
    let out = run_limited(
        Command::new(dumper()).arg(path).arg(flags.to_string()),
        Limits::C_PROGRAM,
    )
    .map_err(|e| format!("assimp_morph: {e}"))?;
    let text = String::from_utf8_lossy(&out.stdout);
    if !out.status.success() {
        return Err(format!("assimp_morph failed: {text}"));
    }
    let mut r = AssimpMorph::default();
    let mut channel_animation = 0usize;
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        let num = |i: usize| -> f64 { f.get(i).and_then(|s| s.parse().ok()).unwrap_or(f64::NAN) };
        match f[0] {
            "mesh" => r.meshes.push(AssimpMesh {
                vertices: num(f.len() - 2) as usize,
                anim: Vec::new(),
            }),
            "anim" => {
                let name = f[2..f.len() - 1].join(" ");
                r.meshes
                    .last_mut()
                    .ok_or("anim before mesh")?
                    .anim
                    .push((name, BTreeMap::new()));
            }
            "d" => {
                let mesh = r.meshes.last_mut().ok_or("offset before mesh")?;
                let (_, d) = mesh.anim.last_mut().ok_or("offset before anim")?;
                d.insert(num(1) as u32, [num(2) as f32, num(3) as f32, num(4) as f32]);
            }
            "channel" => channel_animation = num(1) as usize,
            "key" => {
                let n = num(2) as usize;
                let pairs = (0..n)
                    .map(|k| (num(3 + k) as usize, num(3 + n + k) as f32))
                    .collect();
                r.keys.push(MorphKey {
                    animation: channel_animation,
                    time: num(1),
                    weights: pairs,
                });
            }
            other => return Err(format!("unexpected line '{other}'")),
        }
    }
    Ok(r)
}

/// kiln's offsets (summed per vertex) of every shape of mesh `m` that Assimp could call
/// `name`: Assimp 5.2.5 names an anim mesh after its shape geometry when the mesh is split by
/// material, and after its channel (every in-between alike) when it is not.
fn kiln_offsets(scene: &Scene, m: usize, name: &str) -> Vec<BTreeMap<u32, [f32; 3]>> {
    scene.meshes[m]
        .morph_targets
        .iter()
        .flat_map(|t| {
            t.shapes
                .iter()
                .filter(move |s| s.name == name || t.name == name)
        })
        .map(|shape| {
            let mut out: BTreeMap<u32, [f32; 3]> = BTreeMap::new();
            for i in 0..shape.positions.len() {
                let e = out.entry(shape.vertex(i)).or_default();
                let p = shape.positions[i];
                *e = [e[0] + p.x, e[1] + p.y, e[2] + p.z];
            }
            out
        })
        .collect()
}

/// The largest difference of two offset maps over `vertices` (absent = 0), and where.
fn worst(a: &BTreeMap<u32, [f32; 3]>, k: &BTreeMap<u32, [f32; 3]>, vertices: u32) -> (f32, u32) {
    let mut w = (0.0f32, 0u32);
    for v in 0..vertices {
        let (x, y) = (
            a.get(&v).copied().unwrap_or_default(),
            k.get(&v).copied().unwrap_or_default(),
        );
        let err = (0..3).map(|i| (x[i] - y[i]).abs()).fold(0.0, f32::max);
        if err.is_nan() || err > w.0 {
            w = (if err.is_nan() { f32::INFINITY } else { err }, v);
        }
    }
    w
}

#[derive(Default)]
struct Row {
    shapes: usize,
    offsets: usize,
    keys: usize,
    dropped_by_assimp: Vec<String>,
}

fn compare(bytes: &[u8], path: &Path, flags: u32) -> Result<Row, String> {
    let theirs = assimp(path, flags)?;
    let mut ours = kiln::fbx::import(bytes).map_err(|e| format!("kiln: {e}"))?;
    if flags != 0 {
        process(&mut ours, Steps::CONVERT_TO_LEFT_HANDED).map_err(|e| format!("kiln: {e}"))?;
    }
    if theirs.meshes.len() != ours.meshes.len() {
        return Err(format!(
            "{} meshes in Assimp, {} in kiln",
            theirs.meshes.len(),
            ours.meshes.len()
        ));
    }
    let mut row = Row::default();
    for (m, am) in theirs.meshes.iter().enumerate() {
        if am.vertices != ours.meshes[m].positions.len() {
            return Err(format!(
                "mesh {m}: {} vertices in Assimp, {} in kiln",
                am.vertices,
                ours.meshes[m].positions.len()
            ));
        }
        for (name, d) in &am.anim {
            let candidates = kiln_offsets(&ours, m, name);
            let best = candidates
                .iter()
                .map(|k| worst(d, k, am.vertices as u32))
                .min_by(|a, b| a.0.total_cmp(&b.0))
                .ok_or_else(|| {
                    format!("mesh {m}: Assimp's anim mesh '{name}' is no kiln shape or channel")
                })?;
            if best.0 > 1e-5 {
                return Err(format!(
                    "mesh {m} anim mesh '{name}': vertex {} off by {} from every kiln shape of that name",
                    best.1, best.0
                ));
            }
            row.offsets += am.vertices;
            row.shapes += 1;
        }
        for t in &ours.meshes[m].morph_targets {
            for s in &t.shapes {
                if !am.anim.iter().any(|(n, _)| *n == s.name || *n == t.name) {
                    row.dropped_by_assimp.push(s.name.clone());
                }
            }
        }
    }
    for MorphKey {
        animation: anim,
        time,
        weights: pairs,
    } in &theirs.keys
    {
        let a = ours
            .animations
            .get(*anim)
            .ok_or_else(|| format!("Assimp's animation {anim} is not kiln's"))?;
        for &(target, weight) in pairs {
            let meshes: Vec<usize> = (0..ours.meshes.len())
                .filter(|&m| target < ours.meshes[m].morph_targets.len())
                .collect();
            if meshes.is_empty() {
                return Err(format!("key at {time}: no kiln mesh has target {target}"));
            }
            for m in meshes {
                let ch = a
                    .morph_channels
                    .iter()
                    .find(|c| c.mesh == m && c.target == target)
                    .ok_or_else(|| {
                        format!("animation {anim}: no kiln channel of mesh {m} target {target}")
                    })?;
                // A stack that moves only weights and has no time range: Assimp's start time
                // stays at its 1e10-tick sentinel (no node keys set it), so its morph keys are
                // shifted by -1e10 ticks; kiln starts such a clip at its first weight key.
                let shift = if a.channels.is_empty() && *time <= -1e9 {
                    1e10
                } else {
                    0.0
                };
                let key = ch
                    .keys
                    .iter()
                    .find(|k| (k.time - (time + shift)).abs() < 1e-6)
                    .ok_or_else(|| format!("mesh {m} target {target}: no kiln key at {time}"))?;
                if (key.value - weight).abs() > 1e-6 {
                    return Err(format!(
                        "mesh {m} target {target} at {time}: Assimp {weight}, kiln {}",
                        key.value
                    ));
                }
                row.keys += 1;
            }
        }
    }
    dedup(&mut row.dropped_by_assimp);
    Ok(row)
}

fn dedup(v: &mut Vec<String>) {
    v.sort();
    v.dedup();
}

#[test]
fn blend_shapes_match_assimps_anim_meshes_and_morph_channels() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("kiln-assimp-morph");
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mut files: Vec<(String, PathBuf, Vec<u8>)> = Vec::new();
    for (name, bytes) in [
        ("morph tube", morph::morph_tube_file(false)),
        ("morph tube, two materials", morph::morph_tube_file(true)),
        (
            "morph tube, weight curves of every kind",
            morph::morph_tube_curves_file(),
        ),
        ("weight-only cube", morph_only_file(false)),
    ] {
        let path = dir.join(format!("{}.fbx", name.replace([' ', ','], "_")));
        std::fs::write(&path, &bytes).expect("write fixture");
        files.push((name.to_string(), path, bytes));
    }
    if let Ok(list) = std::env::var("KILN_ASSIMP_MORPH_FILES") {
        for p in list.split(':').filter(|p| !p.is_empty()) {
            let bytes = std::fs::read(p).expect("KILN_ASSIMP_MORPH_FILES entry");
            files.push((p.to_string(), PathBuf::from(p), bytes));
        }
    }
    println!(
        "| file | conversion | anim meshes | vertex offsets | morph keys | shapes Assimp drops |"
    );
    println!("|---|---|---:|---:|---:|---|");
    let mut failures = Vec::new();
    let (mut shapes, mut keys) = (0, 0);
    for (name, path, bytes) in &files {
        for (what, flags) in [("raw", 0), ("left-handed", CONVERT_TO_LEFT_HANDED)] {
            match compare(bytes, path, flags) {
                Ok(r) => {
                    println!(
                        "| {name} | {what} | {} | {} | {} | {} |",
                        r.shapes,
                        r.offsets,
                        r.keys,
                        if r.dropped_by_assimp.is_empty() {
                            "–".to_string()
                        } else {
                            r.dropped_by_assimp.join(", ")
                        }
                    );
                    shapes += r.shapes;
                    keys += r.keys;
                }
                Err(e) => failures.push(format!("{name} ({what}): {e}")),
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // The generated files alone give anim meshes and keys to compare: never a vacuous pass.
    assert!(
        shapes >= 8 && keys >= 40,
        "{shapes} anim meshes, {keys} keys compared"
    );
}
