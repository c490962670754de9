//! `LeSlice` over bytes that do not come from a parsed array (an inflater's output).

use kiln_fbx::LeSlice;

#[test]
fn a_view_of_loose_bytes_reads_whole_elements_and_ignores_a_ragged_tail() {
    let mut bytes = Vec::new();
    for v in [1i32, -2, 70_000] {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    bytes.extend_from_slice(&[0xAA, 0xBB]); // half an element
    // Misaligned on purpose: start one byte in.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&bytes);
    let s = LeSlice::<i32>::new(&shifted[1..]);
    assert_eq!(s.len(), 3);
    assert_eq!(s.get(2), Some(70_000));
    assert_eq!(s.get(3), None);
    assert_eq!(s.iter().len(), 3);
    assert_eq!(s.iter().collect::<Vec<_>>(), [1, -2, 70_000]);
    assert_eq!(s.to_vec(), [1, -2, 70_000]);
    let half = 0.5f64.to_le_bytes();
    let f = LeSlice::<f64>::new(&half);
    assert_eq!(f.to_vec(), [0.5]);
}
