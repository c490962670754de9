//! Up-front checks: every step that indexes vertex arrays runs them on the whole scene before it
//! changes anything, so a malformed scene is reported and left untouched instead of panicking.

use crate::ProcessError;
use kiln_scene::{MAX_COLOR_CHANNELS, MAX_UV_CHANNELS, Mesh, Scene};

/// Checks what the vertex-indexing steps rely on, for one mesh.
pub(crate) fn check_mesh(index: usize, m: &Mesh) -> Result<(), ProcessError> {
    let bad = |reason: String| {
        Err(ProcessError::MalformedMesh {
            mesh: index,
            reason,
        })
    };
    let nv = m.positions.len();
    if nv > u32::MAX as usize {
        return bad(format!("{nv} vertices do not fit 32-bit indices"));
    }
    for (what, len) in [
        ("normals", m.normals.len()),
        ("tangents", m.tangents.len()),
        ("bitangents", m.bitangents.len()),
    ] {
        if len != 0 && len != nv {
            return bad(format!("{len} {what} for {nv} vertices"));
        }
    }
    if m.tangents.len() != m.bitangents.len() {
        return bad("tangents without bitangents (or the reverse)".into());
    }
    if m.uv_channels.len() > MAX_UV_CHANNELS {
        return bad(format!(
            "{} UV channels (at most {MAX_UV_CHANNELS})",
            m.uv_channels.len()
        ));
    }
    if m.color_channels.len() > MAX_COLOR_CHANNELS {
        return bad(format!(
            "{} colour channels (at most {MAX_COLOR_CHANNELS})",
            m.color_channels.len()
        ));
    }
    for (c, uv) in m.uv_channels.iter().enumerate() {
        if uv.coords.len() != nv {
            return bad(format!(
                "UV channel {c} has {} coords for {nv} vertices",
                uv.coords.len()
            ));
        }
    }
    for (c, col) in m.color_channels.iter().enumerate() {
        if col.len() != nv {
            return bad(format!(
                "colour channel {c} has {} colours for {nv} vertices",
                col.len()
            ));
        }
    }
    let total: u64 = m.face_sizes.iter().map(|&s| u64::from(s)).sum();
    if total != m.indices.len() as u64 {
        return bad(format!(
            "face sizes sum to {total} but there are {} indices",
            m.indices.len()
        ));
    }
    if let Some(i) = m.indices.iter().position(|&x| x as usize >= nv) {
        return bad(format!(
            "index {} (at {i}) past {nv} vertices",
            m.indices[i]
        ));
    }
    Ok(())
}

pub(crate) fn check_meshes(scene: &Scene) -> Result<(), ProcessError> {
    for (i, m) in scene.meshes.iter().enumerate() {
        check_mesh(i, m)?;
    }
    Ok(())
}

/// Depth-first pre-order of the node tree from the root, children in order, iteratively (no
/// recursion depth to exhaust). Fails on a child index out of range, on a node reached twice
/// (cycles, shared children) and on mesh references out of range.
pub(crate) fn node_order(scene: &Scene) -> Result<Vec<usize>, ProcessError> {
    let bad = |reason: String| Err(ProcessError::MalformedNodes { reason });
    if scene.nodes.is_empty() {
        return bad("no root node".into());
    }
    let mut seen = vec![false; scene.nodes.len()];
    let mut order = Vec::with_capacity(scene.nodes.len());
    let mut stack = vec![0usize];
    while let Some(id) = stack.pop() {
        if seen[id] {
            return bad(format!(
                "node {id} is reached twice (cycle or shared child)"
            ));
        }
        seen[id] = true;
        order.push(id);
        let node = &scene.nodes[id];
        if let Some(&m) = node.meshes.iter().find(|&&m| m >= scene.meshes.len()) {
            return bad(format!(
                "node {id} references mesh {m} of {}",
                scene.meshes.len()
            ));
        }
        for &c in node.children.iter().rev() {
            if c >= scene.nodes.len() {
                return bad(format!("node {id} has child {c} of {}", scene.nodes.len()));
            }
            stack.push(c);
        }
    }
    Ok(order)
}
