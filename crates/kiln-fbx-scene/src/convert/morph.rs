//! Blend shapes: a geometry's `BlendShape` deformers, their `BlendShapeChannel`s and each
//! channel's `Shape` geometries (7.x), or the `Shape` children of a 6.x geometry, read as
//! [`MorphTarget`]s of the output meshes the geometry made.
//!
//! Each shape holds offsets per control point (`Indexes`, `Vertices`, optionally `Normals`);
//! they are spread to every output vertex made from the point, in each material part, the way
//! skin weights are ([`super::skin::corner_parts`]). A channel with several shapes is an
//! in-between chain: `FullWeights` (percent) says at which channel weight each applies fully,
//! and the shapes are sorted by it, as ufbx does. What is read, and what is dropped with which
//! warning:
//!
//! | finding | what happens | code |
//! |---|---|---|
//! | `Indexes` or `Vertices` missing, unreadable, or `Vertices` not three per index (`Normals` likewise) | the shape is dropped | `fbx.morph-shape-dropped` |
//! | a full weight that is 0, NaN or infinite, or repeats an earlier shape's | the shape is dropped | `fbx.morph-shape-dropped` |
//! | an index past the control points, or an offset that is not finite | that offset is dropped | `fbx.morph-offsets-dropped` |
//! | a channel left without a shape | the channel is dropped | `fbx.morph-channel-dropped` |
//! | `DeformPercent` NaN or infinite | the weight at rest is 0 | `fbx.morph-weight-invalid` |
//!
//! Blender's binary exporter writes one `FullWeights` entry per offset (a per-vertex weight of
//! its shape key's vertex group) rather than one per shape. As ufbx does, such a list (longer
//! than the channel's shapes and as long as its one shape's offsets) scales each offset and
//! the shape applies fully at weight 1; a list longer than the shapes but of another length
//! is read as one full weight per shape.
//!
//! A `DeformPercent` curve on a channel becomes a [`MorphChannel`] of each target the channel
//! made, once the meshes exist ([`Converter::resolve_morph_channels`]). In 6.x a take's
//! `Channel` of a shape's name, on the model that has the shape, is that shape's curve (in
//! percent, as `DeformPercent`; ufbx reads it so).

use std::collections::BTreeMap;

use kiln_scene::{MorphChannel, MorphShape, MorphTarget, Vec3, Warning, WeightKey};

use super::Converter;
use super::skin::corner_parts;
use crate::codes;
use crate::geometry::MeshGeometry;
use crate::graph::{Object, strip_prefix};

/// The channel id of a 6.x shape that no take channel can name (past the ids
/// [`legacy_channel`] hands out).
const LEGACY: u64 = u64::MAX;

/// The channel id of the `k`th `Shape` child of 6.x object `owner` (a model, or a geometry of
/// one): 6.x shapes are no objects, so the id is made from where the shape is, above every id
/// the 6.x graph hands out (2^48 on), for a take channel of the shape's name to find it.
pub(super) fn legacy_channel(owner: u64, k: usize) -> u64 {
    // The graph's 6.x ids are 2^48 + a count, so their low 32 bits tell them apart.
    match u16::try_from(k) {
        Ok(k) => (1 << 62) | ((owner & 0xffff_ffff) << 16) | u64::from(k),
        Err(_) => LEGACY,
    }
}

/// One shape as the file gives it, before it is spread to the output vertices.
struct RawShape {
    name: String,
    full_weight: f32,
    /// (control point, position offset, normal offset) per offset, in file order.
    offsets: Vec<(u32, Vec3, Option<Vec3>)>,
    normals: bool,
}

/// One channel as the file gives it.
struct RawChannel {
    id: u64,
    name: String,
    weight: f32,
    shapes: Vec<RawShape>,
}

/// A weight curve waiting for its targets (the animations are read before the meshes).
pub(super) struct PendingMorphCurve {
    /// Index in [`kiln_scene::Scene::animations`].
    pub(super) animation: usize,
    /// The `BlendShapeChannel` the curve drives.
    pub(super) channel: u64,
    /// The keys, in the animation's ticks, weights 0..1.
    pub(super) keys: Vec<WeightKey>,
}

