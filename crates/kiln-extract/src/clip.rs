//! Clips from a scene's animations: every bone of the extracted skeleton sampled at every frame.
//!
//! The original `ReadAnimationData` / `ParseAnimationNode` / `ReadKeyframeData` (reference
//! `000`, `001`), with their faults fixed (see `reference/README.md`):
//! - one clip per scene animation (the original exported only the one it was asked for);
//! - `frameCount = floor(duration) + 1` frames at the animation's ticks per second, or at the
//!   rate [`ClipOptions::frame_rate`] asks for (then `duration` is converted to that rate);
//! - every channel is *sampled* at every frame time: linear interpolation for translation and
//!   scale, normalised shortest-path spherical interpolation for rotation, the first/last key
//!   held before/after the keys. The original only took keys lying within 1e-4 of the next
//!   integer frame and dropped the others, then padded with the last one;
//! - scale is kept (version `000` forced it to 1);
//! - a bone without a channel (and each component a channel has no key for) carries its
//!   bind-pose local transform, decomposed into scale, rotation and translation; a helper bone
//!   (see [`crate::extract()`]) carries the identity;
//! - every bone of the `.mesh` gets a track, in bone order, so a track's index is its bone's.
//!
//! The `.clip` then holds `duration` in frames of the clip's `frameRate`, and keyframe `k` of
//! every track has `time = k`.
//!
//! Bad input is an error ([`ClipError`]) or a repair with a warning, never a panic:
//! - ticks per second of 0 (the file does not say): 25 is used, as Assimp's own viewer does,
//!   with a warning; negative or not finite: error;
//! - a duration that is negative or not finite: error; one whose frames × bones exceed
//!   [`ClipOptions::max_keyframes`]: error;
//! - a key time or value that is NaN or infinite, or a zero rotation quaternion: error;
//! - a rotation key that is not unit length: normalised (with a warning past 1e-3);
//! - keys out of time order: sorted (stable), with a warning;
//! - a channel with no keys at all, or no key of one component: the bind pose is used for it,
//!   with a warning;
//! - a channel naming no node, or a second channel for the same node: ignored, with a warning.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use glam::{DQuat, DVec3};
use kiln_format::{Clip, Keyframe, Track, WeightTrack};
use kiln_scene::{Animation, NodeChannel, QuatKey, Scene, VectorKey, Warning};

use crate::codes;
use crate::extract::{BoneSource, Extracted};

/// Ticks per second used when an animation says 0 (its file gives no rate), as Assimp's viewer
/// does.
pub const DEFAULT_TICKS_PER_SECOND: f64 = 25.0;

/// Default [`ClipOptions::max_keyframes`]: 2·10⁷ keyframes (880 MB of `.clip`).
pub const DEFAULT_MAX_KEYFRAMES: u64 = 20_000_000;

/// How clips are extracted.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClipOptions {
    /// Resample at this many frames per second instead of the animation's ticks per second.
    pub frame_rate: Option<f64>,
    /// Most keyframes (frames × bones) one clip may hold; a longer clip is an error.
    pub max_keyframes: u64,
}

impl Default for ClipOptions {
    fn default() -> Self {
        ClipOptions {
            frame_rate: None,
            max_keyframes: DEFAULT_MAX_KEYFRAMES,
        }
    }
}

/// Why an animation gave no clip.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ClipError {
    /// The animation's ticks per second are negative or not finite.
    #[error(
        "animation {index} ('{name}'): {value} ticks per second; it must be positive and finite"
    )]
    TicksPerSecond {
        /// Index of the animation in the scene.
        index: usize,
        /// Its name.
        name: String,
        /// The ticks per second it gives.
        value: f64,
    },
    /// The animation's duration is negative or not finite.
    #[error(
        "animation {index} ('{name}'): duration of {value} ticks; it must be finite and not negative"
    )]
    Duration {
        /// Index of the animation in the scene.
        index: usize,
        /// Its name.
        name: String,
        /// The duration it gives, in ticks.
        value: f64,
    },
    /// [`ClipOptions::frame_rate`] is not positive and finite (the value it holds).
    #[error("resampling rate of {0} frames per second; it must be positive and finite")]
    FrameRate(f64),
    /// Frames × bones exceed [`ClipOptions::max_keyframes`] (or the frames exceed `u32`).
    #[error(
        "animation {index} ('{name}'): {frames} frames × {bones} bones is more than the limit of {max} keyframes"
    )]
    TooLong {
        /// Index of the animation in the scene.
        index: usize,
        /// Its name.
        name: String,
        /// Frames the clip would have (saturated at `u64::MAX`).
        frames: u64,
        /// Bones of the extracted skeleton (one track each).
        bones: usize,
        /// The limit, [`ClipOptions::max_keyframes`].
        max: u64,
    },
    /// A key's time or value is NaN or infinite.
    #[error("animation {index} ('{name}'): channel '{channel}' {what} key {key} is not finite")]
    NotFinite {
        /// Index of the animation in the scene.
        index: usize,
        /// Its name.
        name: String,
        /// The node the channel animates.
        channel: String,
        /// `position`, `rotation` or `scaling`.
        what: &'static str,
        /// Index of the key in its list.
        key: usize,
    },
    /// A rotation key is the zero quaternion, which gives no rotation.
    #[error(
        "animation {index} ('{name}'): channel '{channel}' rotation key {key} is a zero quaternion"
    )]
    ZeroRotation {
        /// Index of the animation in the scene.
        index: usize,
        /// Its name.
        name: String,
        /// The node the channel animates.
        channel: String,
        /// Index of the key in the rotation keys.
        key: usize,
    },
}

