//! `kiln dump --csv FILE [-o OUT]`: a model's bones and every vertex's position, blend indices
//! and blend weights as CSV, for a model file or a `.mesh` `kiln convert` wrote. Printed to
//! standard output unless `-o` names a file. `--obj` writes the evaluated mesh instead
//! ([`run_obj`]).
//!
//! `--csv` gives two tables, each with a header row, separated by an empty line:
//!
//! ```text
//! bone,name,parent                              one row per bone (parent -1 for the root)
//!
//! part,vertex,x,y,z,i0,i1,i2,i3,w0,w1,w2,w3     one row per vertex, parts in file order
//! ```
//!
//! `part` is the part's index, `vertex` the vertex's index within its part, `i0`–`i3` the
//! bones it is skinned to as integers, and the other numbers are written in the shortest form
//! that reads back as the same 32-bit float (`NaN`, `inf`, `-inf` when not finite). Names are
//! quoted as RFC 4180 says when they hold a comma, a quote or a line break.
//!
//! `--csv-legacy` is the original tool's `Vertices.csv`, byte for byte
//! ([`kiln::anim::csv::write_csv`]): no headers, and every number with six decimals.

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

use kiln::anim::csv::write_csv;
use kiln::format::Model;
use kiln::pipeline::write_atomically;
use kiln::{LoadOptions, load};

use crate::output::out_bytes;

/// Which CSV.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Header rows, integer blend indices, exact numbers (`--csv`).
    Headed,
    /// The original tool's text (`--csv-legacy`).
    Legacy,
}

pub fn run(file: &Path, out: Option<&Path>, format: Format) -> ExitCode {
    let model = match load(file, &LoadOptions::default()) {
        Ok(m) => m,
        Err(e) => {
            crate::output::errln!("kiln: error: {e}");
            return ExitCode::FAILURE;
        }
    };
    let text = match format {
        Format::Headed => headed_csv(&model.model),
        Format::Legacy => write_csv(&model.model),
    };
    emit(&text, out)
}

/// Writes `text` to `out` (or standard output), names as the bytes the model file had, as in
/// the classic `.mesh` (`kiln::scene::names`).
fn emit(text: &str, out: Option<&Path>) -> ExitCode {
    let bytes = kiln::scene::names::to_bytes(text);
    match out {
        Some(path) => {
            if let Err(e) = write_atomically(path, &bytes) {
                crate::output::errln!("kiln: error: {}: cannot write: {e}", path.display());
                return ExitCode::FAILURE;
            }
        }
        None => out_bytes(&bytes),
    }
    ExitCode::SUCCESS
}

/// The `--csv` text of `model` (see the module).
fn headed_csv(model: &Model) -> String {
    let vertices: usize = model.meshes.iter().map(|m| m.vertices.len()).sum();
    let mut out = String::with_capacity(64 + model.bones.len() * 24 + vertices * 80);
    // Writing to a String cannot fail.
    out.push_str("bone,name,parent\n");
    for bone in &model.bones {
        let _ = writeln!(out, "{},{},{}", bone.index, field(&bone.name), bone.parent);
    }
    out.push_str("\npart,vertex,x,y,z,i0,i1,i2,i3,w0,w1,w2,w3\n");
    for (p, part) in model.meshes.iter().enumerate() {
        for (i, v) in part.vertices.iter().enumerate() {
            let _ = write!(out, "{p},{i}");
            for x in v.position {
                let _ = write!(out, ",{x}");
            }
            for x in v.blend_indices {
                out.push(',');
                push_index(&mut out, x);
            }
            for x in v.blend_weights {
                let _ = write!(out, ",{x}");
            }
            out.push('\n');
        }
    }
    out
}

/// A blend index (stored as a float) as an integer; one that is not a whole number (never
/// written by kiln) keeps its fraction, so that it shows rather than being rounded away.
fn push_index(out: &mut String, x: f32) {
    if x.is_finite() && x.fract() == 0.0 && x.abs() < 1e15 {
        let _ = write!(out, "{}", x as i64);
    } else {
        let _ = write!(out, "{x}");
    }
}

/// `s` as one CSV field: quoted, with quotes doubled, when it holds a comma, a quote or a line
/// break (RFC 4180).
fn field(s: &str) -> std::borrow::Cow<'_, str> {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\"")).into()
    } else {
        s.into()
    }
}

/// `kiln dump --obj [--clip NAME] [--frame F] FILE`: the evaluated mesh as Wavefront OBJ.
///
/// Each part is an `o` group of its vertices (`v`), normals (`vn`) and triangles (`f a//a …`,
/// 1-based over the whole file). Without `--clip`: the bind pose, every morph target at its
/// weight at rest. With `--clip`: frame `F` (fractions allowed, clamped to the clip) of that
/// clip, as the engine draws it: each weight track's weight lerped between the frames around
/// `F`, the morph targets applied to the part's vertices (in-betweens as ufbx evaluates them),
/// then skinned with the baked palette at `F` (`kiln_anim::morph_and_skin`). So a posed,
/// morphed result can be checked against other tools and looked at in any viewer.
pub fn run_obj(file: &Path, out: Option<&Path>, clip: Option<&str>, frame: f32) -> ExitCode {
    match obj_text(file, clip, frame) {
        Ok(text) => emit(&text, out),
        Err(message) => {
            crate::output::errln!("kiln: error: {}: {message}", file.display());
            ExitCode::FAILURE
        }
    }
}

