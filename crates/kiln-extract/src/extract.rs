//! Skeleton, mesh parts, skin weights and materials from a processed [`Scene`].
//!
//! What the original tool did, and what kiln does instead (see `reference/README.md`):
//! - `ReadModelData(root, -1, -1)` gave the root index -1, so its transform never reached its
//!   children. Here every node is a bone in depth-first pre-order, the root is bone 0 with
//!   parent -1, and each bone's transform is its root-space transform `local * parent` (row
//!   vectors), i.e. the scene's global transform.
//! - `ReadMeshData` merged all meshes of a node into one part and kept the last material. Here
//!   each entry of a node's mesh list is its own part, named after the node, with its own
//!   material name and the node's bone index; a mesh referenced by several nodes is emitted for
//!   each.
//! - Tangents were never copied; here they are.
//! - Point and line faces went into the triangle list; here only triangles do, and a part left
//!   without any triangle is dropped, each with a warning.
//! - Skin weights were looked up by scene mesh index in the merged list; here each part takes
//!   the weights of its own mesh. Per vertex the four largest weights are kept (ties broken by
//!   the lower bone index, so output is deterministic) and renormalised to sum to 1. A vertex
//!   that no bone weights (and every vertex of a rigid mesh) is bound with weight 1 to the bone
//!   of its node, so the runtime's skinning shader never builds a zero matrix.
//! - A skin bone that names no node of the hierarchy had `GetBoneIndex` assert; here its
//!   weights are dropped with a warning (the vertex keeps its other weights, renormalised, or
//!   binds rigidly when none is left).
//!
//! Skin offsets. Each bone a skin uses gets that skin's offset matrix (Assimp's
//! `aiBone::mOffsetMatrix`) in [`Extracted::offsets`]: the bake and the runtime build its
//! skinning matrix as `offset × model`, and a bone no skin uses draws with its model matrix.
//! One texture block per bone means one offset per bone, so two cases get a helper bone,
//! appended after the scene's nodes as a child of the node's bone with an identity local
//! transform (its model matrix is the node's, and its track in every clip is the identity):
//! - vertices bound rigidly to a node (a rigid part, or unweighted vertices of a skin) whose
//!   bone a skin gave an offset other than the identity bind to `NODE$kiln_rigid`
//!   ([`HELPER_RIGID`]), which no skin uses;
//! - a skin whose offset for a node differs from the one its bone already carries (two skinned
//!   meshes on differently placed nodes sharing a skeleton) binds to `NODE$kiln_skin1`, … with
//!   its own offset ([`HELPER_SKIN`]).
//!
//! The part's `boneIndex` stays the node's own bone, so a runtime that draws rigid parts with
//! their bone's model matrix (reference 004) is unaffected.
//! - One texture-path string was reused for the three texture lookups, so a missing map
//!   repeated the previous one; here a slot the material does not use is an empty string.
//! - A missing colour reads as black with alpha 1 (what Assimp 5.2's `Get(key, aiColor3D&)`
//!   gave the original tool); a missing shininess leaves the specular alpha at 1.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use kiln_format::kiln::Attribute;
use kiln_format::{Bone, MaterialData, MeshPart, Model, Vertex};
use kiln_scene::{Mat4, Material, NodeId, Scene, TextureKind, TextureRef, Vec3, Warning};

use crate::codes;

/// Everything the `.mesh`, `.clip` and `.xml` writers need, plus what the converter must copy.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extracted {
    /// The skeleton (scene nodes, then helper bones) and the mesh parts, as the `.mesh` holds
    /// them.
    pub model: Model,
    /// One per scene material, in the scene's order.
    pub materials: Vec<ExtractedMaterial>,
    /// Findings worth telling the user (dropped faces, unknown bones), with codes from
    /// [`codes`].
    pub warnings: Vec<Warning>,
    /// One entry per bone of [`Model::bones`]: the skin offset matrix of that bone (Assimp's
    /// `aiBone::mOffsetMatrix`: mesh space to bone space in bind pose), in the engine
    /// convention (row vectors, row-major), or `None` for a bone that no skin uses, which
    /// draws with its model matrix. The classic `.mesh` cannot store these; the bake and the
    /// CPU skinning take them from here (see `docs/animation.md`).
    pub offsets: Vec<Option<kiln_format::Matrix>>,
    /// One entry per bone of [`Model::bones`]: the scene node it stands for.
    pub bone_sources: Vec<BoneSource>,
    /// One entry per part of [`Model::meshes`]: the scene mesh it was made from (whose morph
    /// channels drive its targets).
    pub part_meshes: Vec<usize>,
}

/// What a bone of the extracted skeleton stands for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoneSource {
    /// A scene node (the first `nodes.len()` bones, in depth-first pre-order).
    Node(NodeId),
    /// A helper bone, child of the node's bone with an identity local transform, for vertices
    /// bound rigidly to a node whose own bone carries a skin offset (see [`HELPER_RIGID`]).
    RigidHelper(NodeId),
    /// A helper bone, child of the node's bone with an identity local transform, for a skin
    /// whose offset matrix for that node differs from the one the node's bone already carries
    /// (see [`HELPER_SKIN`]).
    SkinHelper(NodeId),
}

impl BoneSource {
    /// The scene node this bone follows.
    pub fn node(self) -> NodeId {
        match self {
            BoneSource::Node(n) | BoneSource::RigidHelper(n) | BoneSource::SkinHelper(n) => n,
        }
    }
}

/// Suffix of a rigid helper bone's name: `NODE$kiln_rigid`.
pub const HELPER_RIGID: &str = "$kiln_rigid";
/// Suffix of a skin helper bone's name: `NODE$kiln_skin1`, `NODE$kiln_skin2`, …
pub const HELPER_SKIN: &str = "$kiln_skin";

/// A material as the XML stores it, with the scene's texture references behind its file names
/// so the caller can copy or extract the images.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractedMaterial {
    /// The `*_file` fields hold the file names without folders.
    pub data: MaterialData,
    /// The scene's diffuse texture, behind [`MaterialData::diffuse_file`].
    pub diffuse: Option<TextureRef>,
    /// The scene's specular texture, behind [`MaterialData::specular_file`].
    pub specular: Option<TextureRef>,
    /// The scene's normal map, behind [`MaterialData::normal_file`].
    pub normal: Option<TextureRef>,
}

/// Converts a scene that `kiln-process` has made left-handed and triangulated.
pub fn extract(scene: &Scene) -> Extracted {
    let mut out = Extracted::default();
    extract_skeleton(scene, Meshes::Borrowed(&scene.meshes), &mut out, false);
    out.materials = scene.materials.iter().map(extract_material).collect();
    out
}

/// [`extract()`], taking the meshes out of `scene` (`scene.meshes` is empty afterwards): each
/// mesh's skin weights are freed once every part's influences are gathered, and a mesh one
/// part uses is freed as soon as that part's vertices are built, so the scene's per-vertex
/// arrays and the model's vertices are not all in memory at once. The result is
/// [`extract()`]'s. What the clips need (nodes, animations) stays in the scene.
pub fn extract_taking_meshes(scene: &mut Scene) -> Extracted {
    extract_owned(scene, false).0
}

/// [`extract_taking_meshes`], but the parts' vertices are not built: every part of the
/// result has an empty vertex list, and what would fill it comes back beside it, for a
/// writer that streams the vertices out (`kiln convert`'s classic `.mesh`) instead of holding
/// them all (57 MB at 400k triangles) while the scene's meshes are still held. Everything
/// else (bones, indices, morph targets, offsets, materials, warnings) is
/// [`extract_taking_meshes`]'s.
pub fn extract_pending(scene: &mut Scene) -> (Extracted, PendingVertices) {
    let (out, pending) = extract_owned(scene, true);
    (out, pending.unwrap_or_default())
}

/// The extraction of the meshes taken out of `scene`, the vertices left pending with `defer`.
fn extract_owned(scene: &mut Scene, defer: bool) -> (Extracted, Option<PendingVertices>) {
    let mut meshes = core::mem::take(&mut scene.meshes);
    // What no part reads goes first: bitangents (a vertex keeps its tangent only), colours,
    // UV channels after the first. At 400k triangles the bitangents alone are 9 MB that the
    // vertices being built can reuse.
    for m in &mut meshes {
        m.bitangents = Vec::new();
        m.color_channels = Vec::new();
        m.uv_channels.truncate(1);
    }
    let mut out = Extracted::default();
    let pending = extract_skeleton(scene, Meshes::Owned(meshes), &mut out, defer);
    out.materials = scene.materials.iter().map(extract_material).collect();
    (out, pending)
}

