//! The built-in sample that `kiln demo` converts: a small house, generated in code so that no
//! model file ships with kiln.
//!
//! `kiln demo` builds the house as a [`Scene`] ([`scene`]), writes it as binary FBX bytes
//! ([`fbx_bytes`]) and converts those: two objects, three materials (one with a texture
//! embedded in the FBX as an uncompressed TGA), quads and triangles, a concave L-shaped face
//! that needs ear clipping, UVs on some faces, and no normals, so kiln generates them. The
//! same house as OBJ + MTL text ([`obj_text`], [`mtl_text`]) feeds the OBJ conformance test.

use std::fmt::Write as _;

use kiln_scene::{
    EmbeddedTexture, Material, Mesh, Node, Scene, TextureKind, TextureRef, UvChannel, Vec3,
};

/// File name of the sample FBX that `kiln demo` writes and converts.
pub const FBX_NAME: &str = "house.fbx";
/// File name of the sample OBJ.
pub const OBJ_NAME: &str = "house.obj";
/// File name of its material library.
pub const MTL_NAME: &str = "house.mtl";
/// File name of the texture the walls use.
pub const TEXTURE_NAME: &str = "bricks.tga";

/// The sample's OBJ text.
pub fn obj_text() -> String {
    let mut s = String::new();
    s.push_str("# kiln demo: a house on an L-shaped plot\nmtllib house.mtl\n");
    // Walls: a 2 x 1.5 x 2 box.
    let box_corners = [
        (-1.0, 0.0, -1.0),
        (1.0, 0.0, -1.0),
        (1.0, 1.5, -1.0),
        (-1.0, 1.5, -1.0),
        (-1.0, 0.0, 1.0),
        (1.0, 0.0, 1.0),
        (1.0, 1.5, 1.0),
        (-1.0, 1.5, 1.0),
    ];
    for (x, y, z) in box_corners {
        let _ = writeln!(s, "v {x} {y} {z}");
    }
    // Roof ridge.
    s.push_str("v -1 2.5 0\nv 1 2.5 0\n");
    // Ground plot: an L shape (concave hexagon) at y = 0.
    for (x, z) in [
        (-3.0, -3.0),
        (3.0, -3.0),
        (3.0, 0.0),
        (0.0, 0.0),
        (0.0, 3.0),
        (-3.0, 3.0),
    ] {
        let _ = writeln!(s, "v {x} -0.01 {z}");
    }
    s.push_str("vt 0 0\nvt 1 0\nvt 1 1\nvt 0 1\n");
    s.push_str("o house\nusemtl bricks\n");
    // Counter-clockwise seen from outside (right-handed, as OBJ authors it).
    for f in [[1, 4, 3, 2], [5, 6, 7, 8], [1, 5, 8, 4], [2, 3, 7, 6]] {
        let _ = writeln!(s, "f {}/1 {}/2 {}/3 {}/4", f[0], f[1], f[2], f[3]);
    }
    s.push_str("usemtl roof\n");
    s.push_str("f 4 8 9\nf 3 10 7\nf 4 9 10 3\nf 8 7 10 9\n");
    s.push_str("o ground\nusemtl grass\nf 11 16 15 14 13 12\n");
    s
}

/// The sample's MTL text.
pub fn mtl_text() -> String {
    format!(
        "newmtl bricks\nKa 0.1 0.1 0.1\nKd 0.8 0.5 0.4\nKs 0.2 0.2 0.2\nNs 16\nmap_Kd {TEXTURE_NAME}\n\n\
         newmtl roof\nKa 0.1 0.1 0.1\nKd 0.5 0.1 0.1\nKs 0.3 0.3 0.3\nNs 32\n\n\
         newmtl grass\nKd 0.2 0.6 0.2\n"
    )
}

/// An 8x8 brick-like checker as an uncompressed 24-bit TGA file.
pub fn texture_bytes() -> Vec<u8> {
    let (w, h) = (8u16, 8u16);
    let mut t = vec![0u8; 18];
    t[2] = 2; // uncompressed true-colour
    t[12..14].copy_from_slice(&w.to_le_bytes());
    t[14..16].copy_from_slice(&h.to_le_bytes());
    t[16] = 24;
    for y in 0..h {
        for x in 0..w {
            let mortar = y % 4 == 0 || (x + if y / 4 % 2 == 0 { 0 } else { 2 }) % 4 == 0;
            let (r, g, b) = if mortar {
                (200, 200, 190)
            } else {
                (150, 60, 40)
            };
            t.extend_from_slice(&[b, g, r]);
        }
    }
    t
}

