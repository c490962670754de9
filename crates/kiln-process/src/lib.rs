//! Assimp 5.2.5's post-processing steps over [`kiln_scene::Scene`], reproduced so that kiln gives
//! the original tool's results: the same vertex order, the same index order and winding, and the
//! same values (single precision, Assimp's operand order, to ~1e-5).
//!
//! What it does: the steps the original tool asked Assimp for —
//! `aiProcess_ConvertToLeftHanded | aiProcess_Triangulate | aiProcess_GenUVCoords |
//! aiProcess_GenNormals | aiProcess_CalcTangentSpace`, plus `aiProcess_PreTransformVertices`
//! for static meshes — as [`make_left_handed`], [`flip_uvs`], [`flip_winding_order`] (together
//! [`convert_to_left_handed`]), [`triangulate`], [`gen_uv_coords`], [`gen_normals`],
//! [`calc_tangent_space`] and [`pre_transform_vertices`], each documented with the Assimp
//! behaviour it matches, and [`process`], which runs a [`Steps`] selection in Assimp's order
//! (`code/Common/PostStepRegistry.cpp`): MakeLeftHanded → FlipUVs → FlipWindingOrder →
//! GenUVCoords → PreTransformVertices → Triangulate → GenNormals → CalcTangentSpace. The step
//! Assimp always runs before post-processing (`ScenePreprocessor`) belongs to the importer; the
//! steps in between that the original tool did not ask for (FindDegenerates, SortByPType, …)
//! are not run, as in Assimp.
//!
//! What it does not do: any other Assimp step (JoinIdenticalVertices, GenSmoothNormals,
//! SortByPType, …), configuration other than Assimp's defaults, MikkTSpace, cameras and lights
//! (the scene model has none). Where Assimp 5.2 has a quirk (zero-area triangles from collinear
//! corners, NaN normals for points and lines, the double count in tangent smoothing, normals
//! of shared vertices overwritten), the quirk is reproduced and documented, not fixed.
//!
//! Invariants: the steps never panic on scene content. Steps that index vertex arrays
//! (everything but the handedness steps) first check every mesh with kiln-scene's validator
//! ([`kiln_scene::Mesh::validate_geometry`]: per-vertex arrays as long as the positions, face
//! sizes summing to the index count, indices below the vertex count, at most 8 UV and colour
//! channels) and, for [`pre_transform_vertices`], the node tree (no cycles, children and mesh
//! references in range); on failure they return a [`ProcessError`] and leave the scene
//! unchanged. NaN and infinite coordinates propagate as in Assimp (a warning, [`codes`], when
//! they stop tangent smoothing). A valid scene (in the sense of [`Scene::validate`]) stays
//! valid. Node trees are walked iteratively, hot loops use flat arrays and per-mesh scratch
//! buffers, tangent smoothing finds coincident vertices with a grid built by one sort and one
//! sweep (O(n log n)), not Assimp's quadratic search, and the ear clipper asks a grid of the
//! polygon's corners instead of testing them all. With the `parallel` feature (default),
//! triangulation, normals and tangents run one mesh per rayon task, and within one large mesh
//! triangulation splits its faces into runs (the NGON encoder, which links each face to the
//! one before, runs after them in face order) and tangents build the neighbour grid beside
//! step 1 and, for a mesh whose importer says which vertices share a position
//! ([`kiln_scene::SharedPositions`]), build it over those points and smooth runs of vertices
//! side by side; the output is the same bytes with any number of threads and without the
//! feature (wasm32).
#![forbid(unsafe_code)]
#![deny(missing_docs)]

mod check;
mod handedness;
mod normals;
mod pretransform;
mod spatial;
mod tangents;
mod triangulate;

/// Runs `f` on every mesh, on rayon's pool with the `parallel` feature, and gives the results
/// in mesh order. Each mesh's step reads and writes that mesh only, so the output is the same
/// with any number of threads.
fn each_mesh<R: Send>(
    meshes: &mut [kiln_scene::Mesh],
    f: impl Fn(&mut kiln_scene::Mesh) -> R + Sync + Send,
) -> Vec<R> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        // One mesh is common: no task for it.
        if meshes.len() > 1 {
            return meshes.par_iter_mut().map(f).collect();
        }
    }
    meshes.iter_mut().map(f).collect()
}

/// Fewest polygon corners a task gets when one mesh's step is split across threads.
#[cfg(feature = "parallel")]
const MIN_SPLIT: usize = 1 << 15;

