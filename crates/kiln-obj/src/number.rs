//! Number parsing with Assimp 5.2's semantics (`fast_atof` for reals, C `atoi` for face
//! indices), without allocation and with correctly rounded results.

/// Powers of ten exactly representable as `f64`.
const POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
];

fn starts_with_ci(s: &[u8], word: &[u8]) -> bool {
    s.len() >= word.len() && s[..word.len()].eq_ignore_ascii_case(word)
}

/// True when `word` starts the way Assimp counts a component of a `v`/`vt` statement
/// (a digit, a sign, `nan` or `inf`), or with a decimal point followed by a digit (which
/// Assimp 5.2 does not count; see the crate docs).
pub(crate) fn looks_numeric(word: &[u8]) -> bool {
    match word.first() {
        Some(b'0'..=b'9' | b'+' | b'-') => true,
        Some(b'.') => word.get(1).is_some_and(u8::is_ascii_digit),
        Some(_) => starts_with_ci(word, b"nan") || starts_with_ci(word, b"inf"),
        None => false,
    }
}

/// Parses the longest prefix of `s` that Assimp's `fast_atof` accepts: an optional sign, then
/// `nan`, `inf`/`infinity`, or digits with an optional fraction (`.` or `,` followed by a
/// digit; a lone trailing `.` is eaten) and an optional exponent (`e`/`E`, optional sign,
/// digits). Whatever follows the prefix is ignored, as Assimp does (`3.1+e2` reads 3.1).
///
/// Returns `None` when `s` does not start like a number (Assimp throws there). The result is
/// the correctly rounded `f64` of the prefix; callers narrow it to `f32`.
pub(crate) fn parse_real(s: &[u8]) -> Option<f64> {
    let mut i = 0;
    let neg = s.first() == Some(&b'-');
    if neg || s.first() == Some(&b'+') {
        i = 1;
    }
    let sign = if neg { -1.0 } else { 1.0 };
    let rest = &s[i..];
    if starts_with_ci(rest, b"nan") {
        return Some(f64::NAN);
    }
    if starts_with_ci(rest, b"inf") {
        return Some(sign * f64::INFINITY);
    }
    let digit_at = |k: usize| s.get(k).is_some_and(u8::is_ascii_digit);
    let point_at = |k: usize| matches!(s.get(k), Some(b'.' | b','));
    if !(digit_at(i) || (point_at(i) && digit_at(i + 1))) {
        return None;
    }

    // Up to 19 significant digits in `mantissa`, the rest only moves the exponent.
    let mut mantissa: u64 = 0;
    let mut significant = 0u32;
    let mut exp10: i64 = 0;
    let mut truncated = false;
    while digit_at(i) {
        let d = u64::from(s[i] - b'0');
        if significant < 19 {
            mantissa = mantissa * 10 + d;
            if mantissa != 0 {
                significant += 1;
            }
        } else {
            exp10 += 1;
            truncated |= d != 0;
        }
        i += 1;
    }
    if point_at(i) && digit_at(i + 1) {
        i += 1;
        while digit_at(i) {
            let d = u64::from(s[i] - b'0');
            if significant < 19 {
                mantissa = mantissa * 10 + d;
                if mantissa != 0 {
                    significant += 1;
                }
                exp10 -= 1;
            } else {
                truncated |= d != 0;
            }
            i += 1;
        }
    } else if s.get(i) == Some(&b'.') {
        i += 1;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        i += 1;
        let eneg = s.get(i) == Some(&b'-');
        if eneg || s.get(i) == Some(&b'+') {
            i += 1;
        }
        let mut e: i64 = 0;
        while digit_at(i) {
            e = (e * 10 + i64::from(s[i] - b'0')).min(1_000_000);
            i += 1;
        }
        exp10 += if eneg { -e } else { e };
    }
    if mantissa == 0 {
        return Some(sign * 0.0);
    }
    // Clinger's fast path: both operands exact, one rounding.
    if !truncated && mantissa < (1u64 << 53) && exp10.unsigned_abs() <= 22 {
        let m = mantissa as f64;
        let v = if exp10 >= 0 {
            m * POW10[exp10 as usize]
        } else {
            m / POW10[(-exp10) as usize]
        };
        return Some(sign * v);
    }
    Some(sign * slow_path(mantissa, exp10))
}

/// Correctly rounded `mantissa * 10^exp10` through core's decimal parser (rare: long
/// mantissas or large exponents). The text is built in a stack buffer.
fn slow_path(mantissa: u64, exp10: i64) -> f64 {
    let mut buf = [0u8; 48];
    let mut n = 0;
    let mut digits = [0u8; 20];
    let mut k = 0;
    let mut m = mantissa;
    while m > 0 {
        digits[k] = b'0' + (m % 10) as u8;
        m /= 10;
        k += 1;
    }
    while k > 0 {
        k -= 1;
        buf[n] = digits[k];
        n += 1;
    }
    buf[n] = b'e';
    n += 1;
    let mut e = exp10.clamp(-1_000_000, 1_000_000);
    if e < 0 {
        buf[n] = b'-';
        n += 1;
        e = -e;
    }
    let mut ed = [0u8; 8];
    let mut j = 0;
    loop {
        ed[j] = b'0' + (e % 10) as u8;
        e /= 10;
        j += 1;
        if e == 0 {
            break;
        }
    }
    while j > 0 {
        j -= 1;
        buf[n] = ed[j];
        n += 1;
    }
    core::str::from_utf8(&buf[..n])
        .ok()
        .and_then(|t| t.parse::<f64>().ok())
        .unwrap_or(f64::NAN)
}

