//! Scene → FBX bytes → scene: random scenes in Assimp's raw layout (see `write_fbx`'s docs
//! for the conditions) come back equal: node tree and transforms, meshes with every vertex
//! attribute, materials and textures (embedded bytes too), skin bones and weights, and
//! animations key by key.

use kiln_fbx_scene::{WriteOptions, import, write_fbx};
use kiln_scene::{
    Animation, Bone, EmbeddedTexture, Mat4, Material, Mesh, Node, NodeChannel, Quat, QuatKey,
    Scene, TextureKind, TextureRef, UvChannel, Vec3, Vec4, VectorKey, VertexWeight,
};
use proptest::prelude::*;

fn close(a: f32, b: f32) -> bool {
    (a - b).abs() <= 1e-4 * 1f32.max(a.abs()).max(b.abs())
}

fn close_mat(a: &Mat4, b: &Mat4) -> bool {
    a.to_cols_array()
        .iter()
        .zip(b.to_cols_array().iter())
        .all(|(x, y)| close(*x, *y))
}

fn close3(a: Vec3, b: Vec3) -> bool {
    close(a.x, b.x) && close(a.y, b.y) && close(a.z, b.z)
}

/// A node's parent (index into earlier nodes, 0 = root), translation, XYZ Euler degrees and
/// scaling.
type PlannedNode = (usize, [f32; 3], [f32; 3], [f32; 3]);

/// What the generator decides.
#[derive(Clone, Debug)]
struct Plan {
    /// Parent (index into earlier nodes, 0 = root) and TRS of each node.
    nodes: Vec<PlannedNode>,
    /// Per node: number of meshes (0..=2).
    meshes_per_node: Vec<usize>,
    /// Seed values for mesh contents.
    seeds: Vec<u32>,
    frames: usize,
    fps_index: usize,
}

fn plan() -> impl Strategy<Value = Plan> {
    (1usize..6).prop_flat_map(|n| {
        (
            proptest::collection::vec(
                (
                    0usize..6,
                    prop::array::uniform3(-5.0f32..5.0),
                    (-80.0f32..80.0, -60.0f32..60.0, -80.0f32..80.0),
                    prop::array::uniform3(0.5f32..2.0),
                ),
                n,
            ),
            proptest::collection::vec(0usize..3, n),
            proptest::collection::vec(any::<u32>(), 8),
            0usize..5,
            0usize..4,
        )
            .prop_map(|(nodes, meshes_per_node, seeds, frames, fps_index)| Plan {
                nodes: nodes
                    .into_iter()
                    .enumerate()
                    .map(|(i, (p, t, (rx, ry, rz), s))| (p % (i + 1), t, [rx, ry, rz], s))
                    .collect(),
                meshes_per_node,
                seeds,
                frames,
                fps_index,
            })
    })
}

/// A small deterministic generator.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    fn f(&mut self) -> f32 {
        self.next() as f32 / u32::MAX as f32 * 2.0 - 1.0
    }
    fn below(&mut self, n: u32) -> u32 {
        self.next() % n.max(1)
    }
}

fn rot(r: [f32; 3]) -> Quat {
    // FBX XYZ: R = Rz * Ry * Rx.
    Quat::from_rotation_z(r[2].to_radians())
        * Quat::from_rotation_y(r[1].to_radians())
        * Quat::from_rotation_x(r[0].to_radians())
}

