//! The classic layout's skeleton: the original tool's bone list, one bone per scene node.
//!
//! The classic `.mesh` stores no offset matrices, so the helper bones [`crate::extract()`]
//! adds where one node needs two offsets (`NODE$kiln_rigid`, `NODE$kiln_skinN`) mean nothing
//! to a runtime reading it, and the original tool never wrote them: [`classic_model`] leaves
//! them out, binding their vertices to the node's own bone (which is what the original tool
//! did), and [`classic_clip`] leaves out their tracks. What is lost is what the classic file
//! cannot express anyway: a skin bound in another pose than the stored one, or a rigid part on
//! a bone a skin gives an offset, can only be drawn exactly from the kiln layout
//! (`docs/animation.md`, "What a runtime reading classic files must assume").

use alloc::vec::Vec;

use kiln_format::{Clip, Model, Vertex};

use crate::extract::{HELPER_RIGID, HELPER_SKIN};

/// Whether bone `i` is a helper bone: named after its parent (an earlier bone) with
/// [`HELPER_RIGID`] or [`HELPER_SKIN`] and a number.
pub fn is_helper_bone(model: &Model, i: usize) -> bool {
    let Some(bone) = model.bones.get(i) else {
        return false;
    };
    // A helper comes after its parent (a model read from a file may break that: then the
    // bone is taken as a node's).
    let Some(parent) = usize::try_from(bone.parent)
        .ok()
        .filter(|&p| p < i)
        .and_then(|p| model.bones.get(p))
    else {
        return false;
    };
    let Some(rest) = bone.name.strip_prefix(parent.name.as_str()) else {
        return false;
    };
    rest == HELPER_RIGID
        || rest
            .strip_prefix(HELPER_SKIN)
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Which bones are helpers, when any is.
fn helper_flags(model: &Model) -> Option<Vec<bool>> {
    let helper: Vec<bool> = (0..model.bones.len())
        .map(|i| is_helper_bone(model, i))
        .collect();
    helper.contains(&true).then_some(helper)
}

/// For each bone, its index in the classic bone list (a helper: its node's), when the model
/// has helper bones: what [`classic_model`] renumbers by, for a writer that builds the
/// vertices itself ([`classic_vertex`]).
pub fn classic_bone_map(model: &Model) -> Option<Vec<usize>> {
    let helper = helper_flags(model)?;
    let mut map = Vec::with_capacity(model.bones.len());
    let mut next = 0usize;
    for (i, &h) in helper.iter().enumerate() {
        if h {
            // Parents come before children: the parent's index is settled.
            let parent = model.bones[i].parent as usize;
            map.push(map[parent]);
        } else {
            map.push(next);
            next += 1;
        }
    }
    Some(map)
}

/// `model` without its helper bones, vertices bound to them bound to their nodes' bones
/// (weights of one vertex on a bone and its helper added up); `None` when it has none, the
/// count of helper bones left out otherwise.
pub fn classic_model(model: &Model) -> Option<(Model, usize)> {
    let map = classic_bone_map(model)?;
    let mut out = Model {
        bones: Vec::new(),
        meshes: model.meshes.clone(),
    };
    for (i, b) in model.bones.iter().enumerate() {
        if map[i] != out.bones.len() {
            continue;
        }
        let mut b = b.clone();
        b.index = map[i] as i32;
        b.parent = usize::try_from(b.parent).map_or(-1, |p| map[p] as i32);
        out.bones.push(b);
    }
    for part in &mut out.meshes {
        part.bone_index = usize::try_from(part.bone_index).map_or(part.bone_index, |b| {
            map.get(b).map_or(part.bone_index, |&m| m as i32)
        });
        for v in &mut part.vertices {
            classic_vertex(v, &map);
        }
    }
    let left_out = model.bones.len() - out.bones.len();
    Some((out, left_out))
}

/// A vertex of the model with its bones renumbered by `map` ([`classic_bone_map`]): the
/// weights of bones that map to the same classic bone summed, the four kept by weight, then
/// the lower index, as extraction orders them (what [`classic_model`] does to every vertex).
pub fn classic_vertex(v: &mut Vertex, map: &[usize]) {
    let remap = |i: f32| -> usize { map.get(i as usize).copied().unwrap_or(0) };
    let mut slots: [(usize, f32); 4] = [(0, 0.0); 4];
    let mut len = 0;
    for (&i, &w) in v.blend_indices.iter().zip(&v.blend_weights) {
        if w <= 0.0 {
            continue;
        }
        let j = remap(i);
        match slots[..len].iter_mut().find(|s| s.0 == j) {
            Some(s) => s.1 += w,
            None => {
                slots[len] = (j, w);
                len += 1;
            }
        }
    }
    let slots = &mut slots[..len];
    slots.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    let mut indices = [0f32; 4];
    let mut weights = [0f32; 4];
    for (k, &(j, w)) in slots.iter().enumerate() {
        indices[k] = j as f32;
        weights[k] = w;
    }
    v.blend_indices = indices;
    v.blend_weights = weights;
}

/// `clip` for the classic bone list of `model` (its helper bones' tracks, which follow the
/// bones one for one, left out); `None` when the model has no helper bones.
pub fn classic_clip(clip: &Clip, model: &Model) -> Option<Clip> {
    let helper = helper_flags(model)?;
    Some(Clip {
        tracks: clip
            .tracks
            .iter()
            .enumerate()
            .filter(|(i, _)| !helper.get(*i).copied().unwrap_or(false))
            .map(|(_, t)| t.clone())
            .collect(),
        ..clip.clone()
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::{String, ToString};
    use alloc::vec;
    use kiln_format::{Bone, Keyframe, MeshPart, Track, Vertex};

    fn bone(index: i32, parent: i32, name: &str) -> Bone {
        Bone {
            index,
            parent,
            name: name.to_string(),
            transform: [0.0; 16],
        }
    }

    fn vertex(indices: [f32; 4], weights: [f32; 4]) -> Vertex {
        Vertex {
            blend_indices: indices,
            blend_weights: weights,
            ..Vertex::default()
        }
    }

    fn model() -> Model {
        Model {
            bones: vec![
                bone(0, -1, "root"),
                bone(1, 0, "arm"),
                bone(2, 1, "hand"),
                bone(3, 2, "hand$kiln_rigid"),
                bone(4, 1, "arm$kiln_skin1"),
            ],
            meshes: vec![MeshPart {
                name: "prop".into(),
                vertices: vec![
                    vertex([3.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
                    vertex([4.0, 2.0, 1.0, 0.0], [0.5, 0.3, 0.2, 0.0]),
                    vertex([1.0, 4.0, 2.0, 0.0], [0.4, 0.35, 0.25, 0.0]),
                ],
                indices: vec![0, 1, 2],
                bone_index: 3,
                material_name: String::new(),
                morph_targets: Vec::new(),
            }],
        }
    }

    #[test]
    fn the_scene_and_the_format_agree_on_name_bytes() {
        // kiln-format mirrors kiln_scene::names (it does not depend on the scene crate).
        assert_eq!(kiln_format::names::BYTE_BASE, kiln_scene::names::BYTE_BASE);
        for b in 0..=255u8 {
            let raw = [b'a', b, b'z'];
            let scene = kiln_scene::names::from_bytes(&raw);
            assert_eq!(kiln_format::names::from_bytes(&raw).as_deref(), Ok(&*scene));
            assert_eq!(&*kiln_format::names::to_bytes(&scene), &raw);
        }
    }

    #[test]
    fn helpers_are_told_by_name_and_parent() {
        let m = model();
        let helpers: Vec<bool> = (0..5).map(|i| is_helper_bone(&m, i)).collect();
        assert_eq!(helpers, [false, false, false, true, true]);
        let mut odd = model();
        odd.bones[4].name = "arm$kiln_skin".into();
        assert!(!is_helper_bone(&odd, 4), "no number: a node's own name");
        odd.bones[4].name = "leg$kiln_skin1".into();
        assert!(!is_helper_bone(&odd, 4), "not named after its parent");
        let mut late = model();
        late.bones[1].parent = 3;
        late.bones[1].name = "hand$kiln_rigid$kiln_rigid".into();
        assert!(!is_helper_bone(&late, 1), "a parent after the bone");
        assert!(classic_model(&late).is_some(), "no panic");
        let plain = Model {
            bones: vec![bone(0, -1, "root")],
            meshes: Vec::new(),
        };
        assert_eq!(classic_model(&plain), None);
    }

    #[test]
    fn helper_vertices_bind_to_their_nodes_bones() {
        let (c, left_out) = classic_model(&model()).unwrap();
        assert_eq!(left_out, 2);
        let names: Vec<&str> = c.bones.iter().map(|b| b.name.as_str()).collect();
        assert_eq!(names, ["root", "arm", "hand"]);
        assert_eq!(c.meshes[0].bone_index, 2);
        let v = &c.meshes[0].vertices;
        assert_eq!(v[0].blend_indices, [2.0, 0.0, 0.0, 0.0]);
        assert_eq!(v[0].blend_weights, [1.0, 0.0, 0.0, 0.0]);
        // arm$kiln_skin1 (0.5) becomes arm, beside hand (0.3) and arm (0.2): arm gets 0.7.
        assert_eq!(v[1].blend_indices, [1.0, 2.0, 0.0, 0.0]);
        assert!((v[1].blend_weights[0] - 0.7).abs() < 1e-6);
        assert_eq!(v[1].blend_weights[1], 0.3);
        // arm 0.4 and arm$kiln_skin1 0.35 merge into arm 0.75, ahead of hand 0.25.
        assert_eq!(v[2].blend_indices, [1.0, 2.0, 0.0, 0.0]);
        assert!((v[2].blend_weights[0] - 0.75).abs() < 1e-6);
    }

    #[test]
    fn helper_tracks_are_left_out() {
        let track = |n: &str| Track {
            bone_name: n.into(),
            keyframes: vec![Keyframe::default()],
        };
        let m = model();
        let clip = Clip {
            name: "walk".into(),
            duration: 0.0,
            frame_rate: 30.0,
            frame_count: 1,
            tracks: m.bones.iter().map(|b| track(&b.name)).collect(),
            weight_tracks: Vec::new(),
        };
        let c = classic_clip(&clip, &m).unwrap();
        let names: Vec<&str> = c.tracks.iter().map(|t| t.bone_name.as_str()).collect();
        assert_eq!(names, ["root", "arm", "hand"]);
        assert_eq!(c.frame_count, 1);
    }
}
