//! `Geometry` (class `Mesh`, or an FBX 6.1 `Model` holding its geometry): control points,
//! `PolygonVertexIndex` unrolled to one vertex per polygon corner, and the layer elements
//! resolved per corner, exactly as Assimp 5.2's `MeshGeometry` does:
//! - only the `LayerElement`s that a `Layer` lists are read (first matching `TypedIndex`);
//! - normals, tangents, binormals and the material layer: the first one that yields data;
//! - UV sets and colour sets by their index (0..8);
//! - `ByPolygonVertex` and `ByVertice` with `Direct` and `IndexToDirect` (an `IndexToDirect`
//!   element without its index array reads as `Direct`); other combinations are ignored with
//!   a warning, unless [`crate::ImportOptions::all_layer_mappings`] asks for `ByPolygon`,
//!   `AllSame`, `ByVertex` and `Index` too;
//! - materials: `AllSame` (one index for every corner) or `ByPolygon` + `IndexToDirect`
//!   (resized to the face count); all negative means no material layer.
//!
//! An index past the data (`IndexToDirect`) or a polygon index past the control points makes
//! the whole geometry unusable (Assimp drops it): [`GeometryError`].

use std::borrow::Cow;

use kiln_fbx::Node;
use kiln_scene::Warning;

use crate::arrays::{Floats, Inflated, Ints};
use crate::codes;
use crate::graph::string_child;
use crate::par;

/// A layer's values and how each polygon corner finds its own.
#[derive(Clone, Debug, Default)]
pub enum Layer<'a, T> {
    /// No data.
    #[default]
    None,
    /// One value per corner (`ByPolygonVertex`/`Direct`, or resolved).
    PerCorner(Vec<T>),
    /// One value per control point (`ByVertice`).
    PerPoint(Vec<T>),
    /// Values and one index per corner (`ByPolygonVertex`/`IndexToDirect`), the index array
    /// as the file holds it (read in place when plain): checked when read, so each entry is
    /// -1 (the default value) or a valid index.
    Indexed { values: Vec<T>, index: Ints<'a> },
}

/// The control point of each polygon corner: `PolygonVertexIndex` as the file holds it (read
/// in place when plain), the end markers (`-p - 1`) decoded on access.
#[derive(Clone, Debug, Default)]
pub struct CornerPoints<'a>(pub Ints<'a>);

/// `PolygonVertexIndex` entry → control point (`!x` is `-x - 1`).
#[inline]
fn point_of(x: i32) -> u32 {
    (x ^ (x >> 31)) as u32
}

impl CornerPoints<'_> {
    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The control point of corner `c`.
    #[inline]
    pub fn get(&self, c: usize) -> Option<u32> {
        self.0.get(c).map(point_of)
    }

    /// The control points of all corners, in order.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.0.iter().map(point_of)
    }

    /// `f` of every corner's control point, in order (the storage is matched once, outside
    /// the loop).
    pub fn map_collect<O>(&self, mut f: impl FnMut(u32) -> O) -> Vec<O> {
        match &self.0 {
            Ints::Le(s) => s.iter().map(|x| f(point_of(x))).collect(),
            Ints::Owned(v) => v.iter().map(|&x| f(point_of(x))).collect(),
        }
    }

    /// Calls `f` with each corner's index and control point, in order.
    pub fn for_each(&self, mut f: impl FnMut(usize, u32)) {
        match &self.0 {
            Ints::Le(s) => s.iter().enumerate().for_each(|(c, x)| f(c, point_of(x))),
            Ints::Owned(v) => v.iter().enumerate().for_each(|(c, &x)| f(c, point_of(x))),
        }
    }
}

