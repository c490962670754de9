//! Generated skinned and animated models the tests have never seen, as COLLADA 1.4.1 text that
//! Assimp reads: a random joint tree (seeded), a skinned strip with up to `max_influences`
//! bone weights per vertex (some vertices with none), its node placed away from the origin (so
//! Assimp's offset matrices differ from the joints' inverse bind transforms), several clips with
//! key times that fall between frames and with scale keys, optionally a rigid mesh hanging from a
//! skinned joint and a second skin of the same joints on another node.
#![allow(dead_code)]

use std::fmt::Write as _;

use glam::{DMat4, DQuat, DVec3};

/// What to generate.
#[derive(Clone, Copy, Debug)]
pub struct Fixture {
    pub name: &'static str,
    pub seed: u64,
    pub joints: usize,
    pub clips: usize,
    /// Most bone weights per vertex (distinct weights, no ties at the cut).
    pub max_influences: usize,
    /// A rigid mesh instanced inside joint 2 (whose bone the skin also uses).
    pub rigid_on_joint: bool,
    /// A second skin of the same joints, on a node placed elsewhere.
    pub second_skin: bool,
    /// Inverse bind matrices that are not exactly the joints' bind pose (as FBX files whose
    /// bind pose differs from the nodes' default transforms have).
    pub perturb_bind: bool,
}

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    /// Uniform in [a, b).
    fn range(&mut self, a: f64, b: f64) -> f64 {
        a + (b - a) * ((self.next() >> 11) as f64 / (1u64 << 53) as f64)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn axis(&mut self) -> DVec3 {
        DVec3::new(
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
            self.range(-1.0, 1.0),
        )
        .try_normalize()
        .unwrap_or(DVec3::Y)
    }
}

