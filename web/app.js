// The page: dropped files go to the worker (worker.js), which converts every FBX and OBJ among
// them with the rest as resources; each result shows its summary, warnings, files (each
// downloadable, or all as one .zip), clips and bone tree, and the model in the viewer
// (viewer-webgpu.js where the browser has WebGPU, else viewer.js on WebGL2), animated.
// Everything stays in the browser.
import { Viewer } from "./viewer.js";
import { GpuViewer } from "./viewer-webgpu.js";
import { zip } from "./zip.js";

// A page opened with `?test` (web/test/browser.mjs) has the worker's failure hook.
const testing = new URLSearchParams(location.search).has("test");
let worker = startWorker();
const status = document.getElementById("status");
const results = document.getElementById("results");
const template = document.getElementById("result");
const pending = new Map();
let nextId = 1;

/// The converting worker; one that reports its instance broken (a kiln panic) is replaced.
function startWorker() {
  const w = new Worker(new URL(testing ? "./worker.js?test" : "./worker.js", import.meta.url), { type: "module" });
  w.onmessage = (event) => {
    if (event.data.restart) worker = startWorker();
    const done = pending.get(event.data.id);
    if (done) {
      pending.delete(event.data.id);
      done(event.data);
    }
  };
  return w;
}

function options() {
  const form = new FormData(document.getElementById("options"));
  const o = { layout: form.get("layout"), quantize: form.get("quantize"), static: form.get("static") === "on" };
  const rate = parseFloat(form.get("clipRate"));
  if (rate > 0) o.clipRate = rate;
  return o;
}

const isModel = (name) => /\.(fbx|obj)$/i.test(name);

// `?renderer=webgl2` or `?renderer=webgpu` picks one; otherwise WebGPU where it is, else WebGL2.
const renderer = new URLSearchParams(location.search).get("renderer") ?? "auto";

/// The viewer of `data` in `canvas`, on WebGPU where wanted and present, else WebGL2 (on a
/// fresh canvas: one that gave a WebGPU context gives no other). `onLost(viewer, error)` is
/// called when a WebGPU viewer's device is lost, with the WebGL2 viewer that replaces it, or
/// with the reason there is none.
async function createViewer(canvas, data, onLost) {
  const fresh = () => {
    const c = canvas.cloneNode();
    canvas.replaceWith(c);
    canvas = c;
    return c;
  };
  if (renderer !== "webgl2" && navigator.gpu) {
    let v;
    try {
      v = await GpuViewer.create(canvas, data);
    } catch (e) {
      if (renderer === "webgpu") throw e;
      const w = new Viewer(fresh(), data);
      w.note = `WebGPU: ${e.message}, so WebGL2`;
      return w;
    }
    v.lost.then(async (info) => {
      if (v.destroyed || renderer === "webgpu") return;
      // The GPU process may be restarting after the loss: a WebGL2 context can take a moment.
      let failure = null;
      for (let attempt = 0; attempt < 10; attempt++) {
        if (attempt > 0) await new Promise((ok) => setTimeout(ok, 300));
        try {
          const w = new Viewer(fresh(), data);
          w.camera = v.camera;
          w.note = `WebGPU device lost (${info.message}), now WebGL2`;
          onLost(w);
          return;
        } catch (e) {
          failure = e;
        }
      }
      onLost(null, `WebGPU device lost (${info.message}); ${failure.message}`);
    });
    return v;
  }
  return new Viewer(canvas, data);
}

/// Converts every model among `files` (File objects); resolves with the results, in order.
export async function convertFiles(files) {
  const all = await Promise.all([...files].map(async (f) => ({ name: f.name, bytes: await f.arrayBuffer() })));
  const models = all.filter((f) => isModel(f.name));
  if (models.length === 0) {
    status.textContent = "No .fbx or .obj among the files.";
    return [];
  }
  status.textContent = `Converting ${models.map((m) => m.name).join(", ")}…`;
  const out = [];
  for (const model of models) {
    // postMessage copies the buffers (structured clone), so each model gets its own.
    const resources = all.filter((f) => f !== model);
    const id = nextId++;
    const result = await new Promise((resolve) => {
      pending.set(id, resolve);
      worker.postMessage({ id, model, resources, options: options() });
    });
    await show(result); // the viewer is up before the result is listed
    out.push(result);
  }
  status.textContent = `Converted ${out.filter((r) => r.ok).length} of ${out.length}.`;
  window.kilnResults = (window.kilnResults ?? []).concat(out);
  return out;
}

