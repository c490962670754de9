//! FBX node-tree throughput (MB/s of file bytes), kiln-fbx beside fbxcel 0.9 on the same bytes
//! in the same run:
//! - `fbx_tree_corpus`: every FBX file of Assimp's corpus (binary and ASCII);
//! - `fbx_tree_generated`: a generated file with about 100 MB of geometry arrays, written
//!   uncompressed and compressed (binary 7.4), and the same scene as ASCII;
//! - `fbx_inflate`: the inflater choice, miniz_oxide against zune-inflate and zlib-rs on the generated
//!   file's compressed arrays.
//!
//! Each file is measured as `kiln-fbx` (the tree: arrays stay borrowed or compressed),
//! `kiln-fbx+arrays` (the tree, then every array inflated or parsed into a `Vec` and every blob
//! decoded: every value available, as in fbxcel's tree), `kiln-fbx+decode` (the tree copied
//! into owned nodes, `Document::to_owned_nodes`: names and strings copied too) and `fbxcel`
//! (its arena tree, `tree` feature).
//!
//! `cargo bench --bench fbx_tree`; results in docs/performance.md. Needs the Debian package
//! assimp-testmodels (/usr/share/assimp/models).

use std::fmt::Write as _;
use std::hint::black_box;
use std::io::Cursor;
use std::time::Duration;

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use kiln_fbx::{ArrayType, Document, OwnedNode, OwnedValue, Value, WriteOptions, write_binary};

fn fbxcel_parse(bytes: &[u8]) -> Option<fbxcel::tree::v7400::Tree> {
    match fbxcel::tree::any::AnyTree::from_seekable_reader(Cursor::new(bytes)) {
        Ok(fbxcel::tree::any::AnyTree::V7400(_, tree, _)) => Some(tree),
        _ => None,
    }
}

/// Decodes every array (inflated or parsed into a `Vec` of its element type) and every blob:
/// then every value of the file is available, as in fbxcel's tree (scalars and strings are
/// read in place).
fn decode_arrays(doc: &Document<'_>) -> usize {
    let mut n = 0;
    for node in doc.nodes() {
        for p in node.properties() {
            n += match p.value() {
                Value::Array(a) => match a.ty() {
                    ArrayType::F64 => a.decode::<f64>().unwrap().len(),
                    ArrayType::F32 => a.decode::<f32>().unwrap().len(),
                    ArrayType::I32 => a.decode::<i32>().unwrap().len(),
                    ArrayType::I64 => a.decode::<i64>().unwrap().len(),
                    ArrayType::Bool | ArrayType::Byte => a.decode::<u8>().unwrap().len(),
                },
                Value::Raw(r) => r.decode().unwrap().len(),
                _ => 0,
            };
        }
    }
    n
}

fn bench_file(
    g: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    bytes: &[u8],
) {
    g.throughput(Throughput::Bytes(bytes.len() as u64));
    g.bench_with_input(BenchmarkId::new("kiln-fbx", id), bytes, |b, bytes| {
        b.iter(|| Document::parse(black_box(bytes)).unwrap().node_count())
    });
    g.bench_with_input(
        BenchmarkId::new("kiln-fbx+arrays", id),
        bytes,
        |b, bytes| b.iter(|| decode_arrays(&Document::parse(black_box(bytes)).unwrap())),
    );
    g.bench_with_input(
        BenchmarkId::new("kiln-fbx+decode", id),
        bytes,
        |b, bytes| {
            b.iter(|| {
                let doc = Document::parse(black_box(bytes)).unwrap();
                doc.to_owned_nodes().unwrap()
            })
        },
    );
    if fbxcel_parse(bytes).is_some() {
        g.bench_with_input(BenchmarkId::new("fbxcel", id), bytes, |b, bytes| {
            b.iter(|| fbxcel_parse(black_box(bytes)).unwrap())
        });
    }
}

fn corpus_files(c: &mut Criterion) {
    let mut g = c.benchmark_group("fbx_tree_corpus");
    g.warm_up_time(Duration::from_millis(500));
    g.measurement_time(Duration::from_secs(2));
    for path in kiln_testkit::corpus::fbx_files() {
        let bytes = std::fs::read(&path).unwrap();
        if Document::parse(&bytes).is_err() {
            continue; // transparentTest.fbx, damaged
        }
        let id = path.file_name().unwrap().to_string_lossy().into_owned();
        bench_file(&mut g, &id, &bytes);
    }
    g.finish();
}