impl<T: Copy + Default> Layer<'_, T> {
    pub fn is_empty(&self) -> bool {
        matches!(self, Layer::None)
    }

    /// The values of the corners `picked` (all corners in order when `None`), each through
    /// `f`: one output vector written once, with the layout decided outside the loop.
    pub fn gather<O>(
        &self,
        corner_points: &CornerPoints<'_>,
        picked: Option<&[u32]>,
        f: impl Fn(T) -> O,
    ) -> Vec<O> {
        let get = |v: &[T], i: usize| v.get(i).copied().unwrap_or_default();
        let n = corner_points.len();
        // An index of -1 (or, defensively, anything past the values) reads as the default.
        let at = |values: &[T], i: Option<i32>| match i {
            Some(i) if i >= 0 => get(values, i as usize),
            _ => T::default(),
        };
        match (self, picked) {
            (Layer::None, None) => (0..n).map(|_| f(T::default())).collect(),
            (Layer::None, Some(p)) => p.iter().map(|_| f(T::default())).collect(),
            (Layer::PerCorner(v), None) if v.len() == n => v.iter().map(|&x| f(x)).collect(),
            (Layer::PerCorner(v), None) => (0..n).map(|c| f(get(v, c))).collect(),
            (Layer::PerCorner(v), Some(p)) => p.iter().map(|&c| f(get(v, c as usize))).collect(),
            (Layer::PerPoint(v), None) => corner_points.map_collect(|pt| f(get(v, pt as usize))),
            (Layer::PerPoint(v), Some(p)) => p
                .iter()
                .map(|&c| {
                    let pt = corner_points.get(c as usize).unwrap_or(u32::MAX);
                    f(get(v, pt as usize))
                })
                .collect(),
            (Layer::Indexed { values, index }, None) => index
                .iter()
                .take(n)
                .map(|i| f(at(values, Some(i))))
                .chain((index.len()..n).map(|_| f(T::default())))
                .collect(),
            (Layer::Indexed { values, index }, Some(p)) => p
                .iter()
                .map(|&c| f(at(values, index.get(c as usize))))
                .collect(),
        }
    }
}

