//! Assimp 5.2's `fast_atof` (`fast_atoreal_move<float>`, `include/assimp/fast_atof.h`): the
//! value Assimp's OBJ reader and its ASCII FBX reader give a number, bit for bit, which is not
//! always the correctly rounded one. `kiln-obj` and `kiln-fbx` (for the Assimp-conformant
//! import) read numbers through it, so that positions, and what depends on their last bits,
//! such as a degenerate face's tangent, are Assimp's.

/// Assimp's `fast_atof_table`: `0.1^n` as C `double` literals, what the digits after the
/// point are scaled by.
const FAST_ATOF_TABLE: [f64; 16] = [
    0.0,
    0.1,
    0.01,
    0.001,
    0.0001,
    0.00001,
    0.000001,
    0.0000001,
    0.00000001,
    0.000000001,
    0.0000000001,
    0.00000000001,
    0.000000000001,
    0.0000000000001,
    0.00000000000001,
    0.000000000000001,
];

/// Digits after the point that Assimp reads (`AI_FAST_ATOF_RELAVANT_DECIMALS`); the rest are
/// skipped.
const RELEVANT_DECIMALS: u32 = 15;

/// `10^e` as `f32` for `e` in `-45..=38` (Rust's literals are correctly rounded): what
/// Assimp's `std::pow(10.0f, e)` gives for an integer exponent (glibc's `powf` is correctly
/// rounded there; a test compares every entry with the platform's `powf`). A table keeps the
/// crate `no_std`.
const POW10_F32: [f32; 84] = [
    1e-45, 1e-44, 1e-43, 1e-42, 1e-41, 1e-40, 1e-39, 1e-38, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33,
    1e-32, 1e-31, 1e-30, 1e-29, 1e-28, 1e-27, 1e-26, 1e-25, 1e-24, 1e-23, 1e-22, 1e-21, 1e-20,
    1e-19, 1e-18, 1e-17, 1e-16, 1e-15, 1e-14, 1e-13, 1e-12, 1e-11, 1e-10, 1e-9, 1e-8, 1e-7, 1e-6,
    1e-5, 1e-4, 1e-3, 1e-2, 1e-1, 1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
    1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22, 1e23, 1e24, 1e25, 1e26, 1e27,
    1e28, 1e29, 1e30, 1e31, 1e32, 1e33, 1e34, 1e35, 1e36, 1e37, 1e38,
];

/// `powf(10, e)` for an exponent `fast_atof` read: an integer (or ±0) as `f32`.
fn pow10(e: f32) -> f32 {
    if e > 38.0 {
        f32::INFINITY
    } else if e < -45.0 {
        0.0
    } else {
        POW10_F32[(e as i32 + 45) as usize]
    }
}

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// The value of the longest prefix of `s` that Assimp's `fast_atof` accepts: an optional
/// sign, then `nan`, `inf`/`infinity`, or digits with an optional fraction (`.` or `,`
/// followed by a digit; a lone trailing `.` is eaten) and an optional exponent (`e`/`E`,
/// optional sign, digits). Whatever follows the prefix is ignored, as Assimp does (`3.1+e2`
/// reads 3.1).
///
/// Returns `None` when `s` does not start like a number (Assimp throws there). The value is
/// the one Assimp 5.2's `fast_atoreal_move<float>` computes, bit for bit, not the correctly
/// rounded one: the integer part as an `f32`, plus the first 15 digits after the point as an
/// integer times `0.1^n` in `f64`, narrowed to `f32` before the (single-precision) sum, then
/// times `powf(10, exponent)` (from a table of the `f32` powers of ten). About one number in
/// ten of 1 or more differs from the correctly rounded `f32` in its last bit; a degenerate
/// face's tangent turns that bit into 3e-4, so the tangents of Blender's triangulated OBJ
/// exports match Assimp's only with Assimp's numbers.
///
/// Two inputs Assimp itself mishandles are read as numbers instead: an integer part past
/// `u64` (Assimp warns and reads 0) is summed in `f64`, and an `e` without digits (Assimp
/// throws) is an exponent of 0.
pub fn fast_atof(s: &[u8]) -> Option<f32> {
    fast_atof_prefix(s).map(|(v, _)| v)
}

