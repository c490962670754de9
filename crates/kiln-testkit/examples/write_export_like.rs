//! Writes the whole-conversion benchmark's generated model (`fixtures::export_like`) to a file:
//! `cargo run --release -p kiln-testkit --example write_export_like -- OUT.fbx TRIANGLES
//! [MATERIALS]` (4 by default; 1 gives a single mesh, as many real exports are).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(out), Some(tris)) = (args.first(), args.get(1).and_then(|t| t.parse().ok())) else {
        eprintln!("usage: write_export_like OUT.fbx TRIANGLES [MATERIALS]");
        std::process::exit(2);
    };
    let mut spec = kiln_testkit::fixtures::export_like::ExportSpec::triangles(tris);
    if let Some(m) = args.get(2) {
        match m.parse() {
            Ok(m) if m > 0 && 256 % m == 0 => spec.materials = m,
            _ => {
                eprintln!("MATERIALS must divide 256, got '{m}'");
                std::process::exit(2);
            }
        }
    }
    let (bytes, triangles) = kiln_testkit::fixtures::export_like::export_like_fbx(spec);
    if let Err(e) = std::fs::write(out, &bytes) {
        eprintln!("{out}: cannot write: {e}");
        std::process::exit(1);
    }
    println!("{out}: {} bytes, {triangles} triangles", bytes.len());
}
