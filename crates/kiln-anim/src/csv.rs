//! The CSV dump of reference `003`: the bone list, then every vertex of every mesh part with its
//! position, blend indices and blend weights, printed as the original's `fprintf` calls did.
//!
//! ```text
//! INDEX,NAME                      one line per bone ("%d,%s\n")
//!                                 an empty line
//! px,py,pz,i0,i1,i2,i3,w0,w1,w2,w3   one line per vertex, parts in file order, each number "%f"
//! ```
//! `%f` is six decimals, rounded to nearest (ties to even, as glibc does); NaN prints `nan` or
//! `-nan` and infinities `inf`/`-inf` as glibc does. The original also printed each part's
//! name to the console (not into the file); kiln leaves it out of the CSV.

use alloc::string::String;
use core::fmt::Write;

use kiln_format::Model;

/// The CSV text of `model`.
pub fn write_csv(model: &Model) -> String {
    let vertices: usize = model.meshes.iter().map(|m| m.vertices.len()).sum();
    let mut out = String::with_capacity(model.bones.len() * 24 + 1 + vertices * 100);
    for bone in &model.bones {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "{},{}", bone.index, bone.name);
    }
    out.push('\n');
    for part in &model.meshes {
        for v in &part.vertices {
            let numbers = v
                .position
                .iter()
                .chain(&v.blend_indices)
                .chain(&v.blend_weights);
            for (i, x) in numbers.enumerate() {
                if i > 0 {
                    out.push(',');
                }
                push_f(&mut out, *x);
            }
            out.push('\n');
        }
    }
    out
}

/// C's `%f` of a float promoted to double.
fn push_f(out: &mut String, x: f32) {
    if x.is_nan() {
        out.push_str(if x.is_sign_negative() { "-nan" } else { "nan" });
    } else {
        // Rust prints the exact binary value rounded half to even, as glibc does, and keeps the
        // sign of negative zero; infinities print as `inf` / `-inf` like C.
        let _ = write!(out, "{:.6}", x as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::vec;
    use kiln_format::{Bone, IDENTITY, MeshPart, Vertex};

    #[test]
    fn bones_then_a_blank_line_then_one_line_per_vertex() {
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
                    name: "arm".into(),
                    transform: IDENTITY,
                },
            ],
            meshes: vec![MeshPart {
                name: "body".into(),
                vertices: vec![
                    Vertex {
                        position: [1.5, -0.0, 0.0078125],
                        blend_indices: [1.0, 0.0, 0.0, 0.0],
                        blend_weights: [0.75, 0.25, 0.0, 0.0],
                        ..Vertex::default()
                    },
                    Vertex {
                        position: [f32::NAN, -f32::NAN, f32::INFINITY],
                        blend_weights: [1.0, 0.0, 0.0, 0.0],
                        ..Vertex::default()
                    },
                ],
                indices: vec![],
                bone_index: 1,
                material_name: String::new(),
                morph_targets: Default::default(),
            }],
        };
        assert_eq!(
            write_csv(&model),
            "0,Root Node\n1,arm\n\n\
             1.500000,-0.000000,0.007812,1.000000,0.000000,0.000000,0.000000,0.750000,0.250000,0.000000,0.000000\n\
             nan,-nan,inf,0.000000,0.000000,0.000000,0.000000,1.000000,0.000000,0.000000,0.000000\n"
        );
    }
}
