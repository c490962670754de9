//! An `AnimationCurve`'s keys as the FBX SDK interpolates them, for the curves kiln evaluates
//! rather than keeps: blend-shape weights (`DeformPercent`). Node channels keep Assimp 5.2's
//! reading (the keys, lerped), which the classic layout must equal.
//!
//! What the file holds, per key, run-length encoded (`KeyAttrRefCount[i]` keys share
//! `KeyAttrFlags[i]` and the four words `KeyAttrDataFloat[4i..4i+4]`):
//!
//! | flag | meaning |
//! |---|---|
//! | `0x2` | constant to the next key (`0x100` with it: take the next key's value) |
//! | `0x4` | linear |
//! | `0x8` | cubic; the tangent kind below |
//! | `0x100` / `0x200` / `0x400` / `0x800` | auto / TCB / user / broken tangents |
//! | `0x1000`, `0x4000` | clamped, clamped progressive (auto tangents that do not overshoot) |
//! | `0x2000` | time-independent auto tangents |
//! | `0x1000000`, `0x2000000` | the right / next left tangent is weighted |
//!
//! Words: right slope, next key's left slope, the two weights (two 16-bit 0.0001 fixed-point
//! numbers packed into the word's bits), velocities (not used). TCB keys hold tension,
//! continuity and bias in the first three. Unweighted tangents reach a third of the way.
//!
//! The tangents are solved, and each segment evaluated (a cubic Bézier, its
//! parameter found from the time by Newton's method), as ufbx does (`ufbx.c`,
//! `ufbxi_read_animation_curve` and `ufbx_evaluate_curve`; kiln's differential tests compare
//! with it): that is what Maya, MotionBuilder and Blender show for the same file.

use crate::graph::KTIME_PER_SECOND;

const CONSTANT: u32 = 0x2;
const CUBIC: u32 = 0x8;
const CONSTANT_NEXT: u32 = 0x100;
const TANGENT_TCB: u32 = 0x200;
const TANGENT_USER: u32 = 0x400;
const CLAMP: u32 = 0x1000;
const TIME_INDEPENDENT: u32 = 0x2000;
const CLAMP_PROGRESSIVE: u32 = 0x4000;
const WEIGHTED_RIGHT: u32 = 0x100_0000;
const WEIGHTED_NEXT_LEFT: u32 = 0x200_0000;

/// How a key reaches the next one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Interpolation {
    /// Holds its value until the next key.
    ConstantPrevious,
    /// Takes the next key's value right after it.
    ConstantNext,
    Linear,
    Cubic,
}

/// One key: its time (seconds), value, interpolation to the next key, and its two tangents as
/// (Δtime, Δvalue) from the key.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Key {
    pub(super) time: f64,
    pub(super) value: f64,
    pub(super) interpolation: Interpolation,
    left: [f32; 2],
    right: [f32; 2],
}

/// The weight an unweighted tangent has (a third of the segment).
const THIRD: f32 = 0.333_333;

/// Why the key attributes could not be read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum AttributeError {
    Sizes {
        flags: usize,
        data: usize,
        refs: usize,
    },
    Short {
        keys: usize,
        covered: u64,
    },
}

impl std::fmt::Display for AttributeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AttributeError::Sizes { flags, data, refs } => write!(
                f,
                "{flags} KeyAttrFlags, {data} KeyAttrDataFloat and {refs} KeyAttrRefCount values (expected n, 4n and n)"
            ),
            AttributeError::Short { keys, covered } => {
                write!(f, "KeyAttrRefCount covers {covered} of {keys} keys")
            }
        }
    }
}

/// The packed weights word: two 0.0001 fixed-point numbers in the bits of an f32.
fn unpack_weights(word: f32) -> (f32, f32) {
    let bits = word.to_bits();
    (
        (bits & 0xffff) as f32 * 0.0001,
        (bits >> 16) as f32 * 0.0001,
    )
}

