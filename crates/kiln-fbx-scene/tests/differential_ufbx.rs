//! kiln against ufbx (C, through the `ufbx` crate; a dev-dependency only) on every FBX of
//! Assimp's corpus and on files kiln generates (7.4 binary, FBX 6.1 files, binary and ASCII
//! with their animation in `Takes`, and 5.0 binary and 5.8 ASCII, which Assimp 5.2 cannot
//! read): per file the counts of meshes (one per material part), polygons,
//! skin clusters and weights (per polygon corner), animation stacks, curves and keys, and the
//! world transform of every uniquely named node at bind time and at three key times of each
//! animation (kiln's node is the one the `$AssimpFbx$` chain ends in, ufbx's
//! `geometry_to_world`).
//!
//! Needs Assimp's test models (`apt-get install assimp-testmodels`); fails without them.

use std::collections::HashMap;

use kiln_fbx::{OwnedNode, OwnedValue};
use kiln_scene::{Animation, Mat4, Quat, Scene, Vec3};
use kiln_testkit::corpus;
use kiln_testkit::fixtures::fbx::{TubeSpec, feature_file, skinned_tube};
use kiln_testkit::fixtures::legacy;

/// Counts both readers agree on.
#[derive(Debug, Default, PartialEq)]
struct Counts {
    mesh_parts: usize,
    polygons: usize,
    /// Bone names of the clusters, sorted.
    cluster_bones: Vec<String>,
    /// Weights after unrolling per polygon corner, by bone name (sorted).
    weights: Vec<(String, usize)>,
    stacks: usize,
    curves: usize,
    keys: usize,
}

fn kiln_counts(bytes: &[u8], scene: &Scene) -> Counts {
    let little = kiln_fbx::to_little_endian(bytes).unwrap();
    let doc = kiln_fbx::Document::parse(little.as_deref().unwrap_or(bytes)).unwrap();
    let mut c = Counts {
        mesh_parts: scene.meshes.len(),
        polygons: scene.meshes.iter().map(|m| m.face_count()).sum(),
        ..Counts::default()
    };
    let mut weights: HashMap<String, usize> = HashMap::new();
    for m in &scene.meshes {
        for b in &m.bones {
            *weights.entry(b.name.clone()).or_default() += b.weights.len();
        }
    }
    c.cluster_bones = weights.keys().cloned().collect();
    c.cluster_bones.sort();
    c.weights = weights.into_iter().collect();
    c.weights.sort();
    for o in doc.root("Objects").into_iter().flat_map(|o| o.children()) {
        match o.name() {
            "AnimationStack" => c.stacks += 1,
            "AnimationCurve" => {
                c.curves += 1;
                c.keys += o
                    .child("KeyTime")
                    .map_or(0, |k| k.i64_values().map_or(0, |v| v.len()));
            }
            _ => {}
        }
    }
    // Before 6.0 ufbx makes one more stack, "(internal)", of channels on the models.
    if doc.root("Objects").is_none()
        && doc
            .roots()
            .any(|n| n.name() == "Model" && n.child("Channel").is_some())
    {
        c.stacks += 1;
    }
    // FBX 6: a take is a stack, each axis channel with keys a curve (7.x files keep
    // vestigial takes that neither reader animates from).
    for take in doc
        .root("Takes")
        .filter(|_| doc.version() < 7000)
        .into_iter()
        .flat_map(|t| t.children_named("Take").collect::<Vec<_>>())
    {
        c.stacks += 1;
        let mut stack = vec![take];
        while let Some(n) = stack.pop() {
            if let Some(count) = n.child("KeyCount").and_then(|k| k.get_i64(0).ok()) {
                c.curves += 1;
                c.keys += count as usize;
            }
            stack.extend(n.children());
        }
    }
    c
}

