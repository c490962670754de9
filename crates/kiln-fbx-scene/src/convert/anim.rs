//! Animation: `AnimationStack` → `AnimationLayer` → `AnimationCurveNode` (`Lcl Translation`,
//! `Lcl Rotation`, `Lcl Scaling`; curves on `d|X`, `d|Y`, `d|Z`) → `AnimationCurve`
//! (`KeyTime` in 1/46186158000 s, `KeyValueFloat`), converted as Assimp 5.2 does:
//! - ticks per second = the `TimeMode` frame rate (`CustomFrameRate` for custom, and 1 when
//!   the mode is the default 0); key times = seconds × that rate;
//! - the key times of a node's curves are merged and each component is lerped at them (the
//!   curves' own interpolation and tangents are not evaluated); a missing component takes the
//!   node's static value;
//! - rotation keys: Euler (degrees, the node's `RotationOrder`) → quaternion, keys inserted
//!   where a curve jumps 180° or more, the sign kept on the shortest path, `PreRotation` and
//!   `PostRotation` multiplied in, then translation·rotation·scaling decomposed again;
//! - nodes with pivots or offsets get one channel per animated component, on the
//!   `name_$AssimpFbx$_Translation`/`Rotation`/`Scaling` helper nodes;
//! - time range: the stack's `LocalStart`/`LocalStop` (keys outside, less 10000 ticks of
//!   slack, dropped), else the first and last key; keys are shifted so the clip starts at 0,
//!   and the duration is stop − start.
//!
//! Channels are ordered by node name (Assimp keeps them in a `std::map`).

use std::collections::BTreeMap;
use std::rc::Rc;
use std::sync::Arc;

use kiln_scene::assimp_math::{M4, Q, RotOrder, euler_to_quat, rotation_matrix, sq_len};
use kiln_scene::{Animation, NodeChannel, QuatKey, Vec3, VectorKey, Warning, WeightKey};

use super::curve;
use super::morph::PendingMorphCurve;
use super::settings::{frame_rate, time_mode};
use super::transform::{Comp, chain_node_name};
use super::{Converter, Model};
use crate::codes;
use crate::graph::{KTIME_PER_SECOND, strip_prefix};
use crate::par;

/// The most keys one rotation curve may gain from the 180° splitting (a guard against the
/// runaway Assimp's algorithm shows on large negative jumps).
const MAX_INSERTED_KEYS: usize = 100_000;

/// How far before the next key (in ticks, frames) a constant segment's step is put.
const STEP_TICKS: f64 = 1e-3;

/// The most frames one cubic segment of a weight curve is sampled at.
const MAX_SEGMENT_SAMPLES: usize = 1 << 16;

/// `KeyAttrDataFloat` as f32 words. Binary files hold f32s whose bits matter (the packed
/// weights); ASCII files from 7.2 on write each word's bits as an integer, older ones floats.
fn attribute_words(node: &kiln_fbx::Node<'_, '_>) -> Result<Vec<f32>, String> {
    let integers = match node.value(0) {
        Some(kiln_fbx::Value::Array(a)) => {
            matches!(a.ty(), kiln_fbx::ArrayType::I32 | kiln_fbx::ArrayType::I64)
        }
        Some(kiln_fbx::Value::I32(_) | kiln_fbx::Value::I64(_)) => true,
        _ => false,
    };
    if integers {
        let words = node.i64_values().map_err(|e| e.to_string())?;
        return Ok(words.iter().map(|&w| f32::from_bits(w as u32)).collect());
    }
    Ok(node.f32_values().map_err(|e| e.to_string())?.into_owned())
}

fn convert_time(t: i64, fps: f64) -> f64 {
    t as f64 / KTIME_PER_SECOND * fps
}

/// One animation curve.
pub(super) struct Curve {
    /// The `AnimationCurve` object it was read from (`None` for a 6.x take's key list).
    pub(super) object: Option<u64>,
    /// Shared with the other curves of the file that have the same `KeyTime` stream.
    pub(super) times: Arc<[i64]>,
    pub(super) values: Vec<f32>,
}

/// A curve node: its target property and its curves by channel name (`d|X`...), sorted.
pub(super) struct CurveNode {
    pub(super) property: String,
    pub(super) curves: BTreeMap<String, Arc<Curve>>,
}

/// The blend shape weight curves of a stack: the time range of those on channels of a used
/// geometry (`None` when no curve has keys; Assimp's rule for keeping a stack), and every
/// `DeformPercent` curve with its channel.
#[derive(Default)]
pub(super) struct MorphKeys {
    /// A curve drives a channel of a used geometry (Assimp keeps the stack).
    keeps: bool,
    range: Option<(i64, i64)>,
    curves: Vec<(u64, Arc<Curve>)>,
}

