//! Options → output files in memory: a [`Loaded`] model encoded as `NAME.mesh`, `NAME.xml`, one
//! `NAME_CLIPNAME.clip` per clip and the textures its materials use. Nothing is written here.

use kiln_format::MaterialData;
use kiln_scene::Warning;

use crate::codes;
use crate::error::{Error, Result};
use crate::load::Loaded;

/// Which byte layout the `.mesh`/`.clip` files use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Layout {
    /// The zero-copy kiln layout (`docs/format.md`).
    #[default]
    Kiln,
    /// Byte-compatible with the original tool (`docs/format-classic.md`).
    Classic,
}

/// How a loaded model is encoded.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EncodeOptions {
    /// The byte layout.
    pub layout: Layout,
    /// Compact vertex streams in the kiln layout (the classic layout has none).
    pub quantize: kiln_format::kiln::Quantize,
}

/// One output file, in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct OutputFile {
    /// File name inside the output folder.
    pub name: String,
    /// Its content.
    pub bytes: Vec<u8>,
}

/// The encoded outputs of one model.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Encoded {
    /// `NAME.mesh`, `NAME.xml`, the clips, then the textures, in that order.
    pub files: Vec<OutputFile>,
    /// Textures that could not be had (each left out of `files`).
    pub warnings: Vec<Warning>,
}

/// Encodes every output of `loaded`. A texture that cannot be read is left out with a
/// warning; an output that cannot be encoded (a count past the layout's limits) is an error.
pub fn encode(loaded: &Loaded, options: &EncodeOptions) -> Result<Encoded> {
    encode_with(loaded, options, &mut crate::load::FileSystem)
}

/// The `.mesh` file name of `loaded`.
pub(crate) fn mesh_file_name(loaded: &Loaded) -> String {
    mesh_file_name_of(&loaded.name)
}

/// The `.mesh` file name of outputs named `name` (what [`mesh_file_name`] gives once a model
/// is loaded).
pub(crate) fn mesh_file_name_of(name: &str) -> String {
    format!("{name}.mesh")
}

/// A `.mesh` checked and ready to be written, left out of [`Encoded::files`] so that the
/// pipeline can stream it to disk: a large model's file is never held whole in memory beside
/// the model.
#[derive(Debug)]
pub(crate) enum MeshStream {
    /// The classic layout, written from the model's arrays (`classic::write_mesh_to`):
    /// `loaded.model`, or its classic bone list when it has helper bones
    /// ([`kiln_extract::classic_model`]).
    Classic(Option<kiln_format::Model>),
    /// The kiln layout, checked and encoded section by section (`kiln::MeshFile`).
    Kiln(kiln_format::kiln::MeshFile),
    /// The kiln layout with `f32` streams, checked and laid out, its vertex streams written
    /// as the pending vertices are built (`kiln::MeshPlan`): [`MeshStream::write_planned_to`].
    KilnPlanned(kiln_format::kiln::MeshPlan),
}

/// The error of writing a planned kiln-layout mesh without its pending vertices.
fn planned_needs_vertices() -> std::io::Error {
    std::io::Error::new(
        std::io::ErrorKind::InvalidInput,
        "a planned kiln-layout .mesh is written from its pending vertices",
    )
}

impl MeshStream {
    /// Writes the mesh of `loaded` to `out`.
    pub(crate) fn write_to(
        &self,
        loaded: &Loaded,
        out: &mut impl std::io::Write,
    ) -> std::io::Result<()> {
        match self {
            MeshStream::Classic(m) => {
                kiln_format::classic::write_mesh_to(m.as_ref().unwrap_or(&loaded.model), out)
            }
            MeshStream::Kiln(file) => file.write_to(out),
            MeshStream::KilnPlanned(_) => Err(planned_needs_vertices()),
        }
    }

    /// The size in bytes of the file [`MeshStream::write_planned_to`] or
    /// [`MeshStream::write_pending_to`] writes with `pending` (a classic mesh's vertex counts
    /// are `pending`'s), when it is known before the write: what the batch reserves on disk.
    pub(crate) fn len_with(
        &self,
        loaded: &Loaded,
        pending: &kiln_extract::PendingVertices,
    ) -> Option<usize> {
        match self {
            MeshStream::KilnPlanned(plan) => Some(plan.len()),
            MeshStream::Classic(m) => {
                let counts: Vec<usize> = (0..pending.parts()).map(|k| pending.len(k)).collect();
                let model = m.as_ref().unwrap_or(&loaded.model);
                Some(kiln_format::classic::mesh_len_with(model, &counts))
            }
            MeshStream::Kiln(_) => None,
        }
    }

