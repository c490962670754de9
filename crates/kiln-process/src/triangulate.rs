//! Triangulate (Assimp 5.2.5 `TriangulateProcess.cpp`, with its 5.2 ear clipper, not the
//! earcut of later versions).

use crate::{ProcessError, check};
use kiln_scene::assimp_math::{dot, glibc, normalize};
use kiln_scene::{Mesh, PrimitiveTypes, Scene, Vec3};

/// Assimp's `aiProcess_Triangulate` as in 5.2.5 (`TriangulateProcess`):
///
/// - only meshes that contain polygons (faces of more than 3 corners) are touched;
/// - points, lines and triangles are kept as they are, in place; vertices are never added,
///   removed or duplicated (splitting a polygon reuses its vertices);
/// - a quad is split as `(s, s+1, s+2), (s, s+2, s+3)` where `s` is its first corner whose two
///   angles (to its neighbours, measured from the opposite diagonal, `acos` of normalised
///   vectors) sum to more than π — the concave corner — or 0 when there is none;
/// - a polygon of more than 4 corners is projected on the plane of its dominant Newell-normal
///   axis (axes swapped when that component is negative) and cut by Assimp 5.2's own O(n²)
///   ear clipper: an ear is a corner not on the left of the line from its previous to its next
///   remaining corner, whose triangle contains no other corner of the polygon (corners at the
///   same projected position as the ear's three are ignored; already cut ones count); collinear
///   corners are not skipped, so degenerate polygons yield zero-area triangles. When two passes
///   find no ear, the triangles cut so far are kept and the rest of the polygon is dropped
///   (Assimp logs "Failed to triangulate polygon (no ear found)");
/// - every emitted triangle goes through Assimp's NGON encoder: a triangle whose first index
///   equals the first index of the previous polygon's or triangle's output is rotated
///   (`[a, b, c]` → `[c, a, b]`; for a quad both halves are rotated to start at its third
///   corner), so that the output could be re-read as n-gons. This shows only on meshes whose
///   faces share vertices;
/// - [`Mesh::primitive_types`] gains TRIANGLE and loses POLYGON; other bits stay.
///
/// Cost: linear in the number of corners for triangles and quads. The ear clipper walks as
/// Assimp's does, but finds the next remaining corner in O(1) and, from 64 corners on, tests
/// only the corners a grid says can pass the containment test (exact: the box bounds the
/// test's own rounding); an ear whose test is dominated by rounding (a sliver, in
/// coordinates that are not grid-snapped) still tests every corner, as it must to give
/// Assimp's answer. Meshes are triangulated in parallel with the `parallel` feature.
///
/// Fails without changing anything when a mesh is malformed (index past its vertices, face sizes
/// not matching the indices).
pub fn triangulate(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    triangulate_unchecked(scene);
    Ok(())
}

pub(crate) fn triangulate_unchecked(scene: &mut Scene) {
    crate::each_mesh(&mut scene.meshes, triangulate_mesh);
}

#[derive(Default)]
struct Scratch {
    flat: Vec<[f32; 2]>,
    done: Vec<bool>,
    next_alive: Vec<u32>,
    prev_alive: Vec<u32>,
    grid: CornerGrid,
    tris: Vec<[usize; 3]>,
}

/// State of Assimp's `NGONEncoder`.
struct NgonEncoder {
    last_first: u32,
}

impl NgonEncoder {
    fn triangle(&mut self, t: &mut [u32; 3]) {
        if t[0] == self.last_first {
            // swap(0, 2), swap(1, 2): [a, b, c] -> [c, a, b]
            *t = [t[2], t[0], t[1]];
        }
        self.last_first = t[0];
    }

    fn quad(&mut self, t1: &mut [u32; 3], t2: &mut [u32; 3]) {
        if t1[0] == self.last_first {
            // t1 right-rotated, t2 left-rotated: both start at t1[2].
            *t1 = [t1[2], t1[0], t1[1]];
            *t2 = [t2[1], t2[2], t2[0]];
        }
        self.last_first = t1[0];
    }
}

/// Triangulates one mesh in two passes: the faces' triangles, in runs of faces on rayon's
/// threads with the `parallel` feature (each face's triangles depend on that face alone),
/// then, in face order, the NGON encoder (which depends on the triangle before) and the face
/// sizes. The result is the same however the faces are split.
fn triangulate_mesh(mesh: &mut Mesh) {
    triangulate_in_runs(mesh, crate::runs_for(mesh.indices.len()));
}

/// [`triangulate_mesh`] with the faces split into `runs` runs.
fn triangulate_in_runs(mesh: &mut Mesh, runs: usize) {
    if !mesh.face_sizes.iter().any(|&n| n > 3) {
        return;
    }
    let runs = face_runs(&mesh.face_sizes, runs);
    let verts = &mesh.positions;
    let (face_sizes, corners) = (&mesh.face_sizes, &mesh.indices);
    let mut pieces = crate::par_map(&runs, |(faces, at)| {
        let corners = &corners[at.clone()];
        raw_triangles(verts, &face_sizes[faces.clone()], corners)
    });
    // The encoder and the sizes, run after run in face order, each run's triangles in place.
    let mut sizes = Vec::with_capacity(out_faces(face_sizes));
    let mut enc = NgonEncoder {
        last_first: u32::MAX,
    };
    for ((faces, _), (indices, ears)) in runs.iter().zip(&mut pieces) {
        encode_run(
            &face_sizes[faces.clone()],
            indices,
            ears,
            &mut enc,
            &mut sizes,
        );
    }
    let indices = if pieces.len() == 1 {
        pieces.pop().map(|p| p.0).unwrap_or_default()
    } else {
        let mut all = Vec::with_capacity(pieces.iter().map(|p| p.0.len()).sum());
        for (piece, _) in &pieces {
            all.extend_from_slice(piece);
        }
        all
    };
    mesh.face_sizes = sizes;
    mesh.indices = indices;
    let bits = (mesh.primitive_types.0 | PrimitiveTypes::TRIANGLE) & !PrimitiveTypes::POLYGON;
    mesh.primitive_types = PrimitiveTypes(bits);
}