/// How many runs to split `n` corners of one mesh into: one per thread of rayon's pool with
/// the `parallel` feature (each of at least [`MIN_SPLIT`]), else one.
fn runs_for(n: usize) -> usize {
    #[cfg(feature = "parallel")]
    return rayon::current_num_threads().min(n / MIN_SPLIT).max(1);
    #[cfg(not(feature = "parallel"))]
    {
        let _ = n;
        1
    }
}

/// `items.iter().map(f).collect()`, on rayon's pool with the `parallel` feature; order kept.
fn par_map<T: Sync, O: Send>(items: &[T], f: impl Fn(&T) -> O + Sync + Send) -> Vec<O> {
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if items.len() > 1 {
            return items.par_iter().map(f).collect();
        }
    }
    items.iter().map(f).collect()
}

/// `(a(), b())`, the two on rayon's pool with the `parallel` feature (a mesh's independent
/// halves of one step, so that one large mesh is not one thread's); in turn without it.
fn join<A: Send, B: Send>(a: impl FnOnce() -> A + Send, b: impl FnOnce() -> B + Send) -> (A, B) {
    #[cfg(feature = "parallel")]
    return rayon::join(a, b);
    #[cfg(not(feature = "parallel"))]
    (a(), b())
}

pub mod basis;
mod uvgen;

use core::fmt;
use core::ops::BitOr;
use kiln_scene::{MeshError, Scene};

/// The [`kiln_scene::Warning::code`]s the steps give (stable; the message may be reworded).
pub mod codes {
    /// CalcTangentSpace found a mesh whose position epsilon is not finite (non-finite or
    /// overflowing coordinates), so that mesh's tangents were not smoothed across coincident
    /// vertices (each vertex keeps its own, normalised).
    pub const TANGENTS_NOT_SMOOTHED: &str = "process.tangents-not-smoothed";
}

pub use basis::{Axis, BasisError, axes_rotation, change_basis, front_after_up};
pub use check::NodeTreeError;
pub use handedness::{convert_to_left_handed, flip_uvs, flip_winding_order, make_left_handed};
pub use normals::gen_normals;
pub use pretransform::pre_transform_vertices;
pub use tangents::calc_tangent_space;
pub use triangulate::triangulate;
pub use uvgen::gen_uv_coords;

/// Which steps [`process`] runs (Assimp's `aiProcess_*` flags that kiln implements).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Steps {
    /// `aiProcess_MakeLeftHanded`: [`make_left_handed`].
    pub make_left_handed: bool,
    /// `aiProcess_FlipUVs`: [`flip_uvs`].
    pub flip_uvs: bool,
    /// `aiProcess_FlipWindingOrder`: [`flip_winding_order`]; also makes [`gen_normals`] swap
    /// its cross product, as Assimp 5.2 does.
    pub flip_winding_order: bool,
    /// `aiProcess_GenUVCoords`: [`gen_uv_coords`].
    pub gen_uv_coords: bool,
    /// `aiProcess_PreTransformVertices`: [`pre_transform_vertices`].
    pub pre_transform_vertices: bool,
    /// `aiProcess_Triangulate`: [`triangulate`].
    pub triangulate: bool,
    /// `aiProcess_GenNormals` (flat): [`gen_normals`].
    pub gen_normals: bool,
    /// `aiProcess_CalcTangentSpace`: [`calc_tangent_space`].
    pub calc_tangent_space: bool,
}

impl Steps {
    /// Nothing.
    pub const NONE: Steps = Steps {
        make_left_handed: false,
        flip_uvs: false,
        flip_winding_order: false,
        gen_uv_coords: false,
        pre_transform_vertices: false,
        triangulate: false,
        gen_normals: false,
        calc_tangent_space: false,
    };
    /// `aiProcess_ConvertToLeftHanded` = MakeLeftHanded | FlipUVs | FlipWindingOrder.
    pub const CONVERT_TO_LEFT_HANDED: Steps = Steps {
        make_left_handed: true,
        flip_uvs: true,
        flip_winding_order: true,
        ..Steps::NONE
    };
    /// The original tool's import: ConvertToLeftHanded | Triangulate | GenUVCoords | GenNormals
    /// | CalcTangentSpace.
    pub const ORIGINAL_TOOL: Steps = Steps {
        make_left_handed: true,
        flip_uvs: true,
        flip_winding_order: true,
        gen_uv_coords: true,
        triangulate: true,
        gen_normals: true,
        calc_tangent_space: true,
        pre_transform_vertices: false,
    };
    /// The original tool's import of static meshes: [`Steps::ORIGINAL_TOOL`] plus
    /// PreTransformVertices.
    pub const ORIGINAL_TOOL_STATIC: Steps = Steps {
        pre_transform_vertices: true,
        ..Steps::ORIGINAL_TOOL
    };