/// One part to be written: a mesh of a node, its triangles and its per-vertex influences.
struct PartPlan {
    node: NodeId,
    /// Index into the scene's meshes.
    mesh: usize,
    material_name: String,
    indices: Vec<u32>,
    /// Bone slot of each of the mesh's skin bones (`None`: not in the hierarchy, or unweighted).
    skin_slots: Vec<Option<i32>>,
}

/// Which bone each (node, offset) pair binds to; creates helper bones on conflicts.
struct Slots {
    /// Offset claimed by each node's own bone (column vectors), by node id.
    node_offset: Vec<Option<Mat4>>,
    /// Helper bones in creation order: source and offset (`None` for rigid helpers).
    helpers: Vec<(BoneSource, Option<Mat4>)>,
    /// Bone index of each node id.
    bone_of: Vec<i32>,
    /// Number of scene-node bones; helper `k` is bone `node_bones + k`.
    node_bones: usize,
}

/// Offsets of one bone from different skins agree within this relative tolerance.
const OFFSET_TOLERANCE: f32 = 1e-5;

fn offsets_agree(a: &Mat4, b: &Mat4) -> bool {
    let (a, b) = (a.to_cols_array(), b.to_cols_array());
    let scale = a.iter().chain(b.iter()).fold(1f32, |m, x| m.max(x.abs()));
    a.iter()
        .zip(&b)
        .all(|(x, y)| (x - y).abs() <= OFFSET_TOLERANCE * scale)
}

impl Slots {
    fn helper_bone(&self, k: usize) -> i32 {
        (self.node_bones + k) as i32
    }

    /// The bone a skin with `offset` for `node` binds to.
    fn skin(&mut self, node: NodeId, offset: Mat4) -> i32 {
        match &self.node_offset[node] {
            None => {
                self.node_offset[node] = Some(offset);
                return self.bone_of[node];
            }
            Some(o) if offsets_agree(o, &offset) => return self.bone_of[node],
            Some(_) => {}
        }
        let found = self.helpers.iter().position(|(src, o)| {
            *src == BoneSource::SkinHelper(node) && o.is_some_and(|o| offsets_agree(&o, &offset))
        });
        let k = found.unwrap_or_else(|| {
            self.helpers
                .push((BoneSource::SkinHelper(node), Some(offset)));
            self.helpers.len() - 1
        });
        self.helper_bone(k)
    }

    /// The bone a vertex bound rigidly to `node` binds to: the node's own bone unless a skin
    /// gave that bone an offset other than the identity.
    fn rigid(&mut self, node: NodeId) -> i32 {
        match &self.node_offset[node] {
            None => return self.bone_of[node],
            Some(o) if offsets_agree(o, &Mat4::IDENTITY) => return self.bone_of[node],
            Some(_) => {}
        }
        let k = match self
            .helpers
            .iter()
            .position(|(src, _)| *src == BoneSource::RigidHelper(node))
        {
            Some(k) => k,
            None => {
                self.helpers.push((BoneSource::RigidHelper(node), None));
                self.helpers.len() - 1
            }
        };
        self.helper_bone(k)
    }
}

/// The scene's meshes as extraction gets them: borrowed ([`extract()`]), or owned and freed
/// as they are used ([`extract_taking_meshes`]).
enum Meshes<'m> {
    Borrowed(&'m [kiln_scene::Mesh]),
    Owned(Vec<kiln_scene::Mesh>),
}

impl Meshes<'_> {
    fn all(&self) -> &[kiln_scene::Mesh] {
        match self {
            Meshes::Borrowed(m) => m,
            Meshes::Owned(m) => m,
        }
    }

    fn owned(&mut self) -> Option<&mut Vec<kiln_scene::Mesh>> {
        match self {
            Meshes::Borrowed(_) => None,
            Meshes::Owned(m) => Some(m),
        }
    }
}