impl MorphKeys {
    /// The weight curves of a 6.x take, by channel id: kept as a stack that moves weights is
    /// (Assimp reads no 6.x takes, so its rule has nothing to say), over their keys' range.
    pub(super) fn of_take(curves: Vec<(u64, Arc<Curve>)>) -> Option<MorphKeys> {
        if curves.is_empty() {
            return None;
        }
        let range = curve_time_range(curves.iter().map(|(_, c)| &**c));
        Some(MorphKeys {
            keeps: true,
            range,
            curves,
        })
    }
}

/// The curve nodes of one stack by target node name (sorted), each with its model id, in
/// layer and connection order.
pub(super) type NodeMap = BTreeMap<String, Vec<(u64, CurveNode)>>;

/// Keys of one component: times, values, component index 0..3.
struct KeyList {
    times: Vec<i64>,
    values: Vec<f32>,
    mapto: usize,
}

struct Ctx {
    fps: f64,
    min_time: f64,
    max_time: f64,
}

impl<'d, 'a> Converter<'_, 'd, 'a> {
    /// `ConvertAnimations`: one [`Animation`] per stack that animates something; records which
    /// chain components the animations target ([`Converter::anim_chain_bits`]).
    pub(super) fn convert_animations(&mut self) {
        let g = self.g;
        let (mode, custom) = time_mode(g);
        let fps = frame_rate(mode, custom);
        let mut curve_cache: BTreeMap<u64, Option<Arc<Curve>>> = BTreeMap::new();
        for &sid in &g.animation_stacks.clone() {
            let Some(stack) = g.object(sid).copied() else {
                continue;
            };
            let layers: Vec<u64> = g
                .sources_of(sid, "AnimationLayer")
                .filter(|(c, _)| c.property.is_empty())
                .map(|(c, _)| c.src)
                .collect();
            if layers.is_empty() {
                continue;
            }
            let full = stack.name(g.legacy);
            let name = if let Some(n) = full.strip_prefix("AnimationStack::") {
                n.to_string()
            } else {
                strip_prefix(&full, "AnimStack::").to_string()
            };
            // Curve nodes per target node name (sorted), in layer and connection order.
            let mut node_map = NodeMap::new();
            // Blend shape weights the stack animates (Assimp keeps such a stack as an
            // animation even when no node moves).
            let mut morph: Option<MorphKeys> = None;
            for &lid in &layers {
                let cns: Vec<u64> = g
                    .sources_of(lid, "AnimationCurveNode")
                    .filter(|(c, _)| c.property.is_empty())
                    .map(|(c, _)| c.src)
                    .collect();
                for cn in cns {
                    // Target: the first property link to a Model, NodeAttribute or Deformer.
                    let target = g.outgoing(cn).find(|c| {
                        !c.property.is_empty()
                            && g.object(c.dst).is_some_and(|o| {
                                matches!(o.element, "Model" | "NodeAttribute" | "Deformer")
                            })
                    });
                    let Some(target) = target.cloned() else {
                        let d = g.object(cn).map(|o| self.describe(o)).unwrap_or_default();
                        // A property of something else (Blender links its shape keys' curve
                        // nodes to the geometry's custom properties too): say what.
                        let other = g
                            .outgoing(cn)
                            .filter(|c| !c.property.is_empty())
                            .find_map(|c| {
                                let o = g.object(c.dst)?;
                                Some(format!(
                                    "drives '{}' of {}, which is not a node, node attribute or deformer",
                                    c.property,
                                    self.describe(o)
                                ))
                            });
                        let why = other.unwrap_or_else(|| "no target node or property".into());
                        self.warn(
                            Warning::new(
                                codes::CURVE_NODE_UNTARGETED,
                                format!("{d}: {why}; ignored"),
                            )
                            .at(d),
                        );
                        continue;
                    };
                    if !matches!(
                        target.property.as_str(),
                        "Lcl Scaling" | "Lcl Rotation" | "Lcl Translation" | "DeformPercent"
                    ) {
                        continue;
                    }
                    let Some(model) = self.model(target.dst) else {
                        if target.property == "DeformPercent" {
                            let curves = self.node_curves(cn, &mut curve_cache);
                            if self.blend_channel_drives_a_model(target.dst) {
                                let keys = curve_time_range(curves.iter().map(|(_, c)| &**c));
                                let all = morph.get_or_insert_with(MorphKeys::default);
                                all.keeps = true;
                                if let Some((lo, hi)) = keys {
                                    all.range = Some(match all.range {
                                        Some((a, b)) => (a.min(lo), b.max(hi)),
                                        None => (lo, hi),
                                    });
                                }
                            }
                            if let Some((_, c)) = curves.into_iter().next() {
                                morph
                                    .get_or_insert_with(MorphKeys::default)
                                    .curves
                                    .push((target.dst, c));
                            }
                        }
                        continue;
                    };
                    let curves: BTreeMap<String, Arc<Curve>> =
                        self.node_curves(cn, &mut curve_cache).into_iter().collect();
                    node_map.entry(model.name.clone()).or_default().push((
                        model.id,
                        CurveNode {
                            property: target.property,
                            curves,
                        },
                    ));
                }
            }
            let local = g.props(&stack.node, "AnimationStack.FbxAnimStack");
            let range = (
                local.time("LocalStart").unwrap_or(0),
                local.time("LocalStop").unwrap_or(0),
            );
            self.push_animation(name, &node_map, range, fps, morph);
        }
        if g.legacy {
            for take in self.read_takes() {
                let morph = MorphKeys::of_take(take.weight_curves);
                self.push_animation(take.name, &take.node_map, take.range, fps, morph);
            }
        }
    }

    /// `ProcessMorphAnimDatas`' condition: a `BlendShapeChannel` under a `BlendShape` of a
    /// geometry that a model uses.
    fn blend_channel_drives_a_model(&self, channel: u64) -> bool {
        let g = self.g;
        let is = |id: u64, element: &str| g.object(id).is_some_and(|o| o.element == element);
        g.outgoing(channel)
            .filter(|c| c.property.is_empty() && is(c.dst, "Deformer"))
            .any(|shape| {
                g.outgoing(shape.dst)
                    .filter(|c| c.property.is_empty() && is(c.dst, "Geometry"))
                    .any(|geo| {
                        g.outgoing(geo.dst)
                            .any(|c| c.property.is_empty() && is(c.dst, "Model"))
                    })
            })
    }

    /// A curve node's readable curves by channel (`d|X`...), in connection order; each curve
    /// read once per import (`cache`).
    fn node_curves(
        &mut self,
        cn: u64,
        cache: &mut BTreeMap<u64, Option<Arc<Curve>>>,
    ) -> Vec<(String, Arc<Curve>)> {
        let links: Vec<(String, u64)> = self
            .g
            .sources_of(cn, "AnimationCurve")
            .filter(|(c, _)| !c.property.is_empty())
            .map(|(c, _)| (c.property.clone(), c.src))
            .collect();
        let mut out = Vec::with_capacity(links.len());
        for (prop, cid) in links {
            let curve = match cache.get(&cid) {
                Some(c) => c.clone(),
                None => {
                    let c = self.read_curve(cid).map(Arc::new);
                    cache.insert(cid, c.clone());
                    c
                }
            };
            if let Some(c) = curve {
                out.push((prop, c));
            }
        }
        out
    }

    /// The second half of `ConvertAnimations` for one stack (or FBX 6 take): its channels, by
    /// target node name, keyed and clipped to `range` (`LocalStart`, `LocalStop`; both 0 when
    /// the stack has none), pushed as an [`Animation`] when any is left.
    fn push_animation(
        &mut self,
        name: String,
        node_map: &NodeMap,
        (mut start, mut stop): (i64, i64),
        fps: f64,
        morph: Option<MorphKeys>,
    ) {
        let has_range = start != 0 || stop != 0;
        if !has_range {
            start = i64::MIN + 1 + 20000;
            stop = i64::MAX - 20000;
        }
        let mut ctx = Ctx {
            fps,
            min_time: 1e10,
            max_time: -1e10,
        };
        // Which curves drive which node is settled in order (warnings, model lookups); the
        // keys of the nodes are then computed in parallel and collected in node order.
        let mut jobs = Vec::new();
        for (node_name, nodes) in node_map {
            if let Some((model, chain)) = self.prepare_node(node_name, nodes) {
                jobs.push((node_name.as_str(), model, chain));
            }
        }
        let optimize = self.options.optimize_empty_animation_curves;
        let work: Vec<(&str, &Model<'_, '_>, &Chain<'_>)> =
            jobs.iter().map(|(n, m, c)| (*n, &**m, c)).collect();
        let done = par::map(&work, |&(name, model, chain)| {
            let mut local = Ctx {
                fps,
                min_time: 1e10,
                max_time: -1e10,
            };
            let mut out = Vec::new();
            let bits = node_channels(
                &mut local, &mut out, name, model, chain, start, stop, optimize,
            );
            (local, out, bits)
        });
        let mut channels = Vec::new();
        for (&(name, _, _), (local, out, bits)) in work.iter().zip(done) {
            ctx.min_time = ctx.min_time.min(local.min_time);
            ctx.max_time = ctx.max_time.max(local.max_time);
            channels.extend(out);
            if let Some(bits) = bits {
                self.anim_chain_bits.insert(name.to_string(), bits);
            }
        }
        let morph = morph.unwrap_or_default();
        if channels.is_empty() {
            // A stack that only moves blend shape weights of a used geometry is still an
            // animation (the clip of the bind pose, as the original tool writes it). Without a
            // time range its length is that of the weight keys (Assimp's would be -2e10 ticks:
            // no node keys).
            if !morph.keeps {
                return;
            }
            let m = &morph;
            if !has_range {
                let (lo, hi) = m.range.unwrap_or((0, 0));
                ctx.min_time = convert_time(lo, fps);
                ctx.max_time = convert_time(hi, fps);
            }
        }
        let start_fps = if has_range {
            convert_time(start, fps)
        } else {
            ctx.min_time
        };
        let stop_fps = if has_range {
            convert_time(stop, fps)
        } else {
            ctx.max_time
        };
        for ch in &mut channels {
            for k in &mut ch.position_keys {
                k.time -= start_fps;
            }
            for k in &mut ch.rotation_keys {
                k.time -= start_fps;
            }
            for k in &mut ch.scaling_keys {
                k.time -= start_fps;
            }
        }
        let animation = self.scene.animations.len();
        for (channel, curve) in morph.curves {
            let keys = self.weight_keys(&curve, fps, start_fps);
            self.pending_morph.push(PendingMorphCurve {
                animation,
                channel,
                keys,
            });
        }
        self.scene.animations.push(Animation {
            name,
            duration: stop_fps - start_fps,
            ticks_per_second: fps,
            channels,
            morph_channels: Vec::new(),
        });
    }

    /// A blend-shape weight curve as weight keys (percent → weight, time in the animation's
    /// ticks from `start` ticks). Where the curve is constant or cubic anywhere, it is
    /// evaluated as the FBX SDK does ([`curve`]) at every tick (frame) inside those segments,
    /// plus a key just short of each step, so that sampling at the frame rate gives the
    /// curve's values; a curve of straight segments keeps its keys.
    fn weight_keys(&mut self, c: &Curve, fps: f64, start: f64) -> Vec<WeightKey> {
        let tick = |t: i64| convert_time(t, fps) - start;
        let plain = || -> Vec<WeightKey> {
            c.times
                .iter()
                .zip(&c.values)
                .map(|(&t, &v)| WeightKey {
                    time: tick(t),
                    value: v / 100.0,
                })
                .filter(|k| k.value.is_finite())
                .collect()
        };
        let Some(keys) = c.object.and_then(|id| self.curve_keys(id, c)) else {
            return plain();
        };
        if curve::all_linear(&keys) || fps.is_nan() || fps <= 0.0 {
            return plain();
        }
        let mut out: Vec<WeightKey> = Vec::with_capacity(keys.len());
        let mut push = |time: f64, value: f64| {
            let value = (value / 100.0) as f32;
            if value.is_finite() {
                out.push(WeightKey { time, value });
            }
        };
        for (i, k) in keys.iter().enumerate() {
            let at = tick(c.times[i]);
            push(at, k.value);
            let Some(&next_time) = c.times.get(i + 1) else {
                break;
            };
            let end = tick(next_time);
            match k.interpolation {
                curve::Interpolation::Linear => {}
                curve::Interpolation::ConstantPrevious => {
                    push(end - STEP_TICKS.min((end - at) / 2.0), k.value);
                }
                curve::Interpolation::ConstantNext => {
                    push(at + STEP_TICKS.min((end - at) / 2.0), keys[i + 1].value);
                }
                curve::Interpolation::Cubic => {
                    // Every whole tick strictly inside; a bounded count, as the keys are.
                    let mut n = at.floor() + 1.0;
                    let mut added = 0usize;
                    while n < end && added < MAX_SEGMENT_SAMPLES {
                        push(n, curve::segment(k, &keys[i + 1], (n + start) / fps));
                        n += 1.0;
                        added += 1;
                    }
                }
            }
        }
        out
    }

    /// The FBX SDK's keys of `AnimationCurve` `id` (its key attributes read), or `None`, with
    /// a warning, when those are missing or do not describe the keys (the curve is then
    /// taken as linear, as Assimp takes every curve).
    fn curve_keys(&mut self, id: u64, c: &Curve) -> Option<Vec<curve::Key>> {
        let obj = *self.g.object(id)?;
        let node = obj.node;
        let (Some(flags), Some(data), Some(refs)) = (
            node.child("KeyAttrFlags"),
            node.child("KeyAttrDataFloat"),
            node.child("KeyAttrRefCount"),
        ) else {
            return None;
        };
        let read = || -> Result<_, String> {
            let flags = flags.i32_values().map_err(|e| e.to_string())?;
            let refs = refs.i32_values().map_err(|e| e.to_string())?;
            Ok((flags, attribute_words(&data)?, refs))
        };
        let result = read().and_then(|(flags, data, refs)| {
            curve::keys(&c.times, &c.values, &flags, &data, &refs).map_err(|e| e.to_string())
        });
        match result {
            Ok(keys) => Some(keys),
            Err(e) => {
                let d = self.describe(&obj);
                self.warn(
                    Warning::new(
                        codes::CURVE_ATTRIBUTES_MALFORMED,
                        format!("{d}: key attributes unreadable ({e}); the keys are joined by straight lines"),
                    )
                    .at(d),
                );
                None
            }
        }
    }

    /// One `AnimationCurve`: key times and values, checked (`None`, with a warning, when they
    /// are missing, unreadable, of different lengths or not ascending; `None` when empty).
    fn read_curve(&mut self, id: u64) -> Option<Curve> {
        let obj = *self.g.object(id)?;
        let d = self.describe(&obj);
        let dropped = |msg: String| Warning::new(codes::CURVE_DROPPED, msg).at(d.clone());
        let (Some(t), Some(v)) = (obj.node.child("KeyTime"), obj.node.child("KeyValueFloat"))
        else {
            self.warn(dropped(format!(
                "{d}: KeyTime or KeyValueFloat missing; curve ignored"
            )));
            return None;
        };
        let times = match self.g.arrays.i64s(&t) {
            Ok(t) => t,
            Err(e) => {
                self.warn(dropped(format!(
                    "{d}: KeyTime unreadable ({e}); curve ignored"
                )));
                return None;
            }
        };
        let values = match self.g.arrays.floats_or_decode(&v) {
            Ok(v) => v.into_vec(),
            Err(e) => {
                self.warn(dropped(format!(
                    "{d}: KeyValueFloat unreadable ({e}); curve ignored"
                )));
                return None;
            }
        };
        if times.len() != values.len() {
            self.warn(dropped(format!(
                "{d}: {} key times but {} values; curve ignored",
                times.len(),
                values.len()
            )));
            return None;
        }
        if times.windows(2).any(|w| w[0] >= w[1]) {
            self.warn(dropped(format!(
                "{d}: key times not in ascending order; curve ignored"
            )));
            return None;
        }
        if times.is_empty() {
            return None;
        }
        Some(Curve {
            object: Some(id),
            times,
            values,
        })
    }

    /// `GenerateNodeAnimations`, first half: the target model and its curve nodes by component
    /// (`None` when nothing is animated).
    fn prepare_node<'c>(
        &mut self,
        fixed_name: &str,
        nodes: &'c [(u64, CurveNode)],
    ) -> Option<(Rc<Model<'d, 'a>>, Chain<'c>)> {
        let &(target_id, _) = nodes.last()?;
        let mut by_prop: BTreeMap<&str, Vec<&CurveNode>> = BTreeMap::new();
        for (_, n) in nodes {
            if n.curves.is_empty() {
                self.warn(
                    Warning::new(
                        codes::CURVE_NODE_EMPTY,
                        format!(
                            "node '{fixed_name}': an AnimationCurveNode on {} has no curves",
                            n.property
                        ),
                    )
                    .at(format!("node '{fixed_name}'")),
                );
                continue;
            }
            by_prop.entry(n.property.as_str()).or_default().push(n);
        }
        let target = self.model(target_id)?;
        let chain: Chain<'c> = ANIMATED.map(|comp| by_prop.get(comp.property()).cloned());
        Some((target, chain))
    }
}