/// [`fast_atof`] and the length of the number it read: the sign, `nan`, `inf` or
/// `infinity`, the digits, fraction and exponent, but not an `e` (and its sign) without
/// digits, which Assimp throws on and [`fast_atof`] reads as no exponent. A caller that needs
/// the whole of a token to be a number compares the length with the token's.
pub fn fast_atof_prefix(s: &[u8]) -> Option<(f32, usize)> {
    let mut i = 0;
    let neg = s.first() == Some(&b'-');
    if neg || s.first() == Some(&b'+') {
        i = 1;
    }
    let rest = &s[i..];
    if starts_with_ci(rest, b"nan") {
        return Some((f32::NAN, i + 3));
    }
    if starts_with_ci(rest, b"inf") {
        let len = if starts_with_ci(rest, b"infinity") {
            8
        } else {
            3
        };
        let inf = if neg {
            f32::NEG_INFINITY
        } else {
            f32::INFINITY
        };
        return Some((inf, i + len));
    }
    let digit = |k: usize| {
        s.get(k)
            .filter(|c| c.is_ascii_digit())
            .map(|c| u64::from(c - b'0'))
    };
    let point_at = |k: usize| matches!(s.get(k), Some(b'.' | b','));
    if !(digit(i).is_some() || (point_at(i) && digit(i + 1).is_some())) {
        return None;
    }
    let mut f = 0f32;
    if digit(i).is_some() {
        // `strtoul10_64`, then `static_cast<float>`.
        let start = i;
        let mut int = Some(0u64);
        while let Some(d) = digit(i) {
            int = int.and_then(|v| v.checked_mul(10)?.checked_add(d));
            i += 1;
        }
        f = match int {
            Some(v) => v as f32,
            // Past `u64`: the digits summed in `f64` instead.
            None => s[start..i]
                .iter()
                .fold(0f64, |w, c| w * 10.0 + f64::from(c - b'0')) as f32,
        };
    }
    if point_at(i) && digit(i + 1).is_some() {
        i += 1;
        let (mut frac, mut read) = (0u64, 0u32);
        while let Some(d) = digit(i) {
            if read < RELEVANT_DECIMALS {
                frac = frac * 10 + d;
                read += 1;
            }
            i += 1;
        }
        let pl = frac as f64 * FAST_ATOF_TABLE[read as usize];
        f += pl as f32;
    } else if s.get(i) == Some(&b'.') {
        i += 1;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut k = i + 1;
        let eneg = s.get(k) == Some(&b'-');
        if eneg || s.get(k) == Some(&b'+') {
            k += 1;
        }
        // `static_cast<float>(strtoul10_64(...))`; past `u64` the exponent is infinite
        // either way for an `f32`.
        let mut e = 0u64;
        let digits = k;
        while let Some(d) = digit(k) {
            e = e.saturating_mul(10).saturating_add(d);
            k += 1;
        }
        let exp = if eneg { -(e as f32) } else { e as f32 };
        f *= pow10(exp);
        if k > digits {
            i = k;
        }
    }
    Some((if neg { -f } else { f }, i))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<f32> {
        fast_atof(s.as_bytes())
    }

    #[test]
    fn the_prefix_length_is_the_number_read() {
        let len = |t: &str| fast_atof_prefix(t.as_bytes()).map(|(_, n)| n);
        assert_eq!(len("1.5"), Some(3));
        assert_eq!(len("-2.e+10x"), Some(7));
        assert_eq!(len("3.1+e2"), Some(3));
        assert_eq!(len("1e"), Some(1));
        assert_eq!(len("1.5e-"), Some(3));
        assert_eq!(len("+inf"), Some(4));
        assert_eq!(len("-Infinity"), Some(9));
        assert_eq!(len("nanx"), Some(3));
        assert_eq!(len(".5#"), Some(2));
        assert_eq!(len("x"), None);
    }

    #[test]
    fn plain_and_signed() {
        assert_eq!(p("0"), Some(0.0));
        assert_eq!(p("1"), Some(1.0));
        assert_eq!(p("-2.5"), Some(-2.5));
        assert_eq!(p("+3.25"), Some(3.25));
        assert_eq!(p(".5"), Some(0.5));
        assert_eq!(p("-.5"), Some(-0.5));
        assert_eq!(p("0.000123"), Some(0.000123));
        assert!(p("-0").unwrap().is_sign_negative());
    }

    #[test]
    fn assimp_number_formats() {
        // The forms of number_formats.obj.
        assert_eq!(p("2."), Some(2.0));
        assert_eq!(p("+2."), Some(2.0));
        assert_eq!(p("1e2"), Some(100.0));
        assert_eq!(p("2.e1"), Some(20.0));
        assert_eq!(p("3.1e2"), Some(310.0));
        assert_eq!(p("1e+2"), Some(100.0));
        assert_eq!(p("2.e+1"), Some(20.0));
        assert_eq!(p("3.1+e2"), Some(3.1));
        assert_eq!(p("3.1-e2"), Some(3.1));
        assert_eq!(p("1e-2"), Some(0.01));
        assert_eq!(p("2.e-1"), Some(0.2));
        assert_eq!(p("1e10"), Some(1e10));
        assert_eq!(p("2.e01"), Some(20.0));
        assert_eq!(p("1E2"), Some(100.0));
        assert_eq!(p("3.1E2"), Some(310.0));
        assert_eq!(p("1,5"), Some(1.5));
        assert_eq!(p("1e"), Some(1.0));
    }

    #[test]
    fn specials_and_garbage() {
        assert!(p("nan").unwrap().is_nan());
        assert!(p("-NaN").unwrap().is_nan());
        assert_eq!(p("inf"), Some(f32::INFINITY));
        assert_eq!(p("-Infinity"), Some(f32::NEG_INFINITY));
        assert_eq!(p("abc"), None);
        assert_eq!(p(""), None);
        assert_eq!(p("-"), None);
        assert_eq!(p("."), None);
        assert_eq!(p("1e400"), Some(f32::INFINITY));
        assert_eq!(p("1e-400"), Some(0.0));
        // 0 × powf(10, 400) = 0 × ∞, as in Assimp.
        assert!(p("0e400").unwrap().is_nan());
    }

    #[test]
    fn values_are_assimps_not_the_correctly_rounded_ones() {
        // Integer part and fraction rounded to f32 apart, then added in f32: 1.091950 (a
        // corner of a degenerate face of a Blender export) comes out one ulp below the
        // correctly rounded f32, as Assimp 5.2 reads it (checked against `assimp dump -b`).
        let one_ulp_down = |x: f32| f32::from_bits(x.to_bits() - 1);
        assert_eq!(p("1.091950"), Some(one_ulp_down(1.09195)));
        assert_eq!(p("-1.091950"), Some(-one_ulp_down(1.09195)));
        assert_eq!(p("1.5"), Some(1.5));
        // Below 1 the f64 product is narrowed once, as the correctly rounded value mostly is.
        assert_eq!(p("0.393891"), Some(0.393891));
        // Only the first 15 digits after the point count.
        assert_eq!(
            p("0.1234567890123456789012345"),
            Some((123_456_789_012_345f64 * 0.000000000000001) as f32)
        );
        assert_eq!(p("0.1234567890123459999"), p("0.123456789012345"));
        // An integer part past u64 (Assimp reads 0 and warns) is summed in f64.
        assert_eq!(p("123456789012345678901234567890"), Some(1.234_567_9e29));
        assert_eq!(p("16777217"), Some(16_777_216.0));
        // The exponent scales in f32 by powf(10, e).
        assert_eq!(p("3.4028235e38"), Some(3.402_823_5 * 1e38));
        assert_eq!(p("2.5e-3"), Some(2.5 * 1e-3));
        assert_eq!(p("1e-45"), Some(1e-45));
        assert_eq!(p("1e-46"), Some(0.0));
    }

    #[cfg(feature = "std")]
    #[test]
    fn the_power_table_is_the_platforms_powf() {
        for e in -60..=60 {
            extern crate std;
            let want = std::primitive::f32::powf(10.0, e as f32);
            assert_eq!(pow10(e as f32).to_bits(), want.to_bits(), "10^{e}");
        }
        assert_eq!(pow10(-0.0), 1.0);
    }
}