    /// Writes a planned kiln-layout mesh into `out` (an empty file) in file order, each vertex
    /// stream built by `pending` a run at a time (`kiln::MeshPlan::write_streams_hashed`);
    /// gives the file's checksum and its XXH3-128. Any other mesh is refused (`InvalidInput`): it has its own writers.
    pub(crate) fn write_planned_to(
        &self,
        pending: &mut kiln_extract::PendingVertices,
        out: &mut (impl std::io::Write + std::io::Seek + Send),
    ) -> std::io::Result<(u64, u128)> {
        let MeshStream::KilnPlanned(plan) = self else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "only a planned kiln-layout .mesh is written in place",
            ));
        };
        // Stream by stream in file order, each built straight from the scene's arrays: no
        // vertex structs, no writes at scattered offsets, and both hashes on the way.
        plan.write_streams_hashed(pending, out)
    }

    /// [`MeshStream::write_to`] of a classic mesh whose parts' vertices `pending` builds
    /// (`loaded.model`'s parts have none), as [`write_classic_mesh_pending`] writes it. A
    /// kiln-layout stream has its vertices; it is written as it is.
    pub(crate) fn write_pending_to(
        &self,
        loaded: &Loaded,
        pending: &mut kiln_extract::PendingVertices,
        out: &mut (impl std::io::Write + Send),
    ) -> std::io::Result<()> {
        match self {
            MeshStream::Classic(m) => {
                stream_classic(m.as_ref().unwrap_or(&loaded.model), loaded, pending, out)
            }
            MeshStream::Kiln(_) | MeshStream::KilnPlanned(_) => self.write_to(loaded, out),
        }
    }

    /// The mesh's bytes, as [`MeshStream::write_to`] writes them.
    fn into_bytes(self, loaded: &Loaded) -> std::io::Result<Vec<u8>> {
        match self {
            MeshStream::Classic(m) => Ok(kiln_format::classic::write_mesh(
                m.as_ref().unwrap_or(&loaded.model),
            )),
            MeshStream::Kiln(file) => Ok(file.into_bytes()),
            MeshStream::KilnPlanned(_) => Err(planned_needs_vertices()),
        }
    }
}

/// Writes `loaded`'s classic `.mesh` (as [`encode`] would give it) to `out`, its parts'
/// vertices built by `pending` ([`crate::load::from_scene_pending`]; `loaded.model`'s parts
/// have none): each part's vertices are built a run at a time into one of two buffers, the
/// next run beside the last one's write, and what the part held is freed once it is out. So
/// the model's whole vertex array is never in memory: what `kiln convert` writes.
pub fn write_classic_mesh_pending(
    loaded: &Loaded,
    pending: &mut kiln_extract::PendingVertices,
    out: &mut (impl std::io::Write + Send),
) -> std::io::Result<()> {
    // One bone per node, as `encode` writes the classic layout (helper bones left out).
    let classic = kiln_extract::classic_model(&loaded.model).map(|(model, _)| model);
    stream_classic(
        classic.as_ref().unwrap_or(&loaded.model),
        loaded,
        pending,
        out,
    )
}

/// [`write_classic_mesh_pending`] with the classic bone list already made: `model`.
fn stream_classic(
    model: &kiln_format::Model,
    loaded: &Loaded,
    pending: &mut kiln_extract::PendingVertices,
    out: &mut (impl std::io::Write + Send),
) -> std::io::Result<()> {
    // The classic bone list's numbers, where helper bones were left out of it.
    let map = kiln_extract::classic_bone_map(&loaded.model);
    let counts: Vec<usize> = (0..pending.parts()).map(|k| pending.len(k)).collect();
    let mut runs = Runs::new(pending, map);
    kiln_format::classic::write_mesh_with(
        model,
        &counts,
        &mut |k, put| runs.put_part(pending, k, put),
        out,
    )
}

/// Builds parts' pending vertices a run at a time for a writer: two buffers, the next run
/// built while the last one is handed over (on another of rayon's threads).
struct Runs {
    ready: Vec<kiln_format::Vertex>,
    next: Vec<kiln_format::Vertex>,
    /// The classic bone list's numbers, where helper bones were left out of it.
    map: Option<Vec<usize>>,
}

