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

@compute @workgroup_size(64)
fn skin(@builtin(global_invocation_id) id: vec3<u32>) {
    let v = id.x;
    let s = id.y;
    if v >= params.vertex_count || s >= params.sample_count {
        return;
    }
    let a = v * VERTEX_FLOATS;
    let position = vec3<f32>(vertices[a], vertices[a + 1u], vertices[a + 2u]);
    let normal = vec3<f32>(vertices[a + 5u], vertices[a + 6u], vertices[a + 7u]);
    let tangent = vec3<f32>(vertices[a + 8u], vertices[a + 9u], vertices[a + 10u]);
    let indices = vec4<f32>(vertices[a + 11u], vertices[a + 12u], vertices[a + 13u], vertices[a + 14u]);
    let weights = vec4<f32>(vertices[a + 15u], vertices[a + 16u], vertices[a + 17u], vertices[a + 18u]);

    let transform = skin_world(indices, weights, samples[s]);
    let p = transform * vec4<f32>(position, 1.0);
    let n = transform * vec4<f32>(normal, 0.0);
    let t = transform * vec4<f32>(tangent, 0.0);

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
