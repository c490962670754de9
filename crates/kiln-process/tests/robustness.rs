//! No panics on any scene content, and no quadratic blow-up on big meshes.

use kiln_process::{
    ProcessError, Steps, calc_tangent_space, flip_winding_order, gen_normals, gen_uv_coords,
    make_left_handed, pre_transform_vertices, process, triangulate,
};
use kiln_scene::{Mat4, Material, Mesh, Node, PropertyValue, Scene, UvChannel, Vec3, Vec4};
use std::time::Instant;

use kiln_testkit::rng::Rng;

/// The generator's draws this test needs beyond [`Rng`]'s.
trait Draws {
    fn float(&mut self) -> f32;
    fn vec3(&mut self) -> Vec3;
}

impl Draws for Rng {
    fn float(&mut self) -> f32 {
        match self.below(20) {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => -f32::INFINITY,
            3 => 0.0,
            4 => 1e30,
            5 => f32::MIN_POSITIVE,
            // Snap to a coarse lattice so that coincident and collinear points are common.
            _ => (self.below(9) as f32 - 4.0) * 0.5,
        }
    }
    fn vec3(&mut self) -> Vec3 {
        Vec3::new(self.float(), self.float(), self.float())
    }
}

fn random_scene(rng: &mut Rng, allow_invalid: bool) -> Scene {
    let mut s = Scene::with_root("root");
    for _ in 0..1 + rng.below(3) {
        let mut mat = Material::default();
        if rng.below(2) == 0 {
            mat.properties.push((
                "$tex.mapping".into(),
                PropertyValue::Int(rng.below(7) as i64),
            ));
            if rng.below(2) == 0 {
                mat.properties.push((
                    "$tex.mapaxis".into(),
                    PropertyValue::Vector(vec![
                        rng.float() as f64,
                        rng.float() as f64,
                        rng.float() as f64,
                    ]),
                ));
            }
        }
        s.materials.push(mat);
    }
    for _ in 0..rng.below(4) {
        let nv = rng.below(24) as usize;
        let mut m = Mesh {
            material: rng.below(s.materials.len() as u64) as usize,
            positions: (0..nv).map(|_| rng.vec3()).collect(),
            ..Mesh::default()
        };
        if rng.below(2) == 0 {
            m.normals = (0..nv).map(|_| rng.vec3()).collect();
        }
        if rng.below(4) == 0 {
            m.tangents = (0..nv).map(|_| rng.vec3()).collect();
            m.bitangents = (0..nv).map(|_| rng.vec3()).collect();
        }
        for _ in 0..rng.below(3) {
            m.uv_channels.push(UvChannel {
                components: 1 + rng.below(3) as u8,
                coords: (0..nv).map(|_| rng.vec3()).collect(),
                name: String::new(),
            });
        }
        if rng.below(3) == 0 {
            m.color_channels.push(vec![Vec4::ONE; nv]);
        }
        for _ in 0..rng.below(12) {
            let k = rng.below(9) as usize;
            let face: Vec<u32> = (0..k)
                .map(|_| {
                    let bound = if allow_invalid && rng.below(40) == 0 {
                        nv + 3
                    } else {
                        nv
                    };
                    rng.below(bound as u64) as u32
                })
                .collect();
            if nv > 0 || face.is_empty() || allow_invalid {
                m.push_face(&face);
            }
        }
        if allow_invalid && rng.below(30) == 0 {
            m.face_sizes.push(5);
        }
        m.update_primitive_types();
        s.meshes.push(m);
    }
    for i in 0..rng.below(6) {
        let parent = rng.below(s.nodes.len() as u64) as usize;
        let mut n = Node::new(format!("n{i}"));
        n.transform = match rng.below(4) {
            0 => Mat4::IDENTITY,
            1 => Mat4::from_scale(Vec3::new(-1.0, 2.0, 1.0)),
            2 => Mat4::ZERO,
            _ => Mat4::from_translation(rng.vec3()),
        };
        let id = s.add_child(parent, n);
        for _ in 0..rng.below(3) {
            if !s.meshes.is_empty() {
                let m = rng.below(s.meshes.len() as u64 + u64::from(allow_invalid)) as usize;
                s.nodes[id].meshes.push(m);
            }
        }
    }
    s
}