/// The skeleton and the parts; with `defer` and owned meshes, the parts without their
/// vertices and what builds them.
fn extract_skeleton(
    scene: &Scene,
    mut meshes: Meshes<'_>,
    out: &mut Extracted,
    defer: bool,
) -> Option<PendingVertices> {
    let order = scene.depth_first();
    // Bone index of each node id.
    let mut bone_of = alloc::vec![-1i32; scene.nodes.len()];
    let mut globals = alloc::vec![Mat4::IDENTITY; scene.nodes.len()];
    // First node (in bone order) of each name: what skin bones and channels refer to.
    let mut by_name: BTreeMap<&str, NodeId> = BTreeMap::new();
    for (index, &id) in order.iter().enumerate() {
        let node = &scene.nodes[id];
        let (parent, parent_global) = match node.parent {
            Some(p) => (bone_of[p], globals[p]),
            None => (-1, Mat4::IDENTITY),
        };
        let global = parent_global * node.transform;
        globals[id] = global;
        bone_of[id] = index as i32;
        by_name.entry(node.name.as_str()).or_insert(id);
        out.model.bones.push(Bone {
            index: index as i32,
            parent,
            name: node.name.clone(),
            // Column-major of the column-vector matrix is row-major of the row-vector one.
            transform: global.to_cols_array(),
        });
        out.bone_sources.push(BoneSource::Node(id));
    }

    // The parts, in node order then mesh order; each part's triangle list built on rayon's
    // threads (the mesh's own list when the mesh is owned and only this part uses it, else a
    // copy of its triangles: 4.8 MB for a body of 400k triangles), the warnings in part
    // order after.
    let mesh_count = meshes.all().len();
    let uses_of: Vec<(NodeId, usize)> = order
        .iter()
        .flat_map(|&id| {
            (scene.nodes[id].meshes.iter())
                .filter(|&&m| m < mesh_count)
                .map(move |&m| (id, m))
        })
        .collect();
    let triangles_only = |mesh: &kiln_scene::Mesh| {
        mesh.face_sizes.len() * 3 == mesh.indices.len() && mesh.face_sizes.iter().all(|&n| n == 3)
    };
    // An owned mesh of triangles that one part uses gives that part its list (nothing
    // reads the mesh's faces after this; they are dropped once the parts are planned).
    let mut lists: Vec<Option<Vec<u32>>> = alloc::vec![None; uses_of.len()];
    if let Some(owned) = meshes.owned() {
        let mut count = alloc::vec![0usize; owned.len()];
        uses_of.iter().for_each(|&(_, m)| count[m] += 1);
        for (list, &(_, m)) in lists.iter_mut().zip(&uses_of) {
            if count[m] == 1 && triangles_only(&owned[m]) {
                *list = Some(core::mem::take(&mut owned[m].indices));
            }
        }
    }
    let all = meshes.all();
    let jobs: Vec<_> = uses_of.iter().map(|&(_, m)| m).zip(lists).collect();
    let lists = crate::par_map_into(jobs, |(mesh_index, list)| {
        if let Some(list) = list {
            return (list, 0);
        }
        let mesh = &all[mesh_index];
        let mut dropped = 0usize;
        let indices = if triangles_only(mesh) {
            // Triangles only (every triangulated mesh): the list as it is, one copy.
            mesh.indices.clone()
        } else {
            let mut indices = Vec::with_capacity(mesh.indices.len());
            for face in mesh.faces() {
                if face.len() == 3 {
                    indices.extend_from_slice(face);
                } else {
                    dropped += 1;
                }
            }
            indices
        };
        (indices, dropped)
    });
    let mut plans = Vec::new();
    for (&(id, mesh_index), (indices, dropped)) in uses_of.iter().zip(lists) {
        let node = &scene.nodes[id];
        let mesh = &all[mesh_index];
        let material_name = scene
            .materials
            .get(mesh.material)
            .map(|m| m.name.clone())
            .unwrap_or_default();
        if dropped > 0 {
            out.warnings.push(
                Warning::new(
                    codes::FACES_DROPPED,
                    format!(
                        "node '{}' mesh {mesh_index}: {dropped} point/line faces left out of the triangle list",
                        node.name
                    ),
                )
                .at(node_location(&node.name)),
            );
        }
        if indices.is_empty() {
            out.warnings.push(
                Warning::new(
                    codes::PART_DROPPED,
                    format!(
                        "node '{}' mesh {mesh_index}: no triangles, part dropped",
                        node.name
                    ),
                )
                .at(node_location(&node.name)),
            );
            continue;
        }
        plans.push(PartPlan {
            node: id,
            mesh: mesh_index,
            material_name,
            indices,
            skin_slots: Vec::new(),
        });
    }

    // Skins first, so that a node's own bone goes to the first skin that uses it; then the
    // rigid bindings, which take a helper where a skin moved the node's bone.
    let mut slots = Slots {
        node_offset: alloc::vec![None; scene.nodes.len()],
        helpers: Vec::new(),
        bone_of,
        node_bones: order.len(),
    };
    // The control points each part's vertices are made from, where its mesh keeps its skin
    // per point: which bones weight the part, and its influence table, both read them.
    // Both on rayon's threads, a part a task.
    let uses = crate::par_map(&plans, |plan| {
        let mesh = &all[plan.mesh];
        mesh.point_skin.as_ref().map(|s| {
            let uses = point_uses(s);
            let weighted = point_weighted(s, &uses, &mesh.bones);
            (uses, weighted)
        })
    });
    for (plan, uses) in plans.iter_mut().zip(&uses) {
        let mesh = &all[plan.mesh];
        let nv = mesh.positions.len();
        let point_weighted = uses.as_ref().map(|(_, weighted)| weighted);
        for (b, bone) in mesh.bones.iter().enumerate() {
            let weighted = match &point_weighted {
                Some(weighted) => weighted[b],
                None => bone
                    .weights
                    .iter()
                    .any(|w| w.weight > 0.0 && (w.vertex as usize) < nv),
            };
            let slot = match by_name.get(bone.name.as_str()) {
                Some(_) if !weighted => None,
                Some(&node) => Some(slots.skin(node, bone.offset_matrix)),
                None => {
                    let node = &scene.nodes[plan.node].name;
                    out.warnings.push(
                        Warning::new(
                            codes::UNKNOWN_SKIN_BONE,
                            format!(
                                "node '{node}': skin bone '{}' names no node of the hierarchy; its weights are dropped",
                                bone.name
                            ),
                        )
                        .at(node_location(node)),
                    );
                    None
                }
            };
            plan.skin_slots.push(slot);
        }
    }
    // Influences per part (in parallel), then the bone slots in part order (they create
    // helper bones, so their order matters), then the vertices (in parallel).
    let uses = uses.into_iter().map(|u| u.map(|(uses, _)| uses));
    let gathered = crate::par_map_into(plans.iter().zip(uses).collect(), |(plan, uses)| {
        let mut warnings = Vec::new();
        let mesh = &all[plan.mesh];
        let influences = gather_influences(
            plan,
            mesh,
            uses,
            &scene.nodes[plan.node].name,
            &mut warnings,
        );
        let needs_rigid = influences.leaves_unweighted();
        (influences, needs_rigid, warnings)
    });
    // The weights are in the influences now.
    if let Some(owned) = meshes.owned() {
        for m in owned.iter_mut() {
            m.bones = Vec::new();
            m.point_skin = None;
        }
    }
    let mut lowered = Vec::with_capacity(plans.len());
    for (plan, (influences, needs_rigid, mut warnings)) in plans.iter().zip(gathered) {
        out.warnings.append(&mut warnings);
        let rigid = if needs_rigid {
            slots.rigid(plan.node)
        } else {
            slots.bone_of[plan.node]
        };
        lowered.push((plan, rigid, influences));
    }
    if defer && let Meshes::Owned(owned) = meshes {
        let targets = crate::par_map(&plans, |plan| morph_targets(&owned[plan.mesh]));
        let bound: Vec<_> = lowered
            .into_iter()
            .map(|(_, rigid, influences)| (rigid, influences))
            .collect();
        let mut parts = Vec::with_capacity(plans.len());
        for ((plan, (rigid, influences)), morph_targets) in
            plans.into_iter().zip(bound).zip(targets)
        {
            parts.push(PendingPart {
                mesh: plan.mesh,
                rigid,
                influences,
            });
            let bone = slots.bone_of[plan.node];
            push_part(out, scene, plan, Vec::new(), morph_targets, bone);
        }
        push_offsets_and_helpers(out, scene, &order, &slots, &globals);
        // The meshes keep what the vertices are built from: their faces (the parts have
        // their triangles), skin bones and per-point skins (their weights are in the parts'
        // influences) and morph targets (in the parts) go now, not when the writer is done
        // with the vertices.
        let mut owned = owned;
        for m in &mut owned {
            m.indices = Vec::new();
            m.face_sizes = Vec::new();
            m.bones = Vec::new();
            m.point_skin = None;
            m.morph_targets = Vec::new();
        }
        return Some(PendingVertices {
            meshes: owned,
            parts,
        });
    }
    // A mesh only one part uses goes to that part's task, which frees it with its vertices
    // built; the others are read in place.
    let mut owned = meshes.owned();
    let mut uses = alloc::vec![0usize; owned.as_deref().map_or(0, |m| m.len())];
    for plan in &plans {
        if let Some(u) = uses.get_mut(plan.mesh) {
            *u += 1;
        }
    }
    let tasks: Vec<_> = lowered
        .into_iter()
        .map(|(plan, rigid, influences)| {
            let mine = match owned.as_deref_mut() {
                Some(owned) if uses[plan.mesh] == 1 => Some(core::mem::take(&mut owned[plan.mesh])),
                _ => None,
            };
            (plan.mesh, rigid, influences, mine)
        })
        .collect();
    let all = meshes.all();
    let vertices = crate::par_map_into(tasks, |(mesh, rigid, influences, mine)| {
        let mesh = mine.as_ref().unwrap_or(&all[mesh]);
        (mesh_vertices(mesh, rigid, &influences), morph_targets(mesh))
    });
    for (plan, (vertices, morph_targets)) in plans.into_iter().zip(vertices) {
        let bone = slots.bone_of[plan.node];
        push_part(out, scene, plan, vertices, morph_targets, bone);
    }
    push_offsets_and_helpers(out, scene, &order, &slots, &globals);
    None
}

/// Appends the part of `plan` to the model.
fn push_part(
    out: &mut Extracted,
    scene: &Scene,
    plan: PartPlan,
    vertices: Vec<Vertex>,
    morph_targets: Vec<kiln_format::MorphTarget>,
    bone_index: i32,
) {
    out.part_meshes.push(plan.mesh);
    out.model.meshes.push(MeshPart {
        name: scene.nodes[plan.node].name.clone(),
        vertices,
        indices: plan.indices,
        bone_index,
        material_name: plan.material_name,
        morph_targets,
    });
}

/// The offsets of the node bones, then the helper bones with theirs.
fn push_offsets_and_helpers(
    out: &mut Extracted,
    scene: &Scene,
    order: &[NodeId],
    slots: &Slots,
    globals: &[Mat4],
) {
    out.offsets = order
        .iter()
        .map(|&id| slots.node_offset[id].map(|o| o.to_cols_array()))
        .collect();
    let mut skin_helpers = BTreeMap::<NodeId, usize>::new();
    for (k, (source, offset)) in slots.helpers.iter().enumerate() {
        let node = source.node();
        let name = match source {
            BoneSource::SkinHelper(_) => {
                let n = skin_helpers.entry(node).or_insert(0);
                *n += 1;
                format!("{}{HELPER_SKIN}{n}", scene.nodes[node].name)
            }
            _ => format!("{}{HELPER_RIGID}", scene.nodes[node].name),
        };
        out.model.bones.push(Bone {
            index: (slots.node_bones + k) as i32,
            parent: slots.bone_of[node],
            name,
            transform: globals[node].to_cols_array(),
        });
        out.bone_sources.push(*source);
        out.offsets.push(offset.map(|o| o.to_cols_array()));
    }
}

/// The [`Warning::location`] of a finding about a node.
fn node_location(name: &str) -> String {
    format!("node '{name}'")
}

fn v3(v: Option<&Vec3>) -> [f32; 3] {
    v.map_or([0.0; 3], |v| v.to_array())
}

/// Where a part's vertices take their skin weights from.
#[derive(Debug)]
enum Influences {
    /// A rigid part: the mesh has no skin bones.
    Rigid,
    /// The four largest (bone slot, weight) pairs of each vertex, gathered from the bones'
    /// per-vertex lists. A vertex no bone weights has weight 0 in its first slot.
    Table(Vec<[(i32, f32); 4]>),
    /// From the mesh's per-point skin ([`kiln_scene::PointSkin`]): each vertex's four largest
    /// pairs are its control point's, so they are found once per point the part uses, and
    /// made into the blend indices and weights a vertex gets ([`blend_of`]; `table`, in the
    /// order the part's vertices first name the points, `None` for a point left with no
    /// usable weight), and each vertex names its point's entry (`of_vertex`, `u32::MAX` for a
    /// vertex made from no point). A part of a body made from quads uses about a quarter as
    /// many points as it has vertices.
    Points {
        of_vertex: Vec<u32>,
        table: Vec<Option<Blend>>,
    },
}

