//! Clips bound to a skeleton, sampled at any time.
//!
//! [`AnimationClip::bind`] checks a `.clip` against a [`Skeleton`] once — every track names a
//! bone, has `frameCount` keyframes, finite values and non-zero rotations — and lays its
//! keyframes out frame-major in structure-of-arrays form (`translations[frame * bones + bone]`,
//! same for rotations and scales), so sampling one frame for all bones reads contiguous memory.
//! Bones without a track are filled with their bind-pose local transform at that point.
//!
//! [`AnimationClip::sample`] then interpolates between the two frames around a time, without
//! allocating: translation and scale linearly, rotation by normalised linear interpolation on
//! the shorter arc (nlerp, as ozz-animation's runtime does; between adjacent frames its angle
//! differs from slerp's by less than 0.01° up to 20° per frame, and it is exact at frames).
//!
//! Time is in frames of the clip (`seconds * frame_rate`). [`Wrap::Clamp`] holds the first and
//! last frames outside `[0, frameCount - 1]`; [`Wrap::Loop`] repeats with a period of
//! `frameCount` frames, the last frame blending into frame 0 as the reference runtime's
//! `(frame + 1) % frameCount` does.

use alloc::string::String;
use alloc::vec::Vec;

use glam::{Quat, Vec3A, Vec4};
use kiln_format::Clip;

use crate::skeleton::{Pose, PoseMismatch, Skeleton};
use crate::warning::BindWarning;

/// Most keyframes (frames × bones) a bound clip may hold unless [`AnimationClip::bind_with_limit`]
/// says otherwise (2·10⁷: 880 MB).
pub const DEFAULT_MAX_BOUND_KEYFRAMES: u64 = 20_000_000;

/// What happens outside the clip's frames.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Wrap {
    /// Hold the first frame before 0 and the last one after `frameCount - 1`.
    #[default]
    Clamp,
    /// Repeat every `frameCount` frames; the last frame blends into the first.
    Loop,
}

/// The two frames around a time and how far between them it lies.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FramePair {
    /// The frame at or before the time.
    pub current: u32,
    /// The frame after it (the same frame past a clamped end; frame 0 after the last when
    /// looping).
    pub next: u32,
    /// In `[0, 1)`.
    pub t: f32,
}

impl Wrap {
    /// The frames around `time` (in frames) of a clip of `frame_count` frames (at least 1), as
    /// the reference runtime feeds `curFrame`, `nextFrame` and `time` to its shader. A NaN time
    /// reads as 0.
    pub fn frames(self, time: f32, frame_count: u32) -> FramePair {
        let count = frame_count.max(1);
        let last = count - 1;
        let time = if time.is_nan() { 0.0 } else { time };
        match self {
            Wrap::Clamp => {
                let x = time.clamp(0.0, last as f32);
                let current = (x as u32).min(last);
                if current >= last {
                    FramePair {
                        current: last,
                        next: last,
                        t: 0.0,
                    }
                } else {
                    FramePair {
                        current,
                        next: current + 1,
                        t: (x - current as f32).clamp(0.0, 1.0),
                    }
                }
            }
            Wrap::Loop => {
                let period = count as f32;
                let x = if time.is_finite() {
                    let r = libm::fmodf(time, period);
                    let r = if r < 0.0 { r + period } else { r };
                    // `r + period` can round up to `period` for tiny negative `r`.
                    if r >= period { 0.0 } else { r }
                } else {
                    0.0
                };
                let current = (x as u32).min(last);
                FramePair {
                    current,
                    next: if current >= last { 0 } else { current + 1 },
                    t: (x - current as f32).clamp(0.0, 1.0),
                }
            }
        }
    }
}