fn ufbx_counts(s: &ufbx::Scene) -> Counts {
    let mut c = Counts {
        stacks: s.anim_stacks.len(),
        curves: s.anim_curves.len(),
        keys: s.anim_curves.iter().map(|k| k.keyframes.len()).sum(),
        ..Counts::default()
    };
    let mut weights: HashMap<String, usize> = HashMap::new();
    for m in s.meshes.iter().filter(|m| !m.element.instances.is_empty()) {
        c.mesh_parts += m
            .material_parts
            .iter()
            .filter(|p| p.num_faces > 0)
            .count()
            .max(1);
        c.polygons += m.num_faces;
        // Corners of each control point.
        let mut corners = vec![0usize; m.num_vertices];
        for &v in m.vertex_indices.iter() {
            if let Some(n) = corners.get_mut(v as usize) {
                *n += 1;
            }
        }
        for skin in m.skin_deformers.iter() {
            for cl in skin.clusters.iter() {
                let Some(bone) = &cl.bone_node else { continue };
                let n: usize = cl
                    .vertices
                    .iter()
                    .map(|&v| corners.get(v as usize).copied().unwrap_or(0))
                    .sum();
                *weights.entry(plain(&bone.element.name)).or_default() += n;
            }
        }
    }
    c.cluster_bones = weights.keys().cloned().collect();
    c.cluster_bones.sort();
    c.weights = weights.into_iter().collect();
    c.weights.sort();
    c
}

fn ufbx_matrix(m: &ufbx::Matrix) -> Mat4 {
    Mat4::from_cols_array(&[
        m.m00 as f32,
        m.m10 as f32,
        m.m20 as f32,
        0.0,
        m.m01 as f32,
        m.m11 as f32,
        m.m21 as f32,
        0.0,
        m.m02 as f32,
        m.m12 as f32,
        m.m22 as f32,
        0.0,
        m.m03 as f32,
        m.m13 as f32,
        m.m23 as f32,
        1.0,
    ])
}

/// kiln's node transforms with `anim` sampled at `ticks` (keys lerped, rotations slerped).
fn kiln_worlds(scene: &Scene, anim: Option<(&Animation, f64)>) -> HashMap<String, Mat4> {
    let mut local: Vec<Mat4> = scene.nodes.iter().map(|n| n.transform).collect();
    if let Some((a, t)) = anim {
        for ch in &a.channels {
            let Some(n) = scene.find_node(&ch.node_name) else {
                continue;
            };
            let sample_v = |keys: &[kiln_scene::VectorKey], d: Vec3| -> Vec3 {
                let Some(first) = keys.first() else { return d };
                match keys.iter().position(|k| k.time > t) {
                    None => keys.last().unwrap().value,
                    Some(0) => first.value,
                    Some(i) => {
                        let (a, b) = (&keys[i - 1], &keys[i]);
                        a.value
                            .lerp(b.value, ((t - a.time) / (b.time - a.time)) as f32)
                    }
                }
            };
            let sample_q = |keys: &[kiln_scene::QuatKey]| -> Quat {
                match keys.iter().position(|k| k.time > t) {
                    None => keys.last().unwrap().value,
                    Some(0) => keys[0].value,
                    Some(i) => {
                        let (a, b) = (&keys[i - 1], &keys[i]);
                        a.value
                            .slerp(b.value, ((t - a.time) / (b.time - a.time)) as f32)
                    }
                }
            };
            let (s0, r0, t0) = local[n].to_scale_rotation_translation();
            let tr = sample_v(&ch.position_keys, t0);
            let sc = sample_v(&ch.scaling_keys, s0);
            let ro = if ch.rotation_keys.is_empty() {
                r0
            } else {
                sample_q(&ch.rotation_keys)
            };
            local[n] = Mat4::from_translation(tr) * Mat4::from_quat(ro) * Mat4::from_scale(sc);
        }
    }
    let mut world = vec![Mat4::IDENTITY; scene.nodes.len()];
    for id in scene.depth_first() {
        world[id] = match scene.nodes[id].parent {
            Some(p) => world[p] * local[id],
            None => local[id],
        };
    }
    let mut count: HashMap<&str, usize> = HashMap::new();
    for n in &scene.nodes {
        *count.entry(n.name.as_str()).or_default() += 1;
    }
    scene
        .nodes
        .iter()
        .enumerate()
        .filter(|(i, n)| *i != 0 && count[n.name.as_str()] == 1 && !n.name.contains("$AssimpFbx$"))
        .map(|(i, n)| (n.name.clone(), world[i]))
        .collect()
}

/// A ufbx name without the `Model::` prefix it keeps in binary FBX 6.1 files.
fn plain(name: &str) -> String {
    name.strip_prefix("Model::").unwrap_or(name).to_string()
}

