// Compute skinning: one invocation per (vertex, frame sample). Reads the `.mesh` vertices as
// they are stored (76 bytes: position 3, uv 2, normal 3, tangent 3, blend indices 4, blend
// weights 4 floats) and writes the skinned position, normal and tangent (9 floats) of every
// vertex for every frame sample: `out[(sample * vertex_count + vertex) * 9 ..]`.
// `mul(pos, transform)` with the position's w = 1; the normal and tangent by the upper 3×3 of
// the transform (`(float3x3)transform`), not normalised, as the reference's vertex shader.

struct Params {
    vertex_count: u32,
    sample_count: u32,
    _pad0: u32,
    _pad1: u32,
}

@group(0) @binding(0) var transform_map: texture_2d_array<f32>;
@group(0) @binding(1) var<uniform> bone_layout: BoneLayout;
@group(0) @binding(2) var<uniform> params: Params;
@group(0) @binding(3) var<storage, read> vertices: array<f32>;
@group(0) @binding(4) var<storage, read> samples: array<Frame>;
@group(0) @binding(5) var<storage, read_write> skinned: array<f32>;

const VERTEX_FLOATS: u32 = 19u;

struct SkinVertex {
    position: vec3<f32>,
    normal: vec3<f32>,
    tangent: vec3<f32>,
    indices: vec4<f32>,
    weights: vec4<f32>,
}

fn load_vertex(v: u32) -> SkinVertex {
    let a = v * VERTEX_FLOATS;
    return SkinVertex(
        vec3<f32>(vertices[a], vertices[a + 1u], vertices[a + 2u]),
        vec3<f32>(vertices[a + 5u], vertices[a + 6u], vertices[a + 7u]),
        vec3<f32>(vertices[a + 8u], vertices[a + 9u], vertices[a + 10u]),
        vec4<f32>(vertices[a + 11u], vertices[a + 12u], vertices[a + 13u], vertices[a + 14u]),
        vec4<f32>(vertices[a + 15u], vertices[a + 16u], vertices[a + 17u], vertices[a + 18u]),
    );
}

fn skin_and_store(x: SkinVertex, v: u32, s: u32) {
    let transform = skin_world(x.indices, x.weights, samples[s]);
    let p = transform * vec4<f32>(x.position, 1.0);
    let n = transform * vec4<f32>(x.normal, 0.0);
    let t = transform * vec4<f32>(x.tangent, 0.0);

    let o = (s * params.vertex_count + v) * 9u;
    skinned[o] = p.x;
    skinned[o + 1u] = p.y;
    skinned[o + 2u] = p.z;
    skinned[o + 3u] = n.x;
    skinned[o + 4u] = n.y;
    skinned[o + 5u] = n.z;
    skinned[o + 6u] = t.x;
    skinned[o + 7u] = t.y;
    skinned[o + 8u] = t.z;
}

@compute @workgroup_size(64)
fn skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let s = id.y;
    if v >= params.vertex_count || s >= params.sample_count {
        return;
    }
    skin_and_store(load_vertex(v), v, s);
}

// --- Morph targets, then skinning (`skin_morph`) -------------------------------------------
// What kiln_anim::morph_and_skin does, reading the weights an engine reads: the baked weight
// texture (one R32F texel per target and frame, one layer per clip; kiln_anim::weights) at the
// sample's current and next frame, lerped as the bone texels are, then each shape's in-between
// weight (kiln_anim::shape_weights, in f32), then `position += w × delta` (and the normal) over
// the vertex's entries, in the CPU's order (target by target, shapes ascending). The normals of
// a part with targets are renormalised before skinning, touched or not, as on the CPU.

// One shape: its target's column in the weight texture, and its target's shapes (first, count)
// by full weight.
struct MorphShape {
    column: u32,
    first: u32,
    count: u32,
    full_weight: f32,
}

