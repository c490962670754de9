//! `read_clip` on any bytes: never panics, and what it accepts writes back byte for byte. A clip
//! it accepts is then bound to a skeleton made of its own track names, sampled and baked:
//! binding rejects or repairs bad keyframes, and nothing after it panics.
#![no_main]

use kiln_anim::bake::{BakeOptions, bake};
use kiln_anim::sample::{AnimationClip, Wrap};
use kiln_anim::skeleton::{Pose, Skeleton};
use kiln_format::classic::{read_clip, write_clip};
use kiln_format::{Bone, IDENTITY};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Ok(clip) = read_clip(data) {
        let bytes = write_clip(&clip);
        assert_eq!(bytes, data, "write(read(x)) != x");
        let again = read_clip(&bytes).expect("re-reading a written clip failed");
        assert_eq!(write_clip(&again), bytes);

        // A chain of bones named after the tracks (plus one without a track).
        let mut bones: Vec<Bone> = clip
            .tracks
            .iter()
            .take(64)
            .enumerate()
            .map(|(i, t)| Bone {
                index: i as i32,
                parent: i as i32 - 1,
                name: t.bone_name.clone(),
                transform: IDENTITY,
            })
            .collect();
        bones.push(Bone {
            index: bones.len() as i32,
            parent: -1,
            name: "untracked".into(),
            transform: IDENTITY,
        });
        let offsets = vec![None; bones.len()];
        let skeleton = Skeleton::new(&bones, &offsets).expect("a chain is a valid skeleton");
        if let Ok((bound, _)) = AnimationClip::bind_with_limit(&skeleton, &clip, 100_000) {
            let mut pose = Pose::new(&skeleton);
            for t in [clip.duration, clip.frame_rate, -1.5, 0.25, f32::NAN, 1e30] {
                for wrap in [Wrap::Clamp, Wrap::Loop] {
                    bound
                        .evaluate(&skeleton, t, wrap, &mut pose)
                        .expect("pose fits");
                }
            }
            let options = BakeOptions {
                max_frames: 256,
                ..BakeOptions::default()
            };
            let _ = bake(&skeleton, std::slice::from_ref(&bound), &options);
        }
    }
});
