//! FBX before 6.0 (3ds Max 6 to 2009, MotionBuilder 5 and 7: `FBXVersion` 5000 and 5800,
//! binary header version 3000 or 5000, ASCII too) has no `Objects` and no `Connections`: every
//! `Model` sits at the top level with its geometry, materials and skin links inside it, its
//! rest transform in its own `Channel: "Transform"` defaults, and its children named in a
//! `Children` list. This module rewrites such a tree as the FBX 6.1 tree it stands for, which
//! the importer then reads as any 6.1 file, so a 5.x scene and the same scene saved as 6.1 or
//! 7.x give the same result:
//!
//! | before 6.0, on the model | 6.1 |
//! |---|---|
//! | `Model: "Name"` or `"Model::Name"` at the top | `Objects/Model: "Model::Name", CLASS` (class from `Type`, `Mesh` where `Vertices` is) |
//! | `Channel: "Transform"` → `T`/`R`/`S` → `X`/`Y`/`Z` `Default` (of the model in the current take, else on the model) | `Lcl Translation`/`Rotation`/`Scaling` in `Properties60` |
//! | `Children: "A", "B"` | `Connect: "OO"` child → parent; a model nobody lists → the scene |
//! | `Normals` (per control point or per corner, told by its count) | `LayerElementNormal` |
//! | `GeometryUVInfo` (`TextureUV`, `TextureUVVerticeIndex`) | `LayerElementUV`, mapping told by the index count |
//! | `MaterialAssignation` + `Materials` | `LayerElementMaterial` |
//! | nested `Material` (`Diffuse`, `Ambient`, `Specular`, `Emissive`: 3 numbers; `Shininess`, `ShadingModel`) | `Material` object, `DiffuseColor`... in `Properties60` |
//! | nested `Link: "Bone"` (`Indexes`, `Weights`, `Transform`, `TransformLink`) | a `Skin` deformer with one `Cluster` per link |
//! | `Settings/FrameRate` | `GlobalSettings` `TimeMode` custom, `CustomFrameRate` |
//! | `Takes` (model names as the models') | `Takes`, each curve's `KeyVer` made explicit (4003 before 5.0, 4004 after) |
//!
//! What 5.x files hold beyond that (cameras, lights, `Media` textures) is not rewritten.

use std::collections::{HashMap, HashSet};

use kiln_fbx::{OwnedNode, OwnedValue};

/// Whether a document is a pre-6.0 flat one: no `Objects`, models at the top.
pub(crate) fn is_flat(doc: &kiln_fbx::Document<'_>) -> bool {
    doc.root("Objects").is_none() && doc.roots().any(|n| n.name() == "Model")
}

/// `Class::Name` of a model name as 5.x files write it (binary: bare; ASCII: `Model::Name`).
fn model_name(v: Option<&OwnedValue>) -> Option<String> {
    let OwnedValue::String(b) = v? else {
        return None;
    };
    let s = crate::graph::normalize_name(b);
    Some(if s.contains("::") {
        s
    } else {
        format!("Model::{s}")
    })
}

/// The binary form (`Name\0\x01Class`) of `Class::Name`.
fn binary_name(class_name: &str) -> OwnedValue {
    let (class, name) = class_name.split_once("::").unwrap_or(("", class_name));
    let mut b = kiln_scene::names::to_bytes(name).into_owned();
    b.extend_from_slice(&[0, 1]);
    b.extend_from_slice(class.as_bytes());
    OwnedValue::String(b)
}

fn child<'n>(n: &'n OwnedNode, name: &str) -> Option<&'n OwnedNode> {
    n.children.iter().find(|c| c.name == name)
}

fn string_of(n: &OwnedNode) -> Option<String> {
    match n.properties.first()? {
        OwnedValue::String(s) => Some(kiln_scene::names::from_bytes(s).into_owned()),
        _ => None,
    }
}

fn number(v: &OwnedValue) -> Option<f64> {
    Some(match *v {
        OwnedValue::Char(c) | OwnedValue::U8(c) => f64::from(c),
        OwnedValue::I16(x) => f64::from(x),
        OwnedValue::I32(x) => f64::from(x),
        OwnedValue::I64(x) => x as f64,
        OwnedValue::F32(x) => f64::from(x),
        OwnedValue::F64(x) => x,
        _ => return None,
    })
}

