//! A [`Scene`] as a binary FBX 7.4 file, for tests, benchmarks and `kiln demo`: models with
//! `Lcl Translation/Rotation/Scaling` (XYZ Euler), one `Geometry` per mesh (control points =
//! the mesh's vertices, normals/tangents/binormals `ByVertice`/`Direct`, UV and colour sets
//! `ByPolygonVertex`/`IndexToDirect`, material `AllSame`), Phong/Lambert materials with their
//! textures (`DiffuseColor`, `SpecularColor`, `NormalMap`, `Bump`...; embedded images as
//! `Video` content), a `Skin` with one `Cluster` per bone (`Transform` = the offset matrix,
//! `TransformLink` = the bone's bind pose), a `BlendShape` with one `BlendShapeChannel` per
//! morph target (`DeformPercent`, `FullWeights`) and one `Shape` geometry per shape, and one
//! `AnimationStack` per animation with linear `AnimationCurve`s (node channels, and
//! `DeformPercent` curves for the morph channels).
//!
//! Reading the file back ([`crate::import`]) gives the same scene when: the root is
//! `RootNode` with an identity transform and no meshes; each mesh's vertices are already one
//! per face corner in face order (Assimp's layout); node transforms are translation ·
//! rotation · scaling without shear; and each channel's position, rotation and scaling keys
//! share their times. Otherwise the importer's normal rules apply (vertices unrolled per
//! corner, keys merged and lerped).

use std::collections::HashMap;

use kiln_fbx::{Compression, OwnedNode, OwnedValue};
use kiln_scene::assimp_math::{M4, Q};
use kiln_scene::{Mat4, Scene, TextureKind};

use crate::graph::KTIME_PER_SECOND;

/// Writer settings.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WriteOptions {
    /// zlib-compress arrays of 128 bytes or more, as the FBX SDK does.
    pub compress: bool,
    /// Name written as the `Creator`.
    pub creator: &'static str,
}

impl Default for WriteOptions {
    fn default() -> Self {
        WriteOptions {
            compress: true,
            creator: "kiln-fbx-scene",
        }
    }
}

/// Why a scene cannot be written.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum WriteError {
    /// A reference inside the scene is out of range.
    #[error("invalid scene: {0}")]
    InvalidScene(String),
    /// The node tree could not be encoded.
    #[error("{0}")]
    Encode(#[from] kiln_fbx::Error),
}

/// A string value: names and paths as the bytes they came from (`kiln_scene::names`).
fn s(v: &str) -> OwnedValue {
    OwnedValue::String(kiln_scene::names::to_bytes(v).into_owned())
}

fn name_class(name: &str, class: &str) -> OwnedValue {
    let mut b = kiln_scene::names::to_bytes(name).into_owned();
    b.extend_from_slice(&[0, 1]);
    b.extend_from_slice(class.as_bytes());
    OwnedValue::String(b)
}

fn node(name: &str, values: Vec<OwnedValue>) -> OwnedNode {
    OwnedNode {
        name: name.into(),
        properties: values,
        children: Vec::new(),
    }
}

fn leaf(name: &str, v: OwnedValue) -> OwnedNode {
    node(name, vec![v])
}

fn p(name: &str, ty: &str, label: &str, flags: &str, values: Vec<OwnedValue>) -> OwnedNode {
    let mut v = vec![s(name), s(ty), s(label), s(flags)];
    v.extend(values);
    node("P", v)
}

fn p_vec(name: &str, ty: &str, v: [f64; 3]) -> OwnedNode {
    let label = if ty.starts_with("Lcl") {
        ""
    } else {
        if ty == "ColorRGB" { "Color" } else { "Vector" }
    };
    let flags = if ty.starts_with("Lcl") { "A" } else { "" };
    p(
        name,
        ty,
        label,
        flags,
        v.iter().map(|&x| OwnedValue::F64(x)).collect(),
    )
}

fn p_f64(name: &str, v: f64) -> OwnedNode {
    p(name, "double", "Number", "", vec![OwnedValue::F64(v)])
}

fn p_int(name: &str, v: i32) -> OwnedNode {
    p(name, "int", "Integer", "", vec![OwnedValue::I32(v)])
}

fn p_enum(name: &str, v: i32) -> OwnedNode {
    p(name, "enum", "", "", vec![OwnedValue::I32(v)])
}

fn p_time(name: &str, v: i64) -> OwnedNode {
    p(name, "KTime", "Time", "", vec![OwnedValue::I64(v)])
}