/// The components animation curves drive, in the order of [`Chain`].
const ANIMATED: [Comp; 3] = [Comp::Translation, Comp::Rotation, Comp::Scaling];

/// The component index (0..3) of a curve's channel name.
fn mapto(channel: &str) -> Option<usize> {
    match channel {
        "d|X" => Some(0),
        "d|Y" => Some(1),
        "d|Z" => Some(2),
        _ => None,
    }
}

/// `GetKeyframeList`.
fn keyframe_list(nodes: &[&CurveNode], start: i64, stop: i64) -> Vec<KeyList> {
    let (lo, hi) = (start.saturating_sub(10000), stop.saturating_add(10000));
    let mut out = Vec::new();
    for n in nodes {
        for (ch, c) in &n.curves {
            let Some(m) = mapto(ch) else { continue };
            let mut kl = KeyList {
                times: Vec::with_capacity(c.times.len()),
                values: Vec::with_capacity(c.times.len()),
                mapto: m,
            };
            for (&t, &v) in c.times.iter().zip(&c.values) {
                if t >= lo && t <= hi {
                    kl.times.push(t);
                    kl.values.push(v);
                }
            }
            out.push(kl);
        }
    }
    out
}

/// `GetRotationKeyframeList`: like [`keyframe_list`], with keys inserted where consecutive
/// values differ by 180° or more.
fn rotation_keyframe_list(nodes: &[&CurveNode], start: i64, stop: i64) -> Vec<KeyList> {
    let (lo, hi) = (start.saturating_sub(10000), stop.saturating_add(10000));
    let inside = |t: i64| t >= lo && t <= hi;
    let mut out = Vec::new();
    for n in nodes {
        for (ch, c) in &n.curves {
            let Some(m) = mapto(ch) else { continue };
            let mut kl = KeyList {
                times: Vec::new(),
                values: Vec::new(),
                mapto: m,
            };
            let count = c.times.len();
            let mut tp = c.times[0];
            let mut vp = c.values[0];
            kl.times.push(tp);
            kl.values.push(vp);
            let mut inserted = 0usize;
            if count > 1 {
                let mut tc = c.times[1];
                let mut vc = c.values[1];
                for k in 1..count {
                    while (vc - vp).abs() >= 180.0 && inserted < MAX_INSERTED_KEYS {
                        let dt = tc.wrapping_sub(tp) as f32;
                        let step = (dt / (vc - vp) * 179.0).floor();
                        let tnew = tp.wrapping_add(step as i64);
                        let vnew = vp + (vc - vp) * step / dt;
                        if inside(tnew) {
                            kl.times.push(tnew);
                            kl.values.push(vnew);
                            inserted += 1;
                        } else {
                            break;
                        }
                        tp = tnew;
                        vp = vnew;
                    }
                    if inside(tc) {
                        kl.times.push(tc);
                        kl.values.push(vc);
                    }
                    if k + 1 < count {
                        tp = tc;
                        vp = vc;
                        tc = c.times[k + 1];
                        vc = c.values[k + 1];
                    }
                }
            }
            out.push(kl);
        }
    }
    out
}