impl Runs {
    /// Vertices per run: 1.2 MB, each written (and hashed, beside the write) in one piece.
    /// Runs of 65,536 (4.9 MB) took the same time at 400k triangles and 0.5 MB more at 50k.
    const RUN: usize = 1 << 14;

    /// Buffers for the parts of `pending`, each vertex's bones renumbered by `map`.
    fn new(pending: &kiln_extract::PendingVertices, map: Option<Vec<usize>>) -> Runs {
        let longest = (0..pending.parts())
            .map(|k| pending.len(k))
            .max()
            .unwrap_or(0);
        let ready = vec![kiln_format::Vertex::default(); Self::RUN.min(longest)];
        // (Only a part of more than one run needs the second.)
        let next = if longest > Self::RUN {
            ready.clone()
        } else {
            Vec::new()
        };
        Runs { ready, next, map }
    }

    /// Hands part `k`'s vertices to `put` in runs, then frees what the part held in
    /// `pending`.
    fn put_part(
        &mut self,
        pending: &mut kiln_extract::PendingVertices,
        k: usize,
        put: &mut kiln_format::classic::PutVertices<'_>,
    ) {
        let map = self.map.as_deref();
        let build = |pending: &kiln_extract::PendingVertices,
                     start: usize,
                     run: &mut [kiln_format::Vertex]| {
            pending.fill(k, start, run);
            if let Some(map) = map {
                run.iter_mut()
                    .for_each(|v| kiln_extract::classic_vertex(v, map));
            }
        };
        let n = pending.len(k);
        let len = |start: usize| Self::RUN.min(n - start);
        let (ready, next) = (&mut self.ready, &mut self.next);
        if n > 0 {
            build(pending, 0, &mut ready[..len(0)]);
        }
        let mut start = 0;
        while start < n {
            let after = start + len(start);
            if after >= n {
                put(&ready[..len(start)]);
                break;
            }
            let shared: &kiln_extract::PendingVertices = pending;
            rayon::join(
                || put(&ready[..len(start)]),
                || build(shared, after, &mut next[..len(after)]),
            );
            std::mem::swap(ready, next);
            start = after;
        }
        pending.release(k);
        if k + 1 == pending.parts() {
            // The last part is out: the buffers go back before the writer's tail (the kiln
            // layout's read-back for its checksum takes a buffer of its own).
            (self.ready, self.next) = (Vec::new(), Vec::new());
        }
    }
}

/// [`encode_parts`] and the textures: [`encode`] but for the `.mesh`.
pub(crate) fn encode_with_textures(
    loaded: &Loaded,
    options: &EncodeOptions,
) -> Result<(Encoded, MeshStream)> {
    encode_with_textures_from(loaded, options, &mut crate::load::FileSystem)
}

/// [`encode`], reading the textures that are not embedded through `files` (the model's
/// folder is where they are looked for, as [`Loaded::find_texture`] looks).
pub fn encode_with(
    loaded: &Loaded,
    options: &EncodeOptions,
    files: &mut dyn crate::load::Files,
) -> Result<Encoded> {
    let (mut encoded, mesh) = encode_with_textures_from(loaded, options, files)?;
    let name = mesh_file_name(loaded);
    let bytes = mesh
        .into_bytes(loaded)
        .map_err(|e| Error::Write(e).with_path(std::path::Path::new(&name)))?;
    encoded.files.insert(0, OutputFile { name, bytes });
    Ok(encoded)
}

fn encode_with_textures_from(
    loaded: &Loaded,
    options: &EncodeOptions,
    files: &mut dyn crate::load::Files,
) -> Result<(Encoded, MeshStream)> {
    let (mut encoded, mesh) = encode_parts(loaded, options)?;
    let mesh_name = mesh_file_name(loaded);
    // Textures are told apart from the other outputs, the mesh included, by name.
    for m in loaded.materials.iter().flatten() {
        for tex in m.textures() {
            let file = tex.file_name().to_string();
            if file.is_empty() || file == mesh_name || encoded.files.iter().any(|o| o.name == file)
            {
                continue;
            }
            match loaded.find_texture(tex, files).map(|(_, bytes)| bytes) {
                Ok(bytes) => encoded.files.push(OutputFile { name: file, bytes }),
                Err(why) => encoded
                    .warnings
                    .push(Warning::new(codes::TEXTURE_MISSING, why.to_string()).at(file)),
            }
        }
    }
    Ok((encoded, mesh))
}