fn build(plan: &Plan) -> Scene {
    let mut s = Scene::with_root("RootNode");
    let mut ids = vec![0usize];
    for (i, (p, t, r, sc)) in plan.nodes.iter().enumerate() {
        let mut n = Node::new(format!("node{i}"));
        n.transform = Mat4::from_scale_rotation_translation(
            Vec3::from_array(*sc),
            rot(*r),
            Vec3::from_array(*t),
        );
        let parent = ids[*p];
        ids.push(s.add_child(parent, n));
    }
    let mut rng = Lcg(u64::from(plan.seeds[0]) << 1 | 1);
    // Meshes in depth-first order of the nodes that draw them, materials in order of use.
    for id in s.depth_first() {
        if id == 0 {
            continue;
        }
        let count = plan.meshes_per_node[id - 1];
        for k in 0..count {
            let mut m = Mesh {
                name: format!("mesh{id}_{k}"),
                material: s.materials.len(),
                ..Mesh::default()
            };
            let faces = 1 + rng.below(4) as usize;
            let uv_sets = rng.below(3) as usize;
            let colors = rng.below(2) as usize;
            let normals = rng.below(2) == 1;
            let tangents = normals && rng.below(2) == 1;
            for _ in 0..faces {
                let n = 3 + rng.below(3);
                let start = m.positions.len() as u32;
                for _ in 0..n {
                    m.positions.push(Vec3::new(rng.f(), rng.f(), rng.f()) * 4.0);
                }
                let idx: Vec<u32> = (start..start + n).collect();
                m.push_face(&idx);
            }
            let nv = m.positions.len();
            if normals {
                m.normals = (0..nv)
                    .map(|_| Vec3::new(rng.f(), rng.f(), rng.f()).normalize_or(Vec3::Y))
                    .collect();
            }
            if tangents {
                m.tangents = (0..nv)
                    .map(|_| Vec3::new(rng.f(), rng.f(), rng.f()))
                    .collect();
                m.bitangents = (0..nv)
                    .map(|_| Vec3::new(rng.f(), rng.f(), rng.f()))
                    .collect();
            }
            for c in 0..uv_sets {
                m.uv_channels.push(UvChannel {
                    components: 2,
                    coords: (0..nv).map(|_| Vec3::new(rng.f(), rng.f(), 0.0)).collect(),
                    name: format!("uv{c}"),
                });
            }
            for _ in 0..colors {
                m.color_channels.push(
                    (0..nv)
                        .map(|_| Vec4::new(rng.f(), rng.f(), rng.f(), 1.0))
                        .collect(),
                );
            }
            // Skin on some meshes: bones are other nodes.
            if rng.below(2) == 1 && s.nodes.len() > 1 {
                let nb = 1 + rng.below(3) as usize;
                let mut used = Vec::new();
                for _ in 0..nb {
                    let b = 1 + rng.below(s.nodes.len() as u32 - 1) as usize;
                    if used.contains(&b) {
                        continue;
                    }
                    used.push(b);
                    let mut weights = Vec::new();
                    for vertex in 0..nv as u32 {
                        if rng.below(2) == 1 {
                            weights.push(VertexWeight {
                                vertex,
                                weight: (rng.f() + 1.0) / 2.0,
                            });
                        }
                    }
                    m.bones.push(Bone {
                        name: s.nodes[b].name.clone(),
                        offset_matrix: s.global_transform(b).inverse(),
                        weights,
                    });
                }
            }
            m.update_primitive_types();
            let embedded = if rng.below(3) == 0 {
                s.textures.push(EmbeddedTexture {
                    filename: format!("tex{}.png", s.textures.len()),
                    format_hint: "png".into(),
                    data: (0..(1 + rng.below(64))).map(|_| rng.next() as u8).collect(),
                });
                Some(s.textures.len() - 1)
            } else {
                None
            };
            let mut mat = Material {
                name: format!("mat{}", s.materials.len()),
                diffuse: Some(Vec3::new(rng.f().abs(), rng.f().abs(), rng.f().abs())),
                ..Material::default()
            };
            if rng.below(2) == 1 {
                mat.specular = Some(Vec3::splat(rng.f().abs()));
                mat.shininess = Some(1.0 + rng.f().abs() * 50.0);
                mat.ambient = Some(Vec3::splat(0.1));
            }
            if rng.below(2) == 1 || embedded.is_some() {
                mat.textures.push(TextureRef {
                    kind: TextureKind::Diffuse,
                    path: embedded.map_or_else(
                        || "textures/albedo.png".into(),
                        |e| s.textures[e].filename.clone(),
                    ),
                    embedded,
                    uv_channel: 0,
                });
            }
            if rng.below(3) == 0 {
                mat.textures.push(TextureRef {
                    kind: TextureKind::Normals,
                    path: "C:\\abs\\normal.tga".into(),
                    embedded: None,
                    uv_channel: 0,
                });
            }
            s.materials.push(mat);
            s.meshes.push(m);
            let mi = s.meshes.len() - 1;
            s.nodes[id].meshes.push(mi);
        }
    }
    if plan.frames > 0 {
        let fps = [24.0, 25.0, 30.0, 60.0][plan.fps_index];
        let mut a = Animation {
            name: "take".into(),
            duration: (plan.frames - 1) as f64,
            ticks_per_second: fps,
            channels: Vec::new(),
            morph_channels: Vec::new(),
        };
        let mut names: Vec<usize> = (1..s.nodes.len()).filter(|_| rng.below(2) == 1).collect();
        names.sort_by(|a, b| s.nodes[*a].name.cmp(&s.nodes[*b].name));
        for n in names {
            let mut ch = NodeChannel {
                node_name: s.nodes[n].name.clone(),
                ..NodeChannel::default()
            };
            let mut r = [rng.f() * 60.0, rng.f() * 50.0, rng.f() * 60.0];
            for f in 0..plan.frames {
                let time = f as f64;
                for c in &mut r {
                    *c = (*c + rng.f() * 20.0).clamp(-80.0, 80.0);
                }
                r[1] = r[1].clamp(-60.0, 60.0);
                ch.position_keys.push(VectorKey {
                    time,
                    value: Vec3::new(rng.f(), rng.f(), rng.f()) * 3.0,
                });
                ch.rotation_keys.push(QuatKey {
                    time,
                    value: rot(r),
                });
                ch.scaling_keys.push(VectorKey {
                    time,
                    value: Vec3::splat(1.0 + rng.f().abs()),
                });
            }
            a.channels.push(ch);
        }
        if !a.channels.is_empty() {
            s.animations.push(a);
        }
    }
    s
}

