//! The object graph to a [`Scene`], in Assimp 5.2's `FBXConverter` order: animations first
//! (they decide which pivot nodes must exist), orphaned embedded textures, then the node tree
//! depth-first with meshes, materials and skins converted as the nodes reach them.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::rc::Rc;

use kiln_fbx::{Node, Value};
use kiln_scene::{
    Bone, EmbeddedTexture, Material, Mesh, Node as SceneNode, NodeId, PrimitiveTypes,
    PropertyValue, Scene, TextureKind, TextureRef, UvChannel, Vec3, Vec4, VertexWeight,
};

use crate::ImportOptions;
use crate::anim;
use crate::arrays::{Floats, Ints};
use crate::geometry::{GeometryOptions, MeshGeometry};
use crate::graph::{Graph, Object, Props, ROOT_ID, strip_prefix};
use crate::math::{M4, RotOrder, rotation_matrix, sq_len};
use crate::par;

/// The parts of a node's local transform, in Assimp's chain order (parent to child).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Comp {
    Translation = 0,
    RotationOffset,
    RotationPivot,
    PreRotation,
    Rotation,
    PostRotation,
    RotationPivotInverse,
    ScalingOffset,
    ScalingPivot,
    Scaling,
    ScalingPivotInverse,
    GeometricTranslation,
    GeometricRotation,
    GeometricScaling,
    GeometricScalingInverse,
    GeometricRotationInverse,
    GeometricTranslationInverse,
}

pub const COMPS: [Comp; 17] = [
    Comp::Translation,
    Comp::RotationOffset,
    Comp::RotationPivot,
    Comp::PreRotation,
    Comp::Rotation,
    Comp::PostRotation,
    Comp::RotationPivotInverse,
    Comp::ScalingOffset,
    Comp::ScalingPivot,
    Comp::Scaling,
    Comp::ScalingPivotInverse,
    Comp::GeometricTranslation,
    Comp::GeometricRotation,
    Comp::GeometricScaling,
    Comp::GeometricScalingInverse,
    Comp::GeometricRotationInverse,
    Comp::GeometricTranslationInverse,
];

impl Comp {
    /// The helper node suffix (`NameTransformationComp`).
    pub fn name(self) -> &'static str {
        match self {
            Comp::Translation => "Translation",
            Comp::RotationOffset => "RotationOffset",
            Comp::RotationPivot => "RotationPivot",
            Comp::PreRotation => "PreRotation",
            Comp::Rotation => "Rotation",
            Comp::PostRotation => "PostRotation",
            Comp::RotationPivotInverse => "RotationPivotInverse",
            Comp::ScalingOffset => "ScalingOffset",
            Comp::ScalingPivot => "ScalingPivot",
            Comp::Scaling => "Scaling",
            Comp::ScalingPivotInverse => "ScalingPivotInverse",
            Comp::GeometricTranslation => "GeometricTranslation",
            Comp::GeometricRotation => "GeometricRotation",
            Comp::GeometricScaling => "GeometricScaling",
            Comp::GeometricScalingInverse => "GeometricScalingInverse",
            Comp::GeometricRotationInverse => "GeometricRotationInverse",
            Comp::GeometricTranslationInverse => "GeometricTranslationInverse",
        }
    }

    /// The FBX property (`NameTransformationCompProperty`).
    pub fn property(self) -> &'static str {
        match self {
            Comp::Translation => "Lcl Translation",
            Comp::Rotation => "Lcl Rotation",
            Comp::Scaling => "Lcl Scaling",
            other => other.name(),
        }
    }

    pub fn bit(self) -> u32 {
        1 << (self as u32)
    }
}

/// `name_$AssimpFbx$_Component`.
pub fn chain_node_name(name: &str, comp: Comp) -> String {
    format!("{name}_$AssimpFbx$_{}", comp.name())
}

/// Helper nodes: names and local matrices, parent first.
pub type NodeChain = Vec<(String, M4)>;

/// A `Model` object with what the converter needs.
pub struct Model<'d, 'a> {
    pub id: u64,
    /// Name without the `Model::` prefix (`FixNodeName`).
    pub name: String,
    pub props: Props<'d, 'a>,
    pub rot_order: RotOrder,
    /// Geometry object ids (OO connections, file order).
    pub geometries: Vec<u64>,
    /// Material object ids (OO connections, file order).
    pub materials: Vec<u64>,
}

/// One converted cluster's data, resolved to the target bone name.
struct Cluster<'a> {
    bone: String,
    /// Control point indices and weights, as the file holds them (read in place when plain).
    indices: Ints<'a>,
    weights: Floats<'a>,
    transform: M4,
}

/// The state of one import.
pub struct Converter<'g, 'd, 'a> {
    pub g: &'g Graph<'d, 'a>,
    pub options: ImportOptions,
    pub scene: Scene,
    pub warnings: Vec<String>,
    models: HashMap<u64, Option<Rc<Model<'d, 'a>>>>,
    geometries: HashMap<u64, Option<Rc<MeshGeometry<'a>>>>,
    meshes_converted: HashMap<u64, Vec<usize>>,
    skins: HashMap<u64, Option<Rc<Vec<Cluster<'a>>>>>,
    materials_converted: HashMap<u64, usize>,
    videos_converted: HashMap<u64, usize>,
    default_material: Option<usize>,
    /// Node name → chain components that animations target (`node_anim_chain_bits`).
    pub anim_chain_bits: HashMap<String, u32>,
}

fn fix_node_name(name: &str) -> String {
    strip_prefix(name, "Model::").to_string()
}

