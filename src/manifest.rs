//! `NAME.kiln.json`: what one conversion read and wrote, beside its outputs.
//!
//! A manifest is what makes a conversion safe to repeat over an asset tree:
//! - `kiln convert` skips an input whose manifest still matches (the same kiln, the same
//!   options, every input file with the same content, every file looked for and not found still
//!   absent, every output still as written), and deletes the outputs of an earlier run that it no
//!   longer writes;
//! - `bake`, `verify`, `preview` and `dump` find a `.mesh`'s clips in it, never by matching file
//!   names;
//! - a build system declares a conversion's inputs from it (`docs/pipeline.md`).
//!
//! It is deterministic: no time, no absolute path, no machine name. Input paths are relative to
//! the model's folder and output paths to the manifest's folder, both with `/`, so the same tree
//! converted from anywhere, with any `-j`, gives the same bytes. Content hashes are XXH3-128 in
//! hex (fast enough that a no-op run over a tree costs little more than reading it; not a
//! defence against someone forging a file).
//!
//! The layout is versioned by [`VERSION`] (`"manifest"`); a reader of version N refuses other
//! versions, and a conversion treats a manifest it cannot read as absent. `docs/cli.md`
//! ("The manifest") describes every field; `docs/pipeline.md` how build systems use it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// The manifest layout's version (the `"manifest"` field).
pub const VERSION: u32 = 1;

/// The manifest's file name after the model's name: `NAME.kiln.json`.
pub const SUFFIX: &str = ".kiln.json";

/// One conversion's record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Manifest {
    /// [`VERSION`].
    pub manifest: u32,
    /// The kiln version that wrote it (`CARGO_PKG_VERSION`).
    pub kiln: String,
    /// The model, relative to the batch's base folder (`-` for standard input).
    pub model: String,
    /// The options that shape the outputs.
    pub options: OptionsRecord,
    /// Every file read, the model first; paths relative to the model's folder.
    pub inputs: Vec<InputRecord>,
    /// Files looked for and not found (a texture's other candidate paths, a missing `.mtl`):
    /// if one appears, the outputs may change.
    pub absent: Vec<String>,
    /// Every file written but the manifest, mesh first; paths relative to the manifest's folder.
    pub outputs: Vec<OutputRecord>,
    /// How many warnings of each code the conversion gave.
    pub warnings: BTreeMap<String, usize>,
}

/// The options of `kiln convert` that change what it writes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct OptionsRecord {
    /// `kiln` or `classic`.
    pub layout: String,
    /// `none`, `attributes` or `attributes-and-positions`.
    pub quantize: String,
    /// `--static`.
    #[serde(rename = "static")]
    pub pre_transform: bool,
    /// `--clip-rate`.
    pub clip_rate: Option<f64>,
    /// `--textures`: `copy`, `reference` or `skip`.
    pub textures: String,
    /// `--texture-dir`, relative to each output folder.
    pub texture_dir: Option<String>,
    /// `--clips`: the animations kept (`None`: all).
    pub clips: Option<Vec<String>>,
    /// `--units`: `mm`, `cm`, `m`, `in` or `ft`.
    #[serde(default)]
    pub units: Option<String>,
    /// `--scale`.
    #[serde(default)]
    pub scale: Option<f64>,
    /// `--up`: `+x`, `-z`…
    #[serde(default)]
    pub up: Option<String>,
    /// `--forward`, as `up`.
    #[serde(default)]
    pub forward: Option<String>,
    /// `--name-style` when not `original`: `lower` or `snake`.
    #[serde(default)]
    pub name_style: Option<String>,
}

/// A file a conversion read.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InputRecord {
    /// Relative to the model's folder, with `/` (absolute when the model gave it so).
    pub path: String,
    /// Bytes.
    pub size: u64,
    /// XXH3-128 of the content, 32 hex digits.
    pub xxh3: String,
}

