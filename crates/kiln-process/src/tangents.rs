//! CalcTangentSpace (Assimp 5.2.5 `CalcTangentsProcess.cpp`), with a grid instead of Assimp's
//! quadratic neighbour search.

use crate::spatial::PositionGrid;
use crate::{ProcessError, check, codes};
use kiln_scene::assimp_math::{cross, dot, normalize, normalize_safe, position_epsilon};
use kiln_scene::{Mesh, Scene, Vec3, Warning};

/// Assimp's `aiProcess_CalcTangentSpace` as in 5.2.5 (`CalcTangentsProcess`, default
/// configuration: UV channel 0, 45° smoothing angle). Not MikkTSpace.
///
/// Meshes are skipped when they already have tangents, have no face of 3 or more corners, have
/// no normals, or have no UV channel 0. Otherwise:
///
/// 1. per face, in order, from its **first three** corners only: position deltas `v = p1 − p0`,
///    `w = p2 − p0` and UV deltas `s = uv1 − uv0`, `t = uv2 − uv0`; a direction sign
///    `sign(t.x·s.y − t.y·s.x)` (−1 when negative, else +1); when `s.x·t.y == s.y·t.x` (exactly)
///    the UV deltas are replaced by `s = (0, 1)`, `t = (1, 0)`; tangent
///    `(w·s.y − v·t.y)·sign`, bitangent `(v·t.x − w·s.x)·sign`. For every corner of the face:
///    the tangent is projected onto the plane of that vertex's normal, the bitangent too and
///    then made orthogonal to the projected tangent; both are `normalize_safe`d; if exactly one
///    of them has an infinite or NaN component it is rebuilt as `normal × bitangent` (tangent)
///    or `tangent × normal` (bitangent) and normalised. Vertices of points and lines get NaN
///    tangents and bitangents and take no part in step 2;
/// 2. smoothing, in vertex order: a vertex `a` not yet done gathers every not-done vertex
///    closer than Assimp's position epsilon (1e-4 of the mesh's bounding-box diagonal) whose
///    normal has a dot product ≥ 0.9999 with `a`'s and whose tangent and bitangent have dot
///    products ≥ cos 45° with `a`'s (comparisons with NaN pass, as in C++); those are marked
///    done. `a` is in the group once by construction and once more when it passes its own test
///    (Assimp's double count, kept). The group's tangents and bitangents are summed,
///    normalised (Assimp 5.2's `Normalize`: a zero sum stays zero) and written to all members.
///
/// The neighbour search uses a uniform grid (see `spatial.rs`), so the step is O(n log n) for
/// real meshes, not Assimp's O(n²); over the importer's points rather than every vertex when
/// the mesh has [`kiln_scene::SharedPositions`] that hold (see `PointGrid`: the same results). Deviation: when the epsilon is not finite (infinite or
/// overflowing coordinates), Assimp would compare every vertex with every other; kiln then
/// smooths nothing (each vertex keeps its own, normalised) and records a warning.
///
/// Fails without changing anything when a mesh is malformed.
pub fn calc_tangent_space(scene: &mut Scene) -> Result<(), ProcessError> {
    check::check_meshes(scene)?;
    calc_tangent_space_unchecked(scene);
    Ok(())
}

pub(crate) fn calc_tangent_space_unchecked(scene: &mut Scene) {
    let warnings = crate::each_mesh(&mut scene.meshes, calc_mesh_tangents);
    for (i, warning) in warnings.into_iter().enumerate() {
        if let Some(warning) = warning {
            scene.warnings.push(Warning::new(
                codes::TANGENTS_NOT_SMOOTHED,
                format!("calc_tangent_space: mesh {i}: {warning}"),
            ));
        }
    }
}

fn calc_mesh_tangents(mesh: &mut Mesh) -> Option<String> {
    if !mesh.tangents.is_empty()
        || !mesh.face_sizes.iter().any(|&n| n >= 3)
        || mesh.normals.is_empty()
        || mesh.uv_channels.is_empty()
    {
        return None;
    }
    // Step 1 and the neighbour search's grid read different arrays: built side by side.
    let ((tang, bitang, done), (eps, search)) =
        crate::join(|| corner_frames(mesh), || Search::new(mesh));
    let warning = if !eps.is_finite() {
        Some(format!(
            "position epsilon is {eps} (non-finite coordinates); tangents are not smoothed"
        ))
    } else if eps > 0.0 && matches!(search, Search::Vertices(None)) {
        Some(format!(
            "position epsilon {eps} is too small for the coordinates' range; tangents are not smoothed"
        ))
    } else {
        None
    };
    let (mut tang, mut bitang, mut done) = (tang, bitang, done);
    let mut frames = Frames::new(0, &mut tang, &mut bitang, &mut done);
    match &search {
        Search::Points(points) => points.smooth(&mesh.normals, &mut frames),
        Search::Vertices(grid) => smooth_by_vertex(
            &mesh.positions,
            &mesh.normals,
            grid.as_ref(),
            eps,
            &mut frames,
        ),
    }
    mesh.tangents = tang;
    mesh.bitangents = bitang;
    warning
}

/// How step 2 finds the vertices near each vertex.
enum Search<'m> {
    /// Through the importer's points ([`kiln_scene::SharedPositions`]), checked.
    Points(PointGrid<'m>),
    /// A grid over every vertex; `None` when the epsilon is not finite and positive or too
    /// small for the coordinates' range (nothing is smoothed).
    Vertices(Option<PositionGrid>),
}