/// Why a clip does not fit a skeleton.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum BindError {
    /// The clip's `frameCount` is 0.
    #[error("clip '{name}': frame count is 0")]
    NoFrames {
        /// The clip's name.
        name: String,
    },
    /// The clip's frame rate is not positive and finite.
    #[error("clip '{name}': frame rate of {rate}; it must be positive and finite")]
    FrameRate {
        /// The clip's name.
        name: String,
        /// Its frame rate.
        rate: f32,
    },
    /// Frames × bones exceed the limit of [`AnimationClip::bind_with_limit`].
    #[error(
        "clip '{name}': {frames} frames × {bones} bones is more than the limit of {max} keyframes"
    )]
    TooLong {
        /// The clip's name.
        name: String,
        /// Its frames.
        frames: u32,
        /// Bones of the skeleton.
        bones: usize,
        /// The limit, in keyframes.
        max: u64,
    },
    /// A track does not have one keyframe per frame.
    #[error("clip '{name}': track {track} ('{bone}') has {count} keyframes for {frames} frames")]
    KeyframeCount {
        /// The clip's name.
        name: String,
        /// Index of the track.
        track: usize,
        /// The bone it names.
        bone: String,
        /// Its keyframes.
        count: usize,
        /// The clip's frames.
        frames: u32,
    },
    /// A keyframe holds NaN or an infinity.
    #[error("clip '{name}': track {track} ('{bone}') keyframe {frame} is not finite")]
    NotFinite {
        /// The clip's name.
        name: String,
        /// Index of the track.
        track: usize,
        /// The bone it names.
        bone: String,
        /// Index of the keyframe (its frame).
        frame: usize,
    },
    /// A keyframe's rotation is (nearly) the zero quaternion, which gives no rotation.
    #[error("clip '{name}': track {track} ('{bone}') keyframe {frame} has a zero rotation")]
    ZeroRotation {
        /// The clip's name.
        name: String,
        /// Index of the track.
        track: usize,
        /// The bone it names.
        bone: String,
        /// Index of the keyframe (its frame).
        frame: usize,
    },
}

/// A clip bound to one skeleton: frame-major structure-of-arrays keyframes for every bone.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimationClip {
    name: String,
    frame_rate: f32,
    duration: f32,
    frame_count: u32,
    bones: usize,
    translations: Vec<Vec3A>,
    rotations: Vec<Quat>,
    scales: Vec<Vec3A>,
}

impl AnimationClip {
    /// Checks `clip` against `skeleton` and lays it out for sampling; returns warnings for
    /// what was repaired (see [`AnimationClip::bind_with_limit`]).
    pub fn bind(
        skeleton: &Skeleton,
        clip: &Clip,
    ) -> Result<(AnimationClip, Vec<BindWarning>), BindError> {
        Self::bind_with_limit(skeleton, clip, DEFAULT_MAX_BOUND_KEYFRAMES)
    }

