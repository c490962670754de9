//! Reader for the XML dump that `assimp dump FILE OUT.assxml` writes (Assimp's AssxmlExporter),
//! into a [`kiln_scene::Scene`], so tests can compare kiln with real Assimp.
//!
//! Written from the dumps themselves (Debian assimp-utils 5.2.5): matrices are printed row by
//! row (`a1 a2 a3 a4` first, translation in the last column, so column vectors as kiln-scene
//! uses), quaternion keys as `x y z w`, floats with six decimals (`%f`), NaN as `nan`/`-nan`,
//! strings of material properties in double quotes.
#![allow(deprecated)]

use kiln_scene::{
    Animation, Bone, Mat4, Material, Mesh, Node, NodeChannel, PropertyValue, Quat, QuatKey, Scene,
    TextureKind, TextureRef, UvChannel, Vec3, Vec4, VectorKey, VertexWeight,
};
use quick_xml::Reader;
use quick_xml::events::Event;

/// One element of the dump: name, attributes, concatenated text, children.
#[derive(Debug, Default)]
struct Elem {
    name: String,
    attrs: Vec<(String, String)>,
    text: String,
    children: Vec<Elem>,
}

impl Elem {
    fn attr(&self, key: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
    fn child(&self, name: &str) -> Option<&Elem> {
        self.children.iter().find(|c| c.name == name)
    }
    fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Elem> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

fn parse_tree(xml: &str) -> Result<Elem, String> {
    let mut reader = Reader::from_str(xml);
    let mut stack: Vec<Elem> = vec![Elem::default()];
    loop {
        let ev = reader.read_event().map_err(|e| {
            format!(
                "assxml: XML error at byte {}: {e}",
                reader.buffer_position()
            )
        })?;
        match ev {
            Event::Start(s) => stack.push(elem_of(&s)?),
            Event::Empty(s) => {
                let e = elem_of(&s)?;
                stack
                    .last_mut()
                    .ok_or("assxml: unbalanced")?
                    .children
                    .push(e);
            }
            Event::End(_) => {
                let e = stack.pop().ok_or("assxml: unbalanced end tag")?;
                stack
                    .last_mut()
                    .ok_or("assxml: unbalanced end tag")?
                    .children
                    .push(e);
            }
            Event::Text(t) => {
                let s: &str = &t;
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(s);
                }
            }
            Event::GeneralRef(r) => {
                // Entities such as &amp; inside text; keep them decoded.
                let name: &str = &r;
                let s = match name {
                    "amp" => "&",
                    "lt" => "<",
                    "gt" => ">",
                    "quot" => "\"",
                    "apos" => "'",
                    _ => "?",
                };
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(s);
                }
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let mut root = stack.pop().ok_or("assxml: empty")?;
    if !stack.is_empty() {
        return Err("assxml: unclosed elements".into());
    }
    root.name = "#document".into();
    Ok(root)
}

fn elem_of(s: &quick_xml::events::BytesStart<'_>) -> Result<Elem, String> {
    let name = s.name().into_inner().to_string();
    let mut attrs = Vec::new();
    for a in s.attributes().with_checks(false) {
        let a = a.map_err(|e| format!("assxml: bad attribute in <{name}>: {e}"))?;
        let k = a.key.into_inner().to_string();
        let v = a
            .unescape_value()
            .map(|v| v.into_owned())
            .unwrap_or_else(|_| a.value.to_string());
        attrs.push((k, v));
    }
    Ok(Elem {
        name,
        attrs,
        ..Elem::default()
    })
}

fn parse_f32(tok: &str) -> Result<f32, String> {
    match tok {
        "nan" | "-nan" | "nan(ind)" | "-nan(ind)" => Ok(f32::NAN),
        "inf" => Ok(f32::INFINITY),
        "-inf" => Ok(f32::NEG_INFINITY),
        _ => tok
            .parse::<f32>()
            .map_err(|_| format!("assxml: bad number {tok:?}")),
    }
}

fn floats(text: &str) -> Result<Vec<f32>, String> {
    text.split_ascii_whitespace().map(parse_f32).collect()
}

fn uints(text: &str) -> Result<Vec<u32>, String> {
    text.split_ascii_whitespace()
        .map(|t| {
            t.parse::<u32>()
                .map_err(|_| format!("assxml: bad index {t:?}"))
        })
        .collect()
}

fn matrix(e: &Elem) -> Result<Mat4, String> {
    let m = e
        .child("Matrix4")
        .ok_or_else(|| format!("assxml: <{}> without Matrix4", e.name))?;
    let v = floats(&m.text)?;
    let arr: [f32; 16] = v
        .try_into()
        .map_err(|_| "assxml: Matrix4 needs 16 numbers".to_string())?;
    // Printed row by row; glam takes columns.
    Ok(Mat4::from_cols_array(&arr).transpose())
}

/// The `num_components` attribute. Assimp writes `0` for channels that GenUVCoords made, and
/// two numbers per vertex for them: read that as 2.
fn components(e: &Elem, default: u8) -> u8 {
    match e.attr("num_components").and_then(|n| n.parse::<u8>().ok()) {
        Some(0) => 2,
        Some(n) => n,
        None => default,
    }
}

fn vec3s(e: &Elem) -> Result<Vec<Vec3>, String> {
    let comps = components(e, 3) as usize;
    let v = floats(&e.text)?;
    if comps == 0 || v.len() % comps != 0 {
        return Err(format!(
            "assxml: <{}> has {} numbers for {comps} components",
            e.name,
            v.len()
        ));
    }
    Ok(v.chunks(comps)
        .map(|c| Vec3::new(c[0], *c.get(1).unwrap_or(&0.0), *c.get(2).unwrap_or(&0.0)))
        .collect())
}

/// Reads and parses a dump file. Assimp writes names byte for byte, so a dump of a file with
/// Latin-1 names is not UTF-8: its bytes that are not UTF-8 are kept as
/// `kiln_scene::names` keeps them, which is how kiln's importers read those names too.
pub fn parse_assxml_file(path: &std::path::Path) -> Result<Scene, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    parse_assxml(&kiln_scene::names::from_bytes(&bytes))
}

/// Parses a whole `.assxml` dump.
pub fn parse_assxml(xml: &str) -> Result<Scene, String> {
    let doc = parse_tree(xml)?;
    let root = doc.child("ASSIMP").ok_or("assxml: no <ASSIMP>")?;
    let sc = root.child("Scene").ok_or("assxml: no <Scene>")?;
    let mut scene = Scene::default();

    if let Some(n) = sc.child("Node") {
        // Iterative pre-order walk: (element, parent id).
        let mut stack: Vec<(&Elem, Option<usize>)> = vec![(n, None)];
        while let Some((e, parent)) = stack.pop() {
            let mut node = Node::new(e.attr("name").unwrap_or(""));
            node.transform = matrix(e)?;
            if let Some(r) = e.child("MeshRefs") {
                node.meshes = uints(&r.text)?.into_iter().map(|x| x as usize).collect();
            }
            let id = match parent {
                Some(p) => scene.add_child(p, node),
                None => {
                    scene.nodes.push(node);
                    0
                }
            };
            if let Some(list) = e.child("NodeList") {
                let kids: Vec<&Elem> = list.children_named("Node").collect();
                for k in kids.into_iter().rev() {
                    stack.push((k, Some(id)));
                }
            }
        }
    }
    // The pre-order walk above pushes children in reverse, so ids are assigned in pre-order
    // but each parent's `children` list is filled in pop order, which is the file order.

    if let Some(list) = sc.child("MaterialList") {
        for m in list.children_named("Material") {
            scene.materials.push(material(m)?);
        }
    }
    if let Some(list) = sc.child("MeshList") {
        for m in list.children_named("Mesh") {
            scene.meshes.push(mesh(m)?);
        }
    }
    if let Some(list) = sc.child("AnimationList") {
        for a in list.children_named("Animation") {
            scene.animations.push(animation(a)?);
        }
    }
    Ok(scene)
}

fn material(m: &Elem) -> Result<Material, String> {
    let mut mat = Material::default();
    let Some(props) = m.child("MatPropertyList") else {
        return Ok(mat);
    };
    for p in props.children_named("MatProperty") {
        let key = p.attr("key").unwrap_or("").to_string();
        let ty = p.attr("type").unwrap_or("");
        let text = p.text.trim();
        let value = match ty {
            "string" => {
                let s = text
                    .strip_prefix('"')
                    .and_then(|s| s.strip_suffix('"'))
                    .unwrap_or(text);
                PropertyValue::String(s.to_string())
            }
            "integer" => {
                let v: Vec<i64> = text
                    .split_ascii_whitespace()
                    .filter_map(|t| t.parse().ok())
                    .collect();
                if v.len() == 1 {
                    PropertyValue::Int(v[0])
                } else {
                    PropertyValue::Vector(v.iter().map(|&x| x as f64).collect())
                }
            }
            "float" | "double" => {
                let v: Vec<f64> = floats(text)?.into_iter().map(f64::from).collect();
                if v.len() == 1 {
                    PropertyValue::Float(v[0])
                } else {
                    PropertyValue::Vector(v)
                }
            }
            _ => PropertyValue::String(text.to_string()),
        };
        let color = |v: &PropertyValue| match v {
            PropertyValue::Vector(x) if x.len() >= 3 => {
                Some(Vec3::new(x[0] as f32, x[1] as f32, x[2] as f32))
            }
            _ => None,
        };
        let scalar = |v: &PropertyValue| match v {
            PropertyValue::Float(x) => Some(*x as f32),
            PropertyValue::Int(x) => Some(*x as f32),
            PropertyValue::Vector(x) => x.first().map(|&x| x as f32),
            _ => None,
        };
        match key.as_str() {
            "?mat.name" => {
                if let PropertyValue::String(s) = &value {
                    mat.name = s.clone();
                }
            }
            "$clr.ambient" => mat.ambient = color(&value),
            "$clr.diffuse" => mat.diffuse = color(&value),
            "$clr.specular" => mat.specular = color(&value),
            "$clr.emissive" => mat.emissive = color(&value),
            "$mat.shininess" => mat.shininess = scalar(&value),
            "$mat.shinpercent" => mat.shininess_strength = scalar(&value),
            "$mat.opacity" => mat.opacity = scalar(&value),
            "$tex.file" => {
                let kind = match p.attr("tex_usage").unwrap_or("") {
                    "Diffuse" => TextureKind::Diffuse,
                    "Specular" => TextureKind::Specular,
                    "Ambient" => TextureKind::Ambient,
                    "Emissive" => TextureKind::Emissive,
                    "Height" => TextureKind::Height,
                    "Normals" => TextureKind::Normals,
                    "Shininess" => TextureKind::Shininess,
                    "Opacity" => TextureKind::Opacity,
                    "Displacement" => TextureKind::Displacement,
                    "Reflection" => TextureKind::Reflection,
                    _ => TextureKind::Unknown,
                };
                if let PropertyValue::String(s) = &value {
                    mat.textures.push(TextureRef {
                        kind,
                        path: s.clone(),
                        embedded: None,
                        uv_channel: 0,
                    });
                }
            }
            _ => mat.properties.push((key, value)),
        }
    }
    Ok(mat)
}

fn mesh(m: &Elem) -> Result<Mesh, String> {
    let mut mesh = Mesh {
        material: m
            .attr("material_index")
            .and_then(|v| v.parse().ok())
            .unwrap_or(0),
        name: m.attr("name").unwrap_or("").to_string(),
        ..Mesh::default()
    };
    if let Some(fl) = m.child("FaceList") {
        for f in fl.children_named("Face") {
            let idx = uints(&f.text)?;
            mesh.push_face(&idx);
        }
    }
    if let Some(p) = m.child("Positions") {
        mesh.positions = vec3s(p)?;
    }
    if let Some(p) = m.child("Normals") {
        mesh.normals = vec3s(p)?;
    }
    if let Some(p) = m.child("Tangents") {
        mesh.tangents = vec3s(p)?;
    }
    if let Some(p) = m.child("Bitangents") {
        mesh.bitangents = vec3s(p)?;
    }
    for t in m.children_named("TextureCoords") {
        let comps = components(t, 2);
        mesh.uv_channels.push(UvChannel {
            components: comps,
            coords: vec3s(t)?,
            name: t.attr("name").unwrap_or("").to_string(),
        });
    }
    for c in m.children_named("Colors") {
        let v = floats(&c.text)?;
        if v.len() % 4 != 0 {
            return Err("assxml: <Colors> not a multiple of 4 numbers".into());
        }
        mesh.color_channels.push(
            v.chunks(4)
                .map(|c| Vec4::new(c[0], c[1], c[2], c[3]))
                .collect(),
        );
    }
    if let Some(bl) = m.child("BoneList") {
        for b in bl.children_named("Bone") {
            let mut bone = Bone {
                name: b.attr("name").unwrap_or("").to_string(),
                offset_matrix: matrix(b)?,
                weights: Vec::new(),
            };
            if let Some(wl) = b.child("WeightList") {
                for w in wl.children_named("Weight") {
                    let vertex = w
                        .attr("index")
                        .and_then(|v| v.parse().ok())
                        .ok_or("assxml: Weight without index")?;
                    let weight = parse_f32(w.text.trim())?;
                    bone.weights.push(VertexWeight { vertex, weight });
                }
            }
            mesh.bones.push(bone);
        }
    }
    mesh.update_primitive_types();
    Ok(mesh)
}

fn animation(a: &Elem) -> Result<Animation, String> {
    let num = |k: &str| a.attr(k).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    let mut anim = Animation {
        name: a.attr("name").unwrap_or("").to_string(),
        duration: num("duration"),
        ticks_per_second: num("tick_cnt"),
        channels: Vec::new(),
        morph_channels: Vec::new(),
    };
    if let Some(list) = a.child("NodeAnimList") {
        for na in list.children_named("NodeAnim") {
            let mut ch = NodeChannel {
                node_name: na.attr("node").unwrap_or("").to_string(),
                ..NodeChannel::default()
            };
            let time = |k: &Elem| {
                k.attr("time")
                    .and_then(|v| v.parse::<f64>().ok())
                    .unwrap_or(0.0)
            };
            let vkeys = |list: Option<&Elem>, key: &str| -> Result<Vec<VectorKey>, String> {
                let mut out = Vec::new();
                if let Some(l) = list {
                    for k in l.children_named(key) {
                        let v = floats(&k.text)?;
                        if v.len() != 3 {
                            return Err(format!("assxml: <{key}> needs 3 numbers"));
                        }
                        out.push(VectorKey {
                            time: time(k),
                            value: Vec3::new(v[0], v[1], v[2]),
                        });
                    }
                }
                Ok(out)
            };
            ch.position_keys = vkeys(na.child("PositionKeyList"), "PositionKey")?;
            ch.scaling_keys = vkeys(na.child("ScalingKeyList"), "ScalingKey")?;
            if let Some(l) = na.child("RotationKeyList") {
                for k in l.children_named("RotationKey") {
                    let v = floats(&k.text)?;
                    if v.len() != 4 {
                        return Err("assxml: <RotationKey> needs 4 numbers".into());
                    }
                    ch.rotation_keys.push(QuatKey {
                        time: time(k),
                        value: Quat::from_xyzw(v[0], v[1], v[2], v[3]),
                    });
                }
            }
            anim.channels.push(ch);
        }
    }
    Ok(anim)
}