/// The keys of a curve from its `KeyTime` (KTime), `KeyValueFloat` and key attributes.
/// `times` and `values` have the same length and ascending times (`read_curve` checked).
pub(super) fn keys(
    times: &[i64],
    values: &[f32],
    flags: &[i32],
    data: &[f32],
    refs: &[i32],
) -> Result<Vec<Key>, AttributeError> {
    if flags.len() != refs.len() || data.len() != refs.len() * 4 {
        return Err(AttributeError::Sizes {
            flags: flags.len(),
            data: data.len(),
            refs: refs.len(),
        });
    }
    let covered: u64 = refs.iter().map(|&r| r.max(0) as u64).sum();
    if covered < times.len() as u64 {
        return Err(AttributeError::Short {
            keys: times.len(),
            covered,
        });
    }
    let seconds = |i: usize| times[i] as f64 / KTIME_PER_SECOND;
    let value = |i: usize| f64::from(values[i]);
    let n = times.len();
    let mut out = Vec::with_capacity(n);
    // The previous key hands on the left tangent of this one.
    let (mut slope_left, mut weight_left) = (0.0f32, THIRD);
    let mut prev_time = 0.0f64;
    let (mut attr, mut left_in_run) = (0usize, refs.first().map_or(0, |&r| r.max(0)));
    for i in 0..n {
        while left_in_run == 0 {
            attr += 1;
            left_in_run = refs[attr].max(0);
        }
        let f = flags[attr] as u32;
        let w = &data[attr * 4..attr * 4 + 4];
        let (time, v) = (seconds(i), value(i));
        let next_time = if i + 1 < n { seconds(i + 1) } else { time };
        let mut slope_right = w[0];
        let mut next_slope_left = w[1];
        let (mut weight_right, mut next_weight_left) = (THIRD, THIRD);
        if f & (WEIGHTED_RIGHT | WEIGHTED_NEXT_LEFT) != 0 {
            let (r, l) = unpack_weights(w[2]);
            if f & WEIGHTED_RIGHT != 0 {
                weight_right = r;
            }
            if f & WEIGHTED_NEXT_LEFT != 0 {
                next_weight_left = l;
            }
        }
        let interpolation;
        if f & CONSTANT != 0 {
            interpolation = if f & CONSTANT_NEXT != 0 {
                Interpolation::ConstantNext
            } else {
                Interpolation::ConstantPrevious
            };
            (weight_right, next_weight_left) = (THIRD, THIRD);
            (slope_right, next_slope_left) = (0.0, 0.0);
        } else if f & CUBIC != 0 {
            interpolation = Interpolation::Cubic;
            let has_prev = i > 0 && time > prev_time;
            let has_next = i + 1 < n && next_time > time;
            if f & TANGENT_TCB != 0 {
                let into = if has_prev {
                    (v - value(i - 1)) / (time - prev_time)
                } else {
                    0.0
                };
                let out_of = if has_next {
                    (value(i + 1) - v) / (next_time - time)
                } else {
                    0.0
                };
                let edge = !has_prev || !has_next;
                let (l, r) = tcb(w[0], w[1], w[2], into, out_of, edge);
                (slope_left, slope_right) = (l, r);
                (next_slope_left, next_weight_left) = (0.0, THIRD);
            } else if f & TANGENT_USER != 0 {
                // User tangents, broken or not: the slopes as written.
            } else {
                // Auto tangents; the written slopes are the auto bias.
                let auto = Auto {
                    flags: f,
                    weight_left,
                    weight_right,
                };
                if has_prev && has_next {
                    let prev = (prev_time, value(i - 1));
                    let next = (next_time, value(i + 1));
                    if (slope_left + slope_right).abs() <= 0.0001 {
                        let s = auto.both(prev, (time, v), next, slope_right);
                        (slope_left, slope_right) = (s, s);
                    } else {
                        slope_left = auto.both(prev, (time, v), next, -slope_left);
                        slope_right = auto.both(prev, (time, v), next, slope_right);
                    }
                } else if has_prev {
                    let s = auto.one_side((prev_time, value(i - 1)), (time, v), -slope_left);
                    (slope_left, slope_right) = (s, s);
                } else if has_next {
                    let s = auto.one_side((time, v), (next_time, value(i + 1)), slope_right);
                    (slope_left, slope_right) = (s, s);
                } else {
                    (slope_left, slope_right) = (0.0, 0.0);
                }
            }
        } else {
            // Linear, or a kind not known: tangents along the straight line.
            interpolation = Interpolation::Linear;
            (weight_right, next_weight_left) = (THIRD, THIRD);
            let slope = if next_time > time {
                ((value(i + 1) - v) / (next_time - time)) as f32
            } else {
                0.0
            };
            (slope_right, next_slope_left) = (slope, slope);
        }
        let tangent = |weight: f32, delta: f64, slope: f32| {
            if delta > 0.0 {
                let dx = (f64::from(weight) * delta) as f32;
                [dx, dx * slope]
            } else {
                [0.0, 0.0]
            }
        };
        out.push(Key {
            time,
            value: v,
            interpolation,
            left: tangent(weight_left, time - prev_time, slope_left),
            right: tangent(weight_right, next_time - time, slope_right),
        });
        slope_left = next_slope_left;
        weight_left = next_weight_left;
        prev_time = time;
        left_in_run -= 1;
    }
    Ok(out)
}