impl<'d, 'a> Converter<'_, 'd, 'a> {
    /// The blend shape channels of geometry `obj`, read and checked, in file order (7.x:
    /// deformers, then their channels, then each channel's shapes, in connection order; 6.x:
    /// one channel per `Shape` child).
    fn blend_channels(&mut self, obj: &Object<'d, 'a>, geo: &MeshGeometry<'_>) -> Vec<RawChannel> {
        let g = self.g;
        let mut out = Vec::new();
        if g.legacy {
            let props = g.props(&obj.node, "");
            for (k, shape) in obj.node.children_named("Shape").enumerate() {
                let name = match shape.value(0) {
                    Some(kiln_fbx::Value::String(s)) => {
                        kiln_scene::names::from_bytes(s).into_owned()
                    }
                    _ => format!("Shape{k}"),
                };
                let what = format!("{} shape '{name}'", self.describe(obj));
                let weight = props.float(&name).unwrap_or(0.0);
                let shape = self.raw_shape(&shape, name.clone(), 1.0, None, &what, geo);
                let shapes = shape.into_iter().collect();
                let id = legacy_channel(obj.id, k);
                out.extend(self.checked_channel(id, name, weight, shapes, &what));
            }
            return out;
        }
        let deformers: Vec<u64> = g
            .sources_of(obj.id, "Deformer")
            .filter(|(c, o)| c.property.is_empty() && o.class(false) == "BlendShape")
            .map(|(c, _)| c.src)
            .collect();
        for d in deformers {
            let channels: Vec<Object<'d, 'a>> = g
                .sources_of(d, "Deformer")
                .filter(|(c, o)| c.property.is_empty() && o.class(false) == "BlendShapeChannel")
                .map(|(_, o)| *o)
                .collect();
            for ch in channels {
                let what = self.describe(&ch);
                let name = strip_prefix(&ch.name(false), "SubDeformer::").to_string();
                // Blender writes `DeformPercent` as a field, the others as a property.
                let weight = g
                    .props(&ch.node, "Deformer.FbxBlendShapeChannel")
                    .float("DeformPercent")
                    .or_else(|| {
                        ch.node
                            .child("DeformPercent")
                            .and_then(|n| n.value(0))
                            .and_then(|v| v.to_f64())
                    })
                    .unwrap_or(0.0);
                let full: Vec<f64> = ch
                    .node
                    .child("FullWeights")
                    .and_then(|n| n.f64_values().ok())
                    .map(|v| v.into_owned())
                    .unwrap_or_default();
                let shapes: Vec<Object<'d, 'a>> = g
                    .sources_of(ch.id, "Geometry")
                    .filter(|(c, o)| c.property.is_empty() && o.class(false) == "Shape")
                    .map(|(_, o)| *o)
                    .collect();
                let per_vertex = full.len() > shapes.len() && shapes.len() == 1;
                let mut raw = Vec::new();
                for (k, s) in shapes.iter().enumerate() {
                    let sname = strip_prefix(&s.name(false), "Geometry::").to_string();
                    let swhat = format!("{what} shape '{sname}'");
                    let (fw, scale) = if per_vertex {
                        (1.0, Some(full.as_slice()))
                    } else {
                        (full.get(k).map_or(1.0, |w| w / 100.0), None)
                    };
                    if let Some(s) = self.raw_shape(&s.node, sname, fw, scale, &swhat, geo) {
                        raw.push(s);
                    }
                }
                out.extend(self.checked_channel(ch.id, name, weight, raw, &what));
            }
        }
        out
    }

    /// A channel's weight checked, its shapes sorted by full weight with repeats dropped;
    /// `None` (with a warning) when no shape is left.
    fn checked_channel(
        &mut self,
        id: u64,
        name: String,
        percent: f64,
        mut shapes: Vec<RawShape>,
        what: &str,
    ) -> Option<RawChannel> {
        let weight = if percent.is_finite() {
            (percent / 100.0) as f32
        } else {
            self.warn(
                Warning::new(
                    codes::MORPH_WEIGHT_INVALID,
                    format!("{what}: DeformPercent is {percent}; the weight at rest is 0"),
                )
                .at(what.to_string()),
            );
            0.0
        };
        shapes.sort_by(|a, b| a.full_weight.total_cmp(&b.full_weight));
        let mut kept: Vec<RawShape> = Vec::with_capacity(shapes.len());
        for s in shapes {
            if kept.last().is_some_and(|k| k.full_weight == s.full_weight) {
                self.warn(
                    Warning::new(
                        codes::MORPH_SHAPE_DROPPED,
                        format!(
                            "{what}: shape '{}' repeats the full weight {} of an earlier shape; dropped",
                            s.name,
                            s.full_weight * 100.0
                        ),
                    )
                    .at(what.to_string()),
                );
                continue;
            }
            kept.push(s);
        }
        if kept.is_empty() {
            self.warn(
                Warning::new(
                    codes::MORPH_CHANNEL_DROPPED,
                    format!("{what}: no usable shape; the channel is not imported"),
                )
                .at(what.to_string()),
            );
            return None;
        }
        Some(RawChannel {
            id,
            name,
            weight,
            shapes: kept,
        })
    }

    /// One `Shape` node's offsets, checked against the base geometry; `None` (with a
    /// warning) when the shape cannot be used. `scale` is Blender's per-offset weight list.
    fn raw_shape(
        &mut self,
        node: &kiln_fbx::Node<'d, 'a>,
        name: String,
        full_weight: f64,
        scale: Option<&[f64]>,
        what: &str,
        geo: &MeshGeometry<'_>,
    ) -> Option<RawShape> {
        let drop = |this: &mut Self, why: String| {
            this.warn(
                Warning::new(
                    codes::MORPH_SHAPE_DROPPED,
                    format!("{what}: {why}; the shape is dropped"),
                )
                .at(what.to_string()),
            );
            None
        };
        let indices = node.child("Indexes").map(|n| n.i32_values());
        let vertices = node.child("Vertices").map(|n| n.f64_values());
        let (Some(Ok(indices)), Some(Ok(vertices))) = (indices, vertices) else {
            return drop(self, "Indexes or Vertices missing or unreadable".into());
        };
        // Per-offset weights only when there is one per offset; otherwise the list is the
        // usual one full weight per shape.
        let (full_weight, scale) = match scale {
            Some(s) if s.len() != indices.len() => (s[0] / 100.0, None),
            other => (full_weight, other),
        };
        let full_weight = full_weight as f32;
        if !full_weight.is_finite() || full_weight == 0.0 {
            return drop(self, format!("full weight {}", full_weight * 100.0));
        }
        if vertices.len() != indices.len() * 3 {
            return drop(
                self,
                format!(
                    "{} Vertices values for {} Indexes (three each expected)",
                    vertices.len(),
                    indices.len()
                ),
            );
        }
        let normals = match node.child("Normals").map(|n| n.f64_values()) {
            None => None,
            Some(Ok(n)) if n.len() == vertices.len() => Some(n),
            Some(Ok(n)) if n.is_empty() => None,
            Some(_) => {
                return drop(
                    self,
                    format!(
                        "Normals unreadable or not three per index ({} Indexes)",
                        indices.len()
                    ),
                );
            }
        };
        let v3 = |a: &[f64], i: usize| {
            Vec3::new(a[3 * i] as f32, a[3 * i + 1] as f32, a[3 * i + 2] as f32)
        };
        let mut offsets = Vec::with_capacity(indices.len());
        let (mut out_of_range, mut not_finite) = (0usize, 0usize);
        for (i, &index) in indices.iter().enumerate() {
            let Some(point) = u32::try_from(index)
                .ok()
                .filter(|&p| (p as usize) < geo.control_points)
            else {
                out_of_range += 1;
                continue;
            };
            let s = scale.map_or(1.0, |s| s[i] as f32 / 100.0);
            let p = v3(&vertices, i) * s;
            let n = normals.as_ref().map(|n| v3(n, i) * s);
            if !p.is_finite() || n.is_some_and(|n| !n.is_finite()) {
                not_finite += 1;
                continue;
            }
            offsets.push((point, p, n));
        }
        if out_of_range + not_finite > 0 {
            self.warn(
                Warning::new(
                    codes::MORPH_OFFSETS_DROPPED,
                    format!(
                        "{what}: {out_of_range} offset(s) past the geometry's {} control points and {not_finite} not finite; dropped",
                        geo.control_points
                    ),
                )
                .at(what.to_string()),
            );
        }
        Some(RawShape {
            name,
            full_weight,
            normals: normals.is_some(),
            offsets,
        })
    }

    /// Reads geometry `obj`'s blend shapes and gives each output mesh in `meshes` (its parts,
    /// by material index in `parts` order; one mesh when `parts` is empty) one
    /// [`MorphTarget`] per channel, in file order; records which targets each channel made.
    pub(super) fn attach_morph_targets(
        &mut self,
        obj: &Object<'d, 'a>,
        geo: &MeshGeometry<'_>,
        meshes: &[usize],
        parts: &[i32],
    ) {
        let channels = self.blend_channels(obj, geo);
        if channels.is_empty() {
            return;
        }
        let (offsets, point_corners) = geo.point_corners();
        // Part and vertex of each corner: one part, the corner itself, for a geometry that is
        // not split.
        let (part_of, vertex_of) = if parts.is_empty() {
            let n = geo.corner_count();
            (vec![0u32; n], (0..n as u32).collect())
        } else {
            corner_parts(geo, parts)
        };
        // Per part: its vertex count, and scratch reused by every shape (an offset sum and a
        // seen flag per vertex, the vertices touched), so spreading a shape costs its offsets'
        // corners plus, for a shape touching much of a part, one sweep of the part.
        let mut vertex_counts = vec![0usize; meshes.len()];
        for (&part, &vertex) in part_of.iter().zip(&vertex_of) {
            if let Some(c) = vertex_counts.get_mut(part as usize) {
                *c = (*c).max(vertex as usize + 1);
            }
        }
        let mut scratch: Vec<Spread> = vertex_counts.iter().map(|&n| Spread::new(n)).collect();
        for ch in channels {
            let mut per_part: Vec<Vec<MorphShape>> = vec![Vec::new(); meshes.len()];
            for shape in &ch.shapes {
                for &(point, p, n) in &shape.offsets {
                    let (a, b) = (offsets[point as usize], offsets[point as usize + 1]);
                    for &corner in &point_corners[a as usize..b as usize] {
                        let part = part_of[corner as usize];
                        if let Some(spread) = scratch.get_mut(part as usize) {
                            spread.add(vertex_of[corner as usize], p, n.unwrap_or(Vec3::ZERO));
                        }
                    }
                }
                for (k, spread) in scratch.iter_mut().enumerate() {
                    let mut s = MorphShape {
                        name: shape.name.clone(),
                        full_weight: shape.full_weight,
                        ..MorphShape::default()
                    };
                    spread.take(&mut s, shape.normals);
                    per_part[k].push(s);
                }
            }
            for (&mesh, shapes) in meshes.iter().zip(per_part) {
                let m = &mut self.scene.meshes[mesh];
                let target = m.morph_targets.len();
                m.morph_targets.push(MorphTarget {
                    name: ch.name.clone(),
                    weight: ch.weight,
                    shapes,
                });
                if ch.id != LEGACY {
                    self.morph_targets_of
                        .entry(ch.id)
                        .or_default()
                        .push((mesh, target));
                }
            }
        }
    }

    /// Gives each animation the weight channels its `DeformPercent` curves drive, now that the
    /// meshes and their targets exist: one [`MorphChannel`] per target the curve's channel
    /// made. A curve whose channel made none is said once per animation.
    pub(super) fn resolve_morph_channels(&mut self) {
        let pending = std::mem::take(&mut self.pending_morph);
        let mut unresolved: BTreeMap<usize, usize> = BTreeMap::new();
        for p in pending {
            let Some(targets) = self.morph_targets_of.get(&p.channel).cloned() else {
                *unresolved.entry(p.animation).or_default() += 1;
                continue;
            };
            let Some(anim) = self.scene.animations.get_mut(p.animation) else {
                continue;
            };
            for (mesh, target) in targets {
                if anim
                    .morph_channels
                    .iter()
                    .any(|c| c.mesh == mesh && c.target == target)
                {
                    continue; // a later layer's curve on the same channel: the first wins
                }
                anim.morph_channels.push(MorphChannel {
                    mesh,
                    target,
                    keys: p.keys.clone(),
                });
            }
        }
        for (animation, n) in unresolved {
            let name = self.scene.animations[animation].name.clone();
            self.warn(
                Warning::new(
                    codes::MORPH_UNSUPPORTED,
                    format!(
                        "animation '{name}': {n} blend shape weight curve(s) drive no imported blend shape; ignored"
                    ),
                )
                .at(format!("animation '{name}'")),
            );
        }
    }
}

