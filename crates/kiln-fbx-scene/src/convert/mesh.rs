//! Geometry and layers: `Geometry` objects (class `Mesh`, FBX 6.1 models with their own
//! geometry, and `Line`s) read once each ([`crate::geometry`]) and cut into output meshes,
//! one per material index in order of first use, one vertex per polygon corner; the skin
//! weights of each part are built beside its attributes.

use std::rc::Rc;
use std::sync::Arc;

use kiln_scene::{Mesh, NodeId, PrimitiveTypes, UvChannel, Vec3, Vec4, Warning};

use super::skin::{bones_for, point_skin_bones, point_weights, split_bones};
use super::{Cluster, Converter, Model};
use crate::codes;
use crate::geometry::{CornerPoints, GeometryOptions, Layer, MeshGeometry};
use crate::graph::{Object, strip_prefix};
use crate::par;

impl<'d, 'a> Converter<'_, 'd, 'a> {
    /// The mesh geometry of object `id` (a `Geometry` of class `Mesh` or `Line`, or a 6.1
    /// model), read once.
    pub(super) fn geometry(&mut self, id: u64) -> Option<Rc<MeshGeometry<'a>>> {
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
                    self.warn(
                        Warning::new(
                            codes::GEOMETRY_DROPPED,
                            format!("{what}: {}; the geometry is not imported", e.0),
                        )
                        .at(what),
                    );
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
            self.warn(
                Warning::new(
                    codes::GEOMETRY_DROPPED,
                    format!("{what}: Points or PointsIndex missing; not imported"),
                )
                .at(what),
            );
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

    /// The meshes of every geometry of `model`, attached to `node`.
    pub(super) fn convert_model_meshes(&mut self, model: &Model<'d, 'a>, node: NodeId) {
        let mut indices = Vec::new();
        for &gid in &model.geometries {
            indices.extend(self.convert_mesh(gid, model, node));
        }
        self.scene.nodes[node].meshes.extend(indices);
    }

    /// The output meshes of geometry `gid` (converted once; a geometry shared by several
    /// models gives its meshes to each).
    fn convert_mesh(&mut self, gid: u64, model: &Model<'d, 'a>, node: NodeId) -> Vec<usize> {
        if let Some(done) = self.meshes_converted.get(&gid) {
            return done.clone();
        }
        let Some(geo) = self.geometry(gid) else {
            return Vec::new();
        };
        let Some(obj) = self.g.object(gid).copied() else {
            return Vec::new();
        };
        let is_line = obj.class(self.g.legacy) == "Line";
        if is_line {
            let i = self.convert_line(&geo, &obj, node);
            self.meshes_converted.insert(gid, vec![i]);
            return vec![i];
        }
        if geo.corner_points.is_empty() || geo.faces.is_empty() {
            let d = self.describe(&obj);
            self.warn(
                Warning::new(
                    codes::GEOMETRY_EMPTY,
                    format!("{d}: empty geometry (no vertices or no polygons), ignored"),
                )
                .at(d),
            );
            return Vec::new();
        }
        let mats = &geo.materials;
        let multi = mats.first().is_some_and(|&b| mats.iter().any(|&m| m != b));
        // The parts' material indices, by first appearance (none: the geometry is one mesh).
        let parts: Vec<i32> = if multi {
            let n = mats.len().min(geo.faces.len());
            if mats.len() > geo.faces.len() {
                let d = self.describe(&obj);
                self.warn(
                    Warning::new(
                        codes::MATERIAL_INDICES_EXTRA,
                        format!(
                            "{d}: {} material indices for {} polygons; the extra ones are ignored",
                            mats.len(),
                            geo.faces.len()
                        ),
                    )
                    .at(d),
                );
            }
            let mut parts: Vec<i32> = Vec::new();
            for &m in &mats[..n] {
                if !parts.contains(&m) {
                    parts.push(m);
                }
            }
            parts
        } else {
            Vec::new()
        };
        let mut owned = self.take_geometry(gid, geo);
        let out = self.convert_mesh_parts(&mut owned, &obj, model, node, &parts);
        self.attach_morph_targets(&obj, &owned, &out, &parts);
        self.geometries.insert(gid, Some(Rc::new(owned)));
        self.meshes_converted.insert(gid, out.clone());
        out
    }

    /// Geometry `gid` (`geo`, read through [`Converter::geometry`]) out of the cache and
    /// owned, so that its parts can take its per-corner layers as they gather them (see
    /// [`CornerLayers`]); the caller puts it back, without them, once its meshes are made
    /// (a geometry's meshes are made once: `meshes_converted`). A copy only if something
    /// else still holds it (nothing does).
    fn take_geometry(&mut self, gid: u64, geo: Rc<MeshGeometry<'a>>) -> MeshGeometry<'a> {
        self.geometries.remove(&gid);
        Rc::try_unwrap(geo).unwrap_or_else(|shared| (*shared).clone())
    }

    /// The geometry's name without its class prefix, or the node's when it has none.
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

    /// A `Line` geometry as a mesh of 2-index faces.
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
                self.warn(
                    Warning::new(
                        codes::LINE_INDEX_OUT_OF_RANGE,
                        format!("{d}: line index past {n} points, segment ignored"),
                    )
                    .at(d),
                );
            }
        }
        mesh.primitive_types = PrimitiveTypes(PrimitiveTypes::LINE);
        if self.scene.materials.is_empty() {
            mesh.material = self.default_material();
        }
        self.scene.meshes.push(mesh);
        self.scene.meshes.len() - 1
    }

    /// The output meshes of a geometry: all of it (`parts` empty) or, for each material index
    /// of `parts` in turn, its polygons.
    ///
    /// What reads or changes the converter runs in the order one part after the other would
    /// run it (the first part's material, the skin, the other parts' materials, the meshes
    /// pushed in part order); the parts' vertex attributes and the skin weights, which read
    /// only the geometry and the clusters, are built side by side before (a body of four
    /// materials had its parts built one at a time, each on both threads for a while and on
    /// one for longer).
    fn convert_mesh_parts(
        &mut self,
        geo: &mut MeshGeometry<'_>,
        obj: &Object<'d, 'a>,
        model: &Model<'d, 'a>,
        node: NodeId,
        parts: &[i32],
    ) -> Vec<usize> {
        let materials: Vec<Option<i32>> = if parts.is_empty() {
            vec![None]
        } else {
            parts.iter().map(|&m| Some(m)).collect()
        };
        let first_material = self.part_material(model, geo, materials[0]);
        let skin = self.skin(obj.id);
        let clusters: Option<&[Cluster<'_>]> = skin.as_deref().map(Vec::as_slice);
        let point_skin = self.options.point_skin && clusters.is_some();
        let picked = part_corners(geo, parts);
        let layers = CornerLayers::take(geo);
        let geo: &MeshGeometry<'_> = geo;
        let (meshes, mut skin_data) = par::join(
            || part_meshes(geo, layers, &materials, &picked, point_skin),
            || match clusters {
                None => PartSkins::None,
                Some(c) if point_skin => PartSkins::Points(Arc::new(point_weights(geo, c))),
                Some(c) if !parts.is_empty() => PartSkins::Split(split_bones(geo, c, parts)),
                Some(c) => PartSkins::One(Some(bones_for(geo, c, None, None))),
            },
        );
        // The debug check below reads the picks again; a release build frees them here.
        #[cfg(not(debug_assertions))]
        drop(picked);
        let name = self.mesh_name(obj, node);
        let point_bones = match &skin_data {
            PartSkins::Points(_) => clusters.map(point_skin_bones),
            _ => None,
        };
        let mut out = Vec::with_capacity(meshes.len());
        for (k, (mut mesh, vertex_points)) in meshes.into_iter().enumerate() {
            let material_index = if k == 0 {
                first_material
            } else {
                self.part_material(model, geo, materials[k])
            };
            let bones = match &mut skin_data {
                PartSkins::None => None,
                PartSkins::Points(weights) => {
                    mesh.point_skin = Some(kiln_scene::PointSkin {
                        vertex_points: vertex_points.unwrap_or_default(),
                        weights: weights.clone(),
                    });
                    point_bones.clone()
                }
                PartSkins::Split(all) => all.get_mut(k).map(std::mem::take),
                PartSkins::One(bones) => bones.take(),
            };
            // Every test build checks the one-pass split against the per-part pass.
            #[cfg(debug_assertions)]
            if let (PartSkins::Split(_), Some(b), Some(c)) = (&skin_data, &bones, clusters) {
                assert_eq!(
                    bone_bits(b),
                    bone_bits(&bones_for(geo, c, materials[k], picked[k].as_deref()))
                );
            }
            mesh.name = name.clone();
            mesh.material = material_index;
            mesh.bones = bones.unwrap_or_default();
            self.scene.meshes.push(mesh);
            out.push(self.scene.meshes.len() - 1);
        }
        out
    }

    /// The material of the part of material index `material` (the geometry's first index for
    /// the whole geometry).
    fn part_material(
        &mut self,
        model: &Model<'d, 'a>,
        geo: &MeshGeometry<'_>,
        material: Option<i32>,
    ) -> usize {
        match material.or_else(|| geo.materials.first().copied()) {
            Some(mi) if self.options.read_materials => self.material_for_mesh(model, geo, mi),
            _ => self.default_material(),
        }
    }
}

