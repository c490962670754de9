//! Materials: each FBX `Material` once, its properties under the scene's colour fields and
//! Assimp's material keys, the rest as `$raw.<name>` copies, and its textures in Assimp's
//! slots (`SetTextureProperties`).
//!
//! Three tables drive it, walked in order: [`MATERIAL_PROPERTIES`] (FBX property → colour
//! field or material key), [`TEXTURE_SLOTS`] and [`LAYERED_TEXTURE_SLOTS`] (material property
//! a texture is linked to → texture type), and [`GLOSSINESS_SLOTS`] for 3ds Max's PBR maps.

use std::collections::{BTreeMap, HashSet};

use kiln_scene::{Material, PropertyValue, TextureKind, TextureRef, Vec3, Warning};

use super::{Converter, Model};
use crate::codes;
use crate::geometry::MeshGeometry;
use crate::graph::{Object, Props, string_child, strip_prefix};

/// A property table that remembers which names were read (Assimp's "parsed" properties,
/// which the `$raw.` copies leave out).
struct PropsLog<'p, 'd, 'a> {
    props: &'p Props<'d, 'a>,
    queried: &'p mut HashSet<&'static str>,
}

impl PropsLog<'_, '_, '_> {
    fn vec3(&mut self, name: &'static str) -> Option<[f64; 3]> {
        self.queried.insert(name);
        self.props.vec3(name)
    }

    fn float(&mut self, name: &'static str) -> Option<f64> {
        self.queried.insert(name);
        self.props.float(name)
    }

    /// The colour `color` times the factor `factor` (read only when the colour is there).
    fn factored(&mut self, color: &'static str, factor: Option<&'static str>) -> Option<Vec3> {
        let c = self.vec3(color)?;
        let mut c = f32v(c);
        if let Some(f) = factor.and_then(|f| self.float(f)) {
            c *= f as f32;
        }
        Some(c)
    }
}

fn f32v(v: [f64; 3]) -> Vec3 {
    Vec3::new(v[0] as f32, v[1] as f32, v[2] as f32)
}

/// A colour field of [`Material`].
#[derive(Clone, Copy, Debug)]
enum Colour {
    Diffuse,
    Emissive,
    Ambient,
    Specular,
}