/// A clip and what was repaired to make it.
#[derive(Clone, Debug, PartialEq)]
pub struct ExtractedClip {
    /// One track per bone of the extracted skeleton, in bone order, `frameCount` keyframes
    /// each.
    pub clip: Clip,
    /// Repairs made while resampling, with codes from [`codes`].
    pub warnings: Vec<Warning>,
}

/// One clip per animation of `scene`, for the skeleton `extracted` describes (the result of
/// [`crate::extract()`] on the same scene).
pub fn extract_clips(
    scene: &Scene,
    extracted: &Extracted,
    options: &ClipOptions,
) -> Vec<Result<ExtractedClip, ClipError>> {
    let indices: Vec<usize> = (0..scene.animations.len()).collect();
    crate::par_map(&indices, |&i| extract_clip(scene, extracted, i, options))
}

/// The clip of animation `index` of `scene` (an index past the animations reads as an empty
/// animation: one frame of bind pose).
pub fn extract_clip(
    scene: &Scene,
    extracted: &Extracted,
    index: usize,
    options: &ClipOptions,
) -> Result<ExtractedClip, ClipError> {
    let empty = Animation::default();
    let anim = scene.animations.get(index).unwrap_or(&empty);
    let mut warnings = Vec::new();
    let name = || anim.name.clone();
    let warning = |code: &'static str, message: String| {
        Warning::new(code, message).at(animation_location(&anim.name))
    };

    let mut tps = anim.ticks_per_second;
    if !tps.is_finite() || tps < 0.0 {
        return Err(ClipError::TicksPerSecond {
            index,
            name: name(),
            value: tps,
        });
    }
    if tps == 0.0 {
        warnings.push(warning(
            codes::DEFAULT_TICK_RATE,
            format!(
                "animation '{}' gives no ticks per second; {DEFAULT_TICKS_PER_SECOND} used",
                anim.name
            ),
        ));
        tps = DEFAULT_TICKS_PER_SECOND;
    }
    if !anim.duration.is_finite() || anim.duration < 0.0 {
        return Err(ClipError::Duration {
            index,
            name: name(),
            value: anim.duration,
        });
    }
    let rate = match options.frame_rate {
        Some(r) if !r.is_finite() || r <= 0.0 => return Err(ClipError::FrameRate(r)),
        Some(r) => r,
        None => tps,
    };
    // Ticks per output frame; exactly 1 at the animation's own rate.
    let step = if options.frame_rate.is_some() {
        tps / rate
    } else {
        1.0
    };
    let duration = anim.duration / step;
    let bones = extracted.model.bones.len();
    // The 1e-6 absorbs rounding in the rate conversion (30.0 must not become 29.999999).
    let frames_f = libm::floor(duration + 1e-6) + 1.0;
    let too_long = || ClipError::TooLong {
        index,
        name: name(),
        frames: if frames_f < u64::MAX as f64 {
            frames_f as u64
        } else {
            u64::MAX
        },
        bones,
        max: options.max_keyframes,
    };
    let fits = frames_f < u32::MAX as f64
        && frames_f * (bones.max(1) as f64) <= options.max_keyframes as f64;
    if !fits {
        return Err(too_long());
    }
    let frame_count = frames_f as u32;

    // Channels by node: the first node (in bone order) of the channel's name.
    let mut node_by_name: BTreeMap<&str, usize> = BTreeMap::new();
    for source in &extracted.bone_sources {
        if let BoneSource::Node(id) = *source {
            if let Some(node) = scene.nodes.get(id) {
                node_by_name.entry(node.name.as_str()).or_insert(id);
            }
        }
    }
    // Each channel's node, or the warning that leaves it out, in channel order; the kept
    // channels' keys are then checked and converted a channel a task (their copies were a
    // few megabytes of fresh memory for a 100-bone, 300-frame clip, 4 ms on one thread), and
    // their warnings and first error taken in channel order, as one pass would give them.
    let mut seen = alloc::collections::BTreeSet::new();
    let placed: Vec<Result<(usize, &NodeChannel), Warning>> = (anim.channels.iter())
        .map(|ch| match node_by_name.get(ch.node_name.as_str()) {
            None => Err(warning(
                codes::UNKNOWN_CHANNEL_NODE,
                format!(
                    "animation '{}': channel '{}' names no node; ignored",
                    anim.name, ch.node_name
                ),
            )),
            Some(&node) if !seen.insert(node) => Err(warning(
                codes::DUPLICATE_CHANNEL,
                format!(
                    "animation '{}': second channel for node '{}'; ignored",
                    anim.name, ch.node_name
                ),
            )),
            Some(&node) => Ok((node, ch)),
        })
        .collect();
    let prepared = crate::par_map_into(placed, |placed| {
        placed.map(|(node, ch)| {
            let mut w = Vec::new();
            (node, prepare(ch, index, &anim.name, &mut w).map(|p| (p, w)))
        })
    });
    let mut channel_of_node: BTreeMap<usize, Prepared> = BTreeMap::new();
    for prepared in prepared {
        match prepared {
            Err(w) => warnings.push(w),
            Ok((node, result)) => {
                let (p, mut w) = result?;
                warnings.append(&mut w);
                channel_of_node.insert(node, p);
            }
        }
    }

    // One task per bone with the `parallel` feature (a track reads its own channel only);
    // each gives its track and, for a bone without a channel whose bind transform has shear
    // (its track holds the nearest decomposition), the name the warning below gives.
    let bone_sources: Vec<_> = extracted
        .model
        .bones
        .iter()
        .zip(&extracted.bone_sources)
        .collect();
    let sampled = crate::par_map(&bone_sources, |&(bone, source)| {
        let mut sheared = None;
        let (bind, channel, node) = match *source {
            BoneSource::Node(id) => {
                let node = scene.nodes.get(id);
                let local = node.map_or(glam::Mat4::IDENTITY, |n| n.transform);
                (decompose(&local), channel_of_node.get(&id), node)
            }
            BoneSource::RigidHelper(_) | BoneSource::SkinHelper(_) => (Bind::IDENTITY, None, None),
        };
        let mut keyframes = Vec::with_capacity(frame_count as usize);
        match channel {
            None => {
                if let Some(n) = node.filter(|_| !bind.exact) {
                    sheared = Some(n.name.as_str());
                }
                let kf = bind.keyframe(0.0);
                keyframes.extend((0..frame_count).map(|i| Keyframe {
                    time: i as f32,
                    ..kf
                }));
            }
            Some(ch) => {
                let mut pos = Sampler::new(&ch.positions, bind.translation, DVec3::lerp);
                let mut rot = Sampler::new(&ch.rotations, bind.rotation, slerp_shortest);
                let mut scl = Sampler::new(&ch.scales, bind.scale, DVec3::lerp);
                for i in 0..frame_count {
                    let t = i as f64 * step;
                    let (s, r, p) = (scl.at(t), rot.at(t), pos.at(t));
                    keyframes.push(Keyframe {
                        time: i as f32,
                        scale: s.as_vec3().to_array(),
                        rotation: r.as_quat().to_array(),
                        translation: p.as_vec3().to_array(),
                    });
                }
            }
        }
        let track = Track {
            bone_name: bone.name.clone(),
            keyframes,
        };
        (track, sheared)
    });
    let mut tracks = Vec::with_capacity(bones);
    let mut sheared: Vec<&str> = Vec::new();
    for (track, shear) in sampled {
        tracks.push(track);
        sheared.extend(shear);
    }
    if !sheared.is_empty() {
        warnings.push(warning(
            codes::SHEARED_BIND_POSE,
            format!(
                "bind transform of {} is not scale·rotation·translation (shear); the clip holds its nearest decomposition",
                sheared.join(", ")
            ),
        ));
    }
    let weight_tracks = weight_tracks(anim, extracted, frame_count, step, &mut warnings);
    Ok(ExtractedClip {
        clip: Clip {
            name: anim.name.clone(),
            duration: duration as f32,
            frame_rate: rate as f32,
            frame_count,
            tracks,
            weight_tracks,
        },
        warnings,
    })
}

