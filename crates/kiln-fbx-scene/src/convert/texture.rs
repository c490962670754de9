//! Textures: the `Texture` objects linked to material properties (and `LayeredTexture`s),
//! their file names, UV transforms and UV channels, and the `Video` content they embed,
//! converted once each into [`kiln_scene::Scene::textures`].

use std::collections::BTreeMap;

use kiln_fbx::Value;
use kiln_scene::{EmbeddedTexture, Warning};

use super::Converter;
use crate::codes;
use crate::geometry::MeshGeometry;
use crate::graph::string_child;

/// Textures linked to a material, by property name, sorted by name.
type Linked = Vec<(String, u64)>;

/// Layered textures linked to a material, by property name (sorted), with their layers.
type LinkedLayers = Vec<(String, Vec<u64>)>;

impl Converter<'_, '_, '_> {
    /// Textures linked to material properties (OP connections), by property name (the last
    /// link of a name wins), sorted by name as Assimp's map is; and layered textures with the
    /// textures linked to each.
    pub(super) fn linked_textures(&mut self, mid: u64) -> (Linked, LinkedLayers) {
        let g = self.g;
        let mut map: BTreeMap<String, u64> = BTreeMap::new();
        let mut layered: BTreeMap<String, Vec<u64>> = BTreeMap::new();
        for c in g.incoming(mid) {
            let Some(o) = g.object(c.src) else { continue };
            let prop = if c.property.is_empty() && g.legacy && o.element == "Texture" {
                // FBX 6.1 links textures object-to-object: take them as diffuse maps.
                "DiffuseColor".to_string()
            } else {
                c.property.clone()
            };
            if prop.is_empty() {
                continue;
            }
            match o.element {
                "Texture" => {
                    map.insert(prop, c.src);
                }
                "LayeredTexture" => {
                    let layers = g
                        .incoming(c.src)
                        .filter(|l| g.object(l.src).is_some_and(|o| o.element == "Texture"))
                        .map(|l| l.src)
                        .collect();
                    layered.insert(prop, layers);
                }
                _ => {}
            }
        }
        (map.into_iter().collect(), layered.into_iter().collect())
    }

    /// `aiUVTransform` of a texture: translation x, y, scaling x, y, rotation.
    pub(super) fn texture_uv_transform(&self, tid: u64) -> [f32; 5] {
        let Some(obj) = self.g.object(tid).copied() else {
            return [0.0, 0.0, 1.0, 1.0, 0.0];
        };
        let pair = |name: &str, default: [f32; 2]| -> [f32; 2] {
            let Some(n) = obj.node.child(name) else {
                return default;
            };
            match (n.get_f64(0), n.get_f64(1)) {
                (Ok(a), Ok(b)) => [a as f32, b as f32],
                _ => default,
            }
        };
        let mut t = pair("ModelUVTranslation", [0.0, 0.0]);
        let mut sc = pair("ModelUVScaling", [1.0, 1.0]);
        let mut rot = 0.0;
        let props = self.g.props(&obj.node, "Texture.FbxFileTexture");
        if let Some(v) = props.vec3_f32("Scaling") {
            sc = [v[0], v[1]];
        }
        if let Some(v) = props.vec3_f32("Translation") {
            t = [v[0], v[1]];
        }
        if let Some(v) = props.vec3_f32("Rotation") {
            rot = v[2];
        }
        [t[0], t[1], sc[0], sc[1], rot]
    }

    /// The UV channel a texture reads: its `UVSet` property looked up among the geometry's UV
    /// set names (0 when unset, `default`, or not found).
    pub(super) fn texture_uv_channel(&mut self, tid: u64, geo: &MeshGeometry<'_>) -> u32 {
        let Some(obj) = self.g.object(tid).copied() else {
            return 0;
        };
        let props = self.g.props(&obj.node, "Texture.FbxFileTexture");
        let Some(set) = props.string("UVSet") else {
            return 0;
        };
        if set == "default" || set.is_empty() {
            return 0;
        }
        match (0..geo.uv_count()).find(|&i| geo.uv_names[i] == set) {
            Some(i) => i as u32,
            None => {
                let d = self.describe(&obj);
                self.warn(
                    Warning::new(
                        codes::UV_SET_MISSING,
                        format!(
                            "{d}: UV set '{set}' not found in the mesh; the first UV channel is used"
                        ),
                    )
                    .at(d),
                );
                0
            }
        }
    }

    /// The video (last one linked) of texture `tid`.
    fn texture_media(&self, tid: u64) -> Option<u64> {
        self.g.sources_of(tid, "Video").map(|(c, _)| c.src).last()
    }

    /// The texture's `RelativeFilename`; for the `$raw.` copy, `*N` when it is embedded.
    pub(super) fn texture_path(&mut self, tid: u64, raw: bool) -> String {
        let node = self.g.object(tid).map(|o| o.node);
        let path = node
            .and_then(|n| string_child(&n, "RelativeFilename"))
            .unwrap_or_default();
        match self.texture_embedded(tid) {
            Some(i) if raw => format!("*{i}"),
            _ => path,
        }
    }

    /// Converts the texture's video content, once, and returns its index in
    /// [`kiln_scene::Scene::textures`].
    pub(super) fn texture_embedded(&mut self, tid: u64) -> Option<usize> {
        let vid = self.texture_media(tid)?;
        if let Some(&i) = self.videos_converted.get(&vid) {
            return Some(i);
        }
        let i = self.convert_video(vid)?;
        self.videos_converted.insert(vid, i);
        Some(i)
    }

    /// The bytes a `Video` embeds (`Content`), when it has any.
    fn video_content(&mut self, vid: u64) -> Option<Vec<u8>> {
        let obj = *self.g.object(vid)?;
        let c = obj.node.child("Content")?;
        let p = c.property(0).ok()?;
        match p.as_raw() {
            Ok(bytes) if !bytes.is_empty() => Some(bytes.into_owned()),
            Ok(_) => None,
            Err(e) => {
                if !matches!(p.value(), Value::String(_)) {
                    let d = self.describe(&obj);
                    self.warn(
                        Warning::new(
                            codes::VIDEO_UNREADABLE,
                            format!("{d}: embedded content unreadable ({e}); not embedded"),
                        )
                        .at(d),
                    );
                }
                None
            }
        }
    }

    /// A `Video`'s content as an embedded texture, with its file name and format hint (the
    /// extension, `jpeg` as `jpg`, empty when longer than 3 letters).
    fn convert_video(&mut self, vid: u64) -> Option<usize> {
        let data = self.video_content(vid)?;
        let obj = *self.g.object(vid)?;
        let rel = string_child(&obj.node, "RelativeFilename").unwrap_or_default();
        let file = obj
            .node
            .children()
            .find(|c| c.name().eq_ignore_ascii_case("FileName"))
            .and_then(|c| match c.value(0) {
                Some(Value::String(s)) => Some(kiln_scene::names::from_bytes(s).into_owned()),
                _ => None,
            })
            .unwrap_or_default();
        let filename = if rel.is_empty() { file } else { rel };
        let mut ext = match filename.rfind('.') {
            Some(p) => filename[p + 1..].to_ascii_lowercase(),
            None => String::new(),
        };
        if ext == "jpeg" {
            ext = "jpg".into();
        }
        if ext.len() > 3 {
            ext.clear();
        }
        self.scene.textures.push(EmbeddedTexture {
            filename,
            format_hint: ext,
            data,
        });
        Some(self.scene.textures.len() - 1)
    }

    /// Textures that no connection leads away from but that embed an image: converted first,
    /// in id order, as Assimp does.
    pub(super) fn convert_orphaned_textures(&mut self) {
        let g = self.g;
        let mut ids: Vec<u64> = g
            .by_id
            .keys()
            .copied()
            .filter(|&id| !g.has_outgoing(id))
            .filter(|&id| g.object(id).is_some_and(|o| o.element == "Texture"))
            .collect();
        ids.sort_unstable();
        for tid in ids {
            let Some(vid) = self.texture_media(tid) else {
                continue;
            };
            if self.video_content(vid).is_none() {
                continue;
            }
            if let Some(i) = self.convert_video(vid) {
                self.videos_converted.insert(vid, i);
            }
        }
    }
}
