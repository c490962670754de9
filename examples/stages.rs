//! Where a conversion's time goes: runs the stages of `kiln convert` one by one on an FBX file,
//! as the pipeline runs them (read, parse, scene import, left-handed conversion, triangulate,
//! normals, tangents, skin and clip extraction, encode, write; pre-transform on a copy, as
//! `--static` would run it), on rayon pools of 1 and 2 threads, and prints a Markdown table of
//! median times with throughput in millions of polygon corners per second and MB/s of input.
//! As the pipeline does, the `.mesh` is not encoded in memory but streamed from the model at
//! write time (`classic::write_mesh_to`); the other files are encoded, then written.
//!
//! `cargo run --release --example stages -- MODEL.fbx [RUNS]`; the model can be made with
//! `cargo run --release -p kiln-testkit --example write_export_like -- MODEL.fbx 400000`.
//! Results in docs/performance.md.

use std::path::Path;
use std::time::Instant;

const STAGES: [&str; 11] = [
    "read",
    "parse (FBX tree, inflate)",
    "scene import",
    "left-handed conversion",
    "triangulate",
    "normals",
    "tangents",
    "pre-transform (static, on a copy)",
    "skin and clip extraction",
    "encode (classic: clips, materials)",
    "write (classic: the mesh streamed, the rest)",
];

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(path) = args.first() else {
        eprintln!("usage: stages MODEL.fbx [RUNS]");
        std::process::exit(2);
    };
    let runs: usize = args.get(1).and_then(|r| r.parse().ok()).unwrap_or(5);
    let path = Path::new(path);
    let out = std::env::temp_dir().join("kiln-stages-out");
    std::fs::create_dir_all(&out).expect("temp folder");
    let mut columns = Vec::new();
    let mut corners = 0usize;
    let mut bytes_in = 0usize;
    for threads in [1usize, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        let mut times: Vec<Vec<f64>> = vec![Vec::new(); STAGES.len()];
        for _ in 0..runs {
            let t = pool.install(|| one_run(path, &out, &mut corners, &mut bytes_in));
            for (k, s) in t.into_iter().enumerate() {
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
    println!(
        "| stage | 1 thread (ms) | M corners/s | MB/s | 2 threads (ms) | M corners/s | MB/s |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|");
    let mut totals = [0.0f64; 2];
    for (k, name) in STAGES.iter().enumerate() {
        let mut row = format!("| {name} |");
        for (c, col) in columns.iter().enumerate() {
            let s = col[k];
            if k != 7 {
                totals[c] += s;
            }
            row += &format!(
                " {:.1} | {:.0} | {:.0} |",
                s * 1e3,
                corners as f64 / s / 1e6,
                bytes_in as f64 / s / 1e6
            );
        }
        println!("{row}");
    }
    println!(
        "| **total (without pre-transform)** | {:.1} | {:.0} | {:.0} | {:.1} | {:.0} | {:.0} |",
        totals[0] * 1e3,
        corners as f64 / totals[0] / 1e6,
        bytes_in as f64 / totals[0] / 1e6,
        totals[1] * 1e3,
        corners as f64 / totals[1] / 1e6,
        bytes_in as f64 / totals[1] / 1e6,
    );
    let _ = std::fs::remove_dir_all(&out);
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One conversion, stage by stage; the seconds each took.
fn one_run(path: &Path, out: &Path, corners: &mut usize, bytes_in: &mut usize) -> Vec<f64> {
    let mut t = Laps {
        clock: Instant::now(),
        times: Vec::with_capacity(STAGES.len()),
    };
    let bytes = std::fs::read(path).expect("the model is readable");
    *bytes_in = bytes.len();
    t.lap();
    let doc = kiln::fbx_tree::Document::parse(&bytes).expect("the model parses");
    t.lap();
    let mut scene = kiln::fbx::import_document(&doc, &kiln::fbx::ImportOptions::default())
        .expect("the model imports");
    *corners = scene.meshes.iter().map(|m| m.indices.len()).sum();
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
    let mut copy = scene.clone();
    t.restart();
    kiln::process::pre_transform_vertices(&mut copy).expect("valid scene");
    t.lap();
    drop(copy);
    t.restart();
    let loaded = kiln::load::from_scene(scene, path, &kiln::LoadOptions::default());
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
    t.restart();
    let mesh = out.join(format!("{}.mesh", loaded.name));
    let mut w =
        std::io::BufWriter::with_capacity(1 << 16, std::fs::File::create(&mesh).expect("writable"));
    kiln::format::classic::write_mesh_to(&loaded.model, &mut w).expect("writable");
    std::io::Write::flush(&mut w).expect("writable");
    drop(w);
    for (name, bytes) in &rest {
        kiln::pipeline::write_atomically(&out.join(name), bytes).expect("writable");
    }
    t.lap();
    drop(loaded);
    drop(doc);
    t.times
}

struct Laps {
    clock: Instant,
    times: Vec<f64>,
}

impl Laps {
    fn lap(&mut self) {
        self.times.push(self.clock.elapsed().as_secs_f64());
        self.clock = Instant::now();
    }

    fn restart(&mut self) {
        self.clock = Instant::now();
    }
}
