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

use kiln_fbx::Node;

/// A layer's values and how each polygon corner finds its own.
#[derive(Clone, Debug, Default)]
pub enum Layer<T> {
    /// No data.
    #[default]
    None,
    /// One value per corner (`ByPolygonVertex`/`Direct`, or resolved).
    PerCorner(Vec<T>),
    /// One value per control point (`ByVertice`).
    PerPoint(Vec<T>),
    /// Values and one index per corner (`ByPolygonVertex`/`IndexToDirect`); `u32::MAX` reads
    /// as the default value (an index of -1).
    Indexed { values: Vec<T>, index: Vec<u32> },
}

impl<T: Copy + Default> Layer<T> {
    pub fn is_empty(&self) -> bool {
        matches!(self, Layer::None)
    }

    /// The value of `corner`, whose control point is `point`.
    #[inline]
    pub fn at(&self, corner: usize, point: u32) -> T {
        match self {
            Layer::None => T::default(),
            Layer::PerCorner(v) => v.get(corner).copied().unwrap_or_default(),
            Layer::PerPoint(v) => v.get(point as usize).copied().unwrap_or_default(),
            Layer::Indexed { values, index } => index
                .get(corner)
                .and_then(|&i| values.get(i as usize))
                .copied()
                .unwrap_or_default(),
        }
    }
}