fn ufbx_worlds(s: &ufbx::Scene) -> HashMap<String, Mat4> {
    let mut count: HashMap<String, usize> = HashMap::new();
    for n in s.nodes.iter() {
        *count.entry(plain(&n.element.name)).or_default() += 1;
    }
    s.nodes
        .iter()
        .filter(|n| !n.is_root && count[&plain(&n.element.name)] == 1)
        .map(|n| (plain(&n.element.name), ufbx_matrix(&n.geometry_to_world)))
        .collect()
}

fn compare_worlds(
    what: &str,
    ours: &HashMap<String, Mat4>,
    theirs: &HashMap<String, Mat4>,
) -> Result<usize, String> {
    let mut compared = 0;
    for (name, a) in ours {
        let Some(b) = theirs.get(name) else { continue };
        let scale = a
            .to_cols_array()
            .iter()
            .chain(b.to_cols_array().iter())
            .fold(1f32, |m, x| m.max(x.abs()));
        let worst = a
            .to_cols_array()
            .iter()
            .zip(b.to_cols_array().iter())
            .map(|(x, y)| (x - y).abs())
            .fold(0f32, f32::max);
        if worst > 2e-4 * scale {
            return Err(format!("{what}: node {name:?} world {a:?}, ufbx {b:?}"));
        }
        compared += 1;
    }
    Ok(compared)
}

/// Files whose animated poses kiln (as Assimp 5.2, which the conformance test holds it to)
/// deliberately computes differently from ufbx; their bind poses and counts are still compared.
const ANIMATION_QUIRKS: &[(&str, &str)] = &[(
    "(generated) feature file",
    "Assimp 5.2 folds PreRotation into a node's animation channel while also keeping the \
     PreRotation helper node (so it applies twice while animated), and gives the channels of a \
     node with pivots 0 for the components its curves lack instead of the node's static value",
)];

/// Compares one file; returns a line for the report.
fn check(name: &str, bytes: &[u8]) -> Result<String, String> {
    let theirs = ufbx::load_memory(bytes, ufbx::LoadOpts::default());
    let ours = kiln_fbx_scene::import(bytes);
    let (theirs, ours) = match (theirs, ours) {
        (Err(_), Err(e)) => return Ok(format!("{name}: both reject ({e})")),
        (Ok(_), Err(e)) => return Err(format!("{name}: kiln rejects ({e}), ufbx reads it")),
        (Err(e), Ok(_)) => {
            return Err(format!(
                "{name}: ufbx rejects ({:?}), kiln reads it",
                e.description.to_string()
            ));
        }
        (Ok(t), Ok(o)) => (t, o),
    };
    let ck = kiln_counts(bytes, &ours);
    let cu = ufbx_counts(&theirs);
    if ck != cu {
        return Err(format!(
            "{name}: counts differ:\n kiln {ck:?}\n ufbx {cu:?}"
        ));
    }
    let mut compared = compare_worlds(
        &format!("{name} bind"),
        &kiln_worlds(&ours, None),
        &ufbx_worlds(&theirs),
    )?;
    let skip_anim = ANIMATION_QUIRKS.iter().find(|(f, _)| *f == name);
    for (i, stack) in theirs.anim_stacks.iter().enumerate() {
        let Some(anim) = ours.animations.get(i) else {
            continue;
        };
        if skip_anim.is_some() {
            break;
        }
        // Key times of the stack's curves (seconds): first, middle and last of the longest.
        let longest = theirs.anim_curves.iter().max_by_key(|c| c.keyframes.len());
        let Some(curve) = longest else { continue };
        // Keys inside the stack's time range (Assimp drops the others).
        let keys: Vec<&ufbx::Keyframe> = curve
            .keyframes
            .iter()
            .filter(|k| k.time >= stack.time_begin - 1e-9 && k.time <= stack.time_end + 1e-9)
            .collect();
        if keys.is_empty() {
            continue;
        }
        for k in [0, keys.len() / 2, keys.len() - 1] {
            let sec = keys[k].time;
            let ticks = sec * anim.ticks_per_second - stack.time_begin * anim.ticks_per_second;
            let evaluated =
                ufbx::evaluate_scene(&theirs, &stack.anim, sec, ufbx::EvaluateOpts::default())
                    .map_err(|e| {
                        format!("{name}: ufbx evaluate: {:?}", e.description.to_string())
                    })?;
            compared += compare_worlds(
                &format!("{name} at {sec:.4} s"),
                &kiln_worlds(&ours, Some((anim, ticks))),
                &ufbx_worlds(&evaluated),
            )?;
        }
    }
    let note = skip_anim.map_or(String::new(), |(_, why)| {
        format!(" (animated poses not compared: {why})")
    });
    Ok(format!(
        "{name}{note}: {} mesh parts, {} polygons, {} clusters, {} weights, {} stacks, {} curves, {} keys; {compared} world transforms equal",
        ck.mesh_parts,
        ck.polygons,
        ck.cluster_bones.len(),
        ck.weights.iter().map(|w| w.1).sum::<usize>(),
        ck.stacks,
        ck.curves,
        ck.keys
    ))
}