/// An `AnimationCurve` with these keys, every one linear (one attribute for all keys).
fn linear_curve(id: i64, default: f64, times: Vec<i64>, values: Vec<f32>) -> OwnedNode {
    let keys = times.len() as i32;
    let mut curve = node(
        "AnimationCurve",
        vec![OwnedValue::I64(id), name_class("", "AnimCurve"), s("")],
    );
    curve.children.extend([
        leaf("Default", OwnedValue::F64(default)),
        leaf("KeyVer", OwnedValue::I32(4009)),
        leaf("KeyTime", OwnedValue::I64Array(times)),
        leaf("KeyValueFloat", OwnedValue::F32Array(values)),
        leaf("KeyAttrFlags", OwnedValue::I32Array(vec![0x0000_0104])),
        leaf("KeyAttrDataFloat", OwnedValue::F32Array(vec![0.0; 4])),
        leaf("KeyAttrRefCount", OwnedValue::I32Array(vec![keys])),
    ]);
    curve
}

fn props70(children: Vec<OwnedNode>) -> OwnedNode {
    OwnedNode {
        name: "Properties70".into(),
        properties: Vec::new(),
        children,
    }
}

/// Euler angles in degrees for FBX's XYZ order (`R = Rz * Ry * Rx`, column vectors).
pub(crate) fn euler_xyz_degrees(r: &[[f32; 3]; 3]) -> [f64; 3] {
    let m = |i: usize, j: usize| f64::from(r[i][j]);
    let sy = (-m(2, 0)).clamp(-1.0, 1.0);
    let y = sy.asin();
    let (x, z) = if sy.abs() < 0.999_999_9 {
        (m(2, 1).atan2(m(2, 2)), m(1, 0).atan2(m(0, 0)))
    } else {
        // Gimbal lock: fold the rotation into x.
        ((-m(1, 2)).atan2(m(1, 1)), 0.0)
    };
    [x.to_degrees(), y.to_degrees(), z.to_degrees()]
}

/// Splits a matrix into FBX translation, XYZ Euler degrees and scaling.
fn trs(m: &Mat4) -> ([f64; 3], [f64; 3], [f64; 3]) {
    let (sc, q, t) = M4::from_glam(m).decompose();
    let r = q.matrix().rows3();
    (t.map(f64::from), euler_xyz_degrees(&r), sc.map(f64::from))
}

/// FBX `TimeMode` for a frame rate, with `CustomFrameRate` when none fits.
fn time_mode(fps: f64) -> (i32, f64) {
    let modes = [
        (1.0, 0),
        (120.0, 1),
        (100.0, 2),
        (60.0, 3),
        (50.0, 4),
        (48.0, 5),
        (30.0, 6),
        (25.0, 10),
        (24.0, 11),
        (1000.0, 12),
    ];
    match modes.iter().find(|(r, _)| (*r - fps).abs() < 1e-9) {
        Some(&(_, m)) => (m, fps),
        None => (14, fps),
    }
}

/// One animated property: its name, key times and X/Y/Z values.
type Track<'n> = (&'n str, Vec<i64>, [Vec<f32>; 3]);

struct Ids(i64);

impl Ids {
    fn next(&mut self) -> i64 {
        self.0 += 1;
        self.0
    }
}

/// Writes `scene` as binary FBX 7.4.
pub fn write_fbx(scene: &Scene, options: &WriteOptions) -> Result<Vec<u8>, WriteError> {
    let tree = write_fbx_nodes(scene, options)?;
    let wo = kiln_fbx::WriteOptions {
        version: 7400,
        compression: if options.compress {
            Compression::Zlib {
                level: 1,
                min_bytes: 128,
            }
        } else {
            Compression::None
        },
    };
    Ok(kiln_fbx::write_binary(&tree, &wo)?)
}