impl Influences {
    /// Whether some vertex is left with no usable weight (its four largest sum to zero or to
    /// no finite number), so the part needs a rigid binding for it.
    fn leaves_unweighted(&self) -> bool {
        match self {
            Influences::Rigid => true,
            Influences::Table(table) => table.iter().any(|slots| !is_weighted(slots)),
            Influences::Points { of_vertex, table } => {
                of_vertex.contains(&u32::MAX) || table.contains(&None)
            }
        }
    }

    /// Vertex `i`'s blend indices and weights, `None` when it takes the rigid binding (a
    /// rigid part, a vertex with no usable weight, or past the part).
    fn blend(&self, i: usize) -> Option<Blend> {
        match self {
            Influences::Rigid => None,
            Influences::Table(table) => table.get(i).and_then(blend_of),
            Influences::Points { of_vertex, table } => *table.get(*of_vertex.get(i)? as usize)?,
        }
    }
}

/// A vertex's blend indices and weights.
type Blend = ([f32; 4], [f32; 4]);

/// The blend indices and weights of four largest (bone slot, weight) pairs: the weights
/// renormalised to sum to one, a slot of no weight on bone 0; `None` when they cannot be
/// renormalised (no positive, finite sum).
fn blend_of(slots: &[(i32, f32); 4]) -> Option<Blend> {
    if !is_weighted(slots) {
        return None;
    }
    let total: f32 = slots.iter().map(|s| s.1).sum();
    let mut indices = [0.0; 4];
    let mut weights = [0.0; 4];
    for (k, &(b, w)) in slots.iter().enumerate() {
        indices[k] = if w > 0.0 { b as f32 } else { 0.0 };
        weights[k] = w / total;
    }
    Some((indices, weights))
}

/// [`Influences::Points`] of a mesh with a per-point skin whose part uses the points
/// `uses`, its bones' slots taken from `slots`.
fn point_table(skin: &kiln_scene::PointSkin, uses: PointUses, slots: &[Option<i32>]) -> Influences {
    let PointUses { of_vertex, points } = uses;
    let mut table: Vec<Option<Blend>> = Vec::with_capacity(points.len());
    table.resize(points.len(), None);
    crate::par_runs(&mut table, |start, run| {
        for (blend, &p) in run.iter_mut().zip(&points[start..]) {
            *blend = blend_of(&point_influences(&skin.weights, slots, p));
        }
    });
    Influences::Points { of_vertex, table }
}

/// The four largest (bone slot, weight) pairs of control point `p`'s weights, its bones'
/// slots taken from `slots` (a bone without one is left out), as [`gather_influences`]
/// gathers them for a vertex from the bones' lists.
fn point_influences(
    weights: &kiln_scene::PointWeights,
    slots: &[Option<i32>],
    p: u32,
) -> [(i32, f32); 4] {
    let mut out = [(0, 0.0); 4];
    for &(bone, weight) in weights.of(p) {
        if weight.is_nan() || weight <= 0.0 {
            continue;
        }
        if let Some(Some(slot)) = slots.get(bone as usize) {
            insert_influence(&mut out, *slot, weight);
        }
    }
    out
}

/// A part's skin influences: [`Influences::Points`] for a mesh with a per-point skin, else
/// the four largest (bone slot, weight) pairs of each vertex from the bones' lists, or
/// [`Influences::Rigid`] without bones.
fn gather_influences(
    plan: &PartPlan,
    mesh: &kiln_scene::Mesh,
    uses: Option<PointUses>,
    node_name: &str,
    warnings: &mut Vec<Warning>,
) -> Influences {
    if mesh.bones.is_empty() {
        return Influences::Rigid;
    }
    if let Some((skin, uses)) = mesh.point_skin.as_ref().zip(uses) {
        return point_table(skin, uses, &plan.skin_slots);
    }
    // Filled by writing, not `vec![..; n]`: that is calloc's lazily zeroed pages, and the
    // read-then-write below would fault each page twice (the zero page, then its copy, with a
    // TLB flush of every core): 6 % of a 400k-triangle conversion.
    let nv = mesh.positions.len();
    let mut influences: Vec<[(i32, f32); 4]> = Vec::with_capacity(nv);
    influences.resize(nv, [(0, 0.0); 4]);
    // A run of vertices per thread, each reading every weight and keeping its own vertices':
    // a vertex's weights are still inserted in bone order, then weight order, so the table is
    // the same however it is split. The first run counts the weights past the mesh.
    let out_of_range: usize = crate::par_runs(&mut influences, |start, run| {
        let end = start + run.len();
        let mut out_of_range = 0usize;
        for (bone, slot) in mesh.bones.iter().zip(&plan.skin_slots) {
            let Some(slot) = *slot else { continue };
            for w in &bone.weights {
                if w.weight.is_nan() || w.weight <= 0.0 {
                    continue;
                }
                let v = w.vertex as usize;
                if (start..end).contains(&v) {
                    insert_influence(&mut run[v - start], slot, w.weight);
                } else if v >= nv && start == 0 {
                    out_of_range += 1;
                }
            }
        }
        out_of_range
    })
    .into_iter()
    .sum();
    if out_of_range > 0 {
        warnings.push(
            Warning::new(
                codes::WEIGHT_OUT_OF_RANGE,
                format!(
                    "node '{node_name}': {out_of_range} skin weights name vertices past the mesh's {}; ignored",
                    mesh.positions.len()
                ),
            )
            .at(node_location(node_name)),
        );
    }
    Influences::Table(influences)
}

/// The control points a part's vertices are made from, from its mesh's per-point skin:
/// `points` in the order the vertices first name them, and for each vertex the entry of its
/// point in `points` (`u32::MAX` for a vertex made from no point).
struct PointUses {
    of_vertex: Vec<u32>,
    points: Vec<u32>,
}

fn point_uses(skin: &kiln_scene::PointSkin) -> PointUses {
    let mut entry = alloc::vec![u32::MAX; skin.weights.points()];
    let mut points: Vec<u32> = Vec::new();
    let of_vertex: Vec<u32> = skin
        .vertex_points
        .iter()
        .map(|&p| match entry.get_mut(p as usize) {
            Some(e) => {
                if *e == u32::MAX {
                    *e = points.len() as u32;
                    points.push(p);
                }
                *e
            }
            None => u32::MAX,
        })
        .collect();
    PointUses { of_vertex, points }
}

/// Which of `bones` weight a vertex of the mesh through its per-point skin: those with a
/// positive weight on a point some vertex is made from (the per-vertex lists' rule, a weight
/// above 0 on a vertex of the mesh).
fn point_weighted(
    skin: &kiln_scene::PointSkin,
    uses: &PointUses,
    bones: &[kiln_scene::Bone],
) -> Vec<bool> {
    let mut weighted = alloc::vec![false; bones.len()];
    for &p in &uses.points {
        for &(bone, weight) in skin.weights.of(p) {
            if weight > 0.0
                && let Some(w) = weighted.get_mut(bone as usize)
            {
                *w = true;
            }
        }
    }
    weighted
}

/// A scene mesh's morph targets as a part holds them: the part's vertices are the mesh's, in
/// order, so the vertex lists carry over; a dense shape lists every vertex.
fn morph_targets(mesh: &kiln_scene::Mesh) -> Vec<kiln_format::MorphTarget> {
    let v3 = |v: &[Vec3]| v.iter().map(|d| d.to_array()).collect::<Vec<_>>();
    mesh.morph_targets
        .iter()
        .map(|t| kiln_format::MorphTarget {
            name: t.name.clone(),
            default_weight: t.weight,
            shapes: t
                .shapes
                .iter()
                .map(|s| kiln_format::MorphShape {
                    name: s.name.clone(),
                    full_weight: s.full_weight,
                    vertices: (0..s.positions.len()).map(|i| s.vertex(i)).collect(),
                    positions: v3(&s.positions),
                    normals: v3(&s.normals),
                })
                .collect(),
        })
        .collect()
}

/// Whether a vertex's kept weights can be renormalised (positive, finite sum).
fn is_weighted(slots: &[(i32, f32); 4]) -> bool {
    let total: f32 = slots.iter().map(|s| s.1).sum();
    total > 0.0 && total.is_finite()
}

fn mesh_vertices(mesh: &kiln_scene::Mesh, rigid_bone: i32, influences: &Influences) -> Vec<Vertex> {
    // One pass: each vertex is written once, its weights with it (a second pass over the
    // 76-byte vertices for the weights read and wrote the whole array again); in runs on
    // rayon's threads with the `parallel` feature, so that one large part is not one thread's.
    let part = PartSource::new(mesh, rigid_bone, influences);
    crate::par_collect(mesh.positions.len(), |i| part.vertex(i))
}

