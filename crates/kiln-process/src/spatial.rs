//! A uniform grid over vertex positions that answers Assimp's `SpatialSort::FindPositions`
//! question for a mesh's own vertices — which vertices lie closer than `radius` to vertex `a`
//! — in expected constant time per query instead of Assimp's sorted-by-plane-distance scan.
//!
//! Neighbour semantics are Assimp's: `j` is found for `p` when the single-precision squared
//! distance `(pj − p)·(pj − p)` is strictly below `radius * radius` (so a radius of 0 finds
//! nothing, not even `p` itself; NaN and infinite positions are never found and find nothing).
//! Assimp's extra band test on the distance to its reference plane only differs from this at
//! the last bit of rounding. The order of the results differs from Assimp's (that only changes
//! the order of later sums); it is fixed: the nine (x, y) columns of cells around the query's
//! cell, x − 1 … x + 1 then y − 1 … y + 1, each column's entries in (z cell, id) order.
//!
//! How: each finite point gets a cell key relative to the lowest cell, packed into one `u64`
//! (21 bits per axis) so that integer order is the lexicographic (x, y, z) order; the points
//! are sorted by (key, id) once (a radix sort of the cell bits; the range of the keys comes from
//! the coordinates' bounds, not from a key per point). Each occupied cell's nine neighbour ranges (a column of three
//! z cells is one contiguous run of the sorted entries) are then found by nine cursors that
//! only move forward over the sorted cells — shifting every key by the same (dx, dy) keeps their
//! order — so building is one sort and one linear sweep, with no hashing and no per-query
//! search. The sweep also tests each point against the points of its ranges (their positions
//! copied in sorted order, so these are runs of one array): a point with no other within the
//! radius — nearly every point of a mesh's distinct positions — is marked lone and finds only
//! itself, and only the cells holding a point that is not keep their ranges. A query reads its
//! vertex's cell's ranges. (Before stop 36 a point was lone only when its cell and the
//! neighbour cells held no other point; on a model dense enough for the neighbour cells to be
//! occupied, the tangent stage's queries for the rest walked those ranges, a table of nine per
//! cell, in the points' order rather than the cells': the smoothing took 38 ms per mesh of the
//! 3.2M-triangle benchmark model against 20 now, growing 8× from 800k instead of 4.5×.)

use kiln_scene::Vec3;
use kiln_scene::assimp_math::dot;

/// Bits per axis in a packed cell key.
const BITS: u32 = 21;
/// Largest relative cell coordinate allowed: room for the +1 neighbour.
const MAX_SPAN: i64 = (1 << BITS) - 2;

pub(crate) struct PositionGrid {
    r2: f32,
    /// Ids of the finite points, sorted by (cell key, id).
    ids: Vec<u32>,
    /// The cell of each point (index into `range_start`), `u32::MAX` for non-finite points.
    cell_of: Vec<u32>,
    /// Cell `c`'s non-empty neighbour ranges (into `ids`) are
    /// `ranges[range_start[c]..range_start[c + 1]]`, in column order; kept only for the
    /// cells that hold a point with another within the radius (the others' points find
    /// themselves alone, see `lone`).
    range_start: Vec<u32>,
    ranges: Vec<(u32, u32)>,
    /// Whether each point is finite and has no other point within the radius, found by the
    /// sweep; most points of a mesh's distinct positions are.
    lone: Vec<bool>,
}

