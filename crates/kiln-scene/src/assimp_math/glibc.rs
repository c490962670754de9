//! `sinf`, `cosf` and `acosf` as glibc computes them, for targets without glibc (wasm32).
//!
//! Natively kiln takes `f32::sin`, `f32::cos` and `f32::acos` from the platform's libm, as
//! Assimp's C++ does, so the rotations of FBX nodes and animation keys, and the quad
//! triangulation's angle test, keep Assimp's bits. On wasm32 there is no glibc: Rust's `libm`
//! (musl's algorithms) differs from glibc in the last bit of about 1.3 % of sines and cosines
//! and 2.3 % of arc cosines, enough for the package's `.clip` files to differ from the CLI's
//! (and, where a quad's angle sum lands within a bit of π, its triangles). So the wasm
//! build evaluates glibc's own algorithms.
//!
//! `sinf` and `cosf` (glibc 2.28 and later took them from Arm's Optimized
//! Routines): reduce the argument by π/2 in double precision (a scaled multiply for |x| <
//! 120, a 4/π bit table beyond), then a short polynomial in double precision, rounded once to
//! `f32`. Every double operation is done in the same order, and the products glibc's x86-64
//! build fuses (its `__sinf_fma`, chosen on processors with FMA and AVX2, compiled with GCC's
//! default contraction) are fused here too: `FUSED = true`, what wasm32 uses. `FUSED = false`
//! is its SSE2 variant, for processors without FMA. The tests compare them with the host's
//! glibc: on this project's machines (glibc 2.36, FMA) the fused variant equals it on all 2³²
//! floats, the unfused one on all but 34.
//!
//! `acosf` is Sun's fdlibm code as glibc keeps it (`e_acosf.c`): single-precision rational
//! approximations around 0 and 1, each operation in its order; it equals the host's on all
//! 2³¹ floats of [-1, 1] and on the rest.
//!
//! Written by hand because no crate gives glibc's bits: `libm` gives musl's, and a correctly
//! rounded sine would differ from glibc wherever glibc is not correctly rounded.

/// The polynomial coefficients: cosine `c0..c4`, sine `s1..s3` (`s0` is 1).
struct Poly {
    c: [f64; 5],
    s: [f64; 3],
}

const fn f(bits: u64) -> f64 {
    f64::from_bits(bits)
}

const SINE: [f64; 3] = [
    f(0xBFC5_5554_5995_A603),
    f(0x3F81_1076_0523_0BC4),
    f(0xBF29_94EB_3774_CF24),
];
const COSINE: [f64; 5] = [
    1.0,
    f(0xBFDF_FFFF_FD0C_621C),
    f(0x3FA5_5553_E106_8F19),
    f(0xBF56_C087_E89A_359D),
    f(0x3EF9_9343_027B_F8C3),
];
/// The second table negates the cosine: the quadrant's sign for free.
const TABLES: [Poly; 2] = [
    Poly { c: COSINE, s: SINE },
    Poly {
        c: [-COSINE[0], -COSINE[1], -COSINE[2], -COSINE[3], -COSINE[4]],
        s: SINE,
    },
];
const SIGN: [f64; 4] = [1.0, -1.0, -1.0, 1.0];
/// 2/π scaled by 2²⁴: the quadrant lands in bits 24 and up.
const HALF_PI_INV: f64 = f(0x4164_5F30_6DC9_C883);
const HALF_PI: f64 = f(0x3FF9_21FB_5444_2D18);
/// π/2 scaled by 2⁻⁶², for the large reduction's fixed-point remainder.
const HALF_PI_2_62: f64 = f(0x3C19_21FB_5444_2D18);
/// The bits of 4/π, overlapping windows of 32.
const INV_PIO4: [u32; 24] = [
    0xa2, 0xa2f9, 0xa2f983, 0xa2f9836e, 0xf9836e4e, 0x836e4e44, 0x6e4e4415, 0x4e441529, 0x441529fc,
    0x1529fc27, 0x29fc2757, 0xfc2757d1, 0x2757d1f5, 0x57d1f534, 0xd1f534dd, 0xf534ddc0, 0x34ddc0db,
    0xddc0db62, 0xc0db6295, 0xdb629599, 0x6295993c, 0x95993c43, 0x993c4390, 0x3c439041,
];

/// The sign-less exponent and the top three mantissa bits: a cheap magnitude class.
fn top12(x: f32) -> u32 {
    (x.to_bits() >> 20) & 0x7ff
}
/// π/4 as `f32`, 2⁻¹², 120 and infinity, as `top12` classes.
const PIO4_TOP: u32 = (0x3F49_0FDB >> 20) & 0x7ff;
const TINY_TOP: u32 = (0x3980_0000 >> 20) & 0x7ff;
const FAST_TOP: u32 = (0x42F0_0000 >> 20) & 0x7ff;
const INF_TOP: u32 = (0x7F80_0000 >> 20) & 0x7ff;