/// What an output is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OutputKind {
    /// `NAME.mesh`.
    Mesh,
    /// `NAME.xml`.
    Materials,
    /// A `.clip`.
    Clip,
    /// A texture file a material uses.
    Texture,
}

/// A file a conversion wrote.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct OutputRecord {
    /// Relative to the manifest's folder, with `/`.
    pub path: String,
    /// What it is.
    pub kind: OutputKind,
    /// Bytes.
    pub size: u64,
    /// XXH3-128 of the content, 32 hex digits.
    pub xxh3: String,
    /// For the `.mesh`: its clip files, in the model's animation order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub clips: Vec<String>,
}

/// XXH3-128 of `bytes` as 32 hex digits, the hash manifests record.
pub fn content_hash(bytes: &[u8]) -> String {
    hex(xxhash_rust::xxh3::xxh3_128(bytes))
}

/// A 128-bit hash as 32 hex digits.
pub(crate) fn hex(h: u128) -> String {
    format!("{h:032x}")
}

impl Manifest {
    /// The manifest at `path`; `None` when there is none or it cannot be read as this version.
    pub fn read(path: &Path) -> Option<Manifest> {
        let bytes = std::fs::read(path).ok()?;
        Manifest::from_json(&bytes)
    }

    /// A manifest from its JSON; `None` when malformed or of another [`VERSION`].
    pub fn from_json(bytes: &[u8]) -> Option<Manifest> {
        let m: Manifest = serde_json::from_slice(bytes).ok()?;
        (m.manifest == VERSION).then_some(m)
    }

    /// The JSON written to disk: pretty, fields in a fixed order, a final newline.
    pub fn to_json(&self) -> Vec<u8> {
        let mut bytes = serde_json::to_vec_pretty(self).expect("a manifest always serialises");
        bytes.push(b'\n');
        bytes
    }

    /// The `.mesh` output and its clips.
    pub fn mesh(&self) -> Option<&OutputRecord> {
        self.outputs.iter().find(|o| o.kind == OutputKind::Mesh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> Manifest {
        Manifest {
            manifest: VERSION,
            kiln: "0.1.0".into(),
            model: "a/x.fbx".into(),
            options: OptionsRecord {
                layout: "kiln".into(),
                quantize: "none".into(),
                textures: "copy".into(),
                clip_rate: Some(30.0),
                ..OptionsRecord::default()
            },
            inputs: vec![InputRecord {
                path: "x.fbx".into(),
                size: 3,
                xxh3: content_hash(b"abc"),
            }],
            absent: vec!["tex/t.png".into()],
            outputs: vec![OutputRecord {
                path: "x.mesh".into(),
                kind: OutputKind::Mesh,
                size: 10,
                xxh3: content_hash(b"0123456789"),
                clips: vec!["x_walk.clip".into()],
            }],
            warnings: BTreeMap::from([("obj.x".to_string(), 2)]),
        }
    }

    #[test]
    fn round_trips_and_refuses_other_versions() {
        let m = sample();
        let json = m.to_json();
        assert_eq!(Manifest::from_json(&json), Some(m.clone()));
        let text = String::from_utf8(json).unwrap();
        assert!(text.contains("\"static\": false"), "{text}");
        assert!(text.contains("\"kind\": \"mesh\""), "{text}");
        let other = text.replace("\"manifest\": 1", "\"manifest\": 2");
        assert_eq!(Manifest::from_json(other.as_bytes()), None);
        assert_eq!(Manifest::from_json(b"{not json"), None);
        assert_eq!(m.mesh().unwrap().clips, ["x_walk.clip"]);
    }

    #[test]
    fn hashes_are_xxh3_128_in_hex() {
        // XXH3-128 of the empty input (the reference implementation's test vector).
        assert_eq!(content_hash(b""), "99aa06d3014798d86001c324468d497f");
        assert_eq!(content_hash(b"abc").len(), 32);
        assert_ne!(content_hash(b"abc"), content_hash(b"abd"));
    }
}
