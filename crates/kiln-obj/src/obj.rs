//! The OBJ statement reader: Assimp 5.2's `ObjFileParser` rules, building the same
//! intermediate model (objects, meshes split by material, faces with per-corner index lists).

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use kiln_scene::{Vec3, Warning};

use crate::ObjError;
use crate::codes;
use crate::mtl::{Materials, parse_mtl};
use crate::number::{assimp_index_step, c_strtol_len, looks_numeric};
use crate::text::{
    Warnings, after_first_word, decode_name, excerpt, first_word, is_blank, is_line_end, trim_end,
    words,
};
use kiln_scene::fast_atof::fast_atof;

/// Index that resolves to nothing (a relative index pointing before the first element).
pub(crate) const INVALID: u32 = u32::MAX;

/// Name Assimp gives the object (and mesh) that collects faces before any `o`/`g`.
const DEFAULT_OBJECT: &str = "defaultobject";

/// Kind of an OBJ face statement.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Point,
    Line,
    Polygon,
}

/// One face statement of a mesh; its indices follow the previous faces' in the mesh arrays.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FaceRec {
    pub kind: Kind,
    pub line: u32,
    pub nv: u32,
    pub nt: u32,
    pub nn: u32,
}

/// An Assimp `ObjFile::Mesh`: faces with one material.
#[derive(Clone, Debug, Default)]
pub(crate) struct ObjMesh {
    pub name: String,
    /// `None` is Assimp's `NoMaterial`, which ends up as material 0.
    pub material: Option<usize>,
    pub has_normals: bool,
    pub uv_refs: usize,
    pub faces: Vec<FaceRec>,
    /// Zero-based position, texture coordinate and normal indices of all faces, concatenated
    /// ([`INVALID`] when a relative index points before the first element).
    pub v: Vec<u32>,
    pub vt: Vec<u32>,
    pub vn: Vec<u32>,
}

/// An Assimp `ObjFile::Object`: becomes a child node of the root.
#[derive(Clone, Debug)]
pub(crate) struct ObjObject {
    pub name: String,
    pub meshes: Vec<usize>,
}

/// Everything the OBJ and MTL readers collect before the scene is built.
#[derive(Debug)]
pub(crate) struct Model {
    pub positions: Vec<Vec3>,
    /// Colours of `v x y z r g b` statements, in their own order (Assimp 5.2 keeps them in a
    /// separate array, so they only line up with positions when every `v` has a colour).
    pub colors: Vec<Vec3>,
    pub texcoords: Vec<Vec3>,
    /// Largest number of components of a `vt` statement.
    pub texcoord_dim: u8,
    pub normals: Vec<Vec3>,
    pub objects: Vec<ObjObject>,
    /// First object of each name (what Assimp's `o` searches).
    object_index: BTreeMap<String, usize>,
    pub meshes: Vec<ObjMesh>,
    /// Assimp's material list (`DefaultMaterial` first) and the current material.
    pub materials: Materials,
    pub current_object: Option<usize>,
    pub current_mesh: Option<usize>,
    active_group: String,
    /// Material libraries already read: the material their last `newmtl` selected.
    libraries: BTreeMap<String, Option<usize>>,
}

impl Model {
    fn new() -> Self {
        Model {
            positions: Vec::new(),
            colors: Vec::new(),
            texcoords: Vec::new(),
            texcoord_dim: 0,
            normals: Vec::new(),
            objects: Vec::new(),
            object_index: BTreeMap::new(),
            meshes: Vec::new(),
            materials: Materials::new(),
            current_object: None,
            current_mesh: None,
            active_group: String::new(),
            libraries: BTreeMap::new(),
        }
    }

    fn create_object(&mut self, name: String) {
        let id = self.objects.len();
        self.object_index.entry(name.clone()).or_insert(id);
        self.objects.push(ObjObject {
            name: name.clone(),
            meshes: Vec::new(),
        });
        self.current_object = Some(id);
        self.create_mesh(name);
        if let Some(mat) = self.materials.current {
            let mesh = self
                .current_mesh
                .expect("create_mesh sets the current mesh");
            self.meshes[mesh].material = Some(mat);
        }
    }