/// A geometry: control points, polygons over them, and layer elements that every polygon
/// corner resolves through (Assimp unrolls all of it per corner; here the output meshes are
/// cut straight from the indices, with the same result).
#[derive(Clone, Debug, Default)]
pub struct MeshGeometry {
    /// Control points.
    pub points: Vec<[f32; 3]>,
    /// Control point of each corner (`PolygonVertexIndex` with the end markers decoded),
    /// including the corners of an unterminated last polygon, which Assimp keeps as vertices.
    pub corner_points: Vec<u32>,
    /// Corner count of each complete polygon (`m_faces`).
    pub faces: Vec<u32>,
    /// Number of control points.
    pub control_points: usize,
    pub normals: Layer<[f32; 3]>,
    pub tangents: Layer<[f32; 3]>,
    pub binormals: Layer<[f32; 3]>,
    pub uvs: [Layer<[f32; 2]>; 8],
    pub uv_names: [String; 8],
    pub colors: [Layer<[f32; 4]>; 8],
    /// Material index per face (or per corner for `AllSame`).
    pub materials: Vec<i32>,
    /// First corner index of each face (for `face_of_corner`).
    pub(crate) face_starts: Vec<u32>,
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

fn i32s(node: &Node<'_, '_>) -> Result<Vec<i32>, GeometryError> {
    match node.i32_values() {
        Ok(c) => Ok(c.into_owned()),
        // Some writers store indices as doubles.
        Err(_) => Ok(f64s(node)?.into_iter().map(|v| v as i32).collect()),
    }
}

fn string_child(scope: &Node<'_, '_>, name: &str) -> Option<String> {
    let c = scope.child(name)?;
    match c.value(0)? {
        kiln_fbx::Value::String(s) => Some(String::from_utf8_lossy(s).into_owned()),
        _ => None,
    }
}

trait Chunk: Copy + Default {
    const N: usize;
    fn from_f64(v: &[f64]) -> Self;
}

impl Chunk for [f32; 2] {
    const N: usize = 2;
    fn from_f64(v: &[f64]) -> Self {
        [v[0] as f32, v[1] as f32]
    }
}

impl Chunk for [f32; 3] {
    const N: usize = 3;
    fn from_f64(v: &[f64]) -> Self {
        [v[0] as f32, v[1] as f32, v[2] as f32]
    }
}

impl Chunk for [f32; 4] {
    const N: usize = 4;
    fn from_f64(v: &[f64]) -> Self {
        [v[0] as f32, v[1] as f32, v[2] as f32, v[3] as f32]
    }
}

fn chunks<T: Chunk>(
    node: &Node<'_, '_>,
    warnings: &mut Vec<String>,
    what: &str,
) -> Result<Vec<T>, GeometryError> {
    // A plain binary array: convert from the file's bytes without a `Vec<f64>` copy.
    if node.property_count() == 1 {
        if let Some(kiln_fbx::Value::Array(a)) = node.value(0) {
            if let Some(bytes) = a.plain_bytes() {
                let width = match a.ty() {
                    kiln_fbx::ArrayType::F64 => 8,
                    kiln_fbx::ArrayType::F32 => 4,
                    _ => 0,
                };
                if let Some(n) = bytes.len().checked_div(width) {
                    if n % T::N != 0 {
                        warnings.push(format!(
                            "{what}: {n} values is not a multiple of {}; the rest is ignored",
                            T::N
                        ));
                    }
                    let mut tmp = [0f64; 4];
                    return Ok(bytes
                        .chunks_exact(width * T::N)
                        .map(|c| {
                            for (k, x) in c.chunks_exact(width).enumerate() {
                                tmp[k] = if width == 8 {
                                    f64::from_le_bytes(x.try_into().unwrap_or([0; 8]))
                                } else {
                                    f64::from(f32::from_le_bytes(x.try_into().unwrap_or([0; 4])))
                                };
                            }
                            T::from_f64(&tmp[..T::N])
                        })
                        .collect());
                }
            }
        }
    }
    let v = f64s(node)?;
    if v.len() % T::N != 0 {
        warnings.push(format!(
            "{what}: {} values is not a multiple of {}; the rest is ignored",
            v.len(),
            T::N
        ));
    }
    Ok(v.chunks_exact(T::N).map(T::from_f64).collect())
}

impl MeshGeometry {
    /// Reads the geometry stored in `scope` (a `Geometry` node, or a 6.1 `Model`). `what`
    /// names it in messages; warnings go to `warnings`.
    pub fn read(
        scope: &Node<'_, '_>,
        what: &str,
        options: GeometryOptions,
        warnings: &mut Vec<String>,
    ) -> Result<MeshGeometry, GeometryError> {
        let Some(vnode) = scope.child("Vertices") else {
            return err("no Vertices");
        };
        let Some(inode) = scope.child("PolygonVertexIndex") else {
            return err("no PolygonVertexIndex");
        };
        let points: Vec<[f32; 3]> = chunks(&vnode, warnings, &format!("{what} Vertices"))?;
        let indices = i32s(&inode)?;
        let mut g = MeshGeometry {
            control_points: points.len(),
            ..MeshGeometry::default()
        };
        g.corner_points.reserve(indices.len());
        g.faces.reserve(indices.len() / 3);
        let mut count = 0u32;
        let n = points.len();
        for &index in &indices {
            let absi = if index < 0 {
                -(index as i64) - 1
            } else {
                index as i64
            } as usize;
            if absi >= n {
                return err(format!(
                    "polygon vertex index {index} out of range ({n} control points)"
                ));
            }
            g.corner_points.push(absi as u32);
            count += 1;
            if index < 0 {
                g.faces.push(count);
                count = 0;
            }
        }
        if count != 0 {
            warnings.push(format!(
                "{what}: the last polygon ({count} corners) has no end marker and is dropped"
            ));
        }
        g.points = points;
        let mut start = 0u32;
        g.face_starts = g
            .faces
            .iter()
            .map(|&n| {
                let s = start;
                start += n;
                s
            })
            .collect();

        for layer in scope.children_named("Layer") {
            for le in layer.children_named("LayerElement") {
                let (Some(ty), Some(typed_index)) = (
                    string_child(&le, "Type"),
                    le.child("TypedIndex").and_then(|t| t.get_i64(0).ok()),
                ) else {
                    return err("LayerElement without Type or TypedIndex");
                };
                let found = scope
                    .children_named(&ty)
                    .find(|c| c.get_i64(0).ok() == Some(typed_index));
                match found {
                    Some(source) => {
                        g.read_vertex_data(&ty, typed_index, &source, what, options, warnings)?
                    }
                    None => warnings.push(format!(
                        "{what}: layer element {ty} {typed_index} not found"
                    )),
                }
            }
        }
        Ok(g)
    }

