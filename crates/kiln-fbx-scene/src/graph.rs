//! The object graph of an FBX document: `Objects` by id, `Connections` (OO, OP with property
//! names) in file order, property tables (`Properties70` `P`, or 6.1 `Properties60`
//! `Property`) resolved against the `Definitions` templates, and `GlobalSettings`.
//!
//! FBX 6.1 names objects instead of numbering them (`Model: "Model::Cube", "Mesh"`,
//! `Connect: "OO", "Model::Cube", "Model::Scene"`): each name gets a synthetic id, and
//! `Model::Scene` is the root (id 0), as id 0 is in 7.x.

use std::collections::HashMap;

use kiln_fbx::{Document, Node, Value};
use kiln_scene::Warning;

use crate::arrays::Inflated;
use crate::codes;

/// Id of the implicit root object.
pub(crate) const ROOT_ID: u64 = 0;

/// FBX time units (`KTime`) per second.
pub(crate) const KTIME_PER_SECOND: f64 = 46_186_158_000.0;

/// One object of the `Objects` section.
#[derive(Clone, Copy)]
pub struct Object<'d, 'a> {
    pub id: u64,
    /// The element's name: `Model`, `Geometry`, `Material`, `Deformer`...
    pub element: &'a str,
    /// The node itself.
    pub node: Node<'d, 'a>,
}

impl<'d, 'a> Object<'d, 'a> {
    /// The object's name in Assimp's `Class::Name` form (binary `Name\0\x01Class` is turned
    /// around).
    pub fn name(&self, legacy: bool) -> String {
        let idx = usize::from(!legacy);
        match self.node.value(idx) {
            Some(Value::String(s)) => normalize_name(s),
            _ => String::new(),
        }
    }

    /// The subclass (`Mesh`, `LimbNode`, `Cluster`...).
    pub fn class(&self, legacy: bool) -> String {
        let idx = if legacy { 1 } else { 2 };
        match self.node.value(idx) {
            Some(Value::String(s)) => kiln_scene::names::from_bytes(s).into_owned(),
            _ => String::new(),
        }
    }
}

/// `Name\0\x01Class` → `Class::Name`; text names are kept.
pub fn normalize_name(s: &[u8]) -> String {
    if let Some(i) = s.windows(2).position(|w| w == [0, 1]) {
        let (name, class) = (&s[..i], &s[i + 2..]);
        let mut out = kiln_scene::names::from_bytes(class).into_owned();
        out.push_str("::");
        out.push_str(&kiln_scene::names::from_bytes(name));
        out
    } else {
        kiln_scene::names::from_bytes(s).into_owned()
    }
}

/// The first value of `scope`'s child `name`, when it is a string (lossy UTF-8).
pub(crate) fn string_child(scope: &Node<'_, '_>, name: &str) -> Option<String> {
    match scope.child(name)?.value(0)? {
        Value::String(s) => Some(kiln_scene::names::from_bytes(s).into_owned()),
        _ => None,
    }
}

/// Strips `prefix` when the name starts with it.
pub fn strip_prefix<'s>(name: &'s str, prefix: &str) -> &'s str {
    name.strip_prefix(prefix).unwrap_or(name)
}

/// One connection.
#[derive(Clone, Debug)]
pub struct Connection {
    pub src: u64,
    pub dst: u64,
    /// Empty for object-object links.
    pub property: String,
}