function show(r) {
  const node = template.content.firstElementChild.cloneNode(true);
  node.dataset.model = r.name;
  node.querySelector(".name").textContent = r.name;
  results.prepend(node);
  if (!r.ok) {
    const e = node.querySelector(".error");
    e.hidden = false;
    e.textContent = `kiln: error: ${r.error}`;
    node.querySelector(".columns").hidden = true;
    return;
  }
  node.querySelector(".summary").textContent = `${r.summary} (${r.ms.toFixed(1)} ms here)`;
  node.querySelector(".count").textContent = r.warnings.length;
  const wl = node.querySelector(".warnings");
  for (const w of r.warnings) wl.append(item(w));
  // Files, one link each, and all as a .zip.
  const fl = node.querySelector(".files");
  for (const f of r.files) {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(new Blob([f.bytes]));
    a.download = f.name;
    a.textContent = `${f.name}`;
    const li = item("");
    li.append(a, ` (${f.bytes.length.toLocaleString()} bytes)`);
    fl.append(li);
  }
  node.querySelector(".zip").onclick = () => {
    const a = document.createElement("a");
    a.href = URL.createObjectURL(zip(r.files));
    a.download = r.name.replace(/\.[^.]*$/, "") + ".zip";
    a.click();
  };
  // Clips and bones.
  const cl = node.querySelector(".clips");
  for (const c of r.clips) cl.append(item(`${c.name}: ${c.frames} frames at ${c.frameRate} fps, ${c.tracks} tracks (${c.file})`));
  if (r.mesh) node.querySelector(".bones").append(tree(r.mesh.bones));
  // The viewer.
  const canvas = node.querySelector(".viewer");
  if (!r.view) {
    canvas.replaceWith(item(r.viewError ? `No view: ${r.viewError}` : "Nothing to draw."));
    return Promise.resolve();
  }
  return showViewer(node, canvas, r);
}

async function showViewer(node, canvas, r) {
  const kind = node.querySelector(".renderer");
  const use = (v, error) => {
    if (!v) {
      node.querySelector(".viewer").replaceWith(item(`No view: ${error}`));
      viewer = node.viewer = null;
      return;
    }
    viewer = v;
    node.viewer = v;
    kind.textContent = v.note ? `${v.kind} (${v.note})` : v.kind;
  };
  let viewer;
  try {
    use(await createViewer(canvas, r.view, use));
  } catch (e) {
    canvas.replaceWith(item(`No view: ${e.message}`));
    return;
  }
  const clipSelect = node.querySelector(".clip");
  const names = r.view.bake.clipNames.length ? r.view.bake.clipNames : ["bind pose"];
  names.forEach((n, i) => clipSelect.append(new Option(n, i)));
  const slider = node.querySelector(".frame");
  const play = node.querySelector(".play");
  const label = node.querySelector(".frame-label");
  const state = { clip: 0, t: 0, last: null };
  const setClip = () => {
    state.clip = Number(clipSelect.value) || 0;
    slider.max = Math.max(viewer.frames(state.clip) - 1, 0);
    state.t = 0;
  };
  clipSelect.onchange = setClip;
  slider.oninput = () => { state.t = Number(slider.value); play.checked = false; };
  setClip();
  node.viewState = state;
  const rate = () => r.view.bake.frameRates[state.clip] || 30;
  const tick = (now) => {
    if (!node.isConnected || !viewer) return;
    if (play.checked && state.last !== null) {
      const n = viewer.frames(state.clip);
      state.t = n > 1 ? (state.t + ((now - state.last) / 1000) * rate()) % (n - 1) : 0;
      slider.value = state.t;
    }
    state.last = now;
    viewer.draw(state.clip, state.t);
    label.textContent = `${state.t.toFixed(1)} / ${Math.max(viewer.frames(state.clip) - 1, 0)}`;
    requestAnimationFrame(tick);
  };
  requestAnimationFrame(tick);
}

function item(text) {
  const li = document.createElement("li");
  li.textContent = text;
  return li;
}

/// The bone list (parents before children) as nested lists.
function tree(bones) {
  const root = document.createElement("ul");
  const items = [];
  const children = [];
  bones.forEach((b, i) => {
    const li = item(b.name);
    items.push(li);
    const parent = b.parent >= 0 && b.parent < i ? b.parent : -1;
    if (parent < 0) {
      root.append(li);
      return;
    }
    if (!children[parent]) {
      children[parent] = document.createElement("ul");
      items[parent].append(children[parent]);
    }
    children[parent].append(li);
  });
  return root;
}

// Drop zone and file picker.
const drop = document.getElementById("drop");
drop.addEventListener("dragover", (e) => { e.preventDefault(); drop.classList.add("over"); });
drop.addEventListener("dragleave", () => drop.classList.remove("over"));
drop.addEventListener("drop", (e) => { e.preventDefault(); drop.classList.remove("over"); convertFiles(e.dataTransfer.files); });
document.getElementById("files").addEventListener("change", (e) => convertFiles(e.target.files));
window.kilnConvertFiles = convertFiles;
/// For web/test/browser.mjs, only on a page opened with `?test`: makes the worker panic
/// ("panic") or run out of memory ("oom"); resolves with its answer.
if (testing) {
  window.kilnFailForTest = (kind) => new Promise((resolve) => {
    const id = nextId++;
    pending.set(id, resolve);
    worker.postMessage({ id, model: { name: "", bytes: new ArrayBuffer(0) }, resources: [], options: { failForTest: kind } });
  });
}
status.textContent = "Ready: drop files.";
