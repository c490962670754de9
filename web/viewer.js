// The model drawn the way the engine draws it: the vertices as the .mesh stores them (76
// bytes: position, uv, normal, tangent, blend indices, blend weights), skinned in the vertex
// shader from the baked bone-matrix texture (`kiln bake`'s layout, docs/animation.md) with the
// reference HLSL's lerp between the current and the next frame, Lambert-shaded with each
// part's diffuse colour. Camera, light and shading are `kiln preview`'s
// (crates/kiln-gpu/src/preview.rs): the box of the model framed from the front (-Z), a little
// from the right and above, a 40° field of view, the light from above the camera, both sides
// lit, ambient 0.25, on its dark grey. WebGL2, so that it runs everywhere; viewer-webgpu.js is
// the same on WebGPU.

const VS = `#version 300 es
precision highp float;
precision highp int;
precision highp sampler2DArray;
layout(location = 0) in vec3 position;
layout(location = 1) in vec3 normal;
layout(location = 2) in vec4 indices;
layout(location = 3) in vec4 weights;
uniform sampler2DArray bones;
uniform int boneCount;
uniform ivec3 frame; // clip, current frame, next frame
uniform float time;
uniform mat4 viewProj;
out vec3 vNormal;

// Texel r of bone b at frame f is row r of its row-vector matrix: column r of the same matrix
// here (GLSL's mat4(a, b, c, d) takes columns), so transform * v is the HLSL's mul(v, M).
mat4 boneMatrix(float index, int f) {
  if (!(index >= 0.0) || index >= float(boneCount)) return mat4(0.0);
  int x = 4 * int(index);
  return mat4(texelFetch(bones, ivec3(x, f, frame.x), 0),
              texelFetch(bones, ivec3(x + 1, f, frame.x), 0),
              texelFetch(bones, ivec3(x + 2, f, frame.x), 0),
              texelFetch(bones, ivec3(x + 3, f, frame.x), 0));
}

void main() {
  mat4 transform = mat4(0.0);
  for (int i = 0; i < 4; i++) {
    mat4 cur = boneMatrix(indices[i], frame.y);
    mat4 next = boneMatrix(indices[i], frame.z);
    transform += (cur + (next - cur) * time) * weights[i];
  }
  vec4 world = transform * vec4(position, 1.0);
  vNormal = (transform * vec4(normal, 0.0)).xyz;
  gl_Position = viewProj * vec4(world.xyz, 1.0);
}`;

const FS = `#version 300 es
precision highp float;
in vec3 vNormal;
uniform vec3 light;
uniform vec3 diffuse;
uniform float ambient;
out vec4 color;
void main() {
  float len = length(vNormal);
  float lambert = len > 1e-20 ? abs(dot(vNormal / len, light)) : 1.0;
  color = vec4(clamp(diffuse * (ambient + (1.0 - ambient) * lambert), 0.0, 1.0), 1.0);
}`;

export const BACKGROUND = [38 / 255, 40 / 255, 46 / 255];
export const AMBIENT = 0.25;
/// Floats per vertex in `view`'s parts (the .mesh's 76 bytes).
export const VERTEX_FLOATS = 19;