impl<'m> Search<'m> {
    /// The position epsilon and the search for `mesh`: over its points when it has shared
    /// positions that hold, else over its vertices.
    fn new(mesh: &'m Mesh) -> (f32, Search<'m>) {
        let pos = &mesh.positions;
        let eps = position_epsilon(pos);
        if !(eps.is_finite() && eps > 0.0) {
            return (eps, Search::Vertices(None));
        }
        if let Some(grid) = mesh
            .vertex_points()
            .and_then(|(of_vertex, n)| PointGrid::new(pos, of_vertex, n, eps))
        {
            return (eps, Search::Points(grid));
        }
        (eps, Search::Vertices(PositionGrid::new(pos, eps)))
    }
}

/// Step 1's frames of the vertices from `base` on, and which of them are done: the whole
/// mesh's, or one run's of them when runs are smoothed side by side; with Assimp's
/// thresholds for step 2.
struct Frames<'f> {
    base: usize,
    tang: &'f mut [Vec3],
    bitang: &'f mut [Vec3],
    done: &'f mut [bool],
    /// The normals' least dot product.
    angle_epsilon: f32,
    /// The tangents' and bitangents' least dot product.
    limit: f32,
}

impl<'f> Frames<'f> {
    fn new(
        base: usize,
        tang: &'f mut [Vec3],
        bitang: &'f mut [Vec3],
        done: &'f mut [bool],
    ) -> Self {
        // AI_DEG_TO_RAD(45.f), spelled as Assimp spells it.
        #[allow(clippy::excessive_precision)]
        let limit = (45.0f32 * 0.017_453_292_5f32).cos();
        Frames {
            base,
            tang,
            bitang,
            done,
            angle_epsilon: 0.9999,
            limit,
        }
    }

    /// Whether vertex `a` of this run is done.
    fn is_done(&self, a: usize) -> bool {
        self.done[a - self.base]
    }

    /// Step 2 for vertex `a` (not done), given the vertices closer than the epsilon in the
    /// order the vertex grid finds them (`a` among them unless the radius finds nothing):
    /// the group is `a`, then each of `found` not done and agreeing with `a`'s normal,
    /// tangent and bitangent, which are marked done; the group's sums, normalised, are
    /// written to all of them. Every vertex named lies in this run.
    fn smooth_vertex(&mut self, nor: &[Vec3], a: usize, found: &[u32], close: &mut Vec<u32>) {
        let (angle_epsilon, limit) = (self.angle_epsilon, self.limit);
        let b = self.base;
        let (tang, bitang, done) = (&mut *self.tang, &mut *self.bitang, &mut *self.done);
        let (orig_n, orig_t, orig_b) = (nor[a], tang[a - b], bitang[a - b]);
        close.clear();
        close.push(a as u32);
        for &idx in found {
            let i = idx as usize;
            if done[i - b]
                || dot(nor[i], orig_n) < angle_epsilon
                || dot(tang[i - b], orig_t) < limit
                || dot(bitang[i - b], orig_b) < limit
            {
                continue;
            }
            close.push(idx);
            done[i - b] = true;
        }
        let mut st = Vec3::ZERO;
        let mut sb = Vec3::ZERO;
        for &c in close.iter() {
            st += tang[c as usize - b];
            sb += bitang[c as usize - b];
        }
        let st = normalize(st);
        let sb = normalize(sb);
        for &c in close.iter() {
            tang[c as usize - b] = st;
            bitang[c as usize - b] = sb;
        }
    }
}

/// Step 2 over a grid of every vertex, in vertex order.
fn smooth_by_vertex(
    pos: &[Vec3],
    nor: &[Vec3],
    grid: Option<&PositionGrid>,
    eps: f32,
    frames: &mut Frames<'_>,
) {
    let mut found: Vec<u32> = Vec::new();
    let mut close: Vec<u32> = Vec::new();
    for a in 0..pos.len() {
        if frames.is_done(a) {
            continue;
        }
        match grid {
            Some(g) => g.find(pos, a, &mut found),
            None => {
                found.clear();
                // With an infinite epsilon Assimp finds everything; kiln only `a` itself.
                if !eps.is_finite() {
                    found.push(a as u32);
                }
            }
        }
        frames.smooth_vertex(nor, a, &found, &mut close);
    }
}

/// Step 2's neighbour search over the importer's points instead of the vertices: a grid of
/// the points (a fifth as many as the vertices in a typical export, each repeated by four to
/// six corners), and each point's vertices.
///
/// It gives exactly what the vertex grid gives, because the vertices of a point have one
/// position, bit for bit ([`PointGrid::new`] checks), so two vertices are within the radius
/// exactly when their points are, and the vertex grid's order — by cell, then by vertex id —
/// is each cell's points' vertices merged by id. Step 2 touches only the vertices within the
/// radius of the one it is at; so a point with no other point within the radius (nearly all
/// of them) is smoothed on its own, its vertices in order, by whichever thread holds it, and
/// the rest, in vertex order, after: the results are those of one pass in vertex order.
struct PointGrid<'m> {
    /// The point (numbered in order of first use) of each of the importer's points.
    number: Vec<u32>,
    /// The importer's point of each vertex.
    of_vertex: &'m [u32],
    /// Point `k`'s vertices, ascending, are `verts[start[k]..start[k + 1]]`.
    start: Vec<u32>,
    verts: Vec<u32>,
    /// Each point's position.
    pos: Vec<Vec3>,
    grid: PositionGrid,
}