/// What a part's vertices are built from: its mesh, its first UV channel, its skin
/// influences, and the rigid binding of a vertex nothing weights.
struct PartSource<'a> {
    mesh: &'a kiln_scene::Mesh,
    uv: Option<&'a kiln_scene::UvChannel>,
    influences: &'a Influences,
    rigid: ([f32; 4], [f32; 4]),
}

impl<'a> PartSource<'a> {
    fn new(mesh: &'a kiln_scene::Mesh, rigid_bone: i32, influences: &'a Influences) -> Self {
        PartSource {
            mesh,
            uv: mesh.uv_channels.first(),
            influences,
            rigid: ([rigid_bone as f32, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
        }
    }

    /// Vertex `i`: its weights from the influences (renormalised), or bound with weight 1 to
    /// the rigid bone where nothing weights it.
    fn vertex(&self, i: usize) -> Vertex {
        let mesh = self.mesh;
        let (blend_indices, blend_weights) = self.blend(i);
        Vertex {
            position: v3(mesh.positions.get(i)),
            uv: self.uv(i),
            normal: v3(mesh.normals.get(i)),
            tangent: v3(mesh.tangents.get(i)),
            blend_indices,
            blend_weights,
        }
    }

    /// Vertices `start..start + out.len()` into `out`, as [`PartSource::vertex`] gives each,
    /// a field at a time: a straight loop over each of the mesh's arrays, for a writer's runs
    /// (a vertex at a time, a bounds-checked lookup a field and a call for the blend, the
    /// classic commit took 1.04-1.06 times as long at 400k triangles). `vertex` stays for
    /// collecting a whole part, which has no buffer to fill; a test keeps the two equal
    /// (`pending_vertices_filled_and_released_in_turn_give_the_same_extraction`).
    fn vertices(&self, start: usize, out: &mut [Vertex]) {
        let mesh = self.mesh;
        zip_from(out.iter_mut(), start, &mesh.positions, |o, p| {
            o.position = v3(p);
        });
        zip_from(out.iter_mut(), start, &mesh.normals, |o, n| {
            o.normal = v3(n)
        });
        zip_from(out.iter_mut(), start, &mesh.tangents, |o, t| {
            o.tangent = v3(t)
        });
        zip_from(out.iter_mut(), start, self.coords(), |o, t| o.uv = uv2(t));
        self.blends(out.iter_mut(), start, |o, (indices, weights)| {
            (o.blend_indices, o.blend_weights) = (indices, weights);
        });
    }

    /// The first UV channel's coordinates (none without one).
    fn coords(&self) -> &'a [Vec3] {
        self.uv.map_or(&[][..], |c| &c.coords[..])
    }

    /// `put` of each of `out`'s items and the blend of its vertex (from vertex `start` on):
    /// its four largest influences, renormalised, or the rigid binding, as
    /// [`PartSource::blend`] gives it; a straight loop over the influences (the blends, a
    /// vertex per call, were a third of the kiln layout's write).
    #[inline(always)]
    fn blends<O>(&self, out: impl Iterator<Item = O>, start: usize, mut put: impl FnMut(O, Blend)) {
        let rigid = self.rigid;
        match self.influences {
            Influences::Rigid => out.for_each(|o| put(o, rigid)),
            Influences::Table(table) => zip_from(out, start, table, |o, slots| {
                put(o, slots.and_then(blend_of).unwrap_or(rigid));
            }),
            Influences::Points { of_vertex, table } => zip_from(out, start, of_vertex, |o, k| {
                put(o, k.and_then(|&k| *table.get(k as usize)?).unwrap_or(rigid));
            }),
        }
    }

    /// Vertex `i`'s texture coordinates (zero without a UV channel).
    fn uv(&self, i: usize) -> [f32; 2] {
        uv2(self.coords().get(i))
    }

    /// Vertex `i`'s blend indices and weights: its four largest influences, renormalised, or
    /// the rigid binding.
    fn blend(&self, i: usize) -> Blend {
        self.influences.blend(i).unwrap_or(self.rigid)
    }

    /// `attribute` of vertices `start..` into `out` ([`Attribute::width`] floats each), as
    /// [`PartSource::vertex`] gives that field.
    fn attribute(&self, start: usize, attribute: Attribute, out: &mut [f32]) {
        let mesh = self.mesh;
        let xyz = |src: &[Vec3], out: &mut [f32]| {
            zip_from(out.chunks_exact_mut(3), start, src, |o, v| {
                o.copy_from_slice(&v3(v));
            });
        };
        match attribute {
            Attribute::Position => xyz(&mesh.positions, out),
            Attribute::Normal => xyz(&mesh.normals, out),
            Attribute::Tangent => xyz(&mesh.tangents, out),
            Attribute::Uv => zip_from(out.chunks_exact_mut(2), start, self.coords(), |o, t| {
                o.copy_from_slice(&uv2(t));
            }),
            Attribute::BlendIndices => self.blends(out.chunks_exact_mut(4), start, |o, b| {
                o.copy_from_slice(&b.0);
            }),
            Attribute::BlendWeights => self.blends(out.chunks_exact_mut(4), start, |o, b| {
                o.copy_from_slice(&b.1);
            }),
        }
    }
}

/// `put` of each of `out`'s items with the item of `src[start..]` beside it, `None` past
/// `src` (a mesh without that array): a straight loop over a slice, no call and no bounds
/// check an item. `src` is zipped first: a zip takes from its first iterator before it finds
/// the second one empty, and that item of `out` would then be skipped. Always inlined, as
/// `blends` is: where the compiler kept them as calls the classic commit took 1.04-1.05
/// times as long (paired, 31 runs at 400k triangles).
#[inline(always)]
fn zip_from<O, T>(
    mut out: impl Iterator<Item = O>,
    start: usize,
    src: &[T],
    mut put: impl FnMut(O, Option<&T>),
) {
    for (s, o) in src.get(start..).unwrap_or_default().iter().zip(&mut out) {
        put(o, Some(s));
    }
    out.for_each(|o| put(o, None));
}

/// Texture coordinates as a vertex holds them (zero where there are none).
fn uv2(t: Option<&Vec3>) -> [f32; 2] {
    t.map_or([0.0; 2], |t| [t.x, t.y])
}

/// The parts' vertices of an extraction not built yet ([`extract_pending`]): the scene's
/// meshes (what the parts read of them) and each part's rigid bone and skin influences, from
/// which any run of a part's vertices is built on demand, as [`extract()`] builds them. A
/// writer streams a part's vertices out in runs without the whole array in memory
/// ([`PendingVertices::fill`]), then [`PendingVertices::release`]s what the part held.
#[derive(Debug, Default)]
pub struct PendingVertices {
    meshes: Vec<kiln_scene::Mesh>,
    parts: Vec<PendingPart>,
}

#[derive(Debug)]
struct PendingPart {
    mesh: usize,
    rigid: i32,
    influences: Influences,
}

impl PendingVertices {
    /// Parts, as in the extraction's [`Model::meshes`](kiln_format::Model::meshes).
    pub fn parts(&self) -> usize {
        self.parts.len()
    }

    /// Vertices of part `part` (0 past the parts or once released).
    pub fn len(&self, part: usize) -> usize {
        self.parts
            .get(part)
            .and_then(|p| self.meshes.get(p.mesh))
            .map_or(0, |m| m.positions.len())
    }

    /// Vertices of all parts.
    pub fn total(&self) -> usize {
        (0..self.parts.len()).map(|k| self.len(k)).sum()
    }

    /// Whether no part has a vertex.
    pub fn is_empty(&self) -> bool {
        self.total() == 0
    }

    /// Writes vertices `start..start + out.len()` of part `part` into `out`, as [`extract()`]
    /// gives them (on rayon's threads with the `parallel` feature); a vertex past the part
    /// is left as it is.
    pub fn fill(&self, part: usize, start: usize, out: &mut [Vertex]) {
        let Some(p) = self.parts.get(part) else {
            return;
        };
        let Some(mesh) = self.meshes.get(p.mesh) else {
            return;
        };
        let n = mesh.positions.len().saturating_sub(start).min(out.len());
        let source = PartSource::new(mesh, p.rigid, &p.influences);
        crate::par_runs(&mut out[..n], |at, run| source.vertices(start + at, run));
    }