/// The skin weights of a geometry's parts, built beside their attributes.
enum PartSkins {
    /// No skin.
    None,
    /// Kept per control point ([`crate::ImportOptions::point_skin`]), shared by the parts.
    Points(Arc<kiln_scene::PointWeights>),
    /// Each part's bones, split in one pass over the clusters (see `split_bones`).
    Split(Vec<Vec<kiln_scene::Bone>>),
    /// The bones of the whole geometry.
    One(Option<Vec<kiln_scene::Bone>>),
}

/// Each part's output corner → input corner (the corners of the polygons with material index
/// `parts[k]`, in order), in one pass over the faces; one `None` for the whole geometry
/// (`parts` empty: all corners in order).
fn part_corners(geo: &MeshGeometry<'_>, parts: &[i32]) -> Vec<Option<Vec<u32>>> {
    if parts.is_empty() {
        return vec![None];
    }
    let mut picked = vec![Vec::new(); parts.len()];
    let mut cursor = 0u32;
    for (f, &n) in geo.faces.iter().enumerate() {
        if let Some(k) = geo
            .materials
            .get(f)
            .and_then(|m| parts.iter().position(|p| p == m))
        {
            picked[k].extend(cursor..cursor + n);
        }
        cursor += n;
    }
    picked.into_iter().map(Some).collect()
}

