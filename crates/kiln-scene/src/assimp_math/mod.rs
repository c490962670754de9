//! Assimp 5.2's single-precision arithmetic, with its exact formulas and operation order, so
//! that the importers (FBX pivot chains, offset matrices, animation keys) and the processing
//! steps (PreTransformVertices, normals, tangents, triangulation) reproduce Assimp's float
//! results bit for bit. This is the one home of that arithmetic: no other crate writes these
//! formulas again.
//!
//! Matrices are stored by rows as Assimp stores them: `m[row][col]`, `a1..a4` is row 0, with
//! column vectors (`v' = M * v`, as Assimp and glam). [`Rows`] is the bare array, [`M4`] the
//! matrix type the FBX importer computes with; [`mat4`] applies the same arithmetic to the
//! scene's glam matrices.
//!
//! [`determinant`] and [`inverse`] need nothing but `core`. Everything that takes a square
//! root, a sine or a cosine is behind the `std` feature: it uses `std`'s `f32` functions,
//! which call the platform's libm as Assimp's C++ does, so that those results agree too. On
//! wasm32, which has no glibc, sines, cosines and arc cosines come from [`glibc`], glibc's
//! algorithms, so that the package's outputs equal the native CLI's.

#[cfg(feature = "std")]
extern crate std;

#[cfg(feature = "std")]
mod euler;
#[cfg(feature = "std")]
pub mod glibc;
#[cfg(feature = "std")]
pub mod mat4;
#[cfg(feature = "std")]
mod matrix;
#[cfg(feature = "std")]
mod quat;
#[cfg(feature = "std")]
mod vector;

#[cfg(feature = "std")]
pub use euler::{RotOrder, deg_to_rad, euler_to_quat, rotation_matrix};
#[cfg(feature = "std")]
pub use matrix::M4;
#[cfg(feature = "std")]
pub use quat::Q;
#[cfg(feature = "std")]
pub use vector::{
    array_bounds, bounds_of, cross, dot, normalize, normalize_safe, position_epsilon, sq_len, v3,
};

/// A 4x4 matrix by rows, as Assimp's `aiMatrix4x4`.
pub type Rows = [[f32; 4]; 4];

/// `aiMatrix4x4::Determinant()`.
pub fn determinant(m: &Rows) -> f32 {
    let [
        [a1, a2, a3, a4],
        [b1, b2, b3, b4],
        [c1, c2, c3, c4],
        [d1, d2, d3, d4],
    ] = *m;
    a1 * b2 * c3 * d4 - a1 * b2 * c4 * d3 + a1 * b3 * c4 * d2 - a1 * b3 * c2 * d4
        + a1 * b4 * c2 * d3
        - a1 * b4 * c3 * d2
        - a2 * b3 * c4 * d1
        + a2 * b3 * c1 * d4
        - a2 * b4 * c1 * d3
        + a2 * b4 * c3 * d1
        - a2 * b1 * c3 * d4
        + a2 * b1 * c4 * d3
        + a3 * b4 * c1 * d2
        - a3 * b4 * c2 * d1
        + a3 * b1 * c2 * d4
        - a3 * b1 * c4 * d2
        + a3 * b2 * c4 * d1
        - a3 * b2 * c1 * d4
        - a4 * b1 * c2 * d3
        + a4 * b1 * c3 * d2
        - a4 * b2 * c3 * d1
        + a4 * b2 * c1 * d3
        - a4 * b3 * c1 * d2
        + a4 * b3 * c2 * d1
}

