//! [`ImportOptions`]: what an import reads, and its limits.

/// Import settings; the defaults are Assimp 5.2's (`assimp dump` with no options).
#[derive(Clone, Copy, Debug)]
pub struct ImportOptions {
    /// Make helper nodes for pivots and offsets (Assimp's
    /// `AI_CONFIG_IMPORT_FBX_PRESERVE_PIVOTS`, default true).
    pub preserve_pivots: bool,
    /// Drop animation channels whose single key equals the static value
    /// (`AI_CONFIG_IMPORT_FBX_OPTIMIZE_EMPTY_ANIMATION_CURVES`, default true).
    pub optimize_empty_animation_curves: bool,
    /// Assign materials (`AI_CONFIG_IMPORT_FBX_READ_MATERIALS`, default true).
    pub read_materials: bool,
    /// Also read layer elements mapped `ByPolygon`, `AllSame` or `ByVertex`, and the
    /// `Index` reference type, which Assimp 5.2 ignores (default false: as Assimp).
    pub all_layer_mappings: bool,
    /// Stop adding nodes past this many (a model linked under several parents is copied
    /// under each, so a crafted file could multiply nodes).
    pub max_nodes: usize,
    /// Keep skin weights per control point ([`kiln_scene::Mesh::point_skin`]) instead of
    /// spreading them to every vertex in [`kiln_scene::Bone::weights`] as Assimp does
    /// (default false). For a consumer that only needs each vertex's weights, such as
    /// `kiln-extract`: a skinned body's per-vertex lists are about four times its clusters'
    /// weights, written here and read back there.
    pub point_skin: bool,
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            preserve_pivots: true,
            optimize_empty_animation_curves: true,
            read_materials: true,
            all_layer_mappings: false,
            max_nodes: 1 << 20,
            point_skin: false,
        }
    }
}
