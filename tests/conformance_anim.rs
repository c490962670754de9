//! Conformance of the animation pipeline with Assimp: skinned vertex positions at the first, a
//! middle and the last frame of every clip, through kiln's whole engine path, against an
//! independent evaluation of Assimp's own scene.
//!
//! For every skinned or animated FBX of the Assimp corpus and for generated COLLADA models (more
//! than four influences per vertex, key times between frames, several clips, a rigid part on a
//! skinned bone, two skins sharing bones), `assimp dump -b` with the original tool's flags gives
//! the processed scene at full precision. kiln's side: `kiln::load::from_scene` and `kiln::encode` on that scene
//! (the `.mesh` and `.clip` files, classic layout, read back by kiln-format; each `.clip` also
//! decoded independently from the layout text), the skeleton with the extracted offsets, the
//! clips bound, the bake, and CPU skinning of every part at the frame. The exact path reads
//! the kiln-layout files (which store the offsets and keep the helper bones); the classic
//! files (the original tool's bone list, one bone per node) give the *classic-file offsets*
//! column, with the offsets a classic runtime must assume. The other side
//! (`kiln_testkit::anim_eval`): Assimp's node animation interpolated at the frame's tick time,
//! node globals composed up the tree, and `Σ w · global · offset · v` with the weights of
//! Assimp's own `LimitBoneWeights` (`-lbw`). Both at the clips' own rate and resampled at 30
//! frames per second (tick times between keys). Where kiln reads the format itself (FBX), its
//! own import, processed as `kiln convert` does, goes through the same path and is held to the
//! same tolerance.
//!
//! Errors are the largest distance between the two positions of a vertex divided by the
//! model's extent (the largest side of the box around every reference position checked); they
//! must stay under 1e-4. The table goes to stdout and to `docs/conformance.md` between the
//! `anim` markers.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use glam::{DMat4, DVec3, Mat4};
use kiln::anim::bake::{BakeOptions, bake};
use kiln::anim::sample::{AnimationClip, Wrap};
use kiln::anim::skeleton::{Pose, Skeleton, classic_offsets};
use kiln::anim::skin::{palette, skin_positions};
use kiln::extract::BoneSource;
use kiln::{EncodeOptions, Layout, LoadOptions, encode};
use kiln_scene::Scene;
use kiln_testkit::fixtures::collada;
use kiln_testkit::{anim_eval, assbin, assimp, classic, corpus, report};

const FLAGS: &[&str] = &["--left-handed", "-tri", "-guv", "--gen-normals", "-cts"];
const LIMITED: &[&str] = &[
    "--left-handed",
    "-tri",
    "-guv",
    "--gen-normals",
    "-cts",
    "-lbw",
];
const TOLERANCE: f64 = 1e-4;
const RESAMPLED_RATE: f64 = 30.0;

fn load(path: &Path, flags: &[&str]) -> Result<Scene, String> {
    let dump = assimp::dump_bin(path, flags)?;
    let bytes = std::fs::read(&dump).map_err(|e| e.to_string())?;
    Ok(assbin::parse_assbin(&bytes)?.0)
}

/// What one configuration (a frame rate) of one model gave.
#[derive(Default)]
struct Measure {
    /// Largest position error, in model units.
    position: f64,
    /// Largest error of a bone's model matrix applied to points at the model's scale.
    bones: f64,
    /// Largest position error with the offsets a classic-file runtime must assume.
    classic: f64,
    /// Every reference position checked (for the extent).
    reference: Vec<DVec3>,
    /// Largest distance a reference vertex moves between the checked frames of a clip (so a
    /// model whose animation did nothing cannot pass unnoticed).
    motion: f64,
    clips: Vec<(u32, f32)>,
}