/// One weight track per part and target an animation's morph channels drive (a mesh drawn by
/// several nodes gives each of its parts one), sampled at every frame: linear between keys,
/// held before the first and after the last, the target's rest weight without keys.
fn weight_tracks(
    anim: &Animation,
    extracted: &Extracted,
    frame_count: u32,
    step: f64,
    warnings: &mut Vec<Warning>,
) -> Vec<WeightTrack> {
    let mut out = Vec::new();
    let mut unknown = 0usize;
    for ch in &anim.morph_channels {
        let mut found = false;
        for (part, &mesh) in extracted.part_meshes.iter().enumerate() {
            let Some(target) = extracted.model.meshes[part]
                .morph_targets
                .get(ch.target)
                .filter(|_| mesh == ch.mesh)
            else {
                continue;
            };
            found = true;
            let keys = &ch.keys;
            let at = |t: f64| -> f32 {
                match keys.iter().position(|k| k.time > t) {
                    None => keys.last().map_or(target.default_weight, |k| k.value),
                    Some(0) => keys[0].value,
                    Some(i) => {
                        let (a, b) = (keys[i - 1], keys[i]);
                        let span = b.time - a.time;
                        let u = if span > 0.0 { (t - a.time) / span } else { 1.0 };
                        (f64::from(a.value) + (f64::from(b.value) - f64::from(a.value)) * u) as f32
                    }
                }
            };
            out.push(WeightTrack {
                part: part as u32,
                target: ch.target as u32,
                weights: (0..frame_count).map(|i| at(i as f64 * step)).collect(),
            });
        }
        if !found {
            unknown += 1;
        }
    }
    if unknown > 0 {
        warnings.push(
            Warning::new(
                codes::UNKNOWN_MORPH_CHANNEL,
                format!(
                    "animation '{}': {unknown} morph weight channel(s) name no target of a part; ignored",
                    anim.name
                ),
            )
            .at(animation_location(&anim.name)),
        );
    }
    out.sort_by_key(|t| (t.part, t.target));
    out
}

