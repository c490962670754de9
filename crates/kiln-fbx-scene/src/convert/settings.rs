//! `GlobalSettings` and the header into [`kiln_scene::Metadata`]: source format, unit scale,
//! axes, frame rate (`TimeMode`, `CustomFrameRate`) and the creating application.

use kiln_scene::{AxisSystem, Warning};

use super::Converter;
use crate::codes;
use crate::graph::{Graph, string_child};

/// `TimeMode` (0..=14, anything else 0) and `CustomFrameRate` (-1 when unset) from
/// GlobalSettings.
pub(super) fn time_mode(g: &Graph<'_, '_>) -> (i64, f64) {
    let gp = g.global_props();
    let mode = gp.int("TimeMode").unwrap_or(0);
    let mode = if (0..15).contains(&mode) { mode } else { 0 };
    let custom = gp
        .float("CustomFrameRate")
        .map_or(-1.0, |v| f64::from(v as f32));
    (mode, custom)
}

/// `FrameRateToDouble`: frames per second of a `TimeMode` (1 for the default mode 0).
pub(super) fn frame_rate(mode: i64, custom: f64) -> f64 {
    match mode {
        1 => 120.0,
        2 => 100.0,
        3 => 60.0,
        4 => 50.0,
        5 => 48.0,
        6 | 7 => 30.0,
        8 | 9 => 29.9700262,
        10 => 25.0,
        11 => 24.0,
        12 => 1000.0,
        13 => 23.976,
        14 => custom,
        _ => 1.0,
    }
}

impl Converter<'_, '_, '_> {
    /// The scene metadata from `GlobalSettings` and the header.
    pub(super) fn convert_global_settings(&mut self) {
        let gp = self.g.global_props();
        // A unit of 0 (or not finite) says nothing: Assimp refuses such a file, ufbx reads it,
        // and kiln reads it with its unit unknown.
        let unit = gp.float("UnitScaleFactor").unwrap_or(1.0);
        let unit = if unit.is_finite() && unit != 0.0 {
            Some(unit)
        } else {
            self.warn(
                Warning::new(
                    codes::UNIT_SCALE_INVALID,
                    format!("GlobalSettings: UnitScaleFactor is {unit}; the file's unit is taken as unknown"),
                )
                .at("GlobalSettings"),
            );
            None
        };
        let md = &mut self.scene.metadata;
        md.source_format = format!(
            "fbx {} {}",
            self.g.version,
            match self.g.doc.format() {
                kiln_fbx::Format::Binary => "binary",
                kiln_fbx::Format::Ascii => "ascii",
            }
        );
        md.unit_scale_factor = unit;

        let axis = |a: &str, s: &str, da: i64, ds: i64| {
            let a = gp.int(a).unwrap_or(da).clamp(0, 2) as u8;
            let s = if gp.int(s).unwrap_or(ds) < 0 { -1 } else { 1 };
            (a, s)
        };
        md.axes = Some(AxisSystem {
            up: axis("UpAxis", "UpAxisSign", 1, 1),
            front: axis("FrontAxis", "FrontAxisSign", 2, 1),
            coord: axis("CoordAxis", "CoordAxisSign", 0, 1),
        });
        let (mode, custom) = time_mode(self.g);
        md.frame_rate = Some(frame_rate(mode, custom));
        md.application = self
            .g
            .doc
            .root("FBXHeaderExtension")
            .and_then(|h| string_child(&h, "Creator"))
            .or_else(|| {
                self.g
                    .doc
                    .root("Creator")
                    .and_then(|c| c.get_str(0).ok().map(str::to_string))
            });
    }
}
