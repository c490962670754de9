//! FBX before 7.0 keeps its animation in `Takes`, not in `AnimationStack` objects:
//!
//! ```text
//! Takes:
//!   Take: "Take 001"
//!     LocalTime: START, STOP                (KTime)
//!     Model: "Model::pCube1"                (binary: "pCube1\0\x01Model")
//!       Channel: "Transform"
//!         Channel: "T"  { Channel: "X" { Default, KeyVer, KeyCount, Key: ... } "Y" "Z" }
//!         Channel: "R"  ...                 (degrees, the node's rotation order)
//!         Channel: "S"  ...
//!       Channel: "Visibility" ...           (not imported, as in 7.x)
//!       Channel: "SHAPE" { Default, KeyVer, KeyCount, Key: ... }
//!                                           (a blend shape's weight, percent)
//! ```
//!
//! Each take becomes the same [`NodeMap`] a 7.x stack does (`T`/`R`/`S` as `Lcl Translation`,
//! `Lcl Rotation`, `Lcl Scaling`, the axes as `d|X`, `d|Y`, `d|Z`), with `LocalTime` as the
//! stack's `LocalStart`/`LocalStop`, so everything after (merged key times, Euler order, pre-
//! and post-rotation, pivots, the time base) is the 7.x path's, and a take converts exactly as
//! the same scene saved as 7.x. Like that path, only key times and values are kept: the
//! interpolation modes and tangents are read past, not evaluated. A channel named as one of
//! the model's `Shape`s is that shape's weight curve, as ufbx reads it.
//!
//! A `Key` array is a flat list of `time, value, mode, ...` where what follows the mode
//! depends on it and on the curve's `KeyVer` (4003 before FBX 5.0, 4004 before 6.0, else
//! 4005), as the FBX SDK writes it and ufbx reads it:
//! - `L` (linear): nothing; `C` (constant): one more letter from 4004 on;
//! - `U` (cubic): a slope letter, then per slope letter `s`/`b` two slopes, `a` none, `p`/`q`
//!   two values, `t` three, `d` one; then 0 to 2 weight letters, each `n`/`c` alone, `a` with
//!   two weights, `l`/`r` with one.
//!
//! A `Key` list that ends inside a key, or has a letter outside that table, keeps the keys read
//! before it ([`codes::TAKE_KEYS_MALFORMED`]).

use std::collections::BTreeMap;
use std::sync::Arc;

use kiln_fbx::{Node, Value};
use kiln_scene::Warning;

use super::Converter;
use super::anim::{Curve, CurveNode, NodeMap};
use crate::codes;
use crate::graph::normalize_name;

/// One take, ready for [`Converter::push_animation`].
pub(super) struct Take {
    pub name: String,
    pub node_map: NodeMap,
    /// Blend-shape weight curves (percent), by the channel id of their shape.
    pub weight_curves: Vec<(u64, Arc<Curve>)>,
    /// `LocalTime`: start and stop (both 0 when missing).
    pub range: (i64, i64),
}

/// The most keys one take curve may hold (a guard against a `KeyCount` no data backs).
const MAX_KEYS: usize = 1 << 24;

