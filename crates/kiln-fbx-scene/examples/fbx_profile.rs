//! Times the phases of importing the benchmark's large generated file:
//! `cargo run --release -p kiln-fbx-scene --example fbx_profile [-- zlib] [-- N]`.
//! Generates the file once, then parses and imports it N times (default 15), so that a
//! profiler (`perf record`) sees mostly the import.

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let compress = args.iter().any(|a| a == "zlib");
    let runs: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(15);
    let bytes = kiln_testkit::fixtures::fbx::benchmark_fbx(compress);
    let mut best = f64::MAX;
    for _ in 0..runs {
        let t = Instant::now();
        let doc = kiln_fbx::Document::parse(&bytes).unwrap();
        let t_parse = t.elapsed();
        let t = Instant::now();
        let s = kiln_fbx_scene::import_document(&doc, &Default::default()).unwrap();
        let t_import = t.elapsed();
        let t = Instant::now();
        let n = s.meshes[0].positions.len();
        drop(s);
        let t_drop = t.elapsed();
        let total = (t_parse + t_import + t_drop).as_secs_f64() * 1e3;
        best = best.min(total);
        println!("parse {t_parse:?}, import {t_import:?}, drop {t_drop:?} ({n} vertices)");
    }
    println!("best total {best:.1} ms ({} bytes)", bytes.len());
}