/// `GetKeyTimeList`: merged key times.
fn key_times(inputs: &[KeyList]) -> Vec<i64> {
    let mut next = vec![0usize; inputs.len()];
    let mut keys = Vec::with_capacity(inputs.iter().map(|k| k.times.len()).max().unwrap_or(0));
    loop {
        let mut min = i64::MAX;
        for (kl, &p) in inputs.iter().zip(&next) {
            if let Some(&t) = kl.times.get(p) {
                if t < min {
                    min = t;
                }
            }
        }
        if min == i64::MAX {
            break;
        }
        keys.push(min);
        for (kl, p) in inputs.iter().zip(next.iter_mut()) {
            while kl.times.get(*p) == Some(&min) {
                *p += 1;
            }
        }
    }
    keys
}

/// The sorted union of ascending key-time runs, without repeats (a plain copy when every run
/// holds the same times, as baked animation has).
fn merge_times(runs: &[&[i64]]) -> Vec<i64> {
    let Some(first) = runs.first() else {
        return Vec::new();
    };
    let ascending = |r: &[i64]| r.windows(2).all(|w| w[0] < w[1]);
    if runs.iter().all(|r| r == first) && ascending(first) {
        return first.to_vec();
    }
    let mut times: Vec<i64> = runs.iter().flat_map(|r| r.iter().copied()).collect();
    times.sort_unstable();
    times.dedup();
    times
}

