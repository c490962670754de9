//! FBX for kiln, layer 2: an FBX document (read by `kiln-fbx`, binary or ASCII, 5.0 to 7.7;
//! files before 6.0 are first rewritten as the 6.1 files they stand for)
//! turned into a [`kiln_scene::Scene`] the way Assimp 5.2.5's FBX importer builds its
//! `aiScene` (right-handed, polygons, one vertex per polygon corner), so that after
//! `kiln-process` it is the scene Assimp produces with the original tool's flags; and, with
//! the `writer` feature (default), the reverse: a scene as a binary FBX 7.4 file
//! ([`write_fbx`]), for tests, benchmarks and `kiln demo`.
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
//! let back = import(&write_fbx(&scene, &WriteOptions::default())?)?;
//! assert_eq!(back.meshes[0].positions[1], Vec3::X);
//! assert_eq!(back.materials[0].diffuse, Some(Vec3::X));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! It imports the `Model` tree with Assimp's pivot helper nodes (`name_$AssimpFbx$_…`),
//! geometry layers, materials and textures (embedded `Video` content too), skins and
//! animation stacks (FBX 6 `Takes` too, as the stacks they stand for). It does not import
//! lights, cameras, blend shapes or NURBS, does not evaluate curve tangents, and never
//! touches the file system.
//!
//! Invariants: only a file that is not FBX (or has neither `Objects` nor an FBX header) is an
//! [`ImportError`]; anything wrong inside drops that object or layer with a
//! [`kiln_scene::Warning`] (codes in [`codes`]) naming it, and the rest is imported. No input
//! makes it panic, and no recursion depends on the input. With the `parallel` feature
//! (default) an import runs on rayon's pool; the scene, warnings and errors are the same
//! without it. How the import is built, and why: `docs/fbx-import.md`.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod arrays;
pub mod codes;
mod convert;
mod flat;
mod geometry;
mod graph;
mod options;
mod par;
#[cfg(feature = "writer")]
mod writer;

pub use options::ImportOptions;
#[cfg(feature = "writer")]
pub use writer::{WriteError, WriteOptions, write_fbx, write_fbx_nodes};

use kiln_fbx::Document;
use kiln_scene::Scene;

/// Why a file cannot be imported at all.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ImportError {
    /// The bytes are not a readable FBX node tree.
    #[error("{0}")]
    Parse(#[from] kiln_fbx::Error),
    /// No `Objects` section and no `FBXHeaderExtension`: a node tree, not an FBX scene. (A file
    /// with the header but without `Objects` or `Connections` imports, empty or unlinked, as
    /// ufbx reads it, with [`codes::SECTION_MISSING`].)
    #[error("no Objects section and no FBXHeaderExtension: not an FBX scene")]
    NoObjects,
}

/// Parses FBX bytes (binary or ASCII) and imports them ([`import_document`]).
pub fn import(bytes: &[u8]) -> Result<Scene, ImportError> {
    import_with(bytes, &ImportOptions::default())
}

/// [`import`] with options. A big-endian binary file (Maya on PowerPC Macs) is first
/// rewritten little-endian ([`kiln_fbx::to_little_endian`]).
pub fn import_with(bytes: &[u8], options: &ImportOptions) -> Result<Scene, ImportError> {
    if let Some(little) = kiln_fbx::to_little_endian(bytes)? {
        return import_little_endian(&little, options);
    }
    import_little_endian(bytes, options)
}

/// A file before FBX 6.0 (no `Objects`, models at the top) is first rewritten as the 6.1
/// file it stands for (`flat.rs`); warnings that name a byte offset then name one of that
/// rewrite, so they name the object too.
fn import_little_endian(bytes: &[u8], options: &ImportOptions) -> Result<Scene, ImportError> {
    // ASCII numbers as Assimp reads them: a vertex one ulp off Assimp's can turn a degenerate
    // face's tangent by 3e-4.
    let parse = kiln_fbx::ParseOptions {
        assimp_numbers: true,
        ..kiln_fbx::ParseOptions::default()
    };
    let doc = Document::parse_with(bytes, &parse)?;
    if !flat::is_flat(&doc) {
        return import_document(&doc, options);
    }
    let tree = flat::to_fbx61(&doc.to_owned_nodes()?, graph::file_version(&doc));
    let rewritten = kiln_fbx::write_binary(
        &tree,
        &kiln_fbx::WriteOptions {
            version: 6100,
            compression: kiln_fbx::Compression::None,
        },
    )?;
    import_document(&Document::parse(&rewritten)?, options)
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
    })?;
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
    scene.warnings = warnings;
    Ok(scene)
}

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
