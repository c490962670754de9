//! Checks the `.assxml` reader that the conformance harness uses, on a dump written here.

const DUMP: &str = r#"<?xml version="1.0" encoding="utf-8"?>
<ASSIMP format_id="1">
<Scene flags="0" postprocessing="0">
<Node name="root">
	<Matrix4>
		 1.000000  0.000000  0.000000  5.000000
		 0.000000  1.000000  0.000000  0.000000
		 0.000000  0.000000  1.000000  0.000000
		 0.000000  0.000000  0.000000  1.000000
	</Matrix4>
	<NodeList num="2">
		<Node name="a"><Matrix4> 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 </Matrix4>
			<MeshRefs num="1"> 0 </MeshRefs>
			<NodeList num="1"><Node name="a1"><Matrix4> 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 </Matrix4></Node></NodeList>
		</Node>
		<Node name="b"><Matrix4> 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 </Matrix4></Node>
	</NodeList>
</Node>
<MaterialList num="1"><Material><MatPropertyList num="3">
	<MatProperty key="?mat.name" type="string" tex_usage="n/a" tex_index="0">"m &amp; n"</MatProperty>
	<MatProperty key="$clr.diffuse" type="float" tex_usage="n/a" tex_index="0" size="3"> 0.5 0.25 1.0 </MatProperty>
	<MatProperty key="$tex.file" type="string" tex_usage="Normals" tex_index="0">"n.png"</MatProperty>
</MatPropertyList></Material></MaterialList>
<MeshList num="1">
	<Mesh types="  triangles " material_index="0">
		<FaceList num="2"><Face num="3"> 2 1 0 </Face><Face num="2"> 0 1 </Face></FaceList>
		<Positions num="3" set="0" num_components="3"> 0 0 0  1 0 0  0 1 -nan </Positions>
		<TextureCoords num="3" set="0" name="" num_components="2"> 0 0 1 0 0 1 </TextureCoords>
		<BoneList num="1"><Bone name="a"><Matrix4> 1 0 0 0 0 1 0 0 0 0 1 0 0 0 0 1 </Matrix4>
			<WeightList num="1"><Weight index="2"> 0.75 </Weight></WeightList></Bone></BoneList>
	</Mesh>
</MeshList>
<AnimationList num="1"><Animation name="run" duration="3.900000e+01" tick_cnt="2.500000e+01">
	<NodeAnimList num="1"><NodeAnim node="a">
		<RotationKeyList num="1"><RotationKey time="1.0"> -0.6 0 0 0.8 </RotationKey></RotationKeyList>
	</NodeAnim></NodeAnimList>
</Animation></AnimationList>
</Scene>
</ASSIMP>
"#;

#[test]
fn reads_nodes_meshes_materials_and_animations() {
    let s = kiln_testkit::assxml::parse_assxml(DUMP).unwrap();
    s.validate().unwrap();
    let names: Vec<&str> = s
        .depth_first()
        .iter()
        .map(|&i| s.nodes[i].name.as_str())
        .collect();
    assert_eq!(names, ["root", "a", "a1", "b"]);
    assert_eq!(
        s.nodes[0].transform.w_axis.x, 5.0,
        "rows are printed, translation last column"
    );
    assert_eq!(s.nodes[1].meshes, [0]);
    assert_eq!(s.materials[0].name, "m & n");
    assert_eq!(s.materials[0].diffuse.unwrap().y, 0.25);
    assert_eq!(s.materials[0].textures[0].path, "n.png");
    let m = &s.meshes[0];
    assert_eq!(m.face_sizes, [3, 2]);
    assert_eq!(m.indices, [2, 1, 0, 0, 1]);
    assert!(m.positions[2].z.is_nan());
    assert_eq!(m.uv_channels[0].coords[1].x, 1.0);
    assert_eq!(m.bones[0].weights[0].vertex, 2);
    assert_eq!(s.animations[0].ticks_per_second, 25.0);
    assert_eq!(s.animations[0].channels[0].rotation_keys[0].value.w, 0.8);
}
