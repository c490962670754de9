//! The MTL reader: Assimp 5.2's `ObjFileMtlImporter` rules, applied to the OBJ reader's
//! [`Materials`] (the OBJ reader owns the table and applies what a library changes to its
//! meshes; this module knows nothing of them).
//!
//! Statements are recognised by their first one or two characters, as Assimp does (`Ka`, `Kd`,
//! `Ks`, `Ke`, `Tf`, `Tr`, `d`, `Ns`, `Ni`, `ne`wmtl, `illum`, `Pr`, `Pm`, `Ps`, `Pc`, `Pcr`,
//! texture maps), and lines may be indented (except the first, which Assimp then ignores). Where Assimp would abort the whole import (a
//! number that does not parse, `aniso`, a map before any `newmtl`) the statement is skipped
//! with a warning instead: the MTL is an auxiliary file and the geometry is still good.

use alloc::collections::BTreeMap;
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

use kiln_scene::Warning;

use crate::codes;
use crate::number::c_atoi;
use crate::text::{
    Warnings, after_first_word, decode_name, first_word, is_line_end, trim_end, trim_start, words,
};
use kiln_scene::fast_atof::fast_atof;

/// Name of Assimp's default material, always material 0.
pub(crate) const DEFAULT_MATERIAL: &str = "DefaultMaterial";

/// Texture slots of an OBJ material, in Assimp's `ObjFile::Material` terms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Slot {
    Diffuse,
    Ambient,
    Specular,
    Emissive,
    Bump,
    Normal,
    Disp,
    Opacity,
    Specularity,
    Roughness,
    Metallic,
    Sheen,
    /// Reflection maps: 0 is the sphere map or the cube's top face, then bottom, front, back,
    /// left, right.
    Reflection(u8),
}

/// Number of texture slots ([`Slot::index`] is below this).
pub(crate) const SLOTS: usize = 18;

impl Slot {
    pub(crate) fn index(self) -> usize {
        match self {
            Slot::Diffuse => 0,
            Slot::Ambient => 1,
            Slot::Specular => 2,
            Slot::Emissive => 3,
            Slot::Bump => 4,
            Slot::Normal => 5,
            Slot::Disp => 6,
            Slot::Opacity => 7,
            Slot::Specularity => 8,
            Slot::Roughness => 9,
            Slot::Metallic => 10,
            Slot::Sheen => 11,
            Slot::Reflection(i) => 12 + usize::from(i.min(5)),
        }
    }

    /// The MTL keyword that names this slot (used for property keys).
    pub(crate) fn keyword(self) -> &'static str {
        match self {
            Slot::Diffuse => "map_Kd",
            Slot::Ambient => "map_Ka",
            Slot::Specular => "map_Ks",
            Slot::Emissive => "map_Ke",
            Slot::Bump => "bump",
            Slot::Normal => "norm",
            Slot::Disp => "disp",
            Slot::Opacity => "map_d",
            Slot::Specularity => "map_Ns",
            Slot::Roughness => "map_Pr",
            Slot::Metallic => "map_Pm",
            Slot::Sheen => "map_Ps",
            Slot::Reflection(_) => "refl",
        }
    }
}

/// A material as Assimp's OBJ importer holds it, with Assimp's defaults.
#[derive(Clone, Debug)]
pub(crate) struct ObjMaterial {
    pub name: String,
    pub ambient: [f32; 3],
    pub diffuse: [f32; 3],
    pub specular: [f32; 3],
    pub emissive: [f32; 3],
    pub transparent: [f32; 3],
    pub alpha: f32,
    pub shininess: f32,
    pub illum: i32,
    pub ior: f32,
    pub roughness: Option<f32>,
    pub metallic: Option<f32>,
    pub sheen: Option<[f32; 3]>,
    pub clearcoat_thickness: Option<f32>,
    pub clearcoat_roughness: Option<f32>,
    pub anisotropy: f32,
    pub bump_multiplier: f32,
    /// Texture paths by [`Slot::index`]; `None` (or empty) when unset.
    pub textures: [Option<String>; SLOTS],
    pub clamp: [bool; SLOTS],
    /// The `mtllib` (as the OBJ names it) that defined this material last, if any.
    pub library: Option<String>,
}

impl ObjMaterial {
    pub(crate) fn new(name: String) -> Self {
        ObjMaterial {
            name,
            ambient: [0.0; 3],
            diffuse: [0.6; 3],
            specular: [0.0; 3],
            emissive: [0.0; 3],
            transparent: [1.0; 3],
            alpha: 1.0,
            shininess: 0.0,
            illum: 1,
            ior: 1.0,
            roughness: None,
            metallic: None,
            sheen: None,
            clearcoat_thickness: None,
            clearcoat_roughness: None,
            anisotropy: 0.0,
            bump_multiplier: 1.0,
            textures: Default::default(),
            clamp: [false; SLOTS],
            library: None,
        }
    }