/// Bind-pose local transform of a bone, decomposed.
#[derive(Clone, Copy, Debug)]
struct Bind {
    scale: DVec3,
    rotation: DQuat,
    translation: DVec3,
    /// Whether scale·rotation·translation gives the matrix back (no shear).
    exact: bool,
}

impl Bind {
    const IDENTITY: Bind = Bind {
        scale: DVec3::ONE,
        rotation: DQuat::IDENTITY,
        translation: DVec3::ZERO,
        exact: true,
    };

    fn keyframe(&self, time: f32) -> Keyframe {
        Keyframe {
            time,
            scale: self.scale.as_vec3().to_array(),
            rotation: self.rotation.as_quat().to_array(),
            translation: self.translation.as_vec3().to_array(),
        }
    }
}

/// Scale, rotation and translation of a local transform (column vectors). A negative
/// determinant gives a negative x scale; shear cannot be represented and is reported through
/// [`Bind::exact`].
fn decompose(m: &glam::Mat4) -> Bind {
    let d = m.as_dmat4();
    if !d.is_finite() {
        return Bind {
            exact: false,
            ..Bind::IDENTITY
        };
    }
    let (scale, rotation, translation) = d.to_scale_rotation_translation();
    let rotation = if rotation.is_finite() && rotation.length_squared() > 0.0 {
        rotation.normalize()
    } else {
        DQuat::IDENTITY
    };
    let back = glam::DMat4::from_scale_rotation_translation(scale, rotation, translation);
    let size = d.to_cols_array().iter().fold(1f64, |a, x| a.max(x.abs()));
    let exact = back
        .to_cols_array()
        .iter()
        .zip(d.to_cols_array().iter())
        .all(|(a, b)| (a - b).abs() <= 1e-4 * size);
    Bind {
        scale,
        rotation,
        translation,
        exact,
    }
}

/// A channel's keys, checked, in time order, in f64.
struct Prepared {
    positions: Vec<(f64, DVec3)>,
    rotations: Vec<(f64, DQuat)>,
    scales: Vec<(f64, DVec3)>,
}

