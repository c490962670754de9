// The conversion, off the page's thread: kiln (web/pkg, built by scripts/build-web) converts
// each model the page hands over, with the other dropped files as its resources, and reads
// the outputs back for the page's lists and viewer. One message in, one message out:
//   in:  { id, model: { name, bytes }, resources: [{ name, bytes }], options }
//   out: { id, ok: true, name, files: [{ name, bytes }], warnings, summary, ms, mesh, clips,
//          view } or { id, ok: false, name, error, restart } (restart: this worker is done)
import init, { convert, inspect, view, __failForTest } from "./pkg/kiln_wasm.js";

const ready = init();
// The test hook below answers only in a worker the page started for a test (`?test`).
const testing = new URLSearchParams(self.location.search).has("test");

self.onmessage = async (event) => {
  const { id, model, resources, options } = event.data;
  try {
    await ready;
    if (testing && model.name === "" && options?.failForTest) __failForTest(options.failForTest); // web/test/browser.mjs
    // Resources by the names a model uses: the path as written and the bare file name (a
    // browser drop has no folders).
    const byName = new Map();
    for (const r of resources) byName.set(r.name, new Uint8Array(r.bytes));
    const lookup = (name) => byName.get(name) ?? byName.get(name.split("/").pop());
    const start = performance.now();
    const out = convert(new Uint8Array(model.bytes), model.name, lookup, options);
    const ms = performance.now() - start;
    const meshFile = out.files.find((f) => f.name.endsWith(".mesh"));
    const clipFiles = out.files.filter((f) => f.name.endsWith(".clip"));
    const xmlFile = out.files.find((f) => f.name.endsWith(".xml"));
    const mesh = meshFile ? inspect(meshFile.bytes, meshFile.name) : null;
    const clips = clipFiles.map((f) => ({ file: f.name, ...inspect(f.bytes, f.name) }));
    let viewData = null;
    let viewError = null;
    if (meshFile) {
      try {
        const xml = xmlFile ? new TextDecoder().decode(xmlFile.bytes) : undefined;
        viewData = view(meshFile.bytes, clipFiles.map((f) => f.bytes), xml);
      } catch (e) {
        viewError = String(e.message ?? e);
      }
    }
    // Moved, not copied: the outputs and the view's arrays (the vertices and the bake are the
    // bulk of a large model).
    const transfer = out.files.map((f) => f.bytes.buffer);
    if (viewData) {
      for (const p of viewData.parts) transfer.push(p.vertices.buffer, p.indices.buffer);
      transfer.push(viewData.bake.texels.buffer);
    }
    self.postMessage(
      { id, ok: true, name: model.name, files: out.files, warnings: out.warnings,
        summary: out.summary, ms, mesh, clips, view: viewData, viewError },
      transfer,
    );
  } catch (e) {
    const error = String(e.message ?? e);
    // A panic (kiln's hook makes it an Error, docs/wasm.md) or a trap leaves the instance
    // unusable: say so, and the page starts a fresh worker.
    const broken = e instanceof WebAssembly.RuntimeError || error.startsWith("internal error") ||
      error.startsWith("out of memory");
    self.postMessage({ id, ok: false, name: model.name, error, restart: broken });
    if (broken) self.close();
  }
};
