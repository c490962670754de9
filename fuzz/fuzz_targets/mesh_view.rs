//! `MeshView::parse` on any bytes: never panics; what it accepts satisfies the view's
//! invariants (indices inside their part, parents before children) and re-encodes to a file
//! that parses to the same model, bit for bit.
#![no_main]

use kiln_format::Vertex;
use kiln_format::kiln::{AlignedBytes, MeshOptions, MeshView, write_mesh};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let bytes = AlignedBytes::from_bytes(data);
    let Ok(view) = MeshView::parse(&bytes) else {
        return;
    };
    let _ = view.verify_checksum();
    let _ = view.check_joints();
    let _ = view.sections().count();
    let model = view.to_model();
    let materials = view.to_materials();
    assert_eq!(
        model.meshes.iter().map(|m| m.vertices.len()).sum::<usize>(),
        view.vertex_count()
    );
    for part in &model.meshes {
        assert!(
            part.indices
                .iter()
                .all(|&i| (i as usize) < part.vertices.len())
        );
        assert_eq!(part.indices.len() % 3, 0);
    }
    for (i, bone) in model.bones.iter().enumerate() {
        assert!(bone.parent == -1 || (0..i as i32).contains(&bone.parent));
    }
    let offsets = view.offset_matrices();
    let again = write_mesh(
        &model,
        &materials,
        &MeshOptions {
            offset_matrices: Some(&offsets),
            ..Default::default()
        },
    )
    .expect("a parsed model must be writable");
    let again = AlignedBytes::from_bytes(&again);
    let view2 = MeshView::parse(&again).expect("a written mesh must parse");
    view2
        .verify_checksum()
        .expect("a written mesh has a valid checksum");
    let model2 = view2.to_model();
    assert_eq!(model2.bones.len(), model.bones.len());
    assert_eq!(model2.meshes.len(), model.meshes.len());
    for (a, b) in model.meshes.iter().zip(&model2.meshes) {
        assert_eq!(a.indices, b.indices);
        assert_eq!(
            bytemuck::cast_slice::<Vertex, u8>(&a.vertices),
            bytemuck::cast_slice::<Vertex, u8>(&b.vertices)
        );
    }
});
