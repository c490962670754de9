//! Where a conversion's time goes: runs the stages of `kiln convert` one by one on an FBX file,
//! as the pipeline runs them (read, parse, scene import, left-handed conversion, triangulate,
//! normals, tangents, skin and clip extraction, encode, write; pre-transform on a copy, as
//! `--static` would run it), on rayon pools of 1 and 2 threads, and prints a Markdown table of
//! median times with throughput in millions of polygon corners per second and MB/s of input.
//! As the pipeline does, the `.mesh` is not encoded in memory but streamed at write time, its
//! vertices built as they go out (`load::from_scene_pending`, then
//! `encode::write_classic_mesh_pending`); the other files are encoded, then written.
//!
//! `cargo run --release --example stages -- MODEL.fbx [RUNS] [THREADS]` (THREADS: the pools'
//! sizes, `1,2` unless given); the model can be made with
//! `cargo run --release -p kiln-testkit --example write_export_like -- MODEL.fbx 400000`.
//! Results in docs/performance.md.

use std::alloc::{GlobalAlloc, Layout};
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The CLI's own allocator (`crates/kiln-cli/src/blocks.rs`), so that the resident set is the
/// one `kiln convert` has.
#[allow(dead_code)]
#[path = "../crates/kiln-cli/src/blocks.rs"]
mod blocks;

/// The CLI's allocator, counting the bytes it holds for the program (live) and the most it
/// has held since the last [`Counting::restart_peak`], so that each stage's table row can say
/// how much heap the stage left behind and how much it needed at its worst.
struct Counting(blocks::Blocks);

static LIVE: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

impl Counting {
    fn grew(by: usize) {
        let live = LIVE.fetch_add(by, Ordering::Relaxed) + by;
        PEAK.fetch_max(live, Ordering::Relaxed);
    }

    fn restart_peak() {
        PEAK.store(LIVE.load(Ordering::Relaxed), Ordering::Relaxed);
    }
}