/// The object graph.
pub struct Graph<'d, 'a> {
    pub doc: &'d Document<'a>,
    /// FBX 6.x (named objects, `Properties60`, geometry on the model).
    pub legacy: bool,
    pub version: u32,
    pub objects: Vec<Object<'d, 'a>>,
    /// Id → index in `objects` (a repeated id keeps the last object, as Assimp does).
    pub by_id: HashMap<u64, usize>,
    pub connections: Vec<Connection>,
    by_src: HashMap<u64, Vec<u32>>,
    by_dst: HashMap<u64, Vec<u32>>,
    /// `ObjectType.PropertyTemplate` → the template's property table node.
    templates: HashMap<String, Node<'d, 'a>>,
    /// GlobalSettings' property table node.
    pub global_settings: Option<Node<'d, 'a>>,
    /// AnimationStack ids in file order.
    pub animation_stacks: Vec<u64>,
    /// FBX 6: object names (`Class::Name`) → their ids, as `Connect` and `Takes` name them.
    pub legacy_names: HashMap<String, u64>,
    pub warnings: Vec<Warning>,
    /// The compressed bulk arrays, inflated up front.
    pub arrays: Inflated<'a>,
}

/// Why the document cannot be imported at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GraphError {
    NoObjects,
}

/// The file's FBX version: `FBXHeaderExtension/FBXVersion`, else the binary header's (or the
/// ASCII header comment's).
pub(crate) fn file_version(doc: &Document<'_>) -> u32 {
    doc.root("FBXHeaderExtension")
        .and_then(|h| h.child("FBXVersion"))
        .and_then(|v| v.get_i64(0).ok())
        .and_then(|v| u32::try_from(v).ok())
        .unwrap_or(doc.version())
}