impl PositionGrid {
    /// Builds the grid; `radius` must be finite and positive (callers handle the other cases).
    /// `None` when the finite points span more than 2²¹ − 2 cells along an axis (impossible for
    /// Assimp's position epsilon, 1e-4 of the bounding-box diagonal: that is about 10⁴ cells).
    pub(crate) fn new(points: &[Vec3], radius: f32) -> Option<Self> {
        // Cells a little larger than the radius so that rounding in the squared-distance test
        // can never find a vertex two cells away.
        let inv_cell = 1.0 / (f64::from(radius) * 1.001);
        // The bounds of the finite points, then their keys: a key is monotone in each
        // coordinate (a product with a positive constant, then `floor`), so the least and the
        // greatest coordinate give the least and the greatest key, without a key per point.
        let mut lo = [i64::MAX; 3];
        let mut hi = [i64::MIN; 3];
        let (mut min, mut max) = (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY));
        for p in points.iter().filter(|p| p.is_finite()) {
            min = min.min(*p);
            max = max.max(*p);
        }
        if min.x <= max.x {
            (lo, hi) = (key(min, inv_cell), key(max, inv_cell));
        }
        if (0..3).any(|a| hi[a] > lo[a] && hi[a].saturating_sub(lo[a]) > MAX_SPAN) {
            return None;
        }
        // Relative cells start at 1 so that the −1 neighbour of the lowest cell is 0, not
        // negative.
        let pack = |k: [i64; 3]| -> u64 {
            let r = |a: usize| (k[a] - lo[a] + 1) as u64;
            (r(0) << (2 * BITS)) | (r(1) << BITS) | r(2)
        };
        // Sort (cell, id). When the cell and the id fit in 64 bits together (the usual case:
        // about 14 bits per axis for Assimp's epsilon, 20 for a million vertices), one `u64`
        // per point sorts twice as fast as a (key, id) pair, and a radix sort of its cell bits
        // (the ids are already in order) faster again.
        let width = |a: usize| 64 - ((hi[a].max(lo[a]) - lo[a] + 2) as u64).leading_zeros();
        let (bx, by, bz) = (width(0), width(1), width(2));
        let bid = 64 - (points.len() as u64).leading_zeros();
        let finite = points.iter().enumerate().filter(|(_, p)| p.is_finite());
        let sorted = if bx + by + bz + bid <= 64 {
            let compact = |k: [i64; 3]| -> u64 {
                let r = |a: usize| (k[a] - lo[a] + 1) as u64;
                (((r(0) << by) | r(1)) << bz) | r(2)
            };
            let mut keys: Vec<u64> = finite
                .map(|(i, &p)| (compact(key(p, inv_cell)) << bid) | i as u64)
                .collect();
            sort_by_cell(&mut keys, bid, bx + by + bz);
            let id_mask = (1u64 << bid) - 1;
            let (my, mz) = ((1u64 << by) - 1, (1u64 << bz) - 1);
            Cells::of_sorted(
                points.len(),
                keys.iter().map(|&k| {
                    let c = k >> bid;
                    let (x, y, z) = (c >> (by + bz), (c >> bz) & my, c & mz);
                    ((x << (2 * BITS)) | (y << BITS) | z, (k & id_mask) as u32)
                }),
            )
        } else {
            let mut pairs: Vec<(u64, u32)> = finite
                .map(|(i, &p)| (pack(key(p, inv_cell)), i as u32))
                .collect();
            pairs.sort_unstable();
            Cells::of_sorted(points.len(), pairs.into_iter())
        };
        let Cells {
            cell_of,
            cells,
            cell_first,
            ids,
        } = sorted;