/// `a * b + c`, rounded once where glibc's build fuses it.
#[inline(always)]
fn madd<const FUSED: bool>(a: f64, b: f64, c: f64) -> f64 {
    if FUSED { a.mul_add(b, c) } else { a * b + c }
}

/// The sine (`n` even) or the cosine (`n` odd) polynomial of the reduced `x`.
fn poly<const FUSED: bool>(x: f64, x2: f64, p: &Poly, n: u32) -> f32 {
    if n & 1 == 0 {
        let x3 = x * x2;
        let s1 = madd::<FUSED>(x2, p.s[2], p.s[1]);
        let x7 = x3 * x2;
        let s = madd::<FUSED>(x3, p.s[0], x);
        madd::<FUSED>(x7, s1, s) as f32
    } else {
        let x4 = x2 * x2;
        let c2 = madd::<FUSED>(x2, p.c[4], p.c[3]);
        let c1 = madd::<FUSED>(x2, p.c[1], p.c[0]);
        let x6 = x4 * x2;
        let c = madd::<FUSED>(x4, p.c[2], c1);
        madd::<FUSED>(x6, c2, c) as f32
    }
}

/// |x| < 120: x - n·π/2 and the quadrant n (rounded to nearest through the scaled product).
fn reduce_fast<const FUSED: bool>(x: f64) -> (f64, u32) {
    let r = x * HALF_PI_INV;
    // |r| < 2³¹ here, so the truncating conversion is C's.
    let n = ((r as i32).wrapping_add(0x80_0000)) >> 24;
    (madd::<FUSED>(-(n as f64), HALF_PI, x), n as u32)
}

/// Any finite x (used from 120 up): the remainder by π/2 from 96 bits of 4/π in fixed point,
/// and the quadrant (of |x|).
fn reduce_large(bits: u32) -> (f64, u32) {
    let table = &INV_PIO4[((bits >> 26) & 15) as usize..];
    let shift = (bits >> 23) & 7;
    let m = ((bits & 0xff_ffff) | 0x80_0000) << shift;
    let low = u64::from(m.wrapping_mul(table[0]));
    let mid = u64::from(m) * u64::from(table[4]);
    let high = u64::from(m) * u64::from(table[8]);
    let mut r = (high >> 32) | (low << 32);
    r = r.wrapping_add(mid);
    let n = r.wrapping_add(1 << 61) >> 62;
    r = r.wrapping_sub(n << 62);
    ((r as i64) as f64 * HALF_PI_2_62, n as u32)
}

/// glibc's `sinf` (`COS = 0`) or `cosf` (`COS = 1`), its FMA build when `FUSED`.
fn sin_or_cos<const FUSED: bool, const COS: u32>(x: f32) -> f32 {
    let top = top12(x);
    if top < PIO4_TOP {
        if top < TINY_TOP {
            return if COS == 1 { 1.0 } else { x };
        }
        let y = f64::from(x);
        return poly::<FUSED>(y, y * y, &TABLES[0], COS);
    }
    // `q` picks the sign and the table; the polynomial (sine or cosine) goes by `n`, the
    // quadrant of x (of |x| on the large path, where `q` adds x's sign).
    let (r, n, q) = if top < FAST_TOP {
        let (r, n) = reduce_fast::<FUSED>(f64::from(x));
        (r, n, n)
    } else if top < INF_TOP {
        let (r, n) = reduce_large(x.to_bits());
        (r, n, n.wrapping_add(x.to_bits() >> 31))
    } else {
        return f32::NAN; // infinity or NaN
    };
    let table = &TABLES[((q >> 1) & 1) as usize];
    let r = r * SIGN[(q & 3) as usize];
    poly::<FUSED>(r, r * r, table, n ^ COS)
}

/// glibc's `sinf`, its FMA build when `FUSED`.
pub fn sinf<const FUSED: bool>(x: f32) -> f32 {
    sin_or_cos::<FUSED, 0>(x)
}

/// glibc's `cosf`, its FMA build when `FUSED`.
pub fn cosf<const FUSED: bool>(x: f32) -> f32 {
    sin_or_cos::<FUSED, 1>(x)
}

const fn f32b(bits: u32) -> f32 {
    f32::from_bits(bits)
}