// SAFETY: every call is passed to the inner allocator with the caller's own arguments, so its
// guarantees are the caller's; the counters are only arithmetic beside it.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller's contract for `alloc` is the inner allocator's.
        let p = unsafe { self.0.alloc(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: as `alloc`.
        let p = unsafe { self.0.alloc_zeroed(layout) };
        if !p.is_null() {
            Counting::grew(layout.size());
        }
        p
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from this allocator, that is from the inner one, with `layout`.
        unsafe { self.0.dealloc(ptr, layout) };
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: as `dealloc`; `new_size` is the caller's.
        let p = unsafe { self.0.realloc(ptr, layout, new_size) };
        if !p.is_null() {
            // Counted as the new block added before the old one goes, which is what a moving
            // realloc holds at its worst.
            Counting::grew(new_size);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        p
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting(blocks::Blocks::new());

const STAGES: [&str; 11] = [
    "read",
    "parse (FBX tree, inflate)",
    "scene import",
    "left-handed conversion",
    "triangulate",
    "normals",
    "tangents",
    "pre-transform (static, on a copy)",
    "skin and clip extraction (the vertices left for the write)",
    "encode (classic: clips, materials)",
    "write (classic: the mesh's vertices built as streamed, the rest)",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: stages MODEL.fbx [RUNS] [THREADS, e.g. 1,2]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let pools: Vec<usize> = match args.get(2) {
        Some(t) => t.split(',').filter_map(|n| n.parse().ok()).collect(),
        None => vec![1, 2],
    };
    let path = Path::new(path);
    let out = std::env::temp_dir().join("kiln-stages-out");
    std::fs::create_dir_all(&out).expect("temp folder");
    let mut columns = Vec::new();
    let mut heaps = Vec::new();
    let mut corners = 0usize;
    let mut bytes_in = 0usize;
    for &threads in &pools {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        // A first run for the memory columns, untimed and without the pre-transform copy, so
        // that its resident set is the pipeline's (later runs start with what the allocator
        // kept from earlier ones; the copy would be in every later stage's).
        let first = pool.install(|| one_run(path, &out, &mut corners, &mut bytes_in, false));
        heaps.push(
            first
                .heap
                .into_iter()
                .zip(first.resident)
                .collect::<Vec<_>>(),
        );
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); STAGES.len()];
        for _ in 0..runs {
            let t = pool.install(|| one_run(path, &out, &mut corners, &mut bytes_in, true));
            for (k, s) in t.times.into_iter().enumerate() {
                times[k].push(s);
            }
        }
        columns.push(times.into_iter().map(median).collect::<Vec<f64>>());
    }
    println!(
        "{}: {:.1} MB, {:.3} M polygon corners, median of {runs} runs\n",
        path.display(),
        bytes_in as f64 / 1e6,
        corners as f64 / 1e6
    );
    let threads_label = |t: usize| format!("{t} thread{}", if t == 1 { "" } else { "s" });
    let mut header = String::from("| stage |");
    let mut rule = String::from("|---|");
    for &t in &pools {
        header += &format!(" {} (ms) | M corners/s | MB/s |", threads_label(t));
        rule += "---:|---:|---:|";
    }
    println!("{header}\n{rule}");
    let mut totals = vec![0.0f64; pools.len()];
    // A stage's (or the total's) seconds as its three cells: ms, M corners/s, MB/s.
    let cells = |s: f64| {
        format!(
            " {:.1} | {:.0} | {:.0} |",
            s * 1e3,
            corners as f64 / s / 1e6,
            bytes_in as f64 / s / 1e6
        )
    };
    for (k, name) in STAGES.iter().enumerate() {
        let mut row = format!("| {name} |");
        for (c, col) in columns.iter().enumerate() {
            let s = col[k];
            if k != 7 {
                totals[c] += s;
            }
            row += &cells(s);
        }
        println!("{row}");
    }
    let mut row = String::from("| **total (without pre-transform)** |");
    for &total in &totals {
        row += &cells(total);
    }
    println!("{row}");
    println!(
        "\nMemory, MB, last run: the heap kiln's arrays hold (the allocator's count of live \
         bytes) and the process's resident set (`/proc/self/status`), each at the end of the \
         stage and at its worst during it, from an untimed first run with each pool without \
         the pre-transform copy. After the first pool the resident set starts with what the \
         allocator kept (give THREADS alone, e.g. `2`, for a fresh process's).\n"
    );
    let mut header = String::from("| stage |");
    let mut rule = String::from("|---|");
    for &t in &pools {
        header += &format!(
            " {}: heap after | heap peak | resident after | resident peak |",
            threads_label(t)
        );
        rule += "---:|---:|---:|---:|";
    }
    println!("{header}\n{rule}");
    let mb = |b: usize| b as f64 / 1e6;
    for (k, name) in STAGES.iter().enumerate() {
        let mut row = format!("| {name} |");
        for heap in &heaps {
            let ((after, peak), (rss, hwm)) = heap[k];
            row += &format!(
                " {:.1} | {:.1} | {:.1} | {:.1} |",
                mb(after),
                mb(peak),
                mb(rss),
                mb(hwm)
            );
        }
        println!("{row}");
    }
    let _ = std::fs::remove_dir_all(&out);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One conversion, stage by stage; the seconds each took and the heap it held.
fn one_run(
    path: &Path,
    out: &Path,
    corners: &mut usize,
    bytes_in: &mut usize,
    pre_transform: bool,
) -> Laps {
    let mut t = Laps {
        clock: Instant::now(),
        times: Vec::with_capacity(STAGES.len()),
        heap: Vec::with_capacity(STAGES.len()),
        resident: Vec::with_capacity(STAGES.len()),
    };
    Counting::restart_peak();
    let _ = resident();
    let bytes = std::fs::read(path).expect("the model is readable");
    *bytes_in = bytes.len();
    t.lap();
    let doc = kiln::fbx_tree::Document::parse(&bytes).expect("the model parses");
    t.lap();
    // As `kiln convert` imports (`kiln::load::import_bytes_for_engine`): skin weights per
    // control point.
    let options = kiln::fbx::ImportOptions {
        point_skin: true,
        ..kiln::fbx::ImportOptions::default()
    };
    let mut scene = kiln::fbx::import_document(&doc, &options).expect("the model imports");
    *corners = scene.meshes.iter().map(|m| m.indices.len()).sum();
    // As the pipeline does: the file and its tree are freed once the scene is imported.
    drop(doc);
    drop(bytes);
    t.lap();
    // Assimp's order (kiln_process::process): left-handed (with the UV flip and winding),
    // UV generation (nothing to do here), triangulate, normals, tangents.
    kiln::process::convert_to_left_handed(&mut scene);
    kiln::process::gen_uv_coords(&mut scene).expect("valid scene");
    t.lap();
    kiln::process::triangulate(&mut scene).expect("valid scene");
    t.lap();
    kiln::process::gen_normals(&mut scene, true).expect("valid scene");
    t.lap();
    kiln::process::calc_tangent_space(&mut scene).expect("valid scene");
    t.lap();
    if pre_transform {
        let mut copy = scene.clone();
        t.restart();
        kiln::process::pre_transform_vertices(&mut copy).expect("valid scene");
        t.lap();
        drop(copy);
        t.restart();
    } else {
        t.lap();
    }
    let (loaded, mut pending) =
        kiln::load::from_scene_pending(scene, path, &kiln::LoadOptions::default());
    t.lap();
    // What the pipeline encodes in memory: the clips and the material file (the mesh is
    // streamed at write time; this model's textures are not on disk).
    let materials: Vec<kiln::format::MaterialData> = loaded
        .materials
        .iter()
        .flatten()
        .map(|m| m.data.clone())
        .collect();
    let mut rest: Vec<(String, Vec<u8>)> = loaded
        .clips
        .iter()
        .zip(&loaded.clip_files)
        .map(|(c, name)| (name.clone(), kiln::format::classic::write_clip(c)))
        .collect();
    rest.push((
        format!("{}.xml", loaded.name),
        kiln::format::xml::write_materials(&materials).into_bytes(),
    ));
    t.lap();
    // The last run's file goes before the clock starts: `kiln convert` unlinks an earlier
    // run's .mesh beside the import (freeing 62 MB of pages takes ~30 ms on ext4), so a
    // truncation here would time what the CLI does not wait for.
    let mesh = out.join(format!("{}.mesh", loaded.name));
    let _ = std::fs::remove_file(&mesh);
    t.restart();
    let mut w =
        std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&mesh).expect("writable"));
    kiln::encode::write_classic_mesh_pending(&loaded, &mut pending, &mut w).expect("writable");
    std::io::Write::flush(&mut w).expect("writable");
    drop(w);
    for (name, bytes) in &rest {
        kiln::pipeline::write_atomically(&out.join(name), bytes).expect("writable");
    }
    t.lap();
    drop(loaded);
    t
}

struct Laps {
    clock: Instant,
    times: Vec<f64>,
    /// Live heap bytes at the end of each stage, and the most held during it.
    heap: Vec<(usize, usize)>,
    /// The process's resident set at the end of each stage and its high-water mark during it
    /// (Linux; zero elsewhere).
    resident: Vec<(usize, usize)>,
}

/// The resident set now and its high-water mark since the last call, in bytes, from
/// `/proc/self/status`; the mark is then reset (`/proc/self/clear_refs`). Zero where there is
/// no `/proc`.
fn resident() -> (usize, usize) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<usize>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    let now = (field("VmRSS:"), field("VmHWM:"));
    let _ = std::fs::write("/proc/self/clear_refs", "5");
    now
}

impl Laps {
    fn lap(&mut self) {
        self.times.push(self.clock.elapsed().as_secs_f64());
        self.heap
            .push((LIVE.load(Ordering::Relaxed), PEAK.load(Ordering::Relaxed)));
        self.resident.push(resident());
        Counting::restart_peak();
        self.clock = Instant::now();
    }

    fn restart(&mut self) {
        Counting::restart_peak();
        let _ = resident();
        self.clock = Instant::now();
    }
}
