//! Scenes generated in code, for tests and benchmarks that need FBX files of a known shape
//! (write them with [`crate::write_fbx`]).

use kiln_scene::{
    Animation, Bone, Mat4, Material, Mesh, Node, NodeChannel, Quat, QuatKey, Scene, TextureKind,
    TextureRef, UvChannel, Vec3, VectorKey, VertexWeight,
};

/// The shape of the import benchmark's file: 250,000 quads on 251,001 control points, skinned
/// to 100 bones, animated over 300 frames.
pub const BENCHMARK_TUBE: TubeSpec = TubeSpec {
    rings: 501,
    segments: 500,
    bones: 100,
    frames: 300,
    per_corner: false,
};

/// The import benchmark's file (about 32 MB plain, 7.8 MB with the arrays zlib-compressed as
/// the FBX SDK writes them), shared by `benches/fbx_import.rs` and the profiling examples.
pub fn benchmark_fbx(compress: bool) -> Vec<u8> {
    crate::write_fbx(
        &skinned_tube(BENCHMARK_TUBE),
        &crate::WriteOptions {
            compress,
            ..crate::WriteOptions::default()
        },
    )
    .expect("the generated scene is valid")
}

/// Shape of [`skinned_tube`].
#[derive(Clone, Copy, Debug)]
pub struct TubeSpec {
    /// Rings of vertices along the tube (at least 2).
    pub rings: usize,
    /// Vertices around each ring (at least 3).
    pub segments: usize,
    /// Bones in a chain along the tube (at least 1).
    pub bones: usize,
    /// Animation frames at 30 per second (0: no animation).
    pub frames: usize,
    /// One vertex per face corner (Assimp's layout, which round-trips exactly) instead of
    /// shared vertices.
    pub per_corner: bool,
}