/// The node tree [`write_fbx`] encodes (for tests that alter it before writing).
pub fn write_fbx_nodes(
    scene: &Scene,
    options: &WriteOptions,
) -> Result<Vec<OwnedNode>, WriteError> {
    scene
        .validate()
        .map_err(|e| WriteError::InvalidScene(e.reason().to_string()))?;
    let mut ids = Ids(1_000_000);
    let mut objects: Vec<OwnedNode> = Vec::new();
    let mut conns: Vec<OwnedNode> = Vec::new();
    let oo = |src: i64, dst: i64| {
        node(
            "C",
            vec![s("OO"), OwnedValue::I64(src), OwnedValue::I64(dst)],
        )
    };
    let op = |src: i64, dst: i64, prop: &str| {
        node(
            "C",
            vec![s("OP"), OwnedValue::I64(src), OwnedValue::I64(dst), s(prop)],
        )
    };

    // Which nodes are bones.
    let mut is_bone = vec![false; scene.nodes.len()];
    for m in &scene.meshes {
        for b in &m.bones {
            if let Some(i) = scene.find_node(&b.name) {
                is_bone[i] = true;
            }
        }
    }
    // Models. The root is FBX's implicit root unless it carries something.
    let root_is_plain = scene.nodes[0].name == "RootNode"
        && scene.nodes[0].transform == Mat4::IDENTITY
        && scene.nodes[0].meshes.is_empty();
    let mut model_id = vec![0i64; scene.nodes.len()];
    for id in scene.depth_first() {
        let n = &scene.nodes[id];
        if id == 0 && root_is_plain {
            continue;
        }
        let mid = ids.next();
        model_id[id] = mid;
        let class = if !n.meshes.is_empty() {
            "Mesh"
        } else if is_bone[id] {
            "LimbNode"
        } else {
            "Null"
        };
        let (t, r, sc) = trs(&n.transform);
        let mut model = node(
            "Model",
            vec![OwnedValue::I64(mid), name_class(&n.name, "Model"), s(class)],
        );
        model.children.push(leaf("Version", OwnedValue::I32(232)));
        model.children.push(props70(vec![
            p_vec("Lcl Translation", "Lcl Translation", t),
            p_vec("Lcl Rotation", "Lcl Rotation", r),
            p_vec("Lcl Scaling", "Lcl Scaling", sc),
        ]));
        model.children.push(leaf("Shading", OwnedValue::Char(b'Y')));
        model.children.push(leaf("Culling", s("CullingOff")));
        objects.push(model);
        let parent = match n.parent {
            Some(0) if root_is_plain => 0,
            Some(p) => model_id[p],
            None => 0,
        };
        conns.push(oo(mid, parent));
        if class != "Mesh" {
            let aid = ids.next();
            let attr_class = if class == "LimbNode" {
                "LimbNode"
            } else {
                "Null"
            };
            let mut a = node(
                "NodeAttribute",
                vec![
                    OwnedValue::I64(aid),
                    name_class(&n.name, "NodeAttribute"),
                    s(attr_class),
                ],
            );
            a.children.push(leaf(
                "TypeFlags",
                s(if class == "LimbNode" {
                    "Skeleton"
                } else {
                    "Null"
                }),
            ));
            objects.push(a);
            conns.push(oo(aid, mid));
        }
    }

    // Embedded textures: one Video each.
    let mut video_ids = Vec::with_capacity(scene.textures.len());
    for (i, t) in scene.textures.iter().enumerate() {
        let vid = ids.next();
        video_ids.push(vid);
        let file = if t.filename.is_empty() {
            format!(
                "embedded{i}.{}",
                if t.format_hint.is_empty() {
                    "bin"
                } else {
                    &t.format_hint
                }
            )
        } else {
            t.filename.clone()
        };
        let mut v = node(
            "Video",
            vec![OwnedValue::I64(vid), name_class(&file, "Video"), s("Clip")],
        );
        v.children.push(leaf("Type", s("Clip")));
        v.children.push(leaf("UseMipMap", OwnedValue::I32(0)));
        v.children.push(leaf("Filename", s(&file)));
        v.children.push(leaf("RelativeFilename", s(&file)));
        v.children
            .push(leaf("Content", OwnedValue::Raw(t.data.clone())));
        objects.push(v);
    }

    // Materials and their textures.
    let mut material_ids = Vec::with_capacity(scene.materials.len());
    for m in &scene.materials {
        let mid = ids.next();
        material_ids.push(mid);
        let phong = m.specular.is_some() || m.shininess.is_some();
        let mut ps = Vec::new();
        let c3 = |v: kiln_scene::Vec3| [f64::from(v.x), f64::from(v.y), f64::from(v.z)];
        if let Some(c) = m.diffuse {
            ps.push(p_vec("DiffuseColor", "ColorRGB", c3(c)));
        }
        if let Some(c) = m.ambient {
            ps.push(p_vec("AmbientColor", "ColorRGB", c3(c)));
        }
        if let Some(c) = m.emissive {
            ps.push(p_vec("EmissiveColor", "ColorRGB", c3(c)));
        }
        if let Some(c) = m.specular {
            ps.push(p_vec("SpecularColor", "ColorRGB", c3(c)));
        }
        if let Some(v) = m.shininess_strength {
            ps.push(p_f64("SpecularFactor", f64::from(v)));
        }
        if let Some(v) = m.shininess {
            ps.push(p_f64("ShininessExponent", f64::from(v)));
        }
        if let Some(v) = m.opacity {
            ps.push(p_f64("Opacity", f64::from(v)));
        }
        let mut mat = node(
            "Material",
            vec![OwnedValue::I64(mid), name_class(&m.name, "Material"), s("")],
        );
        mat.children.push(leaf("Version", OwnedValue::I32(102)));
        mat.children.push(leaf(
            "ShadingModel",
            s(if phong { "phong" } else { "lambert" }),
        ));
        mat.children.push(leaf("MultiLayer", OwnedValue::I32(0)));
        mat.children.push(props70(ps));
        objects.push(mat);
        for t in &m.textures {
            let prop = match t.kind {
                TextureKind::Diffuse => "DiffuseColor",
                TextureKind::Specular => "SpecularColor",
                TextureKind::Normals => "NormalMap",
                TextureKind::Height => "Bump",
                TextureKind::Ambient => "AmbientColor",
                TextureKind::Emissive => "EmissiveColor",
                TextureKind::Opacity => "TransparentColor",
                TextureKind::Reflection => "ReflectionColor",
                TextureKind::Displacement => "DisplacementColor",
                TextureKind::Shininess => "ShininessExponent",
                TextureKind::Unknown => continue,
            };
            let tid = ids.next();
            let mut tex = node(
                "Texture",
                vec![OwnedValue::I64(tid), name_class(&t.path, "Texture"), s("")],
            );
            tex.children.push(leaf("Type", s("TextureVideoClip")));
            tex.children.push(leaf("Version", OwnedValue::I32(202)));
            tex.children
                .push(leaf("TextureName", name_class(&t.path, "Texture")));
            let uv_name = scene
                .meshes
                .iter()
                .find(|me| material_ids.len() - 1 == me.material)
                .and_then(|me| me.uv_channels.get(t.uv_channel as usize))
                .map(|c| c.name.clone())
                .unwrap_or_default();
            if t.uv_channel > 0 && !uv_name.is_empty() {
                tex.children.push(props70(vec![p(
                    "UVSet",
                    "KString",
                    "",
                    "",
                    vec![s(&uv_name)],
                )]));
            }
            tex.children.push(leaf("FileName", s(&t.path)));
            tex.children.push(leaf("RelativeFilename", s(&t.path)));
            objects.push(tex);
            conns.push(op(tid, mid, prop));
            if let Some(e) = t.embedded {
                let vid = *video_ids
                    .get(e)
                    .ok_or_else(|| WriteError::InvalidScene(format!("embedded texture {e}")))?;
                conns.push(oo(vid, tid));
            }
        }
    }

    // Geometry, one per mesh, connected to every node that draws it.
    let mut owners: HashMap<usize, Vec<usize>> = HashMap::new();
    for (i, n) in scene.nodes.iter().enumerate() {
        for &m in &n.meshes {
            owners.entry(m).or_default().push(i);
        }
    }
    let mut node_materials: HashMap<usize, Vec<usize>> = HashMap::new();
    let mut geometry_ids: HashMap<usize, i64> = HashMap::new();
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        let Some(nodes) = owners.get(&mi) else {
            continue;
        };
        let gid = ids.next();
        geometry_ids.insert(mi, gid);
        objects.push(geometry_node(gid, mesh, &mut node_materials, nodes));
        for &n in nodes {
            conns.push(oo(gid, model_id[n]));
            let list = node_materials.entry(n).or_default();
            if !list.contains(&mesh.material) {
                list.push(mesh.material);
                conns.push(oo(material_ids[mesh.material], model_id[n]));
            }
        }
        // Skin.
        if !mesh.bones.is_empty() {
            let sid = ids.next();
            let mut skin = node(
                "Deformer",
                vec![
                    OwnedValue::I64(sid),
                    name_class(&mesh.name, "Deformer"),
                    s("Skin"),
                ],
            );
            skin.children.push(leaf("Version", OwnedValue::I32(101)));
            skin.children
                .push(leaf("Link_DeformAcuracy", OwnedValue::F64(50.0)));
            objects.push(skin);
            conns.push(oo(sid, gid));
            let mesh_global = scene.global_transform(nodes[0]);
            for b in &mesh.bones {
                let cid = ids.next();
                let mut cl = node(
                    "Deformer",
                    vec![
                        OwnedValue::I64(cid),
                        name_class(&b.name, "SubDeformer"),
                        s("Cluster"),
                    ],
                );
                cl.children.push(leaf("Version", OwnedValue::I32(100)));
                cl.children.push(leaf("UserData", s("")));
                cl.children.push(leaf(
                    "Indexes",
                    OwnedValue::I32Array(b.weights.iter().map(|w| w.vertex as i32).collect()),
                ));
                cl.children.push(leaf(
                    "Weights",
                    OwnedValue::F64Array(b.weights.iter().map(|w| f64::from(w.weight)).collect()),
                ));
                let link = mesh_global * b.offset_matrix.inverse();
                cl.children.push(leaf(
                    "Transform",
                    OwnedValue::F64Array(M4::from_glam(&b.offset_matrix).to_fbx_array()),
                ));
                cl.children.push(leaf(
                    "TransformLink",
                    OwnedValue::F64Array(M4::from_glam(&link).to_fbx_array()),
                ));
                objects.push(cl);
                conns.push(oo(cid, sid));
                let bone = scene.find_node(&b.name).ok_or_else(|| {
                    WriteError::InvalidScene(format!("bone '{}' has no node", b.name))
                })?;
                conns.push(oo(model_id[bone], cid));
            }
        }
    }

    // Blend shapes: per mesh a `BlendShape`, per target a `BlendShapeChannel`, per shape a
    // `Shape` geometry (a dense shape lists every vertex).
    let mut channel_ids: HashMap<(usize, usize), i64> = HashMap::new();
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        if mesh.morph_targets.is_empty() {
            continue;
        }
        let Some(&gid) = geometry_ids.get(&mi) else {
            continue;
        };
        let bid = ids.next();
        let mut blend = node(
            "Deformer",
            vec![
                OwnedValue::I64(bid),
                name_class(&mesh.name, "Deformer"),
                s("BlendShape"),
            ],
        );
        blend.children.push(leaf("Version", OwnedValue::I32(100)));
        objects.push(blend);
        conns.push(oo(bid, gid));
        for (ti, t) in mesh.morph_targets.iter().enumerate() {
            let cid = ids.next();
            channel_ids.insert((mi, ti), cid);
            let mut ch = node(
                "Deformer",
                vec![
                    OwnedValue::I64(cid),
                    name_class(&t.name, "SubDeformer"),
                    s("BlendShapeChannel"),
                ],
            );
            ch.children.push(leaf("Version", OwnedValue::I32(100)));
            ch.children.push(props70(vec![p(
                "DeformPercent",
                "Number",
                "",
                "A",
                vec![OwnedValue::F64(f64::from(t.weight) * 100.0)],
            )]));
            ch.children.push(leaf(
                "FullWeights",
                OwnedValue::F64Array(
                    t.shapes
                        .iter()
                        .map(|sh| f64::from(sh.full_weight) * 100.0)
                        .collect(),
                ),
            ));
            objects.push(ch);
            conns.push(oo(cid, bid));
            for sh in &t.shapes {
                let sid = ids.next();
                let mut shape = node(
                    "Geometry",
                    vec![
                        OwnedValue::I64(sid),
                        name_class(&sh.name, "Geometry"),
                        s("Shape"),
                    ],
                );
                let vec3s = |v: &[kiln_scene::Vec3]| {
                    OwnedValue::F64Array(
                        v.iter().flat_map(|d| d.to_array()).map(f64::from).collect(),
                    )
                };
                shape.children.push(leaf("Version", OwnedValue::I32(100)));
                shape.children.push(leaf(
                    "Indexes",
                    OwnedValue::I32Array(
                        (0..sh.positions.len())
                            .map(|i| sh.vertex(i) as i32)
                            .collect(),
                    ),
                ));
                shape.children.push(leaf("Vertices", vec3s(&sh.positions)));
                if !sh.normals.is_empty() {
                    shape.children.push(leaf("Normals", vec3s(&sh.normals)));
                }
                objects.push(shape);
                conns.push(oo(sid, cid));
            }
        }
    }

    // Animations.
    let mut first_fps = None;
    for a in &scene.animations {
        let fps = if a.ticks_per_second > 0.0 {
            a.ticks_per_second
        } else {
            1.0
        };
        first_fps.get_or_insert(fps);
        let ktime = |ticks: f64| (ticks / fps * KTIME_PER_SECOND).round() as i64;
        let stack_id = ids.next();
        let layer_id = ids.next();
        let mut stack = node(
            "AnimationStack",
            vec![
                OwnedValue::I64(stack_id),
                name_class(&a.name, "AnimStack"),
                s(""),
            ],
        );
        stack.children.push(props70(vec![
            p_time("LocalStart", 0),
            p_time("LocalStop", ktime(a.duration)),
            p_time("ReferenceStart", 0),
            p_time("ReferenceStop", ktime(a.duration)),
        ]));
        objects.push(stack);
        // Assimp needs a scope on every object: an empty property table gives one.
        let mut layer = node(
            "AnimationLayer",
            vec![
                OwnedValue::I64(layer_id),
                name_class("BaseLayer", "AnimLayer"),
                s(""),
            ],
        );
        layer.children.push(props70(Vec::new()));
        objects.push(layer);
        conns.push(oo(layer_id, stack_id));
        for mc in &a.morph_channels {
            let Some(&channel) = channel_ids.get(&(mc.mesh, mc.target)) else {
                continue;
            };
            let cn = ids.next();
            let first = mc.keys.first().map_or(0.0, |k| f64::from(k.value) * 100.0);
            let mut cnode = node(
                "AnimationCurveNode",
                vec![
                    OwnedValue::I64(cn),
                    name_class("DeformPercent", "AnimCurveNode"),
                    s(""),
                ],
            );
            cnode.children.push(props70(vec![p(
                "d|DeformPercent",
                "Number",
                "",
                "A",
                vec![OwnedValue::F64(first)],
            )]));
            objects.push(cnode);
            conns.push(oo(cn, layer_id));
            conns.push(op(cn, channel, "DeformPercent"));
            let curve_id = ids.next();
            let curve = linear_curve(
                curve_id,
                first,
                mc.keys.iter().map(|k| ktime(k.time)).collect(),
                mc.keys.iter().map(|k| k.value * 100.0).collect(),
            );
            objects.push(curve);
            conns.push(op(curve_id, cn, "d|DeformPercent"));
        }
        for ch in &a.channels {
            let Some(target) = scene.find_node(&ch.node_name) else {
                continue;
            };
            if target == 0 && root_is_plain {
                continue;
            }
            let mut tracks: Vec<Track> = Vec::new();
            if !ch.position_keys.is_empty() {
                let t = ch.position_keys.iter().map(|k| ktime(k.time)).collect();
                let v = [0, 1, 2].map(|c| ch.position_keys.iter().map(|k| k.value[c]).collect());
                tracks.push(("Lcl Translation", t, v));
            }
            if !ch.rotation_keys.is_empty() {
                let t = ch.rotation_keys.iter().map(|k| ktime(k.time)).collect();
                let mut prev: Option<[f64; 3]> = None;
                let mut xyz: [Vec<f32>; 3] = Default::default();
                for k in &ch.rotation_keys {
                    let q = Q {
                        w: k.value.w,
                        x: k.value.x,
                        y: k.value.y,
                        z: k.value.z,
                    };
                    let mut e = euler_xyz_degrees(&q.matrix().rows3());
                    if let Some(pv) = prev {
                        for c in 0..3 {
                            while e[c] - pv[c] > 180.0 {
                                e[c] -= 360.0;
                            }
                            while pv[c] - e[c] > 180.0 {
                                e[c] += 360.0;
                            }
                        }
                    }
                    prev = Some(e);
                    for c in 0..3 {
                        xyz[c].push(e[c] as f32);
                    }
                }
                tracks.push(("Lcl Rotation", t, xyz));
            }
            if !ch.scaling_keys.is_empty() {
                let t = ch.scaling_keys.iter().map(|k| ktime(k.time)).collect();
                let v = [0, 1, 2].map(|c| ch.scaling_keys.iter().map(|k| k.value[c]).collect());
                tracks.push(("Lcl Scaling", t, v));
            }
            for (prop, times, values) in tracks {
                let cn = ids.next();
                let short = match prop {
                    "Lcl Translation" => "T",
                    "Lcl Rotation" => "R",
                    _ => "S",
                };
                let mut cnode = node(
                    "AnimationCurveNode",
                    vec![
                        OwnedValue::I64(cn),
                        name_class(short, "AnimCurveNode"),
                        s(""),
                    ],
                );
                cnode.children.push(props70(
                    ["d|X", "d|Y", "d|Z"]
                        .iter()
                        .enumerate()
                        .map(|(c, n)| {
                            p(
                                n,
                                "Number",
                                "",
                                "A",
                                vec![OwnedValue::F64(f64::from(
                                    values[c].first().copied().unwrap_or(0.0),
                                ))],
                            )
                        })
                        .collect(),
                ));
                objects.push(cnode);
                conns.push(oo(cn, layer_id));
                conns.push(op(cn, model_id[target], prop));
                for (c, chname) in ["d|X", "d|Y", "d|Z"].iter().enumerate() {
                    let curve_id = ids.next();
                    let curve = linear_curve(
                        curve_id,
                        f64::from(values[c].first().copied().unwrap_or(0.0)),
                        times.clone(),
                        values[c].clone(),
                    );
                    objects.push(curve);
                    conns.push(op(curve_id, cn, chname));
                }
            }
        }
    }

    let fps = first_fps.unwrap_or(30.0);
    let (mode, custom) = time_mode(fps);
    let stop = scene
        .animations
        .first()
        .map_or(KTIME_PER_SECOND as i64, |a| {
            (a.duration / fps * KTIME_PER_SECOND).round() as i64
        });

    let mut header = node("FBXHeaderExtension", Vec::new());
    header
        .children
        .push(leaf("FBXHeaderVersion", OwnedValue::I32(1003)));
    header
        .children
        .push(leaf("FBXVersion", OwnedValue::I32(7400)));
    header.children.push(leaf("Creator", s(options.creator)));
    let mut gs = node("GlobalSettings", Vec::new());
    gs.children.push(leaf("Version", OwnedValue::I32(1000)));
    gs.children.push(props70(vec![
        p_int("UpAxis", 1),
        p_int("UpAxisSign", 1),
        p_int("FrontAxis", 2),
        p_int("FrontAxisSign", 1),
        p_int("CoordAxis", 0),
        p_int("CoordAxisSign", 1),
        p_int("OriginalUpAxis", 1),
        p_int("OriginalUpAxisSign", 1),
        p(
            "UnitScaleFactor",
            "double",
            "Number",
            "",
            vec![OwnedValue::F64(
                scene.metadata.unit_scale_factor.unwrap_or(1.0),
            )],
        ),
        p_enum("TimeMode", mode),
        p(
            "CustomFrameRate",
            "double",
            "Number",
            "",
            vec![OwnedValue::F64(custom)],
        ),
        p_time("TimeSpanStart", 0),
        p_time("TimeSpanStop", stop),
    ]));
    let mut defs = node("Definitions", Vec::new());
    defs.children.push(leaf("Version", OwnedValue::I32(100)));
    defs.children
        .push(leaf("Count", OwnedValue::I32(objects.len() as i32)));
    let mut counts: Vec<(String, i32)> = Vec::new();
    for o in &objects {
        match counts.iter_mut().find(|(n, _)| *n == o.name) {
            Some(c) => c.1 += 1,
            None => counts.push((o.name.clone(), 1)),
        }
    }
    for (n, c) in counts {
        let mut ot = node("ObjectType", vec![s(&n)]);
        ot.children.push(leaf("Count", OwnedValue::I32(c)));
        defs.children.push(ot);
    }
    let mut objs = node("Objects", Vec::new());
    objs.children = objects;
    let mut cs = node("Connections", Vec::new());
    cs.children = conns;
    Ok(vec![header, gs, defs, objs, cs])
}