/// A scene of `meshes` grid meshes, each `n × n` quads with positions, per-corner normals and
/// UVs with their index: about 150 bytes of arrays per quad.
fn generated_tree(meshes: usize, n: usize) -> Vec<OwnedNode> {
    let mut objects = OwnedNode::new("Objects");
    for m in 0..meshes {
        let mut positions = Vec::with_capacity((n + 1) * (n + 1) * 3);
        let mut uvs = Vec::with_capacity((n + 1) * (n + 1) * 2);
        for y in 0..=n {
            for x in 0..=n {
                let (fx, fy) = (x as f64 / n as f64, y as f64 / n as f64);
                let z = ((fx * 12.9898 + fy * 78.233 + m as f64).sin() * 0.25) as f32;
                positions.extend_from_slice(&[fx * 10.0, f64::from(z), fy * 10.0]);
                uvs.extend_from_slice(&[fx, fy]);
            }
        }
        let mut index = Vec::with_capacity(n * n * 4);
        let mut normals = Vec::with_capacity(n * n * 12);
        let row = (n + 1) as i32;
        for y in 0..n as i32 {
            for x in 0..n as i32 {
                let i = y * row + x;
                index.extend_from_slice(&[i, i + 1, i + row + 1, -(i + row) - 1]);
                for _ in 0..4 {
                    let t = f64::from(i % 97) / 97.0;
                    normals.extend_from_slice(&[t * 0.1, 1.0 - t * 0.01, -t * 0.1]);
                }
            }
        }
        let uv_index: Vec<i32> = index
            .iter()
            .map(|&v| if v < 0 { -v - 1 } else { v })
            .collect();
        let id = 1_000_000 + m as i64;
        let geometry = OwnedNode::new("Geometry")
            .with(OwnedValue::I64(id))
            .with(OwnedValue::String(
                format!("grid{m}\0\x01Geometry").into_bytes(),
            ))
            .with(OwnedValue::string("Mesh"))
            .with_child(OwnedNode::new("Vertices").with(OwnedValue::F64Array(positions)))
            .with_child(OwnedNode::new("PolygonVertexIndex").with(OwnedValue::I32Array(index)))
            .with_child(
                OwnedNode::new("LayerElementNormal")
                    .with(OwnedValue::I32(0))
                    .with_child(
                        OwnedNode::new("MappingInformationType")
                            .with(OwnedValue::string("ByPolygonVertex")),
                    )
                    .with_child(OwnedNode::new("Normals").with(OwnedValue::F64Array(normals))),
            )
            .with_child(
                OwnedNode::new("LayerElementUV")
                    .with(OwnedValue::I32(0))
                    .with_child(OwnedNode::new("UV").with(OwnedValue::F64Array(uvs)))
                    .with_child(OwnedNode::new("UVIndex").with(OwnedValue::I32Array(uv_index))),
            );
        objects.children.push(geometry);
    }
    vec![
        OwnedNode::new("FBXHeaderExtension")
            .with_child(OwnedNode::new("FBXVersion").with(OwnedValue::I32(7400))),
        objects,
        OwnedNode::new("Connections"),
    ]
}

/// The same tree as ASCII FBX 7.4 text (numbers in Rust's shortest round-trip form).
fn ascii(tree: &[OwnedNode]) -> String {
    fn node(out: &mut String, n: &OwnedNode, depth: usize) {
        let tabs = "\t".repeat(depth);
        let _ = write!(out, "{tabs}{}: ", n.name);
        let mut arrays = Vec::new();
        for (i, p) in n.properties.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            match p {
                OwnedValue::I32(v) => {
                    let _ = write!(out, "{v}");
                }
                OwnedValue::I64(v) => {
                    let _ = write!(out, "{v}");
                }
                OwnedValue::String(s) => {
                    let _ = write!(
                        out,
                        "\"{}\"",
                        String::from_utf8_lossy(s).replace("\0\x01", "::")
                    );
                }
                OwnedValue::F64Array(v) => {
                    arrays.push(v.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                }
                OwnedValue::I32Array(v) => {
                    arrays.push(v.iter().map(|x| x.to_string()).collect::<Vec<_>>())
                }
                _ => unreachable!("not generated"),
            }
        }
        if let Some(values) = arrays.pop() {
            let _ = write!(
                out,
                "*{} {{\n{tabs}\ta: {}\n{tabs}}}\n",
                values.len(),
                values.join(",")
            );
            return;
        }
        out.push_str(" {\n");
        for c in &n.children {
            node(out, c, depth + 1);
        }
        let _ = writeln!(out, "{tabs}}}");
    }
    let mut out = String::from("; FBX 7.4.0 project file\n");
    for n in tree {
        node(&mut out, n, 0);
    }
    out
}