const sub = (a, b) => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
const dot = (a, b) => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
const cross = (a, b) => [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
const unit = (a) => { const l = Math.hypot(...a); return [a[0] / l, a[1] / l, a[2] / l]; };

/// kiln preview's camera for the box lo..hi: view-projection (column-major, Direct3D's
/// left-handed look-at and perspective) and the light direction.
export function frameCamera(lo, hi) {
  const ok = lo.every(Number.isFinite) && hi.every(Number.isFinite) && lo.every((v, i) => v <= hi[i]);
  if (!ok) { lo = [-1, -1, -1]; hi = [1, 1, 1]; }
  const center = lo.map((v, i) => (v + hi[i]) / 2);
  const radius = Math.max(Math.hypot(...sub(hi, lo)) / 2, 1e-6);
  const fov = (40 * Math.PI) / 180;
  const distance = (radius / Math.sin(fov / 2)) * 1.05;
  const dir = unit([0.55, 0.4, -1.0]);
  const eye = center.map((c, i) => c + dir[i] * distance);
  const f = unit(sub(center, eye));
  const s = unit(cross([0, 1, 0], f));
  const u = cross(f, s);
  const view = [s[0], u[0], f[0], 0, s[1], u[1], f[1], 0, s[2], u[2], f[2], 0,
    -dot(s, eye), -dot(u, eye), -dot(f, eye), 1];
  const near = Math.max(distance - radius * 1.1, distance * 1e-3);
  const far = distance + radius * 1.1;
  const h = 1 / Math.tan(fov / 2);
  const r = far / (far - near);
  const proj = [h, 0, 0, 0, 0, h, 0, 0, 0, 0, r, 1, 0, 0, -r * near, 0];
  const viewProj = new Float32Array(16);
  for (let c = 0; c < 4; c++) {
    for (let row = 0; row < 4; row++) {
      let v = 0;
      for (let k = 0; k < 4; k++) v += proj[k * 4 + row] * view[c * 4 + k];
      viewProj[c * 4 + row] = v;
    }
  }
  const light = unit([dir[0] - 0.3, dir[1] + 0.9, dir[2]]);
  return { viewProj, light };
}

export class Viewer {
  /// canvas: a <canvas>; data: what the wasm package's `view` returns.
  constructor(canvas, data) {
    const gl = canvas.getContext("webgl2", { antialias: false, preserveDrawingBuffer: true });
    if (!gl) throw new Error("WebGL2 is not available");
    this.kind = "WebGL2";
    this.gl = gl;
    this.data = data;
    this.program = link(gl, VS, FS);
    // Uniform locations, looked up once (draw runs every animation frame).
    this.u = Object.fromEntries(
      ["bones", "boneCount", "frame", "time", "viewProj", "light", "diffuse", "ambient"]
        .map((n) => [n, gl.getUniformLocation(this.program, n)]));
    const b = data.bake;
    this.texture = gl.createTexture();
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.texture);
    for (const p of [gl.TEXTURE_MIN_FILTER, gl.TEXTURE_MAG_FILTER]) gl.texParameteri(gl.TEXTURE_2D_ARRAY, p, gl.NEAREST);
    gl.texImage3D(gl.TEXTURE_2D_ARRAY, 0, gl.RGBA32F, b.width, b.height, b.layers, 0, gl.RGBA, gl.FLOAT, b.texels);
    this.parts = data.parts.map((p) => {
      const vao = gl.createVertexArray();
      gl.bindVertexArray(vao);
      const vbo = gl.createBuffer();
      gl.bindBuffer(gl.ARRAY_BUFFER, vbo);
      gl.bufferData(gl.ARRAY_BUFFER, p.vertices, gl.STATIC_DRAW);
      const attr = (loc, size, offset) => {
        gl.enableVertexAttribArray(loc);
        gl.vertexAttribPointer(loc, size, gl.FLOAT, false, VERTEX_FLOATS * 4, offset);
      };
      attr(0, 3, 0);
      attr(1, 3, 20);
      attr(2, 4, 44);
      attr(3, 4, 60);
      const ibo = gl.createBuffer();
      gl.bindBuffer(gl.ELEMENT_ARRAY_BUFFER, ibo);
      gl.bufferData(gl.ELEMENT_ARRAY_BUFFER, p.indices, gl.STATIC_DRAW);
      gl.bindVertexArray(null);
      return { vao, count: p.indices.length, diffuse: p.diffuse.slice(0, 3) };
    });
    this.camera = frameCamera(data.bounds.min, data.bounds.max);
  }

  /// Frames of clip `clip` (1 for the bind pose of a model without clips).
  frames(clip) {
    return this.data.bake.frameCounts[clip] ?? 1;
  }

  /// Draws clip `clip` at frame position `t` (0 ≤ t ≤ frames - 1; between frames, lerped).
  draw(clip, t) {
    const gl = this.gl;
    const n = this.frames(clip);
    const cur = Math.min(Math.floor(t), n - 1);
    const next = Math.min(cur + 1, n - 1);
    const u = (name) => this.u[name];
    gl.viewport(0, 0, gl.canvas.width, gl.canvas.height);
    gl.clearColor(...BACKGROUND, 1);
    gl.clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT);
    gl.enable(gl.DEPTH_TEST);
    gl.disable(gl.CULL_FACE);
    gl.useProgram(this.program);
    gl.activeTexture(gl.TEXTURE0);
    gl.bindTexture(gl.TEXTURE_2D_ARRAY, this.texture);
    gl.uniform1i(u("bones"), 0);
    gl.uniform1i(u("boneCount"), this.data.bake.boneCount);
    gl.uniform3i(u("frame"), clip, cur, next);
    gl.uniform1f(u("time"), t - cur);
    gl.uniformMatrix4fv(u("viewProj"), false, this.camera.viewProj);
    gl.uniform3fv(u("light"), this.camera.light);
    gl.uniform1f(u("ambient"), AMBIENT);
    for (const p of this.parts) {
      gl.uniform3fv(u("diffuse"), p.diffuse);
      gl.bindVertexArray(p.vao);
      gl.drawElements(gl.TRIANGLES, p.count, gl.UNSIGNED_INT, 0);
    }
    gl.bindVertexArray(null);
  }

  /// The RGBA pixels (rows top down) of clip `clip` at `t`, drawn at width × height (the
  /// canvas is resized to that).
  async pixels(clip, t, width, height) {
    const gl = this.gl;
    gl.canvas.width = width;
    gl.canvas.height = height;
    this.draw(clip, t);
    const up = new Uint8Array(width * height * 4);
    gl.readPixels(0, 0, width, height, gl.RGBA, gl.UNSIGNED_BYTE, up);
    // readPixels rows go bottom up.
    const out = new Uint8Array(up.length);
    for (let y = 0; y < height; y++) out.set(up.subarray((height - 1 - y) * width * 4, (height - y) * width * 4), y * width * 4);
    return out;
  }
}

function link(gl, vs, fs) {
  const compile = (type, src) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, src);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const p = gl.createProgram();
  gl.attachShader(p, compile(gl.VERTEX_SHADER, vs));
  gl.attachShader(p, compile(gl.FRAGMENT_SHADER, fs));
  gl.linkProgram(p);
  if (!gl.getProgramParameter(p, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(p));
  return p;
}
