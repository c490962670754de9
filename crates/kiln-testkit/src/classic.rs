//! Independent readers of the classic `.mesh` and `.clip` layouts, written from the layout text
//! in `docs/format-classic.md` (and the original tool's WriteModelFile), not from kiln-format's
//! types, so the writer is checked against the specification rather than against itself.
//!
//! ```text
//! u32 boneCount; boneCount × { i32 index; i32 parent; str name; f32[16] transform }
//! u32 meshCount; meshCount × { str name; u32 vertexCount; Vertex[vertexCount];
//!                              u32 indexCount; u32[indexCount]; i32 boneIndex; str materialName }
//! str = u32 byte length + UTF-8; Vertex = 19 f32 (position 3, uv 2, normal 3, tangent 3,
//! blendIndices 4, blendWeights 4); all little-endian.
//! ```

/// One bone record of a `.mesh`.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedBone {
    /// Its index as written.
    pub index: i32,
    /// The parent's index, -1 for a root.
    pub parent: i32,
    /// Its name.
    pub name: String,
    /// The 16 floats of its transform, in file order.
    pub transform: [f32; 16],
}

/// One mesh part of a `.mesh`.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedMesh {
    /// Its name.
    pub name: String,
    /// position 0..3, uv 3..5, normal 5..8, tangent 8..11, blendIndices 11..15,
    /// blendWeights 15..19.
    pub vertices: Vec<[f32; 19]>,
    /// Triangle list indices into `vertices`.
    pub indices: Vec<u32>,
    /// The bone the part hangs from.
    pub bone_index: i32,
    /// The material's name.
    pub material_name: String,
}

/// A whole `.mesh` file.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedMeshFile {
    /// The bone records, in file order.
    pub bones: Vec<DecodedBone>,
    /// The mesh parts, in file order.
    pub meshes: Vec<DecodedMesh>,
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len());
        let end = end.ok_or_else(|| {
            format!(
                "need {n} bytes at offset {}, file has {}",
                self.at,
                self.bytes.len()
            )
        })?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        Ok(kiln_scene::names::from_bytes(self.take(n)?).into_owned())
    }
}

/// Decodes a `.mesh` file; `Err` names the offset where it is truncated, or trailing bytes.
pub fn decode_mesh_file(bytes: &[u8]) -> Result<DecodedMeshFile, String> {
    let mut c = Cursor { bytes, at: 0 };
    let bone_count = c.u32()?;
    let mut bones = Vec::new();
    for _ in 0..bone_count {
        let index = c.i32()?;
        let parent = c.i32()?;
        let name = c.string()?;
        let mut transform = [0f32; 16];
        for t in &mut transform {
            *t = c.f32()?;
        }
        bones.push(DecodedBone {
            index,
            parent,
            name,
            transform,
        });
    }
    let mesh_count = c.u32()?;
    let mut meshes = Vec::new();
    for _ in 0..mesh_count {
        let name = c.string()?;
        let vertex_count = c.u32()?;
        let mut vertices = Vec::new();
        for _ in 0..vertex_count {
            let mut v = [0f32; 19];
            for x in &mut v {
                *x = c.f32()?;
            }
            vertices.push(v);
        }
        let index_count = c.u32()?;
        let mut indices = Vec::new();
        for _ in 0..index_count {
            indices.push(c.u32()?);
        }
        let bone_index = c.i32()?;
        let material_name = c.string()?;
        meshes.push(DecodedMesh {
            name,
            vertices,
            indices,
            bone_index,
            material_name,
        });
    }
    if c.at != bytes.len() {
        return Err(format!("{} bytes after the last mesh", bytes.len() - c.at));
    }
    Ok(DecodedMeshFile { bones, meshes })
}

/// A classic `.clip`, decoded from the layout text: `str name; f32 duration; f32 frameRate;
/// u32 frameCount; u32 trackCount; trackCount × { str boneName; u32 count; count × 11 f32 }`.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedClip {
    /// The clip's name.
    pub name: String,
    /// Its duration, in frames as written.
    pub duration: f32,
    /// Frames per second.
    pub frame_rate: f32,
    /// Keyframes per track.
    pub frame_count: u32,
    /// Bone name and keyframes: time, scale xyz, rotation xyzw, translation xyz.
    pub tracks: Vec<(String, Vec<[f32; 11]>)>,
}

struct Bytes<'a> {
    data: &'a [u8],
    pos: usize,
}

impl Bytes<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        let s = self
            .data
            .get(self.pos..self.pos + n)
            .ok_or_else(|| format!(".clip: truncated at byte {}", self.pos))?;
        self.pos += n;
        Ok(s)
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn f32(&mut self) -> Result<f32, String> {
        Ok(f32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }
    fn string(&mut self) -> Result<String, String> {
        let n = self.u32()? as usize;
        String::from_utf8(self.take(n)?.to_vec()).map_err(|_| ".clip: name is not UTF-8".into())
    }
}

/// Decodes a `.clip` file; `Err` when it is truncated or has trailing bytes.
pub fn decode_clip(bytes: &[u8]) -> Result<DecodedClip, String> {
    let mut b = Bytes {
        data: bytes,
        pos: 0,
    };
    let name = b.string()?;
    let duration = b.f32()?;
    let frame_rate = b.f32()?;
    let frame_count = b.u32()?;
    let track_count = b.u32()?;
    let mut tracks = Vec::new();
    for _ in 0..track_count {
        let bone = b.string()?;
        let count = b.u32()? as usize;
        let mut keys = Vec::with_capacity(count.min(1 << 20));
        for _ in 0..count {
            let mut k = [0f32; 11];
            for v in &mut k {
                *v = b.f32()?;
            }
            keys.push(k);
        }
        tracks.push((bone, keys));
    }
    if b.pos != bytes.len() {
        return Err(format!(
            ".clip: {} bytes after the last track",
            bytes.len() - b.pos
        ));
    }
    Ok(DecodedClip {
        name,
        duration,
        frame_rate,
        frame_count,
        tracks,
    })
}