fn string_child(n: &Node<'_, '_>, name: &str) -> Option<String> {
    match n.child(name)?.value(0)? {
        Value::String(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

impl<'g, 'd, 'a> Converter<'g, 'd, 'a> {
    pub fn new(g: &'g Graph<'d, 'a>, options: ImportOptions) -> Self {
        Converter {
            g,
            options,
            scene: Scene::default(),
            warnings: Vec::new(),
            models: HashMap::new(),
            geometries: HashMap::new(),
            meshes_converted: HashMap::new(),
            skins: HashMap::new(),
            materials_converted: HashMap::new(),
            videos_converted: HashMap::new(),
            default_material: None,
            anim_chain_bits: HashMap::new(),
        }
    }

    pub fn warn(&mut self, msg: String) {
        if self.warnings.len() < 10_000 {
            self.warnings.push(msg);
        }
    }

    /// Describes an object for messages: `Model 'Cube' (id 123)`.
    pub fn describe(&self, obj: &Object<'_, '_>) -> String {
        let name = obj.name(self.g.legacy);
        let short = name.split_once("::").map_or(name.as_str(), |(_, n)| n);
        if self.g.legacy {
            format!("{} '{}'", obj.element, short)
        } else {
            format!("{} '{}' (id {})", obj.element, short, obj.id)
        }
    }

    pub fn run(mut self) -> (Scene, Vec<String>) {
        anim::convert_animations(&mut self);
        self.convert_orphaned_textures();
        self.convert_nodes();
        self.convert_global_settings();
        anim::add_missing_tracks(&mut self.scene);
        let warnings = std::mem::take(&mut self.warnings);
        (self.scene, warnings)
    }

    // ---------------------------------------------------------------- objects

    /// The model `id`, or `None` when it is not a usable Model (effectors, no scope).
    pub fn model(&mut self, id: u64) -> Option<Rc<Model<'d, 'a>>> {
        if let Some(m) = self.models.get(&id) {
            return m.clone();
        }
        let m = self.build_model(id).map(Rc::new);
        self.models.insert(id, m.clone());
        m
    }

    fn build_model(&mut self, id: u64) -> Option<Model<'d, 'a>> {
        let g = self.g;
        let obj = *g.object(id)?;
        if obj.element != "Model" {
            return None;
        }
        let class = obj.class(g.legacy);
        if class == "IKEffector" || class == "FKEffector" {
            return None;
        }
        let props = g.props(&obj.node, "Model.FbxNode");
        let rot_order = RotOrder::from_int(props.int("RotationOrder").unwrap_or(0));
        let mut geometries = Vec::new();
        let mut materials = Vec::new();
        let name = fix_node_name(&obj.name(g.legacy));
        for c in g.to_dst(id) {
            if !c.property.is_empty() {
                continue;
            }
            let Some(src) = g.object(c.src) else { continue };
            match src.element {
                "Geometry" if self.geometry(c.src).is_some() => geometries.push(c.src),
                "Material" => materials.push(c.src),
                _ => {}
            }
        }
        // FBX 6.1: the model carries its own geometry.
        if g.legacy && obj.node.child("Vertices").is_some() && self.geometry(id).is_some() {
            geometries.push(id);
        }
        Some(Model {
            id,
            name,
            props,
            rot_order,
            geometries,
            materials,
        })
    }

    /// The mesh geometry of object `id` (a `Geometry` of class `Mesh`, or a 6.1 model).
    fn geometry(&mut self, id: u64) -> Option<Rc<MeshGeometry<'a>>> {
        if let Some(g) = self.geometries.get(&id) {
            return g.clone();
        }
        let g = self.g;
        let obj = *g.object(id)?;
        let class = obj.class(g.legacy);
        let usable = (obj.element == "Geometry" && (class == "Mesh" || class == "Line"))
            || (obj.element == "Model" && g.legacy);
        let result = if !usable {
            None
        } else if class == "Line" {
            self.read_line(&obj).map(Rc::new)
        } else {
            let what = self.describe(&obj);
            let mut w = Vec::new();
            let r = MeshGeometry::read(
                &obj.node,
                &what,
                GeometryOptions {
                    all_layer_mappings: self.options.all_layer_mappings,
                },
                &g.arrays,
                &mut w,
            );
            self.warnings.extend(w);
            match r {
                Ok(m) => Some(Rc::new(m)),
                Err(e) => {
                    self.warn(format!("{what}: {}; the geometry is not imported", e.0));
                    None
                }
            }
        };
        self.geometries.insert(id, result.clone());
        result
    }

    /// A `Line` geometry as a mesh geometry of 2-corner faces (control points kept as they
    /// are: `Points` and `PointsIndex`).
    fn read_line(&mut self, obj: &Object<'d, 'a>) -> Option<MeshGeometry<'a>> {
        let what = self.describe(obj);
        let (Some(p), Some(i)) = (obj.node.child("Points"), obj.node.child("PointsIndex")) else {
            self.warn(format!(
                "{what}: Points or PointsIndex missing; not imported"
            ));
            return None;
        };
        let points: Vec<[f32; 3]> = p
            .f64_values()
            .ok()?
            .chunks_exact(3)
            .map(|c| [c[0] as f32, c[1] as f32, c[2] as f32])
            .collect();
        let idx: Vec<i32> = i.i32_values().ok()?.into_owned();
        let mut g = MeshGeometry {
            points: points.clone(),
            control_points: points.len(),
            ..MeshGeometry::default()
        };
        // Encode the segments as faces over the points directly; `convert_line` reads them.
        g.materials = idx;
        g.faces = vec![u32::MAX];
        Some(g)
    }

    // ---------------------------------------------------------------- nodes

    fn convert_nodes(&mut self) {
        self.scene.nodes.push(SceneNode::new("RootNode"));
        enum Task {
            Enter { model: u64, parent: NodeId },
            Exit { model: u64 },
        }
        let mut stack: Vec<Task> = Vec::new();
        let mut path: HashSet<u64> = HashSet::new();
        let push_children = |conv: &Self, stack: &mut Vec<Task>, id: u64, parent: NodeId| {
            let kids: Vec<u64> = conv
                .g
                .sources_of(id, "Model")
                .filter(|(c, _)| c.property.is_empty())
                .map(|(c, _)| c.src)
                .collect();
            for k in kids.into_iter().rev() {
                stack.push(Task::Enter { model: k, parent });
            }
        };
        push_children(self, &mut stack, ROOT_ID, 0);
        let limit = self.options.max_nodes;
        while let Some(task) = stack.pop() {
            let (id, parent) = match task {
                Task::Exit { model } => {
                    path.remove(&model);
                    continue;
                }
                Task::Enter { model, parent } => (model, parent),
            };
            if path.contains(&id) {
                let d = self
                    .g
                    .object(id)
                    .map(|o| self.describe(o))
                    .unwrap_or_default();
                self.warn(format!(
                    "{d}: the node graph has a cycle through this model; the repeated link is ignored"
                ));
                continue;
            }
            if self.scene.nodes.len() >= limit {
                self.warn(format!(
                    "more than {limit} nodes (models shared by several parents multiply); the rest is ignored"
                ));
                break;
            }
            let Some(model) = self.model(id) else {
                if let Some(o) = self.g.object(id) {
                    if o.element == "Model" {
                        let d = self.describe(o);
                        self.warn(format!("{d}: cannot be converted, its subtree is skipped"));
                    }
                }
                continue;
            };
            let (mesh_node, last) = self.convert_model_node(&model, parent);
            self.convert_model_meshes(&model, mesh_node);
            path.insert(id);
            stack.push(Task::Exit { model: id });
            push_children(self, &mut stack, id, last);
        }
    }

    /// Adds the chain of nodes for `model` under `parent`: returns the node that carries the
    /// meshes and the node its children hang from.
    fn convert_model_node(&mut self, model: &Model<'d, 'a>, parent: NodeId) -> (NodeId, NodeId) {
        let (chain, post) = self.transformation_chain(model);
        let mut last = parent;
        for (name, m) in chain {
            let mut n = SceneNode::new(name);
            n.transform = m.to_glam();
            last = self.scene.add_child(last, n);
        }
        let mesh_node = last;
        let has_children = self.g.sources_of(model.id, "Model").next().is_some();
        if has_children {
            for (name, m) in post {
                let mut n = SceneNode::new(name);
                n.transform = m.to_glam();
                last = self.scene.add_child(last, n);
            }
        }
        (mesh_node, last)
    }

    fn check_vec(&mut self, model: &Model<'d, 'a>, prop: &str) -> Option<[f32; 3]> {
        let v = model.props.vec3_f32(prop)?;
        if v.iter().all(|x| x.is_finite()) {
            Some(v)
        } else {
            let name = model.name.clone();
            self.warn(format!(
                "Model '{name}' (id {}): {prop} is not finite ({v:?}); treated as unset",
                model.id
            ));
            None
        }
    }

    /// `GenerateTransformationNodeChain`: the nodes (name, local matrix) from the parent down
    /// to the node named after the model, and the geometric inverse nodes that go between it
    /// and its children.
    pub fn transformation_chain(&mut self, model: &Model<'d, 'a>) -> (NodeChain, NodeChain) {
        let eps = f32::EPSILON;
        let ones = |v: [f32; 3]| [v[0] - 1.0, v[1] - 1.0, v[2] - 1.0];
        let mut chain = [M4::IDENTITY; 17];
        let mut bits = 0u32;
        let mut set = |comp: Comp, m: M4, bits: &mut u32| {
            chain[comp as usize] = m;
            *bits |= comp.bit();
        };
        if let Some(v) = self
            .check_vec(model, "PreRotation")
            .filter(|v| sq_len(*v) > eps)
        {
            set(
                Comp::PreRotation,
                rotation_matrix(RotOrder::Xyz, v),
                &mut bits,
            );
        }
        if let Some(v) = self
            .check_vec(model, "PostRotation")
            .filter(|v| sq_len(*v) > eps)
        {
            set(
                Comp::PostRotation,
                rotation_matrix(RotOrder::Xyz, v),
                &mut bits,
            );
        }
        if let Some(v) = self
            .check_vec(model, "RotationPivot")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::RotationPivot, M4::translation(v), &mut bits);
            set(
                Comp::RotationPivotInverse,
                M4::translation([-v[0], -v[1], -v[2]]),
                &mut bits,
            );
        }
        if let Some(v) = self
            .check_vec(model, "RotationOffset")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::RotationOffset, M4::translation(v), &mut bits);
        }
        if let Some(v) = self
            .check_vec(model, "ScalingOffset")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::ScalingOffset, M4::translation(v), &mut bits);
        }
        if let Some(v) = self
            .check_vec(model, "ScalingPivot")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::ScalingPivot, M4::translation(v), &mut bits);
            set(
                Comp::ScalingPivotInverse,
                M4::translation([-v[0], -v[1], -v[2]]),
                &mut bits,
            );
        }
        if let Some(v) = self
            .check_vec(model, "Lcl Translation")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::Translation, M4::translation(v), &mut bits);
        }
        if let Some(v) = self
            .check_vec(model, "Lcl Scaling")
            .filter(|v| sq_len(ones(*v)) > eps)
        {
            set(Comp::Scaling, M4::scaling(v), &mut bits);
        }
        if let Some(v) = self
            .check_vec(model, "Lcl Rotation")
            .filter(|v| sq_len(*v) > eps)
        {
            set(
                Comp::Rotation,
                rotation_matrix(model.rot_order, v),
                &mut bits,
            );
        }
        if let Some(v) = self
            .check_vec(model, "GeometricScaling")
            .filter(|v| sq_len(ones(*v)) > eps)
        {
            set(Comp::GeometricScaling, M4::scaling(v), &mut bits);
            if v.iter().all(|x| x.abs() > eps) {
                set(
                    Comp::GeometricScalingInverse,
                    M4::scaling([1.0 / v[0], 1.0 / v[1], 1.0 / v[2]]),
                    &mut bits,
                );
            } else {
                self.warn(format!(
                    "Model '{}' (id {}): GeometricScaling has a zero component and cannot be inverted",
                    model.name, model.id
                ));
            }
        }
        if let Some(v) = self
            .check_vec(model, "GeometricRotation")
            .filter(|v| sq_len(*v) > eps)
        {
            let r = rotation_matrix(model.rot_order, v);
            set(Comp::GeometricRotation, r, &mut bits);
            set(Comp::GeometricRotationInverse, r.inverse(), &mut bits);
        }
        if let Some(v) = self
            .check_vec(model, "GeometricTranslation")
            .filter(|v| sq_len(*v) > eps)
        {
            set(Comp::GeometricTranslation, M4::translation(v), &mut bits);
            set(
                Comp::GeometricTranslationInverse,
                M4::translation([-v[0], -v[1], -v[2]]),
                &mut bits,
            );
        }
        let simple = Comp::Translation.bit() | Comp::Rotation.bit() | Comp::Scaling.bit();
        let complex = ((1u32 << 17) - 1) & !simple;
        let name = model.name.clone();
        if bits & complex != 0 && self.options.preserve_pivots {
            let anim_bits = self.anim_chain_bits.get(&name).copied().unwrap_or(0);
            let mut out = Vec::new();
            let mut post = Vec::new();
            for comp in COMPS {
                if bits & comp.bit() == 0 && anim_bits & comp.bit() == 0 {
                    continue;
                }
                let mut m = chain[comp as usize];
                if comp == Comp::PostRotation {
                    m = m.inverse();
                }
                let entry = (chain_node_name(&name, comp), m);
                match comp {
                    Comp::GeometricScalingInverse
                    | Comp::GeometricRotationInverse
                    | Comp::GeometricTranslationInverse => post.push(entry),
                    _ => out.push(entry),
                }
            }
            out.push((name, M4::IDENTITY));
            return (out, post);
        }
        let mut m = M4::IDENTITY;
        for c in &chain[..Comp::GeometricScalingInverse as usize] {
            m = m.mul(c);
        }
        (vec![(name, m)], Vec::new())
    }

    // ---------------------------------------------------------------- meshes

    fn convert_model_meshes(&mut self, model: &Model<'d, 'a>, node: NodeId) {
        let mut indices = Vec::new();
        for &gid in &model.geometries {
            indices.extend(self.convert_mesh(gid, model, node));
        }
        self.scene.nodes[node].meshes.extend(indices);
    }

    fn convert_mesh(&mut self, gid: u64, model: &Model<'d, 'a>, node: NodeId) -> Vec<usize> {
        if let Some(done) = self.meshes_converted.get(&gid) {
            return done.clone();
        }
        let Some(geo) = self.geometry(gid) else {
            return Vec::new();
        };
        let obj = *self.g.object(gid).expect("geometry exists");
        let is_line = obj.class(self.g.legacy) == "Line";
        if is_line {
            let i = self.convert_line(&geo, &obj, node);
            self.meshes_converted.insert(gid, vec![i]);
            return vec![i];
        }
        if geo.corner_points.is_empty() || geo.faces.is_empty() {
            let d = self.describe(&obj);
            self.warn(format!(
                "{d}: empty geometry (no vertices or no polygons), ignored"
            ));
            return Vec::new();
        }
        let mats = &geo.materials;
        let multi = mats.first().is_some_and(|&b| mats.iter().any(|&m| m != b));
        let out = if multi {
            let mut seen = Vec::new();
            let mut out = Vec::new();
            let n = mats.len().min(geo.faces.len());
            if mats.len() > geo.faces.len() {
                let d = self.describe(&obj);
                self.warn(format!(
                    "{d}: {} material indices for {} polygons; the extra ones are ignored",
                    mats.len(),
                    geo.faces.len()
                ));
            }
            for &m in &mats[..n] {
                if !seen.contains(&m) {
                    seen.push(m);
                    out.push(self.convert_mesh_part(&geo, &obj, model, node, Some(m)));
                }
            }
            out
        } else {
            vec![self.convert_mesh_part(&geo, &obj, model, node, None)]
        };
        self.meshes_converted.insert(gid, out.clone());
        out
    }

    fn mesh_name(&self, obj: &Object<'d, 'a>, node: NodeId) -> String {
        let name = obj.name(self.g.legacy);
        let name = strip_prefix(
            &name,
            if self.g.legacy {
                "Model::"
            } else {
                "Geometry::"
            },
        );
        if name.is_empty() {
            self.scene.nodes[node].name.clone()
        } else {
            name.to_string()
        }
    }

    fn convert_line(
        &mut self,
        geo: &MeshGeometry<'_>,
        obj: &Object<'d, 'a>,
        node: NodeId,
    ) -> usize {
        let mut mesh = Mesh {
            name: self.mesh_name(obj, node),
            positions: geo.points.iter().map(|v| Vec3::from_array(*v)).collect(),
            ..Mesh::default()
        };
        let idx = &geo.materials;
        let n = geo.points.len() as i64;
        for (i, &a) in idx.iter().enumerate() {
            if a < 0 {
                continue;
            }
            let b = idx[if i + 1 == idx.len() { 0 } else { i + 1 }];
            let b = if b < 0 { -(b as i64) - 1 } else { b as i64 };
            if (a as i64) < n && b < n {
                mesh.push_face(&[a as u32, b as u32]);
            } else {
                let d = self.describe(obj);
                self.warn(format!("{d}: line index past {n} points, segment ignored"));
            }
        }
        mesh.primitive_types = PrimitiveTypes(PrimitiveTypes::LINE);
        if self.scene.materials.is_empty() {
            mesh.material = self.default_material();
        }
        self.scene.meshes.push(mesh);
        self.scene.meshes.len() - 1
    }

    /// One output mesh of a geometry: all of it (`material == None`) or the polygons with
    /// material index `material`.
    fn convert_mesh_part(
        &mut self,
        geo: &MeshGeometry<'_>,
        obj: &Object<'d, 'a>,
        model: &Model<'d, 'a>,
        node: NodeId,
        material: Option<i32>,
    ) -> usize {
        let name = self.mesh_name(obj, node);
        // Material.
        let material_index = match material.or_else(|| geo.materials.first().copied()) {
            Some(mi) if self.options.read_materials => self.material_for_mesh(model, geo, mi),
            _ => self.default_material(),
        };
        // Skin clusters (read once per geometry).
        let skin = match self.skins.get(&obj.id) {
            Some(s) => s.clone(),
            None => {
                let s = self.skin_clusters(obj.id).map(Rc::new);
                self.skins.insert(obj.id, s.clone());
                s
            }
        };
        let clusters: Option<&[Cluster<'_>]> = skin.as_deref().map(Vec::as_slice);
        // Output corner → input corner (all corners in order for a single material).
        let picked: Option<Vec<u32>> = material.map(|m| {
            let mut v = Vec::new();
            let mut cursor = 0u32;
            for (f, &n) in geo.faces.iter().enumerate() {
                if geo.materials.get(f) == Some(&m) {
                    v.extend(cursor..cursor + n);
                }
                cursor += n;
            }
            v
        });
        let pk = picked.as_deref();
        // The vertex attributes and the skin weights are independent: built side by side.
        let (mut mesh, bones) = par::join(
            || mesh_attributes(geo, material, pk),
            || clusters.map(|c| bones_for(geo, c, material, pk)),
        );
        mesh.name = name;
        mesh.material = material_index;
        mesh.bones = bones.unwrap_or_default();
        self.scene.meshes.push(mesh);
        self.scene.meshes.len() - 1
    }

    /// The clusters of the (last) skin deformer on geometry `gid`.
    fn skin_clusters(&mut self, gid: u64) -> Option<Vec<Cluster<'a>>> {
        let g = self.g;
        let skin = g
            .sources_of(gid, "Deformer")
            .filter(|(c, o)| c.property.is_empty() && o.class(g.legacy) == "Skin")
            .map(|(c, _)| c.src)
            .last()?;
        let cluster_ids: Vec<u64> = g
            .sources_of(skin, "Deformer")
            .filter(|(c, o)| c.property.is_empty() && o.class(g.legacy) == "Cluster")
            .map(|(c, _)| c.src)
            .collect();
        let mut out = Vec::new();
        for cid in cluster_ids {
            if let Some(c) = self.read_cluster(cid) {
                out.push(c);
            }
        }
        Some(out)
    }

    fn read_cluster(&mut self, id: u64) -> Option<Cluster<'a>> {
        let g = self.g;
        let obj = *g.object(id)?;
        let d = self.describe(&obj);
        let n = obj.node;
        let matrix = |name: &str| -> Option<M4> {
            let v = n.child(name)?.f64_values().ok()?;
            M4::from_fbx_array(&v)
        };
        let (Some(transform), Some(_link)) = (matrix("Transform"), matrix("TransformLink")) else {
            self.warn(format!(
                "{d}: Transform or TransformLink missing or not 16 numbers; cluster ignored"
            ));
            return None;
        };
        if !transform.is_finite() {
            self.warn(format!("{d}: Transform is not finite; cluster ignored"));
            return None;
        }
        let (ix, wx) = (n.child("Indexes"), n.child("Weights"));
        let (indices, weights) = match (ix, wx) {
            (Some(i), Some(w)) => {
                let i = match g.arrays.ints_or_decode(&i) {
                    Ok(v) => v,
                    Err(e) => {
                        self.warn(format!("{d}: Indexes unreadable ({e}); cluster ignored"));
                        return None;
                    }
                };
                let w = match g.arrays.floats_or_decode(&w) {
                    Ok(v) => v,
                    Err(e) => {
                        self.warn(format!("{d}: Weights unreadable ({e}); cluster ignored"));
                        return None;
                    }
                };
                (i, w)
            }
            (None, None) => (Ints::default(), Floats::Owned(Vec::new())),
            _ => {
                self.warn(format!("{d}: Indexes or Weights missing; cluster ignored"));
                return None;
            }
        };
        if indices.len() != weights.len() {
            self.warn(format!(
                "{d}: {} indexes but {} weights; cluster ignored",
                indices.len(),
                weights.len()
            ));
            return None;
        }
        let target = g
            .sources_of(id, "Model")
            .filter(|(c, _)| c.property.is_empty())
            .map(|(c, _)| c.src)
            .collect::<Vec<_>>()
            .into_iter()
            .find_map(|m| self.model(m));
        let Some(target) = target else {
            self.warn(format!(
                "{d}: no bone (Model) is linked to this cluster; cluster ignored"
            ));
            return None;
        };
        if let Some(bad) = indices.iter().find(|&i| i < 0) {
            self.warn(format!(
                "{d}: vertex index {bad} is negative; its weight is ignored"
            ));
        }
        Some(Cluster {
            bone: target.name.clone(),
            indices,
            weights,
            transform,
        })
    }

    // ---------------------------------------------------------------- materials

    fn default_material(&mut self) -> usize {
        if let Some(i) = self.default_material {
            return i;
        }
        self.scene.materials.push(Material {
            name: "DefaultMaterial".into(),
            diffuse: Some(Vec3::splat(0.8)),
            ..Material::default()
        });
        let i = self.scene.materials.len() - 1;
        self.default_material = Some(i);
        i
    }

    fn material_for_mesh(
        &mut self,
        model: &Model<'d, 'a>,
        geo: &MeshGeometry<'_>,
        index: i32,
    ) -> usize {
        let Some(&mid) = usize::try_from(index)
            .ok()
            .and_then(|i| model.materials.get(i))
        else {
            self.warn(format!(
                "Model '{}' (id {}): material index {index} out of range ({} materials); the default material is used",
                model.name,
                model.id,
                model.materials.len()
            ));
            return self.default_material();
        };
        if let Some(&i) = self.materials_converted.get(&mid) {
            return i;
        }
        let Some(obj) = self.g.object(mid).copied() else {
            return self.default_material();
        };
        let i = self.convert_material(&obj, geo);
        self.materials_converted.insert(mid, i);
        i
    }

    fn convert_material(&mut self, obj: &Object<'d, 'a>, geo: &MeshGeometry<'_>) -> usize {
        let g = self.g;
        let index = self.scene.materials.len();
        let full = obj.name(g.legacy);
        let name = strip_prefix(&full, "Material::").to_string();
        let shading = string_child(&obj.node, "ShadingModel")
            .unwrap_or_else(|| "phong".into())
            .to_ascii_lowercase();
        let template = match shading.as_str() {
            "phong" => "Material.FbxSurfacePhong",
            "lambert" => "Material.FbxSurfaceLambert",
            _ => "",
        };
        let props = g.props(&obj.node, template);
        let mut mat = Material {
            name,
            ..Material::default()
        };
        let mut queried: HashSet<&str> = HashSet::new();
        let mut p = PropsLog {
            props: &props,
            queried: &mut queried,
        };
        let f32v = |v: [f64; 3]| Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32);
        let prop = |mat: &mut Material, key: &str, v: PropertyValue| {
            if let Some(slot) = mat.properties.iter_mut().find(|(k, _)| k == key) {
                slot.1 = v;
            } else {
                mat.properties.push((key.to_string(), v));
            }
        };
        if shading == "phong" {
            prop(&mut mat, "$mat.shadingm", PropertyValue::Int(3));
        }
        let factored = |p: &mut PropsLog<'_, 'd, 'a>, color: &'static str, factor: &'static str| {
            let c = p.vec3(color)?;
            let mut c = f32v(c);
            if let Some(f) = p.float(factor) {
                c *= f as f32;
            }
            Some(c)
        };
        mat.diffuse = factored(&mut p, "DiffuseColor", "DiffuseFactor");
        mat.emissive = factored(&mut p, "EmissiveColor", "EmissiveFactor")
            .or_else(|| p.vec3("Maya|emissive").map(f32v));
        mat.ambient = factored(&mut p, "AmbientColor", "AmbientFactor");
        mat.specular = p.vec3("SpecularColor").map(f32v);
        mat.shininess_strength = p.float("SpecularFactor").map(|v| v as f32);
        if let Some(s) = p.float("ShininessExponent") {
            let s = s as f32;
            mat.shininess = Some(s);
            prop(
                &mut mat,
                "$mat.roughnessFactor",
                PropertyValue::Float(f64::from(1.0 - s.sqrt() / 10.0)),
            );
        }
        let mut calculated_opacity = 1.0f32;
        if let Some(t) = factored(&mut p, "TransparentColor", "TransparencyFactor") {
            prop(
                &mut mat,
                "$clr.transparent",
                PropertyValue::Vector(vec![f64::from(t.x), f64::from(t.y), f64::from(t.z)]),
            );
            calculated_opacity = 1.0 - (t.x + t.y + t.z) / 3.0;
        }
        if let Some(f) = p.float("TransparencyFactor") {
            prop(
                &mut mat,
                "$mat.transparencyfactor",
                PropertyValue::Float(f64::from(f as f32)),
            );
        }
        if let Some(o) = p.float("Opacity") {
            mat.opacity = Some(o as f32);
        } else if calculated_opacity != 1.0 {
            mat.opacity = Some(calculated_opacity);
        }
        if let Some(r) = p.vec3("ReflectionColor") {
            prop(
                &mut mat,
                "$clr.reflective",
                PropertyValue::Vector(r.iter().map(|&x| f64::from(x as f32)).collect()),
            );
        }
        let floats: [(&'static str, &str); 11] = [
            ("ReflectionFactor", "$mat.reflectivity"),
            ("BumpFactor", "$mat.bumpscaling"),
            ("DisplacementFactor", "$mat.displacementscaling"),
            ("Maya|use_color_map", "$mat.useColorMap"),
            ("Maya|use_metallic_map", "$mat.useMetallicMap"),
            ("Maya|metallic", "$mat.metallicFactor"),
            ("Maya|use_roughness_map", "$mat.useRoughnessMap"),
            ("Maya|roughness", "$mat.roughnessFactor"),
            ("Maya|use_emissive_map", "$mat.useEmissiveMap"),
            ("Maya|emissive_intensity", "$mat.emissiveIntensity"),
            ("Maya|use_ao_map", "$mat.useAOMap"),
        ];
        for (i, (fbx, key)) in floats.iter().enumerate() {
            if i == 3 {
                if let Some(c) = p.vec3("Maya|base_color") {
                    prop(
                        &mut mat,
                        "$clr.base",
                        PropertyValue::Vector(c.iter().map(|&x| f64::from(x as f32)).collect()),
                    );
                }
            }
            if let Some(v) = p.float(fbx) {
                prop(&mut mat, key, PropertyValue::Float(f64::from(v as f32)));
            }
        }
        // `$raw.` copies of the properties nothing above read, by name.
        let mut raw: BTreeMap<String, PropertyValue> = BTreeMap::new();
        for (pname, pr) in props.own_entries() {
            if queried.contains(pname.as_str()) {
                continue;
            }
            let v = if let Some(v) = pr.as_vec3() {
                PropertyValue::Vector(v.iter().map(|&x| f64::from(x as f32)).collect())
            } else if let Some(v) = pr.as_color4() {
                PropertyValue::Vector(v.iter().map(|&x| f64::from(x as f32)).collect())
            } else if let Some(v) = pr.as_float() {
                PropertyValue::Float(f64::from(v as f32))
            } else if let Some(v) = pr.as_int() {
                PropertyValue::Int(i64::from(v as i32))
            } else if let Some(v) = pr.as_bool() {
                PropertyValue::Int(i64::from(v))
            } else if let Some(v) = pr.as_string() {
                PropertyValue::String(v)
            } else {
                continue;
            };
            raw.insert(format!("$raw.{pname}"), v);
        }
        for (k, v) in raw {
            prop(&mut mat, &k, v);
        }
        self.scene.materials.push(mat);
        // Textures.
        let (textures, layered) = self.material_textures(obj.id);
        let mut mat = self.scene.materials.pop().expect("just pushed");
        for (pname, tid) in &textures {
            let path = self.texture_path(*tid, true);
            prop(
                &mut mat,
                &format!("$raw.{pname}|file"),
                PropertyValue::String(path),
            );
            let trafo = self.texture_uv_transform(*tid);
            prop(
                &mut mat,
                &format!("$raw.{pname}|uvtrafo"),
                PropertyValue::Vector(trafo.iter().map(|&v| f64::from(v)).collect()),
            );
            let uv = self.texture_uv_channel(*tid, geo);
            prop(
                &mut mat,
                &format!("$raw.{pname}|uvwsrc"),
                PropertyValue::Int(i64::from(uv)),
            );
        }
        // `useGlossiness` decides how 3ds Max PBR roughness/glossiness maps are read.
        let use_gloss = mat
            .properties
            .iter()
            .find_map(|(k, v)| match (k.as_str(), v) {
                ("$raw.3dsMax|main|useGlossiness", PropertyValue::Int(i)) => Some(*i),
                _ => None,
            });
        let mut slots: Vec<(&str, AiTex)> = TEXTURE_SLOTS.to_vec();
        match use_gloss {
            Some(1) => {
                slots.push(("3dsMax|main|roughness_map", AiTex::Shininess));
                slots.push(("3dsMax|main|glossiness_map", AiTex::Shininess));
            }
            Some(2) => {
                slots.push(("3dsMax|main|roughness_map", AiTex::DiffuseRoughness));
                slots.push(("3dsMax|main|glossiness_map", AiTex::DiffuseRoughness));
            }
            _ => {}
        }
        // (texture type, layer index) → texture; a later assignment of the same slot replaces
        // the earlier one in place, as `aiMaterial::AddProperty` does.
        let mut assigned: Vec<((AiTex, usize), TextureRef)> = Vec::new();
        let mut assign = |conv: &mut Self, key: (AiTex, usize), tid: u64| {
            let t = TextureRef {
                kind: key.0.kind(),
                path: conv.texture_path(tid, false),
                embedded: conv.texture_embedded(tid),
                uv_channel: conv.texture_uv_channel(tid, geo),
            };
            if let Some(slot) = assigned.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = t;
            } else {
                assigned.push((key, t));
            }
        };
        for (pname, kind) in slots {
            if let Some(&(_, tid)) = textures.iter().find(|(n, _)| n == pname) {
                assign(self, (kind, 0), tid);
            }
        }
        for (pname, kind) in LAYERED_TEXTURE_SLOTS {
            if let Some((_, layers)) = layered.iter().find(|(n, _)| n == pname) {
                for (i, &tid) in layers.iter().enumerate() {
                    assign(self, (kind, i), tid);
                }
            }
        }
        mat.textures = assigned.into_iter().map(|(_, t)| t).collect();
        self.scene.materials.push(mat);
        debug_assert_eq!(index, self.scene.materials.len() - 1);
        index
    }

    /// Textures linked to material properties (OP connections), by property name (the last
    /// link of a name wins), sorted by name as Assimp's map is; and layered textures with the
    /// textures linked to each.
    #[allow(clippy::type_complexity)]
    fn material_textures(&mut self, mid: u64) -> (Vec<(String, u64)>, Vec<(String, Vec<u64>)>) {
        let g = self.g;
        let mut map: BTreeMap<String, u64> = BTreeMap::new();
        let mut layered: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for c in g.to_dst(mid) {
            let Some(o) = g.object(c.src) else { continue };
            let prop = if c.property.is_empty() && g.legacy && o.element == "Texture" {
                // FBX 6.1 links textures object-to-object: take them as diffuse maps.
                "DiffuseColor".to_string()
            } else {
                c.property.clone()
            };
            if prop.is_empty() {
                continue;
            }
            match o.element {
                "Texture" => {
                    map.insert(prop, c.src);
                }
                "LayeredTexture" => {
                    let layers = g
                        .to_dst(c.src)
                        .filter(|l| g.object(l.src).is_some_and(|o| o.element == "Texture"))
                        .map(|l| l.src)
                        .collect();
                    layered.insert(prop, layers);
                }
                _ => {}
            }
        }
        (map.into_iter().collect(), layered.into_iter().collect())
    }

    /// `aiUVTransform` of a texture: translation x, y, scaling x, y, rotation.
    fn texture_uv_transform(&self, tid: u64) -> [f32; 5] {
        let Some(obj) = self.g.object(tid).copied() else {
            return [0.0, 0.0, 1.0, 1.0, 0.0];
        };
        let pair = |name: &str, default: [f32; 2]| -> [f32; 2] {
            let Some(n) = obj.node.child(name) else {
                return default;
            };
            match (n.get_f64(0), n.get_f64(1)) {
                (Ok(a), Ok(b)) => [a as f32, b as f32],
                _ => default,
            }
        };
        let mut t = pair("ModelUVTranslation", [0.0, 0.0]);
        let mut sc = pair("ModelUVScaling", [1.0, 1.0]);
        let mut rot = 0.0;
        let props = self.g.props(&obj.node, "Texture.FbxFileTexture");
        if let Some(v) = props.vec3_f32("Scaling") {
            sc = [v[0], v[1]];
        }
        if let Some(v) = props.vec3_f32("Translation") {
            t = [v[0], v[1]];
        }
        if let Some(v) = props.vec3_f32("Rotation") {
            rot = v[2];
        }
        [t[0], t[1], sc[0], sc[1], rot]
    }

    /// The video (last one linked) of texture `tid`.
    fn texture_media(&self, tid: u64) -> Option<u64> {
        self.g.sources_of(tid, "Video").map(|(c, _)| c.src).last()
    }

    /// The texture's `RelativeFilename`; for the `$raw.` copy, `*N` when it is embedded.
    fn texture_path(&mut self, tid: u64, raw: bool) -> String {
        let node = self.g.object(tid).map(|o| o.node);
        let path = node
            .and_then(|n| string_child(&n, "RelativeFilename"))
            .unwrap_or_default();
        match self.texture_embedded(tid) {
            Some(i) if raw => format!("*{i}"),
            _ => path,
        }
    }

    /// Converts the texture's video content, once, and returns its index in
    /// [`Scene::textures`].
    fn texture_embedded(&mut self, tid: u64) -> Option<usize> {
        let vid = self.texture_media(tid)?;
        if let Some(&i) = self.videos_converted.get(&vid) {
            return Some(i);
        }
        let i = self.convert_video(vid)?;
        self.videos_converted.insert(vid, i);
        Some(i)
    }

    fn video_content(&mut self, vid: u64) -> Option<Vec<u8>> {
        let obj = *self.g.object(vid)?;
        let c = obj.node.child("Content")?;
        let p = c.property(0).ok()?;
        match p.as_raw() {
            Ok(bytes) if !bytes.is_empty() => Some(bytes.into_owned()),
            Ok(_) => None,
            Err(e) => {
                if !matches!(p.value(), Value::String(_)) {
                    let d = self.describe(&obj);
                    self.warn(format!(
                        "{d}: embedded content unreadable ({e}); not embedded"
                    ));
                }
                None
            }
        }
    }

    fn convert_video(&mut self, vid: u64) -> Option<usize> {
        let data = self.video_content(vid)?;
        let obj = *self.g.object(vid)?;
        let rel = string_child(&obj.node, "RelativeFilename").unwrap_or_default();
        let file = obj
            .node
            .children()
            .find(|c| c.name().eq_ignore_ascii_case("FileName"))
            .and_then(|c| match c.value(0) {
                Some(Value::String(s)) => Some(String::from_utf8_lossy(s).into_owned()),
                _ => None,
            })
            .unwrap_or_default();
        let filename = if rel.is_empty() { file } else { rel };
        let mut ext = match filename.rfind('.') {
            Some(p) => filename[p + 1..].to_ascii_lowercase(),
            None => String::new(),
        };
        if ext == "jpeg" {
            ext = "jpg".into();
        }
        if ext.len() > 3 {
            ext.clear();
        }
        self.scene.textures.push(EmbeddedTexture {
            filename,
            format_hint: ext,
            data,
        });
        Some(self.scene.textures.len() - 1)
    }

    /// Textures that no connection leads away from but that embed an image: converted first,
    /// in id order, as Assimp does.
    fn convert_orphaned_textures(&mut self) {
        let g = self.g;
        let mut ids: Vec<u64> = g
            .by_id
            .keys()
            .copied()
            .filter(|&id| !g.has_outgoing(id))
            .filter(|&id| g.object(id).is_some_and(|o| o.element == "Texture"))
            .collect();
        ids.sort_unstable();
        for tid in ids {
            let Some(vid) = self.texture_media(tid) else {
                continue;
            };
            if self.video_content(vid).is_none() {
                continue;
            }
            if let Some(i) = self.convert_video(vid) {
                self.videos_converted.insert(vid, i);
            }
        }
    }

    /// The UV channel a texture reads: its `UVSet` property looked up among the geometry's UV
    /// set names (0 when unset, `default`, or not found).
    fn texture_uv_channel(&mut self, tid: u64, geo: &MeshGeometry<'_>) -> u32 {
        let Some(obj) = self.g.object(tid).copied() else {
            return 0;
        };
        let props = self.g.props(&obj.node, "Texture.FbxFileTexture");
        let Some(set) = props.string("UVSet") else {
            return 0;
        };
        if set == "default" || set.is_empty() {
            return 0;
        }
        match (0..geo.uv_count()).find(|&i| geo.uv_names[i] == set) {
            Some(i) => i as u32,
            None => {
                let d = self.describe(&obj);
                self.warn(format!(
                    "{d}: UV set '{set}' not found in the mesh; the first UV channel is used"
                ));
                0
            }
        }
    }

    // ---------------------------------------------------------------- settings

    fn convert_global_settings(&mut self) {
        let gp = self.g.global_props();
        let md = &mut self.scene.metadata;
        md.source_format = format!(
            "fbx {} {}",
            self.g.version,
            match self.g.doc.format() {
                kiln_fbx::Format::Binary => "binary",
                kiln_fbx::Format::Ascii => "ascii",
            }
        );
        md.unit_scale_factor = Some(gp.float("UnitScaleFactor").unwrap_or(1.0));
        let axis = |a: &str, s: &str, da: i64, ds: i64| {
            let a = gp.int(a).unwrap_or(da).clamp(0, 2) as u8;
            let s = if gp.int(s).unwrap_or(ds) < 0 { -1 } else { 1 };
            (a, s)
        };
        md.axes = Some(kiln_scene::AxisSystem {
            up: axis("UpAxis", "UpAxisSign", 1, 1),
            front: axis("FrontAxis", "FrontAxisSign", 2, 1),
            coord: axis("CoordAxis", "CoordAxisSign", 0, 1),
        });
        let (mode, custom) = anim::time_mode(self.g);
        md.frame_rate = Some(anim::frame_rate(mode, custom));
        md.application = self
            .g
            .doc
            .root("FBXHeaderExtension")
            .and_then(|h| string_child(&h, "Creator"))
            .or_else(|| {
                self.g
                    .doc
                    .root("Creator")
                    .and_then(|c| c.get_str(0).ok().map(str::to_string))
            });
    }
}

