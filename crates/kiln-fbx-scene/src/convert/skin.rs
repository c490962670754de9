//! Skins: the `Cluster`s of a geometry's (last) `Skin` deformer, each linked to its bone
//! model, and the bones of one output mesh made from them (`ConvertWeights` +
//! `ConvertCluster`: the cluster's `Transform` is the offset matrix, as Assimp 5.2 takes it).

use std::collections::HashMap;
use std::rc::Rc;

use kiln_fbx::Value;
use kiln_scene::assimp_math::M4;
use kiln_scene::{Bone, PointWeights, VertexWeight, Warning};

use super::{Cluster, Converter};
use crate::arrays::{Floats, Ints};
use crate::codes;
use crate::geometry::MeshGeometry;
use crate::graph::normalize_name;
use crate::par;

impl<'a> Converter<'_, '_, 'a> {
    /// The clusters of geometry `gid`'s skin, read once per geometry (`None`: no skin).
    pub(super) fn skin(&mut self, gid: u64) -> Option<Rc<Vec<Cluster<'a>>>> {
        if let Some(s) = self.skins.get(&gid) {
            return s.clone();
        }
        let s = self.skin_clusters(gid).map(Rc::new);
        self.skins.insert(gid, s.clone());
        s
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
                if let Some(bind) = c.recovered {
                    self.pending_binds.push((gid, c.bone.clone(), bind));
                }
                out.push(c);
            }
        }
        Some(out)
    }

    /// `BindPose` matrices by model id (the first bind pose that names a model wins).
    fn bind_pose(&self) -> HashMap<u64, M4> {
        let g = self.g;
        let mut out = HashMap::new();
        for o in g.objects.iter().filter(|o| o.element == "Pose") {
            if o.class(g.legacy) != "BindPose" {
                continue;
            }
            for pn in o.node.children_named("PoseNode") {
                let id = match pn.child("Node").and_then(|n| n.value(0)) {
                    Some(Value::String(s)) if g.legacy => {
                        g.legacy_names.get(&normalize_name(s)).copied()
                    }
                    Some(v) => v.to_i64().map(|i| i as u64),
                    None => None,
                };
                let m = pn
                    .child("Matrix")
                    .and_then(|m| m.f64_values().ok())
                    .and_then(|v| M4::from_fbx_array(&v))
                    .filter(M4::is_finite);
                if let (Some(id), Some(m)) = (id, m) {
                    out.entry(id).or_insert(m);
                }
            }
        }
        out
    }

    /// Offsets of the bones whose clusters have no `Transform`, as ufbx recovers them:
    /// inverse(bone's bind matrix) × the mesh's, each from the cluster's `TransformLink` or
    /// the file's `BindPose`, else the node's world transform at rest.
    pub(super) fn recover_binds(&mut self) {
        if self.pending_binds.is_empty() {
            return;
        }
        let pose = self.bind_pose();
        let pose_by_name: HashMap<String, M4> = pose
            .iter()
            .filter_map(|(id, m)| Some((self.g.object(*id)?, *m)))
            .filter(|(o, _)| o.element == "Model")
            .map(|(o, m)| (super::fix_node_name(&o.name(self.g.legacy)), m))
            .collect();
        let world = |scene: &kiln_scene::Scene, name: &str| -> Option<M4> {
            if let Some(m) = pose_by_name.get(name) {
                return Some(*m);
            }
            let n = scene.find_node(name)?;
            Some(M4::from_glam(&scene.global_transform(n)))
        };
        for (gid, bone, bind) in std::mem::take(&mut self.pending_binds) {
            let meshes = self.meshes_converted.get(&gid).cloned().unwrap_or_default();
            for mi in meshes {
                let Some(node) =
                    (0..self.scene.nodes.len()).find(|&n| self.scene.nodes[n].meshes.contains(&mi))
                else {
                    continue;
                };
                let mesh_name = self.scene.nodes[node].name.clone();
                let mesh_world = pose_by_name
                    .get(&mesh_name)
                    .copied()
                    .unwrap_or_else(|| M4::from_glam(&self.scene.global_transform(node)));
                let offset = bind
                    .or_else(|| world(&self.scene, &bone))
                    .map(|bone_world| bone_world.inverse().mul(&mesh_world))
                    .filter(M4::is_finite);
                let outcome = match offset {
                    // No node of the bone's name, or a bind that cannot be inverted: the
                    // placeholder (the identity) stays, and the warning says so.
                    None => "no usable bind matrix either; the offset is the identity",
                    Some(_) if bind.is_some() || pose_by_name.contains_key(&bone) => {
                        "the offset is computed from the bind pose"
                    }
                    Some(_) => "the offset is computed from the bone's transform at rest",
                };
                if let Some(offset) = offset {
                    for b in self.scene.meshes[mi]
                        .bones
                        .iter_mut()
                        .filter(|b| b.name == bone)
                    {
                        b.offset_matrix = offset.to_glam();
                    }
                }
                let what = format!("bone '{bone}' of mesh '{mesh_name}'");
                self.warn(
                    Warning::new(
                        codes::CLUSTER_BIND_RECOVERED,
                        format!("{what}: its skin cluster has no Transform; {outcome}"),
                    )
                    .at(what),
                );
            }
        }
    }

    /// One cluster: its matrices, indices and weights checked, its bone found; `None` (with
    /// a warning) when any of that is missing or malformed.
    fn read_cluster(&mut self, id: u64) -> Option<Cluster<'a>> {
        let g = self.g;
        let obj = *g.object(id)?;
        let d = self.describe(&obj);
        let dropped = |msg: String| Warning::new(codes::CLUSTER_DROPPED, msg).at(d.clone());
        let n = obj.node;
        let matrix = |name: &str| -> Option<M4> {
            let v = n.child(name)?.f64_values().ok()?;
            M4::from_fbx_array(&v)
        };
        // The offset is the cluster's `Transform` (as Assimp 5.2 takes it); `TransformLink`
        // (the bone's bind pose) is not needed for it, so a cluster without one is kept, as
        // ufbx keeps it (Assimp refuses the file). Without `Transform` the offset is computed
        // from the bind pose once the nodes exist (`recover_binds`).
        let (transform, recovered) = match (n.child("Transform"), matrix("Transform")) {
            (_, Some(t)) => (t, None),
            (None, None) => (
                M4::IDENTITY,
                Some(matrix("TransformLink").filter(M4::is_finite)),
            ),
            (Some(_), None) => {
                self.warn(dropped(format!(
                    "{d}: Transform is not 16 numbers; cluster ignored"
                )));
                return None;
            }
        };
        if !transform.is_finite() {
            self.warn(dropped(format!(
                "{d}: Transform is not finite; cluster ignored"
            )));
            return None;
        }
        let (ix, wx) = (n.child("Indexes"), n.child("Weights"));
        let (indices, weights) = match (ix, wx) {
            (Some(i), Some(w)) => {
                let i = match g.arrays.ints_or_decode(&i) {
                    Ok(v) => v,
                    Err(e) => {
                        self.warn(dropped(format!(
                            "{d}: Indexes unreadable ({e}); cluster ignored"
                        )));
                        return None;
                    }
                };
                let w = match g.arrays.floats_or_decode(&w) {
                    Ok(v) => v,
                    Err(e) => {
                        self.warn(dropped(format!(
                            "{d}: Weights unreadable ({e}); cluster ignored"
                        )));
                        return None;
                    }
                };
                (i, w)
            }
            (None, None) => (Ints::default(), Floats::Owned(Vec::new())),
            _ => {
                self.warn(dropped(format!(
                    "{d}: Indexes or Weights missing; cluster ignored"
                )));
                return None;
            }
        };
        if indices.len() != weights.len() {
            self.warn(dropped(format!(
                "{d}: {} indexes but {} weights; cluster ignored",
                indices.len(),
                weights.len()
            )));
            return None;
        }
        let target = g
            .sources_of(id, "Model")
            .filter(|(c, _)| c.property.is_empty())
            .map(|(c, _)| c.src)
            .find_map(|m| self.model(m));
        let Some(target) = target else {
            self.warn(
                Warning::new(
                    codes::CLUSTER_WITHOUT_BONE,
                    format!("{d}: no bone (Model) is linked to this cluster; cluster ignored"),
                )
                .at(d),
            );
            return None;
        };
        if let Some(bad) = indices.iter().find(|&i| i < 0) {
            self.warn(
                Warning::new(
                    codes::CLUSTER_NEGATIVE_INDEX,
                    format!("{d}: vertex index {bad} is negative; its weight is ignored"),
                )
                .at(d),
            );
        }
        Some(Cluster {
            bone: target.name.clone(),
            indices,
            weights,
            transform,
            recovered,
        })
    }
}