/// An FBX 6.1 file (named objects, `Properties60`, geometry on the model, `Connect`).
fn legacy_61() -> Vec<u8> {
    let s = |v: &str| OwnedValue::string(v);
    let leaf = |n: &str, v: OwnedValue| OwnedNode::new(n).with(v);
    let prop = |name: &str, ty: &str, vals: &[f64]| {
        let mut n = OwnedNode::new("Property")
            .with(s(name))
            .with(s(ty))
            .with(s("A+"));
        for v in vals {
            n = n.with(OwnedValue::F64(*v));
        }
        n
    };
    let props60 = |children: Vec<OwnedNode>| OwnedNode {
        name: "Properties60".into(),
        properties: Vec::new(),
        children,
    };
    let element = |name: &str,
                   ty: &str,
                   mapping: &str,
                   reference: &str,
                   data: (&str, OwnedValue),
                   index: Option<(&str, OwnedValue)>| {
        let mut e = OwnedNode::new(name)
            .with(OwnedValue::I32(0))
            .with_child(leaf("Version", OwnedValue::I32(101)))
            .with_child(leaf("Name", s("")))
            .with_child(leaf("MappingInformationType", s(mapping)))
            .with_child(leaf("ReferenceInformationType", s(reference)))
            .with_child(leaf(data.0, data.1));
        if let Some((n, v)) = index {
            e = e.with_child(leaf(n, v));
        }
        let _ = ty;
        e
    };
    let layer_element = |ty: &str| {
        OwnedNode::new("LayerElement")
            .with_child(leaf("Type", s(ty)))
            .with_child(leaf("TypedIndex", OwnedValue::I32(0)))
    };
    // A unit cube, 8 points, 6 quads.
    let pts = [
        [-1.0, -1.0, -1.0],
        [1.0, -1.0, -1.0],
        [1.0, 1.0, -1.0],
        [-1.0, 1.0, -1.0],
        [-1.0, -1.0, 1.0],
        [1.0, -1.0, 1.0],
        [1.0, 1.0, 1.0],
        [-1.0, 1.0, 1.0],
    ];
    let quads = [
        [0, 3, 2, 1],
        [4, 5, 6, 7],
        [0, 1, 5, 4],
        [2, 3, 7, 6],
        [1, 2, 6, 5],
        [0, 4, 7, 3],
    ];
    let mut pvi = Vec::new();
    for q in quads {
        pvi.extend_from_slice(&[q[0], q[1], q[2], -q[3] - 1]);
    }
    let cube = OwnedNode::new("Model")
        .with(s("Model::Cube"))
        .with(s("Mesh"))
        .with_child(leaf("Version", OwnedValue::I32(232)))
        .with_child(props60(vec![
            prop("Lcl Translation", "Lcl Translation", &[1.0, 2.0, 3.0]),
            prop("Lcl Rotation", "Lcl Rotation", &[10.0, 20.0, 30.0]),
            prop("Lcl Scaling", "Lcl Scaling", &[1.0, 2.0, 1.0]),
        ]))
        .with_child(leaf(
            "Vertices",
            OwnedValue::F64Array(pts.iter().flatten().copied().collect()),
        ))
        .with_child(leaf("PolygonVertexIndex", OwnedValue::I32Array(pvi)))
        .with_child(leaf("GeometryVersion", OwnedValue::I32(124)))
        .with_child(element(
            "LayerElementNormal",
            "",
            "ByVertice",
            "Direct",
            (
                "Normals",
                OwnedValue::F64Array(
                    pts.iter()
                        .flat_map(|p| {
                            Vec3::from_array(p.map(|x| x as f32))
                                .normalize()
                                .to_array()
                                .map(f64::from)
                        })
                        .collect(),
                ),
            ),
            None,
        ))
        .with_child(element(
            "LayerElementMaterial",
            "",
            "ByPolygon",
            "IndexToDirect",
            ("Materials", OwnedValue::I32Array(vec![0, 0, 1, 1, 0, 1])),
            None,
        ))
        .with_child(
            OwnedNode::new("Layer")
                .with(OwnedValue::I32(0))
                .with_child(leaf("Version", OwnedValue::I32(100)))
                .with_child(layer_element("LayerElementNormal"))
                .with_child(layer_element("LayerElementMaterial")),
        );
    let bone = OwnedNode::new("Model")
        .with(s("Model::Bone"))
        .with(s("Limb"))
        .with_child(leaf("Version", OwnedValue::I32(232)))
        .with_child(props60(vec![prop(
            "Lcl Translation",
            "Lcl Translation",
            &[0.0, 1.0, 0.0],
        )]));
    let material = |name: &str, rgb: &[f64]| {
        OwnedNode::new("Material")
            .with(s(name))
            .with(s(""))
            .with_child(leaf("Version", OwnedValue::I32(102)))
            .with_child(leaf("ShadingModel", s("lambert")))
            .with_child(props60(vec![prop("DiffuseColor", "ColorRGB", rgb)]))
    };
    let identity: Vec<f64> = Mat4::IDENTITY
        .to_cols_array()
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let link: Vec<f64> = Mat4::from_translation(Vec3::Y)
        .to_cols_array()
        .iter()
        .map(|&v| f64::from(v))
        .collect();
    let skin = OwnedNode::new("Deformer")
        .with(s("Deformer::Skin Cube"))
        .with(s("Skin"))
        .with_child(leaf("Version", OwnedValue::I32(100)))
        .with_child(leaf("Link_DeformAcuracy", OwnedValue::F64(50.0)));
    let cluster = OwnedNode::new("Deformer")
        .with(s("SubDeformer::Cluster Cube Bone"))
        .with(s("Cluster"))
        .with_child(leaf("Version", OwnedValue::I32(100)))
        .with_child(leaf("Indexes", OwnedValue::I32Array(vec![2, 3, 6, 7])))
        .with_child(leaf(
            "Weights",
            OwnedValue::F64Array(vec![1.0, 1.0, 0.5, 0.5]),
        ))
        .with_child(leaf("Transform", OwnedValue::F64Array(identity)))
        .with_child(leaf("TransformLink", OwnedValue::F64Array(link)));
    let global = OwnedNode::new("GlobalSettings")
        .with_child(leaf("Version", OwnedValue::I32(1000)))
        .with_child(props60(vec![
            OwnedNode::new("Property")
                .with(s("UpAxis"))
                .with(s("int"))
                .with(s(""))
                .with(OwnedValue::I32(1)),
            OwnedNode::new("Property")
                .with(s("UnitScaleFactor"))
                .with(s("double"))
                .with(s(""))
                .with(OwnedValue::F64(1.0)),
        ]));
    let connect = |a: &str, b: &str| {
        OwnedNode::new("Connect")
            .with(s("OO"))
            .with(s(a))
            .with(s(b))
    };
    let tree = vec![
        OwnedNode::new("FBXHeaderExtension")
            .with_child(leaf("FBXHeaderVersion", OwnedValue::I32(1003)))
            .with_child(leaf("FBXVersion", OwnedValue::I32(6100))),
        OwnedNode::new("Objects")
            .with_child(cube)
            .with_child(bone)
            .with_child(material("Material::red", &[0.8, 0.1, 0.1]))
            .with_child(material("Material::blue", &[0.1, 0.1, 0.8]))
            .with_child(skin)
            .with_child(cluster)
            .with_child(global),
        OwnedNode::new("Connections")
            .with_child(connect("Model::Cube", "Model::Scene"))
            .with_child(connect("Model::Bone", "Model::Scene"))
            .with_child(connect("Material::red", "Model::Cube"))
            .with_child(connect("Material::blue", "Model::Cube"))
            .with_child(connect("Deformer::Skin Cube", "Model::Cube"))
            .with_child(connect(
                "SubDeformer::Cluster Cube Bone",
                "Deformer::Skin Cube",
            ))
            .with_child(connect("Model::Bone", "SubDeformer::Cluster Cube Bone")),
    ];
    kiln_fbx::write_binary(
        &tree,
        &kiln_fbx::WriteOptions {
            version: 6100,
            compression: kiln_fbx::Compression::None,
        },
    )
    .unwrap()
}

