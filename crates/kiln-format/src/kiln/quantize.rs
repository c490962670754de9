//! The compact vertex encodings of the kiln layout and their error bounds.
//!
//! | attribute | encoding | bound (tested in `tests/kiln_quantize.rs`) |
//! |---|---|---|
//! | normal, tangent | octahedral, 2 × snorm16 | angle to the normalised input ≤ [`DIRECTION_MAX_ERROR_RADIANS`] |
//! | UV, position | unorm16 against `min`/`extent` | ≤ `extent / 131070` + 2 ulp of `|min| + extent`, per component ([`unorm16_max_error`]) |
//! | blend weights | 4 × unorm8, sum exactly 255 | each `|q/255 − w/Σw| < 1/255` ([`WEIGHT_MAX_ERROR`]) |
//! | morph position / normal offsets | 3 × snorm16 against the shape's scale `s` (its largest \|component\|) | ≤ `s / 65534` + 2 ulp-sized terms, per component ([`snorm16_max_error`]) |
//!
//! Morph offsets are deltas, not unit vectors, so octahedral encoding does not apply: each
//! component is `scale · max(q / 32767, −1)`, with one scale per shape and stream (stored in
//! the shape record, [`MorphShapeRecord::reserved`](super::spec::MorphShapeRecord::reserved)),
//! the largest |component| of that shape's offsets, so a shape's largest offset component is
//! exact and every other is within half a step, `s / 65534`, of its value.
//!
//! The decoders are the formulas of `docs/format.md`, computed in `f32`.

/// Largest angle (radians) between a unit direction and its octahedral snorm16 round trip:
/// the grid step is `h = 1/32767`; rounding moves a point of the octahedron by at most
/// `h·√1.5`, and normalising a point of the octahedron (norm ≥ 1/√3) stretches that by at most
/// `√3`, so `√4.5·h ≈ 6.47e-5`; plus `1e-6` for `f32` arithmetic.
pub const DIRECTION_MAX_ERROR_RADIANS: f32 = 6.6e-5;

/// Largest error of one quantised weight against the normalised weight, in weight units.
pub const WEIGHT_MAX_ERROR: f32 = 1.0 / 255.0;

fn sign_not_zero(v: f32) -> f32 {
    if v < 0.0 { -1.0 } else { 1.0 }
}

#[cfg(feature = "write")]
fn snorm16(v: f32) -> i16 {
    // Clamped and rounded; in range by construction.
    libm::roundf(v.clamp(-1.0, 1.0) * 32767.0) as i16
}

/// The octahedral decoding of `docs/format.md` (returns a unit vector).
pub fn oct_decode(q: [i16; 2]) -> [f32; 3] {
    let mut x = (q[0] as f32 / 32767.0).max(-1.0);
    let mut y = (q[1] as f32 / 32767.0).max(-1.0);
    let z = 1.0 - x.abs() - y.abs();
    if z < 0.0 {
        let (ox, oy) = (x, y);
        x = (1.0 - oy.abs()) * sign_not_zero(ox);
        y = (1.0 - ox.abs()) * sign_not_zero(oy);
    }
    let len = libm_sqrt(x * x + y * y + z * z);
    [x / len, y / len, z / len]
}

/// Encodes a direction (normalised first) as octahedral snorm16, choosing among the four
/// neighbouring grid points the one whose decoding is closest. A zero or non-finite vector
/// encodes as `[0, 0]` (which decodes to +Z).
#[cfg(feature = "write")]
pub fn oct_encode(v: [f32; 3]) -> [i16; 2] {
    let l1 = v[0].abs() + v[1].abs() + v[2].abs();
    if !(l1.is_finite() && l1 > 0.0) {
        return [0, 0];
    }
    let (mut x, mut y) = (v[0] / l1, v[1] / l1);
    if v[2] < 0.0 {
        let (ox, oy) = (x, y);
        x = (1.0 - oy.abs()) * sign_not_zero(ox);
        y = (1.0 - ox.abs()) * sign_not_zero(oy);
    }
    // Compared in f64: the candidates' errors (~1e-5) are below f32's resolution of a dot
    // product near 1.
    let v64 = v.map(|c| c as f64);
    let len = libm::sqrt(v64[0] * v64[0] + v64[1] * v64[1] + v64[2] * v64[2]);
    let unit = v64.map(|c| c / len);
    let (fx, fy) = (
        libm::floorf(x.clamp(-1.0, 1.0) * 32767.0),
        libm::floorf(y.clamp(-1.0, 1.0) * 32767.0),
    );
    let mut best = [snorm16(x), snorm16(y)];
    let mut best_err = f64::INFINITY;
    for (dx, dy) in [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (1.0, 1.0)] {
        let c = [
            (fx + dx).clamp(-32767.0, 32767.0) as i16,
            (fy + dy).clamp(-32767.0, 32767.0) as i16,
        ];
        let d = oct_decode(c);
        let err = (0..3)
            .map(|a| (d[a] as f64 - unit[a]) * (d[a] as f64 - unit[a]))
            .sum::<f64>();
        if err < best_err {
            best_err = err;
            best = c;
        }
    }
    best
}