/// The NGON encoder over one run's triangles (`indices`, as [`raw_triangles`] gave them for
/// faces of `face_sizes`, `ears` the triangle count of each polygon of more than 4 corners),
/// in place, from the state the run before left; the output faces' sizes appended to `sizes`.
fn encode_run(
    face_sizes: &[u32],
    indices: &mut [u32],
    ears: &[u32],
    enc: &mut NgonEncoder,
    sizes: &mut Vec<u32>,
) {
    let mut ears = ears.iter();
    let mut at = 0usize;
    let triangle = |at: usize, enc: &mut NgonEncoder, indices: &mut [u32]| {
        if let Some(t) = indices.get_mut(at..at + 3) {
            let mut tri = [t[0], t[1], t[2]];
            enc.triangle(&mut tri);
            t.copy_from_slice(&tri);
        }
    };
    for &n in face_sizes {
        match n {
            0..=2 => {
                sizes.push(n);
                at += n as usize;
            }
            3 => {
                sizes.push(3);
                triangle(at, enc, indices);
                at += 3;
            }
            4 => {
                sizes.extend_from_slice(&[3, 3]);
                if let Some(t) = indices.get_mut(at..at + 6) {
                    let mut t1 = [t[0], t[1], t[2]];
                    let mut t2 = [t[3], t[4], t[5]];
                    enc.quad(&mut t1, &mut t2);
                    t[..3].copy_from_slice(&t1);
                    t[3..].copy_from_slice(&t2);
                }
                at += 6;
            }
            _ => {
                let cut = ears.next().copied().unwrap_or(0) as usize;
                sizes.extend(core::iter::repeat_n(3, cut));
                for _ in 0..cut {
                    triangle(at, enc, indices);
                    at += 3;
                }
            }
        }
    }
}

/// The faces triangulating `face_sizes` gives at most: points, lines and triangles stay, a
/// polygon of n corners gives n − 2 (fewer when the ear clipper gives up).
fn out_faces(face_sizes: &[u32]) -> usize {
    face_sizes
        .iter()
        .map(|&n| if n <= 3 { 1 } else { n as usize - 2 })
        .sum()
}

/// `runs` consecutive runs of faces with about as many corners each: (faces, corners) ranges.
fn face_runs(
    face_sizes: &[u32],
    runs: usize,
) -> Vec<(core::ops::Range<usize>, core::ops::Range<usize>)> {
    let total: usize = face_sizes.iter().map(|&n| n as usize).sum();
    let mut out = Vec::with_capacity(runs);
    let (mut face, mut corner) = (0usize, 0usize);
    for k in 1..=runs {
        let goal = total * k / runs;
        let (first_face, first_corner) = (face, corner);
        while face < face_sizes.len() && (corner < goal || k == runs) {
            corner += face_sizes[face] as usize;
            face += 1;
        }
        if face > first_face {
            out.push((first_face..face, first_corner..corner));
        }
    }
    out
}

/// The triangles of `face_sizes` faces whose corners are `corners`, before the NGON encoder:
/// points, lines and triangles as they are, quads split at [`quad_start`], larger polygons ear
/// clipped; and for each polygon of more than 4 corners, how many triangles it gave.
fn raw_triangles(verts: &[Vec3], face_sizes: &[u32], corners: &[u32]) -> (Vec<u32>, Vec<u32>) {
    let mut indices = Vec::with_capacity(out_faces(face_sizes) * 3);
    let mut ears = Vec::new();
    let mut scratch = Scratch::default();
    let mut at = 0usize;
    for &n in face_sizes {
        let Some(face) = corners.get(at..at + n as usize) else {
            break;
        };
        at += n as usize;
        match face.len() {
            0..=3 => indices.extend_from_slice(face),
            4 => {
                let s = quad_start(verts, face);
                let v = |k: usize| face[(s + k) % 4];
                indices.extend_from_slice(&[v(0), v(1), v(2), v(0), v(2), v(3)]);
            }
            _ => {
                ear_clip(verts, face, &mut scratch);
                for &[a, b, c] in &scratch.tris {
                    indices.extend_from_slice(&[face[a], face[b], face[c]]);
                }
                ears.push(scratch.tris.len() as u32);
            }
        }
    }
    (indices, ears)
}

/// The corner a quad is fanned from: the first whose angles to its neighbours, measured from the
/// diagonal, sum to more than π (single precision, like Assimp), else 0.
///
/// Each corner's three directions are shared with its neighbours: corner `i`'s right edge is
/// corner `i + 1`'s left edge reversed, and the diagonal from `i + 2` is the one from `i`
/// reversed. `normalize(-v)` is `-normalize(v)` bit for bit (the same length, and negation is
/// exact), so six normalisations give the twelve Assimp makes.
fn quad_start(verts: &[Vec3], face: &[u32]) -> usize {
    let p = |k: usize| verts[face[k % 4] as usize];
    // edge[i]: from corner i to corner i + 1; diag[i]: from corner i to corner i + 2. Spelled
    // out: through `array::from_fn` the closure was a call per edge and each result went
    // through the stack in pieces (a quarter of the triangulation's time).
    let (p0, p1, p2, p3) = (p(0), p(1), p(2), p(3));
    let edge = [
        normalize(p1 - p0),
        normalize(p2 - p1),
        normalize(p3 - p2),
        normalize(p0 - p3),
    ];
    let diag = [normalize(p2 - p0), normalize(p3 - p1)];
    for i in 0..4 {
        let left = -edge[(i + 3) % 4];
        let diag = if i < 2 { diag[i] } else { -diag[i - 2] };
        let right = edge[i];
        let (dl, dr) = (dot(left, diag), dot(right, diag));
        // A faithfully rounded `acos` of a non-negative value is at most `FRAC_PI_2` (f32), and
        // twice that is `PI` exactly, so the sum cannot pass `PI`: the usual convex corner needs
        // no `acos` (they were 3 % of a conversion). NaN falls through to Assimp's test.
        if dl >= 0.0 && dr >= 0.0 {
            continue;
        }
        // The platform's acosf, as Assimp's; glibc's algorithm on wasm32.
        let angle = glibc::acos(dl) + glibc::acos(dr);
        if angle > core::f32::consts::PI {
            return i;
        }
    }
    0
}