/// Runs kiln's engine path on `scene` and compares with the evaluation of `limited`.
fn measure(scene: &Scene, limited: &Scene, rate: Option<f64>) -> Result<Measure, String> {
    let options = LoadOptions {
        clip_frame_rate: rate,
        ..LoadOptions::default()
    };
    let loaded = kiln::load::from_scene(scene.clone(), Path::new("model"), &options);
    let encode_in = |layout| {
        encode(
            &loaded,
            &EncodeOptions {
                layout,
                ..EncodeOptions::default()
            },
        )
        .map_err(|e| e.to_string())
    };
    let (encoded, classic_encoded) = (encode_in(Layout::Kiln)?, encode_in(Layout::Classic)?);
    let bone_sources = kiln::extract::extract(scene).bone_sources;
    if loaded.clips.len() != scene.animations.len() {
        return Err(format!(
            "{} clips for {} animations: {:?}",
            loaded.clips.len(),
            scene.animations.len(),
            loaded.warnings
        ));
    }
    let mesh_of = |e: &kiln::Encoded| {
        e.files
            .iter()
            .find(|o| o.name == "model.mesh")
            .map(|o| o.bytes.clone())
            .ok_or("no model.mesh")
    };
    // The exact path: the kiln layout, which stores the offsets and keeps the helper bones.
    let view_bytes = mesh_of(&encoded)?;
    let view = kiln::format::kiln::MeshView::parse(&view_bytes).map_err(|e| e.to_string())?;
    let model = view.to_model();
    let offsets: Vec<Option<[f32; 16]>> = view.offset_matrices().into_iter().map(Some).collect();
    // The classic files: the original tool's bone list, offsets assumed as a runtime must.
    let classic_model =
        kiln::format::classic::read_mesh(&mesh_of(&classic_encoded)?).map_err(|e| e.to_string())?;
    let mut clips = Vec::new();
    let mut classic_clips = Vec::new();
    for clip in &loaded.clips {
        let file = encoded
            .files
            .iter()
            .filter(|o| o.name.ends_with(".clip"))
            .filter_map(|o| kiln::format::kiln::ClipView::parse(&o.bytes).ok())
            .map(|v| v.to_clip())
            .find(|c| c.name == clip.name)
            .ok_or_else(|| format!("no kiln .clip file for '{}'", clip.name))?;
        clips.push(file);
        let file = classic_encoded
            .files
            .iter()
            .filter(|o| o.name.ends_with(".clip"))
            .find(|o| kiln::format::classic::read_clip(&o.bytes).is_ok_and(|c| c.name == clip.name))
            .ok_or_else(|| format!("no classic .clip file for '{}'", clip.name))?;
        let read = kiln::format::classic::read_clip(&file.bytes).map_err(|e| e.to_string())?;
        let decoded = classic::decode_clip(&file.bytes)?;
        check_decoded(&read, &decoded, &classic_model)?;
        classic_clips.push(read);
    }

    let skeleton = Skeleton::new(&model.bones, &offsets).map_err(|e| e.to_string())?;
    let classic = classic_offsets(&classic_model);
    let classic_skeleton =
        Skeleton::new(&classic_model.bones, &classic.offsets).map_err(|e| e.to_string())?;
    let mut bound = Vec::new();
    let mut bound_classic = Vec::new();
    for (c, cc) in clips.iter().zip(&classic_clips) {
        let (b, warnings) = AnimationClip::bind(&skeleton, c).map_err(|e| e.to_string())?;
        if !warnings.is_empty() {
            return Err(format!("binding '{}': {warnings:?}", c.name));
        }
        bound.push(b);
        bound_classic.push(
            AnimationClip::bind(&classic_skeleton, cc)
                .map_err(|e| e.to_string())?
                .0,
        );
    }
    if bound.is_empty() {
        return Ok(Measure::default());
    }
    let baked = bake(&skeleton, &bound, &BakeOptions::default()).map_err(|e| e.to_string())?;
    let baked_classic = bake(&classic_skeleton, &bound_classic, &BakeOptions::default())
        .map_err(|e| e.to_string())?;

    let parts = anim_eval::parts(limited);
    if parts.len() != model.meshes.len() {
        return Err(format!(
            "{} parts, the reference has {}",
            model.meshes.len(),
            parts.len()
        ));
    }
    let mut m = Measure::default();
    let mut pal = vec![Mat4::ZERO; skeleton.len()];
    let mut pal_classic = vec![Mat4::ZERO; classic_skeleton.len()];
    let mut pose = Pose::new(&skeleton);
    let mut kiln_positions = Vec::new();
    let mut classic_positions = Vec::new();
    for (c, (clip, anim)) in bound.iter().zip(&limited.animations).enumerate() {
        m.clips.push((clip.frame_count(), clip.frame_rate()));
        let tps = if anim.ticks_per_second > 0.0 {
            anim.ticks_per_second
        } else {
            25.0
        };
        let last = clip.frame_count() - 1;
        let mut first_frame: Vec<DVec3> = Vec::new();
        for frame in [0, last / 2, last] {
            let start = m.reference.len();
            let ticks = match rate {
                Some(r) => frame as f64 * tps / r,
                None => frame as f64,
            };
            let globals = anim_eval::node_globals(limited, Some(anim), ticks);
            palette(&baked, c, frame as f32, Wrap::Clamp, &mut pal).map_err(|e| e.to_string())?;
            palette(
                &baked_classic,
                c,
                frame as f32,
                Wrap::Clamp,
                &mut pal_classic,
            )
            .map_err(|e| e.to_string())?;
            for ((part, classic_part), &(node, mesh)) in
                model.meshes.iter().zip(&classic_model.meshes).zip(&parts)
            {
                if part.name != limited.nodes[node].name {
                    return Err(format!(
                        "part '{}' where the reference has node '{}'",
                        part.name, limited.nodes[node].name
                    ));
                }
                let reference =
                    anim_eval::mesh_positions(limited, &globals, node, &limited.meshes[mesh]);
                kiln_positions.resize(part.vertices.len(), [0f32; 3]);
                classic_positions.resize(part.vertices.len(), [0f32; 3]);
                skin_positions(&pal, &part.vertices, &mut kiln_positions)
                    .map_err(|e| e.to_string())?;
                skin_positions(&pal_classic, &classic_part.vertices, &mut classic_positions)
                    .map_err(|e| e.to_string())?;
                for ((k, cl), r) in kiln_positions
                    .iter()
                    .zip(&classic_positions)
                    .zip(&reference)
                {
                    m.position = m.position.max(glam::Vec3::from(*k).as_dvec3().distance(*r));
                    m.classic = m.classic.max(glam::Vec3::from(*cl).as_dvec3().distance(*r));
                    m.reference.push(*r);
                }
            }
            if frame == 0 {
                first_frame = m.reference[start..].to_vec();
            } else {
                for (a, b) in first_frame.iter().zip(&m.reference[start..]) {
                    m.motion = m.motion.max(a.distance(*b));
                }
            }
            // Every bone's model matrix against the node's global.
            clip.evaluate(&skeleton, frame as f32, Wrap::Clamp, &mut pose)
                .map_err(|e| e.to_string())?;
            for (b, source) in bone_sources.iter().enumerate() {
                let node = match source {
                    BoneSource::Node(n)
                    | BoneSource::RigidHelper(n)
                    | BoneSource::SkinHelper(n) => *n,
                };
                m.bones = m
                    .bones
                    .max(matrix_error(&pose.model()[b].as_dmat4(), &globals[node]));
            }
        }
    }
    Ok(m)
}