/// A property table that remembers which names were read (Assimp's "parsed" properties,
/// which the `$raw.` copies leave out).
struct PropsLog<'p, 'd, 'a> {
    props: &'p Props<'d, 'a>,
    queried: &'p mut HashSet<&'static str>,
}

impl<'d, 'a> PropsLog<'_, 'd, 'a> {
    fn vec3(&mut self, name: &'static str) -> Option<[f64; 3]> {
        self.queried.insert(name);
        self.props.vec3(name)
    }
    fn float(&mut self, name: &'static str) -> Option<f64> {
        self.queried.insert(name);
        self.props.float(name)
    }
}

/// Assimp's texture types, for de-duplicating slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AiTex {
    Diffuse,
    Ambient,
    Emissive,
    Specular,
    Opacity,
    Reflection,
    Displacement,
    Normals,
    Height,
    Shininess,
    Metalness,
    BaseColor,
    NormalCamera,
    EmissionColor,
    DiffuseRoughness,
    AmbientOcclusion,
}

impl AiTex {
    fn kind(self) -> TextureKind {
        match self {
            AiTex::Diffuse => TextureKind::Diffuse,
            AiTex::Ambient => TextureKind::Ambient,
            AiTex::Emissive => TextureKind::Emissive,
            AiTex::Specular => TextureKind::Specular,
            AiTex::Opacity => TextureKind::Opacity,
            AiTex::Reflection => TextureKind::Reflection,
            AiTex::Displacement => TextureKind::Displacement,
            AiTex::Normals => TextureKind::Normals,
            AiTex::Height => TextureKind::Height,
            AiTex::Shininess => TextureKind::Shininess,
            _ => TextureKind::Unknown,
        }
    }
}

