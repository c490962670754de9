//! The [`kiln_scene::Warning::code`]s this importer gives, one constant each. A code names
//! the kind of finding and never changes meaning; the message beside it names the object.

/// An object in `Objects` has no id (7.x) or no name (6.1); it is ignored.
pub const OBJECT_WITHOUT_ID: &str = "fbx.object-without-id";
/// The file has an FBX header but no `Objects` or no `Connections` section: the scene is empty
/// or its objects are not linked (ufbx reads such files; Assimp refuses them).
pub const SECTION_MISSING: &str = "fbx.section-missing";
/// `GlobalSettings`' `UnitScaleFactor` is 0 or not finite (Assimp refuses the file): the
/// file's unit is taken as unknown.
pub const UNIT_SCALE_INVALID: &str = "fbx.unit-scale-invalid";
/// An object in `Objects` has id 0, which is the root's; it is ignored.
pub const OBJECT_ROOT_ID: &str = "fbx.object-root-id";
/// Two objects share an id; the later one is kept.
pub const DUPLICATE_ID: &str = "fbx.duplicate-id";
/// A connection names an object that does not exist (or no object); it is ignored.
pub const DANGLING_CONNECTION: &str = "fbx.dangling-connection";
/// A model is its own ancestor through the connections; the repeated link is ignored.
pub const NODE_CYCLE: &str = "fbx.node-cycle";
/// The node tree reached [`crate::ImportOptions::max_nodes`]; the remaining models are left out.
pub const NODE_LIMIT: &str = "fbx.node-limit";
/// A `Model` in the node tree cannot be converted (an effector, say); its subtree is left out.
pub const MODEL_SKIPPED: &str = "fbx.model-skipped";
/// A transform property of a model (translation, rotation, pivot...) is NaN or infinite; it
/// is treated as unset.
pub const TRANSFORM_NOT_FINITE: &str = "fbx.transform-not-finite";
/// `GeometricScaling` has a zero component and cannot be inverted: the model's children get
/// no `GeometricScalingInverse` helper node.
pub const GEOMETRIC_SCALING_SINGULAR: &str = "fbx.geometric-scaling-singular";
/// A geometry cannot be used (no vertices or polygon indices, an index out of range, a
/// malformed layer element, an unreadable array, a line without points); it is not imported.
pub const GEOMETRY_DROPPED: &str = "fbx.geometry-dropped";
/// A geometry has no vertices or no polygons; it makes no mesh.
pub const GEOMETRY_EMPTY: &str = "fbx.geometry-empty";
/// An array's length is not a multiple of its group size (3 for positions...); the rest is
/// ignored.
pub const ARRAY_RAGGED: &str = "fbx.array-ragged";
/// The last polygon has no end marker; it is dropped (its corners stay vertices).
pub const POLYGON_UNTERMINATED: &str = "fbx.polygon-unterminated";
/// A `Layer` lists a layer element the geometry does not have.
pub const LAYER_MISSING: &str = "fbx.layer-missing";
/// A second normal, tangent, binormal or material layer, or a UV or colour set past the
/// eighth; it is ignored.
pub const LAYER_EXTRA: &str = "fbx.layer-extra";
/// A layer element has no data, or too few values or indices for the geometry; it is ignored.
pub const LAYER_DROPPED: &str = "fbx.layer-dropped";
/// A layer element has more indices than polygon corners; the extra ones are ignored.
pub const LAYER_TRIMMED: &str = "fbx.layer-trimmed";
/// A layer element's mapping or reference type is one Assimp 5.2 does not read (unless
/// [`crate::ImportOptions::all_layer_mappings`]); it is ignored, or for materials kept as read.
pub const LAYER_MAPPING_UNSUPPORTED: &str = "fbx.layer-mapping-unsupported";
/// A layer element has no `MappingInformationType` or `ReferenceInformationType`: they were
/// assumed from its arrays (an index array means `IndexToDirect`; the count of values gives the
/// mapping: one per corner, control point or polygon, or one for all), as ufbx does.
pub const LAYER_MAPPING_ASSUMED: &str = "fbx.layer-mapping-assumed";
/// The material layer was repaired as Assimp does: resized to the polygon count, or an
/// `AllSame` layer of several indices taken as material 0.
pub const MATERIAL_LAYER_REPAIRED: &str = "fbx.material-layer-repaired";
/// A geometry has more material indices than polygons; the extra ones are ignored.
pub const MATERIAL_INDICES_EXTRA: &str = "fbx.material-indices-extra";
/// A polygon's material index is past the model's materials; the default material is used.
pub const MATERIAL_INDEX_OUT_OF_RANGE: &str = "fbx.material-index-out-of-range";
/// A `Line` segment indexes past the points; the segment is ignored.
pub const LINE_INDEX_OUT_OF_RANGE: &str = "fbx.line-index-out-of-range";
/// A skin cluster's matrices, indices or weights are missing, unreadable, not finite or of
/// different lengths; the cluster makes no bone.
pub const CLUSTER_DROPPED: &str = "fbx.cluster-dropped";
/// A skin cluster has no `Transform`; its bone's offset is computed from the cluster's
/// `TransformLink` or the file's `BindPose`, else from the nodes' transforms at rest.
pub const CLUSTER_BIND_RECOVERED: &str = "fbx.cluster-bind-recovered";
/// No bone model is linked to a skin cluster; the cluster makes no bone.
pub const CLUSTER_WITHOUT_BONE: &str = "fbx.cluster-without-bone";
/// A skin cluster has a negative vertex index; that weight is ignored.
pub const CLUSTER_NEGATIVE_INDEX: &str = "fbx.cluster-negative-index";
/// A texture's `UVSet` is not among the mesh's UV sets; the first UV channel is used.
pub const UV_SET_MISSING: &str = "fbx.uv-set-missing";
/// A `Video`'s embedded content cannot be read; the texture is not embedded.
pub const VIDEO_UNREADABLE: &str = "fbx.video-unreadable";
/// An `AnimationCurveNode` drives no node property; it is ignored.
pub const CURVE_NODE_UNTARGETED: &str = "fbx.curve-node-untargeted";
/// An `AnimationCurveNode` has no curves; it is ignored.
pub const CURVE_NODE_EMPTY: &str = "fbx.curve-node-empty";
/// An `AnimationCurve`'s key times or values are missing, unreadable, of different lengths
/// or not ascending; the curve is ignored.
pub const CURVE_DROPPED: &str = "fbx.curve-dropped";
/// A blend-shape weight curve's `KeyAttrFlags`, `KeyAttrDataFloat` or `KeyAttrRefCount` are
/// unreadable or do not cover its keys; its keys are joined by straight lines.
pub const CURVE_ATTRIBUTES_MALFORMED: &str = "fbx.curve-attributes-malformed";
/// Blend shapes are not imported: an animation's `DeformPercent` curves drive no blend shape
/// channel that was imported (the curve is ignored; a stack that only moves weights still
/// gives its animation).
pub const MORPH_UNSUPPORTED: &str = "fbx.morph-unsupported";
/// A blend shape `Shape` cannot be used (`Indexes` or `Vertices` missing or unreadable, not
/// three values per index, or a full weight that is zero, not finite or repeated); it is
/// dropped.
pub const MORPH_SHAPE_DROPPED: &str = "fbx.morph-shape-dropped";
/// Some offsets of a blend shape name a control point past the geometry's or are not
/// finite; those offsets are dropped.
pub const MORPH_OFFSETS_DROPPED: &str = "fbx.morph-offsets-dropped";
/// A `BlendShapeChannel` has no usable shape; it is not imported.
pub const MORPH_CHANNEL_DROPPED: &str = "fbx.morph-channel-dropped";
/// A `BlendShapeChannel`'s `DeformPercent` is not finite; its weight at rest is 0.
pub const MORPH_WEIGHT_INVALID: &str = "fbx.morph-weight-invalid";
/// An FBX 6 take's `Key` list ends inside a key, has a mode letter outside the FBX SDK's, or
/// holds another number of keys than its `KeyCount`; the keys before the damage are kept.
pub const TAKE_KEYS_MALFORMED: &str = "fbx.take-keys-malformed";