/// How far apart two transforms put the origin and the three unit points (in model units of
/// the translation, and relative for the linear part).
fn matrix_error(a: &DMat4, b: &DMat4) -> f64 {
    [DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::Z]
        .iter()
        .map(|p| a.transform_point3(*p).distance(b.transform_point3(*p)))
        .fold(0.0, f64::max)
}

/// The `.clip` as kiln-format reads it must equal the independent decoding, and have one
/// track per bone, in bone order, of `frameCount` keyframes at times 0, 1, 2, ….
fn check_decoded(
    read: &kiln::format::Clip,
    decoded: &classic::DecodedClip,
    model: &kiln::format::Model,
) -> Result<(), String> {
    let same_header = read.name == decoded.name
        && read.duration.to_bits() == decoded.duration.to_bits()
        && read.frame_rate.to_bits() == decoded.frame_rate.to_bits()
        && read.frame_count == decoded.frame_count;
    if !same_header || read.tracks.len() != decoded.tracks.len() {
        return Err(format!(
            ".clip '{}': header differs from the layout",
            read.name
        ));
    }
    if decoded.frame_count as f32 != (decoded.duration + 1e-6).floor() + 1.0 {
        return Err(format!(
            ".clip '{}': {} frames for a duration of {}",
            read.name, decoded.frame_count, decoded.duration
        ));
    }
    for ((t, (name, keys)), bone) in read.tracks.iter().zip(&decoded.tracks).zip(&model.bones) {
        if t.bone_name != *name || *name != bone.name || keys.len() != decoded.frame_count as usize
        {
            return Err(format!(
                ".clip '{}': track '{name}' ({} keyframes) for bone '{}'",
                read.name,
                keys.len(),
                bone.name
            ));
        }
        for (i, (k, d)) in t.keyframes.iter().zip(keys).enumerate() {
            let ours: [f32; 11] = bytemuck::cast(*k);
            if ours.map(f32::to_bits) != d.map(f32::to_bits) || d[0] != i as f32 {
                return Err(format!(
                    ".clip '{}': track '{name}' keyframe {i} differs",
                    read.name
                ));
            }
        }
    }
    if read.tracks.len() != model.bones.len() {
        return Err(format!(
            ".clip '{}': {} tracks for {} bones",
            read.name,
            read.tracks.len(),
            model.bones.len()
        ));
    }
    Ok(())
}