    fn create_mesh(&mut self, name: String) {
        let id = self.meshes.len();
        self.meshes.push(ObjMesh {
            name,
            ..ObjMesh::default()
        });
        self.current_mesh = Some(id);
        // Without a current object the mesh is attached to nothing (Assimp logs an error); the
        // next face creates an object and a fresh mesh anyway.
        if let Some(obj) = self.current_object {
            self.objects[obj].meshes.push(id);
        }
    }

    /// Assimp `needsNewMesh`: a different material on a mesh that already has faces.
    fn needs_new_mesh(&self, material: usize) -> bool {
        match self.current_mesh {
            None => true,
            Some(m) => {
                let mesh = &self.meshes[m];
                matches!(mesh.material, Some(cur) if cur != material) && !mesh.faces.is_empty()
            }
        }
    }
}

/// Loads material libraries for the parser (the public callback plus Assimp's fallback name).
pub(crate) type MtlLoader<'a> = &'a mut dyn FnMut(&str) -> Option<Vec<u8>>;

/// Reads OBJ text into a [`Model`].
pub(crate) struct Parser<'a, 'b> {
    pub model: Model,
    pub warnings: Warnings,
    file: &'a str,
    mtl: MtlLoader<'b>,
    inside_cstype: bool,
    /// Per-face scratch lists, reused between statements.
    sv: Vec<u32>,
    st: Vec<u32>,
    sn: Vec<u32>,
    /// Statements ignored because they were indented.
    pub indented: u32,
}

impl<'a, 'b> Parser<'a, 'b> {
    pub(crate) fn new(file: &'a str, mtl: MtlLoader<'b>) -> Self {
        Parser {
            model: Model::new(),
            warnings: Warnings::default(),
            file,
            mtl,
            inside_cstype: false,
            sv: Vec::new(),
            st: Vec::new(),
            sn: Vec::new(),
            indented: 0,
        }
    }

    fn err(&self, line: u32, message: String) -> ObjError {
        ObjError::Syntax {
            file: String::from(self.file),
            line,
            message,
        }
    }

    /// Records a warning about line `line` of the OBJ file, located at `FILE:LINE`.
    fn warn(&mut self, code: &'static str, line: u32, message: &str) {
        let file = &self.file;
        self.warnings.push_with(|| {
            Warning::new(code, format!("{file}:{line}: {message}")).at(format!("{file}:{line}"))
        });
    }

    /// Reads the whole text: splits it into logical lines (line ends: LF, CR, CR LF, form
    /// feed; a `\` right before a line end joins the next line, as Assimp does) and hands each
    /// to [`Parser::statement`]. A NUL byte is a line end, as Assimp reads it (ZBrush ends
    /// its files with one), with a warning; NUL bytes are an error in binary data (a quarter
    /// or more of the file, or beside other control bytes) or UTF-16 without a byte-order mark.
    pub(crate) fn run(&mut self, data: &[u8]) -> Result<(), ObjError> {
        let len = data.len();
        let nuls = data.iter().filter(|&&b| b == 0).count();
        if nuls > 0 {
            let control = data
                .iter()
                .any(|&b| matches!(b, 1..=8 | 0x0E..=0x1A | 0x1C..=0x1F | 0x7F));
            if nuls * 4 >= len || control {
                let first = data.iter().position(|&b| b == 0).unwrap_or(0);
                let line = data[..first].iter().filter(|&&b| b == b'\n').count() + 1;
                return Err(self.nul_error(u32::try_from(line).unwrap_or(u32::MAX)));
            }
            self.warn(
                codes::NUL_BYTES,
                1,
                &alloc::format!("{nuls} NUL byte(s) read as line ends (as Assimp does)"),
            );
        }
        let mut pos = 0;
        let mut line_no: u32 = 1;
        let mut joined: Vec<u8> = Vec::new();
        let find_end = |from: usize| {
            data[from..]
                .iter()
                .position(|&b| is_line_end(b))
                .map_or(len, |n| from + n)
        };
        let step_over_end = |p: usize| {
            if data[p] == b'\r' && data.get(p + 1) == Some(&b'\n') {
                p + 2
            } else {
                p + 1
            }
        };
        while pos < len {
            let first_line = line_no;
            let mut end = find_end(pos);
            if end > pos && end < len && data[end - 1] == b'\\' {
                // Continuation: join the physical lines without the backslashes.
                joined.clear();
                let mut seg = pos;
                loop {
                    joined.extend_from_slice(&data[seg..end - 1]);
                    seg = step_over_end(end);
                    line_no = line_no.saturating_add(1);
                    end = find_end(seg);
                    if !(end > seg && end < len && data[end - 1] == b'\\') {
                        joined.extend_from_slice(&data[seg..end]);
                        break;
                    }
                }
                let line = core::mem::take(&mut joined);
                let r = self.statement(&line, first_line);
                joined = line;
                r?;
            } else {
                self.statement(&data[pos..end], first_line)?;
            }
            pos = end;
            if pos < len {
                pos = step_over_end(pos);
                line_no = line_no.saturating_add(1);
            }
        }
        Ok(())
    }