impl Converter<'_, '_, '_> {
    /// Every `Take` of the document's `Takes`, in file order.
    pub(super) fn read_takes(&mut self) -> Vec<Take> {
        let g = self.g;
        let Some(takes) = g.doc.root("Takes") else {
            return Vec::new();
        };
        let key_ver = match g.version {
            v if v < 5000 => 4003,
            v if v < 6000 => 4004,
            _ => 4005,
        };
        let mut out = Vec::new();
        for take in takes.children_named("Take") {
            let name = match take.value(0) {
                Some(Value::String(s)) => kiln_scene::names::from_bytes(s).into_owned(),
                _ => String::new(),
            };
            let range = take
                .child("LocalTime")
                .and_then(|t| Some((t.value(0)?.to_i64()?, t.value(1)?.to_i64()?)))
                .unwrap_or((0, 0));
            let mut node_map = NodeMap::new();
            let mut weight_curves = Vec::new();
            for model in take.children_named("Model") {
                let Some(Value::String(target)) = model.value(0) else {
                    continue;
                };
                let Some(&id) = g.legacy_names.get(&normalize_name(target)) else {
                    let what = format!("take '{name}'");
                    self.warn(
                        Warning::new(
                            codes::CURVE_NODE_UNTARGETED,
                            format!(
                                "{what}: channels of '{}', which is not a model of the file; ignored",
                                normalize_name(target)
                            ),
                        )
                        .at(what),
                    );
                    continue;
                };
                let Some(m) = self.model(id) else { continue };
                for (channel_id, shape, channel) in self.shape_channels(id, &model) {
                    let what = format!("take '{name}', model '{}', shape '{shape}'", m.name);
                    if let Some(c) = self.take_curve(&channel, key_ver, &what) {
                        weight_curves.push((channel_id, Arc::new(c)));
                    }
                }
                for (property, channel) in transform_channels(&model) {
                    let mut curves = BTreeMap::new();
                    for axis in channel.children_named("Channel") {
                        let d = match axis.value(0) {
                            Some(Value::String(b"X")) => "d|X",
                            Some(Value::String(b"Y")) => "d|Y",
                            Some(Value::String(b"Z")) => "d|Z",
                            _ => continue,
                        };
                        let what = format!("take '{name}', model '{}', {property} {d}", m.name);
                        if let Some(c) = self.take_curve(&axis, key_ver, &what) {
                            curves.insert(d.to_string(), Arc::new(c));
                        }
                    }
                    if !curves.is_empty() {
                        node_map.entry(m.name.clone()).or_default().push((
                            id,
                            CurveNode {
                                property: property.to_string(),
                                curves,
                            },
                        ));
                    }
                }
            }
            out.push(Take {
                name,
                node_map,
                weight_curves,
                range,
            });
        }
        out
    }

    /// The take model's channels that animate a blend shape's weight: each `Channel` named as
    /// a `Shape` child of the model (or of a geometry connected to it), with that shape's
    /// channel id and name.
    fn shape_channels<'x, 'y>(
        &self,
        model: u64,
        take_model: &Node<'x, 'y>,
    ) -> Vec<(u64, String, Node<'x, 'y>)> {
        let g = self.g;
        let mut owners = vec![model];
        owners.extend(g.sources_of(model, "Geometry").map(|(c, _)| c.src));
        let mut shapes: Vec<(u64, Vec<u8>)> = Vec::new();
        for owner in owners {
            let Some(obj) = g.object(owner) else { continue };
            for (k, shape) in obj.node.children_named("Shape").enumerate() {
                if let Some(Value::String(n)) = shape.value(0) {
                    shapes.push((super::morph::legacy_channel(owner, k), n.to_vec()));
                }
            }
        }
        let mut out = Vec::new();
        if shapes.is_empty() {
            return out;
        }
        for ch in take_model.children_named("Channel") {
            let Some(Value::String(name)) = ch.value(0) else {
                continue;
            };
            if let Some((id, n)) = shapes.iter().find(|(_, n)| n.as_slice() == name) {
                out.push((*id, kiln_scene::names::from_bytes(n).into_owned(), ch));
            }
        }
        out
    }

    /// One axis channel's keys (`None` when it has none: a channel may hold only its
    /// `Default`).
    fn take_curve(&mut self, axis: &Node<'_, '_>, default_ver: i64, what: &str) -> Option<Curve> {
        let keys = axis.child("Key")?;
        let key_ver = axis
            .child("KeyVer")
            .and_then(|k| k.value(0)?.to_i64())
            .filter(|&v| v > 0)
            .unwrap_or(default_ver);
        let cells = match key_cells(&keys) {
            Ok(c) => c,
            Err(found) => {
                self.warn(malformed(
                    what,
                    format!("a {found} in its Key list; curve ignored"),
                ));
                return None;
            }
        };
        let declared = axis
            .child("KeyCount")
            .and_then(|k| k.value(0)?.to_i64())
            .and_then(|n| usize::try_from(n).ok());
        let (curve, problem) = decode_keys(&cells, key_ver, declared.unwrap_or(MAX_KEYS));
        if let Some(p) = problem {
            self.warn(malformed(
                what,
                format!("{p}; the {} keys before it are kept", curve.times.len()),
            ));
        } else if declared.is_some_and(|n| n != curve.times.len()) {
            self.warn(malformed(
                what,
                format!(
                    "KeyCount says {} keys, the Key list holds {}; they are kept",
                    declared.unwrap_or(0),
                    curve.times.len()
                ),
            ));
        }
        if curve.times.windows(2).any(|w| w[0] >= w[1]) {
            self.warn(
                Warning::new(
                    codes::CURVE_DROPPED,
                    format!("{what}: key times not in ascending order; curve ignored"),
                )
                .at(what.to_string()),
            );
            return None;
        }
        (!curve.times.is_empty()).then_some(curve)
    }
}