    /// The steps in either set.
    pub const fn union(self, o: Steps) -> Steps {
        Steps {
            make_left_handed: self.make_left_handed | o.make_left_handed,
            flip_uvs: self.flip_uvs | o.flip_uvs,
            flip_winding_order: self.flip_winding_order | o.flip_winding_order,
            gen_uv_coords: self.gen_uv_coords | o.gen_uv_coords,
            pre_transform_vertices: self.pre_transform_vertices | o.pre_transform_vertices,
            triangulate: self.triangulate | o.triangulate,
            gen_normals: self.gen_normals | o.gen_normals,
            calc_tangent_space: self.calc_tangent_space | o.calc_tangent_space,
        }
    }
}

impl BitOr for Steps {
    type Output = Steps;
    fn bitor(self, o: Steps) -> Steps {
        self.union(o)
    }
}

/// Why a step refused a scene. The scene is unchanged when a step returns one (except
/// [`ProcessError::NoOutputMeshes`] from [`process`], see there).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ProcessError {
    /// A mesh breaks what the steps index by ([`kiln_scene::Mesh::validate_geometry`]).
    MalformedMesh {
        /// Index of the mesh in [`Scene::meshes`].
        mesh: usize,
        /// The first rule it breaks.
        error: MeshError,
    },
    /// The node tree cannot be walked (cycle, shared child, index out of range, no root).
    MalformedNodes {
        /// What is wrong.
        error: NodeTreeError,
    },
    /// PreTransformVertices would merge more vertices into one mesh than 32-bit indices can
    /// address.
    MergedMeshTooLarge {
        /// Index the merged mesh would have in the output [`Scene::meshes`].
        mesh: usize,
        /// Its vertex count (above `u32::MAX`).
        vertices: usize,
    },
    /// PreTransformVertices found no mesh with faces referenced by a node (Assimp: "No output
    /// meshes: all meshes are orphaned and are not referenced by any nodes", a failed import).
    NoOutputMeshes,
}

impl fmt::Display for ProcessError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ProcessError::MalformedMesh { mesh, error } => write!(f, "mesh {mesh}: {error}"),
            ProcessError::MalformedNodes { error } => write!(f, "node tree: {error}"),
            ProcessError::MergedMeshTooLarge { mesh, vertices } => {
                write!(f, "mesh {mesh}: merged mesh would have {vertices} vertices")
            }
            ProcessError::NoOutputMeshes => f.write_str(
                "pre_transform_vertices: no output meshes (no node references a mesh with faces)",
            ),
        }
    }
}

impl std::error::Error for ProcessError {}