    pub(crate) fn texture(&self, slot: Slot) -> Option<&str> {
        self.textures[slot.index()]
            .as_deref()
            .filter(|t| !t.is_empty())
    }
}

/// Assimp's material list while an OBJ file and its libraries are read: [`DEFAULT_MATERIAL`]
/// first, then every material in the order `usemtl` or `newmtl` first names it.
#[derive(Debug)]
pub(crate) struct Materials {
    /// The materials, in creation order (the scene's material order).
    pub list: Vec<ObjMaterial>,
    /// Index in `list` of each name.
    index: BTreeMap<String, usize>,
    /// The material the last `usemtl` or `newmtl` selected.
    pub current: Option<usize>,
}

impl Materials {
    /// Only [`DEFAULT_MATERIAL`], none selected.
    pub(crate) fn new() -> Self {
        let mut index = BTreeMap::new();
        index.insert(String::from(DEFAULT_MATERIAL), 0);
        Materials {
            list: alloc::vec![ObjMaterial::new(String::from(DEFAULT_MATERIAL))],
            index,
            current: None,
        }
    }

    /// The index of the material named `name`, created with Assimp's defaults when there is
    /// none; `true` when it was created.
    pub(crate) fn find_or_add(&mut self, name: &str) -> (usize, bool) {
        match self.index.get(name) {
            Some(&i) => (i, false),
            None => {
                let i = self.list.len();
                self.index.insert(String::from(name), i);
                self.list.push(ObjMaterial::new(String::from(name)));
                (i, true)
            }
        }
    }
}

/// Texture statements by prefix (case-insensitive), in the order Assimp tests them.
const TEXTURE_KEYWORDS: [(&[u8], Option<Slot>); 17] = [
    (b"map_Kd", Some(Slot::Diffuse)),
    (b"map_Ka", Some(Slot::Ambient)),
    (b"map_Ks", Some(Slot::Specular)),
    (b"map_disp", Some(Slot::Disp)),
    (b"disp", Some(Slot::Disp)),
    (b"map_d", Some(Slot::Opacity)),
    (b"map_emissive", Some(Slot::Emissive)),
    (b"map_Ke", Some(Slot::Emissive)),
    (b"map_bump", Some(Slot::Bump)),
    (b"bump", Some(Slot::Bump)),
    (b"map_Kn", Some(Slot::Normal)),
    (b"norm", Some(Slot::Normal)),
    // Assimp 5.2 ignores `refl` statements (only `-type` options reach the reflection slots).
    (b"refl", None),
    (b"map_ns", Some(Slot::Specularity)),
    (b"map_Pr", Some(Slot::Roughness)),
    (b"map_Pm", Some(Slot::Metallic)),
    (b"map_Ps", Some(Slot::Sheen)),
];

fn starts_ci(s: &[u8], p: &[u8]) -> bool {
    s.len() >= p.len() && s[..p.len()].eq_ignore_ascii_case(p)
}

/// Why an MTL statement is skipped: the warning's code and what is wrong (the warning message
/// adds the library, the line and "; statement ignored").
struct Ignored {
    code: &'static str,
    message: String,
}

impl Ignored {
    fn bad_number(message: String) -> Ignored {
        Ignored {
            code: codes::MTL_BAD_NUMBER,
            message,
        }
    }
}

fn finite(f: f32, word: &[u8]) -> Result<f32, Ignored> {
    if f.is_finite() {
        Ok(f)
    } else {
        Err(Ignored::bad_number(format!(
            "number \"{}\" is not a finite 32-bit float",
            decode_name(word)
        )))
    }
}

fn number(word: &[u8]) -> Result<f32, Ignored> {
    match fast_atof(word) {
        Some(v) => finite(v, word),
        None => Err(Ignored::bad_number(format!(
            "expected a number, found \"{}\"",
            crate::text::excerpt(word)
        ))),
    }
}

/// Assimp `getFloatValue`: the next word, 0 when there is none.
fn float_value(rest: &[u8]) -> Result<f32, Ignored> {
    words(rest).next().map_or(Ok(0.0), number)
}

/// Assimp's `Maybe` variant: unset when there is no word.
fn maybe_float(rest: &[u8]) -> Result<Option<f32>, Ignored> {
    words(rest).next().map(number).transpose()
}