    /// Writes `attribute` of vertices `start..` of part `part` into `out`,
    /// [`Attribute::width`] floats a vertex, as [`PendingVertices::fill`] gives that field of
    /// them (so a kiln-layout writer can build one vertex stream at a time, in file order:
    /// [`kiln_format::kiln::MeshPlan::write_streams`], through this type's
    /// [`kiln_format::kiln::StreamSource`]), and gives how many vertices it wrote (fewer
    /// than `out` holds when the part ends first; the floats past them are left as they
    /// are). On the calling thread: the writer builds a run beside the last one's write.
    pub fn fill_attribute(
        &self,
        part: usize,
        start: usize,
        attribute: Attribute,
        out: &mut [f32],
    ) -> usize {
        let Some(p) = self.parts.get(part) else {
            return 0;
        };
        let Some(mesh) = self.meshes.get(p.mesh) else {
            return 0;
        };
        let w = attribute.width();
        let n = mesh
            .positions
            .len()
            .saturating_sub(start)
            .min(out.len() / w);
        PartSource::new(mesh, p.rigid, &p.influences).attribute(
            start,
            attribute,
            &mut out[..n * w],
        );
        n
    }

    /// Frees what part `part` holds: its influences, and its mesh's arrays when no later part
    /// reads that mesh. Parts are released in order (as a writer goes through them): an
    /// earlier part that reads the same mesh has nothing to fill from afterwards.
    ///
    /// With the `parallel` feature the arrays are dropped on rayon's pool: a writer releases
    /// parts between its runs, and giving tens of MB back to the system there (an `munmap`
    /// per array) held up the `.mesh` write for as long (400k triangles: the `.mesh` 0.91 of
    /// its time, paired, stop 36).
    pub fn release(&mut self, part: usize) {
        let Some(p) = self.parts.get_mut(part) else {
            return;
        };
        crate::drop_beside(core::mem::replace(&mut p.influences, Influences::Rigid));
        let mesh = p.mesh;
        if !self.parts[part + 1..].iter().any(|q| q.mesh == mesh)
            && let Some(m) = self.meshes.get_mut(mesh)
        {
            crate::drop_beside(core::mem::take(m));
        }
    }
}

impl kiln_format::kiln::StreamSource for PendingVertices {
    fn fill(&self, part: usize, start: usize, attribute: Attribute, out: &mut [f32]) -> usize {
        self.fill_attribute(part, start, attribute, out)
    }

    /// A part's positions, normals and tangents as the scene holds them: packed `[f32; 3]`s,
    /// which is what the stream is (no copy into a run; 27 of the 57 MB of the 400k
    /// benchmark model's `.mesh`).
    fn stream(&self, part: usize, start: usize, attribute: Attribute, n: usize) -> Option<&[f32]> {
        let mesh = self.meshes.get(self.parts.get(part)?.mesh)?;
        let all = match attribute {
            Attribute::Position => &mesh.positions,
            Attribute::Normal => &mesh.normals,
            Attribute::Tangent => &mesh.tangents,
            _ => return None,
        };
        let vertices = all.get(start..start.checked_add(n)?)?;
        Some(bytemuck::cast_slice(vertices))
    }