fn generated(c: &mut Criterion) {
    // 16 meshes of 200 × 200 quads: ~104 MB of arrays.
    let tree = generated_tree(16, 200);
    let plain = write_binary(&tree, &WriteOptions::V7400).unwrap();
    let zlib = write_binary(&tree, &WriteOptions::V7400.compressed()).unwrap();
    // ASCII: a quarter of the meshes (the text is about 2.5× the binary size).
    let text = ascii(&generated_tree(4, 200));
    let mut g = c.benchmark_group("fbx_tree_generated");
    g.sample_size(10);
    g.warm_up_time(Duration::from_secs(1));
    g.measurement_time(Duration::from_secs(5));
    bench_file(&mut g, &format!("binary-{}MB", plain.len() >> 20), &plain);
    bench_file(
        &mut g,
        &format!("binary-zlib-{}MB", zlib.len() >> 20),
        &zlib,
    );
    bench_file(
        &mut g,
        &format!("ascii-{}MB", text.len() >> 20),
        text.as_bytes(),
    );
    g.finish();
}

fn inflaters(c: &mut Criterion) {
    let tree = generated_tree(4, 200);
    let zlib = write_binary(&tree, &WriteOptions::V7400.compressed()).unwrap();
    let doc = Document::parse(&zlib).unwrap();
    let mut g = c.benchmark_group("fbx_inflate");
    g.sample_size(20);
    for name in ["Vertices", "PolygonVertexIndex"] {
        let node = doc.nodes().find(|n| n.name() == name).unwrap();
        let array = node.property(0).unwrap().as_array().unwrap();
        let kiln_fbx::ArrayEncoding::Zlib(stream) = array.encoding() else {
            unreachable!()
        };
        let size = array.len() * array.ty().element_size();
        g.throughput(Throughput::Bytes(size as u64));
        g.bench_function(BenchmarkId::new("miniz_oxide", name), |b| {
            b.iter(|| {
                let mut out = vec![0u8; size];
                let mut state = Box::<miniz_oxide::inflate::core::DecompressorOxide>::default();
                let flags = miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_PARSE_ZLIB_HEADER
                    | miniz_oxide::inflate::core::inflate_flags::TINFL_FLAG_USING_NON_WRAPPING_OUTPUT_BUF;
                let (_, _, n) = miniz_oxide::inflate::core::decompress(&mut state, black_box(stream), &mut out, 0, flags);
                assert_eq!(n, size);
                out
            })
        });
        g.bench_function(BenchmarkId::new("zune-inflate", name), |b| {
            b.iter(|| {
                let options = zune_inflate::DeflateOptions::default()
                    .set_limit(size)
                    .set_size_hint(size);
                let out =
                    zune_inflate::DeflateDecoder::new_with_options(black_box(stream), options)
                        .decode_zlib()
                        .unwrap();
                assert_eq!(out.len(), size);
                out
            })
        });
        g.bench_function(BenchmarkId::new("zlib-rs", name), |b| {
            b.iter(|| {
                let mut out = vec![0u8; size];
                let (got, rc) = zlib_rs::decompress_slice(
                    &mut out,
                    black_box(stream),
                    zlib_rs::InflateConfig::default(),
                );
                assert!(rc == zlib_rs::ReturnCode::Ok && got.len() == size);
                out
            })
        });
        g.bench_function(BenchmarkId::new("kiln-fbx-decode", name), |b| {
            b.iter(|| array.to_le_bytes().unwrap())
        });
    }
    g.finish();
}

criterion_group!(benches, corpus_files, generated, inflaters);
criterion_main!(benches);
