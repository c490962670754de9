// Compares the files of two folders (the package's outputs and the native CLI's): every file
// must be byte-equal, with one known exception: in a .clip, a key value that went through
// sin/cos (FBX Euler rotations to quaternions), which wasm32 takes from Rust's libm and the
// native build from glibc (kept to match Assimp), may differ in its last bits. So a .clip may
// differ only in the header's checksum (bytes 8..16 of the kiln layout) and in runs of bytes
// inside a 4-byte window holding two finite f32 at most 4 units in the last place apart (or
// within 1e-12 of each other, for values near 0). Prints one line per folder; exits 1 on a real difference.
//
// usage: node web/test/compare.mjs NODE_DIR CLI_DIR LABEL
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const [a, b, label] = process.argv.slice(2);
const names = readdirSync(a).sort();
const other = readdirSync(b).filter((n) => !n.endsWith(".kiln.json")).sort();
if (names.join("\n") !== other.join("\n")) {
    console.error(`${label}: different files: [${names}] vs [${other}]`);
    process.exit(1);
}
let equal = 0;
const notes = [];
for (const name of names) {
    const x = readFileSync(join(a, name));
    const y = readFileSync(join(b, name));
    if (x.equals(y)) {
        equal++;
        continue;
    }
    // Runs of differing bytes; each must lie inside one 4-byte window (at any alignment: the
    // classic layout packs strings between its floats) holding two finite f32 one ulp apart.
    // A kiln-layout file's checksum (bytes 8..16) follows from the rest.
    const start = x.subarray(0, 8).toString("latin1").startsWith("KILN") ? 16 : 0;
    let ulps = 0;
    let bad = x.length !== y.length || !name.endsWith(".clip");
    for (let p = start; !bad && p < x.length; p++) {
        if (x[p] === y[p]) continue;
        let q = p;
        while (q + 1 < x.length && q + 1 < p + 4 && x[q + 1] !== y[q + 1]) q++;
        let ok = false;
        for (let o = Math.max(start, q - 3); o <= p && o + 4 <= x.length; o++) {
            const u = x.readUInt32LE(o);
            const v = y.readUInt32LE(o);
            const [f, g] = [x.readFloatLE(o), y.readFloatLE(o)];
            if (Number.isFinite(f) && Number.isFinite(g) && (u >>> 31) === (v >>> 31) &&
                (Math.abs(u - v) <= 4 || Math.abs(f - g) <= 1e-12)) {
                ok = true;
                break;
            }
        }
        if (!ok) bad = true;
        ulps++;
        p = q;
    }
    if (bad) {
        console.error(`${label}: ${name} differs from the CLI's beyond last-bit key differences`);
        process.exit(1);
    }
    notes.push(`${name}: ${ulps} key value(s) a few ulps apart (libm's sin/cos, not glibc's)`);
}
console.log(`node: ${label}: ${equal} of ${names.length} files byte-equal to the CLI's${notes.length ? "; " + notes.join("; ") : ""}`);