impl<'d, 'a> Graph<'d, 'a> {
    pub fn build(doc: &'d Document<'a>) -> Result<Self, GraphError> {
        let version = file_version(doc);
        let legacy = version != 0 && version < 7000;
        let mut g = Graph {
            doc,
            legacy,
            version,
            objects: Vec::new(),
            by_id: HashMap::new(),
            connections: Vec::new(),
            by_src: HashMap::new(),
            by_dst: HashMap::new(),
            templates: HashMap::new(),
            global_settings: None,
            animation_stacks: Vec::new(),
            legacy_names: HashMap::new(),
            warnings: Vec::new(),
            arrays: Inflated::default(),
        };
        g.read_templates();
        if let Some(gs) = doc.root("GlobalSettings") {
            g.global_settings = property_node(&gs);
        }
        // A file with an FBX header but no `Objects` (or no `Connections`) is an empty (or
        // unlinked) scene, as ufbx reads it; Assimp refuses it. Without the header it is not
        // taken for a scene at all.
        let objects = doc.root("Objects");
        if objects.is_none() {
            if doc.root("FBXHeaderExtension").is_none() {
                return Err(GraphError::NoObjects);
            }
            g.warnings.push(
                Warning::new(
                    codes::SECTION_MISSING,
                    "no Objects section: the file holds no objects; an empty scene is imported",
                )
                .at("Objects"),
            );
        }
        let mut names: HashMap<String, u64> = HashMap::new();
        if legacy {
            names.insert("Model::Scene".into(), ROOT_ID);
        }
        let mut next_legacy_id = 1u64 << 48;
        for el in objects.iter().flat_map(|o| o.children()) {
            let element = el.name();
            let id = if legacy {
                if element == "GlobalSettings" {
                    if g.global_settings.is_none() {
                        g.global_settings = property_node(&el);
                    }
                    continue;
                }
                let Some(Value::String(name)) = el.value(0) else {
                    g.warnings.push(
                        Warning::new(
                            codes::OBJECT_WITHOUT_ID,
                            format!(
                                "{element} object without a name in Objects ignored ({})",
                                el.location()
                            ),
                        )
                        .at(el.location().to_string()),
                    );
                    continue;
                };
                let name = normalize_name(name);
                *names.entry(name).or_insert_with(|| {
                    next_legacy_id += 1;
                    next_legacy_id
                })
            } else {
                match el.value(0).and_then(|v| v.to_i64()) {
                    Some(id) => id as u64,
                    None => {
                        g.warnings.push(
                            Warning::new(
                                codes::OBJECT_WITHOUT_ID,
                                format!(
                                    "{element} object without an id in Objects ignored ({})",
                                    el.location()
                                ),
                            )
                            .at(el.location().to_string()),
                        );
                        continue;
                    }
                }
            };
            if id == ROOT_ID {
                g.warnings.push(
                    Warning::new(
                        codes::OBJECT_ROOT_ID,
                        format!(
                            "{element} object with id 0 (reserved for the root) ignored ({})",
                            el.location()
                        ),
                    )
                    .at(el.location().to_string()),
                );
                continue;
            }
            if let Some(&old) = g.by_id.get(&id) {
                g.warnings.push(
                    Warning::new(
                        codes::DUPLICATE_ID,
                        format!(
                            "object id {id} appears twice ({} and {}): the first is ignored",
                            g.objects[old].element, element
                        ),
                    )
                    .at(el.location().to_string()),
                );
            }
            g.by_id.insert(id, g.objects.len());
            g.objects.push(Object {
                id,
                element,
                node: el,
            });
            if element == "AnimationStack" {
                g.animation_stacks.push(id);
            }
        }
        let conns = doc.root("Connections");
        if conns.is_none() && objects.is_some() {
            g.warnings.push(
                Warning::new(
                    codes::SECTION_MISSING,
                    "no Connections section: the objects are not linked, so no node or mesh \
                     reaches the scene",
                )
                .at("Connections"),
            );
        }
        for c in conns.iter().flat_map(|c| c.children()) {
            let kind = match c.name() {
                "C" | "Connect" => c.get_str(0).unwrap_or(""),
                _ => continue,
            };
            if kind == "PP" {
                continue;
            }
            let id_of = |i: usize| -> Option<u64> {
                match c.value(i)? {
                    Value::String(s) if legacy => names.get(&normalize_name(s)).copied(),
                    v => v.to_i64().map(|x| x as u64),
                }
            };
            let (Some(src), Some(dst)) = (id_of(1), id_of(2)) else {
                g.warnings.push(
                    Warning::new(
                        codes::DANGLING_CONNECTION,
                        format!(
                            "connection {kind} with missing or unknown ends ignored ({})",
                            c.location()
                        ),
                    )
                    .at(c.location().to_string()),
                );
                continue;
            };
            let property = if kind == "OP" {
                match c.value(3) {
                    Some(Value::String(s)) => kiln_scene::names::from_bytes(s).into_owned(),
                    _ => String::new(),
                }
            } else {
                String::new()
            };
            if !g.by_id.contains_key(&src) {
                g.warnings.push(
                    Warning::new(
                        codes::DANGLING_CONNECTION,
                        format!(
                            "connection from object {src} that does not exist ignored ({})",
                            c.location()
                        ),
                    )
                    .at(c.location().to_string()),
                );
                continue;
            }
            if dst != ROOT_ID && !g.by_id.contains_key(&dst) {
                g.warnings.push(
                    Warning::new(
                        codes::DANGLING_CONNECTION,
                        format!(
                            "connection to object {dst} that does not exist ignored ({})",
                            c.location()
                        ),
                    )
                    .at(c.location().to_string()),
                );
                continue;
            }
            let i = g.connections.len() as u32;
            g.connections.push(Connection { src, dst, property });
            g.by_src.entry(src).or_default().push(i);
            g.by_dst.entry(dst).or_default().push(i);
        }
        g.arrays = Inflated::new(doc);
        g.legacy_names = names;
        Ok(g)
    }

    fn read_templates(&mut self) {
        let Some(defs) = self.doc.root("Definitions") else {
            return;
        };
        for ot in defs.children_named("ObjectType") {
            let Ok(oname) = ot.get_str(0) else { continue };
            for t in ot.children_named("PropertyTemplate") {
                let Ok(pname) = t.get_str(0) else { continue };
                if let Some(p) = property_node(&t) {
                    self.templates.insert(format!("{oname}.{pname}"), p);
                }
            }
        }
    }

    pub fn object(&self, id: u64) -> Option<&Object<'d, 'a>> {
        self.by_id.get(&id).map(|&i| &self.objects[i])
    }

