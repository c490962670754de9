//! Number parsing with Assimp 5.2's semantics, without allocation: C `atoi` for face
//! indices here; reals through `kiln_scene::fast_atof`, Assimp's `fast_atof` and its rounding.

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