/// `InterpolateKeys` for vectors: per time, each component lerped in its own list.
fn interpolate(
    ctx: &mut Ctx,
    keys: &[i64],
    inputs: &[KeyList],
    def: [f32; 3],
) -> Vec<(f64, [f32; 3])> {
    let mut next = vec![0usize; inputs.len()];
    let mut out = Vec::with_capacity(keys.len());
    for &time in keys {
        let mut result = def;
        for (kl, p) in inputs.iter().zip(next.iter_mut()) {
            let n = kl.times.len();
            if n == 0 {
                continue;
            }
            if n > *p && kl.times[*p] == time {
                *p += 1;
            }
            let id0 = if *p > 0 { *p - 1 } else { 0 };
            let id1 = if *p == n { n - 1 } else { *p };
            let (va, vb) = (kl.values[id0], kl.values[id1]);
            let (ta, tb) = (kl.times[id0], kl.times[id1]);
            let factor = if ta == tb {
                0.0
            } else {
                time.wrapping_sub(ta) as f32 / tb.wrapping_sub(ta) as f32
            };
            result[kl.mapto] = va + (vb - va) * factor;
        }
        let t = convert_time(time, ctx.fps);
        ctx.min_time = ctx.min_time.min(t);
        ctx.max_time = ctx.max_time.max(t);
        out.push((t, result));
    }
    out
}