    /// [`AnimationClip::bind`] with a limit on frames × bones.
    ///
    /// Track `i` belongs to bone `i` when their names agree (kiln writes tracks in bone order,
    /// which also keeps bones of equal names apart); otherwise to the first bone of its name
    /// that has no track yet. Errors: no frames, a frame rate that is not positive and finite,
    /// too many keyframes, a track whose keyframe count is not `frameCount`, a non-finite
    /// value, a zero rotation. Repairs, with a warning: a track naming no bone or a bone that
    /// already has one is ignored; bones without a track hold their bind pose; rotations that
    /// are not unit length are normalised (warned past 1e-3). Keyframe `time` fields are not
    /// read: keyframe `k` is frame `k`.
    pub fn bind_with_limit(
        skeleton: &Skeleton,
        clip: &Clip,
        max_keyframes: u64,
    ) -> Result<(AnimationClip, Vec<BindWarning>), BindError> {
        let name = || clip.name.clone();
        let frames = clip.frame_count;
        if frames == 0 {
            return Err(BindError::NoFrames { name: name() });
        }
        if !(clip.frame_rate.is_finite() && clip.frame_rate > 0.0) {
            return Err(BindError::FrameRate {
                name: name(),
                rate: clip.frame_rate,
            });
        }
        let bones = skeleton.len();
        if frames as u64 * bones as u64 > max_keyframes {
            return Err(BindError::TooLong {
                name: name(),
                frames,
                bones,
                max: max_keyframes,
            });
        }
        let mut warnings = Vec::new();
        let mut track_of: Vec<Option<usize>> = alloc::vec![None; bones];
        let mut ignored = Vec::new();
        for (i, track) in clip.tracks.iter().enumerate() {
            let target =
                if skeleton.names().get(i) == Some(&track.bone_name) && track_of[i].is_none() {
                    Some(i)
                } else {
                    skeleton
                        .names()
                        .iter()
                        .enumerate()
                        .position(|(b, n)| *n == track.bone_name && track_of[b].is_none())
                };
            match target {
                Some(b) => track_of[b] = Some(i),
                None => ignored.push(track.bone_name.as_str()),
            }
        }
        if !ignored.is_empty() {
            warnings.push(BindWarning::TracksIgnored {
                clip: name(),
                tracks: ignored.into_iter().map(String::from).collect(),
            });
        }
        let missing: Vec<String> = track_of
            .iter()
            .zip(skeleton.names())
            .filter(|(t, _)| t.is_none())
            .map(|(_, n)| n.clone())
            .collect();
        if !missing.is_empty() {
            warnings.push(BindWarning::BonesWithoutTrack {
                clip: name(),
                bones: missing,
            });
        }
        let n = frames as usize * bones;
        let mut translations = alloc::vec![Vec3A::ZERO; n];
        let mut rotations = alloc::vec![Quat::IDENTITY; n];
        let mut scales = alloc::vec![Vec3A::ONE; n];
        let mut unnormalised = 0usize;
        for (b, track) in track_of.iter().enumerate() {
            match track {
                None => {
                    let (t, r, s) =
                        skeleton
                            .bind_local(b)
                            .unwrap_or((Vec3A::ZERO, Quat::IDENTITY, Vec3A::ONE));
                    for f in 0..frames as usize {
                        let k = f * bones + b;
                        translations[k] = t;
                        rotations[k] = r;
                        scales[k] = s;
                    }
                }
                Some(ti) => {
                    let track = &clip.tracks[*ti];
                    if track.keyframes.len() != frames as usize {
                        return Err(BindError::KeyframeCount {
                            name: name(),
                            track: *ti,
                            bone: track.bone_name.clone(),
                            count: track.keyframes.len(),
                            frames,
                        });
                    }
                    for (f, kf) in track.keyframes.iter().enumerate() {
                        let finite = kf.scale.iter().all(|x| x.is_finite())
                            && kf.rotation.iter().all(|x| x.is_finite())
                            && kf.translation.iter().all(|x| x.is_finite());
                        if !finite {
                            return Err(BindError::NotFinite {
                                name: name(),
                                track: *ti,
                                bone: track.bone_name.clone(),
                                frame: f,
                            });
                        }
                        let q = Vec4::from_array(kf.rotation);
                        let len = q.length();
                        if len.is_nan() || len <= 1e-12 {
                            return Err(BindError::ZeroRotation {
                                name: name(),
                                track: *ti,
                                bone: track.bone_name.clone(),
                                frame: f,
                            });
                        }
                        if (len - 1.0).abs() > 1e-3 {
                            unnormalised += 1;
                        }
                        let k = f * bones + b;
                        translations[k] = Vec3A::from_array(kf.translation);
                        rotations[k] = Quat::from_vec4(q / len);
                        scales[k] = Vec3A::from_array(kf.scale);
                    }
                }
            }
        }
        if unnormalised > 0 {
            warnings.push(BindWarning::RotationsNormalised {
                clip: name(),
                count: unnormalised,
            });
        }
        Ok((
            AnimationClip {
                name: clip.name.clone(),
                frame_rate: clip.frame_rate,
                duration: clip.duration,
                frame_count: frames,
                bones,
                translations,
                rotations,
                scales,
            },
            warnings,
        ))
    }

    /// The clip's name, as the `.clip` gives it.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Frames per second.
    pub fn frame_rate(&self) -> f32 {
        self.frame_rate
    }

    /// Length in frames, as the `.clip` says.
    pub fn duration(&self) -> f32 {
        self.duration
    }

    /// Number of frames (at least 1): keyframe `k` of every track is frame `k`.
    pub fn frame_count(&self) -> u32 {
        self.frame_count
    }

    /// Number of bones of the skeleton it was bound to.
    pub fn bone_count(&self) -> usize {
        self.bones
    }

    /// The local transforms of one frame (translations, rotations, scales), one per bone;
    /// `None` past the last frame.
    pub fn frame(&self, frame: u32) -> Option<(&[Vec3A], &[Quat], &[Vec3A])> {
        let start = (frame as usize).checked_mul(self.bones)?;
        let end = start.checked_add(self.bones)?;
        Some((
            self.translations.get(start..end)?,
            self.rotations.get(start..end)?,
            self.scales.get(start..end)?,
        ))
    }

    /// Writes the local pose at `time` (in frames) into `pose`, interpolating between frames.
    /// No allocation.
    pub fn sample(&self, time: f32, wrap: Wrap, pose: &mut Pose) -> Result<(), PoseMismatch> {
        if pose.len() != self.bones {
            return Err(PoseMismatch {
                pose: pose.len(),
                skeleton: self.bones,
            });
        }
        let pair = wrap.frames(time, self.frame_count);
        let (Some((t0, r0, s0)), Some((t1, r1, s1))) =
            (self.frame(pair.current), self.frame(pair.next))
        else {
            return Ok(());
        };
        let (pt, pr, ps) = pose.locals_mut();
        if pair.t == 0.0 {
            pt.copy_from_slice(t0);
            pr.copy_from_slice(r0);
            ps.copy_from_slice(s0);
            return Ok(());
        }
        let a = pair.t;
        for ((out, x), y) in pt.iter_mut().zip(t0).zip(t1) {
            *out = x.lerp(*y, a);
        }
        for ((out, x), y) in ps.iter_mut().zip(s0).zip(s1) {
            *out = x.lerp(*y, a);
        }
        for ((out, x), y) in pr.iter_mut().zip(r0).zip(r1) {
            *out = nlerp_shortest(*x, *y, a);
        }
        Ok(())
    }