/// glibc's `acosf` (fdlibm's `e_acosf.c`).
pub fn acosf(x: f32) -> f32 {
    const PI: f32 = f32b(0x4049_0fda);
    const PIO2_HI: f32 = f32b(0x3fc9_0fda);
    const PIO2_LO: f32 = f32b(0x33a2_2168);
    const P: [f32; 6] = [
        f32b(0x3e2a_aaab),
        f32b(0xbea6_b090),
        f32b(0x3e4e_0aa8),
        f32b(0xbd24_1146),
        f32b(0x3a4f_7f04),
        f32b(0x3811_ef08),
    ];
    const Q: [f32; 4] = [
        f32b(0xc019_d139),
        f32b(0x4001_572d),
        f32b(0xbf30_3361),
        f32b(0x3d9d_c62e),
    ];
    // r(z) = p(z) / q(z), each polynomial in Horner's order.
    let r = |z: f32| {
        let p = z * (P[0] + z * (P[1] + z * (P[2] + z * (P[3] + z * (P[4] + z * P[5])))));
        let q = 1.0 + z * (Q[0] + z * (Q[1] + z * (Q[2] + z * Q[3])));
        p / q
    };
    let hx = x.to_bits() as i32;
    let ix = hx & 0x7fff_ffff;
    if ix == 0x3f80_0000 {
        return if hx > 0 { 0.0 } else { PI + 2.0 * PIO2_LO };
    }
    if ix > 0x3f80_0000 {
        return f32::NAN;
    }
    if ix < 0x3f00_0000 {
        // |x| < 0.5
        if ix <= TINY_ACOS {
            return PIO2_HI + PIO2_LO;
        }
        PIO2_HI - (x - (PIO2_LO - x * r(x * x)))
    } else if hx < 0 {
        // x < -0.5
        let z = (1.0 + x) * 0.5;
        let s = z.sqrt();
        let w = r(z) * s - PIO2_LO;
        PI - 2.0 * (s + w)
    } else {
        // x > 0.5: sqrt(z) split in a short head and a correction.
        let z = (1.0 - x) * 0.5;
        let s = z.sqrt();
        let df = f32::from_bits(s.to_bits() & 0xffff_f000);
        let c = (z - df * df) / (s + df);
        let w = r(z) * s + c;
        2.0 * (df + w)
    }
}

/// Below this (as bits of |x|) `acosf` is π/2.
const TINY_ACOS: i32 = 0x2300_0000;

/// `acos` of `a` as the platform's libm gives it to Assimp: the host's natively, glibc's on
/// wasm32.
#[inline]
pub fn acos(a: f32) -> f32 {
    #[cfg(not(target_arch = "wasm32"))]
    {
        a.acos()
    }
    #[cfg(target_arch = "wasm32")]
    {
        acosf(a)
    }
}

/// `sin` and `cos` of `a` as the platform's libm gives them to Assimp: the host's natively,
/// glibc's FMA build on wasm32.
#[inline]
pub fn sin_cos(a: f32) -> (f32, f32) {
    #[cfg(not(target_arch = "wasm32"))]
    {
        (a.sin(), a.cos())
    }
    #[cfg(target_arch = "wasm32")]
    {
        (sinf::<true>(a), cosf::<true>(a))
    }
}