/// `InterpolateKeys` for rotations: Euler keys → quaternions on the shortest path.
fn interpolate_rotation(
    ctx: &mut Ctx,
    keys: &[i64],
    inputs: &[KeyList],
    def: [f32; 3],
    order: RotOrder,
) -> Vec<(f64, Q)> {
    let euler = interpolate(ctx, keys, inputs, def);
    let mut last = Q::default();
    euler
        .into_iter()
        .map(|(t, e)| {
            let mut q = Q::from_rows(&rotation_matrix(order, e).rows3());
            if q.x * last.x + q.y * last.y + q.z * last.z + q.w * last.w < 0.0 {
                q = Q {
                    w: -q.w,
                    x: -q.x,
                    y: -q.y,
                    z: -q.z,
                };
            }
            last = q;
            (t, q)
        })
        .collect()
}

fn vkeys(v: Vec<(f64, [f32; 3])>) -> Vec<VectorKey> {
    v.into_iter()
        .map(|(time, value)| VectorKey {
            time,
            value: Vec3::from_array(value),
        })
        .collect()
}

fn qkeys(v: Vec<(f64, Q)>) -> Vec<QuatKey> {
    v.into_iter()
        .map(|(time, q)| QuatKey {
            time,
            value: q.to_glam(),
        })
        .collect()
}

