// The page (web/index.html) in a real browser: headless Chromium (Debian's `chromium`) driven
// by puppeteer-core, which is pointed at it (no browser is downloaded). A static server of
// web/ on 127.0.0.1; for each model, the test picks it and the files it refers to (those the
// native conversion read, from its manifest) in the page's file input, waits for the worker's
// result, then:
//   - clicks every file's download link and the .zip button, and compares what Chromium saved
//     with the native `kiln convert` outputs (web/test/compare.mjs: byte for byte), and the
//     .zip's entries with the single downloads (byte for byte);
//   - for models whose parts have no texture, stops the animation at frame 0, reads the
//     viewer's pixels and compares them with the first tile of `kiln preview --frames 0` of the
//     same .mesh (PSNR over 256×256, at least MIN_PSNR dB; a blank or mis-skinned canvas is
//     far below).
// Prints one line per model and the conversion times the page measured.
//
// usage: node web/test/browser.mjs KILN_BINARY OUT_DIR
import { spawnSync } from "node:child_process";
import { createServer } from "node:http";
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, extname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import puppeteer from "puppeteer-core";

// The viewer and kiln preview agree to 49-64 dB on the corpus models; unskinned (bones ignored)
// they are 22-24 dB apart, and a blank or mis-framed canvas is lower still.
const MIN_PSNR = 35;
const here = dirname(fileURLToPath(import.meta.url));
const web = resolve(here, "..");
const [kiln, outRoot] = process.argv.slice(2);
const corpus = "/usr/share/assimp/models";
// [model, layout, compare the viewer with kiln preview]
const only = process.env.KILN_BROWSER_ONLY;
const allModels = [
  ["OBJ/spider.obj", "kiln", false],
  ["OBJ/WusonOBJ.obj", "classic", false],
  ["FBX/spider.fbx", "kiln", false],
  ["FBX/huesitos.fbx", "kiln", true],
  ["FBX/animation_with_skeleton.fbx", "kiln", true],
  ["FBX/box_orphant_embedded_texture.fbx", "classic", false],
];
// KILN_BROWSER_EXTRA=/abs/a.fbx:/abs/b.obj adds models by hand (kiln layout, no preview).
const extra = (process.env.KILN_BROWSER_EXTRA ?? "").split(":").filter(Boolean).map((p) => [p, "kiln", false]);
const models = (only ? allModels.filter(([m]) => m.includes(only)) : allModels).concat(extra);

const types = { ".html": "text/html", ".js": "text/javascript", ".mjs": "text/javascript",
  ".css": "text/css", ".wasm": "application/wasm", ".json": "application/json" };
const server = createServer((req, res) => {
  const path = resolve(web, "." + decodeURIComponent(new URL(req.url, "http://x").pathname));
  const file = path.endsWith("/") ? join(path, "index.html") : path;
  if (!file.startsWith(web) || !existsSync(file) || statSync(file).isDirectory()) {
    res.writeHead(404).end();
    return;
  }
  res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
  res.end(readFileSync(file));
});
await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
const url = `http://127.0.0.1:${server.address().port}/index.html`;

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf8", timeout: 300_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr || r.error}`);
  return r.stdout;
}