fn malformed(what: &str, msg: String) -> Warning {
    Warning::new(codes::TAKE_KEYS_MALFORMED, format!("{what}: {msg}")).at(what.to_string())
}

/// The take model's transform channels: `Transform`'s `T`, `R`, `S` children (or channels
/// named with the 7.x property names directly, as some exporters write them).
fn transform_channels<'d, 'a>(model: &Node<'d, 'a>) -> Vec<(&'static str, Node<'d, 'a>)> {
    let mut out = Vec::new();
    for ch in model.children_named("Channel") {
        let Some(Value::String(name)) = ch.value(0) else {
            continue;
        };
        if name == b"Transform" {
            for sub in ch.children_named("Channel") {
                let property = match sub.value(0) {
                    Some(Value::String(b"T")) => "Lcl Translation",
                    Some(Value::String(b"R")) => "Lcl Rotation",
                    Some(Value::String(b"S")) => "Lcl Scaling",
                    _ => continue,
                };
                out.push((property, sub));
            }
        } else if let Some(p) = ["Lcl Translation", "Lcl Rotation", "Lcl Scaling"]
            .into_iter()
            .find(|p| p.as_bytes() == name)
        {
            out.push((p, ch));
        }
    }
    out
}

/// One entry of a `Key` list: a number, or a letter (binary `C`, ASCII bare word).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Cell {
    Int(i64),
    Real(f64),
    Letter(u8),
}

impl Cell {
    fn time(self) -> Option<i64> {
        match self {
            Cell::Int(v) => Some(v),
            // Exporters that write times as reals: whole ticks only.
            Cell::Real(v) if v.fract() == 0.0 && v.abs() < 9.0e15 => Some(v as i64),
            _ => None,
        }
    }
    fn value(self) -> Option<f64> {
        match self {
            Cell::Int(v) => Some(v as f64),
            Cell::Real(v) => Some(v),
            Cell::Letter(_) => None,
        }
    }
    /// A mode letter; a number 0..=127 stands for one where a list is stored as numbers.
    fn letter(self) -> Option<u8> {
        match self {
            Cell::Letter(c) => Some(c),
            Cell::Int(v) => u8::try_from(v).ok().filter(|c| c.is_ascii()),
            Cell::Real(v) if v.fract() == 0.0 && (0.0..128.0).contains(&v) => Some(v as u8),
            Cell::Real(_) => None,
        }
    }
}

/// The `Key` node's entries: its scalar values, or its one numeric array. `Err` names the first
/// entry that is neither number nor letter.
fn key_cells(keys: &Node<'_, '_>) -> Result<Vec<Cell>, &'static str> {
    if keys.property_count() == 1 {
        if let Some(Value::Array(_)) = keys.value(0) {
            return match keys.f64_values() {
                Ok(v) => Ok(v.iter().map(|&x| Cell::Real(x)).collect()),
                Err(_) => Err("array that cannot be read"),
            };
        }
    }
    let mut out = Vec::with_capacity(keys.property_count());
    for i in 0..keys.property_count() {
        out.push(match keys.value(i) {
            Some(Value::Char(c)) => Cell::Letter(c),
            Some(Value::F32(v)) => Cell::Real(f64::from(v)),
            Some(Value::F64(v)) => Cell::Real(v),
            Some(Value::String(s)) if s.len() == 1 => Cell::Letter(s[0]),
            Some(v) => match v.to_i64() {
                Some(n) => Cell::Int(n),
                None => return Err(v.type_name()),
            },
            None => break,
        });
    }
    Ok(out)
}

/// Decodes up to `max` keys; the second value says why it stopped early.
fn decode_keys(cells: &[Cell], key_ver: i64, max: usize) -> (Curve, Option<String>) {
    let mut times = Vec::new();
    let mut values = Vec::new();
    let mut at = 0usize;
    let max = max.min(MAX_KEYS);
    let mut stopped = None;
    while at < cells.len() && times.len() < max {
        let key = times.len();
        match decode_key(cells, &mut at, key_ver) {
            Ok((t, v)) => {
                times.push(t);
                values.push(v as f32);
            }
            Err(e) => {
                stopped = Some(format!("key {key}: {e}"));
                break;
            }
        }
    }
    let curve = Curve {
        object: None,
        times: times.into(),
        values,
    };
    (curve, stopped)
}

