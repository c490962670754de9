//! Blend shapes, kiln against ufbx (the `ufbx` crate, a dev-dependency only): per file the
//! channels (name, weight at rest, each shape's full weight, in order) and the evaluated
//! offset of every polygon corner, at rest and at every key time of each animation. ufbx's
//! side: `evaluate_scene` at the time, then Σ effective weight × the shape's offset of the
//! corner's control point. kiln's side: the weight channel's keys at the time (linear), the
//! shape weights of `kiln_anim::morph::shape_weights`, Σ weight × the offset of the corner's
//! vertex in its mesh part. kiln samples constant and cubic weight curves at every frame, so
//! the two agree at frames; between frames they differ where a curve is cubic.
//!
//! Files: the generated morph tube (whole and split by material), the tube with weight curves of
//! every key kind (compared at every frame), and any FBX files named in `KILN_UFBX_FILES`
//! (colon-separated; compared at their keys and at every frame), for checks by hand on files
//! the project does not hold.

use kiln_scene::{Animation, Scene, Vec3};
use kiln_testkit::fixtures::legacy;
use kiln_testkit::fixtures::morph::morph_tube_file;

/// The channel weight of `mesh`'s `target` at `ticks` in `anim` (its rest weight without a
/// channel); keys are linear, held before the first and after the last.
fn weight_at(scene: &Scene, anim: Option<(&Animation, f64)>, mesh: usize, target: usize) -> f32 {
    let rest = scene.meshes[mesh].morph_targets[target].weight;
    let Some((anim, t)) = anim else { return rest };
    let Some(c) = anim
        .morph_channels
        .iter()
        .find(|c| c.mesh == mesh && c.target == target)
    else {
        return rest;
    };
    let keys = &c.keys;
    match keys.iter().position(|k| k.time > t) {
        None => keys.last().map_or(rest, |k| k.value),
        Some(0) => keys[0].value,
        Some(i) => {
            let (a, b) = (keys[i - 1], keys[i]);
            let u = ((t - a.time) / (b.time - a.time)) as f32;
            a.value + (b.value - a.value) * u
        }
    }
}

/// kiln's offset of every corner, in the file's corner order (mesh parts interleaved as the
/// polygons' materials pick them).
fn kiln_offsets(
    scene: &Scene,
    anim: Option<(&Animation, f64)>,
    order: &[(usize, u32)],
) -> Vec<Vec3> {
    let mut per_mesh: Vec<Vec<Vec3>> = Vec::new();
    for (mi, m) in scene.meshes.iter().enumerate() {
        let mut out = vec![Vec3::ZERO; m.positions.len()];
        for (t, target) in m.morph_targets.iter().enumerate() {
            let full: Vec<f32> = target.shapes.iter().map(|s| s.full_weight).collect();
            let mut w = vec![0.0; full.len()];
            kiln_anim::morph::shape_weights(&full, weight_at(scene, anim, mi, t), &mut w);
            for (s, &w) in target.shapes.iter().zip(&w) {
                for i in 0..s.positions.len() {
                    out[s.vertex(i) as usize] += s.positions[i] * w;
                }
            }
        }
        per_mesh.push(out);
    }
    order
        .iter()
        .map(|&(m, v)| per_mesh[m][v as usize])
        .collect()
}

/// ufbx's offset of every corner of its (single) mesh.
fn ufbx_offsets(scene: &ufbx::Scene) -> Vec<Vec3> {
    let mesh = &scene.meshes[0];
    let mut point = vec![Vec3::ZERO; mesh.num_vertices];
    for d in mesh.blend_deformers.iter() {
        for ch in d.channels.iter() {
            for k in ch.keyframes.iter() {
                let s = &k.shape;
                for i in 0..s.num_offsets {
                    let v = s.offset_vertices[i] as usize;
                    let o = s.position_offsets[i];
                    let w = k.effective_weight as f32
                        * s.offset_weights.get(i).map_or(1.0, |&w| w as f32);
                    if let Some(p) = point.get_mut(v) {
                        *p += Vec3::new(o.x as f32, o.y as f32, o.z as f32) * w;
                    }
                }
            }
        }
    }
    mesh.vertex_indices
        .iter()
        .map(|&v| point[v as usize])
        .collect()
}