/// Whether every segment is a straight line between its keys (the keys alone describe it).
pub(super) fn all_linear(keys: &[Key]) -> bool {
    keys.iter()
        .take(keys.len().saturating_sub(1))
        .all(|k| k.interpolation == Interpolation::Linear)
}

/// TCB (Kochanek–Bartels) slopes from tension, continuity and bias.
fn tcb(tension: f32, continuity: f32, bias: f32, into: f64, out_of: f64, edge: bool) -> (f32, f32) {
    let (t, c, b) = (f64::from(tension), f64::from(continuity), f64::from(bias));
    let k = if edge { 1.0 } else { 0.5 } * (1.0 - t);
    let left = k * (1.0 + b) * (1.0 - c) * into + k * (1.0 - b) * (1.0 + c) * out_of;
    let right = k * (1.0 + b) * (1.0 + c) * into + k * (1.0 - b) * (1.0 - c) * out_of;
    (left as f32, right as f32)
}

/// Auto tangents of one key.
struct Auto {
    flags: u32,
    weight_left: f32,
    weight_right: f32,
}

impl Auto {
    /// A key's slope between two neighbours, from the auto bias `bias` (percent).
    fn both(
        &self,
        (t0, v0): (f64, f64),
        (t, v): (f64, f64),
        (t1, v1): (f64, f64),
        bias: f32,
    ) -> f32 {
        if self.flags & CLAMP != 0 && (v0 - v).abs().min((v1 - v).abs()) <= 0.0 {
            return 0.0;
        }
        let mut slope = (v1 - v0) / (t1 - t0);
        if self.flags & TIME_INDEPENDENT == 0 {
            let into = (v - v0) / (t - t0);
            let out_of = (v1 - v) / (t1 - t);
            let along = (t - t0) / (t1 - t0);
            slope = slope * 0.5 + (into * (1.0 - along) + out_of * along) * 0.5;
            let bias = f64::from(bias);
            let bias_weight = bias.abs() / 100.0;
            if bias_weight > 0.0001 {
                let target = if bias > 0.0 { out_of } else { into };
                let towards = target - slope;
                slope = slope * (1.0 - bias_weight) + target * bias_weight;
                // Past ±500 % the bias adds ((bias - 500) / 100)² × 40 to the slope.
                let beyond = bias_weight - 5.0;
                if beyond > 0.0 {
                    let sign = if towards.abs() > 0.00001 {
                        towards
                    } else {
                        bias
                    };
                    let sign = if sign > 0.0 { 1.0 } else { -1.0 };
                    slope += beyond * beyond * sign * 40.0;
                }
            }
        }
        if self.flags & CLAMP_PROGRESSIVE != 0 {
            // No overshoot: the tangents stay within the neighbours' values.
            let sign = if slope >= 0.0 { 1.0 } else { -1.0 };
            let reach_left = f64::from(self.weight_left) * (t - t0);
            let reach_right = f64::from(self.weight_right) * (t1 - t);
            // Negative limits and NaN become 0.
            let limit = |reach: f64, rise: f64| {
                let m = if reach > 0.0 {
                    sign * rise / reach
                } else {
                    0.0
                };
                if m > 0.0 { m } else { 0.0 }
            };
            let max_left = limit(reach_left, v - v0);
            let max_right = limit(reach_right, v1 - v);
            slope = sign * (sign * slope).min(max_left).min(max_right);
        }
        slope as f32
    }

