// The Node test of the package (web/pkg-node, built by scripts/build-web): converts a model
// with `convert`, its resources read from its folder through a callback, writes the outputs
// into OUT_DIR, checks `inspect` on the .mesh, and checks that bad input is an exception
// carrying the CLI's message.
//
// usage: node web/test/node.mjs MODEL OUT_DIR LAYOUT(kiln|classic)
import { createRequire } from "node:module";
import { readFileSync, writeFileSync, mkdirSync } from "node:fs";
import { dirname, basename, join } from "node:path";
import { strict as assert } from "node:assert";

const require = createRequire(import.meta.url);
const kiln = require("../pkg-node/kiln_wasm.js");

const [model, out, layout] = process.argv.slice(2);
const folder = dirname(model);
const asked = [];
const resources = (name) => {
    asked.push(name);
    try {
        return new Uint8Array(readFileSync(join(folder, name)));
    } catch {
        return undefined;
    }
};
const result = kiln.convert(new Uint8Array(readFileSync(model)), basename(model), resources, { layout });
mkdirSync(out, { recursive: true });
for (const f of result.files) {
    writeFileSync(join(out, f.name), f.bytes);
}
console.log(`summary: ${result.summary}`);
for (const w of result.warnings) console.log(`warning: ${w}`);
console.log(`files: ${result.files.map((f) => f.name).join(" ")}`);

const mesh = result.files.find((f) => f.name.endsWith(".mesh"));
const info = kiln.inspect(mesh.bytes, mesh.name);
assert.equal(info.kind, "mesh");
assert.ok(info.parts.length >= 1 || info.bones.length >= 1);
for (const clip of result.files.filter((f) => f.name.endsWith(".clip"))) {
    const c = kiln.inspect(clip.bytes, clip.name);
    assert.equal(c.kind, "clip");
    assert.ok(c.frames >= 1);
}

// view: the vertices as the .mesh stores them, the bake, a finite box.
const clips = result.files.filter((f) => f.name.endsWith(".clip")).map((f) => f.bytes);
const xml = result.files.find((f) => f.name.endsWith(".xml"));
const v = kiln.view(mesh.bytes, clips, xml ? new TextDecoder().decode(xml.bytes) : undefined);
assert.equal(v.parts.length, info.parts.length);
for (const [i, p] of v.parts.entries()) {
    assert.equal(p.vertices.length, 19 * info.parts[i].vertices);
    assert.equal(p.indices.length, 3 * info.parts[i].triangles);
}
assert.equal(v.bake.layers, Math.max(clips.length, 1));
assert.equal(v.bake.texels.length, 4 * v.bake.width * v.bake.height * v.bake.layers);
if (v.parts.some((p) => p.vertices.length > 0)) {
    assert.ok(v.bounds.min.every(Number.isFinite) && v.bounds.min.every((x, k) => x <= v.bounds.max[k]));
}

// Bad input: an exception with the CLI's one-line message, never a crash.
assert.throws(() => kiln.convert(new Uint8Array([1, 2, 3]), "junk.fbx", undefined, {}), (e) =>
    e.message.startsWith("junk.fbx: "));
assert.throws(() => kiln.convert(new Uint8Array([1, 2, 3]), "junk.txt", undefined, {}), (e) =>
    e.message.startsWith("junk.txt: "));
assert.throws(() => kiln.convert(new Uint8Array(), "a.obj", undefined, { layout: "nope" }), (e) =>
    e.message.includes("option layout"));
assert.throws(() => kiln.inspect(new Uint8Array([1, 2, 3]), "x.mesh"), (e) => e.message.startsWith("x.mesh: "));
assert.throws(() => kiln.view(new Uint8Array([1, 2, 3]), []), (e) => e.message.startsWith(".mesh: "));
assert.throws(() => kiln.view(mesh.bytes, [new Uint8Array([9, 9])]), (e) => e.message.startsWith("clip 0: "));
assert.throws(() => kiln.view(mesh.bytes, ["not bytes"]), (e) => e.message.includes("Uint8Array"));
const version = kiln.version();

// A panic (a kiln bug) is an Error with its message, not a RuntimeError trap. Last: the
// instance is not to be used after one.
assert.throws(() => kiln.__failForTest("panic"), (e) =>
    !(e instanceof WebAssembly.RuntimeError) &&
    e.message.startsWith("internal error (please report it): panicked at ") &&
    e.message.includes("the panic of __failForTest"));
// Out of memory the same, in a fresh instance (the package loaded again).
const fresh = (() => {
    const path = require.resolve("../pkg-node/kiln_wasm.js");
    delete require.cache[path];
    return require(path);
})();
assert.notEqual(fresh, kiln);
assert.throws(() => fresh.__failForTest("oom"), (e) =>
    !(e instanceof WebAssembly.RuntimeError) && /^out of memory: 1610612736 bytes wanted, \d+ in use/.test(e.message));
console.log(`version ${version}: ok`);