    /// Samples at `time` (in frames), then computes model and skinning matrices: the whole
    /// per-frame job. No allocation.
    pub fn evaluate(
        &self,
        skeleton: &Skeleton,
        time: f32,
        wrap: Wrap,
        pose: &mut Pose,
    ) -> Result<(), PoseMismatch> {
        self.sample(time, wrap, pose)?;
        skeleton.update_model(pose)?;
        skeleton.update_skinning(pose)
    }
}

/// Normalised linear interpolation of two unit quaternions along the shorter arc.
#[inline]
pub fn nlerp_shortest(a: Quat, b: Quat, t: f32) -> Quat {
    let (va, vb) = (Vec4::from(a), Vec4::from(b));
    // Flip `b` onto `a`'s hemisphere without a branch: multiply by the sign of the dot.
    let sign = if va.dot(vb) < 0.0 { -1.0 } else { 1.0 };
    let v = va * (1.0 - t) + vb * (t * sign);
    Quat::from_vec4(v * v.length_recip())
}

#[cfg(test)]
mod tests {
    use super::*;
    use alloc::string::ToString;
    use alloc::vec;
    use glam::{Mat4, Vec3};
    use kiln_format::{Bone, Keyframe, Track};

    fn skeleton() -> Skeleton {
        let (bones, _) = crate::test_bones::arm();
        Skeleton::new(&bones, &[None, None]).unwrap()
    }

    fn kf(time: f32, x: f32, angle: f32) -> Keyframe {
        Keyframe {
            time,
            scale: [1.0; 3],
            rotation: Quat::from_rotation_z(angle).to_array(),
            translation: [x, 0.0, 0.0],
        }
    }

    fn clip() -> Clip {
        Clip {
            name: "wave".into(),
            duration: 2.0,
            frame_rate: 30.0,
            frame_count: 3,
            tracks: vec![Track {
                bone_name: "arm".into(),
                keyframes: vec![kf(0.0, 2.0, 0.0), kf(1.0, 4.0, 0.4), kf(2.0, 6.0, 0.8)],
            }],
            weight_tracks: Vec::new(),
        }
    }

    #[test]
    fn frames_clamp_and_loop_like_the_reference_runtime() {
        let f = |w: Wrap, t| {
            let p = w.frames(t, 3);
            (p.current, p.next, p.t)
        };
        assert_eq!(f(Wrap::Clamp, 0.25), (0, 1, 0.25));
        assert_eq!(f(Wrap::Clamp, 1.5), (1, 2, 0.5));
        assert_eq!(f(Wrap::Clamp, 7.0), (2, 2, 0.0));
        assert_eq!(f(Wrap::Clamp, -3.0), (0, 1, 0.0));
        assert_eq!(f(Wrap::Clamp, f32::NAN), (0, 1, 0.0));
        assert_eq!(f(Wrap::Loop, 2.5), (2, 0, 0.5));
        assert_eq!(f(Wrap::Loop, 3.25), (0, 1, 0.25));
        assert_eq!(f(Wrap::Loop, -0.5), (2, 0, 0.5));
        assert_eq!(f(Wrap::Loop, f32::INFINITY), (0, 1, 0.0));
        assert_eq!(
            Wrap::Loop.frames(5.0, 1),
            FramePair {
                current: 0,
                next: 0,
                t: 0.0
            }
        );
    }

