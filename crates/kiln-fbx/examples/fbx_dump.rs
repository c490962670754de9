//! Prints the node tree of an FBX file: `cargo run -p kiln-fbx --example fbx_dump -- FILE`.
//! Arrays show their type, count and first values; strings are shown lossily.

use kiln_fbx::{Document, Value};

fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: fbx_dump FILE");
        std::process::exit(2);
    };
    let bytes = std::fs::read(&path).unwrap_or_else(|e| {
        eprintln!("{path}: {e}");
        std::process::exit(1)
    });
    let doc = match Document::parse(&bytes) {
        Ok(doc) => doc,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1)
        }
    };
    println!(
        "{:?} version {}: {} nodes, {} properties",
        doc.format(),
        doc.version(),
        doc.node_count(),
        doc.property_count()
    );
    for node in doc.nodes() {
        let mut line = format!("{}{}:", "  ".repeat(node.depth()), node.name());
        for p in node.properties() {
            let shown = match p.value() {
                Value::String(s) => format!("{:?}", String::from_utf8_lossy(s)),
                Value::Raw(_) => match p.as_raw() {
                    Ok(b) => format!("<{} bytes>", b.len()),
                    Err(e) => format!("<{e}>"),
                },
                Value::Array(a) => match p.as_f64_array() {
                    Ok(v) => format!("{}[{}] {:?}", a.ty().name(), a.len(), &v[..v.len().min(4)]),
                    Err(_) => format!("{}[{}]", a.ty().name(), a.len()),
                },
                v => format!("{v:?}"),
            };
            line.push(' ');
            line.push_str(&shown);
        }
        println!("{line}");
    }
}