@group(0) @binding(6) var weight_map: texture_2d_array<f32>;
@group(0) @binding(7) var<storage, read> morph_shapes: array<MorphShape>;
// Per vertex of the chunk: its first entry and its entry count, bit 31 set when its normal is
// renormalised (its part has targets).
@group(0) @binding(8) var<storage, read> morph_ranges: array<vec2<u32>>;
// Eight words per entry: the shape, the position delta, the normal delta (f32 bits), padding.
@group(0) @binding(9) var<storage, read> morph_entries: array<u32>;
// Per sample: the Frame with the clip's index over the whole bake (the weight texture is never
// split into pages).
@group(0) @binding(10) var<storage, read> morph_frames: array<Frame>;

const RENORMALISE: u32 = 0x80000000u;

fn target_weight(column: u32, f: Frame) -> f32 {
    let cur = textureLoad(weight_map, vec2<u32>(column, u32(f.cur_frame)), f.clip, 0).r;
    let next = textureLoad(weight_map, vec2<u32>(column, u32(f.next_frame)), f.clip, 0).r;
    return cur + (next - cur) * f.time;
}

fn full_weight(i: u32) -> f32 {
    return morph_shapes[i].full_weight;
}

// kiln_anim::shape_weights for shape `s` at channel weight `weight`: the segment of the keys
// (an implicit 0 key, then each shape at its full weight) that brackets the weight, walking
// away from 0 on its side, extended past the ends; -1 stands for the 0 key.
fn shape_weight(s: u32, weight: f32) -> f32 {
    let first = morph_shapes[s].first;
    let n = morph_shapes[s].count;
    if n == 0u || weight != weight {
        return 0.0;
    }
    // One past the last negative key.
    var split = 0u;
    for (var i = 0u; i < n; i++) {
        if full_weight(first + i) < 0.0 {
            split = i + 1u;
        }
    }
    var a = -1;
    var b = -1;
    if weight > 0.0 {
        if split == n {
            a = i32(n) - 1;
        } else {
            var j = n - 1u;
            for (var i = split; i < n; i++) {
                if full_weight(first + i) > weight {
                    j = i;
                    break;
                }
            }
            if j > split {
                a = i32(j) - 1;
            }
            b = i32(j);
        }
    } else if split == 0u {
        a = 0;
    } else {
        var j = 0u;
        for (var i = i32(split) - 1; i >= 0; i--) {
            if full_weight(first + u32(i)) < weight {
                j = u32(i);
                break;
            }
        }
        if j + 1u < split {
            a = i32(j) + 1;
        }
        b = i32(j);
    }
    let ka = select(0.0, full_weight(first + u32(max(a, 0))), a >= 0);
    let kb = select(0.0, full_weight(first + u32(max(b, 0))), b >= 0);
    let delta = kb - ka;
    if delta == 0.0 {
        return 0.0;
    }
    let t = (weight - ka) / delta;
    let local = i32(s - first);
    var w = 0.0;
    if a == local {
        w = 1.0 - t;
    }
    if b == local {
        w = t;
    }
    return w;
}

@compute @workgroup_size(64)
fn skin_morph(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let s = id.y;
    if v >= params.vertex_count || s >= params.sample_count {
        return;
    }
    var x = load_vertex(v);
    let f = morph_frames[s];
    let range = morph_ranges[v];
    let count = range.y & ~RENORMALISE;
    for (var k = 0u; k < count; k++) {
        let e = (range.x + k) * 8u;
        let shape = morph_entries[e];
        let w = shape_weight(shape, target_weight(morph_shapes[shape].column, f));
        if w != 0.0 {
            x.position += w * bitcast<vec3<f32>>(
                vec3<u32>(morph_entries[e + 1u], morph_entries[e + 2u], morph_entries[e + 3u]),
            );
            x.normal += w * bitcast<vec3<f32>>(
                vec3<u32>(morph_entries[e + 4u], morph_entries[e + 5u], morph_entries[e + 6u]),
            );
        }
    }
    if (range.y & RENORMALISE) != 0u {
        let len2 = dot(x.normal, x.normal);
        if len2 > 0.0 && len2 <= 3.4028235e38 {
            x.normal = x.normal / sqrt(len2);
        }
    }
    skin_and_store(x, v, s);
}