/// A node's numbers (its one array, or its scalar values).
fn numbers(n: &OwnedNode) -> Vec<f64> {
    match n.properties.as_slice() {
        [OwnedValue::F64Array(a)] => a.clone(),
        [OwnedValue::F32Array(a)] => a.iter().map(|&x| f64::from(x)).collect(),
        [OwnedValue::I32Array(a)] => a.iter().map(|&x| f64::from(x)).collect(),
        [OwnedValue::I64Array(a)] => a.iter().map(|&x| x as f64).collect(),
        vals => vals.iter().filter_map(number).collect(),
    }
}

fn ints(n: &OwnedNode) -> Vec<i32> {
    numbers(n).iter().map(|&x| x as i32).collect()
}

fn leaf(name: &str, v: OwnedValue) -> OwnedNode {
    OwnedNode::new(name).with(v)
}

fn property(name: &str, ty: &str, values: impl IntoIterator<Item = OwnedValue>) -> OwnedNode {
    let mut p = OwnedNode::new("Property")
        .with(OwnedValue::string(name))
        .with(OwnedValue::string(ty))
        .with(OwnedValue::string(""));
    p.properties.extend(values);
    p
}

/// `Transform`'s `T`/`R`/`S` defaults as 6.1 properties: those of the model in the current
/// take, else the model's own channel (5.0 files without takes keep it only there), as ufbx
/// takes them.
fn rest_transform(model: &OwnedNode, take_model: Option<&OwnedNode>) -> Vec<OwnedNode> {
    let mut out = Vec::new();
    let transform = |m: &OwnedNode| {
        m.children
            .iter()
            .find(|c| {
                c.name == "Channel"
                    && c.properties.first() == Some(&OwnedValue::string("Transform"))
            })
            .cloned()
    };
    let Some(t) = take_model.and_then(transform).or_else(|| transform(model)) else {
        return out;
    };
    for (letter, name, default) in [
        ("T", "Lcl Translation", 0.0),
        ("R", "Lcl Rotation", 0.0),
        ("S", "Lcl Scaling", 1.0),
    ] {
        let Some(ch) = t.children.iter().find(|c| {
            c.name == "Channel" && c.properties.first() == Some(&OwnedValue::string(letter))
        }) else {
            continue;
        };
        let axis = |a: &str| -> f64 {
            ch.children
                .iter()
                .find(|c| {
                    c.name == "Channel" && c.properties.first() == Some(&OwnedValue::string(a))
                })
                .and_then(|c| child(c, "Default"))
                .and_then(|d| d.properties.first().and_then(number))
                .unwrap_or(default)
        };
        out.push(property(
            name,
            name,
            ["X", "Y", "Z"].map(|a| OwnedValue::F64(axis(a))),
        ));
    }
    out
}

/// The 6.1 mapping of a layer with `count` entries (index or value) on a mesh.
fn mapping(count: usize, corners: usize, points: usize, polygons: usize, given: &str) -> String {
    if count == corners {
        "ByPolygonVertex".into()
    } else if count == points && given != "ByPolygon" {
        "ByVertice".into()
    } else if count == polygons {
        "ByPolygon".into()
    } else if count == 1 {
        "AllSame".into()
    } else {
        given.into()
    }
}

fn layer_element(name: &str, mapping: &str, reference: &str, data: Vec<OwnedNode>) -> OwnedNode {
    let mut e = OwnedNode::new(name)
        .with(OwnedValue::I32(0))
        .with_child(leaf("Version", OwnedValue::I32(101)))
        .with_child(leaf("Name", OwnedValue::string("")))
        .with_child(leaf("MappingInformationType", OwnedValue::string(mapping)))
        .with_child(leaf(
            "ReferenceInformationType",
            OwnedValue::string(reference),
        ));
    e.children.extend(data);
    e
}

