//! Times Triangulate on one comb-shaped polygon of 10k, 40k and 160k corners
//! (`fixtures::export_like::comb_polygon`), with its integer coordinates and scaled by 0.37
//! (coordinates that are not multiples of a power of two, as most exports' are):
//! `cargo run --release -p kiln-process --example comb_time`. Results in docs/performance.md.

fn main() {
    for scale in [1.0f32, 0.37] {
        println!("coordinates × {scale}:");
        let mut last = None;
        for n in [10_000usize, 40_000, 160_000] {
            let mut best = f64::INFINITY;
            let mut tris = 0;
            for _ in 0..3 {
                let mut s = kiln_testkit::fixtures::export_like::comb_polygon(n);
                for p in &mut s.meshes[0].positions {
                    *p *= scale;
                }
                let t = std::time::Instant::now();
                kiln_process::triangulate(&mut s).expect("the comb is well-formed");
                best = best.min(t.elapsed().as_secs_f64());
                tris = s.meshes[0].face_count();
            }
            let growth = last
                .map(|l: f64| format!("{:.1}x", best / l))
                .unwrap_or_default();
            println!(
                "{n:>7} corners: {:>9.3} ms, {tris} triangles {growth}",
                best * 1e3
            );
            last = Some(best);
        }
    }
}
