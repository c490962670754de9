// Reference 002's HLSL `SkinWorld`, in WGSL, shared by the compute skinning (skin.wgsl) and the
// preview's vertex shader (preview.wgsl).
//
// The HLSL:
//   for i in 0..4:
//     cur  = matrix(Load(int4(indices[i] * 4 + 0..3, curFrame, clip, 0)))
//     next = matrix(Load(int4(indices[i] * 4 + 0..3, nextFrame, clip, 0)))
//     transform += weights[i] * lerp(cur, next, time)
// Texel r of a bone is row r of its row-vector matrix, which is column r of the same matrix in
// WGSL's column-vector convention: `mat4x4(row0, row1, row2, row3) * v` is the HLSL's
// `mul(v, matrix(row0, row1, row2, row3))`.
//
// Differences that only matter for data kiln never writes, each as kiln-anim's CPU skinning
// does it: Direct3D's Load returns zero outside the texture and WGSL leaves that undefined, so a
// blend index that is negative, NaN or not below the bone count reads a zero matrix explicitly;
// a fractional index is truncated before it is multiplied by 4 (the HLSL truncates `index * 4 +
// r`, which reads a misaligned matrix).

// The HLSL `cbuffer FrameBuffer`: clip, curFrame, nextFrame, time.
struct Frame {
    clip: i32,
    cur_frame: i32,
    next_frame: i32,
    time: f32,
}

// Where texels live when the bake had to be split (see layout.rs); all 1 except
// bones_per_row = bones and frames_per_layer = frames when it did not.
struct BoneLayout {
    bones: u32,
    bones_per_row: u32,
    rows_per_frame: u32,
    frames_per_layer: u32,
    layers_per_clip: u32,
    _pad0: u32,
    _pad1: u32,
    _pad2: u32,
}

fn load_texel(bone: u32, r: u32, frame: i32, clip: i32) -> vec4<f32> {
    let f = u32(frame);
    let x = 4u * (bone % bone_layout.bones_per_row) + r;
    let y = (f % bone_layout.frames_per_layer) * bone_layout.rows_per_frame
        + bone / bone_layout.bones_per_row;
    let layer = u32(clip) * bone_layout.layers_per_clip + f / bone_layout.frames_per_layer;
    return textureLoad(transform_map, vec2<u32>(x, y), layer, 0);
}

fn bone_matrix(index: f32, frame: i32, clip: i32) -> mat4x4<f32> {
    if !(index >= 0.0) || index >= f32(bone_layout.bones) {
        return mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    }
    let b = u32(index);
    return mat4x4<f32>(
        load_texel(b, 0u, frame, clip),
        load_texel(b, 1u, frame, clip),
        load_texel(b, 2u, frame, clip),
        load_texel(b, 3u, frame, clip),
    );
}

fn skin_world(indices: vec4<f32>, weights: vec4<f32>, frame: Frame) -> mat4x4<f32> {
    var transform = mat4x4<f32>(vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0), vec4<f32>(0.0));
    for (var i = 0; i < 4; i++) {
        let cur = bone_matrix(indices[i], frame.cur_frame, frame.clip);
        let next = bone_matrix(indices[i], frame.next_frame, frame.clip);
        // HLSL lerp(x, y, s) = x + s * (y - x) (not WGSL's mix, which rounds differently).
        let anim = cur + (next - cur) * frame.time;
        transform += anim * weights[i];
    }
    return transform;
}