/// The `.mesh` (as a [`MeshStream`]: its checks and encoding errors happen here, before
/// anything else is encoded), the `.xml` and the clips; not the textures, which the caller
/// names and reads ([`encode_with_textures`], `kiln::batch`).
pub(crate) fn encode_parts(
    loaded: &Loaded,
    options: &EncodeOptions,
) -> Result<(Encoded, MeshStream)> {
    encode_parts_from(loaded, Source::Model, options)
}

/// [`encode_parts`], the kiln layout freeing each part's vertex array once its streams are
/// encoded (`kiln_format::kiln::encode_mesh_taking_vertices`), so that the model's vertices and
/// the file's streams are not all held at once: `loaded.model`'s parts have no vertices
/// afterwards (whatever the outcome), so the caller takes its counts before. With `pending`
/// (the parts' vertices left out of `loaded.model`, [`crate::load::process_scene_with`]), a
/// kiln-layout mesh with `f32` streams is planned instead ([`MeshStream::KilnPlanned`]), its
/// streams written from `pending` as they are built. What `kiln::batch` runs; the classic
/// layout streams from the model at write time and takes nothing.
pub(crate) fn encode_parts_taking_vertices(
    loaded: &mut Loaded,
    options: &EncodeOptions,
    pending: Option<&kiln_extract::PendingVertices>,
) -> Result<(Encoded, MeshStream)> {
    if options.layout != Layout::Kiln {
        return encode_parts(loaded, options);
    }
    if let Some(pending) = pending.filter(|_| defers_vertices(options)) {
        let counts: Vec<usize> = (0..pending.parts()).map(|k| pending.len(k)).collect();
        return encode_parts_from(loaded, Source::Planned(&counts), options);
    }
    let mut model = std::mem::take(&mut loaded.model);
    let encoded = encode_parts_from(loaded, Source::Taken(&mut model), options);
    loaded.model = model;
    encoded
}

/// Whether a `.mesh` of `options` is written from pending vertices, built as they go out
/// (`kiln convert`): the classic layout, and the kiln layout with `f32` streams (quantised
/// streams need the bounds of every vertex before the first is encoded).
pub(crate) fn defers_vertices(options: &EncodeOptions) -> bool {
    options.layout == Layout::Classic || options.quantize == kiln_format::kiln::Quantize::None
}