/// `SetTextureProperties`: material property → texture type, in Assimp's order.
const TEXTURE_SLOTS: [(&str, AiTex); 42] = [
    ("DiffuseColor", AiTex::Diffuse),
    ("AmbientColor", AiTex::Ambient),
    ("EmissiveColor", AiTex::Emissive),
    ("SpecularColor", AiTex::Specular),
    ("SpecularFactor", AiTex::Specular),
    ("TransparentColor", AiTex::Opacity),
    ("ReflectionColor", AiTex::Reflection),
    ("DisplacementColor", AiTex::Displacement),
    ("NormalMap", AiTex::Normals),
    ("Bump", AiTex::Height),
    ("ShininessExponent", AiTex::Shininess),
    ("TransparencyFactor", AiTex::Opacity),
    ("EmissiveFactor", AiTex::Emissive),
    ("ReflectionFactor", AiTex::Metalness),
    ("Maya|DiffuseTexture", AiTex::Diffuse),
    ("Maya|NormalTexture", AiTex::Normals),
    ("Maya|SpecularTexture", AiTex::Specular),
    ("Maya|FalloffTexture", AiTex::Opacity),
    ("Maya|ReflectionMapTexture", AiTex::Reflection),
    ("Maya|baseColor", AiTex::BaseColor),
    ("Maya|normalCamera", AiTex::NormalCamera),
    ("Maya|emissionColor", AiTex::EmissionColor),
    ("Maya|metalness", AiTex::Metalness),
    ("Maya|diffuseRoughness", AiTex::DiffuseRoughness),
    ("Maya|TEX_color_map", AiTex::BaseColor),
    ("Maya|TEX_normal_map", AiTex::NormalCamera),
    ("Maya|TEX_emissive_map", AiTex::EmissionColor),
    ("Maya|TEX_metallic_map", AiTex::Metalness),
    ("Maya|TEX_roughness_map", AiTex::DiffuseRoughness),
    ("Maya|TEX_ao_map", AiTex::AmbientOcclusion),
    ("3dsMax|Parameters|base_color_map", AiTex::BaseColor),
    ("3dsMax|Parameters|bump_map", AiTex::NormalCamera),
    ("3dsMax|Parameters|emission_map", AiTex::EmissionColor),
    ("3dsMax|Parameters|metalness_map", AiTex::Metalness),
    ("3dsMax|Parameters|roughness_map", AiTex::DiffuseRoughness),
    ("3dsMax|main|base_color_map", AiTex::BaseColor),
    ("3dsMax|main|norm_map", AiTex::NormalCamera),
    ("3dsMax|main|emit_color_map", AiTex::EmissionColor),
    ("3dsMax|main|ao_map", AiTex::AmbientOcclusion),
    ("3dsMax|main|opacity_map", AiTex::Opacity),
    ("3dsMax|main|metalness_map", AiTex::Metalness),
    ("3dsMax|main|specular_map", AiTex::Specular),
];