/// In the page: draws the viewer of `articleSel` at `frame` of clip 0, framed as `kiln preview
/// --frames FRAME` frames it (the box of every vertex skinned at that frame of every clip, by
/// the CPU from the same bake), and gives the PSNR of its pixels against the sheet's first tile:
/// `{ page }` for the page's own viewer and, where the browser has WebGPU, `{ webgpu }` for an
/// off-screen WebGPU viewer of the same data (headless Chromium cannot present a WebGPU canvas,
/// but draws and reads back off screen: the shaders, buffers and bake are the canvas's).
async function comparePixels(articleSel, frame, png) {
  const { frameCamera } = await import("./viewer.js");
  const { GpuViewer } = await import("./viewer-webgpu.js");
  const node = document.querySelector(articleSel);
  const viewer = node.viewer;
  const data = viewer.data;
  const b = data.bake;
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let clip = 0; clip < b.layers; clip++) {
    const f = Math.min(frame, (b.frameCounts[clip] ?? 1) - 1);
    const texel = (bone, r, k) => b.texels[(((clip * b.height + f) * b.width) + 4 * bone + r) * 4 + k];
    for (const part of data.parts) {
      const v = part.vertices;
      for (let i = 0; i < v.length; i += 19) {
        const q = [0, 0, 0];
        for (let j = 0; j < 4; j++) {
          const index = v[i + 11 + j];
          const w = v[i + 15 + j];
          if (!(index >= 0) || index >= b.boneCount || w === 0) continue;
          const bone = Math.trunc(index);
          for (let k = 0; k < 3; k++) {
            q[k] += w * (texel(bone, 0, k) * v[i] + texel(bone, 1, k) * v[i + 1] + texel(bone, 2, k) * v[i + 2] + texel(bone, 3, k));
          }
        }
        if (q.every(Number.isFinite)) {
          for (let k = 0; k < 3; k++) { lo[k] = Math.min(lo[k], q[k]); hi[k] = Math.max(hi[k], q[k]); }
        }
      }
    }
  }
  node.querySelector(".play").checked = false;
  node.viewState.t = frame;
  const img = new Image();
  img.src = "data:image/png;base64," + png;
  await img.decode();
  const c = document.createElement("canvas");
  c.width = c.height = 256;
  const ctx = c.getContext("2d");
  ctx.drawImage(img, 0, 0, 256, 256, 0, 0, 256, 256); // the first tile
  const theirs = ctx.getImageData(0, 0, 256, 256).data;
  const psnr = (ours) => {
    let se = 0;
    for (let i = 0; i < 256 * 256 * 4; i += 4) {
      for (let k = 0; k < 3; k++) {
        const d = ours[i + k] - theirs[i + k];
        se += d * d;
      }
    }
    const mse = se / (256 * 256 * 3);
    return mse === 0 ? 1000 : 10 * Math.log10((255 * 255) / mse);
  };
  const camera = frameCamera(lo, hi);
  viewer.camera = camera;
  const out = { kind: viewer.kind, page: psnr(await viewer.pixels(0, frame, 256, 256)) };
  let gpu = null;
  try {
    gpu = await GpuViewer.create(null, data);
  } catch (e) {
    out.webgpuError = e.message;
  }
  if (gpu) {
    gpu.camera = camera;
    out.webgpu = psnr(await gpu.pixels(0, frame, 256, 256));
    gpu.destroy();
  }
  return out;
}

