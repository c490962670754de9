// The package's TypeScript definitions (web/pkg/kiln_wasm.d.ts, from the #[wasm_bindgen]
// attributes and the custom section in crates/kiln-wasm) checked by `tsc --strict`
// (scripts/test): the uses below must type-check, and each `@ts-expect-error` line must be an
// error, so definitions that fall back to `any` fail too. Nothing here runs.
import init, { convert, inspect, version, view, type ConvertResult, type ViewData, type ClipInfo } from "../pkg/kiln_wasm.js";

export async function use(bytes: Uint8Array, mtl: Uint8Array): Promise<number> {
  await init();
  const r = convert(bytes, "a.obj", new Map([["a.mtl", mtl]]), {
    layout: "classic",
    quantize: "attributes",
    static: false,
    clipRate: 30,
  });
  convert(bytes, "a.obj", (name) => (name === "a.mtl" ? mtl : undefined));
  convert(bytes, "a.obj", { "a.mtl": mtl }, { layout: "kiln" });
  convert(bytes, "a.fbx");
  const mesh = r.files.find((f) => f.name.endsWith(".mesh"));
  if (!mesh) return 0;
  const info = inspect(mesh.bytes, mesh.name);
  let n = 0;
  if (info.kind === "mesh") {
    n += info.bones.length + info.parts.reduce((s, p) => s + p.triangles + p.morphTargets.length, 0);
  } else {
    n += info.frames * info.frameRate + info.tracks + info.weightTracks;
  }
  const clips = r.files.filter((f) => f.name.endsWith(".clip")).map((f) => f.bytes);
  const v = view(mesh.bytes, clips, undefined);
  const part = v.parts[0];
  n += part.vertices.length + part.indices.length + part.diffuse[3] + v.bounds.min[0] + v.bake.texels.length;
  n += v.bake.frameCounts[0] + v.bones[0].parent;
  const text: string = version() + r.summary + r.warnings.join("\n");

  // @ts-expect-error: the layout is "kiln" or "classic"
  convert(bytes, "a.obj", undefined, { layout: "fast" });
  // @ts-expect-error: resources are bytes by name, not strings
  convert(bytes, "a.obj", new Map([["a.mtl", "newmtl a"]]));
  // @ts-expect-error: a clip's name is a string
  const name: number = info.kind === "clip" ? info.name : 0;
  // @ts-expect-error: the bake has no such field
  n += v.bake.pixels;
  // @ts-expect-error: clips are bytes
  view(mesh.bytes, ["walk.clip"]);
  return n + text.length + name;
}

// The named types are exported for callers' own signatures.
export function summary(r: ConvertResult, v: ViewData, c: ClipInfo): string {
  return `${r.summary}: ${v.parts.length} parts, clip ${c.name}`;
}