fn check_shape(s: &Scene) {
    for m in &s.meshes {
        let total: usize = m.face_sizes.iter().map(|&n| n as usize).sum();
        assert_eq!(total, m.indices.len());
        assert!(m.indices.iter().all(|&i| (i as usize) < m.positions.len()));
        for len in [m.normals.len(), m.tangents.len(), m.bitangents.len()] {
            assert!(len == 0 || len == m.positions.len());
        }
    }
}

#[test]
fn random_scenes_never_panic() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..4000 {
        let allow_invalid = round % 3 == 0;
        let scene = random_scene(&mut rng, allow_invalid);
        for steps in [Steps::ORIGINAL_TOOL, Steps::ORIGINAL_TOOL_STATIC] {
            let mut s = scene.clone();
            match process(&mut s, steps) {
                Ok(()) => check_shape(&s),
                Err(ProcessError::MalformedMesh { .. } | ProcessError::MalformedNodes { .. }) => {
                    assert!(allow_invalid, "round {round}: valid scene refused");
                    // Debug text, not ==: NaN coordinates are not equal to themselves.
                    assert_eq!(
                        format!("{s:?}"),
                        format!("{scene:?}"),
                        "a refused scene must be left unchanged"
                    );
                }
                Err(_) => {}
            }
        }
        // Each step alone, too.
        let mut s = scene.clone();
        make_left_handed(&mut s);
        flip_winding_order(&mut s);
        let _ = triangulate(&mut s);
        let _ = gen_uv_coords(&mut s);
        let _ = gen_normals(&mut s, true);
        let _ = calc_tangent_space(&mut s);
        let _ = pre_transform_vertices(&mut s);
    }
}

#[test]
fn empty_scenes_and_meshes() {
    let mut s = Scene::default();
    assert!(matches!(
        pre_transform_vertices(&mut s),
        Ok(()) | Err(ProcessError::MalformedNodes { .. })
    ));
    process(&mut s, Steps::ORIGINAL_TOOL).unwrap();
    let mut s = Scene::with_root("r");
    s.materials.push(Material::default());
    s.meshes.push(Mesh::default());
    s.nodes[0].meshes.push(0);
    process(&mut s, Steps::ORIGINAL_TOOL).unwrap();
    assert_eq!(
        process(&mut s, Steps::ORIGINAL_TOOL_STATIC),
        Err(ProcessError::NoOutputMeshes)
    );
}

/// A verbose-layout grid of `n × n` quads (4 vertices each), the way OBJ/FBX imports look.
fn grid(n: usize) -> Scene {
    let mut s = Scene::with_root("r");
    s.materials.push(Material::default());
    let mut m = Mesh::default();
    let mut uv = Vec::new();
    for y in 0..n {
        for x in 0..n {
            let base = m.positions.len() as u32;
            for (dx, dy) in [(0, 0), (1, 0), (1, 1), (0, 1)] {
                let (px, py) = ((x + dx) as f32, (y + dy) as f32);
                // A gentle bump so normals differ a little from face to face.
                m.positions
                    .push(Vec3::new(px, py, (px * 0.1).sin() + (py * 0.07).cos()));
                uv.push(Vec3::new(px / n as f32, py / n as f32, 0.0));
            }
            m.push_face(&[base, base + 1, base + 2, base + 3]);
        }
    }
    m.uv_channels.push(UvChannel {
        components: 2,
        coords: uv,
        name: String::new(),
    });
    m.update_primitive_types();
    s.meshes.push(m);
    s.nodes[0].meshes.push(0);
    s
}

#[test]
fn big_mesh_is_not_quadratic() {
    // 90 000 quads, 360 000 vertices: Assimp's quadratic tangent smoothing would take minutes.
    let mut s = grid(300);
    let t = Instant::now();
    process(&mut s, Steps::ORIGINAL_TOOL_STATIC).unwrap();
    let elapsed = t.elapsed();
    println!("ORIGINAL_TOOL_STATIC on 360 000 vertices: {elapsed:?}");
    assert_eq!(s.meshes[0].face_count(), 180_000);
    assert!(s.meshes[0].tangents.iter().all(|t| t.is_finite()));
    assert!(elapsed.as_secs_f64() < 30.0, "took {elapsed:?}");
}
