//! Writes the import benchmark's generated model (a skinned tube of 500,000 triangles, binary
//! FBX 7.4; `fixtures::fbx::benchmark_fbx`) to a file, so whole-process tools can time
//! `kiln convert` on it: `cargo run --release -p kiln-testkit --example write_benchmark_fbx --
//! OUT.fbx [zlib]`.

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(out) = args.first() else {
        eprintln!("usage: write_benchmark_fbx OUT.fbx [zlib]");
        std::process::exit(2);
    };
    let compress = args.iter().any(|a| a == "zlib");
    let bytes = kiln_testkit::fixtures::fbx::benchmark_fbx(compress);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("{out}: cannot write: {e}");
        std::process::exit(1);
    }
    println!("{out}: {} bytes", bytes.len());
}