struct Row {
    file: String,
    bones: String,
    vertices: usize,
    clips: String,
    native: f64,
    resampled: f64,
    bones_err: f64,
    classic: f64,
    motion: f64,
    /// kiln's own import of the file (FBX) through the same path.
    kiln_import: String,
    result: String,
    ok: bool,
}

fn extent(points: &[DVec3]) -> f64 {
    let (mut lo, mut hi) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
    for p in points {
        lo = lo.min(*p);
        hi = hi.max(*p);
    }
    (hi - lo).max_element().max(1e-12)
}

fn check(label: &str, path: &Path) -> Row {
    let mut row = Row {
        file: label.to_string(),
        bones: String::new(),
        vertices: 0,
        clips: String::new(),
        native: f64::NAN,
        resampled: f64::NAN,
        bones_err: f64::NAN,
        classic: f64::NAN,
        motion: f64::NAN,
        kiln_import: "–".into(),
        result: String::new(),
        ok: false,
    };
    let outcome = (|| -> Result<(), String> {
        let scene = load(path, FLAGS)?;
        let limited = load(path, LIMITED)?;
        let extracted = kiln::extract::extract(&scene);
        let helpers = extracted.model.bones.len() - scene.nodes.len();
        row.bones = if helpers > 0 {
            format!("{} + {helpers} helper", scene.nodes.len())
        } else {
            scene.nodes.len().to_string()
        };
        row.vertices = extracted
            .model
            .meshes
            .iter()
            .map(|p| p.vertices.len())
            .sum();
        let native = measure(&scene, &limited, None)?;
        let resampled = measure(&scene, &limited, Some(RESAMPLED_RATE))?;
        // Where kiln reads the format itself (FBX, issue 4), its own import goes through the
        // same path and must agree with Assimp's scene too.
        let own = if kiln::load::InputFormat::of(path).is_some() {
            let m = kiln_import(path, &limited).map_err(|e| format!("kiln's own import: {e}"))?;
            let e = m.position / extent(&m.reference);
            row.kiln_import = fmt_err(e);
            Some(e)
        } else {
            None
        };
        row.clips = native
            .clips
            .iter()
            .map(|(f, r)| format!("{f}@{r}"))
            .collect::<Vec<_>>()
            .join(", ");
        let ext = extent(&native.reference);
        row.native = native.position / ext;
        row.resampled = resampled.position / ext;
        row.bones_err = native.bones.max(resampled.bones) / ext;
        row.classic = native.classic / ext;
        row.motion = native.motion / ext;
        if native.clips.is_empty() {
            return Err("no clip".into());
        }
        if row.motion.is_nan() || row.motion <= 1e-3 {
            return Err(format!(
                "the clips barely move the mesh ({:.1e} of the extent)",
                row.motion
            ));
        }
        for (what, e) in [
            ("positions", row.native),
            ("positions at 30 fps", row.resampled),
            ("bone matrices", row.bones_err),
            ("positions from kiln's own import", own.unwrap_or(0.0)),
        ] {
            if e.is_nan() || e > TOLERANCE {
                return Err(format!("{what}: error {e:.2e} of the extent"));
            }
        }
        Ok(())
    })();
    match outcome {
        Ok(()) => {
            row.result = "match".into();
            row.ok = true;
        }
        Err(e) => row.result = format!("DIFFERS: {e}"),
    }
    row
}