    fn read_vertex_data(
        &mut self,
        ty: &str,
        index: i64,
        source: &Node<'_, '_>,
        what: &str,
        options: GeometryOptions,
        warnings: &mut Vec<String>,
    ) -> Result<(), GeometryError> {
        let (Some(mapping), Some(reference)) = (
            string_child(source, "MappingInformationType"),
            string_child(source, "ReferenceInformationType"),
        ) else {
            return err(format!(
                "{ty} {index}: MappingInformationType or ReferenceInformationType missing"
            ));
        };
        let ctx = format!("{what} {ty} {index}");
        match ty {
            "LayerElementUV" => {
                let Some(slot) = usize::try_from(index).ok().filter(|&i| i < 8) else {
                    warnings.push(format!("{ctx}: more than 8 UV sets, ignored"));
                    return Ok(());
                };
                self.uv_names[slot] = string_child(source, "Name").unwrap_or_default();
                self.uvs[slot] = self.resolve(
                    source, &mapping, &reference, "UV", "UVIndex", &ctx, options, warnings,
                )?;
            }
            "LayerElementMaterial" => {
                if !self.materials.is_empty() {
                    warnings.push(format!("{ctx}: additional material layer ignored"));
                    return Ok(());
                }
                let mats =
                    self.read_materials(source, &mapping, &reference, &ctx, options, warnings)?;
                if !mats.is_empty() && mats.iter().all(|&m| m < 0) {
                    warnings.push(format!("{ctx}: material layer of only -1 ignored"));
                    return Ok(());
                }
                self.materials = mats;
            }
            "LayerElementNormal" => {
                if !self.normals.is_empty() {
                    warnings.push(format!("{ctx}: additional normal layer ignored"));
                    return Ok(());
                }
                self.normals = self.resolve(
                    source,
                    &mapping,
                    &reference,
                    "Normals",
                    "NormalsIndex",
                    &ctx,
                    options,
                    warnings,
                )?;
            }
            "LayerElementTangent" => {
                if !self.tangents.is_empty() {
                    warnings.push(format!("{ctx}: additional tangent layer ignored"));
                    return Ok(());
                }
                let (d, i) = if source.child("Tangents").is_some() {
                    ("Tangents", "TangentsIndex")
                } else {
                    ("Tangent", "TangentIndex")
                };
                self.tangents =
                    self.resolve(source, &mapping, &reference, d, i, &ctx, options, warnings)?;
            }
            "LayerElementBinormal" => {
                if !self.binormals.is_empty() {
                    warnings.push(format!("{ctx}: additional binormal layer ignored"));
                    return Ok(());
                }
                let (d, i) = if source.child("Binormals").is_some() {
                    ("Binormals", "BinormalsIndex")
                } else {
                    ("Binormal", "BinormalIndex")
                };
                self.binormals =
                    self.resolve(source, &mapping, &reference, d, i, &ctx, options, warnings)?;
            }
            "LayerElementColor" => {
                let Some(slot) = usize::try_from(index).ok().filter(|&i| i < 8) else {
                    warnings.push(format!("{ctx}: more than 8 colour sets, ignored"));
                    return Ok(());
                };
                self.colors[slot] = self.resolve(
                    source,
                    &mapping,
                    &reference,
                    "Colors",
                    "ColorIndex",
                    &ctx,
                    options,
                    warnings,
                )?;
            }
            _ => {}
        }
        Ok(())
    }

