//! The error bounds of the compact vertex encodings (stated in `kiln::quantize` and
//! `docs/format.md`), measured over many inputs, including the octahedron's seams and corners,
//! and of the snorm16 morph offsets, over scales from subnormal to `f32::MAX`.

use kiln_format::kiln::quantize::{
    DIRECTION_MAX_ERROR_RADIANS, WEIGHT_MAX_ERROR, oct_decode, oct_encode, snorm16_decode,
    snorm16_encode, snorm16_max_error, unorm16_decode, unorm16_encode, unorm16_max_error,
    weights_decode, weights_encode,
};

use kiln_testkit::rng::Rng;

fn angle(a: [f32; 3], b: [f64; 3]) -> f64 {
    let a = a.map(|v| v as f64);
    let la = (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt();
    let lb = (b[0] * b[0] + b[1] * b[1] + b[2] * b[2]).sqrt();
    let cross = [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ];
    let s = (cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]).sqrt();
    let c = a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
    s.atan2(c) / (la * lb).max(1e-300) * (la * lb) // atan2 is scale-free
}

fn directions() -> Vec<[f64; 3]> {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut v = Vec::new();
    for _ in 0..300_000 {
        // Uniform on the sphere.
        let z = rng.unit() * 2.0 - 1.0;
        let t = rng.unit() * std::f64::consts::TAU;
        let r = (1.0 - z * z).sqrt();
        v.push([r * t.cos(), r * t.sin(), z]);
    }
    // Axes, diagonals, and points on and near the seams (z = 0, x = 0, y = 0).
    for s in [-1.0, 1.0] {
        v.push([s, 0.0, 0.0]);
        v.push([0.0, s, 0.0]);
        v.push([0.0, 0.0, s]);
    }
    for i in 0..20_000 {
        let t = i as f64 / 20_000.0 * std::f64::consts::TAU;
        for z in [0.0, 1e-7, -1e-7, 1e-3, -1e-3] {
            v.push([t.cos(), t.sin(), z]);
            v.push([t.cos(), z, t.sin()]);
            v.push([z, t.cos(), t.sin()]);
        }
    }
    for sx in [-1.0, 1.0] {
        for sy in [-1.0, 1.0] {
            for sz in [-1.0, 1.0] {
                v.push([sx, sy, sz]);
            }
        }
    }
    v
}

#[test]
fn octahedral_directions_are_within_the_stated_angle() {
    let mut worst = 0f64;
    for d in directions() {
        let len = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        let unit = d.map(|c| c / len);
        let got = oct_decode(oct_encode(unit.map(|c| c as f32)));
        let e = angle(got, unit);
        assert!(
            e <= DIRECTION_MAX_ERROR_RADIANS as f64,
            "{unit:?} -> {got:?}: {e} rad"
        );
        worst = worst.max(e);
    }
    // The bound is not vacuous: the worst case is within a factor 4 of it.
    assert!(
        worst > DIRECTION_MAX_ERROR_RADIANS as f64 / 4.0,
        "worst {worst}"
    );
    println!("octahedral snorm16: worst angle {worst:.3e} rad over the sample");
}

#[test]
fn octahedral_decode_is_unit_length_and_degenerate_input_is_plus_z() {
    let mut rng = Rng(7);
    for _ in 0..10_000 {
        let q = [
            (rng.next_u64() as u16) as i16,
            (rng.next_u64() as u16) as i16,
        ];
        let d = oct_decode(q);
        let l = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        assert!((l - 1.0).abs() < 1e-6, "{q:?} -> {d:?}");
    }
    assert_eq!(oct_encode([0.0, 0.0, 0.0]), [0, 0]);
    assert_eq!(oct_encode([f32::NAN, 0.0, 1.0]), [0, 0]);
    assert_eq!(oct_decode([0, 0]), [0.0, 0.0, 1.0]);
    // Non-unit input is normalised.
    assert_eq!(oct_encode([0.0, 0.0, 5.0]), [0, 0]);
    assert_eq!(oct_decode(oct_encode([3.0, 0.0, 0.0])), [1.0, 0.0, 0.0]);
}

#[test]
fn unorm16_is_within_half_a_step() {
    let mut rng = Rng(11);
    for (min, extent) in [
        (0.0f32, 1.0f32),
        (-1.0, 2.0),
        (-123.25, 400.5),
        (1000.0, 0.001),
        (-5e4, 1e5),
        (3.0, 0.0),
    ] {
        let bound = unorm16_max_error(min, extent);
        let mut worst = 0f32;
        for i in 0..100_000 {
            let v = if i < 2 {
                [min, min + extent][i]
            } else {
                min + extent * rng.unit() as f32
            };
            let v = v.clamp(min, min + extent);
            let got = unorm16_decode(unorm16_encode(v, min, extent), min, extent);
            let e = (got - v).abs();
            assert!(
                e <= bound,
                "{v} in [{min}, +{extent}] -> {got}: {e} > {bound}"
            );
            worst = worst.max(e);
        }
        if extent / 65535.0 > 8.0 * f32::EPSILON * (min.abs() + extent) {
            assert!(
                worst > extent / 131070.0 * 0.5,
                "bound not approached: {worst}"
            );
        } else if extent == 0.0 {
            assert_eq!(worst, 0.0);
        }
    }
    // The ends are exact.
    assert_eq!(unorm16_encode(-1.0, -1.0, 2.0), 0);
    assert_eq!(unorm16_encode(1.0, -1.0, 2.0), 65535);
    assert_eq!(unorm16_decode(65535, -1.0, 2.0), 1.0);
}