fn assert_same(a: &Scene, b: &Scene) -> Result<(), TestCaseError> {
    prop_assert_eq!(a.nodes.len(), b.nodes.len());
    for (&i, &j) in a.depth_first().iter().zip(&b.depth_first()) {
        let (x, y) = (&a.nodes[i], &b.nodes[j]);
        prop_assert_eq!(&x.name, &y.name);
        let pa = x.parent.map(|p| a.nodes[p].name.as_str());
        let pb = y.parent.map(|p| b.nodes[p].name.as_str());
        prop_assert_eq!(pa, pb);
        prop_assert_eq!(&x.meshes, &y.meshes);
        prop_assert!(
            close_mat(&x.transform, &y.transform),
            "{}: {:?} vs {:?}",
            x.name,
            x.transform,
            y.transform
        );
    }
    prop_assert_eq!(a.meshes.len(), b.meshes.len());
    for (x, y) in a.meshes.iter().zip(&b.meshes) {
        prop_assert_eq!(&x.name, &y.name);
        prop_assert_eq!(x.material, y.material);
        prop_assert_eq!(&x.face_sizes, &y.face_sizes);
        prop_assert_eq!(&x.indices, &y.indices);
        prop_assert_eq!(x.primitive_types, y.primitive_types);
        prop_assert!(
            x.positions
                .iter()
                .zip(&y.positions)
                .all(|(p, q)| close3(*p, *q))
        );
        prop_assert_eq!(x.normals.len(), y.normals.len());
        prop_assert!(
            x.normals
                .iter()
                .zip(&y.normals)
                .all(|(p, q)| close3(*p, *q))
        );
        prop_assert_eq!(x.tangents.len(), y.tangents.len());
        prop_assert!(
            x.tangents
                .iter()
                .zip(&y.tangents)
                .all(|(p, q)| close3(*p, *q))
        );
        prop_assert!(
            x.bitangents
                .iter()
                .zip(&y.bitangents)
                .all(|(p, q)| close3(*p, *q))
        );
        prop_assert_eq!(x.uv_channels.len(), y.uv_channels.len());
        for (u, v) in x.uv_channels.iter().zip(&y.uv_channels) {
            prop_assert_eq!(&u.name, &v.name);
            prop_assert_eq!(u.components, v.components);
            prop_assert!(u.coords.iter().zip(&v.coords).all(|(p, q)| close3(*p, *q)));
        }
        prop_assert_eq!(x.color_channels.len(), y.color_channels.len());
        for (u, v) in x.color_channels.iter().zip(&y.color_channels) {
            prop_assert!(
                u.iter()
                    .zip(v)
                    .all(|(p, q)| (*p - *q).abs().max_element() < 1e-5)
            );
        }
        prop_assert_eq!(x.bones.len(), y.bones.len());
        for (u, v) in x.bones.iter().zip(&y.bones) {
            prop_assert_eq!(&u.name, &v.name);
            prop_assert!(close_mat(&u.offset_matrix, &v.offset_matrix));
            prop_assert_eq!(u.weights.len(), v.weights.len());
            for (p, q) in u.weights.iter().zip(&v.weights) {
                prop_assert_eq!(p.vertex, q.vertex);
                prop_assert!(close(p.weight, q.weight));
            }
        }
    }
    prop_assert_eq!(a.materials.len(), b.materials.len());
    for (x, y) in a.materials.iter().zip(&b.materials) {
        prop_assert_eq!(&x.name, &y.name);
        for (p, q) in [
            (x.diffuse, y.diffuse),
            (x.specular, y.specular),
            (x.ambient, y.ambient),
        ] {
            prop_assert_eq!(p.is_some(), q.is_some());
            if let (Some(p), Some(q)) = (p, q) {
                prop_assert!(close3(p, q));
            }
        }
        prop_assert_eq!(x.shininess.is_some(), y.shininess.is_some());
        let tx: Vec<_> = x
            .textures
            .iter()
            .map(|t| (t.kind, t.path.as_str(), t.embedded))
            .collect();
        let ty: Vec<_> = y
            .textures
            .iter()
            .map(|t| (t.kind, t.path.as_str(), t.embedded))
            .collect();
        prop_assert_eq!(tx, ty);
    }
    prop_assert_eq!(a.textures.len(), b.textures.len());
    for (x, y) in a.textures.iter().zip(&b.textures) {
        prop_assert_eq!(&x.data, &y.data);
        prop_assert_eq!(&x.filename, &y.filename);
        prop_assert_eq!(&x.format_hint, &y.format_hint);
    }
    prop_assert_eq!(a.animations.len(), b.animations.len());
    for (x, y) in a.animations.iter().zip(&b.animations) {
        prop_assert_eq!(&x.name, &y.name);
        prop_assert!((x.duration - y.duration).abs() < 1e-6);
        prop_assert_eq!(x.ticks_per_second, y.ticks_per_second);
        prop_assert_eq!(x.channels.len(), y.channels.len());
        for (c, d) in x.channels.iter().zip(&y.channels) {
            prop_assert_eq!(&c.node_name, &d.node_name);
            prop_assert_eq!(c.position_keys.len(), d.position_keys.len());
            prop_assert_eq!(c.rotation_keys.len(), d.rotation_keys.len());
            for (p, q) in c.position_keys.iter().zip(&d.position_keys) {
                prop_assert!((p.time - q.time).abs() < 1e-6 && close3(p.value, q.value));
            }
            for (p, q) in c.scaling_keys.iter().zip(&d.scaling_keys) {
                prop_assert!((p.time - q.time).abs() < 1e-6 && close3(p.value, q.value));
            }
            for (p, q) in c.rotation_keys.iter().zip(&d.rotation_keys) {
                prop_assert!((p.time - q.time).abs() < 1e-6);
                prop_assert!(
                    p.value.dot(q.value).abs() > 0.9999,
                    "{:?} vs {:?}",
                    p.value,
                    q.value
                );
            }
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn scene_survives_fbx_round_trip(plan in plan(), compress in any::<bool>()) {
        let scene = build(&plan);
        scene.validate().expect("generator makes valid scenes");
        let bytes = write_fbx(&scene, &WriteOptions { compress, ..WriteOptions::default() }).unwrap();
        let back = import(&bytes).unwrap();
        prop_assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        back.validate().unwrap();
        assert_same(&scene, &back)?;
    }
}

#[test]
fn skinned_tube_round_trips() {
    let scene = kiln_testkit::fixtures::fbx::skinned_tube(kiln_testkit::fixtures::fbx::TubeSpec {
        rings: 5,
        segments: 4,
        bones: 3,
        frames: 4,
        per_corner: true,
    });
    let back = import(&write_fbx(&scene, &WriteOptions::default()).unwrap()).unwrap();
    assert!(back.warnings.is_empty(), "{:?}", back.warnings);
    assert_eq!(back.meshes[0].positions.len(), 4 * 4 * 4);
    assert_eq!(back.meshes[0].bones.len(), 3);
    assert_eq!(back.animations[0].channels.len(), 3);
    assert_eq!(back.animations[0].channels[2].rotation_keys.len(), 4);
    proptest::test_runner::TestRunner::default()
        .run(&Just(()), |_| assert_same(&scene, &back))
        .unwrap();
}
