//! Parsing allocates in proportion to the input, and decoding in proportion to the declared
//! (and checked) array size: a counting global allocator measures it. One test function, so
//! no other test allocates at the same time.

use kiln_fbx::{Document, ErrorKind, OwnedNode, OwnedValue, Value, WriteOptions, write_binary};
use kiln_testkit::corpus::{self, read};

#[global_allocator]
static GLOBAL: kiln_testkit::alloc::Counting = kiln_testkit::alloc::Counting;

/// Bytes allocated (in total, and the largest single block) while `f` runs.
fn measure<R>(f: impl FnOnce() -> R) -> (R, usize, usize) {
    let (r, a) = kiln_testkit::alloc::measure(f);
    (r, a.bytes, a.largest)
}

/// The documented bound on a parse: a record takes at least 13 bytes of input and a property
/// 2, and each is 40 bytes in the arena, which grows by doubling.
fn parse_bound(input: usize) -> usize {
    48 * input + (64 << 10)
}

#[test]
fn allocations_stay_proportional() {
    // Corpus files: well under the bound (under 8 times the input in total).
    for path in corpus::fbx_files() {
        let bytes = read(&path);
        let (r, total, largest) = measure(|| Document::parse(&bytes).map(|d| d.node_count()));
        if r.is_ok() {
            assert!(
                total <= 8 * bytes.len() + (64 << 10),
                "{path:?}: {total} for {}",
                bytes.len()
            );
        }
        assert!(largest <= parse_bound(bytes.len()));
    }

    // The densest binary input: one node with 100 000 one-byte `C` properties.
    let props = vec![OwnedValue::Char(1); 100_000];
    let dense = write_binary(
        &[OwnedNode {
            name: "A".into(),
            properties: props,
            children: vec![],
        }],
        &WriteOptions::V7400,
    )
    .unwrap();
    let (r, total, largest) = measure(|| Document::parse(&dense).map(|d| d.property_count()));
    assert_eq!(r.unwrap(), 100_000);
    assert!(
        largest <= parse_bound(dense.len()) && total <= 2 * parse_bound(dense.len()),
        "{largest} {total}"
    );

    // The densest ASCII input: `A: 1,1,1,...`.
    let mut text = b"A: 1".to_vec();
    text.extend(b",1".repeat(100_000));
    let (r, total, largest) = measure(|| Document::parse(&text).map(|d| d.property_count()));
    assert_eq!(r.unwrap(), 100_001);
    assert!(
        largest <= parse_bound(text.len()) && total <= 2 * parse_bound(text.len()),
        "{largest} {total}"
    );

    // A header declaring 2^32-1 properties in 5 bytes: rejected before any reservation.
    let mut b = write_binary(
        &[OwnedNode::new("A").with(OwnedValue::I32(1))],
        &WriteOptions::V7400,
    )
    .unwrap();
    b[31..35].copy_from_slice(&u32::MAX.to_le_bytes());
    let (r, _, largest) = measure(|| Document::parse(&b).map(|_| ()));
    assert!(
        matches!(
            r.as_ref().map_err(|e| e.kind.clone()),
            Err(ErrorKind::TooManyProperties {
                count: 4_294_967_295,
                ..
            })
        ),
        "{r:?}"
    );
    assert!(largest <= parse_bound(b.len()), "{largest}");

    // A zlib bomb: 64 MiB of zeros in ~64 KiB, declared as 1000 bytes. Decoding allocates the
    // declared 1000 bytes and the inflater's state, not the 64 MiB.
    let mut bomb = write_binary(
        &[OwnedNode::new("A").with(OwnedValue::BoolArray(vec![0; 64 << 20]))],
        &WriteOptions::V7400.compressed(),
    )
    .unwrap();
    bomb[42..46].copy_from_slice(&1000u32.to_le_bytes());
    let doc = Document::parse(&bomb).unwrap();
    let Some(Value::Array(a)) = doc.root("A").unwrap().value(0) else {
        panic!()
    };
    let (r, total, largest) = measure(|| a.decode::<u8>().map(|v| v.len()));
    assert_eq!(r, Err(ErrorKind::InflatedTooLarge { expected: 1000 }));
    assert!(largest < 64 << 10 && total < 128 << 10, "{largest} {total}");

    // Decoding a real array allocates its size once (plus the inflater's state).
    let big = write_binary(
        &[OwnedNode::new("A").with(OwnedValue::F64Array(
            (0..1_000_000).map(f64::from).collect(),
        ))],
        &WriteOptions::V7400.compressed(),
    )
    .unwrap();
    let doc = Document::parse(&big).unwrap();
    let p = doc.root("A").unwrap().property(0).unwrap();
    let (r, total, largest) = measure(|| p.as_f64_array().map(|v| v.len()));
    assert_eq!(r.unwrap(), 1_000_000);
    assert_eq!(largest, 8_000_000);
    assert!(total < 8_000_000 + (64 << 10), "{total}");
}