/// Assimp `getColorRGBA`: `r` alone gives `(r, 0, 0)` (Assimp's rule, not the MTL spec's
/// grey); a missing `b` is 0.
fn color(rest: &[u8]) -> Result<[f32; 3], Ignored> {
    let mut it = words(rest);
    let r = number(
        it.next()
            .ok_or_else(|| Ignored::bad_number(String::from("expected a colour")))?,
    )?;
    let g = it.next().map_or(Ok(0.0), number)?;
    let b = it.next().map_or(Ok(0.0), number)?;
    Ok([r, g, b])
}

/// Reads an MTL file into `materials` (new and changed materials, the current one), as Assimp
/// does at the `mtllib` statement. `lib` is the library name for messages.
///
/// Returns the last material the library created (by a `newmtl` of a new name): Assimp gives
/// each one in turn to the OBJ's current mesh, so that mesh ends with this one.
#[must_use]
pub(crate) fn parse_mtl(
    materials: &mut Materials,
    data: &[u8],
    lib: &str,
    warnings: &mut Warnings,
) -> Option<usize> {
    let mut created = None;
    let (text, _) = crate::text::to_utf8(data);
    let data: &[u8] = &text;
    let mut pos = 0;
    let mut line_no = 1u32;
    while pos < data.len() {
        let end = data[pos..]
            .iter()
            .position(|&b| is_line_end(b))
            .map_or(data.len(), |n| pos + n);
        let raw = &data[pos..end];
        let line = trim_start(raw);
        // Assimp skips indentation only after a line break, so an indented first line is
        // ignored entirely (its `newmtl`, say, never happens).
        let ignored = pos == 0 && line.len() != raw.len();
        if ignored && !line.is_empty() {
            warnings.push(
                Warning::new(
                    codes::MTL_INDENTED_FIRST_LINE,
                    format!("{lib}:1: indented first line ignored (as Assimp does)"),
                )
                .at(format!("{lib}:1")),
            );
        } else if !line.is_empty() {
            if let Err(Ignored { code, message }) = statement(materials, &mut created, line, lib) {
                warnings.push(
                    Warning::new(
                        code,
                        format!("{lib}:{line_no}: {message}; statement ignored"),
                    )
                    .at(format!("{lib}:{line_no}")),
                );
            }
        }
        pos = end;
        if pos < data.len() {
            pos += if data[pos] == b'\r' && data.get(pos + 1) == Some(&b'\n') {
                2
            } else {
                1
            };
            line_no = line_no.saturating_add(1);
        }
    }
    created
}

/// One statement; `created` receives the index of a material a `newmtl` creates.
fn statement(
    materials: &mut Materials,
    created: &mut Option<usize>,
    l: &[u8],
    lib: &str,
) -> Result<(), Ignored> {
    let c1 = l.get(1).copied().unwrap_or(0);
    let cur = materials.current;
    macro_rules! with_mat {
        (|$m:ident| $body:expr) => {
            if let Some(i) = cur {
                let $m = &mut materials.list[i];
                $body;
            }
        };
    }
    match l[0] {
        b'k' | b'K' => {
            let rest = &l[2.min(l.len())..];
            match c1 {
                b'a' => with_mat!(|m| m.ambient = color(rest)?),
                b'd' => with_mat!(|m| m.diffuse = color(rest)?),
                b's' => with_mat!(|m| m.specular = color(rest)?),
                b'e' => with_mat!(|m| m.emissive = color(rest)?),
                _ => {}
            }
        }
        b'T' => {
            let rest = &l[2.min(l.len())..];
            match c1 {
                b'f' => with_mat!(|m| m.transparent = color(rest)?),
                b'r' => {
                    let d = float_value(rest)?;
                    with_mat!(|m| m.alpha = 1.0 - d);
                }
                _ => {}
            }
        }
        b'd' => {
            if l.get(1..4) == Some(b"isp") {
                texture(materials, l, lib)?;
            } else {
                with_mat!(|m| m.alpha = float_value(&l[1..])?);
            }
        }
        b'N' | b'n' => {
            let rest = &l[2.min(l.len())..];
            match c1 {
                b's' => with_mat!(|m| m.shininess = float_value(rest)?),
                b'i' => with_mat!(|m| m.ior = float_value(rest)?),
                b'e' => new_material(materials, created, rest, lib),
                b'o' => texture(materials, l, lib)?,
                _ => {}
            }
        }
        b'P' => match c1 {
            b'r' => with_mat!(|m| m.roughness = maybe_float(&l[2..])?),
            b'm' => with_mat!(|m| m.metallic = maybe_float(&l[2..])?),
            b's' => with_mat!(|m| m.sheen = Some(color(&l[2..])?)),
            b'c' => {
                if l.get(2) == Some(&b'r') {
                    with_mat!(|m| m.clearcoat_roughness = maybe_float(&l[3..])?);
                } else {
                    with_mat!(|m| m.clearcoat_thickness = maybe_float(&l[2..])?);
                }
            }
            _ => {}
        },
        b'm' | b'b' | b'r' => texture(materials, l, lib)?,
        b'i' => {
            let word = first_word(after_first_word(l));
            with_mat!(|m| m.illum = c_atoi(word));
        }
        b'a' => {
            // Assimp 5.2 reads the value right after the `a`, so `aniso 0.5` aborts its
            // import; we read `aniso VALUE` (and `a VALUE` as Assimp does).
            let rest = if first_word(l) == b"aniso" {
                after_first_word(l)
            } else {
                &l[1..]
            };
            with_mat!(|m| m.anisotropy = float_value(rest)?);
        }
        _ => {}
    }
    Ok(())
}