    /// The slope of a first or last key: towards its one neighbour.
    fn one_side(&self, (t0, v0): (f64, f64), (t1, v1): (f64, f64), bias: f32) -> f32 {
        if self.flags & CLAMP_PROGRESSIVE != 0 {
            return 0.0;
        }
        if self.flags & CLAMP != 0 && (v1 - v0).abs() <= 0.0 {
            return 0.0;
        }
        let mut slope = (v1 - v0) / (t1 - t0);
        if self.flags & TIME_INDEPENDENT == 0 {
            let bias = f64::from(bias);
            let beyond = bias.abs() / 100.0 - 5.0;
            if beyond > 0.0 {
                slope += beyond * beyond * if bias > 0.0 { 1.0 } else { -1.0 } * 40.0;
            }
        }
        slope as f32
    }
}

/// The Bézier parameter at which the segment's time is `x` (both in 0..1), the time
/// control points being `p1` and `p2`: Newton's method from `x`.
fn bezier_parameter(p1: f64, p2: f64, x: f64) -> f64 {
    let a = 3.0 * p1 - 3.0 * p2 + 1.0;
    let b = 3.0 * p2 - 6.0 * p1;
    let c = 3.0 * p1;
    let step = |t: f64| {
        let err = ((a * t + b) * t + c) * t - x;
        (t - err / ((3.0 * a * t + 2.0 * b) * t + c), err)
    };
    // Three steps are enough for most tangents; then pairs of steps, at most four, until the
    // error is within 4 ulps of 1 (ufbx's schedule, so the two agree to the bit).
    const EPS: f64 = 8.881_784_197_001_252e-16;
    let mut t = x;
    let mut err = 0.0;
    for _ in 0..3 {
        (t, err) = step(t);
    }
    for _ in 0..4 {
        if err.abs() <= EPS {
            break;
        }
        (t, _) = step(t);
        (t, err) = step(t);
    }
    t
}