#[test]
fn kiln_agrees_with_ufbx_on_the_corpus_and_generated_files() {
    let mut lines = Vec::new();
    let mut failures = Vec::new();
    let mut files: Vec<(String, Vec<u8>)> = corpus::fbx_files()
        .into_iter()
        .map(|p| (corpus::name(&p), corpus::read(&p)))
        .collect();
    assert!(
        files.len() >= 19,
        "expected 19 corpus FBX files, found {}",
        files.len()
    );
    let tube = skinned_tube(TubeSpec {
        rings: 12,
        segments: 8,
        bones: 6,
        frames: 10,
        per_corner: false,
    });
    files.push((
        "(generated) skinned tube, 7.4".into(),
        kiln_fbx_scene::write_fbx(&tube, &kiln_fbx_scene::WriteOptions::default()).unwrap(),
    ));
    files.push((
        "(generated) FBX 6.1 cube, two materials, skin".into(),
        legacy_61(),
    ));
    files.push(("(generated) feature file".into(), feature_file()));
    let tube_tree =
        kiln_fbx_scene::write_fbx_nodes(&tube, &kiln_fbx_scene::WriteOptions::default()).unwrap();
    files.push((
        "(generated) skinned tube, 6.1 binary with Takes".into(),
        legacy::fbx61(&tube),
    ));
    files.push((
        "(generated) skinned tube, 6.1 ASCII with Takes".into(),
        legacy::write_ascii(&legacy::fbx61_tree(&tube_tree), 6100),
    ));
    files.push((
        "(generated) skinned tube, 5.0 binary".into(),
        legacy::fbx5(&tube, false),
    ));
    files.push((
        "(generated) skinned tube, 5.8 ASCII".into(),
        legacy::fbx5(&tube, true),
    ));
    // More files to compare, for development (`KILN_UFBX_FILES=a.fbx:b.fbx`).
    let extra: Vec<(String, Vec<u8>)> = std::env::var("KILN_UFBX_FILES")
        .map(|v| {
            v.split(':')
                .filter(|p| !p.is_empty())
                .map(|p| {
                    (
                        p.to_string(),
                        std::fs::read(p).expect("KILN_UFBX_FILES file"),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let extra_names: Vec<String> = extra.iter().map(|e| e.0.clone()).collect();
    files.extend(extra);
    for (name, bytes) in &files {
        match check(name, bytes) {
            Ok(line) => lines.push(line),
            Err(e) => failures.push(e),
        }
    }
    println!("{}", lines.join("\n"));
    if !extra_names.is_empty() {
        failures.retain(|f| {
            let extra = extra_names.iter().any(|n| f.starts_with(n.as_str()));
            if extra {
                println!("DIFFERS {f}");
            }
            !extra
        });
        lines.retain(|l| !extra_names.iter().any(|n| l.starts_with(n.as_str())));
    }
    assert!(
        failures.is_empty(),
        "kiln and ufbx disagree:\n{}",
        failures.join("\n")
    );
    // Real work was compared: both readers read 18 of the 19 corpus files, and the skinned
    // and animated ones were evaluated.
    assert_eq!(
        lines.iter().filter(|l| l.contains("both reject")).count(),
        1
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("huesitos") && l.contains("9 clusters"))
    );
}

#[test]
fn the_61_file_reads_as_expected() {
    let s = kiln_fbx_scene::import(&legacy_61()).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    // One geometry, two materials: two meshes of three quads each.
    assert_eq!(s.meshes.len(), 2);
    assert_eq!(s.meshes[0].face_sizes, vec![4, 4, 4]);
    assert_eq!(s.materials[0].name, "red");
    assert_eq!(s.materials[1].diffuse, Some(Vec3::new(0.1, 0.1, 0.8)));
    let cube = s.find_node("Cube").unwrap();
    assert_eq!(s.nodes[cube].meshes, vec![0, 1]);
    let p = s.nodes[cube].transform.w_axis.truncate();
    assert_eq!(p, Vec3::new(1.0, 2.0, 3.0));
    // The bone weights control points 2, 3, 6, 7: their corners in each part.
    let bone = &s.meshes[0].bones[0];
    assert_eq!(bone.name, "Bone");
    assert!(!bone.weights.is_empty());
    for w in &bone.weights {
        let v = s.meshes[0].positions[w.vertex as usize];
        assert!(v.y > 0.0, "corner {v:?} of a weighted control point");
    }
}