impl<'m> PointGrid<'m> {
    /// The grid of the `points` points the vertices name (`of_vertex`, one per vertex; a
    /// table of `points` entries is made, so it must be bounded by what the mesh holds).
    /// `None` when a vertex names no point (one past `points`), two vertices of one point
    /// differ in position (then the hint is wrong and the vertex grid is used), or the grid
    /// cannot be built.
    fn new(positions: &[Vec3], of_vertex: &'m [u32], points: usize, eps: f32) -> Option<Self> {
        if of_vertex.len() != positions.len() {
            return None;
        }
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        let mut number = vec![u32::MAX; points];
        let mut count: Vec<u32> = Vec::new();
        let mut pos: Vec<Vec3> = Vec::new();
        for (&raw, &p) in of_vertex.iter().zip(positions) {
            let k = number.get_mut(raw as usize)?;
            if *k == u32::MAX {
                *k = count.len() as u32;
                count.push(1);
                pos.push(p);
            } else {
                if bits(pos[*k as usize]) != bits(p) {
                    return None;
                }
                count[*k as usize] += 1;
            }
        }
        let mut start = Vec::with_capacity(count.len() + 1);
        let mut sum = 0u32;
        for &n in &count {
            start.push(sum);
            sum += n;
        }
        start.push(sum);
        // `count` becomes each point's next free slot.
        let points = count.len();
        count.copy_from_slice(&start[..points]);
        let mut verts = vec![0u32; positions.len()];
        for (v, &raw) in of_vertex.iter().enumerate() {
            let slot = &mut count[number[raw as usize] as usize];
            verts[*slot as usize] = v as u32;
            *slot += 1;
        }
        let grid = PositionGrid::new(&pos, eps)?;
        Some(PointGrid {
            number,
            of_vertex,
            start,
            verts,
            pos,
            grid,
        })
    }

    fn vertices(&self, k: usize) -> &[u32] {
        &self.verts[self.start[k] as usize..self.start[k + 1] as usize]
    }

    /// Step 2 for the whole mesh: the vertex runs' lone points side by side, then the rest.
    fn smooth(&self, nor: &[Vec3], frames: &mut Frames<'_>) {
        let nv = frames.tang.len();
        let run = nv.div_ceil(crate::runs_for(nv)).max(1);
        // Points are numbered in order of first use: the first whose first vertex is at or
        // past `v`.
        let points = self.pos.len();
        let from = |v: usize| {
            self.start[..points].partition_point(|&s| (self.verts[s as usize] as usize) < v)
        };
        // Each run smooths its lone points whose vertices all lie in it, and gives back
        // the points it leaves: those near another point, and lone ones that reach past it.
        let smooth_run = |mut run: Frames<'_>| {
            let end = run.base + run.tang.len();
            let (mut close, mut near, mut across) = (Vec::new(), Vec::new(), Vec::new());
            for k in from(run.base)..from(end) {
                if self.grid.has_neighbour(k) {
                    near.push(k as u32);
                } else if self.vertices(k).last().is_some_and(|&l| l as usize >= end) {
                    across.push(k as u32);
                } else {
                    self.smooth_point(nor, &mut run, k, &mut close);
                }
            }
            (near, across)
        };
        let (near, across): (Vec<Vec<u32>>, Vec<Vec<u32>>) =
            split_runs(run, frames, smooth_run).into_iter().unzip();
        let mut close = Vec::new();
        for &k in across.iter().flatten() {
            self.smooth_point(nor, frames, k as usize, &mut close);
        }
        // The near points' vertices one by one, in vertex order.
        let mut shared: Vec<u32> = near
            .iter()
            .flatten()
            .flat_map(|&k| self.vertices(k as usize))
            .copied()
            .collect();
        shared.sort_unstable();
        let mut found = Vec::new();
        for &a in &shared {
            let a = a as usize;
            if frames.is_done(a) {
                continue;
            }
            self.find(a, &mut found);
            frames.smooth_vertex(nor, a, &found, &mut close);
        }
    }

    /// Step 2 for the vertices of lone point `k`, in order: each finds the point's vertices
    /// (or nothing, when the point is not finite or the radius finds nothing).
    fn smooth_point(&self, nor: &[Vec3], frames: &mut Frames<'_>, k: usize, close: &mut Vec<u32>) {
        let vs = self.vertices(k);
        let found = if self.pos[k].is_finite() && 0.0 < self.grid.radius_squared() {
            vs
        } else {
            &[]
        };
        for &a in vs {
            if !frames.is_done(a as usize) {
                frames.smooth_vertex(nor, a as usize, found, close);
            }
        }
    }

    /// What the vertex grid's `find` gives for vertex `a`: the vertices of the points within
    /// the radius of `a`'s, cell by cell in the grid's order, each cell's merged by id.
    fn find(&self, a: usize, out: &mut Vec<u32>) {
        out.clear();
        let k = self.number[self.of_vertex[a] as usize] as usize;
        let p = self.pos[k];
        let r2 = self.grid.radius_squared();
        self.grid.each_cell_near(k, |ids| {
            let before = out.len();
            let mut points = 0;
            for &j in ids {
                let d = self.pos[j as usize] - p;
                if dot(d, d) < r2 {
                    out.extend_from_slice(self.vertices(j as usize));
                    points += 1;
                }
            }
            if points > 1 {
                out[before..].sort_unstable();
            }
        });
    }
}