/// One key from `cells[*at..]`; moves `at` past it.
fn decode_key(cells: &[Cell], at: &mut usize, key_ver: i64) -> Result<(i64, f64), String> {
    let mut take = |n: usize| -> Result<&[Cell], String> {
        let s = cells
            .get(*at..*at + n)
            .ok_or_else(|| "the Key list ends inside it".to_string())?;
        *at += n;
        Ok(s)
    };
    let head = take(3)?;
    let time = head[0]
        .time()
        .ok_or_else(|| format!("time {:?} is not a whole number of ticks", head[0]))?;
    let value = head[1]
        .value()
        .ok_or_else(|| format!("value {:?} is not a number", head[1]))?;
    let letter = |c: Cell| c.letter().map(char::from).unwrap_or('?');
    match letter(head[2]) {
        'L' => {}
        'C' => {
            if key_ver >= 4004 {
                take(1)?;
            }
        }
        'U' => {
            let slope = letter(take(1)?[0]);
            let (extra, weights) = match slope {
                's' | 'b' => (2, usize::from(key_ver != 4003)),
                'a' => (0, usize::from(key_ver > 4004)),
                'p' | 'q' => (2, if key_ver <= 4004 { 1 } else { 2 }),
                't' => (3, 0),
                'd' => (1, 1),
                other => return Err(format!("unknown slope mode '{other}'")),
            };
            take(extra)?;
            for _ in 0..weights {
                match letter(take(1)?[0]) {
                    'n' | 'c' => {}
                    'a' => {
                        take(2)?;
                    }
                    'l' | 'r' => {
                        take(1)?;
                    }
                    other => return Err(format!("unknown weight mode '{other}'")),
                }
            }
        }
        other => return Err(format!("unknown interpolation '{other}'")),
    }
    Ok((time, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cells(s: &str) -> Vec<Cell> {
        s.split(',')
            .map(|t| {
                if let Ok(i) = t.parse::<i64>() {
                    Cell::Int(i)
                } else if let Ok(f) = t.parse::<f64>() {
                    Cell::Real(f)
                } else {
                    Cell::Letter(t.as_bytes()[0])
                }
            })
            .collect()
    }

    #[test]
    fn every_key_form_of_the_sdk_decodes() {
        // 6.1 cubic with one weight letter, 5.8 cubic with explicit weights, linear,
        // constant with its letter, and auto slopes of 4005 (one weight letter).
        let c = cells(
            "0,1.5,U,s,0,0,n,10,2,U,s,0,0,a,0.3,0.3,20,3,L,30,4,C,n,40,5,U,a,n,50,6,U,p,1,1,n,r,0.5,\
             60,7,U,t,1,2,3,70,8,U,d,1,l,0.2",
        );
        let (curve, problem) = decode_keys(&c, 4005, 100);
        assert_eq!(problem, None);
        assert_eq!(*curve.times, [0, 10, 20, 30, 40, 50, 60, 70]);
        assert_eq!(curve.values, vec![1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]);
    }

    #[test]
    fn key_versions_change_what_follows_a_mode() {
        // 4003: constant has no letter, `s` no weight letter.
        let (curve, problem) = decode_keys(&cells("0,1,C,10,2,U,s,0,0,20,3,L"), 4003, 100);
        assert_eq!(problem, None);
        assert_eq!(*curve.times, [0, 10, 20]);
        // 4004: auto slope has no weight letter.
        let (curve, problem) = decode_keys(&cells("0,1,U,a,10,2,C,n"), 4004, 100);
        assert_eq!(problem, None);
        assert_eq!(curve.values, vec![1.0, 2.0]);
    }

    #[test]
    fn broken_lists_keep_the_keys_before_the_damage() {
        let (curve, problem) = decode_keys(&cells("0,1,L,10,2,X,20,3,L"), 4005, 100);
        assert_eq!(*curve.times, [0]);
        assert_eq!(problem.as_deref(), Some("key 1: unknown interpolation 'X'"));
        let (curve, problem) = decode_keys(&cells("0,1,L,10,2,U,s,0"), 4005, 100);
        assert_eq!(*curve.times, [0]);
        assert_eq!(
            problem.as_deref(),
            Some("key 1: the Key list ends inside it")
        );
        let (curve, problem) = decode_keys(&cells("0,1,L,0.5,2,L"), 4005, 100);
        assert_eq!(*curve.times, [0]);
        assert!(problem.unwrap().contains("not a whole number"));
        // KeyCount bounds what is read.
        let (curve, problem) = decode_keys(&cells("0,1,L,10,2,L,20,3,L"), 4005, 2);
        assert_eq!((curve.times.len(), problem), (2, None));
    }
}