/// Skin bones of one output mesh (`ConvertWeights` + `ConvertCluster`): every cluster gives
/// a bone (even without weights); a bone named twice in one skin is listed twice with the
/// first cluster's data; weights go to every output vertex made from the control point.
///
/// The conversion calls it for a geometry that is not split by material; a split geometry's
/// parts get theirs from [`split_bones`] in one pass, and debug builds check each part against
/// this function with `material` and `picked` (its per-part form is that reference).
pub(super) fn bones_for(
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
    let corners_of = |index: i32| corners_of_point(geo, &offsets, &point_corners, index);
    let (source, todo) = first_of_each_bone(clusters);
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
    assemble_bones(clusters, &source, |i| made[i].take().unwrap_or_default())
}

/// [`bones_for`] for every part of a geometry split by material at once: `parts` are the
/// parts' material indices, the result has one bone list per part, each equal to
/// `bones_for(geo, clusters, Some(parts[k]), picked_k)` (same bones, same weights in the same
/// order), from one pass over the clusters' weights instead of one pass per part.
pub(super) fn split_bones(
    geo: &MeshGeometry<'_>,
    clusters: &[Cluster<'_>],
    parts: &[i32],
) -> Vec<Vec<Bone>> {
    let ((offsets, point_corners), (part_of, vertex_of)) =
        par::join(|| geo.point_corners(), || corner_parts(geo, parts));
    // Each point's corners as (part, vertex in it), in the order `point_corners` lists them:
    // read once here, so that the passes over the clusters' weights below (several weights per
    // point) read them in sequence instead of looking two tables up at random per corner.
    let targets: Vec<(u32, u32)> = point_corners
        .iter()
        .map(|&c| {
            let c = c as usize;
            match part_of.get(c) {
                Some(&p) if p != u32::MAX => (p, vertex_of[c]),
                _ => (u32::MAX, 0),
            }
        })
        .collect();
    drop((part_of, vertex_of, point_corners));
    let targets_of = |index: i32| corners_of_point(geo, &offsets, &targets, index);
    let (source, todo) = first_of_each_bone(clusters);
    let weights = par::map(&todo, |&i| {
        let cl = &clusters[i];
        // Counted first, so that each list is allocated once at its size.
        let mut count = vec![0usize; parts.len()];
        for index in cl.indices.iter() {
            for &(p, _) in targets_of(index) {
                if let Some(n) = count.get_mut(p as usize) {
                    *n += 1;
                }
            }
        }
        let mut per_part: Vec<Vec<VertexWeight>> =
            count.into_iter().map(Vec::with_capacity).collect();
        for (index, w) in cl.indices.iter().zip(cl.weights.iter()) {
            for &(p, vertex) in targets_of(index) {
                if let Some(list) = per_part.get_mut(p as usize) {
                    list.push(VertexWeight { vertex, weight: w });
                }
            }
        }
        per_part
    });
    let mut made: Vec<Option<Vec<Vec<VertexWeight>>>> = vec![None; clusters.len()];
    for (i, w) in todo.into_iter().zip(weights) {
        made[i] = Some(w);
    }
    (0..parts.len())
        .map(|k| {
            assemble_bones(clusters, &source, |i| {
                made[i]
                    .as_mut()
                    .map(|w| std::mem::take(&mut w[k]))
                    .unwrap_or_default()
            })
        })
        .collect()
}

/// The skin's weights per control point ([`kiln_scene::PointSkin`]): for every bone in
/// cluster order (a bone named twice takes its first cluster's weights, as [`bones_for`]
/// gives it), each `(index, weight)` of its cluster with the index a control point, under
/// that point. The weights of any part of the geometry, with the bones of
/// [`point_skin_bones`].
pub(super) fn point_weights(geo: &MeshGeometry<'_>, clusters: &[Cluster<'_>]) -> PointWeights {
    let points = geo.control_points;
    let (source, _) = first_of_each_bone(clusters);
    let point = |index: i32| usize::try_from(index).ok().filter(|&p| p < points);
    // Counted first (at `p + 2`, as `point_corners` does), then scattered in bone order.
    let mut starts = vec![0u32; points + 2];
    for &src in &source {
        let cl = &clusters[src];
        for (index, _) in cl.indices.iter().zip(cl.weights.iter()) {
            if let Some(p) = point(index) {
                starts[p + 2] += 1;
            }
        }
    }
    for i in 2..points + 2 {
        starts[i] += starts[i - 1];
    }
    let total = starts[points + 1] as usize;
    let mut weights = vec![(0u32, 0f32); total];
    for (bone, &src) in source.iter().enumerate() {
        let cl = &clusters[src];
        for (index, w) in cl.indices.iter().zip(cl.weights.iter()) {
            if let Some(p) = point(index) {
                let at = &mut starts[p + 1];
                weights[*at as usize] = (bone as u32, w);
                *at += 1;
            }
        }
    }
    starts.truncate(points + 1);
    PointWeights { starts, weights }
}

