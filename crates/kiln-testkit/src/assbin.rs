//! Reader for Assimp's binary dump (`assimp dump FILE OUT.assbin -b`, uncompressed, not
//! shortened), written from Assimp 5.2's `AssbinFileWriter.cpp`. Unlike the XML dump, which
//! prints six decimals, it keeps every float bit, so the conformance test feeds kiln exactly what
//! Assimp's post-processing saw.

use kiln_scene::{
    Animation, Bone, Mat4, Material, Mesh, Node, NodeChannel, PrimitiveTypes, PropertyValue, Quat,
    QuatKey, Scene, UvChannel, Vec3, Vec4, VectorKey, VertexWeight,
};

const CHUNK_MESH: u32 = 0x1237;
const CHUNK_NODEANIM: u32 = 0x1238;
const CHUNK_SCENE: u32 = 0x1239;
const CHUNK_BONE: u32 = 0x123a;
const CHUNK_ANIMATION: u32 = 0x123b;
const CHUNK_NODE: u32 = 0x123c;
const CHUNK_MATERIAL: u32 = 0x123d;
const CHUNK_MATERIALPROPERTY: u32 = 0x123e;

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn bytes(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.pos.checked_add(n).filter(|&e| e <= self.data.len());
        let end = end.ok_or_else(|| format!("assbin: truncated at {} (+{n})", self.pos))?;
        let b = &self.data[self.pos..end];
        self.pos = end;
        Ok(b)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.bytes(2)?.try_into().unwrap()))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.bytes(4)?.try_into().unwrap()))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.bytes(4)?.try_into().unwrap()))
    }
    fn f64(&mut self) -> Result<f64, String> {
        Ok(f64::from_le_bytes(self.bytes(8)?.try_into().unwrap()))
    }
    fn vec3(&mut self) -> Result<Vec3, String> {
        Ok(Vec3::new(self.f32()?, self.f32()?, self.f32()?))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        Ok(kiln_scene::names::from_bytes(self.bytes(n)?).into_owned())
    }
    fn matrix(&mut self) -> Result<Mat4, String> {
        let mut rows = [0f32; 16];
        for v in &mut rows {
            *v = self.f32()?;
        }
        Ok(Mat4::from_cols_array(&rows).transpose())
    }
    /// Reads a chunk header and returns a reader over its body.
    fn chunk(&mut self, magic: u32) -> Result<Reader<'a>, String> {
        let m = self.u32()?;
        if m != magic {
            return Err(format!(
                "assbin: chunk {m:#x} where {magic:#x} was expected"
            ));
        }
        let n = self.u32()? as usize;
        Ok(Reader {
            data: self.bytes(n)?,
            pos: 0,
        })
    }
}

/// What the scene model cannot hold but the conformance test needs to know.
#[derive(Clone, Copy, Debug, Default)]
pub struct Extras {
    /// Lights in the scene.
    pub lights: u32,
    /// Cameras in the scene.
    pub cameras: u32,
}

/// Parses an uncompressed, full `.assbin` dump.
pub fn parse_assbin(data: &[u8]) -> Result<(Scene, Extras), String> {
    if data.len() < 512 || !data.starts_with(b"ASSIMP.binary-dump.") {
        return Err("assbin: not a binary dump".into());
    }
    let mut r = Reader { data, pos: 44 + 16 };
    let shortened = r.u16()?;
    let compressed = r.u16()?;
    if shortened != 0 || compressed != 0 {
        return Err("assbin: shortened or compressed dumps are not supported".into());
    }
    r.pos = 512;
    let mut s = r.chunk(CHUNK_SCENE)?;
    let _flags = s.u32()?;
    let (nm, nmat, nanim) = (s.u32()?, s.u32()?, s.u32()?);
    let (_ntex, lights, cameras) = (s.u32()?, s.u32()?, s.u32()?);
    let mut scene = Scene::default();
    // Node tree, pre-order, with an explicit stack of (reader, parent, children left).
    let mut root = s.chunk(CHUNK_NODE)?;
    let mut stack: Vec<(Reader, usize, u32)> = Vec::new();
    let (node, nchildren) = read_node(&mut root)?;
    scene.nodes.push(node);
    stack.push((root, 0, nchildren));
    while let Some((mut rd, id, left)) = stack.pop() {
        if left == 0 {
            continue;
        }
        let mut child = rd.chunk(CHUNK_NODE)?;
        stack.push((rd, id, left - 1));
        let (node, n) = read_node(&mut child)?;
        let cid = scene.add_child(id, node);
        stack.push((child, cid, n));
    }
    for _ in 0..nm {
        scene.meshes.push(read_mesh(&mut s.chunk(CHUNK_MESH)?)?);
    }
    for _ in 0..nmat {
        scene
            .materials
            .push(read_material(&mut s.chunk(CHUNK_MATERIAL)?)?);
    }
    for _ in 0..nanim {
        scene
            .animations
            .push(read_animation(&mut s.chunk(CHUNK_ANIMATION)?)?);
    }
    Ok((scene, Extras { lights, cameras }))
}

fn read_node(r: &mut Reader) -> Result<(Node, u32), String> {
    let mut node = Node::new(r.string()?);
    node.transform = r.matrix()?;
    let nchildren = r.u32()?;
    let nmeshes = r.u32()?;
    let _nmeta = r.u32()?;
    for _ in 0..nmeshes {
        node.meshes.push(r.u32()? as usize);
    }
    Ok((node, nchildren))
}