    #[test]
    fn sampling_interpolates_and_bones_without_tracks_hold_the_bind_pose() {
        let s = skeleton();
        let (c, warnings) = AnimationClip::bind(&s, &clip()).unwrap();
        assert_eq!(
            warnings,
            [BindWarning::BonesWithoutTrack {
                clip: "wave".into(),
                bones: vec!["root".into()],
            }]
        );
        assert_eq!(warnings[0].code(), crate::codes::NO_TRACK);
        assert_eq!(
            warnings[0].to_string(),
            "clip 'wave': 1 bone(s) have no track and hold their bind pose: root"
        );
        let mut pose = Pose::new(&s);
        c.evaluate(&s, 0.5, Wrap::Clamp, &mut pose).unwrap();
        assert!(pose.translations()[1].abs_diff_eq(Vec3A::new(3.0, 0.0, 0.0), 1e-6));
        assert!(pose.translations()[0].abs_diff_eq(Vec3A::new(0.0, 1.0, 0.0), 1e-6));
        let r = pose.rotations()[1];
        assert!(r.abs_diff_eq(Quat::from_rotation_z(0.2), 1e-3), "{r:?}");
        assert!((r.length() - 1.0).abs() < 1e-6);
        // Model of the arm: root translation then the arm's local transform.
        let want = Mat4::from_translation(Vec3::new(0.0, 1.0, 0.0))
            * Mat4::from_rotation_translation(r, Vec3::new(3.0, 0.0, 0.0));
        assert!(pose.model()[1].abs_diff_eq(want, 1e-5));
        // Exactly at a frame: the keyframe itself.
        c.evaluate(&s, 2.0, Wrap::Clamp, &mut pose).unwrap();
        assert_eq!(pose.rotations()[1], Quat::from_rotation_z(0.8));
    }

    #[test]
    fn nlerp_takes_the_shorter_arc_and_is_exact_at_the_ends() {
        let a = Quat::from_rotation_y(0.1);
        let b = -Quat::from_rotation_y(0.5);
        let m = nlerp_shortest(a, b, 0.5);
        assert!(m.dot(Quat::from_rotation_y(0.3)).abs() > 1.0 - 1e-6);
        assert!(nlerp_shortest(a, b, 0.0).abs_diff_eq(a, 1e-7));
    }

    #[test]
    fn bad_clips_are_errors_and_repairs_are_warned() {
        let s = skeleton();
        let mut c = clip();
        c.tracks[0].keyframes.pop();
        assert!(matches!(
            AnimationClip::bind(&s, &c),
            Err(BindError::KeyframeCount {
                count: 2,
                frames: 3,
                ..
            })
        ));
        let mut c = clip();
        c.tracks[0].keyframes[1].translation[2] = f32::INFINITY;
        let e = AnimationClip::bind(&s, &c).unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip 'wave': track 0 ('arm') keyframe 1 is not finite"
        );
        let mut c = clip();
        c.tracks[0].keyframes[2].rotation = [0.0; 4];
        assert!(matches!(
            AnimationClip::bind(&s, &c),
            Err(BindError::ZeroRotation { frame: 2, .. })
        ));
        let mut c = clip();
        c.frame_count = 0;
        assert!(matches!(
            AnimationClip::bind(&s, &c),
            Err(BindError::NoFrames { .. })
        ));
        let mut c = clip();
        c.frame_rate = -30.0;
        assert!(matches!(
            AnimationClip::bind(&s, &c),
            Err(BindError::FrameRate { .. })
        ));
        let mut c = clip();
        c.frame_count = u32::MAX;
        assert!(matches!(
            AnimationClip::bind(&s, &c),
            Err(BindError::TooLong { .. })
        ));
        let mut c = clip();
        c.tracks.push(Track {
            bone_name: "tail".into(),
            keyframes: vec![],
        });
        c.tracks[0].keyframes[0].rotation = [0.0, 0.0, 0.0, 2.0];
        let (bound, w) = AnimationClip::bind(&s, &c).unwrap();
        let codes: Vec<&str> = w.iter().map(BindWarning::code).collect();
        assert_eq!(
            codes,
            [
                crate::codes::TRACK_IGNORED,
                crate::codes::NO_TRACK,
                crate::codes::ROTATION_NORMALISED
            ]
        );
        assert_eq!(
            w[0].to_string(),
            "clip 'wave': 1 track(s) name no bone of the skeleton (or a bone that already has one) and are ignored: tail"
        );
        assert_eq!(
            w[2].to_string(),
            "clip 'wave': 1 rotation(s) were not unit quaternions; normalised"
        );
        assert_eq!(bound.frame(0).unwrap().1[1], Quat::IDENTITY);
        let other = Skeleton::new(
            &[Bone {
                index: 0,
                parent: -1,
                name: "x".into(),
                transform: Mat4::IDENTITY.to_cols_array(),
            }],
            &[None],
        )
        .unwrap();
        let mut pose = Pose::new(&other);
        assert!(bound.sample(0.0, Wrap::Clamp, &mut pose).is_err());
    }
}