/// `NeedsComplexTransformationChain`: pivots, offsets or geometric transforms.
fn needs_complex_chain(model: &Model<'_, '_>) -> bool {
    let eps = 1e-6f32;
    for (name, scale) in [
        ("RotationOffset", false),
        ("RotationPivot", false),
        ("ScalingOffset", false),
        ("ScalingPivot", false),
        ("GeometricScaling", true),
        ("GeometricRotation", false),
        ("GeometricTranslation", false),
    ] {
        if let Some(v) = model.props.vec3_f32(name) {
            let v = if scale {
                [v[0] - 1.0, v[1] - 1.0, v[2] - 1.0]
            } else {
                v
            };
            if sq_len(v) > eps {
                return true;
            }
        }
    }
    false
}

fn default_of(comp: Comp) -> [f32; 3] {
    if comp == Comp::Scaling {
        [1.0, 1.0, 1.0]
    } else {
        [0.0; 3]
    }
}

/// `IsRedundantAnimationData`: one curve node whose X/Y/Z curves hold one key each, equal
/// to the node's static value.
fn is_redundant(model: &Model<'_, '_>, comp: Comp, nodes: &[&CurveNode]) -> bool {
    if nodes.len() != 1 {
        return false;
    }
    let c = &nodes[0].curves;
    let (Some(x), Some(y), Some(z)) = (c.get("d|X"), c.get("d|Y"), c.get("d|Z")) else {
        return false;
    };
    if x.values.len() != 1 || y.values.len() != 1 || z.values.len() != 1 {
        return false;
    }
    let dynv = [x.values[0], y.values[0], z.values[0]];
    let stat = model
        .props
        .vec3_f32(comp.property())
        .unwrap_or(default_of(comp));
    sq_len([dynv[0] - stat[0], dynv[1] - stat[1], dynv[2] - stat[2]]) < f32::EPSILON
}

/// The curve nodes on a node's translation, rotation and scaling.
type Chain<'c> = [Option<Vec<&'c CurveNode>>; 3];

/// `GenerateNodeAnimations`, second half (no shared state: runs in parallel): the node's
/// channels into `out`; the helper-node components animated, when the node needs the
/// complex chain.
#[allow(clippy::too_many_arguments)]
fn node_channels(
    ctx: &mut Ctx,
    out: &mut Vec<NodeChannel>,
    fixed_name: &str,
    target: &Model<'_, '_>,
    chain: &Chain<'_>,
    start: i64,
    stop: i64,
    optimize: bool,
) -> Option<u32> {
    let mut has_any = false;
    for (i, comp) in ANIMATED.iter().enumerate() {
        if let Some(v) = &chain[i] {
            if optimize && is_redundant(target, *comp, v) {
                continue;
            }
            has_any = true;
        }
    }
    if !has_any {
        return None;
    }
    if !needs_complex_chain(target) {
        let ch = simple_node_anim(ctx, fixed_name, target, chain, start, stop);
        if !(ch.position_keys.is_empty()
            && ch.rotation_keys.is_empty()
            && ch.scaling_keys.is_empty())
        {
            out.push(ch);
        }
        return None;
    }
    let mut flags = 0u32;
    for (i, comp) in ANIMATED.iter().enumerate() {
        let Some(nodes) = &chain[i] else { continue };
        flags |= comp.bit();
        let name = chain_node_name(fixed_name, *comp);
        let dummy_s = || {
            vec![VectorKey {
                time: 0.0,
                value: Vec3::ONE,
            }]
        };
        let dummy_t = || {
            vec![VectorKey {
                time: 0.0,
                value: Vec3::ZERO,
            }]
        };
        let dummy_r = || {
            vec![QuatKey {
                time: 0.0,
                value: kiln_scene::Quat::IDENTITY,
            }]
        };
        let ch = match comp {
            Comp::Rotation => {
                let inputs = rotation_keyframe_list(nodes, start, stop);
                let keys = key_times(&inputs);
                NodeChannel {
                    node_name: name,
                    rotation_keys: qkeys(interpolate_rotation(
                        ctx,
                        &keys,
                        &inputs,
                        [0.0; 3],
                        target.rot_order,
                    )),
                    scaling_keys: dummy_s(),
                    position_keys: dummy_t(),
                }
            }
            Comp::Translation => {
                let inputs = keyframe_list(nodes, start, stop);
                let keys = key_times(&inputs);
                NodeChannel {
                    node_name: name,
                    position_keys: vkeys(interpolate(ctx, &keys, &inputs, [0.0; 3])),
                    scaling_keys: dummy_s(),
                    rotation_keys: dummy_r(),
                }
            }
            _ => {
                let inputs = keyframe_list(nodes, start, stop);
                let keys = key_times(&inputs);
                NodeChannel {
                    node_name: name,
                    scaling_keys: vkeys(interpolate(ctx, &keys, &inputs, [1.0; 3])),
                    rotation_keys: dummy_r(),
                    position_keys: dummy_t(),
                }
            }
        };
        out.push(ch);
    }
    Some(flags)
}