#[test]
fn weights_sum_to_255_and_are_within_one_step() {
    let mut rng = Rng(13);
    let mut worst = 0f32;
    for i in 0..200_000 {
        let mut w = [0f32; 4];
        let used = 1 + i % 4;
        for slot in w.iter_mut().take(used) {
            *slot = rng.unit() as f32;
        }
        if i % 5 == 0 {
            // Not normalised on input.
            w = w.map(|x| x * 3.0);
        }
        let q = weights_encode(w);
        let sum: u32 = q.iter().map(|&x| x as u32).sum();
        let total: f32 = w.iter().sum();
        if total == 0.0 {
            assert_eq!(q, [0; 4]);
            continue;
        }
        assert_eq!(sum, 255, "{w:?} -> {q:?}");
        let d = weights_decode(q);
        for k in 0..4 {
            let e = (d[k] - w[k] / total).abs();
            assert!(e < WEIGHT_MAX_ERROR, "{w:?} -> {q:?}");
            worst = worst.max(e);
        }
        // A slot with no weight stays 0.
        assert!(q[used..].iter().all(|&x| x == 0));
    }
    assert!(worst > WEIGHT_MAX_ERROR * 0.45, "worst {worst}");
    assert_eq!(weights_encode([1.0, 0.0, 0.0, 0.0]), [255, 0, 0, 0]);
    assert_eq!(weights_encode([0.5, 0.5, 0.0, 0.0]), [128, 127, 0, 0]);
    assert_eq!(weights_encode([-1.0, f32::NAN, 0.0, 0.0]), [0; 4]);
    assert_eq!(
        weights_encode([1.0 / 3.0; 4].map(|x| x * 0.75)),
        [64, 64, 64, 63]
    );
}

#[test]
fn snorm16_morph_offsets_are_within_half_a_step_of_their_scale() {
    let mut rng = Rng(17);
    for scale in [
        1.0f32,
        0.001,
        0.37,
        2.5,
        123.456,
        1e-20,
        1e30,
        f32::MAX,
        f32::MIN_POSITIVE,
        f32::MIN_POSITIVE / 3.0, // subnormal
        f32::from_bits(1),
        0.0,
    ] {
        let bound = snorm16_max_error(scale);
        let mut worst = 0f64;
        for i in 0..100_000 {
            // The ends, 0, the smallest values, then uniform in [-scale, scale].
            let v = match i {
                0 => scale,
                1 => -scale,
                2 => 0.0,
                3 => -0.0,
                4 => f32::from_bits(1).min(scale),
                _ => scale * (rng.unit() as f32 * 2.0 - 1.0),
            };
            let q = snorm16_encode(v, scale);
            assert!(
                q != i16::MIN,
                "{v} against {scale}: -32768 is never written"
            );
            let got = snorm16_decode(q, scale);
            // In f64: the difference of two f32 rounds by at most 2⁻⁵³ of itself.
            let e = (got as f64 - v as f64).abs();
            assert!(
                e <= bound as f64,
                "{v} against {scale} -> {q} -> {got}: {e} > {bound}"
            );
            worst = worst.max(e);
        }
        if scale >= f32::MIN_POSITIVE {
            // Not vacuous: the worst case comes near half a step.
            assert!(
                worst > scale as f64 / 65534.0 * 0.9,
                "{scale}: worst {worst}, half a step {}",
                scale as f64 / 65534.0
            );
        } else if scale == 0.0 {
            assert_eq!(worst, 0.0);
        }
    }
    // The largest component is exact, and the codes are symmetric.
    for scale in [1.0f32, 0.3, 7e-3, 4e37] {
        assert_eq!(snorm16_encode(scale, scale), 32767);
        assert_eq!(snorm16_encode(-scale, scale), -32767);
        assert_eq!(snorm16_decode(32767, scale), scale);
        assert_eq!(snorm16_decode(-32767, scale), -scale);
        // -32768 (which kiln never writes) decodes as -1, as a GPU's snorm16.
        assert_eq!(snorm16_decode(i16::MIN, scale), -scale);
    }
    assert_eq!(snorm16_encode(0.25, 0.0), 0);
    assert_eq!(snorm16_encode(f32::NAN, 1.0), 0);
    assert_eq!(snorm16_encode(0.5, f32::INFINITY), 0);
    assert_eq!(snorm16_decode(0, 1.0).to_bits(), 0.0f32.to_bits());
    // The bound in numbers: 1.55e-5 of the scale.
    assert!((snorm16_max_error(1.0) - 1.55e-5).abs() < 1e-7);
}