/// The bones of any part of a geometry whose weights are kept per point ([`point_weights`]):
/// [`bones_for`]'s bones, without their weights.
pub(super) fn point_skin_bones(clusters: &[Cluster<'_>]) -> Vec<Bone> {
    let (source, _) = first_of_each_bone(clusters);
    assemble_bones(clusters, &source, |_| Vec::new())
}

/// The part (index in `parts`, the material indices of a geometry split by material) and the
/// vertex within it of every corner (`u32::MAX`: in no part), in face order as the parts pick
/// their corners.
pub(super) fn corner_parts(geo: &MeshGeometry<'_>, parts: &[i32]) -> (Vec<u32>, Vec<u32>) {
    let corner_count = geo.corner_count();
    let mut part_of = vec![u32::MAX; corner_count];
    let mut vertex_of = vec![0u32; corner_count];
    let mut next = vec![0u32; parts.len()];
    let mut cursor = 0usize;
    for (f, &n) in geo.faces.iter().enumerate() {
        let part = geo
            .materials
            .get(f)
            .and_then(|m| parts.iter().position(|p| p == m));
        let end = (cursor + n as usize).min(corner_count);
        if let Some(p) = part
            && cursor < end
        {
            for (slot, vertex) in part_of[cursor..end]
                .iter_mut()
                .zip(&mut vertex_of[cursor..end])
            {
                *slot = p as u32;
                *vertex = next[p];
                next[p] += 1;
            }
        }
        cursor += n as usize;
    }
    (part_of, vertex_of)
}

/// The corners made from control point `index` (none when it is out of range), from
/// [`MeshGeometry::point_corners`]' offsets and corners, or from a list in the same order that
/// holds something else per corner (`split_bones`' (part, vertex) pairs).
fn corners_of_point<'c, T>(
    geo: &MeshGeometry<'_>,
    offsets: &[u32],
    corners: &'c [T],
    index: i32,
) -> &'c [T] {
    match usize::try_from(index)
        .ok()
        .filter(|&p| p < geo.control_points)
    {
        Some(cp) => &corners[offsets[cp] as usize..offsets[cp + 1] as usize],
        None => &[],
    }
}

/// For each cluster, the first cluster of the same bone name (a bone named twice in one skin
/// is listed twice with the first cluster's data), and the clusters that are their own first.
fn first_of_each_bone(clusters: &[Cluster<'_>]) -> (Vec<usize>, Vec<usize>) {
    let mut first: HashMap<&str, usize> = HashMap::new();
    let source: Vec<usize> = clusters
        .iter()
        .enumerate()
        .map(|(i, cl)| *first.entry(cl.bone.as_str()).or_insert(i))
        .collect();
    let todo: Vec<usize> = (0..clusters.len()).filter(|&i| source[i] == i).collect();
    (source, todo)
}

/// One bone per cluster in cluster order, with `weights(i)` for a cluster that is its bone's
/// first (`source[i] == i`) and a copy of the first's bone for the others.
fn assemble_bones(
    clusters: &[Cluster<'_>],
    source: &[usize],
    mut weights: impl FnMut(usize) -> Vec<VertexWeight>,
) -> Vec<Bone> {
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
            weights: weights(i),
        });
    }
    bones
}
