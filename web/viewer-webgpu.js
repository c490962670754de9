// The same viewer on WebGPU, where the browser has it: the vertices as the .mesh stores them,
// skinned in the vertex shader from the baked bone-matrix texture (read with textureLoad, so
// the Rgba32Float texture needs no filtering) with the reference's lerp between frames, and
// kiln preview's camera, light and shading (viewer.js holds them, and the WebGL2 twin of these
// shaders). `GpuViewer.create(canvas, data)` draws into a canvas; `GpuViewer.create(null,
// data)` draws off screen only, for `pixels`.
import { AMBIENT, BACKGROUND, frameCamera, VERTEX_FLOATS } from "./viewer.js";

const WGSL = /* wgsl */ `
struct Frame {
  viewProj: mat4x4<f32>,
  light: vec3<f32>,
  ambient: f32,
  frame: vec3<i32>, // clip, current frame, next frame
  time: f32,
  boneCount: i32,
};
struct Part { diffuse: vec4<f32> };
@group(0) @binding(0) var<uniform> u: Frame;
@group(0) @binding(1) var bones: texture_2d_array<f32>;
@group(1) @binding(0) var<uniform> part: Part;

// Texel r of bone b at frame f is row r of its row-vector matrix: column r here, so
// transform * v is the HLSL's mul(v, M).
fn boneMatrix(index: f32, f: i32) -> mat4x4<f32> {
  if (!(index >= 0.0) || index >= f32(u.boneCount)) { return mat4x4<f32>(); }
  let x = 4 * i32(index);
  let c = u.frame.x;
  return mat4x4<f32>(textureLoad(bones, vec2<i32>(x, f), c, 0),
                     textureLoad(bones, vec2<i32>(x + 1, f), c, 0),
                     textureLoad(bones, vec2<i32>(x + 2, f), c, 0),
                     textureLoad(bones, vec2<i32>(x + 3, f), c, 0));
}

struct Varyings { @builtin(position) position: vec4<f32>, @location(0) normal: vec3<f32> };

@vertex fn vs(@location(0) position: vec3<f32>, @location(1) normal: vec3<f32>,
              @location(2) indices: vec4<f32>, @location(3) weights: vec4<f32>) -> Varyings {
  var transform = mat4x4<f32>();
  for (var i = 0; i < 4; i++) {
    let cur = boneMatrix(indices[i], u.frame.y);
    let next = boneMatrix(indices[i], u.frame.z);
    transform += (cur + (next - cur) * u.time) * weights[i];
  }
  let world = transform * vec4<f32>(position, 1.0);
  var out: Varyings;
  out.position = u.viewProj * vec4<f32>(world.xyz, 1.0);
  out.normal = (transform * vec4<f32>(normal, 0.0)).xyz;
  return out;
}

@fragment fn fs(in: Varyings) -> @location(0) vec4<f32> {
  let len = length(in.normal);
  var lambert = 1.0;
  if (len > 1e-20) { lambert = abs(dot(in.normal / len, u.light)); }
  let c = part.diffuse.rgb * (u.ambient + (1.0 - u.ambient) * lambert);
  return vec4<f32>(clamp(c, vec3<f32>(0.0), vec3<f32>(1.0)), 1.0);
}`;

// Frame uniform: viewProj at 0, light at 64, ambient at 76, frame at 80, time at 92,
// boneCount at 96; the struct rounds up to 112.
const FRAME_BYTES = 112;

export class GpuViewer {
  /// Resolves with a viewer of `data` (what the wasm package's `view` returns) drawing into
  /// `canvas`, or off screen when `canvas` is null; rejects where WebGPU, an adapter, or the
  /// limits the bake needs are missing (the caller falls back to WebGL2).
  static async create(canvas, data) {
    if (!globalThis.navigator?.gpu) throw new Error("WebGPU is not available");
    const adapter = await navigator.gpu.requestAdapter();
    if (!adapter) throw new Error("WebGPU has no adapter");
    const b = data.bake;
    const limits = adapter.limits;
    if (b.width > limits.maxTextureDimension2D || b.height > limits.maxTextureDimension2D
      || b.layers > limits.maxTextureArrayLayers) {
      throw new Error(`the bone-matrix texture (${b.width}×${b.height}×${b.layers}) exceeds this adapter's limits`);
    }
    const device = await adapter.requestDevice();
    return new GpuViewer(canvas, data, device);
  }