/// Where the offsets are compared in each animation.
#[derive(Clone, Copy)]
enum Times {
    /// Key times where no curve is inside a cubic segment (kiln's keys are the file's).
    LinearKeys,
    /// Every whole frame: kiln evaluates constant and cubic weight curves at each.
    Frames,
}

fn compare(name: &str, bytes: &[u8], at: Times) -> Result<String, String> {
    let ours = kiln_fbx_scene::import(bytes).map_err(|e| format!("{name}: kiln: {e}"))?;
    let theirs = ufbx::load_memory(bytes, ufbx::LoadOpts::default())
        .map_err(|e| format!("{name}: ufbx: {:?}", e.description.to_string()))?;
    if theirs.meshes.len() != 1 {
        return Err(format!("{name}: compares files of one mesh only"));
    }
    // Channels: names, rest weights, full weights.
    let mesh = &theirs.meshes[0];
    let mut theirs_ch = Vec::new();
    for d in mesh.blend_deformers.iter() {
        for ch in d.channels.iter() {
            let full: Vec<f32> = ch
                .keyframes
                .iter()
                .map(|k| k.target_weight as f32)
                .collect();
            theirs_ch.push((ch.element.name.to_string(), ch.weight as f32, full));
        }
    }
    let ours_ch: Vec<(String, f32, Vec<f32>)> = ours
        .meshes
        .first()
        .map(|m| {
            m.morph_targets
                .iter()
                .map(|t| {
                    let full = t.shapes.iter().map(|s| s.full_weight).collect();
                    (t.name.clone(), t.weight, full)
                })
                .collect()
        })
        .unwrap_or_default();
    if ours_ch != theirs_ch {
        return Err(format!(
            "{name}: channels differ:\n kiln {ours_ch:?}\n ufbx {theirs_ch:?}"
        ));
    }
    // Corner order: each corner's mesh part and vertex in it (parts by first material use).
    let mats: Vec<u32> = mesh.face_material.iter().copied().collect();
    let mut parts: Vec<u32> = Vec::new();
    for &m in &mats {
        if !parts.contains(&m) {
            parts.push(m);
        }
    }
    let mut next = vec![0u32; parts.len().max(1)];
    let mut order = Vec::with_capacity(mesh.num_indices);
    for (f, face) in mesh.faces.iter().enumerate() {
        let part = mats
            .get(f)
            .and_then(|m| parts.iter().position(|p| p == m))
            .unwrap_or(0);
        for _ in 0..face.num_indices {
            order.push((part, next[part]));
            next[part] += 1;
        }
    }
    let mut compared = 0;
    let mut check = |what: &str, ours: Vec<Vec3>, theirs: Vec<Vec3>| -> Result<(), String> {
        for (c, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            if (*a - *b).length() > 1e-5 {
                return Err(format!("{name} {what}: corner {c}: kiln {a}, ufbx {b}"));
            }
        }
        compared += ours.len();
        Ok(())
    };
    check(
        "at rest",
        kiln_offsets(&ours, None, &order),
        ufbx_offsets(&theirs),
    )?;
    for (i, stack) in theirs.anim_stacks.iter().enumerate() {
        let Some(anim) = ours.animations.get(i) else {
            continue;
        };
        // At every key time of the stack: kiln keeps the keys and interpolates linearly,
        // ufbx evaluates the curves' cubic segments, so only key times compare exactly.
        let mut times: Vec<f64> = theirs
            .anim_curves
            .iter()
            .flat_map(|c| c.keyframes.iter().map(|k| k.time))
            .filter(|&t| t >= stack.time_begin - 1e-9 && t <= stack.time_end + 1e-9)
            .collect();
        times.sort_by(f64::total_cmp);
        times.dedup();
        // ... and where no curve is inside a cubic segment.
        let linear_at = |t: f64| {
            theirs.anim_curves.iter().all(|c| {
                let k = &c.keyframes;
                let inside = k
                    .windows(2)
                    .find(|w| w[0].time < t - 1e-9 && t + 1e-9 < w[1].time);
                inside.is_none_or(|w| w[0].interpolation == ufbx::Interpolation::Linear)
            })
        };
        times.retain(|&t| linear_at(t));
        if let Times::Frames = at {
            let frames = anim.duration.round() as i64;
            if frames < 1 {
                return Err(format!("{name}: animation {i} is shorter than a frame"));
            }
            times = (0..=frames)
                .map(|f| stack.time_begin + f as f64 / anim.ticks_per_second)
                .collect();
        }
        for sec in times {
            let ticks = (sec - stack.time_begin) * anim.ticks_per_second;
            let evaluated =
                ufbx::evaluate_scene(&theirs, &stack.anim, sec, ufbx::EvaluateOpts::default())
                    .map_err(|e| {
                        format!("{name}: ufbx evaluate: {:?}", e.description.to_string())
                    })?;
            check(
                &format!("at {sec:.3} s"),
                kiln_offsets(&ours, Some((anim, ticks)), &order),
                ufbx_offsets(&evaluated),
            )?;
        }
    }
    Ok(format!(
        "{name}: {} channels equal, {compared} corner offsets equal",
        ours_ch.len()
    ))
}

