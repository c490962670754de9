//! `kiln dump --csv FILE [-o OUT]`: a model's bones and every vertex's position, blend indices
//! and blend weights as CSV, for a model file or a `.mesh` `kiln convert` wrote. Printed to
//! standard output unless `-o` names a file.
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
    // Bone names as the bytes the model file had, as in the classic `.mesh` (`kiln::scene::names`).
    let bytes = kiln::scene::names::to_bytes(&text);
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