        // The points' positions in `ids` order: the sweep reads the neighbour columns' points
        // as runs of this.
        let sorted_pos: Vec<Vec3> = ids.iter().map(|&id| points[id as usize]).collect();
        let r2 = radius * radius;
        // The sweep: for each of the nine columns a cursor to the first cell at or after the
        // column's low key and one past its high key.
        let mask = (1u64 << BITS) - 1;
        let mut lo_cur = [0usize; 9];
        let mut hi_cur = [0usize; 9];
        let mut range_start = Vec::with_capacity(cells.len() + 1);
        let mut ranges = Vec::new();
        let mut lone = vec![false; points.len()];
        let mut columns = [(0u32, 0u32); 9];
        for (cell, &k) in cells.iter().enumerate() {
            range_start.push(ranges.len() as u32);
            let (x, y, z) = (k >> (2 * BITS), (k >> BITS) & mask, k & mask);
            let mut found = 0;
            let mut col = 0;
            for dx in 0..3u64 {
                for dy in 0..3u64 {
                    let c = col;
                    col += 1;
                    // x + dx − 1 and y + dy − 1 are never negative: relative cells start at 1.
                    let (cx, cy) = (x + dx - 1, y + dy - 1);
                    let base = (cx << (2 * BITS)) | (cy << BITS);
                    let (want_lo, want_hi) = (base | (z - 1), base | (z + 1));
                    while lo_cur[c] < cells.len() && cells[lo_cur[c]] < want_lo {
                        lo_cur[c] += 1;
                    }
                    hi_cur[c] = hi_cur[c].max(lo_cur[c]);
                    while hi_cur[c] < cells.len() && cells[hi_cur[c]] <= want_hi {
                        hi_cur[c] += 1;
                    }
                    if hi_cur[c] > lo_cur[c] {
                        columns[found] = (cell_first[lo_cur[c]], cell_first[hi_cur[c]]);
                        found += 1;
                    }
                }
            }
            let columns = &columns[..found];
            // Each of the cell's points against every other point of the columns (its own
            // cell's first, where a near one most likely is): a point with none within the
            // radius is lone, and finds only itself.
            let (first, end) = (cell_first[cell] as usize, cell_first[cell + 1] as usize);
            let mut any_near = false;
            for i in first..end {
                let p = sorted_pos[i];
                let near_in = |from: usize, to: usize| {
                    (from..to).any(|j| {
                        let d = sorted_pos[j] - p;
                        j != i && dot(d, d) < r2
                    })
                };
                let near = near_in(first, end)
                    || columns
                        .iter()
                        .any(|&(from, to)| near_in(from as usize, to as usize));
                if near {
                    any_near = true;
                } else {
                    lone[ids[i] as usize] = true;
                }
            }
            if any_near {
                ranges.extend_from_slice(columns);
            }
        }
        range_start.push(ranges.len() as u32);
        Some(PositionGrid {
            r2,
            ids,
            cell_of,
            range_start,
            ranges,
            lone,
        })
    }

    /// Appends to `out` (after clearing it) the ids of all points closer than the radius to
    /// point `a` of the `points` the grid was built from, in the order the module describes.
    pub(crate) fn find(&self, points: &[Vec3], a: usize, out: &mut Vec<u32>) {
        out.clear();
        let Some(&cell) = self.cell_of.get(a) else {
            return;
        };
        if cell == u32::MAX {
            return;
        }
        if self.lone[a] {
            // Nothing else is within the radius; `a` itself is, when the radius is not 0.
            if 0.0 < self.r2 {
                out.push(a as u32);
            }
            return;
        }
        let p = points[a];
        let (first, last) = (
            self.range_start[cell as usize] as usize,
            self.range_start[cell as usize + 1] as usize,
        );
        for &(start, end) in &self.ranges[first..last] {
            for &id in &self.ids[start as usize..end as usize] {
                let d = points[id as usize] - p;
                if dot(d, d) < self.r2 {
                    out.push(id);
                }
            }
        }
    }
}

impl PositionGrid {
    /// Whether some point other than `a` lies closer than the radius to point `a`; `false`
    /// for a non-finite `a`, which finds nothing.
    pub(crate) fn has_neighbour(&self, a: usize) -> bool {
        self.cell_of.get(a).is_some_and(|&c| c != u32::MAX) && !self.lone[a]
    }

    /// Calls `f` with the ids of each occupied cell [`PositionGrid::find`] looks in for point
    /// `a`, in its order (each cell's ids ascending), before the distance test: what a caller
    /// needs to reproduce `find`'s order over groups of points. For a point with no other
    /// within the radius, `a` alone.
    pub(crate) fn each_cell_near(&self, a: usize, mut f: impl FnMut(&[u32])) {
        let Some(&cell) = self.cell_of.get(a) else {
            return;
        };
        if cell == u32::MAX {
            return;
        }
        if self.lone[a] {
            f(&[a as u32]);
            return;
        }
        let (first, last) = (
            self.range_start[cell as usize] as usize,
            self.range_start[cell as usize + 1] as usize,
        );
        for &(start, end) in &self.ranges[first..last] {
            let mut ids = &self.ids[start as usize..end as usize];
            while let Some(&head) = ids.first() {
                let c = self.cell_of[head as usize];
                let n = ids
                    .iter()
                    .position(|&id| self.cell_of[id as usize] != c)
                    .unwrap_or(ids.len());
                f(&ids[..n]);
                ids = &ids[n..];
            }
        }
    }

    /// The squared radius the grid was built for.
    pub(crate) fn radius_squared(&self) -> f32 {
        self.r2
    }
}