    fn release(&mut self, part: usize) {
        PendingVertices::release(self, part);
    }
}

/// Inserts into a top-4 list sorted by weight descending, then bone index ascending.
fn insert_influence(slots: &mut [(i32, f32); 4], bone: i32, weight: f32) {
    let better = |a: (i32, f32), b: (i32, f32)| a.1 > b.1 || (a.1 == b.1 && a.0 < b.0);
    let new = (bone, weight);
    let Some(pos) = slots.iter().position(|&s| s.1 <= 0.0 || better(new, s)) else {
        return;
    };
    for k in (pos + 1..4).rev() {
        slots[k] = slots[k - 1];
    }
    slots[pos] = new;
}

/// The file name of a texture path without folders (`/` and `\` both separate).
pub fn texture_file_name(path: &str) -> &str {
    path.rsplit(['/', '\\']).next().unwrap_or(path)
}

fn extract_material(m: &Material) -> ExtractedMaterial {
    let rgba = |c: Option<Vec3>, a: f32| {
        let c = c.unwrap_or(Vec3::ZERO);
        [c.x, c.y, c.z, a]
    };
    let slot = |kind| m.texture(kind).cloned();
    let (diffuse, specular, normal) = (
        slot(TextureKind::Diffuse),
        slot(TextureKind::Specular),
        slot(TextureKind::Normals),
    );
    let name_of = |t: &Option<TextureRef>| {
        t.as_ref()
            .map(|t| String::from(texture_file_name(&t.path)))
            .unwrap_or_default()
    };
    ExtractedMaterial {
        data: MaterialData {
            name: m.name.clone(),
            diffuse_file: name_of(&diffuse),
            specular_file: name_of(&specular),
            normal_file: name_of(&normal),
            ambient: rgba(m.ambient, 1.0),
            diffuse: rgba(m.diffuse, 1.0),
            specular: rgba(m.specular, m.shininess.unwrap_or(1.0)),
            emissive: rgba(m.emissive, 1.0),
        },
        diffuse,
        specular,
        normal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use kiln_format::kiln::StreamSource;
    use kiln_scene::{Bone as SkinBone, Mesh, Node, UvChannel, VertexWeight};

    fn scene() -> Scene {
        let mut s = Scene::with_root("root");
        s.nodes[0].transform = Mat4::from_translation(Vec3::new(0.0, 0.0, 5.0));
        let a = s.add_child(0, Node::new("a"));
        s.nodes[a].transform = Mat4::from_translation(Vec3::new(1.0, 0.0, 0.0));
        let b = s.add_child(a, Node::new("b"));
        s.add_child(0, Node::new("c"));
        s.materials.push(Material {
            name: "red".into(),
            diffuse: Some(Vec3::new(1.0, 0.0, 0.0)),
            textures: vec![TextureRef {
                kind: TextureKind::Diffuse,
                path: ".\\tex\\red.png".into(),
                embedded: None,
                uv_channel: 0,
            }],
            ..Material::default()
        });
        s.materials.push(Material {
            name: "blue".into(),
            shininess: Some(32.0),
            ..Material::default()
        });
        let mut m0 = Mesh {
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z],
            uv_channels: vec![UvChannel {
                components: 2,
                coords: vec![Vec3::new(0.5, 0.25, 0.0); 4],
                name: String::new(),
            }],
            material: 0,
            ..Mesh::default()
        };
        m0.push_face(&[0, 1, 2]);
        m0.push_face(&[2, 3]);
        let mut m1 = m0.clone();
        m1.material = 1;
        m1.bones = vec![
            SkinBone {
                name: "b".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![
                    VertexWeight {
                        vertex: 0,
                        weight: 0.5,
                    },
                    VertexWeight {
                        vertex: 1,
                        weight: 2.0,
                    },
                ],
            },
            SkinBone {
                name: "a".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![VertexWeight {
                    vertex: 0,
                    weight: 0.5,
                }],
            },
        ];
        s.meshes = vec![m0, m1];
        s.nodes[b].meshes = vec![0, 1];
        s
    }

    #[test]
    fn bones_are_depth_first_with_root_space_transforms() {
        let e = extract(&scene());
        let names: Vec<(&str, i32, i32)> = e
            .model
            .bones
            .iter()
            .map(|b| (b.name.as_str(), b.index, b.parent))
            .collect();
        assert_eq!(
            names,
            [("root", 0, -1), ("a", 1, 0), ("b", 2, 1), ("c", 3, 0)]
        );
        // Row-vector matrix: translation in 12..14, accumulated through the root.
        assert_eq!(&e.model.bones[2].transform[12..15], &[1.0, 0.0, 5.0]);
    }

    #[test]
    fn one_part_per_mesh_of_a_node_with_its_own_material_and_only_triangles() {
        let e = extract(&scene());
        let parts: Vec<(&str, &str, i32)> = e
            .model
            .meshes
            .iter()
            .map(|p| (p.name.as_str(), p.material_name.as_str(), p.bone_index))
            .collect();
        assert_eq!(parts, [("b", "red", 2), ("b", "blue", 2)]);
        assert_eq!(e.model.meshes[0].indices, [0, 1, 2]);
        assert_eq!(e.model.meshes[0].vertices[3].uv, [0.5, 0.25]);
        assert_eq!(e.warnings.len(), 2, "{:?}", e.warnings);
    }

    #[test]
    fn rigid_and_unweighted_vertices_bind_to_the_node_bone() {
        let e = extract(&scene());
        let v = &e.model.meshes[0].vertices[0];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
        let v = &e.model.meshes[1].vertices[3];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
    }

    #[test]
    fn weights_are_renormalised_and_ties_go_to_the_lower_bone() {
        let e = extract(&scene());
        let v = &e.model.meshes[1].vertices[0];
        // b (bone 2) and a (bone 1) both 0.5: a first.
        assert_eq!(v.blend_indices, [1.0, 2.0, 0.0, 0.0]);
        assert_eq!(v.blend_weights, [0.5, 0.5, 0.0, 0.0]);
        let v = &e.model.meshes[1].vertices[1];
        assert_eq!(
            (v.blend_indices, v.blend_weights),
            ([2.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
    }

    #[test]
    fn top_four_keeps_the_largest() {
        let mut slots = [(0, 0.0); 4];
        for (b, w) in [(5, 0.1), (1, 0.4), (2, 0.2), (3, 0.3), (4, 0.05), (0, 0.4)] {
            insert_influence(&mut slots, b, w);
        }
        assert_eq!(slots, [(0, 0.4), (1, 0.4), (3, 0.3), (2, 0.2)]);
    }

    #[test]
    fn materials_use_file_names_and_leave_unused_slots_empty() {
        let e = extract(&scene());
        let red = &e.materials[0].data;
        assert_eq!(red.diffuse_file, "red.png");
        assert_eq!(
            (red.specular_file.as_str(), red.normal_file.as_str()),
            ("", "")
        );
        assert_eq!(red.diffuse, [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(red.ambient, [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            red.specular,
            [0.0, 0.0, 0.0, 1.0],
            "missing shininess leaves A at 1"
        );
        assert_eq!(e.materials[1].data.specular[3], 32.0);
    }

    /// A skinned mesh on node `skin` (away from the origin) deformed by `a` and `b`, and a rigid
    /// mesh hanging from `b`.
    fn skinned_scene() -> Scene {
        let mut s = Scene::with_root("root");
        let a = s.add_child(0, Node::new("a"));
        s.nodes[a].transform = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
        let b = s.add_child(a, Node::new("b"));
        s.nodes[b].transform = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0));
        let skin = s.add_child(0, Node::new("skin"));
        s.nodes[skin].transform = Mat4::from_scale(Vec3::splat(10.0));
        s.materials.push(Material::default());
        let tri = |bones| {
            let mut m = Mesh {
                positions: (0..6).map(|i| Vec3::new(i as f32, 0.0, 0.0)).collect(),
                bones,
                ..Mesh::default()
            };
            m.push_face(&[0, 1, 2]);
            m.push_face(&[3, 4, 5]);
            m
        };
        let offset = |node: usize| s.global_transform(node).inverse() * s.global_transform(skin);
        let w = |vertex, weight| VertexWeight { vertex, weight };
        // Vertex 0: six influences; vertex 5: none.
        let skin_bones = vec![
            SkinBone {
                name: "a".into(),
                offset_matrix: offset(a),
                weights: vec![w(0, 0.1), w(1, 1.0), w(2, 0.5)],
            },
            SkinBone {
                name: "b".into(),
                offset_matrix: offset(b),
                weights: vec![w(0, 0.3), w(2, 0.5), w(3, 2.0), w(4, 1.0)],
            },
            SkinBone {
                name: "root".into(),
                offset_matrix: offset(0),
                weights: vec![w(0, 0.2), w(4, 1.0)],
            },
            SkinBone {
                name: "skin".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![w(0, 0.05)],
            },
            SkinBone {
                name: "ghost".into(),
                offset_matrix: Mat4::IDENTITY,
                weights: vec![w(0, 0.25), w(4, 9.0)],
            },
        ];
        s.meshes = vec![tri(skin_bones), tri(vec![])];
        s.nodes[skin].meshes = vec![0];
        s.nodes[b].meshes = vec![1];
        s
    }

    /// Taking the meshes gives what borrowing them gives, also when a mesh is used by two
    /// nodes (instanced: read in place, not moved into one part's task).
    #[test]
    fn taking_the_meshes_gives_the_same_extraction() {
        for mut s in [scene(), skinned_scene()] {
            let root_mesh_users = s.nodes.iter().filter(|n| n.meshes.contains(&0)).count();
            s.nodes[0].meshes.push(0);
            assert!(s.nodes.iter().filter(|n| n.meshes.contains(&0)).count() > root_mesh_users);
            let e = extract(&s);
            assert!(!e.model.meshes.is_empty());
            let mut taken = s.clone();
            let e2 = extract_taking_meshes(&mut taken);
            assert!(taken.meshes.is_empty());
            assert_eq!(format!("{e:?}"), format!("{e2:?}"));
        }
    }

    /// Deferred vertices, built part by part in runs of any length with each part released
    /// once out (a mesh two nodes draw is kept for the second), give the taken extraction.
    #[test]
    fn pending_vertices_filled_and_released_in_turn_give_the_same_extraction() {
        for mut s in [scene(), skinned_scene(), point_skinned_scene()] {
            // Mesh 0 drawn twice, with a part of another mesh after its first use.
            s.nodes[0].meshes.push(0);
            let last = s.nodes.len() - 1;
            s.nodes[last].meshes.push(0);
            let mut taken = s.clone();
            let want = extract_taking_meshes(&mut taken);
            let users = want.part_meshes.iter().filter(|&&m| m == 0).count();
            assert!(users >= 2 && want.part_meshes.iter().any(|&m| m != 0));
            for run in [1, 2, 3, 1000] {
                let mut deferred = s.clone();
                let (mut got, mut pending) = extract_pending(&mut deferred);
                assert!(deferred.meshes.is_empty());
                assert_eq!(pending.parts(), got.model.meshes.len());
                for (k, part) in got.model.meshes.iter_mut().enumerate() {
                    assert!(part.vertices.is_empty());
                    let n = pending.len(k);
                    // Every field written, none left as it was (a writer reuses its runs).
                    let stale = Vertex {
                        position: [7.0; 3],
                        uv: [7.0; 2],
                        normal: [7.0; 3],
                        tangent: [7.0; 3],
                        blend_indices: [7.0; 4],
                        blend_weights: [7.0; 4],
                    };
                    part.vertices = vec![stale; n];
                    for start in (0..n).step_by(run) {
                        let end = (start + run).min(n);
                        pending.fill(k, start, &mut part.vertices[start..end]);
                    }
                    pending.release(k);
                }
                assert!(pending.is_empty());
                assert_eq!(format!("{want:?}"), format!("{got:?}"), "runs of {run}");
            }
        }
    }

    /// A mesh of triangles that one part uses gives that part its index list (the same
    /// allocation); a mesh two parts use gives each a copy, and one with a line keeps its
    /// triangles only.
    #[test]
    fn a_part_takes_the_triangle_list_of_a_mesh_only_it_uses() {
        let mut s = scene();
        for m in &mut s.meshes {
            m.indices.truncate(3);
            m.face_sizes.truncate(1);
        }
        // Mesh 0 drawn by two nodes; mesh 1 by one.
        let last = s.nodes.len() - 1;
        s.nodes[last].meshes.push(0);
        let lists: Vec<*const u32> = s.meshes.iter().map(|m| m.indices.as_ptr()).collect();
        let (e, _pending) = extract_pending(&mut s);
        let (mut taken, mut copied) = (0, 0);
        for (part, &m) in e.model.meshes.iter().zip(&e.part_meshes) {
            assert_eq!(part.indices, [0, 1, 2]);
            if m == 0 {
                assert_ne!(part.indices.as_ptr(), lists[0]);
                copied += 1;
            } else {
                assert_eq!(part.indices.as_ptr(), lists[m]);
                taken += 1;
            }
        }
        assert_eq!((copied, taken), (2, 1));
        // With a line, the part's list is its triangles.
        let mut s = scene();
        let (e, _pending) = extract_pending(&mut s);
        assert!(e.model.meshes.iter().all(|p| p.indices == [0, 1, 2]));
    }

    /// The skinned scene with its skin per control point (vertex `v` made from point `v`, the
    /// last vertex from none) and every attribute on its meshes.
    fn point_skinned_scene() -> Scene {
        let mut s = skinned_scene();
        for m in &mut s.meshes {
            let n = m.positions.len();
            m.normals = (0..n).map(|i| Vec3::new(0.0, 1.0, i as f32)).collect();
            m.tangents = (0..n).map(|i| Vec3::new(1.0, i as f32, 0.0)).collect();
            m.uv_channels = vec![UvChannel {
                components: 2,
                coords: (0..n).map(|i| Vec3::new(i as f32, 0.5, 0.0)).collect(),
                name: String::new(),
            }];
        }
        let m = &mut s.meshes[0];
        let mut starts = vec![0u32];
        let mut weights = Vec::new();
        for p in 0..m.positions.len() as u32 - 1 {
            for (b, bone) in m.bones.iter().enumerate() {
                weights.extend(
                    bone.weights
                        .iter()
                        .filter(|w| w.vertex == p)
                        .map(|w| (b as u32, w.weight)),
                );
            }
            starts.push(weights.len() as u32);
        }
        let mut vertex_points: Vec<u32> = (0..m.positions.len() as u32 - 1).collect();
        vertex_points.push(u32::MAX);
        m.point_skin = Some(kiln_scene::PointSkin {
            vertex_points,
            weights: alloc::sync::Arc::new(kiln_scene::PointWeights { starts, weights }),
        });
        s
    }

    /// Each attribute of the pending vertices, built in runs of any length as the kiln
    /// layout's writer builds its streams, is that field of the vertices `fill` builds, for
    /// rigid parts, skins per vertex and per point, and meshes with and without normals,
    /// tangents and UVs.
    #[test]
    fn pending_attributes_in_runs_are_the_vertices_fields() {
        for s in [scene(), skinned_scene(), point_skinned_scene()] {
            let mut d = s.clone();
            let (_, pending) = extract_pending(&mut d);
            assert!(pending.parts() >= 1);
            for k in 0..pending.parts() {
                let n = pending.len(k);
                let mut vertices = vec![Vertex::default(); n];
                pending.fill(k, 0, &mut vertices);
                for attribute in [
                    Attribute::Position,
                    Attribute::Normal,
                    Attribute::Tangent,
                    Attribute::Uv,
                    Attribute::BlendIndices,
                    Attribute::BlendWeights,
                ] {
                    let w = attribute.width();
                    let want: Vec<f32> = vertices
                        .iter()
                        .flat_map(|v| attribute.of(v).to_vec())
                        .collect();
                    for run in [1, 2, 5, 1000] {
                        let mut got = vec![f32::NAN; n * w];
                        for start in (0..n).step_by(run) {
                            let end = (start + run).min(n);
                            let wrote = pending.fill_attribute(
                                k,
                                start,
                                attribute,
                                &mut got[start * w..end * w],
                            );
                            assert_eq!(wrote, end - start);
                        }
                        assert_eq!(got, want, "part {k}, {attribute:?}, runs of {run}");
                        // A run the source holds as written is the same floats; positions
                        // always are, normals and tangents where the mesh has them; past
                        // the part's end, none.
                        for start in (0..n).step_by(run) {
                            let m = run.min(n - start);
                            let held = StreamSource::stream(&pending, k, start, attribute, m);
                            if let Some(held) = held {
                                assert_eq!(held, &want[start * w..(start + m) * w]);
                            }
                            if attribute == Attribute::Position {
                                assert!(held.is_some(), "part {k}: positions are held");
                            }
                            if matches!(
                                attribute,
                                Attribute::Uv | Attribute::BlendIndices | Attribute::BlendWeights
                            ) {
                                assert!(held.is_none(), "part {k}: {attribute:?} is built");
                            }
                            let past = StreamSource::stream(&pending, k, start, attribute, n + 1);
                            assert!(past.is_none());
                        }
                    }
                }
                // A mesh without normals or tangents hands none over (its runs are filled
                // with zeros).
                let mesh = &pending.meshes[pending.parts[k].mesh];
                for (attribute, have) in [
                    (Attribute::Normal, !mesh.normals.is_empty()),
                    (Attribute::Tangent, !mesh.tangents.is_empty()),
                ] {
                    let held = StreamSource::stream(&pending, k, 0, attribute, n);
                    assert!(n > 0);
                    assert_eq!(held.is_some(), have, "part {k}, {attribute:?}");
                }
            }
        }
        // The point skin's table is used: its unweighted vertex takes the rigid binding.
        let mut d = point_skinned_scene();
        let (e, pending) = extract_pending(&mut d);
        let part = e.part_meshes.iter().position(|&m| m == 0).unwrap();
        let mut got = vec![0.0; 4 * pending.len(part)];
        pending.fill_attribute(part, 0, Attribute::BlendWeights, &mut got);
        assert_eq!(&got[20..24], &[1.0, 0.0, 0.0, 0.0]);
        assert_ne!(&got[0..4], &[1.0, 0.0, 0.0, 0.0]);
    }

    #[test]
    fn skin_offsets_are_assimps_and_a_rigid_part_on_a_skinned_bone_gets_a_helper() {
        let s = skinned_scene();
        let e = extract(&s);
        let names: Vec<&str> = e.model.bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["root", "a", "b", "skin", "b$kiln_rigid"]);
        assert_eq!(e.offsets.len(), 5);
        assert_eq!(e.bone_sources[4], BoneSource::RigidHelper(2));
        let b_offset = s.global_transform(2).inverse() * s.global_transform(3);
        assert_eq!(e.offsets[2], Some(b_offset.to_cols_array()));
        // The skinned part's own node has an identity offset: rigid vertices may use it.
        assert_eq!(e.offsets[3], Some(Mat4::IDENTITY.to_cols_array()));
        assert_eq!((e.offsets[4], e.offsets[1].is_some()), (None, true));
        // The helper is a child of b with b's bind transform (identity local).
        let helper = &e.model.bones[4];
        assert_eq!(
            (helper.parent, helper.transform),
            (2, e.model.bones[2].transform)
        );
        // The rigid part keeps boneIndex b but binds its vertices to the helper.
        // Parts in node order: the rigid one on b, then the skin.
        let rigid = &e.model.meshes[0];
        assert_eq!(rigid.bone_index, 2);
        assert!(
            rigid
                .vertices
                .iter()
                .all(|v| v.blend_indices == [4.0, 0.0, 0.0, 0.0])
        );
        // The unweighted vertex of the skin binds to the skin's node, whose offset is identity.
        let v5 = &e.model.meshes[1].vertices[5];
        assert_eq!(
            (v5.blend_indices, v5.blend_weights),
            ([3.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0])
        );
        assert!(
            e.warnings.iter().any(|w| w.code == codes::UNKNOWN_SKIN_BONE
                && w.message.contains("'ghost' names no node")),
            "{:?}",
            e.warnings
        );
    }

    #[test]
    fn more_than_four_influences_keep_the_four_largest_renormalised() {
        let e = extract(&skinned_scene());
        let v0 = &e.model.meshes[1].vertices[0];
        // b 0.3, root 0.2, a 0.1, skin 0.05 (ghost's 0.25 is dropped with its bone).
        assert_eq!(v0.blend_indices, [2.0, 0.0, 1.0, 3.0]);
        let total = 0.3 + 0.2 + 0.1 + 0.05;
        for (got, want) in v0.blend_weights.iter().zip([0.3, 0.2, 0.1, 0.05]) {
            assert!((got - want / total).abs() < 1e-6, "{:?}", v0.blend_weights);
        }
        // Vertex 4: b and root tie at 1.0; the lower bone index (root) comes first, and the
        // dropped ghost weight does not count.
        let v4 = &e.model.meshes[1].vertices[4];
        assert_eq!(v4.blend_indices, [0.0, 2.0, 0.0, 0.0]);
        assert_eq!(v4.blend_weights, [0.5, 0.5, 0.0, 0.0]);
    }

    #[test]
    fn a_second_skin_with_another_offset_gets_a_skin_helper() {
        let mut s = skinned_scene();
        let other = s.add_child(0, Node::new("other"));
        s.nodes[other].transform = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0));
        let mut m = s.meshes[0].clone();
        m.bones.truncate(2);
        for b in &mut m.bones {
            b.offset_matrix = Mat4::from_translation(Vec3::new(5.0, 0.0, 0.0)) * b.offset_matrix;
        }
        // Same offset for `a` as the first skin: shares bone a.
        m.bones[0].offset_matrix = s.meshes[0].bones[0].offset_matrix;
        s.meshes.push(m);
        s.nodes[other].meshes = vec![2];
        let e = extract(&s);
        let names: Vec<&str> = e.model.bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "root",
                "a",
                "b",
                "skin",
                "other",
                "b$kiln_skin1",
                "b$kiln_rigid"
            ]
        );
        assert_eq!(e.bone_sources[5], BoneSource::SkinHelper(2));
        assert_eq!(
            e.offsets[5],
            Some(s.meshes[2].bones[1].offset_matrix.to_cols_array())
        );
        let part = &e.model.meshes[2];
        assert_eq!(part.name, "other");
        // Vertex 3: only b (weight 2): the helper.
        assert_eq!(part.vertices[3].blend_indices, [5.0, 0.0, 0.0, 0.0]);
        // Vertex 1: only a: shared.
        assert_eq!(part.vertices[1].blend_indices, [1.0, 0.0, 0.0, 0.0]);
    }
}
