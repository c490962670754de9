//! An independent evaluation of an animated, skinned scene, as Assimp's documentation describes
//! it, for the animation conformance test: written from `aiNodeAnim`/`aiBone` semantics, not
//! from kiln-anim's code, and in f64.
//!
//! - A node's local transform at time `t` (ticks) is `T · R · S` from its channel's keys, each
//!   component interpolated between the two keys around `t` (linear for position and scale,
//!   spherical along the shorter arc for rotation) and held before the first and after the last
//!   key; a node without a channel keeps its `mTransformation`.
//! - A node's global transform is its parent's global times its local (column vectors).
//! - A skinned vertex is `Σ wᵢ · global(boneᵢ) · offsetᵢ · v / Σ wᵢ` over the bone weights of
//!   the scene it is given (the test passes Assimp's own `LimitBoneWeights` output, so the
//!   four-influence limit is Assimp's); a vertex without weights and every vertex of a mesh
//!   without bones follow the node that holds the mesh: `global(node) · v`.

use glam::{DMat4, DQuat, DVec3};
use kiln_scene::{Animation, Mesh, NodeChannel, Scene};

fn lerp3(a: DVec3, b: DVec3, f: f64) -> DVec3 {
    a * (1.0 - f) + b * f
}

/// Slerp along the shorter arc, from the textbook formula, normalised.
fn slerp(a: DQuat, b: DQuat, f: f64) -> DQuat {
    let (ax, bx) = ([a.x, a.y, a.z, a.w], [b.x, b.y, b.z, b.w]);
    let mut cos: f64 = ax.iter().zip(&bx).map(|(x, y)| x * y).sum();
    let sign = if cos < 0.0 { -1.0 } else { 1.0 };
    cos *= sign;
    let (ka, kb) = if 1.0 - cos < 1e-9 {
        (1.0 - f, f)
    } else {
        let theta = cos.min(1.0).acos();
        (
            ((1.0 - f) * theta).sin() / theta.sin(),
            (f * theta).sin() / theta.sin(),
        )
    };
    let q: Vec<f64> = ax
        .iter()
        .zip(&bx)
        .map(|(x, y)| ka * x + kb * sign * y)
        .collect();
    let n = q.iter().map(|x| x * x).sum::<f64>().sqrt();
    DQuat::from_xyzw(q[0] / n, q[1] / n, q[2] / n, q[3] / n)
}

/// The value of a key list at `t`: the keys around it, interpolated; held outside.
fn at<T: Copy>(keys: &[(f64, T)], t: f64, mix: impl Fn(T, T, f64) -> T) -> Option<T> {
    let first = keys.first()?;
    if t <= first.0 {
        return Some(first.1);
    }
    for w in keys.windows(2) {
        let (a, b) = (w[0], w[1]);
        if t >= a.0 && t < b.0 {
            return Some(mix(a.1, b.1, (t - a.0) / (b.0 - a.0)));
        }
    }
    keys.last().map(|k| k.1)
}

/// Local transform of a node with `channel` at `t`, given its bind-pose local for missing
/// components.
fn channel_local(ch: &NodeChannel, bind: DMat4, t: f64) -> DMat4 {
    let (bs, br, bt) = bind.to_scale_rotation_translation();
    let pos: Vec<(f64, DVec3)> = ch
        .position_keys
        .iter()
        .map(|k| (k.time, k.value.as_dvec3()))
        .collect();
    let scl: Vec<(f64, DVec3)> = ch
        .scaling_keys
        .iter()
        .map(|k| (k.time, k.value.as_dvec3()))
        .collect();
    let rot: Vec<(f64, DQuat)> = ch
        .rotation_keys
        .iter()
        .map(|k| (k.time, k.value.as_dquat().normalize()))
        .collect();
    let p = at(&pos, t, lerp3).unwrap_or(bt);
    let s = at(&scl, t, lerp3).unwrap_or(bs);
    let r = at(&rot, t, slerp).unwrap_or(br);
    DMat4::from_translation(p) * DMat4::from_quat(r) * DMat4::from_scale(s)
}

/// Global transform of every node (by node id) at time `t` (ticks) of `anim` (bind pose when
/// `None`). Each node's chain is walked to the root on its own.
pub fn node_globals(scene: &Scene, anim: Option<&Animation>, t: f64) -> Vec<DMat4> {
    let order = scene.depth_first();
    let first_named = |name: &str| order.iter().copied().find(|&i| scene.nodes[i].name == name);
    let local = |id: usize| -> DMat4 {
        let node = &scene.nodes[id];
        let bind = node.transform.as_dmat4();
        let ch = anim.and_then(|a| {
            // The channel drives the first node (in depth-first order) of its name.
            a.channels
                .iter()
                .find(|c| c.node_name == node.name && first_named(&node.name) == Some(id))
        });
        match ch {
            Some(c) => channel_local(c, bind, t),
            None => bind,
        }
    };
    (0..scene.nodes.len())
        .map(|id| {
            let mut m = DMat4::IDENTITY;
            let mut cur = Some(id);
            while let Some(n) = cur {
                m = local(n) * m;
                cur = scene.nodes[n].parent;
            }
            m
        })
        .collect()
}

/// The first node named `name` in depth-first pre-order.
pub fn first_named(scene: &Scene, name: &str) -> Option<usize> {
    scene
        .depth_first()
        .into_iter()
        .find(|&i| scene.nodes[i].name == name)
}

/// Positions of `mesh` (held by node `node`) given node globals: skinned by its bones' weights
/// and offsets, or rigid.
pub fn mesh_positions(scene: &Scene, globals: &[DMat4], node: usize, mesh: &Mesh) -> Vec<DVec3> {
    let n = mesh.positions.len();
    let mut sum = vec![DVec3::ZERO; n];
    let mut total = vec![0f64; n];
    for bone in &mesh.bones {
        let Some(id) = first_named(scene, &bone.name) else {
            continue;
        };
        let m = globals[id] * bone.offset_matrix.as_dmat4();
        for w in &bone.weights {
            let (v, wt) = (w.vertex as usize, w.weight as f64);
            if v < n && wt > 0.0 {
                sum[v] += m.transform_point3(mesh.positions[v].as_dvec3()) * wt;
                total[v] += wt;
            }
        }
    }
    (0..n)
        .map(|v| {
            if total[v] > 0.0 {
                sum[v] / total[v]
            } else {
                globals[node].transform_point3(mesh.positions[v].as_dvec3())
            }
        })
        .collect()
}

/// The (node, mesh) pairs the `.mesh` has parts for: nodes in depth-first pre-order, each
/// node's meshes in order, those with at least one triangle.
pub fn parts(scene: &Scene) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    for id in scene.depth_first() {
        for &m in &scene.nodes[id].meshes {
            if scene.meshes[m].face_sizes.contains(&3) {
                out.push((id, m));
            }
        }
    }
    out
}