/// One layer element's decoded data, before [`MeshGeometry::apply_element`] decides whether
/// it is used.
enum Decoded<'a> {
    /// `MappingInformationType` or `ReferenceInformationType` is missing.
    NoMapping,
    Uv(String, Result<Layer<'a, [f32; 2]>, GeometryError>),
    V3(Result<Layer<'a, [f32; 3]>, GeometryError>),
    V4(Result<Layer<'a, [f32; 4]>, GeometryError>),
    Materials(Result<Vec<i32>, GeometryError>),
    /// A type that is not read, or a set index past 8.
    Nothing,
}

/// A geometry: control points, polygons over them, and layer elements that every polygon
/// corner resolves through (Assimp unrolls all of it per corner; here the output meshes are
/// cut straight from the indices, with the same result).
#[derive(Clone, Debug, Default)]
pub struct MeshGeometry<'a> {
    /// Control points.
    pub points: Vec<[f32; 3]>,
    /// Control point of each corner, including the corners of an unterminated last polygon,
    /// which Assimp keeps as vertices.
    pub corner_points: CornerPoints<'a>,
    /// Corner count of each complete polygon (`m_faces`).
    pub faces: Vec<u32>,
    /// Number of control points.
    pub control_points: usize,
    pub normals: Layer<'a, [f32; 3]>,
    pub tangents: Layer<'a, [f32; 3]>,
    pub binormals: Layer<'a, [f32; 3]>,
    pub uvs: [Layer<'a, [f32; 2]>; 8],
    pub uv_names: [String; 8],
    pub colors: [Layer<'a, [f32; 4]>; 8],
    /// Material index per face (or per corner for `AllSame`).
    pub materials: Vec<i32>,
}

/// Why a geometry cannot be used.
#[derive(Clone, Debug, PartialEq)]
pub struct GeometryError(pub String);

/// Reading options.
#[derive(Clone, Copy, Debug, Default)]
pub struct GeometryOptions {
    pub all_layer_mappings: bool,
}

fn err<T>(msg: impl Into<String>) -> Result<T, GeometryError> {
    Err(GeometryError(msg.into()))
}

fn f64s(node: &Node<'_, '_>) -> Result<Vec<f64>, GeometryError> {
    node.f64_values()
        .map(|c| c.into_owned())
        .map_err(|e| GeometryError(format!("{}: {e}", node.name())))
}

/// The node's integers, borrowed from the input when a plain aligned array holds them.
fn i32s<'a>(node: &Node<'_, 'a>) -> Result<Cow<'a, [i32]>, GeometryError> {
    match node.i32_values() {
        Ok(c) => Ok(c),
        // Some writers store indices as doubles.
        Err(_) => Ok(Cow::Owned(
            f64s(node)?.into_iter().map(|v| v as i32).collect(),
        )),
    }
}

/// A warning about `at` (the geometry, or one of its layer elements, as messages name it).
fn warning(code: &'static str, at: &str, message: String) -> Warning {
    Warning::new(code, message).at(at)
}

/// `PolygonVertexIndex` → the corner count of each complete polygon; `Err(index)` for an
/// index past the `n` control points.
fn read_polygons(indices: impl ExactSizeIterator<Item = i32>, n: usize) -> Result<Vec<u32>, i32> {
    let mut faces = Vec::with_capacity(indices.len() / 3);
    let mut count = 0u32;
    for index in indices {
        if point_of(index) as usize >= n {
            return Err(index);
        }
        count += 1;
        if index < 0 {
            faces.push(count);
            count = 0;
        }
    }
    Ok(faces)
}

/// The number of control points a `Vertices` node holds (its value count / 3).
fn vnode_count(node: &Node<'_, '_>) -> usize {
    match node.value(0) {
        Some(kiln_fbx::Value::Array(a)) if node.property_count() == 1 => a.len() / 3,
        _ => node.property_count() / 3,
    }
}

/// The node's numbers in groups of `N` as `f32`: binary `f64`/`f32` arrays are converted
/// straight from their (inflated) bytes, anything else through `f64`.
fn chunks<const N: usize>(
    node: &Node<'_, '_>,
    arrays: &Inflated<'_>,
    warnings: &mut Vec<Warning>,
    what: &str,
) -> Result<Vec<[f32; N]>, GeometryError> {
    let ragged = |n: usize, warnings: &mut Vec<Warning>| {
        if !n.is_multiple_of(N) {
            warnings.push(warning(
                codes::ARRAY_RAGGED,
                what,
                format!("{what}: {n} values is not a multiple of {N}; the rest is ignored"),
            ));
        }
    };
    if let Some(f) = arrays.floats(node) {
        ragged(f.len(), warnings);
        return Ok(f.groups::<N>());
    }
    if let Some(kiln_fbx::Value::Array(a)) = node.value(0) {
        let binary = !matches!(a.encoding(), kiln_fbx::ArrayEncoding::Text(_));
        let float = matches!(a.ty(), kiln_fbx::ArrayType::F64 | kiln_fbx::ArrayType::F32);
        if node.property_count() == 1 && binary && float {
            // Compressed and not decoded up front: inflate now, converting as it goes.
            let v = a
                .decode::<f32>()
                .map_err(|e| GeometryError(format!("{}: {e}", node.name())))?;
            ragged(v.len(), warnings);
            return Ok(Floats::Owned(v.into_owned()).groups::<N>());
        }
    }
    let v = f64s(node)?;
    ragged(v.len(), warnings);
    Ok(v.chunks_exact(N)
        .map(|c| core::array::from_fn(|k| c[k] as f32))
        .collect())
}

impl<'a> MeshGeometry<'a> {
    /// Reads the geometry stored in `scope` (a `Geometry` node, or a 6.1 `Model`). `what`
    /// names it in messages; warnings go to `warnings`.
    pub fn read(
        scope: &Node<'_, 'a>,
        what: &str,
        options: GeometryOptions,
        arrays: &Inflated<'_>,
        warnings: &mut Vec<Warning>,
    ) -> Result<MeshGeometry<'a>, GeometryError> {
        let Some(vnode) = scope.child("Vertices") else {
            return err("no Vertices");
        };
        let Some(inode) = scope.child("PolygonVertexIndex") else {
            return err("no PolygonVertexIndex");
        };
        // Control points and polygons are independent: decoded side by side.
        let mut point_warnings = Vec::new();
        let (points, polygons) = par::join(
            || {
                chunks::<3>(
                    &vnode,
                    arrays,
                    &mut point_warnings,
                    &format!("{what} Vertices"),
                )
            },
            || -> Result<(CornerPoints<'a>, Vec<u32>, usize), GeometryError> {
                let points = vnode_count(&vnode);
                // A plain array is read in place, without a copy.
                let ints = match arrays.ints(&inode) {
                    Some(i) => i,
                    None => Ints::Owned(i32s(&inode)?.into_owned()),
                };
                let faces = read_polygons(ints.iter(), points).map_err(|index| {
                    GeometryError(format!(
                        "polygon vertex index {index} out of range ({points} control points)"
                    ))
                })?;
                Ok((CornerPoints(ints), faces, points))
            },
        );
        let points = points?;
        warnings.append(&mut point_warnings);
        let (corner_points, faces, counted) = polygons?;
        let mut g = MeshGeometry {
            control_points: points.len(),
            corner_points,
            faces,
            ..MeshGeometry::default()
        };
        if counted != points.len() {
            // Only when `Vertices` is not a plain f64/f32 array and its count was a guess: redo
            // the range check against the decoded points.
            if let Some(p) = g.corner_points.iter().find(|&p| p as usize >= points.len()) {
                return err(format!(
                    "polygon vertex index {p} out of range ({} control points)",
                    points.len()
                ));
            }
        }
        let count = g.corner_points.len() - g.faces.iter().map(|&f| f as usize).sum::<usize>();
        if count != 0 {
            warnings.push(warning(
                codes::POLYGON_UNTERMINATED,
                what,
                format!(
                    "{what}: the last polygon ({count} corners) has no end marker and is dropped"
                ),
            ));
        }
        g.points = points;

        // The layer elements a `Layer` lists, in order, up to the first malformed one.
        let mut elements = Vec::new();
        let mut malformed = false;
        'layers: for layer in scope.children_named("Layer") {
            for le in layer.children_named("LayerElement") {
                let (Some(ty), Some(typed_index)) = (
                    string_child(&le, "Type"),
                    le.child("TypedIndex").and_then(|t| t.get_i64(0).ok()),
                ) else {
                    malformed = true;
                    break 'layers;
                };
                let found = scope
                    .children_named(&ty)
                    .find(|c| c.get_i64(0).ok() == Some(typed_index));
                elements.push((ty, typed_index, found));
            }
        }
        // Each element's arrays are decoded in parallel; what they mean for the geometry
        // (the first normal layer wins, and so on) is decided in file order afterwards.
        let decoded = par::map(&elements, |(ty, index, source)| {
            let mut w = Vec::new();
            let d = source
                .as_ref()
                .map(|source| g.decode_element(ty, *index, source, what, options, arrays, &mut w));
            (d, w)
        });
        for ((ty, index, _), (d, w)) in elements.iter().zip(decoded) {
            match d {
                Some(d) => g.apply_element(ty, *index, what, d, w, warnings)?,
                None => warnings.push(warning(
                    codes::LAYER_MISSING,
                    what,
                    format!("{what}: layer element {ty} {index} not found"),
                )),
            }
        }
        if malformed {
            return err("LayerElement without Type or TypedIndex");
        }
        Ok(g)
    }

    /// Decodes one layer element (`ReadVertexData` without the decisions that depend on the
    /// elements before it).
    #[allow(clippy::too_many_arguments)]
    fn decode_element(
        &self,
        ty: &str,
        index: i64,
        source: &Node<'_, 'a>,
        what: &str,
        options: GeometryOptions,
        arrays: &Inflated<'_>,
        warnings: &mut Vec<Warning>,
    ) -> Result<Decoded<'a>, GeometryError> {
        let ctx = format!("{what} {ty} {index}");
        let given = (
            string_child(source, "MappingInformationType"),
            string_child(source, "ReferenceInformationType"),
        );
        let (mapping, reference) = match given {
            (Some(m), Some(r)) => (m, r),
            (m, r) => {
                let Some((am, ar)) = self.assumed_mapping(ty, source, m.as_deref(), r.as_deref())
                else {
                    return Ok(Decoded::NoMapping);
                };
                warnings.push(warning(
                    codes::LAYER_MAPPING_ASSUMED,
                    &ctx,
                    format!(
                        "{ctx}: MappingInformationType or ReferenceInformationType missing; {am} and {ar} assumed from its arrays"
                    ),
                ));
                (am, ar)
            }
        };
        let slot = usize::try_from(index).ok().filter(|&i| i < 8);
        Ok(match ty {
            "LayerElementUV" if slot.is_some() => Decoded::Uv(
                string_child(source, "Name").unwrap_or_default(),
                self.resolve(
                    source, &mapping, &reference, "UV", "UVIndex", &ctx, options, arrays, warnings,
                ),
            ),
            "LayerElementMaterial" => Decoded::Materials(
                self.read_materials(source, &mapping, &reference, &ctx, options, warnings),
            ),
            "LayerElementNormal" => Decoded::V3(self.resolve(
                source,
                &mapping,
                &reference,
                "Normals",
                "NormalsIndex",
                &ctx,
                options,
                arrays,
                warnings,
            )),
            "LayerElementTangent" | "LayerElementBinormal" => {
                let base = if ty == "LayerElementTangent" {
                    "Tangent"
                } else {
                    "Binormal"
                };
                let plural = format!("{base}s");
                let (d, i) = if source.child(&plural).is_some() {
                    (plural.clone(), format!("{plural}Index"))
                } else {
                    (base.to_string(), format!("{base}Index"))
                };
                Decoded::V3(self.resolve(
                    source, &mapping, &reference, &d, &i, &ctx, options, arrays, warnings,
                ))
            }
            "LayerElementColor" if slot.is_some() => Decoded::V4(self.resolve(
                source,
                &mapping,
                &reference,
                "Colors",
                "ColorIndex",
                &ctx,
                options,
                arrays,
                warnings,
            )),
            _ => Decoded::Nothing,
        })
    }

    /// The mapping and reference a layer element without them has, from its arrays (ufbx's
    /// rule): an index array means `IndexToDirect`, else `Direct`; the count of what is mapped
    /// (the indices, or the values) gives the mapping: one per polygon corner, control point or
    /// polygon, or one for all. `None` when no count fits.
    fn assumed_mapping(
        &self,
        ty: &str,
        source: &Node<'_, 'a>,
        mapping: Option<&str>,
        reference: Option<&str>,
    ) -> Option<(String, String)> {
        let (data, index, components): (&str, &str, usize) = match ty {
            "LayerElementUV" => ("UV", "UVIndex", 2),
            "LayerElementNormal" => ("Normals", "NormalsIndex", 3),
            "LayerElementTangent" => ("Tangents", "TangentsIndex", 3),
            "LayerElementBinormal" => ("Binormals", "BinormalsIndex", 3),
            "LayerElementColor" => ("Colors", "ColorIndex", 4),
            "LayerElementMaterial" => ("Materials", "", 1),
            _ => return None,
        };
        let len = |name: &str| -> Option<usize> {
            match source.child(name)?.value(0)? {
                kiln_fbx::Value::Array(a) => Some(a.len()),
                _ => None,
            }
        };
        let reference = match reference {
            Some(r) => r.to_string(),
            None if ty == "LayerElementMaterial" || len(index).is_some() => "IndexToDirect".into(),
            None => "Direct".into(),
        };
        if let Some(m) = mapping {
            return Some((m.to_string(), reference));
        }
        let count = if reference == "IndexToDirect" && ty != "LayerElementMaterial" {
            len(index)?
        } else {
            len(data)? / components
        };
        let mapping = if count == self.corner_count() {
            "ByPolygonVertex"
        } else if count == self.control_points {
            "ByVertice"
        } else if count == self.faces.len() {
            "ByPolygon"
        } else if count == 1 {
            "AllSame"
        } else {
            return None;
        };
        Some((mapping.to_string(), reference))
    }

    /// Applies a decoded layer element in file order (`ReadVertexData`'s decisions: the first
    /// normal, tangent, binormal and material layer win; UV and colour sets by index).
    fn apply_element(
        &mut self,
        ty: &str,
        index: i64,
        what: &str,
        decoded: Result<Decoded<'a>, GeometryError>,
        mut decode_warnings: Vec<Warning>,
        warnings: &mut Vec<Warning>,
    ) -> Result<(), GeometryError> {
        let decoded = decoded?;
        if let Decoded::NoMapping = decoded {
            return err(format!(
                "{ty} {index}: MappingInformationType or ReferenceInformationType missing"
            ));
        }
        let ctx = format!("{what} {ty} {index}");
        let slot = usize::try_from(index).ok().filter(|&i| i < 8);
        match (ty, decoded) {
            ("LayerElementUV", Decoded::Uv(name, layer)) => {
                let slot = slot.unwrap_or(0);
                warnings.append(&mut decode_warnings);
                self.uv_names[slot] = name;
                self.uvs[slot] = layer?;
            }
            ("LayerElementUV", _) => warnings.push(warning(
                codes::LAYER_EXTRA,
                &ctx,
                format!("{ctx}: more than 8 UV sets, ignored"),
            )),
            ("LayerElementMaterial", Decoded::Materials(mats)) => {
                if !self.materials.is_empty() {
                    warnings.push(warning(
                        codes::LAYER_EXTRA,
                        &ctx,
                        format!("{ctx}: additional material layer ignored"),
                    ));
                    return Ok(());
                }
                warnings.append(&mut decode_warnings);
                let mats = mats?;
                if !mats.is_empty() && mats.iter().all(|&m| m < 0) {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        &ctx,
                        format!("{ctx}: material layer of only -1 ignored"),
                    ));
                    return Ok(());
                }
                self.materials = mats;
            }
            (
                "LayerElementNormal" | "LayerElementTangent" | "LayerElementBinormal",
                Decoded::V3(layer),
            ) => {
                let (target, name) = match ty {
                    "LayerElementNormal" => (&mut self.normals, "normal"),
                    "LayerElementTangent" => (&mut self.tangents, "tangent"),
                    _ => (&mut self.binormals, "binormal"),
                };
                if !target.is_empty() {
                    warnings.push(warning(
                        codes::LAYER_EXTRA,
                        &ctx,
                        format!("{ctx}: additional {name} layer ignored"),
                    ));
                    return Ok(());
                }
                warnings.append(&mut decode_warnings);
                *target = layer?;
            }
            ("LayerElementColor", Decoded::V4(layer)) => {
                warnings.append(&mut decode_warnings);
                self.colors[slot.unwrap_or(0)] = layer?;
            }
            ("LayerElementColor", _) => warnings.push(warning(
                codes::LAYER_EXTRA,
                &ctx,
                format!("{ctx}: more than 8 colour sets, ignored"),
            )),
            _ => {}
        }
        Ok(())
    }

    /// `ResolveVertexDataArray`: how the layer's values map to corners, or `Layer::None` when
    /// the layer is ignored.
    #[allow(clippy::too_many_arguments)]
    fn resolve<const N: usize>(
        &self,
        source: &Node<'_, 'a>,
        mapping: &str,
        reference: &str,
        data_name: &str,
        index_name: &str,
        ctx: &str,
        options: GeometryOptions,
        arrays: &Inflated<'_>,
        warnings: &mut Vec<Warning>,
    ) -> Result<Layer<'a, [f32; N]>, GeometryError> {
        let data_node = source.child(data_name);
        let index_node = source.child(index_name);
        let wants_index =
            reference == "IndexToDirect" || (options.all_layer_mappings && reference == "Index");
        // The index array, when the reference type uses one and the file has it; without it an
        // indexed layer is read as direct.
        let index = index_node.filter(|_| wants_index);
        let direct = reference == "Direct" || (wants_index && index.is_none());
        let mapping = match mapping {
            "ByVertex" if options.all_layer_mappings => "ByVertice",
            m => m,
        };
        let corners = self.corner_points.len();
        let Some(data_node) = data_node else {
            if (direct || index.is_some())
                && matches!(
                    mapping,
                    "ByVertice" | "ByPolygonVertex" | "ByPolygon" | "AllSame"
                )
            {
                warnings.push(warning(
                    codes::LAYER_DROPPED,
                    ctx,
                    format!("{ctx}: no {data_name} array"),
                ));
            } else {
                warnings.push(warning(
                    codes::LAYER_MAPPING_UNSUPPORTED,
                    ctx,
                    format!("{ctx}: mapping {mapping}/{reference} not supported, ignored"),
                ));
            }
            return Ok(Layer::None);
        };
        let data: Vec<[f32; N]> = chunks(&data_node, arrays, warnings, ctx)?;
        let out_of_range = |i: i32, len: usize| {
            GeometryError(format!(
                "{ctx}: {index_name} {i} out of range ({len} values)"
            ))
        };
        let check = |i: i32, len: usize| -> Result<u32, GeometryError> {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < len)
                .map(|i| i as u32)
                .ok_or_else(|| out_of_range(i, len))
        };
        match (mapping, direct, index) {
            ("ByVertice", true, _) => {
                if data.len() != self.control_points {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!(
                            "{ctx}: {} values for {} control points (ByVertice), ignored",
                            data.len(),
                            self.control_points
                        ),
                    ));
                    return Ok(Layer::None);
                }
                Ok(Layer::PerPoint(data))
            }
            ("ByVertice", _, Some(index)) => {
                let idx = i32s(&index)?;
                if idx.len() != self.control_points {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!(
                            "{ctx}: {} indices for {} control points (ByVertice), ignored",
                            idx.len(),
                            self.control_points
                        ),
                    ));
                    return Ok(Layer::None);
                }
                // Only the control points that polygons use are checked (as Assimp does).
                let mut used = vec![false; self.control_points];
                for p in self.corner_points.iter() {
                    if let Some(u) = used.get_mut(p as usize) {
                        *u = true;
                    }
                }
                let mut out = Vec::with_capacity(idx.len());
                for (p, &i) in idx.iter().enumerate() {
                    out.push(if used[p] {
                        data[check(i, data.len())? as usize]
                    } else {
                        [0.0; N]
                    });
                }
                Ok(Layer::PerPoint(out))
            }
            ("ByPolygonVertex", true, _) => {
                if data.len() != corners {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!(
                            "{ctx}: {} values for {corners} polygon corners, ignored",
                            data.len()
                        ),
                    ));
                    return Ok(Layer::None);
                }
                Ok(Layer::PerCorner(data))
            }
            ("ByPolygonVertex", _, Some(index)) => {
                let ints = match arrays.ints(&index) {
                    Some(i) => i,
                    None => Ints::Owned(i32s(&index)?.into_owned()),
                };
                let len = ints.len();
                if len > corners {
                    warnings.push(warning(
                        codes::LAYER_TRIMMED,
                        ctx,
                        format!("{ctx}: {len} indices for {corners} polygon corners, trimmed"),
                    ));
                }
                if len < corners {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!("{ctx}: {len} indices for {corners} polygon corners, ignored"),
                    ));
                    return Ok(Layer::None);
                }
                // Checked here, kept as the file has it (read in place when plain).
                let len = data.len();
                if let Some(bad) = ints
                    .iter()
                    .take(corners)
                    .find(|&i| i != -1 && (i < 0 || i as usize >= len))
                {
                    return Err(out_of_range(bad, len));
                }
                Ok(Layer::Indexed {
                    values: data,
                    index: ints,
                })
            }
            ("ByPolygon", _, _) if options.all_layer_mappings => {
                let per_face: Vec<[f32; N]> = if let Some(index) = index {
                    let idx = i32s(&index)?;
                    idx.iter()
                        .map(|&i| check(i, data.len()).map(|i| data[i as usize]))
                        .collect::<Result<_, _>>()?
                } else {
                    data
                };
                if per_face.len() < self.faces.len() {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!(
                            "{ctx}: {} values for {} polygons (ByPolygon), ignored",
                            per_face.len(),
                            self.faces.len()
                        ),
                    ));
                    return Ok(Layer::None);
                }
                let mut out = Vec::with_capacity(corners);
                for (&v, &n) in per_face.iter().zip(&self.faces) {
                    out.extend((0..n).map(|_| v));
                }
                out.resize(corners, [0.0; N]);
                Ok(Layer::PerCorner(out))
            }
            ("AllSame", _, _) if options.all_layer_mappings => {
                let v = if let Some(index) = index {
                    let idx = i32s(&index)?;
                    let i = check(idx.first().copied().unwrap_or(0), data.len())?;
                    data[i as usize]
                } else {
                    match data.first() {
                        Some(v) => *v,
                        None => {
                            warnings.push(warning(
                                codes::LAYER_DROPPED,
                                ctx,
                                format!("{ctx}: AllSame without a value, ignored"),
                            ));
                            return Ok(Layer::None);
                        }
                    }
                };
                Ok(Layer::PerCorner(vec![v; corners]))
            }
            _ => {
                warnings.push(warning(
                    codes::LAYER_MAPPING_UNSUPPORTED,
                    ctx,
                    format!("{ctx}: mapping {mapping}/{reference} is ignored (as Assimp 5.2 does)"),
                ));
                Ok(Layer::None)
            }
        }
    }

    fn read_materials(
        &self,
        source: &Node<'_, '_>,
        mapping: &str,
        reference: &str,
        ctx: &str,
        options: GeometryOptions,
        warnings: &mut Vec<Warning>,
    ) -> Result<Vec<i32>, GeometryError> {
        if self.faces.is_empty() {
            return Ok(Vec::new());
        }
        let Some(node) = source.child("Materials") else {
            return err(format!("{ctx}: no Materials array"));
        };
        let mut mats = i32s(&node)?.into_owned();
        match mapping {
            "AllSame" => {
                if mats.is_empty() {
                    warnings.push(warning(
                        codes::LAYER_DROPPED,
                        ctx,
                        format!("{ctx}: AllSame without an index, ignored"),
                    ));
                    return Ok(mats);
                }
                if mats.len() > 1 {
                    // Assimp 5.2 clears the array before taking its first element, so the
                    // index becomes 0.
                    warnings.push(warning(
                        codes::MATERIAL_LAYER_REPAIRED,
                        ctx,
                        format!(
                            "{ctx}: AllSame with {} indices; Assimp uses material 0",
                            mats.len()
                        ),
                    ));
                    mats = vec![0];
                }
                let m = mats[0];
                Ok(vec![m; self.corner_points.len()])
            }
            "ByPolygon" if reference == "IndexToDirect" || options.all_layer_mappings => {
                if mats.len() != self.faces.len() {
                    warnings.push(warning(
                        codes::MATERIAL_LAYER_REPAIRED,
                        ctx,
                        format!(
                            "{ctx}: {} material indices for {} polygons, resized",
                            mats.len(),
                            self.faces.len()
                        ),
                    ));
                }
                mats.resize(self.faces.len(), 0);
                Ok(mats)
            }
            _ => {
                warnings.push(warning(codes::LAYER_MAPPING_UNSUPPORTED, ctx, format!(
                    "{ctx}: material mapping {mapping}/{reference} not implemented (as in Assimp 5.2); indices kept as read"
                )));
                Ok(mats)
            }
        }
    }

    /// Control point → its corners, in corner order: `(offsets, corners)`, the corners of
    /// point `p` being `corners[offsets[p]..offsets[p + 1]]`.
    pub fn point_corners(&self) -> (Vec<u32>, Vec<u32>) {
        let n = self.control_points;
        // Counts at `p + 2`, summed so that `offsets[p + 1]` is where point `p` starts; the
        // scatter then advances it to where `p` ends, which is where `p + 1` starts.
        let mut offsets = vec![0u32; n + 2];
        self.corner_points.for_each(|_, p| {
            if let Some(o) = offsets.get_mut(p as usize + 2) {
                *o += 1;
            }
        });
        for i in 2..n + 2 {
            offsets[i] += offsets[i - 1];
        }
        let mut corners = vec![0u32; self.corner_points.len()];
        self.corner_points.for_each(|c, p| {
            if let Some(o) = offsets.get_mut(p as usize + 1) {
                if let Some(slot) = corners.get_mut(*o as usize) {
                    *slot = c as u32;
                }
                *o += 1;
            }
        });
        offsets.truncate(n + 1);
        (offsets, corners)
    }

    /// The UV channels in use: 0.. up to the first empty one.
    pub fn uv_count(&self) -> usize {
        self.uvs.iter().take_while(|u| !u.is_empty()).count()
    }

    /// Number of polygon corners (Assimp's vertex count before splitting by material).
    pub fn corner_count(&self) -> usize {
        self.corner_points.len()
    }

    pub fn color_count(&self) -> usize {
        self.colors.iter().take_while(|u| !u.is_empty()).count()
    }
}