fn geometry_node(
    gid: i64,
    mesh: &kiln_scene::Mesh,
    node_materials: &mut HashMap<usize, Vec<usize>>,
    nodes: &[usize],
) -> OwnedNode {
    let mut g = node(
        "Geometry",
        vec![
            OwnedValue::I64(gid),
            name_class(&mesh.name, "Geometry"),
            s("Mesh"),
        ],
    );
    g.children.push(leaf(
        "Vertices",
        OwnedValue::F64Array(
            mesh.positions
                .iter()
                .flat_map(|v| [f64::from(v.x), f64::from(v.y), f64::from(v.z)])
                .collect(),
        ),
    ));
    let mut pvi = Vec::with_capacity(mesh.indices.len());
    for f in mesh.faces() {
        for (k, &i) in f.iter().enumerate() {
            pvi.push(if k + 1 == f.len() {
                -(i as i32) - 1
            } else {
                i as i32
            });
        }
    }
    g.children
        .push(leaf("PolygonVertexIndex", OwnedValue::I32Array(pvi)));
    g.children
        .push(leaf("GeometryVersion", OwnedValue::I32(124)));
    let corner_index = OwnedValue::I32Array(mesh.indices.iter().map(|&i| i as i32).collect());
    let vec3s = |v: &[kiln_scene::Vec3]| {
        OwnedValue::F64Array(
            v.iter()
                .flat_map(|v| [f64::from(v.x), f64::from(v.y), f64::from(v.z)])
                .collect(),
        )
    };
    let element = |name: &str, idx: i32, mapping: &str, reference: &str| {
        let mut e = node(name, vec![OwnedValue::I32(idx)]);
        e.children.push(leaf("Version", OwnedValue::I32(101)));
        e.children.push(leaf("Name", s("")));
        e.children.push(leaf("MappingInformationType", s(mapping)));
        e.children
            .push(leaf("ReferenceInformationType", s(reference)));
        e
    };
    let mut layers: Vec<Vec<(&str, i32)>> = vec![Vec::new()];
    if !mesh.normals.is_empty() {
        let mut e = element("LayerElementNormal", 0, "ByVertice", "Direct");
        e.children.push(leaf("Normals", vec3s(&mesh.normals)));
        g.children.push(e);
        layers[0].push(("LayerElementNormal", 0));
    }
    if !mesh.tangents.is_empty() && mesh.bitangents.len() == mesh.tangents.len() {
        let mut e = element("LayerElementBinormal", 0, "ByVertice", "Direct");
        e.children.push(leaf("Binormals", vec3s(&mesh.bitangents)));
        g.children.push(e);
        layers[0].push(("LayerElementBinormal", 0));
        let mut e = element("LayerElementTangent", 0, "ByVertice", "Direct");
        e.children.push(leaf("Tangents", vec3s(&mesh.tangents)));
        g.children.push(e);
        layers[0].push(("LayerElementTangent", 0));
    }
    for (k, c) in mesh.color_channels.iter().enumerate() {
        let mut e = element(
            "LayerElementColor",
            k as i32,
            "ByPolygonVertex",
            "IndexToDirect",
        );
        e.children.push(leaf(
            "Colors",
            OwnedValue::F64Array(
                c.iter()
                    .flat_map(|v| [v.x, v.y, v.z, v.w].map(f64::from))
                    .collect(),
            ),
        ));
        e.children.push(leaf("ColorIndex", corner_index.clone()));
        g.children.push(e);
        if layers.len() <= k {
            layers.resize(k + 1, Vec::new());
        }
        layers[k].push(("LayerElementColor", k as i32));
    }
    for (k, uv) in mesh.uv_channels.iter().enumerate() {
        let mut e = element(
            "LayerElementUV",
            k as i32,
            "ByPolygonVertex",
            "IndexToDirect",
        );
        if let Some(n) = e.children.iter_mut().find(|c| c.name == "Name") {
            n.properties = vec![s(&uv.name)];
        }
        e.children.push(leaf(
            "UV",
            OwnedValue::F64Array(
                uv.coords
                    .iter()
                    .flat_map(|v| [f64::from(v.x), f64::from(v.y)])
                    .collect(),
            ),
        ));
        e.children.push(leaf("UVIndex", corner_index.clone()));
        g.children.push(e);
        if layers.len() <= k {
            layers.resize(k + 1, Vec::new());
        }
        layers[k].push(("LayerElementUV", k as i32));
    }
    // The material index is the mesh's material's place in the (first) owner's list.
    let owner = nodes[0];
    let list = node_materials.entry(owner).or_default();
    let index = match list.iter().position(|&m| m == mesh.material) {
        Some(i) => i,
        None => list.len(),
    };
    let mut e = element("LayerElementMaterial", 0, "AllSame", "IndexToDirect");
    e.children
        .push(leaf("Materials", OwnedValue::I32Array(vec![index as i32])));
    g.children.push(e);
    layers[0].push(("LayerElementMaterial", 0));
    for (k, items) in layers.iter().enumerate() {
        let mut l = node("Layer", vec![OwnedValue::I32(k as i32)]);
        l.children.push(leaf("Version", OwnedValue::I32(100)));
        for (ty, idx) in items {
            let mut le = node("LayerElement", Vec::new());
            le.children.push(leaf("Type", s(ty)));
            le.children.push(leaf("TypedIndex", OwnedValue::I32(*idx)));
            l.children.push(le);
        }
        g.children.push(l);
    }
    g
}