    /// `ResolveVertexDataArray`: how the layer's values map to corners, or `Layer::None` when
    /// the layer is ignored.
    #[allow(clippy::too_many_arguments)]
    fn resolve<T: Chunk>(
        &self,
        source: &Node<'_, '_>,
        mapping: &str,
        reference: &str,
        data_name: &str,
        index_name: &str,
        ctx: &str,
        options: GeometryOptions,
        warnings: &mut Vec<String>,
    ) -> Result<Layer<T>, GeometryError> {
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
                warnings.push(format!("{ctx}: no {data_name} array"));
            } else {
                warnings.push(format!(
                    "{ctx}: mapping {mapping}/{reference} not supported, ignored"
                ));
            }
            return Ok(Layer::None);
        };
        let data: Vec<T> = chunks(&data_node, warnings, ctx)?;
        let check = |i: i32, len: usize| -> Result<u32, GeometryError> {
            usize::try_from(i)
                .ok()
                .filter(|&i| i < len)
                .map(|i| i as u32)
                .ok_or_else(|| {
                    GeometryError(format!(
                        "{ctx}: {index_name} {i} out of range ({len} values)"
                    ))
                })
        };
        match (mapping, direct, index) {
            ("ByVertice", true, _) => {
                if data.len() != self.control_points {
                    warnings.push(format!(
                        "{ctx}: {} values for {} control points (ByVertice), ignored",
                        data.len(),
                        self.control_points
                    ));
                    return Ok(Layer::None);
                }
                Ok(Layer::PerPoint(data))
            }
            ("ByVertice", _, Some(index)) => {
                let idx = i32s(&index)?;
                if idx.len() != self.control_points {
                    warnings.push(format!(
                        "{ctx}: {} indices for {} control points (ByVertice), ignored",
                        idx.len(),
                        self.control_points
                    ));
                    return Ok(Layer::None);
                }
                // Only the control points that polygons use are checked (as Assimp does).
                let mut used = vec![false; self.control_points];
                for &p in &self.corner_points {
                    used[p as usize] = true;
                }
                let mut out = Vec::with_capacity(idx.len());
                for (p, &i) in idx.iter().enumerate() {
                    out.push(if used[p] {
                        data[check(i, data.len())? as usize]
                    } else {
                        T::default()
                    });
                }
                Ok(Layer::PerPoint(out))
            }
            ("ByPolygonVertex", true, _) => {
                if data.len() != corners {
                    warnings.push(format!(
                        "{ctx}: {} values for {corners} polygon corners, ignored",
                        data.len()
                    ));
                    return Ok(Layer::None);
                }
                Ok(Layer::PerCorner(data))
            }
            ("ByPolygonVertex", _, Some(index)) => {
                let mut idx = i32s(&index)?;
                if idx.len() > corners {
                    warnings.push(format!(
                        "{ctx}: {} indices for {corners} polygon corners, trimmed",
                        idx.len()
                    ));
                    idx.truncate(corners);
                }
                if idx.len() != corners {
                    warnings.push(format!(
                        "{ctx}: {} indices for {corners} polygon corners, ignored",
                        idx.len()
                    ));
                    return Ok(Layer::None);
                }
                let index = idx
                    .iter()
                    .map(|&i| {
                        if i == -1 {
                            Ok(u32::MAX)
                        } else {
                            check(i, data.len())
                        }
                    })
                    .collect::<Result<Vec<u32>, _>>()?;
                Ok(Layer::Indexed {
                    values: data,
                    index,
                })
            }
            ("ByPolygon", _, _) if options.all_layer_mappings => {
                let per_face: Vec<T> = if let Some(index) = index {
                    let idx = i32s(&index)?;
                    idx.iter()
                        .map(|&i| check(i, data.len()).map(|i| data[i as usize]))
                        .collect::<Result<_, _>>()?
                } else {
                    data
                };
                if per_face.len() < self.faces.len() {
                    warnings.push(format!(
                        "{ctx}: {} values for {} polygons (ByPolygon), ignored",
                        per_face.len(),
                        self.faces.len()
                    ));
                    return Ok(Layer::None);
                }
                let mut out = vec![T::default(); corners];
                for (f, &n) in self.faces.iter().enumerate() {
                    let s = self.face_starts[f] as usize;
                    for c in &mut out[s..s + n as usize] {
                        *c = per_face[f];
                    }
                }
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
                            warnings.push(format!("{ctx}: AllSame without a value, ignored"));
                            return Ok(Layer::None);
                        }
                    }
                };
                Ok(Layer::PerCorner(vec![v; corners]))
            }
            _ => {
                warnings.push(format!(
                    "{ctx}: mapping {mapping}/{reference} is ignored (as Assimp 5.2 does)"
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
        warnings: &mut Vec<String>,
    ) -> Result<Vec<i32>, GeometryError> {
        if self.faces.is_empty() {
            return Ok(Vec::new());
        }
        let Some(node) = source.child("Materials") else {
            return err(format!("{ctx}: no Materials array"));
        };
        let mut mats = i32s(&node)?;
        match mapping {
            "AllSame" => {
                if mats.is_empty() {
                    warnings.push(format!("{ctx}: AllSame without an index, ignored"));
                    return Ok(mats);
                }
                if mats.len() > 1 {
                    // Assimp 5.2 clears the array before taking its first element, so the
                    // index becomes 0.
                    warnings.push(format!(
                        "{ctx}: AllSame with {} indices; Assimp uses material 0",
                        mats.len()
                    ));
                    mats = vec![0];
                }
                let m = mats[0];
                Ok(vec![m; self.corner_points.len()])
            }
            "ByPolygon" if reference == "IndexToDirect" || options.all_layer_mappings => {
                if mats.len() != self.faces.len() {
                    warnings.push(format!(
                        "{ctx}: {} material indices for {} polygons, resized",
                        mats.len(),
                        self.faces.len()
                    ));
                }
                mats.resize(self.faces.len(), 0);
                Ok(mats)
            }
            _ => {
                warnings.push(format!(
                    "{ctx}: material mapping {mapping}/{reference} not implemented (as in Assimp 5.2); indices kept as read"
                ));
                Ok(mats)
            }
        }
    }

    /// Control point → its corners, in corner order: `(offsets, corners)`, the corners of
    /// point `p` being `corners[offsets[p]..offsets[p + 1]]`.
    pub fn point_corners(&self) -> (Vec<u32>, Vec<u32>) {
        let mut offsets = vec![0u32; self.control_points + 1];
        for &p in &self.corner_points {
            offsets[p as usize + 1] += 1;
        }
        for i in 0..self.control_points {
            offsets[i + 1] += offsets[i];
        }
        let mut fill = offsets.clone();
        let mut corners = vec![0u32; self.corner_points.len()];
        for (c, &p) in self.corner_points.iter().enumerate() {
            corners[fill[p as usize] as usize] = c as u32;
            fill[p as usize] += 1;
        }
        (offsets, corners)
    }

    /// The face a corner belongs to (`FaceForVertexIndex`).
    pub fn face_of_corner(&self, corner: u32) -> usize {
        self.face_starts
            .partition_point(|&s| s <= corner)
            .saturating_sub(1)
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
