// Compares the files of two folders (the package's outputs and the native CLI's): every file
// must be byte-equal (the wasm build takes its sines and cosines from glibc's algorithm,
// kiln-scene's assimp_math::sinf, so even .clip keys keep the native bits). Prints one line per
// folder; exits 1 on any difference, naming the file and the first differing offset.
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
for (const name of names) {
    const x = readFileSync(join(a, name));
    const y = readFileSync(join(b, name));
    if (x.equals(y)) {
        equal++;
        continue;
    }
    let at = 0;
    while (at < x.length && at < y.length && x[at] === y[at]) at++;
    console.error(`${label}: ${name} differs from the CLI's at byte ${at} (${x.length} and ${y.length} bytes)`);
    process.exit(1);
}
console.log(`node: ${label}: ${equal} of ${names.length} files byte-equal to the CLI's`);