/// Assimp's `GetArea2D` (promoted to double as in `PolyTools.h`).
#[inline]
fn area2d(v1: [f32; 2], v2: [f32; 2], v3: [f32; 2]) -> f64 {
    let f = |x: f32| f64::from(x);
    0.5 * (f(v1[0]) * (f(v3[1]) - f(v2[1]))
        + f(v2[0]) * (f(v1[1]) - f(v3[1]))
        + f(v3[0]) * (f(v2[1]) - f(v1[1])))
}

/// `OnLeftSideOfLine2D(p0, p1, p2)`: is `p2` on the left of the line `p0 → p1`.
#[inline]
fn on_left_side(p0: [f32; 2], p1: [f32; 2], p2: [f32; 2]) -> bool {
    area2d(p0, p2, p1) > 0.0
}

#[inline]
fn sub(a: [f32; 2], b: [f32; 2]) -> [f32; 2] {
    [a[0] - b[0], a[1] - b[1]]
}

/// A 2D dot product in single precision, then widened (as Assimp's `aiVector2D` products).
#[inline]
fn dot2(a: [f32; 2], b: [f32; 2]) -> f64 {
    f64::from(a[0] * b[0] + a[1] * b[1])
}

/// `PointInTriangle2D` (barycentric, strict; a degenerate triangle contains nothing), with
/// what depends on the triangle alone computed once ([`EarTriangle`]).
#[cfg(test)]
fn point_in_triangle(p0: [f32; 2], p1: [f32; 2], p2: [f32; 2], pp: [f32; 2]) -> bool {
    EarTriangle::new(p0, p1, p2).contains(pp)
}

/// Assimp's `PointInTriangle2D` for one triangle and many points: the same operations in the
/// same order, so the same answers, with the triangle's dot products and `1/denom` computed
/// once instead of once per point.
struct EarTriangle {
    p0: [f32; 2],
    v0: [f32; 2],
    v1: [f32; 2],
    dot00: f64,
    dot01: f64,
    dot11: f64,
    /// `None` when the denominator is 0: then nothing is inside.
    inv: Option<f64>,
}

impl EarTriangle {
    #[inline]
    fn new(p0: [f32; 2], p1: [f32; 2], p2: [f32; 2]) -> Self {
        let v0 = sub(p1, p0);
        let v1 = sub(p2, p0);
        let dot00 = dot2(v0, v0);
        let dot01 = dot2(v0, v1);
        let dot11 = dot2(v1, v1);
        let denom = dot00 * dot11 - dot01 * dot01;
        EarTriangle {
            p0,
            v0,
            v1,
            dot00,
            dot01,
            dot11,
            inv: (denom != 0.0).then(|| 1.0 / denom),
        }
    }

    #[inline]
    fn contains(&self, pp: [f32; 2]) -> bool {
        let Some(inv) = self.inv else {
            return false;
        };
        let v2 = sub(pp, self.p0);
        let dot02 = dot2(self.v0, v2);
        let dot12 = dot2(self.v1, v2);
        let u = (self.dot11 * dot02 - self.dot01 * dot12) * inv;
        let v = (self.dot00 * dot12 - self.dot01 * dot02) * inv;
        u > 0.0 && v > 0.0 && u + v < 1.0
    }
}

/// Newell normal of the polygon, single precision, Assimp's summation order.
fn newell_normal(verts: &[Vec3], face: &[u32]) -> Vec3 {
    let n = face.len();
    let p = |k: usize| verts[face[k % n] as usize];
    let (mut sxy, mut syz, mut szx) = (0f32, 0f32, 0f32);
    for t in 0..n {
        let (lo, mid, hi) = (p(t), p(t + 1), p(t + 2));
        sxy += mid.x * (hi.y - lo.y);
        syz += mid.y * (hi.z - lo.z);
        szx += mid.z * (hi.x - lo.x);
    }
    Vec3::new(syz, szx, sxy)
}

/// The polygon projected on the plane of its dominant Newell-normal axis (axes swapped when
/// that component is negative), as Assimp 5.2 projects it, into `flat`.
fn project(verts: &[Vec3], face: &[u32], flat: &mut Vec<[f32; 2]>) {
    let n = newell_normal(verts, face);
    let (ax, ay, az) = (n.x.abs(), n.y.abs(), n.z.abs());
    let (mut ac, mut bc, mut inv) = (0usize, 1usize, n.z);
    if ax > ay {
        if ax > az {
            (ac, bc, inv) = (1, 2, n.x);
        }
    } else if ay > az {
        (ac, bc, inv) = (2, 0, n.y);
    }
    if inv < 0.0 {
        core::mem::swap(&mut ac, &mut bc);
    }
    flat.clear();
    flat.extend(face.iter().map(|&i| {
        let v = verts[i as usize];
        [v[ac], v[bc]]
    }));
}