const browser = await puppeteer.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  // SwiftShader: WebGL2 and WebGPU without a GPU (Chromium on Linux offers WebGPU behind
  // --enable-unsafe-webgpu). The renderer's JavaScript heap is capped (an address-space limit
  // would refuse the memory V8 reserves for WebAssembly).
  args: ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader", "--ignore-gpu-blocklist",
    "--enable-unsafe-webgpu", "--js-flags=--max-old-space-size=2048"],
  protocolTimeout: 300_000,
});
let failed = 0;
try {
  let webgl2 = true;
  for (const [rel, layout, comparePreview] of models) {
    // A fresh page per model: Chromium lets a page start several downloads once, then asks.
    const page = await browser.newPage();
    page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
    // WebGL2 here; the WebGPU viewer is checked off screen beside it, and the page's own
    // choice of renderer below.
    await page.goto(`${url}?renderer=webgl2`);
    await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("Ready"), { timeout: 60_000 });
    webgl2 &&= await page.evaluate(() => !!document.createElement("canvas").getContext("webgl2"));
    const cdp = await page.createCDPSession();
    const label = `${rel} (${layout})`;
    const name = rel.split("/").pop();
    const stem = name.replace(/\.[^.]*$/, "");
    const dir = join(outRoot, rel.replace(/\W/g, "_") + "-" + layout);
    rmSync(dir, { recursive: true, force: true });
    const cli = join(dir, "cli");
    const downloads = join(dir, "browser");
    mkdirSync(downloads, { recursive: true });
    const source = rel.startsWith("/") ? rel : join(corpus, rel);
    run(kiln, ["convert", source, "-o", cli, "--layout", layout]);
    const manifest = JSON.parse(readFileSync(join(cli, `${stem}.kiln.json`), "utf8"));
    const inputs = manifest.inputs.map((i) => resolve(dirname(source), i.path));
    await page.select("select[name=layout]", layout);
    const before = await page.evaluate(() => (window.kilnResults ?? []).length);
    const input = await page.$("#files");
    await input.uploadFile(...inputs);
    await page.waitForFunction((n) => (window.kilnResults ?? []).length > n, { timeout: 300_000 }, before);
    const result = await page.evaluate((n) => {
      const r = window.kilnResults[n];
      return { ok: r.ok, error: r.error, ms: r.ms, files: r.ok ? r.files.map((f) => f.name) : [], bones: r.mesh?.bones.length, view: !!r.view, viewError: r.viewError };
    }, before);
    if (result.ok && extra.some(([m]) => m === rel)) {
      // By hand: a second conversion on the same page, with the module warm (the input is
      // emptied first, or picking the same files again would change nothing).
      await page.evaluate(() => { document.getElementById("files").value = ""; });
      await input.uploadFile(...inputs);
      await page.waitForFunction((n) => (window.kilnResults ?? []).length > n + 1, { timeout: 300_000 }, before);
      const warm = await page.evaluate((n) => window.kilnResults[n + 1].ms, before);
      // One article per model for the downloads below (the page lists the newest first):
      // twice the links would also pass Chromium's limit on downloads from one page.
      await page.evaluate((m) => document.querySelector(`article[data-model="${m}"]`).remove(), rel.split("/").pop());
      console.log(`${label}: converted in ${result.ms.toFixed(1)} ms (first call), ${warm.toFixed(1)} ms (second)`);
    }
    if (!result.ok) {
      console.error(`${label}: the page failed: ${result.error}`);
      failed++;
      await page.close();
      continue;
    }
    // Downloads, one by one, then the zip.
    await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: downloads, eventsEnabled: true });
    const article = `article[data-model="${name}"]`;
    await page.$$eval(`${article} ul.files a`, (links) => links.forEach((a) => a.click()));
    const saved = async (names, folder) => {
      for (let i = 0; i < 600; i++) {
        const have = readdirSync(folder);
        if (names.every((n) => have.includes(n)) && !have.some((n) => n.endsWith(".crdownload"))) return;
        await new Promise((ok) => setTimeout(ok, 100));
      }
      throw new Error(`downloads missing in ${folder}: ${names.filter((n) => !readdirSync(folder).includes(n))}`);
    };
    await saved(result.files, downloads);
    const zipDir = join(dir, "zip");
    mkdirSync(zipDir, { recursive: true });
    await cdp.send("Browser.setDownloadBehavior", { behavior: "allow", downloadPath: zipDir, eventsEnabled: true });
    await page.click(`${article} button.zip`);
    await saved([`${stem}.zip`], zipDir);
    const unzipped = join(dir, "unzipped");
    run("unzip", ["-q", "-o", join(zipDir, `${stem}.zip`), "-d", unzipped]);
    const cmp = spawnSync("node", [join(here, "compare.mjs"), downloads, cli, label], { encoding: "utf8" });
    process.stdout.write(cmp.stdout);
    if (cmp.status !== 0) {
      process.stderr.write(cmp.stderr);
      failed++;
    }
    for (const f of result.files) {
      if (!readFileSync(join(unzipped, f)).equals(readFileSync(join(downloads, f)))) {
        console.error(`${label}: ${f} in the .zip differs from its download`);
        failed++;
      }
    }
    let viewerNote = result.view ? "viewer drawn" : `no view (${result.viewError})`;
    if (comparePreview && webgl2 && result.view) {
      // Frame 0 and a middle frame of the first clip, each against its own preview sheet.
      const frames = await page.evaluate((sel) => document.querySelector(sel).viewer.frames(0), article);
      const notes = [];
      for (const frame of [...new Set([0, Math.floor((frames - 1) / 2)])]) {
        const sheet = join(dir, `preview-${frame}.png`);
        run(kiln, ["preview", join(cli, `${stem}.mesh`), "--frames", String(frame), "--tile", "256", "-o", sheet]);
        const r = await page.evaluate(comparePixels, article, frame, readFileSync(sheet).toString("base64"));
        notes.push(`frame ${frame} ${r.kind} ${r.page.toFixed(1)} dB, WebGPU ${r.webgpu?.toFixed(1) ?? "-"} dB`);
        for (const [what, v] of [[r.kind, r.page], ["WebGPU", r.webgpu]]) {
          if (!(v >= MIN_PSNR)) {
            console.error(`${label}: the ${what} viewer's frame ${frame} is ${v?.toFixed(1) ?? r.webgpuError} dB from kiln preview's (at least ${MIN_PSNR} wanted)`);
            failed++;
          }
        }
      }
      viewerNote = `viewer against kiln preview: PSNR ${notes.join("; ")}`;
    }
    console.log(`${label}: ${result.files.length} downloads and the .zip equal the CLI's; ${result.bones} bones; converted in ${result.ms.toFixed(1)} ms in Chromium; ${viewerNote}`);
    await page.close();
  }
  // The page's own choice: WebGPU where the browser has it, WebGL2 where its device is lost
  // (headless Chromium loses it at the first presentation of a canvas) or it is missing.
  if (!only || "huesitos".includes(only)) {
    const page = await browser.newPage();
    page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("Ready"), { timeout: 60_000 });
    // The worker's failure hook is only on a page opened for a test.
    if (await page.evaluate(() => typeof window.kilnFailForTest !== "undefined")) {
      console.error("the page without ?test has window.kilnFailForTest");
      failed++;
    }
    await (await page.$("#files")).uploadFile(join(corpus, "FBX/huesitos.fbx"));
    await page.waitForFunction(() => (window.kilnResults ?? []).length > 0, { timeout: 300_000 });
    // A lost device is noticed at the first frames, and WebGL2 takes over within seconds.
    await page.waitForFunction(() => /WebGL2/.test(document.querySelector('article[data-model="huesitos.fbx"] .renderer')?.textContent),
      { timeout: 5_000 }).catch(() => {});
    const shown = await page.$eval('article[data-model="huesitos.fbx"] .renderer', (e) => e.textContent);
    const drawn = await page.evaluate(async () => {
      const v = document.querySelector('article[data-model="huesitos.fbx"]').viewer;
      const px = await v.pixels(0, 0, 64, 64);
      let model = 0;
      for (let i = 0; i < px.length; i += 4) if (px[i] !== 38 || px[i + 1] !== 40 || px[i + 2] !== 46) model++;
      return model;
    });
    if (!/^WebGPU$|^WebGL2 \(WebGPU/.test(shown) || drawn === 0) {
      console.error(`huesitos.fbx, renderer of the page's choosing: "${shown}", ${drawn} pixels of the model`);
      failed++;
    } else {
      console.log(`huesitos.fbx, renderer of the page's choosing: ${shown}; ${drawn} of 4096 pixels show the model`);
    }
    await page.close();
  }
  // A panic and running out of memory in the worker (kiln's test export): an error naming
  // it, a fresh worker, and the page converts on.
  for (const [kind, start] of [["panic", "internal error (please report it): panicked at "], ["oom", "out of memory: "]]) {
    const page = await browser.newPage();
    page.on("pageerror", (e) => console.error(`page error: ${e.message}`));
    await page.goto(`${url}?renderer=webgl2&test`);
    await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("Ready"), { timeout: 60_000 });
    const r = await page.evaluate((k) => window.kilnFailForTest(k), kind);
    await (await page.$("#files")).uploadFile(join(corpus, "OBJ/spider.obj"));
    await page.waitForFunction(() => (window.kilnResults ?? []).length > 0, { timeout: 300_000 });
    const after = await page.evaluate(() => window.kilnResults[0].ok);
    if (r.ok || !r.restart || !r.error.startsWith(start) || !after) {
      console.error(`${kind} in the worker: ${JSON.stringify(r)}; the next conversion ${after ? "worked" : "failed"}`);
      failed++;
    } else {
      console.log(`${kind} in the worker: "${r.error}"; a fresh worker converted spider.obj`);
    }
    await page.close();
  }
  // Bad input: the page shows the CLI's one-line error for that file, and goes on.
  {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForFunction(() => document.getElementById("status").textContent.startsWith("Ready"), { timeout: 60_000 });
    mkdirSync(outRoot, { recursive: true });
    const junk = join(outRoot, "junk.fbx");
    writeFileSync(junk, "this is not an FBX file\n");
    const cli = spawnSync(kiln, ["convert", junk, "-o", join(outRoot, "junk-out")], { encoding: "utf8" });
    const line = cli.stderr.split("\n").find((l) => l.startsWith("kiln: error: ")) ?? "";
    await (await page.$("#files")).uploadFile(junk);
    await page.waitForFunction(() => (window.kilnResults ?? []).length > 0, { timeout: 60_000 });
    const shown = await page.$eval('article[data-model="junk.fbx"] .error', (e) => e.textContent);
    if (!line || !shown.includes(line.slice("kiln: error: ".length).replace(/^.*?junk\.fbx/, "junk.fbx"))) {
      console.error(`junk.fbx: the page says "${shown}", the CLI "${line}"`);
      failed++;
    } else {
      console.log(`junk.fbx: the page shows the CLI's error: ${shown}`);
    }
    await page.close();
  }
  if (!webgl2) {
    console.error("this Chromium gives no WebGL2 context: the viewer was not checked");
    failed++;
  }
} finally {
  await browser.close();
  server.close();
}
process.exit(failed ? 1 : 0);