    /// Connections whose destination is `id`, in file order.
    pub fn incoming(&self, id: u64) -> impl Iterator<Item = &Connection> {
        self.by_dst
            .get(&id)
            .into_iter()
            .flatten()
            .map(|&i| &self.connections[i as usize])
    }

    /// Connections whose source is `id`, in file order.
    pub fn outgoing(&self, id: u64) -> impl Iterator<Item = &Connection> {
        self.by_src
            .get(&id)
            .into_iter()
            .flatten()
            .map(|&i| &self.connections[i as usize])
    }

    /// Whether `id` is the source of any connection.
    pub fn has_outgoing(&self, id: u64) -> bool {
        self.by_src.get(&id).is_some_and(|v| !v.is_empty())
    }

    /// Connections to `id` whose source object's element is `element`.
    pub fn sources_of<'s>(
        &'s self,
        id: u64,
        element: &'s str,
    ) -> impl Iterator<Item = (&'s Connection, &'s Object<'d, 'a>)> + 's {
        self.incoming(id).filter_map(move |c| {
            let o = self.object(c.src)?;
            (o.element == element).then_some((c, o))
        })
    }

    /// The property table of an object with the named template (`Model.FbxNode`...).
    pub fn props(&self, node: &Node<'d, 'a>, template: &str) -> Props<'d, 'a> {
        Props {
            own: property_node(node),
            template: if template.is_empty() {
                None
            } else {
                self.templates.get(template).copied()
            },
        }
    }

    pub fn global_props(&self) -> Props<'d, 'a> {
        Props {
            own: self.global_settings,
            template: None,
        }
    }
}

/// The `Properties70` (or `Properties60`) child of a node.
fn property_node<'d, 'a>(node: &Node<'d, 'a>) -> Option<Node<'d, 'a>> {
    node.child("Properties70")
        .or_else(|| node.child("Properties60"))
}

/// A property table: the object's own `P` entries, then its template's.
#[derive(Clone, Copy, Default)]
pub struct Props<'d, 'a> {
    pub own: Option<Node<'d, 'a>>,
    pub template: Option<Node<'d, 'a>>,
}

/// One property entry: `P: name, type, label, flags, values...` (7.x) or
/// `Property: name, type, flags, values...` (6.x).
#[derive(Clone, Copy)]
pub struct Prop<'d, 'a> {
    pub node: Node<'d, 'a>,
    first_value: usize,
}

/// How Assimp types a property (`ReadTypedProperty`); a typed read of another kind fails.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PropKind {
    String,
    Bool,
    Int,
    U64,
    Time,
    Vec3,
    Float,
    Color4,
    Unknown,
}