/// `f` of each run of `run` vertices of `frames` (as frames of their own), on rayon's pool
/// with the `parallel` feature; the results in run order.
fn split_runs<R: Send>(
    run: usize,
    frames: &mut Frames<'_>,
    f: impl Fn(Frames<'_>) -> R + Sync + Send,
) -> Vec<R> {
    let of = |i: usize, ((t, b), d)| f(Frames::new(i * run, t, b, d));
    #[cfg(feature = "parallel")]
    {
        use rayon::prelude::*;
        if frames.tang.len() > run {
            return (frames.tang.par_chunks_mut(run))
                .zip(frames.bitang.par_chunks_mut(run))
                .zip(frames.done.par_chunks_mut(run))
                .enumerate()
                .map(|(i, chunks)| of(i, chunks))
                .collect();
        }
    }
    (frames.tang.chunks_mut(run))
        .zip(frames.bitang.chunks_mut(run))
        .zip(frames.done.chunks_mut(run))
        .enumerate()
        .map(|(i, chunks)| of(i, chunks))
        .collect()
}

/// Step 1: each vertex's tangent and bitangent from the faces it is a corner of (the last
/// face wins), and which vertices step 2 skips (those of points and lines, set to NaN).
///
/// `check_meshes` has made the face sizes add up to the index count. Since the last face
/// wins, the faces are read from the last: a vertex's frame is worked out from the first face
/// met (its last), and not again for the faces before (a quad's two triangles share two of
/// its four vertices: a third of the corners of a mesh of quads). Corners are queued with
/// their face's tangent and bitangent and worked in batches ([`CornerBatch`]); a corner's
/// result depends on nothing written before it. A vertex of a point or a line is skipped by
/// step 2 whichever face it is in, and NaN when that face is its last.
fn corner_frames(mesh: &Mesh) -> (Vec<Vec3>, Vec<Vec3>, Vec<bool>) {
    let nv = mesh.positions.len();
    let pos = &mesh.positions;
    let nor = &mesh.normals;
    let tex = &mesh.uv_channels[0].coords;
    let nan = Vec3::splat(f32::NAN);
    let mut tang = vec![Vec3::ZERO; nv];
    let mut bitang = vec![Vec3::ZERO; nv];
    let mut done = vec![false; nv];
    // Whether a vertex has its frame (from a later face) already.
    let mut framed = vec![false; nv];
    let mut batch = CornerBatch::default();
    let mut end = mesh.indices.len();
    for &n in mesh.face_sizes.iter().rev() {
        let start = end.saturating_sub(n as usize);
        let face = &mesh.indices[start..end];
        end = start;
        if face.len() < 3 {
            for &i in face {
                let i = i as usize;
                done[i] = true;
                if !std::mem::replace(&mut framed[i], true) {
                    tang[i] = nan;
                    bitang[i] = nan;
                }
            }
            continue;
        }
        let (tangent, bitangent) = face_frame(pos, tex, face);
        for &pi in face {
            if !std::mem::replace(&mut framed[pi as usize], true) {
                batch.push(pi, tangent, bitangent, nor, &mut tang, &mut bitang);
            }
        }
    }
    batch.flush(nor, &mut tang, &mut bitang);
    (tang, bitang, done)
}

/// A face's tangent and bitangent from its first three corners (step 1 of
/// [`calc_tangent_space`]), before they are fitted to each corner's normal.
fn face_frame(pos: &[Vec3], tex: &[Vec3], face: &[u32]) -> (Vec3, Vec3) {
    let (p0, p1, p2) = (face[0] as usize, face[1] as usize, face[2] as usize);
    let v = pos[p1] - pos[p0];
    let w = pos[p2] - pos[p0];
    let mut sx = tex[p1].x - tex[p0].x;
    let mut sy = tex[p1].y - tex[p0].y;
    let mut tx = tex[p2].x - tex[p0].x;
    let mut ty = tex[p2].y - tex[p0].y;
    let dir = if tx * sy - ty * sx < 0.0 {
        -1.0f32
    } else {
        1.0
    };
    if sx * ty == sy * tx {
        (sx, sy, tx, ty) = (0.0, 1.0, 1.0, 0.0);
    }
    let tangent = Vec3::new(
        (w.x * sy - v.x * ty) * dir,
        (w.y * sy - v.y * ty) * dir,
        (w.z * sy - v.z * ty) * dir,
    );
    let bitangent = Vec3::new(
        (-w.x * sx + v.x * tx) * dir,
        (-w.y * sx + v.y * tx) * dir,
        (-w.z * sx + v.z * tx) * dir,
    );
    (tangent, bitangent)
}

/// When exactly one of a corner's normalised tangent `t` and bitangent `b` is not finite, it
/// is rebuilt from the other and the normal `n` and normalised, as Assimp does.
fn rebuild_one_bad(n: Vec3, t: Vec3, b: Vec3) -> (Vec3, Vec3) {
    match (t.is_finite(), b.is_finite()) {
        (false, true) => (normalize_safe(cross(n, b)), b),
        (true, false) => (t, normalize_safe(cross(t, n))),
        _ => (t, b),
    }
}

/// Corners per batch of [`CornerBatch`]: two 4-wide SSE vectors (or one AVX one) per
/// component.
const LANES: usize = 8;

/// Step 1's per-corner work for up to [`LANES`] corners at a time, laid out by component so
/// that the compiler turns each line of [`CornerBatch::flush`] into vector instructions. The
/// operations are the scalar ones, in the same order, and IEEE square roots, products and
/// quotients are exact lane by lane: the results are bit-identical to one corner at a time.
#[derive(Default)]
struct CornerBatch {
    len: usize,
    vertex: [u32; LANES],
    t: [[f32; LANES]; 3],
    b: [[f32; LANES]; 3],
}

impl CornerBatch {
    fn push(
        &mut self,
        vertex: u32,
        tangent: Vec3,
        bitangent: Vec3,
        nor: &[Vec3],
        tang: &mut [Vec3],
        bitang: &mut [Vec3],
    ) {
        let k = self.len;
        self.vertex[k] = vertex;
        for (c, (t, b)) in tangent
            .to_array()
            .into_iter()
            .zip(bitangent.to_array())
            .enumerate()
        {
            self.t[c][k] = t;
            self.b[c][k] = b;
        }
        self.len += 1;
        if self.len == LANES {
            self.flush(nor, tang, bitang);
        }
    }

    /// Projects, orthogonalises and normalises the queued corners and writes them, in order.
    // Lane-indexed loops over several arrays at once: they read as the formulas do.
    #[allow(clippy::needless_range_loop)]
    fn flush(&mut self, nor: &[Vec3], tang: &mut [Vec3], bitang: &mut [Vec3]) {
        let len = core::mem::take(&mut self.len);
        if len == 0 {
            return;
        }
        // Unused lanes compute on zeros and are not written.
        let mut n = [[0f32; LANES]; 3];
        for k in 0..len {
            let v = nor[self.vertex[k] as usize];
            (n[0][k], n[1][k], n[2][k]) = (v.x, v.y, v.z);
        }
        let (t, b) = (&self.t, &self.b);
        let dot = |a: &[[f32; LANES]; 3], c: &[[f32; LANES]; 3], k: usize| {
            a[0][k] * c[0][k] + a[1][k] * c[1][k] + a[2][k] * c[2][k]
        };
        // lt = t − n·(t·n)
        let mut lt = [[0f32; LANES]; 3];
        let mut d = [0f32; LANES];
        for k in 0..LANES {
            d[k] = dot(t, &n, k);
        }
        for c in 0..3 {
            for k in 0..LANES {
                lt[c][k] = t[c][k] - n[c][k] * d[k];
            }
        }
        // lb = b − n·(b·n) − lt·(b·lt)
        let mut lb = [[0f32; LANES]; 3];
        let mut e = [0f32; LANES];
        for k in 0..LANES {
            d[k] = dot(b, &n, k);
            e[k] = dot(b, &lt, k);
        }
        for c in 0..3 {
            for k in 0..LANES {
                lb[c][k] = b[c][k] - n[c][k] * d[k] - lt[c][k] * e[k];
            }
        }
        // normalize_safe of both.
        for v in [&mut lt, &mut lb] {
            for k in 0..LANES {
                d[k] = (v[0][k] * v[0][k] + v[1][k] * v[1][k] + v[2][k] * v[2][k]).sqrt();
            }
            for c in 0..3 {
                for k in 0..LANES {
                    let inv = 1.0 / d[k];
                    v[c][k] = if d[k] > 0.0 { v[c][k] * inv } else { v[c][k] };
                }
            }
        }
        for k in 0..len {
            let p = self.vertex[k] as usize;
            let t = Vec3::new(lt[0][k], lt[1][k], lt[2][k]);
            let b = Vec3::new(lb[0][k], lb[1][k], lb[2][k]);
            (tang[p], bitang[p]) = rebuild_one_bad(nor[p], t, b);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kiln_scene::UvChannel;

    fn mesh(
        points: &[[f32; 3]],
        normals: &[[f32; 3]],
        uvs: &[[f32; 2]],
        faces: &[&[u32]],
    ) -> Scene {
        let mut s = Scene::with_root("r");
        let mut m = Mesh {
            positions: points.iter().map(|p| Vec3::from_array(*p)).collect(),
            normals: normals.iter().map(|p| Vec3::from_array(*p)).collect(),
            uv_channels: vec![UvChannel {
                components: 2,
                coords: uvs.iter().map(|u| Vec3::new(u[0], u[1], 0.0)).collect(),
                name: String::new(),
            }],
            ..Mesh::default()
        };
        for f in faces {
            m.push_face(f);
        }
        m.update_primitive_types();
        s.meshes.push(m);
        s
    }

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).abs().max_element() < 1e-6
    }

    #[test]
    fn planar_triangle_follows_uv_axes() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [2., 0., 0.], [0., 3., 0.]],
            &[z, z, z],
            &[[0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        for i in 0..3 {
            assert!(close(m.tangents[i], Vec3::X), "{:?}", m.tangents[i]);
            assert!(close(m.bitangents[i], Vec3::Y), "{:?}", m.bitangents[i]);
        }
    }

    #[test]
    fn degenerate_uvs_fall_back_and_points_get_nan() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.], [5., 5., 5.]],
            &[z, z, z, z],
            &[[0.5, 0.5]; 4],
            &[&[0, 1, 2], &[3]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // s = (0, 1), t = (1, 0): tangent = w·1 − v·0 = (0, 1, 0), bitangent = v·1 = (1, 0, 0);
        // then the sign: t.x·s.y − t.y·s.x computed from the original (zero) deltas = 0 → +1.
        assert!(close(m.tangents[0], Vec3::Y), "{:?}", m.tangents[0]);
        assert!(close(m.bitangents[0], Vec3::X), "{:?}", m.bitangents[0]);
        assert!(m.tangents[3].is_nan() && m.bitangents[3].is_nan());
    }

    /// A vertex's frame is its last face's (step 1 reads the faces from the last): a vertex
    /// two triangles share takes the later one's, a vertex of a point taken up by a later
    /// triangle takes the triangle's (and is still left out of smoothing), one of a triangle
    /// and a later point is NaN.
    #[test]
    fn the_last_face_of_a_vertex_gives_its_frame() {
        let z = [0., 0., 1.];
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 2., 0.],
            [-2., 0., 0.],
            [10., 0., 0.],
            [11., 0., 0.],
            [10., 1., 0.],
            [20., 0., 0.],
            [21., 0., 0.],
            [20., 1., 0.],
        ];
        let uvs = [
            [0., 0.],
            [1., 0.],
            [0., 1.],
            [1., 0.],
            [0., 1.],
            [0., 0.],
            [1., 0.],
            [0., 1.],
            [0., 0.],
            [1., 0.],
            [0., 1.],
        ];
        let faces: [&[u32]; 6] = [&[0, 1, 2], &[5], &[0, 3, 4], &[5, 6, 7], &[8, 9, 10], &[8]];
        let mut s = mesh(&pts, &[z; 11], &uvs, &faces);
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // Vertex 0: the second triangle's frame (tangent +y), not the first's (+x).
        assert!(close(m.tangents[0], Vec3::Y), "{:?}", m.tangents[0]);
        assert!(close(m.bitangents[0], -Vec3::X), "{:?}", m.bitangents[0]);
        assert!(close(m.tangents[1], Vec3::X), "{:?}", m.tangents[1]);
        // Vertex 5: a point first, then a triangle.
        assert!(close(m.tangents[5], Vec3::X), "{:?}", m.tangents[5]);
        assert!(close(m.bitangents[5], Vec3::Y), "{:?}", m.bitangents[5]);
        // Vertex 8: a triangle first, then a point.
        assert!(m.tangents[8].is_nan() && m.bitangents[8].is_nan());
        assert!(close(m.tangents[9], Vec3::X), "{:?}", m.tangents[9]);
    }

    #[test]
    fn tangents_of_coincident_vertices_are_smoothed_within_45_degrees() {
        // Two triangles meeting at the origin with the same normal; their tangents differ by
        // ~30° (shared vertex duplicated as in the verbose layout: 0 and 3).
        let z = [0., 0., 1.];
        let ang = 30f32.to_radians();
        let (c, s_) = (ang.cos(), ang.sin());
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [c, s_, 0.],
            [-s_, c, 0.],
        ];
        let uvs = [[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]];
        let mut s = mesh(&pts, &[z; 6], &uvs, &[&[0, 1, 2], &[3, 4, 5]]);
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // Group of vertex 0 = {0 (twice: itself + found), 3}: 2·X + (c, s) normalised.
        let expect = (2.0 * Vec3::X + Vec3::new(c, s_, 0.0)).normalize();
        assert!(
            close(m.tangents[0], expect),
            "{:?} vs {expect:?}",
            m.tangents[0]
        );
        assert_eq!(m.tangents[0], m.tangents[3]);
        // Vertices 1, 2, 4, 5 are alone: unchanged.
        assert!(close(m.tangents[1], Vec3::X));
        assert!(close(m.tangents[4], Vec3::new(c, s_, 0.0)));

        // At 60° apart nothing is merged.
        let ang = 60f32.to_radians();
        let (c, s_) = (ang.cos(), ang.sin());
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [c, s_, 0.],
            [-s_, c, 0.],
        ];
        let mut s = mesh(&pts, &[z; 6], &uvs, &[&[0, 1, 2], &[3, 4, 5]]);
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        assert!(close(m.tangents[0], Vec3::X));
        assert!(close(m.tangents[3], Vec3::new(c, s_, 0.0)));
    }

    #[test]
    fn normals_must_agree_to_be_smoothed() {
        let ang = 2f32.to_radians();
        let n2 = [0., ang.sin(), ang.cos()];
        let z = [0., 0., 1.];
        let pts = [
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
            [0., 0., 0.],
            [1., 0., 0.],
            [0., 1., 0.],
        ];
        let uvs = [[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]];
        let mut s = mesh(
            &pts,
            &[z, z, z, n2, n2, n2],
            &uvs,
            &[&[0, 1, 2], &[3, 4, 5]],
        );
        calc_tangent_space(&mut s).unwrap();
        let m = &s.meshes[0];
        // cos 2° = 0.99939 < 0.9999: vertex 0 and 3 stay apart; 3's bitangent follows its normal.
        assert!(close(m.bitangents[0], Vec3::Y));
        assert!(close(
            m.bitangents[3],
            Vec3::new(0.0, ang.cos(), -ang.sin())
        ));
    }

    #[test]
    fn skipped_without_normals_or_uvs_or_with_tangents() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]],
            &[z, z, z],
            &[[0., 0.]; 3],
            &[&[0, 1, 2]],
        );
        let untouched = s.clone();
        // No UVs.
        s.meshes[0].uv_channels.clear();
        calc_tangent_space(&mut s).unwrap();
        assert!(s.meshes[0].tangents.is_empty());
        // No normals.
        let mut s = untouched.clone();
        s.meshes[0].normals.clear();
        calc_tangent_space(&mut s).unwrap();
        assert!(s.meshes[0].tangents.is_empty());
        // Tangents already there: kept as they are, not recomputed.
        let mut s = untouched;
        let mine = vec![kiln_scene::Vec3::new(0.25, 0.5, 0.75); 3];
        s.meshes[0].tangents = mine.clone();
        s.meshes[0].bitangents = mine.clone();
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.meshes[0].tangents, mine);
        assert_eq!(s.meshes[0].bitangents, mine);
    }

    #[test]
    fn zero_tangent_stays_zero_like_assimp_5_2() {
        // Normal along the UV tangent direction: the projected tangent is zero, stays zero after
        // normalize_safe and after 5.2's Normalize of the group sum.
        let x = [1., 0., 0.];
        let mut s = mesh(
            &[[0., 0., 0.], [1., 0., 0.], [0., 1., 0.]],
            &[x, x, x],
            &[[0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2]],
        );
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.meshes[0].tangents[0], Vec3::ZERO);
        assert!(close(s.meshes[0].bitangents[0], Vec3::Y));
    }

    #[test]
    fn infinite_coordinates_do_not_smooth_and_warn() {
        let z = [0., 0., 1.];
        let mut s = mesh(
            &[
                [0., 0., 0.],
                [1., 0., 0.],
                [0., 1., 0.],
                [f32::INFINITY, 0., 0.],
                [0., 0., 0.],
                [0., 1., 0.],
            ],
            &[z; 6],
            &[[0., 0.], [1., 0.], [0., 1.], [0., 0.], [1., 0.], [0., 1.]],
            &[&[0, 1, 2], &[3, 4, 5]],
        );
        calc_tangent_space(&mut s).unwrap();
        assert_eq!(s.warnings.len(), 1);
        assert_eq!(s.warnings[0].code, crate::codes::TANGENTS_NOT_SMOOTHED);
    }

    /// Step 1 one corner at a time, as it was before the batches (the face's frame and the
    /// rebuild of a bad half shared with them): the reference the batched projection and
    /// normalisation must equal bit for bit.
    fn frames_one_corner_at_a_time(mesh: &Mesh) -> (Vec<Vec3>, Vec<Vec3>, Vec<bool>) {
        let nv = mesh.positions.len();
        let (pos, nor, tex) = (&mesh.positions, &mesh.normals, &mesh.uv_channels[0].coords);
        let mut tang = vec![Vec3::ZERO; nv];
        let mut bitang = vec![Vec3::ZERO; nv];
        let mut done = vec![false; nv];
        for face in mesh.faces() {
            if face.len() < 3 {
                for &i in face {
                    done[i as usize] = true;
                    tang[i as usize] = Vec3::splat(f32::NAN);
                    bitang[i as usize] = Vec3::splat(f32::NAN);
                }
                continue;
            }
            let (tangent, bitangent) = face_frame(pos, tex, face);
            for &pi in face {
                let p = pi as usize;
                let np = nor[p];
                let lt = tangent - np * dot(tangent, np);
                let lb = bitangent - np * dot(bitangent, np) - lt * dot(bitangent, lt);
                (tang[p], bitang[p]) = rebuild_one_bad(np, normalize_safe(lt), normalize_safe(lb));
            }
        }
        (tang, bitang, done)
    }

    /// Equal bits, or NaN both (a NaN's payload may follow another operand order).
    fn same_bits(a: &[Vec3], b: &[Vec3]) -> bool {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.to_array()
                    .iter()
                    .zip(y.to_array())
                    .all(|(p, q)| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()))
            })
    }

    /// Tangents of `mesh` with its shared positions and without: the two must be the same
    /// bits (NaNs aside), and so must the warnings.
    fn check_points_as_vertices(mesh: Mesh) -> Result<(), String> {
        let mut with = Scene::with_root("r");
        with.meshes.push(mesh);
        let mut without = with.clone();
        without.meshes[0].shared_positions = None;
        calc_tangent_space(&mut with).map_err(|e| e.to_string())?;
        calc_tangent_space(&mut without).map_err(|e| e.to_string())?;
        let (a, b) = (&with.meshes[0], &without.meshes[0]);
        if !same_bits(&a.tangents, &b.tangents) || !same_bits(&a.bitangents, &b.bitangents) {
            return Err(format!(
                "tangents {:?} vs {:?}\nbitangents {:?} vs {:?}",
                a.tangents, b.tangents, a.bitangents, b.bitangents
            ));
        }
        if with.warnings != without.warnings {
            return Err(format!("{:?} vs {:?}", with.warnings, without.warnings));
        }
        Ok(())
    }

    /// A mesh whose vertex `v` is at point `of_vertex[v]`, with normals from a few directions
    /// (so some groups agree and some do not) and UVs from `uv`.
    fn mesh_of_points(
        points: &[Vec3],
        of_vertex: &[u32],
        normal: impl Fn(usize) -> Vec3,
        uv: impl Fn(usize) -> Vec3,
        faces: &[Vec<u32>],
    ) -> Mesh {
        let mut m = Mesh {
            positions: of_vertex.iter().map(|&p| points[p as usize]).collect(),
            normals: (0..of_vertex.len()).map(normal).collect(),
            uv_channels: vec![UvChannel {
                components: 2,
                coords: (0..of_vertex.len()).map(uv).collect(),
                name: String::new(),
            }],
            shared_positions: Some(kiln_scene::SharedPositions {
                of_vertex: of_vertex.to_vec(),
                points: points.len() as u32,
            }),
            ..Mesh::default()
        };
        for f in faces {
            m.push_face(f);
        }
        m.update_primitive_types();
        m
    }

    /// A grid of quads over `n × n` points, a vertex per corner (as an importer makes them),
    /// with a point moved by a third of the epsilon beside every 97th, a NaN point, and hard
    /// edges every seventh row: big enough that each of 4 threads smooths a run of its own.
    fn big_grid(n: usize) -> Mesh {
        let mut points: Vec<Vec3> = (0..n * n)
            .map(|i| Vec3::new((i % n) as f32, (i / n) as f32, ((i % 13) as f32).sin()))
            .collect();
        let eps = (2.0f32 * (n as f32 - 1.0).powi(2) + 4.0).sqrt() * 1e-4;
        for i in (0..n * n).step_by(97) {
            points.push(points[i] + Vec3::new(eps / 3.0, 0.0, 0.0));
        }
        points.push(Vec3::NAN);
        let extra = n * n;
        let mut of_vertex = Vec::new();
        let mut faces = Vec::new();
        for y in 0..n - 1 {
            for x in 0..n - 1 {
                let corners = [
                    y * n + x,
                    y * n + x + 1,
                    (y + 1) * n + x + 1,
                    (y + 1) * n + x,
                ];
                let first = of_vertex.len() as u32;
                for (c, &p) in corners.iter().enumerate() {
                    // Some corners take the moved point beside theirs, one the NaN point.
                    let p = if p % 97 == 0 && (x + c) % 2 == 0 {
                        extra + p / 97
                    } else if (x, y, c) == (5, 5, 0) {
                        points.len() - 1
                    } else {
                        p
                    };
                    of_vertex.push(p as u32);
                }
                faces.push((first..first + 4).collect());
            }
        }
        let nv = of_vertex.len();
        let row = |v: usize| v / (4 * (n - 1));
        mesh_of_points(
            &points,
            &of_vertex,
            |v| {
                if row(v) % 7 == 3 {
                    Vec3::new(0.0, 0.6, 0.8)
                } else {
                    Vec3::Z
                }
            },
            |v| {
                let p = points[of_vertex[v % nv] as usize];
                Vec3::new(p.x * 0.1 + (row(v) % 5) as f32 * 0.01, p.y * 0.1, 0.0)
            },
            &faces,
        )
    }

    #[test]
    fn smoothing_by_point_equals_smoothing_by_vertex_on_a_big_grid() {
        // 183 × 183 points: 132k vertices, 4 runs of 33k on 4 threads (points whose corners
        // fall in two runs, near points and the NaN point left for after the runs).
        let mesh = big_grid(183);
        assert!(mesh.positions.len() >= 4 * 32_768);
        #[cfg(feature = "parallel")]
        rayon::ThreadPoolBuilder::new()
            .num_threads(4)
            .build()
            .unwrap()
            .install(|| check_points_as_vertices(mesh.clone()))
            .unwrap();
        check_points_as_vertices(mesh).unwrap();
    }

    #[test]
    fn a_wrong_hint_is_not_used() {
        // Vertices 0 and 3 are said to share a point but lie apart: the vertex grid decides.
        let mut m = mesh_of_points(
            &[Vec3::ZERO, Vec3::X, Vec3::Y],
            &[0, 1, 2, 0, 1, 2],
            |_| Vec3::Z,
            |v| Vec3::new((v % 3) as f32, (v / 3) as f32, 0.0),
            &[vec![0, 1, 2], vec![3, 4, 5]],
        );
        m.positions[3] = Vec3::new(0.5, 0.5, 0.0);
        check_points_as_vertices(m.clone()).unwrap();
        // And -0.0 against 0.0 is not the same bits either.
        m.positions[3] = Vec3::new(-0.0, 0.0, 0.0);
        check_points_as_vertices(m).unwrap();
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Smoothing through the importer's points equals smoothing through a grid of every
        /// vertex: points on a lattice, some moved within the epsilon of another (near
        /// points, smoothed vertex by vertex) or beyond it, NaN and infinite ones; vertices
        /// naming points at random, faces of 1 to 5 corners, normals from a few directions.
        #[test]
        fn smoothing_by_point_equals_smoothing_by_vertex(
            points in proptest::collection::vec(
                (0u8..3, 0u8..3, 0u8..3, proptest::prop_oneof![
                    6 => proptest::prelude::Just(0.0f32),
                    2 => proptest::prelude::Just(1e-5f32),
                    1 => proptest::prelude::Just(0.3f32),
                    1 => proptest::prelude::Just(f32::NAN),
                    1 => proptest::prelude::Just(f32::INFINITY),
                ]),
                1..12,
            ),
            vertices in proptest::collection::vec((0usize..12, 0u8..3, 0u8..4), 1..48),
            faces in proptest::collection::vec(
                proptest::collection::vec(0usize..48, 1..=5),
                1..40,
            ),
        ) {
            // No more points than vertices (the hint's rule).
            let points: Vec<Vec3> = points[..points.len().min(vertices.len())]
                .iter()
                .map(|&(x, y, z, d)| Vec3::new(f32::from(x) + d, f32::from(y), f32::from(z)))
                .collect();
            let of_vertex: Vec<u32> = vertices.iter().map(|v| (v.0 % points.len()) as u32).collect();
            let directions = [Vec3::Z, Vec3::new(0.0, 0.01, 1.0).normalize(), Vec3::X];
            let faces: Vec<Vec<u32>> = faces
                .iter()
                .map(|f| f.iter().map(|&i| (i % vertices.len()) as u32).collect())
                .collect();
            let m = mesh_of_points(
                &points,
                &of_vertex,
                |v| directions[usize::from(vertices[v].1)],
                |v| {
                    let (k, u) = (vertices[v].0 as f32, f32::from(vertices[v].2));
                    Vec3::new(k * 0.25 + u * 0.5, k * 0.5 - u * 0.25, 0.0)
                },
                &faces,
            );
            proptest::prop_assert_eq!(check_points_as_vertices(m), Ok(()));
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(400))]
        /// Batched step 1 equals one corner at a time: faces of 1 to 5 corners sharing
        /// vertices (the last face wins), points and lines between them (a batch is written
        /// before their NaNs), zero, tiny, huge, infinite and NaN components (the fallbacks).
        #[test]
        fn corner_batches_equal_one_corner_at_a_time(
            nv in 1usize..40,
            values in proptest::collection::vec(
                proptest::prop_oneof![
                    6 => -4.0f32..4.0,
                    1 => proptest::prelude::Just(0.0f32),
                    1 => proptest::prelude::Just(1e-30f32),
                    1 => proptest::prelude::Just(3e38f32),
                    1 => proptest::prelude::Just(f32::INFINITY),
                    1 => proptest::prelude::Just(f32::NAN),
                ],
                8 * 40,
            ),
            faces in proptest::collection::vec(
                proptest::collection::vec(0u32..40, 1..=5),
                1..60,
            ),
        ) {
            let at = |k: usize| values[k % values.len()];
            let points: Vec<[f32; 3]> = (0..nv).map(|i| [at(8 * i), at(8 * i + 1), at(8 * i + 2)]).collect();
            let normals: Vec<[f32; 3]> = (0..nv).map(|i| [at(8 * i + 3), at(8 * i + 4), at(8 * i + 5)]).collect();
            let uvs: Vec<[f32; 2]> = (0..nv).map(|i| [at(8 * i + 6), at(8 * i + 7)]).collect();
            let faces: Vec<Vec<u32>> = faces
                .into_iter()
                .map(|f| f.into_iter().map(|i| i % nv as u32).collect())
                .collect();
            let refs: Vec<&[u32]> = faces.iter().map(|f| f.as_slice()).collect();
            let s = mesh(&points, &normals, &uvs, &refs);
            let (t, b, d) = corner_frames(&s.meshes[0]);
            let (rt, rb, rd) = frames_one_corner_at_a_time(&s.meshes[0]);
            proptest::prop_assert!(same_bits(&t, &rt), "tangents {t:?} vs {rt:?}");
            proptest::prop_assert!(same_bits(&b, &rb), "bitangents {b:?} vs {rb:?}");
            proptest::prop_assert_eq!(d, rd);
        }
    }
}
