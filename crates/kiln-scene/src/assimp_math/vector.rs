//! Vector helpers that round like Assimp 5.2's `aiVector3D` (single precision, the same
//! operand order), so that results agree with Assimp to the last bits where it matters
//! (threshold decisions such as "is this quad corner concave").

use glam::Vec3;

/// `a * b` of `aiVector3D`: `x*x + y*y + z*z` in that order.
#[inline]
pub fn dot(a: Vec3, b: Vec3) -> f32 {
    a.x * b.x + a.y * b.y + a.z * b.z
}

/// `a ^ b` of `aiVector3D`.
#[inline]
pub fn cross(a: Vec3, b: Vec3) -> Vec3 {
    Vec3::new(
        a.y * b.z - a.z * b.y,
        a.z * b.x - a.x * b.z,
        a.x * b.y - a.y * b.x,
    )
}

/// `aiVector3D::Normalize` of 5.2: `*this /= Length()`, where 5.2's `operator/=` leaves the
/// vector unchanged when dividing by exactly zero and otherwise multiplies by `1 / length`. So a
/// zero vector stays zero (real Assimp 5.2.5 dumps show zero tangents where later versions give
/// NaN), and a NaN length makes every component NaN.
#[inline]
pub fn normalize(v: Vec3) -> Vec3 {
    let len = dot(v, v).sqrt();
    if len == 0.0 { v } else { v * (1.0 / len) }
}

/// `aiVector3D::NormalizeSafe`: leaves vectors of zero (or NaN) length unchanged.
#[inline]
pub fn normalize_safe(v: Vec3) -> Vec3 {
    let len = dot(v, v).sqrt();
    if len > 0.0 { v * (1.0 / len) } else { v }
}

/// `SquareLength()` of an `[x, y, z]` array: [`dot`] of the vector with itself.
#[inline]
pub fn sq_len(v: [f32; 3]) -> f32 {
    let v = v3(v);
    dot(v, v)
}

/// An `[x, y, z]` array as a [`Vec3`].
#[inline]
pub fn v3(v: [f32; 3]) -> Vec3 {
    Vec3::new(v[0], v[1], v[2])
}

/// Component-wise minimum the way `std::min(value, current)` picks it (`current < value ?
/// current : value`), which is what Assimp's `ArrayBounds` does (NaN handling included).
#[inline]
fn pick_min(value: f32, current: f32) -> f32 {
    if current < value { current } else { value }
}

/// Component-wise maximum the way `std::max(value, current)` picks it.
#[inline]
fn pick_max(value: f32, current: f32) -> f32 {
    if value < current { current } else { value }
}

/// Assimp's `ArrayBounds` over positions: starts from ±1e10, so an empty array gives
/// min = 1e10, max = -1e10.
pub fn array_bounds(points: &[Vec3]) -> (Vec3, Vec3) {
    bounds_of(points.iter().copied(), 1e10)
}

/// Component-wise bounds of `points` with Assimp's comparisons, starting from
/// `±sentinel` (`ArrayBounds` uses 1e10, `FindAABBTransformed` 10e10).
pub fn bounds_of(points: impl IntoIterator<Item = Vec3>, sentinel: f32) -> (Vec3, Vec3) {
    let mut min = Vec3::splat(sentinel);
    let mut max = Vec3::splat(-sentinel);
    for p in points {
        min = Vec3::new(
            pick_min(p.x, min.x),
            pick_min(p.y, min.y),
            pick_min(p.z, min.z),
        );
        max = Vec3::new(
            pick_max(p.x, max.x),
            pick_max(p.y, max.y),
            pick_max(p.z, max.z),
        );
    }
    (min, max)
}

/// `ComputePositionEpsilon(mesh)`: 1e-4 of the bounding box diagonal.
pub fn position_epsilon(points: &[Vec3]) -> f32 {
    let (min, max) = array_bounds(points);
    let d = max - min;
    dot(d, d).sqrt() * 1e-4
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_keeps_zero() {
        assert_eq!(normalize(Vec3::ZERO), Vec3::ZERO);
        assert!(normalize(Vec3::new(f32::NAN, 1.0, 0.0)).y.is_nan());
        assert_eq!(normalize_safe(Vec3::new(f32::NAN, 1.0, 0.0)).y, 1.0);
        assert_eq!(normalize_safe(Vec3::ZERO), Vec3::ZERO);
        assert_eq!(
            normalize(Vec3::new(0.0, 3.0, 4.0)),
            Vec3::new(0.0, 0.6, 0.8)
        );
    }

    #[test]
    fn bounds_of_empty_are_assimps_sentinels() {
        let (min, max) = array_bounds(&[]);
        assert_eq!(min, Vec3::splat(1e10));
        assert_eq!(max, Vec3::splat(-1e10));
    }
}