impl<'d, 'a> Prop<'d, 'a> {
    pub fn type_name(&self) -> &'a [u8] {
        match self.node.value(1) {
            Some(Value::String(s)) => s,
            _ => b"",
        }
    }

    pub fn kind(&self) -> PropKind {
        match self.type_name() {
            b"KString" => PropKind::String,
            b"bool" | b"Bool" => PropKind::Bool,
            b"int" | b"Int" | b"enum" | b"Enum" | b"Integer" => PropKind::Int,
            b"ULongLong" => PropKind::U64,
            b"KTime" => PropKind::Time,
            b"Vector3D" | b"ColorRGB" | b"Vector" | b"Color" | b"Lcl Translation"
            | b"Lcl Rotation" | b"Lcl Scaling" => PropKind::Vec3,
            b"double" | b"Number" | b"float" | b"Float" | b"FieldOfView" | b"UnitScaleFactor" => {
                PropKind::Float
            }
            b"ColorAndAlpha" => PropKind::Color4,
            _ => PropKind::Unknown,
        }
    }

    pub fn value(&self, i: usize) -> Option<Value<'a>> {
        self.node.value(self.first_value + i)
    }

    fn f(&self, i: usize) -> Option<f64> {
        self.value(i)?.to_f64()
    }

    pub fn as_vec3(&self) -> Option<[f64; 3]> {
        (self.kind() == PropKind::Vec3).then_some(())?;
        Some([self.f(0)?, self.f(1)?, self.f(2)?])
    }

    pub fn as_color4(&self) -> Option<[f64; 4]> {
        (self.kind() == PropKind::Color4).then_some(())?;
        Some([self.f(0)?, self.f(1)?, self.f(2)?, self.f(3)?])
    }

    pub fn as_float(&self) -> Option<f64> {
        (self.kind() == PropKind::Float).then_some(())?;
        self.f(0)
    }

    pub fn as_int(&self) -> Option<i64> {
        (self.kind() == PropKind::Int).then_some(())?;
        self.value(0)?.to_i64()
    }

    pub fn as_bool(&self) -> Option<bool> {
        (self.kind() == PropKind::Bool).then_some(())?;
        self.value(0)?.to_i64().map(|v| v != 0)
    }

    pub fn as_time(&self) -> Option<i64> {
        (self.kind() == PropKind::Time).then_some(())?;
        self.value(0)?.to_i64()
    }

    pub fn as_string(&self) -> Option<String> {
        (self.kind() == PropKind::String).then_some(())?;
        match self.value(0)? {
            Value::String(s) => Some(kiln_scene::names::from_bytes(s).into_owned()),
            _ => None,
        }
    }
}

impl<'d, 'a> Props<'d, 'a> {
    fn find_in(table: Option<Node<'d, 'a>>, name: &str) -> Option<Prop<'d, 'a>> {
        let table = table?;
        let (entry, first_value) = if table.name() == "Properties60" {
            ("Property", 3)
        } else {
            ("P", 4)
        };
        table.children().find_map(|p| {
            if p.name() != entry {
                return None;
            }
            match p.value(0) {
                Some(Value::String(s)) if s == name.as_bytes() => Some(Prop {
                    node: p,
                    first_value,
                }),
                _ => None,
            }
        })
    }

    /// The entry named `name`: the object's own first, else the template's. An own entry
    /// hides the template even when its type does not fit the read (as in Assimp).
    pub fn get(&self, name: &str) -> Option<Prop<'d, 'a>> {
        Self::find_in(self.own, name).or_else(|| Self::find_in(self.template, name))
    }

    pub fn vec3(&self, name: &str) -> Option<[f64; 3]> {
        self.get(name)?.as_vec3()
    }

    pub fn vec3_f32(&self, name: &str) -> Option<[f32; 3]> {
        self.vec3(name)
            .map(|v| [v[0] as f32, v[1] as f32, v[2] as f32])
    }

    pub fn float(&self, name: &str) -> Option<f64> {
        self.get(name)?.as_float()
    }

    pub fn int(&self, name: &str) -> Option<i64> {
        self.get(name)?.as_int()
    }

    pub fn time(&self, name: &str) -> Option<i64> {
        self.get(name)?.as_time()
    }

    pub fn string(&self, name: &str) -> Option<String> {
        self.get(name)?.as_string()
    }

    /// Every own entry, in file order (first of each name), for the `$raw.` material keys.
    pub fn own_entries(&self) -> Vec<(String, Prop<'d, 'a>)> {
        let Some(table) = self.own else {
            return Vec::new();
        };
        let (entry, first_value) = if table.name() == "Properties60" {
            ("Property", 3)
        } else {
            ("P", 4)
        };
        let mut out: Vec<(String, Prop<'d, 'a>)> = Vec::new();
        for p in table.children_named(entry) {
            let Some(Value::String(s)) = p.value(0) else {
                continue;
            };
            let name = kiln_scene::names::from_bytes(s).into_owned();
            if name.is_empty() || out.iter().any(|(n, _)| *n == name) {
                continue;
            }
            out.push((
                name,
                Prop {
                    node: p,
                    first_value,
                },
            ));
        }
        out
    }
}