#[cfg(all(test, target_os = "linux", target_env = "gnu"))]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// The variant glibc picks on this processor (x86-64: FMA with AVX2).
    fn host_fused() -> Option<bool> {
        #[cfg(target_arch = "x86_64")]
        {
            Some(std::is_x86_feature_detected!("fma") && std::is_x86_feature_detected!("avx2"))
        }
        #[cfg(not(target_arch = "x86_64"))]
        {
            None
        }
    }

    fn check<const FUSED: bool>(inputs: impl Iterator<Item = f32>) -> (u64, Vec<f32>) {
        let (mut n, mut bad) = (0, Vec::new());
        for x in inputs {
            n += 1;
            for (ours, libc) in [(sinf::<FUSED>(x), x.sin()), (cosf::<FUSED>(x), x.cos())] {
                let same = ours.to_bits() == libc.to_bits() || (ours.is_nan() && libc.is_nan());
                if !same && bad.len() < 10 {
                    bad.push(x);
                }
            }
        }
        (n, bad)
    }

    /// Random inputs over every magnitude class and sign, the edges of each path, and
    /// every float in a few dense ranges.
    fn inputs() -> impl Iterator<Item = f32> {
        let mut s: u64 = 0x9e37_79b9_7f4a_7c15;
        let random = (0..2_000_000).map(move |_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            // Mostly |x| < 2π (rotations), the rest any bit pattern.
            if s & 7 != 0 {
                ((s >> 11) as f64 / (1u64 << 53) as f64 * 14.0 - 7.0) as f32
            } else {
                f32::from_bits((s >> 32) as u32)
            }
        });
        let edges = [
            0x3F49_0FDB_u32,
            0x3980_0000,
            0x42F0_0000,
            0x7F7F_FFFF,
            0x0080_0000,
            1,
        ]
        .into_iter()
        .flat_map(|b| (b.saturating_sub(300)..b + 300).flat_map(|b| [b, b | 0x8000_0000]))
        .map(f32::from_bits);
        let dense = (0x3F00_0000_u32..0x3F00_0000 + 300_000)
            .chain(0x4049_0000..0x4049_0000 + 300_000)
            .map(f32::from_bits);
        random.chain(edges).chain(dense).chain([
            0.0,
            -0.0,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
        ])
    }

    #[test]
    fn equals_the_hosts_glibc_bit_for_bit() {
        let Some(fused) = host_fused() else {
            std::eprintln!("not x86-64: which glibc variant runs is not known here; skipped");
            return;
        };
        let (n, bad) = if fused {
            check::<true>(inputs())
        } else {
            check::<false>(inputs())
        };
        assert!(n > 2_500_000);
        assert!(
            bad.is_empty(),
            "{} sinf/cosf of {n} inputs differ from glibc's ({}), first: {:?}",
            bad.len(),
            if fused { "FMA build" } else { "SSE2 build" },
            bad.iter().map(|x| (x, x.to_bits())).collect::<Vec<_>>()
        );
    }

    /// The check can fail: Rust's `libm` (musl's algorithm) differs from glibc on these
    /// inputs. (The unfused variant differs from glibc's FMA build on 34 of the 2³² floats,
    /// too few for a sample to find: `every_float` counts them.)
    #[test]
    fn musls_algorithm_differs_from_glibc() {
        if host_fused().is_none() {
            return;
        }
        let differ = inputs()
            .take(200_000)
            .filter(|&x| x.is_finite() && libm::sinf(x).to_bits() != x.sin().to_bits())
            .count();
        assert!(differ > 100, "{differ}");
    }

    #[test]
    fn acosf_equals_the_hosts_glibc_on_every_float_of_minus_one_to_one_sampled() {
        if host_fused().is_none() {
            return;
        }
        let mut bad = Vec::new();
        let mut n = 0u64;
        // Every 257th float of [0, 1] and its negation, the ends of each branch densely, and
        // out of range.
        let edges = [0x3f00_0000_u32, 0x3f80_0000, TINY_ACOS as u32, 0x3280_0000]
            .into_iter()
            .flat_map(|b| b.saturating_sub(5000)..b + 5000);
        for b in (0..=0x3f80_0000_u32)
            .step_by(61)
            .chain(edges)
            .chain([0x7f80_0000, 0x7fc0_0000])
        {
            for bits in [b, b | 0x8000_0000] {
                let x = f32::from_bits(bits);
                n += 1;
                let (ours, libc) = (acosf(x), x.acos());
                if ours.to_bits() != libc.to_bits()
                    && !(ours.is_nan() && libc.is_nan())
                    && bad.len() < 10
                {
                    bad.push((x, bits));
                }
            }
        }
        assert!(n > 8_000_000);
        assert!(bad.is_empty(), "acosf differs from glibc's at {bad:?}");
        let musl = (0..=0x3f80_0000_u32)
            .step_by(4099)
            .map(f32::from_bits)
            .filter(|&x| libm::acosf(x).to_bits() != x.acos().to_bits())
            .count();
        assert!(musl > 1000, "{musl}");
    }

    /// Every one of the 2³² floats, both variants (about a minute on two threads):
    /// `cargo test --release -p kiln-scene sinf -- --ignored --nocapture`.
    #[test]
    #[ignore]
    fn every_float() {
        let threads = 4u64;
        let counts: Vec<[u64; 2]> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..threads)
                .map(|t| {
                    scope.spawn(move || {
                        let (lo, hi) = (t << 32 >> 2, (t + 1) << 32 >> 2);
                        let mut bad = [0u64; 2];
                        for b in lo..hi {
                            let x = f32::from_bits(b as u32);
                            let (s, c) = (x.sin(), x.cos());
                            let same = |a: f32, b: f32| {
                                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
                            };
                            if !same(sinf::<true>(x), s) || !same(cosf::<true>(x), c) {
                                bad[0] += 1;
                            }
                            if !same(sinf::<false>(x), s) || !same(cosf::<false>(x), c) {
                                bad[1] += 1;
                            }
                            if !same(acosf(x), x.acos()) {
                                bad[0] += 1;
                                bad[1] += 1;
                            }
                        }
                        bad
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let fused: u64 = counts.iter().map(|c| c[0]).sum();
        let unfused: u64 = counts.iter().map(|c| c[1]).sum();
        std::eprintln!(
            "of 2^32 floats, differ from the host's glibc: FMA build {fused}, SSE2 build {unfused}"
        );
        assert_eq!(
            if host_fused() == Some(true) {
                fused
            } else {
                unfused
            },
            0
        );
    }
}
