//! kiln's full import against `ufbx::load_memory` on the benchmark's large generated file,
//! interleaved in one process (kiln, ufbx, kiln, ufbx...), so that both see the same machine
//! state; criterion (`cargo bench --bench fbx_import`) runs each one's samples in a block.
//!
//! `cargo run --release -p kiln-fbx-scene --example fbx_vs_ufbx [-- zlib] [-- ROUNDS]`
//! prints the minimum, first quartile and median of each (milliseconds, first round dropped).

use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let compress = args.iter().any(|a| a == "zlib");
    let rounds: usize = args.iter().find_map(|a| a.parse().ok()).unwrap_or(30);
    let bytes = kiln_testkit::fixtures::fbx::benchmark_fbx(compress);
    let (mut kiln, mut ufbx) = (Vec::new(), Vec::new());
    for round in 0..=rounds {
        let t = Instant::now();
        drop(kiln_fbx_scene::import(&bytes).expect("kiln imports the fixture"));
        let k = t.elapsed().as_secs_f64() * 1e3;
        let t = Instant::now();
        drop(ufbx::load_memory(&bytes, ufbx::LoadOpts::default()).expect("ufbx loads the fixture"));
        let u = t.elapsed().as_secs_f64() * 1e3;
        if round > 0 {
            kiln.push(k);
            ufbx.push(u);
        }
    }
    println!(
        "{} bytes ({}), {rounds} rounds",
        bytes.len(),
        if compress { "zlib" } else { "plain" }
    );
    for (name, t) in [("kiln", &mut kiln), ("ufbx", &mut ufbx)] {
        t.sort_by(f64::total_cmp);
        println!(
            "{name}: min {:.1} ms, p25 {:.1} ms, median {:.1} ms",
            t[0],
            t[t.len() / 4],
            t[t.len() / 2]
        );
    }
}