/// Sorts `keys` — each a cell in the `cell_bits` above the low `id_bits`, the ids ascending as
/// given — by (cell, id): a stable least-significant-digit radix sort of the cell bits, 11 at
/// a time (two to four passes for real meshes, where a comparison sort of 188k keys takes
/// about twice as long). Because the ids come in ascending order (as [`PositionGrid::new`]
/// makes them) and are unique, the stable sort of the cells gives `sort_unstable`'s order of
/// the whole keys, which small inputs use.
fn sort_by_cell(keys: &mut Vec<u64>, id_bits: u32, cell_bits: u32) {
    const DIGIT: u32 = 11;
    const BUCKETS: usize = 1 << DIGIT;
    if keys.len() < 4096 || cell_bits == 0 {
        keys.sort_unstable();
        return;
    }
    let passes = cell_bits.div_ceil(DIGIT) as usize;
    let digit =
        |k: u64, pass: usize| ((k >> (id_bits + DIGIT * pass as u32)) as usize) & (BUCKETS - 1);
    // Every pass's counts in one read of the keys.
    let mut counts = vec![[0u32; BUCKETS]; passes];
    for &k in keys.iter() {
        for (pass, c) in counts.iter_mut().enumerate() {
            c[digit(k, pass)] += 1;
        }
    }
    let mut from = std::mem::take(keys);
    let mut to = vec![0u64; from.len()];
    for (pass, c) in counts.iter().enumerate() {
        // A digit that every key shares moves nothing.
        if c.iter().any(|&n| n as usize == from.len()) {
            continue;
        }
        let mut next = [0u32; BUCKETS];
        let mut sum = 0u32;
        for (n, &count) in next.iter_mut().zip(c.iter()) {
            *n = sum;
            sum += count;
        }
        for &k in &from {
            let d = digit(k, pass);
            to[next[d] as usize] = k;
            next[d] += 1;
        }
        std::mem::swap(&mut from, &mut to);
    }
    *keys = from;
}

/// The points grouped by cell: what [`PositionGrid::new`] builds from the (cell, id) pairs
/// in sorted order.
struct Cells {
    /// The cell of each point (index into `cells`), `u32::MAX` for non-finite points.
    cell_of: Vec<u32>,
    /// The occupied cells' packed keys, ascending.
    cells: Vec<u64>,
    /// Where each cell's points start in `ids`, and one past the last.
    cell_first: Vec<u32>,
    /// The point ids in (cell, id) order.
    ids: Vec<u32>,
}

impl Cells {
    /// From `(packed cell key, id)` pairs sorted by (key, id), of `n` points in all.
    fn of_sorted(n: usize, sorted: impl ExactSizeIterator<Item = (u64, u32)>) -> Self {
        let mut cells = Cells {
            cell_of: vec![u32::MAX; n],
            cells: Vec::new(),
            cell_first: Vec::new(),
            ids: Vec::with_capacity(sorted.len()),
        };
        for (k, id) in sorted {
            if cells.cells.last() != Some(&k) {
                cells.cells.push(k);
                cells.cell_first.push(cells.ids.len() as u32);
            }
            cells.cell_of[id as usize] = (cells.cells.len() - 1) as u32;
            cells.ids.push(id);
        }
        cells.cell_first.push(cells.ids.len() as u32);
        cells
    }
}

#[inline]
fn key(p: Vec3, inv_cell: f64) -> [i64; 3] {
    [
        floor_i64(f64::from(p.x) * inv_cell),
        floor_i64(f64::from(p.y) * inv_cell),
        floor_i64(f64::from(p.z) * inv_cell),
    ]
}

