//! FBX for kiln, layer 2: an FBX document (read by `kiln-fbx`, binary or ASCII, 6.1 to 7.7)
//! turned into a [`kiln_scene::Scene`] the way Assimp 5.2.5's FBX importer builds its
//! `aiScene`, so that after `kiln-process` it is the scene Assimp produces with the original
//! tool's flags; and the reverse, a scene written as a binary FBX 7.4 file ([`write_fbx`]),
//! for tests, benchmarks and `kiln demo`.
//!
//! ```
//! use kiln_fbx_scene::{import, write_fbx, WriteOptions};
//! use kiln_scene::{Material, Mesh, Node, Scene, Vec3};
//!
//! let mut scene = Scene::with_root("RootNode");
//! let mut mesh = Mesh { name: "tri".into(), ..Mesh::default() };
//! mesh.positions = vec![Vec3::ZERO, Vec3::X, Vec3::Y];
//! mesh.push_face(&[0, 1, 2]);
//! scene.meshes.push(mesh);
//! scene.materials.push(Material { name: "red".into(), diffuse: Some(Vec3::X), ..Material::default() });
//! let mut node = Node::new("tri");
//! node.meshes.push(0);
//! scene.add_child(0, node);
//!
//! let bytes = write_fbx(&scene, &WriteOptions::default())?;
//! let back = import(&bytes)?;
//! assert_eq!(back.nodes[1].name, "tri");
//! assert_eq!(back.meshes[0].positions[1], Vec3::X);
//! assert_eq!(back.materials[0].diffuse, Some(Vec3::X));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # What it does
//! - **Object graph** ([`graph`]): `Objects` by id, `Connections` (OO, OP with the property
//!   name) in file order, `Properties70` (and 6.1 `Properties60`) resolved against the
//!   `Definitions` templates with Assimp's strong typing, `GlobalSettings` (unit scale, axes,
//!   `TimeMode`/`CustomFrameRate` into [`kiln_scene::Metadata`]).
//! - **Nodes**: the `Model` tree from the root (id 0); the full FBX transform chain with the
//!   `name_$AssimpFbx$_Component` helper nodes where Assimp 5.2 inserts them (pivots, offsets,
//!   pre/post rotation, geometric transforms, and components that animations target).
//! - **Geometry** ([`geometry`]): one vertex per polygon corner, layer elements resolved per
//!   corner; one mesh per material index, in order of first use.
//! - **Materials**: Lambert/Phong colours × factors, shininess, opacity, the other
//!   properties under Assimp's material keys (`$clr.transparent`, `$raw.<name>`...) in
//!   [`kiln_scene::Material::properties`]; textures on `DiffuseColor`, `SpecularColor`,
//!   `NormalMap`, `Bump` and Assimp's other slots with their `RelativeFilename`; `Video`
//!   content (binary, or base64 in ASCII) as [`kiln_scene::EmbeddedTexture`]s.
//! - **Skins**: each `Cluster` of a geometry's `Skin` becomes a bone of each mesh made from
//!   it, its `Transform` the offset matrix (as Assimp 5.2 takes it), weights mapped to every
//!   vertex made from the control point.
//! - **Animation** ([`anim`]): per stack, per node channels as Assimp 5.2 builds them.
//!
//! # What it does not
//! Lights, cameras, blend shapes (morph targets), NURBS and FBX 6.1 `Takes` animation are
//! not imported (a warning says so where the file has them). Curve tangents are not
//! evaluated (Assimp lerps between keys). No file-system access: bytes in, scene out.
//!
//! # Threads
//! With the `parallel` feature (default) an import runs on rayon's global pool: compressed
//! arrays are inflated by the pool's other threads while the conversion runs ([`arrays`]), and
//! mesh attributes, skin weights, layer elements and animation keys are built in parallel.
//! The scene, its warnings and its errors are the same without the feature (for wasm32, or an
//! embedder that wants the calling thread only). Called from inside a rayon pool, the import
//! uses that pool.
//!
//! # Errors and warnings
//! A file that is not FBX, or has no `Objects` or `Connections`, is an [`ImportError`].
//! Everything else that is wrong inside (dangling connections, missing ids, cycles in the
//! node graph, indices past the control points or the layer data, short layer arrays, NaN or
//! infinite transforms, clusters without a bone) becomes a line in
//! [`kiln_scene::Scene::warnings`] naming the object and its id, and the rest of the file is
//! imported. No input makes it panic, and no recursion depends on the input.
#![forbid(unsafe_code)]

pub mod anim;
pub mod arrays;
mod convert;
pub mod fixtures;
pub mod geometry;
pub mod graph;
pub mod math;
mod par;
mod writer;

pub use writer::{WriteError, WriteOptions, write_fbx, write_fbx_nodes};

use kiln_fbx::Document;
use kiln_scene::Scene;

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
}

impl Default for ImportOptions {
    fn default() -> Self {
        ImportOptions {
            preserve_pivots: true,
            optimize_empty_animation_curves: true,
            read_materials: true,
            all_layer_mappings: false,
            max_nodes: 1 << 20,
        }
    }
}

/// Why a file cannot be imported at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not a readable FBX node tree.
    #[error("{0}")]
    Parse(#[from] kiln_fbx::Error),
    /// No `Objects` section.
    #[error("no Objects section: not an FBX scene")]
    NoObjects,
    /// No `Connections` section.
    #[error("no Connections section: the objects cannot be linked")]
    NoConnections,
    /// `UnitScaleFactor` is 0 (Assimp rejects the file).
    #[error("GlobalSettings: UnitScaleFactor is 0")]
    ZeroUnitScale,
}

/// Parses FBX bytes (binary or ASCII) and imports them ([`import_document`]).
pub fn import(bytes: &[u8]) -> Result<Scene, ImportError> {
    import_with(bytes, &ImportOptions::default())
}

/// [`import`] with options.
pub fn import_with(bytes: &[u8], options: &ImportOptions) -> Result<Scene, ImportError> {
    let doc = Document::parse(bytes)?;
    import_document(&doc, options)
}

/// Turns a parsed document into a scene (Assimp 5.2's raw import: right-handed, polygons,
/// one vertex per polygon corner).
pub fn import_document(doc: &Document<'_>, options: &ImportOptions) -> Result<Scene, ImportError> {
    par::on_pool(|| import_on_this_thread(doc, options))
}

fn import_on_this_thread(
    doc: &Document<'_>,
    options: &ImportOptions,
) -> Result<Scene, ImportError> {
    let g = graph::Graph::build(doc).map_err(|e| match e {
        graph::GraphError::NoObjects => ImportError::NoObjects,
        graph::GraphError::NoConnections => ImportError::NoConnections,
    })?;
    if g.global_props().float("UnitScaleFactor") == Some(0.0) {
        return Err(ImportError::ZeroUnitScale);
    }
    let mut warnings = g.warnings.clone();
    let conv = convert::Converter::new(&g, *options);
    // The pool's other threads inflate the compressed arrays while this one converts, taking
    // each array as it gets to it (decoding it itself if no helper has started it).
    let (mut scene, w) = if g.arrays.has_work() {
        par::with_helpers(
            || g.arrays.work(),
            || {
                let r = conv.run();
                g.arrays.stop();
                r
            },
        )
    } else {
        conv.run()
    };
    warnings.extend(w);
    if g.doc
        .root("Takes")
        .is_some_and(|t| t.children_named("Take").next().is_some())
        && g.legacy
    {
        warnings.push("FBX 6.1 Takes (animation) are not imported".into());
    }
    scene.warnings = warnings;
    Ok(scene)
}
