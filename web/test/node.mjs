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

// Bad input: an exception with the CLI's one-line message, never a crash.
assert.throws(() => kiln.convert(new Uint8Array([1, 2, 3]), "junk.fbx", undefined, {}), (e) =>
    e.message.startsWith("junk.fbx: "));
assert.throws(() => kiln.convert(new Uint8Array([1, 2, 3]), "junk.txt", undefined, {}), (e) =>
    e.message.startsWith("junk.txt: "));
assert.throws(() => kiln.convert(new Uint8Array(), "a.obj", undefined, { layout: "nope" }), (e) =>
    e.message.includes("option layout"));
assert.throws(() => kiln.inspect(new Uint8Array([1, 2, 3]), "x.mesh"), (e) => e.message.startsWith("x.mesh: "));
console.log(`version ${kiln.version()}: ok`);