/// Assimp 5.2's ear clipper on one polygon of more than 4 corners. Fills `scratch.tris` with
/// triangles of corner positions (0..n) in emission order.
///
/// The same ears as Assimp's, found faster: the next remaining corner comes from a linked list
/// instead of a scan over cut corners, and the "no corner inside the ear" test asks a grid of
/// the polygon's corners ([`CornerGrid`]) for the corners near the ear instead of testing all of
/// them (above [`GRID_MIN_CORNERS`]).
fn ear_clip(verts: &[Vec3], face: &[u32], scratch: &mut Scratch) {
    let max = face.len();
    scratch.tris.clear();

    project(verts, face, &mut scratch.flat);
    scratch.done.clear();
    scratch.done.resize(max, false);
    // The remaining corners as a ring, in corner order.
    scratch.next_alive.clear();
    scratch
        .next_alive
        .extend((1..=max as u32).map(|k| k % max as u32));
    scratch.prev_alive.clear();
    scratch
        .prev_alive
        .extend((0..max as u32).map(|k| (k + max as u32 - 1) % max as u32));
    let grid = if max >= GRID_MIN_CORNERS {
        CornerGrid::build(&scratch.flat, &mut scratch.grid);
        true
    } else {
        false
    };
    let tv = &scratch.flat;
    let done = &mut scratch.done;
    let cells = &scratch.grid;
    let contains_corner = |p0: [f32; 2], p1: [f32; 2], p2: [f32; 2]| {
        let tri = EarTriangle::new(p0, p1, p2);
        let inside = |vt: [f32; 2]| vt != p1 && vt != p2 && vt != p0 && tri.contains(vt);
        if tri.inv.is_none() {
            // The test is false for every corner.
            false
        } else if grid {
            cells.any_near(tv, &tri, inside)
        } else {
            tv.iter().any(|&vt| inside(vt))
        }
    };

    let mut num = max;
    let mut prev = max - 1;
    let mut next = 0usize;
    while num > 3 {
        let mut num_found = 0;
        let mut ear = next;
        loop {
            // The next corner not cut yet, wrapping around (`ear` is never cut here).
            next = scratch.next_alive[ear] as usize;
            if next < ear {
                num_found += 1;
                if num_found == 2 {
                    break;
                }
            }
            let (p0, p1, p2) = (tv[prev], tv[ear], tv[next]);
            // Must be convex: not on the left of prev -> next.
            let is_ear = !on_left_side(p0, p2, p1) && !contains_corner(p0, p1, p2);
            if is_ear {
                break;
            }
            prev = ear;
            ear = next;
        }
        if num_found == 2 {
            // No ear in two passes: keep what was cut, drop the rest (Assimp 5.2).
            return;
        }
        scratch.tris.push([prev, ear, next]);
        done[ear] = true;
        let (before, after) = (scratch.prev_alive[ear], scratch.next_alive[ear]);
        scratch.next_alive[before as usize] = after;
        scratch.prev_alive[after as usize] = before;
        num -= 1;
    }
    let mut rest = (0..max).filter(|&k| !done[k]);
    if let (Some(a), Some(b), Some(c)) = (rest.next(), rest.next(), rest.next()) {
        scratch.tris.push([a, b, c]);
    }
}

/// Polygons from this many corners on use a [`CornerGrid`]; smaller ones test every corner.
const GRID_MIN_CORNERS: usize = 64;

/// The projected corners of one polygon in a uniform grid of about one cell per corner, so
/// that an ear's "does it contain a corner" test reads only the cells around the ear.
///
/// Exactness: the test must give what testing every corner gives, including the rounding of
/// [`EarTriangle::contains`]. The grid reads only the cells of the box [`passing_region`]
/// bounds (every point the test, rounding and all, can call inside), and tests every corner
/// when that box cannot be bounded or covers most of the grid (a sliver whose answer the
/// rounding decides). Corners with a NaN or infinite coordinate are always tested. A test
/// compares the result with the old clipper's on combs, a spiral, stars, random walks and
/// collinear runs.
#[derive(Default)]
struct CornerGrid {
    origin: [f32; 2],
    inv_cell: [f32; 2],
    dims: [usize; 2],
    extent: f32,
    /// When every coordinate is a multiple of `2^-k` and small enough that differences stay
    /// exact: `2^k` and the polygon's extent along each axis in those units (see
    /// [`passing_region`]).
    exact: Option<(f64, [f64; 2])>,
    /// Corner ids by cell (`start[c]..start[c + 1]`), then the non-finite corners.
    start: Vec<u32>,
    items: Vec<u32>,
    non_finite: Vec<u32>,
}

impl CornerGrid {
    fn build(pts: &[[f32; 2]], grid: &mut CornerGrid) {
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        grid.non_finite.clear();
        for (i, p) in pts.iter().enumerate() {
            if p[0].is_finite() && p[1].is_finite() {
                for a in 0..2 {
                    lo[a] = lo[a].min(p[a]);
                    hi[a] = hi[a].max(p[a]);
                }
            } else {
                grid.non_finite.push(i as u32);
            }
        }
        grid.exact = dyadic_scale(pts).map(|scale| {
            let span = |a: usize| f64::from(hi[a] - lo[a]) * scale;
            (scale, [span(0), span(1)])
        });
        let side = (pts.len() as f64).sqrt().ceil().max(1.0) as usize;
        grid.origin = lo;
        grid.extent = 0.0;
        for a in 0..2 {
            let span = hi[a] - lo[a];
            grid.extent = grid.extent.max(if span.is_finite() { span } else { 0.0 });
            if span.is_finite() && span > 0.0 {
                grid.dims[a] = side;
                grid.inv_cell[a] = side as f32 / span;
            } else {
                grid.dims[a] = 1;
                grid.inv_cell[a] = 0.0;
            }
        }
        let cells = grid.dims[0] * grid.dims[1];
        grid.start.clear();
        grid.start.resize(cells + 1, 0);
        for p in pts {
            if let Some(c) = grid.cell(*p) {
                grid.start[c + 1] += 1;
            }
        }
        for c in 0..cells {
            grid.start[c + 1] += grid.start[c];
        }
        grid.items.clear();
        grid.items.resize(grid.start[cells] as usize, 0);
        let mut fill = grid.start[..cells].to_vec();
        for (i, p) in pts.iter().enumerate() {
            if let Some(c) = grid.cell(*p) {
                grid.items[fill[c] as usize] = i as u32;
                fill[c] += 1;
            }
        }
    }