/// A tube along +Y made of quads, skinned to a chain of bones that bend it over the
/// animation; UVs, normals, one material with a diffuse texture path. Quads: `(rings - 1) *
/// segments`, so triangles after triangulation twice that.
pub fn skinned_tube(spec: TubeSpec) -> Scene {
    let rings = spec.rings.max(2);
    let segs = spec.segments.max(3);
    let nb = spec.bones.max(1);
    let height = 10.0f32;
    let bone_len = height / nb as f32;
    let mut scene = Scene::with_root("RootNode");
    // Skeleton: a chain under "Armature".
    let arm = scene.add_child(0, Node::new("Armature"));
    let mut parent = arm;
    let mut bone_nodes = Vec::with_capacity(nb);
    for b in 0..nb {
        let mut n = Node::new(format!("Bone{b:03}"));
        if b > 0 {
            n.transform = Mat4::from_translation(Vec3::new(0.0, bone_len, 0.0));
        }
        parent = scene.add_child(parent, n);
        bone_nodes.push(parent);
    }
    // Mesh: control points per ring and segment.
    let point = |r: usize, s: usize| {
        let a = s as f32 / segs as f32 * core::f32::consts::TAU;
        let y = r as f32 / (rings - 1) as f32 * height;
        (
            Vec3::new(a.cos(), y, a.sin()),
            Vec3::new(a.cos(), 0.0, a.sin()),
        )
    };
    let mut mesh = Mesh {
        name: "tube".into(),
        ..Mesh::default()
    };
    let mut uvs = Vec::new();
    // Weight of each bone for a height: the two nearest bone centres, linearly.
    let weights_at = |y: f32| -> [(usize, f32); 2] {
        let f = (y / bone_len - 0.5).clamp(0.0, (nb - 1) as f32);
        let b0 = f.floor() as usize;
        let b1 = (b0 + 1).min(nb - 1);
        let t = f - b0 as f32;
        if b0 == b1 {
            [(b0, 1.0), (b1, 0.0)]
        } else {
            [(b0, 1.0 - t), (b1, t)]
        }
    };
    let mut bone_weights: Vec<Vec<VertexWeight>> = vec![Vec::new(); nb];
    let mut push_vertex = |mesh: &mut Mesh, uvs: &mut Vec<Vec3>, r: usize, s: usize| -> u32 {
        let (p, n) = point(r, s % segs);
        let i = mesh.positions.len() as u32;
        mesh.positions.push(p);
        mesh.normals.push(n);
        uvs.push(Vec3::new(
            s as f32 / segs as f32,
            r as f32 / (rings - 1) as f32,
            0.0,
        ));
        for (b, w) in weights_at(p.y) {
            if w > 0.0 {
                bone_weights[b].push(VertexWeight {
                    vertex: i,
                    weight: w,
                });
            }
        }
        i
    };
    if spec.per_corner {
        for r in 0..rings - 1 {
            for s in 0..segs {
                let f = [
                    push_vertex(&mut mesh, &mut uvs, r, s),
                    push_vertex(&mut mesh, &mut uvs, r + 1, s),
                    push_vertex(&mut mesh, &mut uvs, r + 1, s + 1),
                    push_vertex(&mut mesh, &mut uvs, r, s + 1),
                ];
                mesh.push_face(&f);
            }
        }
    } else {
        for r in 0..rings {
            for s in 0..=segs {
                push_vertex(&mut mesh, &mut uvs, r, s);
            }
        }
        let row = (segs + 1) as u32;
        for r in 0..rings as u32 - 1 {
            for s in 0..segs as u32 {
                mesh.push_face(&[
                    r * row + s,
                    (r + 1) * row + s,
                    (r + 1) * row + s + 1,
                    r * row + s + 1,
                ]);
            }
        }
    }
    mesh.update_primitive_types();
    mesh.uv_channels.push(UvChannel {
        components: 2,
        coords: uvs,
        name: "UVMap".into(),
    });
    for (b, weights) in bone_weights.into_iter().enumerate() {
        let bind = Mat4::from_translation(Vec3::new(0.0, b as f32 * bone_len, 0.0));
        mesh.bones.push(Bone {
            name: format!("Bone{b:03}"),
            offset_matrix: bind.inverse(),
            weights,
        });
    }
    scene.meshes.push(mesh);
    scene.materials.push(Material {
        name: "skin".into(),
        diffuse: Some(Vec3::new(0.8, 0.6, 0.5)),
        ambient: Some(Vec3::splat(0.1)),
        specular: Some(Vec3::splat(0.2)),
        shininess: Some(20.0),
        textures: vec![TextureRef {
            kind: TextureKind::Diffuse,
            path: "skin.png".into(),
            embedded: None,
            uv_channel: 0,
        }],
        ..Material::default()
    });
    let mut node = Node::new("tube");
    node.meshes.push(0);
    scene.add_child(0, node);
    if spec.frames > 0 {
        let mut anim = Animation {
            name: "bend".into(),
            duration: (spec.frames - 1) as f64,
            ticks_per_second: 30.0,
            channels: Vec::new(),
        };
        for (b, &n) in bone_nodes.iter().enumerate() {
            let t = scene.nodes[n].transform.w_axis.truncate();
            let mut ch = NodeChannel {
                node_name: scene.nodes[n].name.clone(),
                ..NodeChannel::default()
            };
            for f in 0..spec.frames {
                let phase = f as f32 / spec.frames.max(2) as f32 * core::f32::consts::TAU;
                let angle = (phase + b as f32 * 0.3).sin() * 0.4;
                let time = f as f64;
                ch.position_keys.push(VectorKey { time, value: t });
                ch.rotation_keys.push(QuatKey {
                    time,
                    value: Quat::from_rotation_z(angle),
                });
                ch.scaling_keys.push(VectorKey {
                    time,
                    value: Vec3::ONE,
                });
            }
            anim.channels.push(ch);
        }
        scene.animations.push(anim);
    }
    scene
}

