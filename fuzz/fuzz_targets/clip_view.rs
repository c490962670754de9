//! `ClipView::parse` on any bytes: never panics; every frame slice it offers is in bounds, and
//! what it accepts re-encodes to a file that parses to the same clip, bit for bit.
#![no_main]

use kiln_format::Keyframe;
use kiln_format::kiln::{AlignedBytes, ClipView, write_clip};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = AlignedBytes::from_bytes(data);
    let Ok(view) = ClipView::parse(&bytes) else {
        return;
    };
    let _ = view.verify_checksum();
    let _ = view.sections().count();
    for f in 0..view.frame_count() {
        let frame = view.frame(f).expect("every frame is in bounds");
        assert_eq!(frame.len(), view.track_count() as usize);
    }
    assert!(view.frame(view.frame_count()).is_none() || view.track_count() == 0);
    let clip = view.to_clip();
    let again = write_clip(&clip).expect("a parsed clip must be writable");
    let again = AlignedBytes::from_bytes(&again);
    let view2 = ClipView::parse(&again).expect("a written clip must parse");
    let clip2 = view2.to_clip();
    assert_eq!(clip2.name, clip.name);
    assert_eq!(clip2.tracks.len(), clip.tracks.len());
    for (a, b) in clip.tracks.iter().zip(&clip2.tracks) {
        assert_eq!(a.bone_name, b.bone_name);
        assert_eq!(
            bytemuck::cast_slice::<Keyframe, u8>(&a.keyframes),
            bytemuck::cast_slice::<Keyframe, u8>(&b.keyframes)
        );
    }
});