fn prepare(
    ch: &NodeChannel,
    index: usize,
    anim_name: &str,
    warnings: &mut Vec<Warning>,
) -> Result<Prepared, ClipError> {
    let mut warn = |code: &'static str, message: String| {
        warnings.push(Warning::new(code, message).at(animation_location(anim_name)));
    };
    let not_finite = |what, key| ClipError::NotFinite {
        index,
        name: anim_name.into(),
        channel: ch.node_name.clone(),
        what,
        key,
    };
    let vectors = |keys: &[VectorKey], what| -> Result<Vec<(f64, DVec3)>, ClipError> {
        keys.iter()
            .enumerate()
            .map(|(k, key)| {
                if key.time.is_finite() && key.value.is_finite() {
                    Ok((key.time, key.value.as_dvec3()))
                } else {
                    Err(not_finite(what, k))
                }
            })
            .collect()
    };
    let mut positions = vectors(&ch.position_keys, "position")?;
    let mut scales = vectors(&ch.scaling_keys, "scaling")?;
    let mut unnormalised = 0usize;
    let mut rotations = ch
        .rotation_keys
        .iter()
        .enumerate()
        .map(|(k, key): (usize, &QuatKey)| {
            let q = key.value.as_dquat();
            if !key.time.is_finite() || !q.is_finite() {
                return Err(not_finite("rotation", k));
            }
            let len = q.length();
            if len < 1e-12 {
                return Err(ClipError::ZeroRotation {
                    index,
                    name: anim_name.into(),
                    channel: ch.node_name.clone(),
                    key: k,
                });
            }
            if (len - 1.0).abs() > 1e-3 {
                unnormalised += 1;
            }
            Ok((key.time, q / len))
        })
        .collect::<Result<Vec<_>, _>>()?;
    if unnormalised > 0 {
        warn(
            codes::ROTATION_NORMALISED,
            format!(
                "animation '{anim_name}': channel '{}' has {unnormalised} rotation keys that are not unit quaternions; normalised",
                ch.node_name
            ),
        );
    }
    let mut unsorted = Vec::new();
    if !sorted(&positions) {
        positions.sort_by(|a, b| a.0.total_cmp(&b.0));
        unsorted.push("position");
    }
    if !sorted(&rotations) {
        rotations.sort_by(|a, b| a.0.total_cmp(&b.0));
        unsorted.push("rotation");
    }
    if !sorted(&scales) {
        scales.sort_by(|a, b| a.0.total_cmp(&b.0));
        unsorted.push("scaling");
    }
    if !unsorted.is_empty() {
        warn(
            codes::KEYS_SORTED,
            format!(
                "animation '{anim_name}': channel '{}' {} keys out of time order; sorted",
                ch.node_name,
                unsorted.join(", ")
            ),
        );
    }
    let mut missing = Vec::new();
    for (empty, what) in [
        (positions.is_empty(), "position"),
        (rotations.is_empty(), "rotation"),
        (scales.is_empty(), "scaling"),
    ] {
        if empty {
            missing.push(what);
        }
    }
    if missing.len() == 3 {
        warn(
            codes::CHANNEL_WITHOUT_KEYS,
            format!(
                "animation '{anim_name}': channel '{}' has no keys; the bone keeps its bind pose",
                ch.node_name
            ),
        );
    } else if !missing.is_empty() {
        warn(
            codes::COMPONENT_WITHOUT_KEYS,
            format!(
                "animation '{anim_name}': channel '{}' has no {} keys; bind pose used for them",
                ch.node_name,
                missing.join(" or ")
            ),
        );
    }
    Ok(Prepared {
        positions,
        rotations,
        scales,
    })
}

/// The [`Warning::location`] of a finding about an animation.
fn animation_location(name: &str) -> String {
    format!("animation '{name}'")
}

fn sorted<T>(keys: &[(f64, T)]) -> bool {
    keys.windows(2).all(|w| w[0].0 <= w[1].0)
}

/// Finds, for increasing times, the key segment around each time (a moving cursor: the frames
/// of a clip are visited in order, so sampling a channel is linear in its keys).
struct Cursor {
    k: usize,
}

impl Cursor {
    /// The last key at or before `t` (0 when `t` is before the first key), and the next key's
    /// index and interpolation factor when `t` lies between two keys of distinct times.
    fn locate<T>(&mut self, keys: &[(f64, T)], t: f64) -> (usize, Option<(usize, f64)>) {
        while self.k + 1 < keys.len() && keys[self.k + 1].0 <= t {
            self.k += 1;
        }
        let k = self.k;
        match (keys.get(k), keys.get(k + 1)) {
            (Some(a), Some(b)) if t > a.0 && b.0 > a.0 => {
                (k, Some((k + 1, (t - a.0) / (b.0 - a.0))))
            }
            _ => (k, None),
        }
    }
}

/// Samples one key track at increasing times: the key at or before `t`, blended with the
/// next one by `blend` (lerp for vectors, shortest-arc slerp for rotations); `fallback` when
/// the track has no key.
struct Sampler<'a, T> {
    keys: &'a [(f64, T)],
    fallback: T,
    blend: fn(T, T, f64) -> T,
    cursor: Cursor,
}

impl<'a, T: Copy> Sampler<'a, T> {
    fn new(keys: &'a [(f64, T)], fallback: T, blend: fn(T, T, f64) -> T) -> Self {
        Sampler {
            keys,
            fallback,
            blend,
            cursor: Cursor { k: 0 },
        }
    }

    fn at(&mut self, t: f64) -> T {
        let (k, next) = self.cursor.locate(self.keys, t);
        let Some(&(_, a)) = self.keys.get(k) else {
            return self.fallback;
        };
        match next.and_then(|(j, f)| self.keys.get(j).map(|b| (b.1, f))) {
            Some((b, f)) => (self.blend)(a, b, f),
            None => a,
        }
    }
}