#[test]
fn blend_shapes_evaluate_as_ufbx_evaluates_them() {
    let tube = kiln_testkit::fixtures::morph::morph_tube();
    let tree = kiln_fbx_scene::write_fbx_nodes(&tube, &Default::default()).expect("writable");
    let mut files: Vec<(String, Vec<u8>)> = vec![
        ("morph tube".into(), morph_tube_file(false)),
        ("morph tube, two materials".into(), morph_tube_file(true)),
        // 6.1: `Shape` children of the model, weights in the take's channels of their names.
        ("morph tube, 6.1 binary".into(), legacy::fbx61(&tube)),
        (
            "morph tube, 6.1 ASCII".into(),
            legacy::write_ascii(&legacy::fbx61_tree(&tree), 6100),
        ),
    ];
    if let Ok(list) = std::env::var("KILN_UFBX_FILES") {
        for path in list.split(':').filter(|p| !p.is_empty()) {
            files.push((
                path.into(),
                std::fs::read(path).expect("KILN_UFBX_FILES entry"),
            ));
        }
    }
    let mut failures = Vec::new();
    for (i, (name, bytes)) in files.iter().enumerate() {
        // The 7.4 tubes at their keys; the 6.1 ones (linear keys) and files by hand at their
        // keys and every frame.
        let mut result = compare(name, bytes, Times::LinearKeys);
        if i >= 2 && result.is_ok() {
            result = compare(name, bytes, Times::Frames);
        }
        match result {
            Ok(line) => {
                println!("{line}");
                // Every generated tube animates its weights: more than the rest pose compared.
                let corners = line
                    .split(" corner offsets")
                    .next()
                    .and_then(|s| s.rsplit(' ').next())
                    .and_then(|n| n.parse::<usize>().ok())
                    .unwrap_or(0);
                if i < 4 && corners <= 2 * 160 {
                    failures.push(format!("{name}: only {corners} offsets compared"));
                }
            }
            Err(e) => failures.push(e),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Weight curves of every key kind (auto, clamped, progressive, time-independent, user,
/// weighted, broken, TCB, constant, constant-next), at every frame of the clip: kiln's keys at
/// frames must give ufbx's evaluation of the curves.
#[test]
fn cubic_and_constant_weight_curves_evaluate_as_ufbx_at_every_frame() {
    let bytes = kiln_testkit::fixtures::morph::morph_tube_curves_file();
    let line = compare("morph tube, curves of every kind", &bytes, Times::Frames)
        .unwrap_or_else(|e| panic!("{e}"));
    println!("{line}");
    // The comparison is not empty: 31 frames of every corner, and the rest pose.
    let corners: usize = line
        .split(" corner offsets")
        .next()
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(corners > 31 * 100, "{line}");
}