/// The mesh children of a 5.x model, as 6.1 writes them on its model.
fn geometry(model: &OwnedNode, version: u32) -> Vec<OwnedNode> {
    let (Some(vertices), Some(pvi)) =
        (child(model, "Vertices"), child(model, "PolygonVertexIndex"))
    else {
        return Vec::new();
    };
    let points = numbers(vertices).len() / 3;
    let indices = ints(pvi);
    let corners = indices.len();
    let polygons = indices.iter().filter(|&&i| i < 0).count();
    let mut out = vec![
        leaf("Vertices", OwnedValue::F64Array(numbers(vertices))),
        leaf("PolygonVertexIndex", OwnedValue::I32Array(indices)),
        leaf("GeometryVersion", OwnedValue::I32(124)),
    ];
    let mut layer = Vec::new();
    if let Some(n) = child(model, "Normals") {
        let v = numbers(n);
        let count = v.len() / 3;
        // Per control point or per corner, told by the count (5000 prefers control points).
        let by_vertex = count == points && (count != corners || version == 5000);
        let m = if by_vertex {
            "ByVertice"
        } else {
            "ByPolygonVertex"
        };
        out.push(layer_element(
            "LayerElementNormal",
            m,
            "Direct",
            vec![leaf("Normals", OwnedValue::F64Array(v))],
        ));
        layer.push("LayerElementNormal");
    }
    if let Some(uv) = child(model, "GeometryUVInfo") {
        let given = child(uv, "MappingInformationType")
            .and_then(string_of)
            .unwrap_or_default();
        let values = child(uv, "TextureUV").map(numbers).unwrap_or_default();
        let index = child(uv, "TextureUVVerticeIndex").map(ints);
        let count = index.as_ref().map_or(values.len() / 2, Vec::len);
        let m = mapping(count, corners, points, polygons, &given);
        let mut data = vec![leaf("UV", OwnedValue::F64Array(values))];
        let reference = match index {
            Some(i) => {
                data.push(leaf("UVIndex", OwnedValue::I32Array(i)));
                "IndexToDirect"
            }
            None => "Direct",
        };
        out.push(layer_element("LayerElementUV", &m, reference, data));
        layer.push("LayerElementUV");
    }
    // Without materials on the model the mesh takes the default one, as a 6.1 mesh without
    // a material layer does.
    let has_materials = model.children.iter().any(|c| c.name == "Material");
    if let Some(m) = child(model, "MaterialAssignation")
        .and_then(string_of)
        .filter(|_| has_materials)
    {
        let list = child(model, "Materials").map(ints).unwrap_or_default();
        let mapping = if m == "ByPolygon" {
            "ByPolygon"
        } else {
            "AllSame"
        };
        out.push(layer_element(
            "LayerElementMaterial",
            mapping,
            "IndexToDirect",
            vec![leaf("Materials", OwnedValue::I32Array(list))],
        ));
        layer.push("LayerElementMaterial");
    }
    let mut l = OwnedNode::new("Layer")
        .with(OwnedValue::I32(0))
        .with_child(leaf("Version", OwnedValue::I32(100)));
    for e in layer {
        l.children.push(
            OwnedNode::new("LayerElement")
                .with_child(leaf("Type", OwnedValue::string(e)))
                .with_child(leaf("TypedIndex", OwnedValue::I32(0))),
        );
    }
    out.push(l);
    out
}

/// A nested 5.x material as a 6.1 `Material` object.
fn material(m: &OwnedNode, name: &str) -> OwnedNode {
    let mut props = Vec::new();
    for (old, new) in [
        ("Ambient", "AmbientColor"),
        ("Diffuse", "DiffuseColor"),
        ("Emissive", "EmissiveColor"),
        ("Specular", "SpecularColor"),
    ] {
        if let Some(n) = child(m, old) {
            let v = numbers(n);
            if v.len() >= 3 {
                props.push(property(
                    new,
                    "ColorRGB",
                    v[..3].iter().map(|&x| OwnedValue::F64(x)),
                ));
            }
        }
    }
    for (old, new) in [("Shininess", "Shininess"), ("Opacity", "Opacity")] {
        if let Some(x) = child(m, old).and_then(|n| numbers(n).first().copied()) {
            props.push(property(new, "double", [OwnedValue::F64(x)]));
        }
    }
    let shading = child(m, "ShadingModel")
        .and_then(string_of)
        .unwrap_or_else(|| "lambert".into());
    OwnedNode::new("Material")
        .with(binary_name(name))
        .with(OwnedValue::string(""))
        .with_child(leaf("Version", OwnedValue::I32(102)))
        .with_child(leaf("ShadingModel", OwnedValue::string(&shading)))
        .with_child(OwnedNode {
            name: "Properties60".into(),
            properties: Vec::new(),
            children: props,
        })
}