/// Spherical interpolation along the shorter arc, normalised; linear (then normalised) when
/// the two rotations are within about 1.8° of each other, where slerp's division loses
/// precision.
pub(crate) fn slerp_shortest(a: DQuat, b: DQuat, t: f64) -> DQuat {
    let mut cos = a.dot(b);
    let b = if cos < 0.0 {
        cos = -cos;
        -b
    } else {
        b
    };
    let (wa, wb) = if cos > 0.9995 {
        (1.0 - t, t)
    } else {
        let theta = libm::acos(cos.min(1.0));
        let sin = libm::sin(theta);
        (
            libm::sin((1.0 - t) * theta) / sin,
            libm::sin(t * theta) / sin,
        )
    };
    (a * wa + b * wb).normalize()
}

/// File names of the clips of model `model_name`: `NAME_CLIPNAME.clip`, the clip name made
/// safe for file systems: characters that Windows, macOS or Linux forbid or treat specially
/// (`< > : " / \ | ? *` and control characters) become `_`, trailing dots and spaces are
/// removed, and it is cut to 200 bytes. A clip whose name is then empty is called by its index
/// (`NAME_3.clip`); a name equal (ignoring ASCII case) to an earlier one gets `_INDEX`
/// appended until it is unique.
pub fn clip_file_names<S: AsRef<str>>(model_name: &str, clip_names: &[S]) -> Vec<String> {
    let mut taken: Vec<String> = Vec::with_capacity(clip_names.len());
    let mut out = Vec::with_capacity(clip_names.len());
    for (i, name) in clip_names.iter().enumerate() {
        let mut stem = sanitize(name.as_ref());
        if stem.is_empty() {
            stem = format!("{i}");
        }
        let mut candidate = format!("{model_name}_{stem}");
        while taken.iter().any(|t| t.eq_ignore_ascii_case(&candidate)) {
            candidate = format!("{candidate}_{i}");
        }
        taken.push(candidate.clone());
        out.push(format!("{candidate}.clip"));
    }
    out
}

