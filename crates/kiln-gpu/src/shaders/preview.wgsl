// The preview: skinned in the vertex shader with the same `SkinWorld` (a second GPU path beside
// the compute skinning), then Lambert-shaded with the material's diffuse colour, times its
// texture when it has one. preview.rs rasterises the same formulas on the CPU as the reference.
//
// Position: `transform * (p, 1)`, w dropped (kiln-anim's CPU skinning keeps xyz), then the
// camera's view-projection. Normal: the upper 3×3 of the transform, normalised per fragment.
// Light: two-sided, `ambient + (1 - ambient) · |n · l|`. Texture: the texel under `fract(uv)`
// (nearest, repeating; texel row 0 at v = 0), read with textureLoad so that the CPU reference
// can pick the same texel.

struct Tile {
    view_proj: mat4x4<f32>,
    // xyz: unit vector towards the light; w: ambient term.
    light: vec4<f32>,
    frame: Frame,
}

struct Material {
    diffuse: vec4<f32>,
    // x: 1 when the texture is used.
    flags: vec4<u32>,
}

@group(0) @binding(0) var transform_map: texture_2d_array<f32>;
@group(0) @binding(1) var<uniform> bone_layout: BoneLayout;
@group(0) @binding(2) var<uniform> tile: Tile;
@group(1) @binding(0) var<uniform> material: Material;
@group(1) @binding(1) var diffuse_map: texture_2d<f32>;

struct VertexIn {
    @location(0) position: vec3<f32>,
    @location(1) uv: vec2<f32>,
    @location(2) normal: vec3<f32>,
    @location(3) indices: vec4<f32>,
    @location(4) weights: vec4<f32>,
}

struct VertexOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) normal: vec3<f32>,
    @location(1) uv: vec2<f32>,
}

@vertex
fn vs(v: VertexIn) -> VertexOut {
    let transform = skin_world(v.indices, v.weights, tile.frame);
    let world = transform * vec4<f32>(v.position, 1.0);
    var out: VertexOut;
    out.clip = tile.view_proj * vec4<f32>(world.xyz, 1.0);
    out.normal = (transform * vec4<f32>(v.normal, 0.0)).xyz;
    out.uv = v.uv;
    return out;
}

@fragment
fn fs(f: VertexOut) -> @location(0) vec4<f32> {
    let len = length(f.normal);
    var lambert = 1.0;
    if len > 1e-20 {
        lambert = abs(dot(f.normal / len, tile.light.xyz));
    }
    var base = material.diffuse.rgb;
    if material.flags.x == 1u {
        let size = vec2<f32>(textureDimensions(diffuse_map));
        let st = clamp(floor(fract(f.uv) * size), vec2<f32>(0.0), size - vec2<f32>(1.0));
        base = base * textureLoad(diffuse_map, vec2<i32>(st), 0).rgb;
    }
    let ambient = tile.light.w;
    return vec4<f32>(clamp(base * (ambient + (1.0 - ambient) * lambert), vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);
}