/// Where [`encode_parts_from`] has the kiln layout's vertices from.
enum Source<'a> {
    /// `loaded.model`'s parts.
    Model,
    /// The model taken from `loaded`, its vertices freed as they are encoded.
    Taken(&'a mut kiln_format::Model),
    /// Nowhere yet: part `k` will have `counts[k]`, the mesh planned (`f32` streams, whatever
    /// the options say: [`defers_vertices`]).
    Planned(&'a [usize]),
}

/// [`encode_parts`], the kiln layout's vertices from `source`.
fn encode_parts_from(
    loaded: &Loaded,
    source: Source<'_>,
    options: &EncodeOptions,
) -> Result<(Encoded, MeshStream)> {
    let name = &loaded.name;
    let materials: Vec<MaterialData> = match &loaded.materials {
        Ok(m) => m.iter().map(|m| m.data.clone()).collect(),
        Err(_) => Vec::new(),
    };
    let mut files = Vec::with_capacity(1 + loaded.clips.len());
    let mesh_name = mesh_file_name(loaded);
    let mut warnings = Vec::new();
    let mesh = match options.layout {
        Layout::Classic => {
            let targets: usize = loaded
                .model
                .meshes
                .iter()
                .map(|p| p.morph_targets.len())
                .sum();
            let tracks: usize = loaded.clips.iter().map(|c| c.weight_tracks.len()).sum();
            if targets + tracks > 0 {
                warnings.push(
                    Warning::new(
                        codes::CLASSIC_MORPH_DROPPED,
                        format!(
                            "classic layout: {targets} morph target(s) and {tracks} weight \
                             track(s) left out, the parts keep their base shape (the classic \
                             files have no place for them; --layout kiln writes them)"
                        ),
                    )
                    .at(mesh_name.clone()),
                );
            }
            // One bone per node, as the original tool wrote: the helper bones carry offsets
            // the classic file cannot store.
            let classic = kiln_extract::classic_model(&loaded.model).map(|(model, left_out)| {
                warnings.push(
                    Warning::new(
                        codes::CLASSIC_HELPER_BONES,
                        format!(
                            "classic layout: {left_out} helper bone(s) for nodes that need two \
                             offset matrices left out, their vertices bound to the nodes' own \
                             bones (the classic file stores no offsets; --layout kiln draws \
                             them exactly)"
                        ),
                    )
                    .at(mesh_name.clone()),
                );
                model
            });
            MeshStream::Classic(classic)
        }
        Layout::Kiln => {
            let offsets = loaded.offsets_or_identity();
            let mesh_options = kiln_format::kiln::MeshOptions {
                quantize: options.quantize,
                offset_matrices: Some(&offsets),
            };
            let encode_error = |source| Error::Encode {
                file: mesh_name.clone(),
                source,
            };
            match source {
                Source::Planned(counts) => {
                    let plan = kiln_format::kiln::plan_mesh(
                        &loaded.model,
                        counts,
                        &materials,
                        Some(&offsets),
                    )
                    .map_err(encode_error)?;
                    MeshStream::KilnPlanned(plan)
                }
                Source::Taken(model) => MeshStream::Kiln(
                    kiln_format::kiln::encode_mesh_taking_vertices(
                        model,
                        &materials,
                        &mesh_options,
                    )
                    .map_err(encode_error)?,
                ),
                Source::Model => MeshStream::Kiln(
                    kiln_format::kiln::encode_mesh(&loaded.model, &materials, &mesh_options)
                        .map_err(encode_error)?,
                ),
            }
        }
    };
    files.push(OutputFile {
        name: format!("{name}.xml"),
        // Names and texture paths as the bytes the model file had (`kiln_scene::names`), as
        // the original tool wrote them.
        bytes: kiln_scene::names::to_bytes(&kiln_format::xml::write_materials(&materials))
            .into_owned(),
    });
    for (clip, file) in loaded.clips.iter().zip(&loaded.clip_files) {
        let bytes = match options.layout {
            Layout::Classic => match kiln_extract::classic_clip(clip, &loaded.model) {
                Some(c) => kiln_format::classic::write_clip(&c),
                None => kiln_format::classic::write_clip(clip),
            },
            Layout::Kiln => {
                kiln_format::kiln::write_clip(clip).map_err(|source| Error::Encode {
                    file: file.clone(),
                    source,
                })?
            }
        };
        files.push(OutputFile {
            name: file.clone(),
            bytes,
        });
    }
    Ok((Encoded { files, warnings }, mesh))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::{LoadOptions, process_scene_with};
    use kiln_scene::{Mesh, Node, Scene, Vec3};
    use std::path::Path;

    /// The classic `.mesh` `kiln convert` streams from the scene's arrays (the vertices built
    /// a run at a time) is the one written from the whole model.
    fn streams_the_same_bytes(scene: Scene) -> Vec<kiln_scene::Warning> {
        let path = Path::new("model.fbx");
        let load = LoadOptions::default();
        let (whole, none) = process_scene_with(scene.clone(), path, &load, false).unwrap();
        assert!(none.is_none());
        let (lean, pending) = process_scene_with(scene.clone(), path, &load, true).unwrap();
        let mut pending = pending.unwrap();
        assert!(!whole.model.meshes.is_empty());
        assert!(lean.model.meshes.iter().all(|m| m.vertices.is_empty()));
        let counts: Vec<usize> = whole
            .model
            .meshes
            .iter()
            .map(|m| m.vertices.len())
            .collect();
        assert_eq!(
            (0..pending.parts())
                .map(|k| pending.len(k))
                .collect::<Vec<_>>(),
            counts
        );
        let options = EncodeOptions {
            layout: Layout::Classic,
            ..EncodeOptions::default()
        };
        let (encoded_whole, mesh_whole) = encode_parts(&whole, &options).unwrap();
        let (encoded_lean, mesh_lean) = encode_parts(&lean, &options).unwrap();
        assert_eq!(encoded_lean.files, encoded_whole.files);
        let mut want = Vec::new();
        mesh_whole.write_to(&whole, &mut want).unwrap();
        let mut got = Vec::new();
        mesh_lean
            .write_pending_to(&lean, &mut pending, &mut got)
            .unwrap();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "the streamed .mesh differs");
        // Every part released as it went out.
        assert!(pending.is_empty());
        // The kiln layout, planned and written in place from the pending vertices.
        let kiln = EncodeOptions::default();
        let (_, mesh_whole) = encode_parts(&whole, &kiln).unwrap();
        let mut want_kiln = Vec::new();
        mesh_whole.write_to(&whole, &mut want_kiln).unwrap();
        let (mut lean, pending) = process_scene_with(scene.clone(), path, &load, true).unwrap();
        let mut pending = pending.unwrap();
        let (encoded_lean, mesh_lean) =
            encode_parts_taking_vertices(&mut lean, &kiln, Some(&pending)).unwrap();
        assert!(matches!(mesh_lean, MeshStream::KilnPlanned(_)));
        assert_eq!(
            encoded_lean.files,
            encode_parts(&whole, &kiln).unwrap().0.files
        );
        // Written only from its pending vertices.
        assert!(mesh_lean.write_to(&lean, &mut Vec::new()).is_err());
        let mut file = std::io::Cursor::new(Vec::new());
        let (sum, hash) = mesh_lean.write_planned_to(&mut pending, &mut file).unwrap();
        assert_eq!(sum, kiln_format::kiln::checksum(&want_kiln));
        assert_eq!(hash, xxhash_rust::xxh3::xxh3_128(&want_kiln));
        assert!(
            file.into_inner() == want_kiln,
            "the planned kiln .mesh differs"
        );
        assert!(pending.is_empty());
        // And the public way in, from the scene as processed.
        let mut processed = scene;
        crate::load::change_units_and_axes(&mut processed, &load).unwrap();
        crate::load::process_for_engine(&mut processed, &load).unwrap();
        let (lean, mut pending) = crate::load::from_scene_pending(processed, path, &load);
        let mut again = Vec::new();
        write_classic_mesh_pending(&lean, &mut pending, &mut again).unwrap();
        assert!(again == want, "the public streamed .mesh differs");
        encoded_whole.warnings
    }

    #[test]
    fn a_streamed_mesh_with_shared_meshes_helper_bones_and_targets_is_the_whole_ones() {
        let mut scene = kiln_testkit::fixtures::morph::morph_tube();
        // The skinned mesh drawn again by a second node: two parts read one mesh.
        let copy = scene.add_child(0, Node::new("copy"));
        scene.nodes[copy].meshes.push(0);
        // A rigid prop on a bone the skin gives an offset: a rigid helper bone, left out of
        // the classic file, its vertices bound to the bone itself.
        let bone = scene
            .nodes
            .iter()
            .position(|n| {
                scene.meshes[0]
                    .bones
                    .iter()
                    .skip(1)
                    .any(|b| b.name == n.name)
            })
            .unwrap();
        let mut prop = Mesh {
            name: "prop".into(),
            positions: vec![Vec3::ZERO, Vec3::X, Vec3::Y],
            normals: vec![Vec3::Z; 3],
            ..Mesh::default()
        };
        prop.push_face(&[0, 1, 2]);
        prop.update_primitive_types();
        scene.meshes.push(prop);
        scene.nodes[bone].meshes.push(scene.meshes.len() - 1);
        let warnings = streams_the_same_bytes(scene);
        let codes: Vec<&str> = warnings.iter().map(|w| w.code).collect();
        assert!(codes.contains(&codes::CLASSIC_HELPER_BONES), "{codes:?}");
        assert!(codes.contains(&codes::CLASSIC_MORPH_DROPPED), "{codes:?}");
    }

    #[test]
    fn a_part_longer_than_a_run_streams_the_same_bytes() {
        let (bytes, _) = kiln_testkit::fixtures::export_like::export_like_fbx(
            kiln_testkit::fixtures::export_like::ExportSpec {
                materials: 1,
                ..kiln_testkit::fixtures::export_like::ExportSpec::triangles(40_000)
            },
        );
        let scene = kiln_fbx_scene::import(&bytes).unwrap();
        assert_eq!(scene.meshes.len(), 1);
        // Two runs of the double buffer at least.
        assert!(scene.meshes[0].positions.len() > 1 << 16);
        streams_the_same_bytes(scene);
    }
}