/// `SetTextureProperties` for layered textures.
const LAYERED_TEXTURE_SLOTS: [(&str, AiTex); 14] = [
    ("DiffuseColor", AiTex::Diffuse),
    ("AmbientColor", AiTex::Ambient),
    ("EmissiveColor", AiTex::Emissive),
    ("SpecularColor", AiTex::Specular),
    ("SpecularFactor", AiTex::Specular),
    ("TransparentColor", AiTex::Opacity),
    ("ReflectionColor", AiTex::Reflection),
    ("DisplacementColor", AiTex::Displacement),
    ("NormalMap", AiTex::Normals),
    ("Bump", AiTex::Height),
    ("ShininessExponent", AiTex::Shininess),
    ("EmissiveFactor", AiTex::Emissive),
    ("TransparencyFactor", AiTex::Opacity),
    ("ReflectionFactor", AiTex::Metalness),
];

/// The vertex attributes and faces of one output mesh: the corners `picked` of the
/// polygons with material `material` (all corners when `None`), one vertex per corner.
fn mesh_attributes(geo: &MeshGeometry<'_>, material: Option<i32>, pk: Option<&[u32]>) -> Mesh {
    // Tangents need bitangents: the file's, or normal × tangent.
    let derive_binormals = geo.binormals.is_empty() && !geo.normals.is_empty();
    let with_tangents = !geo.tangents.is_empty() && (!geo.binormals.is_empty() || derive_binormals);
    let cp = &geo.corner_points;
    let point = |p: u32| Vec3::from_array(geo.points.get(p as usize).copied().unwrap_or_default());
    let positions = || -> Vec<Vec3> {
        match pk {
            None => cp.map_collect(point),
            Some(pk) => pk
                .iter()
                .map(|&c| point(cp.get(c as usize).unwrap_or(u32::MAX)))
                .collect(),
        }
    };
    let faces = || -> (Vec<u32>, Vec<u32>, u8) {
        let mut bits = 0u8;
        match material {
            None => {
                // The corners of complete polygons (an unterminated last one keeps its
                // vertices but makes no face).
                let used: u32 = geo.faces.iter().sum();
                for &n in &geo.faces {
                    bits |= PrimitiveTypes::of_arity(n);
                }
                (geo.faces.clone(), (0..used).collect(), bits)
            }
            Some(m) => {
                let (mut sizes, mut indices) = (Vec::new(), Vec::new());
                let mut cursor = 0u32;
                indices.reserve(pk.map_or(0, <[u32]>::len));
                for (f, &n) in geo.faces.iter().enumerate() {
                    if geo.materials.get(f) != Some(&m) {
                        continue;
                    }
                    sizes.push(n);
                    indices.extend(cursor..cursor + n);
                    cursor += n;
                    bits |= PrimitiveTypes::of_arity(n);
                }
                (sizes, indices, bits)
            }
        }
    };
    let normals = || -> (Vec<Vec3>, Vec<Vec3>, Vec<Vec3>) {
        let normals = if geo.normals.is_empty() {
            Vec::new()
        } else {
            geo.normals.gather(cp, pk, Vec3::from_array)
        };
        if !with_tangents {
            return (normals, Vec::new(), Vec::new());
        }
        let tangents = geo.tangents.gather(cp, pk, Vec3::from_array);
        let bitangents = if derive_binormals {
            normals
                .iter()
                .zip(&tangents)
                .map(|(n, t)| n.cross(*t))
                .collect()
        } else {
            geo.binormals.gather(cp, pk, Vec3::from_array)
        };
        (normals, tangents, bitangents)
    };
    let channels = || -> (Vec<UvChannel>, Vec<Vec<Vec4>>) {
        let uvs = geo.uvs[..geo.uv_count()]
            .iter()
            .zip(&geo.uv_names)
            .map(|(uv, name)| UvChannel {
                components: 2,
                coords: uv.gather(cp, pk, |v| Vec3::new(v[0], v[1], 0.0)),
                name: name.clone(),
            })
            .collect();
        let colors = geo.colors[..geo.color_count()]
            .iter()
            .map(|col| col.gather(cp, pk, Vec4::from_array))
            .collect();
        (uvs, colors)
    };
    let (
        (positions, (face_sizes, indices, bits)),
        ((normals, tangents, bitangents), (uv_channels, color_channels)),
    ) = par::join(
        || par::join(positions, faces),
        || par::join(normals, channels),
    );
    Mesh {
        positions,
        normals,
        tangents,
        bitangents,
        uv_channels,
        color_channels,
        face_sizes,
        indices,
        primitive_types: PrimitiveTypes(bits),
        ..Mesh::default()
    }
}