/// `v.floor() as i64` (saturating, NaN to 0) without the libm call `floor` is on targets
/// without SSE4.1: truncate, then step down for negative non-integers.
#[inline]
fn floor_i64(v: f64) -> i64 {
    let t = v as i64;
    if (t as f64) > v {
        t.saturating_sub(1)
    } else {
        t
    }
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
        // A lattice with spacing 0.3 and some coincident points, at the origin and shifted to
        // negative and large coordinates (cell keys far from 0).
        for shift in [
            Vec3::ZERO,
            Vec3::new(-1.35, -100.0, 7.0),
            Vec3::new(1000.0, -5000.0, 3.3),
        ] {
            let mut pts = Vec::new();
            for x in 0..10 {
                for y in 0..10 {
                    for z in 0..4 {
                        pts.push(Vec3::new(x as f32 * 0.3, y as f32 * 0.3, z as f32 * 0.3) + shift);
                    }
                }
            }
            pts.extend_from_slice(&[Vec3::new(0.3, 0.3, 0.3) + shift; 3]);
            pts.push(Vec3::NAN);
            pts.push(Vec3::new(f32::INFINITY, 0.0, 0.0));
            pts.push(Vec3::new(0.0, f32::NEG_INFINITY, 0.0));
            check_lattice(&pts);
        }
    }

    #[test]
    fn a_radius_whose_square_is_zero_finds_nothing() {
        // Coincident points keep the cells' range at 0, so the grid is built; the squared
        // radius underflows to 0, and `d · d < 0` holds for no point, not even the query.
        let pts = [Vec3::new(1.0, 2.0, 3.0); 3];
        let grid = PositionGrid::new(&pts, 1e-30).unwrap();
        let mut out = vec![7];
        for a in 0..pts.len() {
            grid.find(&pts, a, &mut out);
            assert!(out.is_empty());
            assert!(!grid.has_neighbour(a));
        }
        let grid = PositionGrid::new(&pts, 1e-3).unwrap();
        grid.find(&pts, 1, &mut out);
        assert_eq!(out, [0, 1, 2]);
        assert!(grid.has_neighbour(1));
    }

    #[test]
    fn floor_matches_the_library_floor() {
        for v in [
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            2.999,
            -2.999,
            1e15 + 0.5,
            -1e15 - 0.5,
            1e30,
            -1e30,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MIN_POSITIVE,
            -f64::MIN_POSITIVE,
            9.2e18,
            -9.3e18,
        ] {
            assert_eq!(floor_i64(v), v.floor() as i64, "{v}");
        }
    }

    #[test]
    fn the_radix_sort_orders_as_a_comparison_sort() {
        // Ids ascending in the low bits, cells from a small LCG: many keys per cell, some
        // digits shared by every key (skipped passes), sizes either side of the cut-over.
        let mut state = 0x2545_f491_4f6c_dd1du64;
        for (n, cell_bits, spread) in [
            (100, 30, 1000),
            (5000, 30, 300),
            (70_000, 42, 1 << 40),
            (70_000, 33, 7),
        ] {
            let id_bits = 64 - (n as u64).leading_zeros();
            let keys: Vec<u64> = (0..n as u64)
                .map(|id| {
                    state = state
                        .wrapping_mul(6_364_136_223_846_793_005)
                        .wrapping_add(1);
                    let cell = (state >> 20) % spread % (1 << cell_bits);
                    (cell << id_bits) | id
                })
                .collect();
            let mut radix = keys.clone();
            sort_by_cell(&mut radix, id_bits, cell_bits);
            let mut expect = keys;
            expect.sort_unstable();
            assert_eq!(radix, expect, "{n} keys of {cell_bits} cell bits");
        }
    }

    #[test]
    fn refuses_a_range_too_wide_to_pack() {
        let pts = [Vec3::ZERO, Vec3::new(1.0, 0.0, 0.0)];
        assert!(PositionGrid::new(&pts, 1e-7).is_none());
        assert!(PositionGrid::new(&pts, 1e-4).is_some());
        // Only finite points count: an infinite one does not widen the range.
        let pts = [Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0)];
        assert!(PositionGrid::new(&pts, 1e-7).is_some());
    }

    fn check_lattice(pts: &[Vec3]) {
        let pts = pts.to_vec();
        // 0.2: the lattice's neighbours lie in the next cells but outside the radius.
        for radius in [0.1f32, 0.2, 0.31, 0.5] {
            let grid = PositionGrid::new(&pts, radius).unwrap();
            let mut out = Vec::new();
            for (a, &p) in pts.iter().enumerate() {
                grid.find(&pts, a, &mut out);
                // The order is part of the contract (later sums follow it): column by column,
                // then (z, id), as a scan of every entry sorted by (cell, id) gives.
                assert_eq!(
                    out,
                    in_scan_order(&pts, p, radius),
                    "radius {radius} at {p:?}"
                );
                // The cells `find` reads, in its order, give its answer once filtered; each
                // cell's ids ascending and from one cell.
                let mut by_cell = Vec::new();
                grid.each_cell_near(a, |ids| {
                    assert!(ids.windows(2).all(|w| w[0] < w[1]));
                    let cells: Vec<[i64; 3]> = ids
                        .iter()
                        .map(|&id| key(pts[id as usize], 1.0 / (f64::from(radius) * 1.001)))
                        .collect();
                    assert!(cells.windows(2).all(|w| w[0] == w[1]));
                    by_cell.extend(ids.iter().copied().filter(|&id| {
                        let d = pts[id as usize] - p;
                        dot(d, d) < grid.radius_squared()
                    }));
                });
                assert_eq!(by_cell, out, "radius {radius} at {p:?}");
                assert_eq!(
                    grid.has_neighbour(a),
                    out.iter().any(|&id| id as usize != a)
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