/// Runs the selected steps in Assimp 5.2.5's order (`PostStepRegistry.cpp`): MakeLeftHanded,
/// FlipUVs, FlipWindingOrder, GenUVCoords (ComputeUVMapping), PreTransformVertices,
/// Triangulate, GenNormals (GenFaceNormals), CalcTangentSpace.
///
/// The scene is checked once before the first step; on error nothing has been changed, except
/// for [`ProcessError::NoOutputMeshes`], which PreTransformVertices reports after the earlier
/// steps ran (Assimp fails the whole import there).
pub fn process(scene: &mut Scene, steps: Steps) -> Result<(), ProcessError> {
    if steps == Steps::NONE {
        return Ok(());
    }
    check::check_meshes(scene)?;
    let order = if steps.pre_transform_vertices {
        Some(check::node_order(scene)?)
    } else {
        None
    };
    if steps.make_left_handed {
        make_left_handed(scene);
    }
    if steps.flip_uvs {
        flip_uvs(scene);
    }
    if steps.flip_winding_order {
        flip_winding_order(scene);
    }
    if steps.gen_uv_coords {
        uvgen::gen_uv_coords_unchecked(scene);
    }
    if let Some(order) = &order {
        pretransform::pre_transform_checked(scene, order)?;
    }
    if steps.triangulate {
        triangulate::triangulate_unchecked(scene);
    }
    if steps.gen_normals {
        normals::gen_normals_unchecked(scene, steps.flip_winding_order);
    }
    if steps.calc_tangent_space {
        tangents::calc_tangent_space_unchecked(scene);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::{Material, Mesh, UvChannel, Vec3};

    #[test]
    fn steps_compose() {
        assert_eq!(
            Steps::ORIGINAL_TOOL | Steps::CONVERT_TO_LEFT_HANDED,
            Steps::ORIGINAL_TOOL
        );
        assert_eq!(
            Steps::ORIGINAL_TOOL
                | Steps {
                    pre_transform_vertices: true,
                    ..Steps::NONE
                },
            Steps::ORIGINAL_TOOL_STATIC
        );
    }

    /// A right-handed quad facing +z, seen through the original tool's steps.
    #[test]
    fn original_tool_on_a_quad() {
        let mut s = Scene::with_root("r");
        s.materials.push(Material::default());
        let mut m = Mesh {
            positions: vec![
                Vec3::new(0.0, 0.0, 0.0),
                Vec3::new(1.0, 0.0, 0.0),
                Vec3::new(1.0, 1.0, 0.0),
                Vec3::new(0.0, 1.0, 0.0),
            ],
            uv_channels: vec![UvChannel {
                components: 2,
                coords: vec![
                    Vec3::new(0.0, 0.0, 0.0),
                    Vec3::new(1.0, 0.0, 0.0),
                    Vec3::new(1.0, 1.0, 0.0),
                    Vec3::new(0.0, 1.0, 0.0),
                ],
                name: String::new(),
            }],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 2, 3]);
        m.update_primitive_types();
        s.meshes.push(m);
        s.nodes[0].meshes.push(0);
        process(&mut s, Steps::ORIGINAL_TOOL).unwrap();
        s.validate().unwrap();
        let m = &s.meshes[0];
        assert_eq!(m.indices, [3, 2, 1, 3, 1, 0]);
        assert_eq!(m.uv_channels[0].coords[0], Vec3::new(0.0, 1.0, 0.0));
        // Assimp 5.2 swaps the cross product for FlipWindingOrder: the normal points to +z in
        // the left-handed space (what real Assimp dumps show for box.obj).
        for n in &m.normals {
            assert_eq!(*n, Vec3::Z);
        }
        for t in &m.tangents {
            assert!((*t - Vec3::X).length() < 1e-6, "{t:?}");
        }
        for b in &m.bitangents {
            assert!((*b + Vec3::Y).length() < 1e-6, "{b:?}");
        }
    }

    #[test]
    fn process_rejects_bad_scene_untouched() {
        let mut s = Scene::with_root("r");
        let mut m = Mesh {
            positions: vec![Vec3::ZERO; 3],
            ..Mesh::default()
        };
        m.push_face(&[0, 1, 5]);
        s.meshes.push(m);
        let before = s.clone();
        let e = process(&mut s, Steps::ORIGINAL_TOOL).unwrap_err();
        assert_eq!(
            e,
            ProcessError::MalformedMesh {
                mesh: 0,
                error: MeshError::IndexOutOfRange {
                    position: 2,
                    index: 5,
                    vertices: 3
                }
            }
        );
        assert_eq!(e.to_string(), "mesh 0: index 5 (at 2) past 3 vertices");
        assert_eq!(s, before);
    }

    #[test]
    fn node_tree_errors_are_typed_and_keep_their_text() {
        let mut s = Scene::with_root("r");
        s.nodes[0].children.push(0);
        let e = pre_transform_vertices(&mut s).unwrap_err();
        assert_eq!(
            e,
            ProcessError::MalformedNodes {
                error: NodeTreeError::ReachedTwice { node: 0 }
            }
        );
        assert_eq!(
            e.to_string(),
            "node tree: node 0 is reached twice (cycle or shared child)"
        );
        s.nodes[0].children = vec![3];
        assert_eq!(
            pre_transform_vertices(&mut s).unwrap_err().to_string(),
            "node tree: node 0 has child 3 of 1"
        );
        s.nodes[0].children.clear();
        s.nodes[0].meshes.push(1);
        assert_eq!(
            pre_transform_vertices(&mut s).unwrap_err().to_string(),
            "node tree: node 0 references mesh 1 of 0"
        );
        s.nodes.clear();
        assert_eq!(
            pre_transform_vertices(&mut s).unwrap_err().to_string(),
            "node tree: no root node"
        );
    }
}

// The README's example runs as a doctest.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