/// An FBX 7.4 file that exercises what real exporters write and [`crate::write_fbx`] does not:
/// `Definitions` templates (Model, Phong material), every node-transform component (pivots,
/// offsets, pre/post rotation, geometric transforms, non-XYZ rotation orders), a geometry split
/// by material (`ByPolygon`) with normals, tangents and binormals `ByPolygonVertex`, two UV sets
/// (one `ByVertice`) and a colour set, textures on several slots (one reading the second UV set
/// by name, one embedded), a skin over the split geometry, and an animation with a time range,
/// a 24 fps time mode, a missing curve component, a 200° rotation jump, and channels on a node
/// with pivots. Built as a node tree, so it can hold what a [`Scene`] cannot express.
pub fn feature_file() -> Vec<u8> {
    use kiln_fbx::{OwnedNode as N, OwnedValue as V};
    let s = V::string;
    let nc = |name: &str, class: &str| {
        let mut b = name.as_bytes().to_vec();
        b.extend_from_slice(&[0, 1]);
        b.extend_from_slice(class.as_bytes());
        V::String(b)
    };
    let leaf = |n: &str, v: V| N::new(n).with(v);
    let p = |name: &str, ty: &str, vals: Vec<V>| {
        let mut n = N::new("P")
            .with(s(name))
            .with(s(ty))
            .with(s(""))
            .with(s("A"));
        for v in vals {
            n = n.with(v);
        }
        n
    };
    let v3 = |name: &str, ty: &str, x: f64, y: f64, z: f64| {
        p(name, ty, vec![V::F64(x), V::F64(y), V::F64(z)])
    };
    let props = |children: Vec<N>| N {
        name: "Properties70".into(),
        properties: Vec::new(),
        children,
    };
    let mut objects: Vec<N> = Vec::new();
    let mut conns: Vec<N> = Vec::new();
    let oo = |a: i64, b: i64| N::new("C").with(s("OO")).with(V::I64(a)).with(V::I64(b));
    let op = |a: i64, b: i64, prop: &str| {
        N::new("C")
            .with(s("OP"))
            .with(V::I64(a))
            .with(V::I64(b))
            .with(s(prop))
    };
    let model = |id: i64, name: &str, class: &str, ps: Vec<N>| {
        N::new("Model")
            .with(V::I64(id))
            .with(nc(name, "Model"))
            .with(s(class))
            .with_child(leaf("Version", V::I32(232)))
            .with_child(props(ps))
    };
    // Nodes.
    objects.push(model(
        10,
        "Pivoted",
        "Mesh",
        vec![
            v3("Lcl Translation", "Lcl Translation", 1.0, 2.0, 3.0),
            v3("Lcl Rotation", "Lcl Rotation", 10.0, 20.0, 30.0),
            v3("Lcl Scaling", "Lcl Scaling", 1.5, 1.0, 0.5),
            p("RotationOrder", "enum", vec![V::I32(4)]),
            v3("PreRotation", "Vector3D", -90.0, 0.0, 0.0),
            v3("PostRotation", "Vector3D", 0.0, 15.0, 0.0),
            v3("RotationPivot", "Vector3D", 0.5, 0.0, 0.0),
            v3("RotationOffset", "Vector3D", 0.0, 0.25, 0.0),
            v3("ScalingPivot", "Vector3D", 0.0, 0.0, 0.5),
            v3("ScalingOffset", "Vector3D", 0.1, 0.0, 0.0),
            v3("GeometricTranslation", "Vector3D", 0.0, 1.0, 0.0),
            v3("GeometricRotation", "Vector3D", 0.0, 0.0, 45.0),
            v3("GeometricScaling", "Vector3D", 2.0, 2.0, 2.0),
        ],
    ));
    conns.push(oo(10, 0));
    objects.push(model(
        11,
        "Child",
        "Null",
        vec![v3("Lcl Translation", "Lcl Translation", 0.0, 0.0, 4.0)],
    ));
    conns.push(oo(11, 10));
    for (i, order) in (0..6).enumerate() {
        let id = 20 + i as i64;
        objects.push(model(
            id,
            &format!("Order{order}"),
            "Null",
            vec![
                v3("Lcl Rotation", "Lcl Rotation", 30.0, -45.0, 60.0),
                p("RotationOrder", "enum", vec![V::I32(order)]),
            ],
        ));
        conns.push(oo(id, 11));
    }
    objects.push(model(
        30,
        "Hip",
        "LimbNode",
        vec![
            v3("Lcl Translation", "Lcl Translation", 0.0, 1.0, 0.0),
            v3("PreRotation", "Vector3D", 0.0, 0.0, 90.0),
        ],
    ));
    conns.push(oo(30, 0));
    objects.push(model(
        31,
        "Knee",
        "LimbNode",
        vec![v3("Lcl Translation", "Lcl Translation", 1.0, 0.0, 0.0)],
    ));
    conns.push(oo(31, 30));
    // Geometry: a 2x2 grid of quads plus a triangle, 3 materials by polygon (order of first
    // use 2, 0, 1), on model 10.
    let pts: Vec<f64> = [
        [0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [2.0, 0.0, 0.0],
        [0.0, 1.0, 0.0],
        [1.0, 1.0, 0.0],
        [2.0, 1.0, 0.0],
        [0.0, 2.0, 0.0],
        [1.0, 2.0, 0.0],
        [2.0, 2.0, 0.5],
    ]
    .iter()
    .flatten()
    .copied()
    .collect();
    let polys: [&[i32]; 5] = [
        &[0, 1, 4, 3],
        &[1, 2, 5, 4],
        &[3, 4, 7, 6],
        &[4, 5, 8, 7],
        &[0, 4, 3],
    ];
    let mut pvi = Vec::new();
    for f in polys {
        for (k, &i) in f.iter().enumerate() {
            pvi.push(if k + 1 == f.len() { -i - 1 } else { i });
        }
    }
    let corners: Vec<i32> = polys.iter().flat_map(|f| f.iter().copied()).collect();
    let nc_count = corners.len();
    let el = |name: &str, index: i32, mapping: &str, reference: &str, extra: Vec<N>| {
        let mut e = N::new(name)
            .with(V::I32(index))
            .with_child(leaf("Version", V::I32(101)))
            .with_child(leaf("MappingInformationType", s(mapping)))
            .with_child(leaf("ReferenceInformationType", s(reference)));
        e.children.extend(extra);
        e
    };
    let normals: Vec<f64> = (0..nc_count)
        .flat_map(|k| [0.0, (k as f64 * 0.1).sin() * 0.2, 1.0])
        .collect();
    let tangents: Vec<f64> = (0..nc_count).flat_map(|_| [1.0, 0.0, 0.0]).collect();
    let binormals: Vec<f64> = (0..nc_count).flat_map(|_| [0.0, 1.0, 0.0]).collect();
    let uv0: Vec<f64> = (0..9)
        .flat_map(|i| [f64::from(i % 3) / 2.0, f64::from(i / 3) / 2.0])
        .collect();
    let uv1: Vec<f64> = (0..9)
        .flat_map(|i| [f64::from(i) * 0.1, 1.0 - f64::from(i) * 0.1])
        .collect();
    let colors: Vec<f64> = (0..nc_count)
        .flat_map(|k| [k as f64 / 20.0, 0.5, 1.0 - k as f64 / 20.0, 1.0])
        .collect();
    let le = |ty: &str, i: i32| {
        N::new("LayerElement")
            .with_child(leaf("Type", s(ty)))
            .with_child(leaf("TypedIndex", V::I32(i)))
    };
    let geometry = N::new("Geometry")
        .with(V::I64(40))
        .with(nc("grid", "Geometry"))
        .with(s("Mesh"))
        .with_child(leaf("Vertices", V::F64Array(pts)))
        .with_child(leaf("PolygonVertexIndex", V::I32Array(pvi)))
        .with_child(el(
            "LayerElementNormal",
            0,
            "ByPolygonVertex",
            "Direct",
            vec![leaf("Normals", V::F64Array(normals))],
        ))
        .with_child(el(
            "LayerElementTangent",
            0,
            "ByPolygonVertex",
            "Direct",
            vec![leaf("Tangents", V::F64Array(tangents))],
        ))
        .with_child(el(
            "LayerElementBinormal",
            0,
            "ByPolygonVertex",
            "Direct",
            vec![leaf("Binormals", V::F64Array(binormals))],
        ))
        .with_child(el(
            "LayerElementUV",
            0,
            "ByPolygonVertex",
            "IndexToDirect",
            vec![
                leaf("Name", s("map1")),
                leaf("UV", V::F64Array(uv0)),
                leaf("UVIndex", V::I32Array(corners.clone())),
            ],
        ))
        .with_child(el(
            "LayerElementUV",
            1,
            "ByVertice",
            "Direct",
            vec![leaf("Name", s("lightmap")), leaf("UV", V::F64Array(uv1))],
        ))
        .with_child(el(
            "LayerElementColor",
            0,
            "ByPolygonVertex",
            "Direct",
            vec![leaf("Colors", V::F64Array(colors))],
        ))
        .with_child(el(
            "LayerElementMaterial",
            0,
            "ByPolygon",
            "IndexToDirect",
            vec![leaf("Materials", V::I32Array(vec![2, 0, 2, 1, 0]))],
        ))
        .with_child(
            N::new("Layer")
                .with(V::I32(0))
                .with_child(le("LayerElementNormal", 0))
                .with_child(le("LayerElementTangent", 0))
                .with_child(le("LayerElementBinormal", 0))
                .with_child(le("LayerElementUV", 0))
                .with_child(le("LayerElementColor", 0))
                .with_child(le("LayerElementMaterial", 0)),
        )
        .with_child(
            N::new("Layer")
                .with(V::I32(1))
                .with_child(le("LayerElementUV", 1)),
        );
    objects.push(geometry);
    conns.push(oo(40, 10));
    // Materials: Phong with template fallbacks.
    let material = |id: i64, name: &str, ps: Vec<N>| {
        N::new("Material")
            .with(V::I64(id))
            .with(nc(name, "Material"))
            .with(s(""))
            .with_child(leaf("ShadingModel", s("Phong")))
            .with_child(props(ps))
    };
    objects.push(material(
        50,
        "red",
        vec![
            v3("DiffuseColor", "Color", 1.0, 0.0, 0.0),
            p("DiffuseFactor", "Number", vec![V::F64(0.5)]),
        ],
    ));
    objects.push(material(
        51,
        "green",
        vec![
            v3("DiffuseColor", "Color", 0.0, 1.0, 0.0),
            p("Opacity", "double", vec![V::F64(0.25)]),
        ],
    ));
    objects.push(material(
        52,
        "blue",
        vec![
            v3("DiffuseColor", "Color", 0.0, 0.0, 1.0),
            v3("TransparentColor", "Color", 0.5, 0.5, 0.5),
            p("TransparencyFactor", "Number", vec![V::F64(0.5)]),
            p("CustomFlag", "bool", vec![V::I32(1)]),
            p("CustomName", "KString", vec![s("hello")]),
        ],
    ));
    for m in [50, 51, 52] {
        conns.push(oo(m, 10));
    }
    // Textures.
    let texture = |id: i64, name: &str, path: &str, ps: Vec<N>| {
        N::new("Texture")
            .with(V::I64(id))
            .with(nc(name, "Texture"))
            .with(s(""))
            .with_child(leaf("Type", s("TextureVideoClip")))
            .with_child(props(ps))
            .with_child(leaf("FileName", s(path)))
            .with_child(leaf("RelativeFilename", s(path)))
    };
    objects.push(texture(
        60,
        "albedo",
        "textures\\albedo.png",
        vec![p("UVSet", "KString", vec![s("lightmap")])],
    ));
    objects.push(texture(
        61,
        "normal",
        "C:/absolute/normal.tga",
        vec![v3("Translation", "Vector", 0.25, 0.5, 0.0)],
    ));
    objects.push(texture(62, "bump", "bump.jpeg", Vec::new()));
    conns.push(op(60, 52, "DiffuseColor"));
    conns.push(op(61, 52, "NormalMap"));
    conns.push(op(62, 50, "Bump"));
    let png: Vec<u8> = b"\x89PNG\r\n\x1a\n not really a png, but bytes to embed".to_vec();
    objects.push(
        N::new("Video")
            .with(V::I64(63))
            .with(nc("bump", "Video"))
            .with(s("Clip"))
            .with_child(leaf("Type", s("Clip")))
            .with_child(leaf("RelativeFilename", s("bump.jpeg")))
            .with_child(leaf("Content", V::Raw(png))),
    );
    conns.push(oo(63, 62));
    // Skin over the split geometry.
    objects.push(
        N::new("Deformer")
            .with(V::I64(70))
            .with(nc("skin", "Deformer"))
            .with(s("Skin"))
            .with_child(leaf("Version", V::I32(101))),
    );
    conns.push(oo(70, 40));
    let cluster = |id: i64, name: &str, idx: Vec<i32>, w: Vec<f64>, t: [f64; 3]| {
        let mut m = Mat4::from_translation(Vec3::new(t[0] as f32, t[1] as f32, t[2] as f32))
            .to_cols_array()
            .map(f64::from)
            .to_vec();
        m[0] = 0.5;
        N::new("Deformer")
            .with(V::I64(id))
            .with(nc(name, "SubDeformer"))
            .with(s("Cluster"))
            .with_child(leaf("Indexes", V::I32Array(idx)))
            .with_child(leaf("Weights", V::F64Array(w)))
            .with_child(leaf("Transform", V::F64Array(m.clone())))
            .with_child(leaf("TransformLink", V::F64Array(m)))
    };
    objects.push(cluster(
        71,
        "Hip",
        vec![0, 1, 3, 4, 6],
        vec![1.0, 0.75, 1.0, 0.5, 1.0],
        [0.0, -1.0, 0.0],
    ));
    objects.push(cluster(
        72,
        "Knee",
        vec![1, 2, 4, 5, 7, 8],
        vec![0.25, 1.0, 0.5, 1.0, 1.0, 1.0],
        [-1.0, -1.0, 0.0],
    ));
    conns.push(oo(71, 70));
    conns.push(oo(72, 70));
    conns.push(oo(30, 71));
    conns.push(oo(31, 72));
    // Animation: frames 10..40 at 24 fps.
    let frame = |f: i64| f * 46_186_158_000 / 24;
    objects.push(
        N::new("AnimationStack")
            .with(V::I64(80))
            .with(nc("Take 001", "AnimStack"))
            .with(s(""))
            .with_child(props(vec![
                p("LocalStart", "KTime", vec![V::I64(frame(10))]),
                p("LocalStop", "KTime", vec![V::I64(frame(40))]),
            ])),
    );
    objects.push(
        N::new("AnimationLayer")
            .with(V::I64(81))
            .with(nc("Base", "AnimLayer"))
            .with(s(""))
            .with_child(props(Vec::new())),
    );
    conns.push(oo(81, 80));
    let mut next = 100i64;
    let mut curve_node = |objects: &mut Vec<N>,
                          conns: &mut Vec<N>,
                          target: i64,
                          prop: &str,
                          curves: Vec<(&str, Vec<i64>, Vec<f32>)>| {
        let cn = next;
        next += 1;
        objects.push(
            N::new("AnimationCurveNode")
                .with(V::I64(cn))
                .with(nc("cn", "AnimCurveNode"))
                .with(s(""))
                .with_child(props(Vec::new())),
        );
        conns.push(oo(cn, 81));
        conns.push(op(cn, target, prop));
        for (ch, times, values) in curves {
            let id = next;
            next += 1;
            objects.push(
                N::new("AnimationCurve")
                    .with(V::I64(id))
                    .with(nc("", "AnimCurve"))
                    .with(s(""))
                    .with_child(leaf(
                        "KeyTime",
                        V::I64Array(times.iter().map(|&f| frame(f)).collect()),
                    ))
                    .with_child(leaf("KeyValueFloat", V::F32Array(values)))
                    .with_child(leaf("KeyAttrFlags", V::I32Array(vec![0x104])))
                    .with_child(leaf("KeyAttrDataFloat", V::F32Array(vec![0.0; 4])))
                    .with_child(leaf(
                        "KeyAttrRefCount",
                        V::I32Array(vec![times.len() as i32]),
                    )),
            );
            conns.push(op(id, cn, ch));
        }
    };
    // Hip (pre-rotation, simple channel): rotation about Z with a 200° jump, translation X only.
    curve_node(
        &mut objects,
        &mut conns,
        30,
        "Lcl Rotation",
        vec![
            ("d|X", vec![10, 40], vec![0.0, 0.0]),
            ("d|Y", vec![10, 40], vec![0.0, 0.0]),
            ("d|Z", vec![10, 20, 30, 40], vec![0.0, 200.0, 210.0, 90.0]),
        ],
    );
    curve_node(
        &mut objects,
        &mut conns,
        30,
        "Lcl Translation",
        vec![("d|X", vec![10, 25, 40], vec![0.0, 2.0, 1.0])],
    );
    // Knee: scaling with keys outside the range (dropped), translation redundant (one key equal
    // to the static value).
    curve_node(
        &mut objects,
        &mut conns,
        31,
        "Lcl Scaling",
        vec![
            ("d|X", vec![0, 10, 40, 60], vec![9.0, 1.0, 2.0, 9.0]),
            ("d|Y", vec![10, 40], vec![1.0, 1.0]),
            ("d|Z", vec![10, 40], vec![1.0, 0.5]),
        ],
    );
    curve_node(
        &mut objects,
        &mut conns,
        31,
        "Lcl Translation",
        vec![
            ("d|X", vec![10], vec![1.0]),
            ("d|Y", vec![10], vec![0.0]),
            ("d|Z", vec![10], vec![0.0]),
        ],
    );
    // Pivoted (pivots: one channel per component on helper nodes).
    curve_node(
        &mut objects,
        &mut conns,
        10,
        "Lcl Translation",
        vec![
            ("d|X", vec![10, 40], vec![1.0, 3.0]),
            ("d|Y", vec![10, 40], vec![2.0, 2.0]),
            ("d|Z", vec![10, 40], vec![3.0, 1.0]),
        ],
    );
    curve_node(
        &mut objects,
        &mut conns,
        10,
        "Lcl Rotation",
        vec![("d|Y", vec![10, 20, 40], vec![20.0, 60.0, 100.0])],
    );
    // Templates.
    let template = |ty: &str, name: &str, ps: Vec<N>| {
        N::new("ObjectType").with(s(ty)).with_child(
            N::new("PropertyTemplate")
                .with(s(name))
                .with_child(props(ps)),
        )
    };
    let definitions = N::new("Definitions")
        .with_child(leaf("Version", V::I32(100)))
        .with_child(template(
            "Model",
            "FbxNode",
            vec![
                v3("Lcl Scaling", "Lcl Scaling", 1.0, 1.0, 1.0),
                p("RotationOrder", "enum", vec![V::I32(0)]),
                v3("ScalingPivot", "Vector3D", 0.0, 0.0, 0.0),
            ],
        ))
        .with_child(template(
            "Material",
            "FbxSurfacePhong",
            vec![
                v3("AmbientColor", "Color", 0.2, 0.2, 0.2),
                p("AmbientFactor", "Number", vec![V::F64(1.0)]),
                v3("SpecularColor", "Color", 0.2, 0.2, 0.2),
                p("SpecularFactor", "Number", vec![V::F64(1.0)]),
                p("ShininessExponent", "Number", vec![V::F64(20.0)]),
                v3("EmissiveColor", "Color", 0.0, 0.0, 0.0),
                p("EmissiveFactor", "Number", vec![V::F64(1.0)]),
                v3("ReflectionColor", "Color", 0.0, 0.0, 0.0),
                p("ReflectionFactor", "Number", vec![V::F64(1.0)]),
                p("BumpFactor", "double", vec![V::F64(1.0)]),
            ],
        ));
    let global = N::new("GlobalSettings")
        .with_child(leaf("Version", V::I32(1000)))
        .with_child(props(vec![
            p("UpAxis", "int", vec![V::I32(1)]),
            p("UnitScaleFactor", "double", vec![V::F64(2.54)]),
            p("TimeMode", "enum", vec![V::I32(11)]),
        ]));
    let header = N::new("FBXHeaderExtension")
        .with_child(leaf("FBXHeaderVersion", V::I32(1003)))
        .with_child(leaf("FBXVersion", V::I32(7400)))
        .with_child(leaf("Creator", s("kiln feature fixture")));
    let mut objs = N::new("Objects");
    objs.children = objects;
    let mut cs = N::new("Connections");
    cs.children = conns;
    kiln_fbx::write_binary(
        &[header, global, definitions, objs, cs],
        &kiln_fbx::WriteOptions::V7400.compressed(),
    )
    .expect("the fixture tree is writable")
}