fn obj_text(file: &Path, clip: Option<&str>, frame: f32) -> Result<String, String> {
    use kiln::anim::{
        Wrap, apply_morphs, morph_and_skin, palette, part_shapes, targets_of, track_weights,
    };
    if !frame.is_finite() {
        return Err(format!("--frame {frame} is not a number of frames"));
    }
    let loaded = crate::verify::load(file, &[]).map_err(|f| f.message)?;
    let (model, baked) = (&loaded.animated, &loaded.baked);
    let picked = match clip {
        None => None,
        Some(_) => Some(crate::verify::pick_clips(baked, clip).map_err(|f| f.message)?[0]),
    };
    let mut pal = vec![kiln::scene::Mat4::IDENTITY; baked.skeleton.len()];
    if let Some(c) = picked {
        palette(&baked.bake, c, frame, Wrap::Clamp, &mut pal).map_err(|e| e.to_string())?;
    }
    let mut text = String::new();
    let _ = writeln!(
        text,
        "# kiln dump --obj: {}{}",
        file.display(),
        match (clip, picked) {
            (Some(name), Some(_)) => format!(", clip '{name}' frame {frame}"),
            _ => ", bind pose".into(),
        }
    );
    let mut base = 1usize;
    for (p, part) in model.model.meshes.iter().enumerate() {
        // This part's target weights: the clip's tracks at the frame, or the rest weights.
        let mut weights = vec![0.0f32; part.morph_targets.len()];
        let clip = picked.and_then(|c| model.clips.get(c));
        let pair = Wrap::Clamp.frames(frame, clip.map_or(1, |c| c.frame_count));
        track_weights(
            p,
            &part.morph_targets,
            clip,
            pair.current as usize,
            pair.next as usize,
            pair.t,
            &mut weights,
        );
        let shapes = part_shapes(part);
        let targets = targets_of(&shapes);
        let n = part.vertices.len();
        let (mut positions, mut normals) = (vec![[0.0f32; 3]; n], vec![[0.0f32; 3]; n]);
        if picked.is_some() {
            let mut morphed = part.vertices.clone();
            let mut tangents = vec![[0.0f32; 3]; n];
            morph_and_skin(
                &pal,
                &part.vertices,
                &targets,
                &weights,
                &mut morphed,
                &mut positions,
                &mut normals,
                &mut tangents,
            )
            .map_err(|e| format!("part {p}: {e}"))?;
        } else {
            let bp: Vec<[f32; 3]> = part.vertices.iter().map(|v| v.position).collect();
            let bn: Vec<[f32; 3]> = part.vertices.iter().map(|v| v.normal).collect();
            apply_morphs(&bp, &bn, &targets, &weights, &mut positions, &mut normals)
                .map_err(|e| format!("part {p}: {e}"))?;
        }
        let _ = writeln!(text, "o {}", part.name);
        for v in &positions {
            let _ = writeln!(text, "v {} {} {}", v[0], v[1], v[2]);
        }
        for v in &normals {
            let _ = writeln!(text, "vn {} {} {}", v[0], v[1], v[2]);
        }
        for tri in part.indices.chunks_exact(3) {
            let [a, b, c] = [tri[0], tri[1], tri[2]].map(|i| i as usize + base);
            let _ = writeln!(text, "f {a}//{a} {b}//{b} {c}//{c}");
        }
        base += n;
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln::format::{Bone, IDENTITY, MeshPart, Vertex};

    #[test]
    fn headers_integer_indices_exact_numbers_and_quoted_names() {
        let model = Model {
            bones: vec![
                Bone {
                    index: 0,
                    parent: -1,
                    name: "Root Node".into(),
                    transform: IDENTITY,
                },
                Bone {
                    index: 1,
                    parent: 0,
                    name: "arm, \"left\"".into(),
                    transform: IDENTITY,
                },
            ],
            meshes: vec![MeshPart {
                name: "body".into(),
                vertices: vec![
                    Vertex {
                        position: [1.5, -0.0, 0.0078125],
                        blend_indices: [1.0, 0.0, 300.0, 0.5],
                        blend_weights: [0.75, 0.25, 0.0, 0.1],
                        ..Vertex::default()
                    },
                    Vertex {
                        position: [f32::NAN, f32::NEG_INFINITY, 16777216.0],
                        blend_indices: [f32::NAN, 0.0, 0.0, 0.0],
                        blend_weights: [1.0, 0.0, 0.0, 0.0],
                        ..Vertex::default()
                    },
                ],
                indices: vec![],
                bone_index: 1,
                material_name: String::new(),
                morph_targets: Vec::new(),
            }],
        };
        assert_eq!(
            headed_csv(&model),
            "bone,name,parent\n0,Root Node,-1\n1,\"arm, \"\"left\"\"\",0\n\n\
             part,vertex,x,y,z,i0,i1,i2,i3,w0,w1,w2,w3\n\
             0,0,1.5,-0,0.0078125,1,0,300,0.5,0.75,0.25,0,0.1\n\
             0,1,NaN,-inf,16777216,NaN,0,0,0,1,0,0,0\n"
        );
    }
}