  constructor(canvas, data, device) {
    this.kind = "WebGPU";
    this.data = data;
    this.device = device;
    this.pipelines = new Map();
    this.destroyed = false;
    // Resolves when the device goes: destroyed here, or lost (a driver reset, a browser that
    // cannot present the canvas), when the page falls back to WebGL2.
    this.lost = device.lost;
    if (canvas) {
      this.canvas = canvas;
      this.format = navigator.gpu.getPreferredCanvasFormat();
      this.context = canvas.getContext("webgpu");
      if (!this.context) throw new Error("the canvas gives no WebGPU context");
      this.context.configure({ device, format: this.format, alphaMode: "opaque" });
    }
    const b = data.bake;
    this.texture = device.createTexture({
      size: [b.width, b.height, b.layers],
      format: "rgba32float",
      usage: GPUTextureUsage.TEXTURE_BINDING | GPUTextureUsage.COPY_DST,
    });
    device.queue.writeTexture({ texture: this.texture }, b.texels,
      { bytesPerRow: b.width * 16, rowsPerImage: b.height }, [b.width, b.height, b.layers]);
    this.module = device.createShaderModule({ code: WGSL });
    this.frameLayout = device.createBindGroupLayout({ entries: [
      { binding: 0, visibility: GPUShaderStage.VERTEX | GPUShaderStage.FRAGMENT, buffer: {} },
      { binding: 1, visibility: GPUShaderStage.VERTEX, texture: { sampleType: "unfilterable-float", viewDimension: "2d-array" } },
    ] });
    this.partLayout = device.createBindGroupLayout({ entries: [
      { binding: 0, visibility: GPUShaderStage.FRAGMENT, buffer: {} },
    ] });
    this.layout = device.createPipelineLayout({ bindGroupLayouts: [this.frameLayout, this.partLayout] });
    this.frameBuffer = device.createBuffer({ size: FRAME_BYTES, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    this.frameBytes = new ArrayBuffer(FRAME_BYTES);
    this.frameGroup = device.createBindGroup({ layout: this.frameLayout, entries: [
      { binding: 0, resource: { buffer: this.frameBuffer } },
      { binding: 1, resource: this.texture.createView({ dimension: "2d-array" }) },
    ] });
    const upload = (array, usage) => {
      // writeBuffer wants a multiple of 4 bytes: both arrays are 32-bit.
      const buffer = device.createBuffer({ size: Math.max(array.byteLength, 4), usage: usage | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(buffer, 0, array);
      return buffer;
    };
    this.parts = data.parts.map((p) => {
      const diffuse = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(diffuse, 0, new Float32Array([...p.diffuse.slice(0, 3), 1]));
      return {
        vertices: upload(p.vertices, GPUBufferUsage.VERTEX),
        indices: upload(p.indices, GPUBufferUsage.INDEX),
        count: p.indices.length,
        group: device.createBindGroup({ layout: this.partLayout, entries: [{ binding: 0, resource: { buffer: diffuse } }] }),
      };
    });
    this.camera = frameCamera(data.bounds.min, data.bounds.max);
    this.depth = null;
  }

  /// Frames of clip `clip` (1 for the bind pose of a model without clips).
  frames(clip) {
    return this.data.bake.frameCounts[clip] ?? 1;
  }

  pipeline(format) {
    let p = this.pipelines.get(format);
    if (!p) {
      const stride = VERTEX_FLOATS * 4;
      p = this.device.createRenderPipeline({
        layout: this.layout,
        vertex: {
          module: this.module,
          entryPoint: "vs",
          buffers: [{ arrayStride: stride, attributes: [
            { shaderLocation: 0, offset: 0, format: "float32x3" },
            { shaderLocation: 1, offset: 20, format: "float32x3" },
            { shaderLocation: 2, offset: 44, format: "float32x4" },
            { shaderLocation: 3, offset: 60, format: "float32x4" },
          ] }],
        },
        fragment: { module: this.module, entryPoint: "fs", targets: [{ format }] },
        primitive: { topology: "triangle-list", cullMode: "none" },
        depthStencil: { format: "depth24plus", depthWriteEnabled: true, depthCompare: "less" },
      });
      this.pipelines.set(format, p);
    }
    return p;
  }

  depthView(width, height) {
    if (!this.depth || this.depth.width !== width || this.depth.height !== height) {
      this.depth?.destroy();
      this.depth = this.device.createTexture({ size: [width, height], format: "depth24plus", usage: GPUTextureUsage.RENDER_ATTACHMENT });
    }
    return this.depth.createView();
  }

  /// Records the draw of clip `clip` at frame position `t` into `target` (a texture of
  /// `format`) on `encoder`.
  encode(encoder, target, format, clip, t) {
    const n = this.frames(clip);
    const cur = Math.min(Math.floor(t), n - 1);
    const next = Math.min(cur + 1, n - 1);
    const f = new Float32Array(this.frameBytes);
    const i = new Int32Array(this.frameBytes);
    f.set(this.camera.viewProj, 0);
    f.set(this.camera.light, 16);
    f[19] = AMBIENT;
    i.set([clip, cur, next], 20);
    f[23] = t - cur;
    i[24] = this.data.bake.boneCount;
    this.device.queue.writeBuffer(this.frameBuffer, 0, this.frameBytes);
    const pass = encoder.beginRenderPass({
      colorAttachments: [{ view: target.createView(), clearValue: [...BACKGROUND, 1], loadOp: "clear", storeOp: "store" }],
      depthStencilAttachment: { view: this.depthView(target.width, target.height), depthClearValue: 1, depthLoadOp: "clear", depthStoreOp: "discard" },
    });
    pass.setPipeline(this.pipeline(format));
    pass.setBindGroup(0, this.frameGroup);
    for (const p of this.parts) {
      pass.setBindGroup(1, p.group);
      pass.setVertexBuffer(0, p.vertices);
      pass.setIndexBuffer(p.indices, "uint32");
      pass.drawIndexed(p.count);
    }
    pass.end();
  }

  /// Draws clip `clip` at frame position `t` (0 ≤ t ≤ frames - 1; between frames, lerped) into
  /// the canvas.
  draw(clip, t) {
    if (!this.context) return;
    const encoder = this.device.createCommandEncoder();
    this.encode(encoder, this.context.getCurrentTexture(), this.format, clip, t);
    this.device.queue.submit([encoder.finish()]);
  }

  /// Resolves with the RGBA pixels (rows top down) of clip `clip` at `t`, drawn off screen at
  /// width × height.
  async pixels(clip, t, width, height) {
    const device = this.device;
    const target = device.createTexture({ size: [width, height], format: "rgba8unorm",
      usage: GPUTextureUsage.RENDER_ATTACHMENT | GPUTextureUsage.COPY_SRC });
    const row = Math.ceil((width * 4) / 256) * 256; // copies want rows of a multiple of 256 bytes
    const buffer = device.createBuffer({ size: row * height, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
    const encoder = device.createCommandEncoder();
    this.encode(encoder, target, "rgba8unorm", clip, t);
    encoder.copyTextureToBuffer({ texture: target }, { buffer, bytesPerRow: row }, [width, height]);
    device.queue.submit([encoder.finish()]);
    await buffer.mapAsync(GPUMapMode.READ);
    const mapped = new Uint8Array(buffer.getMappedRange());
    const out = new Uint8Array(width * height * 4);
    for (let y = 0; y < height; y++) out.set(mapped.subarray(y * row, y * row + width * 4), y * width * 4);
    buffer.unmap();
    buffer.destroy();
    target.destroy();
    return out;
  }

  /// Frees the GPU resources; `lost` then resolves, with `destroyed` set.
  destroy() {
    this.destroyed = true;
    this.device.destroy();
  }
}