/// COLLADA writes matrices row by row (column-vector convention).
fn mat(m: &DMat4) -> String {
    m.transpose()
        .to_cols_array()
        .iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn floats(v: &[f64]) -> String {
    v.iter()
        .map(|x| format!("{x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

fn source(id: &str, values: &[f64], stride: usize, params: &[(&str, &str)]) -> String {
    let count = values.len() / stride;
    let mut p = String::new();
    for (name, ty) in params {
        let _ = write!(p, r#"<param name="{name}" type="{ty}"/>"#);
    }
    format!(
        r##"<source id="{id}"><float_array id="{id}-a" count="{}">{}</float_array><technique_common><accessor source="#{id}-a" count="{count}" stride="{stride}">{p}</accessor></technique_common></source>"##,
        values.len(),
        floats(values)
    )
}

/// The COLLADA document of `f`.
pub fn collada(f: &Fixture) -> String {
    let mut rng = Rng(f.seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let n = f.joints.max(3);
    // Joint tree: parents among the previous three joints.
    let mut parent = vec![usize::MAX; n];
    let mut local = vec![DMat4::IDENTITY; n];
    for j in 0..n {
        if j > 0 {
            parent[j] = j - 1 - rng.below(j.min(3));
        }
        let t = DVec3::new(
            rng.range(-0.3, 0.3),
            if j == 0 { 0.0 } else { rng.range(0.4, 0.8) },
            rng.range(-0.2, 0.2),
        );
        let r = DQuat::from_axis_angle(rng.axis(), rng.range(-0.4, 0.4));
        local[j] = DMat4::from_rotation_translation(r, t);
    }
    let armature =
        DMat4::from_rotation_translation(DQuat::from_rotation_y(0.4), DVec3::new(0.5, 0.0, -0.25));
    let mut global = vec![DMat4::IDENTITY; n];
    for j in 0..n {
        global[j] = if j == 0 { armature } else { global[parent[j]] } * local[j];
    }
    let body = DMat4::from_scale_rotation_translation(
        DVec3::splat(2.0),
        DQuat::from_rotation_z(0.3),
        DVec3::new(1.0, 0.2, 2.0),
    );
    let body2 =
        DMat4::from_rotation_translation(DQuat::from_rotation_x(-0.5), DVec3::new(-1.5, 0.0, 0.5));

    // Skin geometry: a strip of quads climbing the skeleton (in the body node's space).
    let rows = 2 * n;
    let mut positions = Vec::new();
    for i in 0..rows {
        for side in [-1.0, 1.0] {
            positions.extend_from_slice(&[
                0.15 * side + rng.range(-0.02, 0.02),
                0.25 * i as f64,
                rng.range(-0.05, 0.05),
            ]);
        }
    }
    let nv = positions.len() / 3;
    let mut tris = Vec::new();
    for i in 0..rows - 1 {
        let (a, b, c, d) = (2 * i, 2 * i + 1, 2 * i + 2, 2 * i + 3);
        tris.extend_from_slice(&[a, b, c, b, d, c]);
    }
    let tri_text = tris
        .iter()
        .map(|i| i.to_string())
        .collect::<Vec<_>>()
        .join(" ");

    // Weights: 0 (every seventh vertex) to max_influences distinct joints, distinct weights.
    let mut weights = Vec::new();
    let mut vcount = Vec::new();
    let mut v = Vec::new();
    for i in 0..nv {
        let k = if i % 7 == 3 {
            0
        } else {
            1 + rng.below(f.max_influences.max(1))
        };
        let mut joints: Vec<usize> = Vec::new();
        while joints.len() < k.min(n) {
            let j = rng.below(n);
            if !joints.contains(&j) {
                joints.push(j);
            }
        }
        vcount.push(joints.len());
        for (slot, j) in joints.iter().enumerate() {
            v.push(*j);
            v.push(weights.len());
            weights.push(rng.range(0.05, 1.0) + 0.001 * slot as f64);
        }
    }
    let joint_names: Vec<String> = (0..n).map(|j| format!("j{j}")).collect();
    let inv_bind: Vec<f64> = (0..n)
        .flat_map(|j| {
            let mut g = global[j];
            if f.perturb_bind && j % 3 == 1 {
                g *= DMat4::from_translation(DVec3::new(0.05, -0.03, 0.02));
            }
            g.inverse().transpose().to_cols_array()
        })
        .collect();

    let controller = |id: &str, shape: &DMat4| -> String {
        format!(
            r##"<controller id="{id}" name="{id}"><skin source="#strip"><bind_shape_matrix>{shape}</bind_shape_matrix><source id="{id}-joints"><Name_array id="{id}-joints-a" count="{n}">{names}</Name_array><technique_common><accessor source="#{id}-joints-a" count="{n}" stride="1"><param name="JOINT" type="name"/></accessor></technique_common></source>{bind}{w}<joints><input semantic="JOINT" source="#{id}-joints"/><input semantic="INV_BIND_MATRIX" source="#{id}-bind"/></joints><vertex_weights count="{nv}"><input semantic="JOINT" source="#{id}-joints" offset="0"/><input semantic="WEIGHT" source="#{id}-w" offset="1"/><vcount>{vc}</vcount><v>{vv}</v></vertex_weights></skin></controller>"##,
            shape = mat(shape),
            names = joint_names.join(" "),
            bind = source(
                &format!("{id}-bind"),
                &inv_bind,
                16,
                &[("TRANSFORM", "float4x4")]
            ),
            w = source(&format!("{id}-w"), &weights, 1, &[("WEIGHT", "float")]),
            vc = vcount
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" "),
            vv = v
                .iter()
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
                .join(" "),
        )
    };

    // Clips: each a random subset of joints (and the armature), keys at non-integer
    // milliseconds, the odd clips with non-uniform scale.
    let mut animations = String::new();
    let mut clips = String::new();
    let targets: Vec<(String, DMat4)> = std::iter::once(("Armature".to_string(), armature))
        .chain((0..n).map(|j| (format!("j{j}"), local[j])))
        .collect();
    for c in 0..f.clips {
        let duration = 0.3 + 0.2 * c as f64 + rng.range(0.0, 0.15);
        let mut members = Vec::new();
        for (t, (target, bind)) in targets.iter().enumerate() {
            if rng.range(0.0, 1.0) > 0.75 {
                continue;
            }
            let keys = 2 + rng.below(4);
            let mut times: Vec<f64> = (0..keys)
                .map(|k| match k {
                    0 => 0.0,
                    k if k == keys - 1 => duration,
                    _ => rng.range(0.0, duration),
                })
                .collect();
            times.sort_by(f64::total_cmp);
            let mut mats = Vec::new();
            for _ in &times {
                let scale = if c % 2 == 1 {
                    DVec3::new(
                        rng.range(0.8, 1.25),
                        rng.range(0.8, 1.25),
                        rng.range(0.8, 1.25),
                    )
                } else {
                    DVec3::ONE
                };
                let delta = DMat4::from_scale_rotation_translation(
                    scale,
                    DQuat::from_axis_angle(rng.axis(), rng.range(-0.8, 0.8)),
                    DVec3::new(
                        rng.range(-0.2, 0.2),
                        rng.range(-0.2, 0.2),
                        rng.range(-0.2, 0.2),
                    ),
                );
                mats.extend((*bind * delta).transpose().to_cols_array());
            }
            let id = format!("c{c}t{t}");
            let interp = vec!["LINEAR"; times.len()].join(" ");
            let _ = write!(
                animations,
                r##"<animation id="{id}">{inp}{out}<source id="{id}-i"><Name_array id="{id}-i-a" count="{k}">{interp}</Name_array><technique_common><accessor source="#{id}-i-a" count="{k}" stride="1"><param name="INTERPOLATION" type="name"/></accessor></technique_common></source><sampler id="{id}-s"><input semantic="INPUT" source="#{id}-in"/><input semantic="OUTPUT" source="#{id}-out"/><input semantic="INTERPOLATION" source="#{id}-i"/></sampler><channel source="#{id}-s" target="{target}/transform"/></animation>"##,
                inp = source(&format!("{id}-in"), &times, 1, &[("TIME", "float")]),
                out = source(
                    &format!("{id}-out"),
                    &mats,
                    16,
                    &[("TRANSFORM", "float4x4")]
                ),
                k = times.len(),
            );
            members.push(id);
        }
        let _ = write!(
            clips,
            r#"<animation_clip id="clip{c}" name="clip{c}" start="0" end="{duration}">{}</animation_clip>"#,
            members
                .iter()
                .map(|m| format!(r##"<instance_animation url="#{m}"/>"##))
                .collect::<String>()
        );
    }

    // The joint tree as nested nodes; the rigid mesh inside joint 2.
    fn node(j: usize, parent: &[usize], local: &[DMat4], rigid_in: Option<usize>) -> String {
        let children: String = (0..parent.len())
            .filter(|&k| parent[k] == j)
            .map(|k| node(k, parent, local, rigid_in))
            .collect();
        let rigid = if rigid_in == Some(j) {
            r##"<instance_geometry url="#prop"/>"##
        } else {
            ""
        };
        format!(
            r#"<node id="j{j}" name="j{j}" sid="j{j}" type="JOINT"><matrix sid="transform">{}</matrix>{rigid}{children}</node>"#,
            mat(&local[j])
        )
    }
    let tree = node(0, &parent, &local, f.rigid_on_joint.then_some(2));

    let strip_geometry = format!(
        r##"<geometry id="strip" name="strip"><mesh>{pos}<vertices id="strip-v"><input semantic="POSITION" source="#strip-p"/></vertices><triangles count="{t}"><input semantic="VERTEX" source="#strip-v" offset="0"/><p>{tri_text}</p></triangles></mesh></geometry>"##,
        pos = source(
            "strip-p",
            &positions,
            3,
            &[("X", "float"), ("Y", "float"), ("Z", "float")]
        ),
        t = tris.len() / 3,
    );
    // The rigid prop: a small tetrahedron.
    let prop = [0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.2, 0.0, 0.0, 0.0, 0.2];
    let prop_geometry = format!(
        r##"<geometry id="prop" name="prop"><mesh>{pos}<vertices id="prop-v"><input semantic="POSITION" source="#prop-p"/></vertices><triangles count="4"><input semantic="VERTEX" source="#prop-v" offset="0"/><p>0 2 1 0 1 3 0 3 2 1 2 3</p></triangles></mesh></geometry>"##,
        pos = source(
            "prop-p",
            &prop,
            3,
            &[("X", "float"), ("Y", "float"), ("Z", "float")]
        ),
    );
    let mut controllers = controller("skin", &body);
    let mut body_nodes = format!(
        r##"<node id="body" name="body" type="NODE"><matrix sid="transform">{}</matrix><instance_controller url="#skin"><skeleton>#j0</skeleton></instance_controller></node>"##,
        mat(&body)
    );
    if f.second_skin {
        controllers += &controller("skin2", &body2);
        let _ = write!(
            body_nodes,
            r##"<node id="body2" name="body2" type="NODE"><matrix sid="transform">{}</matrix><instance_controller url="#skin2"><skeleton>#j0</skeleton></instance_controller></node>"##,
            mat(&body2)
        );
    }
    format!(
        r##"<?xml version="1.0" encoding="utf-8"?>
<COLLADA xmlns="http://www.collada.org/2005/11/COLLADASchema" version="1.4.1">
<asset><unit name="meter" meter="1"/><up_axis>Y_UP</up_axis></asset>
<library_geometries>{strip_geometry}{prop_geometry}</library_geometries>
<library_controllers>{controllers}</library_controllers>
<library_animations>{animations}</library_animations>
<library_animation_clips>{clips}</library_animation_clips>
<library_visual_scenes><visual_scene id="scene" name="scene">
<node id="Armature" name="Armature" type="NODE"><matrix sid="transform">{arm}</matrix>{tree}<node id="marker" name="marker" type="NODE"><matrix sid="transform">{marker}</matrix></node></node>
{body_nodes}
</visual_scene></library_visual_scenes>
<scene><instance_visual_scene url="#scene"/></scene>
</COLLADA>
"##,
        arm = mat(&armature),
        marker = mat(&DMat4::from_translation(DVec3::new(0.0, -0.5, 0.0))),
    )
}