/// `newmtl`: `rest` follows the `ne` of the keyword (Assimp does not check the rest of it).
fn new_material(materials: &mut Materials, created: &mut Option<usize>, rest: &[u8], lib: &str) {
    let name: &[u8] = match words(rest).count() {
        // `newmtl` with no name: Assimp names it after its default material, which then
        // receives the properties that follow.
        1 => DEFAULT_MATERIAL.as_bytes(),
        _ => match rest.iter().position(|&b| crate::text::is_blank(b)) {
            Some(ws) => trim_end(trim_start(&rest[ws..])),
            None => b"",
        },
    };
    let name = decode_name(name);
    let (index, new) = materials.find_or_add(&name);
    if new {
        *created = Some(index);
    }
    materials.list[index].library = Some(String::from(lib));
    materials.current = Some(index);
}

fn texture(materials: &mut Materials, l: &[u8], lib: &str) -> Result<(), Ignored> {
    let Some(cur) = materials.current else {
        // Assimp dereferences its null current material here; nothing to attach it to.
        return Err(Ignored {
            code: codes::MTL_TEXTURE_WITHOUT_MATERIAL,
            message: format!(
                "texture statement \"{}\" before any newmtl in {lib}",
                crate::text::excerpt(first_word(l))
            ),
        });
    };
    let Some(&(_, slot)) = TEXTURE_KEYWORDS.iter().find(|(k, _)| starts_ci(l, k)) else {
        if starts_ci(l, b"map_") {
            return Err(Ignored {
                code: codes::MTL_UNKNOWN_TEXTURE_TYPE,
                message: format!(
                    "unknown texture type \"{}\"",
                    crate::text::excerpt(first_word(l))
                ),
            });
        }
        return Ok(());
    };
    let Some(mut slot) = slot else { return Ok(()) };

    let mut clamp = false;
    let mut rest = after_first_word(l);
    while rest.first() == Some(&b'-') {
        let value = first_word(after_first_word(rest));
        let skip = if starts_ci(rest, b"-clamp") {
            clamp = starts_ci(value, b"on");
            2
        } else if starts_ci(rest, b"-type") {
            const TYPES: [(&[u8], u8); 7] = [
                (b"cube_top", 0),
                (b"cube_bottom", 1),
                (b"cube_front", 2),
                (b"cube_back", 3),
                (b"cube_left", 4),
                (b"cube_right", 5),
                (b"sphere", 0),
            ];
            if let Some(&(_, i)) = TYPES.iter().find(|(t, _)| starts_ci(value, t)) {
                slot = Slot::Reflection(i);
            }
            2
        } else if starts_ci(rest, b"-bm") {
            let v = number(value)?;
            materials.list[cur].bump_multiplier = v;
            2
        } else if [
            &b"-blendu"[..],
            b"-blendv",
            b"-boost",
            b"-texres",
            b"-imfchan",
        ]
        .iter()
        .any(|o| starts_ci(rest, o))
        {
            2
        } else if starts_ci(rest, b"-mm") {
            3
        } else if [&b"-o"[..], b"-s", b"-t"]
            .iter()
            .any(|o| starts_ci(rest, o))
        {
            4
        } else {
            1
        };
        for _ in 0..skip {
            rest = after_first_word(rest);
        }
    }
    let m = &mut materials.list[cur];
    m.clamp[slot.index()] = clamp;
    // The rest of the line, trailing blanks included, as Assimp keeps it (`load` trims).
    m.textures[slot.index()] = if rest.is_empty() {
        None
    } else {
        Some(decode_name(rest))
    };
    Ok(())
}