fn connect(src: &str, dst: &str) -> OwnedNode {
    OwnedNode::new("Connect")
        .with(OwnedValue::string("OO"))
        .with(binary_name(src))
        .with(binary_name(dst))
}

/// Takes with model names in their `Class::Name` binary form and each curve's `KeyVer` set.
fn takes(t: &OwnedNode, key_ver: i32) -> OwnedNode {
    let mut out = t.clone();
    let mut stack: Vec<&mut OwnedNode> = vec![&mut out];
    while let Some(n) = stack.pop() {
        if n.name == "Model" {
            if let Some(name) = model_name(n.properties.first()) {
                n.properties[0] = binary_name(&name);
            }
        }
        if child(n, "Key").is_some() && child(n, "KeyVer").is_none() {
            n.children.push(leaf("KeyVer", OwnedValue::I32(key_ver)));
        }
        stack.extend(n.children.iter_mut());
    }
    out
}

/// The 6.1 tree of a flat pre-6.0 tree; `version` is its `FBXVersion`.
pub(crate) fn to_fbx61(roots: &[OwnedNode], version: u32) -> Vec<OwnedNode> {
    let mut objects = Vec::new();
    let mut connections = Vec::new();
    let models: Vec<(&OwnedNode, String)> = roots
        .iter()
        .filter(|n| n.name == "Model")
        .filter_map(|n| Some((n, model_name(n.properties.first())?)))
        .collect();
    let mut has_parent: HashSet<String> = HashSet::new();
    let mut parent_links = Vec::new();
    let known: HashSet<&str> = models.iter().map(|(_, n)| n.as_str()).collect();
    for (model, name) in &models {
        if let Some(c) = child(model, "Children") {
            for v in &c.properties {
                let Some(kid) = model_name(Some(v)) else {
                    continue;
                };
                if known.contains(kid.as_str()) && has_parent.insert(kid.clone()) {
                    parent_links.push(connect(&kid, name));
                }
            }
        }
    }
    // The current take's models by name (`Takes/Current`, else the first take).
    let take_models: HashMap<String, &OwnedNode> = roots
        .iter()
        .find(|n| n.name == "Takes")
        .and_then(|t| {
            let current = child(t, "Current").and_then(|c| c.properties.first().cloned());
            let mut all = t.children.iter().filter(|c| c.name == "Take");
            let first = all.clone().next();
            all.find(|c| current.is_some() && c.properties.first() == current.as_ref())
                .or(first)
        })
        .map(|take| {
            take.children
                .iter()
                .filter(|c| c.name == "Model")
                .filter_map(|m| Some((model_name(m.properties.first())?, m)))
                .collect()
        })
        .unwrap_or_default();
    for (model, name) in &models {
        let geometry = geometry(model, version);
        let class = if !geometry.is_empty() {
            "Mesh".to_string()
        } else {
            child(model, "Type")
                .and_then(string_of)
                .unwrap_or_else(|| "Null".into())
        };
        let mut m = OwnedNode::new("Model")
            .with(binary_name(name))
            .with(OwnedValue::string(&class))
            .with_child(leaf("Version", OwnedValue::I32(232)))
            .with_child(OwnedNode {
                name: "Properties60".into(),
                properties: Vec::new(),
                children: rest_transform(model, take_models.get(name).copied()),
            });
        m.children.extend(geometry);
        objects.push(m);
        if !has_parent.contains(name) {
            connections.push(connect(name, "Model::Scene"));
        }
        let plain = name.strip_prefix("Model::").unwrap_or(name);
        for (i, mat) in model
            .children
            .iter()
            .filter(|c| c.name == "Material")
            .enumerate()
        {
            let mname = match mat.properties.first() {
                Some(OwnedValue::String(s)) => {
                    let s = crate::graph::normalize_name(s);
                    if s.contains("::") {
                        s
                    } else {
                        format!("Material::{s}")
                    }
                }
                _ => format!("Material::{plain} {i}"),
            };
            objects.push(material(mat, &mname));
            connections.push(connect(&mname, name));
        }
        let links: Vec<&OwnedNode> = model.children.iter().filter(|c| c.name == "Link").collect();
        if !links.is_empty() {
            let skin = format!("Deformer::Skin {plain}");
            objects.push(
                OwnedNode::new("Deformer")
                    .with(binary_name(&skin))
                    .with(OwnedValue::string("Skin"))
                    .with_child(leaf("Version", OwnedValue::I32(100))),
            );
            connections.push(connect(&skin, name));
            for (i, link) in links.into_iter().enumerate() {
                let Some(bone) = model_name(link.properties.first()) else {
                    continue;
                };
                let cluster = format!("SubDeformer::Cluster {plain} {i}");
                let mut c = OwnedNode::new("Deformer")
                    .with(binary_name(&cluster))
                    .with(OwnedValue::string("Cluster"))
                    .with_child(leaf("Version", OwnedValue::I32(100)));
                for field in ["Indexes", "Weights", "Transform", "TransformLink"] {
                    if let Some(n) = child(link, field) {
                        c.children.push(if field == "Indexes" {
                            leaf(field, OwnedValue::I32Array(ints(n)))
                        } else {
                            leaf(field, OwnedValue::F64Array(numbers(n)))
                        });
                    }
                }
                objects.push(c);
                connections.push(connect(&cluster, &skin));
                if known.contains(bone.as_str()) {
                    connections.push(connect(&bone, &cluster));
                }
            }
        }
    }
    connections.extend(parent_links);
    // The frame rate: `Settings` at the top (5.0) or in `Version5` (5.8).
    let settings = roots.iter().find(|n| n.name == "Settings").or_else(|| {
        roots
            .iter()
            .find(|n| n.name == "Version5")
            .and_then(|v| child(v, "Settings"))
    });
    let fps = settings
        .and_then(|s| child(s, "FrameRate"))
        .and_then(|f| match f.properties.first()? {
            OwnedValue::String(s) => std::str::from_utf8(s).ok()?.trim().parse::<f64>().ok(),
            v => number(v),
        })
        .filter(|f| f.is_finite() && *f > 0.0);
    if let Some(fps) = fps {
        objects.push(OwnedNode::new("GlobalSettings").with_child(OwnedNode {
            name: "Properties60".into(),
            properties: Vec::new(),
            children: vec![
                property("TimeMode", "enum", [OwnedValue::I32(14)]),
                property("CustomFrameRate", "double", [OwnedValue::F64(fps)]),
            ],
        }));
    }
    let key_ver = if version < 5000 { 4003 } else { 4004 };
    let mut header = OwnedNode::new("FBXHeaderExtension")
        .with_child(leaf("FBXHeaderVersion", OwnedValue::I32(1003)))
        .with_child(leaf("FBXVersion", OwnedValue::I32(6100)));
    let creator = roots
        .iter()
        .find(|n| n.name == "FBXHeaderExtension")
        .and_then(|h| child(h, "Creator"))
        .or_else(|| roots.iter().find(|n| n.name == "Creator"));
    if let Some(c) = creator {
        header.children.push(c.clone());
    }
    let mut out = vec![
        header,
        OwnedNode {
            name: "Objects".into(),
            properties: Vec::new(),
            children: objects,
        },
        OwnedNode {
            name: "Connections".into(),
            properties: Vec::new(),
            children: connections,
        },
    ];
    if let Some(t) = roots.iter().find(|n| n.name == "Takes") {
        out.push(takes(t, key_ver));
    }
    out
}