/// `GenerateSimpleNodeAnim`.
fn simple_node_anim(
    ctx: &mut Ctx,
    name: &str,
    target: &Model<'_, '_>,
    chain: &[Option<Vec<&CurveNode>>; 3],
    start: i64,
    stop: i64,
) -> NodeChannel {
    let lists: [Vec<KeyList>; 3] = [
        chain[0]
            .as_ref()
            .map(|n| keyframe_list(n, start, stop))
            .unwrap_or_default(),
        chain[1]
            .as_ref()
            .map(|n| rotation_keyframe_list(n, start, stop))
            .unwrap_or_default(),
        chain[2]
            .as_ref()
            .map(|n| keyframe_list(n, start, stop))
            .unwrap_or_default(),
    ];
    let runs: Vec<&[i64]> = lists.iter().flatten().map(|k| &k.times[..]).collect();
    let times = merge_times(&runs);
    let props = &target.props;
    let def_t = props.vec3_f32("Lcl Translation").unwrap_or([0.0; 3]);
    let def_r = props.vec3_f32("Lcl Rotation").unwrap_or([0.0; 3]);
    let def_s = props.vec3_f32("Lcl Scaling").unwrap_or([1.0; 3]);
    let order = target.rot_order;
    let def_q = euler_to_quat(def_r, order);
    let fps = ctx.fps;
    let t: Vec<(f64, [f32; 3])> = if lists[0].is_empty() {
        times
            .iter()
            .map(|&k| (convert_time(k, fps), def_t))
            .collect()
    } else {
        interpolate(ctx, &times, &lists[0], def_t)
    };
    let mut r: Vec<(f64, Q)> = if lists[1].is_empty() {
        times
            .iter()
            .map(|&k| (convert_time(k, fps), def_q))
            .collect()
    } else {
        interpolate_rotation(ctx, &times, &lists[1], def_r, order)
    };
    let s: Vec<(f64, [f32; 3])> = if lists[2].is_empty() {
        times
            .iter()
            .map(|&k| (convert_time(k, fps), def_s))
            .collect()
    } else {
        interpolate(ctx, &times, &lists[2], def_s)
    };
    if let Some(pre) = props.vec3_f32("PreRotation").filter(|v| sq_len(*v) > 1e-6) {
        let pq = euler_to_quat(pre, RotOrder::Xyz);
        for k in &mut r {
            k.1 = pq.mul(&k.1);
        }
    }
    if let Some(post) = props.vec3_f32("PostRotation").filter(|v| sq_len(*v) > 1e-6) {
        let pq = euler_to_quat(post, RotOrder::Xyz);
        for k in &mut r {
            k.1 = k.1.mul(&pq);
        }
    }
    let mut ch = NodeChannel {
        node_name: name.to_string(),
        ..NodeChannel::default()
    };
    for i in 0..times.len() {
        let m = M4::translation(t[i].1)
            .mul(&r[i].1.matrix())
            .mul(&M4::scaling(s[i].1));
        let (sc, q, p) = m.decompose();
        ch.position_keys.push(VectorKey {
            time: t[i].0,
            value: Vec3::from_array(p),
        });
        ch.rotation_keys.push(QuatKey {
            time: r[i].0,
            value: q.to_glam(),
        });
        ch.scaling_keys.push(VectorKey {
            time: s[i].0,
            value: Vec3::from_array(sc),
        });
    }
    ch
}

impl Converter<'_, '_, '_> {
    /// Assimp's `ScenePreprocessor`: a channel without position, rotation or scaling keys
    /// gets one key at time 0 from its node's transform.
    pub(super) fn add_missing_tracks(&mut self) {
        let scene = &mut self.scene;
        let order = scene.depth_first();
        for a in 0..scene.animations.len() {
            for c in 0..scene.animations[a].channels.len() {
                let ch = &scene.animations[a].channels[c];
                if !ch.position_keys.is_empty()
                    && !ch.rotation_keys.is_empty()
                    && !ch.scaling_keys.is_empty()
                {
                    continue;
                }
                let Some(&node) = order.iter().find(|&&n| scene.nodes[n].name == ch.node_name)
                else {
                    continue;
                };
                let (s, q, p) = M4::from_glam(&scene.nodes[node].transform).decompose();
                let ch = &mut scene.animations[a].channels[c];
                if ch.rotation_keys.is_empty() {
                    ch.rotation_keys.push(QuatKey {
                        time: 0.0,
                        value: q.to_glam(),
                    });
                }
                if ch.scaling_keys.is_empty() {
                    ch.scaling_keys.push(VectorKey {
                        time: 0.0,
                        value: Vec3::from_array(s),
                    });
                }
                if ch.position_keys.is_empty() {
                    ch.position_keys.push(VectorKey {
                        time: 0.0,
                        value: Vec3::from_array(p),
                    });
                }
            }
        }
    }
}

/// The first and last key time of some curves (`None` when none has keys; a curve read is
/// never empty).
fn curve_time_range<'c>(curves: impl IntoIterator<Item = &'c Curve>) -> Option<(i64, i64)> {
    curves
        .into_iter()
        .filter_map(|c| Some((*c.times.first()?, *c.times.last()?)))
        .reduce(|(a, b), (lo, hi)| (a.min(lo), b.max(hi)))
}
