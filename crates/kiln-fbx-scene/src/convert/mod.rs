//! The object graph to a [`Scene`], in Assimp 5.2's `FBXConverter` order: animations first
//! (they decide which pivot nodes must exist), orphaned embedded textures, then the node tree
//! depth-first with meshes, materials and skins converted as the nodes reach them, then the
//! global settings and the tracks Assimp's `ScenePreprocessor` adds.
//!
//! This file holds the [`Converter`], its state and the walk; each concern is an `impl
//! Converter` block of its own file:
//! - [`transform`]: the pivot chain and its `$AssimpFbx$` helper nodes;
//! - [`mesh`]: geometries (and lines) to meshes, split by material;
//! - [`skin`]: skin clusters to bones;
//! - [`material`] and [`texture`]: materials, their property keys and texture slots, embedded
//!   images;
//! - [`anim`]: animation stacks to channels, and [`takes`]: FBX 6 takes to what a stack gives;
//! - [`settings`]: `GlobalSettings` (units, axes, frame rate) into the metadata.
//!
//! Those files use this one and the modules below the converter (`graph`, `geometry`,
//! `arrays`, `par`, `codes`); among themselves only `anim` uses `transform` (helper-node
//! names) and `settings` (the frame rate), and `mesh` uses `skin` (a mesh part's bones).
//! Everything else between concerns is a `Converter` method call.

use std::collections::{HashMap, HashSet};
use std::rc::Rc;

use kiln_scene::assimp_math::{M4, RotOrder};
use kiln_scene::{Node as SceneNode, NodeId, Scene, Warning};

use crate::arrays::{Floats, Ints};
use crate::codes;
use crate::geometry::MeshGeometry;
use crate::graph::{Graph, Object, Props, ROOT_ID, strip_prefix};
use crate::options::ImportOptions;

mod anim;
mod curve;
mod material;
mod mesh;
mod morph;
mod settings;
mod skin;
mod takes;
mod texture;
mod transform;

/// Most converter warnings kept for one import (a damaged file can repeat one per object).
const MAX_WARNINGS: usize = 10_000;

/// A `Model` object with what the converter needs.
struct Model<'d, 'a> {
    id: u64,
    /// Name without the `Model::` prefix (`FixNodeName`).
    name: String,
    props: Props<'d, 'a>,
    rot_order: RotOrder,
    /// Geometry object ids (OO connections, file order).
    geometries: Vec<u64>,
    /// Material object ids (OO connections, file order).
    materials: Vec<u64>,
}

/// One converted cluster's data, resolved to the target bone name.
struct Cluster<'a> {
    bone: String,
    /// Control point indices and weights, as the file holds them (read in place when plain).
    indices: Ints<'a>,
    weights: Floats<'a>,
    transform: M4,
    /// No `Transform` in the file: `transform` is a placeholder until
    /// [`Converter::recover_binds`]; the bone's bind matrix (`TransformLink`, else `BindPose`)
    /// when the file has one.
    recovered: Option<Option<M4>>,
}

/// The state of one import.
pub(crate) struct Converter<'g, 'd, 'a> {
    g: &'g Graph<'d, 'a>,
    options: ImportOptions,
    scene: Scene,
    warnings: Vec<Warning>,
    models: HashMap<u64, Option<Rc<Model<'d, 'a>>>>,
    geometries: HashMap<u64, Option<Rc<MeshGeometry<'a>>>>,
    meshes_converted: HashMap<u64, Vec<usize>>,
    skins: HashMap<u64, Option<Rc<Vec<Cluster<'a>>>>>,
    materials_converted: HashMap<u64, usize>,
    videos_converted: HashMap<u64, usize>,
    default_material: Option<usize>,
    /// Node name → chain components that animations target (`node_anim_chain_bits`).
    anim_chain_bits: HashMap<String, u32>,
    /// Skin clusters without `Transform`: (geometry id, bone name, the bone's bind matrix
    /// when the file has one), whose offsets are computed once the nodes exist
    /// ([`Converter::recover_binds`]).
    pending_binds: Vec<(u64, String, Option<M4>)>,
    /// `BlendShapeChannel` id → the (mesh, target) pairs it made.
    morph_targets_of: HashMap<u64, Vec<(usize, usize)>>,
    /// Blend shape weight curves read with the animations, resolved to targets once the
    /// meshes exist ([`Converter::resolve_morph_channels`]).
    pending_morph: Vec<morph::PendingMorphCurve>,
}

fn fix_node_name(name: &str) -> String {
    strip_prefix(name, "Model::").to_string()
}

impl<'g, 'd, 'a> Converter<'g, 'd, 'a> {
    pub(crate) fn new(g: &'g Graph<'d, 'a>, options: ImportOptions) -> Self {
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
            pending_binds: Vec::new(),
            morph_targets_of: HashMap::new(),
            pending_morph: Vec::new(),
        }
    }

    /// Records a warning (the first [`MAX_WARNINGS`]).
    fn warn(&mut self, w: Warning) {
        if self.warnings.len() < MAX_WARNINGS {
            self.warnings.push(w);
        }
    }

    /// Describes an object for messages: `Model 'Cube' (id 123)`.
    fn describe(&self, obj: &Object<'_, '_>) -> String {
        let name = obj.name(self.g.legacy);
        let short = name.split_once("::").map_or(name.as_str(), |(_, n)| n);
        if self.g.legacy {
            format!("{} '{}'", obj.element, short)
        } else {
            format!("{} '{}' (id {})", obj.element, short, obj.id)
        }
    }

    /// Converts everything, in Assimp's order: the scene and the converter's warnings.
    pub(crate) fn run(mut self) -> (Scene, Vec<Warning>) {
        self.convert_animations();
        self.convert_orphaned_textures();
        self.convert_nodes();
        self.recover_binds();
        self.resolve_morph_channels();
        self.convert_global_settings();
        self.add_missing_tracks();
        let warnings = std::mem::take(&mut self.warnings);
        (self.scene, warnings)
    }

    // ---------------------------------------------------------------- objects

    /// The model `id`, or `None` when it is not a usable Model (effectors, no scope).
    fn model(&mut self, id: u64) -> Option<Rc<Model<'d, 'a>>> {
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
        for c in g.incoming(id) {
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

    // ---------------------------------------------------------------- nodes

    /// The node tree, depth-first from the root object (iteratively: no recursion depth
    /// depends on the file), each model's chain and meshes converted as it is entered.
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
                self.warn(Warning::new(
                    codes::NODE_CYCLE,
                    format!(
                        "{d}: the node graph has a cycle through this model; the repeated link is ignored"
                    ),
                ).at(d));
                continue;
            }
            if self.scene.nodes.len() >= limit {
                self.warn(Warning::new(
                    codes::NODE_LIMIT,
                    format!(
                        "more than {limit} nodes (models shared by several parents multiply); the rest is ignored"
                    ),
                ));
                break;
            }
            let Some(model) = self.model(id) else {
                if let Some(o) = self.g.object(id) {
                    if o.element == "Model" {
                        let d = self.describe(o);
                        self.warn(
                            Warning::new(
                                codes::MODEL_SKIPPED,
                                format!("{d}: cannot be converted, its subtree is skipped"),
                            )
                            .at(d),
                        );
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
}