    fn nul_error(&self, line: u32) -> ObjError {
        self.err(
            line,
            String::from(
                "NUL byte: this is binary data, not OBJ text (UTF-16 without a byte-order mark?)",
            ),
        )
    }

    /// One logical line, dispatched on its first character like Assimp 5.2.
    fn statement(&mut self, line: &[u8], no: u32) -> Result<(), ObjError> {
        let Some(&c0) = line.first() else {
            return Ok(());
        };
        if self.inside_cstype {
            // Free-form geometry (`cstype` … `end`) is skipped, as Assimp does.
            if c0 == b'e' && first_word(line) == b"end" {
                self.inside_cstype = false;
            }
            return Ok(());
        }
        match c0 {
            b'v' => match line.get(1) {
                Some(b' ' | b'\t') => self.vertex(&line[1..], no)?,
                Some(b't') => self.texcoord(&line[2..], no)?,
                Some(b'n') => self.normal(&line[2..], no)?,
                _ => {}
            },
            b'p' => self.face(Kind::Point, line, no)?,
            b'l' => self.face(Kind::Line, line, no)?,
            b'f' => self.face(Kind::Polygon, line, no)?,
            b'u' if first_word(line) == b"usemtl" => self.usemtl(after_first_word(line)),
            b'm' if first_word(line) == b"mtllib" => self.mtllib(after_first_word(line), no),
            b'g' => self.group(after_first_word(line)),
            b'o' => self.object(after_first_word(line)),
            b'c' => self.inside_cstype = first_word(line) == b"cstype",
            b' ' | b'\t' => {
                // Assimp 5.2 dispatches on the very first character, so indented statements
                // are ignored. We do the same (same scene), but say so.
                let t = crate::text::trim_start(line);
                if matches!(
                    t.first(),
                    Some(b'v' | b'f' | b'l' | b'p' | b'o' | b'g' | b'u' | b'm')
                ) {
                    self.indented += 1;
                    if self.indented == 1 {
                        self.warn(codes::INDENTED_STATEMENT, no, "indented statement ignored (Assimp 5.2 ignores statements that do not start the line)");
                    }
                }
            }
            // `#`, `s`, `mg`, and anything unknown.
            _ => {}
        }
        Ok(())
    }

    /// Parses the numbers of `words` (first `n`), as `f32`, erroring on non-numbers and on
    /// values that are not finite.
    fn numbers<const N: usize>(
        &self,
        ws: &[&[u8]],
        no: u32,
        what: &str,
    ) -> Result<[f32; N], ObjError> {
        let mut out = [0f32; N];
        for (o, w) in out.iter_mut().zip(ws) {
            let Some(f) = fast_atof(w) else {
                return Err(self.err(
                    no,
                    format!("{what}: expected a number, found \"{}\"", excerpt(w)),
                ));
            };
            if !f.is_finite() {
                return Err(self.err(
                    no,
                    format!(
                        "{what}: \"{}\" is not a finite 32-bit number (NaN, infinite or beyond ±3.4e38)",
                        excerpt(w)
                    ),
                ));
            }
            *o = f;
        }
        Ok(out)
    }

    /// Splits `rest` into words up to a `#` comment: keeps the first 8 and counts those that
    /// look like numbers (Assimp `getNumComponentsInDataDefinition`).
    fn components<'l>(rest: &'l [u8], buf: &mut [&'l [u8]; 8]) -> (usize, usize) {
        let mut stored = 0;
        let mut count = 0;
        for w in words(rest) {
            if w[0] == b'#' {
                break;
            }
            if stored < buf.len() {
                buf[stored] = w;
                stored += 1;
            }
            if looks_numeric(w) {
                count += 1;
            }
        }
        (count, stored)
    }