/// C `strtol(s, NULL, 10)`: leading C white space, an optional sign, decimal digits; 0 when
/// there are none; saturating at the `i64` range. Assimp's `atoi` is this truncated to `int`
/// ([`c_atoi`]); face indices beyond `i32` are rejected before that matters.
pub(crate) fn c_strtol(s: &[u8]) -> i64 {
    c_strtol_len(s).0
}

/// [`c_strtol`] and the number of bytes it read.
#[inline]
pub(crate) fn c_strtol_len(s: &[u8]) -> (i64, usize) {
    let mut i = 0;
    while matches!(s.get(i), Some(b' ' | b'\t' | b'\n' | 0x0B | 0x0C | b'\r')) {
        i += 1;
    }
    let neg = s.get(i) == Some(&b'-');
    if neg || s.get(i) == Some(&b'+') {
        i += 1;
    }
    let mut v: i64 = 0;
    let mut overflow = false;
    let start = i;
    while let Some(&c) = s.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        if i - start < 18 {
            // 18 digits always fit: no overflow check on the common path.
            v = v * 10 + i64::from(d);
        } else {
            match v.checked_mul(10).and_then(|x| x.checked_add(i64::from(d))) {
                Some(x) => v = x,
                None => overflow = true,
            }
        }
        i += 1;
    }
    let v = match (overflow, neg) {
        (true, false) => i64::MAX,
        (true, true) => i64::MIN,
        (false, false) => v,
        (false, true) => -v,
    };
    (v, i)
}

/// C `atoi` as glibc implements it: [`c_strtol`] truncated to `int`.
pub(crate) fn c_atoi(s: &[u8]) -> i32 {
    c_strtol(s) as i32
}

/// How far Assimp 5.2's face parser advances after reading the index `value`: one character
/// per decimal digit of the value, plus one for a minus sign (derived from the value, not the
/// text: `+5` and `007` are re-read from their next character).
pub(crate) fn assimp_index_step(value: i32) -> usize {
    let mut step = 1;
    if value < 0 {
        step += 1;
    }
    let mut t = value;
    loop {
        t /= 10;
        if t == 0 {
            break;
        }
        step += 1;
    }
    step
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Option<f64> {
        parse_real(s.as_bytes())
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
        assert_eq!(p("inf"), Some(f64::INFINITY));
        assert_eq!(p("-Infinity"), Some(f64::NEG_INFINITY));
        assert_eq!(p("abc"), None);
        assert_eq!(p(""), None);
        assert_eq!(p("-"), None);
        assert_eq!(p("."), None);
        assert_eq!(p("1e400"), Some(f64::INFINITY));
        assert_eq!(p("1e-400"), Some(0.0));
    }

    #[test]
    fn long_mantissas_round_correctly() {
        assert_eq!(
            p("0.1234567890123456789012345"),
            Some(0.123_456_789_012_345_68)
        );
        assert_eq!(
            p("123456789012345678901234567890"),
            Some(1.234_567_890_123_456_8e29)
        );
        assert_eq!(p("3.4028235e38").map(|v| v as f32), Some(f32::MAX));
        assert_eq!(p("9007199254740993"), Some(9_007_199_254_740_992.0));
    }

    #[test]
    fn numeric_starts() {
        for w in ["1", "-1", "+1", ".5", "nan", "INF", "-"] {
            assert!(looks_numeric(w.as_bytes()), "{w}");
        }
        for w in ["", ".", "a", "#1", ".x"] {
            assert!(!looks_numeric(w.as_bytes()), "{w}");
        }
    }

    #[test]
    fn atoi_like_glibc() {
        assert_eq!(c_atoi(b"12/3"), 12);
        assert_eq!(c_atoi(b"-4"), -4);
        assert_eq!(c_atoi(b"+7"), 7);
        assert_eq!(c_atoi(b"x"), 0);
        assert_eq!(c_atoi(b"\x0b5"), 5);
        assert_eq!(c_atoi(b"99999999999999999999"), -1);
        assert_eq!(c_atoi(b"-99999999999999999999"), 0);
        assert_eq!(c_atoi(b"4294967297"), 1);
        assert_eq!(c_strtol(b"4294967297"), 4_294_967_297);
        assert_eq!(c_strtol_len(b"-12/3"), (-12, 3));
    }

    #[test]
    fn index_step() {
        assert_eq!(assimp_index_step(1), 1);
        assert_eq!(assimp_index_step(12), 2);
        assert_eq!(assimp_index_step(-12), 3);
        assert_eq!(assimp_index_step(i32::MIN), 11);
    }
}