/// What one FBX material property becomes.
#[derive(Clone, Copy, Debug)]
enum Rule {
    /// The colour field, when still unset: the property (a vector) times the factor property.
    Colour(Colour, Option<&'static str>),
    /// `shininess_strength`.
    ShininessStrength,
    /// `shininess`, and `$mat.roughnessFactor` = 1 − √shininess / 10.
    Shininess,
    /// `$clr.transparent` = the colour times the factor property; it also gives the opacity
    /// when the file has no `Opacity` (1 − the mean of the three components).
    Transparent(&'static str),
    /// `opacity`; else the one `Transparent` computed, when that is not 1.
    Opacity,
    /// A vector property under this material key.
    Vector(&'static str),
    /// A number under this material key.
    Float(&'static str),
}

/// The FBX material properties Assimp reads (`SetShadingPropertiesCommon`), in its order
/// (which is the order of the material keys).
const MATERIAL_PROPERTIES: [(&str, Rule); 23] = [
    (
        "DiffuseColor",
        Rule::Colour(Colour::Diffuse, Some("DiffuseFactor")),
    ),
    (
        "EmissiveColor",
        Rule::Colour(Colour::Emissive, Some("EmissiveFactor")),
    ),
    ("Maya|emissive", Rule::Colour(Colour::Emissive, None)),
    (
        "AmbientColor",
        Rule::Colour(Colour::Ambient, Some("AmbientFactor")),
    ),
    ("SpecularColor", Rule::Colour(Colour::Specular, None)),
    ("SpecularFactor", Rule::ShininessStrength),
    ("ShininessExponent", Rule::Shininess),
    ("TransparentColor", Rule::Transparent("TransparencyFactor")),
    ("TransparencyFactor", Rule::Float("$mat.transparencyfactor")),
    ("Opacity", Rule::Opacity),
    ("ReflectionColor", Rule::Vector("$clr.reflective")),
    ("ReflectionFactor", Rule::Float("$mat.reflectivity")),
    ("BumpFactor", Rule::Float("$mat.bumpscaling")),
    (
        "DisplacementFactor",
        Rule::Float("$mat.displacementscaling"),
    ),
    ("Maya|base_color", Rule::Vector("$clr.base")),
    ("Maya|use_color_map", Rule::Float("$mat.useColorMap")),
    ("Maya|use_metallic_map", Rule::Float("$mat.useMetallicMap")),
    ("Maya|metallic", Rule::Float("$mat.metallicFactor")),
    (
        "Maya|use_roughness_map",
        Rule::Float("$mat.useRoughnessMap"),
    ),
    ("Maya|roughness", Rule::Float("$mat.roughnessFactor")),
    ("Maya|use_emissive_map", Rule::Float("$mat.useEmissiveMap")),
    (
        "Maya|emissive_intensity",
        Rule::Float("$mat.emissiveIntensity"),
    ),
    ("Maya|use_ao_map", Rule::Float("$mat.useAOMap")),
];

/// Assimp's texture types, for de-duplicating slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum AiTex {
    Diffuse,
    Ambient,
    Emissive,
    Specular,
    Opacity,
    Reflection,
    Displacement,
    Normals,
    Height,
    Shininess,
    Metalness,
    BaseColor,
    NormalCamera,
    EmissionColor,
    DiffuseRoughness,
    AmbientOcclusion,
}

impl AiTex {
    fn kind(self) -> TextureKind {
        match self {
            AiTex::Diffuse => TextureKind::Diffuse,
            AiTex::Ambient => TextureKind::Ambient,
            AiTex::Emissive => TextureKind::Emissive,
            AiTex::Specular => TextureKind::Specular,
            AiTex::Opacity => TextureKind::Opacity,
            AiTex::Reflection => TextureKind::Reflection,
            AiTex::Displacement => TextureKind::Displacement,
            AiTex::Normals => TextureKind::Normals,
            AiTex::Height => TextureKind::Height,
            AiTex::Shininess => TextureKind::Shininess,
            _ => TextureKind::Unknown,
        }
    }
}

/// `SetTextureProperties`: material property → texture type, in Assimp's order.
const TEXTURE_SLOTS: [(&str, AiTex); 42] = [
    ("DiffuseColor", AiTex::Diffuse),
    ("AmbientColor", AiTex::Ambient),
    ("EmissiveColor", AiTex::Emissive),
    ("SpecularColor", AiTex::Specular),
    ("SpecularFactor", AiTex::Specular),
    ("TransparentColor", AiTex::Opacity),
    ("ReflectionColor", AiTex::Reflection),
    ("DisplacementColor", AiTex::Displacement),
    ("NormalMap", AiTex::Normals),
    ("Bump", AiTex::Height),
    ("ShininessExponent", AiTex::Shininess),
    ("TransparencyFactor", AiTex::Opacity),
    ("EmissiveFactor", AiTex::Emissive),
    ("ReflectionFactor", AiTex::Metalness),
    ("Maya|DiffuseTexture", AiTex::Diffuse),
    ("Maya|NormalTexture", AiTex::Normals),
    ("Maya|SpecularTexture", AiTex::Specular),
    ("Maya|FalloffTexture", AiTex::Opacity),
    ("Maya|ReflectionMapTexture", AiTex::Reflection),
    ("Maya|baseColor", AiTex::BaseColor),
    ("Maya|normalCamera", AiTex::NormalCamera),
    ("Maya|emissionColor", AiTex::EmissionColor),
    ("Maya|metalness", AiTex::Metalness),
    ("Maya|diffuseRoughness", AiTex::DiffuseRoughness),
    ("Maya|TEX_color_map", AiTex::BaseColor),
    ("Maya|TEX_normal_map", AiTex::NormalCamera),
    ("Maya|TEX_emissive_map", AiTex::EmissionColor),
    ("Maya|TEX_metallic_map", AiTex::Metalness),
    ("Maya|TEX_roughness_map", AiTex::DiffuseRoughness),
    ("Maya|TEX_ao_map", AiTex::AmbientOcclusion),
    ("3dsMax|Parameters|base_color_map", AiTex::BaseColor),
    ("3dsMax|Parameters|bump_map", AiTex::NormalCamera),
    ("3dsMax|Parameters|emission_map", AiTex::EmissionColor),
    ("3dsMax|Parameters|metalness_map", AiTex::Metalness),
    ("3dsMax|Parameters|roughness_map", AiTex::DiffuseRoughness),
    ("3dsMax|main|base_color_map", AiTex::BaseColor),
    ("3dsMax|main|norm_map", AiTex::NormalCamera),
    ("3dsMax|main|emit_color_map", AiTex::EmissionColor),
    ("3dsMax|main|ao_map", AiTex::AmbientOcclusion),
    ("3dsMax|main|opacity_map", AiTex::Opacity),
    ("3dsMax|main|metalness_map", AiTex::Metalness),
    ("3dsMax|main|specular_map", AiTex::Specular),
];

/// 3ds Max's roughness and glossiness maps, after [`TEXTURE_SLOTS`]: their texture type by
/// the material's `3dsMax|main|useGlossiness` (1 or 2; any other value adds neither).
const GLOSSINESS_SLOTS: [(i64, AiTex); 2] = [(1, AiTex::Shininess), (2, AiTex::DiffuseRoughness)];

/// The material properties of [`GLOSSINESS_SLOTS`], in order.
const GLOSSINESS_MAPS: [&str; 2] = ["3dsMax|main|roughness_map", "3dsMax|main|glossiness_map"];

/// `SetTextureProperties` for layered textures. Not a prefix of [`TEXTURE_SLOTS`]: Assimp
/// reads `EmissiveFactor` before `TransparencyFactor` here, and that order decides the order
/// of the material's textures.
const LAYERED_TEXTURE_SLOTS: [(&str, AiTex); 14] = [
    ("DiffuseColor", AiTex::Diffuse),
    ("AmbientColor", AiTex::Ambient),
    ("EmissiveColor", AiTex::Emissive),
    ("SpecularColor", AiTex::Specular),
    ("SpecularFactor", AiTex::Specular),
    ("TransparentColor", AiTex::Opacity),
    ("ReflectionColor", AiTex::Reflection),
    ("DisplacementColor", AiTex::Displacement),
    ("NormalMap", AiTex::Normals),
    ("Bump", AiTex::Height),
    ("ShininessExponent", AiTex::Shininess),
    ("EmissiveFactor", AiTex::Emissive),
    ("TransparencyFactor", AiTex::Opacity),
    ("ReflectionFactor", AiTex::Metalness),
];

/// Sets material key `key` (in place when it is there already, as `aiMaterial::AddProperty`
/// replaces it).
fn set_key(mat: &mut Material, key: &str, v: PropertyValue) {
    if let Some(slot) = mat.properties.iter_mut().find(|(k, _)| k == key) {
        slot.1 = v;
    } else {
        mat.properties.push((key.to_string(), v));
    }
}

/// A vector's components as they are stored under a material key (rounded to `f32`).
fn key_vector(v: &[f64]) -> PropertyValue {
    PropertyValue::Vector(v.iter().map(|&x| f64::from(x as f32)).collect())
}

impl<'d, 'a> Converter<'_, 'd, 'a> {
    /// Assimp's `DefaultMaterial` (diffuse 0.8 grey), added once when a mesh needs it.
    pub(super) fn default_material(&mut self) -> usize {
        if let Some(i) = self.default_material {
            return i;
        }
        self.scene.materials.push(Material {
            name: "DefaultMaterial".into(),
            diffuse: Some(Vec3::splat(0.8)),
            ..Material::default()
        });
        let i = self.scene.materials.len() - 1;
        self.default_material = Some(i);
        i
    }

    /// The scene material for material index `index` of `model` (converted once), or the
    /// default material when the index is past the model's materials.
    pub(super) fn material_for_mesh(
        &mut self,
        model: &Model<'d, 'a>,
        geo: &MeshGeometry<'_>,
        index: i32,
    ) -> usize {
        let Some(&mid) = usize::try_from(index)
            .ok()
            .and_then(|i| model.materials.get(i))
        else {
            self.warn(
                Warning::new(
                    codes::MATERIAL_INDEX_OUT_OF_RANGE,
                    format!(
                        "Model '{}' (id {}): material index {index} out of range ({} materials); the default material is used",
                        model.name,
                        model.id,
                        model.materials.len()
                    ),
                )
                .at(format!("Model '{}' (id {})", model.name, model.id)),
            );
            return self.default_material();
        };
        if let Some(&i) = self.materials_converted.get(&mid) {
            return i;
        }
        let Some(obj) = self.g.object(mid).copied() else {
            return self.default_material();
        };
        let i = self.convert_material(&obj, geo);
        self.materials_converted.insert(mid, i);
        i
    }

    /// `ConvertMaterial`: the properties ([`MATERIAL_PROPERTIES`], then the `$raw.` copies),
    /// then the textures.
    fn convert_material(&mut self, obj: &Object<'d, 'a>, geo: &MeshGeometry<'_>) -> usize {
        let g = self.g;
        let full = obj.name(g.legacy);
        let name = strip_prefix(&full, "Material::").to_string();
        let shading = string_child(&obj.node, "ShadingModel")
            .unwrap_or_else(|| "phong".into())
            .to_ascii_lowercase();
        let template = match shading.as_str() {
            "phong" => "Material.FbxSurfacePhong",
            "lambert" => "Material.FbxSurfaceLambert",
            _ => "",
        };
        let props = g.props(&obj.node, template);
        let mut mat = Material {
            name,
            ..Material::default()
        };
        let mut queried: HashSet<&str> = HashSet::new();
        let mut p = PropsLog {
            props: &props,
            queried: &mut queried,
        };
        if shading == "phong" {
            set_key(&mut mat, "$mat.shadingm", PropertyValue::Int(3));
        }
        let mut calculated_opacity = 1.0f32;
        for (fbx, rule) in MATERIAL_PROPERTIES {
            match rule {
                Rule::Colour(field, factor) => {
                    let slot = match field {
                        Colour::Diffuse => &mut mat.diffuse,
                        Colour::Emissive => &mut mat.emissive,
                        Colour::Ambient => &mut mat.ambient,
                        Colour::Specular => &mut mat.specular,
                    };
                    if slot.is_none() {
                        *slot = p.factored(fbx, factor);
                    }
                }
                Rule::ShininessStrength => {
                    mat.shininess_strength = p.float(fbx).map(|v| v as f32);
                }
                Rule::Shininess => {
                    if let Some(s) = p.float(fbx) {
                        let s = s as f32;
                        mat.shininess = Some(s);
                        set_key(
                            &mut mat,
                            "$mat.roughnessFactor",
                            PropertyValue::Float(f64::from(1.0 - s.sqrt() / 10.0)),
                        );
                    }
                }
                Rule::Transparent(factor) => {
                    if let Some(t) = p.factored(fbx, Some(factor)) {
                        set_key(
                            &mut mat,
                            "$clr.transparent",
                            PropertyValue::Vector(vec![
                                f64::from(t.x),
                                f64::from(t.y),
                                f64::from(t.z),
                            ]),
                        );
                        calculated_opacity = 1.0 - (t.x + t.y + t.z) / 3.0;
                    }
                }
                Rule::Opacity => {
                    if let Some(o) = p.float(fbx) {
                        mat.opacity = Some(o as f32);
                    } else if calculated_opacity != 1.0 {
                        mat.opacity = Some(calculated_opacity);
                    }
                }
                Rule::Vector(key) => {
                    if let Some(v) = p.vec3(fbx) {
                        set_key(&mut mat, key, key_vector(&v));
                    }
                }
                Rule::Float(key) => {
                    if let Some(v) = p.float(fbx) {
                        set_key(&mut mat, key, PropertyValue::Float(f64::from(v as f32)));
                    }
                }
            }
        }
        // `$raw.` copies of the properties nothing above read, by name.
        let mut raw: BTreeMap<String, PropertyValue> = BTreeMap::new();
        for (pname, pr) in props.own_entries() {
            if queried.contains(pname.as_str()) {
                continue;
            }
            let v = if let Some(v) = pr.as_vec3() {
                key_vector(&v)
            } else if let Some(v) = pr.as_color4() {
                key_vector(&v)
            } else if let Some(v) = pr.as_float() {
                PropertyValue::Float(f64::from(v as f32))
            } else if let Some(v) = pr.as_int() {
                PropertyValue::Int(i64::from(v as i32))
            } else if let Some(v) = pr.as_bool() {
                PropertyValue::Int(i64::from(v))
            } else if let Some(v) = pr.as_string() {
                PropertyValue::String(v)
            } else {
                continue;
            };
            raw.insert(format!("$raw.{pname}"), v);
        }
        for (k, v) in raw {
            set_key(&mut mat, &k, v);
        }
        self.material_textures(obj.id, geo, &mut mat);
        self.scene.materials.push(mat);
        self.scene.materials.len() - 1
    }

    /// The textures of material `mid`: their `$raw.<property>|file`, `|uvtrafo` and
    /// `|uvwsrc` keys, and the texture slots.
    fn material_textures(&mut self, mid: u64, geo: &MeshGeometry<'_>, mat: &mut Material) {
        let (textures, layered) = self.linked_textures(mid);
        for (pname, tid) in &textures {
            let path = self.texture_path(*tid, true);
            set_key(
                mat,
                &format!("$raw.{pname}|file"),
                PropertyValue::String(path),
            );
            let trafo = self.texture_uv_transform(*tid);
            set_key(
                mat,
                &format!("$raw.{pname}|uvtrafo"),
                PropertyValue::Vector(trafo.iter().map(|&v| f64::from(v)).collect()),
            );
            let uv = self.texture_uv_channel(*tid, geo);
            set_key(
                mat,
                &format!("$raw.{pname}|uvwsrc"),
                PropertyValue::Int(i64::from(uv)),
            );
        }
        // `useGlossiness` decides how 3ds Max PBR roughness/glossiness maps are read.
        let use_gloss = mat
            .properties
            .iter()
            .find_map(|(k, v)| match (k.as_str(), v) {
                ("$raw.3dsMax|main|useGlossiness", PropertyValue::Int(i)) => Some(*i),
                _ => None,
            });
        let mut slots: Vec<(&str, AiTex)> = TEXTURE_SLOTS.to_vec();
        if let Some(&(_, kind)) = GLOSSINESS_SLOTS.iter().find(|(v, _)| Some(*v) == use_gloss) {
            slots.extend(GLOSSINESS_MAPS.map(|m| (m, kind)));
        }
        // (texture type, layer index) → texture; a later assignment of the same slot replaces
        // the earlier one in place, as `aiMaterial::AddProperty` does.
        let mut assigned: Vec<((AiTex, usize), TextureRef)> = Vec::new();
        let mut assign = |conv: &mut Self, key: (AiTex, usize), tid: u64| {
            let t = TextureRef {
                kind: key.0.kind(),
                path: conv.texture_path(tid, false),
                embedded: conv.texture_embedded(tid),
                uv_channel: conv.texture_uv_channel(tid, geo),
            };
            if let Some(slot) = assigned.iter_mut().find(|(k, _)| *k == key) {
                slot.1 = t;
            } else {
                assigned.push((key, t));
            }
        };
        for (pname, kind) in slots {
            if let Some(&(_, tid)) = textures.iter().find(|(n, _)| n == pname) {
                assign(self, (kind, 0), tid);
            }
        }
        for (pname, kind) in LAYERED_TEXTURE_SLOTS {
            if let Some((_, layers)) = layered.iter().find(|(n, _)| n == pname) {
                for (i, &tid) in layers.iter().enumerate() {
                    assign(self, (kind, i), tid);
                }
            }
        }
        mat.textures = assigned.into_iter().map(|(_, t)| t).collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_material_key_is_read_from_one_property() {
        let mut seen = HashSet::new();
        for (fbx, _) in MATERIAL_PROPERTIES {
            assert!(seen.insert(fbx), "{fbx} twice");
        }
    }
}