/// `aiMatrix4x4::Inverse()`: cofactor inverse; a matrix whose determinant is exactly zero
/// becomes all NaN, as in Assimp.
pub fn inverse(m: &Rows) -> Rows {
    let det = determinant(m);
    if det == 0.0 {
        return [[f32::NAN; 4]; 4];
    }
    let inv = 1.0 / det;
    let [
        [a1, a2, a3, a4],
        [b1, b2, b3, b4],
        [c1, c2, c3, c4],
        [d1, d2, d3, d4],
    ] = *m;
    [
        [
            inv * (b2 * (c3 * d4 - c4 * d3) + b3 * (c4 * d2 - c2 * d4) + b4 * (c2 * d3 - c3 * d2)),
            -inv * (a2 * (c3 * d4 - c4 * d3) + a3 * (c4 * d2 - c2 * d4) + a4 * (c2 * d3 - c3 * d2)),
            inv * (a2 * (b3 * d4 - b4 * d3) + a3 * (b4 * d2 - b2 * d4) + a4 * (b2 * d3 - b3 * d2)),
            -inv * (a2 * (b3 * c4 - b4 * c3) + a3 * (b4 * c2 - b2 * c4) + a4 * (b2 * c3 - b3 * c2)),
        ],
        [
            -inv * (b1 * (c3 * d4 - c4 * d3) + b3 * (c4 * d1 - c1 * d4) + b4 * (c1 * d3 - c3 * d1)),
            inv * (a1 * (c3 * d4 - c4 * d3) + a3 * (c4 * d1 - c1 * d4) + a4 * (c1 * d3 - c3 * d1)),
            -inv * (a1 * (b3 * d4 - b4 * d3) + a3 * (b4 * d1 - b1 * d4) + a4 * (b1 * d3 - b3 * d1)),
            inv * (a1 * (b3 * c4 - b4 * c3) + a3 * (b4 * c1 - b1 * c4) + a4 * (b1 * c3 - b3 * c1)),
        ],
        [
            inv * (b1 * (c2 * d4 - c4 * d2) + b2 * (c4 * d1 - c1 * d4) + b4 * (c1 * d2 - c2 * d1)),
            -inv * (a1 * (c2 * d4 - c4 * d2) + a2 * (c4 * d1 - c1 * d4) + a4 * (c1 * d2 - c2 * d1)),
            inv * (a1 * (b2 * d4 - b4 * d2) + a2 * (b4 * d1 - b1 * d4) + a4 * (b1 * d2 - b2 * d1)),
            -inv * (a1 * (b2 * c4 - b4 * c2) + a2 * (b4 * c1 - b1 * c4) + a4 * (b1 * c2 - b2 * c1)),
        ],
        [
            -inv * (b1 * (c2 * d3 - c3 * d2) + b2 * (c3 * d1 - c1 * d3) + b3 * (c1 * d2 - c2 * d1)),
            inv * (a1 * (c2 * d3 - c3 * d2) + a2 * (c3 * d1 - c1 * d3) + a3 * (c1 * d2 - c2 * d1)),
            -inv * (a1 * (b2 * d3 - b3 * d2) + a2 * (b3 * d1 - b1 * d3) + a3 * (b1 * d2 - b2 * d1)),
            inv * (a1 * (b2 * c3 - b3 * c2) + a2 * (b3 * c1 - b1 * c3) + a3 * (b1 * c2 - b2 * c1)),
        ],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inverse_of_a_trs_matrix_times_it_is_identity_and_singular_is_nan() {
        // Rotation about z by 90°, scale 2, translation (1, 2, 3); rows, column vectors.
        let m: Rows = [
            [0.0, -2.0, 0.0, 1.0],
            [2.0, 0.0, 0.0, 2.0],
            [0.0, 0.0, 2.0, 3.0],
            [0.0, 0.0, 0.0, 1.0],
        ];
        assert_eq!(determinant(&m), 8.0);
        let i = inverse(&m);
        for (r, row) in i.iter().enumerate() {
            for c in 0..4 {
                let v: f32 = row.iter().zip(&m).map(|(x, mk)| x * mk[c]).sum();
                assert!(
                    (v - if r == c { 1.0 } else { 0.0 }).abs() < 1e-6,
                    "{r},{c}: {v}"
                );
            }
        }
        let singular = [[1.0; 4]; 4];
        assert!(inverse(&singular).iter().flatten().all(|x| x.is_nan()));
    }
}