/// `min + extent * (q / 65535)`, in `f32`.
pub fn unorm16_decode(q: u16, min: f32, extent: f32) -> f32 {
    min + extent * (q as f32 / 65535.0)
}

/// The unorm16 code of `v` against `min`/`extent` (nearest, clamped); 0 when `extent` is 0.
#[cfg(feature = "write")]
pub fn unorm16_encode(v: f32, min: f32, extent: f32) -> u16 {
    if extent.is_nan() || extent <= 0.0 {
        return 0;
    }
    let t = libm::roundf((v - min) / extent * 65535.0);
    let mut q = t.clamp(0.0, 65535.0) as u16;
    // Nudge by one step when that decodes closer (the f32 division can round the wrong way).
    let err = |q: u16| (unorm16_decode(q, min, extent) - v).abs();
    for c in [q.saturating_sub(1), q.saturating_add(1)] {
        if err(c) < err(q) {
            q = c;
        }
    }
    q
}

/// The largest error of [`unorm16_decode`]`(`[`unorm16_encode`]`(v))` for `v` in
/// `[min, min + extent]`: half a step plus `f32` rounding of the decode.
pub fn unorm16_max_error(min: f32, extent: f32) -> f32 {
    extent / 131070.0 + 2.0 * f32::EPSILON * (min.abs() + extent)
}

/// `scale · max(q / 32767, −1)`, in `f32`: a snorm16 morph offset component (what a GPU's
/// `snorm16` attribute gives, times the shape's scale).
pub fn snorm16_decode(q: i16, scale: f32) -> f32 {
    scale * (q as f32 / 32767.0).max(-1.0)
}

/// The snorm16 code of `v` against `scale` (nearest, clamped to ±32767, for `|v| ≤ scale`);
/// 0 when `scale` is 0, negative or not finite, or `v` is not finite.
#[cfg(feature = "write")]
pub fn snorm16_encode(v: f32, scale: f32) -> i16 {
    if !(scale.is_finite() && scale > 0.0 && v.is_finite()) {
        return 0;
    }
    let t = libm::roundf(v / scale * 32767.0);
    let mut q = t.clamp(-32767.0, 32767.0) as i16;
    // Nudge by one step when that decodes closer (the f32 division can round the wrong way);
    // the errors are compared in f64, so that the f32 subtraction rounds neither.
    let err = |q: i16| (snorm16_decode(q, scale) as f64 - v as f64).abs();
    for c in [q.saturating_sub(1).max(-32767), q.saturating_add(1)] {
        if err(c) < err(q) {
            q = c;
        }
    }
    q
}

/// The largest error of [`snorm16_decode`]`(`[`snorm16_encode`]`(v, s), s)` for `|v| ≤ s`:
/// half a step (`s / 65534`), plus `2ε·s` (ε = 2⁻²³) for the `f32` rounding of the decode's
/// division and product, plus 2⁻¹⁴⁸ for the rounding of a result (and of this bound) below
/// `f32::MIN_POSITIVE`. For `s` = 1: 1.55·10⁻⁵.
pub fn snorm16_max_error(scale: f32) -> f32 {
    scale / 65534.0 + 2.0 * f32::EPSILON * scale + f32::from_bits(2)
}

/// Blend weights as unorm8 summing to exactly 255 (largest-remainder rounding of
/// `255 · w / Σw`); negative and non-finite weights count as 0, and all-zero weights stay 0.
#[cfg(feature = "write")]
pub fn weights_encode(w: [f32; 4]) -> [u8; 4] {
    let clean = w.map(|x| if x.is_finite() && x > 0.0 { x } else { 0.0 });
    let sum: f32 = clean.iter().sum();
    if sum.is_nan() || sum <= 0.0 || sum.is_infinite() {
        return [0; 4];
    }
    let scaled = clean.map(|x| x / sum * 255.0);
    let mut q = scaled.map(|s| libm::floorf(s).clamp(0.0, 255.0) as u8);
    let mut total: u32 = q.iter().map(|&v| v as u32).sum();
    // Give the remaining units to the largest remainders (ties: lowest slot first).
    while total < 255 {
        let mut pick = 0;
        let mut best = f32::NEG_INFINITY;
        for i in 0..4 {
            let r = scaled[i] - q[i] as f32;
            if r > best && q[i] < 255 {
                best = r;
                pick = i;
            }
        }
        q[pick] += 1;
        total += 1;
    }
    while total > 255 {
        // Only reachable through float rounding of `scaled`; take from the largest.
        let pick = (0..4).max_by_key(|&i| q[i]).unwrap_or(0);
        q[pick] -= 1;
        total -= 1;
    }
    q
}

/// `q / 255` per weight.
pub fn weights_decode(q: [u8; 4]) -> [f32; 4] {
    q.map(|v| v as f32 / 255.0)
}

fn libm_sqrt(x: f32) -> f32 {
    libm::sqrtf(x)
}