    fn vertex(&mut self, rest: &[u8], no: u32) -> Result<(), ObjError> {
        let mut buf: [&[u8]; 8] = [&[]; 8];
        let (count, stored) = Self::components(rest, &mut buf);
        let ws = &buf[..stored];
        match count {
            0..=2 => {
                return Err(self.err(
                    no,
                    format!("v: expected 3 coordinates, found {count} numbers"),
                ));
            }
            3 | 5 => {
                let [x, y, z] = self.numbers::<3>(ws, no, "v")?;
                self.model.positions.push(Vec3::new(x, y, z));
                if count == 5 {
                    self.warn(
                        codes::EXTRA_NUMBERS,
                        no,
                        "v with 5 numbers: the last two are ignored",
                    );
                }
            }
            4 => {
                let [x, y, z, w] = self.numbers::<4>(ws, no, "v")?;
                if w == 0.0 {
                    return Err(self.err(no, String::from("v: homogeneous coordinate w is 0")));
                }
                self.model.positions.push(Vec3::new(x / w, y / w, z / w));
            }
            _ => {
                let [x, y, z, r, g, b] = self.numbers::<6>(ws, no, "v")?;
                self.model.positions.push(Vec3::new(x, y, z));
                self.model.colors.push(Vec3::new(r, g, b));
                if count > 6 {
                    self.warn(
                        codes::EXTRA_NUMBERS,
                        no,
                        "v with more than 6 numbers: the extra ones are ignored",
                    );
                }
            }
        }
        Ok(())
    }

    fn texcoord(&mut self, rest: &[u8], no: u32) -> Result<(), ObjError> {
        let mut buf: [&[u8]; 8] = [&[]; 8];
        let (count, stored) = Self::components(rest, &mut buf);
        let ws = &buf[..stored];
        let uv = match count {
            0 => return Err(self.err(no, String::from("vt: expected 1 to 3 numbers, found none"))),
            1 => {
                let [u] = self.numbers::<1>(ws, no, "vt")?;
                Vec3::new(u, 0.0, 0.0)
            }
            2 => {
                let [u, v] = self.numbers::<2>(ws, no, "vt")?;
                Vec3::new(u, v, 0.0)
            }
            _ => {
                let [u, v, w] = self.numbers::<3>(ws, no, "vt")?;
                if count > 3 {
                    self.warn(
                        codes::EXTRA_NUMBERS,
                        no,
                        "vt with more than 3 numbers: the extra ones are ignored",
                    );
                }
                Vec3::new(u, v, w)
            }
        };
        self.model.texcoords.push(uv);
        self.model.texcoord_dim = self.model.texcoord_dim.max(count.min(3) as u8);
        Ok(())
    }

    fn normal(&mut self, rest: &[u8], no: u32) -> Result<(), ObjError> {
        let mut buf: [&[u8]; 8] = [&[]; 8];
        let (_, stored) = Self::components(rest, &mut buf);
        if stored < 3 {
            return Err(self.err(no, format!("vn: expected 3 numbers, found {stored}")));
        }
        let [x, y, z] = self.numbers::<3>(&buf[..3], no, "vn")?;
        self.model.normals.push(Vec3::new(x, y, z));
        Ok(())
    }