/// The value at `time` (seconds) of the segment from key `a` to the next key `b`.
pub(super) fn segment(a: &Key, b: &Key, time: f64) -> f64 {
    let span = 1.0 / (b.time - a.time);
    let u = (time - a.time) * span;
    match a.interpolation {
        Interpolation::ConstantPrevious => a.value,
        Interpolation::ConstantNext => b.value,
        Interpolation::Linear => a.value * (1.0 - u) + b.value * u,
        Interpolation::Cubic => {
            let x1 = f64::from(a.right[0]) * span;
            let x2 = 1.0 - f64::from(b.left[0]) * span;
            let t = bezier_parameter(x1, x2, u);
            let s = 1.0 - t;
            let y1 = a.value + f64::from(a.right[1]);
            let y2 = b.value - f64::from(b.left[1]);
            s * s * s * a.value + 3.0 * (s * s * t * y1 + s * t * t * y2) + t * t * t * b.value
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The whole curve's value at `time` (seconds), as ufbx evaluates it: held before the
    /// first key and after the last, the key's value at a key, else its segment's.
    fn evaluate(keys: &[Key], time: f64) -> f64 {
        let Some(first) = keys.first() else {
            return 0.0;
        };
        let next = keys.partition_point(|k| k.time <= time);
        if next == 0 {
            return first.value;
        }
        let Some(b) = keys.get(next) else {
            return keys[keys.len() - 1].value;
        };
        let a = &keys[next - 1];
        if a.time == time {
            return a.value;
        }
        segment(a, b, time)
    }

    const SEC: i64 = KTIME_PER_SECOND as i64;

    fn one_run(flags: i32, words: [f32; 4], n: usize) -> (Vec<i32>, Vec<f32>, Vec<i32>) {
        (vec![flags], words.to_vec(), vec![n as i32])
    }

    #[test]
    fn linear_keys_lerp_and_hold_outside() {
        let (f, d, r) = one_run(0x4, [0.0; 4], 2);
        let k = keys(&[0, SEC], &[0.0, 10.0], &f, &d, &r).unwrap();
        assert!(all_linear(&k));
        assert_eq!(evaluate(&k, 0.25), 2.5);
        assert_eq!(evaluate(&k, -1.0), 0.0);
        assert_eq!(evaluate(&k, 2.0), 10.0);
        assert_eq!(evaluate(&k, 1.0), 10.0);
    }

    #[test]
    fn constant_keys_step() {
        let (f, d, r) = one_run(0x2, [0.0; 4], 2);
        let k = keys(&[0, SEC], &[1.0, 5.0], &f, &d, &r).unwrap();
        assert!(!all_linear(&k));
        assert_eq!(evaluate(&k, 0.99), 1.0);
        let (f, d, r) = one_run(0x102, [0.0; 4], 2);
        let k = keys(&[0, SEC], &[1.0, 5.0], &f, &d, &r).unwrap();
        assert_eq!(evaluate(&k, 0.01), 5.0);
    }

    #[test]
    fn flat_user_tangents_ease_in_and_out() {
        // Zero slopes, a third of the way: the smoothstep-like ease, symmetric about the middle.
        let (f, d, r) = one_run(0x408, [0.0; 4], 2);
        let k = keys(&[0, SEC], &[0.0, 1.0], &f, &d, &r).unwrap();
        assert!((evaluate(&k, 0.5) - 0.5).abs() < 1e-12);
        let (lo, hi) = (evaluate(&k, 0.1), evaluate(&k, 0.9));
        assert!(lo < 0.1 && lo > 0.0, "{lo}");
        assert!((lo + hi - 1.0).abs() < 1e-9);
    }

    #[test]
    fn weighted_tangents_unpack_from_the_bits() {
        let packed = f32::from_bits((5000u32 << 16) | 2500);
        assert_eq!(unpack_weights(packed), (0.25, 0.5));
    }

    #[test]
    fn auto_tangents_at_an_extreme_are_flat_when_clamped() {
        // 0, 1, 0 with clamping: the middle key's slope is 0 when a neighbour has its value;
        // here none does, so the plain auto slope (0 by symmetry) stands.
        let (f, d, r) = one_run(0x1108, [0.0; 4], 3);
        let k = keys(&[0, SEC, 2 * SEC], &[0.0, 1.0, 0.0], &f, &d, &r).unwrap();
        assert_eq!(k[1].left[1], 0.0);
        assert_eq!(k[1].right[1], 0.0);
        // The first key's slope aims at its neighbour.
        assert!((k[0].right[1] / k[0].right[0] - 1.0).abs() < 1e-6);
    }

    #[test]
    fn malformed_attributes_are_errors() {
        assert_eq!(
            keys(&[0, SEC], &[0.0, 1.0], &[4], &[0.0; 3], &[2]),
            Err(AttributeError::Sizes {
                flags: 1,
                data: 3,
                refs: 1
            })
        );
        assert_eq!(
            keys(&[0, SEC], &[0.0, 1.0], &[4], &[0.0; 4], &[1]),
            Err(AttributeError::Short {
                keys: 2,
                covered: 1
            })
        );
        // Negative run lengths count as empty runs, never as a wrap.
        assert!(keys(&[0, SEC], &[0.0, 1.0], &[4, 8], &[0.0; 8], &[-1, 2]).is_ok());
    }
}