/// Skin bones of one output mesh (`ConvertWeights` + `ConvertCluster`): every cluster gives
/// a bone (even without weights); a bone named twice in one skin is listed twice with the
/// first cluster's data; weights go to every output vertex made from the control point.
fn bones_for(
    geo: &MeshGeometry<'_>,
    clusters: &[Cluster<'_>],
    material: Option<i32>,
    picked: Option<&[u32]>,
) -> Vec<Bone> {
    // Output vertex of each input corner when the mesh is one material's part (`u32::MAX`:
    // the corner belongs to another part).
    let out_of = || -> Option<Vec<u32>> {
        material.and(picked).map(|p| {
            let mut v = vec![u32::MAX; geo.corner_count()];
            for (k, &c) in p.iter().enumerate() {
                if let Some(slot) = v.get_mut(c as usize) {
                    *slot = k as u32;
                }
            }
            v
        })
    };
    let ((offsets, point_corners), out_of) = par::join(|| geo.point_corners(), out_of);
    let corners_of = |index: i32| -> &[u32] {
        match usize::try_from(index)
            .ok()
            .filter(|&p| p < geo.control_points)
        {
            Some(cp) => &point_corners[offsets[cp] as usize..offsets[cp + 1] as usize],
            None => &[],
        }
    };
    // A bone named twice in one skin is listed twice with the first cluster's data.
    let mut first: HashMap<&str, usize> = HashMap::new();
    let source: Vec<usize> = clusters
        .iter()
        .enumerate()
        .map(|(i, cl)| *first.entry(cl.bone.as_str()).or_insert(i))
        .collect();
    let todo: Vec<usize> = (0..clusters.len()).filter(|&i| source[i] == i).collect();
    let weights = par::map(&todo, |&i| {
        let cl = &clusters[i];
        let total: usize = cl.indices.iter().map(|i| corners_of(i).len()).sum();
        let mut weights = Vec::with_capacity(total);
        let pairs = cl.indices.iter().zip(cl.weights.iter());
        match &out_of {
            None => {
                for (index, w) in pairs {
                    for &corner in corners_of(index) {
                        weights.push(VertexWeight {
                            vertex: corner,
                            weight: w,
                        });
                    }
                }
            }
            Some(out_of) => {
                for (index, w) in pairs {
                    for &corner in corners_of(index) {
                        let out = out_of.get(corner as usize).copied().unwrap_or(u32::MAX);
                        if out != u32::MAX {
                            weights.push(VertexWeight {
                                vertex: out,
                                weight: w,
                            });
                        }
                    }
                }
            }
        }
        weights
    });
    let mut made: Vec<Option<Vec<VertexWeight>>> = vec![None; clusters.len()];
    for (i, w) in todo.into_iter().zip(weights) {
        made[i] = Some(w);
    }
    let mut bones: Vec<Bone> = Vec::with_capacity(clusters.len());
    for (i, cl) in clusters.iter().enumerate() {
        let src = source[i];
        if src != i {
            let again = bones[src].clone();
            bones.push(again);
            continue;
        }
        bones.push(Bone {
            name: cl.bone.clone(),
            offset_matrix: cl.transform.to_glam(),
            weights: made[i].take().unwrap_or_default(),
        });
    }
    bones
}