    /// `f`, `l` and `p`, read character by character like Assimp 5.2's `getFace` (including
    /// its quirks: `+1` and `007` repeat the index, `1/2` means position/normal when the file
    /// has normals but no texture coordinates yet).
    fn face(&mut self, kind: Kind, line: &[u8], no: u32) -> Result<(), ObjError> {
        let rest = after_first_word(line);
        let sizes = [
            self.model.positions.len() as i64,
            self.model.texcoords.len() as i64,
            self.model.normals.len() as i64,
        ];
        let has_vt = !self.model.texcoords.is_empty();
        let has_vn = !self.model.normals.is_empty();
        self.sv.clear();
        self.st.clear();
        self.sn.clear();
        let mut slot = 0u32;
        let mut i = 0;
        while i < rest.len() {
            let c = rest[i];
            if c == b'#' {
                break;
            }
            if c == b'/' {
                slot += 1;
                i += 1;
                continue;
            }
            if is_blank(c) {
                slot = 0;
                i += 1;
                continue;
            }
            let (wide, read) = c_strtol_len(&rest[i..]);
            if slot == 1 && !has_vt && has_vn {
                slot = 2;
            }
            if wide == 0 || i32::try_from(wide).is_err() {
                let tok_len = rest[i..]
                    .iter()
                    .take_while(|&&b| !is_blank(b) && b != b'/')
                    .count();
                let token = excerpt(&rest[i..i + tok_len.max(1)]);
                return Err(self.err(
                    no,
                    if wide == 0 {
                        format!("invalid face index \"{token}\": expected a 1-based index or a negative relative index")
                    } else {
                        format!("face index \"{token}\" out of range")
                    },
                ));
            }
            let value = wide as i32;
            if slot > 2 {
                self.warn(
                    codes::EXTRA_CORNER_INDICES,
                    no,
                    "face corner with more than 3 indices: rest of the face ignored",
                );
                break;
            }
            let size = sizes[slot as usize];
            let idx = if value > 0 {
                i64::from(value) - 1
            } else {
                size + i64::from(value)
            };
            let idx = if idx < 0 { INVALID } else { idx as u32 };
            // Assimp advances by the digits of the value (plus a minus sign); for a token
            // without `+` or leading zeros that is what was read. Otherwise it lands inside
            // the token and parses the same value again, once per step, until it reaches the
            // digits: those repeats are counted, not parsed again (which was quadratic in the
            // token's length).
            let canonical = match rest[i] {
                b'1'..=b'9' => true,
                b'-' => matches!(rest.get(i + 1), Some(b'1'..=b'9')),
                _ => false,
            };
            let (times, advance) = if canonical {
                (1, read)
            } else {
                let step = assimp_index_step(value);
                let repeats = restarts_with_same_value(&rest[i..], value, read, step);
                (1 + repeats, (1 + repeats) * step)
            };
            let list = match slot {
                0 => &mut self.sv,
                1 => &mut self.st,
                _ => &mut self.sn,
            };
            list.extend(core::iter::repeat_n(idx, times));
            i += advance;
        }

        if self.sv.is_empty() {
            self.warn(codes::EMPTY_FACE, no, "face without vertices ignored");
            return Ok(());
        }
        if kind == Kind::Line && self.sv.len() == 1 {
            self.warn(
                codes::SINGLE_VERTEX_LINE,
                no,
                "line with a single vertex ignored (Assimp 5.2 fails on it)",
            );
            return Ok(());
        }
        if self.model.current_object.is_none() {
            self.model.create_object(String::from(DEFAULT_OBJECT));
        }
        if self.model.current_mesh.is_none() {
            self.model.create_mesh(String::from(DEFAULT_OBJECT));
        }
        let mesh = &mut self.model.meshes[self.model.current_mesh.expect("set above")];
        mesh.faces.push(FaceRec {
            kind,
            line: no,
            nv: self.sv.len() as u32,
            nt: self.st.len() as u32,
            nn: self.sn.len() as u32,
        });
        mesh.v.extend_from_slice(&self.sv);
        mesh.vt.extend_from_slice(&self.st);
        mesh.vn.extend_from_slice(&self.sn);
        mesh.uv_refs += self.st.len();
        mesh.has_normals |= !self.sn.is_empty();
        Ok(())
    }

    /// `usemtl NAME` (the rest of the line, trailing blanks dropped).
    fn usemtl(&mut self, rest: &[u8]) {
        let raw = trim_end(rest);
        if raw.is_empty() {
            return;
        }
        let name = decode_name(raw);
        let m = &mut self.model;
        if let Some(cur) = m.materials.current {
            if m.materials.list[cur].name == name {
                return;
            }
        }
        // An unknown material (missing or incomplete library) is created with default values,
        // as Assimp does, so that the name survives.
        let (index, _) = m.materials.find_or_add(&name);
        m.materials.current = Some(index);
        if m.needs_new_mesh(index) {
            m.create_mesh(name);
        }
        let mesh = m.current_mesh.expect("a mesh exists after needs_new_mesh");
        m.meshes[mesh].material = Some(index);
    }