    /// The cell along one axis of a coordinate, clamped to the grid.
    #[inline]
    fn axis(&self, a: usize, x: f32) -> usize {
        let f = (x - self.origin[a]) * self.inv_cell[a];
        // `as` saturates (negative and NaN to 0).
        (f as usize).min(self.dims[a] - 1)
    }

    #[inline]
    fn cell(&self, p: [f32; 2]) -> Option<usize> {
        (p[0].is_finite() && p[1].is_finite())
            .then(|| self.axis(1, p[1]) * self.dims[0] + self.axis(0, p[0]))
    }

    /// Whether `inside` holds for a corner that could be inside the triangle: every corner
    /// near it, as the type's comment says.
    fn any_near(
        &self,
        pts: &[[f32; 2]],
        tri: &EarTriangle,
        inside: impl Fn([f32; 2]) -> bool,
    ) -> bool {
        let test = |ids: &[u32]| ids.iter().any(|&i| inside(pts[i as usize]));
        if test(&self.non_finite) {
            return true;
        }
        let all = || pts.iter().any(|&p| inside(p));
        let Some((lo, hi)) = passing_region(tri, 1.5 * f64::from(self.extent), self.exact) else {
            return all();
        };
        let (x0, x1) = (self.axis(0, lo[0]), self.axis(0, hi[0]));
        let (y0, y1) = (self.axis(1, lo[1]), self.axis(1, hi[1]));
        if (x1 - x0 + 1) * (y1 - y0 + 1) * 2 > self.dims[0] * self.dims[1] {
            return all();
        }
        for y in y0..=y1 {
            let row = y * self.dims[0];
            let (first, last) = (self.start[row + x0], self.start[row + x1 + 1]);
            if test(&self.items[first as usize..last as usize]) {
                return true;
            }
        }
        false
    }
}

/// `2^k` when every coordinate is finite, a multiple of `2^-k` and below 2²² units of it.
fn dyadic_scale(pts: &[[f32; 2]]) -> Option<f64> {
    let mut frac = 0i32;
    for &x in pts.iter().flatten() {
        if !x.is_finite() {
            return None;
        }
        if x == 0.0 {
            continue;
        }
        let bits = x.to_bits();
        let exp = ((bits >> 23) & 0xff) as i32;
        let mant = if exp == 0 {
            bits & 0x7f_ffff
        } else {
            (bits & 0x7f_ffff) | 0x80_0000
        };
        // x = mant · 2^(max(exp, 1) − 150)
        let e = exp.max(1) - 150 + mant.trailing_zeros() as i32;
        frac = frac.max(-e);
    }
    if frac > 126 {
        return None;
    }
    let scale = 2f64.powi(frac);
    let mut max = 0f64;
    for &x in pts.iter().flatten() {
        max = max.max(f64::from(x).abs() * scale);
    }
    (max < 4_194_304.0).then_some(scale)
}