/// Bones with their floats as bits, to compare exactly.
#[cfg(debug_assertions)]
#[allow(clippy::type_complexity)]
fn bone_bits(bones: &[kiln_scene::Bone]) -> Vec<(String, Vec<u32>, Vec<(u32, u32)>)> {
    bones
        .iter()
        .map(|b| {
            (
                b.name.clone(),
                b.offset_matrix.to_cols_array().map(f32::to_bits).to_vec(),
                b.weights
                    .iter()
                    .map(|w| (w.vertex, w.weight.to_bits()))
                    .collect(),
            )
        })
        .collect()
}

/// The control point of each vertex of a part (the corners `pk`, all corners when `None`),
/// `u32::MAX` for a corner whose index names no point: the vertices [`mesh_attributes`] makes,
/// and the points [`bones_for`] spreads weights from.
fn point_of_vertices(geo: &MeshGeometry<'_>, pk: Option<&[u32]>) -> Vec<u32> {
    let cp = &geo.corner_points;
    let valid = |p: u32| {
        if (p as usize) < geo.control_points {
            p
        } else {
            u32::MAX
        }
    };
    match pk {
        None => cp.map_collect(valid),
        Some(pk) => pk
            .iter()
            .map(|&c| cp.get(c as usize).map_or(u32::MAX, valid))
            .collect(),
    }
}

/// The per-corner layers of a geometry, taken out of it for its parts to gather: each
/// group is freed once every part has gathered it, the frames (normals, often the largest
/// layer, three floats a corner) before the UVs and colours are gathered. At 400k triangles
/// the import's peak fell by the 9 MB of per-corner normals (stop 36), which had stayed
/// beside all four parts' gathered attributes.
struct CornerLayers<'a> {
    normals: Layer<'a, [f32; 3]>,
    tangents: Layer<'a, [f32; 3]>,
    binormals: Layer<'a, [f32; 3]>,
    /// The UV channels in use, with their names.
    uvs: Vec<(Layer<'a, [f32; 2]>, String)>,
    /// The colour channels in use.
    colors: Vec<Layer<'a, [f32; 4]>>,
}

impl<'a> CornerLayers<'a> {
    /// The layers of `geo`, which keeps none.
    fn take(geo: &mut MeshGeometry<'a>) -> Self {
        let (uvs, colors) = (geo.uv_count(), geo.color_count());
        CornerLayers {
            normals: std::mem::take(&mut geo.normals),
            tangents: std::mem::take(&mut geo.tangents),
            binormals: std::mem::take(&mut geo.binormals),
            uvs: (geo.uvs[..uvs].iter_mut())
                .zip(&mut geo.uv_names)
                .map(|(uv, name)| (std::mem::take(uv), std::mem::take(name)))
                .collect(),
            colors: geo.colors[..colors]
                .iter_mut()
                .map(std::mem::take)
                .collect(),
        }
    }