/// One part's offsets of one shape being spread to its vertices: the sum per vertex (a
/// control point's offset reaches a vertex once per corner that became it, so repeats are
/// summed, in the order they come) and the vertices touched, handed out ascending.
struct Spread {
    positions: Vec<Vec3>,
    normals: Vec<Vec3>,
    seen: Vec<bool>,
    touched: Vec<u32>,
}

impl Spread {
    fn new(vertices: usize) -> Spread {
        Spread {
            positions: vec![Vec3::ZERO; vertices],
            normals: vec![Vec3::ZERO; vertices],
            seen: vec![false; vertices],
            touched: Vec::new(),
        }
    }

    fn add(&mut self, vertex: u32, p: Vec3, n: Vec3) {
        let v = vertex as usize;
        let Some(seen) = self.seen.get_mut(v) else {
            return;
        };
        if *seen {
            self.positions[v] += p;
            self.normals[v] += n;
        } else {
            *seen = true;
            self.touched.push(vertex);
            self.positions[v] = p;
            self.normals[v] = n;
        }
    }

    /// Moves the sums into `shape` (vertices ascending; normals when `normals`) and clears.
    fn take(&mut self, shape: &mut MorphShape, normals: bool) {
        let n = self.touched.len();
        if n * 8 >= self.seen.len() {
            // Much of the part: one sweep gives the vertices in order.
            self.touched.clear();
            self.touched
                .extend((0..self.seen.len() as u32).filter(|&v| self.seen[v as usize]));
        } else {
            self.touched.sort_unstable();
        }
        shape.vertices.reserve(n);
        shape.positions.reserve(n);
        if normals {
            shape.normals.reserve(n);
        }
        for &v in &self.touched {
            let v = v as usize;
            shape.vertices.push(v as u32);
            shape.positions.push(self.positions[v]);
            if normals {
                shape.normals.push(self.normals[v]);
            }
            self.seen[v] = false;
        }
        self.touched.clear();
    }
}