fn sanitize(name: &str) -> String {
    let mut s: String = name
        .chars()
        .map(|c| {
            if c.is_control() || matches!(c, '<' | '>' | ':' | '"' | '/' | '\\' | '|' | '?' | '*') {
                '_'
            } else {
                c
            }
        })
        .collect();
    if s.len() > 200 {
        let mut cut = 200;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
    }
    let trimmed = s.trim_end_matches(['.', ' ']).len();
    s.truncate(trimmed);
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::extract;
    use alloc::string::ToString;
    use alloc::vec;
    use glam::{Mat4, Quat, Vec3};
    use kiln_scene::{Node, NodeChannel};

    fn scene() -> Scene {
        let mut s = Scene::with_root("root");
        let a = s.add_child(0, Node::new("a"));
        s.nodes[a].transform = Mat4::from_scale_rotation_translation(
            Vec3::new(2.0, 2.0, 2.0),
            Quat::from_rotation_z(0.5),
            Vec3::new(1.0, 2.0, 3.0),
        );
        s.add_child(a, Node::new("b"));
        s.animations.push(Animation {
            name: "walk|cycle".into(),
            duration: 4.0,
            ticks_per_second: 10.0,
            channels: vec![NodeChannel {
                node_name: "b".into(),
                position_keys: vec![
                    VectorKey {
                        time: 0.0,
                        value: Vec3::ZERO,
                    },
                    // Between frames 1 and 2: the original dropped it.
                    VectorKey {
                        time: 1.5,
                        value: Vec3::new(3.0, 0.0, 0.0),
                    },
                    VectorKey {
                        time: 3.0,
                        value: Vec3::new(0.0, 6.0, 0.0),
                    },
                ],
                rotation_keys: vec![
                    QuatKey {
                        time: 0.0,
                        value: Quat::IDENTITY,
                    },
                    QuatKey {
                        time: 4.0,
                        value: Quat::from_rotation_y(1.0),
                    },
                ],
                scaling_keys: vec![
                    VectorKey {
                        time: 0.0,
                        value: Vec3::ONE,
                    },
                    VectorKey {
                        time: 2.0,
                        value: Vec3::new(3.0, 1.0, 1.0),
                    },
                ],
            }],
            morph_channels: Vec::new(),
        });
        s
    }

    fn clip_of(s: &Scene, options: &ClipOptions) -> ExtractedClip {
        let e = extract(s);
        extract_clip(s, &e, 0, options).unwrap()
    }

    fn close(a: &[f32], b: &[f32]) -> bool {
        a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-5)
    }

    #[test]
    fn every_bone_gets_every_frame_with_keys_between_frames_honoured() {
        let c = clip_of(&scene(), &ClipOptions::default()).clip;
        assert_eq!((c.frame_count, c.duration, c.frame_rate), (5, 4.0, 10.0));
        let names: Vec<&str> = c.tracks.iter().map(|t| t.bone_name.as_str()).collect();
        assert_eq!(names, ["root", "a", "b"]);
        assert!(c.tracks.iter().all(|t| t.keyframes.len() == 5));
        let b = &c.tracks[2].keyframes;
        let times: Vec<f32> = b.iter().map(|k| k.time).collect();
        assert_eq!(times, [0.0, 1.0, 2.0, 3.0, 4.0]);
        // Frame 1 lies 2/3 of the way to the key at 1.5; frame 2 a third of the way past it.
        assert!(close(&b[1].translation, &[2.0, 0.0, 0.0]));
        assert!(close(&b[2].translation, &[2.0, 2.0, 0.0]));
        // Held after the last key.
        assert!(close(&b[4].translation, &[0.0, 6.0, 0.0]));
        // Scale kept, interpolated, then held.
        assert!(close(&b[1].scale, &[2.0, 1.0, 1.0]));
        assert!(close(&b[3].scale, &[3.0, 1.0, 1.0]));
        // Slerp: half the angle at the middle frame.
        let half = Quat::from_rotation_y(0.5).to_array();
        assert!(close(&b[2].rotation, &half), "{:?}", b[2].rotation);
    }

    #[test]
    fn bones_without_a_channel_carry_their_bind_pose_with_scale() {
        let c = clip_of(&scene(), &ClipOptions::default()).clip;
        let a = &c.tracks[1].keyframes;
        assert!(a.iter().all(|k| close(&k.scale, &[2.0, 2.0, 2.0])));
        assert!(a.iter().all(|k| close(&k.translation, &[1.0, 2.0, 3.0])));
        assert!(
            a.iter()
                .all(|k| close(&k.rotation, &Quat::from_rotation_z(0.5).to_array()))
        );
        assert_eq!(a[3].time, 3.0);
    }

    #[test]
    fn a_sheared_bind_pose_without_a_channel_is_named_in_a_warning() {
        let mut s = scene();
        let sheared = |s: &Scene| {
            clip_of(s, &ClipOptions::default())
                .warnings
                .into_iter()
                .filter(|w| w.code == codes::SHEARED_BIND_POSE)
                .map(|w| w.message)
                .collect::<Vec<_>>()
        };
        assert!(sheared(&s).is_empty());
        // Node `a` (no channel) gets a shear; `b` (animated) one too, which the clip's keys
        // replace, so only `a` is named.
        let shear = Mat4::from_cols_array(&[
            1.0, 0.0, 0.0, 0.0, 0.5, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0,
        ]);
        s.nodes[1].transform = shear;
        s.nodes[2].transform = shear;
        let w = sheared(&s);
        assert_eq!(w.len(), 1, "{w:?}");
        assert!(w[0].contains("bind transform of a is"), "{w:?}");
    }

    #[test]
    fn resampling_converts_duration_and_samples_at_the_new_times() {
        let options = ClipOptions {
            frame_rate: Some(4.0),
            ..ClipOptions::default()
        };
        // 4 ticks at 10 ticks/s = 0.4 s = 1.6 frames at 4 fps: 2 frames, at ticks 0 and 2.5.
        let c = clip_of(&scene(), &options).clip;
        assert_eq!((c.frame_count, c.frame_rate), (2, 4.0));
        assert!((c.duration - 1.6).abs() < 1e-6);
        let b = &c.tracks[2].keyframes;
        assert!(close(&b[1].translation, &[1.0, 4.0, 0.0]), "{:?}", b[1]);
        assert_eq!(b[1].time, 1.0);
    }

    #[test]
    fn shortest_path_slerp_takes_the_near_side() {
        let a = DQuat::from_rotation_z(0.1);
        let b = -DQuat::from_rotation_z(0.3);
        let m = slerp_shortest(a, b, 0.5);
        let want = DQuat::from_rotation_z(0.2);
        assert!(m.dot(want).abs() > 1.0 - 1e-12, "{m:?}");
        assert!((m.length() - 1.0).abs() < 1e-12);
    }

    #[test]
    fn bad_rates_durations_and_keys_are_errors() {
        let e = extract(&scene());
        let mut s = scene();
        s.animations[0].ticks_per_second = -1.0;
        assert!(matches!(
            extract_clip(&s, &e, 0, &ClipOptions::default()),
            Err(ClipError::TicksPerSecond { .. })
        ));
        let mut s = scene();
        s.animations[0].duration = f64::NAN;
        assert!(matches!(
            extract_clip(&s, &e, 0, &ClipOptions::default()),
            Err(ClipError::Duration { .. })
        ));
        let mut s = scene();
        s.animations[0].duration = 1e12;
        let err = extract_clip(&s, &e, 0, &ClipOptions::default()).unwrap_err();
        assert!(err.to_string().contains("limit"), "{err}");
        let mut s = scene();
        s.animations[0].channels[0].position_keys[1].value.x = f32::NAN;
        let err = extract_clip(&s, &e, 0, &ClipOptions::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "animation 0 ('walk|cycle'): channel 'b' position key 1 is not finite"
        );
        let mut s = scene();
        s.animations[0].channels[0].rotation_keys[0].value = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        assert!(matches!(
            extract_clip(&s, &e, 0, &ClipOptions::default()),
            Err(ClipError::ZeroRotation { .. })
        ));
        let options = ClipOptions {
            frame_rate: Some(0.0),
            ..ClipOptions::default()
        };
        assert_eq!(
            extract_clip(&scene(), &e, 0, &options),
            Err(ClipError::FrameRate(0.0))
        );
    }

    /// Channels are checked side by side, but their warnings come in channel order (left out
    /// or repaired), and an error is the first channel's in order.
    #[test]
    fn channel_warnings_and_errors_come_in_channel_order() {
        let mut s = scene();
        let b = s.animations[0].channels[0].clone();
        let mut unsorted_b = b.clone();
        unsorted_b.position_keys.swap(0, 2);
        let mut long_a = b.clone();
        long_a.node_name = "a".into();
        long_a.rotation_keys[0].value = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
        s.animations[0].channels = vec![
            NodeChannel {
                node_name: "ghost".into(),
                ..NodeChannel::default()
            },
            unsorted_b,
            b.clone(),
            long_a.clone(),
        ];
        let codes_of = |s: &Scene| -> Vec<&'static str> {
            clip_of(s, &ClipOptions::default())
                .warnings
                .iter()
                .map(|w| w.code)
                .collect()
        };
        assert_eq!(
            codes_of(&s),
            [
                codes::UNKNOWN_CHANNEL_NODE,
                codes::KEYS_SORTED,
                codes::DUPLICATE_CHANNEL,
                codes::ROTATION_NORMALISED
            ]
        );
        // Two bad channels: the error names the first.
        let e = extract(&s);
        let mut bad_a = long_a;
        bad_a.position_keys[2].value.y = f32::INFINITY;
        let mut bad_b = b;
        bad_b.rotation_keys[1].value = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0);
        for (channels, want) in [
            (
                vec![bad_a.clone(), bad_b.clone()],
                "channel 'a' position key 2",
            ),
            (vec![bad_b, bad_a], "channel 'b' rotation key 1 is a zero"),
        ] {
            s.animations[0].channels = channels;
            let err = extract_clip(&s, &e, 0, &ClipOptions::default()).unwrap_err();
            assert!(err.to_string().contains(want), "{err}");
        }
    }

    #[test]
    fn repairs_come_with_warnings() {
        let mut s = scene();
        s.animations[0].ticks_per_second = 0.0;
        let ch = &mut s.animations[0].channels[0];
        ch.rotation_keys[1].value = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
        ch.position_keys.swap(0, 2);
        ch.scaling_keys.clear();
        s.animations[0].channels.push(NodeChannel {
            node_name: "ghost".into(),
            ..NodeChannel::default()
        });
        s.animations[0].channels.push(NodeChannel {
            node_name: "b".into(),
            ..NodeChannel::default()
        });
        let got = clip_of(&s, &ClipOptions::default());
        assert_eq!(got.clip.frame_rate, 25.0);
        let w = got
            .warnings
            .iter()
            .map(|w| w.message.as_str())
            .collect::<Vec<_>>()
            .join("\n");
        for needle in [
            "no ticks per second",
            "not unit quaternions",
            "out of time order",
            "no scaling keys",
            "'ghost' names no node",
            "second channel",
        ] {
            assert!(w.contains(needle), "{needle}: {w}");
        }
        let b = &got.clip.tracks[2].keyframes;
        // Sorted keys give the same samples as before; the unit rotation is identity.
        assert!(close(&b[1].translation, &[2.0, 0.0, 0.0]));
        assert!(close(&b[4].rotation, &[0.0, 0.0, 0.0, 1.0]));
        assert!(b.iter().all(|k| k.scale == [1.0, 1.0, 1.0]));
    }

    #[test]
    fn file_names_are_sanitised_and_unique() {
        let names = clip_file_names(
            "hero",
            &[
                "Armature|Action",
                "",
                "armature_action",
                "a/b:c*?. ",
                "x\u{1}y",
                "Run",
            ],
        );
        assert_eq!(
            names,
            [
                "hero_Armature_Action.clip",
                "hero_1.clip",
                "hero_armature_action_2.clip",
                "hero_a_b_c__.clip",
                "hero_x_y.clip",
                "hero_Run.clip"
            ]
        );
        let long = "é".repeat(150);
        let n = &clip_file_names("m", &[long.as_str()])[0];
        assert!(n.len() <= 2 + 200 + 5 && n.ends_with(".clip"));
        // An empty name that meets an index-named clip.
        assert_eq!(clip_file_names("m", &["1", ""]), ["m_1.clip", "m_1_1.clip"]);
    }
}
