//! A uniform grid over vertex positions that answers Assimp's `SpatialSort::FindPositions`
//! question — which vertices lie closer than `radius` to a point — in expected constant time
//! per query instead of Assimp's sorted-by-plane-distance scan.
//!
//! Neighbour semantics are Assimp's: `j` is found for `p` when the single-precision squared
//! distance `(pj − p)·(pj − p)` is strictly below `radius * radius` (so a radius of 0 finds
//! nothing, not even `p` itself; NaN positions are never found). Assimp's extra band test on the
//! distance to its reference plane only differs from this at the last bit of rounding.
//! The order of the results differs from Assimp's (that only changes the order of later sums).

use std::collections::HashMap;

use kiln_scene::Vec3;
use kiln_scene::assimp_math::dot;

pub(crate) struct PositionGrid {
    radius: f32,
    inv_cell: f64,
    /// The z cell of each entry, entries sorted by cell (x, y, z) and then id; `ids` in the same
    /// order.
    z: Vec<i64>,
    ids: Vec<u32>,
    /// Each occupied (x, y) column of cells: the range of its entries in `z`/`ids`. A query
    /// looks its nine columns up here instead of binary-searching the whole array for each.
    columns: HashMap<[i64; 2], (u32, u32)>,
}

impl PositionGrid {
    /// Builds the grid; `radius` must be finite and positive (callers handle the other cases).
    pub(crate) fn new(points: &[Vec3], radius: f32) -> Self {
        // Cells a little larger than the radius so that rounding in the squared-distance test
        // can never find a vertex two cells away.
        let cell = f64::from(radius) * 1.001;
        let inv_cell = 1.0 / cell;
        let mut pairs: Vec<([i64; 3], u32)> = points
            .iter()
            .enumerate()
            .map(|(i, &p)| (key(p, inv_cell), i as u32))
            .collect();
        pairs.sort_unstable();
        let mut columns = HashMap::new();
        let mut start = 0usize;
        for i in 1..=pairs.len() {
            let column = [pairs[start].0[0], pairs[start].0[1]];
            if i == pairs.len() || [pairs[i].0[0], pairs[i].0[1]] != column {
                columns.insert(column, (start as u32, i as u32));
                start = i;
            }
        }
        let (z, ids) = pairs.into_iter().map(|(k, id)| (k[2], id)).unzip();
        PositionGrid {
            radius,
            inv_cell,
            z,
            ids,
            columns,
        }
    }

    /// Appends to `out` the ids of all points closer than the radius to `p`: column by column
    /// (x − 1 … x + 1, then y − 1 … y + 1), each in (z, id) order.
    pub(crate) fn find(&self, points: &[Vec3], p: Vec3, out: &mut Vec<u32>) {
        out.clear();
        let k = key(p, self.inv_cell);
        let r2 = self.radius * self.radius;
        // Columns (x, y) to visit, deduplicated: saturated keys can collapse neighbours.
        let mut rows = [[0i64; 2]; 9];
        let mut n = 0;
        for dx in -1..=1i64 {
            for dy in -1..=1i64 {
                let row = [k[0].saturating_add(dx), k[1].saturating_add(dy)];
                if !rows[..n].contains(&row) {
                    rows[n] = row;
                    n += 1;
                }
            }
        }
        let z_lo = k[2].saturating_sub(1);
        let z_hi = k[2].saturating_add(1);
        for row in &rows[..n] {
            let Some(&(first, last)) = self.columns.get(row) else {
                continue;
            };
            let (first, last) = (first as usize, last as usize);
            let z = &self.z[first..last];
            let start = first + z.partition_point(|&c| c < z_lo);
            let end = first + z.partition_point(|&c| c <= z_hi);
            for &id in &self.ids[start..end] {
                let d = points[id as usize] - p;
                if dot(d, d) < r2 {
                    out.push(id);
                }
            }
        }
    }
}

#[inline]
fn key(p: Vec3, inv_cell: f64) -> [i64; 3] {
    // `as` saturates and maps NaN to 0: no panic on any input.
    let c = |x: f32| (f64::from(x) * inv_cell).floor() as i64;
    [c(p.x), c(p.y), c(p.z)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The points within `radius` of `p`, visiting the nine (x, y) columns around `p` in
    /// order and each column's entries sorted by (z, id): the order `find` promises, by brute
    /// force.
    fn in_scan_order(pts: &[Vec3], p: Vec3, radius: f32) -> Vec<u32> {
        let inv_cell = 1.0 / (f64::from(radius) * 1.001);
        let k = key(p, inv_cell);
        let mut sorted: Vec<([i64; 3], u32)> = pts
            .iter()
            .enumerate()
            .map(|(i, &q)| (key(q, inv_cell), i as u32))
            .collect();
        sorted.sort_unstable();
        let mut seen = Vec::new();
        let mut out = Vec::new();
        for dx in -1..=1i64 {
            for dy in -1..=1i64 {
                let row = [k[0].saturating_add(dx), k[1].saturating_add(dy)];
                if seen.contains(&row) {
                    continue;
                }
                seen.push(row);
                for &(c, id) in &sorted {
                    let in_z = c[2] >= k[2].saturating_sub(1) && c[2] <= k[2].saturating_add(1);
                    let d = pts[id as usize] - p;
                    if [c[0], c[1]] == row && in_z && dot(d, d) < radius * radius {
                        out.push(id);
                    }
                }
            }
        }
        out
    }

    #[test]
    fn finds_exactly_the_points_inside_the_radius() {
        let mut pts = Vec::new();
        // A lattice with spacing 0.3 and some coincident points.
        for x in 0..10 {
            for y in 0..10 {
                for z in 0..4 {
                    pts.push(Vec3::new(x as f32 * 0.3, y as f32 * 0.3, z as f32 * 0.3));
                }
            }
        }
        pts.extend_from_slice(&[Vec3::new(0.3, 0.3, 0.3); 3]);
        pts.push(Vec3::NAN);
        pts.push(Vec3::new(f32::INFINITY, 0.0, 0.0));
        for radius in [0.1f32, 0.31, 0.5] {
            let grid = PositionGrid::new(&pts, radius);
            let mut out = Vec::new();
            for &p in &pts {
                grid.find(&pts, p, &mut out);
                // The order is part of the contract (later sums follow it): column by column,
                // then (z, id), as a scan of every entry sorted by (cell, id) gives.
                assert_eq!(
                    out,
                    in_scan_order(&pts, p, radius),
                    "radius {radius} at {p:?}"
                );
                out.sort_unstable();
                let mut brute: Vec<u32> = (0..pts.len() as u32)
                    .filter(|&j| {
                        let d = pts[j as usize] - p;
                        dot(d, d) < radius * radius
                    })
                    .collect();
                brute.sort_unstable();
                assert_eq!(out, brute, "radius {radius} at {p:?}");
            }
        }
    }
}