    /// The normals, tangents and bitangents of the corners `pk` (all when `None`): tangents
    /// only with bitangents, the file's or normal × tangent.
    fn frames(&self, cp: &CornerPoints<'_>, pk: Option<&[u32]>) -> Frames {
        let derive_binormals = self.binormals.is_empty() && !self.normals.is_empty();
        let with_tangents =
            !self.tangents.is_empty() && (!self.binormals.is_empty() || derive_binormals);
        let normals = if self.normals.is_empty() {
            Vec::new()
        } else {
            self.normals.gather(cp, pk, Vec3::from_array)
        };
        if !with_tangents {
            return (normals, Vec::new(), Vec::new());
        }
        let tangents = self.tangents.gather(cp, pk, Vec3::from_array);
        let bitangents = if derive_binormals {
            normals
                .iter()
                .zip(&tangents)
                .map(|(n, t)| n.cross(*t))
                .collect()
        } else {
            self.binormals.gather(cp, pk, Vec3::from_array)
        };
        (normals, tangents, bitangents)
    }

    /// The UV and colour channels of the corners `pk` (all when `None`).
    fn channels(&self, cp: &CornerPoints<'_>, pk: Option<&[u32]>) -> Channels {
        let uvs = (self.uvs.iter())
            .map(|(uv, name)| UvChannel {
                components: 2,
                coords: uv.gather(cp, pk, |v| Vec3::new(v[0], v[1], 0.0)),
                name: name.clone(),
            })
            .collect();
        let colors = (self.colors.iter())
            .map(|col| col.gather(cp, pk, Vec4::from_array))
            .collect();
        (uvs, colors)
    }
}

/// A part's normals, tangents and bitangents.
type Frames = (Vec<Vec3>, Vec<Vec3>, Vec<Vec3>);
/// A part's UV and colour channels.
type Channels = (Vec<UvChannel>, Vec<Vec<Vec4>>);

/// The output meshes of a geometry, one per entry of `materials` (the polygons with that
/// material, all when `None`), each the corners `picked[k]` (all when `None`), one vertex per
/// corner; and, with `point_skin`, the control point of each vertex. A part with a per-point
/// skin has no [`kiln_scene::SharedPositions`]: its skin names each vertex's point already,
/// which tangent smoothing reads instead.
///
/// Gathered a group of layers at a time over all parts, each group dropped once gathered
/// (see [`CornerLayers`]): first the frames beside the positions and faces, then the
/// channels.
fn part_meshes(
    geo: &MeshGeometry<'_>,
    mut layers: CornerLayers<'_>,
    materials: &[Option<i32>],
    picked: &[Option<Vec<u32>>],
    point_skin: bool,
) -> Vec<(Mesh, Option<Vec<u32>>)> {
    let cp = &geo.corner_points;
    let order: Vec<usize> = (0..materials.len()).collect();
    let pk = |k: usize| picked[k].as_deref();
    let first = par::map(&order, |&k| {
        par::join(
            || layers.frames(cp, pk(k)),
            || part_shape(geo, materials[k], pk(k), point_skin),
        )
    });
    (layers.normals, layers.tangents, layers.binormals) = (Layer::None, Layer::None, Layer::None);
    let channels = par::map(&order, |&k| layers.channels(cp, pk(k)));
    drop(layers);
    first
        .into_iter()
        .zip(channels)
        .map(
            |(((normals, tangents, bitangents), (mut mesh, vertex_points)), (uvs, colors))| {
                (mesh.normals, mesh.tangents, mesh.bitangents) = (normals, tangents, bitangents);
                (mesh.uv_channels, mesh.color_channels) = (uvs, colors);
                (mesh, vertex_points)
            },
        )
        .collect()
}

/// The part of material `material` (all polygons when `None`), the corners `pk` (all when
/// `None`), with its positions and faces: without `point_skin`, which vertices share a
/// control point ([`kiln_scene::SharedPositions`], `None` when a corner names no point: its
/// vertex is at the origin, made from none); with it, beside the mesh, the control point of
/// each vertex.
fn part_shape(
    geo: &MeshGeometry<'_>,
    material: Option<i32>,
    pk: Option<&[u32]>,
    point_skin: bool,
) -> (Mesh, Option<Vec<u32>>) {
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
    let points = || {
        let of_vertex = point_of_vertices(geo, pk);
        if point_skin {
            return (None, Some(of_vertex));
        }
        let shared =
            kiln_scene::SharedPositions::numbered(of_vertex, geo.control_points, &mut Vec::new());
        (shared, None)
    };
    let ((positions, (shared_positions, vertex_points)), (face_sizes, indices, bits)) =
        par::join(|| par::join(positions, points), faces);
    let mesh = Mesh {
        positions,
        face_sizes,
        indices,
        primitive_types: PrimitiveTypes(bits),
        shared_positions,
        ..Mesh::default()
    };
    (mesh, vertex_points)
}