/// A box holding every point that [`EarTriangle::contains`] can call inside,
/// for points at most `reach` from `p0`; `None` when it cannot be bounded (non-finite values).
///
/// The test computes `u = A·(v0·v2) + B·(v1·v2)` and `v = C·(v0·v2) + D·(v1·v2)` with
/// constants `A…D` from the triangle alone (its dot products and `1/denom`, rounded as the test
/// rounds them) and `v2 = pp − p0`. Whatever those constants' own rounding (a sliver's
/// denominator can be off by its whole value), the same constants serve every point, so in
/// `s = U·x`, `t = V·x` (`U = A·v0 + B·v1`, `V = C·v0 + D·v1`, exact) the points that pass form
/// the triangle `s > 0, t > 0, s + t < 1`, widened by the rounding of the point's own
/// products — at most `3ε·|v2|·(|A||v0| + |B||v1|)` in `s` (likewise `t`), taken 4 times over
/// with ε = 2⁻²³. That triangle's corners, mapped back to positions, bound the box.
///
/// When all coordinates are multiples of `2^-k` below 2²² of those units (`exact`: the scale
/// `2^k` and the polygon's extent per axis, `E`), and `|v0.x|·E.x + |v0.y|·E.y` and the same
/// for `v1` stay below 2²⁴ units², every point's difference and products are exact in f32 and
/// the products of the f64 formula exact too: the widening is 0 (grid-snapped models, mazes,
/// combs).
fn passing_region(
    tri: &EarTriangle,
    reach: f64,
    exact: Option<(f64, [f64; 2])>,
) -> Option<([f32; 2], [f32; 2])> {
    let (p0, v0, v1) = (tri.p0, tri.v0, tri.v1);
    let (dot00, dot01, dot11) = (tri.dot00, tri.dot01, tri.dot11);
    let inv = tri.inv?;
    let (ca, cb, cc, cd) = (dot11 * inv, -dot01 * inv, -dot01 * inv, dot00 * inv);
    let w0 = [f64::from(v0[0]), f64::from(v0[1])];
    let w1 = [f64::from(v1[0]), f64::from(v1[1])];
    let u = [ca * w0[0] + cb * w1[0], ca * w0[1] + cb * w1[1]];
    let v = [cc * w0[0] + cd * w1[0], cc * w0[1] + cd * w1[1]];
    let (l0, l1) = (w0[0].hypot(w0[1]), w1[0].hypot(w1[1]));
    let exact_products = exact.is_some_and(|(scale, max)| {
        let units = |w: [f64; 2]| (w[0].abs() * max[0] + w[1].abs() * max[1]) * scale;
        units(w0) < 16_777_216.0 && units(w1) < 16_777_216.0
    });
    let eps = if exact_products {
        0.0
    } else {
        4.0 * 3.0 * f64::from(f32::EPSILON) * reach
    };
    let su = eps * (ca.abs() * l0 + cb.abs() * l1);
    let sv = eps * (cc.abs() * l0 + cd.abs() * l1);
    let det = u[0] * v[1] - u[1] * v[0];
    // (s, t) -> x, the inverse of x -> (U·x, V·x).
    let back = |s: f64, t: f64| [(v[1] * s - u[1] * t) / det, (-v[0] * s + u[0] * t) / det];
    let (a, b, c) = (-su, -sv, 1.0 + su + sv);
    let corners = [back(a, b), back(c - b, b), back(a, c - a)];
    let (mut lo, mut hi) = ([f64::INFINITY; 2], [f64::NEG_INFINITY; 2]);
    for x in corners {
        for k in 0..2 {
            lo[k] = lo[k].min(x[k]);
            hi[k] = hi[k].max(x[k]);
        }
    }
    // The mapping back is done in f64: pad by far more than its rounding.
    let pad = 1e-9 * (reach + (hi[0] - lo[0]) + (hi[1] - lo[1]));
    let base = [f64::from(p0[0]), f64::from(p0[1])];
    let lo = [base[0] + lo[0] - pad, base[1] + lo[1] - pad];
    let hi = [base[0] + hi[0] + pad, base[1] + hi[1] + pad];
    if !(lo.iter().chain(&hi).all(|x| x.is_finite())) {
        return None;
    }
    // Rounding outwards to f32.
    let down = |x: f64| {
        let f = x as f32;
        if f64::from(f) > x { f.next_down() } else { f }
    };
    let up = |x: f64| {
        let f = x as f32;
        if f64::from(f) < x { f.next_up() } else { f }
    };
    Some(([down(lo[0]), down(lo[1])], [up(hi[0]), up(hi[1])]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn mesh(points: &[[f32; 3]], faces: &[&[u32]]) -> Scene {
        let mut s = Scene::with_root("r");
        let mut m = Mesh {
            positions: points.iter().map(|p| Vec3::from_array(*p)).collect(),
            ..Mesh::default()
        };
        for f in faces {
            m.push_face(f);
        }
        m.update_primitive_types();
        s.meshes.push(m);
        s
    }

    fn tris(s: &Scene) -> Vec<Vec<u32>> {
        s.meshes[0].faces().map(|f| f.to_vec()).collect()
    }

    /// Assimp's rule as written: both `acos` calls at every corner.
    fn quad_start_always_acos(verts: &[Vec3], face: &[u32]) -> usize {
        let p = |k: usize| verts[face[k % 4] as usize];
        for i in 0..4 {
            let v = p(i);
            let left = normalize(p(i + 3) - v);
            let diag = normalize(p(i + 2) - v);
            let right = normalize(p(i + 1) - v);
            if dot(left, diag).acos() + dot(right, diag).acos() > core::f32::consts::PI {
                return i;
            }
        }
        0
    }

    proptest::proptest! {
        /// The skipped `acos` calls never change the corner: random quads, convex, concave,
        /// bow-tied, with repeated and collinear corners (small integer grids make those common).
        #[test]
        fn quad_start_equals_assimps_rule(
            coords in proptest::collection::vec(-3i8..=3, 12),
            scale in proptest::sample::select(vec![1.0f32, 1e-3, 0.37, 1e4]),
        ) {
            let verts: Vec<Vec3> = coords
                .chunks(3)
                .map(|c| Vec3::new(c[0] as f32, c[1] as f32, c[2] as f32 * 0.25) * scale)
                .collect();
            let face = [0, 1, 2, 3];
            proptest::prop_assert_eq!(quad_start(&verts, &face), quad_start_always_acos(&verts, &face));
        }
    }

    #[test]
    fn quad_start_still_finds_a_reflex_corner() {
        // A dart with its reflex corner at index 2, and the same with index 0 in front.
        let dart = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(0.5, 0.3, 0.0),
            Vec3::new(0.5, 1.0, 0.0),
        ];
        assert_eq!(quad_start(&dart, &[0, 1, 2, 3]), 2);
        assert_eq!(quad_start(&dart, &[2, 3, 0, 1]), 0);
        assert_eq!(quad_start_always_acos(&dart, &[0, 1, 2, 3]), 2);
    }

    #[test]
    fn convex_quad_splits_from_first_corner() {
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [1., 1., 0.], [0., 1., 0.]],
            &[&[0, 1, 2, 3]],
        );
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![0, 1, 2], vec![0, 2, 3]]);
        assert_eq!(s.meshes[0].primitive_types.0, PrimitiveTypes::TRIANGLE);
    }

    #[test]
    fn concave_quad_fans_from_reflex_corner() {
        // Dart: corner 2 at (0.5, 0.3) points inwards.
        let pts = [[0., 0., 0.], [1., 1., 0.], [0.3, 0.5, 0.], [0., 1., 0.]];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3]]);
        // Corner 2 is the reflex one: fan (2, 3, 0), (2, 0, 1).
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![2, 3, 0], vec![2, 0, 1]]);
    }

    #[test]
    fn points_lines_triangles_pass_and_ngon_encoding_rotates() {
        // Same as the OFF file checked against assimp 5.2.5: quad, then triangles sharing
        // vertex 0, then a point and a line.
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [-1., 1., 0.],
            [-1., 0., 0.],
        ];
        let mut s = mesh(
            &pts,
            &[&[0, 1, 2, 3], &[0, 3, 4], &[0, 4, 5], &[5], &[1, 2]],
        );
        triangulate(&mut s).unwrap();
        assert_eq!(
            tris(&s),
            [
                vec![0, 1, 2],
                vec![0, 2, 3],
                vec![4, 0, 3],
                vec![0, 4, 5],
                vec![5],
                vec![1, 2]
            ]
        );
        let pt = s.meshes[0].primitive_types;
        assert!(pt.contains(PrimitiveTypes::POINT) && pt.contains(PrimitiveTypes::LINE));
        assert!(!pt.contains(PrimitiveTypes::POLYGON));
    }

    #[test]
    fn any_split_into_runs_gives_the_same_triangles() {
        // Faces of 1 to 8 corners over a pool of 24 shared positions: the NGON encoder rotates
        // across faces (and across the runs' seams), polygons ear clip, some fail part-way.
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: u64| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 33) % m
        };
        let pts: Vec<[f32; 3]> = (0..24)
            .map(|_| [next(9) as f32, next(9) as f32, next(3) as f32 * 0.5])
            .collect();
        let faces: Vec<Vec<u32>> = (0..400)
            .map(|_| {
                let n = 1 + next(8);
                (0..n).map(|_| next(24) as u32).collect()
            })
            .collect();
        let faces: Vec<&[u32]> = faces.iter().map(|f| &f[..]).collect();
        let one = {
            let mut s = mesh(&pts, &faces);
            triangulate_in_runs(&mut s.meshes[0], 1);
            s.meshes.remove(0)
        };
        assert!(one.face_sizes.iter().filter(|&&n| n == 3).count() > 800);
        for runs in 2..=7 {
            let mut s = mesh(&pts, &faces);
            triangulate_in_runs(&mut s.meshes[0], runs);
            let m = &s.meshes[0];
            assert_eq!(m.face_sizes, one.face_sizes, "{runs} runs");
            assert_eq!(m.indices, one.indices, "{runs} runs");
        }
    }

    #[test]
    fn quad_ngon_encoding_rotates_both_halves() {
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., 0.],
            [2., 0., 0.],
            [2., 1., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3], &[0, 1, 4, 5]]);
        triangulate(&mut s).unwrap();
        assert_eq!(
            tris(&s),
            [vec![0, 1, 2], vec![0, 2, 3], vec![4, 0, 1], vec![4, 5, 0]]
        );
    }

    #[test]
    fn collinear_pentagon_gives_degenerate_ear_like_assimp_5_2() {
        // Checked against assimp 5.2.5 (`assimp dump col.off -tri`): 4 0 1 / 2 4 1 / 4 2 3.
        let pts = [
            [1., 0., 0.],
            [2., 0., 0.],
            [2., 2., 0.],
            [0., 2., 0.],
            [0., 0., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![4, 0, 1], vec![2, 4, 1], vec![4, 2, 3]]);
    }

    #[test]
    fn concave_hexagon_is_ear_clipped() {
        // An L shape (CCW in xy): the reflex corner is 3 at (1, 1).
        let pts = [
            [0., 0., 0.],
            [2., 0., 0.],
            [2., 1., 0.],
            [1., 1., 0.],
            [1., 2., 0.],
            [0., 2., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4, 5]]);
        triangulate(&mut s).unwrap();
        let t = tris(&s);
        // Ears (5 0 1), (5 1 2), (3 4 5), then the rest (2 3 5); the second is NGON-rotated.
        // Checked against assimp 5.2.5 (`assimp dump L.off -tri`).
        assert_eq!(
            t,
            [vec![5, 0, 1], vec![2, 5, 1], vec![3, 4, 5], vec![2, 3, 5]]
        );
        // Assimp's strict point-in-triangle test ignores corner 3, which lies exactly on the
        // edge of the second ear, so that ear covers part of the notch and the last triangle
        // (2 3 5) comes out clockwise: Assimp 5.2's result, reproduced.
    }

    #[test]
    fn clockwise_polygon_is_projected_with_swapped_axes() {
        // The same L, clockwise: the Newell normal points to -z, the axes are swapped.
        let pts = [
            [0., 2., 0.],
            [1., 2., 0.],
            [1., 1., 0.],
            [2., 1., 0.],
            [2., 0., 0.],
            [0., 0., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4, 5]]);
        triangulate(&mut s).unwrap();
        // Checked against assimp 5.2.5 (`assimp dump Lcw.off -tri`).
        assert_eq!(
            tris(&s),
            [vec![5, 0, 1], vec![2, 5, 1], vec![5, 2, 3], vec![3, 4, 5]]
        );
    }

    #[test]
    fn degenerate_polygons_are_cut_into_degenerate_triangles() {
        // All corners at one point: zero area is not "left", a degenerate triangle contains
        // nothing, so every corner is an ear.
        let pts = [[0., 0., 0.]; 5];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert_eq!(tris(&s), [vec![4, 0, 1], vec![2, 4, 1], vec![4, 2, 3]]);
    }

    #[test]
    fn nan_positions_do_not_panic() {
        let pts = [
            [f32::NAN, 0., 0.],
            [1., 0., 0.],
            [1., 1., 0.],
            [0., 1., f32::NAN],
            [0.5, 2., 0.],
        ];
        let mut s = mesh(&pts, &[&[0, 1, 2, 3], &[0, 1, 2, 3, 4]]);
        triangulate(&mut s).unwrap();
        assert!(s.meshes[0].face_sizes.iter().all(|&n| n == 3));
    }

    #[test]
    fn bad_index_is_an_error_and_leaves_the_scene() {
        let mut s = mesh(&[[0., 0., 0.]; 4], &[&[0, 1, 2, 7]]);
        let before = s.clone();
        assert!(matches!(
            triangulate(&mut s),
            Err(ProcessError::MalformedMesh { mesh: 0, .. })
        ));
        assert_eq!(s, before);
    }

    /// The ear clipper as Assimp 5.2 wrote it (and kiln had it before the grid): a scan over
    /// cut corners for the next one and a test of every corner for each ear.
    fn reference_ear_clip(verts: &[Vec3], face: &[u32], scratch: &mut Scratch) {
        let max = face.len();
        scratch.tris.clear();

        project(verts, face, &mut scratch.flat);
        scratch.done.clear();
        scratch.done.resize(max, false);
        let tv = &scratch.flat;
        let done = &mut scratch.done;

        let mut num = max;
        let mut prev = max - 1;
        let mut next = 0usize;
        while num > 3 {
            let mut num_found = 0;
            let mut ear = next;
            loop {
                // The next corner not cut yet, wrapping around.
                next = ear + 1;
                loop {
                    if next >= max {
                        next = 0;
                    }
                    if !done[next] {
                        break;
                    }
                    next += 1;
                }
                if next < ear {
                    num_found += 1;
                    if num_found == 2 {
                        break;
                    }
                }
                let (p0, p1, p2) = (tv[prev], tv[ear], tv[next]);
                // Must be convex: not on the left of prev -> next.
                let is_ear = !on_left_side(p0, p2, p1)
                    && !tv.iter().any(|&vt| {
                        vt != p1 && vt != p2 && vt != p0 && point_in_triangle(p0, p1, p2, vt)
                    });
                if is_ear {
                    break;
                }
                prev = ear;
                ear = next;
            }
            if num_found == 2 {
                // No ear in two passes: keep what was cut, drop the rest (Assimp 5.2).
                return;
            }
            scratch.tris.push([prev, ear, next]);
            done[ear] = true;
            num -= 1;
        }
        let mut rest = (0..max).filter(|&k| !done[k]);
        if let (Some(a), Some(b), Some(c)) = (rest.next(), rest.next(), rest.next()) {
            scratch.tris.push([a, b, c]);
        }
    }

    /// Polygons of the shapes where the grid matters, and awkward ones: combs (long thin
    /// teeth), a spiral maze, jittered stars, self-intersecting random walks, collinear runs,
    /// repeated positions.
    fn test_polygons() -> Vec<Vec<[f32; 3]>> {
        let mut rng = kiln_testkit::rng::Rng(0x9e37_79b9_7f4a_7c15);
        let mut rand = move || rng.unit() as f32;
        let mut polys = Vec::new();
        for teeth in [20usize, 75, 300] {
            polys.push(comb(teeth, 0.0, &mut rand));
            polys.push(comb(teeth, 0.01, &mut rand));
        }
        polys.push(spiral(400));
        for n in [70usize, 300, 1000] {
            let star: Vec<[f32; 3]> = (0..n)
                .map(|k| {
                    let a = k as f32 / n as f32 * core::f32::consts::TAU;
                    let r = if k % 2 == 0 { 1.0 } else { 0.3 + 0.5 * rand() };
                    [a.cos() * r, a.sin() * r, 0.1 * rand()]
                })
                .collect();
            polys.push(star);
            let walk: Vec<[f32; 3]> = (0..n).map(|_| [rand(), rand(), 0.0]).collect();
            polys.push(walk);
            // A square with many collinear corners per side and a few repeated ones.
            let side = n / 4;
            let mut sq = Vec::new();
            for (x0, y0, dx, dy) in [
                (0., 0., 1., 0.),
                (1., 0., 0., 1.),
                (1., 1., -1., 0.),
                (0., 1., 0., -1.),
            ] {
                for k in 0..side {
                    let t = k as f32 / side as f32;
                    sq.push([x0 + dx * t, y0 + dy * t, 0.0]);
                    if k % 17 == 3 {
                        sq.push([x0 + dx * t, y0 + dy * t, 0.0]);
                    }
                }
            }
            polys.push(sq);
        }
        polys
    }

    /// A comb: a base along x and `teeth` teeth of height 10 upwards, counter-clockwise,
    /// positions jittered by `jitter`.
    fn comb(teeth: usize, jitter: f32, rand: &mut impl FnMut() -> f32) -> Vec<[f32; 3]> {
        let mut j = || (rand() - 0.5) * jitter;
        let mut pts = vec![[0.0, -1.0, 0.0], [teeth as f32 * 2.0, -1.0, 0.0]];
        for t in (0..teeth).rev() {
            let x = t as f32 * 2.0;
            pts.push([x + 1.0 + j(), 10.0 + j(), 0.0]);
            pts.push([x + 0.0 + j(), 10.0 + j(), 0.0]);
            if t > 0 {
                pts.push([x - 0.0 + j(), 0.0 + j(), 0.0]);
                pts.push([x - 1.0 + j(), 0.0 + j(), 0.0]);
            }
        }
        pts
    }

    /// A square spiral corridor (a maze of one path) as one polygon.
    fn spiral(turns: usize) -> Vec<[f32; 3]> {
        let mut outer = Vec::new();
        let mut inner = Vec::new();
        let (mut x, mut y) = (0.0f32, 0.0f32);
        let dirs = [(1.0, 0.0), (0.0, 1.0), (-1.0, 0.0), (0.0, -1.0)];
        for k in 0..turns {
            let len = 2.0 * (k / 2 + 1) as f32;
            let (dx, dy) = dirs[k % 4];
            outer.push([x, y, 0.0]);
            inner.push([x + 0.5 * (dy - dx), y + 0.5 * (-dx - dy), 0.0]);
            x += dx * len;
            y += dy * len;
        }
        inner.reverse();
        outer.extend(inner);
        outer
    }

    #[test]
    fn indexed_ear_clipper_cuts_the_same_ears_as_assimps() {
        for (k, poly) in test_polygons().into_iter().enumerate() {
            for flip in [false, true] {
                let mut pts = poly.clone();
                if flip {
                    pts.reverse();
                }
                let verts: Vec<Vec3> = pts.iter().map(|p| Vec3::from_array(*p)).collect();
                let face: Vec<u32> = (0..verts.len() as u32).collect();
                let (mut a, mut b) = (Scratch::default(), Scratch::default());
                ear_clip(&verts, &face, &mut a);
                reference_ear_clip(&verts, &face, &mut b);
                assert!(!b.tris.is_empty(), "polygon {k}");
                assert_eq!(
                    a.tris,
                    b.tris,
                    "polygon {k} ({} corners, flipped {flip})",
                    face.len()
                );
            }
        }
    }
}