    /// `mtllib NAME` (the whole rest of the line: names may contain spaces). Each library is
    /// read once; repeating it selects its last material again, which is what re-reading it
    /// would do.
    fn mtllib(&mut self, rest: &[u8], no: u32) {
        let raw = trim_end(rest);
        if raw.is_empty() {
            self.warn(codes::MTLLIB_WITHOUT_NAME, no, "mtllib without a file name");
            return;
        }
        let name = decode_name(raw);
        if let Some(&last) = self.model.libraries.get(&name) {
            self.reselect(last);
            return;
        }
        let mut used = name.clone();
        let mut data = (self.mtl)(&name);
        if data.is_none() {
            // Assimp's fallback: the OBJ's own name with the extension `mtl`.
            let fallback = fallback_mtl_name(self.file);
            if let Some(&last) = self.model.libraries.get(&fallback) {
                // Already read (as itself or as an earlier fallback).
                self.warn(codes::MTLLIB_FALLBACK, no, &format!("material library \"{name}\" not found; using \"{fallback}\" (as Assimp does)"));
                self.reselect(last);
                self.model.libraries.insert(name, last);
                return;
            }
            if fallback != name {
                data = (self.mtl)(&fallback);
                if data.is_some() {
                    self.warn(
                        codes::MTLLIB_FALLBACK,
                        no,
                        &format!("material library \"{name}\" not found; read \"{fallback}\" instead (as Assimp does)"),
                    );
                    used = fallback;
                }
            }
        }
        let last = match data {
            Some(bytes) => {
                let m = &mut self.model;
                let created = parse_mtl(&mut m.materials, &bytes, &used, &mut self.warnings);
                // Assimp gives each material a library creates to the current mesh in turn.
                if let (Some(mat), Some(mesh)) = (created, m.current_mesh) {
                    m.meshes[mesh].material = Some(mat);
                }
                m.materials.current
            }
            None => {
                self.warn(
                    codes::MTLLIB_MISSING,
                    no,
                    &format!(
                        "material library \"{name}\" not found; its materials get default values"
                    ),
                );
                None
            }
        };
        if used != name {
            self.model.libraries.insert(used, last);
        }
        self.model.libraries.insert(name, last);
    }

    /// What reading a library again does: its last `newmtl` becomes the current material.
    fn reselect(&mut self, last: Option<usize>) {
        if let Some(l) = last {
            self.model.materials.current = Some(l);
        }
    }

    /// `g NAME`: the rest of the line (Assimp keeps inner and trailing blanks). Every change of
    /// group starts a new object, even for a group seen before.
    fn group(&mut self, rest: &[u8]) {
        let name = decode_name(rest);
        if self.model.active_group != name {
            self.model.create_object(name.clone());
            self.model.active_group = name;
        }
    }

    /// `o NAME`: the first word. An existing object of that name becomes current again (its
    /// faces still go to the current mesh, as in Assimp).
    fn object(&mut self, rest: &[u8]) {
        let word = first_word(rest);
        if word.is_empty() {
            return;
        }
        let name = decode_name(word);
        match self.model.object_index.get(&name) {
            Some(&i) => self.model.current_object = Some(i),
            None => self.model.create_object(name),
        }
    }
}

/// Assimp's fallback library name: the OBJ's name with its last three characters replaced by
/// `mtl`.
fn fallback_mtl_name(file: &str) -> String {
    let cut = file.len().saturating_sub(3);
    let stem = file.get(..cut).unwrap_or(file);
    format!("{stem}mtl")
}

/// How many times Assimp's face parser, restarting `step` bytes into the non-canonical index
/// token `token` (`+5`, `007`, `\v-3`; it parsed to `value` over `read` bytes), lands where the
/// same value parses again before reaching the token's digits (positive) or its minus sign
/// (negative). A landing on a blank or `/` is left to the main loop, which treats it as such.
fn restarts_with_same_value(token: &[u8], value: i32, read: usize, step: usize) -> usize {
    let last = if value > 0 {
        read.saturating_sub(step)
    } else {
        token
            .iter()
            .take_while(|&&b| matches!(b, b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r'))
            .count()
    };
    let mut repeats = 0;
    let mut p = step;
    while p <= last && token.get(p).is_some_and(|&b| !is_blank(b) && b != b'/') {
        repeats += 1;
        p += step;
    }
    repeats
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fallback_name() {
        assert_eq!(fallback_mtl_name("a/b.obj"), "a/b.mtl");
        assert_eq!(fallback_mtl_name("x"), "mtl");
    }

    #[test]
    fn is_line_end_set() {
        assert!(is_line_end(b'\n') && is_line_end(b'\r') && is_line_end(0) && is_line_end(0x0C));
        assert!(!is_line_end(b' '));
    }
}