/// kiln's own import of `path` (processed as `kiln convert` does) through the same path.
fn kiln_import(path: &Path, limited: &Scene) -> Result<Measure, String> {
    let mut scene = kiln::load::import_file(path).map_err(|e| e.reason().to_string())?;
    kiln::load::process_for_engine(&mut scene, &LoadOptions::default())
        .map_err(|e| e.to_string())?;
    measure(&scene, limited, None)
}

fn fixtures() -> Vec<collada::Fixture> {
    use collada::Fixture;
    vec![
        Fixture {
            name: "six_influences_rigid_prop",
            seed: 1,
            joints: 8,
            clips: 3,
            max_influences: 6,
            rigid_on_joint: true,
            second_skin: false,
            perturb_bind: false,
        },
        Fixture {
            name: "two_skins_moved_bind",
            seed: 2,
            joints: 12,
            clips: 2,
            max_influences: 7,
            rigid_on_joint: true,
            second_skin: true,
            perturb_bind: true,
        },
        Fixture {
            name: "four_clips",
            seed: 3,
            joints: 5,
            clips: 4,
            max_influences: 5,
            rigid_on_joint: false,
            second_skin: false,
            perturb_bind: false,
        },
    ]
}

fn fmt_err(e: f64) -> String {
    if e.is_nan() {
        "–".into()
    } else {
        format!("{e:.1e}")
    }
}

#[test]
fn skinned_positions_match_assimp_on_the_corpus_and_generated_models() {
    let root = assimp::require();
    let mut rows = Vec::new();
    let mut other = Vec::new();
    let mut rejected = Vec::new();
    for path in corpus::files(&root.join("FBX"), "fbx") {
        let label = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        match load(&path, FLAGS) {
            Err(e) => rejected.push(format!("`{label}` ({e})")),
            Ok(s) if s.animations.is_empty() && s.meshes.iter().all(|m| m.bones.is_empty()) => {
                other.push(format!("`{label}`"))
            }
            Ok(_) => rows.push(check(&label, &path)),
        }
    }
    assert!(
        rows.len() >= 2,
        "expected the skinned FBX files of assimp-testmodels (huesitos, animation_with_skeleton)"
    );
    let dir = tempfile::tempdir().unwrap();
    for f in fixtures() {
        let path: PathBuf = dir.path().join(format!("{}.dae", f.name));
        std::fs::write(&path, collada::collada(&f)).unwrap();
        rows.push(check(&format!("(generated) {}.dae", f.name), &path));
    }

    let mut body = String::from(
        "| file | bones | vertices | clips (frames@fps) | motion | error, own rate | error, 30 fps | bone matrices | classic-file offsets | kiln's FBX import | result |\n|---|---:|---:|---|---:|---:|---:|---:|---:|---|---|\n",
    );
    for r in &rows {
        let _ = writeln!(
            body,
            "| `{}` | {} | {} | {} | {:.2} | {} | {} | {} | {} | {} | {} |",
            r.file,
            r.bones,
            r.vertices,
            r.clips,
            r.motion,
            fmt_err(r.native),
            fmt_err(r.resampled),
            fmt_err(r.bones_err),
            fmt_err(r.classic),
            r.kiln_import,
            r.result
        );
    }
    let failed = rows.iter().filter(|r| !r.ok).count();
    let _ = writeln!(
        body,
        "\n{} models: {} match, {} differ. Errors are relative to the model's extent; the \
         tolerance is {TOLERANCE:.0e}.",
        rows.len(),
        rows.len() - failed,
        failed
    );
    if !other.is_empty() {
        let _ = writeln!(
            body,
            "\nNeither skin nor animation (nothing to check): {}.",
            other.join(", ")
        );
    }
    if !rejected.is_empty() {
        let _ = writeln!(body, "\nAssimp rejects: {}.", rejected.join(", "));
    }
    println!("{body}");
    report::update_doc_section("anim", &body);
    assert_eq!(failed, 0, "{body}");
}