/// The house as a scene in Assimp's raw layout (one vertex per face corner): node `house` with
/// the brick walls and the roof, node `ground` with the L-shaped plot; the brick texture is
/// embedded.
pub fn scene() -> Scene {
    let corners = [
        Vec3::new(-1.0, 0.0, -1.0),
        Vec3::new(1.0, 0.0, -1.0),
        Vec3::new(1.0, 1.5, -1.0),
        Vec3::new(-1.0, 1.5, -1.0),
        Vec3::new(-1.0, 0.0, 1.0),
        Vec3::new(1.0, 0.0, 1.0),
        Vec3::new(1.0, 1.5, 1.0),
        Vec3::new(-1.0, 1.5, 1.0),
        Vec3::new(-1.0, 2.5, 0.0),
        Vec3::new(1.0, 2.5, 0.0),
    ];
    let plot = [
        (-3.0, -3.0),
        (3.0, -3.0),
        (3.0, 0.0),
        (0.0, 0.0),
        (0.0, 3.0),
        (-3.0, 3.0),
    ]
    .map(|(x, z)| Vec3::new(x, -0.01, z));
    // Faces as the OBJ lists them (1-based), counter-clockwise seen from outside.
    let mesh = |name: &str, material: usize, points: &[Vec3], faces: &[&[usize]], uv: bool| {
        let mut m = Mesh {
            name: name.into(),
            material,
            ..Mesh::default()
        };
        let square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)];
        let mut coords = Vec::new();
        for f in faces {
            let start = m.positions.len() as u32;
            for (k, &i) in f.iter().enumerate() {
                m.positions.push(points[i - 1]);
                let (u, v) = square[k % 4];
                coords.push(Vec3::new(u, v, 0.0));
            }
            let idx: Vec<u32> = (start..start + f.len() as u32).collect();
            m.push_face(&idx);
        }
        if uv {
            m.uv_channels.push(UvChannel {
                components: 2,
                coords,
                name: "UVMap".into(),
            });
        }
        m.update_primitive_types();
        m
    };
    let mut s = Scene::with_root("RootNode");
    s.meshes.push(mesh(
        "walls",
        0,
        &corners,
        &[&[1, 4, 3, 2], &[5, 6, 7, 8], &[1, 5, 8, 4], &[2, 3, 7, 6]],
        true,
    ));
    s.meshes.push(mesh(
        "roof",
        1,
        &corners,
        &[&[4, 8, 9], &[3, 10, 7], &[4, 9, 10, 3], &[8, 7, 10, 9]],
        false,
    ));
    s.meshes
        .push(mesh("ground", 2, &plot, &[&[1, 6, 5, 4, 3, 2]], false));
    s.materials.push(Material {
        name: "bricks".into(),
        ambient: Some(Vec3::splat(0.1)),
        diffuse: Some(Vec3::new(0.8, 0.5, 0.4)),
        specular: Some(Vec3::splat(0.2)),
        shininess: Some(16.0),
        textures: vec![TextureRef {
            kind: TextureKind::Diffuse,
            path: TEXTURE_NAME.into(),
            embedded: Some(0),
            uv_channel: 0,
        }],
        ..Material::default()
    });
    s.materials.push(Material {
        name: "roof".into(),
        ambient: Some(Vec3::splat(0.1)),
        diffuse: Some(Vec3::new(0.5, 0.1, 0.1)),
        specular: Some(Vec3::splat(0.3)),
        shininess: Some(32.0),
        ..Material::default()
    });
    s.materials.push(Material {
        name: "grass".into(),
        diffuse: Some(Vec3::new(0.2, 0.6, 0.2)),
        ..Material::default()
    });
    s.textures.push(EmbeddedTexture {
        filename: TEXTURE_NAME.into(),
        format_hint: "tga".into(),
        data: texture_bytes(),
    });
    let mut house = Node::new("house");
    house.meshes = vec![0, 1];
    s.add_child(0, house);
    let mut ground = Node::new("ground");
    ground.meshes = vec![2];
    s.add_child(0, ground);
    s
}

/// The house ([`scene`]) as binary FBX 7.4 bytes.
pub fn fbx_bytes() -> Vec<u8> {
    kiln_fbx_scene::write_fbx(&scene(), &kiln_fbx_scene::WriteOptions::default())
        .expect("the built-in house is a valid scene")
}