fn read_mesh(r: &mut Reader) -> Result<Mesh, String> {
    let prim = r.u32()?;
    let nv = r.u32()? as usize;
    let nf = r.u32()?;
    let nb = r.u32()?;
    let material = r.u32()? as usize;
    let bits = r.u32()?;
    let mut m = Mesh {
        material,
        primitive_types: PrimitiveTypes((prim & 0xf) as u8),
        ..Mesh::default()
    };
    let vecs =
        |r: &mut Reader| -> Result<Vec<Vec3>, String> { (0..nv).map(|_| r.vec3()).collect() };
    if bits & 0x1 != 0 {
        m.positions = vecs(r)?;
    }
    if bits & 0x2 != 0 {
        m.normals = vecs(r)?;
    }
    if bits & 0x4 != 0 {
        m.tangents = vecs(r)?;
        m.bitangents = vecs(r)?;
    }
    for n in 0..8 {
        if bits & (0x10000 << n) == 0 {
            break;
        }
        let mut c = Vec::with_capacity(nv);
        for _ in 0..nv {
            c.push(Vec4::new(r.f32()?, r.f32()?, r.f32()?, r.f32()?));
        }
        m.color_channels.push(c);
    }
    for n in 0..8 {
        if bits & (0x100 << n) == 0 {
            break;
        }
        let components = r.u32()? as u8;
        m.uv_channels.push(UvChannel {
            components,
            coords: vecs(r)?,
            name: String::new(),
        });
    }
    for _ in 0..nf {
        let k = r.u16()? as usize;
        let mut face = Vec::with_capacity(k);
        for _ in 0..k {
            face.push(if nv < (1 << 16) {
                u32::from(r.u16()?)
            } else {
                r.u32()?
            });
        }
        m.push_face(&face);
    }
    for _ in 0..nb {
        let mut b = r.chunk(CHUNK_BONE)?;
        let name = b.string()?;
        let nw = b.u32()?;
        let offset_matrix = b.matrix()?;
        let mut weights = Vec::with_capacity(nw as usize);
        for _ in 0..nw {
            weights.push(VertexWeight {
                vertex: b.u32()?,
                weight: b.f32()?,
            });
        }
        m.bones.push(Bone {
            name,
            offset_matrix,
            weights,
        });
    }
    Ok(m)
}

fn read_material(r: &mut Reader) -> Result<Material, String> {
    let mut mat = Material::default();
    let n = r.u32()?;
    for _ in 0..n {
        let mut p = r.chunk(CHUNK_MATERIALPROPERTY)?;
        let key = p.string()?;
        let _semantic = p.u32()?;
        let _index = p.u32()?;
        let len = p.u32()? as usize;
        let ty = p.u32()?;
        let mut d = Reader {
            data: p.bytes(len)?,
            pos: 0,
        };
        let value = match ty {
            1 => {
                let v: Vec<f64> = (0..len / 4)
                    .map(|_| d.f32().map(f64::from))
                    .collect::<Result<_, _>>()?;
                if v.len() == 1 {
                    PropertyValue::Float(v[0])
                } else {
                    PropertyValue::Vector(v)
                }
            }
            2 => {
                let v: Vec<f64> = (0..len / 8).map(|_| d.f64()).collect::<Result<_, _>>()?;
                if v.len() == 1 {
                    PropertyValue::Float(v[0])
                } else {
                    PropertyValue::Vector(v)
                }
            }
            3 => PropertyValue::String(d.string()?),
            4 => {
                let v: Vec<i64> = (0..len / 4)
                    .map(|_| d.u32().map(|x| i64::from(x as i32)))
                    .collect::<Result<_, _>>()?;
                if v.len() == 1 {
                    PropertyValue::Int(v[0])
                } else {
                    PropertyValue::Vector(v.iter().map(|&x| x as f64).collect())
                }
            }
            _ => PropertyValue::String(String::new()),
        };
        if key == "?mat.name" {
            if let PropertyValue::String(s) = &value {
                mat.name = s.clone();
            }
        }
        mat.properties.push((key, value));
    }
    Ok(mat)
}

fn read_animation(r: &mut Reader) -> Result<Animation, String> {
    let mut a = Animation {
        name: r.string()?,
        duration: r.f64()?,
        ticks_per_second: r.f64()?,
        channels: Vec::new(),
        morph_channels: Vec::new(),
    };
    let n = r.u32()?;
    for _ in 0..n {
        let mut c = r.chunk(CHUNK_NODEANIM)?;
        let mut ch = NodeChannel {
            node_name: c.string()?,
            ..NodeChannel::default()
        };
        let (np, nr, ns) = (c.u32()?, c.u32()?, c.u32()?);
        let (_pre, _post) = (c.u32()?, c.u32()?);
        for _ in 0..np {
            ch.position_keys.push(VectorKey {
                time: c.f64()?,
                value: c.vec3()?,
            });
        }
        for _ in 0..nr {
            let time = c.f64()?;
            let (w, x, y, z) = (c.f32()?, c.f32()?, c.f32()?, c.f32()?);
            ch.rotation_keys.push(QuatKey {
                time,
                value: Quat::from_xyzw(x, y, z, w),
            });
        }
        for _ in 0..ns {
            ch.scaling_keys.push(VectorKey {
                time: c.f64()?,
                value: c.vec3()?,
            });
        }
        a.channels.push(ch);
    }
    Ok(a)
}
